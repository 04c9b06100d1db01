/*
 * carry_store.c - give a bench store's bundles the carried scans their collectors would have
 * written (engine/carry.c, FORMATS.md "Carried scans"): each bundle's job output scanned with
 * the rule set, the record added as scans/<source>/<name>.pmscan and listed in the manifest's
 * "scans", the bundle rewritten in place (a record it had is replaced) as the collector writes
 * one (pm_bundle_pack: the records before the members, a job output in a zstd frame of its own).  What bench/finalize.sh
 * measures with CARRY=1.
 *
 * usage: carry_store RULES JOB_START BUNDLE.tar.zst...
 * (JOB_START: the job's start, ISO 8601, as the stub sacct says it; each bundle's manifest
 * gives the rest: its node, nodelist, boot time, and each file's rank, time and status.)
 */
#include <archive.h>
#include <archive_entry.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "postmortem.h"

struct mem {
	char *name;
	char *data;
	size_t len;
};

static double iso(const char *s)
{
	struct pm_timectx ctx = {.year = 1970};
	double t = 0;

	return s && pm_time_parse(s, strlen(s), &ctx, &t) == 1 ? t : 0;
}

static int read_all(const char *path, struct mem **out, size_t *n)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	size_t cap = 0;

	archive_read_support_filter_all(a);
	archive_read_support_format_tar(a);
	if (archive_read_open_filename(a, path, 65536) != ARCHIVE_OK) {
		fprintf(stderr, "%s: %s\n", path, archive_error_string(a));
		archive_read_free(a);
		return -1;
	}
	*out = NULL;
	*n = 0;
	while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
		size_t len = (size_t)archive_entry_size(e);
		struct mem *m;

		if (*n == cap && !(*out = realloc(*out, (cap = cap ? 2 * cap : 8) * sizeof(**out))))
			return -1;
		m = &(*out)[(*n)++];
		m->name = strdup(archive_entry_pathname(e));
		m->data = malloc(len + 1);
		m->len = len;
		if (!m->name || !m->data || archive_read_data(a, m->data, len) != (la_ssize_t)len)
			return -1;
	}
	archive_read_free(a);
	return 0;
}

static int one(const struct pm_ruleset *rs, double start, const char *path)
{
	struct mem *m = NULL;
	size_t n = 0, nnodes = 0, nrec = 0;
	json_t *man = NULL, *files, *x, *scans = json_array();
	char **nodes = NULL, tmp[4200], *text = NULL;
	void *rec[64] = {0};
	size_t reclen[64] = {0};
	char recname[64][320];
	struct pm_bundle_part *parts = NULL;
	size_t i, np = 0, packedlen = 0;
	void *packed = NULL;
	char perr[256], recfor[64][320];
	FILE *fp = NULL;
	int rc = -1;

	if (read_all(path, &m, &n) < 0 || !n || strcmp(m[0].name, "manifest.json"))
		goto out;
	if (!(man = json_loadb(m[0].data, m[0].len, 0, NULL)))
		goto out;
	files = json_object_get(man, "files");
	x = json_object_get(man, "nodelist");
	if (json_is_string(x))
		pm_hostlist_expand(json_string_value(x), strlen(json_string_value(x)), &nodes,
				   &nnodes);
	json_array_foreach(files, i, x)
	{
		const char *p = json_string_value(json_object_get(x, "path"));
		json_t *rank = json_object_get(x, "rank");
		struct pm_carry_input in = {0};
		const char *src = json_string_value(json_object_get(x, "source"));
		const char *st = json_string_value(json_object_get(x, "status"));
		char sha[80];

		if (!src || nrec == 64)
			continue;
		for (size_t k = 1; k < n; k++)
			if (!strcmp(m[k].name, p)) {
				in.data = m[k].data;
				in.len = m[k].len;
			}
		/* the task files' parsed records (PMTASK1), as the collector carries them */
		if (!strcmp(src, "rank_map") || !strcmp(src, "task_exit")) {
			if (!in.data || !st || strcmp(st, "ok"))
				continue;
			if (pm_tasks_carry(src, in.data, in.len, &rec[nrec], &reclen[nrec]) < 0)
				goto out;
			goto record;
		}
		if (strcmp(src, "app_log"))
			continue;
		in.path = p;
		in.node = json_string_value(json_object_get(x, "node"));
		if (!in.node)
			in.node = json_string_value(json_object_get(man, "node"));
		in.rank = json_is_integer(rank) ? (int)json_integer_value(rank) : -1;
		in.observed = json_string_value(json_object_get(x, "observed_time"));
		in.boot = json_string_value(json_object_get(man, "boot_time"));
		in.status = json_string_value(json_object_get(x, "status"));
		in.reason = json_string_value(json_object_get(x, "reason"));
		in.job_start = start;
		in.nodes = (const char *const *)nodes;
		in.nnodes = nnodes;
		if (!in.data || pm_scan_carry(rs, &in, &rec[nrec], &reclen[nrec]) < 0)
			goto out;
record:
		if (!rec[nrec])
			continue;
		snprintf(recname[nrec], sizeof(recname[nrec]), "scans/%s.pmscan",
			 p + (strncmp(p, "sources/", 8) ? 0 : 8));
		snprintf(recfor[nrec], sizeof(recfor[nrec]), "%s", p);
		pm_sha256_buf(rec[nrec], reclen[nrec], sha);
		json_array_append_new(scans,
				      json_pack("{s:s, s:s, s:I, s:s}", "path", recname[nrec],
						"for", p, "bytes", (json_int_t)reclen[nrec],
						"sha256", sha + 7));
		nrec++;
	}
	json_object_set(man, "scans", scans);
	text = json_dumps(man, JSON_INDENT(1) | JSON_SORT_KEYS | JSON_REAL_PRECISION(6));
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	/* as the collector writes it (bundle_write.c): the manifest, the records, the members, a
	 * member whose scan is carried in a zstd frame of its own */
	if (!text || !(parts = calloc(n + nrec + 1, sizeof(*parts))))
		goto out;
	parts[np++] = (struct pm_bundle_part){"manifest.json", text, strlen(text), 0, false};
	for (size_t k = 0; k < nrec; k++)
		parts[np++] = (struct pm_bundle_part){recname[k], rec[k], reclen[k], 0, false};
	/* a record made before (another build, other rules) goes; the members whose records
	 * are carried last (bundle_write.c) */
	for (int last = 0; last < 2; last++)
		for (size_t k = 1; k < n; k++) {
			bool own = false;

			if (!strncmp(m[k].name, "scans/", 6))
				continue;
			for (size_t r = 0; r < nrec; r++)
				own = own || !strcmp(recfor[r], m[k].name);
			if (own == (last == 1))
				parts[np++] = (struct pm_bundle_part){m[k].name, m[k].data,
								      m[k].len, 0, own};
		}
	if (pm_bundle_pack(parts, np, &packed, &packedlen, perr, sizeof(perr)) < 0) {
		fprintf(stderr, "%s: %s\n", path, perr);
		goto out;
	}
	if (!(fp = fopen(tmp, "wb")) || fwrite(packed, 1, packedlen, fp) != packedlen) {
		if (fp)
			fclose(fp);
		goto out;
	}
	if (fclose(fp) != 0 || rename(tmp, path) < 0)
		goto out;
	rc = 0;
out:
	if (rc < 0)
		fprintf(stderr, "%s: not rewritten\n", path);
	free(parts);
	free(packed);
	for (size_t k = 0; k < n; k++) {
		free(m[k].name);
		free(m[k].data);
	}
	free(m);
	for (size_t k = 0; k < nrec; k++)
		free(rec[k]);
	for (size_t k = 0; k < nnodes; k++)
		free(nodes[k]);
	free(nodes);
	free(text);
	json_decref(scans);
	json_decref(man);
	return rc;
}

int main(int argc, char **argv)
{
	char err[512];
	struct pm_ruleset *rs;
	double start;
	int bad = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: carry_store RULES JOB_START BUNDLE.tar.zst...\n");
		return 2;
	}
	if (!(rs = pm_ruleset_load(argv[1], err, sizeof(err)))) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	start = iso(argv[2]);
	for (int i = 3; i < argc; i++)
		bad |= one(rs, start, argv[i]) < 0;
	pm_ruleset_destroy(rs);
	return bad;
}
