#!/bin/bash
# A spool the plugin cannot use leaves the job's result unchanged and slurmd logs a
# `postmortem:` line naming the spool.  Spools: one whose parent does not exist
# (/nonexistent/...), a read-only file system (a tmpfs mounted ro, when this machine lets
# root mount), and a folder owned by the ordinary user (unsafe: the plugin must refuse it).
# The job: srun -N2 -n4 with ranks ending 0 / exit 3 / SIGKILL / SIGSEGV, and a batch job
# exiting 7; each compared with the same job run with the plugin off.
. "$(dirname "$0")/lib.sh"

e2e_ranks_srun
batch=$(e2e_script batch.sh <<'EOF'
#!/bin/bash
srun -N1 -n1 true
exit 7
EOF
)
SBATCH=(-N1 -n1 -w n1 "$batch")

# run_both TAG: the srun job and the batch job; sets R_SRUN, R_BATCH (result summaries).
run_both() {
	e2e_srun "$1-srun" "${SRUN[@]}"
	R_SRUN="rc=$E2E_RC
$(e2e_task_lines "$E2E_ERR")
$(e2e_result "$E2E_JOB")"
	J_SRUN=$E2E_JOB
	e2e_sbatch "$1-batch" "${SBATCH[@]}"
	R_BATCH="rc=$E2E_RC
$(e2e_result "$E2E_JOB")"
	J_BATCH=$E2E_JOB
}

e2e_plugin_off
run_both off
OFF_SRUN=$R_SRUN
OFF_BATCH=$R_BATCH
e2e_log "plugin off: $(printf '%s' "$OFF_SRUN" | paste -sd ';') | $(printf '%s' "$OFF_BATCH" | paste -sd ';')"

# try SPOOL WHAT: plugin on with spool=SPOOL; results as with the plugin off, a log line.
try() {
	local spool=$1 what=$2 lines
	e2e_plugin_on_raw "spool=$spool" "collector=$E2E_COLLECTOR" "timeout=10s"
	e2e_log_mark
	run_both "$what"
	assert_eq "$OFF_SRUN" "$R_SRUN" "$what: srun job result (rc, task messages, sacct) vs plugin off"
	assert_eq "$OFF_BATCH" "$R_BATCH" "$what: batch job result (rc, sacct) vs plugin off"
	lines=$(e2e_log_since | grep -F 'postmortem:' | grep -F "$spool" || true)
	[ -n "$lines" ] || e2e_fail "$what: no 'postmortem: ... $spool' line in the slurmd logs$(printf '\n%s' "$(e2e_log_since | tail -n 15)")"
	# one per step and node at most (remote callbacks log once per step)
	for j in "$J_SRUN" "$J_BATCH"; do
		printf '%s\n' "$lines" | e2e_has -E "job $j\\b" ||
			e2e_fail "$what: the postmortem line does not name job $j: $lines"
	done
	e2e_log "$what: $(printf '%s\n' "$lines" | head -n 1)"
}

try /nonexistent/ro "missing parent"
assert_absent /nonexistent "missing parent: /nonexistent created"

ro=$E2E_STATE/ro-spool
mkdir -p "$ro"
if mountpoint -q "$ro" || mount -t tmpfs -o ro,size=64k,mode=0700 pm-e2e-ro "$ro" 2>/dev/null; then
	trap 'umount "$ro" 2>/dev/null || true' EXIT
	try "$ro" "read-only file system"
	umount "$ro" || true
	trap - EXIT
else
	e2e_skip_part "read-only spool: cannot mount a read-only tmpfs here"
fi

unsafe=$E2E_STATE/user-spool
rm -rf "$unsafe"
install -d -m 700 -o "$E2E_USER" -g "$E2E_USER" "$unsafe"
try "$unsafe" "spool owned by $E2E_USER"
assert_eq "" "$(ls -A "$unsafe")" "nothing written into the user-owned spool"
rm -rf "$unsafe"
