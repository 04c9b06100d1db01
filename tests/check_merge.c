/*
 * check_merge.c - the merge on worker threads (pm_evidence_set_threads): the same evidence
 * gives the same verdict, byte for byte, with one thread and with several, read through a
 * folder walk and through pm_evidence_add_bundles, a bad bundle among good ones included,
 * and scanned on the threads (groups and ranks across files, a weak node name that only an
 * earlier file makes known); and what adding bundles holds in memory.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine_id.h"
#include "internal.h"
#include "postmortem.h"
#include "support.h"
#include <zstd.h>

#define NODES 48
#define RPN 4
#define BAD 17	   /* the node whose GPU falls off the bus */
#define CORRUPT 30 /* the node whose bundle lies about a member's checksum */

static char tmp[256];
static struct pm_ruleset *rs;

static void setup(void)
{
	char err[512];

	snprintf(tmp, sizeof(tmp), "/tmp/pm-check-merge-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	rs = pm_ruleset_load(PM_TEST_SRCDIR "/rules", err, sizeof(err));
	ck_assert_msg(rs != NULL, "%s", err);
}

static void teardown(void)
{
	pm_ruleset_destroy(rs);
	pmt_rmtree(tmp);
}

/* Append the printf-style line to the growing text *S. */
static void add(char **s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(char **s, const char *fmt, ...)
{
	va_list ap;
	char *line, *n;

	va_start(ap, fmt);
	ck_assert_int_ge(vasprintf(&line, fmt, ap), 0);
	va_end(ap);
	ck_assert_int_ge(asprintf(&n, "%s%s", *s ? *s : "", line), 0);
	free(*s);
	free(line);
	*s = n;
}

/* A job of NODES nodes in DIR/nodes, as bench/gen_store.py writes one, small: each rank's
 * progress, every rank but one timing out in NCCL's watchdog, one node's Xid 79; a few nodes
 * name peers by an NCCL prefix, and one bundle is corrupt. */
static void job(const char *dir)
{
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	for (int n = 0; n < NODES; n++) {
		char host[32], *rm = NULL, *te = NULL, *app = NULL, *kern = NULL, *man = NULL,
			       hex[4][80];
		struct pmt_member m[4];
		const char *path[4] = {"sources/rank_map/rankmap.0.jsonl",
				       "sources/rank_map/taskexit.0.jsonl",
				       "sources/user_logs/train.log",
				       "sources/kernel_log/dmesg.txt"};
		const char *src[4] = {"rank_map", "task_exit", "app_log", "kernel_log"};

		snprintf(host, sizeof(host), "gpu%05d", 10000 + n);
		for (int l = 0; l < RPN; l++) {
			int r = n * RPN + l;
			bool stopped = n == BAD && l == 3;
			add(&rm,
			    "{\"schema\":\"postmortem.rankmap/1\",\"job\":\"700001\",\"step\":\"0\","
			    "\"restart\":0,\"node\":\"%s\",\"node_id\":%d,\"rank\":%d,\"local_rank\":%d,"
			    "\"pid\":%d,\"gpus\":\"%d\",\"start\":1796010000.5}\n",
			    host, n, r, l, 40000 + l, l);
			add(&te,
			    "{\"schema\":\"postmortem.taskexit/1\",\"job\":\"700001\",\"step\":\"0\","
			    "\"restart\":0,\"node\":\"%s\",\"node_id\":%d,\"rank\":%d,\"local_rank\":%d,"
			    "\"pid\":%d,\"end\":1796016010.5,%s}\n",
			    host, n, r, l, 40000 + l,
			    stopped ? "\"status\":9,\"signal\":9,\"signal_name\":\"SIGKILL\"" :
				      "\"status\":256,\"exit_code\":1");
			for (int k = 0; k < 3; k++)
				add(&app,
				    "%d: [2026-11-30 04:%02d:%02d,%03d] iteration %8d/  500000 | "
				    "lm loss: 2.113E+00 |\n",
				    r, 9 + 30 * k, l, 10 * l, 2000 * (k + 1));
			if (n % 7 == 2)
				add(&app,
				    "%s:%d:%d [%d] NCCL INFO Bootstrap : Using eth0:10.1.%d.%d<0>\n",
				    host, 40000 + l, 40100 + l, l, n, l + 1);
			if (!stopped)
				add(&app,
				    "%d: [rank%d]:[E ProcessGroupNCCL.cpp:616] [Rank %d] Watchdog "
				    "caught collective operation timeout: WorkNCCL(SeqNum=731337, "
				    "OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600043 "
				    "milliseconds before timing out.\n",
				    r, r, r);
		}
		for (int i = 0; i < 4; i++)
			add(&kern,
			    "2026-11-30T03:%02d:00,000000+00:00 mlx5_core 0000:0c:00.0: link up\n",
			    30 + i);
		if (n == BAD)
			add(&kern,
			    "2026-11-30T05:10:00,000000+00:00 NVRM: Xid (PCI:0000:9a:00): 79, "
			    "pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n");
		m[0] = (struct pmt_member){path[0], rm, strlen(rm)};
		m[1] = (struct pmt_member){path[1], te, strlen(te)};
		m[2] = (struct pmt_member){path[2], app, strlen(app)};
		m[3] = (struct pmt_member){path[3], kern, strlen(kern)};
		for (int i = 0; i < 4; i++)
			pm_sha256_buf(m[i].data, m[i].len, hex[i]);
		if (n == CORRUPT)
			hex[2][10] = hex[2][10] == 'a' ? 'b' : 'a';
		add(&man,
		    "{\"schema\":\"postmortem.bundle/1\",\"cluster\":\"bench\",\"job\":\"700001\","
		    "\"restart\":0,\"node\":\"%s\",\"boot_time\":\"2026-11-30T02:16:40.000Z\","
		    "\"collected\":{\"start\":\"2026-11-30T05:21:%02d.000Z\",\"deadline_hit\":false},"
		    "\"uid\":1000,\"files\":[",
		    host, n % 60);
		for (int i = 0; i < 4; i++)
			add(&man,
			    "%s{\"path\":\"%s\",\"source\":\"%s\",\"node\":\"%s\",\"bytes\":%zu,"
			    "\"sha256\":\"%s\",\"status\":\"ok\","
			    "\"observed_time\":\"2026-11-30T05:21:40.000Z\"}",
			    i ? "," : "", path[i], src[i], host, m[i].len, hex[i] + 7);
		add(&man,
		    "],\"coverage\":[{\"source\":\"kernel_log\",\"status\":\"ok\"},"
		    "{\"source\":\"gpu_state\",\"status\":\"%s\",\"reason\":\"%s\"}]}",
		    n % 11 ? "ok" : "timed_out", n % 11 ? "" : "nvidia-smi did not answer");
		pmt_bundle(dir, host, man, m, 4, 0);
		free(rm);
		free(te);
		free(app);
		free(kern);
		free(man);
	}
}

/* The verdict of the folder REL of tmp on THREADS threads, as JSON text (the caller's), or
 * the error's text. */
static char *diagnose(const char *rel, unsigned threads)
{
	struct pm_evidence *ev = pm_evidence_create(rs);
	char err[512] = "", *out;
	json_t *v = NULL;

	ck_assert_ptr_nonnull(ev);
	pm_evidence_set_threads(ev, threads);
	if (pm_evidence_add_path(ev, pmt_path(tmp, rel), err, sizeof(err)) == 0 &&
	    (v = pm_diagnose(ev, err, sizeof(err))))
		out = pm_verdict_dump(v);
	else
		ck_assert_int_ge(asprintf(&out, "error: %s", err), 0);
	json_decref(v);
	pm_evidence_destroy(ev);
	return out;
}

START_TEST(test_walk_same_bytes)
{
	char *one, *many;

	job(pmt_path(tmp, "job"));
	unlink(pmt_path(tmp, "job/nodes/gpu10030.tar.zst")); /* the corrupt one: refused */
	pmt_mk(tmp, "job/nodes/notes.txt", "gpu10004 was drained once\n");
	/* a node that only a file's own prefix names, then a weak prefix naming it later (the
	 * worker does not know it: that file is scanned again in order) */
	pmt_mk(tmp, "job/extra/a.log",
	       "[gpu20000:4242] 7: [rank7]:[E ProcessGroupNCCL.cpp:616] [Rank 7] Watchdog caught "
	       "collective operation timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE, "
	       "Timeout(ms)=600000) ran for 600043 milliseconds before timing out.\n");
	pmt_mk(tmp, "job/extra/b.log",
	       "gpu20000: 9: [rank9]:[E ProcessGroupNCCL.cpp:616] [Rank 9] Watchdog caught "
	       "collective operation timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE, "
	       "Timeout(ms)=600000) ran for 600043 milliseconds before timing out.\n"
	       "gpu10007: 30: [rank30]:[E ProcessGroupNCCL.cpp:616] [Rank 30] Watchdog caught "
	       "collective operation timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE, "
	       "Timeout(ms)=600000) ran for 600043 milliseconds before timing out.\n");
	one = diagnose("job", 1);
	ck_assert_msg(!strncmp(one, "{", 1), "%s", one);
	ck_assert_ptr_nonnull(strstr(one, "gpu_lost"));
	for (unsigned t = 2; t <= 8; t *= 2) {
		many = diagnose("job", t);
		ck_assert_msg(!strcmp(one, many), "%u threads: a different verdict", t);
		free(many);
	}
	free(one);
}
END_TEST

START_TEST(test_walk_refused_same_error)
{
	char *one, *many;

	job(pmt_path(tmp, "job"));
	one = diagnose("job", 1);
	ck_assert_msg(!strncmp(one, "error: nodes/gpu10030.tar.zst", 29), "%s", one);
	many = diagnose("job", 4);
	ck_assert_str_eq(one, many);
	free(one);
	free(many);
}
END_TEST

/* pm_evidence_add_bundles: what each bundle gave, in order, and the verdict after. */
struct seen {
	char *text;
};

static int note(void *arg, size_t i, int rc, json_t *m, const char *sha, uint64_t bytes,
		const char *err)
{
	struct seen *s = arg;
	const char *node = json_string_value(json_object_get(m, "node"));
	json_t *u = json_object_get(m, "uid");

	add(&s->text, "%zu %d %s %s %llu %s\n", i, rc, m ? node ? node : "(none)" : "-", sha,
	    (unsigned long long)bytes, rc < 0 ? err : "");
	if (m)
		add(&s->text, "  deadline %d uid %lld\n",
		    json_is_true(json_object_get(json_object_get(m, "collected"), "deadline_hit")),
		    json_is_integer(u) && json_integer_value(u) >= 0 ? json_integer_value(u) : -1);
	return 0;
}

/* The same as note, from a manifest's brief (pm_evidence_add_bundles_brief). */
static int note_brief(void *arg, size_t i, int rc, const struct pm_bundle_brief *b, const char *sha,
		      uint64_t bytes, const char *err)
{
	struct seen *s = arg;

	add(&s->text, "%zu %d %s %s %llu %s\n", i, rc, b ? b->node ? b->node : "(none)" : "-", sha,
	    (unsigned long long)bytes, rc < 0 ? err : "");
	if (b)
		add(&s->text, "  deadline %d uid %lld\n", b->deadline_hit, b->uid);
	return 0;
}

static bool use_brief; /* add_bundles: through pm_evidence_add_bundles_brief */

static char *add_bundles(unsigned threads)
{
	struct pm_evidence *ev = pm_evidence_create(rs);
	struct seen s = {NULL};
	char *paths[NODES], err[512] = "";
	json_t *v;

	ck_assert_ptr_nonnull(ev);
	pm_evidence_set_threads(ev, threads);
	for (int n = 0; n < NODES; n++)
		ck_assert_int_ge(asprintf(&paths[n], "%s/job/nodes/gpu%05d.tar.zst", tmp,
					  10000 + n),
				 0);
	ck_assert_int_eq(use_brief ? pm_evidence_add_bundles_brief(ev, NODES,
								   (const char *const *)paths,
								   note_brief, &s) :
				     pm_evidence_add_bundles(ev, NODES, (const char *const *)paths,
							     note, &s),
			 0);
	v = pm_diagnose(ev, err, sizeof(err));
	ck_assert_msg(v != NULL, "%s", err);
	{
		char *d = pm_verdict_dump(v);
		add(&s.text, "%s", d);
		free(d);
	}
	json_decref(v);
	pm_evidence_destroy(ev);
	for (int n = 0; n < NODES; n++)
		free(paths[n]);
	return s.text;
}

START_TEST(test_add_bundles_same_bytes)
{
	char *one, *many;

	job(pmt_path(tmp, "job"));
	one = add_bundles(1);
	ck_assert_ptr_nonnull(strstr(one, "30 -1 gpu10030 sha256:"));
	ck_assert_ptr_nonnull(strstr(one, "checksum differs"));
	for (unsigned t = 2; t <= 8; t *= 2) {
		many = add_bundles(t);
		ck_assert_msg(!strcmp(one, many), "%u threads: different results", t);
		free(many);
	}
	/* the manifests' briefs say what their trees say, and the verdict is the same */
	use_brief = true;
	for (unsigned t = 1; t <= 2; t++) {
		many = add_bundles(t);
		ck_assert_msg(!strcmp(one, many), "briefs, %u threads:\n%s\n%s", t, one, many);
		free(many);
	}
	use_brief = false;
	free(one);
}
END_TEST

/* Thread starts refused from the Nth on: as pthread_create fails when the process limit is
 * reached. */
static int starts_left;

static int start_some(void *tid, void *(*fn)(void *), void *arg)
{
	if (__atomic_fetch_sub(&starts_left, 1, __ATOMIC_SEQ_CST) <= 0)
		return EAGAIN;
	return pthread_create(tid, NULL, fn, arg);
}

/* Threads that cannot be started are fewer workers, not a failure: with none of 7 started,
 * or 2 of them, the merge gives the bytes one thread gives; reading the folder too. */
START_TEST(test_threads_not_started)
{
	char *bundles_one, *walk_one, *many;

	job(pmt_path(tmp, "job"));
	bundles_one = add_bundles(1);
	walk_one = diagnose("job", 1);
	for (int left = 0; left <= 2; left += 2) {
		starts_left = left;
		pm_work_set_start(start_some);
		many = add_bundles(8);
		ck_assert_int_lt(starts_left, 0); /* a start was refused */
		ck_assert_msg(!strcmp(bundles_one, many), "%d started: different results", left);
		free(many);
		starts_left = left;
		many = diagnose("job", 8);
		pm_work_set_start(NULL);
		ck_assert_int_lt(starts_left, 0);
		ck_assert_msg(!strcmp(walk_one, many), "%d started: a different verdict", left);
		free(many);
	}
	free(bundles_one);
	free(walk_one);
}
END_TEST

/* A folder of bundles the caller stops half-way: the rest are read ahead and dropped. */
static int stop_at_9(void *arg, size_t i, int rc, json_t *m, const char *sha, uint64_t bytes,
		     const char *err)
{
	(void)arg;
	(void)rc;
	(void)sha;
	(void)bytes;
	(void)err;
	(void)m;
	if (i == 9) {
		errno = ECANCELED;
		return -1;
	}
	return 0;
}

START_TEST(test_add_bundles_stopped)
{
	struct pm_evidence *ev = pm_evidence_create(rs);
	char *paths[NODES];

	job(pmt_path(tmp, "job"));
	pm_evidence_set_threads(ev, 4);
	for (int n = 0; n < NODES; n++)
		ck_assert_int_ge(asprintf(&paths[n], "%s/job/nodes/gpu%05d.tar.zst", tmp,
					  10000 + n),
				 0);
	ck_assert_int_eq(pm_evidence_add_bundles(ev, NODES, (const char *const *)paths, stop_at_9,
						 NULL),
			 -1);
	ck_assert_int_eq(errno, ECANCELED);
	ck_assert_int_eq(pm_evidence_bundles(ev), 10);
	pm_evidence_destroy(ev);
	for (int n = 0; n < NODES; n++)
		free(paths[n]);
}
END_TEST

/*
 * Bundles whose text members are held back until the scan reads them (bundle.c): after adding
 * 32 bundles of 56 KiB of job output and a kernel log each, on one thread and on four, none
 * of that text is held in memory (pm_evidence_held), and the scan still reads every member
 * (each node's watchdog line, the one Xid) to the same verdict.
 */
#define BIG 32

static char *big_job(unsigned threads, size_t *held, size_t *text)
{
	struct pm_evidence *ev = pm_evidence_create(rs);
	struct seen s = {NULL};
	char *paths[BIG], err[512] = "", *out;
	json_t *v;

	*text = 0;
	for (int n = 0; n < BIG; n++) {
		char host[32], *app = NULL, *kern = NULL, *man = NULL, hex[2][80];
		struct pmt_member m[2];

		snprintf(host, sizeof(host), "gpu%05d", 10000 + n);
		for (int k = 0; k < 700; k++)
			add(&app,
			    "%d: [2026-11-30 04:%02d:%02d,%03d] iteration %8d/  500000 | "
			    "lm loss: 2.113E+00 |\n",
			    n, 10 + k / 60, k % 60, k, 1000 + k);
		add(&app,
		    "%d: [rank%d]:[E ProcessGroupNCCL.cpp:616] [Rank %d] Watchdog caught "
		    "collective operation timeout: WorkNCCL(SeqNum=731337, OpType=ALLREDUCE, "
		    "Timeout(ms)=600000) ran for 600043 milliseconds before timing out.\n",
		    n, n, n);
		add(&kern, "2026-11-30T03:30:00,000000+00:00 mlx5_core 0000:0c:00.0: link up\n");
		if (n == 5)
			add(&kern,
			    "2026-11-30T05:10:00,000000+00:00 NVRM: Xid (PCI:0000:9a:00): 79, "
			    "pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n");
		m[0] = (struct pmt_member){"sources/user_logs/train.log", app, strlen(app)};
		m[1] = (struct pmt_member){"sources/kernel_log/dmesg.txt", kern, strlen(kern)};
		*text += m[0].len + m[1].len;
		for (int i = 0; i < 2; i++)
			pm_sha256_buf(m[i].data, m[i].len, hex[i]);
		add(&man,
		    "{\"schema\":\"postmortem.bundle/1\",\"cluster\":\"bench\",\"job\":\"700002\","
		    "\"restart\":0,\"node\":\"%s\",\"collected\":{\"start\":"
		    "\"2026-11-30T05:21:00.000Z\"},\"files\":[{\"path\":\"%s\",\"source\":"
		    "\"app_log\",\"bytes\":%zu,\"sha256\":\"%s\"},{\"path\":\"%s\",\"source\":"
		    "\"kernel_log\",\"bytes\":%zu,\"sha256\":\"%s\"}]}",
		    host, m[0].name, m[0].len, hex[0] + 7, m[1].name, m[1].len, hex[1] + 7);
		pmt_bundle(pmt_path(tmp, "big"), host, man, m, 2, 0);
		ck_assert_int_ge(asprintf(&paths[n], "%s/big/nodes/%s.tar.zst", tmp, host), 0);
		free(app);
		free(kern);
		free(man);
	}
	ck_assert_ptr_nonnull(ev);
	pm_evidence_set_threads(ev, threads);
	ck_assert_int_eq(pm_evidence_add_bundles(ev, BIG, (const char *const *)paths, note, &s), 0);
	*held = pm_evidence_held(ev);
	v = pm_diagnose(ev, err, sizeof(err));
	ck_assert_msg(v != NULL, "%s", err);
	out = pm_verdict_dump(v);
	json_decref(v);
	pm_evidence_destroy(ev);
	for (int n = 0; n < BIG; n++)
		free(paths[n]);
	free(s.text);
	return out;
}

START_TEST(test_members_held_back)
{
	size_t held, text;
	char *one, *four;

	mkdir(pmt_path(tmp, "big"), 0755);
	one = big_job(1, &held, &text);
	ck_assert_uint_gt(text, (size_t)BIG * 50000);
	ck_assert_msg(held == 0, "adding the bundles held %zu bytes of %zu of text", held, text);
	ck_assert_ptr_nonnull(strstr(one, "gpu_lost"));
	ck_assert_ptr_nonnull(strstr(one, "gpu10005"));
	ck_assert_ptr_nonnull(strstr(one, "Watchdog caught"));
	pmt_rmtree(pmt_path(tmp, "big"));
	mkdir(pmt_path(tmp, "big"), 0755);
	four = big_job(4, &held, &text);
	ck_assert_msg(held == 0, "4 threads: %zu bytes held of %zu of text", held, text);
	ck_assert_str_eq(one, four);
	free(one);
	free(four);
}
END_TEST

START_TEST(test_threads_usable)
{
	setenv("POSTMORTEM_THREADS", "1", 1);
	ck_assert_uint_eq(pm_threads_usable(), 1);
	setenv("POSTMORTEM_THREADS", "99", 1);
	ck_assert_uint_eq(pm_threads_usable(), 8);
	unsetenv("POSTMORTEM_THREADS");
	ck_assert_uint_ge(pm_threads_usable(), 1);
	ck_assert_uint_le(pm_threads_usable(), 8);
}
END_TEST

/* A carried scan's record (engine/carry.c) read back whole, and never trusted in part: cut at
 * every length, and with every byte of its content changed, it is either refused or read as a
 * record (a changed time or count is a record still), never past its end (ASan, valgrind). */
static const char carry_text[] =
	"[2026-11-30 03:10:01] step 100 | loss 2.314 | 410 samples/s\n"
	"n2: [rank1]: RuntimeError: CUDA error: an illegal memory access was encountered\n"
	"n2:2211:2211 [0] NCCL INFO Bootstrap : Using ib0:10.20.0.12<0>\n"
	"srun: error: n2: task 0: Exited with exit code 1\n";

static int carry_read(const void *z, size_t zlen, const struct pm_carry_key *k, char *const *snap,
		      size_t nsnap)
{
	struct pm_evidence lev = {0};
	struct pm_carry c = {.lev = &lev};
	ZSTD_DCtx *dc = ZSTD_createDCtx();
	int rc = pm_carry_decode(dc, z, zlen, k, rs, snap, nsnap, 0, &c);

	ck_assert_int_ge(rc, 0);
	if (rc == 1)
		pm_carry_clear(&c);
	ck_assert_ptr_null(lev.obs);
	ZSTD_freeDCtx(dc);
	return rc;
}

START_TEST(test_carry_record_damaged)
{
	static char *const known[] = {"n1", "n2"};
	struct pm_carry_input in = {.path = "sources/job_output/slurm-9.out",
				    .data = carry_text,
				    .len = strlen(carry_text),
				    .node = "n1",
				    .rank = -1,
				    .observed = "2026-11-30T03:12:40.551Z",
				    .boot = "2026-11-29T22:01:13Z",
				    .status = "ok",
				    .reason = "",
				    .job_start = 1796000000,
				    .nodes = (const char *const *)known,
				    .nnodes = 2};
	struct pm_carry_key k = {.rules = pm_ruleset_digest(rs),
				 .input_max = pm_input_max(),
				 .node = "n1",
				 .rank = -1,
				 .year = 2026,
				 .source = PM_SRC_APP_LOG,
				 .format = PM_FMT_APP,
				 .status = PM_ST_OK};
	struct pm_sha256 sc;
	void *z;
	size_t zlen, raw_len;
	unsigned char *raw, *mut, *mz;
	unsigned taken = 0;
	size_t keylen;
	char id[256];
	struct pm_timectx tc = {.year = 1970};

	ck_assert_int_eq(pm_time_parse(in.observed, strlen(in.observed), &tc, &k.mtime), 1);
	ck_assert_int_eq(pm_time_parse(in.boot, strlen(in.boot), &tc, &k.boot), 1);
	pm_sha256_init(&sc);
	pm_sha256_update(&sc, carry_text, strlen(carry_text));
	pm_sha256_final(&sc, k.sha);
	ck_assert_int_eq(pm_scan_carry(rs, &in, &z, &zlen), 0);
	ck_assert_ptr_nonnull(z);
	ck_assert_int_eq(carry_read(z, zlen, &k, (char *const *)known, 2), 1);
	/* the weak name n2 the collector took must be known here too */
	ck_assert_int_eq(carry_read(z, zlen, &k, (char *const *)known, 1), 0);
	/* another key, field by field: not taken */
	{
		struct pm_carry_key o = k;
		o.rank = 3;
		ck_assert_int_eq(carry_read(z, zlen, &o, (char *const *)known, 2), 0);
		o = k;
		o.year = 2025;
		ck_assert_int_eq(carry_read(z, zlen, &o, (char *const *)known, 2), 0);
		o = k;
		o.mtime += 0.001;
		ck_assert_int_eq(carry_read(z, zlen, &o, (char *const *)known, 2), 0);
		o = k;
		o.sha[5] ^= 1;
		ck_assert_int_eq(carry_read(z, zlen, &o, (char *const *)known, 2), 0);
		o = k;
		o.rules = "sha256:0000";
		ck_assert_int_eq(carry_read(z, zlen, &o, (char *const *)known, 2), 0);
		o = k;
		o.input_max = k.input_max / 2;
		ck_assert_int_eq(carry_read(z, zlen, &o, (char *const *)known, 2), 0);
		o = k;
		o.node = "n2";
		ck_assert_int_eq(carry_read(z, zlen, &o, (char *const *)known, 2), 0);
	}
	/* the frame cut anywhere */
	for (size_t n = 0; n < zlen; n++)
		ck_assert_int_eq(carry_read(z, n, &k, (char *const *)known, 2), 0);
	/* the content cut anywhere, or any byte of it changed */
	raw_len = ZSTD_getFrameContentSize(z, zlen);
	raw = malloc(raw_len);
	mut = malloc(raw_len);
	mz = malloc(ZSTD_compressBound(raw_len));
	ck_assert_uint_eq(ZSTD_decompress(raw, raw_len, z, zlen), raw_len);
	for (size_t n = 0; n < raw_len; n++) {
		size_t m = ZSTD_compress(mz, ZSTD_compressBound(raw_len), raw, n, 1);
		ck_assert_int_eq(carry_read(mz, m, &k, (char *const *)known, 2), 0);
	}
	pm_carry_identity(id, sizeof(id));
	/* the key: magic, version, digest, SHA-256, bound, node, rank, times, year, kinds, status,
	 * reason (none) */
	keylen = 8 + 4 + strlen(id) + 4 + strlen(k.rules) + 32 + 8 + 4 + 2 + 4 + 16 + 4 + 3 + 4;
	for (size_t i = 0; i < raw_len; i++) {
		memcpy(mut, raw, raw_len);
		mut[i] ^= 0xa5;
		size_t m = ZSTD_compress(mz, ZSTD_compressBound(raw_len), mut, raw_len, 1);
		int rc = carry_read(mz, m, &k, (char *const *)known, 2);

		/* a change in the key is another key; elsewhere it may still read as a record */
		if (i < keylen)
			ck_assert_msg(rc == 0, "byte %zu of the key changed, taken", i);
		taken += rc == 1;
	}
	ck_assert_uint_gt(taken, 0);
	free(raw);
	free(mut);
	free(mz);
	free(z);
}
END_TEST

/*
 * Where the plugin's records and srun's task line place one task on two nodes
 * (att_ranks.c, rankmap_gainsaid): a collector's bundle holds the records root wrote, and they
 * place it (rank 0 on tx32, its exclusion advised); the same records as loose files of a
 * hand-gathered folder are text the job may have written, and neither places it (no origin
 * node, `retry`, `why` naming the records' file).  review32 F03.
 */
static void records_job(const char *dir, bool bundled)
{
	static const char *const host[2] = {"tx31", "tx32"};
	const char *path[3] = {"sources/rank_map/rankmap.0.jsonl",
			       "sources/rank_map/taskexit.0.jsonl", "sources/user_logs/train.log"};
	const char *src[3] = {"rank_map", "task_exit", "app_log"};

	ck_assert_int_eq(mkdir(dir, 0755), 0);
	for (int n = 0; n < 2; n++) {
		char *rm = NULL, *te = NULL, *app = NULL, *man = NULL, hex[3][80];
		struct pmt_member m[3];
		int r = 1 - n; /* the records: rank 1 on tx31, rank 0 on tx32 */
		size_t nm = n ? 2 : 3;

		add(&rm,
		    "{\"schema\":\"postmortem.rankmap/1\",\"job\":\"700002\",\"step\":\"0\","
		    "\"node\":\"%s\",\"node_id\":%d,\"rank\":%d,\"local_rank\":0,\"pid\":%d,"
		    "\"gpus\":\"0\",\"start\":1796010000.5}\n",
		    host[n], n, r, 40000 + r);
		add(&te,
		    "{\"schema\":\"postmortem.taskexit/1\",\"job\":\"700002\",\"step\":\"0\","
		    "\"node\":\"%s\",\"node_id\":%d,\"rank\":%d,\"local_rank\":0,\"pid\":%d,"
		    "\"end\":1796010040.5,%s}\n",
		    host[n], n, r, 40000 + r,
		    r ? "\"status\":15,\"signal\":15" : "\"status\":256,\"exit_code\":1");
		/* srun's lines (the job's stderr, on the batch node) put task 0 on tx31 */
		add(&app, "0: RuntimeError: CUDA error: all CUDA-capable devices are busy or "
			  "unavailable\n"
			  "srun: error: tx31: task 0: Exited with exit code 1\n"
			  "srun: error: tx32: task 1: Terminated\n");
		m[0] = (struct pmt_member){path[0], rm, strlen(rm)};
		m[1] = (struct pmt_member){path[1], te, strlen(te)};
		m[2] = (struct pmt_member){path[2], app, strlen(app)};
		if (!bundled) {
			char rel[300];
			/* the job's output under its own name: a host in its name would place
			 * its lines on that node */
			for (size_t i = 0; i < nm; i++) {
				snprintf(rel, sizeof(rel), "%s/%s%s%s", dir, i < 2 ? host[n] : "",
					 i < 2 ? "-" : "", strrchr(path[i], '/') + 1);
				pmt_mk("/", rel, m[i].data);
			}
		} else {
			for (size_t i = 0; i < nm; i++)
				pm_sha256_buf(m[i].data, m[i].len, hex[i]);
			add(&man,
			    "{\"schema\":\"postmortem.bundle/1\",\"cluster\":\"lab\",\"job\":\"700002\","
			    "\"restart\":0,\"node\":\"%s\",\"boot_time\":\"2026-11-30T02:16:40.000Z\","
			    "\"collected\":{\"start\":\"2026-11-30T05:21:00.000Z\","
			    "\"deadline_hit\":false},\"uid\":1000,\"files\":[",
			    host[n]);
			for (size_t i = 0; i < nm; i++)
				add(&man,
				    "%s{\"path\":\"%s\",\"source\":\"%s\",\"node\":\"%s\","
				    "\"bytes\":%zu,\"sha256\":\"%s\",\"status\":\"ok\","
				    "\"observed_time\":\"2026-11-30T05:21:40.000Z\"}",
				    i ? "," : "", path[i], src[i], host[n], m[i].len, hex[i] + 7);
			add(&man,
			    "],\"coverage\":[{\"source\":\"kernel_log\",\"status\":\"ok\"}]}");
			pmt_bundle(dir, host[n], man, m, nm, 0);
		}
		free(rm);
		free(te);
		free(app);
		free(man);
	}
}

START_TEST(test_records_over_srun_bundled_only)
{
	char *b, *l;

	records_job(pmt_path(tmp, "bundled"), true);
	records_job(pmt_path(tmp, "loose"), false);
	b = diagnose("bundled", 1);
	l = diagnose("loose", 1);
	ck_assert_msg(!strncmp(b, "{", 1), "%.300s", b);
	ck_assert_msg(!strncmp(l, "{", 1), "%.300s", l);
	/* the bundle's records place rank 0 on tx32; the busy GPU only the job's output reports
	 * has its exclusion offered, not advised (verdict.c node_launch_output) */
	ck_assert(strstr(b, "excluding tx32 (--exclude=tx32)") && !strstr(b, "tx31 (--exclude"));
	ck_assert(!strstr(b, "neither decides"));
	ck_assert(!strstr(l, "\"retry-exclude-node\"") && strstr(l, "neither decides"));
	ck_assert(strstr(l, "jsonl, outside any collector's bundle"));
	free(b);
	free(l);
}
END_TEST

Suite *pmt_suite(void)
{
	Suite *s = suite_create("merge");
	TCase *tc = tcase_create("threads");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_walk_same_bytes);
	tcase_add_test(tc, test_walk_refused_same_error);
	tcase_add_test(tc, test_add_bundles_same_bytes);
	tcase_add_test(tc, test_add_bundles_stopped);
	tcase_add_test(tc, test_threads_not_started);
	tcase_add_test(tc, test_members_held_back);
	tcase_add_test(tc, test_threads_usable);
	tcase_add_test(tc, test_carry_record_damaged);
	tcase_add_test(tc, test_records_over_srun_bundled_only);
	suite_add_tcase(s, tc);
	return s;
}
