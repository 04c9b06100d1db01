#!/bin/bash
# srun -N2 -n4 as the ordinary user, ranks ending differently: rank 0 exits 0, rank 1
# exits 3, rank 2 kills itself with SIGKILL, rank 3 with SIGSEGV (no core).  The spool's
# rank map (node, node id, local rank, pid) and task exits (raw status and decoded fields)
# must be what really happened (what each task wrote about itself, srun's own messages),
# and the job's result (srun's status, sacct State/ExitCode of the job and its step) must be
# the same as with the plugin off.
. "$(dirname "$0")/lib.sh"

# What each task really is, written by the task itself; then its end.  The sleeps give the
# ends a fixed order (srun terminates the step after a signalled task: the SIGSEGV rank must
# already be on its way).
truth=$(cat <<'EOF'
printf '{"rank":%d,"node":"%s","node_id":%d,"local_rank":%d,"pid":%d,"job":"%s","step":"%s","pm_rank":"%s","pm_job":"%s","pm_step":"%s"}\n' \
	"$SLURM_PROCID" "$SLURMD_NODENAME" "$SLURM_NODEID" "$SLURM_LOCALID" "$$" "$SLURM_JOB_ID" \
	"$SLURM_STEP_ID" "${POSTMORTEM_RANK:-}" "${POSTMORTEM_JOB:-}" "${POSTMORTEM_STEP:-}" \
	>"truth.$SLURM_JOB_ID.$SLURM_PROCID.json"
EOF
)
e2e_ranks_srun "$truth"

# ---- with the plugin
e2e_plugin_on
e2e_srun on "${SRUN[@]}"
job=$E2E_JOB
on_rc=$E2E_RC
on_tasks=$(e2e_task_lines "$E2E_ERR")
on_result=$(e2e_result "$job")
e2e_log "job $job: srun rc $on_rc; $(printf '%s' "$on_result" | paste -sd ';')"

truth=$E2E_WORK/truth.$job.json
for r in 0 1 2 3; do assert_file "$E2E_WORK/truth.$job.$r.json" "rank $r ran"; done
cat "$E2E_WORK"/truth."$job".[0-3].json >"$truth"
# the tasks were where the test asked: ranks 0-1 on n1, 2-3 on n2
assert_json "$truth" 'sort_by(.rank) | map([.rank, .node, .local_rank]) ==
	[[0,"n1",0],[1,"n1",1],[2,"n2",0],[3,"n2",1]]' "placement the tasks saw"
# the plugin's tags in the task environment
assert_json "$truth" 'all(.[]; .pm_rank == (.rank|tostring) and .pm_job == $j and .pm_step == "0")' \
	"POSTMORTEM_RANK/JOB/STEP in the tasks" --arg j "$job"

rankmap=$(e2e_records "$job" rankmap 0)
taskexit=$(e2e_records "$job" taskexit 0)
assert_file "$rankmap" "rank map of step 0"
assert_file "$taskexit" "task exits of step 0"
assert_eq 4 "$(wc -l <"$rankmap")" "rank map lines"
assert_eq 4 "$(wc -l <"$taskexit")" "task exit lines"
assert_eq "" "$(stat -c '%U %a' "$rankmap" "$taskexit" | grep -v '^root 600$' || true)" "record files root 0600"
assert_eq "root 700" "$(stat -c '%U %a' "$(e2e_spool_job "$job")")" "job spool folder"
assert_json "$rankmap" 'all(.[]; .schema == "postmortem.rankmap/1")' "rank map schema"
assert_json "$taskexit" 'all(.[]; .schema == "postmortem.taskexit/1")' "task exit schema"

# rank map == the truth: job, step, node, node id, rank, local rank, pid
key='map({job, step, node, node_id, rank, local_rank, pid}) | sort_by(.rank)'
want=$(jq -c -s 'map(.step = "0") | '"$key" "$truth")
assert_json "$rankmap" "$key == \$w" "rank map vs the tasks" --argjson w "$want"
assert_json "$rankmap" 'all(.[]; .job == $j and .restart == 0 and (.start|type) == "number"
	and (.start_mono|type) == "number" and (has("gpus")|not))' "rank map fields" --arg j "$job"

# task exits: the same identities, and how each really ended
assert_json "$taskexit" "$key == \$w" "task exit identities vs the tasks" --argjson w "$want"
assert_json "$taskexit" 'sort_by(.rank) | map({rank, status, exit_code, signal: (.signal // 0), signal_name, core: (.core // false)}) == [
	{"rank":0,"status":0,"exit_code":0,"signal":0,"signal_name":null,"core":false},
	{"rank":1,"status":768,"exit_code":3,"signal":0,"signal_name":null,"core":false},
	{"rank":2,"status":9,"exit_code":null,"signal":9,"signal_name":"SIGKILL","core":false},
	{"rank":3,"status":11,"exit_code":null,"signal":11,"signal_name":"SIGSEGV","core":false}]' \
	"task exit statuses"
assert_json "$taskexit" 'all(.[]; (.end|type) == "number" and (.end_mono|type) == "number")' "exit times"
# each task ended after it started
starts=$(json "$rankmap" 'sort_by(.rank) | map(.start_mono) | @csv')
ends=$(json "$taskexit" 'sort_by(.rank) | map(.end_mono) | @csv')
python3 -c 'import sys; s=[float(x) for x in sys.argv[1].split(",")]; e=[float(x) for x in sys.argv[2].split(",")]; sys.exit(0 if all(a<=b for a,b in zip(s,e)) else 1)' \
	"$starts" "$ends" || e2e_fail "a task ended before it started: starts $starts ends $ends"
# srun saw the same: its messages
assert_eq "task 1: Exited with exit code 3
task 2: Killed
task 3: Segmentation fault" "$on_tasks" "srun's task messages"
# the counter
assert_eq "records 8
dropped 0" "$(cat "$(e2e_spool_job "$job")/count")" "spool counter"
# the job epilog called the collector on both nodes, with the job's spool folder
for node in n1 n2; do
	call=$(e2e_collector_call "$job" "$node")
	assert_file "$call" "collector called on $node"
	assert_contains "$call" "--spool=$E2E_SPOOL/$job" "collector's --spool on $node"
	assert_contains "$call" "--node=$node" "collector's --node on $node"
	assert_contains "$call" "--timeout=10000ms" "collector's --timeout on $node"
	assert_contains "$call" "uid:0" "collector runs as root on $node"
done
assert_absent "$(e2e_collector_call "$job" n3)" "collector on n3, which ran nothing of the job"

# ---- the same job without the plugin: the job's own result does not change
e2e_plugin_off
e2e_srun off "${SRUN[@]}"
off_job=$E2E_JOB
assert_eq "$E2E_RC" "$on_rc" "srun's exit status, plugin on vs off"
assert_eq "$(e2e_task_lines "$E2E_ERR")" "$on_tasks" "srun's task messages, plugin on vs off"
assert_eq "$(e2e_result "$off_job")" "$on_result" "sacct State/ExitCode, plugin on vs off"
assert_absent "$(e2e_spool_job "$off_job")" "spool folder of the job run without the plugin"
e2e_log "plugin off: job $off_job, same result"
