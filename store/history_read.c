/*
 * history_read.c - the node history read (history.h): the ledger's refutations, one node's
 * records, the fleet, the records a verdict uses, and the sweep of expired records.  Readers
 * list a node's day folders first and open only the records of the period.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "history.h"
#include "history_int.h"
#include "pmutil.h"
#include "postmortem.h"

#define REC_MAX 4096 /* bytes of one record file */

/* ---- the ledger's refutations ---- */

struct res {
	char *job, *result;
	size_t seq;
};

static int res_cmp(const void *a, const void *b)
{
	const struct res *x = a, *y = b;
	int c = strcmp(x->job, y->job);
	return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

/* The string value of member KEY in the one-line JSON object LINE (LEN bytes) into OUT, when
 * it holds no escape and no control byte; 1 found, 0 absent, -1 not plain (the caller parses
 * the line).  A NUL inside the value would end OUT early: "n1<NUL>x" read as n1, where the
 * parser refuses the line. */
static int plain_member(const char *line, size_t len, const char *key, char *out, size_t outlen)
{
	char pat[32];
	const char *p, *end = line + len;
	size_t k = (size_t)snprintf(pat, sizeof(pat), "\"%s\"", key);

	for (p = line; (p = memmem(p, (size_t)(end - p), pat, k)); p += k) {
		const char *q = p + k, *v;
		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		if (q >= end || *q != ':')
			continue; /* the key's text inside a value */
		for (q++; q < end && (*q == ' ' || *q == '\t'); q++)
			;
		if (q >= end || *q != '"')
			return -1;
		for (v = ++q; q < end && *q != '"' && *q != '\\' && (unsigned char)*q >= 0x20; q++)
			;
		if (q >= end || *q != '"' || (size_t)(q - v) >= outlen)
			return -1;
		memcpy(out, v, (size_t)(q - v));
		out[q - v] = '\0';
		return 1;
	}
	return 0;
}

/* A ledger LINE's kind, job and result, read plainly, else parsed.  0, or -1 not an entry. */
static int entry_fields(const char *line, size_t len, char *kind, char *job, char *result,
			size_t each)
{
	json_t *e;
	int a = plain_member(line, len, "kind", kind, each),
	    b = plain_member(line, len, "job", job, each),
	    c = plain_member(line, len, "result", result, each);

	if (a >= 0 && b >= 0 && c >= 0) {
		if (!c)
			result[0] = '\0';
		return a && b ? 0 : -1;
	}
	if (!(e = json_loadb(line, len, 0, NULL)))
		return -1;
	snprintf(kind, each, "%s", S(e, "kind"));
	snprintf(job, each, "%s", S(e, "job"));
	snprintf(result, each, "%s", S(e, "result"));
	json_decref(e);
	return 0;
}

char **pm_history_refuted(const char *ledger)
{
	FILE *f = ledger ? fopen(ledger, "re") : NULL;
	struct res *v = NULL;
	size_t n = 0, cap = 0, nout = 0;
	char *line = NULL, **out = NULL, kind[200], job[200], result[200];
	size_t lcap = 0;
	ssize_t len;

	if (!f)
		return NULL;
	/* read without a JSON parser where the line is plain: a finalizer reads the whole ledger
	 * for every final verdict with a trusted origin */
	while ((len = getline(&line, &lcap, f)) > 0) {
		if (!memmem(line, (size_t)len, "\"resolved\"", 10) ||
		    entry_fields(line, (size_t)len, kind, job, result, sizeof(job)) < 0 ||
		    strcmp(kind, "resolved") || !job[0])
			continue;
		if (n == cap) {
			struct res *nv = realloc(v, (cap = cap ? 2 * cap : 64) * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		v[n].job = strdup(job);
		v[n].result = strdup(result);
		v[n].seq = n;
		if (v[n].job && v[n].result)
			n++;
		else {
			free(v[n].job);
			free(v[n].result);
		}
	}
	free(line);
	fclose(f);
	if (n > 1)
		qsort(v, n, sizeof(*v), res_cmp);
	for (size_t i = 0; i < n; i++)
		if ((i + 1 == n || strcmp(v[i].job, v[i + 1].job)) &&
		    !strcmp(v[i].result, "refuted"))
			pm_hist_strv_add(&out, &nout, v[i].job);
	for (size_t i = 0; i < n; i++) {
		free(v[i].job);
		free(v[i].result);
	}
	free(v);
	return out;
}

static bool refuted_has(char *const *refuted, const char *run)
{
	size_t lo = 0, hi = 0;

	if (!refuted)
		return false;
	while (refuted[hi])
		hi++;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(refuted[mid], run);
		if (!c)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* ---- reading ---- */

struct recs {
	struct pm_history_rec *v;
	size_t n, cap;
};

static int rec_cmp(const void *a, const void *b)
{
	const struct pm_history_rec *x = a, *y = b;
	int c;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	c = strcmp(x->run, y->run);
	return c ? c : strcmp(x->node, y->node);
}

/* Parse one record file's TEXT into R.  0, or -1 when it is not one. */
static int rec_parse_json(const char *text, size_t len, struct pm_history_rec *r)
{
	json_t *j = json_loadb(text, len, 0, NULL);
	int rc = -1;

	if (!j || strcmp(S(j, "schema"), PM_HISTORY_SCHEMA) || !*S(j, "run") || !*S(j, "class"))
		goto out;
	memset(r, 0, sizeof(*r));
	copy(r->run, sizeof(r->run), S(j, "run"));
	copy(r->node, sizeof(r->node), S(j, "node"));
	copy(r->cls, sizeof(r->cls), S(j, "class"));
	copy(r->sub, sizeof(r->sub), S(j, "subclass"));
	copy(r->conf, sizeof(r->conf), S(j, "confidence"));
	r->time = (double)json_integer_value(json_object_get(j, "time"));
	r->expires = (double)json_integer_value(json_object_get(j, "expires"));
	r->uid = json_is_integer(json_object_get(j, "uid")) ?
			 (long long)json_integer_value(json_object_get(j, "uid")) :
			 -1;
	r->hardware = pm_class_hardware(r->cls);
	rc = 0;
out:
	json_decref(j);
	return rc;
}

/* Member KEY of one-line object LINE as an integer, plainly: 1 found, 0 absent, -1 not plain.
 * LINE has no terminator (a record is read into a buffer of its size): the digits are taken
 * within LEN, never by strtoll from LINE, which ran past a record that ends in them. */
static int plain_int(const char *line, size_t len, const char *key, long long *out)
{
	char pat[32], num[24];
	const char *p, *d, *end = line + len;
	size_t k = (size_t)snprintf(pat, sizeof(pat), "\"%s\":", key);

	if (!(p = memmem(line, len, pat, k)))
		return 0;
	p += k;
	d = p < end && *p == '-' ? p + 1 : p;
	while (d < end && *d >= '0' && *d <= '9')
		d++;
	/* 18 characters at most: within long long; a longer number is the parser's */
	if (d == p || (*p == '-' && d == p + 1) || (size_t)(d - p) >= 19 || d >= end ||
	    (*d != ',' && *d != '}'))
		return -1;
	memcpy(num, p, (size_t)(d - p));
	num[d - p] = '\0';
	*out = strtoll(num, NULL, 10);
	return 1;
}

/* A record as the writers write it (compact, sorted, no escapes) is read without a JSON
 * parser: the fleet view reads tens of thousands.  Anything else is parsed. */
static int rec_parse(const char *text, size_t len, struct pm_history_rec *r)
{
	char schema[32];
	long long t = 0, x = 0, u = -1;
	int ok;

	memset(r, 0, sizeof(*r));
	ok = plain_member(text, len, "schema", schema, sizeof(schema)) == 1 &&
	     !strcmp(schema, PM_HISTORY_SCHEMA) &&
	     plain_member(text, len, "run", r->run, sizeof(r->run)) == 1 &&
	     plain_member(text, len, "node", r->node, sizeof(r->node)) == 1 &&
	     plain_member(text, len, "class", r->cls, sizeof(r->cls)) == 1 &&
	     plain_member(text, len, "subclass", r->sub, sizeof(r->sub)) == 1 &&
	     plain_member(text, len, "confidence", r->conf, sizeof(r->conf)) == 1 &&
	     plain_int(text, len, "time", &t) == 1 && plain_int(text, len, "expires", &x) >= 0 &&
	     plain_int(text, len, "uid", &u) >= 0 && r->run[0] && r->cls[0];
	if (!ok)
		return rec_parse_json(text, len, r);
	r->time = (double)t;
	r->expires = (double)x;
	r->uid = u;
	r->hardware = pm_class_hardware(r->cls);
	return 0;
}

/* Read record NAME in folder DFD into R: a record of NODE (NULL: any), its recorded time the
 * file's mtime (the store's clock, as the job's end is).  0, or -1 (gone meanwhile, not a
 * record). */
static int read_rec(int dfd, const char *name, const char *node, struct pm_history_rec *r)
{
	char buf[REC_MAX];
	struct stat st;
	ssize_t len;
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0)
		return -1;
	len = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, buf, sizeof(buf)) : -1;
	close(fd);
	if (len <= 0 || rec_parse(buf, (size_t)len, r) < 0 || (node && strcmp(r->node, node)))
		return -1;
	r->recorded = (double)st.st_mtime;
	return 0;
}

/* A growing list of names. */
struct nlist {
	char **v;
	size_t n, cap;
};

static int nl_add(struct nlist *s, const char *name)
{
	if (s->n == s->cap) { /* doubling: thousands of names */
		char **nv = realloc(s->v, (s->cap = s->cap ? 2 * s->cap : 64) * sizeof(*nv));
		if (!nv)
			return -1;
		s->v = nv;
	}
	if (!(s->v[s->n] = strdup(name)))
		return -1;
	s->n++;
	return 0;
}

static void nl_clear(struct nlist *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	s->n = 0;
}

static void nl_free(struct nlist *s)
{
	nl_clear(s);
	free(s->v);
	s->v = NULL;
	s->cap = 0;
}

static bool nl_has(const struct nlist *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], name))
			return true;
	return false;
}

static int name_cmp_desc(const void *a, const void *b)
{
	return strcmp(*(char *const *)b, *(char *const *)a);
}

/* The folder NAME in folder AT, as a DIR (no link followed), or NULL with errno. */
static DIR *open_dir(int at, const char *name)
{
	int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	DIR *d;

	if (fd < 0)
		return NULL;
	if (!(d = fdopendir(fd)))
		close(fd);
	return d;
}

/* A node's folder: its day folders, and the records that versions before the day folders
 * left in it (flat). */
struct node_list {
	DIR *d;
	struct nlist days; /* meeting the range, with the days of the flat records: newest first */
	struct nlist flat; /* the flat records in the range */
};

static void node_list_free(struct node_list *l)
{
	if (l->d)
		closedir(l->d);
	nl_free(&l->days);
	nl_free(&l->flat);
}

/* The start (UTC midnight, epoch seconds) of day folder NAME; -1 when NAME is not one. */
static double day_start(const char *name)
{
	struct tm tm = {0};

	if (strlen(name) != DAYLEN - 1 || name[4] != '-' || name[7] != '-')
		return -1;
	for (int i = 0; i < DAYLEN - 1; i++)
		if (i != 4 && i != 7 && (name[i] < '0' || name[i] > '9'))
			return -1;
	tm.tm_year = atoi(name) - 1900;
	tm.tm_mon = atoi(name + 5) - 1;
	tm.tm_mday = atoi(name + 8);
	if (tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31)
		return -1;
	return (double)timegm(&tm);
}

/* Does day folder DAY hold times in [SINCE, UNTIL) (UNTIL 0: no end)? */
static bool day_meets(const char *day, double since, double until)
{
	double t = day_start(day);

	return t >= 0 && t + 86400 > since && (until <= 0 || t < until);
}

static bool in_range(long long t, double since, double until)
{
	return t >= 0 && (double)t >= since && (until <= 0 || (double)t < until);
}

/* List NODE's folder under TOP into L for times in [SINCE, UNTIL) (UNTIL 0: no end): one
 * listing of a few names (a day each), however many records the node has.  0, or -1 with
 * errno (ENOENT: the node has no history). */
static int list_node(int top, const char *node, double since, double until, struct node_list *l)
{
	struct dirent *de;
	char day[DAYLEN];

	memset(l, 0, sizeof(*l));
	if (!(l->d = open_dir(top, node)))
		return -1;
	while ((de = readdir(l->d))) {
		long long t = pm_hist_name_time(de->d_name);
		if (t >= 0 ?
			    in_range(t, since, until) && nl_add(&l->flat, de->d_name) < 0 :
			    day_meets(de->d_name, since, until) && nl_add(&l->days, de->d_name) < 0)
			goto fail;
	}
	for (size_t i = 0; i < l->flat.n; i++) {
		pm_hist_day_of(pm_hist_name_time(l->flat.v[i]), day);
		if (!nl_has(&l->days, day) && nl_add(&l->days, day) < 0)
			goto fail;
	}
	if (l->days.n > 1)
		qsort(l->days.v, l->days.n, sizeof(*l->days.v), name_cmp_desc);
	return 0;
fail:
	node_list_free(l);
	errno = ENOMEM;
	return -1;
}

/* The record names of DAY (one of L's) in [SINCE, UNTIL), from its folder and L's flat ones,
 * newest first, each once, into OUT (cleared first); the folder stays open in *DD (NULL: it
 * has none).  0, or -1 with errno. */
static int day_names(const struct node_list *l, const char *day, double since, double until,
		     struct nlist *out, DIR **dd)
{
	struct dirent *de;
	char dd_day[DAYLEN];
	size_t m = 0;

	nl_clear(out);
	if (!(*dd = open_dir(dirfd(l->d), day)) && errno != ENOENT)
		return -1;
	while (*dd && (de = readdir(*dd)))
		if (in_range(pm_hist_name_time(de->d_name), since, until) &&
		    nl_add(out, de->d_name) < 0)
			goto fail;
	for (size_t i = 0; i < l->flat.n; i++) {
		pm_hist_day_of(pm_hist_name_time(l->flat.v[i]), dd_day);
		if (!strcmp(dd_day, day) && nl_add(out, l->flat.v[i]) < 0)
			goto fail;
	}
	if (out->n > 1)
		qsort(out->v, out->n, sizeof(*out->v), name_cmp_desc);
	for (size_t i = 0; i < out->n; i++) /* a flat record moved meanwhile: listed twice */
		if (m && !strcmp(out->v[m - 1], out->v[i]))
			free(out->v[i]);
		else
			out->v[m++] = out->v[i];
	out->n = m;
	return 0;
fail:
	if (*dd)
		closedir(*dd);
	*dd = NULL;
	errno = ENOMEM;
	return -1;
}

/* Read record NAME of DAY of L's node (NODE) into R: in the day folder DD, else flat, else in a
 * day folder made since DD was opened (sweep moves flat records into theirs).  0 or -1. */
static int read_day_rec(const struct node_list *l, DIR *dd, const char *day, const char *name,
			const char *node, struct pm_history_rec *r)
{
	char p[300];

	if (dd && read_rec(dirfd(dd), name, node, r) == 0)
		return 0;
	if (read_rec(dirfd(l->d), name, node, r) == 0)
		return 0;
	if (dd || (size_t)snprintf(p, sizeof(p), "%s/%s", day, name) >= sizeof(p))
		return -1;
	return read_rec(dirfd(l->d), p, node, r);
}

/* A record name of a node's walk (walk_node): in DAY, one of L's days, its folder open in DD
 * (NULL: none).  0 goes on; 1 ends the walk once this day's names are all given; -1 ends it
 * (errno set). */
typedef int walk_fn(void *arg, const struct node_list *l, DIR *dd, const char *day,
		    const char *name);

/* Hand FN every record name of NODE (in TOP) in [SINCE, UNTIL), newest day first and newest
 * first within a day (day_names).  0 (a node with no folder too), or -1 with errno. */
static int walk_node(int top, const char *node, double since, double until, walk_fn *fn, void *arg)
{
	struct node_list l;
	struct nlist nm = {0};
	bool last = false;
	int rc = 0;

	if (list_node(top, node, since, until, &l) < 0)
		return errno == ENOENT ? 0 : -1;
	for (size_t k = 0; !rc && !last && k < l.days.n; k++) {
		DIR *dd;
		if (day_names(&l, l.days.v[k], since, until, &nm, &dd) < 0) {
			rc = -1;
			break;
		}
		for (size_t i = 0; !rc && i < nm.n; i++) {
			int r = fn(arg, &l, dd, l.days.v[k], nm.v[i]);
			if (r < 0)
				rc = -1;
			else if (r > 0)
				last = true;
		}
		if (dd)
			closedir(dd);
	}
	nl_free(&nm);
	node_list_free(&l);
	return rc;
}

/* read_node's walk: every record not expired at NOW, marked refuted, into OUT. */
struct read_walk {
	const char *node;
	double now;
	char *const *refuted;
	struct recs *out;
};

static int read_one(void *arg, const struct node_list *l, DIR *dd, const char *day,
		    const char *name)
{
	struct read_walk *w = arg;
	struct recs *out = w->out;
	struct pm_history_rec r;

	if (read_day_rec(l, dd, day, name, w->node, &r) < 0 ||
	    (w->now > 0 && r.expires > 0 && r.expires <= w->now))
		return 0;
	r.refuted = refuted_has(w->refuted, r.run);
	if (out->n == out->cap) {
		struct pm_history_rec *nv =
			realloc(out->v, (out->cap = out->cap ? 2 * out->cap : 16) * sizeof(*nv));
		if (!nv) {
			errno = ENOMEM;
			return -1;
		}
		out->v = nv;
	}
	out->v[out->n++] = r;
	return 0;
}

static int read_node(int top, const char *node, double since, double until, double now,
		     char *const *refuted, struct recs *out)
{
	struct read_walk w = {.node = node, .now = now, .refuted = refuted, .out = out};
	int rc;

	out->n = 0;
	rc = walk_node(top, node, since, until, read_one, &w);
	if (out->n > 1)
		qsort(out->v, out->n, sizeof(*out->v), rec_cmp);
	return rc;
}

/* Move flat record NAME of node folder L (NODE, in TOP) into its day folder, made as the node's
 * (link, then unlink: a record a writer already put there stays).  A move that fails leaves it
 * where it is, for the next sweep. */
static void move_flat(const char *top, const char *node, const struct node_list *l,
		      const char *name)
{
	char day[DAYLEN], p[4400];
	struct stat st;
	int nfd = dirfd(l->d);

	pm_hist_day_of(pm_hist_name_time(name), day);
	if (fstat(nfd, &st) < 0 ||
	    (size_t)snprintf(p, sizeof(p), "%s/%s/%s", top, node, day) >= sizeof(p) ||
	    pm_hist_make_dir(p, st.st_gid) < 0)
		return;
	snprintf(p, sizeof(p), "%s/%s", day, name);
	if (linkat(nfd, name, nfd, p, 0) == 0 || errno == EEXIST)
		unlinkat(nfd, name, 0);
}

/* Sweep node NODE of TOP (its fd TFD): expired records go, flat ones move into their day
 * folders, emptied folders go.  The number removed. */
static int sweep_node(const char *top, int tfd, const char *node, double now)
{
	struct node_list l;
	struct nlist nm = {0};
	int removed = 0;

	if (list_node(tfd, node, -1e18, 0, &l) < 0)
		return 0;
	for (size_t i = 0; i < l.flat.n; i++) {
		struct pm_history_rec r;
		if (read_rec(dirfd(l.d), l.flat.v[i], NULL, &r) == 0 && r.expires > 0 &&
		    r.expires <= now) {
			removed += unlinkat(dirfd(l.d), l.flat.v[i], 0) == 0;
			continue;
		}
		move_flat(top, node, &l, l.flat.v[i]);
	}
	nl_clear(&l.flat);
	for (size_t k = 0; k < l.days.n; k++) {
		DIR *dd;
		if (day_names(&l, l.days.v[k], -1e18, 0, &nm, &dd) < 0 || !dd)
			continue;
		for (size_t i = 0; i < nm.n; i++) {
			struct pm_history_rec r;
			if (read_rec(dirfd(dd), nm.v[i], NULL, &r) == 0 && r.expires > 0 &&
			    r.expires <= now && unlinkat(dirfd(dd), nm.v[i], 0) == 0)
				removed++;
		}
		closedir(dd);
		unlinkat(dirfd(l.d), l.days.v[k], AT_REMOVEDIR); /* ENOTEMPTY: records left */
	}
	nl_free(&nm);
	node_list_free(&l);
	unlinkat(tfd, node, AT_REMOVEDIR);
	return removed;
}

int pm_history_sweep(const char *store, double now, char *err, size_t errlen)
{
	char top[4096];
	struct nlist nodes = {0};
	struct dirent *de;
	int removed = 0;
	DIR *d;

	snprintf(top, sizeof(top), "%s/%s", store, PM_HISTORY_DIR);
	if (!(d = opendir(top)))
		return errno == ENOENT ?
			       0 :
			       pmu_fail(err, errlen, errno, "%s: %s", top, strerror(errno));
	while ((de = readdir(d)))
		if (pm_hist_node_ok(de->d_name) && nl_add(&nodes, de->d_name) < 0) {
			nl_free(&nodes);
			closedir(d);
			return pmu_fail(err, errlen, ENOMEM, "out of memory");
		}
	for (size_t i = 0; i < nodes.n; i++)
		removed += sweep_node(top, dirfd(d), nodes.v[i], now);
	nl_free(&nodes);
	closedir(d);
	return removed;
}

static int open_top(const char *store, char *err, size_t errlen)
{
	char p[4096];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", store, PM_HISTORY_DIR);
	fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 && errno != ENOENT)
		pmu_fail(err, errlen, errno, "%s: %s", p, strerror(errno));
	return fd;
}

int pm_history_node(const char *store, const char *node, double since, double until, double now,
		    char *const *refuted, int (*fn)(const struct pm_history_rec *r, void *arg),
		    void *arg, char *err, size_t errlen)
{
	struct recs rs = {0};
	int top, rc = 0;

	if (!pm_hist_node_ok(node))
		return 0;
	if ((top = open_top(store, err, errlen)) < 0)
		return errno == ENOENT ? 0 : -1;
	if (read_node(top, node, since, until, now, refuted, &rs) < 0)
		rc = pmu_fail(err, errlen, errno, "%s/%s/%s: %s", store, PM_HISTORY_DIR, node,
			      strerror(errno));
	for (size_t i = 0; !rc && i < rs.n; i++)
		rc = fn(&rs.v[i], arg);
	close(top);
	free(rs.v);
	return rc;
}

int pm_history_fleet(const char *store, double since, double until, double now,
		     char *const *refuted,
		     int (*fn)(const char *node, const struct pm_history_rec *r, size_t n,
			       void *arg),
		     void *arg, char *err, size_t errlen)
{
	struct recs rs = {0};
	char **nodes = NULL;
	size_t nn = 0;
	int top, rc = 0;
	DIR *d;
	struct dirent *de;

	if ((top = open_top(store, err, errlen)) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!(d = fdopendir(dup(top)))) {
		rc = pmu_fail(err, errlen, errno, "%s/%s: %s", store, PM_HISTORY_DIR,
			      strerror(errno));
		goto out;
	}
	while ((de = readdir(d)))
		if (pm_hist_node_ok(de->d_name) && pm_hist_strv_add(&nodes, &nn, de->d_name) < 0) {
			closedir(d);
			rc = pmu_fail(err, errlen, ENOMEM, "out of memory");
			goto out;
		}
	closedir(d);
	if (nn > 1)
		qsort(nodes, nn, sizeof(*nodes), pm_hist_strv_cmp);
	for (size_t i = 0; !rc && i < nn; i++) {
		if (read_node(top, nodes[i], since, until, now, refuted, &rs) < 0) {
			rc = pmu_fail(err, errlen, errno, "%s/%s/%s: %s", store, PM_HISTORY_DIR,
				      nodes[i], strerror(errno));
			break;
		}
		if (rs.n)
			rc = fn(nodes[i], rs.v, rs.n, arg);
	}
out:
	close(top);
	free(rs.v);
	pm_history_strv_free(nodes);
	return rc;
}

/* ---- the records a verdict uses ---- */

struct gather {
	struct recs out;
	const char *cls;
	char self[200];
	double until; /* the job's end (the store's clock): records written later do not count */
	bool oom;
};

static int gather_one(const struct pm_history_rec *r, void *arg)
{
	struct gather *g = arg;
	char j[200];

	pm_hist_job_of(r->run, j, sizeof(j));
	if (r->refuted || !r->hardware || strcmp(r->cls, g->cls) || !strcmp(j, g->self) ||
	    r->recorded > g->until)
		return 0;
	if (g->out.n == g->out.cap) {
		struct pm_history_rec *nv =
			realloc(g->out.v,
				(g->out.cap = g->out.cap ? 2 * g->out.cap : 16) * sizeof(*nv));
		if (!nv) {
			g->oom = true;
			return -1;
		}
		g->out.v = nv;
	}
	g->out.v[g->out.n++] = *r;
	return 0;
}

/* Keep, of R (N, in time order), the records of each node's PM_HISTORY_USED_MAX latest
 * distinct jobs: enough to name the repeats, and a verdict stays small on a node that fails
 * every hour.  Returns the new count (order kept). */
static size_t latest_jobs(struct pm_history_rec *r, size_t n)
{
	struct kept {
		const char *node;
		char jobs[PM_HISTORY_USED_MAX][200];
		size_t n;
	} *kn = NULL;
	bool *keep = calloc(n ? n : 1, sizeof(*keep));
	size_t nk = 0, cap = 0, m = 0;

	if (!keep)
		return n;
	for (size_t i = n; i-- > 0;) {
		struct kept *k = NULL;
		char j[200];
		for (size_t q = 0; q < nk && !k; q++)
			if (!strcmp(kn[q].node, r[i].node))
				k = &kn[q];
		if (!k) { /* a node more: as many as the verdict has origin nodes */
			if (nk == cap) {
				struct kept *nv =
					realloc(kn, (cap = cap ? 2 * cap : 2) * sizeof(*nv));
				if (!nv) {
					free(kn);
					free(keep);
					return n;
				}
				kn = nv;
			}
			k = &kn[nk++];
			k->node = r[i].node;
			k->n = 0;
		}
		pm_hist_job_of(r[i].run, j, sizeof(j));
		for (size_t q = 0; q < k->n && !keep[i]; q++)
			keep[i] = !strcmp(k->jobs[q], j);
		if (!keep[i] && k->n < PM_HISTORY_USED_MAX) {
			snprintf(k->jobs[k->n++], sizeof(k->jobs[0]), "%s", j);
			keep[i] = true;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (keep[i])
			r[m++] = r[i];
	free(keep);
	free(kn);
	return m;
}

/* The job ("<cluster>/<job>") of record file NAME ("<time>.<cluster>.<job>.<restart>.json",
 * job and restart free of dots) into OUT; false when NAME is not so. */
static bool name_job(const char *name, char *out, size_t len)
{
	const char *c = strchr(name, '.'), *e = name + strlen(name), *r, *j;

	if (!c || e - c < 6 || strcmp(e - 5, ".json"))
		return false;
	for (r = e - 5; r > c && r[-1] != '.'; r--)
		;
	if (r <= c + 1)
		return false;
	for (j = r - 1; j > c && j[-1] != '.'; j--)
		;
	if (j <= c + 1)
		return false;
	return (size_t)snprintf(out, len, "%.*s/%.*s", (int)(j - 1 - (c + 1)), c + 1,
				(int)(r - 1 - j), j) < len;
}

/* gather_node's walk: the jobs gathered so far, and the time the last of the first
 * PM_HISTORY_USED_MAX came in (-1 until then). */
struct gather_walk {
	const char *node;
	char *const *refuted;
	struct gather *g;
	char **jobs;
	size_t nj;
	long long bound;
};

static int gather_name(void *arg, const struct node_list *l, DIR *dd, const char *day,
		       const char *name)
{
	struct gather_walk *w = arg;
	struct pm_history_rec r;
	long long t = pm_hist_name_time(name);
	size_t before = w->g->out.n;
	char j[200];

	if (w->bound >= 0 && t < w->bound && name_job(name, j, sizeof(j)) &&
	    !pm_hist_strv_has(w->jobs, w->nj, j))
		return 0; /* not one of the node's latest jobs */
	if (read_day_rec(l, dd, day, name, w->node, &r) < 0)
		return 0; /* removed meanwhile, or not a record */
	r.refuted = refuted_has(w->refuted, r.run);
	if (gather_one(&r, w->g) < 0)
		return -1;
	if (w->g->out.n == before)
		return 0;
	pm_hist_job_of(r.run, j, sizeof(j));
	if (!pm_hist_strv_has(w->jobs, w->nj, j) && pm_hist_strv_add(&w->jobs, &w->nj, j) < 0)
		return -1;
	if (w->bound < 0 && w->nj >= PM_HISTORY_USED_MAX)
		w->bound = t;
	return w->bound >= 0; /* older days are not listed */
}

/* Gather NODE's records in [SINCE, UNTIL) into G, newest first (the day folders and the names
 * sort by time): once PM_HISTORY_USED_MAX distinct jobs are in, older files of that day are
 * opened only for those jobs and older days are not listed, so a node failing every minute
 * costs a day's listing and a few dozen reads.  What is gathered is what latest_jobs keeps of
 * the days read.  0, or -1 with errno. */
static int gather_node(int top, const char *node, double since, double until, char *const *refuted,
		       struct gather *g)
{
	struct gather_walk w = {.node = node, .refuted = refuted, .g = g, .bound = -1};
	int rc = walk_node(top, node, since, until, gather_name, &w);

	pm_history_strv_free(w.jobs);
	return rc;
}

int pm_history_gather(const char *store, const char *ledger, const json_t *verdict, const char *run,
		      double time, const struct pm_history_policy *pol, struct pm_history_rec **out,
		      size_t *n, char *err, size_t errlen)
{
	struct gather g = {.cls = S(json_object_get(verdict, "cause"), "class"),
			   .until = (double)(long long)time};
	char **nodes = NULL, **refuted = NULL;
	int rc = 0, top;

	*out = NULL;
	*n = 0;
	if (!store || !pm_class_hardware(g.cls) || !(nodes = pm_history_origin_nodes(verdict)))
		return 0;
	pm_hist_job_of(run, g.self, sizeof(g.self));
	if ((top = open_top(store, err, errlen)) < 0) {
		pm_history_strv_free(nodes);
		return errno == ENOENT ? 0 : -1;
	}
	refuted = pm_history_refuted(ledger);
	for (size_t i = 0; !rc && nodes[i]; i++)
		if (pm_hist_node_ok(nodes[i]) &&
		    gather_node(top, nodes[i], (double)(long long)time - pol->window,
				(double)(long long)time, refuted, &g) < 0)
			rc = pmu_fail(err, errlen, g.oom ? ENOMEM : errno, "%s/%s/%s: %s", store,
				      PM_HISTORY_DIR, nodes[i], strerror(g.oom ? ENOMEM : errno));
	close(top);
	pm_history_strv_free(nodes);
	pm_history_strv_free(refuted);
	if (rc) {
		free(g.out.v);
		return -1;
	}
	if (g.out.n > 1)
		qsort(g.out.v, g.out.n, sizeof(*g.out.v), rec_cmp);
	g.out.n = latest_jobs(g.out.v, g.out.n);
	*out = g.out.v;
	*n = g.out.n;
	return 0;
}
