#!/bin/bash
# e2e-timeout: 150
# Scenario 7: rank 3 (n2) silently hangs; ranks 0-2 time out in their NCCL watchdog and
# abort, and srun (--kill-on-bad-exit) then kills the step, rank 3 included.  Rank 3, the
# one that printed nothing, is the suspect: application/hang, origin n2 rank 3.
. "$(dirname "$0")/lib.sh"

e2e_pm_on
e2e_train_job "3=hang;*=timeout" --kill-on-bad-exit=1

assert_v '.status == "attributed"'
assert_v '.cause.class == "application" and .cause.subclass == "hang"'
assert_v '.origin.ranks == [3] and .origin.nodes == ["n2"]'
assert_v '.confidence == "hypothesis"' "a suspect from silence is a hypothesis"
assert_match "^postmortem: attributed application/hang origin=n2:3 conf=hypothesis .* ev=pmlab/$job/0$" "$C" "comment"
