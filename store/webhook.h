/*
 * webhook.h - the webhook sink (epilog/README.md, "Webhooks"): a job run's verdict (and,
 * where asked, its manifest) POSTed to the configured URLs after the finalizer writes it.
 * Not installed.
 *
 * Each URL gets bounded attempts with a doubling delay, each attempt bounded by its timeout
 * and all of them by the caller's deadline, which is shared out between the URLs so that
 * one silent server cannot starve the others.  What was not delivered is recorded in
 * <jobdir>/webhook.pending (written before the first attempt, so that a collector killed at
 * its deadline leaves the work behind) and retried by `postmortem finalize [--pending]`
 * until PM_WEBHOOK_GIVE_UP has passed, when it moves to webhook.failed.  The files hold the
 * URL's scheme, host and port, a digest of the whole URL, attempt counts and the last error:
 * never a token, a path or a query (a webhook's path often is its secret).
 */
#ifndef PM_WEBHOOK_H
#define PM_WEBHOOK_H

#include <stddef.h>

#include "pmconfig.h"

#define PM_WEBHOOK_PENDING_FILE "webhook.pending"
#define PM_WEBHOOK_FAILED_FILE "webhook.failed"
#define PM_WEBHOOK_GIVE_UP (24 * 3600.0) /* seconds after the first attempt */
#define PM_WEBHOOK_FIRST_DELAY 0.5	 /* seconds before the first retry; doubles */

enum pm_webhook_state {
	PM_WEBHOOK_NONE,    /* no webhook configured, or nothing pending */
	PM_WEBHOOK_SENT,    /* every URL took it */
	PM_WEBHOOK_PENDING, /* some URL did not: webhook.pending lists it */
};

/*
 * POST JOBDIR/verdict.json to every webhook of CFG, none past DEADLINE (monotonic seconds).
 * Returns the state reached; WHY (may be NULL) says what is pending and why.
 */
enum pm_webhook_state pm_webhook_post(const struct pm_config *cfg, const char *jobdir,
				      double deadline, char *why, size_t whylen);

/*
 * Retry the deliveries JOBDIR/webhook.pending lists (with the current verdict), within
 * DEADLINE.  An entry whose URL is no longer configured, or older than PM_WEBHOOK_GIVE_UP,
 * moves to webhook.failed.  Returns the state reached (NONE when nothing was pending).
 */
enum pm_webhook_state pm_webhook_retry(const struct pm_config *cfg, const char *jobdir,
				       double deadline, char *why, size_t whylen);

/* The digest that names URL in webhook.pending: 16 hex digits into ID (at least 17 bytes). */
void pm_webhook_id(const char *url, char *id);

#endif
