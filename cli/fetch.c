/*
 * fetch.c - `postmortem fetch JOB -o DIR [--store DIR] [--cluster C] [--restart N]
 * [--config FILE]`: copy a job run's node bundles, manifest, verdict and Slurm record into
 * DIR, each checked against the manifest's sha256.  Exit 0 copied, 1 not, 2 usage.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "finalize.h"

#define USAGE                                                                   \
	"usage: %s fetch JOB -o DIR [--store DIR] [--cluster C] [--restart N] " \
	"[--config FILE]\n"

int cmd_fetch(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		CLI_WHERE_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	struct cli_where w = {0};
	struct cli_run r;
	const char *out = NULL;
	struct pm_fetch_result res;
	char err[768];
	int c, rc = 1;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:" CLI_WHERE_SHORTOPTS, opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		default:
			if (cli_where_opt(&w, c, optarg))
				break;
			fprintf(stderr, USAGE, prog);
			return 2;
		}
	}
	if (optind != argc - 1 || !out) {
		fprintf(stderr, USAGE, prog);
		return 2;
	}
	if (cli_run_open(&r, &w, argv[optind], NULL, NULL) < 0)
		goto out;
	if (pm_jobdir_fetch(r.dir, out, &res, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s: job %s: %s\n", prog, argv[optind], err);
		goto out;
	}
	printf("job %s: %zu file(s) into %s, %zu verified against the manifest", argv[optind],
	       res.files, out, res.verified);
	if (res.unverified)
		printf(", %zu arrived after the last merge (not verified)", res.unverified);
	printf("\nre-run the diagnosis with: postmortem diagnose %s/nodes %s/sacct.txt\n", out,
	       out);
	rc = fflush(stdout) == 0 ? 0 : 1;
out:
	cli_run_close(&r);
	return rc;
}
