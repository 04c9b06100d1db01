/*
 * fixture.h - known-answer cases for a rule set (rules/README.md, "Fixtures"): used by
 * `postmortem rules check` and by the test suite.  Not part of the public header.
 */
#ifndef PM_FIXTURE_H
#define PM_FIXTURE_H

#include <stdio.h>
#include "postmortem.h"

/*
 * Compare EXPECTED (a subset, with the extra keys "fired" and "not_fired") with the verdict
 * ACTUAL.  Returns 0 when it matches; otherwise 1 and appends one line per difference to
 * *DIFF (malloc'd, caller frees).
 */
int pm_fixture_compare(const json_t *expected, const json_t *actual, char **diff);

/* Counts from a run over a rule set's fixtures. */
struct pm_fixture_result {
	unsigned cases, passed, failed, errors;
	unsigned rules_uncovered;
};

/*
 * Run every case under FIXDIR (one folder per case holding expected.json and evidence/)
 * with RS; write a line per case and a readable diff per failure to OUT.  ONLY, when not
 * NULL, restricts the run to the case of that name.  Returns 0, or -1 when FIXDIR cannot
 * be read.
 */
int pm_fixture_run(const struct pm_ruleset *rs, const char *fixdir, const char *only, FILE *out,
		   struct pm_fixture_result *res);

#endif
