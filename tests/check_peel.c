/*
 * check_peel.c - the prefix reader (prefix.c pm_peel, engine/READING.md): every wrapper
 * family on its own, stacked, and hostile lines.  The invariance over whole fixtures is
 * tests/wrappers.sh.
 *
 * Every line is handed over as an exact-size heap copy without a NUL terminator, so that
 * ASan catches a read past its end.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "support.h"

#define T0311 1796008318.0 /* 2026-11-30T03:11:58Z */

struct want {
	const char *line;
	const char *text; /* what the rule's pattern sees */
	int rank;
	const char *node; /* "" none; "~name" a weak one */
	double time;	  /* 0: none */
	int pid;
};

static const struct pm_timectx ctx2026 = {2026, 0};

static void check_one(enum pm_format fmt, const struct want *w)
{
	size_t n = strlen(w->line);
	char *b = malloc(n ? n : 1), node[300];
	struct pm_peel p;

	ck_assert_ptr_nonnull(b);
	memcpy(b, w->line, n);
	pm_peel(fmt, b, n, &ctx2026, &p);
	ck_assert_uint_le(p.skip, p.end);
	ck_assert_uint_le(p.end, n);
	ck_assert_msg(p.node == NULL || (p.node >= b && p.node + p.node_len <= b + n), "node");
	ck_assert_msg((int)(p.end - p.skip) == (int)strlen(w->text) &&
			      !memcmp(b + p.skip, w->text, p.end - p.skip),
		      "'%s': text '%.*s', want '%s'", w->line, (int)(p.end - p.skip), b + p.skip,
		      w->text);
	ck_assert_msg(p.rank == w->rank, "'%s': rank %d, want %d", w->line, p.rank, w->rank);
	snprintf(node, sizeof(node), "%s%.*s", p.node_weak ? "~" : "", (int)p.node_len,
		 p.node ? p.node : "");
	ck_assert_msg(!strcmp(node, w->node), "'%s': node '%s', want '%s'", w->line, node, w->node);
	if (w->time)
		ck_assert_msg(p.has_time && fabs(p.time - w->time) < 1e-4,
			      "'%s': time %.6f (%d), want %.6f", w->line, p.time, p.has_time,
			      w->time);
	else
		ck_assert_msg(!p.has_time, "'%s': a time %.6f", w->line, p.time);
	if (w->pid)
		ck_assert_msg(p.pid == w->pid, "'%s': pid %d, want %d", w->line, p.pid, w->pid);
	free(b);
}

START_TEST(peel_frameworks)
{
	static const struct want t[] = {
		{"2026-11-30 03:11:58,002 - ERROR - RuntimeError: CUDA out of memory.",
		 "RuntimeError: CUDA out of memory.", -1, "", T0311 + 0.002, 0},
		{"2026-11-30 03:11:58,002 - trainer - ERROR - boom", "boom", -1, "", T0311 + 0.002,
		 0},
		{"[2026-11-30 03:11:58] [ERROR] [trainer] RuntimeError: x", "RuntimeError: x", -1,
		 "", T0311, 0},
		{"I1130 03:11:58.500000 1234 file.cc:12] msg", "msg", -1, "", T0311 + 0.5, 0},
		{"E0000 00:00:1796008318.250000 1234 file.cc:12] msg", "msg", -1, "", T0311 + 0.25,
		 0},
		{"E0000 00:00:00.000000 1234 file.cc:12] msg", "msg", -1, "", 0, 0},
		{"[W1130 03:11:58.000000000 ProcessGroupNCCL.cpp:1117] x", "x", -1, "", T0311, 0},
		{"[W socket.cpp:401] [c10d] The server socket", "The server socket", -1, "~c10d", 0,
		 0},
		{"ERROR:root:RuntimeError: x", "RuntimeError: x", -1, "", 0, 0},
		/* TensorRT's logger: "[E]" is a level, so its error code is no srun label */
		{"[TRT] [E] 6: The engine plan file is not compatible",
		 "6: The engine plan file is not compatible", -1, "", 0, 0},
		{"WARNING:torch.distributed.run:msg", "msg", -1, "", 0, 0},
		{"2026-11-30 03:11:58.002 | ERROR    | __main__:main:135 - CUDA error: x",
		 "CUDA error: x", -1, "", T0311 + 0.002, 0},
		{"2026-11-30T03:11:58.002Z\tERROR\ttrain/loop.py:88\tmsg", "msg", -1, "",
		 T0311 + 0.002, 0},
		{"11/30/2026 03:11:58 - INFO - __main__ - Distributed", "Distributed", -1, "",
		 T0311, 0},
		{"(APIServer pid=1) ERROR 11-30 03:11:58 [serving.py:908] File x", "File x", -1, "",
		 T0311, 1},
		{"Nov 30 03:11:58 gpu016 python3[4242]: RuntimeError: x", "RuntimeError: x", -1,
		 "~gpu016", T0311, 4242},
		{"03:11:58,123 - ERROR - x", "x", -1, "", 0, 0},
		{"submitit WARNING (2026-11-30 03:11:58,002) - Caught signal", "Caught signal", -1,
		 "", T0311 + 0.002, 0},
		/* grep -H's file name before a stamp */
		{"train.log:2026-11-30 03:11:58,002 - ERROR - x", "x", -1, "", T0311 + 0.002, 0},
		/* Python's "%(asctime)s %(levelname)s %(name)s: %(message)s", padded or not */
		{"2026-11-30 03:11:58,002 ERROR torch.distributed.elastic: RuntimeError: x",
		 "RuntimeError: x", -1, "", T0311 + 0.002, 0},
		{"2026-11-30 03:11:58,002 WARNING  __main__: NCCL WARN x", "NCCL WARN x", -1, "",
		 T0311 + 0.002, 0},
		/* kernel lines quoted in the job's output */
		{"[Mon Nov 30 03:11:58 2026] NVRM: Xid", "NVRM: Xid", -1, "", T0311, 0},
		{"[ 5612.000001] NVRM: Xid", "NVRM: Xid", -1, "", 0, 0},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		check_one(PM_FMT_APP, &t[i]);
}
END_TEST

START_TEST(peel_launchers)
{
	static const struct want t[] = {
		{"3: hello", "hello", 3, "", 0, 0},
		{"[1,3]<stderr>:RuntimeError: x", "RuntimeError: x", 3, "", 0, 0},
		{"[1,3]<stdout>:x", "x", 3, "", 0, 0},
		/* Open MPI 4's tag with the rank named and its host (SageMaker's MPI jobs) */
		{"[1,mpirank:3,algo-2]<stderr>:RuntimeError: x", "RuntimeError: x", 3, "algo-2", 0,
		 0},
		{"[1,mpirank:12,ip-10-0-1-7.ec2.internal]<stdout>:x", "x", 12,
		 "ip-10-0-1-7.ec2.internal", 0, 0},
		{"[cuda-24-0.local:08642] 2 more processes", "2 more processes", -1,
		 "cuda-24-0.local", 0, 8642},
		{"(pid=123, ip=10.0.0.1) RuntimeError: x", "RuntimeError: x", -1, "", 0, 123},
		{"(RayTrainWorker pid=4567, ip=10.0.0.1) [rank3]: x", "x", 3, "", 0, 4567},
		{"gpu016: [rank3]: x", "x", 3, "~gpu016", 0, 0},
		{"[default3]:[rank5]: x", "x", 5, "", 0, 0},
		{"3: gpu016:40000:40113 [0] NCCL WARN x", "NCCL WARN x", 3, "gpu016", 0, 40000},
		{"2026-11-30T03:11:58Z 3: x", "x", 3, "", T0311, 0},
		/* a merge of nodes' outputs, "STAMP HOST text": the host a weak name, the text
		 * whole; not before a number (glog's header) */
		{"2026-11-30T03:11:58Z gpu016 RuntimeError: x", "gpu016 RuntimeError: x", -1,
		 "~gpu016", T0311, 0},
		{"2026-11-30T03:11:58Z epoch3 12 done", "epoch3 12 done", -1, "", T0311, 0},
		{"2026-11-30T03:11:58Z step 12", "step 12", -1, "", T0311, 0},
		{"2019-06-02T16:13:44.884Z: [1,12]<stdout>:node1:815:864 [0] NCCL WARN x",
		 "NCCL WARN x", 12, "node1", 1559492024.884, 815},
		{"c000002:     train_ds", "    train_ds", -1, "~c000002", 0, 0},
		{"[gpu016] x", "x", -1, "~gpu016", 0, 0},
		{"gpu016 | x", "x", -1, "~gpu016", 0, 0},
		{"trainer-1  | RuntimeError: x", "RuntimeError: x", -1, "~trainer-1", 0, 0},
		{"[pod/trainer-0/main] x", "x", -1, "", 0, 0},
		/* the text after a level is the program's: no srun label there */
		{"ERROR - 3: x", "3: x", -1, "", 0, 0},
		/* NVHPC's runtime prints a number of its own: no task's label, but srun's
		 * label before it is */
		{"0: ALLOCATE: 4096 bytes requested; not enough memory",
		 "0: ALLOCATE: 4096 bytes requested; not enough memory", -1, "", 0, 0},
		{"2: 0: ALLOCATE: 4096 bytes requested; not enough memory",
		 "0: ALLOCATE: 4096 bytes requested; not enough memory", 2, "", 0, 0},
		{"0: ALLOCATE: the grid", "ALLOCATE: the grid", 0, "", 0, 0},
		/* DeepSpeed's "[Rank 0]", other launchers' and scripts' spaced rank tags; a
		 * process group's "[Rank 1]" inside an outer rank's wrapper is not the rank */
		{"[Rank 0] Watchdog caught", "Watchdog caught", 0, "", 0, 0},
		{"[RANK 7] x", "x", 7, "", 0, 0},
		{"[rank 2]: x", "x", 2, "", 0, 0},
		{"rank 5: x", "x", 5, "", 0, 0},
		{"RANK 12: x", "x", 12, "", 0, 0},
		{"[2026-11-30 03:11:58,002] [ERROR] [Rank 4] x", "x", 4, "", T0311 + 0.002, 0},
		{"3: [Rank 1] x", "[Rank 1] x", 3, "", 0, 0},
		{"[rank9]: [Rank 1] x", "[Rank 1] x", 9, "", 0, 0},
		{"[E ProcessGroupNCCL.cpp:458] [Rank 7] x", "[Rank 7] x", -1, "", 0, 0},
		{"E1130 03:11:58.123456 40074 ProcessGroupNCCL.cpp:458] [Rank 7] x", "[Rank 7] x",
		 -1, "", T0311 + 0.123456, 0},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		check_one(PM_FMT_APP, &t[i]);
}
END_TEST

/* torchrun's "[defaultN]:" alone gives a LOCAL rank, marked so (att_ranks.c drops it on a
 * job of several nodes); a "[rankN]:" inside it or srun's label outside it is no such rank. */
START_TEST(peel_local_rank)
{
	static const struct {
		const char *line;
		int rank;
		bool local;
	} t[] = {
		{"[default3]:x", 3, true},
		{"[default3]:gpu016:40000:40113 [3] NCCL WARN x", 3, true},
		{"[default3]:[rank5]: x", 5, false},
		{"1: [default3]:x", -1, false},
		{"[rank5]: x", 5, false},
		{"x", -1, false},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct pm_peel p;

		pm_peel(PM_FMT_APP, t[i].line, strlen(t[i].line), &ctx2026, &p);
		ck_assert_msg(p.rank == t[i].rank && p.rank_local == t[i].local,
			      "'%s': rank %d local %d", t[i].line, p.rank, p.rank_local);
	}
}
END_TEST

/* What collectors put around a launcher's wrappers: a container runtime's CRI stream and
 * tag after its stamp, journalctl -o short-iso's host and tag, Loki's label set,
 * journalctl -o json, Open MPI's --timestamp-output glued to its tag; and the text that
 * only looks like them. */
START_TEST(peel_collectors)
{
	static const struct want t[] = {
		/* four layers: the runtime's stamp and stream, srun's label, the rank tag */
		{"2026-11-30T03:11:58.002Z stderr F 3: [rank3]: RuntimeError: x", "RuntimeError: x",
		 3, "", T0311 + 0.002, 0},
		{"2026-11-30T03:11:58.002Z stdout P 3: x", "x", 3, "", T0311 + 0.002, 0},
		{"2026-11-30T03:11:58Z stderr F 2026-11-30 03:11:58,002 3: [rank3]: x", "x", 3, "",
		 T0311, 0},
		{"2026-11-30T03:11:58Z stdout F [2026-11-30 03:11:58] 3: [rank3]: x", "x", 3, "",
		 T0311, 0},
		{"2026-11-30T03:11:58+0000 gpu016 slurm-job[4121]: 3: [rank3]: x", "x", 3,
		 "~gpu016", T0311, 4121},
		/* a host's or a pod's name before the runtime's stamp (pdsh, kubectl --prefix) */
		{"gpu016: 2026-11-30T03:11:58Z stderr F 3: [rank3]: x", "x", 3, "~gpu016", T0311,
		 0},
		{"[pod/train-0/main] 2026-11-30T03:11:58Z stderr F 3: x", "x", 3, "", T0311, 0},
		{"Mon Nov 30 03:11:58 2026[1,3]<stderr>:RuntimeError: x", "RuntimeError: x", 3, "",
		 T0311, 0},
		/* logcli's label set: its host label names the shipper's machine, not read */
		{"2026-11-30T03:11:58Z {host=\"gpu016\", stream=\"stderr\"} 3: [rank3]: x", "x", 3,
		 "", T0311, 0},
		/* journalctl -o json: the time in quoted microseconds, the journal's host and pid */
		{"{\"__REALTIME_TIMESTAMP\":\"1796008318002000\",\"_HOSTNAME\":\"gpu016\","
		 "\"_PID\":\"4121\",\"MESSAGE\":\"3: [rank3]: x\"}",
		 "x", 3, "~gpu016", T0311 + 0.002, 4121},
		/* fluentd's file output: stamp, tag, the record (no time of its own) */
		{"2026-11-30T03:11:58+00:00\tslurm.job\t{\"log\":\"3: [rank3]: x\"}", "x", 3, "",
		 T0311, 0},
		/* Fluent Bit's date key */
		{"{\"date\":\"2026-11-30T03:11:58Z\",\"log\":\"3: [rank3]: x\"}", "x", 3, "", T0311,
		 0},
		/* journalctl -o export and -o verbose */
		{"MESSAGE=3: [rank3]: x", "x", 3, "", 0, 0},
		{"    MESSAGE=3: [rank3]: x", "x", 3, "", 0, 0},
	};
	/* near misses: the program's own text */
	static const struct want nm[] = {
		/* a stamp the program printed, then its words: no runtime stream follows */
		{"2026-11-30T03:11:58Z stdout Flushed 3 files", "stdout Flushed 3 files", -1, "",
		 T0311, 0},
		/* not outermost: a runtime's fields follow no program's stamp */
		{"3: 2026-11-30T03:11:58Z stderr F x", "stderr F x", 3, "", T0311, 0},
		{"ERROR 2026-11-30T03:11:58Z stderr F x", "stderr F x", -1, "", T0311, 0},
		/* "word: " after a stamp is a message, not a journal's host and tag (the text
		 * stays whole; a host-shaped first word is a merge's writer, a weak name) */
		{"2026-11-30T03:11:58Z gpu016 trainer: x", "gpu016 trainer: x", -1, "~gpu016",
		 T0311, 0},
		{"2026-11-30T03:11:58Z worker ready: x", "worker ready: x", -1, "", T0311, 0},
		/* ctime not glued to an Open MPI tag */
		{"Mon Nov 30 03:11:58 2026 x", "Mon Nov 30 03:11:58 2026 x", -1, "", 0, 0},
		{"Mon Nov 30 03:11:58 2026[ERROR] x", "Mon Nov 30 03:11:58 2026[ERROR] x", -1, "",
		 0, 0},
		/* braces the program printed: no label set */
		{"2026-11-30T03:11:58Z {job=slurm} x", "{job=slurm} x", -1, "", T0311, 0},
		/* a journal record needs its time: a message and a host alone are data */
		{"{\"_HOSTNAME\":\"gpu016\",\"MESSAGE\":\"x\"}",
		 "{\"_HOSTNAME\":\"gpu016\",\"MESSAGE\":\"x\"}", -1, "", 0, 0},
		/* a stamp and a JSON object, no shipper's tag between them: no record */
		{"2026-11-30T03:11:58Z {\"log\":\"x\"}", "{\"log\":\"x\"}", -1, "", T0311, 0},
		/* another journal field; MESSAGE= after a wrapper is the program's */
		{"MESSAGE_ID=8d45620c", "MESSAGE_ID=8d45620c", -1, "", 0, 0},
		{"3: MESSAGE=x", "MESSAGE=x", 3, "", 0, 0},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		check_one(PM_FMT_APP, &t[i]);
	for (size_t i = 0; i < sizeof(nm) / sizeof(nm[0]); i++)
		check_one(PM_FMT_APP, &nm[i]);
}
END_TEST

/* Ray's own processes' prefixes (no pid) and its log deduplication's suffix; the ip in a
 * prefix is taken off, never read as a node. */
START_TEST(peel_ray)
{
	static const struct want t[] = {
		{"(raylet, ip=10.0.3.7) Segmentation fault", "Segmentation fault", -1, "", 0, 0},
		{"(raylet) x", "x", -1, "", 0, 0},
		{"(gcs_server) x", "x", -1, "", 0, 0},
		{"(autoscaler +2m3s) x", "x", -1, "", 0, 0},
		{"(scheduler +8s) Warning: The following resource request cannot be scheduled",
		 "Warning: The following resource request cannot be scheduled", -1, "", 0, 0},
		{"(RayWorkerWrapper pid=4121, ip=10.0.3.7) x [repeated 7x across cluster]", "x", -1,
		 "", 0, 4121},
		{"(pid=4121) x [repeated 12x across cluster] (Ray deduplicates logs by default. Set "
		 "RAY_DEDUP_LOGS=0 to disable log deduplication.)",
		 "x", -1, "", 0, 4121},
		{"(VllmWorker rank=1 pid=4121) ERROR 11-30 03:11:58 [executor.py:527] x", "x", -1,
		 "", T0311, 4121},
	};
	static const struct want nm[] = {
		/* a Ray word that is no component, a tuple the program printed */
		{"(raylets, ip=10.0.3.7) x", "(raylets, ip=10.0.3.7) x", -1, "", 0, 0},
		{"(scheduler) x", "(scheduler) x", -1, "", 0, 0},
		{"(scheduler +8 s) x", "(scheduler +8 s) x", -1, "", 0, 0},
		{"(raylet, ip=gpu016 x) y", "(raylet, ip=gpu016 x) y", -1, "", 0, 0},
		{"3: worker (pid=3) exited", "worker (pid=3) exited", 3, "", 0, 0},
		/* the suffix stays the program's without Ray's prefix, and mid-line */
		{"3: x [repeated 7x across cluster]", "x [repeated 7x across cluster]", 3, "", 0,
		 0},
		{"(pid=4121) x [repeated 7x across cluster] and more",
		 "x [repeated 7x across cluster] and more", -1, "", 0, 4121},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		check_one(PM_FMT_APP, &t[i]);
	for (size_t i = 0; i < sizeof(nm) / sizeof(nm[0]); i++)
		check_one(PM_FMT_APP, &nm[i]);
}
END_TEST

START_TEST(peel_stacked)
{
	static const struct want t[] = {
		{"gpu016: [rank3]: 2026-11-30 03:11:58,002 - ERROR - text", "text", 3, "~gpu016",
		 T0311 + 0.002, 0},
		{"[1,3]<stderr>:2026-11-30 03:11:58.002 | ERROR    | m:f:1 - x", "x", 3, "",
		 T0311 + 0.002, 0},
		{"trainer-1  | 0: [rank0]: E1130 03:11:58.000000 1 t.cc:2] x", "x", 0, "~trainer-1",
		 T0311, 0},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		check_one(PM_FMT_APP, &t[i]);
}
END_TEST

/* pm_nccl_node: the node NCCL's prefix names under the wrappers a line may carry, the
 * folder's host set (att_place.c file_hosts) reads it as it does an unwrapped one */
START_TEST(nccl_node_wrapped)
{
	static const struct {
		const char *line, *node;
	} t[] = {
		{"nd-b07:4410:4502 [3] NCCL INFO comm 0x5 rank 3", "nd-b07"},
		{"2026-11-30 03:11:58,002 - ERROR - nd-b07:4410:4502 [3] NCCL WARN x", "nd-b07"},
		{"ERROR:root:nd-b07:4410:4502 [3] NCCL WARN x", "nd-b07"},
		{"nd-b07: nd-b07:4410:4502 [3] NCCL WARN x", "nd-b07"},
		{"[nd-b07:4410] nd-b07:4410:4502 [3] NCCL WARN x", "nd-b07"},
		{"\x1b[1;31mnd-b07:4410:4502\x1b[0m [3] NCCL WARN x", "nd-b07"},
		{"{\"level\": \"info\", \"message\": \"nd-b07:4410:4502 [3] NCCL WARN x\"}",
		 "nd-b07"},
		{"trainer-1  | nd-b07:4410:4502 [3] NCCL WARN x", "nd-b07"},
		/* none: no NCCL prefix, another host's prefix alone, NCCL's words quoted later */
		{"2026-11-30 03:11:58,002 - ERROR - RuntimeError: NCCL error", ""},
		{"[nd-b07:4410] *** Process received signal ***", ""},
		{"nd-b07: loading shard 3", ""},
		{"INFO - saw 'nd-b07:4410:4502 [3] NCCL WARN x' in the log", ""},
		{"slurmstepd-nd-b07: error: *** JOB 7 CANCELLED ***", ""},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		size_t n = strlen(t[i].line), l;
		char *b = malloc(n), out[64];

		ck_assert_ptr_nonnull(b);
		memcpy(b, t[i].line, n);
		l = pm_nccl_node(PM_FMT_APP, b, n, out, sizeof(out));
		ck_assert_msg(l == strlen(t[i].node) && (!l || !strcmp(out, t[i].node)),
			      "'%s': node '%.*s', want '%s'", t[i].line, (int)l, l ? out : "",
			      t[i].node);
		ck_assert_uint_eq(pm_nccl_node(PM_FMT_APP, b, n, out, 4), 0); /* no room */
		free(b);
	}
}
END_TEST

START_TEST(peel_terminal)
{
	static const struct want t[] = {
		/* a person's quote around what the launcher wrote */
		{"> 3: [rank3]: RuntimeError: boom", "RuntimeError: boom", 3, "", 0, 0},
		{"> > RuntimeError: boom", "RuntimeError: boom", -1, "", 0, 0},
		{">RuntimeError: boom", ">RuntimeError: boom", -1, "", 0, 0},
		/* a progress bar redrawn in place: the text after the last CR with content */
		{"3: 10%|#  | 1/10\r 20%|## | 2/10\rRuntimeError: boom\r", "RuntimeError: boom", 3,
		 "", 0, 0},
		{"x\r", "x", -1, "", 0, 0},
		{"\xe2\x94\x82 RuntimeError: CUDA error \xe2\x94\x82", "RuntimeError: CUDA error",
		 -1, "", 0, 0},
		{"\xe2\x95\xad\xe2\x94\x80\xe2\x94\x80 Traceback (most recent call last) "
		 "\xe2\x94\x80\xe2\x95\xae",
		 "Traceback (most recent call last)", -1, "", 0, 0},
		{"0: \xe2\x94\x82 \xe2\x94\x82 x \xe2\x94\x82 \xe2\x94\x82", "x", 0, "", 0, 0},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		check_one(PM_FMT_APP, &t[i]);
}
END_TEST

/* What is not a wrapper stays the program's text. */
/* After a level, a lower-case "name: " is a logger's: peeled, its start kept (pm_peel.logger)
 * for a line whose message itself starts "word: "; exception names, upper-case words and
 * words that quote an error are the message's. */
START_TEST(peel_logger_name)
{
	static const struct {
		const char *line, *text, *from_logger;
	} t[] = {
		{"03:11:58,002 ERROR trainer: [rank3]: x", "x", "trainer: [rank3]: x"},
		{"ERROR srun: error: gpu016: task 3: Killed", "error: gpu016: task 3: Killed",
		 "srun: error: gpu016: task 3: Killed"},
		{"ERROR RuntimeError: CUDA error: x", "RuntimeError: CUDA error: x", NULL},
		{"ERROR NCCL: x", "NCCL: x", NULL},
		{"ERROR caught: RuntimeError: x", "caught: RuntimeError: x", NULL},
		{"ERROR - trainer: x", "trainer: x", NULL},
		{"2026-11-30 03:11:58 [ERROR] finetune.loop: RuntimeError: x", "RuntimeError: x",
		 "finetune.loop: RuntimeError: x"},
		{"[ERROR] - trainer: x", "trainer: x", NULL},
		{"[ERROR]: trainer: x", "trainer: x", NULL},
		{"ERROR trainer:x", "trainer:x", NULL},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		size_t n = strlen(t[i].line);
		char *b = malloc(n);
		struct pm_peel p;

		ck_assert_ptr_nonnull(b);
		memcpy(b, t[i].line, n);
		pm_peel(PM_FMT_APP, b, n, &ctx2026, &p);
		ck_assert_msg(p.end - p.skip == strlen(t[i].text) &&
				      !memcmp(b + p.skip, t[i].text, p.end - p.skip),
			      "'%s': text '%.*s'", t[i].line, (int)(p.end - p.skip), b + p.skip);
		if (t[i].from_logger)
			ck_assert_msg(p.logger && !strcmp(t[i].line + p.logger, t[i].from_logger),
				      "'%s': logger at %zu", t[i].line, p.logger);
		else
			ck_assert_msg(!p.logger, "'%s': a logger at %zu", t[i].line, p.logger);
		free(b);
	}
	{ /* a NUL is no byte of a name */
		static const char l[] = "ERROR tra\0ner: x";
		char *b = malloc(sizeof(l) - 1);
		struct pm_peel p;

		ck_assert_ptr_nonnull(b);
		memcpy(b, l, sizeof(l) - 1);
		pm_peel(PM_FMT_APP, b, sizeof(l) - 1, &ctx2026, &p);
		ck_assert_uint_eq(p.skip, 6);
		ck_assert_uint_eq(p.logger, 0);
		free(b);
	}
}
END_TEST

/* The program's own "error: " opening the text, after its name or alone, with an exception's
 * type right after it (argparse's parser.error(), CLI wrappers): the type's start is kept
 * (pm_peel.prog), the text is not cut; no type after it, a word before it with a blank, or a
 * logger's level in its place, and nothing is kept. */
START_TEST(peel_program_error)
{
	static const struct {
		const char *line, *from;
	} t[] = {
		{"train.py: error: KeyError: 'x'", "KeyError: 'x'"},
		{"/opt/bin/prep: Error: torch.OutOfMemoryError: CUDA out of memory.",
		 "torch.OutOfMemoryError: CUDA out of memory."},
		{"error: RuntimeError: x", "RuntimeError: x"},
		{"3: run.sh: error: Exception: x", "Exception: x"},
		{"2026-11-30 03:11:58 train.py: error: ValueError", "ValueError"},
		{"train.py: error: ValueError:", "ValueError:"},
		{"train.py: error: unrecognized arguments: --lr", NULL},
		{"train.py: error: Error: x", NULL},
		{"train.py: error: KeyErrors: x", NULL},
		{"train.py: error: Error-prone: x", NULL},
		{"retrying after error: RuntimeError: x", NULL},
		{"train.py: warning: RuntimeError: x", NULL},
		{"ERROR: RuntimeError: x", NULL},
		{"train.py: error:", NULL},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		size_t n = strlen(t[i].line);
		char *b = malloc(n);
		struct pm_peel p;

		ck_assert_ptr_nonnull(b);
		memcpy(b, t[i].line, n);
		pm_peel(PM_FMT_APP, b, n, &ctx2026, &p);
		if (t[i].from)
			ck_assert_msg(p.prog > p.skip && p.prog <= p.end &&
					      p.end - p.prog == strlen(t[i].from) &&
					      !memcmp(b + p.prog, t[i].from, p.end - p.prog),
				      "'%s': prog at %zu", t[i].line, p.prog);
		else
			ck_assert_msg(!p.prog, "'%s': prog at %zu", t[i].line, p.prog);
		free(b);
	}
}
END_TEST

/* A level before the stamp: the stamp is read, and a logger's "name: " after it as after a
 * level ("%(levelname)s %(asctime)s %(name)s: %(message)s"). */
START_TEST(peel_level_first)
{
	static const struct want t[] = {
		{"ERROR 2026-11-30 03:11:58,404 trainer: RuntimeError: x", "RuntimeError: x", -1,
		 "", T0311 + 0.404, 0},
		{"ERROR 2026-11-30 03:11:58,404 RuntimeError: x", "RuntimeError: x", -1, "",
		 T0311 + 0.404, 0},
		{"[ERROR] 2026-11-30T03:11:58Z finetune.loop: x", "x", -1, "", T0311, 0},
		{"WARNING 11-30 03:11:58 x", "x", -1, "", T0311, 0},
		{"INFO 2026-11-30 03:11:58 [trainer] x", "x", -1, "", T0311, 0},
		{"ERROR [2026-11-30 03:11:58,404] trainer: x", "x", -1, "", T0311 + 0.404, 0},
		{"E1130 03:11:58.404123 12345 file.cc:42] msg", "msg", -1, "", T0311 + 0.404123, 0},
		/* a word that quotes an error is the message's */
		{"WARNING 2026-11-30 03:11:58 caught: RuntimeError: x", "caught: RuntimeError: x",
		 -1, "", T0311, 0},
		/* a stamp without a level before it: no logger's name after it */
		{"2026-11-30 03:11:58 trainer: x", "trainer: x", -1, "", T0311, 0},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		check_one(PM_FMT_APP, &t[i]);
}
END_TEST

/* Structured records: JSON lines (Docker's json-file driver among them) and logfmt.  The
 * text is the message's value; time, host, rank and pid are kept as other wrappers' are. */
START_TEST(peel_records)
{
	static const struct want t[] = {
		{"{\"log\":\"RuntimeError: x\\n\",\"stream\":\"stderr\",\"time\":\"2026-11-30T03:11:"
		 "58.25Z\"}",
		 "RuntimeError: x", -1, "", T0311 + 0.25, 0},
		{"{\"time\": \"2026-11-30T03:11:58Z\", \"level\": \"ERROR\", \"logger\": \"trainer\", "
		 "\"message\": \"RuntimeError: x\", \"host\": \"gpu017\", \"rank\": 3}",
		 "RuntimeError: x", 3, "~gpu017", T0311, 0},
		/* the message's own wrappers; the outermost time is the record's */
		{"{\"log\":\"[rank3]: 2026-11-30 03:11:50,002 - ERROR - RuntimeError: x\\n\","
		 "\"time\":\"2026-11-30T03:11:58Z\"}",
		 "RuntimeError: x", 3, "", T0311, 0},
		/* zap: epoch seconds, or milliseconds */
		{"{\"level\":\"error\",\"ts\":1796008318.25,\"caller\":\"x.go:1\",\"msg\":\"boom\","
		 "\"pid\":42}",
		 "boom", -1, "", T0311 + 0.25, 42},
		{"{\"level\":\"error\",\"ts\":1796008318250,\"msg\":\"boom\"}", "boom", -1, "",
		 T0311 + 0.25, 0},
		/* the most specific message key wins; nested values are read through */
		{"{\"time\":\"2026-11-30T03:11:58Z\",\"log\":\"a\",\"ctx\":{\"a\":[1,{\"b\":\"}\\\"]\"}]},"
		 "\"message\":\"b\"}",
		 "b", -1, "", T0311, 0},
		{"{\"@timestamp\":\"2026-11-30T03:11:58.000+00:00\",\"severity\":\"ERROR\","
		 "\"MESSAGE\":\"x\"}\r",
		 "x", -1, "", T0311, 0},
		/* log platforms' exports: Google Cloud Logging's textPayload, Loki's line (a later
		 * key than message), a search hit's _source and a jsonPayload read through */
		{"{\"insertId\":\"a1\",\"severity\":\"ERROR\",\"textPayload\":\"KeyError: 'x'\","
		 "\"timestamp\":\"2026-11-30T03:11:58Z\"}",
		 "KeyError: 'x'", -1, "", T0311, 0},
		{"{\"labels\":{\"pod\":\"t-0\"},\"line\":\"boom\",\"timestamp\":\"2026-11-30T03:"
		 "11:58Z\"}",
		 "boom", -1, "", T0311, 0},
		{"{\"line\":\"a\",\"level\":\"error\",\"message\":\"b\"}", "b", -1, "", 0, 0},
		/* a hit's nested host object (ECS host.name) is its host: weak, as a record's */
		{"{\"_index\":\"logs\",\"_id\":\"q\",\"_source\":{\"@timestamp\":\"2026-11-30T03:11:"
		 "58Z\",\"host\":{\"name\":\"gpu017\"},\"message\":\"x\",\"rank\":3}}",
		 "x", 3, "~gpu017", T0311, 0},
		/* Splunk's exported result: _raw its message, host its host */
		{"{\"preview\":false,\"result\":{\"_time\":\"2026-11-30T03:11:58Z\",\"host\":"
		 "\"gpu018\",\"_raw\":\"boom\"}}",
		 "boom", -1, "~gpu018", T0311, 0},
		{"{\"jsonPayload\":{\"message\":\"x\",\"pid\":7},\"severity\":\"ERROR\"}", "x", -1,
		 "", 0, 7},
		/* inside a launcher's and a container's prefixes */
		{"[pod/trainer-0/main] 2: {\"level\":\"error\",\"msg\":\"x\"}", "x", 2, "", 0, 0},
		/* the innermost rank wins: the record's over srun's label */
		{"0: {\"level\":\"error\",\"msg\":\"x\",\"rank\":5}", "x", 5, "", 0, 0},
		/* logfmt */
		{"time=2026-11-30T03:11:58Z level=error msg=\"RuntimeError: CUDA out of memory. "
		 "Tried to allocate 2.00 GiB\" rank=3 host=gpu017",
		 "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB", 3, "~gpu017",
		 T0311, 0},
		{"level=error message=boom", "boom", -1, "", 0, 0},
		{"ts=\"2026-11-30 03:11:58\" lvl=eror caller=main.go:42 msg=\"[rank1]: x\"", "x", 1,
		 "", T0311, 0},
		{"level=info msg=", "", -1, "", 0, 0},
	};
	/* not records: read as they are */
	static const char *const raw[] = {
		"{\"time\":\"2026-11-30T03:11:58Z\",\"level\":\"ERROR\",\"message\":\"RuntimeError: x",
		"{\"time\":\"2026-11-30T03:11:58Z\",\"level\":\"ERROR\",\"loss\":1.5}",
		"{\"text\": \"RuntimeError: x\"}", /* a data sample: no time, no level */
		"{\"line\": \"RuntimeError: x\"}",
		"{\"file\":\"a.py\",\"line\":12,\"level\":\"error\"}", /* a number: no message */
		"{\"data\":{\"message\":\"x\"},\"level\":\"error\"}",  /* no holder of a record */
		"{\"_source\":{\"message\":\"x\",\"@timestamp\":\"2026-11-30T03:11:58Z\"}",
		"{\"_source\":{\"_source\":{\"_source\":{\"message\":\"x\"}}},\"level\":\"error\"}",
		"{\"level\":\"error\",\"msg\":\"x\"} and more",
		"{\"level\":\"error\",\"msg\":{\"a\":1}}",
		"{\"level\" \"error\",\"msg\":\"x\"}",
		"{\"level\":\"error\",,\"msg\":\"x\"}",
		"{\"level\":\"error\",\"msg\":\"x\",}",
		"{\"level\":\"error\",\"msg\":\"x\\\"}",
		"{}",
		"{",
		"Setting level=debug msg=\"x\"",
		"level=debug is the default",
		"msg=\"x\" rank=3",
		"level=error msg=\"cut",
		"level=error msg=a\"b",
		"level=error",
		"=x level=error msg=y",
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		check_one(PM_FMT_APP, &t[i]);
	for (size_t i = 0; i < sizeof(raw) / sizeof(raw[0]); i++) {
		struct want w = {raw[i], raw[i], -1, "", 0, 0};
		size_t n = strlen(raw[i]);
		char *b = malloc(n);
		struct pm_peel p;

		check_one(PM_FMT_APP, &w);
		ck_assert_ptr_nonnull(b);
		memcpy(b, raw[i], n);
		pm_peel(PM_FMT_APP, b, n, &ctx2026, &p);
		ck_assert_msg(!p.record && !p.quoted && !p.xend, "'%s': a record", raw[i]);
		free(b);
	}
}
END_TEST

/* A record's value with escapes: the text is left quoted for the confirmation to undo
 * (pm_unquote); a traceback field is kept beside the message. */
START_TEST(peel_record_escapes)
{
	static const char l[] = "{\"level\":\"ERROR\",\"message\":\"step failed: \\\"x\\\"\","
				"\"exc_info\":\"Traceback (most recent call last):\\n  File "
				"\\\"t.py\\\", line 3\\nRuntimeError: x\"}";
	static const char tb[] = "Traceback (most recent call last):\n  File \"t.py\", line 3\n"
				 "RuntimeError: x";
	char *b = malloc(sizeof(l) - 1), out[256];
	struct pm_peel p;
	size_t n;

	ck_assert_ptr_nonnull(b);
	memcpy(b, l, sizeof(l) - 1);
	pm_peel(PM_FMT_APP, b, sizeof(l) - 1, &ctx2026, &p);
	ck_assert(p.record && p.quoted);
	n = pm_unquote(b + p.skip, p.end - p.skip, out);
	ck_assert_msg(n == 16 && !memcmp(out, "step failed: \"x\"", n), "'%.*s'", (int)n, out);
	n = pm_unquote(b + p.xskip, p.xend - p.xskip, out);
	ck_assert_msg(n == strlen(tb) && !memcmp(out, tb, n), "'%.*s'", (int)n, out);
	free(b);
	/* no escape: nothing to undo */
	pm_peel(PM_FMT_APP, "level=error msg=\"a b\"", 21, &ctx2026, &p);
	ck_assert(p.record && !p.quoted && p.end - p.skip == 3);
}
END_TEST

/* A Go or Node logger's error text beside its message (zap's, logrus', pino's "error", "err")
 * is read as a traceback field; a logger's own traceback field wins over it, whatever their
 * order in the record. */
START_TEST(peel_record_error_field)
{
	static const char *const l[] = {
		"{\"level\":\"error\",\"msg\":\"step failed\",\"error\":\"CUDA out of memory\"}",
		"{\"level\":\"error\",\"msg\":\"step failed\",\"err\":\"CUDA out of memory\"}",
		"{\"level\":\"error\",\"msg\":\"step failed\",\"error\":\"wrapped\","
		"\"exception\":\"CUDA out of memory\"}",
		"{\"level\":\"error\",\"msg\":\"step failed\",\"exc_info\":\"CUDA out of memory\","
		"\"err\":\"wrapped\"}",
	};
	struct pm_peel p;

	for (size_t i = 0; i < sizeof(l) / sizeof(l[0]); i++) {
		pm_peel(PM_FMT_APP, l[i], strlen(l[i]), &ctx2026, &p);
		ck_assert_msg(p.record, "'%s': not a record", l[i]);
		ck_assert_msg(p.xend - p.xskip == 18 &&
				      !memcmp(l[i] + p.xskip, "CUDA out of memory", 18),
			      "'%s': traceback '%.*s'", l[i], (int)(p.xend - p.xskip),
			      l[i] + p.xskip);
	}
}
END_TEST

/* A record's level field says whether it is a warning's or lower (scan.c's generic rules
 * leave such a record's exception: it was handled). */
START_TEST(peel_record_quiet_level)
{
	static const char *const quiet[] = {
		"{\"level\":\"warning\",\"msg\":\"ValueError: x, skipping\"}",
		"{\"severity\":\"INFO\",\"message\":\"retrying\"}",
		"level=warn msg=\"TimeoutError: y\"",
	};
	static const char *const loud[] = {
		"{\"level\":\"error\",\"msg\":\"ValueError: x\"}",
		"{\"levelname\":\"CRITICAL\",\"message\":\"ValueError: x\"}",
		"{\"stream\":\"stderr\",\"log\":\"ValueError: x\\n\"}",
	};
	struct pm_peel p;

	for (size_t i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++) {
		pm_peel(PM_FMT_APP, quiet[i], strlen(quiet[i]), &ctx2026, &p);
		ck_assert_msg(p.record && p.quiet, "'%s': not a quiet record", quiet[i]);
	}
	for (size_t i = 0; i < sizeof(loud) / sizeof(loud[0]); i++) {
		pm_peel(PM_FMT_APP, loud[i], strlen(loud[i]), &ctx2026, &p);
		ck_assert_msg(p.record && !p.quiet, "'%s': quiet", loud[i]);
	}
}
END_TEST

/* The level word a logger wrote, whatever its family (pm_peel.sev): where it is and whether it
 * is a warning's or lower (scan.c's generic rules leave such a line's exception); and the
 * families that carry one: hydra's "[name][LEVEL] - ", structlog's "[warning  ]",
 * env_logger's "[stamp LEVEL target]", tracing's "LEVEL a::b: ", logrus' "WARN[0042]",
 * zerolog's "3:04PM WRN", Lightning's "[rank: N]". */
START_TEST(peel_severity)
{
	static const struct {
		struct want w;
		int sev; /* 0 none, 1 loud, 2 quiet */
	} t[] = {
		{{"[2026-11-30 03:11:58,002][trainer.loop][WARNING] - x", "x", -1, "",
		  T0311 + 0.002, 0},
		 2},
		{{"[trainer.loop][INFO] - x", "x", -1, "", 0, 0}, 2},
		{{"[trainer.loop][ERROR] - x", "x", -1, "", 0, 0}, 1},
		{{"2026-11-30T03:11:58.25Z [warning  ] x", "x", -1, "", T0311 + 0.25, 0}, 2},
		{{"2026-11-30T03:11:58Z [error    ] x k=v", "x k=v", -1, "", T0311, 0}, 1},
		{{"[2026-11-30T03:11:58Z WARN  trainer::loop] x", "x", -1, "", T0311, 0}, 2},
		{{"[2026-11-30T03:11:58Z ERROR trainer] x", "x", -1, "", T0311, 0}, 1},
		{{"[2026-11-30T03:11:58Z INFO ] x", "x", -1, "", T0311, 0}, 2},
		{{"[ERROR trainer::loop] x", "x", -1, "", 0, 0}, 1},
		{{"[DEBUG trainer] x", "x", -1, "", 0, 0}, 2},
		{{"2026-11-30T03:11:58.5Z  WARN trainer::loop: x", "x", -1, "", T0311 + 0.5, 0}, 2},
		{{"2026-11-30T03:11:58.5Z ERROR trainer::data::shard: x", "x", -1, "", T0311 + 0.5,
		  0},
		 1},
		{{"WARN[0042] x", "x", -1, "", 0, 0}, 2},
		{{"DEBU[0000] x", "x", -1, "", 0, 0}, 2},
		{{"ERRO[0042] x", "x", -1, "", 0, 0}, 1},
		{{"FATA[12345] x", "x", -1, "", 0, 0}, 1},
		{{"3:04PM WRN x", "x", -1, "", 0, 0}, 2},
		{{"10:00AM ERR x", "x", -1, "", 0, 0}, 1},
		{{"[INF] x", "x", -1, "", 0, 0}, 2},
		{{"[rank: 3] INFO: x", "x", 3, "", 0, 0}, 2},
		{{"INFO: [rank: 3] x", "x", 3, "", 0, 0}, 2},
		{{"1: W1130 03:11:58.123456 40074 f.cc:12] x", "x", 1, "", T0311 + 0.123456, 0}, 2},
		{{"[rank1]:[W1130 03:11:58.123456 40074 f.cc:12] x", "x", 1, "", T0311 + 0.123456,
		  0},
		 2},
		{{"E1130 03:11:58.123456 40074 f.cc:12] x", "x", -1, "", T0311 + 0.123456, 0}, 1},
		{{"2026-11-30 03:11:58.123 | SUCCESS  | m:f:1 - x", "x", -1, "", T0311 + 0.123, 0},
		 2},
		{{"2026-11-30 03:11:58.123 | ERROR    | m:f:1 - x", "x", -1, "", T0311 + 0.123, 0},
		 1},
		{{"[W] x", "x", -1, "", 0, 0}, 2},
		{{"<W> x", "x", -1, "", 0, 0}, 2},
		{{"<E> x", "x", -1, "", 0, 0}, 1},
		{{"(I) x", "x", -1, "", 0, 0}, 2},
		{{"<warning> x", "x", -1, "", 0, 0}, 2},
		{{"(ERROR) x", "x", -1, "", 0, 0}, 1},
		{{"1: <W> 2026-11-30 03:11:58 x", "x", 1, "", T0311, 0}, 2},
		{{"<E> 2026-11-30 03:11:58 solver: x", "x", -1, "", T0311, 0}, 1},
		/* log4j's yy/MM/dd stamp (Spark's default layout) before its level */
		{{"26/11/30 03:11:58 WARN TaskSetManager: x", "TaskSetManager: x", -1, "", T0311,
		  0},
		 2},
		{{"26/11/30 03:11:58 ERROR Executor: x", "Executor: x", -1, "", T0311, 0}, 1},
		/* ... and only there: a script's MM/dd/yy (date '+%D %T') or dd/MM/yy is no such
		 * stamp (12/01/26 is not 2012-01-26) */
		{{"12/01/26 03:11:58 step 3 done", "12/01/26 03:11:58 step 3 done", -1, "", 0, 0},
		 0},
		{{"[E] x", "x", -1, "", 0, 0}, 1},
		/* the innermost level is the line's: a relay's INFO around the program's ERROR */
		{{"INFO ERROR:root:x", "x", -1, "", 0, 0}, 1},
		/* no level: no severity */
		{{"2026-11-30 03:11:58 - trainer - x", "x", -1, "", T0311, 0}, 0},
		/* not levels: a word in brackets with blanks, a time without its AM, a bracket
		 * with a stamp but no level, a level word glued to a field that is no count */
		{{"[errors   ] x", "[errors   ] x", -1, "", 0, 0}, 0},
		{{"[Error handling] x", "[Error handling] x", -1, "", 0, 0}, 0},
		{{"[INFO some words] x", "[INFO some words] x", -1, "", 0, 0}, 0},
		{{"10:00 AM WRN x", "10:00 AM WRN x", -1, "", 0, 0}, 0},
		{{"[2026-11-30T03:11:58Z trainer] x", "[2026-11-30T03:11:58Z trainer] x", -1, "", 0,
		  0},
		 0},
		{{"WARN[abc] x", "WARN[abc] x", -1, "", 0, 0}, 0},
		{{"[rank:3] x", "x", -1, "", 0, 0}, 0},
		/* PyTorch 2.0-2.2's own format, the logger's name before its bracketed level */
		{{"[2026-11-30 03:11:58,002] torch._dynamo.convert_frame: [WARNING] x", "x", -1, "",
		  T0311 + 0.002, 0},
		 2},
		{{"torch.distributed.elastic.multiprocessing.api: [ERROR] x", "x", -1, "", 0, 0},
		 1},
		/* an exception whose message opens with a bracketed level word is no record */
		{{"ValueError: [ERROR] x", "ValueError: [ERROR] x", -1, "", 0, 0}, 0},
	};
	struct pm_peel p;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const char *l = t[i].w.line;
		check_one(PM_FMT_APP, &t[i].w);
		pm_peel(PM_FMT_APP, l, strlen(l), &ctx2026, &p);
		ck_assert_msg(p.sev == (t[i].sev != 0), "'%s': sev %d", l, p.sev);
		ck_assert_msg(!p.sev || p.sev_quiet == (t[i].sev == 2), "'%s': quiet %d", l,
			      p.sev_quiet);
		ck_assert_msg(!p.sev || p.sev_at < p.skip, "'%s': sev_at %zu", l, p.sev_at);
	}
	/* a progress bar's level is not the text's: the text after the carriage return has
	 * none, and the one before it lies before pm_peel.cr */
	static const char bar[] = "INFO step 3 \rValueError: x";
	pm_peel(PM_FMT_APP, bar, sizeof(bar) - 1, &ctx2026, &p);
	ck_assert(p.cr > 0 && p.sev && p.sev_at < p.cr);
}
END_TEST

/* apt's, dpkg's and debootstrap's one capital and a colon ("W: ", "E: ", "N: ", "I: "): a
 * level word; and the levels below a warning's, a debug's (pm_peel.sev_debug, a record's
 * pm_peel.debug), whose lines no failure rule reads (scan.c, debug_level). */
START_TEST(peel_one_letter_and_debug_levels)
{
	static const struct {
		struct want w;
		int sev; /* 0 none, 1 loud, 2 quiet, 3 quiet and a debug's */
	} t[] = {
		{{"W: KeyError: 'x', using 0.1", "KeyError: 'x', using 0.1", -1, "", 0, 0}, 2},
		{{"N: x", "x", -1, "", 0, 0}, 2},
		{{"I: x", "x", -1, "", 0, 0}, 2},
		{{"E: ValueError: x", "ValueError: x", -1, "", 0, 0}, 1},
		{{"D: x", "x", -1, "", 0, 0}, 3},
		{{"3: W: x", "x", 3, "", 0, 0}, 2},
		{{"(D) x", "x", -1, "", 0, 0}, 3},
		{{"[V] x", "x", -1, "", 0, 0}, 3},
		{{"DEBUG x", "x", -1, "", 0, 0}, 3},
		{{"TRACE x", "x", -1, "", 0, 0}, 3},
		{{"VERBOSE: x", "x", -1, "", 0, 0}, 3},
		{{"[VERBOSE] x", "x", -1, "", 0, 0}, 3},
		{{"[verbose] x", "x", -1, "", 0, 0}, 3},
		{{"VRB x", "x", -1, "", 0, 0}, 3},
		{{"FINE: x", "x", -1, "", 0, 0}, 3},
		{{"FINER: x", "x", -1, "", 0, 0}, 3},
		{{"FINEST: x", "x", -1, "", 0, 0}, 3},
		{{"NOTICE: x", "x", -1, "", 0, 0}, 2},
		{{"SEVERE: x", "x", -1, "", 0, 0}, 1},
		{{"CRITICAL: x", "x", -1, "", 0, 0}, 1},
		{{"[FATAL] x", "x", -1, "", 0, 0}, 1},
		/* a word that starts with a level word's letters is none */
		{{"FINETUNE: x", "FINETUNE: x", -1, "", 0, 0}, 0},
		/* Serilog's console template, "[HH:mm:ss LVL] ": a time of day (no date: no
		 * time) and the level's three letters, a fraction of the second or a source
		 * context after the level allowed */
		{{"[10:02:11 VRB] x", "x", -1, "", 0, 0}, 3},
		{{"[10:02:11 DBG] x", "x", -1, "", 0, 0}, 3},
		{{"[10:02:11 INF] x", "x", -1, "", 0, 0}, 2},
		{{"[10:02:11 WRN] x", "x", -1, "", 0, 0}, 2},
		{{"[10:02:11 ERR] x", "x", -1, "", 0, 0}, 1},
		{{"[10:02:11 FTL] x", "x", -1, "", 0, 0}, 1},
		{{"[10:02:11.482 WRN] x", "x", -1, "", 0, 0}, 2},
		{{"[10:02:11 ERR Etl.Loader] x", "x", -1, "", 0, 0}, 1},
		{{"3: [10:02:11 ERR] x", "x", 3, "", 0, 0}, 1},
		/* not a level: a lower-case word after the time, a time without its level */
		{{"[10:02:11 step] x", "[10:02:11 step] x", -1, "", 0, 0}, 0},
		{{"2026-11-30 03:11:58.123 | DEBUG    | m:f:1 - x", "x", -1, "", T0311 + 0.123, 0},
		 3},
		{{"(I) x", "x", -1, "", 0, 0}, 2},
		{{"WARNING x", "x", -1, "", 0, 0}, 2},
		/* not one-letter levels: another capital, no blank after the colon, nothing after
		 * it, two capitals */
		{{"A: x", "A: x", -1, "", 0, 0}, 0},
		{{"W:x", "W:x", -1, "", 0, 0}, 0},
		{{"WE: x", "WE: x", -1, "", 0, 0}, 0},
	};
	static const char dbg[] = "{\"level\":\"debug\",\"msg\":\"OSError: [Errno 122] x\"}";
	static const char inf[] = "{\"level\":\"info\",\"msg\":\"x\"}";
	struct pm_peel p;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const char *l = t[i].w.line;
		check_one(PM_FMT_APP, &t[i].w);
		pm_peel(PM_FMT_APP, l, strlen(l), &ctx2026, &p);
		ck_assert_msg(p.sev == (t[i].sev != 0), "'%s': sev %d", l, p.sev);
		ck_assert_msg(!p.sev || p.sev_quiet == (t[i].sev >= 2), "'%s': quiet %d", l,
			      p.sev_quiet);
		ck_assert_msg(!p.sev || p.sev_debug == (t[i].sev == 3), "'%s': debug %d", l,
			      p.sev_debug);
	}
	pm_peel(PM_FMT_APP, dbg, sizeof(dbg) - 1, &ctx2026, &p);
	ck_assert(p.record && p.quiet && p.debug);
	pm_peel(PM_FMT_APP, inf, sizeof(inf) - 1, &ctx2026, &p);
	ck_assert(p.record && p.quiet && !p.debug);
}
END_TEST

/* One member of a pretty-printed object alone on its line (torchelastic's error file in its
 * failure summary): a message or a traceback is a record; a data object's members are not. */
START_TEST(peel_record_members)
{
	static const struct want t[] = {
		{"    \"message\": \"RuntimeError: x\",", "RuntimeError: x", -1, "", 0, 0},
		{"  \"msg\" : \"RuntimeError: x\"", "RuntimeError: x", -1, "", 0, 0},
		{"\"Message\": \"x\" ,\r", "x", -1, "", 0, 0},
		{"[rank4]: 2026-11-30 03:11:58 ERROR    \"message\": \"x\",", "x", 4, "", T0311, 0},
		{"      \"py_callstack\": \"Traceback (most recent call last):\\nValueError: v\\n\",",
		 "Traceback (most recent call last):\\nValueError: v", -1, "", 0, 0},
		{"\"traceback\": \"t\"", "t", -1, "", 0, 0},
	};
	static const char *const raw[] = {
		"    \"text\": \"RuntimeError: x\",", /* a data sample's */
		"\"log\": \"RuntimeError: x\"",
		"\"line\": \"RuntimeError: x\"",
		"\"label\": \"RuntimeError: x\",",
		"\"message\": \"x\", retried",
		"\"message\": \"x\",,",
		"\"message\": 3,",
		"\"message\": {",
		"\"message\": \"cut",
		"\"message\" \"x\"",
		"\"message\":",
		"\"",
	};
	struct pm_peel p;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		check_one(PM_FMT_APP, &t[i]);
	pm_peel(PM_FMT_APP, t[4].line, strlen(t[4].line), &ctx2026, &p);
	ck_assert(p.record && p.quoted && !p.xend);
	for (size_t i = 0; i < sizeof(raw) / sizeof(raw[0]); i++) {
		struct want w = {raw[i], raw[i], -1, "", 0, 0};

		check_one(PM_FMT_APP, &w);
		pm_peel(PM_FMT_APP, raw[i], strlen(raw[i]), &ctx2026, &p);
		ck_assert_msg(!p.record && !p.quoted && !p.xend, "'%s': a record", raw[i]);
	}
}
END_TEST

START_TEST(unquote)
{
	static const struct {
		const char *in, *out;
		size_t outlen;
	} t[] = {
		{"a\\\"b\\\\c\\/d\\n\\t\\r\\b\\f", "a\"b\\c/d\n\t\r\b\f", 0},
		{"\\u00e9\\u2014", "\xc3\xa9-", 0}, /* a dash made ASCII, as pm_text_clean does */
		{"can\\u2019t \\u2018x\\u2019 \\u201cy\\u201d \\u2013", "can't 'x' \"y\" -", 0},
		{"\\u2026", "\xe2\x80\xa6", 0},
		{"\\ud83d\\ude00!", "\xf0\x9f\x98\x80!", 0},
		{"\\uD83D\\uDE00", "\xf0\x9f\x98\x80", 0},
		{"\\ud83d x", "\xef\xbf\xbd x", 0}, /* a lone high surrogate */
		{"\\ude00", "\xef\xbf\xbd", 0},	    /* a lone low one */
		{"\\ud83d\\u0041",
		 "\xef\xbf\xbd"
		 "A",
		 0},		       /* a high one, no low one after */
		{"\\u12", "\\u12", 0}, /* cut */
		{"\\uzzzz", "\\uzzzz", 0},
		{"\\q", "\\q", 0},
		{"a\\", "a\\", 0},
		{"\\\\\\", "\\\\", 0},
		{"\\x41\\U0001F600\\a\\v", "A\xf0\x9f\x98\x80\a\v", 0},
		{"\\U00110000", "\\U00110000", 0},
		{"\\u0000x", "\0x", 2},
		{"", "", 0},
	};
	char out[64], in[64];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		size_t want = t[i].outlen ? t[i].outlen : strlen(t[i].out);
		size_t l = strlen(t[i].in);
		size_t n = pm_unquote(t[i].in, l, out);

		ck_assert_msg(n <= l && n == want && !memcmp(out, t[i].out, n), "case %zu: '%.*s'",
			      i, (int)n, out);
		memcpy(in, t[i].in, l); /* in place */
		n = pm_unquote(in, l, in);
		ck_assert_msg(n == want && !memcmp(in, t[i].out, n), "case %zu in place", i);
	}
}
END_TEST

START_TEST(peel_not_wrappers)
{
	static const struct want t[] = {
		{"RuntimeError: CUDA error: x", "RuntimeError: CUDA error: x", -1, "", 0, 0},
		{"hello: world", "hello: world", -1, "", 0, 0},
		{"Epoch 3: loss", "Epoch 3: loss", -1, "", 0, 0},
		{"  File \"x.py\", line 3", "  File \"x.py\", line 3", -1, "", 0, 0},
		{"slurmstepd-gpu016: error: *** JOB", "slurmstepd-gpu016: error: *** JOB", -1,
		 "gpu016", 0, 0},
		{"ValueError2: x", "ValueError2: x", -1, "", 0, 0},
		{"[Proxy Service 3] Failed", "[Proxy Service 3] Failed", -1, "", 0, 0},
		{"rank 3 of 8: x", "rank 3 of 8: x", -1, "", 0, 0},
		{"ranked 3: x", "ranked 3: x", -1, "", 0, 0},
		{"ERROR rank 3: x", "rank 3: x", -1, "", 0, 0},
		{"<6> x", "<6> x", -1, "", 0, 0},
		{"<stdin> x", "<stdin> x", -1, "", 0, 0},
		{"(e) x", "(e) x", -1, "", 0, 0},
		{"26/13/30 03:11:58 x", "26/13/30 03:11:58 x", -1, "", 0, 0},
		{"NCCL WARN x", "NCCL WARN x", -1, "", 0, 0},
		{"[serving.py:908] x", "x", -1, "", 0, 0},
		{"", "", -1, "", 0, 0},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		check_one(PM_FMT_APP, &t[i]);
	/* kernel and daemon formats keep their own prefixes */
	struct want k = {"Nov 30 03:11:58 gpu016 kernel: NVRM: x\r", "NVRM: x", -1, "gpu016", 0, 0};
	check_one(PM_FMT_SYSLOG, &k);
	struct want d = {"2026-11-30 03:11:58,002 - ERROR - x",
			 "2026-11-30 03:11:58,002 - ERROR - x",
			 -1,
			 "",
			 0,
			 0};
	check_one(PM_FMT_DMESG, &d);
	/* grep -H's file name before a kernel log's own stamp; dmesg -H's stamps */
	struct want g =
		{"messages:Nov 30 03:11:58 gpu016 kernel: NVRM: x", "NVRM: x", -1, "gpu016", 0, 0};
	check_one(PM_FMT_SYSLOG, &g);
	struct want h = {"kern.log:123:[ 5612.000001] NVRM: x", "NVRM: x", -1, "", 0, 0};
	check_one(PM_FMT_DMESG, &h);
	struct want r = {"[  +0.000844] pcieport 0000:00:03.0: AER: x",
			 "pcieport 0000:00:03.0: AER: x",
			 -1,
			 "",
			 0,
			 0};
	check_one(PM_FMT_DMESG, &r);
	struct want m = {"[Nov30 03:11] x", "x", -1, "", 0, 0};
	check_one(PM_FMT_DMESG, &m);
	struct want nh = {"Feb 23 03:28:16 kernel: mce: x", "mce: x", -1, "", 0, 0};
	check_one(PM_FMT_SYSLOG, &nh);
	/* "3: " is no grep file name: no stamp follows */
	struct want l = {"3: [    1.000000] x", "3: [    1.000000] x", -1, "", 0, 0};
	check_one(PM_FMT_DMESG, &l);
}
END_TEST

/* Truncated at every length, a megabyte of wrapper-looking bytes, NULs: no crash, a bounded
 * head only. */
START_TEST(peel_hostile)
{
	static const char *const cuts[] = {
		"gpu016: [rank3]: 2026-11-30 03:11:58,002 - ERROR - text",
		"[1,3]<stderr>:x",
		"(RayTrainWorker pid=4567, ip=10.0.0.1) [rank3]: x",
		"E0000 00:00:1796008318.250000 1234 file.cc:12] msg",
		"[W1130 03:11:58.000000000 ProcessGroupNCCL.cpp:1117] x",
		"Nov 30 03:11:58 gpu016 python3[4242]: x",
		"3: 10%|#  | 1/10\r 20%|## | 2/10\rx\r",
		"\xe2\x94\x82 x \xe2\x94\x82",
		"2026-11-30 03:11:58.002 | ERROR    | __main__:main:135 - x",
		"{\"log\":\"[rank3]: x\\n\",\"time\":\"2026-11-30T03:11:58Z\",\"a\":[{\"b\":1}]}",
		"{\"level\":\"ERROR\",\"msg\":\"a\\\"b\\u12\",\"exc_info\":\"x\\ny\\\\\"}",
		"time=2026-11-30T03:11:58Z level=error msg=\"a \\\"b\\\" c\" rank=3 host=gpu017",
		"ERROR 2026-11-30 03:11:58,404 trainer: x",
		"2026-11-30T03:11:58.002Z stderr F 3: [rank3]: x",
		"2026-11-30T03:11:58Z {job=\"a\", stream=\"stderr\"} 3: x",
		"2026-11-30T03:11:58+0000 gpu016 slurm-job[4121]: 3: x",
		"2026-11-30T03:11:58+00:00\tslurm.job\t{\"message\":\"3: x\"}",
		"Mon Nov 30 03:11:58 2026[1,3]<stderr>:x",
		"(raylet, ip=10.0.3.7) x",
		"(autoscaler +2m3s) x",
		"(pid=4121) x [repeated 12x across cluster] (Ray deduplicates logs by default.)",
		"{\"__REALTIME_TIMESTAMP\":\"1796008318002000\",\"MESSAGE\":\"x\"}",
		"    MESSAGE=3: x",
	};
	size_t big = 1 << 20;
	struct pm_peel p;
	char *b;

	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		size_t n = strlen(cuts[i]);
		for (size_t k = 0; k <= n; k++) {
			b = malloc(k ? k : 1);
			ck_assert_ptr_nonnull(b);
			memcpy(b, cuts[i], k);
			pm_peel(PM_FMT_APP, b, k, &ctx2026, &p);
			ck_assert_uint_le(p.skip, p.end);
			ck_assert_uint_le(p.end, k);
			pm_peel(PM_FMT_APP, b, k, NULL, &p);
			free(b);
		}
	}
	b = malloc(big);
	ck_assert_ptr_nonnull(b);
	memset(b, ']', big); /* the bytes after the last whole "[a]" */
	for (size_t i = 0; i + 3 <= big; i += 3)
		memcpy(b + i, "[a]", 3); /* a wrapper after a wrapper, forever */
	pm_peel(PM_FMT_APP, b, big, &ctx2026, &p);
	ck_assert_uint_le(p.skip, 512);
	memset(b, '\r', big);
	pm_peel(PM_FMT_APP, b, big, &ctx2026, &p);
	ck_assert_uint_le(p.end, big);
	memset(b, 0, big);
	pm_peel(PM_FMT_APP, b, big, &ctx2026, &p);
	ck_assert_uint_eq(p.skip, 0);
	/* a megabyte-long message, one of backslashes, a megabyte of nesting */
	memcpy(b, "{\"level\":\"error\",\"msg\":\"", 24);
	memset(b + 24, 'a', big - 26);
	memcpy(b + big - 2, "\"}", 2);
	pm_peel(PM_FMT_APP, b, big, &ctx2026, &p);
	ck_assert(p.record && p.skip == 24 && p.end == big - 2);
	memset(b + 24, '\\', big - 26);
	pm_peel(PM_FMT_APP, b, big, &ctx2026, &p);
	ck_assert(p.record && p.quoted && p.end == big - 2);
	memset(b + 24, '[', big - 26);
	pm_peel(PM_FMT_APP, b, big, &ctx2026, &p);
	ck_assert(p.record);
	memcpy(b, "{\"level\":\"error\",\"x\":", 21);
	memset(b + 21, '[', big - 21);
	pm_peel(PM_FMT_APP, b, big, &ctx2026, &p);
	ck_assert(!p.record && p.skip == 0);
	pm_peel(PM_FMT_APP, NULL, 0, &ctx2026, &p);
	ck_assert_int_eq(p.rank, -1);
	free(b);
}
END_TEST

START_TEST(text_clean)
{
	static const struct {
		const char *in, *out;
	} t[] = {
		{"\x1b[1;31mRuntimeError\x1b[0m: x\x1b[K\n", "RuntimeError: x\n"},
		{"a\r\nb\r\n", "a\nb\n"},
		{"a\rb\n", "a\rb\n"}, /* a progress bar's CR stays for the reader */
		{"\x1b]0;title\x07x", "x"},
		{"\x1b(Bx", "x"},
		{"\x1b[", ""},
		{"\x1b", ""},
		/* typographic quotes and dashes, as forums and GCC in a UTF-8 locale print them */
		{"No module named \xe2\x80\x98"
		 "apex\xe2\x80\x99\n",
		 "No module named 'apex'\n"},
		{"\xe2\x80\x9cx\xe2\x80\x9d \xe2\x80\x93 y \xe2\x80\x94 z", "\"x\" - y - z"},
		{"\x1b[31m\xe2\x80\x98"
		 "a\xe2\x80\x99\x1b[0m\r\n",
		 "'a'\n"},
		/* other characters of the block, a box frame and a cut sequence stay */
		{"\xe2\x80\xa6 \xe2\x94\x82 \xe2\x80", "\xe2\x80\xa6 \xe2\x94\x82 \xe2\x80"},
		/* a web page's spaces (&nbsp;, U+2002, U+2009, U+202F) are blanks, its zero-width
		 * characters (U+200B, U+200D, U+2060) nothing */
		{"\xc2\xa0\xc2\xa0"
		 "File x\xe2\x80\x82y\xe2\x80\x89z\xe2\x80\xafw",
		 "  File x y z w"},
		{"NVRM:\xe2\x80\x8b Xid\xe2\x80\x8d 79\xe2\x81\xa0.", "NVRM: Xid 79."},
		{"\x1b[31mout\xc2\xa0of\xc2\xa0memory\x1b[0m\r\n", "out of memory\n"},
		/* the rest of U+0080..U+00BF, of U+2000's block and a cut no-break space stay */
		{"25\xc2\xb0"
		 "C \xc2\xb5s \xe2\x80\x8e \xe2\x81\xa1 \xc2",
		 "25\xc2\xb0"
		 "C \xc2\xb5s \xe2\x80\x8e \xe2\x81\xa1 \xc2"},
	};
	char out[64];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		size_t n = pm_text_clean(t[i].in, strlen(t[i].in), out);
		ck_assert_msg(n == strlen(t[i].out) && !memcmp(out, t[i].out, n),
			      "case %zu: '%.*s'", i, (int)n, out);
	}
}
END_TEST

/* What SH takes off LINE (an exact-size heap copy) leaves AFTER; I names the case. */
static void check_skip(size_t i, const struct pm_paste *sh, const char *line, const char *after)
{
	size_t n = strlen(line), k;
	char *b = malloc(n ? n : 1);

	ck_assert_ptr_nonnull(b);
	memcpy(b, line, n);
	k = pm_paste_skip(b, n, sh);
	ck_assert_msg(n - k == strlen(after) && !memcmp(b + k, after, n - k), "case %zu: '%.*s'", i,
		      (int)(n - k), b + k);
	free(b);
}

/* A paste's indentation, read off a file's head and taken off each line. */
START_TEST(paste_shape)
{
	static const struct {
		const char *head;
		int indent, quoted;
		const char *line, *after; /* a line of the file, and what is left of it */
	} t[] = {
		/* a Markdown code block: every line indented, blank lines aside */
		{"    [  12.5] NVRM: Xid (PCI:0000:3b:00): 79\n\n    [  12.6] x\n", 4, 0,
		 "    [  12.7] y\n", "[  12.7] y\n"},
		{"\t\ta\n\t\t  b\n", 2, 0, "\t\t  c", "  c"},
		/* a quote, with the indentation inside it */
		{"> Traceback (most recent call last):\n>   File \"x.py\"\n> OSError: x\n", 0, 1,
		 "> OSError: y\n", "OSError: y\n"},
		{"> > a\n>> b\n", 0, 1, ">>   c", "  c"},
		{">    a\n>    b\n", 3, 1, ">      c\n", "  c\n"},
		/* fences are not the paste's lines */
		{"```\n    a\n    b\n```\n", 4, 0, "    a", "a"},
		/* not a paste: a traceback's own indentation, one line, a quote in some lines only,
		 * a cut last line */
		{"Traceback (most recent call last):\n  File \"x.py\", line 1\n", 0, 0, "  x",
		 "  x"},
		{"    only one line\n", 0, 0, "    x", "    x"},
		{"> a\n  b\n  c\n", 0, 0, "  x", "  x"},
		/* a person's few lines above a quote leave it one; more, or one inside it, do not */
		{"On Wed, Dec 9, 2026 at 14:41, hpc-support wrote:\n> a\n>\n> b\n", 0, 1, "> c\n",
		 "c\n"},
		{"w\nx\ny\nz\n> a\n> b\n", 0, 0, "> c", "> c"},
		{"> a\nx\n> b\n> c\n", 0, 0, "> d", "> d"},
		{"  a\n  b\nc", 2, 0, "  x", "x"},
		{" a\n b\n", 0, 0, " x", " x"},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct pm_paste sh;

		pm_paste_shape(t[i].head, strlen(t[i].head), &sh);
		ck_assert_msg(sh.indent == t[i].indent && sh.quoted == t[i].quoted,
			      "case %zu: indent %d quoted %d", i, sh.indent, sh.quoted);
		check_skip(i, &sh, t[i].line, t[i].after);
	}
}
END_TEST

/* Line numbers in front of every line (`cat -n`, a viewer's copy): counting up by one, at
 * least three lines; srun's labels and a column of numbers that does not count are not. */
START_TEST(paste_numbered)
{
	static const struct {
		const char *head;
		int numbered;
		const char *line, *after;
	} t[] = {
		{"     1\t[  12.5] NVRM: x\n     2\t\n     3\t[  12.6] y\n", 1,
		 "    14\t[ 1.0] z\n", "[ 1.0] z\n"},
		{"9  a\n10  b\n11  > c\n12  d\n", 1, "13  > > e", "e"},
		{"0: a\n1: b\n2: c\n", 0, "3: d", "3: d"},
		{"1 a\n2 b\n", 0, "3 c", "3 c"},
		{"1 a\n2 b\n4 c\n", 0, "5 d", "5 d"},
		{"1 a\nb\n2 c\n", 0, "3 d", "3 d"},
		/* a gutter's bar; an editor's colon, from 1 over eight lines; a permalink's L */
		{"  1 | a\n  2 |\n  3 | b\n", PM_NUM_BAR, "  4 | c", "c"},
		{"1: a\n2: b\n3: c\n4: d\n5: e\n6: f\n7: g\n8: h\n", PM_NUM_COLON, "9: 3: x",
		 "3: x"},
		{"0: a\n1: b\n2: c\n3: d\n4: e\n5: f\n6: g\n7: h\n", 0, "8: x", "8: x"},
		{"4: a\n5: b\n6: c\n", 0, "7: x", "7: x"},
		{"L7 a\nL8 b\nL9 c\n", PM_NUM_L, "L10 d", "d"},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct pm_paste sh;

		pm_paste_shape(t[i].head, strlen(t[i].head), &sh);
		ck_assert_msg(sh.numbered == t[i].numbered, "case %zu: numbered %d", i,
			      sh.numbered);
		if (i == 1)
			sh.quoted = true; /* one line quoted of three: the test's own */
		check_skip(i, &sh, t[i].line, t[i].after);
	}
}
END_TEST

/* A quote behind a CI runner's stamps (a step that printed a reply quoting a log): the stamps
 * and the markers are the paste's, the runner's own lines aside; a stamp before a program's
 * prefix (srun's label, a shell's host), or before a quote on some lines only, is none. */
START_TEST(paste_runner)
{
	static const struct {
		const char *head;
		int runner, quoted;
		const char *line, *after;
	} t[] = {
		{"2026-12-08T17:09:40.1187342Z ##[group]Run sed 's/^/> /' out\n"
		 "2026-12-08T17:09:40.1189013Z sed 's/^/> /' out\n"
		 "2026-12-08T17:09:40.1190110Z ##[endgroup]\n"
		 "2026-12-08T17:09:40.1302276Z > 0: step 3100\n"
		 "2026-12-08T17:09:40.1303012Z > \n"
		 "2026-12-08T17:09:40.1303640Z > 2: Traceback (most recent call last):\n",
		 1, 1, "2026-12-08T17:09:40.1305340Z > 2: RuntimeError: x\n",
		 "2: RuntimeError: x\n"},
		/* a reply quoting the runner's log; a shipper's second stamp in Z */
		{"> 2026-12-08T14:52:03.4533917Z > ==> a/dmesg.log <==\n"
		 "> 2026-12-08T14:52:03.4535120Z > [Tue Dec  8 13:58:41 2026] NVRM: x\n",
		 1, 1, "> 2026-12-08T14:52:03.4535744Z 2026-12-08T14:52:03Z > gn01: y", "gn01: y"},
		{"2026-12-08T17:09:40.1302276Z 0: step 3100\n"
		 "2026-12-08T17:09:40.1303640Z gn03: RuntimeError: x\n",
		 0, 0, "2026-12-08T17:09:40.1303640Z > 1: x", "> 1: x"},
		{"2026-12-08T17:09:40.1302276Z > 0: step 3100\n"
		 "2026-12-08T17:09:40.1303640Z 1: RuntimeError: x\n",
		 0, 0, "2026-12-08T17:09:40.1303640Z > 1: x", "> 1: x"},
		{"2026-12-08T17:09:40.1302276Z > 0: step 3100\n", 0, 0,
		 "2026-12-08T17:09:40.1303640Z > 1: x", "2026-12-08T17:09:40.1303640Z > 1: x"},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct pm_paste sh;

		pm_paste_shape(t[i].head, strlen(t[i].head), &sh);
		ck_assert_msg(sh.runner == t[i].runner && sh.quoted == t[i].quoted,
			      "case %zu: runner %d quoted %d", i, sh.runner, sh.quoted);
		check_skip(i, &sh, t[i].line, t[i].after);
	}
}
END_TEST

/* A head copied out of a page's HTML source: escaped when it holds an entity for < > " ' and
 * no raw < or > past a line's quote markers; undone to the characters. */
START_TEST(paste_html_escaped)
{
	static const struct {
		const char *head;
		bool escaped;
	} t[] = {
		{"  File \"x.py\", line 3, in &lt;module&gt;\nKeyError: &#39;a&#39;\n", true},
		{"&gt; KeyError: &quot;a&quot;\n> &gt; b\n", true},
		{"get?a=1&amp;b=2\n", false},
		{"parsed: &lt;ok&gt; <done>\n", false},
		{"plain text\n", false},
	};
	char out[64];
	const char *e = "&lt;module&gt; &quot;x&quot; &#39;y&#x27; &amp;lt; &zz;";
	size_t n;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		ck_assert_msg(pm_html_escaped(t[i].head, strlen(t[i].head)) == t[i].escaped,
			      "case %zu", i);
	n = pm_html_unescape(e, strlen(e), out);
	ck_assert_int_eq((int)n, (int)strlen("<module> \"x\" 'y' &lt; &zz;"));
	ck_assert(!memcmp(out, "<module> \"x\" 'y' &lt; &zz;", n));
}
END_TEST

/* A collector's stamp before every line (kubectl logs --timestamps, docker logs -t, a CI
 * runner): a candidate the sniff keeps or drops (scan.c); taken off as one layer, after the
 * paste's other parts, with its one blank. */
START_TEST(paste_stamped)
{
	static const struct {
		const char *head;
		int stamped;
		const char *line, *after;
	} t[] = {
		{"2026-11-27T02:41:07.318204556Z [  12.5] NVRM: x\n"
		 "2026-11-27T02:41:07.3182Z [  12.6] y\n",
		 1, "2026-11-27T02:41:08Z [ 13.0] z\n", "[ 13.0] z\n"},
		{"    2026-11-27T02:41:07.1234567Z a\n    2026-11-27T02:41:08.1234567Z b\n", 1,
		 "    2026-11-27T02:41:09.1234567Z  c", " c"},
		{"2026-11-27T02:41:07Z 2026-11-27T02:41:06,5+00:00 a\n2026-11-27T02:41:08Z b\n", 1,
		 "2026-11-27T02:41:09Z 2026-11-27T02:41:08,100000+00:00 c",
		 "2026-11-27T02:41:08,100000+00:00 c"},
		{"2026-11-27T02:41:07+00:00 gpu1 kernel: a\n2026-11-27T02:41:08+00:00 gpu1 kernel: b\n",
		 1, "2026-11-27T02:41:09+0000 gpu1 kernel: c", "gpu1 kernel: c"},
		/* no zone, a space for 'T', one line of two without: no stamp shape */
		{"2026-11-27T02:41:07.12 a\n2026-11-27T02:41:08.12 b\n", 0, "x", "x"},
		{"2026-11-27 02:41:07Z a\n2026-11-27 02:41:08Z b\n", 0, "x", "x"},
		{"2026-11-27T02:41:07Z a\nb\n", 0, "x", "x"},
		{"2026-11-27T02:41:07Z a\n", 0, "x", "x"},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct pm_paste sh;

		pm_paste_shape(t[i].head, strlen(t[i].head), &sh);
		ck_assert_msg(sh.stamped == t[i].stamped, "case %zu: stamped %d", i, sh.stamped);
		check_skip(i, &sh, t[i].line, t[i].after);
	}
}
END_TEST

/* A terminal's copy that broke every longer line at its width: told from the head's longest
 * lines, each followed by a line that continues it; pm_paste_strip reads each broken line as
 * one.  Records of one length that each start with a wrapper, a table's rows, padding and a
 * long file's one line of a usual width are no such copy. */
static void repeat(char *out, size_t n, const char *unit)
{
	size_t k = strlen(unit), o = 0;

	while (o + k <= n) {
		memcpy(out + o, unit, k);
		o += k;
	}
	memcpy(out + o, unit, n - o);
	out[n] = '\0';
}

START_TEST(paste_wrap)
{
	char a[8192], l90[91], l80[81], l160[161], line[256], out[8192];
	struct pm_paste sh;
	size_t n;

	repeat(l90, 90, "abc def ");
	/* three lines broken at 90: two pieces ending inside a word or after one, a shorter
	 * tail; a continuation may start with one blank */
	snprintf(a, sizeof(a), "[  1.0] start\n%s\ntail of it\n%s\n more\nshort\n", l90, l90);
	pm_paste_shape(a, strlen(a), &sh);
	ck_assert_int_eq(sh.wrap, 90);
	n = pm_paste_strip(a, strlen(a), &sh, out);
	out[n] = '\0';
	ck_assert_msg(strstr(out, "tail of it") == out + 14 + 90 && strstr(out, "def ab more\n"),
		      "strip: %s", out);
	/* a continuation that starts with a wrapper, or indented, is a line of its own */
	snprintf(line, sizeof(line), "%s", l90);
	ck_assert(pm_paste_joins(line, 90, "tail", 4, &sh));
	ck_assert(!pm_paste_joins(line, 90, "[   12.345678] next", 19, &sh));
	ck_assert(!pm_paste_joins(line, 90, "Jun 17 20:18:08 gpu1 kernel: x", 30, &sh));
	ck_assert(!pm_paste_joins(line, 90, "3: next", 7, &sh));
	ck_assert(!pm_paste_joins(line, 90, "  File \"x.py\"", 14, &sh));
	ck_assert(!pm_paste_joins(line, 89, "tail", 4, &sh));
	/* a progress bar redrawn with carriage returns: a program's own line, no piece */
	line[40] = '\r';
	ck_assert(!pm_paste_joins(line, 90, "tail", 4, &sh));
	line[40] = 'x';
	ck_assert(!pm_paste_joins(line, 90, " 40%|##  | 4/10\rtail", 19, &sh));
	/* a tqdm bar that closes its bracket at the width is whole (tqdm sizes it to the
	 * terminal); one cut inside its postfix is a piece */
	snprintf(line, sizeof(line), "%s", "Epoch 1:  40%|####      | 400/1000 [01:10<01:45, ");
	n = strlen(line);
	memset(line + n, 'x', 90 - n - 1);
	line[89] = ']';
	line[90] = '\0';
	ck_assert(!pm_paste_joins(line, 90, "Killed", 6, &sh));
	line[89] = 'x';
	ck_assert(pm_paste_joins(line, 90, "=1.0]", 5, &sh));
	/* records of one length, each with its rank's label: no copy of a terminal */
	snprintf(a, sizeof(a), "0: %s\n1: %s\n2: %s\n3: done\n", l90, l90, l90);
	pm_paste_shape(a, strlen(a), &sh);
	ck_assert_int_eq(sh.wrap, 0);
	/* a table's rows end in its frame; padded lines end in blanks */
	snprintf(a, sizeof(a), "|%s|\n|%s|\n|%s|\nx\n", l90, l90, l90);
	pm_paste_shape(a, strlen(a), &sh);
	ck_assert_int_eq(sh.wrap, 0);
	snprintf(a, sizeof(a), "%.88s  \nnext\n%.88s  \nnext\nx\n", l90, l90);
	pm_paste_shape(a, strlen(a), &sh);
	ck_assert_int_eq(sh.wrap, 0);
	/* a message repeated (a retry's warning, each line as wide as the widest): the same
	 * line again is no continuation, and one piece left at a width no terminal keeps of its
	 * own is no copy of one */
	ck_assert(!pm_paste_joins(line, 90, line, 90, &sh));
	/* a shell's messages, each after the script's path and line: the next message, not a
	 * continuation */
	snprintf(a, sizeof(a), "%s",
		 "/var/spool/slurmd/job4410/slurm_script: line 8: module: "
		 "command not found\n"
		 "/var/spool/slurmd/job4410/slurm_script: line 9: module: "
		 "command not found\n"
		 "/var/spool/slurmd/job4410/slurm_script: line 10: pip3: "
		 "command not found\n");
	pm_paste_shape(a, strlen(a), &sh);
	ck_assert_int_eq(sh.wrap, 0);
	/* Slurm's tools write whole lines: srun's report after a line of the width is its own */
	ck_assert(!pm_paste_joins(line, 90, "srun: error: cn004: task 12: Aborted", 36, &sh));
	ck_assert(!pm_paste_joins(line, 90, "slurmstepd: error: *** STEP 7.0 ON n1", 37, &sh));
	repeat(l80, 80, "Assertion ");
	snprintf(a, sizeof(a), "line one\n%s\nsrun: error: cn004: task 1: Exited\n", l80);
	pm_paste_shape(a, strlen(a), &sh);
	ck_assert_int_eq(sh.wrap, 0);
	snprintf(a, sizeof(a), "%s\n%s\n%s\nend\n", l90, l90, l90);
	pm_paste_shape(a, strlen(a), &sh);
	ck_assert_int_eq(sh.wrap, 0);
	/* one broken line: in a short paste at a usual width, yes; at another width, or in a
	 * long file, no */
	repeat(l80, 80, "Assertion ");
	snprintf(a, sizeof(a), "line one\n%s\nfailed.\n", l80);
	pm_paste_shape(a, strlen(a), &sh);
	ck_assert_int_eq(sh.wrap, 80);
	snprintf(a, sizeof(a), "line one\n%.79s\nfailed.\n", l80);
	pm_paste_shape(a, strlen(a), &sh);
	ck_assert_int_eq(sh.wrap, 0);
	repeat(l160, 160, "binary: /opt/python3 ");
	n = (size_t)snprintf(a, sizeof(a), "%s\nChildFailedError:\n", l160);
	for (int i = 0; i < 12; i++)
		n += (size_t)snprintf(a + n, sizeof(a) - n, "  line %d\n", i);
	pm_paste_shape(a, strlen(a), &sh);
	ck_assert_int_eq(sh.wrap, 0);
}
END_TEST

/* The head a format is told from: the paste's indentation and its fences gone. */
START_TEST(paste_strip)
{
	const char *in = "```text\n    [  1.0] a\n\n    [  2.0] b\n```\n";
	char out[64];
	struct pm_paste sh;
	size_t n;

	pm_paste_shape(in, strlen(in), &sh);
	n = pm_paste_strip(in, strlen(in), &sh, out);
	ck_assert_msg(n == strlen("[  1.0] a\n\n[  2.0] b\n") &&
			      !memcmp(out, "[  1.0] a\n\n[  2.0] b\n", n),
		      "'%.*s'", (int)n, out);
}
END_TEST

/* The scan's quick test for a chunk that needs cleaning: any position, any of the bytes,
 * the vectorised rounds and the tail alike. */
START_TEST(text_dirty)
{
	static const char marks[] = {0x1b, '\r', (char)0xe2, (char)0xc2};
	char buf[300];

	memset(buf, 'a', sizeof(buf));
	for (size_t n = 0; n <= sizeof(buf); n++)
		ck_assert(!pm_text_dirty(buf, n));
	for (size_t m = 0; m < sizeof(marks); m++)
		for (size_t at = 0; at < sizeof(buf); at++) {
			buf[at] = marks[m];
			ck_assert_msg(pm_text_dirty(buf, sizeof(buf)), "mark %zu at %zu", m, at);
			ck_assert(!pm_text_dirty(buf, at));
			buf[at] = 'a';
		}
	buf[5] = (char)0xe2; /* a dash (U+2014) is no frame */
	buf[6] = (char)0x80;
	buf[7] = (char)0x94;
	ck_assert(!pm_has_frame(buf, sizeof(buf)));
	buf[6] = (char)0x94;
	buf[7] = (char)0x82;
	ck_assert(pm_has_frame(buf, sizeof(buf)));
	ck_assert_uint_eq(pm_frame_end(buf, 8), 5);
}
END_TEST

Suite *pmt_suite(void)
{
	Suite *s = suite_create("peel");
	TCase *tc = tcase_create("peel");

	tcase_add_test(tc, peel_frameworks);
	tcase_add_test(tc, peel_launchers);
	tcase_add_test(tc, peel_local_rank);
	tcase_add_test(tc, peel_stacked);
	tcase_add_test(tc, peel_collectors);
	tcase_add_test(tc, peel_ray);
	tcase_add_test(tc, peel_terminal);
	tcase_add_test(tc, peel_logger_name);
	tcase_add_test(tc, peel_program_error);
	tcase_add_test(tc, peel_level_first);
	tcase_add_test(tc, peel_records);
	tcase_add_test(tc, peel_record_escapes);
	tcase_add_test(tc, peel_record_error_field);
	tcase_add_test(tc, peel_record_quiet_level);
	tcase_add_test(tc, peel_severity);
	tcase_add_test(tc, peel_one_letter_and_debug_levels);
	tcase_add_test(tc, peel_record_members);
	tcase_add_test(tc, unquote);
	tcase_add_test(tc, peel_not_wrappers);
	tcase_add_test(tc, peel_hostile);
	tcase_add_test(tc, text_clean);
	tcase_add_test(tc, text_dirty);
	tcase_add_test(tc, nccl_node_wrapped);
	tcase_add_test(tc, paste_shape);
	tcase_add_test(tc, paste_strip);
	tcase_add_test(tc, paste_numbered);
	tcase_add_test(tc, paste_runner);
	tcase_add_test(tc, paste_html_escaped);
	tcase_add_test(tc, paste_stamped);
	tcase_add_test(tc, paste_wrap);
	suite_add_tcase(s, tc);
	return s;
}
