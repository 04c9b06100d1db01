/*
 * check_engine.h - what the engine suite's files share (check_engine.c): the temporary
 * folder and its fixture, the small rule set and its loader, diagnosing a folder, a bundle
 * writer, a node with a skewed clock, a verdict's strings, and each file's tests.
 */
#ifndef PM_CHECK_ENGINE_H
#define PM_CHECK_ENGINE_H

#include <check.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct pm_ruleset;

/* The test's temporary folder, made by setup() and removed by teardown(). */
extern char tmp[256];
void setup(void);
void teardown(void);

/* The rule set's header and its four rules (xid-79, its echo, py-exc, watchdog). */
extern const char *HEADER, *RULES;
/* Load tmp/rules with EXTRA (or RULES) as its one rule file; NULL with ERR on an error. */
struct pm_ruleset *load(const char *extra, char *err, size_t len);
/* The verdict on tmp/REL (the test fails when it cannot be made). */
json_t *diagnose_dir(struct pm_ruleset *rs, const char *rel);

/* Write bundle PATH: manifest.json (MANIFEST), then MEMBER of archive entry TYPE (DATA for a
 * regular file, a link to /etc/shadow for a link); a plain tar when plain_tar is set. */
extern bool plain_tar;
void write_bundle(const char *path, const char *member, const char *data, const char *manifest,
		  int type);

/* A node's bundle NODE.tar.zst in DIR with kernel log KLOG, its collector started at CSTART. */
void skew_bundle(const char *dir, const char *node, const char *klog, const char *cstart);
/* Job 77 in DIR: sacct.txt says it ran 03:11:00-03:12:00 on n1 and n2 and FAILED with EXIT
 * (sacct's "code:signal"), its step 77.0 (4 tasks) ended STEP_END ("STATE|code:signal");
 * slurm-77.out holds OUT. */
void job77(const char *dir, const char *exit, const char *step_end, const char *out);
/* Job 77 in DIR on n1 and n2 (03:11-03:12 by the controller's clock): n1's ranks time out,
 * n2's fall silent. */
void skew_job(const char *dir);
/* Whether a line of V's "why" has A (and B when not NULL). */
bool why_has(const json_t *v, const char *a, const char *b);
/* V's string KEY (in object OBJ when not NULL), or NULL. */
const char *vstr(const json_t *v, const char *obj, const char *key);
/* A kernel log line of node n1. */
extern const char *KLOG_N1;

/* Each file's tests, added to TC in the suite's order. */
void engine_bundle_tests(TCase *tc);	  /* check_engine_bundle.c */
void engine_attribution_tests(TCase *tc); /* check_engine_attribution.c */

#endif
