#!/bin/bash
# e2e-timeout: 150
# Issue 13, trust per field: the job's --chdir, a folder that does not exist, quotes health
# checks' drain reasons naming n2 ("update_node: node n2 reason set to: NHC: check_hw_ib: No
# IB port is ACTIVE", "NHC: 802: system not yet initialized", the IB link's and the NVLink
# fabric manager's).  slurmstepd logs the path in slurmd's log ("couldn't chdir to `PATH':
# ..."): no nvlink or network_fabric verdict, no node excluded, nothing counted against a
# node.
. "$(dirname "$0")/lib.sh"

trust_no_blame() {
	local hw='^(gpu_hardware|nvlink|network_fabric|host_hardware)$'
	assert_v '(.cause.class // "") | test($hw) | not' "no hardware cause" --arg hw "$hw"
	assert_v '[.candidates[]? | select((.class // "") | test($hw))] | length == 0' "no hardware candidate" --arg hw "$hw"
	assert_v '.decision.containment.id != "retry-exclude-node"' "no node excluded"
	assert_v '[.evidence[]? | select((.class // "") | test($hw))] | length == 0' "nothing counted against a node" --arg hw "$hw"
	case $C in *hardware* | *nvlink* | *network_fabric* | *exclude*) e2e_fail "the comment blames a node: $C" ;; esac
}

e2e_pm_on
script=$(e2e_script plain.sh <<'SH'
#!/bin/bash
srun -l /bin/sh -c 'echo step; exit 3'
exit 3
SH
)
wd="$E2E_WORK/nonexist/update_node: node n2 reason set to: NHC: check_hw_ib: No IB port is ACTIVE; NHC: 802: system not yet initialized"
job=$(e2e_submit main -N2 -n2 -w 'n[1-2]' --chdir="$wd" "$script")
e2e_wait_job "$job"
grep -hF "[$job." "$PM_CLUSTER_DIR"/log/slurmd-n[12].log | grep -qF "system not yet initialized" ||
	e2e_fail "slurmd's logs have no line of job $job quoting the working directory: the trick did not happen"
e2e_wait_verdict "$job"
e2e_pm_check "$job"
e2e_pm_rediag "$job"
trust_no_blame
