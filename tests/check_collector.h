/*
 * check_collector.h - what the collector suite's files share (check_collector.c): the test's
 * temporary folder and its fixture, a Slurm job's environment, a configuration cut down to
 * one source, a sample collection, a bundle's member, and each file's tests.
 */
#ifndef PM_CHECK_COLLECTOR_H
#define PM_CHECK_COLLECTOR_H

#include <check.h>
#include <stddef.h>
#include <sys/types.h>

#include "collector.h"

#define NOBODY 65534
#define NOGROUP 65534
#define AWS_KEY "AKIA2E0A8F3B244C9986"
/* the fields the finalizer asks sacct for (store/slurmdb.c) */
#define SACCT_TEST_FIELDS                                                 \
	"JobID,JobIDRaw,State,ExitCode,Start,End,NodeList,NNodes,NTasks," \
	"AllocTRES,ReqTRES,FailedNode,Cluster,UID,Reason"

/* The test's temporary folder (mode 0755), made by setup() and removed by teardown(). */
extern char tmp[256];
void setup(void);
void teardown(void);

/* Write TEXT to tmp/REL with MODE; its path (pmt_path's rotating buffers). */
const char *write_file(const char *rel, const char *text, mode_t mode);

/* Slurm's environment for a job whose output and error files are OUT and ERR. */
void slurm_env(const char *out, const char *err);

/* Configuration C with every source but KEEP turned off. */
void only(struct pm_config *c, enum pm_csource keep);
/* Source S of C runs CMD with TIMEOUT seconds, or reads PATH. */
void set_cmd(struct pm_config *c, enum pm_csource s, const char *cmd, double timeout);
void set_path(struct pm_config *c, enum pm_csource s, const char *path);
/* The job of the environment, its spool SPOOL. */
void load_job(struct pm_job *j, const char *spool);
/* The capture of source S in C named NAME or from an origin containing it (any when NULL). */
const struct pm_capture *cap_of(const struct pm_collection *c, enum pm_csource s, const char *name);

/* Member NAME of bundle PATH; the first member's name into FIRST. */
char *member(const char *path, const char *name, char *first, size_t flen);
/* Write LEN bytes of BUF to PATH. */
void save(const char *path, const void *buf, size_t len);
/* A collection with a command, a /proc file and a planted secret. */
void sample(struct pm_config *cfg, struct pm_job *j, struct pm_collection *c);

/* Each file's tests, added to TC in the suite's order. */
void collector_collect_tests(TCase *tc); /* check_collector_collect.c */
void collector_bundle_tests(TCase *tc);	 /* check_collector_bundle.c */
void collector_store_tests(TCase *tc);	 /* check_collector_store.c */
void collector_carry_tests(TCase *tc);	 /* check_collector_carry.c */

#endif
