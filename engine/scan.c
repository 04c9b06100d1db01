/*
 * scan.c - one pass over the evidence: sniff every input, parse the structured ones, scan
 * the text ones with the rule set's Vectorscan database, confirm each candidate line with
 * PCRE2, and evaluate the structured conditions.  Observations are grouped by (rule, node,
 * rank): the first few lines of a group are kept and the rest counted, so that memory stays
 * bounded however large the logs are.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "evidence.h"
#include "input.h"
#include "redact.h"
#include "ruleset.h"

#define SNIFF_BYTES 8192
#define STRUCT_CAP PM_STRUCT_CAP
#define LINE_KEEP 512
#define HOLE_MIN 16 /* NULs in a row that are a hole in a line, not its bytes */

struct hit {
	unsigned rule;
	bool ok; /* scan_chunk: the hit's line, once sorted: ok, from ls to le */
	unsigned long long to;
	size_t ls, le;
};

/* A line's wrappers as pm_peel gives them, for LEN bytes at LINE of the chunk being scanned,
 * peeled as an application's line (APP) or as its file's format. */
struct peeled {
	const char *line;
	size_t len;
	bool app;
	struct pm_peel pe;
};

struct group {		  /* 32 bytes: one for each observation kept (eight a node) */
	const char *node; /* points into the obs */
	uint32_t rule;
	int rank;
	uint32_t obs; /* first obs of the group */
	unsigned kept;
	uint32_t file; /* NOFILE, or the file of lines of no node */
};

/* A file whose lines name no node may be placed later by its name or its folder (HOST.dmesg,
 * gpu017/train.log in a folder gathered by hand): such lines are grouped per file, so that
 * the same line in 38 hosts' files stays 38 observations to place rather than three kept
 * and 35 counted under the first file's node.  Tallies are counted across files. */
#define NOFILE UINT32_MAX

/* A hit of a rule with 'last' that waits for the next chunk (scan.pend): its line and the
 * rest of its chunk after it, copied (TEXT, N bytes, the line's NLINE first), and what
 * confirm read of the chunk then. */
struct pend {
	size_t ri;
	char *text;
	size_t n, nline;
	uint64_t off, line_next;
	bool line_yields, daemon;
};

struct scan {
	struct pm_evidence *ev;
	const struct pm_ruleset *rs;
	size_t file;
	hs_scratch_t *scratch;
	pcre2_match_data *md;
	struct hit *hits;
	size_t nhits, ahits;
	/* groups: open addressing on (rule, node, rank) */
	struct group *tab;
	size_t ntab, cap;
	/* the current file's database, and its stream when it is a stream-mode one */
	const hs_database_t *db;
	hs_stream_t *stream;
	/* the second pass over a syslog file's program lines, read as the job's output is
	 * (scan_daemon) */
	bool daemon;
	/* ev->ranks by rank: open addressing, slot = index + 1 (0 empty) */
	uint32_t *rtab;
	int *rkey;
	size_t rcap;
	size_t last_ri; /* index of the rank looked up last, or SIZE_MAX */
	/* a chunk with ANSI escapes or CRLFs, cleaned (pm_text_clean), and where each of its
	 * lines starts in the cleaned copy and in the chunk */
	char *clean;
	size_t aclean;
	size_t nclean;
	size_t *cmap; /* pairs: cleaned line start, chunk line start */
	size_t ncmap, acmap;
	/* a structured record's value with its escapes undone (match_value), and the value of
	 * a record inside that one (Docker's json-file around a JSON logger's line); [2] and
	 * [3] the same for the lines before a hit (follows_in), whose reading must leave the
	 * hit's (its captures point there) */
	char *dec[4];
	size_t adec[4];
	char ihit[64]; /* the host of a search hit inside a record's value (match_value) */
	size_t nihit;
	/* the values with escapes of a chunk's records, undone, to be scanned again */
	char *rbuf;
	size_t nrbuf, arbuf;
	struct revalue *rv;
	size_t nrv, arv;
	/* the peel cache, valid while a chunk is scanned: the rank tally, the confirmation of
	 * each rule that hit a line and the time stamp reader peel the same line, the same way;
	 * each asks peel_cached.  PC: the lines with a hit that the tally peeled, in chunk order;
	 * LAST: the line peeled last. */
	bool pc_on;
	/* the line being confirmed holds a generic reading that will yield to a specific one:
	 * its specific readings are kept past their group's cap (scan_chunk, record) */
	bool line_yields;
	/* the file offset of the line after the one being confirmed (pm_obs.next), and the
	 * chunk's length as read, before cleaning */
	uint64_t line_next;
	size_t chunk_len;
	/* the chunk whose hits are being confirmed, as the rules read it (cleaned when it had
	 * to be): what follows a line, for a rule with 'last' (went_on) */
	const char *cbuf;
	size_t clen;
	/* the rule (index + 1; 0: none) whose 'not_beside' was last read over CBUF, and whether
	 * it matched: a listing's rows ask once per chunk (beside) */
	size_t beside_ri;
	bool beside_hit;
	/* hits of a rule with 'last' whose next line was past their chunk's end (defer): each
	 * decided at the next chunk's start, or at the file's end (resolve).  RESOLVING: such a
	 * hit is being decided; what went_on reads ends where the file's text does */
	struct pend *pend;
	size_t npend, apend;
	bool resolving;
	/* the last lines of the chunk before (each pass's: s->daemon), as the rules read them:
	 * what follows reads back into when a hit's line is among a chunk's first (keep_tail) */
	char *tail[2];
	size_t ntail[2], atail[2];
	struct peeled *pc;
	size_t npc, apc;
	struct peeled last;
	bool has_last;
	/* the node noted last (note_node) */
	char lnode[256];
	size_t lnode_len;
	/* a worker's scan of one file into an evidence set of its own (scan_make): the nodes
	 * known are SNAP's alone, and what the file gives is merged in file order (scan_take) */
	char *const *snap;
	size_t nsnap;
	bool unsure; /* the file's scan might differ from one in order: it is done again so */
	/* a collector's scan of a file to carry in its bundle (pm_scan_carry): the weak names it
	 * took as nodes, for the merge to check against its own (carry.c) */
	bool note_weak;
	char **weak;
	size_t nweak, aweak;
	/* a worker's scan: the weak names looked up and not in SNAP, for the merge to check
	 * against the nodes known in file order (take_one) */
	char **absent;
	size_t nabsent, aabsent;
	ZSTD_DCtx *zd; /* a carried scan's (carried), made when first wanted */
	/* a collector's scan (pm_scan_carry): given up past DEADLINE (CLOCK_MONOTONIC seconds;
	 * 0 none) or once STOP says so, looked at every few lines confirmed */
	double deadline;
	bool (*stop)(void);
	bool gave_up;
	/* per observation kept (record), for the merge (scan_take): KEPT_TALLY, counted as a
	 * tally; KEPT_PAST, kept past its group's cap for a generic reading of its line to
	 * yield to (line_yields) */
	unsigned char *kept;
	size_t akept;
	/* zone_walk: the offset token of the last zoned stamp of the file ("-04:00"), and the
	 * head of the line it ended, kept past its chunk */
	char ztok[8];
	size_t ztl;
	char zprev[64];
	size_t zprevn;
	char zhost[64]; /* a syslog's host (zone_host) */
	size_t zhostn;
	/* year_walk: a yearless syslog's last stamp, as the instant it is in a leap year (0
	 * none); the file offsets where its months go back across a New Year ("Dec 31" then
	 * "Jan  1"), in order; and whether its order goes back otherwise (several hosts' or
	 * files' lines one after the other), when none of those counts */
	double ylast;
	uint64_t *wraps;
	size_t nwraps, awraps;
	bool ydisorder;
	/* a kernel log of several hosts' files one after the other, each under a header of
	 * head's or tail's ("==> gpu07/dmesg.txt <==", sections): where each header starts, and
	 * the host its path names (section_node) */
	bool sectioned;
	bool sect_known;  /* a section of the file named a known node */
	bool appended;	  /* the file's own log first, sections after it (appended_node) */
	double sect_last; /* the last stamp of the section being read (section_warp), 0 none */
	bool sect_boot;	  /* ... and it was seconds since boot, not a clock's (boot_seconds) */
	/* section_overrun: the stamped lines of the section being read, and of the sections of
	 * head's or tail's before it the most (0: none; SIZE_MAX: counted no more) */
	size_t sect_lines, sect_max;
	struct section {
		uint64_t off;
		char node[64]; /* "" none: the file's */
		bool guess;    /* NODE only the header's guess (section_node) */
		bool nobody;   /* no host's: lines below a section that it cannot hold */
	} * sect;
	size_t nsect, asect;
};

/* ---- groups ---- */

static uint64_t ghash(size_t rule, const char *node, int rank, uint32_t file)
{
	uint64_t h = (1469598103934665603ULL ^ rule) * 1099511628211ULL ^ file;

	for (const char *p = node ? node : ""; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	h = (h ^ (uint64_t)(unsigned)rank) * 1099511628211ULL;
	return h;
}

static bool geq(const struct group *g, size_t rule, const char *node, int rank, uint32_t file)
{
	return g->rule == rule && g->rank == rank && g->file == file &&
	       ((!g->node && !node) || (g->node && node && !strcmp(g->node, node)));
}

static struct group *gfind(struct scan *s, size_t rule, const char *node, int rank, uint32_t file,
			   bool *isnew)
{
	size_t i;

	if (s->ntab * 2 >= s->cap) {
		size_t nc = s->cap ? 2 * s->cap : 1024;
		struct group *nt = calloc(nc, sizeof(*nt));
		if (!nt)
			return NULL;
		for (size_t k = 0; k < s->cap; k++) {
			struct group *g = &s->tab[k];
			if (!g->kept)
				continue;
			i = ghash(g->rule, g->node, g->rank, g->file) & (nc - 1);
			while (nt[i].kept)
				i = (i + 1) & (nc - 1);
			nt[i] = *g;
		}
		free(s->tab);
		s->tab = nt;
		s->cap = nc;
	}
	i = ghash(rule, node, rank, file) & (s->cap - 1);
	while (s->tab[i].kept) {
		if (geq(&s->tab[i], rule, node, rank, file)) {
			*isnew = false;
			return &s->tab[i];
		}
		i = (i + 1) & (s->cap - 1);
	}
	*isnew = true;
	s->ntab++;
	return &s->tab[i];
}

/* ---- the peel cache ---- */

static bool app_format(enum pm_format fmt)
{
	return fmt == PM_FMT_APP || fmt == PM_FMT_TORCHRUN || fmt == PM_FMT_PYSPY;
}

static uint32_t group_file(const char *node, bool tally, size_t file)
{
	return tally || node ? NOFILE : (uint32_t)file;
}

static bool peeled_is(const struct peeled *c, const char *line, size_t len, bool app)
{
	return c->line == line && c->len == len && c->app == app;
}

/* What pm_peel gives for LINE (LEN bytes) of the current file, as an application's line
 * when APP, else as its format says: taken from the peel cache when the line was peeled
 * already while this chunk is scanned (pm_peel reads nothing but the line, the file's
 * format class and its time context, which do not change during a chunk). */
static void peel_cached(struct scan *s, bool app, const char *line, size_t len, struct pm_peel *pe)
{
	struct pm_file *f = &s->ev->files[s->file];
	enum pm_format fmt = app ? PM_FMT_APP : f->format;

	app = app || app_format(f->format); /* pm_peel takes the three the same way */
	if (!s->pc_on) {
		pm_peel(fmt, line, len, &f->tctx, pe);
		return;
	}
	if (s->has_last && peeled_is(&s->last, line, len, app)) {
		*pe = s->last.pe;
		return;
	}
	size_t lo = 0, hi = s->npc;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if ((uintptr_t)s->pc[mid].line < (uintptr_t)line)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->npc && peeled_is(&s->pc[lo], line, len, app))
		*pe = s->pc[lo].pe;
	else
		pm_peel(fmt, line, len, &f->tctx, pe);
	s->last = (struct peeled){.line = line, .len = len, .app = app, .pe = *pe};
	s->has_last = true;
}

/* The event time of LINE, as pm_time_parse reads it, the line peeled through the cache.  In
 * a file its name dates as rotated (rotated_day), a stamp without a year that the file's
 * year puts after the rotation is of the year before (a "Dec 28" in messages-20270103). */
static int line_time(struct scan *s, const char *line, size_t len, double *t)
{
	struct pm_file *f = &s->ev->files[s->file];
	struct pm_timectx before = f->tctx;
	struct pm_peel pe;
	double u;

	if (!pm_time_at(line, len, &f->tctx, t)) {
		peel_cached(s, true, line, len, &pe);
		if (pm_time_peeled(line, len, &f->tctx, &pe, t) != 1)
			return 0;
	}
	if (f->rotated_until <= 0 || *t <= f->rotated_until)
		return 1;
	/* a stamp with a year reads the same in any: it is kept as it is */
	before.year--;
	if (pm_time_at(line, len, &before, &u) != 1) {
		pm_peel(PM_FMT_APP, line, len, &before, &pe);
		if (pm_time_peeled(line, len, &before, &pe, &u) != 1)
			return 1;
	}
	if (u < *t)
		*t = u;
	return 1;
}

/* ---- observations ---- */

/* pm_ev_note_node, for the node of every line recorded: most are the one before. */
static void note_node(struct scan *s, const char *name, size_t len)
{
	if (len && len == s->lnode_len && !memcmp(s->lnode, name, len))
		return;
	if (pm_ev_note_node(s->ev, name, len) == 0 && len < sizeof(s->lnode)) {
		memcpy(s->lnode, name, len);
		s->lnode_len = len;
	}
}

/* The word that ends OUT's N bytes when a space follows it ("on " in "failed on "): its start,
 * or N when there is none. */
static size_t word_before(const char *out, size_t n)
{
	size_t b;

	if (n < 2 || out[n - 1] != ' ')
		return n;
	for (b = n - 1; b > 0 && ((out[b - 1] | 32) >= 'a' && (out[b - 1] | 32) <= 'z'); b--)
		;
	return b < n - 1 ? b : n;
}

static bool word_is(const char *out, size_t b, size_t n, const char *const *list)
{
	for (; *list; list++)
		if (strlen(*list) == n - 1 - b && !memcmp(out + b, *list, n - 1 - b))
			return true;
	return false;
}

/*
 * A value the observation does not hold, in a summary being filled (OUT, *N bytes so far;
 * *P at the template's text after the placeholder): its phrase is left out where the
 * template's words allow, rather than shown as "?".  "rank {rank}" after a preposition or a
 * verb, or opening the summary, becomes "a rank"; "an AMD GPU {pci}" and "collective SeqNum
 * {seq}" lose the value; "on {node}", "(rank {rank})" and ", process {pid}" go; anything else
 * is "?".  NUMERIC: the placeholder is a number (a rank, a pid).
 */
static void fill_unknown(char *out, size_t *n, const char **p, bool numeric)
{
	static const char *const nouns[] = {"rank", "worker", "process", "task",
					    "pid",  "GPU",    NULL};
	static const char *const labels[] = {"SeqNum", "Xid", NULL};
	static const char *const preps[] = {"on", "of", "to", "at", "from", "in", NULL};
	static const char *const lead[] = {"on", "of", "to", "at", "from", "in", "by", "saw", NULL};
	size_t b = word_before(out, *n), a;

	if (b < *n && word_is(out, b, *n, nouns)) {
		if (numeric && b && out[b - 1] == '(' && **p == ')') { /* "(rank ?)": gone */
			*n = b - 1 - (b > 1 && out[b - 2] == ' ');
			(*p)++;
		} else if (numeric && b > 1 && out[b - 1] == ' ' && out[b - 2] == ',' &&
			   (**p == ')' || **p == ',')) { /* "(soft lockup, process ?)" */
			*n = b - 2;
		} else if (numeric &&
			   (!b || (b > 1 && out[b - 1] == ' ' && (a = word_before(out, b)) < b &&
				   word_is(out, a, b, lead)))) {
			if (*n + 1 < PM_OBS_SUMMARY_MAX - 1) { /* "of rank ?": "of a rank" */
				memmove(out + b + 2, out + b, *n - 1 - b);
				memcpy(out + b, "a ", 2);
				*n += 1;
			}
		} else { /* "an AMD GPU ?": "an AMD GPU" */
			*n -= 1;
		}
		return;
	}
	if (b < *n && b > 0 && out[b - 1] == ' ' &&
	    (numeric ? word_is(out, b, *n, labels) : word_is(out, b, *n, preps))) {
		*n = b - 1; /* " on ?", " SeqNum ?": gone */
		return;
	}
	out[(*n)++] = '?';
}

/* The rule's summary with {name} filled from what the observation holds, into OUT (512
 * bytes). */
static void fill_summary(const struct pm_rule *r, const struct pm_obs *o,
			 char out[PM_OBS_SUMMARY_MAX])
{
	char num[32];
	size_t n = 0;
	const char *p = r->summary;

	while (*p && n < PM_OBS_SUMMARY_MAX - 1) {
		const char *e = *p == '{' ? strchr(p, '}') : NULL, *val = NULL;
		char name[32];
		size_t l, vl;
		bool numeric = false;

		if (!e || (l = (size_t)(e - p - 1)) >= sizeof(name)) {
			out[n++] = *p++;
			continue;
		}
		memcpy(name, p + 1, l);
		name[l] = '\0';
		num[0] = '\0';
		if (!strcmp(name, "node"))
			val = o->node;
		else if (!strcmp(name, "pci"))
			val = o->pci;
		else if (!strcmp(name, "peer"))
			val = o->peer;
		else if (!strcmp(name, "signal"))
			val = o->signal;
		else if (!strcmp(name, "exc"))
			val = o->exc;
		else if (!strcmp(name, "rank") && o->rank >= 0)
			snprintf(num, sizeof(num), "%d", o->rank);
		else if (!strcmp(name, "gpu") && o->gpu >= 0)
			snprintf(num, sizeof(num), "%d", o->gpu);
		else if (!strcmp(name, "xid") && o->xid >= 0)
			snprintf(num, sizeof(num), "%d", o->xid);
		else if (!strcmp(name, "pid") && o->pid >= 0)
			snprintf(num, sizeof(num), "%d", o->pid);
		else if (!strcmp(name, "code") && o->code >= 0)
			snprintf(num, sizeof(num), "%d", o->code);
		else if (!strcmp(name, "nranks") && o->nranks >= 0)
			snprintf(num, sizeof(num), "%d", o->nranks);
		else if (!strcmp(name, "seq") && o->seq >= 0)
			snprintf(num, sizeof(num), "%lld", o->seq);
		else if (!strcmp(name, "seqdone") && o->seqdone >= 0)
			snprintf(num, sizeof(num), "%lld", o->seqdone);
		numeric = !val && strcmp(name, "node") && strcmp(name, "pci") &&
			  strcmp(name, "peer") && strcmp(name, "signal") && strcmp(name, "exc");
		p = e + 1;
		if (!val && !num[0]) {
			fill_unknown(out, &n, &p, numeric);
			continue;
		}
		if (!val)
			val = num;
		vl = strlen(val);
		if (vl > PM_OBS_SUMMARY_MAX - 1 - n)
			vl = PM_OBS_SUMMARY_MAX - 1 - n;
		memcpy(out + n, val, vl);
		n += vl;
	}
	out[n] = '\0';
}

static long long capnum(const char *s, size_t l, long long dflt)
{
	long long v = 0;

	if (!s || !l || l > 18)
		return dflt;
	for (size_t i = 0; i < l; i++) {
		if (s[i] < '0' || s[i] > '9')
			return dflt;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* A process group's name as a key (-1: none): names are compared, never read, so a hash of
 * the bytes (FNV-1a, folded to 31 bits) stands for the name. */
static int pgkey(const char *s, size_t l)
{
	uint32_t h = 2166136261u;

	if (!s || !l)
		return -1;
	for (size_t i = 0; i < l; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return (int)(h & 0x7fffffff);
}

static int dupn(char **dst, const char *s, size_t l)
{
	return s ? pm_strset(dst, s, l) : 0;
}

/* Bus ids in one form, "0000:3b:00.0": lower case, a 4-digit domain, a function. */
static int norm_pci(char **dst, const char *s, size_t l)
{
	char buf[32], *p;
	size_t n;

	if (!s)
		return 0;
	if (l >= 5 && !strncasecmp(s, "PCI:", 4)) {
		s += 4;
		l -= 4;
	}
	if (l > 20)
		return pm_strset(dst, s, l);
	memcpy(buf, s, l);
	buf[l] = '\0';
	for (p = buf; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	/* "00000000:3b:00.0" (nvidia-smi's 8-digit domain) -> "0000:3b:00.0" */
	p = strchr(buf, ':');
	if (p && p - buf == 8 && !strncmp(buf, "0000", 4))
		memmove(buf, buf + 4, strlen(buf + 4) + 1);
	else if (p && p - buf == 2) { /* "3b:00.0" without a domain */
		memmove(buf + 5, buf, strlen(buf) + 1);
		memcpy(buf, "0000:", 5);
	}
	n = strlen(buf);
	if (n >= 3 && buf[n - 3] == ':' && n + 2 < sizeof(buf))
		strcat(buf, ".0");
	return pm_strset(dst, buf, strlen(buf));
}

static uint64_t rhash(int rank)
{
	return ((uint64_t)(unsigned)rank * 0x9e3779b97f4a7c15ULL) >> 20;
}

static int rtab_grow(struct scan *s)
{
	size_t nc = s->rcap ? 2 * s->rcap : 256;
	uint32_t *nt = calloc(nc, sizeof(*nt));
	int *nk = calloc(nc, sizeof(*nk));

	if (!nt || !nk) {
		free(nt);
		free(nk);
		return -1;
	}
	for (size_t k = 0; k < s->ev->nranks; k++) {
		size_t i = rhash(s->ev->ranks[k].rank) & (nc - 1);
		while (nt[i])
			i = (i + 1) & (nc - 1);
		nt[i] = (uint32_t)k + 1;
		nk[i] = s->ev->ranks[k].rank;
	}
	free(s->rtab);
	free(s->rkey);
	s->rtab = nt;
	s->rkey = nk;
	s->rcap = nc;
	return 0;
}

/* The evidence's entry for RANK, created (zeroed) when new, in the order ranks are first
 * seen; NULL on ENOMEM. */
static struct pm_rankinfo *rank_get(struct scan *s, int rank)
{
	struct pm_evidence *ev = s->ev;
	struct pm_rankinfo *ri;
	size_t i;

	if (s->last_ri < ev->nranks && ev->ranks[s->last_ri].rank == rank)
		return &ev->ranks[s->last_ri];
	if ((ev->nranks + 1) * 2 > s->rcap && rtab_grow(s) < 0)
		return NULL;
	i = rhash(rank) & (s->rcap - 1);
	while (s->rtab[i]) {
		if (s->rkey[i] == rank) {
			s->last_ri = s->rtab[i] - 1;
			return &ev->ranks[s->last_ri];
		}
		i = (i + 1) & (s->rcap - 1);
	}
	if (ev->nranks >= UINT32_MAX - 1 ||
	    (ev->nranks == ev->aranks &&
	     pm_grow((void **)&ev->ranks, &ev->aranks, sizeof(*ev->ranks)) < 0))
		return NULL;
	ri = &ev->ranks[ev->nranks];
	memset(ri, 0, sizeof(*ri));
	ri->rank = rank;
	s->rtab[i] = (uint32_t)ev->nranks + 1;
	s->rkey[i] = rank;
	s->last_ri = ev->nranks++;
	return ri;
}

static void note_rank(struct scan *s, int rank, const char *node, size_t nodelen, double t,
		      bool progress)
{
	struct pm_rankinfo *ri = rank_get(s, rank);

	if (!ri)
		return;
	/* a worker's rank notes its first node when it is merged, if it is the rank's first */
	if (!ri->node && nodelen && pm_strset(&ri->node, node, nodelen) == 0 && !s->snap)
		pm_ev_note_node(s->ev, node, nodelen);
	if (t > ri->last_time)
		ri->last_time = t;
	if (progress && t > 0) {
		ri->nprogress++;
		if (!ri->first_progress || t < ri->first_progress)
			ri->first_progress = t;
		if (t > ri->last_progress)
			ri->last_progress = t;
	}
}

/* Whether group G, full, still keeps a reading past its cap (PAST: one whose line a generic
 * reading shares, line_yields): as many again as the cap.  A generic reading keeps no more
 * lines than that of one node, rank and file either, so each it keeps finds the specific
 * one; a retry loop's thousands of such lines are counted past that. */
static bool past_room(const struct scan *s, const struct group *g, bool past)
{
	return past && g->kept < 2 * s->rs->per_group;
}

/* Whether pm_utf8_clean would change S. */
static bool dirty(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80 || ((unsigned char)*s < 0x20 && *s != '\t'))
			return true;
	return false;
}

enum { KEPT_TALLY = 1, KEPT_PAST = 2 };

/* How a worker's observation K (record) was kept, KEPT_*: its group's key, for the merge. */
static int note_kept(struct scan *s, size_t k, unsigned flags)
{
	while (k >= s->akept)
		if (pm_grow((void **)&s->kept, &s->akept, sizeof(*s->kept)) < 0)
			return -1;
	s->kept[k] = (unsigned char)flags;
	return 0;
}

/* Room for one more observation in EV.  Each is written whole when added, so the room is not
 * zeroed: the pages past the last observation are never touched (a merge of 16,384 nodes
 * keeps just over 2^17, and the doubling to 2^18 was 16 MiB of zeroes resident).  0, or -1. */
static int obs_grow(struct pm_evidence *ev)
{
	return pm_grow_raw((void **)&ev->obs, &ev->aobs, sizeof(*ev->obs));
}

static const struct section *section_at(const struct scan *s, uint64_t off);

/* The head of LINE (LEN bytes) an observation keeps to show, into *DST: LINE_KEEP bytes at
 * most, a run of fewer than HOLE_MIN NULs as one blank (a stray NUL kept would end the
 * shown line as a C string, before the hit's text where it stood ahead of it), and a hole,
 * HOLE_MIN or more (line_of starts a hit's line after the last before it, so one here comes
 * after the hit), as the end: what follows it was written after the lost pages. */
static int keep_line(char **dst, const char *line, size_t len)
{
	size_t n = len > LINE_KEEP ? LINE_KEEP : len, i = 0, o = 0, r;
	char *s = malloc(n + 1);

	if (!s)
		return -1;
	while (i < n) {
		if (line[i]) {
			s[o++] = line[i++];
			continue;
		}
		for (r = i; r < len && r - i < HOLE_MIN && !line[r]; r++)
			;
		if (r - i >= HOLE_MIN || r >= n)
			break;
		s[o++] = ' ';
		i = r;
	}
	s[o] = '\0';
	free(*dst);
	*dst = s;
	return 0;
}

/* Whether LINE (LEN bytes), of the job's output, holds srun's wording under srun's
 * label ("0: srun: error: gpu400: task 3: Exited with exit code 1"): srun labels only its
 * tasks' output, never its own reports, so a task printed it (the job's text quoting srun, a
 * wrapper's echo).  The node and the task it names are no report of srun's. */
static bool labelled_srun(const struct pm_file *f, const char *line, size_t len)
{
	struct pm_peel pe;

	/* "srun:" alone: a terminal's colours may stand before its blank */
	if (f->source != PM_SRC_APP_LOG || !memmem(line, len, "srun:", 5))
		return false;
	pm_peel(f->format, line, len, NULL, &pe);
	return pe.label >= 0 || pe.rank >= 0;
}

/* One confirmed line of rule RI: record it (or count it into its group).  WHEN is the event
 * time when the caller knows it (a fact's sample), else 0: the line's own stamp, if any. */
static int record(struct scan *s, size_t ri, const char *line, size_t len,
		  const struct pm_prefix *px, uint64_t off, const char *caps[PM_CAP__COUNT],
		  const size_t capl[PM_CAP__COUNT], double when)
{
	struct pm_evidence *ev = s->ev;
	const struct pm_rule *r = &s->rs->rules[ri];
	struct pm_file *f = &ev->files[s->file];
	struct pm_obs o;
	struct group *g;
	bool isnew;
	uint32_t gfile;
	double t = 0;
	int has_t = -1; /* -1: not read yet */
	/* the node's name, on the stack until the observation is kept: most matched lines are
	 * progress lines folded into their group */
	char nbuf[256];
	const char *nsrc = NULL;
	const struct section *sc;
	size_t nlen = 0;

	memset(&o, 0, sizeof(o));
	o.rule = (uint32_t)ri;
	o.file = (uint32_t)s->file;
	o.source = s->daemon ? PM_SRC_APP_LOG : f->source;
	o.trusted = !s->daemon && pm_source_trusted(f->source);
	o.daemon = s->daemon;
	/* in a syslog file any local user can `logger` a line: only the kernel's own count */
	if (o.trusted && f->format == PM_FMT_SYSLOG && !px->kernel)
		o.trusted = false;
	/* a task's own line shaped as srun's: its node and task are the text's, not where
	 * anything happened (place-labelled-srun-shaped-line-no-host) */
	bool quoted = (caps[PM_CAP_NODE] || caps[PM_CAP_RANK]) && labelled_srun(f, line, len);

	o.rank = (int)capnum(quoted ? NULL : caps[PM_CAP_RANK], capl[PM_CAP_RANK],
			     px->rank >= 0 ? px->rank : f->rank);
	o.rank_weak = !caps[PM_CAP_RANK] && px->rank >= 0 && px->rank_weak;
	o.gpu = (int)capnum(caps[PM_CAP_GPU], capl[PM_CAP_GPU], -1);
	o.xid = (int)capnum(caps[PM_CAP_XID], capl[PM_CAP_XID], -1);
	o.seq = capnum(caps[PM_CAP_SEQ], capl[PM_CAP_SEQ], -1);
	o.seqdone = capnum(caps[PM_CAP_SEQDONE], capl[PM_CAP_SEQDONE], -1);
	o.pid = (int)capnum(caps[PM_CAP_PID], capl[PM_CAP_PID], -1);
	o.code = (int)capnum(caps[PM_CAP_CODE], capl[PM_CAP_CODE], -1);
	o.nranks = (int)capnum(caps[PM_CAP_NRANKS], capl[PM_CAP_NRANKS], -1);
	o.pg = pgkey(caps[PM_CAP_PG], capl[PM_CAP_PG]);
	if (caps[PM_CAP_NODE] && capl[PM_CAP_NODE] && !quoted) {
		nsrc = caps[PM_CAP_NODE];
		nlen = capl[PM_CAP_NODE];
	} else if (px->node_len) {
		nsrc = px->node;
		nlen = px->node_len;
	} else if (s->nsect && (sc = section_at(s, off))) {
		/* a section no host's (section_overrun): not the file's node either */
		o.sect_nobody = sc->nobody;
		if (!sc->nobody) {
			nsrc = sc->node;
			nlen = strlen(nsrc);
			o.sect_guess = sc->guess;
		}
	} else if (f->node) {
		nsrc = f->node;
		nlen = strlen(f->node);
	}
	if (nsrc && nlen < sizeof(nbuf)) {
		memcpy(nbuf, nsrc, nlen);
		nbuf[nlen] = '\0';
		o.node = nbuf;
	} else if (nsrc && dupn(&o.node, nsrc, nlen) < 0) {
		return -1;
	}
	if (o.node)
		note_node(s, o.node, strlen(o.node));
	bool tally = r->role == PM_ROLE_PROGRESS ||
		     (r->role == PM_ROLE_CONTEXT && caps[PM_CAP_ADDR]);
	if (tally) {
		has_t = when > 0 ? (t = when, 1) : line_time(s, line, len, &t);
		if (caps[PM_CAP_ADDR] && o.node)
			pm_ev_note_ip(ev, caps[PM_CAP_ADDR], capl[PM_CAP_ADDR], o.node,
				      strlen(o.node));
		if (r->role == PM_ROLE_PROGRESS) {
			note_rank(s, o.rank, o.node, o.node ? strlen(o.node) : 0, has_t ? t : 0,
				  true);
			if (off + 1 > f->progress_to)
				f->progress_to = off + 1;
		}
	}
	/* progress and address lines are many: the first is listed, the rest counted */
	gfile = group_file(o.node, tally, s->file);
	g = tally ? gfind(s, ri, NULL, -1, NOFILE, &isnew) :
		    gfind(s, ri, o.node, o.rank, gfile, &isnew);
	if (!g) {
		if (o.node != nbuf)
			free(o.node);
		return -1;
	}
	/* a node that pm_utf8_clean changes is grouped by its raw name, kept by its clean one:
	 * a worker's groups could not be merged as in order */
	if (s->snap && o.node && dirty(o.node))
		s->unsure = true;
	bool past = s->line_yields && pm_rule_speaks(r);
	if (!isnew && (tally || (g->kept >= s->rs->per_group && !past_room(s, g, past)))) {
		ev->obs[g->obs].repeats++;
		if (o.node != nbuf)
			free(o.node);
		return 0;
	}
	if (o.node == nbuf && !(o.node = strdup(nbuf)))
		return -1;
	if (has_t < 0)
		has_t = when > 0 ? (t = when, 1) : line_time(s, line, len, &t);
	o.has_time = has_t == 1;
	o.event_time = has_t == 1 ? t : 0;
	o.observed_time = f->mtime;
	o.offset = off;
	o.next = s->line_next;
	if (norm_pci(&o.pci, caps[PM_CAP_PCI], capl[PM_CAP_PCI]) < 0 ||
	    dupn(&o.peer, caps[PM_CAP_PEER], capl[PM_CAP_PEER]) < 0 ||
	    dupn(&o.signal, caps[PM_CAP_SIGNAL], capl[PM_CAP_SIGNAL]) < 0 ||
	    dupn(&o.exc, caps[PM_CAP_EXC], capl[PM_CAP_EXC]) < 0) {
		pm_obs_free(&o);
		return -1;
	}
	/* the line's kept head (keep_line): redacted when shown (pm_obs_line) */
	if (keep_line(&o.raw, line, len) < 0) {
		pm_obs_free(&o);
		return -1;
	}
	if (o.source == PM_SRC_APP_LOG) {
		struct pm_peel lp;
		pm_peel(f->format, o.raw, strlen(o.raw), NULL, &lp);
		o.has_label = true;
		o.label = lp.label;
	}
	if (o.exc)
		pm_utf8_clean(o.exc);
	if (o.node)
		pm_utf8_clean(o.node);
	if (o.peer)
		pm_utf8_clean(o.peer);
	if (ev->nobs >= UINT32_MAX) { /* struct group's index */
		pm_obs_free(&o);
		errno = ENOMEM;
		return -1;
	}
	if (ev->nobs == ev->aobs && obs_grow(ev) < 0) {
		pm_obs_free(&o);
		return -1;
	}
	if (s->snap &&
	    note_kept(s, ev->nobs, (tally ? KEPT_TALLY : 0u) | (past ? KEPT_PAST : 0u)) < 0) {
		pm_obs_free(&o);
		return -1;
	}
	ev->obs[ev->nobs] = o;
	if (isnew) {
		g->rule = (uint32_t)ri;
		g->rank = tally ? -1 : o.rank;
		g->node = tally ? NULL : ev->obs[ev->nobs].node;
		g->file = tally ? NOFILE : gfile;
		g->obs = (uint32_t)ev->nobs;
	}
	g->kept++;
	ev->nobs++;
	return 0;
}

/* ---- text scanning ---- */

static int on_hit(unsigned int id, unsigned long long from, unsigned long long to,
		  unsigned int flags, void *ctx)
{
	struct scan *s = ctx;

	(void)from;
	(void)flags;
	if (s->nhits == s->ahits && pm_grow((void **)&s->hits, &s->ahits, sizeof(*s->hits)) < 0)
		return 1; /* stop: out of memory */
	s->hits[s->nhits].rule = id;
	s->hits[s->nhits].to = to;
	s->nhits++;
	return 0;
}

static int cmphit(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;

	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	return x->rule < y->rule ? -1 : x->rule > y->rule;
}

/* S's hits are in cmphit's order already: Vectorscan reports them by end offset, so most
 * chunks need no sort (glibc's merge sort of them was 2% of a merge of 16,384 nodes). */
static bool hits_sorted(const struct scan *s)
{
	for (size_t i = 1; i < s->nhits; i++)
		if (cmphit(&s->hits[i - 1], &s->hits[i]) > 0)
			return false;
	return true;
}

static bool line_of(const char *buf, size_t len, size_t at, size_t *ls, size_t *le)
{
	const char *p;

	if (at >= len)
		at = len ? len - 1 : 0;
	if (!len)
		return false;
	if (buf[at] == '\n' && at > 0)
		at--;
	p = at ? memrchr(buf, '\n', at + (buf[at] != '\n')) : NULL;
	*ls = p ? (size_t)(p - buf) + 1 : 0;
	/* a hole's NULs (a file truncated while written: sniff_head) are not the line's text:
	 * kept, they end the line as a C string (an empty evidence line) and hide its wrappers */
	while (*ls < at && !buf[*ls])
		(*ls)++;
	/* so is a hole inside it, before the hit: data lost under a line cut short, and an
	 * append after it (a job requeued with --open-mode=append once its node went down) whose
	 * text starts after the NULs.  A run of HOLE_MIN at least: a stray NUL is the line's */
	if (at > *ls && (p = memrchr(buf + *ls, '\0', at - *ls))) {
		const char *r = p;

		while (r > buf + *ls && !r[-1])
			r--;
		if (p - r + 1 >= HOLE_MIN)
			*ls = (size_t)(p - buf) + 1;
	}
	if (*ls > at)
		*ls = at;
	p = memchr(buf + at, '\n', len - at);
	*le = p ? (size_t)(p - buf) : len;
	return *le >= *ls;
}

static int cmpname(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Weak name NAME, taken as a node or looked up and not known, in the list V (*N of *A): listed
 * once.  A file whose scan looks up many (past WEAK_MAX), or when out of memory, is marked
 * unsure: it is scanned again in order, and not carried. */
#define WEAK_MAX 256

static void note_name(struct scan *s, char ***v, size_t *n, size_t *a, const char *name)
{
	char *d;

	for (size_t k = *n; k-- > 0;)
		if (!strcmp((*v)[k], name))
			return;
	if (*n >= WEAK_MAX || (*n == *a && pm_grow((void **)v, a, sizeof(**v)) < 0) ||
	    !(d = strdup(name))) {
		s->unsure = true;
		return;
	}
	(*v)[(*n)++] = d;
}

/* A weak name (a shell's or a container's prefix, prefix.c) names a node only when the
 * evidence already knows that node: a pod, a file or a word could read the same. */
static bool known_node(struct scan *s, const char *name, size_t len)
{
	const struct pm_evidence *ev = s->ev;
	char buf[64];
	const char *key = buf;

	if (!len || len >= sizeof(buf))
		return false;
	memcpy(buf, name, len);
	buf[len] = '\0';
	/* a worker knows the nodes known before the scan and those the file's lines named so
	 * far (its own evidence's); in order, nodes that earlier files named would count too: a
	 * name outside them is listed, and the file is scanned again in order where one of them
	 * is a node by its turn (take_one) */
	if (s->snap) {
		if (s->nsnap && bsearch(&key, s->snap, s->nsnap, sizeof(*s->snap), cmpname)) {
			if (s->note_weak)
				note_name(s, &s->weak, &s->nweak, &s->aweak, buf);
			return true;
		}
		if (ev->nnodes && bsearch(&key, ev->nodes, ev->nnodes, sizeof(*ev->nodes), cmpname))
			return true;
		note_name(s, &s->absent, &s->nabsent, &s->aabsent, buf);
		return false;
	}
	if (!ev->nnodes)
		return false;
	return bsearch(&key, ev->nodes, ev->nnodes, sizeof(*ev->nodes), cmpname) != NULL;
}

/* The wrappers of LINE as the scanner uses them: what pm_peel says, a weak node dropped
 * unless known. */
static void peel_line(struct scan *s, const char *line, size_t len, struct pm_peel *pe,
		      struct pm_prefix *px)
{
	peel_cached(s, false, line, len, pe);
	if (pe->node_weak && !pe->node_hit && !known_node(s, pe->node, pe->node_len)) {
		/* the search hit's own host, else none (pm_peel.hit) */
		pe->node = pe->hit;
		pe->node_len = pe->hit_len;
		pe->node_hit = pe->hit != NULL;
	}
	/* a spaced rank tag ("[Rank 0] ") yields to the rank the file's name gives */
	px->rank = pe->rank_weak && s->ev->files[s->file].rank >= 0 ? -1 : pe->rank;
	px->rank_weak = pe->rank_weak && px->rank >= 0;
	px->node = pe->node;
	px->node_len = pe->node_len;
	px->skip = pe->skip;
	px->kernel = pe->kernel;
}

#define SQUASH_MAX 64 /* parts of a squashed line tried */

/*
 * A paste that lost its line breaks repeats the outermost wrapper of each line it joined
 * ("3: Traceback ... 3:   File ... 3: RuntimeError: ..."): match RE on each part between
 * two of them, its own wrappers peeled.  *SUBJ is where the match's offsets start.
 */
static int match_squashed(struct scan *s, const pcre2_code *re, const char *line,
			  const struct pm_peel *pe, const char **subj)
{
	struct pm_file *f = &s->ev->files[s->file];
	const char *w = line + pe->cr, *end = line + pe->end, *p = line + pe->skip, *q;
	size_t wl = pe->first > pe->cr ? pe->first - pe->cr : 0;
	int rc = -1, parts = 0;

	while (wl && (w[wl - 1] == ' ' || w[wl - 1] == '\t'))
		wl--;
	if (wl < 2)
		return -1;
	while (p < end && parts++ < SQUASH_MAX) {
		struct pm_peel sp;
		const char *next = parts > 1 ? p + wl : p;

		/* the next repeat of the wrapper after a blank */
		while ((q = memmem(next, (size_t)(end - next), w, wl)) && q[-1] != ' ')
			next = q + 1;
		if (!q && parts == 1)
			return -1; /* not squashed: the peeled text was tried already */
		if (parts > 1) {
			pm_peel(f->format, p, (size_t)((q ? q : end) - p), &f->tctx, &sp);
			*subj = p + sp.skip;
			rc = pm_re_match(s->rs, re, *subj, sp.end - sp.skip, s->md);
		} else {
			*subj = p;
			rc = pm_re_match(s->rs, re, p, (size_t)((q ? q : end) - p), s->md);
		}
		if (rc >= 0 || !q)
			return rc;
		p = q;
	}
	return rc;
}

/* The undone escapes of a structured record's value (pm_unquote) into s->dec[D]: its
 * length, or SIZE_MAX when out of memory. */
static size_t unquote(struct scan *s, int d, const char *v, size_t n)
{
	if (n > s->adec[d]) {
		char *nb = realloc(s->dec[d], n);
		if (!nb)
			return SIZE_MAX;
		s->dec[d] = nb;
		s->adec[d] = n;
	}
	return pm_unquote(v, n, s->dec[d]);
}

/* A structured record's value, N bytes at V, its escapes undone when ESC (pm_unquote) into
 * s->dec[D]: RE on each of its lines (a traceback's "\n" is a line break).  A value that is
 * itself a record (a JSON logger's line in Docker's "log", a logfmt line in a JSON
 * record's message) is read as one first, into s->dec[D + 1]: its message, then its
 * traceback, its rank into *RANK (the innermost rank wins), a search hit's own host into
 * s->ihit (pm_peel.hit: as the rank, the innermost wins) unless RANK is NULL (a line read
 * for another's sake: follows_in).  D is even: 0 for a hit's line, 2 for the lines before
 * it.  *SUBJ is where the match's offsets start. */
static int match_value(struct scan *s, const pcre2_code *re, const char *v, size_t n, bool esc,
		       int d, const char **subj, int *rank)
{
	const char *p, *end, *q;
	int rc = PCRE2_ERROR_NOMATCH;
	struct pm_peel in;

	if (esc) {
		if ((n = unquote(s, d, v, n)) == SIZE_MAX)
			return PCRE2_ERROR_NOMEMORY;
		v = s->dec[d];
	}
	if (!(d & 1) && n) {
		pm_peel(PM_FMT_APP, v, n, NULL, &in);
		if (in.record)
			rc = match_value(s, re, v + in.skip, in.end - in.skip, in.quoted, d + 1,
					 subj, rank);
		if (in.record && rc < 0 && in.xend > in.xskip)
			rc = match_value(s, re, v + in.xskip, in.xend - in.xskip,
					 memchr(v + in.xskip, '\\', in.xend - in.xskip), d + 1,
					 subj, rank);
		if (rc >= 0 && in.rank >= 0 && rank)
			*rank = in.rank;
		if (rc >= 0 && rank && in.hit && in.hit_len < sizeof(s->ihit)) {
			memcpy(s->ihit, in.hit, in.hit_len);
			s->ihit[in.hit_len] = '\0';
			s->nihit = in.hit_len;
		}
		if (rc >= 0)
			return rc;
	}
	for (p = v, end = v + n; p < end && rc < 0; p = q + 1) {
		for (q = p; q < end && *q != '\n' && *q != '\r'; q++)
			;
		if (q > p) {
			*subj = p;
			rc = pm_re_match(s->rs, re, p, (size_t)(q - p), s->md);
		}
		/* as match_line: an exception behind the program's own "error: " */
		if (rc < 0 && q > p && memmem(p, (size_t)(q - p), "rror: ", 6)) {
			struct pm_peel w;
			pm_peel(PM_FMT_APP, p, (size_t)(q - p), NULL, &w);
			if (w.prog > w.skip && w.prog < w.end) {
				*subj = p + w.prog;
				rc = pm_re_match(s->rs, re, *subj, w.end - w.prog, s->md);
			}
		}
	}
	return rc;
}

/* Whether the syslog LINE of F is a Python interpreter's own (its tag python, python3,
 * python3.11: "gpu12 python3[48812]: ..."), whose lines the generic exception rules may read
 * in scan_daemon's pass. */
static bool python_tag(const struct pm_file *f, const char *line, size_t len)
{
	struct pm_prefix px;
	const char *t;
	size_t n;

	pm_prefix_parse(f->format, line, len, &px);
	if (px.kernel || px.skip >= len)
		return false;
	t = line + px.skip;
	n = len - px.skip;
	if (n < 7 || memcmp(t, "python", 6))
		return false;
	for (t += 6, n -= 6; n && ((*t >= '0' && *t <= '9') || *t == '.'); t++, n--)
		;
	return n && (*t == '[' || *t == ':');
}

/* Whether the level word a logger wrote before LINE's text (PE's) is a warning's or lower:
 * the last one peeled, whatever its family (pm_peel.sev: "WARNING - ", "[W] ", glog's
 * "W1130", hydra's "[trainer][INFO] - ", loguru's "| DEBUG |", zerolog's "WRN"), when it
 * is the text's (not a progress bar's before a carriage return), or a structured record's
 * level field says so. */
static bool quiet_level(const struct pm_peel *pe)
{
	return pe->quiet || (pe->sev && pe->sev_quiet && pe->sev_at >= pe->cr);
}

/* Whether the level is a debug's or lower ("DEBUG", "(D)", "[V]", "TRACE", a record's
 * level field), as quiet_level reads it. */
static bool debug_level(const struct pm_peel *pe)
{
	return pe->debug || (pe->sev && pe->sev_debug && pe->sev_at >= pe->cr);
}

/* Confirm rule RI on LINE: the pattern sees the text without its wrappers (pm_peel), then,
 * should that fail (a wrapper the pattern wanted), the whole line, then a structured
 * record's traceback, then each part of a squashed line. */
/* Whether rule R is asked of a line of the current file. */
static bool asks(const struct scan *s, const struct pm_rule *r, const char *line, size_t len)
{
	const struct pm_file *f = &s->ev->files[s->file];

	if (r->deprecated || !r->re)
		return false;
	/* the second pass over a syslog's program lines (scan_daemon): the job output's rules
	 * that the first pass did not ask, generic ones only on a Python program's lines */
	if (s->daemon)
		return !(r->generic && !python_tag(f, line, len)) &&
		       pm_rule_reads(r, PM_SRC_APP_LOG, PM_FMT_APP) &&
		       !pm_rule_reads(r, f->source, f->format);
	return pm_rule_reads(r, f->source, f->format);
}

/* Whether the word W (N bytes) denies what follows it in a person's sentence: "no", "not",
 * "never", "without", "none", "nothing", "nor", "neither", "cannot", or a verb's "n't". */
static bool negation(const char *w, size_t n)
{
	static const char *const words[] = {"no",      "not", "never",	 "without", "none",
					    "nothing", "nor", "neither", "cannot"};

	if (n > 3 && w[n - 3] == 'n' && w[n - 2] == '\'' && w[n - 1] == 't')
		return true;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i]) == n && pm_in_ieq(w, n, words[i]))
			return true;
	return false;
}

/*
 * Whether a match that starts at SUBJ[AT] lies inside a quote, `...` or "...", that a
 * sentence opened after a negation of its own: "I did not see any `NET/IB : Got async event
 * : port error`", "there is no \"GPU has fallen off the bus\"".  A person quoting an error
 * to say it did not happen reports no error (read-prose-negated-quoted-errors).  The
 * negation is a word outside any quote, in the same sentence (after the last '.', '!', '?'
 * or ';' followed by a blank), so a record's quoted "no" or a quoted message's own words
 * deny nothing.
 */
static bool negated_quote(const char *subj, size_t at)
{
	size_t open = SIZE_MAX, from = 0, i, w;
	bool bq = false, dq = false;

	for (i = 0; i < at; i++) {
		char c = subj[i];
		if (c == '`' && !dq)
			bq = !bq;
		else if (c == '"' && !bq)
			dq = !dq;
		else if (!bq && !dq && (c == '.' || c == '!' || c == '?' || c == ';') &&
			 i + 1 < at && (subj[i + 1] == ' ' || subj[i + 1] == '\t'))
			from = i + 1;
		if ((c == '`' && bq) || (c == '"' && dq))
			open = i;
	}
	if ((!bq && !dq) || open == SIZE_MAX || open < from)
		return false;
	bq = dq = false;
	for (i = from; i < open; i = w) {
		char c = subj[i];
		if (c == '`' && !dq)
			bq = !bq;
		else if (c == '"' && !bq)
			dq = !dq;
		for (w = i; w < open && (pm_in_isalpha(subj[w]) || (w > i && subj[w] == '\'')); w++)
			;
		if (w > i && !bq && !dq && (i == 0 || !pm_in_isalnum(subj[i - 1])) &&
		    negation(subj + i, w - i))
			return true;
		if (w == i)
			w++;
	}
	return false;
}

/* Match rule R on the LEN bytes at LINE, its wrappers peeled into PE and PX: the match's
 * count (s->md holds it, *SUBJ the text its offsets count from), or < 0 when R does not
 * read the line. */
static int match_line(struct scan *s, const struct pm_rule *r, const char *line, size_t len,
		      struct pm_peel *pe, struct pm_prefix *px, const char **subj)
{
	int rc;

	peel_line(s, line, len, pe, px);
	if (pe->skip > pe->end)
		pe->skip = pe->end;
	/* an exception a logger wrote at a warning's level or lower was handled: the program
	 * went on (a retry, a skipped shard); a generic reading leaves it, and so does a rule
	 * whose words are a warning's as often as a failure's (heeds_level: the level word its
	 * pattern would refuse is peeled off before the pattern sees the text) */
	if ((r->generic || r->heeds_level) && quiet_level(pe))
		return -1;
	/* a line written for whoever debugs the program (a probe, a retry's detail) is no
	 * failure's report, whatever its words: only progress and context rules read it */
	if (r->role != PM_ROLE_PROGRESS && r->role != PM_ROLE_CONTEXT && debug_level(pe))
		return -1;
	*subj = line + pe->skip;
	s->nihit = 0;
	if (pe->record)
		rc = match_value(s, r->re, *subj, pe->end - pe->skip, pe->quoted, 0, subj,
				 &px->rank);
	else
		rc = pm_re_match(s->rs, r->re, *subj, pe->end - pe->skip, s->md);
	if (rc < 0 && pe->prog > pe->skip && pe->prog < pe->end) {
		*subj = line + pe->prog; /* "train.py: error: RuntimeError: ...": the exception */
		rc = pm_re_match(s->rs, r->re, *subj, pe->end - pe->prog, s->md);
	}
	if (rc < 0 && pe->logger && pe->logger >= pe->cr && pe->logger < pe->skip) {
		*subj = line + pe->logger; /* "ERROR srun: error: ...": not a logger's name */
		rc = pm_re_match(s->rs, r->re, *subj, pe->end - pe->logger, s->md);
	}
	if (rc < 0 && pe->level && pe->level >= pe->cr && pe->level < pe->skip) {
		*subj = line + pe->level; /* "0: ERROR: ...": the program's own level word */
		rc = pm_re_match(s->rs, r->re, *subj, pe->end - pe->level, s->md);
	}
	if (rc < 0 && pe->skip > pe->cr) {
		*subj = line + pe->cr;
		rc = pm_re_match(s->rs, r->re, *subj, pe->end - pe->cr, s->md);
	}
	if (rc < 0 && pe->xend > pe->xskip)
		rc = match_value(s, r->re, line + pe->xskip, pe->xend - pe->xskip,
				 memchr(line + pe->xskip, '\\', pe->xend - pe->xskip), 0, subj,
				 &px->rank);
	if (rc < 0 && pe->first)
		rc = match_squashed(s, r->re, line, pe, subj);
	/* an error a person quotes to say it did not happen: no report of it */
	if (rc >= 0 && r->role != PM_ROLE_PROGRESS && r->role != PM_ROLE_CONTEXT &&
	    negated_quote(*subj, pcre2_get_ovector_pointer(s->md)[0]))
		return -1;
	/* a search hit quoted whole as a record's value names its own host: it wins over a name
	 * outside it, and over the file's (pm_peel.hit) */
	if (rc >= 0 && s->nihit) {
		pe->node = pe->hit = px->node = s->ihit;
		pe->node_len = pe->hit_len = px->node_len = s->nihit;
		pe->node_weak = pe->node_hit = true;
	}
	return rc;
}

/* Line P (L bytes) of file F peeled into NP: its text without wrappers or leading blanks in
 * *T, and its length (0: nothing). */
static size_t peeled_text(const struct pm_file *f, const char *p, size_t l, struct pm_peel *np,
			  const char **t)
{
	size_t tl;

	pm_peel(f->format, p, l, NULL, np);
	*t = p + (np->skip < l ? np->skip : l);
	tl = np->end > np->skip && np->end <= l ? np->end - np->skip : 0;
	while (tl && (**t == ' ' || **t == '\t')) {
		(*t)++;
		tl--;
	}
	return tl;
}

/* Whether the program went on after LINE (LEN bytes of the chunk being confirmed), read by R,
 * a rule with 'last' (a line printed alike by a program that stops and by one that goes on:
 * Perl's "Can't locate ..." from a die or from a warn, an error it says it retries).  PE is
 * LINE's peel.  The next line of the same writer (srun's label, else the rank a wrapper
 * gives; other writers' lines skipped, blank ones too), at most 32 lines on, decides: the
 * program's own output is the program going on (1).  Slurm's own lines (srun's,
 * slurmstepd's: the task ended), a shell's trace of its next command ("+ cmd") and a line of
 * the same report (R's last_re: Perl's "BEGIN failed--compilation aborted") are not (0);
 * nor is the file's end: a line the program printed last stands.  The chunk's end decides
 * nothing (-1, unless s->resolving): where a chunk ends depends on the bytes before it, and
 * the next chunk's first lines decide (defer, resolve).  Uses s->md: its match must have
 * been read already. */
static int went_on(struct scan *s, const struct pm_rule *r, const char *line, size_t len,
		   const struct pm_peel *pe)
{
	const struct pm_file *f = &s->ev->files[s->file];
	const int who = pe->label >= 0 ? pe->label : pe->rank;
	const char *end, *p, *q;
	struct pm_peel np;

	int n = 0;

	if (!s->cbuf || line < s->cbuf || len > s->clen || line > s->cbuf + s->clen - len)
		return 0;
	end = s->cbuf + s->clen;
	p = line + len;
	if (p < end && *p == '\n')
		p++;
	for (; p < end && n < 32; p = q + 1) {
		const char *t;
		size_t l, tl;

		if (!(q = memchr(p, '\n', (size_t)(end - p))))
			q = end;
		l = (size_t)(q - p);
		tl = peeled_text(f, p, l, &np, &t);
		if (!tl)
			continue;
		n++;
		if (pm_in_starts(t, tl, "srun: ") || pm_in_starts(t, tl, "slurmstepd: ") ||
		    pm_in_starts(p, l, "srun: ") || pm_in_starts(p, l, "slurmstepd: "))
			return 0;
		if ((np.label >= 0 ? np.label : np.rank) != who)
			continue;
		if (pm_in_starts(t, tl, "+ ") || pm_in_starts(t, tl, "++ "))
			return 0;
		return !(r->last_re && pm_re_match(s->rs, r->last_re, t, tl, s->md) >= 0);
	}
	return n < 32 && !s->resolving ? -1 : 0;
}

/* Walk back from E over the lines of BASE..E for follows: the lines that are not blank
 * counted in *N up to PM_NOT_AFTER_LINES, those of writer WHO matched against RE.
 * Whether one matched. */
static bool follows_in(struct scan *s, const pcre2_code *re, int who, const char *base,
		       const char *e, int *n)
{
	const struct pm_file *f = &s->ev->files[s->file];
	const char *p, *sj;
	struct pm_peel np;
	int rc;

	while (e > base && *n < PM_NOT_AFTER_LINES) {
		const char *t;
		size_t l, tl;

		if (e[-1] == '\n')
			e--;
		p = e > base ? memrchr(base, '\n', (size_t)(e - base)) : NULL;
		p = p ? p + 1 : base;
		l = (size_t)(e - p);
		e = p;
		tl = peeled_text(f, p, l, &np, &t);
		if (!tl)
			continue;
		(*n)++;
		if ((np.label >= 0 ? np.label : np.rank) != who)
			continue;
		/* a structured record's message as the hit's pattern reads it (match_line): its
		 * escapes undone, a record inside it read as one */
		if (np.record)
			rc = match_value(s, re, t, tl, np.quoted, 2, &sj, NULL);
		else
			rc = pm_re_match(s->rs, re, t, tl, s->md);
		if (rc >= 0)
			return true;
	}
	return false;
}

/* Whether LINE (of the chunk being confirmed), read by a rule with 'not_after' or 'after', is
 * the tail of another report: one of the PM_NOT_AFTER_LINES lines before it (blank ones not
 * counted, other writers' counted but not read), of the same writer (srun's label, else the
 * rank a wrapper gives: PE is LINE's peel), is one RE, the rule's not_after_re or after_re,
 * reads (nvidia-smi's "No devices were found" under the "Unable to determine the device
 * handle" lines of its lost GPUs; a CUDA error under a frame that pins memory).
 * Where a chunk ends does not matter: the lines before a chunk's first are the last ones of
 * the chunk before, kept (keep_tail).  A hit decided at the next chunk's start (resolve)
 * was looked at here before it waited.  Uses s->md: its match must have been read already. */
static bool follows(struct scan *s, const pcre2_code *re, const char *line,
		    const struct pm_peel *pe)
{
	const int who = pe->label >= 0 ? pe->label : pe->rank;
	const int d = s->daemon;
	int n = 0;

	if (!s->cbuf || line < s->cbuf || line > s->cbuf + s->clen)
		return false;
	if (follows_in(s, re, who, s->cbuf, line, &n))
		return true;
	return !s->resolving && n < PM_NOT_AFTER_LINES && s->ntail[d] &&
	       follows_in(s, re, who, s->tail[d], s->tail[d] + s->ntail[d], &n);
}

/* Whether A and B (AL and BL bytes, neither NUL-terminated) are one name in any case. */
static bool same_name(const char *a, size_t al, const char *b, size_t bl)
{
	if (!a || !b || al != bl)
		return false;
	for (size_t i = 0; i < al; i++)
		if (pm_in_lower(a[i]) != pm_in_lower(b[i]))
			return false;
	return true;
}

/* Whether the chunk being confirmed holds text R's not_beside_re reads: the same listing as
 * R's line says that line is no fault (ibstat's port "Down" beside an InfiniBand port
 * "Active").  The pattern reads the chunk's lines as the rules do, each peeled of its
 * wrappers (a logger's stamp, a launcher's label: a listing a program printed through its
 * logger is still one), one text of lines joined by newlines.  Read once per chunk and rule
 * (the chunk's rows of a listing ask alike).  Only the chunk: a listing that a chunk's end
 * cuts is read as two, and a row whose answer lies in the other is read (a reading kept,
 * never one lost).  Where R's line names its host in a parallel shell's prefix (pdsh's or
 * clush's "gpu07: ", as PE peeled it), the listing is that host's lines alone: a paste of two
 * nodes' listings in one chunk is two listings, and one node's port active answers none of
 * the other's rows (net-ibv-devinfo-pdsh-two-hosts-one-down).  A paste whose lines name no
 * host is read as one listing: two nodes' listings there leave the down node's row unread
 * (a missed reading, never a blamed node).  Uses s->md: its match must have been read
 * already. */
static bool beside(struct scan *s, size_t ri, const struct pm_peel *pe)
{
	const struct pm_rule *r = &s->rs->rules[ri];
	const struct pm_file *f = &s->ev->files[s->file];
	size_t n = 0;
	char *b;
	int rc;
	bool own = pe->node && pe->node_len;

	if (!s->cbuf)
		return false;
	/* read once per chunk and rule, but per host where the line names one */
	if (!own && s->beside_ri == ri + 1)
		return s->beside_hit;
	s->beside_ri = own ? 0 : ri + 1;
	s->beside_hit = false;
	/* a line's peeled text is never longer than the line: the lines and a newline each */
	if (!(b = malloc(s->clen + 1)))
		return false;
	for (size_t at = 0; at < s->clen;) {
		const char *p = s->cbuf + at, *e = memchr(p, '\n', s->clen - at), *t;
		size_t l = e ? (size_t)(e - p) : s->clen - at;
		struct pm_peel np;
		size_t tl = peeled_text(f, p, l, &np, &t);

		at += l + 1;
		/* another host's line of a parallel shell's output (pdsh interleaves the hosts'
		 * lines): not this listing's, left out so the host's own rows stand together */
		if (own && !same_name(np.node, np.node_len, pe->node, pe->node_len))
			continue;
		/* a structured record's message, its escapes undone as the rules read it (a
		 * JSON logger's "\t\tState: Active"): never longer than the value */
		if (np.record && np.quoted && np.skip < np.end && np.end <= l)
			tl = pm_unquote(p + np.skip, np.end - np.skip, b + n);
		else if (tl)
			memcpy(b + n, t, tl);
		n += tl;
		b[n++] = '\n';
	}
	rc = pm_re_match(s->rs, r->not_beside_re, b, n, s->md);
	free(b);
	s->beside_hit = rc >= 0;
	return s->beside_hit;
}

/* Keep the last lines of BUF (LEN bytes, the chunk as the rules read it), up to
 * PM_NOT_AFTER_LINES that are not blank, for follows to read at the next chunk's start.
 * Bounded: at most TAIL_MAX bytes back, whole lines only (a longer line ends the tail). */
#define TAIL_MAX (16u << 10)
static int keep_tail(struct scan *s, const char *buf, size_t len)
{
	const struct pm_file *f = &s->ev->files[s->file];
	const int d = s->daemon;
	const char *e = buf + len, *start = e, *p;
	struct pm_peel np;
	int n = 0;

	while (e > buf && n < PM_NOT_AFTER_LINES) {
		const char *t;

		if (e[-1] == '\n')
			e--;
		p = e > buf ? memrchr(buf, '\n', (size_t)(e - buf)) : NULL;
		p = p ? p + 1 : buf;
		if ((size_t)(buf + len - p) > TAIL_MAX)
			break;
		start = p;
		if (peeled_text(f, p, (size_t)(e - p), &np, &t))
			n++;
		e = p;
	}
	s->ntail[d] = 0;
	if (start == buf + len)
		return 0;
	if ((size_t)(buf + len - start) > s->atail[d]) {
		char *t = realloc(s->tail[d], TAIL_MAX);
		if (!t)
			return -1;
		s->tail[d] = t;
		s->atail[d] = TAIL_MAX;
	}
	s->ntail[d] = (size_t)(buf + len - start);
	memcpy(s->tail[d], start, s->ntail[d]);
	return 0;
}

/* Keep hit RI on LINE (LEN bytes of the chunk being confirmed, at OFF of the file) for the
 * next chunk to decide (went_on): the line and the rest of the chunk are copied. */
static int defer(struct scan *s, size_t ri, const char *line, size_t len, uint64_t off)
{
	struct pend *d;
	size_t n = (size_t)(s->cbuf + s->clen - line);

	while (s->npend >= s->apend)
		if (pm_grow((void **)&s->pend, &s->apend, sizeof(*s->pend)) < 0)
			return -1;
	d = &s->pend[s->npend];
	if (!(d->text = malloc(n + 1)))
		return -1;
	memcpy(d->text, line, n);
	d->ri = ri;
	d->n = n;
	d->nline = len;
	d->off = off;
	d->line_next = s->line_next;
	d->line_yields = s->line_yields;
	d->daemon = s->daemon;
	s->npend++;
	return 0;
}

static int confirm(struct scan *s, size_t ri, const char *line, size_t len, uint64_t off)
{
	const struct pm_rule *r = &s->rs->rules[ri];
	struct pm_peel pe;
	struct pm_prefix px;
	const char *caps[PM_CAP__COUNT] = {0}, *subj;
	size_t capl[PM_CAP__COUNT] = {0};
	PCRE2_SIZE *ov;
	int rc;

	if (!asks(s, r, line, len) || (rc = match_line(s, r, line, len, &pe, &px, &subj)) < 0)
		return 0;
	ov = pcre2_get_ovector_pointer(s->md);
	for (int c = 0; c < PM_CAP__COUNT; c++) {
		int gno = r->cap[c];
		if (gno && gno < rc && ov[2 * gno] != PCRE2_UNSET) {
			caps[c] = subj + ov[2 * gno];
			capl[c] = ov[2 * gno + 1] - ov[2 * gno];
		}
	}
	/* the tail of another report is that report's (the captures are read: follows
	 * matches again) */
	if (r->not_after_re && follows(s, r->not_after_re, line, &pe))
		return 0;
	/* and a line read only as the tail of another report (a CUDA error under a frame that
	 * pins memory) is not read without it */
	if (r->after_re && !follows(s, r->after_re, line, &pe))
		return 0;
	/* a row of a listing that another row of it answers (an unused port beside an active
	 * one) */
	if (r->not_beside_re && beside(s, ri, &pe))
		return 0;
	/* a line the program went on from was not its end (the captures are read: went_on
	 * matches again); one whose next line is in the next chunk waits for it */
	if (r->last && (rc = went_on(s, r, line, len, &pe)) != 0)
		return rc > 0 ? 0 : defer(s, ri, line, len, off);
	/* what the terminal showed: a progress bar redrawn before the text is not kept, unless
	 * srun's label before it names another task than the rank tag (att_ranks.c's label_node
	 * reads the line kept to place it), or the rank is torchrun's local "[defaultN]:"
	 * (att_ranks.c's local_ranks reads the line kept to tell) */
	if (pe.cr && (pe.label < 0 || pe.label == pe.rank) && !pe.rank_local) {
		px.skip -= pe.cr;
		return record(s, ri, line + pe.cr, pe.end - pe.cr, &px, off, caps, capl, 0);
	}
	/* a structured record is kept whole: its fields after the message too */
	return record(s, ri, line, pe.record ? len : pe.end, &px, off, caps, capl, 0);
}

/* Decide the hits of this pass (s->daemon) that waited for the next chunk (defer): each as
 * though its chunk had gone on into BUF (LEN bytes, the next chunk as the rules read it;
 * none at the file's end, which ends the program's output). */
static int resolve(struct scan *s, const char *buf, size_t len)
{
	const char *cbuf = s->cbuf;
	size_t clen = s->clen, k = 0;
	uint64_t next = s->line_next;
	bool yields = s->line_yields, pc = s->pc_on;
	int rc = 0;

	for (size_t i = 0; i < s->npend; i++) {
		struct pend *d = &s->pend[i];
		char *t;
		size_t n = d->n;

		if (d->daemon != s->daemon) {
			s->pend[k++] = *d;
			continue;
		}
		if (rc == 0 && (t = realloc(d->text, n + 1 + len + 1))) {
			d->text = t;
			if (n && t[n - 1] != '\n')
				t[n++] = '\n';
			if (len)
				memcpy(t + n, buf, len);
			n += len;
			s->cbuf = t;
			s->clen = n;
			s->beside_ri = 0;
			s->line_next = d->line_next;
			s->line_yields = d->line_yields;
			s->pc_on = false; /* the peel cache is the chunk's, not this copy's */
			s->resolving = true;
			rc = confirm(s, d->ri, t, d->nline, d->off);
			s->resolving = false;
		} else if (rc == 0) {
			rc = -1;
		}
		free(d->text);
	}
	s->npend = k;
	s->cbuf = cbuf;
	s->clen = clen;
	s->beside_ri = 0;
	s->line_next = next;
	s->line_yields = yields;
	s->pc_on = pc;
	return rc;
}

/* The rank of srun's label ("3: ", " 3: ") at the start of a line of the job's output, when
 * nothing after it can change it; -1: parse the line in full.  app_prefix (prefix.c) gives
 * such a line the label's rank: only a "[rankN]:" or "[defaultN]:" tag right after the label
 * overrides it, and both start with '['; an NCCL prefix there only ends the parse.  A JSON
 * record's "rank" field overrides it too (pm_peel). */
static int label_rank(const char *s, size_t n)
{
	size_t p = 0, i = 0;
	int v = 0;

	while (p < n && p < 8 && s[p] == ' ')
		p++;
	while (p + i < n && i < 8 && s[p + i] >= '0' && s[p + i] <= '9') {
		v = v * 10 + (s[p + i] - '0');
		i++;
	}
	if (i == 0 || i > 7)
		return -1;
	p += i;
	if (p + 1 >= n || s[p] != ':' || s[p + 1] != ' ')
		return -1;
	p += 2;
	if (p < n && (s[p] == '[' || s[p] == '{')) /* a structured record may say a rank too */
		return -1;
	if (pm_prefix_runtime_id(s + p, n - p)) /* the runtime's own number: no label */
		return -1;
	return v;
}

/* The hit offset of hit I (scan_chunk's line_of reads the line around it). */
static size_t hit_at(const struct scan *s, size_t i)
{
	return s->hits[i].to ? s->hits[i].to - 1 : 0;
}

/* Keep the peel just taken (s->last) of the line of L bytes at P in BUF for the rules that
 * hit it, when one did: *H walks the chunk's sorted hits.  Keeping one too many only costs
 * memory; the cache is looked up by the line's exact span. */
static void keep_peel(struct scan *s, const char *buf, const char *p, size_t l, size_t *h)
{
	size_t ls = (size_t)(p - buf);

	while (*h < s->nhits && hit_at(s, *h) < ls)
		(*h)++;
	if (*h >= s->nhits || hit_at(s, *h) > ls + l || !s->has_last || s->last.line != p)
		return;
	if (s->npc == s->apc && pm_grow((void **)&s->pc, &s->apc, sizeof(*s->pc)) < 0)
		return; /* a cache: peeled again when asked */
	s->pc[s->npc++] = s->last;
}

/* A structured record's value with escapes is in the chunk as written ("File \"t.py\"",
 * "\nRuntimeError"), where a pattern's quote or line start is not seen: the chunk's such
 * values are gathered with their escapes undone, one a line, and scanned again in one go,
 * each hit put at its record's line (rescan_flush). */
struct revalue {
	size_t start;		 /* in s->rbuf */
	unsigned long long line; /* the record's line's end in the chunk */
};

/* Value V (N bytes, escapes) of the record whose line ends at LINE, gathered: undone into
 * s->rbuf; a record inside it (Docker's "log" holding a JSON logger's line), its values
 * too. */
static int rescan_value(struct scan *s, const char *v, size_t n, unsigned long long line, int d)
{
	struct pm_peel in;
	size_t at;

	if (!n || !memchr(v, '\\', n))
		return 0;
	/* room for the value and, undone from it, a record's two values inside it, which are no
	 * longer than it together: V, inside s->rbuf then, does not move */
	if (d > 0 && s->nrbuf + n + 1 > s->arbuf)
		return 0;
	if (s->nrbuf + 3 * n + 3 > s->arbuf) {
		size_t na = s->arbuf ? s->arbuf : 4096;
		char *nb;
		while (na < s->nrbuf + 3 * n + 3)
			na *= 2;
		if (!(nb = realloc(s->rbuf, na)))
			return -1;
		s->rbuf = nb;
		s->arbuf = na;
	}
	if (s->nrv == s->arv && pm_grow((void **)&s->rv, &s->arv, sizeof(*s->rv)) < 0)
		return -1;
	at = s->nrbuf;
	s->rv[s->nrv++] = (struct revalue){at, line};
	n = pm_unquote(v, n, s->rbuf + at);
	s->nrbuf = at + n;
	s->rbuf[s->nrbuf++] = '\n';
	/* a record inside has a '{' or a '=' (most values have neither) */
	if (d > 0 || (!memchr(s->rbuf + at, '{', n) && !memchr(s->rbuf + at, '=', n)))
		return 0;
	pm_peel(PM_FMT_APP, s->rbuf + at, n, NULL, &in);
	if (!in.record)
		return 0;
	if (in.quoted && rescan_value(s, s->rbuf + at + in.skip, in.end - in.skip, line, 1) < 0)
		return -1;
	return rescan_value(s, s->rbuf + at + in.xskip, in.xend - in.xskip, line, 1);
}

/* The escaped values of the structured record at the line of L bytes at P in BUF, gathered
 * (rescan_value). */
static int rescan_record(struct scan *s, const char *buf, const char *p, size_t l,
			 const struct pm_peel *pe)
{
	unsigned long long line = (unsigned long long)(p - buf) + l;

	if (pe->quoted && rescan_value(s, p + pe->skip, pe->end - pe->skip, line, 0) < 0)
		return -1;
	return rescan_value(s, p + pe->xskip, pe->xend - pe->xskip, line, 0);
}

static int on_rehit(unsigned int id, unsigned long long from, unsigned long long to,
		    unsigned int flags, void *ctx)
{
	struct scan *s = ctx;
	size_t lo = 0, hi = s->nrv, at = to ? (size_t)to - 1 : 0;

	while (hi - lo > 1) { /* the value the hit ends in */
		size_t mid = (lo + hi) / 2;
		if (s->rv[mid].start <= at)
			lo = mid;
		else
			hi = mid;
	}
	return on_hit(id, from, s->rv[lo].line, flags, s);
}

/* The values gathered from the chunk's records, scanned; their hits go after the chunk's
 * sorted ones. */
static int rescan_flush(struct scan *s)
{
	int rc = 0;

	if (s->nrv &&
	    pm_hs_chunk(s->db, s->stream, s->rbuf, s->nrbuf, s->scratch, on_rehit, s) != HS_SUCCESS)
		rc = -1;
	s->nrv = 0;
	s->nrbuf = 0;
	return rc;
}

/* Note that agent LABEL ran a worker of local rank LOCAL (pm_evidence's agents). */
static void note_agent(struct pm_evidence *ev, int label, int local)
{
	uint32_t v;

	if (label < 0 || label >= 1 << 20 || local < 0 || local >= PM_AGENT_LOCALS)
		return;
	v = (uint32_t)label * PM_AGENT_LOCALS + (uint32_t)local;
	for (unsigned i = ev->nagents; i-- > 0;)
		if (ev->agents[i] == v)
			return;
	if (ev->nagents < PM_AGENTS)
		ev->agents[ev->nagents++] = v;
}

/* Note torchrun's workers a node, N (nproc_per_node): two that differ make it unknown. */
static void note_nproc(struct pm_evidence *ev, int n)
{
	if (n <= 0 || ev->nproc < 0)
		return;
	ev->nproc = !ev->nproc || ev->nproc == n ? n : -1;
}

/* Set an agent's first rank + 1 *AT to V (> 0; -1 where two differ). */
static void set_base(int *at, int v)
{
	if (*at == 0 || v < 0)
		*at = v;
	else if (*at > 0 && *at != v)
		*at = -1;
}

/* Note that agent LABEL's worker of local rank LOCAL is global rank RANK: the agent's first
 * rank, and (from the second agent on) the workers a node. */
static void note_base(struct pm_evidence *ev, int label, int local, int rank)
{
	int b = rank - local;

	if (label < 0 || label >= PM_AGENTS || local < 0 || b < 0)
		return;
	set_base(&ev->agent_base[label], b + 1);
	if (label > 0 && b % label == 0)
		note_nproc(ev, b / label);
	else if (label > 0)
		ev->nproc = -1;
}

/* torchrun's workers a node as BUF (LEN bytes) says it: its banner's "nproc_per_node   : 4",
 * its command line's "--nproc_per_node 4", "--nproc-per-node=4" (pm_evidence's nproc). */
static void tally_nproc(struct pm_evidence *ev, const char *buf, size_t len)
{
	static const char *const keys[] = {"nproc_per_node", "nproc-per-node"};

	for (size_t k = 0; k < 2; k++) {
		const char *p = buf, *end = buf + len, *q;

		while ((q = memmem(p, (size_t)(end - p), keys[k], 14))) {
			size_t i = 14, d = 0;
			int v = 0;

			while (q + i < end && i < 14 + 8 &&
			       (q[i] == ' ' || q[i] == '\t' || q[i] == ':' || q[i] == '='))
				i++;
			while (q + i + d < end && d < 5 && pm_in_isdigit(q[i + d])) {
				v = v * 10 + (q[i + d] - '0');
				d++;
			}
			if (i > 14 && d && d < 5 && (q + i + d == end || !pm_in_isalnum(q[i + d])))
				note_nproc(ev, v);
			p = q + 14;
		}
	}
}

/* Tally which ranks spoke: cheap per-line prefix parsing of application output.  What is
 * used of it is the set of ranks (in the order first seen) and each rank's first node; a
 * line whose rank is known, with its node, only counts. */
static int tally_ranks(struct scan *s, const char *buf, size_t len)
{
	struct pm_file *f = &s->ev->files[s->file];
	const char *p = buf, *end = buf + len;
	size_t fnodelen = f->node ? strlen(f->node) : 0, h = 0;
	uint64_t lines = 0;
	bool labels = f->format == PM_FMT_APP || f->format == PM_FMT_TORCHRUN ||
		      f->format == PM_FMT_PYSPY;
	/* a backslash: a structured record's value may hold escapes (rescan_record) */
	bool esc = labels && s->db && memchr(buf, '\\', len);

	if (f->source != PM_SRC_APP_LOG)
		return 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct pm_peel pe;
		struct pm_prefix px;
		struct pm_rankinfo *ri;
		int r = labels ? label_rank(p, l) : -1;
		bool quoted = esc && memchr(p, '\\', l);

		lines++;
		if (r >= 0 && !quoted && (ri = rank_get(s, r)) && ri->node) {
			p += l + 1;
			continue;
		}
		peel_line(s, p, l, &pe, &px);
		keep_peel(s, buf, p, l, &h);
		if (quoted && pe.record && rescan_record(s, buf, p, l, &pe) < 0) {
			s->nrv = s->nrbuf = 0;
			return -1;
		}
		if (pe.rank < 0 && pe.agent_local >= 0)
			note_agent(s->ev, pe.label, pe.agent_local);
		else if (pe.agent_local >= 0)
			note_base(s->ev, pe.label, pe.agent_local, pe.rank);
		if (px.rank < 0)
			px.rank = f->rank;
		if (px.rank >= 0) {
			ri = rank_get(s, px.rank);
			if (ri && !ri->node)
				note_rank(s, px.rank, px.node ? px.node : f->node,
					  px.node_len ? px.node_len : fnodelen, 0, false);
		}
		p += l + 1;
	}
	if (labels)
		tally_nproc(s->ev, buf, len);
	f->lines += lines;
	return esc ? rescan_flush(s) : 0;
}

/* Hits of the current file's database in BUF, a line-aligned chunk, as a block scan would
 * report them. */
static int scan_block(struct scan *s, const char *buf, size_t len)
{
	return pm_hs_chunk(s->db, s->stream, buf, len, s->scratch, on_hit, s) == HS_SUCCESS ? 0 :
											      -1;
}

static int scan_chunk(struct scan *s, const char *buf, size_t len, uint64_t off, bool cleaned);

/* Whether a collector's scan (pm_scan_carry) is past its deadline or told to stop: it gives
 * up (S->gave_up), and the capture is bundled without its record.  A job's output of
 * tracebacks or squashed lines takes seconds a MiB to confirm, and the collector's deadline
 * and the plugin's SIGTERM come first (the epilog fails open). */
static bool out_of_time(struct scan *s)
{
	struct timespec ts;

	if (s->gave_up)
		return true;
	if (!s->deadline && !s->stop)
		return false;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if ((s->deadline > 0 && (double)ts.tv_sec + ts.tv_nsec / 1e9 >= s->deadline) ||
	    (s->stop && s->stop()))
		s->gave_up = true;
	return s->gave_up;
}
static int scan_daemon(struct scan *s, const char *buf, size_t len, uint64_t off, bool cleaned);

/* Clean BUF into s->clean when it holds ANSI escapes, CRLFs or box frames, which would hide
 * a message's words or a pattern's line end from the scan: true when it did. */
static int clean_chunk(struct scan *s, const char *buf, size_t len, bool *cleaned)
{
	const struct pm_file *f = &s->ev->files[s->file];
	struct pm_paste paste;
	size_t i = 0, o = 0;
	bool frames, shaped, joined = false;

	pm_file_paste(f, &paste);
	shaped = paste.indent || paste.quoted || paste.numbered || paste.stamped || paste.wrap ||
		 paste.escaped;
	*cleaned = false;
	if (!shaped && (s->ev->files[s->file].plain || !pm_text_dirty(buf, len)))
		return 0;
	frames = pm_has_frame(buf, len);
	if (!frames && !shaped && !memchr(buf, 0x1b, len) && !memchr(buf, '\r', len) &&
	    !pm_text_typographic(buf, len))
		return 0;
	if (len > s->aclean) {
		char *nb = realloc(s->clean, len);
		if (!nb)
			return -1;
		s->clean = nb;
		s->aclean = len;
	}
	s->ncmap = 0;
	while (i < len) {
		const char *nl = memchr(buf + i, '\n', len - i), *nx;
		size_t e = nl ? (size_t)(nl - buf) + 1 : len;
		bool join;

		if (s->ncmap + 2 > s->acmap) {
			size_t na = s->acmap ? 2 * s->acmap : 1024;
			size_t *nm = realloc(s->cmap, na * sizeof(*nm));
			if (!nm)
				return -1;
			s->cmap = nm;
			s->acmap = na;
		}
		/* a line a terminal's width broke is read as one, where its first piece starts */
		if (!joined) {
			s->cmap[s->ncmap++] = o;
			s->cmap[s->ncmap++] = i;
		}
		size_t l = pm_text_clean(buf + i, e - i, s->clean + o);

		if (paste.escaped) /* before the shape: a reply's quote of it is escaped too */
			l = pm_html_unescape(s->clean + o, l, s->clean + o);
		join = paste.wrap && nl && (nx = memchr(buf + e, '\n', len - e)) &&
		       pm_paste_joins(s->clean + o, l, buf + e, (size_t)(nx - buf) - e, &paste);
		if (shaped) {
			size_t k = pm_paste_skip(s->clean + o, l, &paste);
			memmove(s->clean + o, s->clean + o + k, l - k);
			l -= k;
		}
		if (frames && nl) {
			/* a frame's right side would hide the line's end from a pattern's '$' */
			l = pm_frame_end(s->clean + o, l - 1);
			s->clean[o + l++] = '\n';
		}
		if ((joined = join && l && s->clean[o + l - 1] == '\n'))
			l--;
		o += l;
		i = e;
	}
	s->nclean = o;
	*cleaned = true;
	return 0;
}

/* The chunk offset of the line that starts at LS in the cleaned copy. */
static size_t chunk_offset(const struct scan *s, size_t ls)
{
	size_t lo = 0, hi = s->ncmap / 2;

	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (s->cmap[2 * mid] <= ls)
			lo = mid;
		else
			hi = mid;
	}
	return s->cmap[2 * lo + 1];
}

/* What is scanned of a trusted source: cleaned of colour codes and CRLFs (clean_chunk), its
 * user-chosen fields masked, the lines that are not its own or not this job's blanked
 * (linetrust.c). */
/* ---- the offsets of a zoned system log ---- */

static bool system_log(enum pm_format fmt);
static bool is_hostish(const char *s, size_t l);

/* Whether F is a system's log whose stamps carry their offset (record_in_local_zone). */
static bool zoned_system_log(const struct pm_file *f)
{
	return f->head_zoned && (system_log(f->format) || f->source == PM_SRC_KERNEL_LOG);
}

/* Whether F is a system's log whose stamps may carry no year (a traditional syslog's, the
 * journal's short form: year_walk). */
static bool yearless_log(const struct pm_file *f)
{
	return !f->head_zoned && (system_log(f->format) || f->source == PM_SRC_KERNEL_LOG);
}

/* The length of a forwarder's priority and RFC 5424's version before a line's stamp ("<4>1 "),
 * 0 for none. */
static size_t priority_len(const char *line, size_t n)
{
	size_t p = 0;

	if (n <= 3 || line[0] != '<')
		return 0;
	while (p + 1 < n && p < 5 && line[p] != '>')
		p++;
	p = line[p] == '>' ? p + 1 : 0;
	if (p && p + 1 < n && line[p] == '1' && line[p + 1] == ' ')
		p += 2;
	return p;
}

/* The instant and the offset of the ISO stamp with an offset that starts LINE (after its
 * priority): true, or false where it has none. */
static bool iso_zone(const char *line, size_t n, double *t, int *zone)
{
	struct pm_in_stamp st, local;
	size_t p = priority_len(line, n);

	line += p;
	n -= p;
	if (!pm_in_iso(line, n, &st) || !st.zone || n < 19 || pm_in_iso(line, 19, &local) != 19)
		return false;
	*t = st.t;
	/* the wall clock read as UTC, less the instant: the offset, whole minutes */
	*zone = (int)(local.t - floor(st.t));
	return true;
}

/* The token that ends the ISO stamp starting LINE, its offset ("-05:00", "+0100", "Z"), found
 * without reading the stamp: its length, 0 where the line starts with no such stamp. */
static size_t zone_token(const char *line, size_t n, const char **tok)
{
	size_t p = priority_len(line, n), e, k;
	const char *sp;

	if (n < p + 20 || line[p + 10] != 'T' || line[p] < '0' || line[p] > '9')
		return 0;
	sp = memchr(line + p + 19, ' ', n - p - 19 < 24 ? n - p - 19 : 24);
	if (!sp)
		return 0;
	e = (size_t)(sp - line);
	if (line[e - 1] == 'Z') {
		*tok = line + e - 1;
		return 1;
	}
	for (k = e - 1; k > p + 18 && line[k] != '+' && line[k] != '-'; k--)
		;
	if (k == p + 18 || e - k > 7)
		return 0;
	*tok = line + k;
	return e - k;
}

/* The change of offset between the line PREV (of PN bytes) and LINE, both of a zoned system
 * log, noted in the file being scanned: -1 on ENOMEM. */
static int zone_change(struct scan *s, const char *prev, size_t pn, const char *line, size_t n)
{
	struct pm_file *f = &s->ev->files[s->file];
	struct pm_zchange c;

	if (!iso_zone(prev, pn, &c.before, &c.zbefore) || !iso_zone(line, n, &c.after, &c.zafter) ||
	    c.zbefore == c.zafter)
		return 0;
	if (f->nzchg == 8) { /* more than daylight saving makes: hosts of several zones */
		f->zmixed = true;
		return 0;
	}
	if (!(f->nzchg & (f->nzchg - 1))) {
		struct pm_zchange *z = realloc(f->zchg, (f->nzchg ? 2 * f->nzchg : 1) * sizeof(*z));
		if (!z)
			return -1;
		f->zchg = z;
	}
	f->zchg[f->nzchg++] = c;
	return 0;
}

/*
 * A syslog's host after a line's stamp (from P, before END): a file of several hosts' lines
 * (a central loghost's) is marked ZMIXED at the second, whatever their offsets: hosts in
 * two zones would read as a daylight saving change.  -1 on ENOMEM (never: the host is kept
 * in the scan, up to 63 bytes).
 */
static int zone_host(struct scan *s, const char *p, const char *end)
{
	struct pm_file *f = &s->ev->files[s->file];
	size_t n;

	while (p < end && *p == ' ')
		p++;
	for (n = 0; p + n < end && p[n] != ' '; n++)
		;
	if (!n || n >= sizeof(s->zhost))
		return 0;
	if (!s->zhostn) {
		memcpy(s->zhost, p, n);
		s->zhostn = n;
	} else if (n != s->zhostn || memcmp(p, s->zhost, n)) {
		f->zmixed = true;
	}
	return 0;
}

/* Whether the N bytes at P hold slurmd's tag: a syslog line's "slurmd[PID]:", or RFC
 * 5424's APP-NAME and PROCID ("... fe22 slurmd 1874 - - ..."). */
static bool slurmd_tag(const char *p, size_t n)
{
	static const char app[] = " slurmd ";
	const char *q, *end = p + n;

	if (memmem(p, n, "slurmd[", 7))
		return true;
	if (!(q = memmem(p, n, app, sizeof(app) - 1)))
		return false;
	q += sizeof(app) - 1;
	if (q < end && *q == '-')
		q++;
	else
		while (q < end && pm_in_isdigit(*q))
			q++;
	return q < end && *q == ' ';
}

/*
 * Whether LINE (N bytes, of a zoned system log) is slurmd's launching the record's job as a
 * batch job: "... slurmd[2106]: slurmd: Launching batch job 5515001 for UID 40562" (or RFC
 * 5424's "... slurmd 2106 - - slurmd: Launching ...").  Its instant is the job's start in
 * absolute time (record_zone_launch).
 */
static bool launch_line(const struct pm_evidence *ev, const char *line, size_t n)
{
	static const char tag[] = "Launching batch job ";
	const char *p = memmem(line, n, tag, sizeof(tag) - 1), *id;
	const char *end = line + n;

	if (!p || !ev->job.id || !slurmd_tag(line, (size_t)(p - line)))
		return false;
	id = p += sizeof(tag) - 1;
	while (p < end && pm_in_isdigit(*p))
		p++;
	return p > id && (p == end || *p == ' ') && pm_record_job_id(ev, id, (size_t)(p - id));
}

/*
 * The offsets of a zoned system log's stamps as they change through the file (BUF, one chunk
 * of LEN bytes of whole lines): a file that spans a daylight saving change writes its local
 * time in two offsets, and the accounting record's times, local with no zone, are read in
 * the offset of their own moment (record_zone_refine), not in the head's.  Each line's offset
 * is compared as text with the last; only a change is read.  -1 on ENOMEM.
 */
static int zone_walk(struct scan *s, const char *buf, size_t len)
{
	struct pm_file *f = &s->ev->files[s->file];
	const char *prev = NULL, *tok;
	size_t pos = 0, pn = 0, tl, n;
	double t;
	int z;

	while (pos < len && !f->zmixed) {
		const char *line = buf + pos, *nl = memchr(line, '\n', len - pos);
		n = nl ? (size_t)(nl - line) : len - pos;
		pos += n + 1;
		if (!(tl = zone_token(line, n, &tok)))
			continue;
		if (launch_line(s->ev, line, n) && iso_zone(line, n, &t, &z) &&
		    (f->launch_at <= 0 || t < f->launch_at)) {
			f->launch_at = t;
			f->launch_zone = z;
		}
		if (f->format == PM_FMT_SYSLOG && zone_host(s, tok + tl, line + n) < 0)
			return -1;
		if (f->zmixed)
			break;
		if (s->ztl && (tl != s->ztl || memcmp(tok, s->ztok, tl))) {
			if (zone_change(s, prev ? prev : s->zprev, prev ? pn : s->zprevn, line, n) <
			    0)
				return -1;
		}
		memcpy(s->ztok, tok, tl);
		s->ztl = tl;
		prev = line;
		pn = n;
	}
	if (prev) {
		s->zprevn = pn < sizeof(s->zprev) ? pn : sizeof(s->zprev);
		memcpy(s->zprev, prev, s->zprevn);
	}
	return 0;
}

/* ---- sections ---- */

/* Whether LINE (N bytes) is a header head(1) and tail(1) write before each file they print
 * of several: "==> PATH <==".  Its path into *P, *PN. */
static bool section_header(const char *line, size_t n, const char **p, size_t *pn)
{
	if (n < 9 || memcmp(line, "==> ", 4) || memcmp(line + n - 4, " <==", 4))
		return false;
	*p = line + 4;
	*pn = n - 8;
	return true;
}

/* section_header of LINE (N bytes) read behind a paste's shape PASTE, as its lines are: a
 * page's HTML escapes undone (into DEC, DECN bytes: a longer line is no header), then a
 * reply's quote markers, a CI runner's stamps, a viewer's line numbers taken off. */
static bool pasted_header(const char *line, size_t n, const struct pm_paste *paste, char *dec,
			  size_t decn, const char **p, size_t *pn)
{
	size_t k;

	if (n && line[n - 1] == '\r')
		n--;
	if (paste->escaped) {
		if (n > decn)
			return false;
		n = pm_html_unescape(line, n, dec);
		line = dec;
	}
	k = pm_paste_skip(line, n, paste);
	return section_header(line + k, n - k, p, pn);
}

/* The first word of the name of the file being scanned ("gpu07" of "logs/gpu07.dmesg"),
 * into *W, *WL (0: none). */
static void file_word(const struct scan *s, const char **w, size_t *wl)
{
	const char *n = s->ev->files[s->file].name, *b = strrchr(n, '/');

	*w = b ? b + 1 : n;
	*wl = strcspn(*w, "._");
}

/* Whether host name A (AL bytes) is a sibling of B (BL): another number after the same
 * letters ("gpu08" beside "gpu07", "hx-a18" beside "hx-a17"), as a cluster names its nodes. */
static bool sibling(const char *a, size_t al, const char *b, size_t bl)
{
	size_t ap = al, bp = bl;

	while (ap && pm_in_isdigit(a[ap - 1]))
		ap--;
	while (bp && pm_in_isdigit(b[bp - 1]))
		bp--;
	return ap && ap < al && bp < bl && ap == bp && !strncasecmp(a, b, ap) &&
	       (al != bl || strncasecmp(a, b, al));
}

/* Whether F is read as dmesg's output by its content alone and its path names no kernel
 * source ("gq07.txt", "notes.txt"): a file the job may have written into its own folder with
 * lines shaped as dmesg's.  Its name names no node (node_from_path), and neither do the
 * headers of head's or tail's sections in it (section_walk): both are text the writer chose. */
static bool dmesg_by_content(const struct pm_file *f)
{
	return !f->kind_given && (f->format == PM_FMT_DMESG || f->format == PM_FMT_KMSG_ISO) &&
	       !pm_path_names_kernel(f->name);
}

/* The host a header's PATH (PN bytes) names by its shape, into OUT (OUTLEN bytes): the folder
 * that holds the file, else the file name's first word; false for none. */
static bool header_host(const char *path, size_t pn, char *out, size_t outlen)
{
	const char *base = path, *dir = NULL;
	size_t dl = 0, bl;

	out[0] = '\0';
	for (size_t i = 0; i < pn; i++)
		if (path[i] == '/' && i + 1 < pn) {
			dir = base;
			dl = (size_t)(path + i - base);
			base = path + i + 1;
		}
	for (bl = 0; base + bl < path + pn && !strchr("._", base[bl]); bl++)
		;
	if (dir && is_hostish(dir, dl) && dl < outlen) {
		memcpy(out, dir, dl);
		out[dl] = '\0';
	} else if (is_hostish(base, bl) && bl < outlen) {
		memcpy(out, base, bl);
		out[bl] = '\0';
	} else {
		return false;
	}
	return true;
}

/* The node a header's PATH (PN bytes) names: the folder that holds the file, else the file
 * name's first word ("gpu07.dmesg"), where it is a node the evidence knows (the record's),
 * or has a host name's shape after a section of a known node (another host's log beside
 * the job node's); "" for none, and the section's lines are the file's.  A name of a host's
 * shape alone is not enough: a rotated dump ("dmesg-20261128.txt") or a job's folder
 * ("pm-3391870/") would take the node's own lines away from it.  But a host no record knows
 * that is a sibling of the one the file is named for ("==> gpu08/dmesg.txt <==" inside
 * gpu07.dmesg, a head(1) over two nodes' logs saved under the first's name) is not the
 * file's either: its lines are placed there as the folder's guess (*GUESS), as the file's
 * own name would have placed them, never on the file's host (before: gpu08's Xid was
 * gpu07's: read-sections-sibling-host-in-named-file). */
static void section_node(struct scan *s, const char *path, size_t pn, char *out, size_t outlen,
			 bool *guess)
{
	const char *fw;
	size_t fl;

	if (!header_host(path, pn, out, outlen))
		return;
	*guess = false;
	if (known_node(s, out, strlen(out))) {
		s->sect_known = true;
	} else if (!s->sect_known) {
		file_word(s, &fw, &fl);
		*guess = sibling(out, strlen(out), fw, fl);
		if (!*guess)
			out[0] = '\0';
	}
}

/* NODE ("" none), a section's host, noted in the file being scanned.  -1 on ENOMEM. */
static int section_host(struct scan *s, const char *node)
{
	struct pm_file *f = &s->ev->files[s->file];
	char **v;

	if (!node[0])
		return 0;
	for (unsigned k = 0; k < f->nshosts; k++)
		if (!strcmp(f->shosts[k], node))
			return 0;
	if (!(v = realloc(f->shosts, (f->nshosts + 1) * sizeof(*v))))
		return -1;
	f->shosts = v;
	if (!(v[f->nshosts] = strdup(node)))
		return -1;
	f->nshosts++;
	return 0;
}

/* Whether BUF (LEN bytes, the file's first) opens with head's or tail's first header: on its
 * first line, or after a few lines a person put above the output they pasted or saved (a
 * note, the `$ tail -n 4 a b` command line), lines of no log (no stamp at their start,
 * behind PASTE's shape).  A log's line before any header is the file's own: not sectioned. */
#define SECT_LEAD 3
static bool first_header(struct scan *s, const char *buf, size_t len, const struct pm_paste *paste,
			 char *dec, size_t decn)
{
	const struct pm_file *f = &s->ev->files[s->file];
	size_t pos = 0, lead = 0, pn;
	const char *p;
	double t;

	while (pos < len && lead <= SECT_LEAD) {
		const char *line = buf + pos, *nl = memchr(line, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - line) : len - pos, k;

		pos += n + 1;
		if (pasted_header(line, n, paste, dec, decn, &p, &pn))
			return true;
		k = pm_paste_skip(line, n, paste);
		while (k < n && (line[k] == ' ' || line[k] == '\t' || line[k] == '\r'))
			k++;
		if (k == n)
			continue; /* a blank line */
		if (line[k] == '[' || pm_time_at(line + k, n - k, &f->tctx, &t))
			return false;
		lead++;
	}
	return false;
}

/*
 * Where the file is one node's own log with another's tail appended (`tail -n 50
 * gpu08/dmesg.log >> gpu07-dmesg.txt`: a log's line before the first header): the host of a
 * section SC that begins at PATH (PN bytes), section_node's reading corrected.  The lines
 * above the first header are the file's own, but a section whose header names another host
 * is that host's, never the file's node's (before, trust108: the whole file was the file's
 * node's, a neighbour's Xid under its own header was put on it and its exclusion advised).
 * It is that host as the evidence knows it where the host or the file's node is a node the
 * evidence knows (the file's own lines were then a known node's section, as section_node
 * asks; a host outside the record is set aside, pm_att_other_node), else as the folder's
 * guess, named and never excluded: with no record, the header's word is all that tells it
 * (a job's folder, `pm-3391870/`, is named so too, never on the file's node).  A header that
 * names the file's own node, or no host (`==> /var/log/kern.log <==`), leaves its lines the
 * file's.
 */
static void appended_node(struct scan *s, const char *path, size_t pn, struct section *sc)
{
	const struct pm_file *f = &s->ev->files[s->file];
	char host[sizeof(sc->node)];

	sc->guess = false;
	if (!header_host(path, pn, host, sizeof(host)) ||
	    (f->node && same_name(host, strcspn(host, "."), f->node, strcspn(f->node, ".")))) {
		sc->node[0] = '\0';
		return;
	}
	memcpy(sc->node, host, sizeof(host));
	sc->guess = !known_node(s, host, strlen(host)) &&
		    !(f->node && known_node(s, f->node, strlen(f->node)));
}

/* dmesg's own stamp at LINE's start (N bytes), seconds since boot ("[ 5373.002914]"), into *T
 * (plus one: a boot's first line, 0.000000, is a stamp too).  False where there is none. */
static bool boot_seconds(const char *line, size_t n, double *t)
{
	size_t i = 1, d = 0;
	double v = 0, scale = 0;

	if (!n || line[0] != '[')
		return false;
	while (i < n && line[i] == ' ')
		i++;
	for (; i < n && (pm_in_isdigit(line[i]) || (line[i] == '.' && !scale)); i++, d++) {
		if (line[i] == '.')
			scale = 1;
		else if (scale)
			v += (line[i] - '0') * (scale /= 10);
		else
			v = v * 10 + (line[i] - '0');
	}
	if (!d || !scale || i >= n || line[i] != ']')
		return false;
	*t = v + 1;
	return true;
}

/* A section's lines and its log's stamps go back by more than this: another log begins. */
#define SECT_WARP_S 3600.0

/*
 * Whether the line LINE (N bytes, behind PASTE's shape) of a sectioned file ends the section
 * above it: its stamp goes back by more than an hour from the section's last (SECT_WARP_S).
 * tail prints each file's last lines in order; a log appended below the last section with no
 * header of its own (`tail ... gpu-n27/dmesg.log > f; dmesg -T >> f`) starts at its boot,
 * long before them.  Its lines are then the file's, as lines under no header are, not the
 * header's host's (trust108: gpu-n21's own Xid below gpu-n22's section was put on gpu-n22,
 * a node of the job, and its exclusion advised).  dmesg's seconds since boot count as well:
 * a log appended from its boot starts near 0.
 */
static bool section_warp(struct scan *s, const char *line, size_t n, const struct pm_paste *paste)
{
	const struct pm_file *f = &s->ev->files[s->file];
	char b[128];
	size_t k;
	double t;
	bool boot = true;

	/* only the kernel's buffer: a syslog's line may be a program's, its stamp the one it
	 * sent (a user's old-dated line would end a neighbour's section on the file's node) */
	if ((f->format != PM_FMT_DMESG && f->format != PM_FMT_KMSG_ISO) || !s->nsect ||
	    !s->sect[s->nsect - 1].node[0])
		return false;
	/* the stamp as the scan reads it: a terminal's colours, a page's blanks cleaned */
	n = pm_text_clean(line, n < sizeof(b) ? n : sizeof(b), b);
	line = b;
	k = pm_paste_skip(line, n, paste);
	if (pm_time_at(line + k, n - k, &f->tctx, &t))
		boot = false;
	else if (!boot_seconds(line + k, n - k, &t))
		return false;
	if (t <= 0)
		return false;
	/* a clock's stamps below seconds since boot (or the reverse) are another log's too:
	 * `dmesg -T >> f` below a tail of plain dmesg: the two scales cannot be compared,
	 * and one node's tail keeps one (before: gpu-n21's own Xid, dated, stayed in gpu-n22's
	 * section: trust-dmesg-own-log-dated-below-neighbour-boot-section) */
	if (s->sect_last > 0 && (boot != s->sect_boot || t < s->sect_last - SECT_WARP_S))
		return true;
	if (t > s->sect_last)
		s->sect_last = t;
	s->sect_boot = boot;
	return false;
}

/* The section being read is done (a header follows): its lines counted into what head's or
 * tail's sections hold (section_overrun). */
static void section_done(struct scan *s)
{
	if (s->sect_lines > s->sect_max)
		s->sect_max = s->sect_lines;
	s->sect_lines = 0;
}

/*
 * Whether the line LINE (N bytes, behind PASTE's shape) of a sectioned file is past what tail
 * or head printed of the file its section's header names.  `tail -n N a b` prints N lines of
 * each file (fewer of a shorter one), in order: a section holding more lines than every
 * section before it did holds a log appended below it with no header of its own (`tail -n 3
 * a b > f; dmesg -T | tail >> f`), whose stamps need not go back (section_warp does not see
 * it).  Before (trust109), gpu-n21's own lost GPU below gpu-n23's section was gpu-n23's, a
 * healthy node of the job, with its exclusion advised.  The lines past it are no host's: not
 * the section's, and not the file's either, as a log below no header is where its stamps say
 * so, since the files above may have been shorter than tail's count (short captures of the
 * same few lines, two of them alike, would then put the last one's Xid on the file's node).
 * Only lines that start with a stamp are counted: a blank (tail's own before each header) or
 * a piece of a line a terminal's copy broke at its width is not a log's line; and only past
 * a section above of SECT_TAIL_MIN lines or more.
 */
/* The fewest lines a section above must have held for its count to be read as tail's: tail's
 * own default, 10.  Fewer are a short capture's (`grep NVRM` of a node: three lines, the
 * module's loading), and a last section past them may still be its own host's whole file
 * (trust-kernel-log-tail-headers-other-host-xid: hx119's Xid, another node's, under a
 * section of five lines below hx114's three). */
#define SECT_TAIL_MIN 10

static bool section_overrun(struct scan *s, const char *line, size_t n,
			    const struct pm_paste *paste)
{
	const struct pm_file *f = &s->ev->files[s->file];
	char b[128];
	size_t k;
	double t;

	if (!s->nsect || !s->sect[s->nsect - 1].node[0] || s->sect_max == SIZE_MAX)
		return false;
	/* the stamp as the scan reads it: a terminal's colours, a page's blanks cleaned */
	n = pm_text_clean(line, n < sizeof(b) ? n : sizeof(b), b);
	k = pm_paste_skip(b, n, paste);
	if (!pm_time_at(b + k, n - k, &f->tctx, &t) && !boot_seconds(b + k, n - k, &t))
		return false;
	return ++s->sect_lines > s->sect_max && s->sect_max >= SECT_TAIL_MIN;
}

/*
 * A kernel log that begins with head's or tail's header is several hosts' logs one after the
 * other (`tail -n 200 gpu07/dmesg.txt gpu08/dmesg.txt > all.txt`): each line is the host's
 * whose header is above it, not the file's (with a one-node record, the job's node: another
 * host's Xid would be placed there).  The headers of BUF (LEN bytes of whole lines at OFF in
 * the file, as read) are noted; record places each line by them.  Only in a system's log: a
 * job's output is the user's text, and a line it prints places nothing.  -1 on ENOMEM.
 */
static int section_walk(struct scan *s, const char *buf, size_t len, uint64_t off)
{
	const struct pm_file *f = &s->ev->files[s->file];
	struct pm_paste paste;
	size_t pos = 0;
	const char *p;
	size_t pn;
	char dec[512];
	const bool sys = system_log(f->format) || f->source == PM_SRC_KERNEL_LOG;

	/* the headers of a pasted file are behind its shape (a reply's quote markers, a CI
	 * runner's stamps, a viewer's line numbers), as its lines are */
	pm_file_paste(f, &paste);
	paste.wrap = 0;
	if (!off)
		s->sectioned = sys && first_header(s, buf, len, &paste, dec, sizeof(dec));
	while (sys && pos < len) {
		const char *line = buf + pos, *nl = memchr(line, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - line) : len - pos, at = pos;
		bool over = false;

		pos += n + 1;
		if (s->sectioned && (section_warp(s, line, n, &paste) ||
				     (over = section_overrun(s, line, n, &paste)))) {
			/* another log begins under no header: the file's, or no host's where
			 * it may still be the section's (section_overrun) */
			if (s->nsect == s->asect &&
			    pm_grow((void **)&s->sect, &s->asect, sizeof(*s->sect)) < 0)
				return -1;
			s->sect[s->nsect].off = off + at;
			s->sect[s->nsect].node[0] = '\0';
			s->sect[s->nsect].guess = false;
			s->sect[s->nsect].nobody = over;
			s->nsect++;
			s->sect_last = 0;
			s->sect_max = SIZE_MAX; /* nothing counted in this file any more */
			continue;
		}
		if (pasted_header(line, n, &paste, dec, sizeof(dec), &p, &pn)) {
			s->sect_last = 0;
			/* the section above is done: tail's count of its file (section_overrun);
			 * after a log below no header, nothing is counted any more */
			if (s->sect_max != SIZE_MAX && s->nsect)
				section_done(s);
			s->sect_lines = 0;
			/* a header below the file's own log: a tail appended to it */
			if (!s->sectioned) {
				s->sectioned = s->appended = true;
				if (f->node && section_host(s, f->node) < 0)
					return -1;
			}
			if (s->nsect == s->asect &&
			    pm_grow((void **)&s->sect, &s->asect, sizeof(*s->sect)) < 0)
				return -1;
			s->sect[s->nsect].off = off + at;
			s->sect[s->nsect].nobody = false;
			if (s->appended)
				appended_node(s, p, pn, &s->sect[s->nsect]);
			else
				section_node(s, p, pn, s->sect[s->nsect].node,
					     sizeof(s->sect->node), &s->sect[s->nsect].guess);
			/* a header in a file of dmesg's shape that names no kernel source is
			 * the writer's word for the host, as the file's name would be: its
			 * lines are placed there as the folder's guess, never excluded (trust107:
			 * a job's notes.txt with `==> .../gpu-n03/dmesg.log <==` over a printed
			 * Xid advised excluding gpu-n03, whose tasks srun only ended) */
			if (s->sect[s->nsect].node[0] && dmesg_by_content(f))
				s->sect[s->nsect].guess = true;
			/* a guess is no host the file covers (every_node_has) */
			if (!s->sect[s->nsect].guess && section_host(s, s->sect[s->nsect].node) < 0)
				return -1;
			s->nsect++;
		}
	}
	return 0;
}

/* The section the line at OFF is in, where its header names a host or it is no host's; NULL
 * for none: the file's (section_walk). */
static const struct section *section_at(const struct scan *s, uint64_t off)
{
	size_t lo = 0, hi = s->nsect;

	while (lo < hi) { /* the first header after OFF */
		size_t mid = lo + (hi - lo) / 2;
		if (s->sect[mid].off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && (s->sect[lo - 1].node[0] || s->sect[lo - 1].nobody) ? &s->sect[lo - 1] : NULL;
}

/*
 * The hosts the lines of a system log (BUF, one chunk of LEN bytes of whole lines) carry,
 * noted in its file (LHOSTS): any line, a routine one too, not only those a rule reads.  A
 * file named for a job node is that node's own log written under another host name only
 * where its lines carry one host and never a job node's name (att_ranks.c,
 * pm_att_node_log): `grep gq07 messages` holds gq07's routine lines beside gq070's Xid, a
 * loghost's messages kept in a node's folder several hosts' lines.  A line grep -H found in
 * another file than a system log's names no host.
 */
static void host_walk(struct scan *s, const char *buf, size_t len)
{
	struct pm_file *f = &s->ev->files[s->file];
	size_t pos = 0;

	if (f->format != PM_FMT_SYSLOG && f->format != PM_FMT_KMSG_ISO && f->format != PM_FMT_DMESG)
		return;
	while (pos < len && !f->lhosts_more) {
		const char *line = buf + pos, *nl = memchr(line, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - line) : len - pos, k;
		struct pm_prefix px;

		pos += n + 1;
		pm_prefix_parse(f->format, line, n, &px);
		if (!px.node || !px.node_len || px.foreign)
			continue;
		for (k = 0; k < f->nlhosts; k++)
			if (strlen(f->lhosts[k]) == px.node_len &&
			    !memcmp(f->lhosts[k], px.node, px.node_len))
				break;
		if (k < f->nlhosts)
			continue;
		/* a host not kept may be any: more than one host, as far as anyone asks */
		if (f->nlhosts == LHOSTS_MAX || px.node_len >= sizeof(f->lhosts[0]) ||
		    (!f->lhosts && !(f->lhosts = malloc(LHOSTS_MAX * sizeof(f->lhosts[0]))))) {
			f->lhosts_more = true; /* out of memory too: the safe side */
			break;
		}
		memcpy(f->lhosts[f->nlhosts], px.node, px.node_len);
		f->lhosts[f->nlhosts++][px.node_len] = '\0';
	}
}

/* Half a year, a day and a month: a yearless stamp that goes back by more than the first is
 * in the next year (the months went back across a New Year); one that goes back by up to the
 * second is a line logged a little late (a forwarder's delay); one that goes forward by all
 * but the third went back across a New Year's Eve (a second host's December after the first
 * one's January). */
#define HALF_YEAR_S (183 * 86400.0)
#define LATE_LINE_S 86400.0
#define YEAR_BACK_S ((366 - 31) * 86400.0)

/*
 * Where a yearless syslog's months go back across a New Year (BUF, one chunk of LEN bytes of
 * whole lines at file offset OFF, CLEANED as on_chunk says): a journal or a syslog kept over
 * more than a year ("Dec  2 10:12:31" ... "Jan 14 ..." ... "Dec  2 10:00:03") writes each
 * year's lines after the last year's, and every stamp read in the record's year put last
 * year's Xid in this year's window (review32 F09).  Each stamp is read in one leap year and
 * compared with the last: back by more than half a year is a new year begun (its line's
 * offset kept, year_shift); back by more than a day and less than half a year, or forward
 * by more than eleven months (back across a New Year's Eve), is a file not in time order,
 * whose wraps are not told from its parts' (ydisorder: several hosts' or files' lines one
 * after the other).  A gap of months forward is a quiet log's or an excerpt's.  -1 on ENOMEM.
 */
static int year_walk(struct scan *s, const char *buf, size_t len, uint64_t off, bool cleaned)
{
	size_t pos = 0, n, p;
	double t, d;

	while (pos < len && !s->ydisorder) {
		const char *line = buf + pos, *nl = memchr(line, '\n', len - pos);
		size_t ls = pos;
		n = nl ? (size_t)(nl - line) : len - pos;
		pos += n + 1;
		p = priority_len(line, n);
		if (!pm_in_syslog(line + p, n - p, 2000, &t))
			continue;
		d = t - s->ylast;
		if (s->ylast > 0 && (d > YEAR_BACK_S || (d < -LATE_LINE_S && d >= -HALF_YEAR_S))) {
			s->ydisorder = true;
			break;
		}
		if (s->ylast > 0 && d < -HALF_YEAR_S) {
			if (s->nwraps == s->awraps &&
			    pm_grow((void **)&s->wraps, &s->awraps, sizeof(*s->wraps)) < 0)
				return -1;
			s->wraps[s->nwraps++] = off + (cleaned ? chunk_offset(s, ls) : ls);
		}
		if (d > 0 || s->ylast <= 0 || d < -HALF_YEAR_S)
			s->ylast = t;
	}
	return 0;
}

/*
 * Once a file is read: each observation of it stamped without a year before a New Year its
 * order shows (year_walk) is of the year before, once for each such New Year after it; the
 * last stretch keeps the year line_time read it in (the record's, or its rotated name's).  A
 * file not in time order keeps every stamp in that year.  From NOBS0, the file's first.
 */
static void year_shift(struct scan *s, size_t nobs0)
{
	const struct pm_file *f = &s->ev->files[s->file];

	for (size_t k = nobs0; s->nwraps && !s->ydisorder && k < s->ev->nobs; k++) {
		struct pm_obs *o = &s->ev->obs[k];
		size_t w = 0, n, p;
		double t;

		if (o->file != s->file || !o->has_time || !o->raw)
			continue;
		while (w < s->nwraps && s->wraps[s->nwraps - 1 - w] > o->offset)
			w++;
		n = strlen(o->raw);
		p = priority_len(o->raw, n);
		if (w && pm_in_syslog(o->raw + p, n - p, f->tctx.year - (int)w, &t))
			o->event_time = t;
	}
}

static int on_chunk(void *arg, const char *buf, size_t len, uint64_t off)
{
	struct scan *s = arg;
	char *masked = NULL;
	bool cleaned;
	int rc;

	if (out_of_time(s))
		return -1;
	s->chunk_len = len;
	if (section_walk(s, buf, len, off) < 0)
		return -1;
	if (clean_chunk(s, buf, len, &cleaned) < 0)
		return -1;
	if (cleaned) {
		buf = s->clean;
		len = s->nclean;
	}
	if (zoned_system_log(&s->ev->files[s->file]) && zone_walk(s, buf, len) < 0)
		return -1;
	if (yearless_log(&s->ev->files[s->file]) && year_walk(s, buf, len, off, cleaned) < 0)
		return -1;
	host_walk(s, buf, len);
	if (pm_trust_mask(s->ev, &s->ev->files[s->file], buf, len, &masked) < 0)
		return -1;
	rc = scan_chunk(s, masked ? masked : buf, len, off, cleaned);
	free(masked);
	if (rc == 0 && s->ev->files[s->file].format == PM_FMT_SYSLOG &&
	    s->ev->files[s->file].source == PM_SRC_KERNEL_LOG)
		rc = scan_daemon(s, buf, len, off, cleaned);
	return rc;
}

/*
 * A syslog file's lines that are not the kernel's are programs' own: slurmstepd's OOM
 * report, a unit's Python traceback, the fabric manager's switch errors.  The first pass
 * reads them with the kernel's rules, untrusted (record: any local user can write them
 * with logger), and nothing else; this second pass reads them as the job's output is read,
 * with the rules of the job's output (untrusted as that output is), the kernel's lines and
 * lines that are no syslog line blanked.  A rule that reads kernel logs too read them in
 * the first pass and is not asked again.  Generic rules are asked only on the lines of a
 * Python interpreter (its tag: python3[pid]): a daemon's own wording has the shape of an
 * exception's last line ("LdapError: Can't contact LDAP server", a logger line's copy of the
 * kernel's "LustreError: 167-0: ...") far more often than it ends a traceback.
 */
/* Notes the host of a kernel line (PX's, the line's own) in the evidence's KHOSTS where it
 * is dotted and new there; -1 on ENOMEM. */
static int note_khost_name(struct pm_evidence *ev, const char *node, size_t len)
{
	char **v;

	if (ev->nkhosts >= 64)
		return 0;
	for (size_t i = 0; i < ev->nkhosts; i++)
		if (strlen(ev->khosts[i]) == len && !memcmp(ev->khosts[i], node, len))
			return 0;
	if (!(v = realloc(ev->khosts, (ev->nkhosts + 1) * sizeof(*v))))
		return -1;
	ev->khosts = v;
	/* the line is not NUL-terminated where the name ends: copied by its length */
	v[ev->nkhosts] = NULL;
	if (pm_strset(&v[ev->nkhosts], node, len) < 0)
		return -1;
	ev->nkhosts++;
	return 0;
}

static int note_khost(struct pm_evidence *ev, const struct pm_prefix *px)
{
	if (!px->kernel || px->forged || !px->node || !px->node_len || px->node_len > 255 ||
	    !memchr(px->node, '.', px->node_len))
		return 0;
	return note_khost_name(ev, px->node, px->node_len);
}

static int scan_daemon(struct scan *s, const char *buf, size_t len, uint64_t off, bool cleaned)
{
	struct pm_file *f = &s->ev->files[s->file];
	const hs_database_t *db = s->db;
	hs_stream_t *st = s->stream;
	size_t pos = 0;
	bool any = false;
	char *copy;
	int rc;

	if (!s->rs->sdb[PM_SRC_APP_LOG]) /* the single-database fallback: one pass only */
		return 0;
	if (!(copy = malloc(len ? len : 1)))
		return -1;
	memcpy(copy, buf, len);
	while (pos < len) {
		const char *nl = memchr(copy + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - copy) - pos : len - pos;
		struct pm_prefix px;

		pm_prefix_parse(f->format, copy + pos, n, &px);
		if (note_khost(s->ev, &px) < 0) {
			free(copy);
			return -1;
		}
		if (px.kernel || !px.skip || px.skip >= n)
			memset(copy + pos, ' ', n);
		else
			any = true;
		pos += n + 1;
	}
	rc = 0;
	if (any) {
		s->db = s->rs->sdb[PM_SRC_APP_LOG];
		s->stream = NULL;
		if (pm_hs_open(s->db, &s->stream) != HS_SUCCESS) {
			s->stream = st;
			s->db = db;
			free(copy);
			return -1;
		}
		s->daemon = true;
		rc = scan_chunk(s, copy, len, off, cleaned);
		s->daemon = false;
		pm_hs_close(s->stream);
		s->stream = st;
		s->db = db;
	}
	free(copy);
	return rc;
}

/*
 * Whether the line from LS to LE of BUF, whose hits start at hit I, holds a generic reading
 * that a specific one there will set aside (att_yield.c): a rule of each kind hit it, and a
 * generic one matches.  The specific readings of such a line are then kept past their
 * group's cap, which otherwise drops all but the first few lines of a rule in a file: the
 * generic reading of the fourth "RuntimeError: The server socket has failed to listen ..."
 * would stand alone, and compete as a program's own error.
 */
static bool line_yields(struct scan *s, const char *buf, size_t ls, size_t le, size_t i)
{
	struct pm_peel pe;
	struct pm_prefix px;
	const char *subj;
	size_t k, end;
	bool spec = false;

	for (end = i; end < s->nhits && hit_at(s, end) <= le; end++) {
		const struct pm_rule *r = &s->rs->rules[s->hits[end].rule];
		if (!pm_rule_generic(r) && pm_rule_speaks(r) && hit_at(s, end) >= ls &&
		    asks(s, r, buf + ls, le - ls))
			spec = true;
	}
	if (!spec)
		return false;
	/* each generic rule that hit, until one reads the line: the first need not */
	for (k = i; k < end; k++) {
		const struct pm_rule *r = &s->rs->rules[s->hits[k].rule];
		if (hit_at(s, k) < ls || !pm_rule_generic(r) || !asks(s, r, buf + ls, le - ls))
			continue;
		if (match_line(s, r, buf + ls, le - ls, &pe, &px, &subj) >= 0)
			return true;
	}
	return false;
}

/* The blanks around the end of LINE's wrappers as peeled (LEN bytes; a separator's that
 * the peel took, and the text's own), and where the text after them starts (*AT). */
static size_t text_indent(struct scan *s, const char *line, size_t len, size_t *at)
{
	struct pm_peel pe;
	size_t k, e;

	peel_cached(s, true, line, len, &pe);
	k = e = pe.skip < len ? pe.skip : len;
	while (k > 0 && (line[k - 1] == ' ' || line[k - 1] == '\t'))
		k--;
	while (e < len && (line[e] == ' ' || line[e] == '\t'))
		e++;
	*at = e;
	return e - k;
}

/* Whether TEXT (N bytes) is a Python traceback's frame line, 'File "PATH", line N'. */
static bool frame_line(const char *text, size_t n)
{
	const char *q;

	if (n < 16 || memcmp(text, "File \"", 6))
		return false;
	q = memmem(text + 6, n - 6, "\", line ", 8);
	return q && q + 8 < text + n && pm_in_isdigit(q[8]);
}

/*
 * Whether the line at LS (to LE) of BUF is the source a Python traceback quotes under a
 * frame line: "  File \"lib/devices.py\", line 12, in pick_device", then the code, indented
 * deeper, "    raise RuntimeError(\"CUDA error: all CUDA-capable devices are busy ...\")".
 * Its words are the program's text, not an error it met: the error is the traceback's last
 * line, at the frame line's indent or less.  Each wrapper peeled (an srun label, "[rank1]:",
 * a logger's stamp) the same way, the indent is that of the text after them.  A file
 * without the code (a frame of "<string>") has the next frame or the exception there, never
 * indented deeper.  Only within the chunk: a frame line ending the chunk before is not seen.
 */
static bool source_quote(struct scan *s, const char *buf, size_t ls, size_t le)
{
	const char *prev;
	size_t ps, at, pat, pin;

	if (ls < 2 || buf[ls - 1] != '\n')
		return false;
	prev = memrchr(buf, '\n', ls - 1);
	ps = prev ? (size_t)(prev - buf) + 1 : 0;
	pin = text_indent(s, buf + ps, ls - 1 - ps, &pat);
	if (!pin || !frame_line(buf + ps + pat, ls - 1 - ps - pat))
		return false;
	return text_indent(s, buf + ls, le - ls, &at) > pin;
}

/* Scan BUF, a chunk at OFF of the file or, when CLEANED, its cleaned copy. */
static int scan_chunk(struct scan *s, const char *buf, size_t len, uint64_t off, bool cleaned)
{
	size_t last_ls = (size_t)-1, nsorted;
	unsigned last_rule = (unsigned)-1;
	bool app = app_format(s->ev->files[s->file].format), code = false;
	int rc = 0;

	/* the hits of the chunk before whose next line is in this one (defer), first: a line is
	 * read as its file goes on, wherever a chunk ends */
	if (s->npend && resolve(s, buf, len) < 0)
		return -1;
	/* the hits first, so that the tally keeps the peel of each line that has one */
	s->nhits = 0;
	s->npc = 0;
	s->has_last = false;
	s->pc_on = true;
	if (s->db) {
		if (scan_block(s, buf, len) < 0 && s->nhits == s->ahits)
			rc = -1;
		else if (!hits_sorted(s))
			pm_sort(s->hits, s->nhits, sizeof(*s->hits), cmphit);
	}
	nsorted = s->nhits;
	s->cbuf = buf;
	s->clen = len;
	s->beside_ri = 0;
	if (tally_ranks(s, buf, len) < 0)
		rc = -1;
	if (!s->db || rc < 0)
		goto out;
	if (s->nhits > nsorted && !hits_sorted(s)) /* rescan_record's */
		pm_sort(s->hits, s->nhits, sizeof(*s->hits), cmphit);
	for (size_t i = 0; i < s->nhits; i++) {
		struct hit *h = &s->hits[i];
		if (!(i & 63) && out_of_time(s)) {
			rc = -1;
			break;
		}
		/* each hit's line found once: the earlier hits' are looked at again below */
		if (i && h->to == h[-1].to) {
			h->ok = h[-1].ok;
			h->ls = h[-1].ls;
			h->le = h[-1].le;
		} else {
			h->ok = line_of(buf, len, hit_at(s, i), &h->ls, &h->le);
		}
		if (!h->ok)
			continue;
		size_t ls = h->ls, le = h->le;
		if (ls == last_ls && s->hits[i].rule == last_rule)
			continue;
		/* the same rule on the same line, reached through an earlier hit */
		bool seen = false;
		for (size_t k = i; k-- > 0;) {
			if (!s->hits[k].ok || s->hits[k].ls != ls)
				break;
			if (s->hits[k].rule == s->hits[i].rule) {
				seen = true;
				break;
			}
		}
		if (ls != last_ls) {
			code = app && source_quote(s, buf, ls, le);
			s->line_yields = line_yields(s, buf, ls, le, i);
			/* where the next line starts in the file: a cleaned line is shorter */
			s->line_next = off + (le + 1 >= len ? s->chunk_len :
					      cleaned	    ? chunk_offset(s, le + 1) :
							      le + 1);
		}
		last_ls = ls;
		last_rule = s->hits[i].rule;
		if (seen || code)
			continue;
		if (confirm(s, s->hits[i].rule, buf + ls, le - ls,
			    off + (cleaned ? chunk_offset(s, ls) : ls)) < 0) {
			rc = -1;
			break;
		}
	}
out:
	if (rc == 0 && keep_tail(s, buf, len) < 0)
		rc = -1;
	s->cbuf = NULL;
	s->clen = 0;
	s->beside_ri = 0;
	s->line_yields = false;
	s->line_next = 0;
	s->pc_on = false; /* the chunk's buffer is not this chunk's any longer */
	s->has_last = false;
	s->npc = 0;
	return rc;
}

/* ---- structured inputs ---- */

typedef int parse_fn(struct pm_evidence *, size_t, const char *, size_t, char *, size_t);

static parse_fn *parser_for(enum pm_format fmt)
{
	switch (fmt) {
	case PM_FMT_NVSMI_Q:
		return pm_parse_nvsmi_q;
	case PM_FMT_NVSMI_CSV:
		return pm_parse_nvsmi_csv;
	case PM_FMT_NVSMI_TABLE:
		return pm_parse_nvsmi_table;
	case PM_FMT_SACCT_P:
	case PM_FMT_SACCT_TABLE:
		return pm_parse_sacct;
	case PM_FMT_SCONTROL_JOB:
		return pm_parse_scontrol;
	case PM_FMT_MEMINFO:
		return pm_parse_meminfo;
	case PM_FMT_PROMETHEUS:
		return pm_parse_prom;
	case PM_FMT_RANK_MAP:
	case PM_FMT_TASK_EXIT:
		return pm_parse_tasks;
	default:
		return NULL;
	}
}

static int parse_structured(struct pm_evidence *ev, size_t i)
{
	struct pm_file *f = &ev->files[i];
	parse_fn *fn = parser_for(f->format);
	char *buf, reason[200] = "";
	size_t len;
	int rc;

	if (!fn)
		return 0;
	if (pm_file_slurp(f, STRUCT_CAP, &buf, &len) < 0)
		return 0; /* recorded in the file's status */
	/* a hand-gathered file that begins with nvidia-smi -q and goes on with a program's
	 * output is that program's output (the job's, which its user writes): scanned as such,
	 * its GPU report neither a state nor trusted */
	if (f->format == PM_FMT_NVSMI_Q && !f->kind_given && pm_nvsmi_q_mixed(buf, len)) {
		free(buf);
		f->format = PM_FMT_APP;
		f->source = PM_SRC_APP_LOG;
		return 0;
	}
	/* nvidia-smi's default table with no Processes box, or followed by a program's output:
	 * the job's text, as it was read before the table's processes were (the date and the
	 * command above a pasted table are no program's output) */
	if (f->format == PM_FMT_NVSMI_TABLE && !f->kind_given && !pm_nvsmi_table_whole(buf, len)) {
		free(buf);
		f->format = PM_FMT_APP;
		f->source = PM_SRC_APP_LOG;
		return 0;
	}
	rc = fn(ev, i, buf, len, reason, sizeof(reason));
	free(buf);
	if (rc < 0 && f->status == PM_ST_OK) {
		f->status = PM_ST_UNREADABLE;
		free(f->reason);
		f->reason = strdup(reason[0] ? reason : "not what its format promised");
	}
	return 0;
}

static bool is_hostish(const char *s, size_t l)
{
	bool digit = false;

	if (!l || l > 63 || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
		return false;
	for (size_t i = 0; i < l; i++) {
		char c = s[i];
		if (c >= '0' && c <= '9')
			digit = true;
		else if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-'))
			return false;
	}
	return digit && !(l > 4 && !strncmp(s, "rank", 4));
}

/* Whether PATH names a kernel log's source by one of its words ("gq07-dmesg.txt",
 * "gq07/kern.log", "journalctl-k.txt"). */
bool pm_path_names_kernel(const char *path)
{
	static const char *const sys[] = {"dmesg",    "kern",	 "kernel",    "syslog",
					  "messages", "journal", "journalctl"};

	return pm_in_has_word(path, strlen(path), sys, sizeof(sys) / sizeof(sys[0]));
}

/* A file's node from its name: a known node name bounded by separators, else the first
 * folder of its path that looks like a host name. */
static int node_from_path(struct pm_evidence *ev, struct pm_file *f)
{
	const char *n = f->name;
	size_t l = strlen(n);

	/* a file read as dmesg's output by its content alone (its lines name no host), whose
	 * path names no kernel source ("gq07.txt", "gq07/notes.log"), may be one the job wrote
	 * into its own folder with lines shaped as dmesg's: its name is no proof of whose
	 * kernel it is, so it names no node here, and its lines are placed as an unnamed
	 * file's are, by the folder's guess (att_place.c; review31 F03: before, a printed Xid
	 * in gq07.txt was gq07's at supported, its exclusion advised).  "gq07-dmesg.txt",
	 * "gq07/kern.log" keep their node.  A syslog's lines carry their host: such a file's
	 * are capped where they are placed (att_place.c, syslog_unnamed). */
	if (dmesg_by_content(f))
		return 0;

	for (size_t i = 0; i < ev->nnodes; i++) {
		const char *node = ev->nodes[i];
		size_t nl = strlen(node);
		for (const char *p = n; (p = strstr(p, node)); p++) {
			bool left = p == n || !((p[-1] >= 'a' && p[-1] <= 'z') ||
						(p[-1] >= '0' && p[-1] <= '9') ||
						(p[-1] >= 'A' && p[-1] <= 'Z'));
			char rc = p[nl];
			bool right = !((rc >= 'a' && rc <= 'z') || (rc >= '0' && rc <= '9') ||
				       (rc >= 'A' && rc <= 'Z'));
			if (left && right)
				return pm_strset(&f->node, node, nl);
		}
	}
	/* the first folder that looks like a host name, the gatherer's own folders before it
	 * skipped (sweep/tk77/dmesg.txt, nodes/gpu07/kern.log) */
	for (const char *q = n, *slash; (slash = memchr(q, '/', (size_t)(n + l - q)));
	     q = slash + 1)
		if (is_hostish(q, (size_t)(slash - q))) {
			if (pm_ev_note_node(ev, q, (size_t)(slash - q)) < 0)
				return -1;
			return pm_strset(&f->node, q, (size_t)(slash - q));
		}
	return 0;
}

static int cmpfile(const void *a, const void *b)
{
	return strcmp(((const struct pm_file *)a)->name, ((const struct pm_file *)b)->name);
}

static int year_of(double t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm))
		return 1970;
	return tm.tm_year + 1900;
}

void pm_file_paste(const struct pm_file *f, struct pm_paste *out)
{
	out->indent = f->paste_indent;
	out->quoted = f->paste_quoted;
	out->runner = f->paste_runner;
	out->numbered = f->paste_numbered;
	out->stamped = f->paste_stamped;
	out->escaped = f->paste_escaped;
	out->wrap = f->paste_wrap;
}

static void set_paste(struct pm_file *f, const struct pm_paste *shape)
{
	f->paste_indent = shape->indent;
	f->paste_quoted = shape->quoted;
	f->paste_runner = shape->runner;
	f->paste_numbered = shape->numbered;
	f->paste_stamped = shape->stamped;
	f->paste_escaped = shape->escaped;
	f->paste_wrap = shape->wrap;
}

/* The year of the first line of HEAD (LEN bytes) that starts with a stamp of a whole date, 0
 * when none does: what a stamp without a year (a syslog's, glog's) in the same folder most
 * likely had. */
static int head_year(const char *head, size_t len)
{
	const struct pm_timectx none = {0, 0};
	size_t pos = 0, n;
	const char *line;
	double t;

	while (pm_in_next_line(head, len, &pos, &line, &n))
		if (pm_time_at(line, n, &none, &t) == 1)
			return year_of(t);
	return 0;
}

/* The offset of the first line of HEAD (LEN bytes) that starts with an ISO stamp carrying one
 * (dmesg --time-format iso, an RFC 3339 syslog: "2026-12-03T04:02:50.100417-05:00"; "Z" is
 * +00:00) into F: the zone the node's clock writes its local time in. */
static void head_zone(struct pm_file *f, const char *head, size_t len)
{
	size_t pos = 0, n;
	const char *line;
	struct pm_in_stamp st, local;

	f->head_zoned = false;
	f->head_zone = 0;
	f->head_zoneless = false;
	while (pm_in_next_line(head, len, &pos, &line, &n)) {
		double v;
		/* a forwarder's priority and RFC 5424's version before the stamp ("<4>1 ") */
		size_t p = priority_len(line, n);
		line += p;
		n -= p;
		if (pm_in_iso(line, n, &st) && !st.zone) {
			f->head_zoneless = true;
			return;
		}
		if (pm_in_journal_full(line, n, &st)) {
			/* journalctl -o short-full: UTC's name is a zone, another is local time */
			f->head_zoned = st.zone;
			f->head_zoneless = !st.zone;
			return;
		}
		if (pm_in_dmesg_T(line, n, &v) || pm_in_syslog(line, n, 0, &v) ||
		    pm_in_bracket_iso(line, n, &v)) {
			f->head_zoneless = true; /* the first stamp says the file's kind */
			return;
		}
		if (!pm_in_iso(line, n, &st) || !st.zone || n < 19 ||
		    pm_in_iso(line, 19, &local) != 19)
			continue;
		/* the wall clock read as UTC, less the instant: the offset, whole minutes */
		f->head_zone = (int)(local.t - floor(st.t));
		f->head_zoned = true;
		return;
	}
}

/* Whether FMT is a system's log (a kernel log, slurmd's or slurmctld's). */
static bool system_log(enum pm_format fmt)
{
	return fmt == PM_FMT_DMESG || fmt == PM_FMT_KMSG_ISO || fmt == PM_FMT_SYSLOG ||
	       fmt == PM_FMT_SLURMD_LOG || fmt == PM_FMT_SLURMCTLD_LOG;
}

/*
 * The format of F told from its head, and F's paste shape (pm_paste_shape).  Colour codes and
 * CRLFs hide a format as they hide a message (on_chunk), and so does a paste's shape, which
 * the head is read without.  Two parts of the shape depend on the format they uncover:
 * - a structured format (nvidia-smi, sacct, ...) is parsed from the file as it is, so it
 *   counts only as the head with no shape taken off tells it (and then F has none);
 * - a stamp before every line is a collector's layer only when the lines without it are a
 *   system's log that the stamp hid (a kernel log kept by `kubectl logs --timestamps`); where
 *   the lines are a program's output either way, the stamp is read as that output's own
 *   (the reader peels it, and its time counts), and where the stamped lines are a log already
 *   (an ISO syslog, dmesg --time-format iso) it is that log's stamp.
 * A file a manifest names (a bundle's member) has no shape: its collector copied the bytes its
 * program or the kernel wrote, which no terminal broke at its width and no viewer numbered or
 * quoted.  Told from its head as it is, wherever the member lies in its bundle (bundle.c's
 * held-back members are told as they are read, and keep only their format).
 */
static enum pm_format sniff_head(struct pm_file *f)
{
	char raw[SNIFF_BYTES], head[SNIFF_BYTES];
	size_t rlen = 0, len;
	struct pm_paste shape;
	enum pm_format fmt, bare;
	bool stamped, escaped;

	if (pm_file_head_text(f, raw, sizeof(raw), &rlen) < 0)
		return PM_FMT__COUNT;
	rlen = pm_text_clean(raw, rlen, raw);
	if (f->kind_given) {
		f->head_year = head_year(raw, rlen);
		head_zone(f, raw, rlen);
		return pm_sniff(raw, rlen);
	}
	/* a page's or an archive's HTML escapes hide a kernel log's `<4>`, the quote markers and
	 * the words alike: the shape and the format are told from the head they stood for */
	if ((escaped = pm_html_escaped(raw, rlen)))
		rlen = pm_html_unescape(raw, rlen, raw);
	pm_paste_shape(raw, rlen, &shape);
	shape.escaped = escaped;
	stamped = shape.stamped;
	shape.stamped = false;
	len = pm_paste_strip(raw, rlen, &shape, head);
	fmt = pm_sniff(head, len);
	if (stamped && !system_log(fmt)) {
		shape.stamped = true;
		len = pm_paste_strip(raw, rlen, &shape, head);
		if (system_log(bare = pm_sniff(head, len))) {
			fmt = bare;
		} else {
			shape.stamped = false;
			len = pm_paste_strip(raw, rlen, &shape, head);
		}
	}
	if ((shape.indent || shape.quoted || shape.numbered || shape.stamped || shape.wrap ||
	     shape.escaped) &&
	    !pm_source_scanned(pm_format_source(fmt))) {
		memset(&shape, 0, sizeof(shape));
		fmt = pm_sniff(raw, rlen);
	}
	set_paste(f, &shape);
	f->head_year = head_year(head, len);
	head_zone(f, head, len);
	return fmt;
}

bool pm_source_scanned(enum pm_source src)
{
	return src != PM_SRC_GPU_STATE && src != PM_SRC_SCHEDULER && src != PM_SRC_NODE_METRICS &&
	       src != PM_SRC_RANK_MAP && src != PM_SRC_TASK_EXIT;
}

void pm_sniff_given(struct pm_file *f)
{
	enum pm_format fmt;

	f->sniffed = true;
	if (f->source == PM_SRC_KERNEL_LOG)
		f->format = PM_FMT_DMESG; /* unless its head says which kernel log format */
	else if (pm_source_scanned(f->source)) {
		f->format = PM_FMT_APP;
		return;
	}
	fmt = sniff_head(f);
	if (fmt != PM_FMT__COUNT && pm_format_source(fmt) == f->source)
		f->format = fmt;
}

/*
 * Whether NAME's last part is the name Slurm gives a job's output by default, slurm-%j.out or
 * slurm-%A_%a.out: the job's user writes all of it, so it is the job's output whatever its
 * first lines look like.  Read by its content, a file whose first lines the program shaped as
 * dmesg's, or as an accounting table, was a trusted kernel log or Slurm's own record
 * (TRUST.md, "The job's output").
 */
/* NAME's length without a compressor's suffix (".gz", ".xz", ".zst", ".bz2", ".lz4"): a
 * gathered file compressed is read as it was. */
static size_t plain_len(const char *name)
{
	static const char *const z[] = {".gz", ".xz", ".zst", ".bz2", ".lz4"};
	size_t n = strlen(name);

	for (size_t i = 0; i < sizeof(z) / sizeof(z[0]); i++) {
		size_t l = strlen(z[i]);
		if (n > l && !strcmp(name + n - l, z[i]))
			return n - l;
	}
	return n;
}

/*
 * The day (its midnight, read as UTC) NAME's last part ends in as logrotate's dateext names
 * a log it rotated out ("messages-20251203", "kern.log-2025120304" with an hour,
 * "syslog.2025-12-03", before a compressor's ".gz", or a copy's ".log" or ".txt"), 0 for
 * none.  Every line of such a file
 * was written before the day it names: its stamps without a year are of the year that puts
 * them there, not of the job's record (pm_scan_all).  A year-old rotated syslog beside the
 * job's record read its "Dec  2 10:17:58" Xid in the job's window of Dec 2 a year later
 * (trust-rotated-syslog-year-old-xid).
 */
static double rotated_day(const char *name)
{
	const char *b = strrchr(name, '/'), *d;
	char iso[24];
	size_t n, dl;
	struct pm_in_stamp st;

	b = b ? b + 1 : name;
	n = plain_len(b);
	/* an operator's copy, "gq07-messages-20251203.log": the day copied, as late a bound */
	if (n > 4 && (!strncmp(b + n - 4, ".log", 4) || !strncmp(b + n - 4, ".txt", 4)))
		n -= 4;
	for (dl = 0; dl < n && dl < 11 && pm_in_isdigit(b[n - 1 - dl]); dl++)
		;
	if (dl == 2 && n >= 11 && b[n - 3] == '-' && b[n - 6] == '-' &&
	    strspn(b + n - 10, "0123456789") == 4 && pm_in_isdigit(b[n - 4]) &&
	    pm_in_isdigit(b[n - 5]))
		dl = 10; /* 2025-12-03 */
	else if (dl != 8 && dl != 10)
		return 0;
	d = b + n - dl;
	/* the separator logrotate's dateformat starts with, after a name of its own */
	if (n < dl + 2 || (d[-1] != '-' && d[-1] != '.' && d[-1] != '_'))
		return 0;
	if (d[4] == '-')
		snprintf(iso, sizeof(iso), "%.10sT00:00:00Z", d);
	else if (dl == 10 && (d[8] > '2' || (d[8] == '2' && d[9] > '3')))
		return 0; /* an hour after the day: 2025120304 */
	else
		snprintf(iso, sizeof(iso), "%.4s-%.2s-%.2sT00:00:00Z", d, d + 4, d + 6);
	if ((iso[0] != '1' || iso[1] != '9') && iso[0] != '2')
		return 0; /* 1990 to 2999: a job id of eight digits is mostly none */
	if (pm_in_iso(iso, strlen(iso), &st) != strlen(iso) || !st.zone)
		return 0;
	return st.t;
}

bool pm_slurm_output_id(const char *name, const char **id, size_t *n)
{
	const char *b = strrchr(name, '/'), *p;

	b = b ? b + 1 : name;
	if (strncmp(b, "slurm-", 6))
		return false;
	p = b + 6;
	if (!pm_in_isdigit(*p))
		return false;
	while (pm_in_isdigit(*p))
		p++;
	if (*p == '_' && pm_in_isdigit(p[1]))
		for (p++; pm_in_isdigit(*p); p++)
			;
	if ((size_t)(b + plain_len(b) - p) != 4 || strncmp(p, ".out", 4))
		return false;
	if (id) {
		*id = b + 6;
		*n = (size_t)(p - (b + 6));
	}
	return true;
}

static bool slurm_output_name(const char *name)
{
	return pm_slurm_output_id(name, NULL, NULL);
}

/*
 * Whether NAME's last part is named as a job's output is (Slurm's --output and --error, and
 * the names users give them: "train-gn12.out", "job.err"), and names no system source: a
 * file "*.out" or "*.err" without "dmesg", "kern", "kernel", "syslog", "messages",
 * "journal", "nvidia-smi", "nvsmi", "sacct", "scontrol", "slurmd" or "slurmctld" as a word
 * of its name, between separators ("kern.log.out", "gn12-dmesg.out"; not "fused-kernels-%j.out",
 * a job named for its kernels: trust-job-output-name-kernels-word) ("slurm-%j.err", an
 * --error file, is the job's).
 * Gathered by hand into a node's folder, its lines shaped as dmesg's were read as that node's
 * kernel log, and a printed Xid as the node's own (TRUST.md, "The job's output").
 */
static bool job_output_name(const char *name)
{
	static const char *const sys[] = {"dmesg",    "kern",	  "kernel",	"syslog",
					  "messages", "journal",  "nvidia-smi", "nvsmi",
					  "sacct",    "scontrol", "slurmd",	"slurmctld"};
	const char *b = strrchr(name, '/');
	size_t n;

	b = b ? b + 1 : name;
	if (slurm_output_name(b))
		return true;
	n = plain_len(b);
	if (n < 5 || (strncmp(b + n - 4, ".out", 4) && strncmp(b + n - 4, ".err", 4)))
		return false;
	return !pm_in_has_word(b, strlen(b), sys, sizeof(sys) / sizeof(sys[0]));
}

static void sniff_file(struct pm_evidence *ev, struct pm_file *f)
{
	enum pm_format fmt;

	if (f->rank < 0)
		f->rank = pm_path_rank(f->name);
	f->tctx.year = year_of(f->mtime);
	if (f->kind_given) {
		if (!f->sniffed) /* a bundle member's may be told when its bundle was read */
			pm_sniff_given(f);
		return;
	}
	if (f->status != PM_ST_OK)
		return;
	if ((fmt = sniff_head(f)) == PM_FMT__COUNT)
		return;
	f->format = fmt;
	if (f->format != PM_FMT_BINARY && f->format != PM_FMT_EMPTY &&
	    pm_format_source(f->format) != PM_SRC_APP_LOG && job_output_name(f->name))
		f->format = PM_FMT_APP;
	/* slurmctld's and slurmd's lines share their stamps and are told apart by their words
	 * (sniff.c, slurm_kind); a short excerpt has few, and its name says whose it is */
	if (f->format == PM_FMT_SLURMD_LOG && strcasestr(f->name, "slurmctld"))
		f->format = PM_FMT_SLURMCTLD_LOG;
	else if (f->format == PM_FMT_SLURMCTLD_LOG && strcasestr(f->name, "slurmd") &&
		 !strcasestr(f->name, "slurmctld"))
		f->format = PM_FMT_SLURMD_LOG;
	f->source = pm_format_source(f->format);
	if (f->format == PM_FMT_BINARY) {
		f->status = PM_ST_BINARY;
		f->reason = strdup("binary content: not scanned");
	} else if (f->format == PM_FMT_EMPTY) {
		f->status = PM_ST_EMPTY;
		f->reason = strdup("empty");
	}
}

static int eval_op(enum pm_op op, double a, double b)
{
	switch (op) {
	case PM_OP_GT:
		return a > b;
	case PM_OP_GE:
		return a >= b;
	case PM_OP_LT:
		return a < b;
	case PM_OP_LE:
		return a <= b;
	case PM_OP_EQ:
		return a == b;
	case PM_OP_NE:
		return a != b;
	}
	return 0;
}

static bool lookup_fact(const struct pm_evidence *ev, const char *name, const char *node, double *v)
{
	if (!strcmp(name, "job.gpus_per_node")) {
		/* the node's own count where the record gives it (parse_sched.c
		 * sacct_node_gpus), else the job's for every node */
		for (size_t i = ev->nfacts; node && i-- > 0;)
			if (ev->facts[i].node && !strcmp(ev->facts[i].name, "job.gpus_on_node") &&
			    !strcmp(ev->facts[i].node, node)) {
				*v = ev->facts[i].value;
				return true;
			}
		*v = ev->job.gpus_per_node;
		return ev->job.gpus_per_node >= 0;
	}
	if (!strcmp(name, "job.nodes")) {
		*v = (double)ev->job.nnodes;
		return ev->job.nnodes > 0;
	}
	for (size_t i = 0; i < ev->nfacts; i++) {
		const struct pm_fact *f = &ev->facts[i];
		if (f->gpu < 0 && !strcmp(f->name, name) &&
		    ((!f->node && !node) || (f->node && node && !strcmp(f->node, node)))) {
			*v = f->value;
			return true;
		}
	}
	return false;
}

static int eval_conditions(struct scan *s)
{
	struct pm_evidence *ev = s->ev;
	const struct pm_ruleset *rs = s->rs;

	for (size_t ri = 0; ri < rs->nrules; ri++) {
		const struct pm_rule *r = &rs->rules[ri];
		size_t nf = ev->nfacts;
		if (!r->has_cond || r->deprecated)
			continue;
		for (size_t k = 0; k < nf; k++) {
			const struct pm_fact *fa = &ev->facts[k];
			const struct pm_file *f = &ev->files[fa->file];
			double rhs = r->cond.rhs;
			char line[300], pci[40] = "";
			const char *caps[PM_CAP__COUNT] = {0};
			size_t capl[PM_CAP__COUNT] = {0};
			struct pm_prefix px = {.rank = -1};

			if (strcmp(fa->name, r->cond.fact) ||
			    !pm_rule_reads(r, f->source, f->format))
				continue;
			if (r->cond.rhs_fact && !lookup_fact(ev, r->cond.rhs_fact, fa->node, &rhs))
				continue;
			if (!eval_op(r->cond.op, fa->value, rhs))
				continue;
			if (fa->pci)
				snprintf(pci, sizeof(pci), " (%s)", fa->pci);
			if (fa->gpu >= 0)
				snprintf(line, sizeof(line), "gpu %d%s: %s = %g", fa->gpu, pci,
					 fa->name, fa->value);
			else
				snprintf(line, sizeof(line), "%s = %g%s%s%s", fa->name, fa->value,
					 r->cond.rhs_fact ? " (" : "",
					 r->cond.rhs_fact ? r->cond.rhs_fact : "",
					 r->cond.rhs_fact ? ")" : "");
			s->file = fa->file;
			if (fa->node) {
				px.node = fa->node;
				px.node_len = strlen(fa->node);
			}
			/* the GPU and its bus id, as a pattern rule's captures would give them */
			char gpu[16];
			if (fa->gpu >= 0) {
				capl[PM_CAP_GPU] =
					(size_t)snprintf(gpu, sizeof(gpu), "%d", fa->gpu);
				caps[PM_CAP_GPU] = gpu;
			}
			if (fa->pci) {
				caps[PM_CAP_PCI] = fa->pci;
				capl[PM_CAP_PCI] = strlen(fa->pci);
			}
			/* the time of the sample the fact comes from (a Prometheus series),
			 * not the time the file was read */
			int rc = record(s, ri, line, strlen(line), &px, 0, caps, capl, fa->time);
			if (rc < 0)
				return -1;
		}
	}
	return 0;
}

/* ---- the files: in order, or on worker threads ---- */

static void free_names(char **v, size_t n)
{
	for (size_t k = 0; k < n; k++)
		free(v[k]);
	free(v);
}

static void scan_free(struct scan *s)
{
	free(s->wraps);
	free(s->tab);
	free(s->hits);
	free(s->rtab);
	free(s->rkey);
	free(s->clean);
	free(s->cmap);
	free(s->dec[0]);
	free(s->dec[1]);
	free(s->dec[2]);
	free(s->dec[3]);
	free(s->rbuf);
	free(s->rv);
	free(s->pc);
	free(s->kept);
	for (size_t i = 0; i < s->npend; i++)
		free(s->pend[i].text);
	free(s->pend);
	free(s->tail[0]);
	free(s->tail[1]);
	free(s->sect);
	for (size_t k = 0; k < s->nweak; k++)
		free(s->weak[k]);
	free(s->weak);
	free_names(s->absent, s->nabsent);
	ZSTD_freeDCtx(s->zd);
	pcre2_match_data_free(s->md);
	hs_free_scratch(s->scratch);
}

static bool scannable(const struct pm_file *f)
{
	if (f->status != PM_ST_OK && f->status != PM_ST_TRUNCATED)
		return false;
	/* tables: their facts; nvidia-smi's reports are read as text too */
	return !parser_for(f->format) || f->format == PM_FMT_NVSMI_Q ||
	       f->format == PM_FMT_NVSMI_TABLE;
}

/* Scan file I of S's evidence.  0, or -1 (ENOMEM). */
/*
 * The first line of F's head that a stamp dates, as the scan reads a line's time (line_time,
 * its rotation aside: a job's output is no rotated log), into F's head_t and head_t_off.  A
 * job's output was being written then, so with no record it bounds the job's start from
 * above (att_time.c, pm_att_output_start): a Python logger's "2026-12-04 14:02:30 INFO
 * start" that no rule reads dates the job as a rule's progress line does.  Only a file the
 * folder's gatherer gave, read by its content: a bundle's members come with the records
 * that give the job's window.
 */
static void head_stamp(struct pm_file *f)
{
	char raw[SNIFF_BYTES], clean[SNIFF_BYTES];
	size_t rlen = 0, pos = 0, n;
	const char *line;

	f->head_t = 0;
	f->head_t_off = 0;
	if (f->kind_given || f->source != PM_SRC_APP_LOG || f->status != PM_ST_OK ||
	    pm_file_head(f, raw, sizeof(raw), &rlen) < 0)
		return;
	while (pm_in_next_line(raw, rlen, &pos, &line, &n)) {
		struct pm_peel pe;
		double t;
		/* colour codes and a CR hide a stamp as the scan's reading does not see them
		 * (on_chunk); the line's offset is the raw one, as an observation's is */
		size_t cn = pm_text_clean(line, n, clean);

		if (pm_time_at(clean, cn, &f->tctx, &t) != 1) {
			pm_peel(PM_FMT_APP, clean, cn, &f->tctx, &pe);
			if (pm_time_peeled(clean, cn, &f->tctx, &pe, &t) != 1)
				continue;
		}
		if (t > 0) {
			f->head_t = t;
			f->head_t_off = (uint64_t)(line - raw);
		}
		return;
	}
}

static int scan_file(struct scan *s, size_t i)
{
	const struct pm_ruleset *rs = s->rs;
	struct pm_file *f = &s->ev->files[i];
	size_t nobs0;
	int frc;

	s->file = i;
	f->progress_known = true;
	f->progress_to = 0;
	s->ntail[0] = s->ntail[1] = 0; /* the chunk before is another file's */
	s->ztl = s->zprevn = s->zhostn = 0;
	s->ylast = 0;
	s->nwraps = 0;
	s->ydisorder = false;
	nobs0 = s->ev->nobs;
	s->sectioned = s->sect_known = s->appended = false;
	s->sect_last = 0;
	s->sect_lines = s->sect_max = 0;
	s->nsect = 0;
	for (unsigned k = 0; k < f->nshosts; k++)
		free(f->shosts[k]);
	free(f->shosts);
	f->shosts = NULL;
	f->nshosts = 0;
	free(f->zchg);
	f->zchg = NULL;
	f->nzchg = 0;
	f->zmixed = false;
	f->launch_at = 0;
	f->launch_zone = 0;
	head_stamp(f);
	f->nlhosts = 0;
	f->lhosts_more = false;
	s->db = rs->db							   ? rs->db :
		(unsigned)f->source < sizeof(rs->sdb) / sizeof(rs->sdb[0]) ? rs->sdb[f->source] :
									     NULL;
	if (s->db && !rs->db && pm_hs_open(s->db, &s->stream) != HS_SUCCESS)
		return -1;
	frc = pm_file_read(f, on_chunk, s);
	/* the hits still waiting for a next chunk: the file ended after them (both passes') */
	for (int d = 0; d < 2 && s->npend; d++) {
		s->daemon = d;
		if (resolve(s, NULL, 0) < 0)
			frc = -1;
	}
	s->daemon = false;
	pm_hs_close(s->stream);
	s->stream = NULL;
	year_shift(s, nobs0);
	/* the file's sections are its own: a reading recorded later (a GPU state's condition)
	 * is placed by nothing of them */
	s->sectioned = s->sect_known = s->appended = false;
	s->sect_last = 0;
	s->sect_lines = s->sect_max = 0;
	s->nsect = 0;
	return frc < 0 && f->status == PM_ST_OK ? -1 : 0;
}

/*
 * On worker threads, each file is scanned into an evidence set of the worker's own (the
 * observations, ranks, nodes and addresses it gives; files, job and facts shared, read only)
 * with groups of its own, and merged into the evidence in file order: every group and rank
 * comes out as a scan in order makes it (an observation kept by the file's groups is counted
 * into the group instead when the evidence's group is full; a rank's first node is the
 * first file's).  What a file's scan reads of what earlier files gave is the nodes known (a
 * weak node name counts only when known): the worker knows those known before the scan,
 * and a file that looks up another name is scanned again, in order, when it is merged.
 */
struct scanned {
	int rc; /* -1: the worker's scan failed */
	bool skipped, unsure;
	bool carried;		/* taken from its bundle's record, not scanned */
	struct pm_evidence lev; /* what the file gave */
	/* the weak names the scan looked up and did not know: a node by the file's turn in
	 * order, and it is scanned again (in_order) */
	char **absent;
	size_t nabsent;
	unsigned char *kept; /* per observation: KEPT_* (note_kept) */
	/* the file as it was before the worker read it */
	enum pm_status status;
	char *reason;
	uint64_t bytes, lines;
	unsigned char digest[32];
	bool digested;
};

struct scanw {
	struct scan s;
	struct pm_evidence lev;
};

struct scanpar {
	struct scan *s0;	 /* the evidence's scan, its groups and ranks */
	struct pm_evidence tmpl; /* the evidence without observations, ranks, nodes, addresses */
	char **snap;		 /* the nodes known before the scan */
	struct pm_file *files;
	size_t nfiles;
	bool release;
	struct scanw w[8];
	unsigned nw;
};

static void scanned_clear(struct scanned *r)
{
	pm_lev_free(&r->lev);
	free(r->kept);
	free(r->reason);
	free_names(r->absent, r->nabsent);
}

/* Whether R, a scan of a file by a worker (or its collector), is what a scan in order would
 * give at the file's turn, EV's nodes those known by then: none of the weak names it did not
 * know is a node by then (those the file itself named before a line looked them up were
 * known to its scan, known_node). */
static bool in_order(const struct pm_evidence *ev, const struct scanned *r)
{
	for (size_t k = 0; k < r->nabsent; k++)
		if (pm_ev_is_node(ev, r->absent[k], SIZE_MAX))
			return false;
	return true;
}

/* A worker's tables, emptied for the next file: small ones cleared, large ones dropped. */
static int scan_reset(struct scan *s)
{
	if (s->cap > 256) {
		free(s->tab);
		s->tab = NULL;
		s->cap = 0;
	} else if (s->ntab) {
		memset(s->tab, 0, s->cap * sizeof(*s->tab));
	}
	if (!s->tab && !(s->tab = calloc(64, sizeof(*s->tab))))
		return -1;
	if (!s->cap)
		s->cap = 64;
	s->ntab = 0;
	if (s->rcap > 1024) {
		free(s->rtab);
		free(s->rkey);
		s->rtab = NULL;
		s->rkey = NULL;
		s->rcap = 0;
	} else if (s->rcap) {
		memset(s->rtab, 0, s->rcap * sizeof(*s->rtab));
	}
	s->last_ri = SIZE_MAX;
	s->lnode_len = 0; /* noted in the worker's evidence of the file before */
	s->unsure = false;
	return 0;
}

/* What the scan of F reads besides its bytes and the rules RS, as a carried scan's key. */
static void carry_key(const struct pm_ruleset *rs, const struct pm_file *f, struct pm_carry_key *k)
{
	*k = (struct pm_carry_key){.rules = rs->digest,
				   .input_max = pm_input_max(),
				   .node = f->node,
				   .rank = f->rank,
				   .mtime = f->mtime,
				   .boot = f->tctx.boot_time,
				   .year = f->tctx.year,
				   .source = f->source,
				   .format = f->format,
				   .status = f->status,
				   .reason = f->reason};
	memcpy(k->sha, f->digest, sizeof(k->sha));
}

/*
 * File I's scan as its bundle carried it (carry.c) into R, and the file left as its scan
 * would leave it, when the record's key is the file's and every weak name the collector took
 * as a node is in SNAP (NSNAP, sorted; the nodes known before the scan): 1.  0: not taken,
 * to be scanned (no record, another key, a name not known here, a damaged record); -1 on
 * ENOMEM.  Only a job's output is taken: the scan of any other source reads the job's window,
 * id and nodes (linetrust.c), which its collector knew only in part.  The record is freed
 * either way.
 */
static int carried(const struct pm_evidence *ev, size_t i, char *const *snap, size_t nsnap,
		   ZSTD_DCtx **zd, struct scanned *r)
{
	struct pm_file *f = &ev->files[i];
	struct pm_carry_key k;
	struct pm_carry c = {.lev = &r->lev};
	int rc = 0;

	if (f->carry && f->digested && f->source == PM_SRC_APP_LOG && f->format == PM_FMT_APP &&
	    (*zd || (*zd = ZSTD_createDCtx()))) {
		carry_key(ev->rs, f, &k);
		rc = pm_carry_decode(*zd, f->carry, f->carrylen, &k, ev->rs, snap, nsnap,
				     (uint32_t)i, &c);
	}
	free(f->carry);
	f->carry = NULL;
	f->carrylen = 0;
	if (rc != 1)
		return rc;
	r->carried = true;
	r->kept = c.kept;
	r->absent = c.absent;
	r->nabsent = c.nabsent;
	free(f->reason);
	f->reason = c.reason;
	f->status = c.status;
	f->bytes += c.dbytes;
	f->lines += c.dlines;
	return 1;
}

/* File F as R found it before its scan (scan_one). */
static void scanned_undo(struct pm_file *f, struct scanned *r)
{
	free(f->reason);
	f->reason = r->reason;
	r->reason = NULL;
	f->status = r->status;
	f->bytes = r->bytes;
	f->lines = r->lines;
	memcpy(f->digest, r->digest, sizeof(f->digest));
	f->digested = r->digested;
}

/* File F as it is before its scan, into R, to be put back (scanned_undo).  -1 on ENOMEM. */
static int scanned_begin(const struct pm_file *f, struct scanned *r)
{
	r->status = f->status;
	r->bytes = f->bytes;
	r->lines = f->lines;
	memcpy(r->digest, f->digest, sizeof(r->digest));
	r->digested = f->digested;
	return f->reason && !(r->reason = strdup(f->reason)) ? -1 : 0;
}

/* File I scanned by worker WI into R. */
static void scan_one(struct scanpar *p, unsigned wi, size_t i, struct scanned *r)
{
	struct scan *s = &p->w[wi].s;
	struct pm_file *f = &p->files[i];

	if (!scannable(f)) {
		r->skipped = true;
		return;
	}
	if (scanned_begin(f, r) < 0 || scan_reset(s) < 0) {
		r->rc = -1;
		return;
	}
	if (f->carry) {
		int c = carried(p->s0->ev, i, s->snap, s->nsnap, &s->zd, r);

		if (c != 0) {
			r->rc = c < 0 ? -1 : 0;
			if (p->release && c > 0 && !r->nabsent)
				pm_file_release(f);
			return;
		}
	}
	p->w[wi].lev = p->tmpl;
	r->rc = scan_file(s, i);
	r->unsure = s->unsure;
	r->absent = s->absent;
	r->nabsent = s->nabsent;
	s->absent = NULL;
	s->nabsent = s->aabsent = 0;
	/* read for good (not to be scanned again in order): freed here, on the thread that
	 * read it, where its bytes were made when they were held back in the bundle (a free
	 * on the caller's thread takes the worker's heap lock, while the worker allocates) */
	if (p->release && r->rc == 0 && !r->unsure && !r->nabsent)
		pm_file_release(f);
	r->lev = p->w[wi].lev;
	r->kept = s->kept;
	s->kept = NULL;
	s->akept = 0;
}

/* Files are made and taken a few at a time: fewer hand-overs between threads. */
#define SCAN_BLOCK 8

struct scanblk {
	size_t n;
	struct scanned r[SCAN_BLOCK];
};

static void *scan_make(void *arg, unsigned wi, size_t k)
{
	struct scanpar *p = arg;
	struct scanblk *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	for (size_t i = k * SCAN_BLOCK; i < p->nfiles && b->n < SCAN_BLOCK; i++)
		scan_one(p, wi, i, &b->r[b->n++]);
	return b;
}

/* Merge R, file S->file's observations, ranks, nodes and addresses, into S's evidence as a
 * scan in order would have made them.  0, or -1 on ENOMEM. */
static int merge_file(struct scan *s, struct scanned *r)
{
	struct pm_evidence *ev = s->ev, *l = &r->lev;

	for (size_t k = 0; k < l->nnodes; k++)
		pm_ev_note_node(ev, l->nodes[k], strlen(l->nodes[k]));
	for (unsigned k = 0; k < l->nagents; k++)
		note_agent(ev, (int)(l->agents[k] / PM_AGENT_LOCALS),
			   (int)(l->agents[k] % PM_AGENT_LOCALS));
	if (l->nproc)
		note_nproc(ev, l->nproc);
	if (l->nproc < 0)
		ev->nproc = -1;
	for (int k = 0; k < PM_AGENTS; k++)
		if (l->agent_base[k])
			set_base(&ev->agent_base[k], l->agent_base[k]);
	for (size_t k = 0; k < l->nranks; k++) {
		struct pm_rankinfo *lr = &l->ranks[k], *ri = rank_get(s, lr->rank);

		if (!ri)
			return -1;
		if (lr->last_time > ri->last_time)
			ri->last_time = lr->last_time;
		if (lr->first_progress > 0 &&
		    (!ri->first_progress || lr->first_progress < ri->first_progress))
			ri->first_progress = lr->first_progress;
		if (lr->last_progress > ri->last_progress)
			ri->last_progress = lr->last_progress;
		ri->nprogress += lr->nprogress;
		if (!ri->node && lr->node) {
			ri->node = lr->node;
			lr->node = NULL;
			pm_ev_note_node(ev, ri->node, strlen(ri->node));
		}
	}
	for (size_t k = 0; k < l->nipmap; k++)
		if (pm_ev_note_ip(ev, l->ipmap[k].ip, strlen(l->ipmap[k].ip), l->ipmap[k].node,
				  strlen(l->ipmap[k].node)) < 0)
			return -1;
	/* the kernel lines' hosts, in the file's turn: as many, in the order, a scan in order
	 * notes them (att_ranks.c reads the job's domain from them) */
	for (size_t k = 0; k < l->nkhosts; k++)
		if (note_khost_name(ev, l->khosts[k], strlen(l->khosts[k])) < 0)
			return -1;
	for (size_t k = 0; k < l->nobs; k++) {
		struct pm_obs *o = &l->obs[k];
		bool tally = r->kept[k] & KEPT_TALLY, isnew;
		uint32_t gfile = group_file(o->node, tally, o->file);
		struct group *g = gfind(s, o->rule, tally ? NULL : o->node, tally ? -1 : o->rank,
					gfile, &isnew);

		if (!g)
			return -1;
		if (!isnew && (tally || (g->kept >= s->rs->per_group &&
					 !past_room(s, g, r->kept[k] & KEPT_PAST)))) {
			ev->obs[g->obs].repeats += 1 + o->repeats;
			continue;
		}
		if (ev->nobs == ev->aobs && obs_grow(ev) < 0)
			return -1;
		if (!isnew) {
			ev->obs[g->obs].repeats += o->repeats;
			o->repeats = 0;
		}
		ev->obs[ev->nobs] = *o;
		memset(o, 0, sizeof(*o)); /* the evidence's now */
		if (isnew) {
			g->rule = ev->obs[ev->nobs].rule;
			g->rank = tally ? -1 : ev->obs[ev->nobs].rank;
			g->node = tally ? NULL : ev->obs[ev->nobs].node;
			g->file = gfile;
			g->obs = (uint32_t)ev->nobs;
		}
		g->kept++;
		ev->nobs++;
	}
	return 0;
}

/* File I's scan R into the evidence: merged, or done again in order. */
static int take_one(struct scanpar *p, size_t i, struct scanned *r)
{
	struct scan *s = p->s0;
	struct pm_file *f = &p->files[i];
	int rc = 0;

	if (r->rc < 0) {
		rc = -1;
	} else if (!r->skipped && (r->unsure || !in_order(s->ev, r))) {
		/* as it was, then in order */
		scanned_undo(f, r);
		rc = scan_file(s, i);
	} else if (!r->skipped) {
		rc = merge_file(s, r);
		s->ev->ncarried += r->carried;
	}
	if (p->release)
		pm_file_release(f);
	return rc;
}

static void scan_drop(void *arg, void *item)
{
	struct scanblk *b = item;

	(void)arg;
	for (size_t j = 0; j < b->n; j++)
		scanned_clear(&b->r[j]);
	free(b);
}

static int scan_take(void *arg, size_t k, void *item)
{
	struct scanpar *p = arg;
	struct scanblk *b = item;
	int rc = 0;

	if (!b) {
		errno = ENOMEM;
		return -1;
	}
	for (size_t j = 0; j < b->n && rc == 0; j++)
		rc = take_one(p, k * SCAN_BLOCK + j, &b->r[j]);
	if (rc < 0)
		errno = ENOMEM;
	return rc;
}

static int scan_par(struct scan *s0)
{
	static char *const none[1]; /* no node known: a worker's SNAP all the same */
	struct pm_evidence *ev = s0->ev;
	struct scanpar *p = calloc(1, sizeof(*p));
	struct pm_work w = {scan_make, scan_take, scan_drop, p, 0, true};
	int rc = -1;

	if (!p)
		return -1;
	p->s0 = s0;
	p->files = ev->files;
	p->nfiles = ev->nfiles;
	p->release = ev->ntasks || ev->ncollect;
	if (ev->nnodes && !(p->snap = malloc(ev->nnodes * sizeof(*p->snap))))
		goto out;
	if (ev->nnodes)
		memcpy(p->snap, ev->nodes, ev->nnodes * sizeof(*p->snap));
	p->tmpl = *ev;
	p->tmpl.nodes = NULL;
	p->tmpl.nnodes = p->tmpl.anodes = 0;
	p->tmpl.ranks = NULL;
	p->tmpl.nranks = p->tmpl.aranks = 0;
	p->tmpl.obs = NULL;
	p->tmpl.nobs = p->tmpl.aobs = 0;
	p->tmpl.ipmap = NULL;
	p->tmpl.nipmap = p->tmpl.aipmap = 0;
	p->tmpl.khosts = NULL; /* a worker's own, merged in order (merge_file) */
	p->tmpl.nkhosts = 0;
	p->tmpl.bundle_io = NULL;
	/* each worker's scratch is cloned here, before any thread runs */
	p->nw = ev->threads > 8 ? 8 : ev->threads;
	for (unsigned k = 0; k < p->nw; k++) {
		struct scan *s = &p->w[k].s;

		*s = (struct scan){.ev = &p->w[k].lev,
				   .rs = ev->rs,
				   .last_ri = SIZE_MAX,
				   .snap = p->snap ? p->snap : none,
				   .nsnap = ev->nnodes};
		if ((ev->rs->scratch &&
		     hs_clone_scratch(ev->rs->scratch, &s->scratch) != HS_SUCCESS) ||
		    !(s->md = pcre2_match_data_create(32, NULL)))
			goto out;
	}
	rc = pm_work_run(&w, p->nw, (ev->nfiles + SCAN_BLOCK - 1) / SCAN_BLOCK);
out:
	for (unsigned k = 0; k < p->nw; k++)
		scan_free(&p->w[k].s);
	free(p->snap);
	free(p);
	return rc;
}

/* The set for one capture IN, as a merge reads it from its bundle (bundle.c, add_member):
 * NULL on ENOMEM, or with *SKIP when it is not a job output. */
static struct pm_evidence *carry_set(const struct pm_ruleset *rs, const struct pm_carry_input *in,
				     bool *skip)
{
	struct pm_evidence *ev = pm_evidence_create(rs);
	struct pm_file *f;
	struct pm_sha256 c;

	*skip = false;
	if (!ev || !(f = pm_ev_add_file(ev, in->path)))
		goto fail;
	f->source = PM_SRC_APP_LOG;
	f->kind_given = true;
	f->mem = malloc(in->len ? in->len : 1);
	if (!f->mem)
		goto fail;
	memcpy(f->mem, in->data, in->len);
	f->memlen = in->len;
	pm_sha256_init(&c);
	pm_sha256_update(&c, in->data, in->len);
	pm_sha256_final(&c, f->digest);
	f->digested = true;
	f->tctx.boot_time = pm_bundle_time(in->boot);
	f->mtime = pm_bundle_time(in->observed);
	f->rank = in->rank;
	if (in->node &&
	    (!(f->node = strdup(in->node)) || pm_ev_note_node(ev, in->node, strlen(in->node)) < 0))
		goto fail;
	if (pm_bundle_member_status(f, in->status, in->reason) < 0)
		goto fail;
	for (size_t k = 0; k < in->nnodes; k++)
		if (in->nodes[k] && pm_ev_note_node(ev, in->nodes[k], strlen(in->nodes[k])) < 0)
			goto fail;
	sniff_file(ev, f);
	if (in->job_start > 0)
		f->tctx.year = year_of(in->job_start);
	*skip = f->format != PM_FMT_APP || !scannable(f);
	return ev;
fail:
	pm_evidence_destroy(ev);
	return NULL;
}

/* Whether EV's scan noted any of torchrun's workers under srun's label (note_agent,
 * note_nproc, set_base). */
static bool agent_ranks(const struct pm_evidence *ev)
{
	if (ev->nagents || ev->nproc)
		return true;
	for (unsigned k = 0; k < PM_AGENTS; k++)
		if (ev->agent_base[k])
			return true;
	return false;
}

int pm_scan_carry(const struct pm_ruleset *rs, const struct pm_carry_input *in, void **out,
		  size_t *outlen)
{
	bool skip;
	struct pm_evidence *ev = carry_set(rs, in, &skip);
	struct scanpar *p = NULL;
	struct scanned r = {0};
	struct pm_carry_key k;
	struct scan *s;
	int rc = -1;

	*out = NULL;
	*outlen = 0;
	if (!ev)
		return -1;
	if (skip) {
		rc = 0;
		goto out;
	}
	/* a merge's worker, the job's nodes known (scan_par) */
	if (!(p = calloc(1, sizeof(*p))))
		goto out;
	p->files = ev->files;
	p->nfiles = ev->nfiles;
	p->tmpl = *ev;
	p->tmpl.nodes = NULL;
	p->tmpl.nnodes = p->tmpl.anodes = 0;
	p->tmpl.khosts = NULL;
	p->tmpl.nkhosts = 0;
	p->tmpl.files = ev->files;
	p->nw = 1;
	s = &p->w[0].s;
	*s = (struct scan){.ev = &p->w[0].lev,
			   .rs = rs,
			   .last_ri = SIZE_MAX,
			   .snap = ev->nodes,
			   .nsnap = ev->nnodes,
			   .note_weak = true,
			   .deadline = in->deadline,
			   .stop = in->stop};
	if ((rs->scratch && hs_clone_scratch(rs->scratch, &s->scratch) != HS_SUCCESS) ||
	    !(s->md = pcre2_match_data_create(32, NULL)))
		goto out;
	carry_key(rs, &ev->files[0], &k);
	scan_one(p, 0, 0, &r);
	if (s->gave_up) {
		scanned_clear(&r);
		scan_free(&p->w[0].s);
		free(p);
		pm_evidence_destroy(ev);
		errno = ETIMEDOUT;
		return -1;
	}
	if (r.rc < 0)
		goto out;
	rc = 0;
	/* torchrun's workers under srun's label (tally_ranks: the agents' local ranks, the
	 * workers a node, an agent's first rank) are the evidence's, which no record carries: a
	 * file that gave any is not carried, and the merge scans it (a record makes a merge
	 * faster, never different) */
	if (!r.skipped && !r.unsure && !agent_ranks(&r.lev)) {
		struct pm_file *f = &ev->files[0];
		struct pm_carry c = {.lev = &r.lev,
				     .kept = r.kept,
				     .status = f->status,
				     .reason = f->reason,
				     .dbytes = f->bytes - r.bytes,
				     .dlines = f->lines - r.lines,
				     .weak = s->weak,
				     .nweak = s->nweak,
				     .absent = r.absent,
				     .nabsent = r.nabsent};
		unsigned char *buf;

		/* the key as the file was before its scan */
		k.status = r.status;
		k.reason = r.reason;
		if ((rc = pm_carry_encode(&k, &c, &buf, outlen)) == 0)
			*out = buf;
	}
out:
	scanned_clear(&r);
	if (p)
		scan_free(&p->w[0].s);
	free(p);
	pm_evidence_destroy(ev);
	return rc;
}

/* A structured file parsed after Slurm's record. */
static bool parsed_later(const struct pm_file *f)
{
	return f->status == PM_ST_OK && f->format != PM_FMT_SACCT_P &&
	       f->format != PM_FMT_SACCT_TABLE && f->format != PM_FMT_SCONTROL_JOB;
}

/*
 * The task files (a rank map and task exits in every bundle) read on the set's threads, their
 * records applied in file order; the other structured files parsed in order as before.
 */
#define PARSE_BLOCK 16
#define RESERVE_MAX (1u << 20) /* tasks reserve_tasks makes room for at most */

struct parsed {
	size_t n;
	struct pm_tasks *t[PARSE_BLOCK]; /* NULL: parsed in order */
	size_t carried;			 /* of them taken from their bundles' records */
	bool failed;			 /* out of memory */
};

static bool task_file(const struct pm_file *f)
{
	return parsed_later(f) && (f->format == PM_FMT_RANK_MAP || f->format == PM_FMT_TASK_EXIT);
}

/* A task file of EV parsed (F) is not read again when EV has task records or collected
 * bundles (as the scan's release says): its bytes are freed before the scan, where the
 * observations grow, instead of as the scan passes it.  After the threads are done, when
 * there were any: freed on the caller's thread while a worker allocates, each free of a
 * block from the worker's heap waited for that heap's lock (4,000 futex waits at 4,096
 * nodes). */
static void parsed_release(const struct pm_evidence *ev, struct pm_file *f)
{
	if ((f->format == PM_FMT_RANK_MAP || f->format == PM_FMT_TASK_EXIT) &&
	    (ev->ntasks || ev->ncollect))
		pm_file_release(f);
}

/* parse_all's run: the set, and a zstd context a worker (by its index, as pm_work_run gives
 * it) for the task records.  A context a worker, not one a block of files: making one costs
 * its tables' allocation and their first touch (5,000 of them at 16,384 nodes, about 2% of
 * a finalize's CPU and its page faults). */
struct parse_run {
	struct pm_evidence *ev;
	ZSTD_DCtx *zd[8]; /* pm_evidence_set_threads' most */
};

static void *parse_make(void *arg, unsigned w, size_t k)
{
	struct parse_run *run = arg;
	struct pm_evidence *ev = run->ev;
	struct parsed *p = calloc(1, sizeof(*p));
	ZSTD_DCtx **zd = &run->zd[w < 8 ? w : 0];

	if (!p)
		return NULL;
	for (size_t i = k * PARSE_BLOCK; i < ev->nfiles && p->n < PARSE_BLOCK; i++, p->n++) {
		struct pm_file *f = &ev->files[i];
		char *buf;
		size_t len;

		if (!task_file(f))
			continue;
		/* its bundle's record of its parse (carry.c, PMTASK1), taken where it was made by
		 * this engine from these bytes: the file is not read (its frame may not have
		 * been decompressed at all, bundle.c skip_ok); else it is parsed as before */
		if (f->carry) {
			if (*zd || (*zd = ZSTD_createDCtx()))
				p->t[p->n] = pm_tasks_carried(*zd, f);
			free(f->carry);
			f->carry = NULL;
			f->carrylen = 0;
			if (p->t[p->n]) {
				p->carried++;
				continue;
			}
		}
		if (pm_file_slurp(f, STRUCT_CAP, &buf, &len) < 0)
			continue; /* a slurp that failed is in the file's status */
		if (!(p->t[p->n] = pm_tasks_read(buf, len)))
			p->failed = true;
	}
	return p;
}

static void parse_drop(void *arg, void *item)
{
	struct parsed *p = item;

	(void)arg;
	for (size_t j = 0; j < p->n; j++)
		pm_tasks_free(p->t[j]);
	free(p);
}

/* Room for the tasks the first task file applied (N records) suggests: a rank map and a task
 * exit file a node, each naming the node's ranks.  A guess, capped: the tasks a large job's
 * records add are then made without copying the list as it doubles. */
static int reserve_tasks(struct pm_evidence *ev, size_t n)
{
	size_t files = 0;

	if (!n)
		return 0;
	for (size_t i = 0; i < ev->nfiles; i++)
		files += task_file(&ev->files[i]);
	if (files < 4)
		return 0;
	return pm_ev_task_reserve(ev,
				  n * (files / 2) > RESERVE_MAX ? RESERVE_MAX : n * (files / 2));
}

static int parse_take(void *arg, size_t k, void *item)
{
	struct pm_evidence *ev = ((struct parse_run *)arg)->ev;
	struct parsed *p = item;

	if (!p || p->failed) {
		errno = ENOMEM;
		return -1;
	}
	ev->ntcarried += p->carried;
	for (size_t j = 0; j < p->n; j++) {
		size_t i = k * PARSE_BLOCK + j;
		struct pm_file *f = &ev->files[i];
		char reason[200] = "";

		if (!p->t[j]) {
			if (parsed_later(f) && !task_file(f))
				parse_structured(ev, i);
			continue;
		}
		if (!ev->atasks)
			(void)reserve_tasks(ev, pm_tasks_count(p->t[j])); /* a guess: may fail */
		if (pm_tasks_apply(ev, i, p->t[j], reason, sizeof(reason)) < 0 &&
		    f->status == PM_ST_OK) {
			f->status = PM_ST_UNREADABLE;
			free(f->reason);
			f->reason = strdup(reason[0] ? reason : "not what its format promised");
		}
	}
	return 0;
}

/* Task file I's records taken from its bundle's record (carry.c, PMTASK1) and applied, as
 * parse_take applies them, with *ZD (made here when NULL): true; false when there is no
 * record or it is not taken (the file is to be parsed).  The record is freed either way. */
static bool tasks_taken(struct pm_evidence *ev, size_t i, ZSTD_DCtx **zd)
{
	struct pm_file *f = &ev->files[i];
	struct pm_tasks *t = NULL;
	char reason[200] = "";

	if (f->carry && (*zd || (*zd = ZSTD_createDCtx())))
		t = pm_tasks_carried(*zd, f);
	free(f->carry);
	f->carry = NULL;
	f->carrylen = 0;
	if (!t)
		return false;
	ev->ntcarried++;
	if (pm_tasks_apply(ev, i, t, reason, sizeof(reason)) < 0 && f->status == PM_ST_OK) {
		f->status = PM_ST_UNREADABLE;
		free(f->reason);
		f->reason = strdup(reason[0] ? reason : "not what its format promised");
	}
	pm_tasks_free(t);
	return true;
}

static int parse_all(struct pm_evidence *ev)
{
	struct parse_run run = {ev, {NULL}};
	struct pm_work w = {parse_make, parse_take, parse_drop, &run, 0, true};
	int rc = pm_work_run(&w, ev->threads, (ev->nfiles + PARSE_BLOCK - 1) / PARSE_BLOCK);
	int en = errno;

	for (size_t t = 0; t < sizeof(run.zd) / sizeof(run.zd[0]); t++)
		ZSTD_freeDCtx(run.zd[t]);
	errno = en;
	return rc;
}

/* Each file's format, from its head: on the set's threads, each file alone. */
#define SNIFF_BLOCK 64

static void *sniff_make(void *arg, unsigned w, size_t k)
{
	static char done;
	struct pm_evidence *ev = arg;

	(void)w;
	for (size_t i = k * SNIFF_BLOCK; i < ev->nfiles && i < (k + 1) * SNIFF_BLOCK; i++)
		sniff_file(ev, &ev->files[i]);
	return &done;
}

static int sniff_take(void *arg, size_t k, void *item)
{
	(void)arg;
	(void)k;
	(void)item;
	return 0;
}

static int sniff_all(struct pm_evidence *ev)
{
	struct pm_work w = {sniff_make, sniff_take, NULL, ev, 0, false};

	return pm_work_run(&w, ev->threads, (ev->nfiles + SNIFF_BLOCK - 1) / SNIFF_BLOCK);
}

/* Without an accounting record, a stamp without a year takes the year its own file's head
 * dates a line with, else the earliest year any file's head does (a folder holds one job's
 * logs), else the file's modification time's (sniff_file): a copied or pasted log's
 * modification time is when it was copied, and a syslog's 'Nov 30' a year or two off moves
 * the kernel's events away from the job's. */
static void year_from_heads(struct pm_evidence *ev)
{
	int folder = 0;

	for (size_t i = 0; i < ev->nfiles; i++)
		if (ev->files[i].head_year > 0 && (!folder || ev->files[i].head_year < folder))
			folder = ev->files[i].head_year;
	for (size_t i = 0; folder && i < ev->nfiles; i++)
		ev->files[i].tctx.year = ev->files[i].head_year > 0 ? ev->files[i].head_year :
								      folder;
}

/* The record's job id, raw id (JobIDRaw, %j of an array task) or array job id (%A): whether
 * ID (N bytes, from a slurm-N.out name) is one of them. */
bool pm_record_job_id(const struct pm_evidence *ev, const char *id, size_t n)
{
	/* an array task's array id (25 of 25_3), a heterogeneous job's leader (7001 of 7001+0,
	 * its output's %j) */
	const char *j = ev->job.id, *u = strpbrk(j, "_+");
	char raw[32];

	if (strlen(j) == n && !memcmp(j, id, n))
		return true;
	if (u && (size_t)(u - j) == n && !memcmp(j, id, n))
		return true;
	for (size_t i = 0; i < ev->nfacts; i++)
		if (!ev->facts[i].node && !strcmp(ev->facts[i].name, "job.id_raw") &&
		    ev->facts[i].value > 0) {
			snprintf(raw, sizeof(raw), "%.0f", ev->facts[i].value);
			if (strlen(raw) == n && !memcmp(raw, id, n))
				return true;
		}
	return false;
}

/*
 * Once the accounting record names the job, a file named as Slurm names another job's output
 * (slurm-N.out, slurm-A_T.out: a user's earlier job, gathered into the folder with this one's)
 * is set aside: listed in the coverage with the reason, never scanned as this job's.  A
 * bundle's members are the collector's, for its job.  No record, no job id: nothing set aside.
 */
static int set_aside_other_jobs(struct pm_evidence *ev)
{
	char why[256];
	const char *id;
	size_t n;

	if (!ev->job.id || !ev->job.id[0])
		return 0;
	for (size_t i = 0; i < ev->nfiles; i++) {
		struct pm_file *f = &ev->files[i];
		if (f->kind_given || f->status != PM_ST_OK ||
		    !pm_slurm_output_id(f->name, &id, &n) || pm_record_job_id(ev, id, n))
			continue;
		snprintf(why, sizeof(why),
			 "left out: named as Slurm names job %.*s's output, and the accounting record "
			 "is job %s's: another job's output, not read as this one's",
			 (int)n, id, ev->job.id);
		f->status = PM_ST_UNREADABLE;
		f->other_job = true;
		if (pm_strset(&f->reason, why, strlen(why)))
			return -1;
	}
	return 0;
}

/*
 * Whether F is a system log by more than its lines' words: a collector's member of a kind its
 * manifest gives, or a file whose name names a system log's source as one of its words
 * ("gq07-syslog", "messages-20261203", "kern.log", "slurmd.log").  A file the job wrote into
 * its own folder ("env.log") can hold lines of any shape, an ISO syslog's with slurmd's tag
 * included; an operator's capture named for its node alone ("gq07.log") is told from such a
 * file by nothing either (record_in_local_zone, record_zone_launch).
 */
static bool told_system_log(const struct pm_file *f)
{
	static const char *const slurmd[] = {"slurmd"};

	return zoned_system_log(f) && (f->kind_given || pm_path_names_kernel(f->name) ||
				       pm_in_has_word(f->name, strlen(f->name), slurmd, 1));
}

/* Whether some zoned system log of EV that can be read is told (told_system_log): then only
 * such logs speak for the nodes' offset and for slurmd's launching line. */
static bool any_told(const struct pm_evidence *ev)
{
	for (size_t i = 0; i < ev->nfiles; i++)
		if ((ev->files[i].status == PM_ST_OK || ev->files[i].status == PM_ST_TRUNCATED) &&
		    told_system_log(&ev->files[i]))
			return true;
	return false;
}

/*
 * Slurm writes the record's times in the cluster's local time, without a zone; they were read
 * as UTC (parse_sched.c).  Where the node's own logs stamp their lines with an offset (dmesg
 * --time-format iso, an RFC 3339 syslog), that is the local zone: the record's start and end
 * are read in it, the offset most of those logs carry.  Read as UTC, a site west of UTC saw
 * the kernel's lines of the hours before the job in its window (and a collector's start, in
 * UTC, hours after its end: a clock skew that was the zone).  No offset-stamped system log, or
 * a record with its own zone: as before.
 */
static void record_in_local_zone(struct pm_evidence *ev)
{
	int zone[8], count[8], best = -1;
	size_t nz = 0, k;
	bool told;

	if (!ev->job.local_times || (ev->job.start <= 0 && ev->job.end <= 0))
		return;
	told = any_told(ev);
	for (size_t i = 0; i < ev->nfiles; i++) {
		const struct pm_file *f = &ev->files[i];
		if ((f->status != PM_ST_OK && f->status != PM_ST_TRUNCATED) ||
		    (!system_log(f->format) && f->source != PM_SRC_KERNEL_LOG))
			continue;
		/* a system log stamped in local time with no zone agrees with the record as it
		 * is: moving the record would set that log hours off instead */
		if (f->head_zoneless)
			return;
		/* beside a log that is one by its name or its collector, a file that is one by
		 * its lines alone does not speak for the nodes' offset: a job's env.log of
		 * ISO lines in +02:00 outvoted the node's syslog in +01:00 (review32 F06) */
		if (!f->head_zoned || (told && !told_system_log(f)))
			continue;
		for (k = 0; k < nz && zone[k] != f->head_zone; k++)
			;
		if (k == nz) {
			if (nz == sizeof(zone) / sizeof(zone[0]))
				continue;
			zone[nz] = f->head_zone;
			count[nz++] = 0;
		}
		count[k]++;
	}
	for (k = 0; k < nz; k++)
		if (best < 0 || count[k] > count[best])
			best = (int)k;
	if (best >= 0)
		ev->job.zone_read = true;
	if (best < 0 || zone[best] == 0)
		return;
	if (ev->job.start > 0)
		ev->job.start -= zone[best];
	if (ev->job.end > 0)
		ev->job.end -= zone[best];
	ev->job.local_zone = zone[best];
}

static void widen(int z, int *lo, int *hi, bool *any)
{
	if (!*any || z < *lo)
		*lo = z;
	if (!*any || z > *hi)
		*hi = z;
	*any = true;
}

/* The offsets that file F's stamps could have had at the local time T (read as UTC), into
 * *LO and *HI (widened, *ANY set): each in force where T less it falls in the stretch of the
 * file stamped in it (both in the hour a change back repeats, where lines on both sides
 * show it), else both of a change where T falls between the change's two lines. */
static void zones_at(const struct pm_file *f, double t, int *lo, int *hi, bool *any)
{
	bool sure = false;

	for (unsigned k = 0; k <= f->nzchg; k++) {
		int z = k ? f->zchg[k - 1].zafter : f->zchg[0].zbefore;
		double u = t - z;
		if ((!k || u >= f->zchg[k - 1].after) &&
		    (k == f->nzchg || u <= f->zchg[k].before)) {
			widen(z, lo, hi, any);
			sure = true;
		}
	}
	/* a line stamped in an offset at or after the instant T is in it is proof; only where
	 * neither offset has such a line does the gap between a change's lines count (their
	 * gap can be hours: a sparse kernel log) */
	for (unsigned k = 0; !sure && k < f->nzchg; k++) {
		const struct pm_zchange *c = &f->zchg[k];
		if ((t - c->zbefore > c->before && t - c->zbefore < c->after) ||
		    (t - c->zafter > c->before && t - c->zafter < c->after)) {
			widen(c->zbefore, lo, hi, any);
			widen(c->zafter, lo, hi, any);
		}
	}
}

/* Whether slurmd's lines launching the job in F and G disagree on the instant (beyond a
 * stamp's rounding) or on the offset they carry. */
static bool launch_differ(const struct pm_file *f, const struct pm_file *g)
{
	return fabs(f->launch_at - g->launch_at) > 1 || f->launch_zone != g->launch_zone;
}

/* The offset slurmd's line launching the job at LAUNCH puts the record's start in, as
 * record_zone_launch reads it, into *Z: false where it puts it in none. */
static bool launch_zone_of(const struct pm_evidence *ev, double launch, bool told, int *z)
{
	double start = ev->job.start + ev->job.local_zone, q;
	bool seen;

	q = round((start - launch) / 900.0) * 900.0;
	if (fabs(start - q - launch) > 300)
		return false;
	seen = q == 0;
	for (size_t i = 0; !seen && i < ev->nfiles; i++)
		seen = (told ? told_system_log(&ev->files[i]) : zoned_system_log(&ev->files[i])) &&
		       ev->files[i].head_zone == (int)q;
	*z = (int)q;
	return seen;
}

/*
 * Counted files whose lines launching the job disagree (record_zone_launch): the record is
 * read on the safe side, in the window every offset they and the logs' heads give allows, the
 * start the latest instant and the end the earliest (a window an hour off holds the kernel's
 * lines of the hour before the job: an earlier job's Xid), down to none at all.
 */
static void launch_split_window(struct pm_evidence *ev, bool told)
{
	int lo = ev->job.local_zone, hi = lo, z;
	double start, end;

	if (!ev->job.zone_read || ev->job.start <= 0 || ev->job.start_derived ||
	    ev->job.end_derived)
		return;
	for (size_t i = 0; i < ev->nfiles; i++) {
		const struct pm_file *f = &ev->files[i];
		if ((f->status != PM_ST_OK && f->status != PM_ST_TRUNCATED) || f->launch_at <= 0 ||
		    (told && !told_system_log(f)) || !launch_zone_of(ev, f->launch_at, told, &z))
			continue;
		lo = z < lo ? z : lo;
		hi = z > hi ? z : hi;
	}
	if (lo == hi)
		return;
	start = ev->job.start + ev->job.local_zone - lo;
	end = ev->job.end > 0 ? ev->job.end + ev->job.local_zone - hi : 0;
	ev->job.start = start;
	ev->job.end = end > 0 && end < start ? start : end;
	ev->job.local_zone = lo;
	ev->job.zone_narrowed = true;
}

/*
 * The record's start checked against slurmd's own line launching the job in a zoned log of
 * the folder (zone_walk; the earliest, which comes before anything the job could log): the
 * record is in the offset that puts its start there, to a quarter hour and within five
 * minutes.  Where that is not the offset the logs carry, the record was printed in another
 * zone than the nodes log in (sacct run with TZ=UTC beside logs in +01:00), and read in the
 * logs' offset it moved a kernel line of before the job into its window
 * (trust-syslog-offset-record-printed-in-utc).  After record_zone_refine: the offset
 * compared is the one in force at the start.  Where the folder has a log that is one by more
 * than its lines (told_system_log), only such a log's line counts; two counted files whose
 * lines disagree decide nothing (trust-launch-line-forged-in-job-file: a job's env.log with
 * slurmd's line an hour earlier in +02:00 moved the record onto an earlier job's Xid).
 */
static void record_zone_launch(struct pm_evidence *ev)
{
	double launch = 0, start, z;
	const struct pm_file *by = NULL, *aside = NULL;
	bool seen, told = any_told(ev);

	for (size_t i = 0; i < ev->nfiles; i++) {
		const struct pm_file *f = &ev->files[i];
		if ((f->status != PM_ST_OK && f->status != PM_ST_TRUNCATED) || f->launch_at <= 0)
			continue;
		/* only a file that is a system log by more than its lines, where the folder
		 * has one: a job's own file can hold slurmd's line in any offset it likes */
		if (told && !told_system_log(f)) {
			if (!aside)
				aside = f;
			continue;
		}
		/* two files' lines that disagree on the instant (beyond a stamp's rounding) or
		 * the offset: which of them is slurmd's is not told, and neither decides (the
		 * record is read as if none were there; review32 F06).  Every counted file
		 * against every one before it, not only the earliest so far: lines a second
		 * apart each (10, 11, 12) disagree in any order of their files (review33 F5) */
		for (size_t k = 0; k < i; k++) {
			const struct pm_file *g = &ev->files[k];
			if ((g->status != PM_ST_OK && g->status != PM_ST_TRUNCATED) ||
			    g->launch_at <= 0 || (told && !told_system_log(g)) ||
			    !launch_differ(f, g))
				continue;
			ev->job.launch_split[0] = g->name;
			ev->job.launch_split[1] = f->name;
			launch_split_window(ev, told);
			return;
		}
		if (!by || f->launch_at < launch) {
			launch = f->launch_at;
			by = f;
		}
	}
	if (aside && (!by || launch_differ(aside, by)))
		ev->job.launch_set_aside = aside->name;
	if (!ev->job.zone_read || launch <= 0 || ev->job.start <= 0 || ev->job.start_derived)
		return;
	start = ev->job.start + ev->job.local_zone; /* the record's own figure again */
	z = round((start - launch) / 900.0) * 900.0;
	if (fabs(start - z - launch) > 300 || (int)z == ev->job.local_zone)
		return;
	/* UTC (sacct run with TZ=UTC), or an offset a log of the folder is stamped in: a line a
	 * job forged later in its run, where the log holds no earlier one, moves the record by
	 * no odd amount (TRUST.md) */
	seen = z == 0;
	for (size_t i = 0; !seen && i < ev->nfiles; i++)
		seen = (told ? told_system_log(&ev->files[i]) : zoned_system_log(&ev->files[i])) &&
		       ev->files[i].head_zone == (int)z;
	if (!seen)
		return;
	ev->job.logs_zone = ev->job.local_zone;
	ev->job.zone_by_launch = true;
	if (ev->job.end > 0)
		ev->job.end += ev->job.local_zone - z;
	ev->job.start = start - z;
	ev->job.local_zone = (int)z;
}

/*
 * The record's local times read in the offset of their own moment where the node's logs
 * change offset (a daylight saving change inside them, zone_walk): record_in_local_zone read
 * both in the offset the logs' heads carry, an hour off for a job after the change (an earlier
 * job's kernel line in its window).  Where a moment could have either offset (the hour a change
 * back repeats), the window is the narrower: the start the later instant, the end the
 * earlier, so that no line outside the job falls in it.
 */
static void record_zone_refine(struct pm_evidence *ev)
{
	double t[2] = {ev->job.start, ev->job.end};
	int lo[2], hi[2];
	bool any[2] = {false, false};

	if (!ev->job.zone_read)
		return;
	for (int e = 0; e < 2; e++) {
		if (t[e] <= 0)
			continue;
		t[e] += ev->job.local_zone; /* the record's own figure again */
		for (size_t i = 0; i < ev->nfiles; i++) {
			const struct pm_file *f = &ev->files[i];
			if ((f->status == PM_ST_OK || f->status == PM_ST_TRUNCATED) &&
			    zoned_system_log(f) && f->nzchg && !f->zmixed)
				zones_at(f, t[e], &lo[e], &hi[e], &any[e]);
		}
	}
	/* a job wholly inside the repeated hour: no narrower window holds it, the heads' stays */
	if (any[0] && any[1] && t[0] - lo[0] > t[1] - hi[1])
		return;
	if (any[0]) {
		ev->job.start = t[0] - lo[0];
		ev->job.local_zone = lo[0];
	}
	if (any[1])
		ev->job.end = t[1] - hi[1];
	/* a bound the record gave as the other and the run time is an instant's distance, not
	 * a local time of its own (a job across the change: an hour off) */
	if (ev->job.end_derived && ev->job.start > 0)
		ev->job.end = ev->job.start + ev->job.elapsed;
	else if (ev->job.start_derived && ev->job.end > 0)
		ev->job.start = ev->job.end - ev->job.elapsed;
}

int pm_scan_all(struct pm_evidence *ev)
{
	struct scan s = {.ev = ev, .rs = ev->rs, .last_ri = SIZE_MAX};
	int rc = -1;

	if (ev->nfiles > 1)
		pm_sort(ev->files, ev->nfiles, sizeof(*ev->files), cmpfile);
	if (sniff_all(ev) < 0)
		return -1;
	/* records of other jobs than the one the folder's output names, listings that
	 * disagree about the job: none of them speaks (pm_sacct_vet) */
	if (pm_sacct_vet(ev, STRUCT_CAP) < 0)
		return -1;
	/* sacct's records before scontrol's: a job state both give is accounting's
	 * (pm_parse_scontrol) */
	for (size_t i = 0; i < ev->nfiles; i++)
		if (ev->files[i].status == PM_ST_OK && (ev->files[i].format == PM_FMT_SACCT_P ||
							ev->files[i].format == PM_FMT_SACCT_TABLE))
			parse_structured(ev, i);
	for (size_t i = 0; i < ev->nfiles; i++)
		if (ev->files[i].status == PM_ST_OK && ev->files[i].format == PM_FMT_SCONTROL_JOB)
			parse_structured(ev, i);
	for (size_t i = 0; i < ev->nfiles; i++)
		if (!ev->files[i].node && node_from_path(ev, &ev->files[i]) < 0)
			return -1;
	if (set_aside_other_jobs(ev) < 0)
		return -1;
	record_in_local_zone(ev);
	/* syslog stamps have no year: the job's, when the accounting record gives it, is a
	 * better guess than the file's modification time (copies and checkouts reset that) */
	if (ev->job.start > 0 || ev->job.end > 0)
		for (size_t i = 0; i < ev->nfiles; i++)
			ev->files[i].tctx.year =
				year_of(ev->job.start > 0 ? ev->job.start : ev->job.end);
	else
		year_from_heads(ev);
	/* a rotated log's stamps without a year are before its rotation: the year of its name's
	 * day, or the one before for a day after it (line_time).  A month past the day is left
	 * for a file named for the day it starts (a job's, by the operator); logrotate's files
	 * of up to eleven months read right.  A collector's members are named by it. */
	for (size_t i = 0; i < ev->nfiles; i++) {
		struct pm_file *f = &ev->files[i];
		double day = f->kind_given ? 0 : rotated_day(f->name);
		if (day > 0) {
			f->tctx.year = year_of(day);
			f->rotated_until = day + 32 * 86400.0;
		}
	}
	if (ev->threads > 1 && ev->nfiles > 1) {
		if (parse_all(ev) < 0)
			return -1;
		for (size_t i = 0; i < ev->nfiles; i++)
			parsed_release(ev, &ev->files[i]);
	} else {
		ZSTD_DCtx *zd = NULL;

		for (size_t i = 0; i < ev->nfiles; i++) {
			if (task_file(&ev->files[i]) && ev->files[i].carry &&
			    tasks_taken(ev, i, &zd)) {
				/* applied from its bundle's record */
			} else if (parsed_later(&ev->files[i])) {
				parse_structured(ev, i);
			}
			parsed_release(ev, &ev->files[i]);
		}
		ZSTD_freeDCtx(zd);
	}

	if (ev->rs->scratch && hs_clone_scratch(ev->rs->scratch, &s.scratch) != HS_SUCCESS)
		goto out;
	s.md = pcre2_match_data_create(32, NULL);
	if (!s.md)
		goto out;
	/* Once scanned, a bundle member's bytes are not read again when the evidence has task
	 * records or collected bundles (placement reads file heads only for a folder with
	 * neither, att_place.c): they are freed then, which keeps the peak of a merge of
	 * thousands of bundles to their observations. */
	if (ev->threads > 1 && ev->nfiles > 1) {
		if (scan_par(&s) < 0)
			goto out;
	} else {
		for (size_t i = 0; i < ev->nfiles; i++) {
			if (i && (ev->ntasks || ev->ncollect))
				pm_file_release(&ev->files[i - 1]);
			if (!scannable(&ev->files[i]))
				continue;
			if (ev->files[i].carry) {
				struct scanned r = {0};
				int c = scanned_begin(&ev->files[i], &r);

				if (c == 0)
					c = carried(ev, i, ev->nodes, ev->nnodes, &s.zd, &r);
				if (c > 0 && !in_order(ev, &r)) {
					scanned_undo(&ev->files[i], &r);
					c = 0;
				}
				if (c > 0)
					c = merge_file(&s, &r) < 0 ? -1 : 1;
				ev->ncarried += c > 0;
				scanned_clear(&r);
				if (c < 0)
					goto out;
				if (c > 0)
					continue;
			}
			if (scan_file(&s, i) < 0)
				goto out;
		}
		if (ev->nfiles && (ev->ntasks || ev->ncollect))
			pm_file_release(&ev->files[ev->nfiles - 1]);
	}
	record_zone_refine(ev);
	record_zone_launch(ev);
	if (eval_conditions(&s) < 0)
		goto out;
	/* node names learned while scanning (NCCL prefixes, syslog hosts) may name files that
	 * had no node yet: place them, and what was observed in them */
	for (size_t i = 0; i < ev->nfiles; i++) {
		struct pm_file *f = &ev->files[i];
		if (f->node || node_from_path(ev, f) < 0 || !f->node)
			continue;
		for (size_t k = 0; k < ev->nobs; k++)
			if (ev->obs[k].file == i && !ev->obs[k].node &&
			    !(ev->obs[k].node = strdup(f->node)))
				goto out;
	}
	rc = 0;
out:
	scan_free(&s);
	return rc;
}

char *pm_obs_line(const struct pm_obs *o, struct hs_scratch **scratch)
{
	/* the second line of defence: redacted before pm_utf8_clean, which would hide a colour
	 * code in front of a token */
	char *l = pm_redact_span_reuse(o->raw ? o->raw : "", o->raw ? strlen(o->raw) : 0, scratch);

	if (l)
		pm_utf8_clean(l);
	return l;
}

const char *pm_obs_summary(const struct pm_evidence *ev, const struct pm_obs *o,
			   char buf[PM_OBS_SUMMARY_MAX])
{
	fill_summary(&ev->rs->rules[o->rule], o, buf);
	pm_utf8_clean(buf);
	return buf;
}
