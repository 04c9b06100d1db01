#!/bin/bash
# e2e-timeout: 180
# Issue 13, a line planted in advance: before pmuser's job starts, another user (pmother)
# runs a short job on n3 whose stderr path lists the next job ids after "*** JOB 1 ON n3
# UNCORRECTABLE MEMORY ERROR AT": slurmd's log on n3 holds, from before the victim began, a
# line with the victim's id in it.  The victim's job on n3 does not keep it, and its verdict
# has no hardware class, no node excluded, nothing counted against a node.
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
other=$E2E_WORK/other
install -d -m 755 -o pmother -g pmother "$other"
printf '#!/bin/bash\nexit 0\n' >"$other/plain.sh"
chmod 755 "$other/plain.sh"
chown pmother:pmother "$other/plain.sh"
# the ids the next jobs will get: from the last one the controller gave, on
last=$(squeue -h -t all -o %i 2>/dev/null | sed 's/_.*//' | sort -n | tail -n 1)
last=${last:-$(sacct -a -n -X -P -S now-1days -o JobIDRaw 2>/dev/null | sort -n | tail -n 1)}
[ -n "$last" ] || e2e_skip "no job id seen yet to plant the next ones from"
ids=$(seq $((last + 1)) $((last + 12)) | paste -sd ' ')
fake="*** JOB 1 ON n3 UNCORRECTABLE MEMORY ERROR AT $ids ***"
atk=$(timeout -k 10 "$E2E_CMD_TIMEOUT" "$E2E_CLUSTER/run-as" --cwd "$other" pmother \
	sbatch --parsable --time="$E2E_JOB_TIME" -N1 -n1 -w n3 -o "$other/o.out" \
	-e "$other/nonexist/$fake/e.err" "$other/plain.sh" </dev/null 2>"$E2E_WORK/other.err") ||
	e2e_fail "pmother's sbatch refused: $(cat "$E2E_WORK/other.err")"
atk=${atk%%;*}
e2e_wait_job "$atk"
grep -F "[$atk.batch]" "$PM_CLUSTER_DIR/log/slurmd-n3.log" | grep -qF "UNCORRECTABLE MEMORY ERROR" ||
	e2e_fail "slurmd's log on n3 has no line of pmother's job $atk: the trick did not happen"

victim=$(e2e_script victim.sh <<'SH'
#!/bin/bash
srun -l /bin/sh -c 'echo step; exit 3'
exit 3
SH
)
job=$(e2e_submit main -N1 -n1 -w n3 "$victim")
case " $ids " in *" $job "*) ;; *) e2e_fail "job $job is not among the planted ids ($ids): the trick did not happen" ;; esac
e2e_wait_job "$job"
e2e_wait_verdict "$job"
e2e_pm_check "$job"
e2e_pm_rediag "$job"
trust_no_blame
text=$(e2e_fetched_text "$F")
if grep -qF "[$atk." "$text"; then e2e_fail "job $job's evidence keeps pmother's job $atk's line: $(grep -F "[$atk." "$text" | head -n 2)"; fi
