/*
 * attribute.c - from observations to one verdict, in the phases of ATTRIBUTION.md:
 * job, outcome, cascades set aside, trusted hardware, silence, peer votes, software
 * candidates, ordering and ambiguity, confidence, bystanders, first error, decision.
 * Everything is ordered deterministically: by time, then file name, then offset.
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

static void vwhy(struct att *a, const char *fmt, va_list ap)
{
	char buf[512];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	json_array_append_new(a->why, json_string(buf));
}

/* Add a sentence to the verdict's why. */
void pm_att_why(struct att *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwhy(a, fmt, ap);
	va_end(ap);
}

static void why(struct att *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void why(struct att *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwhy(a, fmt, ap);
	va_end(ap);
}

static int addrank(int **v, size_t *n, size_t *al, int r)
{
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i] == r)
			return 0;
	if (*n == *al && pm_grow((void **)v, al, sizeof(int)) < 0)
		return -1;
	(*v)[(*n)++] = r;
	return 0;
}

static int cmpint(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;
	return (a > b) - (a < b);
}

/* Sets of many ranks (32768 in a large job) are built whole and then sorted, never with
 * addrank's walk per rank: append, then rankset_done. */
int pm_rankset_push(int **v, size_t *n, size_t *al, int r)
{
	if (*n == *al && pm_grow((void **)v, al, sizeof(int)) < 0)
		return -1;
	(*v)[(*n)++] = r;
	return 0;
}

void pm_rankset_done(int *v, size_t *n)
{
	size_t k = 0;

	if (*n < 2)
		return;
	qsort(v, *n, sizeof(int), cmpint);
	for (size_t i = 0; i < *n; i++)
		if (!k || v[i] != v[k - 1])
			v[k++] = v[i];
	*n = k;
}

bool pm_rankset_has(const int *v, size_t n, int r)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] == r)
			return true;
		if (v[mid] < r)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* Add R to candidate C's ranks unless it is there: addrank's result, without its walk
 * through thousands of ranks.  Every addition to a candidate's ranks goes through here. */
int pm_att_cand_addrank(struct cand *c, int r)
{
	size_t w = (size_t)r >> 6;

	if (r < 0 || r >= 1 << 24)
		return addrank(&c->ranks, &c->nranks, &c->aranks, r);
	if (w >= c->nrbits) {
		size_t nn = w + 1 > 2 * c->nrbits ? w + 1 : 2 * c->nrbits;
		uint64_t *nb = realloc(c->rbits, nn * sizeof(*nb));
		if (!nb)
			return -1;
		memset(nb + c->nrbits, 0, (nn - c->nrbits) * sizeof(*nb));
		c->rbits = nb;
		c->nrbits = nn;
	}
	if (c->rbits[w] >> (r & 63) & 1)
		return 0;
	if (c->nranks == c->aranks && pm_grow((void **)&c->ranks, &c->aranks, sizeof(int)) < 0)
		return -1;
	c->ranks[c->nranks++] = r;
	c->rbits[w] |= 1ULL << (r & 63);
	return 0;
}

static void cand_ranks_clear(struct cand *c)
{
	c->nranks = 0;
	if (c->rbits)
		memset(c->rbits, 0, c->nrbits * sizeof(*c->rbits));
}

/* ---- ordering of observations ---- */

static int cmpobs(const void *x, const void *y, void *arg)
{
	const struct pm_evidence *ev = arg;
	const struct pm_obs *a = &ev->obs[*(const size_t *)x], *b = &ev->obs[*(const size_t *)y];
	int c;

	if (a->has_time != b->has_time)
		return a->has_time ? -1 : 1;
	if (a->has_time && a->event_time != b->event_time)
		return a->event_time < b->event_time ? -1 : 1;
	c = strcmp(ev->files[a->file].name, ev->files[b->file].name);
	if (c)
		return c;
	if (a->offset != b->offset)
		return a->offset < b->offset ? -1 : 1;
	return a->rule < b->rule ? -1 : a->rule > b->rule;
}

/* ---- candidates ---- */

static struct cand *cand_get(struct att *a, const char *cls, const char *sub, const char *node,
			     enum lead lead)
{
	struct cand *c;

	for (size_t i = 0; i < a->nc; i++) {
		c = &a->c[i];
		if (!c->dead && !strcmp(c->cls, cls) && !strcmp(c->sub, sub) &&
		    !strcmp(c->node, node ? node : ""))
			return c;
	}
	if (a->nc == MAXC)
		return NULL;
	c = &a->c[a->nc++];
	memset(c, 0, sizeof(*c));
	c->cls = cls;
	c->sub = sub;
	c->lead = lead;
	c->hardware = pm_class_hardware(cls);
	snprintf(c->node, sizeof(c->node), "%s", node ? node : "");
	return c;
}

/* The candidate of kind K (taxonomy.h) on NODE, made when missing. */
struct cand *pm_att_kind_get(struct att *a, enum pm_kind k, const char *node, enum lead lead)
{
	return cand_get(a, pm_kind(k)->cls, pm_kind(k)->sub, node, lead);
}

/* An origin-class event from a source the user cannot write, stamped before the job began:
 * context for this job (pm_att_phase_stale), never its origin by itself. */
static bool obs_before(const struct att *a, const struct pm_obs *o)
{
	return o->trusted && pm_att_obs_window(a, o, true) == WIN_BEFORE;
}

static int cand_add(const struct att *a, struct cand *c, size_t oi)
{
	const struct pm_obs *o = &a->ev->obs[oi];
	const struct pm_rule *r = &a->rs->rules[o->rule];
	bool pre = obs_before(a, o);

	if (c->nev == c->aev && pm_grow((void **)&c->ev, &c->aev, sizeof(size_t)) < 0)
		return -1;
	c->ev[c->nev++] = oi;
	if (r->strength > c->strength)
		c->strength = r->strength;
	if (r->role == PM_ROLE_ORIGIN) {
		if (pre)
			c->npre++;
		else
			c->nin++;
		c->prestart = c->npre && !c->nin;
	}
	if (pre && o->has_time) {
		if (o->event_time > c->tpre || !c->tpre)
			c->tpre = o->event_time;
	} else if (o->has_time && (!c->has_t || o->event_time < c->t)) {
		c->t = o->event_time;
		c->has_t = true;
	}
	if (r->launch)
		c->launch = true;
	if (r->has_cond || o->source == PM_SRC_GPU_STATE)
		c->current = true; /* read at collection: a state, not an old line */
	if (o->rank >= 0 && pm_att_cand_addrank(c, o->rank) < 0)
		return -1;
	if (!c->summary[0])
		snprintf(c->summary, sizeof(c->summary), "%s", o->summary);
	if ((o->pci || o->gpu >= 0) && c->ngpus < 8) {
		char g[160];
		if (o->gpu >= 0 && o->pci)
			snprintf(g, sizeof(g), "%s:%d (%s)", o->node ? o->node : "?", o->gpu,
				 o->pci);
		else if (o->gpu >= 0)
			snprintf(g, sizeof(g), "%s:%d", o->node ? o->node : "?", o->gpu);
		else
			snprintf(g, sizeof(g), "%s (%s)", o->node ? o->node : "?", o->pci);
		for (size_t i = 0; i < c->ngpus; i++)
			if (!strcmp(c->gpus[i], g))
				return 0;
		c->gpus[c->ngpus] = strdup(g);
		if (c->gpus[c->ngpus])
			c->ngpus++;
	}
	return 0;
}

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

static void phase_outcome(struct att *a)
{
	struct pm_evidence *ev = a->ev;
	static const char *const rank_order[] = {"NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED",
						 "REQUEUED",  "TIMEOUT",       "CANCELLED",
						 NULL};
	const char *best = NULL;
	bool anyerr = false;

	a->outcome = pm_att_outcome_from_state(ev->job.state);
	if (a->outcome) {
		why(a, "Slurm's accounting record says %s.", ev->job.state);
		return;
	}
	for (size_t i = 0; i < ev->nobs; i++) {
		const struct pm_rule *r = R(a, i);
		if (r->role == PM_ROLE_ORIGIN || r->role == PM_ROLE_CASCADE ||
		    r->role == PM_ROLE_TEARDOWN || r->role == PM_ROLE_CONFIRMATION)
			anyerr = true;
		if (!r->outcome)
			continue;
		for (size_t k = 0; rank_order[k]; k++) {
			if (!strcmp(r->outcome, rank_order[k])) {
				size_t cur = 99;
				for (size_t m = 0; best && rank_order[m]; m++)
					if (!strcmp(best, rank_order[m]))
						cur = m;
				if (k < cur)
					best = rank_order[k];
			}
		}
	}
	if (best) {
		a->outcome = best;
		why(a, "No accounting record; the job's own Slurm lines say %s.", best);
	} else if (anyerr) {
		a->outcome = "FAILED";
		why(a, "No accounting record; errors in the evidence make the outcome FAILED.");
	} else {
		a->outcome = "UNKNOWN";
		why(a, "No accounting record and no error: the outcome is unknown.");
	}
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

static int phase_origins(struct att *a, bool hardware)
{
	struct pm_evidence *ev = a->ev;

	/* Slurm ends a job it kills for its memory with the plain "*** JOB N ... CANCELLED AT"
	 * line of any cancel (accounting enforcement, older releases): with no record to say
	 * who cancelled, that line beside the kill is the limit's consequence, not a cause */
	if (!hardware && !pm_att_outcome_from_state(ev->job.state) &&
	    !strcmp(a->outcome, "CANCELLED") && memory_kill(a)) {
		a->cancel_by_limit = true;
		why(a, "The job's CANCELLED line follows a kill for its memory: the cancel is the "
		       "limit's consequence, not a cause.");
	}

	for (size_t k = 0; k < ev->nobs; k++) {
		size_t i = a->order[k];
		const struct pm_obs *o = &ev->obs[i];
		const struct pm_rule *r = R(a, i);
		struct cand *c;

		if (r->role != PM_ROLE_ORIGIN || r->hardware != hardware)
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
		c = cand_get(a, r->cls, r->subcls, o->node, LEAD_RULE);
		if (!c || cand_add(a, c, i) < 0)
			return -1;
		if (plain)
			c->in_plain = true;
		else
			c->by_skew = true;
	}
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

static void phase_merge(struct att *a)
{
	for (size_t i = 0; i < a->nc; i++) {
		struct cand *c = &a->c[i];
		if (c->dead || !c->node[0] || !c->nev || c->lead != LEAD_RULE)
			continue;
		for (size_t k = i + 1; k < a->nc; k++) {
			struct cand *d = &a->c[k], *keep = c, *drop = d;
			if (d->dead || !d->nev || d->lead != LEAD_RULE || strcmp(c->cls, d->cls) ||
			    strcmp(c->node, d->node))
				continue;
			if (better(a, d, c)) {
				keep = d;
				drop = c;
			}
			for (size_t m = 0; m < drop->nev; m++)
				cand_add(a, keep, drop->ev[m]);
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
static void phase_join(struct att *a)
{
	for (size_t i = 0; i < a->nc; i++) {
		struct cand *c = &a->c[i], *p;
		if (c->dead || c->node[0] || !c->nev || c->lead != LEAD_RULE ||
		    !(p = single_placed(a, c)))
			continue;
		for (size_t m = 0; m < c->nev; m++)
			cand_add(a, p, c->ev[m]);
		p->in_plain |= c->in_plain;
		p->by_skew |= c->by_skew;
		c->dead = true;
		why(a, "%s/%s without a node joins the same symptom on %s.", c->cls, c->sub,
		    p->node);
	}
}

static bool guessed(const struct att *a, size_t o)
{
	return a->guessed && a->guessed[o];
}

/* A confirmation of the same class on the same node corroborates a candidate. */
static void phase_confirm(struct att *a)
{
	struct pm_evidence *ev = a->ev;

	for (size_t i = 0; i < a->nc; i++) {
		struct cand *c = &a->c[i];
		enum pm_source first = ev->obs[c->ev[0]].source;

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
			if (c->node[0] && (!on || strcmp(on, c->node)))
				continue;
			if (o->source != first)
				c->corroborated = true;
			cand_add(a, c, k);
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
	struct cand *c = cand_get(a, r->cls, r->subcls, node, LEAD_RULE);

	if (!c)
		return 0;
	if (!c->nev) {
		c->fallback = true;
		c->untrusted = !o->trusted;
		snprintf(c->note, sizeof(c->note), "%s", note);
	}
	if (o->trusted)
		c->untrusted = false;
	return c->nev < 16 ? cand_add(a, c, i) : 0;
}

/* Transport failures (a hardware class in a cascade: retries exhausted, not the flush
 * errors that follow another failure) reported by one node alone, with no peer votes:
 * that reporter's own link is the suspect. */
static int single_reporter(struct att *a)
{
	const char *rep = NULL;
	char note[200];

	for (size_t i = 0; i < a->ev->nobs; i++) {
		const struct pm_obs *o = &a->ev->obs[i];
		const struct pm_rule *r = R(a, i);
		if (r->role != PM_ROLE_CASCADE || !r->hardware || !o->node)
			continue;
		if (rep && strcmp(rep, o->node))
			return 0;
		rep = o->node;
	}
	if (!rep)
		return 0;
	snprintf(note, sizeof(note),
		 "only %s reports transport failures, no other node votes, and its own "
		 "port was not seen",
		 rep);
	for (size_t k = 0; k < a->ev->nobs; k++) {
		size_t i = a->order[k];
		const struct pm_rule *r = R(a, i);
		if (r->role == PM_ROLE_CASCADE && r->hardware && fallback_add(a, i, rep, note) < 0)
			return -1;
	}
	return 0;
}

/*
 * Never unknown while a failure symptom fired: with no candidate that may lead, every
 * confirmation and every hardware symptom seen only in the job's own output becomes a
 * fallback candidate (hypothesis, phase 10), and so does a lone reporter of transport
 * failures.  Ordered like the others, below every candidate that may lead.
 */
static int phase_fallback(struct att *a)
{
	if (has_lead(a))
		return 0;
	for (size_t k = 0; k < a->ev->nobs; k++) {
		size_t i = a->order[k];
		const struct pm_obs *o = &a->ev->obs[i];
		const struct pm_rule *r = R(a, i);
		if (r->role != PM_ROLE_CONFIRMATION &&
		    !(r->role == PM_ROLE_ORIGIN && r->hardware && !o->trusted))
			continue;
		/* the job's output, or a trusted source within the job: not a line any local
		 * user can forge into a system log (syslog lines not tagged kernel:) */
		if (o->trusted ? pm_att_obs_window(a, o, true) == WIN_OUT :
				 o->source != PM_SRC_APP_LOG)
			continue;
		if (fallback_add(a, i, o->node,
				 o->trusted ?
					 "a confirming symptom with no origin event beside it" :
					 "it is seen only in the job's own output, which its "
					 "user can write: no kernel log or GPU state shows it") < 0)
			return -1;
	}
	return single_reporter(a);
}

/* ---- phase: peer votes (R-NCCL-1) ---- */

static const char *peer_node(const struct att *a, const char *peer)
{
	char ip[64];
	size_t l = strcspn(peer, "<:");

	if (l >= sizeof(ip))
		return NULL;
	memcpy(ip, peer, l);
	ip[l] = '\0';
	for (size_t i = 0; i < a->ev->nnodes; i++)
		if (!strcmp(a->ev->nodes[i], ip))
			return a->ev->nodes[i];
	return pm_ev_ip_node(a->ev, ip);
}

struct vote {
	const char *node;
	char reporters[16][128];
	size_t nrep;
	bool status12;
};

static struct cand *vote_cand(struct att *a, const struct vote *vt, size_t n)
{
	struct pm_evidence *ev = a->ev;
	struct cand *c = pm_att_kind_get(a, vt->status12 ? PM_K_PEER_LINK : PM_K_REMOTE_ERROR,
					 vt->node, LEAD_VOTES);

	if (!c)
		return NULL;
	snprintf(c->summary, sizeof(c->summary), "%zu nodes report %s%s as the failing peer", n,
		 vt->node, vt->status12 ? " (IB transport retries exhausted)" : "");
	for (size_t i = 0; i < ev->nobs; i++) {
		const struct pm_obs *o = &ev->obs[i];
		const char *pn = o->peer ? peer_node(a, o->peer) : NULL;
		if (pn && !strcmp(pn, vt->node) && c->nev < 16)
			cand_add(a, c, i);
	}
	c->strength = PM_WEAK;
	cand_ranks_clear(c);
	return c;
}

/* One reporting node whose transport errors name peers on several nodes, while no other
 * node reports any: its own link is the suspect (R-NCCL-1, the reporter side). */
static int reporter_link(struct att *a, const struct vote *v, size_t nv)
{
	const char *rep = NULL;
	size_t peers = 0;
	struct cand *c;

	for (size_t k = 0; k < nv; k++) {
		if (!v[k].status12)
			continue;
		for (size_t m = 0; m < v[k].nrep; m++) {
			if (rep && strcmp(rep, v[k].reporters[m]))
				return 0; /* several reporters: not this shape */
			rep = v[k].reporters[m];
		}
		peers++;
	}
	if (!rep || peers < 2 || !strcmp(rep, "?"))
		return 0;
	for (size_t i = 0; i < a->nc; i++)
		if (a->c[i].hardware && !a->c[i].prestart && !strcmp(a->c[i].node, rep))
			return 0;
	c = pm_att_kind_get(a, PM_K_PEER_LINK, rep, LEAD_VOTES);
	if (!c)
		return 0;
	snprintf(c->summary, sizeof(c->summary),
		 "%s alone reports IB transport failures towards "
		 "%zu different nodes: its own link is the suspect",
		 rep, peers);
	for (size_t i = 0; i < a->ev->nobs; i++) {
		const struct pm_obs *o = &a->ev->obs[i];
		if (o->peer && o->node && !strcmp(o->node, rep) &&
		    pm_is_kind(R(a, i)->cls, NULL, PM_K_PEER_LINK) && c->nev < 16)
			cand_add(a, c, i);
	}
	c->strength = PM_WEAK;
	cand_ranks_clear(c);
	why(a,
	    "Only %s reports IB transport failures, naming %zu different peers: the reporter's "
	    "own link is the suspect.",
	    rep, peers);
	return 0;
}

static int phase_votes(struct att *a)
{
	struct pm_evidence *ev = a->ev;
	struct vote v[32];
	size_t nv = 0, best = 0, second = 0, bi = 0;

	memset(v, 0, sizeof(v));
	for (size_t i = 0; i < ev->nobs; i++) {
		const struct pm_obs *o = &ev->obs[i];
		const struct pm_rule *r = R(a, i);
		const char *pn;
		size_t k;

		if (!o->peer || (r->role != PM_ROLE_CASCADE && r->role != PM_ROLE_TEARDOWN))
			continue;
		if (!o->node)
			continue; /* a reporter we cannot place casts no vote */
		pn = peer_node(a, o->peer);
		if (!pn) {
			for (k = 0; k < ev->nnodes; k++)
				if (!strncmp(o->peer, ev->nodes[k], strlen(ev->nodes[k])))
					pn = ev->nodes[k];
		}
		if (!pn || (o->node && !strcmp(pn, o->node)))
			continue;
		for (k = 0; k < nv && strcmp(v[k].node, pn); k++)
			;
		if (k == nv) {
			if (nv == 32)
				continue;
			v[nv++].node = pn;
		}
		if (pm_is_kind(r->cls, NULL, PM_K_PEER_LINK))
			v[k].status12 = true;
		size_t m;
		for (m = 0; m < v[k].nrep && strcmp(v[k].reporters[m], o->node ? o->node : "?");
		     m++)
			;
		if (m == v[k].nrep && m < 16)
			snprintf(v[k].reporters[v[k].nrep++], 128, "%s", o->node ? o->node : "?");
	}
	for (size_t k = 0; k < nv; k++) {
		if (v[k].nrep > best) {
			second = best;
			best = v[k].nrep;
			bi = k;
		} else if (v[k].nrep > second) {
			second = v[k].nrep;
		}
	}
	if (best < 2)
		return reporter_link(a, v, nv);
	if (second == best) {
		a->votes_split = true;
		for (size_t k = 0; k < nv && a->nvote < 4; k++)
			if (v[k].nrep == best)
				snprintf(a->vote_nodes[a->nvote++], 128, "%s", v[k].node);
		why(a, "Peer votes split: %zu reporters each name %s and %s.", best,
		    a->vote_nodes[0], a->vote_nodes[1]);
		for (size_t k = 0; k < nv; k++)
			if (v[k].nrep == best)
				vote_cand(a, &v[k], best);
		return 0;
	}
	snprintf(a->vote_nodes[0], 128, "%s", v[bi].node);
	a->nvote = 1;
	why(a, "%zu distinct nodes name %s as the peer that failed them (peer votes).", best,
	    v[bi].node);
	/* votes join a hardware candidate on that node, else become a lead of their own */
	for (size_t i = 0; i < a->nc; i++)
		if (a->c[i].hardware && !a->c[i].prestart && !strcmp(a->c[i].node, v[bi].node))
			return 0;
	vote_cand(a, &v[bi], best);
	return 0;
}

/* ---- phase: identical exceptions on every rank ---- */

/* The same rule and exception type: the text differs only by rank and host. */
static bool same_error(const struct pm_obs *x, const struct pm_obs *y)
{
	if (x->rule != y->rule)
		return false;
	if (x->exc || y->exc)
		return x->exc && y->exc && !strcmp(x->exc, y->exc);
	return true;
}

static void phase_all_ranks(struct att *a)
{
	for (size_t i = 0; i < a->nc; i++) {
		struct cand *c = &a->c[i];
		if (c->hardware || c->dead || c->lead != LEAD_RULE || !c->nev)
			continue;
		/* merge the same class/subclass on other nodes into one "all ranks" candidate */
		for (size_t k = i + 1; k < a->nc; k++) {
			struct cand *d = &a->c[k];
			if (d->dead || strcmp(d->cls, c->cls) || strcmp(d->sub, c->sub))
				continue;
			if (!same_error(&a->ev->obs[d->ev[0]], &a->ev->obs[c->ev[0]]))
				continue;
			for (size_t m = 0; m < d->nev; m++)
				cand_add(a, c, d->ev[m]);
			d->dead = true;
			c->node[0] = '\0';
		}
		if (a->nknown > 1 && c->nranks >= a->nknown) {
			c->all_ranks = true;
			c->node[0] = '\0';
			why(a, "Every rank raised the same error: a deterministic bug in the job, "
			       "all ranks.");
		}
	}
}

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
	return c ? c : strcmp(a->node, b->node);
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

/* A TIMEOUT: a stall when progress stopped long before the end (the time limit only ended
 * it), else the time limit itself when the record says so. */
static void sched_timeout(struct att *a, bool from_sacct)
{
	const struct pm_evidence *ev = a->ev;
	double end = ev->job.end > 0 ? ev->job.end : 0;

	/* without the accounting record, the time-limit line itself says when it ended */
	for (size_t i = 0; !end && i < ev->nobs; i++)
		if (R(a, i)->outcome && !strcmp(R(a, i)->outcome, "TIMEOUT") &&
		    ev->obs[i].has_time && ev->obs[i].event_time > end)
			end = ev->obs[i].event_time;
	if (a->any_progress && end > 0 && end - a->last_progress > a->rs->progress_stall_s) {
		a->stalled = true;
		why(a,
		    "Progress stopped %.0f s before the time limit: the job stalled; the "
		    "time limit only ended it.",
		    end - a->last_progress);
		for (size_t i = 0; i < a->nc; i++)
			if (pm_is_kind(a->c[i].cls, a->c[i].sub, PM_K_TIME_LIMIT))
				a->c[i].dead = true;
		if (!has_live(a)) {
			struct cand *c = pm_att_kind_get(a, PM_K_HANG, NULL, LEAD_SILENCE);
			if (c) {
				c->strength = PM_WEAK;
				snprintf(c->summary, sizeof(c->summary),
					 "the job stopped making "
					 "progress %.0f s before its time limit, with no error",
					 end - a->last_progress);
			}
		}
	} else if (!has_kind(a, PM_K_TIME_LIMIT, false) && from_sacct) {
		synth(a, PM_K_TIME_LIMIT, NULL,
		      "the job reached its time limit while still making progress");
	}
}

/* A cancel, a preemption or a requeue: the external end, by whom when known. */
static void sched_external(struct att *a, const char *o)
{
	const struct pm_jobinfo *j = &a->ev->job;
	enum pm_kind k = !strcmp(o, "PREEMPTED") ? PM_K_PREEMPTED :
			 !strcmp(o, "REQUEUED")	 ? PM_K_REQUEUED :
						   PM_K_USER_CANCEL;
	char buf[256];

	if (!strcmp(o, "CANCELLED") && j->cancelled_by && j->user_uid >= 0 &&
	    atoi(j->cancelled_by) != j->user_uid)
		k = PM_K_ADMIN_CANCEL;
	if (has_kind(a, k, true))
		return;
	snprintf(buf, sizeof(buf), "the job was %s%s%s",
		 !strcmp(o, "CANCELLED") ? "cancelled" :
		 !strcmp(o, "PREEMPTED") ? "preempted" :
					   "requeued",
		 j->cancelled_by ? " by uid " : "", j->cancelled_by ? j->cancelled_by : "");
	synth(a, k, NULL, buf);
}

/* NODE_FAIL: the node the record names, or (sacct before 23.02 has no FailedNode) the
 * job's node that srun saw fail, whose words are in the job's output: a lead, at
 * hypothesis. */
static void sched_node_fail(struct att *a)
{
	const struct pm_jobinfo *j = &a->ev->job;
	const char *fn = NULL;
	char buf[256];
	struct cand *c;

	if (j->failed_node) {
		if (has_kind(a, PM_K_NODE_FAIL, false))
			return;
		snprintf(buf, sizeof(buf), "%s stopped responding to the controller (NODE_FAIL)",
			 j->failed_node);
		synth(a, PM_K_NODE_FAIL, j->failed_node, buf);
		return;
	}
	if (has_kind(a, PM_K_NODE_FAIL, true))
		return;
	for (size_t i = 0; !fn && i < a->ev->nobs; i++) {
		const struct pm_rule *r = R(a, i);
		const char *n = a->ev->obs[i].node;
		if (r->role != PM_ROLE_CONFIRMATION || !r->subcls || !n ||
		    !pm_is_kind(r->cls, r->subcls, PM_K_NODE_FAIL))
			continue;
		for (size_t k = 0; k < j->nnodes; k++)
			if (j->nodes[k] && !strcmp(j->nodes[k], n))
				fn = n;
	}
	if (!fn)
		return;
	snprintf(buf, sizeof(buf),
		 "%s failed while running the job (NODE_FAIL; "
		 "named by srun, the accounting record names no node)",
		 fn);
	if ((c = synth(a, PM_K_NODE_FAIL, fn, buf))) {
		c->strength = PM_WEAK;
		c->corroborated = false;
	}
}

/* Candidates whose rule names the outcome Slurm recorded are corroborated by the record;
 * what Slurm itself decided (a time limit, an external end, a lost node, an OOM kill) is a
 * candidate of its own. */
static void phase_scheduler(struct att *a)
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
	if (!strcmp(o, "TIMEOUT"))
		sched_timeout(a, from_sacct);
	else if ((!strcmp(o, "CANCELLED") && !a->cancel_by_limit) || !strcmp(o, "PREEMPTED") ||
		 !strcmp(o, "REQUEUED"))
		sched_external(a, o);
	else if (!strcmp(o, "NODE_FAIL"))
		sched_node_fail(a);
	else if (!strcmp(o, "OUT_OF_MEMORY") && !has_kind(a, PM_K_HOST_OOM, false))
		synth(a, PM_K_HOST_OOM, NULL,
		      "Slurm killed the job for exceeding its memory (OUT_OF_MEMORY)");
}

/* External outcomes and node failures lead: they are what ended the job. */
static int outcome_rank(const struct att *a, const struct cand *c)
{
	const char *o = a->outcome;

	if ((!strcmp(o, "CANCELLED") || !strcmp(o, "PREEMPTED") || !strcmp(o, "REQUEUED")) &&
	    pm_class_external(c->cls))
		return 0;
	if (!strcmp(o, "NODE_FAIL") && pm_is_kind(c->cls, c->sub, PM_K_NODE_FAIL))
		return 0;
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

/* Strings where NULL (a JSON value that was not a string) sorts first and equals only NULL. */
static int cmpstrp_null(const void *x, const void *y)
{
	const char *a = *(const char *const *)x, *b = *(const char *const *)y;

	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

static bool node_degraded(const struct att *a, const char *node)
{
	for (size_t i = 0; i < a->ev->nfiles; i++) {
		const struct pm_file *f = &a->ev->files[i];
		if (!f->node || strcmp(f->node, node))
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

static bool kernel_coverage(const struct att *a)
{
	const struct pm_evidence *ev = a->ev;
	char **nodes = ev->job.nnodes ? ev->job.nodes : ev->nodes;
	size_t n = ev->job.nnodes ? ev->job.nnodes : ev->nnodes;

	if (!n)
		return false;
	for (size_t i = 0; i < n; i++) {
		bool ok = false;
		for (size_t k = 0; k < ev->nfiles && !ok; k++) {
			const struct pm_file *f = &ev->files[k];
			ok = f->source == PM_SRC_KERNEL_LOG && f->status == PM_ST_OK && f->node &&
			     !strcmp(f->node, nodes[i]);
		}
		if (!ok)
			return false;
	}
	return true;
}

/* Every job node has at least one source its user cannot write that shows its hardware
 * (kernel log, GPU state, DCGM metrics): somebody looked at each node. */
static bool trusted_view(const struct att *a)
{
	const struct pm_evidence *ev = a->ev;
	char **nodes = ev->job.nnodes ? ev->job.nodes : ev->nodes;
	size_t n = ev->job.nnodes ? ev->job.nnodes : ev->nnodes;

	const char **seen;
	size_t ns = 0;
	bool all = true;

	if (!n)
		return false;
	/* the nodes some trusted view covers, sorted: one look-up per job node */
	if (!(seen = malloc((ev->nfiles ? ev->nfiles : 1) * sizeof(*seen))))
		return false;
	for (size_t k = 0; k < ev->nfiles; k++) {
		const struct pm_file *f = &ev->files[k];
		if ((f->source == PM_SRC_KERNEL_LOG || f->source == PM_SRC_GPU_STATE ||
		     f->format == PM_FMT_PROMETHEUS) &&
		    (f->status == PM_ST_OK || f->status == PM_ST_TRUNCATED) && f->node)
			seen[ns++] = f->node;
	}
	if (ns > 1)
		qsort(seen, ns, sizeof(*seen), cmpstrp_null);
	for (size_t i = 0; i < n && all; i++)
		all = nodes[i] && bsearch(&nodes[i], seen, ns, sizeof(*seen), cmpstrp_null);
	free(seen);
	return all;
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
	    c->pidlink < 0)
		return "hypothesis";
	if (c->hardware && !c->has_t && !c->current && !c->tpre)
		return "hypothesis"; /* undated: it may predate the job */
	if (c->node[0] && node_degraded(a, c->node))
		return "hypothesis";
	if (c->hardware && !slurm_act && !trusted_view(a) &&
	    !(a->ev->job.failed_node && !strcmp(c->node, a->ev->job.failed_node)))
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
		if (r == PM_ROLE_ORIGIN || r == PM_ROLE_CONFIRMATION)
			return 2;
		if (r == PM_ROLE_CASCADE || r == PM_ROLE_TEARDOWN)
			k = 1;
	}
	return k;
}

/* ---- the decision: order, status, launch, confidence ---- */

/* Sort the candidates (phase 8) and note the leading two. */
static void phase_order(struct att *a)
{
	qsort_r(a->c, a->nc, sizeof(a->c[0]), cmpcand_outcome, a);
	for (size_t i = 0; i < a->nc; i++)
		if (!a->c[i].dead) {
			a->live++;
			a->any_hw |= a->c[i].hardware;
		}
	a->lead = a->live ? &a->c[0] : NULL;
	a->second = a->live > 1 ? &a->c[1] : NULL;
}

static bool timeouts_fired(const struct att *a)
{
	for (size_t i = 0; i < a->ev->nobs; i++)
		if (R(a, i)->role == PM_ROLE_CASCADE && a->ev->obs[i].seq >= 0)
			return true;
	return false;
}

/* Collective timeouts with nothing else (phase 9): communication_unattributed, its origin
 * the ranks with the fewest completed collectives. */
/* One rank alone reported the timeout and no other rank is known silent: it waited in a
 * collective the others never entered (they went on, or finished), so the log names it as
 * the timeout's origin rank.  Returns that rank, or -1. */
static int lone_reporter(struct att *a, struct cand *l)
{
	int r = -1;
	const char *n;

	if (l->nranks)
		return -1;
	for (size_t i = 0; i < a->ev->nobs; i++) {
		const struct pm_obs *o = &a->ev->obs[i];
		if (R(a, i)->role != PM_ROLE_CASCADE || o->seq < 0)
			continue;
		if (o->rank < 0 || (r >= 0 && o->rank != r))
			return -1;
		r = o->rank;
	}
	if (r < 0 || pm_att_cand_addrank(l, r) < 0)
		return -1;
	if ((n = pm_att_rank_node(a, r)))
		snprintf(l->node, sizeof(l->node), "%s", n);
	snprintf(l->summary, sizeof(l->summary),
		 "rank %d alone reported a collective timeout, with no hardware event, no silent "
		 "rank and no peer majority",
		 r);
	why(a,
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

/* Peers that never entered a collective one rank waits in were elsewhere in the program:
 * the ranks' collectives diverged (a call skipped or added on some ranks, sizes that
 * differ), an application fault.  It leads; the unattributed timeout stays beside it, for
 * a peer that died in a way the folder does not show (still ambiguous). */
static void mismatch_lead(struct att *a, struct cand *l, int r)
{
	struct cand *m =
		pm_att_kind_get(a, PM_K_MISMATCH, l->node[0] ? l->node : NULL, LEAD_TIMEOUTS);
	size_t im, il;

	if (!m)
		return;
	for (size_t k = 0; k < l->nev; k++)
		cand_add(a, m, l->ev[k]);
	cand_ranks_clear(m);
	if (pm_att_cand_addrank(m, r) < 0)
		return;
	m->strength = PM_WEAK;
	snprintf(m->summary, sizeof(m->summary),
		 "rank %d waited in a collective its peers never entered: the ranks' "
		 "collectives diverged",
		 r);
	why(a, "Its peers went on without it: the ranks' collectives diverged (a call made on "
	       "some ranks only, or sizes that differ), unless a peer died in a way this "
	       "evidence does not show.");
	/* the two leads first, in this order (whatever was merged away stays behind) */
	im = (size_t)(m - a->c);
	il = (size_t)(l - a->c);
	cand_swap(&a->c[0], &a->c[im]);
	if (il == 0)
		il = im;
	cand_swap(&a->c[1], &a->c[il]);
	a->lead = &a->c[0];
	a->second = &a->c[1];
	a->live = 2;
}

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
			if (R(a, i)->role == PM_ROLE_CASCADE && a->ev->obs[i].seq >= 0)
				cand_add(a, l, i);
		cand_ranks_clear(l);
		pm_att_fewest_completed(a, l);
		r = lone_reporter(a, l);
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
	why(a, "Every rank timed out in the same collective and nothing else fired: the "
	       "communication failure cannot be attributed.");
}

/* The first two candidates tie (phase 8): different classes on different nodes, within the
 * tolerance, of the same standing. */
static bool tied(const struct att *a, const struct cand *l, const struct cand *s)
{
	return s && strcmp(l->cls, s->cls) && (strcmp(l->node, s->node) || !l->node[0]) &&
	       close_in_time(a, l, s) && outcome_rank(a, l) == outcome_rank(a, s) &&
	       cand_rank(l) == cand_rank(s) && l->prestart == s->prestart &&
	       pm_att_silent_support(a, l) == pm_att_silent_support(a, s);
}

/* What would separate an ambiguous verdict's candidates (ambiguity.test). */
static void ambiguity_test(struct att *a)
{
	const struct cand *l = a->lead, *s = a->second;

	if (a->ambiguous && l && s) {
		const struct pm_decision *d1 = pm_ruleset_decision(a->rs, l->cls, l->sub);
		const struct pm_decision *d2 = pm_ruleset_decision(a->rs, s->cls, s->sub);
		char t1[300], t2[300], wide[96] = "";
		double tol = pm_att_pair_tol(a, l, s);

		pm_subst(t1, sizeof(t1), d1 ? d1->next_test : "",
			 l->node[0] ? l->node : "the job's nodes");
		pm_subst(t2, sizeof(t2), d2 ? d2->next_test : "",
			 s->node[0] ? s->node : "the job's nodes");
		snprintf(a->test, sizeof(a->test), "%s (for %s/%s) versus %s (for %s/%s)", t1,
			 l->cls, l->sub, t2, s->cls, s->sub);
		if (tol > a->rs->skew_s)
			snprintf(wide, sizeof(wide),
				 ", widened to %.1f s by the nodes' apparent clock skew", tol);
		why(a,
		    "Two explanations fit within the %.1f s skew tolerance%s: %s/%s on %s and "
		    "%s/%s on %s.",
		    a->rs->skew_s, wide, l->cls, l->sub, l->node[0] ? l->node : "several nodes",
		    s->cls, s->sub, s->node[0] ? s->node : "several nodes");
	} else if (a->ambiguous && a->votes_split) {
		snprintf(a->test, sizeof(a->test),
			 "ibstat and port counters on %s and %s; ib_write_bw "
			 "between each and a healthy node",
			 a->vote_nodes[0], a->vote_nodes[1]);
	}
}

/* The verdict's status (phases 8-10), and LAUNCH_FAILED for a failure before progress. */
static void phase_status(struct att *a)
{
	struct cand *l = a->lead;

	if (!strcmp(a->outcome, "COMPLETED")) {
		a->status = VS_NONE;
		a->lead = NULL;
		why(a, "The job completed: nothing to attribute; any symptoms are listed as "
		       "evidence only.");
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
			why(a, "Symptoms fired, but none within this job's time: nothing of this "
			       "job names a cause.");
			break;
		case 1:
			why(a,
			    "Only consequences fired (collective or transport errors after "
			    "another failure, the job being taken down): nothing names a cause.");
			break;
		default:
			why(a, "No rule fired that could explain the failure.");
		}
	} else {
		a->status = VS_ATTRIBUTED;
		if (tied(a, l, a->second)) {
			a->status = VS_AMBIGUOUS;
			a->ambiguous = true;
		}
	}
	ambiguity_test(a);
	l = a->lead;
	if (l && a->status == VS_ATTRIBUTED && !strcmp(a->outcome, "FAILED") && l->launch &&
	    (!a->any_progress || (l->has_t && a->first_progress > 0 && l->t < a->first_progress))) {
		a->outcome = "LAUNCH_FAILED";
		why(a, "The failure came before any progress: the job failed at launch.");
	}
}

/* The lead's confidence (phase 11), with what the clocks take from it. */
static void phase_confidence(struct att *a)
{
	const struct cand *l = a->lead, *s = a->second;
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
	/* clocks that cannot be trusted: the lead's evidence counts only through its node's
	 * skew (at most supported), or the lead's time alone put it before a rival on another
	 * node by less than the skew could shift (hypothesis) */
	if (l->by_skew && !l->in_plain && l->node[0]) {
		if (!strcmp(a->conf, "established"))
			a->conf = "supported";
		why(a,
		    "The evidence of %s/%s on %s is stamped outside the job window and "
		    "counts only through %s's apparent clock skew: at most supported.",
		    l->cls, l->sub, l->node, l->node);
	}
	if (a->status == VS_ATTRIBUTED && s && order_by_skewed_clocks(a, l, s)) {
		a->conf = "hypothesis";
		why(a,
		    "%s/%s on %s comes before %s/%s on %s only by their times, %.1f s "
		    "apart: less than the nodes' apparent clock skew could shift; "
		    "confidence hypothesis.",
		    l->cls, l->sub, l->node[0] ? l->node : "several nodes", s->cls, s->sub,
		    s->node[0] ? s->node : "several nodes", fabs(l->t - s->t));
	}
}

/* ---- the phases, in order (engine/ATTRIBUTION.md) ---- */

static int att_init(struct att *a, struct pm_evidence *ev)
{
	memset(a, 0, sizeof(*a));
	a->ev = ev;
	a->rs = ev->rs;
	a->why = json_array();
	a->order = malloc((ev->nobs ? ev->nobs : 1) * sizeof(size_t));
	a->eid = calloc(ev->nobs ? ev->nobs : 1, sizeof(size_t));
	if (!a->why || !a->order || !a->eid)
		return -1;
	for (size_t i = 0; i < ev->nobs; i++)
		a->order[i] = i;
	if (ev->nobs > 1)
		qsort_r(a->order, ev->nobs, sizeof(size_t), cmpobs, ev);
	return 0;
}

static void att_free(struct att *a)
{
	json_decref(a->why);
	for (size_t i = 0; i < a->nc; i++) {
		free(a->c[i].ev);
		free(a->c[i].ranks);
		free(a->c[i].rbits);
		for (size_t k = 0; k < a->c[i].ngpus; k++)
			free(a->c[i].gpus[k]);
	}
	free(a->order);
	free(a->eid);
	free(a->known);
	free(a->rnode);
	free(a->mapn);
	free(a->placed);
	free(a->hosts);
	free(a->guessed);
	free(a->hranks);
	free(a->suspects);
	free(a->clk);
}

json_t *pm_attribute(struct pm_evidence *ev)
{
	struct att a;
	json_t *v = NULL;

	if (att_init(&a, ev) < 0 || pm_att_phase_ranks(&a) < 0)
		goto out;
	pm_att_place_obs(&a);
	if (pm_att_phase_place(&a) < 0 || pm_obs_summaries(ev) < 0)
		goto out;
	phase_outcome(&a);
	if (pm_att_phase_clocks(&a) < 0 || phase_origins(&a, true) < 0)
		goto out;
	pm_att_skew_notes(&a);
	if (a.nc)
		why(&a, "Hardware evidence from a source the job cannot write, in the job window: "
			"it outranks software errors elsewhere.");
	if (pm_att_phase_silence(&a) < 0 || phase_votes(&a) < 0 || phase_origins(&a, false) < 0)
		goto out;
	phase_merge(&a);
	phase_join(&a);
	phase_confirm(&a);
	pm_att_phase_stale(&a);
	if (pm_att_phase_gpu_ranks(&a) < 0)
		goto out;
	phase_all_ranks(&a);
	phase_scheduler(&a);
	pm_att_place_one_host(&a);
	if (phase_fallback(&a) < 0)
		goto out;
	pm_att_phase_silence_lead(&a);
	phase_order(&a);
	phase_status(&a);
	phase_confidence(&a);
	v = pm_verdict_build(&a);
out:
	att_free(&a);
	if (!v)
		errno = ENOMEM;
	return v;
}
