#!/bin/bash
# e2e-timeout: 180
# Scenario 3: a step killed by Slurm for exceeding its memory (--mem=150M per node,
# JobAcctGatherParams=OverMemoryKill, no cgroups): rank 1, on n2, grows its memory until
# slurmstepd kills the step.  The verdict: resource_limit/host_oom on n2.
. "$(dirname "$0")/lib.sh"

e2e_pm_on
e2e_train_py >/dev/null
script=$(e2e_batch job.sh)
job=$(e2e_submit main -N2 -n2 --ntasks-per-node=1 -w 'n[1-2]' --mem=150M \
	--export=ALL,PM_PLAN="1=oom;*=timeout",PM_WD=30 "$script")
e2e_wait_job "$job"
e2e_wait_verdict "$job"
e2e_pm_check "$job"

assert_contains "$E2E_WORK/main.out" "exceeded memory limit" "slurmstepd's memory kill in the job's output"
assert_match '^(FAILED|OUT_OF_MEMORY|CANCELLED)' "$(sacct -n -X -P -j "$job" -o State)" "sacct State"
assert_v '.status == "attributed"'
assert_v '.cause.class == "resource_limit" and .cause.subclass == "host_oom"'
assert_v '(.origin.nodes | index("n2")) != null' "n2 in the origin"
assert_match "^postmortem: attributed resource_limit/host_oom origin=n2[: ].* ev=pmlab/$job/0$" "$C" "comment"
