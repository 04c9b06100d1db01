/*
 * nodes.c - `postmortem nodes [--since DURATION] [--node N] [--json] [--ledger FILE]
 * [--store DIR] [--config FILE]`: the fleet as the node history (store/history.h) sees it,
 * for operators and root.  One line per node with trusted origin verdicts in the period:
 * counts by class, distinct jobs and users, last seen, whether a repair is justified under the
 * repeat policy and by which jobs, and the ledger's state for the node; the node most in need
 * of attention first.  --node N: that node's records, one per job run.  Exit 0, 1 when the
 * store cannot be read or the caller may not, 2 usage.
 */
#include <getopt.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "finalize.h"
#include "history.h"
#include "store.h"

#define USAGE                                                                                  \
	"usage: %s nodes [--since DURATION] [--node N] [--json] [--now DATE] [--ledger FILE] " \
	"[--store DIR] [--config FILE]\n"

struct node {
	char name[64];
	json_t *classes; /* class -> records not refuted */
	size_t records, refuted, jobs, users;
	double last;
	bool justified;
	char **by;	      /* the runs that justify a repair */
	const json_t *ledger; /* the latest ledger entry for one of its runs, borrowed */
};

struct fleet {
	struct node *v;
	size_t n;
	const struct pm_history_policy *pol;
	const json_t *ledger;
	bool oom;
};

static const char *S(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

static void job_of(const char *run, char *out, size_t len)
{
	const char *slash = strrchr(run, '/');
	size_t n = slash ? (size_t)(slash - run) : strlen(run);

	snprintf(out, len, "%.*s", (int)n, run);
}

/* The ledger's latest entry (proposed, done or resolved) for one of the runs R[0..N), from
 * BYRUN (run -> its latest entry, ledger_index). */
static const json_t *ledger_for(const json_t *byrun, const struct pm_history_rec *r, size_t n)
{
	const json_t *found = NULL, *e;

	for (size_t k = 0; k < n; k++)
		if ((e = json_object_get(byrun, r[k].run)) &&
		    (!found || json_integer_value(json_object_get(e, "seq")) >
				       json_integer_value(json_object_get(found, "seq"))))
			found = e;
	return found;
}

/* Each run's latest entry of ENTRIES (the ledger, in order), by run. */
static json_t *ledger_index(const json_t *entries)
{
	json_t *o = json_object(), *e;
	size_t i;

	json_array_foreach(entries, i, e) if (*S(e, "job")) json_object_set(o, S(e, "job"), e);
	return o;
}

static int one_node(const char *name, const struct pm_history_rec *r, size_t n, void *arg)
{
	struct fleet *f = arg;
	struct node *nd, *nv = realloc(f->v, (f->n + 1) * sizeof(*nv));
	json_t *jobs = json_object(), *users = json_object();
	char j[200], u[32];

	if (!nv || !jobs || !users) {
		json_decref(jobs);
		json_decref(users);
		f->oom = true;
		return -1;
	}
	f->v = nv;
	nd = &f->v[f->n++];
	memset(nd, 0, sizeof(*nd));
	snprintf(nd->name, sizeof(nd->name), "%s", name);
	nd->classes = json_object();
	for (size_t i = 0; i < n; i++) {
		nd->records++;
		if (r[i].time > nd->last)
			nd->last = r[i].time;
		if (r[i].refuted) {
			nd->refuted++;
			continue;
		}
		json_object_set_new(nd->classes, r[i].cls,
				    json_integer(json_integer_value(
							 json_object_get(nd->classes, r[i].cls)) +
						 1));
		job_of(r[i].run, j, sizeof(j));
		json_object_set_new(jobs, j, json_true());
		snprintf(u, sizeof(u), "%lld", r[i].uid);
		if (r[i].uid >= 0)
			json_object_set_new(users, u, json_true());
	}
	nd->jobs = json_object_size(jobs);
	nd->users = json_object_size(users);
	json_decref(jobs);
	json_decref(users);
	nd->justified = pm_history_justified(r, n, NULL, f->pol, &nd->by);
	nd->ledger = ledger_for(f->ledger, r, n);
	return 0;
}

/* Most in need first: a justified repair, then more distinct jobs, more records, seen later. */
static int need_cmp(const void *a, const void *b)
{
	const struct node *x = a, *y = b;

	if (x->justified != y->justified)
		return x->justified ? -1 : 1;
	if (x->jobs != y->jobs)
		return x->jobs > y->jobs ? -1 : 1;
	if (x->records - x->refuted != y->records - y->refuted)
		return x->records - x->refuted > y->records - y->refuted ? -1 : 1;
	if (x->last != y->last)
		return x->last > y->last ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* WHAT and the runs BY into BUF: the latest RUNS_SHOWN, and how many more (--json has all). */
#define RUNS_SHOWN 3
static void runs_text(char *buf, size_t len, const char *what, char **by)
{
	size_t n = 0, m;

	while (by && by[n])
		n++;
	m = (size_t)snprintf(buf, len, "%s", what);
	if (n > RUNS_SHOWN && m < len)
		m += (size_t)snprintf(buf + m, len - m, " (%zu more)", n - RUNS_SHOWN);
	for (size_t i = n > RUNS_SHOWN ? n - RUNS_SHOWN : 0; i < n && m < len; i++)
		m += (size_t)snprintf(buf + m, len - m, " %s", by[i]);
}

static void ledger_state(const json_t *e, char *buf, size_t len)
{
	if (!e)
		snprintf(buf, len, "-");
	else if (!strcmp(S(e, "kind"), "resolved"))
		snprintf(buf, len, "resolved %s %s (%s)", S(e, "result"), S(e, "action"),
			 S(e, "job"));
	else
		snprintf(buf, len, "%s %s (%s)", S(e, "kind"), S(e, "action"), S(e, "job"));
}

static json_t *ledger_json(const json_t *e)
{
	if (!e)
		return json_null();
	return json_pack("{s:s,s:s,s:s,s:O?}", "state", S(e, "kind"), "action", S(e, "action"),
			 "run", S(e, "job"), "result", json_object_get(e, "result"));
}

static json_t *strv_json(char **v)
{
	json_t *a = json_array();

	for (size_t i = 0; v && v[i]; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

static void print_fleet(const struct fleet *f, bool json, double since, double now)
{
	char t[40], cls[256], led[300];

	if (json) {
		json_t *o = json_object(), *a = json_array();
		pmu_iso(since, t, sizeof(t), "?");
		json_object_set_new(o, "schema", json_string("postmortem.nodes/1"));
		json_object_set_new(o, "since", json_string(t));
		pmu_iso(now, t, sizeof(t), "?");
		json_object_set_new(o, "now", json_string(t));
		json_object_set_new(o, "policy",
				    json_pack("{s:I,s:I}", "jobs", (json_int_t)f->pol->jobs,
					      "window_s", (json_int_t)f->pol->window));
		for (size_t i = 0; i < f->n; i++) {
			const struct node *nd = &f->v[i];
			pmu_iso(nd->last, t, sizeof(t), "?");
			json_array_append_new(
				a, json_pack("{s:s,s:O,s:I,s:I,s:I,s:I,s:s,s:{s:b,s:o},s:o}",
					     "node", nd->name, "classes", nd->classes, "records",
					     (json_int_t)nd->records, "refuted",
					     (json_int_t)nd->refuted, "jobs", (json_int_t)nd->jobs,
					     "users", (json_int_t)nd->users, "last_seen", t,
					     "repair", "justified", nd->justified, "by",
					     strv_json(nd->by), "ledger", ledger_json(nd->ledger)));
		}
		json_object_set_new(o, "nodes", a);
		json_dumpf(o, stdout, JSON_SORT_KEYS | JSON_INDENT(2));
		putchar('\n');
		json_decref(o);
		return;
	}
	pmu_iso(since, t, sizeof(t), "?");
	printf("%zu node(s) with trusted origin verdicts since %s (repeat policy: %u jobs within "
	       "%gd)\n",
	       f->n, t, f->pol->jobs, f->pol->window / 86400.0);
	if (!f->n)
		return;
	printf("%-16s %5s %5s %-20s %-32s %-28s %s\n", "NODE", "JOBS", "USERS", "LAST SEEN",
	       "CLASSES", "REPAIR", "LEDGER");
	for (size_t i = 0; i < f->n; i++) {
		const struct node *nd = &f->v[i];
		const char *k;
		json_t *c;
		size_t n = 0;
		char rep[512] = "-";
		cls[0] = '\0';
		json_object_foreach(nd->classes, k, c)
		{
			n += (size_t)snprintf(cls + n, n < sizeof(cls) ? sizeof(cls) - n : 0,
					      "%s%s=%lld", n ? "," : "", k,
					      (long long)json_integer_value(c));
			if (n >= sizeof(cls))
				n = sizeof(cls) - 1;
		}
		if (nd->refuted)
			snprintf(cls + n, sizeof(cls) - n, "%s(refuted %zu)", n ? " " : "",
				 nd->refuted);
		if (nd->justified)
			runs_text(rep, sizeof(rep), "justified:", nd->by);
		pmu_iso(nd->last, t, sizeof(t), "?");
		ledger_state(nd->ledger, led, sizeof(led));
		printf("%-16s %5zu %5zu %-20s %-32s %-28s %s\n", nd->name, nd->jobs, nd->users, t,
		       cls[0] ? cls : "-", rep, led);
	}
}

struct one {
	json_t *recs;
	const json_t *ledger;
	struct pm_history_rec *v;
	size_t n;
};

static int one_rec(const struct pm_history_rec *r, void *arg)
{
	struct one *o = arg;
	struct pm_history_rec *nv = realloc(o->v, (o->n + 1) * sizeof(*nv));

	if (!nv)
		return -1;
	o->v = nv;
	o->v[o->n++] = *r;
	return 0;
}

static void print_node(const char *node, struct one *o, const struct pm_history_policy *pol,
		       bool json, double since)
{
	char t[40], led[300], rep[512];
	char **by = NULL;
	bool just = pm_history_justified(o->v, o->n, NULL, pol, &by);

	if (json) {
		json_t *out = json_object(), *a = json_array();
		for (size_t i = 0; i < o->n; i++) {
			const struct pm_history_rec *r = &o->v[i];
			pmu_iso(r->time, t, sizeof(t), "?");
			json_array_append_new(a,
					      json_pack("{s:s,s:s,s:s,s:s,s:s,s:o,s:b,s:o}", "run",
							r->run, "class", r->cls, "subclass", r->sub,
							"confidence", r->conf, "time", t, "uid",
							r->uid >= 0 ? json_integer(r->uid) :
								      json_null(),
							"refuted", r->refuted, "ledger",
							ledger_json(ledger_for(o->ledger, r, 1))));
		}
		pmu_iso(since, t, sizeof(t), "?");
		json_object_set_new(out, "schema", json_string("postmortem.nodes/1"));
		json_object_set_new(out, "node", json_string(node));
		json_object_set_new(out, "since", json_string(t));
		json_object_set_new(out, "records", a);
		json_object_set_new(out, "repair",
				    json_pack("{s:b,s:o}", "justified", just, "by", strv_json(by)));
		json_dumpf(out, stdout, JSON_SORT_KEYS | JSON_INDENT(2));
		putchar('\n');
		json_decref(out);
		pm_history_strv_free(by);
		return;
	}
	pmu_iso(since, t, sizeof(t), "?");
	runs_text(rep, sizeof(rep), "justified by", by);
	printf("%s: %zu record(s) since %s; repair %s\n", node, o->n, t,
	       just ? rep : "not justified by repeats");
	if (o->n)
		printf("%-20s %-20s %-28s %-12s %-10s %s\n", "TIME", "RUN", "CAUSE", "CONFIDENCE",
		       "USER", "LEDGER");
	for (size_t i = 0; i < o->n; i++) {
		const struct pm_history_rec *r = &o->v[i];
		struct passwd *pw = r->uid >= 0 ? getpwuid((uid_t)r->uid) : NULL;
		char cause[100], user[40];
		pmu_iso(r->time, t, sizeof(t), "?");
		snprintf(cause, sizeof(cause), "%s/%s", r->cls, r->sub);
		if (pw)
			snprintf(user, sizeof(user), "%s", pw->pw_name);
		else
			snprintf(user, sizeof(user), "%lld", r->uid);
		ledger_state(ledger_for(o->ledger, r, 1), led, sizeof(led));
		printf("%-20s %-20s %-28s %-12s %-10s %s%s\n", t, r->run, cause, r->conf, user,
		       r->refuted ? "REFUTED " : "", led);
	}
	pm_history_strv_free(by);
}

int cmd_nodes(int argc, char **argv)
{
	const char *store = NULL, *config = NULL, *node = NULL, *ledger = NULL, *nowarg = NULL;
	const char *sincearg = "7d";
	bool json = false;
	const struct pmu_opt opts[] = {
		{"since", 'S', true, &sincearg, NULL}, {"node", 'n', true, &node, NULL},
		{"json", 'j', false, &json, NULL},     {"ledger", 'l', true, &ledger, NULL},
		{"store", 's', true, &store, NULL},    {"config", 'c', true, &config, NULL},
		{"now", 'N', true, &nowarg, NULL},
	};
	struct pm_history_policy pol;
	struct fleet f = {0};
	struct one o = {0};
	struct pm_config cfg;
	char err[768], lpath[4200];
	char **refuted = NULL;
	json_t *entries = NULL, *byrun = NULL;
	double since, until = 0, now = (double)time(NULL), d;
	int rc = 1;

	if (pmu_opts_parse(argc, argv, 1, opts, PMU_NELEM(opts)) || optind != argc) {
		fprintf(stderr, USAGE, prog);
		return 2;
	}
	if (nowarg && cli_time_parse(nowarg, &now) < 0) {
		fprintf(stderr, "%s nodes: --now %s: not a date\n", prog, nowarg);
		return 2;
	}
	if (nowarg)
		until = now + 1;
	if (pm_parse_duration(sincearg, &d) == 0 && d > 0)
		since = now - d;
	else if (cli_time_parse(sincearg, &since) < 0) {
		fprintf(stderr, "%s nodes: --since %s: not a duration (7d, 12h) nor a date\n", prog,
			sincearg);
		return 2;
	}
	if (cli_load_config(config, store, &cfg) < 0)
		return 1;
	if (cli_access_of(&cfg, NULL) == CLI_DENIED) {
		fprintf(stderr,
			"%s nodes: the node history names every user's jobs: for operators "
			"(group %s) and root\n",
			prog, cfg.operators_group ? cfg.operators_group : "none configured");
		goto out;
	}
	if (!cfg.store || !*cfg.store) {
		fprintf(stderr, "%s nodes: no evidence store configured (store:, or --store)\n",
			prog);
		goto out;
	}
	pm_history_policy_of(cfg.repeat_jobs, cfg.repeat_window, &pol);
	snprintf(lpath, sizeof(lpath), "%s", ledger ? ledger : cfg.ledger ? cfg.ledger : "");
	if (!lpath[0])
		snprintf(lpath, sizeof(lpath), "%s/ledger.jsonl", cfg.store);
	refuted = pm_history_refuted(lpath);
	if (!(entries = cli_ledger_load(lpath, err, sizeof(err)))) {
		fprintf(stderr, "%s nodes: %s (the ledger's state is left out)\n", prog, err);
		entries = json_array();
	}
	byrun = ledger_index(entries);
	if (node) {
		o.ledger = byrun;
		if (pm_history_node(cfg.store, node, since, until, now, refuted, one_rec, &o, err,
				    sizeof(err)) != 0) {
			fprintf(stderr, "%s nodes: %s\n", prog, err[0] ? err : "out of memory");
			goto out;
		}
		print_node(node, &o, &pol, json, since);
	} else {
		f.pol = &pol;
		f.ledger = byrun;
		if (pm_history_fleet(cfg.store, since, until, now, refuted, one_node, &f, err,
				     sizeof(err)) != 0) {
			fprintf(stderr, "%s nodes: %s\n", prog, f.oom ? "out of memory" : err);
			goto out;
		}
		if (f.n > 1)
			qsort(f.v, f.n, sizeof(*f.v), need_cmp);
		print_fleet(&f, json, since, now);
	}
	rc = fflush(stdout) == 0 ? 0 : 1;
out:
	for (size_t i = 0; i < f.n; i++) {
		json_decref(f.v[i].classes);
		pm_history_strv_free(f.v[i].by);
	}
	free(f.v);
	free(o.v);
	json_decref(entries);
	json_decref(byrun);
	pm_history_strv_free(refuted);
	pm_config_free(&cfg);
	return rc;
}
