/*
 * attribute.c - from observations to one verdict, in the phases of ATTRIBUTION.md:
 * job, outcome, cascades set aside, trusted hardware, silence, peer votes, software
 * candidates, ordering and ambiguity, confidence, bystanders, first error, decision.
 * Everything is ordered deterministically: by time, then file name, then offset.
 *
 * This file holds the phases' order (pm_attribute), the why, rank sets and the candidates'
 * common parts; the phases themselves are in att_yield.c (generic readings set aside for a
 * specific one), att_cands.c (the outcome and the candidates),
 * att_votes.c (peer votes, one error on every rank), att_sched.c (what Slurm decided),
 * att_decide.c (order, status, confidence), att_time.c, att_ranks.c and att_place.c.
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

/* a printf format (clang's -Wformat-nonliteral, in the fuzz build, asks vsnprintf's FMT to
 * be one) */
__attribute__((format(printf, 2, 0))) static void vwhy(struct att *a, const char *fmt, va_list ap)
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

void pm_att_why_one_reporter(struct att *a)
{
	char buf[512];

	if (!a->one_host_why || a->one_host_why > json_array_size(a->why))
		return;
	snprintf(buf, sizeof(buf),
		 "The folder's files name one host, %s: what they report without a node was "
		 "reported by a process there; that is where it was seen, not where it "
		 "happened.",
		 a->one_host);
	json_array_set_new(a->why, a->one_host_why - 1, json_string(buf));
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

/* Sets of many ranks (32768 in a large job) are built whole and then sorted, never with
 * addrank's walk per rank: append, then rankset_done. */
void pm_att_retire(struct att *a, char *s)
{
	if (!s || (a->nretired == a->aretired &&
		   pm_grow((void **)&a->retired, &a->aretired, sizeof(*a->retired)) < 0))
		return;
	a->retired[a->nretired++] = s;
}

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
	pm_sort(v, *n, sizeof(int), pm_cmp_int);
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

void pm_att_cand_ranks_clear(struct cand *c)
{
	c->nranks = 0;
	if (c->rbits)
		memset(c->rbits, 0, c->nrbits * sizeof(*c->rbits));
}

/* ---- ordering of observations ---- */

static int cmpobs(const void *x, const void *y, void *arg)
{
	const struct pm_evidence *ev = arg;
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	const struct pm_obs *a = &ev->obs[i], *b = &ev->obs[j];
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
	if (a->rule != b->rule)
		return a->rule < b->rule ? -1 : 1;
	/* one rule at one line of one file twice (three fixtures have such a pair, e.g.
	 * prom-nvlink-crc-rising-hang): their order in the evidence, as a stable merge sort
	 * (pm_sort_r, glibc's qsort_r before it) of the identity left them.  A total order: any
	 * sort, and sorted parts merged (order_obs), give this one order. */
	return i < j ? -1 : i > j;
}

/*
 * The observations' order on two threads: each half sorted on one, then the halves merged,
 * the first half of the order from their fronts on one thread and the rest from their ends
 * on the other.  cmpobs is a total order (no two observations compare equal), so the order
 * is the one a sort of the whole gives, whatever sort and whoever merges.  Up to a block of
 * observations (every fixture), or with one thread, the whole is sorted on the caller's thread.
 */
#ifndef ORDER_BLOCK /* a build with -DORDER_BLOCK=8 takes the threads' path on every fixture */
#define ORDER_BLOCK 4096
#endif

struct order_run {
	const struct pm_evidence *ev;
	const size_t *in; /* the halves, sorted: [0, h) and [h, n) */
	size_t *v, *out;
	size_t n, h;
};

static char order_done;

static void *order_sort(void *arg, unsigned w, size_t k)
{
	struct order_run *run = arg;
	size_t from = k ? run->h : 0, to = k ? run->n : run->h;

	(void)w;
	if (to - from > 1)
		pm_sort_r(run->v + from, to - from, sizeof(size_t), cmpobs, (void *)run->ev);
	return &order_done;
}

static void *order_merge(void *arg, unsigned w, size_t k)
{
	struct order_run *run = arg;
	const size_t *v = run->in, h = run->h, n = run->n;
	void *ev = (void *)run->ev;

	(void)w;
	if (!k) { /* places 0 to h - 1: the smaller head first */
		size_t i = 0, j = h;
		for (size_t o = 0; o < h; o++) {
			bool left = j == n || (i < h && cmpobs(&v[i], &v[j], ev) < 0);
			run->out[o] = left ? v[i++] : v[j++];
		}
	} else { /* places n - 1 down to h: the larger end first; i, j one past it */
		size_t i = h, j = n;
		for (size_t o = n; o-- > h;) {
			bool left = j == h || (i > 0 && cmpobs(&v[i - 1], &v[j - 1], ev) > 0);
			run->out[o] = left ? v[--i] : v[--j];
		}
	}
	return &order_done;
}

static int order_take(void *arg, size_t k, void *item)
{
	(void)arg;
	(void)k;
	(void)item;
	return 0;
}

static int order_obs(struct att *a)
{
	struct pm_evidence *ev = a->ev;
	struct order_run run = {ev, NULL, a->order, NULL, ev->nobs, ev->nobs / 2};
	struct pm_work w = {order_sort, order_take, NULL, &run, 0, false};

	if (ev->nobs <= ORDER_BLOCK || ev->threads < 2) {
		if (ev->nobs > 1)
			pm_sort_r(a->order, ev->nobs, sizeof(size_t), cmpobs, ev);
		return 0;
	}
	if (!(run.out = malloc(ev->nobs * sizeof(size_t))))
		return -1;
	(void)pm_work_run(&w, 2, 2);
	run.in = run.v;
	w.make = order_merge;
	(void)pm_work_run(&w, 2, 2);
	free(a->order);
	a->order = run.out;
	return 0;
}

/* ---- candidates ---- */

struct cand *pm_att_cand_get(struct att *a, const char *cls, const char *sub, const char *node,
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

/* The job's nodes, from its accounting record, else every node the evidence names. */
char **pm_att_nodes(const struct att *a, size_t *n)
{
	const struct pm_evidence *ev = a->ev;

	*n = ev->job.nnodes ? ev->job.nnodes : ev->nnodes;
	return ev->job.nnodes ? ev->job.nodes : ev->nodes;
}

/* The candidate of kind K (taxonomy.h) on NODE, made when missing. */
struct cand *pm_att_kind_get(struct att *a, enum pm_kind k, const char *node, enum lead lead)
{
	return pm_att_cand_get(a, pm_kind(k)->cls, pm_kind(k)->sub, node, lead);
}

/* An origin-class event from a source the user cannot write, stamped before the job began:
 * context for this job (pm_att_phase_stale), never its origin by itself. */
static bool obs_before(const struct att *a, const struct pm_obs *o)
{
	return o->trusted && pm_att_obs_window(a, o, true) == WIN_BEFORE;
}

bool pm_att_cand_holds(const struct cand *c, size_t oi)
{
	for (size_t k = 0; k < c->nev; k++)
		if (c->ev[k] == oi)
			return true;
	return false;
}

int pm_att_cand_add(const struct att *a, struct cand *c, size_t oi)
{
	const struct pm_obs *o = &a->ev->obs[oi];
	const struct pm_rule *r = &a->rs->rules[o->rule];
	bool pre = obs_before(a, o);
	double late;
	int gpu;
	const char *pci, *rpci;

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
	/* read at collection: a state, not an old line; but a count with no baseline (since the
	 * driver loaded) says an error happened, not when: undated.  So is any reading of a
	 * snapshot taken well after the job (a hand-run nvidia-smi -q hours later): its counts
	 * and states may come from a later job, and a GPU fault it shows is not dated within
	 * this one (pm_att_late_snapshot; trust-nvsmi-q-snapshot-hours-after-end) */
	late = pm_att_late_snapshot(a, o);
	if (late > c->late_snap)
		c->late_snap = late;
	if ((r->has_cond || o->source == PM_SRC_GPU_STATE) && !r->counter && !late)
		c->current = true;
	if (o->rank >= 0 && pm_att_cand_addrank(c, o->rank) < 0)
		return -1;
	if (!c->summary[0]) {
		char sum[PM_OBS_SUMMARY_MAX];
		snprintf(c->summary, sizeof(c->summary), "%s", pm_obs_summary(a->ev, o, sum));
		c->sumobs = oi + 1;
	}
	/* the GPU by the node's index: a program's "GPU 0" is CUDA's, mapped through its
	 * rank's GPU list, else unknown and not named (pm_att_obs_node_gpu) */
	/* an index read off nvidia-smi's table comes with the row's bus id: which numbering a
	 * reader goes by (nvidia-smi -i, /dev/nvidiaN), the bus id names the one GPU */
	gpu = pm_att_obs_node_gpu(a, o, o->node ? o->node : pm_att_rank_node(a, o->rank), &rpci);
	pci = o->pci ? o->pci : gpu >= 0 ? rpci : NULL;
	if ((pci || gpu >= 0) && c->ngpus < 8) {
		char g[160];
		size_t l;
		if (gpu >= 0 && pci)
			snprintf(g, sizeof(g), "%s:%d (%s)", o->node ? o->node : "?", gpu, pci);
		else if (gpu >= 0)
			snprintf(g, sizeof(g), "%s:%d", o->node ? o->node : "?", gpu);
		else
			snprintf(g, sizeof(g), "%s (%s)", o->node ? o->node : "?", pci);
		/* one GPU named twice, by index alone and with its bus id: the fuller name */
		l = strcspn(g, " ");
		for (size_t i = 0; i < c->ngpus; i++) {
			size_t li = strcspn(c->gpus[i], " ");
			if (!strcmp(c->gpus[i], g) ||
			    (gpu >= 0 && !pci && li == l && !strncmp(c->gpus[i], g, l)))
				return 0;
			if (gpu >= 0 && pci && !c->gpus[i][li] && li == l &&
			    !strncmp(c->gpus[i], g, l)) {
				char *x = strdup(g);
				if (x) {
					free(c->gpus[i]);
					c->gpus[i] = x;
				}
				return 0;
			}
		}
		c->gpus[c->ngpus] = strdup(g);
		if (c->gpus[c->ngpus])
			c->ngpus++;
	}
	return 0;
}

void pm_att_phase_summaries(struct att *a)
{
	for (size_t i = 0; i < a->nc; i++) {
		struct cand *c = &a->c[i];
		bool one = c->node[0] && !c->nalso;
		struct pm_obs o;
		char sum[PM_OBS_SUMMARY_MAX];

		if (c->dead || !c->sumobs)
			continue;
		o = a->ev->obs[c->sumobs - 1];
		if (!o.node && one)
			o.node = c->node;
		/* a rank placed over srun's task id (att_place.c, drop_task_ranks) */
		if ((o.rank < 0 || (o.has_label && o.rank == o.label)) && c->nranks == 1 &&
		    !c->all_ranks)
			o.rank = c->ranks[0];
		snprintf(c->summary, sizeof(c->summary), "%s", pm_obs_summary(a->ev, &o, sum));
		if (c->refobs) { /* what read it anew: the job's words, then the state's */
			char ref[PM_OBS_SUMMARY_MAX];
			size_t n = strlen(c->summary);
			snprintf(c->summary + n, sizeof(c->summary) - n, "; %s",
				 pm_obs_summary(a->ev, &a->ev->obs[c->refobs - 1], ref));
		}
		for (size_t k = 0; one && k < c->ngpus; k++) {
			char g[160], *x;
			if (c->gpus[k][0] != '?' || (c->gpus[k][1] != ':' && c->gpus[k][1] != ' '))
				continue;
			snprintf(g, sizeof(g), "%s%s", c->node, c->gpus[k] + 1);
			if ((x = strdup(g))) {
				free(c->gpus[k]);
				c->gpus[k] = x;
			}
		}
	}
}

/* ---- the phases, in order (engine/ATTRIBUTION.md) ---- */

static int att_init(struct att *a, struct pm_evidence *ev)
{
	memset(a, 0, sizeof(*a));
	a->ev = ev;
	a->rs = ev->rs;
	a->tline = UINT64_MAX;
	a->why = json_array();
	/* a sinfo -R row of several job nodes becomes one observation each: before the
	 * lists sized by the observations' count */
	if (!a->why || pm_att_job_names(a) < 0 || pm_att_src_names(a) < 0 ||
	    pm_att_split_rows(a) < 0)
		return -1;
	a->order = malloc((ev->nobs ? ev->nobs : 1) * sizeof(size_t));
	a->eid = calloc(ev->nobs ? ev->nobs : 1, sizeof(size_t));
	if (!a->order || !a->eid)
		return -1;
	for (size_t i = 0; i < ev->nobs; i++)
		a->order[i] = i;
	if (order_obs(a) < 0)
		return -1;
	return pm_att_yield(a);
}

static void att_free(struct att *a)
{
	json_decref(a->why);
	for (size_t i = 0; i < a->njn; i++) {
		free(a->jwhole ? a->jwhole[i].key : NULL);
		free(a->jfirst ? a->jfirst[i].key : NULL);
	}
	free(a->jwhole);
	free(a->jfirst);
	free(a->jdom);
	for (size_t i = 0; i < a->nc; i++) {
		free(a->c[i].ev);
		free(a->c[i].ranks);
		free(a->c[i].rbits);
		for (size_t k = 0; k < a->c[i].ngpus; k++)
			free(a->c[i].gpus[k]);
	}
	free(a->order);
	free(a->eid);
	free(a->pstart);
	free(a->known);
	free(a->rnode);
	for (size_t i = 0; i < a->nretired; i++)
		free(a->retired[i]);
	free(a->retired);
	free(a->rkh);
	free(a->rkhs);
	free(a->tnode);
	free(a->mapn);
	free(a->amb);
	free(a->srun_bad);
	free(a->srun_dbl);
	free(a->placed);
	free(a->hosts);
	free(a->hidx);
	free(a->guessed);
	free(a->pgain);
	free(a->outside);
	free(a->libpfx);
	free(a->srcname);
	free(a->sysgain);
	free(a->yielded);
	free(a->not_job);
	free(a->end_aside);
	free(a->handled);
	free(a->hranks);
	free(a->rhost);
	free(a->troot);
	free(a->suspects);
	free(a->clk);
}

bool pm_att_hand_given(const struct att *a, const struct pm_obs *o)
{
	return o->trusted && !a->ev->files[o->file].kind_given;
}

/* What a file of format F is given as, for a reader: "kernel log", "nvidia-smi report". */
static const char *given_as(enum pm_format f, bool *own)
{
	*own = true;
	switch (f) {
	case PM_FMT_DMESG:
	case PM_FMT_KMSG_ISO:
	case PM_FMT_SYSLOG:
		return "kernel log";
	case PM_FMT_NVSMI_Q:
	case PM_FMT_NVSMI_CSV:
	case PM_FMT_NVSMI_TABLE:
		return "nvidia-smi report";
	case PM_FMT_PROMETHEUS:
	case PM_FMT_MEMINFO:
		return "metrics";
	case PM_FMT_SLURMD_LOG:
		return "slurmd log";
	case PM_FMT_SLURMCTLD_LOG:
		*own = false;
		return "slurmctld's log";
	case PM_FMT_RANK_MAP:
	case PM_FMT_TASK_EXIT:
		*own = false;
		return "the plugin's records";
	default:
		*own = false;
		return "Slurm's record";
	}
}

size_t pm_att_hand_files(const struct att *a, const struct cand *c, bool node_side, char *buf,
			 size_t n)
{
	uint32_t seen[16];
	size_t k = 0, at = 0;
	bool over = false;

	if (n)
		buf[0] = '\0';
	for (size_t i = 0; i < (c ? 1 : a->nc); i++) {
		const struct cand *d = c ? c : &a->c[i];
		if (!c && d->dead)
			continue;
		for (size_t e = 0; e < d->nev; e++) {
			const struct pm_obs *o = &a->ev->obs[d->ev[e]];
			const struct pm_file *f = &a->ev->files[o->file];
			bool dup = false, own;
			if (!pm_att_hand_given(a, o) ||
			    (node_side && o->source != PM_SRC_KERNEL_LOG &&
			     o->source != PM_SRC_GPU_STATE && o->source != PM_SRC_NODE_METRICS))
				continue;
			for (size_t j = 0; j < k && !dup; j++)
				dup = seen[j] == o->file;
			if (dup)
				continue;
			if (k == sizeof(seen) / sizeof(seen[0])) {
				over = true;
				continue;
			}
			seen[k++] = o->file;
			const char *what = given_as(f->format, &own);
			if (k <= 3 && at < n)
				at += (size_t)snprintf(buf + at, n - at, "%s%s as %s%s%s",
						       k > 1 ? ", " : "", f->name,
						       !own    ? "" :
						       o->node ? o->node :
								 "a",
						       !own    ? "" :
						       o->node ? "'s " :
								 " ",
						       what);
		}
	}
	if (k > 3 && at < n)
		snprintf(buf + at, n - at, " and %zu%s more", k - 3, over ? " or" : "");
	return k;
}

/* Whether a candidate that hardware evidence leads is still standing. */
static bool live_hardware(const struct att *a)
{
	/* an undated one (a monotonic stamp, a count with no baseline) that leads, explained by
	 * this job's errors on its node, is not known to be in the job window */
	for (size_t i = 0; i < a->nc; i++)
		if (!a->c[i].dead && a->c[i].hardware && !a->c[i].fallback &&
		    (a->c[i].has_t || a->c[i].current || pm_att_no_window(a)))
			return true;
	return false;
}

json_t *pm_attribute(struct pm_evidence *ev)
{
	struct att a;
	json_t *v = NULL;
	size_t placed, hwline;

	if (att_init(&a, ev) < 0 || pm_att_phase_ranks(&a) < 0)
		goto out;
	pm_att_node_reasons(&a);
	pm_att_place_obs(&a);
	if (pm_att_phase_place(&a) < 0 || pm_att_rank_hosts(&a) < 0)
		goto out;
	pm_att_output_start(&a);
	pm_att_phase_outcome(&a);
	if (pm_att_phase_clocks(&a) < 0 || pm_att_phase_origins(&a, true) < 0)
		goto out;
	pm_att_skew_notes(&a);
	/* a node failure only a file shaped as slurmctld's log gives, with no record
	 * (att_cands.c, ctld_node_fail), is no source the job cannot write */
	bool hwtrusted = false;
	for (size_t i = 0; i < a.nc; i++)
		hwtrusted = hwtrusted || !a.c[i].user_record;
	hwline = hwtrusted ? json_array_size(a.why) : SIZE_MAX;
	if (hwtrusted) {
		const char *when =
			!pm_att_no_window(&a)  ? "in the job window" :
			pm_att_half_window(&a) ? "on the side the record leaves the job's "
						 "window open (no start, or no end)" :
						 "with no record of the job's time";
		char hand[600];
		size_t nh = pm_att_hand_files(&a, NULL, false, hand, sizeof(hand));

		/* "a source the job cannot write" only where a collector's manifest says which
		 * file is which: a hand-gathered file is whatever its content and name make it,
		 * and whoever gathered the folder (or the job, into its own folder) wrote it
		 * (review32 F01) */
		if (!nh)
			pm_att_why(&a,
				   "Hardware evidence from a source the job cannot write, %s: it "
				   "outranks software errors elsewhere.",
				   when);
		else
			pm_att_why(&a,
				   "Hardware evidence from %s (%s), %s: it outranks software errors "
				   "elsewhere. The folder was gathered by hand, so who wrote %s is "
				   "not checked.",
				   nh > 1 ? "files given as system records" :
					    "a file given as a system record",
				   hand, when, nh > 1 ? "them" : "it");
	}
	if (pm_att_phase_silence(&a) < 0 || pm_att_phase_votes(&a) < 0 ||
	    pm_att_phase_origins(&a, false) < 0)
		goto out;
	pm_att_phase_merge(&a);
	pm_att_phase_join(&a);
	pm_att_phase_consequence(&a);
	pm_att_phase_confirm(&a);
	pm_att_phase_stale(&a);
	pm_att_text_end(&a);
	/* every such candidate set aside (the program's own fault's consequence, an undated
	 * event nothing of this job explains): that line would say what the verdict does not */
	if (hwline != SIZE_MAX && !live_hardware(&a)) {
		json_array_remove(a.why, hwline);
		hwline = SIZE_MAX;
	}
	if (pm_att_phase_gpu_ranks(&a) < 0)
		goto out;
	pm_att_phase_all_ranks(&a);
	pm_att_phase_scheduler(&a);
	pm_att_place_one_host(&a, 0, false);
	pm_att_phase_summaries(&a);
	placed = a.nc;
	if (pm_att_phase_fallback(&a) < 0)
		goto out;
	/* the fallback leads made just now, placed alike (a node so placed is only a guess,
	 * never one to exclude), their summaries made again */
	if (a.nc > placed) {
		pm_att_place_one_host(&a, placed, true);
		pm_att_phase_summaries(&a);
	}
	pm_att_phase_silence_lead(&a);
	pm_att_phase_order(&a);
	/* nor where the hardware is only a GPU's heat, behind a time limit that ended a job
	 * still progressing */
	if (hwline != SIZE_MAX && pm_att_heat_behind_limit(&a))
		json_array_remove(a.why, hwline);
	pm_att_phase_status(&a);
	pm_att_phase_confidence(&a);
	v = pm_verdict_build(&a);
out:
	att_free(&a);
	if (!v)
		errno = ENOMEM;
	return v;
}
