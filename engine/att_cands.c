/*
 * att_cands.c - the attribution's candidates (ATTRIBUTION.md phases 2 to 7): the job's
 * outcome, hardware and software origin candidates, merging a node's candidates of one
 * class, joining single-placed leads, confirmation from a second source, and the leads
 * kept when nothing better fits.
 */

#include <ctype.h>
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

/* ---- phase: outcome ---- */

const char *pm_att_outcome_from_state(const char *st)
{
	static const char *const known[] = {"COMPLETED",     "FAILED",	  "TIMEOUT",
					    "OUT_OF_MEMORY", "NODE_FAIL", "CANCELLED",
					    "PREEMPTED",     "REQUEUED",  NULL};
	if (!st)
		return NULL;
	for (size_t i = 0; known[i]; i++)
		if (!strncmp(st, known[i], strlen(known[i])))
			return known[i];
	if (!strncmp(st, "BOOT_FAIL", 9))
		return "LAUNCH_FAILED";
	if (!strncmp(st, "DEADLINE", 8))
		return "TIMEOUT";
	return NULL;
}

/* A signal a process raises on itself when it crashes or aborts, as srun and the launchers
 * name it (strsignal's words or the SIG name): not one sent from outside (Terminated,
 * Killed, Interrupt, Hangup), which a cancel or a limit also delivers. */
static bool self_signal(const char *sig)
{
	static const char *const own[] = {"Segmentation fault",
					  "Bus error",
					  "Aborted",
					  "Illegal instruction",
					  "Floating point exception",
					  "SIGSEGV",
					  "SIGBUS",
					  "SIGABRT",
					  "SIGILL",
					  "SIGFPE",
					  NULL};
	if (!sig)
		return false;
	for (size_t i = 0; own[i]; i++)
		if (!strcmp(sig, own[i]))
			return true;
	return false;
}

/*
 * The job a summary of a job's end (seff's, Slurm's mail, scontrol's) names, O its state's
 * line: the mail's "Job_id=N" on that line, else the first "Job ID: N" (seff) or "JobId=N"
 * (scontrol) in its file's first MiB.  False where none is named.
 */
static bool summary_job_id(const struct att *a, const struct pm_obs *o, char *id, size_t cap)
{
	static const char *const keys[] = {"Job_id=", "Job ID: ", "JobId="};
	struct pm_file *f = &a->ev->files[o->file];
	size_t hcap = f->bytes < (1u << 20) ? (size_t)f->bytes : (1u << 20), len = 0, n;
	const char *best = NULL;
	char *buf = NULL;

	/* the mail's subject names its job on the state's own line */
	if (o->raw && (best = strstr(o->raw, keys[0])))
		best += strlen(keys[0]);
	if (!best && f->status == PM_ST_OK && hcap && (buf = malloc(hcap + 1)) &&
	    pm_file_head(f, buf, hcap, &len) == 0) {
		size_t w = 0;
		/* a terminal's colour codes taken out as the scan takes them out of a line
		 * (prefix.c), "\e[1;31mJob\e[0m ID: 81102" */
		for (size_t r = 0; r < len;) {
			if (buf[r] == '\033') {
				r += pm_ansi_len(buf + r, len - r);
				continue;
			}
			buf[w++] = buf[r++];
		}
		len = w;
		buf[len] = '\0';
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			const char *q = strstr(buf, keys[k]);
			if (q && (!best || q + strlen(keys[k]) < best))
				best = q + strlen(keys[k]);
		}
	}
	n = best ? strspn(best, "0123456789") : 0;
	if (n && n < cap) {
		memcpy(id, best, n);
		id[n] = '\0';
	}
	free(buf);
	return n && n < cap;
}

static bool output_array_id(const struct att *a, char *id, size_t cap);

/* Whether O is Slurm's mail summarising a whole job array: "Job_id=A_* " on its line. */
static bool array_summary(const struct pm_obs *o)
{
	const char *p = o->raw ? strstr(o->raw, "Array Summary Job_id=") : NULL;
	size_t n;

	if (!p)
		return false;
	p += strlen("Array Summary Job_id=");
	n = strspn(p, "0123456789");
	return n && !strncmp(p + n, "_* ", 3);
}

/* Whether file FILE is the job's own output: named as Slurm names a job's output
 * (slurm-N.out), or holding srun's own report of a task's end (the job's stderr). */
static bool own_output_file(const struct att *a, size_t file)
{
	const char *p;
	size_t n;

	if (pm_slurm_output_id(a->ev->files[file].name, &p, &n))
		return true;
	for (size_t i = 0; i < a->ev->nobs; i++)
		if (a->ev->obs[i].file == file && R(a, i)->role == PM_ROLE_TEARDOWN &&
		    pm_att_srun_own(a->ev->obs[i].raw))
			return true;
	return false;
}

/*
 * Whether a summary of the job's end (line O, an `end_summary` rule's: seff's, the mail's,
 * scontrol's) holds for this job, with no accounting record.  Not where it is inside the
 * job's own output file (review39 H1, H2: the job printing "State: PREEMPTED (exit code 0)"
 * or "State: COMPLETED (exit code 0)" into slurm-N.out hid a lost GPU; a job that asks for
 * its own state while it runs is told RUNNING, so such a line is the job's text, never
 * Slurm's end of it); not where it names another job than the one the folder's output files
 * are named for (review38 L1, review39 H1: another job's seff or mail beside this job's
 * output; a whole array's mail, "Job_id=A_*", is compared with the array A of its tasks'
 * slurm-A_T.out); and not where nothing ties it to this job while the folder says otherwise
 * (FAILED: srun reports a task failing, or a system record's own error).  *WHY: the reason,
 * where it does not.
 */
static bool summary_holds(const struct att *a, const struct pm_obs *o, bool failed,
			  const char **why, char *sid, size_t cap)
{
	char own[32];
	bool hs, ho;

	*sid = '\0';
	if (own_output_file(a, o->file)) {
		*why = "is inside the job's own output, text the job printed (a job that asks for "
		       "its own state while it runs is told RUNNING, not its end)";
		return false;
	}
	hs = summary_job_id(a, o, sid, cap);
	ho = pm_att_output_job_id(a, own, sizeof(own));
	/* the mail's summary of a whole array ("Array Summary Job_id=A_* (J)") names the array,
	 * as the output files of its tasks named slurm-A_T.out do: the two compare (a raw id's
	 * slurm-J.out does not name the array, and is not compared) */
	if (hs && !ho && array_summary(o) && output_array_id(a, own, sizeof(own)))
		ho = true;
	if (hs && ho && strcmp(sid, own)) {
		*why = "names another job than this one";
		return false;
	}
	if (failed && !(hs && ho)) {
		*why = "is not tied to this job (no job id, or none to compare), and srun's task "
		       "lines or a system record say a failure";
		return false;
	}
	return true;
}

/* Line I set aside as no end of this job's (a summary not held, the job's own word of a
 * requeue after a task failed, pm_att_text_end): it makes no candidate and no symptom. */
static void end_aside(struct att *a, size_t i)
{
	if (!a->end_aside)
		a->end_aside = calloc(a->ev->nobs ? a->ev->nobs : 1, sizeof(*a->end_aside));
	if (a->end_aside)
		a->end_aside[i] = true;
}

bool pm_att_end_aside(const struct att *a, size_t i)
{
	return a->end_aside && a->end_aside[i];
}

/* Whether srun reports a task failing of itself (an error code, a crash signal) in obs I's
 * file, before it. */
static bool srun_failed_before(const struct att *a, size_t i)
{
	const struct pm_obs *o = &a->ev->obs[i];

	for (size_t j = 0; j < a->ev->nobs; j++) {
		const struct pm_obs *t = &a->ev->obs[j];
		if (t->file == o->file && t->offset < o->offset &&
		    R(a, j)->role == PM_ROLE_TEARDOWN &&
		    ((t->code > 0 && !pm_att_slurm_signal_exit(t->code)) || self_signal(t->signal)))
			return true;
	}
	return false;
}

/* True when the job's own output was read (a file of it, not empty): then that it printed no
 * error says something. */
static bool job_output_read(const struct pm_evidence *ev)
{
	for (size_t i = 0; i < ev->nfiles; i++)
		if (ev->files[i].source == PM_SRC_APP_LOG && ev->files[i].status == PM_ST_OK &&
		    ev->files[i].lines > 0)
			return true;
	return false;
}

/* With a record, where the folder's only output of a job is named for another job than the
 * record's (set aside, scan.c set_aside_other_jobs) and nothing else of the job's output was
 * read: the record and the output name different jobs, and `why` says so (review39 L1: an
 * sacct of another job pasted beside the output). */
static void other_job_output_why(struct att *a)
{
	const struct pm_evidence *ev = a->ev;
	const struct pm_file *other = NULL;

	for (size_t i = 0; i < ev->nfiles; i++)
		if (ev->files[i].other_job && !other)
			other = &ev->files[i];
	if (!other || job_output_read(ev))
		return;
	pm_att_why(a,
		   "The accounting record is job %s's, and the folder's only output of a job, %s, "
		   "is named for another job: the record and the output name different jobs "
		   "(the record of another job gathered by mistake?). The verdict is the "
		   "record's job's, with none of its output.",
		   ev->job.id ? ev->job.id : "?", other->name);
}

void pm_att_phase_outcome(struct att *a)
{
	struct pm_evidence *ev = a->ev;
	static const char *const rank_order[] = {"NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED",
						 "REQUEUED",  "TIMEOUT",       "CANCELLED",
						 NULL};
	const char *best = NULL, *said = "", *done = NULL, *unheld = "", *pending = NULL;
	const char *failed = NULL;
	char sid[32] = "";
	bool sys_err = false, srun_failed = false;
	bool anyerr = false, weak = false, task_failed = false;

	if (ev->job.launch_split[0])
		pm_att_why(a,
			   "slurmd's line launching the job in %s and the one in %s disagree on "
			   "its instant or its offset: which of them is slurmd's is not told, so "
			   "neither says in which zone the accounting record's times are%s",
			   ev->job.launch_split[0], ev->job.launch_split[1],
			   ev->job.zone_narrowed ?
				   "; the job's window is what every offset they and the logs "
				   "give allows, no wider." :
				   ".");
	if (ev->job.launch_set_aside)
		pm_att_why(a,
			   "%s holds a line shaped as slurmd's launching the job, but it is a "
			   "system log by its lines alone (no system log's name, no collector's "
			   "manifest) beside one that is one by more: the job can write such a "
			   "line, and it does not say in which zone the accounting record's "
			   "times are.",
			   ev->job.launch_set_aside);
	if (ev->job.zone_by_launch) {
		int z = ev->job.local_zone < 0 ? -ev->job.local_zone : ev->job.local_zone;
		int l = ev->job.logs_zone < 0 ? -ev->job.logs_zone : ev->job.logs_zone;
		pm_att_why(a,
			   "The accounting record's times carry no zone: they are read in "
			   "UTC%c%02d:%02d, where slurmd's own line launching the job puts its "
			   "start, not in UTC%c%02d:%02d, the offset the nodes' own logs stamp "
			   "their lines with.",
			   ev->job.local_zone < 0 ? '-' : '+', z / 3600, z % 3600 / 60,
			   ev->job.logs_zone < 0 ? '-' : '+', l / 3600, l % 3600 / 60);
	} else if (ev->job.local_zone && !ev->job.zone_narrowed) {
		int z = ev->job.local_zone < 0 ? -ev->job.local_zone : ev->job.local_zone;
		pm_att_why(a,
			   "The accounting record's times carry no zone: they are read in "
			   "UTC%c%02d:%02d, the offset the nodes' own logs stamp their lines with.",
			   ev->job.local_zone < 0 ? '-' : '+', z / 3600, z % 3600 / 60);
	}
	a->outcome = pm_att_outcome_from_state(ev->job.state);
	if (a->outcome) {
		pm_att_why(a, "Slurm's accounting record says %s.", ev->job.state);
		/* a line saying the job still waits is another run's or another job's */
		for (size_t i = 0; i < ev->nobs && !a->pending_aside; i++)
			if (R(a, i)->outcome && !strcmp(R(a, i)->outcome, "PENDING")) {
				a->pending_aside = true;
				pm_att_why(a,
					   "A line says the job is still pending (%s), but the "
					   "record says how it ended: that is another run's or "
					   "another job's state, set aside.",
					   R(a, i)->id);
			}
		other_job_output_why(a);
		return;
	}
	/* a task that ended of itself with an error code ("srun: error: n3: task 5: Exited with
	 * exit code 1") or a signal it raised itself ("task 3: Segmentation fault (core
	 * dumped)", "Aborted"): the launcher then cancels the rest of the step, whose plain
	 * "STEP ... CANCELLED" line (a confirmation) says nothing of a cancel by anyone */
	for (size_t i = 0; i < ev->nobs; i++)
		if (R(a, i)->role == PM_ROLE_TEARDOWN &&
		    ((ev->obs[i].code > 0 && !pm_att_slurm_signal_exit(ev->obs[i].code)) ||
		     self_signal(ev->obs[i].signal)))
			task_failed = srun_failed = true;
	/* a launch that failed of itself (srun's PMI wire-up, a rendezvous, a missing program):
	 * srun then cancels the step as it does after a task's error */
	for (size_t i = 0; i < ev->nobs && !task_failed; i++)
		if (R(a, i)->role == PM_ROLE_ORIGIN && R(a, i)->launch &&
		    ev->obs[i].source == PM_SRC_APP_LOG && !(a->yielded && a->yielded[i]))
			task_failed = true;
	a->task_failed = task_failed;
	/* a system record's own error (a trusted origin): asked of every summary below; a line
	 * saying the job still waits (squeue's, scontrol's PENDING) is no error of a run */
	for (size_t i = 0; i < ev->nobs && !sys_err; i++)
		sys_err = R(a, i)->role == PM_ROLE_ORIGIN && R(a, i)->strength != PM_WEAK &&
			  pm_source_trusted(ev->obs[i].source) && !(a->yielded && a->yielded[i]) &&
			  !(R(a, i)->outcome && !strcmp(R(a, i)->outcome, "PENDING")) &&
			  (!ev->obs[i].daemon || pm_att_daemon_job(a, &ev->obs[i]) >= 0);
	for (size_t i = 0; i < ev->nobs; i++) {
		const struct pm_rule *r = R(a, i);
		/* a generic reading set aside (att_yield.c): the line is the specific rule's, or
		 * an exception Python printed as not fatal */
		if (a->yielded && a->yielded[i])
			continue;
		/* a syslog program's line about another job is not this job's at all; one that
		 * names no job tells no outcome of this job's (anyone's words: scan_daemon) */
		int dj = ev->obs[i].daemon ? pm_att_daemon_job(a, &ev->obs[i]) : 1;
		if (dj < 0)
			continue;
		/* a line saying the job has not run yet (held, or its dependency never
		 * satisfied): no error of a run; the outcome only where nothing says it ran */
		if (r->outcome && !strcmp(r->outcome, "PENDING")) {
			pending = pending ? pending : r->id;
			continue;
		}
		/* a summary of the job's end: Slurm's word only for this job, and not where the
		 * job wrote it (summary_holds) */
		/* (a summary saying FAILED agrees with srun's failing tasks: no tie is asked) */
		if (r->end_summary && dj &&
		    !summary_holds(a, &ev->obs[i],
				   (task_failed || sys_err) && strcmp(r->outcome, "FAILED"),
				   &unheld, sid, sizeof(sid))) {
			pm_att_why(a,
				   "No accounting record; a summary of a job's end in %s says %s "
				   "(%s), but it %s%s%s%s: it is not read as this job's end.",
				   ev->files[ev->obs[i].file].name, r->outcome, r->id, unheld,
				   *sid ? " (job " : "", sid, *sid ? ")" : "");
			end_aside(a, i);
			continue;
		}
		/* a weak origin in a node's own log (a NIC's carrier lost) is a sign, not an
		 * error: beside the job's own output with no error in it, it does not say that the
		 * job failed (a node's log gathered alone was gathered for a failure) */
		if (r->role == PM_ROLE_ORIGIN && r->strength == PM_WEAK &&
		    pm_source_trusted(ev->obs[i].source))
			weak = true;
		/* srun waiting to create a step retries: a wait, not an error; it leads only
		 * over a time limit (att_sched.c, step_waited) */
		else if (r->step_wait)
			;
		else if (r->role == PM_ROLE_ORIGIN || r->role == PM_ROLE_CASCADE ||
			 r->role == PM_ROLE_TEARDOWN || r->role == PM_ROLE_CONFIRMATION)
			anyerr = true;
		if (!r->outcome || !dj)
			continue;
		/* the job's own word that it requeued itself (a handler's "Requeued SLURM job:
		 * N") after srun reported a task failing of itself: it says nothing of why the
		 * task died (review39 H3). A requeue srun's failed tasks follow is the requeue's
		 * teardown (a program that exits 1 on the SIGTERM), and stands */
		if (srun_failed && !strcmp(r->outcome, "REQUEUED") && !ev->obs[i].trusted &&
		    srun_failed_before(a, i)) {
			pm_att_why(
				a,
				"No accounting record; the job's output says it was requeued "
				"(%s), but srun reports a task failing of itself: the job's word "
				"of a requeue says nothing of why that task died, and is not read "
				"as this job's end.",
				r->id);
			end_aside(a, i);
			continue;
		}
		/* a summary of the job's end saying it completed (seff's, the mail's): kept
		 * apart, it holds only where no line says the job ended otherwise */
		if (!strcmp(r->outcome, "COMPLETED")) {
			if (!done)
				done = r->id;
			continue;
		}
		/* one saying it failed (its script ended non-zero): an end that says no why,
		 * below every other end and above a completion */
		if (!strcmp(r->outcome, "FAILED")) {
			if (!failed)
				failed = r->id;
			continue;
		}
		if (task_failed && r->role == PM_ROLE_CONFIRMATION &&
		    !strcmp(r->outcome, "CANCELLED"))
			continue;
		for (size_t k = 0; rank_order[k]; k++) {
			if (!strcmp(r->outcome, rank_order[k])) {
				size_t cur = 99;
				for (size_t m = 0; best && rank_order[m]; m++)
					if (!strcmp(best, rank_order[m]))
						cur = m;
				if (k < cur) {
					best = rank_order[k];
					said = r->id;
				}
			}
		}
	}
	/* whether the end is read only from the job's text (its output, a summary gathered by
	 * hand): then a trusted hardware event in the run outranks it (pm_att_text_end) */
	a->end_text = best || done;
	for (size_t i = 0; i < ev->nobs && best && a->end_text; i++)
		if (R(a, i)->outcome && !strcmp(R(a, i)->outcome, best) && ev->obs[i].trusted &&
		    !(a->yielded && a->yielded[i]) && !pm_att_end_aside(a, i) &&
		    (!ev->obs[i].daemon || pm_att_daemon_job(a, &ev->obs[i]) > 0))
			a->end_text = false;
	/* a job Slurm still holds pending (squeue's "(JobHeldUser)", scontrol's "JobState=PENDING
	 * Reason=DependencyNeverSatisfied"): it never ran, so an end, an error or progress in
	 * the folder is another run's, or the pending state is another job's; then the pending
	 * lines are set aside (slurm-pending-held-user-beside-earlier-run-near-miss) */
	if (pending && (best || done || failed || anyerr || sys_err || a->any_progress)) {
		a->pending_aside = true;
		pm_att_why(a,
			   "A line says the job is still pending (%s), but the evidence shows a "
			   "run (%s): the pending state is another run's or another job's, set "
			   "aside.",
			   pending,
			   best		   ? "a line gives how it ended" :
			   failed	   ? "a summary says it failed" :
			   done		   ? "a summary says it completed" :
			   a->any_progress ? "it made progress" :
					     "errors of a run");
		pending = NULL;
	}
	if (pending) {
		a->outcome = "PENDING";
		pm_att_why(a,
			   "No accounting record; a line says the job is still pending (%s): it "
			   "never ran.",
			   pending);
	} else if (best) {
		a->outcome = best;
		/* Slurm's own lines, a container platform's or a cloud's: the rule says which */
		pm_att_why(a, "No accounting record; a line of the evidence says %s (%s).", best,
			   said);
	} else if (failed) {
		/* Slurm's word that the job failed, which says no why: the job's own errors, if
		 * any, give the cause (slurm-summary-failed-seff-no-error) */
		a->outcome = "FAILED";
		pm_att_why(a,
			   "No accounting record; a summary of the job's end says FAILED (%s): its "
			   "script ended non-zero, which says that the job failed, not why.",
			   failed);
	} else if (done) {
		/* the job exited 0 whatever it printed: a traceback it caught, a warning */
		a->outcome = "COMPLETED";
		pm_att_why(a,
			   "No accounting record; a summary of the job's end says COMPLETED (%s): "
			   "what it printed did not end it.",
			   done);
	} else if (anyerr || (weak && !job_output_read(ev))) {
		a->outcome = "FAILED";
		pm_att_why(a,
			   "No accounting record; errors in the evidence make the outcome FAILED.");
	} else if (weak) {
		a->outcome = "UNKNOWN";
		a->weak_only = true;
		pm_att_why(a,
			   "No accounting record, and no error in the job's output: only a weak "
			   "sign in a node's log, which does not say the job failed; the outcome is "
			   "unknown.");
	} else if (ev->job.state && !strncmp(ev->job.state, "PENDING", 7) && !a->any_progress &&
		   ev->job.reason && !strcmp(ev->job.reason, "launch_failed_requeued_held")) {
		/* a record still pending because Slurm gave up launching it on its node and
		 * held it: no run, but a launch that failed (att_sched.c, sched_launch_held) */
		a->outcome = "FAILED";
		pm_att_why(a,
			   "Slurm's accounting record says PENDING with the reason "
			   "launch_failed_requeued_held: Slurm could not launch the batch job on "
			   "its node, requeued it and held it.");
	} else if (ev->job.state && !strncmp(ev->job.state, "PENDING", 7) && !a->any_progress) {
		/* a record taken while the job waited in the queue, and nothing else: the job has
		 * not run (a record's PENDING is no end, so pm_att_outcome_from_state gives none) */
		a->outcome = "PENDING";
		pm_att_why(a, "Slurm's accounting record says PENDING, and nothing says why: the "
			      "job has not run yet.");
	} else {
		a->outcome = "UNKNOWN";
		pm_att_why(a, "No accounting record and no error: the outcome is unknown.");
	}
}

/* Whether line I's rule says the job is still pending while phase_outcome found that the
 * evidence shows a run: the line is another run's or another job's, no lead. */
bool pm_att_pending_aside(const struct att *a, size_t i)
{
	const struct pm_rule *r = R(a, i);

	return a->pending_aside && r->outcome && !strcmp(r->outcome, "PENDING");
}

const struct cand *pm_att_run_hardware(const struct att *a)
{
	for (size_t i = 0; i < a->nc; i++) {
		const struct cand *c = &a->c[i];
		if (!c->dead && c->hardware && c->lead == LEAD_RULE && !c->fallback &&
		    !c->user_record && !c->untrusted && c->has_t && c->node[0])
			return c;
	}
	return NULL;
}

void pm_att_text_end(struct att *a)
{
	static const char *const ends[] = {"PREEMPTED", "CANCELLED", "REQUEUED", "COMPLETED", NULL};
	const char *was = a->outcome;
	const struct cand *h = NULL;
	size_t k, n = 0;

	if (!a->end_text || !was || pm_att_outcome_from_state(a->ev->job.state))
		return;
	for (k = 0; ends[k] && strcmp(ends[k], was); k++)
		;
	if (!ends[k])
		return;
	h = pm_att_run_hardware(a);
	if (!h)
		return;
	/* the external candidates that end stood on: the job's text of an end alone (the
	 * step's cancel line beside a preemption line) */
	for (size_t i = 0; i < a->nc; i++) {
		struct cand *c = &a->c[i];
		bool own = !c->dead && c->nev && pm_class_external(c->cls);
		for (size_t e = 0; own && e < c->nev; e++) {
			const struct pm_obs *o = &a->ev->obs[c->ev[e]];
			const struct pm_rule *r = R(a, c->ev[e]);
			own = !o->trusted && r->outcome && pm_class_external(r->cls);
		}
		if (!own)
			continue;
		c->dead = true;
		n++;
		for (size_t e = 0; e < c->nev; e++)
			end_aside(a, c->ev[e]);
	}
	/* the summary or line that said so, set aside as well (a COMPLETED summary makes no
	 * candidate) */
	for (size_t i = 0; i < a->ev->nobs; i++)
		if (R(a, i)->outcome && !strcmp(R(a, i)->outcome, was) && !a->ev->obs[i].trusted)
			end_aside(a, i);
	a->outcome = "FAILED";
	pm_att_why(a,
		   "With no accounting record, the end read above (%s) is the job's own text (a "
		   "line of its output, or a summary gathered by hand), while %s's %s, a source "
		   "the job cannot write, shows %s/%s during its run: the job's text does not "
		   "outrank it. The outcome is FAILED%s.",
		   was, h->node,
		   a->ev->obs[h->ev[0]].source == PM_SRC_KERNEL_LOG ? "kernel log" :
		   a->ev->obs[h->ev[0]].source == PM_SRC_GPU_STATE  ? "GPU state" :
								      "own record",
		   h->cls, h->sub, n ? ", and the end's own reading is set aside" : "");
}

/* ---- phase: hardware and software origin candidates ---- */

/* A kill for the job's memory by its enforcer (a strong resource_limit/host_oom origin: the
 * kernel's OOM killer, Slurm's cgroup or accounting enforcement), inside the job's time. */
static bool memory_kill(const struct att *a)
{
	for (size_t i = 0; i < a->ev->nobs; i++) {
		const struct pm_obs *o = &a->ev->obs[i];
		const struct pm_rule *r = R(a, i);
		if (r->role == PM_ROLE_ORIGIN && r->strength == PM_STRONG &&
		    pm_is_kind(r->cls, r->subcls, PM_K_HOST_OOM) &&
		    (!o->trusted || pm_att_obs_window(a, o, true) != WIN_OUT))
			return true;
	}
	return false;
}

/* The job a syslog program's line names (Slurm's daemons: "StepId=J.S", "JobId=J", a
 * slurmstepd's "[J.S]" or "[J.batch]", and its end-of-job lines "*** JOB J ON n ... ***",
 * "*** STEP J.S ON n ... ***"): 1 this job, or a job while this job's id is not known (no
 * record: the line is about a job, and nothing says it is another); -1 another job; 0
 * none. */
int pm_att_daemon_job(const struct att *a, const struct pm_obs *o)
{
	/* each key with the character its id must end at, or 0 for any */
	static const char *const keys[] = {"StepId=", "JobId=", "[", "*** JOB ", "*** STEP "};
	static const char ends[] = {0, 0, '.', ' ', '.'};
	const char *id = a->ev->job.id, *raw = o->raw;

	if (!raw)
		return 0;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		size_t kl = strlen(keys[i]);
		for (const char *q = raw; (q = strstr(q, keys[i])); q++) {
			const char *d = q + kl;
			size_t dl = strspn(d, "0123456789");
			if (dl && d[dl] == '_' && d[dl + 1] >= '0' &&
			    d[dl + 1] <= '9') /* an array task */
				dl += 1 + strspn(d + dl + 1, "0123456789");
			if (!dl || (ends[i] && d[dl] != ends[i]))
				continue;
			/* slurmstepd names an array task by its raw id: the record's JobIDRaw */
			return !id || !id[0] || pm_record_job_id(a->ev, d, dl) ? 1 : -1;
		}
	}
	return 0;
}

/* Whether HOST is one of the job's nodes as Slurm's record spells them, or by another
 * spelling (case, a full or short name), one of them or several (pm_att_job_node_n). */
bool pm_att_job_host(const struct att *a, const char *host)
{
	bool several;

	return pm_att_job_node_n(a, host, &several) || several;
}

/* A trusted line of a host outside the job: the accounting record lists the job's nodes
 * (NodeList, expanded) and O's host is none of them, by name or short name.  Another node's
 * Xid is another job's, whatever file holds it: a central loghost's (every node's kernel
 * lines), a grep of one (only the other node's lines), a file named for that host
 * (gpu-b07.dmesg).  One exception: a file named for a job node (gn041-syslog) that holds no
 * line of a job node under the record's name is that node's own log, written under its host
 * name (a site whose NodeHostname differs from its NodeName): kept, its lines placed on the
 * file's node before this is asked (att_ranks.c, file_node_alias), where pm_att_node_log
 * says the file may be (any line under a job node's name, several hosts, a host that is
 * the node's name with more digits: not; its lines are set aside here).  With no record of the
 * job's nodes nothing is set aside, nor with a record of part of a heterogeneous job (one
 * component's rows, 7001+0 alone: the job's other components ran on nodes it omits). */
bool pm_att_other_node(const struct att *a, const struct pm_obs *o)
{
	const struct pm_evidence *ev = a->ev;
	const struct pm_file *f;

	/* with no record, a host where none of the job's ranks ran, every one of them being
	 * placed elsewhere (pm_att_rank_hosts): a node log gathered beside the job's, not one
	 * of its nodes */
	if (o->trusted && !ev->job.nnodes && pm_att_rankless_host(a, o->node))
		return true;
	/* a search hit's own host field outside the job (pm_att_hit_host): the export holds
	 * other machines' hits beside the job's nodes', which the shipper named, not the job */
	if (!o->trusted && o->node && ev->job.nnodes && !ev->job.het_partial &&
	    !strchr(o->node, '[') && !pm_att_job_host(a, o->node) && pm_att_hit_host(a, o))
		return true;
	/* a host list ("Nodes gpu[276-277] are still not ready") is Slurm's words about
	 * several nodes, not one host's line */
	if (!o->trusted || !o->node || !ev->job.nnodes || ev->job.het_partial ||
	    strchr(o->node, '[') || pm_att_job_host(a, o->node))
		return false;
	/* a kernel log section whose header names a host outside the record (scan.c,
	 * section_node's guess): that host's lines, whatever file holds them */
	if (o->sect_guess)
		return true;
	for (size_t i = 0; i < ev->nobs; i++) {
		const struct pm_obs *p = &ev->obs[i];
		if (p->file == o->file && p->trusted && p->node && pm_att_job_node(a, p->node))
			return true; /* a loghost's file: the job's nodes go by the record's names */
	}
	f = o->file < ev->nfiles ? &ev->files[o->file] : NULL;
	return !(f && f->node && pm_att_job_node(a, f->node) && pm_att_node_log(a, f, o->node));
}

/* The node's index of the GPU trusted line O names: by its bus id through nvidia-smi's
 * table, else the index a GPU state or a DCGM sample gives; -1 unknown. */
static int obs_gpu_index(const struct att *a, const struct pm_obs *o)
{
	int idx = o->pci ? pm_att_pci_index(a, o->node, o->pci) : -1;

	if (idx < 0 && o->gpu >= 0 &&
	    (o->source == PM_SRC_GPU_STATE || o->source == PM_SRC_NODE_METRICS))
		idx = o->gpu;
	return idx;
}

/* Whether a task of the job on NODE lists GPU IDX. */
static bool task_holds(const struct att *a, const char *node, int idx)
{
	for (size_t i = 0; i < a->ev->ntasks; i++) {
		const struct pm_task *t = &a->ev->tasks[i];
		if (t->node && !strcmp(t->node, node) && t->gpus && pm_att_gpus_has(t->gpus, idx))
			return true;
	}
	return false;
}

/* Whether the GPU of bus id O->pci may be one the job held by a numbering nvidia-smi's tables
 * give other than its position in one of them: its Minor Number (-q; a cgroup's nvidia-smi
 * numbers the GPUs it shows from 0, the Minor Number stays the node's), or its row in a table
 * that shows no more GPUs than the job holds on the node (Attached GPUs, a CSV's rows: the
 * cgroup-confined view of the job's own). */
static bool held_by_view(const struct att *a, const struct pm_obs *o)
{
	const struct pm_evidence *ev = a->ev;
	size_t held = pm_att_held_count(a, o->node);

	for (size_t i = 0; i < ev->nfacts; i++) {
		const struct pm_fact *f = &ev->facts[i];
		if (f->gpu < 0 || !f->pci || !f->node || strcmp(f->node, o->node) ||
		    !pm_att_pci_eq(f->pci, o->pci))
			continue;
		if (task_holds(a, o->node, f->gpu) ||
		    (f->minor >= 0 && task_holds(a, o->node, f->minor)))
			return true;
		for (size_t k = 0; k < ev->nfacts; k++) {
			const struct pm_fact *c = &ev->facts[k];
			if (c->file == f->file && c->gpu < 0 && c->value > 0 &&
			    !strcmp(c->name, "node.gpu_count") && c->value <= (double)held)
				return true;
		}
	}
	return false;
}

/* The GPUs the job held on a shared node are the plugin's records' lists (SLURM_STEP_GPUS,
 * the node's indexes) of every task there; a line naming another GPU is another job's, unless
 * it may be one of the job's by any numbering nvidia-smi gives (held_by_view: a cgroup's
 * nvidia-smi shows the job's GPU 3 as its GPU 0), or a line of that GPU names a pid of one of
 * the job's tasks there.  Unknown (false) where a
 * task there has no list, or one CUDA_VISIBLE_DEVICES gave (a cgroup numbers the GPUs it
 * shows from 0). */
bool pm_att_other_gpu(const struct att *a, const struct pm_obs *o)
{
	const struct pm_evidence *ev = a->ev;
	bool any = false, held = false;
	int idx;

	if (!o->trusted || !o->node || (!o->pci && o->gpu < 0) || (idx = obs_gpu_index(a, o)) < 0)
		return false;
	for (size_t i = 0; i < ev->ntasks; i++) {
		const struct pm_task *t = &ev->tasks[i];
		if (!t->node || strcmp(t->node, o->node))
			continue;
		if (!t->gpus || !t->gpus[0] || t->gpus_relative ||
		    t->gpus[strspn(t->gpus, "0123456789,")])
			return false;
		any = true;
		held |= pm_att_gpus_has(t->gpus, idx);
	}
	if (!any || held || (o->pci && held_by_view(a, o)))
		return false;
	/* a line of that GPU naming a pid of the job's tasks there: the job's own process used
	 * it, whatever the lists say, and every line of that GPU is the job's */
	for (size_t k = 0; k < ev->nobs; k++) {
		const struct pm_obs *p = &ev->obs[k];
		if (p->pid <= 0 || !p->trusted || !p->node || strcmp(p->node, o->node) ||
		    obs_gpu_index(a, p) != idx)
			continue;
		for (size_t i = 0; i < ev->ntasks; i++)
			if (ev->tasks[i].pid == p->pid && ev->tasks[i].node &&
			    !strcmp(ev->tasks[i].node, o->node))
				return false;
	}
	return true;
}

/* See attribute.h. */
bool pm_att_job_gpu(const struct att *a, const struct pm_obs *o)
{
	int idx;

	if (!o->trusted || !o->node || (!o->pci && o->gpu < 0))
		return false;
	idx = obs_gpu_index(a, o);
	return (idx >= 0 && task_holds(a, o->node, idx)) || (o->pci && held_by_view(a, o));
}

/* Say once why lines of GPUs the job did not hold were set aside (phase 4). */
static void other_gpu_why(struct att *a)
{
	const struct pm_evidence *ev = a->ev;

	for (size_t k = 0; k < ev->nobs; k++) {
		const struct pm_obs *o = &ev->obs[a->order[k]];
		const struct pm_rule *r = R(a, a->order[k]);
		char held[128] = "";
		if (!r->hardware ||
		    (r->role != PM_ROLE_ORIGIN && r->role != PM_ROLE_CONFIRMATION) ||
		    !pm_att_other_gpu(a, o))
			continue;
		for (size_t i = 0, l = 0; i < ev->ntasks && l + 16 < sizeof(held); i++) {
			const struct pm_task *t = &ev->tasks[i];
			int w;
			if (!t->node || strcmp(t->node, o->node) || !t->gpus ||
			    (l && strstr(held, t->gpus)))
				continue;
			w = snprintf(held + l, sizeof(held) - l, "%s%s", l ? "," : "", t->gpus);
			if (w < 0 || (size_t)w >= sizeof(held) - l)
				break;
			l += (size_t)w;
		}
		pm_att_why(a,
			   "%s on %s names GPU %d%s%s%s, which the job did not hold there (the "
			   "plugin's records give its tasks GPUs %s): another job's GPU on a shared "
			   "node, context only: not this job's origin, and no reason to exclude the "
			   "node for this job.",
			   r->id, o->node, obs_gpu_index(a, o), o->pci ? " (" : "",
			   o->pci ? o->pci : "", o->pci ? ")" : "", held);
		return;
	}
}

/* Say once why trusted lines of hosts outside the job's nodes were set aside (phase 4). */
#define BOOT_LINK_S 60.0 /* a node's first minute: its drivers still bring ports up */

/* The seconds since boot of a kernel line's dmesg stamp ("[    9.884120] ", after a "<6>"
 * level), or -1 where it has none. */
static double boot_secs(const char *raw)
{
	size_t n, p = 0;
	double v;

	if (!raw)
		return -1;
	n = strlen(raw);
	if (n > 2 && raw[0] == '<') {
		for (p = 1; p < n && p < 4 && raw[p] >= '0' && raw[p] <= '9'; p++)
			;
		p = p > 1 && p < n && raw[p] == '>' ? p + 1 : 0;
	}
	return pm_in_dmesg_mono(raw + p, n - p, &v) ? v : -1;
}

bool pm_att_boot_link(const struct att *a, size_t oi)
{
	const struct pm_obs *o = &a->ev->obs[oi];
	double v;

	if (!R(a, oi)->link_state || !o->trusted || o->source != PM_SRC_KERNEL_LOG)
		return false;
	v = boot_secs(o->raw);
	return v >= 0 && v < BOOT_LINK_S;
}

/* The why of the link lines of a node's boot (pm_att_boot_link) set aside. */
static void boot_link_why(struct att *a)
{
	const struct pm_evidence *ev = a->ev;

	for (size_t k = 0; k < ev->nobs; k++) {
		size_t i = a->order[k];
		if (R(a, i)->role != PM_ROLE_ORIGIN || !pm_att_boot_link(a, i))
			continue;
		pm_att_why(a,
			   "%s reads a link going down %.0f s after %s booted (%s): every port "
			   "does so while its driver brings it up, before any job ran, so it is "
			   "context, neither this job's origin nor a node to exclude.",
			   R(a, i)->id, boot_secs(ev->obs[i].raw),
			   ev->obs[i].node ? ev->obs[i].node : "its node",
			   ev->files[ev->obs[i].file].name);
		return;
	}
}

static void other_node_why(struct att *a)
{
	const struct pm_evidence *ev = a->ev;
	const struct pm_obs *first = NULL;
	size_t n = 0;
	char nodes[256];

	for (size_t k = 0; k < ev->nobs; k++) {
		const struct pm_obs *o = &ev->obs[a->order[k]];
		const struct pm_rule *r = R(a, a->order[k]);
		if ((r->role != PM_ROLE_ORIGIN && r->role != PM_ROLE_CONFIRMATION) ||
		    !pm_att_other_node(a, o))
			continue;
		if (!first)
			first = &ev->obs[a->order[k]];
		n++;
	}
	if (!first)
		return;
	if (!ev->job.nnodes) {
		pm_att_why(a,
			   "No accounting record, but every rank of the job's %d-rank communicator "
			   "is placed on %s%s (%zu host%s), none on %s: the system log lines of "
			   "hosts that ran none of them (%zu, the first %s on %s) are another "
			   "node's, context only, neither this job's origin nor a node to exclude.",
			   a->commw, a->rkh[0], a->nrkh > 1 ? " and others" : "", a->nrkh,
			   a->nrkh == 1 ? "" : "s", first->node, n,
			   R(a, (size_t)(first - ev->obs))->id, first->node);
		return;
	}
	nodes[0] = '\0';
	for (size_t i = 0, l = 0; i < ev->job.nnodes && l + 2 < sizeof(nodes); i++) {
		int w = snprintf(nodes + l, sizeof(nodes) - l, "%s%s", i ? ", " : "",
				 i == 4 && ev->job.nnodes > 5 ? "..." : ev->job.nodes[i]);
		if (w < 0 || (size_t)w >= sizeof(nodes) - l || (i == 4 && ev->job.nnodes > 5))
			break;
		l += (size_t)w;
	}
	/* "rk08.prod.example.net" beside a job node rk08: its short name is the job's, its
	 * domain not the one the trusted sources give the job's nodes (or they give two) */
	const char *dot = strchr(first->node, '.');
	char shrt[128] = "";
	if (dot && (size_t)(dot - first->node) < sizeof(shrt)) {
		memcpy(shrt, first->node, (size_t)(dot - first->node));
		shrt[dot - first->node] = '\0';
	}
	const char *jn = shrt[0] ? pm_att_job_node(a, shrt) : NULL;
	pm_att_why(a,
		   "The system logs' lines of hosts that are none of the job's nodes (Slurm's "
		   "record lists %s) are other nodes' (%zu, the first %s's %s)%s%s%s: context "
		   "only, neither this job's origin nor a node to exclude.",
		   nodes, n, first->node, R(a, (size_t)(first - ev->obs))->id,
		   jn ? "; its short name is job node " : "", jn ? jn : "",
		   jn ? "'s, but the trusted sources name the job's nodes under another domain, "
			"or under two" :
			"");
}

/*
 * O, a line read by a rule whose outcome is a node's failure (NODE_FAIL: slurmctld's "Killing
 * JobId=N on failed node X"), in a file told as slurmctld's log.  The collector never gathers
 * slurmctld's log: such a file is a hand-gathered folder's, told as slurmctld's by its words
 * (sniff.c, slurm_kind), which a job can print into its output folder.  Where Slurm's record
 * gives how the job ended and it is not a node's failure (FAILED, TIMEOUT, ...; a requeue or
 * a node that did not boot may follow one), the two contradict each other within the job's
 * window, and which is Slurm's cannot be told: -1, the line names no failed node (the record
 * names none either).  Where there is no record, the line alone is what a record a user can
 * write is (att_sched.c, record_user_text): 1, a hypothesis that excludes no node.  Else 0:
 * the record says NODE_FAIL too.
 */
int pm_att_ctld_node_fail(const struct att *a, const struct pm_obs *o)
{
	const struct pm_rule *r = R(a, (size_t)(o - a->ev->obs));
	const char *st = pm_att_outcome_from_state(a->ev->job.state);

	if (!r->outcome || strcmp(r->outcome, "NODE_FAIL") ||
	    a->ev->files[o->file].format != PM_FMT_SLURMCTLD_LOG)
		return 0;
	if (!st)
		return 1;
	return strcmp(st, "NODE_FAIL") && strcmp(st, "REQUEUED") && strcmp(st, "LAUNCH_FAILED") ?
		       -1 :
		       0;
}

int pm_att_phase_origins(struct att *a, bool hardware)
{
	struct pm_evidence *ev = a->ev;

	/* Slurm ends a job it kills for its memory with the plain "*** JOB N ... CANCELLED AT"
	 * line of any cancel (accounting enforcement, older releases): with no record to say
	 * who cancelled, that line beside the kill is the limit's consequence, not a cause */
	if (!hardware && !pm_att_outcome_from_state(ev->job.state) &&
	    !strcmp(a->outcome, "CANCELLED") && memory_kill(a)) {
		a->cancel_by_limit = true;
		pm_att_why(
			a,
			"The job's CANCELLED line follows a kill for its memory: the cancel is the "
			"limit's consequence, not a cause.");
	}

	if (!hardware && a->yield_gen && a->yield_kind == YIELD_LINE)
		pm_att_why(a,
			   "A line that %s read is %s's too: that rule's reading of it stands, not "
			   "the generic one.",
			   a->yield_gen, a->yield_spec);
	else if (!hardware && a->yield_gen && a->yield_kind == YIELD_CHAIN)
		pm_att_why(a,
			   "An exception that %s read is chained in one traceback to a failure that "
			   "%s reads: one failure, and that rule's reading stands, not the generic "
			   "one.",
			   a->yield_gen, a->yield_spec);
	else if (!hardware && a->yield_gen)
		pm_att_why(a,
			   "An exception that %s read was printed as not fatal (%s): it did not end "
			   "the job, and is set aside.",
			   a->yield_gen, a->yield_spec);
	if (hardware) {
		other_node_why(a);
		other_gpu_why(a);
		boot_link_why(a);
	}
	const struct pm_obs *ctld_gainsaid = NULL, *ctld_alone = NULL;
	for (size_t k = 0; k < ev->nobs; k++) {
		size_t i = a->order[k];
		const struct pm_obs *o = &ev->obs[i];
		const struct pm_rule *r = R(a, i);
		struct cand *c;
		int ctld;

		if (r->role != PM_ROLE_ORIGIN || r->hardware != hardware ||
		    (a->yielded && a->yielded[i]) || pm_att_pending_aside(a, i) ||
		    pm_att_end_aside(a, i))
			continue;
		/* a syslog program's line is anyone's words, not this job's: it leads only where
		 * it names this job (slurmstepd's OOM report for its step); else it is a fallback
		 * (phase_fallback), and one that names another job is none */
		if (o->daemon && pm_att_daemon_job(a, o) != 1)
			continue;
		if (pm_att_other_node(a, o)) /* another node's line in a loghost's file */
			continue;
		if (hardware && pm_att_other_gpu(a, o)) /* another job's GPU on a shared node */
			continue;
		if (hardware && pm_att_boot_link(a, i)) /* a port brought up at boot */
			continue;
		bool plain = true;
		enum win w = o->trusted ? pm_att_obs_window(a, o, true) : WIN_IN;
		/* hardware only from sources the user cannot write (phase_fallback has the
		 * rest); a trusted line from outside the job's time is not this job's */
		if ((hardware && !o->trusted) || w == WIN_OUT)
			continue;
		if (hardware && w == WIN_IN && pm_att_obs_window(a, o, false) != WIN_IN) {
			struct clk *ck = pm_att_node_clk(a, pm_att_obs_clock_node(a, o));
			plain = false;
			if (ck)
				ck->kept++;
		}
		/* an external end (cancel, preemption, requeue) that Slurm's final record
		 * contradicts is a consequence, not a cause: the plain "STEP ... CANCELLED" line
		 * of a step killed for its memory, in a job the record says FAILED */
		if (!hardware && r->outcome && pm_class_external(r->cls) && a->outcome &&
		    pm_att_outcome_from_state(ev->job.state) && strcmp(r->outcome, a->outcome))
			continue;
		if (!hardware && a->cancel_by_limit && r->outcome && pm_class_external(r->cls) &&
		    !strcmp(r->outcome, "CANCELLED"))
			continue;
		if ((ctld = pm_att_ctld_node_fail(a, o)) < 0) {
			ctld_gainsaid = ctld_gainsaid ? ctld_gainsaid : o;
			continue;
		}
		c = pm_att_cand_get(a, r->cls, r->subcls, o->node, LEAD_RULE);
		if (!c || pm_att_cand_add(a, c, i) < 0)
			return -1;
		if (plain)
			c->in_plain = true;
		else
			c->by_skew = true;
		if (ctld > 0 && !c->user_record) {
			c->user_record = true;
			ctld_alone = ctld_alone ? ctld_alone : o;
		}
	}
	if (ctld_gainsaid)
		pm_att_why(a,
			   "%s, a file read as slurmctld's log by its content, says the job was "
			   "killed on a failed node (%s), and Slurm's accounting record says %s: "
			   "they contradict each other, and which one is Slurm's a hand-gathered "
			   "folder cannot tell (a job can write a file of either shape), so neither "
			   "names a failed node.",
			   ev->files[ctld_gainsaid->file].name,
			   ctld_gainsaid->node ? ctld_gainsaid->node : "a node", ev->job.state);
	if (ctld_alone)
		pm_att_why(a,
			   "Only %s, a file read as slurmctld's log by its content, says %s failed "
			   "under the job (NODE_FAIL), with no accounting record of the job: the "
			   "collector never gathers slurmctld's log, and a job can write a file of "
			   "that shape into a hand-gathered folder, so the node failure is a "
			   "hypothesis that excludes no node (as a record the user may write gives "
			   "it).",
			   ev->files[ctld_alone->file].name,
			   ctld_alone->node ? ctld_alone->node : "a node");
	return 0;
}

/* Candidates of one class on one node are one explanation: the symptom from the source the
 * user cannot write, else the stronger, else the earlier, gives the subclass. */
static bool better(const struct att *a, const struct cand *x, const struct cand *y)
{
	bool tx = a->ev->obs[x->ev[0]].trusted, ty = a->ev->obs[y->ev[0]].trusted;

	if (tx != ty)
		return tx;
	/* a later event of this job keeps its own subclass beside an older line */
	if (x->prestart != y->prestart)
		return y->prestart;
	if (x->strength != y->strength)
		return x->strength > y->strength;
	if (x->has_t && y->has_t && x->t != y->t)
		return x->t < y->t;
	return false;
}

/* The PCI address an AER line names: its capture (the device a root port's "error received:"
 * names), else the device the kernel's message is printed for ("nvidia 0000:3a:00.0: AER:
 * PCIe Bus Error: ..."), the first address on the line; NULL when none. */
static const char *aer_pci(const struct pm_obs *o, char *buf, size_t len)
{
	const char *r = o->raw;

	if (o->pci)
		return o->pci;
	for (size_t i = 0; r && r[i]; i++) {
		const char *q = r + i;
		size_t n = 0;
		while (n < 12 && q[n] &&
		       ((n == 4 || n == 7) ? q[n] == ':' :
			n == 10		   ? q[n] == '.' :
					     isxdigit((unsigned char)q[n])))
			n++;
		if (n == 12 && (i == 0 || !isxdigit((unsigned char)r[i - 1])) && len > 12) {
			memcpy(buf, q, 12);
			buf[12] = '\0';
			return buf;
		}
	}
	return NULL;
}

/* Whether live candidate G (gpu_hardware, on C's node) names PCI among its evidence. */
static bool gpu_names_pci(const struct att *a, const struct cand *g, const char *pci)
{
	for (size_t m = 0; m < g->nev; m++) {
		const struct pm_obs *o = &a->ev->obs[g->ev[m]];
		if (o->trusted && o->pci && pm_att_pci_eq(o->pci, pci))
			return true;
	}
	return false;
}

/*
 * A fatal AER whose every line names the PCI address of a GPU that a trusted line of the
 * same node then reports lost (the Xid 79 or fallen-off-the-bus line's address, or a GPU
 * fact's) is that GPU's own link failing: the GPU's, gpu_hardware/pcie, not the host's.  It
 * must come before the GPU's event (or within the skew tolerance of it) and no more than a
 * minute before.  A fatal AER on a root port or a switch above the GPU names another address
 * and stays host_hardware/aer (host-aer-fatal-then-xid79).  The merge below then makes the two
 * one candidate of the GPU.
 */
static void aer_on_gpu(struct att *a)
{
	double tol = a->rs->skew_s;
	char buf[16], pci[16];

	for (size_t i = 0; i < a->nc; i++) {
		struct cand *c = &a->c[i], *g = NULL;
		bool all = c->nev > 0;
		if (c->dead || !c->node[0] || c->lead != LEAD_RULE ||
		    strcmp(c->cls, "host_hardware") || strcmp(c->sub, "aer"))
			continue;
		pci[0] = '\0';
		for (size_t m = 0; m < c->nev && all; m++) {
			const struct pm_obs *o = &a->ev->obs[c->ev[m]];
			const char *p = aer_pci(o, buf, sizeof(buf));
			if (!p || strlen(p) >= sizeof(pci) || (pci[0] && !pm_att_pci_eq(pci, p)))
				all = false;
			else
				snprintf(pci, sizeof(pci), "%s", p);
		}
		for (size_t k = 0; all && k < a->nc && !g; k++) {
			struct cand *d = &a->c[k];
			if (!d->dead && d->nev && d->lead == LEAD_RULE &&
			    !strcmp(d->cls, "gpu_hardware") && !strcmp(d->node, c->node) &&
			    gpu_names_pci(a, d, pci) &&
			    (!c->has_t || !d->has_t || (c->t <= d->t + tol && d->t - c->t <= 60)))
				g = d;
		}
		if (!g)
			continue;
		c->cls = g->cls;
		c->sub = "pcie";
		c->sumobs = 0;
		snprintf(c->summary, sizeof(c->summary),
			 "the PCIe link of the GPU at %s on %s failed (a fatal AER on the GPU's own "
			 "address), and the GPU was lost",
			 pci, c->node);
	}
}

/* Whether an origin line of C is read by a specific rule other than a `comm_crash` one (an
 * out-of-memory, a disk full, a CUDA fault, a hardware event: not a generic exception). */
static bool specific_origin(const struct att *a, const struct cand *c)
{
	for (size_t k = 0; k < c->nev; k++) {
		const struct pm_rule *r = R(a, c->ev[k]);
		if (r->role == PM_ROLE_ORIGIN && !r->generic && !r->comm_crash)
			return true;
	}
	return false;
}

/* Whether C is a lead that no peer's crash, loss or hang makes its survivors print: a
 * specific origin or the program's own logic error (pm_att_logic_error), but none of the
 * communication failures a peer gone raises on the others (an NCCL communicator or the
 * rendezvous failing to form, a reasonless "unhandled system error", a collective mismatch
 * or timeout, a remote error) and no end of a job that hung (a time limit, a cancel).  The
 * crash and set-up passes below set a candidate aside only beside such a lead (review33:
 * an undated ncclSystemError beside a peer's crash in libnccl blamed the reporting node). */
static bool unraised_lead(const struct att *a, const struct cand *c)
{
	if ((!strcmp(c->cls, "launch_config") &&
	     (!strcmp(c->sub, "nccl_init") || !strcmp(c->sub, "rendezvous"))) ||
	    !strcmp(c->cls, "communication_unattributed") || !strcmp(c->cls, "external") ||
	    (!strcmp(c->cls, "application") &&
	     (!strcmp(c->sub, "collective_mismatch") || !strcmp(c->sub, "hang"))) ||
	    (!strcmp(c->cls, "resource_limit") && !strcmp(c->sub, "time_limit")))
		return false;
	for (size_t k = 0; k < c->nev; k++)
		if (R(a, c->ev[k])->role == PM_ROLE_ORIGIN && R(a, c->ev[k])->reasonless)
			return false;
	return specific_origin(a, c) || pm_att_logic_error(a, c);
}

/* Whether X and Y are two processes' by what the lines say: each names ranks and none is
 * both's, or each is placed on a node and the nodes differ. */
static bool other_process(const struct cand *x, const struct cand *y)
{
	if (x->node[0] && y->node[0] && strcasecmp(x->node, y->node))
		return true;
	if (!x->nranks || !y->nranks)
		return false;
	for (size_t i = 0; i < x->nranks; i++)
		for (size_t j = 0; j < y->nranks; j++)
			if (x->ranks[i] == y->ranks[j])
				return false;
	return true;
}

/* The first live lead beside the crash C that no peer gone raises (unraised_lead), that C
 * is not dated before by more than the pair's tolerance (the crash came first, and may have
 * begun it), and that SKIP does not refuse; NULL none (output_crashes, comm_crashes). */
static const struct cand *teardown_lead(const struct att *a, const struct cand *c,
					bool (*skip)(const struct att *a, const struct cand *c,
						     const struct cand *o))
{
	for (size_t j = 0; j < a->nc; j++) {
		const struct cand *o = &a->c[j];
		if (o == c || o->dead || !o->nev || o->lead != LEAD_RULE || skip(a, c, o) ||
		    !unraised_lead(a, o))
			continue;
		if (c->has_t && o->has_t && c->t + pm_att_pair_tol(a, c, o) < o->t)
			continue;
		return o;
	}
	return NULL;
}

/* output_crashes' refusal: another native crash, or a lead of the crash's own process. */
static bool other_crash(const struct att *a, const struct cand *c, const struct cand *o)
{
	(void)a;
	return (!strcmp(o->cls, "application") && !strcmp(o->sub, "native_crash")) ||
	       !other_process(c, o);
}

/*
 * A native crash that only the job's output reports (a faulthandler's "Fatal Python error:
 * Segmentation fault", a crash handler's "Caught signal 11", "*** SIGSEGV received"), on
 * another process than a lead that no crash elsewhere raises: a specific origin (an
 * out-of-memory, a disk full, a CUDA fault) or the program's own logic error (a ValueError
 * no peer's crash raises; pm_att_logic_error).  A process that raises and exits leaves its
 * peers' communication threads on torn-down connections while Slurm takes the step down,
 * and they crash there; the reverse cannot be: a peer's crash makes a rank report the loss
 * (a cascade), not a ValueError of its own.  Not where the crash is dated before that lead
 * by more than the pair's tolerance (it came first), nor beside a lead a peer gone makes the
 * others print (unraised_lead), nor on the lead's own process.
 * Set aside before the candidates of one class on one node merge, so that the crashed
 * ranks are bystanders, not the origin's (app-srun-segv-bystanders-after-valueerror;
 * app-srun-segv-before-valueerror-near-miss).  A crash the kernel records is comm_crashes'.
 */
static void output_crashes(struct att *a)
{
	for (size_t i = 0; i < a->nc; i++) {
		struct cand *c = &a->c[i];
		const struct cand *x = NULL;
		size_t n = 0;

		if (c->dead || !c->nev || c->lead != LEAD_RULE || strcmp(c->cls, "application") ||
		    strcmp(c->sub, "native_crash"))
			continue;
		for (size_t k = 0; k < c->nev && n != (size_t)-1; k++) {
			const struct pm_rule *r = R(a, c->ev[k]);
			if (r->role != PM_ROLE_ORIGIN)
				continue;
			n = a->ev->obs[c->ev[k]].trusted || r->generic ? (size_t)-1 : n + 1;
		}
		if (!n || n == (size_t)-1)
			continue;
		if (!(x = teardown_lead(a, c, other_crash)))
			continue;
		c->dead = true;
		pm_att_why(a,
			   "%s: beside %s, of another process, which no crash elsewhere raises "
			   "and which the crash did not come before, it is a peer gone while the "
			   "step was taken down: a consequence, not the failure's origin.",
			   c->summary, x->summary);
	}
}

/* C and D, of no node, read the rows of one GPU (one PCI address) in one file (one
 * nvidia-smi -q): one GPU's state, so one node's, whichever node that is.  Another file's
 * GPU at that address may be another node's. */
static bool same_gpu_rows(const struct att *a, const struct cand *c, const struct cand *d)
{
	const struct pm_obs *f = &a->ev->obs[c->ev[0]];

	for (size_t k = 0; k < c->nev + d->nev; k++) {
		const struct pm_obs *o = &a->ev->obs[k < c->nev ? c->ev[k] : d->ev[k - c->nev]];
		if (!o->trusted || !o->pci || !f->pci || o->file != f->file ||
		    !pm_att_pci_eq(o->pci, f->pci))
			return false;
	}
	return true;
}

/* Whether every line of C and of D names its GPU (a PCI address) and no GPU of C's is one of
 * D's: two GPUs' own findings (a row remap pending on GPU 0 and uncorrectable ECC on GPU 3 of
 * one nvidia-smi -q), not one event told twice, so never merged into one finding that would
 * list both GPUs as its origin (gpu-nvsmi-remap-and-ecc-two-gpus). */
static bool gpus_apart(const struct att *a, const struct cand *c, const struct cand *d)
{
	for (size_t k = 0; k < c->nev + d->nev; k++)
		if (!a->ev->obs[k < c->nev ? c->ev[k] : d->ev[k - c->nev]].pci)
			return false;
	for (size_t i = 0; i < c->nev; i++)
		for (size_t j = 0; j < d->nev; j++)
			if (pm_att_pci_eq(a->ev->obs[c->ev[i]].pci, a->ev->obs[d->ev[j]].pci))
				return false;
	return true;
}

/* ---- a node's set-up failure that is another job's (review37) ---- */

/*
 * The job's id with no accounting record: the one id the folder's Slurm output files are
 * named for (slurm-N.out).  None, several, or an array task's (slurm-A_T.out: slurmd names
 * the task by a raw id the name does not give): false.
 */
bool pm_att_output_job_id(const struct att *a, char *id, size_t cap)
{
	const char *p, *seen = NULL;
	size_t n, sn = 0;

	for (size_t i = 0; i < a->ev->nfiles; i++) {
		if (!pm_slurm_output_id(a->ev->files[i].name, &p, &n))
			continue;
		if (seen && (n != sn || memcmp(seen, p, n)))
			return false;
		seen = p;
		sn = n;
	}
	if (!seen || sn >= cap || memchr(seen, '_', sn))
		return false;
	memcpy(id, seen, sn);
	id[sn] = '\0';
	return true;
}

/*
 * The array's id with no accounting record: the one A the folder's Slurm output files are
 * named for as an array task's (slurm-A_T.out, `%A_%a`).  None, several, or an output file
 * named otherwise beside them: false.
 */
static bool output_array_id(const struct att *a, char *id, size_t cap)
{
	const char *p, *seen = NULL, *u;
	size_t n, sn = 0;

	for (size_t i = 0; i < a->ev->nfiles; i++) {
		if (!pm_slurm_output_id(a->ev->files[i].name, &p, &n))
			continue;
		if (!(u = memchr(p, '_', n)))
			return false;
		n = (size_t)(u - p);
		if (seen && (n != sn || memcmp(seen, p, n)))
			return false;
		seen = p;
		sn = n;
	}
	if (!seen || !sn || sn >= cap)
		return false;
	memcpy(id, seen, sn);
	id[sn] = '\0';
	return true;
}

/* Whether D, after DL digits, goes on as slurmstepd's "[N.batch]" or "[N.0]" does: a dot, a
 * word, "]"; not a stamp's "[2026-...", nor an address's "[10.0.0.1]". */
static bool step_field(const char *d, size_t dl)
{
	size_t w;

	if (d[dl] != '.')
		return false;
	w = strspn(d + dl + 1, "abcdefghijklmnopqrstuvwxyz0123456789");
	return w && d[dl + 1 + w] == ']';
}

/*
 * The job a Slurm daemon's or client's line RAW names as the one it reports on: slurmd's
 * "[job N]", "Job N: " and "[N.batch]" / "[N.S]", slurmctld's and srun's "JobId=N",
 * "StepId=N.S".  -1 another job than this one (the record's, else OWN); 1 this one; 0 none
 * named, or this job's id not known.
 */
static int setup_line_job(const struct att *a, const char *own, const char *raw)
{
	static const char *const keys[] = {"[job ", "Job ", "JobId=", "StepId=", "["};
	const char *best = NULL;
	size_t bn = 0;
	bool rec = a->ev->job.id && a->ev->job.id[0];

	if (!raw || (!rec && !own))
		return 0;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		size_t kl = strlen(keys[i]);
		for (const char *q = raw; (q = strstr(q, keys[i])); q++) {
			const char *d = q + kl;
			size_t dl = strspn(d, "0123456789");
			if (!dl || (q > raw && isalnum((unsigned char)q[-1])))
				continue;
			if (i == 4 && !step_field(d, dl))
				continue;
			if (i == 1 && d[dl] != ':' && d[dl] != ' ')
				continue;
			if (d[dl] == '_' && isdigit((unsigned char)d[dl + 1])) /* an array task */
				dl += 1 + strspn(d + dl + 1, "0123456789");
			if (!best || d < best) {
				best = d;
				bn = dl;
			}
			break;
		}
	}
	if (!best)
		return 0;
	if (rec)
		return pm_record_job_id(a->ev, best, bn) ? 1 : -1;
	return bn == strlen(own) && !memcmp(best, own, bn) ? 1 : -1;
}

/* Whether X and Y name one host: case aside, and "n2.cluster" is n2. */
static bool setup_host_eq(const char *x, const char *y)
{
	size_t lx = strcspn(x, "."), ly = strcspn(y, ".");

	return !strcasecmp(x, y) || (lx == ly && (!x[lx] || !y[ly]) && !strncasecmp(x, y, lx));
}

/*
 * Whether slurmctld's own line allocating job OWN in file F ("sched: Allocate JobId=N
 * NodeList=L", "_slurm_rpc_allocate_resources JobId=N NodeList=L") names NODE among L: 1 it
 * does, -1 it names L without NODE, 0 no such line.  The file's first 4 MiB, read again
 * (pm_file_head), NUL-terminated.
 */
static int ctld_allocates(struct pm_file *f, const char *own, const char *node)
{
	size_t cap = f->bytes < (4u << 20) ? (size_t)f->bytes : (4u << 20), len = 0;
	char *buf;
	int rc = 0;

	if (f->status != PM_ST_OK || !cap || !(buf = malloc(cap + 1)))
		return 0;
	if (pm_file_head(f, buf, cap, &len) < 0) {
		free(buf);
		return 0;
	}
	buf[len] = '\0';
	for (const char *q = buf; rc <= 0 && (q = strstr(q, "JobId=")); q++) {
		const char *d = q + 6, *l;
		size_t dl = strcspn(d, " \t\n"), ll;
		char **names = NULL;
		size_t nn = 0;

		if (!pm_slurm_job_match(d, dl, own) || strncmp(d + dl, " NodeList=", 10))
			continue;
		l = d + dl + 10;
		ll = strcspn(l, " \t\n");
		if (!ll || *l == '(' || pm_hostlist_expand(l, ll, &names, &nn) || !nn)
			continue;
		rc = -1;
		for (size_t i = 0; i < nn; i++) {
			if (setup_host_eq(names[i], node))
				rc = 1;
			free(names[i]);
		}
		free(names);
	}
	free(buf);
	return rc;
}

/*
 * Whether NODE, with no record of the job's nodes, is outside them as the folder gives them:
 * slurmctld's own line allocating this job (ctld_allocates, in a file told as its log), else
 * the nodes srun's task lines and the rank map's records place tasks on, and those srun's own
 * lines name a launch failing on (a node whose prolog failed ran no task).  *HOW: which.
 * False where the folder gives none.  *BY_LAUNCH: NODE is among them only by such a launch
 * line, text the job's output holds and the job can print (review38 H3).
 */
static bool setup_outside_job(struct att *a, const char *own, const char *node, const char **how,
			      bool *by_launch)
{
	const struct pm_evidence *ev = a->ev;
	bool any = false;

	*by_launch = false;
	if (ev->job.nnodes || ev->job.het_partial)
		return false; /* the record's list: linetrust.c and pm_att_other_node read it */
	for (size_t i = 0; own && i < ev->nfiles; i++) {
		int r;
		if (ev->files[i].format != PM_FMT_SLURMCTLD_LOG ||
		    !(r = ctld_allocates(&ev->files[i], own, node)))
			continue;
		if (r > 0)
			return false;
		*how = "as slurmctld's own line allocating this job lists them";
		return true;
	}
	for (size_t i = 0; i < a->nplaced; i++) {
		if (setup_host_eq(a->placed[i].node, node))
			return false;
		any = true;
	}
	for (size_t i = 0; i < ev->ntasks; i++) {
		if (!ev->tasks[i].node)
			continue;
		if (setup_host_eq(ev->tasks[i].node, node))
			return false;
		any = true;
	}
	for (size_t i = 0; i < ev->nobs; i++) {
		const struct pm_obs *o = &ev->obs[i];
		if (o->node && o->source == PM_SRC_APP_LOG && R(a, i)->launch &&
		    pm_att_srun_own(o->raw) && setup_host_eq(o->node, node)) {
			*by_launch = true;
			return false;
		}
	}
	*how = "as srun's task lines name them";
	return any;
}

/* Whether the job's tasks ran on NODE as srun's task lines report them (a task of it
 * ending with an exit code or a signal, a task no other line of srun's contradicts) or as
 * the rank map's records place one there: "srun: error: gpu031: task 0: Exited with exit
 * code 1".  srun reports a task whose launch failed by the launch's failure, never so. */
static bool setup_tasks_ran(const struct att *a, const char *node)
{
	for (size_t i = 0; i < a->nplaced; i++)
		if (a->placed[i].how > 0 && setup_host_eq(a->placed[i].node, node) &&
		    !pm_rankset_has(a->srun_bad, a->nsrun_bad, a->placed[i].rank))
			return true;
	for (size_t i = 0; i < a->ev->ntasks; i++)
		if (a->ev->tasks[i].node && setup_host_eq(a->ev->tasks[i].node, node))
			return true;
	return false;
}

/*
 * Whether nothing ties C's node to this job but C's own lines, with no record of the job's
 * nodes: no line of C names a job (setup_line_job: slurmctld's drain line names none), no
 * slurmctld line of the folder allocating this job names the node (ctld_allocates), and no
 * srun task line or task record places a task anywhere (setup_outside_job would have
 * weighed them).  trust100's limit (review37): a drain line naming no job, planted in a file
 * of the job's beside output with no srun task lines, led at supported with the exclusion
 * advised.
 */
static bool setup_untied(struct att *a, const struct cand *c, const char *own)
{
	const struct pm_evidence *ev = a->ev;

	if (ev->job.nnodes || ev->job.het_partial || a->nplaced || ev->ntasks)
		return false;
	/* a line naming a job: this one, or, this job's id not known, the one it names (a
	 * line naming another job than a known id was set aside before) */
	for (size_t k = 0; k < c->nev; k++)
		if (setup_line_job(a, own ? own : "", ev->obs[c->ev[k]].raw) != 0)
			return false;
	for (size_t i = 0; own && i < ev->nfiles; i++)
		if (ev->files[i].format == PM_FMT_SLURMCTLD_LOG &&
		    ctld_allocates(&ev->files[i], own, c->node) > 0)
			return false;
	return true;
}

/* Whether O is a Slurm daemon's line (a trusted scheduler source) or srun's own. */
static bool setup_slurm_line(const struct pm_obs *o)
{
	return o->trusted ? o->source == PM_SRC_SCHEDULER : pm_att_srun_own(o->raw);
}

/* C set aside as another job's: its lines are marked (A->not_job), so that nothing reads them
 * as this job's error after it (verdict.c set_aside's earliest error, att_decide.c
 * fired_kind's "none within this job's time"). */
static void setup_aside(struct att *a, struct cand *c)
{
	c->dead = true;
	if (!a->not_job)
		a->not_job = calloc(a->ev->nobs ? a->ev->nobs : 1, sizeof(*a->not_job));
	for (size_t k = 0; a->not_job && k < c->nev; k++)
		a->not_job[c->ev[k]] = true;
}

/* The text of F's first 4 MiB, NUL-terminated, into *LEN; NULL none (malloc'd). */
static char *setup_text(struct pm_file *f, size_t *len)
{
	size_t cap = f->bytes < (4u << 20) ? (size_t)f->bytes : (4u << 20);
	char *buf;

	*len = 0;
	if (f->status != PM_ST_OK || !cap || !(buf = malloc(cap + 1)))
		return NULL;
	if (pm_file_head(f, buf, cap, len) < 0) {
		free(buf);
		return NULL;
	}
	buf[*len] = '\0';
	return buf;
}

/* Whether the job id D (DL bytes) names this job: the record's, else OWN. */
static bool setup_this_id(const struct att *a, const char *own, const char *d, size_t dl)
{
	if (a->ev->job.id && a->ev->job.id[0])
		return pm_record_job_id(a->ev, d, dl);
	return own && pm_slurm_job_match(d, dl, own);
}

/* The job id that follows KEY in the line S..E (its digits, an array task's "_N" too), into
 * *D and *DL; false where KEY is not in it or no digit follows. */
static bool setup_key_id(const char *s, const char *e, const char *key, const char **d, size_t *dl)
{
	size_t kl = strlen(key);

	for (const char *q = s; q + kl <= e; q++) {
		if (memcmp(q, key, kl))
			continue;
		*d = q + kl;
		*dl = strspn(*d, "0123456789_");
		if (*d + *dl > e)
			*dl = (size_t)(e - *d);
		return *dl > 0 && isdigit((unsigned char)**d);
	}
	return false;
}

/* What a Slurm daemon's line S..E says of a job on NODE (F the file's node, SLURMD its format
 * a slurmd log's): 1 this job allocated or launched there, 2 this job ended, 3 another job
 * allocated or launched there; 0 nothing of that. */
static int setup_daemon_event(const struct att *a, const char *own, const char *s, const char *e,
			      const char *node, const char *fnode, bool slurmd)
{
	const char *d;
	size_t dl;

	if (s >= e || *s != '[')
		return 0; /* slurm's own structure, "[stamp] msg" */
	if (setup_key_id(s, e, "_job_complete: JobId=", &d, &dl))
		return setup_this_id(a, own, d, dl) ? 2 : 0;
	if (setup_key_id(s, e, "Allocate JobId=", &d, &dl) ||
	    setup_key_id(s, e, "allocate_resources JobId=", &d, &dl)) {
		const char *l = d + dl;
		char **names = NULL;
		size_t nn = 0, ll;
		bool has = false;
		if ((size_t)(e - l) < 10 || strncmp(l, " NodeList=", 10))
			return 0;
		l += 10;
		ll = strcspn(l, " \t\n");
		if (l + ll > e)
			ll = (size_t)(e - l);
		if (!ll || pm_hostlist_expand(l, ll, &names, &nn))
			return 0;
		for (size_t i = 0; i < nn; i++) {
			has |= setup_host_eq(names[i], node);
			free(names[i]);
		}
		free(names);
		return !has ? 0 : setup_this_id(a, own, d, dl) ? 1 : 3;
	}
	/* slurmd's, on its own node */
	if (!slurmd || (fnode && !setup_host_eq(fnode, node)))
		return 0;
	if (setup_key_id(s, e, "Launching batch job ", &d, &dl) ||
	    setup_key_id(s, e, "launch task StepId=", &d, &dl) ||
	    setup_key_id(s, e, "launch task ", &d, &dl))
		return setup_this_id(a, own, d, dl) ? 1 : 3;
	/* "[stamp] [N.batch] done with job", "[stamp] [N.0] done with job" */
	const char *b = memchr(s, ']', (size_t)(e - s)), *c;
	if (b && e - b > 3 && b[1] == ' ' && b[2] == '[') {
		d = b + 3;
		dl = strspn(d, "0123456789_");
		c = memchr(d, ']', (size_t)(e - d));
		if (dl && d[dl] == '.' && c && e - c >= 15 && !strncmp(c, "] done with job", 15) &&
		    setup_this_id(a, own, d, dl))
			return 2;
	}
	return 0;
}

/*
 * Whether the Slurm daemon's own lines before O in its file (F) say that O, naming no job,
 * is not this job's: the last of them that speaks of a job on O's node NODE is the
 * controller's end of this job (`_job_complete: JobId=N`), slurmd's end of it (`[N.batch] done
 * with job`), or another job's allocation or launch on that node (`sched: Allocate JobId=M
 * NodeList=...NODE...`, slurmd's `Launching batch job M`).  *WHAT: which.
 */
static bool setup_after_daemon(const struct att *a, const char *own, const struct pm_obs *o,
			       const char *node, const char **what)
{
	struct pm_file *f = &a->ev->files[o->file];
	size_t len;
	char *buf;
	int last = 0;

	if ((!own && !(a->ev->job.id && a->ev->job.id[0])) || !(buf = setup_text(f, &len)))
		return false;
	for (const char *s = buf; s < buf + len && (uint64_t)(s - buf) < o->offset;) {
		const char *e = memchr(s, '\n', (size_t)(buf + len - s));
		int k;
		if (!e)
			e = buf + len;
		if ((uint64_t)(e - buf) > o->offset)
			break;
		if ((k = setup_daemon_event(a, own, s, e, node, f->node,
					    f->format == PM_FMT_SLURMD_LOG)))
			last = k;
		s = e + 1;
	}
	free(buf);
	*what = last == 2 ? "follows the daemon's own end of this job" :
		last == 3 ? "follows another job's allocation or launch on that node" :
			    NULL;
	return last >= 2;
}

bool pm_att_daemon_ran_job(const struct att *a, const char *node)
{
	char own[32];

	if (!pm_att_output_job_id(a, own, sizeof(own)))
		return false;
	for (size_t i = 0; i < a->ev->nfiles; i++) {
		struct pm_file *f = &a->ev->files[i];
		bool ran = false;
		size_t len;
		char *buf;

		if (f->format == PM_FMT_SLURMCTLD_LOG && ctld_allocates(f, own, node) > 0)
			return true;
		/* slurmd's log of that node (its folder's): this job's launch there */
		if (f->format != PM_FMT_SLURMD_LOG || !f->node || !setup_host_eq(f->node, node) ||
		    !(buf = setup_text(f, &len)))
			continue;
		for (const char *p = buf, *e; !ran && p < buf + len; p = e + 1) {
			if (!(e = memchr(p, '\n', (size_t)(buf + len - p))))
				e = buf + len;
			ran = setup_daemon_event(a, own, p, e, node, f->node, true) == 1;
		}
		free(buf);
		if (ran)
			return true;
	}
	return false;
}

/* Whether the job's output ends dated: no line of it that a rule reads as its failure or
 * its teardown (srun's "task 1: Exited with exit code 1" too, which pm_att_output_start does
 * not ask) comes after the last dated line of its file, undated.  Else the job may have
 * ended any time after that line. */
static bool setup_output_ends_dated(const struct att *a)
{
	for (size_t i = 0; i < a->ev->nobs; i++) {
		const struct pm_obs *o = &a->ev->obs[i];
		enum pm_role role = R(a, i)->role;
		if (o->source != PM_SRC_APP_LOG || o->trusted ||
		    (o->has_time && o->event_time > 0) ||
		    (role != PM_ROLE_ORIGIN && role != PM_ROLE_CASCADE &&
		     role != PM_ROLE_CONFIRMATION && role != PM_ROLE_TEARDOWN))
			continue;
		for (size_t k = 0;; k++) {
			if (k == a->ev->nobs)
				return false; /* no dated line after it */
			const struct pm_obs *d = &a->ev->obs[k];
			if (d->file == o->file && !d->trusted && d->has_time && d->event_time > 0 &&
			    d->offset > o->offset)
				break;
		}
	}
	return true;
}

/* Whether O, a trusted dated line, is stamped after the job's output dates its last line
 * (OUT_T1, with no record: pm_att_output_start) by more than the skew tolerance and
 * job_window_grace_s, the output ending dated (setup_output_ends_dated): the job had ended
 * by then (as cand_after_output; review39 H5). */
static bool setup_after_output(const struct att *a, const struct pm_obs *o)
{
	return a->out_t1 > 0 && o->trusted && o->has_time && o->event_time > 0 &&
	       o->event_time > a->out_t1 + a->rs->skew_s + a->rs->grace_s &&
	       setup_output_ends_dated(a);
}

/* How long after every line of C (each trusted and dated) the job's output dates a line of
 * its progress (a progress rule's line, a rank's last tallied one), beyond the skew tolerance
 * and job_window_grace_s; 0 when it dates none so late. */
static double setup_progress_after(const struct att *a, const struct cand *c)
{
	double line = 0, last;

	for (size_t k = 0; k < c->nev; k++) {
		const struct pm_obs *o = &a->ev->obs[c->ev[k]];
		if (!o->trusted || !o->has_time || o->event_time <= 0)
			return 0;
		if (o->event_time > line)
			line = o->event_time;
	}
	last = pm_att_last_progress(a);
	return line > 0 && last > line + a->rs->skew_s + a->rs->grace_s ? last - line : 0;
}

/* Whether the Slurm daemon's file F holds, on lines of its own structure ("[stamp] msg")
 * other than those of C, two words or more of a daemon's vocabulary (sniff.c's, slurm_kind):
 * a daemon's log, not a line or two of its wording that a job can write into its folder. */
static bool setup_daemon_vocabulary(const struct att *a, const struct cand *c, size_t fi)
{
	static const char *const words[] = {
		"_slurm_rpc_",
		"sched:",
		"backfill",
		"_job_complete",
		"job_time_limit",
		"Allocate JobId=",
		"Requeuing JobId=",
		"node_not_resp",
		"_kill_job_on_node",
		"_pick_best_nodes",
		"launch task",
		"_rpc_terminate_job",
		"_rpc_launch",
		"Launching batch job",
		"done with job",
		"slurmstepd",
		"_run_prolog",
		"_run_epilog",
		"task/",
		"slurmd version",
		"task_p_",
		"_handle_stray",
	};
	bool seen[sizeof(words) / sizeof(words[0])] = {false};
	size_t len, n = 0;
	char *buf = setup_text(&a->ev->files[fi], &len);

	if (!buf)
		return false;
	for (const char *s = buf; s < buf + len && n < 2;) {
		const char *e = memchr(s, '\n', (size_t)(buf + len - s));
		bool mine = false;
		if (!e)
			e = buf + len;
		for (size_t k = 0; k < c->nev && !mine; k++)
			mine = a->ev->obs[c->ev[k]].file == fi &&
			       a->ev->obs[c->ev[k]].offset == (uint64_t)(s - buf);
		for (size_t w = 0; !mine && *s == '[' && w < sizeof(words) / sizeof(words[0]); w++)
			if (!seen[w] && pm_in_contains(s, (size_t)(e - s), words[w])) {
				seen[w] = true;
				n++;
			}
		s = e + 1;
	}
	free(buf);
	return n >= 2;
}

/*
 * Whether C, a launch reading from Slurm daemons' lines, is only a file of a daemon's wording
 * that is no daemon's log (setup_daemon_vocabulary: a line or two; a collector's bundle is
 * root's), where no accounting record says the job failed to launch (none, or one whose state
 * is not NODE_FAIL, REQUEUED or LAUNCH_FAILED).  A job can write such a file into a
 * hand-gathered folder under any name (review39 H4), as it can slurmctld's kill line
 * (pm_att_ctld_node_fail); *NAME the file's.
 */
static bool setup_thin(const struct att *a, const struct cand *c, const char **name)
{
	const char *st = pm_att_outcome_from_state(a->ev->job.state);

	if (st &&
	    (!strcmp(st, "NODE_FAIL") || !strcmp(st, "REQUEUED") || !strcmp(st, "LAUNCH_FAILED")))
		return false;
	*name = NULL;
	for (size_t k = 0; k < c->nev; k++) {
		const struct pm_obs *o = &a->ev->obs[c->ev[k]];
		const struct pm_file *f = &a->ev->files[o->file];
		if (!o->trusted)
			continue;
		if (f->bundled || setup_daemon_vocabulary(a, c, o->file))
			return false;
		*name = f->name;
	}
	return *name != NULL;
}

/*
 * A launch-time reading (the rule's `launch`: a node's prolog or set-up refusing the job,
 * external/node_setup) that Slurm's own lines place on a node, in a folder that holds the
 * failure of another job than this one.  Such a line names a node, and with no accounting
 * record nothing else said whether that node, that time or that job was this job's
 * (review37 H1-H3: another job's prolog drain on a node outside the job, in an operator's
 * slurmctld.log; another job's "[job N] prolog failed" in slurmd's log hours before this
 * job's output began; one line the job wrote: each led at supported with the node's exclusion
 * advised, over the job's own segfault).  It is not this job's, and leads no more, `why`
 * saying which:
 * - its node is outside the job's as the folder gives them (setup_outside_job);
 * - every line of it names another job (setup_line_job: the record's id, else the one its
 *   output files are named for), or is dated before the job's output began
 *   (pm_att_before_output), either one;
 * - for a set-up refusal (external/node_setup), srun reports the node's tasks as ended by
 *   Slurm after a task elsewhere failed of itself (pm_att_srun_ended), or a task of it
 *   ending of itself, or the rank map's records place a task there (setup_tasks_ran): they
 *   were launched, so the node's set-up did not refuse this job (a prolog runs before a
 *   job's first task on a node, once).
 * The job's own failure then leads.  Only lines of Slurm's shape are asked: srun's own and a
 * trusted scheduler file's (the job's output alone is launch_gainsaid's and the output-only
 * cap's).
 */
static void setup_not_this_jobs(struct att *a)
{
	char own[32];
	bool have = false, made = false;

	for (size_t i = 0; i < a->nc; i++) {
		struct cand *c = &a->c[i];
		const struct pm_file *f;
		const char *how = NULL, *other;
		bool slurm = c->nev > 0, trusted = false, by_launch;
		size_t nother = 0, nbefore = 0, nafter = 0, k;
		const char *dwhat = NULL, *thin;
		double ran;

		if (c->dead || !c->launch || !c->node[0] || c->lead != LEAD_RULE)
			continue;
		for (k = 0; k < c->nev && slurm; k++) {
			slurm = setup_slurm_line(&a->ev->obs[c->ev[k]]);
			trusted |= a->ev->obs[c->ev[k]].trusted;
		}
		if (!slurm || !trusted)
			continue;
		if (!made) {
			have = pm_att_output_job_id(a, own, sizeof(own));
			made = true;
		}
		f = &a->ev->files[a->ev->obs[c->ev[0]].file];
		if (setup_outside_job(a, have ? own : NULL, c->node, &how, &by_launch)) {
			setup_aside(a, c);
			pm_att_why(a,
				   "%s: %s names it on %s, not one of this job's nodes (%s): another "
				   "job's, not this job's set-up.",
				   c->summary, f->name, c->node, how);
			continue;
		}
		/* only a launch line in the job's output puts the node in the job, and the job
		 * can print one naming any host (review38 H3: an echoed "Task launch ... failed
		 * on node hb23" beside a drain line the job wrote excluded hb23, a node the job
		 * never had): the lead stands, its node the folder's guess, its exclusion only
		 * offered (pm_att_node_guessed) */
		if (by_launch && !c->guess) {
			c->guess = true;
			pm_att_why(
				a,
				"%s: only srun's launch line in the job's output puts %s among this "
				"job's nodes, and a job can print such a line: %s is named, its "
				"exclusion not advised.",
				c->summary, c->node, c->node);
		}
		for (k = 0; k < c->nev; k++) {
			const struct pm_obs *o = &a->ev->obs[c->ev[k]];
			if (setup_line_job(a, have ? own : NULL, o->raw) < 0)
				nother++;
			else if (pm_att_before_output(a, o))
				nbefore++;
			else if (setup_after_output(a, o))
				nafter++;
			else
				break;
		}
		if (k == c->nev) {
			setup_aside(a, c);
			pm_att_why(a,
				   "%s: %s's lines of it %s%s%s%s%s: another job's, not this job's "
				   "set-up.",
				   c->summary, f->name,
				   nother ? "name another job than this one" : "",
				   nother && (nbefore || nafter) ? ", or " : "",
				   nbefore || nafter ? "are dated " : "",
				   nbefore ? "before the job's output began" : "",
				   nafter ? (nbefore ?
						     " or after its last dated line" :
						     "after the job's output dates its last line") :
					    "");
			continue;
		}
		/* the daemon's own lines before it in its file: this job's end, another job's
		 * allocation or launch on the node (review39 H5) */
		for (k = 0; k < c->nev; k++)
			if (!a->ev->obs[c->ev[k]].trusted ||
			    !setup_after_daemon(a, have ? own : NULL, &a->ev->obs[c->ev[k]],
						c->node, &dwhat))
				break;
		if (k == c->nev) {
			setup_aside(a, c);
			pm_att_why(a,
				   "%s: %s's line of it names no job and %s: another job's, not this "
				   "job's set-up.",
				   c->summary, f->name, dwhat);
			continue;
		}
		/* a prolog runs before the job's first task on a node, once: only a set-up
		 * refusal is gainsaid by its tasks having run (a node drained by its health check
		 * while they ran, nvl-fm-not-ready-health-check, is not) */
		if (strcmp(c->cls, "external") || strcmp(c->sub, "node_setup"))
			continue;
		if ((other = pm_att_srun_ended(a, c->node))) {
			setup_aside(a, c);
			pm_att_why(a,
				   "%s: srun reports %s's tasks as ended by Slurm after a task on %s "
				   "failed of itself: they were launched, so %s's set-up did not "
				   "refuse this job (%s's line is another job's, or not Slurm's).",
				   c->summary, c->node, other, c->node, f->name);
		} else if (setup_tasks_ran(a, c->node)) {
			setup_aside(a, c);
			pm_att_why(
				a,
				"%s: the job's tasks ran on %s (srun reports one ending, or the "
				"task records place one there), so %s's set-up did not refuse this "
				"job (%s's line is another job's, or not Slurm's).",
				c->summary, c->node, c->node, f->name);
		} else if ((ran = setup_progress_after(a, c)) > 0) {
			/* a node's set-up refusing the job ends it (Slurm requeues or fails it):
			 * the job's own progress long after the line says it ran on (review39 H4) */
			setup_aside(a, c);
			pm_att_why(a,
				   "%s: the job's output dates its progress %.0f s after %s's line "
				   "of it: the job ran on, so no node's set-up refused it (the line "
				   "is another job's, or not Slurm's).",
				   c->summary, ran, f->name);
		} else {
			if (!c->guess && setup_untied(a, c, have ? own : NULL)) {
				/* nothing but the line's own words puts its node in this job */
				c->guess = true;
				pm_att_why(
					a,
					"%s: with no accounting record, no line of %s names this job, "
					"and nothing Slurm writes ties %s to it (slurmctld's line "
					"allocating it, srun's task lines): %s is named, its exclusion "
					"not advised.",
					c->summary, f->name, c->node, c->node);
			}
			if (setup_thin(a, c, &thin) && !c->user_record) {
				/* review39 H4: a line or two of a daemon's wording, in a file the
				 * job can write, with no record that the job failed to launch */
				c->user_record = true;
				c->guess = true;
				pm_att_why(
					a,
					"%s: only %s says so, a line or two of a Slurm daemon's wording and "
					"no daemon's log, with no accounting record of a launch failure: a "
					"job can write such a file into a hand-gathered folder, so the "
					"set-up failure is a hypothesis, %s's exclusion not advised.",
					c->summary, thin, c->node);
			}
		}
	}
}

void pm_att_phase_merge(struct att *a)
{
	setup_not_this_jobs(a);
	pm_att_unplace_aside(a);
	aer_on_gpu(a);
	output_crashes(a);
	for (size_t i = 0; i < a->nc; i++) {
		struct cand *c = &a->c[i];
		if (c->dead || !c->nev || c->lead != LEAD_RULE)
			continue;
		for (size_t k = i + 1; k < a->nc; k++) {
			struct cand *d = &a->c[k], *keep = c, *drop = d;
			if (d->dead || !d->nev || d->lead != LEAD_RULE || strcmp(c->cls, d->cls) ||
			    (c->node[0] ? strcmp(c->node, d->node) :
					  d->node[0] || !same_gpu_rows(a, c, d)) ||
			    gpus_apart(a, c, d))
				continue;
			if (better(a, d, c)) {
				keep = d;
				drop = c;
			}
			for (size_t m = 0; m < drop->nev; m++)
				pm_att_cand_add(a, keep, drop->ev[m]);
			keep->in_plain |= drop->in_plain;
			keep->by_skew |= drop->by_skew;
			drop->dead = true;
			if (drop == c)
				break;
		}
	}
}

/* Of class and subclass X's live symptoms, the one placed on a node: NULL when none is, or
 * when they name several nodes. */
static struct cand *single_placed(struct att *a, const struct cand *x)
{
	struct cand *p = NULL;

	for (size_t k = 0; k < a->nc; k++) {
		struct cand *d = &a->c[k];
		if (d->dead || !d->nev || d->lead != LEAD_RULE || !d->node[0] ||
		    strcmp(d->cls, x->cls) || strcmp(d->sub, x->sub))
			continue;
		if (p)
			return NULL;
		p = d;
	}
	return p;
}

/* A symptom with no node beside the one placed symptom of the same class and subclass is
 * the same event told twice (Slurm's step-wide OOM count beside its task line naming the
 * node): it joins the placed one instead of leading alone with no origin. */
void pm_att_phase_join(struct att *a)
{
	for (size_t i = 0; i < a->nc; i++) {
		struct cand *c = &a->c[i], *p;
		if (c->dead || c->node[0] || !c->nev || c->lead != LEAD_RULE ||
		    !(p = single_placed(a, c)))
			continue;
		for (size_t m = 0; m < c->nev; m++)
			pm_att_cand_add(a, p, c->ev[m]);
		p->in_plain |= c->in_plain;
		p->by_skew |= c->by_skew;
		c->dead = true;
		pm_att_why(a, "%s/%s without a node joins the same symptom on %s.", c->cls, c->sub,
			   p->node);
	}
}

/* Whether kernel line K, the program's own GPU fault (Xid 13/31/43, amdgpu's page fault),
 * can be what hung the GPU that hang line H reports (Xid 69/109, amdgpu's ring timeout): the
 * same GPU and process where both lines name them, and K not after H nor more than
 * CONSEQUENCE_S before it where both are dated. */
#define CONSEQUENCE_S 120.0
static bool hung_by(const struct pm_obs *k, const struct pm_obs *h)
{
	if (k->pci && h->pci && strcmp(k->pci, h->pci))
		return false;
	if (k->pid > 0 && h->pid > 0 && k->pid != h->pid)
		return false;
	if (k->has_time && h->has_time &&
	    (k->event_time > h->event_time || h->event_time - k->event_time > CONSEQUENCE_S))
		return false;
	return true;
}

/* Whether candidate F's evidence holds the kernel's own record of the program's fault that
 * can have hung the GPU of H's line. */
static bool fault_before(const struct att *a, const struct cand *f, const struct pm_obs *h)
{
	for (size_t m = 0; m < f->nev; m++) {
		const struct pm_obs *k = &a->ev->obs[f->ev[m]];
		if (k->trusted && k->source == PM_SRC_KERNEL_LOG && hung_by(k, h))
			return true;
	}
	return false;
}

/* Whether observation O came after the job's progress began: dated later than the first
 * progress by more than the skew tolerance, or undated after a progress line of its own file
 * (FIRST: each file's first progress offset + 1, 0 for none).  A `formed` rule's line names
 * the running collective that failed (Horovod's "ncclAllReduce failed: ..."): whatever the
 * paste kept of the progress before it, the group had formed. */
static bool after_progress(const struct att *a, const struct pm_obs *o, const uint64_t *first)
{
	if (R(a, (size_t)(o - a->ev->obs))->formed)
		return true;
	if (o->has_time && a->first_progress > 0)
		return o->event_time > a->first_progress + a->rs->skew_s;
	return first && o->file < a->ev->nfiles && first[o->file] && first[o->file] - 1 < o->offset;
}

/* Each file's first progress offset + 1 (0 for none), for after_progress: undated progress
 * counts by its place in its file (NCCL's "Init COMPLETE", a tqdm bar), made once per
 * attribution.  *ANY is set when there is any progress, in a file or dated.  NULL on ENOMEM. */
static const uint64_t *progress_starts(struct att *a, bool *any)
{
	if (!a->pstart_made) {
		a->pstart = calloc(a->ev->nfiles ? a->ev->nfiles : 1, sizeof(*a->pstart));
		for (size_t k = 0; a->pstart && k < a->ev->nobs; k++) {
			const struct pm_obs *o = &a->ev->obs[k];
			if (R(a, k)->role == PM_ROLE_PROGRESS && o->file < a->ev->nfiles &&
			    (!a->pstart[o->file] || o->offset + 1 < a->pstart[o->file])) {
				a->pstart[o->file] = o->offset + 1;
				a->pstart_any = true;
			}
		}
		a->pstart_made = a->pstart != NULL;
	}
	*any = a->any_progress || a->pstart_any;
	return a->pstart;
}

bool pm_att_cand_after_progress(struct att *a, const struct cand *c)
{
	bool any, after = c->nev > 0;
	const uint64_t *first = progress_starts(a, &any);

	/* with no progress at all only a `formed` line is after it (after_progress) */
	if (!first)
		return false;
	for (size_t m = 0; m < c->nev && after; m++)
		after = after_progress(a, &a->ev->obs[c->ev[m]], first);
	return after;
}

/* a live rule candidate of the set-up kinds that a peer's loss also prints, or of Slurm's
 * own machinery failing to start the job (a munge or job credential refused) */
static bool is_setup(const struct cand *c)
{
	return !c->dead && c->lead == LEAD_RULE && c->nev && !strcmp(c->cls, "launch_config") &&
	       (!strcmp(c->sub, "nccl_init") || !strcmp(c->sub, "rendezvous") ||
		!strcmp(c->sub, "scheduler"));
}

/* Whether every line of the set-up candidate C lies in a file whose own progress comes after
 * it (by the file's order): the set-up was tried again, or the job started again, and the
 * group formed (a port in use at the first bind, then a step logged; comm-setup-retried-then-
 * nan; with no progress after it in its file it stays: launch-port-in-use-runtime-error). */
static bool overcome(const struct att *a, const struct cand *c, const uint64_t *first)
{
	for (size_t m = 0; m < c->nev; m++) {
		const struct pm_obs *o = &a->ev->obs[c->ev[m]];
		if (o->file >= a->ev->nfiles || !first[o->file] || o->offset + 1 >= first[o->file])
			return false;
	}
	return c->nev > 0;
}

/* A set-up failure whose own output went on to progress after it (overcome), beside an origin
 * after the progress began that no peer's failure to set up raises (a specific origin, a
 * logic error): the set-up was tried again, or the job started again, and the group formed.
 * Set aside, and that origin leads (comm-setup-retried-then-nan). */
static void setup_overcome(struct att *a, struct cand *c, const uint64_t *first)
{
	const struct cand *later = NULL;

	if (!overcome(a, c, first))
		return;
	for (size_t i = 0; i < a->nc && !later; i++) {
		const struct cand *o = &a->c[i];
		if (!o->dead && o->lead == LEAD_RULE && o->nev && strcmp(o->cls, "launch_config") &&
		    unraised_lead(a, o) && pm_att_cand_after_progress(a, o))
			later = o;
	}
	if (!later)
		return;
	c->dead = true;
	pm_att_why(a,
		   "%s: its own output went on to make progress after it (a set-up tried again, or "
		   "an earlier attempt of the job), so the group formed; %s, after the progress "
		   "began, leads.",
		   c->summary, later->summary);
}

/* Whether the writer of set-up line O is known to have made progress after it, where its file
 * already logs progress after it (overcome): a line that names no rank, in a job of one node,
 * where a training step after every set-up line of the node needs every local rank's group
 * formed.  Not a line that names its rank, nor any line in a job of several nodes: rank 0
 * alone logs steps in most jobs, its progress says nothing of another node's or rank's
 * set-up, and a rank whose set-up failed can have hung the others later
 * (setup-ib-device-other-node-near-miss). */
static bool writer_progressed(const struct att *a, const struct pm_obs *o)
{
	const struct pm_evidence *ev = a->ev;

	return o->rank < 0 && (ev->job.nnodes == 1 || (!ev->job.nnodes && ev->nnodes == 1));
}

/* Whether every line of the set-up candidate C is one whose writer went on to progress
 * (writer_progressed): the job got past that set-up. */
static bool writer_went_on(const struct att *a, const struct cand *c)
{
	for (size_t m = 0; m < c->nev; m++)
		if (!writer_progressed(a, &a->ev->obs[c->ev[m]]))
			return false;
	return c->nev > 0;
}

/* A set-up class (an NCCL communicator or the rendezvous failing to form) seen only after the
 * job had made progress: the group had formed.  What NCCL before 2.12 reported as "unhandled
 * system error" (and 2.19 as a socket closed by the peer behind it) and torchelastic as a
 * RendezvousConnectionError then is a peer gone, the consequence of another origin of this
 * job (an OOM, an exception), not a failure to set up.  Set aside, so that origin leads,
 * when one is there; alone it stays the lead, marked (a communicator made late, for
 * evaluation or a new process group, can fail to form), and the confidence phase keeps it
 * from excluding the node of the ranks that reported it.  So too Slurm's authentication
 * failing (launch_config/scheduler): after the job's progress Slurm had started it, and the
 * line is no failure of Slurm's to start it (a later step's, or text the job printed). */
static void setup_after_progress(struct att *a)
{
	const uint64_t *first;
	const struct cand *other = NULL;
	bool any;
	bool setup = false;

	/* most merges have no set-up candidate: skip the pass over every observation */
	for (size_t i = 0; i < a->nc && !setup; i++)
		setup = is_setup(&a->c[i]);
	if (!setup)
		return;
	/* no progress at all: a `formed` line still came after the group formed */
	if (!(first = progress_starts(a, &any)))
		return;
	for (size_t i = 0; i < a->nc && !other; i++) {
		const struct cand *c = &a->c[i];
		if (!c->dead && c->lead == LEAD_RULE && c->nin && strcmp(c->cls, "launch_config"))
			other = c;
	}
	for (size_t i = 0; i < a->nc; i++) {
		struct cand *c = &a->c[i];
		size_t m = 0;

		if (!is_setup(c))
			continue;
		while (m < c->nev && after_progress(a, &a->ev->obs[c->ev[m]], first))
			m++;
		if (m < c->nev) {
			setup_overcome(a, c, first);
			if (!c->dead && !other && overcome(a, c, first) && writer_went_on(a, c))
				c->got_past = true;
			continue;
		}
		if (!other) {
			c->late_setup = true;
			c->late_named = !any;
			continue;
		}
		c->dead = true;
		if (!strcmp(c->sub, "scheduler"))
			pm_att_why(a,
				   "%s: reported only after the job had made progress, when Slurm "
				   "had started it, so not Slurm failing to start it (%s leads).",
				   c->summary, other->summary);
		else if (!any)
			pm_att_why(a,
				   "%s: its line names the running collective that failed, so its "
				   "group had formed and this is a peer gone, a consequence (%s "
				   "leads), not a failure to set up.",
				   c->summary, other->summary);
		else
			pm_att_why(a,
				   "%s: after the job had made progress its group had formed, so "
				   "this is a peer gone, a consequence (%s leads), not a failure to "
				   "set up.",
				   c->summary, other->summary);
	}
}

/*
 * A set-up failure that gives no reason (every line of it a `reasonless` rule's: NCCL's
 * "unhandled system error") beside the job's own report of an RDMA transfer that failed (a
 * network_fabric reading of the job's output: transport retries exhausted, "Got completion
 * with error 12"): NCCL returns ncclSystemError for a failed network completion ("NCCL INFO
 * include/net.h:28 -> 2" under the warning), so the system error is that failure carried up
 * to the program, not a communicator that could not be set up.  Set aside, and the
 * transport failure leads where nothing better fits (phase 10: on the reporters' nodes, a
 * hypothesis); before, NCCL 2.10's "Got completion with error 12" on two nodes read as
 * launch_config/nccl_init, `supported`, the job failed at launch
 * (comm-syserror-beside-retry-exceeded; a port listing whose down port sits beside an
 * active one fires no network reading, and the system error keeps its own:
 * comm-syserror-beside-unused-port-down-near-miss).
 */
static void setup_beside_transport(struct att *a)
{
	const struct pm_obs *net = NULL;
	char sum[PM_OBS_SUMMARY_MAX];

	for (size_t k = 0; k < a->ev->nobs && !net; k++) {
		const struct pm_rule *r = R(a, k);
		if (a->ev->obs[k].source == PM_SRC_APP_LOG && r->hardware &&
		    (r->role == PM_ROLE_CASCADE || r->role == PM_ROLE_CONFIRMATION) &&
		    !strcmp(r->cls, "network_fabric"))
			net = &a->ev->obs[k];
	}
	if (!net)
		return;
	for (size_t i = 0; i < a->nc; i++) {
		struct cand *c = &a->c[i];
		size_t m = 0;

		if (!is_setup(c) || strcmp(c->sub, "nccl_init"))
			continue;
		while (m < c->nev && R(a, c->ev[m])->reasonless)
			m++;
		if (m < c->nev)
			continue;
		c->dead = true;
		pm_att_why(a,
			   "%s: the job's output reports an RDMA transfer that failed (%s), and "
			   "NCCL returns a system error for a failed network completion: that "
			   "failure carried up, not a communicator that could not be set up.",
			   c->summary, pm_obs_summary(a->ev, net, sum));
	}
}

/* KillWait's default: sacct's End is stamped as the job enters COMPLETING; what is left of
 * its processes then has SIGTERM, and SIGKILL only this long after.  slurmd runs the epilog
 * (the collector) only once they are gone, but a snapshot of unknown provenance dated within
 * this of End may list the job's own processes, still ending. */
#define TEARDOWN_S 30.0

/* The earliest time a cancel line of Slurm's gives in its words (pm_att_cancelled_at): the
 * step's teardown began then; 0 when none gives one. */
static double step_cancelled(const struct att *a)
{
	double t = 0, x;

	for (size_t i = 0; i < a->ev->nobs; i++)
		if (R(a, i)->outcome && (x = pm_att_cancelled_at(&a->ev->obs[i])) > 0 &&
		    (t <= 0 || x < t))
			t = x;
	return t;
}

/*
 * Whether every line of C is an Xid 32 (a corrupted push buffer stream, gpu_hardware/pcie at
 * weak: xid-32-pushbuffer), the code a GPU's DMA engine also reports as a process with work in
 * flight is torn down (n0r of trust102: beside the job's own ValueError, an Xid 32 on a node
 * whose tasks Slurm only ended, 11 s before the kill, made the verdict ambiguous and advised
 * that node's exclusion).  Read as the teardown's as Xid 43 is, under the same conditions
 * (teardown_fault); a strong GPU fault (Xid 79, 48, 94, 95) never is.
 */
static bool teardown_xid(const struct att *a, const struct cand *c)
{
	if (strcmp(c->cls, "gpu_hardware") || c->strength > PM_WEAK)
		return false;
	for (size_t m = 0; m < c->nev; m++)
		if (a->ev->obs[c->ev[m]].xid != 32)
			return false;
	return c->nev > 0;
}

/*
 * Whether C's node is the one where srun (or the plugin's records) report the one task that
 * failed of itself, the other nodes' tasks only ended by Slurm, and that task's failure leads
 * there as the program's own logic error (pm_att_logic_error: a ValueError, a KeyError, no
 * hardware fault raises one): C, dated in the teardown (teardown_fault), is then that
 * process's GPU work stopped as it died.  *OTHER is C's node.
 */
static bool own_death(const struct att *a, const struct cand *c, const char **other)
{
	const struct pm_jobinfo *j = &a->ev->job;
	bool failed_here = false, logic = false;

	for (size_t k = 0; k < j->nnodes && !failed_here; k++) {
		const char *f;
		if (!j->nodes[k] || !strcasecmp(j->nodes[k], c->node))
			continue;
		f = pm_att_clean_exits(a, j->nodes[k]);
		if (!f)
			f = pm_att_srun_ended(a, j->nodes[k]);
		failed_here = f && !strcasecmp(f, c->node);
	}
	for (size_t k = 0; k < a->nc && failed_here && !logic; k++) {
		const struct cand *x = &a->c[k];
		logic = x != c && !x->dead && x->lead == LEAD_RULE && x->node[0] &&
			!strcasecmp(x->node, c->node) && pm_att_logic_error(a, x);
	}
	if (logic)
		*other = c->node;
	return logic;
}

/*
 * The program's own GPU fault (Xid 13/31/43, or a weak Xid 32: teardown_xid) on a node whose
 * tasks were only ended by Slurm:
 * srun's reports, or the plugin's records, say every task there was ended by Slurm's SIGTERM
 * or SIGKILL (or exited 0) after a task on another node failed of itself, and every line of
 * the fault is the kernel's, dated within the job's last TEARDOWN_S (KillWait: SIGTERM, then
 * SIGKILL), or, with no record of the job's end, at or after slurmstepd's cancel of the step
 * (the teardown's start).  A process killed with GPU work in flight has its channel stopped
 * (Xid 43, then 45): that is the teardown, not a fault that began the failure.  A process
 * that faulted of itself raises and exits with its own code, and srun would say so; one that
 * hung after its fault did so long before the others gave up (a collective timeout's
 * minutes), not in the job's last seconds.  Only beside a lead on that other node, or of no
 * node (the failure that began the teardown): set aside, `why` says so, and that lead stands
 * (gpu-xid43-teardown-bystander-node, gpu-xid43-teardown-after-step-cancel; a fault before
 * the teardown keeps its lead: gpu-xid43-teardown-bystander-node-near-miss).
 */
static bool teardown_fault(const struct att *a, const struct cand *c, const char **other)
{
	const struct pm_evidence *ev = a->ev;
	double tol = a->rs->skew_s, cancel = 0;

	if (c->dead || !c->node[0] || !c->nev || c->lead != LEAD_RULE ||
	    (!teardown_xid(a, c) &&
	     (strcmp(c->cls, "application") || strcmp(c->sub, "cuda_fault"))))
		return false;
	if (ev->job.end <= 0 && (cancel = step_cancelled(a)) <= 0)
		return false;
	for (size_t m = 0; m < c->nev; m++) {
		const struct pm_obs *k = &ev->obs[c->ev[m]];
		const struct pm_file *f = k->file < ev->nfiles ? &ev->files[k->file] : NULL;
		if (!k->trusted || k->source != PM_SRC_KERNEL_LOG || !k->has_time)
			return false;
		/* no record: at or after slurmstepd's cancel line, Slurm's local time; a kernel
		 * log stamped with an offset is read in it, a zoneless one is local time too */
		if (ev->job.end <= 0 &&
		    k->event_time + tol < cancel - (f && f->head_zoned ? f->head_zone : 0))
			return false;
		if (ev->job.end > 0 && k->event_time + tol < ev->job.end - TEARDOWN_S)
			return false;
	}
	if (!(*other = pm_att_clean_exits(a, c->node)) && !(*other = pm_att_srun_ended(a, c->node)))
		return teardown_xid(a, c) && own_death(a, c, other);
	for (size_t j = 0; j < a->nc; j++) {
		const struct cand *x = &a->c[j];
		/* one of no node is placed on that task's host only later, as a guess
		 * (pm_att_place_one_host) */
		if (x != c && !x->dead && x->lead == LEAD_RULE && x->nev &&
		    (!x->node[0] || !strcasecmp(x->node, *other)))
			return true;
	}
	return false;
}

static void teardown_faults(struct att *a)
{
	const char *other;

	for (size_t i = 0; i < a->nc; i++) {
		struct cand *c = &a->c[i];
		if (!teardown_fault(a, c, &other))
			continue;
		c->dead = true;
		if (!strcasecmp(other, c->node)) {
			pm_att_why(a,
				   "%s. It is dated in the step's teardown (%s), on the node of "
				   "the one task that failed of itself, with the program's own "
				   "error (of a kind no hardware fault raises): that process's GPU "
				   "work stopped as it exited, not the failure's origin (should it "
				   "recur outside a teardown, check the GPU's PCIe path).",
				   c->summary,
				   a->ev->job.end > 0 ? "within KillWait's 30 s of the job's end" :
							"after Slurm cancelled the step");
			continue;
		}
		pm_att_why(a,
			   "%s. It is dated in the step's teardown (%s), on a node whose tasks "
			   "Slurm only ended after a task on %s failed of itself: the teardown's "
			   "stopped GPU work, not the failure's origin%s.",
			   c->summary,
			   a->ev->job.end > 0 ? "within KillWait's 30 s of the job's end" :
						"after Slurm cancelled the step",
			   other,
			   teardown_xid(a, c) ? " (should it recur outside a teardown, check the "
						"GPU's PCIe path)" :
						"");
	}
}

/*
 * A launch-time reading (the rule's `launch`) read only on srun's own report of it ("srun:
 * error: Task launch for StepId=N.0 failed on node gq08: <set-up reason>": pm_att_srun_own)
 * in the job's output, on a node whose tasks srun reports as ended by Slurm after a task on
 * another node failed of itself (pm_att_srun_ended): those tasks were launched, and ran until Slurm ended them, so
 * the line is not this step's launch failing there (text the job printed, or another
 * step's): it leads no more, and `why` says so (review36 L1: before, such a line, printed
 * first, led as external/admin_cancel on gq08, over the job's own error on gq07, and said
 * the job failed at launch after half an hour of progress).
 */
static void launch_gainsaid(struct att *a)
{
	const char *other;

	for (size_t i = 0; i < a->nc; i++) {
		struct cand *c = &a->c[i];
		bool srun = c->nev > 0;

		for (size_t k = 0; k < c->nev && srun; k++)
			srun = pm_att_srun_own(a->ev->obs[c->ev[k]].raw);
		if (c->dead || !c->launch || !srun || !c->node[0] || c->lead != LEAD_RULE ||
		    !pm_att_output_only(a, c) || !(other = pm_att_srun_ended(a, c->node)))
			continue;
		c->dead = true;
		pm_att_why(a,
			   "%s: only the job's output says so, and srun reports %s's tasks as "
			   "ended by Slurm after a task on %s failed of itself: they were "
			   "launched, so this is no launch failure of the step's there.",
			   c->summary, c->node, other);
	}
}

/* Whether C is a crash the kernel places inside the communication library: an origin line of
 * a `comm_crash` rule, and every other origin line of C the job's own report of a crash (a
 * faulthandler's "Fatal Python error: Segmentation fault", which says nothing of where),
 * none a trusted line of a crash elsewhere (the kernel's segfault in another library). */
static bool comm_crash_only(const struct att *a, const struct cand *c)
{
	size_t n = 0;

	for (size_t k = 0; k < c->nev; k++) {
		const struct pm_rule *r = R(a, c->ev[k]);
		if (r->role != PM_ROLE_ORIGIN)
			continue;
		if (r->comm_crash)
			n++;
		else if (a->ev->obs[c->ev[k]].trusted || r->generic)
			return false;
	}
	return n > 0;
}

/* comm_crashes' refusal: a lead that is itself such a crash only. */
static bool comm_crash_lead(const struct att *a, const struct cand *c, const struct cand *o)
{
	(void)c;
	return comm_crash_only(a, o);
}

/*
 * A process that crashed inside the communication library (a `comm_crash` rule: the kernel's
 * segfault line naming libnccl, UCX, libfabric) beside a lead that such a crash cannot raise:
 * a specific origin (an out-of-memory, a disk full, a CUDA fault, a hardware event), or the
 * program's own logic error (a KeyError no peer's crash raises; pm_att_logic_error).  A peer
 * that vanished mid-collective leaves the others' proxy threads on torn-down connections
 * while Slurm takes the job down, and a crash there is that peer's consequence; the lead it
 * stands beside cannot be the crash's.  Not where the crash is dated before that lead by more
 * than the pair's tolerance (it came first, and may have begun it), and never beside a lead a
 * peer gone makes the others print (unraised_lead: a generic exception, an NCCL set-up error,
 * a time limit), nor beside another such crash only.  Set aside, `why` says so, and the lead stands
 * (app-kernel-segv-libnccl-teardown-bystander; alone, the crash leads as any native crash:
 * app-kernel-segv-libnccl-alone-near-miss).
 */
static void comm_crashes(struct att *a)
{
	for (size_t i = 0; i < a->nc; i++) {
		struct cand *c = &a->c[i];
		const struct cand *x = NULL;

		if (c->dead || !c->nev || c->lead != LEAD_RULE || !comm_crash_only(a, c))
			continue;
		if (!(x = teardown_lead(a, c, comm_crash_lead)))
			continue;
		c->dead = true;
		pm_att_why(a,
			   "%s: beside %s, which no crash in the communication library "
			   "raises and which the crash did not come before, it is a peer gone "
			   "mid-collective while the job was taken down: a consequence, not the "
			   "failure's origin.",
			   c->summary, x->summary);
	}
}

/*
 * A GPU that hung after the program's own fault on it: the kernel's weak hang lines (Xid 69
 * and 109, amdgpu's ring timeout: the driver's timeout on the work the fault left stuck)
 * beside its record of the program's fault on that GPU (Xid 13/31/43, amdgpu's page fault)
 * on the same node, not after it and within two minutes, for the same process where both
 * name one.  The hang is that fault's consequence: it leads nothing, and the program's fault
 * is left to lead.  A hang line with no such fault before it keeps its weak lead.  Then the
 * set-up failures reported after the job's progress began (setup_after_progress).
 */
void pm_att_phase_consequence(struct att *a)
{
	for (size_t i = 0; i < a->nc; i++) {
		struct cand *h = &a->c[i], *f = NULL;

		if (h->dead || !h->node[0] || !h->nev || h->lead != LEAD_RULE ||
		    h->strength != PM_WEAK || strcmp(h->cls, "gpu_hardware") ||
		    strcmp(h->sub, "other"))
			continue;
		for (size_t j = 0; j < a->nc && !f; j++) {
			struct cand *c = &a->c[j];
			if (c->dead || c->lead != LEAD_RULE || strcmp(c->node, h->node) ||
			    strcmp(c->cls, "application") || strcmp(c->sub, "cuda_fault"))
				continue;
			size_t m = 0;
			while (m < h->nev && fault_before(a, c, &a->ev->obs[h->ev[m]]))
				m++;
			if (m == h->nev)
				f = c;
		}
		if (!f)
			continue;
		h->dead = true;
		pm_att_why(a,
			   "%s: the GPU hung after the program's own fault on it (%s), a "
			   "consequence of that fault, not a hardware lead.",
			   h->summary, f->summary);
	}
	teardown_faults(a);
	launch_gainsaid(a);
	comm_crashes(a);
	setup_beside_transport(a);
	setup_after_progress(a);
}

static bool guessed(const struct att *a, size_t o)
{
	return a->guessed && a->guessed[o];
}

/* A confirmation of the same class on the same node corroborates a candidate. */
/* A fact NAME of FILE (GPU, or -1 for the node's), its value in *V.  I: where to go on. */
static bool file_fact(const struct att *a, uint32_t file, int gpu, const char *name, size_t *i,
		      double *v)
{
	for (; *i < a->ev->nfacts; (*i)++) {
		const struct pm_fact *f = &a->ev->facts[*i];
		if (f->file == file && f->gpu == gpu && !strcmp(f->name, name)) {
			*v = f->value;
			(*i)++;
			return true;
		}
	}
	return false;
}

/* Whether every compute process nvidia-smi lists on O's GPU is one of the job's task pids.  A
 * GPU that --query-compute-apps names by its bus id alone (no index) is told by that.  A pid
 * that is none of them is not shown to be outside the job: the tasks' children (the python
 * that `bash -c` starts, torchrun's workers, mpirun's ranks, a DataLoader's workers) are none
 * of the task pids, and nothing nvidia-smi gives (pid, type, a name the user chooses, memory;
 * no user) nor the plugin's records (the tasks' own pids, no child's, no uid) tells such a
 * child from another job's process. */
static bool listed_pids_own(const struct att *a, const struct pm_obs *o)
{
	size_t i = 0;
	double v;
	int own = 0, n = 0;

	while (file_fact(a, o->file, o->gpu, "gpu.compute_pid", &i, &v)) {
		const struct pm_fact *f = &a->ev->facts[i - 1];
		if (o->gpu < 0 && (!o->pci || !f->pci || strcmp(o->pci, f->pci)))
			continue;
		n++;
		own += pm_att_pid_link(a, o->node, (int)v) > 0;
	}
	return n && own == n;
}

/* Whether the line RAW (a rank's out-of-memory report) names PID as a process holding
 * memory on its GPU: PyTorch's "Process 73310 has 37.72 GiB memory in use". */
static bool names_holder(const char *raw, int pid)
{
	for (const char *p = raw; p && (p = strstr(p, "Process ")); p++) {
		char *e;
		long v = strtol(p + 8, &e, 10);
		if (e > p + 8 && v == pid && !strncmp(e, " has ", 5))
			return true;
	}
	return false;
}

/*
 * Whether the GPU the snapshot O shows held is shown to be the one C's failing rank used: +1
 * it is, -1 it is shown to be another, 0 unknown.  The ties, as the evidence gives them: the
 * rank's own report names a process nvidia-smi lists on that GPU (PyTorch's "Process N has
 * ... memory in use"); a bus id of C's origin lines; the failing ranks' GPU lists in the
 * plugin's records (the node's indexes, SLURM_STEP_GPUS: by index or Minor Number, not a
 * CUDA_VISIBLE_DEVICES list, which a cgroup renumbers from 0); a snapshot that shows one GPU
 * (the node's only one, or the cgroup's view of the rank's own).  A failure at launch (a
 * device busy) reads a GPU the job held on the node as the one it was refused: the job's tasks
 * list it, or the job holds as many GPUs there as the snapshot shows.  The GPU index a rank's
 * message gives (PyTorch's "GPU 0") is CUDA's, counted among the GPUs the rank sees: no tie.
 */
static int failing_gpu(const struct att *a, const struct cand *c, const struct pm_obs *o)
{
	const struct pm_evidence *ev = a->ev;
	int idx = obs_gpu_index(a, o), minor = -1;
	size_t known = 0;
	double shown = 0;
	size_t fi = 0;

	for (size_t i = 0; i < ev->nfacts; i++) {
		const struct pm_fact *f = &ev->facts[i];
		if (f->file == o->file && f->gpu == o->gpu && o->gpu >= 0 && f->minor >= 0) {
			minor = f->minor;
			break;
		}
	}
	for (size_t k = 0; k < c->nev && o->gpu >= 0; k++) {
		const struct pm_obs *p = &ev->obs[c->ev[k]];
		double v;
		size_t pi = 0;
		if (R(a, c->ev[k])->role != PM_ROLE_ORIGIN || !p->raw)
			continue;
		while (file_fact(a, o->file, o->gpu, "gpu.compute_pid", &pi, &v))
			if (names_holder(p->raw, (int)v))
				return 1;
	}
	for (size_t k = 0; k < c->nev; k++) {
		const struct pm_obs *p = &ev->obs[c->ev[k]];
		if (R(a, c->ev[k])->role == PM_ROLE_ORIGIN && p->pci && o->pci && p->node &&
		    !strcmp(p->node, o->node))
			return pm_att_pci_eq(p->pci, o->pci) ? 1 : -1;
	}
	/* the failing ranks' tasks there (every task there when C names no rank) */
	for (size_t i = 0; i < ev->ntasks && idx >= 0; i++) {
		const struct pm_task *t = &ev->tasks[i];
		bool failing = !c->nranks;
		for (size_t r = 0; r < c->nranks && !failing; r++)
			failing = t->rank == c->ranks[r];
		if (!failing || !t->node || strcmp(t->node, o->node))
			continue;
		if (!t->gpus || !t->gpus[0] || t->gpus_relative ||
		    t->gpus[strspn(t->gpus, "0123456789,")])
			return 0; /* a failing rank whose GPUs are not known */
		if (pm_att_gpus_has(t->gpus, idx) ||
		    (minor >= 0 && pm_att_gpus_has(t->gpus, minor)))
			return 1;
		known++;
	}
	if (known && (!c->nranks || known >= c->nranks))
		return -1; /* every failing rank there lists its GPUs, none this one */
	file_fact(a, o->file, -1, "node.gpu_count", &fi, &shown);
	if (shown == 1)
		return 1;
	if (c->launch && ((idx >= 0 && task_holds(a, o->node, idx)) ||
			  (minor >= 0 && task_holds(a, o->node, minor)) ||
			  (shown > 0 && ev->job.gpus_per_node >= (int)shown)))
		return 1;
	return 0;
}

/* How long after the job's end a snapshot with no collector's time on its node (gathered by
 * hand) is still read as taken at the job's epilog: KillWait's default (30 s), then
 * UnkillableStepTimeout's (60 s), after which slurmd gives up on what is left and drains the
 * node, then the collector's default deadline (30 s).  slurmd runs the epilog once the job's
 * processes are gone and gives the node to the next job only once the epilog ends; Slurm's own
 * limit on the epilog, PrologEpilogTimeout, waits indefinitely by default and bounds nothing.
 * A snapshot dated later may list a later job's processes. */
#define AFTER_END_S 120.0

/* The collector's deadline at most (postmortem-epilog(8), `deadline:`, at most 1 h): the span
 * of a collector's run whose manifest gives no end. */
#define COLLECT_MAX_S 3600.0

/* Whether the snapshot dated ST on NODE is shown to be taken once the job's own processes
 * there were gone: at or after that node's collector began (the epilog, which slurmd starts
 * once the step's processes are reaped), or TEARDOWN_S after the job's end.  That every task
 * of the job there exited (the plugin's exit records) shows only the task pids gone, not the
 * processes they started (the python `bash -c` runs, torchrun's workers), which may still be
 * ending (res-gpu-held-oom-child-pid-teardown-near-miss). */
static bool after_teardown(const struct att *a, const char *node, double st)
{
	const struct pm_evidence *ev = a->ev;
	double tol = a->rs->skew_s;

	for (size_t i = 0; i < ev->ncollect; i++)
		if (ev->collect[i].node && !strcmp(ev->collect[i].node, node) &&
		    ev->collect[i].start > 0 && st + tol >= ev->collect[i].start)
			return true;
	return st >= ev->job.end + TEARDOWN_S;
}

/* How long a job may have run and still be read as failed at its launch, before it held a
 * GPU of its own: a start-up that fails does so within minutes of the job's start (a serving
 * engine's free-memory check, CUDA's device set-up), not hours into it. */
#define LAUNCH_EARLY_S 300.0

/*
 * Whether C, a launch failure (a rule's `launch`: a start-up check, a device set-up), came
 * while the job could hold no GPU of its own yet: the job's accounting gives its start and
 * end, at most LAUNCH_EARLY_S apart, and none of C's lines came after the job's progress
 * began.  A start-up failure hours into a job (a script that restarts its engine while the
 * first instance is still shutting down) is no launch of the job: the processes a snapshot
 * within its teardown lists may be its own (res-gpu-held-startup-late-restart-near-miss).
 */
static bool launched_early(struct att *a, const struct cand *c)
{
	const struct pm_evidence *ev = a->ev;

	return c->launch && ev->job.start > 0 && ev->job.end >= ev->job.start &&
	       ev->job.end - ev->job.start <= LAUNCH_EARLY_S && !pm_att_cand_after_progress(a, c);
}

/* Whether the bundles give NODE's collector's time. */
static bool has_collect(const struct att *a, const char *node)
{
	for (size_t i = 0; i < a->ev->ncollect; i++)
		if (a->ev->collect[i].node && !strcmp(a->ev->collect[i].node, node) &&
		    a->ev->collect[i].start > 0)
			return true;
	return false;
}

/* Whether the snapshot O dated ST, at or after the job's end, is still this job's evidence:
 * a member of its node's bundle is the collector's own, taken in the epilog (its Timestamp is
 * the node's local time, the manifest's run UTC: they are not compared); on a node whose
 * collector's time is known (a bundle's manifest), a snapshot gathered beside it must be
 * dated within one of the collector's runs there (its start to its end, or to its deadline's
 * cap where no end is given); elsewhere within AFTER_END_S of the job's end.  A snapshot taken
 * later lists what ran on the node later, another job's processes included
 * (res-gpu-held-oom-snapshot-hours-after-end-near-miss). */
static bool snapshot_of_job(const struct att *a, const struct pm_obs *o, double st)
{
	const struct pm_evidence *ev = a->ev;
	const struct pm_file *f = o->file < ev->nfiles ? &ev->files[o->file] : NULL;
	double tol = a->rs->skew_s;

	if (f && f->bundled)
		return true;
	for (size_t i = 0; i < ev->ncollect; i++) {
		double s = ev->collect[i].start, e = ev->collect[i].end;
		if (!ev->collect[i].node || strcmp(ev->collect[i].node, o->node) || s <= 0)
			continue;
		if (st + tol >= s && st - tol <= (e > 0 ? e : s + COLLECT_MAX_S))
			return true;
	}
	return !has_collect(a, o->node) && st <= ev->job.end + AFTER_END_S + tol;
}

/* Whether rule R reads one of the GPU's memory error counts or their marks, which add up
 * from the driver's load on (ECC error counts, remapped rows, a remap pending or failed,
 * retired pages pending): an error of any job since counts. */
static bool memory_error_reading(const struct pm_rule *r)
{
	static const char *const pre[] = {"gpu.ecc_", "gpu.remap_", "gpu.retired_pages"};

	for (size_t i = 0; r->has_cond && r->cond.fact && i < sizeof(pre) / sizeof(pre[0]); i++)
		if (!strncmp(r->cond.fact, pre[i], strlen(pre[i])))
			return true;
	return false;
}

/* See attribute.h.  A snapshot with no date, or a job with no end, keeps its reading, and so
 * does a state that is not a memory error's count or mark (a lost GPU, a missing one). */
double pm_att_late_snapshot(const struct att *a, const struct pm_obs *o)
{
	size_t fi = 0;
	double st = 0, end = a->ev->job.end;

	if (o->source != PM_SRC_GPU_STATE || !o->node || end <= 0 ||
	    !memory_error_reading(&a->rs->rules[o->rule]) ||
	    !file_fact(a, o->file, -1, "node.gpu_state_time", &fi, &st) || st <= 0 ||
	    st - a->rs->skew_s <= end || snapshot_of_job(a, o, st))
		return 0;
	return st;
}

/* R's `refines` names C's kind. */
static bool refines(const struct pm_rule *r, const struct cand *c)
{
	for (size_t i = 0; i < r->nrefines; i++)
		if (!strcmp(r->refines_cls[i], c->cls) && !strcmp(r->refines_sub[i], c->sub))
			return true;
	return false;
}

/*
 * A trusted confirmation that `refines` C's kind, read on C's own node (not a node the
 * folder's words guessed), gives C the confirmation's class and subclass: a GPU that failed
 * the job (busy or unavailable, out of memory) while the node's nvidia-smi lists a compute
 * process on it that is not the job's was held by something outside the job
 * (resource_limit/gpu_held).  A snapshot taken during the job lists the job's own processes:
 * it says so only for a job that failed at launch, before it held a GPU (C->launch), and a
 * snapshot dated before the job's end never does.  Otherwise the snapshot must be dated after
 * the job's teardown (after_teardown); a process that is none of the job's task pids is not
 * therefore outside the job (listed_pids_own).  A snapshot dated after the job's end must
 * still be the job's (snapshot_of_job: the collector's, or within AFTER_END_S of the end).  A
 * process of the job's own pids, or a GPU the plugin's records give to no task of the job
 * (another job's on a shared node), is no sign.
 */
static void refine(struct att *a, struct cand *c)
{
	bool noted = false;

	for (size_t k = 0; k < a->ev->nobs && c->node[0]; k++) {
		const struct pm_obs *o = &a->ev->obs[k];
		const struct pm_rule *r = R(a, k);
		char sum[PM_OBS_SUMMARY_MAX];
		size_t fi = 0;
		double st = 0, end = a->ev->job.end;
		int tie;

		if (!refines(r, c) || r->role != PM_ROLE_CONFIRMATION || !o->trusted ||
		    guessed(a, k) || !o->node || strcmp(o->node, c->node))
			continue;
		if (pm_att_other_gpu(a, o)) /* another job's GPU on a shared node */
			continue;
		/* a kernel line stamped before the job began tells of the node then, not now */
		if (o->source == PM_SRC_KERNEL_LOG && pm_att_obs_window(a, o, true) == WIN_BEFORE)
			continue;
		if ((o->gpu >= 0 || o->pci) && listed_pids_own(a, o))
			continue;
		file_fact(a, o->file, -1, "node.gpu_state_time", &fi, &st);
		if (st > 0 && end > 0 && st + a->rs->skew_s < end) {
			if (!noted)
				pm_att_why(a,
					   "nvidia-smi on %s was taken during the job: the processes "
					   "it lists may be the job's own, so %s/%s stands.",
					   c->node, c->cls, c->sub);
			noted = true;
			continue;
		}
		/* dated long after the job's end: a later job's processes, not this job's */
		if (st > 0 && end > 0 && !snapshot_of_job(a, o, st)) {
			if (!noted)
				pm_att_why(
					a,
					"nvidia-smi on %s was taken %.0f s after the job's end, "
					"%s: the process it lists may be a later job's, so %s/%s "
					"stands.",
					c->node, st - end,
					has_collect(a, o->node) ?
						"outside the run of the node's collector" :
						"past the job's epilog (KillWait, UnkillableStepTimeout "
						"and the collector's deadline by default)",
					c->cls, c->sub);
			noted = true;
			continue;
		}
		if (!c->launch && !(st > 0 && end > 0))
			continue;
		/* a node-wide line (the kernel module's, naming no GPU) needs no GPU tie */
		tie = o->gpu >= 0 || o->pci ? failing_gpu(a, c, o) : 1;
		if (tie <= 0) {
			char gpu[48];

			if (o->gpu >= 0)
				snprintf(gpu, sizeof(gpu), "GPU %d", o->gpu);
			else
				snprintf(gpu, sizeof(gpu), "the GPU at %s", o->pci ? o->pci : "?");
			if (!noted)
				pm_att_why(
					a,
					"nvidia-smi on %s lists a compute process on %s, "
					"but that GPU is %s: a process on another GPU of the node "
					"says nothing of the failing rank's, so %s/%s stands.",
					c->node, gpu,
					tie < 0 ? "not the failing rank's (the plugin's records "
						  "list its GPUs)" :
						  "not shown to be the failing rank's (neither its "
						  "report, a bus id, the plugin's GPU lists nor a "
						  "one-GPU view ties them)",
					c->cls, c->sub);
			noted = true;
			continue;
		}
		/* out of memory, or a start-up failure late in the job: a process listed in the
		 * job's teardown may be its own, ending */
		if (!launched_early(a, c) && !after_teardown(a, o->node, st)) {
			if (!noted)
				pm_att_why(a,
					   "nvidia-smi on %s was taken %.0f s after the job's end, "
					   "before its collector began: the process it lists may be "
					   "the job's own or a child of its tasks, still ending "
					   "(Slurm's KillWait, %.0f s by default), so %s/%s stands.",
					   c->node, st - end, TEARDOWN_S, c->cls, c->sub);
			noted = true;
			continue;
		}
		pm_att_why(a, "%s/%s on %s reads as %s/%s: %s.", c->cls, c->sub, c->node, r->cls,
			   r->subcls, pm_obs_summary(a->ev, o, sum));
		c->cls = r->cls;
		c->sub = r->subcls;
		c->hardware = r->hardware;
		c->refobs = k + 1;
		return;
	}
}

void pm_att_phase_confirm(struct att *a)
{
	struct pm_evidence *ev = a->ev;

	for (size_t i = 0; i < a->nc; i++) {
		struct cand *c = &a->c[i];
		enum pm_source first = ev->obs[c->ev[0]].source;

		if (!c->dead)
			refine(a, c);

		for (size_t k = 1; k < c->nev; k++)
			if (ev->obs[c->ev[k]].source != first && !guessed(a, c->ev[k]))
				c->corroborated = true;
		for (size_t k = 0; k < ev->nobs; k++) {
			const struct pm_obs *o = &ev->obs[k];
			const struct pm_rule *r = R(a, k);
			/* a node placed from the folder's words corroborates nothing */
			const char *on = guessed(a, k) ? NULL : o->node;
			if (r->role != PM_ROLE_CONFIRMATION || strcmp(r->cls, c->cls))
				continue;
			/* a state that reads a kind anew confirms only that reading: a GPU held by
			 * another, not the job's own running out of its memory */
			if (r->nrefines && strcmp(r->subcls, c->sub))
				continue;
			/* a process seen blocked (a stack dump) corroborates a hang, not a crash
			 * of another rank: the dumps of its peers, taken as they were torn down,
			 * would join them to its origin */
			if (pm_is_kind(r->cls, r->subcls, PM_K_HANG) &&
			    !pm_is_kind(c->cls, c->sub, PM_K_HANG))
				continue;
			if (c->node[0] && (!on || strcmp(on, c->node)))
				continue;
			if (o->source != first)
				c->corroborated = true;
			pm_att_cand_add(a, c, k);
		}
	}
}

/* ---- phase: leads when nothing better fits ---- */

static bool has_lead(const struct att *a)
{
	for (size_t i = 0; i < a->nc; i++)
		if (!a->c[i].dead && !a->c[i].fallback)
			return true;
	return false;
}

static int fallback_add(struct att *a, size_t i, const char *node, const char *note)
{
	const struct pm_obs *o = &a->ev->obs[i];
	const struct pm_rule *r = R(a, i);
	struct cand *c = pm_att_cand_get(a, r->cls, r->subcls, node, LEAD_RULE);

	if (!c)
		return 0;
	if (!c->nev) {
		c->fallback = true;
		c->untrusted = !o->trusted;
		snprintf(c->note, sizeof(c->note), "%s", note);
	}
	if (o->trusted)
		c->untrusted = false;
	return c->nev < 16 ? pm_att_cand_add(a, c, i) : 0;
}

/* Transport failures (network_fabric cascades: retries exceeded towards a peer) of no node
 * (a hand-gathered file whose lines name none): the fabric they name is the lead, on no node,
 * since neither the reporter nor the peer is known. */
static int anon_reporter(struct att *a)
{
	for (size_t k = 0; k < a->ev->nobs; k++) {
		size_t i = a->order[k];
		const struct pm_rule *r = R(a, i);
		if (r->role == PM_ROLE_CASCADE && !strcmp(r->cls, "network_fabric") &&
		    !a->ev->obs[i].node &&
		    fallback_add(a, i, NULL,
				 "transport failures are reported and no line names the node that "
				 "reported them, nor a peer's node: the fabric is the suspect, on no "
				 "node") < 0)
			return -1;
	}
	return 0;
}

/* The length of a peer's address, without its port: up to '<' (NCCL's "10.0.0.7<41233>",
 * "fd00:20:1::19<45112>"), up to ']' of a bracketed IPv6 ("[fd00::19]:45112"), up to the
 * one ':' of host:port ("10.0.0.7:41233"); a bare IPv6 address, whose colons are its own,
 * whole. */
static size_t peer_addr_len(const char *x)
{
	const char *lt = strchr(x, '<'), *c = strchr(x, ':');

	if (lt)
		return (size_t)(lt - x);
	if (*x == '[' && strchr(x, ']'))
		return (size_t)(strchr(x, ']') - x);
	if (c && !strchr(c + 1, ':'))
		return (size_t)(c - x);
	return strlen(x);
}

/* Whether two peers a transport line names are one host: the address before its port. */
static bool same_peer(const char *x, const char *y)
{
	size_t lx = peer_addr_len(x), ly = peer_addr_len(y);

	return lx == ly && !strncmp(x, y, lx);
}

/* Whether the job's output on REP holds an event its own adapter raised about its own port
 * or device (an `own_port` rule: NCCL's "NET/IB : mlx5_2:1 Got async event : port error").
 * Beside transport failures towards one peer that REP alone reports, it tells the two sides
 * apart: REP's link failed (net-ib-lone-reporter-own-port-event; without the event neither
 * side is named: net-ib-lone-reporter-own-port-event-absent-near-miss). */
static bool own_port_event(const struct att *a, const char *rep)
{
	for (size_t i = 0; i < a->ev->nobs; i++) {
		const struct pm_obs *o = &a->ev->obs[i];
		if (R(a, i)->own_port && o->node && pm_att_job_node(a, o->node) &&
		    !strcmp(pm_att_job_node(a, o->node), pm_att_job_node(a, rep)))
			return true;
	}
	return false;
}

/* Transport failures (a hardware class in a cascade: retries exhausted, not the flush
 * errors that follow another failure) reported by one node alone, with no peer votes:
 * that reporter's own link is the suspect.  Unless every one of them names the same one
 * peer: then the reporter's link, the peer's link and the peer's process having gone (a
 * queue pair that vanished with its process is not answered either) fit alike, and one
 * node's word against one peer blames neither; the fabric leads on no node (R-NCCL-1
 * sends one reporter to its own link only when it names many peers). */
static int single_reporter(struct att *a)
{
	const char *rep = NULL, *peer = NULL;
	bool anon = false, unnamed = false, many = false;
	char note[200];

	for (size_t i = 0; i < a->ev->nobs; i++) {
		const struct pm_obs *o = &a->ev->obs[i];
		const struct pm_rule *r = R(a, i);
		if (r->role != PM_ROLE_CASCADE || !r->hardware)
			continue;
		if (!o->node) {
			anon |= !strcmp(r->cls, "network_fabric");
			continue;
		}
		if (!pm_att_job_node(a, o->node))
			continue;
		if (rep && strcmp(rep, o->node))
			return 0;
		rep = o->node;
		if (!o->peer)
			unnamed = true;
		else if (peer && !same_peer(peer, o->peer))
			many = true;
		else
			peer = o->peer;
	}
	if (!rep)
		return anon ? anon_reporter(a) : 0;
	if (peer && !unnamed && !many && own_port_event(a, rep)) {
		/* its own adapter reported its port or device failing: the reporter's side */
		snprintf(note, sizeof(note),
			 "only %s reports transport failures, all towards one peer (%.*s), and its "
			 "own adapter reported its port or device failing",
			 rep, (int)peer_addr_len(peer), peer);
	} else if (peer && !unnamed && !many) {
		snprintf(note, sizeof(note),
			 "only %s reports transport failures, all towards one peer (%.*s): its "
			 "link, the peer's, or the peer's process gone cannot be told apart",
			 rep, (int)peer_addr_len(peer), peer);
		rep = NULL;
	} else
		snprintf(note, sizeof(note),
			 "only %s reports transport failures, no other node votes, and its own "
			 "port was not seen",
			 rep);
	for (size_t k = 0; k < a->ev->nobs; k++) {
		size_t i = a->order[k];
		const struct pm_rule *r = R(a, i);
		if (r->role == PM_ROLE_CASCADE && r->hardware &&
		    (!a->ev->obs[i].node || pm_att_job_node(a, a->ev->obs[i].node)) &&
		    fallback_add(a, i, rep, note) < 0)
			return -1;
	}
	/* one process's report: where it was seen, not where it happened */
	pm_att_why_one_reporter(a);
	/* the one reporter's candidates made just now, of no node: none is placed on a host */
	for (size_t i = 0; !rep && i < a->ev->nobs; i++) {
		const struct pm_rule *r = R(a, i);
		struct cand *c;
		if (r->role != PM_ROLE_CASCADE || !r->hardware || !a->ev->obs[i].node ||
		    !pm_att_job_node(a, a->ev->obs[i].node) ||
		    !(c = pm_att_cand_get(a, r->cls, r->subcls, NULL, LEAD_RULE)) || !c->fallback)
			continue;
		c->nowhere = true;
		pm_att_cand_ranks_clear(c);
	}
	return 0;
}

/*
 * With no other candidate at all, a kill or a teardown whose rule names its usual cause (a
 * SIGKILL reported with nothing else, whose usual sender is the OOM killer; a DataLoader
 * worker killed): that cause, unconfirmed.  A teardown of the collective class (a peer's
 * failure seen from here) names none.  Below every other fallback.
 */
static int teardown_fallback(struct att *a)
{
	struct cand *c;
	bool nf;

	for (size_t i = 0; i < a->nc; i++)
		if (!a->c[i].dead)
			return 0;
	for (size_t k = 0; k < a->ev->nobs; k++) {
		size_t i = a->order[k];
		const struct pm_obs *o = &a->ev->obs[i];
		const struct pm_rule *r = R(a, i);
		if (r->role != PM_ROLE_TEARDOWN || pm_is_kind(r->cls, NULL, PM_K_TIMEOUTS))
			continue;
		if ((o->trusted ? pm_att_obs_window(a, o, true) == WIN_OUT :
				  o->source != PM_SRC_APP_LOG) ||
		    pm_att_summary_unnamed(a, o))
			continue;
		/* slurmstepd's "CANCELLED ... DUE TO NODE FAILURE" is printed by a node that
		 * survived (a step's node, the batch host): the node that failed printed
		 * nothing, and the line names none (slurm.md; Slurm's record, srun's "Node
		 * failure on X" do, sched_node_fail) */
		nf = pm_is_kind(r->cls, r->subcls, PM_K_NODE_FAIL);
		if (fallback_add(a, i, nf ? NULL : o->node,
				 nf ? "Slurm says a node of the job failed; the node that printed it "
				      "survived, and nothing says which node failed" :
				      "a process was killed and nothing else says why; this class "
				      "is the usual reason, unconfirmed") < 0)
			return -1;
		if (nf && (c = pm_att_cand_get(a, r->cls, r->subcls, NULL, LEAD_RULE)) &&
		    c->fallback) {
			c->nowhere = true;
			pm_att_cand_ranks_clear(c);
			pm_att_why_one_reporter(a);
		}
	}
	return 0;
}

/*
 * Never unknown while a failure symptom fired: with no candidate that may lead, every
 * confirmation and every hardware symptom seen only in the job's own output becomes a
 * fallback candidate (hypothesis, phase 10), and so does a lone reporter of transport
 * failures.  Ordered like the others, below every candidate that may lead.
 */
/* Lines that announce one process's rank, printed once by each process as it sets up (a
 * context rule of a cause class that captures the rank: Lightning's "GLOBAL_RANK: 1,
 * MEMBER: 2/8"). The same rank announced twice in one file, before any progress, is two
 * processes that took the same rank: the process group can never fill, and the job hangs
 * at its set-up. A candidate of the rule's class, job-wide, naming no rank: every process
 * waited alike. Two copies of one log are two files, not a duplicate. */
static int dup_ranks(struct att *a)
{
	const struct pm_evidence *ev = a->ev;
	struct cand *c = NULL;
	int dup = -1;

	if (a->any_progress)
		return 0;
	for (size_t i = 0; i < ev->nobs && dup < 0; i++) {
		const struct pm_obs *o = &ev->obs[i];
		const struct pm_rule *r = R(a, i);
		unsigned n = 0;

		/* a dump's head is printed once per thread, not once per process */
		if (r->role != PM_ROLE_CONTEXT || o->rank < 0 || o->source != PM_SRC_APP_LOG ||
		    pm_is_kind(r->cls, NULL, PM_K_NONE) || pm_is_kind(r->cls, r->subcls, PM_K_HANG))
			continue;
		for (size_t k = 0; k < ev->nobs; k++)
			if (ev->obs[k].rule == o->rule && ev->obs[k].rank == o->rank &&
			    ev->obs[k].file == o->file)
				n += 1 + ev->obs[k].repeats;
		if (n >= 2)
			dup = (int)i;
	}
	if (dup < 0)
		return 0;
	c = pm_att_cand_get(a, R(a, (size_t)dup)->cls, R(a, (size_t)dup)->subcls, NULL, LEAD_RULE);
	if (!c)
		return 0;
	for (size_t k = 0; k < ev->nobs && c->nev < 8; k++)
		if (ev->obs[k].rule == ev->obs[dup].rule && pm_att_cand_add(a, c, k) < 0)
			return -1;
	pm_att_cand_ranks_clear(c);
	c->strength = PM_MEDIUM;
	c->sumobs = 0;
	snprintf(c->summary, sizeof(c->summary),
		 "rank %d was taken by more than one process: the job started its processes "
		 "twice over (tasks per node, or ranks numbered per node), and its process group "
		 "could not form",
		 ev->obs[dup].rank);
	pm_att_why(a,
		   "Rank %d was announced twice in one file before any progress: two processes "
		   "took the same rank.",
		   ev->obs[dup].rank);
	/* a time limit only ended the wait of a group that could never form */
	for (size_t i = 0; i < a->nc; i++)
		if (!a->c[i].dead && pm_is_kind(a->c[i].cls, a->c[i].sub, PM_K_TIME_LIMIT)) {
			a->c[i].dead = true;
			pm_att_why(a, "The time limit only ended that wait.");
		}
	return 0;
}

/* Whether the line OI, of a rule that captures `node`, named a host that the record, listing
 * the job's nodes, lacks (its name dropped in placement: att_ranks.c, own_node). */
static bool named_outside(const struct att *a, size_t oi)
{
	return a->outside && a->outside[oi] && R(a, oi)->cap[PM_CAP_NODE];
}

/* The stamp of a node-state paste's reason, scontrol's "Reason=Not responding
 * [slurm@2026-12-05T14:27:09]" (the controller's local time, zoneless, read as UTC, as the
 * record's times are before their zone is applied); 0 none. */
static double paste_reason_stamp(const char *raw)
{
	const char *r = raw ? strstr(raw, "Reason=") : NULL;

	for (const char *b = r ? strchr(r, '[') : NULL; b; b = strchr(b + 1, '[')) {
		const char *at = b + 1 + strcspn(b + 1, "@] \t");
		struct pm_in_stamp st;
		size_t n;
		if (*at != '@')
			continue;
		n = pm_in_iso(at + 1, strlen(at + 1), &st);
		if (n && at[1 + n] == ']' && !st.zone)
			return st.t;
	}
	return 0;
}

/* Whether the job's line OI, a paste of scontrol's node state (a rule that captures `node`),
 * gives its reason a stamp outside the job's time (review39 M1: a node's state of two weeks
 * later): the record's window, widened by the skew tolerance and job_window_grace_s; with no
 * record, the job's output's dated span widened by 14 hours more (its stamps' zone is the
 * job's, the reason's the controller's). */
static bool paste_out_of_time(const struct att *a, size_t oi)
{
	const struct pm_jobinfo *j = &a->ev->job;
	double t = R(a, oi)->cap[PM_CAP_NODE] ? paste_reason_stamp(a->ev->obs[oi].raw) : 0,
	       m = a->rs->skew_s + a->rs->grace_s;

	if (t <= 0)
		return false;
	if (j->start > 0 || j->end > 0) {
		t -= j->local_times ? j->local_zone : 0;
		return (j->start > 0 && t < j->start - m) || (j->end > 0 && t > j->end + m);
	}
	m += 14 * 3600;
	return (a->out_t0 > 0 && t < a->out_t0 - m) || (a->out_t1 > 0 && t > a->out_t1 + m);
}

/* Whether the job's line OI, a paste of scontrol's node state ("NodeName=X ...", a rule that
 * captures `node`), names a node that srun's task lines, with no record of the job's nodes,
 * do not: srun reports the step's teardown (a host's tasks ended by Slurm), so its lines name
 * every node that ran a task of it (review39 M2; as prefix_gainsaid reads them, att_place.c).
 * srun's own "Node failure on X" is not asked: srun reports no task of the node it lost. */
static bool paste_off_srun(const struct att *a, size_t oi)
{
	const char *node = a->ev->obs[oi].node, *raw = a->ev->obs[oi].raw;
	bool ended = false, any = false;

	if (a->ev->job.nnodes || a->ev->job.het_partial || !node || !R(a, oi)->cap[PM_CAP_NODE] ||
	    !raw || !strstr(raw, "NodeName="))
		return false;
	for (size_t i = 0; i < a->nhosts; i++) {
		if (!a->hosts[i].srun)
			continue;
		any = true;
		ended |= a->hosts[i].ended;
		if (setup_host_eq(a->hosts[i].name, node))
			return false;
	}
	for (size_t i = 0; i < a->ev->ntasks; i++)
		if (a->ev->tasks[i].node && setup_host_eq(a->ev->tasks[i].node, node))
			return false;
	return any && ended;
}

int pm_att_phase_fallback(struct att *a)
{
	bool timeouts = false, pasted_said = false;

	for (size_t i = 0; i < a->ev->nobs && !timeouts; i++)
		timeouts = R(a, i)->role == PM_ROLE_CASCADE &&
			   (a->ev->obs[i].seq >= 0 ||
			    pm_is_kind(R(a, i)->cls, R(a, i)->subcls, PM_K_TIMEOUTS));
	if (dup_ranks(a) < 0)
		return -1;
	if (has_lead(a))
		return 0;
	for (size_t k = 0; k < a->ev->nobs; k++) {
		size_t i = a->order[k];
		const struct pm_obs *o = &a->ev->obs[i];
		const struct pm_rule *r = R(a, i);
		if (r->role != PM_ROLE_CONFIRMATION &&
		    !(r->role == PM_ROLE_ORIGIN && ((r->hardware && !o->trusted) || o->daemon)))
			continue;
		/* a generic reading set aside (att_yield.c): another rule reads its line; a line
		 * read as no end of this job's (phase_outcome) */
		if ((a->yielded && a->yielded[i]) || pm_att_end_aside(a, i) ||
		    pm_att_pending_aside(a, i))
			continue;
		if ((o->daemon && pm_att_daemon_job(a, o) < 0) || pm_att_other_node(a, o) ||
		    (r->hardware && pm_att_other_gpu(a, o)) || pm_att_boot_link(a, i))
			continue; /* another job's daemon line, another node's or GPU's line */
		/* the job's text about a node it names itself (a paste of scontrol's node state,
		 * a platform's or a launcher's word that a node was lost) where the record lists
		 * the job's nodes and that node is none of them: another node's state, no lead
		 * of this job's, on no node (slurm-node-reason-paste-other-node) */
		if (!o->trusted && named_outside(a, i))
			continue;
		/* such a paste stamped outside the job's time, or naming a node srun's lines
		 * place no task on (review39 M1, M2) */
		if (!o->trusted && o->source == PM_SRC_APP_LOG &&
		    (paste_out_of_time(a, i) || paste_off_srun(a, i))) {
			if (!pasted_said) {
				pm_att_why(a,
					   "%s names %s in the job's output, %s: another time's or "
					   "another node's state, no lead of this job's.",
					   r->id, o->node ? o->node : "a node",
					   paste_out_of_time(a, i) ?
						   "its reason stamped outside the job's time" :
						   "a node srun reports no task of the job on");
				pasted_said = true;
			}
			continue;
		}
		/* the step's plain cancel line after a task failed of itself (phase_outcome) */
		if (a->task_failed && r->outcome && !strcmp(r->outcome, "CANCELLED"))
			continue;
		/* a worker torchrun's summary lists as failed after its root cause: a bystander */
		if (pm_att_summary_unnamed(a, o))
			continue;
		/* an external end Slurm's record contradicts (a plain cancel line in a job the
		 * record says FAILED): a consequence, as for the origins (phase_cands) */
		if (r->outcome && pm_class_external(r->cls) && a->outcome &&
		    pm_att_outcome_from_state(a->ev->job.state) && strcmp(r->outcome, a->outcome))
			continue;
		/* processes seen blocked (stack dumps) beside collective timeouts: the timeouts
		 * tell that story, with their sequence numbers (phase 9) */
		if (pm_is_kind(r->cls, r->subcls, PM_K_HANG) && timeouts)
			continue;
		/* the job's output, or a trusted source within the job: not a line any local
		 * user can forge into a system log (syslog lines not tagged kernel:) */
		if (o->trusted ? pm_att_obs_window(a, o, true) == WIN_OUT :
				 o->source != PM_SRC_APP_LOG)
			continue;
		if (fallback_add(a, i, o->node,
				 o->trusted ?
					 "a confirming symptom with no origin event beside it" :
				 o->daemon ?
					 "it is seen only in a system log's program lines, which "
					 "any local user can write, and they name no job of "
					 "theirs" :
					 "it is seen only in the job's own output, which its "
					 "user can write: no kernel log or GPU state shows it") < 0)
			return -1;
	}
	if (single_reporter(a) < 0)
		return -1;
	return teardown_fallback(a);
}
