#!/bin/bash
# e2e-timeout: 150
# Fault (issue 7): the same epilog runs twice for the same job (a site's Epilog= and the
# plugin both configured, an operator re-running it, a slurmd retrying).  After a 2-node
# job's verdict is final, each node's collector is run again exactly as the plugin ran it,
# one after the other and then both at once.  Idempotent: one bundle per node, each whole
# and still the first run's (with the rank map the plugin recorded: the spool is gone by the
# second run), what the verdict says and the comment unchanged, a new verdict version only
# where Slurm's record changed meanwhile, sacct's record of the job unchanged; and a third
# run changes no byte of the job's folder.
. "$(dirname "$0")/lib.sh"

e2e_pm_on_faulty
touch "$E2E_FAULTS/env"
e2e_train_job "3=exception;*=ok"
d=$(e2e_jobdir "$job")
snap() { # the evidence, what the verdict says, the comment, the job's result
	(cd "$d" && sha256sum nodes/* && ls -A nodes)
	jq -c '{status, outcome, cause, origin, bystanders, confidence}' "$d/verdict.json"
	printf 'comment %s\n' "$(e2e_comment "$job")"
	e2e_result "$job"
}
full() { # every file of the job's folder, byte for byte
	(cd "$d" && find . -type f ! -name 'merging*' -print | sort | xargs sha256sum)
}
snap >"$E2E_WORK/before.txt"
nh=$(jq '.history | length' "$d/manifest.json")
rank_members() { zstdcat "$d/nodes/$1.tar.zst" | tar -tf - | grep -c '^sources/rank_map/' || true; }
r1=$(rank_members n1)
[ "$r1" -gt 0 ] || e2e_fail "n1's first bundle has no rank map"

e2e_epilog_again "$job" n1
e2e_epilog_again "$job" n2
e2e_epilog_again "$job" n1 &
p1=$!
e2e_epilog_again "$job" n2 &
p2=$!
wait "$p1" "$p2"
for n in n1 n2; do e2e_log "again on $n: $(tail -n 1 "$E2E_WORK/again.$job.$n.err" | cut -c1-300)"; done
snap >"$E2E_WORK/after.txt"
diff "$E2E_WORK/before.txt" "$E2E_WORK/after.txt" >"$E2E_WORK/diff.txt" ||
	e2e_fail "the evidence or the verdict changed when the epilog ran again: $(cat "$E2E_WORK/diff.txt")"
[ "$(ls -A "$d/nodes")" = "$(printf 'n1.tar.zst\nn2.tar.zst')" ] || e2e_fail "nodes/ holds: $(ls -A "$d/nodes" | paste -sd ' ')"
e2e_store_bundles_ok "$d"
assert_eq "$r1" "$(rank_members n1)" "n1's rank map members"
# a new verdict version only where Slurm's record of the job changed meanwhile, never a bundle
assert_json "$d/manifest.json" '[.[0].history[$n:][] | .why | test("^Slurm.s record")] | all' "the history added since" --argjson n "$nh"
e2e_log "history: $(jq -c '[.history[].why]' "$d/manifest.json")"
# and once more: nothing at all changes now
full >"$E2E_WORK/steady.txt"
e2e_epilog_again "$job" n1
e2e_epilog_again "$job" n2
full >"$E2E_WORK/steady2.txt"
diff "$E2E_WORK/steady.txt" "$E2E_WORK/steady2.txt" >"$E2E_WORK/diff2.txt" ||
	e2e_fail "the job's folder changed on a third run: $(cat "$E2E_WORK/diff2.txt")"
e2e_pm_check "$job"
