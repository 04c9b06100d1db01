/*
 * show.c - `postmortem show JOB [--json] [--timeline] [--store DIR] [--cluster C]
 * [--restart N] [--config FILE]`: the stored verdict of a job run, for its owner, the
 * operators' group and root.  Exit 0 shown, 1 not (no such job, refused, no verdict), 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "finalize.h"

#define USAGE                                                                   \
	"usage: %s show JOB [--json] [--timeline] [--store DIR] [--cluster C] " \
	"[--restart N] [--config FILE]\n"

static const char *S(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "-";
}

static int by_time(const void *a, const void *b)
{
	const json_t *x = *(const json_t *const *)a, *y = *(const json_t *const *)b;
	const char *tx = json_string_value(json_object_get(x, "event_time"));
	const char *ty = json_string_value(json_object_get(y, "event_time"));

	if (!tx || !ty)
		return !tx - !ty; /* undated last */
	return strcmp(tx, ty);	  /* same format throughout: text order is time order */
}

/* Every piece of evidence, dated ones in time order, then the undated ones. */
static void timeline(const json_t *v)
{
	const json_t *evs = json_object_get(v, "evidence"), **e;
	size_t n = json_array_size(evs);

	printf("timeline of job %s (event time; * origin, ~ cascade, - teardown):\n",
	       S(json_object_get(v, "job"), "id"));
	if (!n || !(e = calloc(n, sizeof(*e)))) {
		printf("  (no evidence)\n");
		return;
	}
	for (size_t i = 0; i < n; i++)
		e[i] = json_array_get(evs, i);
	qsort(e, n, sizeof(*e), by_time);
	for (size_t i = 0; i < n; i++) {
		const char *role = S(e[i], "role");
		const json_t *rank = json_object_get(e[i], "rank");
		char r[24] = "";

		if (json_is_integer(rank))
			snprintf(r, sizeof(r), "rank %lld", (long long)json_integer_value(rank));
		printf("  %-24s %c %-4s %-12s %-11s %-9s %s: %.160s\n",
		       json_is_string(json_object_get(e[i], "event_time")) ? S(e[i], "event_time") :
									     "(no time)",
		       !strcmp(role, "origin")	 ? '*' :
		       !strcmp(role, "cascade")	 ? '~' :
		       !strcmp(role, "teardown") ? '-' :
						   ' ',
		       S(e[i], "id"),
		       json_is_string(json_object_get(e[i], "node")) ? S(e[i], "node") : "?",
		       S(e[i], "source"), r, S(e[i], "rule"), S(e[i], "line"));
	}
	free(e);
}

static void header(const json_t *m)
{
	const json_t *missing = json_object_get(json_object_get(m, "nodes"), "missing"), *x;
	size_t i;

	if (json_is_true(json_object_get(m, "provisional")))
		printf("PROVISIONAL: not every node has reported yet; this verdict may change\n");
	json_array_foreach(missing, i, x)
		printf("missing input: node %s: %s\n", S(x, "node"), S(x, "reason"));
	if (json_array_size(missing) || json_is_true(json_object_get(m, "provisional")))
		putchar('\n');
}

static void footer(const json_t *m, const char *dir, const char *job)
{
	const json_t *h = json_object_get(m, "history");

	if (json_array_size(h))
		printf("\nchanged %zu time(s); last: %s\n", json_array_size(h),
		       S(json_array_get(h, json_array_size(h) - 1), "why"));
	printf("\nevidence: %s (kept until %s)\n  postmortem fetch %s -o DIR\n", dir,
	       S(m, "expires"), job);
}

static int show(const char *dir, const char *job, const json_t *m, bool json, bool tl)
{
	char *text = NULL, err[768];
	size_t len;
	json_error_t je;
	json_t *v = NULL;
	int rc = 1;

	if (pm_jobdir_read(dir, "verdict.json", &text, &len, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s: job %s: %s\n", prog, job, err);
		return 1;
	}
	if (json) {
		fwrite(text, 1, len, stdout);
		rc = 0;
		goto out;
	}
	if (!(v = json_loadb(text, len, 0, &je))) {
		fprintf(stderr, "%s: %s/verdict.json:%d: %s\n", prog, dir, je.line, je.text);
		goto out;
	}
	if (tl) {
		timeline(v);
	} else {
		char *t = pm_verdict_text(v);
		if (!t) {
			fprintf(stderr, "%s: out of memory\n", prog);
			goto out;
		}
		header(m);
		fputs(t, stdout);
		free(t);
		footer(m, dir, job);
	}
	rc = 0;
out:
	json_decref(v);
	free(text);
	return fflush(stdout) == 0 ? rc : 1;
}

int cmd_show(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"timeline", no_argument, NULL, 't'},
		{"store", required_argument, NULL, 's'},
		{"cluster", required_argument, NULL, 'C'},
		{"restart", required_argument, NULL, 'r'},
		{"config", required_argument, NULL, 'c'},
		{NULL, 0, NULL, 0},
	};
	const char *store = NULL, *cluster = NULL, *restart = NULL, *config = NULL;
	bool json = false, tl = false;
	struct pm_config cfg;
	char dir[4096], err[768];
	json_t *m = NULL;
	int c, rc = 1;

	optind = 1;
	while ((c = getopt_long(argc, argv, "jts:C:r:c:", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 't':
			tl = true;
			break;
		case 's':
			store = optarg;
			break;
		case 'C':
			cluster = optarg;
			break;
		case 'r':
			restart = optarg;
			break;
		case 'c':
			config = optarg;
			break;
		default:
			fprintf(stderr, USAGE, prog);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, USAGE, prog);
		return 2;
	}
	if (cli_load_config(config, store, &cfg) < 0)
		return 1;
	if (cli_jobdir(&cfg, argv[optind], cluster, restart, dir, sizeof(dir)) < 0)
		goto out;
	if (!(m = pm_manifest_load(dir, err, sizeof(err)))) {
		fprintf(stderr, "%s: job %s: %s\n", prog, argv[optind], err);
		goto out;
	}
	if (cli_access_check(&cfg, argv[optind], m) < 0)
		goto out;
	if (json_is_null(json_object_get(m, "verdict"))) {
		fprintf(stderr,
			"%s: job %s has no verdict: its evidence gave nothing to diagnose "
			"(see %s/manifest.json)\n",
			prog, argv[optind], dir);
		goto out;
	}
	rc = show(dir, argv[optind], m, json, tl);
out:
	json_decref(m);
	pm_config_free(&cfg);
	return rc;
}
