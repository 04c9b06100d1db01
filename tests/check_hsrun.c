/*
 * check_hsrun.c - scanning finds a match wherever the data lies (engine/hsrun.c).
 *
 * Vectorscan 5.4.9's AVX-512 implementation misses matches of some patterns by the address of
 * their end modulo 64.  Each test scans text of that shape at all 64 placements, in block and
 * in stream mode, through pm_hs_chunk: as the probe chose (the dispatched implementation, an
 * older one the library exports, or two placements), and with two placements forced.  On a CPU without
 * AVX-512 the library is right to begin with and these pass either way; on one with it, the
 * "chosen" tests fail when pm_hs_chunk scans once (tests/scan-placement.sh too).
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

/* Scan two copies of LINE at each of 64 placements (stream mode when STREAM); fail
 * the test at the first placement without both matches, in order. */
static void every_placement(bool stream)
{
	size_t one = sizeof(line) - 1, len = 2 * one;
	hs_database_t *db = NULL;
	hs_scratch_t *scratch = NULL;
	hs_compile_error_t *ce = NULL;
	char *mem = aligned_alloc(64, (len + 128 + 63) / 64 * 64);

	ck_assert_ptr_nonnull(mem);
	ck_assert_int_eq(hs_compile(pat, 0, stream ? HS_MODE_STREAM : HS_MODE_BLOCK,
				    pm_hs_platform(), &db, &ce),
			 HS_SUCCESS);
	ck_assert_int_eq(hs_alloc_scratch(db, &scratch), HS_SUCCESS);
	for (int k = 0; k < 64; k++) {
		struct seen s = {{0}, 0, 0};
		hs_stream_t *st = NULL;

		memset(mem, 'x', len + 128);
		memcpy(mem + k, line, one);
		memcpy(mem + k + one, line, one);
		if (stream)
			ck_assert_int_eq(pm_hs_open(db, &st), HS_SUCCESS);
		ck_assert_int_eq(pm_hs_chunk(db, st, mem + k, len, scratch, on_hit, &s),
				 HS_SUCCESS);
		pm_hs_close(st);
		ck_assert_msg(s.n == 2 && s.to[0] == one - 1 && s.to[1] == len - 1,
			      "%s mode, data at address %% 64 = %d: %d match(es), ends %llu %llu "
			      "(want %zu %zu; %s)",
			      stream ? "stream" : "block", (int)((unsigned long)(mem + k) % 64),
			      s.n, s.to[0], s.to[1], one - 1, len - 1, pm_scan_runtime());
	}
	hs_free_scratch(scratch);
	hs_free_database(db);
	free(mem);
}

START_TEST(test_chosen_block)
{
	every_placement(false);
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

Suite *pmt_suite(void)
{
	Suite *s = suite_create("hsrun");
	TCase *c = tcase_create("chosen"), *t = tcase_create("twice");

	/* each test in a process of its own (CK_FORK): forcing two placements stays in it */
	tcase_add_test(c, test_runtime_said);
	tcase_add_test(c, test_chosen_block);
	tcase_add_test(c, test_chosen_stream);
	suite_add_tcase(s, c);
	tcase_add_test(t, test_twice_block);
	tcase_add_test(t, test_twice_stream);
	tcase_add_test(t, test_twice_order_and_stop);
	suite_add_tcase(s, t);
	return s;
}
