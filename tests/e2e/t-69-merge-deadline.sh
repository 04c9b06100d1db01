#!/bin/bash
# e2e-timeout: 280
# Issue 13 (4): the merge budgets its own time.  Two 2-node jobs fail (rank 3's exception).
#   A. A merge that cannot finish in time: a watcher SIGSTOPs every merge the job's
#      collectors start (the child process of whoever holds the `merging` claim), as a
#      merge stuck in a decompression bomb would be.  Each collector still ends within its
#      deadline, the job still gets a provisional verdict from Slurm's record with every
#      bundle listed as not read (manifest "merge", the verdict's coverage), the claim is
#      let go, and `postmortem show` says the merge ran out of time.  The finalize timer
#      (`postmortem finalize JOB`) then merges it in full.
#   B. A merger that dies: the watcher SIGKILLs the collector holding the claim (each time
#      one takes it).  No verdict, a claim left behind by a dead process: `postmortem show`
#      says that every node reported and the merge did not finish (not that the nodes have
#      not reported), and `postmortem finalize JOB` takes the claim over at once (the
#      merger is gone from this host) instead of after PM_CLAIM_STALE (300 s).
. "$(dirname "$0")/lib.sh"

e2e_pm_on
e2e_train_py >/dev/null
script=$(e2e_batch job.sh)
cat >"$E2E_WORK/watch.py" <<'PY'
import os, signal, sys, time
d, mode, limit = sys.argv[1], sys.argv[2], time.time() + float(sys.argv[3])
done = set()
def children(pid):
    out = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % p) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if ppid == pid:
            out.append(int(p))
    return out
while time.time() < limit and len(done) < 4:
    try:
        with open(os.path.join(d, "merging")) as f:
            pid = int(f.read().split()[1])
    except (OSError, ValueError, IndexError):
        time.sleep(0.001)
        continue
    try:
        if mode == "stop":  # its merge (a child like itself, not a sacct), stopped
            with open("/proc/%d/comm" % pid) as f:
                comm = f.read()
            for c in children(pid):
                try:
                    with open("/proc/%d/comm" % c) as f:
                        same = f.read() == comm
                except OSError:
                    same = False
                if same and c not in done:
                    os.kill(c, signal.SIGSTOP)
                    done.add(c)
                    print("stopped", c, "merging for", pid, flush=True)
        elif pid not in done:  # the merger itself, dead
            os.kill(pid, signal.SIGKILL)
            done.add(pid)
            print("killed", pid, flush=True)
    except (ProcessLookupError, FileNotFoundError):
        pass
    time.sleep(0.001)
sys.exit(0 if done else 1)
PY

# ---- A: a merge that cannot finish in time
jobA=$(e2e_submit a -N2 -n4 --ntasks-per-node=2 -w 'n[1-2]' --export=ALL,PM_PLAN="3=exception;*=ok" "$script")
dA=$(e2e_jobdir "$jobA")
python3 "$E2E_WORK/watch.py" "$dA" stop 60 >"$E2E_WORK/watchA.out" 2>&1 &
wA=$!
e2e_wait_job "$jobA"
e2e_wait_for 40 test -f "$dA/manifest.json" || e2e_fail "no manifest for job $jobA: $(ls -A "$dA" 2>&1 | paste -sd ' ')"
# both collectors are done (each logged its line) before the watcher is stopped
e2e_wait_for 40 eval '[ "$(grep -cE "job '"$jobA"' node n[12]: " "$E2E_SYSLOG")" -ge 2 ]' ||
	e2e_fail "the collectors of job $jobA did not both finish: $(grep "job $jobA " "$E2E_SYSLOG" || true)"
kill "$wA" 2>/dev/null || true
wait "$wA" 2>/dev/null || true
e2e_log "watcher: $(paste -sd ' ' "$E2E_WORK/watchA.out")"
grep -q '^stopped' "$E2E_WORK/watchA.out" || e2e_skip "the watcher caught no merge of job $jobA (each finished first)"
grep "job $jobA node" "$E2E_SYSLOG" | while read -r l; do e2e_log "${l:0:400}"; done
# within its deadline (12 s), and saying so
for n in n1 n2; do
	t=$(grep -E "job $jobA node $n: " "$E2E_SYSLOG" | tail -n 1 | sed -E 's/.*: job [^ ]+ node [^ ]+: ([0-9.]+) s,.*/\1/')
	awk -v t="$t" 'BEGIN { exit !(t < 12.5) }' || e2e_fail "$n's collector took $t s, past its 12 s deadline"
done
grep -E "job $jobA node n[12]: .*the merge ran out of time" "$E2E_SYSLOG" >/dev/null ||
	e2e_fail "no collector said its merge ran out of time: $(grep "job $jobA " "$E2E_SYSLOG")"
assert_json "$dA/manifest.json" '.[0].provisional and .[0].merge.deadline_hit and (.[0].merge.cut | length) >= 1' \
	"a provisional verdict from a cut merge"
e2e_log "cut merge: $(jq -c '{merge, scheduler: .scheduler.state, verdict: .verdict.status}' "$dA/manifest.json")"
assert_json "$dA/verdict.json" '[.[0].coverage[] | select(.source == "bundle") | .problems[] | select(.status == "timed_out")] | length >= 1' \
	"the verdict's coverage names the bundles not read"
assert_absent "$dA/merging" "the claim of a cut merge"
for p in $(awk '/^stopped/ {print $2}' "$E2E_WORK/watchA.out"); do
	[ ! -d "/proc/$p" ] || e2e_fail "the stopped merge $p still exists"
done
e2e_pm_as "$E2E_USER" show "$jobA" >"$E2E_WORK/showA.txt" 2>&1 || e2e_fail "show $jobA: $(cat "$E2E_WORK/showA.txt")"
assert_contains "$E2E_WORK/showA.txt" "PROVISIONAL: the merge ran out of time" "show's header"
e2e_log "show: $(head -n 3 "$E2E_WORK/showA.txt" | tr '\n' ' ')"
# the timer merges it in full
out=$(timeout 120 "$E2E_CLI" finalize "$jobA" 2>&1) || e2e_fail "postmortem finalize $jobA: $out"
e2e_log "finalize $jobA: $out"
e2e_wait_verdict "$jobA"
assert_json "$dA/manifest.json" '(.[0].provisional | not) and .[0].merge == null and .[0].nodes.present == ["n1","n2"]' \
	"the timer's full merge"
e2e_pm_check "$jobA"
assert_v '.cause.class == "application"' "the full verdict"

# ---- B: a merger that dies holding the claim
jobB=$(e2e_submit b -N2 -n4 --ntasks-per-node=2 -w 'n[1-2]' --export=ALL,PM_PLAN="3=exception;*=ok" "$script")
dB=$(e2e_jobdir "$jobB")
python3 "$E2E_WORK/watch.py" "$dB" kill 60 >"$E2E_WORK/watchB.out" 2>&1 &
wB=$!
e2e_wait_job "$jobB"
e2e_wait_for 40 eval '[ "$(ls "'"$dB"'/arrived" 2>/dev/null | wc -l)" -ge 2 ]' ||
	e2e_fail "both nodes of job $jobB did not arrive: $(ls -A "$dB" "$dB/arrived" 2>&1 | paste -sd ' ')"
sleep 2
kill "$wB" 2>/dev/null || true
wait "$wB" 2>/dev/null || true
e2e_log "watcher: $(paste -sd ' ' "$E2E_WORK/watchB.out")"
grep -q '^killed' "$E2E_WORK/watchB.out" || e2e_skip "the watcher killed no merger of job $jobB"
if [ -f "$dB/manifest.json" ]; then
	e2e_skip_part "a merger of job $jobB finished before the watcher saw its claim"
else
	assert_file "$dB/merging" "the dead merger's claim"
	e2e_pm_as "$E2E_USER" show "$jobB" >"$E2E_WORK/showB.txt" 2>&1 && e2e_fail "show $jobB gave a verdict"
	e2e_log "show: $(cat "$E2E_WORK/showB.txt")"
	assert_contains "$E2E_WORK/showB.txt" "2 of 2 node(s) reported, but the merge did not finish: its merger is gone" "show's account"
	if grep -q "have not reported" "$E2E_WORK/showB.txt"; then e2e_fail "show says the nodes have not reported"; fi
	# fetch (and report, drill: cli_run_open) give the same account
	e2e_pm_as "$E2E_USER" fetch "$jobB" -o "$E2E_WORK/fetchB" >"$E2E_WORK/fetchB.txt" 2>&1 &&
		e2e_fail "fetch $jobB fetched a run that has no manifest"
	assert_contains "$E2E_WORK/fetchB.txt" "has no verdict yet: 2 of 2 node(s) reported, but the merge did not finish" "fetch's account"
fi
out=$(timeout 120 "$E2E_CLI" finalize "$jobB" 2>&1) || e2e_fail "postmortem finalize $jobB: $out"
e2e_log "finalize $jobB: $out"
# finalize never waits for a claim: held, it says another merge is running and stops (so
# the claim taken at once is this line, not a time; timeout 120 only guards a hang)
case $out in *"another merge is running"*) e2e_fail "the dead merger's claim held finalize off: $out" ;; esac
assert_match "merged, 2 of 2 node" "$out" "finalize's report"
# (not e2e_wait_verdict: its epilog times come from the collectors' lines, and both died)
e2e_wait_for 30 e2e_final_verdict "$jobB" || e2e_fail "no final verdict for job $jobB: $(e2e_comment "$jobB")"
assert_absent "$dB/merging" "the claim after finalize"
e2e_pm_check "$jobB"
