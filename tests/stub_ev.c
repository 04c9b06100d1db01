/*
 * stub_ev.c - TEMPORARY STAND-IN for engine/evidence.c, only so that tests/check_input.c
 * can be built and run on the input parsers alone (gcc ... tests/check_input.c
 * tests/stub_ev.c engine/<parsers>.c).  It implements the parser helpers of internal.h and
 * pm_evidence_create/destroy with the same contracts.  Never link it into the library;
 * drop it once check_input links against libpostmortem.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int grow(void **arr, size_t *alloc, size_t elem)
{
	size_t na = *alloc ? 2 * *alloc : 16;
	void *p = realloc(*arr, na * elem);

	if (!p)
		return -1;
	memset((char *)p + *alloc * elem, 0, (na - *alloc) * elem);
	*arr = p;
	*alloc = na;
	return 0;
}

#define GROW(arr, n, a) ((n) < (a) ? 0 : grow((void **)&(arr), &(a), sizeof(*(arr))))

int pm_strset(char **dst, const char *src, size_t len)
{
	char *s = malloc(len + 1);

	if (!s)
		return -1;
	memcpy(s, src, len);
	s[len] = '\0';
	free(*dst);
	*dst = s;
	return 0;
}

struct pm_evidence *pm_evidence_create(const struct pm_ruleset *rs)
{
	struct pm_evidence *ev = calloc(1, sizeof(*ev));

	if (!ev)
		return NULL;
	ev->rs = rs;
	ev->job.ntasks = -1;
	ev->job.restart = -1;
	ev->job.gpus_per_node = -1;
	ev->job.exit_code = -1;
	ev->job.exit_signal = -1;
	ev->job.user_uid = -1;
	return ev;
}

void pm_evidence_destroy(struct pm_evidence *ev)
{
	size_t i;

	if (!ev)
		return;
	for (i = 0; i < ev->nfiles; i++) {
		free(ev->files[i].name);
		free(ev->files[i].path);
		free(ev->files[i].mem);
		free(ev->files[i].node);
		free(ev->files[i].reason);
	}
	free(ev->files);
	for (i = 0; i < ev->nfacts; i++) {
		free(ev->facts[i].node);
		free(ev->facts[i].name);
		free(ev->facts[i].pci);
	}
	free(ev->facts);
	free(ev->job.id);
	free(ev->job.cluster);
	free(ev->job.state);
	free(ev->job.cancelled_by);
	free(ev->job.failed_node);
	free(ev->job.reason);
	for (i = 0; i < ev->job.nnodes; i++)
		free(ev->job.nodes[i]);
	free(ev->job.nodes);
	for (i = 0; i < ev->ntasks; i++) {
		free(ev->tasks[i].node);
		free(ev->tasks[i].gpus);
	}
	free(ev->tasks);
	for (i = 0; i < ev->nnodes; i++)
		free(ev->nodes[i]);
	free(ev->nodes);
	for (i = 0; i < ev->nipmap; i++) {
		free(ev->ipmap[i].ip);
		free(ev->ipmap[i].node);
	}
	free(ev->ipmap);
	free(ev);
}

struct pm_fact *pm_ev_add_fact(struct pm_evidence *ev, size_t file, const char *node, int gpu,
			       const char *name, double value, const char *pci)
{
	struct pm_fact *f;

	if (GROW(ev->facts, ev->nfacts, ev->afacts) < 0)
		return NULL;
	f = &ev->facts[ev->nfacts];
	memset(f, 0, sizeof(*f));
	f->gpu = gpu;
	f->value = value;
	f->file = file;
	if ((node && !(f->node = strdup(node))) || !(f->name = strdup(name)) ||
	    (pci && !(f->pci = strdup(pci)))) {
		free(f->node);
		free(f->name);
		free(f->pci);
		return NULL;
	}
	ev->nfacts++;
	return f;
}

struct pm_jobinfo *pm_ev_job(struct pm_evidence *ev)
{
	return &ev->job;
}

struct pm_task *pm_ev_task(struct pm_evidence *ev, int rank)
{
	struct pm_task *t;
	size_t i;

	for (i = 0; i < ev->ntasks; i++)
		if (ev->tasks[i].rank == rank)
			return &ev->tasks[i];
	if (GROW(ev->tasks, ev->ntasks, ev->atasks) < 0)
		return NULL;
	t = &ev->tasks[ev->ntasks++];
	memset(t, 0, sizeof(*t));
	t->rank = rank;
	t->local_rank = -1;
	t->exit_code = -1;
	return t;
}

int pm_ev_note_node(struct pm_evidence *ev, const char *name, size_t len)
{
	size_t lo = 0, hi = ev->nnodes, mid;
	char *s = NULL;
	int c;

	if (!len || len > 255)
		return 0;
	while (lo < hi) {
		mid = (lo + hi) / 2;
		c = strncmp(ev->nodes[mid], name, len);
		if (c == 0 && ev->nodes[mid][len] != '\0')
			c = 1;
		if (c == 0)
			return 0;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (GROW(ev->nodes, ev->nnodes, ev->anodes) < 0 || pm_strset(&s, name, len) < 0)
		return -1;
	memmove(&ev->nodes[lo + 1], &ev->nodes[lo], (ev->nnodes - lo) * sizeof(char *));
	ev->nodes[lo] = s;
	ev->nnodes++;
	return 0;
}

int pm_ev_note_ip(struct pm_evidence *ev, const char *ip, size_t iplen, const char *node,
		  size_t nodelen)
{
	size_t i;

	for (i = 0; i < ev->nipmap; i++)
		if (strlen(ev->ipmap[i].ip) == iplen && !memcmp(ev->ipmap[i].ip, ip, iplen))
			return 0;
	if (GROW(ev->ipmap, ev->nipmap, ev->aipmap) < 0)
		return -1;
	ev->ipmap[ev->nipmap].ip = NULL;
	ev->ipmap[ev->nipmap].node = NULL;
	if (pm_strset(&ev->ipmap[ev->nipmap].ip, ip, iplen) < 0 ||
	    pm_strset(&ev->ipmap[ev->nipmap].node, node, nodelen) < 0)
		return -1;
	ev->nipmap++;
	return 0;
}
