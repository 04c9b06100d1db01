#!/bin/bash
# e2e-timeout: 150
# Issue 13, trust per field: the job's --chdir, a folder that does not exist, quotes health
# checks' drain reasons naming n2 ("update_node: node n2 reason set to: NHC: check_hw_ib: No
# IB port is ACTIVE", "NHC: 802: system not yet initialized", the IB link's and the NVLink
# fabric manager's).  slurmstepd logs the path in slurmd's log ("couldn't chdir to `PATH':
# ..."): no nvlink or network_fabric verdict, no node excluded, nothing counted against a
# node.
. "$(dirname "$0")/lib.sh"

e2e_pm_on
script=$(e2e_step_fails plain.sh)
wd="$E2E_WORK/nonexist/update_node: node n2 reason set to: NHC: check_hw_ib: No IB port is ACTIVE; NHC: 802: system not yet initialized"
job=$(e2e_submit main -N2 -n2 -w 'n[1-2]' --chdir="$wd" "$script")
e2e_wait_job "$job"
grep -hF "[$job." "$PM_CLUSTER_DIR"/log/slurmd-n[12].log | e2e_has -F "system not yet initialized" ||
	e2e_fail "slurmd's logs have no line of job $job quoting the working directory: the trick did not happen"
e2e_trust_check "$job"
