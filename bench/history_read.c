/*
 * history_read.c - how long the node history (store/history.h) takes to read: one node's
 * recent history as a finalizer reads it (pm_history_gather: the ledger's refutations, then the
 * node's records in the policy's window), one node's records alone (pm_history_node), and
 * every node's (pm_history_fleet, what `postmortem nodes` draws).
 *
 * usage: history_read STORE [NODE] [NOW] [REPS]
 * (bench/gen_history.py makes a store; NODE default gpu10000, its hot node; NOW default
 * 1796600000, the generator's.)  Wall time, warm cache, median of REPS (default 51) runs for a
 * node and 5 for the fleet; never a test assertion.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "history.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int count(const struct pm_history_rec *r, void *arg)
{
	(void)r;
	++*(size_t *)arg;
	return 0;
}

struct fleet {
	size_t nodes, recs, justified;
	const struct pm_history_policy *pol;
};

static int fleet_one(const char *node, const struct pm_history_rec *r, size_t n, void *arg)
{
	struct fleet *f = arg;

	(void)node;
	f->nodes++;
	f->recs += n;
	f->justified += pm_history_justified(r, n, NULL, f->pol, NULL);
	return 0;
}

int main(int argc, char **argv)
{
	const char *store = argc > 1 ? argv[1] : NULL, *node = argc > 2 ? argv[2] : "gpu10000";
	double now = argc > 3 ? atof(argv[3]) : 1796600000.0;
	int reps = argc > 4 ? atoi(argv[4]) : 51;
	double *t = calloc((size_t)(reps > 5 ? reps : 5), sizeof(*t));
	struct pm_history_policy pol;
	char ledger[4096], err[512] = "", **refuted;
	size_t n = 0;
	struct fleet f = {0};
	json_t *v;

	if (!store || !t || reps < 1) {
		fprintf(stderr, "usage: history_read STORE [NODE] [NOW] [REPS]\n");
		return 2;
	}
	pm_history_policy_default(&pol);
	snprintf(ledger, sizeof(ledger), "%s/ledger.jsonl", store);
	/* a verdict blaming NODE from its kernel log, as the finalizer has it */
	v = json_pack("{s:s,s:{s:s,s:s},s:s,s:{s:[s]},s:[{s:s,s:b,s:s,s:s}],s:{s:{s:b}},s:s}",
		      "status", "attributed", "cause", "class", "gpu_hardware", "subclass",
		      "gpu_lost", "confidence", "established", "origin", "nodes", node, "evidence",
		      "role", "origin", "trusted", 1, "node", node, "class", "gpu_hardware",
		      "decision", "repair", "justified", 0, "input_digest", "sha256:00");
	for (int i = 0; i < reps; i++) {
		struct pm_history_rec *r = NULL;
		double a = now_s();
		if (pm_history_gather(store, ledger, v, "bench/1/0", now, &pol, &r, &n, err,
				      sizeof(err)) < 0) {
			fprintf(stderr, "history_read: %s\n", err);
			return 1;
		}
		t[i] = now_s() - a;
		free(r);
	}
	qsort(t, (size_t)reps, sizeof(*t), cmp);
	printf("gather %s (ledger + %gd window): %zu records used, median %.3f ms, max %.3f ms\n",
	       node, pol.window / 86400, n, t[reps / 2] * 1e3, t[reps - 1] * 1e3);
	refuted = pm_history_refuted(ledger);
	for (int i = 0; i < reps; i++) {
		double a = now_s();
		n = 0;
		pm_history_node(store, node, now - pol.window, 0, now, refuted, count, &n, err,
				sizeof(err));
		t[i] = now_s() - a;
	}
	qsort(t, (size_t)reps, sizeof(*t), cmp);
	printf("node %s (7d): %zu records, median %.3f ms, max %.3f ms\n", node, n,
	       t[reps / 2] * 1e3, t[reps - 1] * 1e3);
	f.pol = &pol;
	for (int i = 0; i < 5; i++) {
		double a = now_s();
		f.nodes = f.recs = f.justified = 0;
		if (pm_history_fleet(store, now - pol.window, 0, now, refuted, fleet_one, &f, err,
				     sizeof(err)) < 0) {
			fprintf(stderr, "history_read: %s\n", err);
			return 1;
		}
		t[i] = now_s() - a;
	}
	qsort(t, 5, sizeof(*t), cmp);
	printf("fleet (7d): %zu nodes, %zu records, %zu repairs justified, median %.3f s, "
	       "max %.3f s\n",
	       f.nodes, f.recs, f.justified, t[2], t[4]);
	pm_history_strv_free(refuted);
	json_decref(v);
	free(t);
	return 0;
}
