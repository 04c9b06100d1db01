/*
 * redact_assign.c - the redactor's validator of assignments: NAME=value, --name value,
 * "name": "value", name: value, where the name says the value is a secret (redact.c).
 *
 * How far a value runs depends on how it was written:
 * - quoted, to its closing quote (a shell's '\'' inside it included); a Python string's
 *   prefix (b'...', rb"...", u'...') is part of the quoting;
 * - a word set -x quoted whole ('NAME=a b', '--db-password=a b'), to that word's quote;
 * - at a line's start (after blanks, export, declare -x, "- ", and a launcher's "3: ",
 *   "[rank3]:", "host: "): YAML's and INI's value to the line's end; an env dump's NAME=value
 *   (env, printenv) to the line's end too, blanks and ; & , | ) < > included, unless what
 *   follows a blank is a command run with the variable, another NAME=, or a note;
 * - otherwise one word, to a blank or a shell or list character.
 * Besides NAME=value and its kin: a subscript (os.environ['HF_TOKEN'] = '...'; only a
 * quoted value, a bare one being code), a call that sets a variable (os.putenv('NAME',
 * '...'), os.environ.setdefault, setenv; a quoted value), a name then its value as the
 * next word for the commands that set a named key (csh's setenv, aws configure set with
 * its options anywhere, rclone config create/update, git config), htpasswd -b's password
 * and openssl's pass:SECRET.
 * A name is a secret's by its last word (password, secret, token, a credential's key:
 * api_key, MUNGE_KEY, HMAC_KEY, ...; REDISCLI_AUTH); a last word that says how the secret
 * is written (SECRET_KEY_BASE, PASSWORD_B64) is looked past.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "redact_int.h"

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

/* Words before "key" that make it a credential (api_key, but not sort_key or public_key);
 * the last row: the shared key of an authentication or a cipher scheme (MUNGE_KEY, HMAC_KEY,
 * JWT_KEY, SESSION_KEY, AES_KEY). */
static const char *const key_words[] =
	{"api",	    "secret",	  "access",  "private",	     "account",	  "storage",	"auth",
	 "master",  "encryption", "signing", "subscription", "client",	  "app",	"kaggle",
	 "service", "shared",	  "sas",     "license",	     "admin",	  "write",	"read",
	 "ingest",  "upload",	  "deploy",  "munge",	     "hmac",	  "jwt",	"session",
	 "cookie",  "cipher",	  "crypto",  "aes",	     "symmetric", "decryption", NULL};

/* Last words that say how a secret is written, not what it is: SECRET_KEY_BASE,
 * PASSWORD_B64, API_TOKEN_VALUE hold what SECRET_KEY, PASSWORD, API_TOKEN would. */
static const char *const form_words[] = {"base",  "b64",       "base64", "value",
					 "plain", "plaintext", NULL};

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
	size_t cn = 0, sn = 0, nw = 0, last = 0, cs = 0;
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
			last = cs;
		}
		if (sep)
			continue;
		if (!cn)
			cs = i;
		if (cn < 32)
			cur[cn] = (char)(is_upper(c) ? c | 0x20 : c);
		cn++;
		if (sn < sizeof(sq) - 1)
			sq[sn++] = (char)(is_upper(c) ? c | 0x20 : c);
	}
	sq[sn] = 0;
	if (!nw)
		return false;
	if (nw >= 2 && in_list(L, form_words)) {
		/* SECRET_KEY_BASE: what the name says before its form word (once) */
		while (last > 0 && (p[last - 1] == '_' || p[last - 1] == '-' || p[last - 1] == '.'))
			last--;
		if (in_list(P, form_words) || !classify(p, last, id))
			return false;
		/* a bare SECRET_KEY is s3cmd's and boto's; SECRET_KEY_BASE is an application's
		 * (Rails) own secret */
		if (id->kind == PM_REDACT_S3_SECRET_KEY && strlen(sq) == 9 + strlen(L) &&
		    !memcmp(sq, "secretkey", 9))
			id->kind = PM_REDACT_SECRET;
		return true;
	}
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
	else if (eq(L, "auth") && nw == 2 && (eq(P, "rediscli") || eq(P, "redis")))
		id->cls = C_PASSWORD, id->kind = PM_REDACT_DB_PASSWORD; /* redis-cli's password */
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
bool pm_rd_placeholder(const char *v, size_t n)
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

static size_t label_end(const struct ctx *x);

/* Past what a launcher or a parallel shell writes before each line of a step's output, or
 * 0: srun --label's "12: ", torchrun's "[rank3]:" / "[default3]:", pdsh's "host: ". */
static size_t launcher_end(const struct ctx *x)
{
	size_t i = skip_blank(x, 0), e;

	if ((e = label_end(x)))
		return e;
	if (i < x->n && x->b[i] == '[') {
		for (e = i + 1; e < x->n && e - i < 16 && is_lower((unsigned char)x->b[e]); e++)
			;
		if (e == i + 1 || !is_digit((unsigned char)x->b[e]))
			return 0;
		while (e < x->n && e - i < 24 && is_digit((unsigned char)x->b[e]))
			e++;
		if (e + 1 < x->n && x->b[e] == ']' && x->b[e + 1] == ':')
			return skip_blank(x, e + 2);
		return 0;
	}
	for (e = i; e < x->n && e - i <= 64 && in(S_IDENT, (unsigned char)x->b[e]); e++)
		;
	if (e > i && e - i <= 64 && e + 1 < x->n && x->b[e] == ':' &&
	    is_blank((unsigned char)x->b[e + 1]))
		return skip_blank(x, e + 1);
	return 0;
}

/* Only blanks, "export ", "declare -x " or "- " before the name at I (after a launcher's
 * prefix too): a line of a config or an env dump (env, printenv, declare -x, export -p). */
static bool line_start(const struct ctx *x, size_t i)
{
	size_t p = skip_blank(x, 0);

	for (int k = 0; k < 2; k++, p = skip_blank(x, launcher_end(x))) {
		if (x->n - p >= 7 && !memcmp(x->b + p, "export ", 7))
			p = skip_blank(x, p + 7);
		else if (x->n - p >= 11 && !memcmp(x->b + p, "declare -x ", 11))
			p = skip_blank(x, p + 11);
		else if (x->n - p >= 2 && x->b[p] == '-' && x->b[p + 1] == ' ')
			p = skip_blank(x, p + 2);
		if (p == i)
			return true;
	}
	return false;
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

/* Words that start a command: a line "NAME=v python x.py" of a script sets NAME for it. */
static const char *const cmd_words[] = {"python", "python3",  "bash",	   "sh",	 "srun",
					"mpirun", "torchrun", "deepspeed", "accelerate", "exec",
					"env",	  "make",     "time",	   "nohup",	 NULL};

/*
 * Where the value at VS of "NAME=value" at a line's start ends: an env dump (env, printenv,
 * declare -x) prints the value whole to the line's end, blanks and ; & , | ) < > included.
 * But what follows a blank may be no part of it: a script's "NAME=v ./run.sh", "NAME=v
 * psql -h db" runs a command with it, "A=v B=w" sets two, "NAME=v (from ...)" is a note;
 * those stay, and the value ends at its first blank.  *FE: the end of the value's first
 * word, which alone must look like a secret (token=2048 pad_token=<pad> is a config).
 */
static size_t env_value(const struct ctx *x, size_t vs, size_t *fe)
{
	size_t e = rest_of_line(x, vs, false), bl = vs, w, we;

	*fe = word_end(x, vs);
	while (bl < e && !is_blank((unsigned char)x->b[bl]))
		bl++;
	if (bl == e)
		return e;
	w = skip_blank(x, bl);
	for (we = w; we < e && !is_blank((unsigned char)x->b[we]); we++)
		;
	if (memchr(x->b + w, '/', we - w) || memchr(x->b + w, '=', we - w) ||
	    one_of((unsigned char)x->b[w], "$([#"))
		return bl; /* ./migrate.sh, B=w, $CMD, (a note), # a comment */
	for (size_t k = 0; cmd_words[k]; k++)
		if (we - w == strlen(cmd_words[k]) && !memcmp(x->b + w, cmd_words[k], we - w))
			return bl;
	for (size_t i = w; i < e; i++)
		if (x->b[i] == '-' && is_blank((unsigned char)x->b[i - 1]))
			return bl; /* a command's options: psql -h db */
	return e;
}

/* The closing quote Q of a value starting at VS (honouring backslashes), or the end of
 * the line when it is not closed there.  ESC: the quotes are written \" (JSON in a string). */
size_t pm_rd_close_quote(const struct ctx *x, size_t vs, char q, bool esc)
{
	for (size_t i = vs; i < x->n; i++) {
		if (esc && x->b[i] == '\\' && i + 1 < x->n && x->b[i + 1] == q)
			return i;
		if (!esc && x->b[i] == '\\' && q != '`') {
			i++;
			continue;
		}
		/* a shell writes a quote inside a single-quoted word as '\'' (set -x) */
		if (!esc && q == '\'' && x->b[i] == q && i + 3 < x->n && x->b[i + 1] == '\\' &&
		    x->b[i + 2] == q && x->b[i + 3] == q) {
			i += 3;
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

	if (pm_rd_placeholder(v, n) || (!quoted && code_ref(v, n)))
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

/* ---- a name, a blank, its value: the commands that set a named key ---- */

/* Is the word [ws, we) the command or word W (a command after a path: /usr/bin/rclone)? */
static bool word_is(const struct ctx *x, size_t ws, size_t we, const char *w)
{
	size_t l = strlen(w);

	if (we - ws < l || memcmp(x->b + we - l, w, l))
		return false;
	return we - ws == l || x->b[we - l - 1] == '/';
}

/*
 * Is the name at ID0 (a word of its own) set by the command before it on the line, its value
 * the next word: csh's "setenv NAME V", "aws configure set NAME V", "rclone config create R
 * TYPE NAME V ...", "git config [options] NAME V"?  The command is looked for in the last
 * CMDBACK bytes before the name, back to the shell operator that ends a command.
 */
static bool sets_named_key(const struct ctx *x, size_t id0)
{
	size_t lo = id0 > CMDBACK ? id0 - CMDBACK : 0, p, ws[16], we[16], nw = 0;

	if (id0 == 0 || !is_blank((unsigned char)x->b[id0 - 1]))
		return false;
	for (p = id0; p > lo && !one_of((unsigned char)x->b[p - 1], ";|&(`\n"); p--)
		;
	if (p == lo && lo > 0)
		return false;
	/* the last 16 words before the name */
	while (p < id0) {
		size_t i = skip_blank(x, p), j = i;

		while (j < id0 && !is_blank((unsigned char)x->b[j]))
			j++;
		if (j == i)
			break;
		if (nw == 16)
			memmove(ws, ws + 1, 15 * sizeof(ws[0])),
				memmove(we, we + 1, 15 * sizeof(we[0])), nw--;
		ws[nw] = i, we[nw++] = j;
		p = j;
	}
	if (nw >= 1 && word_is(x, ws[nw - 1], we[nw - 1], "setenv"))
		return true;
	for (size_t k = 0; k + 1 < nw; k++) {
		/* aws configure set [--profile P] NAME V */
		if (word_is(x, ws[k], we[k], "configure") &&
		    word_is(x, ws[k + 1], we[k + 1], "set"))
			return true;
		if (word_is(x, ws[k], we[k], "git") && word_is(x, ws[k + 1], we[k + 1], "config"))
			return true;
		if (k + 2 < nw && word_is(x, ws[k], we[k], "rclone") &&
		    word_is(x, ws[k + 1], we[k + 1], "config") &&
		    (word_is(x, ws[k + 2], we[k + 2], "create") ||
		     word_is(x, ws[k + 2], we[k + 2], "update")))
			return true;
	}
	return false;
}

/* Is the quote at Q the first argument of a call that sets a variable: os.putenv('NAME', ...),
 * os.environ.setdefault('NAME', ...), setenv("NAME", ...), os.Setenv("NAME", ...)? */
static bool setter_call(const struct ctx *x, size_t q)
{
	static const char *const calls[] = {"putenv", "setenv", "setdefault", NULL};
	size_t e, w;

	while (q > 0 && is_blank((unsigned char)x->b[q - 1]))
		q--;
	if (q == 0 || x->b[q - 1] != '(')
		return false;
	for (e = w = q - 1; w > 0 && e - w < 16 && is_alnum((unsigned char)x->b[w - 1]); w--)
		;
	for (size_t k = 0; calls[k]; k++)
		if (e - w == strlen(calls[k]) && !strncasecmp(x->b + w, calls[k], e - w))
			return true;
	return false;
}

/* The next word at or after *P, to its closing quote when it starts with one: [*vs, *ve)
 * is what it holds; false at the line's end or a shell operator. */
static bool arg_word(const struct ctx *x, size_t *p, size_t *vs, size_t *ve)
{
	size_t i = skip_blank(x, *p), j = i;

	if (i >= x->n || is_eol((unsigned char)x->b[i]) || one_of((unsigned char)x->b[i], "|;&#)"))
		return false;
	if (x->b[i] == '"' || x->b[i] == '\'') {
		j = pm_rd_close_quote(x, i + 1, x->b[i], false);
		*vs = i + 1;
		*ve = j;
		*p = j < x->n ? j + 1 : j;
		return true;
	}
	while (j < x->n && !is_blank((unsigned char)x->b[j]) && !is_eol((unsigned char)x->b[j]))
		j++;
	*vs = i;
	*ve = j;
	*p = j;
	while (*ve > *vs && x->b[*ve - 1] == ';')
		(*ve)--;
	return true;
}

/* htpasswd -b[c|n|B...] [FILE] USER PASSWORD: the password is the last word it reads. */
static void htpasswd_args(struct ctx *x, size_t p)
{
	size_t vs, ve, want = 3, nth = 0;
	bool batch = false;

	while (arg_word(x, &p, &vs, &ve)) {
		if (ve - vs > 1 && x->b[vs] == '-') {
			batch |= memchr(x->b + vs, 'b', ve - vs) != NULL;
			if (memchr(x->b + vs, 'n', ve - vs))
				want = 2; /* -n: to the standard output, no FILE */
			if (one_of((unsigned char)x->b[ve - 1], "Cr") && !arg_word(x, &p, &vs, &ve))
				return; /* -C COST, -r ROUNDS */
			continue;
		}
		if (++nth == want) {
			if (batch && !pm_rd_placeholder(x->b + vs, ve - vs))
				propose(x, vs, ve, PM_REDACT_PASSWORD, P_NAMED);
			return;
		}
	}
}

/* openssl's -passin/-passout/-pass "pass:SECRET" (env:, file:, fd: name where it is). */
static void openssl_pass(struct ctx *x, size_t p)
{
	size_t vs, ve;

	if (!arg_word(x, &p, &vs, &ve) || ve - vs <= 5 || memcmp(x->b + vs, "pass:", 5))
		return;
	if (!pm_rd_placeholder(x->b + vs + 5, ve - vs - 5))
		propose(x, vs + 5, ve, PM_REDACT_PASSWORD, P_NAMED);
}

/* Can a command word start at S? */
static bool cmd_at(const struct ctx *x, size_t s)
{
	return s == 0 || is_blank((unsigned char)x->b[s - 1]) ||
	       one_of((unsigned char)x->b[s - 1], "/\"'`(;|&$") ||
	       (x->map && x->map[s] != x->map[s - 1] + 1);
}

void pm_rd_keyword(struct ctx *x, const struct trig *t, unsigned id, size_t s)
{
	const char *b = x->b;
	size_t n = x->n, ke = s + t->min, is = s, ie = ke, floor, id0, p, q, sp, v, vs, ve,
	       fe = NONE;
	char kq = 0, sep = 0, vq;
	bool kesc = false, vesc = false, dashes = false, sub = false, kv = false;
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
	/* commands whose words, not a name's value, say where the secret is */
	if (!dashes && ie - is == 8 && !memcmp(b + is, "htpasswd", 8) && cmd_at(x, id0)) {
		htpasswd_args(x, ie);
		return;
	}
	if (dashes && id0 + 1 == is && id0 > 0 && is_blank((unsigned char)b[id0 - 1]) &&
	    ((ie - is == 6 && !memcmp(b + is, "passin", 6)) ||
	     (ie - is == 7 && !memcmp(b + is, "passout", 7)) ||
	     (ie - is == 4 && !memcmp(b + is, "pass", 4)))) {
		openssl_pass(x, ie);
		return;
	}

	/* the name quoted: "name": / 'name': / \"name\": */
	if (id0 > floor && (b[id0 - 1] == '"' || b[id0 - 1] == '\'') && p < n &&
	    b[p] == b[id0 - 1]) {
		kq = b[p++];
	} else if (id0 > floor + 1 && b[id0 - 1] == '"' && b[id0 - 2] == '\\' && p + 1 < n &&
		   b[p] == '\\' && b[p + 1] == '"') {
		kq = '"', kesc = true, p += 2;
	}
	/* a subscript: os.environ['HF_TOKEN'] = ..., config["password"] = ... */
	if (kq && !kesc && id0 > floor + 1 && b[id0 - 2] == '[' && p < n && b[p] == ']')
		p++, sub = true;
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
	} else if (kq && !kesc && !sub && q < n && b[q] == ',' && setter_call(x, id0 - 1)) {
		sep = '='; /* os.putenv('NAME', 'v'): its value is the next argument */
		q++;
	} else if (!kq && q > p && q < n && !is_eol((unsigned char)b[q])) {
		sep = dashes ? ' ' : 'n';
	} else {
		return;
	}
	if (sub && sep != '=')
		return;
	/* most hits end above (tokens/s, tokenizer.json): only now look at the name itself */
	if (!classify(b + is, ie - is, &idn)) {
		/* rclone's sftp, ftp, webdav "pass" and azureblob "key" */
		if (sep != 'n' || !((ie - is == 4 && !memcmp(b + is, "pass", 4)) ||
				    (ie - is == 3 && !memcmp(b + is, "key", 3))))
			return;
		if (!(kv = sets_named_key(x, id0)))
			return;
		idn = (struct ident){b[is] == 'p' ? C_PASSWORD : C_KEY,
				     b[is] == 'p' ? PM_REDACT_PASSWORD : PM_REDACT_API_KEY,
				     P_GENERIC, false};
	} else {
		/* the command is looked for only behind a secret's name */
		kv = sep == 'n' && sets_named_key(x, id0);
	}
	if (kv && idn.cls == C_KAGGLE)
		idn.cls = C_KEY, idn.kind = PM_REDACT_API_KEY;
	kind = idn.kind;
	if ((idn.cls == C_SIGNATURE || idn.cls == C_SIG) && sep != '=')
		return;
	if (idn.cls == C_SIG && (id0 == 0 || !one_of((unsigned char)b[id0 - 1], "?&;")))
		return;
	if ((idn.cls == C_DOCKER || idn.cls == C_KAGGLE) && (!kq || sep != ':'))
		return;
	if (sep == 'n' && !kv && (!idn.netrc || (idn.cls != C_PASSWORD)))
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
	/* a Python string's prefix: b'...' (bytes), rb"...", u'...' */
	for (size_t k = v; k < n && k - v < 2 && one_of((unsigned char)b[k], "bBrRuUfF"); k++)
		if (k + 1 < n && (b[k + 1] == '\'' || b[k + 1] == '"')) {
			v = k + 1, vq = b[v];
			break;
		}
	if (vq == '"' || vq == '\'' || vq == '`') {
		vs = v + 1;
		ve = pm_rd_close_quote(x, vs, vq, vesc);
	} else {
		if (kq && !kesc) /* JSON or a dict: numbers, null, objects are no secrets */
			return;
		if ((sep == ' ' || kv) && vq == '-') /* --password --next-flag */
			return;
		vs = v;
		if (idn.cls == C_AUTHZ)
			ve = rest_of_line(x, vs, false);
		else if (!kq && sep == '=' && id0 > floor && b[id0 - 1] == '\'')
			/* set -x quotes a word that holds blanks or shell characters whole:
			 * + export 'NAME=a b', '--db-password=a b' */
			ve = pm_rd_close_quote(x, vs, '\'', false);
		else if (!dashes && line_start(x, id0) && (sep == ':' || (sep == '=' && sp > p)))
			ve = rest_of_line(x, vs, sep == ':'); /* YAML, or INI "name = value" */
		else if (!dashes && sep == '=' && line_start(x, id0))
			ve = env_value(x, vs, &fe);
		else
			ve = word_end(x, vs);
	}
	if (idn.cls == C_AUTHZ) {
		authz_value(x, &vs, &ve, vq == '"' || vq == '\'' || vq == '`', &kind);
		idn.prio = P_NAMED;
	}
	if (sep == 'n' && !kv) {
		if (!netrc_form(x, id0, ve))
			return;
		kind = PM_REDACT_NETRC_PASSWORD;
		idn.prio = P_NAMED;
	}
	if (ve <= vs || !value_fits(x, &idn, id0, vs, fe != NONE ? fe : ve,
				    vq == '"' || vq == '\'' || vq == '`'))
		return;
	propose(x, vs, ve, kind, idn.prio);
}

/* ---- cookies ---- */

/* Propose the value of each cookie in [p, e) ("a=V; b=W"), the first only when ONE (a
 * Set-Cookie's attributes follow it). */
static void cookie_pairs(struct ctx *x, size_t p, size_t e, bool one)
{
	while (p < e) {
		size_t ns = skip_blank(x, p), eq = ns, ve;

		while (eq < e && x->b[eq] != '=' && x->b[eq] != ';')
			eq++;
		for (ve = eq; ve < e && x->b[ve] != ';'; ve++)
			;
		p = ve + 1;
		if (eq < ve)
			eq++; /* the value after the name's '=' */
		else
			eq = ns; /* a bare value */
		while (ve > eq && is_blank((unsigned char)x->b[ve - 1]))
			ve--;
		if (ve - eq >= 2 && x->b[eq] == '"' && x->b[ve - 1] == '"')
			eq++, ve--;
		if (ve > eq && !pm_rd_placeholder(x->b + eq, ve - eq))
			propose(x, eq, ve, PM_REDACT_COOKIE, P_NAMED);
		if (one)
			break;
	}
}

/* Cookie: a=V; b=W, Set-Cookie: sid=V; Path=/ (the header, a header dict's "Cookie": key,
 * curl's --cookie a=V): a session cookie lets whoever holds it in as its owner. */
void pm_rd_cookie(struct ctx *x, const struct trig *t, unsigned id, size_t s)
{
	size_t e = s + strlen(t->lit), hs = s, p, vs, ve;
	bool set = false, kq = false;

	looked(x, id, e);
	if (e < x->n && in(S_IDENT, (unsigned char)x->b[e]))
		return; /* cookies, cookie_jar, --cookie-jar */
	if (s >= 4 && (x->b[s - 4] | 0x20) == 's' && (x->b[s - 3] | 0x20) == 'e' &&
	    (x->b[s - 2] | 0x20) == 't' && x->b[s - 1] == '-')
		set = true, hs = s - 4;
	if (!set && hs >= 2 && x->b[hs - 1] == '-' && x->b[hs - 2] == '-') {
		p = e < x->n && x->b[e] == '=' ? e + 1 : e;
		if (p == e && (p >= x->n || !is_blank((unsigned char)x->b[p])))
			return;
		if (arg_word(x, &p, &vs, &ve))
			cookie_pairs(x, vs, ve, false);
		return;
	}
	if (hs > 0 && in(S_IDENT, (unsigned char)x->b[hs - 1]))
		return;
	p = e;
	if (hs > 0 && (x->b[hs - 1] == '"' || x->b[hs - 1] == '\'') && p < x->n &&
	    x->b[p] == x->b[hs - 1])
		p++, kq = true; /* "Cookie": */
	p = skip_blank(x, p);
	if (p >= x->n || x->b[p] != ':')
		return;
	vs = skip_blank(x, p + 1);
	if (vs < x->n && (x->b[vs] == '"' || x->b[vs] == '\'')) {
		ve = pm_rd_close_quote(x, vs + 1, x->b[vs], false);
		vs++;
	} else if (hs > 0 && (x->b[hs - 1] == '"' || x->b[hs - 1] == '\'') && !kq) {
		ve = pm_rd_close_quote(x, vs, x->b[hs - 1], false); /* -H "Cookie: a=V" */
	} else {
		ve = rest_of_line(x, vs, false);
	}
	cookie_pairs(x, vs, ve, set);
}
