/* cli.h - the postmortem command's verbs; each is a thin shell over libpostmortem. */
#ifndef PM_CLI_H
#define PM_CLI_H

#include "postmortem.h"

struct verb {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *usage;
	const char *summary;
};

/* The rule set directory to use: OPT (--rules), $POSTMORTEM_RULES, the installed set, or
 * the source tree's set when running uninstalled. */
const char *cli_rules_dir(const char *opt);
/* Load the rule set or print the loader's error (file:line) and return NULL. */
struct pm_ruleset *cli_load_rules(const char *opt);

int cmd_diagnose(int argc, char **argv);
int cmd_rules(int argc, char **argv);

extern const char *prog;

#endif
