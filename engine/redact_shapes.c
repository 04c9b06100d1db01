/*
 * redact_shapes.c - the redactor's validators of token shapes (provider prefixes, JWTs,
 * webhook URLs), private key blocks, URLs with passwords (a '/' in the password included)
 * or a token for their user name, credentials after a scheme word and the commands that take
 * a secret as an argument (redact.c, "how it works").
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "redact_int.h"

/* ---- validators of token shapes ---- */

/* A literal prefix followed by a run of SET of at least MIN bytes: "ghp_", "AIza", ... */
void pm_rd_prefix(struct ctx *x, const struct trig *t, unsigned id, size_t s)
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

/* A literal prefix followed by exactly MIN of SET, standing alone: "AKIA" + 16 of A-Z0-9
 * (an AWS access key id), "SK" + 32 hex (a Twilio API key SID).  A longer run is too long. */
void pm_rd_exact(struct ctx *x, const struct trig *t, unsigned id, size_t s)
{
	size_t p = s + strlen(t->lit), e = run(x, p, (enum cset)t->set);

	looked(x, id, e);
	if (!starts(x, s, S_ALNUM) || e - p < t->min)
		return;
	if (e - p == t->min && (e == x->n || !is_alnum((unsigned char)x->b[e])))
		propose(x, s, e, t->kind, P_PATTERN);
	else
		too_long(x, id, s, e);
}

/* xox[abeoprs]- then 10 or more of A-Za-z0-9-. */
void pm_rd_slack(struct ctx *x, const struct trig *t, unsigned id, size_t s)
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
void pm_rd_sk(struct ctx *x, const struct trig *t, unsigned id, size_t s)
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
void pm_rd_dapi(struct ctx *x, const struct trig *t, unsigned id, size_t s)
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

/* SG.<16..32>.<30 or more>: a SendGrid API key. */
void pm_rd_sendgrid(struct ctx *x, const struct trig *t, unsigned id, size_t s)
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
void pm_rd_azure_secret(struct ctx *x, const struct trig *t, unsigned id, size_t s)
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
void pm_rd_jwt(struct ctx *x, const struct trig *t, unsigned id, size_t s)
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
void pm_rd_webhook(struct ctx *x, const struct trig *t, unsigned id, size_t s)
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
size_t pm_rd_marker_end(const struct ctx *x, size_t p)
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

	*me = pm_rd_marker_end(x, p);
	ll = *me > p ? *me - 5 - p : 0;
	if (ll == 21 && !memcmp(label, "PGP PRIVATE KEY BLOCK", 21))
		return PM_REDACT_PGP_PRIVATE_KEY;
	if (ll < 11 || memcmp(label + ll - 11, "PRIVATE KEY", 11))
		return -1;
	if ((ll >= 8 && !memcmp(label, "OPENSSH ", 8)) || (ll >= 5 && !memcmp(label, "SSH2 ", 5)))
		return PM_REDACT_SSH_PRIVATE_KEY;
	return PM_REDACT_PRIVATE_KEY;
}

/*
 * Open a key block at the BEGIN marker at S, its line ending after it (or a quote Q closing
 * the marker's string: a key printed as a list of strings, one a line).  What precedes the
 * marker is kept to strip from the lines that follow (srun --label's "3: ", a logger's stamp,
 * a YAML indent), and the line end its tag takes, to give back where the block ends early.
 */
static void block_open(struct ctx *x, size_t s, int kind, char q)
{
	x->block = kind;
	x->blk_quote = q;
	x->blk_body = false;
	x->blk_plen = s <= sizeof(x->blk_pre) ? s : NONE;
	if (x->blk_plen != NONE)
		memcpy(x->blk_pre, x->b, s);
	x->blk_eollen = 0;
	if (x->n >= 2 && !memcmp(x->b + x->n - 2, "\r\n", 2))
		memcpy(x->blk_eol, "\r\n", x->blk_eollen = 2);
	else if (x->n >= 1 && x->b[x->n - 1] == '\n')
		memcpy(x->blk_eol, "\n", x->blk_eollen = 1);
}

/* Does the marker at ME close a quoted string that ends the line ("-----',", "-----\\n\"")?
 * Its quote, or 0. */
static char quoted_marker(const struct ctx *x, size_t me)
{
	size_t q = me, k;

	if (x->n - q >= 2 && x->b[q] == '\\' && x->b[q + 1] == 'n')
		q += 2;
	if (q >= x->n || (x->b[q] != '\'' && x->b[q] != '"'))
		return 0;
	for (k = q + 1; k < x->n && one_of((unsigned char)x->b[k], " \t,+)]"); k++)
		;
	return k == content_end(x) ? x->b[q] : 0;
}

/* The header names PEM and OpenPGP armour put before the body. */
static bool pem_header(const char *p, size_t n)
{
	static const char *const names[] = {"Proc-Type", "DEK-Info", "Comment",	 "Version",
					    "Hash",	 "Charset",  "MessageID"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == n && !memcmp(p, names[i], n))
			return true;
	return false;
}

/*
 * Line X->b, inside an open key block: is it the key's body?  After the BEGIN line's prefix
 * (or one alike but for its digits: a stamp, another rank's label), base64, or before the
 * first base64 line a header or a blank line; for a key printed as a list, one quoted base64
 * string.  Anything else (another rank's line, the collector's omitted marker, the job going
 * on) ends the block: a BEGIN line with no END must not swallow the rest of the file.
 */
bool pm_rd_key_body(struct ctx *x)
{
	size_t e = content_end(x), p = 0, k;

	if (x->blk_plen == NONE)
		return true; /* a prefix too long to keep: the block runs to its END */
	if (x->blk_quote) {
		p = skip_blank(x, 0);
		if (p < e && one_of((unsigned char)x->b[p], "[(+"))
			p = skip_blank(x, p + 1);
		if (p >= e || x->b[p] != x->blk_quote)
			return false;
		k = run(x, p + 1, S_B64);
		if (k == p + 1)
			return false;
		if (e - k >= 2 && x->b[k] == '\\' && x->b[k + 1] == 'n')
			k += 2;
		if (k >= e || x->b[k] != x->blk_quote)
			return false;
		for (k++; k < e && one_of((unsigned char)x->b[k], " \t,+)]"); k++)
			;
		return k == e;
	}
	if (x->blk_plen && e >= x->blk_plen && same_shape(x->b, x->blk_pre, x->blk_plen))
		p = x->blk_plen;
	while (e > p && is_blank((unsigned char)x->b[e - 1]))
		e--;
	if (p == e)
		return !x->blk_body;
	if (run(x, p, S_B64) >= e) {
		x->blk_body = true;
		return true;
	}
	for (k = p; k < e && (is_alnum((unsigned char)x->b[k]) || x->b[k] == '-'); k++)
		;
	return !x->blk_body && k < e && x->b[k] == ':' && pem_header(x->b + p, k - p);
}

/*
 * A key printed as a list on one line, its END cut off (a repr of the key's lines, or of the
 * first few: "['-----BEGIN RSA PRIVATE KEY-----', 'MIIE...', 'AbCd...']"): past the last
 * quoted base64 string that follows the marker's own quote at ME, each after a comma or a
 * blank; NONE unless the first holds 16 base64 characters or more.
 */
static size_t inline_list(const struct ctx *x, size_t me)
{
	size_t k = me, last = NONE;
	char q;

	if (x->n - k >= 2 && x->b[k] == '\\' && x->b[k + 1] == 'n')
		k += 2;
	if (k >= x->n || (x->b[k] != '\'' && x->b[k] != '"'))
		return NONE;
	q = x->b[k++];
	for (;;) {
		size_t a = k, be, e;

		while (k < x->n && one_of((unsigned char)x->b[k], " \t,+"))
			k++;
		if (k == a || k >= x->n || x->b[k] != q)
			break;
		be = run(x, k + 1, S_B64);
		if (be == k + 1 || (last == NONE && be - k - 1 < 16))
			break;
		e = x->n - be >= 2 && x->b[be] == '\\' && x->b[be + 1] == 'n' ? be + 2 : be;
		if (e >= x->n || x->b[e] != q)
			break;
		last = be;
		k = e + 1;
	}
	return last;
}

void pm_rd_pem(struct ctx *x, const struct trig *t, unsigned id, size_t s)
{
	size_t p = s + 11, me, ep, r;
	int kind = key_label(x, p, &me);
	char q = 0;

	(void)t;
	if (kind < 0) {
		looked(x, id, me > p ? me : s + 1);
		return;
	}
	ep = find_end(x, me);
	if (ep != NONE) {
		size_t ee = pm_rd_marker_end(x, ep + 9 <= x->n && x->b[ep + 8] == ' ' ? ep + 9 :
											ep + 8);

		looked(x, id, ee);
		propose(x, s, ee, kind, P_BLOCK);
		return;
	}
	r = skip_blank(x, me);
	if (r == x->n || is_eol((unsigned char)x->b[r]) || (q = quoted_marker(x, me))) {
		/* the body follows on the next lines: swallow them up to the END line, or up to
		 * the first line that cannot be the key's (pm_rd_key_body) */
		looked(x, id, x->n);
		propose(x, s, x->n, kind, P_BLOCK);
		if (!x->oom)
			block_open(x, s, kind, r == x->n || is_eol((unsigned char)x->b[r]) ? 0 : q);
	} else if (x->b[r] == '\\' || in(S_B64, (unsigned char)x->b[r])) {
		/* an escaped ("\n") or flattened key cut short: redact the rest of the line */
		looked(x, id, x->n);
		propose(x, s, content_end(x), kind, P_BLOCK);
	} else if ((r = inline_list(x, me)) != NONE) {
		looked(x, id, r);
		propose(x, s, r, kind, P_BLOCK);
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
void pm_rd_pem_end(struct ctx *x, const struct trig *t, unsigned id, size_t s)
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

/* The first '@', blank or quote at or after FROM, or the end of the line: where a '/' in a
 * URL's user part has to look for its '@'.  Remembered, as hits only move forward, so that a
 * line of "://" hits reads each byte once. */
static size_t userinfo_stop(struct ctx *x, size_t from)
{
	if (!x->stop_known || from < x->stop_from || x->stop_at < from || x->stop_at > x->n) {
		size_t f = from;

		while (f < x->n && (unsigned char)x->b[f] > ' ' &&
		       !one_of((unsigned char)x->b[f], "@\"'<>`\\"))
			f++;
		x->stop_from = from;
		x->stop_at = f;
		x->stop_known = true;
	}
	return x->stop_at;
}

/*
 * A user name with no password ("https://<token>@host"): a token when it is a long
 * high-entropy run (upper and lower case and digits, or 32 hex and more with a letter and a
 * digit).  Tokens of a known shape ("ghp_...@") have their own trigger; "git@", a user's
 * name, stay.
 */
static void user_token(struct ctx *x, size_t a, size_t at)
{
	size_t n = at - a, hex = 0;
	bool digit = false, letter = false;

	if (n < 20 || n > 512 || run(x, a, S_TOKEN68) != at)
		return;
	for (size_t i = a; i < at; i++) {
		unsigned char c = (unsigned char)x->b[i];

		hex += in(S_HEX, c);
		digit |= is_digit(c);
		letter |= is_lower(c);
	}
	if (mixed_case(x->b + a, n, true) || (hex == n && n >= 32 && digit && letter))
		propose(x, a, at, PM_REDACT_TOKEN, P_GENERIC);
}

void pm_rd_url(struct ctx *x, const struct trig *t, unsigned id, size_t s)
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
	/* a '/' before any '@': the path begins there, unless the text from the last ':' to it
	 * is no port ("u:pa/ss@h", "redis://:a/b@h"): then a password holds the '/', and the
	 * first '@' after it ends the user information, which cannot hold one unescaped */
	if (at == NONE && e < x->n && x->b[e] == '/') {
		const char *lc = memrchr(x->b + a, ':', e - a);
		size_t d = lc ? (size_t)(lc - x->b) + 1 : e, f;

		while (d < e && is_digit((unsigned char)x->b[d]))
			d++;
		if (d < e) {
			f = userinfo_stop(x, e);
			if (f - a < 1024 && f + 1 < x->n && x->b[f] == '@' &&
			    (is_alnum((unsigned char)x->b[f + 1]) || x->b[f + 1] == '['))
				at = e = f;
		}
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
	if (!(colon = memchr(x->b + a, ':', at - a))) {
		user_token(x, a, at);
		return;
	}
	/* a placeholder's own colon ("[REDACTED:gitlab_token].x@host", a token redacted
	 * before) is no user:password separator: the next colon after it, if any */
	while (colon && (size_t)(colon - x->b) >= a + 9 && !memcmp(colon - 9, "[REDACTED", 9)) {
		const char *end = memchr(colon, ']', (size_t)(x->b + at - colon));
		if (!end)
			return;
		colon = memchr(end, ':', (size_t)(x->b + at - end));
	}
	if (!colon)
		return;
	ps = (size_t)(colon - x->b) + 1;
	if (ps < at && at - ps > 10 && !memcmp(x->b + ps, "[REDACTED:", 10)) {
		/* redacted already: the words before it are looked at no more than they were
		 * when it was proposed (a keyword in the user name, "x-access-token:") */
		if (at > x->covered)
			x->covered = at;
		return;
	}
	if (ps >= at || pm_rd_placeholder(x->b + ps, at - ps))
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

void pm_rd_bearer(struct ctx *x, const struct trig *t, unsigned id, size_t s)
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

void pm_rd_basic(struct ctx *x, const struct trig *t, unsigned id, size_t s)
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
void pm_rd_wandb(struct ctx *x, const struct trig *t, unsigned id, size_t s)
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
	[TOOL_MYSQL] =
		{{"mysql*", "mariadb*"}, {"-p"}, {A_GLUED}, 0, NULL, false, PM_REDACT_DB_PASSWORD},
	[TOOL_SSHPASS] =
		{{"sshpass"}, {"-p"}, {A_GLUED | A_SPACED}, 0, "fdP", false, PM_REDACT_PASSWORD},
	[TOOL_CURL] = {{"curl"},
		       {"-u", "--user", "-U", "--proxy-user"},
		       {A_GLUED | A_SPACED, A_GLUED | A_SPACED, A_GLUED | A_SPACED,
			A_GLUED | A_SPACED},
		       ':',
		       NULL,
		       false,
		       PM_REDACT_PASSWORD},
	/* docker login: the command is the word before "login" */
	[TOOL_LOGIN] = {{"docker", "podman", "nerdctl", "buildah", "skopeo"},
			{"-p", "--password"},
			{A_GLUED | A_SPACED, A_GLUED | A_SPACED},
			0,
			NULL,
			false,
			PM_REDACT_PASSWORD},
	[TOOL_LOGIN2] = {{"oras", "crane", "registry", "helm", "az"},
			 {"-p", "--password"},
			 {A_GLUED | A_SPACED, A_GLUED | A_SPACED},
			 0,
			 NULL,
			 false,
			 PM_REDACT_PASSWORD},
	[TOOL_LDAP] = {{"ldap*"}, {"-w"}, {A_GLUED | A_SPACED}, 0, NULL, false, PM_REDACT_PASSWORD},
	[TOOL_SMB] = {{"smbclient", "rpcclient", "smbcacls", "smbget", "smbmap"},
		      {"-U", "--user"},
		      {A_GLUED | A_SPACED, A_GLUED | A_SPACED},
		      '%',
		      NULL,
		      true,
		      PM_REDACT_PASSWORD},
	[TOOL_REDIS] = {{"redis-cli"},
			{"-a", "--pass"},
			{A_SPACED, A_SPACED},
			0,
			NULL,
			false,
			PM_REDACT_DB_PASSWORD},
	[TOOL_MONGO] = {{"mongo*"},
			{"-p", "--password"},
			{A_SPACED, A_GLUED | A_SPACED},
			0,
			NULL,
			false,
			PM_REDACT_DB_PASSWORD},
	/* enc -k PASSWORD, -K HEXKEY; -passin pass:X is redact_assign.c's */
	[TOOL_OPENSSL] = {{"openssl"},
			  {"-k", "-K"},
			  {A_SPACED, A_SPACED},
			  0,
			  NULL,
			  false,
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
		size_t q = pm_rd_close_quote(x, vs + 1, x->b[vs], false);

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
	if (ve > vs && !pm_rd_placeholder(x->b + vs, ve - vs))
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

				/* mongosh -p --authenticationDatabase admin: -p alone asks */
				if (next_word(x, &p, &vs, &ve) && !cmd_end(x, vs) &&
				    !(ve - vs > 2 && x->b[vs] == '-' && x->b[vs + 1] == '-'))
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
void pm_rd_tool(struct ctx *x, const struct trig *t, unsigned id, size_t s)
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
void pm_rd_login(struct ctx *x, const struct trig *t, unsigned id, size_t s)
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

/* The word at WS (to WE, or to its closing quote when it starts with one) that a login reads
 * from its standard input: the secret, unless a variable stands for it. */
static void stdin_word(struct ctx *x, const struct trig *t, size_t ws, size_t we)
{
	if (ws < we && (x->b[ws] == '"' || x->b[ws] == '\'')) {
		size_t q = pm_rd_close_quote(x, ws + 1, x->b[ws], false);

		ws++;
		we = q;
	}
	while (we > ws && x->b[we - 1] == ';')
		we--;
	if (we > ws && !pm_rd_placeholder(x->b + ws, we - ws))
		propose(x, ws, we, t->kind, P_NAMED);
}

/* A byte that ends a command before it: a pipe, a list, a subshell, a line's end. */
static inline bool shell_op(char c)
{
	switch (c) {
	case '|':
	case ';':
	case '&':
	case '`':
	case '(':
	case '\n':
		return true;
	default:
		return false;
	}
}

/* Past the last shell operator before S, or 0: where the command holding S starts.
 * Remembered, as hits only move forward, so that a line of hits reads each byte once. */
static size_t op_before(struct ctx *x, size_t s)
{
	bool known = x->op_known && x->op_from <= s;
	size_t k = s, lo = known ? x->op_from : 0;

	while (k > lo && !shell_op(x->b[k - 1]))
		k--;
	if (k == lo && known)
		k = x->op_at;
	x->op_from = s;
	x->op_at = k;
	x->op_known = true;
	return k;
}

/* Is [ws, we) echo's option: "-n", "-e", "-ne", ...?  (The line is not NUL-terminated.) */
static bool echo_opt(const struct ctx *x, size_t ws, size_t we)
{
	if (we - ws < 2 || x->b[ws] != '-')
		return false;
	for (size_t k = ws + 1; k < we; k++)
		if (x->b[k] != 'n' && x->b[k] != 'e' && x->b[k] != 'E')
			return false;
	return true;
}

/* Is [ws, we) the command W, or W after a path (/bin/echo)? */
static bool cmd_word(const struct ctx *x, size_t ws, size_t we, const char *w)
{
	size_t l = strlen(w);

	return we - ws >= l && !memcmp(x->b + we - l, w, l) &&
	       (we - ws == l || x->b[we - l - 1] == '/');
}

/*
 * "echo X | gh auth login --with-token", "printf '%s' X | docker login --password-stdin",
 * "... --with-token <<< X": the option says the command reads its secret from its standard
 * input, so the words an echo or printf piped into it writes (or a here-string) are that
 * secret, whatever their shape.  "< token.txt", "cat f |", "echo $TOKEN |" name where it is.
 */
void pm_rd_stdin(struct ctx *x, const struct trig *t, unsigned id, size_t s)
{
	size_t e = s + strlen(t->lit), p = e, ws, we, bar, cs;
	bool echo;

	looked(x, id, e);
	if (s == 0 || !is_blank((unsigned char)x->b[s - 1]) ||
	    (e < x->n && !is_blank((unsigned char)x->b[e]) &&
	     !one_of((unsigned char)x->b[e], ";|&)") && !is_eol((unsigned char)x->b[e])))
		return;
	/* a here-string among the words that follow (so far: a line of hits stays linear) */
	while (next_word(x, &p, &ws, &we) && ws - e < CMDBACK && !cmd_end(x, ws))
		if (we - ws >= 3 && !memcmp(x->b + ws, "<<<", 3)) {
			if (we - ws > 3)
				stdin_word(x, t, ws + 3, we);
			else if (next_word(x, &p, &ws, &we))
				stdin_word(x, t, ws, we);
			break;
		}
	/* the command before the pipe into this one, back to the operator that starts it */
	bar = op_before(x, s);
	if (s - bar >= CMDBACK || bar < 2 || x->b[bar - 1] != '|' || x->b[bar - 2] == '|')
		return;
	for (cs = bar - 1; cs > 0 && s - cs < CMDBACK && !shell_op(x->b[cs - 1]); cs--)
		;
	p = cs;
	/* a prompt or set -x's marks before the command: "$ echo", "+ echo", "++ echo" */
	if (!next_word(x, &p, &ws, &we) || we > bar - 1)
		return;
	if (we - ws <= 2 && one_of((unsigned char)x->b[ws], "$+#") && x->b[we - 1] == x->b[ws] &&
	    (!next_word(x, &p, &ws, &we) || we > bar - 1))
		return;
	if (!((echo = cmd_word(x, ws, we, "echo")) || cmd_word(x, ws, we, "printf")))
		return;
	/* echo's options; printf's format, unless it is the secret itself (printf X |) */
	while (next_word(x, &p, &ws, &we) && we <= bar - 1) {
		if (echo && echo_opt(x, ws, we))
			continue;
		if (!echo && memchr(x->b + ws, '%', we - ws)) {
			echo = true; /* the values follow the format */
			continue;
		}
		if (ws < we && (x->b[ws] == '"' || x->b[ws] == '\'')) {
			size_t q = pm_rd_close_quote(x, ws + 1, x->b[ws], false);

			if (q < bar - 1)
				we = q + 1, p = we;
		}
		stdin_word(x, t, ws, we);
	}
}

/* mc alias set NAME URL ACCESS SECRET, mc config host add NAME URL ACCESS SECRET */
void pm_rd_mc(struct ctx *x, const struct trig *t, unsigned id, size_t s)
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
	if (!pm_rd_placeholder(x->b + ws[3], we[3] - ws[3]))
		propose(x, ws[3], we[3], t->kind, P_NAMED);
}
