/*
 * history_policy.c - the repeat policy (history.h): whether records justify a repair, and a
 * verdict given the records it uses (its "node_history", its input_digest, its repair).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "history.h"
#include "history_int.h"
#include "pmutil.h"
#include "postmortem.h"

void pm_history_policy_default(struct pm_history_policy *p)
{
	p->jobs = PM_HISTORY_JOBS;
	p->window = PM_HISTORY_WINDOW;
}

void pm_history_policy_of(unsigned jobs, double window, struct pm_history_policy *p)
{
	pm_history_policy_default(p);
	if (jobs >= 2)
		p->jobs = jobs;
	if (window > 0)
		p->window = window;
}

/* Distinct jobs among R[0..N) of class CLS (not refuted, hardware) with time in [FROM, TO],
 * plus SELF's job when not NULL; the runs into *BY when BY. */
static size_t count_jobs(const struct pm_history_rec *r, size_t n, const char *cls, double from,
			 double to, const char *self, char ***by)
{
	char **jobs = NULL, **runs = NULL, j[200];
	size_t nj = 0, nr = 0;

	if (self) {
		pm_hist_job_of(self, j, sizeof(j));
		pm_hist_strv_add(&jobs, &nj, j);
	}
	for (size_t i = 0; i < n; i++) {
		if (r[i].refuted || !r[i].hardware || strcmp(r[i].cls, cls) || r[i].time < from ||
		    r[i].time > to)
			continue;
		pm_hist_job_of(r[i].run, j, sizeof(j));
		if (!pm_hist_strv_has(jobs, nj, j))
			pm_hist_strv_add(&jobs, &nj, j);
		if (by && !pm_hist_strv_has(runs, nr, r[i].run))
			pm_hist_strv_add(&runs, &nr, r[i].run);
	}
	pm_history_strv_free(jobs);
	if (by)
		*by = runs;
	else
		pm_history_strv_free(runs);
	return nj;
}

bool pm_history_justified(const struct pm_history_rec *r, size_t n, const char *cls,
			  const struct pm_history_policy *pol, char ***by)
{
	if (by)
		*by = NULL;
	/* each record's class, as the latest of a window ending at it: the first that meets the
	 * policy, latest first (the repair most recently justified) */
	for (size_t k = n; k-- > 0;) {
		char **runs = NULL;
		if (r[k].refuted || !r[k].hardware || (cls && strcmp(r[k].cls, cls)))
			continue;
		if (count_jobs(r, k + 1, r[k].cls, r[k].time - pol->window, r[k].time, NULL,
			       by ? &runs : NULL) >= pol->jobs) {
			if (by)
				*by = runs;
			return true;
		}
		pm_history_strv_free(runs);
	}
	return false;
}

/* ---- the records in a verdict ---- */

/* A verdict's time: "2026-11-30T03:11:58.000Z" (the schema's, with milliseconds). */
static void iso_ms(double t, char *buf, size_t len)
{
	char s[40];

	pmu_iso(t, s, sizeof(s), "1970-01-01T00:00:00Z");
	snprintf(buf, len, "%.19s.000Z", s);
}

static json_t *used_json(const struct pm_history_rec *r)
{
	char t[40];

	iso_ms(r->time, t, sizeof(t));
	return json_pack("{s:s,s:s,s:s,s:s,s:s,s:s}", "run", r->run, "node", r->node, "class",
			 r->cls, "subclass", r->sub, "confidence", r->conf, "time", t);
}

/* The engine's input_digest and the records, in one digest: same evidence and history, same
 * digest. */
static void digest(json_t *verdict, const struct pm_history_rec *r, size_t n)
{
	const char *old = S(verdict, "input_digest");
	struct pm_sha256 d;
	unsigned char out[32];
	char hex[80], t[40];

	pm_sha256_init(&d);
	pm_sha256_update(&d, old, strlen(old) + 1);
	for (size_t i = 0; i < n; i++) {
		const char *f[] = {r[i].run, r[i].node, r[i].cls, r[i].sub, r[i].conf, t};
		iso_ms(r[i].time, t, sizeof(t));
		for (size_t k = 0; k < sizeof(f) / sizeof(f[0]); k++)
			pm_sha256_update(&d, f[k], strlen(f[k]) + 1);
	}
	pm_sha256_final(&d, out);
	pm_sha256_hex(out, hex);
	json_object_set_new(verdict, "input_digest", json_string(hex));
}

int pm_history_apply(json_t *verdict, const char *run, const struct pm_history_rec *r, size_t n,
		     const struct pm_history_policy *pol)
{
	const char *cls = S(json_object_get(verdict, "cause"), "class");
	json_t *used, *repair = json_object_get(json_object_get(verdict, "decision"), "repair");
	char **nodes, **runs = NULL;
	size_t nruns = 0;
	int justified = 0;

	if (!n)
		return 0;
	if (!(used = json_array()))
		return -1;
	for (size_t i = 0; i < n; i++)
		json_array_append_new(used, used_json(&r[i]));
	json_object_set_new(verdict, "node_history", used);
	nodes = pm_history_origin_nodes(verdict);
	for (size_t i = 0; nodes && nodes[i]; i++) {
		struct pm_history_rec *mine = malloc(n * sizeof(*mine));
		size_t m = 0;
		char **by = NULL;
		if (!mine)
			break;
		for (size_t k = 0; k < n; k++)
			if (!strcmp(r[k].node, nodes[i]))
				mine[m++] = r[k];
		for (size_t k = 0; k < m; k++)
			mine[k].hardware = pm_class_hardware(mine[k].cls);
		if (count_jobs(mine, m, cls, -1e18, 1e18, run, &by) >= pol->jobs) {
			justified = 1;
			for (size_t k = 0; by && by[k]; k++)
				if (!pm_hist_strv_has(runs, nruns, by[k]))
					pm_hist_strv_add(&runs, &nruns, by[k]);
		}
		pm_history_strv_free(by);
		free(mine);
	}
	pm_history_strv_free(nodes);
	if (justified && json_is_object(repair)) {
		json_t *a = json_array();
		for (size_t i = 0; i < n; i++) { /* in the records' (time) order */
			bool seen = false;
			for (size_t k = 0; k < json_array_size(a); k++)
				seen = seen ||
				       !strcmp(json_string_value(json_array_get(a, k)), r[i].run);
			if (!seen && pm_hist_strv_has(runs, nruns, r[i].run))
				json_array_append_new(a, json_string(r[i].run));
		}
		json_object_set_new(repair, "justified", json_true());
		json_object_set_new(repair, "repeats", a);
	} else if (!json_is_object(repair)) {
		justified = 0;
	}
	pm_history_strv_free(runs);
	digest(verdict, r, n);
	return justified;
}

int pm_history_used(const json_t *verdict, struct pm_history_rec **out, size_t *n)
{
	const json_t *a = json_object_get(verdict, "node_history"), *e;
	size_t i;

	*out = NULL;
	*n = 0;
	if (!a)
		return 0;
	if (!json_is_array(a) || !(*out = calloc(json_array_size(a) + 1, sizeof(**out)))) {
		errno = json_is_array(a) ? ENOMEM : EINVAL;
		return -1;
	}
	json_array_foreach(a, i, e)
	{
		struct pm_history_rec *r = &(*out)[i];
		struct tm tm = {0};
		copy(r->run, sizeof(r->run), S(e, "run"));
		copy(r->node, sizeof(r->node), S(e, "node"));
		copy(r->cls, sizeof(r->cls), S(e, "class"));
		copy(r->sub, sizeof(r->sub), S(e, "subclass"));
		copy(r->conf, sizeof(r->conf), S(e, "confidence"));
		if (!strptime(S(e, "time"), "%Y-%m-%dT%H:%M:%S", &tm)) {
			free(*out);
			*out = NULL;
			errno = EINVAL;
			return -1;
		}
		r->time = (double)timegm(&tm);
		r->uid = -1;
		r->hardware = pm_class_hardware(r->cls);
	}
	*n = json_array_size(a);
	return 0;
}

int pm_history_reapply(json_t *new, const json_t *old, const char *run,
		       const struct pm_history_policy *pol)
{
	struct pm_history_rec *r;
	size_t n;
	int rc;

	if (pm_history_used(old, &r, &n) < 0)
		return -1;
	rc = pm_history_apply(new, run, r, n, pol);
	free(r);
	return rc;
}
