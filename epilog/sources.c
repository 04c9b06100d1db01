/*
 * sources.c - what a node snapshots, as a table of sources (one const struct each), and the
 * runner that collects them all at once.
 *
 * Every source is one or more child processes: a shell command (/bin/sh -c, in a process
 * group of its own) or a file reader (userfile.c), each writing into a pipe that one poll()
 * loop drains.  A child that does not finish within its source's timeout, or by the
 * collector's deadline, gets SIGKILL on its whole group and its source is timed_out: a
 * hung nvidia-smi or a dead NFS mount costs its timeout, never the node's epilog.  What
 * arrives passes an optional line filter (the job's window of the kernel log, the slurmd log
 * lines that are the job's by their own job field) and is capped head and tail: launch
 * errors are at the start, fatal ones at the end.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"
#include "http.h"
#include "postmortem.h"
#include "pmutil.h"
#include "prom.h"

#define CHUNK 65536
#define LINE_KEEP 65536	   /* a longer line is judged by its first 64 KiB */
#define ERR_KEEP 240	   /* stderr bytes kept for a reason */
#define REAP_TICK 0.02	   /* seconds between looks at a child that closed its pipe */
#define LOOKUP_TIMEOUT 2.0 /* scontrol, for a %x in the output path */

static volatile sig_atomic_t stop_now;

void pm_collect_stop(void)
{
	stop_now = 1;
}

bool pm_collect_stopped(void)
{
	return stop_now != 0;
}

static void fmt_size(uint64_t n, char *buf, size_t len)
{
	if (n < 1024)
		snprintf(buf, len, "%llu B", (unsigned long long)n);
	else if (n < (1ULL << 20))
		snprintf(buf, len, "%.1f KiB", n / 1024.0);
	else if (n < (1ULL << 30))
		snprintf(buf, len, "%.1f MiB", n / 1048576.0);
	else
		snprintf(buf, len, "%.1f GiB", n / 1073741824.0);
}

static void fmt_time(double t, char *buf, size_t len)
{
	pm_time_format(t, buf, len);
}

/* ---- the sink: line filter, then head and tail ---- */

typedef bool line_fn(void *state, const char *line, size_t len);

struct sink {
	uint64_t hcap, tcap;
	char *head, *tail;
	size_t hlen, halloc, tlen, talloc;
	uint64_t seen;	    /* bytes that passed the filter */
	uint64_t gap;	    /* bytes the reader skipped between head and tail */
	uint64_t unscanned; /* bytes the reader did not search (scan mode) */
	uint64_t filtered;  /* bytes the filter dropped */
	line_fn *filter;
	void *fstate;
	char *line;
	size_t llen;
	bool partial, pkeep, oom;
};

static void sink_init(struct sink *s, uint64_t cap, line_fn *filter, void *fstate)
{
	memset(s, 0, sizeof(*s));
	s->hcap = cap / 2;
	s->tcap = cap - s->hcap;
	s->filter = filter;
	s->fstate = fstate;
}

static void push(struct sink *s, const char *p, size_t n)
{
	size_t take;

	s->seen += n;
	if (s->hlen < s->hcap) {
		take = n < s->hcap - s->hlen ? n : (size_t)(s->hcap - s->hlen);
		if (pmu_reserve(&s->head, &s->halloc, s->hlen + take, 4096) < 0) {
			s->oom = true;
			return;
		}
		memcpy(s->head + s->hlen, p, take);
		s->hlen += take;
		p += take;
		n -= take;
	}
	if (!n || !s->tcap)
		return;
	if (n >= s->tcap) {
		if (pmu_reserve(&s->tail, &s->talloc, s->tcap, 4096) < 0) {
			s->oom = true;
			return;
		}
		memcpy(s->tail, p + n - s->tcap, s->tcap);
		s->tlen = s->tcap;
		return;
	}
	if (s->tlen + n > 2 * s->tcap) {
		size_t keep = s->tcap - n;
		memmove(s->tail, s->tail + s->tlen - keep, keep);
		s->tlen = keep;
	}
	if (pmu_reserve(&s->tail, &s->talloc, s->tlen + n, 4096) < 0) {
		s->oom = true;
		return;
	}
	memcpy(s->tail + s->tlen, p, n);
	s->tlen += n;
}

static void emit(struct sink *s, bool eol)
{
	bool keep = s->partial ? s->pkeep : s->filter(s->fstate, s->line, s->llen - eol);

	if (keep)
		push(s, s->line, s->llen);
	else
		s->filtered += s->llen;
	s->partial = !eol;
	s->pkeep = keep;
	s->llen = 0;
}

static void feed(struct sink *s, const char *p, size_t n)
{
	if (!s->filter) {
		push(s, p, n);
		return;
	}
	if (!s->line && !(s->line = malloc(LINE_KEEP))) {
		s->oom = true;
		return;
	}
	while (n) {
		const char *nl = memchr(p, '\n', n);
		size_t take = nl ? (size_t)(nl - p) + 1 : n;

		if (take > LINE_KEEP - s->llen)
			take = LINE_KEEP - s->llen;
		memcpy(s->line + s->llen, p, take);
		s->llen += take;
		p += take;
		n -= take;
		if (s->line[s->llen - 1] == '\n' || s->llen == LINE_KEEP)
			emit(s, s->line[s->llen - 1] == '\n');
	}
}

/* The kept bytes, with a marker where the middle was cut.  *OMITTED: bytes left out. */
static char *sink_finish(struct sink *s, size_t *len, uint64_t *omitted)
{
	size_t tk, h, ts = 0;
	const char *t, *nl;
	char mark[96] = "";
	uint64_t om;
	char *out;

	if (s->filter && s->llen) {
		bool keep = s->partial ? s->pkeep : s->filter(s->fstate, s->line, s->llen);
		if (keep)
			push(s, s->line, s->llen);
		else
			s->filtered += s->llen;
		s->llen = 0;
	}
	tk = s->tlen < s->tcap ? s->tlen : (size_t)s->tcap;
	t = s->tail ? s->tail + s->tlen - tk : "";
	om = s->seen - s->hlen - tk + s->gap;
	h = s->hlen;
	if (om) {
		/* cut at line ends: a half line is worse than none.  The tail starts after its
		 * first line end, which may be its last byte; with none in it, the tail is the end
		 * of one line longer than half the cap, and it goes too: a name cut off in the
		 * omitted part would leave its value bare, which the redactor could not know for
		 * one ("DB_PASSWORD=" far back, "...horse battery staple" kept). */
		if (h && (nl = memrchr(s->head, '\n', h)))
			h = (size_t)(nl - s->head) + 1;
		if (tk)
			ts = (nl = memchr(t, '\n', tk)) ? (size_t)(nl - t) + 1 : tk;
		om += (s->hlen - h) + ts;
		snprintf(mark, sizeof(mark), "%s[postmortem: %llu bytes omitted here%s]\n",
			 h && s->head[h - 1] != '\n' ? "\n" : "", (unsigned long long)om,
			 tk && ts == tk ? ", to the end: its last line was too long to keep" : "");
	}
	*omitted = om;
	*len = h + strlen(mark) + (tk - ts);
	if (!(out = malloc(*len + 1)))
		return NULL;
	if (h)
		memcpy(out, s->head, h);
	memcpy(out + h, mark, strlen(mark));
	memcpy(out + h + strlen(mark), t + ts, tk - ts);
	out[*len] = 0;
	return out;
}

static void sink_free(struct sink *s)
{
	free(s->head);
	free(s->tail);
	free(s->line);
	s->head = s->tail = s->line = NULL;
}

/* ---- line filters ---- */

struct window {
	double start;
	struct pm_timectx ctx;
	bool keep; /* a line without a stamp goes with the line before */
};

static bool in_window(void *state, const char *line, size_t len)
{
	struct window *w = state;
	double t;

	if (pm_time_parse(line, len, &w->ctx, &t) == 1)
		w->keep = t >= w->start;
	return w->keep;
}

struct owner {
	const char *id; /* SLURM_JOB_ID: the id slurmd's and slurmstepd's lines carry */
	char array[48]; /* "25_3" for an array task, "" otherwise */
	double start;	/* the job's window start as slurm stamps it (local time); 0 unknown */
	bool cont;	/* inside a record that a user's newline split (pm_slurm_line's open) */
};

/* A line of slurmd's log that is this job's (engine/linetrust.c reads it the same way): one
 * slurmd or slurmstepd wrote ("[stamp] ..."), from the job's window when it is known, whose
 * own job field ("[42.batch]", "JobId=42", "job 42") names this job, or, with no job field
 * at all, a line of the node's within the job's window.  A number in a path, a job name or
 * another job's line is not this job's: any user could have put it there.  Nor is a line
 * inside a path slurmstepd logged with the user's newlines, up to its strerror text. */
static bool owns(void *state, const char *line, size_t len)
{
	struct owner *o = state;
	struct pm_slurm_line l;

	if (o->cont) {
		o->cont = !pm_slurm_line_closes(line, len);
		return false;
	}
	if (!pm_slurm_line(line, len, &l))
		return false;
	o->cont = l.open;
	if (o->start > 0 && l.t < o->start)
		return false;
	if (l.job)
		return pm_slurm_job_match(l.job, l.job_len, o->id) ||
		       (o->array[0] && pm_slurm_job_match(l.job, l.job_len, o->array));
	return o->start > 0;
}

/* ---- tasks ---- */

enum ttype { T_DONE, T_CMD, T_FILE };

struct task {
	struct pm_capture cap;
	enum ttype type;
	pid_t pid;
	int fd, efd;
	bool reaped, killed;
	int wstatus;
	double timeout; /* the source's own */
	double started, deadline;
	struct sink sink;
	struct pm_reader_hdr hdr;
	size_t hdrlen;
	char err[ERR_KEEP + 1];
	size_t errlen;
	char what[128]; /* the program or path, for reasons */
	bool have_window;
	bool prom; /* the Prometheus child: its status line says how it went */
	uid_t as_uid;
	union {
		struct window w;
		struct owner m;
	} f;
};

struct run {
	const struct pm_config *cfg;
	const struct pm_job *job;
	struct task **t;
	size_t nt, at;
	double deadline;
	bool oom;
};

static void reason(struct task *t, enum pm_status st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void reason(struct task *t, enum pm_status st, const char *fmt, ...)
{
	va_list ap;

	t->cap.status = st;
	va_start(ap, fmt);
	vsnprintf(t->cap.reason, sizeof(t->cap.reason), fmt, ap);
	va_end(ap);
}

/* A member name: letters, digits, '.', '-', '_' only, never hidden, unique in its source. */
static char *member_name(struct run *r, enum pm_csource src, const char *want)
{
	char base[96], *out;
	size_t n = 0;
	unsigned k = 1;

	for (const char *p = want; *p && n < sizeof(base) - 8; p++)
		base[n++] = isalnum((unsigned char)*p) || strchr(".-_", *p) ? *p : '_';
	base[n] = 0;
	if (!n || base[0] == '.')
		base[0] = '_';
	if (!n)
		base[1] = 0;
	for (;;) {
		bool clash = false;

		if (k == 1)
			out = strdup(base);
		else if (asprintf(&out, "%s.%u", base, k) < 0)
			out = NULL;
		if (!out)
			return NULL;
		for (size_t i = 0; i < r->nt && !clash; i++)
			clash = r->t[i]->cap.src == src && r->t[i]->cap.name &&
				!strcmp(r->t[i]->cap.name, out);
		if (!clash)
			return out;
		free(out);
		k++;
	}
}

static struct task *add(struct run *r, enum pm_csource src, const char *kind, const char *name,
			const char *origin)
{
	struct task *t;

	if (r->nt == r->at) {
		size_t a = r->at ? r->at * 2 : 16;
		struct task **n = realloc(r->t, a * sizeof(*n));
		if (!n)
			goto oom;
		r->t = n;
		r->at = a;
	}
	if (!(t = calloc(1, sizeof(*t))))
		goto oom;
	t->cap.src = src;
	t->cap.kind = kind;
	t->cap.rank = -1;
	t->cap.observed = pm_now();
	t->fd = t->efd = -1;
	t->as_uid = (uid_t)-1;
	t->timeout = r->cfg->src[src].timeout;
	if ((name && !(t->cap.name = member_name(r, src, name))) ||
	    (origin && !(t->cap.origin = strdup(origin)))) {
		free(t->cap.name);
		free(t);
		goto oom;
	}
	snprintf(t->what, sizeof(t->what), "%s", origin ? origin : pm_csource_name(src));
	r->t[r->nt++] = t;
	return t;
oom:
	r->oom = true;
	return NULL;
}

/* A source entry that needs no process: a coverage fact. */
static void note(struct run *r, enum pm_csource src, enum pm_status st, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void note(struct run *r, enum pm_csource src, enum pm_status st, const char *fmt, ...)
{
	struct task *t = add(r, src, NULL, NULL, NULL);
	va_list ap;

	if (!t)
		return;
	t->cap.status = st;
	va_start(ap, fmt);
	vsnprintf(t->cap.reason, sizeof(t->cap.reason), fmt, ap);
	va_end(ap);
}

static void start_times(struct run *r, struct task *t)
{
	t->started = pm_mono();
	t->deadline = t->started + t->timeout;
	if (t->deadline > r->deadline)
		t->deadline = r->deadline;
	t->cap.observed = pm_now();
}

/* What a child runs instead of a command: returns its exit status. */
typedef int child_fn(struct run *r, struct task *t);

static void start_child(struct run *r, struct task *t, const char *cmd, child_fn *fn, uint64_t cap,
			line_fn *filter);

static void start_cmd(struct run *r, struct task *t, const char *cmd, uint64_t cap, line_fn *filter)
{
	size_t n = strcspn(cmd, " \t");
	const char *prog = cmd;

	/* the program's name, for reasons: "nvidia-smi", not "/usr/bin/nvidia-smi -q" */
	for (const char *p = cmd; p < cmd + n; p++)
		if (*p == '/')
			prog = p + 1;
	snprintf(t->what, sizeof(t->what), "%.*s", (int)(cmd + n - prog), prog);
	start_child(r, t, cmd, NULL, cap, filter);
}

static void start_child(struct run *r, struct task *t, const char *cmd, child_fn *fn, uint64_t cap,
			line_fn *filter)
{
	int out[2] = {-1, -1}, err[2] = {-1, -1}, devnull;

	sink_init(&t->sink, cap, filter, &t->f);
	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0)
		goto fail;
	start_times(r, t);
	t->pid = fork();
	if (t->pid < 0)
		goto fail;
	if (t->pid == 0) {
		setpgid(0, 0);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		devnull = open("/dev/null", O_RDONLY);
		if (devnull >= 0)
			dup2(devnull, 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		if (fn)
			_exit(fn(r, t));
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	setpgid(t->pid, t->pid);
	close(out[1]);
	close(err[1]);
	t->fd = out[0];
	t->efd = err[0];
	fcntl(t->fd, F_SETFL, O_NONBLOCK);
	fcntl(t->efd, F_SETFL, O_NONBLOCK);
	t->type = T_CMD;
	t->hdrlen = sizeof(t->hdr); /* commands send no header */
	return;
fail:
	reason(t, PM_ST_UNREADABLE, "%s could not be started: %s", t->what, strerror(errno));
	for (int i = 0; i < 2; i++) {
		if (out[i] >= 0)
			close(out[i]);
		if (err[i] >= 0)
			close(err[i]);
	}
	free(t->cap.name);
	t->cap.name = NULL;
}

static void start_file(struct run *r, struct task *t, const char *path, uint64_t cap,
		       line_fn *filter, bool as_user)
{
	struct pm_reader rd = {.path = path, .uid = (uid_t)-1, .gid = (gid_t)-1};

	snprintf(t->what, sizeof(t->what), "%s", path);
	sink_init(&t->sink, cap, filter, &t->f);
	if (filter)
		rd.scan = PM_SCAN_MAX;
	else {
		rd.head = t->sink.hcap;
		rd.tail = t->sink.tcap;
	}
	if (as_user) {
		rd.uid = t->as_uid = r->job->uid;
		rd.gid = r->job->gid;
		rd.user = r->job->user;
		rd.nofollow = true;
	}
	start_times(r, t);
	t->pid = pm_reader_spawn(&rd, &t->fd);
	if (t->pid < 0) {
		reason(t, PM_ST_UNREADABLE, "%s: cannot start a reader: %s", path, strerror(errno));
		free(t->cap.name);
		t->cap.name = NULL;
		return;
	}
	fcntl(t->fd, F_SETFL, O_NONBLOCK);
	t->type = T_FILE;
}

/* ---- finishing a task: status and reason ---- */

static void kept_note(struct task *t, uint64_t omitted, char *buf, size_t len)
{
	char a[32], b[32], c[32];
	uint64_t total = t->sink.seen + t->sink.gap;

	buf[0] = 0;
	if (!omitted)
		return;
	fmt_size(t->sink.hcap, a, sizeof(a));
	fmt_size(t->sink.tcap, b, sizeof(b));
	fmt_size(total, c, sizeof(c));
	snprintf(buf, len, "kept the first %s and the last %s of %s%s", a, b, c,
		 t->sink.filter ? " of matching lines" : "");
}

static void filter_note(struct run *r, struct task *t, char *buf, size_t len)
{
	char a[40], b[32];

	buf[0] = 0;
	if (t->cap.src == PM_CS_KERNEL_LOG) {
		if (!t->have_window) {
			snprintf(buf, len, "the job's start is unknown: the whole log");
			return;
		}
		fmt_time(t->f.w.start, a, sizeof(a));
		snprintf(buf, len, "lines since %s (the job's first task less %.0f s)", a,
			 PM_WINDOW_MARGIN);
	} else if (t->cap.src == PM_CS_SLURMD_LOG) {
		snprintf(buf, len, "lines naming job %s", r->job->id);
	}
	if (t->sink.unscanned) {
		size_t l = strlen(buf);
		fmt_size(PM_SCAN_MAX, b, sizeof(b));
		snprintf(buf + l, len - l, "%sonly the last %s searched", l ? "; " : "", b);
	}
}

static void first_line(const char *s, size_t n, char *buf, size_t len)
{
	size_t l = strcspn(s, "\n");

	if (l > n)
		l = n;
	snprintf(buf, len, "%.*s", (int)l, s);
}

static void set_content(struct run *r, struct task *t)
{
	uint64_t omitted = 0;
	char kept[160], filt[200], ex[200] = "";
	const char *sep;

	t->cap.data = sink_finish(&t->sink, &t->cap.len, &omitted);
	if (!t->cap.data || t->sink.oom) {
		free(t->cap.data);
		t->cap.data = NULL;
		t->cap.len = 0;
		reason(t, PM_ST_UNREADABLE, "%s: out of memory", t->what);
		return;
	}
	kept_note(t, omitted, kept, sizeof(kept));
	filter_note(r, t, filt, sizeof(filt));
	if (t->type == T_CMD && WIFEXITED(t->wstatus) && WEXITSTATUS(t->wstatus))
		snprintf(ex, sizeof(ex), "%s exited with status %d", t->what,
			 WEXITSTATUS(t->wstatus));
	sep = filt[0] && (kept[0] || ex[0]) ? "; " : "";
	if (!t->cap.len && !t->killed) {
		reason(t, PM_ST_EMPTY, "%s%s%s%s%s", t->sink.filter ? "no line: " : "",
		       t->sink.filter ? "" : t->what, t->sink.filter ? filt : " is empty",
		       ex[0] ? "; " : "", ex);
		return;
	}
	if (t->killed)
		return; /* the timeout's reason stands */
	reason(t, omitted ? PM_ST_TRUNCATED : PM_ST_OK, "%s%s%s%s%s", kept,
	       kept[0] && ex[0] ? "; " : "", ex, sep, filt);
}

static void finish_cmd(struct run *r, struct task *t)
{
	char line[ERR_KEEP + 1];
	int code;

	t->err[t->errlen] = 0;
	first_line(t->err, t->errlen, line, sizeof(line));
	if (t->killed) {
		set_content(r, t);
		return;
	}
	if (WIFSIGNALED(t->wstatus)) {
		set_content(r, t);
		if (t->cap.status == PM_ST_EMPTY)
			reason(t, PM_ST_UNREADABLE, "%s was killed by signal %d", t->what,
			       WTERMSIG(t->wstatus));
		return;
	}
	code = WEXITSTATUS(t->wstatus);
	if (code == 127 || code == 126) {
		reason(t, code == 127 ? PM_ST_MISSING : PM_ST_DENIED, "%s%s%s",
		       code == 127 ? t->what : line,
		       code == 127 ? ": no such command on this node" : "",
		       code == 126 && !line[0] ? "cannot be executed" : "");
		free(t->cap.name);
		t->cap.name = NULL;
		return;
	}
	set_content(r, t);
	if (code && !t->cap.len) {
		reason(t, PM_ST_UNREADABLE, "%s exited with status %d%s%s", t->what, code,
		       line[0] ? ": " : "", line);
		free(t->cap.name);
		t->cap.name = NULL;
	}
}

/* The Prometheus child says how it went on its last stderr line (prom.h). */
static void finish_prom(struct run *r, struct task *t)
{
	enum pm_status st;
	char why[sizeof(t->cap.reason)];
	const char *last;

	t->err[t->errlen] = 0;
	set_content(r, t);
	if (t->killed)
		return; /* the timeout's reason stands; what it wrote so far is kept */
	last = t->errlen ? t->err : "";
	for (const char *p = t->err; p + 1 < t->err + t->errlen; p++)
		if (*p == '\n')
			last = p + 1;
	if (WIFSIGNALED(t->wstatus) ||
	    pm_prom_status(last, strlen(last), &st, why, sizeof(why)) < 0) {
		reason(t, PM_ST_UNREADABLE, "%s: the query process ended without a status",
		       t->what);
	} else if (t->cap.status != PM_ST_TRUNCATED || st != PM_ST_OK) {
		/* its own timeout came from the collector's deadline when that was first */
		t->cap.cut = st == PM_ST_TIMED_OUT && t->started + t->timeout > t->deadline + 1e-6;
		t->cap.status = st;
		snprintf(t->cap.reason, sizeof(t->cap.reason), "%.240s%s", why,
			 t->cap.cut ? " (the collector's deadline)" : "");
	}
	if (!t->cap.len) {
		free(t->cap.name);
		t->cap.name = NULL;
	}
}

/*
 * The reader child stopped decompressing a user's file (its bound in bytes or time, or
 * corrupt data) and said why in the last line it sent, after all of the file's text: that
 * reason leads the coverage reason, so that a cut bomb reads as one and not as a file kept
 * in part like any long log.
 */
static void decompression_note(struct task *t)
{
	static const char lead[] = "[postmortem: ";
	const char *d = t->cap.data, *end = d + t->cap.len, *p;
	char why[240] = "", rest[sizeof(t->cap.reason)];

	if (t->cap.len > sizeof(lead) && end[-1] == '\n') {
		for (p = end - 1; p > d && p[-1] != '\n'; p--)
			;
		if (!strncmp(p, lead, sizeof(lead) - 1) && end - p > (ptrdiff_t)sizeof(lead) &&
		    end[-2] == ']')
			snprintf(why, sizeof(why), "%.*s", (int)(end - 2 - p - (sizeof(lead) - 1)),
				 p + sizeof(lead) - 1);
	}
	if (!why[0])
		snprintf(why, sizeof(why), "the reader's note was not kept");
	snprintf(rest, sizeof(rest), "%s", t->cap.reason);
	reason(t, PM_ST_TRUNCATED, "%s%s%s%s",
	       strncmp(why, "decompression stopped", 21) ? "decompression stopped: " : "", why,
	       rest[0] ? "; " : "", rest);
}

static void finish_file(struct run *r, struct task *t)
{
	int code = WIFEXITED(t->wstatus) ? WEXITSTATUS(t->wstatus) : -1;
	char who[48] = "";

	if (t->as_uid != (uid_t)-1)
		snprintf(who, sizeof(who), " (read as uid %u)", (unsigned)t->as_uid);
	if (t->killed || code == PM_RX_OK || code == PM_RX_CUT) {
		set_content(r, t);
		if (code == PM_RX_CUT && !t->killed)
			decompression_note(t);
		return;
	}
	switch (code) {
	case PM_RX_NOENT:
		reason(t, PM_ST_MISSING, "%s: no such file%s", t->what, who);
		break;
	case PM_RX_ACCESS:
		reason(t, PM_ST_DENIED, "%s: permission denied%s", t->what, who);
		break;
	case PM_RX_LINK:
		reason(t, PM_ST_DENIED, "%s is a symbolic link: not followed%s", t->what, who);
		break;
	case PM_RX_NOTREG:
		reason(t, PM_ST_DENIED, "%s is not a regular file%s", t->what, who);
		break;
	case PM_RX_IDENT:
		reason(t, PM_ST_DENIED, "cannot become uid %u to read %s: not read",
		       (unsigned)t->as_uid, t->what);
		break;
	default:
		reason(t, PM_ST_UNREADABLE, "%s: read error", t->what);
		break;
	}
	free(t->cap.name);
	t->cap.name = NULL;
}

static void close_fds(struct task *t)
{
	if (t->fd >= 0)
		close(t->fd);
	if (t->efd >= 0)
		close(t->efd);
	t->fd = t->efd = -1;
}

static void finish(struct run *r, struct task *t)
{
	close_fds(t);
	t->cap.elapsed = pm_mono() - t->started;
	if (t->prom)
		finish_prom(r, t);
	else if (t->type == T_CMD)
		finish_cmd(r, t);
	else
		finish_file(r, t);
	sink_free(&t->sink);
	t->type = T_DONE;
}

static void kill_task(struct run *r, struct task *t, double now)
{
	char s[32];

	kill(-t->pid, SIGKILL);
	kill(t->pid, SIGKILL);
	close_fds(t);
	t->killed = true;
	t->cap.cut = stop_now || t->started + t->timeout > t->deadline + 1e-6;
	if (waitpid(t->pid, &t->wstatus, WNOHANG) == t->pid)
		t->reaped = true;
	snprintf(s, sizeof(s), "%.3g", t->cap.cut ? now - t->started : t->timeout);
	reason(t, PM_ST_TIMED_OUT, "%s did not answer in %s s%s", t->what, s,
	       t->cap.cut ? " (the collector's deadline)" : "");
	finish(r, t);
}

/* Read what is there on FD of T; 0 at end of file. */
static int drain(struct task *t, int fd)
{
	char buf[CHUNK];
	ssize_t n = read(fd, buf, sizeof(buf));
	char *p = buf;

	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 1 : 0;
	if (n == 0)
		return 0;
	if (fd == t->efd) {
		size_t k = (size_t)n < ERR_KEEP - t->errlen ? (size_t)n : ERR_KEEP - t->errlen;
		memcpy(t->err + t->errlen, buf, k);
		t->errlen += k;
		return 1;
	}
	if (t->hdrlen < sizeof(t->hdr)) {
		size_t k = sizeof(t->hdr) - t->hdrlen;
		if ((size_t)n < k)
			k = (size_t)n;
		memcpy((char *)&t->hdr + t->hdrlen, p, k);
		t->hdrlen += k;
		p += k;
		n -= (ssize_t)k;
		if (t->hdrlen == sizeof(t->hdr)) {
			t->sink.gap = t->hdr.gap;
			t->sink.unscanned = t->hdr.unscanned;
		}
	}
	if (n > 0)
		feed(&t->sink, p, (size_t)n);
	return 1;
}

static void run_loop(struct run *r)
{
	struct pollfd *pf = calloc(2 * r->nt + 1, sizeof(*pf));
	struct task **owner = calloc(2 * r->nt + 1, sizeof(*owner));

	if (!pf || !owner) {
		r->oom = true;
		r->deadline = 0; /* kill everything below */
	}
	for (;;) {
		double now = pm_mono(), next = r->deadline;
		size_t nfds = 0, active = 0;
		int ms;

		for (size_t i = 0; i < r->nt; i++) {
			struct task *t = r->t[i];

			if (t->type == T_DONE)
				continue;
			if (t->fd < 0 && t->efd < 0 && !t->reaped &&
			    waitpid(t->pid, &t->wstatus, WNOHANG) == t->pid)
				t->reaped = true;
			if (t->fd < 0 && t->efd < 0 && t->reaped) {
				finish(r, t);
				continue;
			}
			if (stop_now || now >= t->deadline || !pf) {
				kill_task(r, t, now);
				continue;
			}
			if (t->deadline < next)
				next = t->deadline;
			if (t->fd < 0 && t->efd < 0 && now + REAP_TICK < next)
				next = now + REAP_TICK;
			if (t->fd >= 0) {
				pf[nfds] = (struct pollfd){.fd = t->fd, .events = POLLIN};
				owner[nfds++] = t;
			}
			if (t->efd >= 0) {
				pf[nfds] = (struct pollfd){.fd = t->efd, .events = POLLIN};
				owner[nfds++] = t;
			}
			active++;
		}
		if (!active)
			break;
		ms = next > now ? (int)ceil((next - now) * 1000) : 0;
		if (poll(pf, nfds, ms) < 0)
			continue; /* EINTR: a SIGTERM is seen at the top */
		for (size_t i = 0; i < nfds; i++) {
			struct task *t = owner[i];

			if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (drain(t, pf[i].fd) == 0) {
				close(pf[i].fd);
				if (pf[i].fd == t->fd)
					t->fd = -1;
				else
					t->efd = -1;
			}
		}
	}
	free(pf);
	free(owner);
}

/* ---- the sources ---- */

struct source {
	enum pm_csource id;
	const char *kind; /* the engine's source kind of what it captures */
	const char *file; /* member name for a command's output */
	line_fn *filter;
	void (*plan)(struct run *r, const struct source *s);
};

static bool has_glob(const char *p)
{
	return strpbrk(p, "*?[") != NULL;
}

/* Epoch seconds as slurm's log stamps them: the local time, read as UTC (FORMATS.md). */
static double local_stamp(double t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!localtime_r(&tt, &tm))
		return t;
	return t + (double)tm.tm_gmtoff;
}

static void set_filter(struct run *r, const struct source *s, struct task *t)
{
	if (s->filter == in_window) {
		t->have_window = r->job->window_start > 0;
		t->f.w.start = t->have_window ? r->job->window_start - PM_WINDOW_MARGIN : 0;
		t->f.w.keep = true;
		t->f.w.ctx.boot_time = r->job->boot_time;
		t->f.w.ctx.year = 1970 + (int)(pm_now() / (365.2425 * 86400));
	} else if (s->filter == owns) {
		const struct pm_job *j = r->job;

		t->f.m.id = j->id;
		if (j->array_job && j->array_task)
			snprintf(t->f.m.array, sizeof(t->f.m.array), "%s_%s", j->array_job,
				 j->array_task);
		t->f.m.start =
			j->window_start > 0 ? local_stamp(j->window_start - PM_WINDOW_MARGIN) : 0;
	}
}

static void plan_file(struct run *r, const struct source *s, const char *path)
{
	const char *base = strrchr(path, '/');
	char name[256];
	struct task *t;
	line_fn *filter = s->filter;

	if (s->id == PM_CS_HOST_STATE) { /* /proc/pressure/io -> proc_pressure_io */
		snprintf(name, sizeof(name), "%s", path + (path[0] == '/'));
		for (char *p = name; *p; p++)
			if (*p == '/')
				*p = '_';
	} else {
		snprintf(name, sizeof(name), "%s", base ? base + 1 : path);
	}
	if (!(t = add(r, s->id, s->kind, name, path)))
		return;
	set_filter(r, s, t);
	if (filter == in_window && !t->have_window)
		filter = NULL; /* nothing to filter on: the file capped head and tail */
	start_file(r, t, path, r->cfg->src[s->id].cap, filter, false);
}

/* A command or paths from the configuration, with %n and %j expanded. */
static void plan_configured(struct run *r, const struct source *s)
{
	const struct pm_source_conf *sc = &r->cfg->src[s->id];
	struct task *t;
	char *x;

	if (sc->paths) {
		for (size_t i = 0; sc->paths[i]; i++) {
			glob_t g;

			if (!(x = pm_expand(sc->paths[i], r->job->node, r->job->id))) {
				r->oom = true;
				return;
			}
			if (!has_glob(x)) {
				plan_file(r, s, x);
			} else if (glob(x, 0, NULL, &g) == 0) {
				for (size_t k = 0; k < g.gl_pathc; k++)
					plan_file(r, s, g.gl_pathv[k]);
				globfree(&g);
			} else {
				note(r, s->id, PM_ST_MISSING, "%s matches no file", x);
			}
			free(x);
		}
		return;
	}
	if (!sc->command) {
		note(r, s->id, PM_ST_MISSING, "no command or path configured");
		return;
	}
	if (!(x = pm_expand(sc->command, r->job->node, r->job->id))) {
		r->oom = true;
		return;
	}
	if ((t = add(r, s->id, s->kind, s->file, x))) {
		line_fn *filter = s->filter;
		set_filter(r, s, t);
		if (filter == in_window && !t->have_window)
			filter = NULL;
		start_cmd(r, t, x, sc->cap, filter);
	}
	free(x);
}

static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The plugin's records: rankmap.<step>.jsonl, taskexit.<step>.jsonl, and its counters. */
static void plan_rank_map(struct run *r, const struct source *s)
{
	char *names[512], path[4096], buf[128];
	size_t n = 0, files = 0;
	unsigned long recs = 0, dropped = 0;
	struct dirent *e;
	DIR *d;
	FILE *f;

	if (!r->job->spool) {
		note(r, s->id, PM_ST_MISSING, "%s", r->job->spool_note);
		return;
	}
	if (!(d = opendir(r->job->spool))) {
		note(r, s->id, PM_ST_UNREADABLE, "%s: %s", r->job->spool, strerror(errno));
		return;
	}
	while ((e = readdir(d)) && n < sizeof(names) / sizeof(names[0]))
		if ((!strncmp(e->d_name, "rankmap.", 8) || !strncmp(e->d_name, "taskexit.", 9)) &&
		    (names[n] = strdup(e->d_name)))
			n++;
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmpstr);
	for (size_t i = 0; i < n; i++) {
		struct task *t;
		const char *kind = names[i][0] == 'r' ? "rank_map" : "task_exit";

		snprintf(path, sizeof(path), "%s/%s", r->job->spool, names[i]);
		if ((t = add(r, s->id, kind, names[i], path))) {
			start_file(r, t, path, r->cfg->src[s->id].cap, NULL, false);
			files++;
		}
		free(names[i]);
	}
	snprintf(path, sizeof(path), "%s/count", r->job->spool);
	if ((f = fopen(path, "re"))) {
		while (fgets(buf, sizeof(buf), f)) {
			sscanf(buf, "records %lu", &recs);
			sscanf(buf, "dropped %lu", &dropped);
		}
		fclose(f);
	}
	if (dropped)
		note(r, s->id, PM_ST_TRUNCATED,
		     "the plugin dropped %lu of %lu records on this node (max_records)", dropped,
		     recs + dropped);
	if (!files)
		note(r, s->id, PM_ST_EMPTY, "the plugin recorded no task on this node");
}

static void plan_user_file(struct run *r, const struct source *s, const char *path,
			   const char *name)
{
	struct task *t;

	if (!(t = add(r, s->id, s->kind, name, path)))
		return;
	if (r->job->uid == (uid_t)-1 || r->job->gid == (gid_t)-1) {
		reason(t, PM_ST_DENIED, "%s: the job's uid is unknown, so it is not read", path);
		free(t->cap.name);
		t->cap.name = NULL;
		return;
	}
	t->cap.rank = pm_path_rank(path);
	start_file(r, t, path, r->cfg->src[s->id].cap, NULL, true);
}

/* The --postmortem-logs paths the plugin wrote to <spool>/<job>/logs. */
static void plan_user_logs(struct run *r, const struct source *s)
{
	char path[4096], line[4200], name[128];
	unsigned n = 0;
	FILE *f;

	if (!r->job->spool) {
		note(r, s->id, PM_ST_MISSING, "%s", r->job->spool_note);
		return;
	}
	snprintf(path, sizeof(path), "%s/logs", r->job->spool);
	if (!(f = fopen(path, "re"))) {
		note(r, s->id, PM_ST_OK, "the job named no --postmortem-logs files");
		return;
	}
	while (fgets(line, sizeof(line), f) && n < 64) {
		const char *base;

		line[strcspn(line, "\n")] = 0;
		if (line[0] != '/')
			continue;
		base = strrchr(line, '/') + 1;
		snprintf(name, sizeof(name), "%u-%s", n++, *base ? base : "log");
		plan_user_file(r, s, line, name);
	}
	fclose(f);
	if (!n)
		note(r, s->id, PM_ST_OK, "the job named no --postmortem-logs files");
}

/* The job name for %x: `scontrol show job` when no environment has it. */
static char *job_name(struct run *r)
{
	struct pm_capture c;
	char cmd[96];
	char *p, *name = NULL;
	double left = r->deadline - pm_mono();

	snprintf(cmd, sizeof(cmd), "scontrol show job %s", r->job->id);
	if (left <= 0 ||
	    pm_run_command(cmd, left < LOOKUP_TIMEOUT ? left : LOOKUP_TIMEOUT, 65536, &c) < 0)
		return NULL;
	if (c.data && (p = strstr(c.data, "JobName="))) {
		size_t n;
		p += 8;
		n = strcspn(p, "\n");
		/* JobName may hold spaces; the next field is " UserId=" on the same line */
		for (char *q = p; q < p + n; q++)
			if (!strncmp(q, " UserId=", 8)) {
				n = (size_t)(q - p);
				break;
			}
		name = strndup(p, n);
	}
	free(c.data);
	free(c.name);
	free(c.origin);
	return name;
}

static void plan_job_output(struct run *r, const struct source *s)
{
	struct pm_job j = *r->job; /* shallow: only the name may be filled in */
	const char *po = j.std_out, *pe = j.std_err;
	char *out = NULL, *err = NULL, *looked = NULL, why[256];
	int batch = pm_job_batch_node(&j);

	if (batch == 0) {
		note(r, s->id, PM_ST_MISSING, "read on the node that ran the batch script");
		return;
	}
	if (!po && batch == 1)
		po = j.array_job ? "slurm-%A_%a.out" : "slurm-%j.out";
	if (!po) {
		note(r, s->id, PM_ST_MISSING,
		     "no output file (SLURM_JOB_STDOUT unset: not a batch job?)");
		return;
	}
	if (!pe)
		pe = po;
	if (!j.name && (strstr(po, "%x") || strstr(pe, "%x")))
		j.name = looked = job_name(r);
	if (!(out = pm_slurm_pattern(po, &j, why, sizeof(why))))
		note(r, s->id, PM_ST_MISSING, "%s", why);
	else if (!(err = pm_slurm_pattern(pe, &j, why, sizeof(why))))
		note(r, s->id, PM_ST_MISSING, "stderr: %s", why);
	if (out)
		plan_user_file(r, s, out, "stdout");
	if (out && err && strcmp(out, err))
		plan_user_file(r, s, err, "stderr");
	free(out);
	free(err);
	free(looked);
}

static int prom_child(struct run *r, struct task *t)
{
	double start, end;

	pm_prom_window(r->cfg, r->job, &start, &end);
	return pm_prom_collect(r->cfg, r->job, start, end, t->deadline, 1, 2);
}

/* The configured Prometheus, asked by a child of its own (prom.c). */
static void plan_prometheus(struct run *r, const struct source *s)
{
	char shown[100];
	struct task *t;

	if (!r->cfg->prom.url) {
		note(r, s->id, PM_ST_MISSING, "no prometheus url configured");
		return;
	}
	pm_http_display(r->cfg->prom.url, shown, sizeof(shown));
	if (!(t = add(r, s->id, s->kind, s->file, shown)))
		return;
	snprintf(t->what, sizeof(t->what), "prometheus at %s", shown);
	t->prom = true;
	/* the sink keeps a little more than the child writes: it never cuts a line */
	start_child(r, t, "prometheus", prom_child, r->cfg->src[s->id].cap + 4096, NULL);
}

static const struct source src_job_output = {
	PM_CS_JOB_OUTPUT, "app_log", NULL, NULL, plan_job_output,
};
static const struct source src_user_logs = {
	PM_CS_USER_LOGS, "app_log", NULL, NULL, plan_user_logs,
};
static const struct source src_rank_map = {
	PM_CS_RANK_MAP, "rank_map", NULL, NULL, plan_rank_map,
};
static const struct source src_kernel_log = {
	PM_CS_KERNEL_LOG, "kernel_log", "kernel.log", in_window, plan_configured,
};
static const struct source src_gpu_state = {
	PM_CS_GPU_STATE, "gpu_state", "nvidia-smi-q.txt", NULL, plan_configured,
};
static const struct source src_gpu_csv = {
	PM_CS_GPU_CSV, "gpu_state", "nvidia-smi-query.csv", NULL, plan_configured,
};
static const struct source src_host_state = {
	PM_CS_HOST_STATE, "node_metrics", "host_state.txt", NULL, plan_configured,
};
static const struct source src_slurmd_log = {
	PM_CS_SLURMD_LOG, "scheduler", "slurmd.log", owns, plan_configured,
};
static const struct source src_prometheus = {
	PM_CS_PROMETHEUS, "node_metrics", "prometheus.jsonl", NULL, plan_prometheus,
};

/* Started in this order: the job's output last, as it may first ask scontrol for %x. */
static const struct source *const sources[PM_CS__COUNT] = {
	&src_rank_map,	 &src_prometheus, &src_kernel_log, &src_gpu_state,  &src_gpu_csv,
	&src_host_state, &src_slurmd_log, &src_user_logs,  &src_job_output,
};

/* ---- results ---- */

static void coverage(struct run *r, struct pm_collection *c)
{
	for (int s = 0; s < PM_CS__COUNT; s++) {
		struct pm_coverage *cv = &c->cov[s];
		const struct task *worst = NULL;
		size_t n = 0;

		if (!r->cfg->src[s].enabled) {
			cv->status = PM_ST_MISSING;
			snprintf(cv->reason, sizeof(cv->reason), "%s",
				 s == PM_CS_PROMETHEUS && !r->cfg->prom.url ?
					 "not configured (prometheus: url)" :
					 "disabled in the configuration");
			continue;
		}
		for (size_t i = 0; i < r->nt; i++) {
			const struct task *t = r->t[i];

			if ((int)t->cap.src != s)
				continue;
			n++;
			cv->files += t->cap.name != NULL;
			cv->cut |= t->cap.cut;
			if (t->cap.elapsed > cv->elapsed)
				cv->elapsed = t->cap.elapsed;
			if (!worst || pm_status_severity(t->cap.status) >
					      pm_status_severity(worst->cap.status))
				worst = t;
		}
		if (!worst) {
			cv->status = PM_ST_MISSING;
			snprintf(cv->reason, sizeof(cv->reason), "nothing to collect");
			continue;
		}
		cv->status = worst->cap.status;
		if (n > 1 && cv->status != PM_ST_OK)
			snprintf(cv->reason, sizeof(cv->reason), "%s (%u of %zu kept)",
				 worst->cap.reason, cv->files, n);
		else
			snprintf(cv->reason, sizeof(cv->reason), "%s", worst->cap.reason);
		c->deadline_hit |= cv->cut;
	}
}

static void free_tasks(struct run *r)
{
	for (size_t i = 0; i < r->nt; i++) {
		struct task *t = r->t[i];
		sink_free(&t->sink);
		free(t->cap.name);
		free(t->cap.origin);
		free(t->cap.data);
		free(t);
	}
	free(r->t);
	r->t = NULL;
	r->nt = 0;
}

/* Reap what was killed: a child stuck in the kernel is left behind, not waited for. */
static void reap(struct run *r)
{
	double until = pm_mono() + 0.2;
	bool left;

	do {
		left = false;
		for (size_t i = 0; i < r->nt; i++) {
			struct task *t = r->t[i];
			if (t->pid > 0 && !t->reaped) {
				if (waitpid(t->pid, NULL, WNOHANG) != 0)
					t->reaped = true;
				else
					left = true;
			}
		}
		if (left)
			usleep(5000);
	} while (left && pm_mono() < until);
}

int pm_collect(const struct pm_config *cfg, const struct pm_job *j, double deadline,
	       struct pm_collection *c)
{
	struct run r = {.cfg = cfg, .job = j, .deadline = deadline};

	memset(c, 0, sizeof(*c));
	c->start = pm_now();
	for (int i = 0; i < PM_CS__COUNT; i++)
		if (cfg->src[sources[i]->id].enabled && !stop_now)
			sources[i]->plan(&r, sources[i]);
	run_loop(&r);
	reap(&r);
	c->end = pm_now();
	if (r.oom) {
		free_tasks(&r);
		errno = ENOMEM;
		return -1;
	}
	coverage(&r, c);
	c->deadline_hit |= stop_now != 0;
	if (!(c->caps = calloc(r.nt ? r.nt : 1, sizeof(*c->caps)))) {
		free_tasks(&r);
		errno = ENOMEM;
		return -1;
	}
	for (size_t i = 0; i < r.nt; i++) {
		c->caps[c->ncaps++] = r.t[i]->cap;
		memset(&r.t[i]->cap, 0, sizeof(r.t[i]->cap));
	}
	free_tasks(&r);
	return 0;
}

void pm_collection_free(struct pm_collection *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->ncaps; i++) {
		free(c->caps[i].name);
		free(c->caps[i].origin);
		free(c->caps[i].data);
		free(c->caps[i].carry);
	}
	free(c->caps);
	memset(c, 0, sizeof(*c));
}

int pm_run_command(const char *cmd, double timeout, uint64_t cap, struct pm_capture *out)
{
	struct pm_config cfg = {0};
	struct pm_job j = {0};
	struct run r = {.cfg = &cfg, .job = &j, .deadline = pm_mono() + timeout};
	struct task *t;

	cfg.src[PM_CS_GPU_STATE].timeout = timeout;
	memset(out, 0, sizeof(*out));
	if (!(t = add(&r, PM_CS_GPU_STATE, "app_log", "output", cmd))) {
		free_tasks(&r);
		errno = ENOMEM;
		return -1;
	}
	start_cmd(&r, t, cmd, cap, NULL);
	if (t->type == T_DONE) {
		free_tasks(&r);
		errno = ECHILD;
		return -1;
	}
	run_loop(&r);
	reap(&r);
	*out = t->cap;
	memset(&t->cap, 0, sizeof(t->cap));
	free_tasks(&r);
	return 0;
}
