/*
 * show.c - `postmortem show JOB [--json] [--timeline [--rules DIR]] [--store DIR]
 * [--cluster C] [--restart N] [--config FILE]`: the stored verdict of a job run, for its
 * owner, the operators' group and root.  --timeline: the evidence in time order, each event
 * at its own time and when it was observed, with the rules' skew tolerance (events on other
 * nodes closer than it are not ordered); with --json as data (cli_timeline_json).  Exit 0
 * shown, 1 not (no such job, refused, no verdict), 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "finalize.h"
#include "pmutil.h"
#include "store.h"

#define USAGE                                                                                 \
	"usage: %s show JOB [--json] [--timeline [--rules DIR]] [--store DIR] [--cluster C] " \
	"[--restart N] [--config FILE]\n"

/* The timeline of T (cli_timeline_json) for a person. */
static void timeline(const json_t *t)
{
	const json_t *ms = json_object_get(t, "skew_tolerance_ms"), *e;
	const json_t *rs = json_object_get(t, "ruleset");
	size_t i;

	printf("timeline of job %s: each event at its own time (the node's clock), then when it "
	       "was observed\n",
	       pmu_str(json_object_get(t, "job"), "id", "-"));
	if (json_is_integer(ms))
		printf("skew tolerance %lld ms (rule set %s %s%s): events on different nodes "
		       "closer than that are not ordered (=)\n",
		       (long long)json_integer_value(ms), pmu_str(rs, "id", "-"),
		       pmu_str(rs, "version", "-"),
		       json_is_true(json_object_get(t, "skew_from_verdict_rules")) ?
			       "" :
			       "; taken from the configured rules, not the verdict's own");
	else
		printf("skew tolerance unknown (the rules could not be loaded)\n");
	printf("(* origin, ~ cascade, - teardown)\n");
	if (!json_array_size(json_object_get(t, "events")))
		printf("  (no evidence)\n");
	json_array_foreach(json_object_get(t, "events"), i, e)
	{
		const char *role = pmu_str(e, "role", "-");
		const json_t *rank = json_object_get(e, "rank"),
			     *after = json_object_get(e, "observed_after_s");
		char r[24] = "", seen[48];

		if (json_is_integer(rank))
			snprintf(r, sizeof(r), "rank %lld", (long long)json_integer_value(rank));
		if (json_is_number(after))
			snprintf(seen, sizeof(seen), "seen %+.1fs", json_number_value(after));
		else
			snprintf(seen, sizeof(seen), "seen %s",
				 json_is_string(json_object_get(e, "observed_time")) ?
					 pmu_str(e, "observed_time", "-") :
					 "(unknown)");
		printf("  %-24s %c %-17s %c %-4s %-12s %-11s %-9s %s: %.160s\n",
		       json_is_string(json_object_get(e, "event_time")) ?
			       pmu_str(e, "event_time", "-") :
			       "(no time)",
		       json_is_string(json_object_get(e, "within_skew_of")) ? '=' : ' ', seen,
		       !strcmp(role, "origin")	 ? '*' :
		       !strcmp(role, "cascade")	 ? '~' :
		       !strcmp(role, "teardown") ? '-' :
						   ' ',
		       pmu_str(e, "id", "-"),
		       json_is_string(json_object_get(e, "node")) ? pmu_str(e, "node", "-") : "?",
		       pmu_str(e, "source", "-"), r, pmu_str(e, "rule", "-"),
		       pmu_str(e, "line", "-"));
	}
}

static void header(const json_t *m)
{
	const json_t *missing = json_object_get(json_object_get(m, "nodes"), "missing"), *x;
	size_t i;

	const json_t *cut = json_object_get(m, "merge");

	if (json_is_object(cut))
		printf("%s: %s (budget %.0f s); %zu node bundle(s) stored but not read%s\n",
		       json_is_true(json_object_get(m, "provisional")) ? "PROVISIONAL" : "CUT",
		       json_is_true(json_object_get(cut, "deadline_hit")) ?
			       "the merge ran out of time: this verdict comes from Slurm's record "
			       "alone" :
			       pmu_str(cut, "reason", "-"),
		       json_number_value(json_object_get(cut, "budget_s")),
		       json_array_size(json_object_get(cut, "cut")),
		       json_is_true(json_object_get(m, "provisional")) ?
			       " (the finalize timer merges again)" :
			       " (`postmortem finalize JOB --force --deadline 10m` tries again)");
	else if (json_is_true(json_object_get(m, "provisional")))
		printf("PROVISIONAL: not every node has reported yet; this verdict may change\n");
	json_array_foreach(missing, i, x)
		printf("missing input: node %s: %s\n", pmu_str(x, "node", "-"),
		       pmu_str(x, "reason", "-"));
	if (json_array_size(missing) || json_is_true(json_object_get(m, "provisional")) ||
	    json_is_object(cut))
		putchar('\n');
}

static void footer(const json_t *m, const char *dir, const char *job)
{
	const json_t *h = json_object_get(m, "history");

	if (json_array_size(h))
		printf("\nchanged %zu time(s); last: %s\n", json_array_size(h),
		       pmu_str(json_array_get(h, json_array_size(h) - 1), "why", "-"));
	printf("\nevidence: %s (kept until %s)\n  postmortem fetch %s -o DIR\n", dir,
	       pmu_str(m, "expires", "-"), job);
}

/* The timeline with the skew tolerance of the rules RULES (the configuration's when NULL). */
static json_t *timeline_of(const json_t *v, const char *rules)
{
	struct pm_ruleset *rs = cli_load_rules(rules);
	const char *digest =
		json_string_value(json_object_get(json_object_get(v, "ruleset"), "digest"));
	json_t *t = cli_timeline_json(v, rs ? cli_ruleset_skew_ms(rs) : -1,
				      rs && digest && !strcmp(digest, pm_ruleset_digest(rs)));

	pm_ruleset_destroy(rs);
	return t;
}

static int show(const char *dir, const char *job, const char *run, const json_t *m, bool json,
		bool tl, const char *rules)
{
	char *text = NULL, err[768];
	size_t len;
	json_t *v, *t = NULL;
	int rc = 1;

	if (!(v = cli_verdict_load(dir, &text, &len, err, sizeof(err)))) {
		fprintf(stderr, "%s: job %s: %s\n", prog, job, err);
		return 1;
	}
	/* the headers a person reads name the run (4242~2), not Slurm's id alone that a
	 * reused id's runs share; --json is the stored bytes */
	if (!json && strchr(run, PM_RUN_SEP) && json_is_object(json_object_get(v, "job")))
		json_object_set_new(json_object_get(v, "job"), "id", json_string(run));
	if (json && !tl) {
		fwrite(text, 1, len, stdout);
	} else if (tl) {
		if (!(t = timeline_of(v, rules))) {
			fprintf(stderr, "%s: out of memory\n", prog);
			goto out;
		}
		if (json) {
			json_dumpf(t, stdout, JSON_SORT_KEYS | JSON_INDENT(2));
			putchar('\n');
		} else {
			timeline(t);
		}
	} else {
		char *s = pm_verdict_text(v);
		if (!s) {
			fprintf(stderr, "%s: out of memory\n", prog);
			goto out;
		}
		header(m);
		fputs(s, stdout);
		free(s);
		footer(m, dir, job);
	}
	rc = 0;
out:
	json_decref(t);
	json_decref(v);
	free(text);
	return fflush(stdout) == 0 ? rc : 1;
}

int cmd_show(int argc, char **argv)
{
	struct cli_where w = {0};
	struct cli_run r;
	const char *rules = NULL;
	bool json = false, tl = false;
	const struct pmu_opt opts[] = {
		{"json", 'j', false, &json, NULL},
		{"timeline", 't', false, &tl, NULL},
		{"rules", 'R', true, &rules, NULL},
		CLI_WHERE_OPTS(&w),
	};
	int rc = 1;

	if (pmu_opts_parse(argc, argv, 1, opts, PMU_NELEM(opts)) || optind != argc - 1) {
		fprintf(stderr, USAGE, prog);
		return 2;
	}
	if (cli_run_open(&r, &w, argv[optind], NULL, NULL) < 0)
		goto out;
	if (json_is_null(json_object_get(r.manifest, "verdict")) &&
	    json_is_object(json_object_get(r.manifest, "merge"))) {
		fprintf(stderr,
			"%s: job %s has no verdict: the merge did not finish (%s) and Slurm's record "
			"could not be had (see %s/manifest.json)\n",
			prog, argv[optind],
			pmu_str(json_object_get(r.manifest, "merge"), "reason", "-"), r.dir);
		goto out;
	}
	if (json_is_null(json_object_get(r.manifest, "verdict"))) {
		fprintf(stderr,
			"%s: job %s has no verdict: its evidence gave nothing to diagnose "
			"(see %s/manifest.json)\n",
			prog, argv[optind], r.dir);
		goto out;
	}
	char run[160];
	cli_run_name(&r, argv[optind], run, sizeof(run));
	rc = show(r.dir, argv[optind], run, r.manifest, json, tl, rules ? rules : r.cfg->rules);
out:
	cli_run_close(&r);
	return rc;
}
