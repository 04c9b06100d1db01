/*
 * check_engine_bundle.c - the engine suite's bundles (read, rejected, read once, every
 * manifest form) and clock skew between nodes.
 */

#include <archive.h>
#include <archive_entry.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>
#include <xxhash.h>
#include <zlib.h>

#include "postmortem.h"
#include "evidence.h"
#include "fixture.h"
#include "taxonomy.h"
#include "support.h"
#include "check_engine.h"

/* ---- bundles ---- */

static char *manifest_for(const char *member, const char *data, long bytes)
{
	char hex[80], *m;

	pm_sha256_buf(data, strlen(data), hex);
	ck_assert_int_ge(
		asprintf(&m,
			 "{\"schema\":\"postmortem.bundle/1\",\"cluster\":\"lab\","
			 "\"job\":\"42\",\"restart\":0,\"node\":\"n2\",\"files\":[{\"path\":\"%s\","
			 "\"source\":\"kernel_log\",\"node\":\"n2\",\"bytes\":%ld,\"sha256\":\"%s\","
			 "\"status\":\"ok\"}],\"coverage\":[{\"source\":\"gpu_state\",\"status\":"
			 "\"timed_out\",\"reason\":\"nvidia-smi did not answer in 5 s\"}]}",
			 member, bytes, hex + 7),
		0);
	return m;
}

START_TEST(test_bundle_read_and_rejected)
{
	char err[256], p[400];
	const char *k = "[Mon Nov 30 03:11:58 2026] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, x\n";
	struct pm_ruleset *rs = load(NULL, err, sizeof(err));
	struct pm_evidence *ev;
	json_t *v;
	char *m = manifest_for("sources/kernel_log/kernel.log", k, (long)strlen(k));

	mkdir(strcat(strcpy(p, tmp), "/b"), 0755);
	snprintf(p, sizeof(p), "%s/b/n2.tar.zst", tmp);
	write_bundle(p, "sources/kernel_log/kernel.log", k, m, AE_IFREG);
	v = diagnose_dir(rs, "b");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(v, "cause"), "class")),
			 "gpu_hardware");
	ck_assert_str_eq(json_string_value(json_array_get(
				 json_object_get(json_object_get(v, "origin"), "nodes"), 0)),
			 "n2");
	/* the run the collector filed it under, without an accounting record */
	{
		json_t *job = json_object_get(v, "job");
		ck_assert_str_eq(json_string_value(json_object_get(job, "id")), "42");
		ck_assert_str_eq(json_string_value(json_object_get(job, "cluster")), "lab");
		ck_assert(json_is_integer(json_object_get(job, "restart")));
		ck_assert_int_eq(json_integer_value(json_object_get(job, "restart")), 0);
	}
	json_decref(v);
	free(m);

	/* a manifest that lies about the size */
	m = manifest_for("sources/kernel_log/kernel.log", k, 5);
	write_bundle(p, "sources/kernel_log/kernel.log", k, m, AE_IFREG);
	ev = pm_evidence_create(rs);
	ck_assert_int_eq(pm_evidence_add_path(ev, p, err, sizeof(err)), -1);
	ck_assert(strstr(err, "size differs") != NULL);
	pm_evidence_destroy(ev);
	free(m);

	/* escaping names and links */
	m = manifest_for("../../etc/passwd", k, (long)strlen(k));
	write_bundle(p, "../../etc/passwd", k, m, AE_IFREG);
	ev = pm_evidence_create(rs);
	ck_assert_int_eq(pm_evidence_add_path(ev, p, err, sizeof(err)), -1);
	ck_assert(strstr(err, "'..'") != NULL);
	pm_evidence_destroy(ev);
	write_bundle(p, "sources/link", "", m, AE_IFLNK);
	ev = pm_evidence_create(rs);
	ck_assert_int_eq(pm_evidence_add_path(ev, p, err, sizeof(err)), -1);
	ck_assert(strstr(err, "not a regular file") != NULL);
	pm_evidence_destroy(ev);
	free(m);

	/* a corrupt zstd frame */
	{
		FILE *f = fopen(p, "wb");
		fwrite("\x28\xb5\x2f\xfd garbage garbage", 1, 20, f);
		fclose(f);
	}
	ev = pm_evidence_create(rs);
	ck_assert_int_eq(pm_evidence_add_path(ev, p, err, sizeof(err)), -1);
	ck_assert(strstr(err, "not a valid evidence bundle") != NULL);
	pm_evidence_destroy(ev);
	pm_ruleset_destroy(rs);
}
END_TEST

/* The file's bytes, and their SHA-256 as "sha256:...". */
static char *file_bytes(const char *p, size_t *n, char hex[80])
{
	FILE *f = fopen(p, "rb");
	char *b = malloc(1 << 20);

	ck_assert_ptr_nonnull(f);
	*n = fread(b, 1, 1 << 20, f);
	fclose(f);
	pm_sha256_buf(b, *n, hex);
	return b;
}

static char *dump_of(struct pm_evidence *ev)
{
	char err[256], *t;
	json_t *v = pm_diagnose(ev, err, sizeof(err));

	ck_assert_msg(v != NULL, "%s", err);
	t = pm_verdict_dump(v);
	json_decref(v);
	return t;
}

/* The verdict's bytes for the evidence of the files A, B and C, added in that order. */
static char *dump_in_order(struct pm_ruleset *rs, const char *a, const char *b, const char *c)
{
	struct pm_evidence *ev = pm_evidence_create(rs);
	const char *paths[] = {a, b, c};
	char err[256], *t;

	for (size_t i = 0; i < 3; i++)
		ck_assert_msg(pm_evidence_add_path(ev, paths[i], err, sizeof(err)) == 0, "%s: %s",
			      paths[i], err);
	t = dump_of(ev);
	pm_evidence_destroy(ev);
	return t;
}

/* pm_evidence_add_bundle: one read gives the manifest and the file's digest; a rejected
 * bundle adds nothing, even when its first entries were good; the set's one zstd context
 * serves bundle after bundle, a corrupt one included. */
START_TEST(test_bundle_read_once)
{
	char err[256], good[400], half[400], cut[400], plain[400], sha[72], hex[80], *m, *hm;
	const char *k = "[Mon Nov 30 03:11:58 2026] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, x\n";
	struct pm_ruleset *rs = load(NULL, err, sizeof(err));
	struct pm_evidence *ev, *ref;
	json_t *man = NULL;
	uint64_t bytes = 0;
	size_t n;
	char *b, *d1, *d2;
	FILE *f;

	mkdir(strcat(strcpy(good, tmp), "/rb"), 0755);
	snprintf(good, sizeof(good), "%s/rb/n2.tar.zst", tmp);
	snprintf(half, sizeof(half), "%s/rb/half.tar.zst", tmp);
	snprintf(cut, sizeof(cut), "%s/rb/cut.tar.zst", tmp);
	snprintf(plain, sizeof(plain), "%s/rb/plain.tar.zst", tmp);
	m = manifest_for("sources/kernel_log/kernel.log", k, (long)strlen(k));
	write_bundle(good, "sources/kernel_log/kernel.log", k, m, AE_IFREG);
	/* the same good entry, then one for a member the bundle lacks */
	hm = strdup(m);
	{
		char *at = strstr(hm, "}],\"coverage\"");
		char *t;
		ck_assert_ptr_nonnull(at);
		*at = '\0';
		ck_assert_int_ge(
			asprintf(&t,
				 "%s},{\"path\":\"sources/app/gone.log\",\"source\":\"app_log\","
				 "\"bytes\":1,\"sha256\":\"00\"}],\"coverage\":[]}",
				 hm),
			0);
		free(hm);
		hm = t;
	}
	write_bundle(half, "sources/kernel_log/kernel.log", k, hm, AE_IFREG);
	plain_tar = true;
	write_bundle(plain, "sources/kernel_log/kernel.log", k, m, AE_IFREG);
	plain_tar = false;

	ev = pm_evidence_create(rs);
	ck_assert_int_eq(pm_evidence_add_bundle(ev, half, &man, sha, &bytes, err, sizeof(err)), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_msg(strstr(err, "lacks") != NULL, "%s", err);
	ck_assert_ptr_nonnull(man); /* parsed, though the bundle was refused */
	ck_assert_str_eq(json_string_value(json_object_get(man, "node")), "n2");
	json_decref(man);
	b = file_bytes(half, &n, hex);
	ck_assert_str_eq(sha, hex);
	ck_assert_uint_eq(bytes, n);
	free(b);

	/* a truncated copy: refused, and the context still serves the next bundle */
	b = file_bytes(good, &n, hex);
	f = fopen(cut, "wb");
	fwrite(b, 1, n / 2, f);
	fclose(f);
	free(b);
	ck_assert_int_eq(pm_evidence_add_bundle(ev, cut, NULL, NULL, NULL, err, sizeof(err)), -1);
	ck_assert(strstr(err, "not a valid evidence bundle") != NULL);

	ck_assert_int_eq(pm_evidence_add_bundle(ev, good, &man, sha, &bytes, err, sizeof(err)), 0);
	ck_assert_str_eq(sha, hex);
	ck_assert_uint_eq(bytes, n);
	ck_assert_str_eq(json_string_value(json_object_get(man, "schema")), "postmortem.bundle/1");
	json_decref(man);

	/* nothing of the refused bundles is in the verdict: the same as the good one alone */
	ref = pm_evidence_create(rs);
	ck_assert_int_eq(pm_evidence_add_path(ref, good, err, sizeof(err)), 0);
	d1 = dump_of(ev);
	d2 = dump_of(ref);
	ck_assert_str_eq(d1, d2);
	free(d1);
	free(d2);
	pm_evidence_destroy(ref);
	pm_evidence_destroy(ev);

	/* refused for a member after the manifest: the manifest is still handed back */
	write_bundle(cut, "sources/link", "", m, AE_IFLNK);
	ev = pm_evidence_create(rs);
	ck_assert_int_eq(pm_evidence_add_bundle(ev, cut, &man, sha, &bytes, err, sizeof(err)), -1);
	ck_assert(strstr(err, "not a regular file") != NULL);
	ck_assert_ptr_nonnull(man);
	ck_assert_str_eq(json_string_value(json_object_get(man, "node")), "n2");
	ck_assert_str_ne(sha, "");
	json_decref(man);
	pm_evidence_destroy(ev);

	/* a plain tar under the bundle's name is read as before */
	ev = pm_evidence_create(rs);
	ck_assert_int_eq(pm_evidence_add_bundle(ev, plain, NULL, NULL, NULL, err, sizeof(err)), 0);
	d1 = dump_of(ev);
	ck_assert(strstr(d1, "plain.tar.zst/sources/kernel_log/kernel.log") != NULL);
	free(d1);
	pm_evidence_destroy(ev);
	free(hm);
	free(m);
	pm_ruleset_destroy(rs);
}
END_TEST

/* The manifest is read by the engine's own JSON reader when it is plain, by jansson when it
 * is not (escapes, non-ASCII): the same bundle either way; malformed JSON is refused with
 * jansson's message. */
START_TEST(test_manifest_forms)
{
	char err[256], p[400], *m, *d;
	const char *k = "[Mon Nov 30 03:11:58 2026] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, x\n";
	const char *reasons[2] = {"nvidia-smi did not answer in 5 s",
				  "nvidia-smi said \\\"no\\\" \\u00e9t\\u00e9"};
	const char *decoded[2] = {"nvidia-smi did not answer in 5 s",
				  "nvidia-smi said \"no\" \u00e9t\u00e9"};
	struct pm_ruleset *rs = load(NULL, err, sizeof(err));
	struct pm_evidence *ev;
	char hex[80];

	pm_sha256_buf(k, strlen(k), hex);
	mkdir(strcat(strcpy(p, tmp), "/mf"), 0755);
	snprintf(p, sizeof(p), "%s/mf/n2.tar.zst", tmp);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_ge(
			asprintf(
				&m,
				" {\"schema\" : \"postmortem.bundle/1\", \"cluster\":\"lab\",\n"
				"\"job\":\"42\",\"restart\":0,\"node\":\"n2\",\"x\":[1.5e3,-2,true,false,"
				"null,{},[]],\"collected\":{\"deadline_hit\":false},\r\n\"files\":[{"
				"\"path\":\"sources/kernel_log/kernel.log\",\"source\":\"kernel_log\","
				"\"node\":\"n2\",\"bytes\":%zu,\"sha256\":\"%s\",\"status\":\"ok\"}],"
				"\"coverage\":[{\"source\":\"gpu_state\",\"status\":\"timed_out\","
				"\"reason\":\"%s\"}]%s}\t\n",
				strlen(k), hex + 7, reasons[i % 2], i == 2 ? "," : ""),
			0);
		write_bundle(p, "sources/kernel_log/kernel.log", k, m, AE_IFREG);
		free(m);
		ev = pm_evidence_create(rs);
		if (i == 2) { /* a trailing comma: not JSON */
			ck_assert_int_eq(pm_evidence_add_path(ev, p, err, sizeof(err)), -1);
			ck_assert_msg(strstr(err, "manifest.json line") != NULL, "%s", err);
			pm_evidence_destroy(ev);
			break;
		}
		ck_assert_int_eq(pm_evidence_add_path(ev, p, err, sizeof(err)), 0);
		d = dump_of(ev);
		ck_assert_msg(strstr(d, "gpu_hardware") != NULL, "%s", d);
		{
			json_t *v = json_loads(d, 0, NULL), *cv, *g;
			size_t j, gi;
			bool found = false;
			json_array_foreach(json_object_get(v, "coverage"), gi, g)
				json_array_foreach(json_object_get(g, "problems"), j, cv)
			{
				const char *r = json_string_value(json_object_get(cv, "reason"));
				if (r && !strcmp(r, decoded[i]))
					found = true;
			}
			ck_assert_msg(found, "no coverage reason '%s' in %s", decoded[i], d);
			json_decref(v);
		}
		free(d);
		pm_evidence_destroy(ev);
	}
	pm_ruleset_destroy(rs);
}
END_TEST

/*
 * The manifest as the collector writes it (keys sorted, plain strings) is read by the
 * reader's own reader, anything else through jansson's tree (bundle.c, struct mf): the same
 * verdict bytes either way, and what is not JSON or not the bundle's refused as before.
 */
START_TEST(test_manifest_fast_and_fallback)
{
	static const char k[] =
		"[Mon Nov 30 03:11:58 2026] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, x\n";
	/* %1$s: the member's path, %2$zu its size, %3$s its digest; then what differs */
	static const struct {
		const char *text;
		int fast;	 /* 1: read by the own reader; 0: by jansson */
		int same;	 /* 1: the verdict of the first; 0: refused */
		const char *why; /* the refusal's words */
	} v[] = {
		/* the collector's own form (json_dumps, JSON_INDENT(1) | JSON_SORT_KEYS) */
		{"{\n \"boot_time\": \"2026-11-30T02:16:40.000Z\",\n \"cluster\": \"lab\",\n"
		 " \"collected\": {\n  \"cut\": [],\n  \"deadline_hit\": false,\n  \"end\": "
		 "\"2026-11-30T03:12:41.020Z\",\n  \"start\": \"2026-11-30T03:12:40.551Z\"\n },\n"
		 " \"coverage\": [\n  {\n   \"cut\": false,\n   \"elapsed_s\": 0.01,\n   \"reason\": "
		 "\"nvidia-smi did not answer in 5 s\",\n   \"source\": \"gpu_state\",\n   "
		 "\"status\": \"timed_out\"\n  }\n ],\n \"files\": [\n  {\n   \"bytes\": %2$zu,\n   "
		 "\"format\": \"kernel_log\",\n   \"node\": \"n2\",\n   \"observed_time\": "
		 "\"2026-11-30T03:12:40.551Z\",\n   \"origin\": null,\n   \"path\": \"%1$s\",\n   "
		 "\"rank\": null,\n   \"reason\": \"\",\n   \"redacted\": 0,\n   \"sha256\": "
		 "\"%3$s\",\n   \"source\": \"kernel_log\",\n   \"status\": \"ok\"\n  }\n ],\n "
		 "\"job\": \"42\",\n \"node\": \"n2\",\n \"restart\": 0,\n \"scans\": [],\n "
		 "\"schema\": \"postmortem.bundle/1\",\n \"uid\": 1000\n}\n",
		 1, 1, NULL},
		/* the same, compact: whitespace is no doubt */
		{"{\"boot_time\":\"2026-11-30T02:16:40.000Z\",\"cluster\":\"lab\",\"collected\":{"
		 "\"end\":\"2026-11-30T03:12:41.020Z\",\"start\":\"2026-11-30T03:12:40.551Z\"},"
		 "\"coverage\":[{\"reason\":\"nvidia-smi did not answer in 5 s\",\"source\":"
		 "\"gpu_state\",\"status\":\"timed_out\"}],\"files\":[{\"bytes\":%2$zu,\"node\":"
		 "\"n2\",\"observed_time\":\"2026-11-30T03:12:40.551Z\",\"path\":\"%1$s\",\"rank\":"
		 "null,\"sha256\":\"%3$s\",\"source\":\"kernel_log\",\"status\":\"ok\"}],\"job\":"
		 "\"42\",\"node\":\"n2\",\"restart\":0,\"schema\":\"postmortem.bundle/1\"}",
		 1, 1, NULL},
		/* keys in another order: jansson */
		{"{\"schema\":\"postmortem.bundle/1\",\"boot_time\":\"2026-11-30T02:16:40.000Z\","
		 "\"cluster\":\"lab\",\"collected\":{\"start\":\"2026-11-30T03:12:40.551Z\","
		 "\"end\":\"2026-11-30T03:12:41.020Z\"},\"coverage\":[{\"reason\":\"nvidia-smi did "
		 "not answer in 5 s\",\"source\":\"gpu_state\",\"status\":\"timed_out\"}],\"files\":"
		 "[{\"bytes\":%2$zu,\"node\":\"n2\",\"observed_time\":\"2026-11-30T03:12:40.551Z\","
		 "\"path\":\"%1$s\",\"rank\":null,\"sha256\":\"%3$s\",\"source\":\"kernel_log\","
		 "\"status\":\"ok\"}],\"job\":\"42\",\"node\":\"n2\",\"restart\":0}",
		 0, 1, NULL},
		/* jansson: a key twice (it keeps the last); an escaped string and a rank that is
		 * no integer (none, as null); a 19-digit integer, a three-digit exponent,
		 * non-ASCII text and deep nesting where nothing is read */
		{"{\"boot_time\":\"2026-11-30T02:16:40.000Z\",\"cluster\":\"x\",\"cluster\":\"lab\","
		 "\"collected\":{\"end\":\"2026-11-30T03:12:41.020Z\",\"start\":"
		 "\"2026-11-30T03:12:40.551Z\"},\"coverage\":[{\"reason\":\"nvidia-smi did not "
		 "answer in 5 s\",\"source\":\"gpu_state\",\"status\":\"timed_out\"}],\"files\":[{"
		 "\"bytes\":%2$zu,\"node\":\"n2\",\"observed_time\":\"2026-11-30T03:12:40.551Z\","
		 "\"path\":\"%1$s\",\"rank\":null,\"sha256\":\"%3$s\",\"source\":\"kernel_log\","
		 "\"status\":\"ok\"}],\"job\":\"42\",\"node\":\"n2\",\"restart\":0,\"schema\":"
		 "\"postmortem.bundle/1\"}",
		 0, 1, NULL},
		{"{\"boot_time\":\"2026-11-30T02:16:40.000Z\",\"cluster\":\"lab\",\"collected\":{"
		 "\"end\":\"2026-11-30T03:12:41.020Z\",\"start\":\"2026-11-30T03:12:40.551Z\"},"
		 "\"coverage\":[{\"reason\":\"nvidia-smi did not answer in 5 s\",\"source\":"
		 "\"gpu_state\",\"status\":\"timed_out\"}],\"files\":[{\"bytes\":%2$zu,\"node\":"
		 "\"n2\",\"observed_time\":\"2026-11-30T03:12:40.551Z\",\"path\":\"sources\\/"
		 "kernel_log/kernel.log\",\"rank\":\"0\",\"sha256\":\"%3$s\",\"source\":"
		 "\"kernel_log\",\"status\":\"ok\"}],\"job\":\"42\",\"node\":\"n2\",\"restart\":0,"
		 "\"schema\":\"postmortem.bundle/1\"}",
		 0, 1, NULL},
		{"{\"a\":1234567890123456789,\"boot_time\":\"2026-11-30T02:16:40.000Z\",\"cluster\":"
		 "\"lab\",\"collected\":{\"end\":\"2026-11-30T03:12:41.020Z\",\"start\":"
		 "\"2026-11-30T03:12:40.551Z\"},\"coverage\":[{\"reason\":\"nvidia-smi did not "
		 "answer in 5 s\",\"source\":\"gpu_state\",\"status\":\"timed_out\"}],\"files\":[{"
		 "\"bytes\":%2$zu,\"node\":\"n2\",\"observed_time\":\"2026-11-30T03:12:40.551Z\","
		 "\"path\":\"%1$s\",\"rank\":null,\"sha256\":\"%3$s\",\"source\":\"kernel_log\","
		 "\"status\":\"ok\",\"z\":1.5e100}],\"job\":\"42\",\"node\":\"n2\",\"restart\":0,"
		 "\"schema\":\"postmortem.bundle/1\",\"x\":\"\xc3\xa9t\xc3\xa9\",\"y\":"
		 "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}",
		 0, 1, NULL},
		/* refused as before, with jansson's words: a trailing comma; a size that is a
		 * real; no list of files */
		{"{\"files\":[{\"bytes\":%2$zu,\"path\":\"%1$s\",\"sha256\":\"%3$s\",\"source\":"
		 "\"kernel_log\"},],\"schema\":\"postmortem.bundle/1\"}",
		 0, 0, "manifest.json line"},
		{"{\"files\":[{\"bytes\":%2$zu.0,\"path\":\"%1$s\",\"sha256\":\"%3$s\",\"source\":"
		 "\"kernel_log\"}],\"schema\":\"postmortem.bundle/1\"}",
		 0, 0, "size differs"},
		{"{\"files\":{\"bytes\":%2$zu,\"path\":\"%1$s\",\"sha256\":\"%3$s\",\"source\":"
		 "\"kernel_log\"},\"schema\":\"postmortem.bundle/1\"}",
		 0, 0, "no 'files' list"},
	};
	const char *member = "sources/kernel_log/kernel.log";
	char err[256], p[400], hex[80], *first = NULL;
	struct pm_ruleset *rs = load(NULL, err, sizeof(err));

	ck_assert_ptr_nonnull(rs);
	pm_sha256_buf(k, strlen(k), hex);
	mkdir(strcat(strcpy(p, tmp), "/mff"), 0755);
	snprintf(p, sizeof(p), "%s/mff/n2.tar.zst", tmp);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct pm_evidence *ev = pm_evidence_create(rs);
		char *m, *d;

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		ck_assert_int_ge(asprintf(&m, v[i].text, member, strlen(k), hex + 7), 0);
#pragma GCC diagnostic pop
		ck_assert_msg(pm_bundle_manifest_fast(m, strlen(m)) == (v[i].fast == 1),
			      "manifest %zu: %s", i, m);
		write_bundle(p, member, k, m, AE_IFREG);
		free(m);
		if (!v[i].same) {
			ck_assert_int_eq(pm_evidence_add_path(ev, p, err, sizeof(err)), -1);
			ck_assert_msg(strstr(err, v[i].why) != NULL, "manifest %zu: %s", i, err);
			pm_evidence_destroy(ev);
			continue;
		}
		ck_assert_msg(pm_evidence_add_path(ev, p, err, sizeof(err)) == 0, "%zu: %s", i,
			      err);
		d = dump_of(ev);
		ck_assert_msg(strstr(d, "gpu_hardware") != NULL, "%s", d);
		if (!first)
			first = d;
		else {
			ck_assert_msg(!strcmp(first, d), "manifest %zu: another verdict\n%s\n%s", i,
				      first, d);
			free(d);
		}
		pm_evidence_destroy(ev);
	}
	free(first);
	pm_ruleset_destroy(rs);
}
END_TEST

/* The verdict on a bundle of n1 whose job output OUT comes after a job output of FILLER
 * bytes (none: OUT alone). */
static json_t *bundle_with(struct pm_ruleset *rs, const char *rel, const char *out, size_t filler)
{
	char hex[2][80], files[2][400] = {"", ""}, p[400], err[256], *m;
	char *pad = malloc(filler + 2);
	struct pm_evidence *ev;
	const char *names[2] = {"sources/app_log/slurm-41.out", "sources/app_log/slurm-42.out"};
	const char *data[2] = {pad, out};
	struct pmt_member mem[2];
	size_t k = filler ? 0 : 1;
	json_t *v;

	for (size_t i = 0; i < filler; i++)
		pad[i] = i % 64 == 63 ? '\n' : 'a' + (char)(i % 26);
	pad[filler] = '\n';
	pad[filler + 1] = 0;
	for (size_t i = k; i < 2; i++)
		pm_sha256_buf(data[i], strlen(data[i]), hex[i]);
	for (size_t i = k; i < 2; i++)
		snprintf(files[i], sizeof(files[i]),
			 "{\"path\":\"%s\",\"source\":\"app_log\",\"node\":\"n1\",\"bytes\":%zu,"
			 "\"sha256\":\"%s\",\"status\":\"ok\"}%s",
			 names[i], strlen(data[i]), hex[i] + 7, i ? "" : ",");
	ck_assert_int_ge(asprintf(&m,
				  "{\"schema\":\"postmortem.bundle/1\",\"cluster\":\"lab\",\"job\":"
				  "\"42\",\"restart\":0,\"node\":\"n1\",\"files\":[%s%s]}",
				  files[0], files[1]),
			 0);
	snprintf(p, sizeof(p), "%s/%s", tmp, rel);
	mkdir(p, 0755);
	for (size_t i = k; i < 2; i++)
		mem[i] = (struct pmt_member){names[i], data[i], strlen(data[i])};
	pmt_bundle(p, "n1", m, mem + k, 2 - k, 0);
	strcat(p, "/nodes/n1.tar.zst");
	ev = pm_evidence_create(rs);
	ck_assert_msg(pm_evidence_add_path(ev, p, err, sizeof(err)) == 0, "%s", err);
	v = pm_diagnose(ev, err, sizeof(err));
	ck_assert_msg(v != NULL, "%s", err);
	pm_evidence_destroy(ev);
	free(m);
	free(pad);
	return v;
}

/* A line of a collected file that happens to be as wide as the file's widest is the program's
 * own line, not a piece a terminal's width cut off: the collector copied the bytes the program
 * wrote.  So a member's lines are read as they are, wherever it lies in its bundle (the
 * members of the first MiB are told as the bundle is read, the others when the scan reaches
 * them); the same text gathered by hand is read as a terminal's copy, its 100-column line
 * joined to the next. */
START_TEST(test_bundle_member_not_a_paste)
{
	char err[256];
	const char *out = "epoch 3 step 1200 loss 2.3137 lr 0.0003 grad-norm 0.912 tokens/s 41250 "
			  "mem 61.2GiB eta 00:41:10 done\n"
			  "ValueError: shapes (4,8) and (9,) not aligned\n";
	struct pm_ruleset *rs = load(NULL, err, sizeof(err));
	json_t *v;

	ck_assert_uint_eq(strchr(out, '\n') - out, 100);
	for (int far = 0; far < 2; far++) {
		v = bundle_with(rs, far ? "far" : "near", out, far ? 3u << 19 : 0);
		ck_assert_str_eq(vstr(v, "cause", "class"), "application");
		ck_assert_str_eq(vstr(v, "cause", "subclass"), "python_exception");
		json_decref(v);
	}

	/* the control: by hand, the two lines are one broken line, which starts with no error */
	pmt_mk(tmp, "hand/slurm-42.out", out);
	v = diagnose_dir(rs, "hand");
	ck_assert_str_eq(vstr(v, NULL, "status"), "unknown");
	ck_assert_ptr_null(vstr(v, "cause", "subclass"));
	json_decref(v);
	pm_ruleset_destroy(rs);
}
END_TEST

/* ---- clock skew between nodes ---- */

START_TEST(test_clock_skew_ahead)
{
	char err[256], p1[400], p2[400], p3[400], *d1, *d2;
	struct pm_ruleset *rs = load(NULL, err, sizeof(err));
	json_t *v;

	/* n2 8 s ahead: its Xid (03:11:59.5 on the controller's clock) is stamped 03:12:07.5,
	 * and its collector, started a second after the end, says 03:12:09 */
	skew_job("sk");
	skew_bundle("sk", "n1", KLOG_N1, "2026-11-30T03:12:00.400Z");
	skew_bundle("sk", "n2",
		    "2026-11-30T03:12:07,500000+00:00 NVRM: Xid (PCI:0000:3b:00): 79, pid=9, x\n",
		    "2026-11-30T03:12:09.000Z");
	v = diagnose_dir(rs, "sk");
	ck_assert_str_eq(vstr(v, NULL, "status"), "attributed");
	ck_assert_str_eq(vstr(v, "cause", "class"), "gpu_hardware");
	ck_assert_int_eq(json_array_size(json_object_get(json_object_get(v, "origin"), "nodes")),
			 1);
	ck_assert_str_eq(json_string_value(json_array_get(
				 json_object_get(json_object_get(v, "origin"), "nodes"), 0)),
			 "n2");
	ck_assert_msg(why_has(v, "skew", "n2") && why_has(v, "n2", "9.0 s"),
		      "no word of n2's clock skew: %s", json_dumps(json_object_get(v, "why"), 0));
	ck_assert(!why_has(v, "skew on n1", NULL)); /* 0.4 s: within the tolerance */
	/* kept only through the skew: not more than supported */
	ck_assert_str_eq(vstr(v, NULL, "confidence"), "supported");
	json_decref(v);

	/* same evidence, same bytes, whichever bundle comes first */
	snprintf(p1, sizeof(p1), "%s/sk/n1.tar.zst", tmp);
	snprintf(p2, sizeof(p2), "%s/sk/n2.tar.zst", tmp);
	snprintf(p3, sizeof(p3), "%s/sk/sacct.txt", tmp);
	d1 = dump_in_order(rs, p1, p2, p3);
	d2 = dump_in_order(rs, p3, p2, p1);
	ck_assert_str_eq(d1, d2);
	ck_assert(strstr(d1, "Clock skew on n2") != NULL);
	free(d1);
	free(d2);

	/* the control: no clock is off (n2's collector began 0.6 s after the end), and an Xid
	 * stamped 30 s after the end is not the job's */
	skew_job("ok");
	skew_bundle("ok", "n1", KLOG_N1, "2026-11-30T03:12:00.400Z");
	skew_bundle("ok", "n2",
		    "2026-11-30T03:12:30,000000+00:00 NVRM: Xid (PCI:0000:3b:00): 79, pid=9, x\n",
		    "2026-11-30T03:12:00.600Z");
	v = diagnose_dir(rs, "ok");
	ck_assert_str_ne(vstr(v, "cause", "class"), "gpu_hardware");
	ck_assert(!why_has(v, "skew", NULL));
	json_decref(v);

	/* nor does a skewed clock let in an event beyond what its skew explains: n2 up to 9 s
	 * ahead, its Xid stamped 30 s after the end */
	skew_job("far");
	skew_bundle("far", "n1", KLOG_N1, "2026-11-30T03:12:00.400Z");
	skew_bundle("far", "n2",
		    "2026-11-30T03:12:30,000000+00:00 NVRM: Xid (PCI:0000:3b:00): 79, pid=9, x\n",
		    "2026-11-30T03:12:09.000Z");
	v = diagnose_dir(rs, "far");
	ck_assert_str_ne(vstr(v, "cause", "class"), "gpu_hardware");
	ck_assert(why_has(v, "Clock skew on n2", NULL));
	json_decref(v);
	pm_ruleset_destroy(rs);
}
END_TEST

/* A site five hours west of UTC: the record's zone-less times are its local time, the nodes'
 * kernel logs stamp their lines with -05:00 and the collectors' starts are UTC.  The record is
 * read in the zone the nodes' stamps carry (scan.c, record_in_local_zone): no clock skew of
 * five hours, n2's Xid in the job is the job's, and one five hours before it is not. */
START_TEST(test_clock_zone_not_skew)
{
	char err[256];
	struct pm_ruleset *rs = load(NULL, err, sizeof(err));
	json_t *v;

	skew_job("tz");
	skew_bundle("tz", "n1",
		    "2026-11-30T03:10:00,000100-05:00 mlx5_core 0000:3d:00.0: Link up\n",
		    "2026-11-30T08:12:00.400Z");
	skew_bundle("tz", "n2",
		    "2026-11-30T03:11:59,500000-05:00 NVRM: Xid (PCI:0000:3b:00): 79, pid=9, x\n",
		    "2026-11-30T08:12:00.600Z");
	v = diagnose_dir(rs, "tz");
	ck_assert_msg(!why_has(v, "skew", NULL), "a zone taken for a clock skew: %s",
		      json_dumps(json_object_get(v, "why"), 0));
	ck_assert_str_eq(vstr(v, "cause", "class"), "gpu_hardware");
	ck_assert_str_eq(json_string_value(json_array_get(
				 json_object_get(json_object_get(v, "origin"), "nodes"), 0)),
			 "n2");
	json_decref(v);

	/* an earlier job's Xid, at the record's wall-clock time but in UTC (03:11:59.5Z is
	 * 22:11:59.5 local the day before): not the job's */
	skew_job("tz2");
	skew_bundle("tz2", "n1",
		    "2026-11-30T03:10:00,000100-05:00 mlx5_core 0000:3d:00.0: Link up\n",
		    "2026-11-30T08:12:00.400Z");
	skew_bundle("tz2", "n2",
		    "2026-11-29T22:11:59,500000-05:00 NVRM: Xid (PCI:0000:3b:00): 79, pid=9, x\n",
		    "2026-11-30T08:12:00.600Z");
	v = diagnose_dir(rs, "tz2");
	ck_assert_str_ne(vstr(v, "cause", "class"), "gpu_hardware");
	ck_assert(!why_has(v, "skew", NULL));
	json_decref(v);
	pm_ruleset_destroy(rs);
}
END_TEST

/* Two hardware events of different classes on two nodes, 6 s apart by their clocks: beyond
 * the 2 s tolerance, the earlier one leads; when one node's clock may be 9 s ahead, their
 * order is not known and the verdict says it cannot choose. */
START_TEST(test_clock_skew_ordering)
{
	char err[256], *rules;
	struct pm_ruleset *rs;
	json_t *v;

	ck_assert_int_ge(
		asprintf(&rules,
			 "%s"
			 "  - id: xid-74\n"
			 "    class: nvlink\n"
			 "    subclass: nvlink\n"
			 "    role: origin\n"
			 "    strength: strong\n"
			 "    sources: [kernel_log]\n"
			 "    pattern: 'NVRM: Xid \\((?:PCI:)?(?<pci>[0-9a-f:]+)\\): (?<xid>74),'\n"
			 "    summary: 'NVLink error on GPU {pci}'\n",
			 RULES),
		0);
	rs = load(rules, err, sizeof(err));
	ck_assert_msg(rs != NULL, "%s", err);
	for (int skewed = 0; skewed < 2; skewed++) {
		const char *dir = skewed ? "ord1" : "ord0";
		skew_job(dir);
		skew_bundle(
			dir, "n1",
			"2026-11-30T03:11:50,000000+00:00 NVRM: Xid (PCI:0000:3b:00): 74, pid=9, x\n",
			"2026-11-30T03:12:00.400Z");
		skew_bundle(
			dir, "n2",
			"2026-11-30T03:11:56,000000+00:00 NVRM: Xid (PCI:0000:3b:00): 79, pid=9, x\n",
			skewed ? "2026-11-30T03:12:09.000Z" : "2026-11-30T03:12:00.500Z");
		v = diagnose_dir(rs, dir);
		if (!skewed) {
			ck_assert_str_eq(vstr(v, NULL, "status"), "attributed");
			ck_assert_str_eq(vstr(v, "cause", "class"), "nvlink");
			ck_assert(!why_has(v, "skew", NULL));
		} else {
			ck_assert_str_eq(vstr(v, NULL, "status"), "ambiguous");
			ck_assert_str_eq(vstr(v, NULL, "confidence"), "hypothesis");
			ck_assert_msg(why_has(v, "widened to 11.0 s", NULL) &&
					      why_has(v, "Clock skew on n2", NULL),
				      "%s", json_dumps(json_object_get(v, "why"), 0));
		}
		json_decref(v);
	}
	free(rules);
	pm_ruleset_destroy(rs);
}
END_TEST

/* ---- a snapshot's date against the job's end and the collector's run ---- */

/* Job 78 in DIR: one task on n1, out of GPU memory, ended 03:12:00 by the controller's clock. */
static void oom_job(const char *dir)
{
	char rel[300];

	snprintf(rel, sizeof(rel), "%s/sacct.txt", dir);
	pmt_mk(tmp, rel,
	       "JobID|JobIDRaw|State|ExitCode|Start|End|NodeList|NNodes|NTasks\n"
	       "78|78|FAILED|1:0|2026-11-30T03:11:00|2026-11-30T03:12:00|n1|1|\n"
	       "78.0|78.0|FAILED|1:0|2026-11-30T03:11:00|2026-11-30T03:12:00|n1|1|1\n");
	snprintf(rel, sizeof(rel), "%s/slurm-78.out", dir);
	pmt_mk(tmp, rel,
	       "0: RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 44.39 GiB "
	       "total capacity; 9.84 GiB already allocated; 1.12 GiB free)\n"
	       "srun: error: n1: task 0: Exited with exit code 1\n");
}

/* nvidia-smi -q of n1's one GPU, stamped STAMP, listing pid 4242 on it. */
static char *held_snapshot(const char *stamp)
{
	char *s;

	ck_assert_int_ge(asprintf(&s,
				  "\n==============NVSMI LOG==============\n\n"
				  "Timestamp                                 : %s\n"
				  "Driver Version                            : 550.90.07\n"
				  "CUDA Version                              : 12.4\n\n"
				  "Attached GPUs                             : 1\n"
				  "GPU 00000000:3B:00.0\n"
				  "    Product Name                          : NVIDIA L40S\n"
				  "    Minor Number                          : 0\n"
				  "    PCI\n"
				  "        Bus Id                            : 00000000:3B:00.0\n"
				  "    Processes\n"
				  "        GPU instance ID                   : N/A\n"
				  "        Compute instance ID               : N/A\n"
				  "        Process ID                        : 4242\n"
				  "            Type                          : C\n"
				  "            Name                          : python3\n"
				  "            Used GPU Memory               : 33000 MiB\n",
				  stamp),
			 0);
	return s;
}

/* n1's bundle in DIR holding the snapshot SNAP, its collector's run CSTART to CEND. */
static void held_bundle(const char *dir, const char *snap, const char *cstart, const char *cend)
{
	char hex[80], p[400], *m;

	pm_sha256_buf(snap, strlen(snap), hex);
	ck_assert_int_ge(
		asprintf(&m,
			 "{\"schema\":\"postmortem.bundle/1\",\"cluster\":\"lab\",\"job\":\"78\","
			 "\"restart\":0,\"node\":\"n1\",\"collected\":{\"start\":\"%s\","
			 "\"end\":\"%s\",\"deadline_hit\":false},\"files\":[{\"path\":"
			 "\"sources/gpu_state/nvidia-smi-q.txt\",\"source\":\"gpu_state\",\"node\":"
			 "\"n1\",\"bytes\":%zu,\"sha256\":\"%s\",\"status\":\"ok\"}],\"coverage\":[]}",
			 cstart, cend, strlen(snap), hex + 7),
		0);
	snprintf(p, sizeof(p), "%s/%s", tmp, dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/%s/n1.tar.zst", tmp, dir);
	write_bundle(p, "sources/gpu_state/nvidia-smi-q.txt", snap, m, AE_IFREG);
	free(m);
}

/*
 * A GPU out of memory beside n1's nvidia-smi listing a process on it reads as a GPU held from
 * outside the job only from a snapshot of the job's: where a bundle gives the collector's run,
 * the collector's own (a member of the bundle; one beside it must be dated within that
 * run), else one dated within AFTER_END_S (120 s) of the job's end
 * (att_cands.c, snapshot_of_job).  A snapshot dated later lists what ran on the node later.
 */
START_TEST(test_held_snapshot_dated_for_job)
{
	const char *rules =
		"rules:\n"
		"  - id: t-oom\n"
		"    class: resource_limit\n"
		"    subclass: gpu_oom\n"
		"    role: origin\n"
		"    strength: strong\n"
		"    sources: [app_log]\n"
		"    pattern: 'RuntimeError: CUDA out of memory'\n"
		"    summary: 'rank {rank} on {node} ran out of GPU memory'\n"
		"  - id: t-held\n"
		"    class: resource_limit\n"
		"    subclass: gpu_held\n"
		"    role: confirmation\n"
		"    strength: medium\n"
		"    sources: [gpu_state]\n"
		"    refines: [resource_limit/gpu_oom]\n"
		"    condition: 'gpu.compute_processes > 0'\n"
		"    summary: 'nvidia-smi on {node} lists a process holding GPU {gpu}'\n"
		"  - id: t-task\n"
		"    class: communication_unattributed\n"
		"    subclass: remote_error\n"
		"    role: teardown\n"
		"    strength: weak\n"
		"    sources: [app_log]\n"
		"    pattern: 'srun: error: (?<node>[^:\\s]+): task (?<rank>[0-9]+): "
		"Exited with exit code (?<code>[0-9]+)'\n"
		"    summary: 'srun saw task {rank} on {node} end'\n";
	const struct {
		const char *dir, *bundled, *beside, *sub, *why;
	} cases[] = {
		/* the collector's own snapshot, 1 s after the end */
		{"h0", "Mon Nov 30 03:12:01 2026", NULL, "gpu_held", NULL},
		/* a hand-gathered one 60 s after the end, beside n1's bundle whose collector
		 * ran 1-2 s after it: not the collector's */
		{"h1", "Mon Nov 30 03:12:01 2026", "Mon Nov 30 03:13:00 2026", "gpu_oom",
		 "outside the run of the node's collector"},
		/* the same with no bundle: within 120 s of the end */
		{"h2", NULL, "Mon Nov 30 03:13:00 2026", "gpu_held", NULL},
		/* five minutes after the end, no bundle */
		{"h3", NULL, "Mon Nov 30 03:17:00 2026", "gpu_oom", "past the job's epilog"},
		/* the collector's own, its Timestamp the local time of a node five hours east
		 * of UTC: a bundle's member is the collector's, whatever its stamp */
		{"h4", "Mon Nov 30 08:12:01 2026", NULL, "gpu_held", NULL},
	};
	char err[256];
	struct pm_ruleset *rs = load(rules, err, sizeof(err));

	ck_assert_msg(rs != NULL, "%s", err);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *v;

		oom_job(cases[i].dir);
		if (cases[i].bundled) {
			/* in h1 the bundle's snapshot lists no process: pid 4242 only beside */
			char *s = held_snapshot(cases[i].bundled);
			if (cases[i].beside)
				*strstr(s, "    Processes\n") = '\0';
			held_bundle(cases[i].dir, s, "2026-11-30T03:12:01.000Z",
				    "2026-11-30T03:12:02.000Z");
			free(s);
		}
		if (cases[i].beside) {
			char rel[300], *s = held_snapshot(cases[i].beside);
			snprintf(rel, sizeof(rel), "%s/n1_nvidia-smi-q.txt", cases[i].dir);
			pmt_mk(tmp, rel, s);
			free(s);
		}
		v = diagnose_dir(rs, cases[i].dir);
		ck_assert_msg(!strcmp(vstr(v, "cause", "subclass"), cases[i].sub),
			      "case %zu: %s, why %s", i, vstr(v, "cause", "subclass"),
			      json_dumps(json_object_get(v, "why"), 0));
		if (cases[i].why)
			ck_assert_msg(why_has(v, cases[i].why, NULL), "case %zu: %s", i,
				      json_dumps(json_object_get(v, "why"), 0));
		json_decref(v);
	}
	pm_ruleset_destroy(rs);
}
END_TEST

void engine_bundle_tests(TCase *t)
{
	tcase_add_test(t, test_bundle_read_and_rejected);
	tcase_add_test(t, test_bundle_read_once);
	tcase_add_test(t, test_manifest_forms);
	tcase_add_test(t, test_manifest_fast_and_fallback);
	tcase_add_test(t, test_bundle_member_not_a_paste);
	tcase_add_test(t, test_clock_skew_ahead);
	tcase_add_test(t, test_clock_skew_ordering);
	tcase_add_test(t, test_clock_zone_not_skew);
	tcase_add_test(t, test_held_snapshot_dated_for_job);
}
