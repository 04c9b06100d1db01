/*
 * check_collector_bundle.c - the collector suite's bundles: redaction before anything is
 * written, the bundle read back by the engine and refused once a byte is flipped, and the
 * per-file coverage of captures cut at their timeout.
 */

#include <archive.h>
#include <archive_entry.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <jansson.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/acl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "collector.h"
#include "finalize.h"
#include "finalize_int.h"
#include "postmortem.h"
#include "support.h"
#include "check_collector.h"

START_TEST(redaction_before_write)
{
	struct pm_config cfg;
	struct pm_job j;
	struct pm_collection c;
	char err[512], *text;
	void *buf;
	size_t len;
	const char *b = pmt_path(tmp, "n1.tar.zst");

	sample(&cfg, &j, &c);
	ck_assert_ptr_nonnull(memmem(cap_of(&c, PM_CS_GPU_STATE, NULL)->data,
				     cap_of(&c, PM_CS_GPU_STATE, NULL)->len, AWS_KEY,
				     strlen(AWS_KEY)));
	ck_assert_uint_ge(pm_collection_scrub(&c), 1);
	ck_assert_uint_ge(cap_of(&c, PM_CS_GPU_STATE, NULL)->redacted, 1);
	ck_assert_int_eq(pm_bundle_write(&c, &j, &buf, &len, err, sizeof(err)), 0);
	ck_assert_ptr_null(memmem(buf, len, AWS_KEY, strlen(AWS_KEY)));
	save(b, buf, len);
	text = member(b, "sources/gpu_state/nvidia-smi-q.txt", NULL, 0);
	ck_assert_ptr_nonnull(text);
	ck_assert_ptr_null(strstr(text, AWS_KEY));
	ck_assert_ptr_nonnull(strstr(text, "[REDACTED:"));
	ck_assert_ptr_nonnull(strstr(text, "GPU 0: ok"));
	free(text);
	free(buf);
	pm_collection_free(&c);
	pm_job_free(&j);
	pm_config_free(&cfg);
}
END_TEST

START_TEST(bundle_round_trip)
{
	struct pm_config cfg;
	struct pm_job j;
	struct pm_collection c;
	char err[512], first[256] = "";
	unsigned char *buf;
	size_t len;
	json_t *m, *files, *cov, *x;
	const char *b = pmt_path(tmp, "n1.tar.zst"), *bad = pmt_path(tmp, "flipped.tar.zst");
	char *text;
	size_t i;
	bool saw_kernel = false;

	sample(&cfg, &j, &c);
	pm_collection_scrub(&c);
	ck_assert_int_eq(pm_bundle_write(&c, &j, (void **)&buf, &len, err, sizeof(err)), 0);
	save(b, buf, len);
	ck_assert_msg(pm_bundle_verify(b, err, sizeof(err)) == 0, "%s", err);

	/* the manifest comes first and says what FORMATS.md says it says */
	text = member(b, "manifest.json", first, sizeof(first));
	ck_assert_str_eq(first, "manifest.json");
	m = json_loads(text, 0, NULL);
	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(json_string_value(json_object_get(m, "schema")), PM_BUNDLE_SCHEMA);
	ck_assert_str_eq(json_string_value(json_object_get(m, "cluster")), "lab");
	ck_assert_str_eq(json_string_value(json_object_get(m, "job")), "4242");
	ck_assert_str_eq(json_string_value(json_object_get(m, "node")), "n1");
	ck_assert_int_eq(json_integer_value(json_object_get(m, "restart")), 0);
	ck_assert(json_is_false(json_object_get(json_object_get(m, "collected"), "deadline_hit")));
	files = json_object_get(m, "files");
	ck_assert_uint_eq(json_array_size(files), 3);
	json_array_foreach(files, i, x)
	{
		const char *p = json_string_value(json_object_get(x, "path"));
		ck_assert(!strncmp(p, "sources/", 8));
		ck_assert_uint_eq(strlen(json_string_value(json_object_get(x, "sha256"))), 64);
		ck_assert(json_is_integer(json_object_get(x, "bytes")));
		ck_assert(json_is_string(json_object_get(x, "observed_time")));
		if (!strcmp(p, "sources/kernel_log/kernel.log")) {
			saw_kernel = true;
			ck_assert_str_eq(json_string_value(json_object_get(x, "source")),
					 "kernel_log");
			ck_assert_str_eq(json_string_value(json_object_get(x, "format")),
					 "kmsg_iso");
		}
	}
	ck_assert(saw_kernel);
	cov = json_object_get(m, "coverage");
	ck_assert_uint_eq(json_array_size(cov), PM_CS__COUNT);
	ck_assert_str_eq(json_string_value(
				 json_object_get(json_array_get(cov, PM_CS_GPU_CSV), "status")),
			 "missing");
	json_decref(m);
	free(text);

	/* one byte flipped: the engine refuses the whole bundle */
	buf[len / 2] ^= 0x20;
	save(bad, buf, len);
	ck_assert_int_eq(pm_bundle_verify(bad, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "not a valid evidence bundle"));
	free(buf);
	pm_collection_free(&c);
	pm_job_free(&j);
	pm_config_free(&cfg);
}
END_TEST

/* A verdict's coverage entry for the bundle member ending in NAME (postmortem.verdict/2 lists
 * only the inputs not read whole, among their source's problems). */
static json_t *file_cov(json_t *v, const char *name)
{
	size_t i, k, n = strlen(name);
	json_t *x, *g;

	json_array_foreach(json_object_get(v, "coverage"), k, g)
		json_array_foreach(json_object_get(g, "problems"), i, x)
	{
		const char *f = json_string_value(json_object_get(x, "file"));
		if (f && strlen(f) >= n && !strcmp(f + strlen(f) - n, name))
			return x;
	}
	return NULL;
}

/* How many inputs of SOURCE the verdict's coverage counts as read whole. */
static json_int_t ok_of(json_t *v, const char *source)
{
	size_t k;
	json_t *g;

	json_array_foreach(json_object_get(v, "coverage"), k,
			   g) if (!strcmp(json_string_value(json_object_get(g, "source")) ?: "",
					  source)) return json_integer_value(json_object_get(g,
											     "ok"));
	return 0;
}

/*
 * A file cut by its source's timeout, or capped, says so in the verdict's per-file
 * coverage (it said "ok": only the source's own entry was timed_out).
 */
START_TEST(timed_out_files)
{
	struct pm_config cfg;
	struct pm_job j;
	struct pm_collection c;
	struct pm_ruleset *rs;
	struct pm_evidence *ev;
	char err[512], rules[512], *big;
	const char *b = pmt_path(tmp, "n1.tar.zst"), *st, *why;
	void *buf;
	size_t len;
	json_t *v, *x;

	sample(&cfg, &j, &c);
	pm_collection_free(&c);
	/* nvidia-smi prints a line and hangs: its own timeout kills it */
	set_cmd(&cfg, PM_CS_GPU_STATE, "printf 'GPU 00000000:3B:00.0\\n'; sleep 100", 1);
	/* a host file over its cap */
	big = malloc(200000);
	for (size_t i = 0; i < 200000; i++)
		big[i] = i % 50 == 49 ? '\n' : 'x';
	big[199999] = 0;
	set_path(&cfg, PM_CS_HOST_STATE, write_file("big.txt", big, 0644));
	free(big);
	cfg.src[PM_CS_HOST_STATE].cap = 4096;
	ck_assert_int_eq(pm_collect(&cfg, &j, pm_mono() + 10, &c), 0);
	ck_assert_int_eq(c.cov[PM_CS_GPU_STATE].status, PM_ST_TIMED_OUT);
	ck_assert_int_eq(cap_of(&c, PM_CS_GPU_STATE, NULL)->status, PM_ST_TIMED_OUT);
	ck_assert_int_eq(cap_of(&c, PM_CS_HOST_STATE, NULL)->status, PM_ST_TRUNCATED);
	pm_collection_scrub(&c);
	ck_assert_int_eq(pm_bundle_write(&c, &j, &buf, &len, err, sizeof(err)), 0);
	save(b, buf, len);
	free(buf);

	snprintf(rules, sizeof(rules), "%s/rules", getenv("PM_SRCDIR") ? getenv("PM_SRCDIR") : ".");
	rs = pm_ruleset_load(rules, err, sizeof(err));
	ck_assert_msg(rs != NULL, "%s", err);
	ev = pm_evidence_create(rs);
	ck_assert_msg(pm_evidence_add_path(ev, b, err, sizeof(err)) == 0, "%s", err);
	v = pm_diagnose(ev, err, sizeof(err));
	ck_assert_msg(v != NULL, "%s", err);

	/* the hung command's partial output: cut, and why; still read */
	x = file_cov(v, "sources/gpu_state/nvidia-smi-q.txt");
	ck_assert_ptr_nonnull(x);
	st = json_string_value(json_object_get(x, "status"));
	why = json_string_value(json_object_get(x, "reason"));
	ck_assert_str_eq(st, "truncated");
	ck_assert_msg(strstr(why, "timed out: ") && strstr(why, "did not answer in 1 s"), "%s",
		      why);
	/* the capped file */
	x = file_cov(v, "_big.txt");
	ck_assert_ptr_nonnull(x);
	ck_assert_str_eq(json_string_value(json_object_get(x, "status")), "truncated");
	why = json_string_value(json_object_get(x, "reason"));
	ck_assert_msg(strstr(why, "kept the first"), "%s", why);
	/* a whole capture stays ok: counted, not listed */
	ck_assert_ptr_null(file_cov(v, "sources/kernel_log/kernel.log"));
	ck_assert_int_ge(ok_of(v, "kernel_log"), 1);
	json_decref(v);
	pm_evidence_destroy(ev);
	pm_ruleset_destroy(rs);
	pm_collection_free(&c);
	pm_job_free(&j);
	pm_config_free(&cfg);
}
END_TEST

void collector_bundle_tests(TCase *t)
{
	tcase_add_test(t, redaction_before_write);
	tcase_add_test(t, bundle_round_trip);
	tcase_add_test(t, timed_out_files);
}
