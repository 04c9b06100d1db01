/*
 * check_finalize.h - what the finalize suite's files share (check_finalize.c): the test's
 * folder and job run, the configuration, kernel logs, bundle and arrival writers, a merge, and
 * each file's tests.
 */
#ifndef PM_CHECK_FINALIZE_H
#define PM_CHECK_FINALIZE_H

#include <check.h>
#include <jansson.h>
#include <stdbool.h>

#include "finalize.h"

extern char T[256];	     /* the test's temporary folder */
extern char D[512];	     /* its job run: T/store/lab/4242/0 */
extern struct pm_config cfg; /* the store T/store, cluster lab, the fake Slurm commands */

#define K16 "[Mon Nov 30 03:00:00 2026] eth0: link up\n"
#define K17                                                                                   \
	"[Mon Nov 30 03:00:00 2026] eth0: link up\n"                                          \
	"[Mon Nov 30 03:11:58 2026] NVRM: Xid (PCI:0000:3b:00): 79, pid=31337, name=python, " \
	"GPU has fallen off the bus.\n"

/* The number of lines of DIR/NAME (0 when it cannot be read). */
int lines(const char *dir, const char *name);
/* Make P and its parents below T, mode 0755 whatever the umask. */
void mkdirs(const char *p);
/* NODE's bundle in D with kernel log KLOG, owned by UID, its collector's deadline hit or not. */
void bundle(const char *node, const char *klog, long long uid, bool deadline_hit);
/* NODE has arrived. */
void arrive(const char *node);
/* O's string at PATH ("a.b"), NULL when none. */
const char *jstr(const json_t *o, const char *path);
/* pm_finalize_ex on D (FORCE), its result in R. */
int fin(bool force, struct pm_finalize_result *r);
/* The comment line the stored verdict asks for (malloc'd). */
char *expected_line(void);

void finalize_recheck_tests(TCase *t); /* check_finalize_recheck.c */

#endif
