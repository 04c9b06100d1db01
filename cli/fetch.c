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
		{"store", required_argument, NULL, 's'},
		{"cluster", required_argument, NULL, 'C'},
		{"restart", required_argument, NULL, 'r'},
		{"config", required_argument, NULL, 'c'},
		{NULL, 0, NULL, 0},
	};
	const char *store = NULL, *cluster = NULL, *restart = NULL, *config = NULL, *out = NULL;
	struct pm_fetch_result r;
	struct pm_config cfg;
	char dir[4096], err[768];
	json_t *m = NULL;
	int c, rc = 1;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:s:C:r:c:", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
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
	if (optind != argc - 1 || !out) {
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
	if (pm_jobdir_fetch(dir, out, &r, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s: job %s: %s\n", prog, argv[optind], err);
		goto out;
	}
	printf("job %s: %zu file(s) into %s, %zu verified against the manifest", argv[optind],
	       r.files, out, r.verified);
	if (r.unverified)
		printf(", %zu arrived after the last merge (not verified)", r.unverified);
	printf("\nre-run the diagnosis with: postmortem diagnose %s/nodes %s/sacct.txt\n", out,
	       out);
	rc = fflush(stdout) == 0 ? 0 : 1;
out:
	json_decref(m);
	pm_config_free(&cfg);
	return rc;
}
