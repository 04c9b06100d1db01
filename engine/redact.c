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
 * is copied out with them replaced.  This file holds the scan, the trigger table and the
 * output; the validators are redact_shapes.c's and redact_assign.c's (redact_int.h).
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
 * curl -u user:X, docker login -p X, az login -p X, ldapsearch -w X, smbclient -U user%X,
 * redis-cli -a X, mongosh -p X, openssl enc -k X) are read word by
 * word from the command to the end of its line or pipeline, so that the same option of
 * another command (ssh -p 22, docker run -p 80:80, mysql -p alone) is left alone; a login
 * that reads its secret from its standard input (gh auth login --with-token, docker login
 * --password-stdin) has what an echo or printf pipes into it, or a here-string, redacted.  A line
 * holding URL-encoded text ("%3A", "%3D", "%20": "Authorization%3A%20Bearer%20T",
 * "password%3Dv" in a query or a form) is scanned a second time decoded, and the spans found
 * are taken back to the line's bytes.
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

#include "internal.h"
#include "redact_int.h"
#include "ruleset.h"

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
	[PM_REDACT_COOKIE] = "cookie",
};

const char *pm_redact_kind_name(int kind)
{
	return kind >= 0 && kind < PM_REDACT__COUNT ? kind_names[kind] : NULL;
}

/* ---- the trigger table: one Vectorscan literal each ---- */

#define PFX(lit, set, min, kind)                        \
	{                                               \
		lit, 0, set, min, kind, 0, pm_rd_prefix \
	}
#define KW(lit, len, ci)                                       \
	{                                                      \
		lit, ci, 0, len, 0, T_COVERABLE, pm_rd_keyword \
	}

static const struct trig trigs[] = {
	{"AKIA", 0, S_UPNUM, 16, PM_REDACT_AWS_ACCESS_KEY_ID, 0, pm_rd_exact},
	{"ASIA", 0, S_UPNUM, 16, PM_REDACT_AWS_ACCESS_KEY_ID, 0, pm_rd_exact},
	{"ABIA", 0, S_UPNUM, 16, PM_REDACT_AWS_ACCESS_KEY_ID, 0, pm_rd_exact},
	{"ACCA", 0, S_UPNUM, 16, PM_REDACT_AWS_ACCESS_KEY_ID, 0, pm_rd_exact},
	PFX("AIza", S_URLSAFE, 30, PM_REDACT_GCP_API_KEY),
	PFX("ya29.", S_URLSAFE_DOT, 20, PM_REDACT_GCP_OAUTH_TOKEN),
	PFX("GOCSPX-", S_URLSAFE, 20, PM_REDACT_CLIENT_SECRET),
	{"Q~", 0, 0, 0, PM_REDACT_CLIENT_SECRET, 0, pm_rd_azure_secret},
	{"hf_", 0, S_ALNUM, 30, PM_REDACT_HUGGINGFACE_TOKEN, T_MIXED, pm_rd_prefix},
	{"api_org_", 0, S_ALNUM, 30, PM_REDACT_HUGGINGFACE_TOKEN, T_MIXED, pm_rd_prefix},
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
	{"xox", 0, 0, 0, PM_REDACT_SLACK_TOKEN, 0, pm_rd_slack},
	PFX("xapp-", S_SLACK, 20, PM_REDACT_SLACK_TOKEN),
	{"hooks.slack.com/", 0, 0, 0, PM_REDACT_WEBHOOK_URL, 0, pm_rd_webhook},
	{"/api/webhooks/", 0, 0, 0, PM_REDACT_WEBHOOK_URL, 0, pm_rd_webhook},
	PFX("sk_live_", S_ALNUM, 16, PM_REDACT_STRIPE_KEY),
	PFX("sk_test_", S_ALNUM, 16, PM_REDACT_STRIPE_KEY),
	PFX("rk_live_", S_ALNUM, 16, PM_REDACT_STRIPE_KEY),
	PFX("rk_test_", S_ALNUM, 16, PM_REDACT_STRIPE_KEY),
	PFX("whsec_", S_ALNUM, 24, PM_REDACT_STRIPE_KEY),
	{"sk-", 0, 0, 0, 0, 0, pm_rd_sk},
	{"eyJ", 0, 0, 0, 0, 0, pm_rd_jwt},
	PFX("npm_", S_ALNUM, 30, PM_REDACT_NPM_TOKEN),
	PFX("pypi-Ag", S_URLSAFE, 50, PM_REDACT_PYPI_TOKEN),
	{"dapi", 0, 0, 0, PM_REDACT_DATABRICKS_TOKEN, 0, pm_rd_dapi},
	{"SK", 0, S_HEX, 32, PM_REDACT_TWILIO_CREDENTIAL, 0, pm_rd_exact},
	{"SG.", 0, 0, 0, PM_REDACT_SENDGRID_API_KEY, 0, pm_rd_sendgrid},
	{"-----BEGIN ", 0, 0, 0, 0, 0, pm_rd_pem},
	{"-----END ", 0, 0, 0, 0, 0, pm_rd_pem_end},
	{"://", 0, 0, 0, 0, 0, pm_rd_url},
	{"bearer", 1, 0, 0, 0, T_COVERABLE, pm_rd_bearer},
	{"basic", 1, 0, 0, 0, T_COVERABLE, pm_rd_basic},
	{"wandb login", 0, 0, 0, PM_REDACT_WANDB_API_KEY, T_AHEAD, pm_rd_wandb},
	{"mysql", 0, TOOL_MYSQL, 0, 0, T_AHEAD, pm_rd_tool},
	{"mariadb", 0, TOOL_MYSQL, 0, 0, T_AHEAD, pm_rd_tool},
	{"sshpass", 0, TOOL_SSHPASS, 0, 0, T_AHEAD, pm_rd_tool},
	{"curl", 0, TOOL_CURL, 0, 0, T_AHEAD, pm_rd_tool},
	{"ldap", 0, TOOL_LDAP, 0, 0, T_AHEAD, pm_rd_tool},
	{"smb", 0, TOOL_SMB, 0, 0, T_AHEAD, pm_rd_tool},
	{"rpcclient", 0, TOOL_SMB, 0, 0, T_AHEAD, pm_rd_tool},
	{"redis-cli", 0, TOOL_REDIS, 0, 0, T_AHEAD, pm_rd_tool},
	{"mongo", 0, TOOL_MONGO, 0, 0, T_AHEAD, pm_rd_tool},
	{"openssl", 0, TOOL_OPENSSL, 0, 0, T_AHEAD, pm_rd_tool},
	{"cookie", 1, 0, 0, 0, 0, pm_rd_cookie},
	{"login", 0, 0, 0, 0, T_AHEAD, pm_rd_login},
	{"alias set ", 0, 0, 0, PM_REDACT_S3_SECRET_KEY, T_AHEAD, pm_rd_mc},
	{"host add ", 0, 0, 0, PM_REDACT_S3_SECRET_KEY, T_AHEAD, pm_rd_mc},
	KW("pass", 4, 1),
	KW("pwd", 3, 1),
	KW("secret", 6, 1),
	KW("token", 5, 1),
	KW("key", 3, 1),
	KW("auth", 4, 1),
	KW("signature", 9, 1),
	KW("sig=", 3, 0),
	/* the 65th and later: skip[] and touched[] hold TRIGMAX */
	{"--with-token", 0, 0, 0, PM_REDACT_TOKEN, T_AHEAD, pm_rd_stdin},
	{"--password-stdin", 0, 0, 0, PM_REDACT_PASSWORD, T_AHEAD, pm_rd_stdin},
};

#define NTRIG (sizeof(trigs) / sizeof(trigs[0]))
/* skip[] and touched[] hold TRIGMAX triggers: a bit mask reset in a few words a line, not an
 * array of TRIGMAX offsets, so that ordinary lines (a hit or none) cost nothing for it */
_Static_assert(NTRIG <= TRIGMAX && TRIGMAX % 64 == 0, "skip[] and touched[] hold TRIGMAX");

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
	if (hs_compile_lit_multi(lit, flags, ids, lens, NTRIG, HS_MODE_BLOCK, pm_hs_platform(), &db,
				 &ce) != HS_SUCCESS) {
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
	if ((x->touched[id / 64] >> (id % 64) & 1) && s < x->skip[id])
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

/* Copy bytes [LO, HI) of line B out with the proposed spans replaced (the parts of them
 * inside [LO, HI): a piece of a long line is scanned with some of the line around it). */
static int emit(struct ctx *x, struct out *o, const char *b, size_t lo, size_t hi,
		struct pm_redact_stats *st)
{
	size_t pos = lo;

	if (x->nc > 1)
		pm_sort(x->c, x->nc, sizeof(x->c[0]), by_start);
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
		if (m.s < lo)
			m.s = lo;
		if (m.e > hi)
			m.e = hi;
		if (m.e <= m.s)
			continue;
		len = snprintf(tag, sizeof(tag), "[REDACTED:%s]", kind_names[m.kind]);
		for (size_t at; (at = tag_start(b, pos, m.s, tag, (size_t)len)) != m.s;)
			m.s = at; /* "ESC ESC": the first would take the tag in turn */
		if (put(o, b + pos, m.s - pos) || put(o, tag, (size_t)len))
			return -1;
		pos = m.e;
		st->total++;
		st->by_kind[m.kind]++;
	}
	return put(o, b + pos, hi - pos);
}

/*
 * Line [S, E) of the output (its line end excluded), looking back from an END marker whose
 * line starts with PRE (PLEN bytes): 1 key body to take back (the prefix, or one alike but
 * for its digits, then 1 to 128 base64 characters), 0 another rank's line or a later stamp
 * between the body lines (the prefix alike, something else after it), -1 none of those.
 */
static int body_line(const char *p, size_t s, size_t e, const char *pre, size_t plen)
{
	size_t k;

	if (e - s <= plen || !same_shape(p + s, pre, plen))
		return -1;
	for (k = s + plen; k < e && in(S_B64, (unsigned char)p[k]); k++)
		;
	if (k == e && e - s - plen <= 128)
		return 1;
	/* interleaved, unless it is where the key or other text began */
	if (!plen || p[s + plen] == '[' || p[s + plen] == '-')
		return -1;
	return 0;
}

/*
 * Take back from the end of the output the lines that are key body (body_line()), up to 1024
 * lines back, keeping the lines of other ranks between them.  Returns whether any was taken.
 */
static bool take_back(struct out *o, const char *pre, size_t plen)
{
	size_t end = o->n, lo = o->n;
	int lines = 0;

	while (end > 0 && o->p[end - 1] == '\n' && lines++ < 1024) {
		size_t e = end - 1, s;
		int b;

		if (e > 0 && o->p[e - 1] == '\r')
			e--;
		for (s = e; s > 0 && e - s <= plen + 128 && o->p[s - 1] != '\n'; s--)
			;
		if (s > 0 && o->p[s - 1] != '\n')
			break;
		if ((b = body_line(o->p, s, e, pre, plen)) < 0)
			break;
		if (b)
			lo = s;
		end = s;
	}
	if (lo == o->n)
		return false;
	/* the lines from LO on, less the body's */
	for (size_t r = lo; r < o->n;) {
		const char *nl = memchr(o->p + r, '\n', o->n - r);
		size_t next = (size_t)(nl - o->p) + 1, e = next - 1;

		if (e > r && o->p[e - 1] == '\r')
			e--;
		if (body_line(o->p, r, e, pre, plen) == 0) {
			memmove(o->p + lo, o->p + r, next - r);
			lo += next - r;
		}
		r = next;
	}
	o->n = lo;
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

/* Room in X's view (X->cv, X->cmap) for a line of N bytes.  0, or -1 on ENOMEM. */
static int view_room(struct ctx *x, size_t n)
{
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
	return 0;
}

/* Make X's view of line B (N bytes) without its control characters: X->b, X->n, X->map. */
static int ctl_view(struct ctx *x, const char *b, size_t n)
{
	size_t k = 0;

	if (view_room(x, n) < 0)
		return -1;
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

/* ---- URL-encoded text: scanned decoded too ---- */

/*
 * The character "%XX" at B[I] stands for, when it is one that parts or joins a name and its
 * value (":", "=", a blank, "&", quotes, ",", ";") or a base64 character a token may hold
 * ("+", "/"); 0 otherwise.
 */
static char esc_char(const char *b, size_t n, size_t i)
{
	int v = 0;

	if (n - i < 3 || b[i] != '%')
		return 0;
	for (size_t k = i + 1; k < i + 3; k++) {
		unsigned char c = (unsigned char)b[k] | 0x20;

		if (is_digit(c))
			v = v * 16 + (c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v * 16 + (c - 'a' + 10);
		else
			return 0;
	}
	return one_of((unsigned char)v, " \"&',;:=+/") ? (char)v : 0;
}

/* Does B hold "%3A", "%3D" or "%20": an assignment or a header written URL-encoded? */
static bool has_esc(const char *b, size_t n)
{
	for (const char *p = b; (p = memchr(p, '%', n - (size_t)(p - b))); p++) {
		char c = esc_char(b, n, (size_t)(p - b));

		if (c == ':' || c == '=' || c == ' ')
			return true;
	}
	return false;
}

/*
 * Scan line B (N bytes) again, decoded ("Authorization%3A%20Bearer%20T",
 * "password%3Dv%26x%3D1"): the spans found are added to those of the first scan, in the
 * line's bytes (a span ending on an escape takes the whole of it).  Key blocks are the first
 * scan's alone.
 */
static int esc_pass(struct ctx *x, const char *b, size_t n, hs_scratch_t *scratch)
{
	size_t nc0 = x->nc, k = 0;
	struct cand *first = NULL;
	int block = x->block;

	if (view_room(x, n) < 0)
		return -1;
	for (size_t i = 0; i < n; k++) {
		char c = esc_char(b, n, i);

		x->cmap[k] = (uint32_t)i;
		x->cv[k] = c ? c : b[i];
		i += c ? 3 : 1;
	}
	x->cmap[k] = (uint32_t)n;
	if (nc0 && !(first = malloc(nc0 * sizeof(*first))))
		return -1;
	if (nc0)
		memcpy(first, x->c, nc0 * sizeof(*first));
	x->b = x->cv;
	x->n = k;
	x->map = NULL; /* the view has no gaps: "%20" is a blank, not a control character */
	x->nc = x->ncut = x->covered = x->kw_skip = 0;
	memset(x->touched, 0, sizeof(x->touched));
	x->end_known = x->netrc_known = x->stop_known = x->op_known = false;
	if (pm_hs_chunk(db, NULL, x->b, x->n, scratch, on_hit, x) != HS_SUCCESS && !x->oom) {
		free(first);
		return -1;
	}
	if (x->ncut && x->nc)
		settle(x);
	x->block = block;
	x->orphan = -1;
	for (size_t i = 0; i < x->nc; i++) {
		x->c[i].s = x->cmap[x->c[i].s];
		x->c[i].e = x->cmap[x->c[i].e]; /* past the escape its last character was */
	}
	x->b = b;
	x->n = n;
	for (size_t i = 0; i < nc0 && !x->oom; i++)
		propose(x, first[i].s, first[i].e, first[i].kind, first[i].prio);
	free(first);
	return x->oom ? -1 : 0;
}

/*
 * A key block that another rank's line ended (x->blk_resume): line B (N bytes) under the
 * BEGIN line's own prefix holding base64 alone is the key's, copied out with its content
 * redacted (1; -1 out of memory); such a line holding anything else, or any line with an
 * END marker, ends that (0); another rank's line leaves it on (0: B is scanned as any line).
 */
static int resumed(struct ctx *x, struct out *o, const char *b, size_t n,
		   struct pm_redact_stats *st)
{
	size_t p = x->blk_plen, e = n, k;
	char tag[64];
	int len;

	while (e > 0 && is_eol((unsigned char)b[e - 1]))
		e--;
	if (memmem(b, n, "-----END", 8)) {
		x->blk_resume = -1;
		return 0;
	}
	if (e < p || memcmp(b, x->blk_pre, p))
		return 0;
	for (k = p; k < e && in(S_B64, (unsigned char)b[k]); k++)
		;
	if (k != e || k == p) {
		x->blk_resume = -1;
		return 0;
	}
	len = snprintf(tag, sizeof(tag), "[REDACTED:%s]", kind_names[x->blk_resume]);
	if (put(o, b, p) || put(o, tag, (size_t)len) || put(o, b + e, n - e))
		return -1;
	st->total++;
	st->by_kind[x->blk_resume]++;
	return 1;
}

/* Redact one line (or piece) B of N bytes: copy out its bytes [LO, HI) (a piece of a long
 * line comes with some of the line around it, which is scanned, not copied). */
static int unit(struct ctx *x, struct out *o, const char *b, size_t n, size_t lo, size_t hi,
		hs_scratch_t *scratch, struct pm_redact_stats *st)
{
	x->map = NULL;
	if (x->blk_resume >= 0 && x->block < 0 && lo == 0 && hi == n) {
		int r = resumed(x, o, b, n, st);

		if (r)
			return r < 0 ? -1 : 0;
	}
	if (x->block >= 0) {
		const char *e = memmem(b, n, "-----END", 8);

		x->b = b;
		x->n = n;
		if (e) {
			size_t skip = (size_t)(e - b) + 8;

			if (skip < n && b[skip] == ' ')
				skip = pm_rd_marker_end(x, skip + 1);
			b += skip;
			n -= skip;
			lo = 0; /* no piece of a long line comes here: redact_with() */
			hi = n;
		} else {
			if (has_ctl(b, n) && ctl_view(x, b, n) < 0)
				return -1;
			if (pm_rd_key_body(x))
				return 0; /* inside a key block */
			/* not the key's: the block ends before this line, and the line end its
			 * BEGIN line's tag took comes back, or this line would join the tag.
			 * Another rank's line: the key's own may go on after it */
			if (x->blk_plen && x->blk_plen != NONE && !x->blk_quote &&
			    x->n >= x->blk_plen && memcmp(x->b, x->blk_pre, x->blk_plen) &&
			    same_shape(x->b, x->blk_pre, x->blk_plen))
				x->blk_resume = x->block;
			x->map = NULL;
			if (put(o, x->blk_eol, x->blk_eollen))
				return -1;
		}
		x->block = -1;
	}
	x->b = b;
	x->n = n;
	if (has_ctl(b, n) && ctl_view(x, b, n) < 0)
		return -1;
	x->nc = 0;
	x->ncut = 0;
	x->covered = 0;
	memset(x->touched, 0, sizeof(x->touched));
	x->kw_skip = 0;
	x->end_known = false;
	x->netrc_known = false;
	x->stop_known = false;
	x->op_known = false;
	x->orphan = -1;
	if (x->n && pm_hs_chunk(db, NULL, x->b, x->n, scratch, on_hit, x) != HS_SUCCESS && !x->oom)
		return -1;
	if (x->ncut && x->nc)
		settle(x);
	if (x->orphan >= 0 && take_back(o, x->b, x->orphan_s))
		propose(x, 0, x->orphan_e, x->orphan, P_BLOCK);
	if (x->oom)
		return -1;
	if (x->map)
		ctl_unmap(x);
	if (has_esc(b, n) && esc_pass(x, b, n, scratch) < 0)
		return -1;
	return emit(x, o, b, lo, hi, st);
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

/* pm_redact with a Vectorscan scratch kept in *SCRATCH across calls (allocated on the first
 * call: its allocation costs more than redacting one short line). */
static int redact_with(const char *buf, size_t len, char **out, size_t *outlen,
		       struct pm_redact_stats *st, hs_scratch_t **scratch)
{
	struct ctx x = {.block = -1, .blk_resume = -1};
	struct out o = {NULL, 0, 0};
	struct pm_redact_stats acc = {0};
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
	if (!*scratch && hs_alloc_scratch(db, scratch) != HS_SUCCESS)
		goto out;
	o.cap = len < SIZE_MAX / 2 ? len + len / 16 + 64 : len;
	o.p = malloc(o.cap);
	if (!o.p)
		goto out;
	for (size_t pos = 0; pos < len;) {
		size_t n = unit_len(buf + pos, len - pos), lb = 0, la = 0;

		/* a piece of a line longer than MAXLINE is scanned with up to CUTBACK bytes of the
		 * line before and after it, so that what the cut parts (a name and its value, a
		 * secret) is still seen whole; only the piece's own bytes are copied out, with
		 * the part of each secret they hold.  Key blocks do not span pieces. */
		if (x.block < 0 && pos > 0 && buf[pos - 1] != '\n')
			lb = pos < CUTBACK ? pos : CUTBACK;
		if (x.block < 0 && pos + n < len && buf[pos + n - 1] != '\n') {
			size_t m = len - pos - n < CUTBACK ? len - pos - n : CUTBACK;
			const char *nl = memchr(buf + pos + n, '\n', m);

			la = nl ? (size_t)(nl - (buf + pos + n)) : m;
		}
		if (unit(&x, &o, buf + pos - lb, lb + n + la, lb, lb + n, *scratch, &acc))
			goto out;
		if (la)
			x.block = -1; /* a BEGIN marker that the line goes on after opens none */
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
	if (rc)
		errno = err;
	return rc;
}

int pm_redact(const char *buf, size_t len, char **out, size_t *outlen, struct pm_redact_stats *st)
{
	hs_scratch_t *scratch = NULL;
	int rc = redact_with(buf, len, out, outlen, st, &scratch), err = errno;

	hs_free_scratch(scratch);
	errno = err;
	return rc;
}

char *pm_redact_text_reuse(const char *s, struct hs_scratch **scratch)
{
	if (!s) {
		errno = EINVAL;
		return NULL;
	}
	return pm_redact_span_reuse(s, strlen(s), scratch);
}

char *pm_redact_span_reuse(const char *s, size_t len, struct hs_scratch **scratch)
{
	char *out, *fit;
	size_t n;

	if (redact_with(s, len, &out, &n, NULL, scratch) < 0)
		return NULL;
	/* kept as long as the evidence (a line of every observation): the room left for
	 * replacements (len / 16 + 64 bytes) is given back */
	if ((fit = realloc(out, n + 1)))
		out = fit;
	return out;
}

void pm_redact_scratch_free(struct hs_scratch *scratch)
{
	hs_free_scratch(scratch);
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
