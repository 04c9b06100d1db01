#!/bin/bash
# e2e-timeout: 720
# Fault (issue 7): 64 jobs end at once on the same nodes.  32 two-node jobs (16 on n1+n2,
# 16 on n2+n3) and 32 one-node jobs (16 on n1, 16 on n3) fill every CPU of the three nodes;
# each waits for one go file and then exits with its own code, so that ~96 collectors and
# their finalizers run at the same moment.  Every job must get a final verdict with its own
# evidence: each of its nodes' bundles, each naming this job, its job output (its own marker
# and nobody else's) on its batch node, the outcome of its own sacct record, and its own
# result in sacct (the exit code its script chose).
# Starting 64 batch jobs takes minutes on a loaded 2-CPU machine (each a slurmstepd with the
# plugin, while the last test's epilogs still run): the jobs wait up to 8 minutes by the
# clock for the go file, under a 10-minute limit, and the test up to 6 for all of them to run.
. "$(dirname "$0")/lib.sh"

N=64
e2e_pm_on
go=$E2E_WORK/go
script=$(e2e_script job.sh <<SH
#!/bin/bash
echo "pm-e2e-job \$PM_I begins on \$SLURM_JOB_NODELIST"
end=\$((SECONDS + 480))
while [ \$SECONDS -lt \$end ] && [ ! -e $go ]; do sleep 0.2; done
echo "pm-e2e-job \$PM_I ends with \$PM_RC"
exit \$PM_RC
SH
)
declare -A jobs nodes rcs
for i in $(seq 1 $N); do
	case $((i % 4)) in
	0) w='n[1-2]' nn=2 ;;
	1) w='n[2-3]' nn=2 ;;
	2) w=n1 nn=1 ;;
	3) w=n3 nn=1 ;;
	esac
	rc=$((i % 7 == 0 ? 0 : (i % 50) + 1))
	jobs[$i]=$(e2e_submit "j$i" -N"$nn" -n"$nn" --ntasks-per-node=1 --mem=40M -w "$w" --time=10 \
		--export=ALL,PM_I="$i",PM_RC="$rc" "$script")
	rcs[$i]=$rc
	nodes[$i]=$w
done
ids=$(printf '%s,' "${jobs[@]}")
t0=$SECONDS
e2e_wait_for 360 eval '[ "$(squeue -h -j '"${ids%,}"' -t RUNNING -o %i | wc -l)" = '"$N"' ]' ||
	e2e_fail "not all $N jobs running at once: $(squeue -h -j "${ids%,}" -o '%i %T %R' | awk '{print $2, $3}' | sort | uniq -c | paste -sd ' ')"
e2e_log "$N jobs running after $((SECONDS - t0)) s, on $(squeue -h -j "${ids%,}" -o %N | sort | uniq -c | paste -sd ' ')"
touch "$go"
for i in $(seq 1 $N); do e2e_wait_job "${jobs[$i]}"; done
e2e_log "all $N jobs out of the queue"

# a merge cut by its time budget (merge_deadline) has written a provisional verdict that
# names the bundles it did not read, and a merge that could not read Slurm's record (sacct
# timing out under the 64 jobs' load) has written one without it; the finalize timer merges
# either again, as on a cluster; and a comment sacctmgr did not take yet (comment.pending)
# is set by the timer's pending pass (e2e_final_or_retry runs both passes every 5 s)
cut_merge() {
	[ "$(jq -r '(.provisional == true and .merge != null) or .scheduler.final == false' \
		"$1/manifest.json" 2>/dev/null)" = true ]
}
final_or_cut() { e2e_final_or_retry "$1" || cut_merge "$2"; }
bad=0 cut=0
for i in $(seq 1 $N); do
	j=${jobs[$i]} d=$(e2e_jobdir "${jobs[$i]}")
	exp=$(if [ "${rcs[$i]}" = 0 ]; then echo "COMPLETED 0:0"; else echo "FAILED ${rcs[$i]}:0"; fi)
	assert_eq "$exp" "$(sacct -n -X -P -j "$j" -o State,ExitCode | tr '|' ' ')" "job $j ($i): sacct State ExitCode"
	if e2e_wait_for 120 final_or_cut "$j" "$d" && cut_merge "$d"; then
		cut=$((cut + 1))
		out=$(timeout 120 "$E2E_CLI" finalize "$j" 2>&1) || e2e_log "finalize $j: $out"
	fi
	if ! e2e_wait_for 60 e2e_final_or_retry "$j"; then
		e2e_log "job $j ($i): no final verdict: $(ls "$d" 2>&1 | paste -sd ' '); $(jq -c .nodes "$d/manifest.json" 2>&1)"
		bad=$((bad + 1))
		continue
	fi
	e2e_pm_times "$j"
	want=$(case ${nodes[$i]} in 'n[1-2]') echo '["n1","n2"]' ;; 'n[2-3]') echo '["n2","n3"]' ;; *) echo "[\"${nodes[$i]}\"]" ;; esac)
	assert_json "$d/manifest.json" ".[0].job.id == \$j and .[0].nodes.present == $want and .[0].nodes.missing == [] and .[0].provisional == false" "job $j ($i): manifest" --arg j "$j"
	assert_json "$d/verdict.json" '.[0].job.id == $j and .[0].outcome == $o' "job $j ($i): verdict" --arg j "$j" --arg o "${exp%% *}"
	for b in "$d"/nodes/*.tar.zst; do
		zstdcat "$b" | tar -xOf - manifest.json >"$E2E_WORK/bm.json" || e2e_fail "job $j: $b is not whole"
		assert_json "$E2E_WORK/bm.json" '.[0].job == $j and .[0].cluster == "pmlab"' "job $j ($i): $(basename "$b")'s own manifest names the job" --arg j "$j"
	done
	first=$(jq -r '.nodes.present[0]' "$d/manifest.json")
	zstdcat "$d/nodes/$first.tar.zst" | tar -xOf - --wildcards 'sources/job_output/*' >"$E2E_WORK/out.txt" 2>/dev/null || true
	grep -qx "pm-e2e-job $i ends with ${rcs[$i]}" "$E2E_WORK/out.txt" || e2e_fail "job $j ($i): its output is not in its bundle: $(head -c 300 "$E2E_WORK/out.txt")"
	others=$(grep -o 'pm-e2e-job [0-9]*' "$E2E_WORK/out.txt" | sort -u | grep -vx "pm-e2e-job $i" || true)
	[ -z "$others" ] || e2e_fail "job $j ($i): other jobs' output in its bundle: $others"
done
[ "$bad" = 0 ] || e2e_fail "$bad of $N jobs have no final verdict"
e2e_log "merges cut by their time budget or without Slurm's record, finished by the timer: $cut of $N"
hits=$(awk -F'\t' -v t="$E2E_TEST" '$1 == t && $6 == "true"' "$E2E_TIMES" | wc -l)
e2e_log "collectors that hit their deadline: $hits"
# the whole check, as the owner, for a few of them
for i in 1 2 4; do e2e_pm_check "${jobs[$i]}"; done
