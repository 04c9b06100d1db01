/*
 * check_spank_args.c - the plugin suite's pure parts: the plugstack arguments
 * (plugstack/args.c), durations, host lists, and the records and wait statuses (record.c,
 * status.c) read back with jansson.
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

void spank_args_tests(TCase *t)
{
	tcase_add_test(t, test_args_defaults_and_every_key);
	tcase_add_test(t, test_args_malformed_named);
	tcase_add_test(t, test_durations);
	tcase_add_test(t, test_logs_split_and_user_dir);
	tcase_add_test(t, test_hostlist_nth);
	tcase_add_test(t, test_record_round_trip);
	tcase_add_test(t, test_record_hostile_strings);
	tcase_add_test(t, test_wait_status);
}
