/*
 * check_engine.c - the engine's contracts: the rule loader's errors, trust, determinism,
 * bad input, bundles, the comment line and the fixture comparison.  Each test builds its
 * own small rule set and evidence in a temporary folder.
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
#include "fixture.h"
#include "taxonomy.h"
#include "support.h"

static char tmp[256];

static void setup(void)
{
	snprintf(tmp, sizeof(tmp), "/tmp/pm-check-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmp));
}

static void teardown(void)
{
	pmt_rmtree(tmp);
}

static const char *HEADER = "ruleset: t\nversion: \"1\"\n";

static const char *RULES =
	"rules:\n"
	"  - id: xid-79\n"
	"    class: gpu_hardware\n"
	"    subclass: gpu_lost\n"
	"    role: origin\n"
	"    strength: strong\n"
	"    sources: [kernel_log]\n"
	"    pattern: 'NVRM: Xid \\((?:PCI:)?(?<pci>[0-9a-f:]+)\\): (?<xid>79),'\n"
	"    summary: 'GPU {pci} fell off the bus'\n"
	"  - id: xid-79-echo\n"
	"    class: gpu_hardware\n"
	"    subclass: gpu_lost\n"
	"    role: confirmation\n"
	"    strength: weak\n"
	"    sources: [app_log]\n"
	"    pattern: 'NVRM: Xid'\n"
	"    summary: 'Xid text in the job output'\n"
	"  - id: py-exc\n"
	"    class: application\n"
	"    subclass: python_exception\n"
	"    role: origin\n"
	"    strength: medium\n"
	"    sources: [app_log]\n"
	"    pattern: '^(?<exc>[A-Za-z_.]*Error): '\n"
	"    summary: '{exc} on rank {rank}'\n"
	"  - id: watchdog\n"
	"    class: communication_unattributed\n"
	"    subclass: collective_timeout\n"
	"    role: cascade\n"
	"    strength: weak\n"
	"    sources: [app_log]\n"
	"    pattern: 'Rank (?<rank>[0-9]+)\\] Watchdog caught collective operation timeout: WorkNCCL\\(SeqNum=(?<seq>[0-9]+)'\n"
	"    summary: 'rank {rank} timed out'\n";

static struct pm_ruleset *load(const char *extra, char *err, size_t len)
{
	char p[400];

	pmt_mk(tmp, "rules/ruleset.yaml", HEADER);
	pmt_mk(tmp, "rules/a.yaml", extra ? extra : RULES);
	snprintf(p, sizeof(p), "%s/rules", tmp);
	return pm_ruleset_load(p, err, len);
}

static json_t *diagnose_dir(struct pm_ruleset *rs, const char *rel)
{
	char p[400], err[256];
	struct pm_evidence *ev = pm_evidence_create(rs);
	json_t *v;

	snprintf(p, sizeof(p), "%s/%s", tmp, rel);
	ck_assert_int_eq(pm_evidence_add_path(ev, p, err, sizeof(err)), 0);
	v = pm_diagnose(ev, err, sizeof(err));
	ck_assert_msg(v != NULL, "diagnose failed: %s", err);
	pm_evidence_destroy(ev);
	return v;
}

/* ---- the rule loader ---- */

static void expect_load_error(const char *yaml, const char *needle)
{
	char err[512] = "";
	struct pm_ruleset *rs = load(yaml, err, sizeof(err));

	ck_assert_ptr_null(rs);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_msg(strstr(err, needle) != NULL, "error '%s' lacks '%s'", err, needle);
}

START_TEST(test_load_ok)
{
	char err[512];
	struct pm_ruleset *rs = load(NULL, err, sizeof(err));

	ck_assert_msg(rs != NULL, "%s", err);
	ck_assert_uint_eq(pm_ruleset_count(rs), 4);
	ck_assert_str_eq(pm_ruleset_rule_id(rs, 0), "xid-79");
	ck_assert_str_eq(pm_ruleset_id(rs), "t");
	ck_assert(strncmp(pm_ruleset_digest(rs), "sha256:", 7) == 0);
	pm_ruleset_destroy(rs);
}
END_TEST

/* Every kind the engine makes is in the one taxonomy table (names.c), and the table's
 * hardware flag is what decides a class's trust: a kind outside it would fail here. */
START_TEST(test_taxonomy_one_table)
{
	for (int k = 0; k < PM_K__COUNT; k++) {
		const struct pm_kind_def *d = pm_kind((enum pm_kind)k);
		if (k == PM_K_UNKNOWN)
			continue; /* the decision of no cause, not a class */
		ck_assert_msg(pm_taxonomy_check(d->cls, d->sub) == 0, "%s/%s", d->cls, d->sub);
	}
	ck_assert(pm_class_hardware("gpu_hardware"));
	ck_assert(pm_class_hardware("network_fabric"));
	ck_assert(!pm_class_hardware("application"));
	ck_assert(!pm_class_hardware(NULL));
	ck_assert_int_eq(pm_taxonomy_check("application", "no_such_sub"), -1);
	ck_assert(pm_cause_slurm_act(pm_kind(PM_K_TIME_LIMIT)->cls, pm_kind(PM_K_TIME_LIMIT)->sub));
	ck_assert(!pm_cause_slurm_act(pm_kind(PM_K_HOST_OOM)->cls, pm_kind(PM_K_HOST_OOM)->sub));
}
END_TEST

START_TEST(test_load_errors)
{
	expect_load_error("rules:\n  - id: a\n    class: gpu_hardware\n    subclass: gpu_lost\n"
			  "    role: origin\n    strength: strong\n    sources: [app_log]\n"
			  "    pattern: 'x'\n    summary: s\n",
			  "a.yaml:2: rule a: a hardware origin");
	expect_load_error("rules:\n  - id: a\n    class: gpu_hardware\n    subclass: nope\n"
			  "    role: origin\n    strength: strong\n    sources: [kernel_log]\n"
			  "    pattern: 'x'\n    summary: s\n",
			  "not in the taxonomy");
	expect_load_error("rules:\n  - id: a\n    class: application\n    subclass: nan\n"
			  "    role: origin\n    strength: strong\n    sources: [app_log]\n"
			  "    pattern: 'x('\n    summary: s\n",
			  "a.yaml:8: rule a: pattern:");
	expect_load_error("rules:\n  - id: a\n    class: application\n    subclass: nan\n"
			  "    role: origin\n    strength: strong\n    sources: [app_log]\n"
			  "    pattern: '(?<victim>x)'\n    summary: s\n",
			  "unknown capture name 'victim'");
	expect_load_error("rules:\n  - id: a\n    class: application\n    subclass: nan\n"
			  "    role: origin\n    strength: strong\n    sources: [app_log]\n"
			  "    pattern: 'x'\n    summary: s\n    run: rm -rf /\n",
			  "unknown key 'run'");
	expect_load_error("rules:\n  - id: a\n    class: application\n    subclass: nan\n"
			  "    role: origin\n    strength: strong\n    sources: [app_log]\n"
			  "    pattern: 'x'\n    summary: s\n"
			  "  - id: a\n    class: application\n    subclass: nan\n"
			  "    role: origin\n    strength: strong\n    sources: [app_log]\n"
			  "    pattern: 'y'\n    summary: s\n",
			  "already used at a.yaml:2");
	expect_load_error("rules:\n  - id: a\n    class: [oops\n", "a.yaml:");
	expect_load_error("rules:\n  - id: Bad_Id\n", "must match");
	expect_load_error("rules:\n  - id: a\n    class: gpu_hardware\n    subclass: ecc\n"
			  "    role: origin\n    strength: strong\n    sources: [gpu_state]\n"
			  "    condition: 'gpu.ecc ~ 3'\n    summary: s\n",
			  "condition");
}
END_TEST

START_TEST(test_load_missing_dir)
{
	char err[256];

	ck_assert_ptr_null(pm_ruleset_load("/nonexistent/rules", err, sizeof(err)));
	ck_assert(strstr(err, "/nonexistent/rules") != NULL);
}
END_TEST

/* A pattern with catastrophic backtracking costs bounded time, never a hang. */
START_TEST(test_pathological_pattern)
{
	char err[256], line[70000];
	struct pm_ruleset *rs =
		load("rules:\n  - id: evil\n    class: application\n"
		     "    subclass: nan\n    role: origin\n    strength: weak\n"
		     "    sources: [app_log]\n    pattern: '(a+)+b'\n    summary: s\n",
		     err, sizeof(err));
	json_t *v;

	ck_assert_msg(rs != NULL, "%s", err);
	memset(line, 'a', sizeof(line) - 2);
	line[sizeof(line) - 2] = '\n';
	line[sizeof(line) - 1] = '\0';
	pmt_mk(tmp, "ev/app.log", line);
	v = diagnose_dir(rs, "ev");
	ck_assert_str_eq(json_string_value(json_object_get(v, "status")), "unknown");
	json_decref(v);
	pm_ruleset_destroy(rs);
}
END_TEST

/* ---- trust ---- */

START_TEST(test_user_printed_xid_blames_no_node)
{
	char err[256];
	struct pm_ruleset *rs = load(NULL, err, sizeof(err));
	json_t *v;

	pmt_mk(tmp, "ev/slurm-7.out",
	       "0: step 1 loss 2.3\n"
	       "1: NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.\n"
	       "1: ValueError: bad shape\n");
	v = diagnose_dir(rs, "ev");
	ck_assert_str_eq(json_string_value(json_object_get(v, "status")), "attributed");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(v, "cause"), "class")),
			 "application");
	ck_assert_int_eq(json_array_size(json_object_get(json_object_get(v, "origin"), "gpus")), 0);
	json_decref(v);

	/* the same line in a kernel log does blame the node */
	pmt_mk(tmp, "ev2/gpu017/kernel.log",
	       "[Mon Nov 30 03:11:58 2026] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.\n");
	pmt_mk(tmp, "ev2/slurm-7.out", "1: ValueError: bad shape\n");
	v = diagnose_dir(rs, "ev2");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(v, "cause"), "class")),
			 "gpu_hardware");
	ck_assert_str_eq(json_string_value(json_array_get(
				 json_object_get(json_object_get(v, "origin"), "nodes"), 0)),
			 "gpu017");
	json_decref(v);
	pm_ruleset_destroy(rs);
}
END_TEST

/* ---- determinism ---- */

START_TEST(test_same_bytes_any_order)
{
	char err[256], p1[400], p2[400], *a, *b;
	struct pm_ruleset *rs = load(NULL, err, sizeof(err));
	struct pm_evidence *e1 = pm_evidence_create(rs), *e2 = pm_evidence_create(rs);
	json_t *v1, *v2;

	pmt_mk(tmp, "ev/x/a.log",
	       "0: [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE\n");
	pmt_mk(tmp, "ev/y/b.log", "1: RuntimeError: boom\n");
	snprintf(p1, sizeof(p1), "%s/ev/x", tmp);
	snprintf(p2, sizeof(p2), "%s/ev/y", tmp);
	pm_evidence_add_path(e1, p1, err, sizeof(err));
	pm_evidence_add_path(e1, p2, err, sizeof(err));
	pm_evidence_add_path(e2, p2, err, sizeof(err));
	pm_evidence_add_path(e2, p1, err, sizeof(err));
	v1 = pm_diagnose(e1, err, sizeof(err));
	v2 = pm_diagnose(e2, err, sizeof(err));
	a = pm_verdict_dump(v1);
	b = pm_verdict_dump(v2);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	json_decref(v1);
	json_decref(v2);
	pm_evidence_destroy(e1);
	pm_evidence_destroy(e2);
	pm_ruleset_destroy(rs);
}
END_TEST

/* ---- the input digest ---- */

/* What input_digest must be for one input NAME whose content digest is D (32 bytes). */
static void expect_input_digest(const json_t *v, const char *name, const unsigned char d[32])
{
	struct pm_sha256 c;
	unsigned char out[32];
	char hex[80];

	pm_sha256_init(&c);
	pm_sha256_update(&c, name, strlen(name) + 1);
	pm_sha256_update(&c, d, 32);
	pm_sha256_final(&c, out);
	pm_sha256_hex(out, hex);
	ck_assert_str_eq(json_string_value(json_object_get(v, "input_digest")), hex);
}

START_TEST(test_input_digest)
{
	char err[256], p[400];
	struct pm_ruleset *rs = load(NULL, err, sizeof(err));
	struct pm_evidence *ev;
	size_t n = (9u << 20) + 12345, i; /* several reads and chunks */
	char *text = malloc(n);
	unsigned char d[32];
	XXH128_canonical_t c;
	json_t *v, *w;
	FILE *f;

	ck_assert_ptr_nonnull(text);
	for (i = 0; i < n; i++)
		text[i] = i % 97 == 96 ? '\n' : (char)('a' + (i * 7 + i / 97) % 26);
	mkdir(strcat(strcpy(p, tmp), "/dg"), 0755);
	snprintf(p, sizeof(p), "%s/dg/big.log", tmp);
	f = fopen(p, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(text, 1, n, f), n);
	fclose(f);

	/* a file read from disk: XXH3-128 of all its bytes, in order, then the tag */
	v = diagnose_dir(rs, "dg");
	XXH128_canonicalFromHash(&c, XXH3_128bits(text, n));
	memset(d, 0, sizeof(d));
	memcpy(d, c.digest, 16);
	memcpy(d + 16, "xxh3-128", 8);
	expect_input_digest(v, "big.log", d);

	/* one byte changed deep inside: another digest */
	text[n - 5000] = text[n - 5000] == 'a' ? 'b' : 'a';
	f = fopen(p, "wb");
	ck_assert_uint_eq(fwrite(text, 1, n, f), n);
	fclose(f);
	w = diagnose_dir(rs, "dg");
	ck_assert_str_ne(json_string_value(json_object_get(v, "input_digest")),
			 json_string_value(json_object_get(w, "input_digest")));
	json_decref(w);
	json_decref(v);

	/* the same bytes handed over in memory (the finalizer's accounting record): the same
	 * digest as from disk, so a fetched copy's sacct.txt rediagnoses to the stored verdict */
	ev = pm_evidence_create(rs);
	ck_assert_int_eq(pm_evidence_add_buffer(ev, "big.log", text, n, NULL, NULL, 0), 0);
	v = pm_diagnose(ev, err, sizeof(err));
	ck_assert_ptr_nonnull(v);
	XXH128_canonicalFromHash(&c, XXH3_128bits(text, n));
	memset(d, 0, sizeof(d));
	memcpy(d, c.digest, 16);
	memcpy(d + 16, "xxh3-128", 8);
	expect_input_digest(v, "big.log", d);
	json_decref(v);
	pm_evidence_destroy(ev);

	/* a small buffer, scanned where it lies: the same digest rule */
	ev = pm_evidence_create(rs);
	ck_assert_int_eq(pm_evidence_add_buffer(ev, "small.log", text, 5000, NULL, NULL, 0), 0);
	v = pm_diagnose(ev, err, sizeof(err));
	ck_assert_ptr_nonnull(v);
	XXH128_canonicalFromHash(&c, XXH3_128bits(text, 5000));
	memset(d, 0, sizeof(d));
	memcpy(d, c.digest, 16);
	memcpy(d + 16, "xxh3-128", 8);
	expect_input_digest(v, "small.log", d);
	json_decref(v);
	pm_evidence_destroy(ev);
	free(text);
	pm_ruleset_destroy(rs);
}
END_TEST

/* ---- Prometheus samples keep their own time ---- */

START_TEST(test_prom_sample_event_time)
{
	static const char *rules = "rules:\n"
				   "  - id: prom-xid\n"
				   "    class: gpu_hardware\n"
				   "    subclass: other\n"
				   "    role: origin\n"
				   "    strength: medium\n"
				   "    sources: [node_metrics]\n"
				   "    condition: 'gpu.prom_xid_hw > 0'\n"
				   "    summary: 'Xid on {node} GPU {gpu}'\n";
	char err[256], p[400];
	struct pm_ruleset *rs = load(rules, err, sizeof(err));
	struct utimbuf ut = {.actime = 1796016807, .modtime = 1796016807}; /* 05:33:27Z */
	json_t *v, *e;

	ck_assert_msg(rs != NULL, "%s", err);
	pmt_mk(tmp, "pr/gpu042/prometheus.jsonl",
	       "{\"schema\":\"postmortem.prometheus/1\",\"node\":\"gpu042\",\"job\":\"5151\","
	       "\"start\":\"2026-11-30T03:35:00.000Z\",\"end\":\"2026-11-30T04:38:36.000Z\","
	       "\"step\":15.0,\"window\":\"job\"}\n"
	       "{\"metric\":\"DCGM_FI_DEV_XID_ERRORS\",\"labels\":{\"Hostname\":\"gpu042\","
	       "\"gpu\":\"3\",\"pci_bus_id\":\"00000000:5D:00.0\"},\"values\":[[\"2026-11-30T03:35:00."
	       "000Z\",0],[\"2026-11-30T04:28:15.000Z\",79],[\"2026-11-30T04:38:30.000Z\",79]]}\n");
	snprintf(p, sizeof(p), "%s/pr/gpu042/prometheus.jsonl", tmp);
	ck_assert_int_eq(utime(p, &ut), 0);
	v = diagnose_dir(rs, "pr");
	e = json_array_get(json_object_get(v, "evidence"), 0);
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(json_string_value(json_object_get(e, "rule")), "prom-xid");
	/* the sample where the Xid appeared, not the time the file was read */
	ck_assert_str_eq(json_string_value(json_object_get(e, "event_time")),
			 "2026-11-30T04:28:15.000Z");
	ck_assert_str_eq(json_string_value(json_object_get(e, "observed_time")),
			 "2026-11-30T05:33:27.000Z");
	ck_assert_str_eq(json_string_value(
				 json_object_get(json_object_get(v, "first_error"), "event_time")),
			 "2026-11-30T04:28:15.000Z");
	json_decref(v);
	pm_ruleset_destroy(rs);
}
END_TEST

/* ---- bad input ---- */

START_TEST(test_empty_folder_is_an_error)
{
	char err[256], p[400];
	struct pm_ruleset *rs = load(NULL, err, sizeof(err));
	struct pm_evidence *ev = pm_evidence_create(rs);

	snprintf(p, sizeof(p), "%s/empty", tmp);
	mkdir(p, 0755);
	ck_assert_int_eq(pm_evidence_add_path(ev, p, err, sizeof(err)), 0);
	ck_assert_ptr_null(pm_diagnose(ev, err, sizeof(err)));
	ck_assert_int_eq(errno, ENODATA);
	ck_assert(strstr(err, "no usable input") != NULL);
	pm_evidence_destroy(ev);
	ck_assert_int_eq(pm_evidence_add_path(ev = pm_evidence_create(rs), "/nonexistent/x", err,
					      sizeof(err)),
			 -1);
	ck_assert(strstr(err, "/nonexistent/x") != NULL);
	pm_evidence_destroy(ev);
	pm_ruleset_destroy(rs);
}
END_TEST

static const json_t *cov_of(const json_t *v, const char *file)
{
	size_t i;
	json_t *c;

	size_t k;
	json_t *g;

	/* the inputs not read whole, grouped by source (version 2) */
	json_array_foreach(json_object_get(v, "coverage"), k, g)
		json_array_foreach(json_object_get(g, "problems"), i,
				   c) if (json_is_string(json_object_get(c, "file")) &&
					  strstr(json_string_value(json_object_get(c, "file")),
						 file)) return c;
	return NULL;
}

START_TEST(test_bad_files_reported_rest_diagnosed)
{
	char err[256], p[400];
	struct pm_ruleset *rs = load(NULL, err, sizeof(err));
	json_t *v;
	FILE *f;
	gzFile gz;
	char *big;

	pmt_mk(tmp, "ev/slurm.out", "3: KeyError: 'lr'\n");
	/* binary garbage */
	snprintf(p, sizeof(p), "%s/ev/core.bin", tmp);
	f = fopen(p, "wb");
	for (int i = 0; i < 5000; i++)
		fputc(i * 7 % 256, f);
	fclose(f);
	/* a 50 MB single line */
	big = malloc(50u << 20);
	memset(big, 'x', 50u << 20);
	big[(50u << 20) - 1] = '\0';
	pmt_mk(tmp, "ev/huge.log", big);
	free(big);
	/* invalid UTF-8 around a real error line */
	pmt_mk(tmp, "ev/latin1.log",
	       "2: epoch 1 caf\xe9 r\xe9sum\xe9 loaded from /data/na\xefve\n"
	       "2: loading shard 1 of 8\n2: loading shard 2 of 8\n"
	       "2: TypeError: unsupported operand type(s) for +: 'int' and 'str' (\xe9t\xe9 \xff\xfe)\n");
	/* a truncated gzip file */
	snprintf(p, sizeof(p), "%s/ev/trunc.log.gz", tmp);
	gz = gzopen(p, "wb");
	for (int i = 0; i < 20000; i++)
		gzprintf(gz, "0: iteration %d loss 2.0\n", i);
	gzclose(gz);
	truncate(p, 3000);

	v = diagnose_dir(rs, "ev");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(v, "cause"), "class")),
			 "application");
	ck_assert_str_eq(json_string_value(json_object_get(cov_of(v, "core.bin"), "status")),
			 "binary");
	ck_assert_str_eq(json_string_value(json_object_get(cov_of(v, "huge.log"), "status")),
			 "truncated");
	ck_assert_str_eq(json_string_value(json_object_get(cov_of(v, "trunc.log.gz"), "status")),
			 "truncated");
	/* read whole: counted in its source's "ok", not listed */
	ck_assert_ptr_null(cov_of(v, "latin1.log"));
	{
		char *s = pm_verdict_dump(v);
		ck_assert_ptr_nonnull(s);
		json_t *back = json_loads(s, 0, NULL);
		ck_assert_ptr_nonnull(back); /* the dump is valid JSON despite bad bytes */
		json_decref(back);
		free(s);
	}
	json_decref(v);
	pm_ruleset_destroy(rs);
}
END_TEST

/* ---- silence ---- */

START_TEST(test_silent_rank_is_suspect)
{
	char err[256];
	struct pm_ruleset *rs = load(NULL, err, sizeof(err));
	json_t *v, *ranks;

	pmt_mk(tmp, "ev/slurm.out",
	       "0: hello\n1: hello\n2: hello\n3: hello\n"
	       "0: [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=77, OpType=ALLREDUCE\n"
	       "1: [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=77, OpType=ALLREDUCE\n"
	       "3: [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=77, OpType=ALLREDUCE\n");
	v = diagnose_dir(rs, "ev");
	ck_assert_str_eq(json_string_value(
				 json_object_get(json_object_get(v, "cause"), "subclass")),
			 "hang");
	ck_assert_str_eq(json_string_value(json_object_get(v, "confidence")), "hypothesis");
	ranks = json_object_get(json_object_get(v, "origin"), "ranks");
	ck_assert_int_eq(json_array_size(ranks), 1);
	ck_assert_int_eq(json_integer_value(json_array_get(ranks, 0)), 2);
	json_decref(v);

	/* everyone timed out: nobody can be blamed */
	pmt_mk(tmp, "ev2/slurm.out",
	       "0: [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=77, OpType=ALLREDUCE\n"
	       "1: [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=77, OpType=ALLREDUCE\n");
	v = diagnose_dir(rs, "ev2");
	ck_assert_str_eq(json_string_value(json_object_get(v, "status")), "ambiguous");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(v, "cause"), "class")),
			 "communication_unattributed");
	json_decref(v);
	pm_ruleset_destroy(rs);
}
END_TEST

/* ---- bundles ---- */

static bool plain_tar; /* write_bundle: no zstd */

static void write_bundle(const char *path, const char *member, const char *data,
			 const char *manifest, int type)
{
	struct archive *a = archive_write_new();
	struct archive_entry *e;

	if (!plain_tar)
		archive_write_add_filter_zstd(a);
	archive_write_set_format_pax_restricted(a);
	ck_assert_int_eq(archive_write_open_filename(a, path), ARCHIVE_OK);
	e = archive_entry_new();
	archive_entry_set_pathname(e, "manifest.json");
	archive_entry_set_size(e, (la_int64_t)strlen(manifest));
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0600);
	archive_write_header(a, e);
	archive_write_data(a, manifest, strlen(manifest));
	archive_entry_free(e);
	e = archive_entry_new();
	archive_entry_set_pathname(e, member);
	archive_entry_set_size(e, type == AE_IFREG ? (la_int64_t)strlen(data) : 0);
	archive_entry_set_filetype(e, (unsigned)type);
	if (type == AE_IFLNK)
		archive_entry_set_symlink(e, "/etc/shadow");
	archive_entry_set_perm(e, 0600);
	archive_write_header(a, e);
	if (type == AE_IFREG)
		archive_write_data(a, data, strlen(data));
	archive_entry_free(e);
	archive_write_close(a);
	archive_write_free(a);
}

static char *manifest_for(const char *member, const char *data, long bytes)
{
	struct pm_sha256 c;
	unsigned char d[32];
	char hex[80], *m;

	pm_sha256_init(&c);
	pm_sha256_update(&c, data, strlen(data));
	pm_sha256_final(&c, d);
	pm_sha256_hex(d, hex);
	ck_assert_int_ge(
		asprintf(&m,
			 "{\"schema\":\"postmortem.bundle/1\",\"cluster\":\"lab\","
			 "\"job\":\"42\",\"restart\":0,\"node\":\"n2\",\"files\":[{\"path\":\"%s\","
			 "\"source\":\"kernel_log\",\"node\":\"n2\",\"bytes\":%ld,\"sha256\":\"%s\","
			 "\"status\":\"ok\"}],\"coverage\":[{\"source\":\"gpu_state\",\"status\":"
			 "\"timed_out\",\"reason\":\"nvidia-smi did not answer in 5 s\"}]}",
			 member, bytes, hex + 7),
		0);
	return m;
}

START_TEST(test_bundle_read_and_rejected)
{
	char err[256], p[400];
	const char *k = "[Mon Nov 30 03:11:58 2026] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, x\n";
	struct pm_ruleset *rs = load(NULL, err, sizeof(err));
	struct pm_evidence *ev;
	json_t *v;
	char *m = manifest_for("sources/kernel_log/kernel.log", k, (long)strlen(k));

	mkdir(strcat(strcpy(p, tmp), "/b"), 0755);
	snprintf(p, sizeof(p), "%s/b/n2.tar.zst", tmp);
	write_bundle(p, "sources/kernel_log/kernel.log", k, m, AE_IFREG);
	v = diagnose_dir(rs, "b");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(v, "cause"), "class")),
			 "gpu_hardware");
	ck_assert_str_eq(json_string_value(json_array_get(
				 json_object_get(json_object_get(v, "origin"), "nodes"), 0)),
			 "n2");
	/* the run the collector filed it under, without an accounting record */
	{
		json_t *job = json_object_get(v, "job");
		ck_assert_str_eq(json_string_value(json_object_get(job, "id")), "42");
		ck_assert_str_eq(json_string_value(json_object_get(job, "cluster")), "lab");
		ck_assert(json_is_integer(json_object_get(job, "restart")));
		ck_assert_int_eq(json_integer_value(json_object_get(job, "restart")), 0);
	}
	json_decref(v);
	free(m);

	/* a manifest that lies about the size */
	m = manifest_for("sources/kernel_log/kernel.log", k, 5);
	write_bundle(p, "sources/kernel_log/kernel.log", k, m, AE_IFREG);
	ev = pm_evidence_create(rs);
	ck_assert_int_eq(pm_evidence_add_path(ev, p, err, sizeof(err)), -1);
	ck_assert(strstr(err, "size differs") != NULL);
	pm_evidence_destroy(ev);
	free(m);

	/* escaping names and links */
	m = manifest_for("../../etc/passwd", k, (long)strlen(k));
	write_bundle(p, "../../etc/passwd", k, m, AE_IFREG);
	ev = pm_evidence_create(rs);
	ck_assert_int_eq(pm_evidence_add_path(ev, p, err, sizeof(err)), -1);
	ck_assert(strstr(err, "'..'") != NULL);
	pm_evidence_destroy(ev);
	write_bundle(p, "sources/link", "", m, AE_IFLNK);
	ev = pm_evidence_create(rs);
	ck_assert_int_eq(pm_evidence_add_path(ev, p, err, sizeof(err)), -1);
	ck_assert(strstr(err, "not a regular file") != NULL);
	pm_evidence_destroy(ev);
	free(m);

	/* a corrupt zstd frame */
	{
		FILE *f = fopen(p, "wb");
		fwrite("\x28\xb5\x2f\xfd garbage garbage", 1, 20, f);
		fclose(f);
	}
	ev = pm_evidence_create(rs);
	ck_assert_int_eq(pm_evidence_add_path(ev, p, err, sizeof(err)), -1);
	ck_assert(strstr(err, "not a valid evidence bundle") != NULL);
	pm_evidence_destroy(ev);
	pm_ruleset_destroy(rs);
}
END_TEST

/* The file's bytes, and their SHA-256 as "sha256:...". */
static char *file_bytes(const char *p, size_t *n, char hex[80])
{
	FILE *f = fopen(p, "rb");
	char *b = malloc(1 << 20);
	struct pm_sha256 c;
	unsigned char d[32];

	ck_assert_ptr_nonnull(f);
	*n = fread(b, 1, 1 << 20, f);
	fclose(f);
	pm_sha256_init(&c);
	pm_sha256_update(&c, b, *n);
	pm_sha256_final(&c, d);
	pm_sha256_hex(d, hex);
	return b;
}

static char *dump_of(struct pm_evidence *ev)
{
	char err[256], *t;
	json_t *v = pm_diagnose(ev, err, sizeof(err));

	ck_assert_msg(v != NULL, "%s", err);
	t = pm_verdict_dump(v);
	json_decref(v);
	return t;
}

/* pm_evidence_add_bundle: one read gives the manifest and the file's digest; a rejected
 * bundle adds nothing, even when its first entries were good; the set's one zstd context
 * serves bundle after bundle, a corrupt one included. */
START_TEST(test_bundle_read_once)
{
	char err[256], good[400], half[400], cut[400], plain[400], sha[72], hex[80], *m, *hm;
	const char *k = "[Mon Nov 30 03:11:58 2026] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, x\n";
	struct pm_ruleset *rs = load(NULL, err, sizeof(err));
	struct pm_evidence *ev, *ref;
	json_t *man = NULL;
	uint64_t bytes = 0;
	size_t n;
	char *b, *d1, *d2;
	FILE *f;

	mkdir(strcat(strcpy(good, tmp), "/rb"), 0755);
	snprintf(good, sizeof(good), "%s/rb/n2.tar.zst", tmp);
	snprintf(half, sizeof(half), "%s/rb/half.tar.zst", tmp);
	snprintf(cut, sizeof(cut), "%s/rb/cut.tar.zst", tmp);
	snprintf(plain, sizeof(plain), "%s/rb/plain.tar.zst", tmp);
	m = manifest_for("sources/kernel_log/kernel.log", k, (long)strlen(k));
	write_bundle(good, "sources/kernel_log/kernel.log", k, m, AE_IFREG);
	/* the same good entry, then one for a member the bundle lacks */
	hm = strdup(m);
	{
		char *at = strstr(hm, "}],\"coverage\"");
		char *t;
		ck_assert_ptr_nonnull(at);
		*at = '\0';
		ck_assert_int_ge(
			asprintf(&t,
				 "%s},{\"path\":\"sources/app/gone.log\",\"source\":\"app_log\","
				 "\"bytes\":1,\"sha256\":\"00\"}],\"coverage\":[]}",
				 hm),
			0);
		free(hm);
		hm = t;
	}
	write_bundle(half, "sources/kernel_log/kernel.log", k, hm, AE_IFREG);
	plain_tar = true;
	write_bundle(plain, "sources/kernel_log/kernel.log", k, m, AE_IFREG);
	plain_tar = false;

	ev = pm_evidence_create(rs);
	ck_assert_int_eq(pm_evidence_add_bundle(ev, half, &man, sha, &bytes, err, sizeof(err)), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_msg(strstr(err, "lacks") != NULL, "%s", err);
	ck_assert_ptr_nonnull(man); /* parsed, though the bundle was refused */
	ck_assert_str_eq(json_string_value(json_object_get(man, "node")), "n2");
	json_decref(man);
	b = file_bytes(half, &n, hex);
	ck_assert_str_eq(sha, hex);
	ck_assert_uint_eq(bytes, n);
	free(b);

	/* a truncated copy: refused, and the context still serves the next bundle */
	b = file_bytes(good, &n, hex);
	f = fopen(cut, "wb");
	fwrite(b, 1, n / 2, f);
	fclose(f);
	free(b);
	ck_assert_int_eq(pm_evidence_add_bundle(ev, cut, NULL, NULL, NULL, err, sizeof(err)), -1);
	ck_assert(strstr(err, "not a valid evidence bundle") != NULL);

	ck_assert_int_eq(pm_evidence_add_bundle(ev, good, &man, sha, &bytes, err, sizeof(err)), 0);
	ck_assert_str_eq(sha, hex);
	ck_assert_uint_eq(bytes, n);
	ck_assert_str_eq(json_string_value(json_object_get(man, "schema")), "postmortem.bundle/1");
	json_decref(man);

	/* nothing of the refused bundles is in the verdict: the same as the good one alone */
	ref = pm_evidence_create(rs);
	ck_assert_int_eq(pm_evidence_add_path(ref, good, err, sizeof(err)), 0);
	d1 = dump_of(ev);
	d2 = dump_of(ref);
	ck_assert_str_eq(d1, d2);
	free(d1);
	free(d2);
	pm_evidence_destroy(ref);
	pm_evidence_destroy(ev);

	/* refused for a member after the manifest: the manifest is still handed back */
	write_bundle(cut, "sources/link", "", m, AE_IFLNK);
	ev = pm_evidence_create(rs);
	ck_assert_int_eq(pm_evidence_add_bundle(ev, cut, &man, sha, &bytes, err, sizeof(err)), -1);
	ck_assert(strstr(err, "not a regular file") != NULL);
	ck_assert_ptr_nonnull(man);
	ck_assert_str_eq(json_string_value(json_object_get(man, "node")), "n2");
	ck_assert_str_ne(sha, "");
	json_decref(man);
	pm_evidence_destroy(ev);

	/* a plain tar under the bundle's name is read as before */
	ev = pm_evidence_create(rs);
	ck_assert_int_eq(pm_evidence_add_bundle(ev, plain, NULL, NULL, NULL, err, sizeof(err)), 0);
	d1 = dump_of(ev);
	ck_assert(strstr(d1, "plain.tar.zst/sources/kernel_log/kernel.log") != NULL);
	free(d1);
	pm_evidence_destroy(ev);
	free(hm);
	free(m);
	pm_ruleset_destroy(rs);
}
END_TEST

/* The manifest is read by the engine's own JSON reader when it is plain, by jansson when it
 * is not (escapes, non-ASCII): the same bundle either way; malformed JSON is refused with
 * jansson's message. */
START_TEST(test_manifest_forms)
{
	char err[256], p[400], *m, *d;
	const char *k = "[Mon Nov 30 03:11:58 2026] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, x\n";
	const char *reasons[2] = {"nvidia-smi did not answer in 5 s",
				  "nvidia-smi said \\\"no\\\" \\u00e9t\\u00e9"};
	const char *decoded[2] = {"nvidia-smi did not answer in 5 s",
				  "nvidia-smi said \"no\" \u00e9t\u00e9"};
	struct pm_ruleset *rs = load(NULL, err, sizeof(err));
	struct pm_evidence *ev;
	struct pm_sha256 c;
	unsigned char dg[32];
	char hex[80];

	pm_sha256_init(&c);
	pm_sha256_update(&c, k, strlen(k));
	pm_sha256_final(&c, dg);
	pm_sha256_hex(dg, hex);
	mkdir(strcat(strcpy(p, tmp), "/mf"), 0755);
	snprintf(p, sizeof(p), "%s/mf/n2.tar.zst", tmp);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_ge(
			asprintf(
				&m,
				" {\"schema\" : \"postmortem.bundle/1\", \"cluster\":\"lab\",\n"
				"\"job\":\"42\",\"restart\":0,\"node\":\"n2\",\"x\":[1.5e3,-2,true,false,"
				"null,{},[]],\"collected\":{\"deadline_hit\":false},\r\n\"files\":[{"
				"\"path\":\"sources/kernel_log/kernel.log\",\"source\":\"kernel_log\","
				"\"node\":\"n2\",\"bytes\":%zu,\"sha256\":\"%s\",\"status\":\"ok\"}],"
				"\"coverage\":[{\"source\":\"gpu_state\",\"status\":\"timed_out\","
				"\"reason\":\"%s\"}]%s}\t\n",
				strlen(k), hex + 7, reasons[i % 2], i == 2 ? "," : ""),
			0);
		write_bundle(p, "sources/kernel_log/kernel.log", k, m, AE_IFREG);
		free(m);
		ev = pm_evidence_create(rs);
		if (i == 2) { /* a trailing comma: not JSON */
			ck_assert_int_eq(pm_evidence_add_path(ev, p, err, sizeof(err)), -1);
			ck_assert_msg(strstr(err, "manifest.json line") != NULL, "%s", err);
			pm_evidence_destroy(ev);
			break;
		}
		ck_assert_int_eq(pm_evidence_add_path(ev, p, err, sizeof(err)), 0);
		d = dump_of(ev);
		ck_assert_msg(strstr(d, "gpu_hardware") != NULL, "%s", d);
		{
			json_t *v = json_loads(d, 0, NULL), *cv, *g;
			size_t j, gi;
			bool found = false;
			json_array_foreach(json_object_get(v, "coverage"), gi, g)
				json_array_foreach(json_object_get(g, "problems"), j, cv)
			{
				const char *r = json_string_value(json_object_get(cv, "reason"));
				if (r && !strcmp(r, decoded[i]))
					found = true;
			}
			ck_assert_msg(found, "no coverage reason '%s' in %s", decoded[i], d);
			json_decref(v);
		}
		free(d);
		pm_evidence_destroy(ev);
	}
	pm_ruleset_destroy(rs);
}
END_TEST

/* ---- clock skew between nodes ---- */

/* A node's bundle NODE.tar.zst in DIR: its kernel log KLOG, its collector's start CSTART
 * (the node's clock) in the manifest. */
static void skew_bundle(const char *dir, const char *node, const char *klog, const char *cstart)
{
	struct pm_sha256 c;
	unsigned char d[32];
	char hex[80], p[400], *m;

	pm_sha256_init(&c);
	pm_sha256_update(&c, klog, strlen(klog));
	pm_sha256_final(&c, d);
	pm_sha256_hex(d, hex);
	ck_assert_int_ge(
		asprintf(&m,
			 "{\"schema\":\"postmortem.bundle/1\",\"cluster\":\"lab\",\"job\":\"77\","
			 "\"restart\":0,\"node\":\"%s\",\"collected\":{\"start\":\"%s\","
			 "\"end\":\"%s\",\"deadline_hit\":false},\"files\":[{\"path\":"
			 "\"sources/kernel_log/%s.log\",\"source\":\"kernel_log\",\"node\":\"%s\","
			 "\"bytes\":%zu,\"sha256\":\"%s\",\"status\":\"ok\"}],\"coverage\":[]}",
			 node, cstart, cstart, node, node, strlen(klog), hex + 7),
		0);
	snprintf(p, sizeof(p), "%s/%s", tmp, dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/%s/%s.tar.zst", tmp, dir, node);
	snprintf(hex, sizeof(hex), "sources/kernel_log/%s.log", node);
	write_bundle(p, hex, klog, m, AE_IFREG);
	free(m);
}

/* The job ran 03:11:00-03:12:00 by the controller's clock, on n1 and n2; n1's ranks time out,
 * n2's fall silent. */
static void skew_job(const char *dir)
{
	char rel[300];

	snprintf(rel, sizeof(rel), "%s/sacct.txt", dir);
	pmt_mk(tmp, rel,
	       "JobID|JobIDRaw|State|ExitCode|Start|End|NodeList|NNodes|NTasks\n"
	       "77|77|FAILED|15:0|2026-11-30T03:11:00|2026-11-30T03:12:00|n[1-2]|2|\n"
	       "77.0|77.0|CANCELLED|0:15|2026-11-30T03:11:00|2026-11-30T03:12:00|n[1-2]|2|4\n");
	snprintf(rel, sizeof(rel), "%s/slurm-77.out", dir);
	pmt_mk(tmp, rel,
	       "0: hello\n1: hello\n2: hello\n3: hello\n"
	       "0: [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE\n"
	       "1: [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE\n");
}

static bool why_has(const json_t *v, const char *a, const char *b)
{
	size_t i;
	json_t *w;

	json_array_foreach(json_object_get(v, "why"), i, w)
	{
		const char *s = json_string_value(w);
		if (s && strstr(s, a) && (!b || strstr(s, b)))
			return true;
	}
	return false;
}

static const char *vstr(const json_t *v, const char *obj, const char *key)
{
	return json_string_value(json_object_get(obj ? json_object_get(v, obj) : v, key));
}

static const char *KLOG_N1 = "2026-11-30T03:10:00,000100+00:00 mlx5_core 0000:3d:00.0: Link up\n";

/* A node whose clock is ahead stamps its GPU's loss after the job's end: its collector's
 * start, by the same clock, shows how far ahead it may be; the event is kept, the verdict
 * says so, and the same evidence gives the same bytes in any order.  Where no node's clock
 * is off, an event long after the job's end is still outside the window. */
START_TEST(test_clock_skew_ahead)
{
	char err[256], p1[400], p2[400], *d1, *d2;
	struct pm_ruleset *rs = load(NULL, err, sizeof(err));
	struct pm_evidence *ev;
	json_t *v;

	/* n2 8 s ahead: its Xid (03:11:59.5 on the controller's clock) is stamped 03:12:07.5,
	 * and its collector, started a second after the end, says 03:12:09 */
	skew_job("sk");
	skew_bundle("sk", "n1", KLOG_N1, "2026-11-30T03:12:00.400Z");
	skew_bundle("sk", "n2",
		    "2026-11-30T03:12:07,500000+00:00 NVRM: Xid (PCI:0000:3b:00): 79, pid=9, x\n",
		    "2026-11-30T03:12:09.000Z");
	v = diagnose_dir(rs, "sk");
	ck_assert_str_eq(vstr(v, NULL, "status"), "attributed");
	ck_assert_str_eq(vstr(v, "cause", "class"), "gpu_hardware");
	ck_assert_int_eq(json_array_size(json_object_get(json_object_get(v, "origin"), "nodes")),
			 1);
	ck_assert_str_eq(json_string_value(json_array_get(
				 json_object_get(json_object_get(v, "origin"), "nodes"), 0)),
			 "n2");
	ck_assert_msg(why_has(v, "skew", "n2") && why_has(v, "n2", "9.0 s"),
		      "no word of n2's clock skew: %s", json_dumps(json_object_get(v, "why"), 0));
	ck_assert(!why_has(v, "skew on n1", NULL)); /* 0.4 s: within the tolerance */
	/* kept only through the skew: not more than supported */
	ck_assert_str_eq(vstr(v, NULL, "confidence"), "supported");
	json_decref(v);

	/* same evidence, same bytes, whichever bundle comes first */
	snprintf(p1, sizeof(p1), "%s/sk/n1.tar.zst", tmp);
	snprintf(p2, sizeof(p2), "%s/sk/n2.tar.zst", tmp);
	ev = pm_evidence_create(rs);
	ck_assert_int_eq(pm_evidence_add_path(ev, p1, err, sizeof(err)), 0);
	ck_assert_int_eq(pm_evidence_add_path(ev, p2, err, sizeof(err)), 0);
	snprintf(p1, sizeof(p1), "%s/sk/sacct.txt", tmp);
	ck_assert_int_eq(pm_evidence_add_path(ev, p1, err, sizeof(err)), 0);
	d1 = dump_of(ev);
	pm_evidence_destroy(ev);
	ev = pm_evidence_create(rs);
	ck_assert_int_eq(pm_evidence_add_path(ev, p1, err, sizeof(err)), 0);
	ck_assert_int_eq(pm_evidence_add_path(ev, p2, err, sizeof(err)), 0);
	snprintf(p1, sizeof(p1), "%s/sk/n1.tar.zst", tmp);
	ck_assert_int_eq(pm_evidence_add_path(ev, p1, err, sizeof(err)), 0);
	d2 = dump_of(ev);
	pm_evidence_destroy(ev);
	ck_assert_str_eq(d1, d2);
	ck_assert(strstr(d1, "Clock skew on n2") != NULL);
	free(d1);
	free(d2);

	/* the control: no clock is off (n2's collector began 0.6 s after the end), and an Xid
	 * stamped 30 s after the end is not the job's */
	skew_job("ok");
	skew_bundle("ok", "n1", KLOG_N1, "2026-11-30T03:12:00.400Z");
	skew_bundle("ok", "n2",
		    "2026-11-30T03:12:30,000000+00:00 NVRM: Xid (PCI:0000:3b:00): 79, pid=9, x\n",
		    "2026-11-30T03:12:00.600Z");
	v = diagnose_dir(rs, "ok");
	ck_assert_str_ne(vstr(v, "cause", "class"), "gpu_hardware");
	ck_assert(!why_has(v, "skew", NULL));
	json_decref(v);

	/* nor does a skewed clock let in an event beyond what its skew explains: n2 up to 9 s
	 * ahead, its Xid stamped 30 s after the end */
	skew_job("far");
	skew_bundle("far", "n1", KLOG_N1, "2026-11-30T03:12:00.400Z");
	skew_bundle("far", "n2",
		    "2026-11-30T03:12:30,000000+00:00 NVRM: Xid (PCI:0000:3b:00): 79, pid=9, x\n",
		    "2026-11-30T03:12:09.000Z");
	v = diagnose_dir(rs, "far");
	ck_assert_str_ne(vstr(v, "cause", "class"), "gpu_hardware");
	ck_assert(why_has(v, "Clock skew on n2", NULL));
	json_decref(v);
	pm_ruleset_destroy(rs);
}
END_TEST

/* Two hardware events of different classes on two nodes, 6 s apart by their clocks: beyond
 * the 2 s tolerance, the earlier one leads; when one node's clock may be 9 s ahead, their
 * order is not known and the verdict says it cannot choose. */
START_TEST(test_clock_skew_ordering)
{
	char err[256], *rules;
	struct pm_ruleset *rs;
	json_t *v;

	ck_assert_int_ge(
		asprintf(&rules,
			 "%s"
			 "  - id: xid-74\n"
			 "    class: nvlink\n"
			 "    subclass: nvlink\n"
			 "    role: origin\n"
			 "    strength: strong\n"
			 "    sources: [kernel_log]\n"
			 "    pattern: 'NVRM: Xid \\((?:PCI:)?(?<pci>[0-9a-f:]+)\\): (?<xid>74),'\n"
			 "    summary: 'NVLink error on GPU {pci}'\n",
			 RULES),
		0);
	rs = load(rules, err, sizeof(err));
	ck_assert_msg(rs != NULL, "%s", err);
	for (int skewed = 0; skewed < 2; skewed++) {
		const char *dir = skewed ? "ord1" : "ord0";
		skew_job(dir);
		skew_bundle(
			dir, "n1",
			"2026-11-30T03:11:50,000000+00:00 NVRM: Xid (PCI:0000:3b:00): 74, pid=9, x\n",
			"2026-11-30T03:12:00.400Z");
		skew_bundle(
			dir, "n2",
			"2026-11-30T03:11:56,000000+00:00 NVRM: Xid (PCI:0000:3b:00): 79, pid=9, x\n",
			skewed ? "2026-11-30T03:12:09.000Z" : "2026-11-30T03:12:00.500Z");
		v = diagnose_dir(rs, dir);
		if (!skewed) {
			ck_assert_str_eq(vstr(v, NULL, "status"), "attributed");
			ck_assert_str_eq(vstr(v, "cause", "class"), "nvlink");
			ck_assert(!why_has(v, "skew", NULL));
		} else {
			ck_assert_str_eq(vstr(v, NULL, "status"), "ambiguous");
			ck_assert_str_eq(vstr(v, NULL, "confidence"), "hypothesis");
			ck_assert_msg(why_has(v, "widened to 11.0 s", NULL) &&
					      why_has(v, "Clock skew on n2", NULL),
				      "%s", json_dumps(json_object_get(v, "why"), 0));
		}
		json_decref(v);
	}
	free(rules);
	pm_ruleset_destroy(rs);
}
END_TEST

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

	snprintf(rel, sizeof(rel), "%s/sacct.txt", dir);
	pmt_mk(tmp, rel,
	       "JobID|JobIDRaw|State|ExitCode|Start|End|NodeList|NNodes|NTasks\n"
	       "77|77|FAILED|1:0|2026-11-30T03:11:00|2026-11-30T03:12:00|n[1-2]|2|\n"
	       "77.0|77.0|FAILED|1:0|2026-11-30T03:11:00|2026-11-30T03:12:00|n[1-2]|2|4\n");
	snprintf(rel, sizeof(rel), "%s/slurm-77.out", dir);
	pmt_mk(tmp, rel, out);
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

static Suite *suite(void)
{
	Suite *s = suite_create("engine");
	TCase *t = tcase_create("engine");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_set_timeout(t, 120);
	tcase_add_test(t, test_load_ok);
	tcase_add_test(t, test_load_errors);
	tcase_add_test(t, test_taxonomy_one_table);
	tcase_add_test(t, test_load_missing_dir);
	tcase_add_test(t, test_pathological_pattern);
	tcase_add_test(t, test_user_printed_xid_blames_no_node);
	tcase_add_test(t, test_same_bytes_any_order);
	tcase_add_test(t, test_input_digest);
	tcase_add_test(t, test_prom_sample_event_time);
	tcase_add_test(t, test_empty_folder_is_an_error);
	tcase_add_test(t, test_bad_files_reported_rest_diagnosed);
	tcase_add_test(t, test_silent_rank_is_suspect);
	tcase_add_test(t, test_bundle_read_and_rejected);
	tcase_add_test(t, test_bundle_read_once);
	tcase_add_test(t, test_manifest_forms);
	tcase_add_test(t, test_clock_skew_ahead);
	tcase_add_test(t, test_clock_skew_ordering);
	tcase_add_test(t, test_stale_event_never_origin_by_itself);
	tcase_add_test(t, test_stale_event_explained);
	tcase_add_test(t, test_later_event_keeps_subclass);
	tcase_add_test(t, test_untrusted_hardware_lead);
	tcase_add_test(t, test_single_reporter);
	tcase_add_test(t, test_error_explains_silence);
	tcase_add_test(t, test_rank_placement);
	tcase_add_test(t, test_skew_bounded_by_task_exits);
	tcase_add_test(t, test_kernel_pid_link);
	tcase_add_test(t, test_comment_line);
	tcase_add_test(t, test_fixture_compare);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return pmt_run(suite());
}
