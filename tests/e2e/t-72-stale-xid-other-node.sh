#!/bin/bash
# e2e-timeout: 180
# Issue 15, time bounds evidence: an earlier job's Xid 79 is still in n2's kernel log,
# stamped 90 s before this job starts (inside job_window_grace_s, 300 s).  This job fails
# on its own on n1: rank 0 raises, the others time out or are killed.  The verdict: the
# exception on n1; the old Xid listed as context with its age; no node excluded, no repair,
# nothing in the comment against n2.
. "$(dirname "$0")/lib.sh"

e2e_pm_on
e2e_klog_ago 90 n2 "NVRM: Xid (PCI:0000:3b:00): 79, pid=1911, name=python3, GPU has fallen off the bus."
e2e_train_job "0=exception;*=timeout,PM_WD=4" --kill-on-bad-exit=1

assert_v '.status == "attributed"'
assert_v '.cause.class == "application"'
assert_v '.origin.nodes == ["n1"] and .origin.ranks == [0]' "origin n1, rank 0"
assert_v '[.evidence[] | select(.rule == "xid-79-fallen-off-bus" and .node == "n2")] | length >= 1' "the old Xid is listed"
assert_v '[.why[] | select(test("^n2 logged Xid 79") and test("[0-9]+ s before this job began"))] | length == 1' "the old Xid is context, with its age"
assert_v '.decision.containment.id != "retry-exclude-node"' "no node excluded"
assert_v '.decision.repair == null or .decision.repair.justified == false' "no repair"
if [[ $C == *gpu_hardware* || $C == *exclude* || $C == *n2* ]]; then e2e_fail "the comment points at n2: $C"; fi
