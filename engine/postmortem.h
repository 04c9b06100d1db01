/*
 * postmortem.h - libpostmortem, the engine: evidence in, verdict out.
 *
 * The engine is pure: no Slurm calls, no network, no logging, no global state.  The epilog
 * collector, the store and the CLI use the engine through this header and redact.h (the
 * secret redactor) only; the engine's other headers are its own.  The first half is the
 * diagnosis (rule sets, evidence sets, verdicts); the second the reading services the
 * collector and the store share with it (format and source names, sniffing, time stamps,
 * Slurm's log lines and host lists, digests, bounded decompression), so that every part
 * reads evidence exactly as the engine does.
 *
 * Ownership: every object is created and destroyed by the caller with the functions below;
 * destroy functions accept NULL.  Strings passed in are copied.  A verdict is a jansson
 * object owned by the caller (json_decref it).  Functions return 0 or a pointer on success,
 * -1 or NULL on failure with errno set; where an error text buffer (err, errlen) is taken,
 * it is filled with a one-line message naming the file and line at fault.
 */
#ifndef POSTMORTEM_H
#define POSTMORTEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#define PM_VERDICT_SCHEMA "postmortem.verdict/2"
#define PM_VERDICT_SCHEMA_V1 "postmortem.verdict/1"
#define PM_BUNDLE_SCHEMA "postmortem.bundle/1"
#define PM_COMMENT_MAX 250

struct pm_ruleset;
struct pm_evidence;

/*
 * Load every *.yaml file of rule set directory DIR (in byte order of the names), validate
 * it and compile its patterns into one scanning database.
 * Returns the rule set, or NULL with errno (EINVAL for a malformed set, with ERR filled as
 * "FILE:LINE: what is wrong").
 */
struct pm_ruleset *pm_ruleset_load(const char *dir, char *err, size_t errlen);
void pm_ruleset_destroy(struct pm_ruleset *rs);

/* The set's id, version and digest ("sha256:..."); owned by RS. */
const char *pm_ruleset_id(const struct pm_ruleset *rs);
const char *pm_ruleset_version(const struct pm_ruleset *rs);
const char *pm_ruleset_digest(const struct pm_ruleset *rs);
/* Number of rules, and the id of rule I (0 <= I < count); owned by RS. */
size_t pm_ruleset_count(const struct pm_ruleset *rs);
const char *pm_ruleset_rule_id(const struct pm_ruleset *rs, size_t i);
/* Mark in BROAD (COUNT bytes) the rules whose scanning form finds a line of no words
 * (punctuation only): PCRE2 would confirm them on nearly every line (rules check reports
 * them).  0, or -1 when the scan could not run. */
int pm_ruleset_broad(const struct pm_ruleset *rs, unsigned char *broad);
/* Which of Vectorscan's implementations scans, and why, in one line (hsrun.c): some of the
 * library's implementations miss matches on some CPUs, and one that does not is chosen. */
const char *pm_scan_runtime(void);
/* How many of the set's rules with a pattern have it as machine code (PCRE2's JIT, rules.c),
 * and in *N how many rules have a pattern: fewer than *N where the library has no JIT, the
 * system refuses executable memory, or under valgrind (each is then interpreted, slower). */
size_t pm_ruleset_jitted(const struct pm_ruleset *rs, size_t *n);
/* The set's clock skew tolerance in seconds (its tuning skew_tolerance_ms / 1000): events on
 * two nodes closer than this cannot be ordered. */
double pm_ruleset_skew_s(const struct pm_ruleset *rs);

/* Counts from a run over a rule set's fixtures. */
struct pm_fixture_result {
	unsigned cases, passed, failed, errors;
	unsigned rules_uncovered;
};

/*
 * Run every known-answer case under FIXDIR (rules/README.md, "Fixtures": one folder per case
 * holding expected.json and evidence/) with RS; write a line per case and a readable diff
 * per failure to OUT.  ONLY, when not NULL, restricts the run to the case of that name.
 * VERDICTS, when not NULL, is a folder that receives each case's verdict as NAME.json, the
 * bytes `diagnose --json` prints, and its inputs as NAME.inputs.json, the bytes of
 * `diagnose --inputs` (a case whose verdict cannot be written is an error).
 * Returns 0, or -1 when FIXDIR cannot be read.
 */
int pm_fixture_run(const struct pm_ruleset *rs, const char *fixdir, const char *only,
		   const char *verdicts, FILE *out, struct pm_fixture_result *res);

/*
 * An evidence set: the files of one job, gathered by hand or by the collector.
 * RS is borrowed and must outlive the set.  Adding a path only records it; pm_diagnose reads
 * every input once, streaming, so that memory stays bounded whatever the size of the input.
 */
struct pm_evidence *pm_evidence_create(const struct pm_ruleset *rs);
void pm_evidence_destroy(struct pm_evidence *ev);

/*
 * Let the merge of EV use up to N threads (at most 8; 1, the default: the caller's alone):
 * bundle files are read and checked, and inputs scanned, on worker threads, and what each
 * gives is added to EV in the same order as with one thread, so the verdict is the same
 * bytes whatever N.  A thread that cannot be started leaves the work to the others.
 */
void pm_evidence_set_threads(struct pm_evidence *ev, unsigned n);

/* The threads this process may use: the CPUs of its affinity mask less those busy with
 * other work (the whole part of the load average), 1 to 8; or the environment's
 * POSTMORTEM_THREADS (1 forces one thread, 2 to 8 that many whatever the load). */
unsigned pm_threads_usable(void);

/*
 * Add PATH: a file, a folder (walked recursively in name order), an evidence bundle
 * (.tar.zst) or an unpacked bundle (a folder holding manifest.json).  Files that cannot be
 * read are recorded in the coverage, not errors.  Returns 0, or -1 with ERR filled when PATH
 * itself cannot be used (does not exist, a malformed bundle).
 */
int pm_evidence_add_path(struct pm_evidence *ev, const char *path, char *err, size_t errlen);

/* How many evidence bundles (files or unpacked folders) the set has read so far. */
int pm_evidence_bundles(const struct pm_evidence *ev);

/* How many of the set's files were not scanned, their bundles carrying their scans
 * (FORMATS.md, "Carried scans"): known once it is diagnosed. */
size_t pm_evidence_carried(const struct pm_evidence *ev);
/* How many of its task files were not parsed, their bundles carrying their records
 * (FORMATS.md, "Carried task files"): known once it is diagnosed. */
size_t pm_evidence_tasks_carried(const struct pm_evidence *ev);

/* The bytes of input the set holds in memory, not read yet (bundle members, buffers): a
 * bundle's members that are scanned as text stay compressed until the scan reads them. */
size_t pm_evidence_held(const struct pm_evidence *ev);

/*
 * Add the evidence bundle file PATH (.tar.zst; not a symbolic link), reading it once.  A
 * bundle that is rejected (-1, errno EINVAL, ERR filled) adds nothing to EV.  MANIFEST, when
 * not NULL, gets the bundle's manifest.json whenever it could be parsed, rejected or not
 * (json_decref it; NULL otherwise).  SHA, when not NULL, gets the SHA-256 of the whole file
 * ("sha256:" and 64 hex digits) and *BYTES (when not NULL) its size, whenever the file could
 * be read to its end; SHA is "" otherwise (and the bundle, when SHA is asked for, refused).
 * The files are named as pm_evidence_add_path names them (the file's base name, then the
 * member's path).  Returns 0 or -1.
 */
int pm_evidence_add_bundle(struct pm_evidence *ev, const char *path, json_t **manifest,
			   char sha[72], uint64_t *bytes, char *err, size_t errlen);

/*
 * Add the N bundle files PATHS as pm_evidence_add_bundle adds each, read on the threads
 * pm_evidence_set_threads allows and added in the order given, so that EV is the same
 * whatever the threads.  After each, on the caller's thread and in order, FN(ARG, I, RC,
 * MANIFEST, SHA, BYTES, ERR) gets what pm_evidence_add_bundle would have given for PATHS[I]
 * (RC 0 or -1 with errno, MANIFEST borrowed for the call (json_incref it to keep it) or NULL,
 * SHA "" or the file's digest,
 * ERR the reason of a refusal); FN returns 0, or -1 to stop.  Returns 0, or -1 when FN
 * stopped it (errno kept) or on ENOMEM.
 */
typedef int pm_bundle_fn(void *arg, size_t i, int rc, json_t *manifest, const char *sha,
			 uint64_t bytes, const char *err);
int pm_evidence_add_bundles(struct pm_evidence *ev, size_t n, const char *const *paths,
			    pm_bundle_fn *fn, void *arg);

/*
 * pm_evidence_add_bundles, with what a finalizer reads of each manifest instead of its
 * jansson tree (which a merge of thousands of bundles need not build): FN gets, where
 * pm_evidence_add_bundles' FN would get a manifest, its brief (borrowed for the call; NULL
 * where it would get NULL): NODE its "node" (NULL when not a string), DEADLINE_HIT whether
 * "collected"'s "deadline_hit" is true, UID the first of "uid", "user_uid" and "job_uid"
 * that is an integer of at least 0 (-1 none).
 */
struct pm_bundle_brief {
	const char *node;
	bool deadline_hit;
	long long uid;
};
typedef int pm_bundle_brief_fn(void *arg, size_t i, int rc, const struct pm_bundle_brief *b,
			       const char *sha, uint64_t bytes, const char *err);
int pm_evidence_add_bundles_brief(struct pm_evidence *ev, size_t n, const char *const *paths,
				  pm_bundle_brief_fn *fn, void *arg);

/*
 * A collector's capture of the job's output, as its bundle's manifest will describe it
 * (bundle_write.c): what pm_scan_carry scans.
 */
struct pm_carry_input {
	const char *path; /* the member's path in the bundle, sources/app_log/NAME */
	const void *data; /* its bytes, exactly as the bundle holds them */
	size_t len;
	const char *node;     /* the manifest's node */
	int rank;	      /* its rank, -1 none */
	const char *observed; /* the manifest's observed_time and boot_time, as written */
	const char *boot;
	const char *status; /* the manifest's status and reason */
	const char *reason;
	double job_start;	  /* the job's start (its year dates stamps that lack one) */
	const char *const *nodes; /* the job's nodes */
	size_t nnodes;
	double deadline;    /* CLOCK_MONOTONIC seconds the scan gives up at; 0 none */
	bool (*stop)(void); /* NULL, or true when the scan is to give up now (a SIGTERM) */
};

/*
 * The scan of IN by RS as a merge's worker thread would make it, as a record for its bundle
 * (FORMATS.md, "Carried scans"): *OUT (free it) and *OUTLEN.  *OUT is NULL where the scan
 * cannot be carried (not a job output scanned as text, or a line whose weak node name the
 * job's nodes do not include: the merge might know it).  0, or -1 on ENOMEM, or with
 * errno ETIMEDOUT when IN's deadline passed or its STOP said so before the scan was done
 * (nothing carried).
 */
int pm_scan_carry(const struct pm_ruleset *rs, const struct pm_carry_input *in, void **out,
		  size_t *outlen);

/*
 * The parsed records of a task file (KIND "rank_map" or "task_exit"; DATA, LEN: its bytes,
 * exactly as the bundle holds them) as a record for its bundle (FORMATS.md, "Carried task
 * files"): *OUT (free it) and *OUTLEN, *OUT NULL where the file is not carried (another
 * kind, not a task file by its head, too large).  0, or -1 on ENOMEM.
 */
int pm_tasks_carry(const char *kind, const void *data, size_t len, void **out, size_t *outlen);

/*
 * A bundle file's bytes (FORMATS.md, "Frames"): the N members PARTS in that order (the
 * manifest first, then the carried scans, then the captures), a tar compressed as zstd frames;
 * a part marked OWN (a capture whose scan is carried) has its data in a frame of its own, which
 * a merge that takes the record passes over.  *OUT (free it), *OUTLEN.  0, or -1 with ERR.
 */
struct pm_bundle_part {
	const char *name;
	const void *data;
	size_t len;
	double mtime;
	bool own;
};
int pm_bundle_pack(const struct pm_bundle_part *parts, size_t n, void **out, size_t *outlen,
		   char *err, size_t errlen);

/*
 * Every bundle member EV reads from now on decompressed and checked against its manifest,
 * also those whose carried scan would stand in for them (a collector's check of the bundle it
 * wrote: pm_bundle_verify).
 */
void pm_evidence_check_all(struct pm_evidence *ev, bool on);

/*
 * Add one in-memory file NAME of LEN bytes (not NUL-terminated).  Its kind is detected from
 * its content unless SOURCE names a source kind ("kernel_log", ...) and NODE a node; either may
 * be NULL.  MTIME is the observation time (seconds since the epoch).  Returns 0 or -1.
 */
int pm_evidence_add_buffer(struct pm_evidence *ev, const char *name, const void *buf, size_t len,
			   const char *source, const char *node, double mtime);

/*
 * Turn the evidence into a verdict (schema postmortem.verdict/2).  A job that cannot be
 * classified gets status "unknown"; this fails only when there is no usable input at all
 * (errno ENODATA) or on memory exhaustion.  The same evidence and rules give the same
 * verdict, whatever order the files were added in.
 */
json_t *pm_diagnose(struct pm_evidence *ev, char *err, size_t errlen);

/*
 * The first part of pm_diagnose alone: EV's inputs scanned, on the threads
 * pm_evidence_set_threads allows.  What is left for pm_diagnose after it (the attribution
 * and the verdict) runs on the caller's thread alone, so a caller with work of its own may
 * start it on another between the two.  Once only (pm_diagnose then does not scan again).
 * 0, or -1 with ERR filled and errno (ENOMEM).
 */
int pm_evidence_scan(struct pm_evidence *ev, char *err, size_t errlen);

/* The verdict as text for a person (LC_ALL=C independent); malloc'd, caller frees. */
char *pm_verdict_text(const json_t *verdict);

/* The one-line job comment (at most PM_COMMENT_MAX bytes); malloc'd, caller frees. */
char *pm_verdict_comment(const json_t *verdict);

/*
 * Give verdict V, read from a store, the shape of version 2 where it is version 1: coverage
 * grouped by source, bystanders as a host list and rank ranges.  Its "schema" is left as it
 * was.  Returns 0.
 */
int pm_verdict_upgrade(json_t *v);

/*
 * Add version-1 coverage ENTRIES (a JSON array of {node, source, file, status, reason},
 * stolen) to VERDICT's coverage, grouped by source.  Returns 0, or -1 on ENOMEM.
 */
int pm_verdict_coverage_add(json_t *verdict, json_t *entries);

/*
 * Every input file of EV after pm_diagnose, one object each, in the order they were added:
 * {node, source, format, file, status, reason} (the verdict's coverage counts those read
 * whole and lists only the others).  NULL on ENOMEM.
 */
json_t *pm_evidence_inputs(const struct pm_evidence *ev);

/* Serialise a verdict: sorted keys, two-space indent, trailing newline; malloc'd. */
char *pm_verdict_dump(const json_t *verdict);

/* Whether verdict class CLS is a hardware class (its origin rules read only trusted
 * sources). */
bool pm_class_hardware(const char *cls);

/* ==== reading services: what the collector and the store read as the engine does ==== */

/* Source kinds (FORMATS.md); the names are part of the output contract. */
enum pm_source {
	PM_SRC_APP_LOG,
	PM_SRC_KERNEL_LOG,
	PM_SRC_GPU_STATE,
	PM_SRC_NODE_METRICS,
	PM_SRC_SCHEDULER,
	PM_SRC_TASK_EXIT,
	PM_SRC_RANK_MAP,
	PM_SRC__COUNT
};

/* Detected file formats; see FORMATS.md. */
enum pm_format {
	PM_FMT_APP,
	PM_FMT_TORCHRUN,
	PM_FMT_PYSPY,
	PM_FMT_DMESG,
	PM_FMT_KMSG_ISO,
	PM_FMT_SYSLOG,
	PM_FMT_NVSMI_Q,
	PM_FMT_NVSMI_CSV,
	PM_FMT_SACCT_P,
	PM_FMT_SACCT_TABLE,
	PM_FMT_SCONTROL_JOB,
	PM_FMT_SLURMD_LOG,
	PM_FMT_SLURMCTLD_LOG,
	PM_FMT_RANK_MAP,
	PM_FMT_TASK_EXIT,
	PM_FMT_MEMINFO,
	PM_FMT_PROMETHEUS,
	PM_FMT_BINARY,
	PM_FMT_EMPTY,
	PM_FMT_NVSMI_TABLE,
	PM_FMT__COUNT
};

/* Coverage statuses; names are the output contract. */
enum pm_status {
	PM_ST_OK,
	PM_ST_MISSING,
	PM_ST_EMPTY,
	PM_ST_TRUNCATED,
	PM_ST_TIMED_OUT,
	PM_ST_DENIED,
	PM_ST_LAGGING,
	PM_ST_BINARY,
	PM_ST_UNREADABLE,
	PM_ST__COUNT
};

const char *pm_source_name(enum pm_source s);
int pm_source_parse(const char *name, enum pm_source *out); /* 0 or -1 */
int pm_format_parse(const char *name, enum pm_format *out); /* 0 or -1 */
const char *pm_format_name(enum pm_format f);
enum pm_source pm_format_source(enum pm_format f);
bool pm_source_trusted(enum pm_source s); /* false only for app_log */
const char *pm_status_name(enum pm_status s);

/* Detect the format of a file from its first LEN bytes (LEN may be short). */
enum pm_format pm_sniff(const char *buf, size_t len);

/* Time context of a file: what a stamp without a year or with a monotonic clock needs. */
struct pm_timectx {
	int year;	  /* for syslog stamps; from the file's mtime */
	double boot_time; /* epoch seconds at boot; 0 = unknown */
};

/*
 * Find the event time stamped on LINE (the whole raw line, prefixes included).
 * Returns 1 and sets *T (epoch seconds, UTC unless the stamp has an offset), 0 when the line
 * has no trustworthy stamp.
 */
int pm_time_parse(const char *line, size_t len, const struct pm_timectx *ctx, double *t);

/* Format epoch seconds as "2026-11-30T03:11:58.002Z" into BUF (at least 32 bytes). */
void pm_time_format(double t, char *buf, size_t len);

/* Numbers that a line carrying a rank or node in a file name gives; -1/NULL when absent. */
int pm_path_rank(const char *path);

/* A line of slurmd's, slurmstepd's or slurmctld's log, as linetrust.c reads it (the
 * collector keeps a job's lines with it).  False when it has no "[stamp] " of slurm's. */
struct pm_slurm_line {
	double t;	 /* its stamp */
	const char *job; /* its own job field ("[25.batch]", "JobId=25"), NULL none */
	size_t job_len;
	size_t text;	       /* where slurm's message begins */
	size_t user, user_end; /* the text a user chose; user = the length when none */
	bool open; /* a path whose closing strerror text is not on this line: the lines up to
		    * the one that ends with it (pm_slurm_line_closes) are the user's */
};
bool pm_slurm_line(const char *line, size_t len, struct pm_slurm_line *out);
bool pm_slurm_line_closes(const char *line, size_t len);
/* Whether a job field ("25", "25_3", "25_3(27)") names job ID. */
bool pm_slurm_job_match(const char *field, size_t len, const char *id);

/* Expand a Slurm hostlist ("gpu[016-017,020],login1") into sorted unique names. */
int pm_hostlist_expand(const char *list, size_t len, char ***names, size_t *n);
/* The other way: N names (any order, duplicates allowed) as one hostlist that expands to
 * exactly them ("gpu[0001-0004,0007],login1"); "" for none.  Malloc'd; NULL on ENOMEM. */
char *pm_hostlist_compress(const char *const *names, size_t n);

/* ---- digests (sha256.c): SHA-256 for evidence and rule set digests, through OpenSSL's
 * libcrypto (which uses the CPU's SHA extensions: digests are on the scanning path) ---- */

struct pm_sha256 {
	void *ctx; /* EVP_MD_CTX; NULL after a failed init: updates are ignored */
};

void pm_sha256_init(struct pm_sha256 *c);
void pm_sha256_update(struct pm_sha256 *c, const void *data, size_t len);
/* Writes the digest (all zero if the context could not be created) and frees the context. */
void pm_sha256_final(struct pm_sha256 *c, unsigned char out[32]);
/* "sha256:" followed by 64 lower-case hex digits, into OUT (at least 72 bytes). */
void pm_sha256_hex(const unsigned char d[32], char *out);
/* The SHA-256 of LEN bytes at BUF, written as pm_sha256_hex writes it, into OUT. */
void pm_sha256_buf(const void *buf, size_t len, char *out);
/*
 * The SHA-256 of the file PATH (opened without following a symbolic link), written as
 * pm_sha256_hex writes it, into OUT, and its size into *BYTES when BYTES is not NULL.
 * 0, or -1 with errno when it cannot be opened or read (OUT and *BYTES untouched).
 */
int pm_sha256_file(const char *path, char *out, uint64_t *bytes);

/* ---- bounded reading of possibly compressed text (evidence.c, sniff.c) ---- */

/* The most bytes of text read from one input after decompression: POSTMORTEM_INPUT_MAX
 * (a size: 512M, 2GiB; at least 1 MiB), 1 GiB when unset or not a size.  Past it an input
 * is cut and marked truncated, with the reason (FORMATS.md, "Input size"). */
uint64_t pm_input_max(void);

/* Handed the text of pm_text_stream in pieces; return -1 to stop. */
typedef int pm_text_fn(void *arg, const char *buf, size_t len);

/*
 * Read the open file FD (plain, gzip or zstd: told by its first bytes, as every input is)
 * to its end, handing FN its text after decompression in pieces, at most MAX bytes in all
 * (0: pm_input_max()).  Returns 0 with WHY "" when all of it was read, or WHY saying why
 * not (cut at MAX, corrupt or truncated data); -1 with errno when FN stopped it or memory
 * ran out.  FD is left open.
 */
int pm_text_stream(int fd, uint64_t max, pm_text_fn *fn, void *arg, char *why, size_t whylen);

/* sniff.c: the compressed or archive format BUF (LEN bytes) starts with ("gzip", "zstd",
 * "xz", "bzip2", "zip", ...), static; NULL when it starts with none of them. */
const char *pm_packed_format(const void *buf, size_t len);

#endif /* POSTMORTEM_H */
