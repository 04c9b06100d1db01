#!/usr/bin/env python3
"""Generate SIZE MiB of multi-node training logs into DIR, deterministically.

  bench/gen_logs.py DIR SIZE_MIB [NODES]

The usual mix of a large run: per-node srun --label output with Megatron progress lines, NCCL
INFO chatter (most of the volume), benign warnings, a few tracebacks that were caught and
logged, and a handful of real signatures near the end (an Xid 79 in one node's kernel log,
watchdog timeouts on the others), plus a kernel log per node.  The same arguments always
give the same bytes.
"""
import os
import random
import sys

out, size_mib = sys.argv[1], int(sys.argv[2])
nodes = int(sys.argv[3]) if len(sys.argv) > 3 else 8
rpn = 8
rng = random.Random(42)
os.makedirs(out, exist_ok=True)
per_node = size_mib * (1 << 20) // nodes
T0 = 1796010000

WARN = [
    "/opt/conda/lib/python3.10/site-packages/torch/utils/data/dataloader.py:558: UserWarning: This DataLoader will create 16 worker processes in total.",
    "[W ProcessGroupNCCL.cpp:1856] Warning: 0NCCL_AVOID_RECORD_STREAMS=1 has no effect for point-to-point collectives.",
    "wandb: WARNING Serializing object of type dict that is 131112 bytes",
]


def stamp(t):
    import time
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(t)) + ".%03d" % int((t % 1) * 1000)


for n in range(nodes):
    host = "gpu%03d" % (100 + n)
    base_rank = n * rpn
    written = 0
    t = float(T0)
    step = 0
    with open(os.path.join(out, "%s-slurm-900001.out" % host), "w") as f:
        buf = []
        while written < per_node:
            step += 1
            t += 0.9
            r = base_rank + (step % rpn)
            pid = 40000 + r * 37
            lines = []
            if r == base_rank:
                lines.append("%d:  [%s] iteration %8d/  500000 | consumed samples: %12d | elapsed time per iteration (ms): %.1f | lm loss: %.6E | loss scale: 1.0 | grad norm: %.3f |" % (
                    r, stamp(t), step, step * 512, 900 + rng.random() * 50, 2.0 + rng.random(), rng.random()))
            for k in range(6):
                lines.append("%d: %s:%d:%d [%d] NCCL INFO AllReduce: opCount %x sendbuff 0x7f2a4c000000 recvbuff 0x7f2a4c000000 count %d datatype 7 op 0 root 0 comm 0x55d0c3a8e2d0 [nranks=%d] stream 0x55d0c4b1a0c0" % (
                    r, host, pid, pid + 113, r % rpn, step * 6 + k, 262144 + k, nodes * rpn))
            if step % 997 == 0:
                lines.append("%d: %s" % (r, WARN[step % len(WARN)]))
            if step % 50021 == 0:
                lines += ["%d: Traceback (most recent call last):" % r,
                          "%d:   File \"/opt/app/ckpt.py\", line 88, in save_async" % r,
                          "%d: TimeoutError: checkpoint upload slow, retrying (attempt 1/5)" % r]
            s = "\n".join(lines) + "\n"
            buf.append(s)
            written += len(s)
            if len(buf) > 2000:
                f.write("".join(buf))
                buf = []
        # the end of the run: node 3's GPU falls off the bus, everybody else times out
        for r in range(base_rank, base_rank + rpn):
            if n != 3 or r != base_rank + 5:
                buf.append("%d: [rank%d]:[E ProcessGroupNCCL.cpp:616] [Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=ALLREDUCE, NumelIn=262144, NumelOut=262144, Timeout(ms)=600000) ran for 600043 milliseconds before timing out.\n" % (r, r, r, 731337))
        f.write("".join(buf))
    with open(os.path.join(out, "%s-kernel.log" % host), "w") as f:
        for i in range(2000):
            f.write("[Mon Nov 30 %02d:%02d:%02d 2026] mlx5_core 0000:0c:00.0: Rate limit: 127 rates are supported, range: 0Mbps to 97656Mbps\n" % (3 + i // 3600, (i // 60) % 60, i % 60))
        if n == 3:
            f.write("[Mon Nov 30 05:10:00 2026] NVRM: Xid (PCI:0000:9a:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n")
