#!/bin/bash
# e2e-timeout: 120
# Scenario 12: the evidence of pmuser's job is readable by pmuser and by the operators'
# group (pmoper), by nobody else: another ordinary user (pmother) is refused by `postmortem
# show` and `fetch` with a clear message and cannot read the store's files directly either;
# the owner cannot alter, add to or delete the evidence.
. "$(dirname "$0")/lib.sh"

e2e_pm_on
E2E_TRAIN_ON=(-N1 -n2 -w n3)
e2e_train_job "0=exception;*=timeout,PM_WD=2"
d=$(e2e_jobdir "$job")

# pmother: refused
rc=0
out=$(e2e_pm_as pmother show "$job" 2>&1) || rc=$?
assert_eq 1 "$rc" "show as pmother: exit status"
assert_match "belongs to another user|[Pp]ermission denied" "$out" "show as pmother: message"
if [[ $out == *python_exception* ]]; then e2e_fail "show as pmother printed the verdict: $out"; fi
e2e_log "pmother show: $out"
install -d -m 777 "$E2E_WORK/other"
rc=0
out=$(e2e_pm_as pmother fetch "$job" -o "$E2E_WORK/other/ev" 2>&1) || rc=$?
assert_eq 1 "$rc" "fetch as pmother: exit status"
assert_match "belongs to another user|[Pp]ermission denied" "$out" "fetch as pmother: message"
[ -z "$(find "$E2E_WORK/other" -type f 2>/dev/null)" ] || e2e_fail "fetch as pmother copied: $(find "$E2E_WORK/other" -type f)"
for f in verdict.json manifest.json nodes/n3.tar.zst; do
	if "$E2E_CLUSTER/run-as" pmother cat "$d/$f" >/dev/null 2>&1; then e2e_fail "pmother can read $d/$f"; fi
done

# pmoper (group pmops): served
e2e_pm_as pmoper show "$job" --json >"$E2E_WORK/oper.json" 2>&1 || e2e_fail "show as pmoper: $(cat "$E2E_WORK/oper.json")"
cmp -s "$E2E_WORK/oper.json" "$d/verdict.json" || e2e_fail "show as pmoper differs from the stored verdict"
e2e_pm_as pmoper fetch "$job" -o "$E2E_WORK/other/oper" >/dev/null 2>&1 || e2e_fail "fetch as pmoper refused"
assert_file "$E2E_WORK/other/oper/verdict.json" "pmoper's fetched verdict"

# the owner reads, never writes, adds or deletes
for f in verdict.json manifest.json nodes/n3.tar.zst; do
	if "$E2E_CLUSTER/run-as" "$E2E_USER" sh -c "echo x >>'$d/$f'" 2>/dev/null; then e2e_fail "$E2E_USER can write $d/$f"; fi
	"$E2E_CLUSTER/run-as" "$E2E_USER" rm -f "$d/$f" 2>/dev/null || true
	assert_file "$d/$f" "$E2E_USER could not delete it"
done
if "$E2E_CLUSTER/run-as" "$E2E_USER" touch "$d/nodes/forged.tar.zst" 2>/dev/null; then e2e_fail "$E2E_USER can add files to the store"; fi
