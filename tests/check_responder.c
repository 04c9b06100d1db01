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
 *
 * This file holds the fixture, the helpers and the packing the others share
 * (check_responder.h) and the suite; the store module and formats are tested in
 * check_responder_store.c, replay and uncertainty in check_responder_replay.c, the verbs in
 * check_responder_verbs.c.
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
#include "check_responder.h"

const char *prog = "postmortem"; /* cli/access.c prints with it */

char T[256]; /* the test's temporary folder */
struct pm_config cfg;
struct pm_ruleset *rules;

static const char FAKE_SACCT[] = "#!/bin/sh\n"
				 "D=$(dirname \"$0\")/..\n"
				 "job=; prev=\n"
				 "for a in \"$@\"; do [ \"$prev\" = -j ] && job=$a; prev=$a; done\n"
				 "case \" $* \" in\n"
				 "*' -o Comment '*) cat \"$D/db.Comment\" 2>/dev/null ;;\n"
				 "*' -o AdminComment '*) ;;\n"
				 /* the start of the record a comment goes to: the job's */
				 "*' -o Start '*) awk -F'|' -v j=\"$job\" 'NR == 1 { for (i = 1;"
				 " i <= NF; i++) if ($i == \"Start\") c = i; next } c && $1 == j"
				 " { print $c; exit }' \"$D/db.sacct.$job\" 2>/dev/null ;;\n"
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

void mkdirs(const char *p)
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

void sh(const char *fmt, ...)
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
int run_cli(const char *args, char *out, size_t outlen)
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

void setup(void)
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

void teardown(void)
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

void packed_free(struct packed *p)
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
		pm_sha256_buf(data, len, sha);
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

bool is_sacct(const json_t *c)
{
	return !strcmp(pmu_str(c, "source", "-"), "scheduler") &&
	       !json_is_string(json_object_get(c, "node")) &&
	       !strcmp(pmu_str(c, "file", "-"), "sacct.txt");
}

/* Pack FIXTURE into the store under O, finalize it the way the nodes' epilogs would. */
void pack_fixture(const char *fixture, const struct pack *o, struct packed *out)
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
	/* the job's nodes: Slurm's (a host list), then any other the evidence names */
	{
		const char *hl = json_string_value(
			json_object_get(json_object_get(out->direct, "job"), "nodes"));
		char **jn = NULL;
		size_t njn = 0;
		ck_assert_int_eq(pm_hostlist_expand(hl, hl ? strlen(hl) : 0, &jn, &njn), 0);
		for (size_t k = 0; k < njn; k++) {
			json_array_append_new(nodes, json_string(jn[k]));
			free(jn[k]);
		}
		free(jn);
	}
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
int certainty(const json_t *v)
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

void describe(const json_t *v, char *buf, size_t len)
{
	char cause[200];

	cli_verdict_cause(v, cause, sizeof(cause));
	snprintf(buf, len, "%s %s (%s)", pmu_str(v, "status", "-"), cause,
		 pmu_str(v, "confidence", "-"));
}

Suite *pmt_suite(void)
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
	responder_store_tests(m, f);
	responder_replay_tests(r, u);
	responder_verbs_tests(m, v);
	return s;
}
