/*
 * prom.c - the Prometheus source (prom.h): query_range for the job's node and window,
 * written as postmortem.prometheus/1 JSON lines.
 *
 *   {"schema": "postmortem.prometheus/1", "node": ..., "start": ..., "end": ..., ...}
 *   {"query": "...", "status": "ok", "series": 8}                     one per query
 *   {"metric": "DCGM_FI_DEV_XID_ERRORS", "labels": {...}, "values": [["2026-...Z", 0], ...]}
 *   {"truncated": true, "omitted_series": 3}                          when the cap was hit
 *
 * A series keeps the samples where its value changed, and its first and last: a counter
 * that never moved is two samples, an Xid that appeared is the sample that shows it, with
 * its own time.  Series are written sorted, so that the same answer gives the same bytes.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "http.h"
#include "pmutil.h"
#include "prom.h"

#define STATUS_MARGIN 0.2   /* seconds kept to write the status line before the deadline */
#define RESP_FACTOR 4	    /* an answer may be this many times the source's cap */
#define PROM_STATUS_MAX 230 /* bytes of the status line */

const char *const pm_prom_default_queries[] = {
	/* DCGM exporter (dcgm-exporter's default counters) */
	"DCGM_FI_DEV_XID_ERRORS",
	"DCGM_EXP_XID_ERRORS_COUNT",
	"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL",
	"DCGM_FI_DEV_ECC_SBE_VOL_TOTAL",
	"DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL",
	"DCGM_FI_DEV_ROW_REMAP_FAILURE",
	"DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS",
	"DCGM_FI_DEV_PCIE_REPLAY_COUNTER",
	"DCGM_FI_DEV_GPU_TEMP",
	"DCGM_FI_DEV_POWER_USAGE",
	/* node exporter */
	"node_memory_MemAvailable_bytes",
	"node_network_receive_errs_total",
	"node_filesystem_avail_bytes",
	"node_infiniband_link_downed_total",
	"node_infiniband_port_errors_received_total",
	"node_infiniband_symbol_error_total",
	NULL,
};

/* ---- PromQL text ---- */

static bool bare_name(const char *q)
{
	if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || *q == '_' || *q == ':'))
		return false;
	for (; *q; q++)
		if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
		      (*q >= '0' && *q <= '9') || *q == '_' || *q == ':'))
			return false;
	return true;
}

struct str {
	char *s;
	size_t len, alloc;
	bool oom;
};

static void put(struct str *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (pmu_reserve(&b->s, &b->alloc, b->len + n + 1, 256) < 0) {
		b->oom = true;
		return;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

static void puts_(struct str *b, const char *s)
{
	put(b, s, strlen(s));
}

static char *done(struct str *b)
{
	if (b->oom || !b->s) {
		free(b->s);
		errno = ENOMEM;
		return NULL;
	}
	return b->s;
}

char *pm_prom_selector(const struct pm_prom_conf *p, const char *node, const char *const *names)
{
	static const char *const dflt[] = {"instance", NULL};
	const char *const *labels = p->node_labels ? (const char *const *)p->node_labels : dflt;
	struct str b = {0}, re = {0}, alt = {0};

	for (const char *c = node; *c; c++) {
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '-' || *c == '_' || *c == '.')) {
			free(re.s);
			errno = EINVAL;
			return NULL;
		}
		/* a regex in a PromQL string: the dot escaped once for each */
		puts_(&re, *c == '.' ? "\\\\." : (char[]){*c, 0});
	}
	puts_(&re, "([.:].*)?");
	for (size_t i = 0; names[i]; i++) {
		puts_(&alt, i ? "|" : "");
		puts_(&alt, names[i]);
	}
	for (size_t i = 0; labels[i] && !re.oom && !alt.oom; i++) {
		puts_(&b, i ? " or " : "");
		puts_(&b, "{__name__=~\"");
		puts_(&b, alt.s);
		puts_(&b, "\",");
		puts_(&b, labels[i]);
		puts_(&b, "=~\"");
		puts_(&b, re.s);
		puts_(&b, "\"}");
	}
	if (re.oom || alt.oom)
		b.oom = true;
	free(re.s);
	free(alt.s);
	return done(&b);
}

static void urlenc(struct str *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '_' || c == '.' || c == '~')
			put(b, (const char *)&c, 1);
		else
			put(b, (char[]){'%', hex[c >> 4], hex[c & 15]}, 3);
	}
}

/* ---- output ---- */

struct out {
	int fd;
	size_t cap, written;
	size_t omitted; /* series left out at the cap */
	bool broken;	/* the reader went away */
};

static void wr(struct out *o, const char *s, size_t n)
{
	while (n && !o->broken) {
		ssize_t w = write(o->fd, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			o->broken = true;
			return;
		}
		s += w;
		n -= (size_t)w;
		o->written += (size_t)w;
	}
}

/* One JSON line; false when it did not fit under the cap (room is kept for the trailer). */
static bool line(struct out *o, json_t *j)
{
	char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
	size_t n;
	bool ok = false;

	if (!s)
		return false;
	n = strlen(s);
	if (o->written + n + 1 + 64 <= o->cap) {
		wr(o, s, n);
		wr(o, "\n", 1);
		ok = true;
	}
	free(s);
	return ok;
}

static void iso_ms(double t, char *buf, size_t len)
{
	time_t s = (time_t)floor(t);
	unsigned ms = (unsigned)((t - (double)s) * 1000 + 0.5);
	char day[32] = "";
	struct tm tm;

	if (ms >= 1000) {
		s++;
		ms -= 1000;
	}
	if (gmtime_r(&s, &tm))
		strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%.20s.%03uZ", day, ms % 1000);
}

static json_t *num(double v)
{
	if (v == floor(v) && fabs(v) < 9007199254740992.0)
		return json_integer((json_int_t)v);
	return json_real(v);
}

/* ---- one query ---- */

struct state {
	const struct pm_config *cfg;
	struct out out;
	void *h;
	char *token;
	char shown[200];
	double start, end, step, deadline;
	enum pm_status st; /* the worst so far */
	char why[640];
	size_t series, samples, queries, failed;
	json_t *lines; /* series lines of all queries, written sorted at the end */
};

static void worse(struct state *s, enum pm_status st, const char *why)
{
	if (pm_status_severity(st) > pm_status_severity(s->st)) {
		s->st = st;
		snprintf(s->why, sizeof(s->why), "%s", why);
	}
}

/* The samples of one series as [time, value] pairs: changes, first and last. */
static json_t *samples(const json_t *values, size_t *kept)
{
	json_t *out = json_array(), *v;
	size_t i, n = json_array_size(values);
	double prev = NAN;
	bool have = false;

	if (!out)
		return NULL;
	json_array_foreach(values, i, v)
	{
		const char *vs = json_string_value(json_array_get(v, 1));
		double t = json_number_value(json_array_get(v, 0)), x;
		char *end, ts[40];

		if (!vs || !json_is_number(json_array_get(v, 0)))
			continue;
		x = strtod(vs, &end);
		if (*end || !isfinite(x))
			continue;
		if (have && x == prev && i + 1 != n)
			continue;
		iso_ms(t, ts, sizeof(ts));
		json_array_append_new(out, json_pack("[s,o]", ts, num(x)));
		prev = x;
		have = true;
		(*kept)++;
	}
	return out;
}

/* What a Prometheus API answer says when it is an error. */
static void api_error(const json_t *doc, char *buf, size_t len)
{
	const char *t = json_string_value(json_object_get(doc, "errorType"));
	const char *e = json_string_value(json_object_get(doc, "error"));

	snprintf(buf, len, "%s%s%s", t ? t : "", t && e ? ": " : "", e ? e : "");
	buf[strcspn(buf, "\r\n")] = 0;
}

static void query(struct state *s, const char *expr)
{
	struct pm_http_req rq = {0};
	struct pm_http_resp rs;
	struct str url = {0};
	char num_[64], why[400], detail[240] = "";
	json_t *doc = NULL, *result, *ser, *qline;
	json_error_t jerr;
	enum pm_status st = PM_ST_OK;
	size_t i, n = 0;
	const char *base = s->cfg->prom.url;
	size_t bl = strlen(base);

	while (bl && base[bl - 1] == '/')
		bl--;
	put(&url, base, bl);
	puts_(&url, "/api/v1/query_range?query=");
	urlenc(&url, expr);
	snprintf(num_, sizeof(num_), "&start=%.3f&end=%.3f&step=%g", s->start, s->end, s->step);
	puts_(&url, num_);
	if (!done(&url)) {
		worse(s, PM_ST_UNREADABLE, "out of memory");
		return;
	}
	rq.url = url.s;
	rq.token = s->token;
	rq.ca_file = s->cfg->prom.ca_file;
	rq.timeout = s->deadline - STATUS_MARGIN - pm_mono();
	rq.cap = s->cfg->src[PM_CS_PROMETHEUS].cap * RESP_FACTOR;
	s->queries++;
	pm_http_do(s->h, &rq, &rs);
	free(url.s);
	switch (rs.result) {
	case PM_HTTP_OK:
		break;
	case PM_HTTP_TIMEOUT:
		st = PM_ST_TIMED_OUT;
		break;
	case PM_HTTP_UNREACHABLE:
		st = PM_ST_MISSING;
		break;
	case PM_HTTP_TOOBIG:
		st = PM_ST_TRUNCATED;
		break;
	case PM_HTTP_STATUS:
		st = rs.status == 401 || rs.status == 403 ? PM_ST_DENIED : PM_ST_UNREADABLE;
		break;
	default:
		st = PM_ST_UNREADABLE;
		break;
	}
	snprintf(why, sizeof(why), "%s", rs.why);
	if (rs.body && (doc = json_loadb(rs.body, rs.len, 0, &jerr)) &&
	    strcmp(json_string_value(json_object_get(doc, "status")) ?: "", "success"))
		api_error(doc, detail, sizeof(detail));
	if (rs.result == PM_HTTP_STATUS && detail[0])
		snprintf(why, sizeof(why), "%s: %s", rs.why, detail);
	if (rs.result == PM_HTTP_OK) {
		result = json_object_get(json_object_get(doc, "data"), "result");
		if (!doc)
			snprintf(why, sizeof(why), "%s: not JSON (%s at byte %d)", s->shown,
				 jerr.text, jerr.position);
		else if (detail[0])
			snprintf(why, sizeof(why), "%s: %s", s->shown, detail);
		else if (!json_is_array(result))
			snprintf(why, sizeof(why),
				 "%s: not a Prometheus query answer (no data.result)", s->shown);
		if (!doc || detail[0] || !json_is_array(result)) {
			st = PM_ST_UNREADABLE;
		} else {
			json_array_foreach(result, i, ser)
			{
				json_t *labels = json_deep_copy(json_object_get(ser, "metric"));
				const char *name;
				json_t *vals, *sl;

				if (!json_is_object(labels)) {
					json_decref(labels);
					continue;
				}
				name = json_string_value(json_object_get(labels, "__name__"));
				sl = json_pack("{s:s}", "metric", name ? name : "");
				json_object_del(labels, "__name__");
				vals = samples(json_object_get(ser, "values"), &s->samples);
				json_object_set_new(sl, "labels", labels);
				json_object_set_new(sl, "values", vals ? vals : json_array());
				json_array_append_new(s->lines, sl);
				n++;
			}
		}
	}
	s->series += n;
	qline = json_pack("{s:s, s:s, s:I, s:I}", "query", expr, "status", pm_status_name(st),
			  "series", (json_int_t)n, "elapsed_ms", (json_int_t)(rs.took * 1000));
	if (qline && st != PM_ST_OK)
		json_object_set_new(qline, "error", json_string(why));
	if (qline)
		line(&s->out, qline);
	json_decref(qline);
	json_decref(doc);
	free(rs.body);
	if (st != PM_ST_OK) {
		s->failed++;
		worse(s, st, why);
	}
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The series lines, sorted, as many as fit. */
static void flush_series(struct state *s)
{
	size_t n = json_array_size(s->lines), i;
	char **txt = calloc(n ? n : 1, sizeof(*txt));
	json_t *v;

	if (!txt) {
		worse(s, PM_ST_UNREADABLE, "out of memory");
		return;
	}
	json_array_foreach(s->lines, i, v)
		txt[i] = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
	qsort(txt, n, sizeof(*txt), cmp_line);
	for (i = 0; i < n; i++) {
		size_t l = txt[i] ? strlen(txt[i]) : 0;

		if (!txt[i] || s->out.written + l + 1 + 64 > s->out.cap) {
			s->out.omitted++;
		} else {
			wr(&s->out, txt[i], l);
			wr(&s->out, "\n", 1);
		}
		free(txt[i]);
	}
	free(txt);
}

void pm_prom_window(const struct pm_config *cfg, const struct pm_job *j, double *start, double *end)
{
	*end = pm_now();
	*start = j->window_start > 0 ? j->window_start - PM_WINDOW_MARGIN :
				       *end - cfg->prom.lookback;
	if (*start >= *end)
		*start = *end - 60;
}

int pm_prom_collect(const struct pm_config *cfg, const struct pm_job *j, double start, double end,
		    double deadline, int out, int err)
{
	const struct pm_prom_conf *p = &cfg->prom;
	const char *const *qs = p->queries ? (const char *const *)p->queries :
					     pm_prom_default_queries;
	struct state s = {.cfg = cfg, .start = start, .end = end, .deadline = deadline};
	const char *names[128];
	size_t nn = 0, maxp = p->max_points ? p->max_points : 1000;
	char a[40], b[40], msg[600];
	json_t *hdr;
	FILE *ef;

	s.out = (struct out){.fd = out, .cap = cfg->src[PM_CS_PROMETHEUS].cap};
	s.step = p->step > 0 ? p->step : 15;
	if ((end - start) / s.step > (double)maxp)
		s.step = ceil((end - start) / (double)maxp);
	s.st = PM_ST_OK;
	pm_http_display(p->url, s.shown, sizeof(s.shown));
	iso_ms(start, a, sizeof(a));
	iso_ms(end, b, sizeof(b));
	hdr = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:f}", "schema", PM_PROM_SCHEMA, "node",
			j->node, "job", j->id, "url", s.shown, "start", a, "end", b, "step",
			s.step);
	if (hdr) {
		json_object_set_new(hdr, "window",
				    json_string(j->window_start > 0 ? "job" : "lookback"));
		line(&s.out, hdr);
	}
	json_decref(hdr);
	s.lines = json_array();
	if (!s.lines || !(s.h = pm_http_handle())) {
		worse(&s, PM_ST_UNREADABLE, "cannot start libcurl");
		goto report;
	}
	if (p->bearer_token_file) {
		char why[400];

		if (!(s.token = pm_http_token(p->bearer_token_file, why, sizeof(why)))) {
			worse(&s, errno == ENOENT ? PM_ST_MISSING : PM_ST_DENIED, why);
			goto report;
		}
	}
	/* bare metric names go in one request; anything else is PromQL of its own */
	for (size_t i = 0; qs[i]; i++)
		if (bare_name(qs[i]) && nn < sizeof(names) / sizeof(names[0]) - 1)
			names[nn++] = qs[i];
	names[nn] = NULL;
	if (nn) {
		char *sel = pm_prom_selector(p, j->node, names);

		if (!sel) {
			worse(&s, PM_ST_UNREADABLE,
			      errno == EINVAL ? "the node name cannot be put in a PromQL selector" :
						"out of memory");
			goto report;
		}
		query(&s, sel);
		free(sel);
	}
	for (size_t i = 0; qs[i]; i++) {
		char *q;

		if (bare_name(qs[i]))
			continue;
		/* a server that did not answer will not answer the next question either */
		if (s.st == PM_ST_TIMED_OUT || s.st == PM_ST_MISSING)
			break;
		if (!(q = pm_expand(qs[i], j->node, j->id)))
			continue;
		query(&s, q);
		free(q);
	}
	flush_series(&s);
	if (s.out.omitted) {
		char t[96];

		snprintf(t, sizeof(t), "{\"omitted_series\":%zu,\"truncated\":true}\n",
			 s.out.omitted);
		wr(&s.out, t, strlen(t));
		snprintf(msg, sizeof(msg), "%zu of %zu series left out at the cap (%zu bytes)",
			 s.out.omitted, s.series, s.out.cap);
		worse(&s, PM_ST_TRUNCATED, msg);
	}
report:
	if (s.st == PM_ST_OK && !s.series)
		snprintf(msg, sizeof(msg),
			 "empty no series for node %s from %s between %s and %s (node labels: %s%s)",
			 j->node, s.shown, a, b, p->node_labels ? p->node_labels[0] : "instance",
			 p->node_labels && p->node_labels[0] && p->node_labels[1] ? ", ..." : "");
	else if (s.st == PM_ST_OK)
		snprintf(msg, sizeof(msg),
			 "ok %zu series, %zu samples from %s (%s to %s, step %g s)", s.series,
			 s.samples, s.shown, a, b, s.step);
	else
		snprintf(msg, sizeof(msg), "%s %.500s", pm_status_name(s.st), s.why);
	msg[strcspn(msg, "\r\n")] = 0;
	if (strlen(msg) > PROM_STATUS_MAX) /* the runner keeps 240 bytes of a child's stderr */
		strcpy(msg + PROM_STATUS_MAX - 3, "...");
	if ((ef = fdopen(err, "w"))) {
		fprintf(ef, "%s\n", msg);
		fclose(ef);
	}
	json_decref(s.lines);
	pm_http_token_free(s.token);
	pm_http_handle_free(s.h);
	return 0;
}

int pm_prom_status(const char *text, size_t len, enum pm_status *st, char *reason, size_t rlen)
{
	size_t w = 0, l;

	while (w < len && text[w] != ' ' && text[w] != '\n')
		w++;
	for (int i = 0; i < PM_ST__COUNT; i++) {
		const char *name = pm_status_name(i);

		if (i == PM_ST_LAGGING || i == PM_ST_BINARY) /* the engine's, never a query's */
			continue;
		if (strlen(name) != w || memcmp(text, name, w))
			continue;
		*st = i;
		text += w + (w < len);
		len -= w + (w < len);
		l = 0;
		while (l < len && text[l] != '\n')
			l++;
		snprintf(reason, rlen, "%.*s", (int)l, text);
		return 0;
	}
	return -1;
}
