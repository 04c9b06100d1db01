/*
 * fuzz_parsers.c - every structured parser (nvidia-smi -q and CSV, sacct, scontrol,
 * meminfo, plugin task records, Prometheus samples) over the same input, into one evidence set without a rule
 * set: the parsers only record facts, job information and tasks, and never look at rules.
 *
 * The first byte chooses whether the input's file has a node (parsers fall back to it).
 */
#include <string.h>

#include "fuzz.h"
#include "internal.h"

typedef int parse_fn(struct pm_evidence *ev, size_t file, const char *buf, size_t len, char *reason,
		     size_t rlen);

static parse_fn *const parsers[] = {
	pm_parse_nvsmi_q, pm_parse_nvsmi_csv, pm_parse_sacct, pm_parse_scontrol,
	pm_parse_meminfo, pm_parse_tasks,     pm_parse_prom,  pm_parse_nvsmi_table,
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pm_evidence *ev;
	unsigned mode = size ? data[0] : 0;
	const char *buf = size ? (const char *)data + 1 : "";
	size_t len = size ? size - 1 : 0;
	char reason[256];

	ev = pm_evidence_create(NULL);
	if (!ev)
		return 0;
	if (mode & 1)
		pm_evidence_add_buffer(ev, "input", "", 0, NULL, "gpu017", 0);
	for (size_t i = 0; i < sizeof(parsers) / sizeof(parsers[0]); i++) {
		reason[0] = '\0';
		parsers[i](ev, 0, buf, len, reason, sizeof(reason));
		if (!memchr(reason, '\0', sizeof(reason)))
			__builtin_trap();
	}
	pm_evidence_destroy(ev);
	return 0;
}
