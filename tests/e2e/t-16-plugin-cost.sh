#!/bin/bash
# e2e-timeout: 600
# A measurement, not an assertion: the wall time of `srun -n64` (overcommitted over every
# node of the cluster, `true` as the task) 10 times with the plugin on and 10 times off, in
# alternating blocks of 5 (every plugin change restarts the slurmds), each run a job of its
# own.  The median and spread of the paired differences (on - off) go to
# tests/e2e/results/plugin-cost.txt.  Never fails on timing; fails only when a run fails.
. "$(dirname "$0")/lib.sh"

REPS=${PM_E2E_COST_REPS:-10}
BLOCK=${PM_E2E_COST_BLOCK:-5}
nodes=$(sinfo -h -N -p debug -o %N | sort -u | wc -l)
SRUN=(-N"$nodes" -n64 --overcommit /bin/true)
on=() off=() recs=()
mode=
run() { # on|off
	if [ "$mode" != "$1" ]; then
		if [ "$1" = on ]; then e2e_plugin_on; else e2e_plugin_off; fi
		mode=$1
		# one untimed run after each restart: the first step after a restart pays for it
		e2e_srun "warm-$1" "${SRUN[@]}"
		assert_eq 0 "$E2E_RC" "warm-up srun ($1)$(printf '\n%s' "$(tail -n 5 "$E2E_ERR")")"
	fi
	e2e_srun "$1" "${SRUN[@]}"
	assert_eq 0 "$E2E_RC" "srun -n64 ($1)$(printf '\n%s' "$(tail -n 5 "$E2E_ERR")")"
	if [ "$1" = on ]; then
		on+=("$E2E_SECS")
		recs+=("$(cat "$(e2e_records "$E2E_JOB" rankmap 0)" 2>/dev/null | wc -l)/$(cat "$(e2e_records "$E2E_JOB" taskexit 0)" 2>/dev/null | wc -l)")
	else
		off+=("$E2E_SECS")
	fi
}
done_on=0 done_off=0
while [ "$done_on" -lt "$REPS" ] || [ "$done_off" -lt "$REPS" ]; do
	for ((i = 0; i < BLOCK && done_on < REPS; i++)); do run on; done_on=$((done_on + 1)); done
	for ((i = 0; i < BLOCK && done_off < REPS; i++)); do run off; done_off=$((done_off + 1)); done
done

mkdir -p "$E2E_RESULTS"
out=$E2E_RESULTS/plugin-cost.txt
python3 - "$nodes" "${on[*]}" "${off[*]}" "${recs[*]}" >"$out.tmp" <<'PY'
import statistics as st, sys, time, platform, os
nodes = sys.argv[1]
on = [float(x) for x in sys.argv[2].split()]
off = [float(x) for x in sys.argv[3].split()]
recs = sys.argv[4].split()
d = [a - b for a, b in zip(on, off)]
def q(v, p):
    v = sorted(v); k = (len(v) - 1) * p; f = int(k); c = min(f + 1, len(v) - 1)
    return v[f] + (v[c] - v[f]) * (k - f)
def line(name, v):
    return (f"{name:<14} median {st.median(v)*1000:8.1f} ms   min {min(v)*1000:8.1f}   "
            f"p25 {q(v,.25)*1000:8.1f}   p75 {q(v,.75)*1000:8.1f}   max {max(v)*1000:8.1f}")
print("# postmortem SPANK plugin: wall time of srun -n64 --overcommit /bin/true as pmuser,")
print(f"# across {nodes} slurmd nodes of the local cluster (one machine, {os.cpu_count()} CPUs),")
print("# each run a job of its own; 10 runs with the plugin on, 10 off, alternating blocks of 5.")
print("# The plugin writes 64 rank map + 64 task exit records per run. A measurement, not a test.")
print(f"# {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} {platform.node()}")
print(line("plugin on", on))
print(line("plugin off", off))
print(line("on - off", d))
print(f"difference of medians: {(st.median(on)-st.median(off))*1000:+.1f} ms "
      f"({(st.median(on)/st.median(off)-1)*100:+.1f} %); per task: {(st.median(on)-st.median(off))/64*1e6:+.0f} us")
print("runs on  (s):", " ".join(f"{x:.3f}" for x in on))
print("runs off (s):", " ".join(f"{x:.3f}" for x in off))
print("records per run with the plugin on (rankmap/taskexit):", " ".join(recs))
PY
mv -f "$out.tmp" "$out"
cat "$out"
