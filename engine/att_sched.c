/*
 * att_sched.c - what Slurm itself decided: a time limit, a cancellation or preemption, a
 * kill for memory, a node's failure, made candidates where no symptom explains them.
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
#include "input.h"
#include "taxonomy.h"

/* ---- phase: what Slurm itself decided ---- */

static struct cand *synth(struct att *a, enum pm_kind k, const char *node, const char *summary)
{
	struct cand *c = pm_att_kind_get(a, k, node, LEAD_RULE);

	if (!c)
		return NULL;
	if (!c->nev) {
		c->strength = PM_STRONG;
		c->corroborated = true;
		snprintf(c->summary, sizeof(c->summary), "%s", summary);
		if (a->ev->job.end > 0) {
			c->t = a->ev->job.end;
			c->has_t = true;
		}
	}
	return c;
}

static bool has_live(const struct att *a)
{
	for (size_t i = 0; i < a->nc; i++)
		if (!a->c[i].dead)
			return true;
	return false;
}

/* A live candidate of kind K (CLASS_ONLY: of its class). */
static bool has_kind(const struct att *a, enum pm_kind k, bool class_only)
{
	for (size_t i = 0; i < a->nc; i++)
		if (!a->c[i].dead && pm_is_kind(a->c[i].cls, class_only ? NULL : a->c[i].sub, k))
			return true;
	return false;
}

double pm_att_cancelled_at(const struct pm_obs *o)
{
	static const char lit[] = "CANCELLED AT ";
	const char *q = o->raw ? strstr(o->raw, lit) : NULL;
	struct pm_in_stamp st;

	if (!q)
		return 0;
	q += sizeof(lit) - 1;
	return pm_in_iso(q, strlen(q), &st) && !st.zone ? st.t : 0;
}

/* A process seen blocked: a confirmation of a hang (a stack dump in a collective). */
static bool blocked_seen(const struct att *a)
{
	for (size_t i = 0; i < a->ev->nobs; i++)
		if (R(a, i)->role == PM_ROLE_CONFIRMATION &&
		    pm_is_kind(R(a, i)->cls, R(a, i)->subcls, PM_K_HANG))
			return true;
	return false;
}

/* A stall with no error: the hang, on its straggler where one stopped before its peers. */
static void stall_lead(struct att *a, double end)
{
	int r[8];
	const char *node;
	char who[128];
	size_t n = pm_att_stragglers(a, r, sizeof(r) / sizeof(r[0]), &node);
	struct cand *c = pm_att_kind_get(a, PM_K_HANG, n ? node : NULL, LEAD_SILENCE);

	if (!c)
		return;
	c->strength = PM_WEAK;
	c->sumobs = 0;
	/* no rank's progress stopped first, but every rank's stacks were dumped as it hung
	 * and a few wait in no collective: those are where it stopped, as in a job that
	 * failed (att_decide.c dumps_lead) */
	if (!n && pm_att_dumps_outside(a, c))
		return;
	if (!n) {
		snprintf(c->summary, sizeof(c->summary),
			 "the job stopped making progress %.0f s before its time limit, with no "
			 "error",
			 end - a->last_progress);
		return;
	}
	for (size_t k = 0; k < n; k++)
		pm_att_cand_addrank(c, r[k]);
	pm_att_straggler_name(who, sizeof(who), r, n, node);
	snprintf(c->summary, sizeof(c->summary),
		 "rank %s stopped making progress before its peers, with no error; the job "
		 "stalled %.0f s before its time limit",
		 who, end - a->last_progress);
	pm_att_why(a,
		   "Rank %s logged its last progress %.0f s before the other ranks' last, "
		   "which waited for it from then on: where the job most likely stopped, a "
		   "hypothesis (it may itself have waited on something no log shows).",
		   who, a->last_progress - pm_att_straggled(a, r, n));
}

/* Whether the loss observation I reports (an `fs_stall` context rule of the storage class)
 * was restored before END: a restoration (an `fs_stall` rule of class none) on its node,
 * of the same server where both lines name one, dated at or after it (or, undated, later in
 * its file). */
static bool fs_restored(const struct att *a, size_t i, double end)
{
	const struct pm_obs *o = &a->ev->obs[i];

	for (size_t k = 0; k < a->ev->nobs; k++) {
		const struct pm_obs *p = &a->ev->obs[k];

		if (!R(a, k)->fs_stall || !pm_is_kind(R(a, k)->cls, NULL, PM_K_NONE) ||
		    !p->trusted || !p->node || strcmp(p->node, o->node) ||
		    (o->peer && p->peer && strcmp(o->peer, p->peer)))
			continue;
		if (p->has_time && o->has_time ?
			    p->event_time >= o->event_time && (end <= 0 || p->event_time <= end) :
			    p->file == o->file && p->offset > o->offset)
			return true;
	}
	return false;
}

/* Whether a progress line of file F may come after offset OFF in it: one did, or the scan
 * that read it (a bundle's carried one) does not say where its last was. */
static bool progress_after(const struct att *a, size_t f, uint64_t off)
{
	const struct pm_file *pf = &a->ev->files[f];

	return !pf->progress_known || pf->progress_to > off + 1;
}

/*
 * The same loss echoed in the job's own output (an `fs_stall` rule reading the job's text:
 * a script that prints `dmesg | tail` when it gives up, a monitor's line, a paste), observation
 * I, usable for the stall that ended at END: dated no earlier than progress_stall_s before
 * the last progress and not after END, or undated with no progress line after it in its file
 * (the job went no further); not restored by a later line of the same server (the job's, or
 * a kernel's). The job's text, so it says what the job saw, never where: it places no node.
 */
static bool fs_echo_lost(const struct att *a, size_t i, double end)
{
	const struct pm_obs *o = &a->ev->obs[i];

	if (o->has_time ? o->event_time < a->last_progress - a->rs->progress_stall_s ||
				  (end > 0 && o->event_time > end) :
			  progress_after(a, o->file, o->offset))
		return false;
	for (size_t k = 0; k < a->ev->nobs; k++) {
		const struct pm_obs *p = &a->ev->obs[k];

		if (!R(a, k)->fs_stall || !pm_is_kind(R(a, k)->cls, NULL, PM_K_NONE) ||
		    (o->peer && p->peer && strcmp(o->peer, p->peer)))
			continue;
		if (p->has_time && o->has_time ?
			    p->event_time >= o->event_time && (end <= 0 || p->event_time <= end) :
			    p->file == o->file && p->offset > o->offset)
			return false;
	}
	return true;
}

/*
 * A stall whose job node's filesystem client lost its server and never had it back: a
 * Lustre import "lost; in progress operations using this service will wait for recovery
 * to complete", a hard NFS mount "not responding, still trying" (an `fs_stall` context
 * rule of the storage class), read from that node's own kernel log, dated in the job's time
 * and no earlier than progress_stall_s before the job's last progress (a job that went on
 * longer after the loss was not waiting on it), with no restoration ("Connection restored
 * to", "nfs: server X OK") on that node before the end.  The ranks that used the mount
 * block in their IO and their peers wait for them in the next collective: the stall, with
 * no error anywhere.  One such line is the client's view only (the server, the fabric to it,
 * or the client itself), and the job's ranks may have waited on something else, so the lead
 * is a hypothesis (the rule is weak) whose containment is the storage operators'.  Where
 * the stall's straggler is on another node, the ranks that stopped first were not the
 * client's: no lead, and the hang stands; on the client's node its ranks join the lead.
 * Each node with such a loss is a candidate (two clients of one filesystem: a tie).  True
 * when one was made.
 */
static bool fs_stalled(struct att *a, double end)
{
	int r[8];
	const char *snode;
	size_t n = pm_att_stragglers(a, r, sizeof(r) / sizeof(r[0]), &snode);
	struct cand *c = NULL;
	size_t made = 0;
	const char *elsewhere = NULL; /* a client's loss set aside for a straggler elsewhere */
	char who[128];

	for (size_t i = 0; i < a->ev->nobs; i++) {
		const struct pm_obs *o = &a->ev->obs[i];
		const struct pm_rule *rl = R(a, i);
		const char *node;

		if (!rl->fs_stall || pm_is_kind(rl->cls, NULL, PM_K_NONE) || !o->trusted ||
		    o->source != PM_SRC_KERNEL_LOG || !o->node || !o->has_time ||
		    pm_att_other_node(a, o) || !(node = pm_att_job_node(a, o->node)) ||
		    pm_att_obs_window(a, o, true) != WIN_IN ||
		    o->event_time < a->last_progress - a->rs->progress_stall_s ||
		    o->event_time > end || fs_restored(a, i, end))
			continue;
		if (n && (!snode || strcmp(snode, node))) {
			if (!elsewhere)
				elsewhere = node;
			continue;
		}
		if (!(c = pm_att_cand_get(a, rl->cls, rl->subcls, node, LEAD_RULE)) ||
		    pm_att_cand_add(a, c, i) < 0)
			return made > 0;
		for (size_t k = 0; k < n; k++)
			pm_att_cand_addrank(c, r[k]);
		if (c->nev == 1) /* a node's first: several lines of one client are one lead */
			made++;
	}
	if (n)
		pm_att_straggler_name(who, sizeof(who), r, n, snode);
	/* no client's own kernel line, no straggler: the job's own output echoing such a loss
	 * (fs_echo_lost) leads the stall on no node, at hypothesis (its rule is weak): what the
	 * job saw, not where (a host prefix on the line is the job's text too) */
	for (size_t i = 0; !made && !elsewhere && !n && i < a->ev->nobs; i++) {
		const struct pm_rule *rl = R(a, i);

		if (!rl->fs_stall || pm_is_kind(rl->cls, NULL, PM_K_NONE) ||
		    a->ev->obs[i].source != PM_SRC_APP_LOG || !fs_echo_lost(a, i, end))
			continue;
		if (!(c = pm_att_cand_get(a, rl->cls, rl->subcls, NULL, LEAD_RULE)) ||
		    pm_att_cand_add(a, c, i) < 0)
			return false;
		pm_att_why(a,
			   "The job's own output says a filesystem client lost its server as the "
			   "job stalled (%s), and no line says the server came back before the "
			   "end: the ranks may have waited on its IO, a hypothesis on no node (the "
			   "job's text says what it saw, not where).",
			   rl->id);
		return true;
	}
	if (made == 1)
		pm_att_why(
			a,
			"%s%s%sThe filesystem client on %s lost its server as the job stalled, and "
			"no line of its kernel says the server came back before the end: the ranks "
			"most likely waited on its IO, a hypothesis (the client's view alone does "
			"not tell the server, the fabric to it and the client apart).",
			n ? "Rank " : "", n ? who : "", n ? " stopped before its peers. " : "",
			c->node);
	else if (made)
		pm_att_why(
			a,
			"Filesystem clients on %zu of the job's nodes lost their server as the job "
			"stalled, and no line of their kernels says the server came back before the "
			"end: the ranks most likely waited on their IO, a hypothesis.",
			made);
	else if (elsewhere)
		pm_att_why(a,
			   "The filesystem client on %s lost its server as the job stalled, but rank "
			   "%s stopped before its peers: the stall began elsewhere, and the loss "
			   "does not explain it.",
			   elsewhere, who);
	return made > 0;
}

/* Whether a line of observation O's file after it is of ROLE (and a step_wait rule's where
 * WAIT). */
static bool after_in_file(const struct att *a, size_t o, enum pm_role role, bool wait)
{
	const struct pm_obs *w = &a->ev->obs[o];

	for (size_t i = 0; i < a->ev->nobs; i++)
		if (R(a, i)->role == role && (!wait || R(a, i)->step_wait) &&
		    a->ev->obs[i].file == w->file && a->ev->obs[i].offset > w->offset)
			return true;
	return false;
}

/*
 * srun waiting inside the job's allocation to create a step (an origin `step_wait` rule:
 * "step creation temporarily disabled, retrying (Requested nodes are busy)").  srun says
 * when the wait ended ("Step created for StepId=N.M", a context `step_wait` rule), and
 * progress of its file after it says the job went on: either way the wait is set aside, in
 * any outcome.  In a TIMEOUT (TIMEOUT true), a wait that neither followed is where the job
 * ended: the step never ran and the time limit only ended the waiting, so the time limit is
 * set aside and the wait leads (an earlier step of the job holding what the new one asks
 * for).  Progress with no creation line may be the earlier step's own: the wait is set aside
 * all the same and the time limit leads (ATTRIBUTION.md, phase 10, its limit).  True when
 * a wait leads.
 */
static bool step_waited(struct att *a, bool timeout)
{
	bool waited = false;

	for (size_t i = 0; i < a->nc; i++) {
		struct cand *c = &a->c[i];
		bool wait = !c->dead && c->nev > 0, over = false;

		for (size_t k = 0; wait && k < c->nev; k++) {
			wait = R(a, c->ev[k])->step_wait;
			over = over || after_in_file(a, c->ev[k], PM_ROLE_CONTEXT, true) ||
			       after_in_file(a, c->ev[k], PM_ROLE_PROGRESS, false);
		}
		if (!wait)
			continue;
		if (over)
			c->dead = true;
		else
			waited = true;
	}
	if (!waited || !timeout)
		return false;
	pm_att_why(a, "srun was still waiting to create a step inside the job's allocation "
		      "when the time limit ended it, and neither the step's creation nor any "
		      "progress followed the wait: the step never ran; the time limit only ended "
		      "the waiting.");
	for (size_t i = 0; i < a->nc; i++)
		if (pm_is_kind(a->c[i].cls, a->c[i].sub, PM_K_TIME_LIMIT))
			a->c[i].dead = true;
	return true;
}

/* When the job ended in outcome O: the record's End; without the record, the stamp of the first
 * dated line giving O, else the time in its words (slurmstepd's `... AT <time>`); 0 unknown. */
static double outcome_end(const struct att *a, const char *o)
{
	const struct pm_evidence *ev = a->ev;
	double end = ev->job.end > 0 ? ev->job.end : 0;

	for (size_t i = 0; !end && i < ev->nobs; i++)
		if (R(a, i)->outcome && !strcmp(R(a, i)->outcome, o) && ev->obs[i].has_time &&
		    ev->obs[i].event_time > end)
			end = ev->obs[i].event_time;
	for (size_t i = 0; !end && i < ev->nobs; i++)
		if (R(a, i)->outcome && !strcmp(R(a, i)->outcome, o))
			end = pm_att_cancelled_at(&ev->obs[i]);
	return end;
}

/* A TIMEOUT: a stall when progress stopped long before the end (the time limit only ended
 * it), else the time limit itself when the record says so. */
static void sched_timeout(struct att *a, bool from_sacct)
{
	double end = outcome_end(a, "TIMEOUT");

	if (step_waited(a, true))
		return;
	if (a->any_progress && end > 0 && end - a->last_progress > a->rs->progress_stall_s) {
		a->stalled = true;
		pm_att_why(a,
			   "Progress stopped %.0f s before the time limit: the job stalled; the "
			   "time limit only ended it.",
			   end - a->last_progress);
		for (size_t i = 0; i < a->nc; i++)
			if (pm_is_kind(a->c[i].cls, a->c[i].sub, PM_K_TIME_LIMIT))
				a->c[i].dead = true;
		if (!has_live(a) && !fs_stalled(a, end))
			stall_lead(a, end);
	} else if (!a->any_progress && blocked_seen(a)) {
		/* no progress to time a stall by, but its processes were seen blocked: the
		 * dumps' hang leads, with no origin (phase 10, att_decide.c) */
		a->stalled = true;
		pm_att_why(a, "No progress was seen, and stack dumps show the job's processes "
			      "blocked in a collective: it hung; the time limit only ended it.");
		for (size_t i = 0; i < a->nc; i++)
			if (pm_is_kind(a->c[i].cls, a->c[i].sub, PM_K_TIME_LIMIT))
				a->c[i].dead = true;
	} else if (!has_kind(a, PM_K_TIME_LIMIT, false) && from_sacct) {
		synth(a, PM_K_TIME_LIMIT, NULL,
		      "the job reached its time limit while still making progress");
	}
}

/*
 * A job that requeued itself on the signal Slurm sends ahead of its time limit (sbatch
 * --signal=USR2@120: submitit's and Lightning's handlers requeue the job on it): the job's
 * handler says it caught that signal (a context rule of the time limit's kind), and the
 * requeue that follows is the time limit's.  The requeue's candidates give way to the time
 * limit, at medium strength: Slurm also sends the signal on a preemption where
 * PreemptParameters=send_user_signal, which sacct's Elapsed against Timelimit tells apart.
 * False when no handler caught it.
 */
static bool requeued_on_warning(struct att *a)
{
	const struct pm_evidence *ev = a->ev;
	struct cand *c = NULL;

	for (size_t i = 0; i < ev->nobs && !c; i++)
		if (R(a, i)->role == PM_ROLE_CONTEXT &&
		    pm_is_kind(R(a, i)->cls, R(a, i)->subcls, PM_K_TIME_LIMIT)) {
			if (!(c = pm_att_kind_get(a, PM_K_TIME_LIMIT, NULL, LEAD_RULE)) ||
			    pm_att_cand_add(a, c, i) < 0)
				return false;
		}
	if (!c)
		return false;
	for (size_t i = 0; i < a->nc; i++)
		if (pm_is_kind(a->c[i].cls, a->c[i].sub, PM_K_REQUEUED))
			a->c[i].dead = true;
	c->strength = PM_MEDIUM;
	c->sumobs = 0;
	snprintf(c->summary, sizeof(c->summary),
		 "the job requeued itself on the signal Slurm sends ahead of its time limit "
		 "(sbatch --signal): it reached its time limit");
	pm_att_why(a, "The job's own handler caught the signal Slurm sends ahead of the time "
		      "limit, and the job was requeued: the requeue is the time limit's (unless "
		      "the site sends that signal on preemption too: sacct's Elapsed against "
		      "Timelimit tells).");
	return true;
}

/*
 * The job's owner cancelled a job whose progress had stopped long before the cancel, beside
 * a failure of the job's own: a rank's exception, the other ranks waiting in a collective
 * until someone noticed and cancelled.  The cancel ended a job that had already failed, as
 * the time limit ends a stalled one (sched_timeout): it gives way to that failure, which
 * leads; the record still says CANCELLED.  Not an administrator's cancel (maintenance, a
 * drained node: reasons of theirs), and not without progress to time the stall by.
 */
static bool cancel_after_stall(struct att *a)
{
	double end = outcome_end(a, "CANCELLED");
	bool own = false;

	if (!a->any_progress || end <= 0 || end - a->last_progress <= a->rs->progress_stall_s)
		return false;
	for (size_t i = 0; i < a->nc && !own; i++) {
		const struct cand *c = &a->c[i];
		own = !c->dead && !c->fallback && c->lead == LEAD_RULE && c->nev > 0 &&
		      !pm_class_external(c->cls);
	}
	if (!own)
		return false;
	for (size_t i = 0; i < a->nc; i++)
		if (pm_is_kind(a->c[i].cls, a->c[i].sub, PM_K_USER_CANCEL))
			a->c[i].dead = true;
	pm_att_why(a,
		   "Progress stopped %.0f s before the job's owner cancelled it, and the job had "
		   "failed on its own: the cancel only ended a job that had stopped.",
		   end - a->last_progress);
	return true;
}

/* A cancel, a preemption or a requeue: the external end, by whom when known. */
static void sched_external(struct att *a, const char *o)
{
	const struct pm_jobinfo *j = &a->ev->job;
	enum pm_kind k = !strcmp(o, "PREEMPTED") ? PM_K_PREEMPTED :
			 !strcmp(o, "REQUEUED")	 ? PM_K_REQUEUED :
						   PM_K_USER_CANCEL;
	char buf[256];

	if (k == PM_K_REQUEUED && requeued_on_warning(a))
		return;
	/* Slurm cancelled a job whose dependency can never be satisfied (kill_invalid_depend,
	 * as root: "CANCELLED by 0"): the dependency is the cause, no one's cancel; a line of
	 * the job's folder or the record's Reason says so */
	if (!strcmp(o, "CANCELLED") && has_kind(a, PM_K_DEPENDENCY, false)) {
		for (size_t i = 0; i < a->nc; i++)
			if (!a->c[i].dead && pm_class_external(a->c[i].cls))
				a->c[i].dead = true;
		return;
	}
	if (!strcmp(o, "CANCELLED") && j->reason &&
	    !strcmp(j->reason, "DependencyNeverSatisfied")) {
		synth(a, PM_K_DEPENDENCY, NULL,
		      "Slurm cancelled the job: its dependency can never be satisfied (the record's "
		      "Reason, DependencyNeverSatisfied)");
		return;
	}
	/* by another uid than the job's; without the job's uid (sacct's User column is a
	 * name), by root (uid 0): root's cancel of a job is an admin's */
	if (!strcmp(o, "CANCELLED") && j->cancelled_by &&
	    (j->user_uid >= 0 ? atoi(j->cancelled_by) != j->user_uid :
				!strcmp(j->cancelled_by, "0")))
		k = PM_K_ADMIN_CANCEL;
	/* slurmstepd's cancel line says a cancel, not whose: the record's uid says an admin's */
	for (size_t i = 0; k == PM_K_ADMIN_CANCEL && i < a->nc; i++)
		if (!a->c[i].dead && pm_is_kind(a->c[i].cls, a->c[i].sub, PM_K_USER_CANCEL))
			a->c[i].sub = "admin_cancel";
	if (k == PM_K_USER_CANCEL && !strcmp(o, "CANCELLED") && cancel_after_stall(a))
		return;
	if (has_kind(a, k, true))
		return;
	snprintf(buf, sizeof(buf), "the job was %s%s%s",
		 !strcmp(o, "CANCELLED") ? "cancelled" :
		 !strcmp(o, "PREEMPTED") ? "preempted" :
					   "requeued",
		 j->cancelled_by ? " by uid " : "", j->cancelled_by ? j->cancelled_by : "");
	synth(a, k, NULL, buf);
}

/* C, a node's failure made from the record alone: where the record comes from an sacct
 * listing that shows a column the job's user writes, a value there can be a whole row under
 * the job's id (TRUST.md), so it blames no node by itself: at most hypothesis, no exclusion,
 * no repair (att_decide.c confidence, verdict.c decision_json).  The class alone, naming no
 * node, is read as the record's other states are. */
static void record_user_text(struct att *a, struct cand *c)
{
	if (!c || c->nev || !a->ev->job.record_user_text || c->user_record)
		return;
	c->user_record = true;
	pm_att_why(a, "The accounting record comes from an sacct listing that shows a column "
		      "the job's user writes (JobName, Comment, WorkDir...): a value there can "
		      "hold a whole row under the job's id, so its node failure (NODE_FAIL, "
		      "FailedNode) is a hypothesis that excludes no node.");
}

/* A hardware fault that can tell which node a NODE_FAIL naming none lost: a dated event in
 * the job's window from a source the job cannot write, on a node of the job, placed there
 * by more than the folder's guess, at least of medium strength and no GPU's heat (a GPU
 * fallen off the bus, a machine check, an uncorrectable memory error: what stops a node
 * answering its controller).  The strongest such, and in *OTHER another node's, where
 * faults on two nodes name no one node. */
static struct cand *node_fail_hw(struct att *a, const struct cand **other)
{
	struct cand *h = NULL;

	*other = NULL;
	for (size_t i = 0; i < a->nc; i++) {
		struct cand *c = &a->c[i];
		if (!pm_att_own_hw(c) || !c->has_t || c->guess || c->user_record || c->nowhere ||
		    c->strength < PM_MEDIUM || pm_att_open_side(a, c) ||
		    pm_is_kind(c->cls, c->sub, PM_K_THERMAL) || !pm_class_hardware(c->cls))
			continue;
		if (h && strcmp(h->node, c->node) && !*other)
			*other = c;
		if (!h || c->strength > h->strength)
			h = c;
	}
	return h;
}

/* NODE_FAIL: the node the record names, or (sacct before 23.02 has no FailedNode) the
 * job's node that srun saw fail (any node, where the record lists none: sacct's default
 * table), whose words are in the job's output: a lead, at
 * hypothesis, its exclusion only offered (the job's output is the user's: c->guess, as a
 * node only the folder's words name); else, when the record says NODE_FAIL, the class
 * alone, naming no node.  srun labels no line of its own: a labelled or rank-tagged
 * "srun: error: Node failure on X" is the program's, and srun's lines naming two nodes
 * name no one node. */
static void sched_node_fail(struct att *a)
{
	const struct pm_jobinfo *j = &a->ev->job;
	const char *fn = NULL;
	const struct cand *oc;
	char buf[256];
	struct cand *c;
	bool two = false;

	if (j->failed_node) {
		if (has_kind(a, PM_K_NODE_FAIL, false))
			return;
		snprintf(buf, sizeof(buf), "%s stopped responding to the controller (NODE_FAIL)",
			 j->failed_node);
		record_user_text(a, synth(a, PM_K_NODE_FAIL, j->failed_node, buf));
		return;
	}
	if (has_kind(a, PM_K_NODE_FAIL, true))
		return;
	for (size_t i = 0; i < a->ev->nobs; i++) {
		const struct pm_rule *r = R(a, i);
		const struct pm_obs *o = &a->ev->obs[i];
		const char *n = o->node;
		bool listed;

		if (r->role != PM_ROLE_CONFIRMATION || !r->subcls || !n ||
		    !pm_is_kind(r->cls, r->subcls, PM_K_NODE_FAIL))
			continue;
		if (o->source == PM_SRC_APP_LOG &&
		    (o->rank >= 0 || (o->has_label && o->label >= 0)))
			continue; /* under a task's label or rank tag: the program printed it */
		/* a record that lists no nodes (sacct's default table: no NodeList) has none to
		 * check srun's node against: taken as a guess (below). Where there is no record
		 * at all, srun's line is read as the outcome's (att_cands.c), not here */
		listed = !j->nnodes && j->state;
		for (size_t k = 0; k < j->nnodes && !listed; k++)
			listed = j->nodes[k] && !strcmp(j->nodes[k], n);
		if (!listed)
			continue;
		if (fn && strcmp(fn, n))
			two = true;
		fn = fn ? fn : n;
	}
	if (two) {
		pm_att_why(a,
			   "srun's lines name more than one node as failed (%s, ...): they name "
			   "no one node.",
			   fn);
		fn = NULL;
	}
	/* the record names no node, and a node's own hardware fault in the window says which
	 * it likely was: that fault leads (L2: before, the class on no node led and the
	 * GPU's node was only mentioned); faults on two nodes are weighed as any two leads */
	if (!fn && (c = node_fail_hw(a, &oc))) {
		if (oc)
			pm_att_why(a,
				   "The record says a node of the job failed and names none; %s "
				   "and %s each had a hardware fault of their own in the job's "
				   "window: either may be the node that failed.",
				   c->node, oc->node);
		else
			pm_att_why(a,
				   "The record says a node of the job failed and names none; %s "
				   "had a hardware fault of its own in the job's window (%s/%s: "
				   "%s), the likely reason it failed: that fault leads.",
				   c->node, c->cls, c->sub, c->summary);
		return;
	}
	if (!fn) {
		/* the record says a node failed, and nothing says which: the class without a
		 * node (sacct before 23.02, a table without FailedNode) */
		/* Placed on no host of the folder's either, unless the record's NodeList is
		 * that one node: the hosts the job's output names printed, and a node that
		 * failed prints nothing (a two-node job whose survivor's NCCL and srun lines
		 * are all the folder holds) */
		if (pm_att_outcome_from_state(j->state) &&
		    (c = synth(a, PM_K_NODE_FAIL, NULL,
			       "a node of the job failed (NODE_FAIL); the record names none")) &&
		    !(j->nnodes == 1 && j->nodes[0]))
			c->nowhere = true;
		return;
	}
	snprintf(buf, sizeof(buf),
		 "%s failed while running the job (NODE_FAIL; "
		 "named by srun, the accounting record names no node)",
		 fn);
	if ((c = synth(a, PM_K_NODE_FAIL, fn, buf))) {
		record_user_text(a, c);
		c->strength = PM_WEAK;
		c->corroborated = false;
		c->guess = true;
	}
}

/* BOOT_FAIL: a node Slurm allocated to the job failed to boot (a reboot it asked for, a
 * cloud node that never came up), so the job never started: the site's infrastructure,
 * host_hardware/node_fail.  The node the record names (FailedNode; the one node of a
 * one-node job), else none: which of the job's nodes did not boot the record does not say. */
static void sched_boot_fail(struct att *a)
{
	const struct pm_jobinfo *j = &a->ev->job;
	const char *n = j->failed_node ? j->failed_node : j->nnodes == 1 ? j->nodes[0] : NULL;
	char buf[256];

	if (has_kind(a, PM_K_NODE_FAIL, false))
		return;
	if (n)
		snprintf(buf, sizeof(buf),
			 "%s failed to boot for the job (BOOT_FAIL): the job never started", n);
	else
		snprintf(buf, sizeof(buf),
			 "a node of the job failed to boot (BOOT_FAIL): the job never started; "
			 "the record names no node");
	record_user_text(a, synth(a, PM_K_NODE_FAIL, n, buf));
}

/* A job Slurm's record shows still PENDING (phase_outcome): the record's Reason says why where
 * it is one that waits for someone to act (a dependency never satisfied, a hold); a queue's
 * wait (Resources, Priority, Dependency) is no cause. */
static void sched_pending(struct att *a)
{
	static const struct {
		const char *reason;
		enum pm_kind k;
		const char *summary;
	} why[] = {
		{"DependencyNeverSatisfied", PM_K_DEPENDENCY,
		 "the job waits on a dependency Slurm says can never be satisfied (the record's "
		 "Reason, DependencyNeverSatisfied)"},
		{"JobHeldUser", PM_K_USER_HOLD,
		 "the job is held by its user (the record's Reason, JobHeldUser): it waits until "
		 "released"},
		{"JobHeldAdmin", PM_K_ADMIN_HOLD,
		 "the job is held by an administrator (the record's Reason, JobHeldAdmin): it waits "
		 "until they release it"},
	};
	const char *r = a->ev->job.reason;

	for (size_t i = 0; r && i < sizeof(why) / sizeof(why[0]); i++)
		if (!strcmp(r, why[i].reason) && !has_kind(a, why[i].k, false))
			synth(a, why[i].k, NULL, why[i].summary);
}

/* A record still PENDING whose Reason says Slurm gave up launching the batch job on its node
 * (launch_failed_requeued_held, phase_outcome): the node's setup (its prolog, slurmd, its
 * spool), as slurm-launch-requeued-held reads squeue's and scontrol's words; the reason
 * names no node.  A launch failure: LAUNCH_FAILED where nothing progressed (phase_status). */
static void sched_launch_held(struct att *a)
{
	struct cand *c;

	if (has_kind(a, PM_K_NODE_SETUP, false))
		return;
	c = synth(a, PM_K_NODE_SETUP, NULL,
		  "Slurm could not launch the batch job on its node and held it after requeueing "
		  "it (the record's Reason, launch_failed_requeued_held: the node's prolog, "
		  "slurmd or spool; its drain reason says which)");
	if (c)
		c->launch = true;
}

/* Candidates whose rule names the outcome Slurm recorded are corroborated by the record;
 * what Slurm itself decided (a time limit, an external end, a lost node, an OOM kill) is a
 * candidate of its own. */
void pm_att_phase_scheduler(struct att *a)
{
	const char *o = a->outcome;
	bool from_sacct = pm_att_outcome_from_state(a->ev->job.state) != NULL;

	for (size_t i = 0; from_sacct && i < a->nc; i++) {
		struct cand *c = &a->c[i];
		for (size_t k = 0; k < c->nev; k++) {
			const struct pm_rule *r = R(a, c->ev[k]);
			if (r->outcome && !strcmp(r->outcome, o))
				c->corroborated = true;
		}
	}
	/* a wait srun got past is no cause in any outcome; one leads only over a time limit */
	if (strcmp(o, "TIMEOUT"))
		step_waited(a, false);
	if (!strcmp(o, "TIMEOUT"))
		sched_timeout(a, from_sacct);
	else if ((!strcmp(o, "CANCELLED") && !a->cancel_by_limit) || !strcmp(o, "PREEMPTED") ||
		 !strcmp(o, "REQUEUED"))
		sched_external(a, o);
	else if (!strcmp(o, "NODE_FAIL"))
		sched_node_fail(a);
	else if (!strcmp(o, "PENDING"))
		sched_pending(a);
	else if (!strcmp(o, "FAILED") && a->ev->job.state &&
		 !strncmp(a->ev->job.state, "PENDING", 7) && a->ev->job.reason &&
		 !strcmp(a->ev->job.reason, "launch_failed_requeued_held"))
		sched_launch_held(a);
	else if (a->ev->job.state && !strncmp(a->ev->job.state, "BOOT_FAIL", 9))
		sched_boot_fail(a);
	else if (!strcmp(o, "OUT_OF_MEMORY") && !has_kind(a, PM_K_HOST_OOM, false))
		synth(a, PM_K_HOST_OOM, NULL,
		      "Slurm killed the job for exceeding its memory (OUT_OF_MEMORY)");
	/* the job's row says FAILED (its script exited non-zero once srun's step had failed)
	 * while a step's row says OUT_OF_MEMORY: the OOM killer ended a process of that step.
	 * Where the output holds only what the other ranks printed after it (consequences), it
	 * is the cause; beside a failure of the job's own (a rank's exception) it makes no
	 * candidate: the record says neither which process nor when, and that process may be a
	 * helper (a data loader's worker) the failing rank outlived */
	else if (!strcmp(o, "FAILED") && from_sacct && a->ev->job.step_oom && !has_live(a))
		synth(a, PM_K_HOST_OOM, NULL,
		      "Slurm's record shows a step of the job ended OUT_OF_MEMORY: the OOM killer "
		      "ended a task of it");
}
