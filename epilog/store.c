/*
 * store.c - the evidence store: one folder per job run, <store>/<cluster>/<key>[~N]/<restart>/
 * (~N: a job id Slurm gave again, "a reused job id" below).
 *
 * Permissions: everything belongs to the collector (root, or the service user where the
 * store is NFS with root_squash) and the operators' group, mode 0750 (folders) or 0640
 * (files); the job's owner gets read access through a POSIX ACL entry (user:<uid>:r-x on
 * folders, also as their default ACL so that files the finalizer adds inherit it, and
 * user:<uid>:r-- on files).  The owner can read, never write or delete.  Where the
 * filesystem has no ACLs the modes stand: the owner then reads through the operators (or
 * `postmortem fetch` run by them); nobody else ever gets access.
 *
 * A bundle is written to a hidden temporary name beside its final one, fsync'd, read back
 * by the engine, and only then renamed into place: a reader never sees half a bundle.  When
 * the store cannot take it (not mounted, full, refusing), the bundle stays in the node's
 * spool, <spool>/<job>/pending/, with a note of where it belongs, for a later run of the
 * collector on this node to deliver (pm_store_redeliver).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <jansson.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/acl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"
#include "finalize.h"

#define FINALIZE_MIN 1.0 /* seconds of deadline left below which the timer finalizes */
#define PENDING_MAX (512u << 20)
#define PLEN 4608 /* a path buffer */

/* Messages are cut to their buffer; paths that do not fit are errors (pathf). */
static void say(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

static int pathf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int pathf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* ---- permissions ---- */

int pm_store_protect(const char *path, bool dir, uid_t uid, gid_t gid)
{
	char text[160];
	acl_t acl;
	int rc = 0;

	if (gid != (gid_t)-1 && lchown(path, geteuid(), gid) < 0 && errno != EPERM)
		return -1;
	/* set-group-ID on folders: what the finalizer adds later (manifest, verdict, history,
	 * arrivals) belongs to the operators' group too, whoever creates it */
	if (chmod(path, dir ? 02750 : 0640) < 0)
		return -1;
	if (uid == (uid_t)-1)
		return 0;
	snprintf(text, sizeof(text),
		 dir ? "u::rwx,g::r-x,o::---,u:%u:r-x,m::r-x" :
		       "u::rw-,g::r--,o::---,u:%u:r--,m::r--",
		 (unsigned)uid);
	if (!(acl = acl_from_text(text)))
		return -1;
	if (acl_set_file(path, ACL_TYPE_ACCESS, acl) < 0)
		rc = errno == ENOTSUP || errno == EOPNOTSUPP ? 1 : -1;
	else if (dir && acl_set_file(path, ACL_TYPE_DEFAULT, acl) < 0)
		rc = errno == ENOTSUP || errno == EOPNOTSUPP ? 1 : -1;
	acl_free(acl);
	return rc;
}

static gid_t ops_gid(const struct pm_config *cfg)
{
	struct group *g = cfg->operators_group ? getgrnam(cfg->operators_group) : NULL;

	return g ? g->gr_gid : getegid();
}

/* The permissions of PATH, a folder just made: MODE 0750 (a job's) with the owner's ACL. */
static int made_dir(const char *path, uid_t uid, gid_t gid, mode_t mode, bool *noacl)
{
	int rc;

	if (mode != 0750) /* the store's upper levels: traverse only */
		return lchown(path, geteuid(), gid) < 0 && errno != EPERM ? -1 : chmod(path, mode);
	rc = pm_store_protect(path, true, uid, gid);
	if (rc == 1)
		*noacl = true;
	return rc < 0 ? -1 : 0;
}

/* mkdir PATH (EEXIST fine) and, when we made it, give it its permissions. */
static int make_dir(const char *path, uid_t uid, gid_t gid, mode_t mode, bool *noacl)
{
	if (mkdir(path, 0700) < 0)
		return errno == EEXIST ? 0 : -1;
	return made_dir(path, uid, gid, mode, noacl);
}

int pm_store_jobdir(const struct pm_config *cfg, const struct pm_job *j, char *buf, size_t len)
{
	if (!cfg->store) {
		errno = EINVAL;
		return -1;
	}
	if ((size_t)snprintf(buf, len, "%s/%s/%s/%d", cfg->store, j->cluster, j->key, j->restart) >=
	    len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* Write BUF to DIR/NAME through a hidden temporary name; verify it first when VERIFY. */
static int put_file(const char *dir, const char *name, const void *buf, size_t len, uid_t uid,
		    gid_t gid, bool verify, char *why, size_t whylen)
{
	char tmp[PLEN], dst[PLEN], e[512];
	const char *p = buf;
	size_t left = len;
	int fd, dfd;

	if (pathf(tmp, sizeof(tmp), "%s/.%s.%ld.tmp.tar.zst", dir, name, (long)getpid()) < 0 ||
	    pathf(dst, sizeof(dst), "%s/%s", dir, name) < 0) {
		say(why, whylen, "%s: path too long", dir);
		return -1;
	}
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0) {
		say(why, whylen, "%s: %s", tmp, strerror(errno));
		return -1;
	}
	while (left) {
		ssize_t n = write(fd, p, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = ENOSPC;
			goto fail;
		}
		p += n;
		left -= (size_t)n;
	}
	if (fsync(fd) < 0)
		goto fail;
	if (close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (pm_store_protect(tmp, false, uid, gid) < 0)
		goto fail;
	if (verify && pm_bundle_verify(tmp, e, sizeof(e)) < 0) {
		say(why, whylen, "read back: %s", e);
		unlink(tmp);
		errno = EIO;
		return -1;
	}
	if (rename(tmp, dst) < 0)
		goto fail;
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		fsync(dfd);
		close(dfd);
	}
	return 0;
fail:
	say(why, whylen, "%s: %s", dst, strerror(errno));
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	return -1;
}

/* Where a job run's bundle goes, and what it needs to get there. */
struct dest {
	const char *cluster, *key, *node, *nodelist;
	int restart;
	uid_t uid;
	double run_start; /* the run's identity on this node: its first task's start; 0 unknown */
	double collected; /* when the bundle was taken (after the job's end); 0 unknown */
};

/* An ISO time as bundle_write.c's iso() writes it (2026-11-30T03:12:40.551Z); 0 unreadable. */
static double iso_time(const json_t *w)
{
	struct tm tm = {0};
	const char *v = json_string_value(w);
	double frac = 0;
	char rest[16] = "";

	if (!v || !(v = strptime(v, "%Y-%m-%dT%H:%M:%S", &tm)))
		return 0;
	if (sscanf(v, "%lf%15s", &frac, rest) < 1)
		frac = 0;
	return (double)timegm(&tm) + (frac > 0 && frac < 1 ? frac : 0);
}

/*
 * Is the bundle at PATH another run's?  Both say when their node's first task started (the
 * plugin's clock, in the spool: nothing the job's user sets); a different start is a
 * different run, whatever restart count it was filed under.  Unknown on either side: no.
 */
static bool other_run(const char *path, const struct dest *d, double *theirs)
{
	json_t *m;
	double t;

	*theirs = 0;
	if (!(d->run_start > 0) || access(path, F_OK) < 0 || !(m = pm_bundle_manifest(path)))
		return false;
	t = iso_time(json_object_get(m, "window_start"));
	json_decref(m);
	*theirs = t;
	return t > 0 && (t - d->run_start > 0.002 || d->run_start - t > 0.002);
}

/* ---- a reused job id ---- */

/*
 * Slurm gives a job id again once the job is gone from slurmctld (MaxJobId wrapped, its
 * state lost): within the store's retention that is another job, often another user's, and
 * its bundles must never join the first one's folder, readable by the first owner, merged
 * into their verdict, refused to their own.  Nothing in the environment says which job an
 * id is, so a folder's job is told by its evidence: the first bundle found in it (another
 * node's manifest: the job's owner, when its tasks began, when it was collected).
 */
#define RUN_SKEW 60.0 /* seconds the nodes' clocks may differ (Slurm's own munge TTL: 300) */

/* The manifest of a bundle in RUNDIR/nodes (the first one read), or NULL. */
static json_t *run_sample(const char *rundir)
{
	char p[PLEN];
	DIR *dd;
	struct dirent *e;
	json_t *m = NULL;

	if (pathf(p, sizeof(p), "%s/nodes", rundir) < 0 || !(dd = opendir(p)))
		return NULL;
	while (!m && (e = readdir(dd))) {
		size_t n = strlen(e->d_name);
		char f[PLEN];
		if (e->d_name[0] == '.' || n < 9 || strcmp(e->d_name + n - 8, ".tar.zst") ||
		    pathf(f, sizeof(f), "%s/%s", p, e->d_name) < 0)
			continue;
		m = pm_bundle_manifest(f);
	}
	closedir(dd);
	return m;
}

/*
 * Is the job folder JDIR (<cluster>/<id>[~N]) this bundle's job?  Not when its evidence
 * names another owner, nor when its run of D's restart count is clearly another run: this
 * node's tasks began after that run's bundle was collected (the job had ended), or this
 * bundle was collected before that run's tasks began.  Both hold for every node of one run
 * (each task starts before the job ends, each epilog runs after), to the nodes' clock skew.
 * A folder with no bundle to tell (being made by another node of the run) is taken.  1 it
 * is, 0 another owner's, -1 another run of this owner's; WHY says why not.
 */
static int job_is_ours(const char *jdir, const struct dest *d, char *why, size_t whylen)
{
	char p[PLEN];
	json_t *m = NULL, *u;
	bool same_run = false;
	int ours = 1;
	DIR *dd;
	struct dirent *e;

	if (pathf(p, sizeof(p), "%s/%d", jdir, d->restart) == 0 && (m = run_sample(p)))
		same_run = true;
	if (!m && (dd = opendir(jdir))) {
		while (!m && (e = readdir(dd)))
			if (e->d_name[0] && strspn(e->d_name, "0123456789") == strlen(e->d_name) &&
			    pathf(p, sizeof(p), "%s/%s", jdir, e->d_name) == 0)
				m = run_sample(p);
		closedir(dd);
	}
	if (!m)
		return 1;
	u = json_object_get(m, "uid");
	if (!json_is_integer(u))
		u = json_object_get(json_object_get(m, "slurm"), "uid");
	if (d->uid != (uid_t)-1 && json_is_integer(u) &&
	    json_integer_value(u) != (json_int_t)d->uid) {
		say(why, whylen, "its evidence is uid %lld's, this bundle uid %u's",
		    (long long)json_integer_value(u), (unsigned)d->uid);
		ours = 0;
	} else if (same_run) {
		double end = iso_time(json_object_get(json_object_get(m, "collected"), "start"));
		double start = iso_time(json_object_get(m, "window_start"));
		if (d->run_start > 0 && end > 0 && d->run_start > end + RUN_SKEW) {
			say(why, whylen,
			    "this node's tasks began at %.3f, after its run %d's evidence was "
			    "collected at %.3f",
			    d->run_start, d->restart, end);
			ours = -1;
		} else if (d->collected > 0 && start > 0 && d->collected < start - RUN_SKEW) {
			say(why, whylen,
			    "this bundle was collected at %.3f, before its run %d's tasks began at "
			    "%.3f",
			    d->collected, d->restart, start);
			ours = -1;
		}
	}
	json_decref(m);
	return ours;
}

/*
 * The job folder for D in the cluster folder CLDIR: the latest of the job id's folders that
 * is this job's (job_is_ours), or else, with CREATE, a new one after the last (made here
 * with the owner's ACL: its own, nobody else's).  Its name into NAME; NOTE says when it is
 * not the id's only folder.  0, or -1 with errno (ENOENT: none, and not CREATE).
 */
static int job_folder(const char *cldir, const struct dest *d, gid_t gid, bool create, bool *noacl,
		      char *name, size_t namelen, char *note, size_t notelen)
{
	int gens[PM_RUN_GAP], n = pm_jobdir_runs(cldir, d->key, gens, PM_RUN_GAP), g, o;
	char p[PLEN], why[300] = "", said[300] = "";
	bool run_said = false;

	for (int i = n - 1; i >= 0; i--) {
		pm_jobdir_run_name(d->key, gens[i], name, namelen);
		if (pathf(p, sizeof(p), "%s/%s", cldir, name) < 0)
			return -1;
		if ((o = job_is_ours(p, d, why, sizeof(why))) == 1) {
			if (i < n - 1)
				say(note, notelen,
				    "job id %s reused: this bundle is of its earlier job, "
				    "%s",
				    d->key, name);
			return 0;
		}
		/* the reason given: the same owner's job if there is one, else the latest */
		if (!said[0] || (o < 0 && !run_said))
			memcpy(said, why, sizeof(why));
		run_said = run_said || o < 0;
	}
	if (!create) {
		errno = ENOENT;
		return -1;
	}
	for (g = n ? gens[n - 1] + 1 : 1; g <= PM_RUN_MAX; g++) {
		pm_jobdir_run_name(d->key, g, name, namelen);
		if (pathf(p, sizeof(p), "%s/%s", cldir, name) < 0)
			return -1;
		if (mkdir(p, 0700) == 0) {
			if (made_dir(p, d->uid, gid, 0750, noacl) < 0)
				return -1;
			if (g > 2)
				say(note, notelen,
				    "job id %s reused (%s): this job's evidence is kept apart in %s "
				    "(`postmortem show %s`; the earlier jobs: %s~1 to %s~%d)",
				    d->key, said, name, d->key, d->key, d->key, g - 1);
			else if (g > 1)
				say(note, notelen,
				    "job id %s reused (%s): this job's evidence is kept apart in %s "
				    "(`postmortem show %s`; the earlier job: %s~1)",
				    d->key, said, name, d->key, d->key);
			return 0;
		}
		if (errno != EEXIST)
			return -1;
		/* another node of this job made it first (or a later run did: then on) */
		if (job_is_ours(p, d, why, sizeof(why)) == 1)
			return 0;
	}
	errno = EEXIST;
	return -1;
}

static void finalize(const struct pm_config *cfg, const char *jobdir, const struct dest *d,
		     double deadline, struct pm_store_result *r)
{
	struct pm_finalize_opts o = {0};
	struct pm_finalize_result fr;
	char e[512];
	double left = deadline - pm_mono();

	if (pm_finalize_arrive(jobdir, d->node, d->nodelist, e, sizeof(e)) < 0) {
		say(r->reason, sizeof(r->reason), "not marked arrived: %s", e);
		return;
	}
	if (left < FINALIZE_MIN) {
		say(r->reason, sizeof(r->reason), "no time left to finalize (the timer will)");
		return;
	}
	o.budget = left - 0.5 > 0.5 ? left - 0.5 : 0.5;
	/* the merge keeps within the collector's deadline: cut, it still writes a provisional
	 * verdict (finalize.h), and a SIGTERM cuts it at once */
	o.merge_budget = o.budget;
	o.stopped = pm_collect_stopped;
	r->finalize = pm_finalize_ex(cfg, jobdir, &o, &fr, e, sizeof(e));
	if (r->finalize >= 0 && fr.deadline_hit)
		say(r->reason, sizeof(r->reason),
		    "the merge ran out of time after %.1f s: provisional verdict from Slurm's "
		    "record alone (the timer merges again)",
		    fr.took);
	else if (r->finalize >= 0 && fr.merge_died)
		say(r->reason, sizeof(r->reason),
		    "the merge died without a verdict: provisional verdict from Slurm's record "
		    "alone (the timer merges again)");
	if (r->finalize < 0)
		say(r->reason, sizeof(r->reason), "finalize failed: %s", e);
}

/*
 * Temporary files of NAME in DIR (put_file's ".NAME.<pid>.tmp.tar.zst") left by a collector
 * that died writing them: only this node's collector writes them, so a pid gone from this
 * node is a dead writer.  Never merged (hidden), removed before a new bundle is written.
 */
static void drop_stale_tmp(const char *dir, const char *name)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = strlen(name);

	if (!d)
		return;
	while ((e = readdir(d))) {
		const char *p = e->d_name;
		char *end;
		long pid;

		if (p[0] != '.' || strncmp(p + 1, name, n) || p[n + 1] != '.')
			continue;
		errno = 0;
		pid = strtol(p + n + 2, &end, 10);
		if (errno || pid <= 0 || pid == (long)getpid() || strcmp(end, ".tmp.tar.zst"))
			continue;
		if (kill((pid_t)pid, 0) < 0 && errno == ESRCH)
			unlinkat(dirfd(d), p, 0);
	}
	closedir(d);
}

/*
 * Where the store is the mount point of a shared filesystem, a node whose mount is missing
 * has an empty local folder there: with store_marker set, a store without that file in its
 * root is not the store, and nothing is written (the bundle waits in the spool).
 */
static int store_ready(const struct pm_config *cfg, char *why, size_t whylen)
{
	char p[PLEN];
	struct stat st;

	if (!cfg->store_marker || !*cfg->store_marker)
		return 0;
	if (pathf(p, sizeof(p), "%s/%s", cfg->store, cfg->store_marker) < 0 || stat(p, &st) < 0 ||
	    !S_ISREG(st.st_mode)) {
		say(why, whylen, "store %s has no %s (store_marker): not mounted?", cfg->store,
		    cfg->store_marker);
		return -1;
	}
	return 0;
}

static int deliver(const struct pm_config *cfg, const struct dest *d, const void *buf, size_t len,
		   double deadline, struct pm_store_result *r)
{
	char dir[PLEN], sub[PLEN], other[PLEN], name[300], why[PLEN + 64] = "", jname[96],
								      note[600] = "";
	double theirs;
	struct pm_identity id;
	struct stat st = {.st_mode = S_IFDIR};
	bool noacl = false;
	gid_t gid;
	int rc = -1;

	if (!cfg->store) {
		say(r->reason, sizeof(r->reason), "no store configured");
		return -1;
	}
	if (pm_become_service(cfg->service_user, &id, why, sizeof(why)) < 0) {
		say(r->reason, sizeof(r->reason), "%s", why);
		return -1;
	}
	gid = ops_gid(cfg);
	/* the store itself must be there: never create it on a node whose mount is missing */
	if (stat(cfg->store, &st) < 0 || !S_ISDIR(st.st_mode)) {
		say(why, sizeof(why), "store %s: %s", cfg->store,
		    S_ISDIR(st.st_mode) ? strerror(errno) : "not a folder (not mounted?)");
		goto out;
	}
	if (store_ready(cfg, why, sizeof(why)) < 0)
		goto out;
	if (pathf(dir, sizeof(dir), "%s/%s", cfg->store, d->cluster) < 0 ||
	    make_dir(dir, d->uid, gid, 0751, &noacl) < 0)
		goto fail;
	/* the job's folder: <id>, or <id>~N where the id was another job's before */
	if (job_folder(dir, d, gid, true, &noacl, jname, sizeof(jname), note, sizeof(note)) < 0)
		goto fail;
	if (pathf(dir, sizeof(dir), "%s/%s/%s/%d", cfg->store, d->cluster, jname, d->restart) < 0 ||
	    make_dir(dir, d->uid, gid, 0750, &noacl) < 0)
		goto fail;
	if (pathf(sub, sizeof(sub), "%s/nodes", dir) < 0 ||
	    make_dir(sub, d->uid, gid, 0750, &noacl) < 0) {
		memcpy(dir, sub, sizeof(dir));
		goto fail;
	}
	snprintf(name, sizeof(name), "%s.tar.zst", d->node);
	drop_stale_tmp(sub, name);
	if (pathf(other, sizeof(other), "%s/%s", sub, name) == 0 && other_run(other, d, &theirs)) {
		/* never in another run's place: kept beside it, out of the merge, and said */
		if (pathf(sub, sizeof(sub), "%s/conflicts", dir) < 0 ||
		    make_dir(sub, d->uid, gid, 0750, &noacl) < 0) {
			memcpy(dir, sub, sizeof(dir));
			goto fail;
		}
		snprintf(name, sizeof(name), "%s.%.3f.tar.zst", d->node, d->run_start);
		if (put_file(sub, name, buf, len, d->uid, gid, true, why, sizeof(why)) < 0)
			goto out;
		r->stored = true;
		say(r->path, sizeof(r->path), "%s/%s", sub, name);
		say(r->reason, sizeof(r->reason),
		    "run conflict: restart %d of job %s on %s holds the bundle of a run whose tasks "
		    "started at %.3f, this one's at %.3f: kept in conflicts/, not merged",
		    d->restart, d->key, d->node, theirs, d->run_start);
		rc = 0;
		goto out;
	}
	if (pathf(other, sizeof(other), "%s/%s", sub, name) == 0 && access(other, F_OK) == 0) {
		/* this run's bundle is stored already (the epilog ran twice): the first one,
		 * taken nearest the job's end with the plugin's spool, is kept; this is dropped */
		r->stored = true;
		say(r->path, sizeof(r->path), "%s", other);
		say(r->reason, sizeof(r->reason),
		    "already stored by an earlier run of the collector: kept, this one dropped");
		finalize(cfg, dir, d, deadline, r);
		rc = 0;
		goto out;
	}
	if (put_file(sub, name, buf, len, d->uid, gid, true, why, sizeof(why)) < 0)
		goto out;
	r->stored = true;
	say(r->path, sizeof(r->path), "%s/%s", sub, name);
	/* an earlier run's note that this bundle could not be stored (note_undelivered) */
	if (pathf(sub, sizeof(sub), "%s/undelivered/%s", dir, d->node) == 0 && unlink(sub) == 0 &&
	    pathf(sub, sizeof(sub), "%s/undelivered", dir) == 0)
		rmdir(sub);
	if (noacl)
		say(r->reason, sizeof(r->reason),
		    "the store has no POSIX ACLs: the job's owner reads through the operators");
	finalize(cfg, dir, d, deadline, r);
	rc = 0;
	goto out;
fail:
	say(why, sizeof(why), "%s: %s", dir, strerror(errno));
out:
	pm_become_root(&id);
	if (rc < 0)
		say(r->reason, sizeof(r->reason), "%s", why);
	else if (note[0] && r->reason[0]) { /* the reuse said first, then what else happened */
		snprintf(why, sizeof(why), "%s", r->reason);
		say(r->reason, sizeof(r->reason), "%s; %s", note, why);
	} else if (note[0]) {
		say(r->reason, sizeof(r->reason), "%s", note);
	}
	return rc;
}

/*
 * The job's spool folder for a pending bundle: the plugin's, or one made for it under the
 * spool root when that root is ours and writable by nobody else.
 */
static const char *pending_home(const struct pm_config *cfg, const struct pm_job *j, char *buf,
				size_t len)
{
	const char *base;
	struct stat st;
	char root[PLEN];

	if (j->spool)
		return j->spool;
	if (!cfg->spool || pathf(root, sizeof(root), "%s", cfg->spool) < 0)
		return NULL;
	base = strrchr(root, '/');
	if (base && base != root && !strcmp(base + 1, j->id))
		root[base - root] = 0;
	if (lstat(root, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022) || pathf(buf, len, "%s/%s", root, j->id) < 0 ||
	    (mkdir(buf, 0700) < 0 && errno != EEXIST))
		return NULL;
	return buf;
}

/* Keep the bundle in the spool, with where it belongs, for a later delivery. */
static int keep_pending(const struct pm_config *cfg, const struct pm_job *j, const void *buf,
			size_t len, struct pm_store_result *r)
{
	char dir[PLEN], name[300], why[PLEN + 64], home[PLEN];
	const char *spool = pending_home(cfg, j, home, sizeof(home));
	json_t *note;
	char *text;
	int rc;

	if (!spool) {
		say(r->reason + strlen(r->reason), sizeof(r->reason) - strlen(r->reason),
		    "; no spool folder to keep it in: evidence lost");
		return -1;
	}
	/* the job's folder may be gone (pruned, or removed by a run that shares the spool) */
	if (pathf(dir, sizeof(dir), "%s/pending", spool) < 0 ||
	    (mkdir(dir, 0700) < 0 && errno != EEXIST &&
	     (errno != ENOENT || (mkdir(spool, 0700) < 0 && errno != EEXIST) ||
	      (mkdir(dir, 0700) < 0 && errno != EEXIST))))
		goto fail;
	note = json_pack("{s:s, s:s, s:s, s:i, s:o, s:o, s:f, s:f}", "cluster", j->cluster, "job",
			 j->key, "node", j->node, "restart", j->restart, "uid",
			 j->uid == (uid_t)-1 ? json_null() : json_integer(j->uid), "nodelist",
			 j->nodelist ? json_string(j->nodelist) : json_null(), "run_start",
			 j->window_start, "collected", (double)time(NULL));
	text = note ? json_dumps(note, JSON_COMPACT) : NULL;
	json_decref(note);
	snprintf(name, sizeof(name), "%s.json", j->node);
	rc = text ? put_file(dir, name, text, strlen(text), (uid_t)-1, (gid_t)-1, false, why,
			     sizeof(why)) :
		    -1;
	free(text);
	snprintf(name, sizeof(name), "%s.tar.zst", j->node);
	if (rc < 0 ||
	    put_file(dir, name, buf, len, (uid_t)-1, (gid_t)-1, true, why, sizeof(why)) < 0)
		goto fail;
	r->pending = true;
	say(r->path, sizeof(r->path), "%s/%s", dir, name);
	return 0;
fail:
	say(r->reason + strlen(r->reason), sizeof(r->reason) - strlen(r->reason),
	    "; not kept in the spool either: %s", strerror(errno));
	return -1;
}

/*
 * Tell the finalizer why this node's bundle is not in the store: <jobdir>/undelivered/<node>
 * holds the reason (an empty file where even that does not fit), so that the verdict lists
 * the node as missing because evidence storage failed.  Only where the job's folder is
 * there already: a store that is not mounted gets nothing.  Removed when the bundle arrives.
 */
static void note_undelivered(const struct pm_config *cfg, const struct dest *d, const char *why)
{
	char dir[PLEN], p[PLEN], ign[600], jname[96];
	struct pm_identity id;
	bool noacl;
	int fd;

	if (!cfg->store || pm_become_service(cfg->service_user, &id, ign, sizeof(ign)) < 0)
		return;
	/* the job's own folder only (a reused id's earlier job is not told) */
	if (store_ready(cfg, ign, sizeof(ign)) == 0 &&
	    pathf(dir, sizeof(dir), "%s/%s", cfg->store, d->cluster) == 0 &&
	    job_folder(dir, d, (gid_t)-1, false, &noacl, jname, sizeof(jname), ign, sizeof(ign)) ==
		    0 &&
	    pathf(dir, sizeof(dir), "%s/%s/%s/%d/undelivered", cfg->store, d->cluster, jname,
		  d->restart) == 0 &&
	    (mkdir(dir, 0750) == 0 || errno == EEXIST) &&
	    pathf(p, sizeof(p), "%s/%s", dir, d->node) == 0 &&
	    (fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0640)) >= 0) {
		if (write(fd, why, strlen(why)) < 0) {
			/* full: the empty file still says it */
		}
		close(fd);
	}
	pm_become_root(&id);
}

int pm_store_put(const struct pm_config *cfg, const struct pm_job *j, const void *buf, size_t len,
		 double deadline, struct pm_store_result *r)
{
	struct dest d = {j->cluster, j->key, j->node,	      j->nodelist,
			 j->restart, j->uid, j->window_start, (double)time(NULL)};

	memset(r, 0, sizeof(*r));
	r->finalize = -2;
	if (deliver(cfg, &d, buf, len, deadline, r) == 0)
		return 0;
	keep_pending(cfg, j, buf, len, r);
	note_undelivered(cfg, &d, r->reason);
	return -1;
}

/* ---- later delivery ---- */

static void *slurp(const char *path, size_t max, size_t *len)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	char *buf = NULL;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size <= max &&
	    (buf = malloc((size_t)st.st_size + 1)) &&
	    read(fd, buf, (size_t)st.st_size) == st.st_size) {
		buf[st.st_size] = 0;
		*len = (size_t)st.st_size;
	} else {
		free(buf);
		buf = NULL;
	}
	close(fd);
	return buf;
}

static int redeliver_one(const struct pm_config *cfg, const char *dir, const char *node,
			 double deadline)
{
	char p[PLEN];
	struct pm_store_result r = {.finalize = -2};
	struct dest d = {0};
	json_t *note;
	size_t len = 0;
	void *buf;
	int rc = -1;

	if (pathf(p, sizeof(p), "%s/%s.json", dir, node) < 0 || !(buf = slurp(p, 65536, &len)))
		return -1;
	note = json_loadb(buf, len, 0, NULL);
	free(buf);
	d.cluster = json_string_value(json_object_get(note, "cluster"));
	d.key = json_string_value(json_object_get(note, "job"));
	d.node = json_string_value(json_object_get(note, "node"));
	d.nodelist = json_string_value(json_object_get(note, "nodelist"));
	d.restart = (int)json_integer_value(json_object_get(note, "restart"));
	d.run_start = json_number_value(json_object_get(note, "run_start"));
	d.collected = json_number_value(json_object_get(note, "collected")); /* 0: older note */
	d.uid = json_is_integer(json_object_get(note, "uid")) ?
			(uid_t)json_integer_value(json_object_get(note, "uid")) :
			(uid_t)-1;
	if (pathf(p, sizeof(p), "%s/%s.tar.zst", dir, node) == 0 && d.cluster && d.key && d.node &&
	    !strchr(d.cluster, '/') && !strchr(d.key, '/') && strcmp(d.key, "..") &&
	    !strcmp(d.node, node) && (buf = slurp(p, PENDING_MAX, &len))) {
		rc = deliver(cfg, &d, buf, len, deadline, &r);
		free(buf);
	}
	if (rc == 0) {
		unlink(p);
		if (pathf(p, sizeof(p), "%s/%s.json", dir, node) == 0)
			unlink(p);
	}
	json_decref(note);
	return rc;
}

int pm_store_redeliver(const struct pm_config *cfg, const char *spool, const char *skip,
		       double deadline, unsigned max)
{
	DIR *d = opendir(spool), *pd;
	struct dirent *e, *pe;
	char dir[PLEN];
	int done = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)) && max && pm_mono() < deadline) {
		if (e->d_name[0] == '.' || (skip && !strcmp(e->d_name, skip)))
			continue;
		if (pathf(dir, sizeof(dir), "%s/%s/pending", spool, e->d_name) < 0 ||
		    !(pd = opendir(dir)))
			continue;
		while ((pe = readdir(pd)) && max && pm_mono() < deadline) {
			size_t n = strlen(pe->d_name);
			char node[256];

			if (pe->d_name[0] == '.' || n < 9 || n > 255 ||
			    strcmp(pe->d_name + n - 8, ".tar.zst"))
				continue;
			snprintf(node, sizeof(node), "%.*s", (int)(n - 8), pe->d_name);
			max--;
			if (redeliver_one(cfg, dir, node, deadline) == 0)
				done++;
		}
		closedir(pd);
		if (rmdir(dir) == 0 && pathf(dir, sizeof(dir), "%s/%s", spool, e->d_name) == 0) {
			/* all delivered: the job's spool folder goes too */
			struct pm_job j = {0};
			j.spool = dir;
			pm_job_spool_remove(&j);
		}
	}
	closedir(d);
	return done;
}
