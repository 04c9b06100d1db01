/*
 * check_finalize.c - the finalize protocol (store/finalize.c) against a temporary store,
 * with a fake sacct (prints -P output from files) and a fake sacctmgr (records its
 * arguments, answers "Nothing modified" as often as told); the comment composition; the
 * show/fetch access decision; and one run of the built `postmortem show`.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "finalize_int.h"
#include "history.h"
#include "support.h"
#include "check_finalize.h"

#ifndef PM_TEST_SRCDIR
#define PM_TEST_SRCDIR "."
#endif
#ifndef PM_TEST_BUILDDIR
#define PM_TEST_BUILDDIR "."
#endif

const char *prog = "postmortem"; /* cli/access.c prints with it */

char T[256]; /* the test's temporary folder */
char D[512]; /* its job run: T/store/lab/4242/0 */
struct pm_config cfg;

#define SACCT_HDR                                                                   \
	"JobID|JobIDRaw|State|ExitCode|Start|End|NodeList|NNodes|NTasks|AllocTRES|" \
	"ReqTRES|FailedNode|Cluster|UID|Reason\n"
#define SACCT(state)                                                                             \
	SACCT_HDR                                                                                \
	"4242|4242|" state "|1:0|2026-11-30T03:00:00|2026-11-30T03:12:30|gpu[016-017]|2||"       \
	"cpu=128,gres/gpu=16,node=2|||lab|1000|None\n"                                           \
	"4242.0|4242.0|" state "|1:0|2026-11-30T03:00:00|2026-11-30T03:12:30|gpu[016-017]|2|16|" \
	"||||||\n"

static const char FAKE_SACCT[] =
	"#!/bin/sh\n"
	"D=$(dirname \"$0\")/..\n"
	"echo \"$*\" >> \"$D/sacct.log\"\n"
	"case \" $* \" in\n"
	"*' -o Comment '*) [ -f \"$D/db.Comment\" ] && cat \"$D/db.Comment\" ;;\n"
	"*' -o AdminComment '*) [ -f \"$D/db.AdminComment\" ] && cat \"$D/db.AdminComment\" ;;\n"
	/* the timer's recheck: one row per job from the db files, then any extra rows */
	"*' -o JobID,Cluster,Start,AdminComment,Comment '*)\n"
	"   printf '4242|lab|2026-11-30T03:00:00|%s|%s\\n' "
	"\"$(cat \"$D/db.AdminComment\" 2>/dev/null)\" "
	"\"$(cat \"$D/db.Comment\")\"\n"
	"   [ -f \"$D/db.extra\" ] && cat \"$D/db.extra\" ;;\n"
	/* the start of the latest job of an id */
	"*' -o Start '*) cat \"$D/db.start\" 2>/dev/null || echo 2026-11-30T03:00:00 ;;\n"
	/* the job's record, after db.delay seconds (a loaded slurmdbd) */
	"*) [ -f \"$D/db.delay\" ] && sleep \"$(cat \"$D/db.delay\")\"\n"
	"   if [ -f \"$D/db.first\" ]; then cat \"$D/db.first\"; rm -f \"$D/db.first\";\n"
	"   else cat \"$D/db.sacct\"; fi ;;\n"
	"esac\n"
	"exit 0\n";

static const char FAKE_SACCTMGR[] =
	"#!/bin/sh\n"
	"D=$(dirname \"$0\")/..\n"
	"n=$(cat \"$D/mgr.count\" 2>/dev/null || echo 0); n=$((n+1)); echo $n > \"$D/mgr.count\"\n"
	"for a in \"$@\"; do printf '[%s]' \"$a\"; done >> \"$D/sacctmgr.log\"\n"
	"echo >> \"$D/sacctmgr.log\"\n"
	"if [ \"$n\" -le \"$(cat \"$D/mgr.fails\" 2>/dev/null || echo 0)\" ]; then\n"
	"  echo ' Nothing modified'; exit 1; fi\n"
	"for a in \"$@\"; do case \"$a\" in\n"
	"  Comment=*) v=${a#Comment=}; v=${v#\\\"}; v=${v%\\\"}; printf '%s\\n' \"$v\" > \"$D/db.Comment\";;\n"
	"  AdminComment=*) v=${a#AdminComment=}; v=${v#\\\"}; v=${v%\\\"};"
	" printf '%s\\n' \"$v\" > \"$D/db.AdminComment\";;\n"
	"esac; done\n"
	"echo ' Modified job'\n"
	"exit 0\n";

/* ---- helpers ---- */

int lines(const char *dir, const char *name)
{
	char *s = pmt_get(dir, name);
	int n = 0;

	for (char *p = s; p && *p; p++)
		n += *p == '\n';
	free(s);
	return n;
}

void mkdirs(const char *p)
{
	char b[1024];

	snprintf(b, sizeof(b), "%s", p);
	for (char *s = b + strlen(T) + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(b, 0755);
			chmod(b, 0755); /* whatever the umask: the CLI test runs as nobody */
			*s = '/';
		}
	mkdir(b, 0755);
	chmod(b, 0755);
}

/* A postmortem.bundle/1 for NODE with one kernel log, as the collector writes it. */
void bundle(const char *node, const char *klog, long long uid, bool deadline_hit)
{
	char sha[80], *man;
	struct pmt_member k = {"sources/kernel_log/kernel.log", klog, strlen(klog)};

	pm_sha256_buf(klog, strlen(klog), sha);
	ck_assert_int_ge(
		asprintf(
			&man,
			"{\"schema\":\"postmortem.bundle/1\",\"cluster\":\"lab\","
			"\"job\":\"4242\",\"restart\":0,\"node\":\"%s\",\"nodelist\":\"gpu[016-017]\","
			"\"uid\":%lld,\"collected\":{\"deadline_hit\":%s},\"files\":[{\"path\":"
			"\"sources/kernel_log/kernel.log\",\"source\":\"kernel_log\",\"node\":\"%s\","
			"\"rank\":null,\"bytes\":%zu,\"sha256\":\"%s\",\"status\":\"ok\",\"reason\":\"\"}],"
			"\"coverage\":[]}",
			node, uid, deadline_hit ? "true" : "false", node, strlen(klog), sha),
		0);
	pmt_bundle(D, node, man, &k, 1, 0);
	free(man);
}

void arrive(const char *node)
{
	char err[256];

	ck_assert_msg(pm_finalize_arrive(D, node, NULL, err, sizeof(err)) >= 1, "%s", err);
}

const char *jstr(const json_t *o, const char *path)
{
	char k[128];
	const char *dot;

	while ((dot = strchr(path, '.'))) {
		snprintf(k, sizeof(k), "%.*s", (int)(dot - path), path);
		o = json_object_get(o, k);
		path = dot + 1;
	}
	return json_string_value(json_object_get(o, path));
}

static void setup(void)
{
	char p[512];

	unsetenv("SLURM_JOB_ID");
	unsetenv("SLURM_NODELIST");
	/* as root, /tmp: the CLI test runs as nobody, who must reach the store */
	snprintf(T, sizeof(T), "%s/pmfin.XXXXXX",
		 getenv("TMPDIR") && geteuid() != 0 ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(T));
	chmod(T, 0755);
	snprintf(D, sizeof(D), "%s/store/lab/4242/0", T);
	mkdirs(D);
	snprintf(p, sizeof(p), "%s/bin", T);
	mkdirs(p);
	pmt_put(p, "sacct", FAKE_SACCT, 0755);
	pmt_put(p, "sacctmgr", FAKE_SACCTMGR, 0755);
	pmt_put(T, "db.sacct", SACCT("FAILED"), 0644);
	pmt_put(T, "db.Comment", "\n", 0644);
	memset(&cfg, 0, sizeof(cfg));
	cfg.rules = strdup(PM_TEST_SRCDIR "/rules");
	ck_assert_int_ge(asprintf(&cfg.sacct, "%s/bin/sacct", T), 0);
	ck_assert_int_ge(asprintf(&cfg.sacctmgr, "%s/bin/sacctmgr", T), 0);
	cfg.comment_field = strdup("Comment");
	cfg.operators_group = strdup("slurmops");
	cfg.retain = 86400;
}

static void teardown(void)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", T);
	if (getenv("PM_TEST_KEEP"))
		fprintf(stderr, "kept %s\n", T);
	else if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", T);
	free(cfg.rules);
	free(cfg.sacct);
	free(cfg.sacctmgr);
	free(cfg.comment_field);
	free(cfg.operators_group);
}

int fin(bool force, struct pm_finalize_result *r)
{
	struct pm_finalize_opts o = {.force = force, .budget = 10}; /* room for sanitizer builds */
	char err[512] = "";
	int rc = pm_finalize_ex(&cfg, D, &o, r, err, sizeof(err));

	ck_assert_msg(rc >= 0, "pm_finalize: %s", err);
	return rc;
}

/* The line finalize should have set, from the stored verdict. */
char *expected_line(void)
{
	json_t *v = pmt_load(D, "verdict.json");
	char *l = pm_comment_line(v, "lab", "4242", "0");

	json_decref(v);
	ck_assert_ptr_nonnull(l);
	return l;
}

/* The stored manifest is jansson's dump of itself (the finalizer dumps its largest parts
 * beside the attribution and puts them in their places: the same bytes). */
static void manifest_as_dumped(void)
{
	char *text = pmt_get(D, "manifest.json"), *again;
	json_t *m = json_loads(text, 0, NULL);

	ck_assert_ptr_nonnull(m);
	again = json_dumps(m, JSON_SORT_KEYS | JSON_INDENT(2) | JSON_ENSURE_ASCII);
	ck_assert_ptr_nonnull(again);
	ck_assert_uint_eq(strlen(text), strlen(again) + 1);
	ck_assert(!strncmp(text, again, strlen(again)) && !strcmp(text + strlen(again), "\n"));
	free(again);
	free(text);
	json_decref(m);
}

/* ---- the protocol ---- */

/* The first of the job's two nodes arrives while Slurm's record says COMPLETING: a provisional
 * verdict; its manifest, loaded. */
static json_t *first_of_two(struct pm_finalize_result *r)
{
	json_t *m;

	pmt_put(T, "db.first", SACCT("COMPLETING"), 0644);
	bundle("gpu016", K16, 1000, true);
	arrive("gpu016");
	ck_assert_int_eq(fin(false, r), 1);
	ck_assert_int_eq(r->what, PM_FIN_PROVISIONAL);
	m = pmt_load(D, "manifest.json");
	ck_assert(json_is_true(json_object_get(m, "provisional")));
	manifest_as_dumped(); /* a node missing: its reason in the nodes' list */
	return m;
}

/* The first node's provisional verdict asks for Slurm's record once: when sacct takes a second
 * to answer (a loaded slurmdbd), the answer still counts.  Before, the one question had half a
 * second, and the provisional manifest had no record of the job's state. */
START_TEST(provisional_slow_sacct)
{
	struct pm_finalize_result r;
	json_t *m;

	pmt_put(T, "db.delay", "1.2\n", 0644);
	m = first_of_two(&r);
	ck_assert_str_eq(jstr(m, "scheduler.state"), "COMPLETING");
	ck_assert(!json_is_true(json_object_get(json_object_get(m, "scheduler"), "final")));
	ck_assert_int_eq(lines(T, "sacct.log"), 1); /* asked once: not final, not asked again */
	json_decref(m);
}
END_TEST

START_TEST(provisional_then_final)
{
	struct pm_finalize_result r;
	json_t *m, *v;
	char *prov, *line, *want, *log, *why;

	pmt_put(T, "db.Comment",
		"my note | postmortem: unknown - origin=- conf=- act=none "
		"ev=lab/4242/0\n",
		0644);
	pmt_put(T, "mgr.fails", "2\n", 0644);

	/* the first node: a provisional verdict, the other node missing */
	m = first_of_two(&r);
	ck_assert_str_eq(jstr(m, "schema"), PM_MANIFEST_SCHEMA);
	ck_assert_str_eq(jstr(m, "nodes.expected_from"), "bundle manifest");
	ck_assert_int_eq(json_array_size(json_object_get(json_object_get(m, "nodes"), "missing")),
			 1);
	ck_assert_str_eq(jstr(json_array_get(json_object_get(json_object_get(m, "nodes"), "missing"),
					     0),
			      "node"),
			 "gpu017");
	ck_assert_str_eq(jstr(json_array_get(json_object_get(json_object_get(m, "nodes"), "missing"),
					     0),
			      "reason"),
			 PM_MISSING_REASON);
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(m, "deadline_hits"), 0)),
			 "gpu016");
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(m, "job"), "uid")),
			 1000);
	ck_assert(jstr(m, "expires") && jstr(m, "created"));
	ck_assert(!pmt_there(D, "sacctmgr.log") &&
		  !pmt_there(T, "sacctmgr.log")); /* no comment yet */
	json_decref(m);
	prov = pmt_get(D, "verdict.json");
	ck_assert_ptr_nonnull(prov);
	ck_assert(pmt_there(D, "expected"));

	/* a node that is neither first nor last only adds itself */
	ck_assert_int_eq(fin(false, &r), 1);
	ck_assert_int_eq(r.what, PM_FIN_WAITING);

	/* the last node merges: final, history, comment after two "Nothing modified", and
	 * Slurm's record read again while it still says COMPLETING */
	pmt_put(T, "db.first", SACCT("COMPLETING"), 0644);
	bundle("gpu017", K17, 1000, false);
	arrive("gpu017");
	ck_assert_int_eq(fin(false, &r), 0);
	ck_assert_int_eq(r.what, PM_FIN_MERGED);
	ck_assert_msg(r.comment == PM_COMMENT_SET, "comment %d: %s", (int)r.comment, r.comment_why);
	ck_assert_str_eq(r.state, "FAILED");
	manifest_as_dumped();
	m = pmt_load(D, "manifest.json");
	v = pmt_load(D, "verdict.json");
	ck_assert(!json_is_true(json_object_get(m, "provisional")));
	ck_assert_int_eq(json_array_size(json_object_get(json_object_get(m, "nodes"), "missing")),
			 0);
	ck_assert_int_eq(json_array_size(json_object_get(json_object_get(m, "nodes"), "present")),
			 2);
	ck_assert(json_is_true(json_object_get(json_object_get(m, "scheduler"), "final")));
	ck_assert_str_eq(jstr(m, "scheduler.state"), "FAILED");
	ck_assert_str_eq(jstr(m, "ruleset.digest"), jstr(v, "ruleset.digest"));
	ck_assert_str_eq(jstr(v, "status"), "attributed");
	ck_assert_str_eq(jstr(v, "outcome"), "FAILED");
	ck_assert_str_eq(jstr(v, "cause.class"), "gpu_hardware");
	ck_assert_int_eq(strncmp(jstr(json_array_get(json_object_get(m, "bundles"), 1), "sha256"),
				 "sha256:", 7),
			 0);
	ck_assert_int_eq(r.history, 1);
	char *h = pmt_get(D, "history/verdict-1.json");
	ck_assert_str_eq(h, prov);
	free(h);
	why = pmt_get(D, "history/verdict-1.why");
	ck_assert_ptr_nonnull(strstr(why, "final merge of a provisional verdict"));
	ck_assert_ptr_nonnull(strstr(why, "new bundle nodes/gpu017.tar.zst"));
	ck_assert_ptr_nonnull(strstr(why, "Slurm's record COMPLETING -> FAILED"));
	free(why);

	line = expected_line();
	ck_assert_int_eq(
		strncmp(line, "postmortem: attributed gpu_hardware/gpu_lost origin=gpu017",
			strlen("postmortem: attributed gpu_hardware/gpu_lost origin=gpu017")),
		0);
	ck_assert_str_eq(line + strlen(line) - strlen(" ev=lab/4242/0"), " ev=lab/4242/0");
	ck_assert_int_le(strlen(line), PM_COMMENT_MAX);
	ck_assert_str_eq(jstr(m, "verdict.comment"), line);
	ck_assert_int_ge(asprintf(&want,
				  "[-i][modify][job][where][jobid=4242][user=1000][set]"
				  "[Comment=\"my note | %s\"]\n",
				  line),
			 0);
	log = pmt_get(T, "sacctmgr.log");
	char *three;
	ck_assert_int_ge(asprintf(&three, "%s%s%s", want, want, want), 0);
	ck_assert_str_eq(log, three);
	free(three);
	free(log);
	char *db = pmt_get(T, "db.Comment"), *c;
	ck_assert_int_ge(asprintf(&c, "my note | %s\n", line), 0);
	ck_assert_str_eq(db, c);
	free(c);
	free(db);
	ck_assert(!pmt_there(D, "comment.pending"));
	json_decref(m);
	json_decref(v);

	/* idempotence: the same inputs give the same bytes and no second sacctmgr call */
	char *v1 = pmt_get(D, "verdict.json"), *m1 = pmt_get(D, "manifest.json");
	ck_assert_int_eq(fin(false, &r), 0);
	ck_assert_int_eq(r.what, PM_FIN_UNCHANGED);
	ck_assert_int_eq(r.comment, PM_COMMENT_ALREADY);
	char *v2 = pmt_get(D, "verdict.json"), *m2 = pmt_get(D, "manifest.json");
	ck_assert_str_eq(v1, v2);
	ck_assert_str_eq(m1, m2);
	ck_assert_int_eq(lines(T, "sacctmgr.log"), 3);
	ck_assert(!pmt_there(D, "history/verdict-2.json"));
	free(v1), free(v2), free(m1), free(m2);

	/* a changed record changes the verdict: history 2 says why */
	pmt_put(T, "db.sacct", SACCT("NODE_FAIL"), 0644);
	ck_assert_int_eq(fin(false, &r), 0);
	ck_assert_int_eq(r.what, PM_FIN_MERGED);
	ck_assert_int_eq(r.history, 2);
	why = pmt_get(D, "history/verdict-2.why");
	ck_assert_ptr_nonnull(strstr(why, "Slurm's record FAILED -> NODE_FAIL"));
	free(why);
	manifest_as_dumped(); /* with its history */
	m = pmt_load(D, "manifest.json");
	ck_assert_int_eq(json_array_size(json_object_get(m, "history")), 2);
	json_decref(m);
	free(line);
	free(want);
	free(prov);
}
END_TEST

/*
 * The stored verdict is what `postmortem diagnose DIR/nodes DIR/sacct.txt` gives on a fetched
 * copy, byte for byte (input_digest included: Slurm's record is read as a file, as there).
 */
START_TEST(fetched_copy_reproduces_verdict)
{
	struct pm_finalize_result r;
	struct pm_ruleset *rs;
	struct pm_evidence *ev;
	char err[512], p[600], *stored, *again;
	json_t *v;

	bundle("gpu016", K16, 1000, false);
	arrive("gpu016");
	bundle("gpu017", K17, 1000, false);
	arrive("gpu017");
	ck_assert_int_eq(fin(false, &r), 0);
	ck_assert_int_eq(r.what, PM_FIN_MERGED);
	stored = pmt_get(D, "verdict.json");
	ck_assert_ptr_nonnull(stored);
	ck_assert(pmt_there(D, "sacct.txt"));

	rs = pm_ruleset_load(cfg.rules, err, sizeof(err));
	ck_assert_msg(rs != NULL, "%s", err);
	ev = pm_evidence_create(rs);
	snprintf(p, sizeof(p), "%s/nodes", D);
	ck_assert_msg(pm_evidence_add_path(ev, p, err, sizeof(err)) == 0, "%s", err);
	snprintf(p, sizeof(p), "%s/sacct.txt", D);
	ck_assert_msg(pm_evidence_add_path(ev, p, err, sizeof(err)) == 0, "%s", err);
	v = pm_diagnose(ev, err, sizeof(err));
	ck_assert_msg(v != NULL, "%s", err);
	again = pm_verdict_dump(v);
	ck_assert_ptr_nonnull(again);
	size_t at = 0;
	while (again[at] && again[at] == stored[at])
		at++;
	ck_assert_msg(!again[at] && !stored[at], "differs at byte %zu: [%.80s] stored [%.80s]", at,
		      again + (at > 20 ? at - 20 : 0), stored + (at > 20 ? at - 20 : 0));
	free(again);
	json_decref(v);
	pm_evidence_destroy(ev);
	pm_ruleset_destroy(rs);
	free(stored);
}
END_TEST

/* An earlier job of another user on gpu017 (lab/4100/0), recorded with verdict V an hour
 * before now, dated by the store's clock: its record's mtime (written now, it would be after
 * this job's end once the clock has passed a second since the arrivals). */
static void earlier_job_on_gpu017(json_t *v)
{
	time_t then = time(NULL) - 3600;
	struct timespec ts[2] = {{.tv_nsec = UTIME_OMIT}, {.tv_sec = then}};
	char p[700], st[400], day[16];

	snprintf(p, sizeof(p), "%s/store/lab/4100/0", T);
	mkdirs(p);
	snprintf(st, sizeof(st), "%s/store", T);
	ck_assert_int_eq(pm_history_record(st, p, v, (double)then, 1001, 0, NULL, 0), 1);
	strftime(day, sizeof(day), "%Y-%m-%d", gmtime(&then));
	snprintf(p, sizeof(p), "%s/%s/gpu017/%s/%010lld.lab.4100.0.json", st, PM_HISTORY_DIR, day,
		 (long long)then);
	ck_assert_int_eq(utimensat(AT_FDCWD, p, ts, 0), 0);
}

/*
 * The node history: the final verdict records its trusted origin node; with an earlier job's
 * record on that node (the same hardware class, an hour before) the merge again justifies the
 * repair by the repeat and names that job, its input_digest covering the record; a refuted
 * ledger entry for the earlier job takes it out again.
 */
START_TEST(node_history_repeats)
{
	struct pm_finalize_result r;
	char p[700], *digest;
	json_t *v, *rep;
	FILE *f;

	bundle("gpu016", K16, 1000, false);
	arrive("gpu016");
	bundle("gpu017", K17, 1000, false);
	arrive("gpu017");
	ck_assert_int_eq(fin(false, &r), 0);
	v = pmt_load(D, "verdict.json");
	ck_assert_ptr_null(json_object_get(v, "node_history"));
	ck_assert_ptr_null(
		json_object_get(json_object_get(json_object_get(v, "decision"), "repair"),
				"repeats"));
	digest = strdup(jstr(v, "input_digest"));
	snprintf(p, sizeof(p), "%s/store/%s/gpu017", T, PM_HISTORY_DIR);
	ck_assert(pmt_there(p, ""));
	ck_assert(pmt_there(D, PM_HISTORY_RUN));
	snprintf(p, sizeof(p), "%s/store/%s/gpu016", T, PM_HISTORY_DIR);
	ck_assert(!pmt_there(p, ""));

	earlier_job_on_gpu017(v);
	json_decref(v);
	ck_assert_int_eq(fin(true, &r), 0);
	ck_assert_int_eq(r.what, PM_FIN_MERGED);
	v = pmt_load(D, "verdict.json");
	rep = json_object_get(json_object_get(v, "decision"), "repair");
	ck_assert(json_is_true(json_object_get(rep, "justified")));
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(rep, "repeats"), 0)),
			 "lab/4100/0");
	ck_assert_str_eq(jstr(json_array_get(json_object_get(v, "node_history"), 0), "run"),
			 "lab/4100/0");
	ck_assert_str_ne(jstr(v, "input_digest"), digest);
	json_decref(v);

	/* refuted: out of the count, the verdict as at first */
	snprintf(p, sizeof(p), "%s/store/ledger.jsonl", T);
	ck_assert_ptr_nonnull(f = fopen(p, "w"));
	fputs("{\"seq\":1,\"kind\":\"resolved\",\"job\":\"lab/4100/0\",\"result\":\"refuted\"}\n",
	      f);
	fclose(f);
	ck_assert_int_eq(fin(true, &r), 0);
	v = pmt_load(D, "verdict.json");
	ck_assert_ptr_null(json_object_get(v, "node_history"));
	ck_assert_str_eq(jstr(v, "input_digest"), digest);
	json_decref(v);
	free(digest);
}
END_TEST

/*
 * A rule set the caller loaded (the timer's, loaded once for a whole store) is the one the
 * merge uses, and gives the same bytes as the merge's own compilation of cfg.rules; it is
 * the caller's, so the merge leaves it usable for the next job run.
 */
START_TEST(preloaded_ruleset)
{
	struct pm_finalize_opts o = {.force = true, .budget = 5};
	struct pm_finalize_result r;
	struct pm_ruleset *rs, *other;
	char err[512] = "", dir[600], *cmd, *fresh, *with, *again;
	json_t *v, *m;

	bundle("gpu016", K16, 1000, false);
	arrive("gpu016");
	bundle("gpu017", K17, 1000, false);
	arrive("gpu017");
	ck_assert_int_eq(fin(false, &r), 0); /* the merge compiles cfg.rules itself */
	ck_assert_int_eq(r.what, PM_FIN_MERGED);
	fresh = pmt_get(D, "verdict.json");
	ck_assert_ptr_nonnull(fresh);

	/* the same rules, loaded by the caller: the same verdict, byte for byte */
	rs = pm_ruleset_load(cfg.rules, err, sizeof(err));
	ck_assert_msg(rs != NULL, "%s", err);
	ck_assert_int_eq(unlink(strcat(strcpy(dir, D), "/verdict.json")), 0);
	ck_assert_int_eq(unlink(strcat(strcpy(dir, D), "/manifest.json")), 0);
	o.rules = rs;
	ck_assert_msg(pm_finalize_ex(&cfg, D, &o, &r, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(r.what, PM_FIN_MERGED);
	with = pmt_get(D, "verdict.json");
	ck_assert_ptr_nonnull(with);
	ck_assert_str_eq(with, fresh);

	/* a rule set that differs from cfg.rules (one more comment line: another digest) shows
	 * in the verdict and the manifest, and the change is recorded with its reason */
	snprintf(dir, sizeof(dir), "%s/rules2", T);
	ck_assert_int_ge(
		asprintf(&cmd,
			 "mkdir -p '%s' && cp '%s'/*.yaml '%s' && echo '# local' >> '%s/host.yaml'",
			 dir, cfg.rules, dir, dir),
		0);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	other = pm_ruleset_load(dir, err, sizeof(err));
	ck_assert_msg(other != NULL, "%s", err);
	ck_assert_str_ne(pm_ruleset_digest(other), pm_ruleset_digest(rs));
	o.rules = other;
	ck_assert_msg(pm_finalize_ex(&cfg, D, &o, &r, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(r.what, PM_FIN_MERGED);
	ck_assert_int_eq(r.history, 1);
	ck_assert_ptr_nonnull(strstr(r.why, pm_ruleset_digest(other)));
	v = pmt_load(D, "verdict.json");
	ck_assert_str_eq(jstr(v, "ruleset.digest"), pm_ruleset_digest(other));
	json_decref(v);
	m = pmt_load(D, "manifest.json");
	ck_assert_str_eq(jstr(m, "ruleset.digest"), pm_ruleset_digest(other));
	json_decref(m);

	/* the first one again, still whole after a merge: the first verdict back */
	o.rules = rs;
	ck_assert_msg(pm_finalize_ex(&cfg, D, &o, &r, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(r.history, 2);
	again = pmt_get(D, "verdict.json");
	ck_assert_str_eq(again, fresh);

	pm_ruleset_destroy(other);
	pm_ruleset_destroy(rs);
	free(again);
	free(with);
	free(fresh);
}
END_TEST

/* Slurm's commands run as root even while the store is written as its service user. */
START_TEST(slurm_commands_as_root)
{
	int p[2], st;
	pid_t pid;
	char got[64] = "";

	if (geteuid() != 0)
		return;
	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	if (pid == 0) {
		static const char *const args[] = {"-u", NULL};
		char *out = NULL;
		size_t len = 0;
		int status = -1;

		close(p[0]);
		if (setegid(65534) < 0 || seteuid(65534) < 0)
			_exit(2);
		if (pm_fin_run("id", args, 5, &out, &len, &status) < 0 || status != 0)
			_exit(3);
		if (write(p[1], out, len) != (ssize_t)len)
			_exit(4);
		_exit(0);
	}
	close(p[1]);
	ck_assert_int_ge(read(p[0], got, sizeof(got) - 1), 0);
	close(p[0]);
	waitpid(pid, &st, 0);
	ck_assert_int_eq(WEXITSTATUS(st), 0);
	ck_assert_str_eq(got, "0\n");
}
END_TEST

/* A Slurm command started by posix_spawn (pm_fin_spawn) is set up as pm_fin_exec sets up a
 * forked one: no signal blocked, SIGPIPE at its default, a process group of its own, stdin
 * from /dev/null, stderr with stdout; and one that is not there exits 127, no output. */
START_TEST(slurm_command_setup)
{
	static const char *const probe[] = {
		"-c",
		"read -r pid comm st ppid pgrp rest < /proc/$$/stat; [ \"$pid\" = \"$pgrp\" ] && "
		"echo own-group; while read -r k v; do case $k in SigBlk:|SigIgn:) echo \"$k $v\";; "
		"esac; done < /proc/$$/status; readlink /proc/$$/fd/0; echo to-stderr >&2",
		NULL};
	static const char *const none[] = {NULL};
	unsigned long long blk = 1, ign = 1;
	char *out = NULL, *p;
	size_t len = 0;
	int status = -1;
	sigset_t set;

	/* what the child must not inherit: a blocked signal, SIGPIPE ignored */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	ck_assert_int_eq(pm_fin_run("sh", probe, 10, &out, &len, &status), 0);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_msg(strstr(out, "own-group\n"), "%s", out);
	ck_assert_msg(strstr(out, "\n/dev/null\n"), "%s", out);
	ck_assert_msg(strstr(out, "to-stderr\n"), "%s", out);
	ck_assert((p = strstr(out, "SigBlk: ")) && sscanf(p + 8, "%llx", &blk) == 1);
	ck_assert((p = strstr(out, "SigIgn: ")) && sscanf(p + 8, "%llx", &ign) == 1);
	ck_assert_msg(blk == 0, "%s", out);
	ck_assert_msg(!(ign & (1ull << (SIGPIPE - 1))), "%s", out);
	free(out);

	/* not there, by path and by name: exit 127 as a forked child's failed exec gave */
	ck_assert_int_eq(pm_fin_run("/nonexistent/pm-no-such-sacct", none, 5, &out, &len, &status),
			 0);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 127);
	ck_assert_uint_eq(len, 0);
	free(out);
	ck_assert_int_eq(pm_fin_run("pm-no-such-sacct", none, 5, &out, &len, &status), 0);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 127);
	ck_assert_uint_eq(len, 0);
	free(out);
	/* a command with blanks goes through sh, which says what is missing and exits 127 */
	ck_assert_int_eq(pm_fin_run("pm-no-such-sacct --x", none, 5, &out, &len, &status), 0);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 127);
	ck_assert_msg(strstr(out, "pm-no-such-sacct"), "%s", out);
	free(out);
}
END_TEST

/* pm_fin_run's output from a process started with stdin, stdout and stderr closed (as a
 * daemon may run the store): the pipe's write end is then descriptor 1 itself, and the child
 * must still write there, by posix_spawn (euid 0) and by a fork (root acting as another user).
 * 0: "out" came back; 1: it did not; 2: pm_fin_run failed; 3: the ids could not be set. */
static int closed_stdio_child(bool as_other)
{
	static const char *const say[] = {"-c", "echo out; echo err >&2", NULL};
	char *out = NULL;
	size_t len = 0;
	int status = -1;

	if (as_other && (getuid() != 0 || seteuid(65534) < 0))
		return 3;
	close(0);
	close(1);
	close(2);
	if (pm_fin_run("sh", say, 10, &out, &len, &status) < 0)
		return 2;
	return out && strstr(out, "out\n") && strstr(out, "err\n") ? 0 : 1;
}

/* CHILD run in a forked process, by posix_spawn's path (the caller's ids) and, as root, by
 * the fork's (root acting as another user): each must exit 0. */
static void both_paths(int (*child)(bool as_other))
{
	for (int other = 0; other < 2; other++) {
		int st = -1;
		pid_t pid;

		if (other && getuid() != 0)
			break; /* the fork is only taken by root acting as another user */
		if ((pid = fork()) == 0)
			_exit(child(other));
		ck_assert_int_gt(pid, 0);
		ck_assert_int_eq(waitpid(pid, &st, 0), pid);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status %d",
			      other ? "fork" : "posix_spawn", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	}
}

START_TEST(slurm_command_closed_stdio)
{
	both_paths(closed_stdio_child);
}
END_TEST

/* A command started with no stderr of the caller's (the comment recheck's sacct: EFD -1)
 * writes its stderr to /dev/null and goes on: the descriptor takes writes.  0: "wrote" came
 * back; 1: it did not; 2: no process; 3: the ids could not be set. */
static int stderr_null_child(bool as_other)
{
	static const char *const say[] = {"-c", "echo noise >&2 && echo wrote", NULL};
	char buf[256];
	size_t n = 0;
	ssize_t r;
	int p[2], st;
	pid_t pid;

	if (as_other && (getuid() != 0 || seteuid(65534) < 0))
		return 3;
	if (pipe2(p, O_CLOEXEC) < 0 || (pid = pm_fin_spawn("sh", say, p[1], -1)) < 0)
		return 2;
	close(p[1]);
	while (n < sizeof(buf) - 1 && (r = read(p[0], buf + n, sizeof(buf) - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
	waitpid(pid, &st, 0);
	return strstr(buf, "wrote\n") ? 0 : 1;
}

START_TEST(slurm_command_stderr_null)
{
	both_paths(stderr_null_child);
}
END_TEST

/* A command line or an argument list too long for the store's buffers is not run (E2BIG):
 * cut, it would be another command. */
START_TEST(slurm_command_too_long)
{
	static char cmd[PM_CMD_MAX + 32];
	const char *many[40];
	static const char *const none[] = {NULL};
	char *out = NULL;
	size_t len = 0;
	int status = -1;

	/* a command with blanks at the configuration's limit runs */
	memset(cmd, ' ', PM_CMD_MAX);
	memcpy(cmd, "echo ran", 8);
	cmd[PM_CMD_MAX] = '\0';
	ck_assert_int_eq(pm_fin_run(cmd, none, 10, &out, &len, &status), 0);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_str_eq(out, "ran\n");
	free(out);
	/* past the buffer: refused, nothing started */
	memset(cmd, ' ', sizeof(cmd) - 1);
	memcpy(cmd, "echo ran", 8);
	cmd[sizeof(cmd) - 1] = '\0';
	errno = 0;
	ck_assert_int_eq(pm_fin_run(cmd, none, 10, &out, &len, &status), -1);
	ck_assert_int_eq(errno, E2BIG);
	ck_assert_ptr_null(out);
	/* more arguments than the argument vector holds */
	for (size_t i = 0; i < 39; i++)
		many[i] = "x";
	many[39] = NULL;
	errno = 0;
	ck_assert_int_eq(pm_fin_run("echo", many, 10, &out, &len, &status), -1);
	ck_assert_int_eq(errno, E2BIG);
	many[30] = NULL; /* the command and 30 arguments: the most it takes */
	ck_assert_int_eq(pm_fin_run("echo", many, 10, &out, &len, &status), 0);
	ck_assert_uint_eq(len, 30 * 2);
	free(out);
}
END_TEST

START_TEST(claim_prevents_two_merges)
{
	struct pm_finalize_result r;
	struct timeval old[2];

	pmt_put(D, "expected", "gpu016\n", 0644);
	bundle("gpu016", K16, 1000, false);
	arrive("gpu016");
	pmt_put(D, "merging", "otherhost 1234 0\n", 0644);
	ck_assert_int_eq(fin(false, &r), 1);
	ck_assert_int_eq(r.what, PM_FIN_BUSY);
	ck_assert(!pmt_there(D, "verdict.json"));
	ck_assert(!pmt_there(D, "manifest.json"));

	/* a claim older than PM_CLAIM_STALE was left by a merger that died: taken over */
	old[0].tv_sec = old[1].tv_sec = time(NULL) - (time_t)PM_CLAIM_STALE - 60;
	old[0].tv_usec = old[1].tv_usec = 0;
	char p[600];
	snprintf(p, sizeof(p), "%s/merging", D);
	ck_assert_int_eq(utimes(p, old), 0);
	ck_assert_int_eq(fin(false, &r), 0);
	ck_assert_int_eq(r.what, PM_FIN_MERGED);
	ck_assert(pmt_there(D, "verdict.json"));
	ck_assert(!pmt_there(D, "merging"));
}
END_TEST

START_TEST(timer_forces_missing_node)
{
	struct pm_finalize_result r;
	json_t *m;

	bundle("gpu016", K16, 1000, false);
	arrive("gpu016");
	ck_assert_int_eq(fin(false, &r), 1);
	ck_assert_int_eq(pm_finalize_due(D, 600, (double)time(NULL)), PM_DUE_NOTHING);
	ck_assert_int_eq(pm_finalize_due(D, 600, (double)time(NULL) + 700), PM_DUE_FORCE);
	ck_assert_int_eq(fin(true, &r), 0);
	m = pmt_load(D, "manifest.json");
	ck_assert(!json_is_true(json_object_get(m, "provisional")));
	ck_assert_str_eq(jstr(json_array_get(json_object_get(json_object_get(m, "nodes"), "missing"),
					     0),
			      "reason"),
			 PM_MISSING_REASON);
	json_decref(m);
	ck_assert_int_eq(pm_finalize_due(D, 600, (double)time(NULL) + 700), PM_DUE_NOTHING);

	/* the missing node's evidence comes late: the timer sees it and merges again */
	bundle("gpu017", K17, 1000, false);
	ck_assert_int_eq(pm_finalize_due(D, 600, (double)time(NULL)), PM_DUE_FORCE);
	ck_assert_int_eq(fin(true, &r), 0);
	ck_assert_int_eq(r.what, PM_FIN_MERGED);
	ck_assert_int_eq(r.present, 2);
}
END_TEST

/*
 * From the timer there is no job environment: Slurm's record is asked for the job of the
 * owner the bundle's manifest names (job ids come back; sacct -j N alone gives whoever's job
 * last had the number).
 */
START_TEST(timer_sacct_asks_owner)
{
	struct pm_finalize_result r;
	char *log;

	bundle("gpu016", K16, 1000, false);
	arrive("gpu016");
	ck_assert_int_eq(fin(false, &r), 1);
	log = pmt_get(T, "sacct.log");
	ck_assert_ptr_nonnull(log);
	ck_assert_msg(!strncmp(log, "-P -j 4242 -u 1000 -o ", 22), "%s", log);
	free(log);
}
END_TEST

/* Every line of LOG that reads the comment back (-o Comment) names owner 1000; how many. */
static int comment_reads_of_owner(const char *log)
{
	int n = 0;

	for (const char *l = log; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
		size_t len = strcspn(l, "\n");

		if (!memmem(l, len, "-o Comment", 10))
			continue;
		ck_assert_msg(!strncmp(l, "-P -X -n -j 4242 -u 1000 -o Comment", 35), "%.*s",
			      (int)len, l);
		n++;
	}
	return n;
}

/* From the timer the comment is read back as the owner's job too (sacct -j N -u UID), in
 * the run that sets it and in a retry of a pending one: not another user's job of that id. */
START_TEST(timer_comment_asks_owner)
{
	struct pm_finalize_result r;
	struct pm_finalize_opts o = {.budget = 0.5};
	char err[256], *log;

	pmt_put(T, "mgr.fails", "1000\n", 0644);
	pmt_put(D, "expected", "gpu017\n", 0644);
	bundle("gpu017", K17, 1000, false);
	arrive("gpu017");
	ck_assert_int_eq(pm_finalize_ex(&cfg, D, &o, &r, err, sizeof(err)), 0);
	ck_assert_int_eq(r.comment, PM_COMMENT_PENDING);
	log = pmt_get(T, "sacct.log");
	ck_assert_int_gt(comment_reads_of_owner(log), 0);
	free(log);

	pmt_put(T, "sacct.log", "", 0644);
	pmt_put(T, "mgr.fails", "0\n", 0644);
	ck_assert_int_eq(pm_finalize_pending(&cfg, D, 5, &r, err, sizeof(err)), 0);
	ck_assert_int_eq(r.comment, PM_COMMENT_SET);
	log = pmt_get(T, "sacct.log");
	ck_assert_int_gt(comment_reads_of_owner(log), 0);
	free(log);
}
END_TEST

START_TEST(jobstats_admincomment_kept)
{
	struct pm_finalize_result r;
	char *line, *log, *want, *js;

	free(cfg.comment_field);
	cfg.comment_field = strdup("AdminComment");
	pmt_put(T, "db.AdminComment", "JS1:eyJncHVzIjogOH0=\n", 0644);
	pmt_put(D, "expected", "gpu016\ngpu017\n", 0644);
	bundle("gpu016", K16, 1000, false);
	bundle("gpu017", K17, 1000, false);
	arrive("gpu016");
	arrive("gpu017");
	ck_assert_int_eq(fin(false, &r), 0);
	ck_assert_int_eq(r.comment, PM_COMMENT_SET);
	line = expected_line();
	ck_assert_int_ge(asprintf(&want,
				  "[-i][modify][job][where][jobid=4242][user=1000][set]"
				  "[Comment=\"%s\"]\n",
				  line),
			 0);
	log = pmt_get(T, "sacctmgr.log");
	ck_assert_str_eq(log, want);
	js = pmt_get(T, "db.AdminComment");
	ck_assert_str_eq(js, "JS1:eyJncHVzIjogOH0=\n");
	free(js), free(log), free(want), free(line);
}
END_TEST

START_TEST(pending_comment_retried)
{
	struct pm_finalize_result r;
	struct pm_finalize_opts o = {.budget = 0.5};
	char err[256], *pend, *line, *want;

	pmt_put(T, "mgr.fails", "1000\n", 0644);
	pmt_put(D, "expected", "gpu017\n", 0644);
	bundle("gpu017", K17, 1000, false);
	arrive("gpu017");
	ck_assert_int_eq(pm_finalize_ex(&cfg, D, &o, &r, err, sizeof(err)), 0);
	ck_assert_int_eq(r.comment, PM_COMMENT_PENDING);
	ck_assert_ptr_nonnull(strstr(r.comment_why, "Nothing modified"));
	line = expected_line();
	ck_assert_int_ge(asprintf(&want, "Comment\t%s\n", line), 0);
	pend = pmt_get(D, "comment.pending");
	ck_assert_str_eq(pend, want);
	ck_assert_int_eq(pm_finalize_due(D, 600, (double)time(NULL)), PM_DUE_COMMENT);

	/* slurmdbd has the record now: `postmortem finalize --pending` */
	pmt_put(T, "mgr.fails", "0\n", 0644);
	ck_assert_int_eq(pm_finalize_pending(&cfg, D, 5, &r, err, sizeof(err)), 0);
	ck_assert_int_eq(r.comment, PM_COMMENT_SET);
	ck_assert(!pmt_there(D, "comment.pending"));
	char *done = pmt_get(D, "comment");
	ck_assert_str_eq(done, want);
	ck_assert_int_eq(pm_finalize_due(D, 600, (double)time(NULL)), PM_DUE_NOTHING);
	free(done), free(pend), free(line), free(want);
}
END_TEST

START_TEST(comment_already_there)
{
	struct pm_finalize_result r;
	json_t *v;
	char *line, *db;

	/* the record already holds exactly our line (a finalizer that died before noting it) */
	pmt_put(D, "expected", "gpu017\n", 0644);
	bundle("gpu017", K17, 1000, false);
	arrive("gpu017");
	pmt_put(T, "mgr.fails", "1000\n", 0644);
	struct pm_finalize_opts o = {.budget = 0.3};
	char err[256];
	ck_assert_int_eq(pm_finalize_ex(&cfg, D, &o, &r, err, sizeof(err)), 0);
	v = pmt_load(D, "verdict.json");
	line = pm_comment_line(v, "lab", "4242", "0");
	ck_assert_int_ge(asprintf(&db, "user words | %s\n", line), 0);
	pmt_put(T, "db.Comment", db, 0644);
	char p[700];
	snprintf(p, sizeof(p), "%s/sacctmgr.log", T);
	unlink(p);
	ck_assert_int_eq(pm_finalize_pending(&cfg, D, 1, &r, err, sizeof(err)), 0);
	ck_assert_int_eq(r.comment, PM_COMMENT_ALREADY);
	ck_assert(!pmt_there(T, "sacctmgr.log"));
	json_decref(v);
	free(line), free(db);
}
END_TEST

/* A user's comment of any length stays in front of ours, and ours arrives whole: the value
 * handed to sacctmgr was cut at 1 KiB, our line and its closing quote with it. */
START_TEST(comment_after_long_user_comment)
{
	struct pm_finalize_result r;
	char user[1501], *line, *want, *db;

	memset(user, 'w', sizeof(user) - 1);
	user[sizeof(user) - 1] = '\0';
	ck_assert_int_ge(asprintf(&db, "%s\n", user), 0);
	pmt_put(T, "db.Comment", db, 0644);
	free(db);
	pmt_put(D, "expected", "gpu017\n", 0644);
	bundle("gpu017", K17, 1000, false);
	arrive("gpu017");
	ck_assert_int_eq(fin(false, &r), 0);
	ck_assert_msg(r.comment == PM_COMMENT_SET, "comment %d: %s", (int)r.comment, r.comment_why);
	line = expected_line();
	ck_assert_int_ge(asprintf(&want, "%s | %s\n", user, line), 0);
	db = pmt_get(T, "db.Comment");
	ck_assert_str_eq(db, want);
	free(line), free(want), free(db);
}
END_TEST

/* ---- pure helpers ---- */

START_TEST(compose)
{
	static const struct {
		const char *cur, *line, *want;
	} c[] = {
		{"", "postmortem: x", "postmortem: x"},
		{"my run", "postmortem: x", "my run | postmortem: x"},
		{"my run | postmortem: old", "postmortem: x", "my run | postmortem: x"},
		{"postmortem: old", "postmortem: x", "postmortem: x"},
		{"a | postmortem: o1 | postmortem: o2", "postmortem: x", "a | postmortem: x"},
		{"my run | postmortem: old", "", "my run"},
		{"postmortem: old", "", ""},
		{"a|b", "postmortem: x", "a|b | postmortem: x"},
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char *s = pm_comment_compose(c[i].cur, c[i].line);
		ck_assert_str_eq(s, c[i].want);
		free(s);
	}
	ck_assert(pm_comment_is_jobstats("JS1:abc"));
	ck_assert(!pm_comment_is_jobstats("user JS1:abc"));
}
END_TEST

/* The comment's checks read two fields of a run's manifest by skimming it: the top-level
 * key only (never one inside a bundle's entry or a string), the last of two, and nothing from
 * a file jansson would refuse. */
START_TEST(manifest_top_skim)
{
	static const struct {
		const char *text, *key, *want; /* want: the value as JSON, NULL none */
	} c[] = {
		{"{\"bundles\":[{\"created\":\"inner\",\"job\":{\"uid\":7}}],\n"
		 "  \"created\": \"2026-12-01T00:00:00Z\" ,\"job\":{\"uid\":1001,\"id\":\"5\"}}\n",
		 "created", "\"2026-12-01T00:00:00Z\""},
		{"{\"bundles\":[{\"created\":\"inner\",\"job\":{\"uid\":7}}],\n"
		 "  \"created\": \"2026-12-01T00:00:00Z\" ,\"job\":{\"uid\":1001,\"id\":\"5\"}}\n",
		 "job", "{\"id\":\"5\",\"uid\":1001}"},
		{"{\"note\":\"a \\\"created\\\": \\\"x\\\", } ]\",\"created\":\"b\"}", "created",
		 "\"b\""},
		{"{\"created\":\"first\",\"created\":\"last\"}", "created", "\"last\""},
		{"{\"n\":[1,2,{\"a\":[]}],\"created\":12}", "created", "12"},
		{"{\"bundles\":[{\"created\":\"inner\"}]}", "created", NULL},
		{"{\"created\":\"cut\",\"bundles\":[{\"a\":1}", "created", NULL},
		{"{\"created\":\"x\"} trailing", "created", NULL},
		{"{\"created\":\"unclosed}", "created", NULL},
		{"[{\"created\":\"x\"}]", "created", NULL},
		{"{\"created\":tru}", "created", NULL},
		{"", "created", NULL},
	};
	char dir[] = "/tmp/pm-mtop-XXXXXX", p[64];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(p, sizeof(p), "%s/manifest.json", dir);
	ck_assert_ptr_null(pm_fin_manifest_top(dir, "created")); /* no file */
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		FILE *f = fopen(p, "w");
		json_t *v;

		ck_assert_ptr_nonnull(f);
		fputs(c[i].text, f);
		fclose(f);
		v = pm_fin_manifest_top(dir, c[i].key);
		if (!c[i].want) {
			ck_assert_msg(!v, "case %zu: a value from a file jansson refuses", i);
			continue;
		}
		ck_assert_msg(v != NULL, "case %zu: no value", i);
		char *got = json_dumps(v, JSON_SORT_KEYS | JSON_COMPACT | JSON_ENCODE_ANY);
		ck_assert_str_eq(got, c[i].want);
		free(got);
		json_decref(v);
	}
	unlink(p);
	rmdir(dir);
}
END_TEST

START_TEST(comment_line_bounded)
{
	json_t *v = json_pack("{s:s,s:s,s:{s:s,s:s},s:{s:[s,s,s,s,s,s,s,s,s,s,s,s,s,s,s,s]},"
			      "s:{s:{s:s}},s:{s:s,s:s}}",
			      "status", "attributed", "confidence", "supported", "cause", "class",
			      "gpu_hardware", "subclass", "gpu_lost", "origin", "nodes",
			      "averyveryverylongnodename0001", "averyveryverylongnodename0002",
			      "averyveryverylongnodename0003", "averyveryverylongnodename0004",
			      "averyveryverylongnodename0005", "averyveryverylongnodename0006",
			      "averyveryverylongnodename0007", "averyveryverylongnodename0008",
			      "averyveryverylongnodename0009", "averyveryverylongnodename0010",
			      "averyveryverylongnodename0011", "averyveryverylongnodename0012",
			      "averyveryverylongnodename0013", "averyveryverylongnodename0014",
			      "averyveryverylongnodename0015", "averyveryverylongnodename0016",
			      "decision", "containment", "id", "retry-exclude-node", "job", "id",
			      "4242", "cluster", "lab");
	char *l = pm_comment_line(v, "a-cluster-with-a-long-name", "123456789_1000", "12");

	ck_assert_int_le(strlen(l), PM_COMMENT_MAX);
	ck_assert_str_eq(l + strlen(l) - strlen(" ev=a-cluster-with-a-long-name/123456789_1000/12"),
			 " ev=a-cluster-with-a-long-name/123456789_1000/12");
	free(l);
	json_decref(v);
}
END_TEST

START_TEST(access_decision)
{
	long long g1[] = {100, 2000}, g2[] = {100};

	ck_assert_int_eq(cli_access_decide(0, g2, 1, 1000, 2000), CLI_ROOT);
	ck_assert_int_eq(cli_access_decide(1000, g2, 1, 1000, 2000), CLI_OWNER);
	ck_assert_int_eq(cli_access_decide(1001, g1, 2, 1000, 2000), CLI_OPERATOR);
	ck_assert_int_eq(cli_access_decide(1001, g2, 1, 1000, 2000), CLI_DENIED);
	ck_assert_int_eq(cli_access_decide(1001, g1, 2, 1000, -1), CLI_DENIED);
	ck_assert_int_eq(cli_access_decide(1000, g2, 1, -1, 2000), CLI_DENIED);
	ck_assert_int_eq(cli_access_decide(1001, g1, 2, -1, 2000), CLI_OPERATOR);
}
END_TEST

START_TEST(fetch_verifies)
{
	struct pm_finalize_result r;
	struct pm_fetch_result f;
	char out[600], err[512], *a, *b;

	pmt_put(D, "expected", "gpu016\ngpu017\n", 0644);
	bundle("gpu016", K16, 1000, false);
	bundle("gpu017", K17, 1000, false);
	arrive("gpu016");
	arrive("gpu017");
	ck_assert_int_eq(fin(false, &r), 0);
	snprintf(out, sizeof(out), "%s/out", T);
	ck_assert_msg(pm_jobdir_fetch(D, out, &f, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(f.files, 5);
	ck_assert_int_eq(f.verified, 4);
	a = pmt_get(D, "nodes/gpu017.tar.zst");
	b = pmt_get(out, "nodes/gpu017.tar.zst");
	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(memcmp(a, b, 16), 0);
	free(a), free(b);
	/* into a folder that has them already: refused, nothing overwritten */
	ck_assert_int_eq(pm_jobdir_fetch(D, out, &f, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "empty folder"));

	/* an -o folder that exists with a symbolic link planted as nodes (or as -o itself):
	 * refused, nothing written where the link points */
	char elsewhere[700], link[700];
	snprintf(elsewhere, sizeof(elsewhere), "%s/elsewhere", T);
	ck_assert_int_eq(mkdir(elsewhere, 0777), 0);
	snprintf(out, sizeof(out), "%s/planted", T);
	ck_assert_int_eq(mkdir(out, 0777), 0);
	snprintf(link, sizeof(link), "%s/nodes", out);
	ck_assert_int_eq(symlink(elsewhere, link), 0);
	ck_assert_int_eq(pm_jobdir_fetch(D, out, &f, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "symbolic link"), "%s", err);
	ck_assert(!pmt_there(elsewhere, "gpu016.tar.zst"));
	ck_assert(!pmt_there(elsewhere, "gpu017.tar.zst"));
	snprintf(out, sizeof(out), "%s/planted-o", T);
	ck_assert_int_eq(symlink(elsewhere, out), 0);
	ck_assert_int_eq(pm_jobdir_fetch(D, out, &f, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "symbolic link"), "%s", err);
	ck_assert(!pmt_there(elsewhere, "manifest.json"));

	/* a bundle that no longer matches its checksum is not handed out */
	pmt_put(D, "nodes/gpu016.tar.zst", "tampered", 0644);
	snprintf(out, sizeof(out), "%s/out2", T);
	ck_assert_int_eq(pm_jobdir_fetch(D, out, &f, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "checksum"));
	ck_assert(!pmt_there(out, "nodes/gpu016.tar.zst"));
}
END_TEST

/* Run the built command (as NOBODY when >= 0) and collect its output and exit status. */
static int run_cli(const char *args, uid_t nobody, char *out, size_t outlen)
{
	char cmd[2048];
	int p[2], st = 0;
	size_t n = 0;
	ssize_t k;
	pid_t pid;

	snprintf(cmd, sizeof(cmd), "exec %s/cli/postmortem %s 2>&1", PM_TEST_BUILDDIR, args);
	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		if (nobody != (uid_t)-1 &&
		    (setgroups(0, NULL) < 0 || setgid(nobody) < 0 || setuid(nobody) < 0))
			_exit(99);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(98);
	}
	close(p[1]);
	while (n < outlen - 1 && (k = read(p[0], out + n, outlen - 1 - n)) > 0)
		n += (size_t)k;
	out[n] = '\0';
	close(p[0]);
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

START_TEST(cli_show_and_refusal)
{
	struct pm_finalize_result r;
	char args[1024], out[65536], *v;
	uid_t other = geteuid() == 0 ? 65534 : (uid_t)-1;

	char conf[700];

	pmt_put(T, "pm.yaml", "operators_group: slurmops-test-nonexistent\n", 0644);
	snprintf(conf, sizeof(conf), "%s/pm.yaml", T);
	setenv("POSTMORTEM_CONFIG", conf, 1);
	pmt_put(D, "expected", "gpu017\n", 0644);
	/* the owner is someone else than whoever runs the test */
	bundle("gpu017", K17, geteuid() == 0 ? 4242 : (long long)geteuid() + 1, false);
	arrive("gpu017");
	ck_assert_int_eq(fin(false, &r), 0);

	snprintf(args, sizeof(args), "show 4242 --json --store %s/store", T);
	if (geteuid() == 0) {
		/* root reads everything */
		ck_assert_int_eq(run_cli(args, (uid_t)-1, out, sizeof(out)), 0);
		v = pmt_get(D, "verdict.json");
		ck_assert_str_eq(out, v);
		free(v);
		snprintf(args, sizeof(args), "show 4242 --store %s/store", T);
		ck_assert_int_eq(run_cli(args, (uid_t)-1, out, sizeof(out)), 0);
		ck_assert_ptr_nonnull(strstr(out, "gpu_hardware/gpu_lost"));
		ck_assert_ptr_nonnull(strstr(out, "postmortem fetch 4242 -o DIR"));
		/* the filesystem refuses first: the manifest is 0640 */
		snprintf(args, sizeof(args), "show 4242 --store %s/store", T);
		ck_assert_int_eq(run_cli(args, other, out, sizeof(out)), 1);
		ck_assert_msg(strstr(out, "permissions refuse it"), "%s", out);
		char p[700];
		snprintf(p, sizeof(p), "%s/manifest.json", D);
		chmod(p, 0644);
	}
	/* readable, but not this caller's job: the command refuses */
	ck_assert_int_eq(run_cli(args, other, out, sizeof(out)), 1);
	ck_assert_str_eq(out, "postmortem: job 4242 belongs to another user; ask an operator "
			      "(group slurmops-test-nonexistent)\n");
	snprintf(args, sizeof(args), "show 4243 --store %s/store", T);
	ck_assert_int_eq(run_cli(args, (uid_t)-1, out, sizeof(out)), 1);
	ck_assert_ptr_nonnull(strstr(out, "no evidence for job 4243"));
}
END_TEST

/* A reused id's runs: the text a person reads names the run (4242~2), as typed, not the id
 * the runs share; --json stays the stored bytes. */
START_TEST(cli_show_run_name)
{
	struct pm_finalize_result r;
	char args[1024], cmd[1400], conf[700], d2[600];
	static char out[262144];
	char *v;

	pmt_put(T, "pm.yaml", "operators_group: slurmops\n", 0644);
	snprintf(conf, sizeof(conf), "%s/pm.yaml", T);
	setenv("POSTMORTEM_CONFIG", conf, 1);
	pmt_put(D, "expected", "gpu017\n", 0644);
	bundle("gpu017", K17, (long long)geteuid(), false);
	arrive("gpu017");
	ck_assert_int_eq(fin(false, &r), 0);
	/* the id's second run, as the collector makes it */
	snprintf(d2, sizeof(d2), "%s/store/lab/4242~2", T);
	snprintf(cmd, sizeof(cmd), "cp -a '%s/store/lab/4242' '%s'", T, d2);
	ck_assert_int_eq(system(cmd), 0);

	snprintf(args, sizeof(args), "show 4242~2 --store %s/store", T);
	ck_assert_int_eq(run_cli(args, (uid_t)-1, out, sizeof(out)), 0);
	ck_assert_msg(!strncmp(out, "job 4242~2 on lab: ", 19), "%s", out); /* before: job 4242 */
	snprintf(args, sizeof(args), "show 4242~1 --store %s/store", T);
	ck_assert_int_eq(run_cli(args, (uid_t)-1, out, sizeof(out)), 0);
	ck_assert_msg(!strncmp(out, "job 4242~1 on lab: ", 19), "%s", out);
	/* the bare id is the latest run: named so */
	snprintf(args, sizeof(args), "show 4242 --store %s/store", T);
	ck_assert_int_eq(run_cli(args, (uid_t)-1, out, sizeof(out)), 0);
	ck_assert_msg(!strncmp(out, "job 4242~2 on lab: ", 19), "%s", out);
	snprintf(args, sizeof(args), "show 4242~2 --timeline --store %s/store", T);
	ck_assert_int_eq(run_cli(args, (uid_t)-1, out, sizeof(out)), 0);
	ck_assert_msg(!strncmp(out, "timeline of job 4242~2: ", 24), "%s", out);
	snprintf(args, sizeof(args), "report 4242~2 -o - --store %s/store", T);
	ck_assert_int_eq(run_cli(args, (uid_t)-1, out, sizeof(out)), 0);
	ck_assert_msg(strstr(out, "<title>postmortem: job 4242~2 ") &&
			      strstr(out, "<h1>Job 4242~2 <small>"),
		      "%.600s", out);
	snprintf(args, sizeof(args), "show 4242~2 --json --store %s/store", T);
	ck_assert_int_eq(run_cli(args, (uid_t)-1, out, sizeof(out)), 0);
	v = pmt_get(d2, "0/verdict.json");
	ck_assert_str_eq(out, v);
	free(v);
}
END_TEST

/*
 * A verdict that used the node history: `postmortem diagnose DIR/nodes DIR/sacct.txt` on its
 * fetched copy applies the records the verdict used (its "node_history", the history as it
 * stood at the job's end), as replay does, and gives the stored bytes.
 */
START_TEST(fetched_copy_with_history)
{
	struct pm_finalize_result r;
	struct pm_fetch_result f;
	char p[700], conf[700], args[2048], err[512], *stored;
	static char out[262144];
	size_t at;
	json_t *v;

	pmt_put(T, "pm.yaml", "operators_group: slurmops\n", 0644);
	snprintf(conf, sizeof(conf), "%s/pm.yaml", T);
	setenv("POSTMORTEM_CONFIG", conf, 1);
	bundle("gpu016", K16, 1000, false);
	arrive("gpu016");
	bundle("gpu017", K17, 1000, false);
	arrive("gpu017");
	ck_assert_int_eq(fin(false, &r), 0);
	/* an earlier job on gpu017 */
	v = pmt_load(D, "verdict.json");
	earlier_job_on_gpu017(v);
	json_decref(v);
	ck_assert_int_eq(fin(true, &r), 0);
	v = pmt_load(D, "verdict.json");
	ck_assert(json_is_true(
		json_object_get(json_object_get(json_object_get(v, "decision"), "repair"),
				"justified")));
	json_decref(v);

	snprintf(p, sizeof(p), "%s/out", T);
	ck_assert_msg(pm_jobdir_fetch(D, p, &f, err, sizeof(err)) == 0, "%s", err);
	snprintf(args, sizeof(args), "diagnose --json --rules %s %s/nodes %s/sacct.txt", cfg.rules,
		 p, p);
	ck_assert_int_eq(run_cli(args, (uid_t)-1, out, sizeof(out)), 0);
	stored = pmt_get(D, "verdict.json");
	ck_assert_ptr_nonnull(stored);
	for (at = 0; out[at] && out[at] == stored[at]; at++)
		;
	ck_assert_msg(!out[at] && !stored[at], "differs at byte %zu: [%.80s] stored [%.80s]", at,
		      out + (at > 20 ? at - 20 : 0), stored + (at > 20 ? at - 20 : 0));
	free(stored);
}
END_TEST

/* ---- the merge's time budget ---- */

static void hang(void)
{
	sleep(60); /* a merge that cannot finish: killed at its budget */
}

static int fin_budget(double budget, bool cut_final, struct pm_finalize_result *r)
{
	/* Slurm's budget well above the merge's: the cut merge then asks sacct in the time left
	 * even on a loaded machine (CI saw no scheduler.state once, with load 12, at 5 s) */
	struct pm_finalize_opts o = {.budget = 20,
				     .merge_budget = budget,
				     .cut_final = cut_final,
				     .child_hook = hang};
	char err[512] = "";
	int rc = pm_finalize_ex(&cfg, D, &o, r, err, sizeof(err));

	ck_assert_msg(rc >= 0, "pm_finalize: %s", err);
	return rc;
}

START_TEST(merge_cut_by_deadline)
{
	struct pm_finalize_result r;
	struct timespec t0, t1;
	json_t *m, *v, *x;
	size_t i, cut = 0;

	pmt_put(D, "expected", "gpu016\ngpu017\n", 0644);
	bundle("gpu016", K16, 1000, false);
	bundle("gpu017", K17, 1000, false);
	arrive("gpu016");
	arrive("gpu017");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_eq(fin_budget(2.0, false, &r), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* cut, not waited for (the hang is 60 s; no tighter bound: tests time nothing), with a
	 * provisional verdict, and the claim let go */
	ck_assert_int_lt(t1.tv_sec - t0.tv_sec, 30);
	ck_assert(r.deadline_hit);
	ck_assert_int_eq(r.what, PM_FIN_PROVISIONAL);
	ck_assert(!pmt_there(D, "merging"));
	m = pmt_load(D, "manifest.json");
	ck_assert(json_is_true(json_object_get(m, "provisional")));
	ck_assert(json_is_true(json_object_get(json_object_get(m, "merge"), "deadline_hit")));
	ck_assert_int_eq(json_array_size(json_object_get(json_object_get(m, "merge"), "cut")), 2);
	ck_assert_str_eq(jstr(m, "scheduler.state"), "FAILED"); /* asked by the cut merge */
	json_array_foreach(json_object_get(m, "bundles"), i, x)
		ck_assert_str_eq(jstr(x, "status"), "not_read");
	ck_assert_ptr_nonnull(
		strstr(jstr(json_array_get(json_object_get(json_object_get(m, "nodes"), "missing"),
					   0),
			    "reason"),
		       "merge ran out of time"));
	v = pmt_load(D, "verdict.json");
	ck_assert_str_eq(jstr(v, "outcome"), "FAILED");
	json_array_foreach(json_object_get(v, "coverage"), i,
			   x) if (!strcmp(jstr(x, "source"), "bundle"))
	{
		size_t k;
		json_t *y;
		json_array_foreach(json_object_get(x, "problems"), k, y)
			cut += !strcmp(jstr(y, "status"), "timed_out");
	}
	ck_assert_int_eq(cut, 2);
	ck_assert(!pmt_there(T, "sacctmgr.log")); /* a provisional verdict sets no comment */
	/* the timer merges it again: all nodes are in */
	ck_assert_int_eq(pm_finalize_due(D, 600, (double)time(NULL)), PM_DUE_MERGE);
	json_decref(v);
	json_decref(m);

	/* without the hang, the timer's merge reads every bundle: the Xid on gpu017 */
	ck_assert_int_eq(fin(false, &r), 0);
	ck_assert(!r.deadline_hit);
	m = pmt_load(D, "manifest.json");
	ck_assert(!json_object_get(m, "merge"));
	ck_assert(!json_is_true(json_object_get(m, "provisional")));
	json_decref(m);
	v = pmt_load(D, "verdict.json");
	ck_assert_str_eq(jstr(v, "cause.class"), "gpu_hardware");
	json_decref(v);
}
END_TEST

static void crash(void)
{
	abort(); /* a merge that dies: an engine crash on a hostile bundle */
}

START_TEST(merge_crash_still_gives_verdict)
{
	struct pm_finalize_opts o = {.budget = 5, .merge_budget = 10, .child_hook = crash};
	struct pm_finalize_result r;
	char err[512] = "";
	json_t *m;

	pmt_put(D, "expected", "gpu016\n", 0644);
	bundle("gpu016", K16, 1000, false);
	arrive("gpu016");
	ck_assert_msg(pm_finalize_ex(&cfg, D, &o, &r, err, sizeof(err)) == 0, "%s", err);
	ck_assert(r.merge_died && !r.deadline_hit);
	ck_assert_int_eq(r.what, PM_FIN_PROVISIONAL);
	ck_assert(!pmt_there(D, "merging"));
	m = pmt_load(D, "manifest.json");
	ck_assert(!json_is_true(json_object_get(json_object_get(m, "merge"), "deadline_hit")));
	ck_assert_ptr_nonnull(strstr(jstr(m, "merge.reason"), "the merge failed (Aborted)"));
	ck_assert(pmt_there(D, "verdict.json"));
	json_decref(m);
}
END_TEST

/* A timed merge with two threads loads its rules beside the listing and the claim
 * (finalize.c, rules_start): the set is taken once and destroyed once, a load that fails says
 * why, and a merge that leaves before taking it (a manifest there, a node missing) waits for
 * the load and frees it.  Run under ASan (leaks) and TSan, the three ways of the side thread. */
START_TEST(merge_rules_beside)
{
	struct pm_finalize_opts o = {.budget = 20, .merge_budget = 10, .threads = 2};
	struct pm_finalize_result r;
	char err[512] = "", *rules = cfg.rules;

	pmt_put(D, "expected", "gpu016\ngpu017\n", 0644);
	bundle("gpu016", K16, 1000, false);
	arrive("gpu016");
	/* a rule set that cannot be loaded: the merge fails with the loader's words */
	cfg.rules = (char *)"/nonexistent/rules";
	ck_assert_int_eq(pm_finalize_ex(&cfg, D, &o, &r, err, sizeof(err)), -1);
	cfg.rules = rules;
	ck_assert_ptr_nonnull(strstr(err, "/nonexistent/rules"));
	ck_assert(!pmt_there(D, "merging"));
	/* the first node: a provisional verdict under the rules loaded beside */
	err[0] = '\0';
	ck_assert_msg(pm_finalize_ex(&cfg, D, &o, &r, err, sizeof(err)) == 1, "%s", err);
	ck_assert_int_eq(r.what, PM_FIN_PROVISIONAL);
	ck_assert(pmt_there(D, "verdict.json"));
	/* again with the node still missing: the manifest is there, nothing merged, the rules
	 * loaded beside waited for and freed */
	ck_assert_msg(pm_finalize_ex(&cfg, D, &o, &r, err, sizeof(err)) == 1, "%s", err);
	ck_assert_int_eq(r.what, PM_FIN_WAITING);
	/* the last node: merged, final */
	bundle("gpu017", K17, 1000, false);
	arrive("gpu017");
	ck_assert_msg(pm_finalize_ex(&cfg, D, &o, &r, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(r.what, PM_FIN_MERGED);
	ck_assert(!pmt_there(D, "merging"));
}
END_TEST

START_TEST(timer_cut_is_final)
{
	struct pm_finalize_result r;
	json_t *m;
	char *line, *db, *want;

	pmt_put(D, "expected", "gpu016\n", 0644);
	bundle("gpu016", K16, 1000, false);
	arrive("gpu016");
	ck_assert_int_eq(fin_budget(1.5, true, &r), 0);
	ck_assert(r.deadline_hit);
	ck_assert_int_eq(r.what, PM_FIN_MERGED);
	ck_assert_int_eq(r.comment, PM_COMMENT_SET);
	m = pmt_load(D, "manifest.json");
	ck_assert(!json_is_true(json_object_get(m, "provisional")));
	ck_assert(json_is_true(json_object_get(json_object_get(m, "merge"), "deadline_hit")));
	json_decref(m);
	line = expected_line();
	db = pmt_get(T, "db.Comment");
	ck_assert_int_ge(asprintf(&want, "%s\n", line), 0);
	ck_assert_str_eq(db, want);
	/* recorded, not retried at every walk: the bundle's size is listed */
	ck_assert_int_eq(pm_finalize_due(D, 600, (double)time(NULL)), PM_DUE_NOTHING);
	free(line), free(db), free(want);
}
END_TEST

START_TEST(claim_of_dead_merger_free)
{
	struct pm_finalize_result r;
	char host[64] = "", text[200], what[1024];
	pid_t pid;
	double now = (double)time(NULL);

	gethostname(host, sizeof(host) - 1);
	pmt_put(D, "expected", "gpu016\n", 0644);
	bundle("gpu016", K16, 1000, false);
	arrive("gpu016");
	/* a merger on this host that is gone: its claim is free at once */
	if ((pid = fork()) == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	snprintf(text, sizeof(text), "%s %ld %.0f %.0f\n", host, (long)pid, now, now + 250);
	pmt_put(D, "merging", text, 0644);
	pm_finalize_describe(D, what, sizeof(what));
	ck_assert_msg(strstr(what, "did not finish") && strstr(what, "its merger is gone"), "%s",
		      what);
	ck_assert_int_eq(fin(false, &r), 0);
	ck_assert_int_eq(r.what, PM_FIN_MERGED);
	ck_assert(!pmt_there(D, "merging"));

	/* a merger elsewhere past its stated end: free; before it: busy */
	snprintf(text, sizeof(text), "elsewhere 77 %.0f %.0f\n", now - 100, now - 60);
	pmt_put(D, "merging", text, 0644);
	bundle("gpu016", K17, 1000, false); /* new evidence: the merge writes */
	ck_assert_int_eq(fin(true, &r), 0);
	ck_assert(!pmt_there(D, "merging"));
	snprintf(text, sizeof(text), "elsewhere 77 %.0f %.0f\n", now, now + 100);
	pmt_put(D, "merging", text, 0644);
	ck_assert_int_eq(fin(true, &r), 1);
	ck_assert_int_eq(r.what, PM_FIN_BUSY);
}
END_TEST

START_TEST(describe_unmerged)
{
	char what[1024];

	pm_finalize_describe(D, what, sizeof(what));
	ck_assert_msg(strstr(what, "no node has reported"), "%s", what);
	pmt_put(D, "expected", "gpu016\ngpu017\n", 0644);
	bundle("gpu016", K16, 1000, false);
	bundle("gpu017", K17, 1000, false);
	arrive("gpu016");
	arrive("gpu017");
	/* both reported, the merging collector killed with its claim gone: not "not reported" */
	pm_finalize_describe(D, what, sizeof(what));
	ck_assert_msg(strstr(what, "2 of 2 node(s) reported, but no merge finished"), "%s", what);
	char text[200], host[64] = "";
	gethostname(host, sizeof(host) - 1);
	snprintf(text, sizeof(text), "%s %ld %.0f %.0f\n", host, (long)getpid(), (double)time(NULL),
		 (double)time(NULL) + 30);
	pmt_put(D, "merging", text, 0644);
	pm_finalize_describe(D, what, sizeof(what));
	ck_assert_msg(strstr(what, "a merge is running"), "%s", what);
}
END_TEST

/* ---- the stored verdict is the authority ---- */

START_TEST(config_keys)
{
	struct pm_config c;
	char err[256], p[600];

	pmt_put(T, "pm.yaml", "admin_comment: true\ncomment_recheck: 3d\nmerge_deadline: 90s\n",
		0644);
	snprintf(p, sizeof(p), "%s/pm.yaml", T);
	ck_assert_msg(pm_config_load(p, &c, err, sizeof(err)) == 0, "%s", err);
	ck_assert(c.admin_comment);
	ck_assert(c.comment_recheck == 3 * 86400.0);
	ck_assert(c.merge_deadline == 90.0);
	pm_config_free(&c);
	pmt_put(T, "pm.yaml", "comment_recheck: off\n", 0644);
	ck_assert_msg(pm_config_load(p, &c, err, sizeof(err)) == 0, "%s", err);
	ck_assert(c.comment_recheck == 0 && !c.admin_comment);
	pm_config_free(&c);
	ck_assert_msg(pm_config_load(NULL, &c, err, sizeof(err)) == 0, "%s", err);
	ck_assert(c.comment_recheck == 7 * 86400.0 && c.merge_deadline == 60.0);
	pm_config_free(&c);
	pmt_put(T, "pm.yaml", "admin_comment: maybe\n", 0644);
	ck_assert_int_eq(pm_config_load(p, &c, err, sizeof(err)), -1);
}
END_TEST

Suite *pmt_suite(void)
{
	Suite *s = suite_create("finalize");
	TCase *t = tcase_create("protocol"), *p = tcase_create("pure");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_set_timeout(t, 120);
	tcase_add_test(t, provisional_then_final);
	tcase_add_test(t, provisional_slow_sacct);
	tcase_add_test(t, fetched_copy_reproduces_verdict);
	tcase_add_test(t, node_history_repeats);
	tcase_add_test(t, preloaded_ruleset);
	tcase_add_test(t, slurm_commands_as_root);
	tcase_add_test(t, slurm_command_setup);
	tcase_add_test(t, slurm_command_closed_stdio);
	tcase_add_test(t, slurm_command_stderr_null);
	tcase_add_test(t, slurm_command_too_long);
	tcase_add_test(t, claim_prevents_two_merges);
	tcase_add_test(t, timer_forces_missing_node);
	tcase_add_test(t, timer_sacct_asks_owner);
	tcase_add_test(t, timer_comment_asks_owner);
	tcase_add_test(t, jobstats_admincomment_kept);
	tcase_add_test(t, pending_comment_retried);
	tcase_add_test(t, comment_already_there);
	tcase_add_test(t, comment_after_long_user_comment);
	tcase_add_test(t, fetch_verifies);
	tcase_add_test(t, cli_show_and_refusal);
	tcase_add_test(t, cli_show_run_name);
	tcase_add_test(t, fetched_copy_with_history);
	tcase_add_test(t, merge_cut_by_deadline);
	tcase_add_test(t, timer_cut_is_final);
	tcase_add_test(t, merge_rules_beside);
	tcase_add_test(t, merge_crash_still_gives_verdict);
	tcase_add_test(t, claim_of_dead_merger_free);
	tcase_add_test(t, describe_unmerged);
	finalize_recheck_tests(t);
	tcase_add_test(t, config_keys);
	suite_add_tcase(s, t);
	tcase_add_test(p, compose);
	tcase_add_test(p, manifest_top_skim);
	tcase_add_test(p, comment_line_bounded);
	tcase_add_test(p, access_decision);
	suite_add_tcase(s, p);
	return s;
}
