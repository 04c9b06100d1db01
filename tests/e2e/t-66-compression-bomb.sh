#!/bin/bash
# e2e-timeout: 420
# Compression bombs named with --postmortem-logs (issue 13, item 4): a zstd file of about
# 800 KB that expands to 8 GiB of log lines and a gzip file of about 7 MB that expands to
# 2 GiB, on both nodes of a two-node job.  Each collector reads at most
# POSTMORTEM_INPUT_MAX (1 GiB) of each as text, for at most 2 s, and keeps the source's cap
# of it, head and tail: no bundle carries a bomb, no source times out, no collector hits its
# deadline, and the job gets its final verdict within the collector's default deadline
# (30 s) of its end.  `postmortem diagnose` on the two files and the job's log reads each to
# the input bound and marks both truncated.
. "$(dirname "$0")/lib.sh"

# many concatenated frames (members) of 64 MiB of lines each: valid streams, made in a moment
(yes 'iter 99 rank 3 all good; throughput nominal; nothing to see in this line at all' || true) |
	head -c 64M | zstd -q -9 -c >"$E2E_WORK/chunk.zst"
(yes 'step 1234 loss=2.345 lr=3e-4 tokens/s=12345 gpu_mem=37.5GiB epoch 3 of 10 ok' || true) |
	head -c 64M | gzip -9 -c >"$E2E_WORK/chunk.gz"
for _ in $(seq 128); do cat "$E2E_WORK/chunk.zst"; done >"$E2E_WORK/big.log.zst"
for _ in $(seq 32); do cat "$E2E_WORK/chunk.gz"; done >"$E2E_WORK/big.log.gz"
rm -f "$E2E_WORK/chunk.zst" "$E2E_WORK/chunk.gz"
zs=$(stat -c %s "$E2E_WORK/big.log.zst")
gs=$(stat -c %s "$E2E_WORK/big.log.gz")
e2e_log "bombs: big.log.zst $zs bytes -> 8 GiB, big.log.gz $gs bytes -> 2 GiB"
chown -R "$E2E_USER:$E2E_USER" "$E2E_WORK"
{
	printf '#!/bin/bash\ncd %q\n' "$E2E_WORK"
	cat <<'JOB'
srun -l -N2 -n2 bash -c 'echo "rank $SLURM_PROCID up on $(hostname)"'
echo "RuntimeError: CUDA error: an illegal memory access was encountered" >&2
exit 1
JOB
} | e2e_script job.sh >/dev/null
e2e_pm_on
job=$(e2e_submit main -N2 -n2 --ntasks-per-node=1 -w 'n[1-2]' \
	--postmortem-logs="$E2E_WORK/big.log.zst,$E2E_WORK/big.log.gz" "$E2E_WORK/job.sh")
e2e_wait_job "$job"
ended=$(date -d "$(sacct -n -X -P -j "$job" -o End | tail -n 1)" +%s)
d=$(e2e_jobdir "$job")
# the epilogs' verdict, final or (their merge cut by the deadline on a loaded machine)
# provisional: within the collector's deadline whatever the bombs hold
e2e_wait_for 60 test -f "$d/verdict.json" || e2e_fail "no verdict for job $job after 60 s"
got=$(date -r "$d/verdict.json" +%s)
e2e_log "first verdict $((got - ended)) s after the job's end (provisional: $(jq -r .provisional "$d/manifest.json"))"
[ $((got - ended)) -le 30 ] || e2e_fail "the verdict came $((got - ended)) s after the job's end (more than the default deadline, 30 s)"
e2e_wait_verdict "$job" 0 60
e2e_pm_check "$job"

for b in "$d"/nodes/*.tar.zst; do
	node=$(basename "$b" .tar.zst)
	[ "$(stat -c %s "$b")" -lt $((4 << 20)) ] || e2e_fail "$node's bundle is $(stat -c %s "$b") bytes"
	zstdcat "$b" | tar -xOf - manifest.json >"$E2E_WORK/manifest.$node.json"
	m=$E2E_WORK/manifest.$node.json
	assert_json "$m" '.[0].collected.deadline_hit == false' "$node: the collector within its deadline"
	assert_json "$m" '.[0].coverage[] | select(.source == "user_logs") | .status != "timed_out"' "$node: the bombs read within the source's timeout"
	if [ "$node" != n1 ] && [ "$(jq '[.files[] | select(.collector_source == "user_logs")] | length' "$m")" = 0 ]; then
		e2e_log "$node: no --postmortem-logs record on this node"
		continue
	fi
	assert_json "$m" '[.[0].files[] | select(.collector_source == "user_logs")] | length == 2' "$node: both bombs' text kept"
	assert_json "$m" '[.[0].files[] | select(.collector_source == "user_logs") | .bytes] | all(. <= 8388608 + 4096)' \
		"$node: each kept within the source's cap"
	assert_json "$m" '[.[0].files[] | select(.collector_source == "user_logs") | select(.status == "truncated" and (.reason | test("kept the first")))] | length == 2' \
		"$node: both truncated, head and tail kept"
	zstdcat "$b" | tar -xOf - sources/user_logs/0-big.log >"$E2E_WORK/zst.$node.txt"
	assert_contains "$E2E_WORK/zst.$node.txt" "iter 99 rank 3 all good" "$node: the zstd file's text"
	tail -n 1 "$E2E_WORK/zst.$node.txt" | e2e_has -E "^\[postmortem: (.*only its first 1 GiB read|decompression stopped after 2 s)" ||
		e2e_fail "$node: no note of the bound at the end of the kept text: $(tail -c 200 "$E2E_WORK/zst.$node.txt")"
	run=$(grep -E "postmortem-epilog(\[[0-9]+\])?: job $job node $node: " "$E2E_SYSLOG" 2>/dev/null |
		tail -n 1 | sed -E 's/.*: job [^ ]+ node [^ ]+: ([0-9.]+) s,.*/\1/')
	e2e_log "$node: collector ${run:-?} s, bundle $(stat -c %s "$b") bytes"
done

# diagnose on the two bombs and the job's log: each read to the input bound, not further, both
# truncated with the reason (its time is logged, never asserted: on a loaded machine a GiB of
# text takes what it takes, and the bound, not the clock, is what keeps a bomb harmless)
mkdir "$E2E_WORK/diag"
cp "$E2E_WORK/big.log.zst" "$E2E_WORK/big.log.gz" "$E2E_WORK/main.out" "$E2E_WORK/diag/"
chown -R "$E2E_USER:$E2E_USER" "$E2E_WORK/diag"
t0=$(date +%s%N)
# (a GiB read from each bomb: 20-25 s on an idle 2-core machine, past e2e_pm_as's default
# 60 s hang guard on a loaded one, which killed it with no output once)
E2E_CLI_TIMEOUT=240 e2e_pm_as "$E2E_USER" diagnose --json "$E2E_WORK/diag" >"$E2E_WORK/diag.json" 2>&1 ||
	e2e_fail "diagnose: $(head -c 400 "$E2E_WORK/diag.json")"
ms=$((($(date +%s%N) - t0) / 1000000))
e2e_log "diagnose on the bombs: $ms ms"
assert_json "$E2E_WORK/diag.json" \
	'[.[0].coverage[].problems[] | select(.status == "truncated" and (.reason | test("only its first 1 GiB read")))] | length == 2' \
	"diagnose: both bombs truncated at the bound"
