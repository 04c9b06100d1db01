#!/bin/bash
# e2e-timeout: 240
# Fault (issue 7): the evidence store cannot be reached.  Job A ends while the store's path
# is a dangling link (the shared filesystem not mounted: the store folder is moved aside and
# a link to a path that does not exist stands in its place); job B ends while the store is a
# read-only filesystem (a tmpfs remounted ro over it).  Every node keeps its bundle in its
# spool, whole, and writes nothing into the store; the jobs' own results (sacct) are what
# their scripts made them.  With the store back, the next job's collectors deliver all four
# pending bundles: A and B get their final verdicts and comments with every node present.
. "$(dirname "$0")/lib.sh"

e2e_pm_on_faulty
away=$E2E_STORE.pm-e2e-away
[ ! -e "$away" ] || e2e_fail "$away exists (left by an earlier run?)"
mountpoint -q "$E2E_STORE" && e2e_fail "$E2E_STORE is already a mount point"
install -d -m 755 "$E2E_STORE"
put_back() {
	if mountpoint -q "$E2E_STORE"; then umount -l "$E2E_STORE" || true; fi
	if [ -L "$E2E_STORE" ] && [ -d "$away" ]; then rm -f "$E2E_STORE" && mv "$away" "$E2E_STORE"; fi
}
trap 'put_back; e2e_pm_config; e2e_syslog_stop' EXIT
trap 'exit 143' TERM
e2e_train_py >/dev/null
script=$(e2e_batch job.sh)

# job A: the store's path leads nowhere
mv "$E2E_STORE" "$away"
ln -s /nonexistent/pm-e2e-store "$E2E_STORE"
a=$(e2e_submit A -N2 -n2 --ntasks-per-node=1 -w 'n[1-2]' --export=ALL,PM_PLAN="1=exception;*=ok" "$script")
e2e_wait_job "$a"
for n in n1 n2; do
	e2e_wait_for 30 test -f "$(e2e_pending_dir "$a" "$n")/$n.tar.zst" ||
		e2e_fail "job $a: $n's bundle not kept in the spool: $(grep "job $a node $n" "$E2E_SYSLOG" | tail -n 1)"
done
put_back
assert_absent "$E2E_STORE/pmlab/$a" "job $a in the store"
assert_absent /nonexistent/pm-e2e-store "the dangling store path"
assert_eq "FAILED 1:0" "$(sacct -n -X -P -j "$a" -o State,ExitCode | tr '|' ' ')" "job $a: sacct State ExitCode"

# job B: the store refuses writes (read-only)
mount -t tmpfs -o size=1m,mode=0755 pm-e2e-ro "$E2E_STORE"
mount -o remount,ro "$E2E_STORE"
b=$(e2e_submit B -N2 -n2 --ntasks-per-node=1 -w 'n[2-3]' --export=ALL,PM_PLAN="0=exception;*=ok" "$script")
e2e_wait_job "$b"
for n in n2 n3; do
	e2e_wait_for 30 test -f "$(e2e_pending_dir "$b" "$n")/$n.tar.zst" ||
		e2e_fail "job $b: $n's bundle not kept in the spool: $(grep "job $b node $n" "$E2E_SYSLOG" | tail -n 1)"
done
grep -E "job $b node n2: .*store: pending in .*Read-only file system" "$E2E_SYSLOG" >/dev/null ||
	e2e_fail "job $b: n2's syslog line does not say why: $(grep "job $b node n2" "$E2E_SYSLOG" | tail -n 1)"
[ -z "$(find "$E2E_STORE" -mindepth 1 2>/dev/null)" ] || e2e_fail "the read-only store got files: $(find "$E2E_STORE" | paste -sd ' ')"
put_back
assert_eq "FAILED 1:0" "$(sacct -n -X -P -j "$b" -o State,ExitCode | tr '|' ' ')" "job $b: sacct State ExitCode"
for f in "$(e2e_pending_dir "$a" n1)/n1.tar.zst" "$(e2e_pending_dir "$a" n2)/n2.tar.zst" \
	"$(e2e_pending_dir "$b" n2)/n2.tar.zst" "$(e2e_pending_dir "$b" n3)/n3.tar.zst"; do
	zstdcat "$f" | tar -xOf - manifest.json >/dev/null || e2e_fail "pending bundle $f is not whole"
done

# the store is back: the next job's collectors deliver what waited (with a spool per node,
# each node its own)
e2e_srun later -N3 -n3 -w 'n[1-3]' true
for j in "$a" "$b"; do
	e2e_wait_verdict "$j"
	e2e_pm_check "$j"
	d=$(e2e_jobdir "$j")
	assert_json "$d/manifest.json" '.[0].nodes.missing == [] and (.[0].nodes.present | length) == 2' "job $j: every node's evidence"
	for n in n1 n2 n3; do assert_absent "$(e2e_pending_dir "$j" "$n")/$n.tar.zst" "job $j: $n's pending bundle"; done
	assert_v '.cause.class == "application"' "job $j: the exception"
	e2e_log "job $j: $(jq -c '[.history[].why]' "$d/manifest.json")"
done
parts=$(e2e_store_partials "$E2E_STORE/pmlab/$a"; e2e_store_partials "$E2E_STORE/pmlab/$b")
[ -z "$parts" ] || e2e_fail "half-written files in the store: $parts"
e2e_store_bundles_ok "$E2E_STORE/pmlab/$a"
e2e_store_bundles_ok "$E2E_STORE/pmlab/$b"
