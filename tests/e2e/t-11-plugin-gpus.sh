#!/bin/bash
# GPU binding.  The rank map's "gpus" must be the first of SLURM_STEP_GPUS, SLURM_JOB_GPUS,
# CUDA_VISIBLE_DEVICES, GPU_DEVICE_ORDINAL that the task's environment has (named in
# "gpus_from"), "cuda_visible_devices" what the task got in CUDA_VISIBLE_DEVICES, and
# "gpu_uuids" the GPU-/MIG- identifiers in them.
#   always:            a step without GPUs (no gpus fields), and a step whose
#                      CUDA_VISIBLE_DEVICES the user set to UUIDs (from the step environment);
#   with fake GPUs:    srun --gres=gpu:1 on two nodes, a second job on a node whose GPU 0 is
#   (GresTypes=gpu,    taken (it must record the GPU it really got), --gres=gpu:2, and a batch
#   contrib/cluster)   step with --gres=gpu:2.
. "$(dirname "$0")/lib.sh"

# Each task writes what its environment says, and its identity.
envdump=$(e2e_script envdump.sh <<'EOF'
#!/bin/bash
v() { if [ -n "${!1+x}" ]; then printf '"%s"' "${!1}"; else printf null; fi; }
step=${SLURM_STEP_ID:-batch}
[ "$step" = 4294967291 ] && step=batch
printf '{"rank":%d,"node":"%s","pid":%d,"step":"%s","SLURM_STEP_GPUS":%s,"SLURM_JOB_GPUS":%s,"CUDA_VISIBLE_DEVICES":%s,"GPU_DEVICE_ORDINAL":%s}\n' \
	"${SLURM_PROCID:-0}" "$SLURMD_NODENAME" "$$" "$step" "$(v SLURM_STEP_GPUS)" "$(v SLURM_JOB_GPUS)" \
	"$(v CUDA_VISIBLE_DEVICES)" "$(v GPU_DEVICE_ORDINAL)" >"truth.$SLURM_JOB_ID.$step.${SLURM_PROCID:-0}.json"
[ -z "${HOLD:-}" ] || sleep "$HOLD"
exit 0
EOF
)

# check JOB STEP NTASKS: every record of the step against what its task saw.
check() {
	local job=$1 step=$2 n=$3 truth rankmap
	truth=$E2E_WORK/truth.$job.$step.json
	cat "$E2E_WORK"/truth."$job"."$step".*.json >"$truth" 2>/dev/null || true
	assert_eq "$n" "$(wc -l <"$truth")" "job $job step $step: tasks that reported"
	rankmap=$(e2e_records "$job" rankmap "$step")
	assert_file "$rankmap" "job $job step $step rank map"
	assert_eq "$n" "$(wc -l <"$rankmap")" "job $job step $step rank map lines"
	# what the record must say, computed from the task's own environment
	want=$(jq -c -s 'map(. as $t
		| ([ "SLURM_STEP_GPUS", "SLURM_JOB_GPUS", "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL" ]
		   | map(select($t[.] != null and $t[.] != "")) | first) as $from
		| { rank, node, pid,
		    gpus: (if $from then $t[$from] else null end),
		    gpus_from: $from,
		    cuda_visible_devices: (if (.CUDA_VISIBLE_DEVICES // "") != "" then .CUDA_VISIBLE_DEVICES else null end),
		    gpu_uuids: ([ (if $from then $t[$from] else "" end), (.CUDA_VISIBLE_DEVICES // "") ]
		                | map(split(",")[]) | map(select(test("^(GPU|MIG)-"))) | unique
		                | if length == 0 then null else . end) })
		| sort_by(.rank)' "$truth")
	assert_json "$rankmap" 'map({rank, node, pid, gpus, gpus_from, cuda_visible_devices,
		gpu_uuids: (if .gpu_uuids then (.gpu_uuids | unique) else null end)}) | sort_by(.rank) == $w' \
		"job $job step $step: recorded GPUs vs the task's environment" --argjson w "$want"
	e2e_log "job $job step $step: $(jq -c -s 'map({rank, node, gpus, gpus_from, cuda_visible_devices}) | sort_by(.rank)' "$rankmap")"
}

e2e_plugin_on

# ---- no GPUs asked for: nothing recorded about GPUs
e2e_srun none -N2 -n2 -w 'n[1-2]' "$envdump"
assert_eq 0 "$E2E_RC" "srun without GPUs"
check "$E2E_JOB" 0 2
assert_json "$(e2e_records "$E2E_JOB" rankmap 0)" 'all(.[]; has("gpus") | not)' "no gpus field without GPUs"

# ---- GPUs named by the step environment only: CUDA_VISIBLE_DEVICES set by the user
uuids=GPU-5b2c0000-1111-2222-3333-444455556666,GPU-77aa0000-1111-2222-3333-444455556666
CUDA_VISIBLE_DEVICES=$uuids e2e_srun uuid -N1 -n1 -w n1 "$envdump"
assert_eq 0 "$E2E_RC" "srun with CUDA_VISIBLE_DEVICES"
check "$E2E_JOB" 0 1
rankmap=$(e2e_records "$E2E_JOB" rankmap 0)
# (the task saw the user's value: unless Slurm replaced it, it is what must be recorded)
if [ "$(json "$E2E_WORK/truth.$E2E_JOB.0.json" '.[0].CUDA_VISIBLE_DEVICES')" = "$uuids" ]; then
	assert_json "$rankmap" '.[0] | .gpus == $u and .gpus_from == "CUDA_VISIBLE_DEVICES"
		and .gpu_uuids == ($u | split(","))' "GPU UUIDs from CUDA_VISIBLE_DEVICES" --arg u "$uuids"
else
	e2e_skip_part "user-set CUDA_VISIBLE_DEVICES (UUIDs): Slurm removed it from the task (nodes with GRES GPUs, none asked for); the record agreed (no gpus)"
fi

# ---- fake GPUs: GRES over stand-in device files
gres_types=$(scontrol show config | awk -F' = ' '$1 ~ /^GresTypes/ {print $2}')
node_gres=$(scontrol show node n1 | grep -oE 'Gres=[^ ]+' | head -n 1)
if [[ $gres_types != *gpu* || $node_gres != *gpu:* ]]; then
	e2e_skip_part "GRES GPUs: the cluster has none (GresTypes='${gres_types}', n1 ${node_gres:-Gres=(null)}; contrib/cluster PM_NODE_GPUS=0?); only the step environment was checked"
	exit 0
fi
ngpu=$(printf '%s' "$node_gres" | grep -oE 'gpu:[0-9]+' | head -n 1 | cut -d: -f2)
e2e_log "fake GPUs: $node_gres per node"

# one GPU per node, two nodes
e2e_srun gres1 -N2 -n2 -w 'n[1-2]' --gres=gpu:1 "$envdump"
assert_eq 0 "$E2E_RC" "srun --gres=gpu:1"
check "$E2E_JOB" 0 2
assert_json "$(e2e_records "$E2E_JOB" rankmap 0)" 'all(.[]; .gpus_from == "SLURM_STEP_GPUS" and (.gpus | test("^[0-9]+$")))' \
	"one GPU index per rank from SLURM_STEP_GPUS"

# a node whose GPU 0 is taken: the second job gets another one, and that is what is recorded
if [ "${ngpu:-0}" -ge 2 ]; then
	e2e_name
	holder=$(e2e_as_user sbatch --parsable --job-name="$E2E_NAME" --time="$E2E_JOB_TIME" -w n1 -N1 -n1 \
		--gres=gpu:1 -o /dev/null --export=ALL,HOLD=60 "$envdump") || e2e_fail "sbatch of the GPU holder"
	holder=${holder%%;*}
	e2e_wait_for 60 test -f "$E2E_WORK/truth.$holder.batch.0.json" || { scancel "$holder"; e2e_fail "GPU holder $holder did not start"; }
	held=$(json "$E2E_WORK/truth.$holder.batch.0.json" '.[0].SLURM_JOB_GPUS // .[0].CUDA_VISIBLE_DEVICES')
	e2e_srun gres-busy -N1 -n1 -w n1 --gres=gpu:1 "$envdump"
	busy_job=$E2E_JOB
	scancel "$holder" || true
	assert_eq 0 "$E2E_RC" "srun --gres=gpu:1 next to the holder"
	check "$busy_job" 0 1
	got=$(json "$(e2e_records "$busy_job" rankmap 0)" '.[0].gpus')
	assert_ne "$held" "$got" "recorded GPU of the second job (the holder has GPU $held)"
	e2e_wait_job "$holder"
fi

# every GPU of a node, two tasks
e2e_srun gres2 -N1 -n2 -w n2 --gres=gpu:"$ngpu" "$envdump"
assert_eq 0 "$E2E_RC" "srun --gres=gpu:$ngpu"
check "$E2E_JOB" 0 2
assert_json "$(e2e_records "$E2E_JOB" rankmap 0)" 'all(.[]; (.gpus | split(",") | length) == $n)' \
	"all $ngpu GPUs recorded" --argjson n "$ngpu"

# the batch step of a job with GPUs
e2e_sbatch batch -N1 -n1 -w n1 --gres=gpu:"$ngpu" "$envdump"
assert_eq 0 "$E2E_RC" "sbatch --gres=gpu:$ngpu"
check "$E2E_JOB" batch 1
