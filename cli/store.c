/*
 * store.c - reading job runs back from the evidence store for the responder verbs: their
 * inputs re-diagnosed the way the finalizer merged them, two verdicts compared, the
 * incident timeline, and the times they are all stamped with.  The decision ledger's chain
 * is in ledger_chain.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "finalize.h" /* pm_bundle_manifest */
#include "pmutil.h"
#include "store.h"

#define SACCT_MAX (16u << 20)

/* ---- progress on a terminal ---- */

void cli_progress_init(struct cli_progress *p)
{
	*p = (struct cli_progress){.on = isatty(STDERR_FILENO) == 1};
}

void cli_progress(struct cli_progress *p, const char *fmt, ...)
{
	struct timespec ts;
	double now;
	char buf[256];
	va_list ap;

	if (!p->on)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	if (p->last > 0 && now - p->last < CLI_PROGRESS_EVERY)
		return;
	p->last = now;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "\r\033[K%s", buf);
	fflush(stderr);
	p->shown = true;
}

void cli_progress_clear(struct cli_progress *p)
{
	if (!p->on || !p->shown)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	p->shown = false;
}

/* ---- times ---- */

/* N digits at *P into *OUT; advances P.  false when they are not all there. */
static bool digits(const char **p, int n, int *out)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if ((*p)[i] < '0' || (*p)[i] > '9')
			return false;
		v = v * 10 + ((*p)[i] - '0');
	}
	*p += n;
	*out = v;
	return true;
}

int cli_time_parse(const char *s, double *out)
{
	struct tm tm = {0};
	int y, mo, d, h = 0, mi = 0, sec = 0, zh = 0, zm = 0;
	double frac = 0, scale = 0.1;
	const char *p = s;
	long off = 0;

	if (!s || !digits(&p, 4, &y) || *p++ != '-' || !digits(&p, 2, &mo) || *p++ != '-' ||
	    !digits(&p, 2, &d))
		goto bad;
	if (*p == 'T' || *p == ' ') {
		p++;
		if (!digits(&p, 2, &h) || *p++ != ':' || !digits(&p, 2, &mi))
			goto bad;
		if (*p == ':') {
			p++;
			if (!digits(&p, 2, &sec))
				goto bad;
		}
		if (*p == '.' || *p == ',') {
			if (!(p[1] >= '0' && p[1] <= '9'))
				goto bad;
			for (p++; *p >= '0' && *p <= '9'; p++, scale /= 10)
				frac += (*p - '0') * scale;
		}
		if (*p == 'Z') {
			p++;
		} else if (*p == '+' || *p == '-') {
			int sign = *p++ == '-' ? -1 : 1;
			if (!digits(&p, 2, &zh))
				goto bad;
			if (*p == ':')
				p++;
			if (!digits(&p, 2, &zm))
				goto bad;
			off = sign * (zh * 3600L + zm * 60L);
		}
	}
	if (*p || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60 ||
	    zh > 23 || zm > 59)
		goto bad;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	*out = (double)timegm(&tm) - (double)off + frac;
	return 0;
bad:
	errno = EINVAL;
	return -1;
}

/* ---- files ---- */

int cli_read_file(const char *path, size_t max, char **buf, size_t *len)
{
	struct stat st;
	char *b = NULL;
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), e;

	*buf = NULL;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		goto fail;
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > max) {
		errno = S_ISREG(st.st_mode) ? EFBIG : EINVAL;
		goto fail;
	}
	if (!(b = malloc((size_t)st.st_size + 1)))
		goto fail;
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, b + got, (size_t)st.st_size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				break; /* shrank under us: what is there */
			goto fail;
		}
		got += (size_t)r;
	}
	b[got] = '\0';
	close(fd);
	*buf = b;
	if (len)
		*len = got;
	return 0;
fail:
	e = errno;
	free(b);
	close(fd);
	errno = e;
	return -1;
}

/* ---- re-diagnosing a job run ---- */

static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The bundle names in JOBDIR/nodes, sorted; NULL-terminated, *N of them. */
static char **bundle_names(const char *jobdir, size_t *n)
{
	char p[4096], **v = NULL, **nv;
	DIR *d;
	struct dirent *de;

	*n = 0;
	snprintf(p, sizeof(p), "%s/nodes", jobdir);
	if (!(d = opendir(p)))
		return errno == ENOENT ? calloc(1, sizeof(char *)) : NULL;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (de->d_name[0] == '.' || l <= 8 || strcmp(de->d_name + l - 8, ".tar.zst"))
			continue;
		if (!(nv = realloc(v, (*n + 2) * sizeof(*v))) || !(nv[*n] = strdup(de->d_name))) {
			v = nv ? nv : v;
			break;
		}
		v = nv;
		v[++*n] = NULL;
	}
	closedir(d);
	if (!v)
		v = calloc(1, sizeof(char *));
	else
		qsort(v, *n, sizeof(*v), cmpstr);
	return v;
}

static void names_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static void note(struct cli_inputs *in, const char *file, const char *node, const char *status,
		 const char *reason)
{
	json_array_append_new(in->notes, json_pack("{s:s,s:s?,s:s,s:s}", "file", file, "node", node,
						   "status", status, "reason", reason));
}

/*
 * A bundle that arrived after the cut-off: what was known then is only that its sources were
 * on their way.  An unpacked bundle holding its manifest without files and with every source
 * "lagging" says exactly that to the engine.
 */
static int add_lagging(const char *path, const char *name, double arrived, double cutoff,
		       struct pm_evidence *ev, struct cli_inputs *in)
{
	json_t *m = pm_bundle_manifest(path), *cov = json_array(), *f;
	char tmp[4096], file[4200], a[32], c[32], reason[160], err[300] = "";
	const char *base = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	int rc = -1;
	size_t i;

	pmu_iso(arrived, a, sizeof(a), "?");
	pmu_iso(cutoff, c, sizeof(c), "?");
	snprintf(reason, sizeof(reason), "arrived %s, after the observation cut-off %s", a, c);
	if (!m || !cov) {
		note(in, name, NULL, "rejected", "lagging, and its manifest cannot be read");
		in->rejected++;
		rc = 0;
		goto out;
	}
	json_array_foreach(json_object_get(m, "files"), i, f)
	{
		const char *src = json_string_value(json_object_get(f, "source"));
		bool seen = false;
		size_t k;
		json_t *x;
		json_array_foreach(cov, k, x)
			seen = seen || !strcmp(pmu_str(x, "source", "-"), src ? src : "");
		if (src && !seen)
			json_array_append_new(cov,
					      json_pack("{s:s,s:s,s:s}", "source", src, "status",
							"lagging", "reason", reason));
	}
	json_object_set_new(m, "files", json_array());
	json_object_set(m, "coverage", cov);
	snprintf(tmp, sizeof(tmp), "%s/pm-lagging.XXXXXX", base);
	if (!mkdtemp(tmp))
		goto out;
	snprintf(file, sizeof(file), "%s/manifest.json", tmp);
	if (json_dump_file(m, file, JSON_SORT_KEYS) == 0 &&
	    pm_evidence_add_path(ev, tmp, err, sizeof(err)) == 0) {
		in->lagging++;
		note(in, name, json_string_value(json_object_get(m, "node")), "lagging", reason);
		rc = 0;
	}
	unlink(file);
	rmdir(tmp);
out:
	json_decref(m);
	json_decref(cov);
	return rc;
}

int cli_job_inputs(const char *jobdir, const struct pm_ruleset *rs, struct pm_evidence *ev,
		   double cutoff, struct cli_inputs *in, char *err, size_t errlen)
{
	size_t n = 0;
	char **names = bundle_names(jobdir, &n), p[4096], *buf = NULL, e2[512];
	struct stat st;
	size_t len;
	int rc = -1;

	memset(in, 0, sizeof(*in));
	if (!(in->notes = json_array()) || !names) {
		pmu_fail(err, errlen, errno ? errno : ENOMEM, "%s/nodes: %s", jobdir,
			 strerror(errno ? errno : ENOMEM));
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		struct pm_evidence *scratch;
		char rel[300];

		snprintf(rel, sizeof(rel), "nodes/%s", names[i]);
		snprintf(p, sizeof(p), "%s/%s", jobdir, rel);
		in->bundles++;
		if (cutoff > 0 && stat(p, &st) == 0 && (double)st.st_mtime > cutoff) {
			if (add_lagging(p, rel, (double)st.st_mtime, cutoff, ev, in) < 0) {
				pmu_fail(err, errlen, errno, "%s: %s", p, strerror(errno));
				goto out;
			}
			continue;
		}
		/* as the finalizer does: a bundle the engine rejects must leave nothing behind */
		if (!(scratch = pm_evidence_create(rs)))
			goto out;
		e2[0] = '\0';
		if (pm_evidence_add_path(scratch, p, e2, sizeof(e2)) < 0 ||
		    pm_evidence_add_path(ev, p, e2, sizeof(e2)) < 0) {
			note(in, rel, NULL, "rejected", e2);
			in->rejected++;
		} else {
			in->added++;
		}
		pm_evidence_destroy(scratch);
	}
	/* Slurm's record as the finalizer adds it: the stored file, read from disk as
	 * `postmortem diagnose` reads a fetched copy (the same input digest) */
	snprintf(p, sizeof(p), "%s/sacct.txt", jobdir);
	if (cli_read_file(p, SACCT_MAX, &buf, &len) == 0) {
		if (pm_evidence_add_path(ev, p, err, errlen) < 0)
			goto out;
		in->sched = true;
	} else {
		note(in, "sacct.txt", NULL, "missing", strerror(errno));
	}
	rc = 0;
out:
	if (rc < 0 && err && errlen && !err[0])
		pmu_fail(err, errlen, errno ? errno : ENOMEM, "%s: %s", jobdir,
			 strerror(errno ? errno : ENOMEM));
	free(buf);
	names_free(names);
	return rc;
}

json_t *cli_job_rediagnose(const char *jobdir, const struct pm_ruleset *rs, double cutoff,
			   struct cli_inputs *in, char *err, size_t errlen)
{
	struct pm_evidence *ev = pm_evidence_create(rs);
	json_t *v = NULL;

	if (err && errlen)
		err[0] = '\0';
	if (!ev) {
		pmu_fail(err, errlen, ENOMEM, "out of memory");
		memset(in, 0, sizeof(*in));
		return NULL;
	}
	if (cli_job_inputs(jobdir, rs, ev, cutoff, in, err, errlen) == 0)
		v = pm_diagnose(ev, err, errlen);
	pm_evidence_destroy(ev);
	return v;
}

/* ---- comparing verdicts ---- */

static int rank_of(const char *s, const char *const *names)
{
	for (int i = 0; s && names[i]; i++)
		if (!strcmp(s, names[i]))
			return 3 - i;
	return 0;
}

int cli_confidence_rank(const json_t *v)
{
	static const char *const names[] = {"established", "supported", "hypothesis", NULL};
	return rank_of(json_string_value(json_object_get(v, "confidence")), names);
}

int cli_status_rank(const json_t *v)
{
	static const char *const names[] = {"attributed", "ambiguous", "unknown", NULL};
	return rank_of(json_string_value(json_object_get(v, "status")), names);
}

void cli_verdict_cause(const json_t *v, char *buf, size_t len)
{
	const json_t *c = json_object_get(v, "cause");

	if (json_is_object(c))
		snprintf(buf, len, "%s/%s", pmu_str(c, "class", "-"), pmu_str(c, "subclass", "-"));
	else
		snprintf(buf, len, "-");
}

static void join(char *buf, size_t len, const json_t *a, bool ints)
{
	size_t i, o = strlen(buf);
	json_t *x;

	json_array_foreach(a, i, x)
	{
		if (o >= len)
			return;
		if (ints)
			o += (size_t)snprintf(buf + o, len - o, "%s%lld", i ? "," : "",
					      (long long)json_integer_value(x));
		else
			o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? "," : "",
					      json_is_string(x) ? json_string_value(x) : "?");
	}
}

void cli_verdict_origin(const json_t *v, char *buf, size_t len)
{
	const json_t *o = json_object_get(v, "origin");

	buf[0] = '\0';
	join(buf, len, json_object_get(o, "nodes"), false);
	if (json_array_size(json_object_get(o, "ranks"))) {
		size_t n = strlen(buf);
		snprintf(buf + n, len - n, ":");
		join(buf, len, json_object_get(o, "ranks"), true);
	}
	if (!buf[0])
		snprintf(buf, len, "-");
}

static json_t *field_value(const json_t *v, const char *f)
{
	char buf[1024];

	if (!strcmp(f, "class"))
		cli_verdict_cause(v, buf, sizeof(buf));
	else if (!strcmp(f, "origin"))
		cli_verdict_origin(v, buf, sizeof(buf));
	else
		return json_is_string(json_object_get(v, f)) ? json_copy(json_object_get(v, f)) :
							       json_null();
	return json_string(buf);
}

/* rule id -> {"rule", "role", "class", "subclass", "nodes"} over a verdict's evidence. */
static json_t *rules_fired(const json_t *v)
{
	json_t *m = json_object(), *x;
	size_t i;

	json_array_foreach(json_object_get(v, "evidence"), i, x)
	{
		const char *id = json_string_value(json_object_get(x, "rule"));
		const json_t *node = json_object_get(x, "node");
		json_t *r;

		if (!id)
			continue;
		if (!(r = json_object_get(m, id))) {
			r = json_pack("{s:s,s:s,s:s,s:s,s:[]}", "rule", id, "role",
				      pmu_str(x, "role", "-"), "class", pmu_str(x, "class", "-"),
				      "subclass", pmu_str(x, "subclass", "-"), "nodes");
			json_object_set_new(m, id, r);
		}
		if (json_is_string(node)) {
			json_t *nodes = json_object_get(r, "nodes"), *y;
			size_t k;
			bool seen = false;
			json_array_foreach(nodes, k, y) seen = seen || json_equal(y, node);
			if (!seen)
				json_array_append(nodes, (json_t *)node);
		}
	}
	return m;
}

static bool same_rule(const json_t *a, const json_t *b)
{
	return !strcmp(pmu_str(a, "role", "-"), pmu_str(b, "role", "-")) &&
	       !strcmp(pmu_str(a, "class", "-"), pmu_str(b, "class", "-")) &&
	       !strcmp(pmu_str(a, "subclass", "-"), pmu_str(b, "subclass", "-"));
}

static bool in_set(const struct pm_ruleset *rs, const char *id)
{
	for (size_t i = 0; rs && i < pm_ruleset_count(rs); i++)
		if (!strcmp(pm_ruleset_rule_id(rs, i), id))
			return true;
	return !rs;
}

/* The "why" line: the rules that account for the change, in words. */
static void why_line(json_t *c, char *buf, size_t len)
{
	const json_t *rules = json_object_get(c, "rules"), *x;
	static const char *const kinds[] = {"appeared", "disappeared", "changed"};
	static const char *const words[] = {"now fires", "no longer fires", "changed"};
	size_t o = 0, i;

	buf[0] = '\0';
	for (size_t k = 0; k < 3; k++)
		json_array_foreach(json_object_get(rules, kinds[k]), i, x)
		{
			const json_t *n = k == 2 ? json_object_get(x, "new") : x;
			const json_t *old = json_object_get(x, "old");
			char nodes[256] = "", was[200] = "";
			join(nodes, sizeof(nodes), json_object_get(x, "nodes"), false);
			if (k == 2)
				snprintf(was, sizeof(was), "%s %s/%s -> ",
					 pmu_str(old, "role", "-"), pmu_str(old, "class", "-"),
					 pmu_str(old, "subclass", "-"));
			if (o < len)
				o += (size_t)snprintf(buf + o, len - o, "%s%s %s (%s%s %s/%s%s%s)",
						      o ? "; " : "", pmu_str(x, "rule", "-"),
						      words[k], was, pmu_str(n, "role", "-"),
						      pmu_str(n, "class", "-"),
						      pmu_str(n, "subclass", "-"),
						      nodes[0] ? " on " : "", nodes);
		}
	json_array_foreach(json_object_get(c, "not_in_set"), i, x) if (o < len)
		o += (size_t)snprintf(buf + o, len - o, "%s%s is not in the rule set any more",
				      o ? "; " : "", json_string_value(x));
	if (json_is_true(json_object_get(c, "inputs_differ")) && o < len)
		o += (size_t)snprintf(buf + o, len - o,
				      "%sthe inputs differ from the stored "
				      "verdict's (evidence arrived or went since)",
				      o ? "; " : "");
	if (!json_is_true(json_object_get(c, "changed")) && o < len)
		snprintf(buf + o, len - o,
			 "%sthe conclusion is the same; only details differ "
			 "(evidence, coverage)",
			 o ? "; " : "");
	else if (!o && json_is_true(json_object_get(c, "ruleset_changed")))
		snprintf(buf, len,
			 "same rules fired: the rule set's data (class priorities, "
			 "tolerances, thresholds) changed");
	else if (!o)
		snprintf(buf, len, "same rules and inputs: the engine differs");
}

json_t *cli_verdict_changes(const json_t *old, const json_t *new, const struct pm_ruleset *rs)
{
	static const char *const fields[] = {"outcome", "status", "confidence", "class", "origin"};
	json_t *c = json_object(), *fl = json_array(), *ro = rules_fired(old),
	       *rn = rules_fired(new);
	json_t *app = json_array(), *dis = json_array(), *chg = json_array(), *gone = json_array();
	const char *id;
	json_t *x;
	char why[2048];
	bool changed = false;

	if (!c || !fl || !ro || !rn || !app || !dis || !chg || !gone)
		goto fail;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		json_t *a = field_value(old, fields[i]), *b = field_value(new, fields[i]);
		if (!json_equal(a, b)) {
			json_array_append_new(fl, json_pack("{s:s,s:o,s:o}", "field", fields[i],
							    "old", a, "new", b));
			changed = true;
		} else {
			json_decref(a);
			json_decref(b);
		}
	}
	/* jansson objects keep insertion order: evidence order, deterministic */
	json_object_foreach(rn, id, x) if (!json_object_get(ro, id)) json_array_append(app, x);
	json_object_foreach(ro, id, x)
	{
		const json_t *y = json_object_get(rn, id);
		if (!y) {
			json_array_append(dis, x);
			if (!in_set(rs, id))
				json_array_append_new(gone, json_string(id));
		} else if (!same_rule(x, y)) {
			json_array_append_new(chg, json_pack("{s:s,s:O,s:O,s:O}", "rule", id, "old",
							     x, "new", y, "nodes",
							     json_object_get(y, "nodes")));
		}
	}
	json_object_set_new(c, "changed", json_boolean(changed));
	json_object_set_new(c, "fields", fl);
	json_object_set_new(c, "rules",
			    json_pack("{s:o,s:o,s:o}", "appeared", app, "disappeared", dis,
				      "changed", chg));
	json_object_set_new(c, "not_in_set", gone);
	json_object_set_new(c, "inputs_differ",
			    json_boolean(strcmp(pmu_str(old, "input_digest", "-"),
						pmu_str(new, "input_digest", "-"))));
	json_object_set_new(c, "ruleset_changed",
			    json_boolean(
				    strcmp(pmu_str(json_object_get(old, "ruleset"), "digest", "-"),
					   pmu_str(json_object_get(new, "ruleset"), "digest",
						   "-"))));
	json_object_set_new(c, "explained",
			    json_boolean(!changed || json_array_size(app) || json_array_size(dis) ||
					 json_array_size(chg) ||
					 json_is_true(json_object_get(c, "inputs_differ"))));
	why_line(c, why, sizeof(why));
	json_object_set_new(c, "why", json_string(why));
	json_decref(ro);
	json_decref(rn);
	return c;
fail:
	json_decref(c);
	json_decref(fl);
	json_decref(ro);
	json_decref(rn);
	json_decref(app);
	json_decref(dis);
	json_decref(chg);
	json_decref(gone);
	errno = ENOMEM;
	return NULL;
}

/* ---- the timeline ---- */

struct tl {
	const json_t *e;
	size_t i;
};

static int by_time(const void *a, const void *b)
{
	const struct tl *x = a, *y = b;
	const char *tx = json_string_value(json_object_get(x->e, "event_time"));
	const char *ty = json_string_value(json_object_get(y->e, "event_time"));
	int c;

	if (!tx || !ty)
		c = !tx - !ty; /* undated last */
	else
		c = strcmp(tx, ty); /* one format throughout: text order is time order */
	return c ? c : (x->i > y->i) - (x->i < y->i);
}

const json_t **cli_timeline(const json_t *v, size_t *n)
{
	const json_t *evs = json_object_get(v, "evidence"), **out;
	struct tl *t;

	*n = json_array_size(evs);
	if (!*n || !(t = calloc(*n, sizeof(*t))))
		return NULL;
	if (!(out = calloc(*n, sizeof(*out)))) {
		free(t);
		return NULL;
	}
	for (size_t i = 0; i < *n; i++)
		t[i] = (struct tl){json_array_get(evs, i), i};
	qsort(t, *n, sizeof(*t), by_time);
	for (size_t i = 0; i < *n; i++)
		out[i] = t[i].e;
	free(t);
	return out;
}

void cli_timeline_print(FILE *f, const json_t *v, size_t max)
{
	size_t n;
	const json_t **e = cli_timeline(v, &n);

	fprintf(f, "timeline (event time; * origin, ~ cascade, - teardown):\n");
	if (!e) {
		fprintf(f, "  (no evidence)\n");
		return;
	}
	for (size_t i = 0; i < n && (!max || i < max); i++) {
		const char *role = pmu_str(e[i], "role", "-");
		const json_t *rank = json_object_get(e[i], "rank");
		char r[24] = "";

		if (json_is_integer(rank))
			snprintf(r, sizeof(r), "rank %lld", (long long)json_integer_value(rank));
		fprintf(f, "  %-24s %c %-5s %-10s %-12s %-9s %s\n",
			json_is_string(json_object_get(e[i], "event_time")) ?
				pmu_str(e[i], "event_time", "-") :
				"(no time)",
			!strcmp(role, "origin")	  ? '*' :
			!strcmp(role, "cascade")  ? '~' :
			!strcmp(role, "teardown") ? '-' :
						    ' ',
			pmu_str(e[i], "id", "-"), pmu_str(e[i], "node", "-"),
			pmu_str(e[i], "source", "-"), r, pmu_str(e[i], "rule", "-"));
	}
	if (max && n > max)
		fprintf(f, "  ... %zu more (postmortem show JOB --timeline)\n", n - max);
	free(e);
}

double cli_ruleset_skew_ms(const struct pm_ruleset *rs)
{
	return pm_ruleset_skew_s(rs) * 1000;
}

static json_t *opt_copy(const json_t *x)
{
	return x ? json_deep_copy(x) : json_null();
}

json_t *cli_timeline_json(const json_t *v, double skew_ms, bool rules_match)
{
	size_t n = 0;
	const json_t **e = cli_timeline(v, &n);
	json_t *events = json_array(), *o;

	if (!events || (n && !e))
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		double et = 0, ot = 0, pt;
		bool has_et = cli_time_parse(json_string_value(json_object_get(e[i], "event_time")),
					     &et) == 0;
		bool has_ot =
			cli_time_parse(json_string_value(json_object_get(e[i], "observed_time")),
				       &ot) == 0;
		const json_t *near = NULL;
		json_t *x;

		/* the latest earlier dated event on another node closer than the tolerance */
		for (size_t k = i; has_et && skew_ms >= 0 && k-- > 0;) {
			if (cli_time_parse(json_string_value(json_object_get(e[k], "event_time")),
					   &pt) < 0)
				continue;
			if ((et - pt) * 1000 >= skew_ms)
				break;
			if (!json_equal(json_object_get(e[k], "node"),
					json_object_get(e[i], "node"))) {
				near = e[k];
				break;
			}
		}
		x = json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "id",
			      opt_copy(json_object_get(e[i], "id")), "event_time",
			      opt_copy(json_object_get(e[i], "event_time")), "observed_time",
			      opt_copy(json_object_get(e[i], "observed_time")), "observed_after_s",
			      has_et && has_ot ? json_real(round((ot - et) * 1000) / 1000) :
						 json_null(),
			      "within_skew_of",
			      near ? opt_copy(json_object_get(near, "id")) : json_null(), "node",
			      opt_copy(json_object_get(e[i], "node")), "rank",
			      opt_copy(json_object_get(e[i], "rank")), "gpu",
			      opt_copy(json_object_get(e[i], "gpu")), "source",
			      opt_copy(json_object_get(e[i], "source")), "trusted",
			      opt_copy(json_object_get(e[i], "trusted")), "role",
			      opt_copy(json_object_get(e[i], "role")), "rule",
			      opt_copy(json_object_get(e[i], "rule")), "class",
			      opt_copy(json_object_get(e[i], "class")), "subclass",
			      opt_copy(json_object_get(e[i], "subclass")), "line",
			      opt_copy(json_object_get(e[i], "line")));
		if (!x || json_array_append_new(events, x) < 0)
			goto nomem;
	}
	free(e);
	o = json_pack("{s:s,s:o,s:o,s:o,s:b,s:o}", "schema", "postmortem.timeline/1", "job",
		      opt_copy(json_object_get(v, "job")), "ruleset",
		      opt_copy(json_object_get(v, "ruleset")), "skew_tolerance_ms",
		      skew_ms >= 0 ? json_integer((json_int_t)(skew_ms + 0.5)) : json_null(),
		      "skew_from_verdict_rules", rules_match, "events", events);
	if (!o)
		errno = ENOMEM;
	return o;
nomem:
	free(e);
	json_decref(events);
	errno = ENOMEM;
	return NULL;
}
