/*
 * check_engine_attribution.c - the engine suite's partial, untrusted and stale evidence
 * (ATTRIBUTION.md phases 4, 10), the comment line and the fixture comparison itself.
 */

#include <archive.h>
#include <archive_entry.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>
#include <xxhash.h>
#include <zlib.h>

#include "postmortem.h"
#include "attribute.h"
#include "fixture.h"
#include "taxonomy.h"
#include "support.h"
#include "check_engine.h"

/* ---- partial, untrusted and stale evidence (ATTRIBUTION.md phases 4, 10) ---- */

static const char *MORE_RULES =
	"  - id: xid-48\n"
	"    class: gpu_hardware\n"
	"    subclass: ecc\n"
	"    role: origin\n"
	"    strength: strong\n"
	"    sources: [kernel_log]\n"
	"    pattern: 'NVRM: Xid \\((?:PCI:)?(?<pci>[0-9a-f:]+)\\): (?<xid>48),(?: pid=(?<pid>[0-9]+),)?'\n"
	"    summary: 'double-bit ECC error on GPU {pci}'\n"
	"  - id: cuda-unknown\n"
	"    class: gpu_hardware\n"
	"    subclass: gpu_lost\n"
	"    role: confirmation\n"
	"    strength: weak\n"
	"    sources: [app_log]\n"
	"    pattern: 'CUDA error: unknown error'\n"
	"    summary: 'CUDA unknown error on rank {rank}'\n"
	"  - id: ib-retry\n"
	"    class: network_fabric\n"
	"    subclass: ib_link\n"
	"    role: cascade\n"
	"    strength: medium\n"
	"    sources: [app_log]\n"
	"    pattern: 'transport retry counter exceeded'\n"
	"    summary: 'IB transport retries exhausted'\n"
	"  - id: srun-exit\n"
	"    class: communication_unattributed\n"
	"    subclass: remote_error\n"
	"    role: teardown\n"
	"    strength: weak\n"
	"    sources: [app_log]\n"
	"    pattern: 'srun: error: (?<node>[^: ]+): tasks? [0-9,-]+: Exited'\n"
	"    summary: 'srun saw tasks on {node} exit'\n";

static const char *CLASSES =
	"classes:\n"
	"  gpu_hardware:\n"
	"    owner: operators\n"
	"    containment: {id: retry-exclude-node, action: \"retry excluding {node}\", owner: user}\n"
	"    repair: {action: \"drain {node}\", owner: operators, requires: \"two sources\"}\n"
	"    overturn: \"{node} passes diagnostics\"\n"
	"    next_test: \"dcgmi diag -r 3 on {node}\"\n"
	"  application:\n"
	"    owner: user\n"
	"    containment: {id: fix-job, action: \"fix the job\", owner: user}\n"
	"    overturn: \"the same inputs succeed\"\n"
	"    next_test: \"rerun the step alone\"\n";

/* The rule set of these tests, with job_window_grace_s GRACE (< 0: the default). */
static struct pm_ruleset *load_more(double grace)
{
	char err[512], p[400], *rules, head[200];
	struct pm_ruleset *rs;

	if (grace >= 0)
		snprintf(head, sizeof(head), "%stuning:\n  job_window_grace_s: %.0f\n", HEADER,
			 grace);
	else
		snprintf(head, sizeof(head), "%s", HEADER);
	ck_assert_int_ge(asprintf(&rules, "%s%s", head, CLASSES), 0);
	pmt_mk(tmp, "rules/ruleset.yaml", rules);
	free(rules);
	ck_assert_int_ge(asprintf(&rules, "%s%s", RULES, MORE_RULES), 0);
	pmt_mk(tmp, "rules/a.yaml", rules);
	free(rules);
	snprintf(p, sizeof(p), "%s/rules", tmp);
	rs = pm_ruleset_load(p, err, sizeof(err));
	ck_assert_msg(rs != NULL, "%s", err);
	return rs;
}

/* Job 77 ran 03:11:00-03:12:00 on n1 and n2, 4 tasks; OUT is its output; each node's kernel
 * log holds ordinary noise, and n2's KLOG2 too. */
static void stale_job(const char *dir, const char *out, const char *klog2)
{
	char rel[300];

	job77(dir, "1:0", "FAILED|1:0", out);
	snprintf(rel, sizeof(rel), "%s/n1/kernel.log", dir);
	pmt_mk(tmp, rel, KLOG_N1);
	snprintf(rel, sizeof(rel), "%s/n2/kernel.log", dir);
	pmt_mk(tmp, rel, klog2);
}

static const char *OLD_XID_N2 =
	"2026-11-30T03:09:00,000000+00:00 NVRM: Xid (PCI:0000:3b:00): 79, pid=9, x\n";

static const char *vdec(const json_t *v, const char *part)
{
	return json_string_value(
		json_object_get(json_object_get(json_object_get(v, "decision"), part), "id"));
}

static bool origin_is(const json_t *v, const char *node)
{
	const json_t *n = json_object_get(json_object_get(v, "origin"), "nodes");

	if (!node)
		return json_array_size(n) == 0;
	return json_array_size(n) == 1 && !strcmp(json_string_value(json_array_get(n, 0)), node);
}

static bool origin_has_rank(const json_t *v, int r)
{
	size_t i;
	json_t *x;

	json_array_foreach(json_object_get(json_object_get(v, "origin"), "ranks"), i,
			   x) if (json_integer_value(x) == r) return true;
	return false;
}

/* An earlier job's Xid on n2, this job's explicit failure on n1: n1 is the origin and the
 * Xid context with its age, whatever job_window_grace_s says; alone, the Xid leads at
 * hypothesis at most, with no node excluded by the engine and no repair. */
START_TEST(test_stale_event_never_origin_by_itself)
{
	static const double grace[] = {0, 300, 86400};

	for (size_t g = 0; g < sizeof(grace) / sizeof(grace[0]); g++) {
		struct pm_ruleset *rs = load_more(grace[g]);
		json_t *v;

		stale_job("st",
			  "0: ValueError: bad shape\n"
			  "srun: error: n1: task 0: Exited with exit code 1\n",
			  OLD_XID_N2);
		v = diagnose_dir(rs, "st");
		ck_assert_str_eq(vstr(v, NULL, "status"), "attributed");
		ck_assert_str_eq(vstr(v, "cause", "class"), "application");
		ck_assert_msg(origin_is(v, "n1"), "grace %.0f: %s", grace[g],
			      json_dumps(json_object_get(v, "origin"), 0));
		ck_assert_str_ne(vdec(v, "containment"), "retry-exclude-node");
		if (grace[g] >= 120)
			ck_assert_msg(why_has(v, "n2 logged Xid 79", "120 s before this job began"),
				      "%s", json_dumps(json_object_get(v, "why"), 0));
		json_decref(v);

		/* nothing else: the old event at most a hypothesis, retry, no repair */
		stale_job("st1", "0: hello\n", OLD_XID_N2);
		v = diagnose_dir(rs, "st1");
		if (grace[g] < 120) {
			ck_assert_str_eq(vstr(v, NULL, "status"), "unknown");
			ck_assert(why_has(v, "none within this job's time", NULL));
		} else {
			ck_assert_str_eq(vstr(v, "cause", "class"), "gpu_hardware");
			ck_assert_str_eq(vstr(v, NULL, "confidence"), "hypothesis");
			ck_assert_str_eq(vdec(v, "containment"), "retry");
			ck_assert(json_is_null(
				json_object_get(json_object_get(v, "decision"), "repair")));
		}
		json_decref(v);
		pm_ruleset_destroy(rs);
	}
}
END_TEST

/* The same old Xid, and this job's ranks on n2 failing with a CUDA error there: n2 leads
 * (not established: the event predates the job), the age said; an explicit failure of
 * this job on n1 still comes first. */
START_TEST(test_stale_event_explained)
{
	struct pm_ruleset *rs = load_more(-1);
	json_t *v;

	stale_job("ex",
		  "2: CUDA error: unknown error\n"
		  "srun: error: n2: tasks 2-3: Exited with exit code 1\n",
		  OLD_XID_N2);
	v = diagnose_dir(rs, "ex");
	ck_assert_str_eq(vstr(v, NULL, "status"), "attributed");
	ck_assert_str_eq(vstr(v, "cause", "class"), "gpu_hardware");
	ck_assert(origin_is(v, "n2"));
	ck_assert(origin_has_rank(v, 2));
	ck_assert_str_eq(vstr(v, NULL, "confidence"), "supported");
	ck_assert(why_has(v, "120 s before this job began", "failed in a way it explains"));
	json_decref(v);

	stale_job("ex1",
		  "0: ValueError: bad shape\n"
		  "srun: error: n1: task 0: Exited with exit code 1\n"
		  "2: CUDA error: unknown error\n"
		  "srun: error: n2: tasks 2-3: Exited with exit code 1\n",
		  OLD_XID_N2);
	v = diagnose_dir(rs, "ex1");
	ck_assert_str_eq(vstr(v, "cause", "class"), "application");
	ck_assert(origin_is(v, "n1"));
	json_decref(v);
	pm_ruleset_destroy(rs);
}
END_TEST

/* A later Xid of this job keeps its own subclass beside an older line on the same GPU. */
START_TEST(test_later_event_keeps_subclass)
{
	struct pm_ruleset *rs = load_more(-1);
	json_t *v;

	stale_job("ls", "0: hello\n",
		  "2026-11-30T03:09:00,000000+00:00 NVRM: Xid (PCI:0000:3b:00): 48, pid=9, x\n"
		  "2026-11-30T03:11:30,000000+00:00 NVRM: Xid (PCI:0000:3b:00): 79, pid=9, x\n");
	v = diagnose_dir(rs, "ls");
	ck_assert_str_eq(vstr(v, "cause", "class"), "gpu_hardware");
	ck_assert_str_eq(vstr(v, "cause", "subclass"), "gpu_lost");
	ck_assert(origin_is(v, "n2"));
	json_decref(v);
	pm_ruleset_destroy(rs);
}
END_TEST

/* Job 77 with an Xid 79 in each node's kernel log, at T1 on n1 and T2 on n2. */
static void two_xids(const char *dir, const char *t1, const char *t2)
{
	char rel[300], line[200];

	job77(dir, "1:0", "FAILED|1:0", "0: step 1\n");
	snprintf(rel, sizeof(rel), "%s/n1/kernel.log", dir);
	snprintf(line, sizeof(line),
		 "2026-11-30T%s+00:00 NVRM: Xid (PCI:0000:3b:00): 79, pid=9, x\n", t1);
	pmt_mk(tmp, rel, line);
	snprintf(rel, sizeof(rel), "%s/n2/kernel.log", dir);
	snprintf(line, sizeof(line),
		 "2026-11-30T%s+00:00 NVRM: Xid (PCI:0000:86:00): 79, pid=9, x\n", t2);
	pmt_mk(tmp, rel, line);
}

/* Two GPUs lost 0.4 s apart on two nodes: only their names would order them, and each node
 * had its own event: both are the origin, ambiguous.  Minutes apart: the first is the
 * origin, and the second node is no bystander (its hardware failed on its own): why names
 * it. */
START_TEST(test_same_class_hardware_on_two_nodes)
{
	struct pm_ruleset *rs = load_more(-1);
	const json_t *on;
	json_t *v;

	two_xids("co", "03:11:30,000000", "03:11:30,400000");
	v = diagnose_dir(rs, "co");
	ck_assert_str_eq(json_string_value(json_object_get(v, "status")), "ambiguous");
	ck_assert_str_eq(vstr(v, "cause", "class"), "gpu_hardware");
	on = json_object_get(json_object_get(v, "origin"), "nodes");
	ck_assert_int_eq(json_array_size(on), 2);
	ck_assert_str_eq(json_string_value(json_array_get(on, 0)), "n1");
	ck_assert_str_eq(json_string_value(json_array_get(on, 1)), "n2");
	ck_assert_str_eq(vdec(v, "containment"), "retry-exclude-node");
	ck_assert(why_has(v, "on 2 nodes within", "(n[1-2])"));
	json_decref(v);

	two_xids("apart", "03:11:10,000000", "03:11:50,000000");
	v = diagnose_dir(rs, "apart");
	ck_assert_str_eq(json_string_value(json_object_get(v, "status")), "attributed");
	ck_assert(origin_is(v, "n1"));
	ck_assert_msg(!strstr(json_string_value(
				      json_object_get(json_object_get(v, "bystanders"), "nodes")),
			      "n2"),
		      "%s", json_dumps(json_object_get(v, "bystanders"), 0));
	ck_assert(why_has(v, "n2 had a hardware failure of its own", NULL));
	json_decref(v);

	/* five nodes in one second: every one of them is the origin, none left out */
	for (int i = 1; i <= 5; i++) {
		char rel[64], line[160];
		snprintf(rel, sizeof(rel), "five/gpu%03d/kernel.log", i);
		snprintf(line, sizeof(line),
			 "[Mon Nov 30 03:11:58 2026] NVRM: Xid (PCI:0000:%02d:00): 79, pid=1, x\n",
			 i);
		pmt_mk(tmp, rel, line);
	}
	v = diagnose_dir(rs, "five");
	ck_assert_str_eq(json_string_value(json_object_get(v, "status")), "ambiguous");
	on = json_object_get(json_object_get(v, "origin"), "nodes");
	ck_assert_int_eq(json_array_size(on), 5);
	ck_assert_str_eq(json_string_value(json_array_get(on, 4)), "gpu005");
	ck_assert(why_has(v, "on 5 nodes within", "(gpu[001-005])"));
	json_decref(v);
	pm_ruleset_destroy(rs);
}
END_TEST

/* A hand folder with only the job's output: its hardware symptom leads at hypothesis, on
 * the rank (placed by srun's own task line), retry with no repair; a user-printed Xid
 * alone likewise.  Neither is unknown. */
START_TEST(test_untrusted_hardware_lead)
{
	struct pm_ruleset *rs = load_more(-1);
	json_t *v;
	char *c;

	pmt_mk(tmp, "u1/job.out",
	       "2: CUDA error: unknown error\n"
	       "srun: error: gpu02: tasks 2-3: Exited with exit code 1\n"
	       "srun: error: gpu01: task 0: Exited with exit code 1\n");
	v = diagnose_dir(rs, "u1");
	ck_assert_str_eq(vstr(v, NULL, "outcome"), "FAILED");
	ck_assert_str_eq(vstr(v, NULL, "status"), "attributed");
	ck_assert_str_eq(vstr(v, "cause", "class"), "gpu_hardware");
	ck_assert_str_eq(vstr(v, NULL, "confidence"), "hypothesis");
	ck_assert(origin_is(v, "gpu02"));
	ck_assert(origin_has_rank(v, 2));
	ck_assert_str_eq(vdec(v, "containment"), "retry");
	ck_assert(json_is_null(json_object_get(json_object_get(v, "decision"), "repair")));
	ck_assert(why_has(v, "nothing better fits", NULL));
	c = pm_verdict_comment(v);
	ck_assert_msg(strstr(c, "act=retry ") != NULL, "%s", c);
	free(c);
	json_decref(v);

	pmt_mk(tmp, "u2/slurm-9.out",
	       "0: step 1\n"
	       "1: NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.\n");
	v = diagnose_dir(rs, "u2");
	ck_assert_str_eq(vstr(v, NULL, "status"), "attributed");
	ck_assert_str_eq(vstr(v, NULL, "confidence"), "hypothesis");
	ck_assert_str_eq(vdec(v, "containment"), "retry");
	ck_assert(json_is_null(json_object_get(json_object_get(v, "decision"), "repair")));
	json_decref(v);
	pm_ruleset_destroy(rs);
}
END_TEST

/* One node alone reports IB transport failures: its own link, at hypothesis. */
START_TEST(test_single_reporter)
{
	struct pm_ruleset *rs = load_more(-1);
	json_t *v;

	pmt_mk(tmp, "sr/job.out",
	       "0: n3:100:101 [0] NCCL WARN NET/IB : Got completion with error 12 "
	       "(transport retry counter exceeded)\n"
	       "0: n3:100:101 [0] NCCL WARN NET/IB : Got completion with error 12 "
	       "(transport retry counter exceeded)\n");
	v = diagnose_dir(rs, "sr");
	ck_assert_str_eq(vstr(v, NULL, "status"), "attributed");
	ck_assert_str_eq(vstr(v, "cause", "class"), "network_fabric");
	ck_assert_str_eq(vstr(v, NULL, "confidence"), "hypothesis");
	ck_assert_msg(origin_is(v, "n3"), "%s", json_dumps(json_object_get(v, "origin"), 0));
	json_decref(v);
	pm_ruleset_destroy(rs);
}
END_TEST

/* A rank that printed its own error and fell silent: its error leads, no hang. */
START_TEST(test_error_explains_silence)
{
	struct pm_ruleset *rs = load_more(-1);
	json_t *v;

	stale_job(
		"si",
		"0: [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE\n"
		"1: [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE\n"
		"2: [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE\n"
		"3: CUDA error: unknown error\n",
		KLOG_N1);
	v = diagnose_dir(rs, "si");
	ck_assert_str_ne(vstr(v, "cause", "subclass"), "hang");
	ck_assert_str_eq(vstr(v, "cause", "class"), "gpu_hardware");
	ck_assert(origin_has_rank(v, 3));
	json_decref(v);
	pm_ruleset_destroy(rs);
}
END_TEST

/* A provisional verdict (n2's bundle still out): the rank map covers n1 and names ranks 0
 * and 1 there, so rank 3's error, read from the output on n1, is not placed on n1.  A GPU
 * named by bus id is mapped to the rank that used it (nvidia-smi's table, the rank map). */
START_TEST(test_rank_placement)
{
	struct pm_ruleset *rs = load_more(-1);
	json_t *v;

	pmt_mk(tmp, "rm/n1/rank_map.jsonl",
	       "{\"schema\":\"postmortem.rankmap/1\",\"job\":\"77\",\"step\":\"0\",\"node\":\"n1\","
	       "\"rank\":0,\"local_rank\":0,\"pid\":100,\"gpus\":\"0\"}\n"
	       "{\"schema\":\"postmortem.rankmap/1\",\"job\":\"77\",\"step\":\"0\",\"node\":\"n1\","
	       "\"rank\":1,\"local_rank\":1,\"pid\":101,\"gpus\":\"1\"}\n");
	pmt_mk(tmp, "rm/n1/slurm-77.out", "0: hello\n1: hello\n3: ValueError: bad shape\n");
	v = diagnose_dir(rs, "rm");
	ck_assert_str_eq(vstr(v, "cause", "class"), "application");
	ck_assert_msg(origin_is(v, NULL), "%s", json_dumps(json_object_get(v, "origin"), 0));
	ck_assert(origin_has_rank(v, 3));
	json_decref(v);

	stale_job("bus", "0: hello\n",
		  "2026-11-30T03:11:30,000000+00:00 NVRM: Xid (PCI:0000:5d:00): 79, pid=9, x\n");
	pmt_mk(tmp, "bus/n2/rank_map.jsonl",
	       "{\"schema\":\"postmortem.rankmap/1\",\"job\":\"77\",\"step\":\"0\",\"node\":\"n2\","
	       "\"rank\":2,\"local_rank\":0,\"pid\":200,\"gpus\":\"0\"}\n"
	       "{\"schema\":\"postmortem.rankmap/1\",\"job\":\"77\",\"step\":\"0\",\"node\":\"n2\","
	       "\"rank\":3,\"local_rank\":1,\"pid\":201,\"gpus\":\"1\"}\n");
	pmt_mk(tmp, "bus/n2/nvidia-smi.csv",
	       "index, pci.bus_id, temperature.gpu\n"
	       "0, 00000000:3B:00.0, 40\n"
	       "1, 00000000:5D:00.0, 41\n");
	v = diagnose_dir(rs, "bus");
	ck_assert_str_eq(vstr(v, "cause", "class"), "gpu_hardware");
	ck_assert(origin_is(v, "n2"));
	ck_assert_msg(origin_has_rank(v, 3) && !origin_has_rank(v, 2), "%s",
		      json_dumps(json_object_get(v, "origin"), 0));
	json_decref(v);
	pm_ruleset_destroy(rs);
}
END_TEST

/* BODY and then a cause that names no rank ("ValueError: bad shape"), the one file of folder
 * NAME<I>: its verdict. */
static json_t *diagnose_with_cause(struct pm_ruleset *rs, const char *name, size_t i,
				   const char *body)
{
	char text[512], rel[64];

	snprintf(text, sizeof(text), "%sValueError: bad shape\n", body);
	snprintf(rel, sizeof(rel), "%s%zu/job.out", name, i);
	pmt_mk(tmp, rel, text);
	snprintf(rel, sizeof(rel), "%s%zu", name, i);
	return diagnose_dir(rs, rel);
}

/* torchrun's failure summary names the rank that failed ("rank : R (local_rank: L)"), at the
 * line's head or after a logger's prefix; a progress line that starts "rank : R" after a
 * prefix names no rank, as the table's shape (the local rank) does not follow. */
START_TEST(test_torchrun_rank_after_prefix)
{
	static const struct {
		const char *line;
		int rank; /* -1: none placed */
	} t[] = {
		{"  rank      : 13 (local_rank: 5)\n", 13},
		{"2026-11-30 03:11:58,000 - ERROR -   rank      : 13 (local_rank: 5)\n", 13},
		{"[E 03:11:58 agent] rank: 13 (local_rank: 5)\n", 13},
		{"2026-11-30 03:11:58,000 - INFO - rank : 13 step 400 loss 2.1\n", -1},
		{"the failing rank: 13 (local_rank: 5)\n", -1},
	};
	struct pm_ruleset *rs = load_more(-1);

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		json_t *v = diagnose_with_cause(rs, "trank", i, t[i].line);

		ck_assert_msg(t[i].rank < 0 ? !origin_has_rank(v, 13) :
					      origin_has_rank(v, t[i].rank),
			      "'%s': %s", t[i].line, json_dumps(json_object_get(v, "origin"), 0));
		json_decref(v);
	}
	pm_ruleset_destroy(rs);
}
END_TEST

/* Where the folder names several hosts, the host a failure report names for its one rank
 * is the cause's: torchrun's table (its host the line before its rank) and mpirun's "rank N
 * with PID P on node HOST exited".  A host that is not the rank's own field, or two reports
 * naming the rank on two hosts, place no node. */
START_TEST(test_report_names_rank_host)
{
	static const struct {
		const char *body;
		const char *node; /* NULL: none placed */
	} t[] = {
		{"srun: error: gpq1: task 0: Exited with exit code 1\n"
		 "  host      : gpq2\n  rank      : 13 (local_rank: 5)\n",
		 "gpq2"},
		{"srun: error: gpq1: task 0: Exited with exit code 1\n"
		 "INFO - host : gpq2\nINFO - rank : 13 (local_rank: 5)\n",
		 "gpq2"},
		{"srun: error: gpq1: task 0: Exited with exit code 1\n"
		 "process rank 13 with PID 77 on node gpq2 exited on signal 9\n",
		 "gpq2"},
		{"srun: error: gpq1: task 0: Exited with exit code 1\n"
		 "  host      : gpq2\n  exitcode  : 1\n  rank      : 13 (local_rank: 5)\n",
		 NULL},
		{"  host      : gpq1\n  rank      : 13 (local_rank: 5)\n"
		 "process rank 13 with PID 77 on node gpq2 exited on signal 9\n",
		 NULL},
	};
	struct pm_ruleset *rs = load_more(-1);

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		json_t *v = diagnose_with_cause(rs, "rhost", i, t[i].body);

		ck_assert_msg(origin_has_rank(v, 13) && origin_is(v, t[i].node), "case %zu: %s", i,
			      json_dumps(json_object_get(v, "origin"), 0));
		json_decref(v);
	}
	pm_ruleset_destroy(rs);
}
END_TEST

/* A host only a line's prefix names (pdsh's "host: ", the job's own text) does not outrank
 * srun: where srun reports one task that failed of itself on another host and the prefix's
 * host's tasks as ended by Slurm ("Terminated", "Killed"), the line is not placed on the
 * prefix's host, nor on any other (review36 M1: not srun's failed task's host, which the line
 * never named), and `why` says so.  A prefix that
 * agrees with srun, or names a host srun says nothing of (a script's pdsh over other
 * nodes), or srun's failures on two hosts, keep the prefix's host. */
START_TEST(test_prefix_host_gainsaid_by_srun)
{
	static const struct {
		const char *body;
		const char *node;
		bool said;
	} t[] = {
		{"gpq1: ValueError: bad shape\n"
		 "srun: error: gpq2: task 5: Exited with exit code 1\n"
		 "srun: error: gpq1: tasks 0-3: Terminated\n",
		 NULL, true},
		{"gpq1: ValueError: bad shape\n"
		 "srun: error: gpq1: task 0: Killed\n"
		 "srun: error: gpq2: task 5: Exited with exit code 1\n",
		 NULL, true},
		{"gpq2: ValueError: bad shape\n"
		 "srun: error: gpq2: task 5: Exited with exit code 1\n"
		 "srun: error: gpq1: tasks 0-3: Terminated\n",
		 "gpq2", false},
		{"gpq1: ValueError: bad shape\n"
		 "srun: error: gpq2: task 5: Exited with exit code 1\n",
		 "gpq1", false},
		{"gpq1: ValueError: bad shape\n"
		 "srun: error: gpq2: task 5: Exited with exit code 1\n"
		 "srun: error: gpq1: task 0: Exited with exit code 1\n"
		 "srun: error: gpq1: tasks 1-3: Terminated\n",
		 "gpq1", false},
	};
	struct pm_ruleset *rs = load_more(-1);
	char rel[64];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		json_t *v, *w;
		size_t k;
		bool said = false;

		snprintf(rel, sizeof(rel), "pgain%zu/job.out", i);
		pmt_mk(tmp, rel, t[i].body);
		snprintf(rel, sizeof(rel), "pgain%zu", i);
		v = diagnose_dir(rs, rel);
		json_array_foreach(json_object_get(v, "why"), k,
				   w) if (strstr(json_string_value(w) ?: "", "in its host prefix"))
			said = true;
		ck_assert_msg(origin_is(v, t[i].node) && said == t[i].said, "case %zu: %s", i,
			      json_dumps(v, 0));
		json_decref(v);
	}
	pm_ruleset_destroy(rs);
}
END_TEST

/* A hand-gathered folder's host, named at any column by each form placement reads (uname -a, a
 * prompt, srun, Slurm's variables, Open MPI, mpirun, Slurm's step line): the key strings are
 * found sixteen bytes at a time (att_place.c), so each is tried at every place of that block
 * and across the line's end. */
START_TEST(test_host_named_at_any_column)
{
	static const char *const forms[] = {
		"Linux gpuq7 6.1.0-18-amd64 #1 SMP PREEMPT_DYNAMIC Debian x86_64\n",
		"alice@gpuq7:~/run$ python train.py\n",
		"srun: error: gpuq7: task 3: Exited with exit code 1\n",
		"SLURM_JOB_NODELIST=gpuq7\n",
		"Host: gpuq7\n",
		"process rank 3 with PID 77 on node gpuq7 exited on signal 9\n",
		"*** STEP 77.0 ON gpuq7 CANCELLED AT 2026-11-30T03:11:30 ***\n",
	};
	struct pm_ruleset *rs = load_more(-1);
	char pad[48], body[256], rel[64];

	for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++)
		for (int n = 0; n < 40; n++) {
			json_t *v;

			/* upper case: a lower-case word before "Host:" is a sentence's */
			memset(pad, 'X', (size_t)n);
			strcpy(pad + n, n ? " " : "");
			snprintf(body, sizeof(body), "%s%s", pad, forms[f]);
			strcat(body, "3: ValueError: bad shape\n");
			snprintf(rel, sizeof(rel), "col%zu-%d/job.out", f, n);
			pmt_mk(tmp, rel, body);
			snprintf(rel, sizeof(rel), "col%zu-%d", f, n);
			v = diagnose_dir(rs, rel);
			ck_assert_msg(origin_is(v, "gpuq7"), "form %zu at column %d: %s", f, n,
				      json_dumps(json_object_get(v, "origin"), 0));
			json_decref(v);
		}
	pm_ruleset_destroy(rs);
}
END_TEST

/* Placement's key strings found sixteen bytes at a time give the same bits as a byte-by-byte
 * search, on lines built from the key strings, their first bytes, near misses and noise, at
 * every length and offset. */
START_TEST(test_line_keys_vector_same)
{
	static const char *const frag[] = {
		"Linux ",
		"Li",
		"*** ",
		"**",
		"srun: error: ",
		"sr",
		"Host",
		"host",
		"Ho",
		"SLURM",
		"SL",
		"node",
		"Node",
		"no",
		" on node ",
		" o",
		"rank",
		"ra",
		"Process name: [[",
		"Pr",
		"@",
		"MPI_Abort(",
		"MP",
		"M",
		"RUNNING AT ",
		"RUNNING",
		"RU",
		"R",
		"U",
		"E",
		"x",
		" ",
		"L",
		"s",
		"r",
		"P",
		"n",
		"h",
		"\t",
		"\xe2\x94\x82",
		"0",
		":",
	};
	const size_t nf = sizeof(frag) / sizeof(frag[0]);
	char line[300 + PM_ATT_KEY_PAD];
	unsigned seed = 12345, any = 0;

	for (int round = 0; round < 20000; round++) {
		size_t n = 0, want = (size_t)(round % 290);

		while (n < want) {
			seed = seed * 1103515245u + 12345u;
			const char *f = frag[(seed >> 16) % nf];
			size_t l = strlen(f);
			if (n + l > want)
				l = want - n;
			memcpy(line + n, f, l);
			n += l;
		}
		memset(line + n, 0, PM_ATT_KEY_PAD + 1);
		unsigned a = pm_att_line_keys(line, line + n, true);
		unsigned b = pm_att_line_keys(line, line + n, false);
		ck_assert_msg(a == b, "round %d: vector %#x, bytes %#x for '%.*s'", round, a, b,
			      (int)n, line);
		any |= b;
	}
	ck_assert_uint_eq(any, 0x7ff); /* every key string was met */
}
END_TEST

/* Both nodes' collectors began 33 s after the end, and both nodes' tasks exited 32 s after
 * it by the same clocks (processes that outlived SIGTERM): the job's teardown, not two
 * skewed clocks.  A node whose tasks, and collector, came 8 s later than the other's is
 * flagged. */
START_TEST(test_skew_bounded_by_task_exits)
{
	char err[256];
	struct pm_ruleset *rs = load(NULL, err, sizeof(err));
	json_t *v;

	for (int late = 0; late < 2; late++) {
		const char *dir = late ? "te1" : "te0";
		char rel[300];
		skew_job(dir);
		skew_bundle(dir, "n1", KLOG_N1, "2026-11-30T03:12:33.000Z");
		skew_bundle(dir, "n2", KLOG_N1,
			    late ? "2026-11-30T03:12:41.000Z" : "2026-11-30T03:12:33.500Z");
		snprintf(rel, sizeof(rel), "%s/exits.jsonl", dir);
		pmt_mk(tmp, rel,
		       late ? "{\"schema\":\"postmortem.taskexit/1\",\"job\":\"77\",\"step\":\"0\","
			      "\"node\":\"n1\",\"rank\":0,\"pid\":1,\"status\":9,\"end\":"
			      "\"2026-11-30T03:12:32Z\"}\n"
			      "{\"schema\":\"postmortem.taskexit/1\",\"job\":\"77\",\"step\":\"0\","
			      "\"node\":\"n2\",\"rank\":2,\"pid\":2,\"status\":9,\"end\":"
			      "\"2026-11-30T03:12:40Z\"}\n" :
			      "{\"schema\":\"postmortem.taskexit/1\",\"job\":\"77\",\"step\":\"0\","
			      "\"node\":\"n1\",\"rank\":0,\"pid\":1,\"status\":9,\"end\":"
			      "\"2026-11-30T03:12:32Z\"}\n"
			      "{\"schema\":\"postmortem.taskexit/1\",\"job\":\"77\",\"step\":\"0\","
			      "\"node\":\"n2\",\"rank\":2,\"pid\":2,\"status\":9,\"end\":"
			      "\"2026-11-30T03:12:32.5Z\"}\n");
		v = diagnose_dir(rs, dir);
		if (!late) {
			ck_assert_msg(!why_has(v, "Clock skew", NULL), "%s",
				      json_dumps(json_object_get(v, "why"), 0));
			ck_assert(why_has(v, "epilog began late", NULL));
		} else {
			ck_assert_msg(why_has(v, "Clock skew on n2", NULL) &&
					      !why_has(v, "Clock skew on n1", NULL),
				      "%s", json_dumps(json_object_get(v, "why"), 0));
		}
		json_decref(v);
	}
	pm_ruleset_destroy(rs);
}
END_TEST

/* A kernel line's pid against the rank map's task pids on its node: one of this job's
 * tasks strengthens the link (an earlier event then counts as explained); a pid that is
 * none of them, with every task there known by its pid, weakens it (hypothesis). */
START_TEST(test_kernel_pid_link)
{
	struct pm_ruleset *rs = load_more(-1);
	static const char *MAP =
		"{\"schema\":\"postmortem.rankmap/1\",\"job\":\"77\",\"step\":\"0\",\"node\":\"n2\","
		"\"rank\":2,\"local_rank\":0,\"pid\":200,\"gpus\":\"0\"}\n"
		"{\"schema\":\"postmortem.rankmap/1\",\"job\":\"77\",\"step\":\"0\",\"node\":\"n2\","
		"\"rank\":3,\"local_rank\":1,\"pid\":201,\"gpus\":\"1\"}\n";
	json_t *v;

	stale_job("pw", "0: hello\n",
		  "2026-11-30T03:11:30,000000+00:00 NVRM: Xid (PCI:0000:3b:00): 48, pid=999, x\n");
	pmt_mk(tmp, "pw/n2/rank_map.jsonl", MAP);
	v = diagnose_dir(rs, "pw");
	ck_assert_str_eq(vstr(v, "cause", "class"), "gpu_hardware");
	ck_assert_str_eq(vstr(v, NULL, "confidence"), "hypothesis");
	ck_assert(why_has(v, "names a pid that is none of this job's tasks on n2", NULL));
	json_decref(v);

	stale_job("ps", "0: hello\n",
		  "2026-11-30T03:11:30,000000+00:00 NVRM: Xid (PCI:0000:3b:00): 48, pid=201, x\n");
	pmt_mk(tmp, "ps/n2/rank_map.jsonl", MAP);
	v = diagnose_dir(rs, "ps");
	ck_assert_str_eq(vstr(v, NULL, "confidence"), "supported");
	ck_assert(!why_has(v, "names a pid", NULL));
	json_decref(v);

	/* an earlier line naming a pid of this job's tasks is linked to it: it leads as
	 * explained (supported), not as a fallback (hypothesis) */
	stale_job("pe", "0: hello\n",
		  "2026-11-30T03:10:50,000000+00:00 NVRM: Xid (PCI:0000:3b:00): 48, pid=201, x\n");
	pmt_mk(tmp, "pe/n2/rank_map.jsonl", MAP);
	v = diagnose_dir(rs, "pe");
	ck_assert_str_eq(vstr(v, "cause", "class"), "gpu_hardware");
	ck_assert_str_eq(vstr(v, NULL, "confidence"), "supported");
	ck_assert(why_has(v, "before this job began", "failed in a way it explains"));
	json_decref(v);
	pm_ruleset_destroy(rs);
}
END_TEST

/* A job node's Xid in a loghost's file under another spelling of its name: the verdict names
 * the node as Slurm's record does (origin, decision), whatever the line wrote; a name that
 * fits several of the job's nodes names none to exclude. */
static json_t *spelt_xid(struct pm_ruleset *rs, const char *dir, const char *nodelist,
			 const char *host)
{
	char rel[300], buf[600];

	snprintf(rel, sizeof(rel), "%s/sacct.txt", dir);
	snprintf(buf, sizeof(buf),
		 "JobID|State|ExitCode|Start|End|NodeList|NNodes\n"
		 "7|FAILED|1:0|2026-11-30T03:01:00|2026-11-30T03:12:30|%s|2\n",
		 nodelist);
	pmt_mk(tmp, rel, buf);
	snprintf(rel, sizeof(rel), "%s/slurm-7.out", dir);
	pmt_mk(tmp, rel, "0: step 1 loss 2.3\n");
	snprintf(rel, sizeof(rel), "%s/messages", dir);
	snprintf(buf, sizeof(buf),
		 "2026-11-30T03:11:58.000000+00:00 %s kernel: NVRM: Xid (PCI:0000:3b:00): 79, "
		 "pid=1, GPU has fallen off the bus.\n",
		 host);
	pmt_mk(tmp, rel, buf);
	return diagnose_dir(rs, dir);
}

START_TEST(test_origin_spelt_as_slurm_names_it)
{
	const char *cases[][3] = {
		/* dir, the record's node list, the host as the line writes it */
		{"fq", "gpu[07-08]", "gpu07.cluster.local"},
		{"uc", "gpu[07-08]", "GPU07"},
		{"sh", "gpu07.cluster.local,gpu08.cluster.local", "gpu07"},
	};
	struct pm_ruleset *rs = load_more(-1);
	json_t *v, *d;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *want = i < 2 ? "gpu07" : "gpu07.cluster.local";
		char ex[64];
		v = spelt_xid(rs, cases[i][0], cases[i][1], cases[i][2]);
		ck_assert_msg(!strcmp(vstr(v, "cause", "class") ?: "", "gpu_hardware"), "case %zu",
			      i);
		ck_assert_msg(json_array_size(json_object_get(json_object_get(v, "origin"),
							      "nodes")) == 1 &&
				      !strcmp(json_string_value(json_array_get(
						      json_object_get(json_object_get(v, "origin"),
								      "nodes"),
						      0)),
					      want),
			      "case %zu: origin", i);
		d = json_object_get(json_object_get(v, "decision"), "containment");
		snprintf(ex, sizeof(ex), "excluding %s", want);
		ck_assert_msg(strstr(vstr(d, NULL, "action"), ex), "case %zu: %s", i,
			      vstr(d, NULL, "action"));
		json_decref(v);
	}
	/* a short name beside two full names that share it: which node is not known, so none
	 * is excluded, and the name Slurm does not know is in no exclusion */
	v = spelt_xid(rs, "two", "gpu07.a.example,gpu07.b.example", "gpu07");
	ck_assert_str_eq(vstr(v, "cause", "class"), "gpu_hardware");
	ck_assert_str_eq(vstr(v, NULL, "confidence"), "hypothesis");
	d = json_object_get(json_object_get(v, "decision"), "containment");
	ck_assert_str_eq(vstr(d, NULL, "id"), "retry");
	ck_assert_ptr_null(strstr(vstr(d, NULL, "action"), "excluding gpu07"));
	ck_assert_ptr_null(strstr(vstr(d, NULL, "action"), "--exclude"));
	ck_assert(json_is_null(json_object_get(json_object_get(v, "decision"), "repair")));
	ck_assert(why_has(v, "fits several of its nodes", NULL));
	json_decref(v);
	pm_ruleset_destroy(rs);
}
END_TEST

/* nvidia-smi -q's entry of one GPU: bus BUS (hex), Minor Number MINOR. */
static void smi_gpu(char *out, size_t len, const char *bus, int minor)
{
	snprintf(out, len,
		 "GPU 00000000:%s:00.0\n"
		 "    Product Name                          : NVIDIA A100-SXM4-80GB\n"
		 "    Minor Number                          : %d\n"
		 "    PCI\n"
		 "        Bus Id                            : 00000000:%s:00.0\n"
		 "    ECC Errors\n"
		 "        Volatile\n"
		 "            DRAM Uncorrectable            : 0\n",
		 bus, minor, bus);
}

/* A job given GPUs 1 and 5 of n2, whose nvidia-smi was its cgroup's view (rows 0 and 1):
 * the Xid of the GPU at row 1, Minor Number 5, is rank 3's (its list holds the node's index
 * 5), not rank 2's (its list holds 1, the row's number).  Lists CUDA_VISIBLE_DEVICES gave
 * (0 and 1) number the job's view as the rows do: row 1 is rank 3's there too. */
START_TEST(test_gpu_rank_by_minor_number)
{
	struct pm_ruleset *rs = load_more(-1);
	const char *from[] = {"SLURM_STEP_GPUS", "CUDA_VISIBLE_DEVICES"};

	for (size_t i = 0; i < 2; i++) {
		char dir[16], rel[64], map[600], g0[400], g1[400], smi[1000];
		json_t *v;
		snprintf(dir, sizeof(dir), "gm%zu", i);
		stale_job(dir, "0: hello\n",
			  "2026-11-30T03:11:30,000000+00:00 NVRM: Xid (PCI:0000:5b:00): 79, pid=9, "
			  "GPU has fallen off the bus.\n");
		snprintf(map, sizeof(map),
			 "{\"schema\":\"postmortem.rankmap/1\",\"job\":\"77\",\"step\":\"0\","
			 "\"node\":\"n2\",\"rank\":2,\"local_rank\":0,\"pid\":200,\"gpus\":\"%s\","
			 "\"gpus_from\":\"%s\"}\n"
			 "{\"schema\":\"postmortem.rankmap/1\",\"job\":\"77\",\"step\":\"0\","
			 "\"node\":\"n2\",\"rank\":3,\"local_rank\":1,\"pid\":201,\"gpus\":\"%s\","
			 "\"gpus_from\":\"%s\"}\n",
			 i ? "0" : "1", from[i], i ? "1" : "5", from[i]);
		snprintf(rel, sizeof(rel), "%s/n2/rank_map.jsonl", dir);
		pmt_mk(tmp, rel, map);
		smi_gpu(g0, sizeof(g0), "1b", 1);
		smi_gpu(g1, sizeof(g1), "5b", 5);
		snprintf(smi, sizeof(smi),
			 "\n==============NVSMI LOG==============\n\n"
			 "Driver Version                            : 550.90.07\n\n"
			 "Attached GPUs                             : 2\n%s%s",
			 g0, g1);
		snprintf(rel, sizeof(rel), "%s/n2/nvidia-smi-q.txt", dir);
		pmt_mk(tmp, rel, smi);
		v = diagnose_dir(rs, dir);
		ck_assert_str_eq(vstr(v, "cause", "class"), "gpu_hardware");
		ck_assert_msg(origin_is(v, "n2"), "case %zu: node", i);
		ck_assert_msg(origin_has_rank(v, 3) && !origin_has_rank(v, 2), "case %zu: rank", i);
		json_decref(v);
	}
	pm_ruleset_destroy(rs);
}
END_TEST

/* ---- the comment line ---- */

START_TEST(test_comment_line)
{
	json_t *v = json_pack("{s:s, s:{s:s, s:s, s:s}, s:{s:[s], s:[i], s:[]}, s:s, s:s,"
			      " s:{s:{s:s}}, s:{s:s, s:s, s:i}}",
			      "status", "attributed", "cause", "class", "gpu_hardware", "subclass",
			      "gpu_lost", "summary", "x", "origin", "nodes", "gpu017", "ranks", 11,
			      "gpus", "confidence", "supported", "outcome", "FAILED", "decision",
			      "containment", "id", "retry-exclude-node", "job", "id", "4242",
			      "cluster", "lab", "restart", 0);
	char *c = pm_verdict_comment(v);

	ck_assert_str_eq(c, "postmortem: attributed gpu_hardware/gpu_lost origin=gpu017:11 "
			    "conf=supported act=retry-exclude-node ev=lab/4242/0");
	free(c);
	/* many nodes: still at most 250 bytes */
	json_t *nodes = json_object_get(json_object_get(v, "origin"), "nodes");
	for (int i = 0; i < 200; i++) {
		char n[32];
		snprintf(n, sizeof(n), "verylongnodename%04d", i);
		json_array_append_new(nodes, json_string(n));
	}
	c = pm_verdict_comment(v);
	ck_assert_uint_le(strlen(c), PM_COMMENT_MAX);
	ck_assert(strstr(c, "ev=lab/4242/0") != NULL);
	free(c);
	json_decref(v);
}
END_TEST

/* ---- the fixture comparison itself ---- */

START_TEST(test_fixture_compare)
{
	json_t *act = json_loads("{\"status\":\"attributed\",\"origin\":{\"nodes\":[\"a\"],"
				 "\"ranks\":[1,2]},\"evidence\":[{\"rule\":\"r1\",\"node\":\"a\"},"
				 "{\"rule\":\"r2\",\"node\":\"b\"}]}",
				 0, NULL);
	json_t *ok = json_loads("{\"status\":\"attributed\",\"evidence\":[{\"rule\":\"r2\"}],"
				"\"fired\":[\"r1\"],\"not_fired\":[\"r3\"]}",
				0, NULL);
	json_t *bad1 = json_loads("{\"origin\":{\"ranks\":[1]}}", 0, NULL);
	json_t *bad2 = json_loads("{\"not_fired\":[\"r2\"]}", 0, NULL);
	json_t *bad3 = json_loads("{\"cause\":null}", 0, NULL);
	char *d = NULL;

	ck_assert_int_eq(pm_fixture_compare(ok, act, &d), 0);
	free(d);
	ck_assert_int_eq(pm_fixture_compare(bad1, act, &d), 1);
	ck_assert(strstr(d, "verdict.origin.ranks") != NULL);
	free(d);
	ck_assert_int_eq(pm_fixture_compare(bad2, act, &d), 1);
	ck_assert(strstr(d, "rule r2 fired") != NULL);
	free(d);
	ck_assert_int_eq(pm_fixture_compare(bad3, act, &d), 1);
	free(d);
	json_decref(act);
	json_decref(ok);
	json_decref(bad1);
	json_decref(bad2);
	json_decref(bad3);
}
END_TEST

void engine_attribution_tests(TCase *t)
{
	tcase_add_test(t, test_stale_event_never_origin_by_itself);
	tcase_add_test(t, test_stale_event_explained);
	tcase_add_test(t, test_later_event_keeps_subclass);
	tcase_add_test(t, test_untrusted_hardware_lead);
	tcase_add_test(t, test_single_reporter);
	tcase_add_test(t, test_error_explains_silence);
	tcase_add_test(t, test_rank_placement);
	tcase_add_test(t, test_torchrun_rank_after_prefix);
	tcase_add_test(t, test_report_names_rank_host);
	tcase_add_test(t, test_prefix_host_gainsaid_by_srun);
	tcase_add_test(t, test_host_named_at_any_column);
	tcase_add_test(t, test_line_keys_vector_same);
	tcase_add_test(t, test_skew_bounded_by_task_exits);
	tcase_add_test(t, test_kernel_pid_link);
	tcase_add_test(t, test_origin_spelt_as_slurm_names_it);
	tcase_add_test(t, test_gpu_rank_by_minor_number);
	tcase_add_test(t, test_comment_line);
	tcase_add_test(t, test_same_class_hardware_on_two_nodes);
	tcase_add_test(t, test_fixture_compare);
}
