/*
 * options.c - the user options, for srun, sbatch and salloc (and slurmstepd, which gets
 * their values from the submission):
 *
 *   --postmortem=off            opt this job out: no records, no collector
 *   --postmortem-logs=PATH[,..] extra log files for the collector
 *
 * The option table is walked by one register function.  Values are checked where the user
 * typed them (local and allocator contexts), where a bad value is refused with a message;
 * on the remote side a value is only ever read, never refused.  When --postmortem is not
 * given, the environment variable SPANK_POSTMORTEM is read in post_opt (the job's
 * environment on the remote side).  The job epilog learns of an opt-out from the spool, the
 * job's option values (spank_option_getopt) or the job control environment.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <slurm/spank.h>

#include "pmspank.h"

#define MAX_LOGS	32
#define LOGS_MAX	(8 * 1024)

enum opt {
	OPT_POSTMORTEM = 1,
	OPT_LOGS,
};

static struct {
	int given;		/* --postmortem was given */
	int optout;
	char logs[LOGS_MAX];	/* the --postmortem-logs value, "" when not given */
} opts;

static int option_cb(int val, const char *optarg, int remote);

static struct spank_option table[] = {
	{ "postmortem", "on|off",
	  "Record this job for postmortem failure attribution (default on); off opts it out",
	  1, OPT_POSTMORTEM, option_cb },
	{ "postmortem-logs", "PATH[,PATH...]",
	  "Extra log files (absolute paths) for postmortem to collect on each node",
	  1, OPT_LOGS, option_cb },
	SPANK_OPTIONS_TABLE_END
};

/* 1 on, 0 off, -1 neither. */
static int on_off(const char *v)
{
	if (!v)
		return -1;
	if (strcmp(v, "on") == 0)
		return 1;
	if (strcmp(v, "off") == 0)
		return 0;
	return -1;
}

static int option_cb(int val, const char *optarg, int remote)
{
	static char paths[MAX_LOGS][PM_PATH_MAX];	/* static: 32 KiB is not for a stack */
	char err[256];
	int v;

	switch (val) {
	case OPT_POSTMORTEM:
		v = on_off(optarg);
		if (v < 0) {
			if (remote)
				return 0;	/* checked at submission: never fail a task here */
			slurm_error("postmortem: --postmortem=%s: expected on or off",
				    optarg ? optarg : "");
			return -1;
		}
		opts.given = 1;
		opts.optout = !v;
		return 0;
	case OPT_LOGS:
		if (!optarg || strlen(optarg) >= sizeof(opts.logs) ||
		    pm_logs_split(optarg, paths, MAX_LOGS, err, sizeof(err)) < 0) {
			if (remote)
				return 0;
			slurm_error("postmortem: --postmortem-logs: %s",
				    optarg && strlen(optarg) >= sizeof(opts.logs) ? "list too long" : err);
			return -1;
		}
		snprintf(opts.logs, sizeof(opts.logs), "%s", optarg);
		return 0;
	default:
		return 0;
	}
}

int pm_options_register(spank_t sp)
{
	struct spank_option *o;

	for (o = table; o->name; o++)
		if (spank_option_register(sp, o) != ESPANK_SUCCESS)
			slurm_debug("postmortem: cannot register --%s", o->name);
	return 0;
}

/* Without --postmortem: SPANK_POSTMORTEM from the environment (the job's, remotely). */
static void env_fallback(spank_t sp, int remote)
{
	char buf[64];
	const char *v = NULL;
	int on;

	if (remote) {
		if (spank_getenv(sp, "SPANK_POSTMORTEM", buf, sizeof(buf)) == ESPANK_SUCCESS)
			v = buf;
	} else {
		v = getenv("SPANK_POSTMORTEM");
	}
	if (!v)
		return;
	on = on_off(v);
	if (on < 0) {
		if (!remote)
			slurm_error("postmortem: SPANK_POSTMORTEM=%.32s: expected on or off; ignored",
				    v);
		return;
	}
	opts.optout = !on;
}

int pm_options_post_opt(spank_t sp, int remote)
{
	if (!opts.given)
		env_fallback(sp, remote);
	/*
	 * At submission, also tell the job epilog of every node, which may run no step of the
	 * job and so never see the spool's opt-out mark: SPANK_POSTMORTEM=off in the job
	 * control environment.  Only possible where the allocation is made.
	 */
	if (!remote && opts.optout &&
	    spank_job_control_setenv(sp, "POSTMORTEM", "off", 1) != ESPANK_SUCCESS)
		slurm_debug("postmortem: cannot pass the opt-out to the job epilog");
	return 0;
}

int pm_options_job_optout(spank_t sp)
{
	char *v = NULL;
	const char *e;

	if (spank_option_getopt(sp, &table[0], &v) == ESPANK_SUCCESS && on_off(v) == 0)
		return 1;
	e = getenv("SPANK_POSTMORTEM");
	return e && on_off(e) == 0;
}

int pm_options_optout(void)
{
	return opts.optout;
}

const char *pm_options_logs(void)
{
	return opts.logs[0] ? opts.logs : NULL;
}
