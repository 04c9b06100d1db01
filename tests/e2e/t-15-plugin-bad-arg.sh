#!/bin/bash
# A bad plugstack argument: an unknown key (frobnicate=1) and a malformed value
# (retain=banana).  Jobs run exactly as with the plugin off (srun's status, its task
# messages, sacct), the plugin records nothing (it is inactive), its user options still work
# (--postmortem=off is accepted), and both srun's stderr and the slurmd log name the argument.
. "$(dirname "$0")/lib.sh"

e2e_ranks_srun

summary() { # srun's status, task messages and sacct records of the last job
	printf 'rc=%s\n%s\n%s\n' "$E2E_RC" "$(e2e_task_lines "$E2E_ERR")" "$(e2e_result "$E2E_JOB")"
}

e2e_plugin_off
e2e_srun off "${SRUN[@]}"
OFF=$(summary)
e2e_log "plugin off: $(printf '%s' "$OFF" | paste -sd ';')"

for arg in frobnicate=1 retain=banana; do
	e2e_plugin_on "$arg"
	e2e_log_mark
	e2e_srun "bad-${arg%%=*}" "${SRUN[@]}"
	assert_eq "$OFF" "$(summary)" "$arg: job result vs plugin off"
	assert_contains "$E2E_ERR" "postmortem: argument '$arg'" "$arg: srun's stderr names it"
	assert_eq "" "$(e2e_record_files "$E2E_JOB")" "$arg: records of job $E2E_JOB (the plugin is inactive)"
	logged=$(e2e_log_since | grep -F "postmortem: argument '$arg'" || true)
	[ -n "$logged" ] || e2e_fail "$arg: the slurmd logs do not name it$(printf '\n%s' "$(e2e_log_since | tail -n 15)")"
	# slurmstepd of the job's step said it too, on both nodes
	for n in n1 n2; do
		printf '%s\n' "$logged" | e2e_has -E "^slurmd-$n: .*\\[$E2E_JOB\\.0\\] error: postmortem: argument" ||
			e2e_fail "$arg: slurmstepd of step $E2E_JOB.0 on $n did not log it: $logged"
	done
	e2e_log "$arg: $(printf '%s\n' "$logged" | head -n 1)"

	# the user options are still registered
	e2e_srun "bad-${arg%%=*}-optout" -N1 -n1 -w n1 --postmortem=off true
	assert_eq 0 "$E2E_RC" "$arg: srun --postmortem=off still accepted$(printf '\n%s' "$(cat "$E2E_ERR")")"
done
