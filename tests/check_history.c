/*
 * check_history.c - the node history (store/history.h) against a temporary store: what is
 * recorded and what is not, many writers at once, reading a node and the fleet, the ledger's
 * refutations, the policy, and a verdict left byte for byte as it was without history.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "finalize_int.h"
#include "history.h"
#include "postmortem.h"
#include "support.h"

static char T[256];
static char store[300];

#define DAY 86400.0
#define T0 4102444800.0 /* 2100-01-01: after the records' write time (the clock's now) */

/* A verdict blaming NODE with class CLS from trusted (or the job's own) evidence. */
static json_t *verdict(const char *node, const char *cls, bool trusted)
{
	json_t *v = json_pack(
		"{s:s,s:{s:s,s:s},s:s,s:{s:[s]},s:[{s:s,s:b,s:s,s:s}],s:{s:{s:b,s:s}},s:s}",
		"status", "attributed", "cause", "class", cls, "subclass", "gpu_lost", "confidence",
		"established", "origin", "nodes", node, "evidence", "role", "origin", "trusted",
		trusted, "node", node, "class", cls, "decision", "repair", "justified", 0, "action",
		"drain", "input_digest", "sha256:00");
	ck_assert_ptr_nonnull(v);
	return v;
}

static void run_dir(char *out, size_t len, const char *job, int restart)
{
	char cmd[700];

	snprintf(out, len, "%s/lab/%s/%d", store, job, restart);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", out);
	ck_assert_int_eq(system(cmd), 0);
}

static int record(const char *job, int restart, const char *node, const char *cls, bool trusted,
		  double t)
{
	char d[600], err[256] = "";
	json_t *v = verdict(node, cls, trusted);
	int rc;

	run_dir(d, sizeof(d), job, restart);
	rc = pm_history_record(store, d, v, t, 1000, t + 14 * DAY, err, sizeof(err));
	ck_assert_msg(rc >= 0, "%s", err);
	json_decref(v);
	return rc;
}

static int count_cb(const struct pm_history_rec *r, void *arg)
{
	(void)r;
	++*(size_t *)arg;
	return 0;
}

static size_t node_count(const char *node, double since)
{
	size_t n = 0;
	char err[256] = "";

	ck_assert_msg(pm_history_node(store, node, since, 0, 0, NULL, count_cb, &n, err,
				      sizeof(err)) == 0,
		      "%s", err);
	return n;
}

static void setup(void)
{
	snprintf(T, sizeof(T), "%s/pmhist.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(T));
	snprintf(store, sizeof(store), "%s/store", T);
	ck_assert_int_eq(mkdir(store, 0755), 0);
}

static void teardown(void)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", T);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", T);
}

START_TEST(trusted_origin_only)
{
	json_t *v = verdict("n2", "gpu_hardware", false);
	char **n = pm_history_origin_nodes(v);

	ck_assert_ptr_null(n); /* the job's own output names the node: a hypothesis */
	json_decref(v);
	ck_assert_int_eq(record("100", 0, "n2", "gpu_hardware", false, T0), 0);
	ck_assert_int_eq(node_count("n2", 0), 0);
	ck_assert_int_eq(record("101", 0, "n2", "gpu_hardware", true, T0), 1);
	ck_assert_int_eq(node_count("n2", 0), 1);
	/* an ambiguous verdict records nothing */
	v = verdict("n3", "gpu_hardware", true);
	json_object_set_new(v, "status", json_string("ambiguous"));
	ck_assert_ptr_null(pm_history_origin_nodes(v));
	json_decref(v);
}
END_TEST

START_TEST(rewrite_and_forget)
{
	char d[600], err[256];
	json_t *v;

	ck_assert_int_eq(record("200", 0, "n2", "gpu_hardware", true, T0), 1);
	/* merged again: the same record replaced, not doubled */
	ck_assert_int_eq(record("200", 0, "n2", "gpu_hardware", true, T0), 1);
	ck_assert_int_eq(node_count("n2", 0), 1);
	/* merged again blaming another node: the old node's record goes */
	ck_assert_int_eq(record("200", 0, "n3", "gpu_hardware", true, T0), 1);
	ck_assert_int_eq(node_count("n2", 0), 0);
	ck_assert_int_eq(node_count("n3", 0), 1);
	/* merged again with no trusted origin: nothing left */
	run_dir(d, sizeof(d), "200", 0);
	v = verdict("n3", "gpu_hardware", false);
	ck_assert_int_eq(pm_history_record(store, d, v, T0, 1000, 0, err, sizeof(err)), 0);
	json_decref(v);
	ck_assert_int_eq(node_count("n3", 0), 0);
	/* expire: the records go with the run */
	ck_assert_int_eq(record("201", 0, "n4", "gpu_hardware", true, T0), 1);
	run_dir(d, sizeof(d), "201", 0);
	ck_assert_int_eq(pm_history_forget(store, d, err, sizeof(err)), 1);
	ck_assert_int_eq(node_count("n4", 0), 0);
}
END_TEST

/* 32 writers (processes) at once, each its own runs, all on the same two nodes */
START_TEST(many_writers)
{
	enum { W = 32, EACH = 8 };
	pid_t pid[W];
	DIR *dir;
	struct dirent *de;
	char p[600];
	size_t stray = 0;

	for (int w = 0; w < W; w++) {
		if ((pid[w] = fork()) == 0) {
			for (int k = 0; k < EACH; k++) {
				char job[32], d[600], err[256], cmd[700];
				json_t *v = verdict(k % 2 ? "n2" : "n7", "gpu_hardware", true);
				snprintf(job, sizeof(job), "%d", 1000 + w * EACH + k);
				snprintf(d, sizeof(d), "%s/lab/%s/0", store, job);
				snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", d);
				if (system(cmd) != 0 || pm_history_record(store, d, v, T0 + k, 1000,
									  0, err, sizeof(err)) != 1)
					_exit(1);
				json_decref(v);
			}
			_exit(0);
		}
	}
	for (int w = 0; w < W; w++) {
		int st;
		ck_assert_int_eq(waitpid(pid[w], &st, 0), pid[w]);
		ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	ck_assert_int_eq(node_count("n2", 0), W * EACH / 2);
	ck_assert_int_eq(node_count("n7", 0), W * EACH / 2);
	snprintf(p, sizeof(p), "%s/%s/n2/2100-01-01", store, PM_HISTORY_DIR);
	ck_assert_ptr_nonnull(dir = opendir(p));
	while ((de = readdir(dir)))
		stray += de->d_name[0] == '.' && strcmp(de->d_name, ".") &&
			 strcmp(de->d_name, "..");
	closedir(dir);
	ck_assert_int_eq(stray, 0); /* no temporary file left behind */
}
END_TEST

struct fleet {
	size_t nodes, recs;
	char first[64];
};

static int fleet_cb(const char *node, const struct pm_history_rec *r, size_t n, void *arg)
{
	struct fleet *f = arg;

	(void)r;
	if (!f->nodes++)
		snprintf(f->first, sizeof(f->first), "%s", node);
	f->recs += n;
	return 0;
}

START_TEST(window_and_fleet)
{
	struct fleet f = {0};
	char err[256] = "";

	record("300", 0, "n2", "gpu_hardware", true, T0 - 10 * DAY);
	record("301", 0, "n2", "gpu_hardware", true, T0 - DAY);
	record("302", 0, "n1", "gpu_hardware", true, T0);
	ck_assert_int_eq(node_count("n2", T0 - 7 * DAY), 1);
	ck_assert_int_eq(pm_history_fleet(store, T0 - 7 * DAY, 0, 0, NULL, fleet_cb, &f, err,
					  sizeof(err)),
			 0);
	ck_assert_int_eq(f.nodes, 2);
	ck_assert_int_eq(f.recs, 2);
	ck_assert_str_eq(f.first, "n1");
	/* expired records are not read */
	f = (struct fleet){0};
	ck_assert_int_eq(pm_history_fleet(store, 0, 0, T0 + 30 * DAY, NULL, fleet_cb, &f, err,
					  sizeof(err)),
			 0);
	ck_assert_int_eq(f.recs, 0);
	/* a store without history */
	snprintf(store, sizeof(store), "%s/none", T);
	ck_assert_int_eq(node_count("n2", 0), 0);
}
END_TEST

static void ledger(const char *lines)
{
	char p[400];
	FILE *f;

	snprintf(p, sizeof(p), "%s/ledger.jsonl", store);
	ck_assert_ptr_nonnull(f = fopen(p, "w"));
	fputs(lines, f);
	fclose(f);
}

/* the verdict of run JOB/0 at time T, with the history applied; returns pm_history_apply's */
static int judge(const char *job, double t, json_t **out)
{
	struct pm_history_policy pol;
	struct pm_history_rec *r = NULL;
	size_t n = 0;
	char run[64], l[400], err[256] = "";
	json_t *v = verdict("n2", "gpu_hardware", true);
	int rc;

	pm_history_policy_default(&pol);
	snprintf(run, sizeof(run), "lab/%s/0", job);
	snprintf(l, sizeof(l), "%s/ledger.jsonl", store);
	ck_assert_msg(pm_history_gather(store, l, v, run, t, &pol, &r, &n, err, sizeof(err)) == 0,
		      "%s", err);
	rc = pm_history_apply(v, run, r, n, &pol);
	free(r);
	*out = v;
	return rc;
}

START_TEST(repeats_justify)
{
	json_t *v, *rep, *plain = verdict("n2", "gpu_hardware", true);
	char *a, *b;

	/* the first: no history, the verdict exactly as the engine gave it */
	ck_assert_int_eq(judge("400", T0, &v), 0);
	a = json_dumps(v, JSON_SORT_KEYS);
	b = json_dumps(plain, JSON_SORT_KEYS);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	json_decref(v);
	record("400", 0, "n2", "gpu_hardware", true, T0);
	/* its own requeued run is the same job: no repeat */
	ck_assert_int_eq(judge("400", T0 + 60, &v), 0);
	json_decref(v);
	/* the second job: justified, names the first, digest covers the history */
	ck_assert_int_eq(judge("401", T0 + 3600, &v), 1);
	rep = json_object_get(json_object_get(v, "decision"), "repair");
	ck_assert(json_is_true(json_object_get(rep, "justified")));
	ck_assert_int_eq(json_array_size(json_object_get(rep, "repeats")), 1);
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(rep, "repeats"), 0)),
			 "lab/400/0");
	ck_assert_int_eq(json_array_size(json_object_get(v, "node_history")), 1);
	ck_assert_str_ne(json_string_value(json_object_get(v, "input_digest")), "sha256:00");
	/* the records it used, read back from the verdict, give the same bytes */
	{
		struct pm_history_policy pol;
		struct pm_history_rec *r;
		size_t n;
		json_t *w = verdict("n2", "gpu_hardware", true);
		pm_history_policy_default(&pol);
		ck_assert_int_eq(pm_history_used(v, &r, &n), 0);
		ck_assert_int_eq(n, 1);
		ck_assert_int_eq(pm_history_apply(w, "lab/401/0", r, n, &pol), 1);
		a = json_dumps(v, JSON_SORT_KEYS);
		b = json_dumps(w, JSON_SORT_KEYS);
		ck_assert_str_eq(a, b);
		free(a);
		free(b);
		free(r);
		json_decref(w);
	}
	json_decref(v);
	/* a history from after the job's end is not the one it stood on */
	ck_assert_int_eq(judge("399", T0 - 60, &v), 0);
	json_decref(v);
	/* eight days later the first is out of the window */
	ck_assert_int_eq(judge("402", T0 + 8 * DAY, &v), 0);
	json_decref(v);
	/* the third names both */
	record("401", 0, "n2", "gpu_hardware", true, T0 + 3600);
	ck_assert_int_eq(judge("403", T0 + 7200, &v), 1);
	rep = json_object_get(json_object_get(v, "decision"), "repair");
	ck_assert_int_eq(json_array_size(json_object_get(rep, "repeats")), 2);
	json_decref(v);
	json_decref(plain);
}
END_TEST

START_TEST(refuted_leaves_count)
{
	json_t *v;
	char **r;

	record("500", 0, "n2", "gpu_hardware", true, T0);
	ledger("{\"seq\":1,\"kind\":\"done\",\"job\":\"lab/500/0\"}\n"
	       "{\"seq\":2,\"kind\":\"resolved\",\"job\":\"lab/500/0\",\"result\":\"refuted\"}\n");
	{
		char l[400];
		snprintf(l, sizeof(l), "%s/ledger.jsonl", store);
		ck_assert_ptr_nonnull(r = pm_history_refuted(l));
		ck_assert_str_eq(r[0], "lab/500/0");
		ck_assert_ptr_null(r[1]);
		pm_history_strv_free(r);
		ck_assert_ptr_null(pm_history_refuted(NULL));
	}
	ck_assert_int_eq(judge("501", T0 + 60, &v), 0);
	ck_assert_ptr_null(json_object_get(v, "node_history"));
	json_decref(v);
	/* its last resolution counts: precaution_not_needed puts it back */
	ledger("{\"seq\":2,\"kind\":\"resolved\",\"job\":\"lab/500/0\",\"result\":\"refuted\"}\n"
	       "{\"seq\":3,\"kind\":\"resolved\",\"job\":\"lab/500/0\","
	       "\"result\":\"precaution_not_needed\"}\n");
	ck_assert_int_eq(judge("501", T0 + 60, &v), 1);
	json_decref(v);
}
END_TEST

START_TEST(policy_counts)
{
	struct pm_history_policy pol = {.jobs = 3, .window = 7 * DAY};
	struct pm_history_rec r[3] = {0};
	char **by = NULL;

	for (int i = 0; i < 3; i++) {
		snprintf(r[i].run, sizeof(r[i].run), "lab/%d/0", 600 + i);
		snprintf(r[i].node, sizeof(r[i].node), "n2");
		snprintf(r[i].cls, sizeof(r[i].cls), "gpu_hardware");
		r[i].hardware = true;
		r[i].time = T0 + i * DAY;
	}
	ck_assert(pm_history_justified(r, 3, NULL, &pol, &by));
	ck_assert_str_eq(by[0], "lab/600/0");
	ck_assert_ptr_nonnull(by[2]);
	pm_history_strv_free(by);
	r[1].refuted = true;
	ck_assert(!pm_history_justified(r, 3, NULL, &pol, NULL));
	r[1].refuted = false;
	snprintf(r[1].run, sizeof(r[1].run), "lab/600/1"); /* a requeued run: the same job */
	ck_assert(!pm_history_justified(r, 3, "gpu_hardware", &pol, NULL));
	pol.jobs = 2;
	ck_assert(pm_history_justified(r, 3, "gpu_hardware", &pol, NULL));
	ck_assert(!pm_history_justified(r, 3, "host_hardware", &pol, NULL));
}
END_TEST

/* a node failing in every job: the verdict names 16 earlier jobs, not all of them */
START_TEST(used_bounded)
{
	json_t *v;

	for (int i = 0; i < 20; i++) {
		char job[16];
		snprintf(job, sizeof(job), "%d", 700 + i);
		record(job, 0, "n2", "gpu_hardware", true, T0 + i * 60);
	}
	ck_assert_int_eq(judge("799", T0 + 3600, &v), 1);
	ck_assert_int_eq(json_array_size(json_object_get(v, "node_history")), PM_HISTORY_USED_MAX);
	ck_assert_str_eq(json_string_value(json_object_get(
				 json_array_get(json_object_get(v, "node_history"), 0), "run")),
			 "lab/704/0"); /* the latest sixteen: 704 to 719 */
	json_decref(v);
}
END_TEST

/* Write record file NAME of NODE holding LEN bytes of TEXT, as another writer might have. */
static void raw_record(const char *node, const char *name, const char *text, size_t len)
{
	char p[600];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", store, PM_HISTORY_DIR);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/%s/%s", store, PM_HISTORY_DIR, node);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/%s/%s/%s", store, PM_HISTORY_DIR, node, name);
	ck_assert_ptr_nonnull(f = fopen(p, "w"));
	ck_assert_uint_eq(fwrite(text, 1, len, f), len);
	fclose(f);
}

static void rec_file(const char *node, const char *name, const char *text)
{
	raw_record(node, name, text, strlen(text));
}

/* Write n2's gpu_lost record of lab/JOB/0 at TIME (EXPIRES 0: never) in the flat folder, as
 * an earlier version or another writer might have, its file named for NAMED (into NAME). */
static void flat_gpu_lost(char *name, size_t len, const char *job, double named, double expires,
			  double time)
{
	char text[400];

	snprintf(name, len, "%010lld.lab.%s.0.json", (long long)named, job);
	snprintf(text, sizeof(text),
		 "{\"class\":\"gpu_hardware\",\"confidence\":\"established\",\"expires\":%lld,"
		 "\"node\":\"n2\",\"run\":\"lab/%s/0\",\"schema\":\"postmortem.history/1\","
		 "\"subclass\":\"gpu_lost\",\"time\":%lld,\"uid\":7}\n",
		 (long long)expires, job, (long long)time);
	rec_file("n2", name, text);
}

/* The path of NODE's record NAME in its day folder (the day of T0 and the next few hours), or
 * (FLAT) where versions before the day folders wrote it. */
static void rec_at(char *p, size_t len, const char *node, const char *name, bool flat)
{
	snprintf(p, len, "%s/%s/%s/%s%s", store, PM_HISTORY_DIR, node, flat ? "" : "2100-01-01/",
		 name);
}

/* Set the mtime of NODE's record NAME to T (the store's clock at its write). */
static void rec_mtime(const char *node, const char *name, bool flat, double t)
{
	char p[700];
	struct timespec ts[2] = {{.tv_nsec = UTIME_OMIT}, {.tv_sec = (time_t)t}};

	rec_at(p, sizeof(p), node, name, flat);
	ck_assert_int_eq(utimensat(AT_FDCWD, p, ts, 0), 0);
}

static double rec_mtime_of(const char *node, const char *name, bool flat)
{
	char p[700];
	struct stat st;

	rec_at(p, sizeof(p), node, name, flat);
	ck_assert_msg(stat(p, &st) == 0, "%s: %s", p, strerror(errno));
	return (double)st.st_mtime;
}

static bool used_has(const json_t *v, const char *run)
{
	const json_t *e;
	size_t i;

	json_array_foreach(json_object_get(v, "node_history"), i,
			   e) if (!strcmp(json_string_value(json_object_get(e, "run")),
					  run)) return true;
	return false;
}

/* a finalizer reads a node newest first and opens no file of an older job once it has the 16
 * latest: this one's name is old (its content says otherwise, as no writer would), so it is
 * not read at all; nor is an older day's folder listed */
START_TEST(latest_first)
{
	const double B = T0 + 3 * 3600; /* the records' day is T0's */
	char name[100];
	json_t *v;

	for (int i = 0; i < 20; i++) {
		char job[16];
		snprintf(job, sizeof(job), "%d", 700 + i);
		record(job, 0, "n2", "gpu_hardware", true, B + i * 60);
	}
	flat_gpu_lost(name, sizeof(name), "650", B - 3600, 0, B + 1800);
	ck_assert_int_eq(judge("799", B + 3600, &v), 1);
	ck_assert_int_eq(json_array_size(json_object_get(v, "node_history")), PM_HISTORY_USED_MAX);
	ck_assert(!used_has(v, "lab/650/0"));
	ck_assert(used_has(v, "lab/704/0") && used_has(v, "lab/719/0"));
	json_decref(v);
	/* an older record of a job among the latest, the same day, is still read */
	flat_gpu_lost(name, sizeof(name), "719", B - 7200, 0, B - 7200);
	ck_assert_int_eq(judge("799", B + 3600, &v), 1);
	ck_assert_int_eq(json_array_size(json_object_get(v, "node_history")),
			 PM_HISTORY_USED_MAX + 1);
	json_decref(v);
	/* one the day before: that day's folder is not listed once the 16 are in */
	flat_gpu_lost(name, sizeof(name), "718", T0 - 7200, 0, T0 - 7200);
	ck_assert_int_eq(judge("799", B + 3600, &v), 1);
	ck_assert_int_eq(json_array_size(json_object_get(v, "node_history")),
			 PM_HISTORY_USED_MAX + 1);
	json_decref(v);
	ck_assert_int_eq(node_count("n2", 0), 23); /* all there for `postmortem nodes` */
}
END_TEST

static bool exists(const char *p)
{
	struct stat st;

	return lstat(p, &st) == 0;
}

/* a folder per day (UTC) under the node's; records of earlier versions, flat in the node's
 * folder, are read too, move into their day folder when their run is recorded again or the
 * history is swept, and expire removes emptied day folders */
START_TEST(day_folders)
{
	char p[700], name[100], d[600], err[256] = "";
	json_t *v;

	record("1000", 0, "n2", "gpu_hardware", true, T0 + 60);
	snprintf(name, sizeof(name), "%010lld.lab.1000.0.json", (long long)(T0 + 60));
	rec_at(p, sizeof(p), "n2", name, false);
	ck_assert_msg(exists(p), "%s", p);
	record("1001", 0, "n2", "gpu_hardware", true, T0 - 60); /* the day before */
	snprintf(p, sizeof(p), "%s/%s/n2/2099-12-31/%010lld.lab.1001.0.json", store, PM_HISTORY_DIR,
		 (long long)(T0 - 60));
	ck_assert_msg(exists(p), "%s", p);
	/* an earlier version's flat record */
	flat_gpu_lost(name, sizeof(name), "1002", T0 + 120, T0 + 14 * DAY, T0 + 120);
	rec_mtime("n2", name, true, T0 - 3600);
	ck_assert_int_eq(node_count("n2", 0), 3);
	ck_assert_int_eq(node_count("n2", T0), 2);
	ck_assert_int_eq(judge("1099", T0 + 3600, &v), 1);
	ck_assert(used_has(v, "lab/1000/0") && used_has(v, "lab/1001/0") &&
		  used_has(v, "lab/1002/0"));
	json_decref(v);
	/* the sweep moves it into its day folder, its mtime kept */
	ck_assert_int_eq(pm_history_sweep(store, T0, err, sizeof(err)), 0);
	rec_at(p, sizeof(p), "n2", name, true);
	ck_assert(!exists(p));
	ck_assert(rec_mtime_of("n2", name, false) == T0 - 3600);
	ck_assert_int_eq(node_count("n2", 0), 3);
	/* another flat one, its run recorded again: moved, its mtime kept */
	snprintf(name, sizeof(name), "%010lld.lab.1003.0.json", (long long)(T0 + 180));
	rec_file("n2", name, "{}\n");
	rec_mtime("n2", name, true, T0 - 1800);
	record("1003", 0, "n2", "gpu_hardware", true, T0 + 180);
	rec_at(p, sizeof(p), "n2", name, true);
	ck_assert(!exists(p));
	ck_assert(rec_mtime_of("n2", name, false) == T0 - 1800);
	ck_assert_int_eq(node_count("n2", 0), 4);
	/* expire: the run's record goes, and its day folder when that empties it */
	run_dir(d, sizeof(d), "1001", 0);
	ck_assert_int_eq(pm_history_forget(store, d, err, sizeof(err)), 1);
	snprintf(p, sizeof(p), "%s/%s/n2/2099-12-31", store, PM_HISTORY_DIR);
	ck_assert(!exists(p));
	/* the sweep removes what expired, then the emptied folders */
	ck_assert_int_eq(pm_history_sweep(store, T0 + 30 * DAY, err, sizeof(err)), 3);
	snprintf(p, sizeof(p), "%s/%s/n2", store, PM_HISTORY_DIR);
	ck_assert(!exists(p));
	/* and a writer makes them again */
	record("1004", 0, "n2", "gpu_hardware", true, T0);
	ck_assert_int_eq(node_count("n2", 0), 1);
}
END_TEST

/* a record counts for a verdict only when it was recorded by that job's end, both by the
 * store's clock: the record file's mtime against the job's end (its `arrivals` file's mtime),
 * whatever the merging host's clock said; a run recorded again keeps its first mtime */
START_TEST(recorded_by_end)
{
	char name[100], text[400];
	json_t *v;

	snprintf(name, sizeof(name), "%010lld.lab.600.0.json", (long long)T0);
	record("600", 0, "n2", "gpu_hardware", true, T0);
	/* the store's clock says the record was written two hours after 600 ended, one after
	 * 601 ended (the merging host's clock was behind) */
	rec_mtime("n2", name, false, T0 + 7200);
	ck_assert_int_eq(judge("601", T0 + 3600, &v), 0);
	ck_assert_ptr_null(json_object_get(v, "node_history"));
	json_decref(v);
	ck_assert_int_eq(judge("601", T0 + 7200, &v), 1);
	json_decref(v);
	/* merged again later: its first mtime stays */
	record("600", 0, "n2", "gpu_hardware", true, T0);
	ck_assert(rec_mtime_of("n2", name, false) == T0 + 7200);
	ck_assert_int_eq(judge("601", T0 + 3600, &v), 0);
	json_decref(v);
	/* a record of an earlier version, its "recorded" by a merging host's clock that was
	 * ahead: the store's clock says it was there before 601 ended, and that counts */
	snprintf(name, sizeof(name), "%010lld.lab.603.0.json", (long long)T0);
	snprintf(text, sizeof(text),
		 "{\"class\":\"gpu_hardware\",\"confidence\":\"established\",\"expires\":0,"
		 "\"node\":\"n2\",\"recorded\":%lld,\"run\":\"lab/603/0\","
		 "\"schema\":\"postmortem.history/1\",\"subclass\":\"gpu_lost\",\"time\":%lld,"
		 "\"uid\":7}\n",
		 (long long)(T0 + 7200), (long long)T0);
	rec_file("n2", name, text);
	rec_mtime("n2", name, true, T0 + 60);
	ck_assert_int_eq(judge("601", T0 + 3600, &v), 1);
	json_decref(v);
	/* and the write itself dates it by the store's clock (now, before T0) */
	record("602", 0, "n2", "gpu_hardware", true, T0 + 10);
	snprintf(name, sizeof(name), "%010lld.lab.602.0.json", (long long)(T0 + 10));
	ck_assert(rec_mtime_of("n2", name, false) <= (double)time(NULL));
}
END_TEST

/* the text verdict names the earlier runs that justified the repair: the latest three */
START_TEST(text_names_repeats)
{
	json_t *v;
	char *t;

	for (int i = 0; i < 5; i++) {
		char job[16];
		snprintf(job, sizeof(job), "%d", 800 + i);
		record(job, 0, "n2", "gpu_hardware", true, T0 + i * 60);
	}
	ck_assert_int_eq(judge("899", T0 + 3600, &v), 1);
	ck_assert_ptr_nonnull(t = pm_verdict_text(v));
	ck_assert_msg(strstr(t, "    repeats on the node: jobs lab/802/0 lab/803/0 lab/804/0 and 2 "
				"more\n"),
		      "%s", t);
	free(t);
	json_decref(v);
}
END_TEST

/* a record or ledger line another writer spelled differently (spaces, escapes) still reads */
START_TEST(parsed_when_not_plain)
{
	char p[600], l[700];
	FILE *f;
	char **r;

	snprintf(p, sizeof(p), "%s/%s/n5", store, PM_HISTORY_DIR);
	snprintf(l, sizeof(l), "%s/%s", store, PM_HISTORY_DIR);
	mkdir(l, 0755);
	mkdir(p, 0755);
	snprintf(l, sizeof(l), "%s/1796000000.lab.900.0.json", p);
	ck_assert_ptr_nonnull(f = fopen(l, "w"));
	fputs("{ \"schema\": \"postmortem.history/1\", \"run\": \"lab/900/0\", \"node\": \"n5\", "
	      "\"class\": \"gpu_hardware\", \"subclass\": \"gpu\\u005flost\", "
	      "\"confidence\": \"established\", \"time\": 1796000000, \"expires\": 0, "
	      "\"uid\": 7 }\n",
	      f);
	fclose(f);
	ck_assert_int_eq(node_count("n5", 0), 1);
	ledger("{\"job\": \"lab/900/0\", \"kind\": \"resolved\", \"result\": \"refuted\", "
	       "\"note\": \"a \\\"quoted\\\" note\"}\n");
	snprintf(l, sizeof(l), "%s/ledger.jsonl", store);
	ck_assert_ptr_nonnull(r = pm_history_refuted(l));
	ck_assert_str_eq(r[0], "lab/900/0");
	pm_history_strv_free(r);
}
END_TEST

/* A record file with no terminator: the plain reader stays within the bytes read (digits that
 * end the buffer were read on past it), and a value holding a NUL or a control byte is not
 * read as a shorter one ("n7<NUL>x" was n7's) but handed to the parser, which refuses it. */

START_TEST(plain_reader_stays_in_record)
{
	static const char head[] = "{\"class\":\"gpu_hardware\",\"confidence\":\"established\","
				   "\"expires\":0,\"node\":\"n6\",\"pad\":\"";
	static const char tail[] = "\",\"run\":\"lab/901/0\",\"schema\":\"postmortem.history/1\","
				   "\"subclass\":\"gpu_lost\",\"uid\":7,\"time\":1796000000";
	static const char nul[] = "{\"class\":\"gpu_hardware\",\"confidence\":\"established\","
				  "\"expires\":0,\"node\":\"n7\0x\",\"run\":\"lab/902/0\","
				  "\"schema\":\"postmortem.history/1\",\"subclass\":\"gpu_lost\","
				  "\"time\":1796000000,\"uid\":7}\n";
	static const char ctl[] =
		"{\"class\":\"gpu_hardware\",\"confidence\":\"established\","
		"\"expires\":0,\"node\":\"n8\",\"run\":\"lab/903/0\","
		"\"schema\":\"postmortem.history/1\",\"subclass\":\"gpu\x01lost\","
		"\"time\":1796000000,\"uid\":7}\n";
	static const char ok[] = "{\"class\":\"gpu_hardware\",\"confidence\":\"established\","
				 "\"expires\":0,\"node\":\"n9\",\"run\":\"lab/904/0\","
				 "\"schema\":\"postmortem.history/1\",\"subclass\":\"gpu_lost\","
				 "\"time\":1796000000,\"uid\":7}\n";
	char rec[4096];
	size_t pad = sizeof(rec) - (sizeof(head) - 1) - (sizeof(tail) - 1);

	/* exactly the reader's 4096 bytes, the last of them the time's digits */
	memcpy(rec, head, sizeof(head) - 1);
	memset(rec + sizeof(head) - 1, 'x', pad);
	memcpy(rec + sizeof(head) - 1 + pad, tail, sizeof(tail) - 1);
	raw_record("n6", "1796000000.lab.901.0.json", rec, sizeof(rec));
	ck_assert_uint_eq(node_count("n6", 0), 0);
	raw_record("n7", "1796000000.lab.902.0.json", nul, sizeof(nul) - 1);
	ck_assert_uint_eq(node_count("n7", 0), 0);
	raw_record("n8", "1796000000.lab.903.0.json", ctl, sizeof(ctl) - 1);
	ck_assert_uint_eq(node_count("n8", 0), 0);
	/* the same record without the NUL is read */
	raw_record("n9", "1796000000.lab.904.0.json", ok, sizeof(ok) - 1);
	ck_assert_uint_eq(node_count("n9", 0), 1);
}
END_TEST

Suite *pmt_suite(void)
{
	Suite *s = suite_create("history");
	TCase *t = tcase_create("store");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_set_timeout(t, 60);
	tcase_add_test(t, trusted_origin_only);
	tcase_add_test(t, rewrite_and_forget);
	tcase_add_test(t, many_writers);
	tcase_add_test(t, window_and_fleet);
	tcase_add_test(t, repeats_justify);
	tcase_add_test(t, refuted_leaves_count);
	tcase_add_test(t, policy_counts);
	tcase_add_test(t, used_bounded);
	tcase_add_test(t, parsed_when_not_plain);
	tcase_add_test(t, plain_reader_stays_in_record);
	tcase_add_test(t, latest_first);
	tcase_add_test(t, recorded_by_end);
	tcase_add_test(t, day_folders);
	tcase_add_test(t, text_names_repeats);
	suite_add_tcase(s, t);
	return s;
}
