/*
 * diagnose.c - `postmortem diagnose [--json|--inputs] [--comment] [--rules DIR] PATH...`
 * --inputs: every input file read, with its node, source, format and status (JSON), instead
 * of the verdict.
 * Exit 0 with a verdict (whatever its status), 1 when no verdict can be made, 2 usage.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

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
