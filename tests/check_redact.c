/*
 * check_redact.c - the secret redactor (engine/redact.c).
 *
 * Corpora (tests/data/README.md): every secret listed in secrets/planted.txt must be gone
 * after redaction and counted under its kind; every line of secrets/survivors.txt must
 * remain; every file of lookalikes/ must come out byte-identical.  Then the contract:
 * known answers for each written form, CRLF, binary and invalid UTF-8, a 5 MB line, a key
 * block cut off at the end of the input, hostile repetitions (linear time), truncation at
 * every length, determinism and idempotence.  Every buffer handed to pm_redact is an
 * exact-size heap copy without a NUL terminator, so that ASan catches any read past its end.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redact.h"
#include "support.h"

#ifndef PM_TEST_SRCDIR
#define PM_TEST_SRCDIR "."
#endif

struct buf {
	char *p;
	size_t n;
};

static char *dup_exact(const char *s, size_t n)
{
	char *b = malloc(n ? n : 1);

	ck_assert_ptr_nonnull(b);
	memcpy(b, s, n);
	return b;
}

static const char *srcdir(void)
{
	const char *d = getenv("PM_SRCDIR");

	return d && *d ? d : PM_TEST_SRCDIR;
}

static struct buf slurp(const char *rel)
{
	char path[4096];
	struct buf b = {NULL, 0};
	size_t cap = 1 << 16, k;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/data/%s", srcdir(), rel);
	f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	b.p = malloc(cap);
	ck_assert_ptr_nonnull(b.p);
	while ((k = fread(b.p + b.n, 1, cap - b.n, f)) > 0) {
		b.n += k;
		if (b.n == cap) {
			b.p = realloc(b.p, cap *= 2);
			ck_assert_ptr_nonnull(b.p);
		}
	}
	fclose(f);
	return b;
}

/* Redact S (N bytes) from an exact-size copy; the result is NUL-terminated. */
static struct buf redact(const char *s, size_t n, struct pm_redact_stats *st)
{
	char *in = dup_exact(s, n);
	struct buf o = {NULL, 0};

	ck_assert_int_eq(pm_redact(in, n, &o.p, &o.n, st), 0);
	ck_assert_ptr_nonnull(o.p);
	ck_assert_int_eq(o.p[o.n], 0);
	free(in);
	return o;
}

static bool has(const struct buf *b, const char *s)
{
	return memmem(b->p, b->n, s, strlen(s)) != NULL;
}

static int kind_by_name(const char *name)
{
	for (int k = 0; k < PM_REDACT__COUNT; k++)
		if (!strcmp(pm_redact_kind_name(k), name))
			return k;
	return -1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.txt files of tests/data/DIR, sorted, less the ones named in SKIP (NULL-ended). */
static size_t list_txt(const char *dir, char **names, size_t max, const char *const *skip)
{
	char path[4096];
	struct dirent *e;
	size_t n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/tests/data/%s", srcdir(), dir);
	d = opendir(path);
	ck_assert_msg(d != NULL, "%s: %s", path, strerror(errno));
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		bool skipped = false;

		if (l < 5 || strcmp(e->d_name + l - 4, ".txt"))
			continue;
		for (const char *const *s = skip; s && *s; s++)
			skipped |= !strcmp(e->d_name, *s);
		if (skipped)
			continue;
		ck_assert_uint_lt(n, max);
		names[n] = malloc(strlen(dir) + l + 2);
		sprintf(names[n++], "%s/%s", dir, e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_str);
	return n;
}

/* ---- the corpora ---- */

#define MAXFILES 32
static const char *const not_corpus[] = {"planted.txt", "survivors.txt", NULL};

struct corpus {
	size_t n;
	char *name[MAXFILES];
	struct buf in[MAXFILES], out[MAXFILES];
	struct pm_redact_stats st[MAXFILES];
};

static void corpus_load(struct corpus *c, const char *dir, const char *const *skip, bool crlf)
{
	memset(c, 0, sizeof(*c));
	c->n = list_txt(dir, c->name, MAXFILES, skip);
	ck_assert_uint_gt(c->n, 0);
	for (size_t i = 0; i < c->n; i++) {
		c->in[i] = slurp(c->name[i]);
		if (crlf) {
			struct buf w = {malloc(2 * c->in[i].n + 1), 0};

			ck_assert_ptr_nonnull(w.p);
			for (size_t k = 0; k < c->in[i].n; k++) {
				if (c->in[i].p[k] == '\n')
					w.p[w.n++] = '\r';
				w.p[w.n++] = c->in[i].p[k];
			}
			free(c->in[i].p);
			c->in[i] = w;
		}
		c->out[i] = redact(c->in[i].p, c->in[i].n, &c->st[i]);
	}
}

static void corpus_free(struct corpus *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->name[i]);
		free(c->in[i].p);
		free(c->out[i].p);
	}
}

struct planted {
	int kind;
	char *secret;
};

static size_t load_planted(struct planted **out)
{
	struct buf b = slurp("secrets/planted.txt");
	struct planted *p = NULL;
	size_t n = 0;

	for (char *line = b.p; line < b.p + b.n;) {
		char *nl = memchr(line, '\n', (size_t)(b.p + b.n - line)), *tab;
		size_t len = nl ? (size_t)(nl - line) : (size_t)(b.p + b.n - line);
		char kind[64];

		if (len && line[0] != '#') {
			tab = memchr(line, '\t', len);
			ck_assert_msg(tab && (size_t)(tab - line) < sizeof(kind),
				      "planted.txt: %.*s", (int)len, line);
			memcpy(kind, line, (size_t)(tab - line));
			kind[tab - line] = 0;
			p = realloc(p, (n + 1) * sizeof(*p));
			ck_assert_ptr_nonnull(p);
			p[n].kind = kind_by_name(kind);
			ck_assert_msg(p[n].kind >= 0, "planted.txt: unknown kind %s", kind);
			p[n].secret = strndup(tab + 1, len - (size_t)(tab + 1 - line));
			ck_assert_uint_ge(strlen(p[n].secret), 4);
			n++;
		}
		line += len + 1;
	}
	free(b.p);
	*out = p;
	return n;
}

/* The kinds found only with the lines before or after (key blocks). */
static bool multiline_kind(int k)
{
	return k == PM_REDACT_PRIVATE_KEY || k == PM_REDACT_SSH_PRIVATE_KEY ||
	       k == PM_REDACT_PGP_PRIVATE_KEY;
}

static void check_planted(bool crlf)
{
	struct corpus c;
	struct planted *p;
	size_t np = load_planted(&p);
	bool kind_seen[PM_REDACT__COUNT] = {false};

	corpus_load(&c, "secrets", not_corpus, crlf);
	for (size_t i = 0; i < np; i++) {
		struct buf s = {p[i].secret, strlen(p[i].secret)};
		size_t found = 0;

		kind_seen[p[i].kind] = true;
		for (size_t f = 0; f < c.n; f++) {
			const char *at = memmem(c.in[f].p, c.in[f].n, s.p, s.n);

			if (!at)
				continue;
			found++;
			ck_assert_msg(!has(&c.out[f], s.p), "%s: %s leaks: %s", c.name[f],
				      pm_redact_kind_name(p[i].kind), s.p);
			ck_assert_msg(c.st[f].by_kind[p[i].kind] > 0, "%s: no %s counted",
				      c.name[f], pm_redact_kind_name(p[i].kind));
			if (multiline_kind(p[i].kind))
				continue;
			/* the line alone: the secret goes, under its own kind */
			{
				const char *ls = at, *le = at;
				struct pm_redact_stats st = {0};
				struct buf o;

				while (ls > c.in[f].p && ls[-1] != '\n')
					ls--;
				while (le < c.in[f].p + c.in[f].n && *le != '\n')
					le++;
				o = redact(ls, (size_t)(le - ls), &st);
				ck_assert_msg(!has(&o, s.p), "%s: alone, its line leaks %s",
					      c.name[f], s.p);
				ck_assert_msg(st.by_kind[p[i].kind] > 0,
					      "%s: alone, the line of %s counts no %s", c.name[f],
					      s.p, pm_redact_kind_name(p[i].kind));
				free(o.p);
			}
		}
		ck_assert_msg(found > 0, "planted.txt: %s is in no secrets/*.txt", s.p);
	}
	for (int k = 0; k < PM_REDACT__COUNT; k++)
		ck_assert_msg(kind_seen[k], "no sample of kind %s in planted.txt",
			      pm_redact_kind_name(k));
	for (size_t i = 0; i < np; i++)
		free(p[i].secret);
	free(p);
	corpus_free(&c);
}

START_TEST(test_planted_secrets_gone)
{
	check_planted(false);
}
END_TEST

START_TEST(test_planted_secrets_gone_crlf)
{
	check_planted(true);
}
END_TEST

/* BUF without its escape sequences and control characters (what a terminal shows). */
static struct buf shown(const struct buf *b)
{
	struct buf o = {malloc(b->n + 1), 0};

	ck_assert_ptr_nonnull(o.p);
	for (size_t i = 0; i < b->n; i++) {
		unsigned char c = (unsigned char)b->p[i];

		if (c == 0x1b && i + 1 < b->n && b->p[i + 1] == '[') {
			for (i += 2; i < b->n && !(b->p[i] >= 0x40 && b->p[i] <= 0x7e); i++)
				;
			continue;
		}
		if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f)
			continue;
		o.p[o.n++] = (char)c;
	}
	o.p[o.n] = 0;
	return o;
}

/*
 * Every planted secret on its line, with a colour code just before it, a colour code in its
 * middle, or another control character in its middle: gone from what a terminal would show,
 * and counted under its kind.
 */
START_TEST(test_planted_with_controls)
{
	static const char *const marks[] = {"\033[31m", "\033[1;32m", "\x0f", "\033[0m\b"};
	struct corpus c;
	struct planted *p;
	size_t np = load_planted(&p), tried = 0;

	corpus_load(&c, "secrets", not_corpus, false);
	for (size_t i = 0; i < np; i++) {
		size_t sl = strlen(p[i].secret);

		if (multiline_kind(p[i].kind))
			continue;
		for (size_t f = 0; f < c.n; f++) {
			const char *at = memmem(c.in[f].p, c.in[f].n, p[i].secret, sl), *ls, *le;

			if (!at)
				continue;
			for (ls = at; ls > c.in[f].p && ls[-1] != '\n'; ls--)
				;
			for (le = at; le < c.in[f].p + c.in[f].n && *le != '\n'; le++)
				;
			for (size_t m = 0; m < 4; m++) {
				/* m 0: before it; 1-3: in its middle */
				size_t cut = (size_t)(at - ls) + (m ? sl / 2 : 0),
				       ml = strlen(marks[m]);
				size_t n = (size_t)(le - ls) + ml;
				char *line = malloc(n);
				struct pm_redact_stats st = {0};
				struct buf o, v;

				memcpy(line, ls, cut);
				memcpy(line + cut, marks[m], ml);
				memcpy(line + cut + ml, ls + cut, (size_t)(le - ls) - cut);
				o = redact(line, n, &st);
				v = shown(&o);
				ck_assert_msg(!has(&v, p[i].secret), "%s: mark %zu: %s leaks: %s",
					      c.name[f], m, p[i].secret, v.p);
				ck_assert_msg(st.by_kind[p[i].kind] > 0,
					      "%s: mark %zu: no %s for %s", c.name[f], m,
					      pm_redact_kind_name(p[i].kind), v.p);
				free(v.p);
				free(o.p);
				free(line);
				tried++;
			}
			break;
		}
	}
	ck_assert_uint_gt(tried, 400);
	for (size_t i = 0; i < np; i++)
		free(p[i].secret);
	free(p);
	corpus_free(&c);
}
END_TEST

START_TEST(test_context_survives)
{
	struct corpus c;
	struct buf sv = slurp("secrets/survivors.txt");
	size_t checked = 0;

	corpus_load(&c, "secrets", not_corpus, false);
	for (char *line = sv.p; line < sv.p + sv.n;) {
		char *nl = memchr(line, '\n', (size_t)(sv.p + sv.n - line));
		size_t len = nl ? (size_t)(nl - line) : (size_t)(sv.p + sv.n - line);
		size_t in = 0;

		for (size_t f = 0; len && line[0] != '#' && f < c.n; f++) {
			if (!memmem(c.in[f].p, c.in[f].n, line, len))
				continue;
			in++;
			ck_assert_msg(memmem(c.out[f].p, c.out[f].n, line, len),
				      "%s: lost \"%.*s\"", c.name[f], (int)len, line);
		}
		ck_assert_msg(!len || line[0] == '#' || in, "survivors.txt: \"%.*s\" is in no file",
			      (int)len, line);
		checked += len && line[0] != '#';
		line += len + 1;
	}
	ck_assert_uint_gt(checked, 40);
	free(sv.p);
	corpus_free(&c);
}
END_TEST

static void check_lookalikes(bool crlf)
{
	struct corpus c;

	corpus_load(&c, "lookalikes", NULL, crlf);
	for (size_t f = 0; f < c.n; f++) {
		if (c.out[f].n != c.in[f].n || memcmp(c.out[f].p, c.in[f].p, c.in[f].n)) {
			size_t k = 0;

			while (k < c.in[f].n && k < c.out[f].n && c.in[f].p[k] == c.out[f].p[k])
				k++;
			while (k > 0 && c.in[f].p[k - 1] != '\n')
				k--;
			ck_abort_msg("%s changed at byte %zu: \"%.120s\"", c.name[f], k,
				     c.out[f].p + k);
		}
		ck_assert_uint_eq(c.st[f].total, 0);
	}
	corpus_free(&c);
}

START_TEST(test_lookalikes_unchanged)
{
	check_lookalikes(false);
}
END_TEST

START_TEST(test_lookalikes_unchanged_crlf)
{
	check_lookalikes(true);
}
END_TEST

START_TEST(test_crlf_kept)
{
	struct corpus c;

	corpus_load(&c, "secrets", not_corpus, true);
	for (size_t f = 0; f < c.n; f++)
		for (size_t k = 0; k < c.out[f].n; k++)
			if (c.out[f].p[k] == '\n')
				ck_assert_msg(k > 0 && c.out[f].p[k - 1] == '\r',
					      "%s: a CR was lost at byte %zu", c.name[f], k);
	corpus_free(&c);
}
END_TEST

START_TEST(test_deterministic_idempotent)
{
	struct corpus c;

	corpus_load(&c, "secrets", not_corpus, false);
	for (size_t f = 0; f < c.n; f++) {
		struct pm_redact_stats st = {0};
		struct buf again = redact(c.in[f].p, c.in[f].n, NULL);
		struct buf twice = redact(c.out[f].p, c.out[f].n, &st);

		ck_assert_uint_eq(again.n, c.out[f].n);
		ck_assert_int_eq(memcmp(again.p, c.out[f].p, again.n), 0);
		ck_assert_msg(twice.n == c.out[f].n && !memcmp(twice.p, c.out[f].p, twice.n),
			      "%s: redacting the redacted text changed it", c.name[f]);
		ck_assert_uint_eq(st.total, 0);
		ck_assert_uint_gt(c.st[f].total, 0);
		free(again.p);
		free(twice.p);
	}
	corpus_free(&c);
}
END_TEST

/* ---- known answers: one line in, one line out ---- */

static const struct {
	const char *in, *out;
} answers[] = {
	/* the written forms of an assignment */
	{"--password foo", "--password [REDACTED:password]"},
	{"--password=foo --lr 3e-4", "--password=[REDACTED:password] --lr 3e-4"},
	{"PASSWORD=foo", "PASSWORD=[REDACTED:password]"},
	{"export DB_PASSWORD='p a s s'", "export DB_PASSWORD='[REDACTED:db_password]'"},
	{"\"password\": \"foo\"", "\"password\": \"[REDACTED:password]\""},
	{"{'password':'f\\'oo', 'lr': 1}", "{'password':'[REDACTED:password]', 'lr': 1}"},
	{"password: foo bar # old", "password: [REDACTED:password] # old"},
	{"  - password: \"foo\"", "  - password: \"[REDACTED:password]\""},
	{"password = foo bar", "password = [REDACTED:password]"},
	{"login(user='u', password='foo')", "login(user='u', password='[REDACTED:password]')"},
	{"x=1 api_key=abc123 y=2", "x=1 api_key=[REDACTED:api_key] y=2"},
	{"?a=1&access_token=abc123&b=2", "?a=1&access_token=[REDACTED:token]&b=2"},
	{"X-Api-Key: abc123", "X-Api-Key: [REDACTED:api_key]"},
	{"clientSecret=abc123", "clientSecret=[REDACTED:client_secret]"},
	{"Authorization: Digest username=\"u\", response=\"6629fae4\"",
	 "Authorization: Digest [REDACTED:token]"},
	{"Authorization: abc def", "Authorization: [REDACTED:token]"},
	{"machine h login u password p4ss", "machine h login u password [REDACTED:netrc_password]"},
	{"password p4ss", "password [REDACTED:netrc_password]"},
	{"redis://:p4ss@h:6379/0", "redis://:[REDACTED:db_password]@h:6379/0"},
	{"ftp://u:p@ss@h/x", "ftp://u:[REDACTED:url_password]@h/x"},
	{"-----BEGIN PRIVATE KEY-----MIIEvQ-----END PRIVATE KEY----- ok",
	 "[REDACTED:private_key] ok"},
	{"key: \"-----BEGIN EC PRIVATE KEY-----\\nMHcC\\n-----END EC PRIVATE KEY-----\\n\"",
	 "key: \"[REDACTED:private_key]\\n\""},
	/* no value, a placeholder, a reference, a vocabulary word: left alone */
	{"--password", "--password"},
	{"--password --user u", "--password --user u"},
	{"password:", "password:"},
	{"PASSWORD=", "PASSWORD="},
	{"password: ********", "password: ********"},
	{"password: [REDACTED:password]", "password: [REDACTED:password]"},
	{"PASSWORD=${DB_PASSWORD}", "PASSWORD=${DB_PASSWORD}"},
	{"token: {{ vault_token }}", "token: {{ vault_token }}"},
	{"password = getpass.getpass()", "password = getpass.getpass()"},
	{"if password == expected:", "if password == expected:"},
	{"token=2048 pad_token=<pad> eos_token: </s>",
	 "token=2048 pad_token=<pad> eos_token: </s>"},
	{"api_key: /etc/keys/eval.key", "api_key: /etc/keys/eval.key"},
	{"public_key=ssh-ed25519 AAAA sort_key=time", "public_key=ssh-ed25519 AAAA sort_key=time"},
	{"\"use_auth_token\": true, \"token\": null", "\"use_auth_token\": true, \"token\": null"},
	{"Failed password for jdoe from 10.0.0.1 port 22",
	 "Failed password for jdoe from 10.0.0.1 port 22"},
	{"PWD=/home/jdoe OLDPWD=/tmp", "PWD=/home/jdoe OLDPWD=/tmp"},
	{"if (line.startswith(\"-----BEGIN RSA PRIVATE KEY-----\")):",
	 "if (line.startswith(\"-----BEGIN RSA PRIVATE KEY-----\")):"},
	{"-----BEGIN CERTIFICATE-----", "-----BEGIN CERTIFICATE-----"},
	{"ssh://git@github.com:22/acme/x.git", "ssh://git@github.com:22/acme/x.git"},
	{"http://[fe80::1]:8080/x?u=a@b", "http://[fe80::1]:8080/x?u=a@b"},
	{"AKIAIOSFODNN7EXAMPLEX AKIAIOSFODNN7EXAMPL xAKIAIOSFODNN7EXAMPLE",
	 "AKIAIOSFODNN7EXAMPLEX AKIAIOSFODNN7EXAMPL xAKIAIOSFODNN7EXAMPLE"},
	{"hf_hub_download hf_transfer use_hf_transfer",
	 "hf_hub_download hf_transfer use_hf_transfer"},
	{"task-0000000000000000000000000000000000000000001",
	 "task-0000000000000000000000000000000000000000001"},
	{"Basic configuration loaded", "Basic configuration loaded"},
	{"Bearer authentication", "Bearer authentication"},
	/* colour codes and other control characters before or inside a secret */
	{"\033[31mghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5\033[0m",
	 "\033[31m[REDACTED:github_token]\033[0m"},
	{"\033[32msk-proj-Ab3De5Fg7Hi9Jk1Lm3No5Pq7Rs9Tu1Vw3Xy5Za7Bc9\033[0m ok",
	 "\033[32m[REDACTED:openai_api_key]\033[0m ok"},
	{"key:\033[1;32mAKIA2E0A8F3B244C9986\033(B\033[m",
	 "key:\033[1;32m[REDACTED:aws_access_key_id]\033(B\033[m"},
	{"id\033[32mAKIA2E0A8F3B244C9986", "id\033[32m[REDACTED:aws_access_key_id]"},
	{"hf_AbCdEfGh\033[1mIjKlMnOpQrSt\033[0mUvWxYz0123456789 x",
	 "[REDACTED:huggingface_token] x"},
	{"PASSWORD=\033[33mhunter2\033[0m", "PASSWORD=\033[33m[REDACTED:password]\033[0m"},
	{"\033[1mpassword\033[0m: hun\x0fter2", "\033[1mpassword\033[0m: [REDACTED:password]"},
	{"\033]8;;https://u:S3cretPass@h/x\033\\link\033]8;;\033\\",
	 "\033]8;;https://u:[REDACTED:url_password]@h/x\033\\link\033]8;;\033\\"},
	/* white space after Bearer and Basic */
	{"Bearer\tabcdef1234567890abcdef", "Bearer\t[REDACTED:bearer_token]"},
	{"Bearer \t abcdef1234567890abcdef", "Bearer \t [REDACTED:bearer_token]"},
	{"bearer\xc2\xa0"
	 "abcdef1234567890abcdef",
	 "bearer\xc2\xa0[REDACTED:bearer_token]"},
	{"?auth=Bearer%20abcdef1234567890abcdef", "?auth=Bearer%20[REDACTED:bearer_token]"},
	{"Bearer\033[2mabcdef1234567890abcdef", "Bearer\033[2m[REDACTED:bearer_token]"},
	{"Basic\tdXNlcjpwYXNzd29yZA==", "Basic\t[REDACTED:basic_auth]"},
	{"Authorization:\tBearer\tabcdef1234567890abcdef",
	 "Authorization:\tBearer\t[REDACTED:bearer_token]"},
	/* password arguments of common tools */
	{"mysql -u root -pS3cretPass! -h db1 mydb",
	 "mysql -u root -p[REDACTED:db_password] -h db1 mydb"},
	{"/usr/bin/mysqldump -p'my pass' db > d.sql",
	 "/usr/bin/mysqldump -p'[REDACTED:db_password]' db > d.sql"},
	{"mariadb -uroot -pS3cret", "mariadb -uroot -p[REDACTED:db_password]"},
	{"mysql --password=S3cret -u root", "mysql --password=[REDACTED:password] -u root"},
	{"PGPASSWORD=S3cret psql -h db -U app",
	 "PGPASSWORD=[REDACTED:db_password] psql -h db -U app"},
	{"psql \"host=db user=app password=S3cret dbname=x\"",
	 "psql \"host=db user=app password=[REDACTED:password] dbname=x\""},
	{"sshpass -p S3cret ssh -p 2222 u@h", "sshpass -p [REDACTED:password] ssh -p 2222 u@h"},
	{"sshpass -f ~/.pw -pS3cret scp a h:", "sshpass -f ~/.pw -p[REDACTED:password] scp a h:"},
	{"SSHPASS=S3cret sshpass -e ssh h", "SSHPASS=[REDACTED:password] sshpass -e ssh h"},
	{"curl -u alice:S3cret https://h/x", "curl -u alice:[REDACTED:password] https://h/x"},
	{"curl -sS --user 'alice:pa ss' -X POST h",
	 "curl -sS --user 'alice:[REDACTED:password]' -X POST h"},
	{"curl --proxy-user=bob:S3cret -ubob:Other1 h",
	 "curl --proxy-user=bob:[REDACTED:password] -ubob:[REDACTED:password] h"},
	{"wget --user=alice --password=S3cret h",
	 "wget --user=alice --password=[REDACTED:password] h"},
	{"wget --http-password S3cret h", "wget --http-password [REDACTED:password] h"},
	{"docker login -u alice -p S3cret reg.example.com",
	 "docker login -u alice -p [REDACTED:password] reg.example.com"},
	{"podman login --password=S3cret quay.io",
	 "podman login --password=[REDACTED:password] quay.io"},
	{"helm registry login -p S3cret r.io", "helm registry login -p [REDACTED:password] r.io"},
	{"kubectl --token=S3cretTok123 get pods", "kubectl --token=[REDACTED:token] get pods"},
	{"kubectl --token S3cretTok123 get pods", "kubectl --token [REDACTED:token] get pods"},
	{"ldapsearch -x -D cn=admin -w S3cret -b dc=x",
	 "ldapsearch -x -D cn=admin -w [REDACTED:password] -b dc=x"},
	{"ldapmodify -wS3cret -f x.ldif", "ldapmodify -w[REDACTED:password] -f x.ldif"},
	{"smbclient //srv/share -U alice%S3cret",
	 "smbclient //srv/share -U alice%[REDACTED:password]"},
	{"smbclient -U 'CORP\\alice%S3cret' //srv/s",
	 "smbclient -U 'CORP\\alice%[REDACTED:password]' //srv/s"},
	{"smbclient //srv/share S3cret -U alice",
	 "smbclient //srv/share [REDACTED:password] -U alice"},
	{"rpcclient --user=alice%S3cret srv", "rpcclient --user=alice%[REDACTED:password] srv"},
	{"keytool -importkeystore -srcstorepass S3cret -deststorepass Other1",
	 "keytool -importkeystore -srcstorepass [REDACTED:password] -deststorepass [REDACTED:password]"},
	/* credentials in URLs of any scheme */
	{"https://alice:S3cret#Pass@host/x", "https://alice:[REDACTED:url_password]@host/x"},
	{"sftp://bob:S3cret?x@host/", "sftp://bob:[REDACTED:url_password]@host/"},
	{"smb://alice:S3cret@srv/share", "smb://alice:[REDACTED:url_password]@srv/share"},
	{"git+ssh://bob:S3cret@host/r.git", "git+ssh://bob:[REDACTED:url_password]@host/r.git"},
	{"x-custom.v2://bob:S3cret@host", "x-custom.v2://bob:[REDACTED:url_password]@host"},
	{"amqps://guest:S3cret@rabbit:5671/", "amqps://guest:[REDACTED:db_password]@rabbit:5671/"},
	/* a command's words proposed ahead hide no later secret on the line */
	{"mysql -pX sshpass -p Y Bearer\tabc3cret mysql -pX",
	 "mysql -p[REDACTED:db_password] sshpass -p [REDACTED:password] Bearer\t[REDACTED:bearer_token] "
	 "mysql -p[REDACTED:db_password]"},
	{"wandb login 0123456789abcdef0123456789abcdef01234567 x Bearer abcdef1234567890abcdef",
	 "wandb login [REDACTED:wandb_api_key] x Bearer [REDACTED:bearer_token]"},
	{"curl -u\"bob:S3cret mysql -pX",
	 "curl -u\"bob:[REDACTED:password] mysql -p[REDACTED:db_password]"},
	{"curl -u 'bob:[REDACTED:password]' h", "curl -u 'bob:[REDACTED:password]' h"},
	/* their look-alikes */
	{"mysql -u root -p mydb", "mysql -u root -p mydb"},
	{"mysql -u root -p", "mysql -u root -p"},
	{"mysql -P 3306 -h db", "mysql -P 3306 -h db"},
	{"mysql -p$MYSQL_PWD db", "mysql -p$MYSQL_PWD db"},
	{"ssh -p 2222 host; docker run -p 8080:80 nginx",
	 "ssh -p 2222 host; docker run -p 8080:80 nginx"},
	{"mkdir -p /tmp/x && gcc -pthread -pedantic x.c",
	 "mkdir -p /tmp/x && gcc -pthread -pedantic x.c"},
	{"sshpass -f /home/u/.pw ssh -p 2222 host", "sshpass -f /home/u/.pw ssh -p 2222 host"},
	{"sshpass -e ssh -p 22 host", "sshpass -e ssh -p 22 host"},
	{"curl -u alice https://h/x", "curl -u alice https://h/x"},
	{"curl -o out.tar -L https://h/x | tar -x -u",
	 "curl -o out.tar -L https://h/x | tar -x -u"},
	{"pycurl libcurl curl_easy_setopt(h, CURLOPT_USERPWD, up)",
	 "pycurl libcurl curl_easy_setopt(h, CURLOPT_USERPWD, up)"},
	{"docker login --password-stdin -u alice r.io",
	 "docker login --password-stdin -u alice r.io"},
	{"wget --password-file=/etc/pw h", "wget --password-file=/etc/pw h"},
	{"ldapsearch -x -W -b dc=x; wc -w file", "ldapsearch -x -W -b dc=x; wc -w file"},
	{"smbclient //srv/share -U alice -N", "smbclient //srv/share -U alice -N"},
	{"login node: ssh login -p 22", "login node: ssh login -p 22"},
	{"ssh user@host scp a user@host:/b", "ssh user@host scp a user@host:/b"},
	{"http://host:8080?to=a@b http://host?u=a@b", "http://host:8080?to=a@b http://host?u=a@b"},
	{"\033[32mINFO\033[0m step 10 loss=2.31 \033[1mlr\033[0m=3e-4",
	 "\033[32mINFO\033[0m step 10 loss=2.31 \033[1mlr\033[0m=3e-4"},
	{"BearerTokenAuth basicConfig(level=1)", "BearerTokenAuth basicConfig(level=1)"},
};

START_TEST(test_known_answers)
{
	for (size_t i = 0; i < sizeof(answers) / sizeof(answers[0]); i++) {
		struct buf o = redact(answers[i].in, strlen(answers[i].in), NULL);

		ck_assert_msg(!strcmp(o.p, answers[i].out), "in:  %s\nout: %s\nwant: %s",
			      answers[i].in, o.p, answers[i].out);
		free(o.p);
	}
}
END_TEST

/* Redact IN, want WANT, and want the same again from WANT: redacting twice changes nothing. */
static void twice(const char *in, const char *want)
{
	struct pm_redact_stats st = {0};
	struct buf o = redact(in, strlen(in), NULL);
	struct buf again = redact(o.p, o.n, &st);

	ck_assert_msg(!strcmp(o.p, want), "in:  %s\nout: %s\nwant: %s", in, o.p, want);
	ck_assert_msg(!strcmp(again.p, o.p) && !st.total, "redacted again: %s\nfrom: %s", again.p,
		      o.p);
	free(o.p);
	free(again.p);
}

/* ---- assignment families the review found leaking (review34 F1), and their near misses ---- */

static const struct {
	const char *in, *out;
} assign_answers[] = {
	/* set -x quotes a word holding blanks whole: the value runs to its closing quote */
	{"+ export 'API_PASSWORD=blue moon river'", "+ export 'API_PASSWORD=[REDACTED:password]'"},
	{"+ ./run.sh '--db-password=two words' --epochs 3",
	 "+ ./run.sh '--db-password=[REDACTED:db_password]' --epochs 3"},
	{"+ export 'SVC_TOKEN=it'\\''s mine' x", "+ export 'SVC_TOKEN=[REDACTED:token]' x"},
	{"+ SVC_TOKEN='it'\\''s mine'", "+ SVC_TOKEN='[REDACTED:token]'"},
	/* env, printenv, declare -x: a secret's value is the rest of its line */
	{"SMTP_PASSWORD=green apple; pie&x", "SMTP_PASSWORD=[REDACTED:password]"},
	{"APP_SECRET=abc,def|gh)ij<kl>mn", "APP_SECRET=[REDACTED:secret]"},
	{"export SMTP_PASSWORD=a)b", "export SMTP_PASSWORD=[REDACTED:password]"},
	{"3: SMTP_PASSWORD=Tr0ub&4dor x", "3: SMTP_PASSWORD=[REDACTED:password]"},
	{"[rank1]: APP_SECRET=abc def", "[rank1]: APP_SECRET=[REDACTED:secret]"},
	{"node07: APP_SECRET=abc def", "node07: APP_SECRET=[REDACTED:secret]"},
	{"declare -x APP_SECRET=\"x \\\"y\\\" z\"", "declare -x APP_SECRET=\"[REDACTED:secret]\""},
	/* a tool that takes a key's name, then its value */
	{"+ aws configure set aws_secret_access_key abcDEF123/xyz",
	 "+ aws configure set aws_secret_access_key [REDACTED:aws_secret_access_key]"},
	{"rclone config create box sftp host h user u pass pw99 key kk7",
	 "rclone config create box sftp host h user u pass [REDACTED:password] key [REDACTED:api_key]"},
	{"rclone config update s3r secret_access_key 'abc def'",
	 "rclone config update s3r secret_access_key '[REDACTED:aws_secret_access_key]'"},
	{"setenv MY_API_KEY abc123xyz", "setenv MY_API_KEY [REDACTED:api_key]"},
	{"git config --global svc.token tok123abc",
	 "git config --global svc.token [REDACTED:token]"},
	/* subscript assignments */
	{"os.environ['SVC_TOKEN'] = 'tok123abc'", "os.environ['SVC_TOKEN'] = '[REDACTED:token]'"},
	{"environ[\"APP_SECRET\"]=\"s3c\"", "environ[\"APP_SECRET\"]=\"[REDACTED:secret]\""},
	{"cfg['password'] = \"pw pw\"", "cfg['password'] = \"[REDACTED:password]\""},
	{"ENV[\"MY_API_KEY\"] = 'k1k2k3'", "ENV[\"MY_API_KEY\"] = '[REDACTED:api_key]'"},
	/* Python's bytes (and other prefixed) strings */
	{"{'password': b'pw pw'}", "{'password': b'[REDACTED:password]'}"},
	{"auth_token=rb\"tok123abc\"", "auth_token=rb\"[REDACTED:token]\""},
	/* the names of a shared key, and a secret's name with its form after it */
	{"MUNGE_KEY=c2VjcmV0c2VjcmV0", "MUNGE_KEY=[REDACTED:api_key]"},
	{"HMAC_KEY=0a1b2c3d4e5f", "HMAC_KEY=[REDACTED:api_key]"},
	{"SECRET_KEY_BASE=0a1b2c3d4e5f", "SECRET_KEY_BASE=[REDACTED:secret]"},
	{"ADMIN_PASSWORD_B64=cHc=", "ADMIN_PASSWORD_B64=[REDACTED:password]"},
	/* htpasswd -b's password, openssl's pass:PASSWORD */
	{"htpasswd -b /etc/h/.htpasswd bob pw4bob",
	 "htpasswd -b /etc/h/.htpasswd bob [REDACTED:password]"},
	{"htpasswd -nbB bob 'pw 4 bob' > f", "htpasswd -nbB bob '[REDACTED:password]' > f"},
	{"openssl rsa -in k.pem -passin pass:pw4key -passout 'pass:a b'",
	 "openssl rsa -in k.pem -passin pass:[REDACTED:password] -passout 'pass:[REDACTED:password]'"},
	/* near misses: left byte for byte */
	{"htpasswd -c /etc/h/.htpasswd bob", "htpasswd -c /etc/h/.htpasswd bob"},
	{"htpasswd -B -C 12 /etc/h/.htpasswd bob", "htpasswd -B -C 12 /etc/h/.htpasswd bob"},
	{"openssl rsa -passin env:KEY_PW -passout file:/run/pw -passin stdin",
	 "openssl rsa -passin env:KEY_PW -passout file:/run/pw -passin stdin"},
	{"NCCL_IB_HCA=mlx5_0,mlx5_1", "NCCL_IB_HCA=mlx5_0,mlx5_1"},
	{"SLURM_JOB_NODELIST=gpu[01-04]", "SLURM_JOB_NODELIST=gpu[01-04]"},
	{"export CUDA_VISIBLE_DEVICES=0,1", "export CUDA_VISIBLE_DEVICES=0,1"},
	{"0: UCX_TLS=rc,ud,sm,self", "0: UCX_TLS=rc,ud,sm,self"},
	{"python train.py --num-workers 8", "python train.py --num-workers 8"},
	{"KEY_ROTATION_DAYS=30 SORT_KEY=time GPG_KEY=A035C8C19219",
	 "KEY_ROTATION_DAYS=30 SORT_KEY=time GPG_KEY=A035C8C19219"},
	{"SECRET_NAME=prod-db TOKEN_LIMIT=4096", "SECRET_NAME=prod-db TOKEN_LIMIT=4096"},
	{"HF_TOKEN_PATH=/home/u/.cache/huggingface/token",
	 "HF_TOKEN_PATH=/home/u/.cache/huggingface/token"},
	{"MUNGE_KEY=/etc/munge/munge.key", "MUNGE_KEY=/etc/munge/munge.key"},
	{"password=getpass.getpass()", "password=getpass.getpass()"},
	{"+ python x.py '--lr=0.1 --bs=8'", "+ python x.py '--lr=0.1 --bs=8'"},
	{"tok = os.environ['HF_TOKEN']", "tok = os.environ['HF_TOKEN']"},
	{"cfg['password'] = args.password", "cfg['password'] = args.password"},
	{"if env['SVC_TOKEN'] == 'x':", "if env['SVC_TOKEN'] == 'x':"},
	{"echo password set; aws configure get aws_secret_access_key",
	 "echo password set; aws configure get aws_secret_access_key"},
	{"git config --get svc.token", "git config --get svc.token"},
	{"rclone config create box sftp pass --ask", "rclone config create box sftp pass --ask"},
	{"the secret_key was rotated", "the secret_key was rotated"},
	{"pad_token=b'<pad>' token_bytes=b'ab'", "pad_token=b'<pad>' token_bytes=b'ab'"},
};

START_TEST(test_assign_families)
{
	for (size_t i = 0; i < sizeof(assign_answers) / sizeof(assign_answers[0]); i++)
		twice(assign_answers[i].in, assign_answers[i].out);
}
END_TEST

/* ---- the tools the review found missing, and cookies (review34 F1) ---- */

static const struct {
	const char *in, *out;
} tool_answers[] = {
	{"redis-cli -h r1 -a pw4redis ping", "redis-cli -h r1 -a [REDACTED:db_password] ping"},
	{"redis-cli --pass pw4redis -n 2", "redis-cli --pass [REDACTED:db_password] -n 2"},
	{"mongosh mongodb://db1 -u root -p pw4mongo",
	 "mongosh mongodb://db1 -u root -p [REDACTED:db_password]"},
	{"mongodump --password=pw4mongo --out /d",
	 "mongodump --password=[REDACTED:db_password] --out /d"},
	{"az login --service-principal -u app -p pw4az --tenant t",
	 "az login --service-principal -u app -p [REDACTED:password] --tenant t"},
	{"openssl enc -aes-256-cbc -k pw4enc -in a",
	 "openssl enc -aes-256-cbc -k [REDACTED:password] -in a"},
	{"Cookie: sessionid=c00k1e; csrftoken=c5rf",
	 "Cookie: sessionid=[REDACTED:cookie]; csrftoken=[REDACTED:cookie]"},
	{"set-cookie: sid=s3ss; Path=/; HttpOnly",
	 "set-cookie: sid=[REDACTED:cookie]; Path=/; HttpOnly"},
	{"curl -H \"Cookie: sid=s3ss\" https://h",
	 "curl -H \"Cookie: sid=[REDACTED:cookie]\" https://h"},
	{"{'Cookie': 'sid=s3ss', 'Accept': '*/*'}",
	 "{'Cookie': 'sid=[REDACTED:cookie]', 'Accept': '*/*'}"},
	{"curl --cookie 'sid=s3ss' h", "curl --cookie 'sid=[REDACTED:cookie]' h"},
	/* near misses */
	{"redis-cli -h r1 ping; ssh -a h", "redis-cli -h r1 ping; ssh -a h"},
	{"mongosh -u root -p --authenticationDatabase admin",
	 "mongosh -u root -p --authenticationDatabase admin"},
	{"mongod --port 27017 mongodb://h:27017/x", "mongod --port 27017 mongodb://h:27017/x"},
	{"az vm list -p x; openssl version -a", "az vm list -p x; openssl version -a"},
	{"Cookie consent: none; cookies=3 --cookie-jar /tmp/j",
	 "Cookie consent: none; cookies=3 --cookie-jar /tmp/j"},
	{"Cookie:", "Cookie:"},
};

START_TEST(test_tool_and_cookie)
{
	for (size_t i = 0; i < sizeof(tool_answers) / sizeof(tool_answers[0]); i++)
		twice(tool_answers[i].in, tool_answers[i].out);
}
END_TEST

/* ---- what secrets98 found leaking: calls that set a variable, a name after a command's
 * option, redis-cli's variable, secrets piped into a login, a key's list on one line ---- */

static const struct {
	const char *in, *out;
} more_answers[] = {
	/* a call that sets a variable: the name, then its value as the next argument */
	{"os.putenv('SVC_TOKEN', 'tok123abc')", "os.putenv('SVC_TOKEN', '[REDACTED:token]')"},
	{"os.putenv(\"DB_PASSWORD\", \"two words\")",
	 "os.putenv(\"DB_PASSWORD\", \"[REDACTED:db_password]\")"},
	{"os.environ.setdefault('APP_SECRET', 's3cr3t99')",
	 "os.environ.setdefault('APP_SECRET', '[REDACTED:secret]')"},
	{"setenv(\"MY_API_KEY\", \"k1k2k3\", 1);",
	 "setenv(\"MY_API_KEY\", \"[REDACTED:api_key]\", 1);"},
	{"os.Setenv(\"SVC_TOKEN\", \"tok123abc\")",
	 "os.Setenv(\"SVC_TOKEN\", \"[REDACTED:token]\")"},
	/* the ones that held: update(NAME=...), update({...}), export -p's declare -x */
	{"os.environ.update(SVC_TOKEN='tok123abc', N='1')",
	 "os.environ.update(SVC_TOKEN='[REDACTED:token]', N='1')"},
	{"os.environ.update({'SVC_TOKEN': 'tok123abc'})",
	 "os.environ.update({'SVC_TOKEN': '[REDACTED:token]'})"},
	{"declare -x DB_PASSWORD=\"two words\"",
	 "declare -x DB_PASSWORD=\"[REDACTED:db_password]\""},
	/* redis-cli reads its password from REDISCLI_AUTH; PGPASSWORD held */
	{"REDISCLI_AUTH=pw4redis", "REDISCLI_AUTH=[REDACTED:db_password]"},
	{"export REDISCLI_AUTH='pw 4 redis'", "export REDISCLI_AUTH='[REDACTED:db_password]'"},
	{"PGPASSWORD=pw4pg psql -h db", "PGPASSWORD=[REDACTED:db_password] psql -h db"},
	/* an option between "configure set" and the name */
	{"aws configure set --profile p aws_secret_access_key abcDEF123/xyz",
	 "aws configure set --profile p aws_secret_access_key [REDACTED:aws_secret_access_key]"},
	{"aws --profile p configure set aws_session_token tok123abc",
	 "aws --profile p configure set aws_session_token [REDACTED:aws_session_token]"},
	/* a secret echoed into a login that reads it from its standard input */
	{"echo tok123abc | gh auth login --with-token",
	 "echo [REDACTED:token] | gh auth login --with-token"},
	{"+ echo -n 'tok 123' | gh auth login --with-token",
	 "+ echo -n '[REDACTED:token]' | gh auth login --with-token"},
	{"printf '%s\\n' pw4reg | docker login -u u --password-stdin r.io",
	 "printf '%s\\n' [REDACTED:password] | docker login -u u --password-stdin r.io"},
	{"printf pw4reg | podman login --password-stdin r.io",
	 "printf [REDACTED:password] | podman login --password-stdin r.io"},
	{"gh auth login --with-token <<< tok123abc",
	 "gh auth login --with-token <<< [REDACTED:token]"},
	{"gh auth login --with-token <<<\"tok123abc\"",
	 "gh auth login --with-token <<<\"[REDACTED:token]\""},
	/* held: docker login -p / --password, huggingface-cli --token, wandb login KEY */
	{"docker login --password pw4reg -u u r.io",
	 "docker login --password [REDACTED:password] -u u r.io"},
	{"huggingface-cli login --token tok123abc",
	 "huggingface-cli login --token [REDACTED:token]"},
	{"wandb login --relogin 0123456789abcdef0123456789abcdef01234567",
	 "wandb login --relogin [REDACTED:wandb_api_key]"},
	/* kinds: an application's secret, a cookie */
	{"SECRET_KEY_BASE=0a1b2c3d4e5f", "SECRET_KEY_BASE=[REDACTED:secret]"},
	{"MINIO_SECRET_KEY_B64=cHc9cHc=", "MINIO_SECRET_KEY_B64=[REDACTED:s3_secret_key]"},
	{"secret_key = 0a1b2c3d4e5f", "secret_key = [REDACTED:s3_secret_key]"},
	{"Set-Cookie: sid=s3ss; Path=/", "Set-Cookie: sid=[REDACTED:cookie]; Path=/"},
	/* a private key's lines printed as a list on one line, its END cut off */
	{"['-----BEGIN RSA PRIVATE KEY-----', 'MIIEowIBAAKCAQEAx4Ui9a8b', 'f9a8b7==']",
	 "['[REDACTED:private_key]']"},
	{"print([\"-----BEGIN OPENSSH PRIVATE KEY-----\", \"b3BlbnNzaC1rZXktdjEAAAAA\"], x)",
	 "print([\"[REDACTED:ssh_private_key]\"], x)"},
	{"{\"k\": \"-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w\\n\"}",
	 "{\"k\": \"[REDACTED:private_key]"},
	/* near misses: left byte for byte */
	{"os.putenv('SVC_TOKEN', tok)", "os.putenv('SVC_TOKEN', tok)"},
	{"os.environ.setdefault('MAX_TOKENS', '512')",
	 "os.environ.setdefault('MAX_TOKENS', '512')"},
	{"os.environ.setdefault('NCCL_DEBUG', 'INFO')",
	 "os.environ.setdefault('NCCL_DEBUG', 'INFO')"},
	{"os.getenv('SVC_TOKEN', 'fallback')", "os.getenv('SVC_TOKEN', 'fallback')"},
	{"declare -x NCCL_IB_HCA=\"mlx5_0,mlx5_1\"", "declare -x NCCL_IB_HCA=\"mlx5_0,mlx5_1\""},
	{"UCX_NET_DEVICES=mlx5_0:1", "UCX_NET_DEVICES=mlx5_0:1"},
	{"SLURM_JOB_ID=12345", "SLURM_JOB_ID=12345"},
	{"KEY_ROTATION_DAYS=30", "KEY_ROTATION_DAYS=30"},
	{"MUNGE_KEY=/etc/munge/munge.key", "MUNGE_KEY=/etc/munge/munge.key"},
	{"max_tokens=512", "max_tokens=512"},
	{"aws s3 ls --profile default", "aws s3 ls --profile default"},
	{"aws configure set region us-east-1 --profile p",
	 "aws configure set region us-east-1 --profile p"},
	{"python serve.py -p 8080; ssh -p 2222 h", "python serve.py -p 8080; ssh -p 2222 h"},
	{"SLURM_AUTH=auth/munge AuthType=auth/munge", "SLURM_AUTH=auth/munge AuthType=auth/munge"},
	{"gh auth login --with-token < token.txt", "gh auth login --with-token < token.txt"},
	{"cat tok.txt | gh auth login --with-token", "cat tok.txt | gh auth login --with-token"},
	{"echo $CR_PAT | docker login -u u --password-stdin ghcr.io",
	 "echo $CR_PAT | docker login -u u --password-stdin ghcr.io"},
	{"echo done || gh auth login --with-token", "echo done || gh auth login --with-token"},
	{"docs: ['-----BEGIN PRIVATE KEY-----', 'see below']",
	 "docs: ['-----BEGIN PRIVATE KEY-----', 'see below']"},
};

START_TEST(test_more_families)
{
	for (size_t i = 0; i < sizeof(more_answers) / sizeof(more_answers[0]); i++)
		twice(more_answers[i].in, more_answers[i].out);
}
END_TEST

/*
 * The trigger table outgrew 64 (each trigger's skip[] entry and touched[] bit say how far its
 * hits on the line were looked at): triggers past the 64th (--password-stdin, --with-token)
 * and the first (AKIA) hit many times on one line are each looked at on their own, the look
 * of one no look of the other, and every secret is found.
 */
START_TEST(test_triggers_past_64)
{
	char *in = malloc(200 * 256), *want = malloc(200 * 256);
	size_t ni = 0, nw = 0;

	ck_assert_ptr_nonnull(in);
	ck_assert_ptr_nonnull(want);
	for (int i = 0; i < 200; i++) {
		ni += (size_t)sprintf(
			in + ni,
			"echo pw%03d | docker login --password-stdin r; AKIA0123456789AB%04d; "
			"echo t%03d | gh auth login --with-token; ",
			i, i, i);
		nw += (size_t)
			sprintf(want + nw,
				"echo [REDACTED:password] | docker login --password-stdin r; "
				"[REDACTED:aws_access_key_id]; echo [REDACTED:token] | gh auth "
				"login --with-token; ");
	}
	twice(in, want);
	free(in);
	free(want);
}
END_TEST

#define AZ "Zk_7Q~Mn4pQr8sTu2vWx6yZa0bCd5eFg9hJk3mNp" /* 3, a digit, Q~, 34 */
#define GHP "ghp_Ab3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1eF3hJ5"

/*
 * A shape with a longest length (an Azure client secret's 30 to 40 after "Q~", an exact
 * AKIA/dapi/SK run) glued to a secret found on the same line: the run ends where that secret
 * starts, as its tag will end it on a second redaction.  Runs too long with nothing glued
 * on are still no secret.
 */
START_TEST(test_glued_secret_ends_run)
{
	twice(AZ "." GHP, "[REDACTED:client_secret][REDACTED:github_token]");
	twice(AZ GHP, AZ GHP); /* glued to a letter: neither starts a token */
	twice("x=" AZ "_GOCSPX-Ab3dE5gH7jK9mN1pQ3sT5vW",
	      "x=[REDACTED:client_secret][REDACTED:client_secret]");
	twice("id " AZ "-Bearer abcdef1234567890abcdef",
	      "id " AZ "-Bearer [REDACTED:bearer_token]"); /* the run ends past 40, at a blank */
	/* look-alikes: over-long runs, alone or followed by what is no secret */
	twice("Zk_7Q~Mn4pQr8sTu2vWx6yZa0bCd5eFg9hJk3mNpAb3dE5gH7jK9m",
	      "Zk_7Q~Mn4pQr8sTu2vWx6yZa0bCd5eFg9hJk3mNpAb3dE5gH7jK9m");
	twice(AZ "_and_some_more_words here", AZ "_and_some_more_words here");
	twice("AKIA0123456789ABCDEFG " GHP, "AKIA0123456789ABCDEFG [REDACTED:github_token]");
	twice("SK0123456789abcdef0123456789abcdef0 x", "SK0123456789abcdef0123456789abcdef0 x");
}
END_TEST

/*
 * A hit turned down for what precedes it (glued to a word) says nothing of a later hit in
 * the same run, which may start a token of its own; nor does a SendGrid first part too long
 * say anything of a later "SG." in it.
 */
START_TEST(test_later_hit_in_turned_down_run)
{
	twice("cfgya29.old.ya29.A0bcDefGhij_klmnOpqrStuv-wx",
	      "cfgya29.old.[REDACTED:gcp_oauth_token]");
	twice("urlAIzaX-AIzaSyAb3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1eF3",
	      "urlAIzaX-[REDACTED:gcp_api_key]");
	twice("SG.0123456789abcdefghij0123456789abcdefghij-SG.0123456789abcdefghij."
	      "0123456789abcdefghij0123456789ab",
	      "SG.0123456789abcdefghij0123456789abcdefghij-[REDACTED:sendgrid_api_key]");
	/* a token redacted in a URL's user part: its tag's colon is no user:password one
	 * (the fuzzer's find: a second pass took the rest for a password); the user name,
	 * a token as a whole, goes with it */
	twice("https://glpat-Ab3dE5gH7jK9mN1pQ3sT.q7Lw2pX9.c4Rt8@git.example.org/x",
	      "https://[REDACTED:gitlab_token]@git.example.org/x");
	/* look-alikes: the glued hit alone, a later one glued too */
	twice("cfgya29.A0bcDefGhij_klmnOpqrStuv-wx", "cfgya29.A0bcDefGhij_klmnOpqrStuv-wx");
	twice("cfgya29.oldya29.A0bcDefGhij_klmnOpqrStuv-wx",
	      "cfgya29.oldya29.A0bcDefGhij_klmnOpqrStuv-wx");
}
END_TEST

/*
 * What surrounds a tag must read the same to a second redaction: an escape left open before
 * it ("ESC" then the secret) would take the tag's "[" into it; a quoted value glued to what
 * follows ("'v'|") ends where its quote does, as its tag will; the user name of a URL whose
 * password is redacted is looked at no more than when the password was there.
 */
START_TEST(test_tag_reads_the_same)
{
	twice("password=\0338xYz1234q", "password=[REDACTED:password]");
	twice("password=\033\0338xYz1234q", "password=[REDACTED:password]");
	twice("smbclient //fs/a 'S3 cret'| x //b/c y",
	      "smbclient //fs/a '[REDACTED:password]'| x //b/c y");
	twice("https://my_pass=u:Zq8vLm3nPw@host/x",
	      "https://my_pass=u:[REDACTED:url_password]@host/x");
	twice("smbclient //fs/a pw1; x //b/c y", "smbclient //fs/a [REDACTED:password]; x //b/c y");
	twice("mysql -pS3cret; ls", "mysql -p[REDACTED:db_password]; ls");
	/* look-alikes: a colour code closed before the secret stays; a quoted value with
	 * more words after it; a URL whose password is a placeholder */
	twice("password= \033[1mS3cretPass\033[0m", "password= \033[1m[REDACTED:password]\033[0m");
	twice("smbclient //fs/a 'S3 cret' -c 'ls'",
	      "smbclient //fs/a '[REDACTED:password]' -c 'ls'");
	twice("https://ci:${CI_PASS}@host/x", "https://ci:${CI_PASS}@host/x");
	twice("sshpass -p 'a;b' ssh h", "sshpass -p '[REDACTED:password]' ssh h");
}
END_TEST

#define NEPTUNE "eyJhcGlfYWRkcmVzcyI6Imh0dHBzOi8vbmVwLmV4YW1wbGUub3JnIiwiYXBpX3VybCI6IngifQ"

/*
 * A name glued to a secret found before it starts where that secret ends, as it will after
 * the secret is replaced by its tag: "<token>_API_KEY=v" redacts v the first time.
 */
START_TEST(test_name_after_secret)
{
	twice(NEPTUNE "_API_KEY=hunter2x",
	      "[REDACTED:neptune_api_token]_API_KEY=[REDACTED:api_key]");
	twice(NEPTUNE "_PASSWORD=s3cretValue",
	      "[REDACTED:neptune_api_token]_PASSWORD=[REDACTED:password]");
	twice(GHP "-secret: abc123XYZ", "[REDACTED:github_token]-secret: [REDACTED:secret]");
	/* look-alikes: names that hold no credential, glued on or not */
	twice(NEPTUNE "_KEY_FILE=/etc/k", "[REDACTED:neptune_api_token]_KEY_FILE=/etc/k");
	twice(NEPTUNE "_tokens=12", "[REDACTED:neptune_api_token]_tokens=12");
	twice("x_API_KEY_FILE=/etc/k", "x_API_KEY_FILE=/etc/k");
}
END_TEST

/* ---- key blocks ---- */

START_TEST(test_key_block_cut_off)
{
	static const struct {
		const char *in, *out;
	} cut[] = {
		{"log\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabc",
		 "log\n[REDACTED:private_key]"},
		{"log\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabc\n",
		 "log\n[REDACTED:private_key]"},
		{"log\r\n-----BEGIN OPENSSH PRIVATE KEY-----\r\n",
		 "log\r\n[REDACTED:ssh_private_key]"},
		{"-----BEGIN PGP PRIVATE KEY BLOCK-----", "[REDACTED:pgp_private_key]"},
		{"{\"private_key\": \"-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBg",
		 "{\"private_key\": \"[REDACTED:private_key]"},
		{"a\n-----BEGIN EC PRIVATE KEY-----\nMHcC\n-----END EC PRIVATE KEY-----\nb\n"
		 "-----BEGIN EC PRIVATE KEY-----\nMHcC\n",
		 "a\n[REDACTED:private_key]\nb\n[REDACTED:private_key]"},
		{"x -----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY----- token=abc123\n",
		 "x [REDACTED:private_key] token=[REDACTED:token]\n"},
		/* cut at the start (the tail of a capture): the END line takes the body back */
		{"MIIEowIBAAKCAQEA\nq83hd8ejd+/=\n-----END RSA PRIVATE KEY-----\nafter\n",
		 "[REDACTED:private_key]\nafter\n"},
		{"log\r\n0: b3BlbnNzaC1rZXk\r\n0: AAAA\r\n0: -----END OPENSSH PRIVATE KEY-----\r\n",
		 "log\r\n[REDACTED:ssh_private_key]\r\n"},
		{"eXAMPLEbody0123456789abcdef\\n-----END PRIVATE KEY-----\\n\", \"client_email\": \"a@b\"",
		 "[REDACTED:private_key]\\n\", \"client_email\": \"a@b\""},
		{"not body: x\n-----END RSA PRIVATE KEY----- token=abc123\n",
		 "not body: x\n-----END RSA PRIVATE KEY----- token=[REDACTED:token]\n"},
	};

	for (size_t i = 0; i < sizeof(cut) / sizeof(cut[0]); i++) {
		struct pm_redact_stats st = {0};
		struct buf o = redact(cut[i].in, strlen(cut[i].in), &st);

		ck_assert_msg(o.n == strlen(cut[i].out) && !memcmp(o.p, cut[i].out, o.n),
			      "in:  %s\nout: %s\nwant: %s", cut[i].in, o.p, cut[i].out);
		ck_assert_uint_ge(st.total, 1);
		free(o.p);
	}
}
END_TEST

/*
 * A BEGIN line whose END never comes (a job that printed the first line of a key, a capture
 * cut off, another rank's lines in between) ends at the first line that cannot be the key's
 * body: another rank's line, the collector's omitted marker, the job going on keep their own
 * line.  The body under a rank label or a logger's stamp (alike but for its digits), PEM
 * headers and the blank line after them are still the key's.
 */
START_TEST(test_key_block_unclosed)
{
	twice("3: -----BEGIN OPENSSH PRIVATE KEY-----\n3: b3BlbnNzaC1rZXktdjEAAAAABG5v\n"
	      "0: step 10 loss 2.31\n6: Traceback (most recent call last):\n",
	      "3: [REDACTED:ssh_private_key]\n0: step 10 loss 2.31\n"
	      "6: Traceback (most recent call last):\n");
	twice("-----BEGIN RSA PRIVATE KEY-----\r\nMIIEowIBAAKCAQEA\r\n"
	      "[postmortem: 4096 bytes omitted here]\r\nRuntimeError: CUDA error\r\n",
	      "[REDACTED:private_key]\r\n[postmortem: 4096 bytes omitted here]\r\n"
	      "RuntimeError: CUDA error\r\n");
	twice("2024-05-01 10:00:00,001 DEBUG key: -----BEGIN OPENSSH PRIVATE KEY-----\n"
	      "2024-05-01 10:00:00,002 DEBUG key: b3BlbnNzaC1rZXktdjEAAAAABG5v\n"
	      "2024-05-01 10:00:00,003 DEBUG key: bmUAAAAEbm9uZQ==\n"
	      "2024-05-01 10:00:00,004 ERROR NCCL watchdog timeout on rank 3\n",
	      "2024-05-01 10:00:00,001 DEBUG key: [REDACTED:ssh_private_key]\n"
	      "2024-05-01 10:00:00,004 ERROR NCCL watchdog timeout on rank 3\n");
	twice("-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,13CE\n\n"
	      "MIIEpAIBAAKCAQEA\np9APZhy3Y6II1Gtv==\n\nINFO: done\n",
	      "[REDACTED:private_key]\n\nINFO: done\n");
	twice("    -----BEGIN EC PRIVATE KEY-----\n    MHcCAQEEIaycxUROPVff\nnext: 1\n",
	      "    [REDACTED:private_key]\nnext: 1\n");
	/* another rank's lines inside the body: they end the block, and the key's own body
	 * lines after them are still the key's, with its END or without */
	twice("0: -----BEGIN RSA PRIVATE KEY-----\n0: MIIE\n1: x y\n0: QUJD\n1: step 2\n0: REVG\n"
	      "0: -----END RSA PRIVATE KEY-----\n0: done\n",
	      "0: [REDACTED:private_key]\n1: x y\n0: [REDACTED:private_key]\n1: step 2\n"
	      "0: [REDACTED:private_key]\n0: -----END RSA PRIVATE KEY-----\n0: done\n");
	twice("3: -----BEGIN OPENSSH PRIVATE KEY-----\n3: b3Bl\n0: step 1\n3: AAAA\n3: done now\n"
	      "3: BBBB\n",
	      "3: [REDACTED:ssh_private_key]\n0: step 1\n3: [REDACTED:ssh_private_key]\n"
	      "3: done now\n3: BBBB\n");
	/* an END whose BEGIN is gone takes back the body lines before it, other ranks' between */
	twice("0: MIIE\n1: x y\n0: QUJD\n1: step 2\n0: REVG\n0: -----END RSA PRIVATE KEY-----\n",
	      "1: x y\n1: step 2\n[REDACTED:private_key]\n");
	/* look-alikes, byte-identical as before: a marker in prose opens no block; body-like
	 * lines of another shape before an END are not taken */
	twice("the file starts \"-----BEGIN RSA PRIVATE KEY-----\" as usual\nnext line\n",
	      "the file starts \"-----BEGIN RSA PRIVATE KEY-----\" as usual\nnext line\n");
	twice("log\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabc",
	      "log\n[REDACTED:private_key]");
	twice("done\nx: abc\n-----END RSA PRIVATE KEY-----\n",
	      "done\nx: abc\n-----END RSA PRIVATE KEY-----\n");
}
END_TEST

/*
 * URLs: a password holding a '/' ends at the first '@' after it (the user information holds
 * none unescaped), unless the text before the '/' was a port; a user name that is a token
 * (a long run of mixed case and digits, or long hex) with no password.
 */
START_TEST(test_url_shapes)
{
	twice("https://u:pa/ss@h/x", "https://u:[REDACTED:url_password]@h/x");
	twice("redis://:a/b@redis.lab:6379/0", "redis://:[REDACTED:db_password]@redis.lab:6379/0");
	twice("postgres://app:p%40ss/w0rd@db.lab/runs",
	      "postgres://app:[REDACTED:db_password]@db.lab/runs");
	twice("+ git clone https://Zq8vLm3nPw7Kx2Rt5Yb9Hc4@gitea.lab/u/r.git",
	      "+ git clone https://[REDACTED:token]@gitea.lab/u/r.git");
	twice("DSN=https://0123456789abcdef0123456789abcdef@o1.ingest.example.io/4",
	      "DSN=https://[REDACTED:token]@o1.ingest.example.io/4");
	/* look-alikes: a port before the path, an '@' in the path, a user's name */
	twice("https://git@github.com/o/r.git http://host:8080/x@y http://[::1]:8080/a@b",
	      "https://git@github.com/o/r.git http://host:8080/x@y http://[::1]:8080/a@b");
	twice("https://mastodon.social/@user https://h/users/bob@example.com",
	      "https://mastodon.social/@user https://h/users/bob@example.com");
	twice("docker://reg:5000/img@sha256:0a1b https://jane.doe.smith.account@h/x",
	      "docker://reg:5000/img@sha256:0a1b https://jane.doe.smith.account@h/x");
	twice("http://h:/a@b https://u:12/34@h", "http://h:/a@b https://u:12/34@h");
}
END_TEST

/* Text written URL-encoded is scanned decoded too: a header, an assignment in a query. */
START_TEST(test_url_encoded)
{
	twice("GET /cb?h=Authorization%3A%20Bearer%20abcDEF1234567890xyz%2Bq%3D%3D&x=1",
	      "GET /cb?h=Authorization%3A%20Bearer%20[REDACTED:bearer_token]&x=1");
	twice("q=password%3DUrlEnc0ded%26user%3Dbob",
	      "q=password%3D[REDACTED:password]%26user%3Dbob");
	twice("data=token%3dghx7Kq2PzLm9%20next", "data=token%3d[REDACTED:token]%20next");
	/* look-alikes: the words of a search, a count, percentages */
	twice("search?q=my%20token%20is%20long", "search?q=my%20token%20is%20long");
	twice("q=max_tokens%3D512%26temperature%3D0.7 45% done 100%",
	      "q=max_tokens%3D512%26temperature%3D0.7 45% done 100%");
}
END_TEST

/* A key printed as a list of strings, one a line (Python's repr, JSON). */
START_TEST(test_key_as_list)
{
	twice("['-----BEGIN RSA PRIVATE KEY-----',\n 'MIIEowIBAAKCAQEAx4Ui9a8b',\n 'f9a8b7c6d5e4==',\n"
	      " '-----END RSA PRIVATE KEY-----']\nnext\n",
	      "['[REDACTED:private_key]']\nnext\n");
	twice("  \"lines\": [\"-----BEGIN PRIVATE KEY-----\\n\",\n    \"MIIEvQIBADANBg\\n\",\n"
	      "    \"-----END PRIVATE KEY-----\\n\"]\n",
	      "  \"lines\": [\"[REDACTED:private_key]\\n\"]\n");
	/* cut off: the list ends the block */
	twice("['-----BEGIN EC PRIVATE KEY-----',\n 'MHcCAQEEIaycxUROPVff',\n]\nnext\n",
	      "['[REDACTED:private_key]\n]\nnext\n");
	/* look-alikes: a certificate's list, a marker quoted in prose */
	twice("['-----BEGIN CERTIFICATE-----',\n 'MIIBszCCAVmgAwIBAgIU',\n '-----END CERTIFICATE-----']\n",
	      "['-----BEGIN CERTIFICATE-----',\n 'MIIBszCCAVmgAwIBAgIU',\n '-----END CERTIFICATE-----']\n");
}
END_TEST

/* ---- hostile input ---- */

static uint32_t rng = 4242;

static uint32_t rnd(void)
{
	rng = rng * 1103515245u + 12345u;
	return rng >> 8;
}

START_TEST(test_binary_and_invalid_utf8)
{
	size_t n = 1 << 20;
	char *b = malloc(n);
	struct pm_redact_stats st = {0};
	struct buf o, o2;
	static const char *const planted[] = {"AKIAIOSFODNN7EXAMPLE",
					      "ghp_0123456789abcdefABCDEF0123456789abcd",
					      "sk-ant-api03-0123456789abcdefghijABCDEFGHIJ"};

	ck_assert_ptr_nonnull(b);
	for (size_t i = 0; i < n; i++)
		b[i] = (char)rnd();
	o = redact(b, n, &st);
	if (!st.total) /* nothing taken for a secret: the garbage is copied as is */
		ck_assert(o.n == n && !memcmp(o.p, b, n));
	o2 = redact(o.p, o.n, NULL);
	ck_assert(o2.n == o.n && !memcmp(o2.p, o.p, o.n));
	free(o.p);
	free(o2.p);

	/* secrets between invalid UTF-8, NULs and stray CRs */
	for (size_t k = 0; k < 3; k++) {
		size_t at = 1000 + k * 300000;

		memcpy(b + at, "\xff\xfe\xc3\x28 ", 5);
		memcpy(b + at + 5, planted[k], strlen(planted[k]));
		memcpy(b + at + 5 + strlen(planted[k]), "\x00\r\xe2\x82", 4);
	}
	o = redact(b, n, NULL);
	for (size_t k = 0; k < 3; k++)
		ck_assert_msg(!has(&o, planted[k]), "%s leaks from binary", planted[k]);
	free(o.p);
	free(b);
}
END_TEST

START_TEST(test_huge_line)
{
	size_t n = 5 << 20, at[] = {0, 1000, (1 << 20) - 20, (1 << 20) + 100, 3000000, 0};
	char *b = malloc(n);
	static const char secret[] = "ghp_ZYXWVUTSRQPONMLKJIHGFEDCBA9876543210";
	struct pm_redact_stats st = {0};
	struct buf o;
	size_t count = 0;

	ck_assert_ptr_nonnull(b);
	for (size_t i = 0; i < n; i++) /* words and blanks, no newline at all */
		b[i] = i % 7 == 6 ? ' ' : (char)('a' + i % 26);
	at[5] = n - (sizeof(secret) - 1);
	for (size_t k = 0; k < 6; k++) {
		memcpy(b + at[k], secret, sizeof(secret) - 1);
		if (at[k])
			b[at[k] - 1] = ' ';
		if (at[k] + sizeof(secret) - 1 < n)
			b[at[k] + sizeof(secret) - 1] = ' ';
	}
	o = redact(b, n, &st);
	ck_assert(!has(&o, secret));
	ck_assert_uint_eq(st.by_kind[PM_REDACT_GITHUB_TOKEN], 6);
	for (const char *p = o.p; (p = memmem(p, o.n - (size_t)(p - o.p), "[REDACTED:", 10)); p++)
		count++;
	ck_assert_uint_eq(count, 6);
	ck_assert_uint_eq(o.n,
			  n - 6 * (sizeof(secret) - 1) + 6 * strlen("[REDACTED:github_token]"));
	free(o.p);
	free(b);
}
END_TEST

/*
 * A line longer than 1 MiB is redacted in pieces: a cut at the blank between a name and its
 * value, or through a token (no blank near), hides neither; the same line with no secret at
 * the cut comes out byte-identical.
 */
START_TEST(test_piece_cut)
{
	static const struct {
		const char *at, *secret; /* AT: text ending where the cut falls, SECRET after it */
		bool keep;
	} cases[] = {
		{" --password ", "Hunter2xyz", false},
		{" Authorization: Bearer ", "abcDEF1234567890xyzQ", false},
		{" token=ghp_Ab3dE5gH7jK9", "mN1pQ3sT5vW7yZ9bC1eF3hJ5", false},
		{" --verbose ", "Hunter2xyz", true},
	};
	size_t n = (1 << 20) + 64;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		char *b = malloc(n);
		size_t l = strlen(cases[c].at), at = (1 << 20) - l;
		struct buf o;

		ck_assert_ptr_nonnull(b);
		memset(b, 'x', n); /* no blank near the cut but those of AT */
		memcpy(b + at, cases[c].at, l);
		memcpy(b + (1 << 20), cases[c].secret, strlen(cases[c].secret));
		b[n - 2] = ' ';
		b[n - 1] = '\n';
		o = redact(b, n, NULL);
		if (cases[c].keep)
			ck_assert(o.n == n && !memcmp(o.p, b, n));
		else
			ck_assert_msg(!has(&o, cases[c].secret) && has(&o, "[REDACTED:"), "%s%s",
				      cases[c].at, cases[c].secret);
		free(o.p);
		free(b);
	}
}
END_TEST

/* Repetitions that would be quadratic if a validator rescanned: must finish at once. */
START_TEST(test_hostile_repetitions)
{
	static const char *const unit[] = {
		"password=",
		"eyJ.",
		"-----BEGIN RSA PRIVATE KEY-----",
		"sk-",
		"://",
		"a:b@",
		"token token ",
		"\"password\":\"",
		"hf_",
		"Bearer ",
		"Basic ",
		"machine password ",
		"AKIA",
		"Q~",
		"-----END ",
		"wandb login ",
		"key=key=",
		"eyJhbGciOiJIUzI1NiJ9.",
		"xoxb-",
		"sig=&sig=",
		"mysql -p",
		"sshpass -f x -p ",
		"curl -u a:",
		"docker login -p ",
		" login",
		"ldapsearch -w",
		"smbclient //h ",
		"Bearer\t",
		"\033[1m",
		"\033[31mghp_",
		"\033]",
		"a\033",
		"https://u:p?#@",
		"x:ab/://",
		" --with-token",
		"echo x | gh --with-token ",
		" --password-stdin <<< ",
		"os.putenv('SVC_TOKEN', '",
		"'-----BEGIN RSA PRIVATE KEY-----', 'AAAAAAAAAAAAAAAAAAAA', ",
		"aws configure set x_token ",
	};
	size_t n = 2 << 20;
	char *b = malloc(n);

	ck_assert_ptr_nonnull(b);
	for (size_t u = 0; u < sizeof(unit) / sizeof(unit[0]); u++) {
		size_t l = strlen(unit[u]);
		struct buf o;

		for (size_t i = 0; i < n; i++)
			b[i] = unit[u][i % l];
		o = redact(b, n, NULL);
		ck_assert_uint_gt(o.n, 0);
		free(o.p);
	}
	free(b);
}
END_TEST

START_TEST(test_truncated_everywhere)
{
	static const char *const files[] = {"secrets/http_auth.txt", "secrets/assignments.txt",
					    "secrets/dev_tokens.txt"};

	for (size_t f = 0; f < 3; f++) {
		struct buf b = slurp(files[f]);

		for (char *line = b.p; line < b.p + b.n;) {
			char *nl = memchr(line, '\n', (size_t)(b.p + b.n - line));
			size_t len = nl ? (size_t)(nl - line) + 1 : (size_t)(b.p + b.n - line);

			for (size_t k = 0; k <= len && k <= 400; k++) {
				struct buf o = redact(line, k, NULL);

				free(o.p);
			}
			line += len;
		}
		free(b.p);
	}
}
END_TEST

/* ---- the API ---- */

START_TEST(test_api)
{
	struct pm_redact_stats st = {0};
	char *out = (char *)1;
	size_t outlen = 7;
	struct buf o;

	ck_assert_int_eq(pm_redact(NULL, 0, &out, &outlen, &st), 0);
	ck_assert_uint_eq(outlen, 0);
	ck_assert_int_eq(out[0], 0);
	free(out);
	errno = 0;
	ck_assert_int_eq(pm_redact("x", 1, NULL, &outlen, NULL), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(pm_redact(NULL, 1, &out, &outlen, NULL), -1);
	ck_assert_int_eq(pm_redact("x", 1, &out, NULL, NULL), -1);

	/* stats add up over calls */
	o = redact("PASSWORD=a1 TOKEN=b2b2b2", 24, &st);
	free(o.p);
	o = redact("PASSWORD=a1", 11, &st);
	free(o.p);
	ck_assert_uint_eq(st.total, 3);
	ck_assert_uint_eq(st.by_kind[PM_REDACT_PASSWORD], 2);
	ck_assert_uint_eq(st.by_kind[PM_REDACT_TOKEN], 1);

	/* no final newline, NUL bytes kept */
	o = redact("a\0b\nc", 5, NULL);
	ck_assert(o.n == 5 && !memcmp(o.p, "a\0b\nc", 5));
	free(o.p);
}
END_TEST

/* The second line of defence for shown text: a string in, its redacted copy out. */
START_TEST(test_redact_text)
{
	struct pm_redact_stats st = {0};
	char *t = pm_redact_text(
		     "E3 [app_log] curl -u bob:S3cret h \033[31mghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5",
		     &st),
	     *t2;

	ck_assert_ptr_nonnull(t);
	ck_assert_str_eq(
		t,
		"E3 [app_log] curl -u bob:[REDACTED:password] h \033[31m[REDACTED:github_token]");
	ck_assert_uint_eq(st.total, 2);
	t2 = pm_redact_text(t, &st); /* a redacted line again: unchanged */
	ck_assert_str_eq(t2, t);
	ck_assert_uint_eq(st.total, 2);
	free(t);
	free(t2);
	t = pm_redact_text("RuntimeError: CUDA error: an illegal memory access", NULL);
	ck_assert_str_eq(t, "RuntimeError: CUDA error: an illegal memory access");
	free(t);
	t = pm_redact_text("", NULL);
	ck_assert_str_eq(t, "");
	free(t);
	errno = 0;
	ck_assert_ptr_null(pm_redact_text(NULL, NULL));
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

START_TEST(test_kind_names)
{
	for (int k = 0; k < PM_REDACT__COUNT; k++) {
		const char *n = pm_redact_kind_name(k);

		ck_assert_ptr_nonnull(n);
		ck_assert_uint_gt(strlen(n), 2);
		ck_assert_uint_eq(strspn(n, "abcdefghijklmnopqrstuvwxyz0123456789_"), strlen(n));
		for (int j = 0; j < k; j++)
			ck_assert_str_ne(n, pm_redact_kind_name(j));
	}
	ck_assert_int_ge(PM_REDACT__COUNT, 30);
	ck_assert_ptr_null(pm_redact_kind_name(-1));
	ck_assert_ptr_null(pm_redact_kind_name(PM_REDACT__COUNT));
}
END_TEST

Suite *pmt_suite(void)
{
	Suite *s = suite_create("redact");
	TCase *t = tcase_create("redact");

	tcase_set_timeout(t, 120);
	tcase_add_test(t, test_kind_names);
	tcase_add_test(t, test_api);
	tcase_add_test(t, test_redact_text);
	tcase_add_test(t, test_planted_secrets_gone);
	tcase_add_test(t, test_planted_secrets_gone_crlf);
	tcase_add_test(t, test_planted_with_controls);
	tcase_add_test(t, test_context_survives);
	tcase_add_test(t, test_lookalikes_unchanged);
	tcase_add_test(t, test_lookalikes_unchanged_crlf);
	tcase_add_test(t, test_crlf_kept);
	tcase_add_test(t, test_deterministic_idempotent);
	tcase_add_test(t, test_known_answers);
	tcase_add_test(t, test_key_block_cut_off);
	tcase_add_test(t, test_key_block_unclosed);
	tcase_add_test(t, test_key_as_list);
	tcase_add_test(t, test_url_shapes);
	tcase_add_test(t, test_url_encoded);
	tcase_add_test(t, test_binary_and_invalid_utf8);
	tcase_add_test(t, test_huge_line);
	tcase_add_test(t, test_piece_cut);
	tcase_add_test(t, test_hostile_repetitions);
	tcase_add_test(t, test_glued_secret_ends_run);
	tcase_add_test(t, test_name_after_secret);
	tcase_add_test(t, test_later_hit_in_turned_down_run);
	tcase_add_test(t, test_tag_reads_the_same);
	tcase_add_test(t, test_truncated_everywhere);
	tcase_add_test(t, test_assign_families);
	tcase_add_test(t, test_tool_and_cookie);
	tcase_add_test(t, test_more_families);
	tcase_add_test(t, test_triggers_past_64);
	suite_add_tcase(s, t);
	return s;
}
