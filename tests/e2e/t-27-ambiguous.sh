#!/bin/bash
# e2e-timeout: 150
# Scenario 8: two different errors on two nodes at the same moment (well within the clock
# skew tolerance): rank 1 (n1) raises a Python exception and rank 3 (n2) runs out of GPU
# memory; ranks 0 and 2 time out.  No hardware evidence breaks the tie: the verdict is
# ambiguous, names both (application on n1, resource_limit on n2) and a test that tells
# them apart.
. "$(dirname "$0")/lib.sh"

e2e_pm_on
e2e_train_py >/dev/null
script=$(e2e_batch job.sh)
job=$(e2e_submit main -N2 -n4 --ntasks-per-node=2 -w 'n[1-2]' \
	--export=ALL,PM_PLAN="1=exception;3=gpuoom;*=timeout" "$script")
e2e_wait_job "$job"
e2e_wait_verdict "$job"
e2e_pm_check "$job"

assert_v '.status == "ambiguous"'
assert_v '.confidence == "hypothesis"'
assert_v '[.candidates[] | "\(.class)/\(.subclass)@\(.origin.nodes | join(","))"] as $c
	| ($c | index("application/python_exception@n1")) != null and ($c | index("resource_limit/gpu_oom@n2")) != null' \
	"both explanations among the candidates"
assert_v '.ambiguity != null and (.ambiguity.test | length) > 0' "the test that separates them"
assert_match "^postmortem: ambiguous (application/python_exception|resource_limit/gpu_oom) .*conf=hypothesis .* ev=pmlab/$job/0$" "$C" "comment"
