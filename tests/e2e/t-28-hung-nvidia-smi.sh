#!/bin/bash
# e2e-timeout: 150
# Scenario 9: on n1, nvidia-smi never returns (as it does on a GPU that hangs the driver):
# the collector's gpu_state and gpu_csv commands block.  The collector must still finish
# inside its own deadline (the epilog returns, the job leaves the queue), kill what it
# started, store n1's bundle with the rest of its evidence, and say timed_out in coverage.
# n2, whose nvidia-smi answers, is unaffected.
. "$(dirname "$0")/lib.sh"

# the sources' own timeouts (60 s) are longer than the deadline: the deadline cuts them
e2e_pm_on "  gpu_state: {command: \"$E2E_FAKEBIN/%n/nvidia-smi -q\", cap: 2MiB, timeout: 60s}" \
	"  gpu_csv: {command: \"$E2E_FAKEBIN/%n/nvidia-smi --query-gpu=index,pci.bus_id,uuid --format=csv\", cap: 256KiB, timeout: 60s}"
e2e_plant_nvsmi n1 'echo "==============NVSMI LOG=============="; exec sleep 3600 # pm-e2e-hung-nvsmi'
e2e_plant_nvsmi n2 'if [ "${1:-}" = -q ]; then printf "==============NVSMI LOG==============\n\nAttached GPUs                             : 2\nGPU 00000000:3B:00.0\n    Product Name                          : NVIDIA H100 80GB HBM3\n    GPU UUID                              : GPU-4be1a000-1c2d-3e4f-5a6b-7c8d9e0f1a2b\n"; else printf "index, pci.bus_id, uuid\n0, 00000000:3B:00.0, GPU-4be1a000-1c2d-3e4f-5a6b-7c8d9e0f1a2b\n1, 00000000:5D:00.0, GPU-a4c123b1-612d-d272-d137-1c17149d4395\n"; fi'
# (a hung nvidia-smi left by anything before this test is not this test's business)
hung() {
	local p
	for p in /proc/[0-9]*; do
		if tr '\0' ' ' <"$p/cmdline" 2>/dev/null | e2e_has "$E2E_FAKEBIN/n1/nvidia-smi"; then
			echo "${p#/proc/}"
		fi
	done | sort
}
before=$(hung)
e2e_train_py >/dev/null
script=$(e2e_batch job.sh)
job=$(e2e_submit main -N2 -n2 --ntasks-per-node=1 -w 'n[1-2]' --export=ALL,PM_PLAN="1=exception;*=timeout" "$script")
e2e_wait_output "$E2E_WORK/main.out" 'Exited with exit code|Aborted' 60
t_end=$(date +%s.%N)
e2e_wait_job "$job"
left=$(awk -v a="$t_end" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')
e2e_log "the job left the queue ${left}s after its last task ended"
# n1's collector spent its deadline waiting for nvidia-smi: it stored its bundle and left
# the merge to the timer (postmortem finalize, run here as the timer would)
d=$(e2e_jobdir "$job")
e2e_wait_for 30 test -f "$d/nodes/n1.tar.zst" || e2e_fail "n1's bundle never reached the store"
if [ "$(jq -r .provisional "$d/manifest.json")" = true ]; then
	out=$(timeout 60 "$E2E_CLI" finalize 2>&1) || e2e_fail "postmortem finalize: $out"
	e2e_log "timer: $(printf '%s' "$out" | grep "/$job/" || true)"
fi
e2e_wait_verdict "$job"
e2e_pm_check "$job"

deadline=${E2E_PM_DEADLINE%s}
run=$(awk -v j="$job" -F'\t' '$2 == j && $3 == "n1" {print $4}' "$E2E_TIMES" | tail -n 1)
e2e_log "collector on n1: ${run:-?} s (deadline ${deadline} s)"
[ -n "$run" ] && [ "$run" != NA ] || e2e_fail "no syslog line of the collector on n1 (the epilog did not finish?)"
awk -v r="$run" -v d="$deadline" 'BEGIN{exit !(r <= d + 0.5)}' || e2e_fail "the collector on n1 ran ${run}s, past its ${deadline}s deadline"
awk -v l="$left" -v d="$deadline" 'BEGIN{exit !(l <= d + 10)}' || e2e_fail "the job stayed ${left}s in the queue"
assert_match '^timed_out ' "$(e2e_cov n1 gpu_state)" "n1 gpu_state coverage"
assert_match '^timed_out ' "$(e2e_cov n1 gpu_csv)" "n1 gpu_csv coverage"
assert_match '^ok' "$(e2e_cov n2 gpu_state)" "n2 gpu_state coverage"
assert_json "$(e2e_jobdir "$job")/manifest.json" '.[0].deadline_hits == ["n1"]' "the manifest records n1's deadline hit"
# what the collector started is gone
new=$(comm -13 <(printf '%s\n' "$before") <(hung) | paste -sd ' ')
[ -z "$new" ] || e2e_fail "the hung nvidia-smi still runs: pid $new"
# and the rest of n1's evidence was kept
assert_v '.cause.class == "application" and .origin.nodes == ["n2"]'
