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
	struct cli_where w = {0};
	struct cli_run r;
	const char *out = NULL;
	const struct pmu_opt opts[] = {
		{"output", 'o', true, &out, NULL},
		CLI_WHERE_OPTS(&w),
	};
	struct pm_fetch_result res;
	char err[768];
	int rc = 1;

	if (pmu_opts_parse(argc, argv, 1, opts, PMU_NELEM(opts)) || optind != argc - 1 || !out) {
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
