/*
 * history.c - the node history (history.h): one file per record in a folder per node,
 * written by the run's merger only, read by the next verdicts, `postmortem nodes` and the
 * metrics.  Here: a run's records recorded and forgotten, the job's end, and what the other
 * parts share (history_int.h); reading in history_read.c, the repeat policy in
 * history_policy.c.
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
#include "history_int.h"
#include "pmutil.h"

#define RUN_FILE_MAX 65536 /* bytes of <jobdir>/node-history.json */
#define KEYLEN 64

bool pm_hist_node_ok(const char *s)
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

void pm_history_strv_free(char **v)
{
	if (!v)
		return;
	for (size_t i = 0; v[i]; i++)
		free(v[i]);
	free(v);
}

int pm_hist_strv_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

bool pm_hist_strv_has(char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return true;
	return false;
}

/* Append a copy of S to *V (N entries, NULL-terminated).  0 or -1. */
int pm_hist_strv_add(char ***v, size_t *n, const char *s)
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

/* The job of RUN ("cluster/job/restart" less its restart) into OUT. */
void pm_hist_job_of(const char *run, char *out, size_t len)
{
	const char *slash = strrchr(run, '/');
	size_t n = slash ? (size_t)(slash - run) : strlen(run);

	if (n >= len)
		n = len - 1;
	memcpy(out, run, n);
	out[n] = '\0';
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
		    !pm_hist_node_ok(node) || pm_hist_strv_has(v, n, node))
			continue;
		json_array_foreach(onodes, k, o)
			named = named || !strcmp(json_string_value(o) ?: "", node);
		if (named && pm_hist_strv_add(&v, &n, node) < 0) {
			pm_history_strv_free(v);
			return NULL;
		}
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), pm_hist_strv_cmp);
	return v;
}

/* ---- paths ---- */

/* The time a record file NAME leads with ("<time>.<cluster>.<job>.<restart>.json"); -1 when
 * NAME is not one (a day folder, a writer's dot file). */
long long pm_hist_name_time(const char *name)
{
	char *end;
	long long t;

	if (name[0] < '0' || name[0] > '9')
		return -1;
	t = strtoll(name, &end, 10);
	return *end == '.' ? t : -1;
}

/* The day folder (UTC) of time T into OUT (DAYLEN bytes). */
void pm_hist_day_of(long long t, char *out)
{
	time_t s = (time_t)t;
	struct tm tm;

	if (t < 0 || !gmtime_r(&s, &tm) || tm.tm_year + 1900 > 9999)
		memset(&tm, 0, sizeof(tm));
	snprintf(out, DAYLEN, "%04u-%02u-%02u", (unsigned)(tm.tm_year + 1900) % 10000u,
		 (unsigned)(tm.tm_mon + 1) % 100u, (unsigned)tm.tm_mday % 100u);
}

/* The path of record REL ("<node>/<file>") in STORE: in its day folder, or (FLAT) where
 * versions before the day folders wrote it.  0, or -1 with errno. */
static int rec_path(char *out, size_t len, const char *store, const char *rel, bool flat)
{
	const char *file = strchr(rel, '/');
	char day[DAYLEN];
	long long t = file ? pm_hist_name_time(file + 1) : -1;

	if (t < 0) {
		errno = EINVAL;
		return -1;
	}
	pm_hist_day_of(t, day);
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
int pm_hist_make_dir(const char *dir, gid_t gid)
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
		    !strstr(s, "/.") && pm_hist_strv_add(&v, n, s) < 0)
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

	pm_hist_day_of(t, day);
	for (int try = 0;; try++) {
		int n = snprintf(path, len, "%s/%s/%s", store, PM_HISTORY_DIR, node), e;
		if (n < 0 || (size_t)n + DAYLEN >= len) {
			errno = ENAMETOOLONG;
			return -1;
		}
		if (pm_hist_make_dir(path, gid) == 0) {
			snprintf(path + n, len - (size_t)n, "/%s", day);
			if (pm_hist_make_dir(path, gid) == 0) {
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
	if (nodes && pm_hist_make_dir(top, gid) < 0) {
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
		if (pm_hist_strv_add(&now, &nnow, rel) < 0)
			goto out;
		written++;
	}
	/* the list first, then the old records it no longer names: a crash between leaves a
	 * record that expire still finds, never a list naming files that are gone */
	list = json_pack("{s:s,s:s,s:[]}", "schema", PM_HISTORY_SCHEMA, "run", r.run, "records");
	for (size_t i = 0; list && i < nnow; i++)
		json_array_append_new(json_object_get(list, "records"), json_string(now[i]));
	for (size_t i = 0; list && i < nold; i++)
		if (!pm_hist_strv_has(now, nnow, old[i]))
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
		if (pm_hist_strv_has(now, nnow, old[i]))
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
