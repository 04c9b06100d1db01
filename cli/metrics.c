/*
 * metrics.c - `postmortem metrics [--textfile FILE] [--store DIR] [--config FILE]`: the evidence
 * store as Prometheus metrics, in the text format node_exporter's textfile collector reads
 * (`--collector.textfile.directory`).  Without --textfile they go to stdout; with it (or with
 * the configuration's metrics_textfile: when the finalize timer writes them) the file is
 * replaced whole: a temporary file in the same folder, renamed over it, so that the exporter
 * never reads half of it.
 *
 * What the store holds now is a gauge (expire removes job runs, so these counts go down too):
 * verdicts by cluster, status and class; the origin nodes whose verdicts justify a repair; from
 * the node history (history.h), each node's trusted origins by class and whether its repeats
 * justify a repair under the policy now; the collector's health (node bundles cut by the
 * collector's deadline, merges cut by theirs, nodes that never reported, bundles the store
 * refused, comments and webhooks still owed).
 * The decision ledger only grows: its entries are counters.  Label values come from bounded
 * sets (clusters, verdict statuses, the taxonomy's classes, node names); no job id is a label.
 * Exit 0 written, 1 the store could not be read (the file still says so:
 * postmortem_store_up 0) or the file could not be written, 2 usage.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "finalize.h"
#include "history.h"
#include "store.h"

#define USAGE "usage: %s metrics [--textfile FILE] [--store DIR] [--config FILE]\n"

/* The metric families, in the order they are written. */
enum fam {
	F_STORE_UP,
	F_RUNS,
	F_VERDICTS,
	F_PROVISIONAL,
	F_REPAIR_NODE,
	F_REPAIR_NODES,
	F_ORIGINS,
	F_REPEATS,
	F_DEADLINE,
	F_MERGE_DEADLINE,
	F_NEVER_REPORTED,
	F_STORE_FAILURES,
	F_UNMERGED,
	F_COMMENTS,
	F_WEBHOOKS,
	F_WEBHOOKS_FAILED,
	F_TAMPERED,
	F_READ_ERRORS,
	F_LEDGER,
	F_SCAN_SECONDS,
	F_TIMESTAMP,
	F__COUNT,
};

static const struct family {
	const char *name, *type, *help;
} fams[F__COUNT] = {
	[F_STORE_UP] = {"postmortem_store_up", "gauge",
			"1 when the evidence store could be read, 0 when not."},
	[F_RUNS] = {"postmortem_job_runs", "gauge", "Job runs in the evidence store."},
	[F_VERDICTS] = {"postmortem_verdicts", "gauge",
			"Job runs in the evidence store by their current verdict's status and cause "
			"class (class none: the verdict names no cause)."},
	[F_PROVISIONAL] = {"postmortem_verdicts_provisional", "gauge",
			   "Job runs whose verdict is still provisional (nodes missing, merge "
			   "pending)."},
	[F_REPAIR_NODE] = {"postmortem_node_repair_justified", "gauge",
			   "Job runs in the store whose verdict justifies a repair on this origin "
			   "node, by cause class."},
	[F_REPAIR_NODES] = {"postmortem_nodes_repair_justified", "gauge",
			    "Nodes named as the origin of at least one verdict that justifies a "
			    "repair."},
	[F_ORIGINS] = {"postmortem_trusted_origins", "gauge",
		       "Job runs whose final verdict blamed this node from trusted evidence, by "
		       "cause class (the node history: unexpired, refuted ones left out)."},
	[F_REPEATS] = {"postmortem_node_repeats_justify_repair", "gauge",
		       "1 when the node's history within the repeat policy's window (now) justifies "
		       "a repair for this hardware class: the same class in enough distinct jobs."},
	[F_DEADLINE] = {"postmortem_collector_deadline_hits", "gauge",
			"Node bundles in the store whose collection the collector's deadline cut "
			"short."},
	[F_MERGE_DEADLINE] = {"postmortem_merge_deadline_hits", "gauge",
			      "Job runs whose merge ran out of its time budget (or died): the "
			      "verdict comes from Slurm's record alone."},
	[F_NEVER_REPORTED] = {"postmortem_nodes_never_reported", "gauge",
			      "Expected nodes missing from their job run's evidence: the node "
			      "never reported."},
	[F_STORE_FAILURES] = {"postmortem_store_failures", "gauge",
			      "Node bundles the store could not take (undelivered/): they wait in "
			      "the node's spool."},
	[F_UNMERGED] = {"postmortem_job_runs_unmerged", "gauge",
			"Job run folders with no manifest: bundles arrived, never merged."},
	[F_COMMENTS] = {"postmortem_comments_pending", "gauge",
			"Job runs whose verdict comment sacctmgr has not taken yet "
			"(comment.pending)."},
	[F_WEBHOOKS] = {"postmortem_webhooks_pending", "gauge",
			"Job runs with webhook deliveries still owed (webhook.pending)."},
	[F_WEBHOOKS_FAILED] = {"postmortem_webhooks_failed", "gauge",
			       "Job runs with webhook deliveries given up on (webhook.failed)."},
	[F_TAMPERED] = {"postmortem_comments_tampered", "gauge",
			"Verdict comments someone else changed after postmortem set them "
			"(tampered.jsonl)."},
	[F_READ_ERRORS] = {"postmortem_store_read_errors", "gauge",
			   "Job runs whose manifest or verdict could not be read in this scan."},
	[F_LEDGER] = {"postmortem_ledger_entries_total", "counter",
		      "Entries in the decision ledger by kind (proposed, done, resolved) and stage "
		      "(containment, repair, test)."},
	[F_SCAN_SECONDS] = {"postmortem_metrics_scan_duration_seconds", "gauge",
			    "Seconds this scan of the store took."},
	[F_TIMESTAMP] = {"postmortem_metrics_timestamp_seconds", "gauge",
			 "When these metrics were written (Unix time)."},
};

struct scan {
	json_t *series[F__COUNT]; /* per family: label text -> integer */
	json_t *repair_nodes;	  /* "cluster\tnode" -> true */
	json_t *clusters;	  /* cluster -> true: the health series exist for each, 0 or not */
};

/* Label value in the text format: backslash, double quote and line feed escaped. */
static void esc(char *out, size_t len, const char *s)
{
	size_t o = 0;

	for (; s && *s && o + 3 < len; s++) {
		if (*s == '\\' || *s == '"') {
			out[o++] = '\\';
			out[o++] = *s;
		} else if (*s == '\n') {
			out[o++] = '\\';
			out[o++] = 'n';
		} else {
			out[o++] = *s;
		}
	}
	out[o] = '\0';
}

/* Add N to family F's series with labels NAMES[i]=VALUES[i] (K of them). */
static void add(struct scan *sc, enum fam f, long long n, int k, const char *const *names,
		const char *const *values)
{
	char key[1024] = "", v[400];
	size_t o = 0;
	json_t *cur;

	for (int i = 0; i < k && o < sizeof(key); i++) {
		esc(v, sizeof(v), values[i]);
		o += (size_t)snprintf(key + o, sizeof(key) - o, "%s%s=\"%s\"", i ? "," : "",
				      names[i], v);
	}
	cur = json_object_get(sc->series[f], key);
	json_object_set_new(sc->series[f], key,
			    json_integer(json_integer_value(cur) + (json_int_t)n));
}

static void add_cluster(struct scan *sc, enum fam f, const char *cluster, long long n)
{
	static const char *const names[] = {"cluster"};
	add(sc, f, n, 1, names, &cluster);
}

static const char *S(const json_t *o, const char *k, const char *dflt)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s && *s ? s : dflt;
}

/* Entries of DIR/SUB (no dot files); 0 when it does not exist. */
static size_t count_dir(const char *dir, const char *sub)
{
	char p[PATH_MAX];
	struct dirent *e;
	size_t n = 0;
	DIR *d;

	snprintf(p, sizeof(p), "%s/%s", dir, sub);
	if (!(d = opendir(p)))
		return 0;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static bool exists(const char *dir, const char *name)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return access(p, F_OK) == 0;
}

/* Lines of DIR/NAME; 0 when absent. */
static size_t count_lines(const char *dir, const char *name)
{
	char p[PATH_MAX], buf[8192];
	size_t n = 0, r;
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	if (!(f = fopen(p, "re")))
		return 0;
	while ((r = fread(buf, 1, sizeof(buf), f)) > 0)
		for (size_t i = 0; i < r; i++)
			n += buf[i] == '\n';
	fclose(f);
	return n;
}

/*
 * The top-level members of the JSON object TEXT (LEN bytes) named in KEYS (NULL-terminated),
 * parsed, into a new object; every other member is stepped over without being parsed.  A
 * verdict's evidence and coverage are nearly all of its bytes, and the metrics need four
 * small members of it: parsing it whole made a store of 20,000 runs take 30 s of CPU.  Strings
 * (escapes included) are skipped as strings, so brackets inside them do not count.
 */
static json_t *pick(const char *t, size_t len, const char *const *keys)
{
	json_t *out = json_object();
	int depth = 0;
	size_t i = 0;

	/* T[LEN] is a NUL: strcspn and memchr find the next bracket or quote fast */
	while (out && i < len) {
		size_t s, e, k;
		const char *q;

		i += strcspn(t + i, "\"{}[]");
		if (i >= len)
			break;
		if (t[i] != '"') {
			depth += t[i] == '{' || t[i] == '[' ? 1 : -1;
			i++;
			continue;
		}
		/* the string's end: a quote preceded by an even number of backslashes */
		for (s = e = i + 1;; e++) {
			size_t b = 0;
			if (!(q = memchr(t + e, '"', len - e)))
				return out;
			e = (size_t)(q - t);
			while (e - b > s && t[e - b - 1] == '\\')
				b++;
			if (b % 2 == 0)
				break;
		}
		i = e + 1;
		if (depth != 1)
			continue;
		for (k = i;
		     k < len && (t[k] == ' ' || t[k] == '\n' || t[k] == '\t' || t[k] == '\r'); k++)
			;
		if (k >= len || t[k] != ':')
			continue;
		for (const char *const *key = keys; *key; key++) {
			json_error_t je;
			json_t *v;
			if (strlen(*key) != e - s || memcmp(*key, t + s, e - s))
				continue;
			v = json_loadb(t + k + 1, len - k - 1,
				       JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK, &je);
			if (v) {
				json_object_set_new(out, *key, v);
				i = k + 1 + (size_t)je.position;
			}
			break;
		}
	}
	return out;
}

/* The members of DIR/verdict.json that the metrics use, or NULL when it cannot be read. */
static json_t *verdict_load(const char *dir)
{
	static const char *const keys[] = {"status", "cause", "origin", "decision", NULL};
	char p[PATH_MAX], *buf;
	size_t n = 0;
	json_t *v = NULL;

	snprintf(p, sizeof(p), "%s/verdict.json", dir);
	if (cli_read_file(p, (64 << 20) - 1, &buf, &n) < 0)
		return NULL;
	if (n > 0 && !memchr(buf, '\0', n) && (v = pick(buf, n, keys)) &&
	    !json_is_string(json_object_get(v, "status"))) {
		json_decref(v);
		v = NULL;
	}
	free(buf);
	return v;
}

/* The verdict's part: status and class, and the origin nodes of a justified repair. */
static void verdict(struct scan *sc, const char *cluster, const json_t *v)
{
	static const char *const vnames[] = {"cluster", "status", "class"};
	static const char *const rnames[] = {"cluster", "node", "class"};
	const char *status = S(v, "status", "unknown");
	const char *cls = S(json_object_get(v, "cause"), "class", "none");
	const char *vals[3] = {cluster, status, cls};
	const json_t *rep = json_object_get(json_object_get(v, "decision"), "repair"), *n;
	size_t i;

	add(sc, F_VERDICTS, 1, 3, vnames, vals);
	if (!json_is_true(json_object_get(rep, "justified")))
		return;
	json_array_foreach(json_object_get(json_object_get(v, "origin"), "nodes"), i, n)
	{
		const char *node = json_string_value(n);
		char key[512];
		if (!node || !*node)
			continue;
		vals[1] = node;
		add(sc, F_REPAIR_NODE, 1, 3, rnames, vals);
		snprintf(key, sizeof(key), "%s\t%s", cluster, node);
		json_object_set_new(sc->repair_nodes, key, json_true());
	}
}

static int one(const char *dir, void *arg)
{
	struct scan *sc = arg;
	char cluster[256], err[512];
	const char *p, *q;
	size_t n, i;
	json_t *m, *x, *v;
	int slashes = 0;

	/* <store>/<cluster>/<job>/<restart>: the third component from the end */
	for (q = dir + strlen(dir); q > dir; q--)
		if (q[-1] == '/' && ++slashes == 3)
			break;
	p = q;
	q = strchr(p, '/');
	snprintf(cluster, sizeof(cluster), "%.*s", q ? (int)(q - p) : 0, p);
	json_object_set_new(sc->clusters, cluster, json_true());
	add_cluster(sc, F_RUNS, cluster, 1);
	if ((n = count_dir(dir, "undelivered")))
		add_cluster(sc, F_STORE_FAILURES, cluster, (long long)n);
	if (!(m = pm_manifest_load(dir, err, sizeof(err)))) {
		add_cluster(sc, errno == ENOENT ? F_UNMERGED : F_READ_ERRORS, cluster, 1);
		return 0;
	}
	if (json_is_true(json_object_get(m, "provisional")))
		add_cluster(sc, F_PROVISIONAL, cluster, 1);
	if ((n = json_array_size(json_object_get(m, "deadline_hits"))))
		add_cluster(sc, F_DEADLINE, cluster, (long long)n);
	if (json_is_object(json_object_get(m, "merge")))
		add_cluster(sc, F_MERGE_DEADLINE, cluster, 1);
	n = 0;
	json_array_foreach(json_object_get(json_object_get(m, "nodes"), "missing"), i, x)
		n += !strcmp(S(x, "reason", ""), PM_MISSING_REASON);
	if (n)
		add_cluster(sc, F_NEVER_REPORTED, cluster, (long long)n);
	if (exists(dir, "comment.pending"))
		add_cluster(sc, F_COMMENTS, cluster, 1);
	if (exists(dir, "webhook.pending"))
		add_cluster(sc, F_WEBHOOKS, cluster, 1);
	if (exists(dir, "webhook.failed"))
		add_cluster(sc, F_WEBHOOKS_FAILED, cluster, 1);
	if ((n = count_lines(dir, PM_TAMPERED_FILE)))
		add_cluster(sc, F_TAMPERED, cluster, (long long)n);
	json_decref(m);
	if ((v = verdict_load(dir)))
		verdict(sc, cluster, v);
	else
		add_cluster(sc, F_READ_ERRORS, cluster, 1);
	json_decref(v);
	return 0;
}

/* The ledger's entries by kind and stage (an absent ledger has none; an unreadable one is
 * left out, as its counters cannot be known). */
static void ledger_path(const struct pm_config *cfg, char *path, size_t len)
{
	if (cfg->ledger)
		snprintf(path, len, "%s", cfg->ledger);
	else
		snprintf(path, len, "%s/ledger.jsonl", cfg->store);
}

static void ledger(struct scan *sc, const char *path)
{
	static const char *const names[] = {"kind", "stage"};
	char err[512];
	json_t *entries, *e;
	size_t i;

	if (!(entries = cli_ledger_load(path, err, sizeof(err))))
		return;
	json_array_foreach(entries, i, e)
	{
		const char *vals[2] = {S(e, "kind", "unknown"), S(e, "stage", "unknown")};
		add(sc, F_LEDGER, 1, 2, names, vals);
	}
	json_decref(entries);
}

struct fleet {
	struct scan *sc;
	struct pm_history_policy pol;
	double now;
};

/* One node's history: its trusted origins by cluster and class, and whether the repeat
 * policy justifies a repair now (records within the window before NOW). */
static int fleet_node(const char *node, const struct pm_history_rec *r, size_t n, void *arg)
{
	static const char *const names[] = {"cluster", "node", "class"};
	struct fleet *fl = arg;
	struct pm_history_rec *recent = malloc((n ? n : 1) * sizeof(*recent));
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		char cluster[200];
		const char *vals[3] = {cluster, node, r[i].cls};
		if (r[i].refuted)
			continue;
		snprintf(cluster, sizeof(cluster), "%.*s", (int)strcspn(r[i].run, "/"), r[i].run);
		add(fl->sc, F_ORIGINS, 1, 3, names, vals);
		if (recent && r[i].hardware && r[i].time >= fl->now - fl->pol.window)
			recent[m++] = r[i];
	}
	for (size_t i = 0; recent && i < m; i++) {
		char cluster[200];
		const char *vals[3] = {cluster, node, recent[i].cls};
		bool seen = false;
		for (size_t k = 0; k < i; k++)
			seen = seen || !strcmp(recent[k].cls, recent[i].cls);
		if (seen || !pm_history_justified(recent, m, recent[i].cls, &fl->pol, NULL))
			continue;
		snprintf(cluster, sizeof(cluster), "%.*s", (int)strcspn(recent[i].run, "/"),
			 recent[i].run);
		add(fl->sc, F_REPEATS, 1, 3, names, vals);
	}
	free(recent);
	return 0;
}

/* The node history of the store (history.h): trusted origins and repeats. */
static void history(struct scan *sc, const struct pm_config *cfg, const char *ledger)
{
	struct fleet fl = {.sc = sc, .now = (double)time(NULL)};
	char err[512], **refuted = pm_history_refuted(ledger);

	pm_history_policy_default(&fl.pol);
	if (pm_history_fleet(cfg->store, 0, 0, fl.now, refuted, fleet_node, &fl, err, sizeof(err)) <
	    0) {
		/* left out, as an unreadable ledger is: the counts cannot be known */
		fprintf(stderr, "%s metrics: node history: %s\n", prog, err);
		json_object_clear(sc->series[F_ORIGINS]);
		json_object_clear(sc->series[F_REPEATS]);
	}
	pm_history_strv_free(refuted);
}

static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void emit(FILE *f, const struct scan *sc, enum fam k, double scan_s, double now,
		 bool store_up)
{
	const struct family *fm = &fams[k];
	size_t n = json_object_size(sc->series[k]), i = 0;
	const char **keys;
	const char *key;
	json_t *val;

	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", fm->name, fm->help, fm->name, fm->type);
	if (k == F_STORE_UP) {
		fprintf(f, "%s %d\n", fm->name, store_up ? 1 : 0);
		return;
	}
	if (k == F_SCAN_SECONDS || k == F_TIMESTAMP) {
		fprintf(f, k == F_TIMESTAMP ? "%s %.0f\n" : "%s %.3f\n", fm->name,
			k == F_TIMESTAMP ? now : scan_s);
		return;
	}
	if (k == F_REPAIR_NODES) {
		/* one series per cluster seen: 0 is an answer */
		json_object_foreach(sc->clusters, key, val)
		{
			size_t c = 0, l = strlen(key);
			const char *rk;
			json_t *rv;
			char e[400];
			json_object_foreach(sc->repair_nodes, rk, rv)
				c += !strncmp(rk, key, l) && rk[l] == '\t';
			esc(e, sizeof(e), key);
			fprintf(f, "%s{cluster=\"%s\"} %zu\n", fm->name, e, c);
		}
		return;
	}
	if (!(keys = malloc((n ? n : 1) * sizeof(*keys))))
		return;
	json_object_foreach(sc->series[k], key, val) keys[i++] = key;
	qsort(keys, n, sizeof(*keys), cmpstr);
	for (i = 0; i < n; i++)
		fprintf(f, "%s%s%s%s %lld\n", fm->name, *keys[i] ? "{" : "", keys[i],
			*keys[i] ? "}" : "",
			(long long)json_integer_value(json_object_get(sc->series[k], keys[i])));
	if (!n && k == F_READ_ERRORS)
		fprintf(f, "%s 0\n", fm->name);
	free(keys);
}

static bool per_cluster(enum fam k)
{
	return k == F_RUNS || k == F_PROVISIONAL || (k >= F_DEADLINE && k <= F_TAMPERED);
}

/* Write the metrics of CFG's store to F.  0, or 1 when the store could not be read. */
static int write_metrics(FILE *f, const struct pm_config *cfg)
{
	struct scan sc = {0};
	struct timespec t0, t1;
	char err[768];
	const char *key;
	json_t *val;
	bool up;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int k = 0; k < F__COUNT; k++)
		sc.series[k] = json_object();
	sc.repair_nodes = json_object();
	sc.clusters = json_object();
	up = pm_store_walk(cfg->store, one, &sc, err, sizeof(err)) == 0;
	if (!up)
		fprintf(stderr, "%s metrics: %s\n", prog, err);
	else {
		char lp[PATH_MAX];
		ledger_path(cfg, lp, sizeof(lp));
		ledger(&sc, lp);
		history(&sc, cfg, lp);
	}
	/* the per-cluster families have a series for every cluster, 0 included */
	json_object_foreach(sc.clusters, key, val) for (int k = 0; k < F__COUNT;
							k++) if (per_cluster((enum fam)k))
		add_cluster(&sc, (enum fam)k, key, 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	for (int k = 0; k < F__COUNT; k++)
		emit(f, &sc, (enum fam)k,
		     (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
		     (double)time(NULL), up);
	for (int k = 0; k < F__COUNT; k++)
		json_decref(sc.series[k]);
	json_decref(sc.repair_nodes);
	json_decref(sc.clusters);
	return up ? 0 : 1;
}

int cli_metrics_text(const struct pm_config *cfg, char **text, size_t *len)
{
	FILE *f = open_memstream(text, len);
	int rc;

	if (!f) {
		fprintf(stderr, "%s metrics: %s\n", prog, strerror(errno));
		return -1;
	}
	rc = write_metrics(f, cfg);
	if (fclose(f) != 0) {
		fprintf(stderr, "%s metrics: %s\n", prog, strerror(errno));
		free(*text);
		*text = NULL;
		return -1;
	}
	return rc;
}

int cli_metrics_save(const char *textfile, const char *text, size_t len)
{
	char tmp[PATH_MAX];
	const char *slash = strrchr(textfile, '/');
	size_t off = 0;
	int fd;

	/* a hidden name without .prom in the same folder: the exporter reads *.prom only */
	if (snprintf(tmp, sizeof(tmp), "%.*s.%s.%ld.tmp", slash ? (int)(slash - textfile + 1) : 0,
		     textfile, slash ? slash + 1 : textfile, (long)getpid()) >= (int)sizeof(tmp)) {
		fprintf(stderr, "%s metrics: %s: name too long\n", prog, textfile);
		return -1;
	}
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644)) < 0) {
		fprintf(stderr, "%s metrics: %s: %s\n", prog, tmp, strerror(errno));
		return -1;
	}
	while (off < len) {
		ssize_t w = write(fd, text + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	if (off < len || fchmod(fd, 0644) < 0 || fsync(fd) < 0 || close(fd) < 0 ||
	    rename(tmp, textfile) < 0) {
		fprintf(stderr, "%s metrics: %s: %s\n", prog, textfile,
			off < len ? "short write" : strerror(errno));
		if (off < len)
			close(fd);
		unlink(tmp);
		return -1;
	}
	return 0;
}

int cmd_metrics(int argc, char **argv)
{
	struct cli_where w = {0};
	const char *textfile = NULL;
	const struct pmu_opt opts[] = {
		{"textfile", 't', true, &textfile, NULL},
		{"store", 's', true, &w.store, NULL},
		{"config", 'c', true, &w.config, NULL},
	};
	struct pm_config cfg;
	int rc;

	if (pmu_opts_parse(argc, argv, 1, opts, PMU_NELEM(opts)) || optind != argc ||
	    (textfile && !*textfile)) {
		fprintf(stderr, USAGE, prog);
		return 2;
	}
	if (cli_load_config(w.config, w.store, &cfg) < 0)
		return 1;
	if (textfile) {
		char *text = NULL;
		size_t len = 0;
		rc = cli_metrics_text(&cfg, &text, &len);
		if (rc >= 0 && cli_metrics_save(textfile, text, len) < 0)
			rc = 1;
		rc = rc < 0 ? 1 : rc;
		free(text);
	} else {
		rc = write_metrics(stdout, &cfg) | (fflush(stdout) != 0);
	}
	pm_config_free(&cfg);
	return rc;
}
