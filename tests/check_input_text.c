/*
 * check_input_text.c - the input suite's text layer: format names, sniffing, line prefixes,
 * time stamps and host lists (check_input.c has the shared helpers and the suite).
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
#include "attribute.h"
#include "evidence.h"
#include "postmortem.h"
#include "support.h"
#include "check_input.h"

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
					  "empty",	   "nvsmi_table"};
	static const char *const st[] = {"ok",	   "missing", "empty",	"truncated", "timed_out",
					 "denied", "lagging", "binary", "unreadable"};
	enum pm_source s;
	int i;

	ck_assert_int_eq(PM_SRC__COUNT, 7);
	ck_assert_int_eq(PM_FMT__COUNT, 20);
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
	ck_assert_int_eq(sniff("73310, python3, 38612 MiB, 00000000:3B:00.0\n"), PM_FMT_NVSMI_CSV);
	ck_assert_int_eq(sniff("0, 00000000:18:00.0, 0\n"), PM_FMT_APP);
	ck_assert_int_eq(sniff("Thu Dec  3 09:14:12 2026\n+------+\n| NVIDIA-SMI 535.161.08 |\n"),
			 PM_FMT_NVSMI_TABLE);
	ck_assert_int_eq(sniff("+------+\n| Processes:     |\n"), PM_FMT_NVSMI_TABLE);
	ck_assert_int_eq(sniff("a\nb\nc\n+------+\n| NVIDIA-SMI 535.161.08 |\n"), PM_FMT_APP);
	ck_assert_int_eq(sniff("+------+\nepoch 1\n| NVIDIA-SMI 535.161.08 |\n"), PM_FMT_APP);
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
	ck_assert_int_eq(sniff("Nov 30 03:11:58.104881 gpu016 kernel: NVRM: Xid 79\n"
			       "Nov 30 03:11:59.000012 gpu016 systemd[1]: Started Session 4.\n"),
			 PM_FMT_SYSLOG);
	ck_assert_int_eq(
		sniff("<4>1 2026-11-30T03:11:58.1+00:00 gpu016 kernel - - - NVRM: Xid 79\n"
		      "<30>1 2026-11-30T03:11:59.2+00:00 gpu016 systemd 1 - - Started Session 4.\n"),
		PM_FMT_SYSLOG);
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
	/* journalctl --no-hostname: a process's tag and pid, or the kernel's, after the stamp;
	 * the whole journal, not only its kernel lines, is the node's log */
	ck_assert_int_eq(sniff("2026-03-04T05:06:00+0000 systemd[1]: Started train.service.\n"
			       "2026-03-04T05:06:07+0000 python3[1234]: epoch 3 loss 2.1\n"
			       "2026-03-04T05:06:08+0000 kernel: NVRM: Xid (PCI:0000:c1:00): 79\n"),
			 PM_FMT_SYSLOG);
	ck_assert_int_eq(sniff("Mar 04 05:06:00 systemd[1]: Started train.service.\n"
			       "Mar 04 05:06:07 python3[1234]: epoch 3 loss 2.1\n"
			       "Mar 04 05:06:08 python3[1234]: epoch 4 loss 2.0\n"),
			 PM_FMT_SYSLOG);
	/* ... not behind a collector's 'Z' or a logging framework's stamp: the job's own */
	ck_assert_int_eq(sniff("2026-03-04T05:06:00.1Z trainer[1234]: epoch 3 loss 2.1\n"
			       "2026-03-04T05:06:07.2Z trainer[1234]: epoch 4 loss 2.0\n"),
			 PM_FMT_APP);
	ck_assert_int_eq(sniff("2026-03-04 05:06:00,101 trainer[1234]: epoch 3 loss 2.1\n"
			       "2026-03-04 05:06:07,202 trainer[1234]: epoch 4 loss 2.0\n"),
			 PM_FMT_APP);
	/* ... but only before "kernel: ": a stamp and any other word is the job's text */
	ck_assert_int_eq(sniff("Mar  4 11:02:40 trainer: epoch 3 loss 2.1\n"
			       "Mar  4 11:02:41 trainer: epoch 4 loss 2.0\n"
			       "Mar  4 11:02:42 trainer: epoch 5 loss 1.9\n"),
			 PM_FMT_APP);
	/* Python's "%(asctime)s %(levelname)s %(name)s: %(message)s": a level is no host */
	ck_assert_int_eq(sniff("2026-11-30 03:11:50,101 INFO trainer: epoch 3\n"
			       "2026-11-30 03:11:51,202 INFO trainer: step 100 loss 2.31\n"
			       "2026-11-30 03:11:58,404 ERROR trainer: RuntimeError: CUDA error\n"),
			 PM_FMT_APP);
	/* a collector's stamp in UTC ('Z') before a program's "Word word: value" lines: no
	 * host and no syslog tag; a syslog behind it has the kernel's tag or a daemon's pid */
	ck_assert_int_eq(sniff("2026-11-30T03:11:50.1Z worker ready: rank 0 of 4\n"
			       "2026-11-30T03:11:51.22Z worker ready: rank 1 of 4\n"
			       "2026-11-30T03:11:58.404Z Checkpoint written: /ckpt/step-0\n"),
			 PM_FMT_APP);
	ck_assert_int_eq(sniff("2026-11-30T03:11:50.101Z gpu016 systemd[1]: Started Session 4.\n"
			       "2026-11-30T03:11:58.404Z gpu016 kernel: NVRM: Xid 79\n"
			       "2026-11-30T03:11:58.405Z gpu016 kernel: NVRM: GPU lost\n"),
			 PM_FMT_SYSLOG);
	ck_assert_int_eq(sniff("2026-11-30T03:11:50+00:00 gpu016 trainer: epoch 3\n"
			       "2026-11-30T03:11:58+00:00 gpu016 trainer: epoch 4\n"),
			 PM_FMT_SYSLOG);
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
	/* journalctl -o short-full and -o short-unix: the same log under other stamps */
	ck_assert_int_eq(
		sniff("Mon 2026-11-30 03:11:58 UTC gpu016 kernel: NVRM: Xid 79\n"
		      "Mon 2026-11-30 03:11:59 UTC gpu016 systemd[1]: Started Session 4.\n"),
		PM_FMT_SYSLOG);
	ck_assert_int_eq(sniff("1796008318.104881 gpu016 kernel: NVRM: Xid 79\n"
			       "1796008319.000012 gpu016 systemd[1]: Started Session 4.\n"),
			 PM_FMT_SYSLOG);
	/* ... but a number and a word before a program's "name: " is the job's text */
	ck_assert_int_eq(sniff("1796008318.104881 loss: 2.31\n"
			       "1796008319.000012 loss: 2.30\n"),
			 PM_FMT_APP);
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
	/* text is passed over eight bytes at a time: a control byte, a DEL or a NUL at any place
	 * in each eight is still counted (one in eight is binary), and one in 64 is not */
	for (int at = 0; at < 8; at++)
		for (int k = 0; k < 3; k++) {
			static const char odd[3] = {'\x01', '\x7f', '\0'};
			memset(b, 'a', 4096);
			for (i = (size_t)at; i < 4096; i += 8)
				b[i] = odd[k];
			ck_assert_int_eq(sniff_n(b, 4096), PM_FMT_BINARY);
			memset(b, 'a', 4096);
			for (i = (size_t)at; i < 4096; i += 64)
				b[i] = k == 2 ? '\n' : odd[k];
			ck_assert_int_eq(sniff_n(b, 4096), PM_FMT_APP);
		}
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
	/* journalctl --no-hostname: no node, a process's tag kept as after a host */
	PX(PM_FMT_SYSLOG, "2026-03-04T05:06:07+0000 python3[1234]: message", -1, "",
	   "python3[1234]: message");
	PX(PM_FMT_SYSLOG, "Mar 04 05:06:07 python3[1234]: message", -1, "",
	   "python3[1234]: message");
	PX(PM_FMT_SYSLOG, "2026-03-04T05:06:07+0000 kernel: NVRM: Xid 79", -1, "", "NVRM: Xid 79");
	PX(PM_FMT_SYSLOG, "2026-03-04T05:06:07Z python3[1234]: message", -1, "",
	   "2026-03-04T05:06:07Z python3[1234]: message");
	PX(PM_FMT_SYSLOG, "Mar 04 05:06:07 trainer: message", -1, "",
	   "Mar 04 05:06:07 trainer: message");
	PX(PM_FMT_SYSLOG, "2026-11-30T03:11:58.123456+00:00 gpu016.lab kernel: y", -1, "gpu016.lab",
	   "y");
	/* a forwarder's priority; RFC 5424's header, up to the kernel's monotonic stamp */
	PX(PM_FMT_SYSLOG, "<6>Nov 30 03:11:58 gpu016 kernel: x", -1, "gpu016", "x");
	PX(PM_FMT_SYSLOG,
	   "<4>1 2026-11-30T03:11:58.120981+00:00 gpu016 kernel - - - [ 5612.000001] NVRM: x", -1,
	   "gpu016", "NVRM: x");
	PX(PM_FMT_SYSLOG, "<30>1 2026-11-30T03:11:58Z gpu016 slurmd 881 - [m a=\"]\\]\"] y", -1,
	   "gpu016", "y");
	PX(PM_FMT_SYSLOG, "<30>1 - gpu016 app - - -", -1, "gpu016", "");
	PX(PM_FMT_SYSLOG, "<30>1 2026-11-30T03:11:58Z gpu016 app - - [cut", -1, "",
	   "<30>1 2026-11-30T03:11:58Z gpu016 app - - [cut");
	PX(PM_FMT_SYSLOG, "<999>1 2026-11-30T03:11:58Z gpu016 kernel - - - x", -1, "",
	   "<999>1 2026-11-30T03:11:58Z gpu016 kernel - - - x");
	PX(PM_FMT_SYSLOG, "not a syslog line", -1, "", "not a syslog line");
	/* a megabyte of priorities: one is taken off, once */
	{
		size_t n = (size_t)1 << 20;
		char *h = malloc(n);
		struct pm_prefix k;

		ck_assert_ptr_nonnull(h);
		for (size_t i = 0; i < n; i++)
			h[i] = "<1>"[i % 3];
		pm_prefix_parse(PM_FMT_SYSLOG, h, n, &k);
		ck_assert(!k.node && !k.skip);
		ck_assert_int_eq(sniff_n(h, n), PM_FMT_APP);
		free(h);
	}
	/* who wrote a syslog line: its APP-NAME (and facility) or its tag, the kernel's alone marked */
	{
		static const char *const l[] = {
			"<4>1 2026-11-30T03:11:58Z gpu016 kernel - - - x",
			"<13>1 2026-11-30T03:11:58Z gpu016 kernel2 - - - x",
			"<13>1 2026-11-30T03:11:58Z gpu016 alice 77 - - kernel: x",
			"<14>1 2026-11-30T03:11:58Z gpu016 kernel - - - x", /* logger -t kernel */
			"Nov 30 03:11:58 gpu016 kernel: x",
			"Nov 30 03:11:58 gpu016 systemd[1]: kernel: x",
			/* the writer's pid: a journal entry whose identifier a user set */
			"<3>1 2026-11-30T03:11:58Z gpu016 kernel 88307 - - x",
			/* an identifier that began "kernel: ", its "[pid]: " after a blank */
			("Nov 30 03:11:58 gpu016 kernel: NVRM: Xid (PCI:0000:9a:00): 79, pid=1, "
			 "name=a, GPU has fallen off the bus.[88307]: x"),
			"2026-11-30T03:11:58+0000 gpu016 kernel: NVRM: Xid 79 bus.[88307]: x",
			/* the kernel's own: a comm[pid]: at the message's start, a bracket of words */
			"Nov 30 03:11:58 gpu016 kernel: python3[4412]: segfault at 0 ip 1 sp 2 error 4",
			"Nov 30 03:11:58 gpu016 kernel: mce: [Hardware Error]: Machine check events",
			"Nov 30 03:11:58 gpu016 kernel: traps: a[12] general protection fault ip:1",
			/* kern.log's form: the printk stamp before the kernel's own comm[pid]: */
			"Nov 30 03:11:58 gpu016 kernel: [ 3260.123456] python[40259]: segfault at 0",
		};
		struct pm_prefix k;

		for (size_t i = 0; i < sizeof(l) / sizeof(l[0]); i++) {
			pm_prefix_parse(PM_FMT_SYSLOG, l[i], strlen(l[i]), &k);
			ck_assert_msg(k.kernel == (i == 0 || i == 4 || i >= 9), "'%s'", l[i]);
		}
		/* the same in the journal's dmesg-stamped lines (linetrust.c blanks the line) */
		ck_assert(pm_prefix_forged_kernel("NVRM: Xid 79, bus.[88307]: x", 28));
		ck_assert(!pm_prefix_forged_kernel("python3[4412]: segfault at 0", 28));
		ck_assert(pm_prefix_forged_kernel("a blank[1]: x", 13));
		ck_assert(!pm_prefix_forged_kernel("noblank[1]: x", 13));
		ck_assert(!pm_prefix_forged_kernel("a [x]: b [12]:c", 15));
		/* an entry with an empty message: its "[pid]:" ends the line */
		ck_assert(pm_prefix_forged_kernel("a [x]: b [12]:", 14));
		ck_assert(pm_prefix_forged_kernel("a bus.[88307]:", 14));
		ck_assert(!pm_prefix_forged_kernel("bus.[88307]:", 12));
		/* the forged tag and where it begins (linetrust.c masks it in the copy it reads) */
		pm_prefix_parse(PM_FMT_SYSLOG, l[7], strlen(l[7]), &k);
		ck_assert(k.forged && k.tag == 23 && !memcmp(l[7] + k.tag, "kernel: ", 8));
		pm_prefix_parse(PM_FMT_SYSLOG, l[4], strlen(l[4]), &k);
		ck_assert(!k.forged);
	}
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
	/* WRF's per-task files: the digits are the rank, four or more of them */
	ck_assert_int_eq(pm_path_rank("run/rsl.error.0013"), 13);
	ck_assert_int_eq(pm_path_rank("rsl.out.0000"), 0);
	ck_assert_int_eq(pm_path_rank("wx02/rsl.error.01024.gz"), 1024);
	ck_assert_int_eq(pm_path_rank("rsl.error.all"), -1);
	ck_assert_int_eq(pm_path_rank("rsl.error.013"), -1);
	ck_assert_int_eq(pm_path_rank("rsl.error.0013x"), -1);
	ck_assert_int_eq(pm_path_rank("old.rsl.error.0013"), -1);
	ck_assert_int_eq(pm_path_rank("rank2/rsl.error.0013"), 13);
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
	TIME_IS("Nov 30 03:11:58.250117 gpu016 kernel: NVRM: x", 2026, 0, T0311 + 0.250117);
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
	/* dmesg -x: the facility and level before the stamp */
	TIME_IS("kern  :warn  : [Mon Nov 30 03:11:58 2026] NVRM: Xid", 0, 0, T0311);
	TIME_IS("kern  :err   : [  123.456789] NVRM: Xid", 0, 1796000000.0, 1796000123.456789);
	TIME_IS("<4>kern  :warn  : [Mon Nov 30 03:11:58 2026] NVRM: Xid", 0, 0, T0311);
	/* journalctl -o short-full (UTC's name is a zone; another is local time, read as the
	 * zone-less stamps are) and -o short-unix */
	TIME_IS("Mon 2026-11-30 03:11:58 UTC gpu016 kernel: NVRM: x", 0, 0, T0311);
	TIME_IS("Mon 2026-11-30 03:11:58 CET gpu016 kernel: NVRM: x", 0, 0, T0311);
	TIME_IS("1796008318.250117 gpu016 kernel: NVRM: x", 0, 0, 1796008318.250117);
	TIME_IS("2024-02-29T00:00:00Z", 0, 0, 1709164800.0);
	TIME_IS("1970-01-01T00:00:00Z", 0, 0, 0.0);
	TIME_IS("2026-12-31T23:59:60Z", 0, 0, 1798761600.0);
}
END_TEST

START_TEST(time_refused)
{
	NO_TIME("Nov 30 03:11:58 gpu016 kernel: x", 0, 0); /* no year known */
	NO_TIME("[  123.456789] NVRM: Xid", 2026, 0);	   /* boot time unknown */
	NO_TIME("kern  :warn  : [  1.5] x", 2026, 1796000000.0);
	NO_TIME("kern  :warn  [Mon Nov 30 03:11:58 2026] x", 0, 0);
	NO_TIME("[  123.456] x", 2026, 1796000000.0); /* not a dmesg stamp */
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
	NO_TIME("Nov 30 03:11:58.1234567890 x", 2026, 0); /* more than nanoseconds */
	NO_TIME("Nov 30 03:11:58.5x gpu016 kernel: x", 2026, 0);
	NO_TIME("Mon 2026-11-30T03:11:58 UTC x", 0, 0);	  /* journalctl writes no 'T' */
	NO_TIME("Mon 2026-11-30 03:11:58 utc x", 0, 0);	  /* nor a lower-case zone */
	NO_TIME("Mon 2026-11-30 03:11:58 UTC+1 x", 0, 0); /* nor a zone run on */
	NO_TIME("1796008318.25 x", 0, 0);		  /* short-unix has microseconds */
	NO_TIME("12345678.250117 x", 0, 0);		  /* and ten digits */
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

void input_names_tests(TCase *tc)
{
	tcase_add_test(tc, names_tables);
	tcase_add_test(tc, names_format_source);
}

void input_sniff_tests(TCase *tc)
{
	tcase_add_test(tc, sniff_structured);
	tcase_add_test(tc, sniff_app_tools);
	tcase_add_test(tc, sniff_logs);
	tcase_add_test(tc, sniff_majority);
	tcase_add_test(tc, sniff_hostile);
}

void input_prefix_tests(TCase *tc)
{
	tcase_add_test(tc, prefix_app);
	tcase_add_test(tc, prefix_logs);
	tcase_add_test(tc, prefix_hostile);
	tcase_add_test(tc, path_rank);
}

void input_time_tests(TCase *tc)
{
	tcase_add_test(tc, time_forms);
	tcase_add_test(tc, time_refused);
	tcase_add_test(tc, time_hostile);
	tcase_add_test(tc, time_format);
}

/* pm_sort sorts what is out of order, and leaves an array in order as a stable sort would
 * (equal keys in their order); pm_strset keeps a string that is set to the same text. */
struct keyed {
	int key, tag;
};

static int cmp_key(const void *x, const void *y)
{
	return pm_cmp_int(&((const struct keyed *)x)->key, &((const struct keyed *)y)->key);
}

static int cmp_key_r(const void *x, const void *y, void *arg)
{
	ck_assert_ptr_eq(arg, (void *)cmp_key);
	return cmp_key(x, y);
}

START_TEST(sort_in_order_kept)
{
	struct keyed mixed[] = {{3, 0}, {1, 1}, {2, 2}, {1, 3}},
		     ordered[] = {{1, 0}, {1, 1}, {2, 2}, {2, 3}, {5, 4}};
	int r[] = {9, 4, 4, 1, 7}, want[] = {1, 4, 4, 7, 9};
	size_t n = 5;
	char *s = NULL, *was;

	pm_sort(mixed, 4, sizeof(*mixed), cmp_key);
	ck_assert_int_eq(mixed[0].key, 1);
	ck_assert_int_eq(mixed[0].tag, 1); /* stable: the first 1 stays first */
	ck_assert_int_eq(mixed[1].tag, 3);
	ck_assert_int_eq(mixed[2].key, 2);
	ck_assert_int_eq(mixed[3].key, 3);
	pm_sort_r(ordered, 5, sizeof(*ordered), cmp_key_r, (void *)cmp_key);
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(ordered[i].tag, i);
	pm_sort(r, 5, sizeof(*r), pm_cmp_int);
	ck_assert_mem_eq(r, want, sizeof(want));
	pm_sort(r, 0, sizeof(*r), pm_cmp_int); /* nothing to look at */
	pm_rankset_done(r, &n);
	ck_assert_uint_eq(n, 4);
	ck_assert_int_eq(r[1], 4);
	ck_assert_int_eq(r[2], 7);

	ck_assert_int_eq(pm_strset(&s, "gpu0001x", 7), 0);
	ck_assert_str_eq(s, "gpu0001");
	was = s;
	ck_assert_int_eq(pm_strset(&s, "gpu0001", 7), 0);
	ck_assert_ptr_eq(s, was); /* the same text: kept */
	ck_assert_int_eq(pm_strset(&s, "gpu000", 6), 0);
	ck_assert_str_eq(s, "gpu000");
	ck_assert_int_eq(pm_strset(&s, "gpu000\0z", 8), 0); /* a NUL inside: a new copy */
	ck_assert_str_eq(s, "gpu000");
	free(s);
}
END_TEST

void input_hostlist_tests(TCase *tc)
{
	tcase_add_test(tc, hostlist_forms);
	tcase_add_test(tc, hostlist_refused);
	tcase_add_test(tc, sort_in_order_kept);
}
