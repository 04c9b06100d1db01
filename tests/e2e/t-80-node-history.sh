#!/bin/bash
# e2e-timeout: 600
# Issue 17, the node history on real jobs: GPU 0 of n2 falls off the bus (an Xid 79 in n2's
# own kernel log) in three jobs of two users, one after the other (pmuser, pmother, pmuser).
#   The first verdict's repair is not justified by repeats (no history yet); the second's is,
#   and names the first job run; the third's names both.  Their node_history is what they
#   used, in input_digest: replay (recorded history) finds nothing changed, drill is intact.
#   Five jobs of pmuser on n2 print Xid 79 lines of their own: no count moves.
#   `postmortem nodes` as an operator (pmoper) lists n2 first, 3 jobs, 2 users, the repair
#   justified; an ordinary user is refused with the reason.
#   A `refuted` ledger entry for the first job lowers n2's count; `expire` of the third job
#   removes its record with its evidence.
. "$(dirname "$0")/lib.sh"

e2e_pm_on
e2e_train_py >/dev/null
# the history other tests left (their Xids on n2) is not this test's
rm -rf "${E2E_STORE:?}/.history"
install -d -m 777 "$E2E_WORK/other" # pmother's job output
script=$(e2e_batch job.sh --kill-on-bad-exit=1)
noisy=$(e2e_batch noisy.sh)

# xid_job TAG USER: a two-node job whose GPU on n2 falls off the bus; sets JOB
xid_job() {
	local tag=$1 pid2
	e2e_klog_init # the kernel logs as fresh as a new job finds them
	JOB=$(E2E_USER=$2 e2e_submit "$tag" -N2 -n4 --ntasks-per-node=2 -w 'n[1-2]' \
		--export=ALL,PM_PLAN="0=timeout;1=timeout;2=hang;3=hang",PM_WD=6 "$script")
	e2e_wait_output "$E2E_WORK/$tag.out" '^2: .*step 3/' 60
	pid2=$(grep -oE '^2: n2:[0-9]+' "$E2E_WORK/$tag.out" | head -n 1 | cut -d: -f3)
	e2e_klog n2 "NVRM: GPU at PCI:0000:3b:00: GPU-4be1a000-1c2d-3e4f-5a6b-7c8d9e0f1a2b"
	e2e_klog n2 "NVRM: Xid (PCI:0000:3b:00): 79, pid=${pid2:-1911}, name=python3, GPU has fallen off the bus."
	e2e_klog n2 "NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus."
	e2e_wait_job "$JOB"
	e2e_wait_verdict "$JOB"
	V=$(e2e_jobdir "$JOB")/verdict.json
	assert_v '.cause.class == "gpu_hardware" and .origin.nodes == ["n2"]' "job $JOB: gpu_hardware on n2"
	e2e_log "job $JOB ($2): repair justified $(vj .decision.repair.justified), repeats $(vj '.decision.repair.repeats // [] | join(",")')"
}

xid_job j1 pmuser
j1=$JOB
assert_v '.decision.repair.repeats == null and .node_history == null' "the first job: no repeat, no history used"
# one file per record, in a folder per day (UTC) of the job's end
f=$(cd "$E2E_STORE/.history/n2" && find . -path "./[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]/*.$E2E_CLUSTER_NAME.$j1.0.json" | head -n 1)
assert_file "$E2E_STORE/.history/n2/${f#./}" "the first job's record on n2, in its day's folder"
[ ! -d "$E2E_STORE/.history/n1" ] || e2e_fail "n1 (a bystander) has a history: $(ls "$E2E_STORE/.history/n1")"

xid_job other/j2 pmother
j2=$JOB
assert_v '.decision.repair.justified == true and .decision.repair.repeats == [$r]' "the second job's repair is justified and names the first" --arg r "$E2E_CLUSTER_NAME/$j1/0"
assert_v '[.node_history[].run] == [$r]' "the second job used the first's record" --arg r "$E2E_CLUSTER_NAME/$j1/0"
cp "$V" "$E2E_WORK/v2.json"

xid_job j3 pmuser
j3=$JOB
assert_v '.decision.repair.justified == true and .decision.repair.repeats == [$a, $b]' "the third job names both" \
	--arg a "$E2E_CLUSTER_NAME/$j1/0" --arg b "$E2E_CLUSTER_NAME/$j2/0"

# the same evidence and history give the same bytes: replay and drill of the second job
out=$("$E2E_CLI" replay --rules "$E2E_RULES" "$j2" 2>&1) || e2e_fail "replay $j2: $out"
assert_match ": 0 changed, 1 unchanged" "$out" "replay of the second job (recorded history)"
out=$(e2e_pm_as pmother drill "$j2" 2>&1) || e2e_fail "drill $j2 as its owner: $out"
assert_match "byte for byte" "$out" "drill of the second job reconstructs it with its history"

# a user printing Xid lines in five jobs on n2 moves no count
e2e_klog_init
noisy_jobs=()
for i in 1 2 3 4 5; do
	noisy_jobs+=("$(e2e_submit "noisy$i" -N1 -n2 -w n2 --export=ALL,PM_PLAN="1=xidprint;*=timeout",PM_WD=2 "$noisy")")
done
for j in "${noisy_jobs[@]}"; do
	e2e_wait_job "$j"
	e2e_wait_verdict "$j"
	V=$(e2e_jobdir "$j")/verdict.json
	assert_v '.cause.class != "gpu_hardware" and .node_history == null' "job $j (prints Xids): no hardware, no history"
done
"$E2E_CLI" nodes --node n2 --json >"$E2E_WORK/n2.json"
assert_json "$E2E_WORK/n2.json" '.[0].records | length == 3' "n2 has three records after the five noisy jobs"

# postmortem nodes: an operator sees the fleet, an ordinary user is refused
e2e_pm_as pmoper nodes --since 1d >"$E2E_WORK/nodes.txt" 2>&1 || e2e_fail "nodes as pmoper: $(cat "$E2E_WORK/nodes.txt")"
e2e_log "postmortem nodes as pmoper:"
sed 's/^/#   /' "$E2E_WORK/nodes.txt"
e2e_pm_as pmoper nodes --since 1d --json >"$E2E_WORK/nodes.json" || e2e_fail "nodes --json as pmoper"
assert_json "$E2E_WORK/nodes.json" '.[0].nodes[0] | .node == "n2" and .jobs == 3 and .users == 2 and .repair.justified == true' \
	"n2 first: three jobs, two users, a justified repair"
assert_json "$E2E_WORK/nodes.json" '.[0].nodes[0].repair.by | length == 3' "the repair justified by the three job runs"
e2e_pm_as pmoper nodes --node n2 >"$E2E_WORK/n2.txt" 2>&1 || e2e_fail "nodes --node n2 as pmoper"
sed 's/^/#   /' "$E2E_WORK/n2.txt"
assert_contains "$E2E_WORK/n2.txt" "$E2E_CLUSTER_NAME/$j2/0" "--node n2 lists the second job"
rc=0
out=$(e2e_pm_as "$E2E_USER" nodes 2>&1) || rc=$?
assert_eq 1 "$rc" "nodes as $E2E_USER: exit status"
assert_match "for operators \\(group pmops\\) and root" "$out" "nodes as $E2E_USER: the reason"
e2e_log "nodes as $E2E_USER: $out"

# the ledger: the first job's repair refuted takes it out of n2's count
"$E2E_CLI" ledger record "$j1" --action drain --note "e2e t-80" >/dev/null || e2e_fail "ledger record $j1"
"$E2E_CLI" ledger resolve "$j1" --result refuted --note "e2e t-80: the GPU was fine" >/dev/null ||
	e2e_fail "ledger resolve $j1"
"$E2E_CLI" nodes --json >"$E2E_WORK/nodes2.json"
assert_json "$E2E_WORK/nodes2.json" '.[0].nodes[] | select(.node == "n2") | .jobs == 2 and .refuted == 1 and .ledger.result == "refuted"' \
	"n2's count without the refuted job"

# expire: the third job's evidence removed, its record with it
d3=$(e2e_jobdir "$j3")
e2e_expired "$d3"
"$E2E_CLI" expire >"$E2E_WORK/expire.out" 2>&1 || e2e_fail "expire: $(cat "$E2E_WORK/expire.out")"
assert_absent "$d3" "the third job's evidence after expire"
if find "$E2E_STORE/.history/n2" -name "*.$E2E_CLUSTER_NAME.$j3.0.json" | e2e_has .; then
	e2e_fail "the third job's record outlived its evidence"
fi
"$E2E_CLI" nodes --node n2 --json >"$E2E_WORK/n2-after.json"
assert_json "$E2E_WORK/n2-after.json" '.[0].records | length == 2' "n2's history after expire: the first two jobs"
