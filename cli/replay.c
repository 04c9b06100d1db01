/*
 * replay.c - `postmortem replay --rules DIR [JOB...|--since DATE] [--apply] [--json]
 * [--store DIR] [--cluster C] [--config FILE]`: re-diagnose the archived evidence of job runs
 * (their node bundles and the Slurm record the finalizer kept) under a revised rule set and
 * list every run whose outcome, class, origin, status or confidence changed, with the rules
 * that account for it.  Nothing is written unless --apply: then the finalizer's own merge
 * (pm_finalize_ex, under the revised rules) keeps the old verdict in history/, writes the new
 * one and updates the job's comment.  Progress on a terminal (stderr), none in pipes.  Exit 0
 * every run replayed, 1 one could not be, 2 usage.
 */
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "finalize.h"
#include "pmutil.h"
#include "history.h"
#include "store.h"

#define USAGE                                                                    \
	"usage: %s replay --rules DIR [JOB...|--since DATE] [--apply] [--json] " \
	"[--history=recorded|now] [--store DIR] [--cluster C] [--config FILE]\n"

struct replay {
	const struct pm_config *cfg;
	const struct pm_ruleset *rs;
	const char *rules; /* the directory, absolute */
	double since;	   /* 0: every run */
	bool apply, json;
	bool history_now; /* --history=now: today's node history, not the one recorded */
	size_t runs, changed, unchanged, failed, skipped, applied;
	size_t seen, total; /* job runs looked at; of TOTAL named (0: the whole store) */
	struct cli_progress bar;
	json_t *out; /* --json: the runs */
};

static void key(const json_t *m, const char *dir, char *buf, size_t len)
{
	const json_t *j = json_object_get(m, "job");

	if (json_is_string(json_object_get(j, "id")))
		snprintf(buf, len, "%s/%s/%lld", pmu_str(j, "cluster", "-"), pmu_str(j, "id", "-"),
			 (long long)json_integer_value(json_object_get(j, "restart")));
	else
		snprintf(buf, len, "%s", dir);
}

static void print_change(const char *k, const json_t *old, const json_t *new, const json_t *c)
{
	char a[512], b[512];
	size_t i;
	json_t *f;

	cli_verdict_cause(old, a, sizeof(a));
	cli_verdict_cause(new, b, sizeof(b));
	printf("%s: %s %s (%s) -> %s %s (%s)\n", k, pmu_str(old, "status", "-"), a,
	       pmu_str(old, "confidence", "-"), pmu_str(new, "status", "-"), b,
	       pmu_str(new, "confidence", "-"));
	json_array_foreach(json_object_get(c, "fields"), i, f)
	{
		const json_t *o = json_object_get(f, "old"), *n = json_object_get(f, "new");
		printf("  %-10s %s -> %s\n", pmu_str(f, "field", "-"),
		       json_is_string(o) ? json_string_value(o) : "null",
		       json_is_string(n) ? json_string_value(n) : "null");
	}
	printf("  because    %s\n", pmu_str(c, "why", "-"));
}

/* history/verdict-N.replay: the rules that made the replayed change, beside the finalizer's
 * own one-line reason (verdict-N.why).  The store's file mode (0640, pm_fin_write's), not
 * the umask's: the owner reads it through the folder's ACL, the operators by group. */
static void note_history(const char *dir, int n, const json_t *c)
{
	char p[4096];
	FILE *f;

	snprintf(p, sizeof(p), "%s/history/verdict-%d.replay", dir, n);
	if (!(f = pmu_create(p, 0640)))
		return;
	json_dumpf(c, f, JSON_SORT_KEYS | JSON_INDENT(2));
	fputc('\n', f);
	fclose(f);
}

/* Write the new verdict through the finalizer's merge under the revised rules.  A string
 * saying what happened, into BUF; 0 applied, -1 not. */
static int apply(struct replay *r, const char *dir, const json_t *m, const json_t *c, char *buf,
		 size_t len)
{
	struct pm_config cfg = *r->cfg;
	struct pm_finalize_opts o = {.force = true, .budget = 3.0, .rules = r->rs};
	struct pm_finalize_result res;
	char err[768] = "";
	int rc;

	if (json_is_true(json_object_get(m, "provisional"))) {
		snprintf(buf, len, "not applied: the verdict is provisional (postmortem finalize)");
		return -1;
	}
	cfg.rules = (char *)r->rules;
	rc = pm_finalize_ex(&cfg, dir, &o, &res, err, sizeof(err));
	if (rc < 0) {
		snprintf(buf, len, "not applied: %s", err);
		return -1;
	}
	if (rc == 1 || res.what == PM_FIN_BUSY) {
		snprintf(buf, len, "not applied: another merge is running; replay again");
		return -1;
	}
	if (res.what == PM_FIN_UNCHANGED) {
		snprintf(buf, len, "not applied: the merge found nothing to change");
		return -1;
	}
	if (res.history)
		note_history(dir, res.history, c);
	snprintf(buf, len, "applied: earlier verdict kept as history/verdict-%d.json; comment %s%s",
		 res.history,
		 res.comment == PM_COMMENT_SET	   ? "set" :
		 res.comment == PM_COMMENT_ALREADY ? "already right" :
		 res.comment == PM_COMMENT_PENDING ? "pending: " :
		 res.comment == PM_COMMENT_SKIPPED ? "" :
						     "not set",
		 res.comment == PM_COMMENT_PENDING || res.comment == PM_COMMENT_SKIPPED ?
			 res.comment_why :
			 "");
	return 0;
}

/* The node history NEW sees (store/history.h): the records OLD used, or with --history=now
 * the store's as it stands now for the job's end.  0, or -1 with ERR. */
static int with_history(const struct replay *r, const char *dir, const char *run, const json_t *old,
			json_t *new, char *err, size_t errlen)
{
	struct pm_history_policy pol;
	struct pm_history_rec *h = NULL;
	char ledger[4200];
	size_t n = 0;

	pm_history_policy_of(r->cfg->repeat_jobs, r->cfg->repeat_window, &pol);
	if (r->history_now) {
		if (r->cfg->ledger && *r->cfg->ledger)
			snprintf(ledger, sizeof(ledger), "%s", r->cfg->ledger);
		else
			snprintf(ledger, sizeof(ledger), "%s/ledger.jsonl",
				 r->cfg->store ? r->cfg->store : "");
		if (pm_history_gather(r->cfg->store, ledger, new, run, pm_history_job_end(dir),
				      &pol, &h, &n, err, errlen) < 0)
			return -1;
	} else if (pm_history_used(old, &h, &n) < 0) {
		snprintf(err, errlen, "the stored verdict's node_history cannot be read");
		return -1;
	}
	if (pm_history_apply(new, run, h, n, &pol) < 0) {
		free(h);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	free(h);
	return 0;
}

static int one(const char *dir, void *arg)
{
	struct replay *r = arg;
	struct cli_inputs in = {0};
	json_t *m, *old = NULL, *new = NULL, *c = NULL, *rec;
	char err[768] = "", k[300], *text = NULL, done[1024] = "";
	size_t len;
	double created;

	r->seen++;
	if (r->total)
		cli_progress(&r->bar, "replay: %zu of %zu job run(s), %zu changed", r->seen,
			     r->total, r->changed);
	else
		cli_progress(&r->bar, "replay: %zu job run(s) looked at, %zu changed", r->seen,
			     r->changed);
	if (!(m = pm_manifest_load(dir, err, sizeof(err)))) {
		cli_progress_clear(&r->bar);
		fprintf(stderr, "%s replay: %s: %s\n", prog, dir, err);
		r->failed++;
		return 0;
	}
	key(m, dir, k, sizeof(k));
	if (r->since > 0 &&
	    (cli_time_parse(pmu_str(m, "created", "-"), &created) < 0 || created < r->since))
		goto out;
	if (cli_access_of(r->cfg, m) == CLI_DENIED) {
		cli_progress_clear(&r->bar);
		cli_access_check(r->cfg, k, m);
		r->failed++;
		goto out;
	}
	if (json_is_null(json_object_get(m, "verdict")) || !json_object_get(m, "verdict")) {
		r->skipped++;
		goto out;
	}
	r->runs++;
	if (pm_jobdir_read(dir, "verdict.json", &text, &len, err, sizeof(err)) < 0 ||
	    !(old = json_loadb(text, len, 0, NULL))) {
		cli_progress_clear(&r->bar);
		fprintf(stderr, "%s replay: %s: the stored verdict: %s\n", prog, k,
			err[0] ? err : "not JSON");
		r->failed++;
		goto out;
	}
	if (!(new = cli_job_rediagnose(dir, r->rs, 0, &in, err, sizeof(err))) ||
	    with_history(r, dir, k, old, new, err, sizeof(err)) < 0 ||
	    !(c = cli_verdict_changes(old, new, r->rs))) {
		cli_progress_clear(&r->bar);
		fprintf(stderr, "%s replay: %s: %s\n", prog, k, err[0] ? err : "out of memory");
		r->failed++;
		goto out;
	}
	if (!json_is_true(json_object_get(c, "changed")))
		r->unchanged++;
	if (json_is_true(json_object_get(c, "changed"))) {
		r->changed++;
		if (r->apply && apply(r, dir, m, c, done, sizeof(done)) == 0)
			r->applied++;
		if (!r->json) {
			cli_progress_clear(&r->bar);
			print_change(k, old, new, c);
			if (in.rejected || !in.sched)
				printf("  inputs     %zu bundle(s) rejected%s\n", in.rejected,
				       in.sched ? "" : ", no Slurm record");
			if (done[0])
				printf("  %s\n", done);
		}
	}
	if (r->json) {
		rec = json_pack("{s:s,s:s,s:O,s:O,s:o}", "job", k, "dir", dir, "changes", c,
				"notes", in.notes, "verdict",
				json_pack("{s:O?,s:O?,s:O?,s:O?}", "status",
					  json_object_get(new, "status"), "confidence",
					  json_object_get(new, "confidence"), "cause",
					  json_object_get(new, "cause"), "origin",
					  json_object_get(new, "origin")));
		if (done[0])
			json_object_set_new(rec, "applied", json_string(done));
		json_array_append_new(r->out, rec);
	}
out:
	json_decref(in.notes);
	json_decref(c);
	json_decref(new);
	json_decref(old);
	json_decref(m);
	free(text);
	return 0;
}

static int store_walk(struct replay *r)
{
	char err[768];

	if (!r->cfg->store || !*r->cfg->store) {
		fprintf(stderr, "%s replay: no evidence store configured (store:, or --store)\n",
			prog);
		return -1;
	}
	if (pm_store_walk(r->cfg->store, one, r, err, sizeof(err)) < 0) {
		cli_progress_clear(&r->bar);
		fprintf(stderr, "%s replay: %s\n", prog, err);
		return -1;
	}
	return 0;
}

static void summary(struct replay *r)
{
	cli_progress_clear(&r->bar);
	if (r->json) {
		json_t *o = json_pack("{s:{s:s,s:s,s:s,s:s},s:o,s:{s:I,s:I,s:I,s:I,s:I},s:b}",
				      "ruleset", "dir", r->rules, "id", pm_ruleset_id(r->rs),
				      "version", pm_ruleset_version(r->rs), "digest",
				      pm_ruleset_digest(r->rs), "runs", json_incref(r->out),
				      "summary", "replayed", (json_int_t)r->runs, "changed",
				      (json_int_t)r->changed, "failed", (json_int_t)r->failed,
				      "skipped", (json_int_t)r->skipped, "applied",
				      (json_int_t)r->applied, "apply", r->apply);
		json_dumpf(o, stdout, JSON_SORT_KEYS | JSON_INDENT(2));
		putchar('\n');
		json_decref(o);
		return;
	}
	printf("%sreplayed %zu job run(s) under %s %s (%s): %zu changed, %zu unchanged, %zu "
	       "failed",
	       r->changed ? "\n" : "", r->runs, pm_ruleset_id(r->rs), pm_ruleset_version(r->rs),
	       pm_ruleset_digest(r->rs), r->changed, r->unchanged, r->failed);
	if (r->skipped)
		printf(", %zu without a verdict", r->skipped);
	if (r->apply)
		printf("; %zu applied\n", r->applied);
	else
		printf("\n%s\n",
		       r->changed ? "stored verdicts untouched: --apply writes them" : "");
}

/* --history=recorded|now into the bool NOW; 2 (usage) for anything else. */
static int history_opt(const struct pmu_opt *opt, const char *arg)
{
	if (strcmp(arg, "now") && strcmp(arg, "recorded")) {
		fprintf(stderr,
			"%s replay: --history=%s: recorded (the verdict's own, the default) or now\n",
			prog, arg);
		return 2;
	}
	*(bool *)opt->dst = !strcmp(arg, "now");
	return 0;
}

int cmd_replay(int argc, char **argv)
{
	struct cli_where w = {0};
	const char *rules = NULL, *since = NULL;
	struct replay r = {0};
	const struct pmu_opt opts[] = {
		{"rules", 'R', true, &rules, NULL},
		{"since", 'S', true, &since, NULL},
		{"apply", 'a', false, &r.apply, NULL},
		{"json", 'j', false, &r.json, NULL},
		{"store", 's', true, &w.store, NULL},
		{"cluster", 'C', true, &w.cluster, NULL},
		{"config", 'c', true, &w.config, NULL},
		{"history", 0, true, &r.history_now, history_opt},
	};
	struct pm_config cfg;
	struct pm_ruleset *rs = NULL;
	char real[PATH_MAX];
	int rc = 1;

	switch (pmu_opts_parse(argc, argv, 1, opts, PMU_NELEM(opts))) {
	case 0:
		break;
	case -1:
		fprintf(stderr, USAGE, prog);
		/* fall through */
	default:
		return 2;
	}
	if (!rules || (since && optind < argc)) {
		fprintf(stderr, USAGE, prog);
		return 2;
	}
	if (since && (cli_time_parse(since, &r.since) < 0 || r.since <= 0)) {
		fprintf(stderr, "%s replay: --since %s: not a date (YYYY-MM-DD[THH:MM[:SS]Z])\n",
			prog, since);
		return 2;
	}
	if (!realpath(rules, real)) {
		fprintf(stderr, "%s replay: --rules %s: not found\n", prog, rules);
		return 1;
	}
	if (cli_load_config(w.config, w.store, &cfg) < 0)
		return 1;
	if (r.apply && cli_act_as_service(&cfg, "replay") < 0)
		goto out;
	if (!(rs = cli_load_rules(real)) || !(r.out = json_array()))
		goto out;
	r.cfg = &cfg;
	r.rs = rs;
	r.rules = real;
	cli_progress_init(&r.bar);
	if (optind < argc) {
		r.total = (size_t)(argc - optind);
		for (int i = optind; i < argc; i++) {
			char dir[4096], err[768] = "";
			if (!cfg.store || !*cfg.store ||
			    pm_jobdir_find(cfg.store, argv[i], w.cluster, -1, dir, sizeof(dir), err,
					   sizeof(err)) < 0) {
				cli_progress_clear(&r.bar);
				fprintf(stderr, "%s replay: %s\n", prog,
					err[0] ?
						err :
						"no evidence store configured (store:, or --store)");
				r.failed++;
				continue;
			}
			one(dir, &r);
		}
	} else if (store_walk(&r) < 0) {
		goto out;
	}
	summary(&r);
	rc = r.failed ? 1 : 0;
	if (fflush(stdout) != 0)
		rc = 1;
out:
	cli_leave_service();
	json_decref(r.out);
	pm_ruleset_destroy(rs);
	pm_config_free(&cfg);
	return rc;
}
