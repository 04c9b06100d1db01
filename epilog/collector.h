/*
 * collector.h - the node collector's modules (epilog/), as seen by main.c and the tests.
 * Not installed.
 *
 *   job.c           what the epilog knows about the job: environment, options, spool
 *   userfile.c      Slurm's filename patterns; the file reader child (as the job's user)
 *   sources.c       the source table and the runner: every source a child process, under
 *                   its own timeout and the collector's deadline, capped head and tail
 *   scrub.c         redaction of every capture before anything is written
 *   bundle_write.c  the node bundle (postmortem.bundle/1) in memory; read-back verification
 *   store.c         the job run folder, its permissions, the atomic delivery, arrival
 *
 * Functions return 0 (or a pointer) on success and -1 (or NULL) with errno on failure;
 * where an error buffer is taken it gets a one-line message.  Nothing here exits, and the
 * whole collector fails open: a source that fails is a coverage entry, not an error.
 */
#ifndef PM_COLLECTOR_H
#define PM_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include "pmconfig.h"
#include "postmortem.h"

/* How far before the job's first task start the kernel log window opens. */
#define PM_WINDOW_MARGIN 300.0
/* Filtered file sources (a slurmd log, a forwarded kernel log) search only their tail. */
#define PM_SCAN_MAX (64ULL << 20)

/* ---- job.c ---- */

struct pm_job {
	char *id;		/* SLURM_JOB_ID (or --job): digits */
	char *key;		/* store key: id, <array job>_<task>, <het job>+<offset> */
	char *cluster;		/* SLURM_CLUSTER_NAME, "default" when unset */
	char *node;		/* --node, SLURMD_NODENAME, else the short host name */
	char *user;		/* SLURM_JOB_USER; NULL unknown */
	uid_t uid;		/* SLURM_JOB_UID; (uid_t)-1 unknown */
	gid_t gid;		/* SLURM_JOB_GID; (gid_t)-1 unknown */
	int restart;		/* SLURM_JOB_RESTART_COUNT, 0 when unset */
	char *nodelist;		/* SLURM_NODELIST (a hostlist); NULL unknown */
	char *std_out;		/* SLURM_JOB_STDOUT, unexpanded; NULL unset */
	char *std_err;		/* SLURM_JOB_STDERR, unexpanded; NULL unset */
	char *work_dir;		/* SLURM_JOB_WORK_DIR; NULL unknown */
	char *name;		/* SLURM_JOB_NAME where an epilog has it, else NULL */
	char *array_job;	/* SLURM_ARRAY_JOB_ID; NULL when not an array task */
	char *array_task;	/* SLURM_ARRAY_TASK_ID */
	int exit_code;		/* SLURM_JOB_EXIT_CODE, a raw wait status; -1 unknown */
	char *spool;		/* this job's folder in the plugin's spool; NULL none */
	char spool_note[256];	/* why there is none */
	double window_start;	/* earliest task start recorded in the spool (epoch s); 0 unknown */
	double boot_time;	/* when this node booted (epoch s) */
	char restart_note[200]; /* how pm_job_resolve_restart decided, "" when it did not */
};

/*
 * Fill J from the environment Slurm gives epilogs, overridden by the options ID and NODE
 * (NULL: not given).  SPOOL is the job's spool folder (the plugin passes <spool>/<id>) or the
 * spool root holding it; the folder is used only when it is a directory owned by this user
 * and writable by nobody else.  Returns 0, or -1 with ERR when there is no usable job id or
 * node name (values that could escape a path are refused).
 */
int pm_job_init(struct pm_job *j, const char *id, const char *node, const char *spool, char *err,
		size_t errlen);
void pm_job_free(struct pm_job *j);

/*
 * Which run of a requeued job this epilog is for.  J's restart count is Slurm's
 * (SLURM_JOB_RESTART_COUNT from slurmd: the job's user cannot set it), which in the epilog
 * of a run that was requeued is already the next run's.  That run's tasks (the plugin's
 * start times in the spool, J's window_start) began before the job's current StartTime
 * (`scontrol show job`, at most TIMEOUT seconds): then the count is one less.  The restart
 * counts in the plugin's records are never used (an srun step's come from the job's
 * environment).  Fills J's restart_note; 0, or -1 when scontrol gave no answer (the count
 * stays Slurm's).
 */
int pm_job_resolve_restart(struct pm_job *j, double timeout);

/* 1 when this node ran the job's batch script, 0 when another did, -1 unknown. */
int pm_job_batch_node(const struct pm_job *j);

/* Remove the job's spool folder once its evidence is stored (plain files only). 0 or -1. */
int pm_job_spool_remove(const struct pm_job *j);

/* ---- userfile.c ---- */

/*
 * Expand Slurm's filename pattern PAT (`man sbatch`, "filename pattern": %% %A %a %J %j %N
 * %n %s %t %u %x, zero padding as in %4j, a backslash disabling expansion) as the batch
 * step of J sees it; a relative result is taken from J's work dir.  Returns a malloc'd path,
 * or NULL with errno ENOENT and WHY filled when a value it needs is unknown.
 */
char *pm_slurm_pattern(const char *pat, const struct pm_job *j, char *why, size_t whylen);

/* What a reader child does. */
struct pm_reader {
	const char *path;
	uid_t uid; /* (uid_t)-1: read as the collector (root), else drop to it */
	gid_t gid;
	const char *user;    /* for the supplementary groups; NULL: looked up from uid */
	bool nofollow;	     /* refuse a symbolic link as the last component */
	uint64_t head, tail; /* larger files: send the first HEAD and last TAIL bytes */
	uint64_t scan;	     /* nonzero: send (whole lines of) only the last SCAN bytes */
};

/* How a reader child ended (its exit status). */
enum pm_reader_exit {
	PM_RX_OK = 0,
	PM_RX_NOENT = 2,  /* no such file */
	PM_RX_ACCESS = 3, /* permission denied */
	PM_RX_LINK = 4,	  /* a symbolic link (nofollow) */
	PM_RX_NOTREG = 5, /* not a regular file */
	PM_RX_IDENT = 6,  /* could not become the user */
	PM_RX_IO = 7,	  /* a read error */
	PM_RX_CUT = 8,	  /* sent, but decompression stopped: the last line sent says why */
};

/* The header a reader child writes before the bytes. */
struct pm_reader_hdr {
	uint64_t gap;	    /* bytes skipped between the head and the tail */
	uint64_t unscanned; /* bytes before the scanned tail (scan mode) */
	uint64_t size;	    /* the file's size when opened */
};

/*
 * Start a child, in a process group of its own, that opens R->path (O_NOFOLLOW when asked,
 * O_NONBLOCK, a regular file only) after dropping to R->uid/gid and the user's groups, and
 * writes a struct pm_reader_hdr and then the bytes to a pipe.  Returns its pid with *FD the
 * read end (O_CLOEXEC), or -1 with errno.
 */
pid_t pm_reader_spawn(const struct pm_reader *r, int *fd);

/* ---- common.c: what every source file uses ---- */

/* CLOCK_MONOTONIC and CLOCK_REALTIME in seconds. */
double pm_mono(void);
double pm_now(void);

/* How bad coverage status S is, for keeping the worst of several: ok 0, empty, missing,
 * truncated, unreadable, denied, timed_out 6 (the statuses the collector gives). */
int pm_status_severity(enum pm_status s);

/* ---- sources.c ---- */

/* Coverage statuses are the engine's (enum pm_status, pm_status_name: postmortem.h); the
 * collector gives ok, missing, empty, truncated, timed_out, denied and unreadable. */

/* One file (or one failure) of one source. */
struct pm_capture {
	enum pm_csource src;
	const char *kind; /* the engine's source kind: app_log, kernel_log, ... */
	char *name;	  /* member name under sources/<src>/; NULL: nothing to keep */
	char *origin;	  /* the command or path it came from */
	char *data;	  /* the captured bytes (malloc'd, may be NULL when LEN is 0) */
	size_t len;
	int rank;	 /* -1 unknown */
	double observed; /* when it was read (epoch s) */
	double elapsed;	 /* seconds it took */
	enum pm_status status;
	char reason[320];
	bool cut;	   /* stopped by the collector's deadline, not its own timeout */
	uint64_t redacted; /* secrets replaced by scrub.c */
	void *carry;	   /* its scan for the merge (carry.c), NULL none: bundled beside it */
	size_t carrylen;
};

struct pm_coverage {
	enum pm_status status;
	char reason[400];
	double elapsed;
	unsigned files; /* captures kept */
	bool cut;
};

struct pm_collection {
	struct pm_capture *caps;
	size_t ncaps;
	struct pm_coverage cov[PM_CS__COUNT];
	double start, end; /* epoch s */
	bool deadline_hit;
};

/*
 * Collect every enabled source of CFG for J, all at once, each child under its source's
 * timeout and none past DEADLINE (CLOCK_MONOTONIC seconds) or a SIGTERM (see
 * pm_collect_stop).  Fills C (free it with pm_collection_free).  Returns 0, or -1 with errno
 * on memory exhaustion only.
 */
int pm_collect(const struct pm_config *cfg, const struct pm_job *j, double deadline,
	       struct pm_collection *c);
void pm_collection_free(struct pm_collection *c);

/* Ask a running pm_collect to cut every source now (async-signal-safe); was it asked? */
void pm_collect_stop(void);
bool pm_collect_stopped(void);

/*
 * Run the shell command CMD (/bin/sh -c, own process group, SIGKILL to the group at
 * TIMEOUT seconds), keeping at most CAP bytes of its output, head and tail.  Fills OUT
 * (free its data with free()).  Returns 0, or -1 with errno when it could not be started.
 */
int pm_run_command(const char *cmd, double timeout, uint64_t cap, struct pm_capture *out);

/* ---- scrub.c ---- */

/*
 * Redact every capture of C in place.  A capture that cannot be redacted loses its bytes
 * (status unreadable): nothing unscrubbed is ever written.  Returns the total redactions.
 */
uint64_t pm_collection_scrub(struct pm_collection *c);

/* ---- bundle_write.c ---- */

/*
 * Scan C's job output captures with the rule set RULES (NULL: the installed one) as the
 * merge would, each scan kept with its capture to be bundled beside it (engine/carry.c), none
 * started after DEADLINE (CLOCK_MONOTONIC seconds).  Nothing here can fail the collection: a
 * rule set that does not load, or a scan that fails, only leaves the merge to scan.  NOTE gets
 * what was done, in a few words.
 */
void pm_collection_carry(struct pm_collection *c, const struct pm_job *j, const char *rules,
			 double deadline, char *note, size_t notelen);

/*
 * Write C for J as a bundle (postmortem.bundle/1: pax tar, zstd, manifest.json first) into
 * a malloc'd buffer *BUF of *LEN bytes.  Returns 0, or -1 with errno and ERR.
 */
int pm_bundle_write(const struct pm_collection *c, const struct pm_job *j, void **buf, size_t *len,
		    char *err, size_t errlen);

/* Read the bundle file PATH (a .tar.zst name) back with the engine. 0, or -1 with ERR. */
int pm_bundle_verify(const char *path, char *err, size_t errlen);

/* ---- store.c ---- */

struct pm_store_result {
	bool stored;	  /* the bundle is under its final name in the store */
	bool pending;	  /* kept in the spool for a later delivery */
	int finalize;	  /* pm_finalize's answer; -2 when not called */
	char path[4096];  /* where the bundle is */
	char reason[512]; /* what went wrong, "" when nothing */
};

/*
 * The job run folder <store>/<cluster>/<key>/<restart> of J into BUF.  0, or -1 with errno
 * ENAMETOOLONG or EINVAL (no store).
 */
int pm_store_jobdir(const struct pm_config *cfg, const struct pm_job *j, char *buf, size_t len);

/*
 * Give PATH its place in the permission model: owner the collector (root or the service
 * user), group GID, mode 0750 for folders (DIR) and 0640 for files, and POSIX ACL entries
 * user:UID:r-x (folders, also as default ACL) or user:UID:r-- (files).  UID (uid_t)-1
 * adds no ACL.  Returns 0, 1 when the filesystem has no ACLs (the mode stands), or -1.
 */
int pm_store_protect(const char *path, bool dir, uid_t uid, gid_t gid);

/*
 * Deliver the bundle BUF (LEN bytes) of J: create the job run folder, write a temporary
 * name there, fsync, read it back with the engine, rename it to nodes/<node>.tar.zst, mark
 * the node arrived (pm_finalize_arrive) and, with time left before DEADLINE (monotonic),
 * finalize (pm_finalize_ex, its Slurm retries bounded by that time).  When the store fails
 * the bundle goes to <spool>/<job>/pending/<node>.tar.zst (with <node>.json saying where it
 * belongs) instead.  Fills R; returns 0 when stored, else -1.
 */
int pm_store_put(const struct pm_config *cfg, const struct pm_job *j, const void *buf, size_t len,
		 double deadline, struct pm_store_result *r);

/*
 * Deliver bundles an earlier run left in SPOOL/<job>/pending/ (SPOOL the spool root), at
 * most MAX of them and none after DEADLINE, skipping job folder SKIP.  A job folder whose
 * bundles are all delivered is removed.  Returns how many were delivered, -1 when SPOOL
 * cannot be read.
 */
int pm_store_redeliver(const struct pm_config *cfg, const char *spool, const char *skip,
		       double deadline, unsigned max);

#endif
