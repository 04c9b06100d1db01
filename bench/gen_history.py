#!/usr/bin/env python3
"""Generate a node history (store/history.h) as the finalizers leave it, deterministically.

  bench/gen_history.py STORE [NODES] [RUNS] [DAYS] [HOT] [LAYOUT]
      (default 4096 nodes, 100000 job runs, 14 days, 400 records on the hot node, LAYOUT day)

Writes STORE/.history/<node>/<day>/<time>.<cluster>.<job>.<restart>.json (LAYOUT flat: without
the day folder, as versions before them wrote it), one record per job run
whose final verdict blamed a node from trusted evidence: RUNS job runs spread evenly over the
last DAYS days (a week of them is the default view's window), each blaming one node (one in
ten blaming two), nodes picked with a skew so that some nodes repeat often; the node
gpu10000 (the hot node) gets HOT records more.  Also STORE/ledger.jsonl with one resolution
for every 50th run (one in five of them refuted), as `postmortem ledger` writes it.  The
history's time axis ends at NOW (1796600000, 2026-12-07).
"""
import json
import os
import random
import sys
import time

store = sys.argv[1]
nodes = int(sys.argv[2]) if len(sys.argv) > 2 else 4096
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 100000
days = float(sys.argv[4]) if len(sys.argv) > 4 else 14
hot = int(sys.argv[5]) if len(sys.argv) > 5 else 400
flat = len(sys.argv) > 6 and sys.argv[6] == "flat"
NOW = 1796600000
names = ["gpu%05d" % (10000 + i) for i in range(nodes)]
classes = [("gpu_hardware", "gpu_lost"), ("gpu_hardware", "ecc_uncorrectable"),
           ("nvlink", "nvlink_error"), ("host_hardware", "mce"), ("network_fabric", "link_down")]
rng = random.Random(17)
top = os.path.join(store, ".history")
os.makedirs(top, exist_ok=True)
made = set()


def record(node, run, t, cls, sub, uid):
    d = os.path.join(top, node)
    if not flat:
        d = os.path.join(d, time.strftime("%Y-%m-%d", time.gmtime(int(t))))
    if d not in made:
        os.makedirs(d, exist_ok=True)
        made.add(d)
    cluster, job, restart = run.split("/")
    rec = {"schema": "postmortem.history/1", "run": run, "node": node, "class": cls,
           "subclass": sub, "confidence": "established", "time": int(t),
           "expires": int(t + days * 86400), "uid": uid}
    name = "%010d.%s.%s.%s.json" % (int(t), cluster, job, restart)
    with open(os.path.join(d, name), "w") as f:
        f.write(json.dumps(rec, sort_keys=True, separators=(",", ":")) + "\n")


ledger = []
for i in range(runs):
    t = NOW - days * 86400 + (i + 0.5) * days * 86400 / runs
    run = "bench/%d/0" % (800000 + i)
    # a skewed pick: a few nodes fail often, most rarely
    k = min(int(rng.paretovariate(1.2)) - 1, nodes - 1)
    node = names[(k * 2654435761 + rng.randrange(nodes) * (k == 0)) % nodes]
    cls, sub = classes[rng.randrange(len(classes))]
    uid = 1000 + rng.randrange(300)
    record(node, run, t, cls, sub, uid)
    if i % 10 == 0:
        record(names[(names.index(node) + 1) % nodes], run, t, cls, sub, uid)
    if i % 50 == 0:
        ledger.append({"kind": "resolved", "job": run,
                       "result": "refuted" if i % 250 == 0 else "confirmed", "action": "drain"})
for i in range(hot):
    t = NOW - days * 86400 + (i + 0.5) * days * 86400 / hot
    record(names[0], "bench/%d/0" % (900000 + i), t, "gpu_hardware", "gpu_lost",
           1000 + i % 7)
with open(os.path.join(store, "ledger.jsonl"), "w") as f:
    for seq, e in enumerate(ledger, 1):
        e = dict(e, seq=seq, schema="postmortem.ledger/1")
        f.write(json.dumps(e, sort_keys=True, separators=(",", ":")) + "\n")
print("%s: %d nodes with records, %d job runs (+%d on %s), %d ledger entries" %
      (top, len(os.listdir(top)), runs, hot, names[0], len(ledger)))
