/*
 * check_collector_collect.c - the collector suite's configuration (and its file:line errors,
 * durations, sizes, %n/%j), the job from Slurm's environment and filename patterns, and
 * collecting: per-node spools, a hung command killed, the deadline, head and tail capping,
 * compressed files read as text, and the user-rights reader.
 */

#include <archive.h>
#include <archive_entry.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <jansson.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/acl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "collector.h"
#include "finalize.h"
#include "finalize_int.h"
#include "postmortem.h"
#include "support.h"
#include "check_collector.h"

/* ---- configuration ---- */

static const char good_yaml[] =
	"# the collector's configuration\n"
	"store: /shared/pm\n"
	"spool: /var/spool/pm\n"
	"retain: 7d\n"
	"deadline: 20s\n"
	"operators_group: hpcops\n"
	"comment_field: AdminComment\n"
	"service_user: pmsvc\n"
	"sources:\n"
	"  job_output:  {cap: 1MiB, timeout: 2s}\n"
	"  kernel_log:  {path: /var/log/nodes/%n/kern.log, cap: 4MiB, timeout: 5s}\n"
	"  gpu_state:   {command: \"nvidia-smi -q\", cap: 2MiB, timeout: 8s}\n"
	"  gpu_csv:     {enabled: false}\n"
	"  host_state:  {paths: [/proc/meminfo, /proc/loadavg], cap: 64KiB}\n"
	"  slurmd_log:  {path: /var/log/slurm/slurmd-%n.log, cap: 2MiB, timeout: 1500ms}\n"
	"  rank_map:    {}\n";

START_TEST(config_good)
{
	struct pm_config c;
	char err[512] = "";
	const char *f = write_file("pm.yaml", good_yaml, 0644);

	ck_assert_msg(pm_config_load(f, &c, err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(c.path, f);
	ck_assert_str_eq(c.store, "/shared/pm");
	ck_assert_str_eq(c.spool, "/var/spool/pm");
	ck_assert(c.retain == 7 * 86400);
	ck_assert(c.deadline == 20);
	ck_assert_str_eq(c.operators_group, "hpcops");
	ck_assert_str_eq(c.comment_field, "AdminComment");
	ck_assert_str_eq(c.service_user, "pmsvc");
	ck_assert_uint_eq(c.src[PM_CS_JOB_OUTPUT].cap, 1 << 20);
	ck_assert(c.src[PM_CS_JOB_OUTPUT].timeout == 2);
	/* a path replaces the default command */
	ck_assert_ptr_null(c.src[PM_CS_KERNEL_LOG].command);
	ck_assert_str_eq(c.src[PM_CS_KERNEL_LOG].paths[0], "/var/log/nodes/%n/kern.log");
	ck_assert_ptr_null(c.src[PM_CS_KERNEL_LOG].paths[1]);
	ck_assert_str_eq(c.src[PM_CS_GPU_STATE].command, "nvidia-smi -q");
	ck_assert(!c.src[PM_CS_GPU_CSV].enabled);
	ck_assert_str_eq(c.src[PM_CS_HOST_STATE].paths[1], "/proc/loadavg");
	ck_assert_uint_eq(c.src[PM_CS_HOST_STATE].cap, 64 << 10);
	ck_assert(c.src[PM_CS_SLURMD_LOG].timeout == 1.5);
	ck_assert(c.src[PM_CS_RANK_MAP].enabled);
	pm_config_free(&c);

	/* defaults, as epilog/README.md gives them */
	ck_assert_int_eq(pm_config_load(NULL, &c, err, sizeof(err)), 0);
	ck_assert(c.deadline == 30);
	ck_assert(c.retain == 14 * 86400);
	ck_assert_str_eq(c.src[PM_CS_KERNEL_LOG].command, "dmesg --time-format iso");
	ck_assert_str_eq(c.src[PM_CS_GPU_STATE].command, "nvidia-smi -q");
	ck_assert_uint_eq(c.src[PM_CS_JOB_OUTPUT].cap, 8 << 20);
	ck_assert_str_eq(c.src[PM_CS_SLURMD_LOG].paths[0], "/var/log/slurm/slurmd.log");
	ck_assert_str_eq(c.comment_field, "Comment");
	pm_config_free(&c);
	pm_config_free(NULL);
}
END_TEST

static const struct {
	const char *yaml;
	const char *want; /* after "<file>:" */
} bad_configs[] = {
	{"store: relative/path\n", "1: store: 'relative/path' is not an absolute path"},
	{"deadline: 30s\nbogus: 1\n", "2: unknown key 'bogus'"},
	{"deadline: soon\n", "1: deadline: 'soon' is not a duration"},
	{"deadline: 1s\ndeadline: 2s\n", "2: deadline: given twice"},
	{"comment_field: Remarks\n", "1: comment_field: 'Remarks' is not one of"},
	{"sources:\n  gpu_state: {cap: 8XB}\n", "2: sources.gpu_state.cap: '8XB' is not a size"},
	{"sources:\n  kernel_log:\n    timeout: forever\n", "3: sources.kernel_log.timeout"},
	{"sources:\n  kernel_log:\n    cap: 1MiB\n    colour: red\n",
	 "4: sources.kernel_log: unknown key 'colour'"},
	{"sources:\n  nosuch: {}\n", "2: sources: unknown source 'nosuch'"},
	{"sources:\n  gpu_state: {command: x, path: /y}\n",
	 "2: sources.gpu_state: command and path exclude each other"},
	{"sources:\n  host_state: {paths: [/proc/meminfo, rel]}\n",
	 "2: paths: expected absolute paths"},
	{"sources:\n  job_output: {command: cat}\n", "2: sources.job_output: takes no command"},
	{"sources:\n  gpu_state: {enabled: maybe}\n", "2: sources.gpu_state.enabled"},
	{"sources: [a, b]\n", "1: sources: expected a mapping"},
	{"- just\n- a list\n", "1: expected a mapping of settings"},
	{"store: /a\nspool: [unclosed\n", "3: "},
};

START_TEST(config_errors)
{
	struct pm_config c;
	char err[512], want[600];
	const char *f;

	for (size_t i = 0; i < sizeof(bad_configs) / sizeof(bad_configs[0]); i++) {
		f = write_file("bad.yaml", bad_configs[i].yaml, 0644);
		err[0] = 0;
		ck_assert_msg(pm_config_load(f, &c, err, sizeof(err)) == -1, "case %zu loaded", i);
		ck_assert_int_eq(errno, EINVAL);
		snprintf(want, sizeof(want), "%s:%s", f, bad_configs[i].want);
		ck_assert_msg(!strncmp(err, want, strlen(want)), "case %zu: got '%s', want '%s'", i,
			      err, want);
		ck_assert_ptr_null(c.store); /* nothing half-done */
	}
	ck_assert_int_eq(pm_config_load(pmt_path(tmp, "absent.yaml"), &c, err, sizeof(err)), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "absent.yaml: No such file"));
}
END_TEST

/* The store runs sacct and sacctmgr from a buffer of PM_CMD_MAX bytes: a longer command is
 * refused when the configuration is read, never cut where the store runs it. */
START_TEST(config_command_bounded)
{
	static char yaml[PM_CMD_MAX + 64];
	struct pm_config c;
	char err[512];
	int n = snprintf(yaml, sizeof(yaml), "sacctmgr: /usr/bin/sacctmgr ");
	const char *f;

	/* "sacctmgr: " and a value of PM_CMD_MAX + 1 bytes */
	memset(yaml + n, 'x', 10 + (size_t)PM_CMD_MAX + 1 - (size_t)n);
	strcpy(yaml + 10 + PM_CMD_MAX + 1, "\n");
	f = write_file("long.yaml", yaml, 0644);
	ck_assert_int_eq(pm_config_load(f, &c, err, sizeof(err)), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_msg(strstr(err, "1: sacctmgr: a command of 4001 bytes (at most 4000)"), "%s",
		      err);
	/* one byte less is taken whole */
	strcpy(yaml + 10 + PM_CMD_MAX, "\n");
	f = write_file("long.yaml", yaml, 0644);
	ck_assert_msg(pm_config_load(f, &c, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(strlen(c.sacctmgr), PM_CMD_MAX);
	pm_config_free(&c);
}
END_TEST

START_TEST(durations_sizes)
{
	static const struct {
		const char *s;
		double v;
	} d[] = {{"14d", 14 * 86400}, {"36h", 36 * 3600}, {"90s", 90}, {"1.5s", 1.5},
		 {"250ms", 0.25},     {"30", 30},	  {"5m", 300}, {"1w", 604800},
		 {"1d12h", 129600},   {"60000ms", 60}};
	static const char *const dbad[] = {"",	   "s",	 "-1s",	   "1.s",   "5 s",
					   "1d30", "3x", "1.5.2s", "10min", "999999999d"};
	static const struct {
		const char *s;
		uint64_t v;
	} z[] = {{"8MiB", 8 << 20}, {"64KiB", 64 << 10}, {"100", 100}, {"1GiB", 1 << 30},
		 {"1.5KiB", 1536},  {"10MB", 10000000},	 {"4K", 4096}, {"512B", 512}};
	static const char *const zbad[] = {"", "MiB", "8 XB", "-1", "1.3B", "8mib", "1e3"};
	double v;
	uint64_t u;

	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
		ck_assert_msg(pm_parse_duration(d[i].s, &v) == 0, "%s", d[i].s);
		ck_assert_msg(v > d[i].v - 1e-9 && v < d[i].v + 1e-9, "%s: %g", d[i].s, v);
	}
	for (size_t i = 0; i < sizeof(dbad) / sizeof(dbad[0]); i++)
		ck_assert_msg(pm_parse_duration(dbad[i], &v) == -1, "'%s' parsed", dbad[i]);
	ck_assert_int_eq(pm_parse_duration(NULL, &v), -1);
	for (size_t i = 0; i < sizeof(z) / sizeof(z[0]); i++) {
		ck_assert_msg(pm_parse_size(z[i].s, &u) == 0, "%s", z[i].s);
		ck_assert_uint_eq(u, z[i].v);
	}
	for (size_t i = 0; i < sizeof(zbad) / sizeof(zbad[0]); i++)
		ck_assert_msg(pm_parse_size(zbad[i], &u) == -1, "'%s' parsed", zbad[i]);
}
END_TEST

START_TEST(expand_node_job)
{
	char *s = pm_expand("/var/log/nodes/%n/kern-%j.log %% %x", "gpu017", "4242");

	ck_assert_str_eq(s, "/var/log/nodes/gpu017/kern-4242.log % %x");
	free(s);
	s = pm_expand("%n%n%", "n1", NULL);
	ck_assert_str_eq(s, "n1n1%");
	free(s);
	ck_assert_ptr_null(pm_expand(NULL, "n", "j"));
}
END_TEST

START_TEST(job_from_env)
{
	struct pm_job j;
	char err[256];

	slurm_env(NULL, NULL);
	setenv("SLURM_ARRAY_JOB_ID", "4200", 1);
	setenv("SLURM_ARRAY_TASK_ID", "42", 1);
	setenv("SLURM_JOB_RESTART_COUNT", "2", 1);
	ck_assert_int_eq(pm_job_init(&j, NULL, NULL, NULL, err, sizeof(err)), 0);
	ck_assert_str_eq(j.id, "4242");
	ck_assert_str_eq(j.key, "4200_42");
	ck_assert_str_eq(j.cluster, "lab");
	ck_assert_str_eq(j.node, "n1");
	ck_assert_int_eq(j.restart, 2);
	ck_assert_int_eq(j.uid, NOBODY);
	ck_assert_int_eq(j.exit_code, 256);
	ck_assert(j.boot_time > 1e9);
	ck_assert_int_eq(pm_job_batch_node(&j), 1);
	pm_job_free(&j);
	/* values that would escape a path are refused */
	ck_assert_int_eq(pm_job_init(&j, "42/../1", NULL, NULL, err, sizeof(err)), -1);
	ck_assert_int_eq(pm_job_init(&j, NULL, "../etc", NULL, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "not a plain host name"));
	setenv("SLURM_CLUSTER_NAME", "a/b", 1);
	ck_assert_int_eq(pm_job_init(&j, NULL, "n2", NULL, err, sizeof(err)), 0);
	ck_assert_str_eq(j.cluster, "default");
	ck_assert_int_eq(pm_job_batch_node(&j), 0);
	pm_job_free(&j);
}
END_TEST

START_TEST(slurm_patterns)
{
	struct pm_job j = {0};
	char why[256], host[256], want[600], *p;
	static const struct {
		const char *pat, *want;
	} t[] = {
		{"slurm-%j.out", "/home/alice/run/slurm-4242.out"},
		{"/out/%x-%A_%a.%u", "/out/train-100_7.alice"},
		{"/o/%5j.%3a", "/o/04242.007"},
		{"/o/%%j-%J", "/o/%j-4242"},
		{"/o/%t-%n-%s", "/o/0-0-batch"},
		{"/o/a\\%j", "/o/a%j"},
		{"/o/%q%", "/o/%q%"},
		{"/o/%b", "/o/7"},
	};

	j.id = "4242";
	j.user = "alice";
	j.name = "train";
	j.array_job = "100";
	j.array_task = "7";
	j.work_dir = "/home/alice/run";
	j.node = "n1";
	j.nodelist = "n[1-2]";
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		p = pm_slurm_pattern(t[i].pat, &j, why, sizeof(why));
		ck_assert_msg(p != NULL, "%s: %s", t[i].pat, why);
		ck_assert_str_eq(p, t[i].want);
		free(p);
	}
	/* %N: the batch node's short host name, known on the batch node */
	gethostname(host, sizeof(host));
	host[strcspn(host, ".")] = 0;
	snprintf(want, sizeof(want), "/o/%s.out", host);
	p = pm_slurm_pattern("/o/%N.out", &j, why, sizeof(why));
	ck_assert_str_eq(p, want);
	free(p);
	/* not an array job: %A is the job id, %a Slurm's NO_VAL */
	j.array_job = j.array_task = NULL;
	p = pm_slurm_pattern("/o/%A-%a", &j, why, sizeof(why));
	ck_assert_str_eq(p, "/o/4242-4294967294");
	free(p);
	/* what the epilog cannot know */
	j.name = NULL;
	ck_assert_ptr_null(pm_slurm_pattern("/o/%x.out", &j, why, sizeof(why)));
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_ptr_nonnull(strstr(why, "%x"));
	j.work_dir = NULL;
	ck_assert_ptr_null(pm_slurm_pattern("rel.out", &j, why, sizeof(why)));
	j.node = "n2";
	ck_assert_ptr_null(pm_slurm_pattern("/o/%N", &j, why, sizeof(why)));
}
END_TEST

/* spool: DIR/%n is this node's own spool, as the plugin's spool=DIR/%n. */
START_TEST(spool_per_node)
{
	struct pm_job j;
	char want[600];

	slurm_env(NULL, NULL);
	mkdir(pmt_path(tmp, "spool"), 0700);
	mkdir(pmt_path(tmp, "spool/n1"), 0700);
	mkdir(pmt_path(tmp, "spool/n1/4242"), 0700);
	mkdir(pmt_path(tmp, "spool/n2"), 0700);
	mkdir(pmt_path(tmp, "spool/n2/4242"), 0700);
	load_job(&j, pmt_path(tmp, "spool/%n"));
	snprintf(want, sizeof(want), "%s", pmt_path(tmp, "spool/n1/4242"));
	ck_assert_ptr_nonnull(j.spool);
	ck_assert_str_eq(j.spool, want);
	pm_job_free(&j);
	setenv("SLURMD_NODENAME", "n2", 1);
	load_job(&j, pmt_path(tmp, "spool/%n"));
	snprintf(want, sizeof(want), "%s", pmt_path(tmp, "spool/n2/4242"));
	ck_assert_str_eq(j.spool, want);
	pm_job_free(&j);
}
END_TEST

START_TEST(hung_command_killed)
{
	struct pm_config cfg;
	struct pm_job j;
	struct pm_collection c;
	char err[64];
	double t0, took;

	slurm_env(NULL, NULL);
	load_job(&j, NULL);
	ck_assert_int_eq(pm_config_load(NULL, &cfg, err, sizeof(err)), 0);
	only(&cfg, PM_CS_GPU_STATE);
	set_cmd(&cfg, PM_CS_GPU_STATE, "echo partial; sleep 100", 1);

	/* its own timeout: 1 s, the deadline far away */
	t0 = pm_mono();
	ck_assert_int_eq(pm_collect(&cfg, &j, t0 + 10, &c), 0);
	took = pm_mono() - t0;
	ck_assert_msg(took < 1.5, "took %.2f s", took);
	ck_assert_int_eq(c.cov[PM_CS_GPU_STATE].status, PM_ST_TIMED_OUT);
	ck_assert_str_eq(c.cov[PM_CS_GPU_STATE].reason, "echo did not answer in 1 s");
	ck_assert(!c.deadline_hit);
	ck_assert_int_eq(c.cov[PM_CS_KERNEL_LOG].status, PM_ST_MISSING);
	ck_assert_str_eq(c.cov[PM_CS_KERNEL_LOG].reason, "disabled in the configuration");
	/* what it printed before it hung is kept */
	ck_assert_ptr_nonnull(cap_of(&c, PM_CS_GPU_STATE, NULL)->name);
	ck_assert_str_eq(cap_of(&c, PM_CS_GPU_STATE, NULL)->data, "partial\n");
	pm_collection_free(&c);

	/* the collector's deadline comes first: the source is cut */
	set_cmd(&cfg, PM_CS_GPU_STATE, "sleep 100", 30);
	t0 = pm_mono();
	ck_assert_int_eq(pm_collect(&cfg, &j, t0 + 0.8, &c), 0);
	took = pm_mono() - t0;
	ck_assert_msg(took < 1.3, "took %.2f s", took);
	ck_assert_int_eq(c.cov[PM_CS_GPU_STATE].status, PM_ST_TIMED_OUT);
	ck_assert(c.cov[PM_CS_GPU_STATE].cut);
	ck_assert(c.deadline_hit);
	ck_assert_ptr_nonnull(strstr(c.cov[PM_CS_GPU_STATE].reason, "the collector's deadline"));
	pm_collection_free(&c);

	/* a command that is not there is missing, not an error */
	set_cmd(&cfg, PM_CS_GPU_STATE, "no-such-nvidia-smi -q", 5);
	ck_assert_int_eq(pm_collect(&cfg, &j, pm_mono() + 5, &c), 0);
	ck_assert_int_eq(c.cov[PM_CS_GPU_STATE].status, PM_ST_MISSING);
	ck_assert_str_eq(c.cov[PM_CS_GPU_STATE].reason,
			 "no-such-nvidia-smi: no such command on this node");
	pm_collection_free(&c);
	pm_job_free(&j);
	pm_config_free(&cfg);
}
END_TEST

/* The whole program, with a hung nvidia-smi stand-in: done within its deadline + 1 s. */
START_TEST(collector_within_deadline)
{
	char cmd[2048], conf[1024];
	const char *f;
	double t0, took;
	int st;

	snprintf(conf, sizeof(conf),
		 "deadline: 2s\n"
		 "sources:\n"
		 "  gpu_state: {command: \"sleep 100\", timeout: 30s}\n"
		 "  gpu_csv: {command: \"sleep 100\", timeout: 1s}\n"
		 "  kernel_log: {command: \"echo kernel\"}\n"
		 "  slurmd_log: {path: %s/slurmd.log}\n",
		 tmp);
	f = write_file("deadline.yaml", conf, 0644);
	write_file("slurmd.log",
		   "[2026-11-30T03:11:58.002] JobId=4242 started\n"
		   "[2026-11-30T03:11:59.002] JobId=42420 is another\n",
		   0644);
	mkdir(pmt_path(tmp, "store"), 0755);
	slurm_env(NULL, NULL);
	snprintf(cmd, sizeof(cmd), "%s/epilog/postmortem-epilog --config=%s --store=%s --spool=%s",
		 PM_TEST_BUILDDIR, f, pmt_path(tmp, "store"), pmt_path(tmp, "spool"));
	t0 = pm_mono();
	st = system(cmd);
	took = pm_mono() - t0;
	ck_assert_int_eq(WEXITSTATUS(st), 0);
	ck_assert_msg(took < 3.0, "took %.2f s with a 2 s deadline", took);
	if (geteuid() == 0) {
		struct pm_evidence *ev = pm_evidence_create(NULL);
		char err[512];
		const char *b = pmt_path(tmp, "store/lab/4242/0/nodes/n1.tar.zst");

		ck_assert_msg(access(b, F_OK) == 0, "no bundle %s", b);
		ck_assert_msg(pm_evidence_add_path(ev, b, err, sizeof(err)) == 0, "%s", err);
		pm_evidence_destroy(ev);
	}
}
END_TEST

START_TEST(head_tail_capping)
{
	struct pm_capture c;
	struct pm_config cfg;
	struct pm_job j;
	struct pm_collection col;
	const struct pm_capture *k;
	char err[64];
	FILE *f;

	ck_assert_int_eq(pm_run_command("seq 1 200000", 5, 4096, &c), 0);
	ck_assert_int_eq(c.status, PM_ST_TRUNCATED);
	ck_assert_msg(c.len <= 4096 + 64, "%zu bytes", c.len);
	ck_assert(!strncmp(c.data, "1\n2\n3\n", 6));
	ck_assert(c.len > 7 && !strcmp(c.data + c.len - 7, "200000\n"));
	ck_assert_ptr_nonnull(strstr(c.data, "bytes omitted here]\n"));
	ck_assert_ptr_nonnull(strstr(c.reason, "kept the first 2.0 KiB and the last 2.0 KiB of"));
	free(c.data);
	free(c.name);
	free(c.origin);

	/* a last line longer than the tail's half: its end is not kept without its start (a
	 * name cut off, its value bare), with a line end or without */
	for (int nl = 0; nl < 2; nl++) {
		ck_assert_int_eq(
			pm_run_command(
				nl ? "echo a; printf DB_PASSWORD=; seq -s, 1 3000 | tr -d \\\\n; "
				     "echo horse-battery-staple" :
				     "echo a; printf DB_PASSWORD=; seq -s, 1 3000 | tr -d \\\\n; "
				     "printf horse-battery-staple",
				5, 4096, &c),
			0);
		ck_assert_int_eq(c.status, PM_ST_TRUNCATED);
		ck_assert_ptr_null(strstr(c.data, "horse-battery-staple"));
		ck_assert_msg(!strncmp(c.data, "a\n[postmortem: ", 15), "%.200s", c.data);
		ck_assert_ptr_nonnull(strstr(c.data,
					     " bytes omitted here, to the end: its last line "
					     "was too long to keep]\n"));
		ck_assert_int_eq(c.data[c.len - 1], '\n');
		free(c.data);
		free(c.name);
		free(c.origin);
	}
	/* near miss: a tail with whole lines after its first line end keeps them */
	ck_assert_int_eq(pm_run_command("seq 1 3000; printf DB_PASSWORD=x; seq -s, 1 3000; seq 1 10",
					5, 4096, &c),
			 0);
	ck_assert(c.len > 5 && !strcmp(c.data + c.len - 5, "9\n10\n"));
	ck_assert_ptr_nonnull(strstr(c.data, " bytes omitted here]\n"));
	free(c.data);
	free(c.name);
	free(c.origin);

	ck_assert_int_eq(pm_run_command("seq 1 10", 5, 4096, &c), 0);
	ck_assert_int_eq(c.status, PM_ST_OK);
	ck_assert_str_eq(c.data, "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n");
	free(c.data);
	free(c.name);
	free(c.origin);

	/* a file: the reader seeks past the middle instead of reading it */
	f = fopen(pmt_path(tmp, "big.log"), "w");
	for (int i = 1; i <= 100000; i++)
		fprintf(f, "line %d\n", i);
	fclose(f);
	slurm_env(NULL, NULL);
	load_job(&j, NULL);
	ck_assert_int_eq(pm_config_load(NULL, &cfg, err, sizeof(err)), 0);
	only(&cfg, PM_CS_HOST_STATE);
	set_path(&cfg, PM_CS_HOST_STATE, pmt_path(tmp, "big.log"));
	cfg.src[PM_CS_HOST_STATE].cap = 8192;
	ck_assert_int_eq(pm_collect(&cfg, &j, pm_mono() + 5, &col), 0);
	k = cap_of(&col, PM_CS_HOST_STATE, NULL);
	ck_assert_int_eq(k->status, PM_ST_TRUNCATED);
	ck_assert(!strncmp(k->data, "line 1\nline 2\n", 14));
	ck_assert(!strcmp(k->data + k->len - 12, "line 100000\n"));
	ck_assert_msg(k->len <= 8192 + 64, "%zu", k->len);
	ck_assert_int_eq(col.cov[PM_CS_HOST_STATE].status, PM_ST_TRUNCATED);
	pm_collection_free(&col);
	pm_job_free(&j);
	pm_config_free(&cfg);
}
END_TEST

/* A gzip file is read as its text, capped head and tail, redacted, and stored under its name
 * less ".gz"; a bzip2 file is not archived (denied, the format named). */
START_TEST(compressed_files_as_text)
{
	struct pm_config cfg;
	struct pm_job j;
	struct pm_collection col;
	const struct pm_capture *k;
	char err[64];
	gzFile gz = gzopen(pmt_path(tmp, "app.log.gz"), "wb");

	ck_assert_ptr_nonnull(gz);
	gzprintf(gz, "first export HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789\n");
	for (int i = 1; i <= 100000; i++)
		gzprintf(gz, "line %d\n", i);
	gzprintf(gz, "last " AWS_KEY "\n");
	gzclose(gz);
	write_file("app.log.bz2", "BZh91AY&SY not really bzip2 " AWS_KEY "\n", 0644);
	slurm_env(NULL, NULL);
	load_job(&j, NULL);
	ck_assert_int_eq(pm_config_load(NULL, &cfg, err, sizeof(err)), 0);
	only(&cfg, PM_CS_HOST_STATE);
	set_path(&cfg, PM_CS_HOST_STATE, pmt_path(tmp, "app.log.*"));
	cfg.src[PM_CS_HOST_STATE].cap = 8192;
	ck_assert_int_eq(pm_collect(&cfg, &j, pm_mono() + 5, &col), 0);
	k = cap_of(&col, PM_CS_HOST_STATE, "app.log.gz");
	ck_assert_int_eq(k->status, PM_ST_TRUNCATED);
	ck_assert(!strncmp(k->data, "first export HF_TOKEN=hf_", 25));
	ck_assert_ptr_nonnull(strstr(k->data, "line 1\n"));
	ck_assert(!strcmp(k->data + k->len - 26, "last " AWS_KEY "\n"));
	ck_assert_msg(k->len <= 8192 + 64, "%zu", k->len);
	ck_assert_uint_ge(pm_collection_scrub(&col), 2);
	/* host_state names the member after its path ("tmp_pmcol.XXXXXX_app.log"): no .gz */
	ck_assert(strlen(k->name) > 8 && !strcmp(k->name + strlen(k->name) - 8, "_app.log"));
	ck_assert_ptr_null(strstr(k->data, AWS_KEY));
	ck_assert_ptr_null(strstr(k->data, "hf_AbCd"));
	k = cap_of(&col, PM_CS_HOST_STATE, "app.log.bz2");
	ck_assert_int_eq(k->status, PM_ST_DENIED);
	ck_assert_ptr_null(k->name);
	ck_assert_ptr_null(k->data);
	ck_assert_ptr_nonnull(strstr(k->reason, "bzip2 data, which the collector cannot redact"));
	ck_assert_int_eq(col.cov[PM_CS_HOST_STATE].status, PM_ST_DENIED);
	pm_collection_free(&col);
	pm_job_free(&j);
	pm_config_free(&cfg);
}
END_TEST

static void write_raw(const char *rel, const void *p, size_t n)
{
	FILE *f = fopen(pmt_path(tmp, rel), "wb");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(p, 1, n, f), n);
	fclose(f);
}

/* TEXT (ASCII) as UTF-16, little or big endian, with or without a byte order mark. */
static size_t utf16(const char *text, bool big, bool bom, char *out)
{
	size_t k = 0;

	if (bom) {
		out[k++] = big ? '\xfe' : '\xff';
		out[k++] = big ? '\xff' : '\xfe';
	}
	for (const char *p = text; *p; p++) {
		out[k++] = big ? 0 : *p;
		out[k++] = big ? *p : 0;
	}
	return k;
}

/* UTF-16 text (a Windows tool's log) passes the redactor unread: it is not archived but
 * denied, with a byte order mark or without, in either byte order, from an odd byte on too.
 * Text without it, and binary whose NULs are no UTF-16, are archived as before. */
START_TEST(utf16_not_archived)
{
	static const char bin[] = "\x7f"
				  "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0>\0\x01\0\0\0"
				  "step 10 loss 2.31\n";
	static const char plain[] = "step 10 loss 2.31 caf\xc3\xa9\nRuntimeError: CUDA error\n";
	struct pm_config cfg;
	struct pm_job j;
	struct pm_collection col;
	const struct pm_capture *k;
	char err[64], u[512];
	const char *const names[] = {"w16le.log", "w16be.log", "w16odd.log"};

	write_raw("w16le.log", u,
		  utf16("export HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789\r\n", false, true,
			u));
	write_raw("w16be.log", u, utf16("DB_PASSWORD=horse battery staple\n", true, false, u));
	u[0] = 'x'; /* a UTF-8 line, then UTF-16 from an odd byte */
	write_raw("w16odd.log", u, 1 + utf16("password=S3cretPassw0rd\n", false, false, u + 1));
	write_raw("w16bin.dat", bin, sizeof(bin) - 1);
	write_raw("w16plain.log", plain, sizeof(plain) - 1);
	slurm_env(NULL, NULL);
	load_job(&j, NULL);
	ck_assert_int_eq(pm_config_load(NULL, &cfg, err, sizeof(err)), 0);
	only(&cfg, PM_CS_HOST_STATE);
	set_path(&cfg, PM_CS_HOST_STATE, pmt_path(tmp, "w16*"));
	ck_assert_int_eq(pm_collect(&cfg, &j, pm_mono() + 5, &col), 0);
	pm_collection_scrub(&col);
	for (size_t i = 0; i < 3; i++) {
		k = cap_of(&col, PM_CS_HOST_STATE, names[i]);
		ck_assert_int_eq(k->status, PM_ST_DENIED);
		ck_assert_ptr_null(k->data);
		ck_assert_ptr_nonnull(
			strstr(k->reason, "UTF-16 text, which the collector cannot redact"));
	}
	ck_assert_int_eq(col.cov[PM_CS_HOST_STATE].status, PM_ST_DENIED);
	k = cap_of(&col, PM_CS_HOST_STATE, "w16bin.dat");
	ck_assert_int_eq(k->status, PM_ST_OK);
	ck_assert_uint_eq(k->len, sizeof(bin) - 1);
	ck_assert(!memcmp(k->data, bin, k->len));
	k = cap_of(&col, PM_CS_HOST_STATE, "w16plain.log");
	ck_assert_int_eq(k->status, PM_ST_OK);
	ck_assert_str_eq(k->data, plain);
	pm_collection_free(&col);
	pm_job_free(&j);
	pm_config_free(&cfg);
}
END_TEST

/* TEXT as UTF-32 (BIG: big endian; BOM: with a byte order mark) into OUT; its length. */
static size_t utf32(const char *text, bool big, bool bom, char *out)
{
	size_t k = 0;

	if (bom) {
		memcpy(out, big ? "\0\0\xfe\xff" : "\xff\xfe\0\0", 4);
		k = 4;
	}
	for (const char *p = text; *p; p++, k += 4) {
		memset(out + k, 0, 4);
		out[k + (big ? 3 : 0)] = *p;
	}
	return k;
}

/* UTF-32 text hides every trigger behind three NULs a character, and the UTF-16 test counts
 * none of its units: denied too, with a mark or without, in either byte order, from any byte
 * on.  Binary holding a few small 32-bit numbers is archived as before. */
START_TEST(utf32_not_archived)
{
	static const char bin[] = "\x7f"
				  "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0>\0\x01\0\0\0"
				  "A\0\0\0B\0\0\0C\0\0\0D\0\0\0E\0\0\0F\0\0\0"
				  "step 10 loss 2.31\n";
	struct pm_config cfg;
	struct pm_job j;
	struct pm_collection col;
	const struct pm_capture *k;
	char err[64], u[1024];
	const char *const names[] = {"w32le.log", "w32be.log", "w32odd.log", "w32nobom.log"};

	write_raw("w32le.log", u,
		  utf32("export HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789\r\n", false, true,
			u));
	write_raw("w32be.log", u, utf32("DB_PASSWORD=horse battery staple\n", true, true, u));
	memcpy(u, "abc", 3); /* a UTF-8 line's tail, then UTF-32 from the fourth byte */
	write_raw("w32odd.log", u, 3 + utf32("password=S3cretPassw0rd\n", true, false, u + 3));
	write_raw("w32nobom.log", u, utf32("token=abcdef0123456789\n", false, false, u));
	write_raw("w32bin.dat", bin, sizeof(bin) - 1);
	slurm_env(NULL, NULL);
	load_job(&j, NULL);
	ck_assert_int_eq(pm_config_load(NULL, &cfg, err, sizeof(err)), 0);
	only(&cfg, PM_CS_HOST_STATE);
	set_path(&cfg, PM_CS_HOST_STATE, pmt_path(tmp, "w32*"));
	ck_assert_int_eq(pm_collect(&cfg, &j, pm_mono() + 5, &col), 0);
	pm_collection_scrub(&col);
	for (size_t i = 0; i < 4; i++) {
		k = cap_of(&col, PM_CS_HOST_STATE, names[i]);
		ck_assert_int_eq(k->status, PM_ST_DENIED);
		ck_assert_ptr_null(k->data);
		ck_assert_msg(strstr(k->reason, "UTF-32 text, which the collector cannot redact"),
			      "%s: %s", names[i], k->reason);
	}
	k = cap_of(&col, PM_CS_HOST_STATE, "w32bin.dat");
	ck_assert_int_eq(k->status, PM_ST_OK);
	ck_assert_uint_eq(k->len, sizeof(bin) - 1);
	ck_assert(!memcmp(k->data, bin, k->len));
	pm_collection_free(&col);
	pm_job_free(&j);
	pm_config_free(&cfg);
}
END_TEST

/* A user's gzip file whose text passes POSTMORTEM_INPUT_MAX: the reader stops decompressing,
 * and coverage says so first, not only that part of a long file was kept. */
START_TEST(decompression_stopped_in_coverage)
{
	struct pm_config cfg;
	struct pm_job j;
	struct pm_collection col;
	const struct pm_capture *k;
	char err[64];
	gzFile gz = gzopen(pmt_path(tmp, "bomb.log.gz"), "wb");

	ck_assert_ptr_nonnull(gz);
	for (int i = 1; i <= 400000; i++)
		gzprintf(gz, "step %d loss 0.5\n", i); /* about 7 MiB of text */
	gzclose(gz);
	setenv("POSTMORTEM_INPUT_MAX", "1M", 1);
	slurm_env(NULL, NULL);
	load_job(&j, NULL);
	ck_assert_int_eq(pm_config_load(NULL, &cfg, err, sizeof(err)), 0);
	only(&cfg, PM_CS_HOST_STATE);
	set_path(&cfg, PM_CS_HOST_STATE, pmt_path(tmp, "bomb.log.gz"));
	cfg.src[PM_CS_HOST_STATE].cap = 8192;
	ck_assert_int_eq(pm_collect(&cfg, &j, pm_mono() + 5, &col), 0);
	unsetenv("POSTMORTEM_INPUT_MAX");
	k = cap_of(&col, PM_CS_HOST_STATE, NULL);
	ck_assert_int_eq(k->status, PM_ST_TRUNCATED);
	ck_assert_msg(!strncmp(k->reason,
			       "decompression stopped: more text than 1 MiB once gunzipped", 57),
		      "%s", k->reason);
	ck_assert_msg(strstr(k->reason, "; kept the first 4.0 KiB and the last 4.0 KiB of"), "%s",
		      k->reason);
	ck_assert(!strncmp(k->data, "step 1 loss 0.5\n", 16));
	ck_assert_ptr_nonnull(strstr(k->data, "\n[postmortem: more text than 1 MiB"));
	ck_assert_ptr_nonnull(strstr(col.cov[PM_CS_HOST_STATE].reason, "decompression stopped: "));
	pm_collection_free(&col);
	pm_job_free(&j);
	pm_config_free(&cfg);

	/* the same words inside a small file that was read whole are the user's, not a note */
	gz = gzopen(pmt_path(tmp, "forged.log.gz"), "wb");
	gzprintf(gz, "ok\n[postmortem: decompression stopped: forged]\n");
	gzclose(gz);
	load_job(&j, NULL);
	ck_assert_int_eq(pm_config_load(NULL, &cfg, err, sizeof(err)), 0);
	only(&cfg, PM_CS_HOST_STATE);
	set_path(&cfg, PM_CS_HOST_STATE, pmt_path(tmp, "forged.log.gz"));
	ck_assert_int_eq(pm_collect(&cfg, &j, pm_mono() + 5, &col), 0);
	k = cap_of(&col, PM_CS_HOST_STATE, NULL);
	ck_assert_int_eq(k->status, PM_ST_OK);
	ck_assert_ptr_null(strstr(k->reason, "decompression"));
	pm_collection_free(&col);
	pm_job_free(&j);
	pm_config_free(&cfg);
}
END_TEST

/* Job output read as the job's user: a link to root's file is not followed. */
START_TEST(user_rights)
{
	struct pm_config cfg;
	struct pm_job j;
	struct pm_collection col;
	const struct pm_capture *k;
	char err[64];

	if (geteuid() != 0)
		return; /* needs root to drop to nobody */
	mkdir(pmt_path(tmp, "root"), 0700);
	write_file("root/secret", "TOPSECRET\n", 0600);
	mkdir(pmt_path(tmp, "home"), 0755);
	ck_assert_int_eq(chown(pmt_path(tmp, "home"), NOBODY, NOGROUP), 0);
	ck_assert_int_eq(symlink(pmt_path(tmp, "root/secret"),
				 pmt_path(tmp, "home/slurm-4242.out")),
			 0);
	write_file("home/err.log", "hello from the job " AWS_KEY "\n", 0644);
	ck_assert_int_eq(chown(pmt_path(tmp, "home/err.log"), NOBODY, NOGROUP), 0);
	setenv("SLURM_JOB_WORK_DIR", pmt_path(tmp, "home"), 1);

	slurm_env("slurm-%j.out", "err.log");
	setenv("SLURM_JOB_WORK_DIR", pmt_path(tmp, "home"), 1);
	load_job(&j, NULL);
	ck_assert_int_eq(pm_config_load(NULL, &cfg, err, sizeof(err)), 0);
	only(&cfg, PM_CS_JOB_OUTPUT);
	ck_assert_int_eq(pm_collect(&cfg, &j, pm_mono() + 5, &col), 0);
	k = cap_of(&col, PM_CS_JOB_OUTPUT, "slurm-4242.out");
	ck_assert_ptr_nonnull(k);
	ck_assert_int_eq(k->status, PM_ST_DENIED);
	ck_assert_ptr_null(k->name);
	ck_assert_ptr_null(k->data);
	ck_assert_ptr_nonnull(
		strstr(k->reason, "is a symbolic link: not followed (read as uid 65534)"));
	k = cap_of(&col, PM_CS_JOB_OUTPUT, "stderr");
	ck_assert_int_eq(k->status, PM_ST_OK);
	ck_assert_ptr_nonnull(strstr(k->data, "hello from the job"));
	ck_assert_int_eq(col.cov[PM_CS_JOB_OUTPUT].status, PM_ST_DENIED);
	pm_collection_free(&col);
	pm_job_free(&j);

	/* the root file named directly: nobody cannot open it */
	slurm_env(pmt_path(tmp, "root/secret"), NULL);
	unsetenv("SLURM_JOB_STDERR");
	load_job(&j, NULL);
	ck_assert_int_eq(pm_collect(&cfg, &j, pm_mono() + 5, &col), 0);
	k = cap_of(&col, PM_CS_JOB_OUTPUT, "secret");
	ck_assert_int_eq(k->status, PM_ST_DENIED);
	ck_assert_ptr_nonnull(strstr(k->reason, "permission denied"));
	ck_assert_ptr_null(k->data);
	pm_collection_free(&col);
	pm_job_free(&j);
	pm_config_free(&cfg);
}
END_TEST

void collector_collect_tests(TCase *t)
{
	tcase_add_test(t, config_good);
	tcase_add_test(t, config_errors);
	tcase_add_test(t, config_command_bounded);
	tcase_add_test(t, durations_sizes);
	tcase_add_test(t, expand_node_job);
	tcase_add_test(t, job_from_env);
	tcase_add_test(t, slurm_patterns);
	tcase_add_test(t, spool_per_node);
	tcase_add_test(t, hung_command_killed);
	tcase_add_test(t, collector_within_deadline);
	tcase_add_test(t, head_tail_capping);
	tcase_add_test(t, compressed_files_as_text);
	tcase_add_test(t, utf16_not_archived);
	tcase_add_test(t, utf32_not_archived);
	tcase_add_test(t, decompression_stopped_in_coverage);
	tcase_add_test(t, user_rights);
}
