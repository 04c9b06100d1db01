/*
 * check_engine.c - the engine's contracts: the rule loader's errors, trust, determinism,
 * bad input, bundles, the comment line and the fixture comparison.  Each test builds its
 * own small rule set and evidence in a temporary folder.
 *
 * This file holds the shared helpers (check_engine.h), the tests of the rule loader, trust,
 * determinism, the input digest, Prometheus times, bad input and silence, and the suite;
 * bundles and clock skew are in check_engine_bundle.c, partial, untrusted and stale evidence,
 * the comment line and the fixture comparison in check_engine_attribution.c.
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
#include "check_engine.h"

char tmp[256];

void setup(void)
{
	snprintf(tmp, sizeof(tmp), "/tmp/pm-check-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmp));
}

void teardown(void)
{
	pmt_rmtree(tmp);
}

const char *HEADER = "ruleset: t\nversion: \"1\"\n";

const char *RULES =
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

struct pm_ruleset *load(const char *extra, char *err, size_t len)
{
	char p[400];

	pmt_mk(tmp, "rules/ruleset.yaml", HEADER);
	pmt_mk(tmp, "rules/a.yaml", extra ? extra : RULES);
	snprintf(p, sizeof(p), "%s/rules", tmp);
	return pm_ruleset_load(p, err, len);
}

json_t *diagnose_dir(struct pm_ruleset *rs, const char *rel)
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

/* A rule whose scanning form finds a line of no words is marked (rules check's error): an
 * alternative of a look-behind alone leaves ": " to Vectorscan, and the same rule with a
 * literal in that alternative is not marked; neither are the usual rules. */
START_TEST(test_ruleset_broad)
{
	static const char *const forms[][2] = {
		{"'(?:\\[Errno 116\\] |: )(?:Stale file handle|(?<=\\[Errno 116\\] ))'", "1"},
		{"'(?:: )Stale file handle|\\[Errno 116\\] '", "0"},
	};
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		char yaml[2048], err[512];
		unsigned char broad[8];
		snprintf(yaml, sizeof(yaml),
			 "%s  - id: estale\n"
			 "    class: storage\n"
			 "    subclass: io_error\n"
			 "    role: origin\n"
			 "    strength: medium\n"
			 "    sources: [app_log]\n"
			 "    pattern: %s\n"
			 "    summary: 'stale handle'\n",
			 RULES, forms[i][0]);
		struct pm_ruleset *rs = load(yaml, err, sizeof(err));
		ck_assert_msg(rs != NULL, "%s", err);
		ck_assert_uint_eq(pm_ruleset_count(rs), 5);
		ck_assert_int_eq(pm_ruleset_broad(rs, broad), 0);
		for (size_t k = 0; k < 4; k++)
			ck_assert_msg(!broad[k], "rule %s marked", pm_ruleset_rule_id(rs, k));
		ck_assert_int_eq(broad[4], forms[i][1][0] - '0');
		pm_ruleset_destroy(rs);
	}
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
	expect_load_error("rules:\n  - id: a\n    class: application\n    subclass: nan\n"
			  "    role: origin\n    strength: strong\n    sources: [scheduler]\n"
			  "    formats: [slurmctl_log]\n    pattern: 'x'\n    summary: s\n",
			  "unknown format 'slurmctl_log'");
	expect_load_error("rules:\n  - id: a\n    class: application\n    subclass: nan\n"
			  "    role: origin\n    strength: strong\n    sources: [scheduler]\n"
			  "    formats: [dmesg]\n    pattern: 'x'\n    summary: s\n",
			  "format 'dmesg' is of source 'kernel_log', not in its sources");
	expect_load_error("rules:\n  - id: a\n    class: application\n    subclass: nan\n"
			  "    role: origin\n    strength: strong\n    sources: [scheduler]\n"
			  "    formats: []\n    pattern: 'x'\n    summary: s\n",
			  "'formats' must be a non-empty list");
	expect_load_error("rules:\n  - id: a\n    class: gpu_hardware\n    subclass: gpu_lost\n"
			  "    role: origin\n    strength: strong\n    sources: [kernel_log]\n"
			  "    generic: true\n    pattern: 'x'\n    summary: s\n",
			  "'generic' is for software rules");
	expect_load_error("rules:\n  - id: a\n    class: gpu_hardware\n    subclass: gpu_lost\n"
			  "    role: origin\n    strength: strong\n    sources: [kernel_log]\n"
			  "    reasonless: true\n    pattern: 'x'\n    summary: s\n",
			  "'reasonless' is for software rules");
	expect_load_error("rules:\n  - id: a\n    class: application\n    subclass: nan\n"
			  "    role: origin\n    strength: weak\n    sources: [app_log]\n"
			  "    reasonless: yes please\n    pattern: 'x'\n    summary: s\n",
			  "reasonless");
	expect_load_error("rules:\n  - id: a\n    class: gpu_hardware\n    subclass: gpu_lost\n"
			  "    role: origin\n    strength: strong\n    sources: [kernel_log]\n"
			  "    formed: true\n    pattern: 'x'\n    summary: s\n",
			  "'formed' is for software rules");
	expect_load_error("rules:\n  - id: a\n    class: gpu_hardware\n    subclass: ecc\n"
			  "    role: origin\n    strength: strong\n    sources: [kernel_log]\n"
			  "    counter: true\n    pattern: 'x'\n    summary: s\n",
			  "'counter' is for condition rules");
	expect_load_error("rules:\n  - id: a\n    class: application\n    subclass: nan\n"
			  "    role: origin\n    strength: weak\n    sources: [app_log]\n"
			  "    chain: true\n    pattern: 'x'\n    summary: s\n",
			  "'chain' is for context rules");
	expect_load_error("rules:\n  - id: a\n    class: application\n    subclass: nan\n"
			  "    role: origin\n    strength: weak\n    sources: [app_log]\n"
			  "    nonfatal: true\n    pattern: 'x'\n    summary: s\n",
			  "'nonfatal' is for context rules");
	expect_load_error("rules:\n  - id: a\n    class: none\n    role: context\n"
			  "    strength: weak\n    sources: [app_log]\n"
			  "    attached: true\n    pattern: 'x'\n    summary: s\n",
			  "'attached' goes with 'nonfatal'");
	expect_load_error("rules:\n  - id: a\n    class: none\n    role: context\n"
			  "    strength: weak\n    sources: [app_log]\n"
			  "    last: true\n    pattern: 'x'\n    summary: s\n",
			  "'last' is for software origin and confirmation rules");
	expect_load_error("rules:\n  - id: a\n    class: application\n    subclass: nan\n"
			  "    role: origin\n    strength: weak\n    sources: [app_log]\n"
			  "    last: '^BEGIN ('\n    pattern: 'x'\n    summary: s\n",
			  "rule a: last:");
	expect_load_error("rules:\n  - id: a\n    class: application\n    subclass: nan\n"
			  "    role: origin\n    strength: weak\n    sources: [app_log]\n"
			  "    last: ''\n    pattern: 'x'\n    summary: s\n",
			  "'last' must be true, false or a pattern");
	expect_load_error("rules:\n  - id: a\n    class: [oops\n", "a.yaml:");
	{
		/* a generic origin demoted to context in a revised set loads; it is inert there */
		char e[512] = "";
		struct pm_ruleset *rs =
			load("rules:\n  - id: a\n    class: application\n"
			     "    subclass: python_exception\n    role: context\n"
			     "    strength: weak\n    generic: true\n"
			     "    sources: [app_log]\n    pattern: 'x'\n    summary: s\n",
			     e, sizeof(e));
		ck_assert_msg(rs != NULL, "%s", e);
		pm_ruleset_destroy(rs);
	}
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

/* A decision block's every_node containment loads beside node_specific, its id checked
 * (its use: fixtures launch-no-device-every-node, launch-device-busy-every-node). */
START_TEST(test_load_every_node)
{
	static const char *const block =
		"ruleset: t\nversion: \"1\"\nclasses:\n  launch_config/driver:\n"
		"    owner: operators\n"
		"    containment: {id: retry-exclude-node, action: a, owner: user}\n"
		"    node_specific: {id: retry-exclude-node, action: b, owner: user}\n"
		"    every_node: {id: %s, action: c, owner: user}\n"
		"    overturn: o\n    next_test: n\n";
	char err[256], p[400], y[600];
	struct pm_ruleset *rs;

	snprintf(y, sizeof(y), block, "fix-job");
	pmt_mk(tmp, "rules/ruleset.yaml", y);
	pmt_mk(tmp, "rules/a.yaml", RULES);
	snprintf(p, sizeof(p), "%s/rules", tmp);
	rs = pm_ruleset_load(p, err, sizeof(err));
	ck_assert_msg(rs != NULL, "%s", err);
	pm_ruleset_destroy(rs);
	snprintf(y, sizeof(y), block, "exclude-all");
	pmt_mk(tmp, "rules/ruleset.yaml", y);
	ck_assert_ptr_null(pm_ruleset_load(p, err, sizeof(err)));
	ck_assert_msg(strstr(err, "every_node id 'exclude-all'") != NULL, "%s", err);
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

	/* the same line in a kernel log does blame the node, within the job's time (the
	 * accounting record's: with none, a dated kernel line may predate the job) */
	pmt_mk(tmp, "ev2/gpu017/kernel.log",
	       "[Mon Nov 30 03:11:58 2026] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.\n");
	pmt_mk(tmp, "ev2/slurm-7.out", "1: ValueError: bad shape\n");
	pmt_mk(tmp, "ev2/sacct.txt",
	       "JobID|State|ExitCode|Start|End|NodeList|NNodes\n"
	       "7|FAILED|1:0|2026-11-30T03:01:00|2026-11-30T03:12:30|gpu017|1\n");
	v = diagnose_dir(rs, "ev2");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(v, "cause"), "class")),
			 "gpu_hardware");
	/* beside a ValueError, which no GPU fault raises: a tie, not the GPU at supported */
	ck_assert_str_eq(json_string_value(json_object_get(v, "status")), "ambiguous");
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

/* ---- a job output emptied while it was written ---- */

/* V's evidence of rule py-exc: its line and rank. */
static void expect_hole_read(json_t *v)
{
	json_t *e = json_array_get(json_object_get(v, "evidence"), 0);

	ck_assert_str_eq(json_string_value(json_object_get(v, "status")), "attributed");
	ck_assert_str_eq(json_string_value(json_object_get(e, "rule")), "py-exc");
	ck_assert_str_eq(json_string_value(json_object_get(e, "line")), "1: ValueError: bad shape");
	ck_assert_int_eq(json_integer_value(json_object_get(e, "rank")), 1);
}

/* A file truncated while its writer kept its offset starts with a hole of NULs: the text
 * after it is read (sniff_head, line_of), from disk and from memory, whatever the hole's
 * length; a hole inside a line ends the text before it; a file of NULs only stays binary. */
START_TEST(test_output_after_hole)
{
	static const char text[] = "1: ValueError: bad shape\n";
	size_t holes[] = {3000, 9000, 300000}, n, i;
	char err[256], p[400];
	struct pm_ruleset *rs = load(NULL, err, sizeof(err));
	struct pm_evidence *ev;
	char *buf = calloc(1, 300000 + sizeof(text));
	char *cov;
	json_t *v;
	FILE *f;

	ck_assert_ptr_nonnull(buf);
	mkdir(strcat(strcpy(p, tmp), "/hole"), 0755);
	snprintf(p, sizeof(p), "%s/hole/slurm-9.out", tmp);
	for (i = 0; i < sizeof(holes) / sizeof(holes[0]); i++) {
		memset(buf, 0, holes[i]);
		memcpy(buf + holes[i], text, sizeof(text) - 1);
		n = holes[i] + sizeof(text) - 1;
		f = fopen(p, "wb");
		ck_assert_ptr_nonnull(f);
		ck_assert_uint_eq(fwrite(buf, 1, n, f), n);
		fclose(f);
		v = diagnose_dir(rs, "hole");
		expect_hole_read(v);
		json_decref(v);

		ev = pm_evidence_create(rs);
		ck_assert_int_eq(pm_evidence_add_buffer(ev, "slurm-9.out", buf, n, NULL, NULL, 0),
				 0);
		v = pm_diagnose(ev, err, sizeof(err));
		ck_assert_msg(v != NULL, "%s", err);
		expect_hole_read(v);
		json_decref(v);
		pm_evidence_destroy(ev);
	}

	/* a hole inside a line, the head text (data lost under a line cut short, then an
	 * append): the hit's line starts after it */
	for (n = 0, i = 0; i < 400; i++) /* past the head the format is told from */
		n += (size_t)sprintf(buf + n, "0: step %zu | loss 2.3\n", i);
	n += (size_t)sprintf(buf + n, "0: step 400 | lo");
	memset(buf + n, 0, 4096);
	memcpy(buf + n + 4096, text, sizeof(text) - 1);
	n += 4096 + sizeof(text) - 1;
	f = fopen(p, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(buf, 1, n, f), n);
	fclose(f);
	v = diagnose_dir(rs, "hole");
	expect_hole_read(v);
	json_decref(v);

	/* NULs to the end: no text, binary as before (beside a file that is text, without which
	 * diagnose has no usable input) */
	pmt_mk(tmp, "hole/train.log", "step 1 loss 2.3\n");
	f = fopen(p, "wb");
	ck_assert_ptr_nonnull(f);
	memset(buf, 0, 300000);
	ck_assert_uint_eq(fwrite(buf, 1, 300000, f), 300000);
	fclose(f);
	v = diagnose_dir(rs, "hole");
	ck_assert_str_eq(json_string_value(json_object_get(v, "status")), "unknown");
	cov = json_dumps(json_object_get(v, "coverage"), 0);
	ck_assert_ptr_nonnull(cov);
	ck_assert_ptr_nonnull(strstr(cov, "\"status\": \"binary\""));
	free(cov);
	json_decref(v);
	free(buf);
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

/* The reader notes, as it counts a chunk's lines, whether the chunk holds a byte the scan must
 * clean (ESC, CR, a box frame's 0xE2), and the scan trusts that note: colour codes at every
 * place of the vector loop and of its byte tail are still cleaned off before matching. */
START_TEST(test_colour_codes_anywhere_cleaned)
{
	char err[256], rel[64], body[256], pad[128];
	struct pm_ruleset *rs = load(NULL, err, sizeof(err));

	ck_assert_ptr_nonnull(rs);
	for (int n = 0; n < 72; n++) {
		const char *cls;
		json_t *v;

		memset(pad, 'x', (size_t)n);
		pad[n] = '\0';
		snprintf(body, sizeof(body), "0: step %s\n3: \x1b[1;31mKeyError\x1b[0m: 'lr'\n",
			 pad);
		snprintf(rel, sizeof(rel), "c%d/slurm.out", n);
		pmt_mk(tmp, rel, body);
		snprintf(rel, sizeof(rel), "c%d", n);
		v = diagnose_dir(rs, rel);
		cls = json_string_value(json_object_get(json_object_get(v, "cause"), "class"));
		ck_assert_msg(cls && !strcmp(cls, "application"),
			      "padding %d: the coloured KeyError line was not read: %s", n,
			      cls ? cls : "no class");
		json_decref(v);
	}
	pm_ruleset_destroy(rs);
}
END_TEST

/* A rule's alternative anchored at a message's start, not first in its pattern, is read
 * behind a prefix (srun's label, a logger's stamp and level): the scan's prefilter drops
 * every anchor outside a negative lookaround, and the confirmation anchors on the peeled
 * text.  And a program's own level word ("ERROR: ", as LAMMPS prints it) behind another
 * wrapper is where such a pattern may start. */
START_TEST(test_anchors_behind_wrappers)
{
	static const char *const lines[] = {
		"3: Alpha bravo\n",
		"2026-11-30 10:00:01,123 - ERROR - Alpha bravo\n",
		"3: ERROR: charlie delta\n",
		"2026-11-30 10:00:01,123 - ERROR - ERROR: charlie delta\n",
	};
	char err[256], rel[64], body[256];
	struct pm_ruleset *rs = load("rules:\n"
				     "  - id: anchored\n"
				     "    class: application\n"
				     "    subclass: python_exception\n"
				     "    role: origin\n"
				     "    strength: medium\n"
				     "    sources: [app_log]\n"
				     "    pattern: 'zzz qqq|^Alpha bravo$|^ERROR: charlie delta$'\n"
				     "    summary: 'x'\n",
				     err, sizeof(err));

	ck_assert_msg(rs != NULL, "%s", err);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		const char *cls;
		json_t *v;

		snprintf(body, sizeof(body), "%.*s step 1\n%s", (int)strcspn(lines[i], "AEc"),
			 lines[i], lines[i]);
		snprintf(rel, sizeof(rel), "a%zu/slurm.out", i);
		pmt_mk(tmp, rel, body);
		snprintf(rel, sizeof(rel), "a%zu", i);
		v = diagnose_dir(rs, rel);
		cls = json_string_value(json_object_get(json_object_get(v, "cause"), "class"));
		ck_assert_msg(cls && !strcmp(cls, "application"), "%s: not read (%s)", lines[i],
			      cls ? cls : "no class");
		json_decref(v);
	}
	pm_ruleset_destroy(rs);
}
END_TEST

/* ---- one line read by a generic and a specific rule ---- */

/* rules the tests of generic readings share: any exception's last line, a peer's loss */
#define ANY_EXC_RULE                                                                          \
	"  - id: any-exc\n    class: application\n    subclass: python_exception\n"           \
	"    role: origin\n    strength: medium\n    generic: true\n    sources: [app_log]\n" \
	"    pattern: '^(?<exc>[A-Za-z_.]*Error): '\n    summary: '{exc}'\n"
#define PEER_GONE_RULE                                                                           \
	"  - id: peer-gone\n    class: communication_unattributed\n    subclass: remote_error\n" \
	"    role: cascade\n    strength: weak\n    sources: [app_log]\n"                        \
	"    pattern: 'closed by peer'\n    summary: 'peer gone'\n"

static const char *cause_of(const json_t *v, const char *key)
{
	return json_string_value(json_object_get(json_object_get(v, "cause"), key));
}

/* LOG as DIR/slurm.out, diagnosed under RS: its status is STATUS ("!x": anything but x), its
 * cause's subclass SUB and its outcome OUTCOME where not NULL. */
static void expect_case(struct pm_ruleset *rs, const char *dir, const char *log, const char *status,
			const char *sub, const char *outcome)
{
	char rel[64];
	json_t *v;
	const char *st;

	snprintf(rel, sizeof(rel), "%s/slurm.out", dir);
	pmt_mk(tmp, rel, log);
	v = diagnose_dir(rs, dir);
	st = json_string_value(json_object_get(v, "status"));
	if (status[0] == '!')
		ck_assert_msg(strcmp(st, status + 1), "%s: status %s", dir, st);
	else
		ck_assert_msg(!strcmp(st, status), "%s: status %s, not %s", dir, st, status);
	if (sub)
		ck_assert_str_eq(cause_of(v, "subclass"), sub);
	if (outcome)
		ck_assert_str_eq(json_string_value(json_object_get(v, "outcome")), outcome);
	json_decref(v);
}

/* The specific rule's reading of a line stands over a generic rule's reading of the same line,
 * whatever the specific rule's role; on another line, the generic rule's reading is its own. */
START_TEST(test_generic_yields_on_its_line)
{
	static const char rules[] = "rules:\n" ANY_EXC_RULE "  - id: port-taken\n"
				    "    class: launch_config\n"
				    "    subclass: rendezvous\n"
				    "    role: origin\n"
				    "    strength: strong\n"
				    "    sources: [app_log]\n"
				    "    pattern: 'failed to bind to \\S+ \\(errno: 98'\n"
				    "    summary: 'port taken'\n" PEER_GONE_RULE;
	char err[256];
	struct pm_ruleset *rs = load(rules, err, sizeof(err));

	ck_assert_msg(rs != NULL, "%s", err);
	/* an origin on the same line: it leads alone, no tie with the generic reading */
	expect_case(rs, "g1",
		    "step 1\nRuntimeError: The server socket failed to bind to [::]:29500 (errno: "
		    "98 - Address already in use).\n",
		    "attributed", "rendezvous", NULL);
	/* a cascade on the same line: the line is a consequence, no exception leads */
	expect_case(rs, "g2", "step 1\nRuntimeError: connection closed by peer\n", "!attributed",
		    NULL, NULL);
	/* the same words on two lines: the exception is its own reading, and leads */
	expect_case(rs, "g3", "step 1\nValueError: bad shape\nwarning: connection closed by peer\n",
		    "attributed", "python_exception", NULL);
	/* the origin's group is full (three lines kept a node, rank and file) before the
	 * exception's line: its reading there is kept past the cap, and still stands */
	expect_case(rs, "g4",
		    "step 1\n[W] failed to bind to [::]:29500 (errno: 98)\n"
		    "[W] failed to bind to 0.0.0.0:29500 (errno: 98)\n"
		    "[W] failed to bind to [::]:29500 (errno: 98)\n"
		    "RuntimeError: The server socket failed to bind to [::]:29500 (errno: 98 - "
		    "Address already in use).\n",
		    "attributed", "rendezvous", NULL);
	pm_ruleset_destroy(rs);
}
END_TEST

/* What is kept past a group's cap for a generic reading to yield to is bounded: a retry
 * loop's thousand exception lines of a port in use keep at most as many again as the cap
 * (three), and the rest are counted on the group's first line. */
START_TEST(test_past_cap_bounded)
{
	static const char rules[] = "rules:\n" ANY_EXC_RULE "  - id: port-taken\n"
				    "    class: launch_config\n"
				    "    subclass: rendezvous\n"
				    "    role: origin\n"
				    "    strength: strong\n"
				    "    sources: [app_log]\n"
				    "    pattern: 'failed to bind to \\S+ \\(errno: 98'\n"
				    "    summary: 'port taken'\n";
	static const char line[] = "RuntimeError: The server socket failed to bind to [::]:29500 "
				   "(errno: 98 - Address already in use).\n";
	char err[256];
	struct pm_ruleset *rs = load(rules, err, sizeof(err));
	size_t n = 1000, kept = 0, counted = 0;
	char *log = malloc(n * sizeof(line) + 16), *p;
	json_t *v, *e;

	ck_assert_msg(rs != NULL, "%s", err);
	ck_assert_ptr_nonnull(log);
	p = log + sprintf(log, "step 1\n");
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "%s", line);
	pmt_mk(tmp, "cap/slurm.out", log);
	free(log);
	v = diagnose_dir(rs, "cap");
	ck_assert_str_eq(cause_of(v, "subclass"), "rendezvous");
	json_array_foreach(json_object_get(v, "evidence"), n, e)
	{
		if (strcmp(json_string_value(json_object_get(e, "rule")), "port-taken"))
			continue;
		kept++;
		counted += 1 + (size_t)json_integer_value(json_object_get(e, "repeats"));
	}
	ck_assert_uint_le(kept, 6);
	ck_assert_uint_ge(kept, 3);
	ck_assert_uint_eq(counted, 1000);
	json_decref(v);
	pm_ruleset_destroy(rs);
}
END_TEST

/* A line that a specific reading and two generic ones read, the first generic rule to hit
 * it not matching it (its anchor is not met), still yields: the specific reading is kept
 * past its group's cap (three warnings filled it), and the second generic reading is set
 * aside for it.  Without that the verdict was a tie. */
START_TEST(test_yield_past_cap_second_generic)
{
	static const char rules[] = "rules:\n"
				    "  - id: anchored-exc\n"
				    "    class: application\n"
				    "    subclass: python_exception\n"
				    "    role: origin\n"
				    "    strength: medium\n"
				    "    generic: true\n"
				    "    sources: [app_log]\n"
				    "    pattern: '^(?<exc>RuntimeError): '\n"
				    "    summary: '{exc}'\n"
				    "  - id: socket-failed\n"
				    "    class: application\n"
				    "    subclass: python_exception\n"
				    "    role: origin\n"
				    "    strength: medium\n"
				    "    generic: true\n"
				    "    sources: [app_log]\n"
				    "    pattern: 'socket failed to \\w+'\n"
				    "    summary: 'socket failed'\n"
				    "  - id: port-taken\n"
				    "    class: launch_config\n"
				    "    subclass: rendezvous\n"
				    "    role: origin\n"
				    "    strength: strong\n"
				    "    sources: [app_log]\n"
				    "    pattern: 'failed to bind to \\S+ \\(errno: 98'\n"
				    "    summary: 'port taken'\n";
	static const char log[] =
		"step 1\n"
		"[W410 socket.cpp:464] The server socket has failed to bind to [::]:29500 (errno: 98 "
		"- Address already in use).\n"
		"[W410 socket.cpp:464] The server socket has failed to bind to 0.0.0.0:29500 (errno: "
		"98 - Address already in use).\n"
		"[E410 socket.cpp:502] The server socket has failed to bind to 127.0.0.1:29500 (errno: "
		"98 - Address already in use).\n"
		"worker3 RuntimeError: The server socket failed to bind to [::]:29500 (errno: 98 - "
		"Address already in use).\n";
	char err[256];
	struct pm_ruleset *rs = load(rules, err, sizeof(err));
	json_t *v;

	ck_assert_msg(rs != NULL, "%s", err);
	pmt_mk(tmp, "yield2/slurm.out", log);
	v = diagnose_dir(rs, "yield2");
	ck_assert_str_eq(json_string_value(json_object_get(v, "status")), "attributed");
	ck_assert_str_eq(cause_of(v, "subclass"), "rendezvous");
	json_decref(v);
	pm_ruleset_destroy(rs);
}
END_TEST

/* Folder DIR made of FILES ({name, text} pairs up to a NULL name) diagnosed with the bundled
 * rules: the cause's subclass is WANT. */
static void folder_expect(const char *dir, const char *const files[][2], const char *want)
{
	char err[256], path[128];
	struct pm_ruleset *rs = load(NULL, err, sizeof(err));
	json_t *v;

	ck_assert_msg(rs != NULL, "%s", err);
	for (size_t k = 0; files[k][0]; k++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[k][0]);
		pmt_mk(tmp, path, files[k][1]);
	}
	v = diagnose_dir(rs, dir);
	ck_assert_msg(cause_of(v, "subclass") && !strcmp(cause_of(v, "subclass"), want),
		      "%s: %s, not %s", dir, cause_of(v, "subclass"), want);
	json_decref(v);
	pm_ruleset_destroy(rs);
}

static const char zone_out[] = "Traceback (most recent call last):\nValueError: bad\n";

/* The record's local times in a log whose offset changes (a daylight saving change back):
 * a start in the hour the change repeats is read as the later of its two instants, so that
 * a GPU lost in the first pass of that hour, an earlier job's, is not in the window; the same
 * Xid after the start's later instant is. */
START_TEST(test_record_zone_repeated_hour)
{
	static const char sacct[] =
		"JobID|JobName|User|State|ExitCode|Start|End|NodeList|NNodes|NTasks\n"
		"881|t|u|FAILED|1:0|2026-10-25T02:30:00|2026-10-25T03:10:00|fe07|1|\n";
	static const char xid[] =
		" fe07 kernel: NVRM: Xid (PCI:0000:c1:00): 79, pid=9, GPU has fallen off the bus.\n";
	static const char *const cron[] =
		{"2026-10-25T02:10:00.000000+02:00 fe07 CRON[1]: (root) CMD (true)\n",
		 "2026-10-25T02:59:59.000000+02:00 fe07 CRON[2]: (root) CMD (true)\n",
		 "2026-10-25T02:00:01.000000+01:00 fe07 CRON[3]: (root) CMD (true)\n",
		 "2026-10-25T03:30:00.000000+01:00 fe07 CRON[4]: (root) CMD (true)\n"};
	char first[1024], later[1024];

	/* the Xid at 00:40Z, in the hour's first pass, before the change's lines */
	snprintf(first, sizeof(first), "%s2026-10-25T02:40:00.000000+02:00%s%s%s%s", cron[0], xid,
		 cron[1], cron[2], cron[3]);
	/* the Xid at 01:40Z, in the hour's second pass, after them */
	snprintf(later, sizeof(later), "%s%s%s2026-10-25T02:40:00.000000+01:00%s%s", cron[0],
		 cron[1], cron[2], xid, cron[3]);
	folder_expect("zr0",
		      (const char *const[][2]){{"sacct.txt", sacct},
					       {"slurm-881.out", zone_out},
					       {"fe07-syslog", first},
					       {NULL, NULL}},
		      "python_exception");
	folder_expect("zr1",
		      (const char *const[][2]){{"sacct.txt", sacct},
					       {"slurm-881.out", zone_out},
					       {"fe07-syslog", later},
					       {NULL, NULL}},
		      "gpu_lost");
}
END_TEST

/* A record's end given as its start and run time (no End, an Elapsed) across a change back:
 * the end is the start's instant plus the run time, not that sum read as a local time of its
 * own (an hour late), which took in the next job's Xid half an hour after the end. */
START_TEST(test_record_zone_end_from_elapsed)
{
	static const char sacct[] =
		"JobID|JobName|User|State|ExitCode|Start|End|Elapsed|NodeList|NNodes|NTasks\n"
		"881|t|u|FAILED|1:0|2026-10-31T20:00:00|Unknown|12:00:00|gn7|1|\n";
	static const char klog[] =
		"2026-10-31T19:59:40.000100-04:00 gn7 kernel: nvidia-uvm: Loaded the UVM driver.\n"
		"2026-11-01T01:40:00.000000-04:00 gn7 kernel: EXT4-fs (nvme0n1p2): re-mounted.\n"
		"2026-11-01T01:10:00.000000-05:00 gn7 kernel: EXT4-fs (nvme0n1p2): re-mounted.\n"
		"2026-11-01T07:30:50.100417-05:00 gn7 kernel: NVRM: Xid (PCI:0000:41:00): 79, "
		"pid=9, GPU has fallen off the bus.\n";

	folder_expect("ze",
		      (const char *const[][2]){{"sacct.txt", sacct},
					       {"slurm-881.out", zone_out},
					       {"gn7-kern.log", klog},
					       {NULL, NULL}},
		      "python_exception");
}
END_TEST

/* A change of offset in a sparse kernel log after the job: the job's own Xid is the last line
 * before it, the next one hours later in the new offset.  A line in the old offset after the
 * start's instant proves the start's offset; the gap between the change's two lines does not
 * make it either (the window lost its first hour, and the Xid with it). */
START_TEST(test_record_zone_sparse_change)
{
	static const char sacct[] =
		"JobID|JobName|User|State|ExitCode|Start|End|NodeList|NNodes|NTasks\n"
		"882|t|u|FAILED|1:0|2026-10-24T22:00:00|2026-10-24T23:30:00|fe07|1|\n";
	static const char klog[] =
		"2026-10-24T21:00:01.000000+02:00 fe07 CRON[1]: (root) CMD (true)\n"
		"2026-10-24T22:10:27.802215+02:00 fe07 kernel: NVRM: Xid (PCI:0000:c1:00): 79, "
		"pid=9, GPU has fallen off the bus.\n"
		"2026-10-25T09:02:47.330119+01:00 fe07 kernel: nvidia 0000:c1:00.0: enabling device\n";

	folder_expect("zs",
		      (const char *const[][2]){{"sacct.txt", sacct},
					       {"slurm-882.out", zone_out},
					       {"fe07-syslog", klog},
					       {NULL, NULL}},
		      "gpu_lost");
}
END_TEST

/* A central loghost's syslog of two hosts in two zones is no daylight saving change: its
 * offsets do not move the record (which read an hour off took in the next job's Xid). */
START_TEST(test_record_zone_mixed_hosts)
{
	static const char sacct[] =
		"JobID|JobName|User|State|ExitCode|Start|End|NodeList|NNodes|NTasks\n"
		"883|t|u|FAILED|1:0|2026-10-26T10:15:00|2026-10-26T10:16:30|fe07|1|\n";
	static const char messages[] =
		"2026-10-26T08:00:01.000000+01:00 fe07 CRON[1]: (root) CMD (true)\n"
		"2026-10-26T07:30:00.000000Z adm01 CRON[2]: (root) CMD (backup)\n"
		"2026-10-26T09:00:00.000000Z adm01 CRON[3]: (root) CMD (backup)\n"
		"2026-10-26T11:00:00.000000Z adm01 CRON[4]: (root) CMD (backup)\n";
	static const char klog[] =
		"2026-10-26T07:02:47.000000+01:00 fe07 kernel: nvidia 0000:c1:00.0: enabling device\n"
		"2026-10-26T11:15:40.771420+01:00 fe07 kernel: NVRM: Xid (PCI:0000:c1:00): 79, "
		"pid=9, GPU has fallen off the bus.\n";

	folder_expect("zm",
		      (const char *const[][2]){{"sacct.txt", sacct},
					       {"slurm-883.out", zone_out},
					       {"messages", messages},
					       {"fe07-kern.log", klog},
					       {NULL, NULL}},
		      "python_exception");
}
END_TEST

/* Exceptions joined by a chain line are one failure: a generic one after the chain line
 * yields to a specific reading before it, a generic one before it only to a specific origin
 * after it (a generic head of its own chain to a cascade too); without the chain line, two
 * stay two. */
START_TEST(test_chain_joins_one_failure)
{
	static const char rules[] = "rules:\n" ANY_EXC_RULE "  - id: gpu-oom\n"
				    "    class: resource_limit\n"
				    "    subclass: gpu_oom\n"
				    "    role: origin\n"
				    "    strength: strong\n"
				    "    sources: [app_log]\n"
				    "    pattern: 'CUDA out of memory'\n"
				    "    summary: 'gpu oom'\n" PEER_GONE_RULE "  - id: chained\n"
				    "    class: none\n"
				    "    role: context\n"
				    "    strength: weak\n"
				    "    chain: true\n"
				    "    sources: [app_log]\n"
				    "    pattern: '^During handling of the above exception'\n"
				    "    summary: 'chain'\n"
				    "  - id: head\n"
				    "    class: application\n"
				    "    subclass: python_exception\n"
				    "    role: origin\n"
				    "    strength: medium\n"
				    "    generic: true\n"
				    "    chain: true\n"
				    "    sources: [app_log]\n"
				    "    pattern: '^Fatal error:$'\n"
				    "    summary: 'fatal'\n"
				    "  - id: task-exit\n"
				    "    class: communication_unattributed\n"
				    "    subclass: remote_error\n"
				    "    role: teardown\n"
				    "    strength: weak\n"
				    "    sources: [app_log]\n"
				    "    pattern: 'srun: error: \\S+: task [0-9]+: Exited'\n"
				    "    summary: 'task exit'\n";
	char err[256];
	struct pm_ruleset *rs = load(rules, err, sizeof(err));

	ck_assert_msg(rs != NULL, "%s", err);
	/* the specific one first, the generic one after the chain line */
	expect_case(rs, "c0",
		    "step 1\nRuntimeError: CUDA out of memory\n\nDuring handling of the above "
		    "exception, another exception occurred:\n\n  File \"a.py\", line 3\nKeyError: "
		    "'k'\n",
		    "attributed", "gpu_oom", NULL);
	/* the generic one first, a specific origin after it */
	expect_case(rs, "c1",
		    "step 1\nKeyError: 'k'\nDuring handling of the above exception, another "
		    "exception occurred:\nRuntimeError: CUDA out of memory\n",
		    "attributed", "gpu_oom", NULL);
	/* a peer's error raised while handling a KeyError: the KeyError stays the failure */
	expect_case(rs, "c7",
		    "step 1\nKeyError: 'k'\nDuring handling of the above exception, another "
		    "exception occurred:\nRuntimeError: connection closed by peer\n",
		    "attributed", "python_exception", NULL);
	/* a KeyError raised while handling a peer's error: the peer's loss, only consequences */
	expect_case(rs, "c8",
		    "step 1\nRuntimeError: connection closed by peer\nDuring handling of the above "
		    "exception, another exception occurred:\nKeyError: 'k'\n",
		    "!attributed", NULL, NULL);
	/* a generic head whose reason follows ("Fatal error:" alone): a specific origin in
	 * the reason leads; with none, the head is the failure */
	expect_case(rs, "c5", "step 1\nFatal error:\nCUDA out of memory in the pair kernel\n",
		    "attributed", "gpu_oom", NULL);
	expect_case(rs, "c6", "step 1\nFatal error:\nno decomposition for 12 ranks\n", "attributed",
		    "python_exception", NULL);
	/* a head whose reason is a peer's failure this rank noticed (a cascade): the rank's
	 * report of the peer's loss, not its own error; a teardown after a head with no reason
	 * (srun's task line) is no reason, and the head stays the failure */
	expect_case(rs, "c10", "step 1\nFatal error:\nsocket closed by peer 10.0.0.7\n",
		    "!attributed", NULL, NULL);
	expect_case(rs, "c11",
		    "step 1\nFatal error:\nno decomposition for 12 ranks\nsrun: error: n1: task 0: "
		    "Exited with exit code 1\n",
		    "attributed", "python_exception", NULL);
	/* a logger's stamped record after an unstamped head is a later event, not its reason */
	expect_case(rs, "c13",
		    "step 1\nFatal error:\n[2026-12-02 13:00:11] shutdown: socket closed by peer\n",
		    "attributed", "python_exception", NULL);
	expect_case(rs, "c12",
		    "step 1\nFatal error:\nsrun: error: n1: task 0: Exited with exit code 1\n",
		    "attributed", "python_exception", NULL);
	/* no chain line: two tracebacks, two candidates, a tie */
	expect_case(rs, "c9", "step 1\nRuntimeError: CUDA out of memory\nKeyError: 'k'\n",
		    "ambiguous", NULL, NULL);
	pm_ruleset_destroy(rs);
}
END_TEST

/* An exception printed as not fatal is set aside where a generic rule reads it, and makes no
 * error for the outcome; the same exception without the head leads. */
START_TEST(test_nonfatal_sets_aside)
{
	static const char rules[] = "rules:\n" ANY_EXC_RULE "  - id: ignored\n"
				    "    class: none\n"
				    "    role: context\n"
				    "    strength: weak\n"
				    "    nonfatal: true\n"
				    "    sources: [app_log]\n"
				    "    pattern: '^Exception ignored in'\n"
				    "    summary: 'ignored'\n";
	char err[256];
	struct pm_ruleset *rs = load(rules, err, sizeof(err));

	ck_assert_msg(rs != NULL, "%s", err);
	expect_case(rs, "n1",
		    "step 9 done\nException ignored in: <function X.__del__ at 0x1>\nTraceback "
		    "(most recent call last):\n  File \"x.py\", line 2, in __del__\nAttributeError: "
		    "'X' object has no attribute 'h'\n",
		    "unknown", NULL, "UNKNOWN");
	expect_case(rs, "n2",
		    "step 9 done\nTraceback (most recent call last):\n  File \"x.py\", line 2, in "
		    "f\nAttributeError: 'X' object has no attribute 'h'\n",
		    "attributed", NULL, "FAILED");
	pm_ruleset_destroy(rs);
}
END_TEST

/* An attached nonfatal head (a logger's record "... will retry") sets aside only the
 * exception on the line right after it, not one further on. */
START_TEST(test_nonfatal_attached)
{
	static const char rules[] = "rules:\n" ANY_EXC_RULE "  - id: retry\n"
				    "    class: none\n"
				    "    role: context\n"
				    "    strength: weak\n"
				    "    nonfatal: true\n"
				    "    attached: true\n"
				    "    sources: [app_log]\n"
				    "    pattern: 'will retry$'\n"
				    "    summary: 'retry'\n";
	char err[256];
	struct pm_ruleset *rs = load(rules, err, sizeof(err));

	ck_assert_msg(rs != NULL, "%s", err);
	expect_case(rs, "a1",
		    "2026-11-30 03:10:12,550 ERROR fetch failed, will retry\n"
		    "java.net.ConnectError: Connection refused\nfetched\n",
		    "unknown", NULL, "UNKNOWN");
	expect_case(rs, "a2",
		    "2026-11-30 03:10:12,550 ERROR fetch failed, will retry\nfetched\nmerging\n"
		    "java.lang.IllegalStateError: partition 5 has no schema\n",
		    "attributed", NULL, "FAILED");
	pm_ruleset_destroy(rs);
}
END_TEST

/* A rule with 'not_after' does not read a line that comes within PM_NOT_AFTER_LINES lines
 * (blank ones not counted, other writers' counted but not read) after one of the same writer
 * that its not_after pattern reads: the tail of another report (nvidia-smi's "No devices were
 * found" under its lost GPUs' handle lines). Further on, alone, or after another writer's
 * line, it is read. */
START_TEST(test_not_after)
{
	static const char rules[] = "rules:\n"
				    "  - id: none-found\n"
				    "    class: launch_config\n"
				    "    subclass: driver\n"
				    "    role: origin\n"
				    "    strength: strong\n"
				    "    sources: [app_log]\n"
				    "    not_after: '^handle of GPU \\S+: lost$'\n"
				    "    pattern: '^No devices were found\\s*$'\n"
				    "    summary: 'none found'\n";
	static const char cond[] = "rules:\n"
				   "  - id: hot\n"
				   "    class: none\n"
				   "    role: context\n"
				   "    strength: weak\n"
				   "    sources: [gpu_state]\n"
				   "    not_after: 'x'\n"
				   "    condition: 'gpu.temperature > 90'\n"
				   "    summary: 'hot'\n";
	char err[256];
	struct pm_ruleset *rs = load(rules, err, sizeof(err));

	ck_assert_msg(rs != NULL, "%s", err);
	expect_case(rs, "na1", "start\nNo devices were found\n", "attributed", "driver", NULL);
	expect_case(rs, "na2", "handle of GPU 3b: lost\nNo devices were found\n", "unknown", NULL,
		    NULL);
	/* blank lines are not counted: the handle line is still the line before */
	expect_case(rs, "na3", "handle of GPU 3b: lost\n\n\n\n\n\nNo devices were found\n",
		    "unknown", NULL, NULL);
	/* the fourth line back is within reach, the fifth is not */
	expect_case(rs, "na4",
		    "handle of GPU 3b: lost\nloading data\nepoch 1\ncheckpoint saved\n"
		    "No devices were found\n",
		    "unknown", NULL, NULL);
	expect_case(rs, "na5",
		    "handle of GPU 3b: lost\nloading data\nepoch 1\ncheckpoint saved\n"
		    "shutting down\nNo devices were found\n",
		    "attributed", "driver", NULL);
	/* another writer's handle line is not this writer's report */
	expect_case(rs, "na6", "1: handle of GPU 3b: lost\n0: No devices were found\n",
		    "attributed", "driver", NULL);
	expect_case(rs, "na7", "0: handle of GPU 3b: lost\n1: epoch 1\n0: No devices were found\n",
		    "unknown", NULL, NULL);
	/* a structured record's message is read as the pattern reads it, its escapes undone;
	 * one whose undone text differs is not the report */
	expect_case(rs, "na8",
		    "{\"level\": \"error\", \"msg\": \"handle of GPU 3b: \\u006cost\"}\n"
		    "{\"level\": \"error\", \"msg\": \"No devices were found\"}\n",
		    "unknown", NULL, NULL);
	expect_case(rs, "na9",
		    "{\"level\": \"error\", \"msg\": \"handle of GPU 3b: \\\"lost\\\"\"}\n"
		    "{\"level\": \"error\", \"msg\": \"No devices were found\"}\n",
		    "attributed", "driver", NULL);
	pm_ruleset_destroy(rs);
	/* only on pattern rules */
	ck_assert_ptr_null(load(cond, err, sizeof(err)));
	ck_assert_msg(strstr(err, "not_after") != NULL, "%s", err);
}
END_TEST

/* A rule with 'last' reads its line only as the program's last words: the next line of the
 * same writer is none, Slurm's, a shell's trace, or one its pattern reads; the program's own
 * output after it (of the same writer: another rank's is skipped) is the program going on. */
START_TEST(test_last_words)
{
	static const char rules[] = "rules:\n"
				    "  - id: missing\n"
				    "    class: launch_config\n"
				    "    subclass: import\n"
				    "    role: origin\n"
				    "    strength: strong\n"
				    "    sources: [app_log]\n"
				    "    last: '^BEGIN failed'\n"
				    "    pattern: '^Can.t locate \\S+ in @INC'\n"
				    "    summary: 'missing'\n";
	char err[256];
	struct pm_ruleset *rs = load(rules, err, sizeof(err));

	ck_assert_msg(rs != NULL, "%s", err);
	/* the end of the output, the rest of the same report, Slurm's line, a shell's trace */
	expect_case(rs, "l1", "start\nCan't locate A.pm in @INC (x) at a.pl line 3.\n",
		    "attributed", "import", NULL);
	expect_case(rs, "l2",
		    "Can't locate A.pm in @INC (x) at a.pl line 3.\n\n"
		    "BEGIN failed--compilation aborted at a.pl line 3.\n",
		    "attributed", "import", NULL);
	expect_case(rs, "l3",
		    "0: Can't locate A.pm in @INC (x) at a.pl line 3.\n"
		    "srun: error: n1: task 0: Exited with exit code 2\n",
		    "attributed", "import", NULL);
	expect_case(rs, "l4",
		    "Can't locate A.pm in @INC (x) at a.pl line 3.\n+ echo failed\nfailed\n",
		    "attributed", "import", NULL);
	/* the program's own next line: it went on */
	expect_case(rs, "l5",
		    "Can't locate A.pm in @INC (x) at a.pl line 3.\nusing B instead\ndone\n",
		    "unknown", NULL, NULL);
	/* another writer's line is skipped: rank 1's own next line decides */
	expect_case(rs, "l6",
		    "1: Can't locate A.pm in @INC (x) at a.pl line 3.\n0: step 3\n"
		    "1: BEGIN failed--compilation aborted at a.pl line 3.\n0: step 4\n",
		    "attributed", "import", NULL);
	expect_case(rs, "l7",
		    "1: Can't locate A.pm in @INC (x) at a.pl line 3.\n0: step 3\n1: using B\n",
		    "unknown", NULL, NULL);
	pm_ruleset_destroy(rs);
}
END_TEST

/* The output of a file of more than one read chunk (256 KiB: evidence.c's STEP) whose line
 * read by a 'last' rule ends exactly at the first chunk's end, TAIL after it: filler lines
 * no rule reads before it. */
static char *chunk_edge_log(const char *tail)
{
	static const char line[] = "Can't locate A.pm in @INC (x) at a.pl line 3.\n";
	const size_t edge = 256u << 10, ll = sizeof(line) - 1, tl = strlen(tail);
	char *b = malloc(edge + tl + 1);
	size_t p = 0;

	ck_assert_ptr_nonnull(b);
	while (edge - ll - p > 64) {
		int k = snprintf(b + p, 64, "filler %06zu\n", p);
		p += (size_t)k;
	}
	memset(b + p, 'x', edge - ll - p - 1); /* the last filler line, padded to the edge */
	b[edge - ll - 1] = '\n';
	memcpy(b + edge - ll, line, ll);
	memcpy(b + edge, tail, tl + 1);
	return b;
}

/* Whether the line ends its program's output does not depend on where a read chunk ends: the
 * program's own line in the next chunk is its going on, as it is within one chunk; Slurm's
 * line there, or the file's end, leave the line its last words. */
START_TEST(test_last_words_chunk_edge)
{
	static const char rules[] = "rules:\n"
				    "  - id: missing\n"
				    "    class: launch_config\n"
				    "    subclass: import\n"
				    "    role: origin\n"
				    "    strength: strong\n"
				    "    sources: [app_log]\n"
				    "    last: '^BEGIN failed'\n"
				    "    pattern: '^Can.t locate \\S+ in @INC'\n"
				    "    summary: 'missing'\n";
	char err[256], *log;
	struct pm_ruleset *rs = load(rules, err, sizeof(err));

	ck_assert_msg(rs != NULL, "%s", err);
	log = chunk_edge_log("using B instead\ndone\n");
	expect_case(rs, "e1", log, "unknown", NULL, NULL);
	free(log);
	log = chunk_edge_log("\nBEGIN failed--compilation aborted at a.pl line 3.\n");
	expect_case(rs, "e2", log, "attributed", "import", NULL);
	free(log);
	log = chunk_edge_log("srun: error: n1: task 0: Exited with exit code 2\n");
	expect_case(rs, "e3", log, "attributed", "import", NULL);
	free(log);
	log = chunk_edge_log("");
	expect_case(rs, "e4", log, "attributed", "import", NULL);
	free(log);
	pm_ruleset_destroy(rs);
}
END_TEST

/* The output of a file of more than one read chunk whose lines LEAD end exactly at the first
 * chunk's end (256 KiB), TAIL after them: filler lines no rule reads before them. */
static char *chunk_split_log(const char *lead, const char *tail)
{
	const size_t edge = 256u << 10, ll = strlen(lead), tl = strlen(tail);
	char *b = malloc(edge + tl + 1);
	size_t p = 0;

	ck_assert_ptr_nonnull(b);
	while (edge - ll - p > 64) {
		int k = snprintf(b + p, 64, "filler %06zu\n", p);
		p += (size_t)k;
	}
	memset(b + p, 'x', edge - ll - p - 1);
	b[edge - ll - 1] = '\n';
	memcpy(b + edge - ll, lead, ll);
	memcpy(b + edge, tail, tl + 1);
	return b;
}

/* Whether a 'not_after' rule's line is the tail of another report does not depend on where a
 * read chunk ends: the report's lines at the end of the chunk before are read back into, as
 * within one chunk; four lines back are within reach, five are not, as within one chunk. */
START_TEST(test_not_after_chunk_edge)
{
	static const char rules[] = "rules:\n"
				    "  - id: none-found\n"
				    "    class: launch_config\n"
				    "    subclass: driver\n"
				    "    role: origin\n"
				    "    strength: strong\n"
				    "    sources: [app_log]\n"
				    "    not_after: '^handle of GPU \\S+: lost$'\n"
				    "    pattern: '^No devices were found\\s*$'\n"
				    "    summary: 'none found'\n";
	char err[256], *log;
	struct pm_ruleset *rs = load(rules, err, sizeof(err));

	ck_assert_msg(rs != NULL, "%s", err);
	/* the line starts the second chunk, its report's line ends the first */
	log = chunk_split_log("handle of GPU 3b: lost\n", "No devices were found\n");
	expect_case(rs, "nc1", log, "unknown", NULL, NULL);
	free(log);
	/* blank lines at the edge are not counted; the fourth line back is within reach */
	log = chunk_split_log("handle of GPU 3b: lost\nloading data\n\n",
			      "\nepoch 1\nNo devices were found\n");
	expect_case(rs, "nc2", log, "unknown", NULL, NULL);
	free(log);
	/* the fifth is not */
	log = chunk_split_log("handle of GPU 3b: lost\nloading data\nepoch 1\n",
			      "checkpoint saved\nshutting down\nNo devices were found\n");
	expect_case(rs, "nc3", log, "attributed", "driver", NULL);
	free(log);
	/* another writer's report is not this writer's */
	log = chunk_split_log("1: handle of GPU 3b: lost\n", "0: No devices were found\n");
	expect_case(rs, "nc4", log, "attributed", "driver", NULL);
	free(log);
	pm_ruleset_destroy(rs);
}
END_TEST

/* A rule with 'not_beside' does not read a row of a listing where the same listing (the read
 * chunk) holds text its pattern reads, before or after the row, over several lines (ibstat's
 * port "Down" beside an InfiniBand port "Active": an unused port).  Where nothing answers it,
 * or the answer lies in the chunk before, the row is read. */
START_TEST(test_not_beside)
{
	static const char rules[] = "rules:\n"
				    "  - id: port-down\n"
				    "    class: launch_config\n"
				    "    subclass: driver\n"
				    "    role: origin\n"
				    "    strength: strong\n"
				    "    sources: [app_log]\n"
				    "    not_beside: '^port up\\n(?:[^\\n]*\\n){0,2}?kind: ib$'\n"
				    "    pattern: '^port down$'\n"
				    "    summary: 'port down'\n";
	static const char cond[] = "rules:\n"
				   "  - id: hot\n"
				   "    class: none\n"
				   "    role: context\n"
				   "    strength: weak\n"
				   "    sources: [gpu_state]\n"
				   "    not_beside: 'x'\n"
				   "    condition: 'gpu.temperature > 90'\n"
				   "    summary: 'hot'\n";
	char err[256], *log;
	struct pm_ruleset *rs = load(rules, err, sizeof(err));

	ck_assert_msg(rs != NULL, "%s", err);
	expect_case(rs, "nb1", "start\nport down\n", "attributed", "driver", NULL);
	expect_case(rs, "nb2", "port up\nspeed 400\nkind: ib\nport down\n", "unknown", NULL, NULL);
	expect_case(rs, "nb3", "port down\nport up\nkind: ib\n", "unknown", NULL, NULL);
	/* an active port of another kind, or one whose kind is too far on, answers nothing */
	expect_case(rs, "nb4", "port up\nkind: eth\nport down\n", "attributed", "driver", NULL);
	expect_case(rs, "nb5", "port up\na\nb\nc\nkind: ib\nport down\n", "attributed", "driver",
		    NULL);
	/* only the chunk: an answer in the chunk before does not reach */
	log = chunk_split_log("port up\nkind: ib\n", "port down\n");
	expect_case(rs, "nb6", log, "attributed", "driver", NULL);
	free(log);
	pm_ruleset_destroy(rs);
	/* only on pattern rules */
	ck_assert_ptr_null(load(cond, err, sizeof(err)));
	ck_assert_msg(strstr(err, "not_beside") != NULL, "%s", err);
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

/* A job's output from N lines {rank, process group (-1: none named), the watchdog's SeqNum
 * (-1: no timeout line), last enqueued, last completed (-1: no status line)}, each behind
 * srun's label; a static buffer. */
static const char *seqlog(const long (*l)[5], size_t n)
{
	static char b[4096];
	size_t m = 0;

	for (size_t i = 0; i < n && m < sizeof(b) - 256; i++) {
		char pg[32] = "";
		if (l[i][1] >= 0)
			snprintf(pg, sizeof(pg), "PG %ld ", l[i][1]);
		if (l[i][2] >= 0)
			m += (size_t)snprintf(b + m, sizeof(b) - m,
					      "%ld: [%sRank 0] Watchdog caught collective operation "
					      "timeout: WorkNCCL(SeqNum=%ld, OpType=ALLREDUCE\n",
					      l[i][0], pg, l[i][2]);
		if (l[i][3] >= 0)
			m += (size_t)snprintf(b + m, sizeof(b) - m,
					      "%ld: [%sRank 0] last enqueued NCCL work: %ld, last "
					      "completed NCCL work: %ld\n",
					      l[i][0], pg, l[i][3], l[i][4]);
	}
	return b;
}

/* The origin's ranks of DIR's verdict (LOG as DIR/slurm.out under RS), as "1,2" ("" none),
 * and its cause's subclass SUB. */
static void expect_ranks(struct pm_ruleset *rs, const char *dir, const char *log, const char *sub,
			 const char *ranks)
{
	char rel[64], got[64] = "";
	size_t m = 0;
	json_t *v, *r;

	snprintf(rel, sizeof(rel), "%s/slurm.out", dir);
	pmt_mk(tmp, rel, log);
	v = diagnose_dir(rs, dir);
	ck_assert_msg(!strcmp(cause_of(v, "subclass"), sub), "%s: cause %s, not %s", dir,
		      cause_of(v, "subclass"), sub);
	r = json_object_get(json_object_get(v, "origin"), "ranks");
	for (size_t i = 0; i < json_array_size(r) && m < sizeof(got) - 12; i++)
		m += (size_t)snprintf(got + m, sizeof(got) - m, "%s%lld", i ? "," : "",
				      (long long)json_integer_value(json_array_get(r, i)));
	ck_assert_msg(!strcmp(got, ranks), "%s: origin ranks [%s], not [%s]", dir, got, ranks);
	json_decref(v);
}

/* Sequence numbers count within one process group: a sub-group's lower figures blame no
 * rank against the default group's; a rank behind within its own group is still the
 * suspect; a figure on a line that names no group (the timeout's own text) is set against
 * no named group's; the fewest completed collectives are counted within a group too. */
START_TEST(test_seq_within_process_group)
{
	static const char rules[] =
		"rules:\n"
		"  - id: wd\n    class: communication_unattributed\n    subclass: collective_timeout\n"
		"    role: cascade\n    strength: weak\n    sources: [app_log]\n"
		"    pattern: '(?:\\[(?=PG (?<pg>[0-9]+))?(?:PG [0-9]+ )?Rank [0-9]+\\] )?Watchdog "
		"caught collective operation timeout: WorkNCCL\\(SeqNum=(?<seq>[0-9]+)'\n"
		"    summary: 'timeout'\n"
		"  - id: ws\n    class: communication_unattributed\n    subclass: collective_timeout\n"
		"    role: cascade\n    strength: weak\n    sources: [app_log]\n"
		"    pattern: '(?:\\[(?=PG (?<pg>[0-9]+))?(?:PG [0-9]+ )?Rank [0-9]+\\] )?last "
		"enqueued NCCL work: (?<seq>[0-9]+), last completed NCCL work: (?<seqdone>[0-9]+)'\n"
		"    summary: 'status'\n";
	char err[256];
	struct pm_ruleset *rs = load(rules, err, sizeof(err));

	ck_assert_msg(rs != NULL, "%s", err);
	/* ranks 2 and 3 report their sub-group's figures only: nobody is behind */
	expect_ranks(rs, "p1",
		     seqlog((const long[][5]){{0, 0, 100, 101, 99},
					      {1, 0, 100, 101, 99},
					      {2, 2, 40, 41, 39},
					      {3, 2, 40, 41, 39}},
			    4),
		     "collective_timeout", "");
	/* rank 1 is behind in the default group: it alone is the suspect */
	expect_ranks(rs, "p2",
		     seqlog((const long[][5]){{0, 0, 100, 101, 99},
					      {1, 0, 100, 100, 99},
					      {2, 2, 40, 41, 39},
					      {3, 2, 40, 41, 39}},
			    4),
		     "hang", "1");
	/* the timeouts name no group (-1), the status lines do: the groups' figures meet
	 * nowhere */
	expect_ranks(rs, "p3",
		     seqlog((const long[][5]){{0, -1, 100, -1, -1},
					      {0, 0, -1, 101, 99},
					      {1, -1, 100, -1, -1},
					      {1, 0, -1, 101, 99},
					      {2, -1, 40, -1, -1},
					      {2, 2, -1, 41, 39},
					      {3, -1, 40, -1, -1},
					      {3, 2, -1, 41, 39}},
			    8),
		     "collective_timeout", "");
	/* a timeout's SeqNum (its oldest pending) beside a status line of a named group: the
	 * last enqueued counts, rank 3 is not behind; its fewer completed collectives are */
	expect_ranks(rs, "p4",
		     seqlog((const long[][5]){{0, -1, 101, -1, -1},
					      {0, 0, -1, 101, 100},
					      {1, -1, 101, -1, -1},
					      {1, 0, -1, 101, 100},
					      {2, -1, 101, -1, -1},
					      {2, 0, -1, 101, 100},
					      {3, -1, 100, -1, -1},
					      {3, 0, -1, 101, 99}},
			    8),
		     "collective_timeout", "3");
	/* every rank enqueued as far; the sub-group completed fewer than the default group,
	 * which tells nothing: no rank of either is named */
	expect_ranks(rs, "p5",
		     seqlog((const long[][5]){{0, 0, -1, 50, 49},
					      {1, 0, -1, 50, 49},
					      {2, 2, -1, 50, 47},
					      {3, 2, -1, 50, 47}},
			    4),
		     "collective_timeout", "");
	/* within the sub-group, rank 3 completed fewer: it is named */
	expect_ranks(rs, "p6",
		     seqlog((const long[][5]){{0, 0, -1, 50, 49},
					      {1, 0, -1, 50, 49},
					      {2, 2, -1, 50, 47},
					      {3, 2, -1, 50, 46}},
			    4),
		     "collective_timeout", "3");
	/* no line names a group (PyTorch before 2.2): one group, compared as before */
	expect_ranks(rs, "p7",
		     seqlog((const long[][5]){{0, -1, 100, -1, -1},
					      {1, -1, 100, -1, -1},
					      {2, -1, 99, -1, -1},
					      {3, -1, 100, -1, -1}},
			    4),
		     "hang", "2");
	pm_ruleset_destroy(rs);
}
END_TEST

/* The scan peels a line once and shares it between the rank tally, each rule that hit the
 * line and the time stamp reader (scan.c's peel cache): every observation's rank and time
 * are what the line says, whichever of them peeled it first.  Each line has a stamp of its
 * own, so a peel taken for the wrong line would show; one line is hit by two rules, one is
 * a progress bar redrawn (what is kept is the text after its carriage return), one has no
 * stamp. */
START_TEST(test_peel_cache_same_as_fresh)
{
	static const struct {
		int rank;
		const char *time; /* event_time, "" none */
	} want[] = {
		{0, "2026-11-30T03:11:51.000Z"}, {1, "2026-11-30T03:11:52.000Z"},
		{2, "2026-11-30T03:11:57.000Z"}, {3, ""},
		{5, "2026-11-30T03:11:55.000Z"},
	};
	char err[256];
	struct pm_ruleset *rs = load(NULL, err, sizeof(err));
	json_t *v, *evs;
	size_t seen = 0, echo = 0;

	pmt_mk(tmp, "ev/slurm.out",
	       "0: hello\n1: hello\n"
	       "0: [2026-11-30 03:11:51,000] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=77, OpType=ALLREDUCE\n"
	       "1: [2026-11-30 03:11:52,000] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=77, OpType=ALLREDUCE\n"
	       "2: 50%|#####     | 5/10\r2: [2026-11-30 03:11:57,000] [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=77, OpType=ALLREDUCE\n"
	       "3: [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=77, OpType=ALLREDUCE\n"
	       "5: [2026-11-30 03:11:55,000] NVRM: Xid seen; [Rank 5] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=77, OpType=ALLREDUCE\n");
	v = diagnose_dir(rs, "ev");
	evs = json_object_get(v, "evidence");
	for (size_t i = 0; i < json_array_size(evs); i++) {
		json_t *e = json_array_get(evs, i), *t = json_object_get(e, "event_time");
		const char *rule = json_string_value(json_object_get(e, "rule"));
		int rank = (int)json_integer_value(json_object_get(e, "rank"));
		size_t k = 0;

		while (k < sizeof(want) / sizeof(want[0]) && want[k].rank != rank)
			k++;
		ck_assert_msg(k < sizeof(want) / sizeof(want[0]), "rank %d", rank);
		if (!strcmp(rule, "xid-79-echo"))
			echo++;
		else
			ck_assert_str_eq(rule, "watchdog");
		if (want[k].time[0])
			ck_assert_msg(json_is_string(t) &&
					      !strcmp(json_string_value(t), want[k].time),
				      "rank %d (%s): %s, want %s", rank, rule,
				      json_is_string(t) ? json_string_value(t) : "none",
				      want[k].time);
		else
			ck_assert_msg(json_is_null(t), "rank %d: a time", rank);
		seen++;
	}
	ck_assert_int_eq(echo, 1);
	ck_assert_int_eq(seen, 6);
	json_decref(v);
	pm_ruleset_destroy(rs);
}
END_TEST

/* Only the lines a verdict shows are redacted (pm_obs_line), at most 16 a rule: a secret in
 * any line, shown or left out, reaches no part of the verdict, and each shown line is
 * redacted.  40 ranks time out, each with a token of its own on its line. */
START_TEST(test_lazy_redaction_no_secret_out)
{
	char err[256], *text, *dump;
	struct pm_ruleset *rs = load(NULL, err, sizeof(err));
	size_t n = 0, cap = 40 * 200, shown = 0;
	json_t *v, *evs;

	text = malloc(cap);
	ck_assert_ptr_nonnull(text);
	for (int r = 0; r < 40; r++)
		n += (size_t)
			snprintf(text + n, cap - n,
				 "%d: [Rank %d] Watchdog caught collective operation timeout: "
				 "WorkNCCL(SeqNum=77, OpType=ALLREDUCE GH_TOKEN=ghp_Q7mZp2Lk9Vt4Rx8"
				 "Nw3Ys6Bd1Fh5Jc0Ge2K%03d\n",
				 r, r, r);
	pmt_mk(tmp, "ev/slurm.out", text);
	free(text);
	v = diagnose_dir(rs, "ev");
	dump = json_dumps(v, JSON_SORT_KEYS);
	ck_assert_ptr_nonnull(dump);
	ck_assert_msg(!strstr(dump, "ghp_Q7mZp2Lk9Vt4Rx8"), "a token reached the verdict");
	evs = json_object_get(v, "evidence");
	for (size_t i = 0; i < json_array_size(evs); i++) {
		json_t *e = json_array_get(evs, i);
		if (strcmp(json_string_value(json_object_get(e, "rule")), "watchdog"))
			continue;
		ck_assert_ptr_nonnull(
			strstr(json_string_value(json_object_get(e, "line")), "[REDACTED:"));
		shown++;
	}
	ck_assert_uint_eq(shown, 16);
	free(dump);
	json_decref(v);
	pm_ruleset_destroy(rs);
}
END_TEST

/* ---- the bundle writer and a node with a skewed clock (bundle and attribution tests) ---- */

bool plain_tar; /* write_bundle: no zstd */

void write_bundle(const char *path, const char *member, const char *data, const char *manifest,
		  int type)
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

/* A node's bundle NODE.tar.zst in DIR: its kernel log KLOG, its collector's start CSTART
 * (the node's clock) in the manifest. */
void skew_bundle(const char *dir, const char *node, const char *klog, const char *cstart)
{
	char hex[80], p[400], *m;

	pm_sha256_buf(klog, strlen(klog), hex);
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

void job77(const char *dir, const char *exit, const char *step_end, const char *out)
{
	char rel[300], sacct[400];

	snprintf(rel, sizeof(rel), "%s/sacct.txt", dir);
	snprintf(sacct, sizeof(sacct),
		 "JobID|JobIDRaw|State|ExitCode|Start|End|NodeList|NNodes|NTasks\n"
		 "77|77|FAILED|%s|2026-11-30T03:11:00|2026-11-30T03:12:00|n[1-2]|2|\n"
		 "77.0|77.0|%s|2026-11-30T03:11:00|2026-11-30T03:12:00|n[1-2]|2|4\n",
		 exit, step_end);
	pmt_mk(tmp, rel, sacct);
	snprintf(rel, sizeof(rel), "%s/slurm-77.out", dir);
	pmt_mk(tmp, rel, out);
}

/* The job ran 03:11:00-03:12:00 by the controller's clock, on n1 and n2; n1's ranks time out,
 * n2's fall silent. */
void skew_job(const char *dir)
{
	job77(dir, "15:0", "CANCELLED|0:15",
	      "0: hello\n1: hello\n2: hello\n3: hello\n"
	      "0: [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE\n"
	      "1: [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE\n");
}

bool why_has(const json_t *v, const char *a, const char *b)
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

const char *vstr(const json_t *v, const char *obj, const char *key)
{
	return json_string_value(json_object_get(obj ? json_object_get(v, obj) : v, key));
}

/* The text shows an origin of several nodes as Slurm writes a host list; a single node, and
 * names that are no host list, as they are. */
START_TEST(test_text_origin_nodes_as_host_list)
{
	const char *cases[][2] = {
		{"[\"gpu016\",\"gpu017\",\"gpu031\"]", "origin:     nodes gpu[016-017,031]  ranks"},
		{"[\"gpu016\"]", "origin:     nodes gpu016  ranks"},
		{"[]", "origin:     nodes -  ranks"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char js[512];
		json_t *v;
		char *t;

		snprintf(js, sizeof(js),
			 "{\"schema\":\"postmortem.verdict/2\",\"job\":{\"id\":\"7\"},"
			 "\"outcome\":\"FAILED\",\"status\":\"ambiguous\",\"origin\":{\"nodes\":%s,"
			 "\"ranks\":[]},\"bystanders\":{\"nodes\":\"\",\"ranks\":\"\"},\"why\":[]}",
			 cases[i][0]);
		ck_assert_ptr_nonnull(v = json_loads(js, 0, NULL));
		ck_assert_ptr_nonnull(t = pm_verdict_text(v));
		ck_assert_msg(strstr(t, cases[i][1]), "case %zu: %s", i, t);
		free(t);
		json_decref(v);
	}
}
END_TEST

const char *KLOG_N1 = "2026-11-30T03:10:00,000100+00:00 mlx5_core 0000:3d:00.0: Link up\n";

/* A node whose clock is ahead stamps its GPU's loss after the job's end: its collector's
 * start, by the same clock, shows how far ahead it may be; the event is kept, the verdict
 * says so, and the same evidence gives the same bytes in any order.  Where no node's clock
 * is off, an event long after the job's end is still outside the window. */

Suite *pmt_suite(void)
{
	Suite *s = suite_create("engine");
	TCase *t = tcase_create("engine");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_set_timeout(t, 120);
	tcase_add_test(t, test_load_ok);
	tcase_add_test(t, test_ruleset_broad);
	tcase_add_test(t, test_load_errors);
	tcase_add_test(t, test_taxonomy_one_table);
	tcase_add_test(t, test_load_missing_dir);
	tcase_add_test(t, test_load_every_node);
	tcase_add_test(t, test_pathological_pattern);
	tcase_add_test(t, test_user_printed_xid_blames_no_node);
	tcase_add_test(t, test_same_bytes_any_order);
	tcase_add_test(t, test_input_digest);
	tcase_add_test(t, test_output_after_hole);
	tcase_add_test(t, test_prom_sample_event_time);
	tcase_add_test(t, test_empty_folder_is_an_error);
	tcase_add_test(t, test_bad_files_reported_rest_diagnosed);
	tcase_add_test(t, test_colour_codes_anywhere_cleaned);
	tcase_add_test(t, test_anchors_behind_wrappers);
	tcase_add_test(t, test_generic_yields_on_its_line);
	tcase_add_test(t, test_chain_joins_one_failure);
	tcase_add_test(t, test_nonfatal_sets_aside);
	tcase_add_test(t, test_nonfatal_attached);
	tcase_add_test(t, test_last_words);
	tcase_add_test(t, test_not_after);
	tcase_add_test(t, test_not_beside);
	tcase_add_test(t, test_last_words_chunk_edge);
	tcase_add_test(t, test_not_after_chunk_edge);
	tcase_add_test(t, test_past_cap_bounded);
	tcase_add_test(t, test_yield_past_cap_second_generic);
	tcase_add_test(t, test_record_zone_repeated_hour);
	tcase_add_test(t, test_record_zone_end_from_elapsed);
	tcase_add_test(t, test_record_zone_sparse_change);
	tcase_add_test(t, test_record_zone_mixed_hosts);
	tcase_add_test(t, test_silent_rank_is_suspect);
	tcase_add_test(t, test_seq_within_process_group);
	tcase_add_test(t, test_peel_cache_same_as_fresh);
	tcase_add_test(t, test_lazy_redaction_no_secret_out);
	tcase_add_test(t, test_text_origin_nodes_as_host_list);
	engine_bundle_tests(t);
	engine_attribution_tests(t);
	suite_add_tcase(s, t);
	return s;
}
