/*
 * fuzz_redact.c - the redactor (engine/redact.c) and the path a compressed user file takes
 * through the collector: decompression, bounded (pm_text_stream), then redaction.
 *
 * The first byte is the mode: even, the rest is text for pm_redact; odd, the rest is a file
 * (plain, gzip, zstd, a bomb) read by pm_text_stream at most 256 KiB, whose text is redacted.
 * Checked: redaction never fails but for memory, text without secrets comes out unchanged,
 * a second redaction changes nothing, the output grows by no more than its tags, and
 * pm_redact_text agrees with pm_redact on the same string.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "evidence.h"
#include "fuzz.h"
#include "redact.h"

#define TEXT_MAX (256u << 10)

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static void check(const char *buf, size_t len)
{
	struct pm_redact_stats st = {0}, st2 = {0};
	char *out, *again, *s, *t;
	size_t n, n2, z;

	if (pm_redact(buf, len, &out, &n, &st) < 0) {
		if (errno != ENOMEM)
			abort();
		return;
	}
	if (out[n] != 0 || n > len + st.total * 40)
		abort();
	if (!st.total && (n != len || memcmp(out, buf, len)))
		abort(); /* nothing found: every byte as it was */
	if (pm_redact(out, n, &again, &n2, &st2) < 0)
		abort();
	if (st2.total || n2 != n || memcmp(again, out, n))
		abort(); /* redacting the redacted text changes nothing */
	free(again);
	free(out);

	/* the string form: the text up to its first NUL */
	z = strnlen(buf, len);
	if (!(s = malloc(z + 1)))
		return;
	memcpy(s, buf, z); /* not strndup: BUF need not end in a NUL */
	s[z] = '\0';
	t = pm_redact_text(s, NULL);
	if (t && (pm_redact(s, z, &out, &n, NULL) < 0 || strcmp(out, t) || n != strlen(t)))
		abort();
	if (t)
		free(out);
	free(t);
	free(s);
}

struct text {
	char *p;
	size_t n;
};

static int take(void *arg, const char *buf, size_t len)
{
	struct text *t = arg;

	if (t->n + len > TEXT_MAX)
		abort(); /* past the bound given */
	memcpy(t->p + t->n, buf, len);
	t->n += len;
	return 0;
}

static void inflate_then_check(const uint8_t *data, size_t size)
{
	struct text t = {malloc(TEXT_MAX), 0};
	char why[200];
	int fd = memfd_create("fuzz_redact", MFD_CLOEXEC);

	if (fd < 0 || !t.p || write(fd, data, size) != (ssize_t)size ||
	    lseek(fd, 0, SEEK_SET) != 0) {
		if (fd >= 0)
			close(fd);
		free(t.p);
		return;
	}
	if (pm_text_stream(fd, TEXT_MAX, take, &t, why, sizeof(why)) == 0) {
		if (strnlen(why, sizeof(why)) == sizeof(why))
			abort();
		check(t.p, t.n);
	}
	close(fd);
	free(t.p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	if (data[0] & 1)
		inflate_then_check(data + 1, size - 1);
	else
		check((const char *)data + 1, size - 1);
	return 0;
}
