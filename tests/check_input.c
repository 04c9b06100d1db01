/*
 * check_input.c - the input layer: names, sniffing, line prefixes, times, host lists and the
 * structured parsers (nvidia-smi, sacct, scontrol, meminfo, rank_map/task_exit).
 *
 * Every buffer handed to a parser is an exact-size heap copy without a NUL terminator, so
 * that ASan catches any read past its end.  Hostile inputs (truncation at every length,
 * random damage, embedded NULs, huge numbers, 1 MB lines) must never crash or hang.
 *
 * This file holds what the topics share (the exact-size copy, the evidence set, the sample
 * inputs) and the suite; the tests are in check_input_text.c (names, sniffing, prefixes,
 * times, host lists), check_input_parsers.c and check_input_compressed.c.
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

#include "internal.h"
#include "evidence.h"
#include "postmortem.h"
#include "support.h"
#include "check_input.h"

char *dup_exact(const char *s, size_t n)
{
	char *b = malloc(n ? n : 1);

	ck_assert_ptr_nonnull(b);
	memcpy(b, s, n);
	return b;
}

static uint32_t rng_state = 12345;

uint32_t rnd(void)
{
	rng_state = rng_state * 1103515245u + 12345u;
	return rng_state >> 8;
}

/* ---- evidence ---- */

struct pm_evidence *ev_new(const char *node)
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

/* ---- samples ---- */

const char NVSMI_Q[] =
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
const char NVSMI_Q_OLD[] = "==============NVSMI LOG==============\n"
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
const char NVSMI_Q_550[] = "==============NVSMI LOG==============\n"
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

const char NVSMI_CSV[] =
	"index, pci.bus_id, uuid, ecc.errors.uncorrected.volatile.total, retired_pages.pending, "
	"temperature.gpu, remapped_rows.pending, remapped_rows.failure\n"
	"0, 00000000:18:00.0, GPU-4be1a000-1c2d-3e4f-5a6b-7c8d9e0f1a2b, 0, No, 34, No, No\n"
	"1, 00000000:2A:00.0, GPU-4be1a001-1c2d-3e4f-5a6b-7c8d9e0f1a2c, 5, Yes, 35 C, Yes, No\n"
	"2, 00000000:3A:00.0, GPU-4be1a002-1c2d-3e4f-5a6b-7c8d9e0f1a2d, [N/A], [N/A], 36, [N/A], "
	"[Not Supported]\n";

const char SACCT_P[] =
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
char SACCT_TABLE[2048];

void build_samples(void)
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

const char SCONTROL[] =
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

const char MEMINFO[] = "MemTotal:       2113470464 kB\n"
		       "MemFree:         1280000 kB\n"
		       "MemAvailable:    2048000 kB\n"
		       "Buffers:           12345 kB\n"
		       "HugePages_Total:       0\n";

const char TASKS[] =
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

const char APP_LOG[] =
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

const char DMESG[] =
	"[    0.000000] Linux version 5.15.0-91-generic (buildd@lcy02-amd64-045)\n"
	"[   12.345678] nvidia-nvlink: Nvlink Core is being initialized, major device number 508\n"
	"[   12.400001] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.129.03\n"
	"[ 5612.000001] NVRM: Xid (PCI:0000:18:00): 79, pid=40000, name=python3, GPU has fallen off the bus.\n"
	"[ 5612.000002] NVRM: GPU 0000:18:00.0: GPU has fallen off the bus.\n";

Suite *pmt_suite(void)
{
	/* each part's tests, and its timeout in seconds where check's default is short (0: keep it) */
	static const struct {
		const char *name;
		void (*add)(TCase *tc);
		int timeout;
	} parts[] = {
		{"names", input_names_tests, 0},       {"sniff", input_sniff_tests, 0},
		{"prefix", input_prefix_tests, 0},     {"time", input_time_tests, 0},
		{"hostlist", input_hostlist_tests, 0}, {"compressed", input_compressed_tests, 60},
		{"parsers", input_parsers_tests, 120},
	};
	Suite *s = suite_create("input");

	build_samples(); /* before any test runs: they read SACCT_TABLE */
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		TCase *tc = tcase_create(parts[i].name);

		if (parts[i].timeout)
			tcase_set_timeout(tc, parts[i].timeout);
		parts[i].add(tc);
		suite_add_tcase(s, tc);
	}
	return s;
}
