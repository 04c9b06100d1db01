#!/bin/bash
# e2e-timeout: 260
# Scenario 4: a real time limit (--time=1) while every rank is still training: Slurm ends
# the job about 80 s after it starts.  Outcome TIMEOUT, cause resource_limit/time_limit
# (progress was being made until the end), owner the user.
. "$(dirname "$0")/lib.sh"

e2e_pm_on
e2e_train_py >/dev/null
script=$(e2e_batch job.sh)
job=$(e2e_submit main -N2 -n4 --ntasks-per-node=2 -w 'n[1-2]' --time=1 \
	--export=ALL,PM_PLAN="*=train",PM_STEP=1 "$script")
E2E_WAIT_TIMEOUT=200 e2e_wait_job "$job"
e2e_wait_verdict "$job"
e2e_pm_check "$job"

assert_eq TIMEOUT "$(sacct -n -X -P -j "$job" -o State)" "sacct State"
assert_contains "$E2E_WORK/main.out" "DUE TO TIME LIMIT" "Slurm's time-limit line in the output"
assert_v '.outcome == "TIMEOUT"'
assert_v '.cause.class == "resource_limit" and .cause.subclass == "time_limit"'
assert_match "^postmortem: [a-z]+ resource_limit/time_limit .* ev=pmlab/$job/0$" "$C" "comment"
