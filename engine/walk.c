/*
 * walk.c - adding a path to an evidence set: a file, a folder walked in name order, or a
 * bundle (a .tar.zst file, or a folder holding manifest.json) handed to bundle.c.  Both
 * hand finished files to the evidence set (evidence.c); neither calls back here.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "evidence.h"

static bool has_suffix(const char *s, const char *suf)
{
	size_t l = strlen(s), m = strlen(suf);
	return l >= m && !strcmp(s + l - m, suf);
}

/*
 * The folder walk.  What it does not read is said in coverage, never dropped in silence: an
 * entry named after what was left out, status unreadable, the reason beside it (a folder
 * nested too deep, a hidden name, a link, a device or pipe, entries past the walk's limit).
 * Links are not followed (a loop, or a way out of the folder given); the limits bound the
 * memory and time a hostile tree can cost.
 */
#define WALK_DEPTH_MAX 16
#define WALK_ENTRIES_MAX 100000

struct walk {
	size_t entries; /* files and folders taken so far */
	size_t over;	/* left out past WALK_ENTRIES_MAX */
};

static int left_out(struct pm_evidence *ev, const char *rel, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int left_out(struct pm_evidence *ev, const char *rel, const char *fmt, ...)
{
	struct pm_file *f = pm_ev_add_file(ev, rel[0] ? rel : ".");
	char why[256];
	va_list ap;

	if (!f)
		return -1;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	f->status = PM_ST_UNREADABLE;
	return pm_strset(&f->reason, why, strlen(why));
}

static const char *kind_of(mode_t m)
{
	return S_ISLNK(m)  ? "a symbolic link (links are not followed)" :
	       S_ISFIFO(m) ? "a named pipe, not a regular file" :
	       S_ISSOCK(m) ? "a socket, not a regular file" :
	       S_ISCHR(m)  ? "a character device, not a regular file" :
	       S_ISBLK(m)  ? "a block device, not a regular file" :
			     "not a regular file or folder";
}

static int add_one(struct pm_evidence *ev, const char *path, const char *rel, const struct stat *st,
		   char *err, size_t errlen, int depth, struct walk *w);

static int add_entry(struct pm_evidence *ev, const char *path, const char *rel, const char *name,
		     char *err, size_t errlen, int depth, struct walk *w)
{
	struct stat st;

	if (w->entries >= WALK_ENTRIES_MAX) {
		w->over++;
		return 0;
	}
	w->entries++;
	if (name[0] == '.')
		return left_out(ev, rel, "left out: a hidden name (it starts with a dot)");
	if (lstat(path, &st) < 0)
		return left_out(ev, rel, "left out: %s", strerror(errno));
	if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return left_out(ev, rel, "left out: %s", kind_of(st.st_mode));
	return add_one(ev, path, rel, &st, err, errlen, depth, w);
}

/* Entries FROM to TO of NAMES, the sorted names in folder PATH (REL), in order.  0, or the
 * first entry's error. */
static int add_names(struct pm_evidence *ev, const char *path, const char *rel, char **names,
		     size_t from, size_t to, char *err, size_t errlen, int depth, struct walk *w)
{
	int rc = 0;

	for (size_t i = from; i < to && rc == 0; i++) {
		char *p, *r;

		if (asprintf(&p, "%s/%s", path, names[i]) < 0)
			return -1;
		if (asprintf(&r, "%s%s%s", rel, rel[0] ? "/" : "", names[i]) < 0) {
			free(p);
			return -1;
		}
		rc = add_entry(ev, p, r, names[i], err, errlen, depth + 1, w);
		free(p);
		free(r);
	}
	return rc;
}

/*
 * The bundle files of a folder (a job's nodes/ holds thousands) are read on the set's
 * threads (pm_bundle_batch) while the folder is walked as add_names walks it: each is added
 * when the walk comes to it, after every entry before it, so the set is the same as with one
 * thread.
 */
struct bwalk {
	struct pm_evidence *ev;
	const char *path, *rel;
	char **names;
	size_t *at;  /* each bundle's index in NAMES */
	size_t next; /* the next name to walk */
	char *err;
	size_t errlen;
	int depth;
	struct walk *w;
	int rc; /* an entry's error (the walk stops), 0 */
};

static bool bundle_name(const char *path, const char *name)
{
	char *p;
	struct stat st;
	bool yes;

	if (name[0] == '.' || !(has_suffix(name, ".tar.zst") || has_suffix(name, ".tzst")))
		return false;
	if (asprintf(&p, "%s/%s", path, name) < 0)
		return false;
	yes = lstat(p, &st) == 0 && S_ISREG(st.st_mode);
	free(p);
	return yes;
}

static int bwalk_take(void *arg, size_t k, struct pm_loaded *l)
{
	struct bwalk *b = arg;

	b->rc = add_names(b->ev, b->path, b->rel, b->names, b->next, b->at[k], b->err, b->errlen,
			  b->depth, b->w);
	b->next = b->at[k] + 1;
	if (b->rc)
		return -1;
	/* add_entry's count, then add_one's pm_bundle_add_file */
	if (b->w->entries >= WALK_ENTRIES_MAX) {
		b->w->over++;
		return 0;
	}
	b->w->entries++;
	b->rc = pm_bundle_finish(b->ev, l, NULL, NULL, NULL, b->err, b->errlen);
	return b->rc ? -1 : 0;
}

static int add_bundles(struct pm_evidence *ev, const char *path, const char *rel, char **names,
		       size_t n, char *err, size_t errlen, int depth, struct walk *w)
{
	struct bwalk b = {ev, path, rel, names, NULL, 0, err, errlen, depth, w, 0};
	char **paths = calloc(n + 1, sizeof(*paths)), **rels = calloc(n + 1, sizeof(*rels));
	size_t nb = 0;
	int rc = -1;

	if (!paths || !rels || !(b.at = calloc(n + 1, sizeof(*b.at))))
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (!bundle_name(path, names[i]))
			continue;
		if (asprintf(&paths[nb], "%s/%s", path, names[i]) < 0)
			goto out;
		if (asprintf(&rels[nb], "%s%s%s", rel, rel[0] ? "/" : "", names[i]) < 0) {
			free(paths[nb]);
			paths[nb] = NULL;
			goto out;
		}
		b.at[nb++] = i;
	}
	if (nb < 2) {
		rc = add_names(ev, path, rel, names, 0, n, err, errlen, depth, w);
		goto out;
	}
	struct pm_bundle_batch bb = {.n = nb,
				     .paths = (const char *const *)paths,
				     .rels = (const char *const *)rels,
				     .take = bwalk_take,
				     .arg = &b};
	rc = pm_bundle_batch(ev, &bb);
	if (rc < 0 && b.rc)
		rc = b.rc;
	else if (rc == 0)
		rc = add_names(ev, path, rel, names, b.next, n, err, errlen, depth, w);
out:
	for (size_t i = 0; i < nb; i++) {
		free(paths[i]);
		free(rels[i]);
	}
	free(paths);
	free(rels);
	free(b.at);
	return rc;
}

static int add_dir(struct pm_evidence *ev, const char *path, const char *rel, char *err,
		   size_t errlen, int depth, struct walk *w)
{
	DIR *d;
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, a = 0;
	int rc = 0;

	if (depth > WALK_DEPTH_MAX)
		return left_out(ev, rel,
				"left out: folders nested more than %d deep; nothing in this "
				"one was read",
				WALK_DEPTH_MAX);
	d = opendir(path);
	if (!d) {
		int en = errno;
		struct pm_file *f = pm_ev_add_file(ev, rel[0] ? rel : ".");
		if (!f)
			return -1;
		f->status = en == EACCES || en == EPERM ? PM_ST_DENIED : PM_ST_UNREADABLE;
		return pm_strset(&f->reason, strerror(en), strlen(strerror(en)));
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (n == a && pm_grow((void **)&names, &a, sizeof(char *)) < 0)
			goto oom;
		if (!(names[n++] = strdup(e->d_name)))
			goto oom;
	}
	closedir(d);
	d = NULL;
	if (n > 1)
		qsort(names, n, sizeof(char *), pm_cmp_str);
	if (ev->threads > 1)
		rc = add_bundles(ev, path, rel, names, n, err, errlen, depth, w);
	else
		rc = add_names(ev, path, rel, names, 0, n, err, errlen, depth, w);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
oom:
	if (d)
		closedir(d);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	errno = ENOMEM;
	return -1;
}

static int add_one(struct pm_evidence *ev, const char *path, const char *rel, const struct stat *st,
		   char *err, size_t errlen, int depth, struct walk *w)
{
	struct pm_file *f;
	char *m;

	if (S_ISDIR(st->st_mode)) {
		struct stat ms;
		if (asprintf(&m, "%s/manifest.json", path) < 0)
			return -1;
		if (stat(m, &ms) == 0 && S_ISREG(ms.st_mode)) {
			int rc = pm_bundle_add_dir(ev, path, rel, err, errlen);
			free(m);
			return rc;
		}
		free(m);
		return add_dir(ev, path, rel, err, errlen, depth, w);
	}
	if (!S_ISREG(st->st_mode))
		return left_out(ev, rel, "left out: %s", kind_of(st->st_mode));
	if (has_suffix(rel, ".tar.zst") || has_suffix(rel, ".tzst"))
		return pm_bundle_add_file(ev, path, rel, err, errlen);
	f = pm_ev_add_file(ev, rel);
	if (!f || !(f->path = strdup(path)))
		return -1;
	f->mtime = (double)st->st_mtim.tv_sec + st->st_mtim.tv_nsec / 1e9;
	return 0;
}

int pm_evidence_add_path(struct pm_evidence *ev, const char *path, char *err, size_t errlen)
{
	struct stat st;
	struct walk w = {0};
	const char *base;
	int rc;

	if (stat(path, &st) < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		errno = e;
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		rc = add_one(ev, path, "", &st, err, errlen, 0, &w);
		if (rc == 0 && w.over)
			rc = left_out(ev, "",
				      "left out: %zu more files and folders past the walk's "
				      "limit of %d",
				      w.over, WALK_ENTRIES_MAX);
		return rc;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file or folder", path);
		errno = EINVAL;
		return -1;
	}
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	return add_one(ev, path, base, &st, err, errlen, 0, &w);
}
