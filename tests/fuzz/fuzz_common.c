/*
 * fuzz_common.c - helpers shared by the fuzz targets (fuzz.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

#ifndef PM_SRCRULES
#define PM_SRCRULES "rules"
#endif

static struct pm_ruleset *rules;
static char tmpdir[4096];

void fz_bound_input(void)
{
	/* 1 MiB (the lowest bound) instead of 1 GiB: a decompression bomb is cut at the bound
	 * in milliseconds, where reading up to the default would time the fuzzer out */
	setenv("POSTMORTEM_INPUT_MAX", "1M", 0);
}

const char *fz_rules_dir(void)
{
	const char *d = getenv("PM_RULES");

	return d && *d ? d : PM_SRCRULES;
}

static void drop_rules(void)
{
	pm_ruleset_destroy(rules);
	rules = NULL;
}

const struct pm_ruleset *fz_rules(void)
{
	char err[512] = "";

	if (rules)
		return rules;
	rules = pm_ruleset_load(fz_rules_dir(), err, sizeof(err));
	if (!rules) {
		fprintf(stderr, "fuzz: cannot load rules %s: %s\n", fz_rules_dir(), err);
		exit(2);
	}
	atexit(drop_rules);
	return rules;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static void drop_tmpdir(void)
{
	if (tmpdir[0])
		nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	tmpdir[0] = '\0';
}

const char *fz_tmpdir(void)
{
	const char *base = getenv("TMPDIR");

	if (tmpdir[0])
		return tmpdir;
	snprintf(tmpdir, sizeof(tmpdir), "%s/pmfuzz.XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(tmpdir)) {
		fprintf(stderr, "fuzz: mkdtemp %s: %s\n", tmpdir, strerror(errno));
		exit(2);
	}
	atexit(drop_tmpdir);
	return tmpdir;
}

void fz_write(const char *dir, const char *name, const void *buf, size_t len, char *path,
	      size_t plen)
{
	const char *p = buf;
	int fd;

	snprintf(path, plen, "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		goto fail;
	while (len > 0) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			close(fd);
			goto fail;
		}
		p += w;
		len -= (size_t)w;
	}
	if (close(fd) == 0)
		return;
fail:
	fprintf(stderr, "fuzz: write %s: %s\n", path, strerror(errno));
	exit(2);
}

void fz_diagnose(struct pm_evidence *ev)
{
	char err[512];
	json_t *v = pm_diagnose(ev, err, sizeof(err));

	if (v) {
		free(pm_verdict_dump(v));
		free(pm_verdict_text(v));
		free(pm_verdict_comment(v));
		json_decref(v);
	}
}
