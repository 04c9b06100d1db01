/*
 * att_ranks.c - the attribution's phases of ranks (ATTRIBUTION.md): where each rank ran
 * (the rank map, Slurm's task lines, launcher prefixes), the ranks that used a failing GPU,
 * the ranks that fell silent, and the suspects of a timeout nobody can attribute.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "attribute.h"
#include "input.h"

/* ---- phase: known ranks and progress ---- */

static int cmprnode(const void *x, const void *y)
{
	const struct rnode *a = x, *b = y;

	if (a->rank != b->rank)
		return (a->rank > b->rank) - (a->rank < b->rank);
	return (a->seq > b->seq) - (a->seq < b->seq);
}

/*
 * Slurm's own placement line: "srun: error: NODE: tasks 0-3,8: Exited with exit code 1" or
 * "srun: error: NODE: task 5: ...".  Appends (rank, node) for each task it names to V; at
 * most 1 << 20 ranks.  A line of another shape adds nothing.
 */
/* The node of srun's task line LINE into NODE (LEN bytes); the text after it, or NULL. */
static const char *srun_node(const char *line, char *node, size_t len)
{
	const char *p = strstr(line, "srun: error: "), *q;
	size_t l;

	if (!p)
		return NULL;
	p += 13;
	q = strstr(p, ": task");
	l = q ? (size_t)(q - p) : 0;
	if (!l || l >= len || memchr(p, ' ', l))
		return NULL;
	memcpy(node, p, l);
	node[l] = '\0';
	return q + 6;
}

/* The end srun reports after the task list at E (": Terminated", ": Exited with exit code
 * 1"), hashed (FNV-1a), its trailing blanks aside: two lines of one task compare by it. */
static uint32_t srun_end(const char *e)
{
	size_t n;
	uint32_t h = 2166136261u;

	if (*e == ':')
		e++;
	while (*e == ' ')
		e++;
	for (n = strlen(e); n && (e[n - 1] == ' ' || e[n - 1] == '\t' || e[n - 1] == '\r'); n--)
		;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)e[i]) * 16777619u;
	return h;
}

static int srun_tasks(const char *line, struct placed **v, size_t *n, size_t *al)
{
	const char *p, *e, *m;
	char node[128];
	uint32_t end;
	int how;

	if (!(p = srun_node(line, node, sizeof(node))))
		return 0;
	if (*p == 's')
		p++;
	if (*p++ != ' ')
		return 0;
	for (e = p; (*e >= '0' && *e <= '9') || *e == '-' || *e == ','; e++)
		;
	if (*e != ':')
		return 0;
	end = srun_end(e);
	for (m = e + 1; *m == ' '; m++)
		;
	how = pm_att_srun_how(m, m + strlen(m));
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
			(*v)[*n].end = end;
			(*v)[*n].how = how;
			snprintf((*v)[*n].node, sizeof((*v)[*n].node), "%s", node);
			(*n)++;
		}
		if (*x != ',')
			break;
		p = x + 1;
	}
	return 0;
}

static bool comm_line(const struct att *a, size_t i, int w);
struct crank {
	int rank;
	const char *node;
};
static bool comm_split(const struct crank *v, size_t n, int r, const char *node);

/* Whether the rank map names ranks on NODE: then it names every rank that ran there. */
static int cmpcrank(const void *x, const void *y)
{
	const struct crank *p = x, *q = y;

	if (p->rank != q->rank)
		return p->rank < q->rank ? -1 : 1;
	return strcmp(p->node, q->node);
}

static bool rankmap_node(const char **nodes, size_t n, const char *node)
{
	return n && node && bsearch(&node, nodes, n, sizeof(*nodes), pm_cmp_str);
}

/*
 * Lines only a launcher that starts several ranks under one Slurm task writes, by family:
 * its logger's module path, its function names, its own reports of a child.  Their wording
 * is the launchers' own, across versions; the job's user can print them too, but they only
 * ever take a node away from a rank tag, never give one.
 */
static const char *const launcher_marks[] = {
	/* torchrun's elastic agent (also under accelerate launch) */
	"distributed.elastic",
	"distributed/elastic/",
	"torch/distributed/run.py",
	/* DeepSpeed's launcher (deepspeed.launcher.launch, one a node): its logger's
	 * "[launch.py:146:main] WORLD INFO DICT: ..." and "[launch.py:315:sigkill_handler]" */
	"deepspeed.launcher",
	"deepspeed/launcher/",
	"WORLD INFO DICT",
	":sigkill_handler]",
	/* Hugging Face accelerate's launcher */
	"accelerate.commands.launch",
	"accelerate/commands/launch.py",
	/* Open MPI's and PRRTE's mpirun, MPICH's and Intel MPI's Hydra */
	"mpirun noticed that process rank",
	"prterun noticed that process rank",
	"mpirun detected that one or more processes",
	"prterun detected that one or more processes",
	"mpirun has exited due to process rank",
	"prterun has exited due to process rank",
	"[mpiexec@",
};

/* Words one of which every launcher mark holds: a line with none of them holds no mark, so
 * the marks are looked for only in a line with one (seven searches a line of the job's
 * output instead of seventeen, on the attribution's one thread).  marks_keyed says whether
 * the lists still agree; where they do not, every mark is looked for. */
static const char *const launcher_keys[] = {"distributed",	 "deepspeed",  "WORLD INFO DICT",
					    ":sigkill_handler]", "accelerate", "run ",
					    "[mpiexec@"};

static bool marks_keyed(void)
{
	for (size_t k = 0; k < sizeof(launcher_marks) / sizeof(*launcher_marks); k++) {
		bool held = false;

		for (size_t j = 0; j < sizeof(launcher_keys) / sizeof(*launcher_keys); j++)
			held = held || strstr(launcher_marks[k], launcher_keys[j]);
		if (!held)
			return false;
	}
	return true;
}

/* Whether RAW may hold a launcher mark: it holds one of the keys (or the keys do not cover
 * the marks, KEYED false). */
static bool may_hold_mark(const char *raw, bool keyed)
{
	if (!keyed)
		return true;
	for (size_t j = 0; j < sizeof(launcher_keys) / sizeof(*launcher_keys); j++)
		if (strstr(raw, launcher_keys[j]))
			return true;
	return false;
}

/* Whether RAW is the batch shell's xtrace of a command ("+ srun ..."), behind whatever
 * wrappers a collector put around the script's output. */
static bool xtrace_line(const char *raw)
{
	struct pm_peel pe;
	size_t n;

	if (!raw)
		return false;
	n = strlen(raw);
	pm_peel(PM_FMT_APP, raw, n, NULL, &pe);
	return pe.skip < n && raw[pe.skip] == '+';
}

/* Whether RAW is a line a rank's process wrote under its own rank tag ("[rank1]: ...",
 * PyTorch's prefix of a worker's output), not srun's label nor torchrun's "[default1]:" (the
 * launcher's own prefix around its workers' lines): a launcher's wording there is the
 * program quoting it, which takes no placement away by itself. */
static bool worker_line(const char *raw)
{
	struct pm_peel pe;
	size_t n = strlen(raw);

	pm_peel(PM_FMT_APP, raw, n, NULL, &pe);
	return pe.rank >= 0 && pe.label != pe.rank && pe.skip <= n &&
	       !memmem(raw, pe.skip, "[default", 8);
}

/* Whether one of observations FROM to TO of A is one that launcher_ranks looks for (KEYED:
 * marks_keyed's answer). */
static bool launcher_in(const struct att *a, size_t from, size_t to, bool keyed)
{
	const struct pm_evidence *ev = a->ev;
	const int count = ev->job.ntasks > 0 ? ev->job.ntasks : 0;

	for (size_t i = from; i < to; i++) {
		const struct pm_obs *o = &ev->obs[i];
		if (o->source != PM_SRC_APP_LOG)
			continue;
		if (count && o->rank >= count && (!o->has_label || o->label != o->rank))
			return true;
		/* the launcher's own lines: torchrun's rules, the batch shell's xtrace of its
		 * command (launcher-numbers-ranks on a "+ " line), or a launcher's wording */
		if (!strncmp(R(a, i)->id, "torchrun-", 9))
			return true;
		if (!strcmp(R(a, i)->id, "launcher-numbers-ranks")) {
			/* torchrun's banner (or its OMP_NUM_THREADS notice, printed only where
			 * it starts several workers a node, whose global ranks are then no
			 * Slurm task's): its agent prints it before any worker runs, so under
			 * no rank tag of its own (srun's label at most).  Under a worker's
			 * tag ("[rank0]: W1120 ... run.py:793]") it is that program's text,
			 * which says nothing of who numbered the ranks. */
			if (xtrace_line(o->raw) ||
			    !(o->rank >= 0 && (!o->has_label || o->label != o->rank)))
				return true;
			continue;
		}
		if (!o->raw || !may_hold_mark(o->raw, keyed))
			continue;
		for (size_t k = 0; k < sizeof(launcher_marks) / sizeof(*launcher_marks); k++) {
			if (!strstr(o->raw, launcher_marks[k]))
				continue;
			if (!worker_line(o->raw))
				return true;
			break; /* a rank's own words, quoting a launcher: as its banner, nothing */
		}
	}
	return false;
}

/* launcher_ranks' observations in blocks on the set's threads: its answer is whether any
 * observation is one, so the blocks may be looked at in any order (131,072 lines of the job's
 * output at 16,384 nodes, 60 ms of the attribution's one thread for the marks' searches). */
#define LAUNCHER_BLOCK 4096

struct launcher_run {
	const struct att *a;
	bool keyed;
	bool found;
};

static char launcher_yes, launcher_no;

static void *launcher_make(void *arg, unsigned w, size_t k)
{
	const struct launcher_run *run = arg;
	size_t n = run->a->ev->nobs,
	       to = n - k * LAUNCHER_BLOCK > LAUNCHER_BLOCK ? (k + 1) * LAUNCHER_BLOCK : n;

	(void)w;
	return launcher_in(run->a, k * LAUNCHER_BLOCK, to, run->keyed) ? &launcher_yes :
									 &launcher_no;
}

static int launcher_take(void *arg, size_t k, void *item)
{
	struct launcher_run *run = arg;

	(void)k;
	if (item != &launcher_yes)
		return 0;
	run->found = true;
	return -1; /* the answer is known: the rest need not be looked at */
}

/*
 * Whether the job's output shows that a launcher, not Slurm, numbered the ranks its tags give
 * ("[rank6]: ...", PyTorch's global rank under one torchrun or DeepSpeed launcher a node): a
 * tag's rank at or past the step's task count, or a line of such a launcher (launcher_marks,
 * or one the rule launcher-numbers-ranks reads that no other rule does: torchrun's start-up
 * banner, the batch shell's echo of the launcher's command).
 * The rank map and srun's task lines number Slurm's tasks; such a tag's rank is then no task
 * of theirs.  One pass over the observations (in blocks on the set's threads), nothing looked up
 * a line.
 */
static bool launcher_ranks(const struct att *a)
{
	struct launcher_run run = {a, marks_keyed(), false};
	struct pm_work w = {launcher_make, launcher_take, NULL, &run, 0, false};
	size_t n = a->ev->nobs;

	if (n <= LAUNCHER_BLOCK)
		return launcher_in(a, 0, n, run.keyed);
	(void)pm_work_run(&w, a->ev->threads, (n + LAUNCHER_BLOCK - 1) / LAUNCHER_BLOCK);
	return run.found;
}

/* Sorts the N entries at V by rank and keeps each rank's first; returns how many remain. */
static size_t rnode_unique(struct rnode *v, size_t n)
{
	size_t k = 0;

	if (n > 1)
		pm_sort(v, n, sizeof(*v), cmprnode);
	for (size_t i = 0; i < n; i++)
		if (!k || v[k - 1].rank != v[i].rank)
			v[k++] = v[i];
	return k;
}

static int cmptsplit(const void *x, const void *y)
{
	const struct pm_tsplit *a = x, *b = y;

	if (a->rank != b->rank)
		return (a->rank > b->rank) - (a->rank < b->rank);
	return (a->step > b->step) - (a->step < b->step);
}

/*
 * A rank whose records of two steps (or two heterogeneous components) put it on two nodes is
 * two tasks: Slurm numbers each step's tasks from 0.  A line of the job's output that names
 * the rank names no step, so the rank ran where the step that failed ran it, when one step
 * alone had a task fail (a non-zero exit, a signal); else the rank has no node (AMB), and the
 * nodes its steps name are the rank map's (MAPN, AMBN of them).
 */
static int steps_resolve(struct att *a, const char ***ambn, size_t *nambn, size_t *al)
{
	struct pm_evidence *ev = a->ev;
	unsigned failed = 0, nfailed = 0;

	if (!ev->ntsplit)
		return 0;
	for (size_t k = 0; k < ev->nsteps; k++)
		if (ev->steps[k].failed && !nfailed++)
			failed = (unsigned)k + 1;
	if (!(*ambn = malloc(ev->ntsplit * sizeof(**ambn))))
		return -1;
	pm_sort(ev->tsplit, ev->ntsplit, sizeof(*ev->tsplit), cmptsplit);
	for (size_t i = 0, j; i < ev->ntsplit; i = j) {
		const struct pm_tsplit *pick = NULL;
		bool agree = true, one = nfailed == 1;
		struct pm_task *t;
		for (j = i; j < ev->ntsplit && ev->tsplit[j].rank == ev->tsplit[i].rank; j++) {
			const struct pm_tsplit *s = &ev->tsplit[j];
			agree = agree && !strcmp(s->node, ev->tsplit[i].node);
			if (one && s->step == failed) {
				if (pick && strcmp(pick->node, s->node))
					one = false; /* one step, two nodes: not a record to go by */
				if (!pick || (!pick->gpus && s->gpus))
					pick = s;
			}
		}
		if (agree || !(t = pm_ev_task(ev, ev->tsplit[i].rank)))
			continue;
		if (one && pick) {
			const char *n = pm_att_job_node(a, pick->node);
			char *d = strdup(n ? n : pick->node), *g = NULL;
			if (!d || (pick->gpus && !(g = strdup(pick->gpus)))) {
				free(d);
				return -1;
			}
			free(t->node);
			free(t->gpus);
			t->node = d;
			t->gpus = g;
			t->step = failed;
			continue;
		}
		free(t->node);
		free(t->gpus);
		t->node = t->gpus = NULL;
		if (pm_rankset_push(&a->amb, &a->namb, al, t->rank) < 0)
			return -1;
		for (size_t k = i; k < j; k++) {
			const char *n = pm_att_job_node(a, ev->tsplit[k].node);
			(*ambn)[(*nambn)++] = n ? n : ev->tsplit[k].node;
		}
	}
	return 0;
}

static int cmpplaced(const void *x, const void *y)
{
	const struct placed *a = *(const struct placed *const *)x,
			    *b = *(const struct placed *const *)y;

	if (a->rank != b->rank)
		return (a->rank > b->rank) - (a->rank < b->rank);
	return strcmp(a->node, b->node);
}

/* srun's task lines (N at V), by rank then node (cmpplaced): an array to free, NULL on
 * ENOMEM. */
static const struct placed **placed_sorted(const struct placed *v, size_t n)
{
	const struct placed **p = malloc(n * sizeof(*p));

	if (!p)
		return NULL;
	for (size_t i = 0; i < n; i++)
		p[i] = &v[i];
	pm_sort(p, n, sizeof(*p), cmpplaced);
	return p;
}

/* The ranks srun's task lines (N at V) put on two nodes, into AMB: tasks of two steps, or of
 * two heterogeneous components, that Slurm numbered alike. */
static int srun_split(struct att *a, const struct placed *v, size_t n, size_t *al)
{
	const struct placed **p;
	int rc = 0;

	if (n < 2)
		return 0;
	if (!(p = placed_sorted(v, n)))
		return -1;
	for (size_t i = 1; i < n && !rc; i++)
		if (p[i]->rank == p[i - 1]->rank && strcmp(p[i]->node, p[i - 1]->node))
			rc = pm_rankset_push(&a->amb, &a->namb, al, p[i]->rank);
	free(p);
	return rc;
}

/* Whether the record's steps (sacct's J.0, J.1 rows) may have run a task numbered RANK on
 * different nodes: two steps or more whose NTasks reach it, with another NodeList or NTasks
 * (more steps than kept: any).  Slurm numbers each step's tasks from 0, and a line that
 * gives a host beside a rank (NCCL's "host:pid:tid" prefix under a rank tag, a communicator's
 * set-up line) names no step: each rank prints them whether or not it failed, so a later
 * step's lines would place an earlier step's failing rank where that step never ran it. */
static bool steps_may_split(const struct att *a, int rank)
{
	const struct pm_jobinfo *j = &a->ev->job;
	const struct pm_steprow *first = NULL;

	if (j->steprows_over)
		return true;
	for (size_t i = 0; i < j->nsteprows; i++) {
		const struct pm_steprow *r = &j->steprows[i];
		if (r->ntasks >= 0 && r->ntasks <= rank)
			continue;
		if (!first)
			first = r;
		else if (r->nodes != first->nodes || r->ntasks != first->ntasks)
			return true;
	}
	return false;
}

/*
 * Whether RAW is srun's own line: its "srun: error: " opens the line once a collector's or a
 * shell's wrappers are peeled (a timestamp, a tee's prefix), under no srun label and no rank
 * tag.  srun writes its reports to its own stderr, unlabelled; "0: srun: error: ..." or
 * "[rank1]: srun: error: ..." is a task's output, text the program printed (review32 F08).
 */
bool pm_att_srun_own(const char *raw)
{
	struct pm_peel pe;
	const char *q;

	if (!raw || !(q = strstr(raw, "srun: error: ")))
		return false;
	pm_peel(PM_FMT_APP, raw, strlen(raw), NULL, &pe);
	return pe.label < 0 && pe.rank < 0 && (size_t)(q - raw) <= pe.skip;
}

/*
 * How many tasks the record's numbered steps ran, the widest (sacct's J.0, J.1 rows): srun
 * numbers a step's tasks from 0, so no step has a task numbered at or past it.  -1 where
 * the record does not say: no step rows, more than were kept, one with NTasks empty, or a
 * heterogeneous job (a step's tasks are numbered across its components, whose rows are not
 * kept as steps).
 */
static int steps_ntasks(const struct att *a)
{
	const struct pm_jobinfo *j = &a->ev->job;
	int max = -1;

	if (!j->nsteprows || j->steprows_over || j->ncomps)
		return -1;
	for (size_t i = 0; i < j->nsteprows; i++) {
		if (j->steprows[i].ntasks < 0)
			return -1;
		if (j->steprows[i].ntasks > max)
			max = j->steprows[i].ntasks;
	}
	return max;
}

/*
 * Whether rank P[I]'s lines (P sorted by rank, N of them) name a task the step does not
 * have: one at or past the widest step's task count (COUNT, steps_ntasks; -1 unknown), or,
 * with no count, one past a gap above the tasks 0..TOP srun's lines report without a gap
 * (two or more), where every task they report past that gap is reported only as failed of
 * itself (TOP -1 otherwise).  srun reports a step's tasks once each, on their hosts; "task
 * 5: Exited with exit code 1" beside "tasks 0-1: Terminated" and "tasks 2-3: Terminated"
 * names a task no host ran, text the job printed (review36 H1).
 */
static bool srun_void(const struct placed **p, size_t i, int count, int top)
{
	if (count >= 0)
		return p[i]->rank >= count;
	return top >= 1 && p[i]->rank > top + 1;
}

/* The TOP srun_void reads, for P sorted by rank (N of them). */
static int srun_top(const struct placed **p, size_t n)
{
	int top = -1;
	size_t i;

	for (i = 0; i < n && p[i]->rank <= top + 1; i++)
		top = p[i]->rank;
	if (i == n)
		return -1; /* no gap */
	for (; i < n; i++)
		if (p[i]->how != 1)
			return -1;
	return top;
}

/*
 * The tasks srun's lines (N at V) report twice, differently: two ends ("task 1: Terminated"
 * and "task 1: Exited with exit code 1") or two hosts; and those it reports that the step
 * does not have (srun_void).  srun reports a task's end once, on the host it ran on; its
 * lines share the job's stderr, and a job that prints a line shaped as srun's cannot keep
 * srun from printing the task's real end beside it, nor make its step run a task it did
 * not.  Such a task's lines are read as the job's text: they lift no cap a line the job
 * printed is under (pm_att_srun_trusted, pm_att_rank_text_only; review32 F08, F08b), and
 * srun_failed counts them for nothing (srun_contested).  Two steps that number their tasks
 * alike, ending one task differently, are gainsaid too: srun's line names no step.  Into
 * A->srun_bad (sorted); `why` names the first of each kind.
 */
static int srun_gainsaid(struct att *a, const struct placed *v, size_t n)
{
	const struct placed **p;
	const struct placed *first = NULL, *nil = NULL;
	size_t al = 0, nbad = 0, ndbl = 0;
	int rc = 0, count = steps_ntasks(a), top = -1;

	if (!n)
		return 0;
	if (!(p = placed_sorted(v, n)))
		return -1;
	for (size_t i = 1; i < n && !rc; i++) {
		if (p[i]->rank != p[i - 1]->rank ||
		    (!strcmp(p[i]->node, p[i - 1]->node) && p[i]->end == p[i - 1]->end))
			continue;
		if (nbad && a->srun_bad[nbad - 1] == p[i]->rank)
			continue;
		if (!first)
			first = p[i];
		rc = pm_rankset_push(&a->srun_bad, &nbad, &al, p[i]->rank);
	}
	ndbl = nbad;
	if (ndbl && !rc) {
		if (!(a->srun_dbl = malloc(ndbl * sizeof(*a->srun_dbl))))
			rc = -1;
		else
			memcpy(a->srun_dbl, a->srun_bad, ndbl * sizeof(*a->srun_dbl));
		a->nsrun_dbl = a->srun_dbl ? ndbl : 0;
		pm_rankset_done(a->srun_dbl, &a->nsrun_dbl);
	}
	if (count < 0)
		top = srun_top(p, n);
	for (size_t i = 0; i < n && !rc; i++) {
		if ((i && p[i]->rank == p[i - 1]->rank) || !srun_void(p, i, count, top) ||
		    pm_rankset_has(a->srun_bad, ndbl, p[i]->rank))
			continue;
		if (!nil)
			nil = p[i];
		rc = pm_rankset_push(&a->srun_bad, &nbad, &al, p[i]->rank);
	}
	pm_rankset_done(a->srun_bad, &nbad);
	a->nsrun_bad = nbad;
	if (!rc && first)
		pm_att_why(
			a,
			"srun's lines report task %d twice, differently (two ends or two hosts): "
			"srun reports a task's end once, and its lines share the job's stderr, so "
			"those of %zu such task(s) are read as text the job may have printed, "
			"backing no node.",
			first->rank, ndbl);
	if (!rc && nil && count >= 0)
		pm_att_why(a,
			   "srun's lines report task %d on %s, a task the step does not have (the "
			   "record's steps ran %d task(s), numbered from 0): its line is read as "
			   "text the job may have printed, backing no node.",
			   nil->rank, nil->node, count);
	else if (!rc && nil)
		pm_att_why(a,
			   "srun's lines report task %d on %s as failed, past a gap above the tasks "
			   "0-%d they report, which srun reports once each: no host ran it, and "
			   "its line is read as text the job may have printed, backing no node.",
			   nil->rank, nil->node, top);
	free(p);
	return rc;
}

/* Whether the srun line RAW is srun's own (pm_att_srun_own) and reports no task whose lines
 * contradict each other (srun_gainsaid): Slurm's word on where its tasks failed. */
bool pm_att_srun_trusted(const struct att *a, const char *raw)
{
	const char *p, *e;
	char node[128];

	if (!pm_att_srun_own(raw))
		return false;
	if (!a->nsrun_bad || !(p = srun_node(raw, node, sizeof(node))))
		return true;
	if (*p == 's')
		p++;
	if (*p++ != ' ')
		return true;
	for (e = p; (*e >= '0' && *e <= '9') || *e == '-' || *e == ','; e++)
		;
	while (p < e) {
		char *x;
		long lo = strtol(p, &x, 10), hi = lo;
		if (x == p || lo < 0)
			return true;
		if (*x == '-')
			hi = strtol(x + 1, &x, 10);
		for (long r = lo; r <= hi && r < 1 << 20; r++)
			if (pm_rankset_has(a->srun_bad, a->nsrun_bad, (int)r))
				return false;
		if (*x != ',')
			break;
		p = x + 1;
	}
	return true;
}

/* Whether hosts X and Y are one job node (as the record spells it) or one name. */
static bool one_node(const struct att *a, const char *x, const char *y)
{
	const char *jx = pm_att_job_node(a, x), *jy = pm_att_job_node(a, y);

	return !strcasecmp(jx ? jx : x, jy ? jy : y);
}

/* Whether T's records (any step's, where steps put it on several nodes: TSPLIT) place its
 * rank on NODE. */
static bool task_on(const struct att *a, const struct pm_task *t, const char *node)
{
	const struct pm_evidence *ev = a->ev;

	if (t->node && one_node(a, t->node, node))
		return true;
	for (size_t i = 0; i < ev->ntsplit; i++)
		if (ev->tsplit[i].rank == t->rank && one_node(a, ev->tsplit[i].node, node))
			return true;
	return false;
}

/*
 * The rank map's and task exits' records in a hand-gathered folder are read by what their
 * lines look like (sniff.c): "postmortem.rankmap/1" is text the job can write into its
 * folder as well as the plugin into its spool, and the srun report beside them shares the
 * job's stderr.  Where a record outside a collector's bundle (LOOSE) puts a task on one node
 * and srun's own line for that task number (SR, N of them) puts it on another, no step's
 * record placing it there, two sources the job may have written disagree on where one task
 * ran: neither decides.  The rank joins AMB (no node, from these or any other source), its
 * records' node is dropped, and `why` names the conflict (review32 F03: a planted rank map
 * moved rank 0's error from srun's gq07 to gq08, whose exclusion it advised).  A bundle's
 * records are the plugin's, root's, and stand over srun's line, as before.
 */
static int rankmap_gainsaid(struct att *a, const struct placed *sr, size_t nsr, size_t *al)
{
	struct pm_evidence *ev = a->ev;
	const struct placed **p = NULL;
	size_t nloose = 0, nconf = 0;
	char first[300] = "";
	const char *file = NULL;
	int rc = -1;

	for (size_t i = 0; i < ev->ntasks; i++)
		nloose += ev->tasks[i].loose && ev->tasks[i].node;
	if (!nloose || !nsr)
		return 0;
	if (!(p = malloc(nsr * sizeof(*p))))
		return -1;
	for (size_t i = 0; i < nsr; i++)
		p[i] = &sr[i];
	if (nsr > 1)
		pm_sort(p, nsr, sizeof(*p), cmpplaced);
	for (size_t i = 0; i < ev->ntasks; i++) {
		struct pm_task *t = &ev->tasks[i];
		size_t lo = 0, hi = nsr;
		bool conflict = false;

		if (!t->loose || !t->node)
			continue;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (p[mid]->rank < t->rank)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t k = lo; k < nsr && p[k]->rank == t->rank; k++)
			if (!task_on(a, t, p[k]->node)) {
				conflict = true;
				if (!nconf && !first[0]) {
					snprintf(first, sizeof(first),
						 "put rank %d on %s, and srun's task line (in the "
						 "job's stderr) puts task %d on %s",
						 t->rank, t->node, t->rank, p[k]->node);
					file = t->file < ev->nfiles ? ev->files[t->file].name :
								      NULL;
				}
			}
		if (!conflict)
			continue;
		nconf++;
		free(t->node);
		free(t->gpus);
		t->node = t->gpus = NULL;
		if (pm_rankset_push(&a->amb, &a->namb, al, t->rank) < 0)
			goto out;
	}
	if (nconf)
		pm_att_why(a,
			   "The rank map's records in %s, outside any collector's bundle (text the "
			   "job can write), %s: neither decides where it ran, and its node is "
			   "unknown (%zu task(s) so).",
			   file ? file : "the folder", first, nconf);
	rc = 0;
out:
	free(p);
	return rc;
}

/*
 * rank -> node, from every source that places ranks, the first that knows a rank winning:
 * the plugin's rank map, then Slurm's task lines (srun_tasks), then the scanner's prefixes
 * (launchers and NCCL lines that carry both host and rank), then the set-up lines of the
 * job's communicator (comm_ranks: NCCL's host prefix and the rank it numbers in the largest
 * communicator, where no two of them put one rank on two hosts).  A node the rank map covers
 * gets no further rank from the other sources: a provisional verdict, with one node's
 * bundle still out, must not place that node's ranks where the job's output was read.
 * Where a launcher numbered the ranks (launcher_ranks), the rank map's and srun's entries
 * place Slurm's tasks only (TNODE, for srun's labels): a rank tag then has no node unless a
 * source that names both its host and its rank places it.
 */
static int place_ranks(struct att *a)
{
	struct pm_evidence *ev = a->ev;
	struct placed *sr = NULL;
	const char **mapn = NULL;
	struct hs_scratch *scratch = NULL;
	const char **ambn = NULL;
	struct crank *cr = NULL;
	size_t nsr = 0, asr = 0, nmap = 0, n = 0, nambn = 0, alamb = 0, ncr = 0;
	int rc = -1;

	if (steps_resolve(a, &ambn, &nambn, &alamb) < 0)
		goto out;

	/* srun's task lines, as a verdict would show them (redacted): redaction and cleaning
	 * never make the marker, so a line without it is passed over unredacted */
	for (size_t i = 0; i < ev->nobs; i++) {
		const struct pm_obs *o = &ev->obs[i];
		char *l;
		int src;

		if (!o->raw || !strstr(o->raw, "srun: error: ") || !pm_att_srun_own(o->raw))
			continue;
		if (!(l = pm_obs_line(o, &scratch)))
			goto out;
		src = srun_tasks(l, &sr, &nsr, &asr);
		free(l);
		if (src < 0)
			goto out;
	}
	/* srun names a node as the job's record does, but a folder's copy may not */
	for (size_t i = 0; i < nsr; i++) {
		const char *jn = pm_att_job_node(a, sr[i].node);
		if (jn && strcmp(jn, sr[i].node) && strlen(jn) < sizeof(sr[i].node))
			memcpy(sr[i].node, jn, strlen(jn) + 1);
	}
	if (srun_split(a, sr, nsr, &alamb) < 0 || srun_gainsaid(a, sr, nsr) < 0 ||
	    rankmap_gainsaid(a, sr, nsr, &alamb) < 0)
		goto out;
	pm_rankset_done(a->amb, &a->namb);
	size_t ncomm = 0;
	for (size_t i = 0; i < ev->nobs && a->commw; i++)
		ncomm += comm_line(a, i, a->commw) && ev->obs[i].node;
	if (!(ev->ntasks + ev->nranks + nsr + ncomm)) {
		rc = 0;
		goto out;
	}
	if (ev->ntasks + nambn && !(mapn = malloc((ev->ntasks + nambn) * sizeof(*mapn))))
		goto out;
	for (size_t i = 0; i < ev->ntasks; i++)
		if (ev->tasks[i].node)
			mapn[nmap++] = ev->tasks[i].node;
	for (size_t i = 0; i < nambn; i++)
		mapn[nmap++] = ambn[i];
	if (nmap > 1)
		pm_sort(mapn, nmap, sizeof(*mapn), pm_cmp_str);
	a->rnode = malloc((ev->ntasks + ev->nranks + nsr + ncomm) * sizeof(*a->rnode));
	if (!a->rnode)
		goto out;
	for (size_t i = 0; i < ev->ntasks; i++)
		if (ev->tasks[i].node)
			a->rnode[n++] = (struct rnode){ev->tasks[i].rank, i, ev->tasks[i].node};
	for (size_t i = 0; i < nsr; i++) {
		if (!rankmap_node(mapn, nmap, sr[i].node) &&
		    !pm_rankset_has(a->amb, a->namb, sr[i].rank))
			a->rnode[n++] = (struct rnode){sr[i].rank, ev->ntasks + i, sr[i].node};
	}
	for (size_t i = 0; i < ev->nranks; i++)
		if (ev->ranks[i].node && !rankmap_node(mapn, nmap, ev->ranks[i].node) &&
		    !pm_rankset_has(a->amb, a->namb, ev->ranks[i].rank) &&
		    !steps_may_split(a, ev->ranks[i].rank))
			a->rnode[n++] = (struct rnode){ev->ranks[i].rank, ev->ntasks + nsr + i,
						       ev->ranks[i].node};
	/* the communicator's set-up lines by rank, then host: comm_split reads them */
	if (ncomm && !(cr = malloc(ncomm * sizeof(*cr))))
		goto out;
	for (size_t i = 0; i < ev->nobs && ncomm; i++)
		if (comm_line(a, i, a->commw) && ev->obs[i].node)
			cr[ncr++] = (struct crank){ev->obs[i].rank, ev->obs[i].node};
	if (ncr > 1)
		pm_sort(cr, ncr, sizeof(*cr), cmpcrank);
	for (size_t i = 0; i < ev->nobs && ncomm; i++) {
		const struct pm_obs *o = &ev->obs[i];
		if (comm_line(a, i, a->commw) && o->node && !rankmap_node(mapn, nmap, o->node) &&
		    !comm_split(cr, ncr, o->rank, o->node) &&
		    !pm_rankset_has(a->amb, a->namb, o->rank) && !steps_may_split(a, o->rank))
			a->rnode[n++] =
				(struct rnode){o->rank, ev->ntasks + nsr + ev->nranks + i, o->node};
	}
	if (launcher_ranks(a)) {
		size_t nt = 0, k = 0;
		for (size_t i = 0; i < n; i++)
			nt += a->rnode[i].seq < ev->ntasks + nsr;
		if (nt && !(a->tnode = malloc(nt * sizeof(*a->tnode))))
			goto out;
		for (size_t i = 0; i < n; i++) {
			if (a->rnode[i].seq < ev->ntasks + nsr)
				a->tnode[a->ntnode++] = a->rnode[i];
			else
				a->rnode[k++] = a->rnode[i];
		}
		n = k;
		a->ntnode = rnode_unique(a->tnode, a->ntnode);
	}
	a->nrnode = rnode_unique(a->rnode, n);
	a->mapn = mapn;
	a->nmapn = nmap;
	a->placed = sr; /* the nodes of RNODE point into it */
	a->nplaced = nsr;
	mapn = NULL;
	sr = NULL;
	rc = 0;
out:
	free(cr);
	free(sr);
	free(mapn);
	free(ambn);
	pm_redact_scratch_free(scratch);
	return rc;
}

/*
 * The ranks a communicator's set-up line names (a context rule of no class that captures
 * the rank and the communicator's size: NCCL's "rank R nranks N ... Init COMPLETE"), in the
 * largest communicator the folder shows: the job's own (a group split off it numbers its
 * ranks from 0 again).  Each is a rank whose output the evidence holds, whether or not a
 * prefix names it: a rank that set up and then printed no timeout while its peers did is
 * silent (phase 5), not unknown.  Never where it ran: the line's host is the communicator
 * member's, its rank maybe a group's.
 */
static bool comm_line(const struct att *a, size_t i, int w)
{
	const struct pm_obs *o = &a->ev->obs[i];
	const struct pm_rule *r = R(a, i);

	return r->role == PM_ROLE_CONTEXT && pm_is_kind(r->cls, NULL, PM_K_NONE) && o->rank >= 0 &&
	       o->rank < o->nranks && o->nranks <= 1 << 20 && (w ? o->nranks == w : true);
}

static int host_cmp(const char *x, const char *y);

static int cmphostp(const void *x, const void *y)
{
	return host_cmp(*(const char *const *)x, *(const char *const *)y);
}

/*
 * A group split off the job's communicator runs on some of its hosts: a set-up line of
 * another size whose host none of size W's lines names was printed by another run (a
 * set-up excerpt the job cats, a log of last week's), and nothing tells which run's lines
 * are the job's.  Then *W is 0: no communicator is taken as the job's, its ranks placed on
 * no host from these lines.
 */
static int comm_foreign(const struct att *a, int w, int *out)
{
	const struct pm_evidence *ev = a->ev;
	const char **h = NULL;
	size_t n = 0, ah = 0;

	for (size_t i = 0; i < ev->nobs; i++) {
		if (!comm_line(a, i, w) || !ev->obs[i].node)
			continue;
		if (n == ah && pm_grow((void **)&h, &ah, sizeof(*h)) < 0) {
			free(h);
			return -1;
		}
		h[n++] = ev->obs[i].node;
	}
	if (n > 1)
		pm_sort(h, n, sizeof(*h), cmphostp);
	for (size_t i = 0; i < ev->nobs && n; i++) {
		const char *node = ev->obs[i].node;
		if (node && comm_line(a, i, 0) && ev->obs[i].nranks != w &&
		    !bsearch(&node, h, n, sizeof(*h), cmphostp)) {
			*out = 0;
			break;
		}
	}
	free(h);
	return 0;
}

static int comm_ranks(struct att *a, size_t *al)
{
	const struct pm_evidence *ev = a->ev;
	int w = 0;

	for (size_t i = 0; i < ev->nobs; i++)
		if (comm_line(a, i, 0) && ev->obs[i].nranks > w)
			w = ev->obs[i].nranks;
	if (w && comm_foreign(a, w, &w) < 0)
		return -1;
	a->commw = w;
	for (size_t i = 0; i < ev->nobs && w; i++)
		if (comm_line(a, i, w) &&
		    pm_rankset_push(&a->known, &a->nknown, al, ev->obs[i].rank) < 0)
			return -1;
	return 0;
}

/* The first of V's N lines (sorted by cmpcrank) whose rank is R or more. */
static size_t crank_bound(const struct crank *v, size_t n, int r)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].rank < r)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Whether the job's communicator's set-up lines (comm_ranks), V (N of them, sorted by
 * cmpcrank), place rank R on a host other than NODE. */
static bool comm_split(const struct crank *v, size_t n, int r, const char *node)
{
	size_t lo = crank_bound(v, n, r), e = crank_bound(v, n, r + 1);

	/* sorted by host within the rank: two hosts differ at its ends if anywhere */
	return e > lo && (strcmp(v[lo].node, v[e - 1].node) || strcmp(v[lo].node, node));
}

/*
 * torchrun's "[defaultN]:" (its --tee/--log-dir prefix) numbers the workers of ONE agent, on
 * its own node: on a job of several nodes each node has its "[default0]:", none of them the
 * global rank 0 unless that node is the first.  A line whose rank only that prefix gives
 * (pm_peel.rank_local) keeps it where the job ran on one node as far as the evidence says
 * (the record lists one; or none lists any, and its lines and files name at most one host),
 * where local and global ranks are the same; elsewhere it names no rank: a healthy global rank 0 is not made a bystander, nor an origin, by another
 * node's local rank 0.  (The node's own index times the workers a node could compute it;
 * nothing in the evidence says both reliably.)
 */
/*
 * The global rank of local rank LOCAL of torchrun's agent LABEL (srun's "1: [default2]:"):
 * the agent's node index times the workers a node, plus LOCAL; -1 where that cannot be
 * computed.  An agent's line giving both its local and its global rank ("1: [default0]:[rank4]:")
 * says the agent's first rank; else the label is the node's index only where srun ran one
 * agent a node (the record's tasks are its nodes, or it gives no count), and the workers a node
 * are known only where torchrun's banner or command line, or such lines, say one number
 * (pm_evidence's nproc).  torchrun numbers its nodes in the
 * order they joined the rendezvous unless --node_rank fixes it: the rendezvous of a static
 * --node_rank=$SLURM_NODEID, the common batch script, keeps srun's order (ATTRIBUTION.md).
 */
static int agent_rank(const struct pm_evidence *ev, int label, int local)
{
	/* the agent's own lines said its first rank */
	if (label >= 0 && label < PM_AGENTS && ev->agent_base[label] > 0 && local >= 0 &&
	    (ev->nproc <= 0 || local < ev->nproc))
		return ev->agent_base[label] - 1 + local;
	if (ev->nproc <= 0 || label < 0 || local < 0 || local >= ev->nproc ||
	    label > (1 << 20) / ev->nproc)
		return -1;
	if (ev->job.ntasks > 0 && ev->job.nnodes && (size_t)ev->job.ntasks != ev->job.nnodes)
		return -1;
	if (ev->job.nnodes && (size_t)label >= ev->job.nnodes)
		return -1;
	return label * ev->nproc + local;
}

static void local_ranks(struct pm_evidence *ev)
{
	/* torchrun's workers under srun's label: their global ranks where they can be
	 * computed; elsewhere the line names the agent's node only (label_node) */
	if (ev->nproc > 0)
		for (size_t i = 0; i < ev->nobs; i++) {
			struct pm_obs *o = &ev->obs[i];
			struct pm_peel pe;
			int r;

			if (o->source != PM_SRC_APP_LOG || o->rank >= 0 || !o->has_label ||
			    !o->raw || !strstr(o->raw, "[default"))
				continue;
			pm_peel(PM_FMT_APP, o->raw, strlen(o->raw), NULL, &pe);
			if (pe.agent_local >= 0 &&
			    (r = agent_rank(ev, pe.label, pe.agent_local)) >= 0)
				o->rank = r;
		}

	/* one node as far as anything says: the record lists one, or no record lists any and
	 * the evidence names at most one host (one machine's run pasted, torchrun's common use:
	 * app-torchrun-default-prefix-one-node-no-record) */
	if ((ev->job.nnodes == 1 && ev->job.nodes[0]) || (!ev->job.nnodes && ev->nnodes <= 1))
		return;
	for (size_t i = 0; i < ev->nobs; i++) {
		struct pm_obs *o = &ev->obs[i];
		struct pm_peel pe;
		size_t n;

		if (o->source != PM_SRC_APP_LOG || o->rank < 0 || !o->raw ||
		    !strstr(o->raw, "[default"))
			continue;
		n = strlen(o->raw);
		pm_peel(PM_FMT_APP, o->raw, n, NULL, &pe);
		if (pe.rank_local && pe.rank == o->rank)
			o->rank = -1;
	}
}

int pm_att_phase_ranks(struct att *a)
{
	struct pm_evidence *ev = a->ev;
	size_t al = 0;

	local_ranks(ev);
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
	/* a torchrun worker that printed under its agent's label is a rank that ran */
	for (unsigned i = 0; i < ev->nagents; i++) {
		int r = agent_rank(ev, (int)(ev->agents[i] / PM_AGENT_LOCALS),
				   (int)(ev->agents[i] % PM_AGENT_LOCALS));

		if (r >= 0 && pm_rankset_push(&a->known, &a->nknown, &al, r) < 0)
			return -1;
	}
	if (comm_ranks(a, &al) < 0)
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

/* ---- a node's state pasted by an operator (scontrol show node, sinfo -R) ---- */

/* Whether S (N bytes) starts with an ISO stamp "YYYY-MM-DDTHH:MM:SS"; its time, read as the
 * zoneless stamps of Slurm's records are (as UTC), into *T. */
static bool iso_at(const char *s, size_t n, double *t)
{
	struct pm_in_stamp st;

	return n >= 19 && s[4] == '-' && s[10] == 'T' && pm_in_iso(s, n, &st) >= 19 &&
	       (*t = st.t, true);
}

/*
 * When the node state on line RAW was set: scontrol's "Reason=... [user@STAMP]" (after the
 * Reason, not the record's BootTime=), else sinfo -R's TIMESTAMP column (a stamp standing
 * alone between blanks).  False where none is given.
 */
static bool reason_stamp(const char *raw, double *t)
{
	const char *r = strstr(raw, "Reason="), *p;
	size_t n = strlen(raw);

	if (r) {
		for (p = strchr(r, '@'); p; p = strchr(p + 1, '@'))
			if (iso_at(p + 1, n - (size_t)(p + 1 - raw), t))
				return true;
		return false;
	}
	for (p = raw; (p = strchr(p, 'T')); p++)
		if (p - raw >= 10 && (p - raw == 10 || p[-11] == ' ' || p[-11] == '\t') &&
		    iso_at(p - 10, n - (size_t)(p - 10 - raw), t) && (p[9] == ' ' || p[9] == '\t'))
			return true;
	return false;
}

/* Whether RAW is a sinfo -R row for NODE: NODE (the NODELIST column) ends the row (the line,
 * or a structured record's message field around it), after blanks, after a TIMESTAMP stamp
 * "YYYY-MM-DDTHH:MM:SS" standing alone; its time into *T. */
static bool sinfo_row(const char *raw, const char *node, double *t)
{
	size_t nl = strlen(node), e;
	const char *q, *last = NULL;

	for (q = strstr(raw, node); q; q = strstr(q + 1, node))
		last = q;
	if (!last || !nl)
		return false;
	e = (size_t)(last - raw);
	if (isalnum((unsigned char)last[nl]) || strchr("._-[],", last[nl] ? last[nl] : ' ') ||
	    e < 21 || (raw[e - 1] != ' ' && raw[e - 1] != '\t'))
		return false;
	while (e > 0 && (raw[e - 1] == ' ' || raw[e - 1] == '\t'))
		e--;
	if (e < 19 || (e > 19 && raw[e - 20] != ' ' && raw[e - 20] != '\t'))
		return false;
	return iso_at(raw + e - 19, 19, t);
}

/*
 * The node of the multi-line `scontrol show node` record whose indented Reason line O is:
 * the nearest line above O, within the record's length, that holds "NodeName=X" (a wrapper's
 * prefix or colour codes before it are read past), every line between holding a "key=value"
 * field of the record.  Into OUT; false where the record's head is not in the file's first
 * MiB, or the paste was cut above O's line (a line of no field, a blank one, or none left).
 */
static bool record_node(const struct att *a, const struct pm_obs *o, char *out, size_t cap)
{
	struct pm_file *f = &a->ev->files[o->file];
	size_t hcap = (size_t)(o->offset < (1u << 20) ? o->offset : 0), len = 0, e, b;
	char *buf, line[512];
	bool ok = false;

	if (!hcap || f->status != PM_ST_OK || !(buf = malloc(hcap + 1)))
		return false;
	if (pm_file_head(f, buf, hcap, &len) == 0 && len == hcap) {
		e = len;
		for (int k = 0; k < 64 && e > 0; k++) {
			size_t w = 0;
			const char *q;

			/* the line ending at E (its newline at E - 1), colour codes and CR out */
			b = e - 1;
			while (b > 0 && buf[b - 1] != '\n')
				b--;
			for (size_t r = b; r < e - 1 && w + 1 < sizeof(line);) {
				if (buf[r] == '\033') {
					r += pm_ansi_len(buf + r, e - 1 - r);
					continue;
				}
				if (buf[r] != '\r')
					line[w++] = buf[r];
				r++;
			}
			line[w] = '\0';
			if ((q = strstr(line, "NodeName="))) {
				size_t n = strcspn(q + 9, " \t");
				if (n && n < cap) {
					memcpy(out, q + 9, n);
					out[n] = '\0';
					ok = true;
				}
				break;
			}
			if (!strchr(line, '='))
				break; /* no field of the record: it was cut above O */
			e = b;
		}
	}
	free(buf);
	return ok;
}

/* O's node set aside: the line names no node of this job's (a record with no head, another
 * node's or a stale state): no node, and as a line naming one outside the job, no lead
 * (att_cands.c named_outside). */
static void reason_unplaced(struct att *a, struct pm_obs *o)
{
	if (!a->outside && !(a->outside = calloc(a->ev->nobs, sizeof(bool))))
		return;
	a->outside[o - a->ev->obs] = true;
	if (o->node) {
		pm_att_retire(a, o->node);
		o->node = NULL;
	}
}

/* O's node made NODE (a copy); false on no memory (O left as it was). */
static bool reason_node(struct att *a, struct pm_obs *o, const char *node)
{
	char *d = strdup(node);

	if (!d)
		return false;
	if (o->node)
		pm_att_retire(a, o->node);
	o->node = d;
	return true;
}

/*
 * An operator's paste of a node's state, in the job's own folder (the job's text): the
 * scontrol rules' and the sinfo rules' lines (a rule that captures `node`, on a line with
 * Slurm's "Reason=" or a sinfo -R row).  The multi-line record's indented Reason line takes
 * its node from the record's "NodeName=" line; a sinfo row's hostlist names the one job node
 * it holds (one of several pm_att_split_rows made one row each); a state stamped before the
 * job began (less the window's grace) is an earlier state of the node, not this job's.  Lines
 * of none of these name no node and lead nothing.  Runs before placement (own_node), which
 * then treats the node as any the job's text names.
 */
void pm_att_node_reasons(struct att *a)
{
	const struct pm_evidence *ev = a->ev;
	double start = ev->job.start > 0 ?
			       ev->job.start + (ev->job.local_times ? ev->job.local_zone : 0) :
			       a->first_progress;

	for (size_t i = 0; i < ev->nobs; i++) {
		struct pm_obs *o = &ev->obs[i];
		const char *raw = o->raw, *lead;
		char node[128];
		double t;
		bool multi, oneline;

		if (o->trusted || o->source != PM_SRC_APP_LOG || !raw || !R(a, i)->cap[PM_CAP_NODE])
			continue;
		/* the multi-line record's Reason line: a Reason with no NodeName= on its line (the
		 * record's indent, or a wrapper, before it, or neither where the paste trimmed it) */
		lead = strstr(raw, "Reason=");
		oneline = lead && strstr(raw, "NodeName=");
		multi = lead && !oneline;
		if (!multi && !oneline && !(!lead && o->node && sinfo_row(raw, o->node, &t)))
			continue; /* not a node's state line */
		if (multi) {
			if (!record_node(a, o, node, sizeof(node))) {
				reason_unplaced(a, o);
				continue;
			}
			if (!reason_node(a, o, node))
				continue;
		} else if (o->node && strchr(o->node, '[')) {
			/* sinfo's hostlist: the one job node it holds */
			char **names = NULL, *one = NULL;
			size_t n = 0;

			if (pm_hostlist_expand(o->node, strlen(o->node), &names, &n) == 0)
				for (size_t k = 0; k < n; k++)
					if (pm_att_job_node(a, names[k])) {
						if (one) {
							one = NULL;
							break;
						}
						one = names[k];
					}
			if (!one || !reason_node(a, o, one))
				reason_unplaced(a, o);
			for (size_t k = 0; k < n; k++)
				free(names[k]);
			free(names);
			if (!o->node)
				continue;
		}
		if (start > 0 && reason_stamp(raw, &t) && t < start - a->rs->grace_s)
			reason_unplaced(a, o);
	}
}

/* The most job nodes one sinfo -R row is read for: a row naming more is left as one that
 * names several (no node, pm_att_node_reasons), a missed reading, never a blamed node. */
enum { ROW_NODES_MAX = 64 };

/* A copy of O (its strings duplicated) on NODE, appended to EV's observations; -1 on no
 * memory, nothing appended. */
static int obs_copy_on(struct pm_evidence *ev, size_t o, const char *node)
{
	struct pm_obs c;

	if (ev->nobs == ev->aobs && pm_grow_raw((void **)&ev->obs, &ev->aobs, sizeof(*ev->obs)) < 0)
		return -1;
	c = ev->obs[o];
	c.node = strdup(node);
	c.pci = ev->obs[o].pci ? strdup(ev->obs[o].pci) : NULL;
	c.peer = ev->obs[o].peer ? strdup(ev->obs[o].peer) : NULL;
	c.signal = ev->obs[o].signal ? strdup(ev->obs[o].signal) : NULL;
	c.exc = ev->obs[o].exc ? strdup(ev->obs[o].exc) : NULL;
	c.raw = strdup(ev->obs[o].raw);
	if (!c.node || !c.raw || (ev->obs[o].pci && !c.pci) || (ev->obs[o].peer && !c.peer) ||
	    (ev->obs[o].signal && !c.signal) || (ev->obs[o].exc && !c.exc)) {
		free(c.node);
		free(c.pci);
		free(c.peer);
		free(c.signal);
		free(c.exc);
		free(c.raw);
		return -1;
	}
	ev->obs[ev->nobs++] = c;
	return 0;
}

/*
 * A sinfo -R row whose hostlist holds several of the job's nodes ("Not responding slurm
 * 2026-12-05T06:40:12 gpu[02-03,07]"): Slurm set that one state on each node of the list, so
 * the row is read once for each job node it holds, as a row of one node is, and for none
 * outside the job (slurm-node-reason-sinfo-range-two-job-nodes, near miss
 * slurm-node-reason-sinfo-range-outside-job-near-miss).  The observation takes the first
 * such node, a copy of it each other one.  Only where the record gives the job's start: a
 * row stamped before it (less the window's grace) is an earlier state, left whole for
 * pm_att_node_reasons to set aside.  Runs before the observations are ordered.  -1 on no
 * memory (the copies made stay, each whole).
 */
int pm_att_split_rows(struct att *a)
{
	struct pm_evidence *ev = a->ev;
	size_t n = ev->nobs;
	double start = ev->job.start + (ev->job.local_times ? ev->job.local_zone : 0), t;

	if (!ev->job.nnodes || ev->job.start <= 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		const struct pm_obs *o = &ev->obs[i];
		const char *own[ROW_NODES_MAX], *h;
		char **names = NULL, *first;
		size_t nn = 0, k = 0;
		int rc = 0;

		if (o->trusted || o->source != PM_SRC_APP_LOG || !o->raw || !o->node ||
		    !strchr(o->node, '[') || !R(a, i)->cap[PM_CAP_NODE] ||
		    strstr(o->raw, "Reason=") || !sinfo_row(o->raw, o->node, &t) ||
		    t < start - a->rs->grace_s)
			continue;
		/* a list hostlist.c refuses (a row cut at a terminal's width, "cn-h[42-43,4";
		 * a reversed range; too many hosts) is left whole, as pm_att_node_reasons leaves
		 * it: a missed reading, never the whole verdict's failure */
		if (pm_hostlist_expand(o->node, strlen(o->node), &names, &nn) < 0) {
			if (errno == ENOMEM)
				return -1;
			continue;
		}
		for (size_t j = 0; j < nn && k <= ROW_NODES_MAX; j++) {
			bool dup = false;

			if (!(h = pm_att_job_node(a, names[j])))
				continue;
			for (size_t m = 0; m < k && m < ROW_NODES_MAX && !dup; m++)
				dup = own[m] == h;
			if (dup)
				continue;
			if (k < ROW_NODES_MAX)
				own[k] = h;
			k++; /* past ROW_NODES_MAX: too many, none read */
		}
		if (k >= 2 && k <= ROW_NODES_MAX) {
			for (size_t j = 1; j < k && rc == 0; j++)
				rc = obs_copy_on(ev, i, own[j]);
			if (rc == 0 && (first = strdup(own[0]))) {
				free(ev->obs[i].node);
				ev->obs[i].node = first;
			} else {
				rc = -1;
			}
		}
		for (size_t j = 0; j < nn; j++)
			free(names[j]);
		free(names);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* RANK's node in V (N entries, sorted by rank, one each: rnode_unique); NULL none. */
static const char *rnode_find(const struct rnode *v, size_t n, int rank)
{
	for (size_t lo = 0, hi = n; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].rank == rank)
			return v[mid].node;
		if (v[mid].rank < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

bool pm_att_rank_text_only(const struct att *a, int rank, const char *node)
{
	const struct pm_evidence *ev = a->ev;
	const size_t base = ev->ntasks + a->nplaced;
	const struct rnode *r = NULL;

	for (size_t lo = 0, hi = a->rnode ? a->nrnode : 0; lo < hi && !r;) {
		size_t mid = lo + (hi - lo) / 2;
		if (a->rnode[mid].rank == rank)
			r = &a->rnode[mid];
		else if (a->rnode[mid].rank < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the rank map's and srun's task lines are Slurm's (seq below BASE), but for a task
	 * whose srun lines contradict each other (srun_gainsaid): the job's text, as a tag */
	if (!r || r->seq < ev->ntasks || !node || strcasecmp(r->node, node))
		return false;
	if (r->seq < base && !pm_rankset_has(a->srun_bad, a->nsrun_bad, rank))
		return false;
	if (r->seq < base + ev->nranks) {
		/* a rank tag's host: a prefix's, or the node of a file it was read in (its
		 * folder's, its bundle's), which the job does not choose */
		for (size_t i = 0; i < ev->nfiles; i++)
			if (ev->files[i].source == PM_SRC_APP_LOG && ev->files[i].node &&
			    !strcasecmp(ev->files[i].node, node))
				return false;
		return true;
	}
	/* a communicator's set-up line: its host is its prefix's unless its file's */
	size_t i = r->seq - base - ev->nranks;
	const struct pm_file *f = i < ev->nobs ? &ev->files[ev->obs[i].file] : NULL;
	return f && !(f->node && !strcasecmp(f->node, node));
}

const char *pm_att_rank_node(const struct att *a, int rank)
{
	if (a->rnode)
		return rnode_find(a->rnode, a->nrnode, rank);
	for (size_t i = 0; i < a->ev->ntasks; i++)
		if (a->ev->tasks[i].rank == rank && a->ev->tasks[i].node)
			return a->ev->tasks[i].node;
	for (size_t i = 0; i < a->ev->nranks; i++)
		if (a->ev->ranks[i].rank == rank && a->ev->ranks[i].node)
			return a->ev->ranks[i].node;
	return NULL;
}

/*
 * Where the task that wrote observation O ran, when srun's label names a task other than the
 * rank the line's own tag gives ("0: [rank1]: ..."): the rank map and Slurm's task lines number
 * srun's tasks, and a tag inside the label is the program's numbering (torchrun's global rank
 * under one agent a node, or any text the program printed), which must not place the line on
 * the node of the task that has that number.  NULL: the label says nothing more.
 */
static const char *label_node(const struct att *a, const struct pm_obs *o)
{
	const struct pm_file *f = &a->ev->files[o->file];
	struct pm_peel pe;

	if (o->source != PM_SRC_APP_LOG || o->rank < 0 || !o->raw)
		return NULL;
	if (o->has_label) {
		pe.label = o->label;
	} else {
		pm_peel(f->format, o->raw, strlen(o->raw), NULL, &pe);
	}
	if (pe.label < 0 || (pe.label == o->rank && !a->tnode))
		return NULL;
	if (a->tnode) /* a launcher numbered the ranks: the label is Slurm's task */
		return rnode_find(a->tnode, a->ntnode, pe.label);
	return pm_att_rank_node(a, pe.label);
}

static int cmpjname(const void *x, const void *y)
{
	const struct jname *a = x, *b = y;
	int c = strcmp(a->key, b->key);

	return c ? c : strcmp(a->node, b->node);
}

/* NODE's first N bytes folded to lower case into OUT (LEN bytes); false when too long. */
static bool fold(char *out, size_t len, const char *node, size_t n)
{
	if (n >= len)
		return false;
	for (size_t i = 0; i < n; i++)
		out[i] = node[i] >= 'A' && node[i] <= 'Z' ? (char)(node[i] - 'A' + 'a') : node[i];
	out[n] = '\0';
	return true;
}

/* How many job nodes V (N of them, sorted) holds under KEY: 0, 1 (*HIT) or 2 for several. */
static int jn_find(const struct jname *v, size_t n, const char *key, const char **hit)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(v[mid].key, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == n || strcmp(v[lo].key, key))
		return 0;
	*hit = v[lo].node;
	/* one node twice (its whole name is its first label) is one */
	return lo + 1 < n && !strcmp(v[lo + 1].key, key) && strcmp(v[lo + 1].node, *hit) ? 2 : 1;
}

const char *pm_att_job_node_n(const struct att *a, const char *node, bool *several)
{
	const struct pm_jobinfo *j = &a->ev->job;
	const char *const *hit, *key = node, *h = NULL;
	char k[256];
	int m;

	if (several)
		*several = false;
	if (!j->nnodes || !node)
		return node;
	if ((hit = bsearch(&key, j->nodes, j->nnodes, sizeof(*j->nodes), pm_cmp_str)))
		return *hit;
	/* a lookup, not a walk (a line for every rank of a large job): "GPU07" is gpu07, then
	 * "gpu07.cluster.local" is gpu07 and "gpu07" gpu07.cluster; a name that fits several
	 * nodes names none of them */
	if (!a->jwhole || !fold(k, sizeof(k), node, strlen(node)))
		return NULL;
	if (!(m = jn_find(a->jwhole, a->njn, k, &h))) {
		const char *dom = strchr(k, '.');
		/* a dotted name of another domain than the job's nodes' is another host
		 * ("hx15.lab2.example.org" where the job's are "hx14.cl.example.org") */
		if (dom && (a->jdom_conflict || (a->jdom && strcmp(dom + 1, a->jdom))))
			return NULL;
		k[strcspn(k, ".")] = '\0';
		m = jn_find(a->jfirst, a->njn, k, &h);
	}
	if (several)
		*several = m > 1;
	return m == 1 ? h : NULL;
}

const char *pm_att_job_node(const struct att *a, const char *node)
{
	return pm_att_job_node_n(a, node, NULL);
}

bool pm_att_unknown_node(const struct att *a, const char *node)
{
	const struct pm_jobinfo *j = &a->ev->job;

	return j->nnodes && node && node[0] && !strchr(node, '[') &&
	       !bsearch(&node, j->nodes, j->nnodes, sizeof(*j->nodes), pm_cmp_str);
}

/* *NAME as the record spells it, where it names one job node.  *SAME: the last name found
 * spelt so already (the evidence's lists run a node's entries together: one compare, not a
 * look-up, for most). */
static void job_name(struct att *a, char **name, const char **same)
{
	const char *n;
	char *d;

	if (!*name || (*same && !strcmp(*name, *same)))
		return;
	if (strchr(*name, '[') || !(n = pm_att_job_node(a, *name)))
		return;
	if (!strcmp(n, *name)) {
		*same = n;
		return;
	}
	if ((d = strdup(n))) { /* else kept as it was */
		free(*name);
		*name = d;
	}
}

struct jdom {
	const char *dom, *node;
};

/* The distinct job nodes the N names at V give domain DOM. */
static size_t dom_nodes(const struct jdom *v, size_t n, const char *dom)
{
	size_t c = 0;

	for (size_t j = 0; j < n; j++) {
		bool dup = strcasecmp(v[j].dom, dom) != 0;
		for (size_t m = 0; m < j && !dup; m++)
			dup = !strcasecmp(v[m].dom, dom) && v[m].node == v[j].node;
		c += !dup;
	}
	return c;
}

/* Note NAME's domain in V (*NV of at most 64), where NAME is a dotted name of one job node
 * (its first label that node's, the whole name none's) not noted yet. */
static void note_dom(const struct att *a, struct jdom *v, size_t *nv, const char *n)
{
	const char *d = n ? strchr(n, '.') : NULL, *h = NULL;
	char k[256];

	if (!d || *nv >= 64 || !fold(k, sizeof(k), n, strlen(n)) ||
	    jn_find(a->jwhole, a->njn, k, &h))
		return;
	k[d - n] = '\0';
	if (jn_find(a->jfirst, a->njn, k, &h) != 1)
		return;
	for (size_t j = 0; j < *nv; j++) /* a trusted line's node repeats its file's */
		if (v[j].node == h && !strcasecmp(v[j].dom, d + 1))
			return;
	v[*nv].dom = d + 1;
	v[(*nv)++].node = h;
}

/*
 * The dotted names of job nodes that sources the job's user cannot write give, in V: a
 * kernel line's host (KHOSTS), the plugin's task records, the collector's records, Slurm's
 * FailedNode, a file's node (a bundle member's, or a path's outside the job's output) and
 * a kernel log's section headers, a trusted line's node.  Never a name the job's output
 * gives (EV's NODES holds those too: an NCCL prefix, a shell's "host: "): the job prints
 * whatever it likes, and a domain it alone gives must not set a kernel line of a job node
 * aside as another host's.
 */
static size_t trusted_doms(const struct att *a, struct jdom *v)
{
	const struct pm_evidence *ev = a->ev;
	size_t nv = 0;

	for (size_t i = 0; i < ev->nkhosts; i++)
		note_dom(a, v, &nv, ev->khosts[i]);
	for (size_t i = 0; i < ev->ntasks; i++)
		note_dom(a, v, &nv, ev->tasks[i].node);
	for (size_t i = 0; i < ev->ncollect; i++)
		note_dom(a, v, &nv, ev->collect[i].node);
	note_dom(a, v, &nv, ev->job.failed_node);
	for (size_t i = 0; i < ev->nfiles; i++) {
		const struct pm_file *f = &ev->files[i];
		/* the job's output under a name the job chose is its text; a bundle's member
		 * node is the collector's */
		if (f->source != PM_SRC_APP_LOG || f->kind_given)
			note_dom(a, v, &nv, f->node);
		for (unsigned h = 0; h < f->nshosts; h++)
			note_dom(a, v, &nv, f->shosts[h]);
	}
	for (size_t i = 0; i < ev->nobs && nv < 64; i++)
		if (ev->obs[i].trusted)
			note_dom(a, v, &nv, ev->obs[i].node);
	return nv;
}

/*
 * The domain of the job's nodes (pm_att_job_node_n): the record's own, where its names are
 * dotted; else the one the trusted sources' dotted names of job nodes (a first label that is
 * one job node's, the whole name none's; trusted_doms) share.  Where they name several, one
 * held by two job nodes or more while every other is held by one is the job's; else none is
 * (a loghost's grep of two clusters, each name once: which cluster is the job's is not
 * known) and JDOM_CONFLICT is set.  The job's output names no domain: a line it printed
 * under another domain's host ("rk07.lab.internal:40110:40110 [0] NCCL INFO ...") made two
 * domains, and the kernel's Xid of a job node ("rk08.prod.example.net") another host's.
 * -1 on ENOMEM.
 */
static int job_domain(struct att *a)
{
	const struct pm_evidence *ev = a->ev;
	struct jdom v[64];
	const char *pick = NULL;
	size_t nv, nconf = 0;
	bool several = false;
	char k[256];

	for (size_t i = 0; i < ev->job.nnodes && !a->jdom; i++) {
		const char *d = strchr(ev->job.nodes[i], '.');
		if (d && fold(k, sizeof(k), d + 1, strlen(d + 1)) && !(a->jdom = strdup(k)))
			return -1;
	}
	if (a->jdom)
		return 0;
	nv = trusted_doms(a, v);
	for (size_t i = 0; i < nv; i++) {
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcasecmp(v[j].dom, v[i].dom);
		several |= strcasecmp(v[i].dom, v[0].dom) != 0;
		if (!seen && dom_nodes(v, nv, v[i].dom) > 1) {
			nconf++;
			pick = v[i].dom;
		}
	}
	if (!several)
		pick = nv ? v[0].dom : NULL;
	else if (nconf != 1)
		pick = NULL;
	a->jdom_conflict = several && !pick;
	if (pick && fold(k, sizeof(k), pick, strlen(pick)) && !(a->jdom = strdup(k)))
		return -1;
	return 0;
}

/* Whether H is a name no host's syslog daemon keeps for long: "localhost", which early boot
 * lines carry before the host's name is set. */
static bool no_host(const char *h)
{
	return !strncasecmp(h, "localhost", 9) && (!h[9] || h[9] == '.');
}

/* Whether X and Y name one host: equal but for case, or by their first labels (gpu07-ib and
 * gpu07-ib.cluster); an address's first number is no name (10.40.3.7, 10.40.3.71). */
static bool same_host(const char *x, const char *y)
{
	size_t lx = strcspn(x, "."), ly = strcspn(y, ".");

	return !strcasecmp(x, y) ||
	       (lx == ly && strspn(x, "0123456789") < lx && !strncasecmp(x, y, lx));
}

/* Whether host H, one a node's log file carries (ONE: the one seen before, set to H), leaves
 * it one node's log under another host name: the node logs under its own name there (a line
 * or section of another name is another host's: a loghost's lines grepped for the node, an
 * address's beside them), and one node's log carries one host name (several are a
 * loghost's file). */
static bool one_host(const struct att *a, const char *h, const char **one)
{
	if (pm_att_job_host(a, h) || (*one && !same_host(*one, h)))
		return false;
	*one = h;
	return true;
}

bool pm_att_node_log(const struct att *a, const struct pm_file *f, const char *host)
{
	const char *n = f && f->node ? pm_att_job_node(a, f->node) : NULL, *one = NULL;
	size_t l;

	if (!n || f->lhosts_more)
		return false;
	for (unsigned k = 0; k < f->nlhosts; k++)
		if (!no_host(f->lhosts[k]) && !one_host(a, f->lhosts[k], &one))
			return false;
	/* so do the hosts its sections' headers name (scan.c, section_node: head(1) over
	 * several nodes' logs saved under one node's name): a section of a job node's name
	 * beside another's is several hosts' logs, whose other hosts keep their names (before,
	 * a neighbour's Xid under its own header was put on the file's node and its exclusion
	 * advised: read-sections-outside-host-beside-job-node) */
	for (unsigned k = 0; k < f->nshosts; k++)
		if (!one_host(a, f->shosts[k], &one))
			return false;
	/* `grep gq07` on a loghost finds gq070 too: a name that goes on in digits where the
	 * node's stops in one is another number, another node (gq07-ib, gq07.ib are not) */
	l = strcspn(n, ".");
	return !(host && l && pm_in_isdigit(n[l - 1]) && !strncasecmp(host, n, l) &&
		 pm_in_isdigit(host[l]));
}

/*
 * The names of the evidence's long lists (a rank, a task, a coverage entry, an observation
 * each: hundreds of thousands at 16,384 nodes x 8, where they kept the attribution's one
 * thread busy while the other cores idled) in blocks on the set's threads, as launcher_ranks
 * is asked, and on the caller's thread alone up to a block's worth (every fixture).  Each
 * name's answer is its own: job_name reads
 * only the sorted keys, the record's nodes and the job's domain, and changes only the one
 * name; SAME, a block's own, only skips a look-up whose answer would be to leave the name as
 * it is.  So any order and any blocks give the same names.
 */
#define NAMES_BLOCK 4096

struct names_list {
	char *base;
	size_t size, off, n;
};

struct names_run {
	struct att *a;
	struct names_list l[7];
	size_t n;
};

/* Names FROM to TO of RUN's lists, one after another. */
static void names_in(struct names_run *run, size_t from, size_t to)
{
	const char *same = NULL;
	size_t at = 0;

	for (size_t k = 0; k < 7 && at < to; at += run->l[k++].n)
		for (size_t i = from > at ? from - at : 0; i < run->l[k].n && at + i < to; i++)
			job_name(run->a,
				 (char **)(run->l[k].base + i * run->l[k].size + run->l[k].off),
				 &same);
}

static char names_done;

static void *names_make(void *arg, unsigned w, size_t k)
{
	struct names_run *run = arg;
	size_t n = run->n;

	(void)w;
	names_in(run, k * NAMES_BLOCK,
		 n - k * NAMES_BLOCK > NAMES_BLOCK ? (k + 1) * NAMES_BLOCK : n);
	return &names_done;
}

static int names_take(void *arg, size_t k, void *item)
{
	(void)arg;
	(void)k;
	(void)item;
	return 0;
}

#define NAMES_OF(v, nv)                                                           \
	{                                                                         \
		(char *)(v), sizeof(*(v)), offsetof(__typeof__(*(v)), node), (nv) \
	}

static void names_many(struct att *a)
{
	struct pm_evidence *ev = a->ev;
	struct names_run run = {a,
				{NAMES_OF(ev->ranks, ev->nranks), NAMES_OF(ev->tasks, ev->ntasks),
				 NAMES_OF(ev->facts, ev->nfacts), NAMES_OF(ev->ipmap, ev->nipmap),
				 NAMES_OF(ev->cov, ev->ncov), NAMES_OF(ev->collect, ev->ncollect),
				 NAMES_OF(ev->obs, ev->nobs)},
				0};
	struct pm_work w = {names_make, names_take, NULL, &run, 0, false};

	for (size_t k = 0; k < 7; k++)
		run.n += run.l[k].n;
	if (run.n <= NAMES_BLOCK)
		names_in(&run, 0, run.n);
	else
		(void)pm_work_run(&w, ev->threads, (run.n + NAMES_BLOCK - 1) / NAMES_BLOCK);
}

int pm_att_job_names(struct att *a)
{
	struct pm_evidence *ev = a->ev;
	size_t n = ev->job.nnodes;

	if (!n)
		return 0;
	a->jwhole = calloc(n, sizeof(*a->jwhole));
	a->jfirst = calloc(n, sizeof(*a->jfirst));
	if (!a->jwhole || !a->jfirst)
		return -1;
	a->njn = n; /* freed whole by att_free, keys or not */
	for (size_t i = 0; i < n; i++) {
		const char *nd = ev->job.nodes[i];
		size_t l = strlen(nd);
		if (!(a->jwhole[i].key = malloc(l + 1)) || !(a->jfirst[i].key = malloc(l + 1)))
			return -1;
		fold(a->jwhole[i].key, l + 1, nd, l);
		fold(a->jfirst[i].key, l + 1, nd, strcspn(nd, "."));
		a->jwhole[i].node = a->jfirst[i].node = nd;
	}
	pm_sort(a->jwhole, n, sizeof(*a->jwhole), cmpjname);
	pm_sort(a->jfirst, n, sizeof(*a->jfirst), cmpjname);
	if (job_domain(a) < 0)
		return -1;
	/* Slurm's names, wherever the evidence spells a job node otherwise: the origin, the
	 * bystanders and an exclusion name a node Slurm knows */
	const char *same = NULL;
	for (size_t i = 0; i < ev->nfiles; i++) {
		job_name(a, &ev->files[i].node, &same);
		for (unsigned h = 0; h < ev->files[i].nshosts; h++)
			job_name(a, &ev->files[i].shosts[h], &same);
	}
	names_many(a); /* the ranks', the tasks', ... the observations' */
	return 0;
}

/* Whether O's node is its search hit's own host field (ECS's host.name, Splunk's host,
 * Graylog's source: pm_peel.node_hit), the shipper's name for the machine the hit came from,
 * which a search's export pasted into the job's folder carries for each hit: not a host the
 * job printed.  A line of no node would be placed by srun's report, on the job's failing
 * node, where another machine's kernel line says nothing. */
bool pm_att_hit_host(const struct att *a, const struct pm_obs *o)
{
	const struct pm_file *f = &a->ev->files[o->file];
	struct pm_peel pe, in;
	size_t n, len = o->raw ? strlen(o->raw) : 0;
	char *buf;
	bool hit;

	if (!o->raw || !o->node)
		return false;
	pm_peel(f->format, o->raw, len, NULL, &pe);
	if (pe.hit)
		return strlen(o->node) == pe.hit_len && !strncasecmp(o->node, pe.hit, pe.hit_len);
	/* a hit quoted whole as a record's value (a JSON logger's message, Docker's log): the
	 * scan read its host (scan.c, match_value) */
	if (!pe.record || pe.end <= pe.skip || pe.end > len || !(buf = malloc(pe.end - pe.skip)))
		return false;
	n = pe.end - pe.skip;
	if (pe.quoted)
		n = pm_unquote(o->raw + pe.skip, n, buf);
	else
		memcpy(buf, o->raw + pe.skip, n);
	pm_peel(PM_FMT_APP, buf, n, NULL, &in);
	hit = in.record && in.hit && strlen(o->node) == in.hit_len &&
	      !strncasecmp(o->node, in.hit, in.hit_len);
	free(buf);
	return hit;
}

/* The node a line of the job's output names (NCCL's "host:pid:tid", Open MPI's "[host:pid]",
 * a shell's "host: ") is the job's own text: one of the job's nodes, spelt as Slurm's record
 * spells it ("n2.cluster" is n2), or no node (the line is then placed by its rank, if it has
 * one).  A host outside the allocation was named as a cause's origin.  Not the file's node
 * instead: where Slurm's node names are not the hosts' own (NodeHostname), that would name a
 * node where nothing may have happened. */
static void own_node(struct att *a, struct pm_obs *o)
{
	const char *n;
	char *d;

	/* a host list ("Nodes gpu[276-277] are still not ready") is Slurm's words, not a host */
	if (o->trusted || !o->node || !a->ev->job.nnodes || strchr(o->node, '['))
		return;
	n = pm_att_job_node(a, o->node);
	if (n && !strcmp(n, o->node))
		return;
	if (!n && pm_att_hit_host(a, o))
		return; /* another machine's line, set aside as such (pm_att_other_node) */
	d = n ? strdup(n) : NULL;
	if (n && !d)
		return; /* kept as it was */
	/* a host outside the allocation, noted: the line's own words about another node
	 * (att_cands.c, named_outside); with no memory to note it, only the name goes */
	if (!n && (a->outside || (a->outside = calloc(a->ev->nobs, sizeof(bool)))))
		a->outside[o - a->ev->obs] = true;
	pm_att_retire(a, o->node);
	o->node = d;
}

/* A trusted line of a file named for a job node (its name or folder gave it one of the
 * record's names) goes by that node's name where its host is not one of the job's and no
 * line of the file is under a job node's name (the node's own log written under its
 * NodeHostname, gpu07-ib, or its address, 10.12.0.7).  A file of several hosts, one a job
 * node, is a loghost's (an address there too: its extract kept in a node's folder): its
 * other hosts keep their names and pm_att_other_node sets them aside; so does a file not
 * named for a job node.  JOBLINE: per file, whether a trusted line of it is under a job
 * node's name; pm_att_node_log asks the same of every line (a routine one of the node,
 * which no rule reads, beside gq070's Xid in `grep gq07`), and more. */
static void file_node_alias(struct att *a, struct pm_obs *o, const bool *jobline)
{
	const struct pm_evidence *ev = a->ev;
	const struct pm_file *f = o->file < ev->nfiles ? &ev->files[o->file] : NULL;
	const char *n;
	char *d;

	/* a section's host the folder guessed (scan.c, section_node) is never the file's */
	if (!o->trusted || !o->node || o->sect_guess || !ev->job.nnodes || !f || !f->node ||
	    strchr(o->node, '[') || pm_att_job_host(a, o->node) ||
	    !(n = pm_att_job_node(a, f->node)) || jobline[o->file] ||
	    !pm_att_node_log(a, f, o->node))
		return;
	if (!(d = strdup(n)))
		return; /* kept as it was */
	pm_att_retire(a, o->node);
	o->node = d;
}

/* Where a launcher numbered the ranks, the one node all of Slurm's tasks ran on (its agents
 * started every rank there); NULL when they ran on several, or none is known, or the record
 * lists more nodes (a provisional verdict's rank map may lack a node's bundle). */
static const char *tnode_one(const struct att *a)
{
	if (a->ev->job.nnodes > 1)
		return NULL;
	for (size_t i = 1; i < a->ntnode; i++)
		if (strcmp(a->tnode[i].node, a->tnode[0].node))
			return NULL;
	return a->ntnode ? a->tnode[0].node : NULL;
}

/* A node as the job's record spells it, where it names one. */
static const char *slurm_name(const struct att *a, const char *node)
{
	const char *n = pm_att_job_node(a, node);

	return n ? n : node;
}

struct tied {
	uint32_t file;
	uint64_t offset;
	unsigned pos; /* its step's place in time, from 1 */
};

/* The place in time (from 1) of each step of the job, where they ran one after another
 * (each started after the one before had ended; all their times known); NULL else. */
static unsigned *steps_in_order(const struct pm_evidence *ev)
{
	unsigned *pos = calloc(ev->nsteps ? ev->nsteps : 1, sizeof(*pos));

	for (size_t k = 0; pos && k < ev->nsteps; k++) {
		const struct pm_step *s = &ev->steps[k];
		if (s->start <= 0 || s->end < s->start)
			goto no;
		pos[k] = 1;
		for (size_t j = 0; j < ev->nsteps; j++) {
			const struct pm_step *o = &ev->steps[j];
			if (j == k)
				continue;
			if (o->start <= 0 || o->end < o->start ||
			    (o->start <= s->end && s->start <= o->end))
				goto no; /* they overlap: their lines interleave */
			pos[k] += o->start < s->start;
		}
	}
	return pos;
no:
	free(pos);
	return NULL;
}

/* The steps whose records put RANK on NODE (of the evidence's TSPLIT, sorted by rank): 1 +
 * the one step's index, 0 none, -1U several. */
static unsigned split_step(const struct att *a, int rank, const char *node)
{
	const struct pm_evidence *ev = a->ev;
	size_t lo = 0, hi = ev->ntsplit;
	unsigned st = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ev->tsplit[mid].rank < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < ev->ntsplit && ev->tsplit[lo].rank == rank; lo++) {
		const struct pm_tsplit *t = &ev->tsplit[lo];
		if (strcmp(slurm_name(a, t->node), node))
			continue;
		if (st && st != t->step)
			return -1U;
		st = t->step;
	}
	return st;
}

/*
 * srun's task lines that only one step's records fit (a rank the steps put on different
 * nodes, on the node the line names), where the steps ran one after another: srun writes
 * them as its step ends, so a line of the job's output after one was written by a later
 * step, and one before it by that step or an earlier one (tie_node).  *N of them.
 */
static struct tied *tied_lines(struct att *a, const unsigned *pos, size_t *n)
{
	const struct pm_evidence *ev = a->ev;
	struct tied *v = NULL;
	struct placed *sr = NULL;
	size_t al = 0, nsr, asr = 0;

	*n = 0;
	for (size_t i = 0; i < ev->nobs; i++) {
		const struct pm_obs *o = &ev->obs[i];
		unsigned st = 0;
		if (!o->raw || o->source != PM_SRC_APP_LOG || !strstr(o->raw, "srun: error: "))
			continue;
		nsr = 0;
		if (srun_tasks(o->raw, &sr, &nsr, &asr) < 0)
			break;
		for (size_t k = 0; k < nsr && st != -1U; k++) {
			unsigned s = split_step(a, sr[k].rank, slurm_name(a, sr[k].node));
			if (s == -1U || (s && st && s != st))
				st = -1U;
			else if (s)
				st = s;
		}
		if (!st || st == -1U)
			continue;
		if (*n == al && pm_grow((void **)&v, &al, sizeof(*v)) < 0)
			break;
		v[(*n)++] = (struct tied){o->file, o->offset, pos[st - 1]};
	}
	free(sr);
	return v;
}

/* The node of O's rank in the step that wrote O, where srun's task lines around it in its
 * file (TIED, N) leave one step of those the rank's records name (POS: their order); NULL. */
static const char *tie_node(const struct att *a, const struct pm_obs *o, const struct tied *v,
			    size_t n, const unsigned *pos)
{
	const struct pm_evidence *ev = a->ev;
	unsigned after = 0, before = -1U; /* O's step is after AFTER and at or before BEFORE */
	const char *node = NULL;

	for (size_t i = 0; i < n; i++) {
		if (v[i].file != o->file || v[i].offset == o->offset)
			continue;
		if (v[i].offset < o->offset && v[i].pos > after)
			after = v[i].pos;
		if (v[i].offset > o->offset && v[i].pos < before)
			before = v[i].pos;
	}
	if (!after && before == -1U)
		return NULL;
	for (size_t i = 0; i < ev->ntsplit; i++) {
		const struct pm_tsplit *t = &ev->tsplit[i];
		unsigned p = pos[t->step - 1];
		if (t->rank != o->rank || !t->step || p <= after || p > before)
			continue;
		if (node && strcmp(node, slurm_name(a, t->node)))
			return NULL;
		node = slurm_name(a, t->node);
	}
	return node;
}

/* Whether O is srun's task line and names its node ("srun: error: NODE: task 1: ..."): the
 * task it numbers is its own step's, whatever another step's records say of that number. */
static bool srun_own(const struct pm_obs *o)
{
	char node[128];

	return o->node && o->source == PM_SRC_APP_LOG && o->raw &&
	       srun_node(o->raw, node, sizeof(node));
}

/* A line that names its rank ran where that rank ran: the rank map knows, not the node that
 * read the file (the job's output is read on the batch node only); its srun label, when it
 * has one, says which task wrote it (label_node). */
/* How many nodes srun's task lines and the rank map's records name: the nodes a record
 * that lists none saw tasks on (weak_local). */
static long placed_nodes(const struct att *a)
{
	const struct pm_evidence *ev = a->ev;
	const char **v = malloc((a->nplaced + ev->ntasks + 1) * sizeof(*v));
	size_t n = 0;
	long k = 0;

	if (!v)
		return 0;
	for (size_t i = 0; i < a->nplaced; i++)
		v[n++] = a->placed[i].node;
	for (size_t i = 0; i < ev->ntasks; i++)
		if (ev->tasks[i].node)
			v[n++] = ev->tasks[i].node;
	if (n > 1)
		pm_sort(v, n, sizeof(*v), pm_cmp_str);
	for (size_t i = 0; i < n; i++)
		k += !i || strcasecmp(v[i], v[i - 1]);
	free(v);
	return k;
}

/*
 * Whether the job's bare rank tags ("[rank1] ", "[Rank 1] ", "[rank1]: ": pm_peel's
 * rank_weak) may be a logger's LOCAL_RANK, not Slurm's task number: the step ran more tasks
 * than nodes and every such tag is below the tasks per node.  A logger that tags its lines
 * with the process's local rank prints "[rank1] " on every node, and the rank map would put
 * each of them on the node of global rank 1 (review35 F3: before, a busy GPU on gk22's
 * local rank 1 was gk21's, supported, its exclusion advised).  With no record of the job's
 * nodes, srun's task lines (and the rank map's records) say how many nodes ran tasks; where
 * they name fewer than two, nothing says how the tasks lay, and a tag may be local to any
 * node (review36 H3: without the record, srun's gk21 0-1 and gk22 2-3 went unread, and
 * gk21's exclusion was advised again).
 */
static bool weak_local(const struct att *a)
{
	const struct pm_evidence *ev = a->ev;
	long tasks = ev->job.ntasks, nodes = (long)ev->job.nnodes, top = -1;

	for (size_t i = 0; i < ev->nobs; i++)
		if (ev->obs[i].rank_weak && ev->obs[i].rank > top)
			top = ev->obs[i].rank;
	if (top < 0)
		return false;
	if (!nodes && (nodes = placed_nodes(a)) < 2)
		return true;
	if ((long)ev->ntasks > tasks)
		tasks = (long)ev->ntasks;
	for (size_t i = 0; i < a->nplaced; i++)
		if (a->placed[i].rank >= tasks)
			tasks = a->placed[i].rank + 1L;
	return nodes > 1 && tasks > nodes && top < (tasks + nodes - 1) / nodes;
}

void pm_att_place_obs(struct att *a)
{
	bool *jobline = calloc(a->ev->nfiles ? a->ev->nfiles : 1, sizeof(*jobline));
	const char *one = tnode_one(a);
	unsigned *pos = a->namb && a->ev->ntsplit ? steps_in_order(a->ev) : NULL;
	size_t ntied = 0;
	struct tied *tied = pos ? tied_lines(a, pos, &ntied) : NULL;
	const bool wlocal = weak_local(a);

	for (size_t i = 0; jobline && i < a->ev->nobs; i++) {
		const struct pm_obs *o = &a->ev->obs[i];
		if (o->trusted && o->node && o->file < a->ev->nfiles && a->ev->job.nnodes &&
		    pm_att_job_host(a, o->node))
			jobline[o->file] = true;
	}
	for (size_t i = 0; i < a->ev->nobs; i++) {
		struct pm_obs *o = &a->ev->obs[i];
		const char *n;
		bool byrank;

		if (jobline) /* else (no memory) as before: set aside, never placed on a node */
			file_node_alias(a, o, jobline);
		own_node(a, o);
		if (srun_own(o))
			continue; /* srun names the node its task ran on */
		n = label_node(a, o);
		byrank = false;

		if (!n && o->rank >= 0)
			byrank = (n = pm_att_rank_node(a, o->rank)) != NULL;
		if (!n && o->rank >= 0 && ntied && pm_rankset_has(a->amb, a->namb, o->rank))
			byrank = (n = tie_node(a, o, tied, ntied, pos)) != NULL;
		if (!n && o->rank >= 0 && !o->node && a->tnode)
			n = one; /* every task on one node: so is every rank */
		/* placed by a tag that may be a local rank (the file's node, a collector's batch
		 * host's, says no more): the folder's guess, as prefix_only_node's weak prefix */
		o->rank_guess = byrank && o->rank_weak && wlocal;
		if (n && (!o->node || strcmp(o->node, n))) {
			char *d = strdup(n);
			if (d) {
				pm_att_retire(a, o->node);
				o->node = d;
			}
		} else if (!n && o->rank >= 0 && !a->tnode &&
			   rankmap_node(a->mapn, a->nmapn, o->node)) {
			/* the rank map names that node's ranks, and not this one */
			pm_att_retire(a, o->node);
			o->node = NULL;
		}
	}
	free(jobline);
	free(tied);
	free(pos);
}

/* Whether exit code C is a shell's report of its child ended by SIGTERM or SIGKILL (128 + 15,
 * 128 + 9): a task that was a shell (a wrapper script, "bash -c") exits so when Slurm ends
 * the step's tasks, where the program itself would have shown the signal.  A program's own
 * exit(143) or exit(137) is rare enough to be read as the signal. */
bool pm_att_slurm_signal_exit(long c)
{
	return c == 128 + 15 || c == 128 + 9;
}

/* Task T's signal, or the one its exit code stands for (pm_att_slurm_signal_exit). */
static int task_signal(const struct pm_task *t)
{
	if (!t->signal && pm_att_slurm_signal_exit(t->exit_code))
		return t->exit_code - 128;
	return t->signal;
}

/* Whether task T failed of itself: a non-zero exit, or a signal other than the SIGTERM and
 * SIGKILL with which Slurm ends a step's other tasks once one has failed (a shell's exit
 * 143 or 137 is that signal). */
bool pm_att_own_failure(const struct pm_task *t)
{
	int sig = task_signal(t);

	if (!t->exited)
		return false;
	if (sig == 9 || sig == 15)
		return false;
	return t->exit_code > 0 || sig > 0;
}

const char *pm_att_clean_exits(const struct att *a, const char *node)
{
	const char *other = NULL;
	double first = 0, tol = a->rs ? a->rs->skew_s : 2;
	size_t mine = 0;

	/* the first task elsewhere that failed of itself */
	for (size_t i = 0; i < a->ev->ntasks; i++) {
		const struct pm_task *t = &a->ev->tasks[i];
		if (!t->node || !strcmp(t->node, node) || !pm_att_own_failure(t))
			continue;
		if (!other || (t->end > 0 && (first <= 0 || t->end < first))) {
			other = t->node;
			first = t->end;
		}
	}
	if (!other)
		return NULL;
	/* every task on NODE ended cleanly, or was ended after it (--kill-on-bad-exit) */
	for (size_t i = 0; i < a->ev->ntasks; i++) {
		const struct pm_task *t = &a->ev->tasks[i];
		if (!t->node || strcmp(t->node, node))
			continue;
		if (!t->exited)
			return NULL;
		if (!(t->exit_code == 0 && !t->signal) &&
		    !((task_signal(t) == 9 || task_signal(t) == 15) && first > 0 &&
		      t->end >= first - tol))
			return NULL;
		mine++;
	}
	return mine ? other : NULL;
}

/* ---- phase: the ranks that used a failing GPU ---- */

/* Bus ids as the kernel and nvidia-smi write them ("0000:3b:00", "0000:3B:00.0"): equal up
 * to the function digit, whatever the case. */
bool pm_att_pci_eq(const char *x, const char *y)
{
	size_t lx = strcspn(x, "."), ly = strcspn(y, ".");

	return lx == ly && !strncasecmp(x, y, lx);
}

/* Whether a rank map's GPU list ("0,1") holds index IDX. */
bool pm_att_gpus_has(const char *list, int idx)
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

/* The IDX-th entry of a rank map's GPU list ("4,6": 1 gives 6); -1 none. */
static int gpus_nth(const char *list, int idx)
{
	for (const char *p = list; p && *p; idx--) {
		char *e;
		long v = strtol(p, &e, 10);
		if (e == p || (*e != ',' && *e))
			return -1;
		if (!idx)
			return (int)v;
		p = *e == ',' ? e + 1 : NULL;
	}
	return -1;
}

/* How many GPUs nvidia-smi shows on NODE (node.gpu_count); 0 unknown. */
static double node_gpus_shown(const struct att *a, const char *node)
{
	for (size_t i = 0; i < a->ev->nfacts; i++) {
		const struct pm_fact *f = &a->ev->facts[i];
		if (f->gpu < 0 && f->node && !strcmp(f->node, node) && f->value > 0 &&
		    !strcmp(f->name, "node.gpu_count"))
			return f->value;
	}
	return 0;
}

/* How many GPUs the job's tasks on NODE list, all lists together (at most 64 told apart). */
size_t pm_att_held_count(const struct att *a, const char *node)
{
	long seen[64];
	size_t n = 0;

	for (size_t i = 0; i < a->ev->ntasks; i++) {
		const struct pm_task *t = &a->ev->tasks[i];
		if (!t->node || strcmp(t->node, node) || !t->gpus)
			continue;
		for (const char *p = t->gpus; *p;) {
			char *e;
			long v = strtol(p, &e, 10);
			size_t k = 0;
			if (e == p)
				break;
			while (k < n && seen[k] != v)
				k++;
			if (k == n && n < sizeof(seen) / sizeof(seen[0]))
				seen[n++] = v;
			p = *e == ',' ? e + 1 : e;
		}
	}
	return n;
}

/*
 * The node's own index of row ROW of nvidia-smi's view on NODE (SHOWN rows) where the job
 * holds every GPU shown, and in *PCI the row's bus id (NULL none).  A cgroup's nvidia-smi
 * shows the job's GPUs only, its rows counted from 0 whatever the node calls them: where a
 * shown GPU's Minor Number (nvidia-smi -q: /dev/nvidiaN) is past the rows, the view is a part
 * of the node, and the row's Minor Number is the node's index (-1 where the row has none).
 * Where every Minor Number is among the rows, the view holds the node's GPUs 0..n-1: the row
 * is nvidia-smi's own index there (`nvidia-smi -i`, bus order), which a Minor Number need not
 * be (a node whose /dev/nvidia0 is its third GPU by bus); the bus id names it either way.
 */
static int row_node_index(const struct att *a, const char *node, int row, double shown,
			  const char **pci)
{
	bool beyond = false;
	int minor = -1;

	*pci = NULL;
	for (size_t i = 0; i < a->ev->nfacts; i++) {
		const struct pm_fact *f = &a->ev->facts[i];
		if (f->gpu < 0 || !f->node || strcmp(f->node, node))
			continue;
		if (f->gpu == row && f->pci && !*pci)
			*pci = f->pci;
		if (f->minor < 0)
			continue;
		if (f->gpu == row)
			minor = f->minor;
		if ((double)f->minor >= shown)
			beyond = true;
	}
	return beyond ? minor : row;
}

/*
 * The node's index of the GPU observation O names on NODE.  A GPU state's or a DCGM sample's
 * index is the node's.  Any other (a program's words: PyTorch's "(GPU 0; 79.1 GiB total
 * capacity ...)", "device 0", gpu-burn's "GPU 1: FAULTY") is CUDA's, counted among the GPUs
 * the process sees: its CUDA_VISIBLE_DEVICES, which Slurm sets in the order of the task's
 * GPUs, so CUDA's GPU N is the Nth of the rank's list of the node's own indexes
 * (SLURM_STEP_GPUS in the plugin's records: a task given GPUs 3 and 5 calls 5 its GPU 1).
 * Every task of O's rank there (every task there for a line of no rank) must give the same
 * GPU.  A list CUDA_VISIBLE_DEVICES gave is the cgroup's numbering again: unknown.  With no
 * records, the index is known only where the job holds every GPU nvidia-smi shows there
 * (gres per node against node.gpu_count), and is then, where it shows as many as the job
 * holds, the row's index on the node (a cgroup's view calls the node's GPU 3 its GPU 0:
 * row_node_index), with the row's bus id in *ROW_PCI (may be NULL), where it shows fewer (a
 * GPU gone since) CUDA's own index; else -1, unknown: a one-GPU job's "GPU 0" on a node of
 * eight is any of the eight.
 */
int pm_att_obs_node_gpu(const struct att *a, const struct pm_obs *o, const char *node,
			const char **row_pci)
{
	const struct pm_evidence *ev = a->ev;
	int got = -1;
	bool any = false;
	double shown;
	const char *pci_dummy;

	if (!row_pci)
		row_pci = &pci_dummy;
	*row_pci = NULL;
	if (o->gpu < 0 || !node)
		return -1;
	if (o->source == PM_SRC_GPU_STATE || o->source == PM_SRC_NODE_METRICS)
		return o->gpu;
	for (size_t i = 0; i < ev->ntasks; i++) {
		const struct pm_task *t = &ev->tasks[i];
		int g;
		if (!t->node || strcmp(t->node, node) || (o->rank >= 0 && t->rank != o->rank))
			continue;
		if (t->split || !t->gpus || t->gpus_relative ||
		    (g = gpus_nth(t->gpus, o->gpu)) < 0 || (any && g != got))
			return -1;
		got = g;
		any = true;
	}
	if (any)
		return got;
	shown = node_gpus_shown(a, node);
	if (!(shown > 0 && ev->job.gpus_per_node >= (int)shown && !pm_att_held_count(a, node)))
		return -1;
	/* more GPUs held than shown: a GPU gone since (a snapshot after a reboot), the job held
	 * the node's every GPU then, and CUDA's index was the node's */
	return ev->job.gpus_per_node > (int)shown ? o->gpu :
						    row_node_index(a, node, o->gpu, shown, row_pci);
}

int pm_att_pci_index(const struct att *a, const char *node, const char *pci)
{
	for (size_t i = 0; i < a->ev->nfacts; i++) {
		const struct pm_fact *f = &a->ev->facts[i];
		if (f->gpu >= 0 && f->pci && f->node && !strcmp(f->node, node) &&
		    pm_att_pci_eq(f->pci, pci))
			return f->gpu;
	}
	return -1;
}

/* The Minor Number nvidia-smi -q gives the GPU of bus id PCI on NODE (/dev/nvidiaN: the
 * node's own numbering, whatever the table's view); -1 unknown. */
static int pci_minor(const struct att *a, const char *node, const char *pci)
{
	for (size_t i = 0; i < a->ev->nfacts; i++) {
		const struct pm_fact *f = &a->ev->facts[i];
		if (f->minor >= 0 && f->pci && f->node && !strcmp(f->node, node) &&
		    pm_att_pci_eq(f->pci, pci))
			return f->minor;
	}
	return -1;
}

/* Whether nvidia-smi's table on NODE shows no more GPUs than the job's tasks there list: the
 * job's own GPUs (a cgroup's view, or a job holding the node's every GPU), numbered as a
 * CUDA_VISIBLE_DEVICES list numbers them. */
static bool view_is_jobs(const struct att *a, const char *node)
{
	double shown = node_gpus_shown(a, node);

	return shown > 0 && shown <= (double)pm_att_held_count(a, node);
}

/* A GPU named by a hardware event (by index, or by bus id through nvidia-smi's table) was
 * used by the ranks the rank map gives that GPU on that node: they are the origin's ranks.
 * A list of the node's own indexes (SLURM_STEP_GPUS, SLURM_JOB_GPUS) numbers the GPUs as
 * their Minor Numbers do, not as a table's rows: a job given GPUs 4-7, or a cgroup's
 * nvidia-smi that shows the job's GPU 6 as its row 2, would name the rank of another GPU.
 * A list CUDA_VISIBLE_DEVICES gave numbers the job's view, as such a table's rows do. */
/* A PCI address's domain, bus and device as one number (NCCL's busId without its function:
 * "0000:3b:00.0" and "3b:00" are 0x3b00); -1 unparsable. */
static long long pci_key(const char *s)
{
	unsigned dom = 0, bus, dev;
	int n;

	if (sscanf(s, "%x:%x:%x%n", &dom, &bus, &dev, &n) == 3 ||
	    (dom = 0, sscanf(s, "%x:%x%n", &bus, &dev, &n) == 2))
		return bus < 256 && dev < 256 ? (long long)dom << 16 | bus << 8 | dev : -1;
	return -1;
}

/* The bus id NCCL's set-up line M names, as pci_key gives it ("busId 9a000": its function
 * digit left out); -1 none. */
static long long setup_busid(const struct pm_obs *m)
{
	const char *b;
	unsigned long long id;

	if (!m->raw || !(b = strstr(m->raw, " busId ")) || sscanf(b + 7, "%llx", &id) != 1)
		return -1;
	return (long long)(id >> 4);
}

/* Whether another set-up line of the largest communicator (I's) gives line I's rank another
 * bus id than KEY on the same host: two starts pasted into one folder (a requeued job's
 * output appended, a rerun's lines beside the first's) that gave the rank different GPUs.
 * The rank's GPU is then unknown: which start the hardware line's failure ended cannot be
 * told.  The same line printed twice (a duplicated paste) names one bus id, and one GPU. */
static bool busid_twice(const struct att *a, size_t i, long long key)
{
	const struct pm_obs *m = &a->ev->obs[i];
	long long k;

	for (size_t j = 0; j < a->ev->nobs; j++) {
		const struct pm_obs *p = &a->ev->obs[j];
		/* a line of no host may be the same host's */
		if (j == i || p->rank != m->rank || !comm_line(a, j, a->commw) ||
		    (p->node && m->node && strcasecmp(p->node, m->node)))
			continue;
		if ((k = setup_busid(p)) >= 0 && k != key)
			return true;
	}
	return false;
}

/* Said in `why` once: rank R on NODE is left out of a failed GPU's ranks (busid_twice). */
static void say_busid_twice(struct att *a, int r, const char *node)
{
	if (a->busid_twice_said)
		return;
	a->busid_twice_said = true;
	pm_att_why(a,
		   "Rank %d's NCCL set-up lines on %s name two bus ids (two starts of its "
		   "communicator): which GPU it used is unknown, so the failed GPU's bus names no "
		   "rank by it.",
		   r, node);
}

/* With no rank map, the ranks of the job's communicator whose NCCL set-up line on NODE names
 * the bus id of hardware line O ("rank 5 nranks 8 cudaDev 1 nvmlDev 1 busId 3b000"): they
 * join C's ranks.  Only the largest communicator's lines (comm_line), whose ranks are the
 * job's, not a split group's renumbered ones, only a rank placed on NODE, and only one whose
 * set-up lines there all name that bus (busid_twice). */
static int busid_ranks(struct att *a, struct cand *c, const struct pm_obs *o)
{
	long long want = o->pci ? pci_key(o->pci) : -1;

	if (want < 0 || a->ev->ntasks || a->commw <= 0)
		return 0;
	for (size_t i = 0; i < a->ev->nobs; i++) {
		const struct pm_obs *m = &a->ev->obs[i];
		const char *n;
		if (!comm_line(a, i, a->commw) || setup_busid(m) != want)
			continue;
		n = pm_att_rank_node(a, m->rank);
		if (!n || strcasecmp(n, c->node))
			continue;
		if (busid_twice(a, i, want)) {
			say_busid_twice(a, m->rank, n);
			continue;
		}
		if (pm_att_cand_addrank(c, m->rank) < 0)
			return -1;
	}
	return 0;
}

int pm_att_phase_gpu_ranks(struct att *a)
{
	for (size_t i = 0; i < a->nc; i++) {
		struct cand *c = &a->c[i];
		if (c->dead || !c->hardware || !c->node[0] || c->fallback)
			continue;
		for (size_t k = 0; k < c->nev; k++) {
			const struct pm_obs *o = &a->ev->obs[c->ev[k]];
			int idx = o->gpu, minor;
			if (!o->trusted || !o->node || strcmp(o->node, c->node))
				continue;
			if (idx < 0 && o->pci)
				idx = pm_att_pci_index(a, c->node, o->pci);
			minor = o->pci ? pci_minor(a, c->node, o->pci) : -1;
			for (size_t t = 0; t < a->ev->ntasks; t++) {
				const struct pm_task *tk = &a->ev->tasks[t];
				int x = !tk->gpus_relative && minor >= 0 ? minor : idx;
				/* a list CUDA_VISIBLE_DEVICES gave is read by a table's row only
				 * where the table shows no more GPUs than the job holds there (the
				 * cgroup's view of its own): a table of the node's every GPU
				 * numbers them as the node does, and a job given GPU 3 sees it as
				 * its 0 */
				if (tk->gpus_relative && !view_is_jobs(a, c->node))
					continue;
				if (x >= 0 && tk->node && !strcmp(tk->node, c->node) && tk->gpus &&
				    pm_att_gpus_has(tk->gpus, x) &&
				    pm_att_cand_addrank(c, tk->rank) < 0)
					return -1;
			}
			if (busid_ranks(a, c, o) < 0)
				return -1;
		}
	}
	return 0;
}

/* ---- phase: silence (R-NCCL-2) ---- */

/* A rank's sequence number in one process group (PG: pm_obs.pg, -1 where the line names
 * none).  BEHIND: lower than the highest of its group.  ENQ: a last enqueued figure (a work
 * status line's), not a timed-out collective's SeqNum. */
struct rseq {
	int rank;
	int pg;
	long long seq;
	bool behind;
	bool enq;
};

/* by group, then rank, the timed-out SeqNums before the last enqueued figures, then
 * sequence number */
static int cmppgseq(const void *x, const void *y)
{
	const struct rseq *a = x, *b = y;

	if (a->pg != b->pg)
		return (a->pg > b->pg) - (a->pg < b->pg);
	if (a->rank != b->rank)
		return (a->rank > b->rank) - (a->rank < b->rank);
	if (a->enq != b->enq)
		return (int)a->enq - (int)b->enq;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

/* by rank, the ranks behind first */
static int cmprseq(const void *x, const void *y)
{
	const struct rseq *a = x, *b = y;

	if (a->rank != b->rank)
		return (a->rank > b->rank) - (a->rank < b->rank);
	return (int)b->behind - (int)a->behind;
}

static int cmprank(const void *x, const void *y)
{
	const struct rseq *a = x, *b = y;

	return (a->rank > b->rank) - (a->rank < b->rank);
}

static int cmpint(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;

	return (a > b) - (a < b);
}

/* The ranks that logged progress past where every rank that timed out stopped (T[0..NT), by
 * rank): they went on, so they are not what the others waited for (a rank that finished its
 * loop while one peer still sat in a collective).  Sorted into *AHEAD; -1 on ENOMEM.  None
 * where a rank that timed out logged no dated progress (nothing to compare). */
static int ranks_ahead(const struct att *a, const struct rseq *t, size_t nt, int **ahead,
		       size_t *nahead)
{
	const struct pm_evidence *ev = a->ev;
	double rep = 0, tol = a->rs->skew_s + a->maxskew;
	size_t seen = 0, n = 0;

	*ahead = NULL;
	*nahead = 0;
	for (size_t i = 0; i < ev->nranks; i++) {
		const struct pm_rankinfo *ri = &ev->ranks[i];
		struct rseq key = {ri->rank, -1, -1, false, false};
		if (ri->rank < 0 || !bsearch(&key, t, nt, sizeof(*t), cmprank))
			continue;
		if (!ri->last_progress)
			return 0;
		seen++;
		if (ri->last_progress > rep)
			rep = ri->last_progress;
	}
	if (seen < nt || !rep)
		return 0;
	for (size_t i = 0; i < ev->nranks; i++) {
		const struct pm_rankinfo *ri = &ev->ranks[i];
		if (ri->rank < 0 || ri->last_progress <= rep + tol)
			continue;
		if (!*ahead && !(*ahead = malloc(ev->nranks * sizeof(**ahead))))
			return -1;
		(*ahead)[n++] = ri->rank;
	}
	if (n > 1)
		pm_sort(*ahead, n, sizeof(**ahead), cmpint);
	*nahead = n;
	return 0;
}

/* A rank's highest figure on lines that name no process group, and on lines that name one. */
struct rother {
	int rank;
	long long unnamed, named;
};

static int cmprother(const void *x, const void *y)
{
	const struct rother *a = x, *b = y;

	return (a->rank > b->rank) - (a->rank < b->rank);
}

/* The highest figure of E's rank on lines of the other kind (named group or none); -1 none. */
static long long other(const struct rother *o, size_t no, const struct rseq *e)
{
	struct rother key = {e->rank, -1, -1};
	const struct rother *x = bsearch(&key, o, no, sizeof(*o), cmprother);

	return !x ? -1 : e->pg < 0 ? x->named : x->unnamed;
}

/*
 * Mark in T[0..N) the ranks behind their peers.  Per rank and process group the highest
 * last enqueued figure it reported counts (a timeout's SeqNum is only its oldest pending
 * collective, the work status line's last enqueued is higher), else the lowest SeqNum that
 * timed out (its oldest pending, the one its peers' single timeout line gives), and it is
 * compared only with the others of its group: each group numbers its own collectives, so a
 * sub-group's figures say nothing of the default group's.  Lines that name no group (the
 * timeout's own text, "[Rank N] Watchdog caught ...", beside a work status line that names
 * one; every line of PyTorch before 2.2) are one group of their own, and never blame a rank
 * against a named group: a rank is not behind in a named group where a figure of its own
 * on a line that names none reaches the group's highest (that line may be of the same
 * group), and the figures of a rank that also reported a named group's (its lines that name
 * none may be of any of its groups) are not compared among those that name none.
 * Within one communicator the figures of ranks that wait differ by one collective at most:
 * a peer cannot finish collective N+1 before this rank's N is done, its stream runs them in
 * order.  So on lines that name no group a rank more than one behind the highest is not
 * behind there: its figures are another group's (a sub-group's counter, which those lines
 * do not name: 64088 beside 96125), and comparing them would blame the rank that printed
 * them (comm-watchdog-tagged-two-groups-counters, comm-watchdog-untagged-two-groups-near-miss).
 * FEWEST: behind only at the group's lowest (the fewest completed collectives).  *N becomes
 * the count left, one a rank and group, sorted by group and rank.  0, or -1 on ENOMEM.
 */
static int behind(struct rseq *t, size_t *n, bool fewest)
{
	struct rother *o = NULL;
	size_t m = 0, no = 0;

	pm_sort(t, *n, sizeof(*t), cmppgseq);
	for (size_t i = 0, j; i < *n; i = j) {
		for (j = i + 1; j < *n && t[j].pg == t[i].pg && t[j].rank == t[i].rank;)
			j++;
		/* the highest last enqueued; with none, the lowest SeqNum that timed out: a
		 * rank's watchdog may report every pending collective that timed out (error
		 * handling off, older releases), and the later ones are no further than its
		 * peers' single one (comm-watchdog-several-pending-one-rank) */
		t[m++] = t[j - 1].enq ? t[j - 1] : t[i];
	}
	*n = m;
	if (!m)
		return 0;
	if (!(o = malloc(m * sizeof(*o))))
		return -1;
	for (size_t i = 0; i < m; i++)
		o[i] = (struct rother){t[i].rank, t[i].pg < 0 ? t[i].seq : -1,
				       t[i].pg < 0 ? -1 : t[i].seq};
	pm_sort(o, m, sizeof(*o), cmprother);
	for (size_t i = 0; i < m; i++) {
		if (no && o[no - 1].rank == o[i].rank) {
			if (o[i].unnamed > o[no - 1].unnamed)
				o[no - 1].unnamed = o[i].unnamed;
			if (o[i].named > o[no - 1].named)
				o[no - 1].named = o[i].named;
			continue;
		}
		o[no++] = o[i];
	}
	for (size_t i = 0, j; i < m; i = j) {
		long long hi = -1, lo = -1;
		for (j = i; j < m && t[j].pg == t[i].pg; j++) {
			if (t[j].pg < 0 && other(o, no, &t[j]) >= 0)
				continue;
			if (t[j].seq > hi)
				hi = t[j].seq;
			if (t[j].seq >= 0 && (lo < 0 || t[j].seq < lo))
				lo = t[j].seq;
		}
		for (size_t k = i; k < j; k++) {
			long long x = other(o, no, &t[k]);
			bool near = fewest || hi - t[k].seq <= 1;
			t[k].behind = t[k].seq >= 0 && t[k].seq < hi &&
				      (t[k].pg < 0 ? x < 0 && near : x < hi) &&
				      (!fewest || t[k].seq == lo);
		}
	}
	free(o);
	return 0;
}

/*
 * The ranks a cascade names as never having arrived (an `absent` capture: PyTorch's monitored
 * barrier, rank 0's "Rank 3 failed to pass monitoredBarrier in 600000 ms", with
 * wait_all_ranks "Ranks 5, 7 failed to pass ..."): the barrier's root saw every other rank
 * arrive, so those it names are where the job stopped, and the reporter, like every rank that
 * arrived, only waited.  The scan keeps no list, so the line is matched again and the numbers
 * read off the group.  They are pushed onto A's suspects (AS their room); the number pushed,
 * or -1 on ENOMEM.
 */
static int absent_ranks(struct att *a, size_t *as, int *reporter)
{
	pcre2_match_data *md = NULL;
	int pushed = 0;

	for (size_t i = 0; i < a->ev->nobs; i++) {
		const struct pm_obs *o = &a->ev->obs[i];
		const struct pm_rule *r = R(a, i);
		int g = r->cap[PM_CAP_ABSENT], rc;
		PCRE2_SIZE *ov;

		if (!g || r->role != PM_ROLE_CASCADE || !o->raw || !r->re)
			continue;
		if (!md && !(md = pcre2_match_data_create_from_pattern(r->re, NULL)))
			return -1;
		rc = pm_re_match(NULL, r->re, o->raw, strlen(o->raw), md);
		ov = pcre2_get_ovector_pointer(md);
		if (rc <= g || ov[2 * g] == PCRE2_UNSET)
			continue;
		for (size_t k = ov[2 * g]; k < ov[2 * g + 1];) {
			long v = 0;
			bool digit = false;
			while (k < ov[2 * g + 1] && o->raw[k] >= '0' && o->raw[k] <= '9' &&
			       v < 1 << 24) {
				v = v * 10 + (o->raw[k++] - '0');
				digit = true;
			}
			if (!digit) {
				k++;
				continue;
			}
			if (v < 1 << 24 && (int)v != o->rank) {
				if (pm_rankset_push(&a->suspects, &a->nsuspects, as, (int)v) < 0) {
					pcre2_match_data_free(md);
					return -1;
				}
				pushed++;
			}
		}
		if (pushed && *reporter < 0)
			*reporter = o->rank;
	}
	pcre2_match_data_free(md);
	return pushed;
}

int pm_att_phase_silence(struct att *a)
{
	struct pm_evidence *ev = a->ev;
	/* (rank, group, sequence number) of every timed-out collective */
	struct rseq *t = NULL;
	size_t n = 0, nt = 0, as = a->nsuspects, nahead = 0, nall = a->nknown;
	int *ahead = NULL;
	int rc = -1;

	int named, reporter = -1;

	/* a report that names the ranks that never arrived says who: no inference from who
	 * printed what */
	if ((named = absent_ranks(a, &as, &reporter)) < 0)
		goto out;
	if (named) {
		char list[256] = "";
		size_t m = 0;
		pm_rankset_done(a->suspects, &a->nsuspects);
		for (size_t i = 0; i < a->nsuspects && m < sizeof(list) - 12; i++)
			m += (size_t)snprintf(list + m, sizeof(list) - m, "%s%d", i ? "," : "",
					      a->suspects[i]);
		if (reporter >= 0)
			pm_att_why(a,
				   "Rank %d's monitored barrier names rank(s) %s as never arriving: "
				   "they are suspects, and the ranks that arrived only waited.",
				   reporter, list);
		else
			pm_att_why(a,
				   "A monitored barrier names rank(s) %s as never arriving: they are "
				   "suspects, and the ranks that arrived only waited.",
				   list);
		rc = 0;
		goto out;
	}
	if (ev->nobs && !(t = malloc(ev->nobs * sizeof(*t))))
		goto out;
	for (size_t i = 0; i < ev->nobs; i++) {
		const struct pm_obs *o = &ev->obs[i];
		if (R(a, i)->role != PM_ROLE_CASCADE || o->seq < 0 || o->rank < 0)
			continue;
		t[n++] = (struct rseq){o->rank, o->pg, o->seq, false, o->seqdone >= 0};
	}
	/* where no timeout carries a sequence number (PyTorch before 1.10, the blocking wait's
	 * old form, Gloo), the timeouts of the collective-timeout kind tell who waited, not how
	 * far: the known ranks that printed none are the suspects */
	for (size_t i = 0; i < ev->nobs && !n; i++) {
		const struct pm_obs *o = &ev->obs[i];
		const struct pm_rule *r = R(a, i);
		if (r->role == PM_ROLE_CASCADE && o->rank >= 0 &&
		    pm_is_kind(r->cls, r->subcls, PM_K_TIMEOUTS))
			t[nt++] = (struct rseq){o->rank, -1, -1, false, false};
	}
	if (!n) {
		n = nt;
		nt = 0;
	}
	if (!n) {
		rc = 0;
		goto out;
	}
	if (behind(t, &n, false) < 0)
		goto out;
	/* one entry a rank, behind when it is behind in any group */
	pm_sort(t, n, sizeof(*t), cmprseq);
	for (size_t i = 0; i < n; i++)
		if (!nt || t[nt - 1].rank != t[i].rank)
			t[nt++] = t[i];
	/* the known ranks that reported no timeout: the walk of two sorted lists; not those
	 * that went on past where the others stopped */
	if (ranks_ahead(a, t, nt, &ahead, &nahead) < 0)
		goto out;
	for (size_t i = 0, k = 0; i < a->nknown; i++) {
		while (k < nt && t[k].rank < a->known[i])
			k++;
		if (k < nt && t[k].rank == a->known[i])
			continue;
		if (nahead && bsearch(&a->known[i], ahead, nahead, sizeof(*ahead), cmpint))
			continue;
		if (pm_rankset_push(&a->suspects, &a->nsuspects, &as, a->known[i]) < 0)
			goto out;
	}
	/* a rank whose last enqueued collective is behind its peers' never reached it */
	for (size_t k = 0; k < nt; k++)
		if (t[k].behind && pm_rankset_push(&a->suspects, &a->nsuspects, &as, t[k].rank) < 0)
			goto out;
	pm_rankset_done(a->suspects, &a->nsuspects);
	/* the ranks the group is known to hold: the known ones, and those that reported a
	 * timeout.  A rank's own timeout line names it ("[Rank 2] Watchdog caught ..."), and
	 * where no launcher tag, rank map or record numbers the ranks (PyTorch before 2.2
	 * under srun without --label) those lines are all that do: a rank behind its peers
	 * there is as much a suspect as behind an srun label's, not dropped as if every rank
	 * were one (comm-watchdog-untagged-rank-behind) */
	for (size_t k = 0; k < nt; k++)
		if (!pm_rankset_has(a->known, a->nknown, t[k].rank))
			nall++;
	if (a->nsuspects && a->nsuspects < nall) {
		char list[256] = "";
		size_t m = 0;
		for (size_t i = 0; i < a->nsuspects && m < sizeof(list) - 12; i++)
			m += (size_t)snprintf(list + m, sizeof(list) - m, "%s%d", i ? "," : "",
					      a->suspects[i]);
		pm_att_why(a,
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
	free(ahead);
	free(t);
	return rc;
}

/* How many silent suspects this candidate explains (ranks it names, or ranks on its node). */
size_t pm_att_silent_support(const struct att *a, const struct cand *c)
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

/* Silence with nothing else: the silent ranks are the lead. */
void pm_att_phase_silence_lead(struct att *a)
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
				pm_att_cand_addrank(h, a->suspects[k]);
				joined = true;
			}
		}
		if (joined)
			pm_att_why(a, "The silent rank(s) ran on %s, where the hardware event is.",
				   h->node);
	}
	/* an error explains the silence when it names a silent rank: no hang of its own */
	for (size_t i = 0; i < a->nc; i++)
		if (!a->c[i].dead && (!a->c[i].fallback || pm_att_silent_support(a, &a->c[i])))
			return;
	for (size_t k = 0; k < a->nsuspects; k++) {
		const char *n = pm_att_rank_node(a, a->suspects[k]);
		if (!node)
			node = n;
		else if (!n || strcmp(node, n))
			one = false;
	}
	c = pm_att_kind_get(a, PM_K_HANG, one && node ? node : NULL, LEAD_SILENCE);
	if (!c)
		return;
	/* a job whose accounting record names one node ran every rank there, the silent ones
	 * too, whether or not a line placed them: that node, as a guess (named, never excluded;
	 * comm-silent-rank-one-node-record-placed, two nodes: -two-nodes-near-miss).  The
	 * placement of causes made without a node ran before this lead was made */
	if (!c->node[0] && a->ev->job.nnodes == 1 && a->ev->job.nodes[0]) {
		snprintf(c->node, sizeof(c->node), "%s", a->ev->job.nodes[0]);
		c->guess = true;
	}
	c->strength = PM_WEAK;
	for (size_t k = 0; k < a->nsuspects; k++)
		pm_att_cand_addrank(c, a->suspects[k]);
	c->sumobs = 0;
	snprintf(c->summary, sizeof(c->summary),
		 "rank %d%s stopped without an error while its "
		 "peers timed out waiting for it",
		 a->suspects[0], a->nsuspects > 1 ? " and others" : "");
}

/* ---- the suspects of a timeout nobody can attribute ---- */

/*
 * A stall's straggler: the ranks whose own progress stopped while their peers' went on.  Of
 * the ranks that logged progress under their own rank (a launcher's label, a rank tag, a
 * file of their own), those whose last progress came before the latest by more than the
 * skew tolerance, where they are fewer than the rest and at least three peers went on
 * (every peer logged its last within the tolerance of the latest), all on one node or one
 * rank alone, each having logged progress more than once and stopped after its peers had
 * begun (they ran side by side).  In a synchronous job the others reach the next collective and wait there for
 * them: the rank that stopped first is where the job stopped, as a hypothesis (it may have
 * waited on something no log shows).  Their ranks into OUT (at most MAX), their node, when
 * known, into *NODE; the count, 0 for none.
 *
 * What else makes one rank's last line early is refused: a clock that runs behind shifts the
 * rank's first progress as much as its last, so its first must lie within the tolerance of
 * its peers' firsts; a rank that logs less often than its peers (every 50 steps where they
 * log every step) stops writing up to one of its own intervals before them, so its interval
 * between lines must be its peers' within half again.  A rank whose last line a buffer kept
 * from the log at the kill looks the same as one that stalled, one interval behind, and is
 * not refused: the kill came long after the last progress, so only a writer of whole blocks
 * loses it, and that loses a different tail on each rank, whose ends then scatter
 * (engine/ATTRIBUTION.md phase 10).
 */
size_t pm_att_stragglers(const struct att *a, int *out, size_t max, const char **node)
{
	const struct pm_evidence *ev = a->ev;
	/* a node whose clock is seen off (its bundle's start against the record's end)
	 * widens the tolerance, as every comparison of two nodes' times does (phase 8) */
	double last = 0, first = 0, tol = a->rs->skew_s + a->maxskew;
	size_t np = 0, n = 0;

	*node = NULL;
	for (size_t i = 0; i < ev->nranks; i++)
		if (ev->ranks[i].rank >= 0 && ev->ranks[i].last_progress > 0) {
			np++;
			if (ev->ranks[i].last_progress > last)
				last = ev->ranks[i].last_progress;
		}
	/* the peers that went on: when the first and the last of them began, and the shortest
	 * and the longest of their intervals between progress lines */
	double late = 0, imin = 0, imax = 0;
	for (size_t i = 0; i < ev->nranks; i++) {
		const struct pm_rankinfo *ri = &ev->ranks[i];
		if (ri->rank < 0 || !ri->last_progress || ri->last_progress < last - tol)
			continue;
		if (!first || ri->first_progress < first)
			first = ri->first_progress;
		if (ri->first_progress > late)
			late = ri->first_progress;
		if (ri->nprogress >= 2 && ri->last_progress > ri->first_progress) {
			double iv = (ri->last_progress - ri->first_progress) / (ri->nprogress - 1);
			if (!imin || iv < imin)
				imin = iv;
			if (iv > imax)
				imax = iv;
		}
	}
	for (size_t i = 0; i < ev->nranks; i++) {
		const struct pm_rankinfo *ri = &ev->ranks[i];
		const char *rn;

		if (ri->rank < 0 || !ri->last_progress || ri->last_progress >= last - tol)
			continue;
		if (n == max || ri->first_progress >= ri->last_progress ||
		    ri->last_progress <= first)
			return 0;
		/* a clock behind, or a rank that logs less often than its peers */
		double iv = ri->nprogress >= 2 ?
				    (ri->last_progress - ri->first_progress) / (ri->nprogress - 1) :
				    0;
		if (ri->first_progress < first - tol || ri->first_progress > late + tol || !imax ||
		    !iv || iv > 1.5 * imax || 1.5 * iv < imin)
			return 0;
		rn = pm_att_rank_node(a, ri->rank);
		if (n && (!rn || !*node || strcmp(rn, *node)))
			return 0;
		*node = rn;
		out[n++] = ri->rank;
	}
	if (!n || np < n + 3 || 2 * n >= np)
		n = 0;
	if (!n)
		*node = NULL;
	return n;
}

/* The latest last progress of the ranks R[0..N). */
double pm_att_straggled(const struct att *a, const int *r, size_t n)
{
	double t = 0;

	for (size_t i = 0; i < a->ev->nranks; i++)
		for (size_t k = 0; k < n; k++)
			if (a->ev->ranks[i].rank == r[k] && a->ev->ranks[i].last_progress > t)
				t = a->ev->ranks[i].last_progress;
	return t;
}

void pm_att_straggler_name(char *out, size_t len, const int *r, size_t n, const char *node)
{
	snprintf(out, len, "%d%s%s%s", n ? r[0] : -1, n > 1 ? " and others" : "",
		 node ? " on " : "", node ? node : "");
}

/* The ranks with the fewest completed collectives are the suspects of a timeout nobody
 * can attribute (phase 9): listed as its origin, still ambiguous.  Counts are compared
 * within one process group only (as in phase 5), lines naming none being a group of
 * their own. */
void pm_att_fewest_completed(struct att *a, struct cand *c)
{
	const struct pm_evidence *ev = a->ev;
	struct rseq *t = NULL;
	long long lo = -1, hi = -1;
	size_t nt = 0, ngroups = 0;

	for (size_t i = 0; i < ev->nobs; i++)
		nt += ev->obs[i].seqdone >= 0 && ev->obs[i].rank >= 0;
	if (!nt || !(t = malloc(nt * sizeof(*t))))
		return;
	nt = 0;
	for (size_t i = 0; i < ev->nobs; i++) {
		const struct pm_obs *o = &ev->obs[i];
		if (o->seqdone >= 0 && o->rank >= 0)
			t[nt++] = (struct rseq){o->rank, o->pg, o->seqdone, false, true};
	}
	if (behind(t, &nt, true) < 0) {
		free(t);
		return;
	}
	for (size_t i = 0, j; i < nt; i = j) {
		bool named = false;
		long long ghi = t[i].seq;
		for (j = i; j < nt && t[j].pg == t[i].pg; j++)
			if (t[j].seq > ghi)
				ghi = t[j].seq;
		for (size_t k = i; k < j; k++)
			if (t[k].behind) {
				pm_att_cand_addrank(c, t[k].rank);
				if (!named && !ngroups++) {
					lo = t[k].seq;
					hi = ghi;
				}
				named = true;
			}
	}
	free(t);
	if (!ngroups)
		return;
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
	if (ngroups > 1)
		pm_att_why(a,
			   "Rank(s) with the fewest completed collectives of their process group "
			   "(%zu groups; %lld against %lld in the first) are the suspects.",
			   ngroups, lo, hi);
	else
		pm_att_why(a,
			   "Rank(s) with the fewest completed collectives (%lld, against %lld "
			   "elsewhere) are the suspects.",
			   lo, hi);
}

/* Host names X and Y in the order of their first labels, in any case: equal where they are
 * one host ("HX-N08" and "hx-n08.cluster" are hx-n08). */
static int host_cmp(const char *x, const char *y)
{
	size_t lx = strcspn(x, "."), ly = strcspn(y, ".");
	int c = strncasecmp(x, y, lx < ly ? lx : ly);

	return c ? c : lx < ly ? -1 : lx > ly;
}

struct rkhost {
	const char *node;
	int rank;
};

static int cmprkhost(const void *x, const void *y)
{
	const struct rkhost *p = x, *q = y;
	int c = host_cmp(p->node, q->node);

	return c ? c : (p->rank > q->rank) - (p->rank < q->rank);
}

static int cmprkrank(const void *x, const void *y)
{
	const struct rkhost *p = x, *q = y;

	return (p->rank > q->rank) - (p->rank < q->rank);
}

int pm_att_rank_hosts(struct att *a)
{
	const struct pm_evidence *ev = a->ev;
	struct rkhost *v;
	size_t n = 0;

	/* the record's node list decides where it is given (pm_att_other_node); a rank seen
	 * beyond the communicator's size means a larger job than its set-up lines show */
	if (ev->job.nnodes || a->commw <= 0 || (a->nknown && a->known[a->nknown - 1] >= a->commw))
		return 0;
	if (!(v = malloc((size_t)a->commw * sizeof(*v))))
		return -1;
	for (int r = 0; r < a->commw; r++) {
		const char *h = pm_att_rank_node(a, r);
		if (!h || strchr(h, '[')) {
			free(v);
			return 0;
		}
		v[n++] = (struct rkhost){h, r};
	}
	/* each host once, as its lowest rank spells it, in the order of those ranks */
	pm_sort(v, n, sizeof(*v), cmprkhost);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!k || host_cmp(v[k - 1].node, v[i].node))
			v[k++] = v[i];
	pm_sort(v, k, sizeof(*v), cmprkrank);
	a->rkh = malloc(k * sizeof(*a->rkh));
	a->rkhs = malloc(k * sizeof(*a->rkhs));
	if (!a->rkh || !a->rkhs) {
		free(v);
		return -1;
	}
	for (size_t i = 0; i < k; i++)
		a->rkh[i] = a->rkhs[i] = v[i].node;
	a->nrkh = k;
	pm_sort(a->rkhs, k, sizeof(*a->rkhs), cmphostp);
	free(v);
	return 0;
}

bool pm_att_rankless_host(const struct att *a, const char *node)
{
	if (!a->rkh || !node || !node[0] || strchr(node, '['))
		return false;
	return !bsearch(&node, a->rkhs, a->nrkh, sizeof(*a->rkhs), cmphostp);
}
