/*
 * check_spank.h - what the plugin suite's files share (check_spank.c): the fake Slurm's
 * handle and what it recorded, the temporary folder and spool, a step's environment, lines
 * of JSON read back, a script, the clock, and each file's tests.
 */
#ifndef PM_CHECK_SPANK_H
#define PM_CHECK_SPANK_H

#include <check.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <slurm/spank.h>

#define MAX_ENV 32

/* the fake Slurm's handle: a step's ids, one task's place and status, its environment */
struct spank_handle {
	uint32_t job, step, nodeid, rank;
	int local, status;
	pid_t pid;
	int in_task;
	char *env[MAX_ENV];
};

/* S, kept to be freed by teardown (the test fails on NULL). */
char *keep(char *s);

/* what the fake Slurm was told: the context it reports, the options registered, the errors
 * logged (the last one's text), the job option value it hands back and the job control
 * environment set */
extern spank_context_t ctx;
extern struct spank_option *registered[8];
extern int nregistered;
extern char last_error[2048];
extern int nerrors;
extern const char *job_option_value;
extern char job_control_env[64];

/* The test's temporary folder and its spool (tmp/spool), made by setup(). */
extern char tmp[256];
extern char spool[300];
void setup(void);
void teardown(void);
/* Point spool at a tiny filesystem: a tmpfs of SIZE mounted on tmp/tiny (its path in MNT,
 * LEN bytes; true) when we may mount one, else tmp/spool with RLIMIT_FSIZE at LIMIT and
 * SIGXFSZ ignored (false).  The caller unmounts what it mounted. */
bool tiny_spool(char *mnt, size_t len, const char *size, rlim_t limit);

/* SP as slurmstepd has it for step STEP of job JOB on node 1, before the tasks exec. */
void handle(struct spank_handle *sp, uint32_t job, uint32_t step);
/* Add KV ("VAR=value") to SP's environment; VAR's value in it, or NULL. */
void putenv_sp(struct spank_handle *sp, const char *kv);
const char *env_of(struct spank_handle *sp, const char *var);

/* The JSON objects of a file of lines (at most MAX); every line must parse.  The count. */
int read_lines(const char *path, json_t **objs, int max);
/* O's integer or string K (the test fails when it is not one). */
long long jint(json_t *o, const char *k);
const char *jstr(json_t *o, const char *k);
/* P's permission bits (lstat). */
mode_t mode_of(const char *p);

/* Write tmp/NAME, a shell script running BODY, mode 0755; its path into PATH. */
void script(const char *name, const char *body, char *path, size_t len);
/* The monotonic clock in milliseconds. */
long long ms_now(void);

/* Each file's tests, added to TC in the suite's order. */
void spank_args_tests(TCase *tc);     /* check_spank_args.c */
void spank_spool_tests(TCase *tc);    /* check_spank_spool.c */
void spank_callback_tests(TCase *tc); /* check_spank_callbacks.c */

#endif
