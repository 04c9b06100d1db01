/*
 * jobscript.c - the job epilog, run as root once per node in a process of its own that
 * slurmd spawns after the job.  It shares nothing with the steps: what they want it to know
 * (the opt-out) is in the spool, or, when given at submission, among the job's option values
 * and in its job control environment (SPANK_POSTMORTEM=off), which reach every node's epilog
 * even where no step ran.  It always returns 0: a failing job_epilog drains the node.
 *
 * The collector is called as
 *
 *   <collector> --job=<id> --spool=<spool>/<id> --node=<name> --timeout=<ms>ms
 *               --retain=<s>s [--store=<dir>] [--config=<file>]
 *
 * with the epilog's environment (SLURM_JOB_ID, SLURMD_NODENAME, ...).  It owns the job's
 * spool folder from then on and removes it once the evidence is stored; spool folders left
 * behind are pruned here once older than retain (at least a week).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <slurm/spank.h>

#include "pmspank.h"

#define PRUNE_FLOOR_S	(7 * 86400)	/* never prune a spool folder younger than this */
#define PRUNE_MAX	64		/* folders per epilog: bounded work */

static void prune(const struct pm_args *a, const char *spool, const char *job)
{
	time_t keep = (time_t)(a->retain_ms / 1000);
	int n;

	if (keep < PRUNE_FLOOR_S)
		keep = PRUNE_FLOOR_S;
	n = pm_spool_prune(spool, time(NULL) - keep, job, PRUNE_MAX);
	if (n > 0)
		slurm_debug("postmortem: pruned %d stale spool folder(s) of %s", n, spool);
}

static void run_collector(const struct pm_args *a, const char *spool, const char *job,
			  const char *node)
{
	char o_job[80], o_spool[PM_PATH_MAX + 96], o_node[PM_FIELD_MAX + 16], o_timeout[48],
	     o_retain[48], o_store[PM_PATH_MAX + 16], o_config[PM_PATH_MAX + 16];
	char *argv[10];
	struct pm_run r;
	int n = 0;

	snprintf(o_job, sizeof(o_job), "--job=%s", job);
	snprintf(o_spool, sizeof(o_spool), "--spool=%s/%s", spool, job);
	snprintf(o_node, sizeof(o_node), "--node=%s", node);
	snprintf(o_timeout, sizeof(o_timeout), "--timeout=%llums", a->timeout_ms);
	snprintf(o_retain, sizeof(o_retain), "--retain=%llus", a->retain_ms / 1000);
	snprintf(o_store, sizeof(o_store), "--store=%s", a->store);
	snprintf(o_config, sizeof(o_config), "--config=%s", a->config);
	argv[n++] = (char *)a->collector;
	argv[n++] = o_job;
	argv[n++] = o_spool;
	if (node[0])
		argv[n++] = o_node;
	argv[n++] = o_timeout;
	argv[n++] = o_retain;
	if (a->store[0])
		argv[n++] = o_store;
	if (a->config[0])
		argv[n++] = o_config;
	argv[n] = NULL;

	pm_run_deadline(argv, a->timeout_ms, &r);
	switch (r.outcome) {
	case PM_RUN_MISSING:
		slurm_debug("postmortem: collector %s is not installed; job %s evidence stays in %s",
			    a->collector, job, spool);
		break;
	case PM_RUN_FAILED:
		slurm_error("postmortem: job %s: cannot start the collector %s: %s", job,
			    a->collector, strerror(errno));
		break;
	case PM_RUN_EXITED:
		if (r.status > 0 && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 127)
			slurm_error("postmortem: job %s: the collector %s could not be executed",
				    job, a->collector);
		else if (r.status > 0)
			slurm_error("postmortem: job %s: the collector ended with status %d after %ld ms",
				    job, r.status, r.elapsed_ms);
		else
			slurm_debug("postmortem: job %s: collector done in %ld ms", job, r.elapsed_ms);
		break;
	case PM_RUN_TIMED_OUT:
	case PM_RUN_LOST:
		slurm_error("postmortem: job %s: the collector was killed at its %llu ms deadline%s",
			    job, a->timeout_ms,
			    r.outcome == PM_RUN_LOST ? " and did not die (left behind)" : "");
		break;
	}
}

int pm_jobscript_epilog(spank_t sp, const struct pm_args *a)
{
	char job[16], node[PM_FIELD_MAX + 1], err[PM_PATH_MAX + 128], spool[PM_PATH_MAX];
	const char *v;
	uint32_t id;
	int fd, out;

	if (spank_get_item(sp, S_JOB_ID, &id) == ESPANK_SUCCESS)
		snprintf(job, sizeof(job), "%u", id);
	else if ((v = getenv("SLURM_JOB_ID")) && strlen(v) < sizeof(job) &&
		 strspn(v, "0123456789") == strlen(v) && *v)
		snprintf(job, sizeof(job), "%s", v);
	else
		return 0;
	v = getenv("SLURMD_NODENAME");
	snprintf(node, sizeof(node), "%s", v ? v : "");
	/* spool=.../%n: this node's own, as its steps named it */
	if (pm_spool_path(a->spool, node, spool, sizeof(spool)) < 0) {
		slurm_error("postmortem: spool=%s for node '%s': %s; job %s not collected",
			    a->spool, node, strerror(errno), job);
		return 0;
	}

	/* opted out: a step on this node said so in the spool, or the submission did */
	fd = pm_spool_open_job(spool, job, 0, err, sizeof(err));
	out = fd >= 0 && pm_spool_exists(fd, "optout");
	if (fd >= 0)
		close(fd);
	out = out || pm_options_job_optout(sp);
	if (out) {
		slurm_debug("postmortem: job %s opted out; nothing collected", job);
		if (pm_spool_remove_job(spool, job) < 0)
			slurm_debug("postmortem: cannot remove %s/%s: %s", spool, job,
				    strerror(errno));
	} else {
		run_collector(a, spool, job, node);
	}
	prune(a, spool, job);
	return 0;
}
