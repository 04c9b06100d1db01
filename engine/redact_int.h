/*
 * redact_int.h - what the redactor's files share (redact.c: the scan, the trigger table and
 * the output; redact_shapes.c: token shapes, key blocks, URLs, commands; redact_assign.c:
 * NAME=value and its kin): character sets, the state of one call, the validators.
 * Not installed.
 */
#ifndef PM_REDACT_INT_H
#define PM_REDACT_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "redact.h"

#define MAXLINE (1u << 20) /* longer lines are redacted in pieces of this size */
#define CUTBACK 4096	   /* where a piece ends: the last blank this close to MAXLINE */
#define IDMAX 64	   /* longest variable name looked at, each side of a keyword */
#define TRIGMAX 128	   /* room for this many triggers in the table (redact.c) */
#define CMDBACK 512	   /* how far back a command is looked for, from a word of it */
#define NONE ((size_t)-1)

/* ---- character sets ---- */

enum cset {
	S_ALNUM,       /* A-Za-z0-9 */
	S_WORD,	       /* A-Za-z0-9_ */
	S_URLSAFE,     /* A-Za-z0-9_- (base64url) */
	S_URLSAFE_DOT, /* A-Za-z0-9_.- */
	S_B64,	       /* A-Za-z0-9+/= */
	S_UPNUM,       /* A-Z0-9 */
	S_HEX,	       /* 0-9a-f */
	S_SLACK,       /* A-Za-z0-9- */
	S_TOKEN68,     /* RFC 7235 token68: A-Za-z0-9-._~+/= */
	S_AZURE,       /* A-Za-z0-9_~.- */
	S_IDENT,       /* A-Za-z0-9_.- : a variable, option or header name */
	S_HOOK,	       /* A-Za-z0-9_/- : the path of a webhook */
	S_SCHEME,      /* A-Za-z0-9+.- : a URL scheme */
	S_SIG,	       /* A-Za-z0-9%+/=_.~- : a URL-encoded signature */
};

static inline bool is_alnum(unsigned char c)
{
	return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

static inline bool is_upper(unsigned char c)
{
	return c >= 'A' && c <= 'Z';
}

static inline bool is_lower(unsigned char c)
{
	return c >= 'a' && c <= 'z';
}

static inline bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static inline bool is_blank(unsigned char c)
{
	return c == ' ' || c == '\t';
}

static inline bool is_eol(unsigned char c)
{
	return c == '\n' || c == '\r';
}

static inline bool one_of(unsigned char c, const char *set)
{
	return c && strchr(set, c);
}

static inline bool in(enum cset s, unsigned char c)
{
	if (s == S_UPNUM)
		return is_upper(c) || is_digit(c);
	if (s == S_HEX)
		return is_digit(c) || (c >= 'a' && c <= 'f');
	if (is_alnum(c))
		return true;
	switch (s) {
	case S_WORD:
		return c == '_';
	case S_URLSAFE:
		return c == '_' || c == '-';
	case S_URLSAFE_DOT:
	case S_IDENT:
		return c == '_' || c == '-' || c == '.';
	case S_B64:
		return c == '+' || c == '/' || c == '=';
	case S_SLACK:
		return c == '-';
	case S_TOKEN68:
		return one_of(c, "-._~+/=");
	case S_AZURE:
		return one_of(c, "_~.-");
	case S_HOOK:
		return one_of(c, "_/-");
	case S_SCHEME:
		return one_of(c, "+.-");
	case S_SIG:
		return one_of(c, "%+/=_.~-");
	default:
		return false;
	}
}

/* ---- base64 (both alphabets), for the checks that look inside a token ---- */

static inline int b64val(unsigned char c)
{
	if (is_upper(c))
		return c - 'A';
	if (is_lower(c))
		return c - 'a' + 26;
	if (is_digit(c))
		return c - '0' + 52;
	if (c == '+' || c == '-')
		return 62;
	if (c == '/' || c == '_')
		return 63;
	return -1;
}

static inline size_t b64dec(const char *s, size_t n, unsigned char *out, size_t cap)
{
	uint32_t v = 0;
	int bits = 0;
	size_t o = 0;

	for (size_t i = 0; i < n && o < cap; i++) {
		int d = b64val((unsigned char)s[i]);

		if (d < 0)
			break;
		v = ((v << 6) | (uint32_t)d) & 0xffffff;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (unsigned char)(v >> bits);
		}
	}
	return o;
}

/* ---- the state of one call ---- */

enum prio { P_GENERIC = 1, P_NAMED, P_PATTERN, P_BLOCK };

struct cand {
	size_t s, e;
	unsigned short kind, prio;
};

/* A hit at S of trigger ID whose run, to E, was too long for its shape: see settle() */
struct cut {
	size_t s, e;
	unsigned id;
};

struct ctx {
	const char *b; /* the line being scanned, not NUL-terminated */
	size_t n;
	struct cand *c; /* spans proposed for it */
	size_t nc, capc;
	struct cut *cut; /* token shapes turned down for running too long */
	size_t ncut, capcut;
	size_t covered;			/* end of the furthest span proposed */
	uint64_t touched[TRIGMAX / 64]; /* triggers with a valid skip[] on this line (bits) */
	size_t skip[TRIGMAX];	 /* hits of trigger i starting before skip[i] were looked at */
	size_t kw_skip;		 /* keyword hits starting before this were looked at */
	size_t end_from, end_at; /* first "-----END" at or after end_from, or NONE */
	bool end_known;
	size_t netrc_at; /* first "machine"/"login"/"default" word, or NONE */
	bool netrc_known;
	size_t stop_from, stop_at; /* first byte at or after stop_from ending a URL's user part */
	bool stop_known;
	size_t op_from, op_at; /* past the last shell operator before op_from (0: none) */
	bool op_known;
	/* B is a view of the line without its control characters: MAP says where each byte
	 * of it (and its end) is in the line; NULL when B is the line itself */
	const uint32_t *map;
	char *cv; /* the buffers of that view */
	uint32_t *cmap;
	size_t cvcap;
	int block;		   /* the kind of an open key block, or -1 */
	int orphan;		   /* the kind of an END marker without its BEGIN, or -1 */
	size_t orphan_s, orphan_e; /* where that marker starts and ends */
	/* what may follow the open block's BEGIN line as the key's body (pm_rd_key_body): the
	 * text before the marker on its line (BLK_PLEN bytes; NONE: too long to keep), the
	 * quote that closed the marker's string (a key printed as a list of strings) or 0,
	 * whether a base64 line came yet, and the BEGIN line's end, which its tag took */
	char blk_pre[256];
	size_t blk_plen;
	char blk_quote;
	bool blk_body;
	unsigned char blk_eollen;
	char blk_eol[2];
	/* a block ended by another rank's line (its prefix alike, not the same): the kind of
	 * key whose later body lines under the BEGIN line's own prefix are still redacted, or
	 * -1 (redact.c, resumed()) */
	int blk_resume;
	bool oom;
};

struct trig;
typedef void check_fn(struct ctx *x, const struct trig *t, unsigned id, size_t s);

struct trig {
	const char *lit;
	unsigned char caseless;
	unsigned char set;  /* the run that follows the literal (prefixes, exact lengths) */
	unsigned short min; /* its least length (exact: its length); for keywords, the keyword's */
	unsigned short kind;
	unsigned char flags;
	check_fn *fn;
};

/* T_MIXED: the run after the prefix has both cases; T_COVERABLE: a hit inside a span
 * proposed already needs no look; T_AHEAD: proposes spans far after its hit (the words of a
 * command line), which say nothing about the hits between */
enum { T_MIXED = 1, T_COVERABLE = 2, T_AHEAD = 4 };

/* Room in *ARR (N of *CAP elements of ELEM bytes used) for one more: it doubles, from FIRST.
 * False, and X out of memory, when there is none. */
static inline bool room(struct ctx *x, void **arr, size_t n, size_t *cap, size_t elem, size_t first)
{
	size_t c = *cap ? 2 * *cap : first;
	void *p;

	if (n < *cap)
		return true;
	if (!(p = realloc(*arr, c * elem))) {
		x->oom = true;
		return false;
	}
	*arr = p;
	*cap = c;
	return true;
}

static inline void propose(struct ctx *x, size_t s, size_t e, int kind, enum prio prio)
{
	if (e <= s || e > x->n)
		return;
	if (!room(x, (void **)&x->c, x->nc, &x->capc, sizeof(*x->c), 16))
		return;
	x->c[x->nc++] = (struct cand){s, e, (unsigned short)kind, (unsigned short)prio};
	if (e > x->covered)
		x->covered = e;
}

/*
 * Note that the hit at S of trigger ID was turned down only for what its run (to E) holds
 * past the shape's length: when another secret is glued on, the second redaction sees the
 * run end at that secret's tag and takes it, so the first must too (settle()).
 */
static inline void too_long(struct ctx *x, unsigned id, size_t s, size_t e)
{
	if (!room(x, (void **)&x->cut, x->ncut, &x->capcut, sizeof(*x->cut), 8))
		return;
	x->cut[x->ncut++] = (struct cut){s, e, id};
}

static inline void looked(struct ctx *x, unsigned id, size_t upto)
{
	x->skip[id] = upto;
	x->touched[id / 64] |= UINT64_C(1) << (id % 64);
}

static inline size_t run(const struct ctx *x, size_t i, enum cset s)
{
	while (i < x->n && in(s, (unsigned char)x->b[i]))
		i++;
	return i;
}

static inline size_t skip_blank(const struct ctx *x, size_t i)
{
	while (i < x->n && is_blank((unsigned char)x->b[i]))
		i++;
	return i;
}

/* True when the byte before S is not in SET (S starts a token). */
static inline bool starts(const struct ctx *x, size_t s, enum cset set)
{
	if (s == 0 || !in(set, (unsigned char)x->b[s - 1]))
		return true;
	/* a colour code between them ("\033[1mtoken") parts them as a blank would */
	return x->map && x->map[s] != x->map[s - 1] + 1;
}

/* The end of the line's content: before its "\n" or "\r\n". */
static inline size_t content_end(const struct ctx *x)
{
	size_t e = x->n;

	while (e > 0 && is_eol((unsigned char)x->b[e - 1]))
		e--;
	return e;
}

/* A and B (N bytes each) alike but for their digits: the same prefix on another line (another
 * rank's label, a later time stamp). */
static inline bool same_shape(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i] &&
		    !(is_digit((unsigned char)a[i]) && is_digit((unsigned char)b[i])))
			return false;
	return true;
}

static inline bool mixed_case(const char *p, size_t n, bool digit)
{
	bool up = false, lo = false, dg = false;

	for (size_t i = 0; i < n; i++) {
		up |= is_upper((unsigned char)p[i]);
		lo |= is_lower((unsigned char)p[i]);
		dg |= is_digit((unsigned char)p[i]);
	}
	return up && lo && (dg || !digit);
}

/* ---- the validators (the trigger table's, redact.c), and what they share ---- */

/* The commands that take a secret as an argument: the rows of redact_shapes.c's table, as
 * the trigger table names them. */
enum {
	TOOL_MYSQL,
	TOOL_SSHPASS,
	TOOL_CURL,
	TOOL_LOGIN,
	TOOL_LOGIN2,
	TOOL_LDAP,
	TOOL_SMB,
	TOOL_REDIS,
	TOOL_MONGO,
	TOOL_OPENSSL
};

void pm_rd_azure_secret(struct ctx *x, const struct trig *t, unsigned id, size_t s);
void pm_rd_basic(struct ctx *x, const struct trig *t, unsigned id, size_t s);
void pm_rd_bearer(struct ctx *x, const struct trig *t, unsigned id, size_t s);
void pm_rd_cookie(struct ctx *x, const struct trig *t, unsigned id, size_t s);
void pm_rd_dapi(struct ctx *x, const struct trig *t, unsigned id, size_t s);
void pm_rd_exact(struct ctx *x, const struct trig *t, unsigned id, size_t s);
void pm_rd_jwt(struct ctx *x, const struct trig *t, unsigned id, size_t s);
void pm_rd_keyword(struct ctx *x, const struct trig *t, unsigned id, size_t s);
void pm_rd_login(struct ctx *x, const struct trig *t, unsigned id, size_t s);
void pm_rd_mc(struct ctx *x, const struct trig *t, unsigned id, size_t s);
void pm_rd_pem(struct ctx *x, const struct trig *t, unsigned id, size_t s);
void pm_rd_pem_end(struct ctx *x, const struct trig *t, unsigned id, size_t s);
void pm_rd_prefix(struct ctx *x, const struct trig *t, unsigned id, size_t s);
void pm_rd_sendgrid(struct ctx *x, const struct trig *t, unsigned id, size_t s);
void pm_rd_sk(struct ctx *x, const struct trig *t, unsigned id, size_t s);
void pm_rd_stdin(struct ctx *x, const struct trig *t, unsigned id, size_t s);
void pm_rd_slack(struct ctx *x, const struct trig *t, unsigned id, size_t s);
void pm_rd_tool(struct ctx *x, const struct trig *t, unsigned id, size_t s);
void pm_rd_url(struct ctx *x, const struct trig *t, unsigned id, size_t s);
void pm_rd_wandb(struct ctx *x, const struct trig *t, unsigned id, size_t s);
void pm_rd_webhook(struct ctx *x, const struct trig *t, unsigned id, size_t s);

/* redact_shapes.c: past the "-----" that closes a marker whose label starts at P (or P if
 * none nearby) */
size_t pm_rd_marker_end(const struct ctx *x, size_t p);
/* redact_shapes.c: whether line X->b (a key block being open) can be the key's body */
bool pm_rd_key_body(struct ctx *x);
/* redact_assign.c: whether value V (N bytes) stands for no secret; the closing quote Q of
 * a value starting at VS, or the end of the line (ESC: the quotes are written \") */
bool pm_rd_placeholder(const char *v, size_t n);
size_t pm_rd_close_quote(const struct ctx *x, size_t vs, char q, bool esc);

#endif
