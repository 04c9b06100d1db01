#!/bin/bash
# e2e-timeout: 180
# Scenario 1: a 2-node job (sbatch -N2 -n4) where rank 3, on n2, raises a Python exception
# after a few steps while ranks 0-2 print NCCL watchdog timeouts and abort.  The verdict:
# application/python_exception, origin n2 rank 3, n1 (ranks 0, 1) and rank 2 bystanders; in
# sacct's Comment; shown and fetched by the job's owner.
. "$(dirname "$0")/lib.sh"

e2e_pm_on
e2e_train_job "3=exception;*=timeout"

assert_eq FAILED "$(sacct -n -X -P -j "$job" -o State)" "sacct State"
assert_v '.outcome == "FAILED"'
assert_v '.status == "attributed"'
assert_v '.cause.class == "application" and .cause.subclass == "python_exception"'
assert_v '.origin.nodes == ["n2"] and .origin.ranks == [3]'
assert_v '(.bystanders.nodes | hosts | index("n1")) != null' "n1 is a bystander"
assert_v '(.bystanders.ranks | ranks | index(3)) == null' "rank 3 is not a bystander"
assert_v '[.evidence[] | select(.role == "cascade") | .rank] | (index(0) != null and index(1) != null)' "ranks 0 and 1's timeouts are cascade evidence"
assert_match "^postmortem: attributed application/python_exception origin=n2:3 conf=[a-z]+ act=fix-job ev=pmlab/$job/0$" "$C" "comment"
# fetched: a bundle from each node, the job's output in n1's (the batch node)
assert_file "$F/nodes/n1.tar.zst" "n1's bundle"
assert_file "$F/nodes/n2.tar.zst" "n2's bundle"
zstdcat "$F/nodes/n1.tar.zst" | tar -tf - >"$E2E_WORK/n1.members"
grep -q '^sources/job_output/' "$E2E_WORK/n1.members" || e2e_fail "no job output in n1's bundle: $(cat "$E2E_WORK/n1.members")"
assert_contains "$(e2e_fetched_text "$F")" "ValueError: shard 17" "the traceback in the fetched evidence"
