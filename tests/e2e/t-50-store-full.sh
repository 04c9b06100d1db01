#!/bin/bash
# e2e-timeout: 200
# Fault (issue 7): the evidence store fills up.  The store is a 3 MiB tmpfs mounted over the
# suite's store, filled but for 512 KiB: n2's small bundle fits, n1's (~3 MiB of kernel log)
# does not.  n1 must keep its bundle in its spool (pending/), write
# nothing that passes for a bundle, and say so: the timer's final verdict lists n1 as missing
# because evidence storage failed (not "never reported").  When space is back, the next job
# on n1 delivers the pending bundle, the verdict is merged again with both nodes and nothing
# is lost.  The job's own result (sacct) is what the script made it, whatever the store did.
. "$(dirname "$0")/lib.sh"

e2e_pm_on_faulty
mountpoint -q "$E2E_STORE" && e2e_fail "$E2E_STORE is already a mount point"
mount -t tmpfs -o size=3m,mode=0755 pm-e2e-full "$E2E_STORE" || e2e_skip "cannot mount a tmpfs here"
trap 'umount -l "$E2E_STORE" 2>/dev/null || true; e2e_pm_config; e2e_syslog_stop' EXIT
dd if=/dev/zero of="$E2E_STORE/.filler" bs=64k 2>/dev/null || true # ENOSPC: full
truncate -s -512K "$E2E_STORE/.filler"
e2e_log "store: $(df -k --output=size,avail "$E2E_STORE" | tail -n 1) KiB (size, free)"
# n1 collects a little longer than n2, so that n2's bundle is in before n1 fills the store
e2e_plant_nvsmi n1 'sleep 2; echo "==============NVSMI LOG=============="'
# n1's kernel log holds ~3 MiB of noise (1 MiB random, as hex): its bundle cannot fit
ks=$(e2e_kstamp)
head -c 1000000 /dev/urandom | od -An -tx1 -v | sed "s/^/$ks pm-e2e-noise:/" >>"$E2E_KLOG/n1.log"
e2e_klog n1 "pm-e2e-marker: the end of n1's kernel log"
e2e_train_py >/dev/null
script=$(e2e_batch job.sh)
job=$(e2e_submit main -N2 -n2 --ntasks-per-node=1 -w 'n[1-2]' --export=ALL,PM_PLAN="1=exception;*=ok" "$script")
e2e_wait_job "$job"
d=$(e2e_jobdir "$job")
pend=$(e2e_pending_dir "$job" n1)
e2e_wait_for 30 test -f "$pend/n1.tar.zst" || e2e_fail "n1's bundle not kept in the spool: $(ls -la "$(dirname "$pend")" 2>&1 | paste -sd ' '); store: $(find "$d" 2>&1 | paste -sd ' ')"
e2e_wait_for 30 test -f "$d/nodes/n2.tar.zst" || e2e_fail "n2's bundle not stored"
assert_file "$pend/n1.json" "the pending bundle's note (where it belongs)"
assert_json "$pend/n1.json" '.[0].job == $j and .[0].node == "n1" and .[0].cluster == "pmlab"' "pending note" --arg j "$job"
zstdcat "$pend/n1.tar.zst" | tar -xOf - manifest.json >/dev/null || e2e_fail "the pending bundle is not whole"
assert_absent "$d/nodes/n1.tar.zst" "n1's bundle in the full store"
parts=$(e2e_store_partials "$E2E_STORE")
[ -z "$parts" ] || e2e_fail "half-written files left in the store: $parts"
e2e_store_bundles_ok "$E2E_STORE"
grep -E "postmortem-epilog(\[[0-9]+\])?: job $job node n1: .*store: pending in " "$E2E_SYSLOG" >/dev/null ||
	e2e_fail "n1's syslog line does not say the bundle is pending: $(grep "job $job node n1" "$E2E_SYSLOG" | tail -n 1)"
# the job's own result is the script's
assert_eq "FAILED 1:0" "$(sacct -n -X -P -j "$job" -o State,ExitCode | tr '|' ' ')" "sacct State ExitCode of the job"

# the timer finalizes while n1's evidence waits: the verdict says why n1 is missing
out=$(timeout 60 "$E2E_CLI" finalize "$job" --force 2>&1) || e2e_fail "postmortem finalize $job --force: $out"
e2e_wait_verdict "$job"
m=$E2E_WORK/manifest.first.json
cp "$d/manifest.json" "$m"
e2e_log "missing: $(jq -c .nodes.missing "$m")"
assert_json "$m" '.[0].nodes.present == ["n2"]' "n2's evidence present"
assert_json "$m" '[.[0].nodes.missing[] | select(.node == "n1" and (.reason | test("storage failed")))] | length == 1' "n1 missing because evidence storage failed"
e2e_pm_as "$E2E_USER" show "$job" >"$E2E_WORK/show.first.txt" 2>&1 || e2e_fail "show: $(cat "$E2E_WORK/show.first.txt")"
assert_contains "$E2E_WORK/show.first.txt" "missing input: node n1: evidence storage failed" "show says why n1's evidence is missing"

# space again: the next job on n1 delivers what waited in the spool
rm -f "$E2E_STORE/.filler"
e2e_srun later -N1 -n1 -w n1 true
e2e_wait_for 30 test -f "$d/nodes/n1.tar.zst" || e2e_fail "the pending bundle was not delivered by the next run on n1: $(ls -la "$pend" 2>&1 | paste -sd ' ')"
e2e_wait_for 30 eval '[ "$(jq -c .nodes.present "$d/manifest.json")" = "[\"n1\",\"n2\"]" ]' ||
	e2e_fail "the verdict was not merged again with n1: $(jq -c .nodes "$d/manifest.json")"
e2e_wait_verdict "$job"
e2e_pm_check "$job"
assert_json "$d/manifest.json" '.[0].nodes.missing == [] and .[0].provisional == false' "nothing missing now"
assert_absent "$pend/n1.tar.zst" "the delivered bundle in the spool"
assert_absent "$pend" "the spool's pending folder"
parts=$(e2e_store_partials "$E2E_STORE")
[ -z "$parts" ] || e2e_fail "half-written files left in the store: $parts"
e2e_store_bundles_ok "$E2E_STORE"
txt=$(e2e_fetched_text "$F")
assert_contains "$txt" "pm-e2e-marker: the end of n1's kernel log" "n1's kernel log (the end of it) in the delivered bundle"
assert_v '.cause.class == "application"' "the verdict names the exception"
assert_eq "FAILED 1:0" "$(sacct -n -X -P -j "$job" -o State,ExitCode | tr '|' ' ')" "sacct State ExitCode after the redelivery"
e2e_log "history: $(jq -c '[.history[].why]' "$d/manifest.json")"
