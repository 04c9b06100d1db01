/*
 * heapsort-qsort.c - qsort and qsort_r as a heapsort, for LD_PRELOAD (tests/libc-sort.sh): a
 * C library that sorts otherwise than glibc 2.36's merge sort (musl's smoothsort, a later
 * glibc's fallback when its buffer cannot be had), not stable, another order of ties and of
 * a comparator that is no order.  The engine's verdicts must not change under it.
 */
#include <stddef.h>

typedef int (*cmp_r)(const void *, const void *, void *);
typedef int (*cmp_p)(const void *, const void *);

static void swap1(char *a, char *b, size_t size)
{
	while (size--) {
		char c = *a;
		*a++ = *b;
		*b++ = c;
	}
}

static void sift(char *v, size_t i, size_t n, size_t size, cmp_r cmp, void *arg)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;

		if (l < n && cmp(v + l * size, v + m * size, arg) > 0)
			m = l;
		if (l + 1 < n && cmp(v + (l + 1) * size, v + m * size, arg) > 0)
			m = l + 1;
		if (m == i)
			return;
		swap1(v + i * size, v + m * size, size);
		i = m;
	}
}

void qsort_r(void *b, size_t n, size_t size, cmp_r cmp, void *arg);

void qsort_r(void *b, size_t n, size_t size, cmp_r cmp, void *arg)
{
	char *v = b;

	if (n < 2)
		return;
	for (size_t i = n / 2; i-- > 0;)
		sift(v, i, n, size, cmp, arg);
	for (size_t e = n - 1; e > 0; e--) {
		swap1(v, v + e * size, size);
		sift(v, 0, e, size, cmp, arg);
	}
}

static int call(const void *x, const void *y, void *arg)
{
	return (*(cmp_p *)arg)(x, y);
}

void qsort(void *b, size_t n, size_t size, cmp_p cmp);

void qsort(void *b, size_t n, size_t size, cmp_p cmp)
{
	qsort_r(b, n, size, call, &cmp);
}
