#!/bin/bash
# e2e-timeout: 300
# Scenario 13: a node is lost mid-job: n2's slurmd dies (SIGKILL by its pid file) while a
# 2-node job trains, and with SlurmdTimeout=30 the controller declares n2 down and ends the
# job NODE_FAIL.  n1's collector stores its evidence and writes a provisional verdict: n2 is
# named, its evidence recorded as missing ("never reported").  When n2 comes back (its
# slurmd restarted) its evidence arrives late; with `postmortem finalize` the verdict is
# merged again, final, its change recorded with the reason, and the comment set.
# Each node has its own spool (spool=<spool>/%n, in the plugin and the collector alike, as
# nodes sharing one machine must; the suite's default, lib.sh): n1's bundle holds n1's ranks
# and task exits only, and n2's task exits are n2's to report (in its late bundle) or honestly
# absent, never lost with n1's cleanup nor reported by n1.
. "$(dirname "$0")/lib.sh"

e2e_pm_on
e2e_log "plugin: $(e2e_plugin_show)"
# the records of NODE's bundle B: "<step> <node> <rank>" per line, sorted
bundle_records() { # BUNDLE KIND (rankmap|taskexit)
	zstdcat "$1" | tar -xOf - --wildcards "sources/rank_map/$2.*" 2>/dev/null |
		jq -r '"\(.step) \(.node) \(.rank)"' | LC_ALL=C sort
}
e2e_train_py >/dev/null
script=$(e2e_batch job.sh)
restore_n2() { "$E2E_CLUSTER/node" start n2 >>"$E2E_WORK/cluster.log" 2>&1 || true; }
trap 'restore_n2; e2e_pm_config; e2e_syslog_stop' EXIT
job=$(e2e_submit main -N2 -n4 --ntasks-per-node=2 -w 'n[1-2]' --no-requeue --time=4 \
	--export=ALL,PM_PLAN="*=train",PM_STEP=0.5 "$script")
e2e_wait_output "$E2E_WORK/main.out" '^3: .*step 4/' 60
# both nodes' tasks are recorded, each in its own node's spool
e2e_wait_for 10 test -s "$E2E_SPOOL/n2/$job/rankmap.0.jsonl" ||
	e2e_fail "no rank map in n2's own spool: $(find "$E2E_SPOOL" -maxdepth 3 2>&1 | paste -sd ' ')"
assert_absent "$E2E_SPOOL/$job" "a job folder in the shared spool root"
e2e_cluster node kill n2
t_kill=$(date +%s)
e2e_log "slurmd n2 killed; waiting for the controller to declare it down"
E2E_WAIT_TIMEOUT=150 e2e_wait_job "$job"
e2e_log "job $job ended $(($(date +%s) - t_kill))s after the kill: $(sacct -n -X -P -j "$job" -o State,ExitCode)"
assert_eq NODE_FAIL "$(sacct -n -X -P -j "$job" -o State)" "sacct State"

# n1 arrived, n2 never: a provisional verdict naming n2, its evidence missing
d=$(e2e_jobdir "$job")
e2e_wait_for 60 test -f "$d/verdict.json" || e2e_fail "no verdict for job $job: $(ls "$d" 2>&1)"
cp "$d/manifest.json" "$E2E_WORK/manifest.provisional.json"
cp "$d/verdict.json" "$E2E_WORK/verdict.provisional.json"
m=$E2E_WORK/manifest.provisional.json
assert_json "$m" '.[0].provisional == true' "the first verdict is provisional"
assert_json "$m" '.[0].nodes.present == ["n1"]' "n1's evidence present"
assert_json "$m" '[.[0].nodes.missing[] | select(.node == "n2")] | length == 1' "n2's evidence recorded as missing"
e2e_log "missing: $(json "$m" '.[0].nodes.missing | tojson')"
V=$E2E_WORK/verdict.provisional.json
assert_v '.outcome == "NODE_FAIL"'
assert_v '(.origin.nodes | index("n2")) != null' "n2 named in the origin"
assert_v '.cause.class == "host_hardware" and .cause.subclass == "node_fail"'
e2e_pm_as "$E2E_USER" show "$job" >"$E2E_WORK/show.provisional.txt" 2>&1 || e2e_fail "show (provisional): $(cat "$E2E_WORK/show.provisional.txt")"
assert_contains "$E2E_WORK/show.provisional.txt" "PROVISIONAL" "show says the verdict is provisional"
assert_contains "$E2E_WORK/show.provisional.txt" "missing input: node n2" "show names the missing node"

# n1 reported n1's ranks only: its records are its own
r1=$(bundle_records "$d/nodes/n1.tar.zst" rankmap)
e2e_log "n1's rank map: $(printf '%s' "$r1" | paste -sd ',')"
assert_eq "$(printf '0 n1 0\n0 n1 1\nbatch n1 0')" "$r1" "n1's bundle: n1's ranks"
t1=$(bundle_records "$d/nodes/n1.tar.zst" taskexit)
[ -z "$(printf '%s\n' "$t1" | awk 'NF && $2 != "n1"')" ] || e2e_fail "n1's bundle holds task exits of another node: $t1"
# n2's records are still in n2's spool, not removed with n1's evidence
[ -s "$E2E_SPOOL/n2/$job/rankmap.0.jsonl" ] ||
	e2e_fail "n2's spool lost its records: $(ls -la "$E2E_SPOOL/n2/$job" 2>&1 | paste -sd ' ')"

# n2 comes back: its slurmd restarts; the timer (postmortem finalize) merges again
restore_n2
e2e_log "n2 back after $(($(date +%s) - t_kill))s"
if e2e_wait_for 30 test -f "$d/nodes/n2.tar.zst"; then
	# n2's own report: its ranks (2, 3), and the exits it saw of them, nobody else's
	r2=$(bundle_records "$d/nodes/n2.tar.zst" rankmap)
	t2=$(bundle_records "$d/nodes/n2.tar.zst" taskexit)
	e2e_log "n2's late bundle: rank map $(printf '%s' "$r2" | paste -sd ','); task exits $(printf '%s' "$t2" | paste -sd ',')"
	assert_eq "$(printf '0 n2 2\n0 n2 3')" "$r2" "n2's bundle: n2's ranks"
	[ -z "$(printf '%s\n' "$t2" | awk 'NF && !($1 == "0" && $2 == "n2" && ($3 == 2 || $3 == 3))')" ] ||
		e2e_fail "n2's bundle holds task exits that are not its ranks': $t2"
	n2exits=present
else
	e2e_log "n2 ran no epilog for the job after its return (no late bundle)"
	n2exits=absent
fi
out=$(timeout 60 "$E2E_CLI" finalize "$job" --force 2>&1) || e2e_fail "postmortem finalize $job: $out"
e2e_log "finalize: $out"
e2e_wait_verdict "$job"
e2e_pm_check "$job"
assert_json "$d/manifest.json" '.[0].provisional == false' "the verdict is final"
assert_json "$d/manifest.json" '(.[0].history | length) >= 1 and all(.[0].history[]; (.why | length) > 0)' "the change is recorded with its reason"
e2e_log "history: $(jq -c '[.history[].why]' "$d/manifest.json")"
assert_v '.outcome == "NODE_FAIL"'
assert_v '.cause.class == "host_hardware" and .cause.subclass == "node_fail"'
assert_v '(.origin.nodes | index("n2")) != null' "n2 named in the origin"
assert_match "^postmortem: [a-z]+ host_hardware/node_fail origin=n2[: ].* ev=pmlab/$job/0$" "$C" "comment"
# n2's task exits: what n2 reported, or, without its bundle, missing with a reason
if [ "$n2exits" = absent ]; then
	assert_json "$d/manifest.json" '[.[0].nodes.missing[] | select(.node == "n2" and (.reason | length) > 0)] | length == 1' "n2 missing, with a reason"
else
	assert_json "$d/manifest.json" '(.[0].nodes.present | index("n2")) != null' "n2's late evidence merged"
fi
