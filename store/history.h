/*
 * history.h - the node history: what final verdicts blamed on each node from trusted
 * evidence, kept in the store so that a verdict can see repeats across jobs.
 *
 * Layout (epilog/README.md, "Node history"):
 *
 *   <store>/.history/<node>/<day>/<time>.<cluster>.<job>.<restart>.json   one record, one line
 *   <jobdir>/node-history.json   the record files that run wrote ("<node>/<file>": the day
 *                                follows from the file's <time>), for a rewrite and expire
 *
 * Every record is its own file, written to a temporary name and renamed into place by the one
 * process that holds the run's `merging` claim: writers on many nodes never share a file, so
 * nothing is appended, no lock is needed (NFS included), and a run recorded again replaces its
 * record whole.  <time> (the job's end, epoch seconds, 10 digits) leads the name, and <day>
 * (YYYY-MM-DD, UTC) is its day, so that a reader lists only the days of its period, newest
 * first, and skips old records from a listing alone: a node failing every minute has a
 * thousand names a day, not a folder of every one.  Versions before the day folders wrote the
 * records into <node>/ itself: those are read too, move into their day folder when their run is
 * recorded again or the history is swept, and are removed as the others are.  Expire removes
 * a day folder (and a node's) once it is empty; a writer that finds its folder gone makes it
 * again.  The file's mtime is when the run was
 * first recorded (a rewrite sets it back): the store's clock, the one that dates the job's end
 * (the `arrivals` file), so that "recorded by the job's end" compares two times of one clock
 * whatever the merging hosts' clocks say.  A `recorded` member written by earlier versions (the
 * merging host's clock) is ignored.
 *
 * Only a verdict whose origin names a node from trusted evidence (a source the job's user
 * cannot write, engine/TRUST.md) records that node: a hypothesis from the job's output never
 * does.  Records carry the run's expiry date and go with its evidence (`postmortem expire`).
 *
 * Ownership: records handed to callbacks are borrowed for the call; json_t values returned are
 * the caller's.  Functions taking (err, errlen) fill it with one line on failure.
 */
#ifndef PM_HISTORY_H
#define PM_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#define PM_HISTORY_SCHEMA "postmortem.history/1"
#define PM_HISTORY_DIR ".history"	   /* under the store's root */
#define PM_HISTORY_RUN "node-history.json" /* in the job run's folder */

/* The policy that turns repeats into a justified repair (site data; the defaults are
 * documented in epilog/README.md): the same hardware class on the same node from trusted
 * evidence in JOBS distinct jobs (this one included) within WINDOW seconds. */
#define PM_HISTORY_JOBS 2
#define PM_HISTORY_USED_MAX 16 /* a verdict uses each node's 16 latest earlier jobs at most */
#define PM_HISTORY_WINDOW (7 * 86400.0)
struct pm_history_policy {
	unsigned jobs;
	double window;
};

/* One record: RUN ("<cluster>/<job>/<restart>", the ledger's key) blamed NODE. */
struct pm_history_rec {
	char run[200];
	char node[64];
	char cls[48], sub[48], conf[24];
	double time;	 /* the job's end (its first node's arrival), epoch seconds */
	double expires;	 /* the run's expiry date, epoch seconds; 0 unknown */
	double recorded; /* when the run was first recorded: its file's mtime, by the store's
			    clock like the job's end (pm_history_job_end); a rewrite keeps it */
	long long uid;	 /* the job's owner, -1 unknown */
	bool refuted; /* the ledger's last resolution for RUN is `refuted` (readers with a ledger) */
	bool hardware; /* CLS is a hardware class */
};

/* Fill *P with the defaults. */
void pm_history_policy_default(struct pm_history_policy *p);

/*
 * The nodes VERDICT's origin names from trusted evidence (an origin-role evidence item of the
 * cause's class, on that node, from a source the user cannot write), sorted, into a
 * NULL-terminated malloc'd array (free each and the array; NULL when none).  Only an
 * attributed verdict names any.
 */
char **pm_history_origin_nodes(const json_t *verdict);
void pm_history_strv_free(char **v);

/*
 * Record final VERDICT of JOBDIR (<store>/<cluster>/<job>/<restart>) for each of its trusted
 * origin nodes, replacing what the run recorded before (records of nodes it no longer names are
 * removed).  TIME is the job's end, UID its owner (-1 unknown), EXPIRES its expiry (0 unknown).
 * The caller holds the run's claim.  Returns the number of records written (0: none to write),
 * or -1 with ERR.
 */
int pm_history_record(const char *store, const char *jobdir, const json_t *verdict, double time,
		      long long uid, double expires, char *err, size_t errlen);

/* Remove the records JOBDIR's run wrote (`postmortem expire`, before the folder goes).
 * Returns the number removed, or -1 with ERR. */
int pm_history_forget(const char *store, const char *jobdir, char *err, size_t errlen);

/* The end of JOBDIR's job as the history knows it: its first node's arrival (the `arrivals`
 * file, else the earliest arrived/NODE, else the folder's time), epoch seconds; 0 unknown. */
double pm_history_job_end(const char *jobdir);

/* Remove the records whose run expired before NOW (left by a run removed without
 * pm_history_forget), and the day and node folders that leaves empty; move records an earlier
 * version left flat in a node's folder into their day folders.  Returns the number removed,
 * or -1 with ERR. */
int pm_history_sweep(const char *store, double now, char *err, size_t errlen);

/*
 * The runs LEDGER (the decision ledger's path; NULL or absent: none) last resolved `refuted`,
 * sorted, NULL-terminated (pm_history_strv_free); NULL when none or unreadable.
 */
char **pm_history_refuted(const char *ledger);

/*
 * Call FN for each record of NODE whose time is in [SINCE, UNTIL) (UNTIL 0: no end) and whose
 * run has not expired at NOW (0: keep all), in time order (then run).  REFUTED (from
 * pm_history_refuted; may be NULL) marks records.  Stops at FN's first non-zero return and
 * returns it; 0 when done; -1 with ERR when the node's folder cannot be read (absent: 0).
 */
int pm_history_node(const char *store, const char *node, double since, double until, double now,
		    char *const *refuted, int (*fn)(const struct pm_history_rec *r, void *arg),
		    void *arg, char *err, size_t errlen);

/*
 * The fleet: FN once per node having records in [SINCE, UNTIL) (as above), in node name order,
 * with its records in time order (N >= 1).  Returns as pm_history_node.
 */
int pm_history_fleet(const char *store, double since, double until, double now,
		     char *const *refuted,
		     int (*fn)(const char *node, const struct pm_history_rec *r, size_t n,
			       void *arg),
		     void *arg, char *err, size_t errlen);

/*
 * Does the policy justify a repair of NODE for hardware class CLS from records R (N of them,
 * one node's, in time order)?  Counts distinct jobs (cluster/job: a requeued run is the same
 * job) of class CLS not refuted, with times within the policy's window of the latest.  CLS
 * NULL: any hardware class.  On true, BY (when not NULL) gets the runs counted, in time order,
 * NULL-terminated (pm_history_strv_free).
 */
bool pm_history_justified(const struct pm_history_rec *r, size_t n, const char *cls,
			  const struct pm_history_policy *pol, char ***by);

/*
 * The records that VERDICT of run RUN (its end at TIME) uses: those of its trusted origin
 * nodes and its cause's class (hardware classes only), of other jobs, not refuted, in
 * [TIME - window, TIME) and recorded by TIME (the history as it stood at the job's end: a later
 * re-merge or replay sees the same), of each node's PM_HISTORY_USED_MAX latest distinct jobs.
 * Reads each node's records newest first and opens no record of an older job once it has
 * those, nor lists an older day's folder: an earlier record of one of those jobs counts when it
 * is in a day read.  Into *OUT (malloc'd, free it) and *N.  0, or -1 with ERR.
 */
int pm_history_gather(const char *store, const char *ledger, const json_t *verdict, const char *run,
		      double time, const struct pm_history_policy *pol, struct pm_history_rec **out,
		      size_t *n, char *err, size_t errlen);

/*
 * Apply the policy to VERDICT of run RUN given the records it uses (R, N, from
 * pm_history_gather or as recorded in the verdict): with any, the verdict gets "node_history" (the
 * records, as inputs) and its input_digest covers them; when they make the job the policy's
 * JOBS-th, "decision.repair.justified" becomes true and "decision.repair.repeats" names the
 * earlier runs.  With none, VERDICT is left unchanged byte for byte.  Returns 1 when the repair
 * is justified by repeats, 0 otherwise, -1 on ENOMEM.
 */
int pm_history_apply(json_t *verdict, const char *run, const struct pm_history_rec *r, size_t n,
		     const struct pm_history_policy *pol);

/* Give NEW (a re-diagnosis of run RUN) the records that OLD (the stored verdict) used, as
 * pm_history_apply: a replay or a drill compares like with like.  Returns as
 * pm_history_apply; -1 also when OLD's node_history is malformed. */
int pm_history_reapply(json_t *new, const json_t *old, const char *run,
		       const struct pm_history_policy *pol);

/* The policy from configuration values (0: the default for that one). */
void pm_history_policy_of(unsigned jobs, double window, struct pm_history_policy *p);

/* The records a verdict used, from its "node_history" member, into *OUT and *N (0 and NULL when it
 * has none).  0, or -1 (a malformed member, ENOMEM). */
int pm_history_used(const json_t *verdict, struct pm_history_rec **out, size_t *n);

#endif
