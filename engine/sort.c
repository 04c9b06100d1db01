/*
 * sort.c - the engine's own sort: a stable top-down merge sort whose result depends only on
 * the input order and the comparator's answers, on any C library.
 *
 * A verdict's bytes must not depend on the C library.  Some of the engine's comparators are
 * no total order (cmpcand, engine/att_decide.c: a time comparison within a tolerance and
 * pairwise rules that are not transitive), and others let two different elements compare
 * equal; what qsort makes of them is the library's choice: glibc up to 2.36 at least a merge
 * sort (a quicksort when its buffer cannot be allocated), musl a smoothsort, neither
 * stable in the same way.  This sort makes glibc 2.36's msort.c choices exactly (split
 * n1 = n / 2, n2 = n - n1, each half sorted, then merged taking from the left run while
 * cmp(left, right) <= 0), so the verdicts made under glibc stay the same bytes, and it has no
 * other path: where its buffer cannot be allocated it merges in place, by rotations, asking
 * the comparator the same questions in the same order (slower, the same result).
 * tests/check_sort.c compares it with glibc's qsort_r under random comparators that are no
 * order at all.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct msort {
	size_t size;
	int (*cmp)(const void *, const void *, void *);
	void *arg;
	char *t; /* room for the whole array, or NULL: merge in place */
};

/* One element from S to D: constant sizes for the common element sizes (pointers, ints), so
 * that the compiler copies them without a call. */
static inline void copy1(char *d, const char *s, size_t size)
{
	if (size == 8)
		memcpy(d, s, 8);
	else if (size == 4)
		memcpy(d, s, 4);
	else
		memcpy(d, s, size);
}

/* Merge the sorted runs B[0..n1) and B[n1..n1+n2) through the buffer: glibc's
 * msort_with_tmp, whose last run's rest is already in place. */
static void merge_buf(const struct msort *m, char *b, size_t n1, size_t n2)
{
	size_t s = m->size, n = n1 + n2;
	char *b1 = b, *b2 = b + n1 * s, *t = m->t;

	while (n1 > 0 && n2 > 0) {
		if (m->cmp(b1, b2, m->arg) <= 0) {
			copy1(t, b1, s);
			b1 += s;
			n1--;
		} else {
			copy1(t, b2, s);
			b2 += s;
			n2--;
		}
		t += s;
	}
	if (n1 > 0)
		memcpy(t, b1, n1 * s);
	memcpy(b, m->t, (n - n2) * s);
}

static void swap1(char *a, char *b, size_t size)
{
	while (size--) {
		char c = *a;
		*a++ = *b;
		*b++ = c;
	}
}

/* Reverse the order of the N elements at P. */
static void reverse(char *p, size_t n, size_t size)
{
	for (size_t i = 0, j = n; i + 1 < j; i++, j--)
		swap1(p + i * size, p + (j - 1) * size, size);
}

/*
 * The same merge with no buffer: while the left run's head compares above the right run's
 * next elements, those elements are taken (rotated before the left run's rest); then the
 * head is taken.  The comparator is asked what merge_buf asks, in the same order, so the
 * result is the same.
 */
static void merge_in_place(const struct msort *m, char *b, size_t n1, size_t n2)
{
	size_t s = m->size;
	char *l = b, *r = b + n1 * s;

	while (n1 > 0 && n2 > 0) {
		size_t k = 0;

		while (k < n2 && m->cmp(l, r + k * s, m->arg) > 0)
			k++;
		if (k) {
			reverse(l, n1, s);
			reverse(r, k, s);
			reverse(l, n1 + k, s);
			l += k * s;
			r += k * s;
			n2 -= k;
		}
		if (n2) {
			l += s; /* cmp(head, r) <= 0: the head is taken */
			n1--;
		}
	}
}

static void msort(const struct msort *m, char *b, size_t n)
{
	size_t n1, n2;

	if (n <= 1)
		return;
	n1 = n / 2;
	n2 = n - n1;
	msort(m, b, n1);
	msort(m, b + n1 * m->size, n2);
	if (m->t)
		merge_buf(m, b, n1, n2);
	else
		merge_in_place(m, b, n1, n2);
}

void pm_msort_with(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *, void *),
		   void *arg, void *tmp)
{
	struct msort m = {.size = size, .cmp = cmp, .arg = arg, .t = tmp};

	if (size)
		msort(&m, v, n);
}

void pm_msort_r(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *, void *),
		void *arg)
{
	/* a small array's buffer on the stack, as glibc's (under 1024 bytes) */
	_Alignas(max_align_t) char stack[1024];
	char *t = NULL;

	if (n < 2 || !size)
		return;
	if (n <= sizeof(stack) / size)
		t = stack;
	else if (n <= SIZE_MAX / size)
		t = malloc(n * size); /* NULL: in place, the same result */
	pm_msort_with(v, n, size, cmp, arg, t);
	if (t != stack)
		free(t);
}

/* pm_sort's comparator, called through pm_msort_r's */
struct cmp2 {
	int (*cmp)(const void *, const void *);
};

static int call2(const void *x, const void *y, void *arg)
{
	return ((const struct cmp2 *)arg)->cmp(x, y);
}

void pm_sort(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	const char *p = v;
	size_t i = 1;
	struct cmp2 c = {cmp};

	while (i < n && cmp(p + (i - 1) * size, p + i * size) <= 0)
		i++;
	if (i < n)
		pm_msort_r(v, n, size, call2, &c);
}

void pm_sort_r(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *, void *),
	       void *arg)
{
	const char *p = v;
	size_t i = 1;

	while (i < n && cmp(p + (i - 1) * size, p + i * size, arg) <= 0)
		i++;
	if (i < n)
		pm_msort_r(v, n, size, cmp, arg);
}
