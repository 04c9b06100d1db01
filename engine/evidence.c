/*
 * evidence.c - the evidence set: its files (in-memory buffers here; folders are walk.c's,
 * bundles bundle.c's, both handing it finished files), reading them through gzip or zstd
 * in bounded chunks, and the small helpers parsers use to record facts.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>
#if defined(HAVE_XXH_X86DISPATCH_H) && defined(HAVE_XXH3_128BITS_UPDATE_DISPATCH)
/* libxxhash's x86 dispatcher: AVX2 or AVX-512 where the CPU has them, SSE2 else (the plain
 * entry point is SSE2 only); the digest is the same */
#define XXH_DISPATCH_DISABLE_REPLACE
#include <xxh_x86dispatch.h>
#define xxh3_update XXH3_128bits_update_dispatch
#else
#define xxh3_update XXH3_128bits_update
#endif
#include <zlib.h>
#include <zstd.h>

#include "internal.h"
#include "evidence.h"

#define GROW(arr, n, a) ((n) < (a) ? 0 : pm_grow((void **)&(arr), &(a), sizeof(*(arr))))

int pm_grow(void **arr, size_t *alloc, size_t elem)
{
	size_t na = *alloc ? 2 * *alloc : 16;
	void *p = realloc(*arr, na * elem);

	if (!p)
		return -1;
	memset((char *)p + *alloc * elem, 0, (na - *alloc) * elem);
	*arr = p;
	*alloc = na;
	return 0;
}

int pm_grow_raw(void **arr, size_t *alloc, size_t elem)
{
	size_t na = *alloc ? 2 * *alloc : 16;
	void *p = realloc(*arr, na * elem);

	if (!p)
		return -1;
	*arr = p;
	*alloc = na;
	return 0;
}

/* Replace every byte that is not part of valid UTF-8 (or is a control character other than
 * tab) with '?', in place: evidence lines go into JSON, which must be valid UTF-8. */
void pm_utf8_clean(char *s)
{
	unsigned char *p = (unsigned char *)s;

	while (*p) {
		size_t n = 0;
		if (*p < 0x80) {
			if (*p < 0x20 && *p != '\t')
				*p = '?';
			p++;
			continue;
		}
		if ((*p & 0xe0) == 0xc0 && *p >= 0xc2)
			n = 1;
		else if ((*p & 0xf0) == 0xe0)
			n = 2;
		else if ((*p & 0xf8) == 0xf0 && *p <= 0xf4)
			n = 3;
		size_t k;
		for (k = 1; n && k <= n; k++)
			if ((p[k] & 0xc0) != 0x80)
				break;
		if (!n || k <= n) {
			*p++ = '?';
			continue;
		}
		p += n + 1;
	}
}

int pm_strset(char **dst, const char *src, size_t len)
{
	char *s;

	/* the same text again (a task file names its node on every record): kept */
	if (*dst && strlen(*dst) == len && !memcmp(*dst, src, len))
		return 0;
	if (!(s = malloc(len + 1)))
		return -1;
	memcpy(s, src, len);
	s[len] = '\0';
	free(*dst);
	*dst = s;
	return 0;
}

struct pm_evidence *pm_evidence_create(const struct pm_ruleset *rs)
{
	struct pm_evidence *ev = calloc(1, sizeof(*ev));

	if (!ev)
		return NULL;
	ev->rs = rs;
	ev->job.ntasks = -1;
	ev->job.restart = -1;
	ev->job.gpus_per_node = -1;
	ev->job.exit_code = -1;
	ev->job.exit_signal = -1;
	ev->job.user_uid = -1;
	return ev;
}

static void free_job(struct pm_jobinfo *j)
{
	free(j->id);
	free(j->cluster);
	free(j->state);
	free(j->cancelled_by);
	free(j->failed_node);
	free(j->reason);
	for (size_t i = 0; i < j->nnodes; i++)
		free(j->nodes[i]);
	free(j->nodes);
	for (size_t i = 0; i < j->ncomps; i++)
		free(j->comps[i]);
	free(j->comps);
}

void pm_obs_free(struct pm_obs *o)
{
	free(o->node);
	free(o->pci);
	free(o->peer);
	free(o->signal);
	free(o->exc);
	free(o->raw);
}

void pm_evidence_destroy(struct pm_evidence *ev)
{
	if (!ev)
		return;
	for (size_t i = 0; i < ev->nfiles; i++) {
		struct pm_file *f = &ev->files[i];
		free(f->name);
		free(f->path);
		free(f->mem);
		free(f->carry);
		pm_bundle_member_drop(f);
		free(f->node);
		free(f->reason);
		free(f->zchg);
		free(f->lhosts);
		for (unsigned k = 0; k < f->nshosts; k++)
			free(f->shosts[k]);
		free(f->shosts);
	}
	free(ev->files);
	if (ev->bundle_io_free)
		ev->bundle_io_free(ev->bundle_io);
	for (size_t i = 0; i < ev->nfacts; i++) {
		free(ev->facts[i].node);
		free(ev->facts[i].name);
		free(ev->facts[i].pci);
	}
	free(ev->facts);
	free_job(&ev->job);
	for (size_t i = 0; i < ev->ntasks; i++) {
		free(ev->tasks[i].node);
		free(ev->tasks[i].gpus);
	}
	free(ev->tasks);
	free(ev->taskix);
	for (size_t i = 0; i < ev->nsteps; i++)
		free(ev->steps[i].key);
	free(ev->steps);
	for (size_t i = 0; i < ev->ntsplit; i++) {
		free(ev->tsplit[i].node);
		free(ev->tsplit[i].gpus);
	}
	free(ev->tsplit);
	for (size_t i = 0; i < ev->nnodes; i++)
		free(ev->nodes[i]);
	free(ev->nodes);
	for (size_t i = 0; i < ev->nkhosts; i++)
		free(ev->khosts[i]);
	free(ev->khosts);
	for (size_t i = 0; i < ev->nipmap; i++) {
		free(ev->ipmap[i].ip);
		free(ev->ipmap[i].node);
	}
	free(ev->ipmap);
	for (size_t i = 0; i < ev->nranks; i++)
		free(ev->ranks[i].node);
	free(ev->ranks);
	for (size_t i = 0; i < ev->nobs; i++)
		pm_obs_free(&ev->obs[i]);
	free(ev->obs);
	for (size_t i = 0; i < ev->ncov; i++) {
		free(ev->cov[i].node);
		free(ev->cov[i].source);
		free(ev->cov[i].status);
		free(ev->cov[i].reason);
	}
	free(ev->cov);
	for (size_t i = 0; i < ev->ncollect; i++)
		free(ev->collect[i].node);
	free(ev->collect);
	free(ev);
}

/* ---- helpers for parsers ---- */

struct pm_fact *pm_ev_add_fact(struct pm_evidence *ev, size_t file, const char *node, int gpu,
			       const char *name, double value, const char *pci)
{
	struct pm_fact *f;

	if (GROW(ev->facts, ev->nfacts, ev->afacts) < 0)
		return NULL;
	f = &ev->facts[ev->nfacts];
	memset(f, 0, sizeof(*f));
	f->gpu = gpu;
	f->minor = -1;
	f->value = value;
	f->file = file;
	if ((node && !(f->node = strdup(node))) || !(f->name = strdup(name)) ||
	    (pci && !(f->pci = strdup(pci)))) {
		free(f->node);
		free(f->name);
		free(f->pci);
		return NULL;
	}
	ev->nfacts++;
	return f;
}

struct pm_jobinfo *pm_ev_job(struct pm_evidence *ev)
{
	return &ev->job;
}

static size_t task_slot(const uint32_t *ix, size_t cap, const struct pm_task *tasks, int rank)
{
	size_t i = (size_t)(((uint64_t)(unsigned)rank * 0x9e3779b97f4a7c15ULL) >> 24) & (cap - 1);

	while (ix[i] && tasks[ix[i] - 1].rank != rank)
		i = (i + 1) & (cap - 1);
	return i;
}

/* The tasks' index rebuilt with NC slots (a power of two): 0, or -1 when out of memory. */
static int taskix_resize(struct pm_evidence *ev, size_t nc)
{
	uint32_t *nx = calloc(nc, sizeof(*nx));

	if (!nx)
		return -1;
	for (size_t k = 0; k < ev->ntasks; k++)
		nx[task_slot(nx, nc, ev->tasks, ev->tasks[k].rank)] = (uint32_t)k + 1;
	free(ev->taskix);
	ev->taskix = nx;
	ev->ataskix = nc;
	return 0;
}

int pm_ev_task_reserve(struct pm_evidence *ev, size_t n)
{
	size_t nc = ev->ataskix ? ev->ataskix : 64;
	struct pm_task *t;

	if (n >= UINT32_MAX / 2)
		return 0; /* a hint: pm_ev_task refuses that many anyway */
	while (nc < 2 * n + 2)
		nc *= 2;
	if (nc > ev->ataskix && taskix_resize(ev, nc) < 0)
		return -1;
	/* not zero-filled: pm_ev_task clears each task it adds, and nothing reads past ntasks */
	if (n > ev->atasks) {
		if (!(t = realloc(ev->tasks, n * sizeof(*t))))
			return -1;
		ev->tasks = t;
		ev->atasks = n;
	}
	return 0;
}

/* The task of RANK, created when new; a job of many thousand ranks has as many records, so
 * they are found by a hash of the rank rather than by a walk through the list. */
struct pm_task *pm_ev_task(struct pm_evidence *ev, int rank)
{
	struct pm_task *t;
	size_t slot;

	if ((ev->ntasks + 1) * 2 > ev->ataskix &&
	    (ev->ntasks >= UINT32_MAX / 2 ||
	     taskix_resize(ev, ev->ataskix ? 2 * ev->ataskix : 64) < 0))
		return NULL;
	slot = task_slot(ev->taskix, ev->ataskix, ev->tasks, rank);
	if (ev->taskix[slot])
		return &ev->tasks[ev->taskix[slot] - 1];
	if (ev->ntasks == ev->atasks &&
	    pm_grow_raw((void **)&ev->tasks, &ev->atasks, sizeof(*ev->tasks)) < 0)
		return NULL;
	t = &ev->tasks[ev->ntasks++];
	memset(t, 0, sizeof(*t));
	t->rank = rank;
	t->local_rank = -1;
	t->exit_code = -1;
	ev->taskix[slot] = (uint32_t)ev->ntasks;
	return t;
}

/* A job runs a few steps: a walk from the last one named (a file's records are one step's). */
unsigned pm_ev_step(struct pm_evidence *ev, const char *key, size_t len)
{
	char *s = NULL;

	for (size_t k = ev->nsteps; k-- > 0;)
		if (!strncmp(ev->steps[k].key, key, len) && !ev->steps[k].key[len])
			return (unsigned)k + 1;
	if (ev->nsteps >= 1 << 16 || GROW(ev->steps, ev->nsteps, ev->asteps) < 0 ||
	    pm_strset(&s, key, len) < 0)
		return 0;
	ev->steps[ev->nsteps++] = (struct pm_step){s, false, 0, 0};
	return (unsigned)ev->nsteps;
}

static int find_sorted(char **v, size_t n, const char *s, size_t len, size_t *pos)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strncmp(v[mid], s, len);
		if (!c && v[mid][len])
			c = 1;
		if (!c) {
			*pos = mid;
			return 1;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*pos = lo;
	return 0;
}

int pm_ev_note_node(struct pm_evidence *ev, const char *name, size_t len)
{
	size_t pos;
	char *s = NULL;

	len = strnlen(name, len); /* a name ends at its first NUL, as every lookup reads it */
	if (!len || len > 255)
		return 0;
	if (ev->node_hint < ev->nnodes && !strncmp(ev->nodes[ev->node_hint], name, len) &&
	    !ev->nodes[ev->node_hint][len])
		return 0;
	if (find_sorted(ev->nodes, ev->nnodes, name, len, &pos)) {
		ev->node_hint = pos;
		return 0;
	}
	if (GROW(ev->nodes, ev->nnodes, ev->anodes) < 0 || pm_strset(&s, name, len) < 0)
		return -1;
	memmove(&ev->nodes[pos + 1], &ev->nodes[pos], (ev->nnodes - pos) * sizeof(char *));
	ev->nodes[pos] = s;
	ev->nnodes++;
	ev->node_hint = pos;
	return 0;
}

bool pm_ev_is_node(const struct pm_evidence *ev, const char *name, size_t len)
{
	size_t pos;

	return find_sorted(ev->nodes, ev->nnodes, name, strnlen(name, len), &pos);
}

int pm_ev_note_ip(struct pm_evidence *ev, const char *ip, size_t iplen, const char *node,
		  size_t nodelen)
{
	/* as a node name: an address ends at its first NUL, as the strlen below and every
	 * lookup read it (a copy holding one never compared equal: one more entry each time) */
	iplen = strnlen(ip, iplen);
	nodelen = strnlen(node, nodelen);
	for (size_t i = 0; i < ev->nipmap; i++)
		if (strlen(ev->ipmap[i].ip) == iplen && !memcmp(ev->ipmap[i].ip, ip, iplen))
			return 0;
	if (GROW(ev->ipmap, ev->nipmap, ev->aipmap) < 0)
		return -1;
	ev->ipmap[ev->nipmap].ip = NULL;
	ev->ipmap[ev->nipmap].node = NULL;
	if (pm_strset(&ev->ipmap[ev->nipmap].ip, ip, iplen) < 0 ||
	    pm_strset(&ev->ipmap[ev->nipmap].node, node, nodelen) < 0)
		return -1;
	ev->nipmap++;
	return 0;
}

const char *pm_ev_ip_node(const struct pm_evidence *ev, const char *ip)
{
	for (size_t i = 0; i < ev->nipmap; i++)
		if (!strcmp(ev->ipmap[i].ip, ip))
			return ev->ipmap[i].node;
	return NULL;
}

int pm_ev_add_collect(struct pm_evidence *ev, const char *node, double start, double end)
{
	if (GROW(ev->collect, ev->ncollect, ev->acollect) < 0)
		return -1;
	if (!(ev->collect[ev->ncollect].node = strdup(node)))
		return -1;
	ev->collect[ev->ncollect].end = end;
	ev->collect[ev->ncollect++].start = start;
	return 0;
}

/* ---- gathering inputs ---- */

struct pm_file *pm_ev_add_file(struct pm_evidence *ev, const char *name)
{
	struct pm_file *f;

	if (ev->nfiles == ev->afiles &&
	    pm_grow_raw((void **)&ev->files, &ev->afiles, sizeof(*ev->files)) < 0)
		return NULL;
	f = &ev->files[ev->nfiles];
	memset(f, 0, sizeof(*f));
	f->rank = -1;
	if (!(f->name = strdup(name)))
		return NULL;
	pm_utf8_clean(f->name);
	ev->nfiles++;
	return f;
}

int pm_evidence_add_buffer(struct pm_evidence *ev, const char *name, const void *buf, size_t len,
			   const char *source, const char *node, double mtime)
{
	struct pm_file *f = pm_ev_add_file(ev, name);
	enum pm_source src;

	if (!f)
		return -1;
	f->mem = malloc(len ? len : 1);
	if (!f->mem)
		return -1;
	memcpy(f->mem, buf, len);
	f->memlen = len;
	f->mtime = mtime;
	if (node && !(f->node = strdup(node)))
		return -1;
	if (source) {
		if (pm_source_parse(source, &src) < 0) {
			errno = EINVAL;
			return -1;
		}
		f->source = src;
		f->kind_given = true;
	}
	return 0;
}

int pm_evidence_bundles(const struct pm_evidence *ev)
{
	return ev->nbundles;
}

size_t pm_evidence_carried(const struct pm_evidence *ev)
{
	return ev->ncarried;
}

size_t pm_evidence_tasks_carried(const struct pm_evidence *ev)
{
	return ev->ntcarried;
}

size_t pm_evidence_held(const struct pm_evidence *ev)
{
	size_t n = 0;

	for (size_t i = 0; i < ev->nfiles; i++)
		if (ev->files[i].mem)
			n += ev->files[i].memlen;
	return n;
}

/* ---- content digests ---- */

/*
 * What an input contributes to the verdict's input_digest (FORMATS.md).  A bundle's members
 * keep SHA-256: their manifest's, checked on reading, is used as it is.  Every other input
 * (a file read from disk, a buffer a caller hands over such as the finalizer's accounting
 * record) gets XXH3-128, an identity of its bytes for telling whether a replay saw the same
 * input, at about a tenth of SHA-256's cost on the scanning path.  The same bytes get the same
 * digest however they arrive: the accounting record the finalizer read from sacct and the
 * sacct.txt of a fetched copy agree.  Such inputs carry no claim of custody (evidence that
 * must be tamper-evident travels in bundles).  The 16 bytes after an XXH3 value are a fixed
 * tag, so the two kinds of digest never meet.
 */
static const unsigned char xxh_tag[16] = "xxh3-128";

struct cdigest {
	struct pm_sha256 sha;
	XXH3_state_t *xx;
	bool fast, on;
};

static void cdigest_init(struct cdigest *d, bool fast)
{
	memset(d, 0, sizeof(*d));
	d->on = true;
	d->fast = fast;
	if (!fast) {
		pm_sha256_init(&d->sha);
	} else if ((d->xx = XXH3_createState()) && XXH3_128bits_reset(d->xx) != XXH_OK) {
		XXH3_freeState(d->xx);
		d->xx = NULL;
	}
}

static void cdigest_update(struct cdigest *d, const void *p, size_t n)
{
	if (d->fast) {
		if (d->xx)
			xxh3_update(d->xx, p, n);
	} else {
		pm_sha256_update(&d->sha, p, n);
	}
}

/* The digest into OUT (all zero if its state could not be made); frees D's state. */
static void cdigest_final(struct cdigest *d, unsigned char out[32])
{
	if (!d->on) {
		memset(out, 0, 32);
		return;
	}
	d->on = false;
	if (!d->fast) {
		pm_sha256_final(&d->sha, out);
		return;
	}
	memset(out, 0, 32);
	if (d->xx) {
		XXH128_canonical_t c;
		XXH128_canonicalFromHash(&c, XXH3_128bits_digest(d->xx));
		memcpy(out, c.digest, 16);
		memcpy(out + 16, xxh_tag, 16);
		XXH3_freeState(d->xx);
		d->xx = NULL;
	}
}

/* ---- reading: raw bytes -> (gzip|zstd) -> line-aligned chunks ---- */

enum codec { C_NONE, C_GZIP, C_ZSTD };

struct reader {
	struct pm_file *f;
	int fd;
	size_t mempos;
	enum codec codec;
	z_stream z;
	bool zinit, zdone;
	ZSTD_DCtx *zd;
	unsigned char *raw;
	size_t rawcap, rawlen, rawpos;
	bool raweof;
	struct cdigest dig;
	bool hash;
	char reason[160];
	bool truncated;
	uint64_t out, max; /* decompressed bytes handed over; the most that will be */
	bool capped;	   /* MAX reached: nothing more is read */
};

#define RAWSZ (256u << 10)

/*
 * The most text read from one input, after decompression (FORMATS.md, "Input size").  A
 * 785 KB zstd frame can hold 8 GiB: the bound is on what comes out, so that no input costs
 * more than reading this much plain text, whatever its compressed size.
 */
#define INPUT_MAX_DEFAULT (1ULL << 30)
#define INPUT_MAX_LOWEST (1ULL << 20)

/* "512M", "2GiB", "1073741824": bytes, or 0 when S is no size. */
static uint64_t parse_size(const char *s)
{
	static const char units[] = "KMGT";
	uint64_t v = 0;
	const char *u;

	if (!s || *s < '0' || *s > '9')
		return 0;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (UINT64_MAX - 9) / 10)
			return 0;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (*s && (u = strchr(units, *s & ~0x20))) {
		for (int k = 0; k <= u - units; k++) {
			if (v > UINT64_MAX / 1024)
				return 0;
			v *= 1024;
		}
		s++;
		if (*s == 'i')
			s++;
		if (*s == 'B' || *s == 'b')
			s++;
	} else if (*s == 'B' || *s == 'b') {
		s++;
	}
	return *s ? 0 : v;
}

uint64_t pm_input_max(void)
{
	uint64_t v = parse_size(getenv("POSTMORTEM_INPUT_MAX"));

	if (!v)
		return INPUT_MAX_DEFAULT;
	return v < INPUT_MAX_LOWEST ? INPUT_MAX_LOWEST : v;
}

/* A zstd frame, or a skippable frame (which a zstd stream may start with). */
static bool is_zstd(const unsigned char *b, size_t n)
{
	if (n < 4)
		return false;
	if (b[0] == 0x28 && b[1] == 0xb5 && b[2] == 0x2f && b[3] == 0xfd)
		return true;
	return (b[0] & 0xf0) == 0x50 && b[1] == 0x2a && b[2] == 0x4d && b[3] == 0x18;
}

static ssize_t raw_fill(struct reader *r)
{
	ssize_t n;

	if (r->rawpos < r->rawlen || r->raweof)
		return (ssize_t)(r->rawlen - r->rawpos);
	if (r->f->mem) {
		size_t left = r->f->memlen - r->mempos;
		n = (ssize_t)(left < r->rawcap ? left : r->rawcap);
		memcpy(r->raw, (char *)r->f->mem + r->mempos, (size_t)n);
		r->mempos += (size_t)n;
	} else {
		do
			n = read(r->fd, r->raw, RAWSZ);
		while (n < 0 && errno == EINTR);
		if (n < 0) {
			snprintf(r->reason, sizeof(r->reason), "read error: %s", strerror(errno));
			r->truncated = true;
			n = 0;
		}
	}
	if (n == 0)
		r->raweof = true;
	if (r->hash && n > 0)
		cdigest_update(&r->dig, r->raw, (size_t)n);
	r->rawlen = (size_t)n;
	r->rawpos = 0;
	return n;
}

/* Decompressed bytes into OUT; returns the count, 0 at the end. */
static size_t dec_read_raw(struct reader *r, char *out, size_t cap)
{
	size_t got = 0;

	while (got < cap) {
		if (r->codec == C_NONE && r->rawpos >= r->rawlen && !r->raweof &&
		    cap - got >= RAWSZ / 4) {
			/* plain text, nothing buffered: straight into OUT, digested there while
			 * the bytes are still in the cache */
			size_t want = cap - got < RAWSZ ? cap - got : RAWSZ;
			ssize_t n;
			if (r->f->mem) {
				size_t left = r->f->memlen - r->mempos;
				n = (ssize_t)(left < want ? left : want);
				memcpy(out + got, (char *)r->f->mem + r->mempos, (size_t)n);
				r->mempos += (size_t)n;
			} else {
				do
					n = read(r->fd, out + got, want);
				while (n < 0 && errno == EINTR);
				if (n < 0) {
					snprintf(r->reason, sizeof(r->reason), "read error: %s",
						 strerror(errno));
					r->truncated = true;
					n = 0;
				}
			}
			if (n == 0) {
				r->raweof = true;
				break;
			}
			if (r->hash)
				cdigest_update(&r->dig, out + got, (size_t)n);
			got += (size_t)n;
			continue;
		}
		if (raw_fill(r) <= 0 && r->rawpos >= r->rawlen) {
			if (r->codec == C_GZIP && r->zinit && !r->zdone && !r->truncated) {
				snprintf(r->reason, sizeof(r->reason),
					 "gzip stream ends early (truncated file)");
				r->truncated = true;
			}
			if (r->codec == C_ZSTD && r->zd && !r->zdone && !r->truncated) {
				snprintf(r->reason, sizeof(r->reason),
					 "zstd stream ends early (truncated file)");
				r->truncated = true;
			}
			break;
		}
		if (r->codec == C_NONE) {
			size_t n = r->rawlen - r->rawpos;
			if (n > cap - got)
				n = cap - got;
			memcpy(out + got, r->raw + r->rawpos, n);
			r->rawpos += n;
			got += n;
		} else if (r->codec == C_GZIP) {
			int zr;
			if (r->zdone) {
				/* concatenated gzip members: start again */
				if (inflateReset(&r->z) != Z_OK)
					break;
				r->zdone = false;
			}
			r->z.next_in = r->raw + r->rawpos;
			r->z.avail_in = (uInt)(r->rawlen - r->rawpos);
			r->z.next_out = (Bytef *)out + got;
			r->z.avail_out = (uInt)(cap - got);
			zr = inflate(&r->z, Z_NO_FLUSH);
			r->rawpos = r->rawlen - r->z.avail_in;
			got = cap - r->z.avail_out;
			if (zr == Z_STREAM_END) {
				r->zdone = true;
			} else if (zr != Z_OK && zr != Z_BUF_ERROR) {
				snprintf(r->reason, sizeof(r->reason), "gzip data is corrupt: %s",
					 r->z.msg ? r->z.msg : "error");
				r->truncated = true;
				r->raweof = true;
				r->rawpos = r->rawlen;
				break;
			}
		} else {
			ZSTD_inBuffer in = {r->raw, r->rawlen, r->rawpos};
			ZSTD_outBuffer o = {out, cap, got};
			size_t zr = ZSTD_decompressStream(r->zd, &o, &in);
			r->rawpos = in.pos;
			got = o.pos;
			if (ZSTD_isError(zr)) {
				snprintf(r->reason, sizeof(r->reason), "zstd data is corrupt: %s",
					 ZSTD_getErrorName(zr));
				r->truncated = true;
				r->raweof = true;
				r->rawpos = r->rawlen;
				break;
			}
			r->zdone = zr == 0;
		}
	}
	return got;
}

static void fmt_size(uint64_t n, char *buf, size_t len)
{
	if (n % (1ULL << 30) == 0)
		snprintf(buf, len, "%llu GiB", (unsigned long long)(n >> 30));
	else if (n % (1ULL << 20) == 0)
		snprintf(buf, len, "%llu MiB", (unsigned long long)(n >> 20));
	else
		snprintf(buf, len, "%llu bytes", (unsigned long long)n);
}

/*
 * dec_read_raw, stopped at the input's bound: once R->max bytes are out, one more byte is
 * asked for, to tell an input that ends there from one that was cut, and nothing after.
 */
static size_t dec_read(struct reader *r, char *out, size_t cap)
{
	size_t n;

	if (r->capped)
		return 0;
	if (r->out >= r->max) {
		char one, sz[32];

		r->capped = true;
		if (dec_read_raw(r, &one, 1) && !r->truncated) {
			fmt_size(r->max, sz, sizeof(sz));
			snprintf(r->reason, sizeof(r->reason),
				 "%s than %s%s: only its first %s read (POSTMORTEM_INPUT_MAX)",
				 r->codec == C_NONE ? "larger" : "more text", sz,
				 r->codec == C_GZIP ? " once gunzipped" :
				 r->codec == C_ZSTD ? " once decompressed" :
						      "",
				 sz);
			r->truncated = true;
		}
		return 0;
	}
	if (cap > r->max - r->out)
		cap = (size_t)(r->max - r->out);
	n = dec_read_raw(r, out, cap);
	r->out += n;
	return n;
}

static int reader_start(struct reader *r);

static int reader_open(struct reader *r, struct pm_file *f, bool hash)
{
	memset(r, 0, sizeof(*r));
	r->f = f;
	r->fd = -1;
	r->max = pm_input_max();
	r->hash = hash && !f->digested;
	if (r->hash)
		cdigest_init(&r->dig, true);
	if (!f->mem) {
		r->fd = open(f->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (r->fd < 0)
			return -1;
	}
	/* a bundle member is in memory already, and usually small */
	r->rawcap = f->mem && f->memlen < RAWSZ ? (f->memlen ? f->memlen : 1) : RAWSZ;
	return reader_start(r);
}

/* What reader_open does after opening: the first bytes, the codec they name. */
static int reader_start(struct reader *r)
{
	r->raw = malloc(r->rawcap);
	if (!r->raw)
		return -1;
	raw_fill(r);
	if (r->rawlen >= 2 && r->raw[0] == 0x1f && r->raw[1] == 0x8b) {
		r->codec = C_GZIP;
		if (inflateInit2(&r->z, 15 + 32) != Z_OK)
			return -1;
		r->zinit = true;
	} else if (is_zstd(r->raw, r->rawlen)) {
		r->codec = C_ZSTD;
		r->zd = ZSTD_createDCtx();
		if (!r->zd)
			return -1;
	}
	return 0;
}

static void reader_close(struct reader *r)
{
	unsigned char scratch[32];

	cdigest_final(&r->dig, scratch); /* frees a digest nobody collected */
	if (r->fd >= 0)
		close(r->fd);
	if (r->zinit)
		inflateEnd(&r->z);
	ZSTD_freeDCtx(r->zd);
	free(r->raw);
}

static void set_reason(struct pm_file *f, enum pm_status st, const char *why)
{
	if (f->status == PM_ST_OK || f->status == PM_ST_TRUNCATED)
		f->status = st;
	if (!f->reason)
		f->reason = strdup(why);
}

/* F's bytes are in memory and not compressed: they can be handed over as they are. */
static bool plain_mem(const struct pm_file *f)
{
	const unsigned char *m = f->mem;

	return m && !(f->memlen >= 2 && m[0] == 0x1f && m[1] == 0x8b) && !is_zstd(m, f->memlen);
}

void pm_file_release(struct pm_file *f)
{
	if (f->bsrc) {
		pm_bundle_member_drop(f);
		f->released = true;
	}
	if (!f->mem)
		return;
	free(f->mem);
	f->mem = NULL;
	f->memlen = 0;
	f->released = true;
}

/* The length of the run of NUL bytes BUF (LEN bytes) starts with. */
static size_t nul_run(const char *buf, size_t len)
{
	size_t i = 0;

	while (i < len && !buf[i])
		i++;
	return i;
}

/*
 * pm_file_head past a hole: a file truncated while its writer kept its offset (logrotate's
 * copytruncate, `> slurm-N.out` or `truncate -s 0` on a running job's output) reads as NUL
 * bytes up to where the writer went on, then as its text.  A NUL-only head made such a job
 * output binary and unread, its failure with it.  Reads on, within the input's bound, to the
 * first byte that is not NUL and gives the CAP bytes from there; a file that is NULs to its end
 * (or to the bound) is given as pm_file_head gives it, binary as it is.
 */
int pm_file_head_text(struct pm_file *f, char *buf, size_t cap, size_t *len)
{
	struct reader r;
	size_t n, k;
	int rc;

	rc = pm_file_head(f, buf, cap, len);
	if (rc < 0 || !*len || buf[0])
		return rc;
	k = nul_run(buf, *len);
	if (k == *len && *len < cap) /* NULs to the end */
		return 0;
	if (plain_mem(f)) {
		const char *m = f->mem;

		k = nul_run(m, f->memlen);
		if (k == f->memlen)
			return 0;
		*len = f->memlen - k < cap ? f->memlen - k : cap;
		memcpy(buf, m + k, *len);
		return 0;
	}
	if (reader_open(&r, f, false) < 0) {
		reader_close(&r);
		return 0; /* pm_file_head could read it: keep what it gave */
	}
	n = 0;
	while ((n = dec_read(&r, buf, cap)) > 0) {
		k = nul_run(buf, n);
		if (k < n)
			break;
	}
	if (n) {
		memmove(buf, buf + k, n - k);
		n -= k;
		while (n < cap && (k = dec_read(&r, buf + n, cap - n)) > 0)
			n += k;
		*len = n;
	} else {
		reader_close(&r);
		return pm_file_head(f, buf, cap, len);
	}
	reader_close(&r);
	return 0;
}

int pm_file_head(struct pm_file *f, char *buf, size_t cap, size_t *len)
{
	struct reader r;
	int rc = -1;

	*len = 0;
	if (f->released) {
		errno = ESTALE;
		return -1;
	}
	if (pm_bundle_member_load(f) < 0)
		return -1;
	if (plain_mem(f)) { /* what the reader would copy, without its buffers */
		*len = f->memlen < cap ? f->memlen : cap;
		memcpy(buf, f->mem, *len);
		return 0;
	}
	if (reader_open(&r, f, false) < 0) {
		set_reason(f, errno == EACCES || errno == EPERM ? PM_ST_DENIED : PM_ST_UNREADABLE,
			   strerror(errno));
		goto out;
	}
	*len = dec_read(&r, buf, cap);
	rc = 0;
out:
	reader_close(&r);
	return rc;
}

#define CHUNK (4u << 20)
#define MAXLINE (1u << 20)
/* What one turn of pm_file_read's loop reads while no line is longer: a chunk that stays in
 * the second-level cache through every pass over it (the line count, the cleaning check,
 * Vectorscan, the rank tally).  Whole 4 MiB chunks were read back from memory by each pass:
 * about a tenth of diagnose's CPU time on 1 GiB of job output. */
#define STEP (256u << 10)

/*
 * The most lines read from one input: one per 16 bytes of POSTMORTEM_INPUT_MAX, and never
 * fewer than 1 Mi (what an in-memory input below MAXLINE can hold).  Text has longer lines
 * than that on average, so only a stream of (nearly) empty lines meets it: 1 GiB of
 * newlines is a gigaline of per-line work that its byte count does not show.
 */
static uint64_t input_lines_max(void)
{
	uint64_t n = pm_input_max() / 16;

	return n < MAXLINE ? MAXLINE : n;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

/* The newlines in the first *DONE bytes of B (N bytes), 32 bytes a step: a byte counter per
 * lane takes the compares (255 rounds at most), summed by SAD.  Eight bytes a step was still a
 * seventh of diagnose's time on large logs.  The same pass notes in *DIRTY whether those bytes
 * hold an ESC, a CR, a 0xE2 or a 0xC2 (pm_text_dirty's bytes): the scan then need not read the chunk
 * again to know it has nothing to clean. */
__attribute__((target("avx2"))) static uint64_t count_newlines_avx2(const char *b, size_t n,
								    size_t *done, bool *dirty)
{
	const __m256i nl = _mm256_set1_epi8('\n'), zero = _mm256_setzero_si256(),
		      esc = _mm256_set1_epi8(0x1b), cr = _mm256_set1_epi8('\r'),
		      e2 = _mm256_set1_epi8((char)0xe2), c2 = _mm256_set1_epi8((char)0xc2);
	__m256i odd = zero;
	uint64_t c = 0, sum[4];
	size_t i = 0;

	while (i + 32 <= n) {
		__m256i acc = zero;
		for (int k = 0; k < 255 && i + 32 <= n; k++, i += 32) {
			__m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(b + i));
			acc = _mm256_sub_epi8(acc, _mm256_cmpeq_epi8(v, nl));
			odd = _mm256_or_si256(odd, _mm256_cmpeq_epi8(v, esc));
			odd = _mm256_or_si256(odd, _mm256_cmpeq_epi8(v, cr));
			odd = _mm256_or_si256(odd, _mm256_cmpeq_epi8(v, e2));
			odd = _mm256_or_si256(odd, _mm256_cmpeq_epi8(v, c2));
		}
		_mm256_storeu_si256((__m256i *)(void *)sum, _mm256_sad_epu8(acc, zero));
		c += sum[0] + sum[1] + sum[2] + sum[3];
	}
	*done = i;
	*dirty = _mm256_movemask_epi8(odd) != 0;
	return c;
}
#endif

/* The newlines in B (N bytes), eight bytes a step.  X, eight bytes of B xor 0x0a0a.., is zero
 * in each byte where B has a newline; ((X & 0x7f..) + 0x7f..) | X has its high bit clear
 * exactly there (no carry crosses a byte), and the product with 0x0101.. sums the per-byte
 * ones into the top byte.  A byte loop here was a fifth of diagnose's time on large logs
 * (GCC does not vectorise it at -O2); where the CPU has AVX2, the count above goes first.
 * *PLAIN: true when B is known to hold no byte pm_text_dirty looks for (AVX2 only). */
static uint64_t count_newlines(const char *b, size_t n, bool *plain)
{
	const uint64_t nl = 0x0a0a0a0a0a0a0a0aULL, lo = 0x7f7f7f7f7f7f7f7fULL;
	uint64_t c = 0, w;
	size_t i = 0;

	*plain = false;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	if (__builtin_cpu_supports("avx2")) {
		bool dirty;

		c = count_newlines_avx2(b, n, &i, &dirty);
		*plain = !dirty;
	}
#endif
	if (*plain && i < n &&
	    (memchr(b + i, 0x1b, n - i) || memchr(b + i, '\r', n - i) ||
	     memchr(b + i, 0xe2, n - i) || memchr(b + i, 0xc2, n - i)))
		*plain = false;
	for (; i + 8 <= n; i += 8) {
		memcpy(&w, b + i, 8);
		w ^= nl;
		w = ~(((w & lo) + lo) | w | lo) >> 7; /* 1 in each byte that was '\n' */
		c += (w * 0x0101010101010101ULL) >> 56;
	}
	for (; i < n; i++)
		c += b[i] == '\n';
	return c;
}

/* Of B (N bytes), the length holding at most *LEFT lines; takes the lines kept off *LEFT.
 * *PLAIN as count_newlines says it of B (false where it was not asked). */
static size_t take_lines(const char *b, size_t n, uint64_t *left, bool *plain)
{
	uint64_t c = 0;
	const char *p = b, *nl;

	*plain = false;
	if (!*left)
		return 0;
	c = count_newlines(b, n, plain); /* most chunks stop here */
	if (c < *left) {
		*left -= c;
		return n;
	}
	while ((nl = memchr(p, '\n', (size_t)(b + n - p)))) {
		p = nl + 1;
		if (--*left == 0)
			break;
	}
	return (size_t)(p - b);
}

/* A bundle member or a buffer, uncompressed, with no line that could be too long: the chunks
 * pm_file_read would give are its lines up to the last newline, then the rest; handed over
 * from where the bytes are, without copies. */
static int read_mem(struct pm_file *f, pm_chunk_fn *fn, void *arg)
{
	const char *m = f->mem, *nl = f->memlen ? memrchr(m, '\n', f->memlen) : NULL;
	size_t end = nl ? (size_t)(nl - m) + 1 : 0;

	if (!f->digested) { /* as reader_open digests it */
		struct cdigest d;
		cdigest_init(&d, true);
		cdigest_update(&d, m, f->memlen);
		cdigest_final(&d, f->digest);
	}
	f->bytes += f->memlen;
	if (end && fn(arg, m, end, 0) < 0)
		return -1;
	if (end < f->memlen && fn(arg, m + end, f->memlen - end, end) < 0)
		return -1;
	return 0;
}

/* Why F was read only in part: its line limit (LINE_CUT), the reader's cut, OVERLONG lines. */
static void read_reasons(struct pm_file *f, const struct reader *r, bool line_cut,
			 unsigned long overlong)
{
	if (line_cut) {
		char why[160];

		snprintf(why, sizeof(why),
			 "more than %llu lines: only its first %llu read (POSTMORTEM_INPUT_MAX / 16)",
			 (unsigned long long)input_lines_max(),
			 (unsigned long long)input_lines_max());
		set_reason(f, PM_ST_TRUNCATED, why);
	}
	if (r->truncated)
		set_reason(f, PM_ST_TRUNCATED, r->reason);
	if (overlong) {
		char why[96];
		snprintf(why, sizeof(why), "%lu line(s) longer than %u bytes were cut", overlong,
			 MAXLINE);
		set_reason(f, PM_ST_TRUNCATED, why);
	}
}

int pm_file_read(struct pm_file *f, pm_chunk_fn *fn, void *arg)
{
	struct reader r;
	char *buf = NULL;
	size_t have = 0, cap;
	uint64_t off = 0; /* offset of buf[0] in the decompressed text */
	uint64_t lines_left = input_lines_max();
	bool skipping = false, line_cut = false;
	unsigned long overlong = 0;

	if (f->released) {
		errno = ESTALE;
		return -1;
	}
	if (pm_bundle_member_load(f) < 0)
		return -1;
	int rc = -1;

	if (plain_mem(f) && f->memlen < MAXLINE)
		return read_mem(f, fn, arg);

	if (reader_open(&r, f, true) < 0) {
		set_reason(f, errno == EACCES || errno == EPERM ? PM_ST_DENIED : PM_ST_UNREADABLE,
			   strerror(errno));
		reader_close(&r);
		return -1;
	}
	/* plain text in memory (a bundle member) needs no more than its size: the reads and
	 * what they hand over are the same as with a whole chunk */
	cap = r.codec == C_NONE && f->mem && f->memlen < CHUNK ? f->memlen + 1 : CHUNK;
	buf = malloc(cap);
	if (!buf)
		goto out;
	for (;;) {
		size_t want = cap - have;

		if (want > STEP && have < STEP)
			want = STEP - have > STEP / 4 ? STEP - have : STEP / 4;
		size_t n = dec_read(&r, buf + have, want);
		size_t start = 0, end;
		char *nl;

		have += n;
		f->bytes += n;
		if (!have)
			break;
		if (skipping) {
			nl = memchr(buf, '\n', have);
			if (!nl) {
				off += have;
				have = 0;
				if (!n)
					break;
				continue;
			}
			start = (size_t)(nl - buf) + 1;
			memmove(buf, buf + start, have - start);
			off += start;
			have -= start;
			start = 0;
			skipping = false;
		}
		/* the last newline in the buffer ends what can be scanned now */
		end = have;
		while (end > start && buf[end - 1] != '\n')
			end--;
		if (end == start && n && have - start < MAXLINE && have < cap) {
			continue; /* a partial line: read more */
		}
		if (end == start) {
			/* no newline: end of input, or a line longer than MAXLINE */
			end = have;
			if (n && have - start >= MAXLINE) {
				overlong++;
				skipping = true;
				if (end - start > MAXLINE)
					end = start + MAXLINE;
			}
		}
		if (end > start) {
			size_t keep = take_lines(buf + start, end - start, &lines_left, &f->plain);

			if (keep < end - start) {
				end = start + keep;
				line_cut = true;
			}
		}
		int frc = end > start ? fn(arg, buf + start, end - start, off + start) : 0;

		f->plain = false;
		if (frc < 0)
			goto out;
		if (line_cut)
			break;
		if (skipping && end < have) {
			/* drop the rest of the overlong line already in the buffer */
			nl = memchr(buf + end, '\n', have - end);
			if (nl) {
				end = (size_t)(nl - buf) + 1;
				skipping = false;
			} else {
				end = have;
			}
		}
		memmove(buf, buf + end, have - end);
		off += end;
		have -= end;
		if (!n && !have)
			break;
		if (!n && have) {
			if (fn(arg, buf, have, off) < 0)
				goto out;
			off += have;
			have = 0;
			break;
		}
	}
	read_reasons(f, &r, line_cut, overlong);
	rc = 0;
out:
	if (r.hash)
		cdigest_final(&r.dig, f->digest);
	free(buf);
	reader_close(&r);
	return rc;
}

int pm_file_slurp(struct pm_file *f, size_t cap, char **out, size_t *len)
{
	struct reader r;
	char *buf;
	size_t n, a = 65536;

	*out = NULL;
	*len = 0;
	if (f->released) {
		errno = ESTALE;
		return -1;
	}
	if (pm_bundle_member_load(f) < 0)
		return -1;
	if (reader_open(&r, f, true) < 0) {
		set_reason(f, errno == EACCES || errno == EPERM ? PM_ST_DENIED : PM_ST_UNREADABLE,
			   strerror(errno));
		reader_close(&r);
		return -1;
	}
	/* a plain member in memory is read whole into a buffer of its size (a task file is 2 KB
	 * where 64 KiB were taken, times two files a node, all held by the merge's workers) */
	if (f->mem && r.codec == C_NONE && f->memlen < cap)
		a = f->memlen + 1;
	buf = malloc(a);
	while (buf) {
		if (*len == a) {
			char *nb;
			if (a >= cap)
				break;
			nb = realloc(buf, a * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			a *= 2;
		}
		n = dec_read(&r, buf + *len, a - *len);
		if (!n)
			break;
		*len += n;
	}
	if (buf && *len == a && a >= cap) {
		char tmp[4096];
		set_reason(f, PM_ST_TRUNCATED,
			   "structured input larger than the cap; the rest ignored");
		while (dec_read(&r, tmp, sizeof(tmp)))
			;
	}
	if (r.truncated)
		set_reason(f, PM_ST_TRUNCATED, r.reason);
	f->bytes = *len;
	if (r.hash)
		cdigest_final(&r.dig, f->digest);
	reader_close(&r);
	if (!buf)
		return -1;
	*out = buf;
	return 0;
}

int pm_text_stream(int fd, uint64_t max, pm_text_fn *fn, void *arg, char *why, size_t whylen)
{
	struct pm_file f = {.rank = -1};
	struct reader r;
	char *buf = NULL;
	size_t n;
	int rc = -1;

	why[0] = 0;
	memset(&r, 0, sizeof(r));
	r.f = &f;
	r.fd = fd;
	r.max = max ? max : pm_input_max();
	r.rawcap = RAWSZ;
	if (reader_start(&r) < 0 || !(buf = malloc(RAWSZ)))
		goto out;
	while ((n = dec_read(&r, buf, RAWSZ)))
		if (fn(arg, buf, n) < 0)
			goto out;
	if (r.truncated)
		snprintf(why, whylen, "%s", r.reason);
	rc = 0;
out:
	r.fd = -1; /* the caller's */
	free(buf);
	reader_close(&r);
	return rc;
}
