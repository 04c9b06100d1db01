/*
 * diagnose.c - `postmortem diagnose [--json|--inputs] [--comment] [--rules DIR] PATH...`
 * --inputs: every input file read, with its node, source, format and status (JSON), instead
 * of the verdict.
 * A fetched copy's DIR/nodes (`postmortem fetch JOB -o DIR`: its manifest.json and verdict.json
 * beside it) brings the node history the stored verdict used: its "node_history", the history
 * as it stood at the job's end, is applied as replay applies it, so the copy gives the stored
 * bytes.
 * Exit 0 with a verdict (whatever its status), 1 when no verdict can be made, 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "history.h"
#include "pmconfig.h"
#include "pmutil.h"

/* Apply to V the node history that the fetched copy PATH (DIR/nodes, with DIR/manifest.json and
 * DIR/verdict.json) records: the records its verdict used, under the configuration's policy.
 * 1 applied, 0 not (PATH is no such copy, or its verdict used none), or -1 with ERR. */
static int fetched_history(const char *path, json_t *v, char *err, size_t errlen)
{
	char dir[4096], p[4200], run[400];
	size_t len = strlen(path);
	json_t *m = NULL, *old = NULL;
	const json_t *j;
	struct pm_config cfg = {0};
	struct pm_history_policy pol;
	struct pm_history_rec *h = NULL;
	size_t n = 0;
	int rc = 0;

	while (len > 1 && path[len - 1] == '/')
		len--;
	if (len < 5 || len >= sizeof(dir) || strncmp(path + len - 5, "nodes", 5) ||
	    (len > 5 && path[len - 6] != '/'))
		return 0;
	snprintf(dir, sizeof(dir), "%.*s", (int)(len - 5), path);
	if (!dir[0])
		snprintf(dir, sizeof(dir), "./");
	snprintf(p, sizeof(p), "%smanifest.json", dir);
	if (!(m = json_load_file(p, 0, NULL)))
		return 0;
	snprintf(p, sizeof(p), "%sverdict.json", dir);
	if (!(old = json_load_file(p, 0, NULL)) || !json_object_get(old, "node_history"))
		goto out;
	j = json_object_get(m, "job");
	snprintf(run, sizeof(run), "%s/%s/%lld", pmu_str(j, "cluster", "-"), pmu_str(j, "id", "-"),
		 (long long)json_integer_value(json_object_get(j, "restart")));
	if (pm_history_used(old, &h, &n) < 0) {
		rc = pmu_fail(err, errlen, EINVAL, "%s: its node_history cannot be read", p);
		goto out;
	}
	if (cli_load_config(NULL, NULL, &cfg) < 0) {
		rc = pmu_fail(err, errlen, EINVAL, "the configuration (the repair policy of %s)",
			      p);
		goto out;
	}
	pm_history_policy_of(cfg.repeat_jobs, cfg.repeat_window, &pol);
	pm_config_free(&cfg);
	rc = pm_history_apply(v, run, h, n, &pol) < 0 ?
		     pmu_fail(err, errlen, ENOMEM, "out of memory") :
		     1;
out:
	free(h);
	json_decref(old);
	json_decref(m);
	return rc;
}

int cmd_diagnose(int argc, char **argv)
{
	const char *rules = NULL;
	bool json = false, comment = false, inputs = false;
	const struct pmu_opt opts[] = {
		{"json", 'j', false, &json, NULL},
		{"comment", 'c', false, &comment, NULL},
		{"inputs", 'i', false, &inputs, NULL},
		{"rules", 'r', true, &rules, NULL},
	};
	struct pm_ruleset *rs = NULL;
	struct pm_evidence *ev = NULL;
	json_t *v = NULL;
	char err[512] = "", *out = NULL;
	int rc = 1;

	if (pmu_opts_parse(argc, argv, 1, opts, PMU_NELEM(opts))) {
		fprintf(stderr,
			"usage: %s diagnose [--json|--inputs] [--comment] [--rules DIR] PATH...\n",
			prog);
		return 2;
	}
	if (optind >= argc) {
		fprintf(stderr, "%s diagnose: name a folder of logs, a file, or a bundle\n", prog);
		return 2;
	}
	if (!(rs = cli_load_rules(rules)) || !(ev = pm_evidence_create(rs)))
		goto out;
	pm_evidence_set_threads(ev, pm_threads_usable());
	for (int i = optind; i < argc; i++) {
		if (pm_evidence_add_path(ev, argv[i], err, sizeof(err)) < 0) {
			fprintf(stderr, "%s diagnose: %s\n", prog, err);
			goto out;
		}
	}
	v = pm_diagnose(ev, err, sizeof(err));
	if (!v) {
		fprintf(stderr, "%s diagnose: %s\n", prog, err);
		goto out;
	}
	for (int i = optind, h = 0; !inputs && !h && i < argc; i++) { /* one copy's history */
		if ((h = fetched_history(argv[i], v, err, sizeof(err))) < 0) {
			fprintf(stderr, "%s diagnose: %s\n", prog, err);
			goto out;
		}
	}
	if (inputs) {
		json_decref(v);
		v = pm_evidence_inputs(ev);
		out = v ? json_dumps(v, JSON_INDENT(2) | JSON_ENSURE_ASCII) : NULL;
		if (out)
			puts(out);
		comment = false;
	} else {
		out = comment ? pm_verdict_comment(v) :
		      json    ? pm_verdict_dump(v) :
				pm_verdict_text(v);
		if (out)
			fputs(out, stdout);
	}
	if (!out) {
		fprintf(stderr, "%s diagnose: out of memory\n", prog);
		goto out;
	}
	if (comment)
		putchar('\n');
	rc = fflush(stdout) == 0 ? 0 : 1;
out:
	free(out);
	json_decref(v);
	pm_evidence_destroy(ev);
	pm_ruleset_destroy(rs);
	return rc;
}
