/*
 * scrub.c - secrets never reach the store: every captured text passes the engine's
 * redactor (engine/redact.h) before the bundle is built, and a text that cannot be redacted
 * is dropped rather than archived as it was.  Checksums, sizes and the offsets in a verdict
 * all refer to the redacted text.
 *
 * The redactor reads text.  gzip and zstd files reach it as their text (the reader child
 * decompresses them, userfile.c); any capture that still starts as a compressed or archive
 * format (xz, bzip2, zip, a .gz inside a .gz) would pass it unread, so it is not archived.
 * Nor is UTF-16 or UTF-32 text (a log a Windows tool or PowerShell wrote, a program's wide
 * characters dumped as they are): the redactor's triggers are ASCII, and the NULs between
 * each two characters hide every one of them.  Refused rather than
 * decoded, redacted and encoded again: the engine reads ASCII-compatible text, so such a
 * file would show it nothing to diagnose either, and a second decoder in front of the
 * redactor, whose every byte must come back, is one more place for a secret to slip through.
 */
#include <errno.h>
#include <stdbool.h>
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

static bool ascii_text(unsigned char c)
{
	return c == '\t' || c == '\n' || c == '\r' || (c >= 0x20 && c < 0x7f);
}

/*
 * Is BUF (LEN bytes) UTF-16 or UTF-32 text, whole or in part?  A byte order mark at its
 * start, or anywhere 8 code units in a row of ASCII text (printable, tab, CR, LF) each
 * beside a NUL byte (UTF-16) or three (UTF-32), in either byte order: a file cut head and
 * tail, or appended to by another tool, need not start with its mark nor on a unit's first
 * byte.  Text in ASCII or UTF-8 holds no NUL.  Its name, or NULL.
 */
static const char *wide_text(const unsigned char *b, size_t len)
{
	size_t run[2][2] = {{0, 0}, {0, 0}}; /* [little, big endian][parity of the unit's start] */
	size_t run4[2][4] = {{0}};	     /* UTF-32: [little, big][the unit's start mod 4] */

	if (len >= 4 && ((b[0] == 0xff && b[1] == 0xfe && !b[2] && !b[3]) ||
			 (!b[0] && !b[1] && b[2] == 0xfe && b[3] == 0xff)))
		return "UTF-32 text";
	if (len >= 2 && ((b[0] == 0xff && b[1] == 0xfe) || (b[0] == 0xfe && b[1] == 0xff)))
		return "UTF-16 text";
	for (size_t i = 0; i + 1 < len; i++) {
		bool a0 = ascii_text(b[i]), a1 = ascii_text(b[i + 1]);

		run[0][i & 1] = a0 && !b[i + 1] ? run[0][i & 1] + 1 : 0;
		run[1][i & 1] = !b[i] && a1 ? run[1][i & 1] + 1 : 0;
		if (run[0][i & 1] >= 8 || run[1][i & 1] >= 8)
			return "UTF-16 text";
		if (i + 3 < len) {
			/* a NUL between each two characters but two more after it: UTF-32,
			 * whose units the UTF-16 runs above never count 8 of */
			bool z = !b[i + 1] && !b[i + 2];

			run4[0][i & 3] = z && a0 && !b[i + 3] ? run4[0][i & 3] + 1 : 0;
			run4[1][i & 3] = z && !b[i] && ascii_text(b[i + 3]) ? run4[1][i & 3] + 1 :
									      0;
			if (run4[0][i & 3] >= 8 || run4[1][i & 3] >= 8)
				return "UTF-32 text";
		}
	}
	return NULL;
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
		if ((packed = wide_text((const unsigned char *)cap->data, cap->len))) {
			snprintf(cap->reason, sizeof(cap->reason),
				 "%.200s: %s, which the collector cannot redact: not archived",
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
