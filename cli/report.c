/*
 * report.c - `postmortem report JOB -o report.html [--store DIR] [--cluster C] [--restart N]
 * [--config FILE]` (or `--verdict FILE` for a verdict made by `diagnose --json`): one
 * self-contained HTML page for the incident room.  The verdict, a swimlane timeline (a lane
 * per node, and one per rank under it) drawn as inline SVG with the origin marked, the
 * evidence lines, the coverage table and the decision.  Inline CSS, no script, no external
 * asset; a Content-Security-Policy forbids loading any.  Every text from the evidence is
 * HTML-escaped.  Exit 0 written, 1 not, 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "finalize.h"
#include "pmutil.h"
#include "store.h"

#define USAGE                                                                          \
	"usage: %s report JOB -o FILE.html [--store DIR] [--cluster C] [--restart N] " \
	"[--config FILE]\n"                                                            \
	"       %s report --verdict VERDICT.json -o FILE.html\n"

#define W 1200	      /* the SVG's width */
#define LABEL 200     /* the lane label column */
#define UNDATED 130   /* the column of events without an event time */
#define ROW 22	      /* lane height */
#define TOP 46	      /* the axis above the lanes */
#define MAX_ROWS 400  /* lanes drawn; the rest are listed */
#define MAX_ON_ROW 12 /* undated markers drawn per lane */

/* Text into HTML: markup characters escaped, control characters shown as U+FFFD. */
static void esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		switch (c) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			if ((c < 0x20 && c != '\t') || c == 0x7f)
				fputs("&#xfffd;", f);
			else
				fputc(c, f);
		}
	}
}

static void esc_json(FILE *f, const json_t *x)
{
	if (json_is_string(x))
		esc(f, json_string_value(x));
	else if (json_is_integer(x))
		fprintf(f, "%lld", (long long)json_integer_value(x));
	else if (json_is_boolean(x))
		fputs(json_is_true(x) ? "yes" : "no", f);
	else
		fputs("&#8212;", f);
}

/* A CSS class name from a value: letters, digits and '-' only. */
static void cls(FILE *f, const char *s)
{
	for (; s && *s; s++)
		fputc((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ? *s : '-', f);
}

static const char CSS[] =
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#1d2330;"
	"background:#f6f7f9}"
	"main{max-width:1240px;margin:0 auto;padding:18px 20px 40px}"
	"h1{font-size:22px;margin:4px 0}h1 small{font-weight:400;color:#5b6475;font-size:14px}"
	"h2{font-size:16px;margin:22px 0 8px;border-bottom:1px solid #d8dce3;padding-bottom:4px}"
	"section h2:first-child{margin-top:4px}"
	"section,header{background:#fff;border:1px solid #dfe3ea;border-radius:6px;padding:10px 16px;"
	"margin-top:14px}"
	".verdict{font-size:18px;margin:8px 0}"
	".badge{display:inline-block;border-radius:4px;padding:1px 8px;font-size:13px;font-weight:600;"
	"margin-right:6px;border:1px solid transparent}"
	".status-attributed{background:#fdecea;color:#a61b1b;border-color:#f3b7b1}"
	".status-ambiguous{background:#fff4e0;color:#8a5200;border-color:#f2cf8f}"
	".status-unknown,.status-none{background:#eef0f3;color:#3b4352}"
	".conf-established{background:#1f7a3a;color:#fff}.conf-supported{background:#5b8f2a;"
	"color:#fff}.conf-hypothesis{background:#b7791f;color:#fff}"
	".class{font-family:ui-monospace,Menlo,Consolas,monospace;font-weight:700}"
	"dl{display:grid;grid-template-columns:150px 1fr;gap:3px 12px;margin:8px 0}"
	"dt{color:#5b6475}dd{margin:0}"
	"table{border-collapse:collapse;width:100%;font-size:13px}"
	"th,td{border-bottom:1px solid #e6e9ef;padding:4px 6px;text-align:left;vertical-align:top}"
	"th{background:#f0f2f6;font-weight:600}td.t{white-space:nowrap;font-size:12px}"
	"td.line{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;"
	"white-space:pre-wrap;word-break:break-all}"
	"tr.role-origin td{background:#fdf0ef}tr.role-cascade td,tr.role-teardown td{color:#6b7280}"
	".st-ok{color:#1f7a3a}.st-missing,.st-timed_out,.st-denied,.st-unreadable,.st-lagging,"
	".st-truncated{color:#a61b1b;font-weight:600}"
	".warn{background:#fff4e0;border:1px solid #f2cf8f;border-radius:4px;padding:6px 10px}"
	"svg{display:block;width:100%;height:auto;background:#fff}"
	"svg text{font:12px system-ui,sans-serif;fill:#1d2330}"
	"svg .tick{fill:#5b6475;font-size:11px}svg .grid{stroke:#e6e9ef}"
	"svg .lane-origin rect.band{fill:#fdecea}svg .lane rect.band{fill:#fafbfc}"
	"svg .lane-origin text.node{fill:#a61b1b;font-weight:700}"
	"svg text.rank{fill:#5b6475;font-size:11px}"
	".legend span{margin-right:14px}.legend i{display:inline-block;width:10px;height:10px;"
	"margin-right:4px;border-radius:50%}"
	"footer{color:#5b6475;font-size:12px;margin-top:18px}"
	"code{font-family:ui-monospace,Menlo,Consolas,monospace}";

/* ---- the swimlanes ---- */

struct lane {
	const char *node; /* NULL: job-wide (no node) */
	long long rank;	  /* -1: the node itself */
	bool origin;
	size_t undated; /* markers drawn in the undated column */
};

struct lanes {
	struct lane *v;
	size_t n, a;
	size_t dropped;
	char **jn; /* the job's nodes, which lanes point into (job_nodes) */
	size_t njn;
};

static int lane_add(struct lanes *l, const char *node, long long rank, bool origin)
{
	for (size_t i = 0; i < l->n; i++)
		if (((!node && !l->v[i].node) ||
		     (node && l->v[i].node && !strcmp(node, l->v[i].node))) &&
		    l->v[i].rank == rank)
			return 0;
	if (l->n >= MAX_ROWS) {
		l->dropped++;
		return 0;
	}
	if (l->n == l->a) {
		size_t a = l->a ? 2 * l->a : 32;
		struct lane *v = realloc(l->v, a * sizeof(*v));
		if (!v)
			return -1;
		l->v = v;
		l->a = a;
	}
	l->v[l->n++] = (struct lane){node, rank, origin, 0};
	return 0;
}

static bool in_strings(const json_t *a, const char *s)
{
	size_t i;
	json_t *x;

	json_array_foreach(a, i, x) if (json_is_string(x) && s &&
					!strcmp(json_string_value(x), s)) return true;
	return false;
}

static int cmp_lane(const void *a, const void *b)
{
	const struct lane *x = a, *y = b;
	int c;

	if (!x->node || !y->node)
		return !x->node - !y->node; /* job-wide last */
	if ((c = strcmp(x->node, y->node)))
		return c;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The job's nodes (job.nodes, a host list) as *N sorted names (names_free). */
static int job_nodes(const json_t *v, char ***names, size_t *n)
{
	const char *s = json_string_value(json_object_get(json_object_get(v, "job"), "nodes"));

	*names = NULL;
	*n = 0;
	return s ? pm_hostlist_expand(s, strlen(s), names, n) : 0;
}

static void names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* A lane for every node of the job, and one per rank and node-less lane the evidence has. */
static int lanes_build(const json_t *v, struct lanes *l)
{
	const json_t *onodes = json_object_get(json_object_get(v, "origin"), "nodes"), *x;
	size_t i;

	if (job_nodes(v, &l->jn, &l->njn) < 0)
		return -1;
	for (i = 0; i < l->njn; i++)
		if (lane_add(l, l->jn[i], -1, in_strings(onodes, l->jn[i])) < 0)
			return -1;
	json_array_foreach(json_object_get(v, "evidence"), i, x)
	{
		const json_t *node = json_object_get(x, "node"), *rank = json_object_get(x, "rank");
		const char *n = json_string_value(node);
		if (lane_add(l, n, -1, in_strings(onodes, n)) < 0 ||
		    (json_is_integer(rank) && lane_add(l, n, (long long)json_integer_value(rank),
						       in_strings(onodes, n)) < 0))
			return -1;
	}
	qsort(l->v, l->n, sizeof(*l->v), cmp_lane);
	return 0;
}

static long lane_of(const struct lanes *l, const json_t *e)
{
	const char *n = json_string_value(json_object_get(e, "node"));
	const json_t *r = json_object_get(e, "rank");
	long long rank = json_is_integer(r) ? (long long)json_integer_value(r) : -1;

	for (size_t i = 0; i < l->n; i++)
		if (((!n && !l->v[i].node) || (n && l->v[i].node && !strcmp(n, l->v[i].node))) &&
		    l->v[i].rank == rank)
			return (long)i;
	return -1;
}

static void marker(FILE *f, const json_t *e, double x, double y)
{
	const char *role = pmu_str(e, "role", "");

	fprintf(f, "<g class=\"ev role-");
	cls(f, role);
	fprintf(f, "\" data-id=\"");
	esc(f, pmu_str(e, "id", ""));
	fprintf(f, "\"><title>");
	esc(f, pmu_str(e, "id", ""));
	fputs(" \xc2\xb7 ", f);
	esc(f, pmu_str(e, "rule", ""));
	fputs(" \xc2\xb7 ", f);
	esc(f, role);
	fputs(" \xc2\xb7 ", f);
	esc(f, json_is_string(json_object_get(e, "event_time")) ? pmu_str(e, "event_time", "") :
								  "no event time");
	fputs("\n", f);
	esc(f, pmu_str(e, "line", ""));
	fprintf(f, "</title>");
	if (!strcmp(role, "origin"))
		fprintf(f,
			"<path d=\"M%.1f %.1fl7 7-7 7-7-7z\" fill=\"#c0392b\" stroke=\"#5e0f0a\" "
			"stroke-width=\"1.2\"/>",
			x, y - 7);
	else if (!strcmp(role, "teardown"))
		fprintf(f,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"6\" height=\"6\" fill=\"#c5cad3\"/>",
			x - 3, y - 3);
	else
		fprintf(f,
			"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" fill=\"%s\" fill-opacity=\"0.8\"/>",
			x, y, !strcmp(role, "cascade") ? 4 : 3,
			!strcmp(role, "cascade")      ? "#7f8c8d" :
			!strcmp(role, "confirmation") ? "#e67e22" :
			!strcmp(role, "progress")     ? "#27ae60" :
							"#2980b9");
	fputs("</g>\n", f);
}

static void hms(double t, char *buf, size_t len)
{
	char iso[32];

	pmu_iso(t, iso, sizeof(iso), "?");
	snprintf(buf, len, "%.8s", iso + 11);
}

static void swimlanes(FILE *f, const json_t *v)
{
	struct lanes l = {0};
	const json_t *evs = json_object_get(v, "evidence"), *e;
	double tmin = 0, tmax = 0, t, x0 = LABEL + 14, x1, H;
	bool dated = false, undated = false;
	size_t i;

	if (lanes_build(v, &l) < 0) {
		free(l.v);
		names_free(l.jn, l.njn);
		return;
	}
	json_array_foreach(evs, i, e)
	{
		if (cli_time_parse(pmu_str(e, "event_time", ""), &t) == 0) {
			tmin = dated && tmin < t ? tmin : t;
			tmax = dated && tmax > t ? tmax : t;
			dated = true;
		} else {
			undated = true;
		}
	}
	x1 = W - (undated ? UNDATED : 0) - 24;
	if (tmax - tmin < 1) {
		tmin -= 0.5;
		tmax += 0.5;
	}
	H = TOP + (double)l.n * ROW + 16;
	fprintf(f,
		"<svg id=\"swimlanes\" viewBox=\"0 0 %d %.0f\" role=\"img\" "
		"aria-label=\"timeline per node and rank\">\n",
		W, H);
	/* the axis */
	if (dated) {
		char a[16], day[32];
		pmu_iso(tmin, day, sizeof(day), "?");
		fprintf(f, "<text x=\"%d\" y=\"14\" class=\"tick\">event time, %.10s UTC</text>\n",
			8, day);
		for (int k = 0; k <= 6; k++) {
			double tx = x0 + (x1 - x0) * k / 6.0;
			hms(tmin + (tmax - tmin) * k / 6.0, a, sizeof(a));
			fprintf(f,
				"<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%.0f\"/>"
				"<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">%s"
				"</text>\n",
				tx, tx, TOP - 10, H - 10, tx, TOP - 16,
				k == 0 ? "start" :
				k == 6 ? "end" :
					 "middle",
				a);
		}
	}
	if (undated)
		fprintf(f,
			"<text class=\"tick\" x=\"%.0f\" y=\"%d\">no event time</text>"
			"<line class=\"grid\" x1=\"%.0f\" x2=\"%.0f\" y1=\"%d\" y2=\"%.0f\"/>\n",
			x1 + 22, TOP - 16, x1 + 12, x1 + 12, TOP - 10, H - 10);
	/* the lanes */
	for (size_t k = 0; k < l.n; k++) {
		const struct lane *ln = &l.v[k];
		double y = TOP + (double)k * ROW;
		fprintf(f, "<g class=\"lane%s\" data-node=\"", ln->origin ? " lane-origin" : "");
		esc(f, ln->node ? ln->node : "(job)");
		if (ln->rank >= 0)
			fprintf(f, "\" data-rank=\"%lld", ln->rank);
		fprintf(f,
			"\"><rect class=\"band\" x=\"0\" y=\"%.0f\" width=\"%d\" height=\"%d\"/>",
			y, W, ROW - 2);
		if (ln->rank < 0) {
			fprintf(f, "<text class=\"node\" x=\"8\" y=\"%.0f\">", y + 15);
			esc(f, ln->node ? ln->node : "job (no node)");
			fprintf(f, "%s</text>", ln->origin ? " \xe2\x97\x86 origin" : "");
		} else {
			fprintf(f, "<text class=\"rank\" x=\"26\" y=\"%.0f\">rank %lld</text>",
				y + 15, ln->rank);
		}
		fputs("</g>\n", f);
	}
	/* the first error: a lead, drawn as such */
	const json_t *fe = json_object_get(v, "first_error");
	if (dated && cli_time_parse(pmu_str(fe, "event_time", ""), &t) == 0) {
		double fx = x0 + (x1 - x0) * (t - tmin) / (tmax - tmin);
		fprintf(f,
			"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%.0f\" stroke=\"#c0392b\" "
			"stroke-dasharray=\"4 3\"/><text x=\"%.1f\" y=\"%d\" class=\"tick\" "
			"text-anchor=\"middle\">first error</text>\n",
			fx, fx, TOP - 4, H - 10, fx, TOP - 2);
	}
	/* the events: origin ones last, so that they are drawn on top */
	for (int pass = 0; pass < 2; pass++)
		json_array_foreach(evs, i, e)
		{
			long k = lane_of(&l, e);
			bool origin = !strcmp(pmu_str(e, "role", ""), "origin");
			double y;
			if (k < 0 || origin != (pass == 1))
				continue;
			y = TOP + (double)k * ROW + (ROW - 2) / 2.0;
			if (dated && cli_time_parse(pmu_str(e, "event_time", ""), &t) == 0)
				marker(f, e, x0 + (x1 - x0) * (t - tmin) / (tmax - tmin), y);
			else if (l.v[k].undated < MAX_ON_ROW)
				marker(f, e, x1 + 26 + 8.0 * (double)l.v[k].undated++, y);
		}
	fputs("</svg>\n", f);
	fputs("<p class=\"legend\"><span><i style=\"background:#c0392b;border-radius:0\"></i>"
	      "origin</span><span><i style=\"background:#7f8c8d\"></i>cascade</span>"
	      "<span><i style=\"background:#c5cad3;border-radius:0\"></i>teardown</span>"
	      "<span><i style=\"background:#e67e22\"></i>confirmation</span>"
	      "<span><i style=\"background:#2980b9\"></i>context</span>"
	      "<span><i style=\"background:#27ae60\"></i>progress</span>"
	      " Event times as the sources stamped them; hover a mark for its line.</p>\n",
	      f);
	if (l.dropped)
		fprintf(f,
			"<p class=\"warn\">%zu more lane(s) not drawn; every event is in the "
			"evidence table.</p>\n",
			l.dropped);
	free(l.v);
	names_free(l.jn, l.njn);
}

/* ---- the sections ---- */

static void origin_dd(FILE *f, const json_t *o)
{
	static const char *const keys[] = {"nodes", "ranks", "gpus"};
	bool any = false;

	for (size_t k = 0; k < 3; k++) {
		const json_t *a = json_object_get(o, keys[k]), *x;
		size_t i;
		if (json_is_string(a) && *json_string_value(a)) { /* bystanders: ranges */
			fprintf(f, "%s%s ", any ? "; " : "", keys[k]);
			esc_json(f, a);
			any = true;
			continue;
		}
		if (!json_array_size(a))
			continue;
		fprintf(f, "%s%s ", any ? "; " : "", keys[k]);
		json_array_foreach(a, i, x)
		{
			if (i)
				fputs(", ", f);
			esc_json(f, x);
		}
		any = true;
	}
	if (!any)
		fputs("&#8212;", f);
}

static void header(FILE *f, const json_t *v, const json_t *m)
{
	const json_t *job = json_object_get(v, "job"), *cause = json_object_get(v, "cause");
	const json_t *fe = json_object_get(v, "first_error"), *x;
	size_t i;

	fputs("<header>\n<h1>Job ", f);
	esc(f, pmu_str(job, "id", ""));
	fputs(" <small>", f);
	esc_json(f, json_object_get(m ? json_object_get(m, "job") : job, "cluster"));
	fputs(" &#183; restart ", f);
	esc_json(f, json_object_get(m ? json_object_get(m, "job") : job, "restart"));
	fputs(" &#183; outcome <b>", f);
	esc(f, pmu_str(v, "outcome", ""));
	fputs("</b></small></h1>\n<p class=\"verdict\"><span class=\"badge status-", f);
	cls(f, pmu_str(v, "status", ""));
	fputs("\">", f);
	esc(f, pmu_str(v, "status", ""));
	fputs("</span><span class=\"class\" id=\"verdict-class\">", f);
	if (json_is_object(cause)) {
		esc(f, pmu_str(cause, "class", ""));
		fputs("/", f);
		esc(f, pmu_str(cause, "subclass", ""));
	} else {
		fputs("no cause", f);
	}
	fputs("</span> ", f);
	if (json_is_string(json_object_get(v, "confidence"))) {
		fputs("<span class=\"badge conf-", f);
		cls(f, pmu_str(v, "confidence", ""));
		fputs("\">", f);
		esc(f, pmu_str(v, "confidence", ""));
		fputs("</span>", f);
	}
	fputs("</p>\n<p>", f);
	esc(f, pmu_str(cause, "summary", ""));
	fputs("</p>\n", f);
	if (m && json_is_true(json_object_get(m, "provisional")))
		fputs("<p class=\"warn\">Provisional: not every node has reported; this verdict "
		      "may change.</p>\n",
		      f);
	json_array_foreach(json_object_get(json_object_get(m, "nodes"), "missing"), i, x)
	{
		fputs("<p class=\"warn\">Missing input: node ", f);
		esc(f, pmu_str(x, "node", ""));
		fputs(": ", f);
		esc(f, pmu_str(x, "reason", ""));
		fputs("</p>\n", f);
	}
	fputs("<dl><dt>origin</dt><dd>", f);
	origin_dd(f, json_object_get(v, "origin"));
	fputs("</dd><dt>bystanders</dt><dd>", f);
	origin_dd(f, json_object_get(v, "bystanders"));
	fputs("</dd><dt>first error</dt><dd>", f);
	if (json_is_object(fe)) {
		esc_json(f, json_object_get(fe, "event_time"));
		fputs(" on ", f);
		esc_json(f, json_object_get(fe, "node"));
		fputs(" (", f);
		esc(f, pmu_str(fe, "evidence", ""));
		fputs("): ", f);
		esc(f, pmu_str(fe, "note", ""));
	} else {
		fputs("&#8212;", f);
	}
	fputs("</dd><dt>nodes</dt><dd>", f);
	esc_json(f, json_object_get(job, "nodes")); /* a host list */
	fputs("</dd></dl>\n</header>\n", f);
}

static void decision(FILE *f, const json_t *v)
{
	const json_t *d = json_object_get(v, "decision"), *a = json_object_get(v, "ambiguity");
	static const char *const parts[] = {"containment", "repair"};
	const json_t *x;
	size_t i;

	fputs("<section id=\"decision\"><h2>Decision</h2>\n<table><tr><th></th><th>action</th>"
	      "<th>owner</th><th>justified</th><th>notes</th></tr>\n",
	      f);
	for (size_t k = 0; k < 2; k++) {
		const json_t *p = json_object_get(d, parts[k]);
		fprintf(f, "<tr><th>%s</th><td>", parts[k]);
		if (json_is_string(json_object_get(p, "id"))) {
			fputs("<code>", f);
			esc(f, pmu_str(p, "id", ""));
			fputs("</code> ", f);
		}
		esc(f, pmu_str(p, "action", ""));
		fputs("</td><td>", f);
		esc_json(f, json_object_get(p, "owner"));
		fputs("</td><td>", f);
		esc_json(f, json_object_get(p, "justified"));
		fputs("</td><td>", f);
		if (json_is_boolean(json_object_get(p, "reversible")))
			fputs(json_is_true(json_object_get(p, "reversible")) ? "reversible" :
									       "not reversible",
			      f);
		if (json_is_string(json_object_get(p, "requires"))) {
			fputs("requires ", f);
			esc(f, pmu_str(p, "requires", ""));
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n<dl><dt>would overturn it</dt><dd>", f);
	esc_json(f, json_object_get(d, "overturn"));
	fputs("</dd><dt>cheapest next test</dt><dd>", f);
	esc_json(f, json_object_get(d, "next_test"));
	fputs("</dd>", f);
	if (json_is_object(a)) {
		fputs("<dt>ambiguous between</dt><dd><ul>", f);
		json_array_foreach(json_object_get(a, "explanations"), i, x)
		{
			fputs("<li>", f);
			esc_json(f, x);
			fputs("</li>", f);
		}
		fputs("</ul></dd><dt>test that tells them apart</dt><dd>", f);
		esc_json(f, json_object_get(a, "test"));
		fputs("</dd>", f);
	}
	fputs("</dl>\n<h2>Why</h2><ol>", f);
	json_array_foreach(json_object_get(v, "why"), i, x)
	{
		fputs("<li>", f);
		esc_json(f, x);
		fputs("</li>", f);
	}
	fputs("</ol></section>\n", f);
}

static void evidence(FILE *f, const json_t *v)
{
	size_t n;
	const json_t **e = cli_timeline(v, &n);

	fprintf(f,
		"<section id=\"evidence\"><h2>Evidence (%zu, in event-time order)</h2>\n"
		"<table><tr><th>id</th><th>event time</th><th>observed</th><th>node</th>"
		"<th>rank</th><th>source</th><th>rule</th><th>role</th><th>line</th></tr>\n",
		n);
	for (size_t i = 0; i < n; i++) {
		fputs("<tr class=\"role-", f);
		cls(f, pmu_str(e[i], "role", ""));
		fputs("\"><td>", f);
		esc(f, pmu_str(e[i], "id", ""));
		static const char *const cols[] = {"event_time", "observed_time", "node", "rank",
						   "source",	 "rule",	  "role"};
		for (size_t k = 0; k < sizeof(cols) / sizeof(cols[0]); k++) {
			fputs(k < 2 ? "</td><td class=\"t\">" : "</td><td>", f);
			esc_json(f, json_object_get(e[i], cols[k]));
		}
		fputs("</td><td class=\"line\">", f);
		esc(f, pmu_str(e[i], "line", ""));
		fputs("<br><small>", f);
		esc(f, pmu_str(e[i], "file", ""));
		if (json_is_integer(json_object_get(e[i], "offset")))
			fprintf(f, " @%lld",
				(long long)json_integer_value(json_object_get(e[i], "offset")));
		fputs("</small></td></tr>\n", f);
	}
	fputs("</table></section>\n", f);
	free(e);
}

static void coverage(FILE *f, const json_t *v)
{
	const json_t *c, *g;
	size_t i, k;

	fputs("<section id=\"coverage\"><h2>Coverage</h2>\n<table><tr><th>node</th><th>source</th>"
	      "<th>file</th><th>status</th><th>reason</th></tr>\n",
	      f);
	json_array_foreach(json_object_get(v, "coverage"), k, g)
	{
		/* the inputs read whole, counted; each other one on a line of its own */
		if (json_integer_value(json_object_get(g, "ok"))) {
			fputs("<tr><td>", f);
			fprintf(f, "%lld input(s)",
				(long long)json_integer_value(json_object_get(g, "ok")));
			fputs("</td><td>", f);
			esc_json(f, json_object_get(g, "source"));
			fputs("</td><td></td><td class=\"st-ok\">ok</td><td></td></tr>\n", f);
		}
		json_array_foreach(json_object_get(g, "problems"), i, c)
		{
			fputs("<tr><td>", f);
			esc_json(f, json_object_get(c, "node"));
			fputs("</td><td>", f);
			esc_json(f, json_object_get(c, "source"));
			fputs("</td><td>", f);
			esc_json(f, json_object_get(c, "file"));
			fputs("</td><td class=\"st-", f);
			cls(f, pmu_str(c, "status", ""));
			fputs("\">", f);
			esc(f, pmu_str(c, "status", ""));
			fputs("</td><td>", f);
			esc(f, pmu_str(c, "reason", ""));
			fputs("</td></tr>\n", f);
		}
	}
	fputs("</table></section>\n", f);
}

static void page(FILE *f, const json_t *v, const json_t *m, const char *dir)
{
	const json_t *cause = json_object_get(v, "cause"), *rs = json_object_get(v, "ruleset");

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'; img-src data:\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>"
	      "postmortem: job ",
	      f);
	esc(f, pmu_str(json_object_get(v, "job"), "id", ""));
	fputs(" &#8212; ", f);
	esc(f, json_is_object(cause) ? pmu_str(cause, "class", "") : pmu_str(v, "status", ""));
	fprintf(f, "</title>\n<style>%s</style></head>\n<body><main>\n", CSS);
	header(f, v, m);
	fputs("<section id=\"timeline\"><h2>Timeline</h2>\n", f);
	swimlanes(f, v);
	fputs("</section>\n", f);
	decision(f, v);
	evidence(f, v);
	coverage(f, v);
	fputs("<footer>rule set ", f);
	esc(f, pmu_str(rs, "id", ""));
	fputs(" ", f);
	esc(f, pmu_str(rs, "version", ""));
	fputs(" (", f);
	esc(f, pmu_str(rs, "digest", ""));
	fputs(") &#183; input ", f);
	esc(f, pmu_str(v, "input_digest", ""));
	if (m) {
		fputs(" &#183; merged ", f);
		esc(f, pmu_str(m, "updated", ""));
		fputs(" &#183; evidence kept until ", f);
		esc(f, pmu_str(m, "expires", ""));
		fputs(" in <code>", f);
		esc(f, dir);
		fputs("</code>", f);
	}
	fputs(" &#183; postmortem " PACKAGE_VERSION "</footer>\n</main></body></html>\n", f);
}

/* Write the page to OUT ("-": stdout) through a temporary file and rename().  0 or -1.
 * The page quotes the job's evidence (other people's log lines on a shared node, what the
 * redactor kept): 0600 like fetch's copies, the temporary too, whatever the umask. */
static int write_page(const char *out, const json_t *v, const json_t *m, const char *dir)
{
	char tmp[4200];
	FILE *f;

	if (!strcmp(out, "-")) {
		page(stdout, v, m, dir);
		return fflush(stdout) == 0 ? 0 : -1;
	}
	snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", out, (long)getpid());
	if (!(f = pmu_create(tmp, 0600)))
		return -1;
	page(f, v, m, dir);
	if (ferror(f) | (fclose(f) != 0) || rename(tmp, out) < 0) {
		int e = errno;
		unlink(tmp);
		errno = e ? e : EIO;
		return -1;
	}
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct cli_where w = {0};
	struct cli_run r = {0};
	const char *out = NULL, *vfile = NULL;
	const struct pmu_opt opts[] = {
		{"output", 'o', true, &out, NULL},
		{"verdict", 'V', true, &vfile, NULL},
		CLI_WHERE_OPTS(&w),
	};
	char err[768];
	json_error_t je;
	json_t *v = NULL;
	int rc = 1;

	if (pmu_opts_parse(argc, argv, 1, opts, PMU_NELEM(opts)) || !out ||
	    (vfile ? optind != argc : optind != argc - 1)) {
		fprintf(stderr, USAGE, prog, prog);
		return 2;
	}
	if (vfile) {
		if (!(v = json_load_file(vfile, 0, &je))) {
			fprintf(stderr, "%s report: %s:%d: %s\n", prog, vfile, je.line, je.text);
			goto out;
		}
		pm_verdict_upgrade(v); /* version 1, as a stored one reads */
	} else {
		if (cli_run_open(&r, &w, argv[optind], "report", NULL) < 0)
			goto out;
		if (!(v = cli_verdict_load(r.dir, NULL, NULL, err, sizeof(err)))) {
			fprintf(stderr, "%s report: job %s: %s\n", prog, argv[optind], err);
			goto out;
		}
		/* the page names the run (4242~2), not Slurm's id alone that a reused id's
		 * runs share */
		char run[160];
		cli_run_name(&r, argv[optind], run, sizeof(run));
		if (strchr(run, PM_RUN_SEP) && json_is_object(json_object_get(v, "job")))
			json_object_set_new(json_object_get(v, "job"), "id", json_string(run));
	}
	if (!json_is_object(v) || !json_is_object(json_object_get(v, "job"))) {
		fprintf(stderr, "%s report: not a postmortem verdict\n", prog);
		goto out;
	}
	if (write_page(out, v, r.manifest, r.dir) < 0) {
		fprintf(stderr, "%s report: %s: %s\n", prog, out, strerror(errno));
		goto out;
	}
	if (strcmp(out, "-"))
		printf("report of job %s written to %s\n",
		       pmu_str(json_object_get(v, "job"), "id", ""), out);
	rc = 0;
out:
	json_decref(v);
	cli_run_close(&r);
	return rc;
}
