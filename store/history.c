/*
 * history.c - the node history (history.h): one file per record in a folder per node,
 * written by the run's merger only, read by the next verdicts, `postmortem nodes` and the
 * metrics.
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

#include "finalize_int.h"
#include "history.h"
#include "pmutil.h"
#include "postmortem.h"

#define REC_MAX 4096	   /* bytes of one record file */
#define RUN_FILE_MAX 65536 /* bytes of <jobdir>/node-history.json */
#define KEYLEN 64

static int rec_parse(const char *text, size_t len, struct pm_history_rec *r);

static const char *S(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

static bool node_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n >= sizeof(((struct pm_history_rec *)0)->node) || s[0] == '.' || s[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '-' || s[i] == '_' || s[i] == '.'))
			return false;
	return true;
}

void pm_history_policy_default(struct pm_history_policy *p)
{
	p->jobs = PM_HISTORY_JOBS;
	p->window = PM_HISTORY_WINDOW;
}

void pm_history_policy_of(unsigned jobs, double window, struct pm_history_policy *p)
{
	pm_history_policy_default(p);
	if (jobs >= 2)
		p->jobs = jobs;
	if (window > 0)
		p->window = window;
}

void pm_history_strv_free(char **v)
{
	if (!v)
		return;
	for (size_t i = 0; v[i]; i++)
		free(v[i]);
	free(v);
}

static int strv_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool strv_has(char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return true;
	return false;
}

/* Append a copy of S to *V (N entries, NULL-terminated).  0 or -1. */
static int strv_add(char ***v, size_t *n, const char *s)
{
	char **nv = realloc(*v, (*n + 2) * sizeof(*nv));

	if (!nv)
		return -1;
	*v = nv;
	if (!(nv[*n] = strdup(s)))
		return -1;
	nv[++*n] = NULL;
	return 0;
}

char **pm_history_origin_nodes(const json_t *verdict)
{
	const json_t *onodes = json_object_get(json_object_get(verdict, "origin"), "nodes"), *e;
	const char *cls = S(json_object_get(verdict, "cause"), "class");
	char **v = NULL;
	size_t n = 0, i;

	if (strcmp(S(verdict, "status"), "attributed") || !*cls || !json_is_array(onodes))
		return NULL;
	json_array_foreach(json_object_get(verdict, "evidence"), i, e)
	{
		const char *node = S(e, "node");
		bool named = false;
		size_t k;
		const json_t *o;
		if (strcmp(S(e, "role"), "origin") ||
		    !json_is_true(json_object_get(e, "trusted")) || strcmp(S(e, "class"), cls) ||
		    !node_name_ok(node) || strv_has(v, n, node))
			continue;
		json_array_foreach(onodes, k, o)
			named = named || !strcmp(json_string_value(o) ?: "", node);
		if (named && strv_add(&v, &n, node) < 0) {
			pm_history_strv_free(v);
			return NULL;
		}
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), strv_cmp);
	return v;
}

/* ---- paths ---- */

#define DAYLEN 11 /* "YYYY-MM-DD" and its NUL */

/* The time a record file NAME leads with ("<time>.<cluster>.<job>.<restart>.json"); -1 when
 * NAME is not one (a day folder, a writer's dot file). */
static long long name_time(const char *name)
{
	char *end;
	long long t;

	if (name[0] < '0' || name[0] > '9')
		return -1;
	t = strtoll(name, &end, 10);
	return *end == '.' ? t : -1;
}

/* The day folder (UTC) of time T into OUT (DAYLEN bytes). */
static void day_of(long long t, char *out)
{
	time_t s = (time_t)t;
	struct tm tm;

	if (t < 0 || !gmtime_r(&s, &tm) || tm.tm_year + 1900 > 9999)
		memset(&tm, 0, sizeof(tm));
	snprintf(out, DAYLEN, "%04u-%02u-%02u", (unsigned)(tm.tm_year + 1900) % 10000u,
		 (unsigned)(tm.tm_mon + 1) % 100u, (unsigned)tm.tm_mday % 100u);
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

/* The path of record REL ("<node>/<file>") in STORE: in its day folder, or (FLAT) where
 * versions before the day folders wrote it.  0, or -1 with errno. */
static int rec_path(char *out, size_t len, const char *store, const char *rel, bool flat)
{
	const char *file = strchr(rel, '/');
	char day[DAYLEN];
	long long t = file ? name_time(file + 1) : -1;

	if (t < 0) {
		errno = EINVAL;
		return -1;
	}
	day_of(t, day);
	if ((size_t)(flat ? snprintf(out, len, "%s/%s/%s", store, PM_HISTORY_DIR, rel) :
			    snprintf(out, len, "%s/%s/%.*s/%s/%s", store, PM_HISTORY_DIR,
				     (int)(file - rel), rel, day, file + 1)) >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* Remove record REL ("<node>/<file>") of STORE, in its day folder or flat, and the day folder
 * when that leaves it empty (a writer making it meanwhile tries again).  1 removed, 0 there was
 * none, -1 with errno. */
static int rec_remove(const char *store, const char *rel)
{
	char p[4400];

	if (rec_path(p, sizeof(p), store, rel, false) < 0)
		return errno == EINVAL ? 0 : -1;
	if (unlink(p) == 0) {
		*strrchr(p, '/') = '\0';
		rmdir(p); /* ENOTEMPTY: others' records */
		return 1;
	}
	if (errno != ENOENT || rec_path(p, sizeof(p), store, rel, true) < 0)
		return -1;
	if (unlink(p) == 0)
		return 1;
	return errno == ENOENT ? 0 : -1;
}

/* mkdir DIR (EEXIST fine), group GID (-1: as made), mode 0750 plus setgid. */
static int make_dir(const char *dir, gid_t gid)
{
	if (mkdir(dir, 02750) < 0) {
		if (errno != EEXIST)
			return -1;
	} else if (chmod(dir, 02750) < 0) { /* whatever the umask (the collector's is 077) */
		return -1;
	}
	if (gid != (gid_t)-1 && chown(dir, (uid_t)-1, gid) < 0 && errno != EPERM)
		return -1;
	return 0;
}

/* ---- writing ---- */

/* The record files RUN wrote before ("<node>/<file>"), from <jobdir>/node-history.json. */
static char **run_files(const char *jobdir, size_t *n)
{
	char p[4096], *text = NULL;
	json_t *j, *e;
	char **v = NULL;
	size_t i;

	*n = 0;
	snprintf(p, sizeof(p), "%s/%s", jobdir, PM_HISTORY_RUN);
	if (pm_fin_read(p, RUN_FILE_MAX, &text, NULL) < 0)
		return NULL;
	j = json_loads(text, 0, NULL);
	free(text);
	json_array_foreach(json_object_get(j, "records"), i, e)
	{
		const char *s = json_string_value(e);
		/* "<node>/<file>": one slash, no way up */
		if (s && strchr(s, '/') && !strchr(strchr(s, '/') + 1, '/') && s[0] != '.' &&
		    !strstr(s, "/.") && strv_add(&v, n, s) < 0)
			break;
	}
	json_decref(j);
	return v;
}

/* Write DIR/NAME holding TEXT and a newline, whole (pm_fin_write).  0 or -1. */
static int write_line(const char *dir, const char *name, const char *text)
{
	size_t n = strlen(text);
	char *l = malloc(n + 2);
	int rc;

	if (!l)
		return -1;
	memcpy(l, text, n);
	l[n] = '\n';
	l[n + 1] = '\0';
	rc = pm_fin_write(dir, name, l, n + 1);
	free(l);
	return rc;
}

/* Write record NAME in DIR holding TEXT, group GID (-1: as made), whole (pm_fin_write); with
 * TIMES its mtime is set before it takes its name (a run recorded again keeps its first
 * mtime: a re-merge leaves the history other verdicts saw as it was).  0 or -1. */
static int write_rec(const char *dir, const char *name, const char *text, gid_t gid,
		     const struct timespec *times)
{
	char tmp[300], p[4400], host[64] = "";
	const char *as = name;

	if (times) { /* under a dot name first: readers skip those */
		gethostname(host, sizeof(host) - 1);
		if ((size_t)snprintf(tmp, sizeof(tmp), ".%s.%s.%ld.again", name, host,
				     (long)getpid()) >= sizeof(tmp)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		as = tmp;
	}
	if (write_line(dir, as, text) < 0)
		return -1;
	snprintf(p, sizeof(p), "%s/%s", dir, as);
	if ((gid != (gid_t)-1 && chown(p, (uid_t)-1, gid) < 0 && errno != EPERM) ||
	    (times && utimensat(AT_FDCWD, p, times, AT_SYMLINK_NOFOLLOW) < 0)) {
		int e = errno;
		if (times)
			unlink(p);
		errno = e;
		return -1;
	}
	if (times) {
		char dst[4400];
		snprintf(dst, sizeof(dst), "%s/%s", dir, name);
		if (rename(p, dst) < 0) {
			int e = errno;
			unlink(p);
			errno = e;
			return -1;
		}
	}
	return 0;
}

static json_t *rec_json(const struct pm_history_rec *r)
{
	return json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:I,s:I,s:I}", "schema", PM_HISTORY_SCHEMA,
			 "run", r->run, "node", r->node, "class", r->cls, "subclass", r->sub,
			 "confidence", r->conf, "time", (json_int_t)r->time, "expires",
			 (json_int_t)r->expires, "uid", (json_int_t)r->uid);
}

/* The mtime of record REL ("<node>/<file>") into *MTIME: 1 in its day folder, 2 where an
 * earlier version wrote it (flat), 0 when there is none. */
static int first_recorded(const char *store, const char *rel, struct timespec *mtime)
{
	char p[4400];
	struct stat st;

	for (int flat = 0; flat < 2; flat++)
		if (rec_path(p, sizeof(p), store, rel, flat) == 0 && lstat(p, &st) == 0 &&
		    S_ISREG(st.st_mode)) {
			*mtime = st.st_mtim;
			return 1 + flat;
		}
	return 0;
}

/* Write NODE's record NAME (time T) holding TEXT into its day folder, making the folders as
 * needed (group GID), with TIMES as write_rec.  A folder that expire removed meanwhile (it was
 * empty) is made again.  0, or -1 with errno and the path that failed in PATH. */
static int write_day(const char *store, const char *node, const char *name, long long t,
		     const char *text, gid_t gid, const struct timespec *times, char *path,
		     size_t len)
{
	char day[DAYLEN];

	day_of(t, day);
	for (int try = 0;; try++) {
		int n = snprintf(path, len, "%s/%s/%s", store, PM_HISTORY_DIR, node), e;
		if (n < 0 || (size_t)n + DAYLEN >= len) {
			errno = ENAMETOOLONG;
			return -1;
		}
		if (make_dir(path, gid) == 0) {
			snprintf(path + n, len - (size_t)n, "/%s", day);
			if (make_dir(path, gid) == 0) {
				if (write_rec(path, name, text, gid, times) == 0)
					return 0;
				e = errno;
				snprintf(path + n + DAYLEN, len - (size_t)n - DAYLEN, "/%s", name);
				errno = e;
			}
		}
		if (errno != ENOENT || try == 2)
			return -1;
	}
}

int pm_history_record(const char *store, const char *jobdir, const json_t *verdict, double time,
		      long long uid, double expires, char *err, size_t errlen)
{
	char cluster[KEYLEN], job[KEYLEN], restart[KEYLEN], top[4096], dir[4096], name[300];
	char **nodes = pm_history_origin_nodes(verdict), **old = NULL, **now = NULL;
	size_t nold = 0, nnow = 0;
	struct pm_history_rec r = {0};
	const json_t *cause = json_object_get(verdict, "cause");
	json_t *list = NULL;
	char *text = NULL;
	struct stat st;
	gid_t gid = (gid_t)-1;
	int rc = -1, written = 0;

	if (pm_fin_key(jobdir, cluster, job, restart, KEYLEN) < 0) {
		pmu_fail(err, errlen, EINVAL, "%s: not a job run's folder", jobdir);
		goto out;
	}
	old = run_files(jobdir, &nold);
	if (!nodes && !nold) {
		rc = 0;
		goto out;
	}
	if (stat(jobdir, &st) == 0)
		gid = st.st_gid;
	snprintf(r.run, sizeof(r.run), "%s/%s/%s", cluster, job, restart);
	snprintf(r.cls, sizeof(r.cls), "%s", S(cause, "class"));
	snprintf(r.sub, sizeof(r.sub), "%s", S(cause, "subclass"));
	snprintf(r.conf, sizeof(r.conf), "%s", S(verdict, "confidence"));
	r.time = time > 0 ? (double)(long long)time : 0;
	r.expires = expires > 0 ? (double)(long long)expires : 0;
	r.uid = uid;
	snprintf(top, sizeof(top), "%s/%s", store, PM_HISTORY_DIR);
	if (nodes && make_dir(top, gid) < 0) {
		pmu_fail(err, errlen, errno, "%s: %s", top, strerror(errno));
		goto out;
	}
	if ((size_t)snprintf(name, sizeof(name), "%010lld.%s.%s.%s.json", (long long)r.time,
			     cluster, job, restart) >= sizeof(name)) {
		pmu_fail(err, errlen, ENAMETOOLONG, "%s: key too long", jobdir);
		goto out;
	}
	for (size_t i = 0; nodes && nodes[i]; i++) {
		char rel[400];
		struct timespec first[2] = {{.tv_nsec = UTIME_OMIT}};
		int again;
		json_t *o;
		snprintf(rel, sizeof(rel), "%s/%s", nodes[i], name);
		again = first_recorded(store, rel, &first[1]);
		snprintf(r.node, sizeof(r.node), "%s", nodes[i]);
		o = rec_json(&r);
		text = o ? json_dumps(o, JSON_SORT_KEYS | JSON_COMPACT) : NULL;
		json_decref(o);
		if (!text) {
			pmu_fail(err, errlen, ENOMEM, "out of memory");
			goto out;
		}
		if (write_day(store, nodes[i], name, (long long)r.time, text, gid,
			      again ? first : NULL, dir, sizeof(dir)) < 0) {
			pmu_fail(err, errlen, errno, "%s: %s", dir, strerror(errno));
			goto out;
		}
		/* the flat copy an earlier version wrote: the day folder's replaces it */
		if (again == 2 && rec_path(dir, sizeof(dir), store, rel, true) == 0 &&
		    unlink(dir) < 0 && errno != ENOENT) {
			pmu_fail(err, errlen, errno, "%s: %s", dir, strerror(errno));
			goto out;
		}
		free(text);
		text = NULL;
		if (strv_add(&now, &nnow, rel) < 0)
			goto out;
		written++;
	}
	/* the list first, then the old records it no longer names: a crash between leaves a
	 * record that expire still finds, never a list naming files that are gone */
	list = json_pack("{s:s,s:s,s:[]}", "schema", PM_HISTORY_SCHEMA, "run", r.run, "records");
	for (size_t i = 0; list && i < nnow; i++)
		json_array_append_new(json_object_get(list, "records"), json_string(now[i]));
	for (size_t i = 0; list && i < nold; i++)
		if (!strv_has(now, nnow, old[i]))
			json_array_append_new(json_object_get(list, "records"),
					      json_string(old[i]));
	if (!list || !(text = json_dumps(list, JSON_SORT_KEYS | JSON_COMPACT)) ||
	    pm_fin_write(jobdir, PM_HISTORY_RUN, text, strlen(text)) < 0) {
		pmu_fail(err, errlen, errno ? errno : ENOMEM, "%s/%s: %s", jobdir, PM_HISTORY_RUN,
			 strerror(errno ? errno : ENOMEM));
		goto out;
	}
	free(text);
	text = NULL;
	for (size_t i = 0; i < nold; i++) {
		char p[4400];
		if (strv_has(now, nnow, old[i]))
			continue;
		if (rec_remove(store, old[i]) < 0) {
			snprintf(p, sizeof(p), "%s/%s/%s", store, PM_HISTORY_DIR, old[i]);
			pmu_fail(err, errlen, errno, "%s: %s", p, strerror(errno));
			goto out;
		}
	}
	if (nold) {
		json_decref(list);
		list = json_pack("{s:s,s:s,s:[]}", "schema", PM_HISTORY_SCHEMA, "run", r.run,
				 "records");
		for (size_t i = 0; list && i < nnow; i++)
			json_array_append_new(json_object_get(list, "records"),
					      json_string(now[i]));
		if (!list || !(text = json_dumps(list, JSON_SORT_KEYS | JSON_COMPACT)) ||
		    pm_fin_write(jobdir, PM_HISTORY_RUN, text, strlen(text)) < 0) {
			pmu_fail(err, errlen, errno ? errno : ENOMEM, "%s/%s: %s", jobdir,
				 PM_HISTORY_RUN, strerror(errno ? errno : ENOMEM));
			goto out;
		}
	}
	rc = written;
out:
	free(text);
	json_decref(list);
	pm_history_strv_free(nodes);
	pm_history_strv_free(old);
	pm_history_strv_free(now);
	return rc;
}

int pm_history_forget(const char *store, const char *jobdir, char *err, size_t errlen)
{
	size_t n;
	char **old = run_files(jobdir, &n);
	int removed = 0;

	for (size_t i = 0; i < n; i++) {
		int rc = rec_remove(store, old[i]);
		if (rc > 0)
			removed++;
		else if (rc < 0) {
			pmu_fail(err, errlen, errno, "%s/%s/%s: %s", store, PM_HISTORY_DIR, old[i],
				 strerror(errno));
			pm_history_strv_free(old);
			return -1;
		}
	}
	pm_history_strv_free(old);
	return removed;
}

double pm_history_job_end(const char *jobdir)
{
	char p[4096];
	struct stat st;
	double t = 0;
	DIR *d;
	struct dirent *de;

	snprintf(p, sizeof(p), "%s/arrivals", jobdir);
	if (stat(p, &st) == 0)
		return (double)st.st_mtime;
	snprintf(p, sizeof(p), "%s/arrived", jobdir);
	if ((d = opendir(p))) {
		while ((de = readdir(d)))
			if (de->d_name[0] != '.' &&
			    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    (t == 0 || (double)st.st_mtime < t))
				t = (double)st.st_mtime;
		closedir(d);
	}
	if (t == 0 && stat(jobdir, &st) == 0)
		t = (double)st.st_mtime;
	return t;
}

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
 * it holds no escape; 1 found, 0 absent, -1 not plain (the caller parses the line). */
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
		for (v = ++q; q < end && *q != '"' && *q != '\\'; q++)
			;
		if (q >= end || *q == '\\' || (size_t)(q - v) >= outlen)
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
			strv_add(&out, &nout, v[i].job);
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

static void copy(char *dst, size_t len, const char *s)
{
	snprintf(dst, len, "%s", s);
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

/* Member KEY of one-line object LINE as an integer, plainly: 1 found, 0 absent, -1 not plain. */
static int plain_int(const char *line, size_t len, const char *key, long long *out)
{
	char pat[32], *e;
	const char *p, *end = line + len;
	size_t k = (size_t)snprintf(pat, sizeof(pat), "\"%s\":", key);

	if (!(p = memmem(line, len, pat, k)))
		return 0;
	p += k;
	if (p >= end || !((*p >= '0' && *p <= '9') || *p == '-'))
		return -1;
	*out = strtoll(p, &e, 10);
	return e < end && (*e == ',' || *e == '}') ? 1 : -1;
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
		long long t = name_time(de->d_name);
		if (t >= 0 ?
			    in_range(t, since, until) && nl_add(&l->flat, de->d_name) < 0 :
			    day_meets(de->d_name, since, until) && nl_add(&l->days, de->d_name) < 0)
			goto fail;
	}
	for (size_t i = 0; i < l->flat.n; i++) {
		day_of(name_time(l->flat.v[i]), day);
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
		if (in_range(name_time(de->d_name), since, until) && nl_add(out, de->d_name) < 0)
			goto fail;
	for (size_t i = 0; i < l->flat.n; i++) {
		day_of(name_time(l->flat.v[i]), dd_day);
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

static int read_node(int top, const char *node, double since, double until, double now,
		     char *const *refuted, struct recs *out)
{
	struct node_list l;
	struct nlist nm = {0};
	int rc = 0;

	out->n = 0;
	if (list_node(top, node, since, until, &l) < 0)
		return errno == ENOENT ? 0 : -1;
	for (size_t k = 0; !rc && k < l.days.n; k++) {
		DIR *dd;
		if (day_names(&l, l.days.v[k], since, until, &nm, &dd) < 0) {
			rc = -1;
			break;
		}
		for (size_t i = 0; !rc && i < nm.n; i++) {
			struct pm_history_rec r;
			if (read_day_rec(&l, dd, l.days.v[k], nm.v[i], node, &r) < 0 ||
			    (now > 0 && r.expires > 0 && r.expires <= now))
				continue;
			r.refuted = refuted_has(refuted, r.run);
			if (out->n == out->cap) {
				struct pm_history_rec *nv =
					realloc(out->v, (out->cap = out->cap ? 2 * out->cap : 16) *
								sizeof(*nv));
				if (!nv) {
					rc = -1;
					errno = ENOMEM;
					break;
				}
				out->v = nv;
			}
			out->v[out->n++] = r;
		}
		if (dd)
			closedir(dd);
	}
	nl_free(&nm);
	node_list_free(&l);
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

	day_of(name_time(name), day);
	if (fstat(nfd, &st) < 0 ||
	    (size_t)snprintf(p, sizeof(p), "%s/%s/%s", top, node, day) >= sizeof(p) ||
	    make_dir(p, st.st_gid) < 0)
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
		if (node_name_ok(de->d_name) && nl_add(&nodes, de->d_name) < 0) {
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

	if (!node_name_ok(node))
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
		if (node_name_ok(de->d_name) && strv_add(&nodes, &nn, de->d_name) < 0) {
			closedir(d);
			rc = pmu_fail(err, errlen, ENOMEM, "out of memory");
			goto out;
		}
	closedir(d);
	if (nn > 1)
		qsort(nodes, nn, sizeof(*nodes), strv_cmp);
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

/* ---- the policy ---- */

/* The job of RUN ("cluster/job/restart" less its restart) into OUT. */
static void job_of(const char *run, char *out, size_t len)
{
	const char *slash = strrchr(run, '/');
	size_t n = slash ? (size_t)(slash - run) : strlen(run);

	if (n >= len)
		n = len - 1;
	memcpy(out, run, n);
	out[n] = '\0';
}

/* Distinct jobs among R[0..N) of class CLS (not refuted, hardware) with time in [FROM, TO],
 * plus SELF's job when not NULL; the runs into *BY when BY. */
static size_t count_jobs(const struct pm_history_rec *r, size_t n, const char *cls, double from,
			 double to, const char *self, char ***by)
{
	char **jobs = NULL, **runs = NULL, j[200];
	size_t nj = 0, nr = 0;

	if (self) {
		job_of(self, j, sizeof(j));
		strv_add(&jobs, &nj, j);
	}
	for (size_t i = 0; i < n; i++) {
		if (r[i].refuted || !r[i].hardware || strcmp(r[i].cls, cls) || r[i].time < from ||
		    r[i].time > to)
			continue;
		job_of(r[i].run, j, sizeof(j));
		if (!strv_has(jobs, nj, j))
			strv_add(&jobs, &nj, j);
		if (by && !strv_has(runs, nr, r[i].run))
			strv_add(&runs, &nr, r[i].run);
	}
	pm_history_strv_free(jobs);
	if (by)
		*by = runs;
	else
		pm_history_strv_free(runs);
	return nj;
}

bool pm_history_justified(const struct pm_history_rec *r, size_t n, const char *cls,
			  const struct pm_history_policy *pol, char ***by)
{
	if (by)
		*by = NULL;
	/* each record's class, as the latest of a window ending at it: the first that meets the
	 * policy, latest first (the repair most recently justified) */
	for (size_t k = n; k-- > 0;) {
		char **runs = NULL;
		if (r[k].refuted || !r[k].hardware || (cls && strcmp(r[k].cls, cls)))
			continue;
		if (count_jobs(r, k + 1, r[k].cls, r[k].time - pol->window, r[k].time, NULL,
			       by ? &runs : NULL) >= pol->jobs) {
			if (by)
				*by = runs;
			return true;
		}
		pm_history_strv_free(runs);
	}
	return false;
}

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

	job_of(r->run, j, sizeof(j));
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
		job_of(r[i].run, j, sizeof(j));
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

/* Gather NODE's records in [SINCE, UNTIL) into G, newest first (the day folders and the names
 * sort by time): once PM_HISTORY_USED_MAX distinct jobs are in, older files of that day are
 * opened only for those jobs and older days are not listed, so a node failing every minute
 * costs a day's listing and a few dozen reads.  What is gathered is what latest_jobs keeps of
 * the days read.  0, or -1 with errno. */
static int gather_node(int top, const char *node, double since, double until, char *const *refuted,
		       struct gather *g)
{
	struct node_list l;
	struct nlist nm = {0};
	char **jobs = NULL;
	size_t nj = 0;
	long long bound = -1; /* the time the last of those jobs came in */
	int rc = 0;

	if (list_node(top, node, since, until, &l) < 0)
		return errno == ENOENT ? 0 : -1;
	for (size_t k = 0; !rc && bound < 0 && k < l.days.n; k++) {
		DIR *dd;
		if (day_names(&l, l.days.v[k], since, until, &nm, &dd) < 0) {
			rc = -1;
			break;
		}
		for (size_t i = 0; !rc && i < nm.n; i++) {
			struct pm_history_rec r;
			long long t = name_time(nm.v[i]);
			size_t before = g->out.n;
			char j[200];
			if (bound >= 0 && t < bound && name_job(nm.v[i], j, sizeof(j)) &&
			    !strv_has(jobs, nj, j))
				continue; /* not one of the node's latest jobs */
			if (read_day_rec(&l, dd, l.days.v[k], nm.v[i], node, &r) < 0)
				continue; /* removed meanwhile, or not a record */
			r.refuted = refuted_has(refuted, r.run);
			if (gather_one(&r, g) < 0) {
				rc = -1;
				break;
			}
			if (g->out.n == before)
				continue;
			job_of(r.run, j, sizeof(j));
			if (!strv_has(jobs, nj, j))
				rc = strv_add(&jobs, &nj, j);
			if (bound < 0 && nj >= PM_HISTORY_USED_MAX)
				bound = t;
		}
		if (dd)
			closedir(dd);
	}
	nl_free(&nm);
	node_list_free(&l);
	pm_history_strv_free(jobs);
	if (rc < 0 && !g->oom)
		errno = ENOMEM;
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
	job_of(run, g.self, sizeof(g.self));
	if ((top = open_top(store, err, errlen)) < 0) {
		pm_history_strv_free(nodes);
		return errno == ENOENT ? 0 : -1;
	}
	refuted = pm_history_refuted(ledger);
	for (size_t i = 0; !rc && nodes[i]; i++)
		if (node_name_ok(nodes[i]) &&
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

/* A verdict's time: "2026-11-30T03:11:58.000Z" (the schema's, with milliseconds). */
static void iso_ms(double t, char *buf, size_t len)
{
	char s[40];

	pmu_iso(t, s, sizeof(s), "1970-01-01T00:00:00Z");
	snprintf(buf, len, "%.19s.000Z", s);
}

static json_t *used_json(const struct pm_history_rec *r)
{
	char t[40];

	iso_ms(r->time, t, sizeof(t));
	return json_pack("{s:s,s:s,s:s,s:s,s:s,s:s}", "run", r->run, "node", r->node, "class",
			 r->cls, "subclass", r->sub, "confidence", r->conf, "time", t);
}

/* The engine's input_digest and the records, in one digest: same evidence and history, same
 * digest. */
static void digest(json_t *verdict, const struct pm_history_rec *r, size_t n)
{
	const char *old = S(verdict, "input_digest");
	struct pm_sha256 d;
	unsigned char out[32];
	char hex[80], t[40];

	pm_sha256_init(&d);
	pm_sha256_update(&d, old, strlen(old) + 1);
	for (size_t i = 0; i < n; i++) {
		const char *f[] = {r[i].run, r[i].node, r[i].cls, r[i].sub, r[i].conf, t};
		iso_ms(r[i].time, t, sizeof(t));
		for (size_t k = 0; k < sizeof(f) / sizeof(f[0]); k++)
			pm_sha256_update(&d, f[k], strlen(f[k]) + 1);
	}
	pm_sha256_final(&d, out);
	pm_sha256_hex(out, hex);
	json_object_set_new(verdict, "input_digest", json_string(hex));
}

int pm_history_apply(json_t *verdict, const char *run, const struct pm_history_rec *r, size_t n,
		     const struct pm_history_policy *pol)
{
	const char *cls = S(json_object_get(verdict, "cause"), "class");
	json_t *used, *repair = json_object_get(json_object_get(verdict, "decision"), "repair");
	char **nodes, **runs = NULL;
	size_t nruns = 0;
	int justified = 0;

	if (!n)
		return 0;
	if (!(used = json_array()))
		return -1;
	for (size_t i = 0; i < n; i++)
		json_array_append_new(used, used_json(&r[i]));
	json_object_set_new(verdict, "node_history", used);
	nodes = pm_history_origin_nodes(verdict);
	for (size_t i = 0; nodes && nodes[i]; i++) {
		struct pm_history_rec *mine = malloc(n * sizeof(*mine));
		size_t m = 0;
		char **by = NULL;
		if (!mine)
			break;
		for (size_t k = 0; k < n; k++)
			if (!strcmp(r[k].node, nodes[i]))
				mine[m++] = r[k];
		for (size_t k = 0; k < m; k++)
			mine[k].hardware = pm_class_hardware(mine[k].cls);
		if (count_jobs(mine, m, cls, -1e18, 1e18, run, &by) >= pol->jobs) {
			justified = 1;
			for (size_t k = 0; by && by[k]; k++)
				if (!strv_has(runs, nruns, by[k]))
					strv_add(&runs, &nruns, by[k]);
		}
		pm_history_strv_free(by);
		free(mine);
	}
	pm_history_strv_free(nodes);
	if (justified && json_is_object(repair)) {
		json_t *a = json_array();
		for (size_t i = 0; i < n; i++) { /* in the records' (time) order */
			bool seen = false;
			for (size_t k = 0; k < json_array_size(a); k++)
				seen = seen ||
				       !strcmp(json_string_value(json_array_get(a, k)), r[i].run);
			if (!seen && strv_has(runs, nruns, r[i].run))
				json_array_append_new(a, json_string(r[i].run));
		}
		json_object_set_new(repair, "justified", json_true());
		json_object_set_new(repair, "repeats", a);
	} else if (!json_is_object(repair)) {
		justified = 0;
	}
	pm_history_strv_free(runs);
	digest(verdict, r, n);
	return justified;
}

int pm_history_used(const json_t *verdict, struct pm_history_rec **out, size_t *n)
{
	const json_t *a = json_object_get(verdict, "node_history"), *e;
	size_t i;

	*out = NULL;
	*n = 0;
	if (!a)
		return 0;
	if (!json_is_array(a) || !(*out = calloc(json_array_size(a) + 1, sizeof(**out)))) {
		errno = json_is_array(a) ? ENOMEM : EINVAL;
		return -1;
	}
	json_array_foreach(a, i, e)
	{
		struct pm_history_rec *r = &(*out)[i];
		struct tm tm = {0};
		copy(r->run, sizeof(r->run), S(e, "run"));
		copy(r->node, sizeof(r->node), S(e, "node"));
		copy(r->cls, sizeof(r->cls), S(e, "class"));
		copy(r->sub, sizeof(r->sub), S(e, "subclass"));
		copy(r->conf, sizeof(r->conf), S(e, "confidence"));
		if (!strptime(S(e, "time"), "%Y-%m-%dT%H:%M:%S", &tm)) {
			free(*out);
			*out = NULL;
			errno = EINVAL;
			return -1;
		}
		r->time = (double)timegm(&tm);
		r->uid = -1;
		r->hardware = pm_class_hardware(r->cls);
	}
	*n = json_array_size(a);
	return 0;
}

int pm_history_reapply(json_t *new, const json_t *old, const char *run,
		       const struct pm_history_policy *pol)
{
	struct pm_history_rec *r;
	size_t n;
	int rc;

	if (pm_history_used(old, &r, &n) < 0)
		return -1;
	rc = pm_history_apply(new, run, r, n, pol);
	free(r);
	return rc;
}
