/*
 * att_decide.c - the attribution's decision (ATTRIBUTION.md phases 8 to 12): candidates
 * ordered (their rank, outcome, time, clocks), the lead and the status with its ambiguity
 * test, and the confidence from what was read and what was missing.
 */

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "attribute.h"
#include "taxonomy.h"

/* ---- ordering and ambiguity ---- */

/* Hardware outranks software only when it is dated inside the job window: an undated line
 * (a monotonic stamp with no boot time) might predate the job by months. */
static int cand_rank(const struct cand *c)
{
	if (c->fallback)
		return 3; /* only when nothing better fits */
	if (c->hardware && c->lead == LEAD_RULE && !c->prestart && (c->has_t || c->current))
		return 0;
	if (c->lead == LEAD_RULE)
		return 1;
	return 2;
}

/* Whether every exception C's evidence names (its origin lines' alone with ORIGIN_ONLY) is
 * one of the N TYPES, by the name after its module's last dot; an evidence line that names
 * no exception says no. */
static bool excs_among(const struct att *at, const struct cand *c, const char *const *types,
		       size_t n, bool origin_only)
{
	for (size_t i = 0; i < c->nev; i++) {
		const char *e = at->ev->obs[c->ev[i]].exc, *d;
		bool known = false;

		if (origin_only && R(at, c->ev[i])->role != PM_ROLE_ORIGIN)
			continue;
		if (!e)
			return false;
		d = strrchr(e, '.');
		d = d ? d + 1 : e;
		for (size_t k = 0; k < n && !known; k++)
			known = !strcmp(d, types[k]);
		if (!known)
			return false;
	}
	return true;
}

/*
 * A program's own logic error: every piece of C's evidence an exception, of a type no
 * hardware fault raises (a missing key, a wrong type or value, a failed assertion, a missing
 * file or module, a syntax error).  A GPU, a link or a disk that failed makes the program fail
 * in other words (a CUDA error, a collective timeout, an I/O error): beside such an exception
 * a hardware event neither explains it nor is explained by it, a tie (tied()).
 */
bool pm_att_logic_error(const struct att *at, const struct cand *c)
{
	static const char *const types[] = {
		"KeyError",
		"ValueError",
		"TypeError",
		"IndexError",
		"AttributeError",
		"NameError",
		"AssertionError",
		"FileNotFoundError",
		"ZeroDivisionError",
		"NotImplementedError",
		"ModuleNotFoundError",
		"SyntaxError",
		"IndentationError",
		"UnboundLocalError",
		"JSONDecodeError",
		"FileExistsError",
		"IsADirectoryError",
		"NotADirectoryError",
	};

	if (c->hardware || !c->nev || strcmp(c->cls, "application") ||
	    strcmp(c->sub, "python_exception"))
		return false;
	return excs_among(at, c, types, sizeof(types) / sizeof(types[0]), false);
}

/* Whether C is the job's filesystem failing it: a storage class (a full or failing
 * filesystem, a stale mount) or the user's disk quota. */
static bool disk_cause(const struct cand *c)
{
	return !strcmp(c->cls, "storage") ||
	       (!strcmp(c->cls, "resource_limit") && !strcmp(c->sub, "disk_quota"));
}

/* Whether C is something the job looked for and did not find: what its launch loads
 * (launch_config/import: a module, a program, a library), or an exception of its own that
 * says a file or module is not there. */
static bool missing_thing(const struct att *at, const struct cand *c)
{
	static const char *const types[] = {"FileNotFoundError", "ModuleNotFoundError",
					    "ImportError"};

	if (!strcmp(c->cls, "launch_config") && !strcmp(c->sub, "import"))
		return true;
	if (strcmp(c->cls, "application") || strcmp(c->sub, "python_exception") || !c->nev)
		return false;
	return excs_among(at, c, types, sizeof(types) / sizeof(types[0]), true);
}

/*
 * Whether D, a filesystem that failed the job, and M, a thing the job then did not find,
 * are one failure told in order: one process's output (the same node, or none named for
 * either; no two different ranks) holds an origin line of D before M's first origin line.
 * A package install that stopped on a full disk or a quota and the module it left missing,
 * a working directory gone stale and the script not found in /tmp where slurmstepd went
 * instead, a copy to local scratch that failed and the file the job then opened: what the
 * job failed to write or reach is what it missed.  Untimed lines, or lines within the
 * tolerance, give no order but the file's (sto-errno-then-missing-module).
 */
static bool disk_then_missing(const struct att *at, const struct cand *d, const struct cand *m)
{
	const struct pm_obs *first = NULL;

	if (!disk_cause(d) || !missing_thing(at, m) || strcmp(d->node, m->node) ||
	    (d->nranks == 1 && m->nranks == 1 && d->ranks[0] != m->ranks[0]))
		return false;
	for (size_t i = 0; i < m->nev; i++) {
		const struct pm_obs *o = &at->ev->obs[m->ev[i]];
		if (R(at, m->ev[i])->role != PM_ROLE_ORIGIN ||
		    (first && (o->file != first->file || o->offset >= first->offset)))
			continue;
		first = o;
	}
	for (size_t i = 0; first && i < d->nev; i++) {
		const struct pm_obs *o = &at->ev->obs[d->ev[i]];
		if (R(at, d->ev[i])->role == PM_ROLE_ORIGIN && o->file == first->file &&
		    o->offset < first->offset)
			return true;
	}
	return false;
}

/* C's first origin line, by its file's order: NULL when none. */
static const struct pm_obs *first_origin(const struct att *at, const struct cand *c)
{
	const struct pm_obs *first = NULL;

	for (size_t i = 0; i < c->nev; i++) {
		const struct pm_obs *o = &at->ev->obs[c->ev[i]];
		if (R(at, c->ev[i])->role == PM_ROLE_ORIGIN &&
		    (!first || (o->file == first->file && o->offset < first->offset)))
			first = o;
	}
	return first;
}

/*
 * Whether E, the program's own logic error (pm_att_logic_error: a KeyError, a ValueError),
 * came before S, a step's OOM that only slurmstepd's end-of-step count reports ("Detected 1
 * oom_kill event in StepId=..."): E's first origin line in the same file before S's, and
 * every origin line of S that count, undated.  Slurm writes the count when the step ends and
 * says neither which process the OOM killer ended nor when: a helper the failing process
 * outlived, which no logic error follows from.  What an OOM kill does cause (a worker killed,
 * a MemoryError, "Killed" on the launcher) is no logic error, and the OOM leads it as before
 * (res-step-oom-line-beside-worker-killed-near-miss; res-step-oom-line-after-own-keyerror).
 */
static bool logic_before_step_oom(const struct att *at, const struct cand *e, const struct cand *s)
{
	const struct pm_obs *fe, *fs;

	if (!pm_is_kind(s->cls, s->sub, PM_K_HOST_OOM) || !pm_att_logic_error(at, e))
		return false;
	for (size_t i = 0; i < s->nev; i++) {
		const struct pm_rule *r = R(at, s->ev[i]);
		if (r->role == PM_ROLE_ORIGIN &&
		    (strcmp(r->id, "slurm-cgroup-oom") || at->ev->obs[s->ev[i]].has_time))
			return false;
	}
	fe = first_origin(at, e);
	fs = first_origin(at, s);
	return fe && fs && fe->file == fs->file && fe->offset < fs->offset;
}

static int cmpcand(const void *x, const void *y, void *arg)
{
	const struct att *at = arg;
	const struct cand *a = x, *b = y;
	int ra = cand_rank(a), rb = cand_rank(b);

	if (a->dead != b->dead)
		return a->dead ? 1 : -1;
	if (ra != rb)
		return ra - rb;
	/* an event from before the job leads over what it explains on its own node, never
	 * over an explicit failure of this job elsewhere (pm_att_phase_stale) */
	if (a->prestart != b->prestart && a->lead == LEAD_RULE && b->lead == LEAD_RULE) {
		const struct cand *p = a->prestart ? a : b, *q = a->prestart ? b : a;
		bool same = p->node[0] && !strcmp(p->node, q->node);
		return same == (p == a) ? -1 : 1;
	}
	if (a->has_t && b->has_t && fabs(a->t - b->t) > pm_att_pair_tol(at, a, b))
		return a->t < b->t ? -1 : 1;
	/* within the tolerance, the explanation of the ranks that fell silent wins */
	size_t sa = pm_att_silent_support(at, a), sb = pm_att_silent_support(at, b);
	if (sa != sb)
		return sa > sb ? -1 : 1;
	/* the filesystem that failed the job before what it then did not find */
	if (disk_then_missing(at, a, b))
		return -1;
	if (disk_then_missing(at, b, a))
		return 1;
	/* the program's own logic error before a step's OOM that only its end-of-step count
	 * reports */
	if (logic_before_step_oom(at, a, b))
		return -1;
	if (logic_before_step_oom(at, b, a))
		return 1;
	if (a->strength != b->strength)
		return b->strength - a->strength;
	if (a->has_t != b->has_t)
		return a->has_t ? -1 : 1;
	if (a->has_t && a->t != b->t)
		return a->t < b->t ? -1 : 1;
	int c = strcmp(a->cls, b->cls);
	if (c)
		return c;
	c = strcmp(a->sub, b->sub);
	if (c || (c = strcmp(a->node, b->node)))
		return c;
	/* two candidates never compare equal: their places before the sort.  The merge sort
	 * only compares an element of its left run with one of its right, which came later, so
	 * this gives it the answer 0 gave (pm_msort_r takes the left one on <= 0) */
	return (a->seq > b->seq) - (a->seq < b->seq);
}

static bool close_in_time(const struct att *a, const struct cand *x, const struct cand *y)
{
	if (!x->has_t || !y->has_t)
		return true;
	return fabs(x->t - y->t) <= pm_att_pair_tol(a, x, y);
}

static int outcome_rank(const struct att *a, const struct cand *c);

/* X leads Y only by being earlier, by more than the skew tolerance but less than their
 * clocks' apparent skew could shift: the order rests on clocks that cannot be trusted for
 * it. */
static bool order_by_skewed_clocks(const struct att *a, const struct cand *x, const struct cand *y)
{
	double dt;

	if (!x->has_t || !y->has_t || (x->node[0] && !strcmp(x->node, y->node)))
		return false;
	dt = fabs(x->t - y->t);
	return dt > a->rs->skew_s && dt <= pm_att_pair_tol(a, x, y) &&
	       cand_rank(x) == cand_rank(y) && outcome_rank(a, x) == outcome_rank(a, y) &&
	       pm_att_silent_support(a, x) == pm_att_silent_support(a, y) &&
	       x->strength == y->strength && x->t < y->t;
}

/* Whether the job reached its time limit while still making progress: a TIMEOUT that did not
 * stall (pm_att_phase_scheduler), with a live time-limit candidate. */
static bool progressing_timeout(const struct att *a)
{
	if (strcmp(a->outcome, "TIMEOUT") || a->stalled)
		return false;
	for (size_t i = 0; i < a->nc; i++)
		if (!a->c[i].dead && pm_is_kind(a->c[i].cls, a->c[i].sub, PM_K_TIME_LIMIT))
			return true;
	return false;
}

static bool timeouts_fired(const struct att *a);

/*
 * Whether a GPU slowed by heat (or its power brake: PM_K_THERMAL) can be what ended this job.
 * A slowed GPU ends a job only through what slowness makes: its peers' collective timeouts,
 * a stall, the time limit.  Where the job ended otherwise (not TIMEOUT, no collective timeout
 * reported) with an error of its own that does not lead only for want of better (a KeyError,
 * a RuntimeError, an out-of-memory), that error ended it, and the heat is at most context
 * beside it (gpu-thermal-beside-program-error; a straggler that its peers timed out on still
 * leads as heat: gpu-hw-thermal-slowdown-straggler).
 */
static bool heat_cannot_end(const struct att *a)
{
	if (!strcmp(a->outcome, "TIMEOUT") || a->stalled || timeouts_fired(a))
		return false;
	for (size_t i = 0; i < a->nc; i++) {
		const struct cand *c = &a->c[i];

		if (!c->dead && !c->fallback && !c->hardware && c->lead == LEAD_RULE &&
		    !pm_is_kind(c->cls, c->sub, PM_K_THERMAL))
			return true;
	}
	return false;
}

/* External outcomes and node failures lead: they are what ended the job.  A GPU slowed by
 * heat ends no job: where the time limit ended one that was still progressing, the heat is at
 * most why it was slow, behind the time limit (pm_att_phase_order says so in the why); beside
 * the program's own error where nothing slowness makes was seen, that error ended it, and the
 * heat is behind it too (heat_cannot_end). */
static int outcome_rank(const struct att *a, const struct cand *c)
{
	const char *o = a->outcome;

	/* a requeue is what Slurm did with the job, not why its tasks died: where a trusted
	 * hardware event in the run, which this job's ranks' failure explains, stands beside it,
	 * that event leads (review39 r4: a REQUEUED record over a GPU lost in the run) */
	if (!strcmp(o, "REQUEUED") && pm_att_run_hardware(a))
		return c == pm_att_run_hardware(a) ? 0 : 1;
	if ((!strcmp(o, "CANCELLED") || !strcmp(o, "PREEMPTED") || !strcmp(o, "REQUEUED")) &&
	    pm_class_external(c->cls))
		return 0;
	/* Slurm's cancel of a job whose dependency can never be satisfied (kill_invalid_depend) */
	if (!strcmp(o, "CANCELLED") && pm_is_kind(c->cls, c->sub, PM_K_DEPENDENCY))
		return 0;
	if (!strcmp(o, "NODE_FAIL") && pm_is_kind(c->cls, c->sub, PM_K_NODE_FAIL))
		return 0;
	/* the failed node's own hardware fault is why it failed: it ends the job as much as
	 * the failure it caused (a fatal PCIe error, a machine check, on the node srun or the
	 * record names as failed) */
	if (!strcmp(o, "NODE_FAIL") && c->node[0] && pm_class_hardware(c->cls))
		for (size_t i = 0; i < a->nc; i++)
			if (!a->c[i].dead && a->c[i].node[0] && !strcmp(a->c[i].node, c->node) &&
			    pm_is_kind(a->c[i].cls, a->c[i].sub, PM_K_NODE_FAIL))
				return 0;
	if (pm_is_kind(c->cls, c->sub, PM_K_THERMAL) &&
	    (progressing_timeout(a) || heat_cannot_end(a)))
		return 2;
	return 1;
}

static int cmpcand_outcome(const void *x, const void *y, void *arg)
{
	const struct cand *a = x, *b = y;
	int ra, rb;

	if (a->dead != b->dead)
		return a->dead ? 1 : -1;
	ra = outcome_rank(arg, a);
	rb = outcome_rank(arg, b);
	if (ra != rb)
		return ra - rb;
	return cmpcand(x, y, arg);
}

static bool node_degraded(const struct att *a, const char *node)
{
	for (size_t i = 0; i < a->ev->nfiles; i++) {
		const struct pm_file *f = &a->ev->files[i];
		if (!f->node || strcmp(f->node, node) || f->other_job)
			continue;
		if (f->status == PM_ST_TRUNCATED || f->status == PM_ST_LAGGING ||
		    f->status == PM_ST_UNREADABLE || f->status == PM_ST_DENIED ||
		    f->status == PM_ST_TIMED_OUT)
			return true;
	}
	for (size_t i = 0; i < a->ev->ncov; i++)
		if (a->ev->cov[i].node && !strcmp(a->ev->cov[i].node, node) &&
		    (!strcmp(a->ev->cov[i].status, "truncated") ||
		     !strcmp(a->ev->cov[i].status, "lagging") ||
		     !strcmp(a->ev->cov[i].status, "timed_out")))
			return true;
	return false;
}

/* Whether every job node has a file HAS counts (no: when there is no node). */
static bool every_node_has(const struct att *a, bool (*has)(const struct pm_file *f))
{
	const struct pm_evidence *ev = a->ev;
	size_t n;
	char **nodes = pm_att_nodes(a, &n);
	const char **seen;
	size_t ns = 0, room = ev->nfiles ? ev->nfiles : 1;
	bool all = true;

	if (!n)
		return false;
	for (size_t k = 0; k < ev->nfiles; k++)
		room += ev->files[k].nshosts;
	/* the nodes such a file covers (its sections' hosts too), sorted: one look-up per job
	 * node */
	if (!(seen = malloc(room * sizeof(*seen))))
		return false;
	for (size_t k = 0; k < ev->nfiles; k++) {
		const struct pm_file *f = &ev->files[k];
		if (!has(f))
			continue;
		if (f->node)
			seen[ns++] = f->node;
		for (unsigned h = 0; h < f->nshosts; h++)
			seen[ns++] = f->shosts[h];
	}
	if (ns > 1)
		qsort(seen, ns, sizeof(*seen), pm_cmp_str_null);
	for (size_t i = 0; i < n && all; i++)
		all = nodes[i] && bsearch(&nodes[i], seen, ns, sizeof(*seen), pm_cmp_str_null);
	free(seen);
	return all;
}

static bool kernel_log_read(const struct pm_file *f)
{
	return f->source == PM_SRC_KERNEL_LOG && f->status == PM_ST_OK;
}

/* A source its user cannot write that shows its node's hardware (kernel log, GPU state, DCGM
 * metrics), read. */
static bool hardware_view(const struct pm_file *f)
{
	return (f->source == PM_SRC_KERNEL_LOG || f->source == PM_SRC_GPU_STATE ||
		f->format == PM_FMT_PROMETHEUS) &&
	       (f->status == PM_ST_OK || f->status == PM_ST_TRUNCATED);
}

/* Every job node's kernel log was read whole. */
static bool kernel_coverage(const struct att *a)
{
	return every_node_has(a, kernel_log_read);
}

/* Every job node has at least one source its user cannot write that shows its hardware
 * (kernel log, GPU state, DCGM metrics): somebody looked at each node. */
static bool trusted_view(const struct att *a)
{
	return every_node_has(a, hardware_view);
}

static bool has_source(const struct att *a, enum pm_source s)
{
	for (size_t i = 0; i < a->ev->nfiles; i++)
		if (a->ev->files[i].source == s && (a->ev->files[i].status == PM_ST_OK ||
						    a->ev->files[i].status == PM_ST_TRUNCATED))
			return true;
	return false;
}

/*
 * Missing inputs only ever lower confidence.  Each cap below names what a missing source
 * could be hiding: another node's hardware event would compete with a hardware cause (and
 * outrank anything else); the job's own output holds every application error; a time limit
 * is only "while still making progress" if the progress was seen.
 */
static const char *confidence(const struct att *a, const struct cand *c, bool ambiguous,
			      bool sched_cause, bool slurm_act)
{
	if (ambiguous || c->lead != LEAD_RULE || c->strength == PM_WEAK || c->fallback ||
	    c->pidlink < 0 || c->user_record)
		return "hypothesis";
	if (c->hardware && !c->has_t && !c->current && !c->tpre)
		return "hypothesis"; /* undated: it may predate the job */
	if (pm_att_no_window(a) && !c->current &&
	    (!strcmp(c->cls, "gpu_hardware") || !strcmp(c->cls, "nvlink")))
		return "hypothesis"; /* a GPU's event, and no record of the job's time */
	if (pm_att_open_side(a, c))
		return "hypothesis"; /* a hardware event where the record leaves the window open */
	if (c->node[0] && node_degraded(a, c->node))
		return "hypothesis";
	if (c->hardware && !slurm_act && !trusted_view(a) &&
	    !(a->ev->job.failed_node && !a->ev->job.record_user_text &&
	      !strcmp(c->node, a->ev->job.failed_node)))
		return "hypothesis"; /* a node nobody looked at may hold a rival event */
	if (!c->hardware && !slurm_act && !has_source(a, PM_SRC_APP_LOG))
		return "hypothesis"; /* without the job's output no rival is ruled out */
	if (pm_is_kind(c->cls, c->sub, PM_K_TIME_LIMIT) && !a->any_progress)
		return "hypothesis"; /* progress until the end was not seen */
	if (c->strength == PM_STRONG && c->corroborated && !c->prestart &&
	    (sched_cause || kernel_coverage(a)))
		return "established";
	return "supported";
}

/* What fired with no candidate: 2 an origin or a confirmation (outside the job's time),
 * 1 only consequences (cascades, teardown), 0 nothing but progress and context. */
static int fired_kind(const struct att *a)
{
	int k = 0;

	for (size_t i = 0; i < a->ev->nobs; i++) {
		enum pm_role r = R(a, i)->role;
		if (a->yielded && a->yielded[i]) /* a generic reading set aside (att_yield.c) */
			continue;
		if (a->not_job && a->not_job[i]) /* another job's set-up failure (att_cands.c) */
			continue;
		if (pm_att_end_aside(a, i)) /* no end of this job's (att_cands.c, phase_outcome) */
			continue;
		if (R(a, i)->step_wait) /* srun's wait for a step: no symptom unless it led */
			continue;
		/* the step's plain cancel line after a task failed of itself is srun's teardown
		 * (phase_outcome), a consequence, not a symptom outside the job's time; so is a
		 * worker torchrun's summary lists as failed after its root cause */
		if (r == PM_ROLE_CONFIRMATION && ((a->task_failed && R(a, i)->outcome &&
						   !strcmp(R(a, i)->outcome, "CANCELLED")) ||
						  pm_att_summary_unnamed(a, &a->ev->obs[i]))) {
			k = 1;
			continue;
		}
		if (r == PM_ROLE_ORIGIN || r == PM_ROLE_CONFIRMATION)
			return 2;
		if (r == PM_ROLE_CASCADE || r == PM_ROLE_TEARDOWN)
			k = 1;
	}
	return k;
}

/*
 * Where only consequences fired, what the first of them is, in its rule's words: a
 * launcher's or a framework's report that a rank, worker or actor died (MPICH hydra's
 * "assert (!closed) failed", Ray's WorkerCrashedError), or the job being taken down.  It
 * names no cause and no node, so the status stays unknown; the reader is told what was
 * read and where the cause is to be looked for.  A cascade (a report of a process gone)
 * before a teardown (the job ended), each the first of its role in the evidence's order.
 */
static void name_consequence(struct att *a)
{
	size_t pick = SIZE_MAX;
	char sum[PM_OBS_SUMMARY_MAX];

	for (size_t i = 0; i < a->ev->nobs; i++) {
		enum pm_role r = R(a, i)->role;
		if (a->yielded && a->yielded[i])
			continue;
		if (r == PM_ROLE_CASCADE) {
			pick = i;
			break;
		}
		if (r == PM_ROLE_TEARDOWN && pick == SIZE_MAX)
			pick = i;
	}
	if (pick == SIZE_MAX)
		return;
	pm_att_why(a,
		   "Read first, by %s: %s. It reports another failure or the job's end, not "
		   "its cause: look for the failing process's own error before it (its rank's "
		   "or worker's own output, the job's record).",
		   R(a, pick)->id, pm_obs_summary(a->ev, &a->ev->obs[pick], sum));
}

/* ---- the decision: order, status, launch, confidence ---- */

/* Sort the candidates (phase 8) and note the leading two. */
void pm_att_phase_order(struct att *a)
{
	/* cmpcand is no order (a tolerance, pairwise rules): the result is the engine's own
	 * sort's, which depends only on its answers and this input order (sort.c) */
	for (size_t i = 0; i < a->nc; i++)
		a->c[i].seq = i;
	pm_msort_r(a->c, a->nc, sizeof(a->c[0]), cmpcand_outcome, a);
	for (size_t i = 0; i < a->nc; i++)
		if (!a->c[i].dead) {
			a->live++;
			a->any_hw |= a->c[i].hardware;
		}
	a->lead = a->live ? &a->c[0] : NULL;
	a->second = a->live > 1 ? &a->c[1] : NULL;
	if (a->lead && !a->lead->hardware && heat_cannot_end(a))
		for (size_t i = 1; i < a->live; i++)
			if (pm_is_kind(a->c[i].cls, a->c[i].sub, PM_K_THERMAL)) {
				pm_att_why(a,
					   "A GPU%s%s was slowed by heat or its power brake (%s): "
					   "that slows a job, it does not end one, and nothing here "
					   "shows the job slowed (no collective timed out, no time "
					   "limit): %s ended it.",
					   a->c[i].node[0] ? " on " : "", a->c[i].node,
					   a->c[i].summary, a->lead->summary);
				break;
			}
	if (!pm_att_heat_behind_limit(a))
		return;
	for (size_t i = 1; i < a->live; i++)
		if (pm_is_kind(a->c[i].cls, a->c[i].sub, PM_K_THERMAL)) {
			pm_att_why(a,
				   "A GPU%s%s was slowed by heat or its power brake (%s): that may "
				   "be why the job was slow, not why it ended; it was still making "
				   "progress when the time limit ended it.",
				   a->c[i].node[0] ? " on " : "", a->c[i].node, a->c[i].summary);
			break;
		}
}

bool pm_att_heat_behind_limit(const struct att *a)
{
	bool hot = false;

	if (!a->lead || !pm_is_kind(a->lead->cls, a->lead->sub, PM_K_TIME_LIMIT) ||
	    !progressing_timeout(a))
		return false;
	for (size_t i = 0; i < a->nc; i++) {
		if (a->c[i].dead || !a->c[i].hardware)
			continue;
		if (!pm_is_kind(a->c[i].cls, a->c[i].sub, PM_K_THERMAL))
			return false;
		hot = true;
	}
	return hot;
}

/* Observation I is a collective timeout: a cascade with the collective's sequence number,
 * or one of the collective-timeout kind without it (PyTorch before 1.13 printed the
 * watchdog's "WorkNCCL(OpType=ALLREDUCE, Timeout(ms)=...)" with no SeqNum; Gloo's timeouts
 * have none). */
static bool coll_timeout(const struct att *a, size_t i)
{
	const struct pm_rule *r = R(a, i);

	return r->role == PM_ROLE_CASCADE &&
	       (a->ev->obs[i].seq >= 0 || pm_is_kind(r->cls, r->subcls, PM_K_TIMEOUTS));
}

static bool timeouts_fired(const struct att *a)
{
	for (size_t i = 0; i < a->ev->nobs; i++)
		if (coll_timeout(a, i))
			return true;
	return false;
}

/* The one rank that reported every collective timeout, or -1 (none with a rank, or two). */
static int lone_rank(const struct att *a)
{
	int r = -1;

	for (size_t i = 0; i < a->ev->nobs; i++) {
		const struct pm_obs *o = &a->ev->obs[i];
		if (!coll_timeout(a, i))
			continue;
		if (o->rank < 0 || (r >= 0 && o->rank != r))
			return -1;
		r = o->rank;
	}
	return r;
}

/* Rank R alone reported the timeout and no other rank is known silent: it waited in a
 * collective the others never entered (they went on, or finished), so the log names it as
 * the timeout's origin rank.  Returns R, or -1. */
static int lone_reporter(struct att *a, struct cand *l, int r)
{
	const char *n;

	if (r < 0 || l->nranks || pm_att_cand_addrank(l, r) < 0)
		return -1;
	if ((n = pm_att_rank_node(a, r)))
		snprintf(l->node, sizeof(l->node), "%s", n);
	snprintf(l->summary, sizeof(l->summary),
		 "rank %d alone reported a collective timeout, with no hardware event, no silent "
		 "rank and no peer majority",
		 r);
	pm_att_why(a,
		   "Rank %d alone reported the collective timeout: it waited in a collective its "
		   "peers never entered.",
		   r);
	return r;
}

static void cand_swap(struct cand *x, struct cand *y)
{
	struct cand t = *x;

	*x = *y;
	*y = t;
}

/* M and L the two leads, in this order, first among the candidates (whatever was merged
 * away stays behind). */
static void two_leads(struct att *a, struct cand *m, struct cand *l)
{
	size_t im = (size_t)(m - a->c), il = (size_t)(l - a->c);

	cand_swap(&a->c[0], &a->c[im]);
	if (il == 0)
		il = im;
	cand_swap(&a->c[1], &a->c[il]);
	a->lead = &a->c[0];
	a->second = &a->c[1];
	a->live = 2;
}

/* Peers that never entered a collective one rank waits in were elsewhere in the program:
 * the ranks' collectives diverged (a call skipped or added on some ranks, sizes that
 * differ), an application fault.  It leads; the unattributed timeout stays beside it, for
 * a peer that died in a way the folder does not show (still ambiguous). */
static void mismatch_lead(struct att *a, struct cand *l, int r)
{
	struct cand *m =
		pm_att_kind_get(a, PM_K_MISMATCH, l->node[0] ? l->node : NULL, LEAD_TIMEOUTS);

	if (!m)
		return;
	for (size_t k = 0; k < l->nev; k++)
		pm_att_cand_add(a, m, l->ev[k]);
	pm_att_cand_ranks_clear(m);
	if (pm_att_cand_addrank(m, r) < 0)
		return;
	m->strength = PM_WEAK;
	snprintf(m->summary, sizeof(m->summary),
		 "rank %d waited in a collective its peers never entered: the ranks' "
		 "collectives diverged",
		 r);
	pm_att_why(a,
		   "Its peers went on without it: the ranks' collectives diverged (a call made on "
		   "some ranks only, or sizes that differ), unless a peer died in a way this "
		   "evidence does not show.");
	two_leads(a, m, l);
}

/* Timeouts that tell no rank apart, beside progress lines that do: the ranks R[0..N) whose
 * own progress stopped before their peers' (pm_att_stragglers, on NODE where one) are
 * listed as the origin, a hypothesis; still ambiguous, the fabric between them not ruled
 * out. */
static void timeout_stragglers(struct att *a, struct cand *l, const int *r, size_t n,
			       const char *node)
{
	char who[128];

	if (!n)
		return;
	for (size_t k = 0; k < n; k++)
		pm_att_cand_addrank(l, r[k]);
	if (node)
		snprintf(l->node, sizeof(l->node), "%s", node);
	pm_att_straggler_name(who, sizeof(who), r, n, node);
	pm_att_why(a,
		   "Rank %s logged its last progress %.0f s before the other ranks' last: the one "
		   "the others most likely waited for (a straggler, a hypothesis), unless the "
		   "fabric between them failed.",
		   who, a->last_progress - pm_att_straggled(a, r, n));
}

/*
 * Which reading names the timeout's rank, when no figure of completed collectives does: the
 * lone reporter before the straggler of the progress lines.  Here every rank but the
 * reporter went on past where it stopped (else phase 5 made suspects of them, and the hang
 * leads): the peers did not wait for anyone, so the fabric between them is no reading, and
 * a peer seen one interval behind beside the reporter (its last line kept from the log by
 * a buffer at the kill) is not what it waited for.  Returns the lone reporter's rank, or -1.
 */
static int timeout_rank(struct att *a, struct cand *l)
{
	int s[8], r;
	const char *node;
	size_t n;

	if (l->nranks)
		return -1;
	if ((r = lone_reporter(a, l, lone_rank(a))) >= 0)
		return r;
	n = pm_att_stragglers(a, s, sizeof(s) / sizeof(s[0]), &node);
	timeout_stragglers(a, l, s, n, node);
	return -1;
}

/* Collective timeouts with nothing else (phase 9): communication_unattributed, its origin
 * the ranks with the fewest completed collectives, else the lone reporter or the
 * straggler (timeout_rank). */
static void timeouts_lead(struct att *a)
{
	struct cand *l = pm_att_kind_get(a, PM_K_TIMEOUTS, NULL, LEAD_TIMEOUTS);
	int r = -1;

	a->lead = l;
	if (l) {
		l->strength = PM_WEAK;
		snprintf(l->summary, sizeof(l->summary),
			 "collective timeouts on every "
			 "rank with no hardware event, no silent rank and no peer majority");
		for (size_t i = 0; i < a->ev->nobs && l->nev < 8; i++)
			if (coll_timeout(a, i))
				pm_att_cand_add(a, l, i);
		pm_att_cand_ranks_clear(l);
		pm_att_fewest_completed(a, l);
		r = timeout_rank(a, l);
		a->live = 1;
		if (r >= 0)
			mismatch_lead(a, l, r);
	}
	a->status = VS_AMBIGUOUS;
	if (r >= 0) {
		snprintf(a->test, sizeof(a->test),
			 "TORCH_DISTRIBUTED_DEBUG=DETAIL on the next run (it checks that every "
			 "rank calls the same collective with the same sizes), and the peers' "
			 "own output for an error of theirs");
		return;
	}
	snprintf(a->test, sizeof(a->test),
		 "nccl-tests all_reduce_perf across the job's nodes, and "
		 "TORCH_NCCL_DUMP_ON_TIMEOUT=1 on the next run to see which rank stalls");
	pm_att_why(a, "Every rank timed out in the same collective and nothing else fired: the "
		      "communication failure cannot be attributed.");
}

/* Every rank of the job dumped (a dump's head, a context rule of the hang kind), some of
 * them blocked in a collective and the others in no collective at all: the others are where
 * the job stopped, the likely origin of the hang (a hypothesis: a dump is a moment, and a
 * dump cut short may hide its collective frame). L then names those ranks. False, L
 * untouched, when a rank was not dumped (it may be the one elsewhere), when no rank or every
 * rank waits in a collective, or when as many ranks are outside as inside. Also read by a
 * time limit's stall with no straggler (att_sched.c stall_lead). */
bool pm_att_dumps_outside(struct att *a, struct cand *l)
{
	const struct pm_evidence *ev = a->ev;
	int *hd = NULL, *in = NULL, *out = NULL;
	size_t nhd = 0, ahd = 0, nin = 0, ain = 0, nout = 0, aout = 0;
	const char *node = NULL;
	bool ok = false, one_node = true;

	for (size_t i = 0; i < ev->nobs; i++) {
		const struct pm_obs *o = &ev->obs[i];
		const struct pm_rule *r = R(a, i);

		if (o->rank < 0 || o->source != PM_SRC_APP_LOG ||
		    !pm_is_kind(r->cls, r->subcls, PM_K_HANG))
			continue;
		if (r->role == PM_ROLE_CONTEXT && pm_rankset_push(&hd, &nhd, &ahd, o->rank) < 0)
			goto done;
		if (r->role == PM_ROLE_CONFIRMATION &&
		    pm_rankset_push(&in, &nin, &ain, o->rank) < 0)
			goto done;
	}
	pm_rankset_done(hd, &nhd);
	pm_rankset_done(in, &nin);
	for (size_t i = 0; i < nhd; i++)
		if (!pm_rankset_has(in, nin, hd[i]) &&
		    pm_rankset_push(&out, &nout, &aout, hd[i]) < 0)
			goto done;
	if (!nout || !nin || nout >= nin)
		goto done;
	/* every known rank dumped: an undumped one may be the one elsewhere */
	for (size_t i = 0; i < a->nknown; i++)
		if (!pm_rankset_has(hd, nhd, a->known[i]) && !pm_rankset_has(in, nin, a->known[i]))
			goto done;
	pm_att_cand_ranks_clear(l);
	for (size_t i = 0; i < nout; i++) {
		const char *n = pm_att_rank_node(a, out[i]);
		if (pm_att_cand_addrank(l, out[i]) < 0)
			goto done;
		if (!n || (node && strcmp(node, n)))
			one_node = false;
		node = n;
	}
	snprintf(l->node, sizeof(l->node), "%s", one_node && node ? node : "");
	l->nalso = 0;
	snprintf(l->summary, sizeof(l->summary),
		 "rank%s %d%s %s dumped outside the collective %zu other rank%s wait in: the job "
		 "likely stopped there",
		 nout > 1 ? "s" : "", out[0], nout > 1 ? " and more" : "",
		 nout > 1 ? "were" : "was", nin, nin > 1 ? "s" : "");
	pm_att_why(a,
		   "Every rank's stacks were dumped: %zu wait in a collective, %zu (rank %d%s) in "
		   "none: the rank%s outside it likely stopped the job (a dump is a moment; one "
		   "cut short may hide its collective frame).",
		   nin, nout, out[0], nout > 1 ? " and more" : "", nout > 1 ? "s" : "");
	a->status = VS_ATTRIBUTED;
	ok = true;
done:
	free(hd);
	free(in);
	free(out);
	return ok;
}

/* A hang seen only as processes blocked in a collective (stack dumps, a confirmation that
 * leads for want of anything else, phase 10): every dumped process waits for a peer, so the
 * ranks and the node the dumps came from are where the hang was seen, not where it began.
 * No origin; ambiguous between the job's own code (a rank elsewhere, or calls that differ)
 * and the communication library or fabric, unless the dumps single out ranks outside it
 * (pm_att_dumps_outside). */
static void dumps_lead(struct att *a, struct cand *l)
{
	if (pm_att_dumps_outside(a, l))
		return;
	a->status = VS_AMBIGUOUS;
	a->ambiguous = true;
	pm_att_cand_ranks_clear(l);
	l->node[0] = '\0';
	l->nalso = 0;
	snprintf(l->summary, sizeof(l->summary),
		 "stack dumps show processes blocked in a collective, with no error: the job "
		 "hung, and the dumps do not say where it began");
	snprintf(a->test, sizeof(a->test),
		 "py-spy dump --native (or gdb thread apply all bt) on every rank while it hangs, "
		 "or TORCH_NCCL_DUMP_ON_TIMEOUT=1: a rank outside the collective, or one that "
		 "never reached it, is where the job stopped; every rank inside it points to the "
		 "communication library or the fabric (NCCL_DEBUG=INFO, nccl-tests across the "
		 "job's nodes)");
	pm_att_why(a, "The only evidence is processes waiting in a collective: a hang with no "
		      "origin, its dumped ranks not blamed.");
}

/*
 * A set-up failure whose lines give no reason (a `reasonless` rule: NCCL's "unhandled
 * system error") on a node whose own lines say a peer refused or never answered its
 * connection (a cascade that names the peer: "Connect to 10.0.0.7<41233> failed :
 * Connection refused"): the rank that printed it is where the failure was seen, not where
 * it began.  The peer's process may have gone or not be listening, the network to it may
 * be down, or NCCL dialled an address the peer cannot be reached on (its interface
 * settings): the evidence of one side cannot tell these apart.  A set-up failure seen only
 * after progress (late_setup: the group had formed, so the address was reachable then) is
 * one too, the peer's side the more likely.  NET/IB's queue pair that timed out on its way
 * to RTR is the same failure over RDMA (nccl-ib-qp-peer-unreachable), a refusal even where
 * the line names no peer (InfiniBand's names a QPN only): QP_REFUSAL.  The observation of
 * that refusal, or SIZE_MAX when L is not so: a reason of its own kind on that node (NCCL on
 * a container's bridge interfaces) or another candidate keeps L as it is.
 */
#define QP_REFUSAL "nccl-ib-qp-peer-unreachable"

static size_t refusal_for(const struct att *a, const struct cand *l)
{
	size_t found = SIZE_MAX;

	if (!l || l->lead != LEAD_RULE || !l->nev || a->live > 1)
		return SIZE_MAX;
	for (size_t k = 0; k < l->nev; k++)
		if (!R(a, l->ev[k])->reasonless)
			return SIZE_MAX;
	for (size_t k = 0; k < a->ev->nobs; k++) {
		const struct pm_obs *o = &a->ev->obs[k];
		const struct pm_rule *r = R(a, k);
		bool here = l->node[0] ? o->node && !strcasecmp(o->node, l->node) :
					 !o->node && o->file == a->ev->obs[l->ev[0]].file;

		if (!here)
			continue;
		if (!strcmp(r->cls, l->cls) && !strcmp(r->subcls, l->sub) && !r->reasonless &&
		    r->role != PM_ROLE_CONTEXT)
			return SIZE_MAX;
		if (r->role == PM_ROLE_CASCADE && (o->peer || !strcmp(r->id, QP_REFUSAL)) &&
		    found == SIZE_MAX)
			found = k;
	}
	return found;
}

static bool refused_lead(struct att *a, struct cand *l, size_t k)
{
	const struct pm_obs *o = &a->ev->obs[k];
	bool qp = !strcmp(R(a, k)->id, QP_REFUSAL);
	char ip[48], where[48], peer[112];
	size_t n = o->peer ? strcspn(o->peer, "<") : 0;
	const char *pn = NULL, *jn;
	struct cand *m;

	snprintf(ip, sizeof(ip), "%.*s", (int)(n < sizeof(ip) ? n : sizeof(ip) - 1),
		 o->peer ? o->peer : "");
	if (ip[0])
		pn = pm_ev_ip_node(a->ev, ip);
	jn = pn ? pm_att_job_node(a, pn) : NULL;
	if (pn && strcasecmp(pn, ip))
		snprintf(peer, sizeof(peer), "%s (%.60s)", ip, pn);
	else if (ip[0])
		snprintf(peer, sizeof(peer), "%s", ip);
	else /* an InfiniBand queue pair's line names no address */
		snprintf(peer, sizeof(peer), "(not named by its line)");
	if (l->node[0])
		snprintf(where, sizeof(where), "%.47s", l->node);
	else if (l->nranks == 1)
		snprintf(where, sizeof(where), "rank %d", l->ranks[0]);
	else
		snprintf(where, sizeof(where), "a rank");
	/* the peer's side: its node when the job's nodes include it, else none named */
	if (!(m = pm_att_kind_get(a, PM_K_REMOTE_ERROR, jn, LEAD_VOTES)) ||
	    pm_att_cand_add(a, m, k) < 0)
		return false; /* no room: L leads as it is */
	pm_att_cand_ranks_clear(m);
	m->strength = PM_WEAK;
	m->sumobs = 0;
	if (qp) {
		snprintf(m->summary, sizeof(m->summary),
			 "the RDMA peer %.80s was not reached by NCCL's queue pair from %.40s: its "
			 "port or process, or the fabric to it",
			 peer, where);
		snprintf(l->summary, sizeof(l->summary),
			 "NCCL on %.40s addressed its RDMA peer %.80s by a GID or route the peer "
			 "cannot be reached by (NCCL_IB_GID_INDEX, NCCL_IB_HCA, the subnet)",
			 where, peer);
	} else {
		snprintf(m->summary, sizeof(m->summary),
			 "the peer at %.80s refused or never answered NCCL's connection from "
			 "%.40s: its process gone or not listening, or the network to it",
			 peer, where);
		/* the settings' side: this node's NCCL dialling an address the peer is not on */
		snprintf(l->summary, sizeof(l->summary),
			 "NCCL on %.40s dialled its peer %.80s on an address the peer cannot be "
			 "reached on (NCCL_SOCKET_IFNAME)",
			 where, peer);
	}
	l->sumobs = 0;
	pm_att_cand_ranks_clear(l);
	l->node[0] = '\0';
	l->nalso = 0;
	a->status = VS_AMBIGUOUS;
	a->ambiguous = true;
	a->refused = true;
	pm_att_why(a,
		   "%s reported the set-up failure, and its own lines say the peer %s refused or "
		   "never answered its connection: it is where the failure was seen, not where it "
		   "began, and is not blamed.",
		   where, peer);
	if (l->late_setup)
		pm_att_why(a, "The job had made progress before it: its group had formed over "
			      "these addresses, so the peer's side is the likelier.");
	if (qp)
		snprintf(a->test, sizeof(a->test),
			 "the peer's kernel log and port state (ibstat, ibv_devinfo) and its job "
			 "log for an error before this one, and both nodes' NCCL_DEBUG=INFO \"NET/IB "
			 ": Using\" lines and GID tables (show_gids): a peer whose port or process "
			 "failed first is the cause; GIDs of another index or subnet on the two "
			 "sides are NCCL's settings (NCCL_IB_GID_INDEX); both healthy and alike "
			 "point to the fabric between them (ib_write_bw between the two)");
	else
		snprintf(a->test, sizeof(a->test),
			 "the log of the peer at %s for an error before this one (a process that "
			 "died or never started), and NCCL_DEBUG=INFO's \"Bootstrap : Using\" and "
			 "\"NET/Socket : Using\" lines on both nodes: a peer that failed first is the "
			 "cause; a peer alive but on another interface than the one dialled is "
			 "NCCL's settings (NCCL_SOCKET_IFNAME); a peer alive on that interface "
			 "points to the network between them (ping, nccl-tests between the two)",
			 peer);
	two_leads(a, m, l); /* the peer's side before the settings' */
	return true;
}

/* L and S name the same processes: no one node named, and the same ranks (a traceback and
 * the error detail under it, both behind "[rank1]: "; or every rank of a job of several
 * nodes printing a set-up failure and the error NCCL returned for it: NCCL_NET naming a
 * plugin that no node could load, nccl-net-forced-plugin-missing-every-node).  Each process
 * met one failure and said it twice: its stronger reading leads, as on one node. */
static bool same_rank_no_node(const struct cand *l, const struct cand *s)
{
	if (l->node[0] || s->node[0] || !l->nranks || l->nranks != s->nranks)
		return false;
	for (size_t i = 0; i < l->nranks; i++) {
		size_t k = 0;
		while (k < s->nranks && s->ranks[k] != l->ranks[i])
			k++;
		if (k == s->nranks)
			return false;
	}
	return true;
}

/* Where C is, for a why line ("on gpu01"): its node; with none named, its one rank, or
 * several nodes. */
static const char *cand_where(const struct cand *c, char *buf, size_t n)
{
	if (c->node[0])
		snprintf(buf, n, "on %s", c->node);
	else if (c->nranks == 1)
		snprintf(buf, n, "on rank %d (no node named)", c->ranks[0]);
	else
		snprintf(buf, n, "%s", c->nranks ? "on several nodes" : "with no node named");
	return buf;
}

/* Whether every origin line of C is a generic rule's reading (py-exception: an exception's
 * last line, whatever it says). */
static bool generic_only(const struct att *a, const struct cand *c)
{
	size_t n = 0;

	for (size_t k = 0; k < c->nev; k++) {
		const struct pm_rule *r = R(a, c->ev[k]);
		if (r->role != PM_ROLE_ORIGIN)
			continue;
		if (!r->generic)
			return false;
		n++;
	}
	return n > 0;
}

/* Whether C holds a reading of the line of observation O (its file and offset). */
static bool on_line(const struct att *a, const struct cand *c, size_t o)
{
	const struct pm_obs *x = &a->ev->obs[o];

	for (size_t k = 0; k < c->nev; k++) {
		const struct pm_obs *y = &a->ev->obs[c->ev[k]];
		if (y->file == x->file && y->offset == x->offset)
			return true;
	}
	return false;
}

/* Whether L and S are a generic exception and the specific origin its handler raised after
 * Python's "During handling of the above exception" (att_yield.c, a->handled). */
static bool handled(const struct att *a, const struct cand *l, const struct cand *s)
{
	for (size_t i = 0; s && i < a->nhandled; i++) {
		size_t g = a->handled[2 * i], h = a->handled[2 * i + 1];
		if ((on_line(a, l, g) && on_line(a, s, h)) ||
		    (on_line(a, l, h) && on_line(a, s, g)))
			return true;
	}
	return false;
}

/* The first two candidates tie (phase 8): different classes on different nodes, within the
 * tolerance, of the same standing.  Two on one rank are one process's: not different nodes. */
static bool tied(const struct att *a, const struct cand *l, const struct cand *s)
{
	/* an exception and the failure its handler met: the traceback cannot say whether the
	 * handler reported the first or failed at something of its own */
	if (handled(a, l, s))
		return true;
	/* a filesystem that failed the job, then the thing it did not find: one failure */
	if (s && (disk_then_missing(a, l, s) || disk_then_missing(a, s, l)))
		return false;
	/* trusted hardware beside the program's own logic error, which no hardware fault
	 * raises: neither explains the other, and the evidence cannot say which ended the job */
	if (s && cand_rank(l) == 0 && pm_att_logic_error(a, s))
		return true;
	/* two exceptions only a generic rule reads, on two nodes, tie too whatever their class:
	 * neither is dated before the other, and such a reading cannot tell a program's own
	 * error from a peer's loss seen by a bystander (EOFError, ConnectionRefusedError on
	 * the node whose peer died) */
	bool cls = strcmp(l->cls, s ? s->cls : l->cls) ||
		   (s && l->node[0] && s->node[0] && strcasecmp(l->node, s->node) &&
		    generic_only(a, l) && generic_only(a, s));

	return s && cls && (strcmp(l->node, s->node) || !l->node[0]) && !same_rank_no_node(l, s) &&
	       close_in_time(a, l, s) && outcome_rank(a, l) == outcome_rank(a, s) &&
	       cand_rank(l) == cand_rank(s) && l->prestart == s->prestart &&
	       pm_att_silent_support(a, l) == pm_att_silent_support(a, s);
}

bool pm_att_own_hw(const struct cand *c)
{
	return !c->dead && c->hardware && c->lead == LEAD_RULE && !c->fallback && !c->untrusted &&
	       !c->prestart && (c->has_t || c->current) && c->node[0];
}

/* Other nodes whose hardware failed on their own beside an attributed lead: not bystanders
 * (verdict.c), and said in why, for a node that should not run the next job unchecked. */
static void note_own_hw(struct att *a, const struct cand *l)
{
	for (size_t i = 0; i < a->live; i++) {
		const struct cand *c = &a->c[i];
		if (c == l || !pm_att_own_hw(c) || !strcmp(c->node, l->node))
			continue;
		pm_att_why(a,
			   "%s had a hardware failure of its own (%s/%s: %s), not a consequence "
			   "of the origin's: check it before it runs another job.",
			   c->node, c->cls, c->sub, c->summary);
	}
}

/* Whether X and Y are alike in their dates for co_origins: both dated, both undated, or one
 * undated only because its lines carry no stamp (not a state read at collection, nor an
 * event from before the job): a line with no time cannot be ordered against one with a time,
 * and the stamp a program printed on one node and not on the other tells nothing of which
 * came first (trust-two-nodes-one-stamp-cuda-tie). */
static bool undated_apart(const struct cand *x, const struct cand *y)
{
	if (!x->has_t == !y->has_t)
		return true;
	return !x->current && !y->current && !x->tpre && !y->tpre;
}

/* Whether X and Y, fallback leads both (phase 10), are dated against nothing of the job: no
 * record, no task records, no collector and no line of the job's output with a date
 * (pm_att_no_window, out_t0).  Their times order them against each other, not against the
 * job: the earlier may be an earlier job's and the later this one's, or the earlier this
 * job's and the later one after it.  Hours apart they are as undecided as in one second
 * (gpu-no-record-two-hosts-xid79-hours-apart; with the job's record, the earlier is
 * before its window: gpu-record-two-hosts-xid79-hours-apart-near-miss). */
static bool timeless_pair(const struct att *a, const struct cand *x, const struct cand *y)
{
	return x->fallback && y->fallback && pm_att_no_window(a) && a->out_t0 <= 0;
}

/*
 * The lead's hardware class on other nodes, each from that node's own evidence, as dated,
 * as strong and as ranked as the lead (phase 8): two GPUs that fell off the bus in the same
 * second on two nodes.  Each node had its event; the order between them is only their
 * names', and calling one the origin and the other a bystander would tell operators to
 * keep running on a node whose hardware failed.  Each is an origin (marked CO; the lead's
 * origin lists their nodes, verdict.c) and the verdict is ambiguous: separate faults, or one
 * cause they share.  Returns how many there are.
 */
static size_t co_origins(struct att *a, struct cand *l)
{
	size_t n = 0;

	if (!l->hardware || l->lead != LEAD_RULE || !l->node[0] || l->nalso)
		return 0;
	for (size_t i = 1; i < a->live; i++) {
		struct cand *c = &a->c[i];
		if (c->dead || !c->hardware || c->lead != LEAD_RULE || c->fallback != l->fallback ||
		    c->untrusted != l->untrusted || !c->node[0] || strcmp(c->cls, l->cls) ||
		    !strcmp(c->node, l->node) || c->strength != l->strength ||
		    !undated_apart(l, c) || !(close_in_time(a, l, c) || timeless_pair(a, l, c)) ||
		    cand_rank(c) != cand_rank(l) || c->prestart != l->prestart ||
		    outcome_rank(a, c) != outcome_rank(a, l) ||
		    pm_att_silent_support(a, c) != pm_att_silent_support(a, l))
			continue;
		c->co = true;
		/* and their ranks and the GPUs they lost (origin.ranks and .gpus; as many GPUs
		 * as the lead keeps) */
		for (size_t r = 0; r < c->nranks; r++)
			if (pm_att_cand_addrank(l, c->ranks[r]) < 0)
				return n;
		for (size_t g = 0; g < c->ngpus && l->ngpus < 8; g++) {
			bool have = false;
			for (size_t k = 0; k < l->ngpus && !have; k++)
				have = !strcmp(l->gpus[k], c->gpus[g]);
			if (!have && (l->gpus[l->ngpus] = strdup(c->gpus[g])))
				l->ngpus++;
		}
		n++;
	}
	return n;
}

/* Whether candidate C is a shared filesystem's client trouble (a Lustre eviction, an NFS
 * server timed out). */
static bool fs_shared(const struct cand *c)
{
	return !strcmp(c->cls, "storage") && (!strcmp(c->sub, "lustre") || !strcmp(c->sub, "nfs"));
}

/*
 * A shared filesystem's trouble seen from several nodes (phase 8): the lead is storage, and
 * another node's own evidence of this job's window reports it too: its kernel's Lustre or
 * NFS client trouble (an eviction, a server that timed out), or, where the lead is such
 * client trouble, its ranks' own filesystem errors (EIO, a stale handle: the same
 * filesystem failing under them).  One filesystem failed under them all, not one node: each
 * such node is an origin (CO, listed with the lead's), none a bystander, and why says so;
 * the containment stays the storage operators', and no node is excluded.  Not ambiguous:
 * the cause they share is the filesystem.  A full filesystem is not a client's trouble.
 * Returns how many there are.
 */
static size_t fs_clients(struct att *a, struct cand *l)
{
	const char *nodes[MAXC]; /* the nodes those candidates are on, each once */
	size_t n = 0, nn = 0;

	if (strcmp(l->cls, "storage") || l->lead != LEAD_RULE || l->nalso)
		return 0;
	for (size_t i = 0; i < a->nc; i++) {
		struct cand *c = &a->c[i];
		size_t own = SIZE_MAX;
		if (c == l || c->lead != LEAD_RULE || strcmp(c->cls, "storage") || !c->nev ||
		    !strcmp(c->sub, "full") || !c->node[0] || !strcmp(c->node, l->node) ||
		    c->prestart)
			continue;
		if (fs_shared(c)) {
			for (size_t k = 0; k < c->nev && own == SIZE_MAX; k++)
				if (a->ev->obs[c->ev[k]].source == PM_SRC_KERNEL_LOG)
					own = c->ev[k];
		} else if (fs_shared(l)) {
			own = c->ev[0];
		}
		/* its own, or merged into the lead (a job-wide candidate of the class) */
		if (own == SIZE_MAX || (c->dead && !pm_att_cand_holds(l, own)))
			continue;
		c->co = true;
		n++;
		/* a node's kernel line and its ranks' errors are two candidates of one node */
		size_t k = 0;
		while (k < nn && strcmp(nodes[k], c->node))
			k++;
		if (k == nn && nn < MAXC)
			nodes[nn++] = c->node;
		/* and the ranks that failed on it (origin.ranks) */
		for (size_t r = 0; r < c->nranks; r++)
			if (pm_att_cand_addrank(l, c->ranks[r]) < 0)
				break;
	}
	/* "other" than the lead's node; a job-wide lead has none */
	if (n)
		pm_att_why(a,
			   "%zu %snode%s of the job had the same filesystem's trouble (%s own "
			   "kernel log or %s ranks' errors): a shared filesystem's, not one node's; "
			   "%s an origin too, not a bystander, and no node is excluded for it.",
			   nn, l->node[0] ? "other " : "", nn > 1 ? "s" : "",
			   nn > 1 ? "their" : "its", nn > 1 ? "their" : "its",
			   nn > 1 ? "each is" : "it is");
	return n;
}

/* What would separate an ambiguous verdict's candidates (ambiguity.test). */
static void ambiguity_test(struct att *a)
{
	const struct cand *l = a->lead, *s = a->second;

	if (a->refused)
		return; /* refused_lead's own test */
	if (a->ambiguous && l && a->nco) {
		const struct pm_decision *d = pm_ruleset_decision(a->rs, l->cls, l->sub);
		const char *names[MAXC];
		char nodes[384], t[600], *hl;
		size_t nn = 0;

		names[nn++] = l->node;
		for (size_t i = 0; i < a->live; i++)
			if (a->c[i].co)
				names[nn++] = a->c[i].node;
		/* as a host list (gpu[016-017]), cut with a count if it is still long */
		hl = pm_hostlist_compress(names, nn);
		if (!hl || strlen(hl) >= sizeof(nodes))
			snprintf(nodes, sizeof(nodes), "%s and %zu other nodes", l->node, nn - 1);
		else
			snprintf(nodes, sizeof(nodes), "%s", hl);
		free(hl);
		pm_subst(t, sizeof(t), d ? d->next_test : "", nodes);
		snprintf(a->test, sizeof(a->test),
			 "%s: a fault on each node fails it there; all passing points to one "
			 "cause they share (a switch, power, cooling, a driver or firmware change)",
			 t[0] ? t : "diagnostics on each node");
		/* the same wording for undated lines and for the job's output would claim a
		 * time and a source the evidence does not have */
		bool undated = !l->has_t, apart = false;
		for (size_t i = 0; i < a->live; i++) {
			undated |= a->c[i].co && !a->c[i].has_t;
			apart |= a->c[i].co && !close_in_time(a, l, &a->c[i]);
		}
		if (apart) /* timeless_pair: hours apart, with nothing of the job to date */
			snprintf(t, sizeof(t),
				 ", at times that nothing of this job is dated against");
		else if (l->has_t && !undated)
			snprintf(t, sizeof(t), " within the %.1f s skew tolerance", a->rs->skew_s);
		else if (l->has_t)
			snprintf(t, sizeof(t), ", some of them undated");
		else
			t[0] = '\0';
		pm_att_why(
			a,
			"%s/%s on %zu nodes%s (%s), each from %s: nothing tells one of them for the cause.",
			l->cls, l->sub, a->nco + 1, t, nodes,
			l->untrusted ?
				"the job's output on that node, none from a source the job cannot write" :
				"the node's own evidence");
	} else if (a->ambiguous && l && s) {
		const struct pm_decision *d1 = pm_ruleset_decision(a->rs, l->cls, l->sub);
		const struct pm_decision *d2 = pm_ruleset_decision(a->rs, s->cls, s->sub);
		char t1[300], t2[300], wide[96] = "", w1[160], w2[160];
		double tol = pm_att_pair_tol(a, l, s);

		pm_subst(t1, sizeof(t1), d1 ? d1->next_test : "",
			 l->node[0] ? l->node : "the job's nodes");
		pm_subst(t2, sizeof(t2), d2 ? d2->next_test : "",
			 s->node[0] ? s->node : "the job's nodes");
		/* one test for both (a split vote's two nodes of one class): said once */
		if (!strcmp(t1, t2) && !strcmp(l->cls, s->cls) && !strcmp(l->sub, s->sub))
			snprintf(a->test, sizeof(a->test), "%s (for %s/%s)", t1, l->cls, l->sub);
		else if (!strcmp(t1, t2))
			snprintf(a->test, sizeof(a->test), "%s (for both %s/%s and %s/%s)", t1,
				 l->cls, l->sub, s->cls, s->sub);
		else
			snprintf(a->test, sizeof(a->test), "%s (for %s/%s) versus %s (for %s/%s)",
				 t1, l->cls, l->sub, t2, s->cls, s->sub);
		if (tol > a->rs->skew_s)
			snprintf(wide, sizeof(wide),
				 ", widened to %.1f s by the nodes' apparent clock skew", tol);
		if (handled(a, l, s))
			pm_att_why(
				a,
				"%s and %s are one traceback's two exceptions, the second raised "
				"while the first was being handled (\"During handling of the above "
				"exception\"): a handler that failed at something of its own after "
				"the first error, or met the real failure on a path the first only "
				"chose; the traceback cannot say which ended the job, so neither "
				"leads alone.",
				l->summary, s->summary);
		else if (cand_rank(l) == 0 && pm_att_logic_error(a, s))
			pm_att_why(a,
				   "%s/%s %s (%s) beside the program's own error (%s), of a kind no "
				   "hardware fault raises: neither explains the other, and the "
				   "evidence cannot say which ended the job.",
				   l->cls, l->sub, cand_where(l, w1, sizeof(w1)), l->summary,
				   s->summary);
		else
			pm_att_why(a,
				   "Two explanations fit within the %.1f s skew tolerance%s: %s/%s "
				   "%s and %s/%s %s.",
				   a->rs->skew_s, wide, l->cls, l->sub,
				   cand_where(l, w1, sizeof(w1)), s->cls, s->sub,
				   cand_where(s, w2, sizeof(w2)));
	} else if (a->ambiguous && a->votes_split) {
		snprintf(a->test, sizeof(a->test),
			 "ibstat and port counters on %s and %s; ib_write_bw "
			 "between each and a healthy node",
			 a->vote_nodes[0], a->vote_nodes[1]);
	}
}

/* The verdict's status (phases 8-10), and LAUNCH_FAILED for a failure before progress. */
void pm_att_phase_status(struct att *a)
{
	struct cand *l = a->lead;
	size_t refused;

	if (!strcmp(a->outcome, "COMPLETED")) {
		const struct cand *h = pm_att_run_hardware(a);
		a->status = VS_NONE;
		a->lead = NULL;
		pm_att_why(a, "The job completed: nothing to attribute; any symptoms are listed as "
			      "evidence only.");
		/* a batch script that ignores srun's failure completes: a fault of the node in
		 * the run is still worth the operator's look (review39 c3) */
		if (h)
			pm_att_why(
				a,
				"Yet %s/%s on %s (%s) is dated in the job's run by a source the "
				"job cannot write%s: it did not end the job, but the node deserves "
				"a look before it runs another.",
				h->cls, h->sub, h->node, h->summary,
				a->task_failed ? ", and srun reports a task failing of itself" :
						 "");
	} else if (a->weak_only) {
		/* nothing says the job failed: a weak sign names no cause, nor a node */
		a->status = VS_UNKNOWN;
		a->lead = NULL;
		pm_att_why(a,
			   "Nothing says the job failed; a weak sign alone names no cause: it is "
			   "listed as evidence only.");
	} else if (a->votes_split && l && l->lead == LEAD_VOTES) {
		a->status = VS_AMBIGUOUS;
		a->ambiguous = true;
		/* the evidence cannot choose between the voted nodes: all are the origin */
		for (size_t i = 1; i < a->live && l->nalso < 3; i++)
			if (a->c[i].lead == LEAD_VOTES && strcmp(a->c[i].node, l->node))
				snprintf(l->also[l->nalso++], 128, "%s", a->c[i].node);
	} else if (!l && timeouts_fired(a)) {
		timeouts_lead(a);
	} else if (!l) {
		a->status = VS_UNKNOWN;
		switch (fired_kind(a)) {
		case 2:
			pm_att_why(a,
				   "Symptoms fired, but none within this job's time: nothing of this "
				   "job names a cause.");
			break;
		case 1:
			pm_att_why(
				a,
				"Only consequences fired (collective or transport errors after "
				"another failure, the job being taken down): nothing names a cause.");
			name_consequence(a);
			break;
		default:
			pm_att_why(a, "No rule fired that could explain the failure.");
		}
	} else if (l->fallback && pm_is_kind(l->cls, l->sub, PM_K_HANG)) {
		dumps_lead(a, l);
	} else if ((refused = refusal_for(a, l)) != SIZE_MAX && refused_lead(a, l, refused)) {
		/* ambiguous between the peer's side and the settings' (refused_lead) */
	} else {
		a->status = VS_ATTRIBUTED;
		if (tied(a, l, a->second) || (a->nco = co_origins(a, l))) {
			a->status = VS_AMBIGUOUS;
			a->ambiguous = true;
		} else {
			note_own_hw(a, l);
			fs_clients(a, l);
		}
	}
	ambiguity_test(a);
	l = a->lead;
	if (l && a->status == VS_ATTRIBUTED && !strcmp(a->outcome, "FAILED") && l->launch &&
	    !l->late_setup && !l->got_past &&
	    (!a->any_progress || (l->has_t && a->first_progress > 0 && l->t < a->first_progress)) &&
	    !pm_att_cand_after_progress(a, l)) {
		a->outcome = "LAUNCH_FAILED";
		pm_att_why(a, "The failure came before any progress: the job failed at launch.");
	}
}

/* Whether L's evidence is all the job's own output (its user can write every line of it). */
bool pm_att_output_only(const struct att *a, const struct cand *l)
{
	for (size_t k = 0; k < l->nev; k++)
		if (a->ev->obs[l->ev[k]].trusted)
			return false;
	return l->nev > 0;
}

/* The lead's confidence (phase 11), with what the clocks take from it. */
void pm_att_phase_confidence(struct att *a)
{
	struct cand *l = a->lead;
	const struct cand *s = a->second;
	const char *other;
	bool slurm_act, from_record, sched;

	if (!l || a->status == VS_NONE || a->status == VS_UNKNOWN)
		return;
	/* a cause that is Slurm's own act (a time limit, a cancel, a node it lost) needs no
	 * kernel log to be established; a kill the kernel did (OOM) does */
	slurm_act = pm_cause_slurm_act(l->cls, l->sub);
	from_record = pm_att_outcome_from_state(a->ev->job.state) != NULL;
	/* only the accounting record itself corroborates: an outcome read from the job's own
	 * lines would be the same line counted twice */
	sched = slurm_act && from_record && !l->nev;
	for (size_t k = 0; k < l->nev && slurm_act && from_record; k++)
		if (R(a, l->ev[k])->outcome && !strcmp(R(a, l->ev[k])->outcome, a->outcome))
			sched = true;
	a->conf = confidence(a, l, a->status != VS_ATTRIBUTED, sched, slurm_act);
	/* a node's failure with no node named (NODE_FAIL from a record without FailedNode, no
	 * srun line of its own naming one): the class is Slurm's own word, the origin is not
	 * known, and nothing corroborates it on a node (phase 11's `established` wants a second
	 * source on the same node): at most supported */
	if (!strcmp(a->conf, "established") && l->hardware && !l->node[0]) {
		a->conf = "supported";
		pm_att_why(a,
			   "%s/%s names no node: nothing corroborates it on the node that failed; "
			   "at most supported.",
			   l->cls, l->sub);
	}
	/* the job's output placed the lead on a node where the plugin saw no task fail of itself,
	 * while one failed elsewhere: the records the user cannot write say otherwise */
	if (strcmp(a->conf, "hypothesis") && l->node[0] && pm_att_output_only(a, l) &&
	    (other = pm_att_clean_exits(a, l->node))) {
		a->conf = "hypothesis";
		l->contradicted = l->gainsaid = true;
		pm_att_why(a,
			   "Only the job's output places %s/%s on %s, and the plugin's records say "
			   "no task failed there: each exited 0, or was ended after a task on %s "
			   "failed; confidence hypothesis.",
			   l->cls, l->sub, l->node, other);
	}
	/* the same in a hand-gathered folder: the job's output names the lead's node (NCCL's
	 * or Open MPI's host prefix), while srun reports that node's tasks as ended by Slurm
	 * and one task elsewhere as failed of itself */
	if (strcmp(a->conf, "hypothesis") && l->node[0] && pm_att_output_only(a, l) &&
	    (other = pm_att_srun_ended(a, l->node))) {
		a->conf = "hypothesis";
		l->contradicted = l->gainsaid = true;
		pm_att_why(a,
			   "Only the job's output places %s/%s on %s, and srun reports %s's tasks "
			   "as ended by Slurm after task %d on %s failed of itself; confidence "
			   "hypothesis.",
			   l->cls, l->sub, l->node, l->node, pm_att_srun_task(a), other);
	}
	/* a lead whose node only the host column of a file that may be the job's gives (a
	 * syslog-shaped file named for no kernel log: att_place.c syslog_gainsaid, already a
	 * guess, its exclusion only offered), where srun's report or the plugin's records say a
	 * task on another node failed of itself: that task and its node are suspects too, never
	 * bystanders "only as a consequence" (verdict_bystanders) */
	for (size_t k = 0; a->sysgain && l->node[0] && !l->gainsaid && k < l->nev; k++)
		if (a->sysgain[l->ev[k]] && pm_att_node_guessed(a, l))
			l->gainsaid = true;
	/* a host Slurm's record does not list, that fits several of its nodes (a short name
	 * beside two full ones): which of them it was is not known, so none is excluded */
	if (l->node[0] && pm_att_unknown_node(a, l->node) && a->ev->job.het_partial) {
		a->conf = "hypothesis";
		pm_att_why(a,
			   "%s, where %s/%s is placed, is not in the node list of Slurm's record, "
			   "but that record holds only part of a heterogeneous job (not all of its "
			   "components' rows): %s may be another component's node; confidence "
			   "hypothesis, and no node is excluded.",
			   l->node, l->cls, l->sub, l->node);
	} else if (l->node[0] && pm_att_unknown_node(a, l->node)) {
		a->conf = "hypothesis";
		pm_att_why(a,
			   "%s, where %s/%s is placed, is no node of Slurm's record of the job: the "
			   "name fits several of its nodes, and which one it was is not known; "
			   "confidence hypothesis, and no node is excluded.",
			   l->node, l->cls, l->sub);
	}
	/* peer votes (phase 6) are the job's output alone, and at hypothesis already: where the
	 * plugin's records, or srun's, say the node they name only had its tasks ended by Slurm
	 * after a task elsewhere failed of itself, they advise no exclusion either */
	if (l->lead == LEAD_VOTES && !l->contradicted && l->node[0] && pm_att_output_only(a, l) &&
	    ((other = pm_att_clean_exits(a, l->node)) || (other = pm_att_srun_ended(a, l->node)))) {
		a->conf = "hypothesis";
		l->contradicted = l->gainsaid = true;
		pm_att_why(a,
			   "Only the job's output's peer votes name %s, and Slurm's records say no "
			   "task failed there of itself: each was ended by Slurm after a task on %s "
			   "failed; confidence hypothesis.",
			   l->node, other);
	}
	/* a set-up failure reported only after the job had made progress: most likely a peer
	 * gone silent, seen from the ranks that report it; their node is no suspect */
	if (a->status == VS_ATTRIBUTED && l->late_setup) {
		a->conf = "hypothesis";
		l->contradicted = true;
		pm_att_why(
			a, "%s/%s is reported only %s, when %s; confidence hypothesis.", l->cls,
			l->sub,
			l->late_named ? "in a running collective that its lines name" :
					"after the job had made progress",
			!strcmp(l->sub, "scheduler") ?
				"Slurm had started it: not Slurm failing to start the job (a "
				"later step's launch, or text the job printed)" :
				"its group had formed: most likely a peer that went away without a "
				"word here, not a failure to set up");
	}
	/* a set-up failure that its own output's progress followed on a job of one node (NCCL
	 * using another HCA after one it could not open): the job got past it, so it ran, and
	 * the failure at its end is not explained by it (setup-ib-device-skipped-then-trained) */
	if (a->status == VS_ATTRIBUTED && l->got_past) {
		a->conf = "hypothesis";
		l->contradicted = true;
		pm_att_why(a,
			   "%s/%s was reported before the job's progress, and its own output went on "
			   "to make progress after it on the job's one node: the job got past it, "
			   "and it does not explain the failure at the end; confidence hypothesis.",
			   l->cls, l->sub);
	}
	/* clocks that cannot be trusted: the lead's evidence counts only through its node's
	 * skew (at most supported), or the lead's time alone put it before a rival on another
	 * node by less than the skew could shift (hypothesis) */
	if (l->by_skew && !l->in_plain && l->node[0]) {
		if (!strcmp(a->conf, "established"))
			a->conf = "supported";
		pm_att_why(a,
			   "The evidence of %s/%s on %s is stamped outside the job window and "
			   "counts only through %s's apparent clock skew: at most supported.",
			   l->cls, l->sub, l->node, l->node);
	}
	if (a->status == VS_ATTRIBUTED && s && order_by_skewed_clocks(a, l, s)) {
		char w1[160], w2[160];

		a->conf = "hypothesis";
		pm_att_why(a,
			   "%s/%s %s comes before %s/%s %s only by their times, %.1f s "
			   "apart: less than the nodes' apparent clock skew could shift; "
			   "confidence hypothesis.",
			   l->cls, l->sub, cand_where(l, w1, sizeof(w1)), s->cls, s->sub,
			   cand_where(s, w2, sizeof(w2)), fabs(l->t - s->t));
	}
}
