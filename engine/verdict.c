/*
 * verdict.c - pm_diagnose, and the verdict's three renderings: JSON (sorted keys), the
 * text a tired operator reads in 20 seconds, and the one-line job comment.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attribute.h"
#include "taxonomy.h"

int pm_evidence_scan(struct pm_evidence *ev, char *err, size_t errlen)
{
	if (ev->scanned)
		return 0;
	if (pm_scan_all(ev) < 0) {
		if (!errno)
			errno = ENOMEM;
		snprintf(err, errlen, "scanning the evidence: %s", strerror(errno));
		return -1;
	}
	ev->scanned = true;
	return 0;
}

json_t *pm_diagnose(struct pm_evidence *ev, char *err, size_t errlen)
{
	size_t usable = 0;

	if (pm_evidence_scan(ev, err, errlen) < 0)
		return NULL;
	for (size_t i = 0; i < ev->nfiles; i++)
		if (ev->files[i].status == PM_ST_OK || ev->files[i].status == PM_ST_TRUNCATED)
			usable++;
	if (!usable && !ev->ncov) {
		snprintf(err, errlen, "no usable input: %s",
			 ev->nfiles ? "every file is empty, binary or unreadable" : "no files");
		errno = ENODATA;
		return NULL;
	}
	return pm_attribute(ev);
}

/* ---- building the verdict (the attribution's state: attribute.h) ---- */

/* ---- JSON helpers ---- */

static json_t *jstr_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *time_json(bool has, double t)
{
	char buf[40];

	if (!has)
		return json_null();
	pm_time_format(t, buf, sizeof(buf));
	return json_string(buf);
}

/* A sorted, malloc'd copy of the N ranks R; NULL when out of memory. */
static int *sorted_ranks(const int *r, size_t n)
{
	int *s = malloc((n ? n : 1) * sizeof(int));

	if (s) {
		if (n)
			memcpy(s, r, n * sizeof(int));
		pm_sort(s, n, sizeof(int), pm_cmp_int);
	}
	return s;
}

static json_t *ranks_json(const int *r, size_t n)
{
	json_t *a = json_array();
	int *s = sorted_ranks(r, n);

	if (s) {
		for (size_t i = 0; i < n; i++)
			json_array_append_new(a, json_integer(s[i]));
		free(s);
	}
	return a;
}

/* Ranks as ranges, "0-28,30-63" ("" for none): a set of thousands of ranks is a few bytes. */
static json_t *rank_ranges_json(const int *r, size_t n)
{
	int *s = sorted_ranks(r, n);
	char *out = malloc(n * 24 + 1);
	size_t len = 0;
	json_t *j = NULL;

	if (s && out) {
		out[0] = '\0';
		for (size_t i = 0; i < n;) {
			size_t k = i;
			while (k + 1 < n && (s[k + 1] == s[k] || s[k + 1] == s[k] + 1))
				k++;
			len += (size_t)sprintf(out + len, s[k] != s[i] ? "%s%d-%d" : "%s%d",
					       len ? "," : "", s[i], s[k]);
			i = k + 1;
		}
		j = json_string(out);
	}
	free(s);
	free(out);
	return j;
}

/* The strings of ARR (a JSON array, stolen) as one Slurm host list. */
static json_t *hostlist_json(json_t *arr)
{
	size_t n = json_array_size(arr), m = 0;
	const char **v = malloc((n ? n : 1) * sizeof(char *));
	char *s = NULL;
	json_t *j = NULL;

	for (size_t i = 0; v && i < n; i++)
		if (json_is_string(json_array_get(arr, i)))
			v[m++] = json_string_value(json_array_get(arr, i));
	if (v && (s = pm_hostlist_compress(v, m)))
		j = json_string(s);
	free(s);
	free(v);
	json_decref(arr);
	return j;
}

static json_t *sorted_strings(json_t *arr)
{
	size_t n = json_array_size(arr);
	const char **v = malloc((n ? n : 1) * sizeof(char *));
	json_t *out = json_array();

	for (size_t i = 0; v && i < n; i++)
		v[i] = json_string_value(json_array_get(arr, i));
	if (v)
		pm_sort(v, n, sizeof(char *), pm_cmp_str);
	for (size_t i = 0; v && i < n; i++)
		if (!i || strcmp(v[i], v[i - 1]))
			json_array_append_new(out, json_string(v[i]));
	free(v);
	json_decref(arr);
	return out;
}

/* ---- building the verdict ---- */

/* At most this many observations of one rule are listed; the verdict counts the rest
 * ("evidence_left_out"): 16,384 watchdog timeouts say one thing 16,384 times. */
#define EVIDENCE_PER_RULE 16

struct vb {
	struct att *a;
	json_t *evidence;
	size_t nid;
	size_t *shown;		     /* per rule of the set: observations given an id */
	struct hs_scratch *rscratch; /* pm_obs_line's */
};

static bool room(const struct vb *b, size_t oi)
{
	return !b->shown || b->a->eid[oi] || b->shown[b->a->ev->obs[oi].rule] < EVIDENCE_PER_RULE;
}

static const char *eid(struct vb *b, size_t oi)
{
	static char buf[16];

	if (!b->a->eid[oi]) {
		b->a->eid[oi] = ++b->nid;
		if (b->shown)
			b->shown[b->a->ev->obs[oi].rule]++;
	}
	snprintf(buf, sizeof(buf), "E%zu", b->a->eid[oi]);
	return buf;
}

static bool is_error_role(enum pm_role r);

/* Whether C, a candidate, is one the verdict names as an origin: the lead, the lead's class
 * on other nodes at its time, any candidate of an ambiguous verdict. */
static bool named_origin(const struct att *a, const struct cand *c)
{
	return c == a->lead || c->co || (a->status == VS_AMBIGUOUS && c < a->c + a->live);
}

/*
 * Whether observation OI, a symptom, was set aside as none of this job's: another node's line
 * (pm_att_other_node), another job's GPU on a shared node (pm_att_other_gpu), a trusted line
 * stamped outside the job's window, or before it (context, phase 4) where no candidate the
 * verdict names as an origin cites it.  Its role in the evidence is "context", it is no
 * first error, and its node no bystander.
 */
static bool set_aside(const struct att *a, size_t oi)
{
	const struct pm_obs *o = &a->ev->obs[oi];
	enum win w;

	if (!is_error_role(R(a, oi)->role))
		return false;
	if (pm_att_other_node(a, o) || (R(a, oi)->hardware && pm_att_other_gpu(a, o)) ||
	    pm_att_boot_link(a, oi))
		return true;
	/* slurmctld's kill on a failed node that Slurm's record gainsays (att_cands.c) */
	if (pm_att_ctld_node_fail(a, o) < 0)
		return true;
	/* a node's set-up failure that is another job's (att_cands.c, setup_not_this_jobs) */
	if (a->not_job && a->not_job[oi])
		return true;
	/* a pending job's line beside a run (att_cands.c, phase_outcome) */
	if (pm_att_pending_aside(a, oi))
		return true;
	if (pm_att_before_output(a, o)) {
		for (size_t i = 0; i < a->live; i++)
			if (!a->c[i].dead && pm_att_cand_holds(&a->c[i], oi))
				return false;
		return true;
	}
	if (!o->trusted || (w = pm_att_obs_window(a, o, true)) == WIN_IN)
		return false;
	if (w == WIN_OUT)
		return true;
	for (size_t i = 0; i < a->live; i++) {
		const struct cand *c = &a->c[i];
		if (!c->dead && named_origin(a, c) && pm_att_cand_holds(c, oi))
			return false;
	}
	return true;
}

static json_t *obs_json(struct vb *b, size_t oi)
{
	const struct att *a = b->a;
	const struct pm_obs *o = &a->ev->obs[oi];
	const struct pm_rule *r = R(a, oi);
	json_t *e = json_object();
	char sum[PM_OBS_SUMMARY_MAX];

	json_object_set_new(e, "id", json_string(eid(b, oi)));
	json_object_set_new(e, "rule", json_string(r->id));
	json_object_set_new(e, "role",
			    json_string(
				    pm_role_name(set_aside(a, oi) ? PM_ROLE_CONTEXT : r->role)));
	json_object_set_new(e, "class", json_string(r->cls));
	json_object_set_new(e, "subclass", json_string(r->subcls));
	json_object_set_new(e, "summary", json_string(pm_obs_summary(a->ev, o, sum)));
	json_object_set_new(e, "source", json_string(pm_source_name(o->source)));
	json_object_set_new(e, "trusted", json_boolean(o->trusted));
	json_object_set_new(e, "node", jstr_or_null(o->node));
	json_object_set_new(e, "rank", o->rank >= 0 ? json_integer(o->rank) : json_null());
	json_object_set_new(e, "gpu", o->gpu >= 0 ? json_integer(o->gpu) : json_null());
	json_object_set_new(e, "event_time", time_json(o->has_time, o->event_time));
	json_object_set_new(e, "observed_time", time_json(o->observed_time > 0, o->observed_time));
	json_object_set_new(e, "file", json_string(a->ev->files[o->file].name));
	json_object_set_new(e, "offset", json_integer((json_int_t)o->offset));
	char *line = pm_obs_line(o, &b->rscratch);
	json_object_set_new(e, "line", json_string(line ? line : "")); /* "": ENOMEM */
	free(line);
	json_object_set_new(e, "repeats", json_integer(o->repeats));
	return e;
}

static json_t *origin_json(const struct att *a, const struct cand *c)
{
	json_t *o = json_object(), *nodes = json_array(), *gpus = json_array();

	if (c->all_ranks) {
		for (size_t i = 0; i < c->nev; i++) {
			const char *n = a->ev->obs[c->ev[i]].node;
			if (n)
				json_array_append_new(nodes, json_string(n));
		}
		for (size_t i = 0; i < c->nranks; i++) {
			const char *n = pm_att_rank_node(a, c->ranks[i]);
			if (n)
				json_array_append_new(nodes, json_string(n));
		}
	} else if (c->node[0]) {
		json_array_append_new(nodes, json_string(c->node));
		for (size_t i = 0; i < c->nalso; i++)
			json_array_append_new(nodes, json_string(c->also[i]));
	} else {
		for (size_t i = 0; i < c->nranks; i++) {
			const char *n = pm_att_rank_node(a, c->ranks[i]);
			if (n)
				json_array_append_new(nodes, json_string(n));
		}
	}
	/* the lead's class on other nodes at its time (co_origins), a shared filesystem's
	 * other clients (fs_clients): origins too */
	for (size_t i = 0; c == a->lead && !c->all_ranks && i < a->nc; i++)
		if (a->c[i].co)
			json_array_append_new(nodes, json_string(a->c[i].node));
	for (size_t i = 0; i < c->ngpus; i++)
		json_array_append_new(gpus, json_string(c->gpus[i]));
	json_object_set_new(o, "nodes", sorted_strings(nodes));
	json_object_set_new(o, "ranks", ranks_json(c->ranks, c->nranks));
	json_object_set_new(o, "gpus", sorted_strings(gpus));
	return o;
}

static json_t *cand_json(struct vb *b, const struct cand *c, const struct cand *lead)
{
	json_t *j = json_object(), *sup = json_array(), *con = json_array();

	json_object_set_new(j, "class", json_string(c->cls));
	json_object_set_new(j, "subclass", json_string(c->sub));
	json_object_set_new(j, "summary", json_string(c->summary));
	json_object_set_new(j, "origin", origin_json(b->a, c));
	json_object_set_new(j, "lead",
			    json_string(c->lead == LEAD_RULE	? "symptom" :
					c->lead == LEAD_SILENCE ? "silence" :
					c->lead == LEAD_VOTES	? "peer_votes" :
								  "timeouts"));
	for (size_t i = 0; i < c->nev; i++)
		if (room(b, c->ev[i]))
			json_array_append_new(sup, json_string(eid(b, c->ev[i])));
	/* the leader's evidence contradicts a different explanation elsewhere */
	if (c != lead && lead && lead->hardware && strcmp(lead->node, c->node))
		for (size_t i = 0; i < lead->nev && i < 4; i++)
			json_array_append_new(con, json_string(eid(b, lead->ev[i])));
	json_object_set_new(j, "supporting", sup);
	json_object_set_new(j, "contradicting", con);
	return j;
}

void pm_subst(char *out, size_t len, const char *tmpl, const char *node)
{
	size_t n = 0;

	if (!tmpl) {
		out[0] = '\0';
		return;
	}
	while (*tmpl && n + 1 < len) {
		if (!strncmp(tmpl, "{node}", 6)) {
			n += (size_t)snprintf(out + n, len - n, "%s", node);
			if (n >= len)
				n = len - 1;
			tmpl += 6;
		} else {
			out[n++] = *tmpl++;
		}
	}
	out[n] = '\0';
}

/* Why a node pm_att_node_guessed names is not excluded: beside the plugin's records or a
 * collector's bundle, only a line's "host: " prefix, text the job printed, placed it
 * (pm_att_phase_place); in a hand-gathered folder, the folder's words.  Where every line
 * the lead has on the node was placed by a bare rank tag that may be a local rank
 * (att_ranks.c, rank_guess), the sentence says so: there is no host prefix to speak of
 * (review36 L3). */
static const char *guessed_why(const struct att *a, const struct cand *c)
{
	bool lib = false, tag = false, other = false;

	for (size_t k = 0; k < c->nev; k++) {
		const struct pm_obs *o = &a->ev->obs[c->ev[k]];

		/* a library's prefix ("[host:pid]", "host:pid:tid") is the job's words too */
		if (a->libpfx && a->libpfx[c->ev[k]])
			lib = true;
		else if (!o->node || strcmp(o->node, c->node))
			continue;
		else if (o->rank_guess)
			tag = true;
		else
			other = true;
	}
	if (!c->guess && tag && !lib && !other)
		return "only a rank tag the job printed places it there, and the tag may be a "
		       "rank on its node, not in the job";
	return a->ev->ntasks || a->ev->ncollect || lib ?
		       "only a host prefix the job printed names it" :
		       "only the folder's words name it";
}

/*
 * Whether C is a launch failure of a node's setup that the operators own (a busy or held
 * GPU, a driver, a container runtime's mount: the decision's owner) and only the job's own
 * output reports it (pm_att_output_only).  srun's label, or the rank map, says where such a
 * line was printed, not that the node is at fault: a job can print it on any node, and the
 * repair it names is the operators' (review36 H4: a printed "no loop devices available"
 * under srun's label advised excluding a healthy node).  Its exclusion is only offered, as
 * a hardware class's from the job's output alone is.  A node's setup failing at the job's
 * end counts too (external/node_setup with no launch: a paste of Slurm's drain reason "batch
 * job complete failure" in the job's folder, which anyone can write; TRUST.md,
 * slurm-node-reason-batch-complete-failure).
 */
static bool node_launch_output(const struct att *a, const struct cand *c,
			       const struct pm_decision *dec)
{
	return (c->launch || (!strcmp(c->cls, "external") && !strcmp(c->sub, "node_setup"))) &&
	       !c->hardware && dec && dec->owner && !strcmp(dec->owner, "operators") &&
	       pm_att_output_only(a, c);
}

/* A failure confined to one node of a multi-node job (the others ran the same job). */
static bool node_specific(const struct att *a, const struct cand *c)
{
	size_t nn;

	pm_att_nodes(a, &nn);
	return c && c->node[0] && !c->nalso && nn > 1 && !c->all_ranks;
}

/* Whether NODE is in the LIST of K names. */
static bool in_names(const char **list, size_t k, const char *node)
{
	for (size_t i = 0; i < k; i++)
		if (!strcmp(list[i], node))
			return true;
	return false;
}

/*
 * The number of nodes that ran C's ranks, where a heterogeneous job's record tells them: the
 * nodes of the components whose NodeList holds a node of C's (C's node and further origin
 * nodes, else the nodes of its ranks and lines).  A CPU service in another component ran no
 * rank of the failing step, and "every node" means the step's.  NN (the job's nodes) for any
 * other job, for a partial record, or when no component holds one of C's nodes.
 */
static size_t run_nodes(const struct att *a, const struct cand *c, size_t nn)
{
	const struct pm_jobinfo *j = &a->ev->job;
	const char *mine[64];
	const char **seen = NULL;
	size_t k = 0, ns = 0, as = 0;

	if (j->ncomps < 2 || j->het_partial)
		return nn;
	if (c->node[0])
		mine[k++] = c->node;
	for (size_t i = 0; i < c->nalso && k < 64; i++)
		mine[k++] = c->also[i];
	for (size_t i = 0; !c->node[0] && i < c->nranks && k < 64; i++)
		if ((mine[k] = pm_att_rank_node(a, c->ranks[i])))
			k++;
	for (size_t i = 0; !c->node[0] && i < c->nev && k < 64; i++)
		if ((mine[k] = a->ev->obs[c->ev[i]].node))
			k++;
	for (size_t ci = 0; ci < j->ncomps; ci++) {
		char **names;
		size_t n, hit = 0;

		if (pm_hostlist_expand(j->comps[ci], strlen(j->comps[ci]), &names, &n))
			continue;
		for (size_t i = 0; i < n && !hit; i++)
			hit = in_names(mine, k, names[i]);
		for (size_t i = 0; i < n; i++) {
			const char *jn = hit ? pm_att_job_node(a, names[i]) : NULL;
			if (jn && !in_names(seen, ns, jn) && ns < 4096 &&
			    (ns < as || !pm_grow((void **)&seen, &as, sizeof(*seen))))
				seen[ns++] = jn;
			free(names[i]);
		}
		free(names);
	}
	free(seen);
	return ns ? ns : nn;
}

/* A failure on every node of a multi-node job (every rank raised it, or the nodes its ranks
 * and lines name are as many as the job's, or as its step's components: run_nodes): the
 * job's setup, not its nodes. */
static bool every_node(const struct att *a, const struct cand *c)
{
	size_t nn, k = 0, distinct = 0;
	const char **names;

	pm_att_nodes(a, &nn);
	if (!c || nn < 2)
		return false;
	nn = run_nodes(a, c, nn);
	if (nn < 2)
		return false;
	if (c->all_ranks)
		return true;
	if (c->node[0] || c->nranks + c->nev < nn)
		return c->node[0] && 1 + c->nalso >= nn;
	if (!(names = malloc((c->nranks + c->nev) * sizeof(*names))))
		return false;
	for (size_t i = 0; i < c->nranks; i++)
		if ((names[k] = pm_att_rank_node(a, c->ranks[i])))
			k++;
	for (size_t i = 0; i < c->nev; i++)
		if ((names[k] = a->ev->obs[c->ev[i]].node))
			k++;
	pm_sort(names, k, sizeof(*names), pm_cmp_str);
	for (size_t i = 0; i < k; i++)
		distinct += !i || strcmp(names[i - 1], names[i]);
	free(names);
	return distinct >= nn;
}

/* The containment block's choice for C: node_specific when it is confined to one node of a
 * multi-node job, every_node when it is on all of them, else the block's own. */
static void containment_of(const struct att *a, const struct cand *c, const struct pm_decision *dec,
			   const char **id, const char **action, const char **owner)
{
	if (dec->node_id && node_specific(a, c)) {
		*id = dec->node_id;
		*action = dec->node_action;
		*owner = dec->node_owner;
	} else if (dec->every_id && every_node(a, c)) {
		*id = dec->every_id;
		*action = dec->every_action;
		*owner = dec->every_owner;
	} else {
		*id = dec->cont_id;
		*action = dec->cont_action;
		*owner = dec->cont_owner;
	}
}

/* Distinct source kinds the job's user cannot write among a candidate's evidence: a costly
 * repair needs two of them (or the scheduler's own record), never the job's output.  A
 * node's own record (kernel log, GPU state, metrics) counts only from a file whose kind a
 * collector's manifest gave: a hand-gathered gq07-dmesg.txt and gq07-nvidia-smi-q.txt are
 * two files of one unchecked writer, which may be the job (review32 F01), so they justify
 * the cheap, reversible exclusion, not the drain or RMA (decision_json says what would). */
static int trusted_kinds(const struct att *a, const struct cand *c)
{
	unsigned seen = 0;
	int n = 0;

	if (!c->nev)
		return 2; /* the accounting record itself */
	for (size_t i = 0; i < c->nev; i++) {
		const struct pm_obs *o = &a->ev->obs[c->ev[i]];
		if (pm_att_hand_given(a, o) &&
		    (o->source == PM_SRC_KERNEL_LOG || o->source == PM_SRC_GPU_STATE ||
		     o->source == PM_SRC_NODE_METRICS))
			continue;
		if (o->trusted && !(seen & (1u << o->source))) {
			seen |= 1u << o->source;
			n++;
		}
	}
	return n;
}

/* Whether a live candidate names a host Slurm's record does not list (pm_att_unknown_node). */
/* A live hardware candidate whose node only a fallback lead (evidence that cannot blame a
 * node: the job's own output, an event nothing dates in the job) or a late snapshot names:
 * its exclusion is offered, never advised, ambiguous or not (as an attributed lead's). */
static bool weak_hardware(const struct att *a)
{
	for (size_t i = 0; i < a->nc; i++)
		if (!a->c[i].dead && a->c[i].hardware && a->c[i].node[0] &&
		    (a->c[i].fallback || pm_att_late_only(&a->c[i])))
			return true;
	return false;
}

static bool unknown_nodes(const struct att *a)
{
	for (size_t i = 0; i < a->nc; i++)
		if (!a->c[i].dead && (pm_att_unknown_node(a, a->c[i].node) ||
				      (a->c[i].nalso && pm_att_unknown_node(a, a->c[i].also[0]))))
			return true;
	return false;
}

/* D's overturn and next test, DEC's with NODES put in. */
static void decision_tests(json_t *d, const struct pm_decision *dec, const char *nodes)
{
	char buf[512];

	pm_subst(buf, sizeof(buf), dec->overturn, nodes);
	json_object_set_new(d, "overturn", json_string(buf));
	pm_subst(buf, sizeof(buf), dec->next_test, nodes);
	json_object_set_new(d, "next_test", json_string(buf));
}

/* A retry that advises no exclusion: CONT (ACTION) the user's, D without a repair. */
static json_t *retry_only(json_t *d, json_t *cont, json_t *rep, json_t *action,
			  const struct pm_decision *dec, const char *nodes)
{
	json_object_set_new(cont, "action", action);
	json_object_set_new(cont, "owner", json_string("user"));
	json_object_set_new(cont, "reversible", json_true());
	json_object_set_new(cont, "justified", json_true());
	json_object_set_new(d, "containment", cont);
	json_decref(rep);
	json_object_set_new(d, "repair", json_null());
	decision_tests(d, dec, nodes);
	return d;
}

static json_t *decision_json(const struct att *a, const struct cand *c, const char *status,
			     const char *conf, const char *nodes, bool any_hw, const char *test)
{
	json_t *d = json_object(), *cont = json_object(), *rep = json_object();
	const struct pm_decision *dec;
	const char *cid = NULL, *caction = NULL, *cowner = NULL;
	char buf[512];
	bool attributed = !strcmp(status, "attributed");

	if (!strcmp(status, "none")) {
		json_object_set_new(cont, "id", json_string("none"));
		json_object_set_new(cont, "action", json_string("nothing: the job completed"));
		json_object_set_new(cont, "owner", json_string("nobody"));
		json_object_set_new(cont, "reversible", json_true());
		json_object_set_new(cont, "justified", json_true());
		json_object_set_new(d, "containment", cont);
		json_object_set_new(d, "repair", json_null());
		json_decref(rep);
		json_object_set_new(d, "overturn", json_null());
		json_object_set_new(d, "next_test", json_null());
		return d;
	}
	dec = pm_ruleset_decision(a->rs, c ? c->cls : pm_kind(PM_K_UNKNOWN)->cls,
				  c ? c->sub : NULL);
	if (!attributed) {
		const struct pm_decision *u =
			pm_ruleset_decision(a->rs, pm_kind(PM_K_UNKNOWN)->cls, NULL);
		/* a node the folder's words only guessed, or only a record with a column the
		 * user writes (att_sched.c), is named, never excluded */
		bool excl = any_hw && nodes[0] && !pm_att_node_guessed(a, c) &&
			    !(c && c->user_record) && !unknown_nodes(a);
		bool offer = excl && weak_hardware(a);
		json_object_set_new(cont, "id",
				    json_string(excl && !offer ? "retry-exclude-node" : "retry"));
		/* json_sprintf, not BUF: a long host list must not cut the sentence short */
		json_object_set_new(cont, "action",
				    offer ? json_sprintf("retry the job; excluding %s (--exclude=%s) "
							 "is your reversible choice while nothing "
							 "the user cannot write confirms it",
							 nodes, nodes) :
				    excl ? json_sprintf("retry the job excluding %s (cheap and "
							"reversible while the cause is open)",
							nodes) :
					   json_string(u ? u->cont_action : "retry the job"));
		json_object_set_new(cont, "owner", json_string("user"));
		json_object_set_new(cont, "reversible", json_true());
		json_object_set_new(cont, "justified", json_true());
		json_object_set_new(d, "containment", cont);
		json_object_set_new(rep, "action", json_string("none until the cause is known"));
		json_object_set_new(rep, "owner", json_string("operators"));
		json_object_set_new(rep, "requires",
				    json_string(test ? test :
						       "a rule firing on "
						       "more evidence"));
		json_object_set_new(rep, "justified", json_false());
		json_object_set_new(d, "repair", rep);
		json_object_set_new(d, "overturn",
				    json_string(test ? "the test named in ambiguity "
						       "implicating one candidate" :
						u    ? u->overturn :
						       ""));
		json_object_set_new(d, "next_test",
				    json_string(test ? test :
						u    ? u->next_test :
						       ""));
		return d;
	}
	if (!dec) {
		json_decref(cont);
		json_decref(rep);
		json_decref(d);
		return json_null();
	}
	if (pm_att_unknown_node(a, c->node) &&
	    (c->hardware ||
	     !strcmp(dec->node_id && node_specific(a, c) ? dec->node_id : dec->cont_id,
		     "retry-exclude-node"))) {
		/* a host Slurm's record does not list, that fits several of the job's nodes:
		 * no exclusion names it (Slurm knows no such node), nor a guess among them */
		json_object_set_new(cont, "id", json_string("retry"));
		if (a->ev->job.het_partial)
			return retry_only(
				d, cont, rep,
				json_sprintf("retry the job; %s, where the evidence places the "
					     "cause, is in no component of the job that Slurm's "
					     "record shows (it holds only part of a heterogeneous "
					     "job): check with sacct -j that it was one of the job's "
					     "nodes before excluding it",
					     nodes),
				dec, nodes);
		return retry_only(
			d, cont, rep,
			json_sprintf("retry the job; %s, where the evidence places the "
				     "cause, is no node of Slurm's record of the job (the "
				     "name fits several of its nodes): find which one it is "
				     "before excluding any",
				     nodes),
			dec, nodes);
	}
	if ((c->fallback || pm_att_node_guessed(a, c) || c->user_record || pm_att_late_only(c) ||
	     !nodes[0]) &&
	    c->hardware) {
		/* a hardware lead on evidence that cannot blame a node (the job's own output, an
		 * event from before the job, a node only the folder's words name, a node failure
		 * only a record with a column the user writes gives), or that names
		 * no node at all (a kernel log of unknown origin in a hand folder: there is no
		 * node to exclude or repair): retry; excluding the node is the user's choice */
		/* a late snapshot is a source the user cannot write: what it lacks is a date */
		bool late = pm_att_late_only(c) && !c->fallback && !pm_att_node_guessed(a, c) &&
			    !c->user_record;
		json_object_set_new(cont, "id", json_string("retry"));
		return retry_only(
			d, cont, rep,
			nodes[0] ? json_sprintf("retry the job; excluding %s (--exclude=%s) is "
						"your reversible choice while %s",
						nodes, nodes,
						late ? "no source the user cannot write dates "
						       "it in the job (nvidia-smi's snapshot was "
						       "taken after its end: its counts may be a "
						       "later job's)" :
						       "nothing the user cannot write confirms "
						       "it") :
				   json_string("retry the job; if it recurs, collect the kernel "
					       "log and nvidia-smi -q of its nodes"),
			dec, nodes[0] ? nodes : "the job's nodes");
	}
	containment_of(a, c, dec, &cid, &caction, &cowner);
	if (!nodes[0] && !strcmp(cid, "retry-exclude-node")) {
		/* no node to exclude (a line of the job's output that names none): "retry the job
		 * excluding " with nothing after it */
		json_object_set_new(cont, "id", json_string("retry"));
		json_object_set_new(cont, "action",
				    json_string("retry the job; if it recurs, note the node it "
						"ran on"));
		json_object_set_new(cont, "owner", json_string("user"));
		nodes = "the job's nodes"; /* for the sentences below */
	} else if ((c->contradicted || pm_att_node_guessed(a, c) || pm_att_open_side(a, c) ||
		    node_launch_output(a, c, dec)) &&
		   !strcmp(cid, "retry-exclude-node")) {
		/* only the job's output puts it on its node, and the plugin's records say every
		 * task there ended cleanly; or only the folder's words (a file's name, a script's
		 * echo, a one-node job's record) put it there; or only the job's output reports
		 * a node's launch failure the operators own (node_launch_output): excluding the
		 * node is the user's choice, never advised */
		json_object_set_new(cont, "id", json_string("retry"));
		json_object_set_new(
			cont, "action",
			json_sprintf("retry the job; excluding %s (--exclude=%s) is your "
				     "reversible choice: %s",
				     nodes, nodes,
				     c->contradicted	       ? "only the job's output names it" :
				     pm_att_node_guessed(a, c) ? guessed_why(a, c) :
				     pm_att_open_side(a, c)    ? "the accounting record gives the "
								 "job no start or no end, so its "
								 "event may be another job's" :
								 "only the job's output reports "
								 "it, and where a line was printed "
								 "does not say that its node is at "
								 "fault"));
		json_object_set_new(cont, "owner", json_string("user"));
	} else {
		/* node_specific: the same job ran on the other nodes, the node is at fault;
		 * every_node: it failed alike on all of them, the job is */
		json_object_set_new(cont, "id", json_string(cid));
		pm_subst(buf, sizeof(buf), caction, nodes);
		json_object_set_new(cont, "action", json_string(buf));
		json_object_set_new(cont, "owner", json_string(cowner));
	}
	json_object_set_new(cont, "reversible", json_true());
	json_object_set_new(cont, "justified", json_true());
	json_object_set_new(d, "containment", cont);
	if (dec->repair_action) {
		pm_subst(buf, sizeof(buf), dec->repair_action, nodes);
		json_object_set_new(rep, "action", json_string(buf));
		json_object_set_new(rep, "owner", json_string(dec->repair_owner));
		bool just = !strcmp(conf, "established") && trusted_kinds(a, c) >= 2;
		char hand[600];

		pm_subst(buf, sizeof(buf), dec->repair_requires, nodes);
		/* what the repair waits for where the node's own records were given by hand */
		if (!just && pm_att_hand_files(a, c, true, hand, sizeof(hand)))
			json_object_set_new(
				rep, "requires",
				json_sprintf(
					"%s; the node's own records here are given by hand "
					"(%s), their writer not checked: it needs %s's own kernel "
					"log and nvidia-smi -q, read by the collector or on %s "
					"itself",
					buf, hand, nodes, nodes));
		else
			json_object_set_new(rep, "requires", json_string(buf));
		json_object_set_new(rep, "justified", json_boolean(just));
		json_object_set_new(d, "repair", rep);
	} else {
		json_decref(rep);
		json_object_set_new(d, "repair", json_null());
	}
	decision_tests(d, dec, nodes);
	return d;
}

/* ---- coverage, grouped by source (postmortem.verdict/2) ----
 * Each source: how many of its inputs were read whole ("ok"), and every other one as an entry
 * of its own ("problems": node, file, status, reason), in the order they came.  A job of
 * 16,384 nodes whose inputs were all read has a handful of lines, not one per file. */

static json_t *cov_group(json_t *idx, const char *source)
{
	json_t *g = json_object_get(idx, source);

	if (!g) {
		g = json_pack("{s:s,s:i,s:[]}", "source", source, "ok", 0, "problems");
		if (!g || json_object_set_new(idx, source, g) < 0)
			return NULL;
	}
	return g;
}

/* Count or keep entry E (a version-1 coverage entry; stolen). */
static void cov_entry(json_t *idx, json_t *e)
{
	const char *src = json_string_value(json_object_get(e, "source"));
	json_t *g = cov_group(idx, src ? src : "unknown");

	if (g && !strcmp(json_string_value(json_object_get(e, "status")) ?: "", "ok"))
		json_object_set_new(g, "ok",
				    json_integer(json_integer_value(json_object_get(g, "ok")) + 1));
	else if (g)
		json_array_append(json_object_get(g, "problems"), e);
	json_decref(e);
}

/* The groups of IDX (source -> group), by source name. */
static json_t *cov_array(json_t *idx)
{
	size_t n = json_object_size(idx), k = 0;
	const char **keys = malloc((n ? n : 1) * sizeof(*keys)), *key;
	json_t *out = json_array(), *g;

	json_object_foreach(idx, key, g) if (keys) keys[k++] = key;
	if (keys && k > 1)
		pm_sort(keys, k, sizeof(*keys), pm_cmp_str);
	for (size_t i = 0; keys && i < k; i++)
		json_array_append(out, json_object_get(idx, keys[i]));
	free(keys);
	return out;
}

/* The index (source -> group) of coverage COV, grouped (version 2) or not (version 1). */
static json_t *cov_index(const json_t *cov)
{
	json_t *idx = json_object(), *x;
	size_t i;

	json_array_foreach(cov, i, x)
	{
		if (json_is_array(json_object_get(x, "problems"))) {
			const char *src = json_string_value(json_object_get(x, "source"));
			json_object_set_new(idx, src ? src : "unknown", json_deep_copy(x));
		} else {
			cov_entry(idx, json_deep_copy(x));
		}
	}
	return idx;
}

int pm_verdict_coverage_add(json_t *verdict, json_t *entries)
{
	json_t *idx = cov_index(json_object_get(verdict, "coverage")), *x;
	size_t i;
	int rc;

	json_array_foreach(entries, i, x) cov_entry(idx, json_incref(x));
	json_decref(entries);
	rc = json_object_set_new(verdict, "coverage", cov_array(idx));
	json_decref(idx);
	return rc;
}

json_t *pm_evidence_inputs(const struct pm_evidence *ev)
{
	json_t *out = json_array();

	for (size_t i = 0; out && i < ev->nfiles; i++) {
		const struct pm_file *f = &ev->files[i];
		json_array_append_new(out, json_pack("{s:o,s:s,s:s,s:s,s:s,s:s}", "node",
						     jstr_or_null(f->node), "source",
						     f->status == PM_ST_BINARY ||
								     f->status == PM_ST_UNREADABLE ?
							     "unknown" :
							     pm_source_name(f->source),
						     "format", pm_format_name(f->format), "file",
						     f->name, "status", pm_status_name(f->status),
						     "reason", f->reason ? f->reason : ""));
	}
	return out;
}

static json_t *coverage_json(const struct att *a)
{
	const struct pm_evidence *ev = a->ev;
	json_t *idx = json_object(), *cov;
	char **nodes = ev->job.nnodes ? ev->job.nodes : NULL;
	/* the nodes with a kernel log (a file, or the collector's word on one), sorted: a job
	 * node is looked up, not compared with every file (4,096 nodes x 16,384 files) */
	const char **klog = NULL;
	size_t nk = 0;

	for (size_t i = 0; i < ev->nfiles; i++) {
		const struct pm_file *f = &ev->files[i];
		const char *src = (f->status == PM_ST_BINARY || f->status == PM_ST_UNREADABLE) &&
						  !f->other_job ?
					  "unknown" :
					  pm_source_name(f->source);
		json_t *c;
		if (f->status == PM_ST_OK) { /* counted, not listed */
			c = cov_group(idx, src);
			json_object_set_new(c, "ok",
					    json_integer(
						    json_integer_value(json_object_get(c, "ok")) +
						    1));
			continue;
		}
		c = json_object();
		json_object_set_new(c, "node", jstr_or_null(f->node));
		json_object_set_new(c, "source", json_string(src));
		json_object_set_new(c, "format", json_string(pm_format_name(f->format)));
		json_object_set_new(c, "file", json_string(f->name));
		json_object_set_new(c, "status", json_string(pm_status_name(f->status)));
		json_object_set_new(c, "reason", json_string(f->reason ? f->reason : ""));
		cov_entry(idx, c);
	}
	for (size_t i = 0; i < ev->ncov; i++) {
		json_t *c = json_object();
		json_object_set_new(c, "node", jstr_or_null(ev->cov[i].node));
		json_object_set_new(c, "source", json_string(ev->cov[i].source));
		json_object_set_new(c, "file", json_null());
		json_object_set_new(c, "status", json_string(ev->cov[i].status));
		json_object_set_new(c, "reason", json_string(ev->cov[i].reason));
		cov_entry(idx, c);
	}
	size_t room = ev->nfiles + ev->ncov + 1;
	for (size_t k = 0; k < ev->nfiles; k++)
		room += ev->files[k].nshosts;
	if (nodes && !(klog = malloc(room * sizeof(*klog)))) {
		json_decref(idx);
		return NULL;
	}
	for (size_t k = 0; nodes && k < ev->nfiles; k++) {
		if (ev->files[k].source != PM_SRC_KERNEL_LOG)
			continue;
		if (ev->files[k].node)
			klog[nk++] = ev->files[k].node;
		for (unsigned h = 0; h < ev->files[k].nshosts; h++) /* its sections' hosts */
			klog[nk++] = ev->files[k].shosts[h];
	}
	for (size_t k = 0; nodes && k < ev->ncov; k++)
		if (ev->cov[k].node && !strcmp(ev->cov[k].source, "kernel_log"))
			klog[nk++] = ev->cov[k].node;
	if (nk > 1)
		pm_sort(klog, nk, sizeof(*klog), pm_cmp_str);
	for (size_t i = 0; nodes && i < ev->job.nnodes; i++) {
		if (nk && bsearch(&nodes[i], klog, nk, sizeof(*klog), pm_cmp_str))
			continue;
		json_t *c = json_object();
		json_object_set_new(c, "node", json_string(nodes[i]));
		json_object_set_new(c, "source", json_string("kernel_log"));
		json_object_set_new(c, "file", json_null());
		json_object_set_new(c, "status", json_string("missing"));
		json_object_set_new(c, "reason",
				    json_string("no kernel log for this node in the "
						"evidence: hardware cannot be ruled out"));
		cov_entry(idx, c);
	}
	free(klog);
	cov = cov_array(idx);
	json_decref(idx);
	return cov;
}

/* coverage_json beside the rest of the verdict (pm_verdict_build): it reads the evidence set's
 * files, the collectors' coverage entries and the job's nodes, which neither attribution nor
 * the verdict changes any more, and makes JSON of its own, so its bytes are the same on any
 * thread.  At 16,384 nodes it is about 45 ms of a verdict made on one thread. */
static void *coverage_run(void *a)
{
	return coverage_json(a);
}

/* A stored postmortem.verdict/1 in the shape of version 2, for the readers. */
int pm_verdict_upgrade(json_t *v)
{
	json_t *bys = json_object_get(v, "bystanders"), *cov = json_object_get(v, "coverage");
	json_t *job = json_object_get(v, "job");

	if (json_is_object(job) && json_is_array(json_object_get(job, "nodes")))
		json_object_set_new(job, "nodes",
				    hostlist_json(json_incref(json_object_get(job, "nodes"))));
	if (json_is_object(bys) && json_is_array(json_object_get(bys, "nodes")))
		json_object_set_new(bys, "nodes",
				    hostlist_json(json_incref(json_object_get(bys, "nodes"))));
	if (json_is_object(bys) && json_is_array(json_object_get(bys, "ranks"))) {
		const json_t *r = json_object_get(bys, "ranks"), *x;
		size_t n = 0, i;
		int *rs = malloc((json_array_size(r) + 1) * sizeof(int));
		json_array_foreach(r, i, x) if (rs && json_is_integer(x))
			rs[n++] = (int)json_integer_value(x);
		if (rs)
			json_object_set_new(bys, "ranks", rank_ranges_json(rs, n));
		free(rs);
	}
	if (json_is_array(cov) && json_array_size(cov) &&
	    !json_is_array(json_object_get(json_array_get(cov, 0), "problems"))) {
		json_t *idx = cov_index(cov);
		json_object_set_new(v, "coverage", cov_array(idx));
		json_decref(idx);
	}
	return 0;
}

static json_t *job_json(const struct att *a)
{
	const struct pm_evidence *ev = a->ev;
	json_t *j = json_object(), *nodes = json_array();
	size_t nn;
	char **nv = pm_att_nodes(a, &nn);

	for (size_t i = 0; i < nn; i++)
		json_array_append_new(nodes, json_string(nv[i]));
	json_object_set_new(j, "id", jstr_or_null(ev->job.id));
	json_object_set_new(j, "cluster", jstr_or_null(ev->job.cluster));
	json_object_set_new(j, "nodes", hostlist_json(nodes));
	json_object_set_new(j, "ranks",
			    ev->job.ntasks > 0 ? json_integer(ev->job.ntasks) :
			    a->nknown	       ? json_integer((json_int_t)a->nknown) :
						 json_null());
	json_object_set_new(j, "restart",
			    ev->job.restart >= 0 ? json_integer(ev->job.restart) : json_null());
	return j;
}

static int cmpdigest(const void *x, const void *y)
{
	const struct pm_file *a = *(const struct pm_file *const *)x;
	const struct pm_file *b = *(const struct pm_file *const *)y;
	return strcmp(a->name, b->name);
}

static json_t *input_digest(const struct pm_evidence *ev)
{
	const struct pm_file **v = malloc((ev->nfiles ? ev->nfiles : 1) * sizeof(*v));
	struct pm_sha256 d;
	unsigned char out[32];
	char hex[80];

	if (!v)
		return json_null();
	for (size_t i = 0; i < ev->nfiles; i++)
		v[i] = &ev->files[i];
	if (ev->nfiles > 1)
		pm_sort(v, ev->nfiles, sizeof(*v), cmpdigest);
	pm_sha256_init(&d);
	for (size_t i = 0; i < ev->nfiles; i++) {
		pm_sha256_update(&d, v[i]->name, strlen(v[i]->name) + 1);
		pm_sha256_update(&d, v[i]->digest, sizeof(v[i]->digest));
	}
	free(v);
	pm_sha256_final(&d, out);
	pm_sha256_hex(out, hex);
	return json_string(hex);
}

static bool is_error_role(enum pm_role r)
{
	return r == PM_ROLE_ORIGIN || r == PM_ROLE_CASCADE || r == PM_ROLE_TEARDOWN ||
	       r == PM_ROLE_CONFIRMATION;
}

/* A lead only because nothing better fits: say what is missing and what would decide. */
static void fallback_why(struct att *a, const struct cand *c, const char *nodes)
{
	const struct pm_decision *d = pm_ruleset_decision(a->rs, c->cls, c->sub);
	char test[300];

	pm_subst(test, sizeof(test), d ? d->next_test : "", nodes[0] ? nodes : "the job's nodes");
	pm_att_why(a,
		   "%s/%s leads only because nothing better fits: %s. Confidence hypothesis; %s "
		   "would confirm or overturn it.",
		   c->cls, c->sub, c->note[0] ? c->note : "no stronger symptom fired", test);
	if (c->untrusted && c->hardware)
		pm_att_why(
			a,
			"A hardware class seen only in the job's output: no repair, nothing counted "
			"against a node; excluding it is the user's reversible choice.");
}

static void join_nodes(json_t *nodes, char *out, size_t len)
{
	size_t n = 0, nn = json_array_size(nodes);
	const char **names = nn > 1 ? calloc(nn, sizeof(*names)) : NULL;
	char *hl = NULL;

	/* several as a host list (gpu[016-017]): what sbatch --exclude takes, and it fits */
	for (size_t i = 0; names && i < nn; i++)
		names[i] = json_string_value(json_array_get(nodes, i));
	if (names && (hl = pm_hostlist_compress(names, nn)) && strlen(hl) < len) {
		memcpy(out, hl, strlen(hl) + 1);
		free(hl);
		free(names);
		return;
	}
	free(hl);
	free(names);
	out[0] = '\0';
	for (size_t i = 0; i < json_array_size(nodes) && n + 1 < len; i++)
		n += (size_t)snprintf(out + n, len - n, "%s%s", i ? "," : "",
				      json_string_value(json_array_get(nodes, i)));
}

/*
 * The summary of C, a cause on every node of a multi-node job that the decision block's
 * every_node containment takes (the same launch error on all of them: containment_of), said
 * of all the nodes, NODES (the origin's, a host list), not of the line it was first read
 * on; of no one rank when several raised it.  Other leads keep theirs.
 */
static void every_node_summary(struct att *a, struct cand *c, const char *nodes)
{
	const struct pm_decision *d = pm_ruleset_decision(a->rs, c->cls, c->sub);
	char sum[PM_OBS_SUMMARY_MAX], hl[PM_OBS_SUMMARY_MAX];
	struct pm_obs o;

	if (!d || !d->every_id || !c->sumobs || !nodes[0] || !strpbrk(nodes, ",[") ||
	    (d->node_id && node_specific(a, c)) || !every_node(a, c))
		return;
	o = a->ev->obs[c->sumobs - 1];
	snprintf(hl, sizeof(hl), "%s", nodes);
	o.node = hl;
	if (c->all_ranks || c->nranks > 1)
		o.rank = -1;
	snprintf(c->summary, sizeof(c->summary), "%s", pm_obs_summary(a->ev, &o, sum));
	if (c->refobs) {
		char ref[PM_OBS_SUMMARY_MAX];
		size_t n = strlen(c->summary);
		snprintf(c->summary + n, sizeof(c->summary) - n, "; %s",
			 pm_obs_summary(a->ev, &a->ev->obs[c->refobs - 1], ref));
	}
}

/* ---- the verdict from the attribution's state ---- */

static const char *const vstatus_names[] = {
	[VS_NONE] = "none",
	[VS_ATTRIBUTED] = "attributed",
	[VS_AMBIGUOUS] = "ambiguous",
	[VS_UNKNOWN] = "unknown",
};

/* cause, origin and candidates; NODES gets the origin's nodes, as a host list when several */
static void verdict_cause(struct vb *b, json_t *v, json_t *cands, char *nodes, size_t nlen)
{
	struct att *a = b->a;
	const struct cand *l = a->lead;
	json_t *o;

	if (l && a->status != VS_NONE && a->status != VS_UNKNOWN) {
		json_t *cause = json_object();
		o = origin_json(a, l);
		join_nodes(json_object_get(o, "nodes"), nodes, nlen);
		if (a->status == VS_ATTRIBUTED)
			every_node_summary(a, a->lead, nodes);
		json_object_set_new(cause, "class", json_string(l->cls));
		json_object_set_new(cause, "subclass", json_string(l->sub));
		json_object_set_new(cause, "summary", json_string(l->summary));
		json_object_set_new(v, "cause", cause);
		json_object_set_new(v, "origin", o);
		for (size_t i = 0; i < a->live && i < 8; i++)
			json_array_append_new(cands, cand_json(b, &a->c[i], l));
		if (a->status == VS_ATTRIBUTED)
			pm_att_why(a, "Leading explanation: %s/%s%s%s (%s).", l->cls, l->sub,
				   nodes[0] ? " on " : "", nodes, l->summary);
		if (l->fallback)
			fallback_why(a, l, nodes);
		return;
	}
	o = json_object();
	json_object_set_new(o, "nodes", json_array());
	json_object_set_new(o, "ranks", json_array());
	json_object_set_new(o, "gpus", json_array());
	json_object_set_new(v, "cause", json_null());
	json_object_set_new(v, "origin", o);
}

/* The strings of ARR (N of them), sorted for bsearch; NULL when out of memory. */
static const char **sorted_names(json_t *arr, size_t *n)
{
	const char **v;

	*n = json_array_size(arr);
	if (!(v = malloc((*n ? *n : 1) * sizeof(*v))))
		return NULL;
	for (size_t k = 0; k < *n; k++)
		v[k] = json_string_value(json_array_get(arr, k));
	if (*n > 1)
		pm_sort(v, *n, sizeof(*v), pm_cmp_str_null);
	return v;
}

/* The nodes of ORIGIN (an origin object) that it names without a rank onto WHOLE. */
static void rankless_nodes(json_t *whole, json_t *origin)
{
	if (!json_array_size(json_object_get(origin, "ranks")))
		json_array_extend(whole, json_object_get(origin, "nodes"));
}

/* bystanders: every node and rank with error evidence outside the origin (and, when
 * ambiguous, outside every candidate's origin: a suspect is not a bystander), and no node
 * whose hardware failed on its own in the job's time (a GPU that fell off the bus during the
 * teardown: a bystander is what erred only as a consequence, and such a node is not one to
 * keep in service). An origin that names a node but no rank (a program's error with no rank
 * label, srun's "task 2: Exited with exit code 137" naming only the node for the kill) holds
 * every rank of that node: which of them erred first is not known, so none is a bystander.
 * An unknown verdict has none: its cause, and so its origin, is not known. */
static json_t *verdict_bystanders(const struct att *a, json_t *v, json_t *cands)
{
	const struct pm_evidence *ev = a->ev;
	json_t *on = json_deep_copy(json_object_get(json_object_get(v, "origin"), "nodes"));
	json_t * or = json_deep_copy(json_object_get(json_object_get(v, "origin"), "ranks"));
	json_t *whole = json_array();
	json_t *bys = json_object(), *bys_n = json_array(), *cj;
	int *rs = NULL, *ors = NULL;
	size_t nrs = 0, ars = 0, nors = 0, aors = 0, non, nwh, ci;
	const char **ons, **whs;
	/* nothing to attribute, or no cause known: no one erred "only as a consequence" of
	 * it, and a node called a bystander of an unknown cause could be its origin */
	bool completed = a->status == VS_NONE || a->status == VS_UNKNOWN;

	rankless_nodes(whole, json_object_get(v, "origin"));
	if (a->status != VS_ATTRIBUTED)
		json_array_foreach(cands, ci, cj)
		{
			json_array_extend(on,
					  json_object_get(json_object_get(cj, "origin"), "nodes"));
			json_array_extend(or,
					  json_object_get(json_object_get(cj, "origin"), "ranks"));
			rankless_nodes(whole, json_object_get(cj, "origin"));
		}
	for (size_t i = 0; i < a->live; i++)
		if (pm_att_own_hw(&a->c[i]))
			json_array_append_new(on, json_string(a->c[i].node));
	/* a lead placed only by the job's output where Slurm's own reports (the plugin's exit
	 * records, srun's) say a task on another node failed of itself: that task, its rank
	 * and its node are the record's suspect, never a bystander "only as a consequence" */
	const struct cand *l =
		a->status == VS_ATTRIBUTED && a->lead && a->lead->gainsaid ? a->lead : NULL;
	const char *other = NULL;
	if (l && l->node[0] && (other = pm_att_clean_exits(a, l->node))) {
		for (size_t i = 0; i < ev->ntasks; i++)
			if (ev->tasks[i].node && strcmp(ev->tasks[i].node, l->node) &&
			    pm_att_own_failure(&ev->tasks[i])) {
				json_array_append_new(on, json_string(ev->tasks[i].node));
				json_array_append_new(or, json_integer(ev->tasks[i].rank));
			}
	} else if (l && l->node[0] && (other = pm_att_srun_ended(a, l->node))) {
		json_array_append_new(on, json_string(other));
		if (pm_att_srun_task(a) >= 0)
			json_array_append_new(or, json_integer(pm_att_srun_task(a)));
	}
	/* an origin of ranks whose node nothing places (a launcher numbered them) may have run
	 * on any node: none is a bystander (decided before the suspects below join the set) */
	bool unplaced = !json_array_size(on) && json_array_size(or);
	/* an origin of no node and no rank where the task-exit records gainsaid the host a
	 * line of the job's output printed (records_gainsay): the cause may be on any node,
	 * the printed one included, so none is a bystander */
	if (!json_array_size(on) && !json_array_size(or) && a->records_unplaced)
		completed = true;
	const struct cand *nw =
		a->status == VS_ATTRIBUTED && a->lead && !a->lead->node[0] ? a->lead : NULL;
	/* a lead on no node because the host its lines named is one Slurm gainsays
	 * (prefix_gainsaid): it may still be on any node, that one included, so none is a
	 * bystander of it */
	if (nw && pm_att_pgain_only(a, nw))
		completed = true;
	/* a lead on no node of one reporter's word against one peer (single_reporter): the
	 * reporter's own link is one of its explanations, so the reporter, its node and rank,
	 * is a suspect, not a bystander "only as a consequence" */
	for (size_t k = 0; nw && nw->nowhere && k < nw->nev; k++) {
		const struct pm_obs *o = &ev->obs[nw->ev[k]];
		if (o->node) { /* and every rank of it: which one erred first is not known */
			json_array_append_new(on, json_string(o->node));
			json_array_append_new(whole, json_string(o->node));
		}
		if (o->rank >= 0)
			json_array_append_new(or, json_integer(o->rank));
	}
	/* a lead on no node: a task the records say failed on its own (pm_att_own_failure)
	 * may be where it happened, never a bystander of it */
	for (size_t i = 0; nw && i < ev->ntasks; i++)
		if (ev->tasks[i].node && pm_att_own_failure(&ev->tasks[i])) {
			json_array_append_new(on, json_string(ev->tasks[i].node));
			json_array_append_new(or, json_integer(ev->tasks[i].rank));
		}
	/* a one-node job whose origin names no node (a stall, a cause of no place): whatever
	 * happened, happened on its one node, which is no bystander of itself, and which of its
	 * ranks erred first is not known (none is one either) */
	if (!completed && !json_array_size(on) && ev->job.nnodes == 1 && ev->job.nodes &&
	    ev->job.nodes[0]) {
		json_array_append_new(on, json_string(ev->job.nodes[0]));
		json_array_append_new(whole, json_string(ev->job.nodes[0]));
	}
	/* a stall placed nowhere (the progress stopped, no rank or node says where): the
	 * process that stopped first may be on any node, so none is a bystander of it */
	if (!json_array_size(on) && !json_array_size(or) && a->status == VS_ATTRIBUTED && a->lead &&
	    pm_is_kind(a->lead->cls, a->lead->sub, PM_K_HANG))
		completed = true;
	/* a lead whose node only a bare rank tag that may be a local rank gives (att_ranks.c,
	 * weak_local): the process that printed it may have run on any node, so none is a
	 * bystander of it (review35 F3) */
	for (size_t k = 0; a->status == VS_ATTRIBUTED && a->lead && !completed &&
			   pm_att_node_guessed(a, a->lead) && k < a->lead->nev;
	     k++)
		completed = ev->obs[a->lead->ev[k]].rank_guess;
	/* the origins as sorted sets: a job of thousands of ranks has as many lines */
	ons = sorted_names(on, &non);
	whs = sorted_names(whole, &nwh);
	for (size_t k = 0; k < json_array_size(or); k++)
		if (json_is_integer(json_array_get(or, k)) &&
		    json_integer_value(json_array_get(or, k)) >= INT_MIN &&
		    json_integer_value(json_array_get(or, k)) <= INT_MAX)
			pm_rankset_push(&ors, &nors, &aors,
					(int)json_integer_value(json_array_get(or, k)));
	pm_rankset_done(ors, &nors);
	for (size_t i = 0; i < ev->nobs && !completed && ons; i++) {
		const struct pm_obs *o = &ev->obs[i];
		if (!is_error_role(R(a, i)->role) || set_aside(a, i))
			continue;
		if (o->node && !unplaced &&
		    !bsearch(&o->node, ons, non, sizeof(*ons), pm_cmp_str_null))
			json_array_append_new(bys_n, json_string(o->node));
		/* where a launcher numbered the ranks, srun's task numbers are no ranks */
		if (a->tnode && o->raw && strstr(o->raw, "srun: error: "))
			continue;
		if (o->rank >= 0 && !pm_rankset_has(ors, nors, o->rank) &&
		    !(o->node && whs && bsearch(&o->node, whs, nwh, sizeof(*whs), pm_cmp_str_null)))
			pm_rankset_push(&rs, &nrs, &ars, o->rank);
	}
	/* the workers torchrun's summary lists as failed after its root cause, or stopped by
	 * its agent, where the origin names its ranks: bystanders, as their own lines would
	 * make them (the summary's rows name no rank themselves) */
	for (size_t k = 0; !completed && nors && k < a->ntroot; k++)
		if (pm_att_summary_later(a, k) && !pm_rankset_has(ors, nors, a->troot[k].rank))
			pm_rankset_push(&rs, &nrs, &ars, a->troot[k].rank);
	pm_rankset_done(rs, &nrs);
	json_object_set_new(bys, "nodes", hostlist_json(bys_n));
	json_object_set_new(bys, "ranks", rank_ranges_json(rs, nrs));
	free(rs);
	free(ors);
	free(ons);
	free(whs);
	json_decref(on);
	json_decref(or);
	json_decref(whole);
	return bys;
}

/* first error: a lead, not blame */
static json_t *verdict_first_error(struct vb *b)
{
	struct att *a = b->a;
	const struct cand *l = a->lead;
	json_t *fe = json_null();

	for (size_t k = 0; k < a->ev->nobs; k++) {
		size_t i = a->order[k];
		const struct pm_obs *o = &a->ev->obs[i];
		enum pm_role r = R(a, i)->role;
		bool agrees;

		if (!o->has_time ||
		    (r != PM_ROLE_ORIGIN && r != PM_ROLE_CASCADE && r != PM_ROLE_TEARDOWN))
			continue;
		/* another node's line, another job's GPU, a line from outside the job's time:
		 * not this job's error */
		if (set_aside(a, i))
			continue;
		agrees = l && ((l->node[0] && o->node && !strcmp(o->node, l->node)) ||
			       (!l->node[0] && r == PM_ROLE_ORIGIN));
		/* a rival of an ambiguous verdict, or the lead's class on another node at its
		 * time: an origin the verdict names, not a consequence */
		for (size_t c = 0; l && !agrees && c < a->live; c++)
			agrees = r == PM_ROLE_ORIGIN && named_origin(a, &a->c[c]) &&
				 pm_att_cand_holds(&a->c[c], i);
		fe = json_object();
		json_object_set_new(fe, "node", jstr_or_null(o->node));
		json_object_set_new(fe, "rank", o->rank >= 0 ? json_integer(o->rank) : json_null());
		json_object_set_new(fe, "event_time", time_json(true, o->event_time));
		json_object_set_new(fe, "evidence", json_string(eid(b, i)));
		json_object_set_new(
			fe, "note",
			json_string(
				agrees ? "the earliest error seen: a lead; here it agrees with "
					 "the origin" :
					 "the earliest error seen: a lead, not blame; here it is "
					 "not the origin"));
		/* where the line names no node, its rank, else nothing: never "on ?" */
		if (!agrees && l && o->node)
			pm_att_why(a,
				   "The earliest error (%s on %s) is not the origin: it was a "
				   "consequence.",
				   R(a, i)->id, o->node);
		else if (!agrees && l && o->rank >= 0)
			pm_att_why(a,
				   "The earliest error (%s of rank %d) is not the origin: it was a "
				   "consequence.",
				   R(a, i)->id, o->rank);
		else if (!agrees && l)
			pm_att_why(
				a,
				"The earliest error (%s) is not the origin: it was a consequence.",
				R(a, i)->id);
		break;
	}
	return fe;
}

/* evidence: everything the candidates cite, then the rest in time order, bounded; listed
 * in the order the ids were handed out */
static void verdict_evidence(struct vb *b)
{
	struct att *a = b->a;
	size_t *byid;

	for (size_t k = 0; k < a->ev->nobs; k++) {
		size_t i = a->order[k];
		if (a->eid[i] || ((b->nid < 200 || R(a, i)->role == PM_ROLE_ORIGIN) && room(b, i)))
			eid(b, i);
	}
	byid = calloc(b->nid + 1, sizeof(size_t));
	for (size_t i = 0; byid && i < a->ev->nobs; i++)
		if (a->eid[i])
			byid[a->eid[i]] = i + 1;
	for (size_t id = 1; byid && id <= b->nid; id++)
		if (byid[id])
			json_array_append_new(b->evidence, obs_json(b, byid[id] - 1));
	free(byid);
}

/* The rules with observations not listed: how many there were, how many are shown. */
static json_t *verdict_left_out(struct vb *b)
{
	struct att *a = b->a;
	size_t *seen = calloc(a->rs->nrules + 1, sizeof(size_t));
	json_t *out = json_array();

	for (size_t i = 0; seen && i < a->ev->nobs; i++)
		seen[a->ev->obs[i].rule]++;
	for (size_t r = 0; seen && b->shown && r < a->rs->nrules; r++)
		if (seen[r] > b->shown[r])
			json_array_append_new(out,
					      json_pack("{s:s,s:I,s:I}", "rule", a->rs->rules[r].id,
							"observations", (json_int_t)seen[r],
							"shown", (json_int_t)b->shown[r]));
	free(seen);
	return out;
}

static json_t *verdict_ambiguity(const struct att *a, json_t *cands)
{
	json_t *am, *ex;

	if (a->status != VS_AMBIGUOUS)
		return json_null();
	am = json_object();
	ex = json_array();
	for (size_t i = 0; i < json_array_size(cands); i++) {
		json_t *c = json_array_get(cands, i);
		char s[400];
		snprintf(s, sizeof(s), "%s/%s: %s", json_string_value(json_object_get(c, "class")),
			 json_string_value(json_object_get(c, "subclass")),
			 json_string_value(json_object_get(c, "summary")));
		json_array_append_new(ex, json_string(s));
	}
	json_object_set_new(am, "explanations", ex);
	json_object_set_new(am, "test", json_string(a->test));
	return am;
}

json_t *pm_verdict_build(struct att *a)
{
	struct vb b = {.a = a,
		       .evidence = json_array(),
		       .shown = calloc(a->rs->nrules + 1, sizeof(size_t))};
	json_t *v = json_object(), *cands = json_array(), *rs = json_object();
	char nodes[512] = "";
	struct pm_beside cov;

	pm_beside_start(&cov, coverage_run, a, a->ev->threads);
	json_object_set_new(v, "schema", json_string(PM_VERDICT_SCHEMA));
	json_object_set_new(v, "job", job_json(a));
	json_object_set_new(v, "outcome", json_string(a->outcome));
	json_object_set_new(v, "status", json_string(vstatus_names[a->status]));
	verdict_cause(&b, v, cands, nodes, sizeof(nodes));
	json_object_set_new(v, "confidence", jstr_or_null(a->conf));
	json_object_set_new(v, "candidates", cands);
	json_object_set_new(v, "bystanders", verdict_bystanders(a, v, cands));
	json_object_set_new(v, "first_error", verdict_first_error(&b));
	verdict_evidence(&b);
	json_object_set_new(v, "evidence", b.evidence);
	json_object_set_new(v, "evidence_left_out", verdict_left_out(&b));
	free(b.shown);
	json_object_set_new(v, "coverage", pm_beside_wait(&cov));
	json_object_set_new(v, "decision",
			    decision_json(a, a->lead, vstatus_names[a->status],
					  a->conf ? a->conf : "", nodes, a->any_hw,
					  a->test[0] ? a->test : NULL));
	json_object_set_new(v, "ambiguity", verdict_ambiguity(a, cands));
	json_object_set_new(rs, "id", json_string(a->rs->id));
	json_object_set_new(rs, "version", json_string(a->rs->version));
	json_object_set_new(rs, "digest", json_string(a->rs->digest));
	json_object_set_new(v, "ruleset", rs);
	json_object_set_new(v, "input_digest", input_digest(a->ev));
	json_object_set_new(v, "why", a->why);
	a->why = NULL;
	pm_redact_scratch_free(b.rscratch);
	return v;
}

char *pm_verdict_dump(const json_t *verdict)
{
	char *s = json_dumps(verdict, JSON_SORT_KEYS | JSON_INDENT(2) | JSON_ENSURE_ASCII), *out;
	size_t l;

	if (!s)
		return NULL;
	l = strlen(s);
	out = realloc(s, l + 2);
	if (!out) {
		free(s);
		return NULL;
	}
	out[l] = '\n';
	out[l + 1] = '\0';
	return out;
}

/* ---- text ---- */

struct buf {
	char *s;
	size_t n, a;
	bool oom;
};

static void put(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->oom)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s + b->n, b->a - b->n, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->oom = true;
			return;
		}
		if ((size_t)n < b->a - b->n) {
			b->n += (size_t)n;
			return;
		}
		size_t na = b->a * 2 + (size_t)n + 64;
		char *p = realloc(b->s, na);
		if (!p) {
			b->oom = true;
			return;
		}
		b->s = p;
		b->a = na;
	}
}

/* A timeline line's rank column: "rank N" padded, or blanks when the event has no rank. */
static void put_rank(struct buf *b, const json_t *x)
{
	if (json_is_integer(json_object_get(x, "rank")))
		put(b, " rank %-4lld", (long long)json_integer_value(json_object_get(x, "rank")));
	else
		put(b, " %-9s", "");
}

static const char *S(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "-";
}

static void list(struct buf *b, const json_t *arr)
{
	size_t i;
	json_t *x;

	if (json_is_string(arr)) { /* a host list or rank ranges (version 2) */
		put(b, "%s", *json_string_value(arr) ? json_string_value(arr) : "-");
		return;
	}
	if (!json_array_size(arr)) {
		put(b, "-");
		return;
	}
	json_array_foreach(arr, i, x)
	{
		if (!json_is_integer(x)) {
			put(b, "%s%s", i ? "," : "", json_string_value(x));
			continue;
		}
		/* ranks as ranges: 0-28,30-63 */
		long long v = json_integer_value(x), end = v;
		size_t k = i;
		while (k + 1 < json_array_size(arr) &&
		       json_integer_value(json_array_get(arr, k + 1)) == end + 1) {
			end++;
			k++;
		}
		if (end > v)
			put(b, "%s%lld-%lld", i ? "," : "", v, end);
		else
			put(b, "%s%lld", i ? "," : "", v);
		i = k;
		x = json_array_get(arr, i);
	}
}

/* Node names as a host list (gpu[016-017,031]): an origin of many co-origins reads as
 * Slurm writes nodes; anything else as list() shows it. */
static void hosts(struct buf *b, const json_t *arr)
{
	size_t n = json_is_array(arr) ? json_array_size(arr) : 0;
	const char **names = n > 1 ? calloc(n, sizeof(*names)) : NULL;
	char *hl = NULL;
	size_t i;

	for (i = 0; names && i < n && json_is_string(json_array_get(arr, i)); i++)
		names[i] = json_string_value(json_array_get(arr, i));
	if (names && i == n)
		hl = pm_hostlist_compress(names, n);
	if (hl)
		put(b, "%s", hl);
	else
		list(b, arr);
	free(hl);
	free(names);
}

static const json_t *find_ev(const json_t *v, const char *id)
{
	size_t i;
	json_t *e;

	json_array_foreach(json_object_get(v, "evidence"), i,
			   e) if (!strcmp(S(e, "id"), id)) return e;
	return NULL;
}

static char *verdict_text(const json_t *v);

char *pm_verdict_text(const json_t *verdict)
{
	json_t *v = json_deep_copy(verdict);
	char *s;

	if (!v)
		return NULL;
	pm_verdict_upgrade(v);
	s = verdict_text(v);
	json_decref(v);
	return s;
}

/* The decision's lines ("what to do"): containment, repair (a repair justified by repeats
 * names the earlier job runs: the latest 3, and how many more), overturn, next test. */
/* The coverage lines: each input with a problem, then the counts. */
static void coverage_text(struct buf *b, const json_t *v)
{
	size_t inputs = 0, shown = 0, i, k;
	const json_t *g, *x;

	put(b, "\ncoverage:\n");
	json_array_foreach(json_object_get(v, "coverage"), i, g)
	{
		inputs += (size_t)json_integer_value(json_object_get(g, "ok"));
		json_array_foreach(json_object_get(g, "problems"), k, x)
		{
			put(b, "  %-10s %-10s %-9s %s %s\n",
			    json_is_string(json_object_get(x, "node")) ? S(x, "node") : "-",
			    S(x, "source"), S(x, "status"),
			    json_is_string(json_object_get(x, "file")) ? S(x, "file") : "",
			    S(x, "reason"));
			shown++;
			inputs++;
		}
	}
	put(b, "  %zu input(s), %zu with problems\n", inputs, shown);
}

static void decision_text(struct buf *b, const json_t *dec)
{
	const json_t *c = json_object_get(dec, "containment"), *r = json_object_get(dec, "repair");
	size_t n;

	put(b, "\nwhat to do:\n  now (%s, %s): %s\n", S(c, "id"), S(c, "owner"), S(c, "action"));
	if (json_is_object(r))
		put(b, "  repair (%s, %s): %s\n    needs: %s\n", S(r, "owner"),
		    json_is_true(json_object_get(r, "justified")) ? "justified" :
								    "not yet justified",
		    S(r, "action"), S(r, "requires"));
	n = json_array_size(json_object_get(r, "repeats"));
	if (json_is_true(json_object_get(r, "justified")) && n) {
		/* the latest three (the runs are in time order), as `postmortem nodes` shows */
		put(b, "    repeats on the node: jobs");
		for (size_t i = n > 3 ? n - 3 : 0; i < n; i++)
			put(b, " %s",
			    json_string_value(json_array_get(json_object_get(r, "repeats"), i)) ?:
				    "?");
		if (n > 3)
			put(b, " and %zu more", n - 3);
		put(b, "\n");
	}
	if (json_is_string(json_object_get(dec, "overturn")))
		put(b, "  overturned by: %s\n", S(dec, "overturn"));
	if (json_is_string(json_object_get(dec, "next_test")))
		put(b, "  next test: %s\n", S(dec, "next_test"));
}

static char *verdict_text(const json_t *v)
{
	struct buf b = {.s = malloc(4096), .a = 4096};
	const json_t *cause = json_object_get(v, "cause"), *job = json_object_get(v, "job");
	const json_t *dec = json_object_get(v, "decision"), *x;
	size_t i, shown = 0;

	if (!b.s)
		return NULL;
	b.s[0] = '\0';
	put(&b, "job %s%s%s: %s, %s", S(job, "id"),
	    json_is_string(json_object_get(job, "cluster")) ? " on " : "",
	    json_is_string(json_object_get(job, "cluster")) ? S(job, "cluster") : "",
	    S(v, "outcome"), S(v, "status"));
	if (json_is_object(cause))
		put(&b, " %s/%s (%s)", S(cause, "class"), S(cause, "subclass"), S(v, "confidence"));
	put(&b, "\n");
	if (json_is_object(cause))
		put(&b, "  cause:      %s\n", S(cause, "summary"));
	put(&b, "  origin:     nodes ");
	hosts(&b, json_object_get(json_object_get(v, "origin"), "nodes"));
	put(&b, "  ranks ");
	list(&b, json_object_get(json_object_get(v, "origin"), "ranks"));
	if (json_array_size(json_object_get(json_object_get(v, "origin"), "gpus"))) {
		put(&b, "  gpus ");
		list(&b, json_object_get(json_object_get(v, "origin"), "gpus"));
	}
	put(&b, "\n  bystanders: nodes ");
	list(&b, json_object_get(json_object_get(v, "bystanders"), "nodes"));
	put(&b, "  ranks ");
	list(&b, json_object_get(json_object_get(v, "bystanders"), "ranks"));
	put(&b, "\n");
	if (json_is_object(json_object_get(v, "ambiguity"))) {
		put(&b, "  ambiguous between:\n");
		json_array_foreach(json_object_get(json_object_get(v, "ambiguity"), "explanations"),
				   i, x) put(&b, "    - %s\n", json_string_value(x));
		put(&b, "  to tell them apart: %s\n", S(json_object_get(v, "ambiguity"), "test"));
	}
	put(&b, "\nwhy:\n");
	json_array_foreach(json_object_get(v, "why"), i, x)
		put(&b, "  %zu. %s\n", i + 1, json_string_value(x));

	put(&b,
	    "\ntimeline (event time; * origin; first error per node, then the rest counted):\n");
	{
		/* every origin line, and the first cascade or teardown of each node */
		const char *seen[64];
		size_t nseen = 0, hidden = 0;
		json_array_foreach(json_object_get(v, "evidence"), i, x)
		{
			const char *role = S(x, "role"),
				   *node = json_is_string(json_object_get(x, "node")) ?
						   S(x, "node") :
						   "?";
			bool origin = !strcmp(role, "origin"), first = true;
			if (!json_is_string(json_object_get(x, "event_time")))
				continue;
			if (!origin && strcmp(role, "cascade") && strcmp(role, "teardown"))
				continue;
			for (size_t k = 0; k < nseen; k++)
				if (!strcmp(seen[k], node))
					first = false;
			if ((!origin && !first) || shown >= 20) {
				hidden++;
				continue;
			}
			if (first && nseen < 64)
				seen[nseen++] = node;
			put(&b, "  %s %c %-10s %-10s %-9s", S(x, "event_time"), origin ? '*' : ' ',
			    node, S(x, "source"), role);
			put_rank(&b, x);
			put(&b, " %s", S(x, "summary"));
			if (json_integer_value(json_object_get(x, "repeats")))
				put(&b, " (+%lld more)",
				    (long long)json_integer_value(json_object_get(x, "repeats")));
			put(&b, "\n");
			shown++;
		}
		if (hidden)
			put(&b, "  ... and %zu later consequences on nodes already shown\n",
			    hidden);
		/* origin lines without a stamp still belong on the page, marked as such */
		json_array_foreach(json_object_get(v, "evidence"), i, x)
		{
			if (json_is_string(json_object_get(x, "event_time")) ||
			    strcmp(S(x, "role"), "origin"))
				continue;
			put(&b, "  %-24s * %-10s %-10s %-9s", "(no time stamp)",
			    json_is_string(json_object_get(x, "node")) ? S(x, "node") : "?",
			    S(x, "source"), "origin");
			put_rank(&b, x);
			put(&b, " %s\n", S(x, "summary"));
			shown++;
		}
	}
	if (!shown)
		put(&b, "  (no dated events)\n");
	if (json_is_object(cause)) {
		const json_t *lead = json_array_get(json_object_get(v, "candidates"), 0);
		put(&b, "\nevidence for the cause:\n");
		json_array_foreach(json_object_get(lead, "supporting"), i, x)
		{
			const json_t *e = find_ev(v, json_string_value(x));
			if (!e || i >= 6)
				continue;
			put(&b, "  %s %s [%s] %s (byte %lld)\n      %s\n", S(e, "id"), S(e, "rule"),
			    S(e, "source"), S(e, "file"),
			    (long long)json_integer_value(json_object_get(e, "offset")),
			    S(e, "line"));
		}
	}
	coverage_text(&b, v);
	if (json_is_object(dec))
		decision_text(&b, dec);
	put(&b, "\nrules %s %s %s\n", S(json_object_get(v, "ruleset"), "id"),
	    S(json_object_get(v, "ruleset"), "version"),
	    S(json_object_get(v, "ruleset"), "digest"));
	if (b.oom) {
		free(b.s);
		errno = ENOMEM;
		return NULL;
	}
	return b.s;
}

/* ---- the comment line ---- */

char *pm_verdict_comment(const json_t *v)
{
	const json_t *cause = json_object_get(v, "cause"), *job = json_object_get(v, "job");
	const json_t *origin = json_object_get(v, "origin");
	const json_t *cont = json_object_get(json_object_get(v, "decision"), "containment");
	char org[128] = "", *out = malloc(PM_COMMENT_MAX + 1);
	size_t n = 0, i;
	json_t *x;

	if (!out)
		return NULL;
	json_array_foreach(json_object_get(origin, "nodes"), i, x)
	{
		if (n + strlen(json_string_value(x)) + 8 >= sizeof(org)) {
			snprintf(org + n, sizeof(org) - n, ",+%zu",
				 json_array_size(json_object_get(origin, "nodes")) - i);
			n = strlen(org);
			break;
		}
		n += (size_t)snprintf(org + n, sizeof(org) - n, "%s%s", i ? "," : "",
				      json_string_value(x));
	}
	if (json_array_size(json_object_get(origin, "ranks")) &&
	    json_array_size(json_object_get(origin, "ranks")) <= 4 && n + 24 < sizeof(org)) {
		n += (size_t)snprintf(org + n, sizeof(org) - n, ":");
		json_array_foreach(json_object_get(origin, "ranks"), i, x)
			n += (size_t)snprintf(org + n, sizeof(org) - n, "%s%lld", i ? "," : "",
					      (long long)json_integer_value(x));
	}
	snprintf(out, PM_COMMENT_MAX + 1,
		 "postmortem: %s %s%s%s origin=%s conf=%s act=%s ev=%s/%s/%lld", S(v, "status"),
		 json_is_object(cause) ? S(cause, "class") : "-", json_is_object(cause) ? "/" : "",
		 json_is_object(cause) ? S(cause, "subclass") : "", org[0] ? org : "-",
		 json_is_string(json_object_get(v, "confidence")) ? S(v, "confidence") : "-",
		 S(cont, "id"),
		 json_is_string(json_object_get(job, "cluster")) ? S(job, "cluster") : "-",
		 S(job, "id"), (long long)json_integer_value(json_object_get(job, "restart")));
	return out;
}
