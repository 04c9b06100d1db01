#!/bin/bash
# e2e-timeout: 200
# Fault (issue 7): the nodes' clocks disagree by several seconds.  One node's clock is off by
# 8 s: its collector runs under faketime with that offset and its kernel log is stamped with
# its own clock.  GPU 0 of n2 falls off the bus (Xid 79, as t-21); the ranks on n1 time out
# in NCCL ~6 s later.
#   A: n2's clock 8 s behind: its Xid is stamped 14 s before n1's timeouts.
#   B: n2's clock 8 s ahead: its Xid is stamped 2 s after n1's timeouts (and after the job's
#      end as the controller saw it, beyond the skew tolerance).
# The verdict must name n2's GPU as the origin with n1 a bystander, or say that the skew
# made it uncertain (ambiguous, within the skew tolerance); it never blames n1.  Either way
# it cites the case's own Xid (the kernel logs start afresh for each case, so that A's Xid,
# within B's window, cannot stand in for B's) and says that n2's clock is off: the engine
# estimates it from n2's collection start, on n2's clock, against the job's end in the
# accounting record (engine/ATTRIBUTION.md, phase 4).  The jobs' own results are what Slurm
# gives without the plugin (t-57).
. "$(dirname "$0")/lib.sh"

SKEW=8
command -v faketime >/dev/null ||
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends faketime >/dev/null 2>&1 ||
	e2e_skip "faketime is not installed and could not be"
e2e_pm_on_faulty
e2e_train_py >/dev/null
script=$(e2e_batch job.sh --kill-on-bad-exit=1)
bstart() { # JOB NODE: when NODE's collector began, by its own clock (epoch seconds)
	zstdcat "$(e2e_jobdir "$1")/nodes/$2.tar.zst" | tar -xOf - manifest.json |
		jq -r '.collected.start | sub("\\.[0-9]+Z$"; "Z") | fromdateiso8601'
}

skewed_job() { # OFFSET (+8 or -8): sets job
	local off=$1
	e2e_klog_init # this case's Xid only
	printf '%s\n' "$off" >"$E2E_FAULTS/skew.n2"
	job=$(e2e_submit "main$off" -N2 -n4 --ntasks-per-node=2 -w 'n[1-2]' \
		--export=ALL,PM_PLAN="0=timeout;1=timeout;2=hang;3=hang",PM_WD=6 "$script")
	e2e_wait_output "$E2E_WORK/main$off.out" '^2: .*step 3/' 60
	pid2=$(grep -oE '^2: n2:[0-9]+' "$E2E_WORK/main$off.out" | head -n 1 | cut -d: -f3)
	pid2=${pid2:-1911}
	n2klog() { printf '%s %s\n' "$(date -u -d "$off sec" +%Y-%m-%dT%H:%M:%S,%6N+00:00)" "$1" >>"$E2E_KLOG/n2.log"; }
	n2klog "NVRM: GPU at PCI:0000:3b:00: GPU-4be1a000-1c2d-3e4f-5a6b-7c8d9e0f1a2b"
	n2klog "NVRM: Xid (PCI:0000:3b:00): 79, pid=$pid2, name=python3, GPU has fallen off the bus."
	n2klog "NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus."
	e2e_wait_job "$job"
	e2e_wait_verdict "$job"
	e2e_pm_check "$job"
	assert_match "^FAILED (15|134):0$" "$(sacct -n -X -P -j "$job" -o State,ExitCode | tr '|' ' ')" "job $job: sacct State ExitCode"
	# the skew is real: n2's collector stamped its bundle that far from n1's
	local s1 s2
	s1=$(bstart "$job" n1) s2=$(bstart "$job" n2)
	e2e_log "job $job: n2's clock $off s: collection start n2 - n1 = $((s2 - s1)) s"
	[ $(((s2 - s1) * ${off:0:1}1)) -ge $((SKEW - 3)) ] || e2e_fail "n2's collector did not run with a skewed clock (n2 - n1 = $((s2 - s1)) s)"
	e2e_log "job $job: $(vj .status) $(vj .cause.class)/$(vj .cause.subclass) origin $(vj '.origin.nodes | tojson') conf $(vj .confidence)"
}
# right: the GPU loss on n2, or ambiguous because of the skew; n1 never blamed
verdict_ok() {
	# the case's own Xid supports the lead, and the verdict says n2's clock is off
	[ "$(json "$V" '.[0] | . as $v | [.candidates[0].supporting[] as $id | $v.evidence[] |
		select(.id == $id and .rule == "xid-79-fallen-off-bus" and .node == "n2") |
		.line | test("pid=" + $p + ",")] | any' --arg p "$pid2")" = true ] || return 1
	[ "$(vj '[.why[] | select(test("skew") and test("n2"))] | length > 0')" = true ] || return 1
	case $(vj .status) in
	attributed) [ "$(vj '.cause.class + "/" + .cause.subclass + " " + (.origin.nodes | tojson)')" = 'gpu_hardware/gpu_lost ["n2"]' ] &&
		[ "$(vj '.bystanders.nodes | hosts | index("n1") != null')" = true ] ;;
	ambiguous) [ "$(vj '[.why | .. | strings | test("skew")] | any')" = true ] &&
		[ "$(vj '.origin.nodes | index("n1") == null')" = true ] ;;
	*) false ;;
	esac
}

skewed_job -8
verdict_ok || e2e_fail "n2 8 s behind: the verdict is not the GPU loss on n2: $(vj '{status, cause, origin, why} | tojson' | head -c 800)"
assert_v '(.origin.nodes | index("n1")) == null' "n1 not blamed"

skewed_job +8
verdict_ok || e2e_fail "n2 8 s ahead: the verdict is not the GPU loss on n2 (its Xid, stamped after the job's end), with a word of n2's clock skew: $(vj '{status, cause, origin, why} | tojson' | head -c 1200)"
assert_v '(.origin.nodes | index("n1")) == null' "n1 not blamed"
