/*
 * store.h - what the responder verbs (replay, ledger, drill, expire, report) share: reading a
 * job run back from the evidence store and re-diagnosing it, comparing two verdicts, the
 * incident timeline, times, and the decision ledger's hash chain.
 *
 * Layout of the store: epilog/README.md.  Nothing here writes a job run; only the ledger
 * functions write (the ledger file and its head).  Ownership: json_t values returned are the
 * caller's (json_decref); strings returned are malloc'd.  Functions taking (err, errlen) fill
 * it with one line on failure and return -1 or NULL with errno set.
 */
#ifndef PM_CLI_STORE_H
#define PM_CLI_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#include "postmortem.h"

/* ---- times ---- */

/*
 * Parse S, "YYYY-MM-DD" or "YYYY-MM-DDTHH:MM[:SS[.fff]]" with "Z", "+HH:MM", "-HH:MM" or no
 * zone (UTC), into epoch seconds.  0, or -1 (EINVAL) when S is anything else.
 */
int cli_time_parse(const char *s, double *out);

/* ---- progress on a terminal ---- */

/* A progress line on stderr for long-running verbs, only when stderr is a terminal: never in
 * pipes, files or logs.  Redrawn in place (\r), at most every CLI_PROGRESS_EVERY seconds
 * (the first at once), and erased before any other output and at the end. */
#define CLI_PROGRESS_EVERY 0.2
struct cli_progress {
	bool on;     /* stderr is a terminal */
	bool shown;  /* a line is on the screen */
	double last; /* monotonic time of the last redraw; 0 none yet */
};

/* ON: isatty(STDERR_FILENO). */
void cli_progress_init(struct cli_progress *p);
/* Redraw the line with FMT unless one was drawn less than CLI_PROGRESS_EVERY ago. */
void cli_progress(struct cli_progress *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Erase the line (before other output, and at the end). */
void cli_progress_clear(struct cli_progress *p);

/* ---- files ---- */

/* Read PATH whole, NUL-terminated, at most MAX bytes (EFBIG beyond).  0 or -1 with errno. */
int cli_read_file(const char *path, size_t max, char **buf, size_t *len);

/* ---- re-diagnosing a job run ---- */

/* What went into a re-diagnosis. */
struct cli_inputs {
	size_t bundles;	 /* nodes/ *.tar.zst found */
	size_t added;	 /* of which the engine took */
	size_t rejected; /* of which the engine refused (listed in NOTES) */
	size_t lagging;	 /* of which arrived after the cut-off (listed in NOTES) */
	bool sched;	 /* sacct.txt added */
	json_t *notes;	 /* array of {"file", "node", "status", "reason"}; caller decrefs */
};

/*
 * Add JOBDIR's inputs to EV (made with rule set RS) exactly as the finalizer's merge does: every nodes/ *.tar.zst in
 * name order (a bundle the engine rejects is tried alone first and left out), then the Slurm
 * record the finalizer saved (sacct.txt, source "scheduler").  With CUTOFF > 0 (epoch seconds),
 * a bundle whose file was written after CUTOFF is lagging: its files are left out and each of
 * its sources is recorded in the coverage as "lagging" with the time it arrived, which is all
 * that was known at the cut-off.  IN is filled (IN->notes must be json_decref'd).  0 or -1.
 */
int cli_job_inputs(const char *jobdir, const struct pm_ruleset *rs, struct pm_evidence *ev,
		   double cutoff, struct cli_inputs *in, char *err, size_t errlen);

/* cli_job_inputs into a fresh evidence set under RS, then pm_diagnose.  NULL with ERR. */
json_t *cli_job_rediagnose(const char *jobdir, const struct pm_ruleset *rs, double cutoff,
			   struct cli_inputs *in, char *err, size_t errlen);

/* ---- comparing verdicts ---- */

/* How certain a verdict is: its confidence (established 3, supported 2, hypothesis 1, none 0)
 * and its status (attributed 3, ambiguous 2, unknown 1, none 0). */
int cli_confidence_rank(const json_t *verdict);
int cli_status_rank(const json_t *verdict);

/*
 * What changed between verdicts OLD and NEW: {"changed": bool, "fields": [{"field", "old",
 * "new"}] over outcome, status, confidence, class (class/subclass) and origin (nodes:ranks),
 * "rules": {"appeared": [...], "disappeared": [...], "changed": [...]} (each {"rule", "role",
 * "class", "subclass", "nodes"}, "changed" with "old" and "new"), "not_in_set": rule ids of
 * OLD's evidence that the rule set RS (may be NULL) no longer has, "inputs_differ": the
 * input digests differ, "explained": whether a rule or an input difference accounts for a
 * changed conclusion, "why": one line}.  NULL on ENOMEM.
 */
json_t *cli_verdict_changes(const json_t *old, const json_t *new, const struct pm_ruleset *rs);

/* "class/subclass", "nodes:ranks" of a verdict into BUF; "-" when null. */
void cli_verdict_cause(const json_t *v, char *buf, size_t len);
void cli_verdict_origin(const json_t *v, char *buf, size_t len);

/* ---- the timeline ---- */

/*
 * The verdict's evidence in time order (by event time; undated ones last, in evidence
 * order): an array of N borrowed pointers into VERDICT, malloc'd (free it).  NULL when there
 * is no evidence (*N 0) or on ENOMEM.
 */
const json_t **cli_timeline(const json_t *verdict, size_t *n);
/* Print the timeline for a person, at most MAX lines (0: all). */
void cli_timeline_print(FILE *f, const json_t *verdict, size_t max);

/* The rule set's skew tolerance (tuning: skew_tolerance_ms), in milliseconds. */
double cli_ruleset_skew_ms(const struct pm_ruleset *rs);

/*
 * The incident timeline of VERDICT as data: {"schema": "postmortem.timeline/1", "job",
 * "ruleset" (the verdict's), "skew_tolerance_ms" (SKEW_MS, null when < 0),
 * "skew_from_verdict_rules" (RULES_MATCH: the rule set that gave SKEW_MS is the one that made
 * the verdict), "events": [...]} with the events in time order (undated last), each {"id",
 * "event_time", "observed_time", "observed_after_s" (observation minus event time, null when
 * either is unknown), "within_skew_of" (the id of the latest earlier event on another node
 * less than the skew tolerance before it: their order is not known; null when none), "node",
 * "rank", "gpu", "source", "trusted", "role", "rule", "class", "subclass", "line"}.  NULL on
 * ENOMEM.
 */
json_t *cli_timeline_json(const json_t *verdict, double skew_ms, bool rules_match);

/* ---- the decision ledger (<store>/ledger.jsonl) ---- */

#define CLI_LEDGER_SCHEMA "postmortem.ledger/1"
#define CLI_LEDGER_GENESIS "sha256:0000000000000000000000000000000000000000000000000000000000000000"

/*
 * Append ENTRY (an object holding the caller's fields: job, actor, kind, action, ...) to the
 * ledger LEDGER under an exclusive lock: seq, time (NOW, epoch seconds), prev (the previous
 * line's sha256) and hash (sha256 of the entry without "hash") are added; the line is written
 * with sorted keys, compact, and fsync'd.  The new head is sent to syslog and, when HEAD is
 * not NULL and can be written, to the file HEAD ("seq=N sha256=... time=..."; *HEAD_WRITTEN
 * says whether it was).  Refuses (EBADMSG) to append to a ledger whose last line does not
 * verify.  ENTRY gets the added fields.  0 or -1.
 */
int cli_ledger_append(const char *ledger, const char *head, json_t *entry, double now,
		      bool *head_written, char *err, size_t errlen);

/* The sha256 of one ledger line (without its newline) as "sha256:<hex>" into OUT. */
void cli_ledger_line_hash(const char *line, size_t len, char *out);

/* Read every entry of LEDGER into an array (NULL with ERR when it cannot be read or parsed;
 * an absent ledger is an empty array). */
json_t *cli_ledger_load(const char *ledger, char *err, size_t errlen);

enum cli_ledger_fault {
	CLI_LEDGER_OK,
	CLI_LEDGER_EDITED,    /* an entry's hash does not match its content */
	CLI_LEDGER_BROKEN,    /* an entry's prev does not match the line before it (removed) */
	CLI_LEDGER_SEQ,	      /* seq numbers skip or repeat */
	CLI_LEDGER_GARBAGE,   /* a line that is not a ledger entry */
	CLI_LEDGER_HEAD,      /* the recorded head does not match the chain (rewritten) */
	CLI_LEDGER_TRUNCATED, /* the recorded head is beyond the chain's end (entries removed) */
};

struct cli_ledger_check {
	size_t entries;
	long long head_seq;  /* from the head file, -1 none */
	long long log_heads; /* syslog head lines checked (with a log), 0 none */
	long long log_max;   /* the highest seq seen in the log, -1 none */
	size_t faults;
	json_t *problems; /* array of {"seq", "line", "fault", "what"}; caller decrefs */
	json_t *notes;	  /* array of strings: what could not be checked, and why */
};

/*
 * Recompute LEDGER's chain: every line canonical, its hash matching, prev linking to the
 * line before, seq counting up from 1.  Then compare with the head file HEAD (NULL or absent:
 * skipped, noted) and with LOG (a copy of syslog, e.g. `journalctl -t postmortem-ledger`;
 * NULL: skipped), whose "postmortem-ledger head seq=N sha256=X" lines must each match the
 * chain at N.  Returns 0 when the chain and every recorded head agree, 1 when not (RES says
 * where), -1 when LEDGER cannot be read.
 */
int cli_ledger_verify(const char *ledger, const char *head, const char *log,
		      struct cli_ledger_check *res, char *err, size_t errlen);

const char *cli_ledger_fault_name(enum cli_ledger_fault f);

/* Record LEDGER's current head (its last entry, which must verify) in the head file HEAD:
 * root only (EPERM otherwise).  *SEQ gets the head's seq.  0 or -1 with ERR. */
int cli_ledger_seal(const char *ledger, const char *head, long long *seq, char *err, size_t errlen);

#endif
