/*
 * att_votes.c - the attribution's peer votes (R-NCCL-1): the node that many ranks' network
 * errors name, and identical exceptions on every rank made one job-wide candidate.
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

/* The job node a transport error's PEER names, or NULL: its address or name as above, else
 * the known node whose name is the peer's first label ("sk3.cluster.local<47912>" is sk3;
 * not a node whose name only begins the peer's, gpu1 for gpu12.cluster), as the record
 * spells it.  The vote and the candidate it makes both read the peer here: a candidate
 * made by a vote that its own pass then found no line for had no evidence at all. */
static const char *peer_job_node(const struct att *a, const char *peer)
{
	const char *pn = peer_node(a, peer);

	for (size_t k = 0; !pn && k < a->ev->nnodes; k++) {
		size_t l = strlen(a->ev->nodes[k]);
		if (!strncmp(peer, a->ev->nodes[k], l) && strchr(".<", peer[l]))
			pn = a->ev->nodes[k];
	}
	return pn ? pm_att_job_node(a, pn) : NULL;
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
	c->sumobs = 0;
	snprintf(c->summary, sizeof(c->summary), "%zu nodes report %s%s as the failing peer", n,
		 vt->node, vt->status12 ? " (IB transport retries exhausted)" : "");
	for (size_t i = 0; i < ev->nobs; i++) {
		const struct pm_obs *o = &ev->obs[i];
		const char *pn = o->peer ? peer_job_node(a, o->peer) : NULL;
		if (pn && !strcmp(pn, vt->node) && c->nev < 16)
			pm_att_cand_add(a, c, i);
	}
	c->strength = PM_WEAK;
	pm_att_cand_ranks_clear(c);
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
	c->sumobs = 0;
	snprintf(c->summary, sizeof(c->summary),
		 "%s alone reports IB transport failures towards "
		 "%zu different nodes: its own link is the suspect",
		 rep, peers);
	for (size_t i = 0; i < a->ev->nobs; i++) {
		const struct pm_obs *o = &a->ev->obs[i];
		if (o->peer && o->node && !strcmp(o->node, rep) &&
		    pm_is_kind(R(a, i)->cls, NULL, PM_K_PEER_LINK) && c->nev < 16)
			pm_att_cand_add(a, c, i);
	}
	c->strength = PM_WEAK;
	pm_att_cand_ranks_clear(c);
	pm_att_why(
		a,
		"Only %s reports IB transport failures, naming %zu different peers: the reporter's "
		"own link is the suspect.",
		rep, peers);
	return 0;
}

int pm_att_phase_votes(struct att *a)
{
	struct pm_evidence *ev = a->ev;
	struct vote v[32];
	size_t nv = 0, best = 0, second = 0, bi = 0;

	memset(v, 0, sizeof(v));
	for (size_t i = 0; i < ev->nobs; i++) {
		const struct pm_obs *o = &ev->obs[i];
		const struct pm_rule *r = R(a, i);
		const char *pn, *rn;
		size_t k;

		if (!o->peer || (r->role != PM_ROLE_CASCADE && r->role != PM_ROLE_TEARDOWN))
			continue;
		if (!o->node)
			continue; /* a reporter we cannot place casts no vote */
		pn = peer_job_node(a, o->peer);
		/* a reporter or a peer outside the job's nodes (a host only the job's output
		 * names) takes no part: two lines prefixed with hosts outside the allocation made
		 * "3 distinct nodes" of a job of 2 */
		rn = pm_att_job_node(a, o->node);
		if (!pn || !rn || !strcmp(pn, rn))
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
		for (m = 0; m < v[k].nrep && strcmp(v[k].reporters[m], rn); m++)
			;
		if (m == v[k].nrep && m < 16)
			snprintf(v[k].reporters[v[k].nrep++], 128, "%s", rn);
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
		pm_att_why(a, "Peer votes split: %zu reporters each name %s and %s.", best,
			   a->vote_nodes[0], a->vote_nodes[1]);
		for (size_t k = 0; k < nv; k++)
			if (v[k].nrep == best)
				vote_cand(a, &v[k], best);
		return 0;
	}
	snprintf(a->vote_nodes[0], 128, "%s", v[bi].node);
	a->nvote = 1;
	pm_att_why(a, "%zu distinct nodes name %s as the peer that failed them (peer votes).", best,
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

/* Whether srun's own lines report a task of the job that C's lines do not ("srun: error:
 * gpu-c14: tasks 0-1: Terminated" beside ranks 2-3's error): that task did not raise it, so
 * not every rank did (review36 L2).  Only where srun's tasks are the ranks (no launcher
 * numbers them, a->ntnode). */
static bool srun_other_task(const struct att *a, const struct cand *c)
{
	if (a->ntnode)
		return false;
	for (size_t i = 0; a->placed && i < a->nplaced; i++) {
		bool in = false;

		for (size_t k = 0; k < c->nranks && !in; k++)
			in = c->ranks[k] == a->placed[i].rank;
		if (!in)
			return true;
	}
	return false;
}

void pm_att_phase_all_ranks(struct att *a)
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
				pm_att_cand_add(a, c, d->ev[m]);
			d->dead = true;
			c->node[0] = '\0';
		}
		if (a->nknown > 1 && c->nranks >= a->nknown && !srun_other_task(a, c)) {
			c->all_ranks = true;
			c->node[0] = '\0';
			/* refined by the nodes' own logs (refine): the nodes' state, not a bug */
			if (c->refobs)
				pm_att_why(
					a,
					"Every rank raised the same error, and the nodes' own "
					"logs say why: %s/%s, the nodes' state, not the job's code.",
					c->cls, c->sub);
			else
				pm_att_why(a,
					   "Every rank raised the same error: a deterministic bug "
					   "in the job, all ranks.");
		}
	}
}
