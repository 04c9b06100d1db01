/*
 * linetrust.c - trust per line and per field in the sources the engine trusts (TRUST.md).
 *
 * A source the job's user cannot write (slurmd's log, the kernel log, nvidia-smi) still
 * quotes what users chose: slurmstepd logs the stdout/stderr path or working directory it
 * could not open, the kernel logs a crashing process's name and the file name of the
 * library it crashed in, nvidia-smi lists the names of the processes on a GPU.  Such text
 * must never feed a match, and a line of slurmd's log belongs to a job only through its
 * own job field ("[25.batch]", "JobId=25"), never through a number anywhere in it.
 *
 * Before a chunk of such a file is scanned, a copy is made (same length, same line breaks,
 * so that offsets hold) in which:
 *  - a user-chosen field is masked with '_' (a word character: a rule that wants "some
 *    token here", such as a process name before "[pid]: segfault", still matches; literal
 *    text inside it cannot);
 *  - a line that is not the source's own (no "[stamp] " in slurmd's log), that carries
 *    another job's field, that names a node outside the job, or that carries no job field
 *    and is stamped outside the job's window, is blanked with spaces.
 * A field whose end cannot be told from its content (a path may hold ": " or a quote) is
 * masked to the end of its line: what slurmd writes after it is only errno's text.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "internal.h"
#include "ruleset.h"

#define MASK '_'
#define COMM_MAX 15 /* TASK_COMM_LEN - 1: a process name as the kernel prints it */

#define MAX_RAW 4 /* raw ids kept: a heterogeneous job's first components' */

struct lt {
	const struct pm_evidence *ev;
	const struct pm_file *f;
	const char *in;
	char *out; /* the copy, made at the first change */
	size_t len;
	/* the job's ids as slurm's lines write them; NULL unknown: its JobID, and its JobIDRaw,
	 * or a heterogeneous job's components' (each a job id of its own, 7001 and 7002 of
	 * 7001+0 and 7001+1) */
	const char *ids[1 + MAX_RAW];
	char raw[MAX_RAW][24];
	double lo, hi; /* the job's window; lo > hi: none */
	bool cont;     /* inside a record a user's newline split (pm_slurm_line's open) */
	int err;
};

static char *copy(struct lt *c)
{
	if (!c->out && !c->err) {
		if (!(c->out = malloc(c->len ? c->len : 1)))
			c->err = -1;
		else
			memcpy(c->out, c->in, c->len);
	}
	return c->out;
}

/* Mask [A, B) of the line at OFF. */
static void mask(struct lt *c, size_t off, size_t a, size_t b)
{
	char *o;

	if (a >= b || !(o = copy(c)))
		return;
	memset(o + off + a, MASK, b - a);
}

static void blank(struct lt *c, size_t off, size_t n)
{
	char *o;

	if (n && (o = copy(c)))
		memset(o + off, ' ', n);
}

/* The first occurrence of LIT in S[from, n), or n. */
static size_t find(const char *s, size_t n, size_t from, const char *lit)
{
	size_t l = strlen(lit);
	const char *p;

	if (from >= n || l > n - from)
		return n;
	p = memmem(s + from, n - from, lit, l);
	return p ? (size_t)(p - s) : n;
}

static bool word_char(char c)
{
	return pm_in_isalnum(c) || c == '_';
}

/* ---- user fields of slurmd's, slurmstepd's and slurmctld's own lines ---- */

/* Messages whose text after the marker is a path, a command or a name the user chose; for
 * the first ones slurmstepd ends the line with ": %m" (strerror's text), which is its own. */
static const struct {
	const char *lit;
	bool errno_tail;
	bool stepd; /* slurmstepd's own path message: "%s: %m" always */
} slurm_field[] = {
	{"Could not open stdout file ", true, true},
	{"Could not open stderr file ", true, true},
	{"Could not open stdin file ", true, true},
	{"Could not open ", true, false},
	{"could not open ", true, false},
	{"couldn't chdir to `", true, true},
	{"couldn't chdir to ", true, false},
	{"Unable to chdir to ", true, false},
	{"chdir(", false, false},
	{"chdir to ", false, false},
	{"execve(): ", true, true},
	{"execve(", false, false},
	{"Unable to open ", true, false},
	{"unable to open ", true, false},
	{"JobName=", false, false},
	{"Name=", false, false},
	{"Comment=", false, false},
	{"AdminComment=", false, false},
	{"WorkDir=", false, false},
	{"Command=", false, false},
	{"StdOut=", false, false},
	{"StdErr=", false, false},
	{"StdIn=", false, false},
	{"Script=", false, false},
	{"job_name", false, false},
	{"pyxis:     ", false, false},
	{"pyxis: [", false, false},
	{"container_image", false, false},
	{"Dependency=", false, false},
	{"MailUser=", false, false},
	{"Features=", false, false},
	{"Constraints=", false, false},
};

/* strerror's texts that slurmstepd appends to a path it could not use. */
static const char *const errno_texts[] = {
	"No such file or directory",
	"Permission denied",
	"Is a directory",
	"Not a directory",
	"Read-only file system",
	"No space left on device",
	"Disk quota exceeded",
	"File exists",
	"Too many levels of symbolic links",
	"File name too long",
	"Input/output error",
	"Stale file handle",
	"Operation not permitted",
	"Exec format error",
	"Text file busy",
	"Transport endpoint is not connected",
	"Resource temporarily unavailable",
	"Cannot allocate memory",
	"No such device or address",
	"Bad address",
};

/* Where a path field that slurmstepd ends with ": %m" (after a quote, for chdir's "`%s'")
 * ends: before the last ": " of the line when what follows is strerror's text; else N. */
static size_t errno_end(const char *m, size_t n, size_t from, bool quoted)
{
	size_t k = n, q;

	for (q = from; (q = find(m, n, q, ": ")) < n; q++)
		k = q;
	if (k == n)
		return n;
	for (size_t i = 0; i < sizeof(errno_texts) / sizeof(errno_texts[0]); i++) {
		size_t l = strlen(errno_texts[i]);
		size_t e = k + 2, p = k;

		if (quoted) { /* "`%s': %m: going to /tmp instead": the quote's ": " */
			p = n;
			for (q = from; (q = find(m, n, q, "': ")) < n; q++)
				p = q;
			if (p == n)
				return n;
			e = p + 3;
		}
		if (e + l <= n && !memcmp(m + e, errno_texts[i], l) &&
		    (e + l == n || m[e + l] == ':' || m[e + l] == ' '))
			return p;
	}
	return n;
}

bool pm_slurm_line_closes(const char *s, size_t n)
{
	static const char tmp[] = ": going to /tmp instead";
	size_t tl = sizeof(tmp) - 1;

	if (n >= tl && !memcmp(s + n - tl, tmp, tl))
		n -= tl;
	for (size_t i = 0; i < sizeof(errno_texts) / sizeof(errno_texts[0]); i++) {
		size_t l = strlen(errno_texts[i]);
		if (n >= l + 2 && !memcmp(s + n - l, errno_texts[i], l) && s[n - l - 2] == ':' &&
		    s[n - l - 1] == ' ')
			return true;
	}
	return false;
}

/* The span [*A, *B) of MSG (its length N) that a user chose; *A = N when none.  *OPEN: a
 * path that slurmstepd ends with strerror's text, and that text is not on this line. */
static void slurm_user_span(const char *m, size_t n, size_t *a, size_t *b, bool *open)
{
	size_t at = n, bk = n, best = 0, k, i;

	*a = *b = n;
	*open = false;
	/* slurmd's own batch script in its spool is no user's path */
	if ((k = find(m, n, 0, "execve(): ")) < n) {
		size_t e = k + 10;
		while (e < n && m[e] != ' ')
			e++;
		if (e - k - 10 > 14 && !memcmp(m + e - 14, "/slurm_script:", 14))
			return;
	}
	for (i = 0; i < sizeof(slurm_field) / sizeof(slurm_field[0]); i++) {
		const char *lit = slurm_field[i].lit;
		size_t l = strlen(lit);

		k = find(m, n, 0, lit);
		/* "Name=" inside "JobName=" is the same field; a key must start a word */
		while (k < n && k > 0 && strchr(lit, '=') && word_char(m[k - 1]))
			k = find(m, n, k + 1, lit);
		/* the earliest marker; the longest of those that start there */
		if (k < bk || (k == bk && k < n && l > best)) {
			bk = k;
			best = l;
			at = k + l;
			*b = slurm_field[i].errno_tail ? errno_end(m, n, at, lit[l - 1] == '`') : n;
			*open = slurm_field[i].stepd && *b == n;
		}
	}
	/* a quoted value, and a path, before any marker: their end cannot be told, so the rest
	 * of the line */
	for (i = 0; i < bk && i < n; i++) {
		char ch = m[i];
		bool quote = (ch == '"' || ch == '`' ||
			      (ch == '\'' && (i == 0 || !pm_in_isalnum(m[i - 1]))));
		bool path = (ch == '/' || ch == '~') &&
			    (i == 0 || m[i - 1] == ' ' || m[i - 1] == '=' || m[i - 1] == '(' ||
			     m[i - 1] == ':' || m[i - 1] == ',');
		if (quote || path) {
			*a = i;
			*b = n;
			*open = false;
			return;
		}
	}
	*a = at < n ? at : n;
	if (*b < *a)
		*b = n;
}

/* "[25.batch] ", "[25.0] ", "[25] " at S: its length, the job number in *J (length *JN). */
static size_t step_field(const char *s, size_t n, const char **j, size_t *jn)
{
	size_t i = 1, d;

	if (n < 3 || s[0] != '[' || !pm_in_isdigit(s[1]))
		return 0;
	while (i < n && pm_in_isdigit(s[i]))
		i++;
	d = i - 1;
	if (i < n && s[i] == '.')
		for (i++; i < n && (pm_in_isalnum(s[i]) || s[i] == '_' || s[i] == '+'); i++)
			;
	if (i >= n || s[i] != ']' || d > 12)
		return 0;
	*j = s + 1;
	*jn = d;
	return i + 1 + (i + 1 < n && s[i + 1] == ' ');
}

bool pm_slurm_job_match(const char *s, size_t n, const char *id)
{
	size_t d = 0, e, il = id ? strlen(id) : 0;
	const char *forms[3];
	size_t fl[3], nf = 0;

	if (!il)
		return false;
	while (d < n && d < 12 && pm_in_isdigit(s[d]))
		d++;
	forms[nf] = s;
	fl[nf++] = d;
	e = d;
	if (e + 1 < n && s[e] == '_' && pm_in_isdigit(s[e + 1])) {
		for (e++; e < n && pm_in_isdigit(s[e]); e++)
			;
		forms[nf] = s;
		fl[nf++] = e;
	}
	if (e + 2 < n && s[e] == '(' && pm_in_isdigit(s[e + 1])) {
		size_t p = e + 1;
		while (p < n && pm_in_isdigit(s[p]))
			p++;
		if (p < n && s[p] == ')') {
			forms[nf] = s + e + 1;
			fl[nf++] = p - e - 1;
		}
	}
	for (size_t i = 0; i < nf; i++)
		if (fl[i] && il == fl[i] && !memcmp(id, forms[i], fl[i]))
			return true;
	return false;
}

static bool job_is(const struct lt *c, const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof(c->ids) / sizeof(c->ids[0]); i++)
		if (pm_slurm_job_match(s, n, c->ids[i]))
			return true;
	return false;
}

/* The job field of slurm's own text M[0, N): "JobId=25", "StepId=25.0", "job 25",
 * "JOB 25", "STEP 25.0"; its offset, or N when none. */
static size_t job_field(const char *m, size_t n, size_t *at)
{
	static const char *const keys[] = {"JobId=", "StepId=", "JobID=", "job ",   "Job ",
					   "JOB ",   "STEP ",	"jobid ", "job_id="};
	size_t best = n;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		size_t k = 0, l = strlen(keys[i]);
		while ((k = find(m, n, k, keys[i])) < n) {
			if ((k == 0 || !word_char(m[k - 1])) && k + l < n &&
			    pm_in_isdigit(m[k + l])) {
				if (k + l < best)
					best = k + l;
				break;
			}
			k++;
		}
	}
	*at = best;
	return best;
}

static bool hostish(const char *s, size_t l)
{
	bool digit = false;

	if (!l || l > 63 || !pm_in_isalpha(s[0]))
		return false;
	for (size_t i = 0; i < l; i++) {
		if (pm_in_isdigit(s[i]))
			digit = true;
		else if (!pm_in_isalnum(s[i]) && s[i] != '-' && s[i] != '.' && s[i] != '_')
			return false;
	}
	return digit;
}

/* One of the job's nodes; "n1.cluster" is n1 (a short and a full name of one host). */
static bool job_node(const struct pm_evidence *ev, const char *s, size_t l)
{
	const char *dot = memchr(s, '.', l);
	size_t sl = dot ? (size_t)(dot - s) : l;

	for (size_t i = 0; i < ev->job.nnodes; i++) {
		const char *jn = ev->job.nodes[i];
		size_t jl = strcspn(jn, ".");
		if ((strlen(jn) == l && !memcmp(jn, s, l)) || (jl == sl && !memcmp(jn, s, sl)))
			return true;
	}
	return false;
}

/* Whether slurm's own text M[0, N) names, as the node of what it says, a node that is not
 * one of the job's ("*** JOB 25 ON n3 ...", "update_node: node n3 reason set to"). */
static bool names_other_node(const struct lt *c, const char *m, size_t n)
{
	static const char *const keys[] = {" ON ", "node ", "Node ", "NodeName="};

	if (!c->ev->job.nnodes)
		return false;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		size_t k = 0, l = strlen(keys[i]);
		while ((k = find(m, n, k, keys[i])) < n) {
			size_t w = k + l, e = w;
			if (keys[i][0] != ' ' && k > 0 && word_char(m[k - 1])) {
				k++;
				continue;
			}
			while (e < n &&
			       (pm_in_isalnum(m[e]) || m[e] == '-' || m[e] == '.' || m[e] == '_'))
				e++;
			while (e > w && (m[e - 1] == '.' || m[e - 1] == '_'))
				e--;
			if (hostish(m + w, e - w) && !job_node(c->ev, m + w, e - w))
				return true;
			k++;
		}
	}
	return false;
}

bool pm_slurm_line(const char *s, size_t n, struct pm_slurm_line *out)
{
	size_t k, m, u, ue, at;

	memset(out, 0, sizeof(*out));
	out->user = out->user_end = n;
	k = pm_in_bracket_iso(s, n, &out->t);
	if (!k)
		return false;
	k += k < n && s[k] == ' ';
	m = k + step_field(s + k, n - k, &out->job, &out->job_len);
	slurm_user_span(s + m, n - m, &u, &ue, &out->open);
	u += m;
	out->user_end = ue + m;
	if (!out->job && job_field(s + m, u - m, &at) < u - m) {
		out->job = s + m + at;
		out->job_len = u - m - at;
	}
	out->text = m;
	out->user = u;
	return true;
}

/* One line of a slurm log (or of a scheduler file that is not a table) at OFF. */
static void slurm_line(struct lt *c, size_t off, const char *s, size_t n)
{
	struct pm_slurm_line l;

	if (!n)
		return;
	/* slurmstepd writes a user's path as it is, newlines included: until the record's
	 * strerror text, every line is the user's, however much it looks like slurm's */
	if (c->cont) {
		c->cont = !pm_slurm_line_closes(s, n);
		blank(c, off, n);
		return;
	}
	if (!pm_slurm_line(s, n, &l)) {
		/* not a line slurm wrote: a continuation, or text planted some other way */
		blank(c, off, n);
		return;
	}
	mask(c, off, l.user, l.user_end);
	c->cont = l.open;
	if (l.job && c->ids[0] && !job_is(c, l.job, l.job_len)) {
		blank(c, off, n); /* another job's line */
		return;
	}
	if (c->lo <= c->hi && (l.t < c->lo || l.t > c->hi)) {
		blank(c, off, n); /* a line from outside the job's time (an earlier run's too) */
		return;
	}
	if (names_other_node(c, s + l.text, l.user - l.text))
		blank(c, off, n);
}

/* ---- the kernel's log ---- */

/* Mask the process name that ends right before "[pid]" at END (the kernel's "%s[%d]"),
 * starting no earlier than FROM. */
static void mask_comm_before(struct lt *c, size_t off, const char *s, size_t from, size_t end)
{
	size_t a = end > from + COMM_MAX ? end - COMM_MAX : from;

	(void)s;
	mask(c, off, a, end);
}

/* "Killed process 123 (comm) ...", "reaped process 123 (comm)": the name in parentheses. */
static void mask_paren_comm(struct lt *c, size_t off, const char *s, size_t n, size_t k)
{
	size_t p = k, e;

	while (p < n && pm_in_isdigit(s[p]))
		p++;
	if (p + 1 >= n || s[p] != ' ' || s[p + 1] != '(')
		return;
	p += 2;
	/* the ')' the kernel wrote is the last one within a name's length */
	e = n;
	for (size_t i = p; i < n && i <= p + COMM_MAX; i++)
		if (s[i] == ')')
			e = i;
	mask(c, off, p, e);
}

/* A row of the OOM killer's task dump, "[  1234]  1000  1234  12345  678  90112  0  0 python":
 * after the numbers, the process name. */
static void task_row(struct lt *c, size_t off, const char *s, size_t b, size_t n)
{
	size_t p = b, nums = 0;

	if (p >= n || s[p] != '[')
		return;
	for (p++; p < n && s[p] == ' '; p++)
		;
	if (p >= n || !pm_in_isdigit(s[p]))
		return;
	while (p < n && pm_in_isdigit(s[p]))
		p++;
	if (p >= n || s[p] != ']')
		return;
	for (p++;;) {
		size_t q = p;
		while (q < n && s[q] == ' ')
			q++;
		size_t t = q;
		if (t < n && s[t] == '-')
			t++;
		if (t >= n || !pm_in_isdigit(s[t]))
			break;
		while (t < n && pm_in_isdigit(s[t]))
			t++;
		if (t < n && s[t] != ' ')
			break;
		p = t;
		nums++;
	}
	while (p < n && s[p] == ' ')
		p++;
	if (nums >= 4)
		mask(c, off, p, n);
}

/* The bytes of a kernel line's message, for kfind: a literal with a byte the message lacks
 * is not in it, which spares most of the twenty searches of each line. */
struct bytes {
	uint64_t bit[4];
};

static void bytes_of(struct bytes *by, const char *s, size_t n, size_t b)
{
	memset(by, 0, sizeof(*by));
	for (size_t i = b; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		by->bit[ch >> 6] |= 1ULL << (ch & 63);
	}
}

/* find() in S[from, n) of a message whose bytes from B <= FROM on are BY. */
static size_t kfind(const struct bytes *by, const char *s, size_t n, size_t from, const char *lit)
{
	for (const unsigned char *p = (const unsigned char *)lit; *p; p++)
		if (!(by->bit[*p >> 6] & (1ULL << (*p & 63))))
			return n;
	return find(s, n, from, lit);
}

/* "PRE comm:123 POST" (from B on): the name between PRE and the ":pid" just before POST. */
static void mask_comm_pid(struct lt *c, size_t off, const struct bytes *by, const char *s, size_t n,
			  size_t b, const char *pre, const char *post)
{
	size_t l = strlen(pre), k, e, p;

	if ((k = kfind(by, s, n, b, pre)) >= n || (e = kfind(by, s, n, k, post)) >= n)
		return;
	for (p = e; p > k && pm_in_isdigit(s[p - 1]); p--)
		;
	if (p > k + l && s[p - 1] == ':')
		mask_comm_before(c, off, s, k + l, p - 1);
}

/* "HOST TAG[PID]: " at S: a process's own line as the journal keeps it (journalctl -o
 * short-monotonic without -k shows every unit's lines beside the kernel's, which read "HOST
 * kernel: ").  The kernel writes no host before a "comm[pid]: " of its own. */
static bool journal_process_line(const char *s, size_t n)
{
	size_t i = 0, t;

	while (i < n && i < 64 &&
	       (pm_in_isalnum(s[i]) || s[i] == '.' || s[i] == '-' || s[i] == '_'))
		i++;
	if (!i || i >= n || s[i] != ' ')
		return false;
	for (t = ++i; i < n && i < t + 64 && s[i] != ' ' && s[i] != '[' && s[i] != ':'; i++)
		;
	if (i == t || i >= n || s[i] != '[')
		return false;
	for (t = ++i; i < n && pm_in_isdigit(s[i]); i++)
		;
	return i > t && i + 2 < n && s[i] == ']' && s[i + 1] == ':' && s[i + 2] == ' ';
}

/* The file name of the library a process crashed in, where it is a communication library's
 * (NCCL or RCCL and their net plugins, UCX, libfabric, the verbs providers) and holds only a
 * file name's letters, digits and ".+-_" up to its "[": how many bytes to leave unmasked
 * (through the "["), else 0.  Such a name can spell no other line's text (no blank, no
 * colon), and a rule reads it only to set a crash there aside as a peer's consequence
 * (native-crash-kernel-comm-library, `comm_crash`), never to blame a node: a user's own
 * library so named costs a missed native crash at most. */
static size_t comm_library(const char *s, size_t n)
{
	static const char *const libs[] = {"libnccl", "librccl", "libucm",    "libucp",
					   "libucs",  "libuct",	 "libfabric", "libibverbs",
					   "libmlx4", "libmlx5", "librdmacm", "libefa"};
	size_t i = 0, l;
	bool known = false;

	for (size_t k = 0; k < sizeof(libs) / sizeof(libs[0]) && !known; k++) {
		l = strlen(libs[k]);
		known = n > l && !memcmp(s, libs[k], l);
	}
	if (!known)
		return 0;
	while (i < n && i < 255 &&
	       (pm_in_isalnum(s[i]) || s[i] == '.' || s[i] == '+' || s[i] == '-' || s[i] == '_'))
		i++;
	return i < n && s[i] == '[' ? i + 1 : 0;
}

static void kernel_line(struct lt *c, size_t off, const char *s, size_t n)
{
	struct pm_prefix px;
	struct bytes by;
	size_t b, k, e;

	pm_prefix_parse(c->f->format, s, n, &px);
	b = px.skip < n ? px.skip : n;
	if (c->f->format == PM_FMT_DMESG && !px.node && b < n &&
	    journal_process_line(s + b, n - b)) {
		blank(c, off, n); /* any local user's: logger, or a unit's own output */
		return;
	}
	/* grep -H's "/home/x/fake.log:" before it: a line of a user's file */
	if (px.foreign) {
		blank(c, off, n);
		return;
	}
	/* "HOST kernel: ... bus.[88307]: notice": an identifier a user began with "kernel: " */
	if (c->f->format == PM_FMT_DMESG && px.node && pm_prefix_forged_kernel(s + b, n - b)) {
		blank(c, off, n);
		return;
	}
	/* the same in a syslog file, whose lines the scan trusts by the tag it reads on this
	 * masked copy (record): the masks below may cover the "[pid]: " (an identifier that
	 * ends inside NVRM's "name=" field, or in an "exe=" the line goes on to), so the tag is
	 * taken off here, decided on the line as written; the line is still read, untrusted */
	if (c->f->format == PM_FMT_SYSLOG && px.forged)
		mask(c, off, px.tag, px.tag + 6);
	bytes_of(&by, s, n, b);
	/* "comm[pid]: segfault at ... in lib.so[7f..+1000]", "traps: comm[pid] general
	 * protection fault ... in lib.so[...]": the name, and the library's file name (any
	 * text but '/', up to 255 bytes) to the end */
	if ((k = kfind(&by, s, n, b, "]: segfault at ")) < n ||
	    (k = kfind(&by, s, n, b, "] general protection fault")) < n ||
	    (k = kfind(&by, s, n, b, "] trap ")) < n) {
		e = k;
		while (e > b && pm_in_isdigit(s[e - 1]))
			e--;
		if (e > b && s[e - 1] == '[') {
			size_t from = pm_in_starts(s + b, n - b, "traps: ") ? b + 7 : b;
			mask_comm_before(c, off, s, from, e - 1);
		}
		if ((e = kfind(&by, s, n, k, " in ")) < n)
			mask(c, off, e + 4 + comm_library(s + e + 4, n - e - 4), n);
	}
	if ((k = kfind(&by, s, n, b, "Killed process ")) < n)
		mask_paren_comm(c, off, s, n, k + 15);
	if ((k = kfind(&by, s, n, b, "reaped process ")) < n)
		mask_paren_comm(c, off, s, n, k + 15);
	/* "oom-kill:...,task=comm,pid=123,uid=..." */
	if ((k = kfind(&by, s, n, b, ",task=")) < n) {
		size_t p = k + 6, q = p, last = n;
		while ((q = kfind(&by, s, n, q, ",pid=")) < n && q <= p + COMM_MAX)
			last = q++;
		mask(c, off, p, last);
	}
	/* "Sending SIGBUS to comm:123 due to ..." */
	mask_comm_pid(c, off, &by, s, n, b, "Sending SIGBUS to ", " due to");
	/* "INFO: task comm:123 blocked for more than", "soft lockup ... [comm:123]" */
	mask_comm_pid(c, off, &by, s, n, b, "INFO: task ", " blocked for");
	if ((k = kfind(&by, s, n, b, "stuck for ")) < n && (e = kfind(&by, s, n, k, "! [")) < n) {
		size_t p = n;
		while (p > e && s[p - 1] != ':')
			p--;
		if (p > e + 3)
			mask_comm_before(c, off, s, e + 3, p - 1);
	}
	/* "Comm: comm Tainted: ...", NVRM's ", name=comm, ...", audit's comm="..." exe="..." */
	if ((k = kfind(&by, s, n, b, " Comm: ")) < n)
		mask(c, off, k + 7, n);
	/* NVRM's "name=%s, " is the process's name: up to the last ", " a name could hold */
	if ((k = kfind(&by, s, n, b, ", name=")) < n) {
		size_t p = k + 7, q = p, end = p + COMM_MAX < n ? p + COMM_MAX : n;
		while ((q = kfind(&by, s, n, q, ", ")) < n && q <= p + COMM_MAX)
			end = q++;
		mask(c, off, p, end);
	}
	if ((k = kfind(&by, s, n, b, "comm=")) < n)
		mask(c, off, k + 5, n);
	if ((k = kfind(&by, s, n, b, "exe=")) < n)
		mask(c, off, k + 4, n);
	if ((k = kfind(&by, s, n, b, "proctitle=")) < n)
		mask(c, off, k + 10, n);
	/* ext4's "comm python: ...", the scheduler's "task:python state:D" */
	if ((k = kfind(&by, s, n, b, " comm ")) < n)
		mask(c, off, k + 6, k + 6 + COMM_MAX < n ? k + 6 + COMM_MAX : n);
	if ((k = kfind(&by, s, n, b, "task:")) < n && (e = kfind(&by, s, n, k, " state:")) < n)
		mask_comm_before(c, off, s, k + 5, e);
	/* "python invoked oom-killer: ..." */
	if ((k = kfind(&by, s, n, b, " invoked oom-killer")) < n)
		mask_comm_before(c, off, s, b, k);
	task_row(c, off, s, b, n);
	/* "comm[pid]: ..." at the start of the message (a signal, a fault) */
	for (k = b; k < n && k <= b + COMM_MAX; k++)
		if (s[k] == '[' && k + 1 < n && pm_in_isdigit(s[k + 1])) {
			for (e = k + 1; e < n && pm_in_isdigit(s[e]); e++)
				;
			if (e + 1 < n && s[e] == ']' && (s[e + 1] == ':' || s[e + 1] == ' '))
				mask(c, off, b, k);
			break;
		}
}

/* ---- nvidia-smi -q ---- */

/* "        Name                          : python": a process's name in "Processes". */
static void nvsmi_line(struct lt *c, size_t off, const char *s, size_t n)
{
	size_t i = 0, k;

	while (i < n && pm_in_isspace(s[i]))
		i++;
	if (!(pm_in_starts(s + i, n - i, "Name ") || pm_in_starts(s + i, n - i, "Name:") ||
	      pm_in_starts(s + i, n - i, "Process Name")))
		return;
	if ((k = find(s, n, i, ":")) < n)
		mask(c, off, k + 1, n);
}

/* "|    0   N/A  N/A      1395      C   python       25081MiB |": a process's name in the
 * default table's Processes box, after its Type, up to the memory's column. */
static void nvsmi_table_line(struct lt *c, size_t off, const char *s, size_t n)
{
	size_t i = 0, k, w = 0, end = n;
	bool type = false;

	while (i < n && pm_in_isspace(s[i]))
		i++;
	if (i >= n || s[i] != '|')
		return;
	while (end > i + 1 && pm_in_isspace(s[end - 1]))
		end--;
	if (end > i + 1 && s[end - 1] == '|')
		end--;
	for (k = i + 1; k < end && w < 6 && !type;) {
		size_t b;
		while (k < end && pm_in_isspace(s[k]))
			k++;
		b = k;
		while (k < end && !pm_in_isspace(s[k]))
			k++;
		if (k == b)
			break;
		w++;
		/* the Type column after the pid: C, G, C+G, M, M+C */
		type = w >= 3 && k - b <= 3;
		for (size_t j = b; type && j < k; j++)
			type = s[j] == 'C' || s[j] == 'G' || s[j] == 'M' || s[j] == '+';
	}
	if (type && k < end)
		mask(c, off, k, end);
}

/* ---- the chunk ---- */

/* How far the node's clock may be from the controller's (ATTRIBUTION.md phase 4). */
static double node_skew(const struct pm_evidence *ev, const char *node)
{
	double d = 0;
	bool seen = false;

	if (!node || !(ev->job.end > 0))
		return 0;
	for (size_t i = 0; i < ev->ncollect; i++)
		if (ev->collect[i].node && !strcmp(ev->collect[i].node, node) &&
		    (!seen || ev->collect[i].start - ev->job.end < d)) {
			d = ev->collect[i].start - ev->job.end;
			seen = true;
		}
	return fabs(d);
}

static void job_context(struct lt *c)
{
	const struct pm_evidence *ev = c->ev;
	const char *id = ev->job.id;
	double g = ev->rs ? ev->rs->grace_s : 300, sk;
	size_t n = 0, k = 0, r = 0;

	if (id) {
		while (id[n] && (pm_in_isdigit(id[n]) || id[n] == '_'))
			n++;
		if (n && !id[n] && pm_in_isdigit(id[0]))
			c->ids[k++] = id;
	}
	for (size_t i = 0; i < ev->nfacts && r < MAX_RAW; i++) {
		double raw = ev->facts[i].value;
		if (ev->facts[i].node || strcmp(ev->facts[i].name, "job.id_raw") || raw < 0 ||
		    raw >= 1e15)
			continue;
		snprintf(c->raw[r], sizeof(c->raw[r]), "%.0f", raw);
		c->ids[k++] = c->raw[r++];
	}
	c->lo = 1;
	c->hi = 0;
	if (ev->job.start > 0 || ev->job.end > 0) {
		sk = node_skew(ev, c->f->node);
		c->lo = ev->job.start > 0 ? ev->job.start - g - sk : -HUGE_VAL;
		c->hi = ev->job.end > 0 ? ev->job.end + g + sk : HUGE_VAL;
	}
}

int pm_trust_mask(const struct pm_evidence *ev, const struct pm_file *f, const char *buf,
		  size_t len, char **out)
{
	struct lt c = {.ev = ev, .f = f, .in = buf, .len = len};
	void (*fn)(struct lt *, size_t, const char *, size_t) = NULL;
	size_t pos = 0;

	*out = NULL;
	if (f->source == PM_SRC_SCHEDULER)
		fn = slurm_line;
	else if (f->source == PM_SRC_KERNEL_LOG)
		fn = kernel_line;
	else if (f->source == PM_SRC_GPU_STATE && f->format == PM_FMT_NVSMI_Q)
		fn = nvsmi_line;
	else if (f->source == PM_SRC_GPU_STATE && f->format == PM_FMT_NVSMI_TABLE)
		fn = nvsmi_table_line;
	if (!fn || !buf || !len)
		return 0;
	if (fn == slurm_line)
		job_context(&c);
	while (pos < len && !c.err) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - buf) - pos : len - pos;

		/* a carriage return ends a line for a reader as well */
		if (n && buf[pos + n - 1] == '\r')
			n--;
		fn(&c, pos, buf + pos, n);
		pos = nl ? (size_t)(nl - buf) + 1 : len;
	}
	if (c.err) {
		free(c.out);
		return -1;
	}
	*out = c.out;
	return 0;
}
