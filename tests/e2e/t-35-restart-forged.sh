#!/bin/bash
# e2e-timeout: 300
# The restart count a run's evidence is filed under is Slurm's, never the job's: a requeued
# job whose user sets SLURM_RESTART_COUNT (5 at submission and before run 0's srun, 0 before
# run 1's) keeps each run's evidence where it belongs.  Run 0 trains until its owner
# requeues it; run 1 fails (rank 3 raises).  Run 0's bundles, stored under /0, are not
# moved or replaced by run 1's (byte for byte the same afterwards), run 1's are under /1, no
# /5 exists, no bundle was filed as a conflicting run, and the plugin did record the forged
# counts (which the collector ignored).
. "$(dirname "$0")/lib.sh"

e2e_pm_on
e2e_train_py >/dev/null
{
	printf '#!/bin/bash\nulimit -c 0\ncd %q\n' "$E2E_WORK"
	cat <<'JOB'
if [ ! -e run0.started ]; then
	touch run0.started
	export SLURM_RESTART_COUNT=5 PM_PLAN="*=train"
else
	export SLURM_RESTART_COUNT=0 PM_PLAN="3=exception;*=timeout"
fi
echo "job $SLURM_JOB_ID on $SLURM_JOB_NODELIST, SLURM_RESTART_COUNT=$SLURM_RESTART_COUNT"
srun -l /usr/bin/python3 train.py
JOB
} | e2e_script job.sh >/dev/null
rm -f "$E2E_WORK/run0.started"
job=$(e2e_submit main -N2 -n4 --ntasks-per-node=2 -w 'n[1-2]' --requeue --open-mode=append \
	--export=ALL,SLURM_RESTART_COUNT=5 "$E2E_WORK/job.sh")
e2e_wait_output "$E2E_WORK/main.out" '^3: .*step 4/' 60
e2e_as_user scontrol requeue "$job"
e2e_wait_state "$job" PENDING 60
d0=$(e2e_jobdir "$job" 0)
d1=$(e2e_jobdir "$job" 1)
# run 0's evidence, both nodes, before run 1 starts
e2e_wait_for 60 eval "[ -f '$d0/nodes/n1.tar.zst' ] && [ -f '$d0/nodes/n2.tar.zst' ]" ||
	e2e_fail "run 0's bundles not stored under $d0: $(ls -R "$(dirname "$d0")" 2>&1 | head -n 20 | paste -sd ' ')"
sha0=$(cd "$d0/nodes" && sha256sum n1.tar.zst n2.tar.zst)
e2e_log "run 0 stored: $(printf '%s' "$sha0" | awk '{print $2 "=" substr($1, 1, 12)}' | paste -sd ' ')"
scontrol update JobId="$job" StartTime=now
E2E_WAIT_TIMEOUT=200 e2e_wait_job "$job"
e2e_wait_verdict "$job" 1 90
e2e_pm_check "$job" 1
e2e_pm_rediag "$job" 1
assert_v '.cause.class == "application" and .cause.subclass == "python_exception" and .origin.ranks == [3]'
assert_match "ev=pmlab/$job/1$" "$C" "the comment points at run 1"

# run 0's bundles: where they were, unchanged; run 1's apart
assert_eq "$sha0" "$(cd "$d0/nodes" && sha256sum n1.tar.zst n2.tar.zst)" "run 0's bundles after run 1"
for b in "$d0"/nodes/*.tar.zst; do
	zstdcat "$b" | tar -xOf - manifest.json | jq -e '.restart == 0' >/dev/null || e2e_fail "$b is not run 0's"
done
for n in n1 n2; do
	assert_file "$d1/nodes/$n.tar.zst" "run 1's bundle of $n"
	zstdcat "$d1/nodes/$n.tar.zst" | tar -xOf - manifest.json | jq -e '.restart == 1' >/dev/null ||
		e2e_fail "$d1/nodes/$n.tar.zst is not run 1's"
done
assert_absent "$(e2e_jobdir "$job" 5)" "a folder for the forged count 5"
assert_absent "$d0/conflicts" "run 0 conflicts"
assert_absent "$d1/conflicts" "run 1 conflicts"
# the forged counts did reach the plugin's records (n2 ran only srun steps)
forged=$(zstdcat "$d1/nodes/n2.tar.zst" | tar -xOf - --wildcards 'sources/rank_map/rankmap.*' 2>/dev/null |
	jq -s -c '[.[].restart] | unique' 2>/dev/null || echo '?')
e2e_log "restart counts in run 1's rank map on n2 (the job's environment): $forged"
forged0=$(zstdcat "$d0/nodes/n2.tar.zst" | tar -xOf - --wildcards 'sources/rank_map/rankmap.*' 2>/dev/null |
	jq -s -c '[.[].restart] | unique' 2>/dev/null || echo '?')
e2e_log "restart counts in run 0's rank map on n2: $forged0"
assert_json "$d0/manifest.json" '.[0].job.restart == 0' "run 0's manifest"
e2e_wait_for 60 eval "[ \"\$(jq -r .provisional '$d0/manifest.json')\" = false ]" ||
	e2e_log "run 0's verdict is still provisional"
V=$d0/verdict.json
assert_v '.outcome == "REQUEUED" and .cause.class == "external" and .cause.subclass == "requeued"'
