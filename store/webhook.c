/*
 * webhook.c - the webhook sink (webhook.h).
 *
 * webhook.pending, one line per URL still owed the verdict (tab-separated):
 *   # postmortem.webhook-pending/1
 *   <id> <scheme://host:port> <attempts> <first attempt, epoch s> <verdict sha256> <last error>
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "finalize_int.h"
#include "http.h"
#include "webhook.h"
#include "postmortem.h"

#define HEADER "# postmortem.webhook-pending/1\n"
#define MAX_BODY (64u << 20)
#define ANSWER_CAP (64u << 10) /* what a receiver answers is not read further */
#define MIN_TRY 0.2	       /* seconds an attempt needs to be worth starting */
#define MAX_ENTRIES 64

struct entry {
	char id[17];
	char shown[200];
	unsigned attempts;
	double first;
	char sha[80];
	char err[300];
	bool done;  /* delivered, or moved to webhook.failed */
	bool known; /* read from the file */
};

struct pending {
	struct entry e[MAX_ENTRIES];
	size_t n;
};

void pm_webhook_id(const char *url, char *id)
{
	char sha[80];

	pm_sha256_buf(url, strlen(url), sha);
	memcpy(id, sha + 7, 16);
	id[16] = 0;
}

static void clean(char *s)
{
	for (; *s; s++)
		if (*s == '\t' || *s == '\n' || *s == '\r')
			*s = ' ';
}

static void load(const char *jobdir, struct pending *p)
{
	char path[4096], *buf, *line, *save = NULL;

	p->n = 0;
	snprintf(path, sizeof(path), "%s/%s", jobdir, PM_WEBHOOK_PENDING_FILE);
	if (pm_fin_read(path, 1u << 20, &buf, NULL) < 0)
		return;
	for (line = strtok_r(buf, "\n", &save); line && p->n < MAX_ENTRIES;
	     line = strtok_r(NULL, "\n", &save)) {
		struct entry *e = &p->e[p->n];
		char *f[6], *q = line;
		size_t k;

		if (line[0] == '#')
			continue;
		for (k = 0; k < 6 && q; k++) {
			f[k] = q;
			if ((q = strchr(q, '\t')))
				*q++ = 0;
		}
		if (k < 5 || strlen(f[0]) != 16)
			continue;
		memset(e, 0, sizeof(*e));
		snprintf(e->id, sizeof(e->id), "%s", f[0]);
		snprintf(e->shown, sizeof(e->shown), "%s", f[1]);
		e->attempts = (unsigned)strtoul(f[2], NULL, 10);
		e->first = strtod(f[3], NULL);
		snprintf(e->sha, sizeof(e->sha), "%s", f[4]);
		snprintf(e->err, sizeof(e->err), "%s", k > 5 ? f[5] : "");
		e->known = true;
		p->n++;
	}
	free(buf);
}

/* Rewrite webhook.pending with what is not done; remove it when nothing is left. */
static int save(const char *jobdir, const struct pending *p)
{
	char path[4096], *buf;
	size_t len = 0, cap = sizeof(HEADER) + p->n * 720;
	bool any = false;
	int rc;

	if (!(buf = malloc(cap)))
		return -1;
	len = (size_t)snprintf(buf, cap, "%s", HEADER);
	for (size_t i = 0; i < p->n; i++) {
		const struct entry *e = &p->e[i];

		if (e->done)
			continue;
		any = true;
		len += (size_t)snprintf(buf + len, cap - len, "%s\t%s\t%u\t%.0f\t%s\t%s\n", e->id,
					e->shown, e->attempts, e->first, e->sha, e->err);
	}
	if (any) {
		rc = pm_fin_write(jobdir, PM_WEBHOOK_PENDING_FILE, buf, len);
	} else {
		snprintf(path, sizeof(path), "%s/%s", jobdir, PM_WEBHOOK_PENDING_FILE);
		rc = unlink(path) < 0 && errno != ENOENT ? -1 : 0;
	}
	free(buf);
	return rc;
}

/* Append one line to webhook.failed (kept for the operator; never retried). */
static void give_up(const char *jobdir, struct entry *e, const char *why)
{
	char path[4096], *old = NULL, *text;
	size_t len = 0;

	snprintf(path, sizeof(path), "%s/%s", jobdir, PM_WEBHOOK_FAILED_FILE);
	if (pm_fin_read(path, 1u << 20, &old, &len) < 0)
		old = NULL;
	if (asprintf(&text, "%s%s\t%s\t%u\t%.0f\t%s\t%s (%s)\n", old ? old : "", e->id, e->shown,
		     e->attempts, e->first, e->sha, e->err, why) >= 0) {
		pm_fin_write(jobdir, PM_WEBHOOK_FAILED_FILE, text, strlen(text));
		free(text);
	}
	free(old);
	e->done = true;
}

static struct entry *find(struct pending *p, const char *id)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->e[i].id, id))
			return &p->e[i];
	return NULL;
}

/* The body: verdict.json as it is, or {"manifest": ..., "verdict": ...}.  NULL with WHY. */
static char *body(const char *jobdir, bool manifest, size_t *len, char *sha, char *why,
		  size_t whylen)
{
	char path[4096], *v = NULL, *m = NULL, *out = NULL;
	json_t *jv = NULL, *jm = NULL, *o = NULL;
	size_t vl = 0, ml = 0;

	snprintf(path, sizeof(path), "%s/verdict.json", jobdir);
	if (pm_fin_read(path, MAX_BODY, &v, &vl) < 0) {
		snprintf(why, whylen, "%.200s: %.80s", path, strerror(errno));
		return NULL;
	}
	pm_sha256_buf(v, vl, sha);
	if (!manifest) {
		*len = vl;
		return v;
	}
	snprintf(path, sizeof(path), "%s/manifest.json", jobdir);
	if (pm_fin_read(path, MAX_BODY, &m, &ml) < 0) {
		snprintf(why, whylen, "%.200s: %.80s", path, strerror(errno));
		goto out;
	}
	if (!(jv = json_loadb(v, vl, 0, NULL)) || !(jm = json_loadb(m, ml, 0, NULL)) ||
	    !(o = json_pack("{s:O, s:O}", "verdict", jv, "manifest", jm)) ||
	    !(out = json_dumps(o, JSON_SORT_KEYS | JSON_COMPACT))) {
		snprintf(why, whylen, "%s: the verdict or manifest is not JSON", jobdir);
		goto out;
	}
	*len = strlen(out);
out:
	json_decref(o);
	json_decref(jv);
	json_decref(jm);
	free(v);
	free(m);
	return out;
}

/* One URL: attempts with a doubling delay until it takes the body or the time is up.  Fills
 * E; true when delivered. */
static bool deliver(const struct pm_webhook_conf *w, const char *jobdir, const char *key,
		    double until, struct entry *e)
{
	char hkey[480], why[300] = "", *b = NULL, *token = NULL, sha[80] = "";
	const char *hdrs[] = {hkey, "X-Postmortem-Event: verdict", NULL};
	struct pm_http_req rq = {.url = w->url,
				 .ca_file = w->ca_file,
				 .headers = hdrs,
				 .cap = ANSWER_CAP};
	struct pm_http_resp rs;
	double delay = PM_WEBHOOK_FIRST_DELAY;
	bool ok = false;
	size_t len = 0;

	snprintf(hkey, sizeof(hkey), "X-Postmortem-Job: %s", key);
	if (!e->first)
		e->first = pm_fin_wall();
	if (!(b = body(jobdir, w->include_manifest, &len, sha, why, sizeof(why))))
		goto out;
	snprintf(e->sha, sizeof(e->sha), "%s", sha);
	if (w->bearer_token_file &&
	    !(token = pm_http_token(w->bearer_token_file, why, sizeof(why))))
		goto out;
	rq.token = token;
	rq.body = b;
	rq.body_len = len;
	for (unsigned i = 0; i <= w->retries; i++) {
		double left = until - pm_fin_clock();

		if (left < MIN_TRY) {
			if (!why[0])
				snprintf(why, sizeof(why), "no time left to deliver");
			break;
		}
		rq.timeout = left < w->timeout ? left : w->timeout;
		e->attempts++;
		pm_http_do(NULL, &rq, &rs);
		free(rs.body);
		snprintf(why, sizeof(why), "%s", rs.why);
		if (rs.result == PM_HTTP_OK) {
			ok = true;
			break;
		}
		/* a request the server refuses as such is not retried now (the timer will) */
		if (rs.result == PM_HTTP_STATUS && rs.status >= 400 && rs.status < 500 &&
		    rs.status != 408 && rs.status != 429)
			break;
		if (i == w->retries || pm_fin_clock() + delay + MIN_TRY > until)
			break;
		pm_fin_nap(delay);
		delay *= 2;
	}
out:
	pm_http_token_free(token);
	free(b);
	clean(why);
	snprintf(e->err, sizeof(e->err), "%s", ok ? "" : why);
	e->done = ok;
	return ok;
}

/* Deliver to the webhooks of CFG that ONLY selects (all when NULL). */
static enum pm_webhook_state run(const struct pm_config *cfg, const char *jobdir, double deadline,
				 bool retry, char *why, size_t whylen)
{
	char cluster[128], job[128], restart[128], key[400], id[17];
	struct pending *p = calloc(1, sizeof(*p));
	struct entry *e;
	size_t todo = 0, failed = 0;
	bool want[16] = {0};
	enum pm_webhook_state st;

	if (why && whylen)
		why[0] = 0;
	if (!p) {
		if (why)
			snprintf(why, whylen, "out of memory");
		return PM_WEBHOOK_PENDING;
	}
	if (pm_fin_key(jobdir, cluster, job, restart, sizeof(cluster)) < 0)
		snprintf(key, sizeof(key), "%s", jobdir);
	else
		snprintf(key, sizeof(key), "%s/%s/%s", cluster, job, restart);
	load(jobdir, p);
	if (retry) {
		/* a URL no longer configured, or owed too long, is given up */
		for (size_t i = 0; i < p->n; i++) {
			bool conf = false;

			for (size_t k = 0; k < cfg->nwebhooks && k < 16; k++) {
				pm_webhook_id(cfg->webhooks[k].url, id);
				if (!strcmp(id, p->e[i].id))
					conf = want[k] = true;
			}
			if (!conf)
				give_up(jobdir, &p->e[i], "no longer configured");
			else if (p->e[i].first &&
				 pm_fin_wall() - p->e[i].first > PM_WEBHOOK_GIVE_UP)
				give_up(jobdir, &p->e[i], "given up after a day");
		}
	}
	for (size_t k = 0; k < cfg->nwebhooks && k < 16; k++) {
		if (retry && !want[k])
			continue;
		pm_webhook_id(cfg->webhooks[k].url, id);
		if (retry && (!(e = find(p, id)) || e->done)) {
			want[k] = false;
			continue;
		}
		if (!(e = find(p, id))) {
			if (p->n == MAX_ENTRIES)
				continue;
			e = &p->e[p->n++];
			memset(e, 0, sizeof(*e));
			snprintf(e->id, sizeof(e->id), "%s", id);
		}
		pm_http_display(cfg->webhooks[k].url, e->shown, sizeof(e->shown));
		clean(e->shown);
		e->done = false;
		want[k] = true;
		todo++;
	}
	if (!todo) {
		save(jobdir, p);
		free(p);
		return PM_WEBHOOK_NONE;
	}
	/* recorded before the first attempt: a collector killed now leaves the work behind */
	save(jobdir, p);
	for (size_t k = 0, left = todo; k < cfg->nwebhooks && k < 16; k++) {
		double now = pm_fin_clock(), share;

		if (!want[k])
			continue;
		pm_webhook_id(cfg->webhooks[k].url, id);
		e = find(p, id);
		share = now + (deadline - now) / (double)left--;
		if (!deliver(&cfg->webhooks[k], jobdir, key, share, e)) {
			failed++;
			if (why && failed == 1)
				snprintf(why, whylen, "%s", e->err);
		}
		save(jobdir, p);
	}
	st = failed ? PM_WEBHOOK_PENDING : PM_WEBHOOK_SENT;
	if (why && failed > 1) {
		size_t l = strlen(why);
		snprintf(why + l, whylen - l, " (and %zu more)", failed - 1);
	}
	free(p);
	return st;
}

enum pm_webhook_state pm_webhook_post(const struct pm_config *cfg, const char *jobdir,
				      double deadline, char *why, size_t whylen)
{
	if (!cfg->nwebhooks) {
		if (why && whylen)
			why[0] = 0;
		return PM_WEBHOOK_NONE;
	}
	return run(cfg, jobdir, deadline, false, why, whylen);
}

enum pm_webhook_state pm_webhook_retry(const struct pm_config *cfg, const char *jobdir,
				       double deadline, char *why, size_t whylen)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", jobdir, PM_WEBHOOK_PENDING_FILE);
	if (lstat(path, &st) < 0) {
		if (why && whylen)
			why[0] = 0;
		return PM_WEBHOOK_NONE;
	}
	return run(cfg, jobdir, deadline, true, why, whylen);
}
