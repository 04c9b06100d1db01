/*
 * check_collector.c - the node collector (epilog/): configuration and its file:line errors,
 * durations and sizes, %n/%j and Slurm's filename patterns, a hung command killed at its
 * timeout (and the whole collector inside its deadline), head and tail capping, the
 * user-rights reader refusing links to root's files, redaction before anything is written,
 * the bundle read back by the engine and refused once a byte is flipped, per-file coverage of
 * cut captures, the store's permissions and spool fallback, and a root_squash store written
 * as the service user, a fetched copy private to the caller whatever the umask, and the Slurm
 * record of the job's own owner when its number was used before.  Tests that need root skip
 * themselves otherwise.
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

#define NOBODY 65534
#define NOGROUP 65534
#define AWS_KEY "AKIA2E0A8F3B244C9986"
/* the fields the finalizer asks sacct for (store/slurmdb.c) */
#define SACCT_TEST_FIELDS                                                 \
	"JobID,JobIDRaw,State,ExitCode,Start,End,NodeList,NNodes,NTasks," \
	"AllocTRES,ReqTRES,FailedNode,Cluster,UID,Reason"

static char tmp[256];

static void setup(void)
{
	snprintf(tmp, sizeof(tmp), "/tmp/pmcol.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	chmod(tmp, 0755);
}

static void teardown(void)
{
	pmt_rmtree(tmp);
}

static const char *write_file(const char *rel, const char *text, mode_t mode)
{
	const char *p = pmt_path(tmp, rel);
	FILE *f = fopen(p, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	chmod(p, mode);
	return p;
}

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

/* ---- the job ---- */

static void slurm_env(const char *out, const char *err)
{
	static const char *const clear[] = {"SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID",
					    "SLURM_JOB_RESTART_COUNT", "SLURM_JOB_STDOUT",
					    "SLURM_JOB_STDERR"};

	for (size_t i = 0; i < sizeof(clear) / sizeof(clear[0]); i++)
		unsetenv(clear[i]);
	setenv("SLURM_JOB_ID", "4242", 1);
	setenv("SLURMD_NODENAME", "n1", 1);
	setenv("SLURM_CLUSTER_NAME", "lab", 1);
	setenv("SLURM_JOB_USER", "nobody", 1);
	setenv("SLURM_JOB_UID", "65534", 1);
	setenv("SLURM_JOB_GID", "65534", 1);
	setenv("SLURM_JOB_WORK_DIR", tmp, 1);
	setenv("SLURM_NODELIST", "n[1-2]", 1);
	setenv("SLURM_JOB_EXIT_CODE", "256", 1);
	if (out)
		setenv("SLURM_JOB_STDOUT", out, 1);
	if (err)
		setenv("SLURM_JOB_STDERR", err, 1);
}

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

/* ---- collecting ---- */

static void only(struct pm_config *c, enum pm_csource keep)
{
	for (int i = 0; i < PM_CS__COUNT; i++)
		c->src[i].enabled = i == (int)keep;
}

static void set_cmd(struct pm_config *c, enum pm_csource s, const char *cmd, double timeout)
{
	free(c->src[s].command);
	c->src[s].command = strdup(cmd);
	c->src[s].timeout = timeout;
	for (size_t i = 0; c->src[s].paths && c->src[s].paths[i]; i++)
		free(c->src[s].paths[i]);
	free(c->src[s].paths);
	c->src[s].paths = NULL;
}

static void set_path(struct pm_config *c, enum pm_csource s, const char *path)
{
	set_cmd(c, s, "unused", c->src[s].timeout);
	free(c->src[s].command);
	c->src[s].command = NULL;
	c->src[s].paths = calloc(2, sizeof(char *));
	c->src[s].paths[0] = strdup(path);
}

static void load_job(struct pm_job *j, const char *spool)
{
	char err[256];

	ck_assert_msg(pm_job_init(j, NULL, NULL, spool, err, sizeof(err)) == 0, "%s", err);
}

static const struct pm_capture *cap_of(const struct pm_collection *c, enum pm_csource s,
				       const char *name)
{
	for (size_t i = 0; i < c->ncaps; i++)
		if (c->caps[i].src == s &&
		    (!name || (c->caps[i].name && !strcmp(c->caps[i].name, name)) ||
		     (c->caps[i].origin && strstr(c->caps[i].origin, name))))
			return &c->caps[i];
	return NULL;
}

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

/* ---- bundles ---- */

/* Read member NAME of bundle PATH; the first member's name into FIRST. */
static char *member(const char *path, const char *name, char *first, size_t flen)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	char *out = NULL;
	bool at_first = true;

	archive_read_support_filter_zstd(a);
	archive_read_support_format_tar(a);
	ck_assert_int_eq(archive_read_open_filename(a, path, 65536), ARCHIVE_OK);
	while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
		if (at_first && first)
			snprintf(first, flen, "%s", archive_entry_pathname(e));
		at_first = false;
		if (!strcmp(archive_entry_pathname(e), name)) {
			size_t n = (size_t)archive_entry_size(e);
			out = calloc(1, n + 1);
			ck_assert_int_eq(archive_read_data(a, out, n), (la_ssize_t)n);
		}
	}
	archive_read_free(a);
	return out;
}

static void save(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
	fclose(f);
}

/* A collection with a command, a /proc file and a planted secret. */
static void sample(struct pm_config *cfg, struct pm_job *j, struct pm_collection *c)
{
	char err[64];

	slurm_env(NULL, NULL);
	load_job(j, NULL);
	ck_assert_int_eq(pm_config_load(NULL, cfg, err, sizeof(err)), 0);
	for (int i = 0; i < PM_CS__COUNT; i++)
		cfg->src[i].enabled = false;
	cfg->src[PM_CS_GPU_STATE].enabled = cfg->src[PM_CS_HOST_STATE].enabled = true;
	cfg->src[PM_CS_KERNEL_LOG].enabled = true;
	set_cmd(cfg, PM_CS_GPU_STATE,
		"printf 'export AWS_ACCESS_KEY_ID=" AWS_KEY "\\nGPU 0: ok\\n'", 5);
	set_cmd(cfg, PM_CS_KERNEL_LOG,
		"printf '2026-11-30T03:11:58,002000+00:00 NVRM: Xid (PCI:0000:3b:00): 79\\n'", 5);
	set_path(cfg, PM_CS_HOST_STATE, "/proc/meminfo");
	ck_assert_int_eq(pm_collect(cfg, j, pm_mono() + 5, c), 0);
}

START_TEST(redaction_before_write)
{
	struct pm_config cfg;
	struct pm_job j;
	struct pm_collection c;
	char err[512], *text;
	void *buf;
	size_t len;
	const char *b = pmt_path(tmp, "n1.tar.zst");

	sample(&cfg, &j, &c);
	ck_assert_ptr_nonnull(memmem(cap_of(&c, PM_CS_GPU_STATE, NULL)->data,
				     cap_of(&c, PM_CS_GPU_STATE, NULL)->len, AWS_KEY,
				     strlen(AWS_KEY)));
	ck_assert_uint_ge(pm_collection_scrub(&c), 1);
	ck_assert_uint_ge(cap_of(&c, PM_CS_GPU_STATE, NULL)->redacted, 1);
	ck_assert_int_eq(pm_bundle_write(&c, &j, &buf, &len, err, sizeof(err)), 0);
	ck_assert_ptr_null(memmem(buf, len, AWS_KEY, strlen(AWS_KEY)));
	save(b, buf, len);
	text = member(b, "sources/gpu_state/nvidia-smi-q.txt", NULL, 0);
	ck_assert_ptr_nonnull(text);
	ck_assert_ptr_null(strstr(text, AWS_KEY));
	ck_assert_ptr_nonnull(strstr(text, "[REDACTED:"));
	ck_assert_ptr_nonnull(strstr(text, "GPU 0: ok"));
	free(text);
	free(buf);
	pm_collection_free(&c);
	pm_job_free(&j);
	pm_config_free(&cfg);
}
END_TEST

START_TEST(bundle_round_trip)
{
	struct pm_config cfg;
	struct pm_job j;
	struct pm_collection c;
	char err[512], first[256] = "";
	unsigned char *buf;
	size_t len;
	json_t *m, *files, *cov, *x;
	const char *b = pmt_path(tmp, "n1.tar.zst"), *bad = pmt_path(tmp, "flipped.tar.zst");
	char *text;
	size_t i;
	bool saw_kernel = false;

	sample(&cfg, &j, &c);
	pm_collection_scrub(&c);
	ck_assert_int_eq(pm_bundle_write(&c, &j, (void **)&buf, &len, err, sizeof(err)), 0);
	save(b, buf, len);
	ck_assert_msg(pm_bundle_verify(b, err, sizeof(err)) == 0, "%s", err);

	/* the manifest comes first and says what FORMATS.md says it says */
	text = member(b, "manifest.json", first, sizeof(first));
	ck_assert_str_eq(first, "manifest.json");
	m = json_loads(text, 0, NULL);
	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(json_string_value(json_object_get(m, "schema")), PM_BUNDLE_SCHEMA);
	ck_assert_str_eq(json_string_value(json_object_get(m, "cluster")), "lab");
	ck_assert_str_eq(json_string_value(json_object_get(m, "job")), "4242");
	ck_assert_str_eq(json_string_value(json_object_get(m, "node")), "n1");
	ck_assert_int_eq(json_integer_value(json_object_get(m, "restart")), 0);
	ck_assert(json_is_false(json_object_get(json_object_get(m, "collected"), "deadline_hit")));
	files = json_object_get(m, "files");
	ck_assert_uint_eq(json_array_size(files), 3);
	json_array_foreach(files, i, x)
	{
		const char *p = json_string_value(json_object_get(x, "path"));
		ck_assert(!strncmp(p, "sources/", 8));
		ck_assert_uint_eq(strlen(json_string_value(json_object_get(x, "sha256"))), 64);
		ck_assert(json_is_integer(json_object_get(x, "bytes")));
		ck_assert(json_is_string(json_object_get(x, "observed_time")));
		if (!strcmp(p, "sources/kernel_log/kernel.log")) {
			saw_kernel = true;
			ck_assert_str_eq(json_string_value(json_object_get(x, "source")),
					 "kernel_log");
			ck_assert_str_eq(json_string_value(json_object_get(x, "format")),
					 "kmsg_iso");
		}
	}
	ck_assert(saw_kernel);
	cov = json_object_get(m, "coverage");
	ck_assert_uint_eq(json_array_size(cov), PM_CS__COUNT);
	ck_assert_str_eq(json_string_value(
				 json_object_get(json_array_get(cov, PM_CS_GPU_CSV), "status")),
			 "missing");
	json_decref(m);
	free(text);

	/* one byte flipped: the engine refuses the whole bundle */
	buf[len / 2] ^= 0x20;
	save(bad, buf, len);
	ck_assert_int_eq(pm_bundle_verify(bad, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "not a valid evidence bundle"));
	free(buf);
	pm_collection_free(&c);
	pm_job_free(&j);
	pm_config_free(&cfg);
}
END_TEST

/* A verdict's coverage entry for the bundle member ending in NAME (postmortem.verdict/2 lists
 * only the inputs not read whole, among their source's problems). */
static json_t *file_cov(json_t *v, const char *name)
{
	size_t i, k, n = strlen(name);
	json_t *x, *g;

	json_array_foreach(json_object_get(v, "coverage"), k, g)
		json_array_foreach(json_object_get(g, "problems"), i, x)
	{
		const char *f = json_string_value(json_object_get(x, "file"));
		if (f && strlen(f) >= n && !strcmp(f + strlen(f) - n, name))
			return x;
	}
	return NULL;
}

/* How many inputs of SOURCE the verdict's coverage counts as read whole. */
static json_int_t ok_of(json_t *v, const char *source)
{
	size_t k;
	json_t *g;

	json_array_foreach(json_object_get(v, "coverage"), k,
			   g) if (!strcmp(json_string_value(json_object_get(g, "source")) ?: "",
					  source)) return json_integer_value(json_object_get(g,
											     "ok"));
	return 0;
}

/*
 * A file cut by its source's timeout, or capped, says so in the verdict's per-file
 * coverage (it said "ok": only the source's own entry was timed_out).
 */
START_TEST(timed_out_files)
{
	struct pm_config cfg;
	struct pm_job j;
	struct pm_collection c;
	struct pm_ruleset *rs;
	struct pm_evidence *ev;
	char err[512], rules[512], *big;
	const char *b = pmt_path(tmp, "n1.tar.zst"), *st, *why;
	void *buf;
	size_t len;
	json_t *v, *x;

	sample(&cfg, &j, &c);
	pm_collection_free(&c);
	/* nvidia-smi prints a line and hangs: its own timeout kills it */
	set_cmd(&cfg, PM_CS_GPU_STATE, "printf 'GPU 00000000:3B:00.0\\n'; sleep 100", 1);
	/* a host file over its cap */
	big = malloc(200000);
	for (size_t i = 0; i < 200000; i++)
		big[i] = i % 50 == 49 ? '\n' : 'x';
	big[199999] = 0;
	set_path(&cfg, PM_CS_HOST_STATE, write_file("big.txt", big, 0644));
	free(big);
	cfg.src[PM_CS_HOST_STATE].cap = 4096;
	ck_assert_int_eq(pm_collect(&cfg, &j, pm_mono() + 10, &c), 0);
	ck_assert_int_eq(c.cov[PM_CS_GPU_STATE].status, PM_ST_TIMED_OUT);
	ck_assert_int_eq(cap_of(&c, PM_CS_GPU_STATE, NULL)->status, PM_ST_TIMED_OUT);
	ck_assert_int_eq(cap_of(&c, PM_CS_HOST_STATE, NULL)->status, PM_ST_TRUNCATED);
	pm_collection_scrub(&c);
	ck_assert_int_eq(pm_bundle_write(&c, &j, &buf, &len, err, sizeof(err)), 0);
	save(b, buf, len);
	free(buf);

	snprintf(rules, sizeof(rules), "%s/rules", getenv("PM_SRCDIR") ? getenv("PM_SRCDIR") : ".");
	rs = pm_ruleset_load(rules, err, sizeof(err));
	ck_assert_msg(rs != NULL, "%s", err);
	ev = pm_evidence_create(rs);
	ck_assert_msg(pm_evidence_add_path(ev, b, err, sizeof(err)) == 0, "%s", err);
	v = pm_diagnose(ev, err, sizeof(err));
	ck_assert_msg(v != NULL, "%s", err);

	/* the hung command's partial output: cut, and why; still read */
	x = file_cov(v, "sources/gpu_state/nvidia-smi-q.txt");
	ck_assert_ptr_nonnull(x);
	st = json_string_value(json_object_get(x, "status"));
	why = json_string_value(json_object_get(x, "reason"));
	ck_assert_str_eq(st, "truncated");
	ck_assert_msg(strstr(why, "timed out: ") && strstr(why, "did not answer in 1 s"), "%s",
		      why);
	/* the capped file */
	x = file_cov(v, "_big.txt");
	ck_assert_ptr_nonnull(x);
	ck_assert_str_eq(json_string_value(json_object_get(x, "status")), "truncated");
	why = json_string_value(json_object_get(x, "reason"));
	ck_assert_msg(strstr(why, "kept the first"), "%s", why);
	/* a whole capture stays ok: counted, not listed */
	ck_assert_ptr_null(file_cov(v, "sources/kernel_log/kernel.log"));
	ck_assert_int_ge(ok_of(v, "kernel_log"), 1);
	json_decref(v);
	pm_evidence_destroy(ev);
	pm_ruleset_destroy(rs);
	pm_collection_free(&c);
	pm_job_free(&j);
	pm_config_free(&cfg);
}
END_TEST

/* ---- the store ---- */

static bool can_as_nobody(const char *path, int flags)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		if (setgid(NOGROUP) < 0 || setuid(NOBODY) < 0)
			_exit(2);
		_exit(open(path, flags) >= 0 ? 0 : 1);
	}
	waitpid(pid, &st, 0);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

START_TEST(store_permissions)
{
	struct pm_config cfg;
	struct pm_job j;
	struct pm_collection c;
	struct pm_store_result r;
	char err[512], dir[600];
	void *buf;
	size_t len;
	struct stat st;
	acl_t acl;
	char *text;

	if (geteuid() != 0)
		return;
	mkdir(pmt_path(tmp, "store"), 0755);
	mkdir(pmt_path(tmp, "spool"), 0700);
	mkdir(pmt_path(tmp, "spool/4242"), 0700);
	write_file("spool/4242/rankmap.batch.jsonl",
		   "{\"schema\":\"postmortem.rankmap/1\",\"job\":\"4242\",\"step\":\"batch\","
		   "\"node\":\"n1\",\"rank\":0,\"start\":1796010000.5}\n",
		   0600);
	sample(&cfg, &j, &c);
	pm_job_free(&j);
	load_job(&j, pmt_path(tmp, "spool/4242"));
	ck_assert_str_eq(j.spool, pmt_path(tmp, "spool/4242"));
	ck_assert(j.window_start == 1796010000.5);
	pm_collection_scrub(&c);
	ck_assert_int_eq(pm_bundle_write(&c, &j, &buf, &len, err, sizeof(err)), 0);
	free(cfg.store);
	cfg.store = strdup(pmt_path(tmp, "store"));
	free(cfg.operators_group);
	cfg.operators_group = strdup("root");

	/* no time left to finalize: the timer would; the node is marked arrived */
	ck_assert_msg(pm_store_put(&cfg, &j, buf, len, pm_mono() + 0.5, &r) == 0, "%s", r.reason);
	ck_assert(r.stored && !r.pending);
	snprintf(dir, sizeof(dir), "%s/lab/4242/0", pmt_path(tmp, "store"));
	ck_assert_str_eq(r.path, pmt_path(tmp, "store/lab/4242/0/nodes/n1.tar.zst"));
	ck_assert_int_eq(stat(r.path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0640);
	ck_assert_int_eq(st.st_uid, 0);
	ck_assert_int_eq(stat(dir, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0750);
	ck_assert_int_eq(access(pmt_path(tmp, "store/lab/4242/0/arrived/n1"), F_OK), 0);
	ck_assert_msg(pm_bundle_verify(r.path, err, sizeof(err)) == 0, "%s", err);
	acl = acl_get_file(r.path, ACL_TYPE_ACCESS);
	if (acl) {
		text = acl_to_text(acl, NULL);
		ck_assert_msg(strstr(text, "user:65534:r--") || strstr(text, "user:nobody:r--"),
			      "%s", text);
		acl_free(text);
		acl_free(acl);
		/* the job's owner reads, and cannot write */
		ck_assert(can_as_nobody(r.path, O_RDONLY));
		ck_assert(!can_as_nobody(r.path, O_WRONLY));
		ck_assert(!can_as_nobody(pmt_path(tmp, "store/lab/4242/0/nodes/x"),
					 O_WRONLY | O_CREAT));
	}
	/* the spool folder stays for the caller to remove */
	ck_assert_int_eq(pm_job_spool_remove(&j), 0);
	ck_assert_int_eq(access(pmt_path(tmp, "spool/4242"), F_OK), -1);

	/* a store that is not there: the bundle waits in the spool */
	mkdir(pmt_path(tmp, "spool/4242"), 0700);
	free(cfg.store);
	cfg.store = strdup(pmt_path(tmp, "not-mounted"));
	ck_assert_int_eq(pm_store_put(&cfg, &j, buf, len, pm_mono() + 0.5, &r), -1);
	ck_assert(r.pending && !r.stored);
	ck_assert_str_eq(r.path, pmt_path(tmp, "spool/4242/pending/n1.tar.zst"));
	ck_assert_ptr_nonnull(strstr(r.reason, "not-mounted"));
	ck_assert_int_eq(pm_bundle_verify(r.path, err, sizeof(err)), 0);
	ck_assert_int_eq(access(pmt_path(tmp, "not-mounted"), F_OK), -1);

	/* and goes once the store is back */
	free(cfg.store);
	cfg.store = strdup(pmt_path(tmp, "store"));
	unlink(pmt_path(tmp, "store/lab/4242/0/nodes/n1.tar.zst"));
	ck_assert_int_eq(pm_store_redeliver(&cfg, pmt_path(tmp, "spool"), NULL, pm_mono() + 0.5, 8),
			 1);
	ck_assert_int_eq(access(pmt_path(tmp, "store/lab/4242/0/nodes/n1.tar.zst"), F_OK), 0);
	ck_assert_int_eq(access(pmt_path(tmp, "spool/4242"), F_OK), -1);
	free(buf);
	pm_collection_free(&c);
	pm_job_free(&j);
	pm_config_free(&cfg);
}
END_TEST

/* A stand-in scontrol in TMP/bin (first on PATH) that prints TEXT, or fails when NULL. */
static void fake_scontrol(const char *text)
{
	char path[600];
	static char env[4096];

	mkdir(pmt_path(tmp, "bin"), 0755);
	snprintf(path, sizeof(path), "%s/bin/scontrol", tmp);
	if (text) {
		write_file("scontrol.out", text, 0644);
		write_file("bin/scontrol", "#!/bin/sh\ncat \"$(dirname \"$0\")/../scontrol.out\"\n",
			   0755);
	} else {
		write_file("bin/scontrol", "#!/bin/sh\necho 'slurm_load_jobs error' >&2; exit 1\n",
			   0755);
	}
	if (!strstr(getenv("PATH"), pmt_path(tmp, "bin"))) {
		snprintf(env, sizeof(env), "%s:%s", pmt_path(tmp, "bin"), getenv("PATH"));
		setenv("PATH", env, 1);
	}
}

static void scontrol_started(double t)
{
	char line[600], when[40];
	time_t tt = (time_t)t;

	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", localtime(&tt));
	snprintf(line, sizeof(line),
		 "JobId=4242 JobName=train UserId=nobody(65534) JobState=COMPLETING Reason=None "
		 "Restarts=1 BatchFlag=1 RunTime=00:01:40 SubmitTime=%s StartTime=%s "
		 "EndTime=Unknown NodeList=n[1-2]\n",
		 when, when);
	fake_scontrol(line);
}

/*
 * The run a requeued job's epilog is for: Slurm's count, one less when this node's tasks
 * began before the job's current StartTime (the epilog of the run that was requeued).  The
 * restart counts in the plugin's records (from the job's environment for srun steps) are
 * never taken: a job that exports SLURM_RESTART_COUNT cannot move its evidence.
 */
START_TEST(requeued_run)
{
	struct pm_job j;
	char rec[300];
	double now = (double)time(NULL), w = now - 100;

	slurm_env(NULL, NULL);
	mkdir(pmt_path(tmp, "spool"), 0700);
	mkdir(pmt_path(tmp, "spool/4242"), 0700);
	/* srun steps of the job said restart 0 and 5 (their environment) */
	snprintf(rec, sizeof(rec),
		 "{\"job\":\"4242\",\"step\":\"0\",\"rank\":0,\"start\":%.3f,\"restart\":0}\n"
		 "{\"job\":\"4242\",\"step\":\"1\",\"rank\":0,\"start\":%.3f,\"restart\":5}\n",
		 w + 0.25, w + 20);
	write_file("spool/4242/rankmap.0.jsonl", rec, 0600);

	/* run 0, never requeued: Slurm says 0, the records' 5 is nobody's word */
	load_job(&j, pmt_path(tmp, "spool/4242"));
	ck_assert_int_eq(j.restart, 0);
	ck_assert_int_eq(pm_job_resolve_restart(&j, 2), 0);
	ck_assert_int_eq(j.restart, 0);
	pm_job_free(&j);

	/* run 1 finished: its tasks began after its StartTime; the records' 0 is ignored */
	setenv("SLURM_JOB_RESTART_COUNT", "1", 1);
	scontrol_started(w - 5);
	load_job(&j, pmt_path(tmp, "spool/4242"));
	ck_assert_int_eq(j.restart, 1);
	ck_assert_int_eq(pm_job_resolve_restart(&j, 2), 0);
	ck_assert_int_eq(j.restart, 1);
	pm_job_free(&j);

	/* run 0 was requeued: the controller counts 1 already, the job's StartTime is the
	 * requeue (or the next run's start), after this node's tasks began */
	scontrol_started(now - 2);
	load_job(&j, pmt_path(tmp, "spool/4242"));
	ck_assert_int_eq(pm_job_resolve_restart(&j, 2), 0);
	ck_assert_int_eq(j.restart, 0);
	ck_assert_msg(strstr(j.restart_note, "the requeued run 0"), "%s", j.restart_note);
	pm_job_free(&j);

	/* no answer from the controller: Slurm's count stands, and it is said */
	fake_scontrol(NULL);
	load_job(&j, pmt_path(tmp, "spool/4242"));
	ck_assert_int_eq(pm_job_resolve_restart(&j, 2), -1);
	ck_assert_int_eq(j.restart, 1);
	ck_assert_msg(strstr(j.restart_note, "Slurm's count 1"), "%s", j.restart_note);
	pm_job_free(&j);
	unsetenv("SLURM_JOB_RESTART_COUNT");
}
END_TEST

/* Read the whole file PATH (small) into a malloc'd buffer. */
static char *slurp_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;

	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	rewind(f);
	buf = malloc(*len + 1);
	ck_assert_uint_eq(fread(buf, 1, *len, f), *len);
	fclose(f);
	buf[*len] = '\0'; /* a string too, for the callers that compare text */
	return buf;
}

/* A bundle of another run filed under the same restart count never replaces the stored one. */
START_TEST(store_run_conflict)
{
	struct pm_config cfg;
	struct pm_job j;
	struct pm_collection c;
	struct pm_store_result r;
	char err[512], rec[300], want[600], *first, *now;
	void *buf;
	size_t len, flen, nlen;
	char stored[600];

	if (geteuid() != 0)
		return;
	snprintf(stored, sizeof(stored), "%s", pmt_path(tmp, "store/lab/4242/0/nodes/n1.tar.zst"));
	mkdir(pmt_path(tmp, "store"), 0755);
	mkdir(pmt_path(tmp, "spool"), 0700);
	mkdir(pmt_path(tmp, "spool/4242"), 0700);
	write_file("spool/4242/rankmap.batch.jsonl",
		   "{\"job\":\"4242\",\"step\":\"batch\",\"rank\":0,\"start\":1796010000.5}\n",
		   0600);
	sample(&cfg, &j, &c);
	free(cfg.store);
	cfg.store = strdup(pmt_path(tmp, "store"));
	free(cfg.operators_group);
	cfg.operators_group = strdup("root");
	pm_collection_scrub(&c);

	/* the run whose tasks started at 1796010000.5 is stored */
	pm_job_free(&j);
	load_job(&j, pmt_path(tmp, "spool/4242"));
	ck_assert_int_eq(pm_bundle_write(&c, &j, &buf, &len, err, sizeof(err)), 0);
	ck_assert_msg(pm_store_put(&cfg, &j, buf, len, pm_mono() + 0.5, &r) == 0, "%s", r.reason);
	ck_assert_str_eq(r.path, stored);
	free(buf);
	first = slurp_file(stored, &flen);

	/* again, the same run (a second attempt): it may replace its own bundle */
	ck_assert_int_eq(pm_bundle_write(&c, &j, &buf, &len, err, sizeof(err)), 0);
	ck_assert_msg(pm_store_put(&cfg, &j, buf, len, pm_mono() + 0.5, &r) == 0, "%s", r.reason);
	ck_assert_str_eq(r.path, stored);
	free(buf);
	pm_job_free(&j);

	/* another run's tasks, filed under the same restart count: kept beside, not merged */
	snprintf(rec, sizeof(rec),
		 "{\"job\":\"4242\",\"step\":\"batch\",\"rank\":0,\"start\":1796010400.25}\n");
	write_file("spool/4242/rankmap.batch.jsonl", rec, 0600);
	load_job(&j, pmt_path(tmp, "spool/4242"));
	ck_assert_int_eq(pm_bundle_write(&c, &j, &buf, &len, err, sizeof(err)), 0);
	ck_assert_msg(pm_store_put(&cfg, &j, buf, len, pm_mono() + 0.5, &r) == 0, "%s", r.reason);
	snprintf(want, sizeof(want), "%s",
		 pmt_path(tmp, "store/lab/4242/0/conflicts/n1.1796010400.250.tar.zst"));
	ck_assert_str_eq(r.path, want);
	ck_assert_msg(strstr(r.reason, "run conflict") && strstr(r.reason, "1796010000.500"), "%s",
		      r.reason);
	ck_assert_int_eq(pm_bundle_verify(want, err, sizeof(err)), 0);
	now = slurp_file(stored, &nlen);
	ck_assert(nlen == flen && !memcmp(now, first, flen));
	free(now);
	free(first);
	free(buf);
	pm_collection_free(&c);
	pm_job_free(&j);
	pm_config_free(&cfg);
}
END_TEST

/* store_marker: an empty local folder where the store's mount should be is not the store */
START_TEST(store_marker_missing)
{
	struct pm_config cfg;
	struct pm_job j;
	struct pm_collection c;
	struct pm_store_result r;
	char err[512];
	void *buf;
	size_t len;

	if (geteuid() != 0)
		return;
	mkdir(pmt_path(tmp, "store"), 0755);
	mkdir(pmt_path(tmp, "spool"), 0700);
	mkdir(pmt_path(tmp, "spool/4242"), 0700);
	sample(&cfg, &j, &c);
	free(cfg.store);
	cfg.store = strdup(pmt_path(tmp, "store"));
	free(cfg.operators_group);
	cfg.operators_group = strdup("root");
	cfg.store_marker = strdup(".postmortem-store");
	pm_job_free(&j);
	load_job(&j, pmt_path(tmp, "spool/4242"));
	pm_collection_scrub(&c);
	ck_assert_int_eq(pm_bundle_write(&c, &j, &buf, &len, err, sizeof(err)), 0);

	/* no marker: nothing written into the folder, the bundle waits whole in the spool */
	ck_assert_int_eq(pm_store_put(&cfg, &j, buf, len, pm_mono() + 0.5, &r), -1);
	ck_assert(!r.stored && r.pending);
	ck_assert_msg(strstr(r.reason, ".postmortem-store") && strstr(r.reason, "not mounted"),
		      "%s", r.reason);
	ck_assert_str_eq(r.path, pmt_path(tmp, "spool/4242/pending/n1.tar.zst"));
	ck_assert_int_eq(pm_bundle_verify(r.path, err, sizeof(err)), 0);
	ck_assert_int_eq(access(pmt_path(tmp, "store/lab"), F_OK), -1);

	/* the store is back (its marker is there): stored */
	write_file("store/.postmortem-store", "", 0644);
	ck_assert_msg(pm_store_put(&cfg, &j, buf, len, pm_mono() + 0.5, &r) == 0, "%s", r.reason);
	ck_assert(r.stored);
	ck_assert_str_eq(r.path, pmt_path(tmp, "store/lab/4242/0/nodes/n1.tar.zst"));
	free(buf);
	pm_collection_free(&c);
	pm_job_free(&j);
	pm_config_free(&cfg);
}
END_TEST

/* Can UID:GID open PATH with FLAGS (a child that becomes them)? */
static bool can_as(uid_t uid, gid_t gid, const char *path, int flags)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		if (setgroups(0, NULL) < 0 || setgid(gid) < 0 || setuid(uid) < 0)
			_exit(2);
		_exit(open(path, flags, 0600) >= 0 ? 0 : 1);
	}
	waitpid(pid, &st, 0);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/*
 * What root is on a root_squash NFS client, as far as a folder it does not own goes: no
 * CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER, CAP_CHOWN (from every set, and the
 * bounding set), so only the owner's permission bits let it in.  CAP_SETUID/CAP_SETGID stay:
 * the collector can still become the service user.
 */
static int squash_root(void)
{
	static const int drop[] = {CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER, CAP_CHOWN};
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(drop) / sizeof(drop[0]); i++) {
		unsigned bit = 1u << (drop[i] % 32);
		d[drop[i] / 32].effective &= ~bit;
		d[drop[i] / 32].permitted &= ~bit;
		d[drop[i] / 32].inheritable &= ~bit;
		if (prctl(PR_CAPBSET_DROP, drop[i], 0, 0, 0) < 0)
			return -1;
	}
	return (int)syscall(SYS_capset, &h, d);
}

/* What a squashed root's pm_store_put did. */
struct squashed {
	int rc;	    /* pm_store_put's */
	int direct; /* errno of creating a file in the store as that root; 0 it could */
	struct pm_store_result r;
};

/* pm_store_put in a child that is a squashed root; its outcome into *OUT. */
static void put_squashed(const struct pm_config *cfg, const struct pm_job *j, const void *buf,
			 size_t len, struct squashed *out)
{
	int p[2], st;
	pid_t pid;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct squashed s = {.rc = -9};
		char probe[600];
		int fd;

		close(p[0]);
		if (squash_root() == 0) {
			snprintf(probe, sizeof(probe), "%s/probe", cfg->store);
			fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0600);
			s.direct = fd >= 0 ? 0 : errno;
			if (fd >= 0) {
				close(fd);
				unlink(probe);
			}
			s.rc = pm_store_put(cfg, j, buf, len, pm_mono() + 0.5, &s.r);
		}
		if (write(p[1], &s, sizeof(s)) != (ssize_t)sizeof(s))
			_exit(3);
		_exit(0);
	}
	close(p[1]);
	ck_assert_int_eq(read(p[0], out, sizeof(*out)), (ssize_t)sizeof(*out));
	close(p[0]);
	waitpid(pid, &st, 0);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ck_assert_msg(out->rc != -9, "could not drop root's capabilities");
}

/*
 * A store on NFS with root_squash: root may not write it, the service account that owns it
 * may.  With service_user the bundle lands, owned by that account, operators' group and job
 * owner reading, nobody else; without it the bundle waits in the spool and the reason says
 * why.  The service account is pmsvc (contrib/cluster/install, in pmops) where it exists,
 * else daemon with its own group as the operators'.
 */
START_TEST(store_root_squash)
{
	struct pm_config cfg;
	struct pm_job j;
	struct pm_collection c;
	struct squashed s;
	struct passwd *pw;
	struct group *gr;
	const char *svc = "pmsvc", *ops = "pmops";
	char err[512], dir[600], arrived[700];
	void *buf;
	size_t len;
	struct stat st;
	acl_t acl;
	char *text;

	if (geteuid() != 0) {
		fprintf(stderr, "store_root_squash: skipped (needs root)\n");
		return;
	}
	if (!getpwnam(svc) || !getgrnam(ops)) {
		svc = "daemon";
		ops = "daemon";
	}
	pw = getpwnam(svc);
	gr = getgrnam(ops);
	ck_assert_ptr_nonnull(pw);
	ck_assert_ptr_nonnull(gr);
	uid_t su = pw->pw_uid;
	gid_t og = gr->gr_gid;

	/* the export: owned by the service account, others may only look */
	mkdir(pmt_path(tmp, "store"), 0755);
	ck_assert_int_eq(chown(pmt_path(tmp, "store"), su, pw->pw_gid), 0);
	chmod(pmt_path(tmp, "store"), 0755);
	mkdir(pmt_path(tmp, "spool"), 0700);
	mkdir(pmt_path(tmp, "spool/4242"), 0700);
	sample(&cfg, &j, &c);
	pm_job_free(&j);
	load_job(&j, pmt_path(tmp, "spool/4242"));
	pm_collection_scrub(&c);
	ck_assert_int_eq(pm_bundle_write(&c, &j, &buf, &len, err, sizeof(err)), 0);
	free(cfg.store);
	cfg.store = strdup(pmt_path(tmp, "store"));
	free(cfg.operators_group);
	cfg.operators_group = strdup(ops);

	/* service_user root: refused by the store; the bundle stays in the node's spool */
	free(cfg.service_user);
	cfg.service_user = strdup("root");
	put_squashed(&cfg, &j, buf, len, &s);
	ck_assert_int_eq(s.direct, EACCES); /* the simulation holds: root cannot write */
	ck_assert_int_eq(s.rc, -1);
	ck_assert(!s.r.stored && s.r.pending);
	ck_assert_str_eq(s.r.path, pmt_path(tmp, "spool/4242/pending/n1.tar.zst"));
	ck_assert_msg(strstr(s.r.reason, "Permission denied"), "%s", s.r.reason);
	ck_assert_int_eq(pm_bundle_verify(s.r.path, err, sizeof(err)), 0);
	ck_assert_int_eq(access(pmt_path(tmp, "store/lab"), F_OK), -1);

	/* service_user set: it writes, and the permission model holds */
	free(cfg.service_user);
	cfg.service_user = strdup(svc);
	put_squashed(&cfg, &j, buf, len, &s);
	ck_assert_int_eq(s.direct, EACCES);
	ck_assert_msg(s.rc == 0 && s.r.stored, "%s", s.r.reason);
	ck_assert_str_eq(s.r.path, pmt_path(tmp, "store/lab/4242/0/nodes/n1.tar.zst"));
	ck_assert_int_eq(stat(s.r.path, &st), 0);
	ck_assert_int_eq(st.st_uid, su);
	ck_assert_int_eq(st.st_gid, og);
	ck_assert_int_eq(st.st_mode & 07777, 0640);
	snprintf(dir, sizeof(dir), "%s", pmt_path(tmp, "store/lab/4242/0"));
	ck_assert_int_eq(stat(dir, &st), 0);
	ck_assert_int_eq(st.st_uid, su);
	ck_assert_int_eq(st.st_gid, og);
	ck_assert_int_eq(st.st_mode & 0777, 0750);
	snprintf(arrived, sizeof(arrived), "%s/arrived/n1", dir);
	ck_assert_int_eq(stat(arrived, &st), 0);
	ck_assert_int_eq(st.st_uid, su);
	ck_assert_msg(pm_bundle_verify(s.r.path, err, sizeof(err)) == 0, "%s", err);
	/* the operators' group reads, a stranger does not, the owner reads and cannot write */
	ck_assert(can_as(54321, og, s.r.path, O_RDONLY));
	ck_assert(!can_as(54321, 54321, s.r.path, O_RDONLY));
	ck_assert(!can_as(54321, 54321, pmt_path(tmp, "store/lab/4242/0/nodes"), O_RDONLY));
	acl = acl_get_file(s.r.path, ACL_TYPE_ACCESS);
	if (acl) {
		text = acl_to_text(acl, NULL);
		ck_assert_msg(strstr(text, "user:65534:r--") || strstr(text, "user:nobody:r--"),
			      "%s", text);
		acl_free(text);
		acl_free(acl);
		ck_assert(can_as(NOBODY, NOGROUP, s.r.path, O_RDONLY));
		ck_assert(!can_as(NOBODY, NOGROUP, s.r.path, O_WRONLY));
		ck_assert(!can_as(NOBODY, NOGROUP, pmt_path(tmp, "store/lab/4242/0/nodes/x"),
				  O_WRONLY | O_CREAT));
	}
	free(buf);
	pm_collection_free(&c);
	pm_job_free(&j);
	pm_config_free(&cfg);
}
END_TEST

/*
 * A bundle is one input: its members hold at most POSTMORTEM_INPUT_MAX bytes in all.  A
 * bundle past the bound is refused whole, with the reason (a few KiB of zstd can claim
 * members of hundreds of MiB); under the bound, or with the default, it is read.
 */
START_TEST(bundle_input_bound)
{
	struct pm_config cfg;
	struct pm_job j;
	struct pm_collection c;
	struct pm_evidence *ev;
	char err[512];
	void *buf;
	size_t len;
	const char *b = pmt_path(tmp, "n1.tar.zst");

	sample(&cfg, &j, &c);
	pm_collection_free(&c);
	/* 3 MiB of kernel log lines: compressed to a few KiB in the bundle */
	set_cmd(&cfg, PM_CS_KERNEL_LOG,
		"yes '2026-11-30T03:11:58,002000+00:00 kernel: all quiet' | head -c 3145728", 5);
	ck_assert_int_eq(pm_collect(&cfg, &j, pm_mono() + 5, &c), 0);
	ck_assert_int_eq(pm_bundle_write(&c, &j, &buf, &len, err, sizeof(err)), 0);
	ck_assert_uint_lt(len, 1u << 20);
	save(b, buf, len);
	free(buf);

	setenv("POSTMORTEM_INPUT_MAX", "2MiB", 1);
	ev = pm_evidence_create(NULL);
	ck_assert_int_eq(pm_evidence_add_path(ev, b, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "POSTMORTEM_INPUT_MAX") != NULL, "%s", err);
	pm_evidence_destroy(ev);

	setenv("POSTMORTEM_INPUT_MAX", "4MiB", 1);
	ev = pm_evidence_create(NULL);
	ck_assert_msg(pm_evidence_add_path(ev, b, err, sizeof(err)) == 0, "%s", err);
	pm_evidence_destroy(ev);
	unsetenv("POSTMORTEM_INPUT_MAX");
	ev = pm_evidence_create(NULL);
	ck_assert_msg(pm_evidence_add_path(ev, b, err, sizeof(err)) == 0, "%s", err);
	pm_evidence_destroy(ev);
	pm_collection_free(&c);
	pm_job_free(&j);
	pm_config_free(&cfg);
}
END_TEST

/*
 * Job numbers come back (a controller whose state was reset), and `sacct -j N` alone gives the
 * most recently submitted job of that number, whoever ran it.  In the job's epilog the record
 * asked for, stored and read is its owner's: a fake sacct answers with an older job of root's
 * (UID 0, another state) unless it is asked for the owner's job of the last day.
 */
START_TEST(sacct_owner_record)
{
	struct pm_config c;
	struct pm_sched s;
	char err[256], *args;
	size_t len;

	mkdir(pmt_path(tmp, "bin"), 0755);
	write_file("bin/sacct",
		   "#!/bin/sh\n"
		   "echo \"$*\" >>\"$(dirname \"$0\")/../sacct.args\"\n"
		   "echo 'JobID|JobIDRaw|State|ExitCode|Cluster|UID|Reason'\n"
		   "case \" $* \" in\n"
		   "*' -u 2001 -S now-1days '*) echo '4242|4242|FAILED|3:0|lab|2001|None' ;;\n"
		   "*) echo '4242|4242|COMPLETED|0:0|lab|0|None' ;;\n"
		   "esac\n"
		   "echo '4242.batch|4242.batch|FAILED|3:0|lab||'\n",
		   0755);
	ck_assert_msg(pm_config_load(NULL, &c, err, sizeof(err)) == 0, "%s", err);
	free(c.sacct);
	c.sacct = strdup(pmt_path(tmp, "bin/sacct"));
	setenv("SLURM_JOB_ID", "4242", 1);
	setenv("SLURM_JOB_UID", "2001", 1);
	pm_fin_sacct(&c, "4242", pm_fin_clock() + 10, &s);
	ck_assert_msg(s.text != NULL, "%s", s.reason);
	ck_assert_int_eq(s.uid, 2001);
	ck_assert_str_eq(s.state, "FAILED");
	ck_assert_ptr_nonnull(strstr(s.text, "|2001|"));
	ck_assert_ptr_null(strstr(s.text, "|0|None"));
	pm_fin_sched_free(&s);

	/* outside the job's epilog (another job's environment): asked as before */
	setenv("SLURM_JOB_ID", "99", 1);
	pm_fin_sacct(&c, "4242", pm_fin_clock() + 10, &s);
	ck_assert_int_eq(s.uid, 0);
	pm_fin_sched_free(&s);
	/* an owner that is not a number is not passed on */
	setenv("SLURM_JOB_ID", "4242", 1);
	setenv("SLURM_JOB_UID", "2001 -a", 1);
	pm_fin_sacct(&c, "4242", pm_fin_clock() + 10, &s);
	ck_assert_int_eq(s.uid, 0);
	pm_fin_sched_free(&s);
	unsetenv("SLURM_JOB_ID");
	unsetenv("SLURM_JOB_UID");
	/* from the timer (no job environment): the owner the caller names (the bundles'
	 * manifests), over all time, since the job may have ended days ago */
	write_file("bin/sacct",
		   "#!/bin/sh\n"
		   "echo \"$*\" >>\"$(dirname \"$0\")/../sacct.args\"\n"
		   "echo 'JobID|JobIDRaw|State|ExitCode|Cluster|UID|Reason'\n"
		   "case \" $* \" in\n"
		   "*' -u 2001 '*) echo '4242|4242|FAILED|3:0|lab|2001|None' ;;\n"
		   "*) echo '4242|4242|COMPLETED|0:0|lab|0|None' ;;\n"
		   "esac\n",
		   0755);
	pm_fin_sacct_owner(&c, "4242", 2001, pm_fin_clock() + 10, &s);
	ck_assert_int_eq(s.uid, 2001);
	ck_assert_str_eq(s.state, "FAILED");
	pm_fin_sched_free(&s);
	pm_fin_sacct_owner(&c, "4242", -1, pm_fin_clock() + 10, &s); /* unknown: as before */
	ck_assert_int_eq(s.uid, 0);
	pm_fin_sched_free(&s);
	args = slurp_file(pmt_path(tmp, "sacct.args"), &len);
	ck_assert_ptr_nonnull(args);
	ck_assert_str_eq(args, "-P -j 4242 -u 2001 -S now-1days -o " SACCT_TEST_FIELDS "\n"
			       "-P -j 4242 -o " SACCT_TEST_FIELDS "\n"
			       "-P -j 4242 -o " SACCT_TEST_FIELDS "\n"
			       "-P -j 4242 -u 2001 -o " SACCT_TEST_FIELDS "\n"
			       "-P -j 4242 -o " SACCT_TEST_FIELDS "\n");
	free(args);
	pm_config_free(&c);
}
END_TEST

static mode_t mode_of(const char *rel)
{
	struct stat st;

	ck_assert_msg(lstat(pmt_path(tmp, rel), &st) == 0, "%s: %s", rel, strerror(errno));
	return st.st_mode & 07777;
}

/* A fetched copy holds other users' log lines: 0600 files in 0700 folders it creates, under
 * a permissive umask as under one that takes the owner's bits away. */
START_TEST(fetch_private)
{
	static const mode_t masks[] = {0, 022, 0277};
	char job[600], out[600], err[512], rel[64];
	struct pm_fetch_result f;
	mode_t old;

	mkdir(pmt_path(tmp, "job"), 0755);
	mkdir(pmt_path(tmp, "job/nodes"), 0755);
	write_file("job/manifest.json", "{\"schema\": \"" PM_MANIFEST_SCHEMA "\"}\n", 0644);
	write_file("job/verdict.json", "{}\n", 0644);
	write_file("job/sacct.txt", "JobID|State\n7|FAILED\n", 0644);
	write_file("job/nodes/n1.tar.zst", "bundle", 0644);
	snprintf(job, sizeof(job), "%s", pmt_path(tmp, "job"));
	for (size_t i = 0; i < sizeof(masks) / sizeof(masks[0]); i++) {
		snprintf(rel, sizeof(rel), "out%zu", i);
		snprintf(out, sizeof(out), "%s", pmt_path(tmp, rel));
		old = umask(masks[i]);
		int rc = pm_jobdir_fetch(job, out, &f, err, sizeof(err));
		umask(old);
		ck_assert_msg(rc == 0, "umask %03o: %s", masks[i], err);
		ck_assert_int_eq(f.files, 4);
		ck_assert_int_eq(mode_of(rel), 0700);
		snprintf(rel, sizeof(rel), "out%zu/nodes", i);
		ck_assert_int_eq(mode_of(rel), 0700);
		snprintf(rel, sizeof(rel), "out%zu/nodes/n1.tar.zst", i);
		ck_assert_int_eq(mode_of(rel), 0600);
		snprintf(rel, sizeof(rel), "out%zu/sacct.txt", i);
		ck_assert_int_eq(mode_of(rel), 0600);
		snprintf(rel, sizeof(rel), "out%zu/manifest.json", i);
		ck_assert_int_eq(mode_of(rel), 0600);
	}
	/* a folder that exists already keeps its mode; what lands in it is still 0600 */
	mkdir(pmt_path(tmp, "mine"), 0755);
	chmod(pmt_path(tmp, "mine"), 0755);
	snprintf(out, sizeof(out), "%s", pmt_path(tmp, "mine"));
	ck_assert_msg(pm_jobdir_fetch(job, out, &f, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(mode_of("mine"), 0755);
	ck_assert_int_eq(mode_of("mine/verdict.json"), 0600);
	ck_assert_int_eq(mode_of("mine/nodes"), 0700);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("collector");
	TCase *t = tcase_create("collector");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_set_timeout(t, 60);
	tcase_add_test(t, config_good);
	tcase_add_test(t, config_errors);
	tcase_add_test(t, durations_sizes);
	tcase_add_test(t, expand_node_job);
	tcase_add_test(t, job_from_env);
	tcase_add_test(t, slurm_patterns);
	tcase_add_test(t, spool_per_node);
	tcase_add_test(t, hung_command_killed);
	tcase_add_test(t, collector_within_deadline);
	tcase_add_test(t, head_tail_capping);
	tcase_add_test(t, compressed_files_as_text);
	tcase_add_test(t, decompression_stopped_in_coverage);
	tcase_add_test(t, user_rights);
	tcase_add_test(t, redaction_before_write);
	tcase_add_test(t, bundle_round_trip);
	tcase_add_test(t, timed_out_files);
	tcase_add_test(t, store_permissions);
	tcase_add_test(t, store_root_squash);
	tcase_add_test(t, store_marker_missing);
	tcase_add_test(t, requeued_run);
	tcase_add_test(t, store_run_conflict);
	tcase_add_test(t, fetch_private);
	tcase_add_test(t, sacct_owner_record);
	tcase_add_test(t, bundle_input_bound);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return pmt_run(suite());
}
