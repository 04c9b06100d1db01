/*
 * remote.c - the slurmstepd side: one process per job step and node.
 *
 *   init_post_opt (root)    open <spool>/<job>/; write the opt-out mark or the log list
 *   task_init (the user)    tag the task's environment; nothing is recorded here: the task
 *                           could forge it
 *   task_post_fork (root)   the rank map record, once per task
 *   task_exit (root)        the exit record, once per task, with the raw wait status
 *
 * The state below lives in this slurmstepd only (task_init sees the copy forked with the
 * task).  Every failure is logged once per step and otherwise ignored: a task never fails
 * and never waits because of us.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <slurm/spank.h>

#include "pmspank.h"

#define STEP_INTERACTIVE	0xfffffffaU	/* SLURM_INTERACTIVE_STEP */
#define STEP_BATCH		0xfffffffbU	/* SLURM_BATCH_SCRIPT */
#define STEP_EXTERN		0xfffffffcU	/* SLURM_EXTERN_CONT */
#define STEP_PENDING		0xfffffffdU	/* SLURM_PENDING_STEP */
#define MAX_LOGS		32
#define LOGS_FILE_MAX		(64 * 1024)

static struct {
	int ready;			/* records are written for this step */
	int optout;
	int dirfd;
	char job[16];
	char step[16];
	int have_env;			/* the fields below were read from the step's env */
	char node[PM_FIELD_MAX + 1];
	char host[PM_FIELD_MAX + 1];
	long node_id;
	long restart;
	char gpus[PM_FIELD_MAX + 1];
	const char *gpus_from;
	char cvd[PM_FIELD_MAX + 1];
	int have_cvd;
	char userdir[PM_PATH_MAX];	/* <TMPDIR>/postmortem.<job>, the user's */
	char user_tef[PM_PATH_MAX];	/* TORCHELASTIC_ERROR_FILE the user set himself */
	int warned_write;
	int warned_drop;
} rs = { .dirfd = -1 };

static void step_name(uint32_t id, char *buf, size_t len)
{
	switch (id) {
	case STEP_BATCH:
		snprintf(buf, len, "batch");
		break;
	case STEP_EXTERN:
		snprintf(buf, len, "extern");
		break;
	case STEP_INTERACTIVE:
		snprintf(buf, len, "interactive");
		break;
	case STEP_PENDING:
		snprintf(buf, len, "pending");
		break;
	default:
		snprintf(buf, len, "%u", id);
	}
}

static int getenv_sp(spank_t sp, const char *var, char *buf, size_t len)
{
	buf[0] = '\0';
	return spank_getenv(sp, var, buf, (int)len) == ESPANK_SUCCESS && buf[0];
}

/* A path under the per-job user folder: one of ours, safe to replace in a nested step. */
static int ours(const char *v)
{
	size_t n = strlen(rs.userdir);

	return n && strncmp(v, rs.userdir, n) == 0 && v[n] == '/';
}

/*
 * The node's Slurm name.  Not SLURMD_NODENAME: until the tasks exec, the step's environment
 * holds the one srun was started with (on another node, the batch node's).  slurmd sets
 * SLURM_TOPOLOGY_ADDR for this node: its switches, then the node, as many dot-separated
 * parts as SLURM_TOPOLOGY_ADDR_PATTERN has.  Else the node id's entry of the step's (the
 * batch script: the job's) node list; else the host name.
 */
static void node_name(spank_t sp)
{
	static char list[64 * 1024];
	char addr[PM_PATH_MAX], pat[256];
	const char *p = addr, *c;
	int skip = 0;

	if (getenv_sp(sp, "SLURM_TOPOLOGY_ADDR", addr, sizeof(addr))) {
		if (getenv_sp(sp, "SLURM_TOPOLOGY_ADDR_PATTERN", pat, sizeof(pat)))
			for (c = pat; *c; c++)
				skip += *c == '.';
		else if (strchr(addr, '.'))
			skip = -1;	/* cannot tell the switches from a dotted node name */
		for (; skip > 0 && (c = strchr(p, '.')); skip--)
			p = c + 1;
		if (skip == 0 && *p && strlen(p) < sizeof(rs.node)) {
			snprintf(rs.node, sizeof(rs.node), "%s", p);
			return;
		}
	}
	if (rs.node_id >= 0 && (getenv_sp(sp, "SLURM_STEP_NODELIST", list, sizeof(list)) ||
				getenv_sp(sp, "SLURM_JOB_NODELIST", list, sizeof(list))) &&
	    pm_hostlist_nth(list, (unsigned long)rs.node_id, rs.node, sizeof(rs.node)) == 0)
		return;
	snprintf(rs.node, sizeof(rs.node), "%s", rs.host);
}

static void read_env(spank_t sp)
{
	static const char *const gpu_vars[] = {
		/* physical indexes first; CUDA_VISIBLE_DEVICES may be renumbered by cgroups */
		"SLURM_STEP_GPUS", "SLURM_JOB_GPUS", "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL",
	};
	char buf[PM_PATH_MAX];
	uint32_t u;
	size_t i;

	if (rs.have_env)
		return;
	rs.have_env = 1;
	if (gethostname(rs.host, sizeof(rs.host) - 1) < 0)
		rs.host[0] = '\0';
	rs.host[sizeof(rs.host) - 1] = '\0';
	rs.node_id = spank_get_item(sp, S_JOB_NODEID, &u) == ESPANK_SUCCESS ? (long)u : -1;
	node_name(sp);
	rs.restart = spank_get_item(sp, S_SLURM_RESTART_COUNT, &u) == ESPANK_SUCCESS ? (long)u : 0;
	/* Slurm 22.05's slurmstepd answers 0 after a requeue; slurmd puts the count in the
	 * batch script's environment, which the job's steps inherit. */
	if (rs.restart == 0 && getenv_sp(sp, "SLURM_RESTART_COUNT", buf, sizeof(buf)) &&
	    strlen(buf) < 7 && strspn(buf, "0123456789") == strlen(buf))
		rs.restart = atol(buf);
	for (i = 0; i < sizeof(gpu_vars) / sizeof(gpu_vars[0]); i++) {
		if (getenv_sp(sp, gpu_vars[i], buf, sizeof(buf))) {
			snprintf(rs.gpus, sizeof(rs.gpus), "%s", buf);
			rs.gpus_from = gpu_vars[i];
			break;
		}
	}
	rs.have_cvd = getenv_sp(sp, "CUDA_VISIBLE_DEVICES", buf, sizeof(buf));
	if (rs.have_cvd)
		snprintf(rs.cvd, sizeof(rs.cvd), "%s", buf);
	getenv_sp(sp, "TMPDIR", buf, sizeof(buf));
	if (pm_user_dir(rs.userdir, sizeof(rs.userdir), buf, rs.job) < 0)
		rs.userdir[0] = '\0';
	if (getenv_sp(sp, "TORCHELASTIC_ERROR_FILE", buf, sizeof(buf)) && !ours(buf))
		snprintf(rs.user_tef, sizeof(rs.user_tef), "%s", buf);
}

static void warn_write(const char *what)
{
	int e = errno;

	if (rs.warned_write++)
		return;
	slurm_error("postmortem: job %s step %s: %s: %s; this step's records are incomplete",
		    rs.job, rs.step, what, strerror(e));
}

/* LINE ("path\n") is one of the lines of HAVE. */
static int has_line(const char *have, const char *line)
{
	const char *p;

	for (p = strstr(have, line); p; p = strstr(p + 1, line))
		if (p == have || p[-1] == '\n')
			return 1;
	return 0;
}

/* Append the list of --postmortem-logs paths not yet in <job>/logs. */
static void write_logs(const char *value)
{
	static char paths[MAX_LOGS][PM_PATH_MAX];
	char have[LOGS_FILE_MAX + 1], line[PM_PATH_MAX + 2], err[256];
	ssize_t n = 0;
	int fd, np, i;

	np = pm_logs_split(value, paths, MAX_LOGS, err, sizeof(err));
	if (np <= 0)
		return;
	fd = openat(rs.dirfd, "logs", O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		warn_write("logs");
		return;
	}
	n = pread(fd, have, LOGS_FILE_MAX, 0);
	have[n > 0 ? n : 0] = '\0';
	for (i = 0; i < np; i++) {
		int l = snprintf(line, sizeof(line), "%s\n", paths[i]);

		if (has_line(have, line))
			continue;	/* an earlier step named it */
		if ((size_t)n + (size_t)l > LOGS_FILE_MAX || write(fd, line, (size_t)l) != l) {
			warn_write("logs");
			break;
		}
		n += l;
	}
	close(fd);
}

int pm_remote_post_opt(spank_t sp, const struct pm_args *a)
{
	char err[PM_PATH_MAX + 128], spool[PM_PATH_MAX];
	uint32_t job, step;
	const char *logs;

	pm_remote_exit(sp);	/* a step starts from nothing */
	memset(&rs, 0, sizeof(rs));
	rs.dirfd = -1;
	if (spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS)
		return 0;
	snprintf(rs.job, sizeof(rs.job), "%u", job);
	step_name(step, rs.step, sizeof(rs.step));
	/* spool=.../%n: this node's own (the node's name is in the environment read here) */
	if (strchr(a->spool, '%'))
		read_env(sp);
	if (pm_spool_path(a->spool, rs.node, spool, sizeof(spool)) < 0) {
		slurm_error("postmortem: spool=%s for node '%s': %s; no records for job %s step %s",
			    a->spool, rs.node, strerror(errno), rs.job, rs.step);
		return 0;
	}
	rs.dirfd = pm_spool_open_job(spool, rs.job, 1, err, sizeof(err));
	if (rs.dirfd < 0) {
		slurm_error("postmortem: %s; no records for job %s step %s", err, rs.job, rs.step);
		return 0;
	}
	rs.optout = pm_options_optout();
	if (rs.optout) {
		if (pm_spool_touch(rs.dirfd, "optout") < 0)
			warn_write("optout");
		return 0;
	}
	if (pm_spool_exists(rs.dirfd, "optout")) {
		rs.optout = 1;	/* an earlier step of the job opted out on this node */
		return 0;
	}
	logs = pm_options_logs();
	if (logs)
		write_logs(logs);
	rs.ready = 1;
	return 0;
}

/* In the task, as its user: a folder only this user can write, or none. */
static int make_userdir(void)
{
	struct stat st;

	if (!rs.userdir[0])
		return -1;
	if (mkdir(rs.userdir, 0700) < 0 && errno != EEXIST)
		return -1;
	if (lstat(rs.userdir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid() ||
	    (st.st_mode & 077))
		return -1;	/* someone else's, or a link: do not point the task at it */
	return 0;
}

/* Set VAR to VAL unless the user set it (a value of ours inherited from an outer step is
 * replaced: srun passes the environment of the batch script on). */
static void set_ours(spank_t sp, const char *var, const char *val)
{
	char cur[PM_PATH_MAX];

	if (getenv_sp(sp, var, cur, sizeof(cur)) && !ours(cur))
		return;
	spank_setenv(sp, var, val, 1);
}

int pm_remote_task_init(spank_t sp, const struct pm_args *a)
{
	char val[PM_PATH_MAX + 64];
	uint32_t rank;
	int dir = -1;

	if (!rs.ready || rs.optout || spank_get_item(sp, S_TASK_GLOBAL_ID, &rank) != ESPANK_SUCCESS)
		return 0;
	read_env(sp);
	/* overwrite: a nested srun inherits the outer step's tags */
	spank_setenv(sp, "POSTMORTEM_JOB", rs.job, 1);
	spank_setenv(sp, "POSTMORTEM_STEP", rs.step, 1);
	snprintf(val, sizeof(val), "%u", rank);
	spank_setenv(sp, "POSTMORTEM_RANK", val, 1);
	if (a->extras & (PM_EXTRA_TORCH_ERROR_FILE | PM_EXTRA_NCCL_DUMP))
		dir = make_userdir();
	if ((a->extras & PM_EXTRA_TORCH_ERROR_FILE) && dir == 0 && !rs.user_tef[0]) {
		snprintf(val, sizeof(val), "%s/torch_error.%s.%u.json", rs.userdir, rs.step, rank);
		set_ours(sp, "TORCHELASTIC_ERROR_FILE", val);
	}
	if (a->extras & PM_EXTRA_NCCL_DUMP) {
		spank_setenv(sp, "TORCH_NCCL_DUMP_ON_TIMEOUT", "1", 0);
		spank_setenv(sp, "TORCH_NCCL_TRACE_BUFFER_SIZE", "2000", 0);
		if (dir == 0) {
			snprintf(val, sizeof(val), "%s/nccl_trace.%s.rank_", rs.userdir, rs.step);
			set_ours(sp, "TORCH_NCCL_DEBUG_INFO_TEMP_FILE", val);
		}
	}
	if (a->extras & PM_EXTRA_NCCL_DEBUG)
		spank_setenv(sp, "NCCL_DEBUG", "WARN", 0);
	return 0;
}

/* The task's identity; 0, or -1 when Slurm does not tell its rank. */
static int task_ids(spank_t sp, struct pm_spank_task *t, char *tef, size_t teflen,
		    const struct pm_args *a)
{
	uint32_t rank;
	pid_t pid;
	int local;

	if (spank_get_item(sp, S_TASK_GLOBAL_ID, &rank) != ESPANK_SUCCESS)
		return -1;
	read_env(sp);
	memset(t, 0, sizeof(*t));
	t->job = rs.job;
	t->step = rs.step;
	t->node = rs.node[0] ? rs.node : NULL;
	t->host = rs.host[0] ? rs.host : NULL;
	t->node_id = rs.node_id;
	t->restart = rs.restart;
	t->rank = rank;
	t->local_rank = spank_get_item(sp, S_TASK_ID, &local) == ESPANK_SUCCESS ? local : -1;
	t->pid = spank_get_item(sp, S_TASK_PID, &pid) == ESPANK_SUCCESS ? pid : 0;
	t->gpus = rs.gpus_from ? rs.gpus : NULL;
	t->gpus_from = rs.gpus_from;
	t->cuda_visible = rs.have_cvd ? rs.cvd : NULL;
	if (rs.user_tef[0])
		t->torch_error_file = rs.user_tef;
	else if ((a->extras & PM_EXTRA_TORCH_ERROR_FILE) && rs.userdir[0]) {
		snprintf(tef, teflen, "%s/torch_error.%s.%u.json", rs.userdir, rs.step, rank);
		t->torch_error_file = tef;
	}
	clock_gettime(CLOCK_REALTIME, &t->real);
	clock_gettime(CLOCK_MONOTONIC, &t->mono);
	return 0;
}

static void put(const char *kind, const char *line, int len, const struct pm_args *a)
{
	char name[64];
	int rc;

	if (len < 0) {
		if (!rs.warned_write++)
			slurm_error("postmortem: job %s step %s: a %s record did not encode; skipped",
				    rs.job, rs.step, kind);
		return;
	}
	snprintf(name, sizeof(name), "%s.%s.jsonl", kind, rs.step);
	rc = pm_spool_append(rs.dirfd, name, line, (size_t)len, a->max_records);
	if (rc < 0)
		warn_write(name);
	else if (rc == 1 && !rs.warned_drop++)
		slurm_info("postmortem: job %s: max_records=%lu reached on this node; further records are dropped and counted",
			   rs.job, a->max_records);
}

int pm_remote_task_post_fork(spank_t sp, const struct pm_args *a)
{
	char line[PM_REC_MAX], tef[PM_PATH_MAX + 64];
	struct pm_spank_task t;

	if (!rs.ready || rs.optout || task_ids(sp, &t, tef, sizeof(tef), a) < 0)
		return 0;
	put("rankmap", line, pm_record_rankmap(line, sizeof(line), &t), a);
	return 0;
}

int pm_remote_task_exit(spank_t sp, const struct pm_args *a)
{
	char line[PM_REC_MAX], tef[PM_PATH_MAX + 64];
	struct pm_spank_task t;
	int status;

	if (!rs.ready || rs.optout || task_ids(sp, &t, tef, sizeof(tef), a) < 0)
		return 0;
	if (spank_get_item(sp, S_TASK_EXIT_STATUS, &status) != ESPANK_SUCCESS)
		return 0;
	t.torch_error_file = NULL;	/* said in the rank map */
	put("taskexit", line, pm_record_taskexit(line, sizeof(line), &t, status), a);
	return 0;
}

int pm_remote_exit(spank_t sp)
{
	(void)sp;
	if (rs.dirfd >= 0)
		close(rs.dirfd);
	rs.dirfd = -1;
	rs.ready = 0;
	return 0;
}
