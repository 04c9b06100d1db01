/*
 * plugin.c - every slurm_spank_* entry point of postmortem.so, and nothing else: each is a
 * switch on spank_context() that forwards to the module of that context.
 *
 *   local, allocator (srun, sbatch, salloc)   options.c: the user options
 *   remote (slurmstepd)                       remote.c: tags and records
 *   job_script (the job epilog)               jobscript.c: the collector
 *
 * The plugstack.conf arguments are parsed once per process.  When they are wrong the error
 * names the argument and the plugin stays inactive: every callback returns 0 and does
 * nothing, so jobs run as they would without it.  The user options stay registered even
 * then, so that job scripts using them keep working.  Every callback returns 0: the plugin
 * fails open.
 */
#include <slurm/spank.h>

#include "pmspank.h"

SPANK_PLUGIN(postmortem, 1);

static struct pm_args args;
static int loaded;	/* 0 not yet, 1 active, -1 inactive */

/*
 * 1 when active.  FRESH in the first callback of a process (init; job_epilog, which runs in
 * a process of its own each time), later callbacks reuse the result.
 */
static int load(int ac, char **av, int fresh)
{
	char err[PM_PATH_MAX + 256];

	if (loaded && !fresh)
		return loaded > 0;
	if (pm_args_parse(&args, ac, av, err, sizeof(err)) < 0) {
		slurm_error("postmortem: %s; the plugin is inactive", err);
		loaded = -1;
		return 0;
	}
	loaded = 1;
	return 1;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	load(ac, av, 1);
	switch (spank_context()) {
	case S_CTX_LOCAL:
	case S_CTX_ALLOCATOR:
	case S_CTX_REMOTE:
		return pm_options_register(sp);
	default:
		return 0;
	}
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	if (!load(ac, av, 0))
		return 0;
	switch (spank_context()) {
	case S_CTX_LOCAL:
	case S_CTX_ALLOCATOR:
		return pm_options_post_opt(sp, 0);
	case S_CTX_REMOTE:
		pm_options_post_opt(sp, 1);
		return pm_remote_post_opt(sp, &args);
	default:
		return 0;
	}
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	if (!load(ac, av, 0))
		return 0;
	switch (spank_context()) {
	case S_CTX_REMOTE:
		return pm_remote_task_init(sp, &args);
	default:
		return 0;
	}
}

int slurm_spank_task_post_fork(spank_t sp, int ac, char **av)
{
	if (!load(ac, av, 0))
		return 0;
	switch (spank_context()) {
	case S_CTX_REMOTE:
		return pm_remote_task_post_fork(sp, &args);
	default:
		return 0;
	}
}

int slurm_spank_task_exit(spank_t sp, int ac, char **av)
{
	if (!load(ac, av, 0))
		return 0;
	switch (spank_context()) {
	case S_CTX_REMOTE:
		return pm_remote_task_exit(sp, &args);
	default:
		return 0;
	}
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	if (!load(ac, av, 0))
		return 0;
	switch (spank_context()) {
	case S_CTX_REMOTE:
		return pm_remote_exit(sp);
	default:
		return 0;
	}
}

int slurm_spank_job_epilog(spank_t sp, int ac, char **av)
{
	if (!load(ac, av, 1))
		return 0;
	switch (spank_context()) {
	case S_CTX_JOB_SCRIPT:
		pm_jobscript_epilog(sp, &args);
		return 0;	/* always: a non-zero job_epilog drains the node */
	default:
		return 0;
	}
}
