/*
 * bundle_write.c - the node bundle, postmortem.bundle/1 (engine/FORMATS.md): a pax tar
 * through zstd, manifest.json first, then scans/<source>/<file>.pmscan for every carried scan,
 * then sources/<source>/<file> for every capture kept, each listed with its size and sha256;
 * a capture whose scan is carried has its data in a zstd frame of its own (pm_bundle_pack,
 * FORMATS.md "Frames").  Built in memory (its size is bounded by the
 * sources' caps) so that the same bytes can go to the store or, when the store fails, to the
 * spool.  The engine's own reader is the judge of what was written: pm_bundle_verify.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector.h"
#include "pmutil.h"
#include "postmortem.h"

#define SNIFF_BYTES 4096

static json_t *iso(double t)
{
	char buf[40];

	if (t <= 0)
		return json_null();
	pm_time_format(t, buf, sizeof(buf));
	return json_string(buf);
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* The format id when the content says what the source is, else null. */
static json_t *format_of(const struct pm_capture *cap)
{
	enum pm_source want;
	enum pm_format f;

	if (!cap->len || pm_source_parse(cap->kind, &want) < 0)
		return json_null();
	f = pm_sniff(cap->data, cap->len < SNIFF_BYTES ? cap->len : SNIFF_BYTES);
	if (f == PM_FMT_BINARY || f == PM_FMT_EMPTY || pm_format_source(f) != want)
		return json_null();
	return json_string(pm_format_name(f));
}

static json_t *file_entry(const struct pm_capture *cap, const struct pm_job *j)
{
	char path[300], sha[80];

	snprintf(path, sizeof(path), "sources/%s/%s", pm_csource_name(cap->src), cap->name);
	pm_sha256_buf(cap->data, cap->len, sha);
	return json_pack("{s:s, s:s, s:s, s:o, s:s, s:o, s:o, s:I, s:s, s:s, s:s, s:I, s:o}",
			 "path", path, "source", cap->kind, "collector_source",
			 pm_csource_name(cap->src), "format", format_of(cap), "node", j->node,
			 "rank", cap->rank >= 0 ? json_integer(cap->rank) : json_null(),
			 "observed_time", iso(cap->observed), "bytes", (json_int_t)cap->len,
			 "sha256", sha + 7, "status", pm_status_name(cap->status), "reason",
			 cap->reason, "redacted", (json_int_t)cap->redacted, "origin",
			 str_or_null(cap->origin));
}

static json_t *coverage_entry(const struct pm_collection *c, int s)
{
	const struct pm_coverage *cv = &c->cov[s];

	return json_pack("{s:s, s:s, s:s, s:i, s:f, s:b}", "source", pm_csource_name(s), "status",
			 pm_status_name(cv->status), "reason", cv->reason, "files", (int)cv->files,
			 "elapsed_s", (double)(long)(cv->elapsed * 1000) / 1000, "cut", cv->cut);
}

static json_t *slurm_facts(const struct pm_job *j)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	json_object_set_new(o, "job_id", json_string(j->id));
	json_object_set_new(o, "nodelist", str_or_null(j->nodelist));
	json_object_set_new(o, "user", str_or_null(j->user));
	json_object_set_new(o, "uid", j->uid == (uid_t)-1 ? json_null() : json_integer(j->uid));
	json_object_set_new(o, "gid", j->gid == (gid_t)-1 ? json_null() : json_integer(j->gid));
	json_object_set_new(o, "exit_code",
			    j->exit_code < 0 ? json_null() : json_integer(j->exit_code));
	json_object_set_new(o, "array_job_id", str_or_null(j->array_job));
	json_object_set_new(o, "array_task_id", str_or_null(j->array_task));
	return o;
}

/* The manifest's record of C's carried scans: where each is and whose scan it is. */
static json_t *scans(const struct pm_collection *c)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < c->ncaps; i++) {
		const struct pm_capture *cap = &c->caps[i];
		char path[320], of[300], sha[80];

		if (!cap->name || !cap->carry)
			continue;
		snprintf(of, sizeof(of), "sources/%s/%s", pm_csource_name(cap->src), cap->name);
		snprintf(path, sizeof(path), "scans/%s/%s.pmscan", pm_csource_name(cap->src),
			 cap->name);
		pm_sha256_buf(cap->carry, cap->carrylen, sha);
		json_array_append_new(a, json_pack("{s:s, s:s, s:I, s:s}", "path", path, "for", of,
						   "bytes", (json_int_t)cap->carrylen, "sha256",
						   sha + 7));
	}
	return a;
}

static json_t *manifest(const struct pm_collection *c, const struct pm_job *j)
{
	json_t *files = json_array(), *cov = json_array(), *cut = json_array(), *m;

	for (size_t i = 0; i < c->ncaps; i++)
		if (c->caps[i].name)
			json_array_append_new(files, file_entry(&c->caps[i], j));
	for (int s = 0; s < PM_CS__COUNT; s++) {
		json_array_append_new(cov, coverage_entry(c, s));
		if (c->cov[s].cut)
			json_array_append_new(cut, json_string(pm_csource_name(s)));
	}
	m = json_pack("{s:s, s:s, s:s, s:i, s:s, s:o, s:o, s:{s:o, s:o, s:b, s:o}, s:{s:s}, s:o, "
		      "s:o, s:o}",
		      "schema", PM_BUNDLE_SCHEMA, "cluster", j->cluster, "job", j->key, "restart",
		      j->restart, "node", j->node, "boot_time", iso(j->boot_time), "window_start",
		      iso(j->window_start), "collected", "start", iso(c->start), "end", iso(c->end),
		      "deadline_hit", c->deadline_hit, "cut", cut, "collector", "version",
		      PACKAGE_VERSION, "slurm", slurm_facts(j), "files", files, "coverage", cov);
	/* what the finalizer reads from any one bundle: the expected nodes and the owner */
	if (m) {
		json_t *sc = scans(c);

		if (sc && json_array_size(sc))
			json_object_set_new(m, "scans", sc);
		else
			json_decref(sc);
		json_object_set_new(m, "nodelist", str_or_null(j->nodelist));
		json_object_set_new(m, "uid",
				    j->uid == (uid_t)-1 ? json_null() : json_integer(j->uid));
	}
	return m;
}

void pm_collection_carry(struct pm_collection *c, const struct pm_job *j, const char *rules,
			 double deadline, char *note, size_t notelen)
{
	struct pm_ruleset *rs = NULL;
	char **nodes = NULL, err[256];
	size_t nnodes = 0, done = 0, want = 0;
	const char *why = "";

	note[0] = '\0';
	/* the plugin's task files parsed for the merge (engine/carry.c, PMTASK1): a few
	 * kilobytes of JSON lines a node, parsed at every merge otherwise; a file that cannot be
	 * carried (or no memory for it) is bundled without its record, as before */
	for (size_t i = 0; i < c->ncaps && pm_mono() < deadline; i++) {
		struct pm_capture *cap = &c->caps[i];

		if (cap->name && cap->len && !cap->carry && cap->status == PM_ST_OK &&
		    (!strcmp(cap->kind, "rank_map") || !strcmp(cap->kind, "task_exit")) &&
		    pm_tasks_carry(cap->kind, cap->data, cap->len, &cap->carry, &cap->carrylen) < 0)
			break;
	}
	for (size_t i = 0; i < c->ncaps; i++)
		want += c->caps[i].name && c->caps[i].len && !strcmp(c->caps[i].kind, "app_log");
	if (!want)
		return;
	if (pm_mono() >= deadline) {
		why = ": no time left";
		goto out;
	}
	if (!(rs = pm_ruleset_load(rules ? rules : PM_RULESDIR, err, sizeof(err)))) {
		snprintf(note, notelen, "job output not scanned: %s", err);
		return;
	}
	if (j->nodelist &&
	    pm_hostlist_expand(j->nodelist, strlen(j->nodelist), &nodes, &nnodes) < 0)
		nnodes = 0;
	for (size_t i = 0; i < c->ncaps; i++) {
		struct pm_capture *cap = &c->caps[i];
		char path[300], obs[40], boot[40];
		struct pm_carry_input in;

		if (!cap->name || !cap->len || strcmp(cap->kind, "app_log"))
			continue;
		if (pm_mono() >= deadline) {
			why = ": the deadline came first";
			break;
		}
		snprintf(path, sizeof(path), "sources/%s/%s", pm_csource_name(cap->src), cap->name);
		if (cap->observed > 0)
			pm_time_format(cap->observed, obs, sizeof(obs));
		if (j->boot_time > 0)
			pm_time_format(j->boot_time, boot, sizeof(boot));
		in = (struct pm_carry_input){.path = path,
					     .data = cap->data,
					     .len = cap->len,
					     .node = j->node,
					     .rank = cap->rank,
					     .observed = cap->observed > 0 ? obs : NULL,
					     .boot = j->boot_time > 0 ? boot : NULL,
					     .status = pm_status_name(cap->status),
					     .reason = cap->reason,
					     .job_start = j->window_start,
					     .nodes = (const char *const *)nodes,
					     .nnodes = nnodes,
					     .deadline = deadline,
					     .stop = pm_collect_stopped};
		if (pm_scan_carry(rs, &in, &cap->carry, &cap->carrylen) < 0) {
			why = errno == ETIMEDOUT ? ": the deadline came first" : ": out of memory";
			break;
		}
		done += cap->carry != NULL;
	}
out:
	snprintf(note, notelen, "job output scanned for the merge: %zu of %zu%s", done, want, why);
	for (size_t k = 0; k < nnodes; k++)
		free(nodes[k]);
	free(nodes);
	pm_ruleset_destroy(rs);
}

int pm_bundle_write(const struct pm_collection *c, const struct pm_job *j, void **buf, size_t *len,
		    char *err, size_t errlen)
{
	json_t *m = manifest(c, j);
	char *text = m ? json_dumps(m, JSON_INDENT(1) | JSON_SORT_KEYS | JSON_REAL_PRECISION(6)) :
			 NULL;
	struct pm_bundle_part *parts = calloc(2 * c->ncaps + 1, sizeof(*parts));
	char(*names)[320] = calloc(2 * c->ncaps + 1, sizeof(*names));
	size_t n = 0;
	int rc = -1;

	if (!text || !parts || !names) {
		snprintf(err, errlen, "cannot build manifest.json");
		errno = ENOMEM;
		goto out;
	}
	/* the manifest, then the carried scans, then the captures (FORMATS.md, "Frames"): a
	 * merge that takes a record has it before the capture it stands in for, and passes over
	 * the capture's frame */
	parts[n++] = (struct pm_bundle_part){"manifest.json", text, strlen(text), c->end, false};
	for (size_t i = 0; i < c->ncaps; i++) {
		const struct pm_capture *cap = &c->caps[i];

		if (!cap->name || !cap->carry)
			continue;
		snprintf(names[n], sizeof(names[n]), "scans/%s/%s.pmscan",
			 pm_csource_name(cap->src), cap->name);
		parts[n] =
			(struct pm_bundle_part){names[n], cap->carry, cap->carrylen, c->end, false};
		n++;
	}
	/* the captures whose scans are carried last: the frame after each of theirs holds the
	 * next one's header, or only the tar's end, which costs nothing to decompress */
	for (int carried = 0; carried < 2; carried++)
		for (size_t i = 0; i < c->ncaps; i++) {
			const struct pm_capture *cap = &c->caps[i];

			if (!cap->name || (cap->carry != NULL) != carried)
				continue;
			snprintf(names[n], sizeof(names[n]), "sources/%s/%s",
				 pm_csource_name(cap->src), cap->name);
			parts[n] = (struct pm_bundle_part){names[n], cap->data, cap->len,
							   cap->observed, cap->carry != NULL};
			n++;
		}
	rc = pm_bundle_pack(parts, n, buf, len, err, errlen);
out:
	free(parts);
	free(names);
	free(text);
	json_decref(m);
	return rc;
}

int pm_bundle_verify(const char *path, char *err, size_t errlen)
{
	size_t n = strlen(path);
	struct pm_evidence *ev;
	int rc;

	if (n < 8 || strcmp(path + n - 8, ".tar.zst")) {
		snprintf(err, errlen, "%s: a bundle's name ends in .tar.zst", path);
		errno = EINVAL;
		return -1;
	}
	if (!(ev = pm_evidence_create(NULL)))
		return -1;
	pm_evidence_check_all(ev, true); /* every member, also those a record stands in for */
	rc = pm_evidence_add_path(ev, path, err, errlen);
	if (rc == 0 && pm_evidence_bundles(ev) != 1) {
		snprintf(err, errlen, "%s: not read as a bundle", path);
		errno = EINVAL;
		rc = -1;
	}
	pm_evidence_destroy(ev);
	return rc;
}
