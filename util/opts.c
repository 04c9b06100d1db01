/*
 * opts.c - pmutil.h's option parser: a table of what each option sets, walked by
 * getopt_long, so that every command parses its options with one loop.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>

#include "pmutil.h"

/* getopt's value for entry I: its letter, or one past every letter for a long-only one. */
static int val_of(const struct pmu_opt *o, size_t i)
{
	return o[i].letter ? o[i].letter : 256 + (int)i;
}

static int take(const struct pmu_opt *o, const char *arg)
{
	if (o->fn)
		return o->fn(o, arg);
	if (o->arg)
		*(const char **)o->dst = arg;
	else
		*(bool *)o->dst = true;
	return 0;
}

int pmu_opts_parse(int argc, char **argv, int first, const struct pmu_opt *opts, size_t n)
{
	struct option *lo = calloc(n + 1, sizeof(*lo));
	char *so = calloc(2 * n + 1, 1);
	size_t k = 0;
	int c, rc = 0;

	if (!lo || !so) {
		rc = -1;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		lo[i] = (struct option){opts[i].name, opts[i].arg ? required_argument : no_argument,
					NULL, val_of(opts, i)};
		if (opts[i].letter) {
			so[k++] = (char)opts[i].letter;
			if (opts[i].arg)
				so[k++] = ':';
		}
	}
	optind = first;
	while (!rc && (c = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		size_t i = 0;
		while (i < n && val_of(opts, i) != c)
			i++;
		rc = i < n ? take(&opts[i], optarg) : -1;
	}
out:
	free(lo);
	free(so);
	return rc;
}
