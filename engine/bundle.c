/*
 * bundle.c - read an evidence bundle (postmortem.bundle/1, FORMATS.md): a zstd-compressed
 * tar of regular files with relative names, manifest.json first.  Members are checked
 * against the manifest (size, sha256); a lying or hostile bundle is rejected whole, with a
 * clear error, and nothing is ever written to disk.  Every check is made before anything is
 * added to the evidence set, so that a rejected bundle leaves nothing behind.  A bundle file
 * is read once: its zstd frames are decompressed here with the evidence set's one
 * decompression context and buffers (a fresh context per bundle cost more than the rest of
 * reading a small bundle), and the file's own SHA-256 is taken on the way when the caller
 * wants it.
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "evidence.h"

#define MEMBER_MAX (256u << 20)
#define MANIFEST_MAX (16u << 20)
#define MEMBERS_MAX 4096

struct member {
	char *name;
	void *data;
	size_t len;
	bool hashed; /* D is its digest, checked against the manifest as it was read */
	unsigned char d[32];
	/* held back (DATA freed): at OFF in the bundle's tar, FMT its format */
	bool defer;
	uint64_t off;
	enum pm_format fmt;
	unsigned slot;
	bool zoned; /* ... and the offset its head's stamps carry (struct pm_file, head_zone) */
	int zone;
	bool zoneless;
	int year;   /* its head's year (struct pm_file, head_year): a task file passed over only */
	bool carry; /* a carried scan (the manifest's "scans"), checked: for its file */
	/* not decompressed: a frame of its own (COFF, CLEN in the file, CCS bytes of tar) that a
	 * carried scan stands in for; D is the manifest's digest, checked when it is read */
	bool unchecked;
	uint64_t coff;
	size_t clen, ccs;
};

/*
 * A merge of thousands of bundles held every member decompressed from the bundle's reading to
 * its scan: about 10 KiB a node of 12 KiB in a 1.6 KiB bundle, most of the merge's peak.  So
 * the members that are scanned as text (not parsed: those are read before the scan) are held
 * back: the bundle file's compressed bytes are kept instead, with each such member's place in
 * the tar, and the first read of any of them decompresses the bundle once, up to the last of
 * them, for all of them (the scan reads them one after the other).  Their format is told as
 * the bundle is read; their digests are checked then as before.
 *
 * Holding back costs the bundle's compressed bytes and a second decompression.  A member whose
 * bundle carries its scan (carry.c) is read only when the record is refused, so it does not
 * count; when the others held back are no larger than the compressed bytes, they are kept as
 * read instead (less memory, and nothing decompressed again: a node's small kernel log beside
 * its carried job output), and a member wanted after all is read from the file again and
 * its digest checked again.
 */
struct bslot {
	uint64_t off;
	size_t len;
	void *data;	     /* decompressed (or kept as read), not taken yet */
	bool attached;	     /* a file of the set holds it */
	bool done;	     /* taken or given up */
	unsigned char d[32]; /* its digest, checked again when the file is read again */
	/* a member passed over when its bundle was read (struct member, UNCHECKED): its frame,
	 * decompressed alone and checked against D when it is first wanted */
	bool unchecked;
	uint64_t coff;
	size_t clen, ccs;
};

struct dctx { /* a context and its output buffer, for one bundle at a time */
	ZSTD_DCtx *d;
	unsigned char *buf;
	size_t cap;
};

struct dpool { /* decompression contexts for held-back members, on any thread */
	pthread_mutex_t mu;
	struct dctx d[8];
	unsigned n;
};

/* A context of pool P (or none: {NULL}), and C given back to it (freed where it is full). */
static struct dctx dpool_take(struct dpool *p)
{
	struct dctx c = {NULL, NULL, 0};

	pthread_mutex_lock(&p->mu);
	if (p->n)
		c = p->d[--p->n];
	pthread_mutex_unlock(&p->mu);
	return c;
}

static void dpool_give(struct dpool *p, struct dctx c)
{
	pthread_mutex_lock(&p->mu);
	if (c.d && p->n < sizeof(p->d) / sizeof(p->d[0])) {
		p->d[p->n++] = c;
		c.d = NULL;
		c.buf = NULL;
	}
	pthread_mutex_unlock(&p->mu);
	ZSTD_freeDCtx(c.d);
	free(c.buf);
}

struct pm_bsrc {
	pthread_mutex_t mu;
	struct dpool *pool;
	unsigned char *z; /* the bundle file's bytes (NULL once every member is out) */
	size_t zlen;
	char *path; /* Z not kept: where the file is read again, when a member is wanted after all */
	int oflags;
	size_t refs; /* files attached and not done, and the reading's own until it ends */
	struct bslot *slot;
	unsigned nslot;
};

static bool safe_name(const char *n)
{
	if (!n || !*n || n[0] == '/' || strlen(n) > 1024)
		return false;
	for (const char *p = n; *p;) {
		size_t l = strcspn(p, "/");
		if ((l == 2 && !strncmp(p, "..", 2)) || (l == 1 && *p == '.') || l == 0)
			return false;
		p += l;
		if (*p == '/')
			p++;
	}
	return true;
}

static int bad(char *err, size_t errlen, const char *rel, const char *why)
{
	snprintf(err, errlen, "%s: not a valid evidence bundle: %s", rel, why);
	errno = EINVAL;
	return -1;
}

/*
 * A bundle is one input: its members together hold at most POSTMORTEM_INPUT_MAX bytes
 * (pm_input_max(), FORMATS.md "Input size").  Each member is kept whole to be checked against
 * the manifest, so a bundle past the bound is refused, not cut: a zstd frame of a few KiB can
 * claim members of hundreds of MiB each.
 */
static int too_big(char *err, size_t errlen, const char *rel, uint64_t max)
{
	char why[160];

	snprintf(why, sizeof(why),
		 "its members hold more than %llu bytes in all (POSTMORTEM_INPUT_MAX)",
		 (unsigned long long)max);
	return bad(err, errlen, rel, why);
}

double pm_bundle_time(const char *s)
{
	double t = 0;
	struct pm_timectx ctx = {.year = 1970};

	if (s && pm_time_parse(s, strlen(s), &ctx, &t) == 1)
		return t;
	return 0;
}

/* ---- the manifest's JSON ---- */

/*
 * jansson's loader reads about 30 MB/s (it was a seventh of merging 4,096 bundles); a
 * manifest is plain JSON the collector wrote, so it is read here into the same jansson
 * values, in the same key order.  Anything outside a plain subset (an escape or a byte
 * outside printable ASCII in a string, a number strtoll/strtod would not take as jansson
 * does, nesting deeper than 32, bad syntax) makes this give up, and jansson reads the text
 * as before (with its own error message).
 */
struct jp {
	const char *s;
	size_t n, i;
	int depth;
};

static void jp_ws(struct jp *p)
{
	while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' ||
			       p->s[p->i] == '\r'))
		p->i++;
}

/* A plain string's bytes (after the opening quote); false: not plain. */
static bool jp_str(struct jp *p, const char **s, size_t *len)
{
	size_t st = ++p->i;

	while (p->i < p->n) {
		unsigned char c = (unsigned char)p->s[p->i];
		if (c == '"') {
			*s = p->s + st;
			*len = p->i++ - st;
			return true;
		}
		if (c == '\\' || c < 0x20 || c >= 0x7f)
			return false;
		p->i++;
	}
	return false;
}

static json_t *jp_value(struct jp *p);

static json_t *jp_number(struct jp *p)
{
	size_t st = p->i, d;
	bool real = false;
	char num[48], *end;

	if (p->i < p->n && p->s[p->i] == '-')
		p->i++;
	if (p->i < p->n && p->s[p->i] == '0')
		p->i++;
	else if (p->i < p->n && p->s[p->i] >= '1' && p->s[p->i] <= '9')
		while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9')
			p->i++;
	else
		return NULL;
	if (p->i < p->n && p->s[p->i] == '.') {
		real = true;
		for (d = ++p->i; p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9'; p->i++)
			;
		if (p->i == d)
			return NULL;
	}
	if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
		real = true;
		if (++p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-'))
			p->i++;
		for (d = p->i; p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9'; p->i++)
			;
		if (p->i == d)
			return NULL;
	}
	if (p->i - st >= sizeof(num))
		return NULL;
	memcpy(num, p->s + st, p->i - st);
	num[p->i - st] = '\0';
	errno = 0;
	if (real) {
		double v = strtod(num, &end);
		return errno || *end || !isfinite(v) ? NULL : json_real(v);
	}
	long long v = strtoll(num, &end, 10);
	return errno || *end ? NULL : json_integer(v);
}

static json_t *jp_container(struct jp *p, bool obj)
{
	json_t *c = obj ? json_object() : json_array();

	if (!c || ++p->depth > 32)
		goto fail;
	p->i++;
	jp_ws(p);
	if (p->i < p->n && p->s[p->i] == (obj ? '}' : ']')) {
		p->i++;
		p->depth--;
		return c;
	}
	for (;;) {
		const char *k = NULL;
		size_t kl = 0;
		json_t *v;

		if (obj) {
			if (p->i >= p->n || p->s[p->i] != '"' || !jp_str(p, &k, &kl))
				goto fail;
			jp_ws(p);
			if (p->i >= p->n || p->s[p->i++] != ':')
				goto fail;
		}
		if (!(v = jp_value(p)))
			goto fail;
		if (obj ? json_object_setn_new_nocheck(c, k, kl, v) : json_array_append_new(c, v))
			goto fail;
		jp_ws(p);
		if (p->i < p->n && p->s[p->i] == ',') {
			p->i++;
			jp_ws(p);
			continue;
		}
		if (p->i < p->n && p->s[p->i] == (obj ? '}' : ']')) {
			p->i++;
			p->depth--;
			return c;
		}
		goto fail;
	}
fail:
	json_decref(c);
	return NULL;
}

static json_t *jp_value(struct jp *p)
{
	const char *s;
	size_t len;

	jp_ws(p);
	if (p->i >= p->n)
		return NULL;
	switch (p->s[p->i]) {
	case '{':
		return jp_container(p, true);
	case '[':
		return jp_container(p, false);
	case '"':
		return jp_str(p, &s, &len) ? json_stringn_nocheck(s, len) : NULL;
	case 't':
		if (p->n - p->i >= 4 && !memcmp(p->s + p->i, "true", 4)) {
			p->i += 4;
			return json_true();
		}
		return NULL;
	case 'f':
		if (p->n - p->i >= 5 && !memcmp(p->s + p->i, "false", 5)) {
			p->i += 5;
			return json_false();
		}
		return NULL;
	case 'n':
		if (p->n - p->i >= 4 && !memcmp(p->s + p->i, "null", 4)) {
			p->i += 4;
			return json_null();
		}
		return NULL;
	default:
		return jp_number(p);
	}
}

/* TEXT as jansson would read it (flags 0): the plain subset here, the rest by jansson. */
static json_t *manifest_json(const char *text, size_t len, json_error_t *je)
{
	struct jp p = {.s = text, .n = len};
	const struct lconv *lc = localeconv();
	json_t *j = NULL;

	jp_ws(&p);
	if (lc && lc->decimal_point && !strcmp(lc->decimal_point, ".") && p.i < p.n &&
	    (text[p.i] == '{' || text[p.i] == '[') && (j = jp_value(&p))) {
		jp_ws(&p);
		if (p.i == p.n)
			return j;
		json_decref(j);
	}
	return json_loadb(text, len, 0, je);
}

/* ---- the manifest, read into what the merge reads of it ----
 *
 * The merge reads about twenty fields of a manifest (a file's path, source, size, digest,
 * node, rank, time and status; the scans' and the coverage's few; the run's), and building
 * jansson's tree of all of it, looking each field up in it and freeing it cost a sixth of a
 * carried merge (bench/README.md, "Twenty-third look").  So a manifest as the collector writes
 * it (json_dumps with JSON_SORT_KEYS) is read here straight into struct mf: every object's
 * keys in strictly ascending order (so none twice), strings of printable ASCII without an
 * escape, the fields read of the type the collector writes (a string or null, an integer or
 * null, the lists of objects), every other value checked as JSON and passed over (integers
 * of at most 18 digits, reals without an exponent of more than two digits, nesting at most
 * 32 deep).  Anything else (an escape, another key order, another type, a number of another
 * form, bad syntax) gives up, and the text is read into jansson's tree as before (mf_json),
 * whose values fill the same struct as json_string_value, json_is_integer and
 * json_integer_value give them: so both readers give what the tree gave, field by field. */

struct mf_file {
	const char *path, *source, *sha256, *node, *observed, *status, *reason;
	bool bytes_int, rank_int; /* json_is_integer of "bytes", of "rank" */
	json_int_t bytes, rank;	  /* their json_integer_value (0 when not one) */
};

struct mf_scan {
	const char *path, *of, *sha256;
	bool bytes_int;
	json_int_t bytes;
};

struct mf_cov {
	const char *source, *status, *reason;
};

struct mf {
	bool read; /* a JSON object was read (else nothing below is set) */
	char *buf; /* the fast reader's copy of the text: the strings point into it */
	json_t *j; /* or jansson's tree: they point into that */
	const char *schema, *node, *job, *cluster, *boot, *cstart, *cend;
	bool restart_int;
	json_int_t restart;
	bool deadline_hit; /* collected.deadline_hit is true (json_is_true) */
	bool uid_int[3];   /* "uid", "user_uid", "job_uid" (json_is_integer, json_integer_value) */
	json_int_t uid[3];
	bool files_list, scans_list; /* "files", "scans" are arrays */
	struct mf_file *f;
	size_t nf;
	struct mf_scan *s;
	size_t ns;
	struct mf_cov *c; /* "coverage"'s elements (json_array_size of it) */
	size_t nc;
};

static void mf_free(struct mf *m)
{
	free(m->buf);
	json_decref(m->j);
	free(m->f);
	free(m->s);
	free(m->c);
	memset(m, 0, sizeof(*m));
}

struct fr {
	char *s; /* the copy, its strings NUL-terminated in place */
	size_t n, i;
};

static void fr_ws(struct fr *p)
{
	while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' ||
			       p->s[p->i] == '\r'))
		p->i++;
}

static bool fr_at(struct fr *p, char c)
{
	fr_ws(p);
	return p->i < p->n && p->s[p->i] == c;
}

/* The bytes a plain string holds: printable ASCII but the quote and the backslash. */
static const bool fr_plain[256] = {
	[0x20] = 1,
	[0x21] = 1,
	[0x23 ... 0x5b] = 1,
	[0x5d ... 0x7e] = 1,
};

/* A plain string at P (its opening quote), NUL-terminated where its closing quote was. */
static bool fr_str(struct fr *p, const char **out)
{
	size_t st;

	if (!fr_at(p, '"'))
		return false;
	st = ++p->i;
	while (p->i < p->n && fr_plain[(unsigned char)p->s[p->i]])
		p->i++;
	if (p->i == p->n || p->s[p->i] != '"')
		return false; /* an escape, a byte outside printable ASCII, or no end */
	p->s[p->i++] = '\0';
	*out = p->s + st;
	return true;
}

static bool fr_digit(const struct fr *p)
{
	return p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9';
}

/* A number at P: an integer of at most 18 digits into *V (INT set), or, when REAL, a real
 * without an exponent of more than two digits (not converted: passed over).  False for any
 * other form: jansson says what it is. */
static bool fr_num(struct fr *p, bool real, bool *isint, json_int_t *v)
{
	size_t st, nd;
	bool neg = false;
	json_int_t x = 0;

	fr_ws(p);
	if (p->i < p->n && p->s[p->i] == '-') {
		neg = true;
		p->i++;
	}
	if (!fr_digit(p))
		return false;
	st = p->i;
	if (p->s[p->i] == '0')
		p->i++;
	else
		while (fr_digit(p)) {
			if (p->i - st == 18) /* past what an int64 surely holds */
				return false;
			x = x * 10 + (p->s[p->i++] - '0');
		}
	*isint = true;
	*v = neg ? -x : x;
	if (p->i < p->n && p->s[p->i] == '.') {
		p->i++;
		for (nd = 0; fr_digit(p); nd++)
			p->i++;
		if (!nd || nd > 20)
			return false;
		*isint = false;
	}
	if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
		if (++p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-'))
			p->i++;
		for (nd = 0; fr_digit(p); nd++)
			p->i++;
		if (!nd || nd > 2)
			return false;
		*isint = false;
	}
	return *isint || real;
}

static bool fr_word(struct fr *p, const char *w)
{
	size_t l = strlen(w);

	fr_ws(p);
	if (p->n - p->i < l || memcmp(p->s + p->i, w, l))
		return false;
	p->i += l;
	return true;
}

/* The next member of a list or object at P (closed by CLOSE; *FIRST: none read yet): 1 a
 * member follows, 0 the end (read), -1 not JSON (a comma before the end is: the member read
 * after it fails). */
static int fr_next(struct fr *p, char close, bool *first)
{
	fr_ws(p);
	if (p->i >= p->n)
		return -1;
	if (p->s[p->i] == close) {
		p->i++;
		return 0;
	}
	if (*first) {
		*first = false;
		return 1;
	}
	if (p->s[p->i] != ',')
		return -1;
	p->i++;
	return 1;
}

/* An object's next key into *KEY (after *PREV, which it becomes), its colon read: false when
 * it is not a plain string, not after *PREV in strcmp's order, or no colon follows. */
static bool fr_key(struct fr *p, const char **key, const char **prev)
{
	if (!fr_str(p, key) || (*prev && strcmp(*prev, *key) >= 0) || !fr_at(p, ':'))
		return false;
	p->i++;
	*prev = *key;
	return true;
}

/* Any value at P, checked and passed over (DEPTH: the containers it is in). */
static bool fr_skip(struct fr *p, int depth)
{
	const char *s, *prev = NULL;
	bool first = true, isint;
	json_int_t v;
	int r;

	fr_ws(p);
	if (p->i >= p->n || depth > 32)
		return false;
	switch (p->s[p->i]) {
	case '"':
		return fr_str(p, &s);
	case 't':
		return fr_word(p, "true");
	case 'f':
		return fr_word(p, "false");
	case 'n':
		return fr_word(p, "null");
	case '[':
		p->i++;
		while ((r = fr_next(p, ']', &first)) > 0)
			if (!fr_skip(p, depth + 1))
				return false;
		return r == 0;
	case '{':
		p->i++;
		while ((r = fr_next(p, '}', &first)) > 0)
			if (!fr_key(p, &s, &prev) || !fr_skip(p, depth + 1))
				return false;
		return r == 0;
	default:
		return fr_num(p, true, &isint, &v);
	}
}

/* A string or null (NULL, as json_string_value gives it) into *OUT. */
static bool fr_strnull(struct fr *p, const char **out)
{
	if (fr_at(p, 'n')) {
		*out = NULL;
		return fr_word(p, "null");
	}
	return fr_str(p, out);
}

/* An integer or null into *ISINT and *V (json_is_integer, json_integer_value). */
static bool fr_intnull(struct fr *p, bool *isint, json_int_t *v)
{
	if (fr_at(p, 'n')) {
		*isint = false;
		*v = 0;
		return fr_word(p, "null");
	}
	return fr_num(p, false, isint, v);
}

/* A list of objects at P, each read by ONE into element K of *ARR (room for *ALLOC of ELEM
 * bytes, *N of them). */
static bool fr_list(struct fr *p, void **arr, size_t *n, size_t elem,
		    bool (*one)(struct fr *p, void *arr, size_t k))
{
	size_t alloc = 0;
	bool first = true;
	int r;

	if (!fr_at(p, '['))
		return false;
	p->i++;
	while ((r = fr_next(p, ']', &first)) > 0) {
		if (*n == alloc && pm_grow(arr, &alloc, elem) < 0)
			return false;
		if (!fr_at(p, '{'))
			return false;
		p->i++;
		if (!one(p, *arr, (*n)++))
			return false;
	}
	return r == 0;
}

static bool fr_file(struct fr *p, void *arr, size_t k)
{
	struct mf_file *f = (struct mf_file *)arr + k;
	const char *key, *prev = NULL;
	bool first = true, ok;
	int r;

	memset(f, 0, sizeof(*f));
	while ((r = fr_next(p, '}', &first)) > 0) {
		const char **s = NULL;

		if (!fr_key(p, &key, &prev))
			return false;
		switch (key[0]) { /* the key's first byte picks the few it can be */
		case 'n':
			s = !strcmp(key, "node") ? &f->node : NULL;
			break;
		case 'o':
			s = !strcmp(key, "observed_time") ? &f->observed : NULL;
			break;
		case 'p':
			s = !strcmp(key, "path") ? &f->path : NULL;
			break;
		case 'r':
			s = !strcmp(key, "reason") ? &f->reason : NULL;
			break;
		case 's':
			s = !strcmp(key, "sha256") ? &f->sha256 :
			    !strcmp(key, "source") ? &f->source :
			    !strcmp(key, "status") ? &f->status :
						     NULL;
			break;
		}
		if (s)
			ok = fr_strnull(p, s);
		else if (!strcmp(key, "bytes"))
			ok = fr_num(p, false, &f->bytes_int, &f->bytes);
		else if (!strcmp(key, "rank"))
			ok = fr_intnull(p, &f->rank_int, &f->rank);
		else
			ok = fr_skip(p, 3);
		if (!ok)
			return false;
	}
	return r == 0;
}

static bool fr_scan(struct fr *p, void *arr, size_t k)
{
	struct mf_scan *s = (struct mf_scan *)arr + k;
	const char *key, *prev = NULL;
	bool first = true, ok;
	int r;

	memset(s, 0, sizeof(*s));
	while ((r = fr_next(p, '}', &first)) > 0) {
		if (!fr_key(p, &key, &prev))
			return false;
		if (!strcmp(key, "bytes"))
			ok = fr_num(p, false, &s->bytes_int, &s->bytes);
		else if (!strcmp(key, "for"))
			ok = fr_strnull(p, &s->of);
		else if (!strcmp(key, "path"))
			ok = fr_strnull(p, &s->path);
		else if (!strcmp(key, "sha256"))
			ok = fr_strnull(p, &s->sha256);
		else
			ok = fr_skip(p, 3);
		if (!ok)
			return false;
	}
	return r == 0;
}

static bool fr_cov(struct fr *p, void *arr, size_t k)
{
	struct mf_cov *c = (struct mf_cov *)arr + k;
	const char *key, *prev = NULL;
	bool first = true, ok;
	int r;

	memset(c, 0, sizeof(*c));
	while ((r = fr_next(p, '}', &first)) > 0) {
		if (!fr_key(p, &key, &prev))
			return false;
		if (!strcmp(key, "reason"))
			ok = fr_strnull(p, &c->reason);
		else if (!strcmp(key, "source"))
			ok = fr_strnull(p, &c->source);
		else if (!strcmp(key, "status"))
			ok = fr_strnull(p, &c->status);
		else
			ok = fr_skip(p, 3);
		if (!ok)
			return false;
	}
	return r == 0;
}

static bool fr_collected(struct fr *p, struct mf *m)
{
	const char *key, *prev = NULL;
	bool first = true, ok;
	int r;

	if (!fr_at(p, '{'))
		return false;
	p->i++;
	while ((r = fr_next(p, '}', &first)) > 0) {
		if (!fr_key(p, &key, &prev))
			return false;
		if (!strcmp(key, "end"))
			ok = fr_strnull(p, &m->cend);
		else if (!strcmp(key, "deadline_hit"))
			ok = fr_word(p, "false") || (m->deadline_hit = fr_word(p, "true")) ||
			     fr_word(p, "null");
		else if (!strcmp(key, "start"))
			ok = fr_strnull(p, &m->cstart);
		else
			ok = fr_skip(p, 2);
		if (!ok)
			return false;
	}
	return r == 0;
}

/* TEXT (LEN bytes) read into M by the fast reader: false when it gives up (M's lists may hold
 * what was read: mf_free). */
static bool mf_fast(struct mf *m, const char *text, size_t len)
{
	struct fr p = {.n = len};
	const char *key, *prev = NULL;
	bool first = true, ok;
	int r;

	if (!(m->buf = malloc(len + 1)))
		return false;
	memcpy(m->buf, text, len);
	m->buf[len] = '\0';
	p.s = m->buf;
	if (!fr_at(&p, '{'))
		return false;
	p.i++;
	while ((r = fr_next(&p, '}', &first)) > 0) {
		if (!fr_key(&p, &key, &prev))
			return false;
		if (!strcmp(key, "boot_time")) {
			ok = fr_strnull(&p, &m->boot);
		} else if (!strcmp(key, "cluster")) {
			ok = fr_strnull(&p, &m->cluster);
		} else if (!strcmp(key, "collected")) {
			ok = fr_collected(&p, m);
		} else if (!strcmp(key, "coverage")) {
			ok = fr_list(&p, (void **)&m->c, &m->nc, sizeof(*m->c), fr_cov);
		} else if (!strcmp(key, "files")) {
			ok = fr_list(&p, (void **)&m->f, &m->nf, sizeof(*m->f), fr_file);
			m->files_list = true;
		} else if (!strcmp(key, "job")) {
			ok = fr_strnull(&p, &m->job);
		} else if (!strcmp(key, "job_uid")) {
			ok = fr_intnull(&p, &m->uid_int[2], &m->uid[2]);
		} else if (!strcmp(key, "node")) {
			ok = fr_strnull(&p, &m->node);
		} else if (!strcmp(key, "restart")) {
			ok = fr_intnull(&p, &m->restart_int, &m->restart);
		} else if (!strcmp(key, "scans")) {
			ok = fr_list(&p, (void **)&m->s, &m->ns, sizeof(*m->s), fr_scan);
			m->scans_list = true;
		} else if (!strcmp(key, "schema")) {
			ok = fr_strnull(&p, &m->schema);
		} else if (!strcmp(key, "uid")) {
			ok = fr_intnull(&p, &m->uid_int[0], &m->uid[0]);
		} else if (!strcmp(key, "user_uid")) {
			ok = fr_intnull(&p, &m->uid_int[1], &m->uid[1]);
		} else {
			ok = fr_skip(&p, 1);
		}
		if (!ok)
			return false;
	}
	fr_ws(&p);
	return r == 0 && p.i == p.n;
}

bool pm_bundle_manifest_fast(const char *text, size_t len)
{
	struct mf m = {0};
	bool fast = mf_fast(&m, text, len);

	mf_free(&m);
	return fast;
}

/* What json_string_value and json_integer_value give of X's KEY. */
static const char *jstr(const json_t *x, const char *key)
{
	return json_string_value(json_object_get(x, key));
}

static bool jint(const json_t *x, const char *key, json_int_t *v)
{
	const json_t *i = json_object_get(x, key);

	*v = json_integer_value(i);
	return json_is_integer(i);
}

/* M filled from jansson's tree J (an object, M's now): the same fields, as the tree's
 * accessors give them.  false on ENOMEM. */
static bool mf_json(struct mf *m, json_t *j)
{
	json_t *files = json_object_get(j, "files"), *scans = json_object_get(j, "scans");
	json_t *cov = json_object_get(j, "coverage"), *col = json_object_get(j, "collected"), *x;
	size_t i;

	m->j = j;
	m->schema = jstr(j, "schema");
	m->node = jstr(j, "node");
	m->job = jstr(j, "job");
	m->cluster = jstr(j, "cluster");
	m->boot = jstr(j, "boot_time");
	m->cstart = jstr(col, "start");
	m->cend = jstr(col, "end");
	m->restart_int = jint(j, "restart", &m->restart);
	m->deadline_hit = json_is_true(json_object_get(col, "deadline_hit"));
	m->uid_int[0] = jint(j, "uid", &m->uid[0]);
	m->uid_int[1] = jint(j, "user_uid", &m->uid[1]);
	m->uid_int[2] = jint(j, "job_uid", &m->uid[2]);
	m->files_list = json_is_array(files);
	m->scans_list = json_is_array(scans);
	m->nf = json_array_size(files);
	m->ns = json_array_size(scans);
	m->nc = json_array_size(cov);
	if ((m->nf && !(m->f = calloc(m->nf, sizeof(*m->f)))) ||
	    (m->ns && !(m->s = calloc(m->ns, sizeof(*m->s)))) ||
	    (m->nc && !(m->c = calloc(m->nc, sizeof(*m->c)))))
		return false;
	json_array_foreach(files, i, x)
	{
		struct mf_file *f = &m->f[i];

		f->path = jstr(x, "path");
		f->source = jstr(x, "source");
		f->sha256 = jstr(x, "sha256");
		f->node = jstr(x, "node");
		f->observed = jstr(x, "observed_time");
		f->status = jstr(x, "status");
		f->reason = jstr(x, "reason");
		f->bytes_int = jint(x, "bytes", &f->bytes);
		f->rank_int = jint(x, "rank", &f->rank);
	}
	json_array_foreach(scans, i, x)
	{
		m->s[i].path = jstr(x, "path");
		m->s[i].of = jstr(x, "for");
		m->s[i].sha256 = jstr(x, "sha256");
		m->s[i].bytes_int = jint(x, "bytes", &m->s[i].bytes);
	}
	json_array_foreach(cov, i, x)
	{
		m->c[i].source = jstr(x, "source");
		m->c[i].status = jstr(x, "status");
		m->c[i].reason = jstr(x, "reason");
	}
	return true;
}

/* The manifest TEXT (LEN bytes) into M: 1 an object (M filled), 0 not JSON or not an object
 * (*JE says what jansson said), -1 on ENOMEM. */
static int mf_read(struct mf *m, const char *text, size_t len, json_error_t *je)
{
	json_t *j;

	memset(m, 0, sizeof(*m));
	if (mf_fast(m, text, len)) {
		m->read = true;
		return 1;
	}
	mf_free(m);
	/* as jansson's loader leaves it when it reads the text without an error */
	je->line = -1;
	je->text[0] = '\0';
	j = manifest_json(text, len, je);
	if (!json_is_object(j)) {
		json_decref(j);
		return 0;
	}
	if (!mf_json(m, j)) {
		mf_free(m);
		errno = ENOMEM;
		return -1;
	}
	m->read = true;
	return 1;
}

/* One manifest entry, checked: its member and the member's SHA-256. */
struct checked {
	size_t member;
	enum pm_source source;
	unsigned char d[32];
};

/* Check manifest entry X against the members M (NM of them; TAKEN: those listed already),
 * filling CK.  0, or -1 with ERR filled. */
static int check_entry(const struct mf_file *x, const struct member *m, size_t nm, bool *taken,
		       struct checked *ck, const char *rel, char *err, size_t errlen)
{
	const char *path = x->path, *src = x->source, *sha = x->sha256;
	size_t k, found = nm;
	char hex[80];
	struct pm_sha256 c;

	if (!path || !safe_name(path) || !src || pm_source_parse(src, &ck->source) < 0)
		return bad(err, errlen, rel, "a manifest entry has a bad path or source");
	for (k = 0; k < nm; k++)
		if (!strcmp(m[k].name, path))
			found = k;	 /* the last of members of the same name, as before */
	if (found == nm || taken[found]) /* absent, or listed twice */
		return bad(err, errlen, rel, "the manifest lists a file the bundle lacks");
	taken[found] = true;
	ck->member = found;
	if (!x->bytes_int || (size_t)x->bytes != m[found].len)
		return bad(err, errlen, rel, "a member's size differs from the manifest");
	if (m[found].hashed) {
		memcpy(ck->d, m[found].d, sizeof(ck->d));
	} else if (!m[found].data) { /* passed over without a digest: never (skip_ok) */
		return bad(err, errlen, rel, "a member's checksum differs from the manifest");
	} else {
		pm_sha256_init(&c);
		pm_sha256_update(&c, m[found].data, m[found].len);
		pm_sha256_final(&c, ck->d);
	}
	pm_sha256_hex(ck->d, hex);
	if (!sha || (strcmp(sha, hex + 7) && strcmp(sha, hex)))
		return bad(err, errlen, rel, "a member's checksum differs from the manifest");
	return 0;
}

/* The run the collector filed the bundle under (manifest MAN): what an accounting record
 * would say, when none is present (a restart count the record may not carry at all).
 * 0, or -1 on ENOMEM. */
static int note_run(struct pm_evidence *ev, const struct mf *man)
{
	struct pm_jobinfo *j = pm_ev_job(ev);
	const char *id = man->job, *cl = man->cluster;

	if (j->restart < 0 && man->restart_int && man->restart >= 0 && man->restart < 1000000)
		j->restart = (int)man->restart;
	if (!j->id && id && pm_strset(&j->id, id, strlen(id)) < 0)
		return -1;
	if (!j->cluster && cl && pm_strset(&j->cluster, cl, strlen(cl)) < 0)
		return -1;
	return 0;
}

static void bsrc_unref(struct pm_bsrc *b);

/* The collector's word on the capture: capped, or cut by a timeout or the deadline (what
 * arrived before is kept: partial, still scanned). */
int pm_bundle_member_status(struct pm_file *f, const char *st, const char *why)
{
	char r[400];
	bool to;

	if (!st || (strcmp(st, "truncated") && strcmp(st, "timed_out")))
		return 0;
	to = !strcmp(st, "timed_out");
	f->status = PM_ST_TRUNCATED;
	snprintf(r, sizeof(r), "%s%s%s", to ? "timed out: " : "",
		 why && *why ? why : "capped by the collector",
		 to ? "; what came before is kept" : "");
	return pm_strset(&f->reason, r, strlen(r));
}

/*
 * A bundle's files are made ready where the bundle was read (a merge's worker, bundle.c's
 * batch) and added to the evidence in order on the caller's thread: the part that touches
 * the evidence (commit_staged) is a copy, the nodes noted and the held-back members' source
 * taken; the rest (names, the entries' fields, statuses) is stage_manifest's, off the
 * caller's thread, which a merge of thousands of bundles waits on.
 */
struct staged {
	struct pm_file *f; /* the manifest's files, in its order; BSRC set: held back */
	size_t n;
	struct pm_cov *cov; /* its coverage records, in its order */
	size_t ncov;
};

static void staged_free(struct staged *st)
{
	for (size_t i = 0; i < st->n; i++) {
		struct pm_file *f = &st->f[i];
		free(f->name);
		free(f->mem);
		free(f->carry);
		free(f->node);
		free(f->reason);
	}
	free(st->f);
	st->f = NULL;
	st->n = 0;
	for (size_t i = 0; i < st->ncov; i++) {
		free(st->cov[i].node);
		free(st->cov[i].source);
		free(st->cov[i].status);
		free(st->cov[i].reason);
	}
	free(st->cov);
	st->cov = NULL;
	st->ncov = 0;
}

/* The manifest MAN's coverage records (those with a source and a status) copied into ST, on
 * the worker that read the bundle (commit_staged moves them into the evidence).  0, or -1 on
 * ENOMEM (ST holds what was made). */
static int stage_coverage(const struct mf *man, struct staged *st)
{
	const char *node = man->node;

	if (!man->nc)
		return 0;
	if (!(st->cov = calloc(man->nc, sizeof(*st->cov))))
		return -1;
	for (size_t i = 0; i < man->nc; i++) {
		const char *src = man->c[i].source, *stt = man->c[i].status;
		const char *why = man->c[i].reason;
		struct pm_cov *c = &st->cov[st->ncov];

		if (!src || !stt)
			continue;
		st->ncov++;
		if ((node && !(c->node = strdup(node))) || !(c->source = strdup(src)) ||
		    !(c->status = strdup(stt)) || !(c->reason = strdup(why ? why : "")))
			return -1;
	}
	return 0;
}

/* File F made ready for the member MM that manifest entry X lists (checked: CK), with what
 * the entry says of it (NODE and BOOT: the bundle's; BS: where a member held back is).  0,
 * or -1 on ENOMEM. */
static int stage_member(const char *rel, const struct mf_file *x, struct member *mm,
			const struct checked *ck, const char *node, double boot, struct pm_bsrc *bs,
			struct pm_file *f)
{
	const char *path = x->path, *fnode = x->node;
	char name[1200];

	f->rank = -1;
	snprintf(name, sizeof(name), "%s/%s", rel, path);
	if (!(f->name = strdup(name)))
		return -1;
	pm_utf8_clean(f->name);
	if (mm->defer && bs) {
		f->bsrc = bs; /* its slot attached when the file is added (commit_staged) */
		f->bslot = mm->slot;
		f->format = mm->fmt;
		f->head_zoned = mm->zoned;
		f->head_zone = mm->zone;
		f->head_zoneless = mm->zoneless;
		f->head_year = mm->year;
		f->sniffed = true;
	} else {
		f->mem = mm->data;
		f->memlen = mm->len;
		mm->data = NULL;
	}
	memcpy(f->digest, ck->d, sizeof(f->digest)); /* just checked: not again */
	f->digested = true;
	f->source = ck->source;
	f->kind_given = true;
	f->bundled = true;
	f->tctx.boot_time = boot;
	f->mtime = pm_bundle_time(x->observed);
	if (x->rank_int)
		f->rank = (int)x->rank;
	if ((fnode || node) && !(f->node = strdup(fnode ? fnode : node)))
		return -1;
	return pm_bundle_member_status(f, x->status, x->reason);
}

/* The carried scans among the members M (NM), each given to the staged file its manifest
 * MAN's entry names ("for": a path of its "files", ST's file of the same index). */
static void stage_carried(const struct mf *man, struct staged *st, struct member *m, size_t nm)
{
	for (size_t i = 0; i < man->ns; i++) {
		const char *path = man->s[i].path, *of = man->s[i].of;
		struct member *mm = NULL;

		for (size_t k = 0; path && of && k < nm; k++)
			if (m[k].carry && m[k].data && !strcmp(m[k].name, path))
				mm = &m[k];
		if (!mm)
			continue;
		for (size_t j = 0; j < man->nf; j++) {
			const char *fp = man->f[j].path;
			struct pm_file *f = j < st->n ? &st->f[j] : NULL;

			if (f && fp && !strcmp(fp, of) && !f->carry) {
				f->carry = mm->data;
				f->carrylen = mm->len;
				mm->data = NULL;
				break;
			}
		}
	}
}

/* The files the manifest MAN (checked: CK) lists, with its members M (NM), made ready in ST
 * (BS: where the members held back are, NULL none); nothing of the evidence is touched.  0,
 * or -1 on ENOMEM (ST holds what was made: staged_free). */
static int stage_manifest(const char *rel, const struct mf *man, const struct checked *ck,
			  struct member *m, size_t nm, struct pm_bsrc *bs, struct staged *st)
{
	const char *node = man->node;
	double boot = pm_bundle_time(man->boot);

	st->n = 0;
	st->cov = NULL;
	st->ncov = 0;
	if (!(st->f = calloc(man->nf + 1, sizeof(*st->f))))
		return -1;
	for (size_t i = 0; i < man->nf; i++) {
		st->n = i + 1;
		if (stage_member(rel, &man->f[i], &m[ck[i].member], &ck[i], node, boot, bs,
				 &st->f[i]) < 0)
			return -1;
	}
	stage_carried(man, st, m, nm);
	return stage_coverage(man, st);
}

/* Add the bundle whose manifest is MAN and whose files ST made ready to EV: the files (moved
 * out of ST), the run, the coverage and the collector's times.  0, or -1 on ENOMEM. */
static int commit_staged(struct pm_evidence *ev, const struct mf *man, struct staged *st)
{
	const char *node = man->node;
	struct pm_bsrc *bs = NULL;
	size_t i;

	if (note_run(ev, man) < 0)
		return -1;
	while (ev->afiles - ev->nfiles < st->n)
		if (pm_grow_raw((void **)&ev->files, &ev->afiles, sizeof(*ev->files)) < 0)
			return -1;
	for (i = 0; i < st->n && !bs; i++)
		bs = st->f[i].bsrc;
	if (bs) {
		pthread_mutex_lock(&bs->mu);
		for (i = 0; i < st->n; i++)
			if (st->f[i].bsrc) {
				bs->slot[st->f[i].bslot].attached = true;
				bs->refs++;
			}
		pthread_mutex_unlock(&bs->mu);
	}
	if (st->n)
		memcpy(&ev->files[ev->nfiles], st->f, st->n * sizeof(*st->f));
	for (i = 0; i < st->n; i++) {
		const char *fn = ev->files[ev->nfiles + i].node;
		if (fn)
			pm_ev_note_node(ev, fn, strlen(fn));
	}
	ev->nfiles += st->n;
	free(st->f);
	st->f = NULL;
	st->n = 0;
	/* the coverage records made on the worker (stage_coverage), moved */
	while (ev->acov - ev->ncov < st->ncov)
		if (pm_grow_raw((void **)&ev->cov, &ev->acov, sizeof(*ev->cov)) < 0)
			return -1;
	if (st->ncov)
		memcpy(&ev->cov[ev->ncov], st->cov, st->ncov * sizeof(*st->cov));
	ev->ncov += st->ncov;
	free(st->cov);
	st->cov = NULL;
	st->ncov = 0;
	{
		double cs = pm_bundle_time(man->cstart), ce = pm_bundle_time(man->cend);
		if (node && cs > 0 && pm_ev_add_collect(ev, node, cs, ce >= cs ? ce : 0) < 0)
			return -1;
	}
	ev->nbundles++;
	return 0;
}

/* Check the manifest MTEXT (MLEN bytes; MAN, when it was read already (MAN->READ), is it, the
 * plan's; else it is read into MAN here) against the members M (NM of them): every entry,
 * before anything is added.  On success *CKP gets each entry's member and digest (free it).
 * MAN is the caller's to free (mf_free) either way.  0, or -1 with ERR filled (or errno
 * ENOMEM). */
static int check_manifest(const char *rel, const char *mtext, size_t mlen, struct mf *man,
			  const struct member *m, size_t nm, struct checked **ckp, char *err,
			  size_t errlen)
{
	struct checked *ck = NULL;
	bool *taken = NULL;
	int rc = -1;

	if (!man->read) {
		json_error_t je;
		int r = mf_read(man, mtext, mlen, &je);

		if (r < 0)
			return -1;
		if (r == 0) {
			char why[300];
			snprintf(why, sizeof(why), "manifest.json line %d: %s", je.line, je.text);
			return bad(err, errlen, rel, why);
		}
	}
	if (!man->schema || strcmp(man->schema, PM_BUNDLE_SCHEMA))
		return bad(err, errlen, rel, "manifest schema is not " PM_BUNDLE_SCHEMA);
	if (!man->files_list)
		return bad(err, errlen, rel, "manifest has no 'files' list");
	ck = calloc(man->nf + 1, sizeof(*ck));
	taken = calloc(nm + 1, sizeof(*taken));
	if (!ck || !taken)
		goto out;
	for (size_t i = 0; i < man->nf; i++)
		if (check_entry(&man->f[i], m, nm, taken, &ck[i], rel, err, errlen) < 0)
			goto out;
	*ckp = ck;
	ck = NULL;
	rc = 0;
out:
	free(ck);
	free(taken);
	return rc;
}

/* Apply the manifest to the members: add each listed file to EV with its kind.  Every entry
 * is checked first; EV is touched only when all of them hold (check_manifest). */
static int apply_manifest(struct pm_evidence *ev, const char *rel, const char *mtext, size_t mlen,
			  struct member *m, size_t nm, char *err, size_t errlen)
{
	struct mf man = {0};
	struct checked *ck = NULL;
	int rc;

	if (check_manifest(rel, mtext, mlen, &man, m, nm, &ck, err, errlen) < 0) {
		mf_free(&man);
		return -1;
	}
	{
		struct staged st = {0};
		rc = stage_manifest(rel, &man, ck, m, nm, NULL, &st);
		if (rc == 0)
			rc = commit_staged(ev, &man, &st);
		staged_free(&st);
	}
	free(ck);
	mf_free(&man);
	return rc;
}

static void free_members(struct member *m, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(m[i].name);
		free(m[i].data);
	}
	free(m);
}

/* ---- reading a bundle file once ---- */

/*
 * The manifest, once read (the collector writes it first), says what every later member
 * holds: a bundle whose manifest claims more than the input bound is refused before any
 * member is read, a listed member whose size or checksum differs is refused as soon as it
 * is met, and a member the manifest does not list (never used) is skipped, not kept.  So a
 * few KiB of zstd claiming members of hundreds of MiB cost neither that memory nor the
 * time to read and hash them all.
 */
struct plan {
	struct mf mf; /* the manifest, once met and read (MF.READ) */
	bool ok;      /* it is an object with a "files" list: the plan holds */
};

/* The manifest's entry for member NAME; NULL when it lists none. */
static const struct mf_file *plan_entry(const struct plan *pl, const char *name)
{
	for (size_t i = 0; i < pl->mf.nf; i++)
		if (pl->mf.f[i].path && !strcmp(pl->mf.f[i].path, name))
			return &pl->mf.f[i];
	return NULL;
}

/* The manifest's carried scan entry for member NAME; NULL when it lists none. */
static const struct mf_scan *plan_scan(const struct plan *pl, const char *name)
{
	for (size_t i = 0; i < pl->mf.ns; i++)
		if (pl->mf.s[i].path && !strcmp(pl->mf.s[i].path, name))
			return &pl->mf.s[i];
	return NULL;
}

/* Take the manifest M: -1 with ERR when what it claims passes MAX. */
static int plan_set(struct plan *pl, const struct member *m, uint64_t max, const char *rel,
		    char *err, size_t errlen)
{
	json_error_t je;
	uint64_t claimed = m->len;

	mf_free(&pl->mf);
	pl->ok = false;
	if (mf_read(&pl->mf, m->data, m->len, &je) <= 0 || !pl->mf.files_list) {
		mf_free(&pl->mf); /* check_manifest says what is wrong with it */
		return 0;
	}
	pl->ok = true;
	for (size_t i = 0; i < pl->mf.nf; i++) {
		json_int_t b = pl->mf.f[i].bytes;
		if (b > 0 && (claimed += (uint64_t)b) > max)
			return too_big(err, errlen, rel, max);
	}
	/* carried scans claim nothing: they are read only while the bound has room for them */
	return 0;
}

/* Check member MM, just read, against its manifest entry X (a digest kept for later). */
static int plan_check(const struct mf_file *x, struct member *mm, const char *rel, char *err,
		      size_t errlen)
{
	const char *sha = x->sha256;
	struct pm_sha256 c;
	char hex[80];

	pm_sha256_init(&c);
	pm_sha256_update(&c, mm->data, mm->len);
	pm_sha256_final(&c, mm->d);
	mm->hashed = true;
	pm_sha256_hex(mm->d, hex);
	if (!sha || (strcmp(sha, hex + 7) && strcmp(sha, hex)))
		return bad(err, errlen, rel, "a member's checksum differs from the manifest");
	return 0;
}

/* What libarchive reads: the file's bytes through the set's zstd context (or as they are,
 * for a plain tar, which libarchive accepted before as well), hashed on the way.  One per
 * evidence set (ev->bundle_io), made on its first bundle file. */
struct zframe { /* one zstd frame of a bundle file: where, and how much tar it holds */
	uint64_t coff;
	size_t clen, cs;
};

struct zsrc {
	ZSTD_DCtx *zdc;
	int fd;
	ZSTD_DCtx *dc; /* ZDC, or NULL: a plain tar */
	ZSTD_inBuffer in;
	bool eof, failed;
	struct pm_sha256 *sha; /* NULL: no file digest wanted */
	uint64_t bytes;
	/* for members held back: the file's bytes kept as read (KEEPING: while it is small), and
	 * where in the tar OBUF's bytes are (OBASE, OLEN; OUT: all handed over so far) */
	bool keeping;
	unsigned char *keep;
	size_t nkeep, akeep;
	uint64_t obase, olen, out;
	struct dpool *pool; /* the set's own zsrc's: the held-back members' contexts */
	unsigned char *tar; /* the whole tar, decompressed at once (ustar_inflate), ATAR bytes */
	size_t atar;
	struct tent *ent; /* its entries (ustar_walk), room for AENT */
	size_t aent;
	struct zframe *fr; /* a framed file's frames (frames_of), room for AFR */
	size_t afr;
	bool passed; /* framed_load passed over a frame: no member after it is held back (its
		      * bytes would come back through that frame, which nothing checked) */
	unsigned char ibuf[64u << 10];
	unsigned char obuf[128u << 10];
};

/* A bundle file is kept for its members only while this small, and a member is held back only
 * when it ends within this much of its tar: the read that brings them back is bounded. */
#define KEEP_MAX (1u << 20)

static void bundle_io_free(void *p)
{
	struct zsrc *z = p;

	if (!z)
		return;
	ZSTD_freeDCtx(z->zdc);
	free(z->keep);
	free(z->tar);
	free(z->ent);
	free(z->fr);
	if (z->pool) {
		for (unsigned k = 0; k < z->pool->n; k++) {
			ZSTD_freeDCtx(z->pool->d[k].d);
			free(z->pool->d[k].buf);
		}
		pthread_mutex_destroy(&z->pool->mu);
		free(z->pool);
	}
	free(z);
}

/* A system error on REL, errno kept. */
static int sysfail(char *err, size_t errlen, const char *rel)
{
	int en = errno;

	snprintf(err, errlen, "%s: %s", rel, strerror(en));
	errno = en;
	return -1;
}

static int zs_fill(struct archive *a, struct zsrc *z)
{
	ssize_t n;

	do
		n = read(z->fd, z->ibuf, sizeof(z->ibuf));
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		if (a)
			archive_set_error(a, errno, "read error: %s", strerror(errno));
		z->failed = true;
		return -1;
	}
	if (n == 0)
		z->eof = true;
	if (z->keeping && n > 0) {
		size_t want = z->nkeep + (size_t)n;
		unsigned char *k = z->keep;

		if (want > KEEP_MAX) {
			z->keeping = false;
		} else if (want > z->akeep && !(k = realloc(z->keep, want < 8192 ? 8192 : want))) {
			z->keeping = false;
		} else {
			if (want > z->akeep)
				z->akeep = want < 8192 ? 8192 : want;
			z->keep = k;
			memcpy(k + z->nkeep, z->ibuf, (size_t)n);
			z->nkeep = want;
		}
	}
	if (z->sha)
		pm_sha256_update(z->sha, z->ibuf, (size_t)n);
	z->bytes += (uint64_t)n;
	z->in.src = z->ibuf;
	z->in.size = (size_t)n;
	z->in.pos = 0;
	return 0;
}

static la_ssize_t zs_read(struct archive *a, void *arg, const void **out)
{
	struct zsrc *z = arg;

	for (;;) {
		ZSTD_outBuffer o = {z->obuf, sizeof(z->obuf), 0};
		size_t r;

		if (z->in.pos == z->in.size && !z->eof && zs_fill(a, z) < 0)
			return -1;
		if (!z->dc) { /* a plain tar: the bytes as they are */
			*out = z->ibuf;
			z->in.pos = z->in.size;
			return (la_ssize_t)z->in.size;
		}
		r = ZSTD_decompressStream(z->dc, &o, &z->in);
		if (ZSTD_isError(r)) {
			archive_set_error(a, EINVAL, "zstd data is corrupt: %s",
					  ZSTD_getErrorName(r));
			z->failed = true;
			return -1;
		}
		if (o.pos) {
			*out = z->obuf;
			z->obase = z->out;
			z->olen = o.pos;
			z->out += o.pos;
			return (la_ssize_t)o.pos;
		}
		if (z->eof && z->in.pos == z->in.size) {
			if (r == 0)
				return 0;
			archive_set_error(a, EINVAL, "zstd stream ends early (truncated file)");
			z->failed = true;
			return -1;
		}
	}
}

/* A tar entry as take_member sees it: from libarchive (AR), or walked in place in the whole
 * decompressed tar (ustar_read: AR NULL, DATA its bytes). */
struct tent {
	struct archive *ar;
	const char *name;
	la_int64_t size;
	unsigned type;	 /* AE_IFREG, AE_IFDIR, ... */
	la_int64_t hpos; /* where its header starts in the tar */
	const unsigned char *data;
	/* passed over (framed_load): its data is the zstd frame at COFF (CLEN bytes) of the file,
	 * CCS bytes of tar, not decompressed; DATA is NULL */
	bool skip;
	uint64_t coff;
	size_t clen, ccs;
	/* a task file passed over: its source, and its head as its record tells it (skip_ok) */
	enum pm_source src;
	struct pm_tasks_head th;
};

/* The entry's data into BUF (N bytes, its size): N, or less when it is cut short. */
static la_ssize_t tent_read(struct tent *t, void *buf, size_t n)
{
	if (t->ar)
		return archive_read_data(t->ar, buf, n);
	if (n > (size_t)t->size)
		n = (size_t)t->size;
	memcpy(buf, t->data, n);
	return (la_ssize_t)n;
}

/* Hold member MM back, read and checked against its manifest entry WANT (its data freed,
 * its place in the tar and its format noted, *NHELD counting it), when Z keeps the bundle's
 * bytes, the member is scanned as text and its bytes are in the block of the tar just
 * decompressed, after the header at the entry's start (a pax or GNU name header first,
 * maybe): where they are is found by comparing them, so it is exact. */
static void hold_back(struct tent *te, struct zsrc *z, const struct mf_file *want,
		      struct member *mm, unsigned *nheld)
{
	const char *src = want->source;
	la_int64_t h = te->ar ? archive_read_header_position(te->ar) : te->hpos;
	struct pm_file t = {.rank = -1};
	enum pm_source s;
	uint64_t off, last;
	/* where the bytes just decompressed are: libarchive's last block, or the whole tar */
	const unsigned char *blk = te->ar ? z->obuf : z->tar;
	uint64_t base = z->obase, len = z->olen;

	if (!z->dc || !z->keeping || z->passed || !mm->len || h < 0 || !src ||
	    pm_source_parse(src, &s) < 0 || !pm_source_scanned(s))
		return;
	last = (uint64_t)h + 16 * 512;
	for (off = (uint64_t)h + 512; off <= last; off += 512)
		if (off >= base && off + mm->len <= base + len &&
		    !memcmp(blk + (off - base), mm->data, mm->len))
			break;
	if (off > last || off + mm->len > KEEP_MAX)
		return;
	t.mem = mm->data;
	t.memlen = mm->len;
	t.source = s;
	t.kind_given = true;
	pm_sniff_given(&t); /* as the scan's sniffing would tell it */
	if (t.status != PM_ST_OK || t.reason) {
		free(t.reason);
		return;
	}
	mm->fmt = t.format;
	mm->zoned = t.head_zoned;
	mm->zone = t.head_zone;
	mm->zoneless = t.head_zoneless;
	mm->off = off;
	mm->defer = true;
	mm->slot = (*nheld)++;
	/* its bytes are kept until the bundle is read: bsrc_new says whether they stay */
}

/* The digest a manifest entry's SHA256 gives, as check_entry compares it (64 lower-case hex
 * digits, "sha256:" before them or not), into D: false when it is not one. */
static bool sha_of(const char *sha, unsigned char d[32])
{
	if (!sha)
		return false;
	if (!strncmp(sha, "sha256:", 7))
		sha += 7;
	for (size_t i = 0; i < 64; i++) {
		int c = (unsigned char)sha[i], v = c >= '0' && c <= '9' ? c - '0' :
						   c >= 'a' && c <= 'f' ? c - 'a' + 10 :
									  -1;
		if (v < 0)
			return false;
		if (i % 2 == 0)
			d[i / 2] = (unsigned char)(v << 4);
		else
			d[i / 2] |= (unsigned char)v;
	}
	return sha[64] == '\0';
}

/* Member MM (named, its size checked against the manifest's entry WANT) passed over, not
 * decompressed (framed_load, skip_ok): held back as hold_back holds a job's output back, its
 * digest the manifest's, its frame noted to be read and checked when it is wanted after all
 * (its record refused: pm_bundle_member_load). */
static void skip_member(const struct tent *te, const struct mf_file *want, struct member *mm,
			unsigned *nheld)
{
	struct pm_file t = {.rank = -1};

	t.source = PM_SRC_APP_LOG;
	t.kind_given = true;
	if (te->src == PM_SRC_APP_LOG) {
		pm_sniff_given(&t); /* a job output's format is its source's: no byte of it read */
	} else { /* a task file: as this engine's sniff told it to the collector (PMTASK1) */
		t.format = te->th.format;
		t.head_zoned = te->th.head_zoned;
		t.head_zone = te->th.head_zone;
		t.head_zoneless = te->th.head_zoneless;
		mm->year = te->th.head_year;
	}
	mm->len = (size_t)te->size;
	mm->hashed = sha_of(want->sha256, mm->d);
	mm->unchecked = true;
	mm->coff = te->coff;
	mm->clen = te->clen;
	mm->ccs = te->ccs;
	mm->fmt = t.format;
	mm->zoned = t.head_zoned;
	mm->zone = t.head_zone;
	mm->zoneless = t.head_zoneless;
	mm->off = (uint64_t)te->hpos + 512;
	mm->defer = true;
	mm->slot = (*nheld)++;
	free(t.reason);
}

/* Take the carried scan the manifest's entry WANT lists (SIZE bytes, being read from AR) into
 * *M (NM of them, room for AM) when it is what the entry says; else leave it: a record whose
 * size or checksum differs is not taken, and its file is scanned (a record can make a merge
 * faster, never refuse a bundle).  0, or -1 on ENOMEM. */
static int take_carried(struct tent *te, const char *name, const struct mf_scan *want,
			struct member **m, size_t *nm, size_t *am, la_int64_t size)
{
	const char *sha = want->sha256;
	struct member *mm;
	struct pm_sha256 c;
	char hex[80];
	void *data;

	if (!want->bytes_int || want->bytes != size || !size || !sha)
		return 0;
	if (!(data = malloc((size_t)size)))
		return -1;
	if (tent_read(te, data, (size_t)size) != size) {
		free(data);
		return 0; /* the next header says what is wrong with the bundle */
	}
	if (*nm == *am && pm_grow((void **)m, am, sizeof(**m)) < 0) {
		free(data);
		return -1;
	}
	mm = &(*m)[*nm];
	memset(mm, 0, sizeof(*mm));
	pm_sha256_init(&c);
	pm_sha256_update(&c, data, (size_t)size);
	pm_sha256_final(&c, mm->d);
	pm_sha256_hex(mm->d, hex);
	if (strcmp(sha, hex + 7) && strcmp(sha, hex)) {
		free(data);
		return 0;
	}
	if (!(mm->name = strdup(name))) {
		free(data);
		return -1;
	}
	mm->data = data;
	mm->len = (size_t)size;
	mm->hashed = true;
	mm->carry = true;
	(*nm)++;
	return 0;
}

/* Take the member at E into *M (NM of them, room for AM), checked against the plan PL,
 * counting its size into *TOTAL; *MI becomes the manifest's index when it is the manifest.
 * A folder, or a member the manifest does not list, is skipped; a member may be held back
 * (hold_back, *NHELD).  0, or -1 with ERR filled (or errno ENOMEM). */
static int take_member(struct tent *te, struct zsrc *z, struct member **m, size_t *nm, size_t *am,
		       size_t *mi, unsigned *nheld, struct plan *pl, uint64_t *total, uint64_t max,
		       const char *rel, char *err, size_t errlen)
{
	const char *name = te->name;
	la_int64_t size = te->size;
	struct member *mm;
	const struct mf_file *want = NULL;
	const struct mf_scan *sw;
	la_ssize_t got;

	if (!safe_name(name))
		return bad(err, errlen, rel, "a member has an absolute name or '..'");
	if (te->type != AE_IFREG) {
		if (te->type == AE_IFDIR)
			return 0;
		return bad(err, errlen, rel, "a member is not a regular file (link or device)");
	}
	/* a carried scan is no evidence: never a reason to refuse the bundle (FORMATS.md); one
	 * that does not fit what is left of the input bound, or too large, is left */
	if (pl->ok && pl->mf.scans_list && strcmp(name, "manifest.json") && !plan_entry(pl, name) &&
	    (sw = plan_scan(pl, name))) {
		if (size <= 0 || (uint64_t)size > MEMBER_MAX || *nm >= MEMBERS_MAX ||
		    *total + (uint64_t)size > max)
			return 0;
		*total += (uint64_t)size;
		return take_carried(te, name, sw, m, nm, am, size);
	}
	if (size < 0 || (uint64_t)size > MEMBER_MAX || *nm >= MEMBERS_MAX)
		return bad(err, errlen, rel, "a member is too large, or too many members");
	if ((*total += (uint64_t)size) > max)
		return too_big(err, errlen, rel, max);
	if (pl->ok && !strcmp(name, "manifest.json"))
		return bad(err, errlen, rel, "more than one manifest.json");
	if (pl->ok && !(want = plan_entry(pl, name)))
		return 0; /* not listed: never used (libarchive skips its data) */
	if (want && want->bytes != size)
		return bad(err, errlen, rel, "a member's size differs from the manifest");
	if (*nm == *am && pm_grow((void **)m, am, sizeof(**m)) < 0)
		return -1;
	mm = &(*m)[(*nm)++];
	memset(mm, 0, sizeof(*mm));
	mm->name = strdup(name);
	if (te->skip) {
		if (!mm->name)
			return -1;
		skip_member(te, want, mm, nheld);
		return 0;
	}
	mm->data = malloc(size ? (size_t)size : 1);
	if (!mm->name || !mm->data)
		return -1;
	got = size ? tent_read(te, mm->data, (size_t)size) : 0;
	if (got != size)
		return bad(err, errlen, rel, "a member is truncated or corrupt");
	mm->len = (size_t)size;
	if (want && plan_check(want, mm, rel, err, errlen) < 0)
		return -1;
	if (want)
		hold_back(te, z, want, mm, nheld);
	if (!strcmp(name, "manifest.json")) {
		*mi = *nm - 1;
		if (mm->len <= MANIFEST_MAX && plan_set(pl, mm, max, rel, err, errlen) < 0)
			return -1;
	}
	return 0;
}

/* ---- the collector's own tar, walked in place ----
 *
 * A collector's bundle (epilog/bundle_write.c: libarchive's restricted pax writer, which
 * writes plain ustar headers while names fit) is a small zstd frame: it is decompressed whole
 * and its headers read where they are, instead of through libarchive's reader (a tenth of a
 * bundle's reading: its buffers, and each name made wide and back).  Only headers libarchive
 * would read the same way are taken here: POSIX ustar ("ustar\0" "00"), a regular file
 * ('0'), a printable ASCII name NUL-terminated in its field and no prefix, every numeric
 * field plain octal, the checksum right; the tar ends at its first block of zeros, as
 * libarchive's does.  Anything else (pax or GNU headers, another type, a damaged header, a
 * tar cut short, a zstd stream that does not end cleanly, a tar larger than USTAR_MAX) sends
 * the whole file to libarchive as before, from its first byte: a bundle is refused, or
 * accepted, exactly where libarchive's reading refuses or accepts it. */

#define USTAR_MAX (4u << 20)

/* Octal field F (N bytes) written the plain way (digits, then NULs or spaces only, as
 * libarchive's own check allows): its value, or -1. */
static int64_t ustar_num(const unsigned char *f, size_t n)
{
	int64_t v = 0;
	size_t i = 0;

	for (; i < n && f[i] >= '0' && f[i] <= '7'; i++)
		v = v * 8 + (f[i] - '0');
	if (i == 0)
		return -1;
	for (; i < n; i++)
		if (f[i] != ' ' && f[i] != '\0')
			return -1;
	return v;
}

/* The header block H (512 bytes): 1 with its entry's size in *SIZE, 0 at the end (a block of
 * zeros), -1 where it is not a header taken here. */
static int ustar_head(const unsigned char *h, int64_t *sizep)
{
	static const struct {
		unsigned short off, len;
	} nums[] = {{100, 8}, {108, 8}, {116, 8}, {136, 12}, {329, 8}, {337, 8}};
	static const unsigned char zero[512], magic[8] = {'u', 's', 't', 'a', 'r', 0, '0', '0'};
	unsigned sum = 0, high = 0;
	size_t nl, i;
	int64_t size, want;

	if (!h[0]) /* the end when all of it is zeros, as libarchive's reader says */
		return memcmp(h, zero, 512) ? -1 : 0;
	if (memcmp(h + 257, magic, 8) || h[156] != '0' || h[345])
		return -1;
	nl = strnlen((const char *)h, 100);
	if (nl == 100 || h[nl - 1] == '/')
		return -1;
	for (i = 0; i < nl; i++)
		if (h[i] < 0x20 || h[i] > 0x7e)
			return -1;
	for (i = 265; i < 329; i++) /* the owner's names: ASCII */
		high |= h[i];
	for (i = 0; i < 512; i++) /* the checksum's field counts as spaces: below */
		sum += h[i];
	if (high & 0x80)
		return -1;
	for (i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
		if (ustar_num(h + nums[i].off, nums[i].len) < 0)
			return -1;
	if ((size = ustar_num(h + 124, 12)) < 0 || (want = ustar_num(h + 148, 8)) < 0)
		return -1;
	for (i = 148; i < 156; i++)
		sum += (unsigned)' ' - h[i];
	if ((int64_t)sum != want)
		return -1;
	*sizep = size;
	return 1;
}

/* The entry whose header is at T[*POS] (N bytes of tar) into *TE, *POS past its data: 1, 0 at
 * the end (a block of zeros), -1 where it is not a header taken here. */
static int ustar_next(const unsigned char *t, size_t n, size_t *pos, struct tent *te)
{
	const unsigned char *h = t + *pos;
	int64_t size;
	int r;

	if (n - *pos < 512)
		return -1;
	if ((r = ustar_head(h, &size)) <= 0)
		return r;
	if ((uint64_t)size > n - *pos - 512 || ((size_t)size + 511) / 512 * 512 > n - *pos - 512)
		return -1;
	memset(te, 0, sizeof(*te));
	te->ar = NULL;
	te->name = (const char *)h;
	te->size = size;
	te->type = AE_IFREG;
	te->hpos = (la_int64_t)*pos;
	te->data = h + 512;
	*pos += 512 + ((size_t)size + 511) / 512 * 512;
	return 1;
}

/* Z's zstd file, its first bytes read, decompressed whole into Z->TAR: its length, or 0 when
 * it is not for ustar_next (larger than USTAR_MAX, damaged, cut short, unreadable). */
static size_t ustar_inflate(struct zsrc *z)
{
	size_t n = 0, r = 1;
	bool full = false;

	for (;;) {
		ZSTD_outBuffer o;

		if (z->in.pos == z->in.size && !full) {
			if (z->eof)
				break;
			if (zs_fill(NULL, z) < 0)
				return 0;
			continue;
		}
		if (n == z->atar) {
			size_t cap = z->atar ? z->atar * 2 : 64u << 10;
			unsigned char *nb;

			if (cap > USTAR_MAX || !(nb = realloc(z->tar, cap)))
				return 0;
			z->tar = nb;
			z->atar = cap;
		}
		o = (ZSTD_outBuffer){z->tar, z->atar, n};
		r = ZSTD_decompressStream(z->dc, &o, &z->in);
		if (ZSTD_isError(r))
			return 0;
		full = o.pos == o.size;
		n = o.pos;
	}
	return r == 0 ? n : 0;
}

/* Z's tar (N bytes) into Z->ENT when it is all headers ustar_next takes, up to its end: how
 * many, or -1 (not for ustar_next, or ENOMEM). */
static ssize_t ustar_walk(struct zsrc *z, size_t n)
{
	size_t pos = 0, k = 0;
	int r;

	for (;;) {
		if (k == z->aent && pm_grow((void **)&z->ent, &z->aent, sizeof(*z->ent)) < 0)
			return -1;
		if ((r = ustar_next(z->tar, n, &pos, &z->ent[k])) <= 0)
			break;
		k++;
	}
	return r == 0 ? (ssize_t)k : -1;
}

/* A bundle file read and checked, not added yet (load): what adding it takes. */
struct pm_loaded {
	const char *rel; /* the caller's */
	int rc;		 /* 0: checked, to be added; -1: refused, ERR (or errno EN) says why */
	int en;
	char err[256];
	struct member *m;
	size_t nm;
	struct mf man;	    /* rc 0: the manifest */
	struct checked *ck; /* rc 0: its entries' members and digests */
	json_t *mout;	    /* the manifest for the caller (asked for), NULL none */
	bool brief;	    /* the brief of it asked for instead (pm_evidence_add_bundles_brief) */
	struct mf bman;	    /* ... the manifest read for it, when MAN was not (refused) */
	struct pm_bundle_brief b;
	bool has_b;   /* B is the manifest's (an object) */
	char sha[72]; /* the file's SHA-256 (asked for), "" none */
	uint64_t bytes;
	struct pm_bsrc *bsrc; /* rc 0: where the members held back are, NULL none */
	struct staged st;     /* rc 0: the files, ready to be added (commit_staged) */
};

/* ---- a bundle written as frames (FORMATS.md, "Frames"; bundle_pack.c) ----
 *
 * A collector's bundle whose job output's scan is carried has that member's data in a zstd
 * frame of its own.  Read frame by frame, the tar is walked as ustar_walk walks it and each
 * member taken as soon as it is whole; the frame of a member whose record was taken already
 * (the records come before the captures) is passed over, not decompressed nor hashed: the
 * record stands in for it, and when it is wanted after all (its record refused at the scan) it
 * is decompressed alone and checked against the manifest then (pm_bundle_member_load).  Every
 * other frame is decompressed and every other member checked as in one stream.  Anything this
 * walk does not take sends the file to libarchive from its first byte, as for ustar_walk. */

/* The stream reader's limit on a frame's window (zstd's default, which libarchive's reader
 * keeps): a frame past it is left to libarchive, which refuses it. */
#define FRAME_WINDOW_MAX (1ull << 27)

/* Whether the frame header at P (N bytes) is a plain frame whose window is within the stream
 * reader's limit (RFC 8878, 3.1.1.1). */
static bool frame_plain(const unsigned char *p, size_t n)
{
	unsigned fhd;

	if (n < 6 || memcmp(p, "\x28\xb5\x2f\xfd", 4))
		return false;
	fhd = p[4];
	if (fhd & 0x08) /* reserved */
		return false;
	if (!(fhd & 0x20)) { /* a window descriptor */
		unsigned wd = p[5];
		uint64_t base = 1ull << (10 + (wd >> 3));

		if (base + base / 8 * (wd & 7) > FRAME_WINDOW_MAX)
			return false;
	}
	return true;
}

/* Z's file, all of it in Z->KEEP, as zstd frames into Z->FR: how many, or 0 when it is not for
 * framed_load (one frame, a frame that does not give its size or is not a plain one, bytes
 * that are no frame, more than USTAR_MAX bytes of tar, ENOMEM). */
static size_t frames_of(struct zsrc *z)
{
	size_t pos = 0, k = 0;
	uint64_t tar = 0;

	while (pos < z->nkeep) {
		const unsigned char *p = z->keep + pos;
		size_t left = z->nkeep - pos, fs = ZSTD_findFrameCompressedSize(p, left);
		unsigned long long cs;

		if (ZSTD_isError(fs) || !frame_plain(p, fs))
			return 0;
		cs = ZSTD_getFrameContentSize(p, fs);
		if (cs == ZSTD_CONTENTSIZE_UNKNOWN || cs == ZSTD_CONTENTSIZE_ERROR ||
		    (tar += cs) > USTAR_MAX)
			return 0;
		if (k == z->afr && pm_grow((void **)&z->fr, &z->afr, sizeof(*z->fr)) < 0)
			return 0;
		z->fr[k++] = (struct zframe){pos, fs, (size_t)cs};
		pos += fs;
	}
	return k >= 2 ? k : 0;
}

/* Frame K of Z's file decompressed onto the end of Z->TAR (*TLEN bytes so far, room made by
 * framed_load): 0, or -1 when it is damaged or not the size it says. */
static int frame_inflate(struct zsrc *z, size_t k, size_t *tlen)
{
	const struct zframe *f = &z->fr[k];
	size_t r = ZSTD_decompressDCtx(z->dc, z->tar + *tlen, f->cs, z->keep + f->coff, f->clen);

	if (ZSTD_isError(r) || r != f->cs)
		return -1;
	*tlen += r;
	return 0;
}

/* The record among M (NM) the manifest MAN lists for member NAME and that was taken, or NULL. */
static const struct member *record_of(const struct mf *man, const struct member *m, size_t nm,
				      const char *name)
{
	for (size_t i = 0; i < man->ns; i++) {
		const char *path = man->s[i].path, *of = man->s[i].of;

		if (!path || !of || strcmp(of, name))
			continue;
		for (size_t k = 0; k < nm; k++)
			if (m[k].carry && m[k].data && !strcmp(m[k].name, path))
				return &m[k];
	}
	return NULL;
}

/* Whether a carried scan among M (NM) stands for member NAME: the manifest MAN lists one for
 * it, and it was taken (take_carried). */
static bool has_record(const struct mf *man, const struct member *m, size_t nm, const char *name)
{
	return record_of(man, m, nm, name) != NULL;
}

/* Whether the member NAME (SIZE bytes, its header at HPOS) may be passed over (its source into
 * TE): its manifest entry lists a job output (app_log) of that size and a digest, a carried
 * scan for it is taken already (M, NM: the members so far), and Z keeps the file's bytes to
 * read it from when it is wanted after all.  Or it lists a task file (rank_map, task_exit)
 * read as ok, of that size and digest, and a task record for it (carry.c, PMTASK1) is taken
 * already whose key is this engine's and that digest: its format and head are the record's
 * (TE's TH), as this engine's sniff told them from the same bytes. */
static bool skip_ok(const struct zsrc *z, const struct plan *pl, const struct member *m, size_t nm,
		    const char *name, int64_t size, size_t hpos, struct tent *te)
{
	const struct mf_file *want;
	const struct member *rec;
	const char *src, *st;
	enum pm_source s;
	unsigned char d[32];

	if (!pl->ok || !pl->mf.scans_list || size <= 0 || (uint64_t)size > MEMBER_MAX ||
	    !z->keeping || hpos + 512 + (uint64_t)size > KEEP_MAX ||
	    !strcmp(name, "manifest.json") || !(want = plan_entry(pl, name)))
		return false;
	src = want->source;
	if (!src || pm_source_parse(src, &s) < 0 ||
	    (s != PM_SRC_APP_LOG && s != PM_SRC_RANK_MAP && s != PM_SRC_TASK_EXIT) ||
	    !want->bytes_int || want->bytes != size || !sha_of(want->sha256, d))
		return false;
	te->src = s;
	if (s == PM_SRC_APP_LOG)
		return has_record(&pl->mf, m, nm, name);
	st = want->status;
	return st && !strcmp(st, "ok") && (rec = record_of(&pl->mf, m, nm, name)) &&
	       pm_tasks_head(rec->data, rec->len, d, &te->th) &&
	       pm_format_source(te->th.format) == s;
}

/* The state of load's reading that take_member fills. */
struct takes {
	struct member *m;
	size_t nm, am, mi;
	unsigned nheld;
	struct plan pl;
	uint64_t total, max;
	const char *rel;
	char *err;
	size_t errlen;
};

/* Z's file, NF frames (frames_of), walked and taken into T (ALL: no member passed over).  1:
 * read; -1: refused (T's ERR says why); 0: not for this walk (what T holds is to be dropped,
 * and the file read by libarchive). */
static int framed_load(struct zsrc *z, size_t nf, bool all, struct takes *t)
{
	size_t tlen = 0, pos = 0, fi = 0, need = 0;

	for (size_t k = 0; k < nf; k++)
		need += z->fr[k].cs;
	if (need > z->atar) {
		unsigned char *nb = realloc(z->tar, need);

		if (!nb)
			return 0;
		z->tar = nb;
		z->atar = need;
	}
	for (;;) {
		struct tent te;
		int64_t size;
		size_t pad;
		int r;

		while (tlen - pos < 512)
			if (fi == nf || frame_inflate(z, fi++, &tlen) < 0)
				return 0;
		if ((r = ustar_head(z->tar + pos, &size)) < 0)
			return 0;
		if (r == 0)
			break;
		pad = ((size_t)size + 511) / 512 * 512;
		if ((uint64_t)size > need - pos - 512 || pad > need - pos - 512)
			return 0;
		memset(&te, 0, sizeof(te));
		te.name = (const char *)z->tar + pos;
		te.size = size;
		te.type = AE_IFREG;
		te.hpos = (la_int64_t)pos;
		te.data = z->tar + pos + 512;
		if (!all && tlen == pos + 512 && fi < nf && z->fr[fi].cs == pad &&
		    skip_ok(z, &t->pl, t->m, t->nm, te.name, size, pos, &te)) {
			te.skip = true;
			z->passed = true;
			te.data = NULL;
			te.coff = z->fr[fi].coff;
			te.clen = z->fr[fi].clen;
			te.ccs = pad;
			memset(z->tar + tlen, 0, pad);
			tlen += pad;
			fi++;
		}
		while (tlen < pos + 512 + pad)
			if (fi == nf || frame_inflate(z, fi++, &tlen) < 0)
				return 0;
		z->obase = 0;
		z->olen = tlen;
		if (take_member(&te, z, &t->m, &t->nm, &t->am, &t->mi, &t->nheld, &t->pl, &t->total,
				t->max, t->rel, t->err, t->errlen) < 0)
			return -1;
		pos += 512 + pad;
	}
	/* the rest of the stream (the tar's end) read as one stream's reading reads it */
	while (fi < nf)
		if (frame_inflate(z, fi++, &tlen) < 0)
			return 0;
	return 1;
}

/* The bundle file PATH (opened with OFLAGS), read through Z, for the NHELD members of M (NM)
 * it holds back, MAN its manifest: each member's bytes either kept as read (taken from M) or
 * read again from Z's compressed copy, or from the file when no copy is kept (the comment
 * on struct bslot says which).  NULL on ENOMEM. */
static struct pm_bsrc *bsrc_new(struct zsrc *z, struct dpool *pool, const char *path, int oflags,
				const struct mf *man, struct member *m, size_t nm, unsigned nheld)
{
	struct pm_bsrc *b = calloc(1, sizeof(*b));
	bool *rec = calloc(nm ? nm : 1, sizeof(*rec));
	size_t raw = 0;
	bool kept, again = false;

	if (!b || !rec)
		goto fail;
	for (size_t k = 0; k < nm; k++)
		if (m[k].defer && !(rec[k] = has_record(man, m, nm, m[k].name)))
			raw += m[k].len;
	kept = raw <= z->nkeep;
	b->slot = calloc(nheld, sizeof(*b->slot));
	if (!b->slot || (!kept && !(b->z = malloc(z->nkeep))))
		goto fail;
	for (size_t k = 0; k < nm; k++) {
		struct bslot *sl = &b->slot[m[k].slot];

		if (!m[k].defer)
			continue;
		sl->off = m[k].off;
		sl->len = m[k].len;
		memcpy(sl->d, m[k].d, sizeof(sl->d));
		sl->unchecked = m[k].unchecked;
		sl->coff = m[k].coff;
		sl->clen = m[k].clen;
		sl->ccs = m[k].ccs;
		if (kept && !rec[k]) {
			sl->data = m[k].data;
			m[k].data = NULL;
		}
		/* a member read from the file when it is wanted: its record refused, or never
		 * decompressed (skip_member) and B's copy gone by then */
		again = again || (kept && rec[k]) || m[k].unchecked;
	}
	if (again && !(b->path = strdup(path)))
		goto fail;
	if (pthread_mutex_init(&b->mu, NULL))
		goto fail;
	if (b->z) {
		memcpy(b->z, z->keep, z->nkeep);
		b->zlen = z->nkeep;
	}
	b->oflags = oflags;
	b->pool = pool;
	b->refs = 1;
	b->nslot = nheld;
	free(rec);
	return b;
fail:
	if (b && b->slot)
		for (unsigned k = 0; k < nheld; k++)
			free(b->slot[k].data);
	if (b) {
		free(b->slot);
		free(b->z);
		free(b->path);
	}
	free(b);
	free(rec);
	return NULL;
}

/* Drop a reference to B: freed with the last. */
static void bsrc_unref(struct pm_bsrc *b)
{
	bool last;

	if (!b)
		return;
	pthread_mutex_lock(&b->mu);
	last = --b->refs == 0;
	pthread_mutex_unlock(&b->mu);
	if (!last)
		return;
	for (unsigned k = 0; k < b->nslot; k++)
		free(b->slot[k].data);
	free(b->slot);
	free(b->z);
	free(b->path);
	pthread_mutex_destroy(&b->mu);
	free(b);
}

static struct zsrc *zsrc_new(void)
{
	struct zsrc *z = malloc(sizeof(*z));

	if (z && !(z->zdc = ZSTD_createDCtx())) {
		free(z);
		z = NULL;
	}
	if (z) {
		z->keep = NULL;
		z->nkeep = z->akeep = 0;
		z->pool = NULL;
		z->tar = NULL;
		z->atar = 0;
		z->ent = NULL;
		z->aent = 0;
		z->fr = NULL;
		z->afr = 0;
	}
	return z;
}

/* EV's own zsrc, made on its first bundle file, with the pool of contexts its members held
 * back are read with.  NULL on ENOMEM. */
static struct zsrc *ev_io(struct pm_evidence *ev)
{
	struct zsrc *z;

	if (ev->bundle_io)
		return ev->bundle_io;
	if (!(z = zsrc_new()))
		return NULL;
	if (!(z->pool = calloc(1, sizeof(*z->pool))) || pthread_mutex_init(&z->pool->mu, NULL)) {
		free(z->pool);
		z->pool = NULL;
		bundle_io_free(z);
		return NULL;
	}
	ev->bundle_io = z;
	ev->bundle_io_free = bundle_io_free;
	return z;
}

/* Read bundle file PATH (REL: its name in the set) through Z, once, and check it whole: the
 * part of adding a bundle that touches no evidence set, so any thread may do it.  MAN: the
 * manifest is wanted; SHA: the file's digest is; ALL: no member is passed over (framed_load).
 * L->rc says whether it can be added. */
static void load(struct zsrc *z, struct dpool *pool, const char *path, int oflags, const char *rel,
		 bool man, bool sha, bool all, struct pm_loaded *L)
{
	struct archive *ar = NULL;
	struct archive_entry *e;
	struct member *m = NULL;
	struct pm_sha256 fsha = {0};
	struct plan pl = {0};
	size_t nm = 0, am = 0, mi = (size_t)-1;
	unsigned nheld = 0;
	uint64_t total = 0, max = pm_input_max();
	char *err = L->err;
	size_t errlen = sizeof(L->err);
	json_t **mout = man ? &L->mout : NULL;
	struct stat st;
	int rc = -1, r, saved;

	L->rel = rel;
	z->dc = NULL;
	z->in.src = NULL;
	z->in.size = z->in.pos = 0;
	z->eof = z->failed = false;
	z->sha = NULL;
	z->bytes = 0;
	z->keeping = pool != NULL;
	z->passed = false;
	z->nkeep = 0;
	z->obase = z->olen = z->out = 0;
	z->fd = open(path, O_RDONLY | O_CLOEXEC | oflags);
	if (z->fd < 0) {
		L->rc = sysfail(err, errlen, rel);
		L->en = errno;
		return;
	}
	if (sha) {
		pm_sha256_init(&fsha);
		z->sha = &fsha;
	}
	/* the first bytes say whether it is zstd; they are hashed and fed like the rest */
	if (zs_fill(NULL, z) < 0)
		goto out_read;
	if (z->in.size >= 4 && !memcmp(z->ibuf, "\x28\xb5\x2f\xfd", 4)) {
		z->dc = z->zdc;
		ZSTD_DCtx_reset(z->dc, ZSTD_reset_session_only);
	} else {
		z->keeping = false; /* a plain tar's members are its bytes */
	}
	/* a collector's bundle: its tar walked in place (ustar_next), else libarchive reads it
	 * from its first byte again */
	if (z->dc && fstat(z->fd, &st) == 0 && S_ISREG(st.st_mode)) {
		size_t first = ZSTD_findFrameCompressedSize(z->ibuf, z->in.size), tlen = 0, nf;
		ssize_t nent = -1;

		if (z->keeping && !ZSTD_isError(first) && first < (uint64_t)st.st_size &&
		    (uint64_t)st.st_size <= KEEP_MAX) {
			/* more than one frame: the file read whole, walked frame by frame */
			while (!z->eof)
				if (zs_fill(NULL, z) < 0)
					goto out_read;
			nf = z->keeping && z->nkeep == z->bytes ? frames_of(z) : 0;
			if (nf) {
				struct takes t = {.mi = (size_t)-1,
						  .max = max,
						  .rel = rel,
						  .err = err,
						  .errlen = errlen};
				int fr = framed_load(z, nf, all, &t);

				m = t.m;
				nm = t.nm;
				am = t.am;
				mi = t.mi;
				nheld = t.nheld;
				pl = t.pl;
				total = t.total;
				if (fr < 0)
					goto out;
				if (fr > 0)
					goto walked;
				free_members(m, nm);
				m = NULL;
				nm = am = 0;
				mi = (size_t)-1;
				nheld = 0;
				total = 0;
				mf_free(&pl.mf);
				pl.ok = false;
				err[0] = '\0';
				z->passed = false;
			}
		} else if ((tlen = ustar_inflate(z))) {
			nent = ustar_walk(z, tlen);
		}
		if (nent >= 0) {
			z->obase = 0;
			z->olen = tlen;
			for (ssize_t k = 0; k < nent; k++)
				if (take_member(&z->ent[k], z, &m, &nm, &am, &mi, &nheld, &pl,
						&total, max, rel, err, errlen) < 0)
					goto out;
			goto walked;
		}
		if (lseek(z->fd, 0, SEEK_SET) != 0) {
			rc = sysfail(err, errlen, rel);
			goto out;
		}
		z->in.src = NULL;
		z->in.size = z->in.pos = 0;
		z->eof = z->failed = false;
		z->bytes = 0;
		z->keeping = pool != NULL;
		z->nkeep = 0;
		z->obase = z->olen = z->out = 0;
		if (sha) {
			unsigned char scratch[32];

			pm_sha256_final(&fsha, scratch);
			pm_sha256_init(&fsha);
		}
		ZSTD_DCtx_reset(z->dc, ZSTD_reset_session_only);
		if (zs_fill(NULL, z) < 0)
			goto out_read;
	}
	if (!(ar = archive_read_new()))
		goto out;
	archive_read_support_format_tar(ar);
	if (archive_read_open(ar, z, NULL, zs_read, NULL) != ARCHIVE_OK) {
		rc = bad(err, errlen, rel,
			 archive_error_string(ar) ? archive_error_string(ar) : "cannot open");
		goto out;
	}
	while ((r = archive_read_next_header(ar, &e)) == ARCHIVE_OK) {
		struct tent te = {.ar = ar,
				  .name = archive_entry_pathname(e),
				  .size = archive_entry_size(e),
				  .type = archive_entry_filetype(e)};

		if (take_member(&te, z, &m, &nm, &am, &mi, &nheld, &pl, &total, max, rel, err,
				errlen) < 0)
			goto out;
	}
	if (r != ARCHIVE_EOF) {
		rc = bad(err, errlen, rel,
			 archive_error_string(ar) ? archive_error_string(ar) : "corrupt archive");
		goto out;
	}
walked:
	if (mi == (size_t)-1 || m[mi].len > MANIFEST_MAX) {
		rc = bad(err, errlen, rel, "no manifest.json");
		goto out;
	}
	/* a file that cannot be read to its end (for its digest) is refused before anything
	 * of it is added */
	while (sha && !z->eof)
		if (zs_fill(NULL, z) < 0) {
			rc = sysfail(err, errlen, rel);
			goto out;
		}
	/* the plan read the manifest already (when it is an object with a files list) */
	rc = check_manifest(rel, m[mi].data, m[mi].len, &pl.mf, m, nm, &L->ck, err, errlen);
	if (rc == 0) {
		L->man = pl.mf;
		memset(&pl.mf, 0, sizeof(pl.mf));
	}
	if (rc == 0 && nheld &&
	    !(L->bsrc = bsrc_new(z, pool, path, oflags, &L->man, m, nm, nheld))) {
		errno = ENOMEM;
		rc = -1;
	}
	if (rc == 0 && stage_manifest(rel, &L->man, L->ck, m, nm, L->bsrc, &L->st) < 0) {
		errno = ENOMEM;
		rc = -1;
	}
out:
	saved = errno;
	if (mout && !*mout && mi != (size_t)-1 && m[mi].len <= MANIFEST_MAX) {
		/* the caller's jansson tree of the manifest, accepted or refused (a bad member
		 * after it too), as a separate read of it would give it */
		json_error_t je;
		json_t *mj = manifest_json(m[mi].data, m[mi].len, &je);
		if (json_is_object(mj))
			*mout = mj;
		else
			json_decref(mj);
	}
	if (L->brief && mi != (size_t)-1 && m[mi].len <= MANIFEST_MAX) {
		/* the same, as its brief: the manifest as it was checked, or read here */
		const struct mf *bm = L->man.read ? &L->man : NULL;
		json_error_t je;

		if (!bm && mf_read(&L->bman, m[mi].data, m[mi].len, &je) > 0)
			bm = &L->bman;
		if (bm) {
			L->b.node = bm->node;
			L->b.deadline_hit = bm->deadline_hit;
			L->b.uid = -1;
			for (int k = 0; k < 3 && L->b.uid < 0; k++)
				if (bm->uid_int[k] && bm->uid[k] >= 0)
					L->b.uid = (long long)bm->uid[k];
			L->has_b = true;
		}
	}
	if (sha && !z->failed) {
		/* the file's digest covers all of it: what the tar reader left unread too */
		while (!z->eof)
			if (zs_fill(NULL, z) < 0)
				goto out_read;
		unsigned char d[32];
		pm_sha256_final(&fsha, d);
		pm_sha256_hex(d, L->sha);
		L->bytes = z->bytes;
	}
	errno = saved;
out_read:
	if (fsha.ctx) {
		unsigned char scratch[32];
		int en = errno;
		pm_sha256_final(&fsha, scratch);
		errno = en;
	}
	if (rc < 0 && !err[0]) { /* out of memory, or the first read failed */
		if (!errno)
			errno = ENOMEM;
		sysfail(err, errlen, rel);
	}
	{
		int en = errno;
		archive_read_free(ar);
		close(z->fd);
		z->fd = -1;
		mf_free(&pl.mf);
		if (rc < 0) {
			free_members(m, nm);
			m = NULL;
			nm = 0;
		}
		L->m = m;
		L->nm = nm;
		L->rc = rc;
		L->en = en;
	}
}

static void loaded_free(struct pm_loaded *L)
{
	if (!L)
		return;
	staged_free(&L->st);
	free_members(L->m, L->nm);
	free(L->ck);
	mf_free(&L->man);
	mf_free(&L->bman);
	json_decref(L->mout);
	bsrc_unref(L->bsrc);
	free(L);
}

/* Add the loaded bundle L to EV (when it was accepted), as pm_evidence_add_bundle says: its
 * members' bytes and the manifest (into *MOUT, a new reference) are moved out of L, the rest
 * is left for loaded_free.  0, or -1 with ERR filled. */
static int finish(struct pm_evidence *ev, struct pm_loaded *L, json_t **mout, char *sha,
		  uint64_t *bytes, char *err, size_t errlen)
{
	int rc = L->rc, en;

	if (rc == 0 && (rc = commit_staged(ev, &L->man, &L->st)) < 0) {
		if (!errno)
			errno = ENOMEM;
		sysfail(err, errlen, L->rel);
	} else if (rc < 0) {
		snprintf(err, errlen, "%s", L->err);
	} else {
		err[0] = '\0';
	}
	en = rc < 0 && L->rc < 0 ? L->en : errno;
	if (mout)
		*mout = json_incref(L->mout);
	if (sha)
		snprintf(sha, 72, "%s", L->sha);
	if (bytes && L->sha[0])
		*bytes = L->bytes;
	errno = en;
	return rc;
}

static int read_bundle(struct pm_evidence *ev, const char *path, int oflags, const char *rel,
		       json_t **mout, char *sha, uint64_t *bytes, char *err, size_t errlen)
{
	struct pm_loaded *L = calloc(1, sizeof(*L));
	int rc, en;

	err[0] = '\0';
	if (mout)
		*mout = NULL;
	if (sha)
		sha[0] = '\0';
	if (!L)
		return -1;
	if (!ev_io(ev)) {
		free(L);
		return -1;
	}
	load(ev->bundle_io, ((struct zsrc *)ev->bundle_io)->pool, path, oflags, rel, mout != NULL,
	     sha != NULL, ev->check_all, L);
	rc = finish(ev, L, mout, sha, bytes, err, errlen);
	en = errno;
	loaded_free(L);
	errno = en;
	return rc;
}

void pm_evidence_check_all(struct pm_evidence *ev, bool on)
{
	ev->check_all = on;
}

int pm_bundle_add_file(struct pm_evidence *ev, const char *path, const char *rel, char *err,
		       size_t errlen)
{
	return read_bundle(ev, path, 0, rel, NULL, NULL, NULL, err, errlen);
}

int pm_evidence_add_bundle(struct pm_evidence *ev, const char *path, json_t **manifest,
			   char sha[72], uint64_t *bytes, char *err, size_t errlen)
{
	const char *base = strrchr(path, '/');

	return read_bundle(ev, path, O_NOFOLLOW, base ? base + 1 : path, manifest, sha, bytes, err,
			   errlen);
}

/* ---- many bundle files: read on worker threads, added in order ---- */

struct batch {
	struct pm_evidence *ev;
	const struct pm_bundle_batch *b;
	struct zsrc *z[8]; /* by worker; 0 is the set's own */
};

static void *batch_make(void *arg, unsigned w, size_t i)
{
	struct batch *bt = arg;
	const struct pm_bundle_batch *b = bt->b;
	struct pm_loaded *L = calloc(1, sizeof(*L));

	if (!L)
		return NULL;
	if (!bt->z[w] && !(bt->z[w] = zsrc_new())) {
		free(L);
		return NULL;
	}
	L->brief = b->brief;
	load(bt->z[w], bt->z[0]->pool, b->paths[i], b->oflags, b->rels[i], b->manifest, b->sha,
	     bt->ev->check_all, L);
	return L;
}

static int batch_take(void *arg, size_t i, void *item)
{
	struct batch *bt = arg;

	if (!item) {
		errno = ENOMEM;
		return -1;
	}
	return bt->b->take(bt->b->arg, i, item);
}

static void batch_drop(void *arg, void *item)
{
	(void)arg;
	loaded_free(item);
}

int pm_bundle_batch(struct pm_evidence *ev, const struct pm_bundle_batch *b)
{
	struct batch bt = {.ev = ev, .b = b};
	struct pm_work w = {batch_make, batch_take, batch_drop, &bt, 0, true};
	int rc, en;

	if (!ev_io(ev))
		return -1;
	bt.z[0] = ev->bundle_io;
	rc = pm_work_run(&w, ev->threads, b->n);
	en = errno;
	for (size_t k = 1; k < sizeof(bt.z) / sizeof(bt.z[0]); k++)
		bundle_io_free(bt.z[k]);
	errno = en;
	return rc;
}

int pm_bundle_finish(struct pm_evidence *ev, struct pm_loaded *L, json_t **mout, char *sha,
		     uint64_t *bytes, char *err, size_t errlen)
{
	return finish(ev, L, mout, sha, bytes, err, errlen);
}

struct add_many {
	pm_bundle_fn *fn;
	void *arg;
	struct pm_evidence *ev;
};

static int add_many_take(void *arg, size_t i, struct pm_loaded *L)
{
	struct add_many *a = arg;
	char sha[72], err[256];
	uint64_t bytes = 0;
	int rc = finish(a->ev, L, NULL, sha, &bytes, err, sizeof(err));

	/* the manifest stays L's, freed on the thread that read it */
	return a->fn(a->arg, i, rc, L->mout, sha, bytes, err);
}

/* B's bundles, each file named for the merge by its base name (a store's bundles are files of
 * one folder). */
static int batch_by_name(struct pm_evidence *ev, struct pm_bundle_batch *b)
{
	const char **rels = calloc(b->n + 1, sizeof(*rels));
	int rc;

	if (!rels)
		return -1;
	for (size_t i = 0; i < b->n; i++) {
		const char *base = strrchr(b->paths[i], '/');
		rels[i] = base ? base + 1 : b->paths[i];
	}
	b->rels = rels;
	rc = pm_bundle_batch(ev, b);
	free(rels);
	return rc;
}

int pm_evidence_add_bundles(struct pm_evidence *ev, size_t n, const char *const *paths,
			    pm_bundle_fn *fn, void *arg)
{
	struct add_many a = {fn, arg, ev};
	struct pm_bundle_batch b = {.n = n,
				    .paths = paths,
				    .oflags = O_NOFOLLOW,
				    .manifest = true,
				    .sha = true,
				    .take = add_many_take,
				    .arg = &a};

	return batch_by_name(ev, &b);
}

struct add_brief {
	pm_bundle_brief_fn *fn;
	void *arg;
	struct pm_evidence *ev;
};

static int add_brief_take(void *arg, size_t i, struct pm_loaded *L)
{
	struct add_brief *a = arg;
	char sha[72], err[256];
	uint64_t bytes = 0;
	int rc = finish(a->ev, L, NULL, sha, &bytes, err, sizeof(err));

	return a->fn(a->arg, i, rc, L->has_b ? &L->b : NULL, sha, bytes, err);
}

int pm_evidence_add_bundles_brief(struct pm_evidence *ev, size_t n, const char *const *paths,
				  pm_bundle_brief_fn *fn, void *arg)
{
	struct add_brief a = {fn, arg, ev};
	struct pm_bundle_batch b = {.n = n,
				    .paths = paths,
				    .oflags = O_NOFOLLOW,
				    .brief = true,
				    .sha = true,
				    .take = add_brief_take,
				    .arg = &a};

	return batch_by_name(ev, &b);
}

static int read_member(const char *dir, const char *name, struct member *mm)
{
	char p[4096];
	int fd;
	struct stat st;

	if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, name) >= sizeof(p))
		return -1;
	fd = open(p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > MEMBER_MAX) {
		close(fd);
		return -1;
	}
	mm->data = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!mm->data || read(fd, mm->data, (size_t)st.st_size) != st.st_size) {
		close(fd);
		return -1;
	}
	mm->len = (size_t)st.st_size;
	close(fd);
	return (mm->name = strdup(name)) ? 0 : -1;
}

int pm_bundle_add_dir(struct pm_evidence *ev, const char *path, const char *rel, char *err,
		      size_t errlen)
{
	struct member man = {0}, *m = NULL;
	size_t nm = 0, am = 0, i;
	uint64_t total = 0, max = pm_input_max();
	json_t *j = NULL, *x;
	int rc = -1;
	const char *name = rel[0] ? rel : ".";

	if (read_member(path, "manifest.json", &man) < 0 || man.len > MANIFEST_MAX)
		return bad(err, errlen, name, "manifest.json cannot be read");
	j = json_loadb(man.data, man.len, 0, NULL);
	json_array_foreach(json_object_get(j, "files"), i, x)
	{
		const char *p = json_string_value(json_object_get(x, "path"));
		if (!p || !safe_name(p)) {
			rc = bad(err, errlen, name, "a manifest entry has a bad path");
			goto out;
		}
		if (nm == am && pm_grow((void **)&m, &am, sizeof(*m)) < 0)
			goto out;
		if (read_member(path, p, &m[nm]) < 0) {
			free(m[nm].name);
			free(m[nm].data);
			m[nm].name = NULL;
			m[nm].data = NULL;
			rc = bad(err, errlen, name,
				 "a listed file is missing, not regular, or a link");
			goto out;
		}
		nm++;
		if ((total += m[nm - 1].len) > max) {
			rc = too_big(err, errlen, name, max);
			goto out;
		}
	}
	rc = apply_manifest(ev, name, man.data, man.len, m, nm, err, errlen);
out:
	json_decref(j);
	free(man.name);
	free(man.data);
	free_members(m, nm);
	return rc;
}

/* ---- members held back: read when first wanted ---- */

/* B's file read again into B->Z (no copy was kept: bsrc_new), as the first read found it or
 * larger than any it keeps.  0, or -1 (errno; ESTALE: it changed). */
static int read_again(struct pm_bsrc *b)
{
	size_t n = 0, cap = 64u << 10;
	unsigned char *buf = malloc(cap);
	int fd = open(b->path, O_RDONLY | O_CLOEXEC | b->oflags), en;
	ssize_t r;

	if (fd < 0 || !buf)
		goto fail;
	for (;;) {
		if (n == cap) {
			unsigned char *nb;

			if (cap > KEEP_MAX) { /* it was no larger when it was kept */
				errno = ESTALE;
				goto fail;
			}
			if (!(nb = realloc(buf, cap * 2)))
				goto fail;
			buf = nb;
			cap *= 2;
		}
		do
			r = read(fd, buf + n, cap - n);
		while (r < 0 && errno == EINTR);
		if (r < 0)
			goto fail;
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	b->z = buf;
	b->zlen = n;
	return 0;
fail:
	en = errno ? errno : ENOMEM;
	if (fd >= 0)
		close(fd);
	free(buf);
	errno = en;
	return -1;
}

/* Decompress B's bundle up to the end of its last member wanted (attached, not out yet) and
 * give each such member its bytes; B locked.  The bytes are those compared when the bundle
 * was read (the same compressed bytes, decompressed the same way; a frame's own checksum,
 * when it has one, is checked by the one call).  0, or -1 (errno). */
static int bsrc_fill(struct pm_bsrc *b)
{
	struct dpool *p = b->pool;
	struct dctx c = {NULL, NULL, 0};
	uint64_t end = 0;
	unsigned long long whole;
	size_t need;
	int rc = -1;
	bool reread = !b->z; /* B->Z read from the file again here, not the copy kept */

	for (unsigned k = 0; k < b->nslot; k++)
		if (b->slot[k].attached && !b->slot[k].done && !b->slot[k].data &&
		    !b->slot[k].unchecked && b->slot[k].off + b->slot[k].len > end)
			end = b->slot[k].off + b->slot[k].len;
	if (!end)
		return 0;
	errno = EIO;
	if (!p || (!b->z && (!b->path || read_again(b) < 0)))
		return -1;
	c = dpool_take(p);
	/* the whole frame in one call when its header gives its size (a collector's bundle):
	 * no window to go through; else as a stream, up to END */
	whole = ZSTD_getFrameContentSize(b->z, b->zlen);
	need = whole >= end && whole <= 4 * KEEP_MAX ? (size_t)whole : (size_t)end;
	if (c.cap < need) {
		unsigned char *nb = realloc(c.buf, need);
		if (!nb) {
			errno = ENOMEM;
			goto out;
		}
		c.buf = nb;
		c.cap = need;
	}
	if (!c.d && !(c.d = ZSTD_createDCtx())) {
		errno = ENOMEM;
		goto out;
	}
	if (need == whole && !ZSTD_isError(ZSTD_decompressDCtx(c.d, c.buf, need, b->z, b->zlen))) {
		; /* all of it */
	} else {
		ZSTD_inBuffer in = {b->z, b->zlen, 0};
		ZSTD_outBuffer o = {c.buf, (size_t)end, 0};

		ZSTD_DCtx_reset(c.d, ZSTD_reset_session_only);
		while (o.pos < o.size) {
			size_t ip = in.pos, op = o.pos, r = ZSTD_decompressStream(c.d, &o, &in);

			if (ZSTD_isError(r) || (in.pos == ip && o.pos == op)) {
				errno = EIO; /* the bytes decompressed once already: never */
				goto out;
			}
		}
	}
	for (unsigned k = 0; k < b->nslot; k++) {
		struct bslot *sl = &b->slot[k];
		unsigned char d[32];
		struct pm_sha256 h;

		if (!sl->attached || sl->done || sl->data || sl->unchecked)
			continue;
		if (reread) { /* read from the file again: the bytes checked then, or none */
			pm_sha256_init(&h);
			pm_sha256_update(&h, c.buf + sl->off, sl->len);
			pm_sha256_final(&h, d);
			if (memcmp(d, sl->d, sizeof(d))) {
				errno = ESTALE;
				goto out;
			}
		}
		if (!(sl->data = malloc(sl->len))) {
			errno = ENOMEM;
			goto out;
		}
		memcpy(sl->data, c.buf + sl->off, sl->len);
	}
	rc = 0;
out:
	/* every member wanted is out; a copy read from the file again is not kept either way */
	if (rc == 0 || reread) {
		free(b->z);
		b->z = NULL;
	}
	if (c.cap > 4 * KEEP_MAX) { /* a stream's END can be larger: not kept */
		free(c.buf);
		c.buf = NULL;
		c.cap = 0;
	}
	dpool_give(p, c);
	return rc;
}

/* B's member SL, passed over when the bundle was read (skip_member), decompressed from its frame
 * alone and checked against its manifest's digest; B locked.  0, or -1 (errno; EBADMSG: the
 * frame is damaged, or the bytes are not the manifest's). */
static int slot_frame(struct pm_bsrc *b, struct bslot *sl)
{
	struct dpool *p = b->pool;
	struct dctx c = {NULL, NULL, 0};
	bool again = !b->z;
	unsigned char d[32];
	struct pm_sha256 h;
	size_t r;
	int rc = -1;

	if (!p || (again && (!b->path || read_again(b) < 0)))
		return -1;
	c = dpool_take(p);
	errno = ENOMEM;
	if (!c.d && !(c.d = ZSTD_createDCtx()))
		goto out;
	if (!(sl->data = malloc(sl->ccs ? sl->ccs : 1)))
		goto out;
	errno = EBADMSG;
	if (sl->coff > b->zlen || sl->clen > b->zlen - sl->coff || sl->len > sl->ccs)
		goto out;
	r = ZSTD_decompressDCtx(c.d, sl->data, sl->ccs, b->z + sl->coff, sl->clen);
	if (ZSTD_isError(r) || r != sl->ccs)
		goto out;
	pm_sha256_init(&h);
	pm_sha256_update(&h, sl->data, sl->len);
	pm_sha256_final(&h, d);
	if (memcmp(d, sl->d, sizeof(d)))
		goto out;
	rc = 0;
out:
	if (rc < 0) {
		int en = errno;

		free(sl->data);
		sl->data = NULL;
		errno = en;
	}
	if (again) { /* read for this member alone: not kept */
		free(b->z);
		b->z = NULL;
		b->zlen = 0;
	}
	dpool_give(p, c);
	return rc;
}

int pm_bundle_member_load(struct pm_file *f)
{
	struct pm_bsrc *b = f->bsrc;
	struct bslot *sl;
	void *data;
	size_t len;
	int en = 0;

	if (!b)
		return 0;
	pthread_mutex_lock(&b->mu);
	sl = &b->slot[f->bslot];
	if (!sl->data && !sl->done && (sl->unchecked ? slot_frame(b, sl) : bsrc_fill(b)) < 0)
		en = errno;
	data = sl->data;
	len = sl->len;
	sl->data = NULL;
	sl->done = true;
	pthread_mutex_unlock(&b->mu);
	f->bsrc = NULL;
	bsrc_unref(b);
	if (!data) {
		char why[160];

		if (en == ESTALE)
			snprintf(why, sizeof(why), "its bundle changed after it was read");
		else if (en == EBADMSG)
			snprintf(why, sizeof(why),
				 "its bundle changed after it was read, or its bytes there are "
				 "damaged (its scan was carried: they were not read with the "
				 "bundle)");
		else
			snprintf(why, sizeof(why), "its bundle could not be read again: %s",
				 strerror(en ? en : EIO));
		f->released = true; /* nothing to read */
		if (f->status == PM_ST_OK || f->status == PM_ST_TRUNCATED)
			f->status = PM_ST_UNREADABLE;
		if (!f->reason)
			f->reason = strdup(why);
		errno = en ? en : EIO;
		return -1;
	}
	f->mem = data;
	f->memlen = len;
	return 0;
}

void pm_bundle_member_drop(struct pm_file *f)
{
	struct pm_bsrc *b = f->bsrc;

	if (!b)
		return;
	pthread_mutex_lock(&b->mu);
	free(b->slot[f->bslot].data);
	b->slot[f->bslot].data = NULL;
	b->slot[f->bslot].done = true;
	pthread_mutex_unlock(&b->mu);
	f->bsrc = NULL;
	bsrc_unref(b);
}
