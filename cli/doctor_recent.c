/*
 * doctor_recent.c - `doctor --recent`: the collector's own health over the last days,
 * from the store's job runs and the collector's log.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "doctor_check.h"
#include "finalize.h"

/* ---- --recent: the collector's own health ---- */

struct recent {
	double since, now;
	size_t runs, provisional, stale_provisional, deadline, missing_nodes, missing_runs;
	size_t late, provisional_final, pending_comment, not_final, bad_bundles, unmerged;
	size_t webhook_pending, webhook_failed, merge_cut, tampered, tampered_runs;
	char deadline_nodes[512], missing_example[256], tampered_example[400];
	char tampered_when[40];
};

static double iso_time(const char *s)
{
	struct tm tm = {0};

	if (!s || !strptime(s, "%Y-%m-%dT%H:%M:%S", &tm))
		return 0;
	return (double)timegm(&tm);
}

static void add_name(char *list, size_t len, const char *name)
{
	size_t l = strlen(list);

	if (strstr(list, name) || l + strlen(name) + 8 >= len)
		return;
	snprintf(list + l, len - l, "%s%s", l ? ", " : "", name);
}

/* The comment changes the finalize timer found and put back (tampered.jsonl), since
 * r->since; the latest is the example.  What the job's owner wrote is shown cut and with control characters as '?'. */
static void recent_tampered(struct recent *r, const char *dir)
{
	char p[PATH_MAX], line[8192];
	size_t n = 0;
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, PM_TAMPERED_FILE);
	if (!(f = fopen(p, "re")))
		return;
	while (fgets(line, sizeof(line), f)) {
		json_t *o = json_loads(line, 0, NULL);
		const char *t = json_string_value(json_object_get(o, "time"));
		if (o && iso_time(t) >= r->since) {
			n++;
			/* the latest one is the example */
			if (strcmp(t, r->tampered_when) >= 0) {
				snprintf(r->tampered_when, sizeof(r->tampered_when), "%s", t);
				const char *found = json_string_value(json_object_get(o, "found"));
				char shown[101];
				size_t k = 0;
				for (; found && found[k] && k < sizeof(shown) - 1; k++)
					shown[k] = (unsigned char)found[k] < ' ' ||
								   (unsigned char)found[k] > '~' ?
							   '?' :
							   found[k];
				shown[k] = '\0';
				snprintf(r->tampered_example, sizeof(r->tampered_example),
					 "%s at %s: %s held \"%s\"%s", dir, t,
					 json_string_value(json_object_get(o, "field")) ?
						 json_string_value(json_object_get(o, "field")) :
						 "?",
					 shown,
					 json_is_true(json_object_get(o, "restored")) ?
						 ", put back" :
						 ", not put back yet");
			}
		}
		json_decref(o);
	}
	fclose(f);
	r->tampered += n;
	r->tampered_runs += n > 0;
}

static int recent_one(const char *dir, void *arg)
{
	struct recent *r = arg;
	json_t *m = pm_manifest_load(dir, NULL, 0), *x;
	char p[PATH_MAX];
	struct stat st;
	size_t i;

	if (!m) {
		/* bundles arrived, never merged: the first node in failed to finalize */
		if (stat(dir, &st) == 0 && (double)st.st_mtime >= r->since)
			r->unmerged++;
		return 0;
	}
	if (iso_time(json_string_value(json_object_get(m, "updated"))) < r->since) {
		json_decref(m);
		return 0;
	}
	r->runs++;
	if (json_is_true(json_object_get(m, "provisional"))) {
		r->provisional++;
		if (r->now - iso_time(json_string_value(json_object_get(m, "updated"))) > 3600)
			r->stale_provisional++;
	}
	if (json_array_size(json_object_get(m, "deadline_hits"))) {
		r->deadline++;
		json_array_foreach(json_object_get(m, "deadline_hits"), i, x) if (json_is_string(x))
			add_name(r->deadline_nodes, sizeof(r->deadline_nodes),
				 json_string_value(x));
	}
	x = json_object_get(json_object_get(m, "nodes"), "missing");
	if (json_array_size(x)) {
		r->missing_runs++;
		r->missing_nodes += json_array_size(x);
		if (!r->missing_example[0]) {
			const char *n =
				json_string_value(json_object_get(json_array_get(x, 0), "node"));
			const char *w =
				json_string_value(json_object_get(json_array_get(x, 0), "reason"));
			snprintf(r->missing_example, sizeof(r->missing_example), "%s: %s",
				 n ? n : "?", w ? w : "?");
		}
	}
	json_array_foreach(json_object_get(m, "bundles"), i,
			   x) if (json_is_string(json_object_get(x, "status")) &&
				  strcmp(json_string_value(json_object_get(x, "status")), "ok"))
		r->bad_bundles++;
	json_array_foreach(json_object_get(m, "history"), i, x)
	{
		const char *why = json_string_value(json_object_get(x, "why"));
		if (why && (strstr(why, "new bundle") || strstr(why, "changed")))
			r->late++;
		else if (why && strstr(why, "final merge of a provisional"))
			r->provisional_final++;
	}
	if (!json_is_true(json_object_get(json_object_get(m, "scheduler"), "final")))
		r->not_final++;
	if (json_is_object(json_object_get(m, "merge")))
		r->merge_cut++;
	recent_tampered(r, dir);
	snprintf(p, sizeof(p), "%s/comment.pending", dir);
	if (access(p, F_OK) == 0)
		r->pending_comment++;
	snprintf(p, sizeof(p), "%s/webhook.pending", dir);
	if (access(p, F_OK) == 0)
		r->webhook_pending++;
	snprintf(p, sizeof(p), "%s/webhook.failed", dir);
	if (access(p, F_OK) == 0)
		r->webhook_failed++;
	json_decref(m);
	return 0;
}

struct logstats {
	size_t runs, deadline, store_failed, store_pending, config_bad, timed_out;
	double total, max;
	char timed_out_sources[256];
};

static void log_line(struct logstats *s, const char *line)
{
	const char *p = strstr(line, "postmortem-epilog"), *t, *q;
	double took;

	if (!p || !(t = strstr(p, " s, timed out: ")))
		return;
	q = t;
	while (q > p && (q[-1] == '.' || (q[-1] >= '0' && q[-1] <= '9')))
		q--;
	if (sscanf(q, "%lf", &took) != 1)
		return;
	s->runs++;
	s->total += took;
	if (took > s->max)
		s->max = took;
	t += strlen(" s, timed out: ");
	if (strncmp(t, "none,", 5)) {
		char srcs[128];
		s->timed_out++;
		if (sscanf(t, "%127[^,]", srcs) == 1) {
			char *save = NULL;
			for (char *x = strtok_r(srcs, " ", &save); x;
			     x = strtok_r(NULL, " ", &save))
				add_name(s->timed_out_sources, sizeof(s->timed_out_sources), x);
		}
	}
	if (strstr(t, "deadline hit: yes"))
		s->deadline++;
	if ((q = strstr(t, "store: "))) {
		if (!strncmp(q + 7, "failed", 6))
			s->store_failed++;
		else if (!strncmp(q + 7, "pending", 7))
			s->store_pending++;
	}
	if (strstr(t, "configuration: "))
		s->config_bad++;
}

/* Lines of the collector from --log, the journal, or the usual syslog files. */
static bool read_logs(struct doctor *d, struct logstats *s, char *from, size_t fromlen)
{
	static const char *const files[] = {"/var/log/syslog", "/var/log/daemon.log",
					    "/var/log/messages", NULL};
	char line[4096];
	FILE *f;

	if (!d->opt_log && !d->offline && access("/run/systemd/journal", F_OK) == 0) {
		static char out[4 << 20];
		char since[64];
		const char *argv[] = {"journalctl", "-q", "--no-pager",	       "-o",
				      "short-iso",  "-t", "postmortem-epilog", since,
				      NULL};
		snprintf(since, sizeof(since), "--since=@%lld", (long long)d->since);
		if (doc_run_cmd(d, argv, CMD_TIMEOUT, out, sizeof(out)) == 0) {
			for (char *l = out, *e; l && *l; l = e ? e + 1 : NULL) {
				e = strchr(l, '\n');
				if (e)
					*e = '\0';
				log_line(s, l);
			}
			snprintf(from, fromlen, "the journal");
			if (s->runs)
				return true;
		}
	}
	for (int i = 0; d->opt_log ? i == 0 : files[i] != NULL; i++) {
		const char *path = d->opt_log ? d->opt_log : files[i];
		if (!(f = fopen(path, "re")))
			continue;
		while (fgets(line, sizeof(line), f)) {
			struct tm tm = {0};
			/* ISO stamps are filtered by --since; classic syslog stamps have no year */
			if (strptime(line, "%Y-%m-%dT%H:%M:%S", &tm) &&
			    (double)timegm(&tm) < d->since)
				continue;
			log_line(s, line);
		}
		fclose(f);
		snprintf(from, fromlen, "%s", path);
		return true;
	}
	return false;
}

void check_recent(struct doctor *d)
{
	struct recent r = {.since = d->since, .now = (double)time(NULL)};
	struct logstats s = {0};
	char err[512], a[32], from[PATH_MAX] = "";
	bool logs;

	if (!d->store_ok) {
		doc_say(d, ST_UNKNOWN, "recent", NULL,
			"no reachable store: recent jobs not summarised");
	} else if (pm_store_walk(d->store, recent_one, &r, err, sizeof(err)) < 0) {
		doc_say(d, ST_UNKNOWN, "recent", NULL, "cannot read %s: %s", d->store, err);
	} else {
		doc_say(d, ST_OK, "recent", NULL,
			"%zu job run%s in %s updated since %s: %zu final, %zu provisional", r.runs,
			r.runs == 1 ? "" : "s", d->store, pmu_iso(r.since, a, sizeof(a), "?"),
			r.runs - r.provisional, r.provisional);
		if (r.deadline)
			doc_say(d, ST_WARN, "recent-deadline",
				"raise the plugin's timeout= (and PrologEpilogTimeout with it), or lower "
				"the slow sources' caps and timeouts in the collector's configuration",
				"%zu job run%s hit the collector's deadline (nodes: %s): their evidence "
				"was cut short",
				r.deadline, r.deadline == 1 ? "" : "s", r.deadline_nodes);
		if (r.missing_runs)
			doc_say(d, ST_WARN, "recent-missing",
				"look at those nodes' slurmd logs and spools (pending bundles), and "
				"run doctor there",
				"%zu node%s missing from %zu job run%s (e.g. %s)", r.missing_nodes,
				r.missing_nodes == 1 ? "" : "s", r.missing_runs,
				r.missing_runs == 1 ? "" : "s", r.missing_example);
		if (r.stale_provisional || r.unmerged)
			doc_say(d, ST_WARN, "recent-merge",
				"run `postmortem finalize` every few minutes as root (the systemd timer "
				"or cron)",
				"%zu job run%s still provisional after an hour and %zu never merged: "
				"the finalize timer does not seem to run",
				r.stale_provisional, r.stale_provisional == 1 ? "" : "s",
				r.unmerged);
		if (r.merge_cut)
			doc_say(d, ST_WARN, "recent-merge-deadline",
				"`postmortem show JOB` names the bundles not read; raise merge_deadline "
				"(the timer) or the collector's deadline, and look for oversized bundles",
				"%zu job run%s whose merge ran out of time (or failed): the verdict "
				"comes from Slurm's record alone",
				r.merge_cut, r.merge_cut == 1 ? "" : "s");
		if (r.tampered)
			doc_say(d, ST_WARN, "recent-tampered",
				"the stored verdict stands (verdict.json); ask the job's owner, and "
				"consider admin_comment: true (AdminComment, only operators can set it)",
				"%zu verdict comment%s in %zu job run%s changed by someone else after "
				"postmortem set %s (e.g. %s)",
				r.tampered, r.tampered == 1 ? "" : "s", r.tampered_runs,
				r.tampered_runs == 1 ? "" : "s", r.tampered == 1 ? "it" : "them",
				r.tampered_example);
		if (r.pending_comment)
			doc_say(d, ST_WARN, "recent-comment",
				"check slurmdbd from the nodes (`sacctmgr show cluster`); `postmortem "
				"finalize --pending` retries them",
				"%zu verdict comment%s could not be written to the accounting record",
				r.pending_comment, r.pending_comment == 1 ? "" : "s");
		if (r.webhook_pending || r.webhook_failed)
			doc_say(d, ST_WARN, "recent-webhook",
				"check the webhook URLs from the nodes and the finalizer's host; "
				"`postmortem finalize --pending` retries for a day",
				"%zu job run%s with verdicts a webhook has not taken yet, %zu it gave up on "
				"(webhook.pending, webhook.failed)",
				r.webhook_pending, r.webhook_pending == 1 ? "" : "s",
				r.webhook_failed);
		if (r.bad_bundles)
			doc_say(d, ST_WARN, "recent-bundles",
				"`postmortem show JOB` names the rejected bundles and why",
				"%zu node bundle%s were rejected or incomplete", r.bad_bundles,
				r.bad_bundles == 1 ? "" : "s");
		if (r.late || r.provisional_final)
			doc_say(d, ST_NOTE, "recent-late", NULL,
				"%zu late merge%s (evidence that arrived after the verdict) and %zu "
				"provisional verdict%s made final",
				r.late, r.late == 1 ? "" : "s", r.provisional_final,
				r.provisional_final == 1 ? "" : "s");
		if (r.not_final)
			doc_say(d, ST_NOTE, "recent-slurm", NULL,
				"%zu job run%s merged before Slurm's record was final (re-merged for a "
				"day)",
				r.not_final, r.not_final == 1 ? "" : "s");
	}
	logs = read_logs(d, &s, from, sizeof(from));
	if (!logs) {
		doc_say(d, ST_SKIP, "recent-log", NULL,
			"no collector log found (journal, /var/log/syslog, /var/log/messages): name one "
			"with --log FILE");
		return;
	}
	if (!s.runs) {
		doc_say(d, ST_NOTE, "recent-log", NULL, "no collector runs logged in %s", from);
		return;
	}
	doc_say(d, ST_OK, "recent-log", NULL,
		"%zu collector run%s in %s: %.2f s on average, %.2f s at most; %zu with a source "
		"timed out%s%s%s",
		s.runs, s.runs == 1 ? "" : "s", from, s.total / (double)s.runs, s.max, s.timed_out,
		s.timed_out_sources[0] ? " (" : "", s.timed_out_sources,
		s.timed_out_sources[0] ? ")" : "");
	if (s.deadline)
		doc_say(d, ST_WARN, "recent-log",
			"raise the plugin's timeout= or lower the slow sources' timeouts",
			"%zu collector run%s hit the deadline", s.deadline,
			s.deadline == 1 ? "" : "s");
	if (s.store_failed || s.store_pending)
		doc_say(d, ST_WARN, "recent-log",
			"check that the store is mounted and writable on every node (run doctor "
			"there)",
			"%zu run%s could not store the bundle (%zu failed, %zu left pending in the "
			"spool)",
			s.store_failed + s.store_pending,
			s.store_failed + s.store_pending == 1 ? "" : "s", s.store_failed,
			s.store_pending);
	if (s.config_bad)
		doc_say(d, ST_WARN, "recent-log",
			"fix the collector's configuration (see `config` above)",
			"%zu run%s ignored a broken configuration file", s.config_bad,
			s.config_bad == 1 ? "" : "s");
}
