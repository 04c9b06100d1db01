/*
 * finalize.h - the reduce step: merge one job run's node bundles and Slurm's record into
 * verdict.json and manifest.json, and put the verdict line into the job's comment.
 *
 * The protocol (epilog/README.md, "Finalize protocol") is safe on NFS: exclusive creates and
 * link() only, no lock held across the merge, one `merging` claim file created with O_EXCL.
 * Callers: the collector on every node (pm_finalize_arrive, then pm_finalize), the
 * `postmortem finalize` timer (pm_finalize_due, pm_finalize_ex, pm_finalize_pending) and the
 * reading verbs (pm_jobdir_find, pm_manifest_load, pm_jobdir_fetch).
 *
 * Ownership: strings returned are malloc'd and freed by the caller; json_t values are
 * json_decref'd by the caller.  Functions taking (err, errlen) fill it with one line on failure.
 */
#ifndef PM_FINALIZE_H
#define PM_FINALIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <jansson.h>

#include "pmconfig.h"

#define PM_MANIFEST_SCHEMA "postmortem.manifest/1"
#define PM_CLAIM_STALE 300.0 /* seconds after which a claim that states no end is free */
#define PM_SLURM_BUDGET 20.0 /* default seconds of retries for sacct and sacctmgr */
#define PM_MISSING_REASON "node never reported"

struct pm_ruleset; /* engine/postmortem.h */

enum pm_fin_what {
	PM_FIN_WAITING,	    /* nodes still missing; a provisional verdict already exists */
	PM_FIN_BUSY,	    /* another process holds the claim */
	PM_FIN_PROVISIONAL, /* wrote the provisional verdict */
	PM_FIN_MERGED,	    /* wrote a (new or changed) final verdict */
	PM_FIN_UNCHANGED,   /* merged: same verdict and inputs as stored, nothing rewritten */
};

enum pm_comment_state {
	PM_COMMENT_NONE,    /* not attempted (provisional, or nothing to say) */
	PM_COMMENT_SET,	    /* sacctmgr set it */
	PM_COMMENT_ALREADY, /* the accounting record already says it */
	PM_COMMENT_PENDING, /* could not: comment.pending is left for `finalize --pending` */
	PM_COMMENT_SKIPPED, /* not written: the record sacctmgr would change is a later job's
			     * of the same id (a reused id), comment_why says which */
};

struct pm_finalize_opts {
	bool force;    /* merge even though expected nodes are missing */
	double budget; /* seconds for Slurm retries; 0: PM_SLURM_BUDGET */
	/* A rule set loaded by the caller (pm_ruleset_load of cfg->rules), used by the merge
	 * and left to the caller; NULL: each merge loads cfg->rules itself.  The timer loads it
	 * once for a whole store rather than compiling the rules for every job run. */
	const struct pm_ruleset *rules;
	/* Seconds the whole merge may take; 0: no limit (it runs in this process).  Else it
	 * runs in a child killed at the budget less a reserve (a fifth, 0.5 to 10 s), and with
	 * the reserve a verdict from Slurm's stored record alone is written, every bundle
	 * listed as not read (manifest "merge", the verdict's coverage): provisional, or final
	 * when CUT_FINAL (the timer: it comes back only when evidence changes).  The claim
	 * states the budget's end, after which it is free. */
	double merge_budget;
	bool cut_final;
	/* Asked while the child merges: true cuts it now (the collector's SIGTERM); NULL. */
	bool (*stopped)(void);
	/* Called in the child before it merges (tests: a merge that hangs); NULL. */
	void (*child_hook)(void);
	/* Threads the merge may use (pm_evidence_set_threads); 0 or 1: the caller's alone.  The
	 * command gives pm_threads_usable(); the collector, a guest on the job's node, none. */
	unsigned threads;
};

struct pm_finalize_result {
	enum pm_fin_what what;
	enum pm_comment_state comment;
	size_t expected, present; /* nodes; expected 0 when unknown */
	int history;		  /* N of history/verdict-N.json written, 0 none */
	char state[32];		  /* the job's state in the accounting record, "" unknown */
	char why[512];		  /* why the verdict changed (the history entry's reason) */
	char comment_why[256];	  /* why the comment is pending or skipped */
	int webhook;		  /* enum pm_webhook_state (webhook.h): 0 none, 1 sent, 2 pending */
	char webhook_why[256];	  /* why a webhook delivery is pending */
	bool deadline_hit;	  /* the merge ran out of its budget (merge_budget) */
	bool merge_died;	  /* its child died without a verdict (a crash): cut the same way */
	double took;		  /* seconds until it was cut, when deadline_hit */
};

/*
 * Merge JOBDIR (<store>/<cluster>/<job>/<restart>) if every expected node has arrived (or
 * FORCE), else write the provisional verdict if there is none.  Returns 0 merged, 1 still
 * waiting for nodes (or another process is merging), -1 error (ERR filled, errno set).
 */
int pm_finalize(const struct pm_config *cfg, const char *jobdir, int force, char *err,
		size_t errlen);

/* pm_finalize with options and a report in *RES (may be NULL).  Same returns. */
int pm_finalize_ex(const struct pm_config *cfg, const char *jobdir,
		   const struct pm_finalize_opts *opts, struct pm_finalize_result *res, char *err,
		   size_t errlen);

/*
 * Record that NODE's bundle is stored and verified: hard-link JOBDIR/arrivals as
 * arrived/NODE (EEXIST: already arrived, fine).  NODELIST (a Slurm hostlist, usually
 * SLURM_NODELIST; may be NULL) is written to JOBDIR/expected when that file does not exist yet.
 * Returns the number of arrivals seen after the link (>= 1), or -1.
 */
int pm_finalize_arrive(const char *jobdir, const char *node, const char *nodelist, char *err,
		       size_t errlen);

/*
 * Retry JOBDIR/comment.pending and JOBDIR/webhook.pending (webhook.h).  Returns 0 (done, or
 * nothing pending), 1 still pending, -1 error.
 */
int pm_finalize_pending(const struct pm_config *cfg, const char *jobdir, double budget,
			struct pm_finalize_result *res, char *err, size_t errlen);

enum pm_due {
	PM_DUE_NOTHING,
	PM_DUE_MERGE,	/* all nodes in, or late evidence: merge */
	PM_DUE_FORCE,	/* nodes missing past GRACE, or Slurm's state was not final: force */
	PM_DUE_COMMENT, /* only comment.pending or webhook.pending to retry */
};

/* A `merging` claim as its holder wrote it: "host pid start end" (end: since 0.x). */
struct pm_claim {
	char host[64];
	long pid;
	double start, end; /* epoch seconds; END -1 when the claim does not state it */
};

/* Parse a claim file's TEXT.  0, or -1 when it is not one. */
int pm_claim_parse(const char *text, struct pm_claim *c);

/* Is claim C (NULL: unreadable), its file modified at MTIME, free to take at NOW (epoch)?
 * Its holder is gone from this host, or past its stated end (and a few seconds), or the
 * file is PM_CLAIM_STALE old.  *WHY says which ("" when not free). */
bool pm_claim_stale(const struct pm_claim *c, double mtime, double now, const char **why);

/*
 * What became of JOBDIR's merge, in one line for a person, when it has no manifest yet:
 * nodes reported out of expected, a merge running (whose, since when), or one that did not
 * finish (its merger gone or out of time, or no claim left at all).  Reads a few files.
 */
void pm_finalize_describe(const char *jobdir, char *buf, size_t len);

/* What the timer should do with JOBDIR at time NOW (epoch seconds); reads a few files only. */
enum pm_due pm_finalize_due(const char *jobdir, double grace, double now);

/*
 * Act as the store's service account (on NFS with root_squash root cannot write the store):
 * USER's effective uid, gid and groups, the real uid staying root so that Slurm's commands go
 * back to root in their child (slurmdb.c).  Nothing when USER is NULL or root or we are not
 * root.  0, or -1 with WHY; pm_become_root() undoes it (it aborts rather than go on half one,
 * half the other).  The collector's store (store.c) and the CLI's writing verbs use it.
 */
#define PM_MAX_GROUPS 1024
struct pm_identity {
	bool switched;
	gid_t groups[PM_MAX_GROUPS];
	int ngroups;
};
int pm_become_service(const char *user, struct pm_identity *id, char *why, size_t whylen);
void pm_become_root(struct pm_identity *id);

/*
 * The stored verdict is the authority; the job's owner can change its Comment
 * (`sacctmgr modify job ... set Comment=`).  Recheck the comments set within
 * cfg->comment_recheck seconds (0: nothing) for the runs of STORE, or of JOBDIR alone when
 * it is not NULL, with one sacct query (every job of the period, both comment fields); a
 * run whose postmortem part no longer is the stored line (or whose AdminComment copy is
 * gone, with admin_comment) is asked again on its own and, when confirmed, put back
 * (BUDGET seconds of Slurm retries each) and recorded in <jobdir>/tampered.jsonl.
 * 0 with *RES filled, or -1 with ERR (the store or sacct could not be read).
 */
#define PM_TAMPERED_FILE "tampered.jsonl"
struct pm_recheck {
	size_t runs;	  /* job runs whose comment was set within the period */
	size_t rows;	  /* lines sacct gave */
	size_t seen;	  /* jobs found in them (the latest run of each) */
	size_t suspect;	  /* whose postmortem part did not match */
	size_t tampered;  /* confirmed changed and recorded */
	size_t restored;  /* put back */
	size_t pending;	  /* not put back yet: comment.pending, retried by the timer */
	size_t ambiguous; /* suspects with more than one row (a comment forging rows) */
	size_t deferred;  /* of them, left for a later walk (at most 50 asked per walk) */
	bool named;	  /* the query named the jobs (-j); else it asked for the period */
	size_t reused;	  /* jobs whose id a later job has: left alone (Start tells them) */
	double sacct_s;	  /* seconds the one query took */
	double total_s;	  /* seconds in all */
};
int pm_finalize_recheck(const struct pm_config *cfg, const char *store, const char *jobdir,
			double budget, struct pm_recheck *res, char *err, size_t errlen);

/* Call FN for every <store>/<cluster>/<job>/<restart> folder, in name order; stops at FN's
 * first non-zero return and returns it; -1 with ERR when STORE cannot be read. */
int pm_store_walk(const char *store, int (*fn)(const char *jobdir, void *arg), void *arg, char *err,
		  size_t errlen);

/* ---- the comment (pure helpers, tested on their own) ---- */

/* The verdict's comment line with ev=CLUSTER/JOB/RESTART (the store key), at most
 * PM_COMMENT_MAX bytes; NULL on ENOMEM. */
char *pm_comment_line(const json_t *verdict, const char *cluster, const char *job,
		      const char *restart);

/* What the comment field should hold given its CURRENT value and our LINE ("" to remove
 * ours): the user's text kept in front with " | ", an earlier postmortem line replaced. */
char *pm_comment_compose(const char *current, const char *line);

/* A jobstats summary (AdminComment starting with "JS1:"), which is never overwritten. */
bool pm_comment_is_jobstats(const char *current);

/* ---- reading the store (the CLI's show and fetch) ---- */

/*
 * A job id Slurm gave again within the store's retention (MaxJobId wrapped, slurmctld's
 * state lost) is another job, maybe another owner's: its runs never share the first one's
 * folder.  The first job with id N is <cluster>/N, a later one <cluster>/N~2, N~3, ...
 * (epilog/README.md, "The evidence store"); a bare N names the latest, N~1 the first.
 */
#define PM_RUN_SEP '~'
#define PM_RUN_GAP 8	/* runs probed past so many missing names (expired ones) */
#define PM_RUN_MAX 9999 /* the highest run number */

/* The folder name of run GEN (1: the first) of job ID into OUT. */
void pm_jobdir_run_name(const char *id, int gen, char *out, size_t len);

/* The runs of job ID (no ~) in the cluster folder CLDIR: their numbers, ascending, into GENS
 * (the latest MAX of them); how many.  Found by name (lstat: the cluster folder is
 * traverse-only to job owners), past up to PM_RUN_GAP missing ones. */
int pm_jobdir_runs(const char *cldir, const char *id, int *gens, int max);

/* KEY's job id (its run suffix taken off) into ID; KEY's run number (1, or N of ~N), or -1
 * with errno EINVAL when KEY is not <job id>[~N]. */
int pm_fin_jobid_split(const char *key, char *id, size_t idlen);

/*
 * Find the job run folder: <store>/<cluster>/<job>/<restart>; CLUSTER NULL: the only
 * cluster that has JOB; RESTART < 0: the highest.  Returns 0 with OUT filled, or -1 with
 * errno ENOENT (no such job), EEXIST (several clusters: name one), EACCES, EINVAL (bad id).
 */
int pm_jobdir_find(const char *store, const char *job, const char *cluster, int restart, char *out,
		   size_t outlen, char *err, size_t errlen);

/* Load JOBDIR/manifest.json; NULL with errno (EACCES: the filesystem refused) and ERR. */
json_t *pm_manifest_load(const char *jobdir, char *err, size_t errlen);
/* The manifest.json of the node bundle FILE (its first member, at most 16 MiB), or NULL with
 * errno (EINVAL: none, too big or not JSON). */
json_t *pm_bundle_manifest(const char *file);

/* Read JOBDIR/NAME whole (NUL-terminated) into *BUF; -1 with errno and ERR saying whether
 * the file is absent or the filesystem refused it. */
int pm_jobdir_read(const char *jobdir, const char *name, char **buf, size_t *len, char *err,
		   size_t errlen);

/* The job owner's uid recorded in a manifest, -1 when unknown. */
long long pm_manifest_uid(const json_t *manifest);

struct pm_fetch_result {
	size_t files, verified, unverified; /* unverified: arrived after the last merge */
};

/* Copy JOBDIR's bundles, manifest, verdict and Slurm record into OUTDIR (created; files are
 * never overwritten), checking each against the manifest's sha256.  0, or -1 with ERR
 * (a checksum mismatch removes the bad copy). */
int pm_jobdir_fetch(const char *jobdir, const char *outdir, struct pm_fetch_result *res, char *err,
		    size_t errlen);

#endif
