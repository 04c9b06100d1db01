/*
 * bundle_pack.c - a bundle's bytes (postmortem.bundle/1, FORMATS.md "Frames"): a tar of the
 * given members, as libarchive's restricted pax writer writes it (plain ustar headers while
 * names fit), compressed as a few zstd frames instead of one.  A member marked OWN gets a frame
 * of its own holding exactly its data and the padding after it, so that a reader that does not
 * need its bytes (a carried scan stands in for it, carry.c) can pass over it without
 * decompressing it; everything else (the manifest, the records, the other members, the
 * headers) is compressed together as before.  A concatenation of zstd frames is one zstd
 * stream: every reader of one (libarchive's, the zstd program's, this engine's before frames)
 * reads the same tar.
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "internal.h"

/* libarchive's zstd filter's default level; no frame checksum, as libarchive writes none: the
 * manifest's SHA-256 of every member is the check (a frame passed over is checked against it
 * when it is read) */
#define PACK_LEVEL 3

struct tbuf {
	unsigned char *p;
	size_t len, cap;
};

static la_ssize_t tbuf_write(struct archive *a, void *arg, const void *buf, size_t n)
{
	struct tbuf *t = arg;

	if (t->len + n > t->cap) {
		size_t cap = t->cap ? t->cap : 65536;
		unsigned char *p;

		while (cap < t->len + n)
			cap *= 2;
		if (!(p = realloc(t->p, cap))) {
			archive_set_error(a, ENOMEM, "out of memory");
			return -1;
		}
		t->p = p;
		t->cap = cap;
	}
	memcpy(t->p + t->len, buf, n);
	t->len += n;
	return (la_ssize_t)n;
}

/* One frame of the tar's bytes [FROM, TO) appended to OUT with CC.  0, or -1. */
static int frame(ZSTD_CCtx *cc, const struct tbuf *tar, size_t from, size_t to, struct tbuf *out)
{
	size_t bound = ZSTD_compressBound(to - from), r;

	if (out->len + bound > out->cap) {
		size_t cap = out->cap ? out->cap : 16384;
		unsigned char *p;

		while (cap < out->len + bound)
			cap *= 2;
		if (!(p = realloc(out->p, cap)))
			return -1;
		out->p = p;
		out->cap = cap;
	}
	r = ZSTD_compress2(cc, out->p + out->len, out->cap - out->len, tar->p + from, to - from);
	if (ZSTD_isError(r)) {
		errno = EIO;
		return -1;
	}
	out->len += r;
	return 0;
}

int pm_bundle_pack(const struct pm_bundle_part *parts, size_t n, void **out, size_t *outlen,
		   char *err, size_t errlen)
{
	struct tbuf tar = {0}, z = {0};
	struct archive *a = NULL;
	size_t *start = calloc(n + 1, sizeof(*start)), from = 0;
	ZSTD_CCtx *cc = NULL;
	int rc = -1;

	*out = NULL;
	*outlen = 0;
	if (!start)
		goto nomem;
	/* unblocked: each header and each member's data reach TAR as they are written, so the
	 * length after a header is where the member's data starts */
	if (!(a = archive_write_new()) || archive_write_set_format_pax_restricted(a) ||
	    archive_write_set_bytes_per_block(a, 0) ||
	    archive_write_open(a, &tar, NULL, tbuf_write, NULL) != ARCHIVE_OK)
		goto fail;
	for (size_t i = 0; i < n; i++) {
		struct archive_entry *e = archive_entry_new();
		int ok;

		if (!e)
			goto nomem;
		archive_entry_set_pathname(e, parts[i].name);
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_perm(e, 0640);
		archive_entry_set_size(e, (la_int64_t)parts[i].len);
		archive_entry_set_mtime(e, (time_t)parts[i].mtime, 0);
		ok = archive_write_header(a, e) == ARCHIVE_OK;
		start[i] = tar.len;
		ok = ok && (!parts[i].len || archive_write_data(a, parts[i].data, parts[i].len) ==
						     (la_ssize_t)parts[i].len);
		archive_entry_free(e);
		if (!ok)
			goto fail;
	}
	if (archive_write_close(a) != ARCHIVE_OK)
		goto fail;
	if (!(cc = ZSTD_createCCtx()) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, PACK_LEVEL)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 0)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 1)))
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		size_t end = start[i] + (parts[i].len + 511) / 512 * 512;

		/* a member of its own only where its data lies in the tar where it was written
		 * (else, as for any other, the frames around it hold it) */
		if (!parts[i].own || !parts[i].len || end > tar.len || start[i] < from ||
		    memcmp(tar.p + start[i], parts[i].data, parts[i].len))
			continue;
		if ((start[i] > from && frame(cc, &tar, from, start[i], &z) < 0) ||
		    frame(cc, &tar, start[i], end, &z) < 0)
			goto nomem;
		from = end;
	}
	if (from < tar.len && frame(cc, &tar, from, tar.len, &z) < 0)
		goto nomem;
	*out = z.p;
	*outlen = z.len;
	z.p = NULL;
	rc = 0;
	goto out;
nomem:
	snprintf(err, errlen, "cannot pack the bundle: %s", strerror(errno ? errno : ENOMEM));
	if (!errno)
		errno = ENOMEM;
	goto out;
fail:
	snprintf(err, errlen, "libarchive: %s",
		 a && archive_error_string(a) ? archive_error_string(a) : "write failed");
	errno = EIO;
out:
	if (a)
		archive_write_free(a);
	ZSTD_freeCCtx(cc);
	free(tar.p);
	free(z.p);
	free(start);
	return rc;
}
