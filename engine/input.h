/*
 * input.h - small helpers shared by the input parsers (sniff.c, prefix.c, timeparse.c,
 * hostlist.c, parse_*.c).  Not installed.  Every helper takes (pointer, length), never reads
 * past the length and never needs a NUL terminator; none depends on the locale.
 */
#ifndef PM_INPUT_H
#define PM_INPUT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static inline bool pm_in_isdigit(char c)
{
	return c >= '0' && c <= '9';
}

static inline bool pm_in_isalpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static inline bool pm_in_isalnum(char c)
{
	return pm_in_isdigit(c) || pm_in_isalpha(c);
}

static inline bool pm_in_isspace(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

static inline char pm_in_lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* Digits at S, at most 10; 0 when none. */
static inline size_t pm_in_ndigits(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && i < 10 && pm_in_isdigit(s[i]))
		i++;
	return i;
}

/*
 * Take the next line of BUF (LEN bytes) starting at *POS: *LINE and *N get the line without
 * its "\n" or "\r\n"; *POS moves past it.  Returns false at the end of the buffer.
 */
static inline bool pm_in_next_line(const char *buf, size_t len, size_t *pos, const char **line,
				   size_t *n)
{
	const char *nl;
	size_t l;

	if (*pos >= len)
		return false;
	*line = buf + *pos;
	nl = memchr(*line, '\n', len - *pos);
	l = nl ? (size_t)(nl - *line) : len - *pos;
	*pos += l + (nl ? 1 : 0);
	if (l > 0 && (*line)[l - 1] == '\r')
		l--;
	*n = l;
	return true;
}

/* Remove leading and trailing white space from (*S, *N). */
static inline void pm_in_trim(const char **s, size_t *n)
{
	while (*n > 0 && pm_in_isspace(**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n > 0 && pm_in_isspace((*s)[*n - 1]))
		(*n)--;
}

/* True when (S, N) equals the string LIT, ignoring ASCII case. */
static inline bool pm_in_ieq(const char *s, size_t n, const char *lit)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (lit[i] == '\0' || pm_in_lower(s[i]) != pm_in_lower(lit[i]))
			return false;
	return lit[n] == '\0';
}

/* True when (S, N) starts with the string LIT (case-sensitive). */
static inline bool pm_in_starts(const char *s, size_t n, const char *lit)
{
	size_t l = strlen(lit);

	return n >= l && memcmp(s, lit, l) == 0;
}

/* True when (S, N) contains the string LIT. */
static inline bool pm_in_contains(const char *s, size_t n, const char *lit)
{
	size_t l = strlen(lit);
	const char *p = s, *end = s + n, *q;

	if (l == 0)
		return true;
	while ((size_t)(end - p) >= l && (q = memchr(p, lit[0], (size_t)(end - p) - l + 1))) {
		if (memcmp(q, lit, l) == 0)
			return true;
		p = q + 1;
	}
	return false;
}

/* Whether (S, N) holds one of the NW words W, ignoring case, as a whole word: not between
 * letters or digits ("gn12-dmesg.out" holds dmesg; "fused-kernels.out" holds no kernel). */
static inline bool pm_in_has_word(const char *s, size_t n, const char *const *w, size_t nw)
{
	for (size_t i = 0; i < nw; i++) {
		size_t l = strlen(w[i]);
		for (size_t k = 0; k + l <= n; k++)
			if (!strncasecmp(s + k, w[i], l) && (k == 0 || !pm_in_isalnum(s[k - 1])) &&
			    (k + l == n || !pm_in_isalnum(s[k + l])))
				return true;
	}
	return false;
}

/* A line a pasted scheduler report may have above its header: a Markdown fence (``` or ~~~)
 * or the command line that printed it ("$ sacct -j 4412390", "[u@login1 ~]$ sacct ...",
 * "/usr/bin/sacct -o JobID,State%30", "$ scontrol show job 81"): the word CMD, after the
 * line's start, a blank, a prompt's '$', '#' or '>', or a path's '/', and before a blank or
 * the line's end.  A shell trace's "+ scontrol show job 660218" is not one: set -x writes it
 * into the job's own output, and the record that follows is a part of that output, not the
 * whole file. */
static inline bool pm_in_cmd_lead(const char *s, size_t n, const char *cmd)
{
	size_t c = strlen(cmd);

	while (n > 0 && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	if (n > 0 && *s == '+')
		return false;
	if (n >= 3 && (!memcmp(s, "```", 3) || !memcmp(s, "~~~", 3)))
		return true;
	for (size_t i = 0; i + c <= n; i++)
		if (!memcmp(s + i, cmd, c) && (i == 0 || strchr(" \t$#>/", s[i - 1])) &&
		    (i + c == n || s[i + c] == ' ' || s[i + c] == '\t'))
			return true;
	return false;
}

/* The same for sacct's table and its --parsable forms. */
static inline bool pm_in_sacct_lead(const char *s, size_t n)
{
	return pm_in_cmd_lead(s, n, "sacct");
}

/*
 * Parse all of (S, N) as a decimal integer with an optional sign.  Returns false for an
 * empty string, any other character, or a value outside [-10^18, 10^18].
 */
static inline bool pm_in_int(const char *s, size_t n, long long *v)
{
	long long x = 0;
	bool neg = false;
	size_t i = 0;

	if (n > 0 && (s[0] == '-' || s[0] == '+')) {
		neg = s[0] == '-';
		i++;
	}
	if (i == n)
		return false;
	for (; i < n; i++) {
		if (!pm_in_isdigit(s[i]) || x > 100000000000000000LL)
			return false;
		x = x * 10 + (s[i] - '0');
	}
	*v = neg ? -x : x;
	return true;
}

/* Parse all of (S, N) as an int within [LO, HI]. */
static inline bool pm_in_int_range(const char *s, size_t n, long long lo, long long hi, int *v)
{
	long long x;

	if (!pm_in_int(s, n, &x) || x < lo || x > hi)
		return false;
	*v = (int)x;
	return true;
}

/*
 * Parse all of (S, N) as a decimal number ("12", "-3.5", "71.32"); no exponent, no
 * locale.  Returns false for anything else, or more than 40 digits.
 */
static inline bool pm_in_num(const char *s, size_t n, double *v)
{
	double x = 0, scale = 1;
	bool neg = false, frac = false, any = false;
	size_t i = 0;

	if (n > 40)
		return false;
	if (n > 0 && (s[0] == '-' || s[0] == '+')) {
		neg = s[0] == '-';
		i++;
	}
	for (; i < n; i++) {
		if (s[i] == '.' && !frac) {
			frac = true;
		} else if (pm_in_isdigit(s[i])) {
			any = true;
			if (frac) {
				scale /= 10;
				x += (s[i] - '0') * scale;
			} else {
				x = x * 10 + (s[i] - '0');
			}
		} else {
			return false;
		}
	}
	if (!any)
		return false;
	*v = neg ? -x : x;
	return true;
}

/* Fill REASON (may be NULL) and return -1: the parsers' one way to refuse a file. */
__attribute__((format(printf, 3, 4))) static inline int pm_in_fail(char *reason, size_t rlen,
								   const char *fmt, ...)
{
	va_list ap;

	if (reason && rlen > 0) {
		va_start(ap, fmt);
		vsnprintf(reason, rlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* ---- time stamps (timeparse.c); each returns the bytes it used at S, 0 when none ---- */

/* What an ISO 8601 stamp looked like, for telling dmesg --time-format iso from others. */
struct pm_in_stamp {
	double t; /* epoch seconds, the offset applied */
	size_t len;
	bool t_sep;    /* 'T' between date and time (else a space) */
	char frac_sep; /* '.' or ',', 0 when no fraction */
	int frac_digits;
	bool zone;	 /* 'Z' or an offset was given */
	bool colon_zone; /* the offset was "+hh:mm" */
};

/* "2026-11-30T03:11:58,123+00:00" and its variants; not followed by a letter or digit. */
size_t pm_in_iso(const char *s, size_t n, struct pm_in_stamp *st);
/* "Nov 30 03:11:58", its seconds with a fraction of up to nine digits or none ("Nov 30
 * 03:11:58.123456", journalctl -o short-precise); *T is set only when YEAR > 0. */
size_t pm_in_syslog(const char *s, size_t n, int year, double *t);
/* journalctl -o short-full's "Tue 2026-12-01 04:10:29 UTC": a weekday, the date and time and
 * the zone's abbreviation; ST->zone only for UTC (GMT), any other name being local time. */
size_t pm_in_journal_full(const char *s, size_t n, struct pm_in_stamp *st);
/* journalctl -o short-unix's "1796098229.123456" (epoch seconds, six fraction digits), a
 * blank or the end after it. */
size_t pm_in_unix(const char *s, size_t n, double *t);
/* "[  123.456789]" (six fraction digits): seconds since boot in *MONO. */
size_t pm_in_dmesg_mono(const char *s, size_t n, double *mono);
/* "[Mon Nov 30 03:11:58 2026]" */
size_t pm_in_dmesg_T(const char *s, size_t n, double *t);
/* "[2026-11-30T03:11:58.002]" (slurm) or "[2026-11-30 03:44:00.000]" (Megatron) */
size_t pm_in_bracket_iso(const char *s, size_t n, double *t);

/* "[E1130 03:44:00.123456 40074 file.cc:616]" (PyTorch's C++ side), the same without the
 * brackets or the thread id (glog, absl), and absl's "E0000 00:00:1796010000.123 ..." before
 * its clock is set: the bytes through the ']'.  *HAS_T (and *T) when a time can be told: a
 * month and day need YEAR > 0. */
size_t pm_in_glog(const char *s, size_t n, int year, double *t, bool *has_t);
/* "09/04/2026 02:49:57,123" (month/day/year) */
size_t pm_in_usdate(const char *s, size_t n, double *t);

/* log4j's "yy/MM/dd HH:mm:ss" at S ("26/11/30 03:11:58", Spark's default layout; the year is
 * 2000 + yy): its length (17) with *T set, 0 when S has none. */
size_t pm_in_yymmdd(const char *s, size_t n, double *t);
/* "09-05 01:24:34" (month-day, no year): *HAS_T when YEAR > 0 */
size_t pm_in_mmdd(const char *s, size_t n, int year, double *t, bool *has_t);

/* ---- the wrappers in front of a line's text (prefix.c, READING.md) ---- */

#include "internal.h"

/*
 * What the stack of wrappers in front of a line says: the launcher's, the shell's, the
 * container's and the logging framework's prefixes, a carriage-return progress bar, a box
 * frame.  The text the program printed is LINE[skip, end).  Node names from a shell's or a
 * container's prefix ("gpu016: ", "[gpu016]", "gpu016 | ") are weak: a file name, a pod or a
 * word could look the same, so they name a node only when the evidence knows that node.
 */
struct pm_peel {
	size_t skip;	  /* bytes of wrappers before the text */
	size_t end;	  /* end of the text: a CRLF's CR and a right frame cut off */
	size_t cr;	  /* start of the text after the last carriage return (0: none) */
	size_t first;	  /* end of the outermost wrapper (0: none) */
	size_t logger;	  /* where a logger's "name: " after a level word starts, when one was
			   * peeled as such (Python's "%(levelname)s %(name)s: %(message)s"): the
			   * text from there, if the line's own message starts "word: " (0: none) */
	size_t level;	  /* where the last level word peeled starts ("0: ERROR: Lost atoms..."):
			   * the text from there, if the program's own message starts with a level
			   * word, as LAMMPS' "ERROR: " (0: none) */
	size_t prog;	  /* where an exception's type starts after the program's own "error: "
			   * opening the text ("train.py: error: KeyError: ...", argparse's and
			   * CLI wrappers' shape): the exception's line as Python printed it, for a
			   * rule that reads it only at a token's start (0: none) */
	int rank;	  /* -1: no wrapper says */
	bool rank_weak;	  /* RANK is a spaced tag's ("[Rank 0] "): a file's name says more */
	bool rank_local;  /* RANK is torchrun's "[defaultN]:" alone: the worker's LOCAL rank
			   * on its agent's node, the global rank only where the job ran on
			   * one node (att_ranks.c, local_ranks) */
	int label;	  /* srun's label: the task that wrote the line, in the numbering of
			   * Slurm's tasks and the rank map, whatever rank tag follows (-1: none) */
	int agent_local;  /* torchrun's "[defaultN]:" under srun's label: N, the worker's
			   * local rank on the agent LABEL, whatever rank tag follows (-1: none;
			   * att_ranks.c, local_ranks) */
	int pid;	  /* -1: no wrapper says */
	const char *node; /* points into the line; NULL: none */
	size_t node_len;
	bool node_weak;
	/* HIT: a search hit's or a shipper's own host field (ECS's host.name, Splunk's host,
	 * Graylog's source), pointing into the line (NULL: none): the line came from that
	 * machine, whatever the file's name says, so the scan keeps the name though the evidence
	 * does not know it, where the message's own wrappers name no host it knows.  NODE_HIT:
	 * NODE (weak) is HIT. */
	const char *hit;
	size_t hit_len;
	bool node_hit;
	bool has_time; /* TIME: the first (outermost) stamp that could be read */
	double time;
	unsigned layers; /* wrappers taken */
	/* RECORD: the line is a structured logger's record (a JSON object, logfmt's key=value
	 * pairs), the text its message's value, with escapes to undo (pm_unquote) before a
	 * pattern sees it when QUOTED, a line break in it read as one; LINE[xskip, xend), when
	 * not empty, the value of its exception field (a traceback), escaped the same way. */
	bool record;
	bool quoted;
	bool quiet; /* RECORD's level field is a warning's or lower (warning, info, debug ...) */
	bool debug; /* ... a debug's or lower (debug, trace, verbose) */
	/* SEV: a logging framework's level word was peeled, whatever its family ("ERROR - ",
	 * "[WARNING]", glog's "W1130", loguru's "| INFO |", logrus' "WARN[0042]", zerolog's
	 * "WRN"): LINE[sev_at] is where the last one starts, SEV_QUIET whether it is a
	 * warning's or lower (pm_level_quiet) */
	bool sev;
	bool sev_quiet;
	bool sev_debug; /* ... whether it is a debug's or lower (pm_level_debug) */
	size_t sev_at;
	size_t xskip, xend;
	bool kernel; /* a syslog line the kernel wrote (pm_prefix.kernel) */
};

/*
 * Peel the wrappers of one line (LEN bytes, no newline, any bytes) of a file of format FMT.
 * Only a bounded head of the line is looked at, save a structured record's, which is read
 * to its end in one pass.  CTX (may be NULL) gives the year of stamps without one.  Kernel
 * and daemon formats keep their own prefixes (pm_prefix_parse).
 */
void pm_peel(enum pm_format fmt, const char *line, size_t len, const struct pm_timectx *ctx,
	     struct pm_peel *out);

/*
 * The node NCCL's "host:pid:tid [dev] " names on LINE under whatever wrappers pm_peel takes
 * off first (a logger's record, a container's, a parallel shell's or Open MPI's prefix,
 * colour codes), into OUT (CAP bytes, NUL-terminated): its length, 0 when the line has no
 * such prefix.
 */
size_t pm_nccl_node(enum pm_format fmt, const char *line, size_t len, char *out, size_t cap);

/*
 * The value of a quoted string (N bytes at S, the quotes left out) with its escapes undone
 * into OUT (N bytes at least; OUT may be S): JSON's (\" \\ \/ \b \f \n \r \t \uXXXX, a
 * surrogate pair as one character, a lone one as U+FFFD) and Go's \xNN, \a, \v and
 * \UXXXXXXXX (logfmt's).  An escape it does not know stays as it is.  A typographic quote or
 * dash escaped (Python's json.dumps writes \u2019) is written as pm_text_clean makes it: ' " -.
 * The bytes written.
 */
size_t pm_unquote(const char *s, size_t n, char *out);

/*
 * pm_time_parse in two steps, for a caller that has the line peeled already: the stamp at
 * the line's start (CTX not NULL), else, with PE what pm_peel(PM_FMT_APP, LINE, LEN, CTX)
 * gives, the first stamp among its wrappers.  1 and *T set when found, else 0.
 */
int pm_time_at(const char *line, size_t len, const struct pm_timectx *ctx, double *t);
int pm_time_peeled(const char *line, size_t len, const struct pm_timectx *ctx,
		   const struct pm_peel *pe, double *t);

/* S without its ANSI escape sequences (colours, cursor moves, titles), with each CRLF made
 * LF and typographic quotes and dashes (U+2018, U+2019, U+201C, U+201D, U+2013, U+2014: what
 * forum software and GCC in a UTF-8 locale print for ' " -) made ASCII, the spaces a web page
 * writes for blanks (U+00A0, HTML's &nbsp;, U+2000..U+200A, U+202F) made blanks and its
 * zero-width characters (U+200B..U+200D, U+2060) dropped, into OUT, which has room for N
 * bytes: the length written.  Every other newline is kept, so the text keeps its
 * lines. */
size_t pm_text_clean(const char *s, size_t n, char *out);

/* True when S holds a typographic quote, dash or space pm_text_clean makes ASCII, or a
 * zero-width character it drops. */
bool pm_text_typographic(const char *s, size_t n);

/* Whether the level word S (N bytes, any case) is a warning's or lower: warning, warn, info,
 * debug, trace, notice, verbose, loguru's success, java.util.logging's fine, finer and finest,
 * their three-letter forms (wrn, inf, dbg, trc, vrb: zerolog, Serilog, .NET), logrus'
 * four-letter debu and trac, or the one-letter w, i, d, v of a bracketed level ("[W] ") or
 * glog's header, and n of apt's "N: ". */
bool pm_level_quiet(const char *s, size_t n);

/* Whether the level word of N bytes at S is a debug's or lower (debug, trace, verbose,
 * java.util.logging's fine, finer and finest, their short forms, the letters D and V): a line
 * a program wrote only for whoever debugs it. */
bool pm_level_debug(const char *s, size_t n);

/*
 * A pasted file's indentation: a log pasted as a Markdown code block (every line indented)
 * or a quote (every line after "> "), which hides a line's start from the reader and the
 * rules.  pm_paste_shape reads it off the head of a file (S, N bytes: its lines that are
 * whole): NUMBERED when every line, at least three, starts with its number counting up by
 * one, then blanks; QUOTED when every line that is not blank starts (after that) with '>',
 * INDENT the blanks every one of them starts with after that (0 to 64); STAMPED when each of
 * them then starts with an RFC 3339 stamp (a date, 'T', a time, a zone) and a blank: a log
 * collector's stamp put before every line it kept (docker logs -t, kubectl logs --timestamps,
 * a CI runner's log).  None of the last three with fewer than two such lines.  STAMPED is
 * only a candidate here: whether the stamp is a layer around another log's lines or the log's
 * own (an ISO syslog, dmesg --time-format iso) is told by what the lines are without it
 * (scan.c, sniff_head).  RUNNER: the quote's markers follow a CI runner's stamps (GitHub
 * Actions' `2026-01-02T03:04:05.1234567Z > ...`: a step that printed a reply quoting a log),
 * every quoted line after them; the runner's own lines (its `##[group]` command marks, the
 * step's script it echoes inside a group) count for nothing (pm_paste_shape tells it first:
 * QUOTED alone would see no marker at a line's start; a reply's quote of such a log puts its
 * markers before the stamps).  pm_paste_skip: the bytes of LINE (N
 * bytes) that the shape takes off its start: its number and the blanks after it, the runner's
 * stamps, its quote markers ('>' and the blank after each), up to INDENT blanks, then the
 * stamp and its blank (one: what follows may be the log's own, as dmesg --time-format iso's);
 * never its newline.
 *
 * WRAP: the width (in characters) at which a terminal's or a viewer's copy broke every longer
 * line into lines of exactly that width, 0 when the head shows none.  It is told from the
 * head's longest lines (60 to 512 characters): at least two of them are each followed by a
 * line that continues them (pm_paste_joins), one such continuation shorter, the end of a
 * broken line; or one, in a head of at most ten lines, at a usual width (80, 100, 120, 132,
 * 160, 200).  Lines of one length that each start with a wrapper of their own (every rank's
 * same message) are records, not pieces.  The indentation, quotes and stamps are told from
 * the lines that continue none.  pm_paste_joins: LINE (N bytes, its newline may follow) is
 * such a piece and NEXT (NN bytes) its continuation, to be read as one line with it: LINE is
 * WRAP characters long and ends inside the text (not in a table's '|', padding or a
 * multibyte character; no separator; no carriage return inside), and NEXT, its shape taken
 * off and one blank after that, is not blank and starts with no wrapper and no log's stamp.
 */
enum { PM_NUM_BLANK = 1, PM_NUM_BAR, PM_NUM_COLON, PM_NUM_L };
struct pm_paste {
	unsigned char indent;
	bool quoted;
	bool runner;		/* QUOTED behind a CI runner's stamps */
	unsigned char numbered; /* every line after its number, in a PM_NUM_ form (`cat -n`, a
				 * viewer's copy, a gutter); 0: none */
	bool stamped;		/* every line after a collector's stamp */
	bool escaped;		/* HTML's entities in place of < > " ' & (pm_html_escaped) */
	unsigned short wrap;	/* longer lines broken at this width (a terminal's copy) */
};
void pm_paste_shape(const char *s, size_t n, struct pm_paste *out);
/* Whether S (N bytes, a head) was escaped for HTML (a web page's source, a mail or RSS
 * archive): it holds `&lt;`, `&gt;`, `&quot;` or `&#39;` (`&#x27;`), and no raw `<`, nor a
 * raw `>` past the quote markers that start a line (a reply's, quoting the escaped text). */
bool pm_html_escaped(const char *s, size_t n);
/* S (N bytes) with `&lt;` `&gt;` `&quot;` `&#39;` `&#x27;` `&apos;` `&amp;` made the
 * characters they stand for, into OUT (room for N bytes, may be S): the length written. */
size_t pm_html_unescape(const char *s, size_t n, char *out);
size_t pm_paste_skip(const char *line, size_t n, const struct pm_paste *shape);
bool pm_paste_joins(const char *line, size_t n, const char *next, size_t nn,
		    const struct pm_paste *shape);

/* S (N bytes, whole lines) with pm_paste_skip taken off each line and without the Markdown
 * fences around a code block (a line that starts with ``` or ~~~), into OUT (room for N
 * bytes, may be S): the length written.  For the head a format is told from. */
size_t pm_paste_strip(const char *s, size_t n, const struct pm_paste *shape, char *out);

/* The length of the line S (N bytes, no newline) without a box frame's right side
 * ("text   │", "───╯"), trailing blanks and a CR. */
size_t pm_frame_end(const char *s, size_t n);

/* True when S holds a byte pm_text_clean or a frame could change (ESC, CR, 0xE2): a cheap
 * test before the others. */
bool pm_text_dirty(const char *s, size_t n);

/* True when S holds a box-drawing character (U+2500..U+257F). */
bool pm_has_frame(const char *s, size_t n);

#endif /* PM_INPUT_H */
