#!/bin/sh
# Scanning benchmark: `postmortem diagnose` against `rg -j1 -c -f` with the bundled rules'
# patterns, on the same generated multi-node logs, one core, several runs; medians.
#   bench/scan.sh [SIZE_MIB...]        (default: 100 1024)
# Needs: a built cli/postmortem (PM_BUILDDIR, default .), ripgrep, python3-yaml.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${PM_BUILDDIR:-$src}
runs=${RUNS:-5}
data=${PM_BENCH_DATA:-/tmp/pm-bench}
pats=$data/patterns.txt
mkdir -p "$data"
python3 "$src/bench/patterns.py" "$src/rules" > "$pats"
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
measure() {	# prints "seconds peak_kib" of one run of "$@"
	/usr/bin/time -f "%e %M" -o "$data/time.out" taskset -c 0 "$@" > /dev/null 2>&1 || true
	cat "$data/time.out"
}
printf '%-8s %-22s %10s %10s %12s\n' size tool seconds peak_MiB MiB/s
for size in ${@:-100 1024}; do
	dir=$data/logs-$size
	[ -d "$dir" ] || python3 "$src/bench/gen_logs.py" "$dir" "$size"
	bytes=$(du -sb "$dir" | cut -f1)
	for tool in postmortem rg; do
		: > "$data/runs"
		i=0
		while [ $i -lt "$runs" ]; do
			if [ $tool = postmortem ]; then
				measure "$build/cli/postmortem" diagnose "$dir" >> "$data/runs"
			else
				measure rg -j1 -c --auto-hybrid-regex -f "$pats" "$dir" >> "$data/runs"
			fi
			i=$((i + 1))
		done
		s=$(cut -d' ' -f1 "$data/runs" | median)
		m=$(cut -d' ' -f2 "$data/runs" | median)
		printf '%-8s %-22s %10s %10s %12s\n' "${size}MiB" "$tool" "$s" \
			"$(echo "$m/1024" | bc)" "$(echo "scale=0; $bytes/1048576/$s" | bc)"
		eval "t_$tool=$s"
	done
	printf '%-8s %-22s %10s\n' "${size}MiB" "ratio postmortem/rg" "$(echo "scale=3; $t_postmortem/$t_rg" | bc)"
done
