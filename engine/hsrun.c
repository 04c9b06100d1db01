/* hsrun.c - scanning a chunk with Vectorscan so that a match is found wherever it lies.
 *
 * Vectorscan's fat-runtime build carries one implementation per CPU generation (core2,
 * corei7, avx2, avx512) and its API's entry points dispatch to the newest the CPU has.
 * Debian 12's (5.4.9) AVX-512 implementation misses matches depending on where the data lies
 * in memory: the pattern `couldn't chdir to [^']*': [A-Za-z ]+: going to /tmp instead` over
 * one line of slurmstepd's is missed when the match's end falls at 9 of the 64 addresses
 * modulo 64 (51 to 59), and found at the other 55; the AVX2 implementation finds it at all
 * 64.  A buffer's address is whatever malloc gave, so the same evidence gave a different
 * verdict from one process to the next: the collector's merge, with a busier heap, missed a
 * line that `diagnose` of the same bundles found.  Compiling for a platform without AVX-512
 * does not help: the scanning code is chosen at run time.
 *
 * The same two implementations also miss, wherever it lies, a DCGM table's row that a rule
 * reads (a pattern of alternatives between `\|\s*` and `\s*\|`, after the table's rule line),
 * when the pattern is compiled alone; the corei7 implementation finds it.
 *
 * So, once per process, the dispatched implementation is probed with text of both shapes at
 * every placement, in block and in stream mode:
 *  - it passes: it scans, one scan a chunk, databases compiled for this CPU;
 *  - it fails: the older generations the library exports under their own names (the
 *    avx2_hs_scan ... that its dispatcher chooses from, with the API's prototypes) are tried,
 *    newest first, each with databases compiled for its platform (an AVX2 implementation
 *    cannot run a database built with AVX-512 engines: it crashes), and the first that
 *    passes the same probe scans, one scan a chunk, every database compiled for its platform
 *    (pm_hs_platform);
 *  - none passes or none is exported: every chunk is scanned twice, from copies at addresses 0
 *    and 32 modulo 64, and the hits of both, sorted by their end and without repeats, are
 *    handed on: a miss confined to fewer than 32 placements cannot hide a match from both.
 *    The table's row, missed at every placement, is not cured so: the message says it may
 *    still be missed.
 * A probe that cannot be compiled or allocated shows no miss.  pm_scan_runtime() says which
 * (doctor shows it).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ruleset.h"

typedef hs_error_t scan_fn(const hs_database_t *, const char *, unsigned, unsigned, hs_scratch_t *,
			   match_event_handler, void *);
typedef hs_error_t open_fn(const hs_database_t *, unsigned, hs_stream_t **);
typedef hs_error_t scan_stream_fn(hs_stream_t *, const char *, unsigned, unsigned, hs_scratch_t *,
				  match_event_handler, void *);
typedef hs_error_t reset_fn(hs_stream_t *, unsigned, hs_scratch_t *, match_event_handler, void *);
typedef hs_error_t close_fn(hs_stream_t *, hs_scratch_t *, match_event_handler, void *);

/* One generation's entry points, and what its databases may use of the CPU. */
struct impl {
	scan_fn *scan;
	open_fn *open;
	scan_stream_fn *scan_stream;
	reset_fn *reset;
	close_fn *close;
	unsigned long long drop; /* features its databases are compiled without */
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct impl use;
static hs_platform_info_t plat;
static bool twice; /* nothing passed the probe: two placements a chunk */
static char said[256];

/* The library's version, without its build date. */
static int version_len(void)
{
	const char *v = hs_version();
	size_t n = strcspn(v, " ");

	return n > 40 ? 40 : (int)n;
}

/* The probes, each text twice, so that both a first and a later match are tried at every
 * placement:
 *  - a slurmstepd line the avx512 implementation of 5.4.9 misses at some placements;
 *  - a DCGM diagnostic's table row after its rule line, which the avx2 and avx512
 *    implementations miss at every placement, compiled alone: rules/gpu.yaml's
 *    dcgmi-diag-fail-app on DCGM 4's `| memory | Fail |` row.  In the bundled rule set's
 *    database they found it, by luck of the database's make-up (bench/README.md, ninth
 *    look); the corei7 implementation finds both, about a tenth slower. */
static const struct {
	const char *pat, *text;
} probes[] = {
	{"couldn't chdir to [`'][^']*': [A-Za-z ]+: going to /tmp instead",
	 "slurmstepd-n1: error: couldn't chdir to `/srv/work/run-17/nonexist/a folder that "
	 "is not there at all, named at length so that the line is long': No such file or "
	 "directory: going to /tmp instead\n"},
	{"\\|\\s*(?:Page Retirement/Row Remap|memory)\\s*\\|\\s*Fail\\b",
	 "+-----  Hardware  ----------+------------------------------------------------+\n"
	 "| memory                    | Fail                                           |\n"},
};
#define PROBE_HITS 2
#define PLACEMENTS 64

static int count_hit(unsigned id, unsigned long long from, unsigned long long to, unsigned flags,
		     void *ctx)
{
	(void)id;
	(void)from;
	(void)to;
	(void)flags;
	(*(int *)ctx)++;
	return 0;
}

/* Whether IM finds probe P's two matches at every placement, in block and stream mode, with
 * databases compiled for its platform.  A probe that cannot be set up (memory, a compile
 * this platform refuses) shows no miss: true. */
static bool passes_one(const struct impl *im, size_t p)
{
	size_t one = strlen(probes[p].text), len = 2 * one;
	hs_database_t *block = NULL, *stream = NULL;
	hs_scratch_t *scratch = NULL;
	hs_compile_error_t *ce = NULL;
	hs_platform_info_t pl = {0};
	/* aligned_alloc wants a size that is a multiple of the alignment */
	char *mem = aligned_alloc(64, (len + 2 * PLACEMENTS + 63) / 64 * 64);
	bool ok = mem && hs_populate_platform(&pl) == HS_SUCCESS;

	pl.cpu_features &= ~im->drop;
	ok = ok && hs_compile(probes[p].pat, 0, HS_MODE_BLOCK, &pl, &block, &ce) == HS_SUCCESS &&
	     hs_compile(probes[p].pat, 0, HS_MODE_STREAM, &pl, &stream, &ce) == HS_SUCCESS &&
	     hs_alloc_scratch(block, &scratch) == HS_SUCCESS &&
	     hs_alloc_scratch(stream, &scratch) == HS_SUCCESS;
	hs_free_compile_error(ce);
	if (!ok) { /* not tested */
		hs_free_scratch(scratch);
		hs_free_database(block);
		hs_free_database(stream);
		free(mem);
		return true;
	}
	for (int k = 0; ok && k < PLACEMENTS; k++) {
		hs_stream_t *st = NULL;
		int nb = 0, ns = 0;

		memset(mem, '\n', len + 2 * PLACEMENTS);
		memcpy(mem + k, probes[p].text, one);
		memcpy(mem + k + one, probes[p].text, one);
		ok = im->scan(block, mem + k, (unsigned)len, 0, scratch, count_hit, &nb) ==
			     HS_SUCCESS &&
		     im->open(stream, 0, &st) == HS_SUCCESS;
		if (!ok)
			break;
		ok = im->scan_stream(st, mem + k, (unsigned)len, 0, scratch, count_hit, &ns) ==
			     HS_SUCCESS &&
		     im->reset(st, 0, scratch, count_hit, &ns) == HS_SUCCESS;
		im->close(st, NULL, NULL, NULL);
		ok = ok && nb == PROBE_HITS && ns == PROBE_HITS;
	}
	hs_free_scratch(scratch);
	hs_free_database(block);
	hs_free_database(stream);
	free(mem);
	return ok;
}

/* The probes IM misses, one bit each (probe P: 1 << P); 0 when it passes every one. */
static unsigned misses(const struct impl *im)
{
	unsigned m = 0;

	for (size_t p = 0; p < sizeof(probes) / sizeof(probes[0]); p++)
		if (!passes_one(im, p))
			m |= 1u << p;
	return m;
}

/* The entry points the library exports for generation GEN ("avx2") into IM, or false. */
static bool exported(const char *gen, struct impl *im)
{
	static const char *const what[] = {"scan", "open_stream", "scan_stream", "reset_stream",
					   "close_stream"};
	void *fn[5];
	char name[64];

	for (size_t i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "%s_hs_%s", gen, what[i]);
		if (!(fn[i] = dlsym(RTLD_DEFAULT, name)))
			return false;
	}
	/* POSIX: a function's address read from dlsym's object pointer */
	memcpy(&im->scan, &fn[0], sizeof(fn[0]));
	memcpy(&im->open, &fn[1], sizeof(fn[1]));
	memcpy(&im->scan_stream, &fn[2], sizeof(fn[2]));
	memcpy(&im->reset, &fn[3], sizeof(fn[3]));
	memcpy(&im->close, &fn[4], sizeof(fn[4]));
	return true;
}

static void choose(void)
{
	static const struct {
		const char *gen;
		unsigned long long drop;
	} older[] = {
		{"avx2", HS_CPU_FEATURES_AVX512 | HS_CPU_FEATURES_AVX512VBMI},
		{"corei7",
		 HS_CPU_FEATURES_AVX2 | HS_CPU_FEATURES_AVX512 | HS_CPU_FEATURES_AVX512VBMI},
	};
	const struct impl dispatched = {hs_scan,	 hs_open_stream,  hs_scan_stream,
					hs_reset_stream, hs_close_stream, 0};
	unsigned all, m; /* the probes every implementation tried misses; one's */

	use = dispatched;
	if (hs_populate_platform(&plat) != HS_SUCCESS)
		memset(&plat, 0, sizeof(plat));
	if (!(all = misses(&dispatched))) {
		snprintf(said, sizeof(said),
			 "Vectorscan %.*s: finds a match wherever it lies; one scan a chunk",
			 version_len(), hs_version());
		return;
	}
	for (size_t i = 0; i < sizeof(older) / sizeof(older[0]); i++) {
		struct impl im;

		if (!exported(older[i].gen, &im))
			continue;
		im.drop = older[i].drop;
		m = misses(&im);
		all &= m;
		if (!m) {
			use = im;
			plat.cpu_features &= ~im.drop;
			snprintf(said, sizeof(said),
				 "Vectorscan %.*s: its own choice misses matches on this CPU (by "
				 "where the data lies, or a table's row); scanning with its %s "
				 "implementation",
				 version_len(), hs_version(), older[i].gen);
			return;
		}
	}
	/* two placements cure a miss by where the data lies, not the table row's, which every
	 * placement misses: said, so that doctor shows it */
	twice = true;
	snprintf(said, sizeof(said),
		 "Vectorscan %.*s: misses matches on this CPU (by where the data lies, or a "
		 "table's row); every chunk scanned at two placements%s",
		 version_len(), hs_version(),
		 all & 2u ? "; a DCGM table's row may still be missed" : "");
}

const hs_platform_info_t *pm_hs_platform(void)
{
	pthread_once(&once, choose);
	return &plat;
}

hs_error_t pm_hs_open(const hs_database_t *db, hs_stream_t **st)
{
	pthread_once(&once, choose);
	return use.open(db, 0, st);
}

void pm_hs_close(hs_stream_t *st)
{
	pthread_once(&once, choose);
	if (st)
		use.close(st, NULL, NULL, NULL);
}

void pm_hs_force(int how)
{
	pthread_once(&once, choose);
	if (how == PM_HS_TWICE) {
		twice = true;
		snprintf(said, sizeof(said), "every chunk scanned at two placements (forced)");
	}
}

const char *pm_scan_runtime(void)
{
	pthread_once(&once, choose);
	return said;
}

/* One placement: BUF as a block (a stream is reset after it, which also reports what ends
 * at its end). */
static hs_error_t once_at(const hs_database_t *db, hs_stream_t *st, const char *buf, size_t len,
			  hs_scratch_t *scratch, match_event_handler cb, void *ctx)
{
	hs_error_t e, r;

	if (!st)
		return use.scan(db, buf, (unsigned)len, 0, scratch, cb, ctx);
	e = use.scan_stream(st, buf, (unsigned)len, 0, scratch, cb, ctx);
	r = use.reset(st, 0, scratch, cb, ctx);
	return e != HS_SUCCESS ? e : r;
}

struct hit {
	unsigned long long to;
	unsigned id;
};

struct hits {
	struct hit *v;
	size_t n, a;
	bool oom;
};

static int keep_hit(unsigned id, unsigned long long from, unsigned long long to, unsigned flags,
		    void *ctx)
{
	struct hits *h = ctx;

	(void)from;
	(void)flags;
	if (h->n == h->a) {
		size_t na = h->a ? 2 * h->a : 64;
		void *nv = realloc(h->v, na * sizeof(*h->v));
		if (!nv) {
			h->oom = true;
			return 1;
		}
		h->v = nv;
		h->a = na;
	}
	h->v[h->n].to = to;
	h->v[h->n].id = id;
	h->n++;
	return 0;
}

static int by_end(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;

	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

hs_error_t pm_hs_chunk(const hs_database_t *db, hs_stream_t *st, const char *buf, size_t len,
		       hs_scratch_t *scratch, match_event_handler cb, void *ctx)
{
	struct hits h = {0};
	hs_error_t rc = HS_SUCCESS;
	char *mem;

	pthread_once(&once, choose);
	if (!twice)
		return once_at(db, st, buf, len, scratch, cb, ctx);
	/* one copy, placed at 0 and then at 32 modulo 64 */
	if (!(mem = aligned_alloc(64, (len + 32 + 63) / 64 * 64)))
		return HS_NOMEM;
	for (int k = 0; k < 2 && rc == HS_SUCCESS; k++) {
		memmove(mem + 32 * k, k ? mem : buf, len);
		rc = once_at(db, st, mem + 32 * k, len, scratch, keep_hit, &h);
	}
	free(mem);
	if (h.oom)
		rc = HS_NOMEM;
	if (h.n > 1)
		qsort(h.v, h.n, sizeof(*h.v), by_end);
	for (size_t i = 0; rc == HS_SUCCESS && i < h.n; i++)
		if ((i == 0 || h.v[i].to != h.v[i - 1].to || h.v[i].id != h.v[i - 1].id) &&
		    cb(h.v[i].id, 0, h.v[i].to, 0, ctx))
			rc = HS_SCAN_TERMINATED;
	free(h.v);
	return rc;
}
