/*
 * check_spank.c - the SPANK plugin: plugstack arguments, record encoding (read back with
 * jansson), wait statuses, the spool (concurrent writers, the bound, a full disk), the
 * collector's deadline, and the callbacks themselves driven through a fake Slurm: the
 * spank_* and slurm_* functions below stand in for those of slurmstepd and slurmd.
 * Each test runs in its own process (check's fork mode), so the plugin's per-process
 * state starts fresh every time.
 *
 * This file holds the fake Slurm, the shared helpers (check_spank.h) and the suite; the
 * arguments, records and wait statuses are tested in check_spank_args.c, the spool and the
 * collector's deadline in check_spank_spool.c, the callbacks in check_spank_callbacks.c.
 */

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <slurm/spank.h>

#include "pmspank.h"
#include "support.h"
#include "check_spank.h"

/* ---- a fake Slurm ---- */

/* every string the fake environment holds, freed by teardown */
static char *allocs[512];
static int nallocs;

char *keep(char *s)
{
	ck_assert_ptr_nonnull(s);
	ck_assert_int_lt(nallocs, 512);
	return allocs[nallocs++] = s;
}

spank_context_t ctx = S_CTX_REMOTE;
struct spank_option *registered[8];
int nregistered;
char last_error[2048];
int nerrors;

spank_context_t spank_context(void)
{
	return ctx;
}

spank_err_t spank_option_register(spank_t sp, struct spank_option *opt)
{
	(void)sp;
	if (nregistered < 8)
		registered[nregistered++] = opt;
	return ESPANK_SUCCESS;
}

/* the job's option values as the job epilog sees them */
const char *job_option_value;
char job_control_env[64];

spank_err_t spank_option_getopt(spank_t sp, struct spank_option *opt, char **value)
{
	(void)sp;
	if (!job_option_value || strcmp(opt->name, "postmortem") != 0)
		return ESPANK_ERROR;
	*value = (char *)job_option_value;
	return ESPANK_SUCCESS;
}

spank_err_t spank_job_control_setenv(spank_t sp, const char *var, const char *val, int overwrite)
{
	(void)sp, (void)overwrite;
	snprintf(job_control_env, sizeof(job_control_env), "SPANK_%s=%s", var, val);
	return ESPANK_SUCCESS;
}

spank_err_t spank_get_item(spank_t sp, spank_item_t item, ...)
{
	va_list ap;
	spank_err_t rc = ESPANK_SUCCESS;

	va_start(ap, item);
	switch (item) {
	case S_JOB_ID:
		*va_arg(ap, uint32_t *) = sp->job;
		break;
	case S_JOB_STEPID:
		*va_arg(ap, uint32_t *) = sp->step;
		break;
	case S_JOB_NODEID:
		*va_arg(ap, uint32_t *) = sp->nodeid;
		break;
	case S_TASK_GLOBAL_ID:
		if (!sp->in_task)
			rc = ESPANK_NOT_TASK;
		else
			*va_arg(ap, uint32_t *) = sp->rank;
		break;
	case S_TASK_ID:
		*va_arg(ap, int *) = sp->local;
		break;
	case S_TASK_PID:
		*va_arg(ap, pid_t *) = sp->pid;
		break;
	case S_TASK_EXIT_STATUS:
		*va_arg(ap, int *) = sp->status;
		break;
	default:
		rc = ESPANK_BAD_ARG;
	}
	va_end(ap);
	return rc;
}

static int env_find(spank_t sp, const char *var)
{
	size_t n = strlen(var);
	int i;

	for (i = 0; i < MAX_ENV && sp->env[i]; i++)
		if (strncmp(sp->env[i], var, n) == 0 && sp->env[i][n] == '=')
			return i;
	return -1;
}

spank_err_t spank_getenv(spank_t sp, const char *var, char *buf, int len)
{
	int i = env_find(sp, var);

	if (i < 0)
		return ESPANK_ENV_NOEXIST;
	if ((int)strlen(strchr(sp->env[i], '=') + 1) >= len)
		return ESPANK_NOSPACE;
	strcpy(buf, strchr(sp->env[i], '=') + 1);
	return ESPANK_SUCCESS;
}

spank_err_t spank_setenv(spank_t sp, const char *var, const char *val, int overwrite)
{
	int i = env_find(sp, var);

	if (i >= 0 && !overwrite)
		return ESPANK_ENV_EXISTS;
	if (i < 0)
		for (i = 0; i < MAX_ENV && sp->env[i]; i++)
			;
	ck_assert_int_lt(i, MAX_ENV);
	ck_assert_int_ge(asprintf(&sp->env[i], "%s=%s", var, val), 0);
	keep(sp->env[i]);
	return ESPANK_SUCCESS;
}

__attribute__((format(printf, 1, 0))) static void logv(const char *fmt, va_list ap, int err)
{
	char buf[2048];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (err) {
		nerrors++;
		snprintf(last_error, sizeof(last_error), "%s", buf);
	}
	if (getenv("PM_TEST_VERBOSE"))
		fprintf(stderr, "%s: %s\n", err ? "error" : "log", buf);
}

#define LOGFN(name, err)                \
	void name(const char *fmt, ...) \
	{                               \
		va_list ap;             \
		va_start(ap, fmt);      \
		logv(fmt, ap, err);     \
		va_end(ap);             \
	}
LOGFN(slurm_error, 1)
LOGFN(slurm_info, 0)
LOGFN(slurm_debug, 0)
LOGFN(slurm_verbose, 0)

/* ---- helpers ---- */

char tmp[256];
char spool[300];

void setup(void)
{
	snprintf(tmp, sizeof(tmp), "/tmp/check_spank.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	snprintf(spool, sizeof(spool), "%s/spool", tmp);
}

void teardown(void)
{
	while (nallocs > 0)
		free(allocs[--nallocs]);
	pmt_rmtree(tmp);
}

bool tiny_spool(char *mnt, size_t len, const char *size, rlim_t limit)
{
	struct rlimit rl = {limit, limit};
	char opts[64];
	bool mounted;

	snprintf(mnt, len, "%s/tiny", tmp);
	mkdir(mnt, 0700);
	snprintf(opts, sizeof(opts), "size=%s,mode=0700", size);
	mounted = mount("tmpfs", mnt, "tmpfs", 0, opts) == 0;
	snprintf(spool, sizeof(spool), "%s/spool", mounted ? mnt : tmp);
	if (!mounted) {
		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &rl);
	}
	return mounted;
}

void handle(struct spank_handle *sp, uint32_t job, uint32_t step)
{
	memset(sp, 0, sizeof(*sp));
	sp->job = job;
	sp->step = step;
	sp->nodeid = 1;
	/* as slurmstepd has it before the tasks exec: srun's SLURMD_NODENAME, not this node's */
	sp->env[3] = keep(strdup("SLURMD_NODENAME=n1"));
	sp->env[0] = keep(strdup("SLURM_TOPOLOGY_ADDR=n2"));
	sp->env[1] = keep(strdup("SLURM_STEP_GPUS=2,3"));
	sp->env[2] = keep(strdup(
		"CUDA_VISIBLE_DEVICES=GPU-0f1e2d3c-aaaa-bbbb-cccc-000000000002,GPU-0f1e2d3c-aaaa-bbbb-cccc-000000000003"));
}

void putenv_sp(struct spank_handle *sp, const char *kv)
{
	int i;

	for (i = 0; i < MAX_ENV && sp->env[i]; i++)
		;
	sp->env[i] = keep(strdup(kv));
}

const char *env_of(struct spank_handle *sp, const char *var)
{
	int i = env_find(sp, var);

	return i < 0 ? NULL : strchr(sp->env[i], '=') + 1;
}

/* The JSON objects of a file of lines; every line must parse.  Returns the count. */
int read_lines(const char *path, json_t **objs, int max)
{
	char line[PM_REC_MAX + 16];
	json_error_t e;
	FILE *f = fopen(path, "r");
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		ck_assert_msg(strchr(line, '\n'), "torn line in %s", path);
		ck_assert_int_lt(n, max);
		objs[n] = json_loads(line, JSON_REJECT_DUPLICATES, &e);
		ck_assert_msg(objs[n], "%s: %s in %s", path, e.text, line);
		n++;
	}
	fclose(f);
	return n;
}

long long jint(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	ck_assert_msg(json_is_integer(v), "%s is not an integer", k);
	return json_integer_value(v);
}

const char *jstr(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	ck_assert_msg(json_is_string(v), "%s is not a string", k);
	return json_string_value(v);
}

mode_t mode_of(const char *p)
{
	struct stat st;

	ck_assert_int_eq(lstat(p, &st), 0);
	return st.st_mode & 07777;
}

/* ---- a script, the clock ---- */

void script(const char *name, const char *body, char *path, size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/%s", tmp, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	chmod(path, 0755);
}

long long ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

Suite *pmt_suite(void)
{
	Suite *s = suite_create("spank");
	TCase *t = tcase_create("pure");
	TCase *c = tcase_create("callbacks");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_set_timeout(t, 60);
	spank_args_tests(t);
	spank_spool_tests(t);
	suite_add_tcase(s, t);

	tcase_add_checked_fixture(c, setup, teardown);
	tcase_set_timeout(c, 60);
	spank_callback_tests(c);
	suite_add_tcase(s, c);
	return s;
}
