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

#include "beside.h"
#include "finalize_int.h"
#include "history.h"
#include "pmutil.h"
#include "webhook.h"
#include "postmortem.h"

#define HISTORY_MAX 10000
#define REMERGE_WINDOW 86400.0 /* how long the timer waits for a final Slurm state */
#define RESERVE_MIN 0.5	       /* seconds kept for a cut merge's provisional verdict */
#define RESERVE_MAX 10.0

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
	/* key: the job's folder name, its id with a reused id's run (N~2), for the store's
	 * keys (ev=, history); id: Slurm's job id, for Slurm */
	char cluster[NAMELEN], id[NAMELEN], key[NAMELEN], restart[NAMELEN];
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
	bool child;	   /* merging in that child, which exits when the merge returns */
	unsigned threads;  /* the merge's (pm_finalize_opts) */
};

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
	rc = pm_names_parse(l, buf, len);
	free(buf);
	return rc < 0 ? -1 : 1;
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
		return pm_names_parse(l, json_string_value(v), strlen(json_string_value(v)));
	json_array_foreach(v, i, x) if (json_is_string(x) &&
					pm_names_add(l, json_string_value(x),
						     strlen(json_string_value(x))) < 0) return -1;
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
		pm_names_sort(&j->expected);
		j->expected_from = "expected";
		return 0;
	}
	for (size_t i = 0; i < j->files.n && !j->expected.n; i++) {
		char p[4096];
		json_t *m;
		snprintf(p, sizeof(p), "%s/nodes/%s.tar.zst", j->dir, j->files.v[i]);
		if ((m = pm_bundle_manifest(p)) && manifest_nodes(m, &j->expected) == 0 &&
		    j->expected.n)
			j->expected_from = "bundle manifest";
		json_decref(m);
	}
	if (!j->expected.n && env && *env && pm_names_parse(&j->expected, env, strlen(env)) == 0 &&
	    j->expected.n)
		j->expected_from = "SLURM_NODELIST";
	if (!j->expected.n) {
		j->expected_from = "unknown";
		return 0;
	}
	pm_names_sort(&j->expected);
	return write_expected(j->dir, &j->expected) < 0 && errno != EEXIST ? -1 : 0;
}

/* ---- arrivals and bundles on disk ---- */

/* Add the expected nodes that DIR/<node>SUFFIX names but a (stale, on NFS) listing missed. */
static int lookup_expected(const struct job *j, const char *sub, const char *suffix,
			   struct names *l)
{
	char p[4096];
	struct stat st;

	for (size_t i = 0; i < j->expected.n; i++) {
		const char *n = j->expected.v[i];
		snprintf(p, sizeof(p), "%s/%s/%s%s", j->dir, sub, n, suffix);
		if (!pm_names_has(l, n) && lstat(p, &st) == 0 && pm_names_add(l, n, strlen(n)) < 0)
			return -1;
	}
	pm_names_sort(l);
	return 0;
}

static int scan(struct job *j)
{
	char p[4096];
	struct stat st;

	path(p, sizeof(p), j->dir, "nodes");
	if (pm_names_list_dir(p, ".tar.zst", &j->files) < 0 || find_expected(j) < 0)
		return -1;
	path(p, sizeof(p), j->dir, "arrived");
	if (pm_names_list_dir(p, "", &j->arrived) < 0 ||
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
		in += pm_names_has(&j->arrived, j->expected.v[i]);
	return in == j->expected.n || (j->nlinked >= 0 && (size_t)j->nlinked >= j->expected.n);
}

static void job_free(struct job *j)
{
	pm_names_free(&j->expected);
	pm_names_free(&j->arrived);
	pm_names_free(&j->files);
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
	if (pm_fin_key(jobdir, j->cluster, j->key, j->restart, NAMELEN) < 0 ||
	    pm_fin_jobid_split(j->key, j->id, NAMELEN) < 0)
		return pmu_fail(err, errlen, EINVAL, "%s: not a <cluster>/<job>/<restart> folder",
				jobdir);
	if (scan(j) < 0) {
		int e = errno;
		job_free(j);
		return pmu_fail(err, errlen, e, "%s: %s", jobdir, strerror(e));
	}
	return 0;
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

/* What the engine said of bundle I of J (pm_evidence_add_bundle's RC, manifest M's brief,
 * digest SHA and size BYTES, refusal ERR): the bundle's entry.  Called in order, once each
 * bundle is hashed, its manifest read and checked, in one read; a good one is in the evidence
 * set (the engine adds nothing of a bundle it rejects). */
static int inspected(void *arg, size_t i, int rc, const struct pm_bundle_brief *m, const char *sha,
		     uint64_t bytes, const char *err)
{
	struct job *j = arg;
	struct bundle *b = &j->b[i];
	int en = errno;

	snprintf(b->sha, sizeof(b->sha), "%s", sha);
	b->bytes = bytes;
	if (!b->sha[0]) {
		snprintf(b->reason, sizeof(b->reason), "bundle unreadable: %s", strerror(en));
		return 0;
	}
	if (m) {
		const char *n = m->node;
		if (n && pm_node_ok(n, strlen(n)) && strcmp(n, b->node) &&
		    pmu_strset(&b->node, n) < 0)
			return -1;
		b->deadline_hit = m->deadline_hit;
		b->uid = m->uid;
	}
	if (rc < 0)
		snprintf(b->reason, sizeof(b->reason), "bundle rejected: %s", err);
	else
		b->ok = true;
	if (b->ok && b->uid >= 0 && j->uid < 0)
		j->uid = b->uid;
	return 0;
}

/* Every bundle file of J into EV, read on the threads the options allow (in the order of the
 * file names whatever the threads). */
static int bundles(struct job *j, struct pm_evidence *ev)
{
	char **paths;
	int rc = -1;

	if (!(j->b = calloc(j->files.n + 1, sizeof(*j->b))) ||
	    !(paths = calloc(j->files.n + 1, sizeof(*paths))))
		return -1;
	for (size_t i = 0; i < j->files.n; i++) {
		struct bundle *b = &j->b[j->nb];
		char p[4096];
		if (asprintf(&b->file, "nodes/%s.tar.zst", j->files.v[i]) < 0)
			goto out;
		j->nb++;
		b->uid = -1;
		path(p, sizeof(p), j->dir, b->file);
		if (!(b->node = strdup(j->files.v[i])) || !(paths[i] = strdup(p)))
			goto out;
	}
	rc = pm_evidence_add_bundles_brief(ev, j->nb, (const char *const *)paths, inspected, j);
out:
	for (size_t i = 0; i < j->files.n; i++)
		free(paths[i]);
	free(paths);
	return rc;
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
		pmu_fail(err, errlen, errno, "%s: %s", j->dir, strerror(errno));
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
		if ((m = pm_bundle_manifest(p))) {
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

	/* a provisional verdict asks once, the record not final yet; the command still has
	 * its time (a loaded slurmdbd answers in seconds, and half a second lost the record) */
	if (provisional)
		pm_fin_sacct_once(j->cfg, j->id, owner(j), deadline, &j->sched);
	else
		pm_fin_sacct_owner(j->cfg, j->id, owner(j), deadline, &j->sched);
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
			pm_names_add(&present, j->b[i].node, strlen(j->b[i].node));
	pm_names_sort(&present);
	for (size_t i = 0; i < j->expected.n; i++) {
		static const char never[] = PM_MISSING_REASON;
		const char *n = j->expected.v[i], *why = never;
		if (pm_names_has(&present, n))
			continue;
		for (size_t k = 0; k < j->nb; k++)
			if (!strcmp(j->b[k].node, n) && j->b[k].reason[0])
				why = j->b[k].reason;
		if (why == never && pm_names_has(&j->arrived, n))
			why = "arrived, but its bundle is missing";
		/* the node's collector could not store its bundle (store.c, note_undelivered) */
		char p[4096], note[700], *buf = NULL;
		size_t len = 0;
		snprintf(p, sizeof(p), "%s/undelivered/%s", j->dir, n);
		if (why == never && pm_fin_read(p, 4096, &buf, &len) == 0) {
			snprintf(note, sizeof(note),
				 "evidence storage failed; the bundle waits in the node's spool for "
				 "a later run%s%.*s",
				 len ? ": " : "", (int)strcspn(buf, "\n"), buf);
			why = note;
		}
		free(buf);
		json_array_append_new(missing, json_pack("{s:s,s:s}", "node", n, "reason", why));
	}
	json_object_set_new(o, "expected",
			    j->expected.n ? pm_names_json(&j->expected) : json_null());
	json_object_set_new(o, "expected_from", json_string(j->expected_from));
	json_object_set_new(o, "present", pm_names_json(&present));
	json_object_set_new(o, "missing", missing);
	pm_names_free(&present);
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
		pm_sha256_buf(j->sched.text, j->sched.len, sha);
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

/* What a merge's manifest and store need of its bundles and of the stored manifest alone,
 * made beside the attribution (early_start), which leaves the other threads idle: at 16,384
 * nodes, a stored manifest of 4.5 MB to parse and the lists of every bundle to build. */
struct early {
	const struct job *j;
	struct pm_beside b;
	json_t *old, *nodes, *bundles, *hits; /* NULL: not made (early_take makes them) */
	/* NODES and BUNDLES as the manifest's dump writes them (dump_parts; NULL: not made),
	 * and the lists they were made of, to know them in the manifest (not held) */
	char *ntext, *btext;
	const json_t *nmade, *bmade;
};

/* J (a value of the manifest's top-level object) as the manifest's dump writes it there: the
 * dump of J alone with two more blanks after each line break.  jansson's JSON_INDENT(2) starts
 * each line of a value at depth D with a line break and 2 x D blanks, and no string it writes
 * holds a line break (escaped as \n), so this is the same text by construction. */
static char *dump_at_depth1(const json_t *j)
{
	char *s = json_dumps(j, JSON_SORT_KEYS | JSON_INDENT(2) | JSON_ENSURE_ASCII), *o, *q;
	size_t lines = 0, len;

	if (!s)
		return NULL;
	for (const char *p = s; (p = strchr(p, '\n')); p++)
		lines++;
	len = strlen(s);
	if (!(o = malloc(len + 2 * lines + 1))) {
		free(s);
		return NULL;
	}
	q = o;
	for (const char *p = s; *p; p++) {
		*q++ = *p;
		if (*p == '\n') {
			*q++ = ' ';
			*q++ = ' ';
		}
	}
	*q = '\0';
	free(s);
	return o;
}

static void *early_run(void *arg)
{
	struct early *e = arg;

	e->old = pm_manifest_load(e->j->dir, NULL, 0);
	e->nodes = nodes_json(e->j);
	e->bundles = bundles_json(e->j, &e->hits);
	/* the manifest's largest parts dumped here too (4.5 MB at 16,384 nodes, 30 ms): the
	 * lists are not changed after this, and a manifest that is not written does not need
	 * them (the stored one says the same): a little work for nothing then, on a thread that
	 * is idle beside the attribution */
	if (e->nodes && e->bundles) {
		e->ntext = dump_at_depth1(e->nodes);
		e->btext = dump_at_depth1(e->bundles);
		e->nmade = e->nodes;
		e->bmade = e->bundles;
	}
	return NULL;
}

/* Start E for J's bundles, read and no longer changed, on a thread of its own where J may use
 * two or more; made inline by early_take otherwise, or when no thread can be started. */
static void early_start(struct early *e, const struct job *j)
{
	memset(e, 0, sizeof(*e));
	e->j = j;
	pm_beside_start(&e->b, early_run, e, j->threads);
}

/* E's thread waited for, and nothing made that was not (a merge leaving on an error). */
static void early_join(struct early *e)
{
	pm_beside_end(&e->b);
}

/* E's parts, waited for (or made now; nothing when early_start was not called). */
static void early_take(struct early *e)
{
	pm_beside_wait(&e->b);
}

static void early_free(struct early *e)
{
	early_join(e);
	json_decref(e->old);
	json_decref(e->nodes);
	json_decref(e->bundles);
	json_decref(e->hits);
	free(e->ntext);
	free(e->btext);
}

/* The job's manifest; E (NULL: made here) gives its bundle lists, taken. */
static json_t *manifest_json(const struct job *j, const struct pm_ruleset *rs, const json_t *v,
			     const char *vtext, const char *line, bool provisional, struct early *e)
{
	json_t *m = json_object(), *hits, *vo;
	char sha[80];

	json_object_set_new(m, "schema", json_string(PM_MANIFEST_SCHEMA));
	json_object_set_new(m, "job",
			    json_pack("{s:s,s:s,s:I,s:o}", "id", j->id, "cluster", j->cluster,
				      "restart", (json_int_t)strtoll(j->restart, NULL, 10), "uid",
				      j->uid >= 0 ? json_integer(j->uid) : json_null()));
	if (e && e->nodes && e->bundles && e->hits) {
		json_object_set_new(m, "nodes", e->nodes);
		json_object_set_new(m, "bundles", e->bundles);
		json_object_set_new(m, "deadline_hits", e->hits);
		e->nodes = e->bundles = e->hits = NULL;
	} else {
		json_object_set_new(m, "nodes", nodes_json(j));
		json_object_set_new(m, "bundles", bundles_json(j, &hits));
		json_object_set_new(m, "deadline_hits", hits);
	}
	json_object_set_new(m, "scheduler", scheduler_json(j));
	json_object_set_new(m, "ruleset",
			    json_pack("{s:s,s:s,s:s}", "id", pm_ruleset_id(rs), "version",
				      pm_ruleset_version(rs), "digest", pm_ruleset_digest(rs)));
	json_object_set_new(m, "provisional", json_boolean(provisional));
	if (j->cut)
		json_object_set_new(m, "merge", cut_json(j));
	if (v) {
		pm_sha256_buf(vtext, strlen(vtext), sha);
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

/* What a manifest holds besides what "the same inputs" compares: its times and history. */
static const char *const unessential[] = {"created", "updated", "expires", "history"};

/* Take the times and history out of manifest M (whose keys they were), into KEPT. */
static void essence(json_t *m, json_t *kept[4])
{
	for (size_t k = 0; k < 4; k++) {
		kept[k] = json_incref(json_object_get(m, unessential[k]));
		json_object_del(m, unessential[k]);
	}
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

/* Manifest M's bundles by file name (a hash table of its entries, the first of a name), or
 * NULL on ENOMEM: looked up once a bundle, find_bundle's walk was quadratic (268 million
 * comparisons, 20 s, for a changed verdict of 16,384 nodes). */
static json_t *bundle_index(const json_t *m)
{
	json_t *idx = json_object(), *b;
	size_t i;

	if (!idx)
		return NULL;
	json_array_foreach(json_object_get(m, "bundles"), i, b)
	{
		const char *f = json_string_value(json_object_get(b, "file"));
		if (f && !json_object_get(idx, f) && json_object_set(idx, f, b) < 0) {
			json_decref(idx);
			return NULL;
		}
	}
	return idx;
}

/* M's bundle FILE through its index IDX (NULL: none could be made). */
static const json_t *bundle_in(const json_t *idx, const json_t *m, const char *file)
{
	return idx ? json_object_get(idx, file) : find_bundle(m, file);
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
	json_t *oi = bundle_index(old), *ni = bundle_index(new);
	size_t i;
	json_t *b;

	why[0] = '\0';
	if (json_is_true(json_object_get(old, "provisional")) &&
	    !json_is_true(json_object_get(new, "provisional")))
		append(why, len, "final merge of a provisional verdict");
	json_array_foreach(json_object_get(new, "bundles"), i, b)
	{
		const json_t *o = bundle_in(oi, old, str(b, "file"));
		if (!o)
			append(why, len, "new bundle %s (%s)", str(b, "file"), str(b, "node"));
		else if (strcmp(str(o, "sha256"), str(b, "sha256")) ||
			 strcmp(str(o, "status"), str(b, "status")))
			append(why, len, "bundle %s changed (%s)", str(b, "file"),
			       str(b, "status"));
	}
	json_array_foreach(json_object_get(old, "bundles"), i,
			   b) if (!bundle_in(ni, new, str(b, "file")))
		append(why, len, "bundle %s gone", str(b, "file"));
	json_decref(oi);
	json_decref(ni);
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

/* MAN dumped as dump() does, with the values of its keys "nodes" and "bundles" taken from
 * E's texts where they are the lists E made them of (E NULL: none): the rest of MAN is
 * dumped with "" in their place, and each "" replaced with its text.  A top-level key's
 * line is the one place in the dump where a line break is followed by two blanks and a
 * quote; a key is there once. */
static char *dump_parts(json_t *man, const struct early *e)
{
	static const char *const key[2] = {"nodes", "bundles"};
	const char *text[2] = {NULL, NULL};
	json_t *real[2] = {NULL, NULL};
	char *s, *o = NULL, *at[2] = {NULL, NULL};
	size_t len, more = 0;

	for (int k = 0; e && k < 2; k++) {
		const json_t *made = k ? e->bmade : e->nmade;
		text[k] = k ? e->btext : e->ntext;
		if (!text[k] || !made || json_object_get(man, key[k]) != made)
			text[k] = NULL;
	}
	for (int k = 0; k < 2; k++)
		if (text[k]) {
			real[k] = json_incref(json_object_get(man, key[k]));
			json_object_set_new(man, key[k], json_string(""));
		}
	s = dump(man);
	for (int k = 0; k < 2; k++)
		if (real[k])
			json_object_set_new(man, key[k], real[k]);
	if (!s || (!text[0] && !text[1]))
		return s;
	for (int k = 0; k < 2; k++) {
		char line[40];
		if (!text[k])
			continue;
		snprintf(line, sizeof(line), "\n  \"%s\": \"\"", key[k]);
		if (!(at[k] = strstr(s, line))) { /* cannot be: the whole dump, as before */
			free(s);
			return dump(man);
		}
		at[k] += strlen(line) - 2; /* the "" */
		more += strlen(text[k]);
	}
	len = strlen(s);
	if (!(o = malloc(len + more + 1))) {
		free(s);
		return NULL;
	}
	/* the two places in the order they come */
	int first = at[0] && (!at[1] || at[0] < at[1]) ? 0 : 1, second = 1 - first;
	char *q = o;
	const char *from = s;
	for (int n = 0; n < 2; n++) {
		int k = n ? second : first;
		if (!at[k])
			continue;
		memcpy(q, from, (size_t)(at[k] - from));
		q += at[k] - from;
		q = stpcpy(q, text[k]);
		from = at[k] + 2;
	}
	strcpy(q, from);
	free(s);
	return o;
}

/* Write VTEXT and MAN unless they say what is stored already (OLD, taken: the stored
 * manifest, NULL none).  0 or -1.  MAN, which has no
 * times or history yet, gets the stored ones (its expiry too when nothing is written: the
 * node history reads it).  E (NULL: none): the texts of MAN's largest parts, made early. */
static int store(const struct job *j, json_t *man, json_t *old, const char *vtext,
		 const struct early *e, struct pm_finalize_result *r, char *err, size_t errlen)
{
	json_t *kept[4] = {NULL, NULL, NULL, NULL}, *hist;
	char p[4096], *ov = NULL, *mtext = NULL, ts[40];
	double now = pm_fin_wall(), retain = j->cfg->retain > 0 ? j->cfg->retain : 14 * 86400.0;
	bool vchanged, mchanged;
	int rc = -1;

	path(p, sizeof(p), j->dir, "verdict.json");
	if (pm_fin_read(p, 64u << 20, &ov, NULL) < 0)
		ov = NULL;
	vchanged = vtext && (!ov || strcmp(ov, vtext));
	/* the stored manifest is compared in place, its times and history taken out: at 16,384
	 * nodes two deep copies of it were a fifth of this function's time */
	if (old)
		essence(old, kept);
	mchanged = !old || !json_equal(old, man);
	if (!vchanged && !mchanged) {
		if (json_is_string(kept[2]))
			json_object_set(man, "expires", kept[2]);
		r->what = PM_FIN_UNCHANGED;
		rc = 0;
		goto out;
	}
	hist = json_is_array(kept[3]) ? json_incref(kept[3]) : json_array();
	json_object_set_new(man, "history", hist);
	pmu_iso(now, ts, sizeof(ts), "1970-01-01T00:00:00Z");
	if (vchanged && ov) {
		why_changed(old, man, r->why, sizeof(r->why));
		if ((r->history = keep(j->dir, r->why)) < 0) {
			pmu_fail(err, errlen, errno, "%s/history: %s", j->dir, strerror(errno));
			goto out;
		}
		snprintf(p, sizeof(p), "history/verdict-%d.json", r->history);
		json_array_append_new(hist, json_pack("{s:s,s:s,s:s}", "file", p, "why", r->why,
						      "replaced", ts));
	}
	json_object_set_new(man, "created",
			    json_is_string(kept[0]) ? json_incref(kept[0]) : json_string(ts));
	json_object_set_new(man, "updated", json_string(ts));
	pmu_iso(now + retain, ts, sizeof(ts), "1970-01-01T00:00:00Z");
	json_object_set_new(man, "expires", json_string(ts));
	if (!(mtext = dump_parts(man, e)) ||
	    (vchanged && pm_fin_write(j->dir, "verdict.json", vtext, strlen(vtext)) < 0) ||
	    pm_fin_write(j->dir, "manifest.json", mtext, strlen(mtext)) < 0) {
		pmu_fail(err, errlen, errno, "%s: writing the verdict: %s", j->dir,
			 strerror(errno));
		goto out;
	}
	rc = 0;
out:
	free(mtext);
	free(ov);
	for (size_t k = 0; k < 4; k++)
		json_decref(kept[k]);
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

/* ---- the node history (store/history.h) ---- */

/* The store JOBDIR is in (its fourth component from the end) into OUT.  0 or -1. */
static int store_of(const char *jobdir, char *out, size_t len)
{
	size_t n = strlen(jobdir);

	for (int k = 0; k < 3; k++) {
		while (n > 1 && jobdir[n - 1] == '/')
			n--;
		while (n > 0 && jobdir[n - 1] != '/')
			n--;
	}
	while (n > 1 && jobdir[n - 1] == '/')
		n--;
	if (!n || n >= len)
		return -1;
	memcpy(out, jobdir, n);
	out[n] = '\0';
	return 0;
}

static void ledger_of(const struct job *j, const char *store, char *out, size_t len)
{
	if (j->cfg->ledger && *j->cfg->ledger)
		snprintf(out, len, "%s", j->cfg->ledger);
	else
		snprintf(out, len, "%s/ledger.jsonl", store);
}

/* A final verdict V sees the history of its origin nodes as it stood at the job's end: the
 * records it uses become its inputs, and repeats may justify its repair.  A history that
 * cannot be read leaves V as the engine gave it. */
static void history_apply(struct job *j, json_t *v)
{
	struct pm_history_policy pol;
	struct pm_history_rec *r = NULL;
	char store[4096], ledger[4200], run[200];
	size_t n = 0;

	if (store_of(j->dir, store, sizeof(store)) < 0)
		return;
	pm_history_policy_of(j->cfg->repeat_jobs, j->cfg->repeat_window, &pol);
	ledger_of(j, store, ledger, sizeof(ledger));
	snprintf(run, sizeof(run), "%s/%s/%s", j->cluster, j->key, j->restart);
	if (pm_history_gather(store, ledger, v, run, pm_history_job_end(j->dir), &pol, &r, &n, NULL,
			      0) == 0)
		pm_history_apply(v, run, r, n, &pol);
	free(r);
}

/* Record final verdict V (stored with manifest MAN) in its origin nodes' history. */
static void history_record(struct job *j, const json_t *v, const json_t *man)
{
	char store[4096];
	struct tm tm = {0};
	const char *exp = json_string_value(json_object_get(man, "expires"));
	double expires = exp && strptime(exp, "%Y-%m-%dT%H:%M:%SZ", &tm) ? (double)timegm(&tm) : 0;
	json_t *stored = NULL;

	if (!exp && (stored = pm_manifest_load(j->dir, NULL, 0)) &&
	    (exp = json_string_value(json_object_get(stored, "expires"))) &&
	    strptime(exp, "%Y-%m-%dT%H:%M:%SZ", &tm))
		expires = (double)timegm(&tm);
	json_decref(stored);
	if (store_of(j->dir, store, sizeof(store)) == 0)
		pm_history_record(store, j->dir, v, pm_history_job_end(j->dir), j->uid, expires,
				  NULL, 0);
}

/* Merge with the rule set GIVEN (the caller's, kept), or else one loaded from cfg->rules. */
static int merge(struct job *j, const struct pm_ruleset *given, bool provisional, double deadline,
		 struct pm_finalize_result *r, char *err, size_t errlen)
{
	const char *rules = j->cfg->rules && *j->cfg->rules ? j->cfg->rules : PM_RULESDIR;
	struct pm_ruleset *own = given ? NULL : pm_ruleset_load(rules, err, errlen);
	const struct pm_ruleset *rs = given ? given : own;
	struct pm_evidence *ev = NULL;
	struct early early = {0};
	json_t *v = NULL, *man = NULL, *old;
	char *vtext = NULL, *line = NULL, verr[256] = "";
	int rc = -1;

	if (!rs || !(ev = pm_evidence_create(rs)))
		goto out;
	pm_evidence_set_threads(ev, j->threads);
	/* Slurm's record first, with at most half the time: stored before the bundles are
	 * read, it is there for the provisional verdict of a merge cut by its deadline */
	if (scheduler(j, provisional, pm_fin_clock() + (deadline - pm_fin_clock()) / 2) < 0 ||
	    bundles(j, ev) < 0) {
		pmu_fail(err, errlen, errno, "%s: %s", j->dir, strerror(errno));
		goto out;
	}
	if (j->uid < 0)
		j->uid = j->sched.uid;
	if (j->uid < 0 && env_is_job(j->id) && getenv("SLURM_JOB_UID"))
		j->uid = strtoll(getenv("SLURM_JOB_UID"), NULL, 10);
	if (j->sched.text && sched_input(j, ev, err, errlen) < 0)
		goto out;
	/* the scan keeps every thread busy; the attribution after it, one */
	if (pm_evidence_scan(ev, verr, sizeof(verr)) == 0) {
		early_start(&early, j);
		v = pm_diagnose(ev, verr, sizeof(verr));
	}
	if (v && !provisional)
		history_apply(j, v);
	if (v && !(vtext = pm_verdict_dump(v)))
		goto out;
	if (v && !provisional && strcmp(str(v, "status"), "none") &&
	    !(line = pm_comment_line(v, j->cluster, j->key, j->restart)))
		goto out;
	early_take(&early);
	man = manifest_json(j, rs, v, vtext, line, provisional, &early);
	old = early.old;
	early.old = NULL;
	if (store(j, man, old, vtext, &early, r, err, errlen) < 0)
		goto out;
	if (r->what != PM_FIN_UNCHANGED)
		r->what = provisional ? PM_FIN_PROVISIONAL : PM_FIN_MERGED;
	if (v && !provisional)
		history_record(j, v, man);
	if (j->stored_fd >= 0 && write(j->stored_fd, "V", 1) < 0)
		j->stored_fd = -1; /* the parent is gone: nobody to tell */
	snprintf(r->state, sizeof(r->state), "%s", j->sched.state);
	r->present = json_array_size(json_object_get(json_object_get(man, "nodes"), "present"));
	if (!v) {
		pmu_fail(err, errlen, ENODATA, "%s: no verdict: %s", j->dir, verr);
		goto out;
	}
	/* a changed final verdict goes to the webhooks first, with at most half the time left:
	 * the comment's retries may take the rest (webhook.h) */
	if (!provisional && r->what == PM_FIN_MERGED && j->cfg->nwebhooks)
		r->webhook = pm_webhook_post(j->cfg, j->dir,
					     pm_fin_clock() + (deadline - pm_fin_clock()) / 2,
					     r->webhook_why, sizeof(r->webhook_why));
	if (!provisional)
		r->comment = pm_fin_comment(j->cfg, j->dir, j->id, j->uid, line ? line : "",
					    deadline, r->comment_why, sizeof(r->comment_why));
	/* the copy operators alone can change; the timer's recheck retries it */
	if (!provisional && j->cfg->admin_comment && r->comment != PM_COMMENT_PENDING &&
	    strcmp(j->cfg->comment_field ? j->cfg->comment_field : "", "AdminComment"))
		pm_fin_admin_set(j->cfg, j->dir, j->id, j->uid, line ? line : "", deadline, verr,
				 sizeof(verr));
	rc = 0;
out:
	if (rc < 0 && err && !err[0])
		pmu_fail(err, errlen, errno ? errno : ENOMEM, "%s: %s", j->dir,
			 strerror(errno ? errno : ENOMEM));
	early_join(&early); /* it reads J, which the caller may free */
	free(line);
	free(vtext);
	if (j->child)
		return rc; /* the exit frees it all: 8% of a merge of 16,384 nodes */
	early_free(&early);
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
	json_t *cut = json_array();

	if (!json_is_array(json_object_get(v, "coverage")) || !cut) {
		json_decref(cut);
		return;
	}
	for (size_t i = 0; i < j->nb; i++)
		if (j->b[i].cut)
			json_array_append_new(cut, json_pack("{s:s,s:s,s:s,s:s,s:s}", "file",
							     j->b[i].file, "node", j->b[i].node,
							     "reason", j->b[i].reason, "source",
							     "bundle", "status", "timed_out"));
	pm_verdict_coverage_add(v, cut);
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
	    !(line = pm_comment_line(v, j->cluster, j->key, j->restart)))
		goto out;
	man = manifest_json(j, rs, v, vtext, line, !final, NULL);
	if (store(j, man, pm_manifest_load(j->dir, NULL, 0), vtext, NULL, r, err, errlen) < 0)
		goto out;
	if (r->what != PM_FIN_UNCHANGED)
		r->what = final ? PM_FIN_MERGED : PM_FIN_PROVISIONAL;
	if (v && final)
		history_record(j, v, man);
	snprintf(r->state, sizeof(r->state), "%s", j->sched.state);
	r->present = 0;
	if (final && v)
		r->comment = pm_fin_comment(j->cfg, j->dir, j->id, j->uid, line ? line : "", end,
					    r->comment_why, sizeof(r->comment_why));
	rc = 0;
out:
	if (rc < 0 && err && !err[0])
		pmu_fail(err, errlen, errno ? errno : ENOMEM, "%s: %s", j->dir,
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
		j->child = true;
		m.rc = merge(j, rs, provisional, deadline, &m.r, m.err, sizeof(m.err));
		(void)pmu_write_all(fds[1], &m, sizeof(m));
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
			pmu_fail(err, errlen, ENODATA, "%s", m.err);
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
		r->comment = !provisional && pm_fin_exists(j->dir, "comment.pending") ?
				     PM_COMMENT_PENDING :
				     PM_COMMENT_NONE;
		snprintf(r->comment_why, sizeof(r->comment_why),
			 "the merge ran out of time while setting it");
		return 0;
	}
	return merge_cut(j, rs, !provisional && o->cut_final, o->merge_budget, end, r, err, errlen);
}

/* A timed merge's rule set, loaded beside the job folder's listing and the claim (rules_start):
 * at 16,384 nodes each is about 30 ms of the start, before any bundle is read. */
struct rules_load {
	const char *dir;
	struct pm_beside b;
	bool taken;
	int en;
	char err[768];
};

static void *rules_run(void *arg)
{
	struct rules_load *l = arg;
	struct pm_ruleset *rs = pm_ruleset_load(l->dir, l->err, sizeof(l->err));

	l->en = errno;
	return rs;
}

/* Start loading CFG's rule set into L, on a thread of its own where THREADS is 2 or more;
 * with one, rules_take loads it.  L is read by the thread until rules_take or rules_drop. */
static void rules_start(struct rules_load *l, const struct pm_config *cfg, unsigned threads)
{
	memset(l, 0, sizeof(*l));
	l->dir = cfg->rules && *cfg->rules ? cfg->rules : PM_RULESDIR;
	pm_beside_start(&l->b, rules_run, l, threads);
}

/* L's rule set (the caller's to destroy), or NULL with errno and ERR as pm_ruleset_load
 * gives them. */
static struct pm_ruleset *rules_take(struct rules_load *l, char *err, size_t errlen)
{
	struct pm_ruleset *rs = pm_beside_wait(&l->b);

	l->taken = true;
	if (!rs) {
		pmu_fail(err, errlen, l->en, "%s", l->err);
	}
	return rs;
}

/* L waited for where it was started and not taken: a merge that was not run. */
static void rules_drop(struct rules_load *l)
{
	struct pm_ruleset *rs = pm_beside_end(&l->b);

	if (!l->taken)
		pm_ruleset_destroy(rs);
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
	struct rules_load load = {0};
	char me[200];
	int rc = 1;

	memset(&r, 0, sizeof(r));
	if (err && errlen)
		err[0] = '\0';
	/* a timed merge runs in a child: the rules are loaded once, for both rounds, beside
	 * the job's folder listed and claimed (joined before the child is forked) */
	if (o->merge_budget > 0 && !rs)
		rules_start(&load, cfg, o->threads);
	reserve = reserve < RESERVE_MIN ? RESERVE_MIN :
		  reserve > RESERVE_MAX ? RESERVE_MAX :
					  reserve;
	cut_at = end - reserve;
	pm_fin_claim_id(me, sizeof(me), o->merge_budget);
	for (int round = 0; round < 2; round++) {
		struct job j;
		bool all;

		if (job_open(&j, cfg, jobdir, err, errlen) < 0) {
			rc = -1;
			break;
		}
		j.threads = o->threads;

		all = complete(&j);
		r.expected = j.expected.n;
		r.present = j.arrived.n;
		r.what = wrote_provisional ? PM_FIN_PROVISIONAL : PM_FIN_WAITING;
		rc = 1;
		if (!all && !force && pm_fin_exists(jobdir, "manifest.json")) {
			job_free(&j);
			break;
		}
		int c = pm_fin_claim(jobdir, me);
		if (c <= 0) {
			if (c < 0)
				pmu_fail(err, errlen, errno, "%s/merging: %s", jobdir,
					 strerror(errno));
			r.what = c < 0 || wrote_provisional ? r.what : PM_FIN_BUSY;
			rc = c < 0 ? -1 : 1;
			job_free(&j);
			break;
		}
		if (!all && !force && pm_fin_exists(jobdir, "manifest.json")) {
			pm_fin_release(jobdir,
				       me); /* someone wrote it between our look and the claim */
			job_free(&j);
			break;
		}
		if (o->merge_budget > 0 && !rs) {
			if (!(rs = own = rules_take(&load, err, errlen))) {
				pm_fin_release(jobdir, me);
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
		pm_fin_release(jobdir, me);
		job_free(&j);
		if (rc < 0 || all || force)
			break;
		/* provisional: the last node may have come and gone while we held the claim */
		wrote_provisional = true;
		rc = 1;
	}
	rules_drop(&load);
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

	if (!node || !pm_node_ok(node, strlen(node)))
		return pmu_fail(err, errlen, EINVAL, "'%s' is not a node name", node ? node : "");
	path(arr, sizeof(arr), jobdir, "arrivals");
	if ((fd = open(arr, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640)) >= 0)
		close(fd);
	else if (errno != EEXIST)
		return pmu_fail(err, errlen, errno, "%s: %s", arr, strerror(errno));
	path(dst, sizeof(dst), jobdir, "arrived");
	if (mkdir(dst, 0750) < 0 && errno != EEXIST)
		return pmu_fail(err, errlen, errno, "%s: %s", dst, strerror(errno));
	if (nodelist && *nodelist && !pm_fin_exists(jobdir, "expected")) {
		int rc = pm_names_parse(&l, nodelist, strlen(nodelist));
		pm_names_sort(&l);
		if (rc == 0 && l.n && write_expected(jobdir, &l) < 0 && errno != EEXIST)
			rc = -1;
		pm_names_free(&l);
		if (rc < 0)
			return pmu_fail(err, errlen, errno, "%s/expected: %s", jobdir,
					strerror(errno));
	}
	snprintf(dst, sizeof(dst), "%s/arrived/%s", jobdir, node);
	if (link(arr, dst) < 0 && errno != EEXIST)
		return pmu_fail(err, errlen, errno, "%s: %s", dst, strerror(errno));
	/* the link's reply carries the file's attributes: its count is current, even on NFS */
	if (stat(arr, &st) < 0)
		return pmu_fail(err, errlen, errno, "%s: %s", arr, strerror(errno));
	return st.st_nlink > 1 ? (int)(st.st_nlink - 1) : 1;
}

/* ---- what became of a merge ---- */

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
		in += !of || pm_names_has(&j.expected, j.arrived.v[i]);
	if (!in && !j.files.n)
		snprintf(buf, len, "no node has reported yet (%zu expected)", of);
	else if (!of)
		snprintf(buf, len,
			 "%zu node(s) reported, the job's node list is unknown; no merge "
			 "has written a verdict yet",
			 in);
	else
		pm_fin_describe_claim(jobdir, in, of, buf, len);
	job_free(&j);
}

/* ---- the timer ---- */

/* Bundles on disk that the manifest does not list as they are now. */
static bool late_evidence(const char *jobdir, const json_t *m)
{
	struct names files = {0};
	char p[4096];
	bool late = false;
	struct stat st;
	json_t *idx;

	path(p, sizeof(p), jobdir, "nodes");
	if (pm_names_list_dir(p, ".tar.zst", &files) < 0)
		return false;
	idx = bundle_index(m);
	for (size_t i = 0; i < files.n && !late; i++) {
		char rel[200];
		const json_t *b;
		snprintf(rel, sizeof(rel), "nodes/%s.tar.zst", files.v[i]);
		snprintf(p, sizeof(p), "%s/%s", jobdir, rel);
		b = bundle_in(idx, m, rel);
		late = !b ||
		       (stat(p, &st) == 0 &&
			(json_int_t)st.st_size != json_integer_value(json_object_get(b, "bytes")));
	}
	late = late || files.n != json_array_size(json_object_get(m, "bundles"));
	json_decref(idx);
	pm_names_free(&files);
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
		else if ((j.arrived.n || j.files.n || m) &&
			 now - pm_history_job_end(jobdir) > grace)
			due = PM_DUE_FORCE;
	} else if (late_evidence(jobdir, m) ||
		   (!json_is_true(json_object_get(json_object_get(m, "scheduler"), "final")) &&
		    now - iso_secs(str(m, "updated")) < REMERGE_WINDOW)) {
		due = PM_DUE_FORCE;
	} else if (pm_fin_exists(jobdir, "comment.pending") ||
		   pm_fin_exists(jobdir, PM_WEBHOOK_PENDING_FILE)) {
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

	if (pm_names_list_dir(dir, "", &l) < 0)
		return 0; /* unreadable: not ours to judge */
	for (size_t i = 0; i < l.n && !rc; i++) {
		char p[4096];
		struct stat st;
		snprintf(p, sizeof(p), "%s/%s", dir, l.v[i]);
		if (lstat(p, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		rc = depth == 2 ? fn(p, arg) : walk_level(p, depth + 1, fn, arg);
	}
	pm_names_free(&l);
	return rc;
}

int pm_store_walk(const char *store, int (*fn)(const char *jobdir, void *arg), void *arg, char *err,
		  size_t errlen)
{
	DIR *d = opendir(store);

	if (!d)
		return pmu_fail(err, errlen, errno, "%s: %s", store, strerror(errno));
	closedir(d);
	return walk_level(store, 0, fn, arg);
}
