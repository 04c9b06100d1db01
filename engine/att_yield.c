/*
 * att_yield.c - a generic rule's reading set aside where a specific rule says what the same
 * failure is (engine/ATTRIBUTION.md phase 7).
 *
 * A generic rule (`generic: true`: py-exception, any exception's last line) names only the
 * kind of a line.  Where it meets a specific reading of the same failure, or a report that
 * the exception was not fatal:
 *   - the same line, read by both (PyTorch 2.0's "RuntimeError: The server socket has failed
 *     to listen ..." is a port in use, and a RuntimeError);
 *   - one chained traceback: exceptions joined by Python's "During handling of the above
 *     exception, another exception occurred:" or "The above exception was the direct cause of
 *     the following exception:", or TorchScript's "Traceback of TorchScript" under its
 *     wrapper (a rule with `chain: true` reads those lines).  A CUDA OOM and the
 *     AttributeError its handler then raised are one failure, told twice;
 *   - a generic head with `chain: true` whose reason is on the next lines (GROMACS' "Fatal
 *     error:" alone on its line, the JVM's "Exception in thread", libstdc++'s "terminate
 *     called after throwing"), joined to the failure after it: a specific origin there, or
 *     a peer's failure this rank noticed (a cascade), says what the head was;
 *   - Python's "Exception ignored in: ..." before a traceback (a rule with `nonfatal: true`):
 *     a destructor's exception at shutdown did not end the program; a Java logger's record
 *     "... will retry" before the throwable it logged under it, the line right after it
 *     (`attached`, right_after).
 * The generic reading is set aside (pm_att_phase_origins skips it, and it counts as no error
 * for the outcome) and the specific one stands (in a chain, by the direction rule below).
 * Where nothing specific is there, the generic readings stay as they were.
 */
#include <stdlib.h>
#include <string.h>

#include "attribute.h"

static int cmpline(const void *x, const void *y, void *arg)
{
	const struct pm_evidence *ev = arg;
	const struct pm_obs *a = &ev->obs[*(const size_t *)x], *b = &ev->obs[*(const size_t *)y];

	if (a->file != b->file)
		return a->file < b->file ? -1 : 1;
	return a->offset < b->offset ? -1 : a->offset > b->offset;
}

/* One line of a file and its readings, IX[s, e) */
struct line {
	size_t s, e;
	const struct pm_rule *spec; /* the line's first specific reading */
	/* along a chain: a specific reading before the line, and a specific origin after it */
	const struct pm_rule *before, *after;
	const struct pm_rule *nonfatal; /* a reading that says the next failure was not fatal */
	bool gen, chain, handler;
};

/* The nearest line before (DIR -1) or after (+1) line K of its file and rank that holds a
 * failure's reading, at most 64 such lines away; (size_t)-1 when none. */
static size_t neighbour(const struct att *a, const struct line *l, size_t nl, const size_t *ix,
			size_t k, int dir)
{
	const struct pm_obs *o = &a->ev->obs[ix[l[k].s]];

	for (size_t i = k, hops = 0; hops < 64; hops++) {
		if ((dir < 0 && i == 0) || (dir > 0 && i + 1 >= nl))
			break;
		i = dir < 0 ? i - 1 : i + 1;
		const struct pm_obs *p = &a->ev->obs[ix[l[i].s]];
		if (p->file != o->file)
			break;
		if (p->rank == o->rank && (l[i].gen || l[i].spec))
			return i;
	}
	return (size_t)-1;
}

/* Whether a generic line before a chain yields to SP, the specific reading of the failure
 * line Q after it: a specific origin always; a cascade (a peer's failure this rank noticed)
 * only where the generic line P is the chain's own head, whose reason is the next failure
 * line, and only where Q is part of the same report: a line with no time of its own (the
 * "Caused by:" under the JVM's head, libstdc++'s "what():"), or one stamped within a second
 * of a stamped head (a collector's time on every line).  A logger's stamped record after an
 * unstamped head is a later event of its own (a shutdown's closed socket after the program's
 * own exception).  Not a teardown: srun's "task 0: Exited with exit code 1" and Slurm's step
 * teardown are teardowns, and are the next failure line after every head whose cause no rule
 * reads; nor a cascade after a context chain line (a peer's error raised while a KeyError was
 * handled leaves the KeyError the failure). */
static bool gives_way(const struct pm_rule *sp, bool head, const struct pm_obs *p,
		      const struct pm_obs *q)
{
	if (!sp)
		return false;
	if (sp->role == PM_ROLE_ORIGIN)
		return true;
	if (!head || sp->role != PM_ROLE_CASCADE)
		return false;
	return !q->has_time || (p->has_time && q->event_time >= p->event_time &&
				q->event_time - p->event_time <= 1.0);
}

/* Whether Q, the next failure line after K, is the line right after it (an `attached`
 * nonfatal rule: a logger's record "... will retry" and the throwable it printed under it;
 * an exception further on, the JVM's uncaught "Exception in thread" after a retry that went
 * well, is the job's end).  By the file's offsets, which the scan takes as the line was
 * written: a cleaned line (colour codes, a carriage return) is shorter than its span. */
static bool right_after(const struct pm_obs *k, const struct pm_obs *q)
{
	return k->next && q->offset == k->next;
}

/* Set aside the generic readings of line LN, for SP's; with YIELD_IGNORED its confirmations
 * of a peer's loss too (a peer's loss that Python printed as not fatal confirms nothing of
 * the job's end; a specific reading there, a CUDA error a destructor met, stands). */
static void yield_line(struct att *a, const struct line *ln, const size_t *ix,
		       const struct pm_rule *sp, enum yield_kind kind)
{
	for (size_t k = ln->s; k < ln->e; k++) {
		const struct pm_rule *r = R(a, ix[k]);
		if (!pm_rule_generic(r) &&
		    !(kind == YIELD_IGNORED && r->role == PM_ROLE_CONFIRMATION &&
		      !strcmp(r->cls, "communication_unattributed")))
			continue;
		a->yielded[ix[k]] = true;
		if (!a->yield_gen) {
			a->yield_gen = R(a, ix[k])->id;
			a->yield_spec = sp->id;
			a->yield_kind = kind;
		}
	}
}

int pm_att_yield(struct att *a)
{
	const struct pm_evidence *ev = a->ev;
	size_t *ix, *pq, n = ev->nobs, nl = 0, np = 0;
	struct line *l;
	bool any = false;

	for (size_t i = 0; i < n && !any; i++)
		any = pm_rule_generic(R(a, i));
	if (!any)
		return 0;
	a->yielded = calloc(n, sizeof(*a->yielded));
	ix = malloc(n * sizeof(*ix));
	l = calloc(n, sizeof(*l));
	pq = malloc(4 * n * sizeof(*pq));
	if (!a->yielded || !ix || !l || !pq) {
		free(ix);
		free(l);
		free(pq);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		ix[i] = i;
	pm_sort_r(ix, n, sizeof(*ix), cmpline, (void *)ev);
	for (size_t s = 0, e; s < n; s = e) {
		struct line *ln = &l[nl];

		ln->s = s;
		nl++;
		for (e = s; e < n && !cmpline(&ix[s], &ix[e], (void *)ev); e++) {
			const struct pm_rule *r = R(a, ix[e]);
			ln->gen |= pm_rule_generic(r);
			ln->chain |= r->chain;
			ln->handler |= r->handler;
			if (!ln->nonfatal && r->nonfatal)
				ln->nonfatal = r;
			if (!ln->spec && pm_rule_speaks(r))
				ln->spec = r;
		}
		ln->e = e;
		/* one line read both ways */
		if (ln->spec && ln->gen)
			yield_line(a, ln, ix, ln->spec, YIELD_LINE);
	}
	/*
	 * One chained traceback, the failure lines P and Q on either side of each chain line.
	 * A generic exception after the chain line yields to any specific reading before it
	 * (a wrapper raised from a store error, a handler's own error after an OOM: the same
	 * failure, or its consequence).  A generic exception before it yields only to a
	 * specific origin after it (TorchScript's wrapper over the OOM it reports): an
	 * exception raised while handling a KeyError, a peer's collective error say, does not
	 * make the KeyError a consequence.  A generic head of its own chain (the JVM's
	 * "Exception in thread "main" X", libstdc++'s "terminate called after throwing ...")
	 * names no reason of its own: its cause is the next failure line, and a peer's failure
	 * read there (a cascade: NCCL's remote error, a reset socket, a watchdog's timeout)
	 * makes the head that rank's report of it, not the program's error (gives_way).
	 * Forward in file order, then backward, so that a chain of three passes what it knows
	 * along.
	 */
	for (size_t k = 0; k < nl; k++) {
		size_t p, q;

		if (!l[k].chain)
			continue;
		/* a generic head whose reason is on the lines after it ("Fatal error:" alone) is
		 * the failure before its own chain */
		p = l[k].gen || l[k].spec ? k : neighbour(a, l, nl, ix, k, -1);
		if (p == (size_t)-1 || (q = neighbour(a, l, nl, ix, k, 1)) == (size_t)-1)
			continue;
		pq[4 * np] = p;
		pq[4 * np + 1] = q;
		pq[4 * np + 2] = p == k;
		pq[4 * np + 3] = l[k].handler;
		np++;
	}
	for (size_t m = 0; m < np; m++) {
		struct line *p = &l[pq[4 * m]], *q = &l[pq[4 * m + 1]];
		if (!q->before)
			q->before = p->spec ? p->spec : p->before;
	}
	for (size_t m = np; m-- > 0;) {
		struct line *p = &l[pq[4 * m]], *q = &l[pq[4 * m + 1]];
		const struct pm_rule *sp = q->spec;
		bool way = gives_way(sp, pq[4 * m + 2], &ev->obs[ix[p->s]], &ev->obs[ix[q->s]]);
		/*
		 * Python's "During handling of the above exception, another exception occurred:"
		 * (a `handler` line) after a generic exception and before a resource the handler
		 * ran out of (a storage or resource_limit origin: a disk full, a quota, memory).
		 * A handler that translates the first error composes its own message, which a
		 * specific rule may read (transformers' KeyError re-raised as a ValueError that
		 * names the too-old release: the first yields, as before); one that runs out of a
		 * resource fails at work of its own, as often after an error the program would not
		 * have survived (a disk full while it writes an error report after a KeyError) as
		 * on a path the first only chose (a cache miss's KeyError, then a disk full as it
		 * fills the cache).  Neither yields: two explanations the traceback cannot order
		 * (tied, att_decide.c).  A "direct cause" line names the first as the cause.
		 */
		if (way && pq[4 * m + 3] && p->gen && !p->spec && sp->role == PM_ROLE_ORIGIN &&
		    !pq[4 * m + 2] &&
		    (!strcmp(sp->cls, "storage") || !strcmp(sp->cls, "resource_limit"))) {
			size_t *h = realloc(a->handled, (a->nhandled + 1) * 2 * sizeof(*h));
			if (!h) { /* the tie would be lost: ENOMEM, as every allocation here */
				free(ix);
				free(l);
				free(pq);
				return -1;
			}
			a->handled = h;
			h[2 * a->nhandled] = ix[p->s];
			h[2 * a->nhandled + 1] = ix[q->s];
			a->nhandled++;
			way = false;
		}
		if (!p->after)
			p->after = way ? sp : q->after;
	}
	for (size_t k = 0; k < nl; k++)
		if (l[k].gen && !l[k].spec && (l[k].before || l[k].after))
			yield_line(a, &l[k], ix, l[k].before ? l[k].before : l[k].after,
				   YIELD_CHAIN);
	/* an exception printed as not fatal ("Exception ignored in: ..."): the generic reading
	 * of the next failure line, where nothing specific reads it, is not the job's end */
	for (size_t k = 0; k < nl; k++) {
		size_t q;

		/* an attached record's is the line right under it, and not the head of an
		 * uncaught exception there (the JVM's "Exception in thread ...": the program
		 * died of what it had just logged as retried) */
		if (!l[k].nonfatal || (q = neighbour(a, l, nl, ix, k, 1)) == (size_t)-1 ||
		    (l[k].nonfatal->attached &&
		     (l[q].chain || !right_after(&ev->obs[ix[l[k].s]], &ev->obs[ix[l[q].s]]))))
			continue;
		if (l[q].gen && (!l[q].spec || l[q].spec->role == PM_ROLE_CONFIRMATION))
			yield_line(a, &l[q], ix, l[k].nonfatal, YIELD_IGNORED);
	}
	free(ix);
	free(l);
	free(pq);
	return 0;
}
