/*
 * check_responder.c - the responder verbs (issue 5) over real archived evidence: fixture
 * evidence folders packed into node bundles in a temporary store and merged by the
 * finalizer, as the collector would leave them; the bundle of every format version kept in
 * tests/data/bundles; and the store module (cli/store.h) on its own.
 *
 *   store module   times, verdict changes, the ledger chain and its tampering
 *   formats        every bundle format version is read, finalized, replayed and drilled
 *   replay         revised rule sets: every changed conclusion is explained; --apply
 *   uncertainty    one source removed: never more certain; a stream lagging past the
 *                  observation cut-off: more cautious, and named; a second competing
 *                  explanation: ambiguous, both named
 *   verbs          drill, expire, ledger and report through the built command
 *
 * PM_TEST_ALL_FIXTURES=1 runs the removal test over every fixture of rules/fixtures.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "finalize.h"
#include "pmutil.h"
#include "store.h"
#include "support.h"

const char *prog = "postmortem"; /* cli/access.c prints with it */

#define FIXTURES PM_TEST_SRCDIR "/rules/fixtures"
#define OBSERVED "2026-12-01T00:00:00Z" /* when the packed sources were "read" */

static char T[256]; /* the test's temporary folder */
static struct pm_config cfg;
static struct pm_ruleset *rules;

static const char FAKE_SACCT[] = "#!/bin/sh\n"
				 "D=$(dirname \"$0\")/..\n"
				 "job=; prev=\n"
				 "for a in \"$@\"; do [ \"$prev\" = -j ] && job=$a; prev=$a; done\n"
				 "case \" $* \" in\n"
				 "*' -o Comment '*) cat \"$D/db.Comment\" 2>/dev/null ;;\n"
				 "*' -o AdminComment '*) ;;\n"
				 "*) cat \"$D/db.sacct.$job\" 2>/dev/null ;;\n"
				 "esac\n"
				 "exit 0\n";

static const char FAKE_SACCTMGR[] =
	"#!/bin/sh\n"
	"D=$(dirname \"$0\")/..\n"
	"for a in \"$@\"; do printf '[%s]' \"$a\"; done >> \"$D/sacctmgr.log\"\n"
	"echo >> \"$D/sacctmgr.log\"\n"
	"for a in \"$@\"; do case \"$a\" in\n"
	"  Comment=*) v=${a#Comment=}; v=${v#\\\"}; v=${v%\\\"}; printf '%s\\n' \"$v\" > "
	"\"$D/db.Comment\";;\n"
	"esac; done\n"
	"echo ' Modified job'\n"
	"exit 0\n";

/* ---- helpers ---- */

static void mkdirs(const char *p)
{
	char b[1024];

	snprintf(b, sizeof(b), "%s", p);
	for (char *s = b + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(b, 0755);
			*s = '/';
		}
	mkdir(b, 0755);
}

static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	ck_assert_msg(system(cmd) == 0, "%s", cmd);
}

/* Run the built command; its output (stdout and stderr, the first OUTLEN - 1 bytes) into
 * OUT, its exit status back. */
static int run_cli(const char *args, char *out, size_t outlen)
{
	char cmd[4096], sink[4096];
	FILE *p;
	size_t n = 0, k;
	int st;

	snprintf(cmd, sizeof(cmd), "%s/cli/postmortem %s 2>&1", PM_TEST_BUILDDIR, args);
	ck_assert_ptr_nonnull(p = popen(cmd, "r"));
	while (n < outlen - 1 && (k = fread(out + n, 1, outlen - 1 - n, p)) > 0)
		n += k;
	out[n] = '\0';
	while (fread(sink, 1, sizeof(sink), p) > 0)
		; /* the rest, so that the command never dies of SIGPIPE */
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void setup(void)
{
	char p[2048], err[512];

	unsetenv("SLURM_JOB_ID");
	unsetenv("SLURM_NODELIST");
	snprintf(T, sizeof(T), "%s/pmresp.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(T));
	snprintf(p, sizeof(p), "%s/bin", T);
	mkdirs(p);
	pmt_put(p, "sacct", FAKE_SACCT, 0755);
	pmt_put(p, "sacctmgr", FAKE_SACCTMGR, 0755);
	pmt_put(T, "db.Comment", "\n", 0644);
	snprintf(p, sizeof(p), "%s/store", T);
	mkdirs(p);
	memset(&cfg, 0, sizeof(cfg));
	cfg.rules = strdup(PM_TEST_SRCDIR "/rules");
	ck_assert_int_ge(asprintf(&cfg.sacct, "%s/bin/sacct", T), 0);
	ck_assert_int_ge(asprintf(&cfg.sacctmgr, "%s/bin/sacctmgr", T), 0);
	ck_assert_int_ge(asprintf(&cfg.store, "%s/store", T), 0);
	cfg.comment_field = strdup("Comment");
	cfg.retain = 14 * 86400;
	/* the command reads the same configuration */
	snprintf(p, sizeof(p),
		 "store: %s/store\nrules: %s/rules\nsacct: %s/bin/sacct\nsacctmgr: %s/bin/sacctmgr\n"
		 "retain: 14d\n",
		 T, PM_TEST_SRCDIR, T, T);
	pmt_put(T, "pm.yaml", p, 0644);
	snprintf(p, sizeof(p), "%s/pm.yaml", T);
	setenv("POSTMORTEM_CONFIG", p, 1);
	setenv("POSTMORTEM_RULES", PM_TEST_SRCDIR "/rules", 1);
	ck_assert_msg((rules = pm_ruleset_load(PM_TEST_SRCDIR "/rules", err, sizeof(err))) != NULL,
		      "%s", err);
}

static void teardown(void)
{
	if (getenv("PM_TEST_KEEP"))
		fprintf(stderr, "kept %s\n", T);
	else
		sh("rm -rf '%s'", T);
	pm_ruleset_destroy(rules);
	free(cfg.rules);
	free(cfg.sacct);
	free(cfg.sacctmgr);
	free(cfg.store);
	free(cfg.comment_field);
}

/* ---- packing fixture evidence into a store, as the collector and finalizer would ---- */

struct pack {
	const char *skip_node; /* this node never reported */
	const char *skip_file; /* this evidence file could not be read (coverage: missing) */
	bool no_sacct;	       /* Slurm has no record of the job */
	const char *late_node; /* this node's bundle arrives after the merge */
	/* rewrite file REL of the fixture (TEXT, *LEN bytes): a malloc'd copy or NULL */
	char *(*filter)(const char *rel, const char *text, size_t *len);
	int restart; /* the job run's restart count: variants of one job side by side */
	bool quick;  /* no finalizer (it loads the rule set each time): the store reader's
			verdict, which is the finalizer's byte for byte (bundle_formats) */
};

struct packed {
	char dir[600];	  /* the job run */
	char job[64];	  /* its id */
	json_t *direct;	  /* the fixture diagnosed as a folder; "coverage": its inputs */
	json_t *verdict;  /* the stored verdict, NULL when there is none */
	json_t *manifest; /* the stored manifest */
};

static void packed_free(struct packed *p)
{
	json_decref(p->direct);
	json_decref(p->verdict);
	json_decref(p->manifest);
	memset(p, 0, sizeof(*p));
}

/* The job id the fixture's sacct.txt names (its JobID column, first row), else FALLBACK. */
static void fixture_job(const char *ev, char *job, size_t len, const char *fallback)
{
	char *s = pmt_get(ev, "sacct.txt"), *nl, *row;
	int col = -1, i = 0;

	snprintf(job, len, "%s", fallback);
	if (!s || !(nl = strchr(s, '\n')))
		goto out;
	*nl = '\0';
	for (char *f = s, *bar; f; f = bar ? bar + 1 : NULL, i++) {
		bar = strchr(f, '|');
		if (bar)
			*bar = '\0';
		if (!strcmp(f, "JobID"))
			col = i;
	}
	row = nl + 1;
	for (i = 0; col >= 0 && row && i < col; i++)
		row = strchr(row, '|') ? strchr(row, '|') + 1 : NULL;
	if (row && col >= 0) {
		row[strcspn(row, "|\n")] = '\0';
		bool ok = *row != '\0';
		for (const char *c = row; *c; c++)
			ok = ok && ((*c >= '0' && *c <= '9') || *c == '_' || *c == '+');
		if (ok)
			snprintf(job, len, "%s", row);
	}
out:
	free(s);
}

/* Write NODE's bundle from the fixture files FILES (coverage entries of the direct verdict). */
static void write_bundle(const char *dir, const char *ev, const char *job, const char *node,
			 const char *nodelist, const json_t *files, const struct pack *o,
			 double mtime)
{
	json_t *man = json_object(), *fl = json_array(), *cov = json_array(), *x;
	char p[1200], sha[80], *mtext;
	struct {
		char name[600];
		char *data;
		size_t len;
	} m[64];
	struct pmt_member pm[64];
	size_t nm = 0, i;

	json_array_foreach(files, i, x)
	{
		const char *rel = pmu_str(x, "file", "-");
		char *data, *f;
		size_t len;
		if (o->skip_file && !strcmp(rel, o->skip_file)) {
			json_array_append_new(cov,
					      json_pack("{s:s,s:s,s:s}", "source",
							pmu_str(x, "source", "-"), "status",
							"missing", "reason",
							"could not be read (the test removed it)"));
			continue;
		}
		ck_assert_uint_lt(nm, 64);
		snprintf(p, sizeof(p), "%s/%s", ev, rel);
		ck_assert_msg(cli_read_file(p, 64u << 20, &data, &len) == 0, "%s", p);
		if (o->filter && (f = o->filter(rel, data, &len))) {
			free(data);
			data = f;
		}
		snprintf(m[nm].name, sizeof(m[nm].name), "sources/%s/", pmu_str(x, "source", "-"));
		for (const char *c = rel; *c; c++) /* the folder structure flattened */
			snprintf(m[nm].name + strlen(m[nm].name), 2, "%c", *c == '/' ? '_' : *c);
		m[nm].data = data;
		m[nm].len = len;
		cli_sha256(data, len, sha);
		json_array_append_new(fl, json_pack("{s:s,s:s,s:s,s:n,s:s,s:I,s:s,s:s,s:s}", "path",
						    m[nm].name, "source", pmu_str(x, "source", "-"),
						    "node", node, "rank", "observed_time", OBSERVED,
						    "bytes", (json_int_t)len, "sha256", sha + 7,
						    "status", "ok", "reason", ""));
		nm++;
	}
	json_object_set_new(man, "schema", json_string(PM_BUNDLE_SCHEMA));
	json_object_set_new(man, "cluster", json_string("lab"));
	json_object_set_new(man, "job", json_string(job));
	json_object_set_new(man, "restart", json_integer(o->restart));
	json_object_set_new(man, "node", json_string(node));
	json_object_set_new(man, "nodelist", json_string(nodelist));
	json_object_set_new(man, "uid",
			    json_integer(geteuid() == 0 ? 1000 : (json_int_t)geteuid()));
	json_object_set_new(man, "collected", json_pack("{s:b}", "deadline_hit", 0));
	json_object_set_new(man, "files", fl);
	json_object_set_new(man, "coverage", cov);
	ck_assert_ptr_nonnull(mtext = json_dumps(man, JSON_SORT_KEYS));
	for (i = 0; i < nm; i++)
		pm[i] = (struct pmt_member){m[i].name, m[i].data, m[i].len};
	pmt_bundle(dir, node, mtext, pm, nm, mtime);
	for (i = 0; i < nm; i++)
		free(m[i].data);
	free(mtext);
	json_decref(man);
}

static bool is_sacct(const json_t *c)
{
	return !strcmp(pmu_str(c, "source", "-"), "scheduler") &&
	       !json_is_string(json_object_get(c, "node")) &&
	       !strcmp(pmu_str(c, "file", "-"), "sacct.txt");
}

/* Pack FIXTURE into the store under O, finalize it the way the nodes' epilogs would. */
static void pack(const char *fixture, const struct pack *o, struct packed *out)
{
	struct pack none = {0};
	char ev[600], err[600] = "", nodelist[2048] = "", *s;
	struct pm_evidence *e = pm_evidence_create(rules);
	json_t *nodes = json_array(), *byn = json_object(), *c, *x;
	struct pm_finalize_opts fo = {.force = true, .budget = 0.3};
	struct pm_finalize_result r;
	const char *first = NULL;
	size_t i;

	if (!o)
		o = &none;
	memset(out, 0, sizeof(*out));
	snprintf(ev, sizeof(ev), "%s/%s/evidence", FIXTURES, fixture);
	static char cached[200];
	static json_t *direct;
	if (strcmp(cached, fixture)) {
		json_decref(direct);
		ck_assert_msg(pm_evidence_add_path(e, ev, err, sizeof(err)) == 0, "%s", err);
		ck_assert_msg((direct = pm_diagnose(e, err, sizeof(err))) != NULL, "%s: %s",
			      fixture, err);
		/* every input file, not the verdict's grouped coverage: the bundles are made
		 * of them */
		json_object_set_new(direct, "coverage", pm_evidence_inputs(e));
		snprintf(cached, sizeof(cached), "%s", fixture);
	}
	out->direct = json_incref(direct);
	pm_evidence_destroy(e);
	fixture_job(ev, out->job, sizeof(out->job), "4242");
	snprintf(out->dir, sizeof(out->dir), "%s/store/lab/%s/%d", T, out->job, o->restart);
	mkdirs(out->dir);
	/* the job's nodes: Slurm's, then any other the evidence names */
	json_array_foreach(json_object_get(json_object_get(out->direct, "job"), "nodes"), i, x)
		json_array_append(nodes, x);
	json_array_foreach(json_object_get(out->direct, "coverage"), i, c)
	{
		const json_t *n = json_object_get(c, "node");
		bool seen = false;
		size_t k;
		json_t *y;
		json_array_foreach(nodes, k, y) seen = seen || json_equal(y, n);
		if (json_is_string(n) && !seen)
			json_array_append(nodes, (json_t *)n);
	}
	ck_assert_msg(json_array_size(nodes) > 0, "%s: no nodes", fixture);
	first = json_string_value(json_array_get(nodes, 0));
	json_array_foreach(nodes, i, x)
	{
		snprintf(nodelist + strlen(nodelist), sizeof(nodelist) - strlen(nodelist), "%s%s",
			 i ? "," : "", json_string_value(x));
		json_object_set_new(byn, json_string_value(x), json_array());
	}
	/* every file to its node's bundle; the job's output to the first node (the batch host) */
	json_array_foreach(json_object_get(out->direct, "coverage"), i, c)
	{
		const char *n = json_string_value(json_object_get(c, "node"));
		if (!json_is_string(json_object_get(c, "file")) || is_sacct(c))
			continue;
		json_array_append(json_object_get(byn, n ? n : first), c);
	}
	snprintf(err, sizeof(err), "%s/db.sacct.%s", T, out->job);
	unlink(err);
	if (!o->no_sacct && (s = pmt_get(ev, "sacct.txt"))) {
		snprintf(err, sizeof(err), "db.sacct.%s", out->job);
		pmt_put(T, err, s, 0644);
		free(s);
	}
	json_array_foreach(nodes, i, x)
	{
		const char *n = json_string_value(x);
		if ((o->skip_node && !strcmp(o->skip_node, n)) ||
		    (o->late_node && !strcmp(o->late_node, n)))
			continue;
		write_bundle(out->dir, ev, out->job, n, nodelist, json_object_get(byn, n), o, 0);
		ck_assert_msg(pm_finalize_arrive(out->dir, n, nodelist, err, sizeof(err)) >= 1,
			      "%s", err);
	}
	if (o->quick) {
		struct cli_inputs in;
		if (!o->no_sacct && (s = pmt_get(ev, "sacct.txt"))) {
			pmt_put(out->dir, "sacct.txt", s, 0640);
			free(s);
		}
		out->verdict = cli_job_rediagnose(out->dir, rules, 0, &in, err, sizeof(err));
		json_decref(in.notes);
		out->manifest = json_object();
		goto done;
	}
	ck_assert_msg(pm_finalize_ex(&cfg, out->dir, &fo, &r, err, sizeof(err)) >= 0, "%s: %s",
		      fixture, err);
	out->manifest = pmt_load(out->dir, "manifest.json");
	if (pmt_there(out->dir, "verdict.json"))
		out->verdict = pmt_load(out->dir, "verdict.json");
	if (o->late_node) {
		double upd = 0;
		ck_assert_int_eq(cli_time_parse(pmu_str(out->manifest, "updated", "-"), &upd), 0);
		write_bundle(out->dir, ev, out->job, o->late_node, nodelist,
			     json_object_get(byn, o->late_node), o, upd + 120);
	}
done:
	json_decref(nodes);
	json_decref(byn);
}

/* How certain a verdict is: its confidence first, then its status ("none", a job that
 * completed with nothing wrong, is as certain as an attribution). */
static int certainty(const json_t *v)
{
	/* Confidence is the contract (engine/ATTRIBUTION.md: missing inputs only lower it).
	 * An attributed hypothesis is no more certain than an ambiguous one: both are leads, and
	 * the verdict's coverage says what was missing.  Below hypothesis: unknown. */
	if (!strcmp(pmu_str(v, "status", "-"), "none"))
		return 4;
	if (!strcmp(pmu_str(v, "status", "-"), "unknown"))
		return 0;
	return cli_confidence_rank(v) + 1;
}

static void describe(const json_t *v, char *buf, size_t len)
{
	char cause[200];

	cli_verdict_cause(v, cause, sizeof(cause));
	snprintf(buf, len, "%s %s (%s)", pmu_str(v, "status", "-"), cause,
		 pmu_str(v, "confidence", "-"));
}

/* ---- the store module ---- */

START_TEST(time_parse)
{
	double t;
	char buf[40];

	ck_assert_int_eq(cli_time_parse("2026-11-30T03:11:58Z", &t), 0);
	cli_time_iso(t, buf, sizeof(buf));
	ck_assert_str_eq(buf, "2026-11-30T03:11:58Z");
	ck_assert_int_eq(cli_time_parse("2026-11-30T03:11:58.002Z", &t), 0);
	ck_assert(t - 1796008318.002 < 1e-6 && t - 1796008318.002 > -1e-6);
	ck_assert_int_eq(cli_time_parse("2026-11-30T04:11:58+01:00", &t), 0);
	ck_assert(t == 1796008318.0);
	ck_assert_int_eq(cli_time_parse("2026-11-30", &t), 0);
	ck_assert(t == 1795996800.0);
	ck_assert_int_eq(cli_time_parse("2026-11-30 03:11", &t), 0);
	ck_assert_int_eq(cli_time_parse("2026-13-30", &t), -1);
	ck_assert_int_eq(cli_time_parse("2026-11-30T03:11:58Zjunk", &t), -1);
	ck_assert_int_eq(cli_time_parse("next tuesday", &t), -1);
	ck_assert_int_eq(cli_time_parse("", &t), -1);
	ck_assert_int_eq(cli_time_parse(NULL, &t), -1);
}
END_TEST

static json_t *verdict(const char *status, const char *conf, const char *cls, const char *node,
		       const char *rule, const char *digest)
{
	return json_pack("{s:s,s:s,s:s?,s:{s:s,s:s},s:{s:[s],s:[]},s:[{s:s,s:s,s:s,s:s,s:s}],"
			 "s:s,s:{s:s}}",
			 "outcome", "FAILED", "status", status, "confidence", conf, "cause",
			 "class", cls, "subclass", "x", "origin", "nodes", node, "ranks",
			 "evidence", "rule", rule, "role", "origin", "class", cls, "subclass", "x",
			 "node", node, "input_digest", "sha256:in", "ruleset", "digest", digest);
}

START_TEST(verdict_changes)
{
	json_t *a = verdict("attributed", "established", "gpu_hardware", "gpu017", "xid-79",
			    "sha256:a");
	json_t *b = verdict("attributed", "hypothesis", "nvlink", "gpu016", "xid-74", "sha256:b");
	json_t *c = cli_verdict_changes(a, b, rules);
	char buf[200];

	ck_assert(json_is_true(json_object_get(c, "changed")));
	ck_assert(json_is_true(json_object_get(c, "explained")));
	ck_assert_int_eq(json_array_size(json_object_get(c, "fields")),
			 3); /* conf, class, origin */
	ck_assert_str_eq(pmu_str(json_array_get(json_object_get(json_object_get(c, "rules"),
								"appeared"),
						0),
				 "rule", "-"),
			 "xid-74");
	ck_assert_ptr_nonnull(strstr(pmu_str(c, "why", "-"), "xid-79 no longer fires"));
	ck_assert_ptr_nonnull(
		strstr(pmu_str(c, "why", "-"), "xid-74 now fires (origin nvlink/x on gpu016)"));
	ck_assert_ptr_nonnull(
		strstr(pmu_str(c, "why", "-"), "xid-79 is not in the rule set any more"));
	cli_verdict_origin(b, buf, sizeof(buf));
	ck_assert_str_eq(buf, "gpu016");
	json_decref(c);
	/* the same verdict: nothing changed */
	c = cli_verdict_changes(a, a, rules);
	ck_assert(json_is_false(json_object_get(c, "changed")));
	json_decref(c);
	/* same rules, other data in the rule set: explained by the digest only */
	json_decref(b);
	b = verdict("ambiguous", "hypothesis", "gpu_hardware", "gpu017", "xid-79", "sha256:b");
	c = cli_verdict_changes(a, b, NULL);
	ck_assert(json_is_true(json_object_get(c, "changed")));
	ck_assert(json_is_false(json_object_get(c, "explained")));
	ck_assert_ptr_nonnull(strstr(pmu_str(c, "why", "-"), "rule set's data"));
	json_decref(c);
	json_decref(a);
	json_decref(b);
}
END_TEST

/* Append N entries; the log (a copy of what syslog got) into LOG when not NULL. */
static void ledger_fill(const char *l, const char *h, int n, double t0, FILE *log)
{
	char err[512];

	for (int i = 1; i <= n; i++) {
		json_t *e = json_pack("{s:s,s:s,s:s,s:i}", "job", "lab/4242/0", "kind", "done",
				      "action", "drain", "n", i);
		bool hw;
		char *line, sha[80];
		ck_assert_msg(cli_ledger_append(l, h, e, t0 + i, &hw, err, sizeof(err)) == 0, "%s",
			      err);
		ck_assert_int_eq(json_integer_value(json_object_get(e, "seq")), i);
		ck_assert(hw == (geteuid() == 0));
		line = json_dumps(e, JSON_SORT_KEYS | JSON_COMPACT | JSON_ENSURE_ASCII);
		cli_ledger_line_hash(line, strlen(line), sha);
		if (log)
			fprintf(log,
				"Nov 30 03:11:58 host postmortem[1]: postmortem-ledger head "
				"seq=%d sha256=%s ledger=%s\n",
				i, sha + 7, l);
		free(line);
		json_decref(e);
	}
}

/* Verify and return the first problem's fault name ("ok" when intact). */
static const char *first_fault(const char *l, const char *h, const char *log, long long *seq,
			       char *what, size_t wl)
{
	static char name[40];
	struct cli_ledger_check r;
	char err[512];
	int rc = cli_ledger_verify(l, h, log, &r, err, sizeof(err));
	json_t *p = json_array_get(r.problems, 0);

	ck_assert_msg(rc >= 0, "%s", err);
	snprintf(name, sizeof(name), "%s", rc == 0 ? "ok" : pmu_str(p, "fault", "-"));
	*seq = json_is_integer(json_object_get(p, "seq")) ?
		       (long long)json_integer_value(json_object_get(p, "seq")) :
		       -1;
	snprintf(what, wl, "%s", pmu_str(p, "what", "-"));
	ck_assert_int_eq(rc == 0, json_array_size(r.problems) == 0);
	json_decref(r.problems);
	json_decref(r.notes);
	return name;
}

/* Replace the Nth line of file P by what EDIT makes of it (NULL: remove the line). */
static void edit_line(const char *p, int n, char *(*edit)(const char *line))
{
	char *buf, *out = NULL;
	size_t len, olen = 0;
	FILE *f;
	int i = 1;

	ck_assert_int_eq(cli_read_file(p, 1 << 20, &buf, &len), 0);
	f = open_memstream(&out, &olen);
	for (char *s = buf, *nl; *s; s = nl + 1, i++) {
		nl = strchr(s, '\n');
		*nl = '\0';
		if (i != n) {
			fprintf(f, "%s\n", s);
		} else if (edit) {
			char *e = edit(s);
			fprintf(f, "%s\n", e);
			free(e);
		}
	}
	fclose(f);
	f = fopen(p, "w");
	fwrite(out, 1, olen, f);
	fclose(f);
	free(out);
	free(buf);
}

static char *change_action(const char *line)
{
	char *s = strdup(line), *a = strstr(s, "\"drain\"");

	ck_assert_ptr_nonnull(a);
	memcpy(a, "\"reset\"", 7);
	return s;
}

/* Edited and re-hashed, so that only the next entry's prev gives it away. */
static char *change_and_rehash(const char *line)
{
	json_t *o = json_loads(line, 0, NULL);
	char sha[80], *s;

	json_object_set_new(o, "action", json_string("none"));
	json_object_del(o, "hash");
	s = json_dumps(o, JSON_SORT_KEYS | JSON_COMPACT | JSON_ENSURE_ASCII);
	cli_sha256(s, strlen(s), sha);
	free(s);
	json_object_set_new(o, "hash", json_string(sha));
	s = json_dumps(o, JSON_SORT_KEYS | JSON_COMPACT | JSON_ENSURE_ASCII);
	json_decref(o);
	return s;
}

START_TEST(ledger_tamper)
{
	char l[512], h[512], log[512], what[600], err[512], cmd[1600];
	long long seq;
	FILE *f;

	snprintf(l, sizeof(l), "%s/ledger.jsonl", T);
	snprintf(h, sizeof(h), "%s/ledger.head", T);
	snprintf(log, sizeof(log), "%s/syslog", T);
	/* an empty ledger verifies */
	ck_assert_str_eq(first_fault(l, NULL, NULL, &seq, what, sizeof(what)), "ok");
	ck_assert_ptr_nonnull(f = fopen(log, "w"));
	ledger_fill(l, h, 5, 1796008318.0, f);
	fclose(f);
	ck_assert_str_eq(first_fault(l, h, log, &seq, what, sizeof(what)), "ok");
	snprintf(cmd, sizeof(cmd), "cp %s %s.orig", l, l);
	sh("%s", cmd);

	/* an entry edited: its own hash gives it away */
	edit_line(l, 3, change_action);
	ck_assert_str_eq(first_fault(l, h, log, &seq, what, sizeof(what)), "edited");
	ck_assert_int_eq(seq, -1);
	ck_assert_ptr_nonnull(strstr(what, "does not match its hash"));
	/* and the ledger refuses to grow on a broken end?  Only its last line is checked: the
	 * middle is verify's job.  An edited last line stops appends. */
	sh("cp %s.orig %s", l, l);
	edit_line(l, 5, change_action);
	json_t *e = json_pack("{s:s}", "kind", "done");
	ck_assert_int_eq(cli_ledger_append(l, NULL, e, 0, NULL, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "does not verify"));
	json_decref(e);

	/* edited and re-hashed: the next entry's prev gives it away */
	sh("cp %s.orig %s", l, l);
	edit_line(l, 3, change_and_rehash);
	ck_assert_str_eq(first_fault(l, h, log, &seq, what, sizeof(what)), "broken_chain");
	ck_assert_int_eq(seq, 4);
	ck_assert_ptr_nonnull(strstr(what, "seq 3"));

	/* an entry removed: the seq count gives it away */
	sh("cp %s.orig %s", l, l);
	edit_line(l, 2, NULL);
	ck_assert_str_eq(first_fault(l, h, log, &seq, what, sizeof(what)), "removed");
	ck_assert_int_eq(seq, 3);
	ck_assert_ptr_nonnull(strstr(what, "entries 2..2 are missing"));

	/* the last entries removed: consistent inside, but the recorded heads are ahead */
	sh("cp %s.orig %s", l, l);
	edit_line(l, 5, NULL);
	edit_line(l, 4, NULL);
	ck_assert_str_eq(first_fault(l, NULL, log, &seq, what, sizeof(what)), "truncated");
	if (geteuid() == 0) {
		ck_assert_str_eq(first_fault(l, h, NULL, &seq, what, sizeof(what)), "truncated");
		ck_assert_int_eq(seq, 5);
	}

	/* the whole file rewritten with a consistent chain: only the heads outside catch it */
	unlink(l);
	{
		char h2[600];
		snprintf(h2, sizeof(h2), "%s.other", h);
		ledger_fill(l, h2, 5, 1796100000.0, NULL); /* same seqs, other times */
	}
	ck_assert_str_eq(first_fault(l, NULL, NULL, &seq, what, sizeof(what)), "ok");
	ck_assert_str_eq(first_fault(l, NULL, log, &seq, what, sizeof(what)), "rewritten");
	ck_assert_ptr_nonnull(strstr(what, "syslog"));
	if (geteuid() == 0) {
		ck_assert_str_eq(first_fault(l, h, NULL, &seq, what, sizeof(what)), "rewritten");
		ck_assert_int_eq(seq, 5);
		ck_assert_ptr_nonnull(strstr(what, "head file"));
	}
}
END_TEST

/* ---- every bundle format version ---- */

START_TEST(bundle_formats)
{
	static const char *const versions[] = {"postmortem.bundle-1"};
	char dir[600], src[600], err[600], out[65536], args[1200];
	struct pm_finalize_opts fo = {.force = true, .budget = 0.3};
	struct pm_finalize_result r;

	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		struct cli_inputs in;
		json_t *v, *stored, *c;

		snprintf(src, sizeof(src), "%s/tests/data/bundles/%s", PM_TEST_SRCDIR, versions[i]);
		snprintf(dir, sizeof(dir), "%s/store/lab/4242/%zu", T, i);
		sh("mkdir -p %s/nodes && cp %s/*.tar.zst %s/nodes/ && cp %s/sacct.txt %s/db.sacct.4242",
		   dir, src, dir, src, T);
		ck_assert_int_ge(pm_finalize_arrive(dir, "gpu016", "gpu[016-017]", err,
						    sizeof(err)),
				 1);
		ck_assert_int_ge(pm_finalize_arrive(dir, "gpu017", NULL, err, sizeof(err)), 1);
		ck_assert_msg(pm_finalize_ex(&cfg, dir, &fo, &r, err, sizeof(err)) == 0, "%s", err);
		stored = pmt_load(dir, "verdict.json");
		ck_assert_str_eq(pmu_str(stored, "status", "-"), "attributed");
		ck_assert_str_eq(pmu_str(json_object_get(stored, "cause"), "subclass", "-"),
				 "gpu_lost");
		/* the store reader takes every bundle of this version, and agrees byte for byte */
		ck_assert_ptr_nonnull(v = cli_job_rediagnose(dir, rules, 0, &in, err, sizeof(err)));
		ck_assert_int_eq(in.bundles, 2);
		ck_assert_int_eq(in.added, 2);
		ck_assert_int_eq(in.rejected, 0);
		ck_assert(in.sched);
		c = cli_verdict_changes(stored, v, rules);
		ck_assert(json_is_false(json_object_get(c, "changed")));
		char *a = pm_verdict_dump(v), *b = pmt_get(dir, "verdict.json");
		ck_assert_str_eq(a, b);
		free(a);
		free(b);
		json_decref(c);
		json_decref(v);
		json_decref(stored);
		json_decref(in.notes);
		/* and the verbs read it */
		snprintf(args, sizeof(args), "replay --rules %s/rules --store %s/store",
			 PM_TEST_SRCDIR, T);
		ck_assert_int_eq(run_cli(args, out, sizeof(out)), 0);
		ck_assert_msg(strstr(out, "0 changed"), "%s", out);
		snprintf(args, sizeof(args), "drill 4242 --restart %zu", i);
		ck_assert_msg(run_cli(args, out, sizeof(out)) == 0, "%s", out);
		ck_assert_msg(strstr(out, "gives the stored verdict byte for byte"), "%s", out);
		ck_assert_msg(strstr(out, "intact:"), "%s", out);
	}
}
END_TEST

/* ---- replay ---- */

/* A copy of the bundled rule set in T/NAME with EDIT applied to FILE's text. */
static void revised_rules(const char *name, const char *file, void (*edit)(char **text))
{
	char d[600], *s;

	snprintf(d, sizeof(d), "%s/%s", T, name);
	sh("mkdir -p %s && cp %s/rules/*.yaml %s/", d, PM_TEST_SRCDIR, d);
	if (!file)
		return;
	ck_assert_ptr_nonnull(s = pmt_get(d, file));
	edit(&s);
	pmt_put(d, file, s, 0644);
	free(s);
}

/* Remove the rule ID (its "  - id: ID" block up to the next blank line) from *TEXT. */
static void drop_rule(char **text, const char *id)
{
	char head[200], *a, *b;

	snprintf(head, sizeof(head), "  - id: %s\n", id);
	ck_assert_ptr_nonnull(a = strstr(*text, head));
	b = strstr(a, "\n\n");
	b = b ? b + 1 : a + strlen(a);
	memmove(a, b, strlen(b) + 1);
}

static void no_xid79(char **text)
{
	drop_rule(text, "xid-79-fallen-off-bus");
	drop_rule(text, "gpu-fallen-off-bus");
}

START_TEST(replay_revised_rules)
{
	struct packed p;
	char rdir[600], args[1600], out[65536];
	json_t *j, *run, *c;

	pack("gpu-xid79-node2-watchdog-node1", NULL, &p);
	ck_assert_str_eq(pmu_str(p.verdict, "status", "-"), "attributed");
	revised_rules("rules-no-xid79", "gpu.yaml", no_xid79);
	snprintf(rdir, sizeof(rdir), "%s/rules-no-xid79", T);

	/* nothing written without --apply */
	char *before = pmt_get(p.dir, "verdict.json");
	snprintf(args, sizeof(args), "replay --rules %s --json", rdir);
	ck_assert_int_eq(run_cli(args, out, sizeof(out)), 0);
	ck_assert_ptr_nonnull(j = json_loads(out, 0, NULL));
	run = json_array_get(json_object_get(j, "runs"), 0);
	c = json_object_get(run, "changes");
	ck_assert(json_is_true(json_object_get(c, "changed")));
	ck_assert(json_is_true(json_object_get(c, "explained")));
	ck_assert_msg(strstr(pmu_str(c, "why", "-"),
			     "xid-79-fallen-off-bus no longer fires (origin "
			     "gpu_hardware/gpu_lost on gpu017)"),
		      "%s", pmu_str(c, "why", "-"));
	ck_assert_msg(strstr(pmu_str(c, "why", "-"),
			     "xid-79-fallen-off-bus is not in the rule set any more"),
		      "%s", pmu_str(c, "why", "-"));
	json_decref(j);
	char *after = pmt_get(p.dir, "verdict.json");
	ck_assert_str_eq(before, after);
	free(after);
	ck_assert(!pmt_there(p.dir, "history"));

	/* the text form names the job, what changed and why */
	snprintf(args, sizeof(args), "replay --rules %s %s", rdir, p.job);
	ck_assert_int_eq(run_cli(args, out, sizeof(out)), 0);
	ck_assert_msg(strstr(out, "lab/4242/0: attributed gpu_hardware/gpu_lost (established) -> "),
		      "%s", out);
	ck_assert_msg(strstr(out, "because    xid-79-fallen-off-bus no longer fires"), "%s", out);
	ck_assert_msg(strstr(out, "1 changed, 0 unchanged"), "%s", out);
	ck_assert_msg(strstr(out, "--apply writes them"), "%s", out);

	/* --apply: the finalizer's merge under the revised rules, history kept, comment set */
	snprintf(args, sizeof(args), "replay --rules %s --apply %s", rdir, p.job);
	ck_assert_int_eq(run_cli(args, out, sizeof(out)), 0);
	ck_assert_msg(strstr(out, "applied: earlier verdict kept as history/verdict-1.json"), "%s",
		      out);
	after = pmt_get(p.dir, "history/verdict-1.json");
	ck_assert_str_eq(before, after);
	free(after);
	free(before);
	ck_assert(pmt_there(p.dir, "history/verdict-1.replay"));
	json_t *nv = pmt_load(p.dir, "verdict.json"), *m = pmt_load(p.dir, "manifest.json");
	/* without the kernel's Xid the job output's CUDA "unknown error" (a confirmation of a lost
	 * GPU) is all that is left: the fallback lead, never more than a hypothesis */
	ck_assert_str_eq(pmu_str(nv, "confidence", "-"), "hypothesis");
	ck_assert_str_eq(pmu_str(json_object_get(json_object_get(nv, "decision"), "containment"),
				 "id", "-"),
			 "retry");
	ck_assert_str_eq(pmu_str(json_object_get(nv, "ruleset"), "digest", "-"),
			 pmu_str(json_object_get(m, "ruleset"), "digest", "-"));
	char *line = pm_comment_line(nv, "lab", p.job, "0"), *db = pmt_get(T, "db.Comment");
	ck_assert_msg(strncmp(db, line, strlen(line)) == 0, "%s vs %s", db, line);
	free(line);
	free(db);
	json_decref(nv);
	json_decref(m);
	/* replayed again under the same rules: nothing left to change */
	snprintf(args, sizeof(args), "replay --rules %s", rdir);
	ck_assert_int_eq(run_cli(args, out, sizeof(out)), 0);
	ck_assert_msg(strstr(out, "0 changed, 1 unchanged"), "%s", out);
	packed_free(&p);
}
END_TEST

/* Every origin rule of the file made "context": nothing there is an origin any more. */
static void demote_all(char **text)
{
	const char *from = "role: origin", *to = "role: context";
	size_t n = 0, fl = strlen(from), tl = strlen(to);
	char *out, *o;

	for (char *s = *text; (s = strstr(s, from)); s += fl)
		n++;
	ck_assert_ptr_nonnull(out = malloc(strlen(*text) + n * (tl - fl) + 1));
	o = out;
	for (char *s = *text, *hit; *s; s = hit + fl) {
		if (!(hit = strstr(s, from))) {
			strcpy(o, s);
			o += strlen(s);
			break;
		}
		memcpy(o, s, (size_t)(hit - s));
		o += hit - s;
		memcpy(o, to, tl);
		o += tl;
	}
	*o = '\0';
	free(*text);
	*text = out;
}

/* Across fixtures and revisions: every changed conclusion is explained by the rules. */
START_TEST(replay_every_change_explained)
{
	static const char *const fx[] = {"gpu-xid79-node2-watchdog-node1", "res-gpu-oom-rank5",
					 "net-ib-votes-port-module-error", "nvl-xid74-nvlink",
					 "app-pyexc-rank6-nccl-cascade",   "host-mce-ume"};
	static const struct {
		const char *name, *file;
		void (*edit)(char **);
	} rev[] = {{"r-no-xid79", "gpu.yaml", no_xid79},
		   {"r-gpu-demoted", "gpu.yaml", demote_all},
		   {"r-net-demoted", "network.yaml", demote_all},
		   {"r-app-demoted", "application.yaml", demote_all}};
	struct packed p[sizeof(fx) / sizeof(fx[0])];
	size_t changed = 0;

	for (size_t i = 0; i < sizeof(fx) / sizeof(fx[0]); i++)
		pack(fx[i], NULL, &p[i]);
	for (size_t r = 0; r < sizeof(rev) / sizeof(rev[0]); r++) {
		char d[600], err[600];
		struct pm_ruleset *rs;
		revised_rules(rev[r].name, rev[r].file, rev[r].edit);
		snprintf(d, sizeof(d), "%s/%s", T, rev[r].name);
		ck_assert_msg((rs = pm_ruleset_load(d, err, sizeof(err))) != NULL, "%s", err);
		for (size_t i = 0; i < sizeof(fx) / sizeof(fx[0]); i++) {
			struct cli_inputs in;
			json_t *v = cli_job_rediagnose(p[i].dir, rs, 0, &in, err, sizeof(err)), *c;
			ck_assert_msg(v != NULL, "%s", err);
			c = cli_verdict_changes(p[i].verdict, v, rs);
			if (json_is_true(json_object_get(c, "changed"))) {
				changed++;
				ck_assert_msg(json_is_true(json_object_get(c, "explained")) &&
						      !strstr(pmu_str(c, "why", "-"),
							      "engine differs"),
					      "%s under %s: not explained: %s", fx[i], rev[r].name,
					      pmu_str(c, "why", "-"));
				ck_assert(
					json_array_size(json_object_get(json_object_get(c, "rules"),
									"disappeared")) +
						json_array_size(
							json_object_get(json_object_get(c, "rules"),
									"changed")) >
					0);
			}
			json_decref(c);
			json_decref(v);
			json_decref(in.notes);
		}
		pm_ruleset_destroy(rs);
	}
	ck_assert_uint_ge(changed, 4);
	for (size_t i = 0; i < sizeof(fx) / sizeof(fx[0]); i++)
		packed_free(&p[i]);
}
END_TEST

/* ---- uncertainty ---- */

static const char *const removal_fixtures[] = {
	"gpu-xid79-node2-watchdog-node1",
	"gpu-xid48-dbe-nvsmi",
	"nvl-xid74-nvlink",
	"net-ib-votes-port-module-error",
	"res-host-oom-cgroup",
	"app-pyexc-rank6-nccl-cascade",
	"comm-silent-rank-hang",
	"host-kernel-panic-node-fail",
	"slurm-timeout-progressing",
	"sto-lustre-evict-eio",
	"gpu-nvl-ambiguous-xid79-xid74",
	"amb-lustre-stall-vs-valueerror",
	"slurm-timeout-hang-40min",
	"ok-completed-scary-warnings",
};

/* Remove one evidence source (a node's bundle, one file of one, Slurm's record): the verdict
 * must not become more certain.  Every violation is listed before the test fails. */
START_TEST(remove_source_not_more_certain)
{
	const char **fx = (const char **)removal_fixtures;
	size_t nfx = sizeof(removal_fixtures) / sizeof(removal_fixtures[0]);
	char *all[256], *bad = NULL, a[300], b[300];
	size_t nbad = 0, tried = 0, blen = 0;
	FILE *report = open_memstream(&bad, &blen);

	if (getenv("PM_TEST_ALL_FIXTURES")) {
		DIR *d = opendir(FIXTURES);
		struct dirent *de;
		nfx = 0;
		while (d && (de = readdir(d)) && nfx < 256) {
			char p[600];
			struct stat st;
			snprintf(p, sizeof(p), "%s/%s/evidence", FIXTURES, de->d_name);
			if (de->d_name[0] != '.' && stat(p, &st) == 0)
				all[nfx++] = strdup(de->d_name);
		}
		closedir(d);
		fx = (const char **)all;
	}
	for (size_t i = 0; i < nfx; i++) {
		struct packed full, var;
		json_t *c;
		size_t k;
		int restart = 1;

		char p[600];
		struct stat st;
		snprintf(p, sizeof(p), "%s/%s/evidence", FIXTURES, fx[i]);
		if (stat(p, &st) < 0) {
			fprintf(stderr, "remove_source_not_more_certain: no fixture %s, skipped\n",
				fx[i]);
			continue;
		}
		pack(fx[i], NULL, &full);
		if (!full.verdict) {
			packed_free(&full);
			continue;
		}
		describe(full.verdict, a, sizeof(a));
		/* each node's bundle, each file, and Slurm's record, one at a time */
		json_t *cov = json_deep_copy(json_object_get(full.direct, "coverage"));
		json_t *nodes = json_deep_copy(json_object_get(full.manifest, "nodes"));
		for (int kind = 0; kind < 3; kind++) {
			json_t *list = kind == 0 ? json_object_get(nodes, "present") :
				       kind == 1 ? cov :
						   json_null();
			size_t n = kind == 2 ? 1 : json_array_size(list);
			for (k = 0; k < n; k++) {
				struct pack o = {.restart = restart++, .quick = true};
				c = json_array_get(list, k);
				if (kind == 0)
					o.skip_node = json_string_value(c);
				else if (kind == 1 && json_is_string(json_object_get(c, "file")) &&
					 !is_sacct(c))
					o.skip_file = pmu_str(c, "file", "-");
				else if (kind == 2)
					o.no_sacct = true;
				else
					continue;
				pack(fx[i], &o, &var);
				tried++;
				if (var.verdict &&
				    certainty(var.verdict) > certainty(full.verdict)) {
					describe(var.verdict, b, sizeof(b));
					fprintf(report, "\n  %s without %s%s%s: %s -> %s", fx[i],
						o.skip_node ? "node " : "",
						o.skip_node ? o.skip_node :
						o.skip_file ? o.skip_file :
							      "Slurm's record",
						"", a, b);
					nbad++;
				}
				packed_free(&var);
			}
		}
		json_decref(cov);
		json_decref(nodes);
		packed_free(&full);
	}
	fclose(report);
	if (fx == (const char **)all)
		for (size_t i = 0; i < nfx; i++)
			free(all[i]);
	ck_assert_uint_gt(tried, nfx);
	ck_assert_msg(nbad == 0, "%zu of %zu removals made the verdict MORE certain:%s", nbad,
		      tried, bad);
	free(bad);
}
END_TEST

/* One node's stream arrives after the observation cut-off (the merge): diagnosed as of the
 * cut-off, the verdict is more cautious and names the lagging stream. */
START_TEST(lagging_stream_more_cautious)
{
	struct packed full, lag;
	struct pack o = {.late_node = "gpu017", .restart = 1};
	struct cli_inputs in;
	char err[600], a[300], b[300];
	double cutoff;
	json_t *v, *x, *g;
	size_t i, k;
	bool named = false;

	pack("gpu-xid79-node2-watchdog-node1", NULL, &full);
	pack("gpu-xid79-node2-watchdog-node1", &o, &lag);
	ck_assert_int_eq(cli_time_parse(pmu_str(lag.manifest, "updated", "-"), &cutoff), 0);
	ck_assert_ptr_nonnull(
		v = cli_job_rediagnose(lag.dir, rules, cutoff, &in, err, sizeof(err)));
	ck_assert_int_eq(in.lagging, 1);
	describe(full.verdict, a, sizeof(a));
	describe(v, b, sizeof(b));
	ck_assert_msg(certainty(v) < certainty(full.verdict), "not more cautious: %s -> %s", a, b);
	json_array_foreach(json_object_get(v, "coverage"), i, g)
		json_array_foreach(json_object_get(g, "problems"), k, x)
			named = named || (!strcmp(pmu_str(x, "node", "-"), "gpu017") &&
					  !strcmp(pmu_str(x, "status", "-"), "lagging") &&
					  !strcmp(pmu_str(x, "source", "-"), "kernel_log") &&
					  strstr(pmu_str(x, "reason", "-"), "cut-off"));
	ck_assert_msg(named, "the lagging stream is not named: %s",
		      json_dumps(json_object_get(v, "coverage"), 0));
	/* the drill, as of the merge, says the same and names the stream */
	char args[300], out[65536];
	snprintf(args, sizeof(args), "drill %s --restart 1 --cutoff merge", lag.job);
	ck_assert_msg(run_cli(args, out, sizeof(out)) == 0, "%s", out);
	ck_assert_msg(strstr(out, "(1 bundle(s) lagging)"), "%s", out);
	ck_assert_msg(strstr(out, "gpu017 kernel_log: lagging: arrived "), "%s", out);
	/* without a cut-off the late bundle counts in full: what the timer's re-merge will say */
	json_decref(in.notes);
	json_decref(v);
	ck_assert_ptr_nonnull(v = cli_job_rediagnose(lag.dir, rules, 0, &in, err, sizeof(err)));
	ck_assert_int_eq(in.lagging, 0);
	ck_assert_int_eq(certainty(v), certainty(full.verdict));
	json_decref(in.notes);
	json_decref(v);
	packed_free(&full);
	packed_free(&lag);
}
END_TEST

/* gpu017's kernel log without its Xid 74 (the competing explanation). */
static char *no_xid74(const char *rel, const char *text, size_t *len)
{
	char *out = malloc(*len + 1), *o = out;

	if (strcmp(rel, "gpu017/kernel.log"))
		return (free(out), NULL);
	for (const char *s = text, *end = text + *len, *nl; s < end; s = nl + 1) {
		nl = memchr(s, '\n', (size_t)(end - s));
		if (!nl)
			nl = end;
		if (!memmem(s, (size_t)(nl - s), "): 74,", 6)) {
			memcpy(o, s, (size_t)(nl - s));
			o += nl - s;
			*o++ = '\n';
		}
	}
	*len = (size_t)(o - out);
	return out;
}

START_TEST(competing_explanation_ambiguous)
{
	struct packed one, two;
	struct pack o = {.filter = no_xid74, .restart = 1};
	json_t *x;
	size_t i;
	bool gpu = false, nvl = false;
	char *text;

	pack("gpu-nvl-ambiguous-xid79-xid74", &o, &one);
	ck_assert_str_eq(pmu_str(one.verdict, "status", "-"), "attributed");
	ck_assert_str_eq(pmu_str(json_object_get(one.verdict, "cause"), "class", "-"),
			 "gpu_hardware");
	pack("gpu-nvl-ambiguous-xid79-xid74", NULL, &two);
	ck_assert_str_eq(pmu_str(two.verdict, "status", "-"), "ambiguous");
	ck_assert_int_le(certainty(two.verdict), certainty(one.verdict) - 1);
	/* both named: the leading cause and the other candidate, and the ambiguity's words */
	gpu = !strcmp(pmu_str(json_object_get(two.verdict, "cause"), "class", "-"), "gpu_hardware");
	json_array_foreach(json_object_get(two.verdict, "candidates"), i, x)
		nvl = nvl || !strcmp(pmu_str(x, "class", "-"), "nvlink");
	ck_assert(gpu && nvl);
	x = json_object_get(two.verdict, "ambiguity");
	ck_assert_uint_ge(json_array_size(json_object_get(x, "explanations")), 2);
	ck_assert_ptr_nonnull(text = pm_verdict_text(two.verdict));
	ck_assert_msg(strstr(text, "gpu016") && strstr(text, "gpu017"), "%s", text);
	free(text);
	packed_free(&one);
	packed_free(&two);
}
END_TEST

/* ---- the verbs ---- */

START_TEST(drill_finds_damage)
{
	struct packed p;
	char args[600], out[65536], path[800];
	FILE *f;

	pack("gpu-xid79-node2-watchdog-node1", NULL, &p);
	snprintf(args, sizeof(args), "drill %s", p.job);
	ck_assert_msg(run_cli(args, out, sizeof(out)) == 0, "%s", out);
	ck_assert_msg(strstr(out, "missing inputs: none"), "%s", out);
	ck_assert_msg(strstr(out, "reconstructed verdict: postmortem: attributed "
				  "gpu_hardware/gpu_lost origin=gpu017"),
		      "%s", out);
	ck_assert_msg(strstr(out, "* E1"), "the timeline: %s", out);
	snprintf(args, sizeof(args), "drill %s --json", p.job);
	char *big = malloc(4u << 20);
	ck_assert_int_eq(run_cli(args, big, 4u << 20), 0);
	json_t *j = json_loads(big, 0, NULL);
	ck_assert_msg(json_is_true(json_object_get(j, "intact")), "%.2000s", big);
	json_decref(j);
	free(big);

	/* one byte of a bundle flipped: damaged, exit 1, and it says which */
	snprintf(path, sizeof(path), "%s/nodes/gpu016.tar.zst", p.dir);
	ck_assert_ptr_nonnull(f = fopen(path, "r+"));
	fseek(f, 40, SEEK_SET);
	fputc('X', f);
	fclose(f);
	snprintf(args, sizeof(args), "drill %s", p.job);
	ck_assert_int_eq(run_cli(args, out, sizeof(out)), 1);
	ck_assert_msg(strstr(out, "DAMAGED  bundle          nodes/gpu016.tar.zst: sha256 differs"),
		      "%s", out);
	/* a bundle gone: damaged, the node not explained */
	unlink(path);
	ck_assert_int_eq(run_cli(args, out, sizeof(out)), 1);
	ck_assert_msg(strstr(out, "nodes/gpu016.tar.zst: No such file"), "%s", out);
	packed_free(&p);

	/* a node that never reported: intact, its absence explained and listed as missing */
	struct pack o = {.skip_node = "gpu016", .restart = 1};
	pack("gpu-xid79-node2-watchdog-node1", &o, &p);
	snprintf(args, sizeof(args), "drill %s --restart 1", p.job);
	ck_assert_msg(run_cli(args, out, sizeof(out)) == 0, "%s", out);
	ck_assert_msg(strstr(out, "node gpu016: node never reported"), "%s", out);
	packed_free(&p);
	snprintf(args, sizeof(args), "drill 999999");
	ck_assert_int_eq(run_cli(args, out, sizeof(out)), 1);
	ck_assert_int_eq(run_cli("drill", out, sizeof(out)), 2);
}
END_TEST

/* Set a job run's expiry date. */
static void expires(const char *dir, const char *when)
{
	json_t *m = pmt_load(dir, "manifest.json");
	char *s;

	json_object_set_new(m, "expires", json_string(when));
	s = json_dumps(m, JSON_SORT_KEYS | JSON_INDENT(2));
	pmt_put(dir, "manifest.json", s, 0640);
	free(s);
	json_decref(m);
}

START_TEST(expire_removes_only_expired)
{
	struct packed old, young, bad, late;
	struct pack o1 = {.restart = 1}, o2 = {.restart = 2}, o3 = {.restart = 3};
	char args[600], out[65536], p[900];
	struct timeval tv[2] = {{1796000000 + 86400 * 40, 0}, {1796000000 + 86400 * 40, 0}};

	pack("gpu-xid79-node2-watchdog-node1", NULL, &old);
	pack("gpu-xid79-node2-watchdog-node1", &o1, &young);
	pack("gpu-xid79-node2-watchdog-node1", &o2, &bad);
	pack("gpu-xid79-node2-watchdog-node1", &o3, &late);
	expires(old.dir, "2026-12-10T00:00:00Z");
	expires(young.dir, "2027-01-10T00:00:00Z");
	expires(bad.dir, "someday");
	expires(late.dir, "2026-12-10T00:00:00Z");
	/* evidence that arrived after the run's expiry: kept for the finalizer */
	snprintf(p, sizeof(p), "%s/nodes/gpu016.tar.zst", late.dir);
	ck_assert_int_eq(utimes(p, tv), 0);
	/* every other file of the expired runs is older than their expiry */
	sh("find %s %s -exec touch -h -d 2026-12-01T00:00:00Z {} +", old.dir, late.dir);
	ck_assert_int_eq(utimes(p, tv), 0);

	snprintf(args, sizeof(args), "expire --dry-run --now 2026-12-20");
	ck_assert_int_eq(run_cli(args, out, sizeof(out)), 0);
	ck_assert_msg(strstr(out, "would remove") && strstr(out, "/lab/4242/0 (expired "
								 "2026-12-10T00:00:00Z"),
		      "%s", out);
	ck_assert(pmt_there(old.dir, "manifest.json"));

	snprintf(args, sizeof(args), "expire --now 2026-12-20 | cat");
	ck_assert_int_eq(run_cli(args, out, sizeof(out)), 0);
	ck_assert_msg(strstr(out, "removed ") && strstr(out, "/lab/4242/0 (expired"), "%s", out);
	ck_assert_msg(strstr(out, "kept ") && strstr(out, "'someday' cannot be read"), "%s", out);
	ck_assert_msg(strstr(out, "written after that date"), "%s", out);
	ck_assert_msg(!strstr(out, "\r"), "progress in a pipe: %s", out);
	ck_assert_msg(strstr(out, "4 job run(s) checked, 1 removed"), "%s", out);
	ck_assert(!pmt_there(old.dir, "."));
	ck_assert(pmt_there(young.dir, "manifest.json"));
	ck_assert(pmt_there(bad.dir, "manifest.json"));
	ck_assert(pmt_there(late.dir, "manifest.json"));
	/* nothing is ever removed before its date */
	snprintf(args, sizeof(args), "expire --now 2026-12-09");
	ck_assert_int_eq(run_cli(args, out, sizeof(out)), 0);
	ck_assert_msg(strstr(out, "0 removed"), "%s", out);
	ck_assert_int_eq(run_cli("expire --now tomorrowish", out, sizeof(out)), 2);
	packed_free(&old);
	packed_free(&young);
	packed_free(&bad);
	packed_free(&late);
}
END_TEST

START_TEST(ledger_verbs)
{
	struct packed p;
	char args[800], out[65536];
	json_t *j;

	pack("gpu-xid79-node2-watchdog-node1", NULL, &p);
	snprintf(args, sizeof(args), "ledger propose %s --action retry-exclude-node", p.job);
	ck_assert_msg(run_cli(args, out, sizeof(out)) == 0, "%s", out);
	ck_assert_msg(strstr(out, "ledger seq 1:"), "%s", out);
	snprintf(args, sizeof(args),
		 "ledger record %s --action retry-exclude-node --note 'by hand'", p.job);
	ck_assert_int_eq(run_cli(args, out, sizeof(out)), 0);
	snprintf(args, sizeof(args), "ledger record %s --action drain", p.job);
	ck_assert_int_eq(run_cli(args, out, sizeof(out)), 0);
	snprintf(args, sizeof(args), "ledger resolve %s --result confirmed", p.job);
	ck_assert_int_eq(run_cli(args, out, sizeof(out)), 0);
	snprintf(args, sizeof(args), "ledger record %s --action reboot-the-world", p.job);
	ck_assert_int_eq(run_cli(args, out, sizeof(out)), 1);
	snprintf(args, sizeof(args), "ledger resolve %s --result maybe", p.job);
	ck_assert_int_eq(run_cli(args, out, sizeof(out)), 2);

	/* the entries carry the verdict and evidence digests of the moment */
	ck_assert_int_eq(run_cli("ledger show --json", out, sizeof(out)), 0);
	ck_assert_ptr_nonnull(j = json_loads(out, 0, NULL));
	ck_assert_int_eq(json_array_size(j), 4);
	json_t *e = json_array_get(j, 1);
	char *vt = pmt_get(p.dir, "verdict.json"), sha[80];
	cli_sha256(vt, strlen(vt), sha);
	free(vt);
	ck_assert_str_eq(pmu_str(e, "verdict_digest", "-"), sha);
	ck_assert_str_eq(pmu_str(e, "evidence_digest", "-"),
			 pmu_str(p.verdict, "input_digest", "-"));
	ck_assert_str_eq(pmu_str(e, "kind", "-"), "done");
	ck_assert_str_eq(pmu_str(e, "note", "-"), "by hand");
	ck_assert_str_eq(pmu_str(json_array_get(j, 3), "result", "-"), "confirmed");
	ck_assert_str_eq(pmu_str(json_array_get(j, 3), "action", "-"), "drain");
	json_decref(j);

	ck_assert_int_eq(run_cli("ledger show --summary", out, sizeof(out)), 0);
	ck_assert_msg(strstr(out, "containment needed     1 of 1 job run(s)"), "%s", out);
	ck_assert_msg(strstr(out, "repair confirmed       1 of 1"), "%s", out);
	ck_assert_msg(strstr(out, "false interventions    0"), "%s", out);

	ck_assert_int_eq(run_cli("ledger verify", out, sizeof(out)), 0);
	ck_assert_msg(strstr(out, "4 entries, chain intact"), "%s", out);
	/* an entry edited in place: verify says which, and fails */
	sh("sed -i '2s/by hand/by magic/' %s/store/ledger.jsonl", T);
	ck_assert_int_eq(run_cli("ledger verify", out, sizeof(out)), 1);
	ck_assert_msg(strstr(out, "edited: (line 2)"), "%s", out);
	packed_free(&p);
}
END_TEST

/* The ledger and its head where the configuration's ledger: and ledger_head: keys say; the
 * options win over them; a relative path is refused with the file and line. */
START_TEST(ledger_config_paths)
{
	struct packed p;
	char args[1200], out[65536], conf[2048], d[512];

	pack("gpu-xid79-node2-watchdog-node1", NULL, &p);
	snprintf(d, sizeof(d), "%s/decisions", T);
	mkdirs(d);
	snprintf(conf, sizeof(conf),
		 "store: %s/store\nrules: %s/rules\nsacct: %s/bin/sacct\nsacctmgr: %s/bin/sacctmgr\n"
		 "ledger: %s/decisions/ops.jsonl\nledger_head: %s/decisions/ops.head\n",
		 T, PM_TEST_SRCDIR, T, T, T, T);
	pmt_put(T, "ledger.yaml", conf, 0644);
	snprintf(args, sizeof(args), "ledger propose %s --action retry --config %s/ledger.yaml",
		 p.job, T);
	ck_assert_msg(run_cli(args, out, sizeof(out)) == 0, "%s", out);
	ck_assert(pmt_there(d, "ops.jsonl"));
	ck_assert(pmt_there(d, "ops.head"));
	snprintf(d, sizeof(d), "%s/store", T);
	ck_assert(!pmt_there(d, "ledger.jsonl"));
	ck_assert(!pmt_there(d, "ledger.head"));
	snprintf(d, sizeof(d), "%s/decisions", T);
	snprintf(args, sizeof(args), "ledger verify --config %s/ledger.yaml", T);
	ck_assert_int_eq(run_cli(args, out, sizeof(out)), 0);
	ck_assert_msg(strstr(out, "/decisions/ops.jsonl: 1 entries, chain intact") &&
			      strstr(out, "head file: seq 1"),
		      "%s", out);
	/* --ledger and --head win over the keys */
	snprintf(args, sizeof(args),
		 "ledger record %s --action retry --config %s/ledger.yaml --ledger %s/other.jsonl "
		 "--head %s/other.head",
		 p.job, T, T, T);
	ck_assert_msg(run_cli(args, out, sizeof(out)) == 0, "%s", out);
	ck_assert(pmt_there(T, "other.jsonl"));
	ck_assert(pmt_there(T, "other.head"));
	snprintf(args, sizeof(args), "ledger show --config %s/ledger.yaml --json", T);
	ck_assert_int_eq(run_cli(args, out, sizeof(out)), 0);
	ck_assert_msg(strstr(out, "\"proposed\"") && !strstr(out, "\"done\""), "%s", out);
	/* a relative path is an error naming the file and line */
	pmt_put(T, "bad.yaml", "store: /tmp\nledger: decisions.jsonl\n", 0644);
	snprintf(args, sizeof(args), "ledger show --config %s/bad.yaml", T);
	ck_assert_int_eq(run_cli(args, out, sizeof(out)), 1);
	ck_assert_msg(strstr(out, "bad.yaml:2") && strstr(out, "not an absolute path"), "%s", out);
	packed_free(&p);
}
END_TEST

/* The timeline as data: time order, event and observation times, the skew tolerance, and
 * which events are too close to one on another node to be ordered. */
START_TEST(timeline_json_marks)
{
	json_t *v = json_pack(
		"{s:{s:s},s:{s:s},s:[{s:s,s:s,s:s,s:s},{s:s,s:s,s:s,s:s},{s:s,s:n,s:s,s:s},"
		"{s:s,s:s,s:s,s:s},{s:s,s:s,s:s,s:s}]}",
		"job", "id", "7", "ruleset", "digest", "sha256:x", "evidence",
		/* E1: n2 at :10.000, seen 2.5 s later */
		"id", "E1", "event_time", "2026-11-30T05:00:10.000Z", "observed_time",
		"2026-11-30T05:00:12.500Z", "node", "n2",
		/* E2: n1, 1.5 s after E1: within 2000 ms of an event on another node */
		"id", "E2", "event_time", "2026-11-30T05:00:11.500Z", "observed_time",
		"2026-11-30T05:00:12.000Z", "node", "n1",
		/* E3: undated: last */
		"id", "E3", "event_time", "observed_time", "2026-11-30T05:00:12.000Z", "node", "n1",
		/* E4: n1 again 0.1 s after E2: the latest earlier event on another node is E1,
		 * 1.6 s before */
		"id", "E4", "event_time", "2026-11-30T05:00:11.600Z", "observed_time",
		"2026-11-30T05:00:12.000Z", "node", "n1",
		/* E5: n2, 5 s later: ordered */
		"id", "E5", "event_time", "2026-11-30T05:00:16.600Z", "observed_time",
		"2026-11-30T05:00:17.000Z", "node", "n2");
	json_t *t = cli_timeline_json(v, 2000, true), *e;
	const char *order[] = {"E1", "E2", "E4", "E5", "E3"};

	ck_assert_ptr_nonnull(t);
	ck_assert_str_eq(pmu_str(t, "schema", "-"), "postmortem.timeline/1");
	ck_assert_int_eq(json_integer_value(json_object_get(t, "skew_tolerance_ms")), 2000);
	ck_assert(json_is_true(json_object_get(t, "skew_from_verdict_rules")));
	e = json_object_get(t, "events");
	ck_assert_int_eq(json_array_size(e), 5);
	for (size_t i = 0; i < 5; i++)
		ck_assert_str_eq(pmu_str(json_array_get(e, i), "id", "-"), order[i]);
	ck_assert(json_is_null(json_object_get(json_array_get(e, 0), "within_skew_of")));
	ck_assert_double_eq_tol(json_number_value(
					json_object_get(json_array_get(e, 0), "observed_after_s")),
				2.5, 1e-6);
	ck_assert_str_eq(pmu_str(json_array_get(e, 1), "within_skew_of", "-"), "E1");
	ck_assert_str_eq(pmu_str(json_array_get(e, 2), "within_skew_of", "-"), "E1");
	ck_assert(json_is_null(json_object_get(json_array_get(e, 3), "within_skew_of")));
	ck_assert(json_is_null(json_object_get(json_array_get(e, 4), "observed_after_s")));
	ck_assert(json_is_null(json_object_get(json_array_get(e, 4), "within_skew_of")));
	json_decref(t);
	/* a tolerance of 1 s orders E2 after E1; unknown tolerance: nothing marked */
	t = cli_timeline_json(v, 1000, false);
	ck_assert(json_is_null(json_object_get(json_array_get(json_object_get(t, "events"), 1),
					       "within_skew_of")));
	ck_assert(json_is_false(json_object_get(t, "skew_from_verdict_rules")));
	json_decref(t);
	t = cli_timeline_json(v, -1, false);
	ck_assert(json_is_null(json_object_get(t, "skew_tolerance_ms")));
	ck_assert(json_is_null(json_object_get(json_array_get(json_object_get(t, "events"), 1),
					       "within_skew_of")));
	json_decref(t);
	json_decref(v);
}
END_TEST

/* show --timeline on a stored run: the rules' skew tolerance and the observation times. */
START_TEST(show_timeline)
{
	struct packed p;
	char args[800], out[65536];
	json_t *j;

	pack("gpu-xid79-node2-watchdog-node1", NULL, &p);
	snprintf(args, sizeof(args), "show %s --timeline --json >%s/timeline.json", p.job, T);
	ck_assert_int_eq(run_cli(args, out, sizeof(out)), 0);
	snprintf(args, sizeof(args), "%s/timeline.json", T);
	ck_assert_ptr_nonnull(j = json_load_file(args, 0, NULL));
	ck_assert_int_eq(json_integer_value(json_object_get(j, "skew_tolerance_ms")), 2000);
	ck_assert(json_is_true(json_object_get(j, "skew_from_verdict_rules")));
	ck_assert_int_eq(json_array_size(json_object_get(j, "events")),
			 json_array_size(json_object_get(p.verdict, "evidence")));
	json_decref(j);
	snprintf(args, sizeof(args), "show %s --timeline", p.job);
	ck_assert_int_eq(run_cli(args, out, sizeof(out)), 0);
	ck_assert_msg(strstr(out, "skew tolerance 2000 ms (rule set bundled") &&
			      strstr(out, " seen "),
		      "%s", out);
	packed_free(&p);
}
END_TEST

/* replay over the store prints its progress only on a terminal: nothing into a pipe */
START_TEST(replay_quiet_in_pipes)
{
	struct packed a, b;
	struct pack o1 = {.restart = 1};
	char out[65536];

	pack("gpu-xid79-node2-watchdog-node1", NULL, &a);
	pack("gpu-xid79-node2-watchdog-node1", &o1, &b);
	ck_assert_int_eq(run_cli("replay --rules " PM_TEST_SRCDIR "/rules 2>&1 | cat", out,
				 sizeof(out)),
			 0);
	ck_assert_msg(strstr(out, "replayed 2 job run(s)") && strstr(out, "0 changed, 2 unchanged"),
		      "%s", out);
	ck_assert_msg(!strchr(out, '\r') && !strchr(out, '\033'), "progress in a pipe: %s", out);
	/* on a terminal (script(1) gives it a pty): drawn, and erased before the summary */
	if (system("command -v script >/dev/null 2>&1") == 0) {
		char cmd[1024], *at;
		FILE *f;
		size_t n;

		snprintf(cmd, sizeof(cmd),
			 "script -qec '%s/cli/postmortem replay --rules %s/rules' /dev/null "
			 "</dev/null",
			 PM_TEST_BUILDDIR, PM_TEST_SRCDIR);
		ck_assert_ptr_nonnull(f = popen(cmd, "r"));
		n = fread(out, 1, sizeof(out) - 1, f);
		out[n] = '\0';
		pclose(f);
		ck_assert_msg((at = strstr(out, "\r\033[Kreplay: 1 job run(s) looked at")),
			      "no progress on a terminal: %s", out);
		ck_assert_msg(strstr(at, "\r\033[K\r\nreplayed 2 job run(s)") ||
				      strstr(at, "\r\033[Kreplayed 2 job run(s)"),
			      "the progress line not erased before the summary: %s", out);
	}
	packed_free(&a);
	packed_free(&b);
}
END_TEST

START_TEST(report_self_contained)
{
	struct packed p;
	char args[800], out[65536], *html;

	pack("gpu-xid79-node2-watchdog-node1", NULL, &p);
	snprintf(args, sizeof(args), "report %s -o %s/r.html", p.job, T);
	ck_assert_msg(run_cli(args, out, sizeof(out)) == 0, "%s", out);
	ck_assert_ptr_nonnull(html = pmt_get(T, "r.html"));
	ck_assert_ptr_nonnull(strstr(html, "id=\"verdict-class\">gpu_hardware/gpu_lost<"));
	ck_assert_ptr_nonnull(strstr(html, "<svg id=\"swimlanes\""));
	ck_assert_ptr_nonnull(strstr(html, "data-node=\"gpu016\""));
	ck_assert_ptr_nonnull(strstr(html, "class=\"lane lane-origin\" data-node=\"gpu017\""));
	ck_assert_ptr_nonnull(strstr(html, "data-node=\"gpu017\" data-rank=\"11\""));
	ck_assert_ptr_null(strstr(html, "://"));
	ck_assert_ptr_null(strstr(html, "<script"));
	ck_assert_ptr_null(strstr(html, " src="));
	free(html);
	/* a verdict whose lines hold markup: escaped everywhere */
	json_t *v = json_deep_copy(p.verdict);
	json_object_set_new(json_array_get(json_object_get(v, "evidence"), 0), "line",
			    json_string("<script>alert(1)</script> & <img src=x onerror=y>"));
	json_object_set_new(json_object_get(v, "cause"), "summary",
			    json_string("</title><b>bold</b>"));
	char *s = pm_verdict_dump(v);
	pmt_put(T, "evil.json", s, 0644);
	free(s);
	json_decref(v);
	snprintf(args, sizeof(args), "report --verdict %s/evil.json -o %s/e.html", T, T);
	ck_assert_msg(run_cli(args, out, sizeof(out)) == 0, "%s", out);
	ck_assert_ptr_nonnull(html = pmt_get(T, "e.html"));
	ck_assert_ptr_null(strstr(html, "<script"));
	ck_assert_ptr_null(strstr(html, "<img"));
	ck_assert_ptr_null(strstr(html, "<b>bold"));
	ck_assert_ptr_nonnull(strstr(html, "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;img"));
	free(html);
	packed_free(&p);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("responder");
	TCase *m = tcase_create("store module"), *f = tcase_create("formats"),
	      *r = tcase_create("replay"), *u = tcase_create("uncertainty"),
	      *v = tcase_create("verbs");
	TCase *all[] = {m, f, r, u, v};

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		tcase_add_checked_fixture(all[i], setup, teardown);
		tcase_set_timeout(all[i], getenv("PM_TEST_ALL_FIXTURES") ? 3600 : 300);
		suite_add_tcase(s, all[i]);
	}
	tcase_add_test(m, time_parse);
	tcase_add_test(m, verdict_changes);
	tcase_add_test(m, ledger_tamper);
	tcase_add_test(f, bundle_formats);
	tcase_add_test(r, replay_revised_rules);
	tcase_add_test(r, replay_every_change_explained);
	tcase_add_test(u, remove_source_not_more_certain);
	tcase_add_test(u, lagging_stream_more_cautious);
	tcase_add_test(u, competing_explanation_ambiguous);
	tcase_add_test(v, drill_finds_damage);
	tcase_add_test(v, expire_removes_only_expired);
	tcase_add_test(v, ledger_verbs);
	tcase_add_test(v, report_self_contained);
	tcase_add_test(v, ledger_config_paths);
	tcase_add_test(m, timeline_json_marks);
	tcase_add_test(v, show_timeline);
	tcase_add_test(v, replay_quiet_in_pipes);
	return s;
}

int main(void)
{
	return pmt_run(suite());
}
