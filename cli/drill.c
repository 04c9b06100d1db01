/*
 * drill.c - `postmortem drill JOB [--rules DIR] [--cutoff DATE|merge] [--json] [--store DIR]
 * [--cluster C] [--restart N] [--config FILE]`: the retention drill.  From the store alone: is the job
 * run's evidence retrievable and intact (the manifest reads, every bundle and the Slurm
 * record match the manifest's sha256 and the bundles decompress with every member matching
 * its own manifest, every expected node is present or its absence explained), which inputs
 * are missing, and can the incident be reconstructed (the engine re-run on the bundles gives
 * the stored verdict; its timeline).  With --cutoff the incident is reconstructed as of an
 * observation cut-off ("merge": the last merge): bundles written later are lagging, their
 * sources named in the coverage and left out.  Exit 0 intact, 1 damaged or missing, 2 usage.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "finalize.h"
#include "history.h"
#include "pmutil.h"
#include "store.h"

#define USAGE                                                                             \
	"usage: %s drill JOB [--rules DIR] [--cutoff DATE|merge] [--json] [--store DIR] " \
	"[--cluster C] [--restart N] [--config FILE]\n"

struct drill {
	const char *dir;
	json_t *m;	 /* the manifest */
	json_t *checks;	 /* [{"check", "status": ok|damaged|note, "what"}] */
	json_t *missing; /* [{"input", "reason"}] */
	size_t damaged;
	bool late;     /* bundles on disk that the manifest does not list */
	double cutoff; /* --cutoff: reconstruct as of then, later bundles lagging; 0 none */
	char run[200]; /* cluster/job/restart */
	struct pm_history_policy pol;
};

static void check(struct drill *d, const char *what, const char *status, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void check(struct drill *d, const char *what, const char *status, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_array_append_new(d->checks, json_pack("{s:s,s:s,s:s}", "check", what, "status", status,
						   "what", buf));
	if (!strcmp(status, "damaged"))
		d->damaged++;
}

static void missing(struct drill *d, const char *input, const char *reason)
{
	json_array_append_new(d->missing, json_pack("{s:s,s:s}", "input", input, "reason", reason));
}

/* FILE (relative to the job run) against the manifest's sha256 WANT (NULL: not listed). */
static bool file_matches(struct drill *d, const char *what, const char *file, const char *want)
{
	char p[4096], sha[80];
	uint64_t bytes;

	snprintf(p, sizeof(p), "%s/%s", d->dir, file);
	if (pm_sha256_file(p, sha, &bytes) < 0) {
		check(d, what, "damaged", "%s: %s", file, strerror(errno));
		return false;
	}
	if (want && strcmp(want, sha)) {
		check(d, what, "damaged", "%s: sha256 differs from the manifest's", file);
		return false;
	}
	check(d, what, "ok", "%s: %" PRIu64 " bytes%s", file, bytes,
	      want ? ", sha256 matches the manifest" : "");
	return true;
}

/* Every member decompresses and matches its bundle manifest: the engine's reader checks. */
static void bundle_reads(struct drill *d, const struct pm_ruleset *rs, const char *file)
{
	struct pm_evidence *ev = pm_evidence_create(rs);
	char p[4096], err[512] = "";

	snprintf(p, sizeof(p), "%s/%s", d->dir, file);
	if (!ev)
		return;
	if (pm_evidence_add_path(ev, p, err, sizeof(err)) < 0)
		check(d, "bundle", "damaged", "%s: %s", file, err);
	else
		check(d, "bundle", "ok", "%s: decompresses, every member matches its manifest",
		      file);
	pm_evidence_destroy(ev);
}

static void bundles(struct drill *d, const struct pm_ruleset *rs)
{
	const json_t *list = json_object_get(d->m, "bundles"), *b;
	char p[4096];
	size_t i;

	json_array_foreach(list, i, b)
	{
		const char *file = pmu_str(b, "file", "-");
		if (strcmp(pmu_str(b, "status", "-"), "ok")) {
			char in[300];
			snprintf(in, sizeof(in), "node %s", pmu_str(b, "node", "-"));
			missing(d, in,
				json_is_string(json_object_get(b, "reason")) ?
					pmu_str(b, "reason", "-") :
					"its bundle was rejected at the merge");
		}
		if (file_matches(d, "bundle", file, pmu_str(b, "sha256", "-")))
			bundle_reads(d, rs, file);
	}
	/* bundles that arrived after the last merge */
	snprintf(p, sizeof(p), "%s/nodes", d->dir);
	DIR *dh = opendir(p);
	struct dirent *de;
	size_t late = 0;
	while (dh && (de = readdir(dh))) {
		size_t l = strlen(de->d_name);
		bool known = false;
		if (de->d_name[0] == '.' || l <= 8 || strcmp(de->d_name + l - 8, ".tar.zst"))
			continue;
		snprintf(p, sizeof(p), "nodes/%s", de->d_name);
		json_array_foreach(list, i, b) known = known || !strcmp(pmu_str(b, "file", "-"), p);
		if (!known) {
			late++;
			bundle_reads(d, rs, p);
		}
	}
	if (dh)
		closedir(dh);
	if (late) {
		d->late = true;
		check(d, "bundle", "note",
		      "%zu bundle(s) in nodes/ arrived after the last merge and are not in the "
		      "manifest (postmortem finalize merges them)",
		      late);
	}
}

static bool listed(const json_t *a, const char *s)
{
	size_t i;
	json_t *x;

	json_array_foreach(a, i, x) if (json_is_string(x) &&
					!strcmp(json_string_value(x), s)) return true;
	return false;
}

static void nodes(struct drill *d)
{
	const json_t *n = json_object_get(d->m, "nodes"), *exp = json_object_get(n, "expected");
	const json_t *present = json_object_get(n, "present"),
		     *miss = json_object_get(n, "missing");
	const json_t *x, *b;
	size_t i, k, explained = 0;

	if (!json_is_array(exp)) {
		check(d, "nodes", "note", "the job's node list was never known (expected from %s)",
		      pmu_str(n, "expected_from", "-"));
		missing(d, "the job's node list",
			"no expected file, bundle node list or "
			"SLURM_NODELIST");
	}
	json_array_foreach(present, i, x)
	{
		bool has = false;
		json_array_foreach(json_object_get(d->m, "bundles"), k, b)
			has = has || (!strcmp(pmu_str(b, "node", "-"), json_string_value(x)) &&
				      !strcmp(pmu_str(b, "status", "-"), "ok"));
		if (!has)
			check(d, "nodes", "damaged", "node %s is present but has no bundle listed",
			      json_string_value(x));
	}
	json_array_foreach(miss, i, x)
	{
		char in[300];
		snprintf(in, sizeof(in), "node %s", pmu_str(x, "node", "-"));
		if (!json_is_string(json_object_get(x, "reason")) || !*pmu_str(x, "reason", "-"))
			check(d, "nodes", "damaged", "node %s is missing with no reason",
			      pmu_str(x, "node", "-"));
		else if (!listed(present, pmu_str(x, "node", "-")))
			missing(d, in, pmu_str(x, "reason", "-"));
	}
	json_array_foreach(exp, i, x)
	{
		bool why = false;
		json_array_foreach(miss, k, b)
			why = why || !strcmp(pmu_str(b, "node", "-"), json_string_value(x));
		if (!listed(present, json_string_value(x)) && !why)
			check(d, "nodes", "damaged",
			      "node %s was expected, is not present, and its absence is not "
			      "explained",
			      json_string_value(x));
		else
			explained++;
	}
	if (json_is_array(exp))
		check(d, "nodes", explained == json_array_size(exp) ? "ok" : "damaged",
		      "%zu of %zu expected node(s) present or explained", explained,
		      json_array_size(exp));
}

static void scheduler(struct drill *d)
{
	const json_t *s = json_object_get(d->m, "scheduler");
	char p[4096];
	struct stat st;

	snprintf(p, sizeof(p), "%s/sacct.txt", d->dir);
	if (json_is_string(json_object_get(s, "sha256")))
		file_matches(d, "slurm record", "sacct.txt", pmu_str(s, "sha256", "-"));
	else if (stat(p, &st) == 0)
		check(d, "slurm record", "note", "sacct.txt is there but the manifest lists none");
	if (!json_is_string(json_object_get(s, "sha256")))
		missing(d, "Slurm's record (sacct)",
			json_is_string(json_object_get(s, "reason")) ? pmu_str(s, "reason", "-") :
								       "never obtained");
	else if (!json_is_true(json_object_get(s, "final")))
		missing(d, "Slurm's final state",
			json_is_string(json_object_get(s, "reason")) ? pmu_str(s, "reason", "-") :
								       "not final when merged");
}

/* Sources the verdict's coverage reports as not ok: inputs the verdict did without. */
static void coverage(struct drill *d, const json_t *v)
{
	const json_t *c, *g;
	size_t i, k;

	json_array_foreach(json_object_get(v, "coverage"), k, g)
		json_array_foreach(json_object_get(g, "problems"), i, c)
	{
		char in[400], why[600];
		if (!strcmp(pmu_str(c, "status", "-"), "ok"))
			continue;
		snprintf(in, sizeof(in), "%s %s%s%s",
			 json_is_string(json_object_get(c, "node")) ? pmu_str(c, "node", "-") :
								      "job",
			 pmu_str(c, "source", "-"),
			 json_is_string(json_object_get(c, "file")) ? " " : "",
			 json_is_string(json_object_get(c, "file")) ? pmu_str(c, "file", "-") : "");
		snprintf(why, sizeof(why), "%s%s%s", pmu_str(c, "status", "-"),
			 *pmu_str(c, "reason", "-") ? ": " : "",
			 json_is_string(json_object_get(c, "reason")) ? pmu_str(c, "reason", "-") :
									"");
		missing(d, in, why);
	}
}

/* Re-run the engine; compare with the stored verdict.  The reconstructed verdict, or NULL. */
static json_t *reconstruct(struct drill *d, const struct pm_ruleset *rs, const char *stored,
			   json_t **changes)
{
	struct cli_inputs in;
	char err[768] = "", *text = NULL;
	json_t *v, *old = stored ? json_loads(stored, 0, NULL) : NULL;
	bool same_rules = !strcmp(pmu_str(json_object_get(d->m, "ruleset"), "digest", "-"),
				  pm_ruleset_digest(rs));

	*changes = NULL;
	if (!(v = cli_job_rediagnose(d->dir, rs, d->cutoff, &in, err, sizeof(err)))) {
		check(d, "reconstruction", "damaged", "the engine made no verdict: %s", err);
		goto out;
	}
	if (!old) {
		check(d, "reconstruction", "note", "no stored verdict to compare with");
		goto out;
	}
	/* the node history it used, as it stood then (store/history.h) */
	if (pm_history_reapply(v, old, d->run, &d->pol) < 0)
		check(d, "reconstruction", "note",
		      "the stored verdict's node_history is malformed");
	if ((text = pm_verdict_dump(v)) && !strcmp(text, stored)) {
		check(d, "reconstruction", "ok",
		      "the engine re-run on the stored inputs gives the stored verdict byte for "
		      "byte");
		goto out;
	}
	*changes = cli_verdict_changes(old, v, rs);
	if (d->cutoff > 0) {
		char when[32];
		pmu_iso(d->cutoff, when, sizeof(when), "?");
		check(d, "reconstruction", "note",
		      "as of the cut-off %s (%zu bundle(s) lagging), it differs: %s", when,
		      in.lagging, *changes ? pmu_str(*changes, "why", "-") : "?");
	} else if (!same_rules)
		check(d, "reconstruction", "note",
		      "differs, but under another rule set (stored %s, here %s): %s",
		      pmu_str(json_object_get(d->m, "ruleset"), "digest", "-"),
		      pm_ruleset_digest(rs), *changes ? pmu_str(*changes, "why", "-") : "?");
	else if (d->late)
		check(d, "reconstruction", "note",
		      "differs because of evidence that arrived after the merge: %s",
		      *changes ? pmu_str(*changes, "why", "-") : "?");
	else if (strcmp(pmu_str(old, "schema", "-"), PM_VERDICT_SCHEMA) && *changes &&
		 !json_is_true(json_object_get(*changes, "changed")))
		/* stored in an earlier version of the format: the same conclusion is all that
		 * can be asked (the grouping of coverage and bystanders changed) */
		check(d, "reconstruction", "ok",
		      "the engine re-run on the stored inputs gives the stored %s verdict's "
		      "conclusion, written as %s: %s",
		      pmu_str(old, "schema", "-"), PM_VERDICT_SCHEMA,
		      pmu_str(*changes, "why", "-"));
	else
		check(d, "reconstruction", "damaged",
		      "the same rules on the stored inputs give another verdict: %s",
		      *changes ? pmu_str(*changes, "why", "-") : "?");
out:
	json_decref(in.notes);
	json_decref(old);
	free(text);
	return v;
}

static void print(const struct drill *d, const char *job, const json_t *v)
{
	const json_t *x;
	size_t i;

	printf("drill of job %s (%s)\n", job, d->dir);
	json_array_foreach(d->checks, i, x)
		printf("  %-8s %-15s %s\n",
		       !strcmp(pmu_str(x, "status", "-"), "ok")	  ? "ok" :
		       !strcmp(pmu_str(x, "status", "-"), "note") ? "note" :
								    "DAMAGED",
		       pmu_str(x, "check", "-"), pmu_str(x, "what", "-"));
	printf("\nmissing inputs: %s\n", json_array_size(d->missing) ? "" : "none");
	json_array_foreach(d->missing, i, x)
		printf("  %s: %s\n", pmu_str(x, "input", "-"), pmu_str(x, "reason", "-"));
	if (v) {
		const json_t *j = json_object_get(d->m, "job");
		char restart[32], *line;
		snprintf(restart, sizeof(restart), "%lld",
			 (long long)json_integer_value(json_object_get(j, "restart")));
		line = pm_comment_line(v, pmu_str(j, "cluster", "-"), pmu_str(j, "id", "-"),
				       restart);
		printf("\nreconstructed verdict: %s\n", line ? line : "?");
		free(line);
		cli_timeline_print(stdout, v, 40);
	}
	printf("\n%s\n", d->damaged ?
				 "DAMAGED: this evidence would not survive an audit" :
				 "intact: retrievable and reconstructible from the store alone");
}

int cmd_drill(int argc, char **argv)
{
	struct cli_where w = {0};
	struct cli_run r;
	const char *rules = NULL, *cutoff = NULL;
	bool json = false;
	const struct pmu_opt opts[] = {
		{"rules", 'R', true, &rules, NULL},
		{"cutoff", 'X', true, &cutoff, NULL},
		{"json", 'j', false, &json, NULL},
		CLI_WHERE_OPTS(&w),
	};
	struct drill d = {0};
	struct pm_ruleset *rs = NULL;
	char err[768], *stored = NULL;
	size_t len;
	json_t *v = NULL, *changes = NULL, *sv;
	int rc = 1;

	if (pmu_opts_parse(argc, argv, 1, opts, PMU_NELEM(opts)) || optind != argc - 1 ||
	    (cutoff && strcmp(cutoff, "merge") && cli_time_parse(cutoff, &d.cutoff) < 0)) {
		fprintf(stderr, USAGE, prog);
		return 2;
	}
	d.checks = json_array();
	d.missing = json_array();
	if (cli_run_open(&r, &w, argv[optind], "drill", "DAMAGED") < 0)
		goto out;
	d.dir = r.dir;
	d.m = r.manifest;
	snprintf(d.run, sizeof(d.run), "%s/%s/%lld",
		 pmu_str(json_object_get(d.m, "job"), "cluster", "-"),
		 pmu_str(json_object_get(d.m, "job"), "id", "-"),
		 (long long)json_integer_value(
			 json_object_get(json_object_get(d.m, "job"), "restart")));
	pm_history_policy_of(r.cfg->repeat_jobs, r.cfg->repeat_window, &d.pol);
	/* "merge": what the last merge could have known */
	if (cutoff && !strcmp(cutoff, "merge") &&
	    cli_time_parse(json_string_value(json_object_get(d.m, "updated")), &d.cutoff) < 0) {
		fprintf(stderr, "%s drill: job %s: the manifest has no merge time\n", prog,
			argv[optind]);
		goto out;
	}
	if (!(rs = cli_load_rules(rules ? rules : r.cfg->rules)))
		goto out;
	check(&d, "manifest", "ok", "manifest.json reads (%s, expires %s)",
	      pmu_str(d.m, "schema", "-"), pmu_str(d.m, "expires", "-"));
	if (json_is_object(json_object_get(d.m, "verdict"))) {
		if (file_matches(&d, "verdict", "verdict.json",
				 pmu_str(json_object_get(d.m, "verdict"), "sha256", "-"))) {
			if (!(sv = cli_verdict_load(r.dir, &stored, &len, err, sizeof(err))))
				check(&d, "verdict", "damaged", "%s", err);
			json_decref(sv);
		}
	} else {
		check(&d, "verdict", "note", "no verdict: the evidence gave nothing to diagnose");
	}
	scheduler(&d);
	bundles(&d, rs);
	nodes(&d);
	if (json_array_size(json_object_get(d.m, "bundles")) || d.late)
		v = reconstruct(&d, rs, stored, &changes);
	coverage(&d, v);
	if (json) {
		json_t *o = json_pack("{s:s,s:s,s:b,s:b,s:O,s:O,s:O?,s:O?}", "job", argv[optind],
				      "dir", r.dir, "intact", d.damaged == 0, "complete",
				      json_array_size(d.missing) == 0, "checks", d.checks,
				      "missing_inputs", d.missing, "changes", changes, "verdict",
				      v);
		json_dumpf(o, stdout, JSON_SORT_KEYS | JSON_INDENT(2));
		putchar('\n');
		json_decref(o);
	} else {
		print(&d, argv[optind], v);
	}
	rc = d.damaged ? 1 : 0;
	if (fflush(stdout) != 0)
		rc = 1;
out:
	free(stored);
	json_decref(changes);
	json_decref(v);
	json_decref(d.checks);
	json_decref(d.missing);
	pm_ruleset_destroy(rs);
	cli_run_close(&r); /* d.m is its manifest */
	return rc;
}
