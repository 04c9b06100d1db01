/*
 * fuzz_bundle.c - evidence bundles: the input becomes a .tar.zst file that is added with
 * pm_evidence_add_path and, when accepted, diagnosed with the bundled rules.
 *
 * The first byte picks the layer the fuzzer works on:
 *   0  the rest is written as is (zstd frames, tar headers and all);
 *   1  the rest is a tar stream, compressed here;
 *   2  the rest is "MANIFEST\0NAME\nBODY\0NAME\nBODY...": a manifest and members, written
 *      here as a tar, manifest first.  The "bytes" and "sha256" of each manifest entry whose
 *      path names a member are set right (unless bit 0x80 is set), so that inputs get past
 *      the checksums to the members' contents; of its "scans" entries too.  From 64 up (0x41,
 *      0x44, ...) the tar is written as the collector writes it, in zstd frames
 *      (pm_bundle_pack), a member that a "scans" entry is "for" in a frame of its own: the
 *      reader's walk frame by frame, and its passing over such a frame.
 */
#include <archive.h>
#include <archive_entry.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "fuzz.h"
#include "postmortem.h"

struct member {
	const char *name;
	size_t nlen;
	const char *body;
	size_t len;
};

#define MAX_MEMBERS 64

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fz_bound_input();
	fz_rules();
	fz_tmpdir();
	return 0;
}

static size_t split(const char *p, size_t n, struct member *m)
{
	size_t nm = 0;

	while (n > 0 && nm < MAX_MEMBERS) {
		const char *z = memchr(p, '\0', n), *nl;
		size_t l = z ? (size_t)(z - p) : n;

		nl = memchr(p, '\n', l);
		m[nm].name = p;
		m[nm].nlen = nl ? (size_t)(nl - p) : l;
		m[nm].body = nl ? nl + 1 : p + l;
		m[nm].len = nl ? l - m[nm].nlen - 1 : 0;
		nm++;
		p += l + (z ? 1 : 0);
		n -= l + (z ? 1 : 0);
	}
	return nm;
}

/* Set bytes and sha256 of the manifest entries that name a member; the new manifest text. */
static char *fix_manifest(const char *text, size_t len, const struct member *m, size_t nm)
{
	json_t *man = json_loadb(text, len, 0, NULL), *x, *both;
	size_t i;
	char *out;

	if (!man)
		return NULL;
	both = json_array();
	json_array_extend(both, json_object_get(man, "files"));
	json_array_extend(both, json_object_get(man, "scans"));
	json_array_foreach(both, i, x)
	{
		const char *path = json_string_value(json_object_get(x, "path"));
		for (size_t k = 0; path && json_is_object(x) && k < nm; k++) {
			struct pm_sha256 c;
			unsigned char d[32];
			char hex[80];

			if (strlen(path) != m[k].nlen || memcmp(path, m[k].name, m[k].nlen))
				continue;
			pm_sha256_init(&c);
			pm_sha256_update(&c, m[k].body, m[k].len);
			pm_sha256_final(&c, d);
			pm_sha256_hex(d, hex);
			json_object_set_new(x, "bytes", json_integer((json_int_t)m[k].len));
			json_object_set_new(x, "sha256", json_string(hex + 7));
		}
	}
	out = json_dumps(man, JSON_COMPACT);
	json_decref(both);
	json_decref(man);
	return out;
}

/* Whether the manifest TEXT has a "scans" entry for member NAME. */
static bool carried(const char *text, const char *name)
{
	json_t *man = json_loads(text, 0, NULL), *x;
	bool yes = false;
	size_t i;

	json_array_foreach(json_object_get(man, "scans"), i, x)
	{
		const char *of = json_string_value(json_object_get(x, "for"));
		yes = yes || (of && !strcmp(of, name));
	}
	json_decref(man);
	return yes;
}

/* Mode 2 from 64 up: as write_bundle, packed as the collector packs a bundle. */
static void write_frames(const char *dir, const char *p, size_t n, bool fix, char *path,
			 size_t plen)
{
	struct member m[MAX_MEMBERS];
	struct pm_bundle_part parts[MAX_MEMBERS + 1];
	char names[MAX_MEMBERS][1100], err[256], *man = NULL, *mtext;
	const char *z = memchr(p, '\0', n);
	size_t mlen = z ? (size_t)(z - p) : n, nm, np = 0, len = 0;
	void *buf = NULL;

	nm = z ? split(z + 1, n - mlen - 1, m) : 0;
	if (fix)
		man = fix_manifest(p, mlen, m, nm);
	if (!(mtext = man ? man : malloc(mlen + 1))) /* the input's bytes: no NUL after them */
		return;
	if (!man) {
		memcpy(mtext, p, mlen);
		mtext[mlen] = '\0';
	}
	parts[np++] = (struct pm_bundle_part){"manifest.json", mtext, strlen(mtext), 0, false};
	for (size_t i = 0; i < nm; i++) {
		if (m[i].nlen == 0 || m[i].nlen >= sizeof(names[0]))
			continue;
		memcpy(names[np - 1], m[i].name, m[i].nlen);
		names[np - 1][m[i].nlen] = '\0';
		parts[np] = (struct pm_bundle_part){names[np - 1], m[i].body, m[i].len, 0,
						    carried(mtext, names[np - 1])};
		np++;
	}
	if (pm_bundle_pack(parts, np, &buf, &len, err, sizeof(err)) == 0)
		fz_write(dir, "job.tar.zst", buf, len, path, plen);
	else
		fz_write(dir, "job.tar.zst", "", 0, path, plen);
	free(buf);
	free(mtext);
}

static void add_member(struct archive *a, const char *name, const void *body, size_t len)
{
	struct archive_entry *e = archive_entry_new();

	if (!e)
		return;
	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_size(e, (la_int64_t)len);
	if (archive_write_header(a, e) == ARCHIVE_OK && len)
		archive_write_data(a, body, len);
	archive_entry_free(e);
}

/* Mode 2: a tar.zst with the manifest and members of the input, at PATH. */
static void write_bundle(const char *path, const char *p, size_t n, bool fix)
{
	struct archive *a = archive_write_new();
	struct member m[MAX_MEMBERS];
	const char *z = memchr(p, '\0', n);
	size_t mlen = z ? (size_t)(z - p) : n, nm;
	char *man = NULL, name[1100];

	nm = z ? split(z + 1, n - mlen - 1, m) : 0;
	if (fix)
		man = fix_manifest(p, mlen, m, nm);
	if (!a)
		goto out;
	archive_write_add_filter_zstd(a);
	archive_write_set_format_pax_restricted(a);
	if (archive_write_open_filename(a, path) != ARCHIVE_OK)
		goto out;
	add_member(a, "manifest.json", man ? man : p, man ? strlen(man) : mlen);
	for (size_t i = 0; i < nm; i++) {
		if (m[i].nlen == 0 || m[i].nlen >= sizeof(name))
			continue;
		memcpy(name, m[i].name, m[i].nlen);
		name[m[i].nlen] = '\0';
		add_member(a, name, m[i].body, m[i].len);
	}
	archive_write_close(a);
out:
	archive_write_free(a);
	free(man);
}

/* Mode 1: the input compressed with zstd, at PATH. */
static void write_zstd(const char *dir, const char *p, size_t n, char *path, size_t plen)
{
	size_t cap = ZSTD_compressBound(n), got;
	void *z = malloc(cap ? cap : 1);

	if (!z)
		return;
	got = ZSTD_compress(z, cap, p, n, 1);
	fz_write(dir, "job.tar.zst", z, ZSTD_isError(got) ? 0 : got, path, plen);
	free(z);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = fz_tmpdir(), *p = (const char *)data + 1;
	unsigned mode = size ? data[0] : 0;
	size_t n = size ? size - 1 : 0;
	char path[4200], err[512];
	struct pm_evidence *ev;

	if (!size)
		p = "";
	switch ((mode & 0x7f) % 3) {
	case 0:
		fz_write(dir, "job.tar.zst", p, n, path, sizeof(path));
		break;
	case 1:
		write_zstd(dir, p, n, path, sizeof(path));
		break;
	default:
		snprintf(path, sizeof(path), "%s/job.tar.zst", dir);
		if ((mode & 0x7f) >= 64)
			write_frames(dir, p, n, !(mode & 0x80), path, sizeof(path));
		else
			write_bundle(path, p, n, !(mode & 0x80));
		break;
	}
	ev = pm_evidence_create(fz_rules());
	if (!ev)
		return 0;
	err[0] = '\0';
	if (pm_evidence_add_path(ev, path, err, sizeof(err)) == 0) {
		fz_diagnose(ev);
	} else if (!err[0]) {
		abort(); /* a rejected bundle always says why */
	}
	pm_evidence_destroy(ev);
	return 0;
}
