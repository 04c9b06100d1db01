/*
 * check_spank_spool.c - the plugin suite's spool (spool.c: permissions, concurrent writers,
 * the bound, a full disk, pruning) and the collector run inside its deadline (epilog.c).
 */

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <slurm/spank.h>

#include "pmspank.h"
#include "support.h"
#include "check_spank.h"

/* ---- spool.c ---- */

START_TEST(test_spool_permissions_and_refusals)
{
	char err[512], p[512];
	int fd;

	fd = pm_spool_open_job(spool, "42", 1, err, sizeof(err));
	ck_assert_msg(fd >= 0, "%s", err);
	ck_assert_int_eq(pm_spool_append(fd, "rankmap.0.jsonl", "{}\n", 3, 10), 0);
	close(fd);
	ck_assert_uint_eq(mode_of(spool), 0700);
	snprintf(p, sizeof(p), "%s/42", spool);
	ck_assert_uint_eq(mode_of(p), 0700);
	snprintf(p, sizeof(p), "%s/42/rankmap.0.jsonl", spool);
	ck_assert_uint_eq(mode_of(p), 0600);
	snprintf(p, sizeof(p), "%s/42/count", spool);
	ck_assert_uint_eq(mode_of(p), 0600);

	/* not a job name, a missing job folder without create */
	ck_assert_int_eq(pm_spool_open_job(spool, "../etc", 1, err, sizeof(err)), -1);
	ck_assert_int_eq(pm_spool_open_job(spool, "43", 0, err, sizeof(err)), -1);
	/* a spool others can write */
	chmod(spool, 0777);
	ck_assert_int_eq(pm_spool_open_job(spool, "42", 1, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "writable by group or others"));
	chmod(spool, 0700);
	/* a symbolic link as the spool or as the job folder */
	snprintf(p, sizeof(p), "%s/link", tmp);
	ck_assert_int_eq(symlink(spool, p), 0);
	ck_assert_int_eq(pm_spool_open_job(p, "42", 1, err, sizeof(err)), -1);
	snprintf(p, sizeof(p), "%s/44", spool);
	ck_assert_int_eq(symlink(tmp, p), 0);
	ck_assert_int_eq(pm_spool_open_job(spool, "44", 1, err, sizeof(err)), -1);
	/* a record file that is a link is not followed */
	fd = pm_spool_open_job(spool, "42", 1, err, sizeof(err));
	snprintf(p, sizeof(p), "%s/42/taskexit.0.jsonl", spool);
	ck_assert_int_eq(symlink("/etc/passwd-not-here", p), 0);
	ck_assert_int_eq(pm_spool_append(fd, "taskexit.0.jsonl", "{}\n", 3, 10), -1);
	/* only whole lines of at most PIPE_BUF */
	ck_assert_int_eq(pm_spool_append(fd, "x", "{}", 2, 10), -1);
	ck_assert_int_eq(pm_spool_append(fd, "../x", "{}\n", 3, 10), -1);
	close(fd);
}
END_TEST

#define WRITERS 8
#define PER_WRITER 400

/* Each writer appends records of varying length (up to almost PIPE_BUF) to one file. */
static void writer(int w, unsigned long max)
{
	char line[PM_REC_MAX], err[256];
	int fd = pm_spool_open_job(spool, "7", 1, err, sizeof(err)), i, n, pad;

	if (fd < 0)
		_exit(2);
	for (i = 0; i < PER_WRITER; i++) {
		pad = (w * 977 + i * 131) % 3900;
		n = snprintf(line, sizeof(line), "{\"w\":%d,\"i\":%d,\"pad\":\"%*s\"}\n", w, i, pad,
			     "");
		if (pm_spool_append(fd, i % 2 ? "a.jsonl" : "b.jsonl", line, (size_t)n, max) < 0)
			_exit(3);
	}
	_exit(0);
}

static int run_writers(unsigned long max)
{
	pid_t pids[WRITERS];
	int i, st, bad = 0;

	for (i = 0; i < WRITERS; i++) {
		pids[i] = fork();
		ck_assert_int_ge(pids[i], 0);
		if (pids[i] == 0)
			writer(i, max);
	}
	for (i = 0; i < WRITERS; i++) {
		waitpid(pids[i], &st, 0);
		bad += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
	}
	return bad;
}

static json_t *objs[WRITERS * PER_WRITER];

START_TEST(test_spool_concurrent_writers)
{
	char p[512], seen[WRITERS][PER_WRITER];
	unsigned long rec, drop;
	int n, m, i, fd;

	ck_assert_int_eq(run_writers(1000000), 0);
	memset(seen, 0, sizeof(seen));
	snprintf(p, sizeof(p), "%s/7/a.jsonl", spool);
	n = read_lines(p, objs, WRITERS * PER_WRITER);
	snprintf(p, sizeof(p), "%s/7/b.jsonl", spool);
	m = read_lines(p, objs + n, WRITERS * PER_WRITER - n);
	ck_assert_int_eq(n + m, WRITERS * PER_WRITER);
	for (i = 0; i < n + m; i++) {
		int w = (int)jint(objs[i], "w"), k = (int)jint(objs[i], "i");

		ck_assert(w >= 0 && w < WRITERS && k >= 0 && k < PER_WRITER);
		ck_assert_msg(!seen[w][k]++, "record %d/%d twice", w, k);
		json_decref(objs[i]);
	}
	fd = pm_spool_open_job(spool, "7", 0, p, sizeof(p));
	ck_assert_int_eq(pm_spool_counts(fd, &rec, &drop), 0);
	ck_assert_uint_eq(rec, WRITERS * PER_WRITER);
	ck_assert_uint_eq(drop, 0);
	close(fd);
}
END_TEST

START_TEST(test_spool_bound)
{
	unsigned long rec, drop;
	char p[512];
	int n, m, i, fd;

	ck_assert_int_eq(run_writers(1000), 0);
	snprintf(p, sizeof(p), "%s/7/a.jsonl", spool);
	n = read_lines(p, objs, WRITERS * PER_WRITER);
	snprintf(p, sizeof(p), "%s/7/b.jsonl", spool);
	m = read_lines(p, objs + n, WRITERS * PER_WRITER - n);
	ck_assert_int_eq(n + m, 1000);
	for (i = 0; i < n + m; i++)
		json_decref(objs[i]);
	fd = pm_spool_open_job(spool, "7", 0, p, sizeof(p));
	ck_assert_int_eq(pm_spool_counts(fd, &rec, &drop), 0);
	ck_assert_uint_eq(rec, 1000);
	ck_assert_uint_eq(drop, WRITERS * PER_WRITER - 1000);
	close(fd);
}
END_TEST

/* Fill a tiny filesystem (a 64 KiB tmpfs when we may mount one, else RLIMIT_FSIZE). */
START_TEST(test_spool_full_disk)
{
	char line[2048], err[256], mnt[270];
	int fd, i, rc = 0, e = 0;
	bool mounted = tiny_spool(mnt, sizeof(mnt), "64k", 40000);

	fd = pm_spool_open_job(spool, "9", 1, err, sizeof(err));
	ck_assert_msg(fd >= 0, "%s", err);
	memset(line, 'x', sizeof(line));
	line[0] = '{', line[1] = '"', line[2] = 'x', line[3] = '"', line[4] = ':', line[5] = '"';
	line[sizeof(line) - 3] = '"', line[sizeof(line) - 2] = '}', line[sizeof(line) - 1] = '\n';
	for (i = 0; i < 200 && (rc = pm_spool_append(fd, "f.jsonl", line, sizeof(line), 1000)) == 0;
	     i++)
		;
	e = errno;
	close(fd);
	if (mounted)
		umount2(mnt, MNT_DETACH);
	ck_assert_int_eq(rc, -1);
	ck_assert_msg(e == (mounted ? ENOSPC : EFBIG), "errno %d (%s)", e, strerror(e));
	ck_assert_int_gt(i, 5);
}
END_TEST

START_TEST(test_spool_prune_and_remove)
{
	struct timespec old[2] = {{1000000, 0}, {1000000, 0}};
	char err[256], p[512];
	int fd;

	fd = pm_spool_open_job(spool, "100", 1, err, sizeof(err));
	ck_assert_int_eq(pm_spool_append(fd, "rankmap.0.jsonl", "{}\n", 3, 10), 0);
	ck_assert_int_eq(futimens(fd, old), 0);
	ck_assert_int_eq(utimensat(fd, "count", old, 0), 0);
	close(fd);
	close(pm_spool_open_job(spool, "101", 1, err, sizeof(err))); /* fresh */
	fd = pm_spool_open_job(spool, "102", 1, err, sizeof(err));   /* old, but kept */
	ck_assert_int_eq(futimens(fd, old), 0);
	close(fd);
	snprintf(p, sizeof(p), "%s/notajob", spool);
	mkdir(p, 0700);
	ck_assert_int_eq(utimensat(AT_FDCWD, p, old, 0), 0);

	ck_assert_int_eq(pm_spool_prune(spool, time(NULL) - 3600, "102", 64), 1);
	snprintf(p, sizeof(p), "%s/100", spool);
	ck_assert_int_eq(access(p, F_OK), -1);
	snprintf(p, sizeof(p), "%s/101", spool);
	ck_assert_int_eq(access(p, F_OK), 0);
	snprintf(p, sizeof(p), "%s/notajob", spool);
	ck_assert_int_eq(access(p, F_OK), 0);
	ck_assert_int_eq(pm_spool_remove_job(spool, "101"), 0);
	snprintf(p, sizeof(p), "%s/101", spool);
	ck_assert_int_eq(access(p, F_OK), -1);
}
END_TEST

/* ---- epilog.c ---- */

/* Running or sleeping: not gone, and not a zombie nobody reaped (init in a container). */
static int alive(pid_t pid)
{
	char p[64], buf[256], *c;
	FILE *f;
	int n;

	snprintf(p, sizeof(p), "/proc/%d/stat", (int)pid);
	f = fopen(p, "r");
	if (!f)
		return 0;
	n = (int)fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n > 0 ? n : 0] = '\0';
	c = strrchr(buf, ')');
	return c && c[1] == ' ' && c[2] != 'Z' && c[2] != 'X';
}

START_TEST(test_run_deadline)
{
	char path[512], body[1024], pidf[512], buf[64];
	char *argv[3] = {path, NULL, NULL};
	struct pm_run r;
	long long t0;
	FILE *f;
	pid_t gc;

	/* ends on its own, gets its arguments, output discarded */
	snprintf(body, sizeof(body), "echo \"$@\" > %s/args; echo noise; exit 0", tmp);
	script("ok", body, path, sizeof(path));
	argv[1] = (char *)"--job=5";
	ck_assert_int_eq(pm_run_deadline(argv, 5000, &r), 0);
	ck_assert_int_eq(r.outcome, PM_RUN_EXITED);
	snprintf(pidf, sizeof(pidf), "%s/args", tmp);
	f = fopen(pidf, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), f));
	fclose(f);
	ck_assert_str_eq(buf, "--job=5\n");
	argv[1] = NULL;

	script("fail", "exit 3", path, sizeof(path));
	ck_assert_int_eq(pm_run_deadline(argv, 5000, &r), -1);
	ck_assert_int_eq(r.outcome, PM_RUN_EXITED);
	ck_assert_int_eq(WEXITSTATUS(r.status), 3);

	/* sleeps forever, ignores SIGTERM, leaves a grandchild: all killed at the deadline */
	snprintf(pidf, sizeof(pidf), "%s/gc.pid", tmp);
	snprintf(body, sizeof(body),
		 "trap '' TERM\nsleep 1000 &\necho $! > %s\nwhile :; do sleep 1; done", pidf);
	script("hang", body, path, sizeof(path));
	t0 = ms_now();
	ck_assert_int_eq(pm_run_deadline(argv, 1000, &r), -1);
	ck_assert_int_le(ms_now() - t0, 1600);
	ck_assert_int_ge(ms_now() - t0, 950);
	ck_assert_int_eq(r.outcome, PM_RUN_TIMED_OUT);
	f = fopen(pidf, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%d", &gc), 1);
	fclose(f);
	usleep(100000);
	ck_assert_msg(!alive(gc), "grandchild %d survived", (int)gc);

	/* missing, not executable, relative */
	snprintf(path, sizeof(path), "%s/none", tmp);
	ck_assert_int_eq(pm_run_deadline(argv, 1000, &r), -1);
	ck_assert_int_eq(r.outcome, PM_RUN_MISSING);
	script("noexec", "exit 0", path, sizeof(path));
	chmod(path, 0644);
	ck_assert_int_eq(pm_run_deadline(argv, 1000, &r), -1);
	ck_assert_int_eq(r.outcome, PM_RUN_MISSING);
	snprintf(path, sizeof(path), "bin/sh");
	ck_assert_int_eq(pm_run_deadline(argv, 1000, &r), -1);
	ck_assert_int_eq(r.outcome, PM_RUN_MISSING);
}
END_TEST

void spank_spool_tests(TCase *t)
{
	tcase_add_test(t, test_spool_permissions_and_refusals);
	tcase_add_test(t, test_spool_concurrent_writers);
	tcase_add_test(t, test_spool_bound);
	tcase_add_test(t, test_spool_full_disk);
	tcase_add_test(t, test_spool_prune_and_remove);
	tcase_add_test(t, test_run_deadline);
}
