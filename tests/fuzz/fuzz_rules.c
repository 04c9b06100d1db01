/*
 * fuzz_rules.c - the rule loader: the input is one rule file (rules.yaml) in a rule set folder
 * beside the bundled ruleset.yaml.  A set that loads is then used once on a small fixed
 * evidence set, so that odd patterns, captures and summaries reach the scanner and the
 * verdict too.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static char dir[4200];

static const char sample_kernel[] =
	"[ 1234.567890] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.\n"
	"[ 1235.000001] mce: [Hardware Error]: Machine check events logged\n";
static const char sample_app[] =
	"0: [rank0]: Traceback (most recent call last):\n"
	"0: [rank0]: RuntimeError: CUDA error: an illegal memory access was encountered\n"
	"1: gpu017:4242:4301 [1] NCCL WARN NET/IB : Got completion from peer 10.1.0.12<4242>"
	" with status=12 opcode=0 len=0 vendor err 129\n"
	"2026-11-30T03:40:01.002Z step 10 loss 1.25\n"
	"slurmstepd: error: *** JOB 4242 ON gpu017 CANCELLED AT 2026-11-30T03:41:00 DUE TO TIME LIMIT ***\n";

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char src[4200], path[4300];
	FILE *f;
	char *buf;
	long n;

	snprintf(dir, sizeof(dir), "%s/rules", fz_tmpdir());
	snprintf(src, sizeof(src), "%s/ruleset.yaml", fz_rules_dir());
	f = fopen(src, "rb");
	if (!f || fseek(f, 0, SEEK_END) < 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) < 0 ||
	    !(buf = malloc((size_t)n + 1)) || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "fuzz_rules: cannot read %s\n", src);
		exit(2);
	}
	fclose(f);
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		fprintf(stderr, "fuzz_rules: mkdir %s: %s\n", dir, strerror(errno));
		exit(2);
	}
	fz_write(dir, "ruleset.yaml", buf, (size_t)n, path, sizeof(path));
	free(buf);
	return 0;
}

static void use(const struct pm_ruleset *rs)
{
	struct pm_evidence *ev = pm_evidence_create(rs);

	for (size_t i = 0; i < pm_ruleset_count(rs); i++)
		if (!pm_ruleset_rule_id(rs, i))
			abort();
	if (!ev)
		return;
	pm_evidence_add_buffer(ev, "gpu017/kernel.log", sample_kernel, sizeof(sample_kernel) - 1,
			       "kernel_log", "gpu017", 1796010100.0);
	pm_evidence_add_buffer(ev, "slurm-4242.out", sample_app, sizeof(sample_app) - 1, NULL, NULL,
			       1796010100.0);
	fz_diagnose(ev);
	pm_evidence_destroy(ev);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pm_ruleset *rs;
	char path[4300], err[512];

	fz_write(dir, "rules.yaml", data, size, path, sizeof(path));
	err[0] = '\0';
	rs = pm_ruleset_load(dir, err, sizeof(err));
	if (!memchr(err, '\0', sizeof(err)))
		abort();
	if (rs) {
		if (!pm_ruleset_id(rs) || !pm_ruleset_version(rs) || !pm_ruleset_digest(rs))
			abort();
		use(rs);
	}
	pm_ruleset_destroy(rs);
	return 0;
}
