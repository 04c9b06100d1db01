#!/bin/sh
# The finalize timer's comment recheck at scale: a store of JOBS job runs whose comments the
# finalizer set within the period (each run folder holds the `comment` file finalize writes,
# "Comment<TAB>postmortem: ... ev=bench/<job>/0", Slurm's record sacct.txt and a manifest),
# and a sacct stub that answers the timer's one query with a row per job of the store plus
# OTHERS rows of other
# jobs of the period (other users', never finalized).  TAMPERED of the store's jobs (every
# JOBS/TAMPERED-th) carry a forged postmortem part: each is asked again on its own (the stub
# says the same) and put back (a sacctmgr stub).  Timed three ways, medians of RUNS:
#   off        `postmortem finalize --pending` with comment_recheck: off (the walk alone)
#   recheck    the same with comment_recheck: 7d, nothing tampered
#   tampered   the same with TAMPERED forged comments, put back and recorded
#   bench/recheck.sh [JOBS [OTHERS [TAMPERED]]]     (default 10000 40000 100)
# PM_BUILDDIR=<build dir>, RUNS (default 3), PM_BENCH_DATA (default /tmp/pm-bench).
set -eu
. "$(dirname "$0")/lib.sh"
jobs=${1:-10000}
others=${2:-40000}
tampered=${3:-100}
store=$data/recheck-$jobs
bin=$data/recheck-bin
need "$pm"
mkdir -p "$bin"

# the store and the stub's answers (deterministic: job ids 700001..)
python3 - "$store" "$data" "$jobs" "$others" "$tampered" <<'EOF'
import json, os, sys
store, data, jobs, others, tampered = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:])
every = jobs // tampered if tampered else 0
good, forged, ours = {}, {}, []
for i in range(jobs):
    job = 700001 + i
    line = ("postmortem: attributed gpu_hardware/gpu_lost origin=gpu%05d:%d conf=supported "
            "act=retry-exclude-node ev=bench/%d/0" % (10000 + i % 4096, i % 8, job))
    good[job] = line
    d = os.path.join(store, "bench", str(job), "0")
    if not os.path.isdir(d):
        os.makedirs(d)
        with open(os.path.join(d, "manifest.json"), "w") as f:
            json.dump({"schema": "postmortem.manifest/1", "job": {"id": str(job), "cluster": "bench",
                       "restart": 0}, "provisional": False, "verdict": {"comment": line},
                       "scheduler": {"final": True}}, f)
    with open(os.path.join(d, "comment"), "w") as f:
        f.write("Comment\t%s\n" % line)
    with open(os.path.join(d, "sacct.txt"), "w") as f:  # the record the verdict used
        f.write("JobID|JobIDRaw|State|ExitCode|Start|End|NodeList|NNodes|NTasks|AllocTRES|"
                "ReqTRES|FailedNode|Cluster|UID|Reason\n"
                "%d|%d|FAILED|1:0|2026-11-30T03:39:58|2026-11-30T05:21:40|gpu[10000-10001]|2|16|"
                "cpu=192,gres/gpu=16,node=2|gres/gpu=16||bench|1000|None\n" % (job, job))
    if every and i % every == every - 1:
        forged[job] = ("my run | postmortem: attributed nvlink/fabric_manager origin=gpu00001:0 "
                       "conf=established act=retry-exclude-node ev=bench/%d/0" % job)
with open(os.path.join(data, "recheck-rows.clean"), "w") as clean, \
        open(os.path.join(data, "recheck-rows.forged"), "w") as bad:
    for job in range(600001, 600001 + others):  # other users' jobs of the period
        row = "%d|bench|2026-11-30T03:39:58||%s\n" % (job, "sweep %d | lr=3e-4" % job if job % 3 else "")
        clean.write(row)
        bad.write(row)
    for job, line in good.items():
        clean.write("%d|bench|2026-11-30T03:39:58||%s\n" % (job, line))
        bad.write("%d|bench|2026-11-30T03:39:58||%s\n" % (job, forged.get(job, line)))
with open(os.path.join(data, "recheck-forged.txt"), "w") as f:
    for job, line in forged.items():
        f.write("%d %s\n" % (job, line))
EOF

cat > "$bin/sacct" <<EOF
#!/bin/sh
# the timer's one query: every job of the period; a job asked for alone: its comment
case " \$* " in
*' -o JobID,Cluster,Start,AdminComment,Comment '*) cat "$data/recheck-rows.\$(cat "$data/recheck-mode")" ;;
*' -o Start '*) echo 2026-11-30T03:39:58 ;;
*' -o Comment '*|*' -o AdminComment '*)
	while [ \$# -gt 0 ]; do [ "\$1" = -j ] && job=\$2; shift; done
	f=\$(grep "^\$job " "$data/recheck-forged.txt" 2>/dev/null | cut -d' ' -f2-)
	[ "\$(cat "$data/recheck-mode")" = forged ] && [ -n "\$f" ] && { echo "\$f"; exit 0; }
	printf 'postmortem: put back %s\n' "\$job" ;;
esac
EOF
printf '#!/bin/sh\necho " Modified jobs..."\n' > "$bin/sacctmgr"
chmod 755 "$bin"/*

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
measure() { # NAME MODE RECHECK: RUNS runs of `finalize --pending`, the median wall and peak
	: > "$data/runs"
	i=0
	while [ $i -lt "$runs" ]; do
		echo "$2" > "$data/recheck-mode"
		printf 'store: %s\nrules: %s/rules\ncomment_recheck: %s\n' "$store" "$src" "$3" \
			> "$data/recheck.yaml"
		find "$store" -name tampered.jsonl -delete
		PATH=$bin:$PATH /usr/bin/time -f "%e %M" -o "$data/time.out" \
			"$pm" finalize --pending --config "$data/recheck.yaml" > "$data/out" 2>&1 || true
		tail -n 1 "$data/time.out" >> "$data/runs"
		i=$((i + 1))
	done
	printf '%-9s %6s runs, %6s sacct rows: wall %6s s  peak %4s MiB  (%d runs)\n' "$1" "$jobs" \
		"$(wc -l < "$data/recheck-rows.$2")" "$(cut -d' ' -f1 "$data/runs" | median)" \
		"$(($(cut -d' ' -f2 "$data/runs" | median) / 1024))" "$runs"
	grep -E '^comments' "$data/out" | sed 's/^/  /' || true
}
measure off clean off
measure recheck clean 7d
measure tampered forged 7d
echo "  tampering records: $(find "$store" -name tampered.jsonl | wc -l)"
