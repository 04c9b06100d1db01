#!/bin/sh
# Collector benchmark: the built postmortem-epilog on a fake node, wall time and where it went.
#   bench/collector.sh [MODE...]      MODE: healthy, hung, hung-5s (default: all three)
# healthy: nvidia-smi answers at once; hung: nvidia-smi never answers (a stand-in that sleeps),
# with the default deadline (30 s) and source timeouts; hung-5s: the same with `deadline: 5s`.
# The node: 8 ranks (rank map and task exits in the spool, as the plugin writes them, plus the
# batch step), OUT_MIB (default 256) MiB of `srun --label` job output (bench/gen_logs.py, one
# node), a kernel log file, a 16 MiB slurmd log, and stub sacct/sacctmgr/scontrol on PATH so
# that the real cluster is never asked.  Every source keeps its default cap and timeout.  The
# job has two nodes and only this one reports: the store gets the bundle and a provisional
# verdict, as on a real first arrival.  Needs root (the spool must be root's), zstd, tar.
# PM_BUILDDIR=<build dir>, RUNS (default 3), PM_BENCH_DATA (default /tmp/pm-bench).
set -eu
. "$(dirname "$0")/lib.sh"
size=${OUT_MIB:-256}
work=$data/collector
job=900001
node=gpu100
epilog=$build/epilog/postmortem-epilog
need "$epilog"
[ "$(id -u)" = 0 ] || { echo "run as root: the spool must be root's" >&2; exit 2; }

mkdir -p "$work/bin"
# job output: one node, 8 ranks, SIZE MiB; its kernel log from the same generator
if [ ! -f "$work/out-$size/$node-slurm-$job.out" ]; then
	python3 "$src/bench/gen_logs.py" "$work/out-$size" "$size" 1
fi
out=$work/out-$size/$node-slurm-$job.out
cp "$work/out-$size/$node-kernel.log" "$work/kern.log"
# slurmd log: 16 MiB of other jobs, a few lines of ours at the end
if [ ! -f "$work/slurmd.log" ]; then
	python3 - "$work/slurmd.log" "$job" <<'EOF'
import sys
path, job = sys.argv[1], sys.argv[2]
with open(path, "w") as f:
    n = 0
    while f.tell() < 16 << 20:
        n += 1
        f.write("[2026-11-30T03:%02d:%02d.%03d] debug:  _rpc_terminate_job: uid = 64030 JobId=%d\n"
                % (n // 60 % 60, n % 60, n % 1000, 800000 + n % 5000))
    f.write("[2026-11-30T05:10:01.002] task/affinity: task_p_slurmd_batch_request: task_p_slurmd_batch_request: %s\n" % job)
    f.write("[2026-11-30T05:10:01.004] Launching batch job %s for UID 1000\n" % job)
    f.write("[2026-11-30T05:20:44.118] [%s.0] error: *** STEP %s.0 ON gpu100 CANCELLED AT 2026-11-30T05:20:44 ***\n" % (job, job))
EOF
fi
# stubs: Slurm's clients answer nothing at once; nvidia-smi per mode (below)
for c in sacct sacctmgr scontrol; do
	printf '#!/bin/sh\nexit 0\n' > "$work/bin/$c"
	chmod 755 "$work/bin/$c"
done
nvq=$src/rules/fixtures/gpu-xid48-dbe-nvsmi/evidence/gpu032/nvidia-smi-q.txt
nvc=$src/rules/fixtures/gpu-thermal-88c-slowdown/evidence/gpu110/nvidia-smi.csv

spool_records() {	# the plugin's records for 8 ranks on this node, and the batch step
	d=$work/spool/$job
	rm -rf "$work/spool"
	mkdir -p "$d"
	chmod 700 "$work/spool" "$d"
	t=1796006400	# an hour before the generated output starts: the kernel log is in the window
	printf '{"schema":"postmortem.rankmap/1","job":"%s","step":"batch","restart":0,"node":"%s","node_id":0,"rank":0,"local_rank":0,"pid":30000,"start":%s.000001,"start_mono":5000.000001}\n' \
		"$job" "$node" "$t" > "$d/rankmap.batch.jsonl"
	r=0
	while [ $r -lt 8 ]; do
		printf '{"schema":"postmortem.rankmap/1","job":"%s","step":"0","restart":0,"node":"%s","node_id":0,"rank":%d,"local_rank":%d,"pid":%d,"gpus":"%d","gpus_from":"SLURM_STEP_GPUS","start":%s.5,"start_mono":5001.5}\n' \
			"$job" "$node" $r $r $((31000 + r)) $r "$t" >> "$d/rankmap.0.jsonl"
		printf '{"schema":"postmortem.taskexit/1","job":"%s","step":"0","restart":0,"node":"%s","node_id":0,"rank":%d,"local_rank":%d,"pid":%d,"status":256,"exit_code":1,"end":%s.5,"end_mono":8600.5}\n' \
			"$job" "$node" $r $r $((31000 + r)) $((t + 3600)) >> "$d/taskexit.0.jsonl"
		r=$((r + 1))
	done
	printf 'records 17\ndropped 0\n' > "$d/count"
	chmod 600 "$d"/*
}

nvsmi() {	# healthy | hung
	if [ "$1" = hung ]; then
		printf '#!/bin/sh\nexec sleep 1000\n' > "$work/bin/nvidia-smi"
	else
		printf '#!/bin/sh\ncase "$*" in *--query-gpu*) exec cat %s;; *) exec cat %s;; esac\n' \
			"$nvc" "$nvq" > "$work/bin/nvidia-smi"
	fi
	chmod 755 "$work/bin/nvidia-smi"
}

config() {	# DEADLINE: default source caps and timeouts, this node's files
	cat > "$work/postmortem.yaml" <<EOF
store: $work/store
spool: $work/spool
rules: $src/rules
deadline: $1
sources:
  kernel_log: {path: $work/kern.log}
  slurmd_log: {path: $work/slurmd.log}
EOF
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

run_once() {	# MODE -> appends "wall peak_kib" to $work/runs, keeps the last stderr and manifest
	spool_records
	rm -rf "$work/store"
	mkdir -p "$work/store"
	env -i PATH="$work/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
		SLURM_JOB_ID=$job SLURMD_NODENAME=$node SLURM_CLUSTER_NAME=bench \
		SLURM_JOB_UID=0 SLURM_JOB_GID=0 SLURM_JOB_USER=root SLURM_JOB_STDOUT="$out" \
		SLURM_JOB_WORK_DIR="$work" SLURM_NODELIST="gpu[100-101]" SLURM_JOB_EXIT_CODE=256 \
		/usr/bin/time -f "%e %M" -o "$work/time.out" \
		"$epilog" --config="$work/postmortem.yaml" --spool="$work/spool/$job" \
		--job=$job --node=$node --strict 2> "$work/stderr" || true
	tail -n 1 "$work/time.out" >> "$work/runs"
	b=$work/store/bench/$job/0/nodes/$node.tar.zst
	if [ -f "$b" ]; then
		zstd -qdc "$b" | tar -xOf - manifest.json > "$work/manifest.json"
	else
		echo '{}' > "$work/manifest.json"
	fi
}

for mode in ${@:-healthy hung hung-5s}; do
	case $mode in
	healthy) nvsmi healthy; config 30s ;;
	hung) nvsmi hung; config 30s ;;
	hung-5s) nvsmi hung; config 5s ;;
	*) echo "unknown mode $mode" >&2; exit 2 ;;
	esac
	: > "$work/runs"
	i=0
	while [ $i -lt "$runs" ]; do
		run_once
		i=$((i + 1))
	done
	wall=$(cut -d' ' -f1 "$work/runs" | median)
	rss=$(cut -d' ' -f2 "$work/runs" | median)
	echo "== $mode: median wall $wall s of $runs runs ($(cut -d' ' -f1 "$work/runs" | tr '\n' ' ')), peak RSS $((rss / 1024)) MiB"
	sed 's/^/   /' "$work/stderr"
	python3 - "$work/manifest.json" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
c = m.get("collected", {})
print("   collected: deadline_hit=%s" % c.get("deadline_hit"))
print("   %-12s %-10s %9s %11s  %s" % ("source", "status", "elapsed_s", "bytes_kept", "reason"))
kept = {}
for f in m.get("files", []):
    k = f.get("collector_source")
    kept[k] = kept.get(k, 0) + (f.get("bytes") or 0)
for cv in m.get("coverage", []):
    src = cv.get("source", "?")
    print("   %-12s %-10s %9s %11s  %s" % (src, cv.get("status"), cv.get("elapsed_s"),
          kept.get(src, 0), (cv.get("reason") or "")[:60]))
EOF
done
