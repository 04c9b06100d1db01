/*
 * check_responder_verbs.c - the responder suite's verbs through the built command: drill,
 * expire, ledger (and its configured paths), show --timeline and its JSON marks, replay in
 * pipes, and report.
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

/* ---- the verbs ---- */

START_TEST(drill_finds_damage)
{
	struct packed p;
	char args[600], out[65536], path[800];
	FILE *f;

	pack_fixture("gpu-xid79-node2-watchdog-node1", NULL, &p);
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
	pack_fixture("gpu-xid79-node2-watchdog-node1", &o, &p);
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

	pack_fixture("gpu-xid79-node2-watchdog-node1", NULL, &old);
	pack_fixture("gpu-xid79-node2-watchdog-node1", &o1, &young);
	pack_fixture("gpu-xid79-node2-watchdog-node1", &o2, &bad);
	pack_fixture("gpu-xid79-node2-watchdog-node1", &o3, &late);
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

	pack_fixture("gpu-xid79-node2-watchdog-node1", NULL, &p);
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
	pm_sha256_buf(vt, strlen(vt), sha);
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

	pack_fixture("gpu-xid79-node2-watchdog-node1", NULL, &p);
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

	pack_fixture("gpu-xid79-node2-watchdog-node1", NULL, &p);
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

	pack_fixture("gpu-xid79-node2-watchdog-node1", NULL, &a);
	pack_fixture("gpu-xid79-node2-watchdog-node1", &o1, &b);
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
	char args[800], out[65536], path[900], *html;
	struct stat st;

	pack_fixture("gpu-xid79-node2-watchdog-node1", NULL, &p);
	snprintf(args, sizeof(args), "report %s -o %s/r.html", p.job, T);
	/* the page quotes the evidence: 0600 as fetch's copies, even under a umask of 000 */
	mode_t um = umask(0);
	int rc = run_cli(args, out, sizeof(out));
	umask(um);
	ck_assert_msg(rc == 0, "%s", out);
	snprintf(path, sizeof(path), "%s/r.html", T);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_msg((st.st_mode & 07777) == 0600, "report -o wrote mode %o",
		      (unsigned)(st.st_mode & 07777));
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

void responder_verbs_tests(TCase *m, TCase *v)
{
	tcase_add_test(v, drill_finds_damage);
	tcase_add_test(v, expire_removes_only_expired);
	tcase_add_test(v, ledger_verbs);
	tcase_add_test(v, report_self_contained);
	tcase_add_test(v, ledger_config_paths);
	tcase_add_test(m, timeline_json_marks);
	tcase_add_test(v, show_timeline);
	tcase_add_test(v, replay_quiet_in_pipes);
}
