/*
 * support.c - the check suites' shared main() and file helpers (support.h).
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "support.h"

/* Every suite's program: run each test of the suite its file builds (CK_NORMAL). */
int main(void)
{
	SRunner *sr = srunner_create(pmt_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

void pmt_mk(const char *root, const char *rel, const char *text)
{
	char p[512], *slash;
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (slash = strchr(p + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(p, 0755);
		*slash = '/';
	}
	f = fopen(p, "wb");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

void pmt_put(const char *dir, const char *name, const char *text, mode_t mode)
{
	char p[1024];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	ck_assert_msg((f = fopen(p, "w")) != NULL, "%s: %s", p, strerror(errno));
	fputs(text, f);
	fclose(f);
	chmod(p, mode);
}

char *pmt_get(const char *dir, const char *name)
{
	char p[1024], chunk[65536], *buf = NULL;
	size_t len = 0, n;
	FILE *f, *m;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	if (!(f = fopen(p, "r")))
		return NULL;
	ck_assert_ptr_nonnull(m = open_memstream(&buf, &len));
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, n, m);
	fclose(m);
	fclose(f);
	return buf;
}

json_t *pmt_load(const char *dir, const char *name)
{
	char *s = pmt_get(dir, name);
	json_t *j;

	ck_assert_msg(s != NULL, "%s/%s missing", dir, name);
	j = json_loads(s, 0, NULL);
	free(s);
	ck_assert_ptr_nonnull(j);
	return j;
}

bool pmt_there(const char *dir, const char *name)
{
	char p[1024];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return lstat(p, &st) == 0;
}

char *pmt_path(const char *root, const char *rel)
{
	static char p[8][512];
	static int k;
	char *s = p[k++ % 8];

	snprintf(s, 512, "%s/%s", root, rel);
	return s;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

void pmt_rmtree(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}
