/*
 * verdict.c - pm_diagnose, and the verdict's three renderings: JSON (sorted keys), the
 * text a tired operator reads in 20 seconds, and the one-line job comment.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence.h"

json_t *pm_diagnose(struct pm_evidence *ev, char *err, size_t errlen)
{
	size_t usable = 0;

	if (pm_scan_all(ev) < 0) {
		snprintf(err, errlen, "scanning the evidence: %s",
			 strerror(errno ? errno : ENOMEM));
		return NULL;
	}
	for (size_t i = 0; i < ev->nfiles; i++)
		if (ev->files[i].status == PM_ST_OK || ev->files[i].status == PM_ST_TRUNCATED)
			usable++;
	if (!usable && !ev->ncov) {
		snprintf(err, errlen, "no usable input: %s",
			 ev->nfiles ? "every file is empty, binary or unreadable" : "no files");
		errno = ENODATA;
		return NULL;
	}
	return pm_attribute(ev);
}

char *pm_verdict_dump(const json_t *verdict)
{
	char *s = json_dumps(verdict, JSON_SORT_KEYS | JSON_INDENT(2) | JSON_ENSURE_ASCII), *out;
	size_t l;

	if (!s)
		return NULL;
	l = strlen(s);
	out = realloc(s, l + 2);
	if (!out) {
		free(s);
		return NULL;
	}
	out[l] = '\n';
	out[l + 1] = '\0';
	return out;
}

/* ---- text ---- */

struct buf {
	char *s;
	size_t n, a;
	bool oom;
};

static void put(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->oom)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s + b->n, b->a - b->n, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->oom = true;
			return;
		}
		if ((size_t)n < b->a - b->n) {
			b->n += (size_t)n;
			return;
		}
		size_t na = b->a * 2 + (size_t)n + 64;
		char *p = realloc(b->s, na);
		if (!p) {
			b->oom = true;
			return;
		}
		b->s = p;
		b->a = na;
	}
}

static const char *S(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "-";
}

static void list(struct buf *b, const json_t *arr)
{
	size_t i;
	json_t *x;

	if (!json_array_size(arr)) {
		put(b, "-");
		return;
	}
	json_array_foreach(arr, i, x)
	{
		if (!json_is_integer(x)) {
			put(b, "%s%s", i ? "," : "", json_string_value(x));
			continue;
		}
		/* ranks as ranges: 0-28,30-63 */
		long long v = json_integer_value(x), end = v;
		size_t k = i;
		while (k + 1 < json_array_size(arr) &&
		       json_integer_value(json_array_get(arr, k + 1)) == end + 1) {
			end++;
			k++;
		}
		if (end > v)
			put(b, "%s%lld-%lld", i ? "," : "", v, end);
		else
			put(b, "%s%lld", i ? "," : "", v);
		i = k;
		x = json_array_get(arr, i);
	}
}

static const json_t *find_ev(const json_t *v, const char *id)
{
	size_t i;
	json_t *e;

	json_array_foreach(json_object_get(v, "evidence"), i,
			   e) if (!strcmp(S(e, "id"), id)) return e;
	return NULL;
}

char *pm_verdict_text(const json_t *v)
{
	struct buf b = {.s = malloc(4096), .a = 4096};
	const json_t *cause = json_object_get(v, "cause"), *job = json_object_get(v, "job");
	const json_t *dec = json_object_get(v, "decision"), *x;
	size_t i, shown = 0;

	if (!b.s)
		return NULL;
	b.s[0] = '\0';
	put(&b, "job %s%s%s: %s, %s", S(job, "id"),
	    json_is_string(json_object_get(job, "cluster")) ? " on " : "",
	    json_is_string(json_object_get(job, "cluster")) ? S(job, "cluster") : "",
	    S(v, "outcome"), S(v, "status"));
	if (json_is_object(cause))
		put(&b, " %s/%s (%s)", S(cause, "class"), S(cause, "subclass"), S(v, "confidence"));
	put(&b, "\n");
	if (json_is_object(cause))
		put(&b, "  cause:      %s\n", S(cause, "summary"));
	put(&b, "  origin:     nodes ");
	list(&b, json_object_get(json_object_get(v, "origin"), "nodes"));
	put(&b, "  ranks ");
	list(&b, json_object_get(json_object_get(v, "origin"), "ranks"));
	if (json_array_size(json_object_get(json_object_get(v, "origin"), "gpus"))) {
		put(&b, "  gpus ");
		list(&b, json_object_get(json_object_get(v, "origin"), "gpus"));
	}
	put(&b, "\n  bystanders: nodes ");
	list(&b, json_object_get(json_object_get(v, "bystanders"), "nodes"));
	put(&b, "  ranks ");
	list(&b, json_object_get(json_object_get(v, "bystanders"), "ranks"));
	put(&b, "\n");
	if (json_is_object(json_object_get(v, "ambiguity"))) {
		put(&b, "  ambiguous between:\n");
		json_array_foreach(json_object_get(json_object_get(v, "ambiguity"), "explanations"),
				   i, x) put(&b, "    - %s\n", json_string_value(x));
		put(&b, "  to tell them apart: %s\n", S(json_object_get(v, "ambiguity"), "test"));
	}
	put(&b, "\nwhy:\n");
	json_array_foreach(json_object_get(v, "why"), i, x)
		put(&b, "  %zu. %s\n", i + 1, json_string_value(x));

	put(&b,
	    "\ntimeline (event time; * origin; first error per node, then the rest counted):\n");
	{
		/* every origin line, and the first cascade or teardown of each node */
		const char *seen[64];
		size_t nseen = 0, hidden = 0;
		json_array_foreach(json_object_get(v, "evidence"), i, x)
		{
			const char *role = S(x, "role"),
				   *node = json_is_string(json_object_get(x, "node")) ?
						   S(x, "node") :
						   "?";
			bool origin = !strcmp(role, "origin"), first = true;
			if (!json_is_string(json_object_get(x, "event_time")))
				continue;
			if (!origin && strcmp(role, "cascade") && strcmp(role, "teardown"))
				continue;
			for (size_t k = 0; k < nseen; k++)
				if (!strcmp(seen[k], node))
					first = false;
			if ((!origin && !first) || shown >= 20) {
				hidden++;
				continue;
			}
			if (first && nseen < 64)
				seen[nseen++] = node;
			put(&b, "  %s %c %-10s %-10s %-9s", S(x, "event_time"), origin ? '*' : ' ',
			    node, S(x, "source"), role);
			if (json_is_integer(json_object_get(x, "rank")))
				put(&b, " rank %-4lld",
				    (long long)json_integer_value(json_object_get(x, "rank")));
			else
				put(&b, " %-9s", "");
			put(&b, " %s", S(x, "summary"));
			if (json_integer_value(json_object_get(x, "repeats")))
				put(&b, " (+%lld more)",
				    (long long)json_integer_value(json_object_get(x, "repeats")));
			put(&b, "\n");
			shown++;
		}
		if (hidden)
			put(&b, "  ... and %zu later consequences on nodes already shown\n",
			    hidden);
		/* origin lines without a stamp still belong on the page, marked as such */
		json_array_foreach(json_object_get(v, "evidence"), i, x)
		{
			if (json_is_string(json_object_get(x, "event_time")) ||
			    strcmp(S(x, "role"), "origin"))
				continue;
			put(&b, "  %-24s * %-10s %-10s %-9s", "(no time stamp)",
			    json_is_string(json_object_get(x, "node")) ? S(x, "node") : "?",
			    S(x, "source"), "origin");
			if (json_is_integer(json_object_get(x, "rank")))
				put(&b, " rank %-4lld",
				    (long long)json_integer_value(json_object_get(x, "rank")));
			else
				put(&b, " %-9s", "");
			put(&b, " %s\n", S(x, "summary"));
			shown++;
		}
	}
	if (!shown)
		put(&b, "  (no dated events)\n");
	if (json_is_object(cause)) {
		const json_t *lead = json_array_get(json_object_get(v, "candidates"), 0);
		put(&b, "\nevidence for the cause:\n");
		json_array_foreach(json_object_get(lead, "supporting"), i, x)
		{
			const json_t *e = find_ev(v, json_string_value(x));
			if (!e || i >= 6)
				continue;
			put(&b, "  %s %s [%s] %s:%lld\n      %s\n", S(e, "id"), S(e, "rule"),
			    S(e, "source"), S(e, "file"),
			    (long long)json_integer_value(json_object_get(e, "offset")),
			    S(e, "line"));
		}
	}
	put(&b, "\ncoverage:\n");
	shown = 0;
	json_array_foreach(json_object_get(v, "coverage"), i, x)
	{
		if (!strcmp(S(x, "status"), "ok"))
			continue;
		put(&b, "  %-10s %-10s %-9s %s %s\n",
		    json_is_string(json_object_get(x, "node")) ? S(x, "node") : "-", S(x, "source"),
		    S(x, "status"), json_is_string(json_object_get(x, "file")) ? S(x, "file") : "",
		    S(x, "reason"));
		shown++;
	}
	put(&b, "  %zu input(s), %zu with problems\n",
	    json_array_size(json_object_get(v, "coverage")), shown);
	if (json_is_object(dec)) {
		const json_t *c = json_object_get(dec, "containment"),
			     *r = json_object_get(dec, "repair");
		put(&b, "\nwhat to do:\n  now (%s, %s): %s\n", S(c, "id"), S(c, "owner"),
		    S(c, "action"));
		if (json_is_object(r))
			put(&b, "  repair (%s, %s): %s\n    needs: %s\n", S(r, "owner"),
			    json_is_true(json_object_get(r, "justified")) ? "justified" :
									    "not yet justified",
			    S(r, "action"), S(r, "requires"));
		if (json_is_string(json_object_get(dec, "overturn")))
			put(&b, "  overturned by: %s\n", S(dec, "overturn"));
		if (json_is_string(json_object_get(dec, "next_test")))
			put(&b, "  next test: %s\n", S(dec, "next_test"));
	}
	put(&b, "\nrules %s %s %s\n", S(json_object_get(v, "ruleset"), "id"),
	    S(json_object_get(v, "ruleset"), "version"),
	    S(json_object_get(v, "ruleset"), "digest"));
	if (b.oom) {
		free(b.s);
		errno = ENOMEM;
		return NULL;
	}
	return b.s;
}

/* ---- the comment line ---- */

char *pm_verdict_comment(const json_t *v)
{
	const json_t *cause = json_object_get(v, "cause"), *job = json_object_get(v, "job");
	const json_t *origin = json_object_get(v, "origin");
	const json_t *cont = json_object_get(json_object_get(v, "decision"), "containment");
	char org[128] = "", *out = malloc(PM_COMMENT_MAX + 1);
	size_t n = 0, i;
	json_t *x;

	if (!out)
		return NULL;
	json_array_foreach(json_object_get(origin, "nodes"), i, x)
	{
		if (n + strlen(json_string_value(x)) + 8 >= sizeof(org)) {
			snprintf(org + n, sizeof(org) - n, ",+%zu",
				 json_array_size(json_object_get(origin, "nodes")) - i);
			n = strlen(org);
			break;
		}
		n += (size_t)snprintf(org + n, sizeof(org) - n, "%s%s", i ? "," : "",
				      json_string_value(x));
	}
	if (json_array_size(json_object_get(origin, "ranks")) &&
	    json_array_size(json_object_get(origin, "ranks")) <= 4 && n + 24 < sizeof(org)) {
		n += (size_t)snprintf(org + n, sizeof(org) - n, ":");
		json_array_foreach(json_object_get(origin, "ranks"), i, x)
			n += (size_t)snprintf(org + n, sizeof(org) - n, "%s%lld", i ? "," : "",
					      (long long)json_integer_value(x));
	}
	snprintf(out, PM_COMMENT_MAX + 1,
		 "postmortem: %s %s%s%s origin=%s conf=%s act=%s ev=%s/%s/%lld", S(v, "status"),
		 json_is_object(cause) ? S(cause, "class") : "-", json_is_object(cause) ? "/" : "",
		 json_is_object(cause) ? S(cause, "subclass") : "", org[0] ? org : "-",
		 json_is_string(json_object_get(v, "confidence")) ? S(v, "confidence") : "-",
		 S(cont, "id"),
		 json_is_string(json_object_get(job, "cluster")) ? S(job, "cluster") : "-",
		 S(job, "id"), (long long)json_integer_value(json_object_get(job, "restart")));
	return out;
}
