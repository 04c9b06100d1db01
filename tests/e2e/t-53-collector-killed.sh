#!/bin/bash
# e2e-timeout: 200
# Fault (issue 7): the collector is killed while it writes its bundle into the store.  A
# watcher sees n1's temporary bundle file appear in the store (the collector's pid is in its
# name) and SIGKILLs that collector mid-write.  The job's own result (sacct) is unchanged;
# nothing half-written is ever taken for a bundle: no nodes/n1.tar.zst, the finalizer's
# verdict lists n1 as missing and n2 only, fetch copies whole bundles only.  Running the
# node's collector again (as the plugin ran it) stores n1's evidence and the verdict is
# merged again with both nodes (n1, the batch node, brings the job's output with rank 1's
# traceback); that run removes the dead collector's temporary file.
. "$(dirname "$0")/lib.sh"

e2e_pm_on_faulty
touch "$E2E_FAULTS/env"
# a bundle of ~1 MiB for n1 (noise in its kernel log), so that writing it takes a while
ks=$(e2e_kstamp)
head -c 1000000 /dev/urandom | od -An -tx1 -v | sed "s/^/$ks pm-e2e-noise:/" >>"$E2E_KLOG/n1.log"
e2e_train_py >/dev/null
script=$(e2e_batch job.sh)
cat >"$E2E_WORK/killer.py" <<'PY'
import os, signal, sys, time
d, node, limit = sys.argv[1], sys.argv[2], time.time() + float(sys.argv[3])
pre = "." + node + ".tar.zst."
while time.time() < limit:
    try:
        names = os.listdir(d)
    except OSError:
        names = []
    for n in names:
        if n.startswith(pre) and n.endswith(".tmp.tar.zst"):
            pid = int(n[len(pre):].split(".")[0])
            os.kill(pid, signal.SIGSTOP)  # then make sure it has not renamed it yet
            try:
                size = os.stat(os.path.join(d, n)).st_size
            except OSError:
                os.kill(pid, signal.SIGCONT)
                print(pid, n, "late", flush=True)
                sys.exit(3)
            os.kill(pid, signal.SIGKILL)
            print(pid, n, size, flush=True)
            sys.exit(0)
    time.sleep(0.0005)
sys.exit(1)
PY
job=$(e2e_submit main -N2 -n2 --ntasks-per-node=1 -w 'n[1-2]' --export=ALL,PM_PLAN="1=exception;*=ok" "$script")
d=$(e2e_jobdir "$job")
killer=0
python3 "$E2E_WORK/killer.py" "$d/nodes" n1 90 >"$E2E_WORK/killer.out" 2>&1 || killer=$?
[ "$killer" != 3 ] || e2e_skip "the watcher saw n1's temporary bundle too late (renamed already): $(cat "$E2E_WORK/killer.out")"
[ "$killer" = 0 ] || e2e_fail "n1's collector was not caught writing: $(cat "$E2E_WORK/killer.out") $(grep "job $job node n1" "$E2E_SYSLOG" | tail -n 1)"
read -r kpid kfile ksize <"$E2E_WORK/killer.out"
e2e_log "killed collector $kpid while it wrote $kfile ($ksize bytes so far)"
e2e_wait_job "$job"
assert_eq "FAILED 1:0" "$(sacct -n -X -P -j "$job" -o State,ExitCode | tr '|' ' ')" "sacct State ExitCode"
[ ! -d "/proc/$kpid" ] || e2e_fail "the collector $kpid still runs"
if grep -qE "job $job node n1: " "$E2E_SYSLOG"; then e2e_fail "the killed collector reported: $(grep "job $job node n1" "$E2E_SYSLOG")"; fi
e2e_wait_for 30 test -f "$d/nodes/n2.tar.zst" || e2e_fail "n2's bundle not stored"
assert_absent "$d/nodes/n1.tar.zst" "n1's bundle (its writer was killed)"
e2e_store_bundles_ok "$d"
e2e_log "left in nodes/: $(ls -A "$d/nodes" | paste -sd ' ')"
[ -n "$(e2e_store_partials "$d")" ] || e2e_fail "no half-written file left by the killed collector: $(ls -A "$d/nodes" | paste -sd ' ')"

# the timer: the half-written file is not a bundle
out=$(timeout 60 "$E2E_CLI" finalize "$job" --force 2>&1) || e2e_fail "postmortem finalize $job --force: $out"
e2e_wait_verdict "$job"
e2e_pm_check "$job"
assert_json "$d/manifest.json" '.[0].nodes.present == ["n2"] and ([.[0].bundles[].file] == ["nodes/n2.tar.zst"])' "only n2's whole bundle merged"
assert_json "$d/manifest.json" '[.[0].nodes.missing[] | select(.node == "n1")] | length == 1' "n1 listed missing"
[ "$(ls "$F/nodes")" = n2.tar.zst ] || e2e_fail "fetch copied more than n2's bundle: $(ls -A "$F/nodes" | paste -sd ' ')"
# rank 1's traceback is in the job's output, which only the batch node (n1) keeps: with a
# spool per node n2's bundle has rank 1's exit status but not why, so no cause is claimed yet
assert_v '.status == "unknown" and .cause == null' "verdict from n2's bundle alone: no cause"

# the node's collector again, as the plugin ran it: n1's evidence arrives, merged again
e2e_epilog_again "$job" n1
e2e_log "again: $(tail -n 1 "$E2E_WORK/again.$job.n1.err")"
assert_file "$d/nodes/n1.tar.zst" "n1's bundle from the second run"
e2e_wait_verdict "$job"
e2e_pm_check "$job"
assert_json "$d/manifest.json" '.[0].nodes.present == ["n1","n2"] and .[0].nodes.missing == []' "both nodes now"
parts=$(e2e_store_partials "$d")
[ -z "$parts" ] || e2e_fail "the dead collector's half-written file is still in the store: $parts"
e2e_store_bundles_ok "$d"
assert_v '.cause.class == "application" and .origin.nodes == ["n2"]'
assert_eq "FAILED 1:0" "$(sacct -n -X -P -j "$job" -o State,ExitCode | tr '|' ' ')" "sacct State ExitCode at the end"
