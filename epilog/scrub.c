/*
 * scrub.c - secrets never reach the store: every captured text passes the engine's
 * redactor (engine/redact.h) before the bundle is built, and a text that cannot be redacted
 * is dropped rather than archived as it was.  Checksums, sizes and the offsets in a verdict
 * all refer to the redacted text.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector.h"
#include "redact.h"

uint64_t pm_collection_scrub(struct pm_collection *c)
{
	uint64_t total = 0;

	for (size_t i = 0; i < c->ncaps; i++) {
		struct pm_capture *cap = &c->caps[i];
		struct pm_redact_stats st = {0};
		char *out = NULL;
		size_t outlen = 0;

		if (!cap->name || !cap->len)
			continue;
		if (pm_redact(cap->data, cap->len, &out, &outlen, &st) < 0) {
			snprintf(cap->reason, sizeof(cap->reason),
				 "not archived: the redactor failed (%s)", strerror(errno));
			cap->status = PM_CST_UNREADABLE;
			free(cap->data);
			free(cap->name);
			cap->data = NULL;
			cap->name = NULL;
			cap->len = 0;
			c->cov[cap->src].files--;
			c->cov[cap->src].status = PM_CST_UNREADABLE;
			snprintf(c->cov[cap->src].reason, sizeof(c->cov[cap->src].reason), "%s",
				 cap->reason);
			continue;
		}
		free(cap->data);
		cap->data = out;
		cap->len = outlen;
		cap->redacted = st.total;
		total += st.total;
	}
	return total;
}
