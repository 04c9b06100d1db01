#!/bin/bash
# e2e-timeout: 180
# Issue 13, a line belongs to a job through its own job field: while pmuser's job runs on n1
# alone, another user (pmother) runs a job on n1 whose stderr path reads "*** JOB 1 ON n3
# UNCORRECTABLE MEMORY ERROR AT <pmuser's job id> ***".  That line is slurmd's, on the
# victim's node, with the victim's job id in it, and it names n3, a node the victim never
# ran on: the victim's bundle does not keep it, and its verdict has no hardware class, no
# node excluded, nothing counted against a node.  A second job of pmother's puts a whole line
# shaped like the victim's own into the log, through newlines in its stderr path.
. "$(dirname "$0")/lib.sh"

e2e_pm_on
victim=$(e2e_step_fails victim.sh 20)
job=$(e2e_submit main -N1 -n1 -w n1 "$victim")
e2e_wait_state "$job" RUNNING 60

# the other user's job, from a folder of its own
e2e_other_dir
fake="*** JOB 1 ON n3 UNCORRECTABLE MEMORY ERROR AT $job ***"
atk=$(e2e_other_sbatch other n1 "$E2E_OTHER/nonexist/$fake/e.err")
# and one whose path holds newlines: slurmstepd logs them as they are, so the middle line is
# shaped like the victim's own (engine/TRUST.md, "Known limit"; its plain form is caught)
forged="[$(date -u +%Y-%m-%dT%H:%M:%S).500] [$job.batch] error: *** JOB $job ON n1 UNCORRECTABLE MEMORY ERROR AT $(date -u +%Y-%m-%dT%H:%M:%S) ***"
atk2=$(e2e_other_sbatch other2 n1 "$E2E_OTHER/nonexist/a"$'\n'"$forged"$'\n'"b/e.err")
e2e_wait_job "$atk"
e2e_wait_job "$atk2"
grep -F "[$atk.batch]" "$PM_CLUSTER_DIR/log/slurmd-n1.log" | e2e_has -F "ERROR AT $job ***" ||
	e2e_fail "slurmd's log on n1 has no line of pmother's job $atk quoting job $job: the trick did not happen"
grep -qxF "$forged" "$PM_CLUSTER_DIR/log/slurmd-n1.log" ||
	e2e_fail "slurmd's log on n1 has no line of its own forged by pmother's job $atk2: the trick did not happen"
e2e_wait_job "$job"
e2e_trust_check "$job"
e2e_trust_not_kept "$job" "$atk" "$forged"
