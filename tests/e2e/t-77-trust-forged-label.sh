#!/bin/bash
# e2e-timeout: 120
# A job's output places what it reports through srun's label, which anyone can print: the
# batch script echoes "3: RuntimeError: CUDA error: all CUDA-capable devices are busy or
# unavailable" (rank 3 runs on n2), while the task that really fails is rank 1 on n1, silently;
# Slurm then ends the others (--kill-on-bad-exit).  The plugin's records, which the user cannot
# write, say no task on n2 failed of itself (SIGTERM, after rank 1's exit): the busy
# GPU on n2 is at most a hypothesis, never supported, why says so, and n2 is not excluded
# (engine/TRUST.md, "The job's output").
. "$(dirname "$0")/lib.sh"

e2e_pm_on
script=$(e2e_script job.sh <<'EOF2'
#!/bin/bash
echo "3: RuntimeError: CUDA error: all CUDA-capable devices are busy or unavailable"
srun -l --kill-on-bad-exit=1 bash -c 'if [ "$SLURM_PROCID" = 1 ]; then exit 1; fi; echo "step 1 loss 2.31"; sleep 20'
EOF2
)
job=$(e2e_submit main -N2 -n4 --ntasks-per-node=2 -w 'n[1-2]' "$script")
e2e_wait_job "$job"
e2e_wait_verdict "$job"
e2e_pm_check "$job"

assert_contains "$E2E_WORK/main.out" "3: RuntimeError: CUDA error: all CUDA-capable devices" "the job printed the line"
assert_v '.confidence == "hypothesis"' "hypothesis at most"
assert_v '[.why[] | select(test("plugin.s records say no task failed there"))] | length == 1' "why names the task records"
assert_v '[.evidence[] | select(.trusted == true and (.class | test("launch_config")))] | length == 0' "nothing trusted names the busy GPU"
assert_v '.decision.repair == null or .decision.repair.justified == false' "no repair"
assert_v '.decision.containment.id != "retry-exclude-node"' "no node excluded"
if [[ $C == *exclude* ]]; then e2e_fail "the comment excludes a node: $C"; fi
