/*
 * fixture.h - the comparison of a verdict with a known answer (rules/README.md, "Fixtures"):
 * pm_fixture_run's (postmortem.h) and the engine tests'.  Not installed.
 */
#ifndef PM_FIXTURE_H
#define PM_FIXTURE_H

#include "postmortem.h"

/*
 * Compare EXPECTED (a subset, with the extra keys "fired" and "not_fired") with the verdict
 * ACTUAL.  Returns 0 when it matches; otherwise 1 and appends one line per difference to
 * *DIFF (malloc'd, caller frees).
 */
int pm_fixture_compare(const json_t *expected, const json_t *actual, char **diff);

#endif
