#!/bin/bash
# e2e-timeout: 180
# A job id Slurm gives again (slurmctld's state lost): the older run's comment goes to its own
# record, never to the later job's.  Job A (pmuser) gets a verdict and its comment.  Then
# slurmctld is stopped, its job state removed and FirstJobId set to A's id, so that job B
# (pmother) gets the same id: `sacct -D -j A` lists both, B's evidence is the run folder
# A~2 with its own comment.  A's comment write is then left to do again (its comment.pending,
# as a slurmdbd outage at A's end leaves it; the owner's note in its record meanwhile), and
# `postmortem finalize A~1` (the older run's merge) writes it: into A's record (`sacctmgr ...
# where jobid=A user=<A's uid>`), B's comment untouched.  Before the fix the bare
# `where jobid=A` changed B's record (slurmdbd takes the id's latest record).  The headers of
# `show A~1` / `show A` (B's run, the latest) name the run.  The cluster is left as found:
# FirstJobId removed, and the ids go on from A+1.
. "$(dirname "$0")/lib.sh"

e2e_pm_on
conf_local=$PM_CLUSTER_DIR/slurm.conf.local
ctld_pid=$PM_CLUSTER_DIR/run/slurmctld.pid
cleanup() {
	if grep -q '^FirstJobId=' "$conf_local" 2>/dev/null; then
		sed -i '/^FirstJobId=/d' "$conf_local"
		"$E2E_CLUSTER/start" >>"$E2E_WORK/cluster.log" 2>&1 || true
		scontrol reconfigure >/dev/null 2>&1 || true
	fi
	e2e_pm_config
	e2e_syslog_stop
}
trap cleanup EXIT
# the records of id $a of USER: their latest (sacct -D: every record, the user's alone)
rec_comment() { sacct -n -X -P -D -j "$a" -u "$1" -o Comment 2>/dev/null | tail -n 1; }

# ---- job A, pmuser's
e2e_train_job "3=exception;*=ok"
a=$job
dA=$(e2e_jobdir "$a")
lineA=$(cut -f2- "$dA/comment")
assert_match "ev=$E2E_CLUSTER_NAME/$a/0\$" "$lineA" "A's comment line"

# ---- the id given again: slurmctld restarted without its job state, FirstJobId=A
pid=$(tr -dc '0-9' <"$ctld_pid")
[ "$(readlink "/proc/$pid/exe")" = "$(readlink -f /usr/sbin/slurmctld)" ] || e2e_fail "no slurmctld at pid $pid"
kill -TERM "$pid"
e2e_wait_for 30 eval '[ ! -d /proc/'"$pid"' ]' || e2e_fail "slurmctld $pid did not stop"
rm -f "$PM_CLUSTER_DIR/spool/ctld/job_state" "$PM_CLUSTER_DIR/spool/ctld/job_state.old"
printf 'FirstJobId=%s\n' "$a" >>"$conf_local"
e2e_cluster start

# ---- job B, pmother's, with A's id: its own run folder A~2
E2E_USER=pmother
E2E_WORK=$E2E_WORK/other
install -d -m 755 -o pmother -g pmother "$E2E_WORK"
e2e_train_submit "2=exception;*=ok"
assert_eq "$a" "$job" "B's job id (the id given again)"
e2e_wait_job "$job"
sed -i '/^FirstJobId=/d' "$conf_local"
scontrol reconfigure >/dev/null 2>&1 || e2e_fail "scontrol reconfigure after FirstJobId"
[ "$(sacct -n -X -P -D -j "$a" -o User | paste -sd ' ')" = "pmuser pmother" ] ||
	e2e_fail "sacct -D -j $a: $(sacct -n -X -P -D -j "$a" -o User,Start | paste -sd ' ')"
dB=$(e2e_jobdir "$a~2")
b_final() {
	[ -f "$dB/verdict.json" ] && [ "$(jq -r '.provisional' "$dB/manifest.json")" = false ] &&
		[[ $(rec_comment pmother) == *"ev=$E2E_CLUSTER_NAME/$a~2/0" ]] && return 0
	[ -f "$dB/comment.pending" ] && timeout 60 "$E2E_CLI" finalize "$a~2" >/dev/null 2>&1
	return 1
}
e2e_wait_for 60 b_final || e2e_fail "no final verdict and comment for $a~2: $(ls "$dB" 2>&1 | paste -sd ' '); comment: $(rec_comment pmother)"
lineB=$(cut -f2- "$dB/comment")
assert_eq "$lineB" "$(rec_comment pmother)" "B's comment"
assert_eq "$lineA" "$(rec_comment pmuser)" "A's comment after B's merge"

# ---- the older run's comment written again: A's record only
note="my note"
sacctmgr -i modify job where jobid="$a" user=pmuser set Comment="\"$note\"" >/dev/null ||
	e2e_fail "sacctmgr could not set A's comment"
e2e_wait_for 20 eval '[ "$(rec_comment pmuser)" = "$note" ]' ||
	e2e_fail "A's comment is not the note: $(rec_comment pmuser)"
assert_eq "$lineB" "$(rec_comment pmother)" "B's comment after A's note"
cp -p "$dA/comment" "$dA/comment.pending"
rm -f "$dA/comment"
out=$(timeout 60 "$E2E_CLI" finalize "$a~1" 2>&1) || e2e_fail "postmortem finalize $a~1: $out"
e2e_log "finalize $a~1: $out"
assert_eq "$lineB" "$(rec_comment pmother)" "B's comment after A~1's merge (before the fix: A's line)"
assert_eq "$note | $lineA" "$(rec_comment pmuser)" "A's comment after A~1's merge"
assert_absent "$dA/comment.pending" "A's comment.pending after the merge"

# ---- the headers name the run
e2e_pm_as pmuser show "$a~1" >"$E2E_WORK/show1.txt" 2>&1 || e2e_fail "show $a~1: $(cat "$E2E_WORK/show1.txt")"
assert_match "^job $a~1 on $E2E_CLUSTER_NAME: " "$(head -n 1 "$E2E_WORK/show1.txt")" "show $a~1's header"
e2e_pm_as pmother show "$a" >"$E2E_WORK/show2.txt" 2>&1 || e2e_fail "show $a: $(cat "$E2E_WORK/show2.txt")"
assert_match "^job $a~2 on $E2E_CLUSTER_NAME: " "$(head -n 1 "$E2E_WORK/show2.txt")" "show $a's header (the latest run)"

# ---- the ids go on after A
next=$(e2e_submit next --wrap true)
[ "$next" -gt "$a" ] || e2e_fail "the next job's id $next is not after $a"
e2e_wait_job "$next"
