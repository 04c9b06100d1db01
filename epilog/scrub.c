/*
 * scrub.c - secrets never reach the store: every captured text passes the engine's
 * redactor (engine/redact.h) before the bundle is built, and a text that cannot be redacted
 * is dropped rather than archived as it was.  Checksums, sizes and the offsets in a verdict
 * all refer to the redacted text.
 *
 * The redactor reads text.  gzip and zstd files reach it as their text (the reader child
 * decompresses them, userfile.c); any capture that still starts as a compressed or archive
 * format (xz, bzip2, zip, a .gz inside a .gz) would pass it unread, so it is not archived.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector.h"
#include "postmortem.h"
#include "redact.h"

/* CAP's bytes are not archived: it keeps ST and its reason, and so does its source's
 * coverage unless that already says something worse. */
static void drop(struct pm_collection *c, struct pm_capture *cap, enum pm_status st)
{
	struct pm_coverage *cv = &c->cov[cap->src];

	cap->status = st;
	free(cap->data);
	free(cap->name);
	cap->data = NULL;
	cap->name = NULL;
	cap->len = 0;
	if (cv->files)
		cv->files--;
	if (pm_status_severity(st) >= pm_status_severity(cv->status)) {
		cv->status = st;
		snprintf(cv->reason, sizeof(cv->reason), "%s", cap->reason);
	}
}

/* A member named for its compression ("0-train.log.gz") holds text now: drop the suffix,
 * unless another member of its source has that name. */
static void name_text(struct pm_collection *c, struct pm_capture *cap)
{
	static const char *const sufs[] = {".gz", ".gzip", ".zst", ".zstd", NULL};
	size_t n = strlen(cap->name);

	for (const char *const *s = sufs; *s; s++) {
		size_t m = strlen(*s);

		if (n <= m + 1 || strcmp(cap->name + n - m, *s))
			continue;
		for (size_t i = 0; i < c->ncaps; i++)
			if (c->caps[i].src == cap->src && c->caps[i].name &&
			    strlen(c->caps[i].name) == n - m &&
			    !strncmp(c->caps[i].name, cap->name, n - m))
				return;
		cap->name[n - m] = 0;
		return;
	}
}

uint64_t pm_collection_scrub(struct pm_collection *c)
{
	uint64_t total = 0;

	for (size_t i = 0; i < c->ncaps; i++) {
		struct pm_capture *cap = &c->caps[i];
		struct pm_redact_stats st = {0};
		const char *packed;
		char *out = NULL;
		size_t outlen = 0;

		if (!cap->name || !cap->len)
			continue;
		if ((packed = pm_packed_format(cap->data, cap->len))) {
			snprintf(cap->reason, sizeof(cap->reason),
				 "%.200s: %s data, which the collector cannot redact: not archived",
				 cap->origin ? cap->origin : cap->name, packed);
			drop(c, cap, PM_ST_DENIED);
			continue;
		}
		if (pm_redact(cap->data, cap->len, &out, &outlen, &st) < 0) {
			snprintf(cap->reason, sizeof(cap->reason),
				 "not archived: the redactor failed (%s)", strerror(errno));
			drop(c, cap, PM_ST_UNREADABLE);
			continue;
		}
		free(cap->data);
		cap->data = out;
		cap->len = outlen;
		cap->redacted = st.total;
		total += st.total;
		name_text(c, cap);
	}
	return total;
}
