/*
 * check_sort.c - the engine's sort (engine/sort.c) makes glibc 2.36's qsort_r choices.
 *
 * The verdicts were made under glibc's merge sort, and some of the engine's comparators are no
 * order (cmpcand: a tolerance, pairwise rules), so the same bytes on another C library need a
 * sort that makes exactly glibc's choices.  Each test sorts random arrays under comparators
 * that are no order at all (a random answer for each ordered pair; antisymmetric random
 * answers; values compared within a tolerance, ties broken at random), for element sizes
 * glibc copies differently (4 and 8 bytes, others, over 32 bytes: sorted through pointers),
 * and arrays under and over its 1024-byte stack buffer: the engine's sort with its buffer, and
 * merging in place as it does when the buffer cannot be allocated, give the permutation glibc's
 * qsort_r gives.  Where the C library is not a glibc known to sort so (glibc 2.36 to 2.38 were
 * checked), the comparison with it is skipped and the two paths are
 * still compared with each other and with a plain reference merge sort written here.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif

#include "internal.h"
#include "support.h"

#define MAXN 600

/* A comparator's answers: TAB[x * n + y] for elements X and Y (their ids), or by value */
struct oracle {
	int kind; /* 0 a random answer per ordered pair, 1 antisymmetric, 2 values in a tolerance */
	size_t n;
	signed char *tab;
	double *val;
	double tol;
	unsigned long calls;
};

static unsigned long long rng = 88172645463325252ULL;

static unsigned long long next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* An element: its id in its first four bytes, the rest a pattern of it (so that a copy that
 * mixes two elements shows). */
static void put(char *e, size_t size, uint32_t id)
{
	for (size_t i = 0; i < size; i++)
		e[i] = (char)(id * 31 + i * 7 + 1);
	memcpy(e, &id, size < 4 ? size : 4);
}

static uint32_t id_of(const char *e, size_t size)
{
	uint32_t id = 0;

	memcpy(&id, e, size < 4 ? size : 4);
	return id;
}

static size_t esize; /* the elements' size, for the comparator */

static int ask(const void *x, const void *y, void *arg)
{
	struct oracle *o = arg;
	uint32_t a = id_of(x, esize), b = id_of(y, esize);

	o->calls++;
	if (o->kind == 2) {
		if (o->val[a] > o->val[b] + o->tol)
			return 1;
		if (o->val[b] > o->val[a] + o->tol)
			return -1;
	}
	return o->tab[a * o->n + b];
}

static void oracle_make(struct oracle *o, int kind, size_t n)
{
	o->kind = kind;
	o->n = n;
	o->calls = 0;
	o->tol = 0.1 + (double)(next() % 100) / 100.0;
	for (size_t a = 0; a < n; a++) {
		o->val[a] = (double)(next() % 1000) / 100.0;
		for (size_t b = 0; b < n; b++)
			o->tab[a * n + b] = (signed char)((int)(next() % 3) - 1);
	}
	if (kind)
		for (size_t a = 0; a < n; a++)
			for (size_t b = 0; b < a; b++)
				o->tab[a * n + b] = (signed char)-o->tab[b * n + a];
}

/* glibc 2.36's msort.c as its manual describes it, for the libraries that are no such glibc */
static void ref_msort(char *b, size_t n, size_t s, struct oracle *o, char *t)
{
	size_t n1 = n / 2, n2 = n - n1;
	char *b1 = b, *b2 = b + n1 * s, *p = t;

	if (n <= 1)
		return;
	ref_msort(b1, n1, s, o, t);
	ref_msort(b2, n2, s, o, t);
	while (n1 && n2) {
		if (ask(b1, b2, o) <= 0) {
			memcpy(p, b1, s);
			b1 += s;
			n1--;
		} else {
			memcpy(p, b2, s);
			b2 += s;
			n2--;
		}
		p += s;
	}
	memcpy(p, b1, n1 * s);
	memcpy(b, t, (n - n2) * s);
}

/* Whether this C library's qsort_r is glibc's merge sort: msort.c as 2.36 has it (checked here,
 * on 2.36), which 2.37 and 2.38 ship unchanged.  2.39 rewrote qsort.c; it is not assumed. */
static bool libc_is_msort(void)
{
#ifdef __GLIBC__
	unsigned maj = 0, min = 0;

	return sscanf(gnu_get_libc_version(), "%u.%u", &maj, &min) == 2 && maj == 2 && min <= 38;
#else
	return false;
#endif
}

static void check_same(const char *what, const char *a, const char *b, size_t n, size_t s,
		       unsigned long long seed)
{
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(!memcmp(a + i * s, b + i * s, s),
			      "%s: element %zu differs (n %zu, size %zu, seed %llu): id %u, not %u",
			      what, i, n, s, seed, id_of(b + i * s, s), id_of(a + i * s, s));
}

/* CASES random arrays of up to MAXN elements of SIZE bytes under every kind of comparator */
static void run(size_t size, int cases)
{
	static struct oracle o;
	char *in = malloc(MAXN * size), *mine = malloc(MAXN * size), *place = malloc(MAXN * size);
	char *lib = malloc(MAXN * size), *ref = malloc(MAXN * size), *t = malloc(MAXN * size);
	bool msort = libc_is_msort();

	o.tab = malloc(MAXN * MAXN);
	o.val = malloc(MAXN * sizeof(*o.val));
	ck_assert(in && mine && place && lib && ref && t && o.tab && o.val);
	esize = size;
	for (int c = 0; c < cases; c++) {
		unsigned long long seed = rng;
		/* mostly short arrays (glibc's stack buffer), some past 1024 bytes (its malloc) */
		size_t n = next() % 4 ? next() % 40 : next() % MAXN;
		size_t ids = size == 1 ? (n < 256 ? n : 256) : n;

		if (size == 1 && n > 256)
			n = 256;
		oracle_make(&o, c % 3, ids ? ids : 1);
		for (size_t i = 0; i < n; i++)
			put(in + i * size, size, (uint32_t)(ids ? i % ids : 0));
		memcpy(mine, in, n * size);
		memcpy(place, in, n * size);
		memcpy(lib, in, n * size);
		memcpy(ref, in, n * size);
		pm_msort_r(mine, n, size, ask, &o);
		pm_msort_with(place, n, size, ask, &o, NULL);
		ref_msort(ref, n, size, &o, t);
		check_same("in place", mine, place, n, size, seed);
		check_same("reference", ref, mine, n, size, seed);
		if (msort) {
			qsort_r(lib, n, size, ask, &o);
			check_same("glibc's qsort_r", lib, mine, n, size, seed);
		}
	}
	free(o.tab);
	free(o.val);
	free(in);
	free(mine);
	free(place);
	free(lib);
	free(ref);
	free(t);
}

START_TEST(test_same_as_glibc_ptr_size)
{
	run(sizeof(void *), 1500);
}
END_TEST

START_TEST(test_same_as_glibc_int_size)
{
	run(4, 1500);
}
END_TEST

START_TEST(test_same_as_glibc_odd_sizes)
{
	run(1, 300);
	run(12, 700);
	run(13, 300);
	run(32, 300);
}
END_TEST

/* over 32 bytes glibc sorts pointers to the elements and moves them after */
START_TEST(test_same_as_glibc_large_elements)
{
	run(40, 700);
	run(200, 300);
}
END_TEST

/* pm_sort looks whether the array is in order first: under an order with ties it gives what
 * a stable sort gives (equal keys in their input order), and glibc's qsort the same */
static int cmp_key(const void *x, const void *y)
{
	int a = *(const int *)x / 1000, b = *(const int *)y / 1000;

	return (a > b) - (a < b);
}

START_TEST(test_pm_sort_stable)
{
	int v[900], w[900];

	for (int c = 0; c < 400; c++) {
		size_t n = next() % 900;
		int keys = 1 + (int)(next() % 50);

		/* a key, and the element's input place in the thousands' remainder */
		for (size_t i = 0; i < n; i++)
			v[i] = (int)(next() % (unsigned)keys) * 1000 + (int)i;
		if (c % 4 == 0) /* some in order already */
			qsort(v, n, sizeof(*v), cmp_key);
		for (size_t i = 0; i < n; i++)
			v[i] = v[i] / 1000 * 1000 + (int)i;
		memcpy(w, v, n * sizeof(*v));
		pm_sort(v, n, sizeof(*v), cmp_key);
		for (size_t i = 1; i < n; i++)
			ck_assert(
				v[i - 1] / 1000 < v[i] / 1000 ||
				(v[i - 1] / 1000 == v[i] / 1000 && v[i - 1] % 1000 < v[i] % 1000));
		if (libc_is_msort()) {
			qsort(w, n, sizeof(*w), cmp_key);
			ck_assert(!memcmp(v, w, n * sizeof(*v)));
		}
	}
}
END_TEST

Suite *pmt_suite(void)
{
	Suite *s = suite_create("sort");
	TCase *t = tcase_create("sort");

	tcase_set_timeout(t, 120);
	tcase_add_test(t, test_same_as_glibc_ptr_size);
	tcase_add_test(t, test_same_as_glibc_int_size);
	tcase_add_test(t, test_same_as_glibc_odd_sizes);
	tcase_add_test(t, test_same_as_glibc_large_elements);
	tcase_add_test(t, test_pm_sort_stable);
	suite_add_tcase(s, t);
	return s;
}
