/*
 * check_collector_carry.c - the collector suite's carried scans (engine/carry.c): the job's
 * output scanned by the collector and bundled beside it gives the merge the same verdict,
 * byte for byte, as the merge's own scan, with one thread or two; a record whose key does not
 * hold (another observation time), a damaged one and one whose weak node names the merge does
 * not know are not taken, and one whose scan met a weak name the job's nodes lack is not
 * written.
 */

#include <check.h>
#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zstd.h>

#include "collector.h"
#include "postmortem.h"
#include "support.h"
#include "check_collector.h"

/* A job output with an error, a traceback, srun's words, progress lines and a bootstrap
 * address: what a scan keeps, counts, places and maps. */
static const char job_output[] =
	"[2026-11-30 03:10:01] step 100 | loss 2.314 | 410 samples/s\n"
	"[2026-11-30 03:10:31] step 110 | loss 2.287 | 409 samples/s\n"
	"n1:2211:2211 [0] NCCL INFO Bootstrap : Using ib0:10.20.0.11<0>\n"
	"n2: [rank1]: Traceback (most recent call last):\n"
	"n2: [rank1]:   File \"train.py\", line 88, in <module>\n"
	"n2: [rank1]:     loss.backward()\n"
	"n2: [rank1]: RuntimeError: CUDA error: an illegal memory access was encountered\n"
	"srun: error: n2: task 1: Exited with exit code 1\n"
	"srun: Job step aborted: Waiting up to 32 seconds for job step to finish.\n";

static struct pm_capture *add_output(struct pm_collection *c, const char *text)
{
	struct pm_capture *cap;

	c->caps = realloc(c->caps, (c->ncaps + 1) * sizeof(*c->caps));
	ck_assert_ptr_nonnull(c->caps);
	cap = &c->caps[c->ncaps++];
	memset(cap, 0, sizeof(*cap));
	cap->src = PM_CS_JOB_OUTPUT;
	cap->kind = "app_log";
	cap->name = strdup("slurm-4242.out");
	cap->origin = strdup("/home/u/slurm-4242.out");
	cap->data = strdup(text);
	cap->len = strlen(text);
	cap->rank = -1;
	cap->observed = 1796094700.25;
	cap->status = PM_ST_OK;
	return cap;
}

static const char *rules_dir(void)
{
	static char d[512];

	snprintf(d, sizeof(d), "%s/rules", getenv("PM_SRCDIR") ? getenv("PM_SRCDIR") : ".");
	return d;
}

/* The bundle of C for J written to tmp/DIR/n1.tar.zst; its path. */
static const char *bundle_in(const char *dir, const struct pm_collection *c, const struct pm_job *j)
{
	char err[512], d[300];
	void *buf;
	size_t len;
	const char *p;

	snprintf(d, sizeof(d), "%s/%s", tmp, dir);
	mkdir(d, 0755);
	ck_assert_int_eq(pm_bundle_write(c, j, &buf, &len, err, sizeof(err)), 0);
	snprintf(d, sizeof(d), "%s/n1.tar.zst", dir);
	p = pmt_path(tmp, d);
	save(p, buf, len);
	free(buf);
	return p;
}

/* Slurm's record of the job: its nodes known to the merge, as the finalizer's sacct gives. */
static const char record[] =
	"JobID|JobIDRaw|State|ExitCode|Start|End|NodeList|NNodes|NTasks|Cluster\n"
	"4242|4242|FAILED|1:0|2026-11-30T03:00:00|2026-11-30T03:11:00|n[1-2]|2|2|lab\n";

/* The verdict of bundle PATH (with Slurm's record when WITH_RECORD) with THREADS threads, as
 * text; *CARRIED gets how many files' scans were taken from the bundle, and *TASKS (when not
 * NULL) how many of its task files were taken from their records (not parsed). */
static char *verdict_of2(const char *path, bool with_record, unsigned threads, size_t *carried,
			 size_t *tasks)
{
	char err[512], *text;
	struct pm_ruleset *rs = pm_ruleset_load(rules_dir(), err, sizeof(err));
	struct pm_evidence *ev;
	json_t *v;

	ck_assert_msg(rs != NULL, "%s", err);
	ev = pm_evidence_create(rs);
	pm_evidence_set_threads(ev, threads);
	ck_assert_msg(pm_evidence_add_path(ev, path, err, sizeof(err)) == 0, "%s", err);
	if (with_record)
		ck_assert_int_eq(pm_evidence_add_buffer(ev, "sacct.txt", record, strlen(record),
							NULL, NULL, 1796094700),
				 0);
	v = pm_diagnose(ev, err, sizeof(err));
	ck_assert_msg(v != NULL, "%s", err);
	*carried = pm_evidence_carried(ev);
	if (tasks)
		*tasks = pm_evidence_tasks_carried(ev);
	text = json_dumps(v, JSON_SORT_KEYS | JSON_INDENT(1));
	json_decref(v);
	pm_evidence_destroy(ev);
	pm_ruleset_destroy(rs);
	return text;
}

static char *verdict_of(const char *path, bool with_record, unsigned threads, size_t *carried)
{
	return verdict_of2(path, with_record, threads, carried, NULL);
}

START_TEST(carried_scan_same_verdict)
{
	struct pm_config cfg;
	struct pm_job j;
	struct pm_collection c;
	struct pm_capture *cap;
	char note[300], *plain, *with;
	const char *a, *b;
	size_t n;

	sample(&cfg, &j, &c);
	add_output(&c, job_output);
	pm_collection_scrub(&c);
	pm_collection_carry(&c, &j, rules_dir(), pm_mono() + 30, note, sizeof(note));
	ck_assert_str_eq(note, "job output scanned for the merge: 1 of 1");
	cap = &c.caps[c.ncaps - 1];
	ck_assert_ptr_nonnull(cap->carry);
	a = strdup(bundle_in("with", &c, &j));
	free(cap->carry);
	cap->carry = NULL;
	b = strdup(bundle_in("without", &c, &j));

	plain = verdict_of(b, true, 1, &n);
	ck_assert_uint_eq(n, 0);
	/* the verdict names the job output's error, on the node its prefix names */
	ck_assert_ptr_nonnull(strstr(plain, "illegal memory access"));
	ck_assert_ptr_nonnull(strstr(plain, "\"n2\""));
	for (unsigned t = 1; t <= 2; t++) {
		with = verdict_of(a, true, t, &n);
		ck_assert_uint_eq(n, 1);
		ck_assert_str_eq(with, plain);
		free(with);
	}
	free(plain);

	/* without the record the merge does not know n2, which the collector took the prefix
	 * "n2: " for: the record is not taken, and the verdict is the plain scan's */
	plain = verdict_of(b, false, 2, &n);
	with = verdict_of(a, false, 2, &n);
	ck_assert_uint_eq(n, 0);
	ck_assert_str_eq(with, plain);
	free(with);
	free(plain);
	free((void *)a);
	free((void *)b);
	pm_collection_free(&c);
	pm_job_free(&j);
	pm_config_free(&cfg);
}
END_TEST

START_TEST(carried_scan_not_taken)
{
	struct pm_config cfg;
	struct pm_job j;
	struct pm_collection c;
	struct pm_capture *cap;
	char note[300], *v;
	size_t n;

	sample(&cfg, &j, &c);
	cap = add_output(&c, job_output);
	pm_collection_scrub(&c);
	pm_collection_carry(&c, &j, rules_dir(), pm_mono() + 30, note, sizeof(note));
	cap = &c.caps[c.ncaps - 1];
	ck_assert_ptr_nonnull(cap->carry);

	/* the capture's observation time is part of the key: another one, not taken */
	cap->observed += 1;
	v = verdict_of(bundle_in("moved", &c, &j), true, 2, &n);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_nonnull(strstr(v, "illegal memory access"));
	free(v);
	cap->observed -= 1;

	/* a record cut short (its manifest entry says so, checksum and all): not taken */
	cap->carrylen -= 5;
	v = verdict_of(bundle_in("cut", &c, &j), true, 2, &n);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_nonnull(strstr(v, "illegal memory access"));
	free(v);
	cap->carrylen += 5;
	v = verdict_of(bundle_in("whole", &c, &j), true, 2, &n);
	ck_assert_uint_eq(n, 1);
	free(v);

	/* no time left: nothing scanned, nothing carried */
	free(cap->carry);
	cap->carry = NULL;
	pm_collection_carry(&c, &j, rules_dir(), pm_mono() - 1, note, sizeof(note));
	ck_assert_ptr_null(cap->carry);
	ck_assert_str_eq(note, "job output scanned for the merge: 0 of 1: no time left");

	/* a rule set that does not load: said, nothing carried */
	pm_collection_carry(&c, &j, "/nonexistent/rules", pm_mono() + 30, note, sizeof(note));
	ck_assert_ptr_null(cap->carry);
	ck_assert_msg(!strncmp(note, "job output not scanned: ", 24), "%s", note);
	pm_collection_free(&c);
	pm_job_free(&j);
	pm_config_free(&cfg);
}
END_TEST

/* The verdicts of the bundle of C for J with and without the collector's record (the record
 * taken TAKEN times), with Slurm's record when WITH_RECORD, with one thread and with two: the
 * same bytes.  NAME names the bundles' folders. */
static void same_both_ways(struct pm_collection *c, const struct pm_job *j, const char *name,
			   bool with_record, size_t taken)
{
	struct pm_capture *cap = &c->caps[c->ncaps - 1];
	char d[64], *plain, *with;
	const char *a, *b;
	void *keep = cap->carry;
	size_t n;

	ck_assert_ptr_nonnull(keep);
	snprintf(d, sizeof(d), "%s-with", name);
	a = strdup(bundle_in(d, c, j));
	cap->carry = NULL;
	snprintf(d, sizeof(d), "%s-without", name);
	b = strdup(bundle_in(d, c, j));
	cap->carry = keep;
	for (unsigned t = 1; t <= 2; t++) {
		plain = verdict_of(b, with_record, t, &n);
		ck_assert_uint_eq(n, 0);
		with = verdict_of(a, with_record, t, &n);
		ck_assert_uint_eq(n, taken);
		ck_assert_str_eq(with, plain);
		free(with);
		free(plain);
	}
	free((void *)a);
	free((void *)b);
}

/* A weak node name (a shell's "host: " prefix) outside the job's nodes as its collector knows
 * them: the record lists it as not known, and the merge takes the record only where the name
 * is not a node by the file's turn either (PyTorch's "[c10d]" reads as one). */
START_TEST(carried_scan_weak_name_unknown)
{
	struct pm_config cfg;
	struct pm_job j;
	struct pm_collection c;
	char note[300], *v;
	size_t n;

	sample(&cfg, &j, &c);
	free(j.nodelist);
	j.nodelist = strdup("n1");
	add_output(&c, job_output);
	pm_collection_scrub(&c);
	pm_collection_carry(&c, &j, rules_dir(), pm_mono() + 30, note, sizeof(note));
	ck_assert_str_eq(note, "job output scanned for the merge: 1 of 1");
	/* the merge does not know n2 either: taken, and the same as its own scan */
	same_both_ways(&c, &j, "weak-unknown", false, 1);
	/* Slurm's record names n2: not taken, scanned, and the prefix places the error there */
	same_both_ways(&c, &j, "weak-known", true, 0);
	v = verdict_of(bundle_in("weak-known-placed", &c, &j), true, 2, &n);
	ck_assert_ptr_nonnull(strstr(v, "\"n2\""));
	free(v);
	pm_collection_free(&c);
	pm_job_free(&j);
	pm_config_free(&cfg);
}
END_TEST

/* A name the output itself makes a node (NCCL's "host:pid:tid" prefix) before a line's weak
 * "host: " prefix looks it up: a scan in order takes the prefix as the node, and so does the
 * collector's, which did not know the name from the job's nodes. */
START_TEST(carried_scan_weak_name_named_earlier)
{
	static const char text[] =
		"n2:3301:3301 [1] NCCL INFO Bootstrap : Using ib0:10.20.0.12<0>\n"
		"n2: Traceback (most recent call last):\n"
		"n2:   File \"train.py\", line 88, in <module>\n"
		"n2: RuntimeError: CUDA error: an illegal memory access was encountered\n";
	struct pm_config cfg;
	struct pm_job j;
	struct pm_collection c;
	char note[300], *v;
	size_t n;

	sample(&cfg, &j, &c);
	free(j.nodelist);
	j.nodelist = strdup("n1");
	add_output(&c, text);
	pm_collection_scrub(&c);
	pm_collection_carry(&c, &j, rules_dir(), pm_mono() + 30, note, sizeof(note));
	ck_assert_str_eq(note, "job output scanned for the merge: 1 of 1");
	same_both_ways(&c, &j, "named-earlier", false, 1);
	v = verdict_of(bundle_in("named-earlier-placed", &c, &j), false, 2, &n);
	/* the prefix placed the error on n2 */
	ck_assert_ptr_nonnull(strstr(v, "a CUDA kernel of a rank on n2 faulted"));
	free(v);
	pm_collection_free(&c);
	pm_job_free(&j);
	pm_config_free(&cfg);
}
END_TEST

static bool stop_now(void)
{
	return true;
}

/* The collector's scan gives up at its deadline or when told to stop (a SIGTERM), whatever the
 * output: the epilog must not outlive its deadline for a record (it fails open). */
START_TEST(carried_scan_deadline)
{
	static const char *const nodes[] = {"n1", "n2"};
	char err[512];
	struct pm_ruleset *rs = pm_ruleset_load(rules_dir(), err, sizeof(err));
	struct pm_carry_input in = {.path = "sources/job_output/slurm-4242.out",
				    .data = job_output,
				    .len = strlen(job_output),
				    .node = "n1",
				    .rank = -1,
				    .status = "ok",
				    .reason = "",
				    .nodes = nodes,
				    .nnodes = 2};
	void *out = (void *)1;
	size_t len = 1;

	ck_assert_msg(rs != NULL, "%s", err);
	in.deadline = pm_mono() - 1;
	errno = 0;
	ck_assert_int_eq(pm_scan_carry(rs, &in, &out, &len), -1);
	ck_assert_int_eq(errno, ETIMEDOUT);
	ck_assert_ptr_null(out);
	in.deadline = 0;
	in.stop = stop_now;
	ck_assert_int_eq(pm_scan_carry(rs, &in, &out, &len), -1);
	ck_assert_int_eq(errno, ETIMEDOUT);
	ck_assert_ptr_null(out);
	in.stop = NULL;
	in.deadline = pm_mono() + 30;
	ck_assert_int_eq(pm_scan_carry(rs, &in, &out, &len), 0);
	ck_assert_ptr_nonnull(out);
	free(out);
	pm_ruleset_destroy(rs);
}
END_TEST

/* torchrun's workers under srun's label ("1: [default2]:...") give the evidence what no record
 * carries (the agents' local ranks, the workers a node): such an output is not carried, and the
 * merge scans it, so a record never makes its verdict differ; the same output without them is. */
START_TEST(carried_scan_not_written_for_agent_ranks)
{
	static const char *const nodes[] = {"n1", "n2"};
	static const char agents[] =
		"0: [default0]:step 10 loss 2.1\n"
		"1: [default1]:step 10 loss 2.1\n"
		"0: [default1]:RuntimeError: CUDA error: an illegal memory access was encountered\n";
	char err[512];
	struct pm_ruleset *rs = pm_ruleset_load(rules_dir(), err, sizeof(err));
	struct pm_carry_input in = {.path = "sources/job_output/slurm-4242.out",
				    .data = agents,
				    .len = strlen(agents),
				    .node = "n1",
				    .rank = -1,
				    .status = "ok",
				    .reason = "",
				    .nodes = nodes,
				    .nnodes = 2,
				    .deadline = pm_mono() + 30};
	void *out = (void *)1;
	size_t len = 1;

	ck_assert_msg(rs != NULL, "%s", err);
	ck_assert_int_eq(pm_scan_carry(rs, &in, &out, &len), 0);
	ck_assert_ptr_null(out);
	in.data = job_output;
	in.len = strlen(job_output);
	ck_assert_int_eq(pm_scan_carry(rs, &in, &out, &len), 0);
	ck_assert_ptr_nonnull(out);
	free(out);
	pm_ruleset_destroy(rs);
}
END_TEST

/* A record is no evidence: a bundle whose members fill the input bound is read, its record
 * left, never refused for it (POSTMORTEM_INPUT_MAX). */
START_TEST(carried_scan_input_bound)
{
	struct pm_config cfg;
	struct pm_job j;
	struct pm_collection c;
	char note[300], bound[32], *man, *plain, *with;
	const char *a, *b;
	size_t n, total;

	sample(&cfg, &j, &c);
	add_output(&c, job_output);
	pm_collection_scrub(&c);
	pm_collection_carry(&c, &j, rules_dir(), pm_mono() + 30, note, sizeof(note));
	ck_assert_ptr_nonnull(c.caps[c.ncaps - 1].carry);
	a = strdup(bundle_in("with", &c, &j));
	free(c.caps[c.ncaps - 1].carry);
	c.caps[c.ncaps - 1].carry = NULL;
	b = strdup(bundle_in("without", &c, &j));
	/* the bound: the carried bundle's manifest and captures, and 64 bytes (a record is
	 * hundreds) */
	man = member(a, "manifest.json", NULL, 0);
	total = strlen(man) + 64;
	for (size_t i = 0; i < c.ncaps; i++)
		total += c.caps[i].name ? c.caps[i].len : 0;
	free(man);
	snprintf(bound, sizeof(bound), "%zu", total);
	setenv("POSTMORTEM_INPUT_MAX", bound, 1);
	plain = verdict_of(b, true, 2, &n);
	with = verdict_of(a, true, 2, &n);
	ck_assert_uint_eq(n, 0); /* no room left for the record: left, not the bundle refused */
	ck_assert_str_eq(with, plain);
	unsetenv("POSTMORTEM_INPUT_MAX");
	free(plain);
	free(with);
	free((void *)a);
	free((void *)b);
	pm_collection_free(&c);
	pm_job_free(&j);
	pm_config_free(&cfg);
}
END_TEST

/* A bundle keeps no compressed copy for a job output whose scan it carries when its other
 * members held back are kept as read (engine/bundle.c, bsrc_new): a record the merge does not
 * take has the output read from the file again, its digest checked again
 * (carried_scan_same_verdict's merge without Slurm's record gives the plain verdict that
 * way), and a file changed in between gives the output as unreadable, never the new bytes. */
START_TEST(carried_scan_read_again)
{
	struct pm_config cfg;
	struct pm_job j;
	struct pm_collection c;
	struct pm_capture *cap;
	struct pm_ruleset *rs;
	struct pm_evidence *ev;
	char note[300], err[512], *text, *other;
	const char *a, *d;
	json_t *v;

	sample(&cfg, &j, &c);
	add_output(&c, job_output);
	pm_collection_scrub(&c);
	pm_collection_carry(&c, &j, rules_dir(), pm_mono() + 30, note, sizeof(note));
	cap = &c.caps[c.ncaps - 1];
	ck_assert_ptr_nonnull(cap->carry);
	a = strdup(bundle_in("again", &c, &j));
	free(cap->carry);
	cap->carry = NULL;

	/* the bundle, replaced by another job output's after the merge read it */
	other = strdup(job_output);
	memcpy(strstr(other, "an illegal memory access"), "a misaligned address xxxx", 24);
	free(cap->data);
	cap->data = other;
	d = bundle_in("other", &c, &j);
	rs = pm_ruleset_load(rules_dir(), err, sizeof(err));
	ck_assert_msg(rs != NULL, "%s", err);
	ev = pm_evidence_create(rs);
	pm_evidence_set_threads(ev, 1);
	ck_assert_msg(pm_evidence_add_path(ev, a, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(rename(d, a), 0);
	v = pm_diagnose(ev, err, sizeof(err));
	ck_assert_msg(v != NULL, "%s", err);
	text = json_dumps(v, JSON_SORT_KEYS);
	ck_assert_ptr_nonnull(strstr(text, "its bundle changed after it was read"));
	ck_assert_ptr_null(strstr(text, "misaligned"));
	free(text);
	json_decref(v);
	pm_evidence_destroy(ev);
	pm_ruleset_destroy(rs);
	free((void *)a);
	pm_collection_free(&c);
	pm_job_free(&j);
	pm_config_free(&cfg);
}
END_TEST

/* The zstd frame of bundle file BUF (LEN bytes) that holds exactly CS bytes of tar and is not
 * the first: where it starts, and *FLEN its length; 0 none. */
static size_t frame_of(const unsigned char *buf, size_t len, size_t cs, size_t *flen)
{
	size_t pos = ZSTD_findFrameCompressedSize(buf, len);

	ck_assert(!ZSTD_isError(pos));
	while (pos < len) {
		size_t fs = ZSTD_findFrameCompressedSize(buf + pos, len - pos);

		ck_assert(!ZSTD_isError(fs));
		if (ZSTD_getFrameContentSize(buf + pos, fs) == cs) {
			*flen = fs;
			return pos;
		}
		pos += fs;
	}
	return 0;
}

/* A collector's bundle has a job output whose scan it carries in a zstd frame of its own
 * (FORMATS.md, "Frames"), which a merge that takes the record passes over: the same verdict,
 * with that frame damaged too, since the record stands in for its bytes.  Where the record is
 * refused (no Slurm record: another year) the bytes are wanted and checked then: the output
 * is unreadable, with the reason, never read as damaged bytes; the collector's own check of
 * the bundle (pm_bundle_verify) reads every member and refuses it; libarchive's reader and a
 * reader of one stream read the undamaged bundle as the same tar. */
START_TEST(carried_scan_frame_passed_over)
{
	struct pm_config cfg;
	struct pm_job j;
	struct pm_collection c;
	struct pm_capture *cap;
	char note[300], err[512], *good, *bad, *plain, *nosacct;
	const char *a;
	unsigned char *buf;
	size_t n, len, flen, off;
	FILE *fp;

	sample(&cfg, &j, &c);
	add_output(&c, job_output);
	pm_collection_scrub(&c);
	pm_collection_carry(&c, &j, rules_dir(), pm_mono() + 30, note, sizeof(note));
	cap = &c.caps[c.ncaps - 1];
	ck_assert_ptr_nonnull(cap->carry);
	a = strdup(bundle_in("frames", &c, &j));
	good = verdict_of(a, true, 1, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(pm_bundle_verify(a, err, sizeof(err)), 0);
	/* the job output's frame: its data and the padding to the tar's next block */
	fp = fopen(a, "rb");
	ck_assert_ptr_nonnull(fp);
	buf = malloc(1 << 20);
	len = fread(buf, 1, 1 << 20, fp);
	fclose(fp);
	off = frame_of(buf, len, (cap->len + 511) / 512 * 512, &flen);
	ck_assert_uint_gt(off, 0);
	{ /* one stream's reader gets the tar, the output's bytes in it as they were given */
		size_t whole = 4u << 20;
		void *t = malloc(whole);
		size_t got = ZSTD_decompress(t, whole, buf, len);

		ck_assert(!ZSTD_isError(got));
		ck_assert_ptr_nonnull(memmem(t, got, cap->data, cap->len));
		free(t);
	}
	nosacct = verdict_of(a, false, 1, &n);
	ck_assert_uint_eq(n, 0);
	buf[off + flen / 2] ^= 0x5a; /* inside its compressed blocks */
	save(a, buf, len);
	bad = verdict_of(a, true, 1, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(bad, good);
	ck_assert_int_eq(pm_bundle_verify(a, err, sizeof(err)), -1);
	plain = verdict_of(a, false, 2, &n);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_nonnull(strstr(plain, "its bytes there are damaged"));
	ck_assert_str_ne(plain, nosacct);
	free(good);
	free(bad);
	free(plain);
	free(nosacct);
	free(buf);
	free((void *)a);
	pm_collection_free(&c);
	pm_job_free(&j);
	pm_config_free(&cfg);
}
END_TEST

/* The plugin's task files on n1 (rank map, task exits) as JSON lines, RANK0_EXIT rank 0's exit
 * code: more than 1,536 bytes each, so that each has a frame of 2,048 bytes of tar, unlike
 * the job output and the tar's headers. */
static char *task_lines(bool exits, int rank0_exit)
{
	char *s = malloc(8192);
	size_t n = 0;

	ck_assert_ptr_nonnull(s);
	for (int r = 0; r < 8; r++)
		n += (size_t)snprintf(
			s + n, 8192 - n,
			exits ? "{\"schema\":\"postmortem.taskexit/1\",\"job\":\"4242\",\"step\":\"0\","
				"\"restart\":0,\"node\":\"n1\",\"node_id\":0,\"rank\":%d,\"local_rank\":%d,"
				"\"pid\":%d,\"end\":1796094660.5,\"end_mono\":11010.5,\"status\":%d,"
				"\"exit_code\":%d}\n" :
				"{\"schema\":\"postmortem.rankmap/1\",\"job\":\"4242\",\"step\":\"0\","
				"\"restart\":0,\"node\":\"n1\",\"node_id\":0,\"rank\":%d,\"local_rank\":%d,"
				"\"pid\":%d,\"gpus\":\"%d\",\"gpus_from\":\"SLURM_STEP_GPUS\","
				"\"start\":\"2026-11-30T03:00:05Z\",\"start_mono\":5000.5}\n",
			r, r, 40000 + r, exits ? (r ? 0 : rank0_exit << 8) : r, r ? 0 : rank0_exit);
	ck_assert_uint_gt(n, 1536);
	ck_assert_uint_lt(n, 2048);
	return s;
}

static struct pm_capture *add_tasks(struct pm_collection *c, bool exits, int rank0_exit)
{
	struct pm_capture *cap;

	c->caps = realloc(c->caps, (c->ncaps + 1) * sizeof(*c->caps));
	ck_assert_ptr_nonnull(c->caps);
	cap = &c->caps[c->ncaps++];
	memset(cap, 0, sizeof(*cap));
	cap->src = PM_CS_RANK_MAP;
	cap->kind = exits ? "task_exit" : "rank_map";
	cap->name = strdup(exits ? "taskexit.0.jsonl" : "rankmap.0.jsonl");
	cap->origin =
		strdup(exits ? "/var/spool/pm/taskexit.0.jsonl" : "/var/spool/pm/rankmap.0.jsonl");
	cap->data = task_lines(exits, rank0_exit);
	cap->len = strlen(cap->data);
	cap->rank = -1;
	cap->observed = 1796094700.5;
	cap->status = PM_ST_OK;
	return cap;
}

/* The verdict of bundle PATH with Slurm's record, THREADS threads; *TASKS: how many of its
 * task files were taken from their records (not parsed). */
static char *verdict_tasks(const char *path, unsigned threads, size_t *tasks)
{
	size_t carried;

	return verdict_of2(path, true, threads, &carried, tasks);
}

/* The task files' parse carried (engine/carry.c, PMTASK1): the merge takes the records instead
 * of parsing the files, with the verdict the parse gives, byte for byte, with one thread or
 * two, and passes over the files' frames (the verdict the same with one of them damaged).  A
 * record made from other bytes (its digest not the file's) is refused and a damaged one is
 * not taken: the files are parsed, their frames read and checked, the same verdict. */
START_TEST(carried_tasks)
{
	struct pm_config cfg;
	struct pm_job j;
	struct pm_collection c;
	struct pm_capture *map, *ex;
	char note[300], err[512], *plain, *with;
	const char *a, *b;
	unsigned char *buf;
	void *other;
	size_t n, len, flen, off, olen;
	FILE *fp;

	sample(&cfg, &j, &c);
	add_output(&c, job_output);
	map = add_tasks(&c, false, 1);
	ex = add_tasks(&c, true, 1);
	pm_collection_scrub(&c);
	pm_collection_carry(&c, &j, rules_dir(), pm_mono() + 30, note, sizeof(note));
	ck_assert_str_eq(note, "job output scanned for the merge: 1 of 1");
	map = &c.caps[c.ncaps - 2];
	ex = &c.caps[c.ncaps - 1];
	ck_assert_ptr_nonnull(map->carry);
	ck_assert_ptr_nonnull(ex->carry);
	ck_assert_int_eq(memcmp(map->carry, "PMTASK1\n", 8), 0);
	a = strdup(bundle_in("tasks", &c, &j));
	ck_assert_int_eq(pm_bundle_verify(a, err, sizeof(err)), 0);

	/* the plain parse: the same bundle without the task records */
	free(map->carry);
	free(ex->carry);
	map->carry = ex->carry = NULL;
	b = strdup(bundle_in("tasks-plain", &c, &j));
	plain = verdict_tasks(b, 1, &n);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_nonnull(strstr(plain, "illegal memory access"));
	for (unsigned t = 1; t <= 2; t++) {
		with = verdict_tasks(a, t, &n);
		ck_assert_uint_eq(n, 2);
		ck_assert_str_eq(with, plain);
		free(with);
	}

	/* a task file's frame damaged: passed over, its record standing in for it */
	fp = fopen(a, "rb");
	ck_assert_ptr_nonnull(fp);
	buf = malloc(1 << 20);
	len = fread(buf, 1, 1 << 20, fp);
	fclose(fp);
	off = frame_of(buf, len, 2048, &flen);
	ck_assert_uint_gt(off, 0);
	buf[off + flen / 2] ^= 0x5a;
	save(a, buf, len);
	with = verdict_tasks(a, 1, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(with, plain);
	free(with);
	ck_assert_int_eq(pm_bundle_verify(a, err, sizeof(err)), -1);
	free(buf);
	free((void *)a);

	/* records of other bytes (rank 0 exited with 9): their digest is not the files', so they
	 * are refused and the files parsed */
	{
		static const char one[] =
			"{\"schema\":\"postmortem.rankmap/1\",\"rank\":0,\"node\":\"n1\"}\n";

		ck_assert_int_eq(pm_tasks_carry("rank_map", one, strlen(one), &other, &olen), 0);
	}
	ck_assert_ptr_nonnull(other);
	map->carry = other;
	map->carrylen = olen;
	{
		char *x = task_lines(true, 9);

		ck_assert_int_eq(pm_tasks_carry("task_exit", x, strlen(x), &other, &olen), 0);
		ck_assert_ptr_nonnull(other);
		ex->carry = other;
		ex->carrylen = olen;
		free(x);
	}
	a = bundle_in("tasks-other", &c, &j);
	with = verdict_tasks(a, 2, &n);
	ck_assert_uint_eq(n, 0);
	ck_assert_str_eq(with, plain);
	free(with);

	/* damaged records (cut short by a byte, as the collector wrote them: their entries'
	 * digests are theirs): passed over by their heads, not taken, the files parsed */
	free(map->carry);
	free(ex->carry);
	ck_assert_int_eq(pm_tasks_carry("rank_map", map->data, map->len, &map->carry,
					&map->carrylen),
			 0);
	ck_assert_int_eq(pm_tasks_carry("task_exit", ex->data, ex->len, &ex->carry, &ex->carrylen),
			 0);
	map->carrylen--;
	((unsigned char *)ex->carry)[ex->carrylen - 3] ^= 0xff;
	ex->carrylen -= 2;
	a = bundle_in("tasks-damaged", &c, &j);
	for (unsigned t = 1; t <= 2; t++) {
		with = verdict_tasks(a, t, &n);
		ck_assert_uint_eq(n, 0);
		ck_assert_str_eq(with, plain);
		free(with);
	}
	free(plain);
	free((void *)b);
	pm_collection_free(&c);
	pm_job_free(&j);
	pm_config_free(&cfg);
}
END_TEST

void collector_carry_tests(TCase *tc)
{
	tcase_add_test(tc, carried_tasks);
	tcase_add_test(tc, carried_scan_frame_passed_over);
	tcase_add_test(tc, carried_scan_same_verdict);
	tcase_add_test(tc, carried_scan_not_taken);
	tcase_add_test(tc, carried_scan_weak_name_unknown);
	tcase_add_test(tc, carried_scan_weak_name_named_earlier);
	tcase_add_test(tc, carried_scan_deadline);
	tcase_add_test(tc, carried_scan_not_written_for_agent_ranks);
	tcase_add_test(tc, carried_scan_input_bound);
	tcase_add_test(tc, carried_scan_read_again);
}
