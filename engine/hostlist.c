/*
 * hostlist.c - Slurm host lists: "gpu[016-017,020],login1" -> gpu016 gpu017 gpu020 login1.
 *
 * Several bracket groups in one name expand as a product ("r[1-2]n[1-2]").  Numbers keep
 * the width of the range's lower bound ("[08-10]" -> 08 09 10).  The expansion is bounded:
 * a list naming more than HOSTLIST_MAX hosts is refused before anything is built.
 */
#include <errno.h>
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

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
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
		qsort(all.v, all.n, sizeof(*all.v), cmp);
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
