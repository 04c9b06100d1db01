#!/bin/bash
# e2e-timeout: 180
# Scenario 2: GPU 0 of n2 falls off the bus during the job: an Xid 79 appears in n2's own
# kernel log (the collector's kernel_log source, routed per node with %n), n2's ranks go
# silent, and the ranks on n1 print NCCL watchdog timeouts and abort (srun then kills the
# step).  The verdict: gpu_hardware/gpu_lost, origin n2, n1 a bystander, the node excluded
# by the containment; n1's kernel log has no Xid and n1 is not blamed.
. "$(dirname "$0")/lib.sh"

e2e_pm_on
# the GPU is lost once the ranks on n2 have made a few steps
e2e_xid79_job
e2e_pm_check "$job"

assert_v '.outcome == "FAILED"'
assert_v '.status == "attributed"'
assert_v '.cause.class == "gpu_hardware" and .cause.subclass == "gpu_lost"'
assert_v '.origin.nodes == ["n2"]'
assert_v '(.bystanders.nodes | hosts | index("n1")) != null' "n1 is a bystander"
assert_v '[.evidence[] | select(.role == "origin" and .class == "gpu_hardware") | .node] | unique == ["n2"]' "hardware origin evidence only from n2"
assert_v '[.evidence[] | select(.role == "origin" and .class == "gpu_hardware")] | all(.source == "kernel_log" and .trusted == true)' "the Xid came from n2's kernel log"
assert_match "^postmortem: attributed gpu_hardware/gpu_lost origin=n2(:[0-9,-]+)? conf=[a-z]+ act=[a-z-]+ ev=pmlab/$job/0$" "$C" "comment"
assert_contains "$(e2e_fetched_text "$F")" "79, pid=${pid2:-1911}, name=python3, GPU has fallen off the bus" "the Xid line in the fetched evidence"
zstdcat "$F/nodes/n1.tar.zst" | tar -xOf - sources/kernel_log/n1.log >"$E2E_WORK/n1.kernel"
if grep -q 'Xid' "$E2E_WORK/n1.kernel"; then e2e_fail "n1's kernel log has an Xid"; fi
