/*
 * ledger_chain.c - the decision ledger's tamper evidence: an append-only file of JSON lines,
 * each entry holding the sha256 of the line before it (prev) and of itself without its hash
 * (hash).  Editing an entry breaks its hash; removing one breaks the next entry's prev and
 * the seq count; rewriting the whole file consistently is caught by the heads recorded
 * outside it: in syslog on every append, and in a head file only root can write.
 *
 * Appends take an fcntl write lock on the ledger (operators append from several hosts; NFS
 * passes such locks to its lock manager), so seq and prev are never taken twice.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "pmutil.h"
#include "store.h"

#define TAIL_MAX (1u << 20)   /* the last entry is found within the file's last MiB */
#define LEDGER_MAX (1u << 30) /* verify reads the whole ledger */
#define LOCK_WAIT 10.0	      /* seconds */
#define MARK "postmortem-ledger head seq="

const char *cli_ledger_fault_name(enum cli_ledger_fault f)
{
	static const char *const names[] = {
		[CLI_LEDGER_OK] = "ok",
		[CLI_LEDGER_EDITED] = "edited",
		[CLI_LEDGER_BROKEN] = "broken_chain",
		[CLI_LEDGER_SEQ] = "removed",
		[CLI_LEDGER_GARBAGE] = "not_an_entry",
		[CLI_LEDGER_HEAD] = "rewritten",
		[CLI_LEDGER_TRUNCATED] = "truncated",
	};
	return (unsigned)f < sizeof(names) / sizeof(names[0]) ? names[f] : "?";
}

static char *canon(const json_t *o)
{
	return json_dumps(o, JSON_SORT_KEYS | JSON_COMPACT | JSON_ENSURE_ASCII);
}

void cli_ledger_line_hash(const char *line, size_t len, char *out)
{
	pm_sha256_buf(line, len, out);
}

/* sha256 of the entry's canonical form without "hash".  0 or -1 (ENOMEM). */
static int entry_hash(const json_t *e, char *out)
{
	json_t *c = json_copy((json_t *)e);
	char *s;

	if (!c)
		return -1;
	json_object_del(c, "hash");
	s = canon(c);
	json_decref(c);
	if (!s)
		return -1;
	pm_sha256_buf(s, strlen(s), out);
	free(s);
	return 0;
}

/* Check one line on its own.  CLI_LEDGER_OK with *OBJ (the caller's), or the fault and WHAT. */
static enum cli_ledger_fault check_line(const char *line, size_t len, json_t **obj, char *what,
					size_t wl)
{
	json_t *o = json_loadb(line, len, JSON_REJECT_DUPLICATES, NULL);
	char want[80], *c = NULL;
	enum cli_ledger_fault f = CLI_LEDGER_GARBAGE;

	*obj = NULL;
	if (!json_is_object(o) || !json_is_integer(json_object_get(o, "seq")) ||
	    !json_is_string(json_object_get(o, "hash")) ||
	    !json_is_string(json_object_get(o, "prev"))) {
		snprintf(what, wl, "not a ledger entry (no seq, prev and hash)");
		goto out;
	}
	f = CLI_LEDGER_EDITED;
	if (!(c = canon(o)) || strlen(c) != len || memcmp(c, line, len)) {
		snprintf(what, wl, "not as it was written (edited or re-formatted)");
		goto out;
	}
	if (entry_hash(o, want) < 0 ||
	    strcmp(want, json_string_value(json_object_get(o, "hash")))) {
		snprintf(what, wl, "its content does not match its hash: edited");
		goto out;
	}
	f = CLI_LEDGER_OK;
	*obj = json_incref(o);
out:
	free(c);
	json_decref(o);
	return f;
}

/* ---- appending ---- */

static int lock(int fd)
{
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	struct timespec nap = {0, 50 * 1000 * 1000};

	for (int i = 0; i < (int)(LOCK_WAIT / 0.05); i++) {
		if (fcntl(fd, F_SETLK, &fl) == 0)
			return 0;
		if (errno != EAGAIN && errno != EACCES && errno != EINTR)
			return -1;
		nanosleep(&nap, NULL);
	}
	errno = ETIMEDOUT;
	return -1;
}

/* The last line of the ledger open at FD: *SEQ and its hash into PREV (genesis when empty). */
static int last_entry(int fd, long long *seq, char *prev, char *err, size_t errlen)
{
	struct stat st;
	size_t n;
	char *buf, *start, what[160];
	json_t *o;
	enum cli_ledger_fault f;

	*seq = 0;
	snprintf(prev, 80, "%s", CLI_LEDGER_GENESIS);
	if (fstat(fd, &st) < 0)
		return pmu_fail(err, errlen, errno, "%s", strerror(errno));
	if (st.st_size == 0)
		return 0;
	n = (uint64_t)st.st_size < TAIL_MAX ? (size_t)st.st_size : TAIL_MAX;
	if (!(buf = malloc(n + 1)))
		return pmu_fail(err, errlen, ENOMEM, "out of memory");
	if (pread(fd, buf, n, st.st_size - (off_t)n) != (ssize_t)n) {
		free(buf);
		return pmu_fail(err, errlen, EIO, "cannot read the ledger's end");
	}
	buf[n] = '\0';
	if (buf[n - 1] != '\n') {
		free(buf);
		return pmu_fail(err, errlen, EBADMSG,
				"the ledger ends in a partial line; run `postmortem ledger verify`");
	}
	buf[n - 1] = '\0';
	start = strrchr(buf, '\n');
	if (!start && n < (size_t)st.st_size) {
		free(buf);
		return pmu_fail(err, errlen, EBADMSG,
				"the ledger's last line is longer than 1 MiB");
	}
	start = start ? start + 1 : buf;
	f = check_line(start, strlen(start), &o, what, sizeof(what));
	if (f != CLI_LEDGER_OK) {
		free(buf);
		return pmu_fail(err, errlen, EBADMSG,
				"the ledger's last entry does not verify (%s); nothing appended: run "
				"`postmortem ledger verify`",
				what);
	}
	*seq = (long long)json_integer_value(json_object_get(o, "seq"));
	cli_ledger_line_hash(start, strlen(start), prev);
	json_decref(o);
	free(buf);
	return 0;
}

/* The head file: written whole (temporary file and rename), root's, readable by all. */
static int write_head(const char *head, long long seq, const char *sha, const char *when)
{
	char tmp[PATH_MAX + 32], text[256];
	int fd, n;

	n = snprintf(text, sizeof(text), "seq=%lld sha256=%s time=%s\n", seq, sha + 7, when);
	if (snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", head, (long)getpid()) >= (int)sizeof(tmp))
		return -1;
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644)) < 0)
		return -1;
	if (fchown(fd, 0, 0) < 0 || fchmod(fd, 0644) < 0 ||
	    pmu_write_all(fd, text, (size_t)n) < 0 || fsync(fd) < 0 || close(fd) < 0 ||
	    rename(tmp, head) < 0) {
		int e = errno;
		close(fd);
		unlink(tmp);
		errno = e;
		return -1;
	}
	return 0;
}

int cli_ledger_append(const char *ledger, const char *head, json_t *entry, double now,
		      bool *head_written, char *err, size_t errlen)
{
	char prev[80], hash[80], line_sha[80], when[32], *line = NULL, real[PATH_MAX];
	long long seq;
	int fd, rc = -1;

	if (head_written)
		*head_written = false;
	if ((fd = open(ledger, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0660)) < 0)
		return pmu_fail(err, errlen, errno, "%s: %s", ledger, strerror(errno));
	if (lock(fd) < 0) {
		pmu_fail(err, errlen, errno, "%s: cannot lock: %s", ledger, strerror(errno));
		goto out;
	}
	if (last_entry(fd, &seq, prev, err, errlen) < 0)
		goto out;
	pmu_iso(now, when, sizeof(when), "?");
	json_object_del(entry, "hash");
	json_object_set_new(entry, "schema", json_string(CLI_LEDGER_SCHEMA));
	json_object_set_new(entry, "seq", json_integer(seq + 1));
	json_object_set_new(entry, "time", json_string(when));
	json_object_set_new(entry, "prev", json_string(prev));
	if (entry_hash(entry, hash) < 0)
		goto nomem;
	json_object_set_new(entry, "hash", json_string(hash));
	if (!(line = canon(entry)))
		goto nomem;
	cli_ledger_line_hash(line, strlen(line), line_sha);
	{
		size_t n = strlen(line);
		line[n] = '\n'; /* canon's NUL: the line goes out with its newline in one write */
		if (pmu_write_all(fd, line, n + 1) < 0 || fsync(fd) < 0) {
			pmu_fail(err, errlen, errno, "%s: %s", ledger, strerror(errno));
			goto out;
		}
		line[n] = '\0';
	}
	if (!realpath(ledger, real))
		snprintf(real, sizeof(real), "%s", ledger);
	openlog("postmortem", LOG_PID, LOG_USER);
	syslog(LOG_INFO, MARK "%lld sha256=%s ledger=%s", seq + 1, line_sha + 7, real);
	closelog();
	if (head && geteuid() == 0 && write_head(head, seq + 1, line_sha, when) == 0 &&
	    head_written)
		*head_written = true;
	rc = 0;
	goto out;
nomem:
	pmu_fail(err, errlen, ENOMEM, "out of memory");
out:
	free(line);
	close(fd); /* lets go of the lock */
	return rc;
}

int cli_ledger_seal(const char *ledger, const char *head, long long *seq, char *err, size_t errlen)
{
	char sha[80], when[32];
	int fd, rc = -1;

	if (geteuid() != 0)
		return pmu_fail(err, errlen, EPERM, "only root records the ledger's head");
	if ((fd = open(ledger, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return pmu_fail(err, errlen, errno, "%s: %s", ledger, strerror(errno));
	if (last_entry(fd, seq, sha, err, errlen) == 0) {
		pmu_iso((double)time(NULL), when, sizeof(when), "?");
		if (*seq == 0)
			pmu_fail(err, errlen, ENODATA, "%s: the ledger is empty", ledger);
		else if (write_head(head, *seq, sha, when) < 0)
			pmu_fail(err, errlen, errno, "%s: %s", head, strerror(errno));
		else
			rc = 0;
	}
	close(fd);
	return rc;
}

/* ---- reading and verifying ---- */

json_t *cli_ledger_load(const char *ledger, char *err, size_t errlen)
{
	char *buf;
	size_t len;
	json_t *a = json_array();

	if (!a)
		return NULL;
	if (cli_read_file(ledger, LEDGER_MAX, &buf, &len) < 0) {
		if (errno == ENOENT)
			return a;
		pmu_fail(err, errlen, errno, "%s: %s", ledger, strerror(errno));
		json_decref(a);
		return NULL;
	}
	for (char *p = buf, *nl; p < buf + len; p = nl + 1) {
		json_t *o;
		if (!(nl = memchr(p, '\n', (size_t)(buf + len - p))))
			nl = buf + len;
		if (nl > p && (o = json_loadb(p, (size_t)(nl - p), 0, NULL)) && json_is_object(o))
			json_array_append_new(a, o);
		else if (nl > p)
			json_decref(o);
	}
	free(buf);
	return a;
}

struct line {
	long long seq; /* -1 unparsed */
	char sha[80];
	char time[32];
};

static void problem(struct cli_ledger_check *r, long long seq, size_t lineno,
		    enum cli_ledger_fault f, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void problem(struct cli_ledger_check *r, long long seq, size_t lineno,
		    enum cli_ledger_fault f, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	json_array_append_new(r->problems,
			      json_pack("{s:o,s:o,s:s,s:s}", "seq",
					seq >= 0 ? json_integer(seq) : json_null(), "line",
					lineno ? json_integer((json_int_t)lineno) : json_null(),
					"fault", cli_ledger_fault_name(f), "what", what));
	r->faults++;
}

static const struct line *at_seq(const struct line *l, size_t n, long long seq)
{
	for (size_t i = 0; i < n; i++)
		if (l[i].seq == seq)
			return &l[i];
	return NULL;
}

/* A recorded head (from the head file or syslog) against the chain. */
static void check_head(struct cli_ledger_check *r, const struct line *l, size_t n, long long seq,
		       const char *sha, const char *where)
{
	long long last = n ? l[n - 1].seq : 0;
	const struct line *x = at_seq(l, n, seq);
	char want[80];

	snprintf(want, sizeof(want), "sha256:%s", sha);
	if (seq > last)
		problem(r, seq, 0, CLI_LEDGER_TRUNCATED,
			"%s recorded the head at seq %lld, but the ledger ends at seq %lld: "
			"entries %lld..%lld were removed",
			where, seq, last, last + 1, seq);
	else if (!x)
		problem(r, seq, 0, CLI_LEDGER_HEAD,
			"%s recorded a head at seq %lld, which the ledger does not have", where,
			seq);
	else if (strcmp(x->sha, want))
		problem(r, seq, 0, CLI_LEDGER_HEAD,
			"entry seq %lld is not the one %s recorded as the head: the ledger was "
			"rewritten up to there",
			seq, where);
}

static void check_head_file(struct cli_ledger_check *r, const char *head, const struct line *l,
			    size_t n)
{
	char *buf, sha[80], when[40] = "?";
	long long seq;
	struct stat st;

	if (!head)
		return;
	if (cli_read_file(head, 4096, &buf, NULL) < 0) {
		json_array_append_new(r->notes, json_sprintf("no head file %s (%s): the chain is "
							     "checked, a whole rewrite is not",
							     head, strerror(errno)));
		return;
	}
	if (sscanf(buf, "seq=%lld sha256=%70s time=%39s", &seq, sha, when) < 2 || seq < 0) {
		problem(r, -1, 0, CLI_LEDGER_HEAD, "the head file %s cannot be read as a head",
			head);
	} else {
		char where[600];
		snprintf(where, sizeof(where), "the head file (%s)", when);
		r->head_seq = seq;
		check_head(r, l, n, seq, sha, where);
		if (n && seq < l[n - 1].seq)
			json_array_append_new(
				r->notes,
				json_sprintf(
					"entries after seq %lld were appended by non-root users: "
					"syslog holds their heads",
					seq));
	}
	if (stat(head, &st) == 0 && (st.st_uid != 0 || (st.st_mode & 022)))
		json_array_append_new(r->notes,
				      json_sprintf("the head file %s can be written by others than "
						   "root: it proves little",
						   head));
	free(buf);
}

static void check_log(struct cli_ledger_check *r, const char *log, const char *ledger,
		      const struct line *l, size_t n)
{
	char *buf, real[PATH_MAX];
	size_t len;

	if (!log)
		return;
	if (cli_read_file(log, LEDGER_MAX, &buf, &len) < 0) {
		json_array_append_new(r->notes, json_sprintf("%s: %s", log, strerror(errno)));
		return;
	}
	if (!realpath(ledger, real))
		snprintf(real, sizeof(real), "%s", ledger);
	for (char *p = buf; (p = strstr(p, MARK)); p++) {
		char sha[80] = "", path[PATH_MAX] = "", *eol = strchr(p, '\n');
		long long seq;
		int got;

		if (eol)
			*eol = '\0';
		got = sscanf(p, MARK "%lld sha256=%70s ledger=%4095s", &seq, sha, path);
		if (got >= 2 && (got < 3 || !strcmp(path, real))) {
			r->log_heads++;
			if (seq > r->log_max)
				r->log_max = seq;
			check_head(r, l, n, seq, sha, "syslog");
		}
		if (!eol)
			break;
		p = eol;
	}
	free(buf);
}

int cli_ledger_verify(const char *ledger, const char *head, const char *log,
		      struct cli_ledger_check *r, char *err, size_t errlen)
{
	char *buf = NULL, what[200];
	size_t len = 0, n = 0, lineno = 0;
	struct line *l = NULL;
	long long last = 0;

	memset(r, 0, sizeof(*r));
	r->head_seq = r->log_max = -1;
	r->problems = json_array();
	r->notes = json_array();
	if (!r->problems || !r->notes)
		return pmu_fail(err, errlen, ENOMEM, "out of memory");
	if (cli_read_file(ledger, LEDGER_MAX, &buf, &len) < 0 && errno != ENOENT)
		return pmu_fail(err, errlen, errno, "%s: %s", ledger, strerror(errno));
	for (char *p = buf; p && p < buf + len; p++) {
		char *nl = memchr(p, '\n', (size_t)(buf + len - p)), prev[80];
		json_t *o;
		enum cli_ledger_fault f;
		struct line *x;

		lineno++;
		if (!nl) {
			problem(r, -1, lineno, CLI_LEDGER_GARBAGE, "a partial last line");
			break;
		}
		if (!(x = realloc(l, (n + 1) * sizeof(*l)))) {
			free(buf);
			free(l);
			return pmu_fail(err, errlen, ENOMEM, "out of memory");
		}
		l = x;
		x = &l[n];
		x->seq = -1;
		x->time[0] = '\0';
		cli_ledger_line_hash(p, (size_t)(nl - p), x->sha);
		snprintf(prev, sizeof(prev), "%s", n ? l[n - 1].sha : CLI_LEDGER_GENESIS);
		f = check_line(p, (size_t)(nl - p), &o, what, sizeof(what));
		if (f != CLI_LEDGER_OK) {
			problem(r, -1, lineno, f, "%s", what);
			last++;
		} else {
			long long seq = (long long)json_integer_value(json_object_get(o, "seq"));
			x->seq = seq;
			snprintf(x->time, sizeof(x->time), "%s",
				 json_string_value(json_object_get(o, "time")) ?
					 json_string_value(json_object_get(o, "time")) :
					 "");
			if (seq > last + 1)
				problem(r, seq, lineno, CLI_LEDGER_SEQ,
					"entries %lld..%lld are missing before it: removed",
					last + 1, seq - 1);
			else if (seq <= last)
				problem(r, seq, lineno, CLI_LEDGER_SEQ,
					"seq %lld repeats or goes back (after %lld)", seq, last);
			else if (strcmp(prev, json_string_value(json_object_get(o, "prev"))))
				problem(r, seq, lineno, CLI_LEDGER_BROKEN,
					"does not follow the line before it (seq %lld): that entry "
					"was changed and re-hashed, or replaced",
					last);
			last = seq;
			json_decref(o);
		}
		n++;
		p = nl;
	}
	r->entries = n;
	check_head_file(r, head, l, n);
	check_log(r, log, ledger, l, n);
	free(buf);
	free(l);
	return r->faults ? 1 : 0;
}
