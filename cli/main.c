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
	{"diagnose", cmd_diagnose, "diagnose [--json|--inputs] [--comment] [--rules DIR] PATH...",
	 "diagnose a folder of logs, files, or an evidence bundle"},
	{"rules", cmd_rules,
	 "rules check [--case NAME] [--verdicts DIR] [RULESDIR] | rules list [RULESDIR]",
	 "validate a rule set and run its fixtures; list its rules"},
	{"show", cmd_show,
	 "show JOB [--json] [--timeline [--rules DIR]] [--store DIR] [--cluster C] "
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
	{"replay", cmd_replay,
	 "replay --rules DIR [JOB...|--since DATE] [--apply] [--json] [--history=recorded|now] "
	 "[--store DIR] [--cluster C] [--config FILE]",
	 "re-diagnose archived evidence under revised rules; list what changed and why"},
	{"ledger", cmd_ledger,
	 "ledger propose|record JOB --action ID [--note TEXT] | resolve JOB --result R | "
	 "show [JOB] [--summary] | verify [--log FILE] [--seal] | init; each [--json] "
	 "[--ledger FILE] [--head FILE] [--store DIR] [--cluster C] [--restart N] [--config FILE]",
	 "the decision ledger: proposed, done, resolved; tamper-evident"},
	{"drill", cmd_drill,
	 "drill JOB [--rules DIR] [--cutoff DATE|merge] [--json] [--store DIR] [--cluster C] "
	 "[--restart N] [--config FILE]",
	 "verify from the store alone that a job's evidence is intact and reconstructible"},
	{"expire", cmd_expire, "expire [--dry-run] [--now DATE] [--store DIR] [--config FILE]",
	 "remove evidence past its expiry date (root, from a daily timer)"},
	{"report", cmd_report,
	 "report JOB -o FILE.html [--store DIR] [--cluster C] [--restart N] [--config FILE] | "
	 "report --verdict FILE -o FILE.html",
	 "one self-contained HTML page: verdict, swimlane timeline, evidence, coverage"},
	{"metrics", cmd_metrics, "metrics [--textfile FILE] [--store DIR] [--config FILE]",
	 "the store as Prometheus metrics (node_exporter's textfile collector format)"},
	{"nodes", cmd_nodes,
	 "nodes [--since DURATION] [--node N] [--json] [--now DATE] [--ledger FILE] "
	 "[--store DIR] [--config FILE]",
	 "the node history: repeats across jobs, most in need first (operators and root)"},
	{"doctor", cmd_doctor,
	 "doctor [--recent] [--since DURATION] [--slurm-conf FILE] [--config FILE] "
	 "[--store DIR] [--rules DIR] [--log FILE] [--offline] [--strict] [--json]",
	 "check a deployment: what is wrong and how to fix it; --recent: the collector's health"},
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

/* --help or -h anywhere among a verb's arguments (before a "--"): `rules check --help` too. */
static bool wants_help(int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return false;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	}
	return false;
}

static const struct verb *find_verb(const char *name)
{
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcmp(name, verbs[i].name))
			return &verbs[i];
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		const struct verb *v = argc > 2 ? find_verb(argv[2]) : NULL;
		if (v) {
			printf("usage: %s %s\n  %s\n  (man postmortem)\n", prog, v->usage,
			       v->summary);
			return 0;
		}
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
		if (wants_help(argc - 2, argv + 2)) {
			printf("usage: %s %s\n  %s\n  (man postmortem)\n", prog, verbs[i].usage,
			       verbs[i].summary);
			return 0;
		}
		return verbs[i].run(argc - 1, argv + 1);
	}
	fprintf(stderr, "%s: unknown verb '%s'\n", prog, argv[1]);
	usage(stderr);
	return 2;
}
