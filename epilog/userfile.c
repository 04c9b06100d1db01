/*
 * userfile.c - the files the job's user controls.
 *
 * Slurm gives the epilog the job's output paths unexpanded (SLURM_JOB_STDOUT=slurm-%j.out):
 * pm_slurm_pattern expands them as slurmstepd did for the batch step.  Those paths, and
 * the --postmortem-logs paths, are the user's words: a child process that has become the
 * user (supplementary groups, gid, uid, in that order) opens them, refusing a symbolic link
 * and anything but a regular file, and streams the bytes back through a pipe.  The root
 * collector never opens a path the user chose.  The same child, without the drop, reads
 * the collector's own files, so that a hung filesystem costs a kill, not the deadline.
 *
 * A file in gzip or zstd is sent as its text: the child decompresses it (as the user, so a
 * hostile stream never meets root), at most pm_input_max() bytes of it and for at most
 * TEXT_SECONDS, and the runner's head and tail caps apply to that text.  Compressed bytes
 * would pass the redactor unread, and a bomb would ride into the bundle whole.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector.h"
#include "postmortem.h"
#include "pmutil.h"

#define NO_VAL_STR "4294967294" /* what Slurm prints for %a of a job that is no array */
#define MAX_GROUPS 1024

/* ---- filename patterns ---- */

struct out {
	char *buf;
	size_t len, cap;
};

static int put(struct out *o, const char *s, size_t n)
{
	if (o->len + n + 1 > o->cap) {
		size_t cap = (o->len + n + 1) * 2;
		char *b = realloc(o->buf, cap);
		if (!b)
			return -1;
		o->buf = b;
		o->cap = cap;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = 0;
	return 0;
}

static int put_num(struct out *o, const char *digits, int width)
{
	int n = (int)strlen(digits);

	for (; width > n; width--)
		if (put(o, "0", 1) < 0)
			return -1;
	return put(o, digits, (size_t)n);
}

/* The short host name of the batch node (%N): ours when we ran it. */
static const char *batch_host(const struct pm_job *j, char *buf, size_t len)
{
	if (pm_job_batch_node(j) == 1 && gethostname(buf, len) == 0) {
		buf[len - 1] = 0;
		buf[strcspn(buf, ".")] = 0;
		return buf;
	}
	if (pm_job_batch_node(j) == 1)
		return j->node;
	return NULL;
}

static int unknown(char *why, size_t whylen, char spec, const char *what)
{
	snprintf(why, whylen, "%%%c in the output path needs %s, which the epilog does not know",
		 spec, what);
	errno = ENOENT;
	return -1;
}

static int one_spec(struct out *o, char spec, int width, const struct pm_job *j, char *why,
		    size_t whylen)
{
	char host[256], num[24];
	const char *h;

	switch (spec) {
	case '%':
		return put(o, "%", 1);
	case 'A':
		return put_num(o, j->array_job ? j->array_job : j->id, width);
	case 'a':
		return put_num(o, j->array_task ? j->array_task : NO_VAL_STR, width);
	case 'b':
		snprintf(num, sizeof(num), "%lu",
			 strtoul(j->array_task ? j->array_task : NO_VAL_STR, NULL, 10) % 10);
		return put_num(o, num, width);
	case 'J': /* the batch step prints the bare job id */
	case 'j':
		return put_num(o, j->id, width);
	case 'N':
		if (!(h = batch_host(j, host, sizeof(host))))
			return unknown(why, whylen, spec, "the batch node's host name");
		return put(o, h, strlen(h));
	case 'n':
	case 't':
		return put_num(o, "0", width);
	case 's':
		return put(o, "batch", 5);
	case 'u':
		if (!j->user)
			return unknown(why, whylen, spec, "the user name");
		return put(o, j->user, strlen(j->user));
	case 'x':
		if (!j->name)
			return unknown(why, whylen, spec, "the job name");
		return put(o, j->name, strlen(j->name));
	default: /* Slurm leaves what it does not know */
		return put(o, "%", 1) < 0 || (spec && put(o, &spec, 1) < 0) ? -1 : 0;
	}
}

static int expand(struct out *o, const char *pat, const struct pm_job *j, char *why, size_t whylen)
{
	if (strchr(pat, '\\')) {
		/* a backslash anywhere: no substitution, the backslashes removed */
		for (const char *p = pat; *p; p++)
			if (*p != '\\' && put(o, p, 1) < 0)
				return -1;
		return 0;
	}
	for (const char *p = pat; *p; p++) {
		int width = 0;

		if (*p != '%') {
			if (put(o, p, 1) < 0)
				return -1;
			continue;
		}
		while (p[1] >= '0' && p[1] <= '9') {
			width = width * 10 + (p[1] - '0');
			p++;
		}
		if (width > 10)
			width = 10;
		if (one_spec(o, p[1], width, j, why, whylen) < 0)
			return -1;
		if (p[1])
			p++;
	}
	return 0;
}

char *pm_slurm_pattern(const char *pat, const struct pm_job *j, char *why, size_t whylen)
{
	struct out o = {0};

	if (!pat || !*pat) {
		snprintf(why, whylen, "no output path");
		errno = ENOENT;
		return NULL;
	}
	if (pat[0] != '/') {
		if (!j->work_dir || j->work_dir[0] != '/') {
			snprintf(why, whylen,
				 "the output path '%s' is relative and the work dir is unknown",
				 pat);
			errno = ENOENT;
			return NULL;
		}
		if (put(&o, j->work_dir, strlen(j->work_dir)) < 0 || put(&o, "/", 1) < 0)
			goto fail;
	}
	if (expand(&o, pat, j, why, whylen) < 0)
		goto fail;
	return o.buf;
fail:
	free(o.buf);
	if (errno != ENOENT)
		snprintf(why, whylen, "out of memory");
	return NULL;
}

/* ---- the reader child ---- */

static int become(const struct pm_reader *r)
{
	gid_t groups[MAX_GROUPS];
	int n = MAX_GROUPS;
	const char *user = r->user;
	struct passwd *pw;

	if (r->gid == (gid_t)-1)
		return -1;
	if (getuid() == r->uid && geteuid() == r->uid && getegid() == r->gid)
		return 0;
	if (!user && (pw = getpwuid(r->uid)))
		user = pw->pw_name;
	if (!user || getgrouplist(user, r->gid, groups, &n) < 0) {
		groups[0] = r->gid; /* fewer groups is fewer rights */
		n = 1;
	}
	if (setgroups((size_t)n, groups) < 0 || setgid(r->gid) < 0 || setuid(r->uid) < 0)
		return -1;
	if (getuid() != r->uid || geteuid() != r->uid || getegid() != r->gid)
		return -1;
	if (r->uid != 0 && setuid(0) == 0)
		return -1;
	return 0;
}

/* Copy at most MAX bytes (UINT64_MAX: to the end) from IN to OUT. */
static int copy(int in, int out, uint64_t max)
{
	char buf[65536];

	while (max) {
		ssize_t n = read(in, buf, max < sizeof(buf) ? (size_t)max : sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return PM_RX_IO;
		if (n == 0)
			break;
		if (pmu_write_all(out, buf, (size_t)n) < 0)
			return PM_RX_IO;
		max -= (uint64_t)n;
	}
	return PM_RX_OK;
}

/* Scan mode: seek to the last SCAN bytes and start after the first newline there. */
static int send_scan(int in, int out, const struct stat *st, uint64_t scan)
{
	struct pm_reader_hdr h = {.size = (uint64_t)st->st_size};
	char buf[65536];
	ssize_t n;
	size_t at = 0;
	char *nl;

	h.unscanned = (uint64_t)st->st_size - scan;
	if (lseek(in, (off_t)h.unscanned, SEEK_SET) < 0)
		return PM_RX_IO;
	for (;;) {
		n = read(in, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return PM_RX_IO;
		if (n == 0 || (nl = memchr(buf, '\n', (size_t)n))) {
			at = n ? (size_t)(nl - buf) + 1 : 0;
			h.unscanned += at;
			break;
		}
		h.unscanned += (uint64_t)n;
	}
	if (pmu_write_all(out, &h, sizeof(h)) < 0 ||
	    pmu_write_all(out, buf + at, (size_t)n - at) < 0)
		return PM_RX_IO;
	return n ? copy(in, out, UINT64_MAX) : PM_RX_OK;
}

/*
 * How long a reader child decompresses, at most: well inside the user sources' default
 * timeout (5 s), so that a bomb ends as text cut with a reason rather than as a killed
 * reader.  A node under load reads less of it in that time; the bound in bytes
 * (pm_input_max) holds as well.
 */
#define TEXT_SECONDS 2.0

struct text_pipe {
	int fd;
	char last;     /* the last byte sent */
	uint64_t sent; /* bytes of text */
	double until;  /* CLOCK_MONOTONIC */
	bool late;     /* stopped at UNTIL */
};

static int to_pipe(void *arg, const char *buf, size_t len)
{
	struct text_pipe *tp = arg;

	if (pmu_write_all(tp->fd, buf, len) < 0)
		return -1;
	tp->last = buf[len - 1];
	tp->sent += len;
	if (pm_mono() >= tp->until) {
		tp->late = true;
		return -1;
	}
	return 0;
}

/*
 * A compressed file: its text, all of it up to pm_input_max() or TEXT_SECONDS, for the
 * runner to cap head and tail (no gap in the header: what the runner drops it counts
 * itself).  A stream cut there, corrupt or ending early gets a line saying so after the
 * text it did give, and the child exits PM_RX_CUT so that the runner puts that line's
 * reason in coverage (only the child's last line: the user's text before it is no note).
 */
static int send_text(int in, int out, const struct stat *st)
{
	struct pm_reader_hdr h = {.size = (uint64_t)st->st_size};
	struct text_pipe po = {out, '\n', 0, pm_mono() + TEXT_SECONDS, false};
	char why[200], note[300];
	int n;

	if (pmu_write_all(out, &h, sizeof(h)) < 0)
		return PM_RX_IO;
	if (pm_text_stream(in, 0, to_pipe, &po, why, sizeof(why)) < 0 && !po.late)
		return PM_RX_IO;
	if (po.late)
		snprintf(why, sizeof(why),
			 "decompression stopped after %.0f s, at %llu MiB of text: the rest was "
			 "not read",
			 TEXT_SECONDS, (unsigned long long)(po.sent >> 20));
	if (!why[0])
		return PM_RX_OK;
	n = snprintf(note, sizeof(note), "%s[postmortem: %s]\n", po.last == '\n' ? "" : "\n", why);
	return pmu_write_all(out, note, (size_t)n) < 0 ? PM_RX_IO : PM_RX_CUT;
}

/* Is the regular file IN in a format read through to its text (gzip, zstd)? */
static bool compressed(int in)
{
	unsigned char m[16];
	ssize_t n = pread(in, m, sizeof(m), 0);
	const char *fmt = n > 0 ? pm_packed_format(m, (size_t)n) : NULL;

	return fmt && (!strcmp(fmt, "gzip") || !strcmp(fmt, "zstd"));
}

static int child_read(const struct pm_reader *r, int out)
{
	struct pm_reader_hdr h = {0};
	struct stat st;
	int in, flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
	uint64_t size;

	if (r->uid != (uid_t)-1 && become(r) < 0)
		return PM_RX_IDENT;
	if (r->nofollow)
		flags |= O_NOFOLLOW;
	if ((in = open(r->path, flags)) < 0) {
		switch (errno) {
		case ENOENT:
		case ENOTDIR:
			return PM_RX_NOENT;
		case EACCES:
		case EPERM:
			return PM_RX_ACCESS;
		case ELOOP:
			return r->nofollow ? PM_RX_LINK : PM_RX_IO;
		default:
			return PM_RX_IO;
		}
	}
	if (fstat(in, &st) < 0)
		return PM_RX_IO;
	if (!S_ISREG(st.st_mode))
		return PM_RX_NOTREG;
	fcntl(in, F_SETFL, fcntl(in, F_GETFL) & ~O_NONBLOCK);
	size = (uint64_t)st.st_size;
	h.size = size;
	if (r->scan && size > r->scan)
		return send_scan(in, out, &st, r->scan);
	if (!r->scan && compressed(in))
		return send_text(in, out, &st);
	if (r->head + r->tail && size > r->head + r->tail) {
		int rc;

		h.gap = size - r->head - r->tail;
		if (pmu_write_all(out, &h, sizeof(h)) < 0)
			return PM_RX_IO;
		if ((rc = copy(in, out, r->head)) != PM_RX_OK)
			return rc;
		if (lseek(in, (off_t)(size - r->tail), SEEK_SET) < 0)
			return PM_RX_IO;
		return copy(in, out, r->tail);
	}
	if (pmu_write_all(out, &h, sizeof(h)) < 0)
		return PM_RX_IO;
	return copy(in, out, UINT64_MAX);
}

pid_t pm_reader_spawn(const struct pm_reader *r, int *fd)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		int e = errno;
		close(p[0]);
		close(p[1]);
		errno = e;
		return -1;
	}
	if (pid == 0) {
		setpgid(0, 0);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		close(p[0]);
		_exit(child_read(r, p[1]));
	}
	setpgid(pid, pid); /* both sides, so that a kill never races the child's own */
	close(p[1]);
	*fd = p[0];
	return pid;
}
