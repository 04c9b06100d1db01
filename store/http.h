/*
 * http.h - what the Prometheus source (prom.c) and the webhook sink (webhook.c) share over
 * libcurl: one bounded request, the bearer token file, and URLs made safe to show.  Not
 * installed.
 *
 * Every request is bounded in time (the whole transfer, connection included) and in size
 * (the answer is cut at a cap and the transfer stopped), verifies TLS peers and host names
 * (a CA file may be given; verification cannot be turned off), speaks http and https only
 * and follows no redirect, so that a bearer token is only ever sent to the host it was
 * configured for.  A token is never logged, printed in a reason, or written anywhere.
 */
#ifndef PM_HTTP_H
#define PM_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#define PM_HTTP_TOKEN_MAX 4096 /* bytes in a bearer token file */

enum pm_http_result {
	PM_HTTP_OK,	     /* a 2xx answer */
	PM_HTTP_STATUS,	     /* the server answered with another status */
	PM_HTTP_TIMEOUT,     /* no (complete) answer in time, or no time left to ask */
	PM_HTTP_UNREACHABLE, /* name not resolved, connection refused or reset */
	PM_HTTP_TOOBIG,	     /* the answer was larger than the cap */
	PM_HTTP_TLS,	     /* certificate or TLS handshake refused */
	PM_HTTP_ERROR,	     /* anything else (out of memory, a bad URL, ...) */
};

struct pm_http_req {
	const char *url;
	const char *token;   /* bearer token; NULL: no Authorization header */
	const char *ca_file; /* NULL: the system's CA store */
	const char *body;    /* POST this (application/json) when non-NULL, else GET */
	size_t body_len;
	const char *const *headers; /* more "Name: value" lines, NULL-terminated; may be NULL */
	double timeout;		    /* seconds for the whole request; <= 0: not attempted */
	size_t cap;		    /* bytes of the answer kept at most */
};

struct pm_http_resp {
	enum pm_http_result result;
	long status;   /* the HTTP status, 0 when none came */
	char *body;    /* the answer, NUL-terminated (malloc'd; free it), NULL when none */
	size_t len;    /* its length */
	double took;   /* seconds */
	char why[256]; /* one line saying what went wrong; "" when OK */
};

/*
 * Send RQ and fill RS (free RS->body).  HANDLE is a CURL easy handle to reuse (connections
 * are kept between requests to one server) or NULL for a handle of its own.  Returns 0 when
 * the request was made and answered (RS->result OK or STATUS), -1 otherwise (RS->result and
 * RS->why say why).
 */
int pm_http_do(void *handle, const struct pm_http_req *rq, struct pm_http_resp *rs);

/* A reusable handle for pm_http_do (NULL on ENOMEM), and its release (NULL is fine). */
void *pm_http_handle(void);
void pm_http_handle_free(void *handle);

/*
 * Read a bearer token from PATH: a regular file (not a link) owned by this process's
 * effective user with no group or other permission bits (0600 or 0400), at most
 * PM_HTTP_TOKEN_MAX bytes, its first line taken.  Returns the token (free it with
 * pm_http_token_free), or NULL with errno (EPERM: the file's mode or owner is refused) and
 * WHY filled with a reason that never holds the token.
 */
char *pm_http_token(const char *path, char *why, size_t whylen);

/* Wipe and free a token (NULL is fine). */
void pm_http_token_free(char *token);

/*
 * URL as it may be shown in reasons, logs and the evidence: scheme://host[:port] only (user
 * info, path and query dropped: a webhook's path or query often is its secret).
 */
void pm_http_display(const char *url, char *buf, size_t len);

#endif
