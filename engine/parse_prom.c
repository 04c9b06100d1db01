/*
 * parse_prom.c - facts from the collector's Prometheus samples (postmortem.prometheus/1,
 * FORMATS.md; written by epilog/prom.c).
 *
 * Every series line is reduced to facts by the table below (rules/README.md, "Facts"): the
 * last, largest or smallest value, or the increase of a counter over the window (a counter
 * that went down was reset: its new value counts as increase).  Per-GPU facts take the GPU
 * from DCGM's `gpu` label and the bus id from `pci_bus_id`.  Each fact keeps the time of the
 * sample it comes from (the first increase, the extreme), in pm_fact.time.
 *
 * DCGM_FI_DEV_XID_ERRORS holds the last Xid a GPU reported, and keeps holding it: only a
 * value that appears during the window (differs from the sample before it) is an Xid of
 * this job, never the first sample's.  DCGM_EXP_XID_ERRORS_COUNT{xid="N"} is a counter per
 * Xid: an increase is an Xid N.  Such Xids become gpu.prom_xid; those that are hardware
 * events by R-HW-1 (rules/SIGNATURES.md; Xid 74 is NVLink's) also
 * gpu.prom_xid_hw.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "internal.h"

#define MAX_SERIES 100000

enum reduce { R_LAST, R_MAX, R_MIN, R_INCREASE, R_XID, R_XID_COUNT };

static const struct {
	const char *metric;
	const char *fact;
	enum reduce how;
	bool gpu;
} table[] = {
	{"DCGM_FI_DEV_XID_ERRORS", "gpu.prom_xid", R_XID, true},
	{"DCGM_EXP_XID_ERRORS_COUNT", "gpu.prom_xid", R_XID_COUNT, true},
	{"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "gpu.prom_ecc_dbe_increase", R_INCREASE, true},
	{"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "gpu.prom_ecc_dbe", R_LAST, true},
	{"DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "gpu.prom_ecc_sbe_increase", R_INCREASE, true},
	{"DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL", "gpu.prom_nvlink_crc_increase",
	 R_INCREASE, true},
	{"DCGM_FI_DEV_ROW_REMAP_FAILURE", "gpu.prom_row_remap_failure", R_MAX, true},
	{"DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", "gpu.prom_remapped_rows_increase", R_INCREASE,
	 true},
	{"DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "gpu.prom_pcie_replay_increase", R_INCREASE, true},
	{"DCGM_FI_DEV_GPU_TEMP", "gpu.prom_temperature_max", R_MAX, true},
	{"DCGM_FI_DEV_POWER_USAGE", "gpu.prom_power_max", R_MAX, true},
	{"node_memory_MemAvailable_bytes", "node.prom_mem_available_min", R_MIN, false},
	{"node_network_receive_errs_total", "node.prom_net_receive_errs_increase", R_INCREASE,
	 false},
	{"node_filesystem_avail_bytes", "node.prom_fs_avail_min", R_MIN, false},
	{"node_infiniband_link_downed_total", "node.prom_ib_link_downed_increase", R_INCREASE,
	 false},
	{"node_infiniband_port_errors_received_total", "node.prom_ib_port_errors_increase",
	 R_INCREASE, false},
	{"node_infiniband_symbol_error_total", "node.prom_ib_symbol_errors_increase", R_INCREASE,
	 false},
};

/* R-HW-1's hardware Xids, less 74 (NVLink, a class of its own). */
static bool xid_hw(int xid)
{
	static const int hw[] = {48, 64, 79, 94, 95, 119, 120, 140, 143};

	for (size_t i = 0; i < sizeof(hw) / sizeof(hw[0]); i++)
		if (hw[i] == xid)
			return true;
	return false;
}

struct sample {
	double t, v;
};

static double sample_time(const json_t *j)
{
	struct pm_in_stamp st;
	const char *s;

	if (json_is_number(j))
		return json_number_value(j);
	if (!json_is_string(j))
		return -1;
	s = json_string_value(j);
	if (pm_in_iso(s, json_string_length(j), &st) == json_string_length(j))
		return st.t;
	return -1;
}

/* The samples of a series line, in time order; their count, or -1 on ENOMEM. */
static long samples(const json_t *values, struct sample **out)
{
	size_t i, n = json_array_size(values), k = 0;
	struct sample *s = calloc(n ? n : 1, sizeof(*s));
	json_t *v;

	if (!s)
		return -1;
	json_array_foreach(values, i, v)
	{
		double t = sample_time(json_array_get(v, 0));
		const json_t *x = json_array_get(v, 1);

		if (t < 0 || !json_is_number(x) || !isfinite(json_number_value(x)))
			continue;
		if (k && t < s[k - 1].t)
			continue; /* out of order: not what the collector writes */
		s[k].t = t;
		s[k++].v = json_number_value(x);
	}
	*out = s;
	return (long)k;
}

/* "00000000:3B:00.0" -> "0000:3b:00.0"; false when it is not a bus id. */
static bool pci_norm(const char *s, char *out, size_t olen)
{
	unsigned long dom, bus, dev, fn;
	char tail;

	if (!s || sscanf(s, "%lx:%lx:%lx.%lx%c", &dom, &bus, &dev, &fn, &tail) != 4 ||
	    dom > 0xffffffffUL || bus > 0xff || dev > 0x1f || fn > 7)
		return false;
	snprintf(out, olen, "%04lx:%02lx:%02lx.%lx", dom & 0xffff, bus, dev, fn);
	return true;
}

struct ctx {
	struct pm_evidence *ev;
	size_t file;
	const char *node;
};

static int fact(struct ctx *c, int gpu, const char *pci, const char *name, double v, double t)
{
	struct pm_fact *f = pm_ev_add_fact(c->ev, c->file, c->node, gpu, name, v, pci);

	if (!f)
		return -1;
	f->time = t;
	return 0;
}

/* Xids that appear during the window: a value other than the sample's before it. */
static int xids(struct ctx *c, int gpu, const char *pci, const char *name, const struct sample *s,
		long n)
{
	for (long i = 1; i < n; i++) {
		int x = (int)s[i].v;
		bool seen = false;

		if (s[i].v == s[i - 1].v || s[i].v <= 0 || s[i].v != x || x > 100000)
			continue;
		for (long k = 1; k < i && !seen; k++)
			seen = s[k].v == s[i].v && s[k].v != s[k - 1].v;
		if (seen)
			continue;
		if (fact(c, gpu, pci, name, x, s[i].t) < 0 ||
		    (xid_hw(x) && fact(c, gpu, pci, "gpu.prom_xid_hw", x, s[i].t) < 0))
			return -1;
	}
	return 0;
}

static int reduce(struct ctx *c, size_t row, const json_t *labels, const struct sample *s, long n)
{
	const char *g = json_string_value(json_object_get(labels, "gpu"));
	char pci[24], *end;
	bool has_pci = pci_norm(json_string_value(json_object_get(labels, "pci_bus_id")), pci,
				sizeof(pci));
	int gpu = -1;
	double v = 0, t = 0, inc = 0, first_inc = 0;
	long i;

	if (table[row].gpu && g && *g) {
		long x = strtol(g, &end, 10);
		if (!*end && x >= 0 && x < 4096)
			gpu = (int)x;
	}
	if (!table[row].gpu)
		has_pci = false;
	switch (table[row].how) {
	case R_XID:
		return xids(c, gpu, has_pci ? pci : NULL, table[row].fact, s, n);
	case R_XID_COUNT: {
		const char *xs = json_string_value(json_object_get(labels, "xid"));
		long x = xs ? strtol(xs, &end, 10) : -1;

		if (!xs || *end || x <= 0 || x > 100000)
			return 0;
		for (i = 1; i < n; i++)
			if (s[i].v > s[i - 1].v)
				break;
		if (i >= n)
			return 0;
		if (fact(c, gpu, has_pci ? pci : NULL, table[row].fact, (double)x, s[i].t) < 0 ||
		    (xid_hw((int)x) &&
		     fact(c, gpu, has_pci ? pci : NULL, "gpu.prom_xid_hw", (double)x, s[i].t) < 0))
			return -1;
		return 0;
	}
	case R_LAST:
		v = s[n - 1].v;
		t = s[n - 1].t;
		break;
	case R_MAX:
	case R_MIN:
		v = s[0].v;
		t = s[0].t;
		for (i = 1; i < n; i++)
			if (table[row].how == R_MAX ? s[i].v > v : s[i].v < v) {
				v = s[i].v;
				t = s[i].t;
			}
		break;
	case R_INCREASE:
		for (i = 1; i < n; i++) {
			double d = s[i].v >= s[i - 1].v ? s[i].v - s[i - 1].v : s[i].v;

			if (d > 0 && !first_inc)
				first_inc = s[i].t;
			inc += d;
		}
		v = inc;
		t = first_inc;
		break;
	}
	return fact(c, gpu, has_pci ? pci : NULL, table[row].fact, v, t);
}

static int series(struct ctx *c, const json_t *o)
{
	const char *metric = json_string_value(json_object_get(o, "metric"));
	const json_t *labels = json_object_get(o, "labels");
	struct sample *s = NULL;
	long n = -2;
	int rc = 0;

	if (!metric)
		return 0;
	for (size_t row = 0; row < sizeof(table) / sizeof(table[0]) && rc == 0; row++) {
		if (strcmp(table[row].metric, metric))
			continue;
		if (n == -2 && (n = samples(json_object_get(o, "values"), &s)) < 0)
			return -1;
		if (n > 0)
			rc = reduce(c, row, labels, s, n);
	}
	free(s);
	return rc;
}

int pm_parse_prom(struct pm_evidence *ev, size_t file, const char *buf, size_t len, char *reason,
		  size_t rlen)
{
	struct ctx c = {.ev = ev, .file = file};
	char *hnode = NULL;
	const char *l;
	size_t pos = 0, n, nseries = 0;
	bool header = false;
	int rc = 0;

	c.node = file < ev->nfiles ? ev->files[file].node : NULL;
	while (rc == 0 && pm_in_next_line(buf, len, &pos, &l, &n)) {
		json_t *o;

		pm_in_trim(&l, &n);
		if (n == 0 || l[0] != '{')
			continue; /* the collector's "[postmortem: N bytes omitted here]" */
		if (!(o = json_loadb(l, n, 0, NULL)))
			continue;
		if (!header && json_object_get(o, "schema")) {
			const char *node = json_string_value(json_object_get(o, "node"));

			header = !strcmp(json_string_value(json_object_get(o, "schema")) ?: "",
					 "postmortem.prometheus/1");
			if (header && !c.node && node && *node) {
				if (!(hnode = strdup(node)) ||
				    pm_ev_note_node(ev, node, strlen(node)) < 0)
					rc = -1;
				c.node = hnode;
			}
		} else if (header && json_is_array(json_object_get(o, "values")) &&
			   nseries < MAX_SERIES) {
			nseries++;
			rc = series(&c, o);
		}
		json_decref(o);
	}
	free(hnode);
	if (rc < 0) {
		errno = ENOMEM;
		return pm_in_fail(reason, rlen, "out of memory");
	}
	if (!header)
		return pm_in_fail(reason, rlen, "no postmortem.prometheus/1 header line");
	return 0;
}
