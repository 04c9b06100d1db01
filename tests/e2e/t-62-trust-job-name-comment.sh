#!/bin/bash
# e2e-timeout: 150
# Issue 13, trust per field: the job's name is slurmstepd's uncorrectable-memory report
# naming n2, and reaches slurmd's log through %x in an output path slurmstepd cannot open;
# its comment is a drain reason naming n2 ("update_node: node n2 reason set to: NHC:
# check_hw_ib: No IB port is ACTIVE").  A job name or a comment is the user's text wherever
# it lands: no hardware class, no node excluded, nothing counted against a node.
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
name="*** JOB 1 ON n2 UNCORRECTABLE MEMORY ERROR AT $(date -u +%Y-%m-%dT%H:%M:%S) ***"
job=$(e2e_submit main -N2 -n2 -w 'n[1-2]' --job-name="$name" \
	--comment="update_node: node n2 reason set to: NHC: check_hw_ib: No IB port is ACTIVE" \
	-e "$E2E_WORK/nonexist/%x.err" "$script")
e2e_wait_job "$job"
grep -F "[$job.batch]" "$PM_CLUSTER_DIR/log/slurmd-n1.log" | grep -qF "UNCORRECTABLE MEMORY ERROR" ||
	e2e_fail "slurmd's log on n1 has no line of job $job quoting the job name: the trick did not happen"
e2e_wait_verdict "$job"
e2e_pm_check "$job"
e2e_pm_rediag "$job"
trust_no_blame
