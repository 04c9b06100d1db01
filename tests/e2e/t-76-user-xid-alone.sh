#!/bin/bash
# e2e-timeout: 120
# Issue 15, untrusted hardware symptoms: a job on a healthy node (n3) prints `NVRM: Xid 79`
# lines of its own and exits 1, with no exception and nothing in n3's kernel log.  Never
# unknown while a symptom fired, never more than a hypothesis: gpu_hardware at hypothesis,
# containment retry (excluding n3 only offered), no repair, no trusted hardware evidence,
# and the comment counts nothing against n3 (act=retry).
. "$(dirname "$0")/lib.sh"

e2e_pm_on
script=$(e2e_script job.sh <<'EOF2'
#!/bin/bash
srun -l bash -c 'if [ "$SLURM_PROCID" = 1 ]; then
	echo "NVRM: Xid (PCI:0000:3b:00): 79, pid=1911, name=python3, GPU has fallen off the bus."
	echo "NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus."
	exit 1
fi
echo "step 1 loss 2.31"'
EOF2
)
job=$(e2e_submit main -N1 -n2 -w n3 "$script")
e2e_wait_job "$job"
e2e_wait_verdict "$job"
e2e_pm_check "$job"

assert_contains "$E2E_WORK/main.out" "NVRM: Xid (PCI:0000:3b:00): 79" "the job printed the Xid"
assert_v '.status != "unknown"' "not unknown"
assert_v '.confidence == "hypothesis"' "hypothesis at most"
assert_v '[.evidence[] | select(.trusted == true and (.class | test("gpu_hardware|nvlink|host_hardware")))] | length == 0' "no trusted hardware evidence"
assert_v '.decision.containment.id != "retry-exclude-node"' "no node excluded"
assert_v '.decision.repair == null or .decision.repair.justified == false' "no repair"
if [[ $C == *exclude* ]]; then e2e_fail "the comment excludes a node: $C"; fi
assert_match ' act=(retry|fix-job) ' "$C" "the comment's action"
