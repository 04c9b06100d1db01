/*
 * fuzz_sniff_prefix_time.c - the line-level input code: format sniffing, rank/host prefixes
 * under every format, the reader's wrappers (structured records' escapes too), time stamps,
 * rank tokens in paths and Slurm hostlists.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "input.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	return 0;
}

static void lines(const char *buf, size_t len)
{
	static const struct pm_timectx ctx[] = {
		{.year = 2026, .boot_time = 0},
		{.year = 1970, .boot_time = 1796000000.0},
	};
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		for (int f = 0; f < PM_FMT__COUNT; f++) {
			struct pm_prefix px;
			pm_prefix_parse((enum pm_format)f, p, n, &px);
			if (px.skip > n ||
			    (px.node_len && (px.node < p || px.node + px.node_len > p + n)))
				abort();
		}
		/* the reader's layers, a structured record's spans and their escapes undone */
		struct pm_peel pe;
		pm_peel(PM_FMT_APP, p, n, &ctx[0], &pe);
		if (pe.skip > pe.end || pe.end > n || pe.xskip > pe.xend || pe.xend > n ||
		    (pe.node_len && (pe.node < p || pe.node + pe.node_len > p + n)))
			abort();
		if (pe.quoted || pe.xend > pe.xskip) {
			size_t a = pe.quoted ? pe.skip : pe.xskip, b = pe.quoted ? pe.end : pe.xend;
			char *u = malloc(b - a + 1);
			if (u && pm_unquote(p + a, b - a, u) > b - a)
				abort();
			free(u);
		}
		for (size_t c = 0; c < sizeof(ctx) / sizeof(ctx[0]); c++) {
			double t;
			char out[32];
			if (pm_time_parse(p, n, &ctx[c], &t) == 1)
				pm_time_format(t, out, sizeof(out));
		}
		p += n + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	char **names = NULL, *path;
	size_t n = 0;
	enum pm_format fmt;

	fmt = pm_sniff(buf, size);
	if ((int)fmt < 0 || fmt >= PM_FMT__COUNT || !pm_format_name(fmt))
		abort();
	lines(buf, size);
	if (pm_hostlist_expand(buf, size, &names, &n) == 0) {
		for (size_t i = 0; i < n; i++)
			free(names[i]);
		free(names);
	}
	path = malloc(size + 1);
	if (path) {
		memcpy(path, buf, size);
		path[size] = '\0';
		pm_path_rank(path);
		free(path);
	}
	return 0;
}
