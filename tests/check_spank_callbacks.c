/*
 * check_spank_callbacks.c - the plugin suite's callbacks, driven through the fake Slurm of
 * check_spank.c: a step's records, the node's name, the bound and a broken spool, a full
 * disk, opting out, the local options, bad arguments, task tags and extras, the job epilog
 * and a per-node spool.
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
	bool mounted = tiny_spool(mnt, sizeof(mnt), "16k", 8000);

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

void spank_callback_tests(TCase *c)
{
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
}
