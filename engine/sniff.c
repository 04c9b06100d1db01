/*
 * sniff.c - the format of a file, from its first bytes (FORMATS.md, "Evidence input").
 *
 * Structured formats are recognised by their header; log formats by what the majority of
 * the first lines look like, so that a job's output that quotes a few kernel lines stays
 * app (and untrusted).  Anything else that is text is app.
 */
#include <string.h>

#include "input.h"
#include "internal.h"
#include "evidence.h"

#define BIN_PROBE 4096	      /* bytes looked at for binary content */
#define SNIFF_MAX (64 * 1024) /* bytes looked at in all */
#define SNIFF_LINES 50	      /* non-empty lines voted on */
#define HEAD_LINES 12	      /* lines a header may be preceded by */

/* Length of a valid UTF-8 sequence at S (2..4), 0 when invalid, -1 when cut by the end. */
static int utf8_len(const unsigned char *s, size_t n)
{
	int want, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		want = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		want = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		want = 4;
	else
		return 0;
	for (i = 1; i < want; i++) {
		if ((size_t)i >= n)
			return -1;
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	}
	return want;
}

/* NUL bytes (over 1%) or other non-text (over 10%) in the first BIN_PROBE bytes. */
static bool is_binary(const char *buf, size_t len)
{
	const unsigned char *s = (const unsigned char *)buf;
	size_t n = len < BIN_PROBE ? len : BIN_PROBE, i = 0, nul = 0, bad = 0;
	int k;

	while (i < n) {
		unsigned char c = s[i];
		uint64_t w;

		/* eight printable ASCII bytes (0x20-0x7e) at once: most of a text file */
		if (i + 8 <= n) {
			memcpy(&w, s + i, 8);
			if (!(((w - 0x2020202020202020ULL) | (w + 0x0101010101010101ULL) | w) &
			      0x8080808080808080ULL)) {
				i += 8;
				continue;
			}
		}
		if (c == 0) {
			nul++;
		} else if (c >= 0x80) {
			k = utf8_len(s + i, n - i);
			if (k < 0)
				break;
			if (k > 0) {
				i += (size_t)k;
				continue;
			}
			bad++;
		} else if ((c < 0x20 && !strchr("\t\n\r\f\v\033", c)) || c == 0x7f) {
			bad++;
		}
		i++;
	}
	return nul * 100 > n || (nul + bad) * 10 > n;
}

/* The first non-empty lines of the sample, trimmed on the right only. */
struct lines {
	const char *buf; /* the whole sample */
	size_t len;
	const char *s[SNIFF_LINES];
	size_t n[SNIFF_LINES];
	size_t count;
};

static void take_lines(const char *buf, size_t len, struct lines *ls)
{
	const char *l;
	size_t pos = 0, n;

	ls->buf = buf;
	ls->len = len;
	ls->count = 0;
	while (ls->count < SNIFF_LINES && pm_in_next_line(buf, len, &pos, &l, &n)) {
		const char *t = l;
		size_t tn = n;

		pm_in_trim(&t, &tn);
		if (tn == 0)
			continue;
		while (n > 0 && pm_in_isspace(l[n - 1]))
			n--;
		ls->s[ls->count] = l;
		ls->n[ls->count++] = n;
	}
}

/* Line I trimmed on both sides, and with the job-output prefixes removed. */
static void bare(const struct lines *ls, size_t i, const char **s, size_t *n)
{
	struct pm_prefix pf;

	pm_prefix_parse(PM_FMT_APP, ls->s[i], ls->n[i], &pf);
	*s = ls->s[i] + pf.skip;
	*n = ls->n[i] - pf.skip;
	pm_in_trim(s, n);
}

static bool is_meminfo(const struct lines *ls)
{
	return ls->count > 0 && pm_in_starts(ls->s[0], ls->n[0], "MemTotal:");
}

static bool schema_line(const struct lines *ls, const char *schema)
{
	size_t i;

	for (i = 0; i < ls->count && i < HEAD_LINES; i++) {
		const char *s = ls->s[i];
		size_t n = ls->n[i];

		pm_in_trim(&s, &n);
		if (n > 0 && s[0] == '{' && pm_in_contains(s, n, "\"schema\""))
			return pm_in_contains(s, n, schema);
	}
	return false;
}

static bool is_prometheus(const struct lines *ls)
{
	return schema_line(ls, "\"postmortem.prometheus/1\"");
}

static bool is_rankmap(const struct lines *ls)
{
	return schema_line(ls, "\"postmortem.rankmap/1\"");
}

static bool is_taskexit(const struct lines *ls)
{
	return schema_line(ls, "\"postmortem.taskexit/1\"");
}

static bool is_nvsmi_q(const struct lines *ls)
{
	size_t i;

	for (i = 0; i < ls->count && i < HEAD_LINES; i++) {
		const char *s = ls->s[i];
		size_t n = ls->n[i], k = 13;

		pm_in_trim(&s, &n);
		if (pm_in_starts(s, n, "==============NVSMI LOG"))
			return true;
		if (pm_in_starts(s, n, "Attached GPUs")) {
			while (k < n && s[k] == ' ')
				k++;
			if (k < n && s[k] == ':')
				return true;
		}
	}
	return false;
}

/* A CSV header field of nvidia-smi: "pci.bus_id", "memory.used [MiB]". */
static bool csv_field(const char *s, size_t n, bool *key)
{
	static const char *const keys[] = {"index", "pci.bus_id", "gpu_bus_id", "uuid"};
	const char *u = memchr(s, '[', n);
	size_t i;

	if (u)
		n = (size_t)(u - s);
	pm_in_trim(&s, &n);
	if (n == 0)
		return false;
	for (i = 0; i < n; i++)
		if (!(pm_in_isdigit(s[i]) || (s[i] >= 'a' && s[i] <= 'z') || s[i] == '.' ||
		      s[i] == '_'))
			return false;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (pm_in_ieq(s, n, keys[i]))
			*key = true;
	return true;
}

static bool is_nvsmi_csv(const struct lines *ls)
{
	const char *s, *c;
	size_t n, fields = 0;
	bool key = false;

	if (ls->count == 0)
		return false;
	s = ls->s[0];
	n = ls->n[0];
	for (;;) {
		c = memchr(s, ',', n);
		if (!csv_field(s, c ? (size_t)(c - s) : n, &key))
			return false;
		fields++;
		if (!c)
			break;
		n -= (size_t)(c - s) + 1;
		s = c + 1;
	}
	return fields >= 2 && key;
}

/* --query-compute-apps=pid,process_name,used_memory,gpu_bus_id without its header: every
 * line of the head such a row. */
static bool is_nvsmi_apps(const struct lines *ls)
{
	size_t i, rows = 0;

	for (i = 0; i < ls->count && i < HEAD_LINES; i++) {
		const char *s = ls->s[i];
		size_t n = ls->n[i];

		pm_in_trim(&s, &n);
		if (n == 0)
			continue;
		if (!pm_nvsmi_apps_line(s, n))
			return false;
		rows++;
	}
	return rows > 0;
}

/*
 * nvidia-smi's default table: a box's edge ("+----") or row ("| NVIDIA-SMI 550.90.07 ...",
 * "| Processes:") within the head, after at most two other lines (its date, the command
 * that printed it).  Whether it is the table alone, with its Processes box, is told from the
 * whole file (pm_nvsmi_table_whole).
 */
static bool is_nvsmi_table(const struct lines *ls)
{
	size_t i, other = 0;
	bool edge = false;

	for (i = 0; i < ls->count && i < HEAD_LINES; i++) {
		const char *s = ls->s[i];
		size_t n = ls->n[i];

		pm_in_trim(&s, &n);
		if (n == 0)
			continue;
		if (pm_in_starts(s, n, "+---")) {
			edge = true;
			continue;
		}
		if (s[0] != '|') {
			if (edge || ++other > 2)
				return false;
			continue;
		}
		s++;
		n--;
		pm_in_trim(&s, &n);
		if (pm_in_starts(s, n, "NVIDIA-SMI ") || pm_in_starts(s, n, "Processes:"))
			return true;
	}
	return false;
}

/* Whether line S of N is one of a record's: scontrol's "KEY=VALUE ..." (CMD "scontrol") or
 * sacct's "a|b|c" (CMD "sacct"). */
static bool record_line(const char *s, size_t n, const char *cmd)
{
	size_t k = 0;

	if (cmd[1] == 'a')
		return memchr(s, '|', n) != NULL;
	while (k < n && (pm_in_isalnum(s[k]) || strchr("_:/.", s[k])))
		k++;
	return k > 0 && k < n && s[k] == '=' && !pm_in_isdigit(s[0]);
}

/*
 * Whether the lines of LS after the header at H are all a record's, blank, a fence, a
 * command line that printed another record, or a bare prompt ("[u@login1 ~]$"): Slurm's
 * report as it was saved or pasted.  A file that goes on past the record with lines of
 * another kind is a job's output that printed the record (`scontrol show job $SLURM_JOB_ID`
 * or `sacct -p -j ...` in a batch script, under any --output name) and then its own lines:
 * the job's output, scanned as such, and its printed job state is no record of Slurm's.
 */
static bool record_only(const struct lines *ls, size_t h, const char *cmd)
{
	for (size_t i = h + 1; i < ls->count; i++) {
		const char *s = ls->s[i];
		size_t n = ls->n[i];

		pm_in_trim(&s, &n);
		if (n == 0 || record_line(s, n, cmd) || pm_in_cmd_lead(s, n, cmd) ||
		    s[n - 1] == '$' || s[n - 1] == '#')
			continue;
		return false;
	}
	return true;
}

/* sacct's --parsable or --parsable2 header, after at most two lines a paste has above it
 * (pm_in_sacct_lead: the command line, a fence; the parser skips them too). */
static bool is_sacct_p(const struct lines *ls)
{
	const char *s, *c;
	size_t n, h = 0;

	while (h < 2 && h < ls->count && pm_in_sacct_lead(ls->s[h], ls->n[h]))
		h++;
	if (ls->count <= h || !memchr(ls->s[h], '|', ls->n[h]) || !record_only(ls, h, "sacct"))
		return false;
	s = ls->s[h];
	n = ls->n[h];
	for (;;) {
		size_t f;

		c = memchr(s, '|', n);
		f = c ? (size_t)(c - s) : n;
		if (pm_in_ieq(s, f, "JobID") || pm_in_ieq(s, f, "JobIDRaw"))
			return true;
		if (!c)
			return false;
		n -= f + 1;
		s = c + 1;
	}
}

/* Whether the white-space separated words of (S, N) include WORD (any case). */
static bool has_word(const char *s, size_t n, const char *word)
{
	size_t i = 0, j;

	while (i < n) {
		while (i < n && pm_in_isspace(s[i]))
			i++;
		j = i;
		while (j < n && !pm_in_isspace(s[j]))
			j++;
		if (j > i && pm_in_ieq(s + i, j - i, word))
			return true;
		i = j;
	}
	return false;
}

/* sacct's table under its header; above the header, a paste may have the command line that
 * printed it and a Markdown fence (pm_in_sacct_lead, which the parser skips too). */
static bool is_sacct_table(const struct lines *ls)
{
	size_t i, h = 0;
	bool dash = false;

	while (h < 2 && h < ls->count && pm_in_sacct_lead(ls->s[h], ls->n[h]))
		h++;
	if (ls->count < h + 2 || !has_word(ls->s[h], ls->n[h], "State") ||
	    !(has_word(ls->s[h], ls->n[h], "JobID") || has_word(ls->s[h], ls->n[h], "JobIDRaw")))
		return false;
	for (i = 0; i < ls->n[h + 1]; i++) {
		if (ls->s[h + 1][i] == '-')
			dash = true;
		else if (ls->s[h + 1][i] != ' ')
			return false;
	}
	return dash;
}

/* scontrol show job's record, after at most two lines a paste has above it (the command
 * line, a fence: pm_in_cmd_lead; the parser reads only KEY=VALUE tokens). */
static bool is_scontrol(const struct lines *ls)
{
	const char *s;
	size_t n, h = 0;

	while (h < 2 && h < ls->count && pm_in_cmd_lead(ls->s[h], ls->n[h], "scontrol"))
		h++;
	if (ls->count <= h)
		return false;
	s = ls->s[h];
	n = ls->n[h];
	pm_in_trim(&s, &n);
	return pm_in_starts(s, n, "JobId=") && n > 6 && pm_in_isdigit(s[6]) &&
	       pm_in_contains(s, n, " JobName=") && record_only(ls, h, "scontrol");
}

/* torchelastic's failure summary: a "=====" rule or "Failures:" first, a root cause below. */
static bool is_torchrun(const struct lines *ls)
{
	const char *s;
	size_t i, n, k;
	bool head = false;

	for (i = 0; i < ls->count && i < 6 && !head; i++) {
		bare(ls, i, &s, &n);
		for (k = 0; k < n && s[k] == '='; k++)
			;
		head = (i == 0 && n >= 20 && k == n) || pm_in_ieq(s, n, "Failures:");
	}
	return head && pm_in_contains(ls->buf, ls->len, "Root Cause (first observed failure)");
}

/* "Thread 0x7F2A4C1B2740 (idle): ..." or "Thread 40074 (active): ..." */
static bool pyspy_thread(const char *s, size_t n)
{
	size_t i = 7;

	if (!pm_in_starts(s, n, "Thread "))
		return false;
	if (pm_in_starts(s + i, n - i, "0x"))
		i += 2;
	while (i < n &&
	       (pm_in_isdigit(s[i]) || (pm_in_lower(s[i]) >= 'a' && pm_in_lower(s[i]) <= 'f')))
		i++;
	return i > 7 && pm_in_starts(s + i, n - i, " (");
}

static bool is_pyspy(const struct lines *ls)
{
	const char *s;
	size_t i, n, k = 8;

	if (ls->count == 0)
		return false;
	bare(ls, 0, &s, &n);
	if (pyspy_thread(s, n))
		return true;
	if (!pm_in_starts(s, n, "Process "))
		return false;
	while (k < n && pm_in_isdigit(s[k]))
		k++;
	if (k == 8 || k >= n || s[k] != ':')
		return false;
	for (i = 1; i < ls->count && i < HEAD_LINES; i++) {
		bare(ls, i, &s, &n);
		if (pyspy_thread(s, n))
			return true;
	}
	return false;
}

/* Structured formats, tried in order on the first lines. */
static const struct {
	enum pm_format fmt;
	bool (*test)(const struct lines *ls);
} headers[] = {
	{PM_FMT_MEMINFO, is_meminfo},	    {PM_FMT_RANK_MAP, is_rankmap},
	{PM_FMT_PROMETHEUS, is_prometheus}, {PM_FMT_TASK_EXIT, is_taskexit},
	{PM_FMT_NVSMI_Q, is_nvsmi_q},	    {PM_FMT_NVSMI_CSV, is_nvsmi_csv},
	{PM_FMT_NVSMI_CSV, is_nvsmi_apps},  {PM_FMT_NVSMI_TABLE, is_nvsmi_table},
	{PM_FMT_SACCT_P, is_sacct_p},	    {PM_FMT_SACCT_TABLE, is_sacct_table},
	{PM_FMT_SCONTROL_JOB, is_scontrol}, {PM_FMT_TORCHRUN, is_torchrun},
	{PM_FMT_PYSPY, is_pyspy},
};

/* A syslog tag after the host: "kernel:", "slurmd[1234]:".  With ONLY_DAEMON, only the kernel's
 * or one with a process id: a syslog daemon's tags. */
static bool syslog_tag(const char *s, size_t n, bool only_daemon)
{
	size_t i = 0;

	if (only_daemon && !pm_in_starts(s, n, "kernel:") && !memchr(s, '[', n < 66 ? n : 66))
		return false;
	while (i < n && i < 64 && (pm_in_isalnum(s[i]) || strchr("_.-/@", s[i])) && s[i])
		i++;
	if (i == 0 || i >= n)
		return false;
	if (s[i] == '[') {
		i++;
		while (i < n && pm_in_isdigit(s[i]))
			i++;
		if (i >= n || s[i] != ']')
			return false;
		i++;
	}
	return i < n && s[i] == ':' && (i + 1 == n || s[i + 1] == ' ');
}

/* A dmesg-shaped stamp, "[1733200000.123456]", that counts seconds since the epoch, not
 * since boot: no kernel has been up 31 years.  UCX stamps its log lines so ("[<epoch.usec>]
 * [host:pid:thread]  ib_mlx5_log.c:177  Transport retry count exceeded on mlx5_0:1/IB"), and
 * so do other programs' loggers: the job's output, not a kernel log. */
static bool epoch_stamp(const char *s, size_t n)
{
	double v;

	return pm_in_dmesg_mono(s, n, &v) && v >= 1e9;
}

/* What one line looks like: a kernel or slurm log format, or PM_FMT_APP. */
static enum pm_format line_kind(const char *s, size_t n)
{
	struct pm_prefix pf;
	struct pm_in_stamp st;
	size_t k;

	/* dmesg --time-format iso's exact stamp first: syslog's ISO stamps use '.' */
	k = pm_in_iso(s, n, &st);
	if (k && k < n && s[k] == ' ' && st.t_sep && st.frac_sep == ',' && st.frac_digits == 6 &&
	    st.colon_zone)
		return PM_FMT_KMSG_ISO;
	/* A stamp in UTC written with 'Z' is a log collector's (docker, kubectl, a CI runner):
	 * syslog daemons and journald write an offset.  Behind it, a program's line "GPU
	 * available: True" reads as a host and a tag; a syslog line behind it has the kernel's
	 * tag or a daemon's process id. */
	bool zulu = k && st.zone && s[k - 1] == 'Z';

	pm_prefix_parse(PM_FMT_SYSLOG, s, n, &pf);
	if (pf.node && pf.skip && s[0] == '<') /* RFC 5424's whole header */
		return PM_FMT_SYSLOG;
	if (pf.node) {
		k = (size_t)(pf.node - s) + pf.node_len + 1;
		if (syslog_tag(s + k, n - k, zulu))
			return PM_FMT_SYSLOG;
	} else if (pf.skip) {
		/* a copy with the host cut out: the parser takes it only before "kernel: " */
		return PM_FMT_SYSLOG;
	}
	pm_prefix_parse(PM_FMT_DMESG, s, n, &pf);
	if (pf.skip && !epoch_stamp(s, n))
		return PM_FMT_DMESG;
	if (n > 1 && s[0] == '[' && pm_in_iso(s + 1, n - 1, &st) && st.t_sep) {
		pm_prefix_parse(PM_FMT_SLURMD_LOG, s, n, &pf);
		if (pf.skip)
			return PM_FMT_SLURMD_LOG;
	}
	return PM_FMT_APP;
}

/* slurmctld's vocabulary against slurmd's. */
static enum pm_format slurm_kind(const struct lines *ls)
{
	static const char *const ctld[] = {
		"_slurm_rpc_",		"sched:",	    "backfill",		"_job_complete",
		"Time limit exhausted", "slurmctld",	    "_pick_best_nodes", "job_time_limit",
		"Allocate JobId=",	"Requeuing JobId=", "node_not_resp",	"_kill_job_on_node",
	};
	static const char *const slurmd[] = {
		"launch task",	 "_rpc_terminate_job", "_rpc_launch", "Launching batch job",
		"done with job", "slurmstepd",	       "_run_prolog", "_run_epilog",
		"task/",	 "slurmd version",     "task_p_",     "_handle_stray",
	};
	size_t i, j, c = 0, d = 0;

	for (i = 0; i < ls->count; i++) {
		for (j = 0; j < sizeof(ctld) / sizeof(ctld[0]); j++)
			c += pm_in_contains(ls->s[i], ls->n[i], ctld[j]);
		for (j = 0; j < sizeof(slurmd) / sizeof(slurmd[0]); j++)
			d += pm_in_contains(ls->s[i], ls->n[i], slurmd[j]);
	}
	return c > d ? PM_FMT_SLURMCTLD_LOG : PM_FMT_SLURMD_LOG;
}

/* The log format most of the first lines have, or app. */
static enum pm_format majority(const struct lines *ls)
{
	size_t votes[PM_FMT__COUNT] = {0}, i;
	enum pm_format best = PM_FMT_APP;

	for (i = 0; i < ls->count; i++)
		votes[line_kind(ls->s[i], ls->n[i])]++;
	for (i = 0; i < PM_FMT__COUNT; i++)
		if (i != PM_FMT_APP && votes[i] * 2 > ls->count)
			best = (enum pm_format)i;
	if (best == PM_FMT_SLURMD_LOG)
		return slurm_kind(ls);
	return best;
}

/*
 * Compressed and archive formats, by their first bytes.  gzip and zstd are read through
 * (evidence.c); the others are named so that a caller can say why it did not read them.
 */
static const struct {
	const char *magic;
	size_t len;
	const char *name;
} packed[] = {
	{"\x1f\x8b", 2, "gzip"},
	{"\x28\xb5\x2f\xfd", 4, "zstd"},
	{"\xfd\x37zXZ\x00", 6, "xz"},
	{"\x04\x22\x4d\x18", 4, "lz4"},
	{"\x02\x21\x4c\x18", 4, "lz4 (legacy)"},
	{"PK\x03\x04", 4, "zip"},
	{"PK\x05\x06", 4, "zip"},
	{"7z\xbc\xaf\x27\x1c", 6, "7z"},
	{"\x1f\x9d", 2, "compress (.Z)"},
	{"\x1f\xa0", 2, "compress (.Z)"},
	{"LZIP\x01", 5, "lzip"},
	{"\x89LZO\x00\r\n\x1a\n", 9, "lzop"},
	{"\xff\x06\x00\x00sNaPpY", 10, "snappy"},
	{"Rar!\x1a\x07", 6, "rar"},
	{"\x5d\x00\x00", 3, "lzma"},
};

const char *pm_packed_format(const void *buf, size_t len)
{
	const unsigned char *b = buf;

	for (size_t i = 0; i < sizeof(packed) / sizeof(packed[0]); i++)
		if (len >= packed[i].len && !memcmp(b, packed[i].magic, packed[i].len))
			return packed[i].name;
	if (len >= 10 && !memcmp(b, "BZh", 3) && b[3] >= '1' && b[3] <= '9' &&
	    (!memcmp(b + 4, "1AY&SY", 6) || !memcmp(b + 4, "\x17rE8P\x90", 6)))
		return "bzip2";
	/* zstd skippable frames (0x184D2A5?, little-endian) hide what follows them */
	if (len >= 4 && (b[0] & 0xf0) == 0x50 && b[1] == 0x2a && b[2] == 0x4d && b[3] == 0x18)
		return "zstd";
	return NULL;
}

enum pm_format pm_sniff(const char *buf, size_t len)
{
	struct lines ls;
	size_t i;

	if (!buf || len == 0)
		return PM_FMT_EMPTY;
	if (is_binary(buf, len))
		return PM_FMT_BINARY;
	if (len > SNIFF_MAX)
		len = SNIFF_MAX;
	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0) {
		buf += 3;
		len -= 3;
	}
	take_lines(buf, len, &ls);
	if (ls.count == 0)
		return PM_FMT_APP;
	for (i = 0; i < sizeof(headers) / sizeof(headers[0]); i++)
		if (headers[i].test(&ls))
			return headers[i].fmt;
	return majority(&ls);
}
