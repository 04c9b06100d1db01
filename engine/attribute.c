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
static int cand_addrank(struct cand *c, int r)
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

static int cmprnode(const void *x, const void *y)
{
	const struct rnode *a = x, *b = y;

	if (a->rank != b->rank)
		return (a->rank > b->rank) - (a->rank < b->rank);
	return (a->seq > b->seq) - (a->seq < b->seq);
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
static struct cand *kind_get(struct att *a, enum pm_kind k, const char *node, enum lead lead)
{
	return cand_get(a, pm_kind(k)->cls, pm_kind(k)->sub, node, lead);
}

enum win { WIN_OUT, WIN_BEFORE, WIN_IN };

static enum win obs_window(const struct att *a, const struct pm_obs *o, bool wide);

/* An origin-class event from a source the user cannot write, stamped before the job began:
 * context for this job (phase_stale), never its origin by itself. */
static bool obs_before(const struct att *a, const struct pm_obs *o)
{
	return o->trusted && obs_window(a, o, true) == WIN_BEFORE;
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
	if (o->rank >= 0 && cand_addrank(c, o->rank) < 0)
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

static const char *outcome_from_state(const char *st);

/* The last task exit the plugin recorded on NODE, by NODE's clock; 0 none. */
static double last_exit(const struct att *a, const char *node)
{
	double t = 0;

	for (size_t i = 0; i < a->ev->ntasks; i++) {
		const struct pm_task *k = &a->ev->tasks[i];
		if (k->exited && k->end > t && k->node && !strcmp(k->node, node))
			t = k->end;
	}
	return t;
}

/*
 * The other side of D (phase_clocks): the plugin's task-exit times are on the node's clock
 * too, and the epilog starts only after them.  L = last exit - end is the node's offset
 * plus how long after the recorded end its tasks exited.  When every node's tasks exited
 * beyond the tolerance after the end (processes that outlive SIGTERM until KillWait, their
 * epilogs after that), the least such L is the job's own teardown, not a clock: it is taken
 * off every node's D.  A late epilog common to the job is not a skewed clock.  (One node's
 * L alone would bound its offset too, but a node whose tasks left early says nothing of
 * its clock, so D stands there; `why` gives L beside it.)
 */
static void clocks_by_exits(struct att *a)
{
	double common = -1;
	bool all = a->nclk > 0;

	for (size_t i = 0; i < a->nclk; i++) {
		struct clk *c = &a->clk[i];
		double x = last_exit(a, c->node);
		c->exits = x > 0;
		c->late = x > 0 ? x - a->ev->job.end : 0;
		if (!c->exits || c->late <= a->rs->skew_s)
			all = false;
		else if (common < 0 || c->late < common)
			common = c->late;
	}
	if (!all)
		return;
	a->teardown = common;
	for (size_t i = 0; i < a->nclk; i++) {
		struct clk *c = &a->clk[i];
		if (c->d <= 0)
			continue;
		c->d_collect = c->d;
		c->d = c->d > common ? c->d - common : 0;
	}
}

/*
 * Each node's collector starts right after the job's end, and stamps that start with the
 * node's own clock (the bundle manifest's collected.start); the job's end in the accounting
 * record is the controller's.  D = start - end is then the node's clock offset plus the
 * epilog's latency (and up to 1 s of the record's truncated seconds): an upper bound of how
 * far the node is ahead; when negative, the node is at least -D behind.  The earliest
 * bundle of a node counts.  Nothing without both times.
 */
static int phase_clocks(struct att *a)
{
	const struct pm_evidence *ev = a->ev;
	size_t n = 0;

	/* an end only once the job ended (a running job's EndTime is its limit) */
	if (ev->job.end <= 0 || !ev->ncollect ||
	    (ev->job.state && !outcome_from_state(ev->job.state) &&
	     strncmp(ev->job.state, "COMPLETING", 10)))
		return 0;
	a->clk = malloc(ev->ncollect * sizeof(*a->clk));
	if (!a->clk)
		return -1;
	for (size_t i = 0; i < ev->ncollect; i++)
		a->clk[i] =
			(struct clk){.node = ev->collect[i].node,
				     .d = ev->collect[i].start - ev->job.end};
	qsort(a->clk, ev->ncollect, sizeof(*a->clk), cmpclk);
	for (size_t i = 0; i < ev->ncollect; i++)
		if (!n || strcmp(a->clk[n - 1].node, a->clk[i].node))
			a->clk[n++] = a->clk[i]; /* the earliest: sorted by D within a node */
	a->nclk = n;
	clocks_by_exits(a);
	for (size_t i = 0; i < n; i++)
		if (fabs(a->clk[i].d) > a->rs->skew_s && fabs(a->clk[i].d) > a->maxskew)
			a->maxskew = fabs(a->clk[i].d);
	return 0;
}

static struct clk *node_clk(const struct att *a, const char *node)
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
	const struct clk *c = node_clk(a, node);

	return c && fabs(c->d) > a->rs->skew_s ? c->d : 0;
}

/* The clock an observation was stamped with: that of the node whose file holds it. */
static const char *obs_clock_node(const struct att *a, const struct pm_obs *o)
{
	const char *fn = a->ev->files[o->file].node;

	return fn ? fn : o->node;
}

/* ---- phase: job window ---- */

/*
 * Where an event falls against the job: WIN_IN within [start - tolerance, end + tolerance],
 * WIN_BEFORE up to job_window_grace_s earlier (context: what the node went through just
 * before this job, phase_stale), WIN_OUT otherwise.  WIDE: widened by the node's apparent
 * skew (phase_clocks), never narrowed: a node up to D ahead stamps events up to D late, one
 * at least -D behind stamps them at least -D early.  Undated events, and any event of a job
 * whose times are unknown, are in.
 */
static enum win obs_window(const struct att *a, const struct pm_obs *o, bool wide)
{
	const struct pm_jobinfo *j = &a->ev->job;
	double sk = wide ? node_skew(a, obs_clock_node(a, o)) : 0, lo;

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

/* ---- phase: outcome ---- */

static const char *outcome_from_state(const char *st)
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

	a->outcome = outcome_from_state(ev->job.state);
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

/* ---- phase: known ranks and progress ---- */

/*
 * Slurm's own placement line: "srun: error: NODE: tasks 0-3,8: Exited with exit code 1" or
 * "srun: error: NODE: task 5: ...".  Appends (rank, node) for each task it names to V; at
 * most 1 << 20 ranks.  A line of another shape adds nothing.
 */
static int srun_tasks(const char *line, struct placed **v, size_t *n, size_t *al)
{
	const char *p = strstr(line, "srun: error: "), *q, *e;
	char node[128];
	size_t l;

	if (!p)
		return 0;
	p += 13;
	q = strstr(p, ": task");
	l = q ? (size_t)(q - p) : 0;
	if (!l || l >= sizeof(node) || memchr(p, ' ', l))
		return 0;
	memcpy(node, p, l);
	node[l] = '\0';
	p = q + 6;
	if (*p == 's')
		p++;
	if (*p++ != ' ')
		return 0;
	for (e = p; (*e >= '0' && *e <= '9') || *e == '-' || *e == ','; e++)
		;
	if (*e != ':')
		return 0;
	while (p < e) {
		char *x;
		long lo = strtol(p, &x, 10), hi = lo;
		if (x == p || lo < 0)
			return 0;
		if (*x == '-')
			hi = strtol(x + 1, &x, 10);
		if (hi < lo || hi >= 1 << 20 || *n + (size_t)(hi - lo) >= 1 << 20)
			return 0;
		for (long r = lo; r <= hi; r++) {
			if (*n == *al && pm_grow((void **)v, al, sizeof(**v)) < 0)
				return -1;
			(*v)[*n].rank = (int)r;
			snprintf((*v)[*n].node, sizeof((*v)[*n].node), "%s", node);
			(*n)++;
		}
		if (*x != ',')
			break;
		p = x + 1;
	}
	return 0;
}

static int cmpstr(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Whether the rank map names ranks on NODE: then it names every rank that ran there. */
static bool rankmap_node(const char **nodes, size_t n, const char *node)
{
	return n && node && bsearch(&node, nodes, n, sizeof(*nodes), cmpstr);
}

/*
 * rank -> node, from every source that places ranks, the first that knows a rank winning:
 * the plugin's rank map, then Slurm's task lines (srun_tasks), then the scanner's prefixes
 * (launchers and NCCL lines that carry both host and rank).  A node the rank map covers
 * gets no further rank from the other sources: a provisional verdict, with one node's
 * bundle still out, must not place that node's ranks where the job's output was read.
 */
static int place_ranks(struct att *a)
{
	struct pm_evidence *ev = a->ev;
	struct placed *sr = NULL;
	const char **mapn = NULL;
	size_t nsr = 0, asr = 0, nmap = 0, n = 0;
	int rc = -1;

	for (size_t i = 0; i < ev->nobs; i++)
		if (ev->obs[i].line && srun_tasks(ev->obs[i].line, &sr, &nsr, &asr) < 0)
			goto out;
	if (!(ev->ntasks + ev->nranks + nsr)) {
		rc = 0;
		goto out;
	}
	if (ev->ntasks && !(mapn = malloc(ev->ntasks * sizeof(*mapn))))
		goto out;
	for (size_t i = 0; i < ev->ntasks; i++)
		if (ev->tasks[i].node)
			mapn[nmap++] = ev->tasks[i].node;
	if (nmap > 1)
		qsort(mapn, nmap, sizeof(*mapn), cmpstr);
	a->rnode = malloc((ev->ntasks + ev->nranks + nsr) * sizeof(*a->rnode));
	if (!a->rnode)
		goto out;
	for (size_t i = 0; i < ev->ntasks; i++)
		if (ev->tasks[i].node)
			a->rnode[n++] = (struct rnode){ev->tasks[i].rank, i, ev->tasks[i].node};
	for (size_t i = 0; i < nsr; i++) {
		if (!rankmap_node(mapn, nmap, sr[i].node))
			a->rnode[n++] = (struct rnode){sr[i].rank, ev->ntasks + i, sr[i].node};
	}
	for (size_t i = 0; i < ev->nranks; i++)
		if (ev->ranks[i].node && !rankmap_node(mapn, nmap, ev->ranks[i].node))
			a->rnode[n++] = (struct rnode){ev->ranks[i].rank, ev->ntasks + nsr + i,
						       ev->ranks[i].node};
	if (n > 1)
		qsort(a->rnode, n, sizeof(*a->rnode), cmprnode);
	a->nrnode = 0;
	for (size_t i = 0; i < n; i++)
		if (!a->nrnode || a->rnode[a->nrnode - 1].rank != a->rnode[i].rank)
			a->rnode[a->nrnode++] = a->rnode[i];
	a->mapn = mapn;
	a->nmapn = nmap;
	a->placed = sr; /* the nodes of RNODE point into it */
	mapn = NULL;
	sr = NULL;
	rc = 0;
out:
	free(sr);
	free(mapn);
	return rc;
}

static int phase_ranks(struct att *a)
{
	struct pm_evidence *ev = a->ev;
	size_t al = 0;

	if (ev->job.ntasks > 0 && ev->job.ntasks <= 1 << 20)
		for (int r = 0; r < ev->job.ntasks; r++)
			if (pm_rankset_push(&a->known, &a->nknown, &al, r) < 0)
				return -1;
	for (size_t i = 0; i < ev->nranks; i++)
		if (ev->ranks[i].rank >= 0 && ev->ranks[i].rank < 1 << 20 &&
		    pm_rankset_push(&a->known, &a->nknown, &al, ev->ranks[i].rank) < 0)
			return -1;
	for (size_t i = 0; i < ev->ntasks; i++)
		if (ev->tasks[i].rank >= 0 &&
		    pm_rankset_push(&a->known, &a->nknown, &al, ev->tasks[i].rank) < 0)
			return -1;
	pm_rankset_done(a->known, &a->nknown);
	if (place_ranks(a) < 0)
		return -1;
	for (size_t i = 0; i < ev->nranks; i++) {
		const struct pm_rankinfo *ri = &ev->ranks[i];
		if (ri->first_progress > 0 &&
		    (!a->first_progress || ri->first_progress < a->first_progress))
			a->first_progress = ri->first_progress;
		if (ri->last_progress > a->last_progress)
			a->last_progress = ri->last_progress;
		if (ri->first_progress > 0 || ri->last_progress > 0)
			a->any_progress = true;
	}
	return 0;
}

const char *pm_att_rank_node(const struct att *a, int rank)
{
	if (a->rnode) {
		size_t lo = 0, hi = a->nrnode;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (a->rnode[mid].rank == rank)
				return a->rnode[mid].node;
			if (a->rnode[mid].rank < rank)
				lo = mid + 1;
			else
				hi = mid;
		}
		return NULL;
	}
	for (size_t i = 0; i < a->ev->ntasks; i++)
		if (a->ev->tasks[i].rank == rank && a->ev->tasks[i].node)
			return a->ev->tasks[i].node;
	for (size_t i = 0; i < a->ev->nranks; i++)
		if (a->ev->ranks[i].rank == rank && a->ev->ranks[i].node)
			return a->ev->ranks[i].node;
	return NULL;
}

/* A line that names its rank ran where that rank ran: the rank map knows, not the node that
 * read the file (the job's output is read on the batch node only). */
static void place_obs(struct att *a)
{
	for (size_t i = 0; i < a->ev->nobs; i++) {
		struct pm_obs *o = &a->ev->obs[i];
		const char *n = o->rank >= 0 ? pm_att_rank_node(a, o->rank) : NULL;
		if (n && (!o->node || strcmp(o->node, n))) {
			char *d = strdup(n);
			if (d) {
				free(o->node);
				o->node = d;
			}
		} else if (!n && o->rank >= 0 && rankmap_node(a->mapn, a->nmapn, o->node)) {
			/* the rank map names that node's ranks, and not this one */
			free(o->node);
			o->node = NULL;
		}
	}
}

/* ---- phase: hardware and software origin candidates ---- */

static int phase_origins(struct att *a, bool hardware)
{
	struct pm_evidence *ev = a->ev;

	for (size_t k = 0; k < ev->nobs; k++) {
		size_t i = a->order[k];
		const struct pm_obs *o = &ev->obs[i];
		const struct pm_rule *r = R(a, i);
		struct cand *c;

		if (r->role != PM_ROLE_ORIGIN || r->hardware != hardware)
			continue;
		bool plain = true;
		enum win w = o->trusted ? obs_window(a, o, true) : WIN_IN;
		/* hardware only from sources the user cannot write (phase_fallback has the
		 * rest); a trusted line from outside the job's time is not this job's */
		if ((hardware && !o->trusted) || w == WIN_OUT)
			continue;
		if (hardware && w == WIN_IN && obs_window(a, o, false) != WIN_IN) {
			struct clk *ck = node_clk(a, obs_clock_node(a, o));
			plain = false;
			if (ck)
				ck->kept++;
		}
		/* an external end (cancel, preemption, requeue) that Slurm's final record
		 * contradicts is a consequence, not a cause: the plain "STEP ... CANCELLED" line
		 * of a step killed for its memory, in a job the record says FAILED */
		if (!hardware && r->outcome && pm_class_external(r->cls) && a->outcome &&
		    outcome_from_state(ev->job.state) && strcmp(r->outcome, a->outcome))
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

/* A confirmation of the same class on the same node corroborates a candidate. */
static void phase_confirm(struct att *a)
{
	struct pm_evidence *ev = a->ev;

	for (size_t i = 0; i < a->nc; i++) {
		struct cand *c = &a->c[i];
		enum pm_source first = ev->obs[c->ev[0]].source;

		for (size_t k = 1; k < c->nev; k++)
			if (ev->obs[c->ev[k]].source != first)
				c->corroborated = true;
		for (size_t k = 0; k < ev->nobs; k++) {
			const struct pm_obs *o = &ev->obs[k];
			const struct pm_rule *r = R(a, k);
			if (r->role != PM_ROLE_CONFIRMATION || strcmp(r->cls, c->cls))
				continue;
			if (c->node[0] && (!o->node || strcmp(o->node, c->node)))
				continue;
			if (o->source != first)
				c->corroborated = true;
			cand_add(a, c, k);
		}
	}
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
		if (l < 0)
			link = -1;
	}
	return link;
}

/* This job's own ranks on C's node failed in a way an event there explains: a hardware
 * symptom (a CUDA error naming the GPU's fault) or a failure at launch, within the job. */
static bool stale_explained(const struct att *a, const struct cand *c)
{
	for (size_t k = 0; k < a->ev->nobs && c->node[0]; k++) {
		const struct pm_obs *o = &a->ev->obs[k];
		const struct pm_rule *r = R(a, k);
		if (!o->node || strcmp(o->node, c->node) ||
		    (o->trusted && obs_window(a, o, true) != WIN_IN))
			continue;
		if ((r->role == PM_ROLE_ORIGIN || r->role == PM_ROLE_CONFIRMATION) &&
		    (r->hardware || r->launch))
			return true;
	}
	return false;
}

/*
 * Time bounds evidence: an event stamped before the job began (within job_window_grace_s)
 * is what the node went through before this job, reported with its age.  It leads only
 * where this job's own ranks on that node failed in a way it explains (or a pid of this
 * job's tasks names it), and never above an explicit failure of this job on another node
 * (cmpcand); otherwise only when nothing else fits (a fallback, at most hypothesis).
 */
static void phase_stale(struct att *a)
{
	for (size_t i = 0; i < a->nc; i++) {
		struct cand *c = &a->c[i];
		const struct pm_obs *o;
		char what[200];

		if (c->dead || !c->nev || c->lead != LEAD_RULE)
			continue;
		c->pidlink = cand_pidlink(a, c);
		o = &a->ev->obs[c->ev[0]];
		if (o->xid > 0)
			snprintf(what, sizeof(what), "Xid %d (%s)", o->xid, c->summary);
		else
			snprintf(what, sizeof(what), "%s/%s (%s)", c->cls, c->sub, c->summary);
		if (!c->prestart) {
			if (c->pidlink < 0)
				why(a,
				    "%s names a pid that is none of this job's tasks on %s: the link "
				    "to this job is weaker (hypothesis).",
				    what, c->node);
			continue;
		}
		c->explained = c->node[0] && (c->pidlink > 0 || stale_explained(a, c));
		c->fallback = !c->explained;
		why(a, "%s logged %s %.0f s before this job began: %s", c->node[0] ? c->node : "A node",
		    what, a->ev->job.start - c->tpre,
		    c->explained ? "this job's own ranks there failed in a way it explains, so it "
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

/* ---- phase: the ranks that used a failing GPU ---- */

/* Bus ids as the kernel and nvidia-smi write them ("0000:3b:00", "0000:3B:00.0"): equal up
 * to the function digit, whatever the case. */
static bool pci_eq(const char *x, const char *y)
{
	size_t lx = strcspn(x, "."), ly = strcspn(y, ".");

	return lx == ly && !strncasecmp(x, y, lx);
}

/* Whether a rank map's GPU list ("0,1") holds index IDX. */
static bool gpus_has(const char *list, int idx)
{
	for (const char *p = list; p && *p;) {
		char *e;
		long v = strtol(p, &e, 10);
		if (e != p && v == idx && (*e == ',' || !*e))
			return true;
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	return false;
}

/* The GPU's index on NODE for bus id PCI, from nvidia-smi's table; -1 unknown. */
static int pci_index(const struct att *a, const char *node, const char *pci)
{
	for (size_t i = 0; i < a->ev->nfacts; i++) {
		const struct pm_fact *f = &a->ev->facts[i];
		if (f->gpu >= 0 && f->pci && f->node && !strcmp(f->node, node) && pci_eq(f->pci, pci))
			return f->gpu;
	}
	return -1;
}

/* A GPU named by a hardware event (by index, or by bus id through nvidia-smi's table) was
 * used by the ranks the rank map gives that GPU on that node: they are the origin's ranks. */
static int phase_gpu_ranks(struct att *a)
{
	for (size_t i = 0; i < a->nc; i++) {
		struct cand *c = &a->c[i];
		if (c->dead || !c->hardware || !c->node[0] || c->fallback)
			continue;
		for (size_t k = 0; k < c->nev; k++) {
			const struct pm_obs *o = &a->ev->obs[c->ev[k]];
			int idx = o->gpu;
			if (!o->trusted || !o->node || strcmp(o->node, c->node))
				continue;
			if (idx < 0 && o->pci)
				idx = pci_index(a, c->node, o->pci);
			for (size_t t = 0; idx >= 0 && t < a->ev->ntasks; t++) {
				const struct pm_task *tk = &a->ev->tasks[t];
				if (tk->node && !strcmp(tk->node, c->node) && tk->gpus &&
				    gpus_has(tk->gpus, idx) && cand_addrank(c, tk->rank) < 0)
					return -1;
			}
		}
	}
	return 0;
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
		if (r->role == PM_ROLE_CASCADE && r->hardware &&
		    fallback_add(a, i, rep, note) < 0)
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
		if (o->trusted ? obs_window(a, o, true) == WIN_OUT : o->source != PM_SRC_APP_LOG)
			continue;
		if (fallback_add(a, i, o->node,
				 o->trusted ? "a confirming symptom with no origin event beside it" :
					      "it is seen only in the job's own output, which its "
					      "user can write: no kernel log or GPU state shows it") <
		    0)
			return -1;
	}
	return single_reporter(a);
}

/* ---- phase: silence (R-NCCL-2) ---- */

struct rseq {
	int rank;
	long long seq;
};

static int cmprseq(const void *x, const void *y)
{
	const struct rseq *a = x, *b = y;

	if (a->rank != b->rank)
		return (a->rank > b->rank) - (a->rank < b->rank);
	return (a->seq > b->seq) - (a->seq < b->seq);
}

static int phase_silence(struct att *a)
{
	struct pm_evidence *ev = a->ev;
	struct rseq *t = NULL; /* (rank, sequence number) of every timed-out collective */
	size_t n = 0, nt = 0, as = a->nsuspects;
	long long maxseq = -1;
	int rc = -1;

	if (ev->nobs && !(t = malloc(ev->nobs * sizeof(*t))))
		goto out;
	for (size_t i = 0; i < ev->nobs; i++) {
		const struct pm_obs *o = &ev->obs[i];
		if (R(a, i)->role != PM_ROLE_CASCADE || o->seq < 0 || o->rank < 0)
			continue;
		t[n++] = (struct rseq){o->rank, o->seq};
		if (o->seq > maxseq)
			maxseq = o->seq;
	}
	if (!n) {
		rc = 0;
		goto out;
	}
	/* per rank, the highest sequence number it reported: the last of its run */
	qsort(t, n, sizeof(*t), cmprseq);
	for (size_t i = 0; i < n; i++) {
		if (i + 1 < n && t[i + 1].rank == t[i].rank)
			continue;
		t[nt++] = t[i];
	}
	/* the known ranks that reported no timeout: the walk of two sorted lists */
	for (size_t i = 0, k = 0; i < a->nknown; i++) {
		while (k < nt && t[k].rank < a->known[i])
			k++;
		if ((k == nt || t[k].rank != a->known[i]) &&
		    pm_rankset_push(&a->suspects, &a->nsuspects, &as, a->known[i]) < 0)
			goto out;
	}
	/* a rank whose last enqueued collective is behind its peers' never reached it: per
	 * rank, the highest sequence number it reported is what counts */
	for (size_t k = 0; k < nt; k++)
		if (t[k].seq < maxseq && pm_rankset_push(&a->suspects, &a->nsuspects, &as, t[k].rank) < 0)
			goto out;
	pm_rankset_done(a->suspects, &a->nsuspects);
	if (a->nsuspects && a->nsuspects < a->nknown) {
		char list[256] = "";
		size_t m = 0;
		for (size_t i = 0; i < a->nsuspects && m < sizeof(list) - 12; i++)
			m += (size_t)snprintf(list + m, sizeof(list) - m, "%s%d", i ? "," : "",
					      a->suspects[i]);
		why(a,
		    "%zu rank(s) reported collective timeouts; rank(s) %s did not, or were "
		    "behind: they are suspects (silence).",
		    nt, list);
	} else {
		free(a->suspects);
		a->suspects = NULL;
		a->nsuspects = 0;
	}
	rc = 0;
out:
	free(t);
	return rc;
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
	struct cand *c = kind_get(a, vt->status12 ? PM_K_PEER_LINK : PM_K_REMOTE_ERROR, vt->node,
				  LEAD_VOTES);

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
	c = kind_get(a, PM_K_PEER_LINK, rep, LEAD_VOTES);
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

/* How many silent suspects this candidate explains (ranks it names, or ranks on its node). */
static size_t silent_support(const struct att *a, const struct cand *c)
{
	size_t n = 0;

	for (size_t i = 0; i < a->nsuspects; i++) {
		const char *rn = pm_att_rank_node(a, a->suspects[i]);
		bool hit = c->node[0] && rn && !strcmp(rn, c->node);
		for (size_t k = 0; k < c->nranks && !hit; k++)
			hit = c->ranks[k] == a->suspects[i];
		n += hit;
	}
	return n;
}

/* The apparent skew (absolute, beyond the tolerance) of the clock C's times come from: its
 * node's, or for a candidate of several nodes the largest of any node's. */
static double cand_skew(const struct att *a, const struct cand *c)
{
	return c->node[0] ? fabs(node_skew(a, c->node)) : a->maxskew;
}

/* How far apart two candidates' times must be for the earlier to count as first: the skew
 * tolerance, widened by the larger apparent skew of their nodes' clocks (on one node, one
 * clock: the tolerance alone). */
static double pair_tol(const struct att *a, const struct cand *x, const struct cand *y)
{
	double sx, sy;

	if (x->node[0] && !strcmp(x->node, y->node))
		return a->rs->skew_s;
	sx = cand_skew(a, x);
	sy = cand_skew(a, y);
	return a->rs->skew_s + (sx > sy ? sx : sy);
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
	 * over an explicit failure of this job elsewhere (phase_stale) */
	if (a->prestart != b->prestart && a->lead == LEAD_RULE && b->lead == LEAD_RULE) {
		const struct cand *p = a->prestart ? a : b, *q = a->prestart ? b : a;
		bool same = p->node[0] && !strcmp(p->node, q->node);
		return same == (p == a) ? -1 : 1;
	}
	if (a->has_t && b->has_t && fabs(a->t - b->t) > pair_tol(at, a, b))
		return a->t < b->t ? -1 : 1;
	/* within the tolerance, the explanation of the ranks that fell silent wins */
	size_t sa = silent_support(at, a), sb = silent_support(at, b);
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
	return fabs(x->t - y->t) <= pair_tol(a, x, y);
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
	return dt > a->rs->skew_s && dt <= pair_tol(a, x, y) && cand_rank(x) == cand_rank(y) &&
	       outcome_rank(a, x) == outcome_rank(a, y) &&
	       silent_support(a, x) == silent_support(a, y) && x->strength == y->strength &&
	       x->t < y->t;
}

static int cmpclkskew(const void *x, const void *y)
{
	const struct clk *a = *(const struct clk *const *)x, *b = *(const struct clk *const *)y;

	if (fabs(a->d) != fabs(b->d))
		return fabs(a->d) > fabs(b->d) ? -1 : 1;
	return strcmp(a->node, b->node);
}

/* Say which nodes' clocks appear off by more than the tolerance, and what was done about it
 * (phase_clocks, in_window, pair_tol): the largest first, four at most, then a count. */
static void skew_notes(struct att *a)
{
	const struct clk **v;
	size_t n = 0;
	double tol = a->rs->skew_s;

	if (!a->nclk || !(v = malloc(a->nclk * sizeof(*v))))
		return;
	for (size_t i = 0; i < a->nclk; i++)
		if (fabs(a->clk[i].d) > tol)
			v[n++] = &a->clk[i];
	qsort(v, n, sizeof(*v), cmpclkskew);
	for (size_t i = 0; i < n && i < 4; i++) {
		const struct clk *c = v[i];
		double d = fabs(c->d);
		char kept[80] = "";

		if (c->kept)
			snprintf(kept, sizeof(kept), " (%zu hardware event(s) kept only thus)",
				 c->kept);
		if (c->d > 0 && c->d_collect > 0)
			why(a,
			    "Clock skew on %s: every node's tasks exited at least %.1f s after the "
			    "job's end (the job's own teardown); beyond that, its collector began "
			    "%.1f s later by its own clock, more than the %.1f s skew tolerance: its "
			    "clock may be up to %.1f s ahead of the controller's (or its epilog began "
			    "late). Its events count up to %.1f s after the job's end%s; its times "
			    "decide no order against other nodes' within %.1f s.",
			    c->node, a->teardown, d, tol, d, d + tol, kept, d + tol);
		else if (c->d > 0)
			why(a,
			    "Clock skew on %s: its collector began %.1f s after the job's end "
			    "(accounting record) by its own clock, beyond the %.1f s skew tolerance: "
			    "its clock may be up to %.1f s ahead of the controller's (or its epilog "
			    "began late). Its events count up to %.1f s after the job's end%s; its "
			    "times decide no order against other nodes' within %.1f s.",
			    c->node, d, tol, d, d + tol, kept, d + tol);
		else
			why(a,
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
			why(a,
			    "%s's collector began %.1f s after the job's end by its own clock, but "
			    "every node's tasks exited at least %.1f s after that end by their own "
			    "clocks (processes that outlived it): its epilog began late with the "
			    "job's teardown; its clock is not shown to be skewed.",
			    c->node, c->d_collect, a->teardown);
		else if (c->exits && c->d > tol && c->late <= tol)
			why(a,
			    "%s's tasks last exited %+.1f s from the job's end by its own clock: "
			    "its collector's later start may be a late epilog rather than its "
			    "clock.",
			    c->node, c->late);
	}
	if (n > 4)
		why(a,
		    "Clock skew: %zu more node(s) appear off by more than the %.1f s tolerance "
		    "(up to %.1f s); their windows and orderings are widened alike.",
		    n - 4, tol, fabs(v[4]->d));
	free(v);
}

/* ---- phase: what Slurm itself decided ---- */

static struct cand *synth(struct att *a, enum pm_kind k, const char *node, const char *summary)
{
	struct cand *c = kind_get(a, k, node, LEAD_RULE);

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
			struct cand *c = kind_get(a, PM_K_HANG, NULL, LEAD_SILENCE);
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
	bool from_sacct = outcome_from_state(a->ev->job.state) != NULL;

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
	else if (!strcmp(o, "CANCELLED") || !strcmp(o, "PREEMPTED") || !strcmp(o, "REQUEUED"))
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

/* The ranks with the fewest completed collectives are the suspects of a timeout nobody
 * can attribute (phase 9): listed as its origin, still ambiguous. */
static void fewest_completed(struct att *a, struct cand *c)
{
	const struct pm_evidence *ev = a->ev;
	long long lo = -1, hi = -1;

	for (size_t i = 0; i < ev->nobs; i++) {
		const struct pm_obs *o = &ev->obs[i];
		if (o->seqdone < 0 || o->rank < 0)
			continue;
		if (lo < 0 || o->seqdone < lo)
			lo = o->seqdone;
		if (o->seqdone > hi)
			hi = o->seqdone;
	}
	if (lo < 0 || lo == hi)
		return;
	for (size_t i = 0; i < ev->nobs; i++) {
		const struct pm_obs *o = &ev->obs[i];
		if (o->seqdone == lo && o->rank >= 0)
			cand_addrank(c, o->rank);
	}
	/* one node holding every suspect is named; several stay job-wide */
	const char *n = NULL;
	for (size_t i = 0; i < c->nranks; i++) {
		const char *rn = pm_att_rank_node(a, c->ranks[i]);
		if (!rn || (n && strcmp(n, rn))) {
			n = NULL;
			break;
		}
		n = rn;
	}
	if (n)
		snprintf(c->node, sizeof(c->node), "%s", n);
	why(a,
	    "Rank(s) with the fewest completed collectives (%lld, against %lld elsewhere) are "
	    "the suspects.",
	    lo, hi);
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

/* Silence with nothing else: the silent ranks are the lead. */
static void phase_silence_lead(struct att *a)
{
	const char *node = NULL;
	bool one = true;
	struct cand *c;

	if (!a->nsuspects)
		return;
	for (size_t i = 0; i < a->nc; i++) {
		struct cand *h = &a->c[i];
		bool joined = false;
		if (!h->hardware || h->dead || h->prestart || h->fallback)
			continue;
		for (size_t k = 0; k < a->nsuspects; k++) {
			const char *n = pm_att_rank_node(a, a->suspects[k]);
			if (n && !strcmp(n, h->node)) {
				cand_addrank(h, a->suspects[k]);
				joined = true;
			}
		}
		if (joined)
			why(a, "The silent rank(s) ran on %s, where the hardware event is.",
			    h->node);
	}
	/* an error explains the silence when it names a silent rank: no hang of its own */
	for (size_t i = 0; i < a->nc; i++)
		if (!a->c[i].dead && (!a->c[i].fallback || silent_support(a, &a->c[i])))
			return;
	for (size_t k = 0; k < a->nsuspects; k++) {
		const char *n = pm_att_rank_node(a, a->suspects[k]);
		if (!node)
			node = n;
		else if (!n || strcmp(node, n))
			one = false;
	}
	c = kind_get(a, PM_K_HANG, one && node ? node : NULL, LEAD_SILENCE);
	if (!c)
		return;
	c->strength = PM_WEAK;
	for (size_t k = 0; k < a->nsuspects; k++)
		cand_addrank(c, a->suspects[k]);
	snprintf(c->summary, sizeof(c->summary),
		 "rank %d%s stopped without an error while its "
		 "peers timed out waiting for it",
		 a->suspects[0], a->nsuspects > 1 ? " and others" : "");
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
static void timeouts_lead(struct att *a)
{
	struct cand *l = kind_get(a, PM_K_TIMEOUTS, NULL, LEAD_TIMEOUTS);

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
		fewest_completed(a, l);
		a->live = 1;
	}
	a->status = VS_AMBIGUOUS;
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
	       silent_support(a, l) == silent_support(a, s);
}

/* What would separate an ambiguous verdict's candidates (ambiguity.test). */
static void ambiguity_test(struct att *a)
{
	const struct cand *l = a->lead, *s = a->second;

	if (a->ambiguous && l && s) {
		const struct pm_decision *d1 = pm_ruleset_decision(a->rs, l->cls, l->sub);
		const struct pm_decision *d2 = pm_ruleset_decision(a->rs, s->cls, s->sub);
		char t1[300], t2[300], wide[96] = "";
		double tol = pair_tol(a, l, s);

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
			why(a, "Only consequences fired (collective or transport errors after "
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
	from_record = outcome_from_state(a->ev->job.state) != NULL;
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
	free(a->suspects);
	free(a->clk);
}

json_t *pm_attribute(struct pm_evidence *ev)
{
	struct att a;
	json_t *v = NULL;

	if (att_init(&a, ev) < 0 || phase_ranks(&a) < 0)
		goto out;
	place_obs(&a);
	if (pm_obs_summaries(ev) < 0)
		goto out;
	phase_outcome(&a);
	if (phase_clocks(&a) < 0 || phase_origins(&a, true) < 0)
		goto out;
	skew_notes(&a);
	if (a.nc)
		why(&a, "Hardware evidence from a source the job cannot write, in the job window: "
			"it outranks software errors elsewhere.");
	if (phase_silence(&a) < 0 || phase_votes(&a) < 0 || phase_origins(&a, false) < 0)
		goto out;
	phase_merge(&a);
	phase_confirm(&a);
	phase_stale(&a);
	if (phase_gpu_ranks(&a) < 0)
		goto out;
	phase_all_ranks(&a);
	phase_scheduler(&a);
	if (phase_fallback(&a) < 0)
		goto out;
	phase_silence_lead(&a);
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
