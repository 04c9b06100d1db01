#!/usr/bin/env python3
"""seeds.py OUTDIR - build one seed corpus per fuzz target in OUTDIR/<target>/.

Seeds are the hand-made samples in tests/fuzz/seeds/ (text/: one file per input format;
rules/: small rule files), the bundled rule files, and the evidence of every fixture case
(rules/fixtures/*/evidence).  Each is cut to MAX bytes at a line end and given the leading
mode byte its target reads (see the comment at the top of each fuzz_*.c).
"""
import hashlib
import io
import json
import os
import sys
import tarfile

MAX = 8192
SRC = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SEEDS = os.path.join(SRC, "tests", "fuzz", "seeds")
# diagnose: mode >= 0x80 gives the source kind (fuzz_diagnose.c, kinds[])
KINDS = ["kernel_log", "gpu_state", "node_metrics", "scheduler", "task_exit", "rank_map", "app_log"]


def cut(data):
    if len(data) <= MAX:
        return data
    data = data[:MAX]
    nl = data.rfind(b"\n")
    return data[:nl + 1] if nl > 0 else data


def files_under(d):
    out = []
    for root, dirs, names in os.walk(d):
        dirs.sort()
        for n in sorted(names):
            p = os.path.join(root, n)
            if os.path.isfile(p) and not os.path.islink(p):
                out.append(p)
    return out


def put(outdir, target, data):
    d = os.path.join(outdir, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


def bundle_seeds(node, items):
    """Two seeds for fuzz_bundle: mode 2 (MANIFEST\\0NAME\\nBODY\\0...; checksums are set by
    the target) and mode 1 (a real tar of the same members, checksums right)."""
    files, members = [], []
    for src, name, body in items:
        path = "sources/%s/%s" % (src, name)
        files.append({"path": path, "source": src, "node": node, "rank": None,
                      "observed_time": "2026-11-30T04:40:01.000Z",
                      "bytes": len(body), "sha256": hashlib.sha256(body).hexdigest()})
        members.append((path, body))
    man = {"schema": "postmortem.bundle/1", "cluster": "lab", "job": "4242", "restart": 0,
           "node": node, "boot_time": "2026-11-29T22:01:13Z", "files": files,
           "coverage": [{"source": "gpu_state", "status": "timed_out", "reason": "no answer"}]}
    text = [(n, b) for n, b in members if b"\0" not in b]
    block = b"\x02" + json.dumps(man).encode() + b"".join(
        b"\0" + n.encode() + b"\n" + body for n, body in text)
    bio = io.BytesIO()
    with tarfile.open(fileobj=bio, mode="w", format=tarfile.PAX_FORMAT) as t:
        for n, body in [("manifest.json", json.dumps(man).encode())] + members:
            ti = tarfile.TarInfo(n)
            ti.size, ti.mtime, ti.mode = len(body), 0, 0o644
            t.addfile(ti, io.BytesIO(body))
    return [block, b"\x01" + bio.getvalue()]


def guess_kind(name, data):
    n = name.lower()
    for key, kind in (("kernel", "kernel_log"), ("dmesg", "kernel_log"), ("nvsmi", "gpu_state"),
                      ("nvidia", "gpu_state"), ("meminfo", "node_metrics"), ("sacct", "scheduler"),
                      ("scontrol", "scheduler"), ("slurm", "scheduler"), ("rank_map", "rank_map"),
                      ("task_exit", "task_exit")):
        if key in n:
            return kind
    return "app_log"


def main():
    out = sys.argv[1]
    text = [(os.path.basename(p), cut(open(p, "rb").read()))
            for p in files_under(os.path.join(SEEDS, "text"))]
    fixtures = os.path.join(SRC, "rules", "fixtures")
    cases = []
    if os.path.isdir(fixtures):
        for c in sorted(os.listdir(fixtures)):
            ev = os.path.join(fixtures, c, "evidence")
            if os.path.isdir(ev):
                cases.append([(os.path.relpath(p, ev), cut(open(p, "rb").read()))
                              for p in files_under(ev)])
    every = text + [f for case in cases for f in case]

    for name, data in every:
        put(out, "fuzz_sniff_prefix_time", data)
        put(out, "fuzz_parsers", b"\x01" + data)
        put(out, "fuzz_diagnose", b"\x00" + data)
        put(out, "fuzz_diagnose", bytes([0x80 + KINDS.index(guess_kind(name, data))]) + data)
    for p in files_under(os.path.join(SEEDS, "rules")) + [
            p for p in files_under(os.path.join(SRC, "rules"))
            if p.endswith(".yaml") and os.path.basename(p) != "ruleset.yaml" and "/fixtures/" not in p]:
        put(out, "fuzz_rules", open(p, "rb").read())

    groups = [[(guess_kind(n, d), n.replace("/", "_"), d) for n, d in text]]
    groups += [[(guess_kind(n, d), n.replace("/", "_"), d) for n, d in case] for case in cases]
    for g in groups:
        for i in range(0, len(g), 4):
            for seed in bundle_seeds("gpu017", g[i:i + 4]):
                put(out, "fuzz_bundle", seed)
    put(out, "fuzz_bundle", b"\x00(\xb5/\xfd")
    for t in ("fuzz_sniff_prefix_time", "fuzz_parsers", "fuzz_rules", "fuzz_diagnose",
              "fuzz_bundle"):
        d = os.path.join(out, t)
        os.makedirs(d, exist_ok=True)
        print("%-24s %4d seeds" % (t, len(os.listdir(d))))


if __name__ == "__main__":
    main()
