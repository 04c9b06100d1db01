#!/bin/bash
# e2e-timeout: 180
# Issue 15: an older Xid 48 (double-bit ECC) of GPU 0000:3b:00 is in n2's kernel log, 90 s
# before this job; during the job the same GPU falls off the bus (Xid 79, as t-21).  The
# later event is this job's: it keeps its own subclass (gpu_lost), the older line beside it.
. "$(dirname "$0")/lib.sh"

e2e_pm_on
e2e_klog_ago 90 n2 "NVRM: Xid (PCI:0000:3b:00): 48, pid=1911, name=python3, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 1."
e2e_train_submit "0=timeout;1=timeout;2=hang;3=hang,PM_WD=6" --kill-on-bad-exit=1
e2e_wait_output "$E2E_WORK/main.out" '^2: .*step 3/' 60
pid2=$(grep -oE '^2: n2:[0-9]+' "$E2E_WORK/main.out" | head -n 1 | cut -d: -f3)
e2e_klog n2 "NVRM: Xid (PCI:0000:3b:00): 79, pid=${pid2:-1911}, name=python3, GPU has fallen off the bus."
e2e_wait_job "$job"
e2e_wait_verdict "$job"
e2e_pm_check "$job"

assert_v '.status == "attributed"'
assert_v '.cause.class == "gpu_hardware" and .cause.subclass == "gpu_lost"' "the later Xid's subclass"
assert_v '.origin.nodes == ["n2"]'
assert_v '[.evidence[] | select(.node == "n2" and (.rule | test("^xid-48")))] | length >= 1' "the older Xid 48 is listed"
assert_v '(.origin.nodes | index("n1")) == null' "n1 not blamed"
