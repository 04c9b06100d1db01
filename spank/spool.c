/*
 * spool.c - the node-local spool: <spool>/<job>/, root-only (folders 0700, files 0600).
 *
 * A record is one line of at most PM_REC_MAX (PIPE_BUF) bytes written with a single
 * write() on an O_APPEND descriptor: the kernel places each such write at the end of the
 * file as a whole, so tasks of one step (one slurmstepd) and several steps (several
 * slurmstepds) never interleave.  The per-job bound is kept in a small counter file under
 * flock(), held only for the few system calls of one record.  No fsync: the collector reads
 * the spool on the same running kernel in the job epilog, and an fsync per task would cost
 * milliseconds on a busy disk.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmspank.h"
#include "pmutil.h"

#define COUNT_FILE	"count"

/* A job folder name: [A-Za-z0-9_.-], not starting with '.', 1 to 64 bytes. */
static int job_name_ok(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > 64 || s[0] == '.')
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z') || s[i] == '_' || s[i] == '.' || s[i] == '-'))
			return 0;
	return 1;
}

static int file_name_ok(const char *s)
{
	return s && *s && *s != '.' && !strchr(s, '/') && strlen(s) < 128;
}

/* A folder we own that nobody else can write. */
static int safe_dir(int fd, const char *what, const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return pmu_fail(err, errlen, errno, "%s %s: %m", what, path);
	if (!S_ISDIR(st.st_mode))
		return pmu_fail(err, errlen, ENOTDIR, "%s %s: not a folder", what, path);
	if (st.st_uid != geteuid())
		return pmu_fail(err, errlen, EPERM, "%s %s: owned by uid %u, not %u", what, path,
				(unsigned)st.st_uid, (unsigned)geteuid());
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return pmu_fail(err, errlen, EPERM, "%s %s: writable by group or others (mode %04o)",
				what, path, (unsigned)(st.st_mode & 07777));
	return 0;
}

int pm_spool_open_job(const char *spool, const char *job, int create, char *err, size_t errlen)
{
	int sfd = -1, fd = -1, e;

	if (!job_name_ok(job))
		return pmu_fail(err, errlen, EINVAL, "job id '%.64s': not a plain name", job);
	sfd = open(spool, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sfd < 0 && errno == ENOENT && create) {
		if (mkdir(spool, 0700) < 0 && errno != EEXIST)
			return pmu_fail(err, errlen, errno, "spool %s: cannot create: %m", spool);
		sfd = open(spool, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (sfd < 0)
		return pmu_fail(err, errlen, errno, "spool %s: %m", spool);
	if (safe_dir(sfd, "spool", spool, err, errlen) < 0)
		goto out;
	if (create && mkdirat(sfd, job, 0700) < 0 && errno != EEXIST) {
		pmu_fail(err, errlen, errno, "spool %s/%s: cannot create: %m", spool, job);
		goto out;
	}
	fd = openat(sfd, job, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		pmu_fail(err, errlen, errno, "spool %s/%s: %m", spool, job);
		goto out;
	}
	if (safe_dir(fd, "spool", spool, err, errlen) < 0) {
		e = errno;
		close(fd);
		fd = -1;
		errno = e;
		goto out;
	}
	fchmod(fd, 0700);	/* drop read and search for others, if a umask let them in */
out:
	e = errno;
	close(sfd);
	errno = e;
	return fd;
}

static void read_counts(int fd, unsigned long *rec, unsigned long *drop)
{
	char buf[128];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	*rec = *drop = 0;
	if (n <= 0)
		return;
	buf[n] = '\0';
	if (sscanf(buf, "records %lu dropped %lu", rec, drop) != 2)
		*rec = *drop = 0;
}

/* The counters only grow, so the new text is never shorter than the old: no truncation. */
static void write_counts(int fd, unsigned long rec, unsigned long drop)
{
	char buf[128];
	int n = snprintf(buf, sizeof(buf), "records %lu\ndropped %lu\n", rec, drop);

	if (pwrite(fd, buf, (size_t)n, 0) != n)
		return;	/* the record itself is what counts; a stale counter only loosens the bound */
}

int pm_spool_append(int dirfd, const char *name, const char *line, size_t len,
		    unsigned long max)
{
	unsigned long rec, drop;
	int cfd, fd, rc = -1, e = 0;
	ssize_t w;

	if (!file_name_ok(name) || len == 0 || len > PM_REC_MAX || line[len - 1] != '\n') {
		errno = EINVAL;
		return -1;
	}
	cfd = openat(dirfd, COUNT_FILE, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (cfd < 0)
		return -1;
	while (flock(cfd, LOCK_EX) < 0) {
		if (errno != EINTR)
			goto out;
	}
	read_counts(cfd, &rec, &drop);
	if (rec >= max) {
		write_counts(cfd, rec, drop + 1);
		rc = 1;
		goto out;
	}
	fd = openat(dirfd, name, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		goto out;
	do {
		w = write(fd, line, len);
	} while (w < 0 && errno == EINTR);
	if (w != (ssize_t)len) {
		e = w < 0 ? errno : ENOSPC;
		/* end a torn line so the next record starts on its own line */
		if (w > 0 && write(fd, "\n", 1) < 0)
			e = errno;
		close(fd);
		errno = e;
		goto out;
	}
	close(fd);
	write_counts(cfd, rec + 1, drop);
	rc = 0;
out:
	e = errno;
	close(cfd);	/* releases the lock */
	errno = e;
	return rc;
}

int pm_spool_counts(int dirfd, unsigned long *records, unsigned long *dropped)
{
	int fd = openat(dirfd, COUNT_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -1;
	flock(fd, LOCK_SH);
	read_counts(fd, records, dropped);
	close(fd);
	return 0;
}

int pm_spool_touch(int dirfd, const char *name)
{
	int fd;

	if (!file_name_ok(name)) {
		errno = EINVAL;
		return -1;
	}
	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

int pm_spool_exists(int dirfd, const char *name)
{
	return file_name_ok(name) && faccessat(dirfd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

static int remove_at(int sfd, const char *job)
{
	struct dirent *de;
	int fd, e = 0;
	DIR *d;

	fd = openat(sfd, job, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	d = fdopendir(fd);
	if (!d) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) < 0 && !e)
			e = errno;
	}
	closedir(d);
	if (unlinkat(sfd, job, AT_REMOVEDIR) < 0)
		return -1;
	errno = e;
	return e ? -1 : 0;
}

int pm_spool_path(const char *spool, const char *node, char *buf, size_t len)
{
	size_t n = 0, k;
	const char *p;

	for (p = spool; *p; p++) {
		const char *add = p;

		k = 1;
		if (*p == '%') {
			p++;
			if (*p == 'n') {
				if (!node || !*node || strchr(node, '/') || strcmp(node, ".") == 0 ||
				    strcmp(node, "..") == 0) {
					errno = EINVAL;
					return -1;
				}
				add = node;
				k = strlen(node);
			} else if (*p != '%') {
				errno = EINVAL;
				return -1;
			}
		}
		if (n + k >= len) {
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(buf + n, add, k);
		n += k;
	}
	if (n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	buf[n] = '\0';
	return 0;
}

int pm_spool_remove_job(const char *spool, const char *job)
{
	int sfd, rc, e;

	if (!job_name_ok(job)) {
		errno = EINVAL;
		return -1;
	}
	sfd = open(spool, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sfd < 0)
		return -1;
	rc = remove_at(sfd, job);
	e = errno;
	close(sfd);
	errno = e;
	return rc;
}

static int all_digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

int pm_spool_prune(const char *spool, time_t before, const char *keep, unsigned max)
{
	struct dirent *de;
	struct stat st, cs;
	int sfd, jfd, n = 0;
	time_t newest;
	DIR *d;

	sfd = open(spool, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sfd < 0)
		return -1;
	d = fdopendir(sfd);
	if (!d) {
		close(sfd);
		return -1;
	}
	while ((de = readdir(d)) && (unsigned)n < max) {
		/* only what we create: folders named by a numeric job id */
		if (!all_digits(de->d_name) || (keep && strcmp(de->d_name, keep) == 0))
			continue;
		if (fstatat(sfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
			continue;
		newest = st.st_mtime;
		jfd = openat(sfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (jfd >= 0) {
			if (fstatat(jfd, COUNT_FILE, &cs, AT_SYMLINK_NOFOLLOW) == 0 &&
			    cs.st_mtime > newest)
				newest = cs.st_mtime;
			close(jfd);
		}
		if (newest >= before)
			continue;
		if (remove_at(sfd, de->d_name) == 0)
			n++;
	}
	closedir(d);
	return n;
}
