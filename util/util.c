/*
 * util.c - pmutil.h's helpers that need libc only (the plugin compiles this file into
 * itself).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmutil.h"

int pmu_fail(char *err, size_t errlen, int e, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	errno = e;
	return -1;
}

int pmu_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

FILE *pmu_create(const char *path, unsigned mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, (mode_t)mode);
	FILE *f;
	int e;

	if (fd < 0)
		return NULL;
	if (fchmod(fd, (mode_t)mode) == 0 && (f = fdopen(fd, "w")))
		return f;
	e = errno;
	close(fd);
	unlink(path);
	errno = e;
	return NULL;
}

int pmu_strset(char **dst, const char *v)
{
	char *s = v ? strdup(v) : NULL;

	if (v && !s)
		return -1;
	free(*dst);
	*dst = s;
	return 0;
}

int pmu_reserve(char **buf, size_t *alloc, size_t need, size_t first)
{
	size_t a = *alloc ? *alloc : first;
	char *b;

	if (need <= *alloc)
		return 0;
	while (a < need)
		a *= 2;
	if (!(b = realloc(*buf, a)))
		return -1;
	*buf = b;
	*alloc = a;
	return 0;
}
