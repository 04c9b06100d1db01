/*
 * rules_check.c - `postmortem rules check [--case NAME] [--verdicts DIR] [RULESDIR]`: load and
 * validate a rule set (errors name file:line), then run its fixtures (RULESDIR/fixtures),
 * writing each case's verdict to DIR/CASE.json and its inputs to DIR/CASE.inputs.json when
 * asked.  Exit 0 when every case passes and every rule is covered; 1 otherwise.  `rules list`
 * prints the rules.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int check(int argc, char **argv)
{
	const char *only = NULL, *verdicts = NULL, *dir;
	const struct pmu_opt opts[] = {{"case", 'c', true, &only, NULL},
				       {"verdicts", 'v', true, &verdicts, NULL}};
	struct pm_ruleset *rs;
	struct pm_fixture_result r;
	char fix[4096];

	if (pmu_opts_parse(argc, argv, 1, opts, PMU_NELEM(opts))) {
		fprintf(stderr, "usage: %s rules check [--case NAME] [--verdicts DIR] [RULESDIR]\n",
			prog);
		return 2;
	}
	dir = cli_rules_dir(optind < argc ? argv[optind] : NULL);
	rs = cli_load_rules(dir);
	if (!rs)
		return 1;
	printf("rule set %s version %s: %zu rules, %s\n", pm_ruleset_id(rs), pm_ruleset_version(rs),
	       pm_ruleset_count(rs), pm_ruleset_digest(rs));
	snprintf(fix, sizeof(fix), "%s/fixtures", dir);
	if (pm_fixture_run(rs, fix, only, verdicts, stdout, &r) < 0) {
		printf("no fixtures in %s\n", fix);
		pm_ruleset_destroy(rs);
		return only ? 1 : 0;
	}
	printf("%u cases: %u passed, %u failed, %u errors; %u rules uncovered\n", r.cases, r.passed,
	       r.failed, r.errors, r.rules_uncovered);
	pm_ruleset_destroy(rs);
	return r.failed || r.errors || r.rules_uncovered || (only && !r.cases) ? 1 : 0;
}

static int list(int argc, char **argv)
{
	struct pm_ruleset *rs = cli_load_rules(argc > 1 ? argv[1] : NULL);

	if (!rs)
		return 1;
	for (size_t i = 0; i < pm_ruleset_count(rs); i++)
		printf("%s\n", pm_ruleset_rule_id(rs, i));
	pm_ruleset_destroy(rs);
	return 0;
}

int cmd_rules(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "check"))
		return check(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "list"))
		return list(argc - 1, argv + 1);
	fprintf(stderr,
		"usage: %s rules check [--case NAME] [--verdicts DIR] [RULESDIR] | rules list "
		"[RULESDIR]\n",
		prog);
	return 2;
}
