/*
 * support_bundle.c - a node bundle for the store tests (support.h), written as the
 * collector writes one; apart from support.c so that suites without libarchive do not
 * link it.
 */
#include <archive.h>
#include <archive_entry.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>

#include "support.h"

static void member(struct archive *a, const char *name, const void *data, size_t len)
{
	struct archive_entry *e = archive_entry_new();

	archive_entry_set_pathname(e, name);
	archive_entry_set_size(e, (la_int64_t)len);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0640);
	ck_assert_int_eq(archive_write_header(a, e), ARCHIVE_OK);
	ck_assert_int_eq(archive_write_data(a, data, len), (la_ssize_t)len);
	archive_entry_free(e);
}

void pmt_bundle(const char *dir, const char *node, const char *manifest, const struct pmt_member *m,
		size_t n, double mtime)
{
	char p[1200], tmp[1200];
	struct archive *a = archive_write_new();

	snprintf(p, sizeof(p), "%s/nodes", dir);
	mkdir(p, 0755);
	chmod(p, 0755); /* whatever the umask: a test may read the store as another user */
	snprintf(tmp, sizeof(tmp), "%s/nodes/.%s.tmp", dir, node);
	archive_write_add_filter_zstd(a);
	archive_write_set_format_pax_restricted(a);
	ck_assert_int_eq(archive_write_open_filename(a, tmp), ARCHIVE_OK);
	member(a, "manifest.json", manifest, strlen(manifest));
	for (size_t i = 0; i < n; i++)
		member(a, m[i].name, m[i].data, m[i].len);
	archive_write_close(a);
	archive_write_free(a);
	if (mtime > 0) {
		struct timeval tv[2] = {{(time_t)mtime, 0}, {(time_t)mtime, 0}};
		ck_assert_int_eq(utimes(tmp, tv), 0);
	}
	snprintf(p, sizeof(p), "%s/nodes/%s.tar.zst", dir, node);
	ck_assert_int_eq(rename(tmp, p), 0);
}
