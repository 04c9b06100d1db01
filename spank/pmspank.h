/*
 * pmspank.h - the SPANK plugin's modules, as seen by plugin.c and the tests.
 *
 * record.c, status.c, spool.c and epilog.c are pure: libc only, no Slurm symbols, no logging,
 * no global state; so is the argument parser they share with doctor (plugstack/pmargs.h).  options.c, remote.c and jobscript.c are the per-context
 * modules: they call Slurm's spank_* and slurm_* functions and are reached only from the
 * dispatch in plugin.c.  Nothing here allocates memory on the heap: every buffer is the
 * caller's or a fixed-size static, so a failing malloc inside slurmstepd cannot hurt a job.
 */
#ifndef PM_SPANK_H
#define PM_SPANK_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "pmargs.h" /* the plugstack.conf arguments and user paths (plugstack/args.c) */

#define PM_REC_MAX	4096	/* a record line, newline included: one write() <= PIPE_BUF */
#define PM_FIELD_MAX	255	/* longest short string field (node, GPU lists) */

/* ---- record.c: JSON lines, hand-encoded ---- */

/*
 * What the plugin knows about one task.  Strings may be NULL (written as absent) and are
 * copied truncated to their field's limit; invalid UTF-8 becomes U+FFFD.
 */
struct pm_spank_task {
	const char *job;		/* "42" */
	const char *step;		/* "0", "batch", "extern", "interactive" */
	const char *node;		/* the node's Slurm name (NodeName) */
	const char *host;		/* gethostname(): what the kernel says */
	const char *gpus;		/* the GPU list of the first variable below that is set */
	const char *gpus_from;		/* its name: SLURM_STEP_GPUS, SLURM_JOB_GPUS, ... */
	const char *cuda_visible;	/* CUDA_VISIBLE_DEVICES as the step got it */
	const char *torch_error_file;	/* where the rank's torchelastic error file goes */
	long node_id;			/* S_JOB_NODEID, -1 unknown */
	long rank;			/* S_TASK_GLOBAL_ID */
	long local_rank;		/* S_TASK_ID, -1 unknown */
	long pid;			/* S_TASK_PID, 0 unknown */
	long restart;			/* SLURM_RESTART_COUNT, 0 when unset */
	struct timespec real;		/* CLOCK_REALTIME of the event */
	struct timespec mono;		/* CLOCK_MONOTONIC of the event */
};

/*
 * Encode the rank map record (postmortem.rankmap/1) or the exit record (postmortem.taskexit/1,
 * with the raw wait STATUS) of T into BUF (CAP bytes), one line ending in '\n'.  Returns the
 * length (< PM_REC_MAX when CAP >= PM_REC_MAX), or -1 with errno ENOBUFS when CAP is too small.
 */
int pm_record_rankmap(char *buf, size_t cap, const struct pm_spank_task *t);
int pm_record_taskexit(char *buf, size_t cap, const struct pm_spank_task *t, int status);

/*
 * JSON-escape at most MAX bytes of S (N bytes, not NUL-terminated) into DST (CAP bytes) and
 * NUL-terminate it; what does not fit is cut between characters.  Returns the length
 * written, or -1 when CAP is 0.  Invalid UTF-8 and NUL become U+FFFD, other control
 * characters \n, \t, \r or \u00XX.
 */
long pm_json_escape(char *dst, size_t cap, const char *s, size_t n, size_t max);

/* ---- status.c: wait status decoding ---- */

struct pm_wait_status {
	int exited;		/* 1: ended by exit(), code in exit_code */
	int exit_code;		/* -1 when not exited */
	int signal;		/* the terminating signal, 0 none */
	int core;		/* 1 when a core was dumped */
};

/* Decode a raw wait status (256: exit 1; 9: SIGKILL; 139: SIGSEGV with core).  Pure. */
void pm_wait_decode(int status, struct pm_wait_status *st);

/* "SIGKILL", "SIGRTMIN+3", or "SIG99" for SIG into BUF (LEN bytes); returns BUF. */
const char *pm_signal_name(int sig, char *buf, size_t len);

/* ---- spool.c: the node-local, root-only spool ---- */

/*
 * The spool root of node NODE: SPOOL with "%n" replaced by NODE and "%%" by "%" (nodes that
 * share a machine, or a filesystem, each get their own: spool=/var/spool/postmortem/%n).
 * NODE must be a plain name (not empty, no '/', not "." or "..") when SPOOL says %n.  Into BUF
 * (LEN bytes); 0, or -1 with errno EINVAL (a bad node name, another %-sequence) or
 * ENAMETOOLONG.  Pure.
 */
int pm_spool_path(const char *spool, const char *node, char *buf, size_t len);

/*
 * Open (creating when missing, mode 0700) the spool root SPOOL and its job folder JOB.
 * Both must be folders owned by the effective user and writable by nobody else; symbolic
 * links are refused.  Returns a directory descriptor (O_CLOEXEC), or -1 with errno and ERR
 * filled.  CREATE 0 only opens an existing job folder.
 */
int pm_spool_open_job(const char *spool, const char *job, int create, char *err, size_t errlen);

/*
 * Append the record LINE (LEN bytes, one whole line) to file NAME in the job folder DIRFD,
 * counting it against MAX records per job (the counter file "count": "records N\ndropped
 * M\n", under flock).  The line goes out in one O_APPEND write(), so concurrent writers from
 * several processes never interleave.  Returns 0 written, 1 dropped (over the bound, counted),
 * -1 with errno on a write error (ENOSPC, EFBIG, EIO ...): then nothing is counted.
 */
int pm_spool_append(int dirfd, const char *name, const char *line, size_t len,
		    unsigned long max);

/* Read the job folder's counters; 0, or -1 with errno (ENOENT when nothing was counted). */
int pm_spool_counts(int dirfd, unsigned long *records, unsigned long *dropped);

/* Create the empty file NAME (mode 0600) in DIRFD if missing; 0 or -1 with errno. */
int pm_spool_touch(int dirfd, const char *name);

/* 1 when NAME exists in DIRFD, 0 when not. */
int pm_spool_exists(int dirfd, const char *name);

/*
 * Remove job folder JOB of SPOOL and the plain files in it (nothing else: it holds no
 * folders).  0, or -1 with errno.
 */
int pm_spool_remove_job(const char *spool, const char *job);

/*
 * Remove at most MAX job folders of SPOOL last modified before BEFORE (epoch seconds),
 * never KEEP.  Returns how many were removed, or -1 with errno when SPOOL cannot be read.
 */
int pm_spool_prune(const char *spool, time_t before, const char *keep, unsigned max);

/* ---- epilog.c: running the collector under a deadline ---- */

enum pm_run_outcome {
	PM_RUN_MISSING,		/* not an executable file: nothing was started */
	PM_RUN_FAILED,		/* fork or exec failed */
	PM_RUN_EXITED,		/* ended on its own: see status */
	PM_RUN_TIMED_OUT,	/* killed at the deadline */
	PM_RUN_LOST,		/* killed, but not reaped in time (stuck in the kernel) */
};

struct pm_run {
	enum pm_run_outcome outcome;
	int status;		/* the wait status when EXITED */
	long elapsed_ms;
};

/*
 * Run ARGV (ARGV[0] an absolute path) in a new session with stdin, stdout and stderr on
 * /dev/null and the caller's environment.  At TIMEOUT_MS minus a grace period (a fifth, at
 * most 2 s) its process group gets SIGTERM, at TIMEOUT_MS SIGKILL; the call returns at most
 * 500 ms after that, reaped or not.  Fills R; returns 0 when the program ran and exited on
 * its own with status 0, else -1.  Never blocks longer, never exits.
 */
int pm_run_deadline(char *const argv[], unsigned long long timeout_ms, struct pm_run *r);

/* ---- the per-context modules (they call Slurm) ---- */

/* options.c: the user options --postmortem and --postmortem-logs. */
struct spank_handle;
int pm_options_register(struct spank_handle *sp);
int pm_options_post_opt(struct spank_handle *sp, int remote);
int pm_options_optout(void);			/* 1: --postmortem=off (or SPANK_POSTMORTEM) */
const char *pm_options_logs(void);		/* the --postmortem-logs value, or NULL */
int pm_options_job_optout(struct spank_handle *sp);	/* job_script: the job opted out */

/* remote.c: slurmstepd. */
int pm_remote_post_opt(struct spank_handle *sp, const struct pm_args *a);
int pm_remote_task_init(struct spank_handle *sp, const struct pm_args *a);
int pm_remote_task_post_fork(struct spank_handle *sp, const struct pm_args *a);
int pm_remote_task_exit(struct spank_handle *sp, const struct pm_args *a);
int pm_remote_exit(struct spank_handle *sp);

/* jobscript.c: the job epilog, once per node. */
int pm_jobscript_epilog(struct spank_handle *sp, const struct pm_args *a);

#endif /* PM_SPANK_H */
