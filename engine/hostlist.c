/*
 * hostlist.c - Slurm host lists: "gpu[016-017,020],login1" -> gpu016 gpu017 gpu020 login1.
 *
 * Several bracket groups in one name expand as a product ("r[1-2]n[1-2]").  Numbers keep
 * the width of the range's lower bound ("[08-10]" -> 08 09 10).  The expansion is bounded:
 * a list naming more than HOSTLIST_MAX hosts is refused before anything is built.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "internal.h"

#define HOSTLIST_MAX 65536
#define NAME_MAX_LEN 255
#define NUM_MAX_DIGITS 9

struct names {
	char **v;
	size_t n, a;
};

static void names_free(struct names *ns)
{
	size_t i;

	for (i = 0; i < ns->n; i++)
		free(ns->v[i]);
	free(ns->v);
	ns->v = NULL;
	ns->n = ns->a = 0;
}

static int names_push(struct names *ns, char *s)
{
	if (ns->n == ns->a) {
		size_t a = ns->a ? ns->a * 2 : 16;
		char **v = realloc(ns->v, a * sizeof(*v));

		if (!v) {
			free(s);
			return -1;
		}
		ns->v = v;
		ns->a = a;
	}
	ns->v[ns->n++] = s;
	return 0;
}

/* One "lo-hi" or "n" of a bracket group. */
struct range {
	unsigned long lo, hi;
	int width;
};

static int num(const char *s, size_t n, unsigned long *v)
{
	size_t i;

	if (n == 0 || n > NUM_MAX_DIGITS)
		return -1;
	*v = 0;
	for (i = 0; i < n; i++) {
		if (!pm_in_isdigit(s[i]))
			return -1;
		*v = *v * 10 + (unsigned long)(s[i] - '0');
	}
	return 0;
}

/* Parse the inside of one bracket group into R (at most HOSTLIST_MAX values in all). */
static int parse_group(const char *s, size_t n, struct range **r, size_t *nr, unsigned long *count)
{
	size_t i = 0, j, a = 0;
	const char *dash;

	*r = NULL;
	*nr = 0;
	*count = 0;
	while (i <= n) {
		struct range g;

		for (j = i; j < n && s[j] != ','; j++)
			;
		dash = memchr(s + i, '-', j - i);
		if (dash) {
			size_t l = (size_t)(dash - (s + i));

			if (num(s + i, l, &g.lo) || num(dash + 1, j - i - l - 1, &g.hi))
				goto inval;
			g.width = (int)l;
		} else {
			if (num(s + i, j - i, &g.lo))
				goto inval;
			g.hi = g.lo;
			g.width = (int)(j - i);
		}
		if (g.hi < g.lo)
			goto inval;
		*count += g.hi - g.lo + 1;
		if (*count > HOSTLIST_MAX) {
			errno = E2BIG;
			goto fail;
		}
		if (*nr == a) {
			struct range *nrg = realloc(*r, (a = a ? a * 2 : 4) * sizeof(**r));

			if (!nrg)
				goto fail;
			*r = nrg;
		}
		(*r)[(*nr)++] = g;
		i = j + 1;
	}
	return 0;
inval:
	errno = EINVAL;
fail:
	free(*r);
	*r = NULL;
	return -1;
}

/* Append LIT to every name of NS. */
static int append_lit(struct names *ns, const char *lit, size_t n)
{
	size_t i, l;
	char *s;

	for (i = 0; i < ns->n; i++) {
		l = strlen(ns->v[i]);
		if (l + n > NAME_MAX_LEN) {
			errno = EINVAL;
			return -1;
		}
		s = realloc(ns->v[i], l + n + 1);
		if (!s)
			return -1;
		memcpy(s + l, lit, n);
		s[l + n] = '\0';
		ns->v[i] = s;
	}
	return 0;
}

/* Replace every name of NS by its products with the values of the group. */
static int product(struct names *ns, const struct range *r, size_t nr, unsigned long count)
{
	struct names out = {0};
	char buf[NAME_MAX_LEN + 16];
	unsigned long v;
	size_t i, k;

	if (ns->n * count > HOSTLIST_MAX) {
		errno = E2BIG;
		return -1;
	}
	for (i = 0; i < ns->n; i++) {
		for (k = 0; k < nr; k++) {
			for (v = r[k].lo; v <= r[k].hi; v++) {
				int l = snprintf(buf, sizeof(buf), "%s%0*lu", ns->v[i], r[k].width,
						 v);

				if (l < 0 || l > NAME_MAX_LEN) {
					errno = EINVAL;
					goto fail;
				}
				char *d = strdup(buf);

				if (!d || names_push(&out, d))
					goto fail;
			}
		}
	}
	names_free(ns);
	*ns = out;
	return 0;
fail:
	names_free(&out);
	return -1;
}

/* Expand one host expression (no top-level comma) onto ALL. */
static int expand_one(const char *s, size_t n, struct names *all)
{
	struct names cur = {0};
	const char *open, *close;
	struct range *r;
	size_t i = 0, lit, nr, k;
	unsigned long count;
	char *empty = strdup("");
	int rc;

	if (!empty || names_push(&cur, empty))
		return -1;
	while (i < n) {
		open = memchr(s + i, '[', n - i);
		lit = open ? (size_t)(open - (s + i)) : n - i;
		if (memchr(s + i, ']', lit))
			goto inval;
		if (lit && append_lit(&cur, s + i, lit))
			goto fail;
		i += lit;
		if (!open)
			break;
		close = memchr(open, ']', n - i);
		if (!close || memchr(open + 1, '[', (size_t)(close - open - 1)))
			goto inval;
		if (parse_group(open + 1, (size_t)(close - open - 1), &r, &nr, &count))
			goto fail;
		rc = product(&cur, r, nr, count);
		free(r);
		if (rc)
			goto fail;
		i += (size_t)(close - open) + 1;
	}
	if (all->n + cur.n > HOSTLIST_MAX) {
		errno = E2BIG;
		goto fail;
	}
	for (k = 0; k < cur.n; k++) {
		if (cur.v[k][0] == '\0')
			goto inval;
		rc = names_push(all, cur.v[k]);
		cur.v[k] = NULL; /* owned by ALL, or freed by names_push */
		if (rc)
			goto fail;
	}
	names_free(&cur);
	return 0;
inval:
	errno = EINVAL;
fail:
	names_free(&cur);
	return -1;
}

int pm_hostlist_expand(const char *list, size_t len, char ***names, size_t *n)
{
	struct names all = {0};
	size_t i = 0, j, k, depth;

	*names = NULL;
	*n = 0;
	if (!list && len) {
		errno = EINVAL;
		return -1;
	}
	while (i < len) {
		while (i < len && (list[i] == ',' || pm_in_isspace(list[i])))
			i++;
		if (i >= len)
			break;
		for (j = i, depth = 0; j < len; j++) {
			if (list[j] == '[')
				depth++;
			else if (list[j] == ']' && depth)
				depth--;
			else if (depth == 0 && (list[j] == ',' || pm_in_isspace(list[j])))
				break;
			if (list[j] == '\0' || depth > 1)
				break;
		}
		if (j < len && (list[j] == '\0' || depth)) {
			errno = EINVAL;
			goto fail;
		}
		if (expand_one(list + i, j - i, &all))
			goto fail;
		i = j;
	}
	if (all.n > 1)
		pm_sort(all.v, all.n, sizeof(*all.v), pm_cmp_str);
	for (i = 0, k = 0; i < all.n; i++) {
		if (k > 0 && strcmp(all.v[k - 1], all.v[i]) == 0)
			free(all.v[i]);
		else
			all.v[k++] = all.v[i];
	}
	all.n = k;
	*names = all.v;
	*n = all.n;
	return 0;
fail:
	names_free(&all);
	return -1;
}

/* ---- the other way: names -> "gpu[0001-0004,0007],login1" ---- */

struct hname {
	const char *s;
	size_t plen;	 /* the prefix before the trailing digits */
	int width;	 /* number of trailing digits; 0: none (the name stands alone) */
	unsigned long v; /* their value */
};

static int hcmp(const void *x, const void *y)
{
	const struct hname *a = x, *b = y;
	size_t l = a->plen < b->plen ? a->plen : b->plen;
	int c = memcmp(a->s, b->s, l);

	if (c)
		return c;
	if (a->plen != b->plen)
		return a->plen < b->plen ? -1 : 1;
	if (a->width != b->width)
		return a->width < b->width ? -1 : 1;
	if (a->v != b->v)
		return a->v < b->v ? -1 : 1;
	return a->width ? 0 : strcmp(a->s, b->s);
}

static bool same_key(const struct hname *a, const struct hname *b)
{
	return a->width && a->plen == b->plen && a->width == b->width &&
	       !memcmp(a->s, b->s, a->plen);
}

struct sbuf {
	char *s;
	size_t n, a;
};

static int sput(struct sbuf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->a) {
		size_t na = (b->a + n + 1) * 2;
		char *p = realloc(b->s, na);
		if (!p)
			return -1;
		b->s = p;
		b->a = na;
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = '\0';
	return 0;
}

static int snum(struct sbuf *b, int width, unsigned long v)
{
	char num[32];
	int l = snprintf(num, sizeof(num), "%0*lu", width, v);

	return sput(b, num, (size_t)l);
}

char *pm_hostlist_compress(const char *const *names, size_t n)
{
	struct hname *h = malloc((n ? n : 1) * sizeof(*h));
	struct sbuf b = {0};
	size_t i, m = 0;

	if (!h || sput(&b, "", 0) < 0)
		goto fail;
	for (i = 0; i < n; i++) {
		const char *s = names[i];
		size_t l = strlen(s), d = l;
		if (!l)
			continue;
		while (d > 0 && s[d - 1] >= '0' && s[d - 1] <= '9')
			d--;
		h[m].s = s;
		h[m].plen = d;
		h[m].width = 0;
		h[m].v = 0;
		/* numbers the expansion cannot give back stand alone */
		if (l - d > 0 && l - d <= NUM_MAX_DIGITS && d > 0 && !strpbrk(s, "[],") &&
		    num(s + d, l - d, &h[m].v) == 0)
			h[m].width = (int)(l - d);
		else
			h[m].plen = l;
		m++;
	}
	if (m > 1)
		pm_sort(h, m, sizeof(*h), hcmp);
	for (i = 0; i < m;) {
		size_t k = i + 1, end;
		/* duplicates collapse */
		if (b.n && sput(&b, ",", 1) < 0)
			goto fail;
		if (!h[i].width) {
			if (sput(&b, h[i].s, h[i].plen) < 0)
				goto fail;
			while (k < m && !h[k].width && !strcmp(h[k].s, h[i].s))
				k++;
			i = k;
			continue;
		}
		for (end = i; end + 1 < m && same_key(&h[i], &h[end + 1]); end++)
			;
		if (sput(&b, h[i].s, h[i].plen) < 0)
			goto fail;
		if (h[end].v == h[i].v) {
			if (snum(&b, h[i].width, h[i].v) < 0)
				goto fail;
			i = end + 1;
			continue;
		}
		if (sput(&b, "[", 1) < 0)
			goto fail;
		for (k = i; k <= end;) {
			size_t r = k;
			while (r + 1 <= end && h[r + 1].v <= h[r].v + 1)
				r++;
			if ((k > i && sput(&b, ",", 1) < 0) || snum(&b, h[k].width, h[k].v) < 0 ||
			    (h[r].v != h[k].v &&
			     (sput(&b, "-", 1) < 0 || snum(&b, h[k].width, h[r].v) < 0)))
				goto fail;
			k = r + 1;
		}
		if (sput(&b, "]", 1) < 0)
			goto fail;
		i = end + 1;
	}
	free(h);
	return b.s;
fail:
	free(h);
	free(b.s);
	errno = ENOMEM;
	return NULL;
}
