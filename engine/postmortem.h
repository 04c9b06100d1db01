/*
 * postmortem.h - libpostmortem, the engine: evidence in, verdict out.
 *
 * The engine is pure: no Slurm calls, no network, no logging, no global state.  The SPANK
 * plugin, the epilog collector and the CLI are thin users of this header.
 *
 * Ownership: every object is created and destroyed by the caller with the functions below;
 * destroy functions accept NULL.  Strings passed in are copied.  A verdict is a jansson
 * object owned by the caller (json_decref it).  Functions return 0 or a pointer on success,
 * -1 or NULL on failure with errno set; where an error text buffer (err, errlen) is taken,
 * it is filled with a one-line message naming the file and line at fault.
 */
#ifndef POSTMORTEM_H
#define POSTMORTEM_H

#include <stddef.h>
#include <stdint.h>
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

/*
 * An evidence set: the files of one job, gathered by hand or by the collector.
 * RS is borrowed and must outlive the set.  Adding a path only records it; pm_diagnose reads
 * every input once, streaming, so that memory stays bounded whatever the size of the input.
 */
struct pm_evidence *pm_evidence_create(const struct pm_ruleset *rs);
void pm_evidence_destroy(struct pm_evidence *ev);

/*
 * Add PATH: a file, a folder (walked recursively in name order), an evidence bundle
 * (.tar.zst) or an unpacked bundle (a folder holding manifest.json).  Files that cannot be
 * read are recorded in the coverage, not errors.  Returns 0, or -1 with ERR filled when PATH
 * itself cannot be used (does not exist, a malformed bundle).
 */
int pm_evidence_add_path(struct pm_evidence *ev, const char *path, char *err, size_t errlen);

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

#endif /* POSTMORTEM_H */
