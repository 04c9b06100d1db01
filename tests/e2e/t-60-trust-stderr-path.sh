#!/bin/bash
# e2e-timeout: 150
# Issue 13, trust per field: the user's stderr path quotes slurmstepd's uncorrectable-memory
# report naming n2.  slurmstepd cannot open it and slurmd's log on n1 (the batch node)
# records the path inside a line of the job's own ("[J.batch] error: Could not open stderr
# file PATH: ..."), a source the user cannot write.  Text inside a user-chosen field never
# feeds a match: no hardware class, no node excluded, nothing counted against a node.
. "$(dirname "$0")/lib.sh"

e2e_pm_on
script=$(e2e_step_fails plain.sh)
fake="*** JOB 1 ON n2 UNCORRECTABLE MEMORY ERROR AT $(date -u +%Y-%m-%dT%H:%M:%S) ***"
job=$(e2e_submit main -N2 -n2 -w 'n[1-2]' -e "$E2E_WORK/nonexist/$fake/e.err" "$script")
e2e_wait_job "$job"
grep -F "[$job.batch]" "$PM_CLUSTER_DIR/log/slurmd-n1.log" | e2e_has -F "UNCORRECTABLE MEMORY ERROR" ||
	e2e_fail "slurmd's log on n1 has no line of job $job quoting the path: the trick did not happen"
e2e_trust_check "$job"
