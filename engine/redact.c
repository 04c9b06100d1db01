/*
 * redact.c - find secrets in text and replace them with "[REDACTED:<kind>]".
 *
 * One Vectorscan pass over each line finds trigger literals: token prefixes ("ghp_",
 * "AKIA", "eyJ"), keywords ("pass", "token", "key", "secret", "auth"), "://" and
 * "-----BEGIN ".  Each hit runs a small hand-written validator that either proposes a span
 * to redact or rejects the hit; ordinary log text has few hits and costs one scan and one
 * copy.  Validators never backtrack: each looks at a bounded neighbourhood or one run of
 * characters and records how far it looked, so that later hits inside that run are not
 * examined again and a line costs time linear in its length whatever it holds.  The spans
 * proposed for a line are merged (their union; the most specific kind names it) and the line
 * is copied out with them replaced.
 *
 * The trade-off, everywhere: a well-formed secret is redacted even in odd context (fail
 * closed), while look-alikes are told apart by shape (run lengths, character mix, the
 * keyword being the last word of the variable name, placeholder values) rather than by
 * leaving the neighbourhood of a keyword alone.
 *
 * A line holding escape sequences or other control characters (colour codes from a logger,
 * a progress bar's backspaces) is scanned as a terminal would show it, without them, and
 * the spans found are taken back to the line: a colour code before or inside a secret hides
 * nothing.  Commands that take a secret as an option's value (mysql -pX, sshpass -p X,
 * curl -u user:X, docker login -p X, ldapsearch -w X, smbclient -U user%X) are read word by
 * word from the command to the end of its line or pipeline, so that the same option of
 * another command (ssh -p 22, docker run -p 80:80, mysql -p alone) is left alone.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <hs.h>

#include "redact.h"

#define MAXLINE (1u << 20) /* longer lines are redacted in pieces of this size */
#define CUTBACK 4096	   /* where a piece ends: the last blank this close to MAXLINE */
#define IDMAX 64	   /* longest variable name looked at, each side of a keyword */
#define NONE ((size_t)-1)

static const char *const kind_names[PM_REDACT__COUNT] = {
	[PM_REDACT_AWS_ACCESS_KEY_ID] = "aws_access_key_id",
	[PM_REDACT_AWS_SECRET_ACCESS_KEY] = "aws_secret_access_key",
	[PM_REDACT_AWS_SESSION_TOKEN] = "aws_session_token",
	[PM_REDACT_URL_SIGNATURE] = "url_signature",
	[PM_REDACT_GCP_API_KEY] = "gcp_api_key",
	[PM_REDACT_GCP_OAUTH_TOKEN] = "gcp_oauth_token",
	[PM_REDACT_GCP_PRIVATE_KEY_ID] = "gcp_private_key_id",
	[PM_REDACT_AZURE_STORAGE_KEY] = "azure_storage_key",
	[PM_REDACT_AZURE_SAS_TOKEN] = "azure_sas_token",
	[PM_REDACT_CLIENT_SECRET] = "client_secret",
	[PM_REDACT_HUGGINGFACE_TOKEN] = "huggingface_token",
	[PM_REDACT_WANDB_API_KEY] = "wandb_api_key",
	[PM_REDACT_MLFLOW_CREDENTIAL] = "mlflow_credential",
	[PM_REDACT_COMET_API_KEY] = "comet_api_key",
	[PM_REDACT_NEPTUNE_API_TOKEN] = "neptune_api_token",
	[PM_REDACT_KAGGLE_KEY] = "kaggle_key",
	[PM_REDACT_DATABRICKS_TOKEN] = "databricks_token",
	[PM_REDACT_OPENAI_API_KEY] = "openai_api_key",
	[PM_REDACT_ANTHROPIC_API_KEY] = "anthropic_api_key",
	[PM_REDACT_GITHUB_TOKEN] = "github_token",
	[PM_REDACT_GITLAB_TOKEN] = "gitlab_token",
	[PM_REDACT_SLACK_TOKEN] = "slack_token",
	[PM_REDACT_WEBHOOK_URL] = "webhook_url",
	[PM_REDACT_STRIPE_KEY] = "stripe_key",
	[PM_REDACT_TWILIO_CREDENTIAL] = "twilio_credential",
	[PM_REDACT_SENDGRID_API_KEY] = "sendgrid_api_key",
	[PM_REDACT_NPM_TOKEN] = "npm_token",
	[PM_REDACT_PYPI_TOKEN] = "pypi_token",
	[PM_REDACT_DOCKER_AUTH] = "docker_auth",
	[PM_REDACT_KUBERNETES_TOKEN] = "kubernetes_token",
	[PM_REDACT_JWT] = "jwt",
	[PM_REDACT_BEARER_TOKEN] = "bearer_token",
	[PM_REDACT_BASIC_AUTH] = "basic_auth",
	[PM_REDACT_URL_PASSWORD] = "url_password",
	[PM_REDACT_DB_PASSWORD] = "db_password",
	[PM_REDACT_NETRC_PASSWORD] = "netrc_password",
	[PM_REDACT_S3_SECRET_KEY] = "s3_secret_key",
	[PM_REDACT_PRIVATE_KEY] = "private_key",
	[PM_REDACT_SSH_PRIVATE_KEY] = "ssh_private_key",
	[PM_REDACT_PGP_PRIVATE_KEY] = "pgp_private_key",
	[PM_REDACT_PASSWORD] = "password",
	[PM_REDACT_SECRET] = "secret",
	[PM_REDACT_TOKEN] = "token",
	[PM_REDACT_API_KEY] = "api_key",
};

const char *pm_redact_kind_name(int kind)
{
	return kind >= 0 && kind < PM_REDACT__COUNT ? kind_names[kind] : NULL;
}

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

static bool is_alnum(unsigned char c)
{
	return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

static bool is_upper(unsigned char c)
{
	return c >= 'A' && c <= 'Z';
}

static bool is_lower(unsigned char c)
{
	return c >= 'a' && c <= 'z';
}

static bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static bool is_blank(unsigned char c)
{
	return c == ' ' || c == '\t';
}

static bool is_eol(unsigned char c)
{
	return c == '\n' || c == '\r';
}

static bool one_of(unsigned char c, const char *set)
{
	return c && strchr(set, c);
}

static bool in(enum cset s, unsigned char c)
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

static int b64val(unsigned char c)
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

static size_t b64dec(const char *s, size_t n, unsigned char *out, size_t cap)
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
	size_t covered;		 /* end of the furthest span proposed */
	uint64_t touched;	 /* triggers with a valid skip[] on this line */
	size_t skip[64];	 /* hits of trigger i starting before skip[i] were looked at */
	size_t kw_skip;		 /* keyword hits starting before this were looked at */
	size_t end_from, end_at; /* first "-----END" at or after end_from, or NONE */
	bool end_known;
	size_t netrc_at; /* first "machine"/"login"/"default" word, or NONE */
	bool netrc_known;
	/* B is a view of the line without its control characters: MAP says where each byte
	 * of it (and its end) is in the line; NULL when B is the line itself */
	const uint32_t *map;
	char *cv; /* the buffers of that view */
	uint32_t *cmap;
	size_t cvcap;
	int block;		   /* the kind of an open key block, or -1 */
	int orphan;		   /* the kind of an END marker without its BEGIN, or -1 */
	size_t orphan_s, orphan_e; /* where that marker starts and ends */
	bool oom;
};

struct trig;
typedef void check_fn(struct ctx *x, const struct trig *t, unsigned id, size_t s);

struct trig {
	const char *lit;
	unsigned char caseless;
	unsigned char set;  /* the run that follows the literal (simple prefixes) */
	unsigned short min; /* its least length; for keywords, the keyword's length */
	unsigned short kind;
	unsigned char flags;
	check_fn *fn;
};

/* T_MIXED: the run after the prefix has both cases; T_COVERABLE: a hit inside a span
 * proposed already needs no look; T_AHEAD: proposes spans far after its hit (the words of a
 * command line), which say nothing about the hits between */
enum { T_MIXED = 1, T_COVERABLE = 2, T_AHEAD = 4 };

static void propose(struct ctx *x, size_t s, size_t e, int kind, enum prio prio)
{
	if (e <= s || e > x->n)
		return;
	if (x->nc == x->capc) {
		size_t cap = x->capc ? 2 * x->capc : 16;
		struct cand *c = realloc(x->c, cap * sizeof(*c));

		if (!c) {
			x->oom = true;
			return;
		}
		x->c = c;
		x->capc = cap;
	}
	x->c[x->nc++] = (struct cand){s, e, (unsigned short)kind, (unsigned short)prio};
	if (e > x->covered)
		x->covered = e;
}

/*
 * Note that the hit at S of trigger ID was turned down only for what its run (to E) holds
 * past the shape's length: when another secret is glued on, the second redaction sees the
 * run end at that secret's tag and takes it, so the first must too (settle()).
 */
static void too_long(struct ctx *x, unsigned id, size_t s, size_t e)
{
	if (x->ncut == x->capcut) {
		size_t cap = x->capcut ? 2 * x->capcut : 8;
		struct cut *c = realloc(x->cut, cap * sizeof(*c));

		if (!c) {
			x->oom = true;
			return;
		}
		x->cut = c;
		x->capcut = cap;
	}
	x->cut[x->ncut++] = (struct cut){s, e, id};
}

static void looked(struct ctx *x, unsigned id, size_t upto)
{
	x->skip[id] = upto;
	x->touched |= UINT64_C(1) << id;
}

static size_t run(const struct ctx *x, size_t i, enum cset s)
{
	while (i < x->n && in(s, (unsigned char)x->b[i]))
		i++;
	return i;
}

static size_t skip_blank(const struct ctx *x, size_t i)
{
	while (i < x->n && is_blank((unsigned char)x->b[i]))
		i++;
	return i;
}

/* True when the byte before S is not in SET (S starts a token). */
static bool starts(const struct ctx *x, size_t s, enum cset set)
{
	if (s == 0 || !in(set, (unsigned char)x->b[s - 1]))
		return true;
	/* a colour code between them ("\033[1mtoken") parts them as a blank would */
	return x->map && x->map[s] != x->map[s - 1] + 1;
}

/* The end of the line's content: before its "\n" or "\r\n". */
static size_t content_end(const struct ctx *x)
{
	size_t e = x->n;

	while (e > 0 && is_eol((unsigned char)x->b[e - 1]))
		e--;
	return e;
}

static bool mixed_case(const char *p, size_t n, bool digit)
{
	bool up = false, lo = false, dg = false;

	for (size_t i = 0; i < n; i++) {
		up |= is_upper((unsigned char)p[i]);
		lo |= is_lower((unsigned char)p[i]);
		dg |= is_digit((unsigned char)p[i]);
	}
	return up && lo && (dg || !digit);
}

/* ---- validators of token shapes ---- */

/* A literal prefix followed by a run of SET of at least MIN bytes: "ghp_", "AIza", ... */
static void v_prefix(struct ctx *x, const struct trig *t, unsigned id, size_t s)
{
	size_t p = s + strlen(t->lit), e;

	/* a later hit in this run may start a token ("x_ya29.y" then "ya29.") */
	if (!starts(x, s, S_ALNUM)) {
		looked(x, id, s + 1);
		return;
	}
	e = run(x, p, (enum cset)t->set);
	looked(x, id, e);
	if (e - p < t->min)
		return;
	if ((t->flags & T_MIXED) && !mixed_case(x->b + p, e - p, false))
		return;
	propose(x, s, e, t->kind, P_PATTERN);
}

/* AKIA + exactly 16 of A-Z0-9, standing alone. */
static void v_aws_id(struct ctx *x, const struct trig *t, unsigned id, size_t s)
{
	size_t p = s + 4, e = run(x, p, S_UPNUM);

	looked(x, id, e);
	if (!starts(x, s, S_ALNUM) || e - p < 16)
		return;
	if (e - p == 16 && (e == x->n || !is_alnum((unsigned char)x->b[e])))
		propose(x, s, e, t->kind, P_PATTERN);
	else
		too_long(x, id, s, e);
}

/* xox[abeoprs]- then 10 or more of A-Za-z0-9-. */
static void v_slack(struct ctx *x, const struct trig *t, unsigned id, size_t s)
{
	size_t p = s + 3, e;

	if (!starts(x, s, S_ALNUM) || p + 1 >= x->n || !one_of((unsigned char)x->b[p], "abeoprs") ||
	    x->b[p + 1] != '-') {
		looked(x, id, s + 1);
		return;
	}
	e = run(x, p + 2, S_SLACK);
	looked(x, id, e);
	if (e - (p + 2) >= 10)
		propose(x, s, e, t->kind, P_PATTERN);
}

/* sk-ant-... (Anthropic) or sk-... with upper, lower and digits, 32 or more (OpenAI). */
static void v_sk(struct ctx *x, const struct trig *t, unsigned id, size_t s)
{
	size_t p = s + 3, e;

	(void)t;
	if (!starts(x, s, S_URLSAFE)) {
		looked(x, id, s + 1);
		return;
	}
	e = run(x, p, S_URLSAFE);
	looked(x, id, e);
	if (e - p >= 4 + 20 && !memcmp(x->b + p, "ant-", 4))
		propose(x, s, e, PM_REDACT_ANTHROPIC_API_KEY, P_PATTERN);
	else if (e - p >= 32 && mixed_case(x->b + p, e - p, true))
		propose(x, s, e, PM_REDACT_OPENAI_API_KEY, P_PATTERN);
}

/* dapi + 32 lowercase hex [+ -N]: a Databricks personal access token. */
static void v_dapi(struct ctx *x, const struct trig *t, unsigned id, size_t s)
{
	size_t p = s + 4, h = run(x, p, S_HEX), e = h;

	if (h - p == 32 && e + 1 < x->n && x->b[e] == '-' && is_digit((unsigned char)x->b[e + 1]))
		for (e += 2; e < x->n && is_digit((unsigned char)x->b[e]); e++)
			;
	looked(x, id, e);
	if (!starts(x, s, S_ALNUM) || h - p < 32)
		return;
	if (h - p == 32 && (e == x->n || !is_alnum((unsigned char)x->b[e])))
		propose(x, s, e, t->kind, P_PATTERN);
	else
		too_long(x, id, s, e);
}

/* SK + 32 hex: a Twilio API key SID. */
static void v_twilio(struct ctx *x, const struct trig *t, unsigned id, size_t s)
{
	size_t p = s + 2, e = run(x, p, S_HEX);

	looked(x, id, e);
	if (!starts(x, s, S_ALNUM) || e - p < 32)
		return;
	if (e - p == 32 && (e == x->n || !is_alnum((unsigned char)x->b[e])))
		propose(x, s, e, t->kind, P_PATTERN);
	else
		too_long(x, id, s, e);
}

/* SG.<16..32>.<30 or more>: a SendGrid API key. */
static void v_sendgrid(struct ctx *x, const struct trig *t, unsigned id, size_t s)
{
	size_t p = s + 3, e1, e2;

	if (!starts(x, s, S_ALNUM)) {
		looked(x, id, s + 1);
		return;
	}
	e1 = e2 = run(x, p, S_URLSAFE);
	if (e1 < x->n && x->b[e1] == '.')
		e2 = run(x, e1 + 1, S_URLSAFE);
	/* a first part too long may hold a later "SG." whose part is not */
	looked(x, id, e1 - p > 32 ? s + 1 : e2);
	if (e1 - p < 16)
		return;
	if (e1 - p <= 32 && e2 > e1 && e2 - e1 - 1 >= 30)
		propose(x, s, e2, t->kind, P_PATTERN);
}

/* Azure AD client secrets: 3 chars, a digit, "Q~", 30 to 40 more. */
static void v_azure_secret(struct ctx *x, const struct trig *t, unsigned id, size_t s)
{
	size_t e;

	/* turned down by what precedes it, it says nothing of a "Q~" later in its run */
	looked(x, id, s + 1);
	if (s < 4 || !is_digit((unsigned char)x->b[s - 1]) || !starts(x, s - 4, S_AZURE))
		return;
	for (size_t k = 2; k <= 4; k++)
		if (!in(S_AZURE, (unsigned char)x->b[s - k]))
			return;
	e = run(x, s + 2, S_AZURE);
	looked(x, id, e);
	if (e - (s + 2) >= 30 && e - (s + 2) <= 40)
		propose(x, s - 4, e, t->kind, P_PATTERN);
	else if (e - (s + 2) > 40)
		too_long(x, id, s, e);
}

/* eyJ...: a JWT (two base64url segments of 10 or more, a third), kubernetes-issued or not,
 * or a Neptune API token (base64 of {"api_address":...). */
static void v_jwt(struct ctx *x, const struct trig *t, unsigned id, size_t s)
{
	static const char neptune[] = "eyJhcGlfYWRkcmVzcyI6";
	size_t e, d1, d2;
	int kind = PM_REDACT_JWT;

	(void)t;
	if (!starts(x, s, S_URLSAFE)) {
		looked(x, id, s + 1);
		return;
	}
	if (x->n - s >= sizeof(neptune) - 1 && !memcmp(x->b + s, neptune, sizeof(neptune) - 1)) {
		e = run(x, s, S_B64);
		looked(x, id, e);
		if (e - s >= 40)
			propose(x, s, e, PM_REDACT_NEPTUNE_API_TOKEN, P_PATTERN);
		return;
	}
	e = run(x, s, S_URLSAFE_DOT);
	looked(x, id, e);
	d1 = run(x, s, S_URLSAFE);
	if (d1 >= e || d1 - s < 10)
		return;
	d2 = run(x, d1 + 1, S_URLSAFE);
	if (d2 >= e || d2 - d1 - 1 < 10)
		return;
	{
		unsigned char pl[768];
		size_t m = b64dec(x->b + d1 + 1, d2 - d1 - 1, pl, sizeof(pl));

		if (memmem(pl, m, "kubernetes", 10))
			kind = PM_REDACT_KUBERNETES_TOKEN;
	}
	propose(x, s, e, kind, P_PATTERN);
}

/* hooks.slack.com/{services,workflows,triggers}/... and .../api/webhooks/ID/TOKEN. */
static void v_webhook(struct ctx *x, const struct trig *t, unsigned id, size_t s)
{
	static const char *const sub[] = {"services/", "workflows/", "triggers/"};
	size_t p = s + strlen(t->lit), e;

	if (t->lit[0] == 'h') {
		size_t k;

		for (k = 0; k < 3; k++)
			if (x->n - p >= strlen(sub[k]) && !memcmp(x->b + p, sub[k], strlen(sub[k])))
				break;
		if (k == 3) {
			looked(x, id, p);
			return;
		}
		p += strlen(sub[k]);
	}
	e = run(x, p, S_HOOK);
	looked(x, id, e);
	if (e - p >= 16 && memchr(x->b + p, '/', e - p))
		propose(x, p, e, t->kind, P_PATTERN);
}

/* ---- private key blocks ---- */

/* Past the "-----" that closes a marker whose label starts at P (or P if none nearby). */
static size_t marker_end(const struct ctx *x, size_t p)
{
	size_t q = p;

	while (q < x->n && q - p < 64 &&
	       (is_upper((unsigned char)x->b[q]) || is_digit((unsigned char)x->b[q]) ||
		x->b[q] == ' '))
		q++;
	if (x->n - q >= 5 && !memcmp(x->b + q, "-----", 5))
		return q + 5;
	return p;
}

/* The first "-----END" at or after FROM, or NONE; remembered, as hits only move forward. */
static size_t find_end(struct ctx *x, size_t from)
{
	if (!x->end_known || from < x->end_from || (x->end_at != NONE && x->end_at < from)) {
		const char *m = memmem(x->b + from, x->n - from, "-----END", 8);

		x->end_from = from;
		x->end_at = m ? (size_t)(m - x->b) : NONE;
		x->end_known = true;
	}
	return x->end_at;
}

/* The kind of key a marker label at P names ("RSA PRIVATE KEY"), or -1; *ME: past it. */
static int key_label(const struct ctx *x, size_t p, size_t *me)
{
	size_t ll;
	const char *label = x->b + p;

	*me = marker_end(x, p);
	ll = *me > p ? *me - 5 - p : 0;
	if (ll == 21 && !memcmp(label, "PGP PRIVATE KEY BLOCK", 21))
		return PM_REDACT_PGP_PRIVATE_KEY;
	if (ll < 11 || memcmp(label + ll - 11, "PRIVATE KEY", 11))
		return -1;
	if ((ll >= 8 && !memcmp(label, "OPENSSH ", 8)) || (ll >= 5 && !memcmp(label, "SSH2 ", 5)))
		return PM_REDACT_SSH_PRIVATE_KEY;
	return PM_REDACT_PRIVATE_KEY;
}

static void v_pem(struct ctx *x, const struct trig *t, unsigned id, size_t s)
{
	size_t p = s + 11, me, ep, r;
	int kind = key_label(x, p, &me);

	(void)t;
	if (kind < 0) {
		looked(x, id, me > p ? me : s + 1);
		return;
	}
	ep = find_end(x, me);
	if (ep != NONE) {
		size_t ee = marker_end(x, ep + 9 <= x->n && x->b[ep + 8] == ' ' ? ep + 9 : ep + 8);

		looked(x, id, ee);
		propose(x, s, ee, kind, P_BLOCK);
		return;
	}
	r = skip_blank(x, me);
	if (r == x->n || is_eol((unsigned char)x->b[r])) {
		/* the body follows on the next lines: swallow them up to the END line */
		looked(x, id, x->n);
		propose(x, s, x->n, kind, P_BLOCK);
		if (!x->oom)
			x->block = kind;
	} else if (x->b[r] == '\\' || in(S_B64, (unsigned char)x->b[r])) {
		/* an escaped ("\n") or flattened key cut short: redact the rest of the line */
		looked(x, id, x->n);
		propose(x, s, content_end(x), kind, P_BLOCK);
	} else {
		/* the marker quoted in code or prose, no key after it */
		looked(x, id, me);
	}
}

/*
 * "-----END ... PRIVATE KEY-----" with no BEGIN before it on the line: the start of the
 * block was cut off (the tail of a capped capture).  Redact the key body before it on this
 * line, or remember it so that unit() takes back the body lines already copied out.
 */
static void v_pem_end(struct ctx *x, const struct trig *t, unsigned id, size_t s)
{
	size_t me, k = s;
	int kind = key_label(x, s + 9, &me);

	(void)t;
	looked(x, id, me > s + 9 ? me : s + 1);
	if (kind < 0 || s < x->covered)
		return;
	while (k > 0) {
		if (k >= 2 && x->b[k - 1] == 'n' && x->b[k - 2] == '\\')
			k -= 2;
		else if (in(S_B64, (unsigned char)x->b[k - 1]))
			k--;
		else
			break;
	}
	if (s - k >= 16)
		propose(x, k, me, kind, P_BLOCK);
	else if (x->orphan < 0 && s <= 32)
		x->orphan = kind, x->orphan_s = s, x->orphan_e = me;
}

/* ---- URLs with passwords ---- */

static bool db_scheme(const char *p, size_t n)
{
	static const char *const db[] = {"postgres", "postgresql",  "mysql",	  "mariadb",
					 "mongodb",  "mongodb+srv", "redis",	  "rediss",
					 "amqp",     "amqps",	    "mssql",	  "sqlserver",
					 "oracle",   "cockroachdb", "clickhouse", "couchdb",
					 "neo4j",    "neo4j+s",	    "cassandra",  "memcached",
					 "influxdb", "jdbc",	    "ldap",	  "ldaps"};

	const char *plus = memchr(p, '+', n);

	if (plus && n - (size_t)(plus - p) == 4 && !strncasecmp(plus, "+srv", 4))
		plus = NULL;
	if (plus) /* postgresql+psycopg2, mysql+pymysql: the driver after '+' */
		n = (size_t)(plus - p);
	for (size_t i = 0; i < sizeof(db) / sizeof(db[0]); i++)
		if (strlen(db[i]) == n && !strncasecmp(p, db[i], n))
			return true;
	return false;
}

static bool placeholder(const char *v, size_t n);
static size_t close_quote(const struct ctx *x, size_t vs, char q, bool esc);

static void v_url(struct ctx *x, const struct trig *t, unsigned id, size_t s)
{
	size_t a = s + 3, e = a, at = NONE, qh = NONE, at_qh = NONE, k = s, ps;
	const char *colon;

	(void)t;
	while (e < x->n && e - a < 1024) {
		unsigned char c = (unsigned char)x->b[e];

		if (c <= ' ' || one_of(c, "/\"'<>`\\"))
			break;
		if ((c == '?' || c == '#') && qh == NONE)
			qh = e, at_qh = at;
		if (c == '@')
			at = e;
		e++;
	}
	looked(x, id, e);
	/* a '?' or '#' before the '@' is a password's when the ':' before it is not a port's
	 * ("u:pa#ss@h"); else the query begins there ("h:8080?to=a@b") */
	colon = at != NONE ? memchr(x->b + a, ':', at - a) : NULL;
	if (qh != NONE && at != NONE && qh < at) {
		size_t d = colon ? (size_t)(colon - x->b) + 1 : qh;

		while (d < qh && is_digit((unsigned char)x->b[d]))
			d++;
		if (d >= qh)
			at = at_qh;
	}
	if (at == NONE)
		return;
	while (k > 0 && s - k < 32 && in(S_SCHEME, (unsigned char)x->b[k - 1]))
		k--;
	while (k < s && !is_upper((unsigned char)x->b[k]) && !is_lower((unsigned char)x->b[k]))
		k++;
	if (k == s)
		return;
	if (!(colon = memchr(x->b + a, ':', at - a)))
		return;
	ps = (size_t)(colon - x->b) + 1;
	if (ps < at && at - ps > 10 && !memcmp(x->b + ps, "[REDACTED:", 10)) {
		/* redacted already: the words before it are looked at no more than they were
		 * when it was proposed (a keyword in the user name, "x-access-token:") */
		if (at > x->covered)
			x->covered = at;
		return;
	}
	if (ps >= at || placeholder(x->b + ps, at - ps))
		return;
	propose(x, ps, at,
		db_scheme(x->b + k, s - k) ? PM_REDACT_DB_PASSWORD : PM_REDACT_URL_PASSWORD,
		P_NAMED);
}

/* ---- credentials after a scheme word: Bearer X, Basic X ---- */

/*
 * Past the white space after a scheme word ending at P: blanks, a no-break space, a URL's
 * "%20", or control characters (the view has dropped them: a gap in its map).  NONE when
 * there is none (the word goes on: "Bearers", "basicConfig").
 */
static size_t after_space(const struct ctx *x, size_t p)
{
	size_t q = p;

	for (;;) {
		if (q < x->n && is_blank((unsigned char)x->b[q]))
			q++;
		else if (x->n - q >= 2 && !memcmp(x->b + q, "\xc2\xa0", 2))
			q += 2;
		else if (x->n - q >= 3 && !memcmp(x->b + q, "%20", 3))
			q += 3;
		else
			break;
	}
	if (q == p && !(x->map && p < x->n && x->map[p] != x->map[p - 1] + 1))
		return NONE;
	return q;
}

static void v_bearer(struct ctx *x, const struct trig *t, unsigned id, size_t s)
{
	size_t p = after_space(x, s + 6), e, n;
	bool digit = false;

	(void)t;
	if (p == NONE) {
		looked(x, id, s + 6);
		return;
	}
	e = run(x, p, S_TOKEN68);
	n = e - p;
	looked(x, id, e);
	for (size_t i = p; i < e; i++)
		digit |= is_digit((unsigned char)x->b[i]);
	if (starts(x, s, S_ALNUM) && (n >= 16 || (n >= 8 && digit)))
		propose(x, p, e, PM_REDACT_BEARER_TOKEN, P_NAMED);
}

/* Basic <base64 of printable text holding a ':'>. */
static bool basic_cred(const char *p, size_t n)
{
	unsigned char d[768];
	size_t m;

	if (n < 8 || n > 1024)
		return false;
	m = b64dec(p, n, d, sizeof(d));
	if (m < 3 || !memchr(d, ':', m))
		return false;
	for (size_t i = 0; i < m; i++)
		if (d[i] < 0x20 || d[i] > 0x7e)
			return false;
	return true;
}

static void v_basic(struct ctx *x, const struct trig *t, unsigned id, size_t s)
{
	size_t p = after_space(x, s + 5), e;

	(void)t;
	if (p == NONE) {
		looked(x, id, s + 5);
		return;
	}
	e = run(x, p, S_B64);
	looked(x, id, e);
	if (starts(x, s, S_ALNUM) && basic_cred(x->b + p, e - p))
		propose(x, p, e, PM_REDACT_BASIC_AUTH, P_NAMED);
}

/* ---- commands that take a secret as an argument ---- */

/* The next blank-separated word at or after *P on this line: [*ws, *we); false at the end. */
static bool next_word(const struct ctx *x, size_t *p, size_t *ws, size_t *we)
{
	size_t i = skip_blank(x, *p), j = i;

	while (j < x->n && !is_blank((unsigned char)x->b[j]) && !is_eol((unsigned char)x->b[j]))
		j++;
	*ws = i;
	*we = j;
	*p = j;
	return j > i;
}

/* wandb login [--flags] KEY */
static void v_wandb(struct ctx *x, const struct trig *t, unsigned id, size_t s)
{
	size_t p = s + 11, ws, we;

	looked(x, id, x->n);
	if (!starts(x, s, S_ALNUM))
		return;
	while (next_word(x, &p, &ws, &we))
		if (we - ws >= 32 && run(x, ws, S_URLSAFE) == we)
			propose(x, ws, we, t->kind, P_PATTERN);
}

/* ---- password arguments of common tools ---- */

enum { A_GLUED = 1, A_SPACED = 2 }; /* "-pX" (--opt=X), "-p X" (--opt X) */

/* A command that takes a secret as an option's value: its word, the options, how. */
struct tool {
	const char *const cmds[5]; /* command words; "mysql*": any word of letters after it */
	const char *opts[4];	   /* the options whose value holds the secret */
	unsigned char how[4];
	char split;	  /* the secret follows this in the value (curl's user:pass), or 0 */
	const char *args; /* sshpass: options ending at its command; these take a value */
	bool service;	  /* smbclient //host/share PASSWORD */
	unsigned short kind;
};

static const struct tool tools[] = {
#define TOOL_MYSQL 0
	{{"mysql*", "mariadb*"}, {"-p"}, {A_GLUED}, 0, NULL, false, PM_REDACT_DB_PASSWORD},
#define TOOL_SSHPASS 1
	{{"sshpass"}, {"-p"}, {A_GLUED | A_SPACED}, 0, "fdP", false, PM_REDACT_PASSWORD},
#define TOOL_CURL 2
	{{"curl"},
	 {"-u", "--user", "-U", "--proxy-user"},
	 {A_GLUED | A_SPACED, A_GLUED | A_SPACED, A_GLUED | A_SPACED, A_GLUED | A_SPACED},
	 ':',
	 NULL,
	 false,
	 PM_REDACT_PASSWORD},
#define TOOL_LOGIN 3 /* docker login: the command is the word before "login" */
	{{"docker", "podman", "nerdctl", "buildah", "skopeo"},
	 {"-p", "--password"},
	 {A_GLUED | A_SPACED, A_GLUED | A_SPACED},
	 0,
	 NULL,
	 false,
	 PM_REDACT_PASSWORD},
#define TOOL_LOGIN2 4
	{{"oras", "crane", "registry", "helm"},
	 {"-p", "--password"},
	 {A_GLUED | A_SPACED, A_GLUED | A_SPACED},
	 0,
	 NULL,
	 false,
	 PM_REDACT_PASSWORD},
#define TOOL_LDAP 5
	{{"ldap*"}, {"-w"}, {A_GLUED | A_SPACED}, 0, NULL, false, PM_REDACT_PASSWORD},
#define TOOL_SMB 6
	{{"smbclient", "rpcclient", "smbcacls", "smbget", "smbmap"},
	 {"-U", "--user"},
	 {A_GLUED | A_SPACED, A_GLUED | A_SPACED},
	 '%',
	 NULL,
	 true,
	 PM_REDACT_PASSWORD},
};

/* Can a command word start at S (after a blank, a path, a quote, a shell operator)? */
static bool cmd_start(const struct ctx *x, size_t s)
{
	return s == 0 || is_blank((unsigned char)x->b[s - 1]) ||
	       one_of((unsigned char)x->b[s - 1], "/\"'`(;|&=$") ||
	       (x->map && x->map[s] != x->map[s - 1] + 1);
}

/* Is [ws, we) one of T's command words? */
static bool is_cmd(const struct ctx *x, const struct tool *t, size_t ws, size_t we)
{
	for (size_t k = 0; k < 5 && t->cmds[k]; k++) {
		size_t l = strlen(t->cmds[k]);
		const char *c = t->cmds[k];

		if (c[l - 1] == '*') {
			size_t i = ws + l - 1;

			if (we - ws < l - 1 || memcmp(x->b + ws, c, l - 1))
				continue;
			while (i < we && (is_lower((unsigned char)x->b[i]) || x->b[i] == '-'))
				i++;
			if (i == we)
				return true;
		} else if (we - ws == l && !memcmp(x->b + ws, c, l)) {
			return true;
		}
	}
	return false;
}

/* A word that ends the command: a pipe, a list, a comment. */
static bool cmd_end(const struct ctx *x, size_t ws)
{
	return one_of((unsigned char)x->b[ws], "|;&#)");
}

/* Propose the secret in the value at VS (to the word's end WE, or its closing quote), after
 * SPLIT when not 0; returns where scanning goes on. */
static size_t tool_value(struct ctx *x, const struct tool *t, size_t vs, size_t we, char split)
{
	size_t ve = we;
	const char *sp;

	if (vs < x->n && (x->b[vs] == '"' || x->b[vs] == '\'')) {
		size_t q = close_quote(x, vs + 1, x->b[vs], false);

		vs++;
		if (q < x->n && x->b[q] == x->b[vs - 1]) { /* closed: the value may hold blanks */
			ve = q;
			/* the words go on after the quote, whether what is glued to it ("'v'|")
			 * ended the value's first word or not: its tag holds no blank */
			we = ve + 1;
		}
	}
	/* the ';' that ends the command stays out of the tag: the words stop there the second
	 * time too ("-p x;") */
	if (ve == we)
		while (ve > vs && x->b[ve - 1] == ';')
			ve--;
	/* a value redacted already (its tag holds the ':' a split looks for) stays as it is */
	if (ve <= vs || memmem(x->b + vs, ve - vs, "[REDACTED:", 10))
		return we;
	if (split) {
		if (!(sp = memchr(x->b + vs, split, ve - vs)))
			return we; /* no password in it: the tool asks for one */
		vs = (size_t)(sp - x->b) + 1;
	}
	if (ve > vs && !placeholder(x->b + vs, ve - vs))
		propose(x, vs, ve, t->kind, P_NAMED);
	return we;
}

/* The options of T's command line from P on (the command word is before it). */
static void tool_args(struct ctx *x, const struct tool *t, size_t p)
{
	size_t ws, we;
	bool after_service = false;

	while (next_word(x, &p, &ws, &we) && !cmd_end(x, ws)) {
		bool done = false;

		for (int k = 0; k < 4 && t->opts[k] && !done; k++) {
			size_t l = strlen(t->opts[k]);
			bool lng = t->opts[k][1] == '-';

			if (we - ws < l || memcmp(x->b + ws, t->opts[k], l))
				continue;
			if (we - ws == l && (t->how[k] & A_SPACED)) {
				size_t vs, ve;

				if (next_word(x, &p, &vs, &ve) && !cmd_end(x, vs))
					p = tool_value(x, t, vs, ve, t->split);
				done = true;
			} else if (we - ws > l && (t->how[k] & A_GLUED) &&
				   (!lng || x->b[ws + l] == '=')) {
				p = tool_value(x, t, ws + l + lng, we, t->split);
				done = true;
			}
		}
		if (done) {
			after_service = false;
			continue;
		}
		if (t->service && after_service && x->b[ws] != '-')
			p = tool_value(x, t, ws, we, 0);
		after_service = t->service && we - ws > 2 &&
				(!memcmp(x->b + ws, "//", 2) || !memcmp(x->b + ws, "\\\\", 2));
		if (t->args && x->b[ws] != '-')
			break; /* sshpass: its command starts here */
		if (t->args && we - ws == 2 && one_of((unsigned char)x->b[ws + 1], t->args))
			next_word(x, &p, &ws, &we);
		if (x->b[we - 1] == ';')
			break;
	}
}

/* mysql -pSECRET, sshpass -p SECRET, curl -u user:SECRET, ldapsearch -w SECRET, ... */
static void v_tool(struct ctx *x, const struct trig *t, unsigned id, size_t s)
{
	const struct tool *tl = &tools[t->set];
	size_t p = s, ws, we;

	next_word(x, &p, &ws, &we);
	looked(x, id, we);
	if (!cmd_start(x, s) || !is_cmd(x, tl, ws, we))
		return;
	tool_args(x, tl, we);
	looked(x, id, x->n);
}

/* docker login -p SECRET: "login" after the command word. */
static void v_login(struct ctx *x, const struct trig *t, unsigned id, size_t s)
{
	size_t e = s + 5, ws = s;

	(void)t;
	looked(x, id, e);
	if (s < 2 || !is_blank((unsigned char)x->b[s - 1]) ||
	    (e < x->n && !is_blank((unsigned char)x->b[e])))
		return;
	while (ws > 0 && is_blank((unsigned char)x->b[ws - 1]))
		ws--;
	{
		size_t we = ws;

		while (ws > 0 && !is_blank((unsigned char)x->b[ws - 1]) && x->b[ws - 1] != '/')
			ws--;
		if (!is_cmd(x, &tools[TOOL_LOGIN], ws, we) &&
		    !is_cmd(x, &tools[TOOL_LOGIN2], ws, we))
			return;
	}
	tool_args(x, &tools[TOOL_LOGIN], e);
	looked(x, id, x->n);
}

/* mc alias set NAME URL ACCESS SECRET, mc config host add NAME URL ACCESS SECRET */
static void v_mc(struct ctx *x, const struct trig *t, unsigned id, size_t s)
{
	size_t p = s + strlen(t->lit), ws[4], we[4];
	int k;

	looked(x, id, x->n);
	for (k = 0; k < 4; k++)
		if (!next_word(x, &p, &ws[k], &we[k]))
			return;
	if (!memmem(x->b + ws[1], we[1] - ws[1], "://", 3))
		return;
	if (we[3] - ws[3] >= 2 && one_of((unsigned char)x->b[ws[3]], "\"'") &&
	    x->b[we[3] - 1] == x->b[ws[3]]) {
		ws[3]++;
		we[3]--;
	}
	if (!placeholder(x->b + ws[3], we[3] - ws[3]))
		propose(x, ws[3], we[3], t->kind, P_NAMED);
}

/* ---- NAME=value, --name value, "name": "value", name: value ---- */

/* What the last word of a variable name says its value is. */
enum cls {
	C_PASSWORD,
	C_PWD,
	C_SECRET,
	C_TOKEN,
	C_KEY,
	C_KEY_ID,
	C_AUTHZ,
	C_DOCKER,
	C_SIGNATURE,
	C_SIG,
	C_KAGGLE
};

struct ident {
	enum cls cls;
	int kind;
	enum prio prio;
	bool netrc; /* written exactly "password" */
};

static bool eq(const char *a, const char *b)
{
	return !strcmp(a, b);
}

static bool ends(const char *a, const char *suf)
{
	size_t n = strlen(a), m = strlen(suf);

	return n >= m && !strcmp(a + n - m, suf);
}

static bool in_list(const char *w, const char *const *list)
{
	for (; *list; list++)
		if (eq(w, *list))
			return true;
	return false;
}

/* Words before "token" that name a vocabulary entry, not a credential (pad_token, ...). */
static const char *const vocab_words[] =
	{"pad",	    "eos",     "bos",	      "unk",	"sep",	    "cls",   "mask",
	 "special", "start",   "end",	      "stop",	"image",    "img",   "vision",
	 "audio",   "video",   "placeholder", "max",	"min",	    "num",   "total",
	 "new",	    "prompt",  "input",	      "output", "next",	    "first", "last",
	 "cur",	    "current", "decoder",     "bad",	"eot",	    "sot",   "eod",
	 "eom",	    "boi",     "eoi",	      "fim",	"sentinel", "extra", "additional",
	 "added",   "default", "think",	      "tool",	"split",    "label", NULL};

/* One-word names of a password: SSHPASS=, keytool's -storepass and -keypass. */
static const char *const pass_words[] = {"sshpass",	  "storepass",
					 "keypass",	  "srcstorepass",
					 "deststorepass", "srckeypass",
					 "destkeypass",	  NULL};

/* Words before "key" that make it a credential (api_key, but not sort_key or public_key). */
static const char *const key_words[] = {"api",	      "secret",	 "access",	 "private",
					"account",    "storage", "auth",	 "master",
					"encryption", "signing", "subscription", "client",
					"app",	      "kaggle",	 "service",	 "shared",
					"sas",	      "license", "admin",	 "write",
					"read",	      "ingest",	 "upload",	 "deploy",
					NULL};

/* The variable name, squashed ("awssecretaccesskey"), naming a service's credential. */
static const struct {
	const char *sub;
	unsigned cls; /* bit mask of enum cls, 0 for all */
	unsigned short kind;
} named[] = {
	{"secretaccesskey", 0, PM_REDACT_AWS_SECRET_ACCESS_KEY},
	{"awssecret", 0, PM_REDACT_AWS_SECRET_ACCESS_KEY},
	{"sessiontoken", 0, PM_REDACT_AWS_SESSION_TOKEN},
	{"securitytoken", 0, PM_REDACT_AWS_SESSION_TOKEN},
	{"privatekey", 0, PM_REDACT_PRIVATE_KEY},
	{"accountkey", 0, PM_REDACT_AZURE_STORAGE_KEY},
	{"sharedaccesskey", 0, PM_REDACT_AZURE_STORAGE_KEY},
	{"storagekey", 0, PM_REDACT_AZURE_STORAGE_KEY},
	{"azurestorage", 0, PM_REDACT_AZURE_STORAGE_KEY},
	{"clientsecret", 0, PM_REDACT_CLIENT_SECRET},
	{"wandb", 0, PM_REDACT_WANDB_API_KEY},
	{"hugging", 0, PM_REDACT_HUGGINGFACE_TOKEN},
	{"hftoken", 0, PM_REDACT_HUGGINGFACE_TOKEN},
	{"hfapitoken", 0, PM_REDACT_HUGGINGFACE_TOKEN},
	{"hfhubtoken", 0, PM_REDACT_HUGGINGFACE_TOKEN},
	{"mlflow", 0, PM_REDACT_MLFLOW_CREDENTIAL},
	{"comet", 0, PM_REDACT_COMET_API_KEY},
	{"neptune", 0, PM_REDACT_NEPTUNE_API_TOKEN},
	{"kaggle", 0, PM_REDACT_KAGGLE_KEY},
	{"databricks", 0, PM_REDACT_DATABRICKS_TOKEN},
	{"openai", 0, PM_REDACT_OPENAI_API_KEY},
	{"anthropic", 0, PM_REDACT_ANTHROPIC_API_KEY},
	{"github", 0, PM_REDACT_GITHUB_TOKEN},
	{"ghtoken", 0, PM_REDACT_GITHUB_TOKEN},
	{"gitlab", 0, PM_REDACT_GITLAB_TOKEN},
	{"privatetoken", 0, PM_REDACT_GITLAB_TOKEN},
	{"slack", 0, PM_REDACT_SLACK_TOKEN},
	{"stripe", 0, PM_REDACT_STRIPE_KEY},
	{"twilio", 0, PM_REDACT_TWILIO_CREDENTIAL},
	{"sendgrid", 0, PM_REDACT_SENDGRID_API_KEY},
	{"npm", 0, PM_REDACT_NPM_TOKEN},
	{"pypi", 0, PM_REDACT_PYPI_TOKEN},
	{"twine", 0, PM_REDACT_PYPI_TOKEN},
	{"minio", 0, PM_REDACT_S3_SECRET_KEY},
	{"s3secret", 0, PM_REDACT_S3_SECRET_KEY},
	{"rclone", 0, PM_REDACT_S3_SECRET_KEY},
	{"pgpass", 1u << C_PASSWORD, PM_REDACT_DB_PASSWORD},
	{"dbpass", 1u << C_PASSWORD, PM_REDACT_DB_PASSWORD},
	{"database", 1u << C_PASSWORD, PM_REDACT_DB_PASSWORD},
	{"postgres", 1u << C_PASSWORD, PM_REDACT_DB_PASSWORD},
	{"mysql", 1u << C_PASSWORD, PM_REDACT_DB_PASSWORD},
	{"mariadb", 1u << C_PASSWORD, PM_REDACT_DB_PASSWORD},
	{"mongo", 1u << C_PASSWORD, PM_REDACT_DB_PASSWORD},
	{"redis", 1u << C_PASSWORD, PM_REDACT_DB_PASSWORD},
};

/* Does the squashed name SQ name a service (wandb_key, comet_key)? */
static bool provider(const char *sq)
{
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (!named[i].cls && strstr(sq, named[i].sub))
			return true;
	return false;
}

/*
 * Split the name P (LEN bytes) into words at '_', '-', '.' and case changes (apiKey,
 * APIKey), and decide from its last word whether its value is a credential.
 */
static bool classify(const char *p, size_t len, struct ident *id)
{
	char w[2][33] = {"", ""}, cur[33], sq[2 * IDMAX + 1];
	size_t cn = 0, sn = 0, nw = 0;
	const char *L = w[1], *P = w[0];

	for (size_t i = 0; i <= len; i++) {
		unsigned char c = i < len ? (unsigned char)p[i] : '_';
		bool sep = c == '_' || c == '-' || c == '.';
		bool camel = i > 0 && i < len && is_upper(c) &&
			     (is_lower((unsigned char)p[i - 1]) ||
			      is_digit((unsigned char)p[i - 1]) ||
			      (is_upper((unsigned char)p[i - 1]) && i + 1 < len &&
			       is_lower((unsigned char)p[i + 1])));

		if ((sep || camel) && cn) {
			if (cn > 32) /* too long to be one of ours */
				cn = 0, cur[cn++] = '~';
			cur[cn] = 0;
			memcpy(w[0], w[1], sizeof(w[0]));
			memcpy(w[1], cur, sizeof(w[1]));
			nw++;
			cn = 0;
		}
		if (sep)
			continue;
		if (cn < 32)
			cur[cn] = (char)(is_upper(c) ? c | 0x20 : c);
		cn++;
		if (sn < sizeof(sq) - 1)
			sq[sn++] = (char)(is_upper(c) ? c | 0x20 : c);
	}
	sq[sn] = 0;
	if (!nw)
		return false;
	{
		size_t n = strlen(w[1]);

		while (n > 1 && is_digit((unsigned char)w[1][n - 1]))
			w[1][--n] = 0;
	}
	id->netrc = len == 8 && !memcmp(p, "password", 8);
	id->prio = P_GENERIC;
	if (ends(L, "password") || ends(L, "passwd") || eq(L, "passphrase") ||
	    (eq(L, "pass") && nw >= 2) || in_list(L, pass_words))
		id->cls = C_PASSWORD, id->kind = PM_REDACT_PASSWORD;
	else if (eq(L, "pwd"))
		id->cls = C_PWD, id->kind = PM_REDACT_PASSWORD;
	else if (ends(L, "secret"))
		id->cls = C_SECRET, id->kind = PM_REDACT_SECRET;
	else if (ends(L, "token") && !(nw >= 2 && in_list(P, vocab_words)))
		id->cls = C_TOKEN, id->kind = PM_REDACT_TOKEN;
	else if (eq(L, "key") && nw == 1)
		id->cls = C_KAGGLE, id->kind = PM_REDACT_KAGGLE_KEY;
	else if ((eq(L, "key") && (in_list(P, key_words) || provider(sq))) || ends(L, "apikey") ||
		 ends(L, "secretkey") || ends(L, "accesskey") || ends(L, "privatekey") ||
		 ends(L, "accountkey") || ends(L, "authkey") || ends(L, "masterkey"))
		id->cls = C_KEY, id->kind = PM_REDACT_API_KEY;
	else if (eq(L, "id") && ends(sq, "privatekeyid"))
		id->cls = C_KEY_ID, id->kind = PM_REDACT_GCP_PRIVATE_KEY_ID;
	else if (eq(L, "authorization"))
		id->cls = C_AUTHZ, id->kind = PM_REDACT_TOKEN;
	else if (eq(L, "auth") && nw == 1)
		id->cls = C_DOCKER, id->kind = PM_REDACT_DOCKER_AUTH;
	else if (eq(L, "signature"))
		id->cls = C_SIGNATURE, id->kind = PM_REDACT_URL_SIGNATURE;
	else if (eq(L, "sig") && nw == 1)
		id->cls = C_SIG, id->kind = PM_REDACT_AZURE_SAS_TOKEN;
	else
		return false;
	if (id->cls > C_KEY)
		return true;
	if (eq(sq, L) && (eq(L, "password") || eq(L, "token") || eq(L, "secret")))
		return true; /* the bare keyword names no service: skip the table */
	if (eq(sq, "secretkey")) {
		id->kind = PM_REDACT_S3_SECRET_KEY, id->prio = P_NAMED;
		return true;
	}
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if ((!named[i].cls || (named[i].cls & (1u << id->cls))) &&
		    strstr(sq, named[i].sub)) {
			id->kind = named[i].kind;
			id->prio = P_NAMED;
			break;
		}
	return true;
}

/* Values that stand for no secret: empty, masked, null, a variable or template reference. */
static bool placeholder(const char *v, size_t n)
{
	static const char *const words[] = {"null",   "none",	   "nil",      "true",
					    "false",  "undefined", "redacted", "<redacted>",
					    "hidden", "masked",	   "<hidden>", "(null)",
					    NULL};
	char low[16];
	size_t i;

	if (!n || (n >= 9 && !memcmp(v, "[REDACTED", 9)))
		return true;
	if (v[0] == '$' && n >= 2 && (v[1] == '{' || v[1] == '(' || v[1] == '_' || is_alnum(v[1])))
		return true;
	if (n >= 2 && ((v[0] == '{' && v[1] == '{') || (v[0] == '%' && v[1] == '(')))
		return true;
	for (i = 0; i < n && v[i] == '*'; i++)
		;
	if (i == n)
		return true;
	for (i = 0; i < n && (v[i] == 'x' || v[i] == 'X'); i++)
		;
	if (i == n && n >= 3)
		return true;
	if (n >= sizeof(low))
		return false;
	for (i = 0; i < n; i++)
		low[i] = (char)(is_upper((unsigned char)v[i]) ? v[i] | 0x20 : v[i]);
	low[n] = 0;
	return in_list(low, words);
}

/* An unquoted value that is code: a call, or a field of a program object (traceback lines). */
static bool code_ref(const char *v, size_t n)
{
	static const char *const obj[] = {"self.", "args.", "cfg.",	"config.",   "conf.",
					  "opt.",  "opts.", "options.", "settings.", "params.",
					  "os.",   "env.",  "kwargs",	NULL};

	if (memchr(v, '(', n))
		return true;
	for (size_t k = 0; obj[k]; k++)
		if (n > strlen(obj[k]) && !memcmp(v, obj[k], strlen(obj[k])))
			return true;
	return false;
}

/* Values that a token, secret or key name holds in code and configs without being one. */
static bool not_a_credential(const char *v, size_t n, enum cls cls)
{
	static const char *const words[] = {"yes", "no", "on", "off", "required", "optional", NULL};
	bool digits = true;
	char low[12];

	if (n < 3 || v[0] == '/' || (n >= 2 && v[0] == '~' && v[1] == '/') ||
	    (n >= 2 && v[0] == '.' && (v[1] == '/' || v[1] == '.')))
		return true; /* too short, or a path */
	if (n < sizeof(low)) {
		for (size_t i = 0; i < n; i++)
			low[i] = (char)(is_upper((unsigned char)v[i]) ? v[i] | 0x20 : v[i]);
		low[n] = 0;
		if (in_list(low, words))
			return true;
	}
	for (size_t i = 0; i < n; i++)
		digits &= is_digit((unsigned char)v[i]) || v[i] == '.' || v[i] == '_' ||
			  v[i] == ',';
	if (cls == C_TOKEN &&
	    (digits || (v[0] == '<' && v[n - 1] == '>') || (v[0] == '[' && v[n - 1] == ']')))
		return true; /* token: 2048, eos_token: </s>, sep_token: [SEP] */
	return false;
}

/* Only blanks, "export " or "- " before the name at I: a line of a config or an env dump. */
static bool line_start(const struct ctx *x, size_t i)
{
	size_t p = skip_blank(x, 0);

	if (x->n - p >= 7 && !memcmp(x->b + p, "export ", 7))
		p = skip_blank(x, p + 7);
	else if (x->n - p >= 2 && x->b[p] == '-' && x->b[p + 1] == ' ')
		p = skip_blank(x, p + 2);
	return p == i;
}

/* Where an unquoted value that runs to the end of the line ends (YAML drops " # ..."). */
static size_t rest_of_line(const struct ctx *x, size_t vs, bool yaml)
{
	size_t e = content_end(x);

	if (yaml)
		for (size_t i = vs + 1; i < e; i++)
			if (x->b[i] == '#' && is_blank((unsigned char)x->b[i - 1])) {
				e = i;
				break;
			}
	while (e > vs && is_blank((unsigned char)x->b[e - 1]))
		e--;
	return e;
}

/* Where an unquoted value embedded in a line ends. */
static size_t word_end(const struct ctx *x, size_t vs)
{
	size_t e = vs;

	while (e < x->n && (unsigned char)x->b[e] > ' ' &&
	       !one_of((unsigned char)x->b[e], ",;&)]}\"'<>|`"))
		e++;
	return e;
}

/* The closing quote Q of a value starting at VS (honouring backslashes), or the end of
 * the line when it is not closed there.  ESC: the quotes are written \" (JSON in a string). */
static size_t close_quote(const struct ctx *x, size_t vs, char q, bool esc)
{
	for (size_t i = vs; i < x->n; i++) {
		if (esc && x->b[i] == '\\' && i + 1 < x->n && x->b[i + 1] == q)
			return i;
		if (!esc && x->b[i] == '\\' && q != '`') {
			i++;
			continue;
		}
		if (!esc && x->b[i] == q)
			return i;
		if (is_eol((unsigned char)x->b[i]))
			break;
	}
	return content_end(x);
}

/* Past an srun --label prefix ("12: ") that starts the line, or 0 when there is none. */
static size_t label_end(const struct ctx *x)
{
	size_t i = skip_blank(x, 0), d = i;

	while (d < x->n && x->b[d] >= '0' && x->b[d] <= '9')
		d++;
	if (d > i && d - i <= 7 && d + 1 < x->n && x->b[d] == ':' && x->b[d + 1] == ' ')
		return skip_blank(x, d + 1);
	return 0;
}

/* A .netrc entry: "machine H login U password P" on one line, or "password P" alone (under
 * an srun --label prefix too: `cat ~/.netrc` in a step). */
static bool netrc_form(struct ctx *x, size_t id0, size_t ve)
{
	if (!x->netrc_known) {
		static const char *const w[] = {"machine ", "login ", "default "};

		x->netrc_at = NONE;
		for (int k = 0; k < 3; k++) {
			const char *m = memmem(x->b, x->n, w[k], strlen(w[k]));

			while (m && m > x->b && !is_blank((unsigned char)m[-1]))
				m = memmem(m + 1, x->n - (size_t)(m + 1 - x->b), w[k],
					   strlen(w[k]));
			if (m && (size_t)(m - x->b) < x->netrc_at)
				x->netrc_at = (size_t)(m - x->b);
		}
		x->netrc_known = true;
	}
	if (x->netrc_at != NONE && x->netrc_at < id0)
		return true;
	return (skip_blank(x, 0) == id0 || label_end(x) == id0) &&
	       skip_blank(x, ve) == content_end(x);
}

static const char *const schemes[] = {"bearer", "basic", "token", "bot", "apikey", "key",
				      "ssws",	"jwt",	 "oauth", "sso", "dpop",   NULL};
static const char *const long_schemes[] = {"digest",	"negotiate",
					   "ntlm",	"aws4-hmac-sha256",
					   "hoba",	"mutual",
					   "sharedkey", "sharedaccesssignature",
					   "signature", "hmac",
					   NULL};

/* Authorization values: skip the scheme word and name the kind after it. */
static void authz_value(const struct ctx *x, size_t *vs, size_t *ve, bool quoted, int *kind)
{
	size_t w = *vs, e = w;
	char low[24];

	while (e < *ve && e - w < sizeof(low) - 1 &&
	       (is_alnum((unsigned char)x->b[e]) || x->b[e] == '-'))
		e++;
	if (e == w || e >= *ve || !is_blank((unsigned char)x->b[e]))
		return;
	for (size_t i = w; i < e; i++)
		low[i - w] = (char)(is_upper((unsigned char)x->b[i]) ? x->b[i] | 0x20 : x->b[i]);
	low[e - w] = 0;
	if (in_list(low, schemes)) {
		*vs = skip_blank(x, e);
		if (!quoted)
			*ve = word_end(x, *vs);
	} else if (in_list(low, long_schemes)) {
		*vs = skip_blank(x, e);
	} else {
		return;
	}
	*kind = eq(low, "bearer") ? PM_REDACT_BEARER_TOKEN :
		eq(low, "basic")  ? PM_REDACT_BASIC_AUTH :
				    PM_REDACT_TOKEN;
}

/* Does the value [vs, ve) suit the class of its name?  QUOTED: it was a string literal. */
static bool value_fits(const struct ctx *x, const struct ident *id, size_t id0, size_t vs,
		       size_t ve, bool quoted)
{
	const char *v = x->b + vs;
	size_t n = ve - vs;

	if (placeholder(v, n) || (!quoted && code_ref(v, n)))
		return false;
	switch (id->cls) {
	case C_PASSWORD:
	case C_AUTHZ:
		return true;
	case C_PWD:
		return v[0] != '/' && v[0] != '~';
	case C_DOCKER:
		return n >= 8 && run(x, vs, S_B64) >= ve;
	case C_KAGGLE:
		return n == 32 && run(x, vs, S_HEX) == ve && memmem(x->b, id0, "username", 8);
	case C_KEY_ID:
		return n >= 16 && run(x, vs, S_HEX) == ve;
	case C_SIGNATURE:
	case C_SIG:
		return n >= 16 && run(x, vs, S_SIG) >= ve;
	default:
		return !not_a_credential(v, n, id->cls);
	}
}

static void v_keyword(struct ctx *x, const struct trig *t, unsigned id, size_t s)
{
	const char *b = x->b;
	size_t n = x->n, ke = s + t->min, is = s, ie = ke, floor, id0, p, q, sp, v, vs, ve;
	char kq = 0, sep = 0, vq;
	bool kesc = false, vesc = false, dashes = false;
	struct ident idn;
	int kind;

	(void)id;
	if (s < x->kw_skip)
		return;
	/* a name glued to a secret proposed before starts where it ends, as its tag will */
	floor = x->covered <= s ? x->covered : 0;
	while (is > floor && s - is < IDMAX && in(S_IDENT, (unsigned char)b[is - 1]))
		is--;
	while (ie < n && ie - ke < IDMAX && in(S_IDENT, (unsigned char)b[ie]))
		ie++;
	x->kw_skip = ie;
	if ((is > floor && in(S_IDENT, (unsigned char)b[is - 1])) ||
	    (ie < n && in(S_IDENT, (unsigned char)b[ie])))
		return;
	id0 = is;
	while (is < s && b[is] == '-')
		is++, dashes = true;
	while (ie > ke && (b[ie - 1] == '.' || b[ie - 1] == '-'))
		ie--;
	p = ie;

	/* the name quoted: "name": / 'name': / \"name\": */
	if (id0 > floor && (b[id0 - 1] == '"' || b[id0 - 1] == '\'') && p < n &&
	    b[p] == b[id0 - 1]) {
		kq = b[p++];
	} else if (id0 > floor + 1 && b[id0 - 1] == '"' && b[id0 - 2] == '\\' && p + 1 < n &&
		   b[p] == '\\' && b[p + 1] == '"') {
		kq = '"', kesc = true, p += 2;
	}
	q = sp = skip_blank(x, p);
	if (q < n && b[q] == '=') {
		if (q + 1 < n && (b[q + 1] == '=' || b[q + 1] == '~'))
			return;
		sep = '=';
		q += q + 1 < n && b[q + 1] == '>' ? 2 : 1;
	} else if (q < n && b[q] == ':') {
		if (q + 1 < n && b[q + 1] == ':')
			return;
		sep = ':';
		q += q + 1 < n && b[q + 1] == '=' ? 2 : 1;
	} else if (!kq && q > p && q < n && !is_eol((unsigned char)b[q])) {
		sep = dashes ? ' ' : 'n';
	} else {
		return;
	}
	/* most hits end above (tokens/s, tokenizer.json): only now look at the name itself */
	if (!classify(b + is, ie - is, &idn))
		return;
	kind = idn.kind;
	if ((idn.cls == C_SIGNATURE || idn.cls == C_SIG) && sep != '=')
		return;
	if (idn.cls == C_SIG && (id0 == 0 || !one_of((unsigned char)b[id0 - 1], "?&;")))
		return;
	if ((idn.cls == C_DOCKER || idn.cls == C_KAGGLE) && (!kq || sep != ':'))
		return;
	if (sep == 'n' && (!idn.netrc || (idn.cls != C_PASSWORD)))
		return;
	/* "-pS3cretPass": a short option and its glued value (the tools' own validators read
	 * those), not an option named "...Pass" with a value after it */
	if (sep == ' ' && id0 + 1 == is && is + 1 < ie && is_lower((unsigned char)b[is]) &&
	    (is_upper((unsigned char)b[is + 1]) || is_digit((unsigned char)b[is + 1])))
		return;

	v = skip_blank(x, q);
	if (v >= n || is_eol((unsigned char)b[v]))
		return;
	vq = b[v];
	if (v + 1 < n && vq == '\\' && b[v + 1] == '"')
		vq = '"', vesc = true, v++;
	if (vq == '"' || vq == '\'' || vq == '`') {
		vs = v + 1;
		ve = close_quote(x, vs, vq, vesc);
	} else {
		if (kq && !kesc) /* JSON or a dict: numbers, null, objects are no secrets */
			return;
		if (sep == ' ' && vq == '-') /* --password --next-flag */
			return;
		vs = v;
		if (idn.cls == C_AUTHZ)
			ve = rest_of_line(x, vs, false);
		else if (!dashes && line_start(x, id0) && (sep == ':' || (sep == '=' && sp > p)))
			ve = rest_of_line(x, vs, sep == ':'); /* YAML, or INI "name = value" */
		else
			ve = word_end(x, vs);
	}
	if (idn.cls == C_AUTHZ) {
		authz_value(x, &vs, &ve, vq == '"' || vq == '\'' || vq == '`', &kind);
		idn.prio = P_NAMED;
	}
	if (sep == 'n') {
		if (!netrc_form(x, id0, ve))
			return;
		kind = PM_REDACT_NETRC_PASSWORD;
		idn.prio = P_NAMED;
	}
	if (ve <= vs || !value_fits(x, &idn, id0, vs, ve, vq == '"' || vq == '\'' || vq == '`'))
		return;
	propose(x, vs, ve, kind, idn.prio);
}

/* ---- the trigger table: one Vectorscan literal each ---- */

#define PFX(lit, set, min, kind)                    \
	{                                           \
		lit, 0, set, min, kind, 0, v_prefix \
	}
#define KW(lit, len, ci)                                   \
	{                                                  \
		lit, ci, 0, len, 0, T_COVERABLE, v_keyword \
	}

static const struct trig trigs[] = {
	{"AKIA", 0, 0, 16, PM_REDACT_AWS_ACCESS_KEY_ID, 0, v_aws_id},
	{"ASIA", 0, 0, 16, PM_REDACT_AWS_ACCESS_KEY_ID, 0, v_aws_id},
	{"ABIA", 0, 0, 16, PM_REDACT_AWS_ACCESS_KEY_ID, 0, v_aws_id},
	{"ACCA", 0, 0, 16, PM_REDACT_AWS_ACCESS_KEY_ID, 0, v_aws_id},
	PFX("AIza", S_URLSAFE, 30, PM_REDACT_GCP_API_KEY),
	PFX("ya29.", S_URLSAFE_DOT, 20, PM_REDACT_GCP_OAUTH_TOKEN),
	PFX("GOCSPX-", S_URLSAFE, 20, PM_REDACT_CLIENT_SECRET),
	{"Q~", 0, 0, 0, PM_REDACT_CLIENT_SECRET, 0, v_azure_secret},
	{"hf_", 0, S_ALNUM, 30, PM_REDACT_HUGGINGFACE_TOKEN, T_MIXED, v_prefix},
	{"api_org_", 0, S_ALNUM, 30, PM_REDACT_HUGGINGFACE_TOKEN, T_MIXED, v_prefix},
	PFX("ghp_", S_ALNUM, 30, PM_REDACT_GITHUB_TOKEN),
	PFX("gho_", S_ALNUM, 30, PM_REDACT_GITHUB_TOKEN),
	PFX("ghu_", S_ALNUM, 30, PM_REDACT_GITHUB_TOKEN),
	PFX("ghs_", S_ALNUM, 30, PM_REDACT_GITHUB_TOKEN),
	PFX("ghr_", S_ALNUM, 30, PM_REDACT_GITHUB_TOKEN),
	PFX("github_pat_", S_WORD, 30, PM_REDACT_GITHUB_TOKEN),
	PFX("glpat-", S_URLSAFE, 20, PM_REDACT_GITLAB_TOKEN),
	PFX("gldt-", S_URLSAFE, 20, PM_REDACT_GITLAB_TOKEN),
	PFX("glrt-", S_URLSAFE, 20, PM_REDACT_GITLAB_TOKEN),
	PFX("glptt-", S_URLSAFE, 20, PM_REDACT_GITLAB_TOKEN),
	{"xox", 0, 0, 0, PM_REDACT_SLACK_TOKEN, 0, v_slack},
	PFX("xapp-", S_SLACK, 20, PM_REDACT_SLACK_TOKEN),
	{"hooks.slack.com/", 0, 0, 0, PM_REDACT_WEBHOOK_URL, 0, v_webhook},
	{"/api/webhooks/", 0, 0, 0, PM_REDACT_WEBHOOK_URL, 0, v_webhook},
	PFX("sk_live_", S_ALNUM, 16, PM_REDACT_STRIPE_KEY),
	PFX("sk_test_", S_ALNUM, 16, PM_REDACT_STRIPE_KEY),
	PFX("rk_live_", S_ALNUM, 16, PM_REDACT_STRIPE_KEY),
	PFX("rk_test_", S_ALNUM, 16, PM_REDACT_STRIPE_KEY),
	PFX("whsec_", S_ALNUM, 24, PM_REDACT_STRIPE_KEY),
	{"sk-", 0, 0, 0, 0, 0, v_sk},
	{"eyJ", 0, 0, 0, 0, 0, v_jwt},
	PFX("npm_", S_ALNUM, 30, PM_REDACT_NPM_TOKEN),
	PFX("pypi-Ag", S_URLSAFE, 50, PM_REDACT_PYPI_TOKEN),
	{"dapi", 0, 0, 0, PM_REDACT_DATABRICKS_TOKEN, 0, v_dapi},
	{"SK", 0, 0, 0, PM_REDACT_TWILIO_CREDENTIAL, 0, v_twilio},
	{"SG.", 0, 0, 0, PM_REDACT_SENDGRID_API_KEY, 0, v_sendgrid},
	{"-----BEGIN ", 0, 0, 0, 0, 0, v_pem},
	{"-----END ", 0, 0, 0, 0, 0, v_pem_end},
	{"://", 0, 0, 0, 0, 0, v_url},
	{"bearer", 1, 0, 0, 0, T_COVERABLE, v_bearer},
	{"basic", 1, 0, 0, 0, T_COVERABLE, v_basic},
	{"wandb login", 0, 0, 0, PM_REDACT_WANDB_API_KEY, T_AHEAD, v_wandb},
	{"mysql", 0, TOOL_MYSQL, 0, 0, T_AHEAD, v_tool},
	{"mariadb", 0, TOOL_MYSQL, 0, 0, T_AHEAD, v_tool},
	{"sshpass", 0, TOOL_SSHPASS, 0, 0, T_AHEAD, v_tool},
	{"curl", 0, TOOL_CURL, 0, 0, T_AHEAD, v_tool},
	{"ldap", 0, TOOL_LDAP, 0, 0, T_AHEAD, v_tool},
	{"smb", 0, TOOL_SMB, 0, 0, T_AHEAD, v_tool},
	{"rpcclient", 0, TOOL_SMB, 0, 0, T_AHEAD, v_tool},
	{"login", 0, 0, 0, 0, T_AHEAD, v_login},
	{"alias set ", 0, 0, 0, PM_REDACT_S3_SECRET_KEY, T_AHEAD, v_mc},
	{"host add ", 0, 0, 0, PM_REDACT_S3_SECRET_KEY, T_AHEAD, v_mc},
	KW("pass", 4, 1),
	KW("pwd", 3, 1),
	KW("secret", 6, 1),
	KW("token", 5, 1),
	KW("key", 3, 1),
	KW("auth", 4, 1),
	KW("signature", 9, 1),
	KW("sig=", 3, 0),
};

#define NTRIG (sizeof(trigs) / sizeof(trigs[0]))
_Static_assert(NTRIG <= 64, "skip[] and touched hold 64 triggers");

static pthread_once_t db_once = PTHREAD_ONCE_INIT;
static hs_database_t *db;
static int db_errno;

static void db_build(void)
{
	const char *lit[NTRIG];
	unsigned flags[NTRIG], ids[NTRIG];
	size_t lens[NTRIG];
	hs_compile_error_t *ce = NULL;

	if (hs_valid_platform() != HS_SUCCESS) {
		db_errno = ENOTSUP;
		return;
	}
	for (unsigned i = 0; i < NTRIG; i++) {
		lit[i] = trigs[i].lit;
		lens[i] = strlen(trigs[i].lit);
		flags[i] = trigs[i].caseless ? HS_FLAG_CASELESS : 0;
		ids[i] = i;
	}
	if (hs_compile_lit_multi(lit, flags, ids, lens, NTRIG, HS_MODE_BLOCK, NULL, &db, &ce) !=
	    HS_SUCCESS) {
		hs_free_compile_error(ce);
		db = NULL;
		db_errno = ENOMEM;
	}
}

static int on_hit(unsigned int id, unsigned long long from, unsigned long long to,
		  unsigned int flags, void *arg)
{
	struct ctx *x = arg;
	const struct trig *t = &trigs[id];
	size_t s = (size_t)to - strlen(t->lit);

	(void)from;
	(void)flags;
	if ((x->touched >> id & 1) && s < x->skip[id])
		return 0;
	if ((t->flags & T_COVERABLE) && s < x->covered)
		return 0;
	if (t->flags & T_AHEAD) {
		size_t covered = x->covered;

		t->fn(x, t, id, s);
		x->covered = covered;
	} else {
		t->fn(x, t, id, s);
	}
	return x->oom;
}

/* ---- output ---- */

struct out {
	char *p;
	size_t n, cap;
};

static int put(struct out *o, const char *s, size_t n)
{
	if (n > o->cap - o->n) {
		size_t cap = o->cap;

		while (n > cap - o->n) {
			if (cap > SIZE_MAX / 2)
				return -1;
			cap *= 2;
		}
		char *p = realloc(o->p, cap);

		if (!p)
			return -1;
		o->p = p;
		o->cap = cap;
	}
	memcpy(o->p + o->n, s, n);
	o->n += n;
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->s != y->s)
		return x->s < y->s ? -1 : 1;
	return (int)y->prio - (int)x->prio;
}

static size_t ctl_len(const char *b, size_t n, size_t i);

/*
 * Where a tag for a span at S of B may start: before an escape sequence left open just
 * before it ("ESC", "ESC[1"), which the tag's "[" would extend on a second redaction, hiding
 * the tag from it.  The escape goes with the secret.
 */
static size_t tag_start(const char *b, size_t lo, size_t s, const char *tag, size_t tlen)
{
	char tmp[64 + 64];
	size_t i = s, k;

	while (i > lo && s - i < 64 && b[i - 1] != 0x1b)
		i--;
	if (i == lo || b[i - 1] != 0x1b || s - i >= 64)
		return s;
	i--;
	k = s - i;
	memcpy(tmp, b + i, k);
	memcpy(tmp + k, tag, tlen < 64 ? tlen : 64);
	return ctl_len(tmp, k + (tlen < 64 ? tlen : 64), 0) > ctl_len(b + i, k, 0) ? i : s;
}

/* Copy line B (N bytes) out with the proposed spans replaced. */
static int emit(struct ctx *x, struct out *o, const char *b, size_t n, struct pm_redact_stats *st)
{
	size_t pos = 0;

	if (x->nc > 1)
		qsort(x->c, x->nc, sizeof(x->c[0]), by_start);
	for (size_t i = 0; i < x->nc;) {
		struct cand m = x->c[i++];
		char tag[64];
		int len;

		while (i < x->nc && x->c[i].s < m.e) {
			if (x->c[i].e > m.e)
				m.e = x->c[i].e;
			if (x->c[i].prio > m.prio)
				m.prio = x->c[i].prio, m.kind = x->c[i].kind;
			i++;
		}
		len = snprintf(tag, sizeof(tag), "[REDACTED:%s]", kind_names[m.kind]);
		for (size_t at; (at = tag_start(b, pos, m.s, tag, (size_t)len)) != m.s;)
			m.s = at; /* "ESC ESC": the first would take the tag in turn */
		if (put(o, b + pos, m.s - pos) || put(o, tag, (size_t)len))
			return -1;
		pos = m.e;
		st->total++;
		st->by_kind[m.kind]++;
	}
	return put(o, b + pos, n - pos);
}

/*
 * Take back from the end of the output the lines that are key body: the prefix PRE (PLEN
 * bytes, what precedes the END marker on its line, "0: " under srun --label) then 1 to 128
 * base64 characters.  Returns whether any was taken.
 */
static bool take_back(struct out *o, const char *pre, size_t plen)
{
	size_t end = o->n;

	while (end > 0 && o->p[end - 1] == '\n') {
		size_t e = end - 1, s, k;

		if (e > 0 && o->p[e - 1] == '\r')
			e--;
		for (s = e; s > 0 && e - s <= plen + 128 && o->p[s - 1] != '\n'; s--)
			;
		if ((s > 0 && o->p[s - 1] != '\n') || e - s <= plen || memcmp(o->p + s, pre, plen))
			break;
		for (k = s + plen; k < e && in(S_B64, (unsigned char)o->p[k]); k++)
			;
		if (k != e)
			break;
		end = s;
	}
	if (end == o->n)
		return false;
	o->n = end;
	return true;
}

/* ---- control characters: scanned around, not through ---- */

/*
 * The length of the escape sequence or control character at B[I] (0: none): CSI ("\033[1;31m"),
 * the two- and three-byte escapes ("\033(B", "\033\\"), an OSC's "\033]" (its text stays: a
 * hyperlink's URL is text) and single C0 controls other than tab, CR, LF and NUL (binary
 * content keeps its NULs as boundaries).  Colour codes before or inside a secret would
 * otherwise hide it from every validator.
 */
static bool is_ctl(unsigned char c)
{
	return (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c) || c == 0x7f;
}

static size_t ctl_len(const char *b, size_t n, size_t i)
{
	unsigned char c = (unsigned char)b[i], d;
	size_t j;

	if (c == 0x1b) {
		if (i + 1 >= n)
			return 1;
		d = (unsigned char)b[i + 1];
		if (d == '[') {
			for (j = i + 2; j < n && j - i < 64 && b[j] >= 0x30 && b[j] <= 0x3f; j++)
				;
			for (; j < n && j - i < 64 && b[j] >= 0x20 && b[j] <= 0x2f; j++)
				;
			return j < n && b[j] >= 0x40 && b[j] <= 0x7e ? j + 1 - i : j - i;
		}
		if (one_of(d, "()*+-./") && i + 2 < n && b[i + 2] > ' ' && b[i + 2] < 0x7f)
			return 3;
		return d >= 0x40 && d <= 0x5f ? 2 : 1;
	}
	return is_ctl(c) ? 1 : 0;
}

/* Does B hold a control character?  Eight bytes at a time: this runs on every line. */
static bool has_ctl(const char *b, size_t n)
{
	const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
	size_t i = 0;

	while (n > 0 && is_eol((unsigned char)b[n - 1]))
		n--;

	for (; i + 8 <= n; i += 8) {
		uint64_t v, del;

		memcpy(&v, b + i, 8);
		del = v ^ (0x7f * ones);
		/* a byte below 0x20 or equal to 0x7f somewhere: look at each */
		if ((((v - 0x20 * ones) & ~v) | ((del - ones) & ~del)) & highs)
			for (size_t k = i; k < i + 8; k++)
				if (is_ctl((unsigned char)b[k]))
					return true;
	}
	for (; i < n; i++)
		if (is_ctl((unsigned char)b[i]))
			return true;
	return false;
}

/* Make X's view of line B (N bytes) without its control characters: X->b, X->n, X->map. */
static int ctl_view(struct ctx *x, const char *b, size_t n)
{
	size_t k = 0;

	if (n + 1 > x->cvcap) {
		char *cv = realloc(x->cv, n + 1);
		uint32_t *m;

		if (!cv)
			return -1;
		x->cv = cv;
		if (!(m = realloc(x->cmap, (n + 1) * sizeof(*m))))
			return -1;
		x->cmap = m;
		x->cvcap = n + 1;
	}
	for (size_t i = 0; i < n;) {
		size_t l = ctl_len(b, n, i);

		if (l) {
			i += l;
			continue;
		}
		x->cv[k] = b[i];
		x->cmap[k++] = (uint32_t)i++;
	}
	x->cmap[k] = (uint32_t)n;
	x->b = x->cv;
	x->n = k;
	x->map = x->cmap;
	return 0;
}

/* The proposed spans, found in the view, as spans of the line: a span keeps the control
 * characters inside it and leaves those before and after it. */
static void ctl_unmap(struct ctx *x)
{
	for (size_t i = 0; i < x->nc; i++) {
		struct cand *c = &x->c[i];

		c->e = x->map[c->e - 1] + 1;
		c->s = x->map[c->s];
	}
	x->map = NULL;
}

/* Redact one line (or piece) B of N bytes. */
/*
 * Look again at the shapes turned down for a run too long (too_long()) where a span proposed
 * since starts inside that run: the run ends there, as the redacted text (its tag) will
 * show, so that redacting twice changes nothing.  Spans proposed here may end other runs.
 */
static void settle(struct ctx *x)
{
	size_t n = x->n, m = x->ncut;

	for (bool more = true; more;) {
		more = false;
		for (size_t i = 0; i < m; i++) {
			size_t s = x->cut[i].s, e = x->cut[i].e, q = e + 1, nc = x->nc;
			unsigned id = x->cut[i].id;

			for (size_t j = 0; j < x->nc; j++)
				if (x->c[j].s > s && x->c[j].s < q)
					q = x->c[j].s;
			if (q > e)
				continue;
			x->n = q;
			trigs[id].fn(x, &trigs[id], id, s);
			x->n = n;
			x->ncut = m;	 /* what it notes again is what it is looked at for */
			x->cut[i].e = s; /* once */
			more |= x->nc > nc;
		}
	}
}

static int unit(struct ctx *x, struct out *o, const char *b, size_t n, hs_scratch_t *scratch,
		struct pm_redact_stats *st)
{
	x->map = NULL;
	if (x->block >= 0) {
		const char *e = memmem(b, n, "-----END", 8);
		size_t skip;

		if (!e)
			return 0; /* inside a key block */
		x->b = b;
		x->n = n;
		skip = (size_t)(e - b) + 8;
		if (skip < n && b[skip] == ' ')
			skip = marker_end(x, skip + 1);
		x->block = -1;
		b += skip;
		n -= skip;
	}
	x->b = b;
	x->n = n;
	if (has_ctl(b, n) && ctl_view(x, b, n) < 0)
		return -1;
	x->nc = 0;
	x->ncut = 0;
	x->covered = 0;
	x->touched = 0;
	x->kw_skip = 0;
	x->end_known = false;
	x->netrc_known = false;
	x->orphan = -1;
	if (x->n && hs_scan(db, x->b, (unsigned)x->n, 0, scratch, on_hit, x) != HS_SUCCESS &&
	    !x->oom)
		return -1;
	if (x->ncut && x->nc)
		settle(x);
	if (x->orphan >= 0 && take_back(o, x->b, x->orphan_s))
		propose(x, 0, x->orphan_e, x->orphan, P_BLOCK);
	if (x->oom)
		return -1;
	if (x->map)
		ctl_unmap(x);
	return emit(x, o, b, n, st);
}

/* The length of the next line or piece of BUF. */
static size_t unit_len(const char *buf, size_t len)
{
	const char *nl = memchr(buf, '\n', len < MAXLINE ? len : MAXLINE);

	if (nl)
		return (size_t)(nl - buf) + 1;
	if (len <= MAXLINE)
		return len;
	for (size_t i = MAXLINE; i > MAXLINE - CUTBACK; i--)
		if (is_blank((unsigned char)buf[i - 1]))
			return i;
	return MAXLINE;
}

int pm_redact(const char *buf, size_t len, char **out, size_t *outlen, struct pm_redact_stats *st)
{
	struct ctx x = {.block = -1};
	struct out o = {NULL, 0, 0};
	struct pm_redact_stats acc = {0};
	hs_scratch_t *scratch = NULL;
	int rc = -1, err = ENOMEM;

	if (!out || !outlen || (!buf && len)) {
		errno = EINVAL;
		return -1;
	}
	pthread_once(&db_once, db_build);
	if (!db) {
		errno = db_errno;
		return -1;
	}
	if (hs_alloc_scratch(db, &scratch) != HS_SUCCESS)
		goto out;
	o.cap = len < SIZE_MAX / 2 ? len + len / 16 + 64 : len;
	o.p = malloc(o.cap);
	if (!o.p)
		goto out;
	for (size_t pos = 0; pos < len;) {
		size_t n = unit_len(buf + pos, len - pos);

		if (unit(&x, &o, buf + pos, n, scratch, &acc))
			goto out;
		pos += n;
	}
	if (put(&o, "", 1))
		goto out;
	*out = o.p;
	*outlen = o.n - 1;
	o.p = NULL;
	if (st) {
		st->total += acc.total;
		for (int k = 0; k < PM_REDACT__COUNT; k++)
			st->by_kind[k] += acc.by_kind[k];
	}
	rc = 0;
out:
	free(o.p);
	free(x.c);
	free(x.cut);
	free(x.cv);
	free(x.cmap);
	hs_free_scratch(scratch);
	if (rc)
		errno = err;
	return rc;
}

char *pm_redact_text(const char *s, struct pm_redact_stats *st)
{
	char *out;
	size_t n;

	if (!s) {
		errno = EINVAL;
		return NULL;
	}
	if (pm_redact(s, strlen(s), &out, &n, st) < 0)
		return NULL;
	return out;
}
