/*
 * ledger.c - `postmortem ledger propose|record|resolve|show|verify`: the decision ledger,
 * what was proposed for a job run, what was actually done and by whom, the verdict and
 * evidence at that moment, and the later result.  Append-only and tamper-evident: the chain
 * and where its head is recorded are in ledger_chain.c.
 *
 *   ledger propose JOB --action ID [--note TEXT]
 *   ledger record  JOB --action ID [--note TEXT]
 *   ledger resolve JOB --result confirmed|refuted|precaution_not_needed [--action ID] [--note]
 *   ledger show    [JOB] [--summary] [--json]
 *   ledger verify  [--log FILE] [--seal] [--json]
 *   ledger init    (root, once: the ledger made for the operators' group to append to)
 * with [--store DIR] [--cluster C] [--restart N] [--config FILE] [--ledger FILE] [--head FILE].
 * The ledger is <store>/ledger.jsonl and its head <store>/ledger.head unless named by the
 * options or the configuration's ledger: and ledger_head: keys.
 * Exit 0 done (verify: intact), 1 not (verify: tampered), 2 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "finalize.h"
#include "pmutil.h"
#include "store.h"

#define USAGE                                                                                    \
	"usage: %s ledger propose|record JOB --action ID [--note TEXT]\n"                        \
	"       %s ledger resolve JOB --result confirmed|refuted|precaution_not_needed "         \
	"[--action ID] [--note TEXT]\n"                                                          \
	"       %s ledger show [JOB] [--summary] [--json]\n"                                     \
	"       %s ledger verify [--log FILE] [--seal] [--json]\n"                               \
	"       %s ledger init\n"                                                                \
	"  each with [--store DIR] [--cluster C] [--restart N] [--config FILE] [--ledger FILE] " \
	"[--head FILE]\n"

enum stage { CONTAINMENT, REPAIR, TEST };

/* The decision vocabulary: the verdict's containment ids, then repairs and tests. */
static const struct action {
	const char *id;
	enum stage stage;
} actions[] = {
	{"none", CONTAINMENT},	   {"retry", CONTAINMENT},   {"retry-exclude-node", CONTAINMENT},
	{"fix-job", CONTAINMENT},  {"requeue", CONTAINMENT}, {"contact-operators", CONTAINMENT},
	{"drain", REPAIR},	   {"reset-gpu", REPAIR},    {"reboot", REPAIR},
	{"replace", REPAIR},	   {"vendor-case", REPAIR},  {"reseat", REPAIR},
	{"run-diagnostics", TEST},
};

static const char *const stage_name[] = {"containment", "repair", "test"};
static const char *const results[] = {"confirmed", "refuted", "precaution_not_needed"};

struct args {
	const char *verb, *job, *action, *note, *result, *log;
	const char *store, *cluster, *restart, *config, *ledger, *head;
	bool summary, json, seal;
};

static const struct action *action_find(const char *id)
{
	for (size_t i = 0; id && i < sizeof(actions) / sizeof(actions[0]); i++)
		if (!strcmp(actions[i].id, id))
			return &actions[i];
	return NULL;
}

/* The ledger and its head file: --ledger/--head, else the configuration's ledger: and
 * ledger_head:, else <store>/ledger.jsonl and <store>/ledger.head. */
static void paths(const struct args *a, const struct pm_config *cfg, char *l, char *h, size_t len)
{
	const char *ledger = a->ledger ? a->ledger : cfg->ledger;
	const char *head = a->head ? a->head : cfg->ledger_head;

	snprintf(l, len, "%s", ledger ? ledger : "");
	snprintf(h, len, "%s", head ? head : "");
	if (!ledger && cfg->store)
		snprintf(l, len, "%s/ledger.jsonl", cfg->store);
	if (!head && cfg->store)
		snprintf(h, len, "%s/ledger.head", cfg->store);
}

static json_t *actor(void)
{
	struct passwd *pw = getpwuid(getuid());
	const char *sudo = getenv("SUDO_USER");
	json_t *o =
		json_pack("{s:s,s:I}", "user", pw ? pw->pw_name : "?", "uid", (json_int_t)getuid());

	if (getuid() == 0 && sudo && *sudo)
		json_object_set_new(o, "sudo_user", json_string(sudo));
	return o;
}

/* The job run's key, and its verdict and evidence at this moment, into ENTRY.  0 or -1. */
static int job_state(const struct args *a, const struct pm_config *cfg, json_t *entry)
{
	char dir[4096], err[768], sha[80], *text = NULL;
	size_t len;
	json_t *m, *v = NULL, *j;
	int rc = -1;

	if (cli_jobdir(cfg, a->job, a->cluster, a->restart, dir, sizeof(dir)) < 0)
		return -1;
	if (!(m = pm_manifest_load(dir, err, sizeof(err)))) {
		fprintf(stderr, "%s ledger: job %s: %s\n", prog, a->job, err);
		return -1;
	}
	if (cli_access_check(cfg, a->job, m) < 0)
		goto out;
	j = json_object_get(m, "job");
	json_object_set_new(entry, "job",
			    json_sprintf("%s/%s/%lld", pmu_str(j, "cluster", "-"),
					 pmu_str(j, "id", "-"),
					 (long long)json_integer_value(
						 json_object_get(j, "restart"))));
	if (pm_jobdir_read(dir, "verdict.json", &text, &len, err, sizeof(err)) == 0) {
		pm_sha256_buf(text, len, sha);
		v = json_loadb(text, len, 0, NULL);
	}
	json_object_set_new(entry, "verdict_digest", text ? json_string(sha) : json_null());
	json_object_set_new(entry, "evidence_digest",
			    json_is_string(json_object_get(v, "input_digest")) ?
				    json_copy(json_object_get(v, "input_digest")) :
				    json_null());
	if (v) {
		char cause[256], origin[512];
		cli_verdict_cause(v, cause, sizeof(cause));
		cli_verdict_origin(v, origin, sizeof(origin));
		json_object_set_new(entry, "verdict",
				    json_pack("{s:s,s:O?,s:s,s:s}", "status",
					      pmu_str(v, "status", "-"), "confidence",
					      json_object_get(v, "confidence"), "cause", cause,
					      "origin", origin));
	} else {
		json_object_set_new(entry, "verdict", json_null());
	}
	rc = 0;
out:
	free(text);
	json_decref(v);
	json_decref(m);
	return rc;
}

/* The job's last entry of KIND (NULL: proposed or done) in ENTRIES, borrowed. */
static const json_t *last_for(const json_t *entries, const char *job, const char *kind)
{
	const json_t *found = NULL, *e;
	size_t i;

	json_array_foreach(entries, i, e) if (!strcmp(pmu_str(e, "job", "-"), job) &&
					      (kind ? !strcmp(pmu_str(e, "kind", "-"), kind) :
						      strcmp(pmu_str(e, "kind", "-"), "resolved")))
		found = e;
	return found;
}

static int append(const struct args *a, const struct pm_config *cfg)
{
	const char *kind = !strcmp(a->verb, "propose") ? "proposed" :
			   !strcmp(a->verb, "record")  ? "done" :
							 "resolved";
	const struct action *act = action_find(a->action);
	char l[4096], h[4096], err[768];
	json_t *e = json_object(), *entries = NULL;
	bool head_written, new;
	struct group *g;
	int rc = 1;

	paths(a, cfg, l, h, sizeof(l));
	if (!l[0]) {
		fprintf(stderr, "%s ledger: no store configured (store:, --store or --ledger)\n",
			prog);
		goto out;
	}
	if (job_state(a, cfg, e) < 0)
		goto out;
	if (!strcmp(kind, "resolved")) {
		const json_t *prior;
		if (!(entries = cli_ledger_load(l, err, sizeof(err)))) {
			fprintf(stderr, "%s ledger: %s\n", prog, err);
			goto out;
		}
		prior = last_for(entries, pmu_str(e, "job", "-"), "done");
		if (!prior)
			prior = last_for(entries, pmu_str(e, "job", "-"), NULL);
		if (!prior) {
			fprintf(stderr,
				"%s ledger: nothing was proposed or done for job %s: nothing to "
				"resolve\n",
				prog, pmu_str(e, "job", "-"));
			goto out;
		}
		if (!act)
			act = action_find(pmu_str(prior, "action", "-"));
		json_object_set_new(e, "result", json_string(a->result));
		json_object_set_new(e, "resolves", json_copy(json_object_get(prior, "seq")));
	}
	if (!act) {
		fprintf(stderr, "%s ledger: --action %s: not one of", prog,
			a->action ? a->action : "(none)");
		for (size_t i = 0; i < sizeof(actions) / sizeof(actions[0]); i++)
			fprintf(stderr, " %s", actions[i].id);
		fputc('\n', stderr);
		goto out;
	}
	json_object_set_new(e, "kind", json_string(kind));
	json_object_set_new(e, "action", json_string(act->id));
	json_object_set_new(e, "stage", json_string(stage_name[act->stage]));
	json_object_set_new(e, "actor", actor());
	json_object_set_new(e, "note", a->note ? json_string(a->note) : json_null());
	new = access(l, F_OK) < 0;
	if (cli_ledger_append(l, h, e, (double)time(NULL), &head_written, err, sizeof(err)) < 0) {
		int saved = errno;
		fprintf(stderr, "%s ledger: %s\n", prog, err);
		if (saved == EACCES && getuid() != 0)
			fprintf(stderr,
				"%s ledger: the operators' group (%s) appends to a ledger root made "
				"for it: as root, once, `postmortem ledger init` (postmortem doctor "
				"checks it)\n",
				prog,
				cfg->operators_group ? cfg->operators_group : "none configured");
		goto out;
	}
	/* a new ledger: the operators' group appends too (the head file stays root's) */
	if (new && cfg->operators_group && (g = getgrnam(cfg->operators_group)) &&
	    (chown(l, (uid_t)-1, g->gr_gid) < 0 || chmod(l, 0660) < 0))
		fprintf(stderr, "%s ledger: %s: group %s: %s\n", prog, l, cfg->operators_group,
			strerror(errno));
	printf("ledger seq %lld: %s %s %s%s%s for %s (verdict %s)\n",
	       (long long)json_integer_value(json_object_get(e, "seq")),
	       pmu_str(json_object_get(e, "actor"), "user", "-"), kind, act->id,
	       a->result ? " as " : "", a->result ? a->result : "", pmu_str(e, "job", "-"),
	       pmu_str(e, "verdict_digest", "-"));
	if (!head_written)
		printf("head recorded in syslog only (%s is root's: `postmortem ledger verify "
		       "--seal` as root records it)\n",
		       h);
	rc = 0;
out:
	json_decref(entries);
	json_decref(e);
	return rc;
}

/* ---- show ---- */

static void show_entry(const json_t *e)
{
	const json_t *v = json_object_get(e, "verdict");

	printf("%5lld %s %-10s %-9s %-18s %-14s %s",
	       (long long)json_integer_value(json_object_get(e, "seq")), pmu_str(e, "time", "-"),
	       pmu_str(json_object_get(e, "actor"), "user", "-"), pmu_str(e, "kind", "-"),
	       pmu_str(e, "action", "-"), pmu_str(e, "job", "-"),
	       json_is_string(json_object_get(e, "result")) ? pmu_str(e, "result", "-") : "");
	if (json_is_object(v))
		printf("%s[%s %s %s]", json_is_string(json_object_get(e, "result")) ? " " : "",
		       pmu_str(v, "status", "-"), pmu_str(v, "cause", "-"),
		       pmu_str(v, "confidence", "-"));
	if (json_is_string(json_object_get(e, "note")))
		printf(" \"%s\"", pmu_str(e, "note", "-"));
	putchar('\n');
}

struct tally {
	size_t runs, proposed[3], done[3], containment_needed, repair_done, repair_confirmed,
		false_interventions, not_needed, confirmed, open;
};

/* Per job run: what was done, and how it was resolved (its last resolution counts). */
static json_t *summarise(const json_t *entries, struct tally *t)
{
	json_t *runs = json_object(), *by_action = json_object(), *e, *r;
	const char *job;
	size_t i;

	memset(t, 0, sizeof(*t));
	json_array_foreach(entries, i, e)
	{
		const struct action *a = action_find(pmu_str(e, "action", "-"));
		const char *kind = pmu_str(e, "kind", "-");
		json_t *ba;

		if (!(r = json_object_get(runs, pmu_str(e, "job", "-")))) {
			r = json_pack("{s:b,s:b,s:b,s:n}", "containment", 0, "repair", 0,
				      "intervened", 0, "result");
			json_object_set_new(runs, pmu_str(e, "job", "-"), r);
		}
		if (!(ba = json_object_get(by_action, pmu_str(e, "action", "-")))) {
			ba = json_pack("{s:i,s:i,s:i,s:i,s:i}", "proposed", 0, "done", 0,
				       "confirmed", 0, "refuted", 0, "precaution_not_needed", 0);
			json_object_set_new(by_action, pmu_str(e, "action", "-"), ba);
		}
		const char *slot = !strcmp(kind, "resolved") ? pmu_str(e, "result", "-") : kind;
		if (json_object_get(ba, slot))
			json_object_set_new(ba, slot,
					    json_integer(
						    json_integer_value(json_object_get(ba, slot)) +
						    1));
		if (!a)
			continue;
		if (!strcmp(kind, "proposed"))
			t->proposed[a->stage]++;
		if (!strcmp(kind, "done")) {
			t->done[a->stage]++;
			if (a->stage == CONTAINMENT && strcmp(a->id, "none"))
				json_object_set_new(r, "containment", json_true());
			if (a->stage == REPAIR)
				json_object_set_new(r, "repair", json_true());
			if (a->stage != TEST && strcmp(a->id, "none"))
				json_object_set_new(r, "intervened", json_true());
		}
		if (!strcmp(kind, "resolved"))
			json_object_set(r, "result", json_object_get(e, "result"));
	}
	json_object_foreach(runs, job, r)
	{
		const char *res = json_string_value(json_object_get(r, "result"));
		bool intervened = json_is_true(json_object_get(r, "intervened"));
		t->runs++;
		t->containment_needed += json_is_true(json_object_get(r, "containment"));
		t->repair_done += json_is_true(json_object_get(r, "repair"));
		t->repair_confirmed += json_is_true(json_object_get(r, "repair")) && res &&
				       !strcmp(res, "confirmed");
		t->confirmed += res && !strcmp(res, "confirmed");
		t->false_interventions += intervened && res && !strcmp(res, "refuted");
		t->not_needed += res && !strcmp(res, "precaution_not_needed");
		t->open += intervened && !res;
	}
	json_decref(runs);
	return by_action;
}

static void summary_text(const json_t *entries)
{
	struct tally t;
	json_t *ba = summarise(entries, &t), *x;
	const char *id;

	printf("decisions on %zu job run(s), %zu ledger entries\n", t.runs,
	       json_array_size(entries));
	printf("  containment needed     %zu of %zu job run(s) (%zu proposed, %zu done)\n",
	       t.containment_needed, t.runs, t.proposed[CONTAINMENT], t.done[CONTAINMENT]);
	printf("  repair confirmed       %zu of %zu repaired job run(s) (%zu proposed, %zu done)\n",
	       t.repair_confirmed, t.repair_done, t.proposed[REPAIR], t.done[REPAIR]);
	printf("  false interventions    %zu (acted on, then refuted)\n", t.false_interventions);
	printf("  precaution not needed  %zu\n", t.not_needed);
	printf("  confirmed              %zu\n", t.confirmed);
	printf("  open                   %zu (acted on, not resolved yet)\n", t.open);
	if (json_object_size(ba))
		printf("  by action:             proposed done confirmed refuted not_needed\n");
	json_object_foreach(ba, id, x)
		printf("    %-20s %8lld %4lld %9lld %7lld %10lld\n", id,
		       (long long)json_integer_value(json_object_get(x, "proposed")),
		       (long long)json_integer_value(json_object_get(x, "done")),
		       (long long)json_integer_value(json_object_get(x, "confirmed")),
		       (long long)json_integer_value(json_object_get(x, "refuted")),
		       (long long)json_integer_value(json_object_get(x, "precaution_not_needed")));
	json_decref(ba);
}

static json_t *summary_json(const json_t *entries)
{
	struct tally t;
	json_t *ba = summarise(entries, &t);

	return json_pack("{s:I,s:I,s:{s:I,s:I,s:I},s:{s:I,s:I,s:I,s:I},s:I,s:I,s:I,s:I,s:o}",
			 "job_runs", (json_int_t)t.runs, "entries",
			 (json_int_t)json_array_size(entries), "containment", "needed",
			 (json_int_t)t.containment_needed, "proposed",
			 (json_int_t)t.proposed[CONTAINMENT], "done",
			 (json_int_t)t.done[CONTAINMENT], "repair", "done",
			 (json_int_t)t.repair_done, "confirmed", (json_int_t)t.repair_confirmed,
			 "proposed", (json_int_t)t.proposed[REPAIR], "done_entries",
			 (json_int_t)t.done[REPAIR], "false_interventions",
			 (json_int_t)t.false_interventions, "precaution_not_needed",
			 (json_int_t)t.not_needed, "confirmed", (json_int_t)t.confirmed, "open",
			 (json_int_t)t.open, "by_action", ba);
}

static int show(const struct args *a, const struct pm_config *cfg)
{
	char l[4096], h[4096], err[768], key[300] = "";
	json_t *entries, *sel = json_array(), *e;
	size_t i;

	paths(a, cfg, l, h, sizeof(l));
	if (!(entries = cli_ledger_load(l, err, sizeof(err)))) {
		fprintf(stderr, "%s ledger: %s\n", prog, err);
		json_decref(sel);
		return 1;
	}
	if (a->job) {
		json_t *k = json_object();
		if (job_state(a, cfg, k) < 0) {
			json_decref(k);
			json_decref(entries);
			json_decref(sel);
			return 1;
		}
		snprintf(key, sizeof(key), "%s", pmu_str(k, "job", "-"));
		json_decref(k);
	}
	json_array_foreach(entries, i, e) if (!key[0] || !strcmp(pmu_str(e, "job", "-"), key))
		json_array_append(sel, e);
	if (a->json) {
		json_t *o = a->summary ? summary_json(sel) : json_incref(sel);
		json_dumpf(o, stdout, JSON_SORT_KEYS | JSON_INDENT(2));
		putchar('\n');
		json_decref(o);
	} else if (a->summary) {
		summary_text(sel);
	} else {
		if (!json_array_size(sel))
			printf("no decisions recorded%s%s\n", key[0] ? " for " : "", key);
		json_array_foreach(sel, i, e) show_entry(e);
	}
	json_decref(sel);
	json_decref(entries);
	return fflush(stdout) == 0 ? 0 : 1;
}

/* ---- init ---- */

/*
 * The ledger, created empty when it does not exist, given to the operators' group: group
 * operators_group, mode 0660, so that an operator's propose, record and resolve can append
 * (the first append cannot create it in a store folder that is root's).  The head file stays
 * root's (cli_ledger_append writes it only as root), and every append's head still goes to
 * syslog: a rewrite by a group member is caught by `ledger verify` as before.  Run as root
 * (acting as service_user, as the store's other writers do); idempotent.
 */
static int init(const struct args *a, const struct pm_config *cfg)
{
	char l[4096], h[4096];
	struct group *g = NULL;
	struct stat st;
	bool created;
	int fd, rc = 1;

	paths(a, cfg, l, h, sizeof(l));
	if (!l[0]) {
		fprintf(stderr,
			"%s ledger init: no store configured (store:, --store or --ledger)\n",
			prog);
		return 1;
	}
	if (geteuid() != 0) {
		fprintf(stderr,
			"%s ledger init: run as root (it gives %s to the operators' group)\n", prog,
			l);
		return 1;
	}
	if (!cfg->operators_group || !(g = getgrnam(cfg->operators_group))) {
		fprintf(stderr, "%s ledger init: operators_group %s: no such group\n", prog,
			cfg->operators_group ? cfg->operators_group : "(none)");
		return 1;
	}
	if (!a->ledger && !cfg->ledger && cfg->store_marker && *cfg->store_marker) {
		char m[4096];
		snprintf(m, sizeof(m), "%s/%s", cfg->store, cfg->store_marker);
		if (access(m, F_OK) < 0) {
			fprintf(stderr,
				"%s ledger init: %s has no %s (store_marker): the store is not mounted "
				"here; nothing created\n",
				prog, cfg->store, cfg->store_marker);
			return 1;
		}
	}
	if (cli_act_as_service(cfg, "ledger init") < 0)
		return 1;
	created = access(l, F_OK) < 0;
	if ((fd = open(l, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0660)) < 0) {
		fprintf(stderr, "%s ledger init: %s: %s\n", prog, l, strerror(errno));
		goto out;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "%s ledger init: %s: not a regular file\n", prog, l);
	} else if (fchown(fd, (uid_t)-1, g->gr_gid) < 0 || fchmod(fd, 0660) < 0) {
		fprintf(stderr, "%s ledger init: %s: group %s, mode 0660: %s\n", prog, l,
			cfg->operators_group, strerror(errno));
	} else {
		printf("%s: %s, group %s, mode 0660: operators append; the head (%s) stays "
		       "root's\n",
		       l, created ? "created" : "exists", cfg->operators_group, h);
		rc = 0;
	}
	close(fd);
out:
	cli_leave_service();
	return rc;
}

/* ---- verify ---- */

static int verify(const struct args *a, const struct pm_config *cfg)
{
	char l[4096], h[4096], err[768];
	struct cli_ledger_check r;
	json_t *x;
	size_t i;
	int rc;

	paths(a, cfg, l, h, sizeof(l));
	rc = cli_ledger_verify(l, h[0] ? h : NULL, a->log, &r, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "%s ledger: %s\n", prog, err);
		return 1;
	}
	if (a->json) {
		json_t *o = json_pack("{s:s,s:b,s:I,s:I,s:I,s:O,s:O}", "ledger", l, "intact",
				      rc == 0, "entries", (json_int_t)r.entries, "head_seq",
				      (json_int_t)r.head_seq, "log_heads", (json_int_t)r.log_heads,
				      "problems", r.problems, "notes", r.notes);
		json_dumpf(o, stdout, JSON_SORT_KEYS | JSON_INDENT(2));
		putchar('\n');
		json_decref(o);
	} else {
		printf("ledger %s: %zu entries, %s\n", l, r.entries,
		       rc == 0 ? "chain intact" : "TAMPERED");
		if (r.head_seq >= 0)
			printf("  head file: seq %lld%s\n", r.head_seq, rc == 0 ? ", matches" : "");
		if (a->log)
			printf("  syslog: %lld head(s) checked\n", r.log_heads);
		json_array_foreach(r.problems, i, x)
		{
			const json_t *s = json_object_get(x, "seq"),
				     *ln = json_object_get(x, "line");
			printf("  %s:", pmu_str(x, "fault", "-"));
			if (json_is_integer(s))
				printf(" seq %lld", (long long)json_integer_value(s));
			if (json_is_integer(ln))
				printf(" (line %lld)", (long long)json_integer_value(ln));
			printf(": %s\n", pmu_str(x, "what", "-"));
		}
		json_array_foreach(r.notes, i, x) printf("  note: %s\n", json_string_value(x));
	}
	if (rc == 0 && a->seal) {
		long long seq;
		if (cli_ledger_seal(l, h, &seq, err, sizeof(err)) < 0) {
			fprintf(stderr, "%s ledger: --seal: %s\n", prog, err);
			rc = 1;
		} else if (!a->json) {
			printf("  head recorded in %s: seq %lld\n", h, seq);
		}
	}
	json_decref(r.problems);
	json_decref(r.notes);
	return rc == 0 && fflush(stdout) == 0 ? 0 : 1;
}

int cmd_ledger(int argc, char **argv)
{
	struct args a = {0};
	const struct pmu_opt opts[] = {
		{"action", 'A', true, &a.action, NULL},	  {"note", 'n', true, &a.note, NULL},
		{"result", 'R', true, &a.result, NULL},	  {"summary", 'S', false, &a.summary, NULL},
		{"json", 'j', false, &a.json, NULL},	  {"log", 'L', true, &a.log, NULL},
		{"seal", 'x', false, &a.seal, NULL},	  {"store", 's', true, &a.store, NULL},
		{"cluster", 'C', true, &a.cluster, NULL}, {"restart", 'r', true, &a.restart, NULL},
		{"config", 'c', true, &a.config, NULL},	  {"ledger", 'l', true, &a.ledger, NULL},
		{"head", 'H', true, &a.head, NULL},
	};
	struct pm_config cfg;
	bool change;
	int rc;

	if (argc < 2 || pmu_opts_parse(argc, argv, 2, opts, PMU_NELEM(opts))) {
		fprintf(stderr, USAGE, prog, prog, prog, prog, prog);
		return 2;
	}
	a.verb = argv[1];
	if (optind < argc)
		a.job = argv[optind++];
	change = !strcmp(a.verb, "propose") || !strcmp(a.verb, "record") ||
		 !strcmp(a.verb, "resolve");
	if (optind < argc || (change && !a.job) ||
	    (!change && strcmp(a.verb, "show") && strcmp(a.verb, "verify") &&
	     strcmp(a.verb, "init")) ||
	    ((!strcmp(a.verb, "verify") || !strcmp(a.verb, "init")) && a.job) ||
	    (strcmp(a.verb, "resolve") && a.result) || (!strcmp(a.verb, "resolve") && !a.result) ||
	    (change && strcmp(a.verb, "resolve") && !a.action)) {
		fprintf(stderr, USAGE, prog, prog, prog, prog, prog);
		return 2;
	}
	if (a.result) {
		bool ok = false;
		for (size_t i = 0; i < sizeof(results) / sizeof(results[0]); i++)
			ok = ok || !strcmp(a.result, results[i]);
		if (!ok) {
			fprintf(stderr,
				"%s ledger: --result %s: confirmed, refuted or "
				"precaution_not_needed\n",
				prog, a.result);
			return 2;
		}
	}
	if (cli_load_config(a.config, a.store, &cfg) < 0)
		return 1;
	if (change)
		rc = append(&a, &cfg);
	else if (!strcmp(a.verb, "show"))
		rc = show(&a, &cfg);
	else if (!strcmp(a.verb, "init"))
		rc = init(&a, &cfg);
	else
		rc = verify(&a, &cfg);
	pm_config_free(&cfg);
	return rc;
}
