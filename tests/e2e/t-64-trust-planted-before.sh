#!/bin/bash
# e2e-timeout: 180
# Issue 13, a line planted in advance: before pmuser's job starts, another user (pmother)
# runs a short job on n3 whose stderr path lists the next job ids after "*** JOB 1 ON n3
# UNCORRECTABLE MEMORY ERROR AT": slurmd's log on n3 holds, from before the victim began, a
# line with the victim's id in it.  The victim's job on n3 does not keep it, and its verdict
# has no hardware class, no node excluded, nothing counted against a node.
. "$(dirname "$0")/lib.sh"

e2e_pm_on
e2e_other_dir
# the ids the next jobs will get: from the last one the controller gave, on
last=$(squeue -h -t all -o %i 2>/dev/null | sed 's/_.*//' | sort -n | tail -n 1)
last=${last:-$(sacct -a -n -X -P -S now-1days -o JobIDRaw 2>/dev/null | sort -n | tail -n 1)}
[ -n "$last" ] || e2e_skip "no job id seen yet to plant the next ones from"
ids=$(seq $((last + 1)) $((last + 12)) | paste -sd ' ')
fake="*** JOB 1 ON n3 UNCORRECTABLE MEMORY ERROR AT $ids ***"
atk=$(e2e_other_sbatch other n3 "$E2E_OTHER/nonexist/$fake/e.err")
e2e_wait_job "$atk"
grep -F "[$atk.batch]" "$PM_CLUSTER_DIR/log/slurmd-n3.log" | e2e_has -F "UNCORRECTABLE MEMORY ERROR" ||
	e2e_fail "slurmd's log on n3 has no line of pmother's job $atk: the trick did not happen"

victim=$(e2e_step_fails victim.sh)
job=$(e2e_submit main -N1 -n1 -w n3 "$victim")
case " $ids " in *" $job "*) ;; *) e2e_fail "job $job is not among the planted ids ($ids): the trick did not happen" ;; esac
e2e_wait_job "$job"
e2e_trust_check "$job"
e2e_trust_not_kept "$job" "$atk"
