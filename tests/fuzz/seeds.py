#!/usr/bin/env python3
"""seeds.py OUTDIR - build one seed corpus per fuzz target in OUTDIR/<target>/.

Seeds are the hand-made samples in tests/fuzz/seeds/ (text/: one file per input format;
rules/: small rule files), the bundled rule files, and the evidence of every fixture case
(rules/fixtures/*/evidence); for fuzz_redact, the redaction corpora in tests/data, as text
and gzipped.  Each is cut to MAX bytes at a line end and given the leading
mode byte its target reads (see the comment at the top of each fuzz_*.c).

Decompression bombs are made here, never checked in: gzip streams and zstd frames of a few
KiB that expand to megabytes or gigabytes (the zstd frames are written block by block, RLE
blocks of 128 KiB each, so no compressor is needed), as inputs of their own and as members
of bundles, and bundles whose tar members claim hundreds of MiB.
"""
import gzip
import hashlib
import io
import json
import os
import struct
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


ZBLOCK = 128 << 10  # the largest zstd block with a 128 KiB window


def zstd_frame(parts):
    """A zstd frame from ("raw", BYTES) and ("rle", BYTE, COUNT) parts, block by block: no
    content size, no checksum, a 128 KiB window.  An RLE block is 4 bytes for 128 KiB."""
    blocks = []
    for p in parts:
        if p[0] == "raw":
            for i in range(0, len(p[1]), ZBLOCK):
                blocks.append((0, p[1][i:i + ZBLOCK], len(p[1][i:i + ZBLOCK])))
        else:
            n = p[2]
            while n > 0:
                k = min(n, ZBLOCK)
                blocks.append((1, bytes([p[1]]), k))
                n -= k
    out = bytearray(b"\x28\xb5\x2f\xfd" + bytes([0x00, 7 << 3]))
    for i, (kind, body, size) in enumerate(blocks):
        last = 1 if i == len(blocks) - 1 else 0
        out += struct.pack("<I", last | kind << 1 | size << 3)[:3] + body
    return bytes(out)


def gz(data):
    return gzip.compress(data, compresslevel=9, mtime=0)


def bombs():
    """(name, bytes): small compressed inputs that expand far past any input bound."""
    line = b"[rank3]: step 812 loss 2.31 lr 3e-4 grad_norm 0.97\n"
    xid = b"NVRM: Xid (PCI:0000:3b:00): 79, pid=4242, GPU has fallen off the bus.\n"
    mib, gib = 1 << 20, 1 << 30
    return [
        # gzip at its best ratio (about 1000:1): 16 MiB of one line, 16 MiB of newlines
        ("bomb-lines.gz", gz(line * (16 * mib // len(line)))),
        ("bomb-newlines.gz", gz(b"\n" * (16 * mib))),
        # one line of 8 MiB (longer than any line the reader keeps whole)
        ("bomb-longline.gz", gz(b"a" * (8 * mib))),
        # a small gzip member, then a bomb member, then text again (concatenated members)
        ("bomb-members.gz", gz(xid) + gz(b"\0" * (16 * mib)) + gz(line)),
        # zstd (under fuzz_*'s 64 KiB inputs: at most 1.5 GiB): 1 GiB of newlines after a
        # line, 1.5 GiB of one byte, a bomb then the line it would hide
        ("bomb-lines.zst", zstd_frame([("raw", line)] + [("rle", 0x0a, gib)])),
        ("bomb-big.zst", zstd_frame([("rle", ord("x"), 3 * gib // 2)])),
        ("bomb-hides.zst", zstd_frame([("raw", line), ("rle", ord(" "), gib),
                                       ("raw", b"\n" + xid)])),
        # a skippable frame first, then the bomb
        ("bomb-skip.zst", struct.pack("<II", 0x184D2A50, 4) + b"skip" +
         zstd_frame([("rle", 0x0a, gib)])),
    ]


def bundle_bomb(node, sizes):
    """A .tar.zst bundle written as zstd blocks: a manifest listing members of SIZES bytes
    (checksums of what the members hold), each member's body one RLE run."""
    files, tar = [], bytearray()
    for i, n in enumerate(sizes):
        files.append({"path": "sources/app_log/out%d.log" % i, "source": "app_log",
                      "node": node, "rank": None, "observed_time": "2026-11-30T04:40:01.000Z",
                      "bytes": n, "sha256": "0" * 64})
    man = json.dumps({"schema": "postmortem.bundle/1", "cluster": "lab", "job": "4242",
                      "restart": 0, "node": node, "files": files}).encode()
    parts = []

    def header(name, size):
        ti = tarfile.TarInfo(name)
        ti.size, ti.mtime, ti.mode = size, 0, 0o644
        return ti.tobuf(format=tarfile.USTAR_FORMAT)

    parts.append(("raw", header("manifest.json", len(man)) + man +
                  b"\0" * (-len(man) % 512)))
    for f in files:
        parts.append(("raw", header(f["path"], f["bytes"])))
        parts.append(("rle", ord("y"), f["bytes"]))
        if f["bytes"] % 512:
            parts.append(("rle", 0, -f["bytes"] % 512))
    parts.append(("rle", 0, 1024))
    return zstd_frame(parts)


def hostile_bundle(node, bomb):
    """A real tar (mode 1 of fuzz_bundle) whose member is a compressed bomb, checksums right."""
    body = bomb
    path = "sources/app_log/out.log.gz"
    man = {"schema": "postmortem.bundle/1", "cluster": "lab", "job": "4242", "restart": 0,
           "node": node, "files": [{"path": path, "source": "app_log", "node": node,
                                    "rank": None, "observed_time": "2026-11-30T04:40:01.000Z",
                                    "bytes": len(body),
                                    "sha256": hashlib.sha256(body).hexdigest()}]}
    bio = io.BytesIO()
    with tarfile.open(fileobj=bio, mode="w", format=tarfile.PAX_FORMAT) as t:
        for n, b in [("manifest.json", json.dumps(man).encode()), (path, body)]:
            ti = tarfile.TarInfo(n)
            ti.size, ti.mtime, ti.mode = len(b), 0, 0o644
            t.addfile(ti, io.BytesIO(b))
    return bio.getvalue()


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

    # decompression bombs: sniffed, and given as a trusted kind and as the job's output
    for name, data in bombs():
        put(out, "fuzz_diagnose", b"\x00" + data)
        put(out, "fuzz_diagnose", bytes([0x80 + KINDS.index("kernel_log")]) + data)
        put(out, "fuzz_diagnose", bytes([0x80 + KINDS.index("app_log")]) + data)
        put(out, "fuzz_bundle", b"\x01" + hostile_bundle("gpu017", data))
    # bundles whose members claim 200 MiB each (and a few small ones before them)
    put(out, "fuzz_bundle", b"\x00" + bundle_bomb("gpu017", [12, 200 << 20]))
    put(out, "fuzz_bundle", b"\x00" + bundle_bomb("gpu017", [200 << 20] * 8))
    put(out, "fuzz_bundle", b"\x00" + bundle_bomb("gpu017", [256 << 20, 1]))
    # the redactor: the redaction corpora as text (mode 0) and gzipped (mode 1), and the bombs
    for p in files_under(os.path.join(SRC, "tests", "data")):
        if p.endswith(".txt"):
            data = cut(open(p, "rb").read())
            put(out, "fuzz_redact", b"\x00" + data)
            put(out, "fuzz_redact", b"\x01" + gz(data))
    for name, data in bombs():
        put(out, "fuzz_redact", b"\x01" + data)
    for t in ("fuzz_sniff_prefix_time", "fuzz_parsers", "fuzz_rules", "fuzz_diagnose",
              "fuzz_bundle", "fuzz_redact"):
        d = os.path.join(out, t)
        os.makedirs(d, exist_ok=True)
        print("%-24s %4d seeds" % (t, len(os.listdir(d))))


if __name__ == "__main__":
    main()
