/*
 * check_input_compressed.c - the input suite's compressed inputs, the input bound, streamed
 * text, and a bundle's manifest bounding what is read after it.
 */

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "internal.h"
#include "evidence.h"
#include "postmortem.h"
#include "support.h"
#include "check_input.h"

/* ---- compressed inputs and the input bound (evidence.c, sniff.c) ---- */

/* N bytes of numbered text lines. */
static char *lines_of(size_t n)
{
	char *b = malloc(n + 32);
	size_t k = 0;

	ck_assert_ptr_nonnull(b);
	for (unsigned i = 0; k < n; i++)
		k += (size_t)sprintf(b + k, "line %u of the job's log\n", i);
	return b;
}

static void *gzip_of(const char *text, size_t n, size_t *outlen)
{
	z_stream z = {0};
	size_t cap = n / 2 + 4096;
	unsigned char *out = malloc(cap);

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY), Z_OK);
	z.next_in = (Bytef *)text;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	ck_assert_int_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
	*outlen = z.total_out;
	deflateEnd(&z);
	return out;
}

static void *zstd_of(const char *text, size_t n, size_t *outlen)
{
	size_t cap = ZSTD_compressBound(n);
	void *out = malloc(cap);

	ck_assert_ptr_nonnull(out);
	*outlen = ZSTD_compress(out, cap, text, n, 3);
	ck_assert(!ZSTD_isError(*outlen));
	return out;
}

/*
 * A zstd frame of BLOCKS RLE blocks of 128 KiB of '\n' each, no content size: a few bytes
 * per 128 KiB, the shape of a bomb that costs nothing to make.
 */
static unsigned char *rle_bomb(size_t blocks, size_t *len)
{
	unsigned char *b = malloc(6 + 4 * blocks + 3), *p = b;

	ck_assert_ptr_nonnull(b);
	memcpy(p, "\x28\xb5\x2f\xfd", 4);
	p += 4;
	*p++ = 0x00;			 /* no content size, no checksum, a window descriptor */
	*p++ = (unsigned char)(10 << 3); /* 1 << (10 + 10): a 1 MiB window */
	for (size_t i = 0; i < blocks; i++) {
		uint32_t h = (uint32_t)(128u << 10) << 3 | 1u << 1 | (i + 1 == blocks);

		*p++ = (unsigned char)h;
		*p++ = (unsigned char)(h >> 8);
		*p++ = (unsigned char)(h >> 16);
		*p++ = '\n';
	}
	*len = (size_t)(p - b);
	return b;
}

struct counted {
	uint64_t bytes, chunks;
};

static int count_chunk(void *arg, const char *buf, size_t len, uint64_t off)
{
	struct counted *c = arg;

	(void)off;
	(void)buf;
	c->bytes += len;
	c->chunks++;
	return 0;
}

/* Read BUF (LEN bytes) as one in-memory input; its evidence set into *EVP (caller frees). */
static struct counted read_mem(const void *buf, size_t len, struct pm_evidence **evp)
{
	struct pm_evidence *ev = ev_new(NULL);
	struct counted c = {0, 0};

	ev->files[0].mem = dup_exact(buf, len);
	ev->files[0].memlen = len;
	ck_assert_int_eq(pm_file_read(&ev->files[0], count_chunk, &c), 0);
	*evp = ev;
	return c;
}

START_TEST(packed_formats)
{
	static const struct {
		const char *bytes;
		size_t len;
		const char *want;
	} t[] = {
		{"\x1f\x8b\x08\x00", 4, "gzip"},
		{"\x28\xb5\x2f\xfd\x00", 5, "zstd"},
		{"\x50\x2a\x4d\x18\x04\x00\x00\x00", 8, "zstd"}, /* a skippable frame first */
		{"\xfd\x37zXZ\x00\x00", 7, "xz"},
		{"BZh91AY&SY\x01", 11, "bzip2"},
		{"\x04\x22\x4d\x18\x64", 5, "lz4"},
		{"PK\x03\x04\x14\x00", 6, "zip"},
		{"7z\xbc\xaf\x27\x1c\x00", 7, "7z"},
		{"\x1f\x9d\x90", 3, "compress (.Z)"},
		{"LZIP\x01\x0c", 6, "lzip"},
		/* text that starts like one of them is text */
		{"BZh, said the log\n", 18, NULL},
		{"LZIP version 1.23\n", 18, NULL},
		{"PK: primary key\n", 16, NULL},
		{"\x1f", 1, NULL},
		{"", 0, NULL},
		{"step 1 loss 2.3\n", 16, NULL},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *b = dup_exact(t[i].bytes, t[i].len);
		const char *got = pm_packed_format(b, t[i].len);

		if (!t[i].want)
			ck_assert_msg(!got, "case %zu: %s", i, got);
		else
			ck_assert_msg(got && !strcmp(got, t[i].want), "case %zu: %s", i,
				      got ? got : "(null)");
		free(b);
	}
}
END_TEST

START_TEST(input_max_setting)
{
	unsetenv("POSTMORTEM_INPUT_MAX");
	ck_assert_uint_eq(pm_input_max(), 1ULL << 30);
	setenv("POSTMORTEM_INPUT_MAX", "2G", 1);
	ck_assert_uint_eq(pm_input_max(), 2ULL << 30);
	setenv("POSTMORTEM_INPUT_MAX", "300MiB", 1);
	ck_assert_uint_eq(pm_input_max(), 300ULL << 20);
	setenv("POSTMORTEM_INPUT_MAX", "5000000", 1);
	ck_assert_uint_eq(pm_input_max(), 5000000);
	setenv("POSTMORTEM_INPUT_MAX", "4k", 1); /* below the least: the least */
	ck_assert_uint_eq(pm_input_max(), 1ULL << 20);
	setenv("POSTMORTEM_INPUT_MAX", "lots", 1); /* no size: the default */
	ck_assert_uint_eq(pm_input_max(), 1ULL << 30);
	setenv("POSTMORTEM_INPUT_MAX", "99999999999999999999T", 1);
	ck_assert_uint_eq(pm_input_max(), 1ULL << 30);
	setenv("POSTMORTEM_INPUT_MAX", "12Q", 1);
	ck_assert_uint_eq(pm_input_max(), 1ULL << 30);
	unsetenv("POSTMORTEM_INPUT_MAX");
}
END_TEST

/* Each input stops at the bound, after decompression: what fits is read, the file is
 * truncated with the reason; an input that ends exactly there is whole. */
START_TEST(input_max_cuts)
{
	size_t n = 3u << 20, zl, gl;
	char *text = lines_of(n);
	void *gz = gzip_of(text, n, &gl), *zs = zstd_of(text, n, &zl);
	struct pm_evidence *ev;
	struct counted c;

	setenv("POSTMORTEM_INPUT_MAX", "1M", 1);
	c = read_mem(gz, gl, &ev);
	ck_assert_uint_eq(c.bytes, 1u << 20);
	ck_assert_int_eq(ev->files[0].status, PM_ST_TRUNCATED);
	ck_assert_str_eq(ev->files[0].reason, "more text than 1 MiB once gunzipped: only its first "
					      "1 MiB read (POSTMORTEM_INPUT_MAX)");
	pm_evidence_destroy(ev);

	c = read_mem(zs, zl, &ev);
	ck_assert_uint_eq(c.bytes, 1u << 20);
	ck_assert_int_eq(ev->files[0].status, PM_ST_TRUNCATED);
	ck_assert_ptr_nonnull(strstr(ev->files[0].reason, "once decompressed"));
	pm_evidence_destroy(ev);

	c = read_mem(text, n, &ev); /* plain text: the same bound */
	ck_assert_uint_eq(c.bytes, 1u << 20);
	ck_assert_int_eq(ev->files[0].status, PM_ST_TRUNCATED);
	ck_assert_str_eq(ev->files[0].reason,
			 "larger than 1 MiB: only its first 1 MiB read (POSTMORTEM_INPUT_MAX)");
	pm_evidence_destroy(ev);

	free(gz);
	gz = gzip_of(text, 1u << 20, &gl); /* exactly the bound: all of it, not cut */
	c = read_mem(gz, gl, &ev);
	ck_assert_uint_eq(c.bytes, 1u << 20);
	ck_assert_int_eq(ev->files[0].status, PM_ST_OK);
	pm_evidence_destroy(ev);

	setenv("POSTMORTEM_INPUT_MAX", "8M", 1); /* under the bound: whole, line-aligned */
	c = read_mem(zs, zl, &ev);
	ck_assert_uint_eq(c.bytes, n);
	ck_assert_uint_gt(c.chunks, 0);
	ck_assert_int_eq(ev->files[0].status, PM_ST_OK);
	pm_evidence_destroy(ev);
	unsetenv("POSTMORTEM_INPUT_MAX");
	free(gz);
	free(zs);
	free(text);
}
END_TEST

/* 16 GiB of newlines in a 512 KiB zstd frame: read up to the bound only, in moments. */
START_TEST(input_max_bomb)
{
	size_t len;
	unsigned char *bomb = rle_bomb(128u << 10, &len);
	struct pm_evidence *ev;
	struct counted c;
	char *head = malloc(65536);
	size_t hl;

	ck_assert_uint_lt(len, 600u << 10);
	setenv("POSTMORTEM_INPUT_MAX", "64M", 1);
	/* empty lines: the line bound (64 MiB / 16) comes first, and reading stops there */
	c = read_mem(bomb, len, &ev);
	ck_assert_uint_eq(c.bytes, 4u << 20);
	ck_assert_int_eq(ev->files[0].status, PM_ST_TRUNCATED);
	ck_assert_str_eq(ev->files[0].reason, "more than 4194304 lines: only its first 4194304 "
					      "read (POSTMORTEM_INPUT_MAX / 16)");
	ck_assert_uint_lt(ev->files[0].bytes, 16u << 20);
	/* the structured reader drains what it does not keep: the bound holds there too */
	free(ev->files[0].reason);
	ev->files[0].reason = NULL;
	ev->files[0].status = PM_ST_OK;
	ev->files[0].bytes = 0;
	{
		char *all;
		size_t al;

		ck_assert_int_eq(pm_file_slurp(&ev->files[0], 1u << 20, &all, &al), 0);
		ck_assert_uint_eq(al, 1u << 20);
		ck_assert_int_eq(ev->files[0].status, PM_ST_TRUNCATED);
		free(all);
	}
	ck_assert_int_eq(pm_file_head(&ev->files[0], head, 65536, &hl), 0);
	ck_assert_uint_eq(hl, 65536);
	pm_evidence_destroy(ev);
	unsetenv("POSTMORTEM_INPUT_MAX");
	free(head);
	free(bomb);
}
END_TEST

/* Lines of every length from 0 to 20 bytes (a newline in every lane and step of the counter),
 * past the line bound of POSTMORTEM_INPUT_MAX / 16: the cut falls exactly after the last line
 * allowed, wherever the chunks end. */
START_TEST(input_max_lines_mixed)
{
	size_t len = 0, cap = 16u << 20, cut = 0, lines = 0;
	char *text = malloc(cap);
	uint32_t x = 12345;
	struct pm_evidence *ev;
	struct counted c;

	ck_assert_ptr_nonnull(text);
	while (len + 64 < cap && lines < (1u << 20) + 100000) {
		x = x * 1103515245u + 12345u;
		for (uint32_t k = (x >> 16) % 21; k; k--)
			text[len++] = (char)('a' + (char)(k % 26));
		text[len++] = '\n';
		if (++lines == 1u << 20)
			cut = len;
	}
	ck_assert_uint_gt(cut, 0);
	setenv("POSTMORTEM_INPUT_MAX", "16M", 1); /* 1 Mi lines at most */
	c = read_mem(text, len, &ev);
	ck_assert_uint_eq(c.bytes, cut);
	ck_assert_int_eq(ev->files[0].status, PM_ST_TRUNCATED);
	ck_assert_str_eq(ev->files[0].reason, "more than 1048576 lines: only its first 1048576 "
					      "read (POSTMORTEM_INPUT_MAX / 16)");
	pm_evidence_destroy(ev);
	/* one line fewer than the bound: all of it, nothing cut */
	c = read_mem(text, cut, &ev);
	ck_assert_uint_eq(c.bytes, cut);
	ck_assert_int_eq(ev->files[0].status, PM_ST_OK);
	pm_evidence_destroy(ev);
	unsetenv("POSTMORTEM_INPUT_MAX");
	free(text);
}
END_TEST

struct sink {
	char *buf;
	size_t len, cap;
	int stop_after; /* pieces; -1 never */
};

static int to_sink(void *arg, const char *b, size_t n)
{
	struct sink *s = arg;

	if (s->stop_after == 0) {
		errno = EPIPE;
		return -1;
	}
	if (s->stop_after > 0)
		s->stop_after--;
	if (s->len + n > s->cap) {
		s->cap = (s->len + n) * 2;
		s->buf = realloc(s->buf, s->cap);
		ck_assert_ptr_nonnull(s->buf);
	}
	memcpy(s->buf + s->len, b, n);
	s->len += n;
	return 0;
}

/* pm_text_stream on a temporary file holding BUF; its text into *S, its note into WHY. */
static int stream_of(const void *buf, size_t len, uint64_t max, struct sink *s, char *why)
{
	char path[] = "/tmp/pmtext.XXXXXX";
	int fd = mkstemp(path), rc;

	ck_assert_int_ge(fd, 0);
	unlink(path);
	ck_assert_int_eq(write(fd, buf, len), (ssize_t)len);
	lseek(fd, 0, SEEK_SET);
	s->len = 0;
	rc = pm_text_stream(fd, max, to_sink, s, why, 200);
	ck_assert_int_ne(fcntl(fd, F_GETFD), -1); /* left open */
	close(fd);
	return rc;
}

/* ---- bundles: the manifest bounds what is read after it ---- */

/* A ustar member header for NAME claiming SIZE bytes, then BODY (LEN bytes) padded. */
static void tar_put(FILE *f, const char *name, size_t size, const void *body, size_t len)
{
	unsigned char h[512] = {0};
	unsigned sum = 0;
	char sz[24];

	snprintf((char *)h, 100, "%s", name);
	memcpy(h + 100, "0000644", 8);
	memcpy(h + 108, "0000000", 8);
	memcpy(h + 116, "0000000", 8);
	snprintf(sz, sizeof(sz), "%011zo", size); /* 11 digits and the NUL */
	memcpy(h + 124, sz, 12);
	memcpy(h + 136, "00000000000", 12);
	memset(h + 148, ' ', 8);
	h[156] = '0';
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	for (int i = 0; i < 512; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	fwrite(h, 1, 512, f);
	fwrite(body, 1, len, f);
	if (len == size && len % 512) {
		static const char zero[512];
		fwrite(zero, 1, 512 - len % 512, f);
	}
}

/* The manifest of one member sources/app_log/a.log, claiming BYTES bytes of digest of SHA_OF. */
static char *manifest_of(size_t bytes, const char *sha_of)
{
	char hex[80], *m;

	pm_sha256_buf(sha_of, strlen(sha_of), hex);
	ck_assert_int_gt(
		asprintf(&m,
			 "{\"schema\": \"" PM_BUNDLE_SCHEMA "\", \"cluster\": \"lab\", "
			 "\"job\": \"4242\", \"restart\": 0, \"node\": \"n1\", \"files\": "
			 "[{\"path\": \"sources/app_log/a.log\", \"source\": \"app_log\", "
			 "\"node\": \"n1\", \"rank\": null, \"bytes\": %zu, \"sha256\": \"%s\"}]}",
			 bytes, hex),
		0);
	return m;
}

/* Write a bundle: MAN as manifest.json, then "a.log" holding BODY but claiming CLAIM bytes,
 * then, when TAIL, a member claiming 512 KiB that the file ends inside. */
static const char *bundle_of(const char *man, const char *body, size_t claim, bool tail)
{
	static char path[] = "/tmp/pmbundle.XXXXXX.tar.zst";
	static int fd = -1;
	FILE *f;

	if (fd < 0) {
		fd = mkstemps(path, 8);
		ck_assert_int_ge(fd, 0);
		close(fd);
	}
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	tar_put(f, "manifest.json", strlen(man), man, strlen(man));
	tar_put(f, "sources/extra.bin", 5, "extra", 5); /* listed nowhere: skipped */
	tar_put(f, "sources/app_log/a.log", claim, body,
		claim < strlen(body) ? claim : strlen(body));
	if (tail)
		tar_put(f, "sources/app_log/b.log", 512u << 10, "cut", 3);
	else
		fwrite((char[1024]){0}, 1, 1024, f);
	fclose(f);
	return path;
}

static int add_bundle(const char *path, char *err)
{
	struct pm_evidence *ev = pm_evidence_create(NULL);
	int rc = pm_evidence_add_path(ev, path, err, 512);

	if (rc == 0)
		ck_assert_uint_eq(ev->nfiles, 1); /* a.log; not the unlisted member */
	pm_evidence_destroy(ev);
	return rc;
}

/*
 * A bundle's manifest comes first and says what each member holds: one claiming more than
 * POSTMORTEM_INPUT_MAX is refused before any member is read, and a member whose size or
 * checksum differs is refused when it is met, not after the members behind it were read
 * (each case ends in a truncated member that reading on would have reported instead).
 */
START_TEST(bundle_manifest_bounds)
{
	const char *body = "2026-11-30T04:40:01 step 10 loss 0.5\n";
	char err[512], *man;
	const char *b;

	setenv("POSTMORTEM_INPUT_MAX", "1M", 1);
	man = manifest_of(strlen(body), body);
	b = bundle_of(man, body, strlen(body), false);
	ck_assert_msg(add_bundle(b, err) == 0, "%s", err);
	b = bundle_of(man, body, strlen(body), true);
	ck_assert_int_eq(add_bundle(b, err), -1); /* the unlisted b.log's data is skipped */
	ck_assert_msg(strcasestr(err, "truncated"), "%s", err);
	free(man);

	man = manifest_of(2u << 20, body);
	b = bundle_of(man, body, 2u << 20, false);
	ck_assert_int_eq(add_bundle(b, err), -1);
	ck_assert_msg(strstr(err, "more than 1048576 bytes in all (POSTMORTEM_INPUT_MAX)"), "%s",
		      err);
	free(man);

	man = manifest_of(strlen(body) - 1, body);
	b = bundle_of(man, body, strlen(body), true);
	ck_assert_int_eq(add_bundle(b, err), -1);
	ck_assert_msg(strstr(err, "a member's size differs from the manifest"), "%s", err);
	free(man);

	man = manifest_of(strlen(body), "other text of the same length, not the body!\n");
	b = bundle_of(man, body, strlen(body), true);
	ck_assert_int_eq(add_bundle(b, err), -1);
	ck_assert_msg(strstr(err, "a member's checksum differs from the manifest"), "%s", err);
	free(man);
	unlink(b);
	unsetenv("POSTMORTEM_INPUT_MAX");
}
END_TEST

START_TEST(text_stream)
{
	size_t n = 300000, gl, zl;
	char *text = lines_of(n), why[200];
	unsigned char *gz = gzip_of(text, n, &gl), *zs = zstd_of(text, n, &zl), *two;
	struct sink s = {NULL, 0, 0, -1};

	/* gzip, zstd, plain: the same text */
	ck_assert_int_eq(stream_of(gz, gl, 0, &s, why), 0);
	ck_assert_str_eq(why, "");
	ck_assert(s.len == n && !memcmp(s.buf, text, n));
	ck_assert_int_eq(stream_of(zs, zl, 0, &s, why), 0);
	ck_assert(s.len == n && !memcmp(s.buf, text, n) && !why[0]);
	ck_assert_int_eq(stream_of(text, n, 0, &s, why), 0);
	ck_assert(s.len == n && !memcmp(s.buf, text, n) && !why[0]);

	/* two gzip members one after the other: both */
	two = malloc(2 * gl);
	memcpy(two, gz, gl);
	memcpy(two + gl, gz, gl);
	ck_assert_int_eq(stream_of(two, 2 * gl, 0, &s, why), 0);
	ck_assert_uint_eq(s.len, 2 * n);
	ck_assert_str_eq(why, "");

	/* cut at MAX */
	ck_assert_int_eq(stream_of(gz, gl, 1000, &s, why), 0);
	ck_assert_uint_eq(s.len, 1000);
	ck_assert_ptr_nonnull(strstr(why, "only its first 1000 bytes read"));

	/* a stream that ends early, and one damaged in the middle: what came before */
	ck_assert_int_eq(stream_of(gz, gl / 2, 0, &s, why), 0);
	ck_assert_uint_lt(s.len, n);
	ck_assert_ptr_nonnull(strstr(why, "gzip stream ends early"));
	ck_assert_int_eq(stream_of(zs, zl / 2, 0, &s, why), 0);
	ck_assert_ptr_nonnull(strstr(why, "zstd stream ends early"));
	memcpy(two, gz, gl);
	memset(two + gl / 2, 0xff, 64);
	ck_assert_int_eq(stream_of(two, gl, 0, &s, why), 0);
	ck_assert_ptr_nonnull(strstr(why, "gzip data is corrupt"));
	ck_assert_uint_lt(s.len, n);

	/* the callback stops it: -1, its errno */
	s.stop_after = 0;
	errno = 0;
	ck_assert_int_eq(stream_of(zs, zl, 0, &s, why), -1);
	ck_assert_int_eq(errno, EPIPE);
	free(two);
	free(s.buf);
	free(gz);
	free(zs);
	free(text);
}
END_TEST

void input_compressed_tests(TCase *tc)
{
	tcase_add_test(tc, packed_formats);
	tcase_add_test(tc, input_max_setting);
	tcase_add_test(tc, input_max_cuts);
	tcase_add_test(tc, input_max_bomb);
	tcase_add_test(tc, input_max_lines_mixed);
	tcase_add_test(tc, text_stream);
	tcase_add_test(tc, bundle_manifest_bounds);
}
