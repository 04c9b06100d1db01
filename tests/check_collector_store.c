/*
 * check_collector_store.c - the collector suite's store: permissions and the spool fallback,
 * a root_squash store written as the service user, a missing marker, a requeued run and a
 * run's conflict, a fetched copy private to the caller, the Slurm record of the job's own
 * owner, and the input bound on a stored bundle.
 */

#include <archive.h>
#include <archive_entry.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <jansson.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <acl/libacl.h>
#include <sys/acl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "collector.h"
#include "finalize.h"
#include "finalize_int.h"
#include "postmortem.h"
#include "support.h"
#include "check_collector.h"

/* ---- the store ---- */

/* Can UID:GID open PATH with FLAGS (a child that becomes them)? */
static bool can_as(uid_t uid, gid_t gid, const char *path, int flags)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		if (setgroups(0, NULL) < 0 || setgid(gid) < 0 || setuid(uid) < 0)
			_exit(2);
		_exit(open(path, flags, 0600) >= 0 ? 0 : 1);
	}
	waitpid(pid, &st, 0);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/*
 * Where the stored bundle PATH has an ACL (the file system keeps them), it names the job's
 * owner (nobody here) with read only: nobody reads PATH, cannot write it, and cannot create
 * NEW in the job's nodes folder.
 */
static void owner_reads_only(const char *path, const char *new)
{
	acl_t acl = acl_get_file(path, ACL_TYPE_ACCESS);
	char *text;

	if (!acl)
		return;
	text = acl_to_text(acl, NULL);
	ck_assert_msg(strstr(text, "user:65534:r--") || strstr(text, "user:nobody:r--"), "%s",
		      text);
	acl_free(text);
	acl_free(acl);
	ck_assert(can_as(NOBODY, NOGROUP, path, O_RDONLY));
	ck_assert(!can_as(NOBODY, NOGROUP, path, O_WRONLY));
	ck_assert(!can_as(NOBODY, NOGROUP, new, O_WRONLY | O_CREAT));
}

START_TEST(store_permissions)
{
	struct pm_config cfg;
	struct pm_job j;
	struct pm_collection c;
	struct pm_store_result r;
	char err[512], dir[600];
	void *buf;
	size_t len;
	struct stat st;

	if (geteuid() != 0)
		return;
	mkdir(pmt_path(tmp, "store"), 0755);
	mkdir(pmt_path(tmp, "spool"), 0700);
	mkdir(pmt_path(tmp, "spool/4242"), 0700);
	write_file("spool/4242/rankmap.batch.jsonl",
		   "{\"schema\":\"postmortem.rankmap/1\",\"job\":\"4242\",\"step\":\"batch\","
		   "\"node\":\"n1\",\"rank\":0,\"start\":1796010000.5}\n",
		   0600);
	sample(&cfg, &j, &c);
	pm_job_free(&j);
	load_job(&j, pmt_path(tmp, "spool/4242"));
	ck_assert_str_eq(j.spool, pmt_path(tmp, "spool/4242"));
	ck_assert(j.window_start == 1796010000.5);
	pm_collection_scrub(&c);
	ck_assert_int_eq(pm_bundle_write(&c, &j, &buf, &len, err, sizeof(err)), 0);
	free(cfg.store);
	cfg.store = strdup(pmt_path(tmp, "store"));
	free(cfg.operators_group);
	cfg.operators_group = strdup("root");

	/* no time left to finalize: the timer would; the node is marked arrived */
	ck_assert_msg(pm_store_put(&cfg, &j, buf, len, pm_mono() + 0.5, &r) == 0, "%s", r.reason);
	ck_assert(r.stored && !r.pending);
	snprintf(dir, sizeof(dir), "%s/lab/4242/0", pmt_path(tmp, "store"));
	ck_assert_str_eq(r.path, pmt_path(tmp, "store/lab/4242/0/nodes/n1.tar.zst"));
	ck_assert_int_eq(stat(r.path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0640);
	ck_assert_int_eq(st.st_uid, 0);
	ck_assert_int_eq(stat(dir, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0750);
	ck_assert_int_eq(access(pmt_path(tmp, "store/lab/4242/0/arrived/n1"), F_OK), 0);
	ck_assert_msg(pm_bundle_verify(r.path, err, sizeof(err)) == 0, "%s", err);
	/* the job's owner reads, and cannot write */
	owner_reads_only(r.path, pmt_path(tmp, "store/lab/4242/0/nodes/x"));
	/* the spool folder stays for the caller to remove */
	ck_assert_int_eq(pm_job_spool_remove(&j), 0);
	ck_assert_int_eq(access(pmt_path(tmp, "spool/4242"), F_OK), -1);

	/* a store that is not there: the bundle waits in the spool */
	mkdir(pmt_path(tmp, "spool/4242"), 0700);
	free(cfg.store);
	cfg.store = strdup(pmt_path(tmp, "not-mounted"));
	ck_assert_int_eq(pm_store_put(&cfg, &j, buf, len, pm_mono() + 0.5, &r), -1);
	ck_assert(r.pending && !r.stored);
	ck_assert_str_eq(r.path, pmt_path(tmp, "spool/4242/pending/n1.tar.zst"));
	ck_assert_ptr_nonnull(strstr(r.reason, "not-mounted"));
	ck_assert_int_eq(pm_bundle_verify(r.path, err, sizeof(err)), 0);
	ck_assert_int_eq(access(pmt_path(tmp, "not-mounted"), F_OK), -1);

	/* and goes once the store is back */
	free(cfg.store);
	cfg.store = strdup(pmt_path(tmp, "store"));
	unlink(pmt_path(tmp, "store/lab/4242/0/nodes/n1.tar.zst"));
	ck_assert_int_eq(pm_store_redeliver(&cfg, pmt_path(tmp, "spool"), NULL, pm_mono() + 0.5, 8),
			 1);
	ck_assert_int_eq(access(pmt_path(tmp, "store/lab/4242/0/nodes/n1.tar.zst"), F_OK), 0);
	ck_assert_int_eq(access(pmt_path(tmp, "spool/4242"), F_OK), -1);
	free(buf);
	pm_collection_free(&c);
	pm_job_free(&j);
	pm_config_free(&cfg);
}
END_TEST

/* A stand-in scontrol in TMP/bin (first on PATH) that prints TEXT, or fails when NULL. */
static void fake_scontrol(const char *text)
{
	char path[600];
	static char env[4096];

	mkdir(pmt_path(tmp, "bin"), 0755);
	snprintf(path, sizeof(path), "%s/bin/scontrol", tmp);
	if (text) {
		write_file("scontrol.out", text, 0644);
		write_file("bin/scontrol", "#!/bin/sh\ncat \"$(dirname \"$0\")/../scontrol.out\"\n",
			   0755);
	} else {
		write_file("bin/scontrol", "#!/bin/sh\necho 'slurm_load_jobs error' >&2; exit 1\n",
			   0755);
	}
	if (!strstr(getenv("PATH"), pmt_path(tmp, "bin"))) {
		snprintf(env, sizeof(env), "%s:%s", pmt_path(tmp, "bin"), getenv("PATH"));
		setenv("PATH", env, 1);
	}
}

static void scontrol_started(double t)
{
	char line[600], when[40];
	time_t tt = (time_t)t;

	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", localtime(&tt));
	snprintf(line, sizeof(line),
		 "JobId=4242 JobName=train UserId=nobody(65534) JobState=COMPLETING Reason=None "
		 "Restarts=1 BatchFlag=1 RunTime=00:01:40 SubmitTime=%s StartTime=%s "
		 "EndTime=Unknown NodeList=n[1-2]\n",
		 when, when);
	fake_scontrol(line);
}

/*
 * The run a requeued job's epilog is for: Slurm's count, one less when this node's tasks
 * began before the job's current StartTime (the epilog of the run that was requeued).  The
 * restart counts in the plugin's records (from the job's environment for srun steps) are
 * never taken: a job that exports SLURM_RESTART_COUNT cannot move its evidence.
 */
START_TEST(requeued_run)
{
	struct pm_job j;
	char rec[300];
	double now = (double)time(NULL), w = now - 100;

	slurm_env(NULL, NULL);
	mkdir(pmt_path(tmp, "spool"), 0700);
	mkdir(pmt_path(tmp, "spool/4242"), 0700);
	/* srun steps of the job said restart 0 and 5 (their environment) */
	snprintf(rec, sizeof(rec),
		 "{\"job\":\"4242\",\"step\":\"0\",\"rank\":0,\"start\":%.3f,\"restart\":0}\n"
		 "{\"job\":\"4242\",\"step\":\"1\",\"rank\":0,\"start\":%.3f,\"restart\":5}\n",
		 w + 0.25, w + 20);
	write_file("spool/4242/rankmap.0.jsonl", rec, 0600);

	/* run 0, never requeued: Slurm says 0, the records' 5 is nobody's word */
	load_job(&j, pmt_path(tmp, "spool/4242"));
	ck_assert_int_eq(j.restart, 0);
	ck_assert_int_eq(pm_job_resolve_restart(&j, 2), 0);
	ck_assert_int_eq(j.restart, 0);
	pm_job_free(&j);

	/* run 1 finished: its tasks began after its StartTime; the records' 0 is ignored */
	setenv("SLURM_JOB_RESTART_COUNT", "1", 1);
	scontrol_started(w - 5);
	load_job(&j, pmt_path(tmp, "spool/4242"));
	ck_assert_int_eq(j.restart, 1);
	ck_assert_int_eq(pm_job_resolve_restart(&j, 2), 0);
	ck_assert_int_eq(j.restart, 1);
	pm_job_free(&j);

	/* run 0 was requeued: the controller counts 1 already, the job's StartTime is the
	 * requeue (or the next run's start), after this node's tasks began */
	scontrol_started(now - 2);
	load_job(&j, pmt_path(tmp, "spool/4242"));
	ck_assert_int_eq(pm_job_resolve_restart(&j, 2), 0);
	ck_assert_int_eq(j.restart, 0);
	ck_assert_msg(strstr(j.restart_note, "the requeued run 0"), "%s", j.restart_note);
	pm_job_free(&j);

	/* no answer from the controller: Slurm's count stands, and it is said */
	fake_scontrol(NULL);
	load_job(&j, pmt_path(tmp, "spool/4242"));
	ck_assert_int_eq(pm_job_resolve_restart(&j, 2), -1);
	ck_assert_int_eq(j.restart, 1);
	ck_assert_msg(strstr(j.restart_note, "Slurm's count 1"), "%s", j.restart_note);
	pm_job_free(&j);
	unsetenv("SLURM_JOB_RESTART_COUNT");
}
END_TEST

/* Read the whole file PATH (small) into a malloc'd buffer. */
static char *slurp_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;

	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	rewind(f);
	buf = malloc(*len + 1);
	ck_assert_uint_eq(fread(buf, 1, *len, f), *len);
	fclose(f);
	buf[*len] = '\0'; /* a string too, for the callers that compare text */
	return buf;
}

/* A bundle of another run filed under the same restart count never replaces the stored one. */
START_TEST(store_run_conflict)
{
	struct pm_config cfg;
	struct pm_job j;
	struct pm_collection c;
	struct pm_store_result r;
	char err[512], rec[300], want[600], *first, *now;
	void *buf;
	size_t len, flen, nlen;
	char stored[600];

	if (geteuid() != 0)
		return;
	snprintf(stored, sizeof(stored), "%s", pmt_path(tmp, "store/lab/4242/0/nodes/n1.tar.zst"));
	mkdir(pmt_path(tmp, "store"), 0755);
	mkdir(pmt_path(tmp, "spool"), 0700);
	mkdir(pmt_path(tmp, "spool/4242"), 0700);
	write_file("spool/4242/rankmap.batch.jsonl",
		   "{\"job\":\"4242\",\"step\":\"batch\",\"rank\":0,\"start\":1796010000.5}\n",
		   0600);
	sample(&cfg, &j, &c);
	free(cfg.store);
	cfg.store = strdup(pmt_path(tmp, "store"));
	free(cfg.operators_group);
	cfg.operators_group = strdup("root");
	pm_collection_scrub(&c);

	/* the run whose tasks started at 1796010000.5 is stored */
	pm_job_free(&j);
	load_job(&j, pmt_path(tmp, "spool/4242"));
	ck_assert_int_eq(pm_bundle_write(&c, &j, &buf, &len, err, sizeof(err)), 0);
	ck_assert_msg(pm_store_put(&cfg, &j, buf, len, pm_mono() + 0.5, &r) == 0, "%s", r.reason);
	ck_assert_str_eq(r.path, stored);
	free(buf);
	first = slurp_file(stored, &flen);

	/* again, the same run (a second attempt): it may replace its own bundle */
	ck_assert_int_eq(pm_bundle_write(&c, &j, &buf, &len, err, sizeof(err)), 0);
	ck_assert_msg(pm_store_put(&cfg, &j, buf, len, pm_mono() + 0.5, &r) == 0, "%s", r.reason);
	ck_assert_str_eq(r.path, stored);
	free(buf);
	pm_job_free(&j);

	/* another run's tasks, filed under the same restart count: kept beside, not merged */
	snprintf(rec, sizeof(rec),
		 "{\"job\":\"4242\",\"step\":\"batch\",\"rank\":0,\"start\":1796010400.25}\n");
	write_file("spool/4242/rankmap.batch.jsonl", rec, 0600);
	load_job(&j, pmt_path(tmp, "spool/4242"));
	ck_assert_int_eq(pm_bundle_write(&c, &j, &buf, &len, err, sizeof(err)), 0);
	ck_assert_msg(pm_store_put(&cfg, &j, buf, len, pm_mono() + 0.5, &r) == 0, "%s", r.reason);
	snprintf(want, sizeof(want), "%s",
		 pmt_path(tmp, "store/lab/4242/0/conflicts/n1.1796010400.250.tar.zst"));
	ck_assert_str_eq(r.path, want);
	ck_assert_msg(strstr(r.reason, "run conflict") && strstr(r.reason, "1796010000.500"), "%s",
		      r.reason);
	ck_assert_int_eq(pm_bundle_verify(want, err, sizeof(err)), 0);
	now = slurp_file(stored, &nlen);
	ck_assert(nlen == flen && !memcmp(now, first, flen));
	free(now);
	free(first);
	free(buf);
	pm_collection_free(&c);
	pm_job_free(&j);
	pm_config_free(&cfg);
}
END_TEST

/* Store the bundle of node NODE of job 4242 owned by UID, whose tasks there began at START
 * and whose collection is dated COLLECTED; the stored path into R. */
static void store_run(struct pm_config *cfg, struct pm_collection *c, const char *node,
		      const char *uid, double start, double collected, struct pm_store_result *r)
{
	struct pm_job j;
	char rec[300], err[512];
	void *buf;
	size_t len;

	setenv("SLURMD_NODENAME", node, 1);
	setenv("SLURM_JOB_UID", uid, 1);
	snprintf(rec, sizeof(rec),
		 "{\"job\":\"4242\",\"step\":\"batch\",\"rank\":0,\"start\":%.3f}\n", start);
	write_file("spool/4242/rankmap.batch.jsonl", rec, 0600);
	load_job(&j, pmt_path(tmp, "spool/4242"));
	c->start = c->end = collected;
	ck_assert_int_eq(pm_bundle_write(c, &j, &buf, &len, err, sizeof(err)), 0);
	ck_assert_msg(pm_store_put(cfg, &j, buf, len, pm_mono() + 0.5, r) == 0, "%s", r->reason);
	free(buf);
	pm_job_free(&j);
}

/* Does the ACL of PATH name UID? */
static bool acl_names(const char *path, unsigned uid)
{
	acl_t acl = acl_get_file(path, ACL_TYPE_ACCESS);
	char *text, want[32];
	bool yes;

	if (!acl)
		return false;
	text = acl_to_any_text(acl, NULL, ',', TEXT_NUMERIC_IDS);
	snprintf(want, sizeof(want), "user:%u:", uid);
	yes = text && strstr(text, want) != NULL;
	acl_free(text);
	acl_free(acl);
	return yes;
}

/*
 * A job id Slurm gave again (MaxJobId wrapped, slurmctld's state lost) while the first job's
 * evidence is kept: the later job's bundles never join the first job's folder, whether
 * another user's (told by the owner) or the same user's (its tasks began after the first
 * job's evidence was collected); each job's folder has its own owner's ACL, and a bare id
 * names the latest.
 */
START_TEST(store_reused_job_id)
{
	struct pm_config cfg;
	struct pm_job j;
	struct pm_collection c;
	struct pm_store_result r;
	char err[768], dir[900], want[900];
	double now = (double)time(NULL);

	if (geteuid() != 0)
		return;
	mkdir(pmt_path(tmp, "store"), 0755);
	mkdir(pmt_path(tmp, "spool"), 0700);
	mkdir(pmt_path(tmp, "spool/4242"), 0700);
	sample(&cfg, &j, &c);
	pm_job_free(&j);
	free(cfg.store);
	cfg.store = strdup(pmt_path(tmp, "store"));
	free(cfg.operators_group);
	cfg.operators_group = strdup("root");
	pm_collection_scrub(&c);

	/* the first job 4242, nobody's, ended two hours ago: both its nodes in one folder */
	store_run(&cfg, &c, "n1", "65534", now - 9000, now - 7200, &r);
	ck_assert_str_eq(r.path, pmt_path(tmp, "store/lab/4242/0/nodes/n1.tar.zst"));
	store_run(&cfg, &c, "n2", "65534", now - 8000, now - 7199, &r);
	ck_assert_str_eq(r.path, pmt_path(tmp, "store/lab/4242/0/nodes/n2.tar.zst"));

	/* job 4242 again, uid 1000's: its own folder, its owner's ACL, nobody's not */
	store_run(&cfg, &c, "n3", "1000", now - 5000, now - 4000, &r);
	ck_assert_str_eq(r.path, pmt_path(tmp, "store/lab/4242~2/0/nodes/n3.tar.zst"));
	ck_assert_msg(strstr(r.reason, "job id 4242 reused") && strstr(r.reason, "uid 65534"), "%s",
		      r.reason);
	store_run(&cfg, &c, "n1", "1000", now - 4990, now - 3999, &r);
	ck_assert_str_eq(r.path, pmt_path(tmp, "store/lab/4242~2/0/nodes/n1.tar.zst"));
	ck_assert_int_eq(access(pmt_path(tmp, "store/lab/4242/0/nodes/n3.tar.zst"), F_OK), -1);
	snprintf(dir, sizeof(dir), "%s", pmt_path(tmp, "store/lab/4242~2"));
	if (acl_names(pmt_path(tmp, "store/lab/4242"), 65534)) { /* the file system keeps ACLs */
		ck_assert(acl_names(dir, 1000) && !acl_names(dir, 65534));
		ck_assert(!acl_names(pmt_path(tmp, "store/lab/4242"), 1000));
	}

	/* and a third time, nobody's again: its tasks began after the first job's evidence was
	 * collected, so it is not that job either */
	store_run(&cfg, &c, "n2", "65534", now - 3000, now, &r);
	ck_assert_str_eq(r.path, pmt_path(tmp, "store/lab/4242~3/0/nodes/n2.tar.zst"));
	ck_assert_msg(strstr(r.reason, "after its run 0's evidence was collected"), "%s", r.reason);
	ck_assert_int_eq(access(pmt_path(tmp, "store/lab/4242/0/conflicts"), F_OK), -1);

	/* show JOB: the latest; ~1 the first, ~2 the second */
	ck_assert_msg(pm_jobdir_find(cfg.store, "4242", "lab", -1, dir, sizeof(dir), err,
				     sizeof(err)) == 0,
		      "%s", err);
	ck_assert_str_eq(dir, pmt_path(tmp, "store/lab/4242~3/0"));
	ck_assert_int_eq(pm_jobdir_find(cfg.store, "4242", NULL, -1, dir, sizeof(dir), err,
					sizeof(err)),
			 0);
	ck_assert_str_eq(dir, pmt_path(tmp, "store/lab/4242~3/0"));
	ck_assert_int_eq(pm_jobdir_find(cfg.store, "4242~1", "lab", -1, dir, sizeof(dir), err,
					sizeof(err)),
			 0);
	ck_assert_str_eq(dir, pmt_path(tmp, "store/lab/4242/0"));
	ck_assert_int_eq(pm_jobdir_find(cfg.store, "4242~2", "lab", 0, dir, sizeof(dir), err,
					sizeof(err)),
			 0);
	ck_assert_str_eq(dir, pmt_path(tmp, "store/lab/4242~2/0"));
	ck_assert_int_eq(pm_jobdir_find(cfg.store, "4242~0", "lab", 0, dir, sizeof(dir), err,
					sizeof(err)),
			 -1);
	/* the finalizer's key: Slurm's id apart from the folder's */
	char cl[64], key[64], rs[64], id[64];
	snprintf(want, sizeof(want), "%s", pmt_path(tmp, "store/lab/4242~2/0"));
	ck_assert_int_eq(pm_fin_key(want, cl, key, rs, sizeof(key)), 0);
	ck_assert_str_eq(key, "4242~2");
	ck_assert_int_eq(pm_fin_jobid_split(key, id, sizeof(id)), 2);
	ck_assert_str_eq(id, "4242");
	unsetenv("SLURM_JOB_UID");
	pm_collection_free(&c);
	pm_config_free(&cfg);
}
END_TEST

/* store_marker: an empty local folder where the store's mount should be is not the store */
START_TEST(store_marker_missing)
{
	struct pm_config cfg;
	struct pm_job j;
	struct pm_collection c;
	struct pm_store_result r;
	char err[512];
	void *buf;
	size_t len;

	if (geteuid() != 0)
		return;
	mkdir(pmt_path(tmp, "store"), 0755);
	mkdir(pmt_path(tmp, "spool"), 0700);
	mkdir(pmt_path(tmp, "spool/4242"), 0700);
	sample(&cfg, &j, &c);
	free(cfg.store);
	cfg.store = strdup(pmt_path(tmp, "store"));
	free(cfg.operators_group);
	cfg.operators_group = strdup("root");
	cfg.store_marker = strdup(".postmortem-store");
	pm_job_free(&j);
	load_job(&j, pmt_path(tmp, "spool/4242"));
	pm_collection_scrub(&c);
	ck_assert_int_eq(pm_bundle_write(&c, &j, &buf, &len, err, sizeof(err)), 0);

	/* no marker: nothing written into the folder, the bundle waits whole in the spool */
	ck_assert_int_eq(pm_store_put(&cfg, &j, buf, len, pm_mono() + 0.5, &r), -1);
	ck_assert(!r.stored && r.pending);
	ck_assert_msg(strstr(r.reason, ".postmortem-store") && strstr(r.reason, "not mounted"),
		      "%s", r.reason);
	ck_assert_str_eq(r.path, pmt_path(tmp, "spool/4242/pending/n1.tar.zst"));
	ck_assert_int_eq(pm_bundle_verify(r.path, err, sizeof(err)), 0);
	ck_assert_int_eq(access(pmt_path(tmp, "store/lab"), F_OK), -1);

	/* the store is back (its marker is there): stored */
	write_file("store/.postmortem-store", "", 0644);
	ck_assert_msg(pm_store_put(&cfg, &j, buf, len, pm_mono() + 0.5, &r) == 0, "%s", r.reason);
	ck_assert(r.stored);
	ck_assert_str_eq(r.path, pmt_path(tmp, "store/lab/4242/0/nodes/n1.tar.zst"));
	free(buf);
	pm_collection_free(&c);
	pm_job_free(&j);
	pm_config_free(&cfg);
}
END_TEST

/*
 * What root is on a root_squash NFS client, as far as a folder it does not own goes: no
 * CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER, CAP_CHOWN (from every set, and the
 * bounding set), so only the owner's permission bits let it in.  CAP_SETUID/CAP_SETGID stay:
 * the collector can still become the service user.
 */
static int squash_root(void)
{
	static const int drop[] = {CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER, CAP_CHOWN};
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(drop) / sizeof(drop[0]); i++) {
		unsigned bit = 1u << (drop[i] % 32);
		d[drop[i] / 32].effective &= ~bit;
		d[drop[i] / 32].permitted &= ~bit;
		d[drop[i] / 32].inheritable &= ~bit;
		if (prctl(PR_CAPBSET_DROP, drop[i], 0, 0, 0) < 0)
			return -1;
	}
	return (int)syscall(SYS_capset, &h, d);
}

/* What a squashed root's pm_store_put did. */
struct squashed {
	int rc;	    /* pm_store_put's */
	int direct; /* errno of creating a file in the store as that root; 0 it could */
	struct pm_store_result r;
};

/* pm_store_put in a child that is a squashed root; its outcome into *OUT. */
static void put_squashed(const struct pm_config *cfg, const struct pm_job *j, const void *buf,
			 size_t len, struct squashed *out)
{
	int p[2], st;
	pid_t pid;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct squashed s = {.rc = -9};
		char probe[600];
		int fd;

		close(p[0]);
		if (squash_root() == 0) {
			snprintf(probe, sizeof(probe), "%s/probe", cfg->store);
			fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0600);
			s.direct = fd >= 0 ? 0 : errno;
			if (fd >= 0) {
				close(fd);
				unlink(probe);
			}
			s.rc = pm_store_put(cfg, j, buf, len, pm_mono() + 0.5, &s.r);
		}
		if (write(p[1], &s, sizeof(s)) != (ssize_t)sizeof(s))
			_exit(3);
		_exit(0);
	}
	close(p[1]);
	ck_assert_int_eq(read(p[0], out, sizeof(*out)), (ssize_t)sizeof(*out));
	close(p[0]);
	waitpid(pid, &st, 0);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ck_assert_msg(out->rc != -9, "could not drop root's capabilities");
}

/*
 * A store on NFS with root_squash: root may not write it, the service account that owns it
 * may.  With service_user the bundle lands, owned by that account, operators' group and job
 * owner reading, nobody else; without it the bundle waits in the spool and the reason says
 * why.  The service account is pmsvc (contrib/cluster/install, in pmops) where it exists,
 * else daemon with its own group as the operators'.
 */
START_TEST(store_root_squash)
{
	struct pm_config cfg;
	struct pm_job j;
	struct pm_collection c;
	struct squashed s;
	struct passwd *pw;
	struct group *gr;
	const char *svc = "pmsvc", *ops = "pmops";
	char err[512], dir[600], arrived[700];
	void *buf;
	size_t len;
	struct stat st;

	if (geteuid() != 0) {
		fprintf(stderr, "store_root_squash: skipped (needs root)\n");
		return;
	}
	if (!getpwnam(svc) || !getgrnam(ops)) {
		svc = "daemon";
		ops = "daemon";
	}
	pw = getpwnam(svc);
	gr = getgrnam(ops);
	ck_assert_ptr_nonnull(pw);
	ck_assert_ptr_nonnull(gr);
	uid_t su = pw->pw_uid;
	gid_t og = gr->gr_gid;

	/* the export: owned by the service account, others may only look */
	mkdir(pmt_path(tmp, "store"), 0755);
	ck_assert_int_eq(chown(pmt_path(tmp, "store"), su, pw->pw_gid), 0);
	chmod(pmt_path(tmp, "store"), 0755);
	mkdir(pmt_path(tmp, "spool"), 0700);
	mkdir(pmt_path(tmp, "spool/4242"), 0700);
	sample(&cfg, &j, &c);
	pm_job_free(&j);
	load_job(&j, pmt_path(tmp, "spool/4242"));
	pm_collection_scrub(&c);
	ck_assert_int_eq(pm_bundle_write(&c, &j, &buf, &len, err, sizeof(err)), 0);
	free(cfg.store);
	cfg.store = strdup(pmt_path(tmp, "store"));
	free(cfg.operators_group);
	cfg.operators_group = strdup(ops);

	/* service_user root: refused by the store; the bundle stays in the node's spool */
	free(cfg.service_user);
	cfg.service_user = strdup("root");
	put_squashed(&cfg, &j, buf, len, &s);
	ck_assert_int_eq(s.direct, EACCES); /* the simulation holds: root cannot write */
	ck_assert_int_eq(s.rc, -1);
	ck_assert(!s.r.stored && s.r.pending);
	ck_assert_str_eq(s.r.path, pmt_path(tmp, "spool/4242/pending/n1.tar.zst"));
	ck_assert_msg(strstr(s.r.reason, "Permission denied"), "%s", s.r.reason);
	ck_assert_int_eq(pm_bundle_verify(s.r.path, err, sizeof(err)), 0);
	ck_assert_int_eq(access(pmt_path(tmp, "store/lab"), F_OK), -1);

	/* service_user set: it writes, and the permission model holds */
	free(cfg.service_user);
	cfg.service_user = strdup(svc);
	put_squashed(&cfg, &j, buf, len, &s);
	ck_assert_int_eq(s.direct, EACCES);
	ck_assert_msg(s.rc == 0 && s.r.stored, "%s", s.r.reason);
	ck_assert_str_eq(s.r.path, pmt_path(tmp, "store/lab/4242/0/nodes/n1.tar.zst"));
	ck_assert_int_eq(stat(s.r.path, &st), 0);
	ck_assert_int_eq(st.st_uid, su);
	ck_assert_int_eq(st.st_gid, og);
	ck_assert_int_eq(st.st_mode & 07777, 0640);
	snprintf(dir, sizeof(dir), "%s", pmt_path(tmp, "store/lab/4242/0"));
	ck_assert_int_eq(stat(dir, &st), 0);
	ck_assert_int_eq(st.st_uid, su);
	ck_assert_int_eq(st.st_gid, og);
	ck_assert_int_eq(st.st_mode & 0777, 0750);
	snprintf(arrived, sizeof(arrived), "%s/arrived/n1", dir);
	ck_assert_int_eq(stat(arrived, &st), 0);
	ck_assert_int_eq(st.st_uid, su);
	ck_assert_msg(pm_bundle_verify(s.r.path, err, sizeof(err)) == 0, "%s", err);
	/* the operators' group reads, a stranger does not, the owner reads and cannot write */
	ck_assert(can_as(54321, og, s.r.path, O_RDONLY));
	ck_assert(!can_as(54321, 54321, s.r.path, O_RDONLY));
	ck_assert(!can_as(54321, 54321, pmt_path(tmp, "store/lab/4242/0/nodes"), O_RDONLY));
	owner_reads_only(s.r.path, pmt_path(tmp, "store/lab/4242/0/nodes/x"));
	free(buf);
	pm_collection_free(&c);
	pm_job_free(&j);
	pm_config_free(&cfg);
}
END_TEST

/*
 * A bundle is one input: its members hold at most POSTMORTEM_INPUT_MAX bytes in all.  A
 * bundle past the bound is refused whole, with the reason (a few KiB of zstd can claim
 * members of hundreds of MiB); under the bound, or with the default, it is read.
 */
START_TEST(bundle_input_bound)
{
	struct pm_config cfg;
	struct pm_job j;
	struct pm_collection c;
	struct pm_evidence *ev;
	char err[512];
	void *buf;
	size_t len;
	const char *b = pmt_path(tmp, "n1.tar.zst");

	sample(&cfg, &j, &c);
	pm_collection_free(&c);
	/* 3 MiB of kernel log lines: compressed to a few KiB in the bundle */
	set_cmd(&cfg, PM_CS_KERNEL_LOG,
		"yes '2026-11-30T03:11:58,002000+00:00 kernel: all quiet' | head -c 3145728", 5);
	ck_assert_int_eq(pm_collect(&cfg, &j, pm_mono() + 5, &c), 0);
	ck_assert_int_eq(pm_bundle_write(&c, &j, &buf, &len, err, sizeof(err)), 0);
	ck_assert_uint_lt(len, 1u << 20);
	save(b, buf, len);
	free(buf);

	setenv("POSTMORTEM_INPUT_MAX", "2MiB", 1);
	ev = pm_evidence_create(NULL);
	ck_assert_int_eq(pm_evidence_add_path(ev, b, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "POSTMORTEM_INPUT_MAX") != NULL, "%s", err);
	pm_evidence_destroy(ev);

	setenv("POSTMORTEM_INPUT_MAX", "4MiB", 1);
	ev = pm_evidence_create(NULL);
	ck_assert_msg(pm_evidence_add_path(ev, b, err, sizeof(err)) == 0, "%s", err);
	pm_evidence_destroy(ev);
	unsetenv("POSTMORTEM_INPUT_MAX");
	ev = pm_evidence_create(NULL);
	ck_assert_msg(pm_evidence_add_path(ev, b, err, sizeof(err)) == 0, "%s", err);
	pm_evidence_destroy(ev);
	pm_collection_free(&c);
	pm_job_free(&j);
	pm_config_free(&cfg);
}
END_TEST

/*
 * Job numbers come back (a controller whose state was reset), and `sacct -j N` alone gives the
 * most recently submitted job of that number, whoever ran it.  In the job's epilog the record
 * asked for, stored and read is its owner's: a fake sacct answers with an older job of root's
 * (UID 0, another state) unless it is asked for the owner's job of the last day.
 */
START_TEST(sacct_owner_record)
{
	struct pm_config c;
	struct pm_sched s;
	char err[256], *args;
	size_t len;

	mkdir(pmt_path(tmp, "bin"), 0755);
	write_file("bin/sacct",
		   "#!/bin/sh\n"
		   "echo \"$*\" >>\"$(dirname \"$0\")/../sacct.args\"\n"
		   "echo 'JobID|JobIDRaw|State|ExitCode|Cluster|UID|Reason'\n"
		   "case \" $* \" in\n"
		   "*' -u 2001 -S now-1days '*) echo '4242|4242|FAILED|3:0|lab|2001|None' ;;\n"
		   "*) echo '4242|4242|COMPLETED|0:0|lab|0|None' ;;\n"
		   "esac\n"
		   "echo '4242.batch|4242.batch|FAILED|3:0|lab||'\n",
		   0755);
	ck_assert_msg(pm_config_load(NULL, &c, err, sizeof(err)) == 0, "%s", err);
	free(c.sacct);
	c.sacct = strdup(pmt_path(tmp, "bin/sacct"));
	setenv("SLURM_JOB_ID", "4242", 1);
	setenv("SLURM_JOB_UID", "2001", 1);
	pm_fin_sacct(&c, "4242", pm_fin_clock() + 10, &s);
	ck_assert_msg(s.text != NULL, "%s", s.reason);
	ck_assert_int_eq(s.uid, 2001);
	ck_assert_str_eq(s.state, "FAILED");
	ck_assert_ptr_nonnull(strstr(s.text, "|2001|"));
	ck_assert_ptr_null(strstr(s.text, "|0|None"));
	pm_fin_sched_free(&s);

	/* outside the job's epilog (another job's environment): asked as before */
	setenv("SLURM_JOB_ID", "99", 1);
	pm_fin_sacct(&c, "4242", pm_fin_clock() + 10, &s);
	ck_assert_int_eq(s.uid, 0);
	pm_fin_sched_free(&s);
	/* an owner that is not a number is not passed on */
	setenv("SLURM_JOB_ID", "4242", 1);
	setenv("SLURM_JOB_UID", "2001 -a", 1);
	pm_fin_sacct(&c, "4242", pm_fin_clock() + 10, &s);
	ck_assert_int_eq(s.uid, 0);
	pm_fin_sched_free(&s);
	unsetenv("SLURM_JOB_ID");
	unsetenv("SLURM_JOB_UID");
	/* from the timer (no job environment): the owner the caller names (the bundles'
	 * manifests), over all time, since the job may have ended days ago */
	write_file("bin/sacct",
		   "#!/bin/sh\n"
		   "echo \"$*\" >>\"$(dirname \"$0\")/../sacct.args\"\n"
		   "echo 'JobID|JobIDRaw|State|ExitCode|Cluster|UID|Reason'\n"
		   "case \" $* \" in\n"
		   "*' -u 2001 '*) echo '4242|4242|FAILED|3:0|lab|2001|None' ;;\n"
		   "*) echo '4242|4242|COMPLETED|0:0|lab|0|None' ;;\n"
		   "esac\n",
		   0755);
	pm_fin_sacct_owner(&c, "4242", 2001, pm_fin_clock() + 10, &s);
	ck_assert_int_eq(s.uid, 2001);
	ck_assert_str_eq(s.state, "FAILED");
	pm_fin_sched_free(&s);
	pm_fin_sacct_owner(&c, "4242", -1, pm_fin_clock() + 10, &s); /* unknown: as before */
	ck_assert_int_eq(s.uid, 0);
	pm_fin_sched_free(&s);
	args = slurp_file(pmt_path(tmp, "sacct.args"), &len);
	ck_assert_ptr_nonnull(args);
	ck_assert_str_eq(args, "-P -j 4242 -u 2001 -S now-1days -o " SACCT_TEST_FIELDS "\n"
			       "-P -j 4242 -o " SACCT_TEST_FIELDS "\n"
			       "-P -j 4242 -o " SACCT_TEST_FIELDS "\n"
			       "-P -j 4242 -u 2001 -o " SACCT_TEST_FIELDS "\n"
			       "-P -j 4242 -o " SACCT_TEST_FIELDS "\n");
	free(args);
	pm_config_free(&c);
}
END_TEST

/* A field that holds a NUL says nothing: "4242<NUL>.batch" compared equal to job 4242, and the
 * step's state and owner were taken as the job's; "FAILED<NUL>x" is no final state. */
START_TEST(sacct_field_with_nul)
{
	static const char step[] = "JobID|State|UID\n4242|FAILED|2001\n4242\0.batch|COMPLETED|0\n";
	static const char state[] = "JobID|State|UID\n4242|FAILED\0x|2001\n";
	struct pm_sched s = {.text = (char *)step, .len = sizeof(step) - 1, .uid = -1};

	pm_fin_sched_parse(&s, "4242");
	ck_assert_str_eq(s.state, "FAILED");
	ck_assert(s.final);
	ck_assert_int_eq(s.uid, 2001);
	s = (struct pm_sched){.text = (char *)state, .len = sizeof(state) - 1, .uid = -1};
	pm_fin_sched_parse(&s, "4242");
	ck_assert_str_eq(s.state, "");
	ck_assert(!s.final);
}
END_TEST

static mode_t mode_of(const char *rel)
{
	struct stat st;

	ck_assert_msg(lstat(pmt_path(tmp, rel), &st) == 0, "%s: %s", rel, strerror(errno));
	return st.st_mode & 07777;
}

/* A fetched copy holds other users' log lines: 0600 files in 0700 folders it creates, under
 * a permissive umask as under one that takes the owner's bits away. */
START_TEST(fetch_private)
{
	static const mode_t masks[] = {0, 022, 0277};
	/* the copy's folders and files, below outN, and the mode each must have */
	static const struct {
		const char *rel;
		mode_t mode;
	} want[] = {{"", 0700},
		    {"/nodes", 0700},
		    {"/nodes/n1.tar.zst", 0600},
		    {"/sacct.txt", 0600},
		    {"/manifest.json", 0600}};
	char job[600], out[600], err[512], rel[64];
	struct pm_fetch_result f;
	mode_t old;

	mkdir(pmt_path(tmp, "job"), 0755);
	mkdir(pmt_path(tmp, "job/nodes"), 0755);
	write_file("job/manifest.json", "{\"schema\": \"" PM_MANIFEST_SCHEMA "\"}\n", 0644);
	write_file("job/verdict.json", "{}\n", 0644);
	write_file("job/sacct.txt", "JobID|State\n7|FAILED\n", 0644);
	write_file("job/nodes/n1.tar.zst", "bundle", 0644);
	snprintf(job, sizeof(job), "%s", pmt_path(tmp, "job"));
	for (size_t i = 0; i < sizeof(masks) / sizeof(masks[0]); i++) {
		snprintf(rel, sizeof(rel), "out%zu", i);
		snprintf(out, sizeof(out), "%s", pmt_path(tmp, rel));
		old = umask(masks[i]);
		int rc = pm_jobdir_fetch(job, out, &f, err, sizeof(err));
		umask(old);
		ck_assert_msg(rc == 0, "umask %03o: %s", masks[i], err);
		ck_assert_int_eq(f.files, 4);
		for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
			snprintf(rel, sizeof(rel), "out%zu%s", i, want[k].rel);
			ck_assert_msg(mode_of(rel) == want[k].mode,
				      "umask %03o: %s is %03o, not %03o", masks[i], rel,
				      mode_of(rel), want[k].mode);
		}
	}
	/* a folder that exists already keeps its mode; what lands in it is still 0600 */
	mkdir(pmt_path(tmp, "mine"), 0755);
	chmod(pmt_path(tmp, "mine"), 0755);
	snprintf(out, sizeof(out), "%s", pmt_path(tmp, "mine"));
	ck_assert_msg(pm_jobdir_fetch(job, out, &f, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(mode_of("mine"), 0755);
	ck_assert_int_eq(mode_of("mine/verdict.json"), 0600);
	ck_assert_int_eq(mode_of("mine/nodes"), 0700);
}
END_TEST

void collector_store_tests(TCase *t)
{
	tcase_add_test(t, store_permissions);
	tcase_add_test(t, store_root_squash);
	tcase_add_test(t, store_marker_missing);
	tcase_add_test(t, requeued_run);
	tcase_add_test(t, store_run_conflict);
	tcase_add_test(t, store_reused_job_id);
	tcase_add_test(t, fetch_private);
	tcase_add_test(t, sacct_owner_record);
	tcase_add_test(t, sacct_field_with_nul);
	tcase_add_test(t, bundle_input_bound);
}
