/*
 * fuzz_diagnose.c - the whole engine on one file: the input is added as one in-memory file
 * and diagnosed with the bundled rules, and the verdict is rendered every way.
 *
 * The first byte picks how the file is presented: sniffed from its content (most inputs,
 * as a job's output would be), or given as one source kind with a node, as a bundle
 * manifest would give it.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static const char *const kinds[] = {
	"kernel_log", "gpu_state", "node_metrics", "scheduler", "task_exit", "rank_map", "app_log",
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fz_bound_input();
	fz_rules();
	return 0;
}

/* The verdict JSON of the input, or NULL when there is none (no usable input). */
static char *diagnose(const char *name, const uint8_t *data, size_t size, const char *source,
		      const char *node)
{
	struct pm_evidence *ev = pm_evidence_create(fz_rules());
	char err[512], *dump = NULL, *s;
	json_t *v, *back;

	if (!ev)
		return NULL;
	if (pm_evidence_add_buffer(ev, name, data, size, source, node, 1796010100.0) < 0)
		abort();
	v = pm_diagnose(ev, err, sizeof(err));
	if (v) {
		/* the dump must be valid JSON (and so valid UTF-8), whatever the input bytes */
		dump = pm_verdict_dump(v);
		if (!dump || !(back = json_loads(dump, 0, NULL)))
			abort();
		json_decref(back);
		free(pm_verdict_text(v));
		s = pm_verdict_comment(v);
		if (s && strlen(s) > PM_COMMENT_MAX)
			abort();
		free(s);
		json_decref(v);
	}
	pm_evidence_destroy(ev);
	return dump;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned mode = size ? data[0] : 0;
	const char *source = NULL, *node = NULL, *name = "slurm-4242.out";
	char *a, *b;

	if (size) {
		data++;
		size--;
	}
	if (mode >= 0x80) {
		source = kinds[(mode & 0x7f) % (sizeof(kinds) / sizeof(kinds[0]))];
		node = "gpu017";
		name = "gpu017/source.log";
	} else if (mode & 1) {
		name = "logs/gpu017/rank3.log";
	}
	a = diagnose(name, data, size, source, node);
	if (mode & 2) {
		/* determinism: the same evidence gives a byte-identical verdict */
		b = diagnose(name, data, size, source, node);
		if ((a == NULL) != (b == NULL) || (a && strcmp(a, b)))
			abort();
		free(b);
	}
	free(a);
	return 0;
}
