/*
 * support.h - what the check suites share: their main(), small file helpers for a
 * test's temporary folder, and (support_bundle.c, libarchive) a node bundle writer.
 * Every helper fails the running test (ck_assert) rather than returning an error.
 */
#ifndef PM_TEST_SUPPORT_H
#define PM_TEST_SUPPORT_H

#include <check.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * The suite of the program's tests, which each suite's file defines: main() (support.c) runs
 * all of it and exits EXIT_SUCCESS when none failed.
 */
Suite *pmt_suite(void);

/* Write TEXT to ROOT/REL, making the folders below ROOT that REL names (mode 0755). */
void pmt_mk(const char *root, const char *rel, const char *text);

/* Write TEXT to DIR/NAME and give it MODE (whatever the umask). */
void pmt_put(const char *dir, const char *name, const char *text, mode_t mode);

/* DIR/NAME's contents, NUL-terminated and malloc'd, or NULL when it cannot be read. */
char *pmt_get(const char *dir, const char *name);

/* DIR/NAME parsed as JSON (the test fails when it is missing or not JSON); the caller's. */
json_t *pmt_load(const char *dir, const char *name);

/* Whether DIR/NAME exists (lstat: a link counts, dangling or not). */
bool pmt_there(const char *dir, const char *name);

/* ROOT/REL, in one of eight rotating static buffers: a call may hold eight paths at once. */
char *pmt_path(const char *root, const char *rel);

/* Remove DIR and everything below it (links are removed, never followed). */
void pmt_rmtree(const char *dir);

/* One member of a bundle. */
struct pmt_member {
	const char *name;
	const void *data;
	size_t len;
};

/*
 * Write DIR/nodes/NODE.tar.zst as the collector does: a zstd pax archive of manifest.json
 * (MANIFEST) and the N members M, mode 0640 each, written under a temporary name and renamed
 * into place.  MTIME > 0 gives the archive that modification time before the rename.
 */
void pmt_bundle(const char *dir, const char *node, const char *manifest, const struct pmt_member *m,
		size_t n, double mtime);

#endif
