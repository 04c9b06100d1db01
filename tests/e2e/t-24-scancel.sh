#!/bin/bash
# e2e-timeout: 150
# Scenario 5: the user cancels a running 2-node job with scancel.  Outcome CANCELLED, cause
# external (a user cancel): nobody's fault, no node blamed.
. "$(dirname "$0")/lib.sh"

e2e_pm_on
e2e_train_py >/dev/null
script=$(e2e_batch job.sh)
job=$(e2e_submit main -N2 -n4 --ntasks-per-node=2 -w 'n[1-2]' --export=ALL,PM_PLAN="*=train" "$script")
e2e_wait_output "$E2E_WORK/main.out" 'step 4/' 60
e2e_as_user scancel "$job"
e2e_wait_job "$job"
e2e_wait_verdict "$job"
e2e_pm_check "$job"

assert_match '^CANCELLED' "$(sacct -n -X -P -j "$job" -o State)" "sacct State"
assert_v '.outcome == "CANCELLED"'
assert_v '.cause.class == "external" and (.cause.subclass | test("cancel"))'
assert_v '[.evidence[] | select(.role == "origin" and (.class | test("hardware|gpu|nvlink|network")))] | length == 0' "no hardware origin"
assert_match "^postmortem: [a-z]+ external/[a-z_]*cancel[a-z_]* .* ev=pmlab/$job/0$" "$C" "comment"
