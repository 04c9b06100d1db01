/*
 * names.c - the finalizer's lists of node names: the expected nodes, the arrivals, the
 * bundles on disk.  A name is what a file in the job run folder may be called after it
 * (no '/', no leading '.' or '-', printable, shorter than NAMELEN); lists are kept sorted
 * and unique, read from a folder, a file of lines or a Slurm hostlist.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "finalize_int.h"
#include "postmortem.h"

bool pm_node_ok(const char *s, size_t n)
{
	if (n == 0 || n >= NAMELEN || s[0] == '.' || s[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] == '/' || (unsigned char)s[i] <= ' ' || (unsigned char)s[i] >= 127)
			return false;
	return true;
}

static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

bool pm_names_has(const struct names *l, const char *s)
{
	if (l->sorted && bsearch(&s, l->v, l->sorted, sizeof(*l->v), cmpstr))
		return true;
	for (size_t i = l->sorted; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return true;
	return false;
}

/* Append a node name (invalid names are skipped); names_sort removes duplicates.  -1 ENOMEM. */
int pm_names_add(struct names *l, const char *s, size_t n)
{
	char **v, *c;

	if (!pm_node_ok(s, n))
		return 0;
	if (!(v = realloc(l->v, (l->n + 2) * sizeof(*v))))
		return -1;
	l->v = v;
	if (!(c = strndup(s, n)))
		return -1;
	l->v[l->n++] = c;
	l->v[l->n] = NULL;
	return 0;
}

void pm_names_free(struct names *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->sorted = 0;
}

void pm_names_sort(struct names *l)
{
	size_t k = 0, i = 1;

	if (!l->n)
		return;
	/* a folder's names mostly come in order: a sorted list costs one compare a name */
	while (i < l->n && strcmp(l->v[i - 1], l->v[i]) <= 0)
		i++;
	if (i < l->n)
		qsort(l->v, l->n, sizeof(*l->v), cmpstr);
	for (i = 0; i < l->n; i++) {
		if (k && !strcmp(l->v[k - 1], l->v[i]))
			free(l->v[i]);
		else
			l->v[k++] = l->v[i];
	}
	l->n = l->sorted = k;
	l->v[k] = NULL;
}

json_t *pm_names_json(const struct names *l)
{
	json_t *a = json_array();

	for (size_t i = 0; i < l->n; i++)
		json_array_append_new(a, json_string(l->v[i]));
	return a;
}

/* Lines of a file, or a Slurm hostlist: into L.  -1 on ENOMEM. */
int pm_names_parse(struct names *l, const char *s, size_t len)
{
	char **v;
	size_t n;

	while (len && (s[len - 1] == '\n' || s[len - 1] == ' '))
		len--;
	if (memchr(s, '\n', len)) {
		for (const char *p = s, *end = s + len, *nl; p < end; p = nl + 1) {
			nl = memchr(p, '\n', (size_t)(end - p));
			if (!nl)
				nl = end;
			if (pm_names_add(l, p, (size_t)(nl - p)) < 0)
				return -1;
		}
		return 0;
	}
	if (!len || pm_hostlist_expand(s, len, &v, &n) < 0)
		return len && errno == ENOMEM ? -1 : 0;
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		if (!rc && pm_names_add(l, v[i], strlen(v[i])) < 0)
			rc = -1;
		free(v[i]);
	}
	free(v);
	return rc;
}

int pm_names_list_dir(const char *dir, const char *suffix, struct names *l)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t sl = strlen(suffix);

	if (!d)
		return errno == ENOENT ? 0 : -1;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (de->d_name[0] == '.' || n <= sl || strcmp(de->d_name + n - sl, suffix))
			continue;
		if (pm_names_add(l, de->d_name, n - sl) < 0) {
			closedir(d);
			return -1;
		}
	}
	closedir(d);
	pm_names_sort(l);
	return 0;
}
