/* evidence.h - evidence-set internals shared by evidence.c, bundle.c, scan.c, attribute.c. */
#ifndef PM_EVIDENCE_H
#define PM_EVIDENCE_H

#include "internal.h"

void pm_obs_free(struct pm_obs *o);
void pm_utf8_clean(char *s);

bool pm_ev_is_node(const struct pm_evidence *ev, const char *name, size_t len);
const char *pm_ev_ip_node(const struct pm_evidence *ev, const char *ip);
struct pm_file *pm_ev_add_file(struct pm_evidence *ev, const char *name);
/* A bundle's collection start on NODE, by NODE's clock (attribute.c keeps the earliest). */
int pm_ev_add_collect(struct pm_evidence *ev, const char *node, double start, double end);

/* Called with line-aligned text (the last line may lack its newline); OFF is the offset of
 * BUF[0] in the decompressed file.  Return -1 to stop. */
typedef int pm_chunk_fn(void *arg, const char *buf, size_t len, uint64_t off);

/* The first CAP decompressed bytes of F. */
int pm_file_head(struct pm_file *f, char *buf, size_t cap, size_t *len);
/* The first CAP decompressed bytes of F after the NUL bytes it starts with (a hole left by a
 * truncation while it was written), or pm_file_head's where it is NULs only. */
int pm_file_head_text(struct pm_file *f, char *buf, size_t cap, size_t *len);
/* Free F's in-memory content (a bundle member) once nothing will read it again: reading it
 * afterwards fails with ESTALE, leaving its status alone. */
void pm_file_release(struct pm_file *f);
/* Stream all of F through FN, computing its digest and noting truncation in its status. */
int pm_file_read(struct pm_file *f, pm_chunk_fn *fn, void *arg);
/* All of F (at most CAP bytes) in one malloc'd buffer. */
int pm_file_slurp(struct pm_file *f, size_t cap, char **out, size_t *len);

/* bundle.c: an unpacked bundle folder, or a .tar.zst bundle file (walk.c's calls). */
int pm_bundle_add_dir(struct pm_evidence *ev, const char *path, const char *rel, char *err,
		      size_t errlen);
int pm_bundle_add_file(struct pm_evidence *ev, const char *path, const char *rel, char *err,
		       size_t errlen);

/* Many bundle files, read and checked on the set's threads (bundle.c, workers.c), each handed
 * in order to TAKE(ARG, I, L) on the caller's thread: TAKE adds it with pm_bundle_finish, or
 * not; the batch frees L afterwards.  PATHS and RELS (the names in the set) outlive the batch;
 * OFLAGS are open(2)'s; MANIFEST and SHA: pm_bundle_finish may ask for them.  0, or -1 when
 * TAKE said so (errno kept) or on ENOMEM. */
struct pm_loaded;
struct pm_bundle_batch {
	size_t n;
	const char *const *paths;
	const char *const *rels;
	int oflags;
	bool manifest, sha;
	bool brief; /* the manifest's brief instead of its tree (pm_evidence_add_bundles_brief) */
	int (*take)(void *arg, size_t i, struct pm_loaded *l);
	void *arg;
};
int pm_bundle_batch(struct pm_evidence *ev, const struct pm_bundle_batch *b);
/* Add L to EV as pm_evidence_add_bundle does (L's file read). */
int pm_bundle_finish(struct pm_evidence *ev, struct pm_loaded *l, json_t **manifest, char *sha,
		     uint64_t *bytes, char *err, size_t errlen);

/* Whether the manifest TEXT (LEN bytes) is read by the bundle reader's own reader (the
 * collector's form: bundle.c, struct mf) rather than through jansson's tree (for the tests). */
bool pm_bundle_manifest_fast(const char *text, size_t len);
/* A manifest's time (observed_time, boot_time) as the bundle's reader reads it; 0 none. */
double pm_bundle_time(const char *s);
/* A manifest entry's STATUS and REASON on F, as the bundle's reader sets them.  0, or -1 on
 * ENOMEM. */
int pm_bundle_member_status(struct pm_file *f, const char *status, const char *reason);

/* F's bytes, held back in its bundle's compressed bytes, into F->mem (pm_file_head, _read and
 * _slurp do it first); 0, or -1 with F's status saying why. */
int pm_bundle_member_load(struct pm_file *f);
/* F's hold on its bundle's bytes given up: F released or freed before it was read. */
void pm_bundle_member_drop(struct pm_file *f);

/* scan.c */
int pm_scan_all(struct pm_evidence *ev);
/* The format of F, a file whose source its bundle's manifest gives (its head read when the
 * source has formats to tell apart); sets F->sniffed.  True: F's source is one whose files are
 * scanned as text, not parsed (a bundle may hold such a member back until it is scanned). */
void pm_sniff_given(struct pm_file *f);
bool pm_source_scanned(enum pm_source src);
/* F's paste shape, as told from its head when its format was (input.h, struct pm_paste): what
 * every reader of F's lines takes off each line before reading it. */
struct pm_paste;
void pm_file_paste(const struct pm_file *f, struct pm_paste *out);
/* Observation O's summary: its rule's, filled from what O holds, into BUF (512 bytes);
 * BUF.  Made when asked, for the few observations a verdict shows (placement, which may
 * change O's node, is done by then). */
#define PM_OBS_SUMMARY_MAX 512
const char *pm_obs_summary(const struct pm_evidence *ev, const struct pm_obs *o,
			   char buf[PM_OBS_SUMMARY_MAX]);
/* attribute.c */
json_t *pm_attribute(struct pm_evidence *ev);

#endif
