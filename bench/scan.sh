#!/bin/sh
# Scanning benchmark: `postmortem diagnose` against `rg -j1 -c -f` with the bundled rules'
# patterns, on the same generated multi-node logs, pinned to one core, several runs; medians.
#   bench/scan.sh [SIZE_MIB...]        (default: 100 1024)
# Baselines: `rg` (its default engine) with the patterns it can run (those without
# look-around), and, with RG_PCRE2=1, `rg --auto-hybrid-regex` with every pattern (PCRE2 for
# the look-around; minutes at 1 GiB: one run).  Wall time and CPU time (user + sys: on a
# shared machine the wall time also counts other tenants) are both reported, with ratios.
# Needs: a built cli/postmortem (PM_BUILDDIR, default .), ripgrep, python3-yaml.
# RUNS (default 5), CPU (the cores for taskset, default 0; 0,1 lets the digest thread run
# beside the scan), PRIO (a SCHED_FIFO priority for chrt, e.g. 10: on a shared machine other
# tenants then cannot preempt the runs), PM_BENCH_DATA (default /tmp/pm-bench).
set -eu
. "$(dirname "$0")/lib.sh"
runs=${RUNS:-5}
core=${CPU:-0}
prio=${PRIO:+chrt -f $PRIO}
mkdir -p "$data"
python3 "$src/bench/patterns.py" "$src/rules" > "$data/patterns.txt"
python3 "$src/bench/patterns.py" "$src/rules" --no-lookaround > "$data/patterns-nolook.txt"
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
measure() {	# appends "wall cpu peak_kib" of one run of "$@" to $data/runs
	/usr/bin/time -f "%e %U %S %M" -o "$data/time.out" $prio taskset -c "$core" "$@" > /dev/null 2>&1 || true
	tail -n 1 "$data/time.out" | awk '{print $1, $2 + $3, $4}' >> "$data/runs"
}
printf '%-8s %-34s %8s %8s %9s %8s\n' size tool wall_s cpu_s peak_MiB MiB/s
for size in ${@:-100 1024}; do
	dir=$data/logs-$size
	[ -d "$dir" ] || python3 "$src/bench/gen_logs.py" "$dir" "$size"
	bytes=$(du -sb "$dir" | cut -f1)
	tools="postmortem rg"
	[ "${RG_PCRE2:-0}" = 1 ] && tools="$tools rg-pcre2"
	for tool in $tools; do
		: > "$data/runs"
		n=$runs
		case $tool in
		postmortem) label="postmortem diagnose" ;;
		rg) label="rg, $(wc -l < "$data/patterns-nolook.txt") patterns w/o look-around" ;;
		rg-pcre2) label="rg --auto-hybrid-regex, all $(wc -l < "$data/patterns.txt")"; n=1 ;;
		esac
		i=0
		while [ $i -lt "$n" ]; do
			case $tool in
			postmortem) measure "$build/cli/postmortem" diagnose --rules "$src/rules" "$dir" ;;
			rg) measure rg -j1 -c -f "$data/patterns-nolook.txt" "$dir" ;;
			rg-pcre2) measure rg -j1 -c --auto-hybrid-regex -f "$data/patterns.txt" "$dir" ;;
			esac
			i=$((i + 1))
		done
		w=$(cut -d' ' -f1 "$data/runs" | median)
		c=$(cut -d' ' -f2 "$data/runs" | median)
		m=$(cut -d' ' -f3 "$data/runs" | median)
		printf '%-8s %-34s %8s %8s %9s %8s\n' "${size}MiB" "$label" "$w" "$c" \
			"$((m / 1024))" "$(echo "scale=0; $bytes / 1048576 / $w" | bc)"
		eval "w_$(echo $tool | tr - _)=$w c_$(echo $tool | tr - _)=$c"
	done
	for base in $tools; do
		[ "$base" = postmortem ] && continue
		b=$(echo $base | tr - _)
		printf '%-8s %-34s %8s %8s\n' "${size}MiB" "ratio postmortem/$base" \
			"$(eval "echo \"scale=3; \$w_postmortem / \$w_$b\"" | bc)" \
			"$(eval "echo \"scale=3; \$c_postmortem / \$c_$b\"" | bc)"
	done
done
