#!/bin/bash
# run.sh SECONDS BUILDDIR WORKDIR [TARGET...] - fuzz each target for SECONDS.
#
# The corpus of each target is WORKDIR/corpus/<target>, seeded by seeds.py when it does not
# exist yet; crashes, leaks and timeouts are written to WORKDIR/artifacts/<target>/ and the
# fuzzer's output to WORKDIR/<target>.log.  JOBS targets run at once (default 2).  Exit 1
# when any target found a bug (FUZZ_ARGS adds libFuzzer options, e.g. -fork=1 -ignore_crashes=1
# to go on past a crash): minimise it with
#   BUILDDIR/<target> -minimize_crash=1 -runs=10000 ARTIFACT
# and save it in tests/fuzz/regress/<target>/ so that `make check` replays it.
set -eu
[ $# -ge 3 ] || { echo "usage: $0 SECONDS BUILDDIR WORKDIR [TARGET...]" >&2; exit 2; }
secs=$1 b=$(cd "$2" && pwd) w=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
[ $# -gt 0 ] || set -- fuzz_sniff_prefix_time fuzz_parsers fuzz_rules fuzz_diagnose fuzz_bundle fuzz_redact
mkdir -p "$w"
w=$(cd "$w" && pwd)
[ -d "$w/corpus" ] || python3 "$here/seeds.py" "$w/corpus"

one() {
	local t=$1 ok=yes runs found
	mkdir -p "$w/corpus/$t" "$w/artifacts/$t"
	# a unit slower than libFuzzer's default of 10 s is written out as a slow-unit-* artifact,
	# which counts as a finding below: one of 1 MiB (a compressed input, decompressed to
	# POSTMORTEM_INPUT_MAX) takes 2.5 s under the sanitizers alone and over 10 s on a loaded
	# host.  Too slow is the timeout's 25 s, which writes timeout-* itself.
	# shellcheck disable=SC2086
	"$b/$t" "$w/corpus/$t" -max_total_time="$secs" -timeout=25 -report_slow_units=25 \
		-rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
		-artifact_prefix="$w/artifacts/$t/" ${FUZZ_ARGS:-} \
		>"$w/$t.log" 2>&1 || ok=no
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$w/$t.log" | tail -n 1)
	[ -n "$runs" ] || runs=$(grep -oE '^#[0-9]+' "$w/$t.log" | tail -n 1 | tr -d '#')
	found=$(find "$w/artifacts/$t" -type f | wc -l)
	if [ "$ok" = yes ] && [ "$found" -eq 0 ]; then
		echo "$t: ok, ${runs:-?} runs in ${secs}s"
		return 0
	fi
	echo "$t: FAILED after ${runs:-?} runs, $found artifact(s) in $w/artifacts/$t; see $w/$t.log:"
	grep -E '^==[0-9]+==ERROR|runtime error|^SUMMARY|^ +#[0-9]+ ' "$w/$t.log" | head -n 20
	return 1
}

rc=0
n=0
pids=""
for t in "$@"; do
	one "$t" &
	pids="$pids $!"
	n=$((n + 1))
	if [ "$n" -ge "${JOBS:-2}" ]; then
		for p in $pids; do wait "$p" || rc=1; done
		n=0
		pids=""
	fi
done
for p in $pids; do wait "$p" || rc=1; done
exit $rc
