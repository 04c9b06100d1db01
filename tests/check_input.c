/*
 * check_input.c - the input layer: names, sniffing, line prefixes, times, host lists and the
 * structured parsers (nvidia-smi, sacct, scontrol, meminfo, rank_map/task_exit).
 *
 * Every buffer handed to a parser is an exact-size heap copy without a NUL terminator, so
 * that ASan catches any read past its end.  Hostile inputs (truncation at every length,
 * random damage, embedded NULs, huge numbers, 1 MB lines) must never crash or hang.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "internal.h"
#include "evidence.h"
#include "postmortem.h"
#include "support.h"

#define BASE 1796010000.0  /* 2026-11-30T03:40:00Z */
#define T0311 1796008318.0 /* 2026-11-30T03:11:58Z */

typedef int parse_fn(struct pm_evidence *, size_t, const char *, size_t, char *, size_t);

static char *dup_exact(const char *s, size_t n)
{
	char *b = malloc(n ? n : 1);

	ck_assert_ptr_nonnull(b);
	memcpy(b, s, n);
	return b;
}

static uint32_t rng_state = 12345;

static uint32_t rnd(void)
{
	rng_state = rng_state * 1103515245u + 12345u;
	return rng_state >> 8;
}

/* ---- evidence ---- */

static struct pm_evidence *ev_new(const char *node)
{
	struct pm_evidence *ev = pm_evidence_create(NULL);

	ck_assert_ptr_nonnull(ev);
	ev->files = calloc(16, sizeof(*ev->files));
	ck_assert_ptr_nonnull(ev->files);
	ev->afiles = 16;
	ev->nfiles = 1;
	ev->files[0].name = strdup("input");
	ev->files[0].rank = -1;
	if (node)
		ev->files[0].node = strdup(node);
	return ev;
}

static int run_n(parse_fn *fn, struct pm_evidence *ev, const char *text, size_t n, char *reason)
{
	char *b = dup_exact(text, n);
	int rc = fn(ev, 0, b, n, reason, 200);

	free(b);
	return rc;
}

static int run(parse_fn *fn, struct pm_evidence *ev, const char *text, char *reason)
{
	return run_n(fn, ev, text, strlen(text), reason);
}

/* The last fact NAME of GPU, or NULL. */
static const struct pm_fact *fact(const struct pm_evidence *ev, const char *name, int gpu)
{
	const struct pm_fact *f = NULL;
	size_t i;

	for (i = 0; i < ev->nfacts; i++)
		if (strcmp(ev->facts[i].name, name) == 0 && ev->facts[i].gpu == gpu)
			f = &ev->facts[i];
	return f;
}

static size_t count_facts(const struct pm_evidence *ev, const char *name)
{
	size_t i, c = 0;

	for (i = 0; i < ev->nfacts; i++)
		c += strcmp(ev->facts[i].name, name) == 0;
	return c;
}

static const struct pm_task *task(const struct pm_evidence *ev, int rank)
{
	size_t i;

	for (i = 0; i < ev->ntasks; i++)
		if (ev->tasks[i].rank == rank)
			return &ev->tasks[i];
	return NULL;
}

/* Run FN on every truncation of TEXT and on damaged copies of it: only crashes fail. */
static void hostile(parse_fn *fn, const char *text)
{
	size_t n = strlen(text), k, step = n > 4000 ? n / 2000 : 1, i;
	struct pm_evidence *ev;
	char reason[200], *b;

	for (k = 0; k <= n; k += step) {
		ev = ev_new("n1");
		run_n(fn, ev, text, k, reason);
		pm_evidence_destroy(ev);
	}
	for (i = 0; i < 300; i++) {
		b = dup_exact(text, n);
		for (k = 0; k < 1 + rnd() % 8 && n > 0; k++) {
			static const char junk[] = {'\0', '\n', ':', '|', '[', ']',    '=', ',',
						    '9',  ' ',	'-', '{', '"', '\xff', '.', '+'};

			b[rnd() % n] = junk[rnd() % sizeof(junk)];
		}
		ev = ev_new(i % 2 ? "n1" : NULL);
		fn(ev, 0, b, n, reason, sizeof(reason));
		pm_evidence_destroy(ev);
		free(b);
	}
}

/* A 1 MB line followed by TEXT, and TEXT followed by a 1 MB line. */
static void long_lines(parse_fn *fn, const char *text, char fill)
{
	size_t big = 1 << 20, n = strlen(text);
	char *b = malloc(big + n + 1), reason[200];
	struct pm_evidence *ev;

	ck_assert_ptr_nonnull(b);
	memset(b, fill, big);
	b[big] = '\n';
	memcpy(b + big + 1, text, n);
	ev = ev_new("n1");
	fn(ev, 0, b, big + n + 1, reason, sizeof(reason));
	pm_evidence_destroy(ev);
	memcpy(b, text, n);
	memset(b + n, fill, big + 1);
	ev = ev_new("n1");
	fn(ev, 0, b, big + n + 1, reason, sizeof(reason));
	pm_evidence_destroy(ev);
	free(b);
}

/* ---- names ---- */

START_TEST(names_tables)
{
	static const char *const src[] = {"app_log",   "kernel_log", "gpu_state", "node_metrics",
					  "scheduler", "task_exit",  "rank_map"};
	static const char *const fmt[] = {"app",	   "torchrun_summary", "pyspy",
					  "dmesg",	   "kmsg_iso",	       "syslog",
					  "nvsmi_q",	   "nvsmi_csv",	       "sacct_p",
					  "sacct_table",   "scontrol_job",     "slurmd_log",
					  "slurmctld_log", "rank_map",	       "task_exit",
					  "meminfo",	   "prometheus",       "binary",
					  "empty"};
	static const char *const st[] = {"ok",	   "missing", "empty",	"truncated", "timed_out",
					 "denied", "lagging", "binary", "unreadable"};
	enum pm_source s;
	int i;

	ck_assert_int_eq(PM_SRC__COUNT, 7);
	ck_assert_int_eq(PM_FMT__COUNT, 19);
	ck_assert_int_eq(PM_ST__COUNT, 9);
	for (i = 0; i < PM_SRC__COUNT; i++) {
		ck_assert_str_eq(pm_source_name((enum pm_source)i), src[i]);
		ck_assert_int_eq(pm_source_parse(src[i], &s), 0);
		ck_assert_int_eq(s, i);
		ck_assert(pm_source_trusted((enum pm_source)i) == (i != PM_SRC_APP_LOG));
	}
	for (i = 0; i < PM_FMT__COUNT; i++)
		ck_assert_str_eq(pm_format_name((enum pm_format)i), fmt[i]);
	for (i = 0; i < PM_ST__COUNT; i++)
		ck_assert_str_eq(pm_status_name((enum pm_status)i), st[i]);
	ck_assert_int_eq(pm_source_parse("kernel", &s), -1);
	ck_assert_int_eq(pm_source_parse("", &s), -1);
	ck_assert_int_eq(pm_source_parse(NULL, &s), -1);
	ck_assert_ptr_null(pm_source_name(PM_SRC__COUNT));
	ck_assert_ptr_null(pm_source_name((enum pm_source) - 1));
	ck_assert_ptr_null(pm_format_name(PM_FMT__COUNT));
	ck_assert_ptr_null(pm_status_name(PM_ST__COUNT));
	ck_assert(!pm_source_trusted(PM_SRC__COUNT));
}
END_TEST

START_TEST(names_format_source)
{
	ck_assert_int_eq(pm_format_source(PM_FMT_APP), PM_SRC_APP_LOG);
	ck_assert_int_eq(pm_format_source(PM_FMT_TORCHRUN), PM_SRC_APP_LOG);
	ck_assert_int_eq(pm_format_source(PM_FMT_PYSPY), PM_SRC_APP_LOG);
	ck_assert_int_eq(pm_format_source(PM_FMT_DMESG), PM_SRC_KERNEL_LOG);
	ck_assert_int_eq(pm_format_source(PM_FMT_KMSG_ISO), PM_SRC_KERNEL_LOG);
	ck_assert_int_eq(pm_format_source(PM_FMT_SYSLOG), PM_SRC_KERNEL_LOG);
	ck_assert_int_eq(pm_format_source(PM_FMT_NVSMI_Q), PM_SRC_GPU_STATE);
	ck_assert_int_eq(pm_format_source(PM_FMT_NVSMI_CSV), PM_SRC_GPU_STATE);
	ck_assert_int_eq(pm_format_source(PM_FMT_SACCT_P), PM_SRC_SCHEDULER);
	ck_assert_int_eq(pm_format_source(PM_FMT_SACCT_TABLE), PM_SRC_SCHEDULER);
	ck_assert_int_eq(pm_format_source(PM_FMT_SCONTROL_JOB), PM_SRC_SCHEDULER);
	ck_assert_int_eq(pm_format_source(PM_FMT_SLURMD_LOG), PM_SRC_SCHEDULER);
	ck_assert_int_eq(pm_format_source(PM_FMT_SLURMCTLD_LOG), PM_SRC_SCHEDULER);
	ck_assert_int_eq(pm_format_source(PM_FMT_RANK_MAP), PM_SRC_RANK_MAP);
	ck_assert_int_eq(pm_format_source(PM_FMT_TASK_EXIT), PM_SRC_TASK_EXIT);
	ck_assert_int_eq(pm_format_source(PM_FMT_MEMINFO), PM_SRC_NODE_METRICS);
	ck_assert_int_eq(pm_format_source(PM_FMT_PROMETHEUS), PM_SRC_NODE_METRICS);
	ck_assert_int_eq(pm_format_source(PM_FMT_BINARY), PM_SRC_APP_LOG);
	ck_assert_int_eq(pm_format_source(PM_FMT_EMPTY), PM_SRC_APP_LOG);
	ck_assert_int_eq(pm_format_source(PM_FMT__COUNT), PM_SRC_APP_LOG);
}
END_TEST

/* ---- samples ---- */

static const char NVSMI_Q[] =
	"\n==============NVSMI LOG==============\n\n"
	"Timestamp                                 : Mon Nov 30 03:12:40 2026\n"
	"Driver Version                            : 535.129.03\n"
	"CUDA Version                              : 12.2\n\n"
	"Attached GPUs                             : 2\n"
	"GPU 00000000:18:00.0\n"
	"    Product Name                          : NVIDIA H100 80GB HBM3\n"
	"    GPU UUID                              : GPU-4be1a000-1c2d-3e4f-5a6b-7c8d9e0f1a2b\n"
	"    PCI\n"
	"        Bus                               : 0x18\n"
	"        Bus Id                            : 00000000:18:00.0\n"
	"    ECC Errors\n"
	"        Volatile\n"
	"            SRAM Correctable              : 7\n"
	"            SRAM Uncorrectable            : 0\n"
	"            DRAM Correctable              : 3\n"
	"            DRAM Uncorrectable            : 0\n"
	"        Aggregate\n"
	"            SRAM Correctable              : 9\n"
	"            SRAM Uncorrectable            : 0\n"
	"            DRAM Correctable              : 3\n"
	"            DRAM Uncorrectable            : 0\n"
	"    Retired Pages\n"
	"        Single Bit ECC                    : N/A\n"
	"        Double Bit ECC                    : N/A\n"
	"        Pending Page Blacklist            : N/A\n"
	"    Remapped Rows\n"
	"        Correctable Error                 : 0\n"
	"        Uncorrectable Error               : 0\n"
	"        Pending                           : No\n"
	"        Remapping Failure Occurred        : No\n"
	"        Bank Remap Availability Histogram\n"
	"            Max                           : 2560 bank(s)\n"
	"            None                          : 0 bank(s)\n"
	"    Temperature\n"
	"        GPU Current Temp                  : 34 C\n"
	"        GPU Shutdown Temp                 : 92 C\n"
	"\n"
	"GPU 00000000:2A:00.0\n"
	"    Product Name                          : NVIDIA H100 80GB HBM3\n"
	"    ECC Errors\n"
	"        Volatile\n"
	"            SRAM Correctable              : 0\n"
	"            SRAM Uncorrectable            : 1\n"
	"            DRAM Correctable              : 0\n"
	"            DRAM Uncorrectable            : 2\n"
	"        Aggregate\n"
	"            SRAM Correctable              : 0\n"
	"            SRAM Uncorrectable            : 4\n"
	"            DRAM Correctable              : 0\n"
	"            DRAM Uncorrectable            : 2\n"
	"    Retired Pages\n"
	"        Single Bit ECC                    : N/A\n"
	"        Double Bit ECC                    : N/A\n"
	"        Pending Page Blacklist            : N/A\n"
	"    Remapped Rows\n"
	"        Correctable Error                 : 0\n"
	"        Uncorrectable Error               : 3\n"
	"        Pending                           : Yes\n"
	"        Remapping Failure Occurred        : No\n"
	"    Temperature\n"
	"        GPU Current Temp                  : 35 C\n";

/* An older driver: Double Bit / Total counters, Retired Pages with a plain "Pending". */
static const char NVSMI_Q_OLD[] = "==============NVSMI LOG==============\n"
				  "Attached GPUs                       : 1\n"
				  "GPU 0000:3B:00.0\n"
				  "    Ecc Errors\n"
				  "        Volatile\n"
				  "            Single Bit            \n"
				  "                Device Memory       : 5\n"
				  "                Total               : 5\n"
				  "            Double Bit            \n"
				  "                Device Memory       : 2\n"
				  "                Register File       : 1\n"
				  "                Total               : 3\n"
				  "        Aggregate\n"
				  "            Single Bit            \n"
				  "                Total               : 11\n"
				  "            Double Bit            \n"
				  "                Total               : 8\n"
				  "    Retired Pages\n"
				  "        Single Bit ECC              : 0\n"
				  "        Double Bit ECC              : 2\n"
				  "        Pending                     : Yes\n"
				  "    Temperature\n"
				  "        GPU Current Temp            : 81 C\n";

/* Driver 550: split SRAM counters; an A10 without remapping; a VMD domain. */
static const char NVSMI_Q_550[] = "==============NVSMI LOG==============\n"
				  "Attached GPUs                             : 2\n"
				  "GPU 00010000:E0:00.0\n"
				  "    ECC Errors\n"
				  "        Volatile\n"
				  "            SRAM Correctable              : 0\n"
				  "            SRAM Uncorrectable Parity     : 1\n"
				  "            SRAM Uncorrectable SEC-DED    : 2\n"
				  "            DRAM Correctable              : 0\n"
				  "            DRAM Uncorrectable            : 4\n"
				  "        Aggregate\n"
				  "            SRAM Correctable              : 0\n"
				  "            SRAM Uncorrectable Parity     : 1\n"
				  "            SRAM Uncorrectable SEC-DED    : 2\n"
				  "            DRAM Correctable              : 0\n"
				  "            DRAM Uncorrectable            : 4\n"
				  "            SRAM Threshold Exceeded       : No\n"
				  "        Aggregate Uncorrectable SRAM Sources\n"
				  "            SRAM L2                       : 99\n"
				  "    Remapped Rows                         : N/A\n"
				  "    Temperature\n"
				  "        GPU Current Temp                  : N/A\n"
				  "GPU 00000000:5D:00.0\n"
				  "    ECC Errors\n"
				  "        Volatile\n"
				  "            SRAM Uncorrectable            : N/A\n"
				  "            DRAM Uncorrectable            : N/A\n"
				  "    Remapped Rows\n"
				  "        Pending                           : No\n"
				  "        Remapping Failure Occurred        : Yes\n";

static const char NVSMI_CSV[] =
	"index, pci.bus_id, uuid, ecc.errors.uncorrected.volatile.total, retired_pages.pending, "
	"temperature.gpu, remapped_rows.pending, remapped_rows.failure\n"
	"0, 00000000:18:00.0, GPU-4be1a000-1c2d-3e4f-5a6b-7c8d9e0f1a2b, 0, No, 34, No, No\n"
	"1, 00000000:2A:00.0, GPU-4be1a001-1c2d-3e4f-5a6b-7c8d9e0f1a2c, 5, Yes, 35 C, Yes, No\n"
	"2, 00000000:3A:00.0, GPU-4be1a002-1c2d-3e4f-5a6b-7c8d9e0f1a2d, [N/A], [N/A], 36, [N/A], "
	"[Not Supported]\n";

static const char SACCT_P[] =
	"JobID|JobName|User|State|ExitCode|Start|End|NodeList|NNodes|NTasks|AllocTRES|FailedNode\n"
	"4242|train|alice|FAILED|1:0|2026-11-30T03:40:00|2026-11-30T04:40:00|gpu[016-017]|2||"
	"billing=128,cpu=128,gres/gpu=8,mem=2048G,node=2|\n"
	"4242.batch|batch||FAILED|1:0|2026-11-30T03:40:00|2026-11-30T04:40:00|gpu016|1|1|"
	"cpu=64,gres/gpu=4,mem=1024G,node=1|\n"
	"4242.extern|extern||COMPLETED|0:0|2026-11-30T03:40:00|2026-11-30T04:40:00|gpu[016-017]|2|2|"
	"cpu=64,gres/gpu=4,mem=1024G,node=1|\n"
	"4242.0|python||FAILED|1:0|2026-11-30T03:40:00|2026-11-30T04:40:00|gpu[016-017]|2|8|"
	"cpu=64,gres/gpu=4,mem=1024G,node=1|\n";

/* sacct's default table: JobID left-aligned, the rest right-aligned, values cut with '+'. */
static char SACCT_TABLE[2048];

static void build_samples(void)
{
	static const char *const rows[][11] = {
		{"JobID", "JobName", "State", "ExitCode", "Start", "End", "NodeList", "NNodes",
		 "NTasks", "AllocTRES", "FailedNode"},
		{"4243", "train", "CANCELLED+", "0:15", "2026-11-30T03:40:00",
		 "2026-11-30T04:00:00", "gpu[016-017]", "2", "", "billing=1+", ""},
		{"4243.batch", "batch", "CANCELLED", "0:15", "2026-11-30T03:40:00",
		 "2026-11-30T04:00:00", "gpu016", "1", "1", "cpu=64,me+", ""},
		{"4243.0", "python", "CANCELLED", "0:15", "2026-11-30T03:40:00",
		 "2026-11-30T04:00:00", "gpu[016-017]", "2", "16", "cpu=128,m+", ""},
	};
	static const int w[11] = {12, 10, 10, 8, 19, 19, 15, 8, 8, 10, 10};
	size_t n = 0, r;
	int c, k;

	for (r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		for (c = 0; c < 11; c++)
			n += (size_t)snprintf(SACCT_TABLE + n, sizeof(SACCT_TABLE) - n,
					      r > 0 && c == 0 ? "%-*s " : "%*s ", w[c], rows[r][c]);
		SACCT_TABLE[n++] = '\n';
		if (r == 0) {
			for (c = 0; c < 11; c++) {
				for (k = 0; k < w[c]; k++)
					SACCT_TABLE[n++] = '-';
				SACCT_TABLE[n++] = ' ';
			}
			SACCT_TABLE[n++] = '\n';
		}
	}
	SACCT_TABLE[n] = '\0';
}

static const char SCONTROL[] =
	"JobId=4242 JobName=train big model\n"
	"   UserId=alice(1000) GroupId=alice(1000) MCS_label=N/A\n"
	"   Priority=4294901740 Nice=0 Account=ml QOS=normal\n"
	"   JobState=FAILED Reason=NonZeroExitCode Dependency=(null)\n"
	"   Requeue=1 Restarts=2 BatchFlag=1 Reboot=0 ExitCode=1:0\n"
	"   RunTime=01:00:00 TimeLimit=1-00:00:00 TimeMin=N/A\n"
	"   SubmitTime=2026-11-30T03:39:30 EligibleTime=2026-11-30T03:39:30\n"
	"   StartTime=2026-11-30T03:40:00 EndTime=2026-11-30T04:40:00 Deadline=N/A\n"
	"   Partition=gpu AllocNode:Sid=login1:40022\n"
	"   ReqNodeList=(null) ExcNodeList=gpu099\n"
	"   NodeList=gpu[016-017]\n"
	"   BatchHost=gpu016\n"
	"   NumNodes=2 NumCPUs=128 NumTasks=8 CPUs/Task=8 ReqB:S:C:T=0:0:*:*\n"
	"   TRES=cpu=128,mem=2048G,node=2,billing=128,gres/gpu=8\n"
	"   Command=/home/alice/train.sbatch --lr=3e-4\n"
	"   WorkDir=/home/alice\n"
	"   StdOut=/home/alice/slurm-4242.out\n";

static const char MEMINFO[] = "MemTotal:       2113470464 kB\n"
			      "MemFree:         1280000 kB\n"
			      "MemAvailable:    2048000 kB\n"
			      "Buffers:           12345 kB\n"
			      "HugePages_Total:       0\n";

static const char TASKS[] =
	"{\"schema\":\"postmortem.rankmap/1\",\"job\":\"4242\",\"step\":\"0\",\"node\":\"gpu016\","
	"\"node_id\":0,\"rank\":0,\"local_rank\":0,\"pid\":40000,\"gpus\":\"0\",\"start\":1796010002.5}\n"
	"{\"schema\":\"postmortem.rankmap/1\",\"job\":\"4242\",\"step\":\"0\",\"node\":\"gpu017\","
	"\"node_id\":1,\"rank\":5,\"local_rank\":1,\"pid\":40185,\"gpus\":\"1\","
	"\"start\":\"2026-11-30T03:40:02.000Z\"}\n"
	"{\"schema\":\"postmortem.taskexit/1\",\"job\":\"4242\",\"step\":\"4294967291\","
	"\"node\":\"gpu016\",\"rank\":0,\"status\":256}\n"
	"{\"schema\":\"postmortem.taskexit/1\",\"job\":\"4242\",\"step\":\"batch\",\"node\":\"gpu016\","
	"\"rank\":0,\"status\":9}\n"
	"{\"schema\":\"postmortem.taskexit/1\",\"job\":\"4242\",\"step\":\"0\",\"node\":\"gpu017\","
	"\"rank\":5,\"pid\":40185,\"status\":256,\"end\":1796012640.25}\n"
	"{\"schema\":\"postmortem.taskexit/1\",\"job\":\"4242\",\"step\":0,\"node\":\"gpu016\","
	"\"rank\":0,\"status\":15}\n"
	"{\"schema\":\"postmortem.taskexit/1\",\"job\":\"4242\",\"step\":\"0\",\"node\":\"gpu016\","
	"\"rank\":1,\"status\":134}\n"
	"{\"schema\":\"postmortem.taskexit/1\",\"job\":\"4242\",\"step\":\"0\",\"node\":\"gpu016\","
	"\"rank\":2,\"status\":256,\"exit_code\":7,\"signal\":0,\"core\":false}\n"
	"{\"schema\":\"postmortem.taskexit/1\",\"job\":\"4242\",\"step\":\"1\",\"node\":\"gpu017\","
	"\"rank\":5,\"status\":0}\n"
	"not json at all\n"
	"{\"schema\":\"postmortem.taskexit/1\",\"rank\":99999999999,\"status\":0}\n"
	"{\"schema\":\"postmortem.taskexit/1\",\"rank\":-1,\"status\":0}\n"
	"{\"schema\":\"postmortem.other/1\",\"rank\":3}\n"
	"{\"schema\":\"postmortem.rankmap/1\",\"rank\":\"3\"}\n"
	"[1,2,3]\n"
	"{\"schema\":\"postmortem.rankmap/1\",\"rank\":7,\"node\":\"bad node\",\"pid\":-5}\n";

static const char APP_LOG[] =
	"0: gpu016:40000:40113 [0] NCCL INFO NCCL version 2.18.6+cuda12.2\n"
	"0: gpu016:40000:40113 [0] NCCL INFO Bootstrap : Using eth0:10.1.0.11<0>\n"
	"1: gpu016:40037:40150 [1] NCCL INFO Bootstrap : Using eth0:10.1.0.11<0>\n"
	"[  123.456789] NVRM: Xid (PCI:0000:18:00): 79, pid=40000, GPU has fallen off the bus.\n"
	"0:  [2026-11-30 03:40:21.000] iteration        1/  100000 | consumed samples: 512\n"
	"Nov 30 03:41:00 gpu016 kernel: NVRM: Xid (PCI:0000:18:00): 79, pid=1\n"
	"0:  [2026-11-30 03:40:22.000] iteration        2/  100000 | consumed samples: 1024\n"
	"[Mon Nov 30 03:11:58 2026] NVRM: Xid (PCI:0000:18:00): 48\n"
	"3: [rank3]: Traceback (most recent call last):\n"
	"3: [rank3]:   File \"/home/alice/train.py\", line 12, in <module>\n"
	"3: [rank3]: RuntimeError: CUDA error: an illegal memory access was encountered\n"
	"srun: error: gpu016: task 3: Exited with exit code 1\n"
	"slurmstepd-gpu016: error: *** STEP 4242.0 ON gpu016 CANCELLED AT 2026-11-30T03:44:01 ***\n";

static const char DMESG[] =
	"[    0.000000] Linux version 5.15.0-91-generic (buildd@lcy02-amd64-045)\n"
	"[   12.345678] nvidia-nvlink: Nvlink Core is being initialized, major device number 508\n"
	"[   12.400001] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.129.03\n"
	"[ 5612.000001] NVRM: Xid (PCI:0000:18:00): 79, pid=40000, name=python3, GPU has fallen off the bus.\n"
	"[ 5612.000002] NVRM: GPU 0000:18:00.0: GPU has fallen off the bus.\n";

/* ---- sniff ---- */

static enum pm_format sniff_n(const char *s, size_t n)
{
	char *b = dup_exact(s, n);
	enum pm_format f = pm_sniff(b, n);

	free(b);
	return f;
}

static enum pm_format sniff(const char *s)
{
	return sniff_n(s, strlen(s));
}

START_TEST(sniff_structured)
{
	ck_assert_int_eq(sniff(NVSMI_Q), PM_FMT_NVSMI_Q);
	ck_assert_int_eq(sniff(NVSMI_Q_OLD), PM_FMT_NVSMI_Q);
	ck_assert_int_eq(sniff("Attached GPUs    : 0\n"), PM_FMT_NVSMI_Q);
	ck_assert_int_eq(sniff(NVSMI_CSV), PM_FMT_NVSMI_CSV);
	ck_assert_int_eq(sniff("index, memory.used [MiB], pci.bus_id\n0, 2 MiB, 00000000:18:00.0\n"),
			 PM_FMT_NVSMI_CSV);
	ck_assert_int_eq(sniff("gpu_bus_id, remapped_rows.pending\n00000000:18:00.0, 0\n"),
			 PM_FMT_NVSMI_CSV);
	ck_assert_int_eq(sniff(SACCT_P), PM_FMT_SACCT_P);
	ck_assert_int_eq(sniff("JobIDRaw|State\n"), PM_FMT_SACCT_P);
	ck_assert_int_eq(sniff(SACCT_TABLE), PM_FMT_SACCT_TABLE);
	ck_assert_int_eq(sniff(SCONTROL), PM_FMT_SCONTROL_JOB);
	ck_assert_int_eq(sniff(MEMINFO), PM_FMT_MEMINFO);
	ck_assert_int_eq(sniff(TASKS), PM_FMT_RANK_MAP);
	ck_assert_int_eq(sniff("{\"schema\": \"postmortem.taskexit/1\", \"rank\": 0}\n"),
			 PM_FMT_TASK_EXIT);
	ck_assert_int_eq(sniff("{\"schema\": \"other\", \"rank\": 0}\n"), PM_FMT_APP);
}
END_TEST

START_TEST(sniff_app_tools)
{
	static const char torchrun[] =
		"============================================================\n"
		"train.py FAILED\n"
		"------------------------------------------------------------\n"
		"Failures:\n"
		"  <NO_OTHER_FAILURES>\n"
		"------------------------------------------------------------\n"
		"Root Cause (first observed failure):\n"
		"[0]:\n"
		"  time      : 2026-11-30_03:44:00\n"
		"  host      : gpu016\n"
		"  rank      : 2 (local_rank: 2)\n"
		"  exitcode  : 1 (pid: 40074)\n"
		"============================================================\n";
	static const char pyspy[] = "Process 40074: python train.py --lr 3e-4\n"
				    "Python v3.10.12 (/usr/bin/python3.10)\n"
				    "\n"
				    "Thread 40074 (active): \"MainThread\"\n"
				    "    _wait_for_tstate_lock (threading.py:1116)\n";
	static const char pyspy2[] = "Thread 0x7F2A4C1B2740 (idle): \"MainThread\"\n"
				     "    wait (threading.py:320)\n";

	ck_assert_int_eq(sniff(torchrun), PM_FMT_TORCHRUN);
	ck_assert_int_eq(sniff(pyspy), PM_FMT_PYSPY);
	ck_assert_int_eq(sniff(pyspy2), PM_FMT_PYSPY);
	ck_assert_int_eq(sniff("Process 12: x\nnothing\n"), PM_FMT_APP);
	/* a job's output that ends with the summary stays app */
	ck_assert_int_eq(sniff(APP_LOG), PM_FMT_APP);
}
END_TEST

START_TEST(sniff_logs)
{
	ck_assert_int_eq(sniff(DMESG), PM_FMT_DMESG);
	ck_assert_int_eq(sniff("[Mon Nov 30 03:11:58 2026] NVRM: Xid (PCI:0000:18:00): 79\n"
			       "[Mon Nov 30 03:11:59 2026] NVRM: GPU 0000:18:00.0: fallen\n"),
			 PM_FMT_DMESG);
	ck_assert_int_eq(sniff("2026-11-30T03:11:58,123456+00:00 NVRM: Xid (PCI:0000:18:00): 79\n"
			       "2026-11-30T03:11:59,000001+00:00 mlx5_core 0000:0c:00.0: up\n"),
			 PM_FMT_KMSG_ISO);
	ck_assert_int_eq(sniff("Nov 30 03:11:58 gpu016 kernel: NVRM: Xid (PCI:0000:18:00): 79\n"
			       "Nov  3 03:11:59 gpu016 systemd[1]: Started Session 4.\n"
			       "Nov 30 03:12:00 gpu016 kernel: [ 5612.000001] NVRM: GPU lost\n"),
			 PM_FMT_SYSLOG);
	/* a copy with the host field cut out (pasted, or anonymised) is still the kernel's */
	ck_assert_int_eq(
		sniff("Mar  4 11:02:40 kernel: EDAC MC0: 1 UE memory read error on DIMM_A1\n"
		      "Mar  4 11:02:40 kernel: mce: [Hardware Error]: CPU 3: Machine Check\n"
		      "Mar  4 11:02:41 kernel: Memory failure: 0x3f2c1: recovery action\n"),
		PM_FMT_SYSLOG);
	/* ... but only before "kernel: ": a stamp and any other word is the job's text */
	ck_assert_int_eq(sniff("Mar  4 11:02:40 trainer: epoch 3 loss 2.1\n"
			       "Mar  4 11:02:41 trainer: epoch 4 loss 2.0\n"
			       "Mar  4 11:02:42 trainer: epoch 5 loss 1.9\n"),
			 PM_FMT_APP);
	ck_assert_int_eq(sniff("-- Logs begin at Mon 2026-11-30 00:00:00 UTC. --\n"
			       "2026-11-30T03:11:58+0000 gpu016 kernel: NVRM: Xid 79\n"
			       "2026-11-30T03:11:59+0000 gpu016 kernel: NVRM: GPU lost\n"),
			 PM_FMT_SYSLOG);
	ck_assert_int_eq(
		sniff("[2026-11-30T03:11:58.002] launch task StepId=4242.0 request from UID:1000\n"
		      "[2026-11-30T03:11:58.010] [4242.0] task/affinity: task_p_slurmd_batch_request\n"
		      "[2026-11-30T03:44:01.500] [4242.0] done with job\n"),
		PM_FMT_SLURMD_LOG);
	ck_assert_int_eq(
		sniff("[2026-11-30T03:40:00.002] sched: Allocate JobId=4242 NodeList=gpu[016-017]\n"
		      "[2026-11-30T04:40:00.120] _job_complete: JobId=4242 WEXITSTATUS 1\n"
		      "[2026-11-30T04:40:00.121] _job_complete: JobId=4242 done\n"),
		PM_FMT_SLURMCTLD_LOG);
	/* CRLF, a BOM, and a few odd lines among many stamped ones */
	ck_assert_int_eq(sniff("\xef\xbb\xbf[    1.000000] a\r\n[    2.000000] b\r\nplain\r\n"),
			 PM_FMT_DMESG);
}
END_TEST

START_TEST(sniff_majority)
{
	char buf[8192];
	size_t n = 0;
	int i;

	/* mostly kernel lines: dmesg */
	for (i = 0; i < 40; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "[%8d.000001] line %d\n", i, i);
	for (i = 0; i < 10; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "continuation %d\n", i);
	ck_assert_int_eq(sniff_n(buf, n), PM_FMT_DMESG);
	/* a job output that quotes some kernel lines: app */
	n = 0;
	for (i = 0; i < 30; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%d: step %d loss=2.1\n", i % 4, i);
	for (i = 0; i < 20; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "[%8d.000001] NVRM: Xid 79\n", i);
	ck_assert_int_eq(sniff_n(buf, n), PM_FMT_APP);
	/* Megatron and python logging stamps are not slurm or kernel stamps */
	ck_assert_int_eq(sniff(" [2026-11-30 03:44:00.000] iteration 1/100\n"
			       " [2026-11-30 03:44:01.000] iteration 2/100\n"),
			 PM_FMT_APP);
	ck_assert_int_eq(sniff("2026-11-30 03:11:58,002 - INFO - train - step 1\n"
			       "2026-11-30 03:11:59,002 - INFO - train - step 2\n"),
			 PM_FMT_APP);
	ck_assert_int_eq(sniff("2026-11-30T03:11:58.002Z INFO step 1\n"
			       "2026-11-30T03:11:59.002Z INFO step 2\n"),
			 PM_FMT_APP);
	ck_assert_int_eq(sniff("hello\n"), PM_FMT_APP);
	ck_assert_int_eq(sniff("\n\n   \n"), PM_FMT_APP);
}
END_TEST

START_TEST(sniff_hostile)
{
	size_t big = 1 << 20, i;
	char *b = malloc(big);

	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(pm_sniff(NULL, 0), PM_FMT_EMPTY);
	ck_assert_int_eq(sniff_n("", 0), PM_FMT_EMPTY);
	memset(b, 0, 4096);
	ck_assert_int_eq(sniff_n(b, 4096), PM_FMT_BINARY);
	ck_assert_int_eq(sniff_n(b, 1), PM_FMT_BINARY);
	for (i = 0; i < 4096; i++)
		b[i] = (char)(rnd() & 0xff);
	ck_assert_int_eq(sniff_n(b, 4096), PM_FMT_BINARY);
	ck_assert_int_eq(sniff_n("\x7f"
				 "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0>\0\x01\0\0\0",
				 24),
			 PM_FMT_BINARY);
	/* one NUL in a long text is damage, not a binary file */
	memset(b, 'a', 4096);
	for (i = 80; i < 4096; i += 81)
		b[i] = '\n';
	b[100] = '\0';
	ck_assert_int_eq(sniff_n(b, 4096), PM_FMT_APP);
	ck_assert_int_eq(sniff("caf\xc3\xa9 na\xc3\xafve \xe2\x9c\x93 text\n"), PM_FMT_APP);
	/* 1 MB lines */
	memset(b, 'x', big);
	ck_assert_int_eq(sniff_n(b, big), PM_FMT_APP);
	memcpy(b, "[    1.000000] ", 15);
	ck_assert_int_eq(sniff_n(b, big), PM_FMT_DMESG);
	memcpy(b, "JobID|", 6);
	ck_assert_int_eq(sniff_n(b, big), PM_FMT_SACCT_P);
	memset(b, '|', big);
	ck_assert_int_eq(sniff_n(b, big), PM_FMT_APP);
	memset(b, ',', big);
	ck_assert_int_eq(sniff_n(b, big), PM_FMT_APP);
	/* every truncation of every sample classifies without reading past the end */
	{
		const char *samples[] = {NVSMI_Q, NVSMI_CSV, SACCT_P, SACCT_TABLE, SCONTROL,
					 MEMINFO, TASKS,     APP_LOG, DMESG};
		size_t s, k;

		for (s = 0; s < sizeof(samples) / sizeof(samples[0]); s++)
			for (k = 0; k <= strlen(samples[s]); k++)
				sniff_n(samples[s], k);
	}
	free(b);
}
END_TEST

/* ---- prefixes ---- */

struct px {
	int rank;
	char node[300];
	size_t skip;
};

static struct px px_n(enum pm_format fmt, const char *s, size_t n)
{
	char *b = dup_exact(s, n);
	struct pm_prefix p;
	struct px r;

	pm_prefix_parse(fmt, b, n, &p);
	r.rank = p.rank;
	r.skip = p.skip;
	ck_assert_uint_le(p.skip, n);
	ck_assert(p.node == NULL || (p.node >= b && p.node + p.node_len <= b + n));
	snprintf(r.node, sizeof(r.node), "%.*s", (int)p.node_len, p.node ? p.node : "");
	free(b);
	return r;
}

static struct px px(enum pm_format fmt, const char *s)
{
	return px_n(fmt, s, strlen(s));
}

#define PX(fmt, line, r, nd, rest)                        \
	do {                                              \
		struct px p_ = px(fmt, line);             \
		ck_assert_int_eq(p_.rank, r);             \
		ck_assert_str_eq(p_.node, nd);            \
		ck_assert_str_eq((line) + p_.skip, rest); \
	} while (0)

START_TEST(prefix_app)
{
	PX(PM_FMT_APP, "3: hello", 3, "", "hello");
	PX(PM_FMT_APP, " 3: hello", 3, "", "hello");
	PX(PM_FMT_APP, "  12: x", 12, "", "x");
	PX(PM_FMT_APP, "[rank3]: Traceback (most recent call last):", 3, "",
	   "Traceback (most recent call last):");
	PX(PM_FMT_APP, "[rank3]:[E1130 03:44:00.123456 40074 ProcessGroupNCCL.cpp:616] x", 3, "",
	   "[E1130 03:44:00.123456 40074 ProcessGroupNCCL.cpp:616] x");
	PX(PM_FMT_APP, "[default3]:foo", 3, "", "foo");
	PX(PM_FMT_APP, "[default3]: foo", 3, "", "foo");
	PX(PM_FMT_APP, "gpu016:40000:40113 [0] NCCL WARN Net : Connection closed", -1, "gpu016",
	   "NCCL WARN Net : Connection closed");
	PX(PM_FMT_APP, "3: gpu016:40000:40113 [0] NCCL WARN NET/IB : Got completion", 3, "gpu016",
	   "NCCL WARN NET/IB : Got completion");
	PX(PM_FMT_APP, "gpu016:40000:40300 [0] misc/socket.cc:484 NCCL WARN x", -1, "gpu016",
	   "misc/socket.cc:484 NCCL WARN x");
	PX(PM_FMT_APP, "node-1.cluster:1:2 [7] NCCL INFO x", -1, "node-1.cluster", "NCCL INFO x");
	PX(PM_FMT_APP, "0: [rank0]: Traceback", 0, "", "Traceback");
	PX(PM_FMT_APP, "0: [rank5]: Traceback", 5, "", "Traceback");
	PX(PM_FMT_APP, "1: [default3]:[rank7]: x", 7, "", "x");
	/* torchrun's [defaultN] is a local rank: under an srun label the rank is unknown */
	PX(PM_FMT_APP, "1: [default3]: x", -1, "", "x");
	PX(PM_FMT_APP, "[default3]:[rank7]: x", 7, "", "x");
	PX(PM_FMT_APP, "[rank7]:[default3]: x", 7, "", "x");
	PX(PM_FMT_APP, "1: [rank7]:[default3]: x", 7, "", "x");
	PX(PM_FMT_APP, "[rank2]:gpu017:1:2 [2] NCCL WARN x", 2, "gpu017", "NCCL WARN x");
	PX(PM_FMT_PYSPY, "3: Thread 1 (idle)", 3, "", "Thread 1 (idle)");
	PX(PM_FMT_TORCHRUN, "[default0]:  rank : 2", 0, "", " rank : 2");
	/* the node that printed a slurmstepd line; its text stays for matching */
	PX(PM_FMT_APP, "slurmstepd-gpu016: error: *** JOB 7 ON gpu016 CANCELLED", -1, "gpu016",
	   "slurmstepd-gpu016: error: *** JOB 7 ON gpu016 CANCELLED");
	PX(PM_FMT_APP, "2: slurmstepd-gpu016: error: x", 2, "gpu016",
	   "slurmstepd-gpu016: error: x");
	/* not prefixes */
	PX(PM_FMT_APP, "hello: world", -1, "", "hello: world");
	PX(PM_FMT_APP, "12:30:45 [0] foo", -1, "", "12:30:45 [0] foo");
	PX(PM_FMT_APP, "3:hello", -1, "", "3:hello");
	PX(PM_FMT_APP, "[rank12345678]: x", -1, "", "[rank12345678]: x");
	PX(PM_FMT_APP, "12345678: x", -1, "", "12345678: x");
	PX(PM_FMT_APP, "[rankX]: x", -1, "", "[rankX]: x");
	PX(PM_FMT_APP, "gpu016:40000:40113 [x] NCCL", -1, "", "gpu016:40000:40113 [x] NCCL");
	PX(PM_FMT_APP, "Epoch 3: loss", -1, "", "Epoch 3: loss");
	PX(PM_FMT_APP, "", -1, "", "");
}
END_TEST

START_TEST(prefix_logs)
{
	PX(PM_FMT_SYSLOG, "Nov 30 03:11:58 gpu016 kernel: NVRM: Xid (PCI:0000:18:00): 79", -1,
	   "gpu016", "NVRM: Xid (PCI:0000:18:00): 79");
	PX(PM_FMT_SYSLOG, "Nov  3 03:11:58 gpu016 kernel: x", -1, "gpu016", "x");
	PX(PM_FMT_SYSLOG, "Nov 30 03:11:58 gpu016 kernel: [ 5612.000001] NVRM: lost", -1, "gpu016",
	   "NVRM: lost");
	PX(PM_FMT_SYSLOG, "Nov 30 03:11:58 gpu016 systemd[1]: Started", -1, "gpu016",
	   "systemd[1]: Started");
	PX(PM_FMT_SYSLOG, "2026-11-30T03:11:58+0000 gpu016 kernel: NVRM: x", -1, "gpu016",
	   "NVRM: x");
	PX(PM_FMT_SYSLOG, "2026-11-30T03:11:58.123456+00:00 gpu016.lab kernel: y", -1, "gpu016.lab",
	   "y");
	PX(PM_FMT_SYSLOG, "not a syslog line", -1, "", "not a syslog line");
	PX(PM_FMT_DMESG, "[ 5612.000001] NVRM: Xid", -1, "", "NVRM: Xid");
	PX(PM_FMT_DMESG, "[    0.000000] Linux", -1, "", "Linux");
	PX(PM_FMT_DMESG, "[Mon Nov 30 03:11:58 2026] NVRM: Xid", -1, "", "NVRM: Xid");
	PX(PM_FMT_DMESG, "[Mon Nov  3 03:11:58 2026] x", -1, "", "x");
	PX(PM_FMT_DMESG, "<3>[    1.000000] x", -1, "", "x");
	PX(PM_FMT_DMESG, "kern  :err   : [    1.000000] x", -1, "", "x");
	PX(PM_FMT_DMESG, "3: [    1.000000] x", -1, "", "3: [    1.000000] x");
	PX(PM_FMT_KMSG_ISO, "2026-11-30T03:11:58,123456+00:00 NVRM: Xid", -1, "", "NVRM: Xid");
	PX(PM_FMT_SLURMD_LOG, "[2026-11-30T03:11:58.002] error: x", -1, "", "error: x");
	PX(PM_FMT_SLURMCTLD_LOG, "[2026-11-30T03:11:58.002] sched: x", -1, "", "sched: x");
	/* formats without line prefixes */
	PX(PM_FMT_SACCT_P, "3: x", -1, "", "3: x");
	PX(PM_FMT_NVSMI_Q, "gpu016:1:2 [0] x", -1, "", "gpu016:1:2 [0] x");
	PX(PM_FMT__COUNT, "3: x", -1, "", "3: x");
	PX((enum pm_format) - 1, "3: x", -1, "", "3: x");
}
END_TEST

START_TEST(prefix_hostile)
{
	static const char *const cuts[] = {
		"3: [rank3]: x",
		"gpu016:40000:40113 [0] NCCL WARN",
		"[default12]: y",
		"Nov 30 03:11:58 gpu016 kernel: [ 5612.000001] z",
		"2026-11-30T03:11:58,123456+00:00 q",
		"[Mon Nov 30 03:11:58 2026] r",
		"kern  :err   : [    1.000000] x",
		"<3>[    1.000000] x",
		"[2026-11-30T03:11:58.002] s",
	};
	static const enum pm_format fmts[] = {PM_FMT_APP, PM_FMT_SYSLOG, PM_FMT_DMESG,
					      PM_FMT_KMSG_ISO, PM_FMT_SLURMD_LOG};
	size_t i, k, f, big = 1 << 20;
	struct pm_prefix p;
	char *b;
	struct px r;

	for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++)
		for (k = 0; k <= strlen(cuts[i]); k++)
			for (f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++)
				px_n(fmts[f], cuts[i], k);
	r = px_n(PM_FMT_APP, "3: \0abc", 7);
	ck_assert_int_eq(r.rank, 3);
	ck_assert_uint_eq(r.skip, 3);
	r = px_n(PM_FMT_APP,
		 "gpu\0"
		 "016:1:2 [0] x",
		 17);
	ck_assert_str_eq(r.node, "");
	b = malloc(big);
	ck_assert_ptr_nonnull(b);
	memset(b, 'a', big);
	memcpy(b, "7: ", 3);
	for (f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++)
		pm_prefix_parse(fmts[f], b, big, &p);
	pm_prefix_parse(PM_FMT_APP, b, big, &p);
	ck_assert_int_eq(p.rank, 7);
	memset(b, ' ', big);
	pm_prefix_parse(PM_FMT_APP, b, big, &p);
	ck_assert_int_eq(p.rank, -1);
	memset(b, '9', big);
	for (f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++)
		pm_prefix_parse(fmts[f], b, big, &p);
	pm_prefix_parse(PM_FMT_APP, NULL, 0, &p);
	ck_assert_int_eq(p.rank, -1);
	free(b);
}
END_TEST

START_TEST(path_rank)
{
	ck_assert_int_eq(pm_path_rank("logs/rank3.log"), 3);
	ck_assert_int_eq(pm_path_rank("out/rank_3/stdout"), 3);
	ck_assert_int_eq(pm_path_rank("rank-03.txt"), 3);
	ck_assert_int_eq(pm_path_rank("gpu016/worker_rank12.err"), 12);
	ck_assert_int_eq(pm_path_rank("RANK7"), 7);
	ck_assert_int_eq(pm_path_rank("a/rank1/rank2.log"), 2);
	ck_assert_int_eq(pm_path_rank("x/ranking/3"), -1);
	ck_assert_int_eq(pm_path_rank("rank3x.log"), -1);
	ck_assert_int_eq(pm_path_rank("frank3.log"), -1);
	ck_assert_int_eq(pm_path_rank("rank"), -1);
	ck_assert_int_eq(pm_path_rank("rank_"), -1);
	ck_assert_int_eq(pm_path_rank("rank_-3"), -1);
	ck_assert_int_eq(pm_path_rank("rank12345678"), -1);
	ck_assert_int_eq(pm_path_rank("slurm-4242.out"), -1);
	ck_assert_int_eq(pm_path_rank(""), -1);
	ck_assert_int_eq(pm_path_rank(NULL), -1);
}
END_TEST

/* ---- times ---- */

static int tp(const char *s, int year, double boot, double *t)
{
	struct pm_timectx c = {year, boot};
	size_t n = strlen(s);
	char *b = dup_exact(s, n);
	int r = pm_time_parse(b, n, &c, t);

	free(b);
	return r;
}

#define TIME_IS(line, year, boot, want)                                                 \
	do {                                                                            \
		double t_ = -1;                                                         \
		ck_assert_msg(tp(line, year, boot, &t_) == 1, "no time in '%s'", line); \
		ck_assert_msg(fabs(t_ - (want)) < 1e-4, "'%s': %.6f != %.6f", line, t_, \
			      (double)(want));                                          \
	} while (0)

#define NO_TIME(line, year, boot)                                                      \
	do {                                                                           \
		double t_ = -1;                                                        \
		ck_assert_msg(tp(line, year, boot, &t_) == 0, "a time in '%s'", line); \
	} while (0)

START_TEST(time_forms)
{
	TIME_IS("2026-11-30T03:11:58Z x", 0, 0, T0311);
	TIME_IS("2026-11-30T03:11:58.002Z x", 0, 0, T0311 + 0.002);
	TIME_IS("2026-11-30T03:11:58", 0, 0, T0311);
	TIME_IS("2026-11-30 03:11:58,002 - INFO - train - step 1", 0, 0, T0311 + 0.002);
	TIME_IS("2026-11-30T05:11:58+02:00 x", 0, 0, T0311);
	TIME_IS("2026-11-30T05:11:58+0200 x", 0, 0, T0311);
	TIME_IS("2026-11-29T22:11:58-05:00 x", 0, 0, T0311);
	TIME_IS("2026-11-30T08:41:58.5+05:30 x", 0, 0, T0311 + 0.5);
	TIME_IS("2026-11-30T03:11:58,123456+00:00 NVRM: Xid", 0, 0, T0311 + 0.123456);
	TIME_IS("2026-11-30T03:11:58+0000 gpu016 kernel: NVRM: x", 0, 0, T0311);
	TIME_IS("Nov 30 03:11:58 gpu016 kernel: NVRM: x", 2026, 0, T0311);
	TIME_IS("Nov  3 00:00:00 gpu016 kernel: x", 2026, 0, 1793664000.0);
	TIME_IS("[Mon Nov 30 03:11:58 2026] NVRM: Xid", 0, 0, T0311);
	TIME_IS("[Tue Nov  3 00:00:00 2026] x", 0, 0, 1793664000.0);
	TIME_IS("[2026-11-30T03:11:58.002] error: x", 0, 0, T0311 + 0.002);
	TIME_IS(" [2026-11-30 03:44:00.000] iteration        1/  100000 |", 0, 0, BASE + 240);
	TIME_IS("[2026-11-30 03:44:00,446] torch.distributed.elastic: [WARNING] x", 0, 0,
		BASE + 240.446);
	TIME_IS("3: 2026-11-30 03:11:58,002 - INFO - x", 0, 0, T0311 + 0.002);
	TIME_IS("0:  [2026-11-30 03:44:00.000] iteration 1", 0, 0, BASE + 240);
	TIME_IS("0: [rank0]:[E1130 03:44:00.123456 40074 ProcessGroupNCCL.cpp:616] [Rank 0] x",
		2026, 0, BASE + 240.123456);
	TIME_IS("[  123.456789] NVRM: Xid", 0, 1796000000.0, 1796000123.456789);
	TIME_IS("2024-02-29T00:00:00Z", 0, 0, 1709164800.0);
	TIME_IS("1970-01-01T00:00:00Z", 0, 0, 0.0);
	TIME_IS("2026-12-31T23:59:60Z", 0, 0, 1798761600.0);
}
END_TEST

START_TEST(time_refused)
{
	NO_TIME("Nov 30 03:11:58 gpu016 kernel: x", 0, 0); /* no year known */
	NO_TIME("[  123.456789] NVRM: Xid", 2026, 0);	   /* boot time unknown */
	NO_TIME("[  123.456] x", 2026, 1796000000.0);	   /* not a dmesg stamp */
	NO_TIME("[E1130 03:44:00.123456 40074 x.cpp:1] x", 0, 0);
	NO_TIME("2026-02-30T00:00:00Z", 0, 0);
	NO_TIME("2025-02-29T00:00:00Z", 0, 0);
	NO_TIME("2026-13-01T00:00:00Z", 0, 0);
	NO_TIME("2026-11-30T24:00:00Z", 0, 0);
	NO_TIME("2026-11-30T03:60:00Z", 0, 0);
	NO_TIME("2026-11-30T03:11:58123", 0, 0);
	NO_TIME("2026-11-30T03:11:58+25:00", 0, 0);
	NO_TIME("2026-11-30T03:11", 0, 0);
	NO_TIME("2026-11-30", 0, 0);
	NO_TIME("1969-12-31T23:59:59Z", 0, 0);
	NO_TIME("[Mon Nov 30 03:11:58 2026 x", 0, 0);
	NO_TIME("[Xyz Nov 30 03:11:58 2026] x", 0, 0);
	NO_TIME("Foo 30 03:11:58 x", 2026, 0);
	NO_TIME("Nov 32 03:11:58 x", 2026, 0);
	NO_TIME("gpu016:40000:40113 [0] NCCL WARN x", 2026, 1.0);
	NO_TIME("loss at 2026-11-30T03:11:58Z", 2026, 1.0);
	NO_TIME("", 2026, 1.0);
	NO_TIME("    ", 2026, 1.0);
}
END_TEST

START_TEST(time_hostile)
{
	static const char *const cuts[] = {
		"2026-11-30T03:11:58,123456+00:00 x",
		"[Mon Nov 30 03:11:58 2026] x",
		"Nov 30 03:11:58 h kernel: x",
		"[  123.456789] x",
		"[2026-11-30T03:11:58.002] x",
		"0: [rank0]:[E1130 03:44:00.123456 40074 x.cpp:1] x",
		"2026-11-30T03:11:58.0000000000000000000000000000000000000000001Z",
	};
	struct pm_timectx c = {2026, 1.0};
	size_t i, k, big = 1 << 20;
	double t;
	char *b;

	for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		for (k = 0; k <= strlen(cuts[i]); k++) {
			b = dup_exact(cuts[i], k);
			pm_time_parse(b, k, &c, &t);
			pm_time_parse(b, k, NULL, &t);
			free(b);
		}
	}
	b = malloc(big);
	ck_assert_ptr_nonnull(b);
	memset(b, '9', big);
	ck_assert_int_eq(pm_time_parse(b, big, &c, &t), 0);
	memset(b, ' ', big);
	ck_assert_int_eq(pm_time_parse(b, big, &c, &t), 0);
	memcpy(b, "[", 1);
	memset(b + 1, ' ', big - 1);
	ck_assert_int_eq(pm_time_parse(b, big, &c, &t), 0);
	free(b);
	ck_assert_int_eq(pm_time_parse(NULL, 0, &c, &t), 0);
	TIME_IS("2026-11-30T03:11:58.0000000000000000000000000000000000000000001Z", 0, 0, T0311);
}
END_TEST

START_TEST(time_format)
{
	static const double ts[] = {0,		 T0311,	       T0311 + 0.002, BASE + 0.999,
				    951782400.5, 1709164800.0, 4102444799.999};
	char buf[64], small[5];
	double t;
	size_t i;

	pm_time_format(T0311 + 0.002, buf, sizeof(buf));
	ck_assert_str_eq(buf, "2026-11-30T03:11:58.002Z");
	pm_time_format(T0311 + 0.9996, buf, sizeof(buf));
	ck_assert_str_eq(buf, "2026-11-30T03:11:59.000Z");
	pm_time_format(0, buf, sizeof(buf));
	ck_assert_str_eq(buf, "1970-01-01T00:00:00.000Z");
	pm_time_format(-0.5, buf, sizeof(buf));
	ck_assert_str_eq(buf, "1969-12-31T23:59:59.500Z");
	pm_time_format(NAN, buf, sizeof(buf));
	ck_assert_str_eq(buf, "");
	pm_time_format(INFINITY, buf, sizeof(buf));
	ck_assert_str_eq(buf, "");
	pm_time_format(1e300, buf, sizeof(buf));
	ck_assert_str_eq(buf, "");
	pm_time_format(T0311, small, sizeof(small));
	ck_assert_str_eq(small, "2026");
	pm_time_format(T0311, NULL, 0);
	for (i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
		pm_time_format(ts[i], buf, sizeof(buf));
		ck_assert_int_eq(pm_time_parse(buf, strlen(buf), NULL, &t), 1);
		ck_assert_msg(fabs(t - ts[i]) < 1e-6, "%s", buf);
	}
}
END_TEST

/* ---- host lists ---- */

static int hl(const char *s, char ***v, size_t *n)
{
	size_t len = strlen(s);
	char *b = dup_exact(s, len);
	int r = pm_hostlist_expand(b, len, v, n);

	free(b);
	return r;
}

static void hl_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void hl_is(const char *s, const char *want)
{
	char **v, joined[4096] = "";
	size_t n, i;

	ck_assert_msg(hl(s, &v, &n) == 0, "'%s' refused", s);
	for (i = 0; i < n; i++) {
		strcat(joined, i ? " " : "");
		strcat(joined, v[i]);
	}
	ck_assert_str_eq(joined, want);
	hl_free(v, n);
}

static void hl_err(const char *s, int err)
{
	char **v = (char **)1;
	size_t n = 99;

	errno = 0;
	ck_assert_msg(hl(s, &v, &n) == -1, "'%s' accepted", s);
	ck_assert_int_eq(errno, err);
	ck_assert_ptr_null(v);
	ck_assert_uint_eq(n, 0);
}

START_TEST(hostlist_forms)
{
	char **v;
	size_t n;

	hl_is("gpu[016-017,020],login1", "gpu016 gpu017 gpu020 login1");
	hl_is("gpu016", "gpu016");
	hl_is("n[8-10]", "n10 n8 n9");
	hl_is("n[08-10]", "n08 n09 n10");
	hl_is("r[1-2]n[1-2]", "r1n1 r1n2 r2n1 r2n2");
	hl_is("gpu[001-002]-ib", "gpu001-ib gpu002-ib");
	hl_is("b,a,b,a[1]", "a a1 b");
	hl_is("n[1-2], n3  n4", "n1 n2 n3 n4");
	hl_is("[1-2]", "1 2");
	hl_is("", "");
	hl_is(",,", "");
	ck_assert_int_eq(hl("n[0-65535]", &v, &n), 0);
	ck_assert_uint_eq(n, 65536);
	ck_assert_str_eq(v[0], "n0");
	hl_free(v, n);
	ck_assert_int_eq(pm_hostlist_expand("gpu[1-2]xxxx", 8, &v, &n), 0);
	ck_assert_uint_eq(n, 2);
	hl_free(v, n);
}
END_TEST

START_TEST(hostlist_refused)
{
	char **v;
	size_t n;
	char *big;

	hl_err("gpu[1-", EINVAL);
	hl_err("gpu[3-1]", EINVAL);
	hl_err("gpu[a-b]", EINVAL);
	hl_err("gpu[]", EINVAL);
	hl_err("gpu[1,]", EINVAL);
	hl_err("gpu[-1]", EINVAL);
	hl_err("gpu]1[", EINVAL);
	hl_err("gpu[[1]]", EINVAL);
	hl_err("gpu[1-2", EINVAL);
	hl_err("gpu[1234567890]", EINVAL);
	hl_err("n[0-65536]", E2BIG);
	hl_err("n[0-999999999]", E2BIG);
	hl_err("a[0-999]b[0-999]", E2BIG);
	hl_err("a[0-40000],b[0-40000]", E2BIG);
	ck_assert_int_eq(pm_hostlist_expand("gpu\0"
					    "01",
					    6, &v, &n),
			 -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(pm_hostlist_expand(NULL, 3, &v, &n), -1);
	ck_assert_int_eq(pm_hostlist_expand(NULL, 0, &v, &n), 0);
	ck_assert_uint_eq(n, 0);
	/* a name longer than a host name can be */
	big = malloc(400);
	ck_assert_ptr_nonnull(big);
	memset(big, 'a', 400);
	ck_assert_int_eq(pm_hostlist_expand(big, 300, &v, &n), -1);
	memcpy(big + 250, "[1-2]", 5);
	ck_assert_int_eq(pm_hostlist_expand(big, 300, &v, &n), -1);
	memset(big, ',', 400);
	ck_assert_int_eq(pm_hostlist_expand(big, 400, &v, &n), 0);
	ck_assert_uint_eq(n, 0);
	free(v);
	free(big);
}
END_TEST

/* ---- nvidia-smi ---- */

#define FACT_IS(ev, name, gpu, want)                                                        \
	do {                                                                                \
		const struct pm_fact *f_ = fact(ev, name, gpu);                             \
		ck_assert_msg(f_ != NULL, "no fact %s gpu %d", name, gpu);                  \
		ck_assert_msg(f_->value == (want), "%s gpu %d = %g", name, gpu, f_->value); \
	} while (0)

START_TEST(nvsmi_q)
{
	struct pm_evidence *ev = ev_new("gpu016");
	char reason[200] = "";
	const struct pm_fact *f;

	ck_assert_int_eq(run(pm_parse_nvsmi_q, ev, NVSMI_Q, reason), 0);
	FACT_IS(ev, "node.gpu_count", -1, 2);
	FACT_IS(ev, "gpu.ecc_volatile_uncorrectable", 0, 0);
	FACT_IS(ev, "gpu.ecc_volatile_uncorrectable", 1, 3);
	FACT_IS(ev, "gpu.ecc_aggregate_uncorrectable", 1, 6);
	FACT_IS(ev, "gpu.remap_pending", 0, 0);
	FACT_IS(ev, "gpu.remap_pending", 1, 1);
	FACT_IS(ev, "gpu.remap_failure", 1, 0);
	FACT_IS(ev, "gpu.temperature", 0, 34);
	FACT_IS(ev, "gpu.temperature", 1, 35);
	ck_assert_ptr_null(fact(ev, "gpu.retired_pages_pending", 0));
	ck_assert_ptr_null(fact(ev, "gpu.ecc_volatile_uncorrectable", 2));
	f = fact(ev, "gpu.temperature", 1);
	ck_assert_str_eq(f->pci, "0000:2a:00.0");
	ck_assert_str_eq(f->node, "gpu016");
	ck_assert_uint_eq(f->file, 0);
	ck_assert_str_eq(fact(ev, "gpu.temperature", 0)->pci, "0000:18:00.0");
	ck_assert_ptr_null(fact(ev, "node.gpu_count", -1)->pci);
	pm_evidence_destroy(ev);
}
END_TEST

START_TEST(nvsmi_q_variants)
{
	struct pm_evidence *ev = ev_new(NULL);
	char reason[200] = "";

	ck_assert_int_eq(run(pm_parse_nvsmi_q, ev, NVSMI_Q_OLD, reason), 0);
	FACT_IS(ev, "gpu.ecc_volatile_uncorrectable", 0, 3);
	FACT_IS(ev, "gpu.ecc_aggregate_uncorrectable", 0, 8);
	FACT_IS(ev, "gpu.retired_pages_pending", 0, 1);
	FACT_IS(ev, "gpu.temperature", 0, 81);
	ck_assert_ptr_null(fact(ev, "gpu.temperature", 0)->node);
	ck_assert_str_eq(fact(ev, "gpu.temperature", 0)->pci, "0000:3b:00.0");
	pm_evidence_destroy(ev);

	ev = ev_new("gpu017");
	ck_assert_int_eq(run(pm_parse_nvsmi_q, ev, NVSMI_Q_550, reason), 0);
	FACT_IS(ev, "gpu.ecc_volatile_uncorrectable", 0, 7);
	FACT_IS(ev, "gpu.ecc_aggregate_uncorrectable", 0, 7);
	ck_assert_str_eq(fact(ev, "gpu.ecc_volatile_uncorrectable", 0)->pci, "10000:e0:00.0");
	ck_assert_ptr_null(fact(ev, "gpu.temperature", 0));
	ck_assert_ptr_null(fact(ev, "gpu.remap_pending", 0));
	ck_assert_ptr_null(fact(ev, "gpu.ecc_volatile_uncorrectable", 1));
	FACT_IS(ev, "gpu.remap_pending", 1, 0);
	FACT_IS(ev, "gpu.remap_failure", 1, 1);
	pm_evidence_destroy(ev);

	/* a GPU lost: fewer attached GPUs than the node has */
	ev = ev_new("gpu017");
	ck_assert_int_eq(run(pm_parse_nvsmi_q, ev,
			     "==============NVSMI LOG==============\nAttached GPUs : 7\n", reason),
			 0);
	FACT_IS(ev, "node.gpu_count", -1, 7);
	pm_evidence_destroy(ev);
}
END_TEST

START_TEST(nvsmi_q_hostile)
{
	struct pm_evidence *ev = ev_new("n1");
	char reason[200] = "";

	ck_assert_int_eq(run(pm_parse_nvsmi_q, ev, "hello\nworld\n", reason), -1);
	ck_assert_str_ne(reason, "");
	ck_assert_int_eq(run(pm_parse_nvsmi_q, ev, "", reason), -1);
	ck_assert_uint_eq(ev->nfacts, 0);
	ck_assert_int_eq(run(pm_parse_nvsmi_q, ev,
			     "Attached GPUs : 99999999999999999999999\n"
			     "GPU 00000000:18:00.0\n    Temperature\n"
			     "        GPU Current Temp : 1e999 C\n"
			     "GPU zz:qq\n    Temperature\n        GPU Current Temp : 40 C\n",
			     reason),
			 0);
	ck_assert(fact(ev, "node.gpu_count", -1)->value > 9.9e22);
	ck_assert_ptr_null(fact(ev, "gpu.temperature", 0));
	FACT_IS(ev, "gpu.temperature", 1, 40);
	ck_assert_ptr_null(fact(ev, "gpu.temperature", 1)->pci);
	pm_evidence_destroy(ev);
	/* embedded NUL: the line is damaged, the rest is read */
	ev = ev_new("n1");
	{
		static const char nul[] = "Attached GPUs : 2\0\nGPU 0000:18:00.0\n"
					  "    Temperature\n        GPU Current Temp : 40 C\n";

		ck_assert_int_eq(run_n(pm_parse_nvsmi_q, ev, nul, sizeof(nul) - 1, reason), 0);
	}
	FACT_IS(ev, "gpu.temperature", 0, 40);
	pm_evidence_destroy(ev);
	/* a file index that ev does not have: the facts have no node */
	ev = ev_new(NULL);
	ck_assert_int_eq(pm_parse_nvsmi_q(ev, 5, NVSMI_Q, strlen(NVSMI_Q), NULL, 0), 0);
	ck_assert_ptr_null(fact(ev, "gpu.temperature", 0)->node);
	pm_evidence_destroy(ev);
	hostile(pm_parse_nvsmi_q, NVSMI_Q);
	hostile(pm_parse_nvsmi_q, NVSMI_Q_OLD);
	long_lines(pm_parse_nvsmi_q, NVSMI_Q, ' ');
	long_lines(pm_parse_nvsmi_q, NVSMI_Q, 'x');
}
END_TEST

START_TEST(nvsmi_csv)
{
	struct pm_evidence *ev = ev_new("gpu016");
	char reason[200] = "";

	ck_assert_int_eq(run(pm_parse_nvsmi_csv, ev, NVSMI_CSV, reason), 0);
	FACT_IS(ev, "node.gpu_count", -1, 3);
	FACT_IS(ev, "gpu.ecc_volatile_uncorrectable", 0, 0);
	FACT_IS(ev, "gpu.ecc_volatile_uncorrectable", 1, 5);
	FACT_IS(ev, "gpu.retired_pages_pending", 1, 1);
	FACT_IS(ev, "gpu.temperature", 1, 35);
	FACT_IS(ev, "gpu.temperature", 2, 36);
	FACT_IS(ev, "gpu.remap_pending", 1, 1);
	FACT_IS(ev, "gpu.remap_failure", 0, 0);
	ck_assert_ptr_null(fact(ev, "gpu.ecc_volatile_uncorrectable", 2));
	ck_assert_ptr_null(fact(ev, "gpu.remap_failure", 2));
	ck_assert_str_eq(fact(ev, "gpu.temperature", 1)->pci, "0000:2a:00.0");
	ck_assert_str_eq(fact(ev, "gpu.temperature", 1)->node, "gpu016");
	pm_evidence_destroy(ev);

	/* bus ids: every form nvidia-smi prints, and what is not one */
	ev = ev_new(NULL);
	ck_assert_int_eq(run(pm_parse_nvsmi_csv, ev,
			     "index, pci.bus_id, temperature.gpu\n"
			     "0, 00000000:18:00.0, 1\n1, 3B:00.0, 1\n2, 0000:65:00, 1\n"
			     "3, 0000:18:00.0.1, 1\n4, 000000001:18:00.0, 1\n5, 0000:18:20.0, 1\n"
			     "6, 0000:18:00.8, 1\n7, 0000:118:00.0, 1\n8, :18:00.0, 1\n",
			     reason),
			 0);
	ck_assert_str_eq(fact(ev, "gpu.temperature", 0)->pci, "0000:18:00.0");
	ck_assert_str_eq(fact(ev, "gpu.temperature", 1)->pci, "0000:3b:00.0");
	for (int i = 2; i <= 8; i++)
		ck_assert_ptr_null(fact(ev, "gpu.temperature", i)->pci);
	pm_evidence_destroy(ev);

	/* two tables in one file; the remapped-rows query has no index: row order */
	ev = ev_new("gpu016");
	ck_assert_int_eq(run(pm_parse_nvsmi_csv, ev,
			     "index, temperature.gpu\n3, 50\n"
			     "gpu_bus_id, remapped_rows.pending, remapped_rows.failure\n"
			     "00000000:18:00.0, 0, 0\n00000000:2A:00.0, 1, 0\n",
			     reason),
			 0);
	FACT_IS(ev, "gpu.temperature", 3, 50);
	FACT_IS(ev, "gpu.remap_pending", 1, 1);
	FACT_IS(ev, "node.gpu_count", -1, 1);
	ck_assert_str_eq(fact(ev, "gpu.remap_pending", 1)->pci, "0000:2a:00.0");
	pm_evidence_destroy(ev);

	ev = ev_new(NULL);
	ck_assert_int_eq(run(pm_parse_nvsmi_csv, ev, "0, 00000000:18:00.0, 0\n", reason), -1);
	ck_assert_int_eq(run(pm_parse_nvsmi_csv, ev, "", reason), -1);
	ck_assert_int_eq(run(pm_parse_nvsmi_csv, ev, "\n\n", reason), -1);
	ck_assert_int_eq(run(pm_parse_nvsmi_csv, ev, "foo, bar\n1, 2\n", reason), -1);
	/* short rows, an index out of range, junk values */
	ck_assert_int_eq(run(pm_parse_nvsmi_csv, ev,
			     "index, temperature.gpu, retired_pages.pending\n"
			     "0\n99999999999, 40\n1, hot, maybe\n",
			     reason),
			 0);
	FACT_IS(ev, "gpu.temperature", 1, 40);
	ck_assert_ptr_null(fact(ev, "gpu.temperature", 2));
	pm_evidence_destroy(ev);
	hostile(pm_parse_nvsmi_csv, NVSMI_CSV);
	long_lines(pm_parse_nvsmi_csv, NVSMI_CSV, ',');
	long_lines(pm_parse_nvsmi_csv, NVSMI_CSV, '9');
}
END_TEST

/* ---- scheduler ---- */

static void nodes_are(const struct pm_jobinfo *j, const char *want)
{
	char joined[1024] = "";
	size_t i;

	for (i = 0; i < j->nnodes; i++) {
		strcat(joined, i ? " " : "");
		strcat(joined, j->nodes[i]);
	}
	ck_assert_str_eq(joined, want);
}

START_TEST(sacct_piped)
{
	struct pm_evidence *ev = ev_new(NULL);
	char reason[200] = "";
	const struct pm_jobinfo *j = &ev->job;

	ck_assert_int_eq(run(pm_parse_sacct, ev, SACCT_P, reason), 0);
	ck_assert_str_eq(j->id, "4242");
	ck_assert_str_eq(j->state, "FAILED");
	ck_assert_ptr_null(j->cancelled_by);
	ck_assert_int_eq(j->exit_code, 1);
	ck_assert_int_eq(j->exit_signal, 0);
	ck_assert(j->start == BASE);
	ck_assert(j->end == BASE + 3600);
	nodes_are(j, "gpu016 gpu017");
	ck_assert_uint_eq(ev->nnodes, 2);
	ck_assert_int_eq(j->ntasks, 8);
	ck_assert_int_eq(j->gpus_per_node, 4);
	ck_assert_ptr_null(j->failed_node);
	ck_assert_int_eq(j->restart, -1);
	FACT_IS(ev, "job.gpus_per_node", -1, 4);
	FACT_IS(ev, "job.nodes", -1, 2);
	ck_assert_ptr_null(fact(ev, "job.nodes", -1)->node);
	pm_evidence_destroy(ev);
}
END_TEST

START_TEST(sacct_columns)
{
	struct pm_evidence *ev = ev_new(NULL);
	char reason[200] = "";
	const struct pm_jobinfo *j = &ev->job;

	/* other columns, another order, a cancel by uid, a node failure */
	ck_assert_int_eq(run(pm_parse_sacct, ev,
			     "Cluster|State|JobIDRaw|JobID|Partition|NodeList|UID|NNodes|Requeue|"
			     "FailedNode|ExitCode|NTasks|AllocTRES\n"
			     "lab|CANCELLED by 1000|77|77|gpu|n[1-3]|1000|3|1|n2|0:15|12|"
			     "cpu=3,gres/gpu:h100=12,node=3\n",
			     reason),
			 0);
	ck_assert_str_eq(j->cluster, "lab");
	ck_assert_str_eq(j->state, "CANCELLED");
	ck_assert_str_eq(j->cancelled_by, "1000");
	ck_assert_str_eq(j->failed_node, "n2");
	ck_assert_int_eq(j->exit_signal, 15);
	ck_assert_int_eq(j->user_uid, 1000);
	ck_assert_int_eq(j->restart, 1);
	ck_assert_int_eq(j->ntasks, 12);
	ck_assert_int_eq(j->gpus_per_node, 4);
	ck_assert(j->start == 0);
	nodes_are(j, "n1 n2 n3");
	pm_evidence_destroy(ev);

	/* requeued (sacct -D): the last run's row wins; uneven GPUs give no per-node count */
	ev = ev_new(NULL);
	j = &ev->job;
	ck_assert_int_eq(run(pm_parse_sacct, ev,
			     "JobID|State|ExitCode|NodeList|NNodes|AllocTRES\n"
			     "9|NODE_FAIL|0:0|a1|1|gres/gpu=4\n"
			     "9.0|CANCELLED|0:9|a1|1|gres/gpu=4\n"
			     "10|COMPLETED|0:0|zz|1|\n"
			     "9|TIMEOUT|0:0|b[1-2]|2|gres/gpu=3\n",
			     reason),
			 0);
	ck_assert_str_eq(j->id, "9");
	ck_assert_str_eq(j->state, "TIMEOUT");
	nodes_are(j, "b1 b2");
	ck_assert_int_eq(j->gpus_per_node, -1);
	ck_assert_ptr_null(fact(ev, "job.gpus_per_node", -1));
	pm_evidence_destroy(ev);
}
END_TEST

START_TEST(sacct_table)
{
	struct pm_evidence *ev = ev_new(NULL);
	char reason[200] = "";
	const struct pm_jobinfo *j = &ev->job;

	ck_assert_int_eq(run(pm_parse_sacct, ev, SACCT_TABLE, reason), 0);
	ck_assert_str_eq(j->id, "4243");
	ck_assert_str_eq(j->state, "CANCELLED");
	ck_assert_ptr_null(j->cancelled_by);
	ck_assert_int_eq(j->exit_code, 0);
	ck_assert_int_eq(j->exit_signal, 15);
	ck_assert(j->end == BASE + 1200);
	nodes_are(j, "gpu016 gpu017");
	ck_assert_int_eq(j->ntasks, 16);
	ck_assert_int_eq(j->gpus_per_node, -1); /* AllocTRES cut by the column width */
	FACT_IS(ev, "job.nodes", -1, 2);
	pm_evidence_destroy(ev);

	/* a cut node list is not expanded */
	ev = ev_new(NULL);
	ck_assert_int_eq(run(pm_parse_sacct, ev,
			     "JobID  State  NodeList\n------ ------ --------\n"
			     "5      FAILED gpu[016+\n",
			     reason),
			 0);
	ck_assert_uint_eq(ev->job.nnodes, 0);
	pm_evidence_destroy(ev);
}
END_TEST

START_TEST(sacct_hostile)
{
	struct pm_evidence *ev = ev_new(NULL);
	char reason[200] = "";

	ck_assert_int_eq(run(pm_parse_sacct, ev, "", reason), -1);
	ck_assert_int_eq(run(pm_parse_sacct, ev, "4242|FAILED|1:0\n", reason), -1);
	ck_assert_int_eq(run(pm_parse_sacct, ev, "JobID|State\n", reason), -1);
	ck_assert_int_eq(run(pm_parse_sacct, ev, "JobID|State\n4242.0|FAILED\n", reason), -1);
	ck_assert_int_eq(run(pm_parse_sacct, ev, "JobID State\nxxxxx yyyy\n", reason), -1);
	ck_assert_int_eq(run(pm_parse_sacct, ev, "Name|State\nx|FAILED\n", reason), -1);
	ck_assert_str_ne(reason, "");
	ck_assert_ptr_null(ev->job.id);
	/* huge and broken numbers are ignored, not wrapped */
	ck_assert_int_eq(run(pm_parse_sacct, ev,
			     "JobID|NNodes|NTasks|ExitCode|AllocTRES|NodeList|Start\n"
			     "1|99999999999999999999|-5|999:999|gres/gpu=99999999999999999999|"
			     "n[0-99999999]|2026-99-99T00:00:00\n",
			     reason),
			 0);
	ck_assert_int_eq(ev->job.ntasks, -1);
	ck_assert_int_eq(ev->job.exit_code, -1);
	ck_assert_int_eq(ev->job.gpus_per_node, -1);
	ck_assert_uint_eq(ev->job.nnodes, 0);
	ck_assert(ev->job.start == 0);
	pm_evidence_destroy(ev);
	ev = ev_new(NULL);
	{
		static const char nul[] = "JobID|State\n7|FAI\0LED\n";

		ck_assert_int_eq(run_n(pm_parse_sacct, ev, nul, sizeof(nul) - 1, reason), 0);
	}
	ck_assert_str_eq(ev->job.id, "7");
	pm_evidence_destroy(ev);
	hostile(pm_parse_sacct, SACCT_P);
	hostile(pm_parse_sacct, SACCT_TABLE);
	long_lines(pm_parse_sacct, SACCT_P, '|');
	long_lines(pm_parse_sacct, SACCT_TABLE, '-');
	long_lines(pm_parse_sacct, SACCT_P, 'a');
}
END_TEST

START_TEST(scontrol_job)
{
	struct pm_evidence *ev = ev_new(NULL);
	char reason[200] = "";
	const struct pm_jobinfo *j = &ev->job;

	ck_assert_int_eq(run(pm_parse_scontrol, ev, SCONTROL, reason), 0);
	ck_assert_str_eq(j->id, "4242");
	ck_assert_str_eq(j->state, "FAILED");
	ck_assert_str_eq(j->reason, "NonZeroExitCode");
	ck_assert_int_eq(j->exit_code, 1);
	ck_assert_int_eq(j->exit_signal, 0);
	ck_assert(j->start == BASE);
	ck_assert(j->end == BASE + 3600);
	nodes_are(j, "gpu016 gpu017");
	ck_assert_uint_eq(ev->nnodes, 2);
	ck_assert_int_eq(j->ntasks, 8);
	ck_assert_int_eq(j->restart, 2);
	ck_assert_int_eq(j->user_uid, 1000);
	ck_assert_int_eq(j->gpus_per_node, 4);
	FACT_IS(ev, "job.gpus_per_node", -1, 4);
	FACT_IS(ev, "job.nodes", -1, 2);
	/* merges with what sacct said */
	ck_assert_int_eq(run(pm_parse_sacct, ev, SACCT_P, reason), 0);
	nodes_are(j, "gpu016 gpu017");
	ck_assert_str_eq(j->reason, "NonZeroExitCode");
	pm_evidence_destroy(ev);
}
END_TEST

START_TEST(scontrol_variants)
{
	struct pm_evidence *ev = ev_new(NULL);
	char reason[200] = "";
	const struct pm_jobinfo *j = &ev->job;

	/* pending-style values, TresPerNode, a second record that is ignored */
	ck_assert_int_eq(run(pm_parse_scontrol, ev,
			     "JobId=55 ArrayJobId=54 JobName=x\n"
			     "   UserId=bob(2001) JobState=TIMEOUT Reason=TimeLimit\n"
			     "   StartTime=Unknown EndTime=None NodeList=(null) NumNodes=2-2\n"
			     "   TRES=cpu=2,node=2 TresPerNode=gres:gpu:h100:8\n"
			     "\n"
			     "JobId=56 JobName=y JobState=FAILED NodeList=zz1\n",
			     reason),
			 0);
	ck_assert_str_eq(j->id, "55");
	ck_assert_str_eq(j->state, "TIMEOUT");
	ck_assert_int_eq(j->user_uid, 2001);
	ck_assert(j->start == 0 && j->end == 0);
	ck_assert_uint_eq(j->nnodes, 0);
	ck_assert_int_eq(j->gpus_per_node, 8);
	pm_evidence_destroy(ev);

	ev = ev_new(NULL);
	ck_assert_int_eq(run(pm_parse_scontrol, ev, "slurm_load_jobs error: Invalid job id\n",
			     reason),
			 -1);
	ck_assert_int_eq(run(pm_parse_scontrol, ev, "JobId= JobName=x\n", reason), -1);
	ck_assert_int_eq(run(pm_parse_scontrol, ev, "", reason), -1);
	ck_assert_int_eq(run(pm_parse_scontrol, ev,
			     "JobId=1 UserId=x(99999999999) UserId=y( ExitCode=1: "
			     "NumTasks=-3 NumNodes=0 TRES=gres/gpu=5 Restarts=abc\n",
			     reason),
			 0);
	ck_assert_int_eq(ev->job.user_uid, -1);
	ck_assert_int_eq(ev->job.exit_code, -1);
	ck_assert_int_eq(ev->job.ntasks, -1);
	ck_assert_int_eq(ev->job.gpus_per_node, -1);
	ck_assert_int_eq(ev->job.restart, -1);
	pm_evidence_destroy(ev);
	hostile(pm_parse_scontrol, SCONTROL);
	long_lines(pm_parse_scontrol, SCONTROL, '=');
	long_lines(pm_parse_scontrol, SCONTROL, 'k');
}
END_TEST

START_TEST(meminfo)
{
	struct pm_evidence *ev = ev_new("gpu016");
	char reason[200] = "";

	ck_assert_int_eq(run(pm_parse_meminfo, ev, MEMINFO, reason), 0);
	FACT_IS(ev, "node.mem_total_kb", -1, 2113470464.0);
	FACT_IS(ev, "node.mem_available_kb", -1, 2048000);
	ck_assert_str_eq(fact(ev, "node.mem_total_kb", -1)->node, "gpu016");
	ck_assert_uint_eq(ev->nfacts, 2);
	pm_evidence_destroy(ev);
	ev = ev_new(NULL);
	ck_assert_int_eq(run(pm_parse_meminfo, ev, "MemFree: 12 kB\n", reason), -1);
	ck_assert_int_eq(run(pm_parse_meminfo, ev, "", reason), -1);
	ck_assert_int_eq(run(pm_parse_meminfo, ev, "MemTotal: lots kB\n", reason), -1);
	ck_assert_int_eq(run(pm_parse_meminfo, ev, "MemTotal: 999999999999999999999 kB\n", reason),
			 -1);
	ck_assert_uint_eq(count_facts(ev, "node.mem_total_kb"), 0);
	pm_evidence_destroy(ev);
	hostile(pm_parse_meminfo, MEMINFO);
	long_lines(pm_parse_meminfo, MEMINFO, ':');
}
END_TEST

START_TEST(tasks)
{
	struct pm_evidence *ev = ev_new(NULL);
	char reason[200] = "";
	const struct pm_task *t;

	ck_assert_int_eq(run(pm_parse_tasks, ev, TASKS, reason), 0);
	ck_assert_str_eq(ev->job.id, "4242");
	ck_assert_uint_eq(ev->nnodes, 2);
	t = task(ev, 0);
	ck_assert_ptr_nonnull(t);
	ck_assert_str_eq(t->node, "gpu016");
	ck_assert_int_eq(t->local_rank, 0);
	ck_assert_int_eq(t->pid, 40000);
	ck_assert_str_eq(t->gpus, "0");
	ck_assert(t->start == BASE + 2.5);
	ck_assert_int_eq(t->exited, 1); /* step 0's SIGTERM, not the batch script's exit */
	ck_assert_int_eq(t->signal, 15);
	ck_assert_int_eq(t->exit_code, -1);
	t = task(ev, 5);
	ck_assert_ptr_nonnull(t);
	ck_assert_str_eq(t->node, "gpu017");
	ck_assert(t->start == BASE + 2);
	ck_assert_int_eq(t->exited, 1); /* the failure stays over step 1's clean exit */
	ck_assert_int_eq(t->exit_code, 1);
	ck_assert_int_eq(t->signal, 0);
	ck_assert(t->end == BASE + 2640.25);
	t = task(ev, 1);
	ck_assert_int_eq(t->signal, 6);
	ck_assert_int_eq(t->core, 1);
	t = task(ev, 2);
	ck_assert_int_eq(t->exit_code, 7);
	ck_assert_int_eq(t->core, 0);
	ck_assert_ptr_null(task(ev, 3));
	t = task(ev, 7);
	ck_assert_ptr_nonnull(t);
	ck_assert_ptr_null(t->node);
	ck_assert_int_eq(t->pid, 0);
	ck_assert_uint_eq(ev->ntasks, 5);
	pm_evidence_destroy(ev);

	ev = ev_new(NULL);
	ck_assert_int_eq(run(pm_parse_tasks, ev, "not json\n{}\n[]\n", reason), -1);
	ck_assert_str_ne(reason, "");
	ck_assert_int_eq(run(pm_parse_tasks, ev, "", reason), -1);
	ck_assert_int_eq(run(pm_parse_tasks, ev,
			     "{\"schema\":\"postmortem.taskexit/1\",\"rank\":1,\"rank\":2}\n",
			     reason),
			 -1);
	ck_assert_uint_eq(ev->ntasks, 0);
	pm_evidence_destroy(ev);
	hostile(pm_parse_tasks, TASKS);
	long_lines(pm_parse_tasks, TASKS, '{');
	long_lines(pm_parse_tasks, TASKS, '[');
}
END_TEST

/* The plugin's flat records are read without a jansson tree (parse_sched.c); records that
 * need jansson (escapes, nesting) must come out the same, and what jansson refuses must
 * still be refused. */
START_TEST(tasks_flat_and_tree_agree)
{
	static const char *const flat =
		"{\"schema\":\"postmortem.rankmap/1\",\"job\":\"77\",\"step\":\"0\",\"node\":\"gpu1\","
		"\"rank\":3,\"local_rank\":3,\"pid\":10,\"gpus\":\"2\",\"start\":1796010000.5}\n"
		"{ \"schema\" : \"postmortem.taskexit/1\" , \"node\":\"gpu1\", \"rank\" : 3, "
		"\"status\":139,\"end\":1796010100,\"core\":true,\"x\":null,\"y\":-0.5e-3}\n";
	static const char *const tree =
		"{\"schema\":\"postmortem.rankmap/1\",\"job\":\"7\\u0037\",\"step\":\"0\","
		"\"node\":\"gpu\\u0031\",\"rank\":3,\"local_rank\":3,\"pid\":10,\"gpus\":\"2\","
		"\"start\":1796010000.5,\"extra\":{\"a\":[1,2]}}\n"
		"{\"schema\":\"postmortem.taskexit/1\",\"node\":\"gpu1\",\"rank\":3,\"status\":139,"
		"\"end\":1796010100,\"core\":true,\"note\":\"caf\u00e9\"}\n";
	static const char *const refused =
		"{\"schema\":\"postmortem.taskexit/1\",\"rank\":04,\"status\":0}\n"
		"{\"schema\":\"postmortem.taskexit/1\",\"rank\":5,\"status\":0} x\n"
		"{\"schema\":\"postmortem.taskexit/1\",\"rank\":6,\"status\":0,\"z\":1,\"z\":2}\n"
		"{\"schema\":\"postmortem.taskexit/1\",\"rank\":7,\"status\":0,\"z\":1e400}\n"
		"{\"schema\":\"postmortem.taskexit/1\",\"rank\":8,\"status\":0,}\n"
		"{\"schema\":\"postmortem.taskexit/1\",\"rank\":9,\"status\":0,\"z\":tru}\n"
		"{\"schema\":\"postmortem.taskexit/1\",\"rank\":10,\"status\":0,\"z\":\"a\tb\"}\n"
		"{\"schema\":\"postmortem.taskexit/1\",\"rank\":11,\"status\":0,\"z\":1.}\n"
		"{\"schema\":\"postmortem.taskexit/1\",\"rank\":12,\"status\":0,\"z\":99999999999999999999}\n"
		"{\"schema\":\"postmortem.taskexit/1\",\"rank\":13,\"status\":0\n"
		"{\"schema\":\"postmortem.taskexit/1\",\"rank\":14,\"status\":0}\n";
	const char *texts[2] = {flat, tree};
	struct pm_evidence *ev;
	char reason[200] = "";
	const struct pm_task *t;

	for (int k = 0; k < 2; k++) {
		ev = ev_new(NULL);
		ck_assert_int_eq(run(pm_parse_tasks, ev, texts[k], reason), 0);
		ck_assert_str_eq(ev->job.id, "77");
		t = task(ev, 3);
		ck_assert_ptr_nonnull(t);
		ck_assert_str_eq(t->node, "gpu1");
		ck_assert_int_eq(t->local_rank, 3);
		ck_assert_int_eq(t->pid, 10);
		ck_assert_str_eq(t->gpus, "2");
		ck_assert(t->start == 1796010000.5);
		ck_assert(t->end == 1796010100);
		ck_assert_int_eq(t->exited, 1);
		ck_assert_int_eq(t->signal, 11);
		ck_assert_int_eq(t->core, 1);
		ck_assert_uint_eq(ev->ntasks, 1);
		pm_evidence_destroy(ev);
	}
	ev = ev_new(NULL);
	ck_assert_int_eq(run(pm_parse_tasks, ev, refused, reason), 0);
	ck_assert_uint_eq(ev->ntasks, 1); /* only rank 14's record is JSON */
	ck_assert_ptr_nonnull(task(ev, 14));
	pm_evidence_destroy(ev);
}
END_TEST

/* ---- compressed inputs and the input bound (evidence.c, sniff.c) ---- */

/* N bytes of numbered text lines. */
static char *lines_of(size_t n)
{
	char *b = malloc(n + 32);
	size_t k = 0;

	ck_assert_ptr_nonnull(b);
	for (unsigned i = 0; k < n; i++)
		k += (size_t)sprintf(b + k, "line %u of the job's log\n", i);
	return b;
}

static void *gzip_of(const char *text, size_t n, size_t *outlen)
{
	z_stream z = {0};
	size_t cap = n / 2 + 4096;
	unsigned char *out = malloc(cap);

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY), Z_OK);
	z.next_in = (Bytef *)text;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	ck_assert_int_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
	*outlen = z.total_out;
	deflateEnd(&z);
	return out;
}

static void *zstd_of(const char *text, size_t n, size_t *outlen)
{
	size_t cap = ZSTD_compressBound(n);
	void *out = malloc(cap);

	ck_assert_ptr_nonnull(out);
	*outlen = ZSTD_compress(out, cap, text, n, 3);
	ck_assert(!ZSTD_isError(*outlen));
	return out;
}

/*
 * A zstd frame of BLOCKS RLE blocks of 128 KiB of '\n' each, no content size: a few bytes
 * per 128 KiB, the shape of a bomb that costs nothing to make.
 */
static unsigned char *rle_bomb(size_t blocks, size_t *len)
{
	unsigned char *b = malloc(6 + 4 * blocks + 3), *p = b;

	ck_assert_ptr_nonnull(b);
	memcpy(p, "\x28\xb5\x2f\xfd", 4);
	p += 4;
	*p++ = 0x00;			 /* no content size, no checksum, a window descriptor */
	*p++ = (unsigned char)(10 << 3); /* 1 << (10 + 10): a 1 MiB window */
	for (size_t i = 0; i < blocks; i++) {
		uint32_t h = (uint32_t)(128u << 10) << 3 | 1u << 1 | (i + 1 == blocks);

		*p++ = (unsigned char)h;
		*p++ = (unsigned char)(h >> 8);
		*p++ = (unsigned char)(h >> 16);
		*p++ = '\n';
	}
	*len = (size_t)(p - b);
	return b;
}

struct counted {
	uint64_t bytes, chunks;
};

static int count_chunk(void *arg, const char *buf, size_t len, uint64_t off)
{
	struct counted *c = arg;

	(void)off;
	(void)buf;
	c->bytes += len;
	c->chunks++;
	return 0;
}

/* Read BUF (LEN bytes) as one in-memory input; its evidence set into *EVP (caller frees). */
static struct counted read_mem(const void *buf, size_t len, struct pm_evidence **evp)
{
	struct pm_evidence *ev = ev_new(NULL);
	struct counted c = {0, 0};

	ev->files[0].mem = dup_exact(buf, len);
	ev->files[0].memlen = len;
	ck_assert_int_eq(pm_file_read(&ev->files[0], count_chunk, &c), 0);
	*evp = ev;
	return c;
}

START_TEST(packed_formats)
{
	static const struct {
		const char *bytes;
		size_t len;
		const char *want;
	} t[] = {
		{"\x1f\x8b\x08\x00", 4, "gzip"},
		{"\x28\xb5\x2f\xfd\x00", 5, "zstd"},
		{"\x50\x2a\x4d\x18\x04\x00\x00\x00", 8, "zstd"}, /* a skippable frame first */
		{"\xfd\x37zXZ\x00\x00", 7, "xz"},
		{"BZh91AY&SY\x01", 11, "bzip2"},
		{"\x04\x22\x4d\x18\x64", 5, "lz4"},
		{"PK\x03\x04\x14\x00", 6, "zip"},
		{"7z\xbc\xaf\x27\x1c\x00", 7, "7z"},
		{"\x1f\x9d\x90", 3, "compress (.Z)"},
		{"LZIP\x01\x0c", 6, "lzip"},
		/* text that starts like one of them is text */
		{"BZh, said the log\n", 18, NULL},
		{"LZIP version 1.23\n", 18, NULL},
		{"PK: primary key\n", 16, NULL},
		{"\x1f", 1, NULL},
		{"", 0, NULL},
		{"step 1 loss 2.3\n", 16, NULL},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *b = dup_exact(t[i].bytes, t[i].len);
		const char *got = pm_packed_format(b, t[i].len);

		if (!t[i].want)
			ck_assert_msg(!got, "case %zu: %s", i, got);
		else
			ck_assert_msg(got && !strcmp(got, t[i].want), "case %zu: %s", i,
				      got ? got : "(null)");
		free(b);
	}
}
END_TEST

START_TEST(input_max_setting)
{
	unsetenv("POSTMORTEM_INPUT_MAX");
	ck_assert_uint_eq(pm_input_max(), 1ULL << 30);
	setenv("POSTMORTEM_INPUT_MAX", "2G", 1);
	ck_assert_uint_eq(pm_input_max(), 2ULL << 30);
	setenv("POSTMORTEM_INPUT_MAX", "300MiB", 1);
	ck_assert_uint_eq(pm_input_max(), 300ULL << 20);
	setenv("POSTMORTEM_INPUT_MAX", "5000000", 1);
	ck_assert_uint_eq(pm_input_max(), 5000000);
	setenv("POSTMORTEM_INPUT_MAX", "4k", 1); /* below the least: the least */
	ck_assert_uint_eq(pm_input_max(), 1ULL << 20);
	setenv("POSTMORTEM_INPUT_MAX", "lots", 1); /* no size: the default */
	ck_assert_uint_eq(pm_input_max(), 1ULL << 30);
	setenv("POSTMORTEM_INPUT_MAX", "99999999999999999999T", 1);
	ck_assert_uint_eq(pm_input_max(), 1ULL << 30);
	setenv("POSTMORTEM_INPUT_MAX", "12Q", 1);
	ck_assert_uint_eq(pm_input_max(), 1ULL << 30);
	unsetenv("POSTMORTEM_INPUT_MAX");
}
END_TEST

/* Each input stops at the bound, after decompression: what fits is read, the file is
 * truncated with the reason; an input that ends exactly there is whole. */
START_TEST(input_max_cuts)
{
	size_t n = 3u << 20, zl, gl;
	char *text = lines_of(n);
	void *gz = gzip_of(text, n, &gl), *zs = zstd_of(text, n, &zl);
	struct pm_evidence *ev;
	struct counted c;

	setenv("POSTMORTEM_INPUT_MAX", "1M", 1);
	c = read_mem(gz, gl, &ev);
	ck_assert_uint_eq(c.bytes, 1u << 20);
	ck_assert_int_eq(ev->files[0].status, PM_ST_TRUNCATED);
	ck_assert_str_eq(ev->files[0].reason, "more text than 1 MiB once gunzipped: only its first "
					      "1 MiB read (POSTMORTEM_INPUT_MAX)");
	pm_evidence_destroy(ev);

	c = read_mem(zs, zl, &ev);
	ck_assert_uint_eq(c.bytes, 1u << 20);
	ck_assert_int_eq(ev->files[0].status, PM_ST_TRUNCATED);
	ck_assert_ptr_nonnull(strstr(ev->files[0].reason, "once decompressed"));
	pm_evidence_destroy(ev);

	c = read_mem(text, n, &ev); /* plain text: the same bound */
	ck_assert_uint_eq(c.bytes, 1u << 20);
	ck_assert_int_eq(ev->files[0].status, PM_ST_TRUNCATED);
	ck_assert_str_eq(ev->files[0].reason,
			 "larger than 1 MiB: only its first 1 MiB read (POSTMORTEM_INPUT_MAX)");
	pm_evidence_destroy(ev);

	free(gz);
	gz = gzip_of(text, 1u << 20, &gl); /* exactly the bound: all of it, not cut */
	c = read_mem(gz, gl, &ev);
	ck_assert_uint_eq(c.bytes, 1u << 20);
	ck_assert_int_eq(ev->files[0].status, PM_ST_OK);
	pm_evidence_destroy(ev);

	setenv("POSTMORTEM_INPUT_MAX", "8M", 1); /* under the bound: whole, line-aligned */
	c = read_mem(zs, zl, &ev);
	ck_assert_uint_eq(c.bytes, n);
	ck_assert_uint_gt(c.chunks, 0);
	ck_assert_int_eq(ev->files[0].status, PM_ST_OK);
	pm_evidence_destroy(ev);
	unsetenv("POSTMORTEM_INPUT_MAX");
	free(gz);
	free(zs);
	free(text);
}
END_TEST

/* 16 GiB of newlines in a 512 KiB zstd frame: read up to the bound only, in moments. */
START_TEST(input_max_bomb)
{
	size_t len;
	unsigned char *bomb = rle_bomb(128u << 10, &len);
	struct pm_evidence *ev;
	struct counted c;
	char *head = malloc(65536);
	size_t hl;

	ck_assert_uint_lt(len, 600u << 10);
	setenv("POSTMORTEM_INPUT_MAX", "64M", 1);
	/* empty lines: the line bound (64 MiB / 16) comes first, and reading stops there */
	c = read_mem(bomb, len, &ev);
	ck_assert_uint_eq(c.bytes, 4u << 20);
	ck_assert_int_eq(ev->files[0].status, PM_ST_TRUNCATED);
	ck_assert_str_eq(ev->files[0].reason, "more than 4194304 lines: only its first 4194304 "
					      "read (POSTMORTEM_INPUT_MAX / 16)");
	ck_assert_uint_lt(ev->files[0].bytes, 16u << 20);
	/* the structured reader drains what it does not keep: the bound holds there too */
	free(ev->files[0].reason);
	ev->files[0].reason = NULL;
	ev->files[0].status = PM_ST_OK;
	ev->files[0].bytes = 0;
	{
		char *all;
		size_t al;

		ck_assert_int_eq(pm_file_slurp(&ev->files[0], 1u << 20, &all, &al), 0);
		ck_assert_uint_eq(al, 1u << 20);
		ck_assert_int_eq(ev->files[0].status, PM_ST_TRUNCATED);
		free(all);
	}
	ck_assert_int_eq(pm_file_head(&ev->files[0], head, 65536, &hl), 0);
	ck_assert_uint_eq(hl, 65536);
	pm_evidence_destroy(ev);
	unsetenv("POSTMORTEM_INPUT_MAX");
	free(head);
	free(bomb);
}
END_TEST

struct sink {
	char *buf;
	size_t len, cap;
	int stop_after; /* pieces; -1 never */
};

static int to_sink(void *arg, const char *b, size_t n)
{
	struct sink *s = arg;

	if (s->stop_after == 0) {
		errno = EPIPE;
		return -1;
	}
	if (s->stop_after > 0)
		s->stop_after--;
	if (s->len + n > s->cap) {
		s->cap = (s->len + n) * 2;
		s->buf = realloc(s->buf, s->cap);
		ck_assert_ptr_nonnull(s->buf);
	}
	memcpy(s->buf + s->len, b, n);
	s->len += n;
	return 0;
}

/* pm_text_stream on a temporary file holding BUF; its text into *S, its note into WHY. */
static int stream_of(const void *buf, size_t len, uint64_t max, struct sink *s, char *why)
{
	char path[] = "/tmp/pmtext.XXXXXX";
	int fd = mkstemp(path), rc;

	ck_assert_int_ge(fd, 0);
	unlink(path);
	ck_assert_int_eq(write(fd, buf, len), (ssize_t)len);
	lseek(fd, 0, SEEK_SET);
	s->len = 0;
	rc = pm_text_stream(fd, max, to_sink, s, why, 200);
	ck_assert_int_ne(fcntl(fd, F_GETFD), -1); /* left open */
	close(fd);
	return rc;
}

/* ---- bundles: the manifest bounds what is read after it ---- */

/* A ustar member header for NAME claiming SIZE bytes, then BODY (LEN bytes) padded. */
static void tar_put(FILE *f, const char *name, size_t size, const void *body, size_t len)
{
	unsigned char h[512] = {0};
	unsigned sum = 0;
	char sz[24];

	snprintf((char *)h, 100, "%s", name);
	memcpy(h + 100, "0000644", 8);
	memcpy(h + 108, "0000000", 8);
	memcpy(h + 116, "0000000", 8);
	snprintf(sz, sizeof(sz), "%011zo", size); /* 11 digits and the NUL */
	memcpy(h + 124, sz, 12);
	memcpy(h + 136, "00000000000", 12);
	memset(h + 148, ' ', 8);
	h[156] = '0';
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	for (int i = 0; i < 512; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	fwrite(h, 1, 512, f);
	fwrite(body, 1, len, f);
	if (len == size && len % 512) {
		static const char zero[512];
		fwrite(zero, 1, 512 - len % 512, f);
	}
}

/* The manifest of one member sources/app_log/a.log, claiming BYTES bytes of digest of SHA_OF. */
static char *manifest_of(size_t bytes, const char *sha_of)
{
	struct pm_sha256 c;
	unsigned char d[32];
	char hex[80], *m;

	pm_sha256_init(&c);
	pm_sha256_update(&c, sha_of, strlen(sha_of));
	pm_sha256_final(&c, d);
	pm_sha256_hex(d, hex);
	ck_assert_int_gt(
		asprintf(&m,
			 "{\"schema\": \"" PM_BUNDLE_SCHEMA "\", \"cluster\": \"lab\", "
			 "\"job\": \"4242\", \"restart\": 0, \"node\": \"n1\", \"files\": "
			 "[{\"path\": \"sources/app_log/a.log\", \"source\": \"app_log\", "
			 "\"node\": \"n1\", \"rank\": null, \"bytes\": %zu, \"sha256\": \"%s\"}]}",
			 bytes, hex),
		0);
	return m;
}

/* Write a bundle: MAN as manifest.json, then "a.log" holding BODY but claiming CLAIM bytes,
 * then, when TAIL, a member claiming 512 KiB that the file ends inside. */
static const char *bundle_of(const char *man, const char *body, size_t claim, bool tail)
{
	static char path[] = "/tmp/pmbundle.XXXXXX.tar.zst";
	static int fd = -1;
	FILE *f;

	if (fd < 0) {
		fd = mkstemps(path, 8);
		ck_assert_int_ge(fd, 0);
		close(fd);
	}
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	tar_put(f, "manifest.json", strlen(man), man, strlen(man));
	tar_put(f, "sources/extra.bin", 5, "extra", 5); /* listed nowhere: skipped */
	tar_put(f, "sources/app_log/a.log", claim, body,
		claim < strlen(body) ? claim : strlen(body));
	if (tail)
		tar_put(f, "sources/app_log/b.log", 512u << 10, "cut", 3);
	else
		fwrite((char[1024]){0}, 1, 1024, f);
	fclose(f);
	return path;
}

static int add_bundle(const char *path, char *err)
{
	struct pm_evidence *ev = pm_evidence_create(NULL);
	int rc = pm_evidence_add_path(ev, path, err, 512);

	if (rc == 0)
		ck_assert_uint_eq(ev->nfiles, 1); /* a.log; not the unlisted member */
	pm_evidence_destroy(ev);
	return rc;
}

/*
 * A bundle's manifest comes first and says what each member holds: one claiming more than
 * POSTMORTEM_INPUT_MAX is refused before any member is read, and a member whose size or
 * checksum differs is refused when it is met, not after the members behind it were read
 * (each case ends in a truncated member that reading on would have reported instead).
 */
START_TEST(bundle_manifest_bounds)
{
	const char *body = "2026-11-30T04:40:01 step 10 loss 0.5\n";
	char err[512], *man;
	const char *b;

	setenv("POSTMORTEM_INPUT_MAX", "1M", 1);
	man = manifest_of(strlen(body), body);
	b = bundle_of(man, body, strlen(body), false);
	ck_assert_msg(add_bundle(b, err) == 0, "%s", err);
	b = bundle_of(man, body, strlen(body), true);
	ck_assert_int_eq(add_bundle(b, err), -1); /* the unlisted b.log's data is skipped */
	ck_assert_msg(strcasestr(err, "truncated"), "%s", err);
	free(man);

	man = manifest_of(2u << 20, body);
	b = bundle_of(man, body, 2u << 20, false);
	ck_assert_int_eq(add_bundle(b, err), -1);
	ck_assert_msg(strstr(err, "more than 1048576 bytes in all (POSTMORTEM_INPUT_MAX)"), "%s",
		      err);
	free(man);

	man = manifest_of(strlen(body) - 1, body);
	b = bundle_of(man, body, strlen(body), true);
	ck_assert_int_eq(add_bundle(b, err), -1);
	ck_assert_msg(strstr(err, "a member's size differs from the manifest"), "%s", err);
	free(man);

	man = manifest_of(strlen(body), "other text of the same length, not the body!\n");
	b = bundle_of(man, body, strlen(body), true);
	ck_assert_int_eq(add_bundle(b, err), -1);
	ck_assert_msg(strstr(err, "a member's checksum differs from the manifest"), "%s", err);
	free(man);
	unlink(b);
	unsetenv("POSTMORTEM_INPUT_MAX");
}
END_TEST

START_TEST(text_stream)
{
	size_t n = 300000, gl, zl;
	char *text = lines_of(n), why[200];
	unsigned char *gz = gzip_of(text, n, &gl), *zs = zstd_of(text, n, &zl), *two;
	struct sink s = {NULL, 0, 0, -1};

	/* gzip, zstd, plain: the same text */
	ck_assert_int_eq(stream_of(gz, gl, 0, &s, why), 0);
	ck_assert_str_eq(why, "");
	ck_assert(s.len == n && !memcmp(s.buf, text, n));
	ck_assert_int_eq(stream_of(zs, zl, 0, &s, why), 0);
	ck_assert(s.len == n && !memcmp(s.buf, text, n) && !why[0]);
	ck_assert_int_eq(stream_of(text, n, 0, &s, why), 0);
	ck_assert(s.len == n && !memcmp(s.buf, text, n) && !why[0]);

	/* two gzip members one after the other: both */
	two = malloc(2 * gl);
	memcpy(two, gz, gl);
	memcpy(two + gl, gz, gl);
	ck_assert_int_eq(stream_of(two, 2 * gl, 0, &s, why), 0);
	ck_assert_uint_eq(s.len, 2 * n);
	ck_assert_str_eq(why, "");

	/* cut at MAX */
	ck_assert_int_eq(stream_of(gz, gl, 1000, &s, why), 0);
	ck_assert_uint_eq(s.len, 1000);
	ck_assert_ptr_nonnull(strstr(why, "only its first 1000 bytes read"));

	/* a stream that ends early, and one damaged in the middle: what came before */
	ck_assert_int_eq(stream_of(gz, gl / 2, 0, &s, why), 0);
	ck_assert_uint_lt(s.len, n);
	ck_assert_ptr_nonnull(strstr(why, "gzip stream ends early"));
	ck_assert_int_eq(stream_of(zs, zl / 2, 0, &s, why), 0);
	ck_assert_ptr_nonnull(strstr(why, "zstd stream ends early"));
	memcpy(two, gz, gl);
	memset(two + gl / 2, 0xff, 64);
	ck_assert_int_eq(stream_of(two, gl, 0, &s, why), 0);
	ck_assert_ptr_nonnull(strstr(why, "gzip data is corrupt"));
	ck_assert_uint_lt(s.len, n);

	/* the callback stops it: -1, its errno */
	s.stop_after = 0;
	errno = 0;
	ck_assert_int_eq(stream_of(zs, zl, 0, &s, why), -1);
	ck_assert_int_eq(errno, EPIPE);
	free(two);
	free(s.buf);
	free(gz);
	free(zs);
	free(text);
}
END_TEST

static Suite *input_suite(void)
{
	Suite *s = suite_create("input");
	TCase *tc;

	tc = tcase_create("names");
	tcase_add_test(tc, names_tables);
	tcase_add_test(tc, names_format_source);
	suite_add_tcase(s, tc);

	tc = tcase_create("sniff");
	tcase_add_test(tc, sniff_structured);
	tcase_add_test(tc, sniff_app_tools);
	tcase_add_test(tc, sniff_logs);
	tcase_add_test(tc, sniff_majority);
	tcase_add_test(tc, sniff_hostile);
	suite_add_tcase(s, tc);

	tc = tcase_create("prefix");
	tcase_add_test(tc, prefix_app);
	tcase_add_test(tc, prefix_logs);
	tcase_add_test(tc, prefix_hostile);
	tcase_add_test(tc, path_rank);
	suite_add_tcase(s, tc);

	tc = tcase_create("time");
	tcase_add_test(tc, time_forms);
	tcase_add_test(tc, time_refused);
	tcase_add_test(tc, time_hostile);
	tcase_add_test(tc, time_format);
	suite_add_tcase(s, tc);

	tc = tcase_create("hostlist");
	tcase_add_test(tc, hostlist_forms);
	tcase_add_test(tc, hostlist_refused);
	suite_add_tcase(s, tc);

	tc = tcase_create("compressed");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, packed_formats);
	tcase_add_test(tc, input_max_setting);
	tcase_add_test(tc, input_max_cuts);
	tcase_add_test(tc, input_max_bomb);
	tcase_add_test(tc, text_stream);
	tcase_add_test(tc, bundle_manifest_bounds);
	suite_add_tcase(s, tc);

	tc = tcase_create("parsers");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, nvsmi_q);
	tcase_add_test(tc, nvsmi_q_variants);
	tcase_add_test(tc, nvsmi_q_hostile);
	tcase_add_test(tc, nvsmi_csv);
	tcase_add_test(tc, sacct_piped);
	tcase_add_test(tc, sacct_columns);
	tcase_add_test(tc, sacct_table);
	tcase_add_test(tc, sacct_hostile);
	tcase_add_test(tc, scontrol_job);
	tcase_add_test(tc, scontrol_variants);
	tcase_add_test(tc, meminfo);
	tcase_add_test(tc, tasks);
	tcase_add_test(tc, tasks_flat_and_tree_agree);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	build_samples();
	return pmt_run(input_suite());
}
