#!/bin/bash
# e2e-timeout: 120
# Scenario 14: on a healthy node (n3: nothing in its kernel log), a job prints `NVRM: Xid
# 79` lines of its own into its output (a "resilience drill") and then raises; the other
# rank times out.  Text the user can write never blames hardware: no gpu_hardware cause,
# no trusted hardware evidence, no node excluded; the cause is the application's exception.
# Diagnosing the fetched copy gives the stored verdict byte for byte (e2e_pm_rediag).
. "$(dirname "$0")/lib.sh"

e2e_pm_on
E2E_TRAIN_ON=(-N1 -n2 -w n3)
e2e_train_job "1=xidprint;*=timeout,PM_WD=2"
e2e_pm_rediag "$job"

assert_contains "$E2E_WORK/main.out" "NVRM: Xid (PCI:0000:3b:00): 79" "the job printed the Xid"
assert_v '.cause.class != "gpu_hardware"' "no gpu_hardware cause"
assert_v '[.candidates[] | select(.class | test("gpu_hardware|nvlink|host_hardware"))] | length == 0' "no hardware candidate"
assert_v '[.evidence[] | select(.trusted == true and (.class | test("gpu_hardware")))] | length == 0' "no trusted hardware evidence"
assert_v '.decision.containment.id != "retry-exclude-node"' "no node excluded"
assert_v '.cause.class == "application" and .origin.ranks == [1]'
if [[ $C == *gpu_hardware* || $C == *exclude* ]]; then e2e_fail "comment blames hardware: $C"; fi
