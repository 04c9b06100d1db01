/*
 * check_collector.c - the node collector (epilog/): configuration and its file:line errors,
 * durations and sizes, %n/%j and Slurm's filename patterns, a hung command killed at its
 * timeout (and the whole collector inside its deadline), head and tail capping, the
 * user-rights reader refusing links to root's files, redaction before anything is written,
 * the bundle read back by the engine and refused once a byte is flipped, per-file coverage of
 * cut captures, the store's permissions and spool fallback, and a root_squash store written
 * as the service user, a fetched copy private to the caller whatever the umask, and the Slurm
 * record of the job's own owner when its number was used before.  Tests that need root skip
 * themselves otherwise.
 *
 * This file holds the shared helpers (check_collector.h) and the suite; the tests are in
 * check_collector_collect.c (configuration, the job, collecting), check_collector_bundle.c
 * and check_collector_store.c.
 */

#include <archive.h>
#include <archive_entry.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <jansson.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/acl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "collector.h"
#include "finalize.h"
#include "finalize_int.h"
#include "postmortem.h"
#include "support.h"
#include "check_collector.h"

char tmp[256];

void setup(void)
{
	snprintf(tmp, sizeof(tmp), "/tmp/pmcol.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	chmod(tmp, 0755);
}

void teardown(void)
{
	pmt_rmtree(tmp);
}

const char *write_file(const char *rel, const char *text, mode_t mode)
{
	const char *p = pmt_path(tmp, rel);
	FILE *f = fopen(p, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	chmod(p, mode);
	return p;
}

/* ---- the job ---- */

void slurm_env(const char *out, const char *err)
{
	static const char *const clear[] = {"SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID",
					    "SLURM_JOB_RESTART_COUNT", "SLURM_JOB_STDOUT",
					    "SLURM_JOB_STDERR"};

	for (size_t i = 0; i < sizeof(clear) / sizeof(clear[0]); i++)
		unsetenv(clear[i]);
	setenv("SLURM_JOB_ID", "4242", 1);
	setenv("SLURMD_NODENAME", "n1", 1);
	setenv("SLURM_CLUSTER_NAME", "lab", 1);
	setenv("SLURM_JOB_USER", "nobody", 1);
	setenv("SLURM_JOB_UID", "65534", 1);
	setenv("SLURM_JOB_GID", "65534", 1);
	setenv("SLURM_JOB_WORK_DIR", tmp, 1);
	setenv("SLURM_NODELIST", "n[1-2]", 1);
	setenv("SLURM_JOB_EXIT_CODE", "256", 1);
	if (out)
		setenv("SLURM_JOB_STDOUT", out, 1);
	if (err)
		setenv("SLURM_JOB_STDERR", err, 1);
}

/* ---- collecting ---- */

void only(struct pm_config *c, enum pm_csource keep)
{
	for (int i = 0; i < PM_CS__COUNT; i++)
		c->src[i].enabled = i == (int)keep;
}

void set_cmd(struct pm_config *c, enum pm_csource s, const char *cmd, double timeout)
{
	free(c->src[s].command);
	c->src[s].command = strdup(cmd);
	c->src[s].timeout = timeout;
	for (size_t i = 0; c->src[s].paths && c->src[s].paths[i]; i++)
		free(c->src[s].paths[i]);
	free(c->src[s].paths);
	c->src[s].paths = NULL;
}

void set_path(struct pm_config *c, enum pm_csource s, const char *path)
{
	set_cmd(c, s, "unused", c->src[s].timeout);
	free(c->src[s].command);
	c->src[s].command = NULL;
	c->src[s].paths = calloc(2, sizeof(char *));
	c->src[s].paths[0] = strdup(path);
}

void load_job(struct pm_job *j, const char *spool)
{
	char err[256];

	ck_assert_msg(pm_job_init(j, NULL, NULL, spool, err, sizeof(err)) == 0, "%s", err);
}

const struct pm_capture *cap_of(const struct pm_collection *c, enum pm_csource s, const char *name)
{
	for (size_t i = 0; i < c->ncaps; i++)
		if (c->caps[i].src == s &&
		    (!name || (c->caps[i].name && !strcmp(c->caps[i].name, name)) ||
		     (c->caps[i].origin && strstr(c->caps[i].origin, name))))
			return &c->caps[i];
	return NULL;
}

/* ---- bundles ---- */

/* Read member NAME of bundle PATH; the first member's name into FIRST. */
char *member(const char *path, const char *name, char *first, size_t flen)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	char *out = NULL;
	bool at_first = true;

	archive_read_support_filter_zstd(a);
	archive_read_support_format_tar(a);
	ck_assert_int_eq(archive_read_open_filename(a, path, 65536), ARCHIVE_OK);
	while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
		if (at_first && first)
			snprintf(first, flen, "%s", archive_entry_pathname(e));
		at_first = false;
		if (!strcmp(archive_entry_pathname(e), name)) {
			size_t n = (size_t)archive_entry_size(e);
			out = calloc(1, n + 1);
			ck_assert_int_eq(archive_read_data(a, out, n), (la_ssize_t)n);
		}
	}
	archive_read_free(a);
	return out;
}

void save(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
	fclose(f);
}

/* A collection with a command, a /proc file and a planted secret. */
void sample(struct pm_config *cfg, struct pm_job *j, struct pm_collection *c)
{
	char err[64];

	slurm_env(NULL, NULL);
	load_job(j, NULL);
	ck_assert_int_eq(pm_config_load(NULL, cfg, err, sizeof(err)), 0);
	for (int i = 0; i < PM_CS__COUNT; i++)
		cfg->src[i].enabled = false;
	cfg->src[PM_CS_GPU_STATE].enabled = cfg->src[PM_CS_HOST_STATE].enabled = true;
	cfg->src[PM_CS_KERNEL_LOG].enabled = true;
	set_cmd(cfg, PM_CS_GPU_STATE,
		"printf 'export AWS_ACCESS_KEY_ID=" AWS_KEY "\\nGPU 0: ok\\n'", 5);
	set_cmd(cfg, PM_CS_KERNEL_LOG,
		"printf '2026-11-30T03:11:58,002000+00:00 NVRM: Xid (PCI:0000:3b:00): 79\\n'", 5);
	set_path(cfg, PM_CS_HOST_STATE, "/proc/meminfo");
	ck_assert_int_eq(pm_collect(cfg, j, pm_mono() + 5, c), 0);
}

Suite *pmt_suite(void)
{
	Suite *s = suite_create("collector");
	TCase *t = tcase_create("collector");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_set_timeout(t, 60);
	collector_collect_tests(t);
	collector_bundle_tests(t);
	collector_store_tests(t);
	collector_carry_tests(t);
	suite_add_tcase(s, t);
	return s;
}
