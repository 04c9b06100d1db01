/*
 * main.c - `postmortem VERB ...`: dispatch to one file per verb.  Exit status: 0 success,
 * 1 the verb could not produce its result, 2 usage.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

const char *prog = "postmortem";

static const struct verb verbs[] = {
	{"diagnose", cmd_diagnose, "diagnose [--json] [--comment] [--rules DIR] PATH...",
	 "diagnose a folder of logs, files, or an evidence bundle"},
	{"rules", cmd_rules, "rules check [--case NAME] [RULESDIR] | rules list [RULESDIR]",
	 "validate a rule set and run its fixtures; list its rules"},
	{"show", cmd_show,
	 "show JOB [--json] [--timeline] [--store DIR] [--cluster C] "
	 "[--restart N] [--config FILE]",
	 "print a job's stored verdict"},
	{"fetch", cmd_fetch,
	 "fetch JOB -o DIR [--store DIR] [--cluster C] [--restart N] "
	 "[--config FILE]",
	 "copy a job's evidence bundles, manifest and verdict, verified"},
	{"finalize", cmd_finalize,
	 "finalize [JOB] [--pending] [--force] [--grace DURATION] "
	 "[--store DIR] [--cluster C] [--restart N] [--config FILE]",
	 "merge late or incomplete jobs, retry pending comments (root, from a timer)"},
};

static void usage(FILE *f)
{
	fprintf(f, "usage: %s VERB [ARGS]   (%s VERB --help)\n\n", prog, prog);
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		fprintf(f, "  %-10s %s\n", verbs[i].name, verbs[i].summary);
}

static bool isdir(const char *p)
{
	struct stat st;
	return p && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *cli_rules_dir(const char *opt)
{
	const char *env = getenv("POSTMORTEM_RULES");

	if (opt)
		return opt;
	if (env && *env)
		return env;
	if (isdir(PM_RULESDIR))
		return PM_RULESDIR;
	return PM_SRCRULES;
}

struct pm_ruleset *cli_load_rules(const char *opt)
{
	char err[512];
	const char *dir = cli_rules_dir(opt);
	struct pm_ruleset *rs = pm_ruleset_load(dir, err, sizeof(err));

	if (!rs)
		fprintf(stderr, "%s: rules %s: %s\n", prog, dir, err);
	return rs;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("postmortem %s\n", PACKAGE_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++) {
		if (strcmp(argv[1], verbs[i].name))
			continue;
		if (argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
			printf("usage: %s %s\n  %s\n", prog, verbs[i].usage, verbs[i].summary);
			return 0;
		}
		return verbs[i].run(argc - 1, argv + 1);
	}
	fprintf(stderr, "%s: unknown verb '%s'\n", prog, argv[1]);
	usage(stderr);
	return 2;
}
