#!/bin/bash
# A batch job (-N2) whose script runs one srun step over both nodes and then exits 7.  The
# batch script is a step of its own, "batch", recorded on the batch node only: its rank map
# (pid = the script's) and its exit (status 1792, exit_code 7); step 0 is recorded on both
# nodes; sbatch --wait and sacct say 7 as they do without the plugin; the job epilog called
# the collector on both nodes.
. "$(dirname "$0")/lib.sh"

script=$(e2e_script batch.sh <<'EOF'
#!/bin/bash
echo "batch pid=$$ node=$SLURMD_NODENAME job=$SLURM_JOB_ID"
printf '{"pid":%d,"node":"%s","pm_step":"%s","pm_rank":"%s"}\n' "$$" "$SLURMD_NODENAME" \
	"${POSTMORTEM_STEP:-}" "${POSTMORTEM_RANK:-}" >"truth.$SLURM_JOB_ID.batch.json"
srun -N2 -n2 bash -c 'printf "{\"rank\":%d,\"node\":\"%s\",\"pid\":%d,\"pm_step\":\"%s\"}\n" \
	"$SLURM_PROCID" "$SLURMD_NODENAME" "$$" "${POSTMORTEM_STEP:-}" >"truth.$SLURM_JOB_ID.0.$SLURM_PROCID.json"'
echo "srun rc=$?"
exit 7
EOF
)

e2e_plugin_on
e2e_sbatch on -N2 -n2 -w 'n[1-2]' "$script"
job=$E2E_JOB
assert_eq 7 "$E2E_RC" "sbatch --wait's status (the script's exit)"
assert_contains "$E2E_OUT" "srun rc=0" "the inner srun step"
on_result=$(e2e_result "$job")
e2e_log "job $job: $(printf '%s' "$on_result" | paste -sd ';')"
assert_match '(^|
)JOB FAILED 7:0(
|$)' "$on_result" "sacct job record"
assert_match '(^|
)\.batch FAILED 7:0(
|$)' "$on_result" "sacct batch step record"

truth=$E2E_WORK/truth.$job.batch.json
assert_file "$truth" "the batch script ran"
bnode=$(json "$truth" '.[0].node')
bpid=$(json "$truth" '.[0].pid')
assert_eq n1 "$bnode" "batch node"
assert_json "$truth" '.[0].pm_step == "batch" and .[0].pm_rank == "0"' "POSTMORTEM_STEP/RANK in the batch script"

rankmap=$(e2e_records "$job" rankmap batch)
taskexit=$(e2e_records "$job" taskexit batch)
assert_file "$rankmap" "batch step rank map"
assert_file "$taskexit" "batch step task exit"
assert_json "$rankmap" 'length == 1 and (.[0] | .job == $j and .step == "batch" and .node == $n
	and .node_id == 0 and .rank == 0 and .local_rank == 0 and .pid == $p)' "batch rank map vs the script" \
	--arg j "$job" --arg n "$bnode" --argjson p "$bpid"
assert_json "$taskexit" 'length == 1 and (.[0] | .job == $j and .step == "batch" and .node == $n
	and .pid == $p and .status == 1792 and .exit_code == 7 and (.signal // 0) == 0
	and (.core // false) == false)' "batch task exit: status 1792, exit_code 7" \
	--arg j "$job" --arg n "$bnode" --argjson p "$bpid"

# step 0 of the same job, on both nodes
cat "$E2E_WORK"/truth."$job".0.[01].json >"$E2E_WORK/truth.$job.0.json"
want=$(jq -c -s 'map({rank, node, pid}) | sort_by(.rank)' "$E2E_WORK/truth.$job.0.json")
assert_json "$(e2e_records "$job" rankmap 0)" 'map({rank, node, pid}) | sort_by(.rank) == $w' \
	"step 0 rank map vs the tasks" --argjson w "$want"
assert_json "$(e2e_records "$job" taskexit 0)" 'map({rank, node, pid, status}) | sort_by(.rank) ==
	($w | map(. + {status: 0}))' "step 0 task exits" --argjson w "$want"
assert_eq "[\"n1\",\"n2\"]" "$(json "$(e2e_records "$job" rankmap 0)" 'map(.node) | sort | tojson')" "step 0 nodes"

for node in n1 n2; do
	assert_file "$(e2e_collector_call "$job" "$node")" "collector called on $node"
	assert_contains "$(e2e_collector_call "$job" "$node")" "--job=$job" "collector's --job on $node"
done

# the same job without the plugin: the same result
e2e_plugin_off
e2e_sbatch off -N2 -n2 -w 'n[1-2]' "$script"
assert_eq 7 "$E2E_RC" "sbatch --wait's status without the plugin"
assert_eq "$on_result" "$(e2e_result "$E2E_JOB")" "sacct State/ExitCode, plugin on vs off"
assert_absent "$(e2e_spool_job "$E2E_JOB")" "spool folder of the job run without the plugin"
