#!/usr/bin/env python3
"""Generate one job run's node bundles in an evidence store, deterministically.

  bench/gen_store.py STORE [NODES] [RANKS_PER_NODE] [JOBS]   (default 4096 nodes, 8 ranks, 1 job)

Writes STORE/bench/700001/0/ (and 700002... for JOBS > 1, the failing node moving from job to
job) as the collectors and the finalizer's arrival step leave it:
nodes/<node>.tar.zst (postmortem.bundle/1, engine/FORMATS.md), expected, arrivals and
arrived/<node>.  Each bundle is small: the plugin's rank map and task exits for the node's
ranks, a little application log (the ranks' progress lines, then NCCL watchdog timeouts), and
the node's kernel log.  One node's GPU falls off the bus (Xid 79) and its rank stops; every
other rank times out waiting for it.  Needs the zstd program.
"""
import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
import time

store = sys.argv[1]
nodes = int(sys.argv[2]) if len(sys.argv) > 2 else 4096
rpn = int(sys.argv[3]) if len(sys.argv) > 3 else 8
jobs = int(sys.argv[4]) if len(sys.argv) > 4 else 1
cluster = "bench"
T0 = 1796010000.0          # 2026-11-30T03:40:00Z, the job's first task
FAIL_T = T0 + 5400.0       # the Xid
bad_local = 3
names = ["gpu%05d" % (10000 + i) for i in range(nodes)]


def iso(t, frac=3):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + (".%03dZ" % int(t % 1 * 1000))


def kiso(t):  # dmesg --time-format iso
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + (",%06d+00:00" % int(t % 1 * 1e6))


def stamp(t):
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(t)) + (",%03d" % int(t % 1 * 1000))




def one_job(job, bad_node):
    jobdir = os.path.join(store, cluster, job, "0")
    os.makedirs(os.path.join(jobdir, "nodes"), exist_ok=True)
    os.makedirs(os.path.join(jobdir, "arrived"), exist_ok=True)
    nodelist = "gpu[%05d-%05d]" % (10000, 10000 + nodes - 1)
    for n, host in enumerate(names):
        files = []
        rm, te, app, kern = [], [], [], []
        for l in range(rpn):
            r = n * rpn + l
            pid = 40000 + l
            rm.append(json.dumps({"schema": "postmortem.rankmap/1", "job": job, "step": "0",
                                  "restart": 0, "node": host, "node_id": n, "rank": r,
                                  "local_rank": l, "pid": pid, "gpus": str(l),
                                  "gpus_from": "SLURM_STEP_GPUS", "start": T0 + 0.5,
                                  "start_mono": 5000.5}, separators=(",", ":")))
            stopped = n == bad_node and l == bad_local
            st = {"schema": "postmortem.taskexit/1", "job": job, "step": "0", "restart": 0,
                  "node": host, "node_id": n, "rank": r, "local_rank": l, "pid": pid,
                  "end": FAIL_T + 610.5, "end_mono": 5000.5 + 6010}
            if stopped:
                st.update({"status": 9, "signal": 9, "signal_name": "SIGKILL", "core": False})
            else:
                st.update({"status": 256, "exit_code": 1})
            te.append(json.dumps(st, separators=(",", ":")))
            for k in range(3):
                t = T0 + 1800 * (k + 1) - 60 + l * 0.01
                app.append("%d: [%s] iteration %8d/  500000 | consumed samples: %12d | elapsed time per iteration (ms): 912.3 | lm loss: 2.113E+00 |"
                           % (r, stamp(t), 2000 * (k + 1), 2000 * (k + 1) * 512))
            if not stopped:
                app.append("%d: [rank%d]:[E ProcessGroupNCCL.cpp:616] [Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=731337, OpType=ALLREDUCE, NumelIn=262144, NumelOut=262144, Timeout(ms)=600000) ran for 600043 milliseconds before timing out."
                           % (r, r, r))
        for i in range(12):
            kern.append("%s mlx5_core 0000:0c:00.0: Rate limit: 127 rates are supported, range: 0Mbps to 97656Mbps"
                        % kiso(T0 - 600 + i * 30))
        if n == bad_node:
            kern.append("%s NVRM: Xid (PCI:0000:9a:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
                        % kiso(FAIL_T))
        members = [
            ("sources/rank_map/rankmap.0.jsonl", "rank_map", "rank_map", rm),
            ("sources/rank_map/taskexit.0.jsonl", "task_exit", "rank_map", te),
            ("sources/user_logs/train.log", "app_log", "user_logs", app),
            ("sources/kernel_log/dmesg.txt", "kernel_log", "kernel_log", kern),
        ]
        blobs = []
        for path, kind, csrc, lines in members:
            data = ("\n".join(lines) + "\n").encode()
            blobs.append((path, data))
            files.append({"path": path, "source": kind, "collector_source": csrc, "format": kind,
                          "node": host, "rank": None, "observed_time": iso(FAIL_T + 700),
                          "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest(),
                          "status": "ok", "reason": "", "redacted": 0, "origin": None})
        manifest = {"schema": "postmortem.bundle/1", "cluster": cluster, "job": job, "restart": 0,
                    "node": host, "boot_time": iso(T0 - 5000), "window_start": iso(T0 - 300),
                    "collected": {"start": iso(FAIL_T + 700), "end": iso(FAIL_T + 700.4),
                                  "deadline_hit": False, "cut": []},
                    "collector": {"version": "bench"}, "nodelist": nodelist, "uid": 1000,
                    "files": files,
                    "coverage": [{"source": s, "status": "ok", "reason": "", "files": 1,
                                  "elapsed_s": 0.01, "cut": False}
                                 for s in ("rank_map", "kernel_log", "user_logs")]}
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tf:
            for path, data in [("manifest.json", json.dumps(manifest, sort_keys=True).encode())] + blobs:
                ti = tarfile.TarInfo(path)
                ti.size = len(data)
                ti.mtime = int(FAIL_T + 700)
                ti.mode = 0o640
                tf.addfile(ti, io.BytesIO(data))
        with open(os.path.join(jobdir, "nodes", host + ".tar"), "wb") as f:
            f.write(buf.getvalue())
    # compress them all with one zstd process per 512 files
    tars = sorted(os.path.join(jobdir, "nodes", h + ".tar") for h in names)
    for i in range(0, len(tars), 512):
        subprocess.run(["zstd", "-q", "-f", "--rm"] + tars[i:i + 512], check=True)
    with open(os.path.join(jobdir, "expected"), "w") as f:
        f.write("".join(h + "\n" for h in names))
    arr = os.path.join(jobdir, "arrivals")
    open(arr, "a").close()
    for h in names:
        p = os.path.join(jobdir, "arrived", h)
        if not os.path.exists(p):
            os.link(arr, p)
    print("%s: %d bundles, %d ranks, Xid 79 on %s" % (jobdir, nodes, nodes * rpn, names[bad_node]))


for k in range(jobs):
    one_job(str(700001 + k), (nodes // 3 + k) % nodes)
