/*
 * att_place.c - where a hand-gathered folder says things happened (ATTRIBUTION.md,
 * "Placement in a hand-gathered folder").  Without the plugin's records, the folder's own
 * words name the node: a node-level file named after its host (porter.dmesg), the host
 * fields of the lines in it (uname, a shell prompt, Slurm's "ON NODE", Open MPI's "Host:"),
 * and when all of them name one host, what happened without a node happened there.  Node
 * names that differ only by case are one node.  This only places: it never raises a
 * confidence, and what it places from the user's own text excludes no node by itself.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "attribute.h"
#include "input.h"

/* Generic words of file names and log fields that name no host (and what a kernel's or a
 * console's capture is named for: "console.log" names no host; the tool that gathered it:
 * "pdsh-dmesg.txt" neither; nor the thread or the note a person pasted a log into:
 * "issue.md" holding a dmesg excerpt, read as a kernel log, is no host called "issue":
 * read-paste-thread-file-name-no-host). */
static const char *const not_hosts[] = {
	"dmesg",  "kernel",   "kern",	 "syslog",  "messages", "journal",   "journalctl",
	"nvidia", "smi",      "nvsmi",	 "node",    "nodes",	"host",	     "hosts",
	"log",	  "logs",     "slurm",	 "job",	    "jobs",	"train",     "training",
	"output", "stderr",   "stdout",	 "err",	    "error",	"errors",    "out",
	"worker", "rank",     "master",	 "main",    "head",	"localhost", "bmc",
	"sel",	  "ipmi",     "lspci",	 "ps",	    "dimm",	"dmidecode", "edac",
	"mcelog", "sinfo",    "squeue",	 "sacct",   "scontrol", "uname",     "run",
	"test",	  "tmp",      "debug",	 "info",    "all",	"gpu",	     "gpus",
	"cuda",	  "nccl",     "mpi",	 "mpirun",  "launcher", "torchrun",  "srun",
	"sbatch", "python",   "unknown", "none",    "null",	"ubuntu",    "root",
	"user",	  "admin",    "server",	 "machine", "local",	"linux",     "console",
	"serial", "crash",    "panic",	 "oops",    "boot",	"pstore",    "vmcore",
	"kmsg",	  "klog",     "trace",	 "excerpt", "hardware", "paste",     "netconsole",
	"full",	  "system",   "snippet", "pdsh",    "clush",	"dsh",	     "issue",
	"issues", "post",     "posts",	 "comment", "comments", "thread",    "forum",
	"reply",  "question", "answer",	 "notes",   "note",	"readme",    "report",
	"ticket", "bug",      "email",	 "mail",    "chat",	NULL,
};

/* Words of a file name that say it holds a node-level source. */
static const char *const node_words[] = {
	"dmesg",      "kern",	"syslog",    "messages",    "journal",	 "nvidia-smi",
	"nvidia_smi", "nvsmi",	"bmc",	     "sel",	    "ipmi",	 "lspci",
	"ps",	      "dimm",	"dmidecode", "edac",	    "edac-util", "mcelog",
	"uname",      "ibstat", "ibstatus",  "ibv_devinfo", NULL,
};

static bool alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Whether S (L bytes) can be a host name: a letter or digit first, then letters, digits,
 * dots and hyphens, not a generic word, and not a rank's folder. */
static bool hostname_ok(const char *s, size_t l)
{
	if (l < 2 || l > 100 || !alnum(s[0]) || !alnum(s[l - 1]))
		return false;
	for (size_t i = 0; i < l; i++)
		if (!alnum(s[i]) && s[i] != '-' && s[i] != '.')
			return false;
	for (size_t i = 0; not_hosts[i]; i++)
		if (strlen(not_hosts[i]) == l && !strncasecmp(s, not_hosts[i], l))
			return false;
	return !(l > 4 && !strncasecmp(s, "rank", 4) && s[4] >= '0' && s[4] <= '9');
}

/* The length of the longest node-level word the text at P starts with, bounded on the
 * right (edac-util before edac); 0 none. */
static size_t node_word_len(const char *p)
{
	size_t best = 0;

	for (size_t i = 0; node_words[i]; i++) {
		size_t l = strlen(node_words[i]);
		if (l > best && !strncasecmp(p, node_words[i], l) && !alnum(p[l]))
			best = l;
	}
	return best;
}

static bool node_word_at(const char *p)
{
	return node_word_len(p) > 0;
}

/* Whether S (L bytes) holds a node-level word as one of its parts (dmesg-output). */
static bool has_node_word(const char *s, size_t l)
{
	for (size_t i = 0; i < l; i++)
		if ((i == 0 || !alnum(s[i - 1])) && node_word_at(s + i) &&
		    (i + strcspn(s + i, "-_.") <= l))
			return true;
	return false;
}

static const char *host_of(const struct att *a, const char *node);

/* Whether NAME is shaped as a cluster's node names are: a letter and a digit (gpu07,
 * node-3); trainer, my or 2026-12-03 are not. */
static bool host_shaped(const char *name)
{
	bool digit = false, letter = false;

	for (const char *q = name; *q; q++) {
		digit |= *q >= '0' && *q <= '9';
		letter |= (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z');
	}
	return digit && letter;
}

/* Whether a host a file's name gives is taken: shaped as a node's name; or one word alone
 * before a node-level source's word or a folder (raven.dmesg, longma.bmc-sel.txt,
 * raven/dmesg.txt: WHOLE); or one the evidence knows otherwise (a node of the job's record,
 * a host the files' lines name; none when A is NULL, before they are read).  A plain word
 * joined to the node-level word by a hyphen or an underscore is the user's
 * (trainer-journal.json, my_dmesg.txt) and names none; so are words joined by a hyphen
 * with no digit among them (ecc-loop.txt, node-check.log, gpu-checks/dmesg.txt: what the
 * gatherer named a check or a loop for, where a node's name of several parts carries its
 * number, dgx-a100-03). */
static bool name_host_ok(const struct att *a, const char *name, bool whole)
{
	return host_shaped(name) || (whole && !strchr(name, '-')) ||
	       (a && (host_of(a, name) || pm_att_job_node(a, name)));
}

/*
 * The host a node-level file's name gives: HOST.WORD..., HOST-WORD..., HOST_WORD... or
 * HOST/WORD... where WORD names a node-level source (or, for a file read as a kernel log or
 * GPU state, HOST.EXT), when name_host_ok takes it.  The job's output files name no host
 * (train.log is not one).  WORD-HOST names are word_host's.
 */
static bool file_host(const struct att *a, const struct pm_file *f, char *out, size_t len)
{
	const char *n = f->name, *base = strrchr(n, '/');
	bool node_src = f->source == PM_SRC_KERNEL_LOG || f->source == PM_SRC_GPU_STATE;
	size_t l;

	base = base ? base + 1 : n;
	if (base != n && (node_src || node_word_at(base))) {
		/* HOST/...: the first folder shaped as a node's name or known, else a deeper
		 * one so (sweep/tk77/dmesg.txt, nodes/gpu07/kern.log: the per-node folder
		 * inside the gatherer's), else the first folder as one word alone
		 * (raven/dmesg.txt) */
		for (const char *q = n; q < base; q += l + 1) {
			l = strcspn(q, "/");
			if (hostname_ok(q, l) && l < len) {
				snprintf(out, len, "%.*s", (int)l, q);
				if (name_host_ok(a, out, false))
					return true;
			}
		}
		l = strcspn(n, "/");
		if (hostname_ok(n, l) && l < len) {
			snprintf(out, len, "%.*s", (int)l, n);
			return name_host_ok(a, out, true);
		}
	}
	for (const char *p = base + 1; *p; p++) {
		if (*p != '.' && *p != '-' && *p != '_')
			continue;
		l = (size_t)(p - base);
		if (!(node_word_at(p + 1) || (node_src && *p == '.' && p == strchr(base, '.'))))
			continue;
		if (hostname_ok(base, l) && l < len && !memchr(base, '.', l) &&
		    !has_node_word(base, l)) {
			/* a word alone before an extension (node-check.log read as a kernel
			 * log) is a host only as the evidence knows it or shaped as one: the
			 * name of a note or a check as often as a node's */
			snprintf(out, len, "%.*s", (int)l, base);
			return name_host_ok(a, out, *p == '.' && node_word_at(p + 1));
		}
	}
	return false;
}

/* How a host's spelling was learnt: Slurm's step lines name the node as Slurm is configured
 * with it, then its task lines, then anything else; a file's name last (SP_FILE: only a
 * name gave it, until a line or a record names it too). */
enum spell { SP_FILE, SP_OTHER, SP_TASK, SP_STEP };

/* The hash of host name S (L bytes) in any case (FNV-1a over its lower-case bytes). */
static size_t host_hash(const char *s, size_t l)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < l; i++) {
		unsigned char c = (unsigned char)s[i];
		h = (h ^ (c >= 'A' && c <= 'Z' ? c + 32 : c)) * 1099511628211ULL;
	}
	return (size_t)h;
}

/* The slot of HIDX that holds host S (L bytes), in any case, or the empty one where it
 * would go. */
static size_t host_slot(const struct att *a, const char *s, size_t l)
{
	size_t m = a->hcap - 1, i = host_hash(s, l) & m;

	for (; a->hidx[i]; i = (i + 1) & m) {
		const char *n = a->hosts[a->hidx[i] - 1].name;
		if (strlen(n) == l && !strncasecmp(n, s, l))
			break;
	}
	return i;
}

/* The index of host S (L bytes) among HOSTS, in any case, or -1. */
static long host_find(const struct att *a, const char *s, size_t l)
{
	size_t i;

	if (!a->hcap)
		return -1;
	i = host_slot(a, s, l);
	return a->hidx[i] ? (long)a->hidx[i] - 1 : -1;
}

/* Index HOSTS anew in a table twice the size: kept at most half full. */
static int host_rehash(struct att *a)
{
	size_t cap = a->hcap ? 2 * a->hcap : 64, *v = calloc(cap, sizeof(*v));

	if (!v)
		return -1;
	free(a->hidx);
	a->hidx = v;
	a->hcap = cap;
	for (size_t k = 0; k < a->nhosts; k++) {
		const char *n = a->hosts[k].name;
		a->hidx[host_slot(a, n, strlen(n))] = k + 1;
	}
	return 0;
}

/* Note host S (L bytes); a spelling learnt from a better source replaces a case variant. */
static int add_host(struct att *a, const char *s, size_t l, enum spell sp)
{
	/* a host already noted first: a case variant of a name that passed hostname_ok passes
	 * it too, and a system log names its host on every line */
	long k = host_find(a, s, l);

	if (k >= 0) {
		if ((int)sp > a->hosts[k].spell) {
			memcpy(a->hosts[k].name, s, l);
			a->hosts[k].spell = (int)sp;
		}
		return 0;
	}
	if (!hostname_ok(s, l) || l >= sizeof(a->hosts[0].name))
		return 0;
	if (a->nhosts == a->ahosts &&
	    pm_grow((void **)&a->hosts, &a->ahosts, sizeof(*a->hosts)) < 0)
		return -1;
	if (2 * (a->nhosts + 1) > a->hcap && host_rehash(a) < 0)
		return -1;
	snprintf(a->hosts[a->nhosts].name, sizeof(a->hosts[0].name), "%.*s", (int)l, s);
	a->hosts[a->nhosts].spell = (int)sp;
	a->hidx[host_slot(a, s, l)] = a->nhosts + 1;
	a->nhosts++;
	return 0;
}

static size_t tok(const char *p, const char *e)
{
	size_t l = 0;

	while (p + l < e && (alnum(p[l]) || p[l] == '-' || p[l] == '.' || p[l] == '_'))
		l++;
	while (l && p[l - 1] == '.')
		l--;
	return l;
}

static const char *skip_sp(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

static bool month_at(const char *p, const char *e)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";

	if (e - p < 15 || p[3] != ' ')
		return false;
	for (size_t i = 0; i < 36; i += 3)
		if (!strncmp(p, months + i, 3))
			return true;
	return false;
}

/* The first LIT in [P, E) that starts a word (at P, or after a character of no name). */
static const char *word(const char *p, const char *e, const char *lit)
{
	size_t l = strlen(lit);

	for (const char *q = p; q < e && (q = memmem(q, (size_t)(e - q), lit, l)); q++)
		if (q == p || !(alnum(q[-1]) || q[-1] == '-' || q[-1] == '_' || q[-1] == '.'))
			return q;
	return NULL;
}

/* Q starts a field of the line S, not a sentence's words: "Failed to connect to remote host:
 * Connection refused" (gRPC's, curl's) has a lower-case word before it, where Open MPI's
 * fields ("Host:", "Local host:"), torchrun's table and a logger's or a paste's prefix before
 * them ("- ERROR - ", a time, a sentence's full stop when lines are squashed) have none. */
static bool field_start(const char *s, const char *q)
{
	const char *w;

	while (q > s && (q[-1] == ' ' || q[-1] == '\t'))
		q--;
	for (w = q; w > s && w[-1] >= 'a' && w[-1] <= 'z'; w--)
		;
	return w == q || (w > s && w[-1] != ' ' && w[-1] != '\t');
}

/* The field at Q names the other end of a connection, not the host that reports: Open MPI's
 * help texts put "Peer host:" or "Remote host:" beside the reporter's "Local host:" (the
 * openib BTL's retry count exceeded, the TCP BTL's failed connect), and a paste may keep the
 * peer's line alone.  That host did not print the message: the report is not placed on it. */
static bool peer_field(const char *s, const char *q)
{
	static const char *const words[] = {"Peer", "peer", "Remote", "remote"};
	const char *w;

	while (q > s && (q[-1] == ' ' || q[-1] == '\t'))
		q--;
	for (w = q; w > s && alnum(w[-1]); w--)
		;
	for (size_t i = 0; i < sizeof words / sizeof *words; i++)
		if ((size_t)(q - w) == strlen(words[i]) && !memcmp(w, words[i], (size_t)(q - w)))
			return true;
	return false;
}

static int add_rank(struct att *a, long r)
{
	if (r < 0 || r >= 1 << 20)
		return 0;
	return pm_rankset_push(&a->hranks, &a->nhranks, &a->ahranks, (int)r);
}

/* Rank R's host H (L bytes), as a failure report names it (rank_host). */
static int note_rank_host(struct att *a, long r, const char *h, size_t l)
{
	if (r < 0 || r >= 1 << 20 || !l || l >= sizeof(a->rhost[0].host) || !hostname_ok(h, l))
		return 0;
	if (a->nrhost == a->arhost &&
	    pm_grow((void **)&a->rhost, &a->arhost, sizeof(*a->rhost)) < 0)
		return -1;
	a->rhost[a->nrhost].rank = (int)r;
	snprintf(a->rhost[a->nrhost++].host, sizeof(a->rhost[0].host), "%.*s", (int)l, h);
	return 0;
}

/* Rank R, named by a failure report that names its host H too (L bytes). */
static int add_rank_host(struct att *a, long r, const char *h, size_t l)
{
	if (add_rank(a, r) < 0)
		return -1;
	return note_rank_host(a, r, h, l);
}

/*
 * The key strings of line_hosts and line_rank that [P, E) holds, a K_ bit each, found in one
 * pass: most lines hold none, and a search for each (some fifteen memmem a line) was most of
 * a hand-gathered folder's placement.  A bit says only that its string occurs in the line;
 * the checks it lets run are the same as without it.
 */
enum {
	K_LINUX = 1 << 0,  /* "Linux " */
	K_STARS = 1 << 1,  /* "*** " */
	K_SRUN = 1 << 2,   /* "srun: error: " */
	K_HOST = 1 << 3,   /* "Host", "host" */
	K_LIST = 1 << 4,   /* "SLURM", "node", "Node": in each of nodelist_host's keys */
	K_ONNODE = 1 << 5, /* " on node " */
	K_RANK = 1 << 6,   /* "rank" */
	K_PROC = 1 << 7,   /* "Process name: [" */
	K_AT = 1 << 8,	   /* '@' */
	K_MPI = 1 << 9,	   /* "MPI_Abort(" */
	K_HYDRA = 1 << 10, /* "RUNNING AT " */
};

/* The key strings' first two bytes, each pair a bit of its own: a byte whose bits meet the
 * next byte's can start one ('@' alone is a key and starts it whatever follows).  Most bytes
 * of a line (blanks and common letters among them) are passed over by one AND. */
enum {
	B_LI = 1,
	B_ST = 2,
	B_SR = 4,
	B_HO = 8,
	B_SL = 16,
	B_NO = 32,
	B_ON = 64,
	B_RA = 128,
	B_PR = 256,
	B_AT = 512,
	B_MP = 1024,
	B_RU = 2048
};
static const unsigned short key_first[256] =
	{['L'] = B_LI, ['*'] = B_ST, ['s'] = B_SR, ['H'] = B_HO, ['h'] = B_HO,
	 ['S'] = B_SL, ['N'] = B_NO, ['n'] = B_NO, [' '] = B_ON, ['r'] = B_RA,
	 ['P'] = B_PR, ['@'] = B_AT, ['M'] = B_MP, ['R'] = B_RU};
static const unsigned short key_second[256] =
	{['i'] = B_LI, ['*'] = B_ST, ['r'] = B_SR | B_PR, ['o'] = B_HO | B_NO | B_ON,
	 ['L'] = B_SL, ['a'] = B_RA, ['P'] = B_MP,	  ['U'] = B_RU};

/* The key string that starts at P (N bytes to the line's end), as a K_ bit; 0 none. */
static unsigned key_at(const char *p, size_t n)
{
	if (!(key_first[(unsigned char)*p] &
	      ((n > 1 ? key_second[(unsigned char)p[1]] : 0) | B_AT)))
		return 0;
	switch (*p) {
	case 'L':
		return n >= 6 && !memcmp(p, "Linux ", 6) ? K_LINUX : 0;
	case '*':
		return n >= 4 && !memcmp(p, "*** ", 4) ? K_STARS : 0;
	case 's':
		return n >= 13 && !memcmp(p, "srun: error: ", 13) ? K_SRUN : 0;
	case 'H':
	case 'h':
		return n >= 4 && !memcmp(p + 1, "ost", 3) ? K_HOST : 0;
	case 'S':
		return n >= 5 && !memcmp(p, "SLURM", 5) ? K_LIST : 0;
	case 'N':
	case 'n':
		return n >= 4 && !memcmp(p + 1, "ode", 3) ? K_LIST : 0;
	case ' ':
		return n >= 9 && !memcmp(p, " on node ", 9) ? K_ONNODE : 0;
	case 'r':
		return n >= 4 && !memcmp(p, "rank", 4) ? K_RANK : 0;
	case 'P':
		return n >= 15 && !memcmp(p, "Process name: [", 15) ? K_PROC : 0;
	case '@':
		return K_AT;
	case 'M':
		return n >= 10 && !memcmp(p, "MPI_Abort(", 10) ? K_MPI : 0;
	case 'R':
		return n >= 11 && !memcmp(p, "RUNNING AT ", 11) ? K_HYDRA : 0;
	}
	return 0;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

/*
 * The positions of [P, E) where key_at could find a key, sixteen bytes at a time: each byte
 * is given the pair bits its two nibbles allow (a superset of key_first's, and key_second's
 * for the next byte), and a position is kept where the two meet or the byte is '@'.  Reads
 * up to 17 bytes past E, which the caller keeps zero (PM_ATT_KEY_PAD).
 */
__attribute__((target("ssse3"))) static unsigned keys_ssse3(const char *p, const char *e)
{
	/* pair classes: 1 Li, 2 **, 4 sr/Pr, 8 Ho/ho/No/no/" o", 16 SL, 32 ra, 64 MP, 128 RU
	 * (as a signed char, -128) */
	const __m128i f_lo =
		_mm_setr_epi8(4 | 8, 0, 32 | -128, 4 | 16, 0, 0, 0, 0, 8, 0, 2, 0, 1, 64, 8, 0);
	const __m128i f_hi = _mm_setr_epi8(0, 0, 2 | 8, 0, 1 | 8 | 64, 4 | 16 | -128, 8, 4 | 32, 0,
					   0, 0, 0, 0, 0, 0, 0);
	const __m128i s_lo = _mm_setr_epi8(64, 32, 4, 0, 0, -128, 0, 0, 0, 1, 2, 0, 16, 0, 0, 8);
	const __m128i s_hi =
		_mm_setr_epi8(0, 0, 2, 0, 16, 64 | -128, 1 | 8 | 32, 4, 0, 0, 0, 0, 0, 0, 0, 0);
	const __m128i nib = _mm_set1_epi8(0x0f), at = _mm_set1_epi8('@'),
		      zero = _mm_setzero_si128();
	unsigned k = 0;

	for (const char *q = p; q < e; q += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)q);
		__m128i w = _mm_loadu_si128((const __m128i *)(const void *)(q + 1));
		__m128i f = _mm_and_si128(_mm_shuffle_epi8(f_lo, _mm_and_si128(v, nib)),
					  _mm_shuffle_epi8(f_hi, _mm_and_si128(_mm_srli_epi16(v, 4),
									       nib)));
		__m128i g = _mm_and_si128(_mm_shuffle_epi8(s_lo, _mm_and_si128(w, nib)),
					  _mm_shuffle_epi8(s_hi, _mm_and_si128(_mm_srli_epi16(w, 4),
									       nib)));
		unsigned m =
			~(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(f, g), zero)) |
			(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, at));

		m &= 0xffff;
		if (e - q < 16)
			m &= (1u << (e - q)) - 1;
		for (; m; m &= m - 1) {
			const char *c = q + __builtin_ctz(m);
			k |= key_at(c, (size_t)(e - c));
		}
	}
	return k;
}
#endif

unsigned pm_att_line_keys(const char *p, const char *e, bool vector)
{
	unsigned k = 0;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	if (vector && __builtin_cpu_supports("ssse3"))
		return keys_ssse3(p, e);
#else
	(void)vector;
#endif
	for (; p < e; p++)
		k |= key_at(p, (size_t)(e - p));
	return k;
}

/* Whether Q, the ") on node " of MPICH's abort report in the line from P, closes its head
 * "Abort(CODE": the code a number, "Abort" a word of its own (not MPI_Abort's end). */
static bool world_abort(const char *p, const char *q)
{
	const char *d = q;

	while (d > p && d[-1] >= '0' && d[-1] <= '9')
		d--;
	if (d > p && d[-1] == '-')
		d--;
	return d < q && d - p >= 6 && !memcmp(d - 6, "Abort(", 6) &&
	       (d - 6 == p || !(alnum(d[-7]) || d[-7] == '_'));
}

static size_t clean(char *out, size_t len, const char *p, const char *e);

/* Notes whether the line line_hosts reads, one of a launcher's report or torchrun's summary,
 * was under srun's label: as a launcher srun started with --label prints it
 * (report_unlabelled). */
static void report_label(struct att *a)
{
	struct pm_peel pe;
	char b[512];
	size_t n;

	if (a->rep_label)
		return;
	if (!a->hraw) {
		a->rep_label = a->hlabel;
		return;
	}
	/* a terminal's colours around the label, as the scan reads it */
	n = clean(b, sizeof(b), a->hraw, a->hrawe);
	pm_peel(a->hrawf->format, b, n, NULL, &pe);
	a->rep_label = pe.label >= 0;
}

/*
 * The rank a launcher's failure report names: Open MPI's "Process name: [[J,S],R]" (the
 * first process that exited non-zero; Open MPI 5's PRRTE names the job by its namespace,
 * "[prterun-HOST-PID@J,R]"), mpirun's "rank N with PID P on node HOST exited",
 * Open MPI's "MPI_ABORT was invoked on rank N in communicator ..." and MPICH's (and Intel
 * MPI's, Cray MPICH's) "application called MPI_Abort(COMM, CODE) - process N" (the rank
 * that aborted the job), MPICH's and Intel MPI's "Abort(CODE) on node N (rank M in comm C):"
 * (N the rank in the world, M in the communicator), torchrun's summary "rank : R" (a root
 * cause's, not its other failures').  S is the line without its leading blanks.
 */
static int line_rank(struct att *a, const char *p, const char *e, const char *s, unsigned k)
{
	const char *q;
	char *x;
	long r;

	if ((k & K_PROC) && (q = word(s, e, "Process name: [")) && (q += 15) < e) {
		const char *c = NULL;

		if (*q == '[') { /* [[J,S],R] */
			q = memchr(q, ']', (size_t)(e - q));
			c = q && q + 1 < e && q[1] == ',' ? q + 1 : NULL;
		} else { /* [NSPACE@J,R]: a namespace of a name's characters, '@', the job */
			const char *at = q + tok(q, e);
			if (at > q && at < e && *at == '@') {
				for (c = at + 1; c < e && *c >= '0' && *c <= '9'; c++)
					;
				c = c > at + 1 && c < e && *c == ',' ? c : NULL;
			}
		}
		if (c) {
			r = strtol(c + 1, &x, 10);
			if (x > c + 1 && x < e && *x == ']') {
				a->lrep = true;
				report_label(a);
				return add_rank(a, r);
			}
		}
	}
	if ((k & K_ONNODE) && (q = memmem(p, (size_t)(e - p), ") on node ", 10)) &&
	    world_abort(p, q)) {
		long m;

		r = strtol(q + 10, &x, 10);
		if (x > q + 10 && e - x > 7 && !strncmp(x, " (rank ", 7) &&
		    (m = strtol(x + 7, &x, 10)) >= 0 && e - x > 9 && !strncmp(x, " in comm ", 9))
			return add_rank(a, r);
	}
	if ((k & K_RANK) &&
	    (q = memmem(p, (size_t)(e - p), "MPI_ABORT was invoked on rank ", 30))) {
		r = strtol(q + 30, &x, 10);
		if (x > q + 30 && x < e && !strncmp(x, " in communicator ", 17))
			return add_rank(a, r);
	}
	if ((k & K_MPI) && (q = memmem(p, (size_t)(e - p), "MPI_Abort(", 10)) &&
	    (q = memmem(q, (size_t)(e - q), ") - process ", 12))) {
		r = strtol(q + 12, &x, 10);
		if (x > q + 12 && skip_sp(x, e) == e)
			return add_rank(a, r);
	}
	if ((k & K_RANK) && (q = memmem(p, (size_t)(e - p), "rank ", 5)) &&
	    (q == p || q[-1] == ' ')) {
		const char *on;

		r = strtol(q + 5, &x, 10);
		if (x > q + 5 && x < e && !strncmp(x, " with PID ", 10) &&
		    (on = memmem(x, (size_t)(e - x), " on node ", 9)) &&
		    memmem(x, (size_t)(e - x), " exited", 7)) {
			a->lrep = true;
			report_label(a);
			return add_rank_host(a, r, on + 9, tok(on + 9, e));
		}
	}
	/* torchrun's summary "rank : R (local_rank: L)": at the line's head, or after a logger's
	 * prefix (a field's start) when the local rank follows, the table's own shape */
	if ((k & K_RANK) && (q = word(s, e, "rank")) && e - q > 4 &&
	    (q == s || field_start(s, q))) {
		bool head = q == s;
		const char *v = skip_sp(q + 4, e);

		if (v < e && *v == ':') {
			v = skip_sp(v + 1, e);
			r = strtol(v, &x, 10);
			/* the table's host is the line before its rank; an entry of its
			 * sections is named once they are all read (torchrun_named) */
			if (x > v && (head ? x == e || *x == ' ' :
					     e - x >= 14 && !strncmp(x, " (local_rank: ", 14))) {
				if (a->tsect != TSECT_NONE && r >= 0 && r < 1 << 20) {
					if (a->ntroot == a->atroot &&
					    pm_grow((void **)&a->troot, &a->atroot,
						    sizeof(*a->troot)) < 0)
						return -1;
					report_label(a);
					a->troot[a->ntroot++] =
						(struct troot){.rank = (int)r,
							       .sum = a->tsum,
							       .other = a->tsect == TSECT_OTHER,
							       .time = a->ttime,
							       .file = a->tfile,
							       .from = a->tline,
							       .to = UINT64_MAX};
					return note_rank_host(a, r, a->hfield[0],
							      strlen(a->hfield[0]));
				}
				return add_rank_host(a, r, a->hfield[0], strlen(a->hfield[0]));
			}
		}
	}
	return 0;
}

/*
 * MPICH's launcher, hydra (also Intel MPI's and MVAPICH2's mpiexec), reports each process
 * that ended badly in a banner of '=' lines: "=   RANK 13 PID 48211 RUNNING AT cn0417", then
 * the signal or exit code.  The rank and its host, named together; older releases print the
 * PID and host alone ("=   PID 48211 RUNNING AT cn0417"): the host only.  Q is where
 * "RUNNING AT " starts in the line [S, E); what precedes it is read backwards, so that a
 * logger's prefix before the banner's '=' does not matter.
 */
static int hydra_rank(struct att *a, const char *s, const char *q, const char *e)
{
	const char *h = q + 11, *b = q - 1, *x;
	size_t l = tok(h, e);
	long r = -1;

	if (!l || skip_sp(h + l, e) != e || b <= s || *b != ' ')
		return 0;
	for (x = b; x > s && x[-1] >= '0' && x[-1] <= '9'; x--)
		;
	if (x == b || x - s < 4 || memcmp(x - 4, "PID ", 4))
		return 0;
	b = x - 4; /* "PID " */
	if (b - s >= 7 && b[-1] == ' ') {
		for (x = b - 1; x > s && x[-1] >= '0' && x[-1] <= '9'; x--)
			;
		if (x < b - 1 && x - s >= 5 && !memcmp(x - 5, "RANK ", 5)) {
			r = strtol(x, NULL, 10);
			b = x - 5;
		}
	}
	while (b > s && (b[-1] == ' ' || b[-1] == '\t'))
		b--;
	if (b == s || b[-1] != '=')
		return 0;
	if (add_host(a, h, l, SP_OTHER) < 0)
		return -1;
	if (r < 0)
		return 0;
	a->lrep = true;
	report_label(a);
	return add_rank_host(a, r, h, l);
}

/* Where the host's name starts after AT (the text to E): past "hostname" / "host name" and a ':'
 * or '=', or past "running on [host |node ]"; with *RUN set for the latter; NULL when
 * neither. */
static const char *host_key(const char *at, const char *e, bool *run)
{
	static const char *const named[] = {"hostname", "host name", NULL};
	static const char *const running[] = {"running on host ", "running on node ", "running on ",
					      NULL};
	size_t n = (size_t)(e - at);

	for (size_t i = 0; named[i]; i++) {
		size_t kl = strlen(named[i]);
		if (n > kl && !strncasecmp(at, named[i], kl)) {
			const char *q = skip_sp(at + kl, e);
			*run = false;
			return q < e && (*q == ':' || *q == '=') ? skip_sp(q + 1, e) : NULL;
		}
	}
	for (size_t i = 0; running[i]; i++) {
		size_t kl = strlen(running[i]);
		if (n > kl && !strncasecmp(at, running[i], kl)) {
			*run = true;
			return at + kl;
		}
	}
	return NULL;
}

/*
 * A job script's echo of the host it runs on: "Hostname: HOST", "hostname = HOST",
 * "HOSTNAME=HOST", "Host name: HOST"; "Running on HOST", "Running on host HOST", "Running on
 * node HOST" (either case first), at the line's start or a field's (after a logger's
 * prefix).  After "Running on" the name must start with a lower-case letter and hold a
 * digit, as a cluster's node names do: "Running on CPU", "Running on 4 nodes", "Running on
 * A100", "Running on 8xA100" name none.  The name ends the line, a word or a clause; a range
 * (gpu[01-04]) names none.
 */
static int script_host(struct att *a, const char *s, const char *e, unsigned k)
{
	bool run = false;
	const char *q = host_key(s, e, &run), *w = NULL;
	size_t l, digits = 0;

	/* at a field's start: after a logger's prefix ("INFO root: Hostname: ...") */
	if (!q && (k & K_HOST)) {
		static const char *const keys[] = {"hostname", "Hostname", "host name", "Host name",
						   NULL};
		for (size_t i = 0; keys[i] && !q; i++)
			if ((w = word(s, e, keys[i])) && w > s && field_start(s, w))
				q = host_key(w, e, &run);
	}
	if (!q && (w = memmem(s, (size_t)(e - s), "unning on ", 10)) && w > s + 1 &&
	    (w[-1] == 'R' || w[-1] == 'r') && field_start(s, w - 1))
		q = host_key(w - 1, e, &run);
	if (!q || !(l = tok(q, e)))
		return 0;
	if (q + l < e && !strchr(" \t,.;:", q[l]))
		return 0;
	if (run) {
		if (*q < 'a' || *q > 'z')
			return 0;
		for (size_t i = 0; i < l; i++)
			digits += q[i] >= '0' && q[i] <= '9';
		if (!digits)
			return 0;
	}
	return add_host(a, q, l, SP_OTHER);
}

/*
 * A job script's echo of its allocation, when it is one host: Slurm's variables
 * (SLURM_JOB_NODELIST, SLURM_NODELIST, SLURMD_NODENAME, as `NAME=HOST` or `NAME: HOST`) and
 * the words a script prints before them ("node(s): HOST", "nodelist: HOST").  A list or a
 * range (gpu[01-04], a,b) names no single host: the name must end the line or a word; such
 * an echo, or a node count above one (SLURM_NNODES=2), says the job ran on several nodes
 * (echo_many): the folder's one host is then not where everything happened (only_host).
 * The job's own text, it can only withhold a placement, never make one.
 */
static int nodelist_host(struct att *a, const char *s, const char *e)
{
	static const char *const keys[] = {"SLURM_JOB_NODELIST", "SLURM_NODELIST",
					   "SLURMD_NODENAME",	 "node(s)",
					   "nodelist",		 "Nodelist",
					   "NodeList",		 NULL};
	static const char *const counts[] = {"SLURM_NNODES=", "SLURM_JOB_NUM_NODES=", NULL};
	const char *q;
	size_t l;

	for (size_t i = 0; keys[i]; i++) {
		if (!(q = word(s, e, keys[i])))
			continue;
		q += strlen(keys[i]);
		if (q < e && *q == '=' && keys[i][0] == 'S')
			q++;
		else if (q < e && *q == ':')
			q = skip_sp(q + 1, e);
		else
			continue;
		l = tok(q, e);
		if (l && (q + l == e || q[l] == ' ' || q[l] == '\t'))
			return add_host(a, q, l, SP_OTHER);
		/* a range or a list (gpu[01-04], a,b): several nodes */
		if (l && q + l < e && (q[l] == '[' || q[l] == ','))
			a->echo_many = true;
	}
	/* SLURM_NNODES=2, SLURM_JOB_NUM_NODES=4 */
	for (size_t i = 0; counts[i]; i++)
		if ((q = word(s, e, counts[i])) && strtol(q + strlen(counts[i]), NULL, 10) > 1)
			a->echo_many = true;
	return 0;
}

/*
 * srun's report of a task that failed of itself: "srun: error: HOST: task N: Exited with
 * exit code C" (C not 0) or a crash signal ("Segmentation fault", "Aborted", "Bus error",
 * "Floating point exception", "Illegal instruction"; "Out Of Memory", the kernel's OOM
 * killer's, in its cgroup, not Slurm's), T at "task".  Not "Terminated" nor
 * "Killed": srun's own teardown of the others once one failed; nor "Exited with exit code
 * 143" or "137", a wrapper shell's 128 + SIGTERM or SIGKILL, the same teardown seen through
 * the shell that ran the task (pm_att_slurm_signal_exit).  Several tasks in one report
 * ("tasks 0-3: ..."), or reports on two hosts, name no one host.
 */
/* Whether srun's report of a host's tasks, M..E after "tasks 0-3: ", is Slurm's ending of
 * them ("Terminated", "Killed", a shell's exit 143 or 137), not a failure of their own. */
static bool slurm_ended(const char *m, const char *e)
{
	return (e - m >= 10 && !strncmp(m, "Terminated", 10)) ||
	       (e - m >= 6 && !strncmp(m, "Killed", 6)) ||
	       (e - m > 22 && !strncmp(m, "Exited with exit code ", 22) &&
		pm_att_slurm_signal_exit(strtol(m + 22, NULL, 10)));
}

/*
 * Whether every task srun's report T..E ("task 3: ...", "tasks 0-1,3: ...") names is one its
 * lines report twice, differently (att_ranks.c srun_gainsaid, read before the hosts are): a
 * job that prints "srun: error: gq08: task 3: Exited with exit code 1" before srun's own
 * "gq08: tasks 2-3: Terminated" must not make task 3 the one that failed of itself, nor make
 * two such tasks of one (review35 S4, F4: before, the forged line set srun_many, and the
 * cap on a syslog's host srun gainsays, or on a host prefix, fell).  Nor does a line of such
 * tasks alone say their host's tasks were ended by Slurm: which of the two is srun's is not
 * known (trust-srun-task-two-ends-nccl-setup-rank).
 */
static bool srun_contested(const struct att *a, const char *t, const char *e)
{
	const char *p = t;
	bool any = false;

	if (!a->nsrun_bad)
		return false;
	while (p < e && *p >= 'a' && *p <= 'z')
		p++;
	if (p == t || p >= e || *p++ != ' ')
		return false;
	while (p < e && *p >= '0' && *p <= '9') {
		long lo = 0, hi;
		for (; p < e && *p >= '0' && *p <= '9' && lo < 1 << 20; p++)
			lo = lo * 10 + (*p - '0');
		hi = lo;
		if (p < e && *p == '-') {
			hi = 0;
			for (p++; p < e && *p >= '0' && *p <= '9' && hi < 1 << 20; p++)
				hi = hi * 10 + (*p - '0');
		}
		if (hi < lo || hi - lo > 4096)
			return false;
		for (long r = lo; r <= hi; r++)
			if (!pm_rankset_has(a->srun_bad, a->nsrun_bad, (int)r))
				return false;
		any = true;
		if (p < e && *p == ',')
			p++;
	}
	return any && p < e && *p == ':';
}

static const char *const srun_sig[] = {"Segmentation fault",  "Aborted",
				       "Bus error",	      "Floating point exception",
				       "Illegal instruction", "Out Of Memory"};

int pm_att_srun_how(const char *m, const char *e)
{
	if (slurm_ended(m, e))
		return 2;
	if (e - m > 22 && !strncmp(m, "Exited with exit code ", 22))
		return strtol(m + 22, NULL, 10) != 0;
	for (size_t i = 0; i < sizeof(srun_sig) / sizeof(srun_sig[0]); i++)
		if ((size_t)(e - m) >= strlen(srun_sig[i]) &&
		    !strncmp(m, srun_sig[i], strlen(srun_sig[i])))
			return 1;
	return 0;
}

static void srun_failed(struct att *a, const char *h, size_t l, const char *t, const char *e)
{
	const char *m;
	char *x;
	long n;
	bool failed = false, ended, contested;
	long k;

	/* "tasks 0-3: Terminated", "task 4: Killed": the host's tasks Slurm ended once
	 * another failed (prefix_gainsaid) */
	m = memmem(t, (size_t)(e - t), ": ", 2);
	ended = m && slurm_ended(m + 2, e);
	contested = srun_contested(a, t, e);
	if ((k = host_find(a, h, l)) >= 0) {
		a->hosts[k].srun = true;
		a->hosts[k].ended |= ended && !contested;
		a->hosts[k].contested |= contested;
		a->td_hit |= ended;
	}
	if (ended || contested)
		return;
	if (e - t > 6 && !strncmp(t, "tasks ", 6)) {
		m = memmem(t, (size_t)(e - t), ": ", 2);
		if (m && (!strncmp(m + 2, "Exited with exit code ", 22) || m[2] == 'S' ||
			  m[2] == 'A' || m[2] == 'B' || m[2] == 'F' || m[2] == 'I'))
			a->srun_many = true;
		return;
	}
	if (e - t < 6 || strncmp(t, "task ", 5))
		return;
	n = strtol(t + 5, &x, 10);
	if (x == t + 5 || e - x < 2 || strncmp(x, ": ", 2) || n < 0 || n >= 1 << 20)
		return;
	m = x + 2;
	if (e - m > 22 && !strncmp(m, "Exited with exit code ", 22))
		failed = strtol(m + 22, NULL, 10) != 0;
	for (size_t i = 0; i < sizeof(srun_sig) / sizeof(srun_sig[0]) && !failed; i++)
		failed = (size_t)(e - m) >= strlen(srun_sig[i]) &&
			 !strncmp(m, srun_sig[i], strlen(srun_sig[i]));
	if (!failed || l >= sizeof(a->srun_host) || !hostname_ok(h, l))
		return;
	if (a->srun_host[0] && (strlen(a->srun_host) != l || strncasecmp(a->srun_host, h, l)))
		a->srun_many = true;
	else if (a->srun_host[0] && a->srun_task != (int)n)
		a->srun_many = true;
	snprintf(a->srun_host, sizeof(a->srun_host), "%.*s", (int)l, h);
	a->srun_task = (int)n;
}

/* The host srun's report of a task names in P..E ("srun: error: HOST: task N: ..."), *L
 * bytes; NULL when the line holds none. */
static const char *srun_task_host(const char *p, const char *e, size_t *l)
{
	const char *q = memmem(p, (size_t)(e - p), "srun: error: ", 13);

	if (!q || !(*l = tok(q + 13, e)) || (size_t)(e - (q + 13)) < *l + 6 ||
	    strncmp(q + 13 + *l, ": task", 6))
		return NULL;
	return q + 13;
}

/* Days from 1970-01-01 to the civil date Y-M-D (Howard Hinnant's days_from_civil). */
static long days_civil(long y, long m, long d)
{
	y -= m <= 2;
	long era = (y >= 0 ? y : y - 399) / 400, yoe = y - era * 400;
	long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
}

/*
 * Where an entry of torchrun's summary ends: at the next entry's "[1]:", a section's head, a
 * rule or a summary's head (S, N bytes, is such a line), its rows (exitcode, error_file,
 * traceback) lying between its rank line and there (pm_att_summary_unnamed).
 */
static void torchrun_rows(struct att *a, const char *s, size_t n)
{
	struct troot *t = a->ntroot ? &a->troot[a->ntroot - 1] : NULL;
	bool ends = (*s == '[' && s[n - 1] == ':') ||
		    (n >= 10 && (*s == '=' || *s == '-' || *s == '*')) ||
		    (n >= 11 && !memcmp(s, "Root Cause", 10) && s[n - 1] == ':') ||
		    (n == 9 && !memcmp(s, "Failures:", 9)) ||
		    (n == 15 && !memcmp(s, "Other Failures:", 15)) ||
		    (n > 7 && !memcmp(s + n - 7, " FAILED", 7) && !memchr(s, ' ', n - 7));

	if (t && ends && t->to == UINT64_MAX && t->from != UINT64_MAX && t->file == a->tfile &&
	    a->tline != UINT64_MAX && a->tline > t->from)
		t->to = a->tline;
}

/*
 * torchrun's failure summary, line by line: which section of its table [S, E) is in (its
 * "Root Cause (first observed failure):", 1.9's "Root Cause:"; "Failures:", 1.9's "Other
 * Failures:"; a rule of '=', '-' or '*' ends either), and an entry's "time : Y-M-D_H:M:S"
 * (the agent's clock, whole seconds), kept for the entry's rank (line_rank).
 */
static void torchrun_section(struct att *a, const char *s, const char *e)
{
	size_t n = (size_t)(e - s);
	const char *q;
	int f[6];

	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (!n)
		return;
	torchrun_rows(a, s, n);
	if (n > 7 && !memcmp(s + n - 7, " FAILED", 7) && !memchr(s, ' ', n - 7)) {
		a->tsum++; /* "train.py FAILED": a summary's head */
		a->tsect = TSECT_NONE;
	} else if (n >= 11 && !memcmp(s, "Root Cause", 10) && s[n - 1] == ':') {
		a->tsect = TSECT_ROOT;
		a->ttime = 0;
	} else if ((n == 9 && !memcmp(s, "Failures:", 9)) ||
		   (n == 15 && !memcmp(s, "Other Failures:", 15))) {
		a->tsect = TSECT_OTHER;
		a->ttime = 0;
	} else if (n >= 10 && (*s == '=' || *s == '-' || *s == '*')) {
		size_t i = 1;
		while (i < n && s[i] == *s)
			i++;
		if (i == n)
			a->tsect = TSECT_NONE;
	} else if (a->tsect != TSECT_NONE && n > 10 && !memcmp(s, "exitcode", 8) &&
		   *(q = skip_sp(s + 8, s + n)) == ':') {
		/* the entry's exit code, after its rank: -15 is the agent's SIGTERM */
		q = skip_sp(q + 1, s + n);
		if (a->ntroot && a->troot[a->ntroot - 1].sum == a->tsum && s + n - q >= 3 &&
		    !memcmp(q, "-15", 3) && (s + n - q == 3 || q[3] == ' '))
			a->troot[a->ntroot - 1].stopped = true;
	} else if (a->tsect != TSECT_NONE && *s == '[' && s[n - 1] == ':') {
		a->ttime = 0; /* "[1]:", an entry */
	} else if (a->tsect != TSECT_NONE && n > 24 && !memcmp(s, "time", 4) &&
		   *(q = skip_sp(s + 4, s + n)) == ':') {
		q = skip_sp(q + 1, s + n);
		if (s + n - q == 19 &&
		    sscanf(q, "%4d-%2d-%2d_%2d:%2d:%2d", &f[0], &f[1], &f[2], &f[3], &f[4],
			   &f[5]) == 6 &&
		    f[1] >= 1 && f[1] <= 12 && f[2] >= 1 && f[2] <= 31 && f[3] < 24 && f[4] < 60 &&
		    f[5] < 61)
			a->ttime = (double)days_civil(f[0], f[1], f[2]) * 86400 + f[3] * 3600 +
				   f[4] * 60 + f[5];
	}
}

/*
 * The tasks a JAX (XLA, TensorFlow) coordination service lists as the ones that failed it,
 * one "/job:NAME/replica:R/task:T" a line after its head: the barrier's "Some timed out
 * task names:" (the tasks that never reached it) and the heartbeat's "The following tasks
 * are unhealthy (stopped sending heartbeats):".  Task T is process T of the job, its rank.
 * Any other line ends the list.
 */
static int coord_tasks(struct att *a, const char *s, const char *e)
{
	size_t n = (size_t)(e - s);
	char *x;

	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (a->tlist && n > 20 && !memcmp(s, "/job:", 5)) {
		const char *t = memmem(s, n, "/task:", 6);
		long r = t ? strtol(t + 6, &x, 10) : -1;
		if (t && x > t + 6 && x == s + n && memmem(s, (size_t)(t - s), "/replica:", 9))
			return add_rank(a, r);
	}
	a->tlist = (n > 26 && !memcmp(s + n - 26, "Some timed out task names:", 26)) ||
		   (n > 29 && !memcmp(s + n - 29, "(stopped sending heartbeats):", 29));
	return 0;
}

/*
 * The text of the line [P, E) that torchrun's summary and a coordination service's task list
 * are read from (torchrun_section, coord_tasks): its wrappers peeled, as the scan peels them
 * (a logger's prefix before each line of the summary).  Only a line that may be one of
 * theirs: inside a summary or a list, or whose text ends as their heads do (':', "FAILED";
 * '|', a box frame's); false for the others, which change nothing there.
 */
static bool summary_text(const struct att *a, const char *p, const char *e, const char **ts,
			 const char **te)
{
	const char *x = e;
	struct pm_peel pe;

	while (x > p && (x[-1] == ' ' || x[-1] == '\t'))
		x--;
	if (a->tsect == TSECT_NONE && !a->tlist &&
	    (x == p || (x[-1] != ':' && x[-1] != 'D' && x[-1] != '|')))
		return false;
	pm_peel(PM_FMT_APP, p, (size_t)(e - p), NULL, &pe);
	*ts = skip_sp(p + pe.skip, p + pe.end);
	*te = p + pe.end;
	return true;
}

/* Whether the line [P, E) holds srun's wording under srun's label ("0: srun: error: gpu400:
 * task 3: ..."), whatever wraps it, as the scan reads it (scan.c, labelled_srun). */
static bool srun_labelled(const struct pm_file *f, const char *p, const char *e)
{
	struct pm_peel pe;

	/* "srun:" alone: a terminal's colours may stand before its blank */
	if (!memmem(p, (size_t)(e - p), "srun:", 5))
		return false;
	pm_peel(f->format, p, (size_t)(e - p), NULL, &pe);
	return pe.label >= 0 || pe.rank >= 0;
}

/*
 * The host one line names, the forms a hand-gathered folder holds: `uname -a` (Linux HOST
 * VERSION), a shell prompt (user@HOST:path$), Slurm's "*** STEP|JOB N ON HOST" and "srun:
 * error: HOST: task", Open MPI's and torchrun's "Host: HOST" / "host : HOST", mpirun's "on
 * node HOST exited", a syslog or journal line's host field, the host prefix of a line.
 */
static int line_hosts(struct att *a, const char *p, const char *e, bool syslog)
{
	const char *q, *s = skip_sp(p, e), *ts, *te;
	unsigned k = pm_att_line_keys(p, e, true);
	size_t l;

	memcpy(a->hfield[0], a->hfield[1], sizeof(a->hfield[0]));
	a->hfield[1][0] = '\0';
	if (summary_text(a, p, e, &ts, &te)) {
		torchrun_section(a, ts, te);
		if (coord_tasks(a, ts, te) < 0)
			return -1;
	}

	/* uname -a: "Linux HOST 6.1.0-18-amd64 #1 SMP ...", not the kernel's boot banner at the
	 * head of every dmesg, "Linux version 6.8.0-49-generic (buildd@lcy02) ... #49-Ubuntu" */
	if ((k & K_LINUX) && (q = word(s, e, "Linux ")) && (l = tok(q + 6, e)) && q + 7 + l < e &&
	    !(l == 7 && !memcmp(q + 6, "version", 7)) && q[6 + l] == ' ' && q[7 + l] >= '0' &&
	    q[7 + l] <= '9' && memmem(q + 7 + l, (size_t)(e - q - 7 - l), " #", 2) &&
	    add_host(a, q + 6, l, SP_OTHER) < 0)
		return -1;
	if ((k & K_STARS) && (q = memmem(p, (size_t)(e - p), "*** ", 4)) &&
	    (!strncmp(q + 4, "STEP ", 5) || !strncmp(q + 4, "JOB ", 4))) {
		const char *on = memmem(q, (size_t)(e - q), " ON ", 4);
		if (on && (l = tok(on + 4, e)) && on + 4 + l < e && on[4 + l] == ' ' &&
		    add_host(a, on + 4, l, SP_STEP) < 0)
			return -1;
	}
	/* srun labels its tasks' output only, never its own reports: under its label
	 * ("0: srun: error: gpu400: task 3: ...") a task printed it, the job's text */
	if ((k & K_SRUN) && !a->hlabel && (q = srun_task_host(p, e, &l))) {
		if (add_host(a, q, l, SP_TASK) < 0)
			return -1;
		srun_failed(a, q, l, q + l + 2, e);
	}
	/* a field: at the line's head or after another field's separator, never a sentence's
	 * words ("Failed to connect to remote host: Connection refused", gRPC's and curl's) */
	if ((k & K_HOST) && ((q = word(s, e, "Host")) || (q = word(s, e, "host"))) &&
	    field_start(s, q) && !peer_field(s, q) && (q = skip_sp(q + 4, e)) < e && *q == ':') {
		q = skip_sp(q + 1, e);
		l = tok(q, e);
		if (l && (q + l == e || q[l] == ' ') && add_host(a, q, l, SP_OTHER) < 0)
			return -1;
		if (l && l < sizeof(a->hfield[1]) && (q + l == e || q[l] == ' '))
			snprintf(a->hfield[1], sizeof(a->hfield[1]), "%.*s", (int)l, q);
	}
	if ((k & K_LIST) && nodelist_host(a, s, e) < 0)
		return -1;
	if (s < e && script_host(a, s, e, k) < 0)
		return -1;
	if ((k & K_ONNODE) && (q = memmem(p, (size_t)(e - p), " on node ", 9)) &&
	    (l = tok(q + 9, e)) && (size_t)(e - q) > 9 + l + 7 &&
	    !strncmp(q + 9 + l, " exited", 7) && add_host(a, q + 9, l, SP_OTHER) < 0)
		return -1;
	if ((k & (K_RANK | K_PROC)) && line_rank(a, p, e, s, k) < 0)
		return -1;
	if ((k & K_HYDRA) && (q = memmem(s, (size_t)(e - s), "RUNNING AT ", 11)) &&
	    hydra_rank(a, s, q, e) < 0)
		return -1;
	/* pdsh's report of a remote command that failed: "pdsh@HOST: HOST2: ssh exited with
	 * exit code N" (the host pdsh ran on, the host whose command exited) */
	if ((k & K_AT) && (q = word(s, e, "pdsh@")) && (l = tok(q + 5, e)) && q + 5 + l + 2 < e &&
	    !strncmp(q + 5 + l, ": ", 2)) {
		const char *h2 = q + 5 + l + 2;
		size_t l2 = tok(h2, e);

		if (add_host(a, q + 5, l, SP_OTHER) < 0)
			return -1;
		if (l2 && h2 + l2 + 2 < e &&
		    !strncmp(h2 + l2, ": ssh exited with exit code ", 28) &&
		    add_host(a, h2, l2, SP_OTHER) < 0)
			return -1;
	}
	/* a prompt: user@HOST:~/path$ or user@HOST:/path# */
	for (q = p; (k & K_AT) && (q = memchr(q, '@', (size_t)(e - q))); q++) {
		if (q == p || !(alnum(q[-1]) || q[-1] == '_'))
			continue;
		l = tok(q + 1, e);
		if (l && q + 1 + l + 1 < e && q[1 + l] == ':' &&
		    (q[2 + l] == '~' || q[2 + l] == '/')) {
			const char *d = q + 2 + l;
			while (d < e && *d != ' ' && *d != '$' && *d != '#')
				d++;
			if (d < e && (*d == '$' || *d == '#') &&
			    add_host(a, q + 1, l, SP_OTHER) < 0)
				return -1;
			break;
		}
	}
	/* syslog and journal: "Mon DD HH:MM:SS[.frac][Z] HOST prog..." */
	if (syslog && month_at(p, e)) {
		q = p + 4;
		while (q < e && *q != ' ' && *q != '\t' && q - p < 7)
			q++; /* " 7" or "17" */
		q = skip_sp(q, e);
		while (q < e && *q != ' ')
			q++;
		if (q < e && q[-1] != ':' && (l = tok(q + 1, e)) && q + 1 + l < e &&
		    q[1 + l] == ' ' && add_host(a, q + 1, l, SP_OTHER) < 0)
			return -1;
	}
	return 0;
}

/* Where a part of torchrun's failure summary starts at Q (after a blank, in a line from
 * P): one of its heads ("Root Cause", "Failures:", "Other Failures:"), an entry ("[0]:"), a
 * rule of ten or more '=' or '-', or a field's name and its colon ("host : ", "rank : ",
 * "exitcode : "): the length of a head or a rule, else 1; 0 none. */
static size_t summary_part(const char *p, const char *q, const char *e)
{
	static const char *const fields[] = {"time",	 "host",       "rank",
					     "exitcode", "error_file", "traceback"};
	const char *x;

	if (q > p && q[-1] != ' ')
		return 0;
	if (e - q >= 15 && !memcmp(q, "Other Failures:", 15))
		return 15;
	if ((e - q >= 10 && !memcmp(q, "Root Cause", 10)) ||
	    (e - q >= 9 && !memcmp(q, "Failures:", 9)))
		return 1;
	if (*q == '=' || *q == '-') {
		for (x = q; x < e && *x == *q; x++)
			;
		return x - q >= 10 ? (size_t)(x - q) : 0;
	}
	if (*q == '[') {
		for (x = q + 1; x < e && *x >= '0' && *x <= '9'; x++)
			;
		return x > q + 1 && e - x >= 2 && x[0] == ']' && x[1] == ':' ? 1 : 0;
	}
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		size_t l = strlen(fields[i]);
		if ((size_t)(e - q) > l && !memcmp(q, fields[i], l) &&
		    *(x = skip_sp(q + l, e)) == ':' && x < e)
			return 1;
	}
	return 0;
}

/*
 * torchrun's failure summary pasted without its line breaks, on one line ("...ChildFailedError:
 * ===...=== train.py FAILED ---...--- Failures: <NO_OTHER_FAILURES> ---...--- Root Cause
 * (first observed failure): [0]: time : ... host : gpu12 rank : 3 (local_rank: 3) exitcode :
 * -9 (pid: 123) error_file: <N/A> traceback : Signal 9 (SIGKILL) received by PID 123 ===...")
 * is read as the lines it was, each part from one of its heads, entries, rules or fields to
 * the next, so that its host and rank are named together as in the table.  Only a line that
 * holds the root cause's head and an entry's host and rank fields after it; where its parts
 * lie in the file is not known then (as in a terminal-wrapped file: a->tline).  1 when the
 * line was read so, 0 when it is no such line, -1 on error.
 */
static int summary_squashed(struct att *a, const char *p, const char *e, bool syslog)
{
	char part[1024 + PM_ATT_KEY_PAD];
	const char *rc = word(p, e, "Root Cause"), *q, *end;
	uint64_t tline = a->tline;
	int ret = 0;

	if (!rc || !memmem(rc, (size_t)(e - rc), "exitcode", 8))
		return 0;
	for (q = rc + 10; q < e && !(*q == 'h' && summary_part(p, q, e)); q++)
		;
	for (end = q; end < e && !(*end == 'r' && summary_part(p, end, e)); end++)
		;
	if (q >= e || end >= e)
		return 0; /* no entry's host and rank fields after the head */
	a->tline = UINT64_MAX;
	for (q = skip_sp(p, e); q < e && ret == 0; q = skip_sp(end, e)) {
		size_t l = summary_part(p, q, e), n;

		if (l > 1) /* a rule, or a head of two words: a part of its own */
			end = q + l;
		else
			for (end = q + 1; end < e && !summary_part(p, end, e); end++)
				;
		n = (size_t)(end - q);
		while (n && (q[n - 1] == ' ' || q[n - 1] == '\t'))
			n--;
		if (n > sizeof(part) - PM_ATT_KEY_PAD - 1)
			n = sizeof(part) - PM_ATT_KEY_PAD - 1;
		memcpy(part, q, n);
		memset(part + n, 0, PM_ATT_KEY_PAD + 1);
		ret = line_hosts(a, part, part + n, syslog);
	}
	a->tline = tline;
	return ret < 0 ? -1 : 1;
}

/* The hosts the line [P, E) names (line_hosts), torchrun's squashed summary read as its
 * lines (summary_squashed). */
static int text_hosts(struct att *a, const char *p, const char *e, bool syslog)
{
	int rc = summary_squashed(a, p, e, syslog);

	return rc == 0 ? line_hosts(a, p, e, syslog) : rc < 0 ? -1 : 0;
}

/* The line [P, E) as the scanner reads it, into OUT (NUL-terminated; at most LEN - 1 bytes
 * kept): terminal escapes dropped, a box frame's sides ("\u2502 ... \u2502") and trailing blanks
 * taken off, and what pm_text_clean makes ASCII made so (a web page's no-break spaces between
 * a table's field and its colon: torchrun's "host      : gpu07").  Returns its length. */
static size_t clean(char *out, size_t len, const char *p, const char *e)
{
	static const char bar[] = "\xe2\x94\x82";
	size_t n = 0;

	if (e - p >= 3 && !memcmp(p, bar, 3))
		p += 3;
	while (p < e && n + 1 < len) {
		/* up to the next escape in one copy: most lines have none */
		size_t lim = (size_t)(e - p) < len - 1 - n ? (size_t)(e - p) : len - 1 - n;
		const char *x = memchr(p, '\x1b', lim);
		size_t run = x ? (size_t)(x - p) : lim;

		memcpy(out + n, p, run);
		n += run;
		p += run;
		if (p == e || n + 1 == len)
			break;
		if (p + 1 < e && p[1] == '[') {
			for (p += 2; p < e && !((*p >= '@' && *p <= '~') && *p != '['); p++)
				;
			p++;
			continue;
		}
		out[n++] = *p++;
	}
	if (pm_text_typographic(out, n))
		n = pm_text_clean(out, n, out);
	while (n && (out[n - 1] == ' ' || out[n - 1] == '\t'))
		n--;
	if (n >= 3 && !memcmp(out + n - 3, bar, 3))
		n -= 3;
	while (n && (out[n - 1] == ' ' || out[n - 1] == '\t'))
		n--;
	out[n] = '\0';
	return n;
}

#define RECORD_HEAD 4096 /* bytes of a record's message read for host fields */

/* The host fields of the line [P, E) of a job's output when it is a structured logger's
 * record (JSON lines, logfmt: pm_peel): in its message, its escapes undone, each of its lines
 * read as one (a record's fields around it name no host here, as a shell's prefix does not).
 * *TAKEN: it was one. */
static int record_hosts(struct att *a, const struct pm_file *f, const char *p, const char *e,
			char *line, size_t cap, bool syslog, bool *taken)
{
	size_t head = (size_t)(e - p) < 600 ? (size_t)(e - p) : 600, n;
	char dec[RECORD_HEAD];
	struct pm_peel pe;
	int rc = 0;

	*taken = false;
	if ((f->format != PM_FMT_APP && f->format != PM_FMT_TORCHRUN &&
	     f->format != PM_FMT_PYSPY) ||
	    (!memchr(p, '{', head) && !memchr(p, '=', head)))
		return 0;
	pm_peel(f->format, p, (size_t)(e - p), NULL, &pe);
	if (!(*taken = pe.record))
		return 0;
	n = pe.end - pe.skip < sizeof(dec) ? pe.end - pe.skip : sizeof(dec);
	if (pe.quoted)
		n = pm_unquote(p + pe.skip, n, dec);
	else
		memcpy(dec, p + pe.skip, n);
	for (const char *q = dec, *end = dec + n, *nl; q < end && !rc; q = nl + 1) {
		size_t l;

		for (nl = q; nl < end && *nl != '\n' && *nl != '\r'; nl++)
			;
		l = clean(line, cap - PM_ATT_KEY_PAD, q, nl);
		memset(line + l, 0, PM_ATT_KEY_PAD + 1); /* line_keys reads past the end */
		/* a record's message under a task's label or rank tag is the task's text */
		a->hlabel = pe.label >= 0 || pe.rank >= 0;
		rc = text_hosts(a, line, line + l, syslog);
		a->hlabel = false;
	}
	return rc;
}

/*
 * A line P..LE of file F whose parallel shell's prefix is a name spelt as a host (two
 * letters at least, then a digit) with a rank tag right after it ("gpu201: [rank3]: ..."
 * from pdsh or DeepSpeed's launcher; a tab for the blank): the name is noted in RANKPFX,
 * NRANKPFX counting the names that differ (2: several).  A program's name before its
 * message ("python3: can't open ...") carries no rank tag, and a rank tag before a name
 * ("[rank0]: collect2: error: ...") makes that name a program the rank ran.
 */
static void rank_prefix_seen(struct att *a, const struct pm_file *f, const char *p, const char *le)
{
	char buf[1024];
	const char *q, *end;
	struct pm_peel pe;
	size_t n = 0, l;

	if (a->nrankpfx > 1 || !memmem(p, (size_t)(le - p), "[rank", 5))
		return;
	/* a terminal's colours taken off (ESC [ ... final byte), as the scan reads the line */
	for (const char *c = p; c < le && n + 1 < sizeof(buf); c++) {
		if (*c == '\033' && c + 1 < le && c[1] == '[') {
			for (c += 2; c < le && !(*c >= '@' && *c <= '~'); c++)
				;
			continue;
		}
		buf[n++] = *c;
	}
	buf[n] = '\0';
	end = buf + n;
	/* each layer of the stack ("trainer-1  | gpu201: [rank3]: ..."), as prefix_host */
	for (const char *s = buf; s < end; s = q) {
		pm_peel(f->format, s, (size_t)(end - s), NULL, &pe);
		if (!pe.node || !pe.node_weak || pe.node < s || pe.node >= end ||
		    pe.node_len >= sizeof(a->rankpfx))
			return;
		/* pdsh's and DeepSpeed's "host: ", GNU parallel's "host<TAB>": a compose
		 * service's "trainer-1  | " names a container, not a host */
		const char *sep = pe.node + pe.node_len;
		bool shell = sep < end && (*sep == ':' || *sep == '\t');

		for (q = sep; q < end && strchr(": |\t", *q); q++)
			;
		if (!shell || memchr(sep, '|', (size_t)(q - sep)))
			continue; /* the next layer, if any */
		l = strcspn(pe.node, "0123456789");
		if (end - q < 6 || strncmp(q, "[rank", 5) || !isdigit((unsigned char)q[5]))
			continue;
		if (l < 2 || l >= pe.node_len)
			return;
		if (!a->nrankpfx) {
			memcpy(a->rankpfx, pe.node, pe.node_len);
			a->rankpfx[pe.node_len] = '\0';
			a->nrankpfx = 1;
		} else if (strlen(a->rankpfx) != pe.node_len ||
			   strncmp(a->rankpfx, pe.node, pe.node_len)) {
			a->nrankpfx = 2;
		}
		return;
	}
}

/* The hosts and ranks a file's lines name: its first 4 MiB, read again without touching its
 * coverage or digest (pm_file_head), NUL-terminated so no comparison runs past its end. */
static int file_hosts(struct att *a, struct pm_file *f)
{
	size_t cap = f->bytes < (4u << 20) ? (size_t)f->bytes : (4u << 20), len = 0;
	char *buf, line[1024 + PM_ATT_KEY_PAD], dec[4096];
	bool rec = false, wrapped;
	struct pm_paste shape;
	/* host fields are read where the file is a system log by its format or its name (its
	 * node-level word, read once at init: SRCNAME) */
	bool syslog = f->format == PM_FMT_SYSLOG || a->srcname[f - a->ev->files];
	int rc = 0;

	if (f->status != PM_ST_OK || f->format == PM_FMT_BINARY || f->format == PM_FMT_EMPTY ||
	    !cap)
		return 0;
	if (!(buf = malloc(cap + 1)))
		return -1;
	if (pm_file_head(f, buf, cap, &len) < 0) {
		free(buf);
		return 0; /* the scan read it: nothing more to say */
	}
	pm_file_paste(f, &shape);
	wrapped = shape.wrap;
	if (shape.wrap) {
		/* a line a terminal's width broke is read as one, as the scan reads it: the
		 * paste's shape is taken off every line here, and none is left to take off */
		len = pm_paste_strip(buf, len, &shape, buf);
		shape = (struct pm_paste){.escaped = shape.escaped};
	}
	buf[len] = '\0';
	a->hfield[0][0] = a->hfield[1][0] = '\0';
	a->tsect = TSECT_NONE;
	a->ttime = 0;
	a->tlist = false;
	a->tfile = (uint32_t)(f - a->ev->files);
	for (const char *p = buf, *e = buf + len; p < e && rc == 0;) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		const char *le = nl ? nl : e;
		if (le > p && le[-1] == '\r')
			le--;
		const char *next = nl ? nl + 1 : e;
		uint64_t at = (uint64_t)(p - buf);
		/* where the line is, for the summary's entries (torchrun_rows): not known in a
		 * file a terminal's width broke, whose lines were joined */
		a->tline = wrapped ? UINT64_MAX : at;
		/* as the scan reads it: HTML's escapes undone, without the paste's shape (a quote,
		 * line numbers) */
		if (shape.escaped) {
			size_t m = (size_t)(le - p) < sizeof(dec) ? (size_t)(le - p) : sizeof(dec);

			m = pm_html_unescape(p, m, dec);
			p = dec;
			le = dec + m;
		}
		p += pm_paste_skip(p, (size_t)(le - p), &shape);
		struct pm_prefix px;
		size_t hl;
		/* past the prefixes the scanner strips (pdsh's "host: ", a launcher's rank) */
		pm_prefix_parse(f->format, p, (size_t)(le - p), &px);
		rank_prefix_seen(a, f, p, le);
		if (px.node_len)
			rc = add_host(a, px.node, px.node_len, SP_OTHER);
		/* NCCL's prefix names its node under a logger's or a container's wrapper too */
		else if ((hl = pm_nccl_node(f->format, p, (size_t)(le - p), line, sizeof(line))))
			rc = add_host(a, line, hl, SP_OTHER);
		if (!rc)
			rc = record_hosts(a, f, p, le, line, sizeof(line), syslog, &rec);
		if (!rc && !rec) {
			size_t sk = px.skip < (size_t)(le - p) ? px.skip : 0;
			size_t n = clean(line, sizeof(line) - PM_ATT_KEY_PAD, p + sk, le);

			memset(line + n, 0, PM_ATT_KEY_PAD + 1); /* line_keys reads past the end */
			a->hlabel = srun_labelled(f, p, le);
			a->hraw = p;
			a->hrawe = le;
			a->hrawf = f;
			rc = text_hosts(a, line, line + n, syslog);
			a->hlabel = false;
			a->hraw = NULL;
		}
		a->tline = UINT64_MAX;
		if (!a->td_seen && a->td_hit) {
			a->td_seen = true;
			a->td_file = (size_t)(f - a->ev->files);
			a->td_off = wrapped ? UINT64_MAX : at;
		}
		p = next;
	}
	free(buf);
	return rc;
}

static const char *host_of(const struct att *a, const char *node)
{
	long k = node ? host_find(a, node, strlen(node)) : -1;

	return k >= 0 ? a->hosts[k].name : NULL;
}

/*
 * The host a node-level file's name gives after its word: WORD-HOST or WORD_HOST, with an
 * extension or none (dmesg-gpu07.txt, ibstat_node13.log, edac-util-hpc-r3n17.txt).  What
 * follows the word may hold more of a tool's name or words of the gatherer's own
 * (dmesg-full-...), so a host the folder names otherwise is looked for at each part's start,
 * the longest first; failing that, the rest is taken as a host only when it is one part
 * with a letter and a digit, as a cluster's node names have (dmesg-before.txt and
 * dmesg-2024-05-01.txt name none).  Into OUT as the folder spells it; false when none.
 */
static bool word_host(const struct att *a, const struct pm_file *f, char *out, size_t len)
{
	const char *base = strrchr(f->name, '/'), *h, *e;
	size_t l, digits = 0, letters = 0;
	char name[128];

	base = base ? base + 1 : f->name;
	if (!(l = node_word_len(base)) || (base[l] != '-' && base[l] != '_'))
		return false;
	h = base + l + 1;
	e = h + strcspn(h, ".");
	for (const char *q = h; q < e; q++) {
		const char *x;
		if (q != h && q[-1] != '-' && q[-1] != '_')
			continue;
		if ((size_t)(e - q) >= sizeof(name) || !hostname_ok(q, (size_t)(e - q)))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(e - q), q);
		if ((x = host_of(a, name)) && strlen(x) < len) {
			snprintf(out, len, "%s", x);
			return true;
		}
	}
	for (const char *q = h; q < e; q++) {
		if (*q == '-' || *q == '_')
			return false;
		digits += *q >= '0' && *q <= '9';
		letters += (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z');
	}
	if (!digits || !letters || !hostname_ok(h, (size_t)(e - h)) || (size_t)(e - h) >= len)
		return false;
	snprintf(out, len, "%.*s", (int)(e - h), h);
	return true;
}

/*
 * Whether host H, which a file's name gives, is the name's word and no node of this job's
 * evidence: only a file's name gave it (no line, no record names it), the job's record lists
 * its nodes (all of them) or lines name hosts, and H is none of those nor spelt as they are
 * (stem_of_host's rule: dgx-b07.dmesg beside dgx-b03 is another node's log, latest.dmesg,
 * after/dmesg.txt or xid79-dmesg.txt a word of the user's).  Its file then names no node:
 * what it holds is not another node's for a word in its name.  With nothing else known the
 * name is all there is (longma.bmc-sel.txt) and stands.
 */
static bool name_word_only(const struct att *a, const char *h)
{
	const struct pm_jobinfo *job = &a->ev->job;
	size_t l = strcspn(h, "0123456789");
	bool known = job->nnodes > 0, stem = false;
	const char *x = host_of(a, h);

	if (!x || job->het_partial || (job->nnodes && pm_att_job_host(a, h)))
		return false;
	for (size_t i = 0; i < a->nhosts; i++) {
		const char *n = a->hosts[i].name;
		if (n == x && a->hosts[i].spell != SP_FILE)
			return false;
		if (a->hosts[i].spell == SP_FILE)
			continue;
		known = true;
		stem |= l >= 2 && h[l] && strcspn(n, "0123456789") == l && !strncasecmp(n, h, l);
	}
	for (size_t i = 0; !stem && l >= 2 && h[l] && i < job->nnodes; i++)
		stem = job->nodes[i] && strcspn(job->nodes[i], "0123456789") == l &&
		       !strncasecmp(job->nodes[i], h, l);
	return known && !stem;
}

/* Spell NODE (in place: the same length) as the one spelling of its host. */
static void respell(const struct att *a, char *node)
{
	const char *h = host_of(a, node);

	if (h && strcmp(h, node))
		memcpy(node, h, strlen(h));
}

/*
 * Node names that differ only by case are one node (host names are case-insensitive): every
 * name the attribution reads is spelt as the accounting record's node list spells it, else
 * as Slurm's step lines ("*** STEP N ON NODE") spell it, else its task lines ("srun: error:
 * NODE: task"), else as first seen (the folder's files in order, then the observations in
 * order).
 */
static int unify_case(struct att *a)
{
	struct pm_evidence *ev = a->ev;

	for (size_t k = 0; k < ev->nobs; k++) {
		const struct pm_obs *o = &ev->obs[a->order[k]];
		if (o->node && add_host(a, o->node, strlen(o->node), SP_OTHER) < 0)
			return -1;
	}
	for (size_t i = 0; i < a->nhosts; i++) {
		const char *n = pm_att_job_node(a, a->hosts[i].name);
		if (n && strlen(n) == strlen(a->hosts[i].name) && !strcasecmp(n, a->hosts[i].name))
			memcpy(a->hosts[i].name, n, strlen(n));
	}
	for (size_t i = 0; i < ev->nobs; i++)
		if (ev->obs[i].node)
			respell(a, ev->obs[i].node);
	for (size_t i = 0; a->placed && i < a->nplaced; i++)
		respell(a, a->placed[i].node);
	for (size_t i = 0; i < ev->nranks; i++)
		if (ev->ranks[i].node)
			respell(a, ev->ranks[i].node);
	return 0;
}

/* Whether NAME is spelt as one of the first N hosts: the same letters before its first
 * digit (gpu32 beside gpu31, hgx-b07 beside hgx-b12), two at least. */
static bool stem_of_host(const struct att *a, size_t n, const char *name)
{
	size_t l = strcspn(name, "0123456789");

	if (l < 2 || !name[l])
		return false;
	for (size_t i = 0; i < n; i++)
		if (strcspn(a->hosts[i].name, "0123456789") == l &&
		    !strncasecmp(a->hosts[i].name, name, l))
			return true;
	return false;
}

/*
 * The host a kept line's weak prefixes name (a parallel shell's "host: ", pm_peel): the scan
 * drops such a name unless the evidence knows the node (a word could read the same), and in
 * a hand-gathered folder nothing lists the job's nodes.  The line named that host, not the
 * folder's one host: placing it there would put another node's GPU on it.  The first weak
 * name of the line's stack spelt as one of the first N hosts (stem_of_host: a container's
 * name before pdsh's host, "trainer-1  | gpu32: ...", is passed over) goes to OUT; false
 * when there is none.
 */
static bool prefix_host(const struct att *a, size_t n, const struct pm_obs *o, char *out,
			size_t cap)
{
	const struct pm_file *f = &a->ev->files[o->file];
	const char *p = o->raw, *end = o->raw ? o->raw + strlen(o->raw) : NULL;
	struct pm_peel pe;

	for (int k = 0; p && p < end && k < 4; k++) {
		pm_peel(f->format, p, (size_t)(end - p), NULL, &pe);
		if (!pe.node || !pe.node_weak || pe.node < p || pe.node_len >= cap)
			return false;
		memcpy(out, pe.node, pe.node_len);
		out[pe.node_len] = '\0';
		if (stem_of_host(a, n, out))
			return true;
		/* the next layer: past the name and its separator (": ", "  | ") */
		for (p = pe.node + pe.node_len; p < end && strchr(": |\t", *p); p++)
			;
	}
	return false;
}

/* Whether X and Y name one host: case aside, and "n2.cluster" is n2. */
static bool same_host(const char *x, const char *y)
{
	size_t lx = strcspn(x, "."), ly = strcspn(y, ".");

	return !strcasecmp(x, y) || (lx == ly && (!x[lx] || !y[ly]) && !strncasecmp(x, y, lx));
}

/* Whether O is a line of the job's own output: untrusted, in a file whose name names no
 * node-level source (an operator's "pdsh dmesg > dmesg-all.txt" is the gatherer's, its
 * prefixes pdsh's). */
static bool job_text(const struct att *a, const struct pm_obs *o)
{
	return !o->trusted && !a->srcname[o->file];
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

int pm_att_src_names(struct att *a)
{
	/* a merge's files repeat a few names, a bundle's in turn (each node's dmesg.txt,
	 * train.log, ...): the last few names seen and their answers, tried first */
	enum { SEEN = 8 };
	struct {
		const char *name;
		bool word;
	} seen[SEEN];
	size_t nseen = 0, next = 0;

	if (!(a->srcname = calloc(a->ev->nfiles ? a->ev->nfiles : 1, sizeof(*a->srcname))))
		return -1;
	for (size_t i = 0; i < a->ev->nfiles; i++) {
		const char *b = base_name(a->ev->files[i].name);
		size_t k = 0;

		while (k < nseen && strcmp(seen[k].name, b))
			k++;
		if (k == nseen) {
			k = nseen < SEEN ? nseen++ : next++ % SEEN;
			seen[k].name = b;
			seen[k].word = has_node_word(b, strlen(b));
		}
		a->srcname[i] = seen[k].word;
	}
	return 0;
}

/* Whether the node NODE of a peeled line (at or after P) is slurmstepd's own
 * "slurmstepd-HOST: " (Slurm's words in the job's stderr), not a prefix the job printed. */
static bool stepd_host(const char *p, const char *node)
{
	static const char tag[] = "slurmstepd-";

	return (size_t)(node - p) >= sizeof(tag) - 1 &&
	       !memcmp(node - (sizeof(tag) - 1), tag, sizeof(tag) - 1);
}

/*
 * Whether Slurm's other reports place a task that failed of itself on host H: srun's
 * "srun: error: H: task(s) N: ..." other than its teardown's (slurm_ended), or the plugin's
 * record of a task on H (pm_att_own_failure).  A "slurmstepd-H: " line in the job's output
 * is Slurm's words where they do, and only text the job may have printed where they do not.
 */
static bool slurm_task_failed(const struct att *a, const char *h)
{
	const struct pm_evidence *ev = a->ev;
	char n[128];

	for (size_t i = 0; i < ev->ntasks; i++)
		if (ev->tasks[i].node && same_host(ev->tasks[i].node, h) &&
		    pm_att_own_failure(&ev->tasks[i]))
			return true;
	for (size_t i = 0; i < ev->nobs; i++) {
		const char *raw = ev->obs[i].raw, *e, *q, *m;
		size_t l;

		/* a task's lines that contradict each other, or a line not srun's own shape,
		 * are the job's text (pm_att_srun_trusted; review32 F08) */
		if (!raw || !strstr(raw, "srun: error: ") || !pm_att_srun_trusted(a, raw))
			continue;
		e = raw + strlen(raw);
		if (!(q = srun_task_host(raw, e, &l)) || l >= sizeof(n))
			continue;
		memcpy(n, q, l);
		n[l] = '\0';
		m = memmem(q + l + 6, (size_t)(e - (q + l + 6)), ": ", 2);
		if (same_host(n, h) && m && !slurm_ended(m + 2, e))
			return true;
	}
	return false;
}

/* Whether O's node is named only by a host prefix of the job's output, the job's own text:
 * a parallel shell's "host: " (pm_peel's weak names), Open MPI's "[host:pid] ", NCCL's
 * "host:pid:tid ", an MPI rank tag's host, "slurmstepd-host: " that Slurm's other reports do
 * not back (slurm_task_failed); no rank, not a trusted source's, not srun's own words.  *WEAK: the prefix is a weak one (a shell's), which Slurm's
 * reports may gainsay (prefix_gainsaid); a library's prefix is read as printed on its own
 * host, and only capped (pm_att_srun_ended). */
static bool prefix_only_node(const struct att *a, const struct pm_obs *o, bool *weak)
{
	const struct pm_file *f = &a->ev->files[o->file];
	const char *p = o->raw, *end = o->raw ? o->raw + strlen(o->raw) : NULL;
	struct pm_peel pe;
	char h[128];

	if (!o->node || o->rank >= 0 || !job_text(a, o)) /* the cheap tests first: every line */
		return false;
	/* a search hit's own host field that Slurm's record lists no such node for: the hit came
	 * from another machine, whose name the shipper wrote, not the job (pm_att_other_node
	 * sets it aside); placed by srun's report as a line of no node, another host's kernel
	 * line would land on the job's failing node */
	if (a->ev->job.nnodes && !pm_att_job_node(a, o->node) && pm_att_hit_host(a, o))
		return false;
	for (int k = 0; p && p < end && k < 4; k++) {
		pm_peel(f->format, p, (size_t)(end - p), NULL, &pe);
		if (!pe.node || pe.node < p || pe.node_len >= sizeof(h))
			return false;
		memcpy(h, pe.node, pe.node_len);
		h[pe.node_len] = '\0';
		/* slurmstepd's "slurmstepd-H: " is Slurm's where srun or the plugin's records
		 * report a task of H's failing; alone, it is a prefix the job may have printed
		 * (review31 F04), read as a library's: on its own host, only capped */
		if (stepd_host(p, pe.node)) {
			if (!same_host(h, o->node) || slurm_task_failed(a, h))
				return false;
			if (weak)
				*weak = false;
			return true;
		}
		if (same_host(h, o->node)) {
			if (weak)
				*weak = pe.node_weak;
			return true;
		}
		if (!pe.node_weak)
			return false; /* O's node is a rule's (srun's "HOST: task N"), not this */
		for (p = pe.node + pe.node_len; p < end && strchr(": |\t", *p); p++)
			;
	}
	return false;
}

/* Whether O, a line of the job's output that names its rank, is placed only by where the
 * job's printed text puts that rank (pm_att_rank_text_only): one NCCL set-up line
 * "host:pid:tid [0] NCCL INFO comm ... rank 0 nranks 2 ..." the program prints places
 * rank 0's error on that host as surely as the host prefixed the error itself, and is
 * capped as that is (review31 F05: before, uncapped, it advised excluding the host). */
static bool rank_text_only(const struct att *a, const struct pm_obs *o)
{
	return o->node && o->rank >= 0 && job_text(a, o) &&
	       pm_att_rank_text_only(a, o->rank, o->node);
}

/* Whether srun reports H's tasks as ended by Slurm (srun_failed); with H NULL, any host's. */
static bool host_ended(const struct att *a, const char *h)
{
	for (size_t i = 0; i < a->nhosts; i++)
		if (a->hosts[i].ended && (!h || same_host(a->hosts[i].name, h)))
			return true;
	return false;
}

/* Whether srun's lines report a task of H twice, differently (srun_failed, srun_contested). */
static bool host_contested(const struct att *a, const char *h)
{
	for (size_t i = 0; i < a->nhosts; i++)
		if (a->hosts[i].contested && same_host(a->hosts[i].name, h))
			return true;
	return false;
}

/* Whether srun reports a task on H, whatever its end (srun_failed). */
static bool host_in_srun(const struct att *a, const char *h)
{
	for (size_t i = 0; i < a->nhosts; i++)
		if (a->hosts[i].srun && same_host(a->hosts[i].name, h))
			return true;
	return false;
}

/*
 * Whether a line O that names H in its prefix, a host srun reports no task on, was printed
 * while the step ran: before srun's first report of its teardown in the same file.  A line
 * after it (a script's pdsh over other nodes once the step ended) is not a task of the step,
 * and a host the accounting record lists is the job's own: neither is gainsaid by srun's
 * silence.
 */
static bool during_step(const struct att *a, const char *h, const struct pm_obs *o)
{
	if (a->ev->job.nnodes && pm_att_job_node(a, h))
		return false;
	return o && a->td_seen && o->file == a->td_file && o->offset < a->td_off;
}

/*
 * Whether Slurm gainsays host H that only a prefix of the job's output names: the
 * accounting record lists the job's nodes and H is none of them, or srun reports one task
 * that failed of itself (srun_failed), on another host, and H's tasks as ended by Slurm
 * ("Terminated", "Killed": --kill-on-bad-exit's teardown), or the step's teardown on other
 * hosts and no task at all on H.  The prefix is text the job prints (pdsh's "host: ", or an
 * echo): it must not place a line, a hardware error's above all, on a node whose tasks
 * Slurm only ended, nor on one where srun, which reports every task the teardown ended,
 * saw none.  Without a teardown, a host srun says nothing of keeps the prefix (a script's
 * pdsh over nodes its tasks did not fail on).  Said in `why` once.
 */
static bool prefix_gainsaid(struct att *a, const char *h, const struct pm_obs *o, bool *said)
{
	bool out = a->ev->job.nnodes && !pm_att_job_node(a, h), unsaid = false;
	const char *n = host_of(a, h) ? host_of(a, h) : h;

	if (!out && (!a->srun_host[0] || a->srun_many || same_host(a->srun_host, h)))
		return false;
	if (!out && !host_ended(a, h) &&
	    !(unsaid = host_ended(a, NULL) && !host_in_srun(a, h) && during_step(a, h, o)))
		return false;
	if (!*said && out)
		pm_att_why(a,
			   "A line of the job's output names %s in its host prefix, text the job "
			   "prints, and Slurm's record lists no such node for the job: the line is "
			   "not placed on %s.",
			   h, h);
	else if (!*said && unsaid)
		pm_att_why(a,
			   "A line of the job's output names %s in its host prefix, text the "
			   "job prints, while srun reports task %d on %s as the one task that "
			   "failed of itself, the step's other tasks as ended by Slurm, and no "
			   "task on %s: the line is not placed on %s.",
			   n, a->srun_task, a->srun_host, n, n);
	else if (!*said)
		pm_att_why(a,
			   "A line of the job's output names %s in its host prefix, text the job "
			   "prints, while srun reports task %d on %s as the one task that failed of "
			   "itself and %s's tasks as ended by Slurm: the line is not placed on %s.",
			   n, a->srun_task, a->srun_host, n, n);
	*said = true;
	return true;
}

/*
 * Whether the plugin's task-exit records gainsay host H that only a library's prefix of the
 * job's output names ("[gn041:52100] ", printed by the job, not by Open MPI under srun): every
 * task recorded on H was ended by Slurm's teardown (SIGTERM or SIGKILL, or a shell's exit 143
 * or 137 for them), no earlier than a task on another host failed of itself (a non-zero exit,
 * a signal of its own: pm_att_own_failure).  The records say H's tasks did not fail; the text
 * says the failure was there: the line is placed on no node rather than on H, or on the
 * failing task's host, which the line does not name (the evidence cannot tell which task
 * printed it, and a healthy node must not be blamed).  A task on H that failed of itself
 * (SIGABRT with a core, a non-zero exit), or one Slurm's signal ended before the other host's
 * failure, is no teardown of H: the line stays H's.  Said in `why` once.  tasks_gainsay: the
 * records' part alone, the other host's name where they gainsay H, else NULL.
 */
static const char *tasks_gainsay(const struct att *a, const char *h)
{
	const struct pm_evidence *ev = a->ev;
	const double tol = a->rs ? a->rs->skew_s : 2;
	double first = 0, hfirst = 0; /* the other host's first failure, H's first end */
	bool on_h = false;
	const char *other = NULL;

	for (size_t i = 0; i < ev->ntasks; i++) {
		const struct pm_task *t = &ev->tasks[i];
		if (!t->node || !t->exited)
			continue;
		if (same_host(t->node, h)) {
			if (pm_att_own_failure(t) ||
			    (!t->signal && !pm_att_slurm_signal_exit(t->exit_code)))
				return NULL;
			on_h = true;
			if (t->end > 0 && (hfirst <= 0 || t->end < hfirst))
				hfirst = t->end;
		} else if (pm_att_own_failure(t) &&
			   (!other || (t->end > 0 && (first <= 0 || t->end < first)))) {
			other = t->node;
			first = t->end;
		}
	}
	if (!on_h || !other || (first > 0 && hfirst > 0 && hfirst < first - tol))
		return NULL;
	return other;
}

static bool records_gainsay(struct att *a, const char *h, bool *said)
{
	const char *other = tasks_gainsay(a, h);

	if (!other)
		return false;
	a->records_unplaced = true;
	if (!*said)
		pm_att_why(a,
			   "A line of the job's output names %s in its host prefix, text the job "
			   "prints, while the task-exit records show %s's tasks ended by Slurm's "
			   "SIGTERM or SIGKILL (its teardown) once a task on %s had failed of "
			   "itself: the line is not placed on %s.",
			   h, h, other, h);
	*said = true;
	return true;
}

/* The one host what has no node happened on: the one node of a job whose accounting record
 * names one (other hosts the files name are where those files' lines happened, not the job's
 * output), else the folder's only host, unless the record names more nodes than one: the
 * job ran on all of them, and the one the folder's words name (the batch script's echo of
 * its host, a prompt) is no more where a line of no node happened than the others; nor
 * where the output holds several of torchrun's failure summaries (each agent prints its own,
 * one agent a node): the one host they name may be only another agent's, a bystander's,
 * where a paste lost the first summary's host row; NULL when none. */
static const char *only_host(const struct att *a)
{
	if (a->ev->job.nnodes == 1 && a->ev->job.nodes[0])
		return host_of(a, a->ev->job.nodes[0]);
	if (a->nhosts == 1 && a->ev->job.nnodes < 2 && !a->echo_many && a->tsum < 2 &&
	    !a->hosts[0].aside)
		return a->hosts[0].name;
	return NULL;
}

/* The same for observation O: a line of a node's own log (not the job's text) is where that
 * log's one host is, whatever the job printed of its nodes or the record lists (only_host's
 * withholding is for the job's output, which any of the nodes may have written); NULL when
 * none. */
static const char *only_host_of(const struct att *a, const struct pm_obs *o)
{
	if (job_text(a, o))
		return only_host(a);
	if (a->nhosts == 1 && !a->hosts[0].aside)
		return a->hosts[0].name;
	if (a->ev->job.nnodes == 1 && a->ev->job.nodes[0])
		return host_of(a, a->ev->job.nodes[0]);
	return NULL;
}

/*
 * Whether O is a line of a file read as a syslog by its content alone (no manifest or
 * caller gave its kind), whose path names no kernel log's source ("notes.txt", "gq07.txt",
 * "gq07/out.log"; pm_path_names_kernel), and that no grep -H name of a system log heads
 * ("/var/log/messages:Dec  2 ..."): the job can write such a file into its own folder, and
 * the host column of its lines is then the job's text.  Its node is only the folder's word
 * for it, as a dmesg-shaped file's is (scan.c node_from_path; review32 F07: before, a
 * job's notes.txt of "Dec  2 10:12:31 gq08 kernel: NVRM: Xid ... 79" advised excluding
 * gq08, whose tasks srun had only ended).  "gq07/messages", "kern.log", "syslog-gq07.txt",
 * "gq07-journal-k.txt" keep their lines' hosts.
 */
static bool syslog_unnamed(const struct att *a, const struct pm_obs *o)
{
	const struct pm_file *f = &a->ev->files[o->file];

	if (!o->node || f->kind_given)
		return false;
	/* the same for a file read as slurmctld's log by its words ("update_node: node gq08
	 * reason set to: NHC: ...": the collector never gathers one, and the node is the
	 * line's own word), and for a Prometheus capture whose node is its header's, not the
	 * folder's (parse_prom.c): a job can write either into its folder (review35 F1, F2:
	 * before, such a drain line or a header's "node":"gq08" beside an Xid series advised
	 * excluding gq08, whose tasks srun had only ended) */
	if (f->format == PM_FMT_SLURMCTLD_LOG || (f->format == PM_FMT_PROMETHEUS && !f->node))
		return true;
	return f->format == PM_FMT_SYSLOG && !pm_path_names_kernel(f->name) &&
	       !(o->raw && pm_prefix_grep_system(o->raw, strlen(o->raw)));
}

/* What syslog_unnamed's file, not a syslog, is read as, for `why`. */
static const char *unnamed_kind(const struct pm_file *f)
{
	return f->format == PM_FMT_SLURMCTLD_LOG ? "slurmctld's log" : "a metrics capture";
}

static const char *tasks_gainsay(const struct att *a, const char *h);

/* Whether a collector's bundle holds a task-exit record of host H: the records Slurm's
 * plugin wrote on H, which the job cannot, say what became of H's tasks better than srun's
 * lines in the job's stderr.  A record of a hand-gathered folder's (loose) is not such. */
static bool records_cover(const struct att *a, const char *h)
{
	for (size_t i = 0; i < a->ev->ntasks; i++) {
		const struct pm_task *t = &a->ev->tasks[i];
		if (t->node && t->exited && !t->loose && same_host(t->node, h))
			return true;
	}
	return false;
}

/*
 * srun's report as att_ranks.c read it from srun's own lines (A->placed), where the plugin's
 * records or a collector's bundles are in the folder and its lines are not read for hosts
 * (file_hosts, srun_failed): the host of the one task srun reports as failed of itself, into
 * A->psrun_host and A->psrun_task (NULL where none, or several).  A task srun's lines report
 * twice, differently (srun_bad), counts for nothing.
 */
static void srun_placed(struct att *a)
{
	const struct placed *f = NULL;

	a->psrun_host = NULL;
	a->psrun_task = -1;
	for (size_t i = 0; i < a->nplaced; i++) {
		const struct placed *p = &a->placed[i];
		if (p->how != 1 || pm_rankset_has(a->srun_bad, a->nsrun_bad, p->rank))
			continue;
		if (f && (f->rank != p->rank || !same_host(f->node, p->node)))
			return;
		f = p;
	}
	if (f) {
		a->psrun_host = f->node;
		a->psrun_task = f->rank;
	}
}

/* With A->psrun_host (srun_placed): that host, where it is not H and srun reports a task of
 * H as ended by Slurm, or twice, differently (pm_att_srun_ended); NULL otherwise. */
static const char *srun_placed_ended(const struct att *a, const char *h)
{
	if (!a->psrun_host || same_host(a->psrun_host, h))
		return NULL;
	for (size_t i = 0; i < a->nplaced; i++) {
		const struct placed *p = &a->placed[i];
		if (same_host(p->node, h) &&
		    (p->how == 2 || pm_rankset_has(a->srun_bad, a->nsrun_bad, p->rank)))
			return host_of(a, a->psrun_host) ? host_of(a, a->psrun_host) :
							   a->psrun_host;
	}
	return NULL;
}

/*
 * The lines of such a file (syslog_unnamed) whose host Slurm's own reports gainsay: srun
 * reports that host's tasks as ended by Slurm and one task on another host as the one that
 * failed of itself (pm_att_srun_ended), or the plugin's task-exit records show the host's
 * tasks ended by Slurm's teardown once a task elsewhere had failed (tasks_gainsay).  Which of
 * the two is Slurm's and which the job's, the folder cannot tell: the line keeps its host,
 * as the folder's word for it (GUESSED: it corroborates nothing, and its lead's exclusion is
 * only offered), and `why` names the file and srun's or the records' report, once a file.
 * Where Slurm agrees with the host column (the host's own task failed: a loghost grep beside
 * the failing rank's error, trust-loghost-grep-same-domain-xid-near-miss), or says nothing
 * against it (a one-node job's "hb03.log": trust-node-log-address-only-own-xid-near-miss),
 * the host stands.  0, or -1 on ENOMEM.
 */
static int syslog_gainsaid(struct att *a)
{
	struct pm_evidence *ev = a->ev;
	bool *said = NULL;

	for (size_t i = 0; i < ev->nobs; i++) {
		const struct pm_obs *o = &ev->obs[i];
		const char *other;
		bool by_srun = false;
		if (!o->trusted || !syslog_unnamed(a, o))
			continue;
		/* the records first; where they are loose (the job can write them) or say nothing
		 * of the host, srun's report is asked too (review35 S1: before, any record in the
		 * folder turned srun's gainsay off) */
		other = ev->ntasks ? tasks_gainsay(a, o->node) : NULL;
		if (!other) {
			other = pm_att_srun_ended(a, o->node);
			by_srun = other != NULL;
		}
		if (!other)
			continue;
		if (!a->sysgain && !(a->sysgain = calloc(ev->nobs, sizeof(bool))))
			return -1;
		a->guessed[i] = a->sysgain[i] = true;
		if (!said && !(said = calloc(ev->nfiles, sizeof(bool))))
			return -1;
		if (said[o->file])
			continue;
		said[o->file] = true;
		if (ev->files[o->file].format != PM_FMT_SYSLOG)
			pm_att_why(a,
				   "%s, read as %s by its lines alone (no collector gave its "
				   "kind), puts its lines on %s, while %s %s as the one that failed "
				   "of itself and %s's tasks as ended by Slurm: whether it is what "
				   "it looks like or text the job wrote cannot be told, so %s is "
				   "named there, not excluded.",
				   ev->files[o->file].name, unnamed_kind(&ev->files[o->file]),
				   o->node,
				   by_srun ? "srun reports a task on" :
					     "the task-exit records show a task on",
				   other, o->node, o->node);
		else
			pm_att_why(
				a,
				"%s, read as a kernel log by its lines alone (its name names none), "
				"puts its lines on %s, while %s %s as the one that failed of itself and "
				"%s's tasks as ended by Slurm: whether it is %s's kernel log or text the job wrote "
				"cannot be told, so %s is named there, not excluded.",
				ev->files[o->file].name, o->node,
				by_srun ? "srun reports a task on" :
					  "the task-exit records show a task on",
				other, o->node, o->node, o->node);
	}
	free(said);
	return 0;
}

/*
 * A hand-gathered folder (no plugin records, no bundle): each node-level file's host names
 * the node of what it holds; the folder's lines name hosts; when every host named is one,
 * what has no node happened on it.  Runs before the candidates are made, so their
 * summaries and origins carry the node.  Each observation placed thus is marked GUESSED:
 * it corroborates nothing (phase_confirm), so placing never raises a confidence.
 */
static long srun_report_task(const char *raw);

int pm_att_phase_place(struct att *a)
{
	struct pm_evidence *ev = a->ev;
	char h[128];
	const char *one = NULL; /* the one host what had no node was placed on, if any */
	unsigned char *wordonly;
	size_t nknown;
	bool said = false;

	if (!(a->guessed = calloc(ev->nobs ? ev->nobs : 1, sizeof(bool))) ||
	    !(a->pgain = calloc(ev->nobs ? ev->nobs : 1, sizeof(bool))) ||
	    !(a->libpfx = calloc(ev->nobs ? ev->nobs : 1, sizeof(bool))))
		return -1;
	/* a line placed through the rank map by a bare tag that may be a local rank
	 * (att_ranks.c, weak_local), or by a kernel log section's header naming a host no
	 * record knows (scan.c, section_node): its node is the folder's guess, named, not
	 * excluded */
	for (size_t i = 0; i < ev->nobs; i++)
		a->guessed[i] = (ev->obs[i].rank_guess || ev->obs[i].sect_guess) && ev->obs[i].node;
	/* srun's task line of a task its lines report twice, differently (att_ranks.c
	 * srun_gainsaid): one of them is the job's text, and `why` says they back no node;
	 * nor does the host such a line names give its own reading one (trust105: a printed
	 * "srun: error: hb22: task 5: Out Of Memory" beside srun's "hb22: tasks 4-7: Killed"
	 * put the memory kill on hb22, a node whose tasks Slurm only ended).  Placed on no
	 * other host either (pgain), nor given its task as a rank. */
	for (size_t i = 0; a->nsrun_dbl && i < ev->nobs; i++) {
		struct pm_obs *o = &ev->obs[i];
		long t;
		const char *q;
		size_t l;

		/* a reading of the line, not its teardown (two steps that number their tasks
		 * alike keep their ends' hosts), of a task reported twice (not one past a gap,
		 * srun_void: a log cut short reads so, app-mpi-abort-after-cgroup-oom-near-miss) */
		if (!o->node || !o->raw || o->trusted || R(a, i)->role != PM_ROLE_ORIGIN ||
		    (t = srun_report_task(o->raw)) < 0 ||
		    !pm_rankset_has(a->srun_dbl, a->nsrun_dbl, (int)t) ||
		    !pm_att_srun_own(o->raw) ||
		    !(q = srun_task_host(o->raw, o->raw + strlen(o->raw), &l)) ||
		    strlen(o->node) != l || strncasecmp(o->node, q, l))
			continue;
		pm_att_retire(a, o->node);
		o->node = NULL;
		a->guessed[i] = false;
		a->pgain[i] = true;
		/* nor the task it names, which the rank map would put back on that host */
		if (o->rank == t)
			o->rank = -1;
	}
	/* with the plugin's records or a collector's bundle nothing is placed by guess, but a
	 * line of the job's output that only a "host: " prefix places (no srun label, no rank
	 * the rank map maps, no trusted source's host) is still placed by text the program
	 * printed: its lead is named there, its node's exclusion only offered, as in a
	 * hand-gathered folder (pm_att_node_guessed; the records' own contradictions are
	 * pm_att_clean_exits') */
	if (ev->ntasks || ev->ncollect) {
		srun_placed(a);
		if (syslog_gainsaid(a) < 0)
			return -1;
		for (size_t i = 0; i < ev->nobs; i++) {
			struct pm_obs *o = &ev->obs[i];
			bool weak = false;
			if (!prefix_only_node(a, o, &weak)) {
				a->libpfx[i] = rank_text_only(a, o);
				continue;
			}
			if (!weak && records_gainsay(a, o->node, &said)) {
				pm_att_retire(a, o->node);
				o->node = NULL;
			} else {
				*(weak ? &a->guessed[i] : &a->libpfx[i]) = true;
			}
		}
		return 0;
	}
	/* a file's name gives a host shaped as a node's here, a plain word only once the
	 * lines have named it (below) */
	for (size_t i = 0; i < ev->nfiles; i++) {
		if (file_host(NULL, &ev->files[i], h, sizeof(h)) &&
		    add_host(a, h, strlen(h), SP_FILE) < 0)
			return -1;
		if (file_hosts(a, &ev->files[i]) < 0)
			return -1;
	}
	/* srun's report is read now (file_hosts): what it gainsays of a syslog-shaped file */
	if (syslog_gainsaid(a) < 0)
		return -1;
	/* WORD-HOST names last: a host the files' lines name is what they are read for */
	for (size_t i = 0; i < ev->nfiles; i++)
		if (!file_host(a, &ev->files[i], h, sizeof(h)) &&
		    word_host(a, &ev->files[i], h, sizeof(h)) &&
		    add_host(a, h, strlen(h), SP_FILE) < 0)
			return -1;
	for (size_t i = 0; a->placed && i < a->nplaced; i++)
		if (add_host(a, a->placed[i].node, strlen(a->placed[i].node), SP_TASK) < 0)
			return -1;
	/* a job of one node, by its accounting record: that node, spelt as Slurm spells it */
	if (ev->job.nnodes == 1 && ev->job.nodes[0] &&
	    add_host(a, ev->job.nodes[0], strlen(ev->job.nodes[0]), SP_STEP) < 0)
		return -1;
	/* a kept line's shell prefix ("gpu32: ..." from pdsh or clush) names a host too, when
	 * it is spelt as the folder's hosts are (gpu32 beside gpu31): "python3: can't open
	 * file" names a program */
	/* where the folder names no host, one host-like name every rank-tagged shell prefix
	 * gives ("gpu201: [rank3]: ..."): the job's one host, and the ranks it tags ran there
	 * (place-pdsh-rank-prefix-one-host; two such names place nothing:
	 * place-pdsh-rank-prefix-two-hosts-near-miss) */
	if (!a->nhosts && a->nrankpfx == 1 &&
	    add_host(a, a->rankpfx, strlen(a->rankpfx), SP_OTHER) < 0)
		return -1;
	nknown = a->nhosts;
	for (size_t i = 0; i < ev->nobs; i++)
		if (!ev->obs[i].node && prefix_host(a, nknown, &ev->obs[i], h, sizeof(h)) &&
		    (!job_text(a, &ev->obs[i]) || !prefix_gainsaid(a, h, &ev->obs[i], &said)) &&
		    add_host(a, h, strlen(h), SP_OTHER) < 0)
			return -1;
	/* a line of the job's output the scan placed by its prefix alone, on a host Slurm
	 * gainsays, is placed as a line of no node: by srun's report, if anything
	 * (pm_att_place_one_host).  A node log's prefix (an operator's pdsh over the nodes'
	 * dmesg, trusted or not) is its gatherer's, and kept (job_text).  One Slurm does not
	 * gainsay keeps its host, as the folder's words: only srun's label and NCCL's
	 * host:pid:tid name their own node (phase 14), a "host: " the program printed does not,
	 * so its lead's exclusion is only offered (pm_att_node_guessed). */
	for (size_t i = 0; i < ev->nobs; i++) {
		struct pm_obs *o = &ev->obs[i];
		bool weak = false;
		if (!prefix_only_node(a, o, &weak)) {
			a->libpfx[i] = rank_text_only(a, o);
			continue;
		}
		if (!weak) {
			a->libpfx[i] = true;
		} else if (prefix_gainsaid(a, o->node, o, &said)) {
			pm_att_retire(a, o->node);
			o->node = NULL;
			a->pgain[i] = true;
		} else {
			a->guessed[i] = true;
		}
	}
	if (unify_case(a) < 0 || !(wordonly = calloc(ev->nfiles ? ev->nfiles : 1, 1)))
		return -1;
	for (size_t i = 0; i < ev->nobs; i++) {
		struct pm_obs *o = &ev->obs[i];
		const char *n = NULL;
		bool ph;
		/* a line past a section's count is no host's: not the file's either (scan.c,
		 * section_overrun) */
		if (o->node || a->pgain[i] || o->sect_nobody)
			continue;
		if (file_host(a, &ev->files[o->file], h, sizeof(h)) ||
		    word_host(a, &ev->files[o->file], h, sizeof(h))) {
			/* once a file: 1 its name's host stands, 2 a word (name_word_only) */
			if (!wordonly[o->file])
				wordonly[o->file] = name_word_only(a, h) ? 2 : 1;
			n = wordonly[o->file] == 2 ? NULL : host_of(a, h);
		} else if ((ph = prefix_host(a, a->nhosts, o, h, sizeof(h))) && job_text(a, o) &&
			   prefix_gainsaid(a, h, o, &said)) {
			/* the host it named is gainsaid: no node, and none other (review36 M1:
			 * the folder's one host, or srun's failed task's, is not what it said) */
			a->pgain[i] = true;
		} else if (ph && (n = host_of(a, h)))
			;
		else if ((n = only_host_of(a, o)))
			one = one ? one : n;
		if (n && pm_strset(&o->node, n, strlen(n)) < 0) {
			free(wordonly);
			return -1;
		}
		if (n)
			a->guessed[i] = true;
	}
	free(wordonly);
	if (one) {
		const char *oh = one;

		if (ev->job.nnodes == 1 && ev->job.nodes[0] && !strcasecmp(oh, ev->job.nodes[0])) {
			pm_att_why(a,
				   "The accounting record names one node for the job, %s: what the "
				   "files report without a node happened there.",
				   oh);
			return 0;
		}
		/* a one-node job's record places it; a folder's one host only says where it
		 * was printed, which a lone reporter's lead says instead (pm_att_why_one_reporter) */
		snprintf(a->one_host, sizeof(a->one_host), "%s", oh);
		a->one_host_why = json_array_size(a->why) + 1;
		pm_att_why(a,
			   "The folder's files name one host, %s: what they report without a "
			   "node happened there.",
			   oh);
	}
	return 0;
}

/*
 * The folder's one host (pm_att_phase_place), where nothing names it but lines that
 * setup_not_this_jobs (att_cands.c) has since set aside as no set-up of this job's: no file's
 * name, no srun task line, no kept line of its own.  Placement ran before that reading, so the
 * job's own lines of no node (a batch script's segfault) were put there by that line alone
 * (trust105 e: a drain line the job's progress gainsays, "another job's, or not Slurm's", made
 * its host the crash's origin).  They are taken off it: no host is then the folder's one, and
 * `why` says so in place of "The folder's files name one host".
 */
void pm_att_unplace_aside(struct att *a)
{
	const struct pm_evidence *ev = a->ev;
	char h[256], buf[128], why[640];
	size_t hi;

	if (!a->one_host[0] || !a->not_job || a->nhosts != 1 || a->ev->job.nnodes)
		return;
	snprintf(h, sizeof(h), "%s", a->one_host);
	if (!same_host(a->hosts[0].name, h) || a->hosts[0].srun)
		return;
	hi = 0;
	for (size_t i = 0; i < ev->nfiles; i++)
		if ((file_host(a, &ev->files[i], buf, sizeof(buf)) ||
		     word_host(a, &ev->files[i], buf, sizeof(buf))) &&
		    same_host(buf, h))
			return;
	for (size_t i = 0; a->placed && i < a->nplaced; i++)
		if (same_host(a->placed[i].node, h))
			return;
	/* a Slurm daemon's own line allocating or launching this job there: it ran there */
	if (pm_att_daemon_ran_job(a, h))
		return;
	for (size_t i = 0; i < ev->nobs; i++) {
		const struct pm_obs *o = &ev->obs[i];
		if (o->node && same_host(o->node, h) && !a->guessed[i] && !a->not_job[i])
			return;
		hi += o->node && same_host(o->node, h) && a->not_job[i];
	}
	if (!hi)
		return;
	for (size_t i = 0; i < ev->nobs; i++) {
		struct pm_obs *o = &ev->obs[i];
		if (o->node && a->guessed[i] && !a->not_job[i] && same_host(o->node, h)) {
			pm_att_retire(a, o->node);
			o->node = NULL;
			a->guessed[i] = false;
		}
	}
	for (size_t i = 0; i < a->nc; i++) {
		struct cand *c = &a->c[i];
		bool named = false;
		if (c->dead || !c->node[0] || !same_host(c->node, h))
			continue;
		for (size_t k = 0; k < c->nev && !named; k++)
			named = ev->obs[c->ev[k]].node != NULL;
		if (!named) {
			c->node[0] = '\0';
			c->guess = false;
		}
	}
	a->hosts[0].aside = true;
	snprintf(why, sizeof(why),
		 "The folder's files name one host, %s, but only in lines set aside as no set-up "
		 "of this job's (below): what they report without a node is placed on no host.",
		 h);
	if (a->one_host_why && a->one_host_why <= json_array_size(a->why))
		json_array_set_new(a->why, a->one_host_why - 1, json_string(why));
	a->one_host_why = 0;
	a->one_host[0] = '\0';
}

/* The host srun's own report on C's lines names ("srun: error: HOST: task N: Killed"), where
 * the lead was read on such a line: that line says where its task ran.  NULL when none, or
 * when they name two hosts. */
static const char *srun_line_host(const struct att *a, const struct cand *c)
{
	const char *one = NULL;

	for (size_t k = 0; k < c->nev; k++) {
		const char *r = a->ev->obs[c->ev[k]].raw, *q, *h;
		char name[sizeof(a->srun_host)];
		size_t l;

		/* a line of a task srun's lines report twice, differently, backs no host
		 * (pm_att_phase_place) */
		if (!r || a->pgain[c->ev[k]] || !(q = srun_task_host(r, r + strlen(r), &l)) ||
		    l >= sizeof(name))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)l, q);
		if (!(h = host_of(a, name)) || (one && one != h))
			return NULL;
		one = h;
	}
	return one;
}

/* Whether srun's report T..E of a host's task or tasks ("task 3: Exited with exit code 1",
 * "tasks 0-1: Aborted (core dumped)") says they failed of themselves, as srun_failed reads
 * it: a non-zero exit or a crash signal, not Slurm's end of them ("Killed", "Terminated",
 * exit code 143 or 137). */
static bool srun_says_failed(const char *t, const char *e)
{
	static const char *const sig[] = {"Segmentation fault",	 "Aborted",
					  "Bus error",		 "Floating point exception",
					  "Illegal instruction", "Out Of Memory"};
	const char *m = memmem(t, (size_t)(e - t), ": ", 2);

	if (!m || slurm_ended(m + 2, e))
		return false;
	m += 2;
	if (e - m > 22 && !strncmp(m, "Exited with exit code ", 22))
		return strtol(m + 22, NULL, 10) != 0;
	for (size_t i = 0; i < sizeof(sig) / sizeof(sig[0]); i++)
		if ((size_t)(e - m) >= strlen(sig[i]) && !strncmp(m, sig[i], strlen(sig[i])))
			return true;
	return false;
}

/* Whether every line of C's that is srun's report of a task ("HOST: task N: Killed") came
 * before each of srun's reports of a task that failed of itself, in the same file, as the
 * scan read them (its offsets: a line a terminal's width broke is one): a kill srun printed
 * first is no teardown of that failure (--kill-on-bad-exit kills the others after it).  A
 * failure reported in another file, whose order is not known, says no. */
static bool srun_line_first(const struct att *a, const struct cand *c)
{
	for (size_t k = 0; k < c->nev; k++) {
		const struct pm_obs *o = &a->ev->obs[c->ev[k]];
		size_t l;

		if (!o->raw || !srun_task_host(o->raw, o->raw + strlen(o->raw), &l))
			continue;
		for (size_t j = 0; j < a->ev->nobs; j++) {
			const struct pm_obs *x = &a->ev->obs[j];
			const char *q, *e;

			if (!x->raw || x->raw == o->raw)
				continue;
			e = x->raw + strlen(x->raw);
			if (!(q = srun_task_host(x->raw, e, &l)) || !srun_says_failed(q + l + 2, e))
				continue;
			if (x->file != o->file || x->offset <= o->offset)
				return false;
		}
	}
	return true;
}

/*
 * Whether the host H a launcher's failure report names for a rank (mpirun's "on node H",
 * hydra's "RUNNING AT H", torchrun's "host : H") is gainsaid: the report is text in the job's
 * output, which the job can print as easily as the launcher.  *OUT is set where Slurm's record
 * lists the job's nodes and H is none of them (a host the job never had: such a host names no
 * node, TRUST.md "The job's output"); else H is gainsaid where srun names one task that failed
 * of itself on another host and H's tasks as ended by Slurm ("Terminated", "Killed"): srun and
 * the report disagree on where the step failed (as for a "host: " prefix, prefix_gainsaid).
 * Not where srun's lines hold one read as the job's text (a task reported twice, or one the
 * step does not have: srun_gainsaid, att_ranks.c): a printed srun line must not gainsay a
 * real report.  A report whose host srun says nothing of (an mpirun that srun ran as one task
 * on another node: its ranks are not srun's tasks) is not gainsaid.
 */
static bool report_gainsaid(const struct att *a, const char *h, bool *out)
{
	*out = a->ev->job.nnodes && !pm_att_job_node(a, h);
	if (*out)
		return true;
	return a->srun_host[0] && !a->srun_many && !a->nsrun_bad && !same_host(a->srun_host, h) &&
	       host_ended(a, h);
}

/* The one host the failure reports name for rank R (torchrun's table, mpirun's "on node"),
 * spelt as the folder spells it; NULL when none names one, or they differ.  *GAIN: the name
 * of a host they give that report_gainsaid gainsays (none is then returned), with *OUT as it
 * sets it; left alone when none is. */
static const char *rank_host(const struct att *a, int r, const char **gain, bool *out)
{
	const char *h = NULL, *x;

	for (size_t i = 0; i < a->nrhost; i++) {
		if (a->rhost[i].rank != r)
			continue;
		if (report_gainsaid(a, a->rhost[i].host, out)) {
			*gain = a->rhost[i].host;
			return NULL;
		}
		if (!(x = host_of(a, a->rhost[i].host)))
			continue;
		if (h && strcasecmp(h, x))
			return NULL;
		h = x;
	}
	return h;
}

/*
 * Rank R is the one rank the launchers' failure reports name (pm_att_place_one_host): *H, the
 * host they name for it, or NULL where they name none, or one report_gainsaid gainsays (said
 * in `why`, once).  True where srun gainsays that host: the report names no rank then, and
 * the cause is placed on no host (trust106: a printed "mpirun noticed that process rank 0
 * with PID 40210 on node gx11 exited on signal 6" moved a lead from gx12, srun's one failed
 * task's host, to gx11, whose task srun reports Terminated; srun's lines are the job's text
 * too, so they do not place it on gx12 over a report either).
 */
static bool report_yields(struct att *a, int r, const char **h)
{
	const char *gain = NULL;
	bool out = false;

	*h = rank_host(a, r, &gain, &out);
	if (!gain)
		return false;
	if (!a->rgain_said && out)
		pm_att_why(a,
			   "The launcher's failure report names rank %d on %s, text the job "
			   "prints, and Slurm's record lists no such node for the job: nothing is "
			   "placed on %s.",
			   r, gain, gain);
	else if (!a->rgain_said)
		pm_att_why(a,
			   "The launcher's failure report names rank %d on %s, text the job "
			   "prints, while srun reports task %d on %s as the one task that failed "
			   "of itself and %s's tasks as ended by Slurm: the two disagree on where "
			   "the failure was, and neither places it.",
			   r, gain, a->srun_task, a->srun_host, gain);
	a->rgain_said = true;
	return !out;
}

/* The summary whose entries start at I: its end (*END) and its root cause's time, 0 when an
 * entry of it has none (the earliest root cause's, where several are listed). */
static double summary_time(const struct att *a, size_t i, size_t *end)
{
	double rt = 0;
	bool untimed = false;
	size_t j;

	for (j = i; j < a->ntroot && a->troot[j].sum == a->troot[i].sum; j++)
		if (!a->troot[j].other) {
			untimed |= a->troot[j].time <= 0;
			if (!rt || a->troot[j].time < rt)
				rt = a->troot[j].time;
		}
	*end = j;
	return untimed ? 0 : rt;
}

/* Whether entry T of a summary whose root cause is at RT is named: not a later or stopped
 * other failure. */
static bool summary_named(const struct troot *t, double rt)
{
	return !(t->other && (t->stopped || (rt > 0 && t->time > rt)));
}

/*
 * Whether O is a row of an entry torchrun's summary lists as failed after its root cause or
 * stopped by the agent (not named: summary_named): "exitcode : -11", "traceback : Signal 11
 * (SIGSEGV) received by PID N" of a worker that died once the first had failed.  That worker
 * is a bystander: its signal is no cause of the job's, nor one to place on the root cause's
 * rank (place-torchrun-later-failure-segv-bystander).
 */
bool pm_att_summary_unnamed(const struct att *a, const struct pm_obs *o)
{
	for (size_t k = 0; k < a->ntroot; k++) {
		const struct troot *t = &a->troot[k];
		if (t->from != UINT64_MAX && t->file == o->file && o->offset > t->from &&
		    o->offset < t->to && pm_att_summary_later(a, k))
			return true;
	}
	return false;
}

/* Whether entry K of torchrun's summaries is one of its other failures it does not name: a
 * worker that failed after the root cause, or that the agent stopped (summary_named). */
bool pm_att_summary_later(const struct att *a, size_t k)
{
	size_t i = k, j;

	while (i > 0 && a->troot[i - 1].sum == a->troot[k].sum)
		i--;
	return !summary_named(&a->troot[k], summary_time(a, i, &j));
}

/*
 * The ranks torchrun's summaries name, among HRANKS.  A summary's root cause ("Root Cause
 * (first observed failure)") is named, and so is each of its other failures ("Failures:")
 * seen in the same second or without a time: the agent picked one of them as the first,
 * not the evidence; one seen later (the agent's clock, whole seconds) failed after it, and
 * one that exited -15 was stopped by the agent (1.9 lists them): neither is named.  Where
 * several summaries (an agent a node) each name one rank, the one whose root cause is the
 * earliest by more than the skew tolerance plus the field's second is named alone (the
 * agents' clocks may differ); else all are.
 */
static int torchrun_named(struct att *a)
{
	int ngroups = 0, one = -1, m = -1;
	double mt = 0;
	bool single = true;

	a->tnamed = true;
	for (size_t i = 0, j; i < a->ntroot; i = j) {
		double rt = summary_time(a, i, &j);
		int first = -1, n = 0;

		for (size_t k = i; k < j; k++) {
			const struct troot *t = &a->troot[k];
			if (!summary_named(t, rt))
				continue;
			if (first < 0) {
				first = t->rank;
				n = 1;
			} else if (t->rank != first) {
				n = 2;
			}
		}
		if (first < 0)
			continue;
		ngroups++;
		if (n != 1 || rt <= 0)
			single = false;
		else if (m < 0 || rt < mt) {
			m = first;
			mt = rt;
		}
	}
	/* several summaries, one rank each: the earliest, when it is clearly first */
	if (ngroups > 1 && single && m >= 0) {
		one = m;
		for (size_t i = 0, j; i < a->ntroot && one >= 0; i = j) {
			for (j = i; j < a->ntroot && a->troot[j].sum == a->troot[i].sum; j++)
				if (!a->troot[j].other && a->troot[j].rank != m &&
				    a->troot[j].time <= mt + a->rs->skew_s + 1)
					one = -1;
		}
	}
	if (one >= 0) {
		a->tfirst = true;
		return add_rank(a, one);
	}
	for (size_t i = 0, j; i < a->ntroot; i = j) {
		double rt = summary_time(a, i, &j);

		for (size_t k = i; k < j; k++)
			if (summary_named(&a->troot[k], rt) && add_rank(a, a->troot[k].rank) < 0)
				return -1;
	}
	return 0;
}

/* The task srun's own report RAW names ("srun: error: HOST: task N: ..."), or -1: none, or
 * several ("tasks 0-3: ..."). */
static long srun_report_task(const char *raw)
{
	const char *e = raw + strlen(raw), *q;
	char *x;
	size_t l;
	long n;

	if (!(q = srun_task_host(raw, e, &l)) || (size_t)(e - (q + l)) < 9 ||
	    strncmp(q + l, ": task ", 7))
		return -1;
	n = strtol(q + l + 7, &x, 10);
	return x > q + l + 7 && *x == ':' ? n : -1;
}

/* Whether C's rank R is only srun's task number on its lines: srun's --label, or the task
 * srun's own report of a failed task names ("srun: error: n3: task 1: Out Of Memory"). */
static bool task_rank_only(const struct att *a, const struct cand *c, int r)
{
	bool any = false;

	for (size_t k = 0; k < c->nev; k++) {
		const struct pm_obs *o = &a->ev->obs[c->ev[k]];
		if (o->rank != r)
			continue;
		if (!(o->has_label && o->label == o->rank) &&
		    !(o->raw && srun_report_task(o->raw) == o->rank))
			return false;
		any = true;
	}
	return any;
}

/*
 * Whether srun started the program's ranks itself: its own task lines put two tasks or more
 * on one host, or the job's lines carry more of srun's labels than Slurm's record lists
 * nodes.  An mpirun, mpiexec or torchrun that srun started is one task a node, so its report
 * names ranks that are not srun's tasks (drop_task_ranks); where srun ran more, its labels
 * are the ranks, and a launcher's report naming another one is text the job printed beside
 * them (trust107: a printed "mpirun noticed that process rank 0 ... on node hx05 exited" in
 * a one-node step of four tasks moved an ECC error from task 2, srun's label and its one
 * failed task, to rank 0).  Where the plugin's records place the ranks this is never asked
 * (pm_att_place_one_host): they name each task's node and rank.
 */
static bool srun_tasks_ranks(const struct att *a)
{
	uint64_t seen[64] = {0};
	size_t nlab = 0;

	for (size_t i = 0; a->placed && i < a->nplaced; i++)
		for (size_t j = i + 1; j < a->nplaced; j++)
			if (a->placed[j].rank != a->placed[i].rank &&
			    same_host(a->placed[i].node, a->placed[j].node))
				return true;
	if (!a->ev->job.nnodes)
		return false;
	for (size_t i = 0; i < a->ev->nobs; i++) {
		const struct pm_obs *o = &a->ev->obs[i];
		unsigned l = (unsigned)o->label;

		if (!o->has_label || o->label < 0 || l >= 64 * 64 || (seen[l >> 6] >> (l & 63)) & 1)
			continue;
		seen[l >> 6] |= 1ULL << (l & 63);
		if (++nlab > a->ev->job.nnodes)
			return true;
	}
	return false;
}

/*
 * Whether the launcher's failure reports (and torchrun's summaries) were all read under no
 * srun label while the job's lines carry srun's labels: the step ran with --label, and a
 * launcher it started (mpirun, torchrun: one task a node) prints its report under its task's
 * label as it does every line (place-mpirun-report-under-srun-label).  A bare one is not
 * that task's: text the batch script printed beside the step, so it moves none of the
 * labels' ranks (trust108: a printed "mpirun noticed that process rank 3 ... on node hx06"
 * after a two-node step of one task a node moved an ECC error from task 1, srun's label and
 * its one failed task, to rank 3; where srun's lines show one task a node, srun_tasks_ranks
 * cannot tell a launcher's step from the program's).
 */
static bool report_unlabelled(const struct att *a)
{
	if (a->rep_label)
		return false;
	for (size_t i = 0; i < a->ev->nobs; i++)
		if (a->ev->obs[i].has_label && a->ev->obs[i].label >= 0)
			return true;
	return false;
}

/*
 * Whether Slurm's record lists the job's numbered steps and each ran a Python interpreter
 * (its JobName, parse_sched.c python_step): srun started the program's ranks itself in every
 * step, so no task of srun's was an MPI launcher, and a launcher's report the job's lines
 * hold, under a task's label ("1: mpirun noticed that process rank 3 ...") or under none, is
 * text the program or the batch script printed: it moves none of srun's task numbers
 * (trust109: a printed report under task 1's label, or in a step run without --label, moved
 * an ECC error from task 1, srun's failed task, to rank 3).  A step named otherwise (mpirun,
 * orted, a shell or a script that may start one) leaves the report its reading
 * (place-mpirun-report-under-srun-label), as does a record with no steps: mpirun run from the
 * batch script starts no step of its own where it launches on its own host or over ssh.
 */
static bool steps_ran_program(const struct att *a)
{
	const struct pm_jobinfo *j = &a->ev->job;

	if (!j->nsteprows || j->steprows_over)
		return false;
	for (size_t i = 0; i < j->nsteprows; i++)
		if (!j->steprows[i].python)
			return false;
	return true;
}

/*
 * Whether the launcher's report naming rank ONE is text the job printed beside srun's own
 * word on the step: every step ran Python (steps_ran_program) and srun names one task that
 * failed of itself, another number.  That task is the program's rank, and the report names
 * no rank of an MPI launcher srun started (none was) nor, in a step's lines, of one the batch
 * script ran: in a step run without --label, a printed "mpirun noticed that process rank 3
 * ... on node hx06" moved a cause of no rank off srun's failed task 1 (trust109:
 * trust-launcher-report-no-label-python-step).  A report beside a Python step that srun
 * reports no failure of (mpirun run from the batch script, on its own host, after the step
 * ended) keeps its reading (trust-launcher-report-batch-mpirun-no-step-beside-labelled-step-near-miss).
 */
static bool report_program(struct att *a, int one)
{
	if (!a->lrep || a->ntroot || !a->srun_host[0] || a->srun_many || a->srun_task < 0 ||
	    a->srun_task == one || !steps_ran_program(a))
		return false;
	if (!a->rprog_said)
		pm_att_why(a,
			   "The launcher's failure report names rank %d, text the job prints, while "
			   "Slurm's record says every step ran Python, no MPI launcher, and srun "
			   "names task %d as the one that failed: the report places nothing.",
			   one, a->srun_task);
	a->rprog_said = true;
	return true;
}

/* Where torchrun's summaries or an MPI launcher's own report name the rank ONE, C's ranks
 * that are only srun's task numbers go: torchrun starts one task per node, and an mpirun or
 * mpiexec that srun started is one task too, so the task number is no rank of the program;
 * the summary's or the report's rank is the one to place. */
static void drop_task_ranks(struct att *a, struct cand *c, int one)
{
	size_t n = 0;

	if (!a->ntroot && !a->lrep)
		return;
	if (srun_tasks_ranks(a)) {
		if (!a->rtask_said)
			pm_att_why(
				a,
				"The launcher's failure report (or torchrun's summary) names rank %d, "
				"text the job prints, while srun started more than one task a node, "
				"its task numbers the program's ranks: the report moves no rank "
				"srun's lines give.",
				one);
		a->rtask_said = true;
		return;
	}
	if (a->lrep && !a->ntroot && steps_ran_program(a)) {
		if (!a->rprog_said)
			pm_att_why(a,
				   "The launcher's failure report names rank %d, text the job "
				   "prints, while Slurm's record says every step ran Python, no MPI "
				   "launcher: srun's task numbers are the program's ranks, and the "
				   "report moves none of them.",
				   one);
		a->rprog_said = true;
		return;
	}
	if (report_unlabelled(a)) {
		if (!a->rlab_said)
			pm_att_why(
				a,
				"The launcher's failure report (or torchrun's summary) names rank "
				"%d, text the job prints, under no srun label while srun labels the "
				"step's lines: no task srun started printed it, and it moves no "
				"rank srun's labels give.",
				one);
		a->rlab_said = true;
		return;
	}
	for (size_t i = 0; i < c->nranks; i++) {
		int r = c->ranks[i];

		if (r != one && task_rank_only(a, c, r)) {
			if (r >= 0 && r < 1 << 24 && (size_t)r >> 6 < c->nrbits)
				c->rbits[r >> 6] &= ~(1ULL << (r & 63));
			continue;
		}
		c->ranks[n++] = r;
	}
	c->nranks = n;
}

/* Where R holds "pid=N, ip=" (Ray's worker prefix, "(TrainWorker pid=N, ip=A) ", or the
 * header of RayTaskError's traceback, "ray::f() (pid=N, ip=A, ...)"): its "pid=", or NULL. */
static const char *ray_pid_ip(const char *r)
{
	for (const char *p = r; (p = strstr(p, "pid=")); p++) {
		const char *q = p + 4;

		while (isdigit((unsigned char)*q))
			q++;
		if (q > p + 4 && !strncmp(q, ", ip=", 5))
			return p;
	}
	return NULL;
}

/*
 * Whether the job's text holds a failure Ray relayed from a worker it names only by address.
 * On their own: RayTaskError's (and an actor's creation task's) header naming where the task
 * ran ("ray::f() (pid=N, ip=A, ...)"), the raylet's lines ("(raylet, ip=A) ...") and its
 * report of a dead worker ("Worker IP address: A"), and Ray's memory monitor, whose kills and
 * summaries name the node by address ("Memory on the node (IP: A, ...)", "at node (ID: X,
 * IP: A)", "Worker exit type: NODE_OUT_OF_MEMORY").  A line under a worker's prefix ("(Learner
 * pid=N, ip=A) ...") only beside the driver's report that a worker or actor died (RayActorError,
 * ActorDiedError, WorkerCrashedError, NodeDiedError, RayTaskError): a prefix alone is any
 * output that passed through Ray, the driver's own among it.  In a job of several nodes srun's
 * one failed task is then Ray's driver, which raised what a worker reported (ray.get re-raises
 * it): the driver's host is not where the failure was, and the address maps to no node
 * through anything the job cannot write (TRUST.md).
 */
static bool ray_relayed(const struct att *a)
{
	static const char *const mark[] = {"Worker IP address: ",
					   "Worker exit type: NODE_OUT_OF_MEMORY",
					   "Task was killed due to the node running low on memory",
					   "(raylet, ip=", "node (IP: "};
	static const char *const died[] = {"RayActorError", "ActorDiedError", "WorkerCrashedError",
					   "NodeDiedError", "RayTaskError"};
	bool prefixed = false, relay = false;

	for (size_t i = 0; i < a->ev->nobs; i++) {
		const struct pm_obs *o = &a->ev->obs[i];
		const char *r = o->raw, *p;

		if (!r || !job_text(a, o))
			continue;
		for (size_t k = 0; k < sizeof(mark) / sizeof(mark[0]); k++)
			if (strstr(r, mark[k]))
				return true;
		/* RayTaskError's header: "ray::NAME() (pid=N, ip=A" */
		if ((p = strstr(r, "ray::")) && (p = ray_pid_ip(p)) && p - r > 1 && p[-1] == '(')
			return true;
		/* the raylet's summary: "at node (ID: X, IP: A)" */
		if ((p = strstr(r, "at node (ID: ")) && strstr(p, ", IP: "))
			return true;
		prefixed |= ray_pid_ip(r) != NULL;
		for (size_t k = 0; k < sizeof(died) / sizeof(died[0]) && !relay; k++)
			relay = strstr(r, died[k]) != NULL;
	}
	return prefixed && relay;
}

/*
 * The candidates from FROM on whose origin lines are all past what tail printed of a
 * section's file (scan.c, section_overrun): no host's, so no host of the folder's either, not
 * srun's failed task's (a reporter's, where a peer's GPU fell off the bus) nor the report's.
 * Ambiguity, never a blame: the lead names no node (trust109; before, such lines were the
 * section's host's, and a node's own Xid appended below a neighbour's tail advised the
 * neighbour's exclusion).
 */
static void section_nowhere(struct att *a, size_t from)
{
	for (size_t i = from; i < a->nc; i++) {
		struct cand *c = &a->c[i];
		size_t n = 0, k;

		if (c->dead || c->node[0] || c->nowhere || c->lead != LEAD_RULE)
			continue;
		for (k = 0; k < c->nev; k++) {
			const struct pm_obs *o = &a->ev->obs[c->ev[k]];
			if (R(a, c->ev[k])->role != PM_ROLE_ORIGIN)
				continue;
			if (!o->sect_nobody)
				break;
			n++;
		}
		if (!n || k < c->nev)
			continue;
		c->nowhere = true;
		pm_att_cand_ranks_clear(c);
		pm_att_why(a,
			   "%s/%s is read on kernel lines past what tail printed of a section's "
			   "file, below its last line: they may be another log appended with no "
			   "header, or that host's, so they name no node.",
			   c->cls, c->sub);
	}
}

/* A hand-gathered folder whose launcher's failure report names one rank: a cause of no rank
 * is that rank's, and the host the report names for it (when it names one) that cause's.
 * Whose files name one host: a cause made without a node (Slurm's own end of the job, read
 * from its lines) happened on it.  Causes of many ranks (silence, timeouts, votes) get
 * neither.  The candidates from FROM on; with LATE, only fallback leads (phase 10's, made
 * after the others were placed). */
void pm_att_place_one_host(struct att *a, size_t from, bool late)
{
	const char *one;

	section_nowhere(a, from);

	if (a->ev->ntasks || a->ev->ncollect)
		return;
	if (!a->tnamed && torchrun_named(a) < 0)
		return;
	pm_rankset_done(a->hranks, &a->nhranks);
	int one_rank = a->nhranks == 1 ? a->hranks[0] : -1;
	const char *h = NULL;
	/* the report's host gainsaid: no node from it; where srun gainsays it, its rank
	 * neither, and no other host (srun's failed task's) either: the two disagree on where
	 * the failure was, and either may be the job's text (as a gainsaid prefix,
	 * pm_att_pgain_only) */
	if (one_rank >= 0 && report_yields(a, one_rank, &h))
		one_rank = -1;
	/* srun's own failed task is the program's rank where every step ran Python: a
	 * report naming another places nothing, and srun's task is read as without it */
	bool prog = one_rank >= 0 && report_program(a, one_rank);
	if (prog)
		one_rank = -1;
	if (one_rank >= 0) {
		const char *rep = !a->tfirst ? "The launcher's failure report names" :
					       "The earliest root cause torchrun's summaries "
					       "name is";

		for (size_t i = from; i < a->nc; i++) {
			struct cand *c = &a->c[i];
			/* srun's task id read as a rank gives way to the launcher's rank */
			if (!c->dead && c->lead == LEAD_RULE)
				drop_task_ranks(a, c, one_rank);
			/* a cause its own lines already put on that rank ("[rank3]: ValueError")
			 * where the report names the rank's host too: that host, as for a cause
			 * of no rank (several hosts in the folder leave it none otherwise) */
			if (!c->dead && c->nranks == 1 && c->ranks[0] == one_rank && h &&
			    !c->node[0] && c->lead == LEAD_RULE && !c->all_ranks && !c->nowhere &&
			    !(late && !c->fallback) && !pm_att_pgain_only(a, c) &&
			    !pm_cause_slurm_act(c->cls, c->sub) && !only_host(a)) {
				snprintf(c->node, sizeof(c->node), "%s", h);
				c->guess = true;
				pm_att_why(a,
					   "%s rank %d on %s: %s/%s, on that rank, is placed there.",
					   rep, one_rank, h, c->cls, c->sub);
				continue;
			}
			if (c->dead || c->nranks || c->lead != LEAD_RULE || c->all_ranks ||
			    c->nowhere || (late && !c->fallback) || pm_att_pgain_only(a, c) ||
			    pm_cause_slurm_act(c->cls, c->sub) ||
			    pm_att_cand_addrank(c, one_rank) < 0)
				continue;
			if (h && !c->node[0] && !only_host(a)) {
				snprintf(c->node, sizeof(c->node), "%s", h);
				c->guess = true;
				pm_att_why(a, "%s rank %d on %s: %s/%s is placed there.", rep,
					   one_rank, h, c->cls, c->sub);
			} else {
				pm_att_why(a, "%s rank %d: %s/%s is placed on it.", rep, one_rank,
					   c->cls, c->sub);
			}
		}
	}
	if ((!a->nhranks || prog) && !only_host(a)) {
		/* srun names one task that failed of itself, on one host (srun_failed); ONE
		 * is NULL where it names none, or several ("tasks 0-1: Exited ...") */
		one = a->srun_host[0] && !a->srun_many ? host_of(a, a->srun_host) : NULL;
		/* Ray's driver re-raised a worker's failure: not placed on its host */
		const char *driver = one && ray_relayed(a) ? one : NULL;

		if (driver)
			one = NULL;
		for (size_t i = from; i < a->nc; i++) {
			struct cand *c = &a->c[i];
			/* Slurm's own end of the job (a cancel, the time limit) is the job's,
			 * not the failed task's host's */
			if (c->dead || c->node[0] || c->nranks || c->lead != LEAD_RULE ||
			    c->all_ranks || c->nowhere || (late && !c->fallback) ||
			    pm_att_pgain_only(a, c) || pm_cause_slurm_act(c->cls, c->sub))
				continue;
			const char *own = srun_line_host(a, c);
			if (own && own != one && (one || srun_line_first(a, c))) {
				/* the lead is srun's report of another task (task 1: Killed):
				 * that line's host; where srun names no one failed task, only
				 * when it printed that report before any task's own failure
				 * (after it, the kill is its teardown of a failed or hung
				 * step, gpu-xid45-after-kill-near-miss) */
				snprintf(c->node, sizeof(c->node), "%s", own);
				c->guess = true;
				pm_att_why(a,
					   "srun's own report that %s/%s was read on names its "
					   "task's host, %s: it is placed there.",
					   c->cls, c->sub, own);
				continue;
			}
			if (driver) {
				pm_att_why(
					a,
					"srun reports task %d on %s as the one task that failed, "
					"but Ray relayed the failure from a worker it names by "
					"address alone: %s/%s is not placed on the driver's host.",
					a->srun_task, driver, c->cls, c->sub);
				driver = NULL;
			}
			if (!one)
				continue;
			snprintf(c->node, sizeof(c->node), "%s", one);
			c->guess = true;
			pm_att_why(a,
				   "srun reports task %d on %s as the one task that failed of "
				   "itself: %s/%s is placed there.",
				   a->srun_task, one, c->cls, c->sub);
		}
	}
	if (!(one = only_host(a)))
		return;
	for (size_t i = from; i < a->nc; i++) {
		struct cand *c = &a->c[i];
		if (!c->dead && !c->node[0] && c->lead == LEAD_RULE && !c->all_ranks &&
		    !c->nowhere && (!late || c->fallback) && !pm_att_pgain_only(a, c)) {
			snprintf(c->node, sizeof(c->node), "%s", one);
			c->guess = true;
		}
	}
}

/* Whether every line C was read on named in its prefix a host Slurm gainsays (A->pgain):
 * such a lead lost its node, and is placed on no other host. */
bool pm_att_pgain_only(const struct att *a, const struct cand *c)
{
	if (!a->pgain || !c->nev)
		return false;
	for (size_t k = 0; k < c->nev; k++)
		if (!a->pgain[c->ev[k]])
			return false;
	return true;
}

/* Whether C's node is only the folder's guess (pm_att_phase_place, pm_att_place_one_host):
 * no observation of C that names that node was read with it.  Such a node is the origin
 * the verdict names, never a node to exclude or repair. */
bool pm_att_node_guessed(const struct att *a, const struct cand *c)
{
	bool any = false, named = false, orig = false, origknown = false;

	if (!c || !c->node[0])
		return false;
	if (c->guess)
		return true;
	if (!a->guessed || c->lead != LEAD_RULE)
		return false;
	for (size_t k = 0; k < c->nev; k++) {
		const struct pm_obs *o = &a->ev->obs[c->ev[k]];
		bool g = a->guessed[c->ev[k]] || (a->libpfx && a->libpfx[c->ev[k]]);
		if (!o->node || strcmp(o->node, c->node))
			continue;
		if (R(a, c->ev[k])->role == PM_ROLE_ORIGIN) {
			orig = true;
			origknown |= !g;
		}
		if (g)
			any = true;
		else
			named = true;
	}
	/* a hardware lead whose every origin line there the folder's guess placed (a
	 * dmesg-shaped file whose name holds no kernel source's word: scan.c node_from_path)
	 * stays a guess beside the job's own lines that srun's label or task line places on
	 * that node: any job's failure on its node is so placed, and a job that writes
	 * `$(hostname).txt` fails there too (review38 H2) */
	if (c->hardware && orig && !origknown)
		return true;
	return any && !named;
}

/* Where the plugin's records or a collector's bundles are in the folder, srun's lines are
 * asked too (srun_placed), unless a bundle's records cover NODE: records that say nothing
 * of NODE, or that a job can write (loose), must not replace srun's report (review35 S1:
 * before, any record in the folder turned srun's gainsay off).  A task of NODE srun's lines
 * report twice, differently, counts as one Slurm ended: one of the lines is the job's, and
 * it must not lift the gainsay the other would give (review35 F4: before, one forged
 * "NODE: task 1: Exited with exit code 1" beside srun's "Terminated" raised a lead only
 * the job's output placed on NODE to supported). */
const char *pm_att_srun_ended(const struct att *a, const char *node)
{
	if (!node || !node[0])
		return NULL;
	if (a->ev->ntasks || a->ev->ncollect)
		return records_cover(a, node) ? NULL : srun_placed_ended(a, node);
	if (!a->srun_host[0] || a->srun_many || same_host(a->srun_host, node) ||
	    !(host_ended(a, node) || host_contested(a, node)))
		return NULL;
	return host_of(a, a->srun_host) ? host_of(a, a->srun_host) : a->srun_host;
}

int pm_att_srun_task(const struct att *a)
{
	return a->ev->ntasks || a->ev->ncollect ? a->psrun_task : a->srun_task;
}
