/*
 * carry.c - one job output's scan result, carried in its bundle (FORMATS.md, "Carried
 * scans").
 *
 * A merge of thousands of bundles spent most of its time scanning the job's output again,
 * node by node, though each node's collector had the same bytes and could use the same rules.
 * So the collector scans its app_log captures as the merge's worker threads would (scan.c,
 * scan_one) and writes what each scan gave as one binary record beside the member; the merge
 * takes the record instead of scanning when everything the scan read besides the bytes and
 * the rules is what the merge would read, and scans as before otherwise.  A record can make a
 * merge faster, never different.
 *
 * What a job output's scan reads (bench/README.md, "Twelfth look"): the member's bytes, the
 * rule set, the engine, the file's node, rank, observation time, year and boot time (its
 * stamps), the collector's status of the capture, the input bound, and the weak node names a
 * line's prefix gives (scan.c, known_node): a weak name counts only when the evidence knows the
 * node.  The record holds all of them as its key, the weak names looked up and not known
 * beside those taken: the merge takes a record only where it knows every weak name the
 * collector took and, in file order, none of those it did not (a PyTorch output's "[c10d]"
 * reads as one, scan.c take_one).
 *
 * The record is one zstd frame (a record is mostly its lines' text: a fifth of the size, so a
 * merge of thousands holds them until its scan at little cost), which holds, all numbers
 * little-endian, strings as a 32-bit length (0xffffffff: none) and their bytes:
 *
 *	"PMSCAN2\n"
 *	key:    engine identity (its version and a digest of its sources, engine_id.h, made by
 *	        the build, and the Vectorscan and PCRE2 versions it runs with), rule set digest
 *	        (strings), member SHA-256 (32 bytes), input
 *	        bound (u64), node (string), rank (i32), observation time, boot time (f64), year
 *	        (i32), source and format (u8), status (u8), reason (string)
 *	weak:   count (u32), names (strings)
 *	absent: count (u32), names (strings)
 *	file:   status (u8), reason (string), bytes and lines added by the scan (u64)
 *	nodes:  count, names
 *	ranks:  count; rank (i32), node (string), last time, last progress, first progress
 *	        (f64), progress lines (u32)
 *	ipmap:  count; address, node (strings)
 *	obs:    count; node, pci, peer, signal, exc, raw (strings), event and observed time
 *	        (f64), offset, next (u64), seq, seqdone (i64), rule (u32), source (u8), rank,
 *	        gpu, xid, pid, code, nranks, pg (i32), repeats (u32), flags (u8: trusted,
 *	        has_time, daemon, has_label), label (i32), kept (u8)
 *
 * Reading checks every length against what is left and every rule index against the set: a
 * damaged or hostile record is not taken (the file is scanned), never trusted in part.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "engine_id.h"
#include "evidence.h"
#include "ruleset.h"

#define MAGIC "PMSCAN2\n"
#define MAGIC_LEN 8
#define NONE 0xffffffffu
#define COUNT_MAX (1u << 24)
#define RECORD_MAX (64u << 20) /* decompressed */

/* ---- writing ---- */

void pm_wbuf_put(struct pm_wbuf *w, const void *src, size_t n)
{
	if (w->failed)
		return;
	if (w->len + n > w->cap) {
		size_t cap = w->cap ? w->cap : 4096;
		unsigned char *p;

		while (cap < w->len + n)
			cap *= 2;
		if (!(p = realloc(w->p, cap))) {
			w->failed = true;
			return;
		}
		w->p = p;
		w->cap = cap;
	}
	memcpy(w->p + w->len, src, n);
	w->len += n;
}

void pm_wbuf_u64(struct pm_wbuf *w, uint64_t v)
{
	unsigned char b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	pm_wbuf_put(w, b, 8);
}

void pm_wbuf_u32(struct pm_wbuf *w, uint32_t v)
{
	unsigned char b[4];

	for (int i = 0; i < 4; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	pm_wbuf_put(w, b, 4);
}

static void put_u8(struct pm_wbuf *w, unsigned v)
{
	unsigned char b = (unsigned char)v;

	pm_wbuf_put(w, &b, 1);
}

static void put_f64(struct pm_wbuf *w, double d)
{
	uint64_t v;

	memcpy(&v, &d, sizeof(v));
	pm_wbuf_u64(w, v);
}

static void put_str(struct pm_wbuf *w, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (!s) {
		pm_wbuf_u32(w, NONE);
		return;
	}
	if (n >= NONE) {
		w->failed = true;
		return;
	}
	pm_wbuf_u32(w, (uint32_t)n);
	pm_wbuf_put(w, s, n);
}

void pm_carry_identity(char *buf, size_t len)
{
	char pcre[64] = "";

	pcre2_config(PCRE2_CONFIG_VERSION, pcre);
	snprintf(buf, len, "%s hs %s pcre2 %s", PM_ENGINE_ID, hs_version(), pcre);
}

static void put_key(struct pm_wbuf *w, const struct pm_carry_key *k)
{
	char id[256];

	pm_carry_identity(id, sizeof(id));
	pm_wbuf_put(w, MAGIC, MAGIC_LEN);
	put_str(w, id);
	put_str(w, k->rules);
	pm_wbuf_put(w, k->sha, sizeof(k->sha));
	pm_wbuf_u64(w, k->input_max);
	put_str(w, k->node);
	pm_wbuf_u32(w, (uint32_t)k->rank);
	put_f64(w, k->mtime);
	put_f64(w, k->boot);
	pm_wbuf_u32(w, (uint32_t)k->year);
	put_u8(w, (unsigned)k->source);
	put_u8(w, (unsigned)k->format);
	put_u8(w, (unsigned)k->status);
	put_str(w, k->reason);
}

int pm_carry_encode(const struct pm_carry_key *k, const struct pm_carry *c, unsigned char **out,
		    size_t *outlen)
{
	const struct pm_evidence *l = c->lev;
	struct pm_wbuf w = {0};

	put_key(&w, k);
	pm_wbuf_u32(&w, (uint32_t)c->nweak);
	for (size_t i = 0; i < c->nweak; i++)
		put_str(&w, c->weak[i]);
	pm_wbuf_u32(&w, (uint32_t)c->nabsent);
	for (size_t i = 0; i < c->nabsent; i++)
		put_str(&w, c->absent[i]);
	put_u8(&w, (unsigned)c->status);
	put_str(&w, c->reason);
	pm_wbuf_u64(&w, c->dbytes);
	pm_wbuf_u64(&w, c->dlines);
	pm_wbuf_u32(&w, (uint32_t)l->nnodes);
	for (size_t i = 0; i < l->nnodes; i++)
		put_str(&w, l->nodes[i]);
	pm_wbuf_u32(&w, (uint32_t)l->nranks);
	for (size_t i = 0; i < l->nranks; i++) {
		const struct pm_rankinfo *r = &l->ranks[i];

		pm_wbuf_u32(&w, (uint32_t)r->rank);
		put_str(&w, r->node);
		put_f64(&w, r->last_time);
		put_f64(&w, r->last_progress);
		put_f64(&w, r->first_progress);
		pm_wbuf_u32(&w, r->nprogress);
	}
	pm_wbuf_u32(&w, (uint32_t)l->nipmap);
	for (size_t i = 0; i < l->nipmap; i++) {
		put_str(&w, l->ipmap[i].ip);
		put_str(&w, l->ipmap[i].node);
	}
	pm_wbuf_u32(&w, (uint32_t)l->nobs);
	for (size_t i = 0; i < l->nobs; i++) {
		const struct pm_obs *o = &l->obs[i];

		put_str(&w, o->node);
		put_str(&w, o->pci);
		put_str(&w, o->peer);
		put_str(&w, o->signal);
		put_str(&w, o->exc);
		put_str(&w, o->raw);
		put_f64(&w, o->event_time);
		put_f64(&w, o->observed_time);
		pm_wbuf_u64(&w, o->offset);
		pm_wbuf_u64(&w, o->next);
		pm_wbuf_u64(&w, (uint64_t)o->seq);
		pm_wbuf_u64(&w, (uint64_t)o->seqdone);
		pm_wbuf_u32(&w, o->rule);
		put_u8(&w, (unsigned)o->source);
		pm_wbuf_u32(&w, (uint32_t)o->rank);
		pm_wbuf_u32(&w, (uint32_t)o->gpu);
		pm_wbuf_u32(&w, (uint32_t)o->xid);
		pm_wbuf_u32(&w, (uint32_t)o->pid);
		pm_wbuf_u32(&w, (uint32_t)o->code);
		pm_wbuf_u32(&w, (uint32_t)o->nranks);
		pm_wbuf_u32(&w, (uint32_t)o->pg);
		pm_wbuf_u32(&w, o->repeats);
		put_u8(&w, (o->trusted ? 1u : 0u) | (o->has_time ? 2u : 0u) |
				   (o->daemon ? 4u : 0u) | (o->has_label ? 8u : 0u));
		pm_wbuf_u32(&w, (uint32_t)o->label);
		put_u8(&w, c->kept[i]);
	}
	if (l->nnodes > COUNT_MAX || l->nranks > COUNT_MAX || l->nipmap > COUNT_MAX ||
	    l->nobs > COUNT_MAX || c->nweak > COUNT_MAX || c->nabsent > COUNT_MAX)
		w.failed = true;
	if (!w.failed && w.len <= RECORD_MAX) {
		size_t bound = ZSTD_compressBound(w.len), n;
		unsigned char *z = malloc(bound);

		if (z && !ZSTD_isError(n = ZSTD_compress(z, bound, w.p, w.len, 3))) {
			free(w.p);
			*out = z;
			*outlen = n;
			return 0;
		}
		free(z);
	}
	free(w.p);
	errno = ENOMEM;
	return -1;
}

/* ---- reading ---- */

struct rbuf {
	const unsigned char *p;
	size_t left;
	bool bad; /* damaged, or not what it claims */
	bool oom;
};

static const unsigned char *take(struct rbuf *r, size_t n)
{
	const unsigned char *p = r->p;

	if (r->bad || n > r->left) {
		r->bad = true;
		return NULL;
	}
	r->p += n;
	r->left -= n;
	return p;
}

static uint64_t get_u64(struct rbuf *r)
{
	const unsigned char *b = take(r, 8);
	uint64_t v = 0;

	for (int i = 0; b && i < 8; i++)
		v |= (uint64_t)b[i] << (8 * i);
	return v;
}

static uint32_t get_u32(struct rbuf *r)
{
	const unsigned char *b = take(r, 4);
	uint32_t v = 0;

	for (int i = 0; b && i < 4; i++)
		v |= (uint32_t)b[i] << (8 * i);
	return v;
}

static int32_t get_i32(struct rbuf *r)
{
	uint32_t v = get_u32(r);
	int32_t s;

	memcpy(&s, &v, sizeof(s));
	return s;
}

static unsigned get_u8(struct rbuf *r)
{
	const unsigned char *b = take(r, 1);

	return b ? *b : 0;
}

static double get_f64(struct rbuf *r)
{
	uint64_t v = get_u64(r);
	double d;

	memcpy(&d, &v, sizeof(d));
	return d;
}

/* A string in place: *S and *N (S NULL: none).  False when R is bad. */
static bool get_view(struct rbuf *r, const char **s, size_t *n)
{
	uint32_t len = get_u32(r);
	const unsigned char *p;

	*s = NULL;
	*n = 0;
	if (r->bad || len == NONE)
		return !r->bad;
	if (!(p = take(r, len)) || memchr(p, '\0', len)) {
		r->bad = true;
		return false;
	}
	*s = (const char *)p;
	*n = len;
	return true;
}

/* Whether the next string is S. */
static bool same_str(struct rbuf *r, const char *s)
{
	const char *v;
	size_t n;

	if (!get_view(r, &v, &n))
		return false;
	if (!v || !s)
		return !v && !s;
	return n == strlen(s) && !memcmp(v, s, n);
}

/* The next string, copied into *OUT (NULL: none).  -1 on a bad R (R->bad) or ENOMEM
 * (R->oom). */
static int get_str(struct rbuf *r, char **out)
{
	const char *v;
	size_t n;

	*out = NULL;
	if (!get_view(r, &v, &n))
		return -1;
	/* copied by its length: the record has no NUL after a string */
	if (v && pm_strset(out, v, n) < 0) {
		r->oom = true;
		return -1;
	}
	return 0;
}

static size_t get_count(struct rbuf *r, size_t least)
{
	uint32_t n = get_u32(r);

	/* every item takes at least LEAST bytes: a count the rest cannot hold is a lie */
	if (n > COUNT_MAX || (least && n > r->left / least))
		r->bad = true;
	return r->bad ? 0 : n;
}

/* Whether the record's key in R is K's. */
static bool key_holds(struct rbuf *r, const struct pm_carry_key *k)
{
	const unsigned char *m = take(r, MAGIC_LEN), *sha;
	char id[256];

	pm_carry_identity(id, sizeof(id));
	if (!m || memcmp(m, MAGIC, MAGIC_LEN) || !same_str(r, id) || !same_str(r, k->rules))
		return false;
	sha = take(r, sizeof(k->sha));
	if (!sha || memcmp(sha, k->sha, sizeof(k->sha)) || get_u64(r) != k->input_max ||
	    !same_str(r, k->node) || get_i32(r) != k->rank)
		return false;
	/* times as bits: the same reading of the same manifest gives the same double */
	double mt = get_f64(r), bt = get_f64(r);
	if (memcmp(&mt, &k->mtime, sizeof(mt)) || memcmp(&bt, &k->boot, sizeof(bt)) ||
	    get_i32(r) != k->year || get_u8(r) != (unsigned)k->source ||
	    get_u8(r) != (unsigned)k->format || get_u8(r) != (unsigned)k->status ||
	    !same_str(r, k->reason))
		return false;
	return !r->bad;
}

static bool known(char *const *snap, size_t nsnap, const char *name, size_t n)
{
	size_t lo = 0, hi = nsnap;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strncmp(snap[mid], name, n);

		if (!c && snap[mid][n])
			c = 1;
		if (!c)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

void pm_lev_free(struct pm_evidence *l)
{
	for (size_t k = 0; k < l->nobs; k++)
		pm_obs_free(&l->obs[k]);
	free(l->obs);
	for (size_t k = 0; k < l->nranks; k++)
		free(l->ranks[k].node);
	free(l->ranks);
	for (size_t k = 0; k < l->nnodes; k++)
		free(l->nodes[k]);
	free(l->nodes);
	for (size_t k = 0; k < l->nipmap; k++) {
		free(l->ipmap[k].ip);
		free(l->ipmap[k].node);
	}
	free(l->ipmap);
	for (size_t k = 0; k < l->nkhosts; k++)
		free(l->khosts[k]);
	free(l->khosts);
	l->khosts = NULL;
	l->nkhosts = 0;
	l->obs = NULL;
	l->ranks = NULL;
	l->nodes = NULL;
	l->ipmap = NULL;
	l->nobs = l->aobs = l->nranks = l->aranks = l->nnodes = l->anodes = 0;
	l->nipmap = l->aipmap = 0;
}

void pm_carry_clear(struct pm_carry *c)
{
	pm_lev_free(c->lev);
	free(c->kept);
	free(c->reason);
	for (size_t i = 0; i < c->nabsent; i++)
		free(c->absent[i]);
	free(c->absent);
	c->kept = NULL;
	c->reason = NULL;
	c->absent = NULL;
	c->nabsent = 0;
}

static int oom(struct rbuf *r)
{
	r->oom = true;
	return -1;
}

static int read_body(struct rbuf *r, const struct pm_ruleset *rs, struct pm_carry *c, uint32_t file)
{
	struct pm_evidence *l = c->lev;
	size_t n;

	c->status = (enum pm_status)get_u8(r);
	if (c->status >= PM_ST__COUNT || get_str(r, &c->reason) < 0)
		return -1;
	c->dbytes = get_u64(r);
	c->dlines = get_u64(r);
	if ((n = get_count(r, 4)) && !(l->nodes = calloc(n, sizeof(*l->nodes))))
		return oom(r);
	for (; l->nnodes < n; l->nnodes++)
		if (get_str(r, &l->nodes[l->nnodes]) < 0 || !l->nodes[l->nnodes])
			return -1;
	l->anodes = n;
	if ((n = get_count(r, 36)) && !(l->ranks = calloc(n, sizeof(*l->ranks))))
		return oom(r);
	for (; l->nranks < n; l->nranks++) {
		struct pm_rankinfo *ri = &l->ranks[l->nranks];

		ri->rank = get_i32(r);
		if (get_str(r, &ri->node) < 0)
			return -1;
		ri->last_time = get_f64(r);
		ri->last_progress = get_f64(r);
		ri->first_progress = get_f64(r);
		ri->nprogress = get_u32(r);
	}
	l->aranks = n;
	if ((n = get_count(r, 8)) && !(l->ipmap = calloc(n, sizeof(*l->ipmap))))
		return oom(r);
	for (; l->nipmap < n; l->nipmap++)
		if (get_str(r, &l->ipmap[l->nipmap].ip) < 0 ||
		    get_str(r, &l->ipmap[l->nipmap].node) < 0 || !l->ipmap[l->nipmap].ip ||
		    !l->ipmap[l->nipmap].node) {
			l->nipmap++; /* freed with the rest */
			return -1;
		}
	l->aipmap = n;
	if ((n = get_count(r, 115)) &&
	    (!(l->obs = calloc(n, sizeof(*l->obs))) || !(c->kept = calloc(n, 1))))
		return oom(r);
	for (; l->nobs < n; l->nobs++) {
		struct pm_obs *o = &l->obs[l->nobs];
		unsigned fl;

		o->file = file;
		o->rank = o->gpu = o->xid = o->pid = o->code = o->nranks = o->pg = o->label = -1;
		if (get_str(r, &o->node) < 0 || get_str(r, &o->pci) < 0 ||
		    get_str(r, &o->peer) < 0 || get_str(r, &o->signal) < 0 ||
		    get_str(r, &o->exc) < 0 || get_str(r, &o->raw) < 0) {
			l->nobs++;
			return -1;
		}
		o->event_time = get_f64(r);
		o->observed_time = get_f64(r);
		o->offset = get_u64(r);
		o->next = get_u64(r);
		o->seq = (long long)get_u64(r);
		o->seqdone = (long long)get_u64(r);
		o->rule = get_u32(r);
		o->source = (enum pm_source)get_u8(r);
		o->rank = get_i32(r);
		o->gpu = get_i32(r);
		o->xid = get_i32(r);
		o->pid = get_i32(r);
		o->code = get_i32(r);
		o->nranks = get_i32(r);
		o->pg = get_i32(r);
		o->repeats = get_u32(r);
		fl = get_u8(r);
		o->trusted = fl & 1u;
		o->has_time = fl & 2u;
		o->daemon = fl & 4u;
		o->has_label = fl & 8u;
		o->label = get_i32(r);
		c->kept[l->nobs] = (unsigned char)get_u8(r);
		/* what the scan of a job's output gives: its own source, never a trusted or a
		 * syslog daemon's line (scan.c, record) */
		if (r->bad || o->rule >= rs->nrules || o->source != PM_SRC_APP_LOG || o->trusted ||
		    o->daemon) {
			l->nobs++;
			return -1;
		}
	}
	l->aobs = n;
	return r->bad || r->left ? -1 : 0;
}

/* The weak names the collector's scan did not know into C->absent: -1 when one is known here
 * (in SNAP: the scan would take it as a node), R is bad or out of memory (R->oom). */
static int read_absent(struct rbuf *r, char *const *snap, size_t nsnap, struct pm_carry *c)
{
	size_t n = get_count(r, 4);

	if (n && !(c->absent = calloc(n, sizeof(*c->absent))))
		return oom(r);
	for (; c->nabsent < n; c->nabsent++) {
		const char *v;
		size_t len;

		if (!get_view(r, &v, &len) || !v || known(snap, nsnap, v, len))
			return -1;
		if (pm_strset(&c->absent[c->nabsent], v, len) < 0)
			return oom(r);
	}
	return r->bad ? -1 : 0;
}

static int decode(const unsigned char *buf, size_t len, const struct pm_carry_key *k,
		  const struct pm_ruleset *rs, char *const *snap, size_t nsnap, uint32_t file,
		  struct pm_carry *c)
{
	struct rbuf r = {buf, len, false, false};
	size_t nweak;

	if (!key_holds(&r, k))
		return 0;
	nweak = get_count(&r, 4);
	for (size_t i = 0; i < nweak; i++) {
		const char *v;
		size_t n;

		if (!get_view(&r, &v, &n) || !v || !known(snap, nsnap, v, n))
			return 0;
	}
	if (r.bad)
		return 0;
	if (read_absent(&r, snap, nsnap, c) < 0 || read_body(&r, rs, c, file) < 0) {
		pm_carry_clear(c);
		if (r.oom) {
			errno = ENOMEM;
			return -1;
		}
		return 0;
	}
	return 1;
}

/* The record in the zstd frame Z (ZLEN bytes) into *OUT (free it) and *LEN, with DC: 1; 0 when
 * it is not one frame of at most RECORD_MAX bytes; -1 on ENOMEM. */
static int unpack(ZSTD_DCtx *dc, const void *z, size_t zlen, unsigned char **out, size_t *len)
{
	unsigned long long n = ZSTD_getFrameContentSize(z, zlen);
	size_t got;

	*out = NULL;
	if (n == ZSTD_CONTENTSIZE_ERROR || n == ZSTD_CONTENTSIZE_UNKNOWN || n > RECORD_MAX ||
	    ZSTD_findFrameCompressedSize(z, zlen) != zlen)
		return 0;
	if (!(*out = malloc(n ? (size_t)n : 1)))
		return -1;
	got = ZSTD_decompressDCtx(dc, *out, (size_t)n, z, zlen);
	if (ZSTD_isError(got) || got != n) {
		free(*out);
		*out = NULL;
		return 0;
	}
	*len = got;
	return 1;
}

int pm_carry_decode(ZSTD_DCtx *dc, const void *zbuf, size_t zlen, const struct pm_carry_key *k,
		    const struct pm_ruleset *rs, char *const *snap, size_t nsnap, uint32_t file,
		    struct pm_carry *c)
{
	unsigned char *buf;
	size_t len = 0;
	int rc = unpack(dc, zbuf, zlen, &buf, &len);

	if (rc == 1) {
		rc = decode(buf, len, k, rs, snap, nsnap, file, c);
		free(buf);
	}
	return rc;
}

/* ---- a task file's records (PMTASK1) ----
 *
 * The plugin's rank map and task exits (JSON lines, two files a node) were parsed at every
 * merge; their parse reads their bytes only (parse_sched.c, pm_tasks_read), and the sniff that
 * tells their format reads their head only (scan.c, pm_sniff_given), so the collector carries
 * both results and the merge takes them for files of the same bytes read by the same engine
 * (FORMATS.md, "Carried task files").  A record:
 *
 *	"PMTASK1\n"
 *	key:   engine identity (string, as PMSCAN2's), the file's SHA-256 (32 bytes), the input
 *	       bound (u64)
 *	head:  format (u8), head year (i32), head zoned (u8), head zone (i32), head zoneless (u8)
 *	body:  one zstd frame: the records (parse_sched.c, pm_tasks_pack)
 *
 * The key and head are not compressed: a merge reading a bundle checks them to pass over the
 * file's frame (bundle.c, skip_ok), before anything is decompressed.
 */
#define TMAGIC "PMTASK1\n"

static char tid[256];
static pthread_once_t tid_once = PTHREAD_ONCE_INIT;

static void tid_make(void)
{
	pm_carry_identity(tid, sizeof(tid));
}

bool pm_tasks_head(const void *rec, size_t len, const unsigned char sha[32],
		   struct pm_tasks_head *h)
{
	struct rbuf r = {rec, len, false, false};
	const unsigned char *m = take(&r, MAGIC_LEN), *d;

	pthread_once(&tid_once, tid_make);
	if (!m || memcmp(m, TMAGIC, MAGIC_LEN) || !same_str(&r, tid))
		return false;
	d = take(&r, 32);
	if (!d || memcmp(d, sha, 32))
		return false;
	h->input_max = get_u64(&r);
	h->format = (enum pm_format)get_u8(&r);
	h->head_year = get_i32(&r);
	h->head_zoned = get_u8(&r) != 0;
	h->head_zone = get_i32(&r);
	h->head_zoneless = get_u8(&r) != 0;
	h->body = len - r.left;
	/* only a task file's format: anything else is no record of this kind */
	return !r.bad && r.left > 0 &&
	       (h->format == PM_FMT_RANK_MAP || h->format == PM_FMT_TASK_EXIT);
}

struct pm_tasks *pm_tasks_carried(ZSTD_DCtx *dc, const struct pm_file *f)
{
	struct pm_tasks_head h;
	unsigned char *buf;
	size_t len = 0;

	if (!f->carry || !f->digested || !pm_tasks_head(f->carry, f->carrylen, f->digest, &h) ||
	    h.input_max != pm_input_max() || h.format != f->format || h.head_year != f->head_year ||
	    h.head_zoned != f->head_zoned || h.head_zone != f->head_zone ||
	    h.head_zoneless != f->head_zoneless)
		return NULL;
	if (unpack(dc, f->carry + h.body, f->carrylen - h.body, &buf, &len) != 1)
		return NULL;
	return pm_tasks_unpack(buf, len); /* NULL: damaged (BUF freed) */
}

int pm_tasks_carry(const char *kind, const void *data, size_t len, void **out, size_t *outlen)
{
	struct pm_file f = {.rank = -1};
	struct pm_tasks *t = NULL;
	struct pm_sha256 c;
	struct pm_wbuf w = {0};
	unsigned char *body = NULL, d[32];
	size_t blen = 0, n = 0;
	enum pm_source s;
	char *buf = NULL;
	int rc = -1;

	*out = NULL;
	*outlen = 0;
	if (!kind || pm_source_parse(kind, &s) < 0 ||
	    (s != PM_SRC_RANK_MAP && s != PM_SRC_TASK_EXIT) || !len || len >= PM_STRUCT_CAP)
		return 0;
	/* the file as a merge has it: a bundle's member, its kind given */
	f.name = (char *)"task";
	f.mem = (void *)data;
	f.memlen = len;
	f.source = s;
	f.kind_given = true;
	f.bundled = true;
	pm_sniff_given(&f);
	if (f.status != PM_ST_OK || f.reason ||
	    (f.format != PM_FMT_RANK_MAP && f.format != PM_FMT_TASK_EXIT) ||
	    pm_format_source(f.format) != s) {
		rc = 0;
		goto out;
	}
	if (pm_file_slurp(&f, PM_STRUCT_CAP, &buf, &n) < 0) {
		rc = errno == ENOMEM ? -1 : 0;
		goto out;
	}
	if (f.status != PM_ST_OK || f.reason) { /* cut short: parsed only where it is read */
		free(buf);
		rc = 0;
		goto out;
	}
	if (!(t = pm_tasks_read(buf, n)) || pm_tasks_pack(t, &body, &blen) < 0)
		goto out;
	pm_sha256_init(&c);
	pm_sha256_update(&c, data, len);
	pm_sha256_final(&c, d);
	pthread_once(&tid_once, tid_make);
	pm_wbuf_put(&w, TMAGIC, MAGIC_LEN);
	put_str(&w, tid);
	pm_wbuf_put(&w, d, sizeof(d));
	pm_wbuf_u64(&w, pm_input_max());
	put_u8(&w, (unsigned)f.format);
	pm_wbuf_u32(&w, (uint32_t)f.head_year);
	put_u8(&w, f.head_zoned);
	pm_wbuf_u32(&w, (uint32_t)f.head_zone);
	put_u8(&w, f.head_zoneless);
	if (!w.failed && blen <= RECORD_MAX) {
		size_t bound = ZSTD_compressBound(blen), z;
		unsigned char *p = realloc(w.p, w.len + bound);

		if (!p)
			w.failed = true;
		else if (w.p = p, ZSTD_isError(z = ZSTD_compress(p + w.len, bound, body, blen, 3)))
			w.failed = true;
		else
			w.len += z;
	} else {
		w.failed = true;
	}
	if (w.failed) {
		errno = ENOMEM;
		goto out;
	}
	*out = w.p;
	*outlen = w.len;
	w.p = NULL;
	rc = 0;
out:
	free(w.p);
	free(body);
	pm_tasks_free(t);
	free(f.reason);
	return rc;
}
