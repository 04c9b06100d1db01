/*
 * parse_nvsmi.c - GPU facts from nvidia-smi: "nvidia-smi -q" and "--query-gpu ... --format=csv".
 *
 * Facts (rules/README.md, "Facts"): per GPU gpu.ecc_volatile_uncorrectable,
 * gpu.ecc_aggregate_uncorrectable, gpu.retired_pages_pending, gpu.remap_pending,
 * gpu.remap_failure, gpu.temperature, gpu.memory_used (MiB), gpu.utilization (%),
 * gpu.compute_processes (-q only: the compute processes its Processes section lists, 0 for
 * "None"), gpu.compute_pid (-q only: one fact per such process, its pid), and the clocks'
 * slowdown reasons (-q's "Clocks Event Reasons", "Clocks Throttle Reasons" before driver 535,
 * or the CSV's clocks_event_reasons.* / clocks_throttle_reasons.*; Active 1, Not Active 0):
 * gpu.clocks_hw_thermal_slowdown, gpu.clocks_hw_power_brake_slowdown,
 * gpu.clocks_sw_thermal_slowdown, and gpu.clocks_hw_slowdown_other (HW Slowdown active with
 * neither of its two reasons above active or listed: an older driver's, or the power draw's
 * fast trigger); per node
 * node.gpu_count and node.gpu_state_time (-q's Timestamp, seconds since the epoch as the
 * node's clock reads it).  A value nvidia-smi reports
 * as N/A (or Not Supported, Unknown Error) gives no fact: an absent fact never holds.
 * The GPU index is the order in which a GPU appears (-q) or the CSV's index column.
 * The same process facts come from nvidia-smi's default table (its Processes box, the GPU
 * numbered as its GPU column and given the bus id the top table gives that index;
 * node.gpu_state_time from the date above it) and from --query-compute-apps CSV (pid and
 * gpu_bus_id, with or without its header: the GPU by its bus id, numbered where a GPU table
 * of the same file gives that bus id an index, else -1).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "internal.h"

#define MAX_DEPTH 16
#define MAX_COLS 64
#define MAX_GPUS 4096
#define MAX_PIDS 16

static const char *file_node(const struct pm_evidence *ev, size_t file)
{
	return file < ev->nfiles ? ev->files[file].node : NULL;
}

/* "00000000:18:00.0", "0000:3B:00.0" or "18:00.0" -> "0000:18:00.0"; false if not a bus id. */
static bool pci_norm(const char *s, size_t n, char *out, size_t olen)
{
	unsigned long part[4] = {0};
	char sep[3] = {0};
	size_t i, np = 0, nd = 0;

	pm_in_trim(&s, &n);
	for (i = 0; i < n; i++) {
		char c = pm_in_lower(s[i]);
		int d = pm_in_isdigit(c) ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;

		if (d >= 0 && nd < 8) {
			part[np] = part[np] * 16 + (unsigned long)d;
			nd++;
		} else if ((c == ':' || c == '.') && nd > 0 && np < 3) {
			sep[np++] = c;
			nd = 0;
		} else {
			return false;
		}
	}
	if (nd == 0)
		return false;
	if (np == 2 && sep[0] == ':' && sep[1] == '.') { /* no domain */
		part[3] = part[2];
		part[2] = part[1];
		part[1] = part[0];
		part[0] = 0;
	} else if (np != 3 || sep[0] != ':' || sep[1] != ':' || sep[2] != '.') {
		return false;
	}
	if (part[1] > 0xff || part[2] > 0x1f || part[3] > 7)
		return false;
	snprintf(out, olen, "%04lx:%02lx:%02lx.%lx", part[0], part[1], part[2], part[3]);
	return true;
}

/* A value as nvidia-smi prints it: -1 absent (N/A), 0 not a number, 1 *V set. */
static int value(const char *s, size_t n, double *v)
{
	size_t k = 0;

	pm_in_trim(&s, &n);
	if (n >= 2 && s[0] == '[' && s[n - 1] == ']') {
		s++;
		n -= 2;
	}
	if (n == 0 || pm_in_ieq(s, n, "N/A") || pm_in_ieq(s, n, "Not Supported") ||
	    pm_in_ieq(s, n, "Unknown Error") || pm_in_ieq(s, n, "Unknown"))
		return -1;
	if (pm_in_ieq(s, n, "Yes")) {
		*v = 1;
		return 1;
	}
	if (pm_in_ieq(s, n, "No")) {
		*v = 0;
		return 1;
	}
	/* a clocks event (throttle) reason */
	if (pm_in_ieq(s, n, "Active")) {
		*v = 1;
		return 1;
	}
	if (pm_in_ieq(s, n, "Not Active")) {
		*v = 0;
		return 1;
	}
	/* "34 C", "81559 MiB": the number is the first word */
	while (k < n && s[k] != ' ')
		k++;
	return pm_in_num(s, k, v) ? 1 : 0;
}

/* ---- nvidia-smi -q ---- */

struct slot {
	double v;
	bool set;
};

struct gpu {
	int idx;   /* its position in the file: a cgroup's nvidia-smi shows only the job's GPUs */
	int minor; /* its Minor Number, the node's numbering whatever the view; -1 none */
	bool has_pci;
	char pci[24];
	struct slot vol, vol_dbe, agg, agg_dbe, retired, remap_pending, remap_failure, temp;
	struct slot used, util, procs;
	struct slot hw_slow, hw_thermal, hw_brake, sw_thermal, hw_other; /* clocks event reasons */
	int pids[MAX_PIDS]; /* the compute processes' pids, in the order listed */
	size_t npids;
	int pid; /* the last "Process ID", until its Type says whether it computes; -1 none */
};

static const struct {
	const char *fact;
	size_t off, alt; /* the slot, and the older form's slot used when it is unset */
} gpu_facts[] = {
	{"gpu.ecc_volatile_uncorrectable", offsetof(struct gpu, vol),
	 offsetof(struct gpu, vol_dbe)},
	{"gpu.ecc_aggregate_uncorrectable", offsetof(struct gpu, agg),
	 offsetof(struct gpu, agg_dbe)},
	{"gpu.retired_pages_pending", offsetof(struct gpu, retired), 0},
	{"gpu.remap_pending", offsetof(struct gpu, remap_pending), 0},
	{"gpu.remap_failure", offsetof(struct gpu, remap_failure), 0},
	{"gpu.temperature", offsetof(struct gpu, temp), 0},
	{"gpu.memory_used", offsetof(struct gpu, used), 0},
	{"gpu.utilization", offsetof(struct gpu, util), 0},
	{"gpu.compute_processes", offsetof(struct gpu, procs), 0},
	{"gpu.clocks_hw_thermal_slowdown", offsetof(struct gpu, hw_thermal), 0},
	{"gpu.clocks_hw_power_brake_slowdown", offsetof(struct gpu, hw_brake), 0},
	{"gpu.clocks_sw_thermal_slowdown", offsetof(struct gpu, sw_thermal), 0},
	{"gpu.clocks_hw_slowdown_other", offsetof(struct gpu, hw_other), 0},
};

static int gpu_flush(struct pm_evidence *ev, size_t file, struct gpu *g)
{
	size_t i;

	if (g->idx < 0)
		return 0;
	/* HW Slowdown that neither of its listed reasons explains */
	if (g->hw_slow.set) {
		bool why = (g->hw_thermal.set && g->hw_thermal.v > 0) ||
			   (g->hw_brake.set && g->hw_brake.v > 0);

		g->hw_other = (struct slot){g->hw_slow.v > 0 && !why ? 1 : 0, true};
	}
	for (i = 0; i < sizeof(gpu_facts) / sizeof(gpu_facts[0]); i++) {
		const struct slot *s = (const struct slot *)((const char *)g + gpu_facts[i].off);
		struct pm_fact *f;

		if (!s->set && gpu_facts[i].alt)
			s = (const struct slot *)((const char *)g + gpu_facts[i].alt);
		if (!s->set)
			continue;
		f = pm_ev_add_fact(ev, file, file_node(ev, file), g->idx, gpu_facts[i].fact, s->v,
				   g->has_pci ? g->pci : NULL);
		if (!f)
			return -1;
		f->minor = g->minor;
	}
	for (i = 0; i < g->npids; i++)
		if (!pm_ev_add_fact(ev, file, file_node(ev, file), g->idx, "gpu.compute_pid",
				    g->pids[i], g->has_pci ? g->pci : NULL))
			return -1;
	g->idx = -1;
	return 0;
}

struct section {
	size_t indent;
	const char *name;
	size_t len;
};

struct qstate {
	struct section st[MAX_DEPTH];
	size_t depth;
};

static bool in_sec(const struct qstate *q, const char *name)
{
	size_t i;

	for (i = 0; i < q->depth; i++)
		if (pm_in_ieq(q->st[i].name, q->st[i].len, name))
			return true;
	return false;
}

static bool inner_is(const struct qstate *q, const char *name)
{
	return q->depth > 0 && pm_in_ieq(q->st[q->depth - 1].name, q->st[q->depth - 1].len, name);
}

static void set_slot(struct slot *s, const char *v, size_t n, bool add)
{
	double x;

	if (value(v, n, &x) <= 0)
		return;
	s->v = add && s->set ? s->v + x : x;
	s->set = true;
}

/* One "Key : value" line of a GPU section. */
static void gpu_field(const struct qstate *q, struct gpu *g, const char *k, size_t kn,
		      const char *v, size_t vn)
{
	bool ecc = in_sec(q, "ECC Errors");

	if (ecc && (in_sec(q, "Volatile") || in_sec(q, "Aggregate"))) {
		bool vol = in_sec(q, "Volatile");

		if ((kn >= 18 && pm_in_ieq(k, 18, "SRAM Uncorrectable")) ||
		    pm_in_ieq(k, kn, "DRAM Uncorrectable"))
			set_slot(vol ? &g->vol : &g->agg, v, vn, true);
		else if (inner_is(q, "Double Bit") && pm_in_ieq(k, kn, "Total"))
			set_slot(vol ? &g->vol_dbe : &g->agg_dbe, v, vn, false);
	} else if (inner_is(q, "Retired Pages")) {
		if (pm_in_ieq(k, kn, "Pending Page Blacklist") || pm_in_ieq(k, kn, "Pending"))
			set_slot(&g->retired, v, vn, false);
	} else if (inner_is(q, "Remapped Rows")) {
		if (pm_in_ieq(k, kn, "Pending"))
			set_slot(&g->remap_pending, v, vn, false);
		else if (pm_in_ieq(k, kn, "Remapping Failure Occurred"))
			set_slot(&g->remap_failure, v, vn, false);
	} else if (in_sec(q, "Clocks Event Reasons") || in_sec(q, "Clocks Throttle Reasons")) {
		/* "HW Thermal Slowdown : Active", nested under "HW Slowdown" in the report */
		if (pm_in_ieq(k, kn, "HW Slowdown"))
			set_slot(&g->hw_slow, v, vn, false);
		else if (pm_in_ieq(k, kn, "HW Thermal Slowdown"))
			set_slot(&g->hw_thermal, v, vn, false);
		else if (pm_in_ieq(k, kn, "HW Power Brake Slowdown"))
			set_slot(&g->hw_brake, v, vn, false);
		else if (pm_in_ieq(k, kn, "SW Thermal Slowdown"))
			set_slot(&g->sw_thermal, v, vn, false);
	} else if (inner_is(q, "Temperature") && pm_in_ieq(k, kn, "GPU Current Temp")) {
		set_slot(&g->temp, v, vn, false);
	} else if (inner_is(q, "FB Memory Usage") && pm_in_ieq(k, kn, "Used")) {
		set_slot(&g->used, v, vn, false);
	} else if (inner_is(q, "Utilization") && pm_in_ieq(k, kn, "Gpu")) {
		set_slot(&g->util, v, vn, false);
	} else if (q->depth == 0 && pm_in_ieq(k, kn, "Processes")) {
		g->procs = (struct slot){0, true}; /* "Processes : None" */
	} else if (in_sec(q, "Processes") && pm_in_ieq(k, kn, "Process ID")) {
		if (!pm_in_int_range(v, vn, 1, 0x7fffffff, &g->pid))
			g->pid = -1;
	} else if (in_sec(q, "Processes") && pm_in_ieq(k, kn, "Type")) {
		/* C, C+G, M+C (an MPS client): a compute context; G (a display server) and M (the
		 * MPS server alone) hold no job's kind of context */
		bool compute = memchr(v, 'C', vn) != NULL;

		g->procs.v += compute ? 1 : 0;
		g->procs.set = true;
		if (compute && g->pid > 0 && g->npids < MAX_PIDS)
			g->pids[g->npids++] = g->pid;
		g->pid = -1;
	} else if (q->depth == 0 && pm_in_ieq(k, kn, "Minor Number") &&
		   !pm_in_int_range(v, vn, 0, 65535, &g->minor)) {
		g->minor = -1; /* "N/A" */
	}
}

/* Split "Key    : value" at the first " :" (keys never hold one; bus ids hold ':'). */
static bool split_kv(const char *s, size_t n, const char **k, size_t *kn, const char **v,
		     size_t *vn)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (s[i] == ':' && s[i - 1] == ' ')
			break;
	if (i >= n)
		return false;
	*k = s;
	*kn = i;
	pm_in_trim(k, kn);
	*v = s + i + 1;
	*vn = n - i - 1;
	pm_in_trim(v, vn);
	return true;
}

/*
 * Whether BUF, told nvidia-smi -q's by its head, goes on with other text: at least three lines
 * after its first that start in the first column and are none of nvidia-smi's (its banner, a
 * GPU's bus id, a "Key : value" line, a "WARNING: ..." of its own).  A job that runs
 * nvidia-smi -q first and then its program writes such a file; its report is the job's
 * output, which the job's user could write, not a state read from the GPUs.
 */
bool pm_nvsmi_q_mixed(const char *buf, size_t len)
{
	char clean[256];
	const char *l, *k, *v;
	size_t pos = 0, n, kn, vn, other = 0;
	bool seen = false;

	while (other < 3 && pm_in_next_line(buf, len, &pos, &l, &n)) {
		/* a terminal's colour codes (a pasted, coloured log): read without them, as the
		 * sniffer read the head */
		n = pm_text_clean(l, n < sizeof(clean) ? n : sizeof(clean), clean);
		l = clean;
		if (!n || l[0] == ' ' || l[0] == '\t')
			continue;
		pm_in_trim(&l, &n);
		if (!n)
			continue;
		if (pm_in_starts(l, n, "==============NVSMI LOG") ||
		    (n > 4 && pm_in_starts(l, n, "GPU ") && !split_kv(l, n, &k, &kn, &v, &vn))) {
			seen = true;
			continue;
		}
		if (seen && !split_kv(l, n, &k, &kn, &v, &vn) && !pm_in_starts(l, n, "WARNING: "))
			other++;
	}
	return other >= 3;
}

/* "Thu Dec  3 09:14:12 2026", -q's Timestamp (the form dmesg -T brackets): 0 when not it. */
static double timestamp(const char *v, size_t vn)
{
	char b[48];
	double t = 0;

	if (vn + 2 >= sizeof(b))
		return 0;
	b[0] = '[';
	memcpy(b + 1, v, vn);
	b[vn + 1] = ']';
	return pm_in_dmesg_T(b, vn + 2, &t) == vn + 2 ? t : 0;
}

/*
 * node.gpu_count from a report's "Attached GPUs", unless a GPU of it has MIG enabled ("MIG
 * Mode" / "Current : Enabled", or a "MIG Devices" section listing its instances): Slurm then
 * counts each MIG instance a GPU of the job's gres, and four GPUs cut into eight instances are
 * no missing GPU (gpu-count-mig-instances-near-miss).  -1 on ENOMEM.
 */
static int count_flush(struct pm_evidence *ev, size_t file, double *attached, bool *mig)
{
	int rc = 0;

	if (*attached > 0 && !*mig &&
	    !pm_ev_add_fact(ev, file, file_node(ev, file), -1, "node.gpu_count", *attached, NULL))
		rc = -1;
	*attached = -1;
	*mig = false;
	return rc;
}

int pm_parse_nvsmi_q(struct pm_evidence *ev, size_t file, const char *buf, size_t len, char *reason,
		     size_t rlen)
{
	struct qstate q = {.depth = 0};
	struct gpu g = {.idx = -1, .minor = -1, .pid = -1};
	const char *l, *k, *v;
	size_t pos = 0, n, kn, vn, indent;
	int ngpus = 0;
	bool seen = false, mig = false;
	double x, attached = -1, stamp = 0;

	while (pm_in_next_line(buf, len, &pos, &l, &n)) {
		for (indent = 0; indent < n && (l[indent] == ' ' || l[indent] == '\t'); indent++)
			;
		pm_in_trim(&l, &n);
		if (n == 0)
			continue;
		if (pm_in_starts(l, n, "==============NVSMI LOG")) {
			if (gpu_flush(ev, file, &g) || count_flush(ev, file, &attached, &mig))
				goto nomem;
			ngpus = 0;
			q.depth = 0;
			seen = true;
			continue;
		}
		if (indent == 0 && n > 4 && pm_in_starts(l, n, "GPU ") &&
		    !split_kv(l, n, &k, &kn, &v, &vn)) {
			if (gpu_flush(ev, file, &g))
				goto nomem;
			if (ngpus >= MAX_GPUS)
				return pm_in_fail(reason, rlen, "more than %d GPUs", MAX_GPUS);
			g = (struct gpu){.idx = ngpus++, .minor = -1, .pid = -1};
			g.has_pci = pci_norm(l + 4, n - 4, g.pci, sizeof(g.pci));
			q.depth = 0;
			seen = true;
			continue;
		}
		while (q.depth > 0 && q.st[q.depth - 1].indent >= indent)
			q.depth--;
		if (!split_kv(l, n, &k, &kn, &v, &vn)) {
			if (pm_in_ieq(l, n, "MIG Devices"))
				mig = true;
			if (q.depth < MAX_DEPTH)
				q.st[q.depth++] = (struct section){indent, l, n};
			continue;
		}
		if (inner_is(&q, "MIG Mode") && pm_in_ieq(k, kn, "Current") &&
		    pm_in_ieq(v, vn, "Enabled"))
			mig = true;
		if (pm_in_ieq(k, kn, "Attached GPUs")) {
			seen = true;
			if (value(v, vn, &x) > 0)
				attached = x;
		} else if (g.idx < 0 && pm_in_ieq(k, kn, "Timestamp")) {
			stamp = timestamp(v, vn);
		} else if (g.idx >= 0) {
			gpu_field(&q, &g, k, kn, v, vn);
		}
	}
	if (gpu_flush(ev, file, &g) || count_flush(ev, file, &attached, &mig))
		goto nomem;
	if (stamp > 0 &&
	    !pm_ev_add_fact(ev, file, file_node(ev, file), -1, "node.gpu_state_time", stamp, NULL))
		goto nomem;
	if (!seen)
		return pm_in_fail(reason, rlen,
				  "no NVSMI LOG header, Attached GPUs line or GPU section");
	return 0;
nomem:
	errno = ENOMEM;
	return pm_in_fail(reason, rlen, "out of memory");
}

/* ---- nvidia-smi --query-gpu=... --format=csv ---- */

enum col {
	COL_NONE,
	COL_INDEX,
	COL_PCI,
	COL_UUID,
	COL_VOL,
	COL_AGG,
	COL_RETIRED,
	COL_TEMP,
	COL_REMAP_PENDING,
	COL_REMAP_FAILURE,
	COL_MIG,
	COL_USED,
	COL_UTIL,
	COL_PID,
	COL_HW_SLOW,
	COL_HW_THERMAL,
	COL_HW_BRAKE,
	COL_SW_THERMAL,
};

static const struct {
	const char *name;
	enum col col;
	const char *fact;
} csv_cols[] = {
	{"index", COL_INDEX, NULL},
	{"pci.bus_id", COL_PCI, NULL},
	{"gpu_bus_id", COL_PCI, NULL},
	{"uuid", COL_UUID, NULL},
	{"gpu_uuid", COL_UUID, NULL},
	{"ecc.errors.uncorrected.volatile.total", COL_VOL, "gpu.ecc_volatile_uncorrectable"},
	{"ecc.errors.uncorrected.aggregate.total", COL_AGG, "gpu.ecc_aggregate_uncorrectable"},
	{"retired_pages.pending", COL_RETIRED, "gpu.retired_pages_pending"},
	{"temperature.gpu", COL_TEMP, "gpu.temperature"},
	{"remapped_rows.pending", COL_REMAP_PENDING, "gpu.remap_pending"},
	{"remapped_rows.failure", COL_REMAP_FAILURE, "gpu.remap_failure"},
	{"mig.mode.current", COL_MIG, NULL},
	{"memory.used", COL_USED, "gpu.memory_used"},
	{"utilization.gpu", COL_UTIL, "gpu.utilization"},
	{"pid", COL_PID, NULL}, /* --query-compute-apps: a row per compute process */
	/* the clocks' slowdown reasons, under their name since driver 535 and the older one */
	{"clocks_event_reasons.hw_slowdown", COL_HW_SLOW, "gpu.clocks_hw_slowdown_other"},
	{"clocks_throttle_reasons.hw_slowdown", COL_HW_SLOW, "gpu.clocks_hw_slowdown_other"},
	{"clocks_event_reasons.hw_thermal_slowdown", COL_HW_THERMAL,
	 "gpu.clocks_hw_thermal_slowdown"},
	{"clocks_throttle_reasons.hw_thermal_slowdown", COL_HW_THERMAL,
	 "gpu.clocks_hw_thermal_slowdown"},
	{"clocks_event_reasons.hw_power_brake_slowdown", COL_HW_BRAKE,
	 "gpu.clocks_hw_power_brake_slowdown"},
	{"clocks_throttle_reasons.hw_power_brake_slowdown", COL_HW_BRAKE,
	 "gpu.clocks_hw_power_brake_slowdown"},
	{"clocks_event_reasons.sw_thermal_slowdown", COL_SW_THERMAL,
	 "gpu.clocks_sw_thermal_slowdown"},
	{"clocks_throttle_reasons.sw_thermal_slowdown", COL_SW_THERMAL,
	 "gpu.clocks_sw_thermal_slowdown"},
};

struct field {
	const char *s;
	size_t n;
};

/* Split a CSV line at commas (nvidia-smi never quotes); returns the number of fields. */
static size_t split_csv(const char *s, size_t n, struct field *f, size_t max)
{
	size_t nf = 0;
	const char *c;

	while (nf < max) {
		c = memchr(s, ',', n);
		f[nf].s = s;
		f[nf].n = c ? (size_t)(c - s) : n;
		pm_in_trim(&f[nf].s, &f[nf].n);
		nf++;
		if (!c)
			break;
		n -= (size_t)(c - s) + 1;
		s = c + 1;
	}
	return nf;
}

/* Map header fields to columns; the number of known columns. */
static size_t csv_header(const struct field *f, size_t nf, int *map)
{
	size_t i, j, known = 0;

	for (i = 0; i < nf; i++) {
		const char *s = f[i].s, *u = memchr(f[i].s, '[', f[i].n);
		size_t n = u ? (size_t)(u - s) : f[i].n;

		pm_in_trim(&s, &n);
		map[i] = COL_NONE;
		for (j = 0; j < sizeof(csv_cols) / sizeof(csv_cols[0]); j++) {
			if (pm_in_ieq(s, n, csv_cols[j].name)) {
				map[i] = (int)j + 1; /* 1-based index into csv_cols */
				known++;
			}
		}
	}
	return known;
}

/* ---- nvidia-smi's default table ---- */

#define MAX_TGPUS 64

struct tgpu {
	int idx; /* the GPU column: nvidia-smi's index, as its top table numbers it */
	bool has_pci, listed;
	char pci[24];
	int procs; /* its compute processes in the Processes box */
	int pids[MAX_PIDS];
	size_t npids;
};

struct table {
	struct tgpu g[MAX_TGPUS];
	size_t n;
};

static struct tgpu *tgpu_of(struct table *t, int idx)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->g[i].idx == idx)
			return &t->g[i];
	if (t->n >= MAX_TGPUS)
		return NULL;
	t->g[t->n] = (struct tgpu){.idx = idx};
	return &t->g[t->n++];
}

/* The next word of S (N) from *I: false at the end. */
static bool word(const char *s, size_t n, size_t *i, const char **w, size_t *wn)
{
	while (*i < n && (s[*i] == ' ' || s[*i] == '\t'))
		(*i)++;
	if (*i >= n)
		return false;
	*w = s + *i;
	while (*i < n && s[*i] != ' ' && s[*i] != '\t')
		(*i)++;
	*wn = (size_t)(s + *i - *w);
	return true;
}

/* A process's Type column: C, G, C+G, M, M+C. */
static bool proc_type(const char *w, size_t n)
{
	size_t i = 0;

	while (i < n && (w[i] == 'C' || w[i] == 'G' || w[i] == 'M' || w[i] == '+'))
		i++;
	return n > 0 && n <= 3 && i == n;
}

/*
 * A row of the Processes box, its bars cut: "0   N/A  N/A   1395   C   python   25081MiB"
 * (GPU, GI, CI, PID, Type, name, memory; drivers before 450 print no GI and CI).  The GPU's
 * index in *GPU, the pid in *PID, whether it computes in *COMPUTE: false if not such a row.
 */
static bool proc_row(const char *s, size_t n, int *gpu, int *pid, bool *compute)
{
	const char *w[5];
	size_t wn[5], i = 0, k;

	for (k = 0; k < 5 && word(s, n, &i, &w[k], &wn[k]); k++)
		;
	if (k < 4 || !pm_in_int_range(w[0], wn[0], 0, MAX_GPUS - 1, gpu))
		return false;
	if (proc_type(w[2], wn[2])) { /* GPU PID Type */
		k = 1;
	} else if (k == 5 && proc_type(w[4], wn[4])) { /* GPU GI CI PID Type */
		for (size_t j = 1; j < 3; j++) {
			int id;
			if (!pm_in_ieq(w[j], wn[j], "N/A") &&
			    !pm_in_int_range(w[j], wn[j], 0, 0xffff, &id))
				return false;
		}
		k = 3;
	} else {
		return false;
	}
	if (!pm_in_int_range(w[k], wn[k], 1, 0x7fffffff, pid))
		return false;
	*compute = memchr(w[k + 1], 'C', wn[k + 1]) != NULL;
	return true;
}

/* A row of the top table's first cell, "   0  NVIDIA A100-SXM4-80GB   On  ", and the bus id
 * that begins its second: the GPU's index and bus id.  False if not such a row. */
static bool gpu_row(const char *s, size_t n, struct table *t)
{
	const char *bar = memchr(s, '|', n), *w, *p;
	size_t i = 0, wn, pn, j = 0;
	int idx;
	struct tgpu *g;

	if (!bar || !word(s, (size_t)(bar - s), &i, &w, &wn) ||
	    !pm_in_int_range(w, wn, 0, MAX_GPUS - 1, &idx) ||
	    !word(s, (size_t)(bar - s), &i, &p, &pn) || pm_in_isdigit(p[0]))
		return false;
	bar++;
	if (!word(bar, n - (size_t)(bar - s), &j, &p, &pn) || !(g = tgpu_of(t, idx)))
		return false;
	g->has_pci = pci_norm(p, pn, g->pci, sizeof(g->pci));
	g->listed = true;
	return true;
}

/* A line that is nvidia-smi's own in its default output: a box's edge or row, or blank. */
static bool table_line(const char *s, size_t n)
{
	pm_in_trim(&s, &n);
	return n == 0 || s[0] == '|' || s[0] == '+';
}

/*
 * Whether BUF, sniffed as nvidia-smi's default table, is one: its Processes box is there, and
 * outside its boxes no more than two lines (a date above it, the command that printed it).
 * A job's output that ran nvidia-smi first and goes on with its program's is the job's
 * (pm_nvsmi_q_mixed says the same of -q), and a table without its Processes box says
 * nothing this parser reads: both stay the job's text (nvsmi-table-err-app reads it).
 */
bool pm_nvsmi_table_whole(const char *buf, size_t len)
{
	const char *l;
	size_t pos = 0, n, other = 0;
	bool procs = false;

	while (pm_in_next_line(buf, len, &pos, &l, &n)) {
		if (!table_line(l, n))
			other++;
		pm_in_trim(&l, &n);
		if (n > 1 && l[0] == '|') {
			l++;
			n--;
			pm_in_trim(&l, &n);
			if (pm_in_starts(l, n, "Processes:"))
				procs = true;
		}
	}
	return procs && other <= 2;
}

/*
 * nvidia-smi's default output.  Facts: per GPU gpu.compute_processes (the compute processes
 * its Processes box lists, 0 for a GPU of the top table it lists none for, "No running
 * processes found" included) and gpu.compute_pid, the GPU numbered and its bus id as the top
 * table gives them (a Processes box alone: its GPU column, no bus id); node.gpu_count, the
 * top table's GPUs (none with a MIG devices box); node.gpu_state_time from the date
 * nvidia-smi prints above the table.  The same facts as -q's Processes and Attached GPUs.
 */
int pm_parse_nvsmi_table(struct pm_evidence *ev, size_t file, const char *buf, size_t len,
			 char *reason, size_t rlen)
{
	struct table *t = calloc(1, sizeof(*t));
	const char *l, *node = file_node(ev, file);
	size_t pos = 0, n, i, listed = 0;
	bool procs = false, seen = false, mig = false;
	double stamp = 0;

	if (!t)
		goto nomem;
	while (pm_in_next_line(buf, len, &pos, &l, &n)) {
		int gpu, pid;
		bool compute;
		struct tgpu *g;

		pm_in_trim(&l, &n);
		if (n == 0)
			continue;
		if (l[0] != '|') {
			if (!seen && !stamp)
				stamp = timestamp(l, n);
			continue;
		}
		l++;
		n--;
		if (n && l[n - 1] == '|')
			n--;
		pm_in_trim(&l, &n);
		if (pm_in_starts(l, n, "Processes:")) {
			procs = seen = true;
			continue;
		}
		mig |= pm_in_starts(l, n, "MIG devices:");
		if (pm_in_starts(l, n, "NVIDIA-SMI ") || pm_in_starts(l, n, "GPU "))
			seen = true;
		if (!procs) {
			seen |= gpu_row(l, n, t);
			continue;
		}
		if (!proc_row(l, n, &gpu, &pid, &compute) || !(g = tgpu_of(t, gpu)))
			continue;
		if (!compute)
			continue;
		g->procs++;
		if (g->npids < MAX_PIDS)
			g->pids[g->npids++] = pid;
	}
	for (i = 0; i < t->n; i++)
		listed += t->g[i].listed;
	/* the GPUs the node shows, as -q's Attached GPUs (none with MIG: its instances are the
	 * devices a job holds) */
	if (listed && !mig && !pm_ev_add_fact(ev, file, node, -1, "node.gpu_count", listed, NULL))
		goto nomem;
	for (i = 0; procs && i < t->n; i++) {
		const struct tgpu *g = &t->g[i];
		const char *pci = g->has_pci ? g->pci : NULL;

		if (!pm_ev_add_fact(ev, file, node, g->idx, "gpu.compute_processes", g->procs, pci))
			goto nomem;
		for (size_t k = 0; k < g->npids; k++)
			if (!pm_ev_add_fact(ev, file, node, g->idx, "gpu.compute_pid", g->pids[k],
					    pci))
				goto nomem;
	}
	free(t);
	if (stamp > 0 && !pm_ev_add_fact(ev, file, node, -1, "node.gpu_state_time", stamp, NULL))
		goto nomem;
	if (!seen)
		return pm_in_fail(reason, rlen, "no nvidia-smi banner, GPU table or Processes box");
	return 0;
nomem:
	free(t);
	errno = ENOMEM;
	return pm_in_fail(reason, rlen, "out of memory");
}

/* ---- the CSV's rows ---- */

/* The GPU of T whose bus id is PCI, or a new one (index IDX) when ADD: NULL if none. */
static struct tgpu *tgpu_pci(struct table *t, const char *pci, int idx, bool add)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->g[i].has_pci && !strcmp(t->g[i].pci, pci))
			return &t->g[i];
	if (!add || t->n >= MAX_TGPUS)
		return NULL;
	t->g[t->n] = (struct tgpu){.idx = idx, .has_pci = true};
	snprintf(t->g[t->n].pci, sizeof(t->g[t->n].pci), "%s", pci);
	return &t->g[t->n++];
}

static int csv_row(struct pm_evidence *ev, size_t file, const struct field *f, size_t nf,
		   const int *map, size_t ncols, int row, struct table *t)
{
	char pci[24];
	bool has_pci = false, has_idx = false;
	int gpu = row, pid = -1;
	size_t i;
	double x;
	bool reason = false; /* a HW Slowdown reason column reads Active */

	for (i = 0; i < nf && i < ncols; i++) {
		if (!map[i])
			continue;
		if ((csv_cols[map[i] - 1].col == COL_HW_THERMAL ||
		     csv_cols[map[i] - 1].col == COL_HW_BRAKE) &&
		    value(f[i].s, f[i].n, &x) > 0 && x > 0)
			reason = true;
		if (csv_cols[map[i] - 1].col == COL_INDEX)
			has_idx = pm_in_int_range(f[i].s, f[i].n, 0, MAX_GPUS - 1, &gpu);
		if (csv_cols[map[i] - 1].col == COL_PCI)
			has_pci = pci_norm(f[i].s, f[i].n, pci, sizeof(pci));
		if (csv_cols[map[i] - 1].col == COL_PID &&
		    !pm_in_int_range(f[i].s, f[i].n, 1, 0x7fffffff, &pid))
			pid = 0;
	}
	if (!has_idx)
		gpu = row;
	if (pid >= 0) { /* a compute process: its GPU by its bus id */
		struct tgpu *g = has_pci ? tgpu_pci(t, pci, -1, true) : NULL;
		if (g && pid > 0) {
			g->procs++;
			if (g->npids < MAX_PIDS)
				g->pids[g->npids++] = pid;
		}
		return 0;
	}
	if (has_pci && has_idx) { /* a GPU's index, for the processes' bus ids */
		struct tgpu *g = tgpu_pci(t, pci, gpu, true);
		if (g)
			g->idx = gpu;
	}
	for (i = 0; i < nf && i < ncols; i++) {
		const char *fact = map[i] ? csv_cols[map[i] - 1].fact : NULL;

		if (!fact || value(f[i].s, f[i].n, &x) <= 0)
			continue;
		if (csv_cols[map[i] - 1].col == COL_HW_SLOW && reason)
			x = 0; /* explained by its thermal or power-brake reason */
		if (!pm_ev_add_fact(ev, file, file_node(ev, file), gpu, fact, x,
				    has_pci ? pci : NULL))
			return -1;
	}
	return 0;
}

/* The column of csv_cols named NAME, 1-based. */
static int csv_col(const char *name)
{
	for (size_t j = 0; j < sizeof(csv_cols) / sizeof(csv_cols[0]); j++)
		if (!strcmp(csv_cols[j].name, name))
			return (int)j + 1;
	return 0;
}

/* A row of --query-compute-apps=pid,process_name,used_memory,gpu_bus_id printed without its
 * header (--format=csv,noheader): "1395, python, 25081 MiB, 00000000:3B:00.0". */
static bool apps_row(const struct field *f, size_t nf)
{
	char pci[24];
	int pid;

	return nf == 4 && pm_in_int_range(f[0].s, f[0].n, 1, 0x7fffffff, &pid) && f[1].n > 0 &&
	       pci_norm(f[3].s, f[3].n, pci, sizeof(pci));
}

bool pm_nvsmi_apps_line(const char *s, size_t n)
{
	struct field f[MAX_COLS];

	pm_in_trim(&s, &n);
	return apps_row(f, split_csv(s, n, f, MAX_COLS));
}

int pm_parse_nvsmi_csv(struct pm_evidence *ev, size_t file, const char *buf, size_t len,
		       char *reason, size_t rlen)
{
	struct field f[MAX_COLS];
	int map[MAX_COLS], first[1];
	const char *l, *node = file_node(ev, file);
	size_t pos = 0, n, nf, ncols = 0, j;
	int rows = 0, gpu_rows = -1;
	bool gpu_table = false, any = false, mig = false, apps = false;
	struct table *t = calloc(1, sizeof(*t));

	if (!t)
		goto nomem;
	while (pm_in_next_line(buf, len, &pos, &l, &n)) {
		pm_in_trim(&l, &n);
		if (n == 0)
			continue;
		nf = split_csv(l, n, f, MAX_COLS);
		/* --query-compute-apps without its header: its columns as the collector asks */
		if (ncols == 0 && apps_row(f, nf)) {
			memset(map, 0, sizeof(map));
			map[0] = csv_col("pid");
			map[3] = csv_col("gpu_bus_id");
			ncols = 4;
			rows = 0;
			gpu_table = false;
			any = apps = true;
		}
		/* a header: the first line, or a new table whose first field is a known name */
		else if (ncols == 0 || (nf > 0 && (f[0].n == 0 || !pm_in_isdigit(f[0].s[0])) &&
					csv_header(f, 1, first) == 1)) {
			if (csv_header(f, nf, map) == 0) {
				free(t);
				return pm_in_fail(reason, rlen,
						  "the first line is not a nvidia-smi CSV header");
			}
			ncols = nf;
			rows = 0;
			gpu_table = false;
			for (j = 0; j < nf; j++) {
				if (map[j] && (csv_cols[map[j] - 1].col == COL_INDEX ||
					       csv_cols[map[j] - 1].col == COL_UUID))
					gpu_table = true;
				if (map[j] && csv_cols[map[j] - 1].col == COL_PID)
					apps = true;
			}
			any = true;
			continue;
		}
		if (rows >= MAX_GPUS)
			continue;
		if (csv_row(ev, file, f, nf, map, ncols, rows, t))
			goto nomem;
		for (j = 0; j < nf && j < ncols; j++) /* a MIG GPU: no count (count_flush) */
			if (map[j] && csv_cols[map[j] - 1].col == COL_MIG &&
			    pm_in_ieq(f[j].s, f[j].n, "Enabled"))
				mig = true;
		rows++;
		if (gpu_table && rows > gpu_rows)
			gpu_rows = rows;
	}
	if (!any) {
		free(t);
		return pm_in_fail(reason, rlen, "empty: no nvidia-smi CSV header");
	}
	if (gpu_rows >= 0 && !mig &&
	    !pm_ev_add_fact(ev, file, node, -1, "node.gpu_count", gpu_rows, NULL))
		goto nomem;
	/* the compute processes, per GPU: by the index a GPU table of the file gives its bus
	 * id, else by the bus id alone; a GPU of such a table that no process row names holds
	 * none */
	for (size_t i = 0; apps && i < t->n; i++) {
		const struct tgpu *g = &t->g[i];

		if (!pm_ev_add_fact(ev, file, node, g->idx, "gpu.compute_processes", g->procs,
				    g->pci))
			goto nomem;
		for (size_t k = 0; k < g->npids; k++)
			if (!pm_ev_add_fact(ev, file, node, g->idx, "gpu.compute_pid", g->pids[k],
					    g->pci))
				goto nomem;
	}
	free(t);
	return 0;
nomem:
	free(t);
	errno = ENOMEM;
	return pm_in_fail(reason, rlen, "out of memory");
}
