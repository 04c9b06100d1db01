/*
 * check_finalize_recheck.c - the finalize timer's recheck of comments already set: a forged
 * comment restored, a false alarm not recorded, a reused job id, one sacct query for every
 * cluster, and the AdminComment copy.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "check_finalize.h"
#include "support.h"

static char *final_with_comment(void)
{
	struct pm_finalize_result r;

	pmt_put(D, "expected", "gpu017\n", 0644);
	bundle("gpu017", K17, 1000, false);
	arrive("gpu017");
	ck_assert_int_eq(fin(false, &r), 0);
	ck_assert_int_eq(r.comment, PM_COMMENT_SET);
	return expected_line();
}

static void recheck(struct pm_recheck *res)
{
	char err[512] = "", store[600];

	snprintf(store, sizeof(store), "%s/store", T);
	ck_assert_msg(pm_finalize_recheck(&cfg, store, NULL, 5, res, err, sizeof(err)) == 0, "%s",
		      err);
}

START_TEST(forged_comment_restored)
{
	struct pm_recheck res;
	char *line = final_with_comment(), *db, *want, *rec;
	const char *forged =
		"my run | postmortem: attributed gpu_hardware/gpu_lost origin=gpu016:0 "
		"conf=established act=retry-exclude-node ev=lab/4242/0";

	cfg.comment_recheck = 7 * 86400;
	recheck(&res);
	ck_assert_int_eq(res.runs, 1);
	ck_assert_int_eq(res.seen, 1);
	ck_assert_int_eq(res.tampered, 0);
	ck_assert(!pmt_there(D, PM_TAMPERED_FILE));

	/* the owner rewrites the postmortem part: put back, the user's own text kept */
	pmt_put(T, "db.Comment", forged, 0644);
	pmt_put(T, "sacct.log", "", 0644);
	recheck(&res);
	ck_assert_int_eq(res.tampered, 1);
	ck_assert_int_eq(res.restored, 1);
	db = pmt_get(T, "db.Comment");
	ck_assert_int_ge(asprintf(&want, "my run | %s\n", line), 0);
	ck_assert_str_eq(db, want);
	ck_assert_int_eq(lines(D, PM_TAMPERED_FILE), 1);
	rec = pmt_get(D, PM_TAMPERED_FILE);
	ck_assert_ptr_nonnull(strstr(rec, "\"restored\":true"));
	ck_assert_ptr_nonnull(strstr(rec, "origin=gpu016:0"));
	/* one query for the walk, one to confirm the job before it is put back */
	ck_assert_int_eq(lines(T, "sacct.log"), 2);
	free(db), free(want), free(rec);

	/* a line of another job's comment cannot clear a mismatch found earlier */
	pmt_put(T, "db.Comment", "postmortem: unknown - origin=- conf=- act=none ev=lab/4242/0\n",
		0644);
	char *extra;
	ck_assert_int_ge(
		asprintf(&extra,
			 "4243|lab|2026-11-30T03:00:00||note\n4242|lab|2026-11-30T03:00:00||%s\n",
			 line),
		0);
	pmt_put(T, "db.extra", extra, 0644);
	recheck(&res);
	ck_assert_int_eq(res.tampered, 1);
	ck_assert_int_eq(lines(D, PM_TAMPERED_FILE), 2);
	free(extra);

	/* the postmortem part removed: put back too */
	char p[600];
	snprintf(p, sizeof(p), "%s/db.extra", T);
	unlink(p);
	pmt_put(T, "db.Comment", "just my note\n", 0644);
	recheck(&res);
	ck_assert_int_eq(res.restored, 1);
	db = pmt_get(T, "db.Comment");
	ck_assert_int_ge(asprintf(&want, "just my note | %s\n", line), 0);
	ck_assert_str_eq(db, want);
	free(db), free(want);

	/* outside the period: not looked at */
	struct timeval old[2] = {{time(NULL) - 8 * 86400, 0}, {time(NULL) - 8 * 86400, 0}};
	snprintf(p, sizeof(p), "%s/comment", D);
	ck_assert_int_eq(utimes(p, old), 0);
	pmt_put(T, "db.Comment", "postmortem: forged\n", 0644);
	recheck(&res);
	ck_assert_int_eq(res.runs, 0);
	cfg.comment_recheck = 0; /* off */
	utimes(p, NULL);
	recheck(&res);
	ck_assert_int_eq(res.runs, 0);
	free(line);
}
END_TEST

START_TEST(recheck_false_alarm_not_recorded)
{
	struct pm_recheck res;
	char *line = final_with_comment(), *extra;

	/* the one query's row differs (a forged continuation line), Slurm's own answer for the
	 * job does not: nothing is set or recorded */
	cfg.comment_recheck = 86400;
	ck_assert_int_ge(asprintf(&extra, "4242|lab|2026-11-30T03:00:00||postmortem: forged\n"), 0);
	pmt_put(T, "db.extra", extra, 0644);
	pmt_put(T, "sacctmgr.log", "", 0644);
	recheck(&res);
	ck_assert_int_eq(res.suspect, 1);
	ck_assert_int_eq(res.ambiguous, 1); /* two rows for one job: one is forged */
	ck_assert_int_eq(res.deferred, 0);
	ck_assert_int_eq(res.tampered, 0);
	ck_assert(!pmt_there(D, PM_TAMPERED_FILE));
	ck_assert_int_eq(lines(T, "sacctmgr.log"), 0);
	free(extra), free(line);
}
END_TEST

START_TEST(recheck_reused_job_id)
{
	struct pm_recheck res;
	char *line = final_with_comment(), *db;

	/* a later job took the id (a controller whose state was reset): its row is not this
	 * run's, and `sacctmgr modify job where jobid=4242` would change it: left alone */
	cfg.comment_recheck = 86400;
	pmt_put(T, "db.Comment", "postmortem: forged\n", 0644);
	pmt_put(T, "db.extra", "4242|lab|2026-12-31T00:00:00||someone else's job\n", 0644);
	pmt_put(T, "db.start", "2026-12-31T00:00:00\n", 0644);
	pmt_put(T, "sacctmgr.log", "", 0644);
	recheck(&res);
	ck_assert_int_eq(res.reused, 1);
	ck_assert_int_eq(res.tampered, 0);
	ck_assert_int_eq(lines(T, "sacctmgr.log"), 0);

	/* the later row was a forgery (Slurm's latest job of the id is this run): put back */
	pmt_put(T, "db.start", "2026-11-30T03:00:00\n", 0644);
	recheck(&res);
	ck_assert_int_eq(res.reused, 0);
	ck_assert_int_eq(res.restored, 1);
	db = pmt_get(T, "db.Comment");
	ck_assert_str_eq(strtok(db, "\n"), line);
	free(db), free(line);
}
END_TEST

START_TEST(recheck_one_query_every_cluster)
{
	struct pm_recheck res;
	char *line = final_with_comment(), p[600], *log;

	/* a second cluster whose name holds the first: both asked for, in the one query */
	snprintf(p, sizeof(p), "%s/store/alab/77/0", T);
	mkdirs(p);
	pmt_put(p, "comment",
		"Comment\tpostmortem: unknown - origin=- conf=- act=none ev=alab/77/0\n", 0644);
	pmt_put(T, "sacct.log", "", 0644);
	cfg.comment_recheck = 86400;
	recheck(&res);
	ck_assert_int_eq(res.runs, 2);
	ck_assert_int_eq(res.seen, 1); /* the stub knows lab's job only */
	ck_assert_int_eq(lines(T, "sacct.log"), 1);
	log = pmt_get(T, "sacct.log");
	ck_assert_msg(strstr(log, "-a -X -P -n -M alab,lab -j 77,4242 -o "), "%s", log);
	free(log);

	/* more jobs than a command line should name: the period's jobs instead */
	for (int i = 0; i < 600; i++) {
		snprintf(p, sizeof(p), "%s/store/lab/%060d/0", T, i + 1);
		mkdirs(p);
		pmt_put(p, "comment", "Comment\tpostmortem: unknown\n", 0644);
	}
	pmt_put(T, "sacct.log", "", 0644);
	recheck(&res);
	ck_assert_int_eq(res.runs, 602);
	ck_assert(!res.named);
	log = pmt_get(T, "sacct.log");
	ck_assert_msg(strstr(log, "-a -X -P -n -M alab,lab -S ") && strstr(log, " -E now -o "),
		      "%s", log);
	free(log), free(line);
}
END_TEST

START_TEST(admin_comment_copy)
{
	struct pm_recheck res;
	char *line, *db, *want;

	cfg.admin_comment = true;
	line = final_with_comment();
	db = pmt_get(T, "db.AdminComment");
	ck_assert_int_ge(asprintf(&want, "%s\n", line), 0);
	ck_assert_str_eq(db, want);
	free(db);
	/* removed by someone: put back by the recheck */
	pmt_put(T, "db.AdminComment", "\n", 0644);
	cfg.comment_recheck = 86400;
	recheck(&res);
	ck_assert_int_eq(res.restored, 1);
	db = pmt_get(T, "db.AdminComment");
	ck_assert_str_eq(db, want);
	free(db);
	/* jobstats' summary there: never touched */
	pmt_put(T, "db.AdminComment", "JS1:eyJncHVzIjogOH0=\n", 0644);
	recheck(&res);
	ck_assert_int_eq(res.tampered, 0);
	db = pmt_get(T, "db.AdminComment");
	ck_assert_str_eq(db, "JS1:eyJncHVzIjogOH0=\n");
	free(db), free(want), free(line);
}
END_TEST

void finalize_recheck_tests(TCase *t)
{
	tcase_add_test(t, forged_comment_restored);
	tcase_add_test(t, recheck_false_alarm_not_recorded);
	tcase_add_test(t, recheck_reused_job_id);
	tcase_add_test(t, recheck_one_query_every_cluster);
	tcase_add_test(t, admin_comment_copy);
}
