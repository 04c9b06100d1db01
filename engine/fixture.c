/*
 * fixture.c - run a rule set's known-answer cases and compare each verdict with the
 * hand-checked expectation, printing a readable diff on mismatch.
 */
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "internal.h"

struct diff {
	char *s;
	size_t n;
};

static void addf(struct diff *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void addf(struct diff *d, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	size_t l;
	char *p;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	l = strlen(line);
	p = realloc(d->s, d->n + l + 2);
	if (!p)
		return;
	d->s = p;
	memcpy(d->s + d->n, line, l);
	d->n += l;
	d->s[d->n++] = '\n';
	d->s[d->n] = '\0';
}

static char *compact(const json_t *j)
{
	char *s = json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT | JSON_ENCODE_ANY);
	if (s && strlen(s) > 300)
		strcpy(s + 290, "...");
	return s;
}

static bool subset(const json_t *exp, const json_t *act, const char *path, struct diff *d);

/* Each expected element must match a distinct element of the actual array. */
static bool contains(const json_t *exp, const json_t *act, const char *path, struct diff *d)
{
	size_t n = json_array_size(act), i;
	bool *used = calloc(n ? n : 1, sizeof(bool)), ok = true;
	json_t *e;

	if (!used)
		return false;
	json_array_foreach(exp, i, e)
	{
		bool found = false;
		for (size_t k = 0; k < n && !found; k++) {
			if (used[k])
				continue;
			if (subset(e, json_array_get(act, k), path, NULL))
				found = used[k] = true;
		}
		if (!found) {
			char *s = compact(e);
			addf(d, "  %s: no element matches %s", path, s ? s : "?");
			free(s);
			ok = false;
		}
	}
	free(used);
	return ok;
}

static bool subset(const json_t *exp, const json_t *act, const char *path, struct diff *d)
{
	char sub[512];

	if (json_is_object(exp)) {
		const char *k;
		json_t *v;
		bool ok = true;
		if (!json_is_object(act)) {
			if (d) {
				char *a = compact(act);
				addf(d, "  %s: expected an object, got %s", path, a ? a : "?");
				free(a);
			}
			return false;
		}
		json_object_foreach((json_t *)exp, k, v)
		{
			snprintf(sub, sizeof(sub), "%s.%s", path, k);
			if (!json_object_get(act, k)) {
				if (d)
					addf(d, "  %s: missing", sub);
				ok = false;
				continue;
			}
			if (json_is_array(v) &&
			    (!strcmp(k, "evidence") || !strcmp(k, "candidates") ||
			     !strcmp(k, "coverage") || !strcmp(k, "problems"))) {
				struct diff quiet = {0}; /* what a trial match would have said */
				if (!json_is_array(json_object_get(act, k)) ||
				    !contains(v, json_object_get(act, k), sub, d ? d : &quiet))
					ok = false;
				free(quiet.s);
				continue;
			}
			if (!subset(v, json_object_get(act, k), sub, d))
				ok = false;
		}
		return ok;
	}
	if (json_equal((json_t *)exp, (json_t *)act))
		return true;
	if (d) {
		char *e = compact(exp), *a = compact(act);
		addf(d, "  %s: expected %s, got %s", path, e ? e : "?", a ? a : "?");
		free(e);
		free(a);
	}
	return false;
}

static bool fired(const json_t *v, const char *rule)
{
	size_t i;
	json_t *e;

	json_array_foreach(json_object_get(v, "evidence"), i,
			   e) if (!strcmp(json_string_value(json_object_get(e, "rule")) ?: "",
					  rule)) return true;
	return false;
}

int pm_fixture_compare(const json_t *expected, const json_t *actual, char **diffout)
{
	struct diff d = {0};
	json_t *exp = json_deep_copy(expected), *x;
	size_t i;
	bool ok;

	if (!exp)
		return -1;
	json_array_foreach(json_object_get(exp, "fired"), i,
			   x) if (json_is_string(x) && !fired(actual, json_string_value(x)))
		addf(&d, "  fired: rule %s did not fire", json_string_value(x));
	json_array_foreach(json_object_get(exp, "not_fired"), i,
			   x) if (json_is_string(x) && fired(actual, json_string_value(x)))
		addf(&d, "  not_fired: rule %s fired", json_string_value(x));
	json_object_del(exp, "fired");
	json_object_del(exp, "not_fired");
	ok = subset(exp, actual, "verdict", &d) && d.n == 0;
	json_decref(exp);
	*diffout = d.s;
	return ok ? 0 : 1;
}

static void mark(const json_t *list, const struct pm_ruleset *rs, unsigned char *seen)
{
	size_t i;
	json_t *x;

	json_array_foreach(list, i,
			   x) for (size_t k = 0; k < pm_ruleset_count(rs);
				   k++) if (json_is_string(x) && !strcmp(json_string_value(x),
									 pm_ruleset_rule_id(rs, k)))
		seen[k] = 1;
}

/* The threads each case of more than one file is diagnosed with again, the same evidence
 * giving the same bytes whatever the threads (workers.c, scan_par): 3, or
 * POSTMORTEM_CHECK_THREADS (2 to 8; 0 or 1: no second run, for a caller that runs the same
 * cases many times over, as the wrapper test does). */
static unsigned second_threads(void)
{
	const char *e = getenv("POSTMORTEM_CHECK_THREADS");
	char *end;
	long v;

	if (!e || !*e)
		return 3;
	v = strtol(e, &end, 10);
	return *end || v < 2 ? 0 : v > 8 ? 8 : (unsigned)v;
}

/* Whether evidence PATH, diagnosed with THREADS threads, gives a verdict other than V (made
 * with one); where it does, the first line that differs in *DIFF. */
static bool threads_differ(const struct pm_ruleset *rs, const char *path, const json_t *v,
			   unsigned threads, char **diff)
{
	struct pm_evidence *ev;
	char err[512] = "", *a = NULL, *b = NULL;
	json_t *w = NULL;
	bool differ = false;

	if (threads < 2 || !(ev = pm_evidence_create(rs)))
		return false;
	if (pm_evidence_add_path(ev, path, err, sizeof(err)) < 0 || ev->nfiles < 2)
		goto out;
	pm_evidence_set_threads(ev, threads);
	a = json_dumps(v, JSON_SORT_KEYS | JSON_INDENT(1));
	if (!(w = pm_diagnose(ev, err, sizeof(err)))) {
		differ = true;
		if (asprintf(diff, "    with %u threads: %s\n", threads, err) < 0)
			*diff = NULL;
		goto out;
	}
	b = json_dumps(w, JSON_SORT_KEYS | JSON_INDENT(1));
	if (a && b && strcmp(a, b)) {
		size_t i = 0, ls = 0;

		differ = true;
		for (; a[i] && a[i] == b[i]; i++)
			if (a[i] == '\n')
				ls = i + 1;
		if (asprintf(diff, "    one thread: %.*s\n    %u threads: %.*s\n",
			     (int)strcspn(a + ls, "\n"), a + ls, threads,
			     (int)strcspn(b + ls, "\n"), b + ls) < 0)
			*diff = NULL;
	}
out:
	free(a);
	free(b);
	json_decref(w);
	pm_evidence_destroy(ev);
	return differ;
}

/* DIR/NAME: S, or an ERROR line and -1. */
static int keep_file(const char *dir, const char *name, const char *suffix, const char *s,
		     FILE *out)
{
	char p[4096];
	FILE *f = NULL;
	int rc = -1;

	if (s && (size_t)snprintf(p, sizeof(p), "%s/%s%s", dir, name, suffix) < sizeof(p) &&
	    (f = fopen(p, "w")) && fputs(s, f) >= 0)
		rc = 0;
	if (f && fclose(f) && rc == 0)
		rc = -1;
	if (rc < 0)
		fprintf(out, "ERROR %s: %s/%s%s could not be written: %s\n", name, dir, name,
			suffix, s ? strerror(errno) : "out of memory");
	return rc;
}

/* The case's verdict as `diagnose --json` prints it, to DIR/NAME.json, and its inputs as
 * `diagnose --inputs` prints them, to DIR/NAME.inputs.json: a schema check or a test over
 * every case reads them without a process a case (two processes a case were most of the
 * wrapper test's time under ASan). */
static int keep_verdict(const char *dir, const char *name, const struct pm_evidence *ev,
			const json_t *v, FILE *out)
{
	char *s = pm_verdict_dump(v), *in = NULL, *t = NULL;
	json_t *inputs = pm_evidence_inputs(ev);
	int rc = keep_file(dir, name, ".json", s, out);

	/* the bytes of diagnose's puts(json_dumps(...)) */
	if (rc == 0 && (!inputs || !(in = json_dumps(inputs, JSON_INDENT(2) | JSON_ENSURE_ASCII)) ||
			asprintf(&t, "%s\n", in) < 0))
		t = NULL;
	if (rc == 0)
		rc = keep_file(dir, name, ".inputs.json", t, out);
	free(t);
	free(in);
	free(s);
	json_decref(inputs);
	return rc;
}

static int run_case(const struct pm_ruleset *rs, const char *fixdir, const char *name,
		    const char *verdicts, FILE *out, struct pm_fixture_result *res,
		    unsigned char *seen)
{
	char p[4096], err[512] = "";
	json_error_t je;
	json_t *exp, *v = NULL;
	struct pm_evidence *ev = NULL;
	char *diff = NULL;

	snprintf(p, sizeof(p), "%s/%s/expected.json", fixdir, name);
	exp = json_load_file(p, 0, &je);
	if (!exp) {
		fprintf(out, "ERROR %s: expected.json line %d: %s\n", name, je.line, je.text);
		res->errors++;
		return 0;
	}
	mark(json_object_get(exp, "fired"), rs, seen);
	mark(json_object_get(exp, "not_fired"), rs, seen);
	snprintf(p, sizeof(p), "%s/%s/evidence", fixdir, name);
	ev = pm_evidence_create(rs);
	if (!ev || pm_evidence_add_path(ev, p, err, sizeof(err)) < 0 ||
	    !(v = pm_diagnose(ev, err, sizeof(err)))) {
		fprintf(out, "ERROR %s: %s\n", name, err[0] ? err : strerror(errno));
		res->errors++;
		goto out;
	}
	if (verdicts && keep_verdict(verdicts, name, ev, v, out) < 0) {
		res->errors++;
		goto out;
	}
	if (threads_differ(rs, p, v, second_threads(), &diff)) {
		fprintf(out, "FAIL  %s: the verdict differs with %u threads\n%s", name,
			second_threads(), diff ? diff : "");
		res->failed++;
	} else if (pm_fixture_compare(exp, v, &diff) == 0) {
		fprintf(out, "ok    %s\n", name);
		res->passed++;
	} else {
		const json_t *c = json_object_get(v, "cause");
		fprintf(out, "FAIL  %s: got %s %s %s/%s conf=%s\n%s", name,
			json_string_value(json_object_get(v, "outcome")),
			json_string_value(json_object_get(v, "status")),
			c ? json_string_value(json_object_get(c, "class")) : "-",
			c ? json_string_value(json_object_get(c, "subclass")) : "-",
			json_string_value(json_object_get(v, "confidence")) ?: "null",
			diff ? diff : "");
		res->failed++;
	}
out:
	free(diff);
	json_decref(v);
	json_decref(exp);
	pm_evidence_destroy(ev);
	return 0;
}

int pm_fixture_run(const struct pm_ruleset *rs, const char *fixdir, const char *only,
		   const char *verdicts, FILE *out, struct pm_fixture_result *res)
{
	DIR *d = opendir(fixdir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, a = 0;
	unsigned char *seen = calloc(pm_ruleset_count(rs) + 1, 1);

	memset(res, 0, sizeof(*res));
	if (!d || !seen) {
		free(seen);
		if (d)
			closedir(d);
		return -1;
	}
	while ((e = readdir(d))) {
		char p[4096];
		FILE *f;
		if (e->d_name[0] == '.' || (only && strcmp(only, e->d_name)))
			continue;
		snprintf(p, sizeof(p), "%s/%s/expected.json", fixdir, e->d_name);
		if (!(f = fopen(p, "r")))
			continue;
		fclose(f);
		if (n == a && pm_grow((void **)&names, &a, sizeof(char *)) < 0)
			break;
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	if (n > 1)
		qsort(names, n, sizeof(char *), pm_cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (!names[i])
			continue;
		res->cases++;
		run_case(rs, fixdir, names[i], verdicts, out, res, seen);
		free(names[i]);
	}
	free(names);
	if (!only) {
		/* a rule PCRE2 would confirm on every line: an error of the set, not of a case */
		unsigned char *broad = calloc(pm_ruleset_count(rs) + 1, 1);
		if (broad && pm_ruleset_broad(rs, broad) == 0)
			for (size_t k = 0; k < pm_ruleset_count(rs); k++)
				if (broad[k]) {
					fprintf(out,
						"ERROR rule %s: its scanning form finds a line of "
						"no words (an alternative of look-arounds alone?): "
						"every line would be confirmed\n",
						pm_ruleset_rule_id(rs, k));
					res->errors++;
				}
		free(broad);
		for (size_t k = 0; k < pm_ruleset_count(rs); k++)
			if (!seen[k]) {
				fprintf(out,
					"UNCOVERED rule %s: in no case's fired or not_fired list\n",
					pm_ruleset_rule_id(rs, k));
				res->rules_uncovered++;
			}
	}
	free(seen);
	return 0;
}
