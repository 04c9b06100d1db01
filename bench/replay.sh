#!/bin/sh
# Replay: JOBS archived job runs (bench/gen_store.py: NODES node bundles of 8 ranks each, the
# failing node moving from job to job), finalized once under the bundled rules, then replayed
# under a revised rule set (a copy of rules/ with a new version and the Xid 79 rule retired,
# so that every verdict changes).  Reports jobs per second of
# `postmortem replay` (read-only: no --apply).
#   bench/replay.sh [JOBS [NODES]]       (default 1000 2)
# PM_BUILDDIR=<build dir>, RUNS (default 3), PM_BENCH_DATA (default /tmp/pm-bench).
set -eu
. "$(dirname "$0")/lib.sh"
jobs=${1:-1000}
nodes=${2:-2}
store=$data/replay-$jobs-$nodes
need "$pm"

bin=$data/replay-bin
mkdir -p "$bin"
cat > "$bin/sacct" <<'EOF'
#!/bin/sh
# Slurm's record of any job asked for: FAILED, final
job=
while [ $# -gt 0 ]; do [ "$1" = -j ] && job=$2; shift; done
echo 'JobID|JobIDRaw|State|ExitCode|Start|End|NodeList|NNodes|NTasks|AllocTRES|ReqTRES|FailedNode|Cluster|UID|Reason'
echo "$job|$job|FAILED|1:0|2026-11-30T03:39:58|2026-11-30T05:21:40|gpu[10000-10001]|2|16|cpu=192,gres/gpu=16,node=2|gres/gpu=16||bench|1000|None"
EOF
printf '#!/bin/sh\nexit 0\n' > "$bin/sacctmgr"
printf '#!/bin/sh\nexit 0\n' > "$bin/scontrol"
chmod 755 "$bin"/*
printf 'store: %s\nrules: %s/rules\n' "$store" "$src" > "$data/replay.yaml"
if [ ! -d "$store" ]; then
	python3 "$src/bench/gen_store.py" "$store" "$nodes" 8 "$jobs" > /dev/null
	# the finalize timer merges every run whose nodes are all in
	t0=$(date +%s.%N)
	PATH=$bin:$PATH "$pm" finalize --config "$data/replay.yaml" > "$data/finalize.out" 2>&1 || true
	t1=$(date +%s.%N)
	echo "finalized $(grep -c merged "$data/finalize.out") of $jobs runs in $(echo "$t1 - $t0" | bc) s (one process)"
fi
# the revised rule set: a new version, and the Xid 79 rule retired (every verdict changes)
rules=$data/rules-revised
rm -rf "$rules"
cp -r "$src/rules" "$rules"
rm -rf "$rules/fixtures"
sed -i 's/^version: .*/version: "2-bench"/' "$rules/ruleset.yaml"
python3 - "$rules/gpu.yaml" <<'EOF'
import sys
p = sys.argv[1]
s = open(p).read()
i = s.index("  - id: xid-79-fallen-off-bus\n")
j = s.index("\n", i) + 1
s = s[:j] + "    deprecated: true\n" + s[j:]
open(p, "w").write(s)
EOF

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
: > "$data/runs"
i=0
while [ $i -lt "$runs" ]; do
	/usr/bin/time -f "%e %U %S %M" -o "$data/time.out" \
		"$pm" replay --rules "$rules" --store "$store" --config "$data/replay.yaml" \
		> "$data/replay.out" 2>&1 || true
	tail -n 1 "$data/time.out" | awk '{print $1, $2 + $3, $4}' >> "$data/runs"
	i=$((i + 1))
done
wall=$(cut -d' ' -f1 "$data/runs" | median)
cpu=$(cut -d' ' -f2 "$data/runs" | median)
echo "replay of $jobs runs ($nodes nodes, $((nodes * 8)) ranks each): wall $wall s, cpu $cpu s," \
	"$(echo "scale=0; $jobs / $wall" | bc) jobs/s, peak $(($(cut -d' ' -f3 "$data/runs" | median) / 1024)) MiB ($runs runs)"
tail -n 2 "$data/replay.out"
