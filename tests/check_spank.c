/*
 * check_spank.c - the SPANK plugin: plugstack arguments, record encoding (read back with
 * jansson), wait statuses, the spool (concurrent writers, the bound, a full disk), the
 * collector's deadline, and the callbacks themselves driven through a fake Slurm: the
 * spank_* and slurm_* functions below stand in for those of slurmstepd and slurmd.
 * Each test runs in its own process (check's fork mode), so the plugin's per-process
 * state starts fresh every time.
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

/* ---- a fake Slurm ---- */

#define MAX_ENV 32

struct spank_handle {
	uint32_t job, step, nodeid, rank;
	int local, status;
	pid_t pid;
	int in_task;
	char *env[MAX_ENV];
};

/* every string the fake environment holds, freed by teardown */
static char *allocs[512];
static int nallocs;

static char *keep(char *s)
{
	ck_assert_ptr_nonnull(s);
	ck_assert_int_lt(nallocs, 512);
	return allocs[nallocs++] = s;
}

static spank_context_t ctx = S_CTX_REMOTE;
static struct spank_option *registered[8];
static int nregistered;
static char last_error[2048];
static int nerrors;

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
static const char *job_option_value;
static char job_control_env[64];

spank_err_t spank_option_getopt(spank_t sp, struct spank_option *opt, char **optarg)
{
	(void)sp;
	if (!job_option_value || strcmp(opt->name, "postmortem") != 0)
		return ESPANK_ERROR;
	*optarg = (char *)job_option_value;
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

static void logv(const char *fmt, va_list ap, int err)
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

static char tmp[256];
static char spool[300];

static void setup(void)
{
	snprintf(tmp, sizeof(tmp), "/tmp/check_spank.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	snprintf(spool, sizeof(spool), "%s/spool", tmp);
}

static void teardown(void)
{
	while (nallocs > 0)
		free(allocs[--nallocs]);
	pmt_rmtree(tmp);
}

static void handle(struct spank_handle *sp, uint32_t job, uint32_t step)
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

static void putenv_sp(struct spank_handle *sp, const char *kv)
{
	int i;

	for (i = 0; i < MAX_ENV && sp->env[i]; i++)
		;
	sp->env[i] = keep(strdup(kv));
}

static const char *env_of(struct spank_handle *sp, const char *var)
{
	int i = env_find(sp, var);

	return i < 0 ? NULL : strchr(sp->env[i], '=') + 1;
}

/* The JSON objects of a file of lines; every line must parse.  Returns the count. */
static int read_lines(const char *path, json_t **objs, int max)
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

static long long jint(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	ck_assert_msg(json_is_integer(v), "%s is not an integer", k);
	return json_integer_value(v);
}

static const char *jstr(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	ck_assert_msg(json_is_string(v), "%s is not a string", k);
	return json_string_value(v);
}

static mode_t mode_of(const char *p)
{
	struct stat st;

	ck_assert_int_eq(lstat(p, &st), 0);
	return st.st_mode & 07777;
}

/* ---- plugstack/args.c ---- */

static int parse(char *err, size_t len, struct pm_args *a, ...)
{
	char *av[16];
	va_list ap;
	int ac = 0;

	va_start(ap, a);
	while (ac < 16 && (av[ac] = va_arg(ap, char *)))
		ac++;
	va_end(ap);
	return pm_args_parse(a, ac, av, err, len);
}

START_TEST(test_args_defaults_and_every_key)
{
	struct pm_args a;
	char err[512];

	ck_assert_int_eq(parse(err, sizeof(err), &a, NULL), 0);
	ck_assert_str_eq(a.spool, "/var/spool/postmortem");
	ck_assert_str_eq(a.store, "");
	ck_assert_str_eq(a.config, "");
	ck_assert_str_eq(a.collector, PM_DEFAULT_COLLECTOR);
	ck_assert_uint_eq(a.retain_ms, 14ULL * 86400000);
	ck_assert_uint_eq(a.extras, 0);
	ck_assert_uint_eq(a.max_records, PM_DEFAULT_MAX_RECORDS);

	ck_assert_int_eq(parse(err, sizeof(err), &a, "spool=/var/spool/pm/", "store=/shared/pm",
			       "retain=36h", "config=/etc/postmortem/epilog.conf",
			       "collector=/usr/sbin/postmortem-epilog",
			       "extras=torch_error_file,nccl_debug_warn", "max_records=500",
			       "timeout=2m", NULL),
			 0);
	ck_assert_str_eq(a.spool, "/var/spool/pm");
	ck_assert_str_eq(a.store, "/shared/pm");
	ck_assert_uint_eq(a.retain_ms, 36ULL * 3600000);
	ck_assert_str_eq(a.config, "/etc/postmortem/epilog.conf");
	ck_assert_str_eq(a.collector, "/usr/sbin/postmortem-epilog");
	ck_assert_uint_eq(a.extras, PM_EXTRA_TORCH_ERROR_FILE | PM_EXTRA_NCCL_DEBUG);
	ck_assert_uint_eq(a.max_records, 500);
	ck_assert_uint_eq(a.timeout_ms, 120000);
	ck_assert_int_eq(parse(err, sizeof(err), &a,
			       "extras=nccl_dump_on_timeout,torch_error_file,nccl_debug_warn",
			       NULL),
			 0);
	ck_assert_uint_eq(a.extras, 7);
	ck_assert_int_eq(parse(err, sizeof(err), &a, "extras=none", NULL), 0);
	ck_assert_uint_eq(a.extras, 0);
}
END_TEST

START_TEST(test_args_malformed_named)
{
	static const struct {
		const char *arg;
		const char *named; /* must appear in the error */
	} bad[] = {
		{"spol=/x", "unknown key 'spol'"},
		{"spool", "'spool': expected key=value"},
		{"=x", "expected key=value"},
		{"spool=", "'spool=': empty value"},
		{"spool=var/spool", "'spool=var/spool': not an absolute path"},
		{"spool=/", "'spool=/'"},
		{"spool=/var/../etc", "'spool=/var/../etc'"},
		{"spool=/var//x", "'spool=/var//x'"},
		{"spool=/var/sp\nool", "control character"},
		{"store=relative", "'store=relative'"},
		{"config=./c", "'config=./c'"},
		{"collector=bin/x", "'collector=bin/x'"},
		{"retain=14x", "'retain=14x'"},
		{"retain=d", "'retain=d'"},
		{"retain=0", "'retain=0'"},
		{"retain=-3d", "'retain=-3d'"},
		{"retain=99999999999999999999d", "'retain=99999999999999999999d'"},
		{"retain=1d30", "'retain=1d30'"},
		{"extras=torch", "unknown extra 'torch'"},
		{"extras=torch_error_file,,nccl_debug_warn", "unknown extra ''"},
		{"extras=nccl_debug_warn,", "unknown extra ''"},
		{"max_records=0", "'max_records=0'"},
		{"max_records=abc", "'max_records=abc'"},
		{"max_records=-1", "'max_records=-1'"},
		{"max_records=12k", "'max_records=12k'"},
		{"max_records=999999999999", "'max_records=999999999999'"},
		{"timeout=10ms", "'timeout=10ms'"},
		{"timeout=2h", "'timeout=2h'"},
	};
	struct pm_args a;
	char err[512];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		/* after a good argument: the error names the bad one, not the first */
		char *av[2] = {(char *)(strncmp(bad[i].arg, "timeout", 7) ? "timeout=5s" :
									    "retain=1d"),
			       (char *)bad[i].arg};

		err[0] = '\0';
		ck_assert_msg(pm_args_parse(&a, 2, av, err, sizeof(err)) == -1, "%s accepted",
			      bad[i].arg);
		ck_assert_msg(strstr(err, bad[i].named), "error for '%s' does not name it: %s",
			      bad[i].arg, err);
	}
	ck_assert_int_eq(parse(err, sizeof(err), &a, "retain=1d", "retain=2d", NULL), -1);
	ck_assert_ptr_nonnull(strstr(err, "'retain' given twice"));
}
END_TEST

START_TEST(test_durations)
{
	static const struct {
		const char *s;
		unsigned long long ms;
	} ok[] = {
		{"14d", 14ULL * 86400000},
		{"36h", 36ULL * 3600000},
		{"90", 90000},
		{"1d12h", 36ULL * 3600000},
		{"500ms", 500},
		{"2w", 14ULL * 86400000},
		{"1m30s", 90000},
		{"0s", 0},
	};
	static const char *const bad[] = {"",	  "h",	  "1x",	  "1 d", "1d ",
					  "1mss", "1min", "1.5h", "1d2"};
	unsigned long long ms;
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		ck_assert_msg(pm_duration_parse(ok[i].s, &ms) == 0, "%s", ok[i].s);
		ck_assert_uint_eq(ms, ok[i].ms);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(pm_duration_parse(bad[i], &ms) == -1, "'%s' accepted", bad[i]);
}
END_TEST

START_TEST(test_logs_split_and_user_dir)
{
	char paths[4][PM_PATH_MAX], err[256], buf[PM_PATH_MAX];

	ck_assert_int_eq(pm_logs_split("/a/train.log,/b/%j.err", paths, 4, err, sizeof(err)), 2);
	ck_assert_str_eq(paths[0], "/a/train.log");
	ck_assert_str_eq(paths[1], "/b/%j.err");
	ck_assert_int_eq(pm_logs_split("train.log", paths, 4, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "'train.log': not an absolute path"));
	ck_assert_int_eq(pm_logs_split("/a,,/b", paths, 4, err, sizeof(err)), -1);
	ck_assert_int_eq(pm_logs_split("/a,/b,/c,/d,/e", paths, 4, err, sizeof(err)), -1);
	ck_assert_int_eq(pm_logs_split("", paths, 4, err, sizeof(err)), -1);

	ck_assert_int_eq(pm_user_dir(buf, sizeof(buf), "/scratch/tmp", "42"), 0);
	ck_assert_str_eq(buf, "/scratch/tmp/postmortem.42");
	ck_assert_int_eq(pm_user_dir(buf, sizeof(buf), NULL, "42"), 0);
	ck_assert_str_eq(buf, "/tmp/postmortem.42");
	ck_assert_int_eq(pm_user_dir(buf, sizeof(buf), "../evil", "42"), 0);
	ck_assert_str_eq(buf, "/tmp/postmortem.42");
}
END_TEST

START_TEST(test_hostlist_nth)
{
	static const struct {
		const char *list;
		unsigned long n;
		const char *want; /* NULL: none */
	} v[] = {
		{"n[1-2]", 0, "n1"},
		{"n[1-2]", 1, "n2"},
		{"n[1-2]", 2, NULL},
		{"gpu[016-017,020],login1", 2, "gpu020"},
		{"gpu[016-017,020],login1", 3, "login1"},
		{"a,b,c", 1, "b"},
		{"rack1-n[08-10]-ib", 2, "rack1-n10-ib"},
		{"x[1-2],y[3,5-6]", 3, "y5"},
		{"n[1-2", 0, NULL},
		{"r[1-2]n[1-2]", 0, NULL},
		{"n[2-1]", 0, NULL},
		{"", 0, NULL},
	};
	char buf[64];
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		int rc = pm_hostlist_nth(v[i].list, v[i].n, buf, sizeof(buf));

		if (!v[i].want) {
			ck_assert_msg(rc == -1, "%s #%lu gave %s", v[i].list, v[i].n, buf);
			continue;
		}
		ck_assert_msg(rc == 0, "%s #%lu: none", v[i].list, v[i].n);
		ck_assert_str_eq(buf, v[i].want);
	}
}
END_TEST

/* ---- record.c, status.c ---- */

static void task(struct pm_spank_task *t)
{
	memset(t, 0, sizeof(*t));
	t->job = "4242";
	t->step = "0";
	t->node = "gpu017";
	t->node_id = 1;
	t->rank = 11;
	t->local_rank = 3;
	t->pid = 31337;
	t->gpus = "3";
	t->gpus_from = "SLURM_STEP_GPUS";
	t->cuda_visible = "GPU-5b2c3d4e-1111-2222-3333-444455556666";
	t->real.tv_sec = 1796010000;
	t->real.tv_nsec = 123456789;
	t->mono.tv_sec = 5000;
	t->mono.tv_nsec = 1000;
}

static json_t *load_line(const char *buf, int len)
{
	json_error_t e;
	json_t *o;

	ck_assert_int_gt(len, 0);
	ck_assert_int_lt(len, PM_REC_MAX);
	ck_assert_int_eq((int)strlen(buf), len);
	ck_assert_msg(strchr(buf, '\n') == buf + len - 1, "not one line: %s", buf);
	o = json_loadb(buf, (size_t)len, JSON_REJECT_DUPLICATES, &e);
	ck_assert_msg(o != NULL, "%s: %s", e.text, buf);
	return o;
}

START_TEST(test_record_round_trip)
{
	char buf[PM_REC_MAX];
	struct pm_spank_task t;
	json_t *o, *u;

	task(&t);
	o = load_line(buf, pm_record_rankmap(buf, sizeof(buf), &t));
	ck_assert_str_eq(jstr(o, "schema"), "postmortem.rankmap/1");
	ck_assert_str_eq(jstr(o, "job"), "4242");
	ck_assert_str_eq(jstr(o, "step"), "0");
	ck_assert_str_eq(jstr(o, "node"), "gpu017");
	ck_assert_int_eq(jint(o, "node_id"), 1);
	ck_assert_int_eq(jint(o, "rank"), 11);
	ck_assert_int_eq(jint(o, "local_rank"), 3);
	ck_assert_int_eq(jint(o, "pid"), 31337);
	ck_assert_int_eq(jint(o, "restart"), 0);
	ck_assert_str_eq(jstr(o, "gpus"), "3");
	ck_assert_str_eq(jstr(o, "gpus_from"), "SLURM_STEP_GPUS");
	u = json_object_get(o, "gpu_uuids");
	ck_assert(json_is_array(u) && json_array_size(u) == 1);
	ck_assert_str_eq(json_string_value(json_array_get(u, 0)),
			 "GPU-5b2c3d4e-1111-2222-3333-444455556666");
	ck_assert(json_is_real(json_object_get(o, "start")));
	ck_assert_double_eq_tol(json_real_value(json_object_get(o, "start")), 1796010000.123456,
				1e-6);
	ck_assert_double_eq_tol(json_real_value(json_object_get(o, "start_mono")), 5000.000001,
				1e-7);
	ck_assert_ptr_null(json_object_get(o, "torch_error_file"));
	json_decref(o);

	o = load_line(buf, pm_record_taskexit(buf, sizeof(buf), &t, 256));
	ck_assert_str_eq(jstr(o, "schema"), "postmortem.taskexit/1");
	ck_assert_int_eq(jint(o, "status"), 256);
	ck_assert_int_eq(jint(o, "exit_code"), 1);
	ck_assert_int_eq(jint(o, "signal"), 0);
	ck_assert(json_is_false(json_object_get(o, "core")));
	ck_assert(json_is_real(json_object_get(o, "end")));
	json_decref(o);

	o = load_line(buf, pm_record_taskexit(buf, sizeof(buf), &t, 0x8b));
	ck_assert_ptr_null(json_object_get(o, "exit_code"));
	ck_assert_int_eq(jint(o, "signal"), 11);
	ck_assert_str_eq(jstr(o, "signal_name"), "SIGSEGV");
	ck_assert(json_is_true(json_object_get(o, "core")));
	json_decref(o);

	/* absent optional fields stay absent */
	t.node = NULL, t.gpus = NULL, t.gpus_from = NULL, t.cuda_visible = NULL;
	t.node_id = -1, t.local_rank = -1, t.pid = 0;
	o = load_line(buf, pm_record_rankmap(buf, sizeof(buf), &t));
	ck_assert_ptr_null(json_object_get(o, "node"));
	ck_assert_ptr_null(json_object_get(o, "gpus"));
	ck_assert_ptr_null(json_object_get(o, "gpu_uuids"));
	ck_assert_ptr_null(json_object_get(o, "pid"));
	ck_assert_ptr_null(json_object_get(o, "local_rank"));
	json_decref(o);

	/* too small a buffer is an error, never a torn record */
	ck_assert_int_eq(pm_record_rankmap(buf, 40, &t), -1);
	ck_assert_int_eq(errno, ENOBUFS);
}
END_TEST

START_TEST(test_record_hostile_strings)
{
	static const char *const hostile[] = {
		"n\"1\\\"",
		"line\nbreak\r\n",
		"tab\there\x01\x1f\x7f",
		"bad\xff\xfeutf8",
		"cut\xe2\x82",
		"overlong\xc0\xaf",
		"surrogate\xed\xa0\x80",
		"\xf5\x80\x80\x80",
		"ok \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
		"}{\"schema\":\"x\"}",
		"",
	};
	char buf[PM_REC_MAX], big[20000];
	struct pm_spank_task t;
	unsigned seed = 42;
	size_t i, j;
	json_t *o;

	for (i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		task(&t);
		t.node = t.gpus = t.cuda_visible = t.job = t.step = hostile[i];
		t.torch_error_file = hostile[i];
		o = load_line(buf, pm_record_rankmap(buf, sizeof(buf), &t));
		ck_assert_str_eq(jstr(o, "schema"), "postmortem.rankmap/1");
		json_decref(o);
		o = load_line(buf, pm_record_taskexit(buf, sizeof(buf), &t, 15));
		ck_assert_str_eq(jstr(o, "signal_name"), "SIGTERM");
		json_decref(o);
	}
	/* valid UTF-8 passes unchanged, quotes and newlines come back as they went in */
	task(&t);
	t.node = "ok \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 \"q\"\n";
	o = load_line(buf, pm_record_rankmap(buf, sizeof(buf), &t));
	ck_assert_str_eq(jstr(o, "node"), t.node);
	json_decref(o);
	t.node = "a\xff"
		 "b";
	o = load_line(buf, pm_record_rankmap(buf, sizeof(buf), &t));
	ck_assert_str_eq(jstr(o, "node"), "a\xef\xbf\xbd"
					  "b");
	json_decref(o);

	/* enormous values: capped, still one valid line under PIPE_BUF */
	memset(big, '\x01', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	task(&t);
	t.node = t.gpus = t.cuda_visible = t.torch_error_file = t.job = t.step = big;
	o = load_line(buf, pm_record_rankmap(buf, sizeof(buf), &t));
	json_decref(o);
	for (i = 0; i < sizeof(big) - 1; i++)
		big[i] = (i % 41 == 40) ? ',' : "GPU-\xe2\x82\xac"[i % 7 < 4 ? i % 7 : 4 + i % 3];
	o = load_line(buf, pm_record_rankmap(buf, sizeof(buf), &t));
	json_decref(o);

	/* random bytes */
	for (i = 0; i < 2000; i++) {
		size_t n = (size_t)rand_r(&seed) % 600;

		for (j = 0; j < n; j++)
			big[j] = (char)(rand_r(&seed) % 255 + 1);
		big[n] = '\0';
		task(&t);
		t.node = t.gpus = t.cuda_visible = t.torch_error_file = big;
		o = load_line(buf, pm_record_rankmap(buf, sizeof(buf), &t));
		json_decref(o);
	}
}
END_TEST

START_TEST(test_wait_status)
{
	static const struct {
		int status, exited, code, sig, core;
		const char *name;
	} v[] = {
		{0, 1, 0, 0, 0, NULL},		 {256, 1, 1, 0, 0, NULL},
		{3 << 8, 1, 3, 0, 0, NULL},	 {255 << 8, 1, 255, 0, 0, NULL},
		{9, 0, -1, 9, 0, "SIGKILL"},	 {15, 0, -1, 15, 0, "SIGTERM"},
		{0x8b, 0, -1, 11, 1, "SIGSEGV"}, {0x86, 0, -1, 6, 1, "SIGABRT"},
		{7, 0, -1, 7, 0, "SIGBUS"},
	};
	struct pm_wait_status st;
	char name[32];
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		pm_wait_decode(v[i].status, &st);
		ck_assert_int_eq(st.exited, v[i].exited);
		ck_assert_int_eq(st.exit_code, v[i].code);
		ck_assert_int_eq(st.signal, v[i].sig);
		ck_assert_int_eq(st.core, v[i].core);
		if (v[i].name)
			ck_assert_str_eq(pm_signal_name(st.signal, name, sizeof(name)), v[i].name);
	}
	ck_assert_str_eq(pm_signal_name(SIGRTMIN + 2, name, sizeof(name)), "SIGRTMIN+2");
	ck_assert_str_eq(pm_signal_name(99, name, sizeof(name)), "SIG99");
}
END_TEST

/* ---- spool.c ---- */

START_TEST(test_spool_permissions_and_refusals)
{
	char err[512], p[512];
	int fd;

	fd = pm_spool_open_job(spool, "42", 1, err, sizeof(err));
	ck_assert_msg(fd >= 0, "%s", err);
	ck_assert_int_eq(pm_spool_append(fd, "rankmap.0.jsonl", "{}\n", 3, 10), 0);
	close(fd);
	ck_assert_uint_eq(mode_of(spool), 0700);
	snprintf(p, sizeof(p), "%s/42", spool);
	ck_assert_uint_eq(mode_of(p), 0700);
	snprintf(p, sizeof(p), "%s/42/rankmap.0.jsonl", spool);
	ck_assert_uint_eq(mode_of(p), 0600);
	snprintf(p, sizeof(p), "%s/42/count", spool);
	ck_assert_uint_eq(mode_of(p), 0600);

	/* not a job name, a missing job folder without create */
	ck_assert_int_eq(pm_spool_open_job(spool, "../etc", 1, err, sizeof(err)), -1);
	ck_assert_int_eq(pm_spool_open_job(spool, "43", 0, err, sizeof(err)), -1);
	/* a spool others can write */
	chmod(spool, 0777);
	ck_assert_int_eq(pm_spool_open_job(spool, "42", 1, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "writable by group or others"));
	chmod(spool, 0700);
	/* a symbolic link as the spool or as the job folder */
	snprintf(p, sizeof(p), "%s/link", tmp);
	ck_assert_int_eq(symlink(spool, p), 0);
	ck_assert_int_eq(pm_spool_open_job(p, "42", 1, err, sizeof(err)), -1);
	snprintf(p, sizeof(p), "%s/44", spool);
	ck_assert_int_eq(symlink(tmp, p), 0);
	ck_assert_int_eq(pm_spool_open_job(spool, "44", 1, err, sizeof(err)), -1);
	/* a record file that is a link is not followed */
	fd = pm_spool_open_job(spool, "42", 1, err, sizeof(err));
	snprintf(p, sizeof(p), "%s/42/taskexit.0.jsonl", spool);
	ck_assert_int_eq(symlink("/etc/passwd-not-here", p), 0);
	ck_assert_int_eq(pm_spool_append(fd, "taskexit.0.jsonl", "{}\n", 3, 10), -1);
	/* only whole lines of at most PIPE_BUF */
	ck_assert_int_eq(pm_spool_append(fd, "x", "{}", 2, 10), -1);
	ck_assert_int_eq(pm_spool_append(fd, "../x", "{}\n", 3, 10), -1);
	close(fd);
}
END_TEST

#define WRITERS 8
#define PER_WRITER 400

/* Each writer appends records of varying length (up to almost PIPE_BUF) to one file. */
static void writer(int w, unsigned long max)
{
	char line[PM_REC_MAX], err[256];
	int fd = pm_spool_open_job(spool, "7", 1, err, sizeof(err)), i, n, pad;

	if (fd < 0)
		_exit(2);
	for (i = 0; i < PER_WRITER; i++) {
		pad = (w * 977 + i * 131) % 3900;
		n = snprintf(line, sizeof(line), "{\"w\":%d,\"i\":%d,\"pad\":\"%*s\"}\n", w, i, pad,
			     "");
		if (pm_spool_append(fd, i % 2 ? "a.jsonl" : "b.jsonl", line, (size_t)n, max) < 0)
			_exit(3);
	}
	_exit(0);
}

static int run_writers(unsigned long max)
{
	pid_t pids[WRITERS];
	int i, st, bad = 0;

	for (i = 0; i < WRITERS; i++) {
		pids[i] = fork();
		ck_assert_int_ge(pids[i], 0);
		if (pids[i] == 0)
			writer(i, max);
	}
	for (i = 0; i < WRITERS; i++) {
		waitpid(pids[i], &st, 0);
		bad += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
	}
	return bad;
}

static json_t *objs[WRITERS * PER_WRITER];

START_TEST(test_spool_concurrent_writers)
{
	char p[512], seen[WRITERS][PER_WRITER];
	unsigned long rec, drop;
	int n, m, i, fd;

	ck_assert_int_eq(run_writers(1000000), 0);
	memset(seen, 0, sizeof(seen));
	snprintf(p, sizeof(p), "%s/7/a.jsonl", spool);
	n = read_lines(p, objs, WRITERS * PER_WRITER);
	snprintf(p, sizeof(p), "%s/7/b.jsonl", spool);
	m = read_lines(p, objs + n, WRITERS * PER_WRITER - n);
	ck_assert_int_eq(n + m, WRITERS * PER_WRITER);
	for (i = 0; i < n + m; i++) {
		int w = (int)jint(objs[i], "w"), k = (int)jint(objs[i], "i");

		ck_assert(w >= 0 && w < WRITERS && k >= 0 && k < PER_WRITER);
		ck_assert_msg(!seen[w][k]++, "record %d/%d twice", w, k);
		json_decref(objs[i]);
	}
	fd = pm_spool_open_job(spool, "7", 0, p, sizeof(p));
	ck_assert_int_eq(pm_spool_counts(fd, &rec, &drop), 0);
	ck_assert_uint_eq(rec, WRITERS * PER_WRITER);
	ck_assert_uint_eq(drop, 0);
	close(fd);
}
END_TEST

START_TEST(test_spool_bound)
{
	unsigned long rec, drop;
	char p[512];
	int n, m, i, fd;

	ck_assert_int_eq(run_writers(1000), 0);
	snprintf(p, sizeof(p), "%s/7/a.jsonl", spool);
	n = read_lines(p, objs, WRITERS * PER_WRITER);
	snprintf(p, sizeof(p), "%s/7/b.jsonl", spool);
	m = read_lines(p, objs + n, WRITERS * PER_WRITER - n);
	ck_assert_int_eq(n + m, 1000);
	for (i = 0; i < n + m; i++)
		json_decref(objs[i]);
	fd = pm_spool_open_job(spool, "7", 0, p, sizeof(p));
	ck_assert_int_eq(pm_spool_counts(fd, &rec, &drop), 0);
	ck_assert_uint_eq(rec, 1000);
	ck_assert_uint_eq(drop, WRITERS * PER_WRITER - 1000);
	close(fd);
}
END_TEST

/* Fill a tiny filesystem (a 64 KiB tmpfs when we may mount one, else RLIMIT_FSIZE). */
START_TEST(test_spool_full_disk)
{
	char line[2048], err[256], mnt[270];
	int fd, i, rc = 0, e = 0, mounted;
	struct rlimit rl = {40000, 40000};

	snprintf(mnt, sizeof(mnt), "%s/tiny", tmp);
	mkdir(mnt, 0700);
	mounted = mount("tmpfs", mnt, "tmpfs", 0, "size=64k,mode=0700") == 0;
	snprintf(spool, sizeof(spool), "%s/spool", mounted ? mnt : tmp);
	if (!mounted) {
		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &rl);
	}
	fd = pm_spool_open_job(spool, "9", 1, err, sizeof(err));
	ck_assert_msg(fd >= 0, "%s", err);
	memset(line, 'x', sizeof(line));
	line[0] = '{', line[1] = '"', line[2] = 'x', line[3] = '"', line[4] = ':', line[5] = '"';
	line[sizeof(line) - 3] = '"', line[sizeof(line) - 2] = '}', line[sizeof(line) - 1] = '\n';
	for (i = 0; i < 200 && (rc = pm_spool_append(fd, "f.jsonl", line, sizeof(line), 1000)) == 0;
	     i++)
		;
	e = errno;
	close(fd);
	if (mounted)
		umount2(mnt, MNT_DETACH);
	ck_assert_int_eq(rc, -1);
	ck_assert_msg(e == (mounted ? ENOSPC : EFBIG), "errno %d (%s)", e, strerror(e));
	ck_assert_int_gt(i, 5);
}
END_TEST

START_TEST(test_spool_prune_and_remove)
{
	struct timespec old[2] = {{1000000, 0}, {1000000, 0}};
	char err[256], p[512];
	int fd;

	fd = pm_spool_open_job(spool, "100", 1, err, sizeof(err));
	ck_assert_int_eq(pm_spool_append(fd, "rankmap.0.jsonl", "{}\n", 3, 10), 0);
	ck_assert_int_eq(futimens(fd, old), 0);
	ck_assert_int_eq(utimensat(fd, "count", old, 0), 0);
	close(fd);
	close(pm_spool_open_job(spool, "101", 1, err, sizeof(err))); /* fresh */
	fd = pm_spool_open_job(spool, "102", 1, err, sizeof(err));   /* old, but kept */
	ck_assert_int_eq(futimens(fd, old), 0);
	close(fd);
	snprintf(p, sizeof(p), "%s/notajob", spool);
	mkdir(p, 0700);
	ck_assert_int_eq(utimensat(AT_FDCWD, p, old, 0), 0);

	ck_assert_int_eq(pm_spool_prune(spool, time(NULL) - 3600, "102", 64), 1);
	snprintf(p, sizeof(p), "%s/100", spool);
	ck_assert_int_eq(access(p, F_OK), -1);
	snprintf(p, sizeof(p), "%s/101", spool);
	ck_assert_int_eq(access(p, F_OK), 0);
	snprintf(p, sizeof(p), "%s/notajob", spool);
	ck_assert_int_eq(access(p, F_OK), 0);
	ck_assert_int_eq(pm_spool_remove_job(spool, "101"), 0);
	snprintf(p, sizeof(p), "%s/101", spool);
	ck_assert_int_eq(access(p, F_OK), -1);
}
END_TEST

/* ---- epilog.c ---- */

static void script(const char *name, const char *body, char *path, size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/%s", tmp, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	chmod(path, 0755);
}

static long long ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Running or sleeping: not gone, and not a zombie nobody reaped (init in a container). */
static int alive(pid_t pid)
{
	char p[64], buf[256], *c;
	FILE *f;
	int n;

	snprintf(p, sizeof(p), "/proc/%d/stat", (int)pid);
	f = fopen(p, "r");
	if (!f)
		return 0;
	n = (int)fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n > 0 ? n : 0] = '\0';
	c = strrchr(buf, ')');
	return c && c[1] == ' ' && c[2] != 'Z' && c[2] != 'X';
}

START_TEST(test_run_deadline)
{
	char path[512], body[1024], pidf[512], buf[64];
	char *argv[3] = {path, NULL, NULL};
	struct pm_run r;
	long long t0;
	FILE *f;
	pid_t gc;

	/* ends on its own, gets its arguments, output discarded */
	snprintf(body, sizeof(body), "echo \"$@\" > %s/args; echo noise; exit 0", tmp);
	script("ok", body, path, sizeof(path));
	argv[1] = (char *)"--job=5";
	ck_assert_int_eq(pm_run_deadline(argv, 5000, &r), 0);
	ck_assert_int_eq(r.outcome, PM_RUN_EXITED);
	snprintf(pidf, sizeof(pidf), "%s/args", tmp);
	f = fopen(pidf, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), f));
	fclose(f);
	ck_assert_str_eq(buf, "--job=5\n");
	argv[1] = NULL;

	script("fail", "exit 3", path, sizeof(path));
	ck_assert_int_eq(pm_run_deadline(argv, 5000, &r), -1);
	ck_assert_int_eq(r.outcome, PM_RUN_EXITED);
	ck_assert_int_eq(WEXITSTATUS(r.status), 3);

	/* sleeps forever, ignores SIGTERM, leaves a grandchild: all killed at the deadline */
	snprintf(pidf, sizeof(pidf), "%s/gc.pid", tmp);
	snprintf(body, sizeof(body),
		 "trap '' TERM\nsleep 1000 &\necho $! > %s\nwhile :; do sleep 1; done", pidf);
	script("hang", body, path, sizeof(path));
	t0 = ms_now();
	ck_assert_int_eq(pm_run_deadline(argv, 1000, &r), -1);
	ck_assert_int_le(ms_now() - t0, 1600);
	ck_assert_int_ge(ms_now() - t0, 950);
	ck_assert_int_eq(r.outcome, PM_RUN_TIMED_OUT);
	f = fopen(pidf, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%d", &gc), 1);
	fclose(f);
	usleep(100000);
	ck_assert_msg(!alive(gc), "grandchild %d survived", (int)gc);

	/* missing, not executable, relative */
	snprintf(path, sizeof(path), "%s/none", tmp);
	ck_assert_int_eq(pm_run_deadline(argv, 1000, &r), -1);
	ck_assert_int_eq(r.outcome, PM_RUN_MISSING);
	script("noexec", "exit 0", path, sizeof(path));
	chmod(path, 0644);
	ck_assert_int_eq(pm_run_deadline(argv, 1000, &r), -1);
	ck_assert_int_eq(r.outcome, PM_RUN_MISSING);
	snprintf(path, sizeof(path), "bin/sh");
	ck_assert_int_eq(pm_run_deadline(argv, 1000, &r), -1);
	ck_assert_int_eq(r.outcome, PM_RUN_MISSING);
}
END_TEST

/* ---- the callbacks, through the fake Slurm ---- */

static char *av_buf[8];
static int ac_n;

static void args(const char *a, ...)
{
	va_list ap;
	const char *s;

	ac_n = 0;
	va_start(ap, a);
	for (s = a; s && ac_n < 8; s = va_arg(ap, const char *))
		av_buf[ac_n++] = (char *)s;
	va_end(ap);
}

static struct spank_option *option(const char *name)
{
	int i;

	for (i = 0; i < nregistered; i++)
		if (strcmp(registered[i]->name, name) == 0)
			return registered[i];
	ck_abort_msg("option --%s not registered", name);
	return NULL;
}

/* A step on node n2: init, post_opt, then the tasks fork and exit with STATUS[i]. */
static void step(struct spank_handle *sp, int ntasks, const int *status)
{
	int i;

	ck_assert_int_eq(slurm_spank_init(sp, ac_n, av_buf), 0);
	ck_assert_int_eq(slurm_spank_init_post_opt(sp, ac_n, av_buf), 0);
	for (i = 0; i < ntasks; i++) {
		sp->in_task = 1;
		sp->rank = (uint32_t)(2 + i);
		sp->local = i;
		sp->pid = 1000 + i;
		ck_assert_int_eq(slurm_spank_task_post_fork(sp, ac_n, av_buf), 0);
	}
	for (i = ntasks - 1; i >= 0; i--) {
		sp->rank = (uint32_t)(2 + i);
		sp->local = i;
		sp->pid = 1000 + i;
		sp->status = status[i];
		ck_assert_int_eq(slurm_spank_task_exit(sp, ac_n, av_buf), 0);
	}
	sp->in_task = 0;
	ck_assert_int_eq(slurm_spank_exit(sp, ac_n, av_buf), 0);
}

START_TEST(test_remote_records)
{
	static const int status[4] = {3 << 8, 9, 0x8b, 0};
	struct spank_handle sp;
	json_t *o[8];
	char p[512], opt[320];
	int n, i;

	snprintf(opt, sizeof(opt), "spool=%s", spool);
	args(opt, "max_records=100", NULL);
	handle(&sp, 4242, 0);
	step(&sp, 4, status);
	ck_assert_int_eq(nerrors, 0);

	snprintf(p, sizeof(p), "%s/4242", spool);
	ck_assert_uint_eq(mode_of(p), 0700);
	snprintf(p, sizeof(p), "%s/4242/rankmap.0.jsonl", spool);
	ck_assert_uint_eq(mode_of(p), 0600);
	n = read_lines(p, o, 8);
	ck_assert_int_eq(n, 4);
	for (i = 0; i < n; i++) {
		ck_assert_str_eq(jstr(o[i], "schema"), "postmortem.rankmap/1");
		ck_assert_str_eq(jstr(o[i], "job"), "4242");
		ck_assert_str_eq(jstr(o[i], "step"), "0");
		ck_assert_str_eq(jstr(o[i], "node"), "n2");
		ck_assert_int_eq(jint(o[i], "node_id"), 1);
		ck_assert_int_eq(jint(o[i], "rank"), 2 + i);
		ck_assert_int_eq(jint(o[i], "local_rank"), i);
		ck_assert_int_eq(jint(o[i], "pid"), 1000 + i);
		ck_assert_str_eq(jstr(o[i], "gpus"), "2,3");
		ck_assert_str_eq(jstr(o[i], "gpus_from"), "SLURM_STEP_GPUS");
		ck_assert_int_eq((int)json_array_size(json_object_get(o[i], "gpu_uuids")), 2);
		json_decref(o[i]);
	}
	snprintf(p, sizeof(p), "%s/4242/taskexit.0.jsonl", spool);
	n = read_lines(p, o, 8);
	ck_assert_int_eq(n, 4);
	/* written in exit order: ranks 5, 4, 3, 2 */
	ck_assert_int_eq(jint(o[3], "rank"), 2);
	ck_assert_int_eq(jint(o[3], "exit_code"), 3);
	ck_assert_int_eq(jint(o[2], "rank"), 3);
	ck_assert_int_eq(jint(o[2], "signal"), 9);
	ck_assert_str_eq(jstr(o[2], "signal_name"), "SIGKILL");
	ck_assert_int_eq(jint(o[1], "signal"), 11);
	ck_assert(json_is_true(json_object_get(o[1], "core")));
	ck_assert_int_eq(jint(o[0], "exit_code"), 0);
	ck_assert_int_eq(jint(o[0], "status"), 0);
	for (i = 0; i < n; i++)
		json_decref(o[i]);

	/* the batch script is a step too */
	handle(&sp, 4242, 0xfffffffbU);
	step(&sp, 1, status + 3);
	snprintf(p, sizeof(p), "%s/4242/taskexit.batch.jsonl", spool);
	ck_assert_int_eq(read_lines(p, o, 8), 1);
	ck_assert_str_eq(jstr(o[0], "step"), "batch");
	json_decref(o[0]);
}
END_TEST

/* The node name: the topology address (switches first), else the step's node list. */
START_TEST(test_remote_node_name)
{
	static const int status[1] = {0};
	struct spank_handle sp;
	json_t *o[2];
	char opt[600], p[512], host[256];

	snprintf(opt, sizeof(opt), "spool=%s", spool);
	args(opt, NULL);
	handle(&sp, 50, 1);
	sp.env[0][0] = 'X'; /* no SLURM_TOPOLOGY_ADDR */
	putenv_sp(&sp, "SLURM_STEP_NODELIST=gpu[016-017]");
	step(&sp, 1, status);
	handle(&sp, 50, 2);
	sp.env[0] = keep(strdup("SLURM_TOPOLOGY_ADDR=s0.s3.gpu017.x"));
	putenv_sp(&sp, "SLURM_TOPOLOGY_ADDR_PATTERN=switch.switch.node");
	step(&sp, 1, status);
	handle(&sp, 50, 3);
	sp.env[0][0] = 'X';
	step(&sp, 1, status);
	snprintf(p, sizeof(p), "%s/50/rankmap.1.jsonl", spool);
	ck_assert_int_eq(read_lines(p, o, 2), 1);
	ck_assert_str_eq(jstr(o[0], "node"), "gpu017"); /* node id 1 */
	json_decref(o[0]);
	snprintf(p, sizeof(p), "%s/50/rankmap.2.jsonl", spool);
	ck_assert_int_eq(read_lines(p, o, 2), 1);
	ck_assert_str_eq(jstr(o[0], "node"), "gpu017.x");
	json_decref(o[0]);
	snprintf(p, sizeof(p), "%s/50/rankmap.3.jsonl", spool);
	ck_assert_int_eq(read_lines(p, o, 2), 1);
	gethostname(host, sizeof(host));
	ck_assert_str_eq(jstr(o[0], "node"), host);
	ck_assert_str_eq(jstr(o[0], "host"), host);
	json_decref(o[0]);
}
END_TEST

START_TEST(test_remote_bound_and_broken_spool)
{
	static const int status[6] = {0, 0, 0, 0, 0, 0};
	struct spank_handle sp;
	unsigned long rec, drop;
	char opt[600], p[512];
	int fd;

	snprintf(opt, sizeof(opt), "spool=%s", spool);
	args(opt, "max_records=5", NULL);
	handle(&sp, 77, 0);
	step(&sp, 6, status);
	ck_assert_int_eq(nerrors, 0);
	fd = pm_spool_open_job(spool, "77", 0, p, sizeof(p));
	ck_assert_int_eq(pm_spool_counts(fd, &rec, &drop), 0);
	ck_assert_uint_eq(rec, 5);
	ck_assert_uint_eq(drop, 7);
	close(fd);

	/* a spool that cannot be created: one error, the tasks go on */
	snprintf(opt, sizeof(opt), "spool=%s/missing/parent", tmp);
	args(opt, NULL);
	handle(&sp, 78, 0);
	step(&sp, 2, status);
	ck_assert_int_eq(nerrors, 1);
	ck_assert_ptr_nonnull(strstr(last_error, "postmortem: spool"));
}
END_TEST

START_TEST(test_remote_full_disk_logged_once)
{
	static const int status[64] = {0};
	struct spank_handle sp;
	char opt[600], mnt[270], p[3100], pad[3000];
	int mounted;
	struct rlimit rl = {8000, 8000};

	snprintf(mnt, sizeof(mnt), "%s/tiny", tmp);
	mkdir(mnt, 0700);
	mounted = mount("tmpfs", mnt, "tmpfs", 0, "size=16k,mode=0700") == 0;
	snprintf(spool, sizeof(spool), "%s/spool", mounted ? mnt : tmp);
	if (!mounted) {
		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &rl);
	}
	snprintf(opt, sizeof(opt), "spool=%s", spool);
	args(opt, "extras=torch_error_file", NULL);
	handle(&sp, 80, 0);
	memset(pad, 'g', sizeof(pad) - 1);
	pad[sizeof(pad) - 1] = '\0';
	snprintf(p, sizeof(p), "SLURM_JOB_GPUS=%s", pad); /* big records fill it fast */
	putenv_sp(&sp, p);
	sp.env[1][0] = 'X'; /* hide SLURM_STEP_GPUS */
	step(&sp, 64, status);
	if (mounted)
		umount2(mnt, MNT_DETACH);
	ck_assert_int_eq(nerrors, 1);
	ck_assert_msg(strstr(last_error, mounted ? "No space left" : "too large"), "%s",
		      last_error);
}
END_TEST

START_TEST(test_remote_optout_and_logs)
{
	static const int status[2] = {0, 0};
	struct spank_handle sp;
	char opt[600], p[512], line[256];
	FILE *f;
	int n = 0;

	snprintf(opt, sizeof(opt), "spool=%s", spool);
	args(opt, NULL);
	handle(&sp, 90, 0xfffffffbU);
	ck_assert_int_eq(slurm_spank_init(&sp, ac_n, av_buf), 0);
	ck_assert_int_eq(option("postmortem")->cb(option("postmortem")->val, "off", 1), 0);
	ck_assert_int_eq(slurm_spank_init_post_opt(&sp, ac_n, av_buf), 0);
	sp.in_task = 1;
	ck_assert_int_eq(slurm_spank_task_post_fork(&sp, ac_n, av_buf), 0);
	ck_assert_int_eq(slurm_spank_task_init(&sp, ac_n, av_buf), 0);
	ck_assert_ptr_null(env_of(&sp, "POSTMORTEM_RANK"));
	snprintf(p, sizeof(p), "%s/90/optout", spool);
	ck_assert_int_eq(access(p, F_OK), 0);
	snprintf(p, sizeof(p), "%s/90/rankmap.batch.jsonl", spool);
	ck_assert_int_eq(access(p, F_OK), -1);

	/* later steps of the job on this node stay out, even without the option */
	handle(&sp, 90, 0);
	ck_assert_int_eq(option("postmortem")->cb(option("postmortem")->val, "on", 1), 0);
	step(&sp, 2, status);
	snprintf(p, sizeof(p), "%s/90/rankmap.0.jsonl", spool);
	ck_assert_int_eq(access(p, F_OK), -1);

	/* --postmortem-logs lands in <job>/logs, once per path */
	handle(&sp, 91, 0);
	ck_assert_int_eq(slurm_spank_init(&sp, ac_n, av_buf), 0);
	ck_assert_int_eq(option("postmortem-logs")
				 ->cb(option("postmortem-logs")->val,
				      "/home/u/train.log,/scratch/%j.err", 1),
			 0);
	ck_assert_int_eq(slurm_spank_init_post_opt(&sp, ac_n, av_buf), 0);
	ck_assert_int_eq(slurm_spank_init_post_opt(&sp, ac_n, av_buf), 0);
	snprintf(p, sizeof(p), "%s/91/logs", spool);
	ck_assert_uint_eq(mode_of(p), 0600);
	f = fopen(p, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		n++;
	fclose(f);
	ck_assert_int_eq(n, 2);
}
END_TEST

START_TEST(test_env_fallback_optout)
{
	struct spank_handle sp;
	char opt[600], p[512];

	snprintf(opt, sizeof(opt), "spool=%s", spool);
	args(opt, NULL);
	handle(&sp, 92, 0);
	putenv_sp(&sp, "SPANK_POSTMORTEM=off");
	ck_assert_int_eq(slurm_spank_init(&sp, ac_n, av_buf), 0);
	ck_assert_int_eq(slurm_spank_init_post_opt(&sp, ac_n, av_buf), 0);
	snprintf(p, sizeof(p), "%s/92/optout", spool);
	ck_assert_int_eq(access(p, F_OK), 0);
}
END_TEST

START_TEST(test_local_option_checks)
{
	struct spank_handle sp;

	ctx = S_CTX_LOCAL;
	args(NULL);
	handle(&sp, 0, 0);
	ck_assert_int_eq(slurm_spank_init(&sp, ac_n, av_buf), 0);
	ck_assert_int_eq(nregistered, 2);
	ck_assert_int_eq(option("postmortem")->cb(option("postmortem")->val, "off", 0), 0);
	ck_assert_int_eq(slurm_spank_init_post_opt(&sp, ac_n, av_buf), 0);
	ck_assert_str_eq(job_control_env, "SPANK_POSTMORTEM=off"); /* for every epilog */
	ck_assert_int_eq(option("postmortem")->cb(option("postmortem")->val, "bogus", 0), -1);
	ck_assert_ptr_nonnull(strstr(last_error, "--postmortem=bogus"));
	ck_assert_int_eq(option("postmortem")->cb(option("postmortem")->val, "bogus", 1), 0);
	ck_assert_int_eq(option("postmortem-logs")->cb(option("postmortem-logs")->val, "rel.log", 0),
			 -1);
	ck_assert_ptr_nonnull(strstr(last_error, "'rel.log': not an absolute path"));
	ck_assert_int_eq(option("postmortem-logs")->cb(option("postmortem-logs")->val, "/a.log", 0),
			 0);
	setenv("SPANK_POSTMORTEM", "maybe", 1);
	ck_assert_int_eq(slurm_spank_init_post_opt(&sp, ac_n, av_buf), 0);
}
END_TEST

START_TEST(test_bad_args_inactive)
{
	static const int status[1] = {0};
	struct spank_handle sp;
	char opt[600];

	snprintf(opt, sizeof(opt), "spool=%s", spool);
	args(opt, "retain=forever", NULL);
	handle(&sp, 93, 0);
	step(&sp, 1, status);
	ck_assert_int_eq(nerrors, 1);
	ck_assert_ptr_nonnull(strstr(last_error, "postmortem: argument 'retain=forever'"));
	ck_assert_ptr_nonnull(strstr(last_error, "inactive"));
	ck_assert_int_eq(access(spool, F_OK), -1); /* nothing written */
	ck_assert_int_eq(nregistered, 2);	   /* scripts using the options still run */
	sp.in_task = 1;
	ck_assert_int_eq(slurm_spank_task_init(&sp, ac_n, av_buf), 0);
	ck_assert_ptr_null(env_of(&sp, "POSTMORTEM_JOB"));
	ctx = S_CTX_JOB_SCRIPT;
	ck_assert_int_eq(slurm_spank_job_epilog(&sp, ac_n, av_buf), 0);
}
END_TEST

START_TEST(test_task_init_tags_and_extras)
{
	struct spank_handle sp;
	char opt[600], env[400], want[600], p[512];

	snprintf(opt, sizeof(opt), "spool=%s", spool);
	args(opt, "extras=torch_error_file,nccl_dump_on_timeout,nccl_debug_warn", NULL);
	handle(&sp, 94, 3);
	snprintf(env, sizeof(env), "TMPDIR=%s", tmp);
	putenv_sp(&sp, env);
	putenv_sp(&sp, "NCCL_DEBUG=INFO"); /* the user's: kept */
	/* inherited from the batch script's tags and extras: replaced */
	putenv_sp(&sp, "POSTMORTEM_STEP=batch");
	snprintf(env, sizeof(env),
		 "TORCHELASTIC_ERROR_FILE=%s/postmortem.94/torch_error.batch.0.json", tmp);
	putenv_sp(&sp, env);
	ck_assert_int_eq(slurm_spank_init(&sp, ac_n, av_buf), 0);
	ck_assert_int_eq(slurm_spank_init_post_opt(&sp, ac_n, av_buf), 0);
	sp.in_task = 1;
	sp.rank = 7;
	ck_assert_int_eq(slurm_spank_task_init(&sp, ac_n, av_buf), 0);
	ck_assert_str_eq(env_of(&sp, "POSTMORTEM_JOB"), "94");
	ck_assert_str_eq(env_of(&sp, "POSTMORTEM_STEP"), "3");
	ck_assert_str_eq(env_of(&sp, "POSTMORTEM_RANK"), "7");
	snprintf(want, sizeof(want), "%s/postmortem.94/torch_error.3.7.json", tmp);
	ck_assert_str_eq(env_of(&sp, "TORCHELASTIC_ERROR_FILE"), want);
	ck_assert_str_eq(env_of(&sp, "TORCH_NCCL_DUMP_ON_TIMEOUT"), "1");
	ck_assert_str_eq(env_of(&sp, "NCCL_DEBUG"), "INFO");
	snprintf(p, sizeof(p), "%s/postmortem.94", tmp);
	ck_assert_uint_eq(mode_of(p), 0700);

	/* a user's own TORCHELASTIC_ERROR_FILE is never replaced */
	handle(&sp, 95, 0);
	snprintf(env, sizeof(env), "TMPDIR=%s", tmp);
	putenv_sp(&sp, env);
	putenv_sp(&sp, "TORCHELASTIC_ERROR_FILE=/home/u/err.json");
	ck_assert_int_eq(slurm_spank_init_post_opt(&sp, ac_n, av_buf), 0);
	sp.in_task = 1;
	ck_assert_int_eq(slurm_spank_task_init(&sp, ac_n, av_buf), 0);
	ck_assert_str_eq(env_of(&sp, "TORCHELASTIC_ERROR_FILE"), "/home/u/err.json");
}
END_TEST

START_TEST(test_extras_off_by_default)
{
	struct spank_handle sp;
	char opt[600];

	snprintf(opt, sizeof(opt), "spool=%s", spool);
	args(opt, NULL);
	handle(&sp, 96, 0);
	ck_assert_int_eq(slurm_spank_init(&sp, ac_n, av_buf), 0);
	ck_assert_int_eq(slurm_spank_init_post_opt(&sp, ac_n, av_buf), 0);
	sp.in_task = 1;
	ck_assert_int_eq(slurm_spank_task_init(&sp, ac_n, av_buf), 0);
	ck_assert_ptr_nonnull(env_of(&sp, "POSTMORTEM_RANK"));
	ck_assert_ptr_null(env_of(&sp, "TORCHELASTIC_ERROR_FILE"));
	ck_assert_ptr_null(env_of(&sp, "TORCH_NCCL_DUMP_ON_TIMEOUT"));
	ck_assert_ptr_null(env_of(&sp, "NCCL_DEBUG"));
}
END_TEST

START_TEST(test_job_epilog)
{
	struct spank_handle sp;
	char opt[600], col[600], path[512], body[512], p[600];
	long long t0;
	FILE *f;
	int fd;

	ctx = S_CTX_JOB_SCRIPT;
	handle(&sp, 97, 0);
	snprintf(opt, sizeof(opt), "spool=%s", spool);

	/* not installed: quiet, 0 */
	snprintf(col, sizeof(col), "collector=%s/none", tmp);
	args(opt, col, NULL);
	ck_assert_int_eq(slurm_spank_job_epilog(&sp, ac_n, av_buf), 0);
	ck_assert_int_eq(nerrors, 0);

	/* a collector that sleeps forever: killed by the deadline, still 0 */
	script("hang", "trap '' TERM\nwhile :; do sleep 1; done", path, sizeof(path));
	snprintf(col, sizeof(col), "collector=%s", path);
	args(opt, col, "timeout=1s", NULL);
	t0 = ms_now();
	ck_assert_int_eq(slurm_spank_job_epilog(&sp, ac_n, av_buf), 0);
	ck_assert_int_le(ms_now() - t0, 1600);
	ck_assert_ptr_nonnull(strstr(last_error, "deadline"));

	/* a collector that runs: its arguments; an opted-out job: not run, spool removed */
	snprintf(body, sizeof(body), "echo \"$@\" >> %s/ran", tmp);
	script("collect", body, path, sizeof(path));
	snprintf(col, sizeof(col), "collector=%s", path);
	args(opt, col, "store=/shared/pm", "timeout=5s", NULL);
	fd = pm_spool_open_job(spool, "98", 1, p, sizeof(p));
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pm_spool_touch(fd, "optout"), 0);
	close(fd);
	setenv("SLURMD_NODENAME", "n1", 1);
	ck_assert_int_eq(slurm_spank_job_epilog(&sp, ac_n, av_buf), 0); /* job 97 */
	sp.job = 98;
	ck_assert_int_eq(slurm_spank_job_epilog(&sp, ac_n, av_buf), 0);
	/* opted out at submission, no step ran here: the option value, or the control env */
	sp.job = 99;
	job_option_value = "off";
	ck_assert_int_eq(slurm_spank_job_epilog(&sp, ac_n, av_buf), 0);
	job_option_value = "on";
	setenv("SPANK_POSTMORTEM", "off", 1);
	ck_assert_int_eq(slurm_spank_job_epilog(&sp, ac_n, av_buf), 0);
	unsetenv("SPANK_POSTMORTEM");
	snprintf(p, sizeof(p), "%s/ran", tmp);
	f = fopen(p, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(body, sizeof(body), f));
	ck_assert_ptr_null(fgets(p, sizeof(p), f)); /* once: not for the opted-out job */
	fclose(f);
	snprintf(p, sizeof(p),
		 "--job=97 --spool=%s/97 --node=n1 --timeout=5000ms --retain=1209600s --store=/shared/pm\n",
		 spool);
	ck_assert_str_eq(body, p);
	snprintf(p, sizeof(p), "%s/98", spool);
	ck_assert_int_eq(access(p, F_OK), -1);
}
END_TEST

/* spool=DIR/%n: each node its own spool, for its steps and its job epilog alike. */
START_TEST(test_spool_per_node)
{
	static const int status[1] = {0};
	struct spank_handle sp;
	char opt[600], col[600], path[512], body[512], p[600];
	json_t *o[2];
	FILE *f;

	/* the expansion itself */
	ck_assert_int_eq(pm_spool_path("/s/%n/x", "gpu017", p, sizeof(p)), 0);
	ck_assert_str_eq(p, "/s/gpu017/x");
	ck_assert_int_eq(pm_spool_path("/s/100%%", "", p, sizeof(p)), 0);
	ck_assert_str_eq(p, "/s/100%");
	ck_assert_int_eq(pm_spool_path("/s/plain", NULL, p, sizeof(p)), 0);
	ck_assert_str_eq(p, "/s/plain");
	ck_assert_int_eq(pm_spool_path("/s/%n", "", p, sizeof(p)), -1);
	ck_assert_int_eq(pm_spool_path("/s/%n", "..", p, sizeof(p)), -1);
	ck_assert_int_eq(pm_spool_path("/s/%n", "a/b", p, sizeof(p)), -1);
	ck_assert_int_eq(pm_spool_path("/s/%j", "n1", p, sizeof(p)), -1);
	ck_assert_int_eq(pm_spool_path("/s/%", "n1", p, sizeof(p)), -1);
	ck_assert_int_eq(pm_spool_path("/s/%n", "n1", p, 5), -1);
	ck_assert_int_eq(errno, ENAMETOOLONG);

	/* a step on n2 records into <spool>/n2/<job>/ */
	ck_assert_int_eq(mkdir(spool, 0700), 0);
	snprintf(opt, sizeof(opt), "spool=%s/%%n", spool);
	args(opt, NULL);
	handle(&sp, 4243, 0);
	step(&sp, 1, status);
	ck_assert_int_eq(nerrors, 0);
	snprintf(p, sizeof(p), "%s/n2/4243/rankmap.0.jsonl", spool);
	ck_assert_int_eq(read_lines(p, o, 2), 1);
	ck_assert_str_eq(jstr(o[0], "node"), "n2");
	json_decref(o[0]);
	snprintf(p, sizeof(p), "%s/4243", spool);
	ck_assert_int_eq(access(p, F_OK), -1);

	/* the job epilog on n2 hands the collector n2's folder */
	ctx = S_CTX_JOB_SCRIPT;
	snprintf(body, sizeof(body), "echo \"$@\" >> %s/ran", tmp);
	script("collect", body, path, sizeof(path));
	snprintf(col, sizeof(col), "collector=%s", path);
	args(opt, col, "timeout=5s", NULL);
	setenv("SLURMD_NODENAME", "n2", 1);
	ck_assert_int_eq(slurm_spank_job_epilog(&sp, ac_n, av_buf), 0);
	snprintf(p, sizeof(p), "%s/ran", tmp);
	f = fopen(p, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(body, sizeof(body), f));
	fclose(f);
	snprintf(p, sizeof(p), "--job=4243 --spool=%s/n2/4243 --node=n2 ", spool);
	ck_assert_msg(!strncmp(body, p, strlen(p)), "%s", body);
	/* no node name: nothing run, said */
	unlink(strcat(strcpy(p, tmp), "/ran"));
	unsetenv("SLURMD_NODENAME");
	ck_assert_int_eq(slurm_spank_job_epilog(&sp, ac_n, av_buf), 0);
	ck_assert_int_eq(access(p, F_OK), -1);
	ck_assert_ptr_nonnull(strstr(last_error, "spool="));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("spank");
	TCase *t = tcase_create("pure");
	TCase *c = tcase_create("callbacks");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_set_timeout(t, 60);
	tcase_add_test(t, test_args_defaults_and_every_key);
	tcase_add_test(t, test_args_malformed_named);
	tcase_add_test(t, test_durations);
	tcase_add_test(t, test_logs_split_and_user_dir);
	tcase_add_test(t, test_hostlist_nth);
	tcase_add_test(t, test_record_round_trip);
	tcase_add_test(t, test_record_hostile_strings);
	tcase_add_test(t, test_wait_status);
	tcase_add_test(t, test_spool_permissions_and_refusals);
	tcase_add_test(t, test_spool_concurrent_writers);
	tcase_add_test(t, test_spool_bound);
	tcase_add_test(t, test_spool_full_disk);
	tcase_add_test(t, test_spool_prune_and_remove);
	tcase_add_test(t, test_run_deadline);
	suite_add_tcase(s, t);

	tcase_add_checked_fixture(c, setup, teardown);
	tcase_set_timeout(c, 60);
	tcase_add_test(c, test_remote_records);
	tcase_add_test(c, test_remote_node_name);
	tcase_add_test(c, test_remote_bound_and_broken_spool);
	tcase_add_test(c, test_remote_full_disk_logged_once);
	tcase_add_test(c, test_remote_optout_and_logs);
	tcase_add_test(c, test_env_fallback_optout);
	tcase_add_test(c, test_local_option_checks);
	tcase_add_test(c, test_bad_args_inactive);
	tcase_add_test(c, test_task_init_tags_and_extras);
	tcase_add_test(c, test_extras_off_by_default);
	tcase_add_test(c, test_job_epilog);
	tcase_add_test(c, test_spool_per_node);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return pmt_run(suite());
}
