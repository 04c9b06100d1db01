#!/bin/bash
# e2e-timeout: 180
# Issue 13, a line belongs to a job through its own job field: while pmuser's job runs on n1
# alone, another user (pmother) runs a job on n1 whose stderr path reads "*** JOB 1 ON n3
# UNCORRECTABLE MEMORY ERROR AT <pmuser's job id> ***".  That line is slurmd's, on the
# victim's node, with the victim's job id in it, and it names n3, a node the victim never
# ran on: the victim's bundle does not keep it, and its verdict has no hardware class, no
# node excluded, nothing counted against a node.  A second job of pmother's puts a whole line
# shaped like the victim's own into the log, through newlines in its stderr path.
. "$(dirname "$0")/lib.sh"

trust_no_blame() {
	local hw='^(gpu_hardware|nvlink|network_fabric|host_hardware)$'
	assert_v '(.cause.class // "") | test($hw) | not' "no hardware cause" --arg hw "$hw"
	assert_v '[.candidates[]? | select((.class // "") | test($hw))] | length == 0' "no hardware candidate" --arg hw "$hw"
	assert_v '.decision.containment.id != "retry-exclude-node"' "no node excluded"
	assert_v '[.evidence[]? | select((.class // "") | test($hw))] | length == 0' "nothing counted against a node" --arg hw "$hw"
	case $C in *hardware* | *nvlink* | *network_fabric* | *exclude*) e2e_fail "the comment blames a node: $C" ;; esac
}

e2e_pm_on
victim=$(e2e_script victim.sh <<'SH'
#!/bin/bash
srun -l /bin/sh -c 'sleep 20; echo step; exit 3'
exit 3
SH
)
job=$(e2e_submit main -N1 -n1 -w n1 "$victim")
e2e_wait_state "$job" RUNNING 60

# the other user's job, from a folder of its own
other=$E2E_WORK/other
install -d -m 755 -o pmother -g pmother "$other"
printf '#!/bin/bash\nexit 0\n' >"$other/plain.sh"
chmod 755 "$other/plain.sh"
chown pmother:pmother "$other/plain.sh"
fake="*** JOB 1 ON n3 UNCORRECTABLE MEMORY ERROR AT $job ***"
atk=$(timeout -k 10 "$E2E_CMD_TIMEOUT" "$E2E_CLUSTER/run-as" --cwd "$other" pmother \
	sbatch --parsable --time="$E2E_JOB_TIME" -N1 -n1 -w n1 -o "$other/o.out" \
	-e "$other/nonexist/$fake/e.err" "$other/plain.sh" </dev/null 2>"$E2E_WORK/other.err") ||
	e2e_fail "pmother's sbatch refused: $(cat "$E2E_WORK/other.err")"
atk=${atk%%;*}
# and one whose path holds newlines: slurmstepd logs them as they are, so the middle line is
# shaped like the victim's own (engine/TRUST.md, "Known limit"; its plain form is caught)
forged="[$(date -u +%Y-%m-%dT%H:%M:%S).500] [$job.batch] error: *** JOB $job ON n1 UNCORRECTABLE MEMORY ERROR AT $(date -u +%Y-%m-%dT%H:%M:%S) ***"
atk2=$(timeout -k 10 "$E2E_CMD_TIMEOUT" "$E2E_CLUSTER/run-as" --cwd "$other" pmother \
	sbatch --parsable --time="$E2E_JOB_TIME" -N1 -n1 -w n1 -o "$other/o2.out" \
	-e "$other/nonexist/a"$'\n'"$forged"$'\n'"b/e.err" "$other/plain.sh" </dev/null 2>"$E2E_WORK/other2.err") ||
	e2e_fail "pmother's second sbatch refused: $(cat "$E2E_WORK/other2.err")"
atk2=${atk2%%;*}
e2e_wait_job "$atk"
e2e_wait_job "$atk2"
grep -F "[$atk.batch]" "$PM_CLUSTER_DIR/log/slurmd-n1.log" | grep -qF "ERROR AT $job ***" ||
	e2e_fail "slurmd's log on n1 has no line of pmother's job $atk quoting job $job: the trick did not happen"
grep -qxF "$forged" "$PM_CLUSTER_DIR/log/slurmd-n1.log" ||
	e2e_fail "slurmd's log on n1 has no line of its own forged by pmother's job $atk2: the trick did not happen"
e2e_wait_job "$job"
e2e_wait_verdict "$job"
e2e_pm_check "$job"
e2e_pm_rediag "$job"
trust_no_blame
text=$(e2e_fetched_text "$F")
if grep -qF "[$atk." "$text"; then e2e_fail "job $job's evidence keeps pmother's job $atk's line: $(grep -F "[$atk." "$text" | head -n 2)"; fi
if grep -qF "$forged" "$text"; then e2e_fail "job $job's evidence keeps the line pmother's job $atk2 forged"; fi
