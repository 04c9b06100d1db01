/*
 * finalize.c - `postmortem finalize [JOB] [--pending] [--force] [--grace DURATION]
 * [--store DIR] [--cluster C] [--restart N] [--config FILE]`, run by root from a timer:
 * merges the job runs whose nodes never all arrived once GRACE has passed, re-merges those
 * where evidence arrived late or Slurm's state was not final yet, and retries comments that
 * sacctmgr did not take (comment.pending).  With JOB, that run only; --force merges it now.
 * Each merge has --deadline (the configuration's merge_deadline, 60 s): cut, it writes the
 * verdict Slurm's record alone gives and says so.  Then the comments it set within
 * comment_recheck (7 days) are compared with the store in one sacct query, and any a user
 * changed is put back and recorded (tampered.jsonl; doctor --recent).  A walk of the whole
 * store ends by writing the configuration's metrics_textfile (postmortem metrics), when set.
 * Exit 0 when every run handled is fine, 1 when one failed, 2 usage.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "finalize.h"

#define USAGE                                                                \
	"usage: %s finalize [JOB] [--pending] [--force] [--grace DURATION] " \
	"[--deadline DURATION] [--store DIR] [--cluster C] [--restart N] [--config FILE]\n"

/* Seconds of Slurm retries per job run: the timer comes back, and a store has many runs. */
#define TIMER_BUDGET 3.0

struct run {
	const struct pm_config *cfg;
	bool pending_only, force, one;
	double grace, deadline;
	int failed;
	struct pm_ruleset *rs; /* cfg->rules, loaded by the first run that needs a merge */
	bool rs_tried;
};

/* The rule set for every merge of this walk: compiled once, not once per job run.  NULL when
 * it cannot be loaded: pm_finalize_ex then loads it itself and reports why, per run. */
static const struct pm_ruleset *rules(struct run *run)
{
	char err[768];

	if (!run->rs_tried) {
		run->rs_tried = true;
		run->rs = pm_ruleset_load(*run->cfg->rules ? run->cfg->rules : PM_RULESDIR, err,
					  sizeof(err));
	}
	return run->rs;
}

static const char *const what_name[] = {
	[PM_FIN_WAITING] = "waiting for nodes",
	[PM_FIN_BUSY] = "another merge is running",
	[PM_FIN_PROVISIONAL] = "provisional verdict written",
	[PM_FIN_MERGED] = "merged",
	[PM_FIN_UNCHANGED] = "merged, unchanged",
};

static const char *const comment_name[] = {
	[PM_COMMENT_NONE] = "",
	[PM_COMMENT_SET] = "; comment set",
	[PM_COMMENT_ALREADY] = "",
	[PM_COMMENT_PENDING] = "; comment pending: ",
	[PM_COMMENT_SKIPPED] = "; comment ",
};

static void report(const char *dir, const struct pm_finalize_result *r)
{
	printf("%s: %s, %zu of %zu node(s)", dir, what_name[r->what], r->present, r->expected);
	if (r->deadline_hit)
		printf(", deadline hit after %.1f s: the verdict is Slurm's record alone, the "
		       "bundles were not read",
		       r->took);
	else if (r->merge_died)
		printf(", the merge died after %.1f s: the verdict is Slurm's record alone, the "
		       "bundles were not read",
		       r->took);
	if (r->state[0])
		printf(", %s", r->state);
	if (r->history)
		printf("; changed (history %d: %s)", r->history, r->why);
	printf("%s%s", comment_name[r->comment],
	       r->comment == PM_COMMENT_PENDING || r->comment == PM_COMMENT_SKIPPED ?
		       r->comment_why :
		       "");
	printf("%s%s\n",
	       r->webhook == 1 ? "; webhook delivered" :
	       r->webhook      ? "; webhook pending: " :
				 "",
	       r->webhook == 2 ? r->webhook_why : "");
}

static int one(const char *dir, void *arg)
{
	struct run *run = arg;
	struct pm_finalize_result r;
	struct pm_finalize_opts o = {.force = run->force,
				     .budget = TIMER_BUDGET,
				     .merge_budget = run->deadline,
				     .cut_final = true,
				     .threads = pm_threads_usable()};
	enum pm_due due = run->pending_only ? PM_DUE_COMMENT : PM_DUE_MERGE;
	char err[768] = "";
	int rc;

	if (!run->pending_only && !run->force && !run->one)
		due = pm_finalize_due(dir, run->grace, (double)time(NULL));
	if (due == PM_DUE_NOTHING)
		return 0;
	if (due == PM_DUE_COMMENT) {
		rc = pm_finalize_pending(run->cfg, dir, TIMER_BUDGET, &r, err, sizeof(err));
		if (rc == 0 && r.comment == PM_COMMENT_SET)
			printf("%s: comment set\n", dir);
		else if (rc == 1 && r.comment == PM_COMMENT_PENDING)
			printf("%s: comment still pending: %s\n", dir, r.comment_why);
		else if (r.comment == PM_COMMENT_SKIPPED)
			printf("%s: comment %s\n", dir, r.comment_why);
		if (r.webhook)
			printf("%s: webhook %s%s\n", dir,
			       r.webhook == 1 ? "delivered" : "still pending: ",
			       r.webhook == 1 ? "" : r.webhook_why);
	} else {
		o.force = o.force || due == PM_DUE_FORCE;
		o.rules = run->one ? NULL : rules(run); /* one run: its merge loads them */
		rc = pm_finalize_ex(run->cfg, dir, &o, &r, err, sizeof(err));
		if (rc >= 0)
			report(dir, &r);
	}
	if (rc < 0) {
		fprintf(stderr, "%s: %s\n", prog, err);
		run->failed = 1;
	}
	return 0;
}

/* The comments set within the configured period, checked against the store (finalize.h). */
static void recheck(struct run *run, const char *dir)
{
	struct pm_recheck r;
	char err[768] = "";

	if (pm_finalize_recheck(run->cfg, run->cfg->store, dir, TIMER_BUDGET, &r, err,
				sizeof(err)) < 0) {
		fprintf(stderr, "%s: %s\n", prog, err);
		run->failed = 1;
		return;
	}
	if (r.tampered)
		printf("comments: %zu changed by someone else since postmortem set them: %zu put "
		       "back from the stored verdict, %zu pending (recorded in %s; doctor "
		       "--recent)\n",
		       r.tampered, r.restored, r.pending, PM_TAMPERED_FILE);
	if (r.runs)
		printf("comments rechecked: %zu run(s) commented within the period, one sacct "
		       "query (%s, %zu line(s), %.3f s), %zu found, %zu differed; %.3f s in all\n",
		       r.runs, r.named ? "the jobs by id" : "every job of the period", r.rows,
		       r.sacct_s, r.seen, r.suspect, r.total_s);
	if (r.ambiguous)
		printf("comments: %zu job(s) with more than one row in sacct's answer (a comment "
		       "holding line breaks that look like rows): %zu left for later walks\n",
		       r.ambiguous, r.deferred);
}

int cmd_finalize(int argc, char **argv)
{
	struct cli_where w = {0};
	const char *grace = "10m", *deadline = NULL;
	struct run run = {0};
	const struct pmu_opt opts[] = {
		{"pending", 'p', false, &run.pending_only, NULL},
		{"force", 'f', false, &run.force, NULL},
		{"grace", 'g', true, &grace, NULL},
		{"deadline", 'd', true, &deadline, NULL},
		CLI_WHERE_OPTS(&w),
	};
	struct pm_config cfg;
	char dir[4096], err[768] = "", *metrics = NULL;
	size_t mlen = 0;
	int rc;

	if (pmu_opts_parse(argc, argv, 1, opts, PMU_NELEM(opts))) {
		fprintf(stderr, USAGE, prog);
		return 2;
	}
	if (optind < argc - 1 || (run.force && optind == argc) ||
	    pm_parse_duration(grace, &run.grace) < 0 ||
	    (deadline && (pm_parse_duration(deadline, &run.deadline) < 0 || run.deadline <= 0))) {
		fprintf(stderr,
			USAGE
			"  (--force needs a JOB; --grace and --deadline take a duration: 10m, "
			"1h)\n",
			prog);
		return 2;
	}
	if (cli_load_config(w.config, w.store, &cfg) < 0)
		return 1;
	if (!cfg.rules && !(cfg.rules = strdup(cli_rules_dir(NULL)))) {
		pm_config_free(&cfg);
		return 1;
	}
	if (cli_act_as_service(&cfg, "finalize") < 0) {
		pm_config_free(&cfg);
		return 1;
	}
	run.cfg = &cfg;
	if (!deadline)
		run.deadline = cfg.merge_deadline > 0 ? cfg.merge_deadline : 60;
	if (optind == argc - 1) {
		run.one = true;
		if (cli_jobdir(&cfg, argv[optind], w.cluster, w.restart, dir, sizeof(dir)) < 0)
			run.failed = 1;
		else
			one(dir, &run);
		if (!run.failed)
			recheck(&run, dir);
	} else if (pm_store_walk(cfg.store, one, &run, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s: %s\n", prog, err);
		run.failed = 1;
	} else {
		recheck(&run, NULL);
	}
	/* the store's metrics for node_exporter: read as the store's writer, written as root
	 * (the exporter's textfile folder is root's) */
	if (cfg.metrics_textfile && *cfg.metrics_textfile && optind == argc) {
		rc = cli_metrics_text(&cfg, &metrics, &mlen);
		run.failed |= rc != 0;
	}
	cli_leave_service();
	if (metrics && cli_metrics_save(cfg.metrics_textfile, metrics, mlen) < 0)
		run.failed = 1;
	free(metrics);
	pm_ruleset_destroy(run.rs);
	pm_config_free(&cfg);
	return fflush(stdout) == 0 && !run.failed ? 0 : 1;
}
