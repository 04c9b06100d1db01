/*
 * check_finalize_recheck.c - the finalize timer's recheck of comments already set: a forged
 * comment restored, a false alarm not recorded, a reused job id, one sacct query for every
 * cluster, and the AdminComment copy.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
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
	/* one query for the walk, one to confirm the job before it is put back, one for the
	 * start of the record sacctmgr would change (this run's: it is put back) */
	ck_assert_int_eq(lines(T, "sacct.log"), 3);
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
	ck_assert_msg(strstr(log, "-a -X -D -P -n -M alab,lab -j 77,4242 -o "), "%s", log);
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
	ck_assert_msg(strstr(log, "-a -X -D -P -n -M alab,lab -S ") && strstr(log, " -E now -o "),
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

/* ---- a job id Slurm gave again: the records of the id, as slurmdbd keeps and picks them ---- */

/* sacct and sacctmgr over T/db.records ("uid|start|comment" a line, oldest first), as Slurm
 * 22.05 was measured to pick among a reused id's records: sacct -j without --duplicates and
 * `sacctmgr modify job where jobid=N [user=UID]` both take the latest record of the id among
 * the user's (all users' without one); EndTime=/StartTime= select nothing. */
static const char DB_SACCT[] =
	"#!/bin/sh\n"
	"D=$(dirname \"$0\")/..\n"
	"echo \"$*\" >> \"$D/sacct.log\"\n"
	"u=; o=; prev=\n"
	"for a in \"$@\"; do case $prev in -u) u=$a;; -o) o=$a;; esac; prev=$a; done\n"
	"r=$(awk -F'|' -v u=\"$u\" 'u == \"\" || $1 == u { l = $0 } END { print l }' "
	"\"$D/db.records\")\n"
	"case $o in\n"
	"Start) [ -n \"$r\" ] && echo \"$r\" | cut -d'|' -f2 ;;\n"
	"Comment) [ -n \"$r\" ] && echo \"$r\" | cut -d'|' -f3- ;;\n"
	"JobID,Cluster,Start,AdminComment,Comment)\n"
	/* the recheck asks with --duplicates (-D): every record of the id */
	"   case \" $* \" in *' -D '*) awk -F'|' '{ c = $0; sub(/^[^|]*[|][^|]*[|]/, \"\", c);"
	" print \"4242|lab|\" $2 \"||\" c }' \"$D/db.records\" ;;\n"
	"   *) echo \"$r\" | awk -F'|' '{ c = $0; sub(/^[^|]*[|][^|]*[|]/, \"\", c);"
	" print \"4242|lab|\" $2 \"||\" c }' ;; esac ;;\n"
	"*) cat \"$D/db.sacct\" ;;\n"
	"esac\n"
	"exit 0\n";

static const char DB_SACCTMGR[] =
	"#!/bin/sh\n"
	"D=$(dirname \"$0\")/..\n"
	"for a in \"$@\"; do printf '[%s]' \"$a\"; done >> \"$D/sacctmgr.log\"\n"
	"echo >> \"$D/sacctmgr.log\"\n"
	"u=; v=\n"
	"for a in \"$@\"; do case $a in user=*) u=${a#user=};;\n"
	"  Comment=*) v=${a#Comment=}; v=${v#\\\"}; v=${v%\\\"};; esac; done\n"
	"n=$(awk -F'|' -v u=\"$u\" 'u == \"\" || $1 == u { n = NR } END { print n + 0 }' "
	"\"$D/db.records\")\n"
	"[ \"$n\" -gt 0 ] || { echo ' Nothing modified'; exit 1; }\n"
	"awk -F'|' -v n=\"$n\" -v v=\"$v\" 'NR == n { print $1 \"|\" $2 \"|\" v; next } { print }' "
	"\"$D/db.records\" > \"$D/db.records.new\" && mv \"$D/db.records.new\" \"$D/db.records\"\n"
	"echo ' Modified jobs...'\n"
	"exit 0\n";

static void reused_id_db(const char *records)
{
	char p[600];

	snprintf(p, sizeof(p), "%s/bin", T);
	pmt_put(p, "sacct", DB_SACCT, 0755);
	pmt_put(p, "sacctmgr", DB_SACCTMGR, 0755);
	pmt_put(T, "db.records", records, 0644);
	pmt_put(T, "sacctmgr.log", "", 0644);
}

/* Run 4242~1 (D, uid 1000, started 2026-11-30T03:00:00) is merged again after the id was
 * given to a later job: its comment goes to its own record, never to the later job's. */
START_TEST(comment_reused_id_older_run)
{
	struct pm_finalize_result r;
	char *db, *want, *line;
	const char *theirs = "postmortem: unknown - origin=- conf=- act=none ev=lab/4242~2/0";

	/* a later job of another owner (uid 2000) took the id: `user=1000` selects ours */
	ck_assert_int_ge(asprintf(&db,
				  "1000|2026-11-30T03:00:00|my note\n"
				  "2000|2026-12-20T10:00:00|%s\n",
				  theirs),
			 0);
	reused_id_db(db);
	free(db);
	pmt_put(D, "expected", "gpu017\n", 0644);
	bundle("gpu017", K17, 1000, false);
	arrive("gpu017");
	ck_assert_int_eq(fin(false, &r), 0);
	ck_assert_int_eq(r.comment, PM_COMMENT_SET);
	line = expected_line();
	db = pmt_get(T, "db.records");
	ck_assert_int_ge(asprintf(&want,
				  "1000|2026-11-30T03:00:00|my note | %s\n"
				  "2000|2026-12-20T10:00:00|%s\n",
				  line, theirs),
			 0);
	ck_assert_str_eq(db, want); /* before: the later job's comment became ours */
	free(db), free(want);

	/* the same owner ran the later job: no condition of sacctmgr's selects the older
	 * record, so nothing is written, and the merge says why */
	ck_assert_int_ge(asprintf(&db,
				  "1000|2026-11-30T03:00:00|\n"
				  "1000|2026-12-20T10:00:00|%s\n",
				  theirs),
			 0);
	reused_id_db(db);
	pmt_put(D, "comment.pending", "Comment\tpostmortem: something else\n", 0644);
	char err[512] = "", why[256];
	ck_assert_int_eq(pm_finalize_pending(&cfg, D, 5, &r, err, sizeof(err)), 0);
	ck_assert_int_eq(r.comment, PM_COMMENT_SKIPPED);
	snprintf(why, sizeof(why), "%s", r.comment_why);
	ck_assert_msg(strstr(why, "not written") && strstr(why, "2026-12-20T10:00:00") &&
			      strstr(why, "this run started 2026-11-30T03:00:00"),
		      "%s", why);
	ck_assert(!pmt_there(D, "comment.pending")); /* for good: no retry at every walk */
	ck_assert_int_eq(lines(T, "sacctmgr.log"), 0);
	want = pmt_get(T, "db.records");
	ck_assert_str_eq(want, db);
	free(want), free(db);

	/* the stored record itself was the later job's (asked for after the id was taken by
	 * the same owner): it began after this run's folder was made, so not this run's */
	ck_assert_int_ge(asprintf(&db,
				  "1000|2026-11-30T03:00:00|\n"
				  "1000|2099-01-01T00:00:00|%s\n",
				  theirs),
			 0);
	reused_id_db(db);
	want = pmt_get(D, "sacct.txt");
	char *at = strstr(want, "2026-11-30T03:00:00");
	ck_assert_ptr_nonnull(at);
	memcpy(at, "2099-01-01T00:00:00", 19);
	pmt_put(D, "sacct.txt", want, 0644);
	free(want);
	pmt_put(D, "comment.pending", "Comment\tpostmortem: something else\n", 0644);
	ck_assert_int_eq(pm_finalize_pending(&cfg, D, 5, &r, err, sizeof(err)), 0);
	ck_assert_int_eq(r.comment, PM_COMMENT_SKIPPED);
	ck_assert_int_eq(lines(T, "sacctmgr.log"), 0);
	free(db), free(line);
}
END_TEST

/* Runs 4242~1 (D, uid 1000) and 4242~2 (uid 2000) of a reused id, both in the store: each
 * run's recheck reads its own record (sacct -D, told apart by the start), puts back only its
 * own, and a newer run's row never counts as the older run's. */
START_TEST(recheck_reused_id_runs)
{
	struct pm_recheck res;
	char *line, *db, *want, d2[600], p[700];
	const char *line2 = "postmortem: unknown - origin=- conf=- act=none ev=lab/4242~2/0";

	reused_id_db("1000|2026-11-30T03:00:00|\n2000|2026-12-01T10:00:00|\n");
	line = final_with_comment();
	snprintf(d2, sizeof(d2), "%s/store/lab/4242~2/0", T);
	mkdirs(d2);
	pmt_put(d2, "sacct.txt",
		"JobID|JobIDRaw|State|ExitCode|Start|End|NodeList|NNodes|NTasks|AllocTRES|"
		"ReqTRES|FailedNode|Cluster|UID|Reason\n"
		"4242|4242|COMPLETED|0:0|2026-12-01T10:00:00|2026-12-01T10:05:00|gpu001|1||"
		"cpu=1|||lab|2000|None\n",
		0644);
	pmt_put(d2, "manifest.json",
		"{\"job\":{\"cluster\":\"lab\",\"id\":\"4242~2\",\"restart\":0,\"uid\":2000},"
		"\"created\":\"2026-12-02T10:00:00Z\"}\n",
		0644);
	ck_assert_int_ge(asprintf(&want, "Comment\t%s\n", line2), 0);
	pmt_put(d2, "comment", want, 0644);
	free(want);
	/* the older run's comment set last: the first of the id's runs in the walk */
	struct timeval older[2] = {{time(NULL) - 100, 0}, {time(NULL) - 100, 0}};
	snprintf(p, sizeof(p), "%s/comment", d2);
	ck_assert_int_eq(utimes(p, older), 0);
	ck_assert_int_ge(asprintf(&db, "1000|2026-11-30T03:00:00|%s\n2000|2026-12-01T10:00:00|%s\n",
				  line, line2),
			 0);
	pmt_put(T, "db.records", db, 0644);
	pmt_put(T, "sacctmgr.log", "", 0644);
	cfg.comment_recheck = 86400;
	recheck(&res);
	ck_assert_int_eq(res.runs, 2);
	ck_assert_int_eq(res.seen, 2); /* before: 1, the older run's row never asked for */
	ck_assert_int_eq(res.tampered, 0);
	ck_assert_int_eq(res.reused, 0);
	ck_assert_int_eq(lines(T, "sacctmgr.log"), 0);

	/* the older run's record forged: put back there, the newer job's left as it is */
	ck_assert_int_ge(asprintf(&want,
				  "1000|2026-11-30T03:00:00|postmortem: forged\n"
				  "2000|2026-12-01T10:00:00|%s\n",
				  line2),
			 0);
	pmt_put(T, "db.records", want, 0644);
	free(want);
	recheck(&res);
	ck_assert_int_eq(res.tampered, 1);
	ck_assert_int_eq(res.restored, 1);
	want = pmt_get(T, "db.records");
	ck_assert_str_eq(want, db);
	free(want);
	ck_assert_int_eq(lines(D, PM_TAMPERED_FILE), 1);
	ck_assert(!pmt_there(d2, PM_TAMPERED_FILE));

	/* the newer run's record forged behind its owner's note: put back there alone */
	ck_assert_int_ge(asprintf(&want,
				  "1000|2026-11-30T03:00:00|%s\n"
				  "2000|2026-12-01T10:00:00|my note | postmortem: forged\n",
				  line),
			 0);
	pmt_put(T, "db.records", want, 0644);
	free(want);
	pmt_put(T, "sacctmgr.log", "", 0644);
	recheck(&res);
	ck_assert_int_eq(res.tampered, 1);
	ck_assert_int_eq(res.restored, 1);
	want = pmt_get(T, "sacctmgr.log");
	ck_assert_msg(strstr(want, "[jobid=4242][user=2000]"), "%s", want);
	free(want);
	free(db);
	ck_assert_int_ge(asprintf(&db,
				  "1000|2026-11-30T03:00:00|%s\n"
				  "2000|2026-12-01T10:00:00|my note | %s\n",
				  line, line2),
			 0);
	want = pmt_get(T, "db.records");
	ck_assert_str_eq(want, db);
	ck_assert_int_eq(lines(d2, PM_TAMPERED_FILE), 1);
	ck_assert_int_eq(lines(D, PM_TAMPERED_FILE), 1);
	free(want), free(db), free(line);
}
END_TEST

/* A requeued job's restarts share the run (4242/0, 4242/1): the latest restart's comment is
 * the job's, an earlier restart's record (REQUEUED, listed by sacct -D) is not rechecked. */
START_TEST(recheck_requeued_restarts)
{
	struct pm_recheck res;
	char *line, d1[600], p[700], *db;
	const char *line1 = "postmortem: unknown - origin=- conf=- act=none ev=lab/4242/1";

	reused_id_db("1000|2026-11-30T03:00:00|\n");
	line = final_with_comment();
	snprintf(d1, sizeof(d1), "%s/store/lab/4242/1", T);
	mkdirs(d1);
	pmt_put(d1, "sacct.txt",
		"JobID|JobIDRaw|State|ExitCode|Start|End|NodeList|NNodes|NTasks|AllocTRES|"
		"ReqTRES|FailedNode|Cluster|UID|Reason\n"
		"4242|4242|COMPLETED|0:0|2026-11-30T04:00:00|2026-11-30T04:05:00|gpu016|1||"
		"cpu=1|||lab|1000|None\n",
		0644);
	pmt_put(d1, "manifest.json",
		"{\"job\":{\"cluster\":\"lab\",\"id\":\"4242\",\"restart\":1,\"uid\":1000},"
		"\"created\":\"2026-12-01T10:00:00Z\"}\n",
		0644);
	ck_assert_int_ge(asprintf(&db, "Comment\t%s\n", line1), 0);
	pmt_put(d1, "comment", db, 0644);
	free(db);
	struct timeval older[2] = {{time(NULL) - 100, 0}, {time(NULL) - 100, 0}};
	snprintf(p, sizeof(p), "%s/comment", D);
	ck_assert_int_eq(utimes(p, older), 0);
	/* restart 0's record kept what it had; restart 1's says its line */
	ck_assert_int_ge(asprintf(&db,
				  "1000|2026-11-30T03:00:00|my note\n"
				  "1000|2026-11-30T04:00:00|%s\n",
				  line1),
			 0);
	pmt_put(T, "db.records", db, 0644);
	pmt_put(T, "sacctmgr.log", "", 0644);
	cfg.comment_recheck = 86400;
	recheck(&res);
	ck_assert_int_eq(res.runs, 2);
	ck_assert_int_eq(res.seen, 1);
	ck_assert_int_eq(res.tampered, 0);
	ck_assert_int_eq(lines(T, "sacctmgr.log"), 0);
	ck_assert(!pmt_there(D, PM_TAMPERED_FILE));
	free(db), free(line);
}
END_TEST

/* The lowest descriptor free now. */
static int lowest_free_fd(void)
{
	int fd = dup(0);

	if (fd >= 0)
		close(fd);
	return fd;
}

/* sacct that cannot be started (no process left to this user: posix_spawn and fork say
 * EAGAIN, as on a node at its process limit) fails the recheck and leaves no descriptor
 * open: the timer runs it again and again, and each leaked pipe was two descriptors more. */
START_TEST(recheck_no_process_no_fd_leak)
{
	char *line = final_with_comment();
	int st = -1;
	pid_t pid;

	cfg.comment_recheck = 86400;
	if ((pid = fork()) == 0) {
		struct rlimit none = {0, 0};
		char err[512] = "", store[600];
		struct pm_recheck res;
		int before, rc;

		/* root is never held to RLIMIT_NPROC: nobody, who may read the store */
		snprintf(store, sizeof(store), "chmod -R a+rwX %s", T);
		if (getuid() == 0 && (system(store) != 0 || setresgid(65534, 65534, 65534) < 0 ||
				      setresuid(65534, 65534, 65534) < 0))
			_exit(2);
		if (setrlimit(RLIMIT_NPROC, &none) < 0)
			_exit(3);
		snprintf(store, sizeof(store), "%s/store", T);
		before = lowest_free_fd();
		rc = pm_finalize_recheck(&cfg, store, NULL, 5, &res, err, sizeof(err));
		_exit(rc == 0 ? 4 : lowest_free_fd() == before ? 0 : 1);
	}
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d (1: a descriptor leaked)",
		      WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	free(line);
}
END_TEST

void finalize_recheck_tests(TCase *t)
{
	tcase_add_test(t, forged_comment_restored);
	tcase_add_test(t, recheck_false_alarm_not_recorded);
	tcase_add_test(t, recheck_reused_job_id);
	tcase_add_test(t, recheck_one_query_every_cluster);
	tcase_add_test(t, admin_comment_copy);
	tcase_add_test(t, comment_reused_id_older_run);
	tcase_add_test(t, recheck_reused_id_runs);
	tcase_add_test(t, recheck_requeued_restarts);
	tcase_add_test(t, recheck_no_process_no_fd_leak);
}
