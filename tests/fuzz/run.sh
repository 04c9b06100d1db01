#!/bin/sh
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
[ $# -gt 0 ] || set -- fuzz_sniff_prefix_time fuzz_parsers fuzz_rules fuzz_diagnose fuzz_bundle
mkdir -p "$w"
w=$(cd "$w" && pwd)
[ -d "$w/corpus" ] || python3 "$here/seeds.py" "$w/corpus"

one() {
	t=$1
	mkdir -p "$w/corpus/$t" "$w/artifacts/$t"
	if "$b/$t" "$w/corpus/$t" -max_total_time="$secs" -timeout=25 -rss_limit_mb=2048 \
		-max_len=65536 -print_final_stats=1 -artifact_prefix="$w/artifacts/$t/" ${FUZZ_ARGS:-} \
		>"$w/$t.log" 2>&1; then
		echo "$t: ok, $(sed -n 's/^stat::number_of_executed_units: *//p' "$w/$t.log") runs"
	else
		echo "$t: FAILED, see $w/$t.log:"
		grep -E 'ERROR|runtime error|SUMMARY|^ +#[0-9]+ ' "$w/$t.log" | head -20
		return 1
	fi
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
