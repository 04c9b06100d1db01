/*
 * parse_sched.c - what the scheduler and the node say about the job: sacct (-P and table
 * forms), scontrol show job, /proc/meminfo, and the plugin's rank_map / task_exit records.
 *
 * Scheduler times carry no zone (Slurm prints local time): they are read as UTC, as every
 * stamp without an offset is (FORMATS.md), and marked so (local_times): where the node's own
 * logs stamp their lines with an offset, pm_scan_all reads them in it.  Fields are found by name, never by position.
 * A parser sets only what its file tells: an absent or unreadable field leaves the job
 * information as it was.
 *
 * The plugin's records, one JSON object per line (unknown keys are ignored):
 *
 *   {"schema":"postmortem.rankmap/1","job":"42","step":"0","node":"n1","node_id":0,
 *    "rank":3,"local_rank":1,"pid":1234,"gpus":"0,1","start":1796010000.123}
 *   {"schema":"postmortem.taskexit/1","job":"42","step":"0","node":"n1","rank":3,
 *    "pid":1234,"status":256,"exit_code":1,"signal":0,"core":false,"end":1796013600.5}
 *
 * rank is the task's global rank (S_TASK_GLOBAL_ID); status is the raw wait status that
 * slurmstepd saw (256 = exit 1, 15 = SIGTERM); exit_code, signal and core, when present,
 * win over what status says.  start and end are epoch seconds (an ISO 8601 string is
 * accepted).  Records of the batch script, extern and interactive steps are skipped: their
 * task 0 is not rank 0.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <jansson.h>

#include "input.h"
#include "evidence.h"
#include "internal.h"

#define MAX_COLS 128
#define MAX_RANK (1 << 20)
#define MAX_JSON_LINE (64 * 1024)
#define STEP_SPECIAL 4294967290ULL /* Slurm's special step ids start here */

struct field {
	const char *s;
	size_t n;
};

static const char *file_node(const struct pm_evidence *ev, size_t file)
{
	return file < ev->nfiles ? ev->files[file].node : NULL;
}

static int nomem(char *reason, size_t rlen)
{
	errno = ENOMEM;
	return pm_in_fail(reason, rlen, "out of memory");
}

/* ---- job fields shared by sacct and scontrol ---- */

/* Merge the sorted unique NAMES (taken over) into the job's sorted unique node list. */
static int job_add_nodes(struct pm_jobinfo *job, char **names, size_t n)
{
	char **out;
	size_t i = 0, j = 0, k = 0;
	int c;

	out = malloc((job->nnodes + n + 1) * sizeof(*out));
	if (!out) {
		for (i = 0; i < n; i++)
			free(names[i]);
		return -1;
	}
	while (i < job->nnodes || j < n) {
		c = i == job->nnodes ? 1 : j == n ? -1 : strcmp(job->nodes[i], names[j]);
		if (c <= 0)
			out[k++] = job->nodes[i++];
		else
			out[k++] = names[j++];
		if (c == 0)
			free(names[j++]);
	}
	free(job->nodes);
	job->nodes = out;
	job->nnodes = k;
	return 0;
}

/* A NodeList value: expanded, noted as known nodes, merged into the job.  -1 on ENOMEM. */
static int set_nodelist(struct pm_evidence *ev, struct pm_jobinfo *job, const char *s, size_t n,
			size_t *count)
{
	char **names;
	size_t cnt, i;
	int rc;

	pm_in_trim(&s, &n);
	/* a value cut by sacct's column width ends in '+' */
	if (n == 0 || s[n - 1] == '+' || pm_in_ieq(s, n, "None assigned") ||
	    pm_in_ieq(s, n, "(null)") || pm_in_ieq(s, n, "None"))
		return 0;
	if (pm_hostlist_expand(s, n, &names, &cnt))
		return errno == ENOMEM ? -1 : 0;
	for (i = 0; i < cnt; i++)
		if (pm_ev_note_node(ev, names[i], strlen(names[i])))
			break;
	rc = i < cnt ? -1 : 0;
	if (rc) {
		for (i = 0; i < cnt; i++)
			free(names[i]);
	} else {
		rc = job_add_nodes(job, names, cnt);
	}
	free(names);
	if (count)
		*count = cnt;
	return rc;
}

/* The job state a value cut by sacct's column width begins ("OUT_OF_ME" in the default
 * width of ten, "NODE_F" in State%7): the one state of Slurm's list it begins, or NULL when it
 * begins none or several ("C", "RE"), which is then kept as it was printed. */
static const char *state_uncut(const char *s, size_t n)
{
	static const char *const states[] = {"BOOT_FAIL",    "CANCELLED",   "COMPLETED",
					     "COMPLETING",   "CONFIGURING", "DEADLINE",
					     "FAILED",	     "NODE_FAIL",   "OUT_OF_MEMORY",
					     "PENDING",	     "PREEMPTED",   "REQUEUED",
					     "RESIZING",     "REVOKED",	    "RUNNING",
					     "SPECIAL_EXIT", "STOPPED",	    "SUSPENDED",
					     "TIMEOUT",	     NULL};
	const char *hit = NULL;

	for (size_t i = 0; states[i]; i++) {
		if (strlen(states[i]) < n || strncmp(states[i], s, n) != 0)
			continue;
		if (strlen(states[i]) == n)
			return states[i];
		if (hit)
			return NULL;
		hit = states[i];
	}
	return hit;
}

/* "COMPLETED", "CANCELLED by 1000", "CANCELLED+" and "OUT_OF_ME+" (cut). -1 on ENOMEM. */
static int set_state(struct pm_jobinfo *job, const char *s, size_t n)
{
	size_t w = 0, b;
	const char *full = NULL;

	pm_in_trim(&s, &n);
	while (w < n && !pm_in_isspace(s[w]))
		w++;
	if (w > 0 && s[w - 1] == '+') {
		w--;
		full = state_uncut(s, w);
	}
	if (w == 0)
		return 0;
	if (full ? pm_strset(&job->state, full, strlen(full)) : pm_strset(&job->state, s, w))
		return -1;
	b = w;
	while (b < n && pm_in_isspace(s[b]))
		b++;
	if (n - b > 3 && pm_in_ieq(s + b, 2, "by") && pm_in_isspace(s[b + 2])) {
		b += 3;
		while (b < n && pm_in_isspace(s[b]))
			b++;
		if (b < n && pm_strset(&job->cancelled_by, s + b, n - b))
			return -1;
	}
	return 0;
}

/* "1:0" -> exit code 1, signal 0. */
static void set_exit(struct pm_jobinfo *job, const char *s, size_t n)
{
	const char *c;
	int code, sig;

	pm_in_trim(&s, &n);
	c = memchr(s, ':', n);
	if (!c || !pm_in_int_range(s, (size_t)(c - s), 0, 255, &code) ||
	    !pm_in_int_range(c + 1, n - (size_t)(c - s) - 1, 0, 255, &sig))
		return;
	job->exit_code = code;
	job->exit_signal = sig;
}

/* A whole field that is an ISO time ("2026-11-30T03:40:00"); "Unknown", "None" are not. */
static bool stamp(const char *s, size_t n, double *t, struct pm_jobinfo *job)
{
	struct pm_in_stamp st;

	pm_in_trim(&s, &n);
	if (n == 0 || pm_in_iso(s, n, &st) != n)
		return false;
	*t = st.t;
	job->local_times = !st.zone;
	return true;
}

/* A duration as sacct's Elapsed and scontrol's RunTime print it: "[D-]HH:MM:SS", "MM:SS". */
static bool duration(const char *s, size_t n, double *secs)
{
	long long part[3] = {0, 0, 0}, days = 0, v;
	size_t np = 0, i = 0, j;
	const char *dash;

	pm_in_trim(&s, &n);
	if ((dash = memchr(s, '-', n))) {
		if (!pm_in_int(s, (size_t)(dash - s), &days) || days < 0 || days > 100000)
			return false;
		i = (size_t)(dash - s) + 1;
	}
	while (i < n && np < 3) {
		for (j = i; j < n && s[j] != ':'; j++)
			;
		if (j == i || !pm_in_int(s + i, j - i, &v) || v < 0 || (np > 0 && v > 59))
			return false;
		part[np++] = v;
		i = j + 1;
		if (j == n)
			break;
	}
	if (np < 2 || i <= n - 1 || (dash && np != 3))
		return false;
	*secs = (double)days * 86400 +
		(np == 3 ? part[0] * 3600 + part[1] * 60 + part[2] : part[0] * 60 + part[1]);
	return true;
}

/* Whether the job's state is one it ended in (its Elapsed then spans its whole run). */
static bool state_final(const char *state)
{
	static const char *const live[] = {"RUNNING",	"PENDING",    "SUSPENDED",   "REQUEUED",
					   "RESIZING",	"COMPLETING", "CONFIGURING", "STOPPED",
					   "SIGNALING", "STAGE_OUT",  NULL};

	if (!state)
		return false;
	for (size_t i = 0; live[i]; i++)
		if (!strcmp(state, live[i]))
			return false;
	return true;
}

/* A record with one of Start and End and the job's run time (Elapsed, RunTime) gives the
 * other: End = Start + Elapsed once the job has ended, Start = End - Elapsed.  Without it the
 * window stays open on that side (pm_att_no_window). */
static void window_from_elapsed(struct pm_jobinfo *job, const char *s, size_t n)
{
	double el;

	if ((job->start > 0) == (job->end > 0) || !duration(s, n, &el))
		return;
	if (job->end > 0 && job->end - el > 0) {
		job->start = job->end - el;
		job->start_derived = true;
	} else if (job->start > 0 && state_final(job->state)) {
		job->end = job->start + el;
		job->end_derived = true;
	}
	job->elapsed = el;
}

/* Whether a gres type names a MIG profile ("1g.10gb", "a100_3g.40gb", "1g.5gb+me"): Slurm
 * then counts MIG instances, not GPUs. */
static bool mig_type(const char *s, size_t n)
{
	for (size_t i = 1; i + 3 < n; i++)
		if (s[i] == 'g' && s[i + 1] == '.' && pm_in_isdigit(s[i - 1]) &&
		    pm_in_isdigit(s[i + 2]))
			return true;
	return false;
}

/* Whether a TRES list holds a typed gpu gres of a MIG profile. */
static bool tres_mig(const char *s, size_t n)
{
	const char *c;
	size_t f;

	while (n > 0) {
		c = memchr(s, ',', n);
		f = c ? (size_t)(c - s) : n;
		if (pm_in_starts(s, f, "gres/gpu:") && mig_type(s + 9, f - 9))
			return true;
		if (!c)
			break;
		n -= f + 1;
		s = c + 1;
	}
	return false;
}

/* gres/gpu in a TRES list: "cpu=8,gres/gpu=16,mem=64G"; a typed "gres/gpu:h100=16" if alone. */
static bool tres_gpus(const char *s, size_t n, long long *gpus)
{
	const char *c;
	bool typed = false;
	size_t f;

	while (n > 0) {
		c = memchr(s, ',', n);
		f = c ? (size_t)(c - s) : n;
		if (pm_in_starts(s, f, "gres/gpu=") && pm_in_int(s + 9, f - 9, gpus) && *gpus >= 0)
			return true;
		if (!typed && pm_in_starts(s, f, "gres/gpu:")) {
			const char *eq = memchr(s, '=', f);

			typed = eq && pm_in_int(eq + 1, f - (size_t)(eq - s) - 1, gpus) &&
				*gpus >= 0;
		}
		if (!c)
			break;
		n -= f + 1;
		s = c + 1;
	}
	return typed;
}

/* Whether (S, N) holds nothing but characters of SET. */
static bool only(const char *s, size_t n, const char *set)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!s[i] || !strchr(set, s[i]))
			return false;
	return true;
}

static bool field_int(const struct field *f, long long lo, long long hi, int *v)
{
	const char *s = f->s;
	size_t n = f->n;

	pm_in_trim(&s, &n);
	return pm_in_int_range(s, n, lo, hi, v);
}

static bool field_set(const struct field *f)
{
	const char *s = f->s;
	size_t n = f->n;

	pm_in_trim(&s, &n);
	return n > 0 && !pm_in_ieq(s, n, "None") && !pm_in_ieq(s, n, "(null)") &&
	       !pm_in_ieq(s, n, "Unknown");
}

/* Copy a trimmed field into *DST when it says something. -1 on ENOMEM. */
static int field_str(char **dst, const struct field *f)
{
	const char *s = f->s;
	size_t n = f->n;

	pm_in_trim(&s, &n);
	if (!field_set(f) || n > 255)
		return 0;
	return pm_strset(dst, s, n);
}

/*
 * job.gpus_per_node and job.nodes facts, from what the record said.  GPUS is the job's
 * total, PER a count per node the record gives as such (scontrol's TresPerNode), or -1.  A
 * total is a count per node only on one node: --gpus=12 on two nodes may be 8 + 4, and its
 * mean would make the node given 4 one that "lost" 2 (gpu-count-uneven-nodes-near-miss); a
 * node's own count from the batch step is a fact of that node (sacct_node_gpus).  MIG: the
 * gres counts MIG instances, no GPU count at all.
 */
static int job_facts(struct pm_evidence *ev, size_t file, long long gpus, long long per, int nnodes,
		     bool mig)
{
	struct pm_jobinfo *job = pm_ev_job(ev);

	if (!job)
		return -1;
	if (nnodes > 0 && !pm_ev_add_fact(ev, file, NULL, -1, "job.nodes", nnodes, NULL))
		return -1;
	if (mig)
		return 0;
	if (per < 0 && nnodes == 1)
		per = gpus;
	if (per >= 0 && per < 1000000) {
		job->gpus_per_node = (int)per;
		if (!pm_ev_add_fact(ev, file, NULL, -1, "job.gpus_per_node", job->gpus_per_node,
				    NULL))
			return -1;
	}
	return 0;
}

/* ---- sacct ---- */

enum scol {
	SC_JOBID,
	SC_JOBIDRAW,
	SC_STATE,
	SC_EXIT,
	SC_START,
	SC_END,
	SC_NODELIST,
	SC_NNODES,
	SC_NTASKS,
	SC_ALLOCTRES,
	SC_REQTRES,
	SC_FAILED,
	SC_RESTARTS,
	SC_REQUEUE,
	SC_CLUSTER,
	SC_UID,
	SC_REASON,
	SC_ELAPSED,
	SC_JOBNAME,
	SC__COUNT
};

static const char *const scol_names[SC__COUNT] = {
	[SC_JOBID] = "JobID",	    [SC_JOBIDRAW] = "JobIDRaw",
	[SC_STATE] = "State",	    [SC_EXIT] = "ExitCode",
	[SC_START] = "Start",	    [SC_END] = "End",
	[SC_NODELIST] = "NodeList", [SC_NNODES] = "NNodes",
	[SC_NTASKS] = "NTasks",	    [SC_ALLOCTRES] = "AllocTRES",
	[SC_REQTRES] = "ReqTRES",   [SC_FAILED] = "FailedNode",
	[SC_RESTARTS] = "Restarts", [SC_REQUEUE] = "Requeue",
	[SC_CLUSTER] = "Cluster",   [SC_UID] = "UID",
	[SC_REASON] = "Reason",	    [SC_ELAPSED] = "Elapsed",
	[SC_JOBNAME] = "JobName",
};

struct table {
	bool piped;
	bool collapsed; /* the table's runs of blanks collapsed to one (collapsed_fields) */
	size_t span[MAX_COLS][2]; /* fixed-width columns: [start, end) */
	size_t ncols;
	size_t nhead;	    /* fields of the header */
	size_t user_col;    /* the first column a user fills (JobName, Comment, ...), or MAX_COLS */
	int col[SC__COUNT]; /* column of each known field, -1 absent */
	size_t body;	    /* offset of the first data line */
};

/* Whether (S, N) is a whole state word of sacct's, or one cut by its column's width with the
 * '+' sacct puts there ("OUT_OF_ME+"). */
static bool state_word(const char *s, size_t n)
{
	const char *st;

	if (n > 1 && s[n - 1] == '+')
		return state_uncut(s, n - 1) != NULL;
	st = state_uncut(s, n);
	return st && strlen(st) == n;
}

/* Whether (S, N) is an exit code as sacct prints it, "0:125". */
static bool exit_word(const char *s, size_t n)
{
	const char *c = memchr(s, ':', n);
	int v;

	return c && c > s && pm_in_int_range(s, (size_t)(c - s), 0, 255, &v) &&
	       pm_in_int_range(c + 1, n - (size_t)(c - s) - 1, 0, 255, &v);
}

/*
 * A row of a table whose runs of blanks were collapsed to one (a forum's page, a mail
 * rendered as HTML: the dashed rule keeps its groups, the header and the rows lose their
 * columns' places).  A step's empty columns leave no word, so which word is which column
 * cannot be told in general: only the job's id (the first word), its state and its exit code
 * are read, the state a word of Slurm's list (the State column's word where the row has a
 * word for every column, else the last such word before the first exit code, which follows
 * it in sacct's formats: a JobName, which comes before, shaped as a state is passed over),
 * with its "by <uid>"; every other column is left empty, nodes and times too: nothing here
 * may place or blame a node.
 */
static size_t collapsed_fields(const struct table *t, const char *l, size_t n, struct field *f)
{
	struct field w[MAX_COLS];
	size_t nw = 0, i = 0, j, st = MAX_COLS, ex = MAX_COLS;
	int sc = t->col[SC_STATE], ec = t->col[SC_EXIT], uid;

	for (j = 0; j < t->ncols; j++) {
		f[j].s = l;
		f[j].n = 0;
	}
	while (i < n && nw < MAX_COLS) {
		while (i < n && pm_in_isspace(l[i]))
			i++;
		for (j = i; j < n && !pm_in_isspace(l[j]); j++)
			;
		if (j > i) {
			w[nw].s = l + i;
			w[nw++].n = j - i;
		}
		i = j;
	}
	if (nw == 0)
		return t->ncols;
	if (nw == t->ncols && sc >= 0 && state_word(w[sc].s, w[sc].n)) {
		st = (size_t)sc;
	} else {
		for (j = 1; j < nw && !exit_word(w[j].s, w[j].n); j++)
			if (state_word(w[j].s, w[j].n))
				st = j;
	}
	if (st != MAX_COLS) {
		if (nw == t->ncols && ec >= 0 && (size_t)ec > st && exit_word(w[ec].s, w[ec].n))
			ex = (size_t)ec;
		for (j = st + 1; ex == MAX_COLS && j < nw; j++)
			if (exit_word(w[j].s, w[j].n))
				ex = j;
	}
	j = (size_t)(t->col[SC_JOBID] >= 0 ? t->col[SC_JOBID] : 0);
	f[j] = w[0];
	if (sc >= 0 && st != MAX_COLS) {
		f[sc] = w[st];
		/* "CANCELLED by 1000": three words of one value */
		if (st + 2 < nw && pm_in_ieq(w[st + 1].s, w[st + 1].n, "by") &&
		    pm_in_int_range(w[st + 2].s, w[st + 2].n, 0, 0x7fffffff, &uid))
			f[sc].n = (size_t)(w[st + 2].s + w[st + 2].n - w[st].s);
	}
	if (ec >= 0 && ex != MAX_COLS)
		f[ec] = w[ex];
	return t->ncols;
}

static size_t row_fields(const struct table *t, const char *l, size_t n, struct field *f)
{
	size_t i, nf = 0;
	const char *c;

	if (t->collapsed)
		return collapsed_fields(t, l, n, f);
	if (t->piped) {
		while (nf < MAX_COLS) {
			c = memchr(l, '|', n);
			f[nf].s = l;
			f[nf++].n = c ? (size_t)(c - l) : n;
			if (!c)
				break;
			n -= (size_t)(c - l) + 1;
			l = c + 1;
		}
		return nf;
	}
	for (i = 0; i < t->ncols; i++) {
		size_t a = t->span[i][0], b = t->span[i][1];

		f[i].s = l + (a < n ? a : n);
		f[i].n = a < n ? (b < n ? b : n) - a : 0;
	}
	return t->ncols;
}

/* Columns whose values the job's user chooses: in sacct -P a '|' in one of them shifts every
 * column after it (sacct does not escape it). */
static bool user_column(const char *s, size_t n)
{
	static const char *const names[] = {"JobName",	    "Comment",	     "WorkDir",
					    "SubmitLine",   "Constraints",   "Reservation",
					    "AdminComment", "SystemComment", "Container",
					    "Account",	    "QOS",	     "StdOut",
					    "StdErr",	    "StdIn",	     "Extra",
					    "WCKey"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (pm_in_ieq(s, n, names[i]))
			return true;
	return false;
}

/* The header (L, N) of a table whose blanks were collapsed (collapsed_fields): as many words
 * as the dashed rule has groups, JobID among them.  Only the columns collapsed_fields reads
 * are kept. */
static int collapsed_header(const char *l, size_t n, struct table *t)
{
	size_t i = 0, j, k = 0;

	t->user_col = MAX_COLS;
	for (i = 0; i < SC__COUNT; i++)
		t->col[i] = -1;
	i = 0;
	while (i < n) {
		while (i < n && pm_in_isspace(l[i]))
			i++;
		for (j = i; j < n && !pm_in_isspace(l[j]); j++)
			;
		if (j == i)
			break;
		if (k >= t->ncols)
			return -1;
		if (t->user_col == MAX_COLS && user_column(l + i, j - i))
			t->user_col = k;
		if (pm_in_ieq(l + i, j - i, "JobID") ||
		    (t->col[SC_JOBID] < 0 && pm_in_ieq(l + i, j - i, "JobIDRaw")))
			t->col[SC_JOBID] = (int)k;
		else if (pm_in_ieq(l + i, j - i, "State"))
			t->col[SC_STATE] = (int)k;
		else if (pm_in_ieq(l + i, j - i, "ExitCode"))
			t->col[SC_EXIT] = (int)k;
		k++;
		i = j;
	}
	if (k != t->ncols || t->col[SC_JOBID] < 0 || t->col[SC_STATE] < 0)
		return -1;
	for (i = 0; i < SC__COUNT; i++)
		if (i != SC_JOBID && i != SC_STATE && i != SC_EXIT)
			t->col[i] = -1;
	t->collapsed = true;
	return 0;
}

/* The header (and for the table form, the dashed rule under it). */
static int sacct_header(const char *buf, size_t len, struct table *t)
{
	struct field f[MAX_COLS];
	const char *l, *d;
	size_t pos = 0, n, dn, nf, i, j, skip = 0;

	/* blank lines, and those a paste has above a table (a fence, the sacct command) */
	do {
		if (!pm_in_next_line(buf, len, &pos, &l, &n))
			return -1;
	} while (only(l, n, " \t") || (skip < 2 && pm_in_sacct_lead(l, n) && ++skip));
	t->piped = memchr(l, '|', n) != NULL;
	t->collapsed = false;
	if (!t->piped) {
		if (!pm_in_next_line(buf, len, &pos, &d, &dn))
			return -1;
		for (i = 0, t->ncols = 0; i < dn && t->ncols < MAX_COLS;) {
			if (d[i] != '-' && d[i] != ' ')
				return -1;
			if (d[i] == ' ') {
				i++;
				continue;
			}
			for (j = i; j < dn && d[j] == '-'; j++)
				;
			t->span[t->ncols][0] = i;
			t->span[t->ncols++][1] = j;
			i = j;
		}
		if (t->ncols == 0)
			return -1;
		/* the last column may be written wider than its rule */
		t->span[t->ncols - 1][1] = (size_t)-1;
	}
	t->body = pos;
	nf = row_fields(t, l, n, f);
	t->nhead = nf;
	t->user_col = MAX_COLS;
	for (i = 0; i < SC__COUNT; i++)
		t->col[i] = -1;
	for (j = 0; j < nf; j++) {
		const char *s = f[j].s;
		size_t sn = f[j].n;

		pm_in_trim(&s, &sn);
		if (t->user_col == MAX_COLS && user_column(s, sn))
			t->user_col = j;
		for (i = 0; i < SC__COUNT; i++)
			if (t->col[i] < 0 && pm_in_ieq(s, sn, scol_names[i]))
				t->col[i] = (int)j;
	}
	if (t->col[SC_JOBID] < 0)
		t->col[SC_JOBID] = t->col[SC_JOBIDRAW];
	if (t->col[SC_JOBID] < 0 && !t->piped)
		return collapsed_header(l, n, t);
	return t->col[SC_JOBID] < 0 ? -1 : 0;
}

/* Field C of the row, or an empty field. */
static struct field col(const struct table *t, const struct field *f, size_t nf, enum scol c)
{
	struct field e = {"", 0};
	int i = t->col[c];

	if (i < 0 || (size_t)i >= nf)
		return e;
	/* a row with more fields than the header: a user's value held a '|', and nothing after
	 * it is where the header says */
	if (t->piped && nf != t->nhead && (size_t)i > t->user_col)
		return e;
	e = f[i];
	pm_in_trim(&e.s, &e.n);
	return e;
}

/* Whether ID is shaped as sacct prints a job's or a step's id: 25, 25_3, 25_[4-9%2], 25+1,
 * 25.batch, 25.0, 25+1.extern. */
static bool id_shaped(struct field id)
{
	if (id.n == 0 || !pm_in_isdigit(id.s[0]))
		return false;
	for (size_t i = 1; i < id.n; i++)
		if (!pm_in_isalpha(id.s[i]) && !pm_in_isdigit(id.s[i]) &&
		    (!id.s[i] || !strchr("_+.[]-,%", id.s[i])))
			return false;
	return true;
}

/*
 * Whether every row of a -P listing that shows a column a user writes (JobName, Comment,
 * WorkDir, SubmitLine...) is whole.  sacct prints such a value as it is: a '|' in it adds
 * fields to its row (col reads nothing after it), and a line break in it splits its row
 * into physical lines, of which the user writes all but the first part's JobID and the last
 * part's Slurm columns, and may write whole rows between them (a job name
 * "x\n25|train|NODE_FAIL|...|n2\ny").  Which line is Slurm's then cannot be told, so the
 * listing is refused, never half-read: a row with fewer fields than the header (a part of a
 * broken row), a line without '|' followed by rows, a row whose JobID is not an id, or a
 * row with extra fields whose JobID follows the user's column (its JobID cannot be read).
 * So for the table form, where a line with no job id where JobID is has rows after it.
 * WHY says which, for the file's coverage.
 */
static bool sacct_rows_whole(const char *buf, size_t len, const struct table *t, char *why,
			     size_t wlen)
{
	struct field f[MAX_COLS], id;
	const char *l;
	size_t pos = t->body, n, nf, line = 0;
	bool loose = false;

	if (t->user_col == MAX_COLS)
		return true;
	for (size_t i = 0; i < t->body; i++) /* the header's line number */
		line += buf[i] == '\n';
	while (pm_in_next_line(buf, len, &pos, &l, &n)) {
		line++;
		if (only(l, n, " \t"))
			continue;
		nf = row_fields(t, l, n, f);
		if (!t->piped) {
			/* the table: a value wider than its column is cut, but one given a wide
			 * column (JobName%100) is printed whole, line breaks too; the part after
			 * the last one starts a line, where JobID is */
			id = col(t, f, nf, SC_JOBID);
			if (!id_shaped(id) && !pm_in_ieq(id.s, id.n, "JobID") &&
			    !pm_in_ieq(id.s, id.n, "JobIDRaw") && !only(id.s, id.n, "-")) {
				loose = true; /* a fence or a prompt, if no row follows */
				continue;
			}
			if (!loose)
				continue;
			snprintf(why, wlen,
				 "line %zu follows a line with no job id where the header puts "
				 "JobID: a value of a column the user writes held a line break; no "
				 "record taken",
				 line);
			return false;
		}
		if (nf == 1) { /* a fence or a prompt under the listing, if no row follows */
			loose = true;
			continue;
		}
		if (loose || nf < t->nhead) {
			snprintf(why, wlen,
				 "line %zu has %s fields than the header: a value of a column the "
				 "user writes held a line break, and which lines are Slurm's cannot "
				 "be told; no record taken",
				 line, loose ? "other" : "fewer");
			return false;
		}
		if (nf != t->nhead && t->col[SC_JOBID] > (int)t->user_col) {
			snprintf(why, wlen,
				 "line %zu has more fields than the header and its JobID follows a "
				 "column the user writes: whose row it is cannot be told; no record "
				 "taken",
				 line);
			return false;
		}
		id = col(t, f, nf, SC_JOBID);
		if (!id_shaped(id) && !pm_in_ieq(id.s, id.n, "JobID") &&
		    !pm_in_ieq(id.s, id.n, "JobIDRaw") && !(id.n > 0 && only(id.s, id.n, "-"))) {
			snprintf(why, wlen,
				 "line %zu holds no job id where the header puts JobID: a value of a "
				 "column the user writes broke a row; no record taken",
				 line);
			return false;
		}
	}
	return true;
}

/* Whether ID (or RAW, the row's JobIDRaw) is the job a Slurm output file of the folder is
 * named for (slurm-%j.out, slurm-%A_%a.out: pm_slurm_output_id). */
static bool named_by_folder(const struct pm_evidence *ev, struct field id, struct field raw)
{
	const char *x;
	size_t n;

	for (size_t i = 0; i < ev->nfiles; i++)
		if (pm_slurm_output_id(ev->files[i].name, &x, &n) &&
		    ((n == id.n && !memcmp(x, id.s, n)) || (n == raw.n && !memcmp(x, raw.s, n))))
			return true;
	return false;
}

/*
 * Whether JOB has one row in a listing that shows a column the user writes.  A second row
 * of the same id may be one the user wrote, whole, inside a value with line breaks (the
 * first row's JobName ending where the second starts), and which one is Slurm's cannot be
 * told: so a listing of a job's runs (sacct -D) with JobName is refused as well.
 */
static bool sacct_one_row(const char *buf, size_t len, const struct table *t,
			  const struct field *job, char *why, size_t wlen)
{
	struct field f[MAX_COLS], id;
	const char *l;
	size_t pos = t->body, n, nf, rows = 0;

	if (t->user_col == MAX_COLS)
		return true;
	while (pm_in_next_line(buf, len, &pos, &l, &n)) {
		nf = row_fields(t, l, n, f);
		id = col(t, f, nf, SC_JOBID);
		rows += id.n == job->n && memcmp(id.s, job->s, id.n) == 0;
	}
	if (rows < 2)
		return true;
	snprintf(why, wlen,
		 "the job's row appears %zu times in a listing with a column the user writes: "
		 "a value with line breaks can hold a whole row, and which is Slurm's cannot be "
		 "told; no record taken",
		 rows);
	return false;
}

/*
 * The job row of the last run: JOB (its id) and ROW (its line offset).  A listing of one
 * job (its runs, its steps) gives that job's.  A listing of several (sacct -u USER -S ...)
 * gives the one a Slurm output file of the folder is named for; when none is, or more than
 * one is, no row: the first job of a user's listing is an earlier job, and its state, times
 * and nodes are not this one's.  WHY says which, for the file's coverage.
 */
static int sacct_find_job(const struct pm_evidence *ev, const char *buf, size_t len,
			  const struct table *t, struct field *job, size_t *row, char *why,
			  size_t wlen)
{
	struct field f[MAX_COLS], id, prev = {0}, named = {0};
	const char *l;
	size_t pos = t->body, at, n, nf, jobs = 0, named_row = 0;
	bool found = false, several_named = false;

	if (!sacct_rows_whole(buf, len, t, why, wlen))
		return -1;
	for (at = pos; pm_in_next_line(buf, len, &pos, &l, &n); at = pos) {
		nf = row_fields(t, l, n, f);
		id = col(t, f, nf, SC_JOBID);
		if (id.n == 0 || memchr(id.s, '.', id.n) || pm_in_ieq(id.s, id.n, "JobID") ||
		    id.s[id.n - 1] == '+' || only(id.s, id.n, "-"))
			continue;
		/* a heterogeneous job's components (7700100+0, 7700100+1) are one job */
		const char *plus = memchr(id.s, '+', id.n);
		size_t hn = plus ? (size_t)(plus - id.s) : id.n;
		if (!jobs || hn != prev.n || memcmp(id.s, prev.s, hn) != 0)
			jobs++;
		prev = id;
		prev.n = hn;
		if (named_by_folder(ev, id, col(t, f, nf, SC_JOBIDRAW))) {
			if (named.n && (id.n != named.n || memcmp(id.s, named.s, id.n) != 0))
				several_named = true;
			named = id;
			named_row = at;
		}
		if (found && (id.n != job->n || memcmp(id.s, job->s, id.n) != 0))
			continue;
		*job = id;
		*row = at;
		found = true;
	}
	if (!found)
		return -1;
	if (jobs >= 2 && named.n && !several_named) {
		*job = named;
		*row = named_row;
	}
	if (jobs < 2 || (named.n && !several_named))
		return sacct_one_row(buf, len, t, job, why, wlen) ? 0 : -1;
	snprintf(why, wlen,
		 "a listing of several jobs, and %s: no record taken (the first job of a "
		 "user's listing is an earlier one)",
		 several_named ?
			 "the folder's Slurm output files name more than one of them" :
			 "no Slurm output file of the folder (slurm-N.out) names one of them");
	return -1;
}

static int sacct_job_row(struct pm_evidence *ev, size_t file, struct pm_jobinfo *job,
			 const struct table *t, const struct field *f, size_t nf, long long *gpus,
			 int *nnodes, bool *mig)
{
	struct field v;
	size_t cnt = 0;
	int x;

	v = col(t, f, nf, SC_JOBID);
	if (pm_strset(&job->id, v.s, v.n))
		return -1;
	/* the id slurmd's and slurmstepd's lines carry ("[27.batch]" for array task 25_3) */
	v = col(t, f, nf, SC_JOBIDRAW);
	if (field_int(&v, 1, 2147483647, &x) &&
	    !pm_ev_add_fact(ev, file, NULL, -1, "job.id_raw", x, NULL))
		return -1;
	v = col(t, f, nf, SC_STATE);
	if (set_state(job, v.s, v.n))
		return -1;
	v = col(t, f, nf, SC_EXIT);
	set_exit(job, v.s, v.n);
	v = col(t, f, nf, SC_START);
	stamp(v.s, v.n, &job->start, job);
	v = col(t, f, nf, SC_END);
	stamp(v.s, v.n, &job->end, job);
	v = col(t, f, nf, SC_ELAPSED);
	window_from_elapsed(job, v.s, v.n);
	v = col(t, f, nf, SC_NODELIST);
	if (set_nodelist(ev, job, v.s, v.n, &cnt))
		return -1;
	v = col(t, f, nf, SC_NNODES);
	*nnodes = field_int(&v, 1, 1000000, &x) ? x : (int)cnt;
	v = col(t, f, nf, SC_NTASKS);
	if (field_int(&v, 0, 100000000, &x))
		job->ntasks = x;
	v = col(t, f, nf, SC_ALLOCTRES);
	*mig = tres_mig(v.s, v.n);
	if (!tres_gpus(v.s, v.n, gpus)) {
		v = col(t, f, nf, SC_REQTRES);
		*mig = *mig || tres_mig(v.s, v.n);
		if (!tres_gpus(v.s, v.n, gpus))
			*gpus = -1;
	}
	v = col(t, f, nf, SC_FAILED);
	if (field_set(&v) && v.s[v.n - 1] != '+' &&
	    (pm_strset(&job->failed_node, v.s, v.n) || pm_ev_note_node(ev, v.s, v.n)))
		return -1;
	v = col(t, f, nf, SC_RESTARTS);
	if (field_int(&v, 0, 1000000, &x))
		job->restart = x;
	v = col(t, f, nf, SC_REQUEUE);
	if (field_int(&v, 0, 1000000, &x))
		job->restart = x;
	v = col(t, f, nf, SC_UID);
	if (field_int(&v, 0, 2147483647, &x))
		job->user_uid = x;
	v = col(t, f, nf, SC_CLUSTER);
	if (field_str(&job->cluster, &v))
		return -1;
	v = col(t, f, nf, SC_REASON);
	return field_str(&job->reason, &v);
}

/*
 * The GPUs of single nodes, where the record gives them exactly: the batch step holds the
 * job's whole allocation on its node (the first of the job's), so its AllocTRES is that
 * node's count; on a job of two nodes the other one has the rest of the total.  Each is a
 * "job.gpus_on_node" fact of its node, which job.gpus_per_node reads for that node (scan.c
 * lookup_fact).  -1 on ENOMEM.
 */
static int sacct_node_gpus(struct pm_evidence *ev, size_t file, const struct pm_jobinfo *job,
			   long long gpus, struct field node, long long on_node)
{
	char name[256];
	size_t k;

	if (on_node < 0 || node.n == 0 || node.n >= sizeof(name) || (gpus >= 0 && on_node > gpus))
		return 0;
	memcpy(name, node.s, node.n); /* the field is not a string: it ends at N */
	name[node.n] = 0;
	if (strcspn(name, "[,( ") < node.n) /* a host list, not one node */
		return 0;
	for (k = 0; k < job->nnodes && strcmp(job->nodes[k], name); k++)
		;
	if (k == job->nnodes)
		return 0; /* not a node of the job's list */
	if (!pm_ev_add_fact(ev, file, name, -1, "job.gpus_on_node", (double)on_node, NULL))
		return -1;
	if (job->nnodes == 2 && gpus >= 0 &&
	    !pm_ev_add_fact(ev, file, job->nodes[1 - k], -1, "job.gpus_on_node",
			    (double)(gpus - on_node), NULL))
		return -1;
	return 0;
}

/* Whether ID is another component of the heterogeneous job JOB (7001+1 of 7001+0; not one of
 * their steps). */
static bool het_component(struct field id, struct field job)
{
	const char *plus = memchr(job.s, '+', job.n);
	size_t h = (size_t)(plus - job.s);

	return id.n > h + 1 && !memcmp(id.s, job.s, h + 1) && !memchr(id.s, '.', id.n) &&
	       (id.n != job.n || memcmp(id.s, job.s, id.n) != 0) &&
	       only(id.s + h + 1, id.n - h - 1, "0123456789");
}

/*
 * Another component's row of a heterogeneous job (sacct prints 7001+0, 7001+1, each a job of
 * its own with its own JobIDRaw, nodes and times): its nodes are the job's too, its raw id
 * is one Slurm's lines name the job by, its times widen the job's window, and a node it
 * failed on is the job's failed node when the first component names none.  -1 on ENOMEM.
 */
static int het_row(struct pm_evidence *ev, size_t file, struct pm_jobinfo *job,
		   const struct table *t, const struct field *f, size_t nf)
{
	struct pm_jobinfo c = {.start = -1, .end = -1};
	struct field v;
	int x;

	v = col(t, f, nf, SC_NODELIST);
	if (set_nodelist(ev, job, v.s, v.n, NULL))
		return -1;
	v = col(t, f, nf, SC_JOBIDRAW);
	if (field_int(&v, 1, 2147483647, &x) &&
	    !pm_ev_add_fact(ev, file, NULL, -1, "job.id_raw", x, NULL))
		return -1;
	v = col(t, f, nf, SC_START);
	if (stamp(v.s, v.n, &c.start, &c) && c.start > 0 &&
	    (job->start <= 0 || c.start < job->start))
		job->start = c.start;
	v = col(t, f, nf, SC_END);
	if (stamp(v.s, v.n, &c.end, &c) && c.end > job->end && job->end > 0)
		job->end = c.end;
	v = col(t, f, nf, SC_FAILED);
	if (!job->failed_node && field_set(&v) && v.s[v.n - 1] != '+' &&
	    (pm_strset(&job->failed_node, v.s, v.n) || pm_ev_note_node(ev, v.s, v.n)))
		return -1;
	return 0;
}

static uint64_t fnv64(const char *s, size_t n)
{
	uint64_t h = 14695981039346656037ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

/* Whether a step row (ID; the job's id is its first JN bytes) of the job's batch script or
 * of a numbered step has STATE OUT_OF_MEMORY ("OUT_OF_ME+" cut by sacct's width).  Not the
 * extern step's, its id whole or cut ("771930.exte+" in the default width of twelve): it
 * holds what pam_slurm_adopt adopted (a user's ssh session), not the job's work. */
static bool step_oom(struct field id, size_t jn, struct field state)
{
	static const char oom[] = "OUT_OF_ME";
	const char *sfx = id.s + jn + 1;
	size_t n = id.n - jn - 1;

	if (n && sfx[n - 1] == '+')
		n--;
	if (n && n <= 6 && !strncmp(sfx, "extern", n))
		return false;
	return state.n >= sizeof(oom) - 1 && !memcmp(state.s, oom, sizeof(oom) - 1);
}

/*
 * Whether a step's JobName NAME (N bytes) is a Python interpreter's ("python", "python3",
 * "python3.11", "pypy3"): Slurm names a step for the program srun ran, and such a step ran
 * the program's ranks, not a launcher of them (mpirun, mpiexec, orted, torchrun, a shell or
 * a script that may start one).  att_place.c, steps_ran_program.
 */
static bool python_step(const char *s, size_t n)
{
	size_t k;

	if (n >= 6 && !memcmp(s, "python", 6))
		k = 6;
	else if (n >= 4 && !memcmp(s, "pypy", 4))
		k = 4;
	else
		return false;
	for (; k < n; k++)
		if (!pm_in_isdigit(s[k]) && s[k] != '.')
			return false;
	return true;
}

/* A numbered step's row ID (J.0, J.12: the part after the job's id of JN bytes all digits)
 * kept in JOB's STEPROWS with its NodeList, NTasks and whether its JobName NAME is a Python
 * interpreter's (python_step): each step numbers its tasks from 0. */
static void step_row(struct pm_jobinfo *job, struct field id, struct field nodes,
		     struct field ntasks, struct field name, size_t jn)
{
	const char *s = id.s + jn + 1;
	size_t n = id.n - jn - 1;
	uint64_t h;
	int x;

	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return; /* extern, interactive, a het component's step */
	if (!n || n > 10)
		return;
	h = fnv64(s, n);
	for (size_t i = 0; i < job->nsteprows; i++)
		if (job->steprows[i].id == h)
			return;
	if (job->nsteprows == sizeof(job->steprows) / sizeof(job->steprows[0])) {
		job->steprows_over = true;
		return;
	}
	job->steprows[job->nsteprows++] =
		(struct pm_steprow){h, fnv64(nodes.s, nodes.n),
				    field_int(&ntasks, 0, 100000000, &x) ? x : -1,
				    python_step(name.s, name.n)};
}

/*
 * A heterogeneous job's component row ID (7001+1, not a step's): its NodeList kept in JOB's
 * comps, its number set in *SEEN (numbers past 63 in none: the record then counts as
 * partial).  -1 on ENOMEM.
 */
static int het_comp(struct pm_jobinfo *job, struct field id, struct field nodes, uint64_t *seen)
{
	const char *plus = memchr(id.s, '+', id.n);
	size_t k = plus ? (size_t)(plus - id.s) + 1 : id.n;
	unsigned long num = 0;
	char **v;

	for (; k < id.n && pm_in_isdigit(id.s[k]) && num < 64; k++)
		num = num * 10 + (unsigned long)(id.s[k] - '0');
	if (num < 64 && k == id.n)
		*seen |= (uint64_t)1 << num;
	pm_in_trim(&nodes.s, &nodes.n);
	if (!nodes.n || nodes.s[nodes.n - 1] == '+' || job->ncomps >= 64)
		return 0;
	if (!(v = realloc(job->comps, (job->ncomps + 1) * sizeof(*v))))
		return -1;
	job->comps = v;
	v[job->ncomps] = NULL; /* NODES is a field of the line, not NUL-terminated */
	if (pm_strset(&v[job->ncomps], nodes.s, nodes.n) < 0)
		return -1;
	job->ncomps++;
	return 0;
}

int pm_parse_sacct(struct pm_evidence *ev, size_t file, const char *buf, size_t len, char *reason,
		   size_t rlen)
{
	struct table t;
	struct field f[MAX_COLS], jobid = {0}, id;
	struct pm_jobinfo *job;
	const char *l;
	char why[200] = "";
	size_t pos, at, n, nf, row = 0;
	long long gpus = -1, batch_gpus = -1;
	struct field batch_node = {"", 0};
	int nnodes = 0, steps_max = -1, x;
	size_t hets = 0;
	uint64_t seen = 0;
	bool mig = false, het;

	if (sacct_header(buf, len, &t))
		return pm_in_fail(reason, rlen, "no sacct header with a JobID column");
	if (sacct_find_job(ev, buf, len, &t, &jobid, &row, why, sizeof(why)))
		return pm_in_fail(reason, rlen, "%s",
				  why[0] ? why : "no job record (only steps, or no rows)");
	het = memchr(jobid.s, '+', jobid.n) != NULL;
	if (!(job = pm_ev_job(ev)))
		return nomem(reason, rlen);
	/* a column the user writes: a value holding both '|' and line breaks, balanced, can
	 * be a whole row under the job's id (TRUST.md's limit), so the record's node failure
	 * blames no node by itself */
	if (t.user_col != MAX_COLS)
		job->record_user_text = true;
	for (pos = t.body, at = pos; pm_in_next_line(buf, len, &pos, &l, &n); at = pos) {
		nf = row_fields(&t, l, n, f);
		id = col(&t, f, nf, SC_JOBID);
		if (at == row) {
			if (sacct_job_row(ev, file, job, &t, f, nf, &gpus, &nnodes, &mig) ||
			    (het && het_comp(job, id, col(&t, f, nf, SC_NODELIST), &seen)))
				return nomem(reason, rlen);
		} else if (het && het_component(id, jobid)) {
			if (het_row(ev, file, job, &t, f, nf) ||
			    het_comp(job, id, col(&t, f, nf, SC_NODELIST), &seen))
				return nomem(reason, rlen);
			hets++;
		} else if (id.n > jobid.n && memcmp(id.s, jobid.s, jobid.n) == 0 &&
			   id.s[jobid.n] == '.') {
			struct field v = col(&t, f, nf, SC_NTASKS);

			if (field_int(&v, 0, 100000000, &x) && x > steps_max)
				steps_max = x;
			v = col(&t, f, nf, SC_ALLOCTRES);
			if (pm_in_ieq(id.s + jobid.n + 1, id.n - jobid.n - 1, "batch") &&
			    !tres_gpus(v.s, v.n, &batch_gpus))
				batch_gpus = -1;
			if (pm_in_ieq(id.s + jobid.n + 1, id.n - jobid.n - 1, "batch"))
				batch_node = col(&t, f, nf, SC_NODELIST);
			else
				step_row(job, id, col(&t, f, nf, SC_NODELIST),
					 col(&t, f, nf, SC_NTASKS), col(&t, f, nf, SC_JOBNAME),
					 jobid.n);
			if (step_oom(id, jobid.n, col(&t, f, nf, SC_STATE)))
				job->step_oom = true;
		}
	}
	/* a heterogeneous job has two components or more, numbered from 0: a record of one, or
	 * with a gap, leaves some of its nodes out (sacct -j 7001+0 lists that component only) */
	if (het && (hets < 1 || (seen & (seen + 1)) || !(seen & 1)))
		job->het_partial = true;
	/* the job row's NTasks is empty for batch jobs: the widest step ran the ranks */
	if (job->ntasks < 0 && steps_max >= 0)
		job->ntasks = steps_max;
	/* a heterogeneous job's nodes are all its components' (their GPUs differ: no count
	 * per node) */
	if (hets) {
		nnodes = (int)job->nnodes;
		gpus = -1;
		mig = true;
	}
	if (job_facts(ev, file, gpus, -1, nnodes, mig) ||
	    (!mig && sacct_node_gpus(ev, file, job, gpus, batch_node, batch_gpus)))
		return nomem(reason, rlen);
	return 0;
}

/* ---- several listings of the job ---- */

/* The columns two listings of one job must agree on: those the record is made of. */
enum agree {
	AG_JOBIDRAW,
	AG_STATE,
	AG_EXIT,
	AG_START,
	AG_END,
	AG_ELAPSED,
	AG_NODELIST,
	AG_NNODES,
	AG_NTASKS,
	AG_FAILED,
	NAGREE
};
static const enum scol agree_cols[NAGREE] =
	{[AG_JOBIDRAW] = SC_JOBIDRAW, [AG_STATE] = SC_STATE,   [AG_EXIT] = SC_EXIT,
	 [AG_START] = SC_START,	      [AG_END] = SC_END,       [AG_ELAPSED] = SC_ELAPSED,
	 [AG_NODELIST] = SC_NODELIST, [AG_NNODES] = SC_NNODES, [AG_NTASKS] = SC_NTASKS,
	 [AG_FAILED] = SC_FAILED};

/* A row of the job in one listing: its JobID and the values of agree_cols (NULL: the
 * listing has no such column, or leaves it empty). */
struct vrow {
	char *id;
	char *v[NAGREE];
};

/* What one listing says of its job: the file, the job's id (up to a heterogeneous job's
 * '+'), and its rows (the job's, its steps', its components'). */
struct vlist {
	size_t file;
	char *job;
	char *raw; /* its JobIDRaw (scontrol's JobId), NULL none */
	struct vrow *rows;
	size_t nrows;
	bool named; /* a Slurm output file of the folder is named for its job */
	bool refuse;
	char why[512];
};

/* N bytes of S as a string.  Not strndup: the fields lie inside a slurped file that is not
 * NUL-terminated, and strndup may look for a NUL past N (ASan's strict_string_checks, which
 * the CI's sanitizer stage sets, reports that read). */
static char *dupn(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = 0;
	}
	return d;
}

/* LIST's rows of its job from the listing BUF (the last of each JobID: the last run of a
 * sacct -D listing, as sacct_find_job takes).  -1 on ENOMEM. */
static int vlist_rows(struct vlist *list, const char *buf, size_t len, const struct table *t)
{
	struct field f[MAX_COLS], id;
	const char *l;
	size_t pos = t->body, n, nf, hn = strlen(list->job), k;
	struct vrow *r;

	while (pm_in_next_line(buf, len, &pos, &l, &n)) {
		nf = row_fields(t, l, n, f);
		id = col(t, f, nf, SC_JOBID);
		if (id.n < hn || memcmp(id.s, list->job, hn) != 0 ||
		    (id.n > hn && id.s[hn] != '.' && id.s[hn] != '+'))
			continue;
		for (k = 0; k < list->nrows; k++)
			if (strlen(list->rows[k].id) == id.n &&
			    !memcmp(list->rows[k].id, id.s, id.n))
				break;
		if (k == list->nrows) {
			r = realloc(list->rows, (list->nrows + 1) * sizeof(*r));
			if (!r)
				return -1;
			list->rows = r;
			memset(&r[k], 0, sizeof(r[k]));
			list->nrows++;
			if (!(r[k].id = dupn(id.s, id.n)))
				return -1;
		}
		r = &list->rows[k];
		for (size_t c = 0; c < NAGREE; c++) {
			struct field v = col(t, f, nf, agree_cols[c]);

			free(r->v[c]);
			r->v[c] = NULL;
			if (v.n && !(r->v[c] = dupn(v.s, v.n)))
				return -1;
		}
	}
	return 0;
}

/* Whether V gives no value: empty, or what sacct and scontrol print for none ("Unknown" for
 * a time not reached, "None assigned" for a pending job's nodes, "(null)"). */
static bool val_none(const char *v)
{
	struct field f = {v, v ? strlen(v) : 0};

	return !v || !field_set(&f) || pm_in_ieq(v, f.n, "None assigned");
}

/* Whether two values of column C agree: a value sacct's table cut to its column's width
 * ("NODE_FAI+") agrees with any it begins; a state agrees by its first word (sacct's
 * "CANCELLED by 4120", scontrol's "CANCELLED"); times and durations by what they read as
 * (scontrol's and sacct's prints of one instant); a node list with the same nodes written
 * another way (gq[07-08], gq07,gq08) agrees. */
static bool vals_agree(enum scol c, const char *a, const char *b)
{
	size_t an = strlen(a), bn = strlen(b);
	size_t ac = an && a[an - 1] == '+' ? an - 1 : an, bc = bn && b[bn - 1] == '+' ? bn - 1 : bn;
	char **x = NULL, **y = NULL;
	size_t nx = 0, ny = 0, i;
	struct pm_in_stamp sa, sb;
	double da, db;
	bool same;

	if (an == bn && pm_in_ieq(a, an, b))
		return true;
	if (ac < an || bc < bn)
		return strncmp(a, b, ac < bc ? ac : bc) == 0;
	if (c == SC_STATE) {
		ac = strcspn(a, " ");
		return ac == strcspn(b, " ") && strncasecmp(a, b, ac) == 0;
	}
	if (c == SC_START || c == SC_END)
		return pm_in_iso(a, an, &sa) == an && pm_in_iso(b, bn, &sb) == bn && sa.t == sb.t &&
		       !sa.zone == !sb.zone;
	if (c == SC_ELAPSED)
		return duration(a, an, &da) && duration(b, bn, &db) && da == db;
	if (c != SC_NODELIST && c != SC_FAILED)
		return false;
	if (pm_hostlist_expand(a, an, &x, &nx))
		return false;
	if (pm_hostlist_expand(b, bn, &y, &ny)) {
		y = NULL;
		ny = 0;
	}
	same = y && nx == ny;
	for (i = 0; same && i < nx; i++)
		same = strcmp(x[i], y[i]) == 0;
	for (i = 0; i < nx; i++)
		free(x[i]);
	for (i = 0; i < ny; i++)
		free(y[i]);
	free(x);
	free(y);
	return same;
}

/* Whether listings A and B of one job disagree on a row both hold, in a column both give:
 * WHY says where. */
static bool vlists_disagree(const struct vlist *a, const struct vlist *b, char *why, size_t wlen)
{
	for (size_t i = 0; i < a->nrows; i++)
		for (size_t j = 0; j < b->nrows; j++) {
			if (strcmp(a->rows[i].id, b->rows[j].id))
				continue;
			for (size_t c = 0; c < NAGREE; c++) {
				const char *x = a->rows[i].v[c], *y = b->rows[j].v[c];

				if (val_none(x) || val_none(y) || vals_agree(agree_cols[c], x, y))
					continue;
				snprintf(why, wlen, "row %s, %s %s against %s", a->rows[i].id,
					 scol_names[agree_cols[c]], x, y);
				return true;
			}
		}
	return false;
}

/* LIST's raw id, its job row's JobIDRaw (JOB: the row's id), and whether a Slurm output file
 * of the folder is named for its job (by its id, its heterogeneous leader's, its raw id).  -1
 * on ENOMEM. */
static int vlist_named(const struct pm_evidence *ev, struct vlist *list, struct field job)
{
	struct field key = {list->job, strlen(list->job)}, raw = {"", 0};

	for (size_t i = 0; i < list->nrows && !list->raw; i++)
		if (strlen(list->rows[i].id) == job.n && !memcmp(list->rows[i].id, job.s, job.n) &&
		    list->rows[i].v[AG_JOBIDRAW] &&
		    !(list->raw = strdup(list->rows[i].v[AG_JOBIDRAW])))
			return -1;
	if (list->raw)
		raw = (struct field){list->raw, strlen(list->raw)};
	list->named = named_by_folder(ev, key, raw) || named_by_folder(ev, job, raw);
	return 0;
}

/* *LS (N listings) grown by one, for file FILE, zeroed: the new one, or NULL on ENOMEM. */
static struct vlist *vlist_add(struct vlist **ls, size_t n, size_t file)
{
	struct vlist *nl = realloc(*ls, (n + 1) * sizeof(*nl));

	if (!nl)
		return NULL;
	*ls = nl;
	memset(&nl[n], 0, sizeof(nl[n]));
	nl[n].file = file;
	return &nl[n];
}

static void vlist_free(struct vlist *l)
{
	for (size_t i = 0; i < l->nrows; i++) {
		free(l->rows[i].id);
		for (size_t c = 0; c < NAGREE; c++)
			free(l->rows[i].v[c]);
	}
	free(l->rows);
	free(l->job);
	free(l->raw);
}

/* Whether listings A and B are of one job: by its id, or one's raw id (JobIDRaw, scontrol's
 * JobId: array task 25_3 is 27) naming the other. */
static bool same_job(const struct vlist *a, const struct vlist *b)
{
	return !strcmp(a->job, b->job) || (a->raw && b->raw && !strcmp(a->raw, b->raw)) ||
	       (a->raw && !strcmp(a->raw, b->job)) || (b->raw && !strcmp(b->raw, a->job));
}

/* Whether LIST was taken while its job ran: its job row's State is a live one (RUNNING,
 * PENDING, ...: state_final), a `sacct -j $SLURM_JOB_ID` the job's own script printed. */
static bool vlist_live(const struct vlist *list)
{
	for (size_t i = 0; i < list->nrows; i++)
		if (!strcmp(list->rows[i].id, list->job))
			return list->rows[i].v[AG_STATE] && !state_final(list->rows[i].v[AG_STATE]);
	return false;
}

/* LIST's job row, NULL none. */
static const struct vrow *vlist_job_row(const struct vlist *list)
{
	for (size_t i = 0; i < list->nrows; i++)
		if (!strcmp(list->rows[i].id, list->job))
			return &list->rows[i];
	return NULL;
}

/* Whether A is the record of an earlier run of the job than B's: A's run ended in a state
 * Slurm requeues a job from (BOOT_FAIL, NODE_FAIL, PREEMPTED: `scontrol show job` printed
 * when a node did not boot, before the requeue), at or before B's run started.  Only those
 * states: a run that ended FAILED or TIMEOUT is not requeued by Slurm, and a listing that
 * puts a later run after it is not told from one the job wrote. */
static bool vlist_earlier(const struct vlist *a, const struct vlist *b)
{
	static const char *const requeued_from[] = {"BOOT_FAIL", "NODE_FAIL", "PREEMPTED", NULL};
	const struct vrow *x = vlist_job_row(a), *y = vlist_job_row(b);
	const char *st, *e, *s;
	struct pm_in_stamp se, ss;
	size_t w;

	if (!x || !y)
		return false;
	st = x->v[AG_STATE];
	e = x->v[AG_END];
	s = y->v[AG_START];
	if (val_none(st) || val_none(e) || val_none(s))
		return false;
	w = strcspn(st, " ");
	for (size_t i = 0; requeued_from[i]; i++)
		if (pm_in_ieq(st, w, requeued_from[i]))
			return pm_in_iso(e, strlen(e), &se) == strlen(e) &&
			       pm_in_iso(s, strlen(s), &ss) == strlen(s) && !se.zone == !ss.zone &&
			       se.t <= ss.t;
	return false;
}

static void vet_refuse(struct pm_file *f, const char *why)
{
	f->status = PM_ST_UNREADABLE;
	free(f->reason);
	f->reason = strdup(why);
}

static bool scontrol_job(const struct pm_evidence *ev, const char *buf, size_t len, char *arr,
			 size_t alen, struct field *key, struct field *raw, struct field *v);
static int scontrol_vlist(const struct pm_evidence *ev, const char *buf, size_t len,
			  struct vlist *list);

/*
 * Several records of jobs in one folder: sacct listings (the operator's, a copy, a file the
 * job wrote into its output folder shaped as one: a job's text can be any shape) and
 * `scontrol show job` records.  Each would be parsed into the one record, a later file
 * overwriting an earlier one's id, state, times and failed node and adding its nodes, so
 * which one speaks would depend on the files' names.
 *
 * Records of different jobs are told apart as one listing's jobs are (sacct_find_job): the
 * one a Slurm output file of the folder names is the job's, the others refused (all of them
 * where none is named, or more than one).  Listings of one job that agree on every row both
 * hold, in every column both give (agree_cols), make one record; where two disagree, which
 * one is Slurm's cannot be told, and neither is taken.  A refused file's coverage says why,
 * and the job is read as with no record.  Read before any record is parsed (pm_scan_all), so
 * that the outcome is the same in any order.  CAP: the most a file is read of.  -1 on
 * ENOMEM.
 */
int pm_sacct_vet(struct pm_evidence *ev, size_t cap)
{
	struct vlist *ls = NULL;
	size_t nls = 0, i, j;
	char why[200];
	int rc = -1;

	for (i = 0, j = 0; i < ev->nfiles && j < 2; i++)
		j += ev->files[i].status == PM_ST_OK &&
		     (ev->files[i].format == PM_FMT_SACCT_P ||
		      ev->files[i].format == PM_FMT_SACCT_TABLE ||
		      ev->files[i].format == PM_FMT_SCONTROL_JOB);
	if (j < 2)
		return 0; /* one record, or none: nothing to tell apart */
	for (i = 0; i < ev->nfiles; i++) {
		struct pm_file *f = &ev->files[i];
		struct table t;
		struct field job;
		const char *plus;
		size_t row;
		char *buf;
		size_t len;

		if (f->status != PM_ST_OK ||
		    (f->format != PM_FMT_SACCT_P && f->format != PM_FMT_SACCT_TABLE &&
		     f->format != PM_FMT_SCONTROL_JOB))
			continue;
		if (pm_file_slurp(f, cap, &buf, &len) < 0)
			continue; /* recorded in the file's status */
		if (f->format == PM_FMT_SCONTROL_JOB) {
			/* scontrol's record: its job, and its job row as sacct's columns (JobState
			 * as State, StartTime as Start, ...), vetted against the listings as they
			 * are against each other */
			int k;

			if (!vlist_add(&ls, nls, i)) {
				free(buf);
				goto out;
			}
			k = scontrol_vlist(ev, buf, len, &ls[nls]);
			free(buf);
			if (k > 0)
				nls++;
			else
				vlist_free(&ls[nls]);
			if (k < 0)
				goto out;
			continue;
		}
		if (sacct_header(buf, len, &t) ||
		    sacct_find_job(ev, buf, len, &t, &job, &row, why, sizeof(why))) {
			free(buf); /* no record from it: refused when parsed */
			continue;
		}
		if (!vlist_add(&ls, nls, i)) {
			free(buf);
			goto out;
		}
		plus = memchr(job.s, '+', job.n);
		ls[nls].job = dupn(job.s, plus ? (size_t)(plus - job.s) : job.n);
		nls++;
		/* JOB points into BUF: named before BUF is freed */
		if (!ls[nls - 1].job || vlist_rows(&ls[nls - 1], buf, len, &t) ||
		    vlist_named(ev, &ls[nls - 1], job)) {
			free(buf);
			goto out;
		}
		free(buf);
	}
	/* listings of different jobs (the job's and an earlier one's, saved side by side):
	 * as inside one listing (sacct_find_job), the one a Slurm output file of the folder is
	 * named for is the job's; the others are other jobs' records, their state, times and
	 * nodes not this one's.  When none is named, or more than one, none is taken. */
	for (i = 0; i < nls && same_job(&ls[i], &ls[0]); i++)
		;
	if (i < nls) {
		const struct vlist *named = NULL;
		bool several = false;

		for (i = 0; i < nls; i++)
			if (ls[i].named) {
				several = several || (named && !same_job(named, &ls[i]));
				named = &ls[i];
			}
		for (i = 0; i < nls; i++) {
			if (named && !several && same_job(&ls[i], named))
				continue;
			for (j = 0; j < nls && same_job(&ls[j], &ls[i]); j++)
				;
			ls[i].refuse = true;
			if (named && !several)
				snprintf(ls[i].why, sizeof(ls[i].why),
					 "a record of job %s, where the folder's Slurm output is "
					 "named for job %s: another job's record; no record taken",
					 ls[i].job, named->job);
			else
				snprintf(ls[i].why, sizeof(ls[i].why),
					 "records of different jobs (%s here, %s in %s), and %s: no "
					 "record taken (one may be an earlier job's)",
					 ls[i].job, ls[j].job, ev->files[ls[j].file].name,
					 several ?
						 "the folder's Slurm output files name more than "
						 "one of them" :
						 "no Slurm output file of the folder (slurm-N.out) "
						 "names one of them");
		}
	}
	for (i = 0; i < nls; i++)
		for (j = 0; j < nls; j++) {
			if (i == j || ls[i].refuse || !same_job(&ls[i], &ls[j]) ||
			    !vlists_disagree(&ls[i], &ls[j], why, sizeof(why)))
				continue;
			/* a listing taken while the job ran differs from one of how it ended by
			 * the job's progress alone: the ended one stands, the live one yields */
			if (vlist_live(&ls[j]) && !vlist_live(&ls[i]))
				continue;
			/* so does the record of a run before a requeue, beside the later run's */
			if (!vlist_live(&ls[i]) && vlist_earlier(&ls[j], &ls[i]))
				continue;
			ls[i].refuse = true;
			if (vlist_live(&ls[i]) && !vlist_live(&ls[j]))
				snprintf(ls[i].why, sizeof(ls[i].why),
					 "its record of job %s was taken while the job ran (%s), and "
					 "%s's says how it ended: no record taken from it",
					 ls[i].job, why, ev->files[ls[j].file].name);
			else if (vlist_earlier(&ls[i], &ls[j]))
				snprintf(ls[i].why, sizeof(ls[i].why),
					 "its record of job %s is of a run that ended before %s's "
					 "started (%s): a run before a requeue; no record taken from it",
					 ls[i].job, ev->files[ls[j].file].name, why);
			else
				snprintf(ls[i].why, sizeof(ls[i].why),
					 "its record of job %s disagrees with %s's (%s): which of the two Slurm "
					 "printed (sacct, scontrol) cannot be told; no record taken",
					 ls[i].job, ev->files[ls[j].file].name, why);
		}
	for (i = 0; i < nls; i++)
		if (ls[i].refuse)
			vet_refuse(&ev->files[ls[i].file], ls[i].why);
	rc = 0;
out:
	for (i = 0; i < nls; i++)
		vlist_free(&ls[i]);
	free(ls);
	if (rc)
		errno = ENOMEM;
	return rc;
}

/* ---- scontrol show job ---- */

enum skey {
	SK_JOBID,
	SK_STATE,
	SK_REASON,
	SK_EXIT,
	SK_START,
	SK_END,
	SK_NODELIST,
	SK_NTASKS,
	SK_NNODES,
	SK_TRES,
	SK_TRES_PER_NODE,
	SK_RESTARTS,
	SK_USERID,
	SK_RUNTIME,
	SK_HETJOBID,
	SK__COUNT
};

static const char *const skey_names[SK__COUNT] = {
	[SK_JOBID] = "JobId",
	[SK_STATE] = "JobState",
	[SK_REASON] = "Reason",
	[SK_EXIT] = "ExitCode",
	[SK_START] = "StartTime",
	[SK_END] = "EndTime",
	[SK_NODELIST] = "NodeList",
	[SK_NTASKS] = "NumTasks",
	[SK_NNODES] = "NumNodes",
	[SK_TRES] = "TRES",
	[SK_TRES_PER_NODE] = "TresPerNode",
	[SK_RESTARTS] = "Restarts",
	[SK_USERID] = "UserId",
	[SK_RUNTIME] = "RunTime",
	[SK_HETJOBID] = "HetJobId",
};

static bool key_char(char c, bool first)
{
	return pm_in_isalpha(c) || (!first && (pm_in_isdigit(c) || c == '_' || c == ':' ||
					       c == '/' || c == '.' || c == '-'));
}

/* Length of "Key" in a "Key=value" token, or 0 when the token does not start a pair. */
static size_t key_len(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n && i < 64 && s[i] != '='; i++)
		if (!key_char(s[i], i == 0))
			return 0;
	return i < n && s[i] == '=' && i > 0 ? i : 0;
}

/*
 * Collect the values of the first record: a value runs to the next token that starts a
 * pair, so "JobName=my job" keeps its space.  A second JobId ends the record.  A user's
 * JobName, Comment, WorkDir or path can hold " NodeList=n9": a key seen twice is a key a
 * user wrote, and which of the two Slurm printed cannot be told, so it is left unknown.
 */
static bool scontrol_fields(const char *buf, size_t len, struct field *v)
{
	size_t i = 0, j, k, cur = SK__COUNT, w;
	unsigned seen[SK__COUNT] = {0};
	bool any = false;

	for (w = 0; w < SK__COUNT; w++)
		v[w] = (struct field){"", 0};
	while (i < len) {
		while (i < len && pm_in_isspace(buf[i]))
			i++;
		for (j = i; j < len && !pm_in_isspace(buf[j]); j++)
			;
		if (j == i)
			break;
		k = key_len(buf + i, j - i);
		if (!k) {
			if (cur < SK__COUNT) /* continues the value */
				v[cur].n = (size_t)(buf + j - v[cur].s);
			i = j;
			continue;
		}
		cur = SK__COUNT;
		for (w = 0; w < SK__COUNT; w++)
			if (strlen(skey_names[w]) == k && memcmp(buf + i, skey_names[w], k) == 0)
				cur = w;
		if (cur == SK_JOBID && any)
			break;
		if (cur < SK__COUNT) {
			v[cur].s = buf + i + k + 1;
			v[cur].n = j - i - k - 1;
			any |= cur == SK_JOBID;
			seen[cur]++;
		}
		i = j;
	}
	for (w = 0; w < SK__COUNT; w++)
		if (seen[w] > 1)
			v[w] = (struct field){"", 0};
	return any;
}

/* TresPerNode "gres:gpu:4", "gres/gpu:h100:4", "gres/gpu=4": GPUs per node. */
static bool per_node_gpus(const struct field *f, long long *per)
{
	const char *s = f->s, *c;
	size_t n = f->n, item, k;

	while (n > 0) {
		c = memchr(s, ',', n);
		item = c ? (size_t)(c - s) : n;
		for (k = item; k > 0 && pm_in_isdigit(s[k - 1]); k--)
			;
		if (k > 0 && k < item && (s[k - 1] == ':' || s[k - 1] == '=') &&
		    (pm_in_starts(s, item, "gres:gpu") || pm_in_starts(s, item, "gres/gpu")) &&
		    pm_in_int(s + k, item - k, per) && *per < 1000000)
			return true;
		if (!c)
			break;
		n -= item + 1;
		s = c + 1;
	}
	return false;
}

/* "alice(1000)" -> 1000 */
static void set_uid(struct pm_jobinfo *job, const struct field *f)
{
	const char *o = memchr(f->s, '(', f->n);
	int uid;

	if (o && f->s[f->n - 1] == ')' &&
	    pm_in_int_range(o + 1, f->n - (size_t)(o - f->s) - 2, 0, 2147483647, &uid))
		job->user_uid = uid;
}

/*
 * Where the record to read starts in a listing of scontrol show job records (each starts a
 * line with "JobId=N"): all of one job's, or one record, the first.  A listing of several
 * jobs (scontrol show job with no id, two pastes in one file) gives the record of the job a
 * Slurm output file of the folder is named for (slurm-%j.out, or slurm-%A_%a.out by the
 * record's ArrayJobId and ArrayTaskId on its first line), as an sacct listing does
 * (sacct_find_job); when none is, or more than one is, no record (-1, WHY says which): the
 * first record is as likely another job's, and its state and nodes are not this one's.
 * One walk over the lines; the folder's names are looked at once.
 */
#define SC_NAMES 16

/* A record's first line (S, N): "ArrayJobId=A ArrayTaskId=T" as slurm-%A_%a.out writes
 * them, "A_T" in BUF (*ID), or none (ID->n 0): also when T is a pending array's range or
 * list (ArrayTaskId=1-10, 2,4), no one task's. */
static void array_id(const char *s, size_t n, char *buf, size_t blen, struct field *id)
{
	const char *a = memmem(s, n, " ArrayJobId=", 12), *t = memmem(s, n, " ArrayTaskId=", 13);
	size_t an = 0, tn = 0;

	*id = (struct field){buf, 0};
	if (!a || !t)
		return;
	a += 12;
	t += 13;
	while (a + an < s + n && pm_in_isdigit(a[an]))
		an++;
	while (t + tn < s + n && pm_in_isdigit(t[tn]))
		tn++;
	if (!an || !tn || an + tn + 2 > blen || (t + tn < s + n && !pm_in_isspace(t[tn])))
		return;
	memcpy(buf, a, an);
	buf[an] = '_';
	memcpy(buf + an + 1, t, tn);
	id->n = an + 1 + tn;
}
static int scontrol_pick(const struct pm_evidence *ev, const char *buf, size_t len, size_t *at,
			 char *why, size_t wlen)
{
	struct field names[SC_NAMES], first = {0}, named = {0}, aid;
	char arr[48];
	size_t nn = 0, pos = 0, ls = 0, n, k, named_at = 0;
	const char *l, *x;
	bool several = false, several_named = false;

	for (size_t i = 0; i < ev->nfiles && nn < SC_NAMES; i++)
		if (pm_slurm_output_id(ev->files[i].name, &x, &n))
			names[nn++] = (struct field){x, n};
	*at = 0;
	for (; pm_in_next_line(buf, len, &pos, &l, &n); ls = pos) {
		const char *t = l;
		size_t tn = n;
		struct field id;

		pm_in_trim(&t, &tn);
		if (tn < 7 || !pm_in_starts(t, tn, "JobId=") || !pm_in_isdigit(t[6]))
			continue;
		for (k = 6; k < tn && pm_in_isdigit(t[k]); k++)
			;
		id = (struct field){t + 6, k - 6};
		array_id(t, tn, arr, sizeof(arr), &aid);
		if (!first.n)
			first = id;
		else if (id.n != first.n || memcmp(id.s, first.s, id.n) != 0)
			several = true;
		for (size_t j = 0; j < nn; j++) {
			if ((names[j].n != id.n || memcmp(names[j].s, id.s, id.n) != 0) &&
			    (!aid.n || names[j].n != aid.n ||
			     memcmp(names[j].s, aid.s, aid.n) != 0))
				continue;
			if (named.n && (named.n != id.n || memcmp(named.s, id.s, id.n) != 0))
				several_named = true;
			if (!named.n) {
				named = id;
				named_at = ls;
			}
		}
	}
	if (!several)
		return 0;
	if (named.n && !several_named) {
		*at = named_at;
		return 0;
	}
	snprintf(why, wlen,
		 "a listing of several jobs' records, and %s: no record taken (the first record "
		 "may be another job's)",
		 several_named ?
			 "the folder's Slurm output files name more than one of them" :
			 "no Slurm output file of the folder (slurm-N.out) names one of them");
	return -1;
}

int pm_parse_scontrol(struct pm_evidence *ev, size_t file, const char *buf, size_t len,
		      char *reason, size_t rlen)
{
	struct field v[SK__COUNT];
	struct pm_jobinfo *job;
	long long gpus = -1, per;
	char why[200] = "", arr[48];
	const char *nl;
	struct field aid;
	size_t cnt = 0, k, at;
	int x, nnodes = 0;

	if (scontrol_pick(ev, buf, len, &at, why, sizeof(why)))
		return pm_in_fail(reason, rlen, "%s", why);
	if (!scontrol_fields(buf + at, len - at, v) || !field_set(&v[SK_JOBID]))
		return pm_in_fail(reason, rlen, "no JobId= record");
	if (!(job = pm_ev_job(ev)))
		return nomem(reason, rlen);
	if (field_int(&v[SK_JOBID], 1, 2147483647, &x) &&
	    !pm_ev_add_fact(ev, file, NULL, -1, "job.id_raw", x, NULL))
		return nomem(reason, rlen);
	/* an array task's record names it as sacct's JobID does, A_T (its JobId is sacct's
	 * JobIDRaw, kept above): its output, slurm-%A_%a.out, is then this job's
	 * (pm_record_job_id), not another job's */
	nl = memchr(buf + at, '\n', len - at);
	array_id(buf + at, nl ? (size_t)(nl - (buf + at)) : len - at, arr, sizeof(arr), &aid);
	if (!aid.n)
		aid = v[SK_JOBID];
	/* sacct's record of the same job, read first (pm_scan_all), keeps its state, exit code,
	 * times and nodes: scontrol's is a snapshot taken whenever it was printed (RUNNING while
	 * the job ran, BOOT_FAIL on a node before a requeue), and Slurm's accounting holds how
	 * the job ended and where */
	bool kept = job->state && job->id &&
		    ((strlen(job->id) == aid.n && !memcmp(job->id, aid.s, aid.n)) ||
		     (strlen(job->id) == v[SK_JOBID].n &&
		      !memcmp(job->id, v[SK_JOBID].s, v[SK_JOBID].n)));
	if (pm_strset(&job->id, aid.s, aid.n) ||
	    (!kept && set_state(job, v[SK_STATE].s, v[SK_STATE].n)) ||
	    field_str(&job->reason, &v[SK_REASON]))
		return nomem(reason, rlen);
	if (!kept) {
		set_exit(job, v[SK_EXIT].s, v[SK_EXIT].n);
		stamp(v[SK_START].s, v[SK_START].n, &job->start, job);
		stamp(v[SK_END].s, v[SK_END].n, &job->end, job);
		window_from_elapsed(job, v[SK_RUNTIME].s, v[SK_RUNTIME].n);
		if (set_nodelist(ev, job, v[SK_NODELIST].s, v[SK_NODELIST].n, &cnt))
			return nomem(reason, rlen);
	}
	if (field_int(&v[SK_NTASKS], 0, 100000000, &x))
		job->ntasks = x;
	/* "NumNodes=2" or a range "1-2" */
	for (k = 0; k < v[SK_NNODES].n && pm_in_isdigit(v[SK_NNODES].s[k]); k++)
		;
	nnodes = pm_in_int_range(v[SK_NNODES].s, k, 1, 1000000, &x) ? x : (int)cnt;
	if (field_int(&v[SK_RESTARTS], 0, 1000000, &x))
		job->restart = x;
	if (v[SK_USERID].n > 0)
		set_uid(job, &v[SK_USERID]);
	tres_gpus(v[SK_TRES].s, v[SK_TRES].n, &gpus);
	if (!per_node_gpus(&v[SK_TRES_PER_NODE], &per))
		per = -1;
	if (job_facts(ev, file, gpus, per, nnodes,
		      tres_mig(v[SK_TRES].s, v[SK_TRES].n) ||
			      mig_type(v[SK_TRES_PER_NODE].s, v[SK_TRES_PER_NODE].n)))
		return nomem(reason, rlen);
	return 0;
}

/* The job of a `scontrol show job` record (the one scontrol_pick takes): its array task's id
 * A_T, its heterogeneous job's leader (HetJobId=), or its JobId, in KEY (ARR holds it); RAW
 * its JobId; V its fields (SK__COUNT of them).  False when the file gives no record. */
static bool scontrol_job(const struct pm_evidence *ev, const char *buf, size_t len, char *arr,
			 size_t alen, struct field *key, struct field *raw, struct field *v)
{
	char why[200];
	const char *nl, *h;
	size_t at, n, k;

	if (scontrol_pick(ev, buf, len, &at, why, sizeof(why)) ||
	    !scontrol_fields(buf + at, len - at, v) || !field_set(&v[SK_JOBID]))
		return false;
	for (k = 0; k < v[SK_JOBID].n && pm_in_isdigit(v[SK_JOBID].s[k]); k++)
		;
	*raw = (struct field){v[SK_JOBID].s, k};
	nl = memchr(buf + at, '\n', len - at);
	n = nl ? (size_t)(nl - (buf + at)) : len - at;
	array_id(buf + at, n, arr, alen, key);
	if (key->n)
		return true;
	*key = *raw;
	if ((h = memmem(buf + at, n, " HetJobId=", 10))) {
		h += 10;
		for (k = 0; h + k < buf + at + n && pm_in_isdigit(h[k]); k++)
			;
		if (k)
			*key = (struct field){h, k};
	}
	return key->n > 0;
}

/* LIST (its file set) from the `scontrol show job` record in BUF: its job, its raw id, whether
 * the folder names it, and its job row under sacct's columns: JobId as JobIDRaw, JobState as
 * State, ExitCode, StartTime as Start, EndTime as End, RunTime as Elapsed, NodeList, NumNodes
 * as NNodes where it is one number (a pending job's "1-2" is a request).  NumTasks is the
 * request, not sacct's job row (empty for a batch job): not compared.  A heterogeneous job's
 * component (HetJobId=) gives no row: its NodeList is its component's, its row sacct's
 * "7001+0".  1 when it gives a record, 0 when not, -1 on ENOMEM. */
static int scontrol_vlist(const struct pm_evidence *ev, const char *buf, size_t len,
			  struct vlist *list)
{
	static const struct {
		enum scol c;
		enum skey k;
	} map[] = {{SC_STATE, SK_STATE},  {SC_EXIT, SK_EXIT},	    {SC_START, SK_START},
		   {SC_END, SK_END},	  {SC_ELAPSED, SK_RUNTIME}, {SC_NODELIST, SK_NODELIST},
		   {SC_NNODES, SK_NNODES}};
	struct field v[SK__COUNT], key, raw;
	struct vrow *r;
	char arr[48];
	size_t k;

	if (!scontrol_job(ev, buf, len, arr, sizeof(arr), &key, &raw, v))
		return 0;
	list->named = named_by_folder(ev, key, raw);
	if (!(list->job = dupn(key.s, key.n)) || !(list->raw = dupn(raw.s, raw.n)))
		return -1;
	if (field_set(&v[SK_HETJOBID]))
		return 1;
	if (!(list->rows = calloc(1, sizeof(*list->rows))))
		return -1;
	list->nrows = 1;
	r = &list->rows[0];
	if (!(r->id = dupn(key.s, key.n)) || !(r->v[AG_JOBIDRAW] = dupn(raw.s, raw.n)))
		return -1;
	for (size_t m = 0; m < sizeof(map) / sizeof(map[0]); m++) {
		struct field f = v[map[m].k];
		size_t c;

		pm_in_trim(&f.s, &f.n);
		for (c = 0; c < NAGREE && agree_cols[c] != map[m].c; c++)
			;
		if (map[m].c == SC_NNODES)
			for (k = 0; k < f.n; k++)
				if (!pm_in_isdigit(f.s[k]))
					f.n = 0;
		if (c < NAGREE && field_set(&f) && !(r->v[c] = dupn(f.s, f.n)))
			return -1;
	}
	return 1;
}

/* ---- /proc/meminfo ---- */

int pm_parse_meminfo(struct pm_evidence *ev, size_t file, const char *buf, size_t len, char *reason,
		     size_t rlen)
{
	static const struct {
		const char *key;
		const char *fact;
	} keys[] = {
		{"MemTotal", "node.mem_total_kb"},
		{"MemAvailable", "node.mem_available_kb"},
	};
	const char *l, *c, *v;
	size_t pos = 0, n, vn, i, w;
	bool total = false;
	long long x;

	while (pm_in_next_line(buf, len, &pos, &l, &n)) {
		c = memchr(l, ':', n);
		if (!c)
			continue;
		v = c + 1;
		vn = n - (size_t)(v - l);
		pm_in_trim(&v, &vn);
		for (w = 0; w < vn && pm_in_isdigit(v[w]); w++)
			;
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			if (!pm_in_ieq(l, (size_t)(c - l), keys[i].key) || !pm_in_int(v, w, &x))
				continue;
			if (!pm_ev_add_fact(ev, file, file_node(ev, file), -1, keys[i].fact,
					    (double)x, NULL))
				return nomem(reason, rlen);
			total |= i == 0;
		}
	}
	return total ? 0 : pm_in_fail(reason, rlen, "no MemTotal line");
}

/* ---- rank_map / task_exit records ---- */

/*
 * A record's fields, as the helpers below read them.  The plugin writes flat objects of
 * short strings and numbers, thousands of them per job (65,536 lines at 32,768 ranks), so
 * such a line is read here without building a jansson tree; anything else (an escape, a
 * byte outside ASCII, nesting, a duplicate key, a number jansson would refuse) is handed to
 * jansson and read from its tree, with the same results: a line jansson rejects is a bad
 * line either way.
 */
enum rtype { R_ABSENT, R_STR, R_INT, R_REAL, R_TRUE, R_FALSE, R_OTHER };

struct rval {
	enum rtype t;
	const char *s; /* R_STR: not NUL-terminated */
	size_t n;
	long long i; /* R_INT */
	double d;    /* R_INT, R_REAL */
};

enum rkey {
	K_SCHEMA,
	K_JOB,
	K_STEP,
	K_NODE,
	K_RANK,
	K_LOCAL_RANK,
	K_PID,
	K_GPUS,
	K_GPUS_FROM,
	K_START,
	K_END,
	K_STATUS,
	K_EXIT_CODE,
	K_SIGNAL,
	K_CORE,
	K__COUNT
};

static const struct {
	const char *name;
	size_t len;
} rkeys[K__COUNT] = {{"schema", 6},    {"job", 3},	   {"step", 4}, {"node", 4},
		     {"rank", 4},      {"local_rank", 10}, {"pid", 3},	{"gpus", 4},
		     {"gpus_from", 9}, {"start", 5},	   {"end", 3},	{"status", 6},
		     {"exit_code", 9}, {"signal", 6},	   {"core", 4}};

struct rec {
	struct rval v[K__COUNT];
};

#define FLAT_KEYS 64

static size_t skip_ws(const char *l, size_t n, size_t i)
{
	while (i < n && (l[i] == ' ' || l[i] == '\t' || l[i] == '\r' || l[i] == '\n'))
		i++;
	return i;
}

/* The bytes a plain string holds: ASCII from the space up, but the quote and the backslash. */
static const unsigned char flat_plain[256] = {
	[' '] = 1,
	['!'] = 1,
	['#' ... '['] = 1,
	[']' ... 0x7f] = 1,
};

/* A plain string at l[i] ('"' there): ASCII, no escape, no control; its end, or 0. */
static size_t flat_str(const char *l, size_t n, size_t i)
{
	for (i++; i < n && flat_plain[(unsigned char)l[i]]; i++)
		;
	return i < n && l[i] == '"' ? i + 1 : 0;
}

/* A JSON number at l[i] in the strict grammar; its end, or 0.  *REAL: it has a fraction or
 * an exponent (jansson's real), else an integer. */
static size_t flat_num(const char *l, size_t n, size_t i, bool *real)
{
	size_t d;

	*real = false;
	if (i < n && l[i] == '-')
		i++;
	if (i < n && l[i] == '0')
		i++;
	else if (i < n && l[i] >= '1' && l[i] <= '9')
		while (i < n && pm_in_isdigit(l[i]))
			i++;
	else
		return 0;
	if (i < n && l[i] == '.') {
		*real = true;
		for (d = ++i; i < n && pm_in_isdigit(l[i]); i++)
			;
		if (i == d)
			return 0;
	}
	if (i < n && (l[i] == 'e' || l[i] == 'E')) {
		*real = true;
		i++;
		if (i < n && (l[i] == '+' || l[i] == '-'))
			i++;
		for (d = i; i < n && pm_in_isdigit(l[i]); i++)
			;
		if (i == d)
			return 0;
	}
	return i;
}

/* Called for every key of every task record (sixteen a node, fourteen keys each): the
 * length and the first byte pick the one name to compare. */
static int rkey_of(const char *k, size_t n)
{
	int i = -1;

	switch (n) {
	case 3:
		i = k[0] == 'j' ? K_JOB : k[0] == 'p' ? K_PID : K_END;
		break;
	case 4:
		i = k[0] == 's' ? K_STEP :
		    k[0] == 'n' ? K_NODE :
		    k[0] == 'r' ? K_RANK :
		    k[0] == 'g' ? K_GPUS :
				  K_CORE;
		break;
	case 5:
		i = K_START;
		break;
	case 6:
		i = k[1] == 'c' ? K_SCHEMA : k[1] == 't' ? K_STATUS : K_SIGNAL;
		break;
	case 9:
		i = k[0] == 'g' ? K_GPUS_FROM : K_EXIT_CODE;
		break;
	case 10:
		i = K_LOCAL_RANK;
		break;
	}
	return i >= 0 && !memcmp(rkeys[i].name, k, n) ? i : -1;
}

/* The digits of l[i..e) (an integer of the strict grammar, flat_num's, of at most 18 digits
 * and a sign: no overflow), as strtoll reads them. */
static long long flat_int(const char *l, size_t i, size_t e)
{
	bool neg = l[i] == '-';
	long long v = 0;

	for (i += neg; i < e; i++)
		v = v * 10 + (l[i] - '0');
	return neg ? -v : v;
}

/* l[i..e), a real of the strict grammar with a fraction and no exponent, into *D when it is
 * exact the easy way, as strtod would read it: at most 15 digits in all (below 2^53, so
 * the digits as an integer are a double exactly) and at most 22 after the point (10^22 is
 * the largest power of ten a double holds exactly); one IEEE division of two exact values
 * is then the correctly rounded value, which is strtod's.  False: ask strtod. */
static bool flat_real(const char *l, size_t i, size_t e, double *d)
{
	static const double p10[] = {1e0,  1e1,	 1e2,  1e3,  1e4,  1e5,	 1e6,  1e7,
				     1e8,  1e9,	 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
				     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
	bool neg = l[i] == '-', frac = false;
	long long m = 0;
	unsigned digits = 0, k = 0;

	for (i += neg; i < e; i++) {
		if (l[i] == '.') {
			frac = true;
			continue;
		}
		if (l[i] < '0' || l[i] > '9' || ++digits > 15)
			return false;
		m = m * 10 + (l[i] - '0');
		k += frac;
	}
	if (k > 22)
		return false;
	*d = (double)m / p10[k];
	if (neg)
		*d = -*d;
	return true;
}

/* Line L (N bytes, trimmed) as a flat object into R; false: not flat, ask jansson. */
static bool flat_record(const char *l, size_t n, struct rec *r)
{
	struct {
		const char *k;
		size_t n;
	} seen[FLAT_KEYS]; /* the names of no field read (rkey_of's -1) */
	size_t nseen = 0, nkeys = 0, i = 1, e;
	unsigned known = 0; /* the fields read, by rkey_of's number */

	memset(r, 0, sizeof(*r));
	if (n < 2 || l[0] != '{' || l[n - 1] != '}')
		return false;
	i = skip_ws(l, n, i);
	if (l[i] == '}')
		return i == n - 1;
	for (;;) {
		const char *k;
		size_t kn;
		struct rval v = {0};
		int key;

		if (l[i] != '"' || !(e = flat_str(l, n, i)))
			return false;
		k = l + i + 1;
		kn = e - i - 2;
		/* jansson rejects duplicates: a name read is told by its number, the others are
		 * compared among themselves (no name is both) */
		if (nkeys++ == FLAT_KEYS)
			return false;
		if ((key = rkey_of(k, kn)) >= 0) {
			if (known & 1u << key)
				return false;
			known |= 1u << key;
		} else {
			for (size_t s = 0; s < nseen; s++)
				if (seen[s].n == kn && (!kn || seen[s].k[0] == k[0]) &&
				    !memcmp(seen[s].k, k, kn))
					return false;
			seen[nseen].k = k;
			seen[nseen++].n = kn;
		}
		i = skip_ws(l, n, e);
		if (i >= n || l[i] != ':')
			return false;
		i = skip_ws(l, n, i + 1);
		if (i >= n)
			return false;
		if (l[i] == '"') {
			if (!(e = flat_str(l, n, i)))
				return false;
			v.t = R_STR;
			v.s = l + i + 1;
			v.n = e - i - 2;
		} else if (l[i] == '-' || pm_in_isdigit(l[i])) {
			bool real;
			char num[64], *end;
			if (!(e = flat_num(l, n, i, &real)) || e - i >= sizeof(num))
				return false;
			/* a field no one reads is only checked as jansson would: an integer of
			 * up to 18 digits, a real without an exponent (at most 63 bytes) can be
			 * neither too big nor too small */
			if (key < 0 &&
			    !(real ? memchr(l + i, 'e', e - i) || memchr(l + i, 'E', e - i) :
				     e - i > 18))
				goto next;
			if (!real && e - i <= 18) { /* strtoll's value, read here */
				v.t = R_INT;
				v.i = flat_int(l, i, e);
				v.d = (double)v.i;
				goto take;
			}
			if (real && flat_real(l, i, e, &v.d)) {
				v.t = R_REAL;
				goto take;
			}
			memcpy(num, l + i, e - i);
			num[e - i] = '\0';
			errno = 0;
			if (real) {
				v.t = R_REAL;
				v.d = strtod(num, &end);
				if (errno || !isfinite(v.d))
					return false; /* jansson: "real number overflow" */
			} else {
				v.t = R_INT;
				v.i = strtoll(num, &end, 10);
				if (errno)
					return false; /* jansson: "too big integer" */
				v.d = (double)v.i;
			}
		} else if (n - i >= 4 && !memcmp(l + i, "true", 4)) {
			v.t = R_TRUE;
			e = i + 4;
		} else if (n - i >= 5 && !memcmp(l + i, "false", 5)) {
			v.t = R_FALSE;
			e = i + 5;
		} else if (n - i >= 4 && !memcmp(l + i, "null", 4)) {
			v.t = R_OTHER;
			e = i + 4;
		} else {
			return false; /* nested, or not JSON */
		}
take:
		if (key >= 0)
			r->v[key] = v;
next:
		i = skip_ws(l, n, e);
		if (i >= n)
			return false;
		if (l[i] == '}')
			return i == n - 1;
		if (l[i] != ',')
			return false;
		i = skip_ws(l, n, i + 1);
		if (i >= n)
			return false;
	}
}

/* The fields of a jansson object into R. */
static void tree_record(const json_t *o, struct rec *r)
{
	memset(r, 0, sizeof(*r));
	for (int k = 0; k < K__COUNT; k++) {
		const json_t *j = json_object_get(o, rkeys[k].name);
		struct rval *v = &r->v[k];
		if (!j)
			continue;
		if (json_is_string(j)) {
			v->t = R_STR;
			v->s = json_string_value(j);
			v->n = json_string_length(j);
		} else if (json_is_integer(j)) {
			v->t = R_INT;
			v->i = json_integer_value(j);
			v->d = (double)v->i;
		} else if (json_is_real(j)) {
			v->t = R_REAL;
			v->d = json_real_value(j);
		} else if (json_is_true(j)) {
			v->t = R_TRUE;
		} else if (json_is_false(j)) {
			v->t = R_FALSE;
		} else {
			v->t = R_OTHER;
		}
	}
}

/* A number, or an ISO 8601 string: epoch seconds, or 0 when absent or unreadable. */
static double rec_time(const struct rec *r, enum rkey k)
{
	const struct rval *v = &r->v[k];
	struct pm_in_stamp st;

	if (v->t == R_INT || v->t == R_REAL)
		return v->d > 0 ? v->d : 0;
	if (v->t == R_STR && pm_in_iso(v->s, v->n, &st) == v->n)
		return st.t;
	return 0;
}

static bool rec_int(const struct rec *r, enum rkey k, long long lo, long long hi, int *out)
{
	const struct rval *v = &r->v[k];

	if (v->t != R_INT || v->i < lo || v->i > hi)
		return false;
	*out = (int)v->i;
	return true;
}

static bool rec_is(const struct rec *r, enum rkey k, const char *s)
{
	const struct rval *v = &r->v[k];

	return v->t == R_STR && v->n == strlen(s) && !memcmp(v->s, s, v->n);
}

/* The batch script, extern and interactive steps: their task 0 is not rank 0. */
static bool special_step(const struct rec *r)
{
	const struct rval *v = &r->v[K_STEP];
	long long x;

	if (v->t == R_INT)
		return (unsigned long long)v->i >= STEP_SPECIAL;
	if (v->t != R_STR)
		return false;
	if (pm_in_int(v->s, v->n, &x))
		return x < 0 || (unsigned long long)x >= STEP_SPECIAL;
	return rec_is(r, K_STEP, "batch") || rec_is(r, K_STEP, "extern") ||
	       rec_is(r, K_STEP, "interactive");
}

/* A node name from a record: a short, printable string. */
static const char *rec_node(const struct rec *r, size_t *n)
{
	const struct rval *v = &r->v[K_NODE];

	if (v->t != R_STR || v->n == 0 || v->n > 255 || memchr(v->s, '\0', v->n))
		return NULL;
	for (size_t i = 0; i < v->n; i++)
		if ((unsigned char)v->s[i] <= ' ')
			return NULL;
	*n = v->n;
	return v->s;
}

static int rankmap_record(const struct rec *r, struct pm_task *t)
{
	const struct rval *g = &r->v[K_GPUS];
	int x;

	if (rec_int(r, K_LOCAL_RANK, 0, MAX_RANK, &x))
		t->local_rank = x;
	if (rec_int(r, K_PID, 1, 2147483647, &x))
		t->pid = x;
	if (g->t == R_STR && g->n <= 255 && pm_strset(&t->gpus, g->s, g->n))
		return -1;
	/* CUDA_VISIBLE_DEVICES (GPU_DEVICE_ORDINAL) numbers the GPUs a cgroup lets the task
	 * see from 0: not the node's indexes (the plugin takes SLURM_STEP_GPUS first) */
	if (g->t == R_STR)
		t->gpus_relative = rec_is(r, K_GPUS_FROM, "CUDA_VISIBLE_DEVICES") ||
				   rec_is(r, K_GPUS_FROM, "GPU_DEVICE_ORDINAL");
	if (rec_time(r, K_START) > 0)
		t->start = rec_time(r, K_START);
	return 0;
}

/* T's exit from R; whether R tells of a failure (a non-zero exit, a signal). */
static bool taskexit_record(const struct rec *r, struct pm_task *t)
{
	int status = -1, code = -1, sig = 0, core = 0, x;
	enum rtype c = r->v[K_CORE].t;

	if (rec_int(r, K_STATUS, 0, 65535, &x)) {
		status = x;
		if ((status & 0x7f) == 0) {
			code = (status >> 8) & 0xff;
		} else if ((status & 0x7f) != 0x7f) {
			sig = status & 0x7f;
			core = (status & 0x80) != 0;
		}
	}
	if (rec_int(r, K_EXIT_CODE, -1, 255, &x))
		code = x;
	if (rec_int(r, K_SIGNAL, 0, 127, &x))
		sig = x;
	if (c == R_TRUE || c == R_FALSE)
		core = c == R_TRUE;
	/* a task seen failing keeps that record over a later clean one (another step) */
	if (t->exited && (t->exit_code > 0 || t->signal > 0) && code <= 0 && sig == 0)
		return false;
	t->exited = 1;
	t->exit_code = code;
	t->signal = sig;
	t->core = core;
	if (rec_int(r, K_PID, 1, 2147483647, &x))
		t->pid = x;
	if (rec_time(r, K_END) > 0)
		t->end = rec_time(r, K_END);
	return code > 0 || sig > 0;
}

/* The step record R names, as "JOB.STEP" (pm_ev_step); 0 none, -1U ENOMEM. */
static unsigned rec_step(struct pm_evidence *ev, const struct rec *r)
{
	const struct rval *j = &r->v[K_JOB], *s = &r->v[K_STEP];
	char key[160];
	int n;

	if (s->t == R_STR && s->n > 0 && s->n <= 64) {
		/* "JOB.STEP" as snprintf's "%.*s.%.*s" makes it (each cut at a NUL), without
		 * it: a record a rank, 262,144 at 16,384 nodes, on the merge's serial thread */
		size_t jn = j->t == R_STR && j->n <= 64 ? strnlen(j->s, j->n) : 0,
		       sn = strnlen(s->s, s->n);
		if (jn) /* never from NULL: a job id absent or not a string */
			memcpy(key, j->s, jn);
		key[jn] = '.';
		memcpy(key + jn + 1, s->s, sn);
		n = (int)(jn + 1 + sn);
	} else if (s->t == R_INT)
		n = snprintf(key, sizeof(key), "%.*s.%lld",
			     j->t == R_STR && j->n <= 64 ? (int)j->n : 0, j->t == R_STR ? j->s : "",
			     s->i);
	else
		return 0;
	if (n <= 0 || (size_t)n >= sizeof(key) || memchr(key, '\0', (size_t)n))
		return 0;
	unsigned k = pm_ev_step(ev, key, (size_t)n);
	return k ? k : ev->nsteps < 1 << 16 ? -1U : 0;
}

/* Keeps T's record of its earlier step in the evidence's TSPLIT, and this one of STEP on NODE
 * (NN bytes; GPUS: the rank map's, or NULL), where the two steps put the rank on two nodes:
 * Slurm numbers each step's tasks from 0, and one rank of two steps is two tasks.  0, -1. */
static int step_node(struct pm_evidence *ev, struct pm_task *t, unsigned step, const char *node,
		     size_t nn, const struct rval *gpus)
{
	struct pm_tsplit *s;

	if (!t->split && (!step || !t->step || t->step == step || !t->node ||
			  (strlen(t->node) == nn && !memcmp(t->node, node, nn))))
		return 0;
	if (!t->split) {
		if (ev->ntsplit == ev->atsplit &&
		    pm_grow_raw((void **)&ev->tsplit, &ev->atsplit, sizeof(*ev->tsplit)) < 0)
			return -1;
		s = &ev->tsplit[ev->ntsplit];
		*s = (struct pm_tsplit){t->rank, t->step, NULL, NULL};
		if (!(s->node = strdup(t->node)) || (t->gpus && !(s->gpus = strdup(t->gpus)))) {
			free(s->node);
			return -1;
		}
		ev->ntsplit++;
		t->split = true;
	}
	if (ev->ntsplit == ev->atsplit &&
	    pm_grow_raw((void **)&ev->tsplit, &ev->atsplit, sizeof(*ev->tsplit)) < 0)
		return -1;
	s = &ev->tsplit[ev->ntsplit];
	*s = (struct pm_tsplit){t->rank, step, NULL, NULL};
	if (pm_strset(&s->node, node, nn) < 0 || (gpus && gpus->t == R_STR && gpus->n <= 255 &&
						  pm_strset(&s->gpus, gpus->s, gpus->n) < 0)) {
		free(s->node);
		return -1;
	}
	ev->ntsplit++;
	return 0;
}

/* One record of file FILE; 1 used, 0 skipped, -1 ENOMEM. */
static int task_record(struct pm_evidence *ev, size_t file, const struct rec *r)
{
	const struct rval *jid = &r->v[K_JOB];
	struct pm_jobinfo *job;
	struct pm_task *t;
	const char *node;
	size_t nn = 0;
	unsigned step;
	bool map;
	int rank;

	map = rec_is(r, K_SCHEMA, "postmortem.rankmap/1");
	if (!map && !rec_is(r, K_SCHEMA, "postmortem.taskexit/1"))
		return 0;
	if (!rec_int(r, K_RANK, 0, MAX_RANK - 1, &rank) || special_step(r))
		return 0;
	if (!(t = pm_ev_task(ev, rank)))
		return -1;
	if ((step = rec_step(ev, r)) == -1U)
		return -1;
	node = rec_node(r, &nn);
	if (node && step_node(ev, t, step, node, nn, map ? &r->v[K_GPUS] : NULL) < 0)
		return -1;
	if (node && (pm_strset(&t->node, node, nn) || pm_ev_note_node(ev, node, nn)))
		return -1;
	if (node) {
		t->step = step;
		/* a hand-gathered file's records are read by their content: the job may have
		 * written them (att_ranks.c, rankmap_gainsaid) */
		t->loose = file < ev->nfiles && !ev->files[file].bundled;
		t->file = file;
	}
	if (map && rankmap_record(r, t) < 0)
		return -1;
	if (!map && taskexit_record(r, t) && step)
		ev->steps[step - 1].failed = true;
	if (step) {
		struct pm_step *st = &ev->steps[step - 1];
		double b = map ? rec_time(r, K_START) : 0, e = map ? 0 : rec_time(r, K_END);
		if (b > 0 && (st->start <= 0 || b < st->start))
			st->start = b;
		if (e > st->end)
			st->end = e;
	}
	if (jid->t == R_STR && jid->n > 0 && jid->n <= 64) {
		if (!(job = pm_ev_job(ev)))
			return -1;
		if (!job->id && pm_strset(&job->id, jid->s, jid->n))
			return -1;
	}
	return 1;
}

/* Line L (N bytes) of a task file as a record into *R (*O: jansson's tree it points into,
 * or NULL); 0: not a record (a bad line), 1. */
static int line_rec(const char *l, size_t n, struct rec *r, json_t **o)
{
	json_error_t jerr;

	*o = NULL;
	if (n > MAX_JSON_LINE || l[0] != '{')
		return 0;
	if (!flat_record(l, n, r)) {
		if (!(*o = json_loadb(l, n, JSON_REJECT_DUPLICATES, &jerr)) ||
		    !json_is_object(*o)) {
			json_decref(*o);
			*o = NULL;
			return 0;
		}
		tree_record(*o, r);
	}
	return 1;
}

static bool task_schema(const struct rec *r)
{
	return rec_is(r, K_SCHEMA, "postmortem.rankmap/1") ||
	       rec_is(r, K_SCHEMA, "postmortem.taskexit/1");
}

/* The end of a task file: USED records used, PARSED of a task schema, BAD lines. */
static int tasks_end(size_t used, size_t parsed, size_t bad, char *reason, size_t rlen)
{
	/* records of the batch script or extern steps only are fine: nothing to place */
	if (used == 0 && parsed == 0)
		return pm_in_fail(
			reason, rlen,
			"no postmortem.rankmap/1 or postmortem.taskexit/1 record (%zu bad lines)",
			bad);
	return 0;
}

int pm_parse_tasks(struct pm_evidence *ev, size_t file, const char *buf, size_t len, char *reason,
		   size_t rlen)
{
	const char *l;
	size_t pos = 0, n, used = 0, bad = 0, parsed = 0;
	json_t *o;
	struct rec r;
	int rc;

	while (pm_in_next_line(buf, len, &pos, &l, &n)) {
		pm_in_trim(&l, &n);
		if (n == 0)
			continue;
		if (!line_rec(l, n, &r, &o)) {
			bad++;
			continue;
		}
		if (task_schema(&r))
			parsed++;
		rc = task_record(ev, file, &r);
		json_decref(o);
		if (rc < 0)
			return nomem(reason, rlen);
		used += (size_t)rc;
	}
	return tasks_end(used, parsed, bad, reason, rlen);
}

/* A task file's records, read apart from any evidence set (on any thread). */
struct pm_tasks {
	char *buf; /* the records point into it */
	struct rec *r;
	json_t **o;
	size_t n, a, bad, parsed;
};

struct pm_tasks *pm_tasks_read(char *buf, size_t len)
{
	struct pm_tasks *t = calloc(1, sizeof(*t));
	const char *l;
	size_t pos = 0, n;

	if (!t) {
		free(buf);
		return NULL;
	}
	t->buf = buf;
	/* the arrays sized for the lines at once: a record is about 800 bytes, and growing by
	 * doubling zeroed twice what eight records need */
	for (const char *p = buf, *e = buf + len; p < e; t->a++) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		p = nl ? nl + 1 : e;
	}
	if (t->a &&
	    (!(t->r = malloc(t->a * sizeof(*t->r))) || !(t->o = malloc(t->a * sizeof(*t->o))))) {
		pm_tasks_free(t);
		return NULL;
	}
	while (pm_in_next_line(buf, len, &pos, &l, &n)) {
		pm_in_trim(&l, &n);
		if (n == 0)
			continue;
		if (t->n == t->a) {
			size_t a = t->a;
			if (pm_grow((void **)&t->r, &a, sizeof(*t->r)) < 0 ||
			    pm_grow((void **)&t->o, &t->a, sizeof(*t->o)) < 0) {
				pm_tasks_free(t);
				return NULL;
			}
		}
		if (!line_rec(l, n, &t->r[t->n], &t->o[t->n])) {
			t->bad++;
			continue;
		}
		if (task_schema(&t->r[t->n]))
			t->parsed++;
		t->n++;
	}
	return t;
}

int pm_tasks_apply(struct pm_evidence *ev, size_t file, const struct pm_tasks *t, char *reason,
		   size_t rlen)
{
	size_t used = 0;

	for (size_t k = 0; k < t->n; k++) {
		int rc = task_record(ev, file, &t->r[k]);
		if (rc < 0)
			return nomem(reason, rlen);
		used += (size_t)rc;
	}
	return tasks_end(used, t->parsed, t->bad, reason, rlen);
}

size_t pm_tasks_count(const struct pm_tasks *t)
{
	return t->n;
}

void pm_tasks_free(struct pm_tasks *t)
{
	if (!t)
		return;
	for (size_t k = 0; k < t->n; k++)
		json_decref(t->o[k]);
	free(t->r);
	free(t->o);
	free(t->buf);
	free(t);
}

/*
 * A task file's records as its bundle carries them (carry.c, PMTASK1; FORMATS.md, "Carried
 * task files"): what pm_tasks_read made of its bytes, every field task_record reads, so that
 * applied they do exactly what the parse of the bytes does.  All numbers little-endian:
 *
 *	records (u32), bad lines, records of a task schema (u64)
 *	each record: for each of the K__COUNT fields, its type (u8: enum rtype) and, for a
 *	string, its length (u32) and bytes; an integer (i64); a real (f64)
 */
int pm_tasks_pack(const struct pm_tasks *t, unsigned char **out, size_t *outlen)
{
	struct pm_wbuf w = {0};

	*out = NULL;
	*outlen = 0;
	if (t->n > UINT32_MAX) {
		errno = EOVERFLOW;
		return -1;
	}
	pm_wbuf_u32(&w, (uint32_t)t->n);
	pm_wbuf_u64(&w, t->bad);
	pm_wbuf_u64(&w, t->parsed);
	for (size_t k = 0; k < t->n; k++)
		for (int i = 0; i < K__COUNT; i++) {
			const struct rval *v = &t->r[k].v[i];
			unsigned char ty = (unsigned char)v->t;
			uint64_t x;

			pm_wbuf_put(&w, &ty, 1);
			switch (v->t) {
			case R_STR:
				if (v->n > UINT32_MAX) {
					w.failed = true;
					break;
				}
				pm_wbuf_u32(&w, (uint32_t)v->n);
				pm_wbuf_put(&w, v->s, v->n);
				break;
			case R_INT:
				pm_wbuf_u64(&w, (uint64_t)v->i);
				break;
			case R_REAL:
				memcpy(&x, &v->d, sizeof(x));
				pm_wbuf_u64(&w, x);
				break;
			default:
				break;
			}
		}
	if (w.failed) {
		free(w.p);
		errno = ENOMEM;
		return -1;
	}
	*out = w.p;
	*outlen = w.len;
	return 0;
}

/* The little-endian numbers at P (room checked by the caller): read in place, no call a
 * field (a record's fifteen fields were read one call each, about 1,600 Ir a record). */
static inline uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

struct pm_tasks *pm_tasks_unpack(unsigned char *buf, size_t len)
{
	const unsigned char *p = buf, *e = buf + len;
	struct pm_tasks *t = calloc(1, sizeof(*t));
	uint32_t n;
	uint64_t bad, parsed;

	if (!t)
		goto fail;
	t->buf = (char *)buf; /* the strings point into it */
	buf = NULL;
	if (len < 20)
		goto fail;
	n = le32(p);
	bad = le64(p + 4);
	parsed = le64(p + 12);
	p += 20;
	/* every count checked against what is left: a record is at least its K__COUNT types */
	if (n > (size_t)(e - p) / K__COUNT || parsed > n || bad > len)
		goto fail;
	if (n && (!(t->r = calloc(n, sizeof(*t->r))) || !(t->o = calloc(n, sizeof(*t->o)))))
		goto fail;
	t->a = n;
	for (size_t k = 0; k < n; k++) {
		for (int i = 0; i < K__COUNT; i++) {
			struct rval *v = &t->r[k].v[i];
			size_t left = (size_t)(e - p);
			unsigned ty;
			uint32_t sn;

			if (!left || (ty = *p++) > R_OTHER)
				goto fail;
			left--;
			v->t = (enum rtype)ty;
			switch (v->t) {
			case R_STR:
				if (left < 4 || (sn = le32(p)) > left - 4)
					goto fail;
				v->s = (const char *)p + 4;
				v->n = sn;
				p += 4 + (size_t)sn;
				break;
			case R_INT:
				if (left < 8)
					goto fail;
				v->i = (long long)le64(p);
				v->d = (double)v->i;
				p += 8;
				break;
			case R_REAL: {
				uint64_t x;

				if (left < 8)
					goto fail;
				x = le64(p);
				memcpy(&v->d, &x, sizeof(v->d));
				p += 8;
				break;
			}
			default:
				break;
			}
		}
		t->n++;
	}
	if (p != e)
		goto fail;
	t->bad = bad;
	t->parsed = parsed;
	return t;
fail:
	free(buf);
	if (t)
		t->n = 0; /* no tree to free */
	pm_tasks_free(t);
	return NULL;
}
