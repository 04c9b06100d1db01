#!/bin/bash
# e2e-timeout: 240
# Fault (issue 7): slurmdbd is down while the job's nodes finalize.  The daemon is stopped
# (SIGTERM by its pid file, slurmdbd only) while a 2-node job runs; the job ends, every
# collector stays within its deadline (sacct and sacctmgr retried with a bound), the bundles
# and a verdict are stored, and the comment waits in comment.pending.  `finalize --pending`
# while slurmdbd is still down keeps it pending and loses nothing.  With slurmdbd back, the
# timer (`postmortem finalize`, run here as the timer would) writes the Comment, the
# verdict is final, and the job's own result in sacct is what its script made it.
. "$(dirname "$0")/lib.sh"

dbd_pid() {
	local p
	p=$(cat "$PM_CLUSTER_DIR/run/slurmdbd.pid" 2>/dev/null) || return 1
	[ -n "$p" ] && [ "$(readlink "/proc/$p/exe" 2>/dev/null)" = "$(readlink -f "$(command -v slurmdbd)")" ] &&
		printf '%s\n' "$p"
}
dbd_back() { "$E2E_CLUSTER/start" >>"$E2E_WORK/cluster.log" 2>&1 || true; }
e2e_pm_on
trap 'dbd_back; e2e_pm_config; e2e_syslog_stop' EXIT
trap 'exit 143' TERM
pid=$(dbd_pid) || e2e_fail "no running slurmdbd (pid file $PM_CLUSTER_DIR/run/slurmdbd.pid)"
e2e_train_py >/dev/null
script=$(e2e_batch job.sh)
job=$(e2e_submit main -N2 -n2 --ntasks-per-node=1 -w 'n[1-2]' \
	--export=ALL,PM_PLAN="1=exception;*=ok",PM_ITERS=8 "$script")
e2e_wait_output "$E2E_WORK/main.out" '^1: .*step 2/' 60
kill -TERM "$pid"
e2e_wait_for 30 test ! -d "/proc/$pid" || e2e_fail "slurmdbd ($pid) did not stop"
e2e_log "slurmdbd stopped"
# the queue (slurmctld) still answers: the job ends and its epilogs return
e2e_wait_for "$E2E_WAIT_TIMEOUT" eval '! e2e_in_queue '"$job" || e2e_fail "job $job still in the queue"
d=$(e2e_jobdir "$job")
for n in n1 n2; do
	e2e_wait_for 40 grep -qE "postmortem-epilog(\\[[0-9]+\\])?: job $job node $n: " "$E2E_SYSLOG" ||
		e2e_fail "no collector report from $n"
	e2e_log "$n: $(grep -E "job $job node $n: " "$E2E_SYSLOG" | tail -n 1 | sed 's/.*: job/job/' | cut -c1-300)"
done
assert_file "$d/nodes/n1.tar.zst" "n1's bundle"
assert_file "$d/nodes/n2.tar.zst" "n2's bundle"
assert_file "$d/verdict.json" "the verdict while slurmdbd is down"
assert_file "$d/comment.pending" "the comment left pending"
e2e_log "pending: $(cat "$d/comment.pending")"
cp "$d/verdict.json" "$E2E_WORK/verdict.down.json"
e2e_log "scheduler while down: $(jq -c .scheduler "$d/manifest.json")"
# the operator's command while slurmdbd is still down: still pending, nothing lost
out=$(timeout 60 "$E2E_CLI" finalize --pending 2>&1) || true
e2e_log "finalize --pending (down): $(printf '%s' "$out" | grep "/$job/" | head -n 2 | paste -sd ' ')"
assert_file "$d/comment.pending" "the comment still pending"
assert_file "$d/verdict.json" "the verdict after finalize --pending"

# slurmdbd back (contrib/cluster/start starts what is not running); the timer completes
dbd_back
dbd_pid >/dev/null || e2e_fail "slurmdbd did not come back"
e2e_log "slurmdbd back"
e2e_wait_job "$job"
i=0
until e2e_final_verdict "$job" && [ ! -e "$d/comment.pending" ]; do
	i=$((i + 1))
	[ "$i" -le 30 ] || e2e_fail "the timer never wrote the comment: $(cat "$d/comment.pending" 2>&1); $out"
	out=$(timeout 60 "$E2E_CLI" finalize 2>&1) || true
	e2e_final_verdict "$job" && [ ! -e "$d/comment.pending" ] && break
	sleep 1
done
e2e_log "the timer ran $i time(s): $(printf '%s' "$out" | grep "/$job/" | head -n 2 | paste -sd ' ')"
e2e_wait_verdict "$job"
e2e_pm_check "$job"
assert_absent "$d/comment.pending" "comment.pending once written"
assert_json "$d/manifest.json" '.[0].provisional == false and .[0].scheduler.final == true and .[0].scheduler.state == "FAILED"' "final, with Slurm's final state"
assert_v '.outcome == "FAILED" and .cause.class == "application"'
assert_match "^postmortem: attributed application/python_exception origin=n2(:[0-9,-]+)? .*ev=pmlab/$job/0$" "$C" "comment"
# slurmdbd replays the controller's records as it catches up: wait for the job's end record,
# then its result is the script's (and the controller's), and the comment is still there
res() { sacct -n -X -P -j "$job" -o State,ExitCode | tr '|' ' '; }
e2e_wait_for 60 eval '[ "$(res)" = "FAILED 1:0" ]' || e2e_fail "sacct State ExitCode: expected [FAILED 1:0], got [$(res)]"
assert_match "JobState=FAILED .*ExitCode=1:0|ExitCode=1:0.*JobState=FAILED" "$(scontrol show job "$job" -o)" "the controller's record"
sleep 2
assert_eq "$C" "$(e2e_comment "$job")" "the comment after slurmdbd caught up"
