/*
 * check_responder_store.c - the responder suite's store module (times, verdict changes, the
 * ledger chain and its tampering) and every bundle format version kept in tests/data/bundles.
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

/* ---- the store module ---- */

START_TEST(time_parse)
{
	double t;
	char buf[40];

	ck_assert_int_eq(cli_time_parse("2026-11-30T03:11:58Z", &t), 0);
	pmu_iso(t, buf, sizeof(buf), "?");
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
	pm_sha256_buf(s, strlen(s), sha);
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

void responder_store_tests(TCase *m, TCase *f)
{
	tcase_add_test(m, time_parse);
	tcase_add_test(m, verdict_changes);
	tcase_add_test(m, ledger_tamper);
	tcase_add_test(f, bundle_formats);
}
