/*
 * check_responder_replay.c - the responder suite's replay (revised rule sets: every changed
 * conclusion explained; --apply) and uncertainty (one source removed: never more certain; a
 * lagging stream: more cautious; a competing explanation: ambiguous).
 */

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "finalize.h"
#include "pmutil.h"
#include "store.h"
#include "support.h"
#include "check_responder.h"

/* ---- replay ---- */

/* A copy of the bundled rule set in T/NAME with EDIT applied to FILE's text. */
static void revised_rules(const char *name, const char *file, void (*edit)(char **text))
{
	char d[600], *s;

	snprintf(d, sizeof(d), "%s/%s", T, name);
	sh("mkdir -p %s && cp %s/rules/*.yaml %s/", d, PM_TEST_SRCDIR, d);
	if (!file)
		return;
	ck_assert_ptr_nonnull(s = pmt_get(d, file));
	edit(&s);
	pmt_put(d, file, s, 0644);
	free(s);
}

/* Remove the rule ID (its "  - id: ID" block up to the next blank line) from *TEXT. */
static void drop_rule(char **text, const char *id)
{
	char head[200], *a, *b;

	snprintf(head, sizeof(head), "  - id: %s\n", id);
	ck_assert_ptr_nonnull(a = strstr(*text, head));
	b = strstr(a, "\n\n");
	b = b ? b + 1 : a + strlen(a);
	memmove(a, b, strlen(b) + 1);
}

static void no_xid79(char **text)
{
	drop_rule(text, "xid-79-fallen-off-bus");
	drop_rule(text, "gpu-fallen-off-bus");
}

START_TEST(replay_revised_rules)
{
	struct packed p;
	char rdir[600], args[1600], out[65536];
	json_t *j, *run, *c;

	pack_fixture("gpu-xid79-node2-watchdog-node1", NULL, &p);
	ck_assert_str_eq(pmu_str(p.verdict, "status", "-"), "attributed");
	revised_rules("rules-no-xid79", "gpu.yaml", no_xid79);
	snprintf(rdir, sizeof(rdir), "%s/rules-no-xid79", T);

	/* nothing written without --apply */
	char *before = pmt_get(p.dir, "verdict.json");
	snprintf(args, sizeof(args), "replay --rules %s --json", rdir);
	ck_assert_int_eq(run_cli(args, out, sizeof(out)), 0);
	ck_assert_ptr_nonnull(j = json_loads(out, 0, NULL));
	run = json_array_get(json_object_get(j, "runs"), 0);
	c = json_object_get(run, "changes");
	ck_assert(json_is_true(json_object_get(c, "changed")));
	ck_assert(json_is_true(json_object_get(c, "explained")));
	ck_assert_msg(strstr(pmu_str(c, "why", "-"),
			     "xid-79-fallen-off-bus no longer fires (origin "
			     "gpu_hardware/gpu_lost on gpu017)"),
		      "%s", pmu_str(c, "why", "-"));
	ck_assert_msg(strstr(pmu_str(c, "why", "-"),
			     "xid-79-fallen-off-bus is not in the rule set any more"),
		      "%s", pmu_str(c, "why", "-"));
	json_decref(j);
	char *after = pmt_get(p.dir, "verdict.json");
	ck_assert_str_eq(before, after);
	free(after);
	ck_assert(!pmt_there(p.dir, "history"));

	/* the text form names the job, what changed and why */
	snprintf(args, sizeof(args), "replay --rules %s %s", rdir, p.job);
	ck_assert_int_eq(run_cli(args, out, sizeof(out)), 0);
	ck_assert_msg(strstr(out, "lab/4242/0: attributed gpu_hardware/gpu_lost (established) -> "),
		      "%s", out);
	ck_assert_msg(strstr(out, "because    xid-79-fallen-off-bus no longer fires"), "%s", out);
	ck_assert_msg(strstr(out, "1 changed, 0 unchanged"), "%s", out);
	ck_assert_msg(strstr(out, "--apply writes them"), "%s", out);

	/* --apply: the finalizer's merge under the revised rules, history kept, comment set */
	snprintf(args, sizeof(args), "replay --rules %s --apply %s", rdir, p.job);
	mode_t um = umask(0); /* the store's modes, not the umask's */
	int rc = run_cli(args, out, sizeof(out));
	umask(um);
	ck_assert_int_eq(rc, 0);
	ck_assert_msg(strstr(out, "applied: earlier verdict kept as history/verdict-1.json"), "%s",
		      out);
	struct stat rst;
	char rp[4200];
	snprintf(rp, sizeof(rp), "%s/history/verdict-1.replay", p.dir);
	ck_assert_int_eq(stat(rp, &rst), 0);
	ck_assert_msg((rst.st_mode & 07777) == 0640, "verdict-1.replay has mode %o",
		      (unsigned)(rst.st_mode & 07777));
	after = pmt_get(p.dir, "history/verdict-1.json");
	ck_assert_str_eq(before, after);
	free(after);
	free(before);
	ck_assert(pmt_there(p.dir, "history/verdict-1.replay"));
	json_t *nv = pmt_load(p.dir, "verdict.json"), *m = pmt_load(p.dir, "manifest.json");
	/* without the kernel's Xid the job output's CUDA "unknown error" (a confirmation of a lost
	 * GPU) is all that is left: the fallback lead, never more than a hypothesis */
	ck_assert_str_eq(pmu_str(nv, "confidence", "-"), "hypothesis");
	ck_assert_str_eq(pmu_str(json_object_get(json_object_get(nv, "decision"), "containment"),
				 "id", "-"),
			 "retry");
	ck_assert_str_eq(pmu_str(json_object_get(nv, "ruleset"), "digest", "-"),
			 pmu_str(json_object_get(m, "ruleset"), "digest", "-"));
	char *line = pm_comment_line(nv, "lab", p.job, "0"), *db = pmt_get(T, "db.Comment");
	ck_assert_msg(strncmp(db, line, strlen(line)) == 0, "%s vs %s", db, line);
	free(line);
	free(db);
	json_decref(nv);
	json_decref(m);
	/* replayed again under the same rules: nothing left to change */
	snprintf(args, sizeof(args), "replay --rules %s", rdir);
	ck_assert_int_eq(run_cli(args, out, sizeof(out)), 0);
	ck_assert_msg(strstr(out, "0 changed, 1 unchanged"), "%s", out);
	packed_free(&p);
}
END_TEST

/* Every origin rule of the file made "context": nothing there is an origin any more. */
static void demote_all(char **text)
{
	const char *from = "role: origin", *to = "role: context";
	size_t n = 0, fl = strlen(from), tl = strlen(to);
	char *out, *o;

	for (char *s = *text; (s = strstr(s, from)); s += fl)
		n++;
	ck_assert_ptr_nonnull(out = malloc(strlen(*text) + n * (tl - fl) + 1));
	o = out;
	for (char *s = *text, *hit; *s; s = hit + fl) {
		if (!(hit = strstr(s, from))) {
			strcpy(o, s);
			o += strlen(s);
			break;
		}
		memcpy(o, s, (size_t)(hit - s));
		o += hit - s;
		memcpy(o, to, tl);
		o += tl;
	}
	*o = '\0';
	free(*text);
	*text = out;
}

/* Across fixtures and revisions: every changed conclusion is explained by the rules. */
START_TEST(replay_every_change_explained)
{
	static const char *const fx[] = {"gpu-xid79-node2-watchdog-node1", "res-gpu-oom-rank5",
					 "net-ib-votes-port-module-error", "nvl-xid74-nvlink",
					 "app-pyexc-rank6-nccl-cascade",   "host-mce-ume"};
	static const struct {
		const char *name, *file;
		void (*edit)(char **);
	} rev[] = {{"r-no-xid79", "gpu.yaml", no_xid79},
		   {"r-gpu-demoted", "gpu.yaml", demote_all},
		   {"r-net-demoted", "network.yaml", demote_all},
		   {"r-app-demoted", "application.yaml", demote_all}};
	struct packed p[sizeof(fx) / sizeof(fx[0])];
	size_t changed = 0;

	for (size_t i = 0; i < sizeof(fx) / sizeof(fx[0]); i++)
		pack_fixture(fx[i], NULL, &p[i]);
	for (size_t r = 0; r < sizeof(rev) / sizeof(rev[0]); r++) {
		char d[600], err[600];
		struct pm_ruleset *rs;
		revised_rules(rev[r].name, rev[r].file, rev[r].edit);
		snprintf(d, sizeof(d), "%s/%s", T, rev[r].name);
		ck_assert_msg((rs = pm_ruleset_load(d, err, sizeof(err))) != NULL, "%s", err);
		for (size_t i = 0; i < sizeof(fx) / sizeof(fx[0]); i++) {
			struct cli_inputs in;
			json_t *v = cli_job_rediagnose(p[i].dir, rs, 0, &in, err, sizeof(err)), *c;
			ck_assert_msg(v != NULL, "%s", err);
			c = cli_verdict_changes(p[i].verdict, v, rs);
			if (json_is_true(json_object_get(c, "changed"))) {
				changed++;
				ck_assert_msg(json_is_true(json_object_get(c, "explained")) &&
						      !strstr(pmu_str(c, "why", "-"),
							      "engine differs"),
					      "%s under %s: not explained: %s", fx[i], rev[r].name,
					      pmu_str(c, "why", "-"));
				ck_assert(
					json_array_size(json_object_get(json_object_get(c, "rules"),
									"disappeared")) +
						json_array_size(
							json_object_get(json_object_get(c, "rules"),
									"changed")) >
					0);
			}
			json_decref(c);
			json_decref(v);
			json_decref(in.notes);
		}
		pm_ruleset_destroy(rs);
	}
	ck_assert_uint_ge(changed, 4);
	for (size_t i = 0; i < sizeof(fx) / sizeof(fx[0]); i++)
		packed_free(&p[i]);
}
END_TEST

/* ---- uncertainty ---- */

static const char *const removal_fixtures[] = {
	"gpu-xid79-node2-watchdog-node1",
	"gpu-xid48-dbe-nvsmi",
	"nvl-xid74-nvlink",
	"net-ib-votes-port-module-error",
	"res-host-oom-cgroup",
	"app-pyexc-rank6-nccl-cascade",
	"comm-silent-rank-hang",
	"host-kernel-panic-node-fail",
	"slurm-timeout-progressing",
	"sto-lustre-evict-eio",
	"gpu-nvl-ambiguous-xid79-xid74",
	"amb-lustre-stall-vs-valueerror",
	"slurm-timeout-hang-40min",
	"ok-completed-scary-warnings",
};

/* Remove one evidence source (a node's bundle, one file of one, Slurm's record): the verdict
 * must not become more certain.  Every violation is listed before the test fails. */
START_TEST(remove_source_not_more_certain)
{
	const char **fx = (const char **)removal_fixtures;
	size_t nfx = sizeof(removal_fixtures) / sizeof(removal_fixtures[0]);
	char *all[256], *bad = NULL, a[300], b[300];
	size_t nbad = 0, tried = 0, blen = 0;
	FILE *report = open_memstream(&bad, &blen);

	if (getenv("PM_TEST_ALL_FIXTURES")) {
		DIR *d = opendir(FIXTURES);
		struct dirent *de;
		nfx = 0;
		while (d && (de = readdir(d)) && nfx < 256) {
			char p[600];
			struct stat st;
			snprintf(p, sizeof(p), "%s/%s/evidence", FIXTURES, de->d_name);
			if (de->d_name[0] != '.' && stat(p, &st) == 0)
				all[nfx++] = strdup(de->d_name);
		}
		closedir(d);
		fx = (const char **)all;
	}
	for (size_t i = 0; i < nfx; i++) {
		struct packed full, var;
		json_t *c;
		size_t k;
		int restart = 1;

		char p[600];
		struct stat st;
		snprintf(p, sizeof(p), "%s/%s/evidence", FIXTURES, fx[i]);
		if (stat(p, &st) < 0) {
			fprintf(stderr, "remove_source_not_more_certain: no fixture %s, skipped\n",
				fx[i]);
			continue;
		}
		pack_fixture(fx[i], NULL, &full);
		if (!full.verdict) {
			packed_free(&full);
			continue;
		}
		describe(full.verdict, a, sizeof(a));
		/* each node's bundle, each file, and Slurm's record, one at a time */
		json_t *cov = json_deep_copy(json_object_get(full.direct, "coverage"));
		json_t *nodes = json_deep_copy(json_object_get(full.manifest, "nodes"));
		for (int kind = 0; kind < 3; kind++) {
			json_t *list = kind == 0 ? json_object_get(nodes, "present") :
				       kind == 1 ? cov :
						   json_null();
			size_t n = kind == 2 ? 1 : json_array_size(list);
			for (k = 0; k < n; k++) {
				struct pack o = {.restart = restart++, .quick = true};
				c = json_array_get(list, k);
				if (kind == 0)
					o.skip_node = json_string_value(c);
				else if (kind == 1 && json_is_string(json_object_get(c, "file")) &&
					 !is_sacct(c))
					o.skip_file = pmu_str(c, "file", "-");
				else if (kind == 2)
					o.no_sacct = true;
				else
					continue;
				pack_fixture(fx[i], &o, &var);
				tried++;
				if (var.verdict &&
				    certainty(var.verdict) > certainty(full.verdict)) {
					describe(var.verdict, b, sizeof(b));
					fprintf(report, "\n  %s without %s%s%s: %s -> %s", fx[i],
						o.skip_node ? "node " : "",
						o.skip_node ? o.skip_node :
						o.skip_file ? o.skip_file :
							      "Slurm's record",
						"", a, b);
					nbad++;
				}
				packed_free(&var);
			}
		}
		json_decref(cov);
		json_decref(nodes);
		packed_free(&full);
	}
	fclose(report);
	if (fx == (const char **)all)
		for (size_t i = 0; i < nfx; i++)
			free(all[i]);
	ck_assert_uint_gt(tried, nfx);
	ck_assert_msg(nbad == 0, "%zu of %zu removals made the verdict MORE certain:%s", nbad,
		      tried, bad);
	free(bad);
}
END_TEST

/* One node's stream arrives after the observation cut-off (the merge): diagnosed as of the
 * cut-off, the verdict is more cautious and names the lagging stream. */
START_TEST(lagging_stream_more_cautious)
{
	struct packed full, lag;
	struct pack o = {.late_node = "gpu017", .restart = 1};
	struct cli_inputs in;
	char err[600], a[300], b[300];
	double cutoff;
	json_t *v, *x, *g;
	size_t i, k;
	bool named = false;

	pack_fixture("gpu-xid79-node2-watchdog-node1", NULL, &full);
	pack_fixture("gpu-xid79-node2-watchdog-node1", &o, &lag);
	ck_assert_int_eq(cli_time_parse(pmu_str(lag.manifest, "updated", "-"), &cutoff), 0);
	ck_assert_ptr_nonnull(
		v = cli_job_rediagnose(lag.dir, rules, cutoff, &in, err, sizeof(err)));
	ck_assert_int_eq(in.lagging, 1);
	describe(full.verdict, a, sizeof(a));
	describe(v, b, sizeof(b));
	ck_assert_msg(certainty(v) < certainty(full.verdict), "not more cautious: %s -> %s", a, b);
	json_array_foreach(json_object_get(v, "coverage"), i, g)
		json_array_foreach(json_object_get(g, "problems"), k, x)
			named = named || (!strcmp(pmu_str(x, "node", "-"), "gpu017") &&
					  !strcmp(pmu_str(x, "status", "-"), "lagging") &&
					  !strcmp(pmu_str(x, "source", "-"), "kernel_log") &&
					  strstr(pmu_str(x, "reason", "-"), "cut-off"));
	ck_assert_msg(named, "the lagging stream is not named: %s",
		      json_dumps(json_object_get(v, "coverage"), 0));
	/* the drill, as of the merge, says the same and names the stream */
	char args[300], out[65536];
	snprintf(args, sizeof(args), "drill %s --restart 1 --cutoff merge", lag.job);
	ck_assert_msg(run_cli(args, out, sizeof(out)) == 0, "%s", out);
	ck_assert_msg(strstr(out, "(1 bundle(s) lagging)"), "%s", out);
	ck_assert_msg(strstr(out, "gpu017 kernel_log: lagging: arrived "), "%s", out);
	/* without a cut-off the late bundle counts in full: what the timer's re-merge will say */
	json_decref(in.notes);
	json_decref(v);
	ck_assert_ptr_nonnull(v = cli_job_rediagnose(lag.dir, rules, 0, &in, err, sizeof(err)));
	ck_assert_int_eq(in.lagging, 0);
	ck_assert_int_eq(certainty(v), certainty(full.verdict));
	json_decref(in.notes);
	json_decref(v);
	packed_free(&full);
	packed_free(&lag);
}
END_TEST

/* gpu017's kernel log without its Xid 74 (the competing explanation). */
static char *no_xid74(const char *rel, const char *text, size_t *len)
{
	char *out = malloc(*len + 1), *o = out;

	if (strcmp(rel, "gpu017/kernel.log"))
		return (free(out), NULL);
	for (const char *s = text, *end = text + *len, *nl; s < end; s = nl + 1) {
		nl = memchr(s, '\n', (size_t)(end - s));
		if (!nl)
			nl = end;
		if (!memmem(s, (size_t)(nl - s), "): 74,", 6)) {
			memcpy(o, s, (size_t)(nl - s));
			o += nl - s;
			*o++ = '\n';
		}
	}
	*len = (size_t)(o - out);
	return out;
}

START_TEST(competing_explanation_ambiguous)
{
	struct packed one, two;
	struct pack o = {.filter = no_xid74, .restart = 1};
	json_t *x;
	size_t i;
	bool gpu = false, nvl = false;
	char *text;

	pack_fixture("gpu-nvl-ambiguous-xid79-xid74", &o, &one);
	ck_assert_str_eq(pmu_str(one.verdict, "status", "-"), "attributed");
	ck_assert_str_eq(pmu_str(json_object_get(one.verdict, "cause"), "class", "-"),
			 "gpu_hardware");
	pack_fixture("gpu-nvl-ambiguous-xid79-xid74", NULL, &two);
	ck_assert_str_eq(pmu_str(two.verdict, "status", "-"), "ambiguous");
	ck_assert_int_le(certainty(two.verdict), certainty(one.verdict) - 1);
	/* both named: the leading cause and the other candidate, and the ambiguity's words */
	gpu = !strcmp(pmu_str(json_object_get(two.verdict, "cause"), "class", "-"), "gpu_hardware");
	json_array_foreach(json_object_get(two.verdict, "candidates"), i, x)
		nvl = nvl || !strcmp(pmu_str(x, "class", "-"), "nvlink");
	ck_assert(gpu && nvl);
	x = json_object_get(two.verdict, "ambiguity");
	ck_assert_uint_ge(json_array_size(json_object_get(x, "explanations")), 2);
	ck_assert_ptr_nonnull(text = pm_verdict_text(two.verdict));
	ck_assert_msg(strstr(text, "gpu016") && strstr(text, "gpu017"), "%s", text);
	free(text);
	packed_free(&one);
	packed_free(&two);
}
END_TEST

void responder_replay_tests(TCase *r, TCase *u)
{
	tcase_add_test(r, replay_revised_rules);
	tcase_add_test(r, replay_every_change_explained);
	tcase_add_test(u, remove_source_not_more_certain);
	tcase_add_test(u, lagging_stream_more_cautious);
	tcase_add_test(u, competing_explanation_ambiguous);
}
