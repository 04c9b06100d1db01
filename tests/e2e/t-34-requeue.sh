#!/bin/bash
# e2e-timeout: 300
# Scenario 15: a requeued job.  Its first run trains until its owner requeues it (scontrol
# requeue); the second run fails (rank 3 raises).  Both runs' evidence is kept, apart, under
# the restart count (<store>/pmlab/JOB/0 and /1): each has its own bundles, manifest and
# verdict (the first external/requeued, the second the exception), show and fetch serve
# each with --restart, and the comment in sacct is the last run's.  Diagnosing run 1's
# fetched copy gives its stored verdict byte for byte (e2e_pm_rediag).
. "$(dirname "$0")/lib.sh"

e2e_pm_on
e2e_train_py >/dev/null
{
	printf '#!/bin/bash\nulimit -c 0\ncd %q\n' "$E2E_WORK"
	cat <<'JOB'
echo "job $SLURM_JOB_ID run ${SLURM_RESTART_COUNT:-0} on $SLURM_JOB_NODELIST"
if [ "${SLURM_RESTART_COUNT:-0}" = 0 ]; then export PM_PLAN="*=train"; else export PM_PLAN="3=exception;*=timeout"; fi
srun -l /usr/bin/python3 train.py
JOB
} | e2e_script job.sh >/dev/null
job=$(e2e_submit main -N2 -n4 --ntasks-per-node=2 -w 'n[1-2]' --requeue --open-mode=append "$E2E_WORK/job.sh")
e2e_wait_output "$E2E_WORK/main.out" '^3: .*step 4/' 60
e2e_as_user scontrol requeue "$job"
# Slurm holds a requeued job back for two minutes (BeginTime): as an operator would, let it
# go as soon as the first run's epilogs are done
e2e_wait_state "$job" PENDING 60
e2e_log "job $job requeued: $(squeue -h -j "$job" -o '%T %r' 2>&1); releasing it now"
scontrol update JobId="$job" StartTime=now
# run 0's evidence
e2e_wait_for 60 test -f "$(e2e_jobdir "$job" 0)/verdict.json" || e2e_fail "no verdict for run 0 of job $job"
# run 1
E2E_WAIT_TIMEOUT=200 e2e_wait_job "$job"
e2e_wait_verdict "$job" 1 90
e2e_pm_check "$job" 1
e2e_pm_rediag "$job" 1
V1=$V C1=$C
assert_json "$F/manifest.json" '.[0].job.restart == 1' "run 1's manifest"
assert_v '.cause.class == "application" and .cause.subclass == "python_exception" and .origin.ranks == [3]'
assert_match "ev=pmlab/$job/1$" "$C1" "the comment points at the last run"
# run 0, still there and told apart
d0=$(e2e_jobdir "$job" 0)
e2e_wait_for 60 eval "[ \"\$(jq -r .provisional '$d0/manifest.json')\" = false ]" ||
	e2e_log "run 0's verdict is still provisional: $(jq -c '.scheduler' "$d0/manifest.json")"
V=$E2E_WORK/verdict.$job.0.json
e2e_pm_as "$E2E_USER" show "$job" --restart 0 --json >"$V" 2>"$V.err" || e2e_fail "show --restart 0: $(cat "$V.err")"
assert_json "$(e2e_jobdir "$job" 0)/manifest.json" '.[0].job.restart == 0' "run 0's manifest"
assert_v '.outcome == "REQUEUED" and .cause.class == "external" and .cause.subclass == "requeued"'
rm -rf "$E2E_WORK/fetch0"
e2e_pm_as "$E2E_USER" fetch "$job" --restart 0 -o "$E2E_WORK/fetch0" >/dev/null 2>&1 || e2e_fail "fetch --restart 0 refused"
ls "$E2E_WORK"/fetch0/nodes/*.tar.zst >/dev/null || e2e_fail "run 0's bundles not fetched"
cmp -s "$E2E_WORK/fetch0/verdict.json" "$V1" && e2e_fail "run 0 and run 1 have the same verdict"
for b in "$E2E_WORK"/fetch0/nodes/*.tar.zst; do
	zstdcat "$b" | tar -xOf - manifest.json | jq -e '.restart == 0' >/dev/null || e2e_fail "$b is not run 0's"
done
for b in "$(e2e_jobdir "$job" 1)"/nodes/*.tar.zst; do
	zstdcat "$b" | tar -xOf - manifest.json | jq -e '.restart == 1' >/dev/null || e2e_fail "$b is not run 1's"
done
e2e_log "run 0: $(jq -r '"\(.outcome) \(.cause.class)/\(.cause.subclass)"' "$V"); run 1: $C1"
