/*
 * finalize_int.h - what the store's finalize.c, names.c, claim.c, recheck.c, slurmdb.c and
 * jobdir.c share.  Not a public interface.
 */
#ifndef PM_FINALIZE_INT_H
#define PM_FINALIZE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "finalize.h"

double pm_fin_clock(void); /* monotonic seconds */
/* In a forked child: exec CMD (through sh -c when it holds blanks) with ARGS, as root when
 * the process is acting as the store's service user, stdin from /dev/null, stdout to WFD,
 * stderr to EFD (-1: /dev/null), in a process group of its own.  Never returns. */
void pm_fin_exec(const char *cmd, const char *const *args, int wfd, int efd)
	__attribute__((noreturn));
/* pm_fin_exec's child started (by posix_spawnp where it can do the same set-up, else by a
 * fork): its pid, or -1 (errno) when no process could be started. */
pid_t pm_fin_spawn(const char *cmd, const char *const *args, int wfd, int efd);
double pm_fin_wall(void); /* epoch seconds */
void pm_fin_nap(double s);

/* Read a whole file of at most MAX bytes (NUL-terminated copy in *BUF).  0 or -1, errno. */
int pm_fin_read(const char *path, size_t max, char **buf, size_t *len);
/* Write DIR/NAME through a temporary file and rename(); mode 0640.  0 or -1, errno. */
int pm_fin_write(const char *dir, const char *name, const void *buf, size_t len);

/* Split JOBDIR's last three components.  0, or -1 (EINVAL) when they are not a job key. */
int pm_fin_key(const char *jobdir, char *cluster, char *job, char *restart, size_t each);
/* A job id as Slurm prints it: digits with _ (arrays) or + (het jobs), 1 to 63 bytes. */
bool pm_fin_jobid_ok(const char *s);

/* Run CMD (a program, or a shell command line when it has blanks) with ARGS (NULL-ended),
 * stdout and stderr into *OUT (at most 1 MiB kept), killed after TIMEOUT seconds.
 * Returns 0 with *STATUS the wait status, or -1 (could not run, or timed out: ETIMEDOUT). */
int pm_fin_run(const char *cmd, const char *const *args, double timeout, char **out, size_t *len,
	       int *status);

/* The job's accounting record (sacct -P), retried until Slurm's state is final or DEADLINE
 * (monotonic) passes. */
struct pm_sched {
	char *text; /* the sacct output, or NULL when none came */
	size_t len;
	char state[32]; /* the job row's state word, "" none */
	bool final;
	long long uid; /* the UID column, -1 unknown */
	int tries;
	char reason[200]; /* why there is no (final) record */
};
void pm_fin_sacct(const struct pm_config *cfg, const char *job, double deadline,
		  struct pm_sched *s);
/* The same for the job of user OWNER (its uid, -1 unknown), when not in the job's epilog. */
void pm_fin_sacct_owner(const struct pm_config *cfg, const char *job, long long owner,
			double deadline, struct pm_sched *s);
/* The same, asked once (the state need not be final: a provisional verdict's record), the
 * command given what DEADLINE leaves (CMD_TIMEOUT at most), not the least a retry gets. */
void pm_fin_sacct_once(const struct pm_config *cfg, const char *job, long long owner,
		       double deadline, struct pm_sched *s);
void pm_fin_sched_free(struct pm_sched *s);
/* Read S->text (a sacct -P output with its header): JOB's state word, final or not, UID. */
void pm_fin_sched_parse(struct pm_sched *s, const char *job);

/* OWNER of pm_fin_comment: the owner JOBDIR's stored manifest names, read from it. */
#define PM_OWNER_STORED (-2LL)

/* Apply our comment LINE ("" removes ours) to JOB through JOBDIR's comment files, JOB being
 * OWNER's (a UID; -1 unknown; PM_OWNER_STORED: as JOBDIR's stored manifest says, for a caller
 * that has not just written it: at 16,384 nodes it is 4.5 MB of JSON to read).  Only the
 * record of this run is changed (sacctmgr's where names the owner, and the record it would
 * change must be the run's: PM_COMMENT_SKIPPED otherwise).  Returns the state reached; WHY
 * gets a reason when pending or skipped. */
enum pm_comment_state pm_fin_comment(const struct pm_config *cfg, const char *jobdir,
				     const char *job, long long owner, const char *line,
				     double deadline, char *why, size_t whylen);

/* ---- names.c: lists of node names ---- */

#define NAMELEN 64 /* a node name, a cluster, a job id or a restart count, NUL included */

struct names {
	char **v;
	size_t n;
	size_t sorted; /* v[0..sorted) is sorted and unique; the rest appended since */
};

/* A node name that may name a file: 1..NAMELEN-1 printable bytes, no '/', no leading . or -. */
bool pm_node_ok(const char *s, size_t n);
bool pm_names_has(const struct names *l, const char *s);
/* Append a node name (invalid names are skipped); pm_names_sort removes duplicates.  -1 ENOMEM. */
int pm_names_add(struct names *l, const char *s, size_t n);
void pm_names_free(struct names *l);
void pm_names_sort(struct names *l);
json_t *pm_names_json(const struct names *l);
/* Lines of a file, or a Slurm hostlist: into L.  -1 on ENOMEM. */
int pm_names_parse(struct names *l, const char *s, size_t len);
/* The names in DIR ending in SUFFIX, less it (none: DIR missing), sorted.  0, or -1 errno. */
int pm_names_list_dir(const char *dir, const char *suffix, struct names *l);

/* ---- claim.c: the `merging` claim ---- */

/* "host pid start end" into ME: END (epoch seconds, BUDGET from now, or PM_CLAIM_STALE) is
 * when the holder will have let go of it. */
void pm_fin_claim_id(char *me, size_t len, double budget);
/* 1 the claim on DIR is ours (ME written into it), 0 someone else holds it, -1 error. */
int pm_fin_claim(const char *dir, const char *me);
/* Let go of the claim on DIR if it still is ME. */
void pm_fin_release(const char *dir, const char *me);
/* What became of the merge of JOBDIR, IN of OF nodes in, that wrote no verdict: into BUF. */
void pm_fin_describe_claim(const char *jobdir, size_t in, size_t of, char *buf, size_t len);

/* ---- slurmdb.c, more ---- */

/* A Slurm command's time limit: what is left until DEADLINE (monotonic), within [0.5, 20]. */
double pm_fin_cmd_limit(double deadline);
/*
 * Put LINE into the job's AdminComment too (admin_comment: true), which only operators can
 * set: composed with what is there (an earlier line of ours replaced), except that jobstats'
 * summary ("JS1:...", read back by jobstats as it is) is never touched.  1 set, 0 nothing
 * to do (already there, or jobstats'), -1 failed (WHY).
 */
int pm_fin_admin_set(const struct pm_config *cfg, const char *jobdir, const char *job,
		     long long owner, const char *line, double deadline, char *why, size_t whylen);
/* The Start column of JOB's row in DIR/sacct.txt (the record the run's verdict used) into
 * OUT, "" when it is not there.  Job ids come back: the start tells this run's job from
 * another's. */
void pm_fin_stored_start(const char *dir, const char *job, char *out, size_t len);

/* ---- jobdir.c, more ---- */

/* Does DIR/NAME exist (lstat)? */
bool pm_fin_exists(const char *dir, const char *name);

/* The value of KEY among the top-level keys of JOBDIR's stored manifest, parsed alone (a new
 * reference), or NULL: no manifest, no such key, or a file that is not one JSON object. */
json_t *pm_fin_manifest_top(const char *jobdir, const char *key);

#endif
