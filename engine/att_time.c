/*
 * att_time.c - the attribution's phases of time (ATTRIBUTION.md): each node's clock against
 * the controller's, the job window an event falls in, the notes on skewed clocks, and
 * events from before the job (context, linked to it by pids or by what its ranks did).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "attribute.h"

/* ---- phase: node clocks ---- */

static int cmpclkname(const void *x, const void *y)
{
	return strcmp(((const struct clk *)x)->node, ((const struct clk *)y)->node);
}

static int cmpclk(const void *x, const void *y)
{
	const struct clk *a = x, *b = y;
	int c = strcmp(a->node, b->node);

	return c ? c : (a->d > b->d) - (a->d < b->d);
}

/* The last task exit the plugin recorded on each node of A->clk (sorted by node), by that
 * node's clock, into LAST (0 none): one pass over the tasks, each node found by a binary
 * search (a job of 16,384 nodes has 131,072 task records). */
static void last_exits(const struct att *a, double *last)
{
	for (size_t i = 0; i < a->ev->ntasks; i++) {
		const struct pm_task *k = &a->ev->tasks[i];
		struct clk key = {.node = k->node}, *c;
		if (!k->exited || k->end <= 0 || !k->node ||
		    !(c = bsearch(&key, a->clk, a->nclk, sizeof(*a->clk), cmpclkname)))
			continue;
		if (k->end > last[c - a->clk])
			last[c - a->clk] = k->end;
	}
}

/*
 * The other side of D (pm_att_phase_clocks): the plugin's task-exit times are on the node's clock
 * too, and the epilog starts only after them.  L = last exit - end is the node's offset
 * plus how long after the recorded end its tasks exited.  When every node's tasks exited
 * beyond the tolerance after the end (processes that outlive SIGTERM until KillWait, their
 * epilogs after that), the least such L is the job's own teardown, not a clock: it is taken
 * off every node's D.  A late epilog common to the job is not a skewed clock.  (One node's
 * L alone would bound its offset too, but a node whose tasks left early says nothing of
 * its clock, so D stands there; `why` gives L beside it.)
 */
static int clocks_by_exits(struct att *a)
{
	double common = -1, *last = calloc(a->nclk ? a->nclk : 1, sizeof(double));
	bool all = a->nclk > 0;

	if (!last)
		return -1;
	last_exits(a, last);
	for (size_t i = 0; i < a->nclk; i++) {
		struct clk *c = &a->clk[i];
		double x = last[i];
		c->exits = x > 0;
		c->late = x > 0 ? x - a->ev->job.end : 0;
		if (!c->exits || c->late <= a->rs->skew_s)
			all = false;
		else if (common < 0 || c->late < common)
			common = c->late;
	}
	free(last);
	if (!all)
		return 0;
	a->teardown = common;
	for (size_t i = 0; i < a->nclk; i++) {
		struct clk *c = &a->clk[i];
		if (c->d <= 0)
			continue;
		c->d_collect = c->d;
		c->d = c->d > common ? c->d - common : 0;
	}
	return 0;
}

/*
 * Each node's collector starts right after the job's end, and stamps that start with the
 * node's own clock (the bundle manifest's collected.start); the job's end in the accounting
 * record is the controller's.  D = start - end is then the node's clock offset plus the
 * epilog's latency (and up to 1 s of the record's truncated seconds): an upper bound of how
 * far the node is ahead; when negative, the node is at least -D behind.  The earliest
 * bundle of a node counts.  Nothing without both times.
 */
int pm_att_phase_clocks(struct att *a)
{
	const struct pm_evidence *ev = a->ev;
	size_t n = 0;

	/* an end only once the job ended (a running job's EndTime is its limit) */
	if (ev->job.end <= 0 || !ev->ncollect ||
	    (ev->job.state && !pm_att_outcome_from_state(ev->job.state) &&
	     strncmp(ev->job.state, "COMPLETING", 10)))
		return 0;
	a->clk = malloc(ev->ncollect * sizeof(*a->clk));
	if (!a->clk)
		return -1;
	for (size_t i = 0; i < ev->ncollect; i++)
		a->clk[i] = (struct clk){.node = ev->collect[i].node,
					 .d = ev->collect[i].start - ev->job.end};
	pm_sort(a->clk, ev->ncollect, sizeof(*a->clk), cmpclk);
	for (size_t i = 0; i < ev->ncollect; i++)
		if (!n || strcmp(a->clk[n - 1].node, a->clk[i].node))
			a->clk[n++] = a->clk[i]; /* the earliest: sorted by D within a node */
	a->nclk = n;
	if (clocks_by_exits(a) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (fabs(a->clk[i].d) > a->rs->skew_s && fabs(a->clk[i].d) > a->maxskew)
			a->maxskew = fabs(a->clk[i].d);
	return 0;
}

struct clk *pm_att_node_clk(const struct att *a, const char *node)
{
	struct clk key = {.node = node};

	if (!node || !a->nclk)
		return NULL;
	return bsearch(&key, a->clk, a->nclk, sizeof(*a->clk), cmpclkname);
}

/* How far NODE's clock appears off beyond the tolerance: D when it exceeds it either way,
 * else 0 (within the tolerance, the tolerance covers it). */
static double node_skew(const struct att *a, const char *node)
{
	const struct clk *c = pm_att_node_clk(a, node);

	return c && fabs(c->d) > a->rs->skew_s ? c->d : 0;
}

/* The clock an observation was stamped with: that of the node whose file holds it. */
const char *pm_att_obs_clock_node(const struct att *a, const struct pm_obs *o)
{
	const char *fn = a->ev->files[o->file].node;

	return fn ? fn : o->node;
}

/* ---- phase: job window ---- */

/*
 * Where an event falls against the job: WIN_IN within [start - tolerance, end + tolerance],
 * WIN_BEFORE up to job_window_grace_s earlier (context: what the node went through just
 * before this job, pm_att_phase_stale), WIN_OUT otherwise.  WIDE: widened by the node's apparent
 * skew (pm_att_phase_clocks), never narrowed: a node up to D ahead stamps events up to D late, one
 * at least -D behind stamps them at least -D early.  Undated events, and any event of a job
 * whose times are unknown, are in.
 */
enum win pm_att_obs_window(const struct att *a, const struct pm_obs *o, bool wide)
{
	const struct pm_jobinfo *j = &a->ev->job;
	double sk = wide ? node_skew(a, pm_att_obs_clock_node(a, o)) : 0, lo;

	if (!o->has_time)
		return WIN_IN;
	if (j->end > 0 && o->event_time > j->end + a->rs->skew_s + (sk > 0 ? sk : 0))
		return WIN_OUT;
	if (j->start <= 0)
		return WIN_IN;
	lo = j->start - a->rs->skew_s + (sk < 0 ? sk : 0);
	if (o->event_time >= lo)
		return WIN_IN;
	return o->event_time >= lo - a->rs->grace_s ? WIN_BEFORE : WIN_OUT;
}

/* ---- phase: time bounds evidence ---- */

/* A kernel line's PID against the job's task pids on NODE (the plugin's records): +1 one of
 * them, -1 none of them while every task there is known by its pid, 0 when it cannot say. */
static int pid_link(const struct att *a, const char *node, int pid)
{
	bool all = true, any = false;

	if (pid <= 0 || !node)
		return 0;
	for (size_t i = 0; i < a->ev->ntasks; i++) {
		const struct pm_task *t = &a->ev->tasks[i];
		if (!t->node || strcmp(t->node, node))
			continue;
		any = true;
		if (t->pid == pid)
			return 1;
		if (t->pid <= 0)
			all = false;
	}
	return any && all ? -1 : 0;
}

/* See attribute.h. */
int pm_att_pid_link(const struct att *a, const char *node, int pid)
{
	return pid_link(a, node, pid);
}

/* C's trusted origin lines' pids against the job's tasks on its node: +1 one names a task pid,
 * -1 one names a pid that is none of them on a GPU not shown to be the job's, 0 otherwise.  A
 * pid that is no task's on a GPU the job's tasks there hold (the plugin's GPU lists) is not
 * shown to be outside the job: the tasks' children (the python `bash -c` starts, torchrun's
 * workers, a DataLoader's) are no task pids, and the evidence (the kernel's line, nvidia-smi,
 * the plugin's records) gives no user, parent or cgroup to tell them from another job's
 * (gpu-xid79-child-pid-own-gpu). */
static int cand_pidlink(const struct att *a, const struct cand *c)
{
	int link = 0;

	for (size_t k = 0; k < c->nev; k++) {
		const struct pm_obs *o = &a->ev->obs[c->ev[k]];
		int l = o->trusted && R(a, c->ev[k])->role == PM_ROLE_ORIGIN ?
				pid_link(a, c->node, o->pid) :
				0;
		if (l > 0)
			return 1;
		if (l < 0 && !pm_att_job_gpu(a, o))
			link = -1;
	}
	return link;
}

/* A folder gathered by hand with no accounting record (and no task record, no bundle): the
 * job's time is not known, so a dated kernel line is, to this job, what an undated one is:
 * it may predate the job (trust-no-record-earlier-day-xid).  So with a record that gives
 * only one of its bounds (no End, or no Start, and no Elapsed to give it: parse_sched.c):
 * the window is open on one side, where every event it keeps lies, and a line there may be
 * of an earlier or a later job (pm_att_half_window; trust-record-no-end-later-xid). */
bool pm_att_no_window(const struct att *a)
{
	const struct pm_evidence *ev = a->ev;

	return ((ev->job.start <= 0 && ev->job.end <= 0) || pm_att_half_window(a)) && !ev->ntasks &&
	       !ev->ncollect;
}

/*
 * Whether the job output F (index K)'s first dated line (scan.c, head_stamp) dates the job's
 * output being written: no line of it that a rule reads as anything but progress or set-up
 * comes at or before that line (a watchdog's report is dated its timeout after the hang
 * began), and no line of it a rule dates comes earlier than that line's time (a note written
 * after the job, dated at its top, quoting the job's stamped lines, dates nothing).
 */
static bool head_dates_output(const struct att *a, size_t k, const struct pm_file *f)
{
	if (f->head_t <= 0 || f->source != PM_SRC_APP_LOG)
		return false;
	for (size_t i = 0; i < a->ev->nobs; i++) {
		const struct pm_obs *o = &a->ev->obs[i];
		enum pm_role role = R(a, i)->role;
		if (o->file != k)
			continue;
		if (o->offset <= f->head_t_off && role != PM_ROLE_PROGRESS &&
		    role != PM_ROLE_CONTEXT)
			return false;
		if (o->has_time && o->event_time > 0 && o->event_time < f->head_t)
			return false;
	}
	return true;
}

/*
 * The time slurmstepd's line O ("*** JOB N ON host CANCELLED AT <ts> ...": a cancel, a time
 * limit, a preemption, a node failure) in the job's output gives the job's end, where it
 * names this job: the record's id, else OWN (the output file's, pm_att_output_job_id), else,
 * neither known, any one job's.  0 when O is no such line of this job.  A step's cancel
 * ("*** STEP N.S") ends the step alone: the batch script may go on.  The job can print such
 * a line, of any date: an earlier one only narrows what its end bounds (a missed blame,
 * never a blamed node), as its own dated lines do.
 */
static double cancel_end(const struct att *a, size_t i, const char *own)
{
	const struct pm_obs *o = &a->ev->obs[i];
	const char *q = o->raw ? strstr(o->raw, "*** JOB ") : NULL, *d;
	size_t n;

	if (!q || !R(a, i)->outcome || o->source != PM_SRC_APP_LOG || o->trusted)
		return 0;
	d = q + 8;
	n = strspn(d, "0123456789");
	if (!n || strncmp(d + n, " ON ", 4))
		return 0;
	if (a->ev->job.id && a->ev->job.id[0] ? !pm_record_job_id(a->ev, d, n) :
	    own				      ? strlen(own) != n || memcmp(own, d, n) :
						0)
		return 0;
	return pm_att_cancelled_at(o);
}

/* The latest end the job's cancel lines give (cancel_end), or 0: none, or, with no id to
 * check them by, lines naming two jobs. */
static double cancel_ends(const struct att *a)
{
	char own[64];
	bool have = pm_att_output_job_id(a, own, sizeof(own));
	const char *first = NULL;
	size_t fn = 0;
	double t = 0, x;

	for (size_t i = 0; i < a->ev->nobs; i++) {
		const char *d;
		size_t n;
		if ((x = cancel_end(a, i, have ? own : NULL)) <= 0)
			continue;
		d = strstr(a->ev->obs[i].raw, "*** JOB ") + 8;
		n = strspn(d, "0123456789");
		if (first && (n != fn || memcmp(first, d, n)))
			return 0;
		first = d;
		fn = n;
		if (x > t)
			t = x;
	}
	return t;
}

/* Whether every failure the job's output reports (a line an origin, cascade or confirmation
 * rule reads there) is dated, or comes before a line of its file that is: the job had printed
 * its failure by its output's last dated line.  Not so where a report follows every stamp
 * with a date (progress stamped by time of day only, a traceback after the last dated line):
 * the failure may have come any time after that line.  Where memory fails, not so. */
static bool failure_dated(const struct att *a)
{
	uint64_t *last = calloc(a->ev->nfiles ? a->ev->nfiles : 1, sizeof(*last));
	bool ok = last != NULL;
	char own[64];
	bool have = a->out_tc > 0 && pm_att_output_job_id(a, own, sizeof(own));

	/* a line dated in its text counts as one dated by its stamp: slurmstepd's cancel of
	 * this job (its time, out_tc) */
	for (size_t i = 0; ok && i < a->ev->nobs; i++) {
		const struct pm_obs *o = &a->ev->obs[i];
		if (o->source == PM_SRC_APP_LOG && !o->trusted &&
		    ((o->has_time && o->event_time > 0) ||
		     (a->out_tc > 0 && cancel_end(a, i, have ? own : NULL) > 0)) &&
		    o->offset + 1 > last[o->file])
			last[o->file] = o->offset + 1;
	}
	for (size_t i = 0; ok && i < a->ev->nobs; i++) {
		const struct pm_obs *o = &a->ev->obs[i];
		enum pm_role role = R(a, i)->role;
		if (o->source == PM_SRC_APP_LOG && !o->trusted &&
		    (role == PM_ROLE_ORIGIN || role == PM_ROLE_CASCADE ||
		     role == PM_ROLE_CONFIRMATION) &&
		    !(o->has_time && o->event_time > 0) && o->offset + 1 > last[o->file])
			ok = false;
	}
	free(last);
	return ok;
}

void pm_att_output_start(struct att *a)
{
	a->out_t0 = a->out_p0 = a->out_t1 = a->out_tc = 0;
	if (!pm_att_no_window(a) || pm_att_half_window(a))
		return;
	/* slurmstepd's cancel of this job dates its end, where no record does (review38 x1f:
	 * an undated traceback, the cancel, an Xid three hours after) */
	a->out_tc = cancel_ends(a);
	for (size_t i = 0; i < a->ev->nobs; i++) {
		const struct pm_obs *o = &a->ev->obs[i];
		enum pm_role role = R(a, i)->role;
		if (o->source != PM_SRC_APP_LOG || o->trusted || !o->has_time || o->event_time <= 0)
			continue;
		/* its progress and set-up, not its reports of the failure: a watchdog's line is
		 * dated its timeout after the hang began */
		if ((role == PM_ROLE_PROGRESS || role == PM_ROLE_CONTEXT) &&
		    (!a->out_t0 || o->event_time < a->out_t0))
			a->out_t0 = o->event_time;
		if (role == PM_ROLE_PROGRESS && (!a->out_p0 || o->event_time < a->out_p0))
			a->out_p0 = o->event_time;
		/* the end, from any line it dates: a later date the job prints only widens it */
		if (o->event_time > a->out_t1)
			a->out_t1 = o->event_time;
	}
	/* progress lines past a group's first are counted, not kept: the ranks' tallies give
	 * their first and last dates */
	for (size_t i = 0; i < a->ev->nranks; i++) {
		const struct pm_rankinfo *ri = &a->ev->ranks[i];
		if (ri->first_progress > 0 && (!a->out_p0 || ri->first_progress < a->out_p0))
			a->out_p0 = ri->first_progress;
		if (ri->last_progress > a->out_t1)
			a->out_t1 = ri->last_progress;
	}
	/* and a job output's first dated line, which no rule need read (review36 M2: a
	 * logger's "INFO start" with a date, the rest of the output dated by time of day) */
	for (size_t k = 0; k < a->ev->nfiles; k++) {
		const struct pm_file *f = &a->ev->files[k];
		if (!head_dates_output(a, k, f))
			continue;
		if (!a->out_t0 || f->head_t < a->out_t0)
			a->out_t0 = f->head_t;
		if (f->head_t > a->out_t1)
			a->out_t1 = f->head_t;
	}
	if (a->out_tc > a->out_t1)
		a->out_t1 = a->out_tc;
	if (a->out_t1 > 0 && !failure_dated(a))
		a->out_t1 = 0;
}

bool pm_att_before_output(const struct att *a, const struct pm_obs *o)
{
	return a->out_t0 > 0 && o->trusted && o->has_time && o->event_time > 0 &&
	       o->event_time < a->out_t0 - a->rs->skew_s - a->rs->grace_s;
}

/* Whether every origin line of C is a trusted line stamped more than the skew tolerance and
 * job_window_grace_s before T (BEFORE) or after it; T unknown (0): false. */
static bool cand_beyond(const struct att *a, const struct cand *c, double t, bool before)
{
	double m = a->rs->skew_s + a->rs->grace_s;

	if (!c->has_t || t <= 0)
		return false;
	for (size_t k = 0; k < c->nev; k++) {
		const struct pm_obs *o = &a->ev->obs[c->ev[k]];
		if (R(a, c->ev[k])->role == PM_ROLE_ORIGIN &&
		    !(o->trusted && o->has_time && o->event_time > 0 &&
		      (before ? o->event_time < t - m : o->event_time > t + m)))
			return false;
	}
	return true;
}

/* Whether every origin line of C is stamped before the job's output began (OUT_T0). */
static bool cand_before_output(const struct att *a, const struct cand *c)
{
	return cand_beyond(a, c, a->out_t0, true);
}

/* Whether every origin line of C is stamped after the job's output ended (OUT_T1, its latest
 * dated line), with no window: the job had printed its failure by then (x1f of review38: a
 * later process's Xid three hours on). */
static bool cand_after_output(const struct att *a, const struct cand *c)
{
	return cand_beyond(a, c, a->out_t1, false);
}

/* Whether every origin line of C is stamped before the job's output dates its first line of
 * progress (OUT_P0): the job's GPUs worked after it (a GPU that fell off the bus stays lost
 * until it is reset), so the event explains none of its failure, whatever its ranks printed
 * later.  Its set-up lines alone bound no such thing (OUT_T0): a job put on a GPU lost before
 * it began fails at set-up. */
static bool cand_before_progress(const struct att *a, const struct cand *c)
{
	return cand_beyond(a, c, a->out_p0, true);
}

/* The time of a trusted kernel boot banner on C's node stamped after every origin line of C and
 * at or before the job's output began (OUT_T0), the latest such; 0 none.  A reboot resets the
 * node's GPUs: what the node went through before it is not what this job met. */
static double cand_boot_between(const struct att *a, const struct cand *c)
{
	double last = 0, boot = 0;

	if (!c->has_t || !c->node[0] || a->out_t0 <= 0)
		return 0;
	for (size_t k = 0; k < c->nev; k++) {
		const struct pm_obs *o = &a->ev->obs[c->ev[k]];
		if (R(a, c->ev[k])->role != PM_ROLE_ORIGIN)
			continue;
		if (!o->has_time || o->event_time <= 0)
			return 0;
		if (o->event_time > last)
			last = o->event_time;
	}
	for (size_t i = 0; i < a->ev->nobs; i++) {
		const struct pm_obs *o = &a->ev->obs[i];
		if (!R(a, i)->boot || !o->trusted || !o->has_time || !o->node ||
		    strcmp(o->node, c->node) || o->event_time <= last ||
		    o->event_time > a->out_t0 + a->rs->skew_s)
			continue;
		if (o->event_time > boot)
			boot = o->event_time;
	}
	return boot;
}

/* The record gives the job's start or its end, not both. */
bool pm_att_half_window(const struct att *a)
{
	return (a->ev->job.start > 0) != (a->ev->job.end > 0);
}

/* C is a hardware event from a source the user cannot write, kept only because the record
 * leaves the job's window open on its side (pm_att_no_window): it may be another job's,
 * hours after this one ended or before it began.  It leads as an undated event does
 * (pm_att_phase_stale), at most at hypothesis, and its node's exclusion is only offered. */
bool pm_att_open_side(const struct att *a, const struct cand *c)
{
	return c->hardware && !c->current && !c->untrusted && pm_att_half_window(a) &&
	       pm_att_no_window(a);
}

/* C is a GPU's fault (gpu_hardware, nvlink). */
static bool gpu_cls(const struct cand *c)
{
	return !strcmp(c->cls, "gpu_hardware") || !strcmp(c->cls, "nvlink");
}

/* R reads a launch failure of the import kind: a module, a library, a program or a file the
 * job's environment lacks, a build or a configuration it rejects.  A GPU's fault makes none
 * of those: it fails CUDA's calls (the driver, a busy device, NCCL's set-up, a container's
 * GPU hook), and a job that met the lost GPU shows it in CUDA's own errors, which explain it
 * (gpu-xid79-undated-import-error; gpu-xid79-undated-import-then-cuda-error-near-miss).  A
 * link's or a disk's event may (a download that could not reach its server, a directory on
 * a filesystem that went away): those keep it. */
static bool import_kind(const struct pm_rule *r)
{
	return r->subcls && !strcmp(r->subcls, "import");
}

/* This job's own ranks on C's node failed in a way an event there explains: a hardware
 * symptom (a CUDA error naming the GPU's fault) or a failure at launch (for a GPU's fault, not
 * one of the import kind: import_kind), within the job (a state nvidia-smi read well after the
 * job is none: pm_att_late_snapshot).  A
 * line of the job's output does not say so where the plugin's records show every task on
 * that node ending cleanly while a task elsewhere failed (TRUST.md, "The job's output"). */
static bool stale_explained(const struct att *a, const struct cand *c)
{
	bool clean = c->node[0] && pm_att_clean_exits(a, c->node);

	/* a folder that names no host: the kernel log's node and the job's lines' are one as
	 * far as it says (a job's symptom with no node beside a node's log with none) */
	for (size_t k = 0; k < a->ev->nobs && (c->node[0] || pm_att_no_window(a)); k++) {
		const struct pm_obs *o = &a->ev->obs[k];
		const struct pm_rule *r = R(a, k);
		if ((c->node[0] ? !o->node || strcmp(o->node, c->node) : o->node != NULL) ||
		    (o->trusted &&
		     (((!o->has_time || pm_att_no_window(a)) && o->source == PM_SRC_KERNEL_LOG) ||
		      r->counter || pm_att_obs_window(a, o, true) != WIN_IN ||
		      pm_att_late_snapshot(a, o) > 0)) ||
		    (!o->trusted && clean))
			continue;
		/* of the job's text, only its own failure: a line that names its node by its own
		 * words (srun's "Node failure on X", a paste of scontrol's NodeName=X ... Reason=)
		 * is what the job printed about a node, which any job can print of any node, and
		 * a kernel-shaped line the job wrote is no failure of its own (review38 H1) */
		if (!o->trusted && (o->source != PM_SRC_APP_LOG || r->cap[PM_CAP_NODE]))
			continue;
		if ((r->role == PM_ROLE_ORIGIN || r->role == PM_ROLE_CONFIRMATION) &&
		    (r->hardware || (r->launch && !(gpu_cls(c) && import_kind(r)))))
			return true;
	}
	return false;
}

/* With no window, whether the job's output bounds C, a dated stale event, out of what the job
 * met, explained or not (review38 H1): C came after the output's last dated line
 * (cand_after_output), or, explained, before its first dated progress (cand_before_progress),
 * or a boot of its node came between it and the output (cand_boot_between).  C is then set
 * aside as context, with its reason in `why` (WHAT names its event). */
static bool stale_bounded(struct att *a, struct cand *c, const char *what)
{
	const char *node = c->node[0] ? c->node : "A node";
	double boot;

	if (!c->has_t || !pm_att_no_window(a) || pm_att_half_window(a))
		return false;
	if (cand_after_output(a, c) && a->out_tc > 0 && a->out_tc >= a->out_t1)
		pm_att_why(a,
			   "%s logged %s %.0f s after slurmstepd cancelled the job (its "
			   "\"CANCELLED AT\" line in the job's output): with no accounting record "
			   "that line dates the job's end, and the job had printed its failure "
			   "before it: context only, not this job's origin.",
			   node, what, c->t - a->out_tc);
	else if (cand_after_output(a, c))
		pm_att_why(a,
			   "%s logged %s %.0f s after the job's output dates its last line: with no "
			   "accounting record the job's end is not known, but its output had "
			   "ended, and the job had printed its failure, before it: context only, "
			   "not this job's origin.",
			   node, what, c->t - a->out_t1);
	else if (c->explained && cand_before_progress(a, c))
		pm_att_why(a,
			   "%s logged %s %.0f s before the job's output dates its first line of "
			   "progress: the job's GPUs worked after it (a GPU's fault stays until it "
			   "is reset), so what its ranks printed there later is no failure it "
			   "explains: context only, not this job's origin.",
			   node, what, a->out_p0 - c->t);
	else if ((boot = cand_boot_between(a, c)) > 0)
		pm_att_why(a,
			   "%s logged %s, then booted %.0f s later, before the job's output "
			   "began: the boot reset what the event left, so it is not what this job "
			   "met there: context only, not this job's origin.",
			   node, what, boot - c->t);
	else
		return false;
	c->dead = true;
	return true;
}

/*
 * The job's clock against Slurm's, from a stamp of Slurm's own in the job's output:
 * slurmstepd's "*** STEP N.S ON host CANCELLED AT <stamp> ***" (the node's local time,
 * zoneless: pm_att_cancelled_at) against the job's last dated line before it in that file
 * (and the ranks' last tallied progress).  *D: Slurm's stamp less the job's.  False where the
 * output holds no such pair.
 */
static bool zone_slurm_gap(const struct att *a, double *d)
{
	const struct pm_obs *cancel = NULL;
	double s = 0, job = 0;

	for (size_t i = 0; i < a->ev->nobs; i++) {
		const struct pm_obs *o = &a->ev->obs[i];
		double x;
		if (o->source == PM_SRC_APP_LOG && !o->trusted && R(a, i)->outcome &&
		    (x = pm_att_cancelled_at(o)) > 0 && (!cancel || o->offset < cancel->offset)) {
			cancel = o;
			s = x;
		}
	}
	if (!cancel)
		return false;
	for (size_t i = 0; i < a->ev->nobs; i++) {
		const struct pm_obs *o = &a->ev->obs[i];
		if (o->file == cancel->file && o != cancel && !o->trusted && o->has_time &&
		    o->event_time > job && o->offset < cancel->offset && !pm_att_cancelled_at(o))
			job = o->event_time;
	}
	for (size_t i = 0; i < a->ev->nranks; i++)
		if (a->ev->ranks[i].last_progress > job)
			job = a->ev->ranks[i].last_progress;
	if (job <= 0)
		return false;
	*d = s - job;
	return true;
}

/* Whether the job's output dates progress (a progress rule's line, a rank's last tallied one)
 * after every origin line of C by more than the skew tolerance and job_window_grace_s: as
 * written, the job worked on after its node's event, which its stamps and the node's tell
 * together only if they are of one zone. */
static bool zone_progress_after(const struct att *a, const struct cand *c)
{
	return cand_beyond(a, c, pm_att_last_progress(a), true);
}

/* The last time the job's output dates its progress: a progress line's own stamp, or a
 * rank's last progress; 0 where none is dated. */
double pm_att_last_progress(const struct att *a)
{
	double last = 0;

	for (size_t i = 0; i < a->ev->nobs; i++) {
		const struct pm_obs *o = &a->ev->obs[i];
		if (o->source == PM_SRC_APP_LOG && !o->trusted && o->has_time &&
		    o->event_time > last && R(a, i)->role == PM_ROLE_PROGRESS)
			last = o->event_time;
	}
	for (size_t i = 0; i < a->ev->nranks; i++)
		if (a->ev->ranks[i].last_progress > last)
			last = a->ev->ranks[i].last_progress;
	return last;
}

/*
 * With no window, C a dated event that the job's output did not bound (stale_bounded), the
 * bounds having compared the job's zoneless stamps with the node's as written: they are of
 * one zone only where the job logs in the node's local time (review39 H6: a container logging
 * in UTC on a node at UTC+8 read an Xid eight hours before the job, its GPU reset since, as in
 * its run).  Where Slurm's own stamp in the output (zone_slurm_gap) follows the job's last
 * dated line within the skew tolerance and job_window_grace_s, the zones agree and C stands.
 * Where it is a whole zone's offset off (a multiple of half an hour, within 90 s, at least
 * half an hour), the job's bounds are moved by it and asked again (cand_beyond): C before the
 * moved progress, explained, or after the moved end, is set aside.  Else, where the job's
 * output dates its progress after C (zone_progress_after: as written, the job worked on after
 * its GPU's fault, a story its stamps and the node's tell only if of one zone), the
 * comparison is unsure: C leads as it would, its node's exclusion only offered (c->guess).
 * True where C is set aside.
 */
static bool stale_zone_bounded(struct att *a, struct cand *c, const char *what)
{
	const char *node = c->node[0] ? c->node : "A node";
	double m = a->rs->skew_s + a->rs->grace_s, d = 0, z;
	bool gap = zone_slurm_gap(a, &d);

	if (c->dead || !c->has_t || !pm_att_no_window(a) || pm_att_half_window(a) ||
	    (a->out_p0 <= 0 && a->out_t1 <= 0))
		return false;
	if (gap && d >= -m && d <= m)
		return false;
	z = gap ? 1800 * round(d / 1800) : 0;
	if (gap && z >= 1800 && fabs(d - z) <= 90) {
		if (c->explained && cand_beyond(a, c, a->out_p0 > 0 ? a->out_p0 + z : 0, true))
			pm_att_why(a,
				   "%s logged %s %.0f s before the job's output dates its first "
				   "line of progress, read in Slurm's local time: slurmstepd's own "
				   "stamp in the output is %.0f s after the job's last dated line, "
				   "a zone's offset (the job logs in another zone than the node), "
				   "and the job's GPUs worked after the event: context only, not "
				   "this job's origin.",
				   node, what, a->out_p0 + z - c->t, d);
		else if (cand_beyond(a, c, a->out_t1 > 0 ? a->out_t1 + z : 0, false))
			pm_att_why(
				a,
				"%s logged %s %.0f s after the job's output dates its last line, "
				"read in Slurm's local time (slurmstepd's own stamp in the output "
				"is a zone's offset, %.0f s, after the job's last dated line): "
				"context only, not this job's origin.",
				node, what, c->t - a->out_t1 - z, d);
		else
			return false;
		c->dead = true;
		return true;
	}
	if (!c->guess && !c->fallback && zone_progress_after(a, c)) {
		c->guess = true;
		pm_att_why(a,
			   "%s: the job's output is dated by stamps of no zone, and %s: whether "
			   "the event came within the job's run is unsure (the job may log in "
			   "another zone than the node's log), so %s's exclusion is only offered.",
			   what,
			   gap ? "slurmstepd's own stamp in it is no zone's offset from its last "
				 "dated line" :
				 "no stamp of Slurm's in it says which zone they are in",
			   node);
	}
	return false;
}

/* C is a GPU's hardware fault (gpu_hardware, nvlink) from the kernel's own log whose every
 * line is undated: no time, not a state read at collection (a count with no baseline, a
 * `counter` rule's, is undated too).  Only this job's CUDA errors on
 * its node show a failure it explains; a disk's or a link's undated event explains more (an
 * I/O error, its peers' votes, the node's failure) and keeps its lead at hypothesis. */
static bool undated_hw(const struct att *a, const struct cand *c)
{
	return c->hardware && (!c->has_t || pm_att_no_window(a)) && !c->current && !c->untrusted &&
	       c->nin && (!strcmp(c->cls, "gpu_hardware") || !strcmp(c->cls, "nvlink"));
}

/* C's origin evidence is undated and holds a count read at collection (a `counter` rule's). */
static bool counted(const struct att *a, const struct cand *c)
{
	for (size_t k = 0; k < c->nev; k++)
		if (R(a, c->ev[k])->counter)
			return true;
	return false;
}

/* T, a snapshot's date as its node's clock wrote it (read as UTC), in BUF. */
static const char *snap_date(double t, char *buf, size_t n)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) || !strftime(buf, n, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, n, "%.0f", t);
	return buf;
}

/*
 * Time bounds evidence: an event stamped before the job began (within job_window_grace_s)
 * is what the node went through before this job, reported with its age.  It leads only
 * where this job's own ranks on that node failed in a way it explains (or a pid of this
 * job's tasks names it), and never above an explicit failure of this job on another node
 * (cmpcand); otherwise only when nothing else fits (a fallback, at most hypothesis).
 */
void pm_att_phase_stale(struct att *a)
{
	for (size_t i = 0; i < a->nc; i++) {
		struct cand *c = &a->c[i];
		const struct pm_obs *o;
		char what[200], date[32];

		if (c->dead || !c->nev || c->lead != LEAD_RULE)
			continue;
		c->pidlink = cand_pidlink(a, c);
		o = &a->ev->obs[c->ev[0]];
		if (o->xid > 0)
			snprintf(what, sizeof(what), "Xid %d (%s)", o->xid, c->summary);
		else
			snprintf(what, sizeof(what), "%s/%s (%s)", c->cls, c->sub, c->summary);
		if (!c->prestart && (undated_hw(a, c) || pm_att_open_side(a, c))) {
			/* its time unknown (a monotonic stamp with no boot time): it may be from
			 * before the job as well, so it leads as such an event does */
			c->explained = (c->node[0] || pm_att_no_window(a)) &&
				       (c->pidlink > 0 || stale_explained(a, c));
			c->fallback = !c->explained;
			if (c->explained && pm_att_late_only(c))
				pm_att_why(
					a,
					"%s: nvidia-smi on %s was taken at %s, %.0f s after the "
					"job's end and past its teardown, so it does not date the "
					"fault within the job; this job's ranks there failed in a "
					"way it explains: a hypothesis, its node's exclusion only "
					"offered.",
					what, c->node[0] ? c->node : "its node",
					snap_date(c->late_snap, date, sizeof(date)),
					c->late_snap - a->ev->job.end);
			if (stale_bounded(a, c, what) || stale_zone_bounded(a, c, what))
				continue;
			if (c->fallback && cand_before_output(a, c)) {
				/* the job's output dates its own lines after it: the job was
				 * running, and an earlier event there explains nothing of it */
				pm_att_why(
					a,
					"%s logged %s %.0f s before the job's output dates its first "
					"line of progress or set-up: with no accounting record the "
					"job's start is not known, but the job ran after it, and "
					"nothing this job's ranks did there shows a failure it "
					"explains: context only, not this job's origin.",
					c->node[0] ? c->node : "A node", what, a->out_t0 - c->t);
				c->dead = true;
				continue;
			}
			if (c->fallback) {
				if (c->has_t && pm_att_half_window(a))
					pm_att_why(
						a,
						"%s logged %s, and the accounting record gives no %s "
						"of this job (nor its Elapsed): the event may be "
						"another job's; context, not this job's origin by "
						"itself; nothing this job's ranks did there shows a "
						"failure it explains.",
						c->node[0] ? c->node : "A node", what,
						a->ev->job.end > 0 ? "start" : "end");
				else if (c->has_t)
					pm_att_why(
						a,
						"%s logged %s, and with no accounting record this "
						"job's time is not known: context, not this job's "
						"origin by itself; nothing this job's ranks did there "
						"shows a failure it explains.",
						c->node[0] ? c->node : "A node", what);
				else if (pm_att_late_only(c))
					pm_att_why(
						a,
						"%s: nvidia-smi on %s was taken at %s, %.0f s after the "
						"job's end and past its teardown: what its counters "
						"and states show may have come after the job (a later "
						"job's), not within it: context, not this job's origin "
						"by itself; nothing this job's ranks did there shows a "
						"failure it explains.",
						what, c->node[0] ? c->node : "its node",
						snap_date(c->late_snap, date, sizeof(date)),
						c->late_snap - a->ev->job.end);
				else if (counted(a, c) && c->tpre)
					pm_att_why(
						a,
						"%s logged %s %.0f s before this job began; nvidia-smi's "
						"count of such errors, read at collection with no "
						"baseline, does not date one within the job: context, "
						"not this job's origin by itself; nothing this job's "
						"ranks did there shows a failure it explains.",
						c->node[0] ? c->node : "A node", what,
						a->ev->job.start - c->tpre);
				else if (counted(a, c))
					pm_att_why(
						a,
						"%s: a count read at collection with no "
						"baseline says an error happened on %s, not when (before this job as well as in it): "
						"context, not this job's origin by itself; nothing this "
						"job's ranks did there shows a failure it explains.",
						what, c->node[0] ? c->node : "its node");
				else
					pm_att_why(
						a,
						"%s logged %s at a time the log does not give (no "
						"boot time for its stamps): context, not this job's "
						"origin by itself; nothing this job's ranks did there "
						"shows a failure it explains.",
						c->node[0] ? c->node : "A node", what);
				snprintf(c->note, sizeof(c->note),
					 "its event is %s and nothing of this job on %s shows a "
					 "failure it explains",
					 c->has_t ? "of a time this job's is not known against" :
						    "undated",
					 c->node[0] ? c->node : "that node");
			}
			continue;
		}
		if (!c->prestart) {
			if (c->pidlink < 0)
				pm_att_why(
					a,
					"%s names a pid that is none of this job's tasks on %s, on a GPU "
					"not shown to be the job's: the link to this job is weaker "
					"(hypothesis).",
					what, c->node);
			continue;
		}
		c->explained = c->node[0] && (c->pidlink > 0 || stale_explained(a, c));
		c->fallback = !c->explained;
		pm_att_why(a, "%s logged %s %.0f s before this job began: %s",
			   c->node[0] ? c->node : "A node", what, a->ev->job.start - c->tpre,
			   c->explained ?
				   "this job's own ranks there failed in a way it explains, so it "
				   "may lead (at most supported), never over an explicit failure "
				   "of this job on another node." :
				   "context, not this job's origin by itself; nothing this job's "
				   "ranks did there shows a failure it explains.");
		if (c->fallback)
			snprintf(c->note, sizeof(c->note),
				 "its event predates this job and nothing of this job on %s shows "
				 "a failure it explains",
				 c->node[0] ? c->node : "that node");
	}
}

/* ---- clock skew in the ordering ---- */

/* The apparent skew (absolute, beyond the tolerance) of the clock C's times come from: its
 * node's, or for a candidate of several nodes the largest of any node's. */
static double cand_skew(const struct att *a, const struct cand *c)
{
	return c->node[0] ? fabs(node_skew(a, c->node)) : a->maxskew;
}

/* How far apart two candidates' times must be for the earlier to count as first: the skew
 * tolerance, widened by the larger apparent skew of their nodes' clocks (on one node, one
 * clock: the tolerance alone). */
double pm_att_pair_tol(const struct att *a, const struct cand *x, const struct cand *y)
{
	double sx, sy;

	if (x->node[0] && !strcmp(x->node, y->node))
		return a->rs->skew_s;
	sx = cand_skew(a, x);
	sy = cand_skew(a, y);
	return a->rs->skew_s + (sx > sy ? sx : sy);
}

static int cmpclkskew(const void *x, const void *y)
{
	const struct clk *a = *(const struct clk *const *)x, *b = *(const struct clk *const *)y;

	if (fabs(a->d) != fabs(b->d))
		return fabs(a->d) > fabs(b->d) ? -1 : 1;
	return strcmp(a->node, b->node);
}

/* Say which nodes' clocks appear off by more than the tolerance, and what was done about it
 * (pm_att_phase_clocks, in_window, pm_att_pair_tol): the largest first, four at most, then a count. */
void pm_att_skew_notes(struct att *a)
{
	const struct clk **v;
	size_t n = 0;
	double tol = a->rs->skew_s;

	if (!a->nclk || !(v = malloc(a->nclk * sizeof(*v))))
		return;
	for (size_t i = 0; i < a->nclk; i++)
		if (fabs(a->clk[i].d) > tol)
			v[n++] = &a->clk[i];
	pm_sort(v, n, sizeof(*v), cmpclkskew);
	for (size_t i = 0; i < n && i < 4; i++) {
		const struct clk *c = v[i];
		double d = fabs(c->d);
		char kept[80] = "";

		if (c->kept)
			snprintf(kept, sizeof(kept), " (%zu hardware event(s) kept only thus)",
				 c->kept);
		if (c->d > 0 && c->d_collect > 0)
			pm_att_why(
				a,
				"Clock skew on %s: every node's tasks exited at least %.1f s after the "
				"job's end (the job's own teardown); beyond that, its collector began "
				"%.1f s later by its own clock, more than the %.1f s skew tolerance: its "
				"clock may be up to %.1f s ahead of the controller's (or its epilog began "
				"late). Its events count up to %.1f s after the job's end%s; its times "
				"decide no order against other nodes' within %.1f s.",
				c->node, a->teardown, d, tol, d, d + tol, kept, d + tol);
		else if (c->d > 0)
			pm_att_why(
				a,
				"Clock skew on %s: its collector began %.1f s after the job's end "
				"(accounting record) by its own clock, beyond the %.1f s skew tolerance: "
				"its clock may be up to %.1f s ahead of the controller's (or its epilog "
				"began late). Its events count up to %.1f s after the job's end%s; its "
				"times decide no order against other nodes' within %.1f s.",
				c->node, d, tol, d, d + tol, kept, d + tol);
		else
			pm_att_why(
				a,
				"Clock skew on %s: its collector began %.1f s before the job's end "
				"(accounting record) by its own clock: its clock is at least %.1f s "
				"behind the controller's, beyond the %.1f s skew tolerance. Its events "
				"count from %.1f s further before the job window's start%s; its times "
				"decide no order against other nodes' within %.1f s.",
				c->node, d, d, tol, d, kept, d + tol);
	}
	for (size_t i = 0; i < a->nclk; i++) {
		const struct clk *c = &a->clk[i];
		if (c->d_collect > tol && c->d <= tol)
			pm_att_why(
				a,
				"%s's collector began %.1f s after the job's end by its own clock, but "
				"every node's tasks exited at least %.1f s after that end by their own "
				"clocks (processes that outlived it): its epilog began late with the "
				"job's teardown; its clock is not shown to be skewed.",
				c->node, c->d_collect, a->teardown);
		else if (c->exits && c->d > tol && c->late <= tol)
			pm_att_why(
				a,
				"%s's tasks last exited %+.1f s from the job's end by its own clock: "
				"its collector's later start may be a late epilog rather than its "
				"clock.",
				c->node, c->late);
	}
	if (n > 4)
		pm_att_why(
			a,
			"Clock skew: %zu more node(s) appear off by more than the %.1f s tolerance "
			"(up to %.1f s); their windows and orderings are widened alike.",
			n - 4, tol, fabs(v[4]->d));
	free(v);
}
