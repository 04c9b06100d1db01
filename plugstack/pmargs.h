/*
 * pmargs.h - the plugstack.conf arguments of the SPANK plugin (plugstack/args.c), and the
 * checks of the paths a user gives it.
 *
 * Its own part because two parts read the same arguments: the plugin (spank/), which acts
 * on them, and `postmortem doctor` (cli/), which checks a site's plugstack.conf with the
 * very parser the plugin will use.  Pure: libc only, no Slurm symbols, no logging, no heap;
 * it includes nothing of the project, and anything may include it.
 */
#ifndef PM_ARGS_H
#define PM_ARGS_H

#include <stddef.h>

#define PM_PATH_MAX	1024	/* longest path accepted from plugstack.conf or a user */

#ifndef PM_DEFAULT_SPOOL
#define PM_DEFAULT_SPOOL	"/var/spool/postmortem"
#endif
#ifndef PM_DEFAULT_COLLECTOR
#define PM_DEFAULT_COLLECTOR	"/usr/libexec/postmortem-epilog"
#endif
#define PM_DEFAULT_RETAIN_MS	(14ULL * 86400 * 1000)
#define PM_DEFAULT_TIMEOUT_MS	(60ULL * 1000)
#define PM_DEFAULT_MAX_RECORDS	65536UL

enum pm_extra {
	PM_EXTRA_TORCH_ERROR_FILE	= 1 << 0,	/* TORCHELASTIC_ERROR_FILE per rank */
	PM_EXTRA_NCCL_DUMP		= 1 << 1,	/* TORCH_NCCL_DUMP_ON_TIMEOUT=1 */
	PM_EXTRA_NCCL_DEBUG		= 1 << 2,	/* NCCL_DEBUG=WARN */
};

struct pm_args {
	char spool[PM_PATH_MAX];	/* node-local spool root */
	char store[PM_PATH_MAX];	/* evidence store, "" for none */
	char config[PM_PATH_MAX];	/* collector configuration file, "" for its default */
	char collector[PM_PATH_MAX];	/* the postmortem-epilog binary */
	unsigned long long retain_ms;	/* evidence and spool retention */
	unsigned long long timeout_ms;	/* the collector's hard deadline */
	unsigned long max_records;	/* records per job and node in the spool */
	unsigned extras;		/* enum pm_extra bits */
};

/*
 * Fill A with the defaults, then apply the plugstack.conf arguments AV[0..AC-1] (key=value).
 * Returns 0, or -1 with ERR (ERRLEN bytes) naming the first bad argument; A then holds the
 * defaults and the arguments before the bad one, and must not be used.  Pure.
 */
int pm_args_parse(struct pm_args *a, int ac, char *const av[], char *err, size_t errlen);

/*
 * Parse a duration: one or more <digits><unit> groups ("14d", "1d12h", "500ms"); units ms, s,
 * m, h, d, w; bare digits are seconds.  Returns 0 with *MS set, or -1 (malformed, overflow).
 */
int pm_duration_parse(const char *s, unsigned long long *ms);

/*
 * Split the --postmortem-logs value V (comma-separated absolute paths) into PATHS (at most
 * MAX).  Returns the count, or -1 with ERR naming the bad path.  Pure.
 */
int pm_logs_split(const char *v, char paths[][PM_PATH_MAX], int max, char *err, size_t errlen);

/*
 * The per-job folder for files the job's user writes (torchelastic error files, NCCL dumps):
 * "<TMPDIR>/postmortem.<JOB>", TMPDIR "/tmp" when unset or not a clean absolute path.  Not
 * the root-only spool.  0, or -1 with errno ENAMETOOLONG.  Pure.
 */
int pm_user_dir(char *buf, size_t len, const char *tmpdir, const char *job);

/*
 * The N-th name (from 0) of the Slurm host list LIST ("gpu[016-017,020],login1"; one bracket
 * group per name) into BUF (LEN bytes).  0, or -1 with errno ENOENT (no such name, or a
 * list this does not read) or ENAMETOOLONG.  Pure.
 */
int pm_hostlist_nth(const char *list, unsigned long n, char *buf, size_t len);

#endif
