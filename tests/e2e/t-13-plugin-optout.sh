#!/bin/bash
# Opting out: --postmortem=off, or SPANK_POSTMORTEM=off in the environment, on srun and on
# sbatch (a -N2 batch job whose second node runs no step of its own, and one whose srun step
# spans both nodes).  Nothing may be recorded for such a job on any node, its spool folder
# must be gone once the epilogs ran, no collector may run for it, and the job's result is
# unchanged.  A control job without the opt-out, in the same configuration, is recorded.
. "$(dirname "$0")/lib.sh"

task=$(e2e_script task.sh <<'EOF'
#!/bin/bash
echo "rank $SLURM_PROCID on $SLURMD_NODENAME pm_rank=${POSTMORTEM_RANK:-none}"
exit 0
EOF
)
script=$(e2e_script batch.sh <<'EOF'
#!/bin/bash
echo "batch pm_step=${POSTMORTEM_STEP:-none}"
[ "${1:-}" = step ] && srun -N2 -n2 bash -c 'echo "step rank $SLURM_PROCID pm_rank=${POSTMORTEM_RANK:-none}"'
exit 0
EOF
)

# nothing_for JOB WHAT: no trace of JOB in the spool or among the collector's calls.
nothing_for() {
	local job=$1 what=$2 files
	files=$(e2e_record_files "$job")
	assert_eq "" "$files" "$what: record files of job $job"
	assert_absent "$(e2e_spool_job "$job")" "$what: spool folder of job $job after its epilogs"
	for node in n1 n2 n3; do
		assert_absent "$(e2e_collector_call "$job" "$node")" "$what: collector call for job $job on $node"
	done
}

e2e_plugin_on

# control: the same job, recorded
e2e_srun control -N2 -n2 -w 'n[1-2]' "$task"
assert_eq 0 "$E2E_RC" "control job"
assert_eq 2 "$(wc -l <"$(e2e_records "$E2E_JOB" rankmap 0)")" "control job's rank map lines"
assert_file "$(e2e_collector_call "$E2E_JOB" n1)" "control job's collector call"
assert_contains "$E2E_OUT" "pm_rank=0" "control job's POSTMORTEM_RANK"

# srun --postmortem=off
e2e_srun opt -N2 -n2 -w 'n[1-2]' --postmortem=off "$task"
assert_eq 0 "$E2E_RC" "srun --postmortem=off"
assert_eq "" "$(grep -i 'postmortem' "$E2E_ERR" || true)" "srun's stderr with --postmortem=off"
nothing_for "$E2E_JOB" "srun --postmortem=off"

# SPANK_POSTMORTEM=off in srun's environment
SPANK_POSTMORTEM=off e2e_srun env -N2 -n2 -w 'n[1-2]' "$task"
assert_eq 0 "$E2E_RC" "SPANK_POSTMORTEM=off srun"
nothing_for "$E2E_JOB" "SPANK_POSTMORTEM=off srun"

# --postmortem=on is the default, and says so
e2e_srun on -N1 -n1 -w n1 --postmortem=on "$task"
assert_eq 0 "$E2E_RC" "srun --postmortem=on"
assert_file "$(e2e_records "$E2E_JOB" rankmap 0)" "srun --postmortem=on: rank map"

# a bad value is refused at submission, naming it
e2e_name
rc=0
e2e_as_user srun --job-name="$E2E_NAME" --time=1 -N1 -n1 --postmortem=maybe true \
	>"$E2E_WORK/maybe.out" 2>"$E2E_WORK/maybe.err" || rc=$?
assert_ne 0 "$rc" "srun --postmortem=maybe's status"
assert_contains "$E2E_WORK/maybe.err" "--postmortem=maybe" "srun --postmortem=maybe's message"

# sbatch --postmortem=off, -N2: n2 runs no step (only its epilog)
e2e_sbatch sb -N2 -n2 -w 'n[1-2]' --postmortem=off "$script"
assert_eq 0 "$E2E_RC" "sbatch --postmortem=off"
assert_contains "$E2E_OUT" "batch pm_step=none" "batch script not tagged when opted out"
nothing_for "$E2E_JOB" "sbatch --postmortem=off"

# sbatch --postmortem=off whose script runs an srun step over both nodes
e2e_sbatch sb-step -N2 -n2 -w 'n[1-2]' --postmortem=off "$script" step
assert_eq 0 "$E2E_RC" "sbatch --postmortem=off with a step"
assert_contains "$E2E_OUT" "step rank 1" "the inner step ran"
nothing_for "$E2E_JOB" "sbatch --postmortem=off with an srun step"

# SPANK_POSTMORTEM=off in sbatch's environment, with a step
SPANK_POSTMORTEM=off e2e_sbatch sb-env -N2 -n2 -w 'n[1-2]' "$script" step
assert_eq 0 "$E2E_RC" "SPANK_POSTMORTEM=off sbatch"
nothing_for "$E2E_JOB" "SPANK_POSTMORTEM=off sbatch with an srun step"
