/*
 * prefix.c - the rank and host prefixes of log lines, and ranks in file names.
 *
 * Which prefixes apply depends on the format: one handler per format in a table.  Every
 * handler looks at a bounded head of the line only, so a 1 MB line costs what a short one
 * does.
 */
#include <string.h>

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

/* srun --label: "3: ", right-aligned " 3: " as srun pads to the widest task id. */
static size_t srun_label(const char *s, size_t n, int *rank)
{
	size_t p = 0, k;

	while (p < n && p < 8 && s[p] == ' ')
		p++;
	k = rank_at(s + p, n - p, rank);
	if (!k)
		return 0;
	p += k;
	if (p + 1 >= n || s[p] != ':' || s[p + 1] != ' ')
		return 0;
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

/* dmesg: optional "<6>" level, optional "kern  :err   : " (dmesg -x), then the stamp. */
static void dmesg_prefix(const char *s, size_t n, struct pm_prefix *out)
{
	size_t p = 0, k, i;
	double v;

	if (n >= 3 && s[0] == '<' && (k = num_then(s + 1, n - 1, '>')) && k <= 4)
		p = 1 + k;
	for (i = p; i < n && i < p + 8 && pm_in_isalpha(s[i]); i++)
		;
	if (i > p && i < n && (s[i] == ' ' || s[i] == ':')) {
		size_t q = i;

		while (q < n && s[q] == ' ')
			q++;
		if (q < n && s[q] == ':') {
			q++;
			while (q < n && q < i + 16 && (pm_in_isalpha(s[q]) || s[q] == ' '))
				q++;
			if (q + 1 < n && s[q] == ':' && s[q + 1] == ' ')
				p = q + 2;
		}
	}
	k = pm_in_dmesg_mono(s + p, n - p, &v);
	if (!k)
		k = pm_in_dmesg_T(s + p, n - p, &v);
	if (!k)
		return;
	p += k;
	if (p < n && s[p] == ' ')
		p++;
	out->skip = p;
}

static void kmsg_iso_prefix(const char *s, size_t n, struct pm_prefix *out)
{
	struct pm_in_stamp st;
	size_t k = pm_in_iso(s, n, &st);

	if (k && k < n && s[k] == ' ')
		out->skip = k + 1;
}

/* "Nov 30 03:11:58 gpu016 kernel: [  12.345678] " or "2026-11-30T03:11:58+0000 gpu016 ". */
static void syslog_prefix(const char *s, size_t n, struct pm_prefix *out)
{
	struct pm_in_stamp st;
	size_t p, h;
	double v;

	p = pm_in_syslog(s, n, 0, &v);
	if (!p)
		p = pm_in_iso(s, n, &st);
	if (!p || p >= n || s[p] != ' ')
		return;
	p++;
	h = host_at(s + p, n - p, ' ');
	if (!h)
		return;
	out->node = s + p;
	out->node_len = h;
	p += h + 1;
	if (pm_in_starts(s + p, n - p, "kernel: ")) {
		p += 8;
		h = pm_in_dmesg_mono(s + p, n - p, &v);
		if (h)
			p += h + (p + h < n && s[p + h] == ' ');
	}
	out->skip = p;
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

void pm_prefix_parse(enum pm_format fmt, const char *line, size_t len, struct pm_prefix *out)
{
	out->rank = -1;
	out->node = NULL;
	out->node_len = 0;
	out->skip = 0;
	if (!line || (unsigned)fmt >= PM_FMT__COUNT || !handlers[fmt])
		return;
	handlers[fmt](line, len, out);
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
	return found;
}
