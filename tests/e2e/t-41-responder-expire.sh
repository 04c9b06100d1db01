#!/bin/bash
# e2e-timeout: 180
# Issue 5 on real archived jobs, the store's keeping: two failing jobs run side by side
# (scenario 1, a Python exception on rank 3 of n2 with a watchdog cascade on the other ranks,
# and a one-node job whose rank raises the same way).  The first job's expiry is then moved
# into the past (its evidence made as old as that), and
#   expire --dry-run names it and removes nothing; expire removes it, logs it, keeps the
#   younger job; show and drill of the kept job still work, the removed one is gone;
#   drill and show --timeline of the cascade job before it goes (as its owner);
#   expire and replay print no progress into a pipe, and do print it on a terminal
#   (script(1) gives them a pty), the line erased at the end (issue 9).
. "$(dirname "$0")/lib.sh"

e2e_pm_on
e2e_train_py >/dev/null
script=$(e2e_batch job.sh)
old=$(e2e_submit cascade -N2 -n4 --ntasks-per-node=2 -w 'n[1-2]' --export=ALL,PM_PLAN="3=exception;*=timeout" "$script")
young=$(e2e_submit single -N1 -n1 -w n3 --export=ALL,PM_PLAN="*=exception" "$script")
e2e_wait_job "$old"
e2e_wait_job "$young"
e2e_wait_verdict "$old"
e2e_wait_verdict "$young"
dold=$(e2e_jobdir "$old")
dyoung=$(e2e_jobdir "$young")
V=$dold/verdict.json
assert_v '.cause.class == "application" and .cause.subclass == "python_exception" and .origin.ranks == [3]'

# the cascade job, from the store alone, as its owner
out=$(e2e_pm_as "$E2E_USER" drill "$old" 2>&1) || e2e_fail "drill of job $old: $out"
assert_match "intact: retrievable and reconstructible" "$out" "drill of the cascade job"
e2e_pm_as "$E2E_USER" show "$old" --timeline --json >"$E2E_WORK/timeline.json" ||
	e2e_fail "show --timeline --json of job $old"
assert_json "$E2E_WORK/timeline.json" '.[0].events | any(.rule == "py-exception" and .node == "n2" and .rank == 3 and has("observed_time"))' \
	"the exception on the timeline"
assert_json "$E2E_WORK/timeline.json" '[.[0].events[] | select(.role == "cascade") | .event_time | select(. != null)] | length > 0' \
	"the watchdog timeouts dated on the timeline"
# the ranks' watchdogs fire together on both nodes: closer than the skew tolerance, not ordered
assert_json "$E2E_WORK/timeline.json" '.[0] as $t | [$t.events[] | select(.within_skew_of != null) | . as $e |
	($t.events[] | select(.id == $e.within_skew_of)) | .node != $e.node] | length > 0 and all' \
	"watchdog timeouts on n1 and n2 within the skew tolerance marked as not ordered"

# the old job's expiry moved into the past, its files as old as that
e2e_expired "$dold"

# visible FILE: the lines a terminal shows for what script(1) recorded (each line as left by
# its last carriage return, erase-line sequences applied)
visible() {
	python3 -c '
import sys
for l in open(sys.argv[1], "rb").read().decode().replace("\r\n", "\n").split("\n"):
    l = l.split("\r")[-1].replace("\x1b[K", "")
    if l:
        print(l)' "$1"
}

# --dry-run: names it, removes nothing; no progress line in a pipe
"$E2E_CLI" expire --dry-run >"$E2E_WORK/dry.out" 2>"$E2E_WORK/dry.err" || e2e_fail "expire --dry-run: $(cat "$E2E_WORK/dry.out" "$E2E_WORK/dry.err")"
assert_contains "$E2E_WORK/dry.out" "would remove $dold (expired $past" "the expired run named"
if grep -qF "$dyoung" "$E2E_WORK/dry.out"; then e2e_fail "the younger run is named: $(cat "$E2E_WORK/dry.out")"; fi
[ ! -s "$E2E_WORK/dry.err" ] || e2e_fail "expire wrote to a pipe's stderr: $(od -c "$E2E_WORK/dry.err" | head -n 5)"
assert_file "$dold/verdict.json" "the run after --dry-run"
# on a terminal: the progress line, erased before the summary
if command -v script >/dev/null; then
	script -qec "$E2E_CLI expire --dry-run" /dev/null >"$E2E_WORK/dry.tty" </dev/null || true
	grep -qE $'\r\033\\[K'"expire: [0-9]+ job run\\(s\\) checked" "$E2E_WORK/dry.tty" ||
		e2e_fail "no progress line on a terminal: $(od -c "$E2E_WORK/dry.tty" | head -n 8)"
	# what stays on the screen: no progress line, the summary last
	visible "$E2E_WORK/dry.tty" >"$E2E_WORK/dry.screen"
	if grep -q '^expire: ' "$E2E_WORK/dry.screen"; then e2e_fail "a progress line left on the screen: $(cat "$E2E_WORK/dry.screen")"; fi
	tail -n 1 "$E2E_WORK/dry.screen" | e2e_has "^expire $E2E_STORE as of " ||
		e2e_fail "the summary is not the last line on the screen: $(cat "$E2E_WORK/dry.screen")"
	assert_contains "$E2E_WORK/dry.screen" "would remove $dold (expired $past" "the removal on the screen"
	script -qec "$E2E_CLI replay --rules $PM_SRCDIR/rules $young" /dev/null >"$E2E_WORK/replay.tty" </dev/null || true
	grep -qE $'\r\033\\[K'"replay: 1 of 1 job run\\(s\\)" "$E2E_WORK/replay.tty" ||
		e2e_fail "no replay progress on a terminal: $(od -c "$E2E_WORK/replay.tty" | head -n 8)"
else
	e2e_skip_part "script(1) not installed: the progress line on a terminal not checked"
fi
"$E2E_CLI" replay --rules "$PM_SRCDIR/rules" "$young" >"$E2E_WORK/replay.out" 2>"$E2E_WORK/replay.err" ||
	e2e_fail "replay of job $young: $(cat "$E2E_WORK/replay.out" "$E2E_WORK/replay.err")"
[ ! -s "$E2E_WORK/replay.err" ] || e2e_fail "replay wrote to a pipe's stderr: $(od -c "$E2E_WORK/replay.err" | head -n 5)"
assert_contains "$E2E_WORK/replay.out" "replayed 1 job run(s)" "replay's summary"

# expire: the old run removed and logged, the younger kept
sysl0=$(stat -c %s "$E2E_SYSLOG" 2>/dev/null || echo 0)
"$E2E_CLI" expire >"$E2E_WORK/expire.out" 2>"$E2E_WORK/expire.err" || e2e_fail "expire: $(cat "$E2E_WORK/expire.out" "$E2E_WORK/expire.err")"
assert_contains "$E2E_WORK/expire.out" "removed $dold (expired $past" "the removal reported"
[ ! -s "$E2E_WORK/expire.err" ] || e2e_fail "expire wrote to a pipe's stderr"
assert_absent "$dold" "the expired run"
assert_file "$dyoung/verdict.json" "the younger run's verdict"
assert_file "$dyoung/manifest.json" "the younger run's manifest"
if [ -e /dev/log ] && [ -f "$E2E_SYSLOG" ]; then
	e2e_wait_for 5 eval 'tail -c +$((sysl0 + 1)) "$E2E_SYSLOG" | e2e_has -F "removed $dold"' ||
		e2e_skip_part "no syslog line for the removal in $E2E_SYSLOG (another syslog daemon owns /dev/log?)"
fi
out=$(e2e_pm_as "$E2E_USER" show "$old" 2>&1) && e2e_fail "show of the removed job $old succeeded: $out"
assert_match "no evidence for job $old" "$out" "show of the removed job"
out=$(e2e_pm_as "$E2E_USER" show "$young" 2>&1) || e2e_fail "show of the kept job $young: $out"
out=$(e2e_pm_as "$E2E_USER" drill "$young" 2>&1) || e2e_fail "drill of the kept job $young: $out"
# a second expire finds nothing more of ours
"$E2E_CLI" expire >"$E2E_WORK/expire2.out" 2>&1 || e2e_fail "second expire: $(cat "$E2E_WORK/expire2.out")"
if grep -qF -e "$dyoung" -e "$dold" "$E2E_WORK/expire2.out"; then e2e_fail "the second expire touched our runs: $(cat "$E2E_WORK/expire2.out")"; fi
e2e_log "expired $dold; kept $dyoung"
