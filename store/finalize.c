/*
 * finalize.c - the reduce step (epilog/README.md, "Finalize protocol").
 *
 * Every node that stores its bundle links itself into arrived/; whoever then finds every
 * expected node arrived takes the `merging` claim (O_EXCL) and merges; the first node in
 * writes a provisional verdict.  Nobody waits for anybody: a node that cannot take the claim
 * leaves, and the holder looks at arrived/ again after letting go of it, so the last arrival
 * is never lost.  Files are replaced whole with rename(); earlier verdicts are kept with
 * link() under history/.  No lock is held across the merge other than the claim.
 *
 * The merge budgets its own time (opts->merge_budget): it runs in a child process that the
 * caller kills at the budget less a reserve, and with the reserve the caller writes a
 * provisional verdict from Slurm's record alone, every bundle listed as cut.  A claim says
 * until when its holder may merge; past that (or when its holder is gone from this host) it
 * is free, so a merger that dies holds nobody up for long.
 */
#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "finalize_int.h"
#include "webhook.h"
#include "internal.h" /* pm_hostlist_expand: the engine's Slurm hostlist expander */

#define NAMELEN 64
#define HISTORY_MAX 10000
#define BUNDLE_MANIFEST_MAX (16u << 20)
#define REMERGE_WINDOW 86400.0 /* how long the timer waits for a final Slurm state */
#define CLAIM_SLACK 5.0	       /* seconds past its stated end before a claim is free */
#define RESERVE_MIN 0.5	       /* seconds kept for a cut merge's provisional verdict */
#define RESERVE_MAX 10.0

struct names {
	char **v;
	size_t n;
	size_t sorted; /* v[0..sorted) is sorted and unique; the rest appended since */
};

struct bundle {
	char *file; /* "nodes/x.tar.zst" */
	char *node;
	uint64_t bytes;
	char sha[80];
	bool ok, deadline_hit;
	bool cut; /* not read: the merge ran out of time */
	long long uid;
	char reason[300];
};

struct job {
	const struct pm_config *cfg;
	const char *dir;
	char cluster[NAMELEN], id[NAMELEN], restart[NAMELEN];
	struct names expected, arrived, files; /* files: bundle names without .tar.zst */
	const char *expected_from;
	long nlinked; /* arrivals' link count - 1, -1 unknown */
	struct bundle *b;
	size_t nb;
	struct pm_sched sched;
	const char *sched_status;
	long long uid;
	/* a merge cut by its deadline: what the manifest and the verdict's coverage say */
	bool cut;
	double cut_budget;
	char cut_why[120]; /* "" the merge ran out of time; else what became of it */
	int stored_fd;	   /* a timed merge's child: told when the verdict is stored; -1 */
};

/* ---- name lists ---- */

static bool node_ok(const char *s, size_t n)
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

static bool has(const struct names *l, const char *s)
{
	if (l->sorted && bsearch(&s, l->v, l->sorted, sizeof(*l->v), cmpstr))
		return true;
	for (size_t i = l->sorted; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return true;
	return false;
}

/* Append a node name (invalid names are skipped); names_sort removes duplicates.  -1 ENOMEM. */
static int add(struct names *l, const char *s, size_t n)
{
	char **v, *c;

	if (!node_ok(s, n))
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

static void names_free(struct names *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->sorted = 0;
}

static void names_sort(struct names *l)
{
	size_t k = 0;

	if (!l->n)
		return;
	qsort(l->v, l->n, sizeof(*l->v), cmpstr);
	for (size_t i = 0; i < l->n; i++) {
		if (k && !strcmp(l->v[k - 1], l->v[i]))
			free(l->v[i]);
		else
			l->v[k++] = l->v[i];
	}
	l->n = l->sorted = k;
	l->v[k] = NULL;
}

static json_t *names_json(const struct names *l)
{
	json_t *a = json_array();

	for (size_t i = 0; i < l->n; i++)
		json_array_append_new(a, json_string(l->v[i]));
	return a;
}

/* Lines of a file, or a Slurm hostlist: into L.  -1 on ENOMEM. */
static int parse_nodes(struct names *l, const char *s, size_t len)
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
			if (add(l, p, (size_t)(nl - p)) < 0)
				return -1;
		}
		return 0;
	}
	if (!len || pm_hostlist_expand(s, len, &v, &n) < 0)
		return len && errno == ENOMEM ? -1 : 0;
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		if (!rc && add(l, v[i], strlen(v[i])) < 0)
			rc = -1;
		free(v[i]);
	}
	free(v);
	return rc;
}

/* ---- the expected nodes ---- */

static void path(char *out, size_t len, const char *dir, const char *name)
{
	snprintf(out, len, "%s/%s", dir, name);
}

/* Write JOBDIR/expected once: a private file linked into place (EEXIST: it is there). */
static int write_expected(const char *jobdir, const struct names *l)
{
	char tmp[4096], dst[4096], host[64] = "", *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int rc = -1;

	if (!f)
		return -1;
	for (size_t i = 0; i < l->n; i++)
		fprintf(f, "%s\n", l->v[i]);
	if (fclose(f) != 0)
		return -1;
	gethostname(host, sizeof(host) - 1);
	snprintf(tmp, sizeof(tmp), "%s/.expected.%s.%ld", jobdir, host, (long)getpid());
	path(dst, sizeof(dst), jobdir, "expected");
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
	if (fd >= 0) {
		if (write(fd, text, len) == (ssize_t)len && fsync(fd) == 0 &&
		    (link(tmp, dst) == 0 || errno == EEXIST))
			rc = 0;
		close(fd);
		unlink(tmp);
	}
	free(text);
	return rc;
}

static int read_expected(const char *jobdir, struct names *l)
{
	char p[4096], *buf;
	size_t len;
	int rc;

	path(p, sizeof(p), jobdir, "expected");
	if (pm_fin_read(p, 16u << 20, &buf, &len) < 0)
		return errno == ENOENT ? 0 : -1;
	rc = parse_nodes(l, buf, len);
	free(buf);
	return rc < 0 ? -1 : 1;
}

/* The manifest.json of a bundle (its first member), or NULL. */
static json_t *bundle_manifest(const char *file)
{
	struct archive *ar = archive_read_new();
	struct archive_entry *e;
	json_t *m = NULL;
	char *buf;

	if (!ar)
		return NULL;
	archive_read_support_filter_zstd(ar);
	archive_read_support_format_tar(ar);
	if (archive_read_open_filename(ar, file, 65536) != ARCHIVE_OK)
		goto out;
	while (archive_read_next_header(ar, &e) == ARCHIVE_OK) {
		la_int64_t size = archive_entry_size(e);
		if (strcmp(archive_entry_pathname(e), "manifest.json"))
			continue;
		if (size < 0 || (uint64_t)size > BUNDLE_MANIFEST_MAX ||
		    !(buf = malloc((size_t)size + 1)))
			break;
		if (archive_read_data(ar, buf, (size_t)size) == size)
			m = json_loadb(buf, (size_t)size, 0, NULL);
		free(buf);
		break;
	}
out:
	archive_read_free(ar);
	return m;
}

/* The job's node list as a bundle manifest states it ("job_nodes": list or hostlist). */
static int manifest_nodes(const json_t *m, struct names *l)
{
	const json_t *v = json_object_get(m, "job_nodes");
	size_t i;
	json_t *x;

	if (!v)
		v = json_object_get(m, "nodelist");
	if (json_is_string(v))
		return parse_nodes(l, json_string_value(v), strlen(json_string_value(v)));
	json_array_foreach(v, i, x) if (json_is_string(x) &&
					add(l, json_string_value(x), strlen(json_string_value(x))) <
						0) return -1;
	return 0;
}

static bool env_is_job(const char *job)
{
	const char *id = getenv("SLURM_JOB_ID");

	return id && !strcmp(id, job);
}

/* expected file, else a bundle's manifest, else SLURM_NODELIST; the first to know writes it. */
static int find_expected(struct job *j)
{
	const char *env = env_is_job(j->id) ? getenv("SLURM_NODELIST") : NULL;
	int rc = read_expected(j->dir, &j->expected);

	if (rc < 0)
		return -1;
	if (j->expected.n) {
		names_sort(&j->expected);
		j->expected_from = "expected";
		return 0;
	}
	for (size_t i = 0; i < j->files.n && !j->expected.n; i++) {
		char p[4096];
		json_t *m;
		snprintf(p, sizeof(p), "%s/nodes/%s.tar.zst", j->dir, j->files.v[i]);
		if ((m = bundle_manifest(p)) && manifest_nodes(m, &j->expected) == 0 &&
		    j->expected.n)
			j->expected_from = "bundle manifest";
		json_decref(m);
	}
	if (!j->expected.n && env && *env && parse_nodes(&j->expected, env, strlen(env)) == 0 &&
	    j->expected.n)
		j->expected_from = "SLURM_NODELIST";
	if (!j->expected.n) {
		j->expected_from = "unknown";
		return 0;
	}
	names_sort(&j->expected);
	return write_expected(j->dir, &j->expected) < 0 && errno != EEXIST ? -1 : 0;
}

/* ---- arrivals and bundles on disk ---- */

static int list_dir(const char *dir, const char *suffix, struct names *l)
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
		if (add(l, de->d_name, n - sl) < 0) {
			closedir(d);
			return -1;
		}
	}
	closedir(d);
	names_sort(l);
	return 0;
}

/* Add the expected nodes that DIR/<node>SUFFIX names but a (stale, on NFS) listing missed. */
static int lookup_expected(const struct job *j, const char *sub, const char *suffix,
			   struct names *l)
{
	char p[4096];
	struct stat st;

	for (size_t i = 0; i < j->expected.n; i++) {
		const char *n = j->expected.v[i];
		snprintf(p, sizeof(p), "%s/%s/%s%s", j->dir, sub, n, suffix);
		if (!has(l, n) && lstat(p, &st) == 0 && add(l, n, strlen(n)) < 0)
			return -1;
	}
	names_sort(l);
	return 0;
}

static int scan(struct job *j)
{
	char p[4096];
	struct stat st;

	path(p, sizeof(p), j->dir, "nodes");
	if (list_dir(p, ".tar.zst", &j->files) < 0 || find_expected(j) < 0)
		return -1;
	path(p, sizeof(p), j->dir, "arrived");
	if (list_dir(p, "", &j->arrived) < 0 ||
	    lookup_expected(j, "arrived", "", &j->arrived) < 0 ||
	    lookup_expected(j, "nodes", ".tar.zst", &j->files) < 0)
		return -1;
	path(p, sizeof(p), j->dir, "arrivals");
	j->nlinked = stat(p, &st) == 0 ? (long)st.st_nlink - 1 : -1;
	return 0;
}

static bool complete(const struct job *j)
{
	size_t in = 0;

	if (!j->expected.n)
		return false;
	for (size_t i = 0; i < j->expected.n; i++)
		in += has(&j->arrived, j->expected.v[i]);
	return in == j->expected.n || (j->nlinked >= 0 && (size_t)j->nlinked >= j->expected.n);
}

static void job_free(struct job *j)
{
	names_free(&j->expected);
	names_free(&j->arrived);
	names_free(&j->files);
	for (size_t i = 0; i < j->nb; i++) {
		free(j->b[i].file);
		free(j->b[i].node);
	}
	free(j->b);
	j->b = NULL;
	j->nb = 0;
	pm_fin_sched_free(&j->sched);
}

static int job_open(struct job *j, const struct pm_config *cfg, const char *jobdir, char *err,
		    size_t errlen)
{
	memset(j, 0, sizeof(*j));
	j->cfg = cfg;
	j->dir = jobdir;
	j->uid = -1;
	j->nlinked = -1;
	j->stored_fd = -1;
	j->sched.uid = -1;
	if (pm_fin_key(jobdir, j->cluster, j->id, j->restart, NAMELEN) < 0)
		return pm_fin_fail(err, errlen, EINVAL,
				   "%s: not a <cluster>/<job>/<restart> folder", jobdir);
	if (scan(j) < 0) {
		int e = errno;
		job_free(j);
		return pm_fin_fail(err, errlen, e, "%s: %s", jobdir, strerror(e));
	}
	return 0;
}

static bool exists(const char *dir, const char *name)
{
	char p[4096];
	struct stat st;

	path(p, sizeof(p), dir, name);
	return lstat(p, &st) == 0;
}

/* ---- the claim ---- */

/* "host pid start end": END (epoch seconds) is when the holder will have let go of it. */
static void claim_id(char *me, size_t len, double budget)
{
	char host[64] = "";
	double now = pm_fin_wall();

	gethostname(host, sizeof(host) - 1);
	snprintf(me, len, "%s %ld %.0f %.0f\n", host, (long)getpid(), now,
		 now + (budget > 0 ? budget : PM_CLAIM_STALE));
}

int pm_claim_parse(const char *text, struct pm_claim *c)
{
	int n;

	memset(c, 0, sizeof(*c));
	c->end = -1;
	n = sscanf(text, "%63s %ld %lf %lf", c->host, &c->pid, &c->start, &c->end);
	if (n < 3 || c->pid <= 0)
		return -1;
	if (n < 4)
		c->end = -1; /* an older claim: only its age tells */
	return 0;
}

/* Is the claim C (file modified at MTIME) free to take at NOW? */
bool pm_claim_stale(const struct pm_claim *c, double mtime, double now, const char **why)
{
	char host[64] = "";

	gethostname(host, sizeof(host) - 1);
	if (c && c->host[0] && !strcmp(c->host, host) && kill((pid_t)c->pid, 0) < 0 &&
	    errno == ESRCH) {
		*why = "its merger is gone";
		return true;
	}
	if (c && c->end > 0 && now > c->end + CLAIM_SLACK) {
		*why = "its merger's time ran out";
		return true;
	}
	if (now - mtime >= PM_CLAIM_STALE) {
		*why = "older than its limit";
		return true;
	}
	*why = "";
	return false;
}

/* Is the claim file P (stat ST) free to take? */
static bool claim_free(const char *p, const struct stat *st)
{
	struct pm_claim c;
	const char *why;
	char *buf = NULL;
	bool parsed;

	parsed = pm_fin_read(p, 4096, &buf, NULL) == 0 && pm_claim_parse(buf, &c) == 0;
	free(buf);
	return pm_claim_stale(parsed ? &c : NULL, (double)st->st_mtime, pm_fin_wall(), &why);
}

/* 1 the claim is ours (ME written into it), 0 someone else holds it, -1 error. */
static int claim(const char *dir, const char *me)
{
	char p[4096], aside[4096], host[64] = "";
	struct stat st, st2;
	int fd;

	gethostname(host, sizeof(host) - 1);
	path(p, sizeof(p), dir, "merging");
	snprintf(aside, sizeof(aside), "%s/.merging.stale.%s.%ld", dir, host, (long)getpid());
	for (int tries = 0; tries < 3; tries++) {
		fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
		if (fd >= 0) {
			ssize_t w = write(fd, me, strlen(me));
			close(fd);
			return w == (ssize_t)strlen(me) ? 1 : (unlink(p), -1);
		}
		if (errno != EEXIST)
			return -1;
		if (lstat(p, &st) < 0) {
			if (errno == ENOENT)
				continue;
			return -1;
		}
		if (!claim_free(p, &st))
			return 0;
		/* a merger died: move its claim aside, and make sure it was that one we moved */
		if (rename(p, aside) < 0) {
			if (errno == ENOENT)
				continue;
			return -1;
		}
		if (lstat(aside, &st2) == 0 && st2.st_ino == st.st_ino &&
		    st2.st_mtime == st.st_mtime) {
			unlink(aside);
			continue;
		}
		if (link(aside, p) < 0 && errno != EEXIST) {
			unlink(aside);
			return -1;
		}
		unlink(aside);
		return 0;
	}
	return 0;
}

static void release(const char *dir, const char *me)
{
	char p[4096], *buf;

	path(p, sizeof(p), dir, "merging");
	if (pm_fin_read(p, 4096, &buf, NULL) < 0)
		return;
	if (!strcmp(buf, me)) /* not one that took ours over */
		unlink(p);
	free(buf);
}

/* ---- the inputs ---- */

static long long uid_of(const json_t *m)
{
	static const char *const keys[] = {"uid", "user_uid", "job_uid"};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const json_t *u = json_object_get(m, keys[i]);
		if (json_is_integer(u) && json_integer_value(u) >= 0)
			return (long long)json_integer_value(u);
	}
	return -1;
}

/* Hash, read the manifest of, and check bundle B, in one read; a good one goes into EV (the
 * engine adds nothing of a bundle it rejects). */
static int inspect(const struct job *j, const struct pm_ruleset *rs, struct pm_evidence *ev,
		   struct bundle *b)
{
	char p[4096], err[256] = "";
	json_t *m = NULL;
	int rc;

	(void)rs;
	path(p, sizeof(p), j->dir, b->file);
	rc = pm_evidence_add_bundle(ev, p, &m, b->sha, &b->bytes, err, sizeof(err));
	if (!b->sha[0]) {
		snprintf(b->reason, sizeof(b->reason), "bundle unreadable: %s", strerror(errno));
		json_decref(m);
		return 0;
	}
	if (m) {
		const char *n = json_string_value(json_object_get(m, "node"));
		if (n && node_ok(n, strlen(n)) && strcmp(n, b->node)) {
			char *c = strdup(n);
			if (!c) {
				json_decref(m);
				return -1;
			}
			free(b->node);
			b->node = c;
		}
		b->deadline_hit = json_is_true(
			json_object_get(json_object_get(m, "collected"), "deadline_hit"));
		b->uid = uid_of(m);
		json_decref(m);
	}
	if (rc < 0)
		snprintf(b->reason, sizeof(b->reason), "bundle rejected: %s", err);
	else
		b->ok = true;
	return 0;
}

static int bundles(struct job *j, const struct pm_ruleset *rs, struct pm_evidence *ev)
{
	if (!(j->b = calloc(j->files.n + 1, sizeof(*j->b))))
		return -1;
	for (size_t i = 0; i < j->files.n; i++) {
		struct bundle *b = &j->b[j->nb];
		if (asprintf(&b->file, "nodes/%s.tar.zst", j->files.v[i]) < 0)
			return -1;
		j->nb++;
		b->uid = -1;
		if (!(b->node = strdup(j->files.v[i])) || inspect(j, rs, ev, b) < 0)
			return -1;
		if (b->ok && b->uid >= 0 && j->uid < 0)
			j->uid = b->uid;
	}
	return 0;
}

/*
 * Slurm's record as an input: the stored sacct.txt, read as `postmortem diagnose` reads it in
 * a fetched copy (a file from disk: the same input_digest, so that diagnosing the fetched
 * evidence gives the stored verdict byte for byte); the record in memory when the file is
 * not that record (it could not be written).
 */
static int sched_input(struct job *j, struct pm_evidence *ev, char *err, size_t errlen)
{
	char p[4096], *buf = NULL;
	size_t len = 0;
	bool same;

	path(p, sizeof(p), j->dir, "sacct.txt");
	same = pm_fin_read(p, 16u << 20, &buf, &len) == 0 && len == j->sched.len &&
	       !memcmp(buf, j->sched.text, len);
	free(buf);
	if (same)
		return pm_evidence_add_path(ev, p, err, errlen);
	if (pm_evidence_add_buffer(ev, "sacct.txt", j->sched.text, j->sched.len, "scheduler", NULL,
				   0) < 0) {
		pm_fin_fail(err, errlen, errno, "%s: %s", j->dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* Slurm's record as stored by an earlier merge (sacct.txt), with WHY as the record's reason;
 * 0, or -1 when there is none. */
static int stored_sched(struct job *j, const char *why)
{
	char p[4096], *buf;
	size_t len;

	pm_fin_sched_free(&j->sched);
	path(p, sizeof(p), j->dir, "sacct.txt");
	if (pm_fin_read(p, 16u << 20, &buf, &len) < 0) {
		j->sched_status = "missing";
		return -1;
	}
	j->sched.text = buf;
	j->sched.len = len;
	pm_fin_sched_parse(&j->sched, j->id);
	snprintf(j->sched.reason, sizeof(j->sched.reason), "%s", why);
	j->sched_status = "stored";
	return 0;
}

/*
 * The job's owner before its bundles are read (Slurm's record is asked first): the first
 * bundle manifest that names one, -1 none.  From the timer there is no job environment, and
 * with job ids reused `sacct -j N` alone can give another user's job.
 */
static long long owner(const struct job *j)
{
	char p[4096];
	long long uid = j->uid;

	for (size_t i = 0; uid < 0 && i < j->files.n; i++) {
		json_t *m;
		snprintf(p, sizeof(p), "%s/nodes/%s.tar.zst", j->dir, j->files.v[i]);
		if ((m = bundle_manifest(p))) {
			uid = uid_of(m);
			json_decref(m);
		}
	}
	return uid;
}

/* Slurm's record: asked now (once for a provisional verdict), else the one stored earlier. */
static int scheduler(struct job *j, bool provisional, double deadline)
{
	char p[4096], *buf;
	size_t len;

	pm_fin_sacct_owner(j->cfg, j->id, owner(j), provisional ? pm_fin_clock() : deadline,
			   &j->sched);
	path(p, sizeof(p), j->dir, "sacct.txt");
	if (j->sched.text && j->sched.state[0]) {
		j->sched_status = "ok";
		if (pm_fin_read(p, 16u << 20, &buf, &len) == 0 && len == j->sched.len &&
		    !memcmp(buf, j->sched.text, len)) {
			free(buf);
			return 0;
		}
		free(buf);
		return pm_fin_write(j->dir, "sacct.txt", j->sched.text, j->sched.len);
	}
	char why[sizeof(j->sched.reason)];
	snprintf(why, sizeof(why), "asked again: %.150s", j->sched.reason);
	stored_sched(j, why);
	return 0;
}

/* ---- the manifest ---- */

static json_t *nodes_json(const struct job *j)
{
	json_t *o = json_object(), *missing = json_array();
	struct names present = {0};

	for (size_t i = 0; i < j->nb; i++)
		if (j->b[i].ok)
			add(&present, j->b[i].node, strlen(j->b[i].node));
	names_sort(&present);
	for (size_t i = 0; i < j->expected.n; i++) {
		const char *n = j->expected.v[i], *why = PM_MISSING_REASON;
		if (has(&present, n))
			continue;
		for (size_t k = 0; k < j->nb; k++)
			if (!strcmp(j->b[k].node, n) && j->b[k].reason[0])
				why = j->b[k].reason;
		if (why == (const char *)PM_MISSING_REASON && has(&j->arrived, n))
			why = "arrived, but its bundle is missing";
		/* the node's collector could not store its bundle (store.c, note_undelivered) */
		char p[4096], note[700], *buf = NULL;
		size_t len = 0;
		snprintf(p, sizeof(p), "%s/undelivered/%s", j->dir, n);
		if (why == (const char *)PM_MISSING_REASON &&
		    pm_fin_read(p, 4096, &buf, &len) == 0) {
			snprintf(note, sizeof(note),
				 "evidence storage failed; the bundle waits in the node's spool for "
				 "a later run%s%.*s",
				 len ? ": " : "", (int)strcspn(buf, "\n"), buf);
			why = note;
		}
		free(buf);
		json_array_append_new(missing, json_pack("{s:s,s:s}", "node", n, "reason", why));
	}
	json_object_set_new(o, "expected", j->expected.n ? names_json(&j->expected) : json_null());
	json_object_set_new(o, "expected_from", json_string(j->expected_from));
	json_object_set_new(o, "present", names_json(&present));
	json_object_set_new(o, "missing", missing);
	names_free(&present);
	return o;
}

static json_t *bundles_json(const struct job *j, json_t **hits)
{
	json_t *a = json_array();

	*hits = json_array();
	for (size_t i = 0; i < j->nb; i++) {
		const struct bundle *b = &j->b[i];
		json_t *o = json_pack("{s:s,s:s,s:I,s:s,s:b,s:s}", "file", b->file, "node", b->node,
				      "bytes", (json_int_t)b->bytes, "sha256", b->sha,
				      "deadline_hit", b->deadline_hit, "status",
				      b->ok  ? "ok" :
				      b->cut ? "not_read" :
					       "rejected");
		if (!b->ok)
			json_object_set_new(o, "reason", json_string(b->reason));
		json_array_append_new(a, o);
		if (b->ok && b->deadline_hit)
			json_array_append_new(*hits, json_string(b->node));
	}
	return a;
}

static json_t *scheduler_json(const struct job *j)
{
	json_t *o = json_pack("{s:s,s:b}", "status", j->sched_status, "final", j->sched.final);
	char sha[80];

	json_object_set_new(o, "state",
			    j->sched.state[0] ? json_string(j->sched.state) : json_null());
	if (j->sched.text) {
		pm_fin_sha_buf(j->sched.text, j->sched.len, sha);
		json_object_set_new(o, "file", json_string("sacct.txt"));
		json_object_set_new(o, "sha256", json_string(sha));
	}
	if (j->sched.reason[0] && !j->sched.final)
		json_object_set_new(o, "reason", json_string(j->sched.reason));
	return o;
}

/* A merge cut by its deadline: its budget and the bundles it did not read. */
static json_t *cut_json(const struct job *j)
{
	json_t *cut = json_array();

	for (size_t i = 0; i < j->nb; i++)
		if (j->b[i].cut)
			json_array_append_new(cut, json_string(j->b[i].file));
	char why[300];

	snprintf(why, sizeof(why),
		 "%s: this verdict comes from Slurm's record alone, without the node bundles listed",
		 j->cut_why[0] ? j->cut_why : "the merge ran out of time");
	return json_pack("{s:b,s:f,s:o,s:s}", "deadline_hit", !j->cut_why[0], "budget_s",
			 j->cut_budget, "cut", cut, "reason", why);
}

static json_t *or_null(const json_t *o, const char *k)
{
	json_t *x = json_object_get(o, k);

	return x ? json_incref(x) : json_null();
}

static json_t *manifest_json(const struct job *j, const struct pm_ruleset *rs, const json_t *v,
			     const char *vtext, const char *line, bool provisional)
{
	json_t *m = json_object(), *hits, *vo;
	char sha[80];

	json_object_set_new(m, "schema", json_string(PM_MANIFEST_SCHEMA));
	json_object_set_new(m, "job",
			    json_pack("{s:s,s:s,s:I,s:o}", "id", j->id, "cluster", j->cluster,
				      "restart", (json_int_t)strtoll(j->restart, NULL, 10), "uid",
				      j->uid >= 0 ? json_integer(j->uid) : json_null()));
	json_object_set_new(m, "nodes", nodes_json(j));
	json_object_set_new(m, "bundles", bundles_json(j, &hits));
	json_object_set_new(m, "deadline_hits", hits);
	json_object_set_new(m, "scheduler", scheduler_json(j));
	json_object_set_new(m, "ruleset",
			    json_pack("{s:s,s:s,s:s}", "id", pm_ruleset_id(rs), "version",
				      pm_ruleset_version(rs), "digest", pm_ruleset_digest(rs)));
	json_object_set_new(m, "provisional", json_boolean(provisional));
	if (j->cut)
		json_object_set_new(m, "merge", cut_json(j));
	if (v) {
		pm_fin_sha_buf(vtext, strlen(vtext), sha);
		vo = json_pack("{s:s,s:s,s:o,s:o,s:o,s:b}", "file", "verdict.json", "sha256", sha,
			       "status", or_null(v, "status"), "outcome", or_null(v, "outcome"),
			       "input_digest", or_null(v, "input_digest"), "provisional",
			       provisional);
		json_object_set_new(vo, "comment", line && *line ? json_string(line) : json_null());
		json_object_set_new(m, "verdict", vo);
	} else {
		json_object_set_new(m, "verdict", json_null());
	}
	return m;
}

/* The manifest without its times and history: what "the same inputs" compares. */
static json_t *essence(const json_t *m)
{
	json_t *c = json_deep_copy(m);

	json_object_del(c, "created");
	json_object_del(c, "updated");
	json_object_del(c, "expires");
	json_object_del(c, "history");
	return c;
}

/* ---- history ---- */

static void append(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	snprintf(buf + n, len - n, "%s", n ? "; " : "");
	n = strlen(buf);
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

static const json_t *find_bundle(const json_t *m, const char *file)
{
	size_t i;
	json_t *b;

	json_array_foreach(json_object_get(m, "bundles"), i,
			   b) if (json_is_string(json_object_get(b, "file")) &&
				  !strcmp(json_string_value(json_object_get(b, "file")),
					  file)) return b;
	return NULL;
}

static const char *str(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "-";
}

/* Which inputs changed between the OLD and NEW manifests, in words. */
static void why_changed(const json_t *old, const json_t *new, char *why, size_t len)
{
	const json_t *os = json_object_get(old, "scheduler"),
		     *ns = json_object_get(new, "scheduler");
	const json_t *orr = json_object_get(old, "ruleset"), *nr = json_object_get(new, "ruleset");
	size_t i;
	json_t *b;

	why[0] = '\0';
	if (json_is_true(json_object_get(old, "provisional")) &&
	    !json_is_true(json_object_get(new, "provisional")))
		append(why, len, "final merge of a provisional verdict");
	json_array_foreach(json_object_get(new, "bundles"), i, b)
	{
		const json_t *o = find_bundle(old, str(b, "file"));
		if (!o)
			append(why, len, "new bundle %s (%s)", str(b, "file"), str(b, "node"));
		else if (strcmp(str(o, "sha256"), str(b, "sha256")) ||
			 strcmp(str(o, "status"), str(b, "status")))
			append(why, len, "bundle %s changed (%s)", str(b, "file"),
			       str(b, "status"));
	}
	json_array_foreach(json_object_get(old, "bundles"), i,
			   b) if (!find_bundle(new, str(b, "file")))
		append(why, len, "bundle %s gone", str(b, "file"));
	if (strcmp(str(os, "state"), str(ns, "state")) ||
	    strcmp(str(os, "sha256"), str(ns, "sha256")))
		append(why, len, "Slurm's record %s -> %s", str(os, "state"), str(ns, "state"));
	if (strcmp(str(orr, "digest"), str(nr, "digest")))
		append(why, len, "rule set %s -> %s", str(orr, "digest"), str(nr, "digest"));
	if (!why[0])
		snprintf(why, len, "same inputs, different verdict (another engine version)");
}

/* Keep the current verdict.json as history/verdict-N.json; N, or -1. */
static int keep(const char *dir, const char *why)
{
	char src[4096], dst[4096], name[64];

	snprintf(dst, sizeof(dst), "%s/history", dir);
	if (mkdir(dst, 0750) < 0 && errno != EEXIST)
		return -1;
	path(src, sizeof(src), dir, "verdict.json");
	for (int n = 1; n < HISTORY_MAX; n++) {
		snprintf(dst, sizeof(dst), "%s/history/verdict-%d.json", dir, n);
		if (link(src, dst) < 0) {
			if (errno == EEXIST)
				continue;
			return -1;
		}
		snprintf(name, sizeof(name), "verdict-%d.why", n);
		snprintf(dst, sizeof(dst), "%s/history", dir);
		char *text;
		if (asprintf(&text, "%s\n", why) < 0)
			return -1;
		int rc = pm_fin_write(dst, name, text, strlen(text));
		free(text);
		return rc < 0 ? -1 : n;
	}
	errno = EMLINK;
	return -1;
}

/* ---- writing the result ---- */

static char *dump(const json_t *j)
{
	char *s = json_dumps(j, JSON_SORT_KEYS | JSON_INDENT(2) | JSON_ENSURE_ASCII), *o;

	if (s && asprintf(&o, "%s\n", s) >= 0) {
		free(s);
		return o;
	}
	free(s);
	return NULL;
}

/* Write VTEXT and MAN unless they say what is stored already.  0 or -1. */
static int store(const struct job *j, json_t *man, const char *vtext, struct pm_finalize_result *r,
		 char *err, size_t errlen)
{
	json_t *old = pm_manifest_load(j->dir, NULL, 0), *a = NULL, *b = NULL, *hist;
	char p[4096], *ov = NULL, *mtext = NULL, ts[40];
	double now = pm_fin_wall(), retain = j->cfg->retain > 0 ? j->cfg->retain : 14 * 86400.0;
	bool vchanged, mchanged;
	int rc = -1;

	path(p, sizeof(p), j->dir, "verdict.json");
	if (pm_fin_read(p, 64u << 20, &ov, NULL) < 0)
		ov = NULL;
	vchanged = vtext && (!ov || strcmp(ov, vtext));
	a = old ? essence(old) : NULL;
	b = essence(man);
	mchanged = !a || !json_equal(a, b);
	if (!vchanged && !mchanged) {
		r->what = PM_FIN_UNCHANGED;
		rc = 0;
		goto out;
	}
	hist = old && json_is_array(json_object_get(old, "history")) ?
		       json_deep_copy(json_object_get(old, "history")) :
		       json_array();
	json_object_set_new(man, "history", hist);
	pm_fin_iso(now, ts, sizeof(ts));
	if (vchanged && ov) {
		why_changed(old, man, r->why, sizeof(r->why));
		if ((r->history = keep(j->dir, r->why)) < 0) {
			pm_fin_fail(err, errlen, errno, "%s/history: %s", j->dir, strerror(errno));
			goto out;
		}
		snprintf(p, sizeof(p), "history/verdict-%d.json", r->history);
		json_array_append_new(hist, json_pack("{s:s,s:s,s:s}", "file", p, "why", r->why,
						      "replaced", ts));
	}
	json_object_set_new(man, "created",
			    old && json_is_string(json_object_get(old, "created")) ?
				    json_copy(json_object_get(old, "created")) :
				    json_string(ts));
	json_object_set_new(man, "updated", json_string(ts));
	pm_fin_iso(now + retain, ts, sizeof(ts));
	json_object_set_new(man, "expires", json_string(ts));
	if (!(mtext = dump(man)) ||
	    (vchanged && pm_fin_write(j->dir, "verdict.json", vtext, strlen(vtext)) < 0) ||
	    pm_fin_write(j->dir, "manifest.json", mtext, strlen(mtext)) < 0) {
		pm_fin_fail(err, errlen, errno, "%s: writing the verdict: %s", j->dir,
			    strerror(errno));
		goto out;
	}
	rc = 0;
out:
	free(mtext);
	free(ov);
	json_decref(a);
	json_decref(b);
	json_decref(old);
	return rc;
}

char *pm_comment_line(const json_t *v, const char *cluster, const char *job, const char *restart)
{
	char *c = pm_verdict_comment(v), *ev, *out, key[200];
	size_t keep_len, kl;

	if (!c)
		return NULL;
	if ((ev = strstr(c, " ev=")))
		*ev = '\0';
	kl = (size_t)snprintf(key, sizeof(key), " ev=%s/%s/%s", cluster, job, restart);
	keep_len = strlen(c);
	if (kl >= PM_COMMENT_MAX)
		kl = 0;
	if (keep_len + kl > PM_COMMENT_MAX)
		keep_len = PM_COMMENT_MAX - kl;
	if (asprintf(&out, "%.*s%s", (int)keep_len, c, kl ? key : "") < 0)
		out = NULL;
	free(c);
	return out;
}

/* ---- the merge ---- */

static int admin_set(const struct pm_config *cfg, const char *job, const char *line,
		     double deadline, char *why, size_t whylen);

/* Merge with the rule set GIVEN (the caller's, kept), or else one loaded from cfg->rules. */
static int merge(struct job *j, const struct pm_ruleset *given, bool provisional, double deadline,
		 struct pm_finalize_result *r, char *err, size_t errlen)
{
	const char *rules = j->cfg->rules && *j->cfg->rules ? j->cfg->rules : PM_RULESDIR;
	struct pm_ruleset *own = given ? NULL : pm_ruleset_load(rules, err, errlen);
	const struct pm_ruleset *rs = given ? given : own;
	struct pm_evidence *ev = NULL;
	json_t *v = NULL, *man = NULL;
	char *vtext = NULL, *line = NULL, verr[256] = "";
	int rc = -1;

	if (!rs || !(ev = pm_evidence_create(rs)))
		goto out;
	/* Slurm's record first, with at most half the time: stored before the bundles are
	 * read, it is there for the provisional verdict of a merge cut by its deadline */
	if (scheduler(j, provisional, pm_fin_clock() + (deadline - pm_fin_clock()) / 2) < 0 ||
	    bundles(j, rs, ev) < 0) {
		pm_fin_fail(err, errlen, errno, "%s: %s", j->dir, strerror(errno));
		goto out;
	}
	if (j->uid < 0)
		j->uid = j->sched.uid;
	if (j->uid < 0 && env_is_job(j->id) && getenv("SLURM_JOB_UID"))
		j->uid = strtoll(getenv("SLURM_JOB_UID"), NULL, 10);
	if (j->sched.text && sched_input(j, ev, err, errlen) < 0)
		goto out;
	if ((v = pm_diagnose(ev, verr, sizeof(verr))) && !(vtext = pm_verdict_dump(v)))
		goto out;
	if (v && !provisional && strcmp(str(v, "status"), "none") &&
	    !(line = pm_comment_line(v, j->cluster, j->id, j->restart)))
		goto out;
	man = manifest_json(j, rs, v, vtext, line, provisional);
	if (store(j, man, vtext, r, err, errlen) < 0)
		goto out;
	if (r->what != PM_FIN_UNCHANGED)
		r->what = provisional ? PM_FIN_PROVISIONAL : PM_FIN_MERGED;
	if (j->stored_fd >= 0 && write(j->stored_fd, "V", 1) < 0)
		j->stored_fd = -1; /* the parent is gone: nobody to tell */
	snprintf(r->state, sizeof(r->state), "%s", j->sched.state);
	r->present = json_array_size(json_object_get(json_object_get(man, "nodes"), "present"));
	if (!v) {
		pm_fin_fail(err, errlen, ENODATA, "%s: no verdict: %s", j->dir, verr);
		goto out;
	}
	/* a changed final verdict goes to the webhooks first, with at most half the time left:
	 * the comment's retries may take the rest (webhook.h) */
	if (!provisional && r->what == PM_FIN_MERGED && j->cfg->nwebhooks)
		r->webhook = pm_webhook_post(j->cfg, j->dir,
					     pm_fin_clock() + (deadline - pm_fin_clock()) / 2,
					     r->webhook_why, sizeof(r->webhook_why));
	if (!provisional)
		r->comment = pm_fin_comment(j->cfg, j->dir, j->id, line ? line : "", deadline,
					    r->comment_why, sizeof(r->comment_why));
	/* the copy operators alone can change; the timer's recheck retries it */
	if (!provisional && j->cfg->admin_comment && r->comment != PM_COMMENT_PENDING &&
	    strcmp(j->cfg->comment_field ? j->cfg->comment_field : "", "AdminComment"))
		admin_set(j->cfg, j->id, line ? line : "", deadline, verr, sizeof(verr));
	rc = 0;
out:
	if (rc < 0 && err && !err[0])
		pm_fin_fail(err, errlen, errno ? errno : ENOMEM, "%s: %s", j->dir,
			    strerror(errno ? errno : ENOMEM));
	free(line);
	free(vtext);
	json_decref(man);
	json_decref(v);
	pm_evidence_destroy(ev);
	pm_ruleset_destroy(own);
	return rc;
}

/* ---- a merge with a time budget ---- */

/* The bundles of J, listed but not read: the merge ran out of time after BUDGET seconds. */
static int bundles_cut(struct job *j, double budget)
{
	if (!(j->b = calloc(j->files.n + 1, sizeof(*j->b))))
		return -1;
	for (size_t i = 0; i < j->files.n; i++) {
		struct bundle *b = &j->b[j->nb];
		char p[4096];
		struct stat st;

		if (asprintf(&b->file, "nodes/%s.tar.zst", j->files.v[i]) < 0)
			return -1;
		j->nb++;
		b->uid = -1;
		b->cut = true;
		if (!(b->node = strdup(j->files.v[i])))
			return -1;
		path(p, sizeof(p), j->dir, b->file);
		if (stat(p, &st) == 0) /* its size: the timer tells late evidence by it */
			b->bytes = (uint64_t)st.st_size;
		if (j->cut_why[0])
			snprintf(b->reason, sizeof(b->reason), "stored, but not read: %s",
				 j->cut_why);
		else
			snprintf(b->reason, sizeof(b->reason),
				 "stored, but not read: the merge ran out of time (%.0f s)",
				 budget);
	}
	return 0;
}

/* The verdict's coverage names every bundle the merge did not read. */
static void coverage_cut(json_t *v, const struct job *j)
{
	json_t *cov = json_object_get(v, "coverage");

	if (!json_is_array(cov))
		return;
	for (size_t i = 0; i < j->nb; i++)
		if (j->b[i].cut)
			json_array_append_new(cov, json_pack("{s:s,s:s,s:s,s:s,s:s}", "file",
							     j->b[i].file, "node", j->b[i].node,
							     "reason", j->b[i].reason, "source",
							     "bundle", "status", "timed_out"));
}

/*
 * The merge ran out of time: write a verdict from Slurm's stored record alone, each bundle
 * listed as cut, provisional unless FINAL (then the comment too, by END).  A fresh J (no
 * bundles read yet).  Same returns as merge().
 */
static int merge_cut(struct job *j, const struct pm_ruleset *rs, bool final, double budget,
		     double end, struct pm_finalize_result *r, char *err, size_t errlen)
{
	struct pm_evidence *ev = NULL;
	json_t *v = NULL, *man = NULL;
	char *vtext = NULL, *line = NULL, verr[256] = "";
	int rc = -1;

	j->cut = true;
	j->cut_budget = budget;
	if (!(ev = pm_evidence_create(rs)) || bundles_cut(j, budget) < 0)
		goto out;
	if (stored_sched(j, "not asked again: the merge ran out of time") < 0 || !j->sched.final) {
		/* cut before it had Slurm's final record: asked, with a third of what is left */
		struct pm_sched s = {.uid = -1};
		pm_fin_sacct_owner(j->cfg, j->id, owner(j),
				   pm_fin_clock() + (end - pm_fin_clock()) / 3, &s);
		if (s.text && s.state[0]) {
			pm_fin_sched_free(&j->sched);
			j->sched = s;
			j->sched_status = "ok";
			pm_fin_write(j->dir, "sacct.txt", s.text, s.len);
		} else {
			pm_fin_sched_free(&s);
		}
	}
	if (j->uid < 0)
		j->uid = j->sched.uid;
	if (j->sched.text && sched_input(j, ev, err, errlen) < 0)
		goto out;
	if ((v = pm_diagnose(ev, verr, sizeof(verr)))) {
		coverage_cut(v, j);
		if (!(vtext = pm_verdict_dump(v)))
			goto out;
	}
	if (v && final && strcmp(str(v, "status"), "none") &&
	    !(line = pm_comment_line(v, j->cluster, j->id, j->restart)))
		goto out;
	man = manifest_json(j, rs, v, vtext, line, !final);
	if (store(j, man, vtext, r, err, errlen) < 0)
		goto out;
	if (r->what != PM_FIN_UNCHANGED)
		r->what = final ? PM_FIN_MERGED : PM_FIN_PROVISIONAL;
	snprintf(r->state, sizeof(r->state), "%s", j->sched.state);
	r->present = 0;
	if (final && v)
		r->comment = pm_fin_comment(j->cfg, j->dir, j->id, line ? line : "", end,
					    r->comment_why, sizeof(r->comment_why));
	rc = 0;
out:
	if (rc < 0 && err && !err[0])
		pm_fin_fail(err, errlen, errno ? errno : ENOMEM, "%s: %s", j->dir,
			    strerror(errno ? errno : ENOMEM));
	free(line);
	free(vtext);
	json_decref(man);
	json_decref(v);
	pm_evidence_destroy(ev);
	return rc;
}

/* What a timed merge's child writes: 'V' once the verdict is stored, then this. */
struct child_msg {
	int rc;
	struct pm_finalize_result r;
	char err[768];
};

static void write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		len -= (size_t)w;
	}
}

enum child_end { CHILD_DONE, CHILD_CUT, CHILD_DIED };

/* Read the child's 'V' and message from FD until EOF, CUT_AT (monotonic) or STOPPED().
 * *STORED when the verdict was stored. */
static enum child_end child_wait(int fd, struct child_msg *m, double cut_at, bool (*stopped)(void),
				 bool *stored)
{
	char buf[1 + sizeof(*m)];
	size_t got = 0;

	buf[0] = '\0';
	*stored = false;
	for (;;) {
		double left = cut_at - pm_fin_clock();
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int ms = left <= 0 ? 0 : left > 0.2 && stopped ? 200 : (int)(left * 1000) + 1;
		ssize_t n;

		if (left <= 0 || (stopped && stopped()))
			return CHILD_CUT;
		if (poll(&p, 1, ms) <= 0)
			continue; /* the time, a signal: looked at above */
		n = read(fd, buf + got, sizeof(buf) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
		*stored = buf[0] == 'V';
		if (buf[0] != 'V' && got >= sizeof(*m)) /* a merge that failed before storing */
			break;
	}
	if (buf[0] == 'V' && got == sizeof(buf)) {
		memcpy(m, buf + 1, sizeof(*m));
		return CHILD_DONE;
	}
	if (buf[0] != 'V' && got == sizeof(*m)) {
		memcpy(m, buf, sizeof(*m));
		return CHILD_DONE;
	}
	return CHILD_DIED; /* gone without its message: it crashed */
}

/*
 * merge() in a child process, killed at CUT_AT (or when OPTS->stopped says so); then
 * merge_cut() with the reserve left until END.  A merge killed half-way may have replaced files, never
 * half of one (pm_fin_write renames).  Same returns as merge().
 */
static int merge_timed(struct job *j, const struct pm_ruleset *rs, const struct pm_finalize_opts *o,
		       bool provisional, double deadline, double cut_at, double end,
		       struct pm_finalize_result *r, char *err, size_t errlen)
{
	double start = pm_fin_clock();
	struct child_msg m;
	int fds[2], st = 0;
	pid_t pid;
	bool done, stored;
	enum child_end end_how;

	if (deadline > cut_at)
		deadline = cut_at;
	if (cut_at <= start) {
		r->deadline_hit = true;
		return merge_cut(j, rs, !provisional && o->cut_final, o->merge_budget, end, r, err,
				 errlen);
	}
	if (pipe2(fds, O_CLOEXEC) < 0)
		return merge(j, rs, provisional, deadline, r, err, errlen);
	fflush(NULL); /* nothing buffered is written twice */
	if ((pid = fork()) < 0) {
		close(fds[0]);
		close(fds[1]);
		return merge(j, rs, provisional, deadline, r, err, errlen);
	}
	if (pid == 0) {
		close(fds[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlives the caller */
		setpgid(0, 0);
		memset(&m, 0, sizeof(m));
		if (o->child_hook)
			o->child_hook();
		j->stored_fd = fds[1];
		m.rc = merge(j, rs, provisional, deadline, &m.r, m.err, sizeof(m.err));
		write_all(fds[1], &m, sizeof(m));
		_exit(0);
	}
	setpgid(pid, pid);
	close(fds[1]);
	end_how = child_wait(fds[0], &m, cut_at, o->stopped, &stored);
	done = end_how == CHILD_DONE;
	if (!done) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	close(fds[0]);
	if (done) {
		m.r.expected = r->expected; /* counted here, before the child */
		*r = m.r;
		if (m.rc < 0)
			pm_fin_fail(err, errlen, ENODATA, "%s", m.err);
		return m.rc;
	}
	r->deadline_hit = end_how == CHILD_CUT;
	r->took = pm_fin_clock() - start;
	r->merge_died = end_how == CHILD_DIED;
	if (end_how == CHILD_DIED)
		snprintf(j->cut_why, sizeof(j->cut_why), "the merge failed (%s)",
			 WIFSIGNALED(st) ? strsignal(WTERMSIG(st)) : "it exited without a verdict");
	if (stored) {
		/* cut after the verdict was stored: only the comment or a webhook was left, and
		 * their .pending files say so for the timer */
		r->what = provisional ? PM_FIN_PROVISIONAL : PM_FIN_MERGED;
		r->comment = !provisional && exists(j->dir, "comment.pending") ?
				     PM_COMMENT_PENDING :
				     PM_COMMENT_NONE;
		snprintf(r->comment_why, sizeof(r->comment_why),
			 "the merge ran out of time while setting it");
		return 0;
	}
	return merge_cut(j, rs, !provisional && o->cut_final, o->merge_budget, end, r, err, errlen);
}

int pm_finalize_ex(const struct pm_config *cfg, const char *jobdir,
		   const struct pm_finalize_opts *opts, struct pm_finalize_result *res, char *err,
		   size_t errlen)
{
	static const struct pm_finalize_opts none = {0};
	const struct pm_finalize_opts *o = opts ? opts : &none;
	struct pm_finalize_result r;
	double budget = o->budget > 0 ? o->budget : PM_SLURM_BUDGET;
	double deadline = pm_fin_clock() + budget, end = pm_fin_clock() + o->merge_budget;
	/* a fifth of the budget (0.5 to 10 s) is kept for the verdict of a cut merge, whatever
	 * the rounds below spend */
	double reserve = o->merge_budget / 5, cut_at;
	bool force = o->force, wrote_provisional = false;
	const struct pm_ruleset *rs = o->rules;
	struct pm_ruleset *own = NULL;
	char me[200];
	int rc = 1;

	memset(&r, 0, sizeof(r));
	if (err && errlen)
		err[0] = '\0';
	reserve = reserve < RESERVE_MIN ? RESERVE_MIN :
		  reserve > RESERVE_MAX ? RESERVE_MAX :
					  reserve;
	cut_at = end - reserve;
	claim_id(me, sizeof(me), o->merge_budget);
	for (int round = 0; round < 2; round++) {
		struct job j;
		bool all;

		if (job_open(&j, cfg, jobdir, err, errlen) < 0) {
			rc = -1;
			break;
		}
		all = complete(&j);
		r.expected = j.expected.n;
		r.present = j.arrived.n;
		r.what = wrote_provisional ? PM_FIN_PROVISIONAL : PM_FIN_WAITING;
		rc = 1;
		if (!all && !force && exists(jobdir, "manifest.json")) {
			job_free(&j);
			break;
		}
		int c = claim(jobdir, me);
		if (c <= 0) {
			if (c < 0)
				pm_fin_fail(err, errlen, errno, "%s/merging: %s", jobdir,
					    strerror(errno));
			r.what = c < 0 || wrote_provisional ? r.what : PM_FIN_BUSY;
			rc = c < 0 ? -1 : 1;
			job_free(&j);
			break;
		}
		if (!all && !force && exists(jobdir, "manifest.json")) {
			release(jobdir, me); /* someone wrote it between our look and the claim */
			job_free(&j);
			break;
		}
		/* a timed merge runs in a child: the rules are loaded once, here, for both */
		if (o->merge_budget > 0 && !rs) {
			const char *dir = cfg->rules && *cfg->rules ? cfg->rules : PM_RULESDIR;
			if (!(rs = own = pm_ruleset_load(dir, err, errlen))) {
				release(jobdir, me);
				job_free(&j);
				rc = -1;
				break;
			}
		}
		if (o->merge_budget > 0)
			rc = merge_timed(&j, rs, o, !all && !force, deadline, cut_at, end, &r, err,
					 errlen);
		else
			rc = merge(&j, rs, !all && !force, deadline, &r, err, errlen);
		release(jobdir, me);
		job_free(&j);
		if (rc < 0 || all || force)
			break;
		/* provisional: the last node may have come and gone while we held the claim */
		wrote_provisional = true;
		rc = 1;
	}
	pm_ruleset_destroy(own);
	if (res)
		*res = r;
	return rc < 0 ? -1 : rc;
}

int pm_finalize(const struct pm_config *cfg, const char *jobdir, int force, char *err,
		size_t errlen)
{
	struct pm_finalize_opts o = {.force = force != 0};

	return pm_finalize_ex(cfg, jobdir, &o, NULL, err, errlen);
}

int pm_finalize_arrive(const char *jobdir, const char *node, const char *nodelist, char *err,
		       size_t errlen)
{
	char arr[4096], dst[4096];
	struct names l = {0};
	struct stat st;
	int fd;

	if (!node || !node_ok(node, strlen(node)))
		return pm_fin_fail(err, errlen, EINVAL, "'%s' is not a node name",
				   node ? node : "");
	path(arr, sizeof(arr), jobdir, "arrivals");
	if ((fd = open(arr, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640)) >= 0)
		close(fd);
	else if (errno != EEXIST)
		return pm_fin_fail(err, errlen, errno, "%s: %s", arr, strerror(errno));
	path(dst, sizeof(dst), jobdir, "arrived");
	if (mkdir(dst, 0750) < 0 && errno != EEXIST)
		return pm_fin_fail(err, errlen, errno, "%s: %s", dst, strerror(errno));
	if (nodelist && *nodelist && !exists(jobdir, "expected")) {
		int rc = parse_nodes(&l, nodelist, strlen(nodelist));
		names_sort(&l);
		if (rc == 0 && l.n && write_expected(jobdir, &l) < 0 && errno != EEXIST)
			rc = -1;
		names_free(&l);
		if (rc < 0)
			return pm_fin_fail(err, errlen, errno, "%s/expected: %s", jobdir,
					   strerror(errno));
	}
	snprintf(dst, sizeof(dst), "%s/arrived/%s", jobdir, node);
	if (link(arr, dst) < 0 && errno != EEXIST)
		return pm_fin_fail(err, errlen, errno, "%s: %s", dst, strerror(errno));
	/* the link's reply carries the file's attributes: its count is current, even on NFS */
	if (stat(arr, &st) < 0)
		return pm_fin_fail(err, errlen, errno, "%s: %s", arr, strerror(errno));
	return st.st_nlink > 1 ? (int)(st.st_nlink - 1) : 1;
}

/* ---- what became of a merge ---- */

static void describe_claim(const char *jobdir, size_t in, size_t of, char *buf, size_t len)
{
	char p[4096], *text = NULL, since[40] = "?", end[40] = "?";
	struct pm_claim c;
	struct stat st;
	const char *why;
	bool parsed;

	path(p, sizeof(p), jobdir, "merging");
	if (lstat(p, &st) < 0) {
		snprintf(buf, len,
			 "%zu of %zu node(s) reported, but no merge finished: no verdict, no claim "
			 "left (the merging collector was stopped before it wrote one); the finalize "
			 "timer merges it, or run `postmortem finalize JOB`",
			 in, of);
		return;
	}
	parsed = pm_fin_read(p, 4096, &text, NULL) == 0 && pm_claim_parse(text, &c) == 0;
	free(text);
	if (parsed) {
		pm_fin_iso(c.start, since, sizeof(since));
		if (c.end > 0)
			pm_fin_iso(c.end, end, sizeof(end));
	}
	if (pm_claim_stale(parsed ? &c : NULL, (double)st.st_mtime, pm_fin_wall(), &why))
		snprintf(buf, len,
			 "%zu of %zu node(s) reported, but the merge did not finish: %s (%s %ld, "
			 "started %s, to end by %s) without writing a verdict; the claim is free "
			 "and the finalize timer merges it, or run `postmortem finalize JOB`",
			 in, of, why, parsed ? c.host : "?", parsed ? c.pid : 0L, since, end);
	else
		snprintf(buf, len,
			 "%zu of %zu node(s) reported; a merge is running (%s %ld, started %s, to "
			 "end by %s)",
			 in, of, parsed ? c.host : "?", parsed ? c.pid : 0L, since, end);
}

void pm_finalize_describe(const char *jobdir, char *buf, size_t len)
{
	static const struct pm_config none = {0};
	struct job j;
	size_t in = 0, of;

	if (job_open(&j, &none, jobdir, NULL, 0) < 0) {
		snprintf(buf, len, "%s: cannot be read: %s", jobdir, strerror(errno));
		return;
	}
	of = j.expected.n;
	for (size_t i = 0; i < j.arrived.n; i++)
		in += !of || has(&j.expected, j.arrived.v[i]);
	if (!in && !j.files.n)
		snprintf(buf, len, "no node has reported yet (%zu expected)", of);
	else if (!of)
		snprintf(buf, len,
			 "%zu node(s) reported, the job's node list is unknown; no merge "
			 "has written a verdict yet",
			 in);
	else
		describe_claim(jobdir, in, of, buf, len);
	job_free(&j);
}

/* ---- the stored verdict is the authority: comments rechecked ---- */

#define MARK "postmortem: "
#define SEP " | "
#define RECHECK_TIMEOUT 120.0 /* seconds the one sacct query of a walk may take */
#define FOUND_MAX 300	      /* bytes of a tampered value kept in the record */
#define AMBIGUOUS_MAX 50      /* jobs with forged rows asked about alone, per walk */
#define JOBLIST_MAX 32768     /* bytes of job ids named in the query (one argument) */

/* The postmortem part of a comment: from our mark (first, or after " | ") to the end, less
 * trailing blanks; "" when there is none.  Points into CUR; *LEN its length. */
static const char *our_part(const char *cur, size_t *len)
{
	const char *p = !strncmp(cur, MARK, strlen(MARK)) ? cur : strstr(cur, SEP MARK);
	size_t n;

	if (!p) {
		*len = 0;
		return "";
	}
	if (p != cur)
		p += strlen(SEP);
	n = strlen(p);
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\n' || p[n - 1] == '\r'))
		n--;
	*len = n;
	return p;
}

static bool part_is(const char *cur, const char *line)
{
	size_t n;
	const char *p = our_part(cur, &n);

	return n == strlen(line) && !memcmp(p, line, n);
}

/* Seconds for one Slurm command, what is left until DEADLINE within [0.5, 20]. */
static double cmd_limit(double deadline)
{
	double left = deadline - pm_fin_clock();

	return left < 0.5 ? 0.5 : left > 20 ? 20 : left;
}

/*
 * Put LINE into the job's AdminComment too (admin_comment: true), which only operators can
 * set: composed with what is there (an earlier line of ours replaced), except that jobstats'
 * summary ("JS1:...", read back by jobstats as it is) is never touched.  1 set, 0 nothing
 * to do (already there, or jobstats'), -1 failed (WHY).
 */
static int admin_set(const struct pm_config *cfg, const char *job, const char *line,
		     double deadline, char *why, size_t whylen)
{
	const char *sacct = cfg->sacct && *cfg->sacct ? cfg->sacct : "sacct";
	const char *mgr = cfg->sacctmgr && *cfg->sacctmgr ? cfg->sacctmgr : "sacctmgr";
	const char *q[] = {"-P", "-X", "-n", "-j", job, "-o", "AdminComment", NULL};
	char *out = NULL, *want = NULL, where[96], set[1024];
	size_t len;
	int st, rc = -1;

	if (pm_fin_run(sacct, q, cmd_limit(deadline), &out, &len, &st) < 0 || !WIFEXITED(st) ||
	    WEXITSTATUS(st)) {
		snprintf(why, whylen, "%s -o AdminComment failed", sacct);
		goto out;
	}
	while (len && (out[len - 1] == '\n' || out[len - 1] == ' '))
		out[--len] = '\0';
	for (char *p = out; *p; p++)
		if (*p == '\n')
			*p = ' ';
	rc = 0;
	if (pm_comment_is_jobstats(out) || !(want = pm_comment_compose(out, line)) ||
	    !strcmp(want, out))
		goto out;
	for (char *p = want; *p; p++)
		if (*p == '"')
			*p = '`';
	free(out);
	out = NULL;
	snprintf(where, sizeof(where), "jobid=%s", job);
	snprintf(set, sizeof(set), "AdminComment=\"%s\"", want);
	const char *m[] = {"-i", "modify", "job", "where", where, "set", set, NULL};
	if (pm_fin_run(mgr, m, cmd_limit(deadline), &out, &len, &st) < 0 ||
	    strstr(out, "Nothing modified") || !WIFEXITED(st) || WEXITSTATUS(st)) {
		snprintf(why, whylen, "%s: AdminComment not set: %.120s", mgr, out ? out : "");
		rc = -1;
	} else {
		rc = 1;
	}
out:
	free(out);
	free(want);
	return rc;
}

struct cand {
	char key[140]; /* "cluster\x1fjob" */
	char *dir, *line;
	char field[16];
	char job[NAMELEN];
	double set; /* when the comment was set (the comment file's time) */
	bool seen, bad, bad_admin;
	bool newer;	/* a later job has the same id: never set by job id (it would be hit) */
	char start[32]; /* the run's Start in its stored sacct.txt, "" unknown */
	unsigned rows;	/* rows of sacct's answer for the job: more than one is a forged row */
	char found[FOUND_MAX + 1], found_admin[FOUND_MAX + 1];
};

struct recheck {
	const struct pm_config *cfg;
	double since;
	struct cand *c;
	size_t n, cap;
	char row[8192]; /* the row being read: continuation lines join it */
	size_t rowlen;
};

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	/* the newest comment of a job (its latest run) first */
	return c ? c : x->set < y->set ? 1 : x->set > y->set ? -1 : 0;
}

/* The Start column of JOB's row in DIR/sacct.txt (the record the verdict used) into OUT, ""
 * when it is not there.  Job ids come back: the start tells this run's job from another. */
static void stored_start(const char *dir, const char *job, char *out, size_t len)
{
	char p[4096], *buf = NULL, *line, *save = NULL;
	int col = -1;

	out[0] = '\0';
	path(p, sizeof(p), dir, "sacct.txt");
	if (pm_fin_read(p, 1u << 20, &buf, NULL) < 0)
		return;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f = line, *bar;
		int i = 0;
		size_t jl = strlen(job);
		if (col < 0) { /* the header: where Start is */
			for (; f; f = bar ? bar + 1 : NULL, i++) {
				bar = strchr(f, '|');
				if ((bar ? (size_t)(bar - f) : strlen(f)) == 5 &&
				    !strncmp(f, "Start", 5))
					col = i;
			}
			if (col < 0)
				break;
			continue;
		}
		if (strncmp(line, job, jl) || line[jl] != '|')
			continue;
		for (; f && i < col; i++)
			f = (bar = strchr(f, '|')) ? bar + 1 : NULL;
		if (f)
			snprintf(out, len, "%.*s", (int)strcspn(f, "|"), f);
		break;
	}
	free(buf);
}

/* A job run whose comment we set within the period (not pending a retry): a candidate. */
static int recheck_collect(const char *dir, void *arg)
{
	struct recheck *rc = arg;
	char p[4096], *buf = NULL, *tab, cluster[NAMELEN], job[NAMELEN], restart[NAMELEN];
	struct stat st;
	struct cand *c;

	path(p, sizeof(p), dir, "comment");
	if (lstat(p, &st) < 0 || (double)st.st_mtime < rc->since ||
	    exists(dir, "comment.pending") || pm_fin_key(dir, cluster, job, restart, NAMELEN) < 0)
		return 0;
	if (pm_fin_read(p, 4096, &buf, NULL) < 0)
		return 0;
	if (!(tab = strchr(buf, '\t')) || tab - buf >= 16) {
		free(buf);
		return 0;
	}
	*tab++ = '\0';
	tab[strcspn(tab, "\n")] = '\0';
	if (rc->n == rc->cap) {
		size_t cap = rc->cap ? rc->cap * 2 : 256;
		struct cand *v = realloc(rc->c, cap * sizeof(*v));
		if (!v) {
			free(buf);
			return -1;
		}
		rc->c = v;
		rc->cap = cap;
	}
	c = &rc->c[rc->n];
	memset(c, 0, sizeof(*c));
	snprintf(c->key, sizeof(c->key), "%s\x1f%s", cluster, job);
	snprintf(c->field, sizeof(c->field), "%s", buf);
	snprintf(c->job, sizeof(c->job), "%s", job);
	c->set = (double)st.st_mtime;
	stored_start(dir, job, c->start, sizeof(c->start));
	if (!(c->dir = strdup(dir)) || !(c->line = strdup(tab))) {
		free(c->dir);
		free(buf);
		return -1;
	}
	rc->n++;
	free(buf);
	return 0;
}

/* Judge one sacct row "JobID|Cluster|Start|AdminComment|Comment" against the store. */
static void recheck_row(struct recheck *rc, char *row)
{
	char *f[4], *p = row, key[140];
	struct cand *c;
	const char *main_v;

	for (int i = 0; i < 4; i++) {
		char *bar = strchr(p, '|');
		if (!bar)
			return;
		*bar = '\0';
		f[i] = p;
		p = bar + 1;
	}
	snprintf(key, sizeof(key), "%s\x1f%s", f[1], f[0]);
	/* the first entry of the key (the job's latest run) */
	size_t lo = 0, hi = rc->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (strcmp(rc->c[mid].key, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == rc->n || strcmp(rc->c[lo].key, key))
		return;
	c = &rc->c[lo];
	/* another job that came to have the same id: not this run's record; a later one is
	 * what `sacctmgr modify job where jobid=N` would change, so this run is left alone */
	if (c->start[0] && strcmp(f[2], c->start)) {
		c->newer = c->newer || strcmp(f[2], c->start) > 0;
		return;
	}
	c->seen = true;
	c->rows++;
	/* jobstats' summary in AdminComment: the line went to Comment instead (slurmdb.c) */
	main_v = !strcmp(c->field, "AdminComment") && !pm_comment_is_jobstats(f[3]) ? f[3] : p;
	/* a mismatch sticks: a later row (a forged continuation line) cannot clear it */
	if (!part_is(main_v, c->line) && !c->bad) {
		c->bad = true;
		snprintf(c->found, sizeof(c->found), "%s", main_v);
	}
	if (rc->cfg->admin_comment && strcmp(c->field, "AdminComment") && *c->line &&
	    !pm_comment_is_jobstats(f[3]) && !part_is(f[3], c->line) && !c->bad_admin) {
		c->bad_admin = true;
		snprintf(c->found_admin, sizeof(c->found_admin), "%s", f[3]);
	}
}

/* A row starts with a job id and a bar; anything else continues the row before it (a
 * comment holding a line break). */
static void recheck_line(struct recheck *rc, const char *l, size_t n)
{
	const char *bar = memchr(l, '|', n);
	char id[NAMELEN];

	if (bar && (size_t)(bar - l) < sizeof(id)) {
		memcpy(id, l, (size_t)(bar - l));
		id[bar - l] = '\0';
		if (pm_fin_jobid_ok(id)) {
			if (rc->rowlen)
				recheck_row(rc, rc->row);
			rc->rowlen = 0;
			rc->row[0] = '\0';
		}
	}
	if (rc->rowlen && rc->rowlen + 1 < sizeof(rc->row))
		rc->row[rc->rowlen++] = ' ';
	if (rc->rowlen + n >= sizeof(rc->row))
		n = sizeof(rc->row) - rc->rowlen - 1;
	memcpy(rc->row + rc->rowlen, l, n);
	rc->rowlen += n;
	rc->row[rc->rowlen] = '\0';
}

/* Run sacct (as root, as pm_fin_run does) and feed its output to recheck_line as it comes,
 * whatever its size.  0, or -1 with WHY. */
static int recheck_query(struct recheck *rc, const char *const *args, double timeout, size_t *rows,
			 char *why, size_t whylen)
{
	const char *cmd = rc->cfg->sacct && *rc->cfg->sacct ? rc->cfg->sacct : "sacct";
	char buf[65536], *carry = NULL;
	size_t nc = 0;
	double until = pm_fin_clock() + timeout;
	int p[2], st = 0, rcode = -1;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0 || (pid = fork()) < 0) {
		snprintf(why, whylen, "%s: %s", cmd, strerror(errno));
		return -1;
	}
	if (pid == 0)
		pm_fin_exec(cmd, args, p[1], -1);
	close(p[1]);
	for (;;) {
		struct pollfd pf = {.fd = p[0], .events = POLLIN};
		double left = until - pm_fin_clock();
		ssize_t r;

		if (left <= 0) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			snprintf(why, whylen, "%s took more than %.0f s", cmd, timeout);
			goto wait;
		}
		if (poll(&pf, 1, (int)(left * 1000) + 1) <= 0)
			continue;
		if ((r = read(p[0], buf, sizeof(buf))) < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		for (char *s = buf, *e = buf + r, *nl; s < e; s = nl + 1) {
			if (!(nl = memchr(s, '\n', (size_t)(e - s)))) {
				char *c = realloc(carry, nc + (size_t)(e - s) + 1);
				if (!c)
					break;
				carry = c;
				memcpy(carry + nc, s, (size_t)(e - s));
				nc += (size_t)(e - s);
				break;
			}
			if (nc) {
				char *c = realloc(carry, nc + (size_t)(nl - s) + 1);
				if (c) {
					carry = c;
					memcpy(carry + nc, s, (size_t)(nl - s));
					recheck_line(rc, carry, nc + (size_t)(nl - s));
				}
				nc = 0;
			} else {
				recheck_line(rc, s, (size_t)(nl - s));
			}
			++*rows;
		}
	}
	if (nc)
		recheck_line(rc, carry, nc);
	if (rc->rowlen)
		recheck_row(rc, rc->row);
	rcode = 0;
wait:
	close(p[0]);
	free(carry);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (rcode == 0 && (!WIFEXITED(st) || WEXITSTATUS(st))) {
		snprintf(why, whylen, "%s exited with status %d", cmd,
			 WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
		rcode = -1;
	}
	return rcode;
}

/* Append the tampering of C's FIELD to its run's tampered.jsonl (doctor --recent reads it). */
static void record_tampering(const struct cand *c, const char *field, const char *found,
			     bool restored, double now)
{
	char p[4096], ts[40], *text;
	json_t *o;
	int fd;

	char shown[FOUND_MAX + 1];
	size_t k = 0;

	/* the owner's bytes, as text that is always valid JSON: anything else becomes '?' */
	for (; found[k] && k < FOUND_MAX; k++)
		shown[k] = (unsigned char)found[k] < ' ' || (unsigned char)found[k] > '~' ?
				   '?' :
				   found[k];
	shown[k] = '\0';
	pm_fin_iso(now, ts, sizeof(ts));
	o = json_pack("{s:s,s:s,s:s,s:s,s:b}", "time", ts, "field", field, "found", shown, "stored",
		      c->line, "restored", restored);
	if (!o || !(text = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII))) {
		json_decref(o);
		return;
	}
	json_decref(o);
	path(p, sizeof(p), c->dir, PM_TAMPERED_FILE);
	if ((fd = open(p, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0640)) >= 0) {
		size_t n = strlen(text);
		text[n] = '\n'; /* json_dumps' NUL, replaced: written with its line end */
		if (write(fd, text, n + 1) < 0)
			n = 0;
		close(fd);
	}
	free(text);
}

/* Put back C's line (and its AdminComment copy); record what was confirmed changed. */
static void recheck_restore(const struct pm_config *cfg, struct cand *c, double budget,
			    struct pm_recheck *res, double now)
{
	char why[256] = "", *state;

	if (c->bad && asprintf(&state, "%s\t%s\n", c->field, c->line) >= 0) {
		struct pm_config c2 = *cfg;
		enum pm_comment_state cs;
		/* comment.pending first: pm_fin_comment then asks Slurm instead of trusting the
		 * comment file, and a failure leaves the work for the next walk */
		if (pm_fin_write(c->dir, "comment.pending", state, strlen(state)) == 0) {
			c2.comment_field = c->field;
			cs = pm_fin_comment(&c2, c->dir, c->job, c->line, pm_fin_clock() + budget,
					    why, sizeof(why));
			if (cs == PM_COMMENT_SET || cs == PM_COMMENT_PENDING) {
				record_tampering(c, c->field, c->found, cs == PM_COMMENT_SET, now);
				res->tampered++;
				res->restored += cs == PM_COMMENT_SET;
				res->pending += cs == PM_COMMENT_PENDING;
			}
		}
		free(state);
	}
	if (c->bad_admin) {
		int a = admin_set(cfg, c->job, c->line, pm_fin_clock() + budget, why, sizeof(why));
		if (a != 0) {
			record_tampering(c, "AdminComment", c->found_admin, a == 1, now);
			res->tampered++;
			res->restored += a == 1;
			res->pending += a < 0;
		}
	}
}

/* The candidates' job ids, comma-separated, each once (sacct -j), or NULL when they do not fit
 * in JOBLIST_MAX bytes (or memory). */
static char *job_list(const struct recheck *rc)
{
	char *buf = malloc(JOBLIST_MAX);
	size_t l = 0;

	if (!buf)
		return NULL;
	buf[0] = '\0';
	for (size_t i = 0; i < rc->n; i++) {
		size_t n = strlen(rc->c[i].job);
		if (i && !strcmp(rc->c[i - 1].job, rc->c[i].job))
			continue; /* sorted by cluster, then job: the same job's runs are together */
		if (l + n + 2 >= JOBLIST_MAX) {
			free(buf);
			return NULL;
		}
		l += (size_t)snprintf(buf + l, JOBLIST_MAX - l, "%s%s", l ? "," : "", rc->c[i].job);
	}
	return buf;
}

/* The clusters of the candidates, comma-separated, each once (sacct -M). */
static void clusters_of(const struct recheck *rc, char *buf, size_t len)
{
	buf[0] = '\0';
	for (size_t i = 0; i < rc->n; i++) {
		char cl[NAMELEN + 2], have[1030];
		size_t l = strlen(buf);
		int n = (int)strcspn(rc->c[i].key, "\x1f");

		snprintf(cl, sizeof(cl), ",%.*s,", n, rc->c[i].key);
		snprintf(have, sizeof(have), ",%s,", buf);
		if (!strstr(have, cl) && l + (size_t)n + 2 < len)
			snprintf(buf + l, len - l, "%s%.*s", l ? "," : "", n, rc->c[i].key);
	}
}

static bool suspect(const struct cand *c)
{
	return c->seen && (c->bad || c->bad_admin);
}

/* Rows that cannot be taken as they are: several for the job, or one of another start. */
static bool doubtful(const struct cand *c)
{
	return c->rows > 1 || c->newer;
}

/* Has a later job really taken C's id?  Asked of Slurm for that id alone, its Start only (no
 * comment in the answer, so nothing a user wrote can make it say so). */
static bool really_newer(const struct pm_config *cfg, const struct cand *c, double budget)
{
	const char *cmd = cfg->sacct && *cfg->sacct ? cfg->sacct : "sacct";
	char cluster[NAMELEN], *out = NULL;
	size_t len;
	int st;
	bool newer = true; /* unknown: left alone, as a later job's would be */

	snprintf(cluster, sizeof(cluster), "%.*s", (int)strcspn(c->key, "\x1f"), c->key);
	const char *a[] = {"-X", "-n", "-P", "-M", cluster, "-j", c->job, "-o", "Start", NULL};
	if (pm_fin_run(cmd, a, cmd_limit(pm_fin_clock() + budget), &out, &len, &st) == 0 &&
	    WIFEXITED(st) && !WEXITSTATUS(st)) {
		out[strcspn(out, "\n")] = '\0';
		newer = strcmp(out, c->start) > 0;
	}
	free(out);
	return newer;
}

/*
 * A job of the period has one row, of its own start.  A comment can hold line breaks and
 * rows of its own (sacct prints it as it is): a job with several rows, or a row of another
 * start, may be another's forgery, and is looked at only AMBIGUOUS_MAX at a time, starting
 * elsewhere at each walk.  A job with one row of its start that differs is the real thing,
 * always put back.  A job whose id a later job has taken is left alone: `sacctmgr modify
 * job where jobid=N` would change that job.
 */
static void recheck_judge(const struct pm_config *cfg, struct recheck *rc, double budget,
			  struct pm_recheck *res, double now)
{
	size_t amb = 0, from, done = 0, k = 0;

	for (size_t i = 0; i < rc->n; i++) {
		struct cand *c = &rc->c[i];
		/* an older run of the same job: its comment is the latest run's now */
		if (i && !strcmp(rc->c[i - 1].key, c->key)) {
			c->seen = c->newer = false;
			c->rows = 0;
			continue;
		}
		res->seen += c->seen;
		if (doubtful(c) && (suspect(c) || c->newer)) {
			amb++;
		} else if (suspect(c)) {
			res->suspect++;
			recheck_restore(cfg, c, budget, res, now);
		}
	}
	res->ambiguous = amb;
	from = amb ? (size_t)(now / 300) % amb : 0;
	/* the doubtful ones from FROM on, then from the first, AMBIGUOUS_MAX in all */
	for (int pass = 0; pass < 2; pass++) {
		k = 0;
		for (size_t i = 0; i < rc->n && done < AMBIGUOUS_MAX; i++) {
			struct cand *c = &rc->c[i];
			if (!doubtful(c) || !(suspect(c) || c->newer))
				continue;
			if (pass == 0 ? k++ < from : k++ >= from)
				continue;
			done++;
			if (c->newer && really_newer(cfg, c, budget)) {
				res->reused++;
				continue;
			}
			if (suspect(c)) {
				res->suspect++;
				recheck_restore(cfg, c, budget, res, now);
			}
		}
	}
	res->deferred = amb - done;
}

int pm_finalize_recheck(const struct pm_config *cfg, const char *store, const char *jobdir,
			double budget, struct pm_recheck *res, char *err, size_t errlen)
{
	struct recheck rc = {.cfg = cfg};
	double now = pm_fin_wall(), t0 = pm_fin_clock(), q0;
	char since[40], clusters[1024], why[300] = "";
	const char *fields = "JobID,Cluster,Start,AdminComment,Comment";
	char *list = NULL;
	struct pm_recheck r0;
	time_t t;
	struct tm tm;
	int ret = 0;

	if (!res)
		res = &r0;
	memset(res, 0, sizeof(*res));
	if (cfg->comment_recheck <= 0)
		return 0;
	rc.since = now - cfg->comment_recheck;
	if (jobdir ? recheck_collect(jobdir, &rc) < 0 :
		     pm_store_walk(store, recheck_collect, &rc, err, errlen) < 0) {
		ret = pm_fin_fail(err, errlen, errno ? errno : ENOMEM, "%s: %s",
				  jobdir ? jobdir : store, strerror(errno ? errno : ENOMEM));
		goto out;
	}
	if (!(res->runs = rc.n))
		goto out;
	qsort(rc.c, rc.n, sizeof(*rc.c), cand_cmp);
	clusters_of(&rc, clusters, sizeof(clusters));
	t = (time_t)rc.since;
	localtime_r(&t, &tm); /* sacct reads times in local time */
	strftime(since, sizeof(since), "%Y-%m-%dT%H:%M:%S", &tm);
	/* one query: the jobs by name while their list is short (JOBLIST_MAX bytes), else
	 * every job of the period, whoever's: slurmdbd's work follows the list */
	const char *period[] = {"-a",  "-X", "-P",  "-n", "-M",	  clusters, "-S",
				since, "-E", "now", "-o", fields, NULL};
	const char *named[] = {"-a", "-X", "-P", "-n",	 "-M", clusters,
			       "-j", NULL, "-o", fields, NULL};
	named[7] = list = job_list(&rc);
	res->named = list != NULL;
	q0 = pm_fin_clock();
	if (recheck_query(&rc, named[7] ? named : period, RECHECK_TIMEOUT, &res->rows, why,
			  sizeof(why)) < 0) {
		ret = pm_fin_fail(err, errlen, EIO, "comment recheck: %s", why);
		goto out;
	}
	res->sacct_s = pm_fin_clock() - q0;
	recheck_judge(cfg, &rc, budget, res, now);
out:
	free(list);
	res->total_s = pm_fin_clock() - t0;
	for (size_t i = 0; i < rc.n; i++) {
		free(rc.c[i].dir);
		free(rc.c[i].line);
	}
	free(rc.c);
	return ret;
}

/* ---- the timer ---- */

/* When the first node arrived: arrivals, else the oldest arrival, else the folder. */
static double first_arrival(const char *jobdir)
{
	char p[4096];
	struct stat st;
	double t = 0;
	DIR *d;
	struct dirent *de;

	path(p, sizeof(p), jobdir, "arrivals");
	if (stat(p, &st) == 0)
		return (double)st.st_mtime;
	path(p, sizeof(p), jobdir, "arrived");
	if ((d = opendir(p))) {
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    (t == 0 || (double)st.st_mtime < t))
				t = (double)st.st_mtime;
		}
		closedir(d);
	}
	if (t == 0 && stat(jobdir, &st) == 0)
		t = (double)st.st_mtime;
	return t;
}

/* Bundles on disk that the manifest does not list as they are now. */
static bool late_evidence(const char *jobdir, const json_t *m)
{
	struct names files = {0};
	char p[4096];
	bool late = false;
	struct stat st;

	path(p, sizeof(p), jobdir, "nodes");
	if (list_dir(p, ".tar.zst", &files) < 0)
		return false;
	for (size_t i = 0; i < files.n && !late; i++) {
		char rel[200];
		const json_t *b;
		snprintf(rel, sizeof(rel), "nodes/%s.tar.zst", files.v[i]);
		snprintf(p, sizeof(p), "%s/%s", jobdir, rel);
		b = find_bundle(m, rel);
		late = !b ||
		       (stat(p, &st) == 0 &&
			(json_int_t)st.st_size != json_integer_value(json_object_get(b, "bytes")));
	}
	late = late || files.n != json_array_size(json_object_get(m, "bundles"));
	names_free(&files);
	return late;
}

static double iso_secs(const char *s)
{
	struct tm tm = {0};

	if (!s || !strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm))
		return 0;
	return (double)timegm(&tm);
}

enum pm_due pm_finalize_due(const char *jobdir, double grace, double now)
{
	static const struct pm_config none = {0};
	json_t *m = pm_manifest_load(jobdir, NULL, 0);
	enum pm_due due = PM_DUE_NOTHING;
	struct job j;

	if (job_open(&j, &none, jobdir, NULL, 0) < 0) {
		json_decref(m);
		return PM_DUE_NOTHING;
	}
	if (!m || json_is_true(json_object_get(m, "provisional"))) {
		if (complete(&j))
			due = PM_DUE_MERGE;
		else if ((j.arrived.n || j.files.n || m) && now - first_arrival(jobdir) > grace)
			due = PM_DUE_FORCE;
	} else if (late_evidence(jobdir, m) ||
		   (!json_is_true(json_object_get(json_object_get(m, "scheduler"), "final")) &&
		    now - iso_secs(str(m, "updated")) < REMERGE_WINDOW)) {
		due = PM_DUE_FORCE;
	} else if (exists(jobdir, "comment.pending") || exists(jobdir, PM_WEBHOOK_PENDING_FILE)) {
		due = PM_DUE_COMMENT;
	}
	job_free(&j);
	json_decref(m);
	return due;
}

static int walk_level(const char *dir, int depth, int (*fn)(const char *, void *), void *arg)
{
	struct names l = {0};
	int rc = 0;

	if (list_dir(dir, "", &l) < 0)
		return 0; /* unreadable: not ours to judge */
	for (size_t i = 0; i < l.n && !rc; i++) {
		char p[4096];
		struct stat st;
		snprintf(p, sizeof(p), "%s/%s", dir, l.v[i]);
		if (lstat(p, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		rc = depth == 2 ? fn(p, arg) : walk_level(p, depth + 1, fn, arg);
	}
	names_free(&l);
	return rc;
}

int pm_store_walk(const char *store, int (*fn)(const char *jobdir, void *arg), void *arg, char *err,
		  size_t errlen)
{
	DIR *d = opendir(store);

	if (!d)
		return pm_fin_fail(err, errlen, errno, "%s: %s", store, strerror(errno));
	closedir(d);
	return walk_level(store, 0, fn, arg);
}
