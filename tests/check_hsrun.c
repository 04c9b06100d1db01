/*
 * check_hsrun.c - scanning finds a match wherever the data lies (engine/hsrun.c).
 *
 * Vectorscan 5.4.9's AVX-512 implementation misses matches of some patterns by the address of
 * their end modulo 64.  Each test scans text of that shape at all 64 placements, in block and
 * in stream mode, through pm_hs_chunk: as the probe chose (the dispatched implementation, an
 * older one the library exports, or two placements), and with two placements forced.  On a CPU without
 * AVX-512 the library is right to begin with and these pass either way; on one with it, the
 * "chosen" tests fail when pm_hs_chunk scans once (tests/scan-placement.sh too).
 *
 * The "prefilter" tests: what Vectorscan is given of a rule's pattern, cut where it can be
 * without losing a line the pattern matches (engine/prefilter.c).
 *
 * The "jit" tests: a rule's patterns run as PCRE2's machine code, and a match that runs out of
 * the code's stack is answered by the interpreter (pm_re_match, engine/rules.c).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ruleset.h"
#include "support.h"

/* rules/slurm.yaml's slurm-chdir-failed, whose match the library's AVX-512 code misses */
static const char pat[] = "couldn't chdir to [`'][^']*': [A-Za-z ]+: going to /tmp instead";
static const char line[] = "slurmstepd-gpu112: error: couldn't chdir to `/gpfs/proj/climate/"
			   "ensemble-member-0042/output folder that was removed': No such file "
			   "or directory: going to /tmp instead\n";
/* rules/gpu.yaml's dcgmi-diag-fail-app, as the rule set's pattern has it, on DCGM 4's table
 * (its rule line, then a failed row): the library's AVX2 and AVX-512 code miss the row at
 * every placement */
static const char table_pat[] =
	"\\|\\s*(?:GPU Memory|Memory|Memory Bandwidth|Memtest|PCIe|SM Stress|Targeted Stress|"
	"Targeted Power|Diagnostic|Pulse Test|EUD|NVBandwidth|Page Retirement/Row Remap|Context "
	"Create|Graphics Processes|Inforom|memory|memory_bandwidth|memtest|pcie|sm_stress|"
	"targeted_stress|targeted_power|diagnostic|pulse_test|eud|nvbandwidth|context_create)"
	"\\s*\\|\\s*Fail\\b";
static const char table_text[] =
	"+-----  Hardware  ----------+------------------------------------------------+\n"
	"| memory                    | Fail                                           |\n";

struct seen {
	unsigned long long to[8];
	int n;
	int stop_after; /* 0: never */
};

static int on_hit(unsigned id, unsigned long long from, unsigned long long to, unsigned flags,
		  void *ctx)
{
	struct seen *s = ctx;

	(void)id;
	(void)from;
	(void)flags;
	if (s->n < 8)
		s->to[s->n] = to;
	s->n++;
	return s->stop_after && s->n >= s->stop_after;
}

/* Scan two copies of TEXT at each of 64 placements for PATTERN (stream mode when STREAM), its
 * match ending at END in each; fail the test at the first placement without both matches, in
 * order. */
static void placements(const char *pattern, const char *text, size_t end, bool stream)
{
	size_t one = strlen(text), len = 2 * one;
	hs_database_t *db = NULL;
	hs_scratch_t *scratch = NULL;
	hs_compile_error_t *ce = NULL;
	char *mem = aligned_alloc(64, (len + 128 + 63) / 64 * 64);

	ck_assert_ptr_nonnull(mem);
	ck_assert_int_eq(hs_compile(pattern, 0, stream ? HS_MODE_STREAM : HS_MODE_BLOCK,
				    pm_hs_platform(), &db, &ce),
			 HS_SUCCESS);
	ck_assert_int_eq(hs_alloc_scratch(db, &scratch), HS_SUCCESS);
	for (int k = 0; k < 64; k++) {
		struct seen s = {{0}, 0, 0};
		hs_stream_t *st = NULL;

		memset(mem, 'x', len + 128);
		memcpy(mem + k, text, one);
		memcpy(mem + k + one, text, one);
		if (stream)
			ck_assert_int_eq(pm_hs_open(db, &st), HS_SUCCESS);
		ck_assert_int_eq(pm_hs_chunk(db, st, mem + k, len, scratch, on_hit, &s),
				 HS_SUCCESS);
		pm_hs_close(st);
		ck_assert_msg(s.n == 2 && s.to[0] == end && s.to[1] == one + end,
			      "%s mode, data at address %% 64 = %d: %d match(es), ends %llu %llu "
			      "(want %zu %zu; %s)",
			      stream ? "stream" : "block", (int)((unsigned long)(mem + k) % 64),
			      s.n, s.to[0], s.to[1], end, one + end, pm_scan_runtime());
	}
	hs_free_scratch(scratch);
	hs_free_database(db);
	free(mem);
}

static void every_placement(bool stream)
{
	placements(pat, line, sizeof(line) - 2, stream);
}

START_TEST(test_chosen_block)
{
	every_placement(false);
}
END_TEST

/* The table's row, through the implementation the probe chose. */
START_TEST(test_chosen_table_row)
{
	size_t end = (size_t)(strstr(table_text, "Fail") - table_text) + 4;

	placements(table_pat, table_text, end, false);
	placements(table_pat, table_text, end, true);
}
END_TEST

START_TEST(test_chosen_stream)
{
	every_placement(true);
}
END_TEST

START_TEST(test_twice_block)
{
	pm_hs_force(PM_HS_TWICE);
	every_placement(false);
}
END_TEST

START_TEST(test_twice_stream)
{
	pm_hs_force(PM_HS_TWICE);
	every_placement(true);
}
END_TEST

/* Two placements hand each hit on once, in order of their end, and a callback's stop stops. */
START_TEST(test_twice_order_and_stop)
{
	static const char *const pats[] = {"error", "warn"};
	static const unsigned ids[] = {0, 1};
	static const char text[] = "warn: a\nerror: b\nwarn: c\n";
	hs_database_t *db = NULL;
	hs_scratch_t *scratch = NULL;
	hs_compile_error_t *ce = NULL;
	struct seen s = {{0}, 0, 0}, t = {{0}, 0, 2};

	pm_hs_force(PM_HS_TWICE);
	ck_assert_int_eq(hs_compile_multi(pats, NULL, ids, 2, HS_MODE_BLOCK, pm_hs_platform(), &db,
					  &ce),
			 HS_SUCCESS);
	ck_assert_int_eq(hs_alloc_scratch(db, &scratch), HS_SUCCESS);
	ck_assert_int_eq(pm_hs_chunk(db, NULL, text, sizeof(text) - 1, scratch, on_hit, &s),
			 HS_SUCCESS);
	ck_assert_int_eq(s.n, 3);
	ck_assert(s.to[0] == 4 && s.to[1] == 13 && s.to[2] == 21);
	ck_assert_int_eq(pm_hs_chunk(db, NULL, text, sizeof(text) - 1, scratch, on_hit, &t),
			 HS_SCAN_TERMINATED);
	ck_assert_int_eq(t.n, 2);
	ck_assert_str_eq(pm_scan_runtime(), "every chunk scanned at two placements (forced)");
	hs_free_scratch(scratch);
	hs_free_database(db);
}
END_TEST

/* What doctor shows names the library and what scans. */
START_TEST(test_runtime_said)
{
	const char *r = pm_scan_runtime();

	ck_assert_msg(!strncmp(r, "Vectorscan ", 11), "%s", r);
	ck_assert_msg(strstr(r, "implementation") || strstr(r, "two placements"), "%s", r);
}
END_TEST

/* ---- what Vectorscan is given of a rule (engine/prefilter.c) ---- */

struct cutcase {
	const char *pattern;
	const char *want[4]; /* the expressions, in order; NULL-ended */
};

static const struct cutcase cuts[] = {
	/* an exception's optional name and its message's lead-ins before the literal */
	{"^(?!.*\\b(?:retrying|retried)\\b).*?(?:(?<exc>\\b[A-Za-z]*(?:OS|IO)Error): )?"
	 "(?:(?:\\[Errno 116\\] |: |; |\\bwhat\\(\\): +)Stale (?:file|NFS file) handle|"
	 ": stale NFS file handle|\\berrno = 116, error message = )$",
	 {"Stale (?:file|NFS file) handle", ": stale NFS file handle",
	  "errno = 116, error message = ", NULL}},
	/* classes and optional groups before a literal */
	{"(?:\\bNCCL WARN |)(?:\\w+: )?(?:Call to \\w+|Accept|[A-Za-z]\\w*) failed ?: Too many "
	 "open files\\s*",
	 {" failed ?: Too many open files\\s*", NULL}},
	/* a pattern that begins with its literal is left as it is */
	{"iteration +[0-9]+/ *[0-9]+ \\| consumed",
	 {"iteration +[0-9]+/ *[0-9]+ \\| consumed", NULL}},
	/* top-level alternatives are split only when one of them is cut */
	{"abc|(?:x)?defghijk", {"abc", "defghijk", NULL}},
	{"abc|defghijk", {"abc|defghijk", NULL}},
	/* dropping what is before a group of short alternatives would find them everywhere */
	{"foo(?:: |\\s*)", {"foo(?:: |\\s*)", NULL}},
	/* an inline option reaches past what would be dropped: whole */
	{"(?i)abc|x?defghijk", {"(?i)abc|x?defghijk", NULL}},
	{"x?(?i)defghijk", {"x?(?i)defghijk", NULL}},
	/* a back reference to a group the cut would drop: whole */
	{"(?<q>['\"])x?\\k<q>defghijk", {"(?<q>['\"])x?\\k<q>defghijk", NULL}},
	{"(a)x?\\1defghijk", {"(a)x?\\1defghijk", NULL}},
	/* an empty alternative matches everywhere, as it did */
	{"abc|", {"abc|", NULL}},
	/* a quantified literal is not a literal run: "x+" is one x at least */
	{"[a-z]+ ab+cdefgh", {"cdefgh", NULL}},
};

START_TEST(test_prefilter_cuts)
{
	const struct cutcase *c = &cuts[_i];
	size_t n = 0, k;
	char **e = pm_prefilter_exprs(c->pattern, &n);

	ck_assert_ptr_nonnull(e);
	for (k = 0; k < n && c->want[k]; k++)
		ck_assert_msg(!strcmp(e[k], c->want[k]), "%s: expression %zu is '%s', want '%s'",
			      c->pattern, k, e[k], c->want[k]);
	ck_assert_msg(k == n && !c->want[k], "%s: %zu expressions", c->pattern, n);
	for (k = 0; k < n; k++) {
		hs_database_t *db = NULL;
		hs_compile_error_t *ce = NULL;
		/* each compiles as the scan compiles it */
		ck_assert_msg(hs_compile(e[k],
					 HS_FLAG_PREFILTER | HS_FLAG_MULTILINE | HS_FLAG_ALLOWEMPTY,
					 HS_MODE_STREAM, pm_hs_platform(), &db, &ce) == HS_SUCCESS,
			      "%s: %s", e[k], ce ? ce->message : "?");
		hs_free_database(db);
		free(e[k]);
	}
	free(e);
}
END_TEST

/* Shapes the cuts do not understand are left whole, and read no byte past the pattern; a
 * class's '[:' that is no POSIX class does not hide the anchors after the class. */
START_TEST(test_prefilter_odd_shapes)
{
	static const char *const whole[] = {"abcdefgh|(?<*xy)", "zz: Stale file handle|(?<*ab|c>d)",
					    "abcdefgh|(?P", "abcdefgh|(?<", "x?(?'n'abcdefgh)"};
	char *f;

	for (size_t i = 0; i < sizeof(whole) / sizeof(whole[0]); i++) {
		size_t n = 0;
		char **e = pm_prefilter_exprs(whole[i], &n);
		ck_assert_ptr_nonnull(e);
		ck_assert_msg(n == 1 && !strcmp(e[0], whole[i]), "%s: %zu expressions, first '%s'",
			      whole[i], n, n ? e[0] : "");
		free(e[0]);
		free(e);
	}
	ck_assert_str_eq(f = pm_prefilter_form("^[[:]x|^error: y$"), "[[:]x|error: y");
	free(f);
	ck_assert_str_eq(f = pm_prefilter_form("^[[:alpha:]]+: lost$"), "[[:alpha:]]+: lost");
	free(f);
}
END_TEST

/* Whether PATTERN (PCRE2, multi-line) matches in TEXT. */
static bool pcre_in(const char *pattern, const char *text)
{
	int err;
	PCRE2_SIZE off;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, PCRE2_MULTILINE,
				       &err, &off, NULL);
	pcre2_match_data *md;
	int rc;

	ck_assert_msg(re != NULL, "%s does not compile", pattern);
	md = pcre2_match_data_create_from_pattern(re, NULL);
	rc = pcre2_match(re, (PCRE2_SPTR)text, PCRE2_ZERO_TERMINATED, 0, 0, md, NULL);
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	return rc >= 0;
}

/* Wherever a pattern matches a line, one of its expressions does: the cuts lose no line. */
START_TEST(test_prefilter_loses_no_line)
{
	static const char *const texts[] = {
		"OSError: [Errno 116] Stale file handle: '/gpfs/x'",
		"3: [rank3]: RuntimeError: what():  Stale NFS file handle",
		"IOError: ; Stale file handle",
		"cp: cannot stat 'a': stale NFS file handle",
		"native: errno = 116, error message = stale",
		"NCCL WARN Call to accept failed : Too many open files",
		"gn12:4411:4520 [0] misc/socket.cc:50 NCCL WARN Accept failed: Too many open files",
		"iteration     2000/  500000 | consumed samples: 1024",
		"abc",
		"xdefghijk",
		"word abbbcdefgh",
		"retrying after OSError: [Errno 116] Stale file handle",
	};
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		size_t n = 0;
		char **e = pm_prefilter_exprs(cuts[i].pattern, &n);
		char *form = pm_prefilter_form(cuts[i].pattern);

		ck_assert_ptr_nonnull(e);
		ck_assert_ptr_nonnull(form);
		for (size_t l = 0; l < sizeof(texts) / sizeof(texts[0]); l++) {
			bool any = false;
			if (!pcre_in(form, texts[l]))
				continue;
			for (size_t k = 0; k < n && !any; k++)
				any = pcre_in(e[k], texts[l]);
			ck_assert_msg(any, "%s matches '%s', its expressions do not", form,
				      texts[l]);
		}
		for (size_t k = 0; k < n; k++)
			free(e[k]);
		free(e);
		free(form);
	}
}
END_TEST

/* Every pattern of the shipped rule set was made machine code at load, where the engine
 * compiles (pm_re_jit: the library has a JIT, no valgrind), and none elsewhere. */
START_TEST(test_jit_rule_set)
{
	char err[512], dir[512];
	size_t jitted = 0, n = 0;
	struct pm_ruleset *rs;

	snprintf(dir, sizeof(dir), "%s/rules", getenv("PM_SRCDIR") ? getenv("PM_SRCDIR") : ".");
	rs = pm_ruleset_load(dir, err, sizeof(err));
	ck_assert_msg(rs, "%s", err);
	for (size_t i = 0; i < rs->nrules; i++) {
		size_t size = 0;

		if (!rs->rules[i].re)
			continue;
		n++;
		pcre2_pattern_info(rs->rules[i].re, PCRE2_INFO_JITSIZE, &size);
		jitted += size > 0;
	}
	ck_assert_uint_gt(n, 100);
	ck_assert_uint_eq(jitted, pm_re_jit() ? n : 0);
	/* what `postmortem doctor` says of it */
	size_t npat = 0;
	ck_assert_uint_eq(pm_ruleset_jitted(rs, &npat), jitted);
	ck_assert_uint_eq(npat, n);
	pm_ruleset_destroy(rs);
}
END_TEST

/* A subject whose match needs more of the JIT's stack (32 KiB) than it has: pcre2_match gives
 * PCRE2_ERROR_JIT_STACKLIMIT, and pm_re_match the interpreter's match.  Without a match
 * context the interpreter's depth limit is the library's (ten million); the rule set's own
 * (2,000) would refuse this subject too. */
START_TEST(test_jit_stack_fallback)
{
	int ec;
	PCRE2_SIZE eo;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR) "(?:(?:a|b)(?:a|b))*c", PCRE2_ZERO_TERMINATED,
				       0, &ec, &eo, NULL);
	pcre2_match_data *md = pcre2_match_data_create(8, NULL);
	size_t n = 2 * 4000 + 1;
	char *s = malloc(n);

	ck_assert(re && md && s);
	for (size_t i = 0; i + 1 < n; i += 2)
		memcpy(s + i, "ab", 2);
	s[n - 1] = 'c';
	if (pm_re_jit() && pcre2_jit_compile(re, PCRE2_JIT_COMPLETE) == 0)
		ck_assert_int_eq(pcre2_match(re, (PCRE2_SPTR)s, n, 0, 0, md, NULL),
				 PCRE2_ERROR_JIT_STACKLIMIT);
	ck_assert_int_eq(pm_re_match(NULL, re, s, n, md), 1);
	ck_assert_uint_eq(pcre2_get_ovector_pointer(md)[1], n);
	free(s);
	pcre2_match_data_free(md);
	pcre2_code_free(re);
}
END_TEST

Suite *pmt_suite(void)
{
	Suite *s = suite_create("hsrun");
	TCase *c = tcase_create("chosen"), *t = tcase_create("twice");

	/* each test in a process of its own (CK_FORK): forcing two placements stays in it */
	tcase_add_test(c, test_runtime_said);
	tcase_add_test(c, test_chosen_block);
	tcase_add_test(c, test_chosen_stream);
	tcase_add_test(c, test_chosen_table_row);
	suite_add_tcase(s, c);
	tcase_add_test(t, test_twice_block);
	tcase_add_test(t, test_twice_stream);
	tcase_add_test(t, test_twice_order_and_stop);
	suite_add_tcase(s, t);
	TCase *p = tcase_create("prefilter");
	tcase_add_loop_test(p, test_prefilter_cuts, 0, (int)(sizeof(cuts) / sizeof(cuts[0])));
	tcase_add_test(p, test_prefilter_loses_no_line);
	tcase_add_test(p, test_prefilter_odd_shapes);
	suite_add_tcase(s, p);
	TCase *j = tcase_create("jit");
	tcase_add_test(j, test_jit_rule_set);
	tcase_add_test(j, test_jit_stack_fallback);
	suite_add_tcase(s, j);
	return s;
}
