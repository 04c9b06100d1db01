#!/bin/sh
# Finalizer at scale: one job run of NODES node bundles (RANKS per node) in a store on disk
# (bench/gen_store.py), merged into a verdict two ways:
#   diagnose   `postmortem diagnose --json <jobdir>/nodes`: the engine's merge alone
#   finalize   `postmortem finalize JOB --force`: the finalizer's whole merge (each bundle
#              checked alone, then added; Slurm asked through stubs that answer at once with a
#              FAILED record; verdict.json and manifest.json written, the comment set)
#   bench/finalize.sh [NODES [RANKS]]        (default 4096 8)
# CARRY=1: the same store with each bundle's carried scan (engine/FORMATS.md, "Carried scans"),
# as collectors with carry_scans: true write it: a copy, store-NODES-RANKS-carried, made by
# bench/carry_store (built by make check; `make bench/carry_store` after an engine change) with
# this rule set, again whenever either changed.
# PM_BUILDDIR=<build dir>, RUNS (default 3), PM_BENCH_DATA (default /tmp/pm-bench), PRIO (a
# SCHED_FIFO priority for chrt, e.g. 10: on a shared machine other work cannot preempt the run).
# Each run reads the bundles once first: a merge right after its collectors finds them in the
# page cache, and a cold read times the disk (on the development VM, whose kernel reclaims
# cache it sees unused within seconds, a fifth of a 16,384-node merge waited for it).
set -eu
. "$(dirname "$0")/lib.sh"
nodes=${1:-4096}
rpn=${2:-8}
store=$data/store-$nodes-$rpn
jobdir=$store/bench/700001/0
need "$pm"
[ -d "$jobdir/nodes" ] || python3 "$src/bench/gen_store.py" "$store" "$nodes" "$rpn"
if [ "${CARRY:-0}" = 1 ]; then
	need "$build/bench/carry_store"
	# ... and from carry_store's own engine: `make bench/carry_store` alone rebuilds the engine
	# beside a postmortem left stale, whose merge would refuse every record (its identity,
	# PM_ENGINE_ID, is a digest of the engine's sources)
	id_of() { grep -aoE '[0-9]+\.[0-9]+\.[0-9]+\+[0-9a-f]{16}' "$1" | head -n 1; }
	if [ "$(id_of "$build/bench/carry_store")" != "$(id_of "$pm")" ]; then
		echo "bench/carry_store and $pm are of different engine builds: make both" >&2
		exit 1
	fi
	# a record is taken only from the engine and rules that made it (its key): the copy is
	# made again whenever carry_store (linked with the engine) or the rules changed, else
	# every record would be refused and the run would time a plain merge
	stamp=$( (cat "$build/bench/carry_store"; find "$src/rules" -name '*.yaml' | sort | xargs cat) |
		sha256sum | cut -c1-16)
	if [ "$(cat "$store-carried/.carried" 2>/dev/null)" != "$stamp" ]; then
		rm -rf "$store-carried" "$store-carried.tmp"
		cp -a "$store" "$store-carried.tmp"
		find "$store-carried.tmp/bench/700001/0/nodes" -name '*.tar.zst' | sort |
			xargs "$build/bench/carry_store" "$src/rules" 2026-11-30T03:39:58
		echo "$stamp" > "$store-carried.tmp/.carried"
		mv "$store-carried.tmp" "$store-carried"
	fi
	store=$store-carried
	jobdir=$store/bench/700001/0
fi

bin=$data/finalize-bin
mkdir -p "$bin"
first=$(head -n 1 "$jobdir/expected")
last=$(tail -n 1 "$jobdir/expected")
cat > "$bin/sacct" <<EOF
#!/bin/sh
case "\$*" in
*'-o Start'*) echo 2026-11-30T03:39:58 ;;
*-n*) echo "" ;;
*) echo 'JobID|JobIDRaw|State|ExitCode|Start|End|NodeList|NNodes|NTasks|AllocTRES|ReqTRES|FailedNode|Cluster|UID|Reason'
   echo '700001|700001|FAILED|1:0|2026-11-30T03:39:58|2026-11-30T05:21:40|gpu[${first#gpu}-${last#gpu}]|$nodes|$((nodes * rpn))|cpu=$((nodes * 96)),gres/gpu=$((nodes * rpn)),node=$nodes|gres/gpu=$((nodes * rpn))||bench|1000|None' ;;
esac
EOF
printf '#!/bin/sh\necho " Modified jobs..."\n' > "$bin/sacctmgr"
printf '#!/bin/sh\nexit 0\n' > "$bin/scontrol"
chmod 755 "$bin"/*
printf 'store: %s\nrules: %s/rules\n' "$store" "$src" > "$data/finalize.yaml"

prio=${PRIO:+chrt -f $PRIO}
warm() { find "$jobdir/nodes" -type f -exec cat {} + > /dev/null; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
measure() {	# "wall cpu peak_kib" of "$@"
	warm
	/usr/bin/time -f "%e %U %S %M" -o "$data/time.out" $prio "$@" > "$data/out" 2>&1 || true
	tail -n 1 "$data/time.out" | awk '{print $1, $2 + $3, $4}'
}
report() {	# NAME
	printf '%-10s %6s nodes %6s ranks: wall %6s s  cpu %6s s  peak %4s MiB  (%d runs)\n' "$1" \
		"$nodes" "$((nodes * rpn))" "$(cut -d' ' -f1 "$data/runs" | median)" \
		"$(cut -d' ' -f2 "$data/runs" | median)" \
		"$(($(cut -d' ' -f3 "$data/runs" | median) / 1024))" "$runs"
}

: > "$data/runs"
i=0
while [ $i -lt "$runs" ]; do
	measure "$pm" diagnose --json --rules "$src/rules" "$jobdir/nodes" >> "$data/runs"
	i=$((i + 1))
done
report diagnose
cp "$data/out" "$data/verdict-$nodes.json"

: > "$data/runs"
i=0
while [ $i -lt "$runs" ]; do
	rm -rf "$jobdir/verdict.json" "$jobdir/manifest.json" "$jobdir/history" "$jobdir/sacct.txt" \
		"$jobdir/comment" "$jobdir/comment.pending" "$jobdir/merging"
	PATH=$bin:$PATH measure "$pm" finalize 700001 --force --config "$data/finalize.yaml" >> "$data/runs"
	i=$((i + 1))
done
report finalize
sed 's/^/  /' "$data/out"
python3 - "$data/verdict-$nodes.json" <<'EOF'
import json, sys
v = json.load(open(sys.argv[1]))
print("  verdict: %s %s/%s (%s), origin %s, %d evidence items, %d coverage entries, %d bytes"
      % (v["status"], v["cause"]["class"], v["cause"]["subclass"], v["confidence"],
         v["origin"]["nodes"], len(v["evidence"]), len(v["coverage"]),
         len(open(sys.argv[1]).read())))
EOF
