/*
 * prefix.c - the rank and host prefixes of log lines, ranks in file names, the reader that
 * peels any stack of wrappers off a line of job output (pm_peel; READING.md), and the event
 * time of a line (pm_time_parse), read past those with timeparse.c's stamp readers.
 *
 * Which prefixes apply depends on the format: one handler per format in a table, and for
 * the job's output one recognizer per wrapper family in another.  Everything looks at a
 * bounded head of the line only, so a 1 MB line costs what a short one does.
 */
#include <string.h>
#include <strings.h>

#include "input.h"
#include "internal.h"

#define MAX_RANK 9999999 /* 7 digits: more is not a rank */
#define MAX_HOST 255

/* A number of 1..7 digits at S; its length, or 0. */
static size_t rank_at(const char *s, size_t n, int *rank)
{
	size_t i = 0;
	int v = 0;

	while (i < n && i < 8 && pm_in_isdigit(s[i]))
		v = v * 10 + (s[i++] - '0');
	if (i == 0 || i > 7)
		return 0;
	*rank = v;
	return i;
}

bool pm_prefix_runtime_id(const char *s, size_t n)
{
	static const char head[] = "ALLOCATE: ";
	size_t p = sizeof(head) - 1, d = p;

	if (!pm_in_starts(s, n, head))
		return false;
	while (p < n && p - d < 20 && pm_in_isdigit(s[p]))
		p++;
	return p > d && pm_in_starts(s + p, n - p, " bytes requested;");
}

/* srun --label: "3: ", right-aligned " 3: " as srun pads to the widest task id.  Not a
 * number whose text is a runtime's own message (pm_prefix_runtime_id): NVHPC's Fortran
 * runtime prints "0: ALLOCATE: ..." itself, a number that is no task's, so srun's label, when
 * there is one, stands before it ("2: 0: ALLOCATE: ..."). */
static size_t srun_label(const char *s, size_t n, int *rank)
{
	size_t p = 0, k;
	int r;

	while (p < n && p < 8 && s[p] == ' ')
		p++;
	k = rank_at(s + p, n - p, &r);
	if (!k)
		return 0;
	p += k;
	if (p + 1 >= n || s[p] != ':' || s[p + 1] != ' ' ||
	    pm_prefix_runtime_id(s + p + 2, n - p - 2))
		return 0;
	*rank = r;
	return p + 2;
}

/* "[rank3]:" or torchrun's "[default3]:", with one optional space after. */
static size_t bracket_rank(const char *s, size_t n, const char *word, int *rank)
{
	size_t w = strlen(word), p, k;

	if (n < w + 4 || s[0] != '[' || memcmp(s + 1, word, w) != 0)
		return 0;
	p = 1 + w;
	k = rank_at(s + p, n - p, rank);
	if (!k)
		return 0;
	p += k;
	if (p + 1 >= n || s[p] != ']' || s[p + 1] != ':')
		return 0;
	p += 2;
	if (p < n && s[p] == ' ')
		p++;
	return p;
}

/* "[Rank 3] ", "[RANK 3]: ", "[rank 3] " at S, or where BARE is true "rank 3: ", "RANK 3: "
 * (the colon required): its length with the blank after it, 0 when S has none.  Bracketed,
 * the blank before the number may be missing: a logger's "[rank3] " or "[RANK3] " without
 * the colon of PyTorch's own "[rank3]:" (which bracket_rank reads, and which is not weak).
 * Where SPACED is false, only that compact form: c10d's process-group "[Rank 7]" has the
 * blank. */
static size_t spaced_rank(const char *s, size_t n, bool bare, bool spaced, int *rank)
{
	size_t b = s[0] == '[', p, k;

	if (n < b + 7 || (!b && !bare) || !pm_in_ieq(s + b, 4, "rank"))
		return 0;
	p = b + 4 + (s[b + 4] == ' ');
	if (n < p + 3 || (p == b + 4 && !b) || (p > b + 4 && !spaced) ||
	    !(k = rank_at(s + p, n - p, rank)))
		return 0;
	p += k;
	if (b && p < n && s[p] == ']')
		p++;
	else if (b)
		return 0;
	if (p < n && s[p] == ':')
		p++;
	else if (!b)
		return 0;
	if (p < n && s[p] != ' ' && s[p] != '\t')
		return 0;
	return p + (p < n);
}

static bool host_char(char c)
{
	return pm_in_isalnum(c) || c == '-' || c == '_' || c == '.';
}

/* A host name at S ending at a byte in STOPS; its length, or 0.  Not all digits. */
static size_t host_at(const char *s, size_t n, char stop)
{
	size_t i = 0;
	bool alpha = false;

	while (i < n && i <= MAX_HOST && host_char(s[i])) {
		alpha |= !pm_in_isdigit(s[i]);
		i++;
	}
	if (i == 0 || i > MAX_HOST || !alpha || i >= n || s[i] != stop)
		return 0;
	return i;
}

/* Digits 1..10 long at S followed by STOP; bytes including STOP, or 0. */
static size_t num_then(const char *s, size_t n, char stop)
{
	size_t i = 0;

	while (i < n && i < 11 && pm_in_isdigit(s[i]))
		i++;
	if (i == 0 || i > 10 || i >= n || s[i] != stop)
		return 0;
	return i + 1;
}

/* "pid]" at S (N bytes, the bracket last), or UCX's "pid:thread]" and "pid:thread:tid]": its
 * log lines carry "[gn07:41022:0]" and its crash handler's "[gn07:41022:0:41022]", the
 * host first as in Open MPI's "[host:pid]". */
static bool pid_fields(const char *s, size_t n)
{
	size_t i = 0, k;

	for (int f = 0; f < 3; f++) {
		for (k = i; k < n && k - i < 11 && pm_in_isdigit(s[k]); k++)
			;
		if (k == i || k - i > 10 || k >= n)
			return false;
		if (s[k] == ']')
			return k + 1 == n;
		if (s[k] != ':')
			return false;
		i = k + 1;
	}
	return false;
}

/* NCCL's "host:pid:tid [dev] ": the host names the reporting node. */
static size_t nccl_prefix(const char *s, size_t n, struct pm_prefix *out)
{
	size_t h, p, k;

	h = host_at(s, n, ':');
	if (!h)
		return 0;
	p = h + 1;
	if (!(k = num_then(s + p, n - p, ':')))
		return 0;
	p += k;
	if (!(k = num_then(s + p, n - p, ' ')))
		return 0;
	p += k;
	if (p >= n || s[p] != '[')
		return 0;
	p++;
	if (!(k = num_then(s + p, n - p, ']')))
		return 0;
	p += k;
	if (p < n && s[p] == ' ')
		p++;
	out->node = s;
	out->node_len = h;
	return p;
}

/* "slurmstepd-gpu016: " names the node that printed the line; the text stays for matching. */
static void stepd_node(const char *s, size_t n, struct pm_prefix *out)
{
	static const char tag[] = "slurmstepd-";
	size_t h;

	if (!pm_in_starts(s, n, tag))
		return;
	h = host_at(s + sizeof(tag) - 1, n - (sizeof(tag) - 1), ':');
	if (h) {
		out->node = s + sizeof(tag) - 1;
		out->node_len = h;
	}
}

/*
 * The job's output: any order of srun label, rank tag and NCCL prefix, each at most once.
 * The innermost rank wins: under torchrun, srun's label numbers the agents, not ranks.
 * torchrun's [defaultN] is the LOCAL rank: it gives the rank only when no [rankN] does and
 * no srun label says that several agents (nodes) share the output.
 */
static void app_prefix(const char *s, size_t n, struct pm_prefix *out)
{
	enum { LABEL = 1, RANK = 2, DEFAULT = 4, NCCL = 8 };
	unsigned seen = 0;
	size_t p = 0, k;
	int r, round;

	for (round = 0; round < 4; round++) {
		if (!seen && (k = srun_label(s + p, n - p, &r))) {
			seen |= LABEL;
			out->rank = r;
		} else if (!(seen & (RANK | NCCL)) &&
			   (k = bracket_rank(s + p, n - p, "rank", &r))) {
			seen |= RANK;
			out->rank = r;
		} else if (!(seen & (DEFAULT | NCCL)) &&
			   (k = bracket_rank(s + p, n - p, "default", &r))) {
			if (!(seen & RANK))
				out->rank = (seen & LABEL) ? -1 : r;
			seen |= DEFAULT;
		} else if (!(seen & NCCL) && (k = nccl_prefix(s + p, n - p, out))) {
			seen |= NCCL;
		} else {
			break;
		}
		p += k;
	}
	out->skip = p;
	if (!out->node)
		stepd_node(s + p, n - p, out);
}

/* dmesg -H (--human, --reltime): "[Nov30 03:11] " then "[  +0.000844] " for the next lines of
 * that minute; neither gives a time. */
static size_t dmesg_human(const char *s, size_t n)
{
	size_t p = 1;

	if (n < 8 || s[0] != '[')
		return 0;
	if (pm_in_isalpha(s[1]) && pm_in_isalpha(s[2]) && pm_in_isalpha(s[3])) {
		/* "[Nov30 03:11]", "[Nov 3 03:11]" */
		for (p = 4; p < n && p < 20 && s[p] != ']' &&
			    (pm_in_isdigit(s[p]) || s[p] == ' ' || s[p] == ':');
		     p++)
			;
		return p > 9 && p < n && s[p] == ']' && s[p - 3] == ':' ? p + 1 : 0;
	}
	while (p < n && p < 16 && s[p] == ' ')
		p++;
	if (p >= n || s[p] != '+')
		return 0;
	p++;
	if (!num_then(s + p, n - p, '.'))
		return 0;
	p += num_then(s + p, n - p, '.');
	if (num_then(s + p, n - p, ']') != 7)
		return 0;
	return p + 7;
}

/* dmesg -x's facility and level at S, "kern  :err   : ": their length, 0 when none. */
static size_t dmesg_x(const char *s, size_t n)
{
	size_t i, q;

	for (i = 0; i < n && i < 8 && pm_in_isalpha(s[i]); i++)
		;
	if (i == 0 || i >= n || (s[i] != ' ' && s[i] != ':'))
		return 0;
	for (q = i; q < n && s[q] == ' '; q++)
		;
	if (q >= n || s[q] != ':')
		return 0;
	for (q++; q < n && q < i + 16 && (pm_in_isalpha(s[q]) || s[q] == ' '); q++)
		;
	return q + 1 < n && s[q] == ':' && s[q + 1] == ' ' ? q + 2 : 0;
}

/* dmesg: optional "<6>" level, optional "kern  :err   : " (dmesg -x), then the stamp. */
static void dmesg_prefix(const char *s, size_t n, struct pm_prefix *out)
{
	size_t p = 0, k;
	double v;

	if (n >= 3 && s[0] == '<' && (k = num_then(s + 1, n - 1, '>')) && k <= 4)
		p = 1 + k;
	p += dmesg_x(s + p, n - p);
	k = pm_in_dmesg_mono(s + p, n - p, &v);
	if (!k)
		k = pm_in_dmesg_T(s + p, n - p, &v);
	if (!k)
		k = dmesg_human(s + p, n - p);
	if (!k)
		return;
	p += k;
	if (p < n && s[p] == ' ')
		p++;
	/* journalctl -k -o short-monotonic: "[81234.112233] gpu037 kernel: ...", the stamp
	 * dmesg's and the host and tag syslog's: the host names the node, as in syslog. */
	k = host_at(s + p, n - p, ' ');
	if (k && pm_in_starts(s + p + k + 1, n - p - k - 1, "kernel: ")) {
		out->node = s + p;
		out->node_len = k;
		p += k + 1 + 8;
	}
	out->skip = p;
}

static void kmsg_iso_prefix(const char *s, size_t n, struct pm_prefix *out)
{
	struct pm_in_stamp st;
	size_t k = pm_in_iso(s, n, &st);

	if (k && k < n && s[k] == ' ')
		out->skip = k + 1;
}

static bool is_level(const char *s, size_t len, bool anycase);

/* A syslog priority, "<N>" (0-191), as a forwarder keeps it before the stamp: its length,
 * N in *PRI; with RFC 5424's version after it ("<4>1 "), *V5424 is set and the blank
 * counted. */
static size_t syslog_pri(const char *s, size_t n, bool *v5424, unsigned *pri)
{
	size_t i = 1;
	unsigned v = 0;

	*v5424 = false;
	*pri = 0;
	if (n < 3 || s[0] != '<')
		return 0;
	while (i < n && i < 4 && pm_in_isdigit(s[i]))
		v = v * 10 + (unsigned)(s[i++] - '0');
	if (i == 1 || i >= n || s[i] != '>' || v > 191)
		return 0;
	*pri = v;
	i++;
	if (n - i >= 2 && s[i] == '1' && s[i + 1] == ' ') {
		*v5424 = true;
		i += 2;
	}
	return i;
}

/* A token of an RFC 5424 header at S, up to its blank: its length, 0 when none. */
static size_t token5424(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && i < 256 && s[i] > ' ' && s[i] < 127)
		i++;
	return i < n && s[i] == ' ' ? i : 0;
}

/* RFC 5424's structured data at S: "-" or one or more "[id k=\"v\" ...]" (a ']' inside a
 * quoted value escaped); its length, 0 when it is neither. */
static size_t sd5424(const char *s, size_t n)
{
	size_t i = 0;
	bool q = false;

	if (n && s[0] == '-')
		return 1;
	while (i < n && s[i] == '[') {
		for (i++; i < n && (q || s[i] != ']'); i++) {
			if (s[i] == '\\' && i + 1 < n)
				i++;
			else if (s[i] == '"')
				q = !q;
		}
		if (i >= n)
			return 0;
		i++;
	}
	return i;
}

/* "<4>1 2026-11-30T03:11:58.120981+00:00 gpu016 kernel - - - [  12.345678] msg": RFC 5424,
 * the stamp (or "-"), HOST, APP-NAME, PROCID, MSGID and structured data before the message.
 * The kernel's lines are marked (OUT->kernel): the scan trusts a syslog line only when the
 * kernel wrote it, its APP-NAME the kernel's, its facility (PRI / 8) the kernel's, 0,
 * which a program's syslog(3) cannot send (a facility of 0 is its default's), and no PROCID:
 * journald forwards a user's entry with SYSLOG_IDENTIFIER=kernel and SYSLOG_FACILITY=0 as
 * "kernel 88307", its writer's pid (trust-rfc5424-kernel-appname-with-procid). */
static void rfc5424_prefix(const char *s, size_t n, size_t p, unsigned pri, struct pm_prefix *out)
{
	struct pm_in_stamp st;
	size_t h, app, k;
	double v;

	if (p < n && s[p] == '-')
		k = 1;
	else
		k = pm_in_iso(s + p, n - p, &st);
	if (!k || p + k >= n || s[p + k] != ' ')
		return;
	p += k + 1;
	if (!(h = host_at(s + p, n - p, ' ')))
		return;
	out->node = s + p;
	out->node_len = h;
	p += h + 1;
	if (!(app = token5424(s + p, n - p)))
		goto none;
	out->kernel = app == 6 && !memcmp(s + p, "kernel", 6) && pri < 8;
	p += app + 1;
	for (int f = 0; f < 2; f++) { /* PROCID, MSGID */
		if (!(k = token5424(s + p, n - p)))
			goto none;
		/* the kernel has no PROCID ("-"): a journal entry whose SYSLOG_IDENTIFIER and
		 * SYSLOG_FACILITY a user set, forwarded, carries the writer's pid */
		if (!f && !(k == 1 && s[p] == '-'))
			out->kernel = false;
		p += k + 1;
	}
	if (!(k = sd5424(s + p, n - p)))
		goto none;
	p += k;
	if (p < n && s[p] == ' ')
		p++;
	if (n - p >= 3 && !memcmp(s + p, "\xef\xbb\xbf", 3))
		p += 3;
	if (out->kernel && (k = pm_in_dmesg_mono(s + p, n - p, &v)))
		p += k + (p + k < n && s[p + k] == ' ');
	out->skip = p;
	return;
none:
	out->node = NULL;
	out->node_len = 0;
	out->kernel = false;
}

/* A process's syslog tag with its pid at S, "python3[1234]: " (or "...[1234]:" ending the
 * line): its length, 0 when none. */
static size_t proc_tag(const char *s, size_t n)
{
	size_t i = 0, k;

	while (i < n && i < 64 && (host_char(s[i]) || s[i] == '/' || s[i] == '@'))
		i++;
	if (i == 0 || i >= n || s[i] != '[' || !(k = num_then(s + i + 1, n - i - 1, ']')))
		return 0;
	i += 1 + k;
	if (i >= n || s[i] != ':' || (i + 1 < n && s[i + 1] != ' '))
		return 0;
	return i + 1 + (i + 1 < n);
}

/* "Nov 30 03:11:58 gpu016 kernel: [  12.345678] " or "2026-11-30T03:11:58+0000 gpu016 ", a
 * forwarder's priority before either ("<6>"); RFC 5424's form (rfc5424_prefix).  A line
 * with the kernel's tag is marked (OUT->kernel). */
static void syslog_prefix(const char *s, size_t n, struct pm_prefix *out)
{
	struct pm_in_stamp st;
	size_t p, h, b;
	bool v5424, journal = false;
	unsigned pri;
	double v;

	if ((b = syslog_pri(s, n, &v5424, &pri)) && v5424) {
		rfc5424_prefix(s, n, b, pri, out);
		return;
	}
	s += b; /* a priority before the older form: taken off once */
	n -= b;
	if ((p = pm_in_syslog(s, n, 0, &v)))
		journal = true;
	else if ((p = pm_in_iso(s, n, &st)))
		journal = st.t_sep && st.zone && s[p - 1] != 'Z';
	else if ((p = pm_in_journal_full(s, n, &st)) || (p = pm_in_unix(s, n, &v)))
		journal = true; /* journalctl -o short-full, -o short-unix */
	if (!p || p >= n || s[p] != ' ')
		return;
	p++;
	/* a copy with the host cut out ("Feb 23 03:28:16 kernel: ...") is the same log */
	h = pm_in_starts(s + p, n - p, "kernel: ") ? 0 : host_at(s + p, n - p, ' ');
	if (!h && !pm_in_starts(s + p, n - p, "kernel: ")) {
		/* and so is journalctl --no-hostname's, whose process lines name no host either
		 * ("Mar 04 05:06:07 python3[1234]: ..."): the tag and its pid as journald prints
		 * them, behind a stamp journalctl writes (an offset, not a collector's 'Z'; not a
		 * logging framework's "2026-11-30 03:11:58,404 "), stay the text's, as after a
		 * host.  The line names no node: the file's, if any. */
		if (journal && proc_tag(s + p, n - p))
			out->skip = b + p;
		return;
	}
	/* "2026-11-30 03:11:58,404 ERROR trainer: ..." is a logging framework's line (Python's
	 * "%(asctime)s %(levelname)s %(name)s: %(message)s"), not a host and a syslog tag: no
	 * host is called ERROR.  Taken for syslog, a job's log was read as a kernel log. */
	if (h && is_level(s + p, h, false))
		return;
	if (h) {
		out->node = s + p;
		out->node_len = h;
		p += h + 1;
	}
	if (pm_in_starts(s + p, n - p, "kernel: ")) {
		out->tag = b + p;
		p += 8;
		h = pm_in_dmesg_mono(s + p, n - p, &v);
		if (h)
			p += h + (p + h < n && s[p + h] == ' ');
		/* the message after the kernel's own stamp ("[ 3260.123456] python[40259]: ...") */
		out->kernel = !pm_prefix_forged_kernel(s + p, n - p);
		out->forged = !out->kernel;
	}
	out->skip = b + p;
}

bool pm_prefix_forged_kernel(const char *m, size_t n)
{
	const char *sp = memchr(m, ' ', n), *e = m + n, *q;

	for (q = sp; q && q < e; q++) {
		const char *d;

		if (!(q = memchr(q, '[', (size_t)(e - q))))
			break;
		for (d = q + 1; d < e && pm_in_isdigit(*d); d++)
			;
		/* "...bus.[88307]: notice", or "...bus.[88307]:" for an empty message */
		if (d > q + 1 && e - d >= 2 && d[0] == ']' && d[1] == ':' &&
		    (e - d == 2 || d[2] == ' '))
			return true;
	}
	return false;
}

static void slurm_prefix(const char *s, size_t n, struct pm_prefix *out)
{
	double v;
	size_t k = pm_in_bracket_iso(s, n, &v);

	if (k)
		out->skip = k + (k < n && s[k] == ' ');
}

static void (*const handlers[PM_FMT__COUNT])(const char *s, size_t n, struct pm_prefix *out) = {
	[PM_FMT_APP] = app_prefix,	     [PM_FMT_TORCHRUN] = app_prefix,
	[PM_FMT_PYSPY] = app_prefix,	     [PM_FMT_DMESG] = dmesg_prefix,
	[PM_FMT_KMSG_ISO] = kmsg_iso_prefix, [PM_FMT_SYSLOG] = syslog_prefix,
	[PM_FMT_SLURMD_LOG] = slurm_prefix,  [PM_FMT_SLURMCTLD_LOG] = slurm_prefix,
};

/* The "file:" (or "file:line:") grep -H and zgrep put before each line they found; 0 when
 * none.  Whether it is one depends on what follows: a stamp. */
static size_t grep_name(const char *s, size_t n)
{
	size_t i = 0, k;

	while (i < n && i < 128 && (host_char(s[i]) || s[i] == '/'))
		i++;
	if (i == 0 || i >= n || s[i] != ':')
		return 0;
	i++;
	if ((k = num_then(s + i, n - i, ':')))
		i += k;
	return i;
}

/* Whether the file name grep -H put before a line (N bytes, up to its ':') is a system log's:
 * under /var/log/, or a name whose words hold messages, syslog, kern, kernel, dmesg or
 * journal ("messages", "kern.log", "gpu17-dmesg.txt").  "/home/x/fake.log:" before a kernel
 * line is a user's file that holds one. */
static bool system_log_name(const char *s, size_t n)
{
	static const char *const w[] = {"messages", "syslog", "kern", "kernel", "dmesg", "journal"};
	size_t b = n;

	if (n >= 9 && !memcmp(s, "/var/log/", 9))
		return true;
	while (b && s[b - 1] != '/')
		b--;
	return pm_in_has_word(s + b, n - b, w, sizeof(w) / sizeof(w[0]));
}

bool pm_prefix_grep_system(const char *line, size_t len)
{
	size_t g = line ? grep_name(line, len) : 0;

	return g && system_log_name(line, (size_t)((const char *)memchr(line, ':', g) - line));
}

void pm_prefix_parse(enum pm_format fmt, const char *line, size_t len, struct pm_prefix *out)
{
	size_t g;

	out->rank = -1;
	out->node = NULL;
	out->node_len = 0;
	out->skip = 0;
	out->kernel = false;
	out->foreign = false;
	out->forged = false;
	out->tag = 0;
	out->rank_weak = false;
	if (!line || (unsigned)fmt >= PM_FMT__COUNT || !handlers[fmt])
		return;
	handlers[fmt](line, len, out);
	/* a kernel log found with grep -H ("messages:Jun 17 20:18:08 host kernel: ..."); a
	 * line grep found in another file than a system log's is that file's, whatever it
	 * says (trust: the kernel's lines are only a system log's) */
	if (!out->skip && !out->node &&
	    (fmt == PM_FMT_DMESG || fmt == PM_FMT_KMSG_ISO || fmt == PM_FMT_SYSLOG) &&
	    (g = grep_name(line, len))) {
		handlers[fmt](line + g, len - g, out);
		if (out->skip || out->node)
			out->skip += g;
		out->tag += g;
		if (!system_log_name(line, (size_t)((const char *)memchr(line, ':', g) - line))) {
			out->kernel = false;
			out->foreign = true;
		}
	}
}

/* A "rank" token at S (case-insensitive) followed by an optional '_' or '-' and digits. */
static int path_rank_at(const char *path, size_t i, size_t n)
{
	size_t p = i + 4, start;
	long long v = 0;

	if (i > 0 && pm_in_isalnum(path[i - 1]))
		return -1;
	if (p < n && (path[p] == '_' || path[p] == '-'))
		p++;
	start = p;
	while (p < n && pm_in_isdigit(path[p]) && p - start < 8)
		v = v * 10 + (path[p++] - '0');
	if (p == start || p - start > 7 || (p < n && pm_in_isalnum(path[p])))
		return -1;
	return (int)v;
}

/* WRF writes each MPI task's output to its own rsl.out.NNNN and rsl.error.NNNN, NNNN the
 * task's rank in four digits or more; a suffix after a dot (".gz", ".txt") may follow. */
static int wrf_rsl_rank(const char *path)
{
	const char *b = strrchr(path, '/');
	size_t i, k;
	long v = 0;

	b = b ? b + 1 : path;
	if (!strncmp(b, "rsl.error.", 10))
		k = 10;
	else if (!strncmp(b, "rsl.out.", 8))
		k = 8;
	else
		return -1;
	for (i = k; pm_in_isdigit(b[i]) && i - k < 8; i++)
		v = v * 10 + (b[i] - '0');
	if (i - k < 4 || (b[i] && b[i] != '.'))
		return -1;
	return (int)v;
}

int pm_path_rank(const char *path)
{
	size_t i, n;
	int r, found = -1;

	if (!path)
		return -1;
	n = strlen(path);
	/* the last token wins: it is the closest to the file itself */
	for (i = 0; i + 4 < n; i++)
		if (pm_in_lower(path[i]) == 'r' && pm_in_ieq(path + i, 4, "rank") &&
		    (r = path_rank_at(path, i, n)) >= 0)
			found = r;
	/* the file's own name is closer than any folder's */
	return (r = wrf_rsl_rank(path)) >= 0 ? r : found;
}

/* ---- the stack of wrappers in front of a line's text (pm_peel; READING.md) ---- */

#define PEEL_HEAD 512 /* wrappers are looked for in this much of a line */
#define PEEL_ROUNDS 16

/* What a layer may be, given what was peeled before it. */
enum {
	W_LABEL = 1,   /* srun's "3: " */
	W_RANK = 2,    /* "[rank3]:", Open MPI's "[1,3]<stderr>:" */
	W_DEFAULT = 4, /* torchrun's "[default3]:" */
	W_NCCL = 8,    /* "host:pid:tid [dev] ": NCCL's text follows */
	W_LOG = 16,    /* a stamp or a level: a logging framework's fields may follow */
	W_END = 32,    /* nothing more to peel */
	W_LEVEL = 64,  /* a level or a logger's field: the program's own words are near */
	W_REC = 128,   /* a structured record: its message's own wrappers may follow */
	W_RAY = 256, /* Ray's worker prefix: its "[repeated Nx across cluster]" may end the line */
	W_SHIPPED = 512, /* a shipper's stamp and tag: the JSON object after them is its record */
	W_CXX = 1024, /* glog's or PyTorch's C++ header: c10d's "[Rank N]" after it is a group's */
};

struct peel {
	const struct pm_timectx *ctx;
	struct pm_peel *out;
	const char *line;
	size_t len;		 /* the whole line's */
	size_t lim;		 /* after a record: its message's end (0: none) */
	size_t msg_head;	 /* a record's message's head, when it was just taken */
	const char *after_level; /* where a level word's layer ended, no logger's name after it */
	unsigned seen;
	int local; /* the rank "[defaultN]:" gave (pm_peel.rank_local) */
};

/* The number of at most 9 digits at S (a pid), or -1. */
static long capped(const char *s, size_t n)
{
	long v = 0;
	size_t i;

	for (i = 0; i < n && i < 9 && pm_in_isdigit(s[i]); i++)
		v = v * 10 + (s[i] - '0');
	return i ? v : -1;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Blanks at S, at most MAX. */
static size_t blanks(const char *s, size_t n, size_t max)
{
	size_t i = 0;

	while (i < n && i < max && blank(s[i]))
		i++;
	return i;
}

/* The separator after a field: blanks, then at most one '-', '|' or ':' with blanks after it
 * (or the end of the line).  Bytes taken. */
static size_t sep(const char *s, size_t n)
{
	size_t p = blanks(s, n, 32);

	if (p < n && (s[p] == '-' || s[p] == '|' || s[p] == ':') && (p + 1 == n || blank(s[p + 1])))
		p += 1 + blanks(s + p + 1, n - p - 1, 32);
	return p;
}

/* Level words: Python's, Java's, Go's and Rust's; loguru's SUCCESS; VERBOSE (Serilog,
 * Android, npm, many C++ loggers); java.util.logging's FINE, FINER and FINEST; zerolog's,
 * Serilog's and .NET's three-letter forms (ERR, WRN, INF, DBG, FTL, TRC, VRB). */
/* clang-format off */
#define WORD(w) {(w), sizeof(w) - 1} /* a literal word and its length */
/* clang-format on */
struct word {
	const char *w;
	size_t n;
};
static const struct word levels[] = {
	WORD("CRITICAL"), WORD("ERROR"),  WORD("WARNING"), WORD("WARN"),   WORD("INFO"),
	WORD("DEBUG"),	  WORD("FATAL"),  WORD("TRACE"),   WORD("NOTICE"), WORD("SEVERE"),
	WORD("SUCCESS"),  WORD("ERR"),	  WORD("WRN"),	   WORD("INF"),	   WORD("DBG"),
	WORD("FTL"),	  WORD("TRC"),	  WORD("VERBOSE"), WORD("VRB"),	   WORD("FINE"),
	WORD("FINER"),	  WORD("FINEST"),
};

/* A level word of LEN bytes at S: upper case, or any case when ANYCASE (inside brackets). */
static bool is_level(const char *s, size_t len, bool anycase)
{
	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		if (levels[i].n != len)
			continue;
		if (anycase ? pm_in_ieq(s, len, levels[i].w) : !memcmp(s, levels[i].w, len))
			return true;
	}
	return false;
}

/* A level word after blanks at S (N bytes): log4j's yy/MM/dd stamp (Spark's layout) is read
 * only with its record's level after it; alone, "12/01/26 04:10:30" is as likely a script's
 * MM/dd/yy (date +%D) or a dd/MM/yy. */
static bool level_after(const char *s, size_t n)
{
	size_t b = blanks(s, n, 4), w = b;

	while (w < n && s[w] >= 'A' && s[w] <= 'Z')
		w++;
	return b && w > b && (w == n || blank(s[w])) && is_level(s + b, w - b, false);
}

/* A logger's level word of L bytes at S was peeled: the last one peeled is the line's
 * (pm_peel.sev; scan.c leaves a generic rule's line that a logger wrote at a warning's
 * level or lower). */
static void severity(struct peel *w, const char *s, size_t l)
{
	w->out->sev = true;
	w->out->sev_at = (size_t)(s - w->line);
	w->out->sev_quiet = pm_level_quiet(s, l);
	w->out->sev_debug = pm_level_debug(s, l);
}

/* A token of host-name bytes at S; its length (0 when none or longer than 63). */
static size_t name_len(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && i < 64 && host_char(s[i]))
		i++;
	return i < 64 ? i : 0;
}

/* Source files are not hosts: "[serving.py:908]", "[socket.cpp:401]". */
static bool source_file(const char *s, size_t l)
{
	static const struct word ext[] = {
		WORD(".py"),  WORD(".c"),  WORD(".cc"), WORD(".cpp"),  WORD(".cu"),    WORD(".h"),
		WORD(".hpp"), WORD(".rs"), WORD(".go"), WORD(".java"), WORD(".scala"), WORD(".js"),
	};

	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		size_t e = ext[i].n;
		if (l > e && !memcmp(s + l - e, ext[i].w, e))
			return true;
	}
	return false;
}

/* A name that can be a cluster node's: starts with a letter, holds a digit, is not a file,
 * a daemon's own tag or an exception's name. */
static bool hostish(const char *s, size_t l)
{
	bool digit = false;

	if (l < 2 || l > 63 || !pm_in_isalpha(s[0]) || source_file(s, l))
		return false;
	for (size_t i = 0; i < l; i++)
		digit |= pm_in_isdigit(s[i]);
	if (!digit || pm_in_starts(s, l, "slurmstepd") || pm_in_starts(s, l, "rank") ||
	    pm_in_starts(s, l, "default"))
		return false;
	return !(l > 5 && (pm_in_contains(s, l, "Error") || pm_in_contains(s, l, "Exception")));
}

/* A weak name: a search hit's host (hit_node) yields to one its message's own wrappers give
 * (a syslog line's host, shipped by a loghost), which it backs where the evidence does not
 * know that name (pm_peel.hit). */
static void weak_node(struct peel *w, const char *s, size_t l)
{
	if ((!w->out->node || w->out->node_hit) && hostish(s, l)) {
		w->out->node = s;
		w->out->node_len = l;
		w->out->node_weak = true;
		w->out->node_hit = false;
	}
}

static void strong_node(struct peel *w, const char *s, size_t l)
{
	if (!w->out->node || w->out->node_weak) {
		w->out->node = s;
		w->out->node_len = l;
		w->out->node_weak = false;
		w->out->node_hit = false;
	}
}

/* A search hit's or a shipper's own host field (record_layer): weak, as a prefix's name is (a
 * name the message's own wrappers give, a syslog line's host, wins), but it outranks any name
 * outside the record, as the innermost rank does (a launcher's "[host:pid] " before a hit
 * names where the hit was printed, not where it happened), and is kept though the evidence
 * does not know it (pm_peel.hit). */
static void hit_node(struct peel *w, const char *s, size_t l)
{
	if (!hostish(s, l))
		return;
	w->out->hit = s;
	w->out->hit_len = l;
	w->out->node = s;
	w->out->node_len = l;
	w->out->node_weak = true;
	w->out->node_hit = true;
}

static void stamp(struct peel *w, double t)
{
	if (!w->out->has_time) {
		w->out->has_time = true;
		w->out->time = t;
	}
}

static int year(const struct peel *w)
{
	return w->ctx ? w->ctx->year : 0;
}

/* Open MPI's stream tag at S (N bytes), after a rank's "]": its length, 0 when none. */
static size_t stream_tag(const char *s, size_t n)
{
	if (pm_in_starts(s, n, "<stdout>") || pm_in_starts(s, n, "<stderr>"))
		return 8;
	return pm_in_starts(s, n, "<stddiag>") ? 9 : 0;
}

/* The rank layers: srun's label, "[rankN]:", "[defaultN]:", Open MPI's "[J,R]<stdout>:".
 * The innermost rank wins (under torchrun srun's label numbers the agents); torchrun's
 * [defaultN] is a local rank: the rank only when no [rankN] and no srun label says more,
 * and marked so (pm_peel.rank_local): on a job of several nodes it is no global rank. */
static size_t rank_layer(struct peel *w, const char *s, size_t n)
{
	unsigned ranked = W_RANK | W_NCCL;
	size_t k, p;
	int r, j;

	/* a stamp may come before srun's label (kubectl --timestamps, ts), a level may not */
	if (!(w->seen & (W_LABEL | ranked | W_DEFAULT | W_LEVEL)) && (k = srun_label(s, n, &r))) {
		w->seen |= W_LABEL;
		w->out->rank = w->out->label = r;
		return k;
	}
	/* PyTorch's own "[rank3]:" first: the looser forms below would take it, weak */
	if (!(w->seen & ranked) && (k = bracket_rank(s, n, "rank", &r))) {
		w->seen |= W_RANK;
		w->out->rank = r;
		return k;
	}
	/* DeepSpeed's "[Rank 0] ", accelerate's and scripts' "[RANK 3] ", "[rank 3]: ", and
	 * unbracketed before any level "RANK 3: ", "rank 3: " (the word in any case, one
	 * blank; bracketed, a logger's "[rank3] ", "[RANK3] " too, after a stamp as before
	 * it).  Never inside another rank's wrapper: PyTorch's c10d prints "[Rank 1]" for a
	 * process group's rank, which srun's label or "[rank9]:" outside it does not repeat,
	 * nor, spaced, after its C++ logger's header ("[E ProcessGroupNCCL.cpp:458] [Rank 7]
	 * ..."; the compact "[rank7] " is no group's); and weak: a rank the file's name gives
	 * ("rank5-stderr.log") wins (scan.c) */
	if (!(w->seen & (ranked | W_LABEL | W_DEFAULT)) &&
	    (k = spaced_rank(s, n, !(w->seen & W_LEVEL), !(w->seen & W_CXX), &r))) {
		w->seen |= W_RANK;
		w->out->rank = r;
		w->out->rank_weak = true;
		return k;
	}
	if (n < 4 || s[0] != '[')
		return 0;
	/* Lightning's "[rank: 1] " (its global rank), before or after a logger's level */
	if (!(w->seen & ranked) && pm_in_starts(s, n, "[rank: ") &&
	    (k = rank_at(s + 7, n - 7, &r)) && 7 + k + 1 < n && s[7 + k] == ']' &&
	    blank(s[8 + k])) {
		w->seen |= W_RANK;
		w->out->rank = r;
		return 8 + k + 1;
	}
	if (!(w->seen & (W_DEFAULT | W_NCCL)) && (k = bracket_rank(s, n, "default", &r))) {
		if (!(w->seen & W_RANK)) {
			w->out->rank = (w->seen & W_LABEL) ? -1 : r;
			w->out->rank_local = !(w->seen & W_LABEL);
			w->local = r;
		}
		if (w->seen & W_LABEL)
			w->out->agent_local = r;
		w->seen |= W_DEFAULT;
		return k;
	}
	/* Open MPI --tag-output: "[1,3]<stderr>:", and with the rank named and its host after
	 * it, "[1,mpirank:3,algo-2]<stderr>:" (Open MPI 4 as SageMaker's MPI jobs print it);
	 * horovodrun's own (Gloo) launcher tags a rank alone, "[3]<stderr>:", its stream
	 * required */
	if ((w->seen & ranked) || !(k = rank_at(s + 1, n - 1, &j)) || 1 + k >= n)
		return 0;
	p = 2 + k;
	if (s[1 + k] == ']') {
		if (!(k = stream_tag(s + p, n - p)))
			return 0;
		r = j;
	} else {
		const char *host = NULL;
		size_t hlen = 0;

		if (s[1 + k] != ',')
			return 0;
		if (pm_in_starts(s + p, n - p, "mpirank:"))
			p += 8;
		if (!(k = rank_at(s + p, n - p, &r)))
			return 0;
		p += k;
		if (p < n && s[p] == ',') {
			size_t h = ++p;
			while (p < n && p < h + 64 &&
			       (pm_in_isalnum(s[p]) || s[p] == '-' || s[p] == '.' || s[p] == '_'))
				p++;
			if (p == h)
				return 0;
			host = s + h;
			hlen = p - h;
		}
		if (p >= n || s[p] != ']')
			return 0;
		k = 1 + stream_tag(s + p + 1, n - p - 1);
		if (host && !w->out->node) {
			w->out->node = host;
			w->out->node_len = hlen;
		}
	}
	p += k;
	if (p >= n || s[p] != ':')
		return 0;
	w->seen |= W_RANK;
	w->out->rank = r;
	return p + 1;
}

/* glog's header at S, bracketed ("[E1130 03:44:00.123 40074 f.cc:12]") or not: its length
 * with the separator after it, 0 when S has none. */
static size_t glog_layer(struct peel *w, const char *s, size_t n)
{
	double t;
	bool has_t;
	size_t k = pm_in_glog(s, n, year(w), &t, &has_t);

	if (!k)
		return 0;
	if (has_t)
		stamp(w, t);
	severity(w, s + (s[0] == '['), 1);
	w->seen |= W_LOG | W_LEVEL | W_CXX;
	return k + sep(s + k, n - k);
}

static size_t logger_after(struct peel *w, const char *s, size_t k, size_t n);

/* A stamp of K bytes at S, the separator after it taken: right after a level word ("ERROR
 * 2026-11-30 03:11:58,404 trainer: "), a logger's "name: " may follow blanks (logger_after),
 * as it may follow the level itself. */
static size_t stamp_end(struct peel *w, const char *s, size_t k, size_t n)
{
	size_t e = k + sep(s + k, n - k);

	if (w->after_level == s && e > k && e == k + blanks(s + k, n - k, 32))
		return logger_after(w, s, e, n);
	return e;
}

/* A clock time of day without a date, "10:00:00" with an optional fraction ("10:00:00.123",
 * "10:00:00,123"): its length, 0 when none. */
static size_t clock_time(const char *s, size_t n)
{
	size_t k = 8;

	if (n < 8 || s[2] != ':' || s[5] != ':' || !pm_in_isdigit(s[0]) || !pm_in_isdigit(s[1]) ||
	    !pm_in_isdigit(s[3]) || !pm_in_isdigit(s[4]) || !pm_in_isdigit(s[6]) ||
	    !pm_in_isdigit(s[7]))
		return 0;
	if (k + 1 < n && (s[k] == '.' || s[k] == ','))
		k += 1 + pm_in_ndigits(s + k + 1, n - k - 1);
	return k;
}

/*
 * A bracketed level with blanks inside: structlog's console "[warning  ]" (the word padded,
 * any case), env_logger's "[2026-11-30T03:11:58Z WARN  trainer::loop]" (an optional ISO
 * stamp, the level in upper case, padded, and an optional target; "[ERROR trainer::loop]"
 * with its stamp turned off) and Serilog's console "[10:00:01 WRN] " (its default template:
 * a time of day, which gives no time without a date, and the level's three letters, upper
 * case): its length with the separator after it, 0 when S has none.
 */
static size_t bracket_level(struct peel *w, const char *s, size_t n)
{
	struct pm_in_stamp st;
	size_t p = 1, l = 0, b, k;
	bool upper = true, dated = false;

	if ((k = pm_in_iso(s + 1, n - 1, &st)) && 1 + k < n && s[1 + k] == ' ')
		dated = true;
	else if (!((k = clock_time(s + 1, n - 1)) && 1 + k < n && s[1 + k] == ' '))
		k = 0;
	if (k)
		p = 2 + k;
	while (p + l < n && l < 9 && pm_in_isalpha(s[p + l])) {
		upper = upper && s[p + l] >= 'A' && s[p + l] <= 'Z';
		l++;
	}
	if (!is_level(s + p, l, !k))
		return 0;
	b = blanks(s + p + l, n - p - l, 16);
	p += l + b;
	if (b && upper) /* env_logger's target */
		for (; p < n && p < 256 && s[p] != ']' && !blank(s[p]); p++)
			;
	if (p >= n || s[p] != ']' || (!b && !k))
		return 0;
	if (dated)
		stamp(w, st.t);
	severity(w, s + 1 + (k ? k + 1 : 0), l);
	w->seen |= W_LOG | W_LEVEL;
	return p + 1 + sep(s + p + 1, n - p - 1);
}

/* Bracketed layers: "[2026-11-30 03:11:58,002]", glog's "[E1130 ...]", PyTorch's
 * "[W socket.cpp:401]", Open MPI's "[host:pid]", and any "[field]" without a blank
 * ("[ERROR]", "[trainer]", "[gpu016]", "[pod/name/c]", "[10:00:00]"); after a level and
 * blanks, a logger's name (logger_after). */
static size_t bracket_layer(struct peel *w, const char *s, size_t n)
{
	double t;
	size_t k, i, h;

	if (n < 3 || s[0] != '[')
		return 0;
	if ((k = pm_in_bracket_iso(s, n, &t))) {
		stamp(w, t);
		w->seen |= W_LOG;
		return stamp_end(w, s, k, n);
	}
	if ((k = glog_layer(w, s, n)))
		return k;
	/* a kernel line quoted in the job's output: "[Mon Nov 30 03:11:58 2026] ",
	 * "[ 5612.000001] " (a time only when the boot time is known) */
	if ((k = pm_in_dmesg_T(s, n, &t)) ||
	    ((k = pm_in_dmesg_mono(s, n, &t)) && w->ctx && w->ctx->boot_time > 0 &&
	     (t += w->ctx->boot_time, true))) {
		stamp(w, t);
		return k + blanks(s + k, n - k, 1);
	}
	if ((k = pm_in_dmesg_mono(s, n, &t)))
		return k + blanks(s + k, n - k, 1);
	if ((k = bracket_level(w, s, n)))
		return k;
	/* "[W socket.cpp:401]" */
	if (n > 5 && strchr("IWEF", s[1]) && s[1] && s[2] == ' ') {
		for (i = 3; i < n && i < 128 && s[i] != ']' && !blank(s[i]); i++)
			;
		if (i > 3 && i < n && s[i] == ']' && memchr(s + 3, ':', i - 3)) {
			severity(w, s + 1, 1);
			w->seen |= W_LOG | W_LEVEL | W_CXX;
			return i + 1 + sep(s + i + 1, n - i - 1);
		}
	}
	for (i = 1; i < n && i < 66 && s[i] != ']' && s[i] != '[' && (unsigned char)s[i] > ' '; i++)
		;
	if (i == 1 || i >= n || s[i] != ']')
		return 0;
	h = name_len(s + 1, i - 1);
	if (h && h + 1 < i && s[1 + h] == ':' && pid_fields(s + 2 + h, i - 1 - h) &&
	    hostish(s + 1, h)) {
		strong_node(w, s + 1, h); /* Open MPI's own "[host:pid]", UCX's */
		w->out->pid = (int)capped(s + 2 + h, i - 2 - h);
	} else if (is_level(s + 1, i - 1, true) ||
		   (i == 2 && s[1] && strchr("EWIFDV", s[1]))) { /* TensorRT's "[E] " */
		severity(w, s + 1, i - 1);
		w->seen |= W_LOG | W_LEVEL;
		k = i + 1 + blanks(s + i + 1, n - i - 1, 32);
		/* "[ERROR] trainer: " ("%(asctime)s [%(levelname)s] %(name)s: ") */
		if (k > i + 1 && k == i + 1 + sep(s + i + 1, n - i - 1)) {
			if ((h = logger_after(w, s, k, n)) > k)
				return h;
			w->after_level = s + k; /* "[ERROR] 2026-11-30T03:11:58Z trainer: " */
			return k;
		}
	} else if (h == i - 1) {
		weak_node(w, s + 1, h);
	}
	k = i + 1;
	if (k < n && s[k] == ':')
		k++;
	return k + sep(s + k, n - k);
}

/* Ray's own processes' prefixes, which carry no pid: "(raylet)", "(raylet, ip=10.0.3.7)",
 * "(gcs_server)", "(autoscaler +1m9s)", "(scheduler +8s)", "(monitor)", "(dashboard_agent,
 * ip=...)": the name first, then nothing, Ray's ", ip=ADDR" or the autoscaler's and the
 * scheduler's " +TIME" (the scheduler's always: "(scheduler)" alone is a program's word);
 * the bytes between the parentheses (L), 0 when none.  The ip names no node (a worker's address, which the
 * job's records do not map to a node): it is only taken off. */
static size_t ray_component(const char *s, size_t l)
{
	static const char *const names[] = {"raylet",	   "gcs_server",	"autoscaler",
					    "monitor",	   "dashboard_agent",	"dashboard",
					    "log_monitor", "runtime_env_agent", "scheduler"};
	size_t k, i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		k = strlen(names[i]);
		if (l >= k && !memcmp(s, names[i], k) && (l == k || s[k] == ',' || s[k] == ' '))
			break;
	}
	if (i == sizeof(names) / sizeof(names[0]))
		return 0;
	if (l == k)
		return strcmp(names[i], "scheduler") ? l : 0;
	if (pm_in_starts(s + k, l - k, ", ip=")) {
		for (i = k + 5; i < l && (pm_in_isalnum(s[i]) || s[i] == '.' || s[i] == ':'); i++)
			;
		return i == l && i > k + 5 ? l : 0;
	}
	if (pm_in_starts(s + k, l - k, " +")) { /* "(autoscaler +1m9s)", "+2h3m1s" */
		for (i = k + 2; i < l && (pm_in_isdigit(s[i]) || strchr("hms", s[i])); i++)
			;
		return i == l && i > k + 2 && s[l - 1] == 's' ? l : 0;
	}
	return 0;
}

/* Ray's "(pid=123, ip=10.0.0.1)", "(RayTrainWorker pid=123, ip=...)", its own processes'
 * "(raylet, ip=...)" (ray_component), vLLM's "(APIServer pid=1)", "(VllmWorker rank=1
 * pid=7)" (a worker's number among its engine's, no task's: not read), and a stamp in
 * parentheses.  The ip is never read as a node: nothing in the job's records maps an
 * address to a node name. */
static size_t paren_layer(struct peel *w, const char *s, size_t n)
{
	struct pm_in_stamp st;
	const char *pid;
	size_t i, k;

	if (n < 3 || s[0] != '(')
		return 0;
	if ((k = pm_in_iso(s + 1, n - 1, &st)) && 1 + k < n && s[1 + k] == ')') {
		stamp(w, st.t);
		w->seen |= W_LOG;
		return k + 2 + sep(s + k + 2, n - k - 2);
	}
	for (i = 1; i < n && i < 128 && s[i] != ')' && s[i] != '('; i++)
		;
	if (i < n && s[i] == ')' && (k = ray_component(s + 1, i - 1))) {
		w->seen |= W_RAY;
		return i + 1 + sep(s + i + 1, n - i - 1);
	}
	if (i >= n || s[i] != ')' || !(pid = memmem(s + 1, i - 1, "pid=", 4)) ||
	    (pid > s + 1 && pid[-1] != ' ' && pid[-1] != ','))
		return 0;
	k = (size_t)(pid + 4 - s);
	if (!pm_in_ndigits(s + k, i - k))
		return 0;
	w->out->pid = (int)capped(s + k, pm_in_ndigits(s + k, i - k));
	w->seen |= W_RAY;
	return i + 1 + sep(s + i + 1, n - i - 1);
}

/* A process's "tag[pid]: " at S + I after a host, the syslog way: its end, 0 when none;
 * the pid kept.  REQUIRE_PID: the tag alone ("prog: ") is not enough. */
static size_t host_tag(struct peel *w, const char *s, size_t k, size_t n, bool require_pid)
{
	size_t h = name_len(s + k, n - k), i;

	if (!h || k + h >= n || s[k + h] != ' ')
		return 0;
	i = k + h + 1;
	while (i < n && i < k + h + 65 && (host_char(s[i]) || s[i] == '/' || s[i] == '@'))
		i++;
	if (i < n && s[i] == '[' && num_then(s + i + 1, n - i - 1, ']')) {
		w->out->pid = (int)capped(s + i + 1, pm_in_ndigits(s + i + 1, n - i - 1));
		i += 1 + num_then(s + i + 1, n - i - 1, ']');
	} else if (require_pid) {
		return 0;
	}
	if (i + 1 >= n || s[i] != ':' || s[i + 1] != ' ')
		return 0;
	weak_node(w, s + k, h);
	return i + 2;
}

static size_t str_end(const char *s, size_t n);

/* Loki's label set as logcli prints it before a line, `{job="slurm", stream="stderr"} `, at
 * S + P: its end with the blank after it, 0 when none.  Its values are the shipper's
 * (a host among them names the machine that shipped the file): none is read. */
static size_t label_set(const char *s, size_t p, size_t n)
{
	size_t i = p + 1, k, e;

	while (i < n) {
		for (k = i; k < n && k < i + 64 && (pm_in_isalnum(s[k]) || s[k] == '_'); k++)
			;
		if (k == i || k + 1 >= n || s[k] != '=' || s[k + 1] != '"' ||
		    !(e = str_end(s + k + 1, n - k - 1)))
			return 0;
		i = k + 1 + e + 1;
		if (i + 1 < n && s[i] == '}' && s[i + 1] == ' ')
			return i + 2;
		if (i + 1 >= n || s[i] != ',')
			return 0;
		i += 1 + blanks(s + i + 1, n - i - 1, 1);
	}
	return 0;
}

/* A merge of several nodes' outputs into one file, each line "STAMP HOST message" with no
 * tag after the host (a syslog-like merge, a shipper's export): the host at S + P, a name
 * with a node's shape and a blank after it, before text that is no number (glog's "E1130
 * 03:11:58" is no host), is the writer's, a weak name (the line's own words name nothing
 * more: engine/TRUST.md).  Nothing is peeled: the text keeps its first word for the rules,
 * as it was read before. */
static void merged_host(struct peel *w, const char *s, size_t p, size_t n)
{
	size_t h = name_len(s + p, n - p);

	if (h && p + h + 1 < n && s[p + h] == ' ' && !pm_in_isdigit(s[p + h + 1]) &&
	    s[p + h + 1] != ' ')
		weak_node(w, s + p, h);
}

/*
 * What a log collector writes after its own stamp, the ISO stamp of K bytes at S before
 * any stamp, level, label or rank of the job's (a host or a pod's name may come first:
 * pdsh, kubectl --prefix): a container runtime's (CRI: containerd, CRI-O; what a Kubernetes
 * node's /var/log/pods holds and Loki, Fluent Bit or Vector ship) stream and tag,
 * "2026-12-01T03:11:58.002Z stderr F " (F a full line, P a part of one); journalctl -o
 * short-iso's "host tag[pid]: " (its pid required: "2026-... word: " is a message as
 * often); Loki's label set (label_set); fluentd's file output, "stamp\ttag\t{...}", its record
 * then read though it has no time or level of its own (W_SHIPPED).  The bytes through them, 0 when none follows.  A
 * program's own stamp after its label ("3: 2026-... stderr F") is followed by its words.
 */
static size_t collector_fields(struct peel *w, const char *s, size_t k, size_t n)
{
	size_t p, e;

	if (k < n && s[k] == '\t') { /* fluentd's file output: "stamp\ttag\t{record}" */
		for (p = k + 1; p < n && p < k + 129 && (host_char(s[p]) || s[p] == '*'); p++)
			;
		if (p == k + 1 || p + 1 >= n || s[p] != '\t' || s[p + 1] != '{')
			return 0;
		w->seen |= W_SHIPPED;
		return p + 1;
	}
	if (k >= n || s[k] != ' ')
		return 0;
	p = k + 1;
	if ((pm_in_starts(s + p, n - p, "stdout ") || pm_in_starts(s + p, n - p, "stderr ")) &&
	    p + 8 <= n && (s[p + 7] == 'F' || s[p + 7] == 'P') && (p + 8 == n || s[p + 8] == ' '))
		return p + 8 + (p + 8 < n);
	if (p < n && s[p] == '{')
		return label_set(s, p, n);
	if ((e = host_tag(w, s, p, n, true)))
		return e;
	merged_host(w, s, p, n);
	return 0;
}

/* Open MPI's --timestamp-output: ctime's "Mon Nov 30 03:41:02 2026" glued to the tag that
 * follows, "[1,5]<stderr>:" (--tag-output) or a stream alone: the stamp's 24 bytes when a
 * tag follows, 0 else (rank_layer reads the tag). */
static size_t ompi_stamp(struct peel *w, const char *s, size_t n)
{
	char b[26];
	double t;
	const char *gt;

	if (n < 30 || s[24] != '[' || !pm_in_isalpha(s[0]))
		return 0;
	b[0] = '[';
	memcpy(b + 1, s, 24);
	b[25] = ']';
	if (pm_in_dmesg_T(b, sizeof(b), &t) != sizeof(b))
		return 0;
	if (!(gt = memchr(s + 25, ']', n - 25 < 40 ? n - 25 : 40)) ||
	    !stream_tag(gt + 1, n - (size_t)(gt + 1 - s)))
		return 0;
	stamp(w, t);
	w->seen |= W_LOG;
	return 24;
}

/* A clock time of day in Go's Kitchen layout, "3:04PM" or "10:00AM" (zerolog's console
 * writer): its length, 0 when none. */
static size_t kitchen(const char *s, size_t n)
{
	size_t h = pm_in_ndigits(s, n);

	if ((h != 1 && h != 2) || h + 5 > n || s[h] != ':' || pm_in_ndigits(s + h + 1, 2) != 2 ||
	    (s[h + 3] != 'A' && s[h + 3] != 'P') || s[h + 4] != 'M')
		return 0;
	return h + 5;
}

/* Stamps at the start of a field: ISO 8601 / RFC 3339, "09/04/2026 02:49:57", Spark's
 * log4j "26/11/30 03:11:58", "09-05 01:24:34", a bare "10:00:00.123", glog's "E1130 03:44:00.123 40074 f.cc:12]" and
 * syslog's "Nov 30 03:11:58 host prog[pid]: " (journald's short format). */
static size_t stamp_layer(struct peel *w, const char *s, size_t n)
{
	struct pm_in_stamp st;
	double t;
	bool has_t;
	size_t k, h;

	unsigned seen = w->seen;

	if (!pm_in_isdigit(s[0]) && !(s[0] >= 'A' && s[0] <= 'Z'))
		return 0;
	st.len = 0;
	if (pm_in_isdigit(s[0])) {
		if ((k = pm_in_iso(s, n, &st)))
			stamp(w, st.t);
		else if ((k = pm_in_usdate(s, n, &t)))
			stamp(w, t);
		else if ((k = pm_in_yymmdd(s, n, &t)) && level_after(s + k, n - k))
			stamp(w, t);
		else if ((k = pm_in_mmdd(s, n, year(w), &t, &has_t)) && has_t)
			stamp(w, t);
		else if (!k && (k = kitchen(s, n)))
			; /* a time of day without a date: no time */
		else if (!k && n >= 9 && (k = clock_time(s, n)) && k < n && !blank(s[k]))
			return 0;
		if (!k || (k < n && !blank(s[k]) && s[k] != ':' && s[k] != ']'))
			return 0;
		w->seen |= W_LOG;
		/* a collector's stamp, before every stamp, level, label and rank of the job's:
		 * its own fields may follow (collector_fields) */
		if (!(seen & (W_LOG | W_LABEL | W_RANK | W_DEFAULT | W_REC)) && st.len == k &&
		    (h = collector_fields(w, s, k, n)))
			return h;
		return stamp_end(w, s, k, n);
	}
	if ((k = ompi_stamp(w, s, n)))
		return k;
	if ((k = glog_layer(w, s, n)))
		return k;
	if (!(k = pm_in_syslog(s, n, year(w), &t)) || k >= n)
		return 0;
	if (year(w) > 0)
		stamp(w, t);
	w->seen |= W_LOG;
	k++;
	/* the host and the program's tag, "prog:" or "prog[pid]:" */
	return (h = host_tag(w, s, k, n, false)) ? h : k;
}

/*
 * A logger's name and ": " at S, right after a level word and blanks: Python's
 * "%(levelname)s %(name)s: %(message)s" ("ERROR torch.distributed.elastic: ").  Its length,
 * ": " included; 0 when none.  Lower case only: "ERROR RuntimeError: ..." and "ERROR NCCL:
 * ..." are messages, not loggers; and not a word that quotes an error ("caught: ", the
 * exception rule's guard).
 */
static size_t logger_name(const char *s, size_t n)
{
	static const char *const quoting[] = {
		"after",     "caught",	 "catching", "ignoring", "ignored",
		"handled",   "handling", "retrying", "skipping", "suppressed",
		"swallowed", "raised",	 "got",	     "error",	 "warning",
	};
	size_t t = 0;
	bool lower = false;

	for (; t < n && t < 96; t++) {
		char c = s[t];
		if (c == ':' && t + 2 < n && s[t + 1] == ':' && s[t + 2] != ' ') {
			t++; /* a Rust module path, tracing's "trainer::loop: " */
			continue;
		}
		if (c >= 'a' && c <= 'z')
			lower = true;
		else if (!pm_in_isdigit(c) && (!c || !strchr("_.-<>", c)))
			break;
	}
	if (!lower || t + 1 >= n || s[t] != ':' || s[t + 1] != ' ')
		return 0;
	for (size_t i = 0; i < sizeof(quoting) / sizeof(quoting[0]); i++)
		if (strlen(quoting[i]) == t && !memcmp(s, quoting[i], t))
			return 0;
	return t + 2;
}

/* K, or past a logger's "name: " at S + K (logger_name), right after a level and blanks:
 * its start kept for the confirmation (pm_peel.logger). */
static size_t logger_after(struct peel *w, const char *s, size_t k, size_t n)
{
	size_t l = logger_name(s + k, n - k);

	if (!l)
		return k;
	w->out->logger = (size_t)(s + k - w->line);
	return k + l;
}

/* A level word: "ERROR - ", "ERROR    | ", "ERROR: ", "ERROR " and Python's default
 * "ERROR:root:" / "WARNING:torch.distributed.run:"; after "ERROR ", a logger's "name: "
 * (logger_name), whose start pm_peel keeps: the text of the line, should it be a message
 * of its own that starts "word: " ("ERROR srun: error: ..."). */
static size_t level_layer(struct peel *w, const char *s, size_t n)
{
	size_t l = 0, k, g;

	while (l < n && l < 9 && s[l] >= 'A' && s[l] <= 'Z')
		l++;
	/* logrus' text format on a terminal: "WARN[0042] ", the seconds since it started */
	if (l == 4 && l + 2 < n && s[l] == '[' && (k = num_then(s + 5, n - 5, ']')) && 5 + k < n &&
	    blank(s[5 + k]) &&
	    (is_level(s, 4, false) || pm_in_starts(s, 4, "PANI") || pm_in_starts(s, 4, "FATA") ||
	     pm_in_starts(s, 4, "ERRO") || pm_in_starts(s, 4, "DEBU") ||
	     pm_in_starts(s, 4, "TRAC"))) {
		severity(w, s, l);
		w->seen |= W_LOG | W_LEVEL;
		return 5 + k + blanks(s + 5 + k, n - 5 - k, 32);
	}
	/* apt's and debootstrap's one-letter levels at the start of a message, "W: ", "E: ",
	 * "N: ", "I: " (and "D: ", "V: "): a capital, a colon, a blank, then the text */
	if (l == 1 && n > 3 && s[1] == ':' && s[2] == ' ' && !blank(s[3]) &&
	    strchr("EWINDV", s[0])) {
		severity(w, s, 1);
		w->seen |= W_LOG | W_LEVEL;
		w->out->level = (size_t)(s - w->line);
		return 3 + blanks(s + 3, n - 3, 32);
	}
	if (!is_level(s, l, false) || l >= n)
		return 0;
	if (s[l] == ':' && l + 1 < n && !blank(s[l + 1])) {
		for (k = l + 1;
		     k < n && k < l + 96 && (host_char(s[k]) || s[k] == '<' || s[k] == '>'); k++)
			;
		if (k < n && s[k] == ':') {
			severity(w, s, l);
			w->seen |= W_LOG | W_LEVEL;
			w->out->level = (size_t)(s - w->line);
			return k + 1 + blanks(s + k + 1, n - k - 1, 32);
		}
		return 0;
	}
	if (!blank(s[l]) && s[l] != ':')
		return 0;
	severity(w, s, l);
	w->seen |= W_LOG | W_LEVEL;
	w->out->level = (size_t)(s - w->line);
	k = l + sep(s + l, n - l);
	if (k == l + blanks(s + l, n - l, 32) && (g = logger_after(w, s, k, n)) > k)
		return g;
	w->after_level = s + k; /* a stamp may follow, then a logger's name */
	return k;
}

/* A tab at S: its length, 1, or 2 for the escape "\\t" inside a record's quoted message
 * (a JSON or logfmt logger's escaped line: the peel reads the message as the record holds
 * it, record_layer); 0 when S opens with none. */
static size_t tab_at(const struct peel *w, const char *s, size_t n)
{
	if (n && s[0] == '\t')
		return 1;
	return w->out->quoted && n > 1 && s[0] == '\\' && s[1] == 't' ? 2 : 0;
}

/* Whether S opens with a launcher's rank tag, "[rank3]:" or "[default3]:" (lower-case
 * letters, then digits, then "]:"). */
static bool rank_tag_at(const char *s, size_t n)
{
	size_t i = 1, d;

	if (!n || s[0] != '[')
		return false;
	while (i < n && i < 16 && s[i] >= 'a' && s[i] <= 'z')
		i++;
	for (d = i; d < n && d - i < 8 && pm_in_isdigit(s[d]); d++)
		;
	return i > 1 && d > i && d + 1 < n && s[d] == ']' && s[d + 1] == ':';
}

/* Name fields: pdsh's and clush's "host: ", docker compose's and kubectl's "name  | ",
 * and, after a stamp or a level, a logger's "name - " ("__main__:main:42 - ").  The host's
 * colon may be followed by a tab instead of the space ("host:\t", a tagging shell's or a
 * script's own "printf '%s:\t'"), as the launcher's prefix is read in redact_assign.c. */
static size_t name_layer(struct peel *w, const char *s, size_t n)
{
	size_t h = name_len(s, n), p, k, t;

	if (h && h + 1 < n && s[h] == ':' && (blank(s[h + 1]) || tab_at(w, s + h + 1, n - h - 1)) &&
	    hostish(s, h)) {
		weak_node(w, s, h);
		return h + 1 + (blank(s[h + 1]) ? 1 : tab_at(w, s + h + 1, n - h - 1));
	}
	/* GNU parallel --tag's "host\t" (the tag, then a tab), only before a launcher's rank
	 * tag ("gpu12\t[rank3]: ", "gpu12\t[default3]: "): a word and a tab alone open a row
	 * of a tab-separated table as often ("run17\t[0.91, 0.88]") */
	if (h && (t = tab_at(w, s + h, n - h)) && rank_tag_at(s + h + t, n - h - t) &&
	    hostish(s, h)) {
		weak_node(w, s, h);
		return h + t;
	}
	if (h) {
		p = h + blanks(s + h, n - h, 32);
		if (p > h && p + 1 < n && s[p] == '|' && blank(s[p + 1])) {
			if (is_level(s, h, false)) {
				severity(w, s, h);
				w->seen |= W_LOG | W_LEVEL;
			} else
				weak_node(w, s, h);
			return p + 1 + blanks(s + p + 1, n - p - 1, 32);
		}
	}
	/* "submitit WARNING (2026-11-30 03:11:58,002) - ": a logger's name, then its level */
	if (h && h + 1 < n && s[h] == ' ') {
		size_t l = 0;
		while (h + 1 + l < n && l < 9 && s[h + 1 + l] >= 'A' && s[h + 1 + l] <= 'Z')
			l++;
		p = h + 1 + l;
		if (is_level(s + h + 1, l, false) && p + 1 < n && s[p] == ' ' && s[p + 1] == '(') {
			severity(w, s + h + 1, l);
			w->seen |= W_LOG | W_LEVEL;
			return p + 1;
		}
	}
	/* a logger's name before its bracketed level, PyTorch 2.0-2.2's own format
	 * "[%(asctime)s] %(name)s: [%(levelname)s] %(message)s" ("torch._dynamo.convert_frame:
	 * [WARNING] "): the level is the line's, as it is after the name in other orders.  A
	 * name that starts in lower case or "_" only: "ValueError: [ERROR] bad key" is an
	 * exception whose message opens with a bracket, not a logger's record */
	if (n && ((s[0] >= 'a' && s[0] <= 'z') || s[0] == '_') && (p = logger_name(s, n)) &&
	    p < n && s[p] == '[') {
		for (t = p + 1; t < n && t < p + 11 && s[t] != ']'; t++)
			;
		if (t < n && s[t] == ']' && t + 1 < n && blank(s[t + 1]) &&
		    is_level(s + p + 1, t - p - 1, true)) {
			severity(w, s + p + 1, t - p - 1);
			w->seen |= W_LOG | W_LEVEL;
			return t + 1 + blanks(s + t + 1, n - t - 1, 32);
		}
	}
	if (!(w->seen & W_LOG))
		return 0;
	for (k = 0; k < n && k < 128 && (unsigned char)s[k] > ' '; k++)
		;
	if (k && k + 2 < n && s[k] == ' ' && s[k + 1] == '-' && s[k + 2] == ' ') {
		w->seen |= W_LEVEL;
		return k + 3;
	}
	if (k && k + 1 < n && s[k] == '\t') /* structured loggers: "ts\tLEVEL\tcaller\tmsg" */
		return k + 1;
	return 0;
}

/* A box frame's left side: rich's "│ ", "┃ ", "║ " and a frame's top or bottom
 * ("╭─── Traceback ───╮"): the bytes up to the text. */
static size_t frame_layer(struct peel *w, const char *s, size_t n)
{
	size_t p = 0;

	(void)w;
	/* U+2500..U+257F are E2 94 80 .. E2 95 BF */
	while (p + 2 < n && (unsigned char)s[p] == 0xe2 &&
	       ((unsigned char)s[p + 1] == 0x94 || (unsigned char)s[p + 1] == 0x95))
		p += 3 + blanks(s + p + 3, n - p - 3, 64);
	return p;
}

/* The frame's right side and a CRLF's CR: the text's end. */
static size_t trim_end(const char *s, size_t start, size_t n)
{
	while (n > start) {
		if (s[n - 1] == '\r' || blank(s[n - 1]))
			n--;
		else if (n >= start + 3 && (unsigned char)s[n - 3] == 0xe2 &&
			 ((unsigned char)s[n - 2] == 0x94 || (unsigned char)s[n - 2] == 0x95))
			n -= 3;
		else
			break;
	}
	return n;
}

/* NCCL's "host:pid:tid [dev] ": its own words follow, nothing after it is a wrapper. */
static size_t nccl_layer(struct peel *w, const char *s, size_t n)
{
	struct pm_prefix px = {.rank = -1};
	size_t k, h;

	if ((w->seen & W_NCCL) || !(k = nccl_prefix(s, n, &px)))
		return 0;
	h = px.node_len;
	strong_node(w, s, h);
	w->out->pid = (int)capped(s + h + 1, pm_in_ndigits(s + h + 1, n - h - 1));
	w->seen |= W_NCCL | W_END;
	return k;
}

/* grep -H's "file:" before a stamp (a copy of a log found with grep). */
static size_t grep_layer(struct peel *w, const char *s, size_t n)
{
	size_t g = grep_name(s, n), k;

	if (!g || g >= n || (s[g] != '[' && !pm_in_isdigit(s[g]) && !pm_in_isalpha(s[g])))
		return 0;
	if (!(k = s[g] == '[' ? bracket_layer(w, s + g, n - g) : stamp_layer(w, s + g, n - g)))
		return 0;
	return g + k;
}

/* ---- structured records: JSON lines, logfmt ---- */

#define REC_FIELDS 256 /* fields of a record read at most */

/* What a record's field says, by its key (any case): the message (the most specific key
 * first: a record holding two takes the first of these), a traceback (the same: a logger's
 * traceback fields, then the error's text a Go or Node logger keeps beside its message,
 * `error` or `err`), a time, a host, a rank, a pid, a level (or Docker's stream: like a
 * time, it tells a log's record from a line of data). */
enum field { F_MSG, F_EXC, F_TIME, F_HOST, F_RANK, F_PID, F_LEVEL, F_OTHER };

static const struct {
	const char *key;
	enum field f;
} fields[] = {
	{"message", F_MSG},
	{"msg", F_MSG},
	{"log", F_MSG},
	{"text", F_MSG},
	{"textpayload", F_MSG}, /* Google Cloud Logging's entry */
	{"line", F_MSG},	/* Loki's (logcli --output=jsonl) */
	{"exc_info", F_EXC},
	{"exception", F_EXC},
	{"exc_text", F_EXC},
	{"stack_trace", F_EXC},
	{"traceback", F_EXC},
	{"py_callstack", F_EXC},
	{"error", F_EXC},
	{"err", F_EXC},
	{"time", F_TIME},
	{"timestamp", F_TIME},
	{"@timestamp", F_TIME},
	{"ts", F_TIME},
	{"asctime", F_TIME},
	{"host", F_HOST},
	{"hostname", F_HOST},
	{"node", F_HOST},
	{"rank", F_RANK},
	{"global_rank", F_RANK},
	{"pid", F_PID},
	{"level", F_LEVEL},
	{"lvl", F_LEVEL},
	{"levelname", F_LEVEL},
	{"severity", F_LEVEL},
	{"stream", F_LEVEL},
	{"date", F_TIME}, /* Fluent Bit's json_date_key */
	{"__realtime_timestamp", F_TIME},
	{"_hostname", F_HOST},
	{"_pid", F_PID},
	{"_raw", F_MSG},    /* Splunk's event, its search results exported as JSON */
	{"_time", F_TIME},  /* ... and its time */
	{"source", F_HOST}, /* Graylog's host, inside a search hit only (rec_field) */
};

bool pm_level_quiet(const char *s, size_t n)
{
	static const char *const quiet[] = {
		"warning", "warn",   "info", "debug", "trace", "notice", "verbose", "success",
		"wrn",	   "inf",    "dbg",  "trc",   "debu",  "trac",	 "vrb",	    "fine",
		"finer",   "finest", "w",    "i",     "d",     "v",	 "n",
	};

	for (size_t i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++)
		if (pm_in_ieq(s, n, quiet[i]))
			return true;
	return false;
}

bool pm_level_debug(const char *s, size_t n)
{
	static const char *const debug[] = {
		"debug", "dbg",	 "debu",  "trace",  "trc", "trac", "verbose",
		"vrb",	 "fine", "finer", "finest", "d",   "v",
	};

	for (size_t i = 0; i < sizeof(debug) / sizeof(debug[0]); i++)
		if (pm_in_ieq(s, n, debug[i]))
			return true;
	return false;
}

/* A record's fields as read, kept apart until the whole record is known to be one.
 * Offsets are from the record's start. */
struct rec {
	size_t msg, msg_end, exc, exc_end;
	int msg_key; /* the message's key in fields[]; -1 none */
	int exc_key; /* the traceback's key in fields[], plus one; 0 none */
	bool quiet;  /* its level a warning's or lower */
	bool debug;  /* ... a debug's or lower */
	bool msg_quoted, framed, has_t;
	double t;
	const char *host;
	size_t host_len;
	int host_rank; /* HOST's key's rank (rec_host), plus one; 0 none */
	bool host_hit; /* HOST is a search hit's or a shipper's own (pm_peel.node_hit) */
	bool in_hit;   /* the members read are a search hit's document (json_holder) */
	int ctx;       /* the members read are a host object's (json_member): its kind */
	int rank, pid;
};

/* The host objects a shipper writes in its document (json_member), by the key that holds
 * them: ECS's `host` ({"name": ..., "hostname": ...}), Beats' `agent` ({"hostname": ...}),
 * `kubernetes`, whose `node` holds the node's `name`. */
enum { CTX_NONE, CTX_HOST, CTX_AGENT, CTX_KUBE, CTX_KNODE };

/* The closing quote of the string opened at S[0]: its offset, 0 when the line ends first.
 * A quote after an odd number of backslashes is escaped. */
static size_t str_end(const char *s, size_t n)
{
	const char *q;
	size_t i = 1, at, b;

	while (i < n && (q = memchr(s + i, '"', n - i))) {
		at = (size_t)(q - s);
		for (b = 0; at - b > 1 && s[at - b - 1] == '\\'; b++)
			;
		if (!(b & 1))
			return at;
		i = at + 1;
	}
	return 0;
}

/* Epoch seconds written as a number ("ts": 1796008318.25, zap's and others'), or in
 * milliseconds, or in microseconds (journalctl -o json's __REALTIME_TIMESTAMP, a quoted
 * string that rec_field reads for that key alone): false for anything else. */
static bool epoch(const char *s, size_t n, double *t)
{
	size_t d = 0;
	double v;

	while (d < n && d < 17 && pm_in_isdigit(s[d]))
		d++;

	if (!pm_in_num(s, n, &v) || (d != 10 && d != 13 && d != 16))
		return false;
	*t = d == 16 ? v / 1e6 : d == 13 ? v / 1000 : v;
	return true;
}

/*
 * Host name V (VL bytes) for R, from a key of rank RANK: the lowest rank wins, then the first
 * read.  0: Kubernetes' node name (a container's host, whatever the shipper's pod calls
 * itself); 1: a record's host keys, ECS's host.name; 2: host.hostname (the name `hostname`
 * gives, which the syslog pipelines also set from the line they parsed); 3: the shipping
 * agent's host; 4: Graylog's `source`.  HIT: the name is a search hit's or a shipper's own,
 * the machine the hit came from (pm_peel.node_hit).
 */
static void rec_host(struct rec *r, const char *v, size_t vl, int rank, bool hit)
{
	if (!vl || name_len(v, vl) != vl || (r->host_rank && r->host_rank <= rank + 1))
		return;
	r->host = v;
	r->host_len = vl;
	r->host_rank = rank + 1;
	r->host_hit = hit;
}

/* Member KEY (KL bytes) = V (VL bytes) of a host object of kind R->ctx (json_member). */
static void rec_ctx_field(struct rec *r, const char *key, size_t kl, const char *v, size_t vl)
{
	if (r->ctx == CTX_KNODE && pm_in_ieq(key, kl, "name"))
		rec_host(r, v, vl, 0, true);
	else if (r->ctx == CTX_HOST && pm_in_ieq(key, kl, "name"))
		rec_host(r, v, vl, 1, true);
	else if (r->ctx == CTX_HOST && pm_in_ieq(key, kl, "hostname"))
		rec_host(r, v, vl, 2, true);
	else if (r->ctx == CTX_AGENT && pm_in_ieq(key, kl, "hostname"))
		rec_host(r, v, vl, 3, true);
}

/* Field KEY (KL bytes) = value V (VL bytes, quotes left out when QUOTED; STR: a string,
 * which logfmt's values all are). */
static void rec_field(struct rec *r, const char *base, const char *key, size_t kl, const char *v,
		      size_t vl, bool quoted, bool str)
{
	struct pm_in_stamp st;
	size_t i, k;
	int x;

	if (r->ctx) { /* a host object's members say nothing else */
		if (str)
			rec_ctx_field(r, key, kl, v, vl);
		return;
	}
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (pm_in_lower(key[0]) == fields[i].key[0] && pm_in_ieq(key, kl, fields[i].key))
			break;
	if (i == sizeof(fields) / sizeof(fields[0]))
		return;
	switch (fields[i].f) {
	case F_MSG:
		if (str && (r->msg_key < 0 || (int)i < r->msg_key)) {
			r->msg_key = (int)i;
			r->msg = (size_t)(v - base);
			r->msg_end = r->msg + vl;
			r->msg_quoted = quoted;
		}
		break;
	case F_EXC:
		/* the most specific key, as for the message: a traceback's before an error's */
		if (str && quoted && (!r->exc_key || (int)i + 1 < r->exc_key)) {
			r->exc_key = (int)i + 1;
			r->exc = (size_t)(v - base);
			r->exc_end = r->exc + vl;
		}
		break;
	case F_TIME:
		r->framed = true;
		if (r->has_t)
			break;
		if ((k = pm_in_iso(v, vl, &st)) && k == vl) {
			r->t = st.t;
			r->has_t = true;
		} else if ((!quoted || key[0] == '_') && epoch(v, vl, &r->t)) {
			r->has_t = true; /* journalctl -o json: microseconds, quoted */
		}
		break;
	case F_HOST:
		/* a search hit's host keys are its host's (Splunk's `host`, Graylog's `source`);
		 * an application's record's, a pod's name as often */
		if (str && (r->in_hit || pm_in_lower(key[0]) != 's'))
			rec_host(r, v, vl, pm_in_lower(key[0]) == 's' ? 4 : 1, r->in_hit);
		break;
	case F_RANK:
		if (r->rank < 0 && vl && rank_at(v, vl, &x) == vl)
			r->rank = x;
		break;
	case F_PID:
		if (r->pid < 0 && vl && pm_in_ndigits(v, vl) == vl && vl <= 9)
			r->pid = (int)capped(v, vl);
		break;
	case F_LEVEL:
		r->framed = true;
		if (str && vl > 1 && pm_level_quiet(v, vl))
			r->quiet = true;
		if (str && vl > 1 && pm_level_debug(v, vl))
			r->debug = true;
		break;
	case F_OTHER:
		break;
	}
}

/* The bytes of the JSON value at S (a string, a number, true, false, null, or an object or
 * array read through its nested strings), 0 when none ends on the line. */
static size_t json_value(const char *s, size_t n)
{
	size_t i, e, depth = 0;

	if (!n)
		return 0;
	if (s[0] == '"')
		return (e = str_end(s, n)) ? e + 1 : 0;
	if (s[0] == '{' || s[0] == '[') {
		for (i = 0; i < n; i++) {
			if (s[i] == '"') {
				if (!(e = str_end(s + i, n - i)))
					return 0;
				i += e;
			} else if (s[i] == '{' || s[i] == '[') {
				depth++;
			} else if ((s[i] == '}' || s[i] == ']') && !--depth) {
				return i + 1;
			}
		}
		return 0;
	}
	for (i = 0; i < n && (pm_in_isalnum(s[i]) || s[i] == '-' || s[i] == '+' || s[i] == '.');
	     i++)
		;
	return i;
}

/* Blanks, and a CR (a line end not cleaned yet). */
static size_t json_ws(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && (blank(s[i]) || s[i] == '\r'))
		i++;
	return i;
}

static size_t json_obj(const char *s, size_t p, size_t n, struct rec *r, int depth);

/* A member whose value is an object that holds the record itself: a search engine's hit
 * (Elasticsearch's and OpenSearch's `_source`, Splunk's exported `result`: *HIT, a document
 * a shipper wrote), Google Cloud Logging's `jsonPayload` (an application's record). */
static bool json_holder(const char *key, size_t kl, bool *hit)
{
	*hit = pm_in_ieq(key, kl, "_source") || pm_in_ieq(key, kl, "result");
	return *hit || pm_in_ieq(key, kl, "jsonpayload");
}

/* The kind of host object a member KEY (KL bytes) holds in a record of R (CTX_NONE: none):
 * ECS's `host` and `agent` and `kubernetes` in a record, a `node` in `kubernetes`. */
static int json_host_ctx(const struct rec *r, const char *key, size_t kl)
{
	if (r->ctx == CTX_KUBE)
		return pm_in_ieq(key, kl, "node") ? CTX_KNODE : CTX_NONE;
	if (r->ctx)
		return CTX_NONE;
	return pm_in_ieq(key, kl, "host")	? CTX_HOST :
	       pm_in_ieq(key, kl, "agent")	? CTX_AGENT :
	       pm_in_ieq(key, kl, "kubernetes") ? CTX_KUBE :
						  CTX_NONE;
}

/* One member of a JSON object, `"key": value`, at S + P (S[P] the key's quote): what it says
 * into R (rec_field; a holder's object's members too, DEPTH deep); the bytes it takes, 0 when
 * it is none. */
static size_t json_member(const char *s, size_t p, size_t n, struct rec *r, int depth)
{
	const char *key = s + p + 1;
	size_t kl, e, q = p;
	bool hit, in_hit;
	int ctx;

	if (!(e = str_end(s + p, n - p)))
		return 0;
	kl = e - 1;
	p += e + 1;
	p += json_ws(s + p, n - p);
	if (p >= n || s[p] != ':')
		return 0;
	p++;
	p += json_ws(s + p, n - p);
	if (!(e = json_value(s + p, n - p)))
		return 0;
	if (s[p] == '"') {
		rec_field(r, s, key, kl, s + p + 1, e - 2, true, true);
	} else if (s[p] == '{' && depth < 2 && !r->ctx && json_holder(key, kl, &hit)) {
		in_hit = r->in_hit;
		r->in_hit = hit;
		(void)json_obj(s, p, p + e, r, depth + 1);
		r->in_hit = in_hit;
	} else if (s[p] == '{' && depth < 4 && (ctx = json_host_ctx(r, key, kl))) {
		/* its members name the host, and nothing else: read apart from the record's */
		int was = r->ctx;
		r->ctx = ctx;
		(void)json_obj(s, p, p + e, r, depth + 1);
		r->ctx = was;
	} else {
		rec_field(r, s, key, kl, s + p, e, false, false);
	}
	return p + e - q;
}

/* The JSON object at S + P ("{" there, ending by N), DEPTH deep: its members into R; the
 * offset after its "}", 0 when it is none (cut, malformed, empty). */
static size_t json_obj(const char *s, size_t p, size_t n, struct rec *r, int depth)
{
	size_t e, fl = 0;

	p++;
	p += json_ws(s + p, n - p);
	while (p < n && s[p] == '"' && fl++ < REC_FIELDS) {
		if (!(e = json_member(s, p, n, r, depth)))
			return 0;
		p += e;
		p += json_ws(s + p, n - p);
		if (p < n && s[p] == ',') {
			p++;
			p += json_ws(s + p, n - p);
			continue;
		}
		return p < n && s[p] == '}' ? p + 1 : 0;
	}
	return 0;
}

/* A JSON object that is the whole rest of the line, "{" at S: its fields into R; false when
 * it is none (cut, malformed, followed by more text). */
static bool json_rec(const char *s, size_t n, struct rec *r)
{
	size_t p = json_obj(s, 0, n, r, 0);

	return p && p + json_ws(s + p, n - p) == n;
}

/* One member of a pretty-printed JSON object alone on its line, `"message": "...",` (an
 * error report dumped with an indent, as torchelastic's failure summary shows a rank's error
 * file): a message or traceback member is taken as a record whose text is its value, framed
 * by its shape; any other member, or anything after the value but a comma, is none. */
static bool member_rec(const char *s, size_t n, struct rec *r)
{
	size_t e = str_end(s, n), p;

	/* a data object's members as often as a log's */
	if (e && (pm_in_ieq(s + 1, e - 1, "log") || pm_in_ieq(s + 1, e - 1, "text") ||
		  pm_in_ieq(s + 1, e - 1, "line")))
		return false;
	if (!(p = json_member(s, 0, n, r, 2)) || s[p - 1] != '"')
		return false;
	p += json_ws(s + p, n - p);
	if (p < n && s[p] == ',')
		p += 1 + json_ws(s + p + 1, n - p - 1);
	if (p != n)
		return false;
	if (r->exc_end > r->exc) { /* a traceback alone: it is the text */
		r->msg_key = 0;
		r->msg = r->exc;
		r->msg_end = r->exc_end;
		r->msg_quoted = true;
		r->exc = r->exc_end = 0;
	}
	if (r->msg_key < 0)
		return false;
	r->framed = true;
	return true;
}

static bool key_char(char c)
{
	return pm_in_isalnum(c) || c == '_' || c == '.' || c == '-' || c == '@' || c == '/';
}

/* logfmt's "key=value key=\"quoted value\" ..." as the whole rest of the line, at S: its
 * fields into R; false when any word of it is no pair (prose that holds "level=" is no
 * record). */
static bool logfmt_rec(const char *s, size_t n, struct rec *r)
{
	size_t p = 0, k, v, e, pairs = 0;

	if (!pm_in_isalpha(s[0]) && s[0] != '_' && s[0] != '@')
		return false;
	for (k = 1; k < 64 && k < n && key_char(s[k]); k++)
		;
	if (k >= n || s[k] != '=') /* most lines: a word, then no '=' */
		return false;
	while (n && (blank(s[n - 1]) || s[n - 1] == '\r'))
		n--;
	while (p < n) {
		for (k = 0; k < 64 && p + k < n && key_char(s[p + k]); k++)
			;
		if (!k || k == 64 || p + k >= n || s[p + k] != '=' || ++pairs > REC_FIELDS)
			return false;
		v = p + k + 1;
		if (v < n && s[v] == '"') {
			if (!(e = str_end(s + v, n - v)))
				return false;
			rec_field(r, s, s + p, k, s + v + 1, e - 1, true, true);
			p = v + e + 1;
		} else {
			for (e = v; e < n && !blank(s[e]) && s[e] != '"'; e++)
				;
			if (e < n && s[e] == '"')
				return false;
			rec_field(r, s, s + p, k, s + v, e - v, false, true);
			p = e;
		}
		if (p < n && !blank(s[p]))
			return false;
		p += blanks(s + p, n - p, n);
	}
	return pairs >= 2;
}

/* Whether [S, S + N) ends in an escaped line break (Docker's "log" value, "...\n"). */
static bool escaped_break(const char *s, size_t n)
{
	size_t b = 0;

	if (n < 2 || s[n - 2] != '\\' || (s[n - 1] != 'n' && s[n - 1] != 'r'))
		return false;
	while (b + 2 < n && s[n - 3 - b] == '\\')
		b++;
	return !(b & 1);
}

/*
 * A structured logger's record, the whole rest of the line: a JSON object (JSON lines,
 * Docker's json-file driver) or logfmt's key=value pairs.  One with a message (message,
 * msg, log or text) and a time or a level is taken whole (so is one member of a
 * pretty-printed object, a message or a traceback: member_rec): its time, host, rank and pid kept
 * as other wrappers' are, the text is its message's value (without Docker's trailing line
 * break), whose own wrappers are peeled next, and a traceback field is kept for the
 * confirmation (pm_peel.xskip).  Anything else (cut, malformed, prose) is not a record: the
 * line is read as it is.
 */
static size_t record_layer(struct peel *w, const char *s, size_t n)
{
	struct rec r = {.msg_key = -1, .rank = -1, .pid = -1};
	size_t base = (size_t)(s - w->line), full = w->len - base;

	(void)n;
	if ((w->seen & W_REC) || !(s[0] == '{' ? json_rec(s, full, &r) :
				   s[0] == '"' ? member_rec(s, full, &r) :
						 logfmt_rec(s, full, &r)))
		return 0;
	if (r.msg_key < 0 || (!r.framed && !(w->seen & W_SHIPPED)))
		return 0;
	while (r.msg_quoted && escaped_break(s + r.msg, r.msg_end - r.msg))
		r.msg_end -= 2;
	w->seen |= W_REC;
	w->out->record = true;
	if (r.has_t)
		stamp(w, r.t);
	if (r.host && r.host_hit)
		hit_node(w, r.host, r.host_len);
	else if (r.host)
		weak_node(w, r.host, r.host_len);
	if (r.rank >= 0) /* the innermost rank wins: under torchrun srun's label numbers agents */
		w->out->rank = r.rank;
	if (r.pid >= 0 && w->out->pid < 0)
		w->out->pid = r.pid;
	w->out->quoted = r.msg_quoted && memchr(s + r.msg, '\\', r.msg_end - r.msg);
	w->out->quiet = r.quiet;
	w->out->debug = r.debug;
	if (r.exc_end > r.exc) {
		w->out->xskip = base + r.exc;
		w->out->xend = base + r.exc_end;
	}
	w->lim = base + r.msg_end;
	w->msg_head = r.msg_end - r.msg > PEEL_HEAD ? base + r.msg + PEEL_HEAD : w->lim;
	return r.msg;
}

typedef size_t layer_fn(struct peel *w, const char *s, size_t n);

static size_t quote_markers(const char *s, size_t n);

/* A Markdown or e-mail quote's markers ("> ", "> > ", ">> "): a paste quoted by a person,
 * outside every wrapper the log had (a whole file quoted is taken off by its paste shape). */
static size_t quote_layer(struct peel *w, const char *s, size_t n)
{
	size_t k = quote_markers(s, n);

	(void)w;
	return k && (s[k - 1] == ' ' || s[k - 1] == '\t') ? k : 0;
}

/* journalctl -o export's and -o verbose's (indented) "MESSAGE=" before a message's text: the
 * first layer only, upper case; its other fields are lines of their own. */
static size_t journal_field_layer(struct peel *w, const char *s, size_t n)
{
	return !w->out->layers && pm_in_starts(s, n, "MESSAGE=") ? 8 : 0;
}

/* A level in angle brackets or parentheses: "<E> ", "<W> ", "(I) " (the letters E, W, I, F,
 * D, V in upper case, as TensorRT's "[E]"), "<warning> ", "(ERROR) " (a level word, any
 * case): its length with the separator after it, 0 when S has none.  Digits are a syslog
 * priority's ("<6>"), not a level. */
static size_t mark_layer(struct peel *w, const char *s, size_t n)
{
	char close;
	size_t i, k, h;

	if (n < 4 || (s[0] != '<' && s[0] != '('))
		return 0;
	close = s[0] == '<' ? '>' : ')';
	for (i = 1; i < n && i < 10 && pm_in_isalpha(s[i]); i++)
		;
	if (i == 1 || i + 1 >= n || s[i] != close || !blank(s[i + 1]))
		return 0;
	if (!(i == 2 && strchr("EWIFDV", s[1])) && !is_level(s + 1, i - 1, true))
		return 0;
	severity(w, s + 1, i - 1);
	w->seen |= W_LOG | W_LEVEL;
	k = i + 1 + sep(s + i + 1, n - i - 1);
	/* "<E> solver: ", "<E> 2026-11-30 03:11:58 solver: ", as after "[ERROR] " */
	if ((h = logger_after(w, s, k, n)) > k)
		return h;
	w->after_level = s + k;
	return k;
}

/* The wrapper families, tried in this order at each layer; the first that recognises its
 * wrapper at S takes it.  A new family is one function and one entry here. */
static layer_fn *const families[] = {
	rank_layer,   nccl_layer,  bracket_layer,	mark_layer, paren_layer,
	frame_layer,  stamp_layer, level_layer,		name_layer, grep_layer,
	record_layer, quote_layer, journal_field_layer,
};

/* One layer at S: its bytes, 0 when none. */
static size_t layer(struct peel *w, const char *s, size_t n)
{
	size_t k;

	for (size_t i = 0; n && i < sizeof(families) / sizeof(families[0]); i++)
		if ((k = families[i](w, s, n)))
			return k;
	return 0;
}

/* After a carriage return that is followed by text, the terminal showed only that text:
 * a progress bar redrawn in place before it is not the line's. */
static size_t last_cr(const char *s, size_t from, size_t n)
{
	const char *r;
	size_t at = 0, i;

	for (i = from; i < n && (r = memchr(s + i, '\r', n - i)); i = (size_t)(r - s) + 1) {
		size_t j = (size_t)(r - s) + 1;
		size_t b = j + blanks(s + j, n - j, n);
		if (b < n && s[b] != '\r')
			at = j;
	}
	return at;
}

/* Layers from *P while they last, within LINE[0, HEAD); after a record, within the head of
 * its message. */
static void peel_from(struct peel *w, const char *line, size_t *p, size_t head)
{
	size_t q, k;

	for (int round = 0; round < PEEL_ROUNDS && !(w->seen & W_END); round++) {
		q = *p + blanks(line + *p, head - *p, 16);
		if (!(k = layer(w, line + q, head - q)))
			break;
		*p = q + k;
		if (!w->out->layers++)
			w->out->first = *p;
		if (w->msg_head) { /* a record's message: what wrappers it has are at its start */
			head = w->msg_head;
			w->msg_head = 0;
		}
	}
}

/* Ray's log deduplication ends the first line of a message repeated by other workers with
 * " [repeated 7x across cluster]", the first such line with its note after it ("(Ray
 * deduplicates logs by default. ...)"): where LINE[from, end) ends so, where the message
 * ends; else END.  Only after Ray's worker prefix: a program's own text keeps its words. */
static size_t ray_repeated(const char *line, size_t from, size_t end)
{
	static const char tag[] = " [repeated ", tail[] = "x across cluster]";
	const char *s = line + from, *at = NULL, *q;
	size_t n = end - from, i, d;

	for (i = 0; i + sizeof(tag) - 1 <= n && (q = memmem(s + i, n - i, tag, sizeof(tag) - 1));
	     i = (size_t)(q - s) + 1)
		at = q;
	if (!at)
		return end;
	i = (size_t)(at - s) + sizeof(tag) - 1;
	d = pm_in_ndigits(s + i, n - i);
	if (!d || !pm_in_starts(s + i + d, n - i - d, tail))
		return end;
	i += d + sizeof(tail) - 1;
	i += blanks(s + i, n - i, 8);
	if (i < n && !pm_in_starts(s + i, n - i, "(Ray deduplicates logs"))
		return end;
	return from + (size_t)(at - s);
}

/* The program's own "error: " opening the text at S (N bytes), after its name or path or
 * alone ("train.py: error: ", "/opt/bin/prep: Error: ", "error: "), with an exception's
 * type right after it and its ": " or the line's end ("KeyError: 'x'", "torch.OutOfMemoryError:
 * CUDA out of memory"): the bytes before the type, 0 when S has none.  argparse's
 * parser.error(), click's and many wrappers' handlers print an uncaught exception so. */
static size_t prog_error(const char *s, size_t n)
{
	size_t i = 0, t, e;

	while (i < n && i < 256 && (host_char(s[i]) || s[i] == '/' || s[i] == '~' || s[i] == '+'))
		i++;
	if (i && i + 2 < n && s[i] == ':' && s[i + 1] == ' ')
		i += 2;
	else
		i = 0;
	if (!pm_in_starts(s + i, n - i, "error: ") && !pm_in_starts(s + i, n - i, "Error: "))
		i = 0; /* "error: " alone, no name before it */
	if (!pm_in_starts(s + i, n - i, "error: ") && !pm_in_starts(s + i, n - i, "Error: "))
		return 0;
	t = e = i + 7;
	if (e >= n || !(pm_in_isalpha(s[e]) || s[e] == '_'))
		return 0;
	while (e < n && e < t + 128 && (host_char(s[e]) && s[e] != '-'))
		e++;
	if (!((e - t > 5 && !memcmp(s + e - 5, "Error", 5)) ||
	      (e - t >= 9 && !memcmp(s + e - 9, "Exception", 9))))
		return 0;
	if (e < n && s[e] == ':')
		e++;
	return e == n || blank(s[e]) ? t : 0;
}

void pm_peel(enum pm_format fmt, const char *line, size_t len, const struct pm_timectx *ctx,
	     struct pm_peel *out)
{
	struct peel w = {.ctx = ctx, .out = out, .line = line, .len = len};
	size_t p = 0, c;

	memset(out, 0, sizeof(*out));
	out->rank = out->label = out->agent_local = -1;
	out->pid = -1;
	out->end = len;
	if (!line)
		return;
	if (fmt != PM_FMT_APP && fmt != PM_FMT_TORCHRUN && fmt != PM_FMT_PYSPY) {
		struct pm_prefix px;

		pm_prefix_parse(fmt, line, len, &px);
		out->skip = px.skip;
		out->rank = px.rank;
		out->node = px.node;
		out->node_len = px.node_len;
		out->kernel = px.kernel;
		out->end = trim_end(line, out->skip, len);
		return;
	}
	peel_from(&w, line, &p, len < PEEL_HEAD ? len : PEEL_HEAD);
	if (!w.lim && (c = last_cr(line, p, len)) > p) {
		/* the text redrawn last may carry wrappers of its own */
		out->cr = p = c;
		peel_from(&w, line, &p, len - c < PEEL_HEAD ? len : c + PEEL_HEAD);
	}
	out->skip = p;
	/* a "[rankN]:" inside it, or any later layer's rank, is no local rank */
	out->rank_local = out->rank_local && !(w.seen & (W_RANK | W_LABEL)) && out->rank == w.local;
	out->end = trim_end(line, p, w.lim ? w.lim : len);
	if (w.seen & W_RAY)
		out->end = trim_end(line, p, ray_repeated(line, p, out->end));
	if (!w.lim && (c = prog_error(line + p, out->end - p)))
		out->prog = p + c;
	if (!out->node || out->node_weak) { /* slurmstepd names its node: stronger */
		struct pm_prefix px = {.rank = -1};
		stepd_node(line + p, out->end - p, &px);
		if (px.node) {
			out->node = px.node;
			out->node_len = px.node_len;
			out->node_weak = false;
			out->node_hit = false;
		}
	}
}

size_t pm_nccl_node(enum pm_format fmt, const char *line, size_t len, char *out, size_t cap)
{
	char buf[2048];
	struct pm_peel pe;
	struct pm_prefix px = {.rank = -1};
	size_t q;

	if (!line || !cap)
		return 0;
	if (len > sizeof(buf))
		len = sizeof(buf);     /* wrappers are read in a line's head */
	if (memchr(line, 0x1b, len)) { /* colour codes inside the prefix */
		len = pm_text_clean(line, len, buf);
		line = buf;
	}
	pm_peel(fmt, line, len, NULL, &pe);
	if (!pe.node || pe.node_weak || pe.skip > len)
		return 0;
	/* NCCL's prefix is the last wrapper (nothing after it is one): it ends where the text
	 * starts, whatever stronger prefix (Open MPI's "[host:pid] ") named the node first; the
	 * first that does has the whole host */
	for (q = 0; q < pe.skip; q++)
		if (nccl_prefix(line + q, len - q, &px) == pe.skip - q)
			break;
	if (q == pe.skip || px.node_len >= cap)
		return 0;
	memcpy(out, px.node, px.node_len);
	out[px.node_len] = '\0';
	return px.node_len;
}

static int hex(char c)
{
	if (pm_in_isdigit(c))
		return c - '0';
	c = pm_in_lower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The number written in D hex digits at S, -1 when there are not D of them. */
static long hex_at(const char *s, size_t n, size_t d)
{
	long v = 0;

	if (n < d)
		return -1;
	for (size_t i = 0; i < d; i++) {
		if (hex(s[i]) < 0)
			return -1;
		v = v * 16 + hex(s[i]);
	}
	return v;
}

/* Code point C in UTF-8 at O; its bytes. */
static size_t put_utf8(char *o, long c)
{
	if (c < 0x80) {
		o[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		o[0] = (char)(0xc0 | (c >> 6));
		o[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		o[0] = (char)(0xe0 | (c >> 12));
		o[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		o[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (c >> 18));
	o[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	o[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/* The escape "\\u..." at S: its code point (a surrogate pair's as one, a lone surrogate's
 * U+FFFD) and its bytes in *USED; -1 when it is none. */
static long unicode_escape(const char *s, size_t n, size_t *used)
{
	long c = hex_at(s + 2, n - 2, 4), lo;

	*used = 6;
	if (c < 0xd800 || c > 0xdfff)
		return c;
	if (c <= 0xdbff && n >= 12 && s[6] == '\\' && s[7] == 'u' &&
	    (lo = hex_at(s + 8, n - 8, 4)) >= 0xdc00 && lo <= 0xdfff) {
		*used = 12;
		return 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
	}
	return 0xfffd;
}

static char typographic_cp(long c);

size_t pm_unquote(const char *s, size_t n, char *out)
{
	static const char simple[] = "\"\"\\\\//b\bf\fn\nr\rt\ta\av\v";
	size_t i = 0, o = 0, used;
	long c;

	while (i < n) {
		const char *b = memchr(s + i, '\\', n - i), *e;
		size_t stop = b ? (size_t)(b - s) : n;

		memmove(out + o, s + i, stop - i); /* OUT may be S: it never gets ahead */
		o += stop - i;
		if ((i = stop) + 1 >= n) {
			if (i < n)
				out[o++] = s[i++]; /* a backslash at the end stays */
			break;
		}
		c = -1;
		used = 2;
		if (s[i + 1] && (e = strchr(simple, s[i + 1])) && (e - simple) % 2 == 0) {
			c = (unsigned char)e[1];
		} else if (s[i + 1] == 'x') {
			c = hex_at(s + i + 2, n - i - 2, 2);
			used = 4;
		} else if (s[i + 1] == 'u') {
			c = unicode_escape(s + i, n - i, &used);
		} else if (s[i + 1] == 'U') {
			c = hex_at(s + i + 2, n - i - 2, 8);
			if (c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
				c = -1;
			used = 10;
		}
		if (c < 0) {
			out[o++] = s[i++]; /* not an escape it knows: kept */
			continue;
		}
		if (s[i + 1] == 'x')
			out[o++] = (char)c;
		else if (typographic_cp(c)) /* as pm_text_clean makes them */
			out[o++] = typographic_cp(c);
		else
			o += put_utf8(out + o, c);
		i += used;
	}
	return o;
}

size_t pm_frame_end(const char *s, size_t n)
{
	return trim_end(s, 0, n);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

/* 128 bytes a round, three compares each: as fast as one memchr, where three were run. */
__attribute__((target("avx2"))) static size_t dirty_avx2(const char *s, size_t n, bool *hit)
{
	const __m256i esc = _mm256_set1_epi8(0x1b), cr = _mm256_set1_epi8('\r'),
		      e2 = _mm256_set1_epi8((char)0xe2), c2 = _mm256_set1_epi8((char)0xc2);
	size_t i = 0;

	for (*hit = false; i + 128 <= n; i += 128) {
		__m256i acc = _mm256_setzero_si256();
		for (int k = 0; k < 128; k += 32) {
			__m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(s + i + k));
			acc = _mm256_or_si256(acc, _mm256_cmpeq_epi8(v, esc));
			acc = _mm256_or_si256(acc, _mm256_cmpeq_epi8(v, cr));
			acc = _mm256_or_si256(acc, _mm256_cmpeq_epi8(v, e2));
			acc = _mm256_or_si256(acc, _mm256_cmpeq_epi8(v, c2));
		}
		if (_mm256_movemask_epi8(acc)) {
			*hit = true;
			break;
		}
	}
	return i;
}
#endif

/* Whether S holds a byte that pm_text_clean or pm_frame_end could change: ESC, CR or a
 * UTF-8 lead byte 0xE2 (box drawing is U+25xx) or 0xC2 (U+00A0, a no-break space).  The scan runs this over every chunk of
 * every log: one pass, vectorised where the CPU allows. */
bool pm_text_dirty(const char *s, size_t n)
{
	size_t i = 0;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	bool hit;

	if (__builtin_cpu_supports("avx2")) {
		i = dirty_avx2(s, n, &hit);
		if (hit)
			return true;
	}
#endif
	if (i < n && (memchr(s + i, 0x1b, n - i) || memchr(s + i, '\r', n - i) ||
		      memchr(s + i, 0xe2, n - i) || memchr(s + i, 0xc2, n - i)))
		return true;
	return false;
}

bool pm_has_frame(const char *s, size_t n)
{
	const char *p = s, *end = s + n;

	/* U+2500..U+257F are E2 94 80 .. E2 95 BF */
	while ((p = memchr(p, 0xe2, (size_t)(end - p))) && p + 1 < end) {
		if ((unsigned char)p[1] == 0x94 || (unsigned char)p[1] == 0x95)
			return true;
		p++;
	}
	return false;
}

/* ANSI: CSI "ESC [ params final", OSC "ESC ] ... BEL|ESC \", charset "ESC ( B", else ESC+1.
 * S starts at the ESC. */
size_t pm_ansi_len(const char *s, size_t n)
{
	size_t i;

	if (n < 2)
		return n;
	if (s[1] == '[') {
		for (i = 2;
		     i < n && i < 64 && (unsigned char)s[i] >= 0x20 && (unsigned char)s[i] <= 0x3f;
		     i++)
			;
		while (i < n && i < 64 && (unsigned char)s[i] >= 0x20 &&
		       (unsigned char)s[i] <= 0x2f)
			i++;
		return i < n && (unsigned char)s[i] >= 0x40 && (unsigned char)s[i] <= 0x7e ? i + 1 :
											     i;
	}
	if (s[1] == ']') {
		for (i = 2; i < n && i < 512 && s[i] != '\a' && s[i] != '\n'; i++)
			if (s[i] == 0x1b && i + 1 < n && s[i + 1] == '\\')
				return i + 2;
		return i < n && s[i] == '\a' ? i + 1 : i;
	}
	if ((s[1] == '(' || s[1] == ')') && n > 2)
		return 3;
	return 2;
}

/* The ASCII for a typographic quote or dash, code point C (U+2018, U+2019, U+201C, U+201D,
 * U+2013, U+2014), or for a space a web page writes in place of a blank (U+00A0, the
 * no-break space of an HTML &nbsp;, U+2000..U+200A, U+202F), or 0. */
static char typographic_cp(long c)
{
	switch (c) {
	case 0x2018:
	case 0x2019:
		return '\'';
	case 0x201c:
	case 0x201d:
		return '"';
	case 0x2013:
	case 0x2014:
		return '-';
	case 0xa0:
	case 0x202f:
		return ' ';
	default:
		return c >= 0x2000 && c <= 0x200a ? ' ' : 0;
	}
}

/* What pm_text_clean makes of the UTF-8 at S (N bytes): the ASCII of typographic_cp, or 0
 * for a character a web page puts in text it shows as nothing (U+200B..U+200D, zero-width
 * spaces and joiners; U+2060, the word joiner), which it drops; its bytes in *USED, 0 when
 * it keeps the character.  C2 A0 is U+00A0; E2 80 xx is U+2000 + xx - 0x80. */
static char typographic(const char *s, size_t n, size_t *used)
{
	unsigned char a = n ? (unsigned char)s[0] : 0, b = n > 1 ? (unsigned char)s[1] : 0;
	unsigned char c = n > 2 ? (unsigned char)s[2] : 0;

	*used = 0;
	if (a == 0xc2 && b == 0xa0) {
		*used = 2;
		return ' ';
	}
	if (a != 0xe2 || n < 3)
		return 0;
	if ((b == 0x80 && c >= 0x8b && c <= 0x8d) || (b == 0x81 && c == 0xa0)) {
		*used = 3;
		return 0;
	}
	if (b == 0x80 && c >= 0x80 && c <= 0xbf && typographic_cp(0x2000 + (long)(c - 0x80))) {
		*used = 3;
		return typographic_cp(0x2000 + (long)(c - 0x80));
	}
	return 0;
}

/* The next byte at or after S (before END) that may start what typographic() changes. */
static const char *typographic_lead(const char *s, const char *end)
{
	const char *a = memchr(s, 0xe2, (size_t)(end - s)), *b = memchr(s, 0xc2, (size_t)(end - s));

	return !a ? b : !b ? a : a < b ? a : b;
}

bool pm_text_typographic(const char *s, size_t n)
{
	size_t used;

	for (const char *p = s, *end = s + n; (p = typographic_lead(p, end)); p++)
		if (typographic(p, (size_t)(end - p), &used), used)
			return true;
	return false;
}

size_t pm_text_clean(const char *s, size_t n, char *out)
{
	size_t i = 0, o = 0, used;

	while (i < n) {
		const char *e = memchr(s + i, 0x1b, n - i);
		size_t lim = e ? (size_t)(e - s) : n;
		const char *r = memchr(s + i, '\r', lim - i);
		const char *q;
		size_t stop;

		lim = r ? (size_t)(r - s) : lim;
		q = typographic_lead(s + i, s + lim);
		while (q && (typographic(q, n - (size_t)(q - s), &used), !used))
			q = typographic_lead(q + 1, s + lim);
		stop = q ? (size_t)(q - s) : lim;
		memmove(out + o, s + i, stop - i); /* OUT may be S */
		o += stop - i;
		i = stop;
		if (i >= n)
			break;
		if (q) {
			char a = typographic(s + i, n - i, &used);

			if (a)
				out[o++] = a;
			i += used;
		} else if (s[i] == '\r') {
			if (!(i + 1 < n && s[i + 1] == '\n'))
				out[o++] = '\r';
			i++;
		} else {
			i += pm_ansi_len(s + i, n - i);
		}
	}
	return o;
}

#define PASTE_INDENT_MAX 64
#define QUOTE_LEAD 3 /* a person's lines above a quote */

/* A Markdown fence at S (N bytes, after a paste's indentation): ``` or ~~~. */
static bool fence(const char *s, size_t n)
{
	return n >= 3 && (!memcmp(s, "```", 3) || !memcmp(s, "~~~", 3));
}

static size_t quote_markers(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && s[i] == '>') {
		i++;
		if (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
	}
	return i;
}

/* A viewer's line number at S (N bytes, a line without its newline), in FORM: blanks, 1 to
 * 7 digits, then (PM_NUM_BLANK) blanks or the line's end (`cat -n`, `nl -ba`); (PM_NUM_BAR)
 * blanks, a '|' and a blank or the line's end (a file view's or a pastebin's gutter, `  12 |
 * text`); (PM_NUM_COLON) a ':' and a blank (`grep -n`, an editor's copy); or (PM_NUM_L) an
 * 'L' before the digits, then a blank (a permalink's anchors copied with their lines).  Its
 * bytes with the blanks after it (0: none) and *NUM. */
static size_t line_number(const char *s, size_t n, int form, long *num)
{
	size_t i = 0, d;

	while (i < n && i < 8 && s[i] == ' ')
		i++;
	if (form == PM_NUM_L) {
		if (i || n < 2 || s[0] != 'L')
			return 0;
		i = 1;
	}
	for (d = i; d < n && d - i < 8 && s[d] >= '0' && s[d] <= '9'; d++)
		;
	if (d == i || d - i > 7)
		return 0;
	*num = capped(s + i, d - i);
	if (form == PM_NUM_BAR) {
		while (d < n && s[d] == ' ')
			d++;
		if (d >= n || s[d] != '|' || (d + 1 < n && s[d + 1] != ' ' && s[d + 1] != '\t'))
			return 0;
		d++;
	} else if (form == PM_NUM_COLON) {
		if (d + 1 >= n || s[d] != ':' || s[d + 1] != ' ')
			return 0;
		d++;
	} else if (d < n && s[d] != ' ' && s[d] != '\t') {
		return 0;
	}
	while (d < n && (s[d] == ' ' || s[d] == '\t'))
		d++;
	return d;
}

/* The form in which every line of S (N bytes) up to its last newline, at least three, starts
 * with its number, counting up by one (`cat -n`, `nl -ba`, a log viewer's copy, a gutter);
 * 0 when none.  srun's --label (`3: `) is a colon after a number too, and a job's first
 * lines may come from tasks 0, 1, 2 in turn: a colon counts only from a number above 0 (an
 * editor's lines start at 1, srun's tasks at 0) over at least eight lines, more tasks' lines
 * in a row than a label shows. */
static int numbered(const char *s, size_t n)
{
	/* a gutter's bar first: its number and blanks alone would read as `cat -n`'s */
	static const int forms[] = {PM_NUM_BAR, PM_NUM_BLANK, PM_NUM_COLON, PM_NUM_L};

	for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++) {
		int form = forms[f];
		size_t i = 0, lines = 0;
		long first = 0, last = 0, num;
		bool all = true;

		while (i < n) {
			const char *nl = memchr(s + i, '\n', n - i);

			if (!nl)
				break;
			if (!line_number(s + i, (size_t)(nl - s) - i, form, &num) ||
			    (lines && num != last + 1)) {
				all = false;
				break;
			}
			first = lines ? first : num;
			last = num;
			lines++;
			i = (size_t)(nl - s) + 1;
		}
		/* a gutter's bar from 1 is plain enough in a file of a line or two (a pastebin's
		 * copy of a short kernel log) */
		if (!all || !lines || (lines < 3 && !(form == PM_NUM_BAR && first == 1)))
			continue;
		if (form == PM_NUM_COLON && (first < 1 || lines < 8))
			continue;
		return form;
	}
	return 0;
}

/* An RFC 3339 stamp at S (N bytes) and the blank after it, as a log collector puts it before
 * each line: its length with the blank, 0 when there is none. */
static size_t collector_stamp(const char *s, size_t n)
{
	struct pm_in_stamp st;
	size_t k = pm_in_iso(s, n, &st);

	return k && st.t_sep && st.zone && k < n && s[k] == ' ' ? k + 1 : 0;
}

/* A CI runner's stamps at S (N bytes), each with the blank after it, as GitHub Actions and
 * Azure Pipelines put one before every line a step printed: the first, then only others in
 * UTC's `Z` (a step that printed `kubectl logs --timestamps`); a stamp that ends the line is
 * an empty line's.  Their bytes, 0 when S starts with none. */
static size_t runner_stamps(const char *s, size_t n)
{
	struct pm_in_stamp st;
	size_t i = 0, k;

	for (int m = 0; i < n && (k = pm_in_iso(s + i, n - i, &st)) && st.t_sep && st.zone; m++) {
		if ((m && s[i + k - 1] != 'Z') || (i + k < n && s[i + k] != ' '))
			break;
		i += k + (i + k < n);
	}
	return i;
}

/* The runner's stamps at S (N bytes), after a reply's quote markers where a person quoted the
 * runner's log in turn (`> 2026-12-08T14:52:03.4533917Z > ...`): their bytes, 0 when none. */
static size_t runner_lead(const char *s, size_t n)
{
	size_t q = quote_markers(s, n), r = runner_stamps(s + q, n - q);

	return r ? q + r : 0;
}

/* S (N bytes, after a runner's stamps) is a workflow command's mark the runner writes itself
 * (`##[group]Run ...`, `##[endgroup]`, `##[command]`, `##[section]`, `##[error]`). */
static bool runner_mark(const char *s, size_t n)
{
	return n >= 3 && !memcmp(s, "##[", 3);
}

/* OUT told from the head S (N bytes), OUT's WRAP kept: with a width, a line that continues a
 * broken one is part of it, and says nothing of the paste's indentation, quotes or stamps.
 * RUNNER: read each line behind a CI runner's stamps, its own lines left out (OUT->RUNNER is
 * then set only where every other line is quoted behind them). */
static void shape_pass(const char *s, size_t n, struct pm_paste *out, bool runner)
{
	size_t i = 0, lines = 0, quoted = 0, lead = 0, stamped = 0, indent = PASTE_INDENT_MAX;
	size_t pls = 0, ple = 0;
	unsigned short wrap = out->wrap;
	bool group = false, whole;
	long num;

	memset(out, 0, sizeof(*out));
	out->numbered = (unsigned char)numbered(s, n);
	out->wrap = wrap;
	out->runner = runner;
	while (i < n) {
		const char *nl = memchr(s + i, '\n', n - i);
		size_t e, b, q, r = 0;
		bool cont;

		if (!nl)
			break; /* the head's last line may be cut */
		e = (size_t)(nl - s);
		cont = wrap && ple > pls && pm_paste_joins(s + pls, ple - pls, s + i, e - i, out);
		pls = i;
		ple = e;
		if (cont) {
			i = e + 1;
			continue;
		}
		if (out->numbered)
			i += line_number(s + i, e - i, out->numbered, &num);
		if (runner) {
			r = runner_lead(s + i, e - i);
			/* the runner's marks, and inside a group the step's script it echoes */
			if (r && runner_mark(s + i + r, e - i - r)) {
				group = pm_in_starts(s + i + r, e - i - r, "##[group]");
				i = e + 1;
				continue;
			}
			if (r && group && (i + r >= e || s[i + r] != '>')) {
				i = e + 1;
				continue;
			}
			i += r;
		}
		b = i;
		while (b < e && (s[b] == ' ' || s[b] == '\t'))
			b++;
		if (b < e && !fence(s + b, e - b)) {
			lines++;
			q = i + quote_markers(s + i, e - i);
			if (q > i && (!runner || r))
				quoted++;
			else {
				q = i;
				lead += !quoted && (!runner || r);
			}
			b = q;
			while (b < e && b - q < indent && (s[b] == ' ' || s[b] == '\t'))
				b++;
			if (b < e && b - q < indent)
				indent = b - q;
			while (b < e && (s[b] == ' ' || s[b] == '\t'))
				b++;
			stamped += collector_stamp(s + b, e - b) > 0;
		}
		i = e + 1;
	}
	/* a few lines of the person's own above a quote ("On Monday ... wrote:", "Here is the
	 * tail:") are no lines of the quoted log, and leave it a quote */
	whole = quoted == lines || (quoted >= 2 && lead <= QUOTE_LEAD && quoted + lead == lines);
	if (lines < 2 || (runner && !whole)) {
		out->runner = false;
		return;
	}
	out->stamped = stamped == lines;
	out->quoted = whole;
	if (!out->quoted && quoted) /* some lines quoted: their blanks are not the paste's */
		return;
	out->indent = (unsigned char)(indent >= 2 && indent < PASTE_INDENT_MAX ? indent : 0);
}

/* OUT told from the head S (N bytes), OUT's WRAP kept.  A quote behind a CI runner's stamps
 * first: read as a stamped program's output (the runner's stamp, then `> ` as a wrapper), the
 * head would show no quote, and a kernel log quoted in it (tail's `==> PATH <==` over a
 * neighbour's log) would be none, its sections unread. */
static void shape_of(const char *s, size_t n, struct pm_paste *out)
{
	unsigned short wrap = out->wrap;

	shape_pass(s, n, out, true);
	if (out->runner)
		return;
	out->wrap = wrap;
	shape_pass(s, n, out, false);
}

/* ---- a web page's or an archive's HTML escapes ---- */

/* The entity at S (N bytes, S[0] == '&') that pm_html_unescape undoes: its length, *C the
 * character; 0 when none. */
static size_t entity(const char *s, size_t n, char *c)
{
	static const struct {
		const char *e;
		char c;
	} ents[] = {{"&lt;", '<'},    {"&gt;", '>'},	{"&quot;", '"'}, {"&#39;", '\''},
		    {"&#x27;", '\''}, {"&apos;", '\''}, {"&amp;", '&'}};

	for (size_t k = 0; k < sizeof(ents) / sizeof(ents[0]); k++) {
		size_t l = strlen(ents[k].e);

		if (n >= l && !memcmp(s, ents[k].e, l)) {
			*c = ents[k].c;
			return l;
		}
	}
	return 0;
}

bool pm_html_escaped(const char *s, size_t n)
{
	bool seen = false, start = true;
	char c;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n') {
			start = true;
			continue;
		}
		if (start && (s[i] == '>' || s[i] == ' ' || s[i] == '\t'))
			continue;
		start = false;
		if (s[i] == '<' || s[i] == '>')
			return false;
		if (s[i] == '&' && entity(s + i, n - i, &c) && c != '&')
			seen = true;
	}
	return seen;
}

size_t pm_html_unescape(const char *s, size_t n, char *out)
{
	size_t i = 0, o = 0, l;
	char c;

	while (i < n) {
		const char *a = memchr(s + i, '&', n - i);
		size_t stop = a ? (size_t)(a - s) : n;

		memmove(out + o, s + i, stop - i); /* OUT may be S */
		o += stop - i;
		i = stop;
		if (i >= n)
			break;
		if ((l = entity(s + i, n - i, &c))) {
			out[o++] = c;
			i += l;
		} else {
			out[o++] = s[i++];
		}
	}
	return o;
}

/* ---- a terminal's copy: longer lines broken at its width ---- */

#define WRAP_MIN 60
#define WRAP_MAX 512

/* The characters of line S (N bytes), without its newline and CR. */
static size_t line_cols(const char *s, size_t n)
{
	size_t c = 0;

	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		n--;
	for (size_t i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xc0) != 0x80;
	return c;
}

/* Line S (N bytes) is a progress bar that ends as tqdm draws one, "... 60%|######    |
 * 300/500 [01:54<01:16,  2.63it/s, v_num=1]": a percentage and the bar between '|', then
 * its count and its bracketed times and rate closing the line.  tqdm sizes its bar to the
 * terminal's width, so a copy of a terminal holds such lines exactly as wide as the width,
 * each one whole (Lightning's, Hugging Face's, accelerate's epochs, one above the other). */
static bool bar_line(const char *s, size_t n)
{
	const char *p = memmem(s, n, "%|", 2), *q, *b;

	if (!p || s[n - 1] != ']')
		return false;
	p += 2;
	if (!(q = memchr(p, '|', n - (size_t)(p - s))) || q + 1 >= s + n || q[1] != ' ')
		return false;
	b = memmem(q, n - (size_t)(q - s), " [", 2);
	return b && b + 2 < s + n - 1;
}

/* Line S (N bytes) ends inside its text, as a piece a width cut off does: not in a frame's
 * side (a table's row), a multibyte character or padding (one blank after a word is the width
 * falling after it), and it is no rule (a separator, a frame's top: only '-', '=', '+', ...).
 * A carriage return inside it (a progress bar redrawn) is a program's own output, which no
 * terminal's copy holds; nor is a progress bar that closes its bracket at the width a piece
 * (bar_line: read-paste-progress-bars-at-width). */
static bool piece_end(const char *s, size_t n)
{
	size_t i;

	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		n--;
	if (memchr(s, '\r', n))
		return false;
	if (n && bar_line(s, n))
		return false;
	if (n > 1 && s[n - 1] == ' ')
		n--;
	if (!n || ((unsigned char)s[n - 1] & 0x80) || strchr(" \t|", s[n - 1]))
		return false;
	for (i = 0; i < n && strchr(" \t-=+*#_~|", s[i]); i++)
		;
	return i < n;
}

static int stamp_at(const char *s, size_t n, const struct pm_timectx *ctx, double *t);

/* S (N bytes) starts as a line of Slurm's own tools does: "srun: ", "slurmstepd: ",
 * "slurmstepd-gpu016: ", ... */
static bool slurm_tool_line(const char *s, size_t n)
{
	static const char *const tools[] = {"srun: ",	"srun[",    "slurmstepd",
					    "sbatch: ", "salloc: ", "slurmd: "};

	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		if (pm_in_starts(s, n, tools[i]))
			return true;
	return false;
}

/* A (N bytes) and B (M bytes) start with the same head of at least six bytes ending in ": "
 * within their first 128 bytes ("/var/spool/slurmd/job7/slurm_script: line 8: "). */
static bool same_head(const char *a, size_t n, const char *b, size_t m)
{
	size_t lim = n < m ? n : m;

	if (lim > 128)
		lim = 128;
	for (size_t i = 0; i + 1 < lim; i++) {
		if (a[i] != b[i])
			return false;
		if (i >= 6 && a[i] == ':' && a[i + 1] == ' ' && b[i + 1] == ' ')
			return true;
	}
	return false;
}

#define SAME_START 16

bool pm_paste_joins(const char *line, size_t n, const char *next, size_t nn,
		    const struct pm_paste *shape)
{
	static const struct pm_timectx any_year = {.year = 2000, .boot_time = 1};
	struct pm_peel pe;
	double t;
	size_t k, ls;

	if (!shape->wrap || line_cols(line, n) != shape->wrap)
		return false;
	/* a separator behind a reply's quote markers or a gutter is a separator still */
	ls = pm_paste_skip(line, n, shape);
	if (!piece_end(line + ls, n - ls))
		return false;
	while (nn && (next[nn - 1] == '\n' || next[nn - 1] == '\r'))
		nn--;
	/* the same line again is a message repeated (a retry's warning), not a piece and its
	 * continuation */
	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		n--;
	if (n == nn && !memcmp(line, next, n))
		return false;
	k = pm_paste_skip(next, nn, shape);
	/* one blank: the width fell before a word; more, or a tab: an indented line of its own
	 * (a traceback's frame) */
	if (k < nn && next[k] == ' ')
		k++;
	if (k >= nn || next[k] == ' ' || next[k] == '\t' || memchr(next + k, '\r', nn - k))
		return false;
	/* Slurm's own tools write whole lines: "srun: error: ..." after a line as wide as the
	 * widest starts a line of its own */
	if (slurm_tool_line(next + k, nn - k))
		return false;
	/* a line that starts with the same "head: " as the piece (a shell's script path and
	 * line, a program's name) is that program's next message, not a continuation; so is
	 * one that starts with the piece's first SAME_START bytes whatever follows (one
	 * message's template again: nvidia-smi's "Unable to determine the device handle for
	 * GPU ..." for each GPU, as wide as the widest line) */
	ls = pm_paste_skip(line, n, shape);
	if (same_head(line + ls, n - ls, next + k, nn - k) ||
	    (n - ls >= SAME_START && nn - k >= SAME_START &&
	     !memcmp(line + ls, next + k, SAME_START)))
		return false;
	/* a wrapper of a program's line, or a stamp of any log's (a kernel log's, a syslog's,
	 * glog's): the format is not known yet when the head's shape is told */
	pm_peel(PM_FMT_APP, next + k, nn - k, NULL, &pe);
	return !pe.layers && !stamp_at(next + k, nn - k, &any_year, &t);
}

/* S (N bytes) ends with a number right-aligned in a fixed-width column: two blanks or more
 * before it (a simulation code's table row, AMBER's "PRESS =     1.2", a Fortran format's
 * field).  A width's cut right after such a number before a letter would have glued a
 * number and a word into one ("1.2cudaMemcpy"), which a program's own line seldom holds. */
static bool column_end(const char *s, size_t n)
{
	size_t b = n;
	bool digit = false;

	while (b && (pm_in_isdigit(s[b - 1]) || s[b - 1] == '.')) {
		digit |= s[b - 1] != '.';
		b--;
	}
	if (b && (s[b - 1] == '-' || s[b - 1] == '+'))
		b--;
	return digit && pm_in_isdigit(s[n - 1]) && b >= 2 && s[b - 1] == ' ' && s[b - 2] == ' ';
}

/* Line S (N bytes) ends with a closing bracket and the next, NX (NN bytes), starts with a
 * capital: a program's own line and its next ("... (src/input.cpp:661)" then "Last command:
 * ..."), where a width's cut goes on in the same word ("ntopo_bond_all." then "cpp:59)") or
 * falls anywhere in a run of marks ("... TIME LIMIT **" then "*").  A full stop is no such
 * end: a dotted name's next part starts with a capital as often ("torch." then
 * "OutOfMemoryError").  So is a table row's last column and a line that starts with a letter
 * (column_end), unless the letter goes on as the number's exponent ("0.12" then "E+03"). */
static bool clause_end(const char *s, size_t n, const char *nx, size_t nn,
		       const struct pm_paste *shape)
{
	size_t k = pm_paste_skip(nx, nn, shape);

	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
		n--;
	if (k < nn && nx[k] == ' ')
		k++;
	if (n && strchr(")]}", s[n - 1]) && k < nn && nx[k] >= 'A' && nx[k] <= 'Z')
		return true;
	return column_end(s, n) && k < nn && pm_in_isalpha(nx[k]) &&
	       !(strchr("EeDd", nx[k]) && k + 1 < nn && nx[k + 1] &&
		 strchr("+-0123456789", nx[k + 1]));
}

/* A terminal's width of its own accord: its default, or one of the usual wide ones. */
static bool usual_width(size_t w)
{
	return w == 80 || w == 100 || w == 120 || w == 132 || w == 160 || w == 200;
}

/* SHAPE's WRAP told from the head S (N bytes; see input.h).  A paste of a few lines may hold a
 * single broken line: it counts when the width is a usual one.  In a longer file a single
 * line of a usual width before one of no wrapper is as likely chance. */
#define WRAP_FEW 10
static unsigned short wrap_width(const char *s, size_t n, struct pm_paste *shape)
{
	size_t i = 0, w = 0, pieces = 0, lines = 0;
	bool tail = false, closed = false;

	while (i < n) {
		const char *nl = memchr(s + i, '\n', n - i);
		size_t c;

		if (!nl)
			break;
		if ((c = line_cols(s + i, (size_t)(nl - s) - i)) > w)
			w = c;
		lines += c > 0;
		i = (size_t)(nl - s) + 1;
	}
	if (w < WRAP_MIN || w > WRAP_MAX)
		return 0;
	shape->wrap = (unsigned short)w;
	for (i = 0; i < n;) {
		const char *nl = memchr(s + i, '\n', n - i), *nx;
		size_t e, ne;

		if (!nl || !(nx = memchr(nl + 1, '\n', n - (size_t)(nl + 1 - s))))
			break;
		e = (size_t)(nl - s);
		ne = (size_t)(nx - s);
		if (pm_paste_joins(s + i, e - i, s + e + 1, ne - e - 1, shape)) {
			pieces++;
			tail |= line_cols(s + e + 1, ne - e - 1) < w;
			closed = clause_end(s + i, e - i, s + e + 1, ne - e - 1, shape);
		}
		i = e + 1;
	}
	shape->wrap = 0;
	/* a single piece is the weakest sign: one that ends as a program's own fixed-width line
	 * does (LAMMPS' "ERROR: ... (src/input.cpp:661)" at 80 columns) is read as that */
	if (!tail || !pieces || (pieces == 1 && (!usual_width(w) || lines > WRAP_FEW || closed)))
		return 0;
	return (unsigned short)w;
}

void pm_paste_shape(const char *s, size_t n, struct pm_paste *out)
{
	out->wrap = 0;
	shape_of(s, n, out);
	if ((out->wrap = wrap_width(s, n, out)))
		shape_of(s, n, out);
}

size_t pm_paste_skip(const char *line, size_t n, const struct pm_paste *shape)
{
	size_t i = 0, b;

	long num;

	if (n && line[n - 1] == '\n')
		n--;
	if (shape->numbered)
		i = line_number(line, n, shape->numbered, &num);
	if (shape->runner)
		i += runner_lead(line + i, n - i);
	if (shape->quoted)
		i += quote_markers(line + i, n - i);
	for (b = i; b < n && b - i < shape->indent && (line[b] == ' ' || line[b] == '\t'); b++)
		;
	if (shape->stamped) {
		size_t k;

		for (i = b; i < n && (line[i] == ' ' || line[i] == '\t'); i++)
			;
		/* a CI runner's stamp before a collector's (a step that printed `kubectl logs
		 * --timestamps`): each is the paste's; after the first, only one in UTC's `Z`,
		 * as collectors write it (an offset is the log's own: dmesg's, a syslog's) */
		for (int m = 0; (k = collector_stamp(line + i, n - i)); m++) {
			if (m && line[i + k - 2] != 'Z')
				break;
			b = i += k;
		}
	}
	return b;
}

size_t pm_paste_strip(const char *s, size_t n, const struct pm_paste *shape, char *out)
{
	size_t i = 0, o = 0;

	while (i < n) {
		const char *nl = memchr(s + i, '\n', n - i), *nx;
		size_t e = nl ? (size_t)(nl - s) + 1 : n;
		size_t k = pm_paste_skip(s + i, e - i, shape);
		/* a broken line's piece: its continuation follows in place of its newline (told
		 * before the piece is moved: OUT may be S) */
		bool join = nl && (nx = memchr(s + e, '\n', n - e)) &&
			    pm_paste_joins(s + i, e - i, s + e, (size_t)(nx - s) - e, shape);

		if (!fence(s + i + k, e - i - k)) {
			memmove(out + o, s + i + k, e - i - k); /* OUT may be S */
			o += e - i - k - join;
		}
		i = e;
	}
	return o;
}

/* ---- the time of a line: a stamp at its start, else the first among its wrappers ---- */

/* The stamp at the start of S (after blanks), if any. */
static int stamp_at(const char *s, size_t n, const struct pm_timectx *ctx, double *t)
{
	struct pm_in_stamp st;
	double v;
	size_t i = 0;
	bool has_t;

	bool v5424;
	unsigned pri;

	while (i < n && i < 32 && (s[i] == ' ' || s[i] == '\t'))
		i++;
	s += i;
	n -= i;
	/* a syslog forwarder's priority, RFC 5424's version after it */
	i = syslog_pri(s, n, &v5424, &pri);
	s += i;
	n -= i;
	if (pm_in_iso(s, n, &st)) {
		*t = st.t;
		return 1;
	}
	if (pm_in_syslog(s, n, ctx->year, &v))
		return ctx->year > 0 ? (*t = v, 1) : 0;
	/* journalctl -o short-full ("Tue 2026-12-01 04:10:29 UTC"), -o short-unix */
	if (pm_in_journal_full(s, n, &st)) {
		*t = st.t;
		return 1;
	}
	if (pm_in_unix(s, n, &v) && v >= 1e9) {
		*t = v;
		return 1;
	}
	/* dmesg -x -T: "kern  :err   : [Thu Dec  3 10:11:12 2026] " */
	i = dmesg_x(s, n);
	s += i;
	n -= i;
	if (n == 0 || s[0] != '[')
		return 0;
	if (pm_in_bracket_iso(s, n, t) || pm_in_dmesg_T(s, n, t))
		return 1;
	if (pm_in_dmesg_mono(s, n, &v))
		return ctx->boot_time > 0 ? (*t = ctx->boot_time + v, 1) : 0;
	if (s[0] == '[' && ctx->year > 0 && pm_in_glog(s, n, ctx->year, t, &has_t) && has_t)
		return 1;
	return 0;
}

int pm_time_parse(const char *line, size_t len, const struct pm_timectx *ctx, double *t)
{
	static const struct pm_timectx none = {0, 0};
	struct pm_peel pe;

	if (!line)
		return 0;
	if (!ctx)
		ctx = &none;
	if (pm_time_at(line, len, ctx, t))
		return 1;
	pm_peel(PM_FMT_APP, line, len, ctx, &pe);
	return pm_time_peeled(line, len, ctx, &pe, t);
}

int pm_time_at(const char *line, size_t len, const struct pm_timectx *ctx, double *t)
{
	return stamp_at(line, len, ctx, t);
}

int pm_time_peeled(const char *line, size_t len, const struct pm_timectx *ctx,
		   const struct pm_peel *pe, double *t)
{
	struct pm_prefix pf;

	/* the first stamp among the wrappers: a logging framework's, a launcher's */
	if (pe->has_time) {
		*t = pe->time;
		return 1;
	}
	pm_prefix_parse(PM_FMT_APP, line, len, &pf);
	if (pf.skip > 0 && pf.skip <= len && stamp_at(line + pf.skip, len - pf.skip, ctx, t))
		return 1;
	return 0;
}
