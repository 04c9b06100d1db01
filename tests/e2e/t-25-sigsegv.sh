#!/bin/bash
# e2e-timeout: 150
# Scenario 6: rank 2 (n2) really segfaults (a NULL dereference through ctypes, faulthandler
# on, as torchrun has it); the other ranks time out in NCCL and abort.  The verdict:
# application/native_crash, origin n2 rank 2, the others bystanders.
. "$(dirname "$0")/lib.sh"

e2e_pm_on
e2e_train_job "2=segv;*=timeout"

assert_contains "$E2E_WORK/main.out" "task 2: Segmentation fault" "srun saw the SIGSEGV"
assert_v '.status == "attributed"'
assert_v '.cause.class == "application" and .cause.subclass == "native_crash"'
assert_v '.origin.nodes == ["n2"] and .origin.ranks == [2]'
assert_v '(.bystanders.ranks | ranks | index(2)) == null' "rank 2 is not a bystander"
assert_match "^postmortem: attributed application/native_crash origin=n2:2 .* ev=pmlab/$job/0$" "$C" "comment"
