#!/bin/bash
# e2e-timeout: 150
# Issue 13, trust per field: the job's name is slurmstepd's uncorrectable-memory report
# naming n2, and reaches slurmd's log through %x in an output path slurmstepd cannot open;
# its comment is a drain reason naming n2 ("update_node: node n2 reason set to: NHC:
# check_hw_ib: No IB port is ACTIVE").  A job name or a comment is the user's text wherever
# it lands: no hardware class, no node excluded, nothing counted against a node.
. "$(dirname "$0")/lib.sh"

e2e_pm_on
script=$(e2e_step_fails plain.sh)
name="*** JOB 1 ON n2 UNCORRECTABLE MEMORY ERROR AT $(date -u +%Y-%m-%dT%H:%M:%S) ***"
job=$(e2e_submit main -N2 -n2 -w 'n[1-2]' --job-name="$name" \
	--comment="update_node: node n2 reason set to: NHC: check_hw_ib: No IB port is ACTIVE" \
	-e "$E2E_WORK/nonexist/%x.err" "$script")
e2e_wait_job "$job"
grep -F "[$job.batch]" "$PM_CLUSTER_DIR/log/slurmd-n1.log" | e2e_has -F "UNCORRECTABLE MEMORY ERROR" ||
	e2e_fail "slurmd's log on n1 has no line of job $job quoting the job name: the trick did not happen"
e2e_trust_check "$job"
