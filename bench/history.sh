#!/bin/sh
# history.sh - the node history's read times (issue 17's targets: one node's recent history in
# 10 ms with 100,000 job runs in the store, the fleet view of 4,096 nodes with a week of
# verdicts in 2 s).  Generates a store (bench/gen_history.py), then times the library's reads
# (bench/history_read) and `postmortem nodes` itself, text and --json.
#
#   PM_BUILDDIR=/tmp/b bench/history.sh [DIR] [NODES] [RUNS] [DAYS] [LAYOUT]
#
# LAYOUT flat: the records without day folders, as versions before them wrote them (the
# readers still read those).
set -eu
: "${PM_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${PM_BUILDDIR:=$PM_SRCDIR}"
dir=${1:-${TMPDIR:-/tmp}/pm-history-bench}
nodes=${2:-4096}
runs=${3:-100000}
days=${4:-14}
layout=${5:-day}
now=2026-12-07T00:53:20Z # the generator's NOW, 1796600000
[ -d "$dir/.history" ] ||
	python3 "$PM_SRCDIR/bench/gen_history.py" "$dir" "$nodes" "$runs" "$days" 400 "$layout"
echo "store $dir: $(find "$dir/.history" -type f | wc -l) records, $(ls "$dir/.history" | wc -l) nodes, $(find "$dir/.history" -mindepth 2 -type d | wc -l) day folders"
"$PM_BUILDDIR/bench/history_read" "$dir"
"$PM_BUILDDIR/bench/history_read" "$dir" gpu12345
"$PM_BUILDDIR/bench/history_read" "$dir" gpu12481 # the skew's worst: 16,978 records in 14 days
for args in "" "--json" "--node gpu10000"; do
	s=$(date +%s.%N)
	"$PM_BUILDDIR/cli/postmortem" nodes --store "$dir" --now $now $args >"$dir.out"
	e=$(date +%s.%N)
	printf 'postmortem nodes %s: %s lines, %.3f s\n' "$args" "$(wc -l <"$dir.out")" \
		"$(echo "$e - $s" | bc)"
done
head -n 6 "$dir.out"
