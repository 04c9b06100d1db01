/*
 * check_input_parsers.c - the input suite's structured parsers: nvidia-smi (-q and CSV),
 * sacct, scontrol, meminfo and rank_map/task_exit, each on hostile copies of its input too.
 */

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "evidence.h"
#include "postmortem.h"
#include "support.h"
#include "check_input.h"

typedef int parse_fn(struct pm_evidence *, size_t, const char *, size_t, char *, size_t);

static int run_n(parse_fn *fn, struct pm_evidence *ev, const char *text, size_t n, char *reason)
{
	char *b = dup_exact(text, n);
	int rc = fn(ev, 0, b, n, reason, 200);

	free(b);
	return rc;
}

static int run(parse_fn *fn, struct pm_evidence *ev, const char *text, char *reason)
{
	return run_n(fn, ev, text, strlen(text), reason);
}

/* The last fact NAME of GPU, or NULL. */
static const struct pm_fact *fact(const struct pm_evidence *ev, const char *name, int gpu)
{
	const struct pm_fact *f = NULL;
	size_t i;

	for (i = 0; i < ev->nfacts; i++)
		if (strcmp(ev->facts[i].name, name) == 0 && ev->facts[i].gpu == gpu)
			f = &ev->facts[i];
	return f;
}

static size_t count_facts(const struct pm_evidence *ev, const char *name)
{
	size_t i, c = 0;

	for (i = 0; i < ev->nfacts; i++)
		c += strcmp(ev->facts[i].name, name) == 0;
	return c;
}

static const struct pm_task *task(const struct pm_evidence *ev, int rank)
{
	size_t i;

	for (i = 0; i < ev->ntasks; i++)
		if (ev->tasks[i].rank == rank)
			return &ev->tasks[i];
	return NULL;
}

/* Run FN on every truncation of TEXT and on damaged copies of it: only crashes fail. */
static void hostile(parse_fn *fn, const char *text)
{
	size_t n = strlen(text), k, step = n > 4000 ? n / 2000 : 1, i;
	struct pm_evidence *ev;
	char reason[200], *b;

	for (k = 0; k <= n; k += step) {
		ev = ev_new("n1");
		run_n(fn, ev, text, k, reason);
		pm_evidence_destroy(ev);
	}
	for (i = 0; i < 300; i++) {
		b = dup_exact(text, n);
		for (k = 0; k < 1 + rnd() % 8 && n > 0; k++) {
			static const char junk[] = {'\0', '\n', ':', '|', '[', ']',    '=', ',',
						    '9',  ' ',	'-', '{', '"', '\xff', '.', '+'};

			b[rnd() % n] = junk[rnd() % sizeof(junk)];
		}
		ev = ev_new(i % 2 ? "n1" : NULL);
		fn(ev, 0, b, n, reason, sizeof(reason));
		pm_evidence_destroy(ev);
		free(b);
	}
}

/* A 1 MB line followed by TEXT, and TEXT followed by a 1 MB line. */
static void long_lines(parse_fn *fn, const char *text, char fill)
{
	size_t big = 1 << 20, n = strlen(text);
	char *b = malloc(big + n + 1), reason[200];
	struct pm_evidence *ev;

	ck_assert_ptr_nonnull(b);
	memset(b, fill, big);
	b[big] = '\n';
	memcpy(b + big + 1, text, n);
	ev = ev_new("n1");
	fn(ev, 0, b, big + n + 1, reason, sizeof(reason));
	pm_evidence_destroy(ev);
	memcpy(b, text, n);
	memset(b + n, fill, big + 1);
	ev = ev_new("n1");
	fn(ev, 0, b, big + n + 1, reason, sizeof(reason));
	pm_evidence_destroy(ev);
	free(b);
}

/* ---- nvidia-smi ---- */

#define FACT_IS(ev, name, gpu, want)                                                        \
	do {                                                                                \
		const struct pm_fact *f_ = fact(ev, name, gpu);                             \
		ck_assert_msg(f_ != NULL, "no fact %s gpu %d", name, gpu);                  \
		ck_assert_msg(f_->value == (want), "%s gpu %d = %g", name, gpu, f_->value); \
	} while (0)

START_TEST(nvsmi_q)
{
	struct pm_evidence *ev = ev_new("gpu016");
	char reason[200] = "";
	const struct pm_fact *f;

	ck_assert_int_eq(run(pm_parse_nvsmi_q, ev, NVSMI_Q, reason), 0);
	FACT_IS(ev, "node.gpu_count", -1, 2);
	FACT_IS(ev, "gpu.ecc_volatile_uncorrectable", 0, 0);
	FACT_IS(ev, "gpu.ecc_volatile_uncorrectable", 1, 3);
	FACT_IS(ev, "gpu.ecc_aggregate_uncorrectable", 1, 6);
	FACT_IS(ev, "gpu.remap_pending", 0, 0);
	FACT_IS(ev, "gpu.remap_pending", 1, 1);
	FACT_IS(ev, "gpu.remap_failure", 1, 0);
	FACT_IS(ev, "gpu.temperature", 0, 34);
	FACT_IS(ev, "gpu.temperature", 1, 35);
	ck_assert_ptr_null(fact(ev, "gpu.retired_pages_pending", 0));
	ck_assert_ptr_null(fact(ev, "gpu.ecc_volatile_uncorrectable", 2));
	f = fact(ev, "gpu.temperature", 1);
	ck_assert_str_eq(f->pci, "0000:2a:00.0");
	ck_assert_str_eq(f->node, "gpu016");
	ck_assert_uint_eq(f->file, 0);
	ck_assert_str_eq(fact(ev, "gpu.temperature", 0)->pci, "0000:18:00.0");
	ck_assert_ptr_null(fact(ev, "node.gpu_count", -1)->pci);
	pm_evidence_destroy(ev);
}
END_TEST

/* The GPU's holders: memory used, utilisation, the compute processes (not a display
 * server's G, nor the MPS server's M alone) with their pids, the report's Timestamp. */
START_TEST(nvsmi_q_processes)
{
	struct pm_evidence *ev = ev_new("gpu016");
	char reason[200] = "";

	ck_assert_int_eq(run(pm_parse_nvsmi_q, ev,
			     "==============NVSMI LOG==============\n"
			     "Timestamp                 : Thu Dec  3 09:14:12 2026\n"
			     "Attached GPUs             : 3\n"
			     "GPU 00000000:18:00.0\n"
			     "    FB Memory Usage\n"
			     "        Total             : 81559 MiB\n"
			     "        Used              : 61834 MiB\n"
			     "    Utilization\n"
			     "        Gpu               : 97 %\n"
			     "    Processes\n"
			     "        GPU instance ID   : N/A\n"
			     "        Process ID        : 1480221\n"
			     "            Type          : C\n"
			     "            Name          : python3\n"
			     "        Process ID        : 2210\n"
			     "            Type          : G\n"
			     "        Process ID        : 3301\n"
			     "            Type          : M+C\n"
			     "GPU 00000000:2A:00.0\n"
			     "    Utilization\n"
			     "        Gpu               : N/A\n"
			     "    Processes             : None\n"
			     "GPU 00000000:3B:00.0\n"
			     "    Processes\n"
			     "        Process ID        : 77\n"
			     "            Type          : M\n",
			     reason),
			 0);
	FACT_IS(ev, "gpu.memory_used", 0, 61834);
	FACT_IS(ev, "gpu.utilization", 0, 97);
	FACT_IS(ev, "gpu.compute_processes", 0, 2);
	FACT_IS(ev, "gpu.compute_processes", 1, 0);
	FACT_IS(ev, "gpu.compute_processes", 2, 0);
	ck_assert_ptr_null(fact(ev, "gpu.utilization", 1));
	ck_assert_uint_eq(count_facts(ev, "gpu.compute_pid"), 2);
	FACT_IS(ev, "gpu.compute_pid", 0, 3301);
	ck_assert_ptr_null(fact(ev, "gpu.compute_pid", 2));
	FACT_IS(ev, "node.gpu_state_time", -1, 1796289252);
	pm_evidence_destroy(ev);
}
END_TEST

START_TEST(nvsmi_q_variants)
{
	struct pm_evidence *ev = ev_new(NULL);
	char reason[200] = "";

	ck_assert_int_eq(run(pm_parse_nvsmi_q, ev, NVSMI_Q_OLD, reason), 0);
	FACT_IS(ev, "gpu.ecc_volatile_uncorrectable", 0, 3);
	FACT_IS(ev, "gpu.ecc_aggregate_uncorrectable", 0, 8);
	FACT_IS(ev, "gpu.retired_pages_pending", 0, 1);
	FACT_IS(ev, "gpu.temperature", 0, 81);
	ck_assert_ptr_null(fact(ev, "gpu.temperature", 0)->node);
	ck_assert_str_eq(fact(ev, "gpu.temperature", 0)->pci, "0000:3b:00.0");
	pm_evidence_destroy(ev);

	ev = ev_new("gpu017");
	ck_assert_int_eq(run(pm_parse_nvsmi_q, ev, NVSMI_Q_550, reason), 0);
	FACT_IS(ev, "gpu.ecc_volatile_uncorrectable", 0, 7);
	FACT_IS(ev, "gpu.ecc_aggregate_uncorrectable", 0, 7);
	ck_assert_str_eq(fact(ev, "gpu.ecc_volatile_uncorrectable", 0)->pci, "10000:e0:00.0");
	ck_assert_ptr_null(fact(ev, "gpu.temperature", 0));
	ck_assert_ptr_null(fact(ev, "gpu.remap_pending", 0));
	ck_assert_ptr_null(fact(ev, "gpu.ecc_volatile_uncorrectable", 1));
	FACT_IS(ev, "gpu.remap_pending", 1, 0);
	FACT_IS(ev, "gpu.remap_failure", 1, 1);
	pm_evidence_destroy(ev);

	/* a GPU lost: fewer attached GPUs than the node has */
	ev = ev_new("gpu017");
	ck_assert_int_eq(run(pm_parse_nvsmi_q, ev,
			     "==============NVSMI LOG==============\nAttached GPUs : 7\n", reason),
			 0);
	FACT_IS(ev, "node.gpu_count", -1, 7);
	pm_evidence_destroy(ev);

	/* MIG enabled: Slurm's gres counts instances, so no count of GPUs to compare */
	ev = ev_new("gpu017");
	ck_assert_int_eq(run(pm_parse_nvsmi_q, ev,
			     "==============NVSMI LOG==============\nAttached GPUs : 2\n"
			     "GPU 00000000:18:00.0\n    MIG Mode\n        Current : Enabled\n"
			     "        Pending : Enabled\n"
			     "GPU 00000000:2A:00.0\n    MIG Mode\n        Current : Disabled\n",
			     reason),
			 0);
	ck_assert_ptr_null(fact(ev, "node.gpu_count", -1));
	pm_evidence_destroy(ev);
	ev = ev_new("gpu017");
	ck_assert_int_eq(run(pm_parse_nvsmi_q, ev,
			     "==============NVSMI LOG==============\nAttached GPUs : 1\n"
			     "GPU 00000000:18:00.0\n    MIG Devices\n"
			     "        MIG 1g.10gb     Device            0\n",
			     reason),
			 0);
	ck_assert_ptr_null(fact(ev, "node.gpu_count", -1));
	pm_evidence_destroy(ev);
	ev = ev_new("gpu017"); /* MIG disabled: counted */
	ck_assert_int_eq(run(pm_parse_nvsmi_q, ev,
			     "==============NVSMI LOG==============\nAttached GPUs : 1\n"
			     "GPU 00000000:18:00.0\n    MIG Mode\n        Current : Disabled\n",
			     reason),
			 0);
	FACT_IS(ev, "node.gpu_count", -1, 1);
	pm_evidence_destroy(ev);
	ev = ev_new("gpu017");
	ck_assert_int_eq(run(pm_parse_nvsmi_csv, ev,
			     "index, pci.bus_id, mig.mode.current\n0, 00000000:18:00.0, Enabled\n"
			     "1, 00000000:2A:00.0, Enabled\n",
			     reason),
			 0);
	ck_assert_ptr_null(fact(ev, "node.gpu_count", -1));
	pm_evidence_destroy(ev);
}
END_TEST

START_TEST(nvsmi_q_hostile)
{
	struct pm_evidence *ev = ev_new("n1");
	char reason[200] = "";

	ck_assert_int_eq(run(pm_parse_nvsmi_q, ev, "hello\nworld\n", reason), -1);
	ck_assert_str_ne(reason, "");
	ck_assert_int_eq(run(pm_parse_nvsmi_q, ev, "", reason), -1);
	ck_assert_uint_eq(ev->nfacts, 0);
	ck_assert_int_eq(run(pm_parse_nvsmi_q, ev,
			     "Attached GPUs : 99999999999999999999999\n"
			     "GPU 00000000:18:00.0\n    Temperature\n"
			     "        GPU Current Temp : 1e999 C\n"
			     "GPU zz:qq\n    Temperature\n        GPU Current Temp : 40 C\n",
			     reason),
			 0);
	ck_assert(fact(ev, "node.gpu_count", -1)->value > 9.9e22);
	ck_assert_ptr_null(fact(ev, "gpu.temperature", 0));
	FACT_IS(ev, "gpu.temperature", 1, 40);
	ck_assert_ptr_null(fact(ev, "gpu.temperature", 1)->pci);
	pm_evidence_destroy(ev);
	/* embedded NUL: the line is damaged, the rest is read */
	ev = ev_new("n1");
	{
		static const char nul[] = "Attached GPUs : 2\0\nGPU 0000:18:00.0\n"
					  "    Temperature\n        GPU Current Temp : 40 C\n";

		ck_assert_int_eq(run_n(pm_parse_nvsmi_q, ev, nul, sizeof(nul) - 1, reason), 0);
	}
	FACT_IS(ev, "gpu.temperature", 0, 40);
	pm_evidence_destroy(ev);
	/* a file index that ev does not have: the facts have no node */
	ev = ev_new(NULL);
	ck_assert_int_eq(pm_parse_nvsmi_q(ev, 5, NVSMI_Q, strlen(NVSMI_Q), NULL, 0), 0);
	ck_assert_ptr_null(fact(ev, "gpu.temperature", 0)->node);
	pm_evidence_destroy(ev);
	hostile(pm_parse_nvsmi_q, NVSMI_Q);
	hostile(pm_parse_nvsmi_q, NVSMI_Q_OLD);
	long_lines(pm_parse_nvsmi_q, NVSMI_Q, ' ');
	long_lines(pm_parse_nvsmi_q, NVSMI_Q, 'x');
}
END_TEST

/* The clocks' slowdown reasons: -q's "Clocks Event Reasons" (nested "HW Thermal Slowdown"
 * under "HW Slowdown") and the older "Clocks Throttle Reasons", Active 1 and Not Active 0;
 * HW Slowdown counts as "other" only where neither reason listed with it is active; the 550
 * drivers' "Clocks Event Reasons Counters" (microseconds) are no reason.  The CSV's names,
 * both generations of them. */
START_TEST(nvsmi_clocks_reasons)
{
	static const char q[] = "==============NVSMI LOG==============\n"
				"Attached GPUs                             : 3\n"
				"GPU 00000000:18:00.0\n"
				"    Clocks Event Reasons\n"
				"        Idle                              : Not Active\n"
				"        SW Power Cap                      : Active\n"
				"        HW Slowdown                       : Active\n"
				"            HW Thermal Slowdown           : Active\n"
				"            HW Power Brake Slowdown       : Not Active\n"
				"        SW Thermal Slowdown               : Active\n"
				"    Clocks Event Reasons Counters\n"
				"        SW Power Capping                  : 9051 us\n"
				"        HW Power Braking                  : 120 us\n"
				"GPU 00000000:2A:00.0\n"
				"    Clocks Throttle Reasons\n"
				"        Idle                              : Active\n"
				"        HW Slowdown                       : Not Active\n"
				"            HW Thermal Slowdown           : Not Active\n"
				"            HW Power Brake Slowdown       : N/A\n"
				"        SW Thermal Slowdown               : Not Active\n"
				"GPU 00000000:3A:00.0\n"
				"    Clocks Throttle Reasons\n"
				"        HW Slowdown                       : Active\n"
				"        SW Thermal Slowdown               : Not Active\n"
				"    Clocks Event Reasons Counters\n"
				"        HW Thermal Slowdown               : 88 us\n";
	struct pm_evidence *ev = ev_new("gpu016");
	char reason[200] = "";

	ck_assert_int_eq(run(pm_parse_nvsmi_q, ev, q, reason), 0);
	FACT_IS(ev, "gpu.clocks_hw_thermal_slowdown", 0, 1);
	FACT_IS(ev, "gpu.clocks_hw_power_brake_slowdown", 0, 0);
	FACT_IS(ev, "gpu.clocks_sw_thermal_slowdown", 0, 1);
	FACT_IS(ev, "gpu.clocks_hw_slowdown_other", 0, 0);
	FACT_IS(ev, "gpu.clocks_hw_thermal_slowdown", 1, 0);
	ck_assert_ptr_null(fact(ev, "gpu.clocks_hw_power_brake_slowdown", 1));
	FACT_IS(ev, "gpu.clocks_hw_slowdown_other", 1, 0);
	ck_assert_ptr_null(fact(ev, "gpu.clocks_hw_thermal_slowdown", 2));
	FACT_IS(ev, "gpu.clocks_hw_slowdown_other", 2, 1);
	ck_assert_str_eq(fact(ev, "gpu.clocks_hw_slowdown_other", 2)->pci, "0000:3a:00.0");
	pm_evidence_destroy(ev);

	ev = ev_new("gpu016");
	ck_assert_int_eq(run(pm_parse_nvsmi_csv, ev,
			     "index, pci.bus_id, clocks_event_reasons.hw_slowdown, "
			     "clocks_event_reasons.hw_thermal_slowdown, "
			     "clocks_throttle_reasons.hw_power_brake_slowdown, "
			     "clocks_throttle_reasons.sw_thermal_slowdown\n"
			     "0, 00000000:18:00.0, Active, Active, Not Active, Active\n"
			     "1, 00000000:2A:00.0, Active, Not Active, Active, Not Active\n"
			     "2, 00000000:3A:00.0, Active, Not Active, Not Active, Not Active\n"
			     "3, 00000000:5D:00.0, Not Active, Not Active, [N/A], Not Active\n",
			     reason),
			 0);
	FACT_IS(ev, "gpu.clocks_hw_thermal_slowdown", 0, 1);
	FACT_IS(ev, "gpu.clocks_hw_slowdown_other", 0, 0);
	FACT_IS(ev, "gpu.clocks_sw_thermal_slowdown", 0, 1);
	FACT_IS(ev, "gpu.clocks_hw_power_brake_slowdown", 1, 1);
	FACT_IS(ev, "gpu.clocks_hw_slowdown_other", 1, 0);
	FACT_IS(ev, "gpu.clocks_hw_slowdown_other", 2, 1);
	FACT_IS(ev, "gpu.clocks_hw_slowdown_other", 3, 0);
	ck_assert_ptr_null(fact(ev, "gpu.clocks_hw_power_brake_slowdown", 3));
	pm_evidence_destroy(ev);
}
END_TEST

START_TEST(nvsmi_csv)
{
	struct pm_evidence *ev = ev_new("gpu016");
	char reason[200] = "";

	ck_assert_int_eq(run(pm_parse_nvsmi_csv, ev, NVSMI_CSV, reason), 0);
	FACT_IS(ev, "node.gpu_count", -1, 3);
	FACT_IS(ev, "gpu.ecc_volatile_uncorrectable", 0, 0);
	FACT_IS(ev, "gpu.ecc_volatile_uncorrectable", 1, 5);
	FACT_IS(ev, "gpu.retired_pages_pending", 1, 1);
	FACT_IS(ev, "gpu.temperature", 1, 35);
	FACT_IS(ev, "gpu.temperature", 2, 36);
	FACT_IS(ev, "gpu.remap_pending", 1, 1);
	FACT_IS(ev, "gpu.remap_failure", 0, 0);
	ck_assert_ptr_null(fact(ev, "gpu.ecc_volatile_uncorrectable", 2));
	ck_assert_ptr_null(fact(ev, "gpu.remap_failure", 2));
	ck_assert_str_eq(fact(ev, "gpu.temperature", 1)->pci, "0000:2a:00.0");
	ck_assert_str_eq(fact(ev, "gpu.temperature", 1)->node, "gpu016");
	pm_evidence_destroy(ev);

	/* bus ids: every form nvidia-smi prints, and what is not one */
	ev = ev_new(NULL);
	ck_assert_int_eq(run(pm_parse_nvsmi_csv, ev,
			     "index, pci.bus_id, temperature.gpu\n"
			     "0, 00000000:18:00.0, 1\n1, 3B:00.0, 1\n2, 0000:65:00, 1\n"
			     "3, 0000:18:00.0.1, 1\n4, 000000001:18:00.0, 1\n5, 0000:18:20.0, 1\n"
			     "6, 0000:18:00.8, 1\n7, 0000:118:00.0, 1\n8, :18:00.0, 1\n",
			     reason),
			 0);
	ck_assert_str_eq(fact(ev, "gpu.temperature", 0)->pci, "0000:18:00.0");
	ck_assert_str_eq(fact(ev, "gpu.temperature", 1)->pci, "0000:3b:00.0");
	for (int i = 2; i <= 8; i++)
		ck_assert_ptr_null(fact(ev, "gpu.temperature", i)->pci);
	pm_evidence_destroy(ev);

	/* two tables in one file; the remapped-rows query has no index: row order */
	ev = ev_new("gpu016");
	ck_assert_int_eq(run(pm_parse_nvsmi_csv, ev,
			     "index, temperature.gpu\n3, 50\n"
			     "gpu_bus_id, remapped_rows.pending, remapped_rows.failure\n"
			     "00000000:18:00.0, 0, 0\n00000000:2A:00.0, 1, 0\n",
			     reason),
			 0);
	FACT_IS(ev, "gpu.temperature", 3, 50);
	FACT_IS(ev, "gpu.remap_pending", 1, 1);
	FACT_IS(ev, "node.gpu_count", -1, 1);
	ck_assert_str_eq(fact(ev, "gpu.remap_pending", 1)->pci, "0000:2a:00.0");
	pm_evidence_destroy(ev);

	ev = ev_new(NULL);
	ck_assert_int_eq(run(pm_parse_nvsmi_csv, ev, "0, 00000000:18:00.0, 0\n", reason), -1);
	ck_assert_int_eq(run(pm_parse_nvsmi_csv, ev, "", reason), -1);
	ck_assert_int_eq(run(pm_parse_nvsmi_csv, ev, "\n\n", reason), -1);
	ck_assert_int_eq(run(pm_parse_nvsmi_csv, ev, "foo, bar\n1, 2\n", reason), -1);
	/* short rows, an index out of range, junk values */
	ck_assert_int_eq(run(pm_parse_nvsmi_csv, ev,
			     "index, temperature.gpu, retired_pages.pending\n"
			     "0\n99999999999, 40\n1, hot, maybe\n",
			     reason),
			 0);
	FACT_IS(ev, "gpu.temperature", 1, 40);
	ck_assert_ptr_null(fact(ev, "gpu.temperature", 2));
	pm_evidence_destroy(ev);
	hostile(pm_parse_nvsmi_csv, NVSMI_CSV);
	long_lines(pm_parse_nvsmi_csv, NVSMI_CSV, ',');
	long_lines(pm_parse_nvsmi_csv, NVSMI_CSV, '9');
}
END_TEST

/* nvidia-smi's default output, drivers from 450 (GPU, GI, CI columns): two GPUs of the top
 * table, a compute process on one, a display server's G alone on the other. */
static const char NVSMI_TABLE[] =
	"Thu Dec  3 09:14:12 2026       \n"
	"+---------------------------------------------------------------------------------------+\n"
	"| NVIDIA-SMI 535.161.08             Driver Version: 535.161.08   CUDA Version: 12.2     |\n"
	"|-----------------------------------------+----------------------+----------------------+\n"
	"| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
	"| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |\n"
	"|=========================================+======================+======================|\n"
	"|   0  NVIDIA L40S                    On  | 00000000:4E:00.0 Off |                    0 |\n"
	"| N/A   44C    P0             180W / 350W |  30112MiB / 46068MiB |     91%      Default |\n"
	"+-----------------------------------------+----------------------+----------------------+\n"
	"|   1  NVIDIA L40S                    On  | 00000000:CA:00.0 Off |                    0 |\n"
	"| N/A   30C    P8              33W / 350W |     14MiB / 46068MiB |      0%      Default |\n"
	"+-----------------------------------------+----------------------+----------------------+\n"
	"\n"
	"+---------------------------------------------------------------------------------------+\n"
	"| Processes:                                                                            |\n"
	"|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |\n"
	"|        ID   ID                                                             Usage      |\n"
	"|=======================================================================================|\n"
	"|    0   N/A  N/A    604417      C   /opt/conda/bin/python C                   30090MiB |\n"
	"|    1   N/A  N/A      2714      G   /usr/lib/xorg/Xorg                            4MiB |\n"
	"+---------------------------------------------------------------------------------------+\n";

/* The default table's Processes box: per GPU its compute processes and their pids, the GPU
 * numbered and its bus id as the top table gives them, the date above it. */
START_TEST(nvsmi_table)
{
	struct pm_evidence *ev = ev_new("gpu016");
	char reason[200] = "";

	ck_assert_int_eq(run(pm_parse_nvsmi_table, ev, NVSMI_TABLE, reason), 0);
	FACT_IS(ev, "gpu.compute_processes", 0, 1);
	FACT_IS(ev, "gpu.compute_processes", 1, 0);
	FACT_IS(ev, "gpu.compute_pid", 0, 604417);
	ck_assert_uint_eq(count_facts(ev, "gpu.compute_pid"), 1);
	ck_assert_str_eq(fact(ev, "gpu.compute_pid", 0)->pci, "0000:4e:00.0");
	ck_assert_str_eq(fact(ev, "gpu.compute_processes", 1)->pci, "0000:ca:00.0");
	ck_assert_str_eq(fact(ev, "gpu.compute_processes", 1)->node, "gpu016");
	FACT_IS(ev, "node.gpu_state_time", -1, 1796289252);
	ck_assert(pm_nvsmi_table_whole(NVSMI_TABLE, strlen(NVSMI_TABLE)));
	pm_evidence_destroy(ev);

	/* drivers before 450: no GI and CI; an MPS client (M+C) computes; the box alone, cut
	 * from a mail: its GPU column, no bus id, no date */
	ev = ev_new(NULL);
	ck_assert_int_eq(
		run(pm_parse_nvsmi_table, ev,
		    "+-----------------------------------------------------------------------------+\n"
		    "| Processes:                                                       GPU Memory |\n"
		    "|  GPU       PID   Type   Process name                             Usage      |\n"
		    "|=============================================================================|\n"
		    "|    2     51210      C   python3                                    9120MiB |\n"
		    "|    2     51388    M+C   ./lmp                                      2200MiB |\n"
		    "|    3     51399      M   nvidia-cuda-mps-server                       25MiB |\n"
		    "+-----------------------------------------------------------------------------+\n",
		    reason),
		0);
	FACT_IS(ev, "gpu.compute_processes", 2, 2);
	FACT_IS(ev, "gpu.compute_processes", 3, 0);
	FACT_IS(ev, "gpu.compute_pid", 2, 51388);
	ck_assert_ptr_null(fact(ev, "gpu.compute_pid", 2)->pci);
	ck_assert_ptr_null(fact(ev, "node.gpu_state_time", -1));
	pm_evidence_destroy(ev);

	/* MIG: the GPU column is the GPU's, GI and CI the instance's; "No running processes
	 * found": every GPU of the top table holds none */
	ev = ev_new(NULL);
	ck_assert_int_eq(
		run(pm_parse_nvsmi_table, ev,
		    "| Processes:                                                                  |\n"
		    "|  GPU   GI   CI        PID   Type   Process name                  GPU Memory |\n"
		    "|    1    3    0      88120      C   python                           9000MiB |\n"
		    "|    1    5    0      88121    C+G   viz                              1000MiB |\n",
		    reason),
		0);
	FACT_IS(ev, "gpu.compute_processes", 1, 2);
	pm_evidence_destroy(ev);
	ev = ev_new(NULL);
	ck_assert_int_eq(
		run(pm_parse_nvsmi_table, ev,
		    "|   0  Tesla V100-SXM2...  On   | 00000000:06:00.0 Off |                    0 |\n"
		    "|   1  Tesla V100-SXM2...  On   | 00000000:07:00.0 Off |                    0 |\n"
		    "| Processes:                                                       GPU Memory |\n"
		    "|  No running processes found                                                 |\n",
		    reason),
		0);
	FACT_IS(ev, "gpu.compute_processes", 0, 0);
	FACT_IS(ev, "gpu.compute_processes", 1, 0);
	FACT_IS(ev, "node.gpu_count", -1, 2); /* the top table's GPUs, as -q's Attached GPUs */
	ck_assert_str_eq(fact(ev, "gpu.compute_processes", 1)->pci, "0000:07:00.0");
	ck_assert_uint_eq(count_facts(ev, "gpu.compute_pid"), 0);
	pm_evidence_destroy(ev);

	/* the top table alone gives no process fact (its GPU count only); rows that are not a
	 * process's (a pid of words, a Type that is none, a GI that is no id) count nothing */
	ev = ev_new(NULL);
	ck_assert_int_eq(
		run(pm_parse_nvsmi_table, ev,
		    "|   0  Tesla V100-SXM2...  On   | 00000000:06:00.0 Off |                    0 |\n",
		    reason),
		0);
	ck_assert_uint_eq(ev->nfacts, 1);
	FACT_IS(ev, "node.gpu_count", -1, 1);
	pm_evidence_destroy(ev);
	/* with a MIG devices box, its instances are what a job holds: no GPU count */
	ev = ev_new(NULL);
	ck_assert_int_eq(
		run(pm_parse_nvsmi_table, ev,
		    "|   0  NVIDIA A100-SXM4-80GB  On | 00000000:07:00.0 Off |                   On |\n"
		    "| MIG devices:                                                                  |\n"
		    "|  0    1   0   0  |  19MiB / 19968MiB | 28      0 |  2   0    1    0    0 |\n",
		    reason),
		0);
	ck_assert_ptr_null(fact(ev, "node.gpu_count", -1));
	ck_assert_int_eq(run(pm_parse_nvsmi_table, ev,
			     "| Processes:                |\n"
			     "|    0   N/A  N/A    abc      C   python    1MiB |\n"
			     "|    0     1395      X   python    1MiB |\n"
			     "|    0   foo  N/A    1395      C   python    1MiB |\n"
			     "|    0     0      C   python    1MiB |\n",
			     reason),
			 0);
	ck_assert_uint_eq(count_facts(ev, "gpu.compute_pid"), 0);
	ck_assert_int_eq(run(pm_parse_nvsmi_table, ev, "hello\nworld\n", reason), -1);
	ck_assert_int_eq(run(pm_parse_nvsmi_table, ev, "", reason), -1);
	pm_evidence_destroy(ev);
	hostile(pm_parse_nvsmi_table, NVSMI_TABLE);
	long_lines(pm_parse_nvsmi_table, NVSMI_TABLE, ' ');
	long_lines(pm_parse_nvsmi_table, NVSMI_TABLE, '|');
}
END_TEST

/* The table alone (with its date and command) is nvidia-smi's; a job's output that printed
 * it first and goes on, or a table with no Processes box, is not. */
START_TEST(nvsmi_table_whole)
{
	char *b = malloc(strlen(NVSMI_TABLE) + 200);

	strcpy(b, "$ nvidia-smi\n");
	strcat(b, NVSMI_TABLE);
	ck_assert(pm_nvsmi_table_whole(b, strlen(b)));
	strcat(b, "epoch 1 loss 2.31\nepoch 2 loss 2.02\nepoch 3 loss 1.87\n");
	ck_assert(!pm_nvsmi_table_whole(b, strlen(b)));
	ck_assert(!pm_nvsmi_table_whole(NVSMI_TABLE,
					(size_t)(strstr(NVSMI_TABLE, "\n\n") - NVSMI_TABLE)));
	free(b);
}
END_TEST

/* --query-compute-apps: a row per compute process, its GPU by bus id; with the header, with
 * noheader and nounits; the index a GPU table of the same file gives that bus id. */
START_TEST(nvsmi_csv_apps)
{
	struct pm_evidence *ev = ev_new("gpu016");
	char reason[200] = "";

	ck_assert_int_eq(run(pm_parse_nvsmi_csv, ev,
			     "pid, process_name, used_gpu_memory [MiB], gpu_bus_id\n"
			     "73310, python3, 38612 MiB, 00000000:3B:00.0\n"
			     "73388, python3, 200 MiB, 00000000:3B:00.0\n"
			     "9021, ./sim, [N/A], 00000000:86:00.0\n",
			     reason),
			 0);
	FACT_IS(ev, "gpu.compute_processes", -1, 1); /* the last: 86:00.0 */
	ck_assert_uint_eq(count_facts(ev, "gpu.compute_processes"), 2);
	ck_assert_uint_eq(count_facts(ev, "gpu.compute_pid"), 3);
	ck_assert_str_eq(fact(ev, "gpu.compute_pid", -1)->pci, "0000:86:00.0");
	ck_assert_str_eq(ev->facts[0].pci, "0000:3b:00.0");
	ck_assert_str_eq(ev->facts[0].name, "gpu.compute_processes");
	ck_assert(ev->facts[0].value == 2);
	ck_assert_ptr_null(fact(ev, "node.gpu_count", -1));
	pm_evidence_destroy(ev);

	ev = ev_new(NULL);
	ck_assert_int_eq(run(pm_parse_nvsmi_csv, ev,
			     "73310, python3, 38612, 00000000:3B:00.0\n"
			     "73388, /usr/bin/python3 -u, 200 MiB, 0000:3b:00.0\n",
			     reason),
			 0);
	ck_assert_uint_eq(count_facts(ev, "gpu.compute_processes"), 1);
	FACT_IS(ev, "gpu.compute_processes", -1, 2);
	pm_evidence_destroy(ev);

	/* a GPU table first: the processes' GPUs by its index, and a GPU no row names holds
	 * none */
	ev = ev_new(NULL);
	ck_assert_int_eq(run(pm_parse_nvsmi_csv, ev,
			     "index, pci.bus_id\n0, 00000000:18:00.0\n1, 00000000:3B:00.0\n"
			     "pid, process_name, used_memory [MiB], gpu_bus_id\n"
			     "73310, python3, 38612 MiB, 00000000:3B:00.0\n",
			     reason),
			 0);
	FACT_IS(ev, "gpu.compute_processes", 1, 1);
	FACT_IS(ev, "gpu.compute_processes", 0, 0);
	FACT_IS(ev, "gpu.compute_pid", 1, 73310);
	FACT_IS(ev, "node.gpu_count", -1, 2);
	pm_evidence_destroy(ev);

	/* no bus id, no pid: nothing */
	ev = ev_new(NULL);
	ck_assert_int_eq(run(pm_parse_nvsmi_csv, ev,
			     "pid, process_name, gpu_bus_id\nx, python3, 00000000:3B:00.0\n"
			     "12, python3, nowhere\n",
			     reason),
			 0);
	FACT_IS(ev, "gpu.compute_processes", -1, 0);
	ck_assert_uint_eq(count_facts(ev, "gpu.compute_pid"), 0);
	pm_evidence_destroy(ev);
	ck_assert(pm_nvsmi_apps_line("1, a, 2 MiB, 00000000:3B:00.0", 29));
	ck_assert(!pm_nvsmi_apps_line("0, 00000000:18:00.0, 0", 22));
	ck_assert(!pm_nvsmi_apps_line("1, , 2 MiB, 00000000:3B:00.0", 28));
}
END_TEST

/* ---- scheduler ---- */

static void nodes_are(const struct pm_jobinfo *j, const char *want)
{
	char joined[1024] = "";
	size_t i;

	for (i = 0; i < j->nnodes; i++) {
		strcat(joined, i ? " " : "");
		strcat(joined, j->nodes[i]);
	}
	ck_assert_str_eq(joined, want);
}

/* The "job.gpus_on_node" fact of NODE is V. */
static void node_gpus_are(const struct pm_evidence *ev, const char *node, double v)
{
	for (size_t i = 0; i < ev->nfacts; i++)
		if (ev->facts[i].node && !strcmp(ev->facts[i].node, node) &&
		    !strcmp(ev->facts[i].name, "job.gpus_on_node")) {
			ck_assert(ev->facts[i].value == v);
			return;
		}
	ck_abort_msg("no job.gpus_on_node for %s", node);
}

START_TEST(sacct_piped)
{
	struct pm_evidence *ev = ev_new(NULL);
	char reason[200] = "";
	const struct pm_jobinfo *j = &ev->job;

	ck_assert_int_eq(run(pm_parse_sacct, ev, SACCT_P, reason), 0);
	ck_assert_str_eq(j->id, "4242");
	ck_assert_str_eq(j->state, "FAILED");
	ck_assert_ptr_null(j->cancelled_by);
	ck_assert_int_eq(j->exit_code, 1);
	ck_assert_int_eq(j->exit_signal, 0);
	ck_assert(j->start == BASE);
	ck_assert(j->end == BASE + 3600);
	nodes_are(j, "gpu016 gpu017");
	ck_assert_uint_eq(ev->nnodes, 2);
	ck_assert_int_eq(j->ntasks, 8);
	/* a total over two nodes is no count per node (8 may be 6 + 2); the batch step's
	 * node has its own, and on two nodes the other one the rest */
	ck_assert_int_eq(j->gpus_per_node, -1);
	ck_assert_ptr_null(fact(ev, "job.gpus_per_node", -1));
	ck_assert_ptr_null(j->failed_node);
	ck_assert_int_eq(j->restart, -1);
	node_gpus_are(ev, "gpu016", 4);
	node_gpus_are(ev, "gpu017", 4);
	FACT_IS(ev, "job.nodes", -1, 2);
	ck_assert_ptr_null(fact(ev, "job.nodes", -1)->node);
	pm_evidence_destroy(ev);
}
END_TEST

/* sacct -D of a requeued job 9 with job 10 between its runs */
static const char REQUEUED[] = "JobID|State|ExitCode|NodeList|NNodes|AllocTRES\n"
			       "9|NODE_FAIL|0:0|a1|1|gres/gpu=4\n"
			       "9.0|CANCELLED|0:9|a1|1|gres/gpu=4\n"
			       "10|COMPLETED|0:0|zz|1|\n"
			       "9|TIMEOUT|0:0|b[1-2]|2|gres/gpu=3\n";

/* A folder of one input and a second file named NAME (a Slurm output file's name). */
static struct pm_evidence *ev_named(const char *name)
{
	struct pm_evidence *ev = ev_new(NULL);

	ev->files[1].name = strdup(name);
	ev->files[1].rank = -1;
	ev->nfiles = 2;
	return ev;
}

/* One node: its total is its count; MIG instances (a gres type of a MIG profile) none. */
START_TEST(sacct_gpus_per_node)
{
	struct pm_evidence *ev = ev_new(NULL);
	char reason[200] = "";

	ck_assert_int_eq(run(pm_parse_sacct, ev,
			     "JobID|State|NodeList|NNodes|AllocTRES\n"
			     "8|FAILED|a1|1|cpu=8,gres/gpu=4,node=1\n",
			     reason),
			 0);
	ck_assert_int_eq(ev->job.gpus_per_node, 4);
	pm_evidence_destroy(ev);

	ev = ev_new(NULL);
	ck_assert_int_eq(run(pm_parse_sacct, ev,
			     "JobID|State|NodeList|NNodes|AllocTRES\n"
			     "8|FAILED|a1|1|cpu=16,gres/gpu:1g.10gb=8,gres/gpu=8,node=1\n"
			     "8.batch|FAILED|a1|1|cpu=16,gres/gpu:1g.10gb=8,gres/gpu=8,node=1\n",
			     reason),
			 0);
	ck_assert_int_eq(ev->job.gpus_per_node, -1);
	ck_assert_ptr_null(fact(ev, "job.gpus_on_node", -1));
	pm_evidence_destroy(ev);

	ev = ev_new(NULL); /* 12 as 8 + 4 */
	ck_assert_int_eq(run(pm_parse_sacct, ev,
			     "JobID|State|NodeList|NNodes|AllocTRES\n"
			     "8|FAILED|a[1-2]|2|cpu=16,gres/gpu=12,node=2\n"
			     "8.batch|FAILED|a1|1|cpu=8,gres/gpu=8,node=1\n",
			     reason),
			 0);
	ck_assert_int_eq(ev->job.gpus_per_node, -1);
	node_gpus_are(ev, "a1", 8);
	node_gpus_are(ev, "a2", 4);
	pm_evidence_destroy(ev);

	ev = ev_new(NULL); /* scontrol: TresPerNode, not TRES's total over the nodes */
	ck_assert_int_eq(run(pm_parse_scontrol, ev,
			     "JobId=8 JobName=x JobState=FAILED NodeList=a[1-3] NumNodes=3\n"
			     "   TRES=cpu=24,gres/gpu=12,node=3 TresPerNode=gres/gpu:4\n",
			     reason),
			 0);
	ck_assert_int_eq(ev->job.gpus_per_node, 4);
	pm_evidence_destroy(ev);

	ev = ev_new(NULL);
	ck_assert_int_eq(run(pm_parse_scontrol, ev,
			     "JobId=8 JobName=x JobState=FAILED NodeList=a[1-3] NumNodes=3\n"
			     "   TRES=cpu=24,gres/gpu=12,node=3\n",
			     reason),
			 0);
	ck_assert_int_eq(ev->job.gpus_per_node, -1);
	pm_evidence_destroy(ev);
}
END_TEST

START_TEST(sacct_columns)
{
	struct pm_evidence *ev = ev_new(NULL);
	char reason[200] = "";
	const struct pm_jobinfo *j = &ev->job;

	/* other columns, another order, a cancel by uid, a node failure */
	ck_assert_int_eq(run(pm_parse_sacct, ev,
			     "Cluster|State|JobIDRaw|JobID|Partition|NodeList|UID|NNodes|Requeue|"
			     "FailedNode|ExitCode|NTasks|AllocTRES\n"
			     "lab|CANCELLED by 1000|77|77|gpu|n[1-3]|1000|3|1|n2|0:15|12|"
			     "cpu=3,gres/gpu:h100=12,node=3\n",
			     reason),
			 0);
	ck_assert_str_eq(j->cluster, "lab");
	ck_assert_str_eq(j->state, "CANCELLED");
	ck_assert_str_eq(j->cancelled_by, "1000");
	ck_assert_str_eq(j->failed_node, "n2");
	ck_assert_int_eq(j->exit_signal, 15);
	ck_assert_int_eq(j->user_uid, 1000);
	ck_assert_int_eq(j->restart, 1);
	ck_assert_int_eq(j->ntasks, 12);
	ck_assert_int_eq(j->gpus_per_node, -1); /* 12 over three nodes: not known per node */
	ck_assert(j->start == 0);
	nodes_are(j, "n1 n2 n3");
	pm_evidence_destroy(ev);

	/* a listing of several jobs that no file of the folder names: no record (the first job
	 * of a user's listing is an earlier one) */
	ev = ev_new(NULL);
	j = &ev->job;
	ck_assert_int_eq(run(pm_parse_sacct, ev, REQUEUED, reason), -1);
	ck_assert_ptr_nonnull(strstr(reason, "several jobs"));
	ck_assert_ptr_null(j->id);
	pm_evidence_destroy(ev);

	/* ... and the one the folder's Slurm output file is named for, by JobID or JobIDRaw */
	ev = ev_named("out/slurm-31.out");
	j = &ev->job;
	ck_assert_int_eq(run(pm_parse_sacct, ev,
			     "JobID|JobIDRaw|State|ExitCode|NodeList\n"
			     "25_2|30|COMPLETED|0:0|a1\n"
			     "25_3|31|FAILED|1:0|a2\n"
			     "25_3.0|31.0|FAILED|1:0|a2\n"
			     "26|32|COMPLETED|0:0|a3\n",
			     reason),
			 0);
	ck_assert_str_eq(j->id, "25_3");
	ck_assert_str_eq(j->state, "FAILED");
	nodes_are(j, "a2");
	pm_evidence_destroy(ev);

	/* requeued (sacct -D): the last run's row wins; uneven GPUs give no per-node count */
	ev = ev_named("slurm-9.out");
	j = &ev->job;
	ck_assert_int_eq(run(pm_parse_sacct, ev, REQUEUED, reason), 0);
	ck_assert_str_eq(j->id, "9");
	ck_assert_str_eq(j->state, "TIMEOUT");
	nodes_are(j, "b1 b2");
	ck_assert_int_eq(j->gpus_per_node, -1);
	ck_assert_ptr_null(fact(ev, "job.gpus_per_node", -1));
	pm_evidence_destroy(ev);
}
END_TEST

/* A record with one bound of the job's window and its Elapsed (RunTime) gives the other; a
 * running job's Elapsed, or a record without one, leaves it open. */
START_TEST(sacct_elapsed)
{
	struct pm_evidence *ev = ev_new(NULL);
	char reason[200] = "";

	ck_assert_int_eq(run(pm_parse_sacct, ev,
			     "JobID|State|Start|Elapsed|NodeList\n"
			     "8|FAILED|2026-11-30T03:40:00|1-01:02:03|a1\n",
			     reason),
			 0);
	ck_assert(ev->job.start == BASE);
	ck_assert(ev->job.end == BASE + 86400 + 3723);
	pm_evidence_destroy(ev);

	ev = ev_new(NULL);
	ck_assert_int_eq(run(pm_parse_sacct, ev,
			     "JobID|State|End|Elapsed|NodeList\n"
			     "8|FAILED|2026-11-30T04:40:00|01:00:00|a1\n",
			     reason),
			 0);
	ck_assert(ev->job.start == BASE);
	ck_assert(ev->job.end == BASE + 3600);
	pm_evidence_destroy(ev);

	ev = ev_new(NULL); /* still running: its window has no end yet */
	ck_assert_int_eq(run(pm_parse_sacct, ev,
			     "JobID|State|Start|End|Elapsed\n"
			     "8|RUNNING|2026-11-30T03:40:00|Unknown|00:10:00\n",
			     reason),
			 0);
	ck_assert(ev->job.start == BASE);
	ck_assert(ev->job.end == 0);
	pm_evidence_destroy(ev);

	ev = ev_new(NULL);
	ck_assert_int_eq(run(pm_parse_scontrol, ev,
			     "JobId=8 JobName=x JobState=TIMEOUT Reason=TimeLimit\n"
			     "   RunTime=00:20:00 TimeLimit=00:20:00\n"
			     "   StartTime=2026-11-30T03:40:00 EndTime=Unknown NodeList=a1\n",
			     reason),
			 0);
	ck_assert(ev->job.end == BASE + 1200);
	pm_evidence_destroy(ev);

	ev = ev_new(NULL); /* a value that is no duration */
	ck_assert_int_eq(run(pm_parse_sacct, ev,
			     "JobID|State|Start|Elapsed\n"
			     "8|FAILED|2026-11-30T03:40:00|10:99:00\n",
			     reason),
			 0);
	ck_assert(ev->job.end == 0);
	pm_evidence_destroy(ev);
}
END_TEST

START_TEST(sacct_table)
{
	struct pm_evidence *ev = ev_new(NULL);
	char reason[200] = "";
	const struct pm_jobinfo *j = &ev->job;

	ck_assert_int_eq(run(pm_parse_sacct, ev, SACCT_TABLE, reason), 0);
	ck_assert_str_eq(j->id, "4243");
	ck_assert_str_eq(j->state, "CANCELLED");
	ck_assert_ptr_null(j->cancelled_by);
	ck_assert_int_eq(j->exit_code, 0);
	ck_assert_int_eq(j->exit_signal, 15);
	ck_assert(j->end == BASE + 1200);
	nodes_are(j, "gpu016 gpu017");
	ck_assert_int_eq(j->ntasks, 16);
	ck_assert_int_eq(j->gpus_per_node, -1); /* AllocTRES cut by the column width */
	FACT_IS(ev, "job.nodes", -1, 2);
	pm_evidence_destroy(ev);

	/* a cut node list is not expanded */
	ev = ev_new(NULL);
	ck_assert_int_eq(run(pm_parse_sacct, ev,
			     "JobID  State  NodeList\n------ ------ --------\n"
			     "5      FAILED gpu[016+\n",
			     reason),
			 0);
	ck_assert_uint_eq(ev->job.nnodes, 0);
	pm_evidence_destroy(ev);
}
END_TEST

/* A table whose runs of blanks were collapsed (a forum's page): the job's id, state and
 * exit code only, the state the last state word before the first exit code where a row lacks
 * words (a job name shaped as a state passed over), never its nodes. */
START_TEST(sacct_table_collapsed)
{
	struct pm_evidence *ev = ev_new(NULL);
	char reason[200] = "";

	ck_assert_int_eq(run(pm_parse_sacct, ev,
			     "JobID JobName State ExitCode NodeList FailedNode\n"
			     "------------ ---------- ---------- -------- ---------- ----------\n"
			     "71 FAILED NODE_FAIL 0:0 g[1-2] g2\n"
			     "71.batch batch CANCELLED 0:15 g1\n",
			     reason),
			 0);
	ck_assert_str_eq(ev->job.id, "71");
	ck_assert_str_eq(ev->job.state, "NODE_FAIL");
	ck_assert_int_eq(ev->job.exit_signal, 0);
	ck_assert_uint_eq(ev->job.nnodes, 0);
	ck_assert_ptr_null(ev->job.failed_node);
	pm_evidence_destroy(ev);

	/* a cut state, and a cancel's uid in three words */
	ev = ev_new(NULL);
	ck_assert_int_eq(run(pm_parse_sacct, ev,
			     "JobID JobName State ExitCode\n"
			     "------------ ---------- ------------------ --------\n"
			     "72 train CANCELLED by 1000 0:0\n",
			     reason),
			 0);
	ck_assert_str_eq(ev->job.state, "CANCELLED");
	ck_assert_str_eq(ev->job.cancelled_by, "1000");
	pm_evidence_destroy(ev);

	/* a header whose words are not as many as the rule's groups is no table */
	ev = ev_new(NULL);
	ck_assert_int_ne(run(pm_parse_sacct, ev,
			     "JobID State ExitCode\n------------ ---------- -------- --------\n"
			     "73 FAILED 1:0\n",
			     reason),
			 0);
	pm_evidence_destroy(ev);
}
END_TEST

START_TEST(sacct_hostile)
{
	struct pm_evidence *ev = ev_new(NULL);
	char reason[200] = "";

	ck_assert_int_eq(run(pm_parse_sacct, ev, "", reason), -1);
	ck_assert_int_eq(run(pm_parse_sacct, ev, "4242|FAILED|1:0\n", reason), -1);
	ck_assert_int_eq(run(pm_parse_sacct, ev, "JobID|State\n", reason), -1);
	ck_assert_int_eq(run(pm_parse_sacct, ev, "JobID|State\n4242.0|FAILED\n", reason), -1);
	ck_assert_int_eq(run(pm_parse_sacct, ev, "JobID State\nxxxxx yyyy\n", reason), -1);
	ck_assert_int_eq(run(pm_parse_sacct, ev, "Name|State\nx|FAILED\n", reason), -1);
	ck_assert_str_ne(reason, "");
	ck_assert_ptr_null(ev->job.id);
	/* huge and broken numbers are ignored, not wrapped */
	ck_assert_int_eq(run(pm_parse_sacct, ev,
			     "JobID|NNodes|NTasks|ExitCode|AllocTRES|NodeList|Start\n"
			     "1|99999999999999999999|-5|999:999|gres/gpu=99999999999999999999|"
			     "n[0-99999999]|2026-99-99T00:00:00\n",
			     reason),
			 0);
	ck_assert_int_eq(ev->job.ntasks, -1);
	ck_assert_int_eq(ev->job.exit_code, -1);
	ck_assert_int_eq(ev->job.gpus_per_node, -1);
	ck_assert_uint_eq(ev->job.nnodes, 0);
	ck_assert(ev->job.start == 0);
	pm_evidence_destroy(ev);
	ev = ev_new(NULL);
	{
		static const char nul[] = "JobID|State\n7|FAI\0LED\n";

		ck_assert_int_eq(run_n(pm_parse_sacct, ev, nul, sizeof(nul) - 1, reason), 0);
	}
	ck_assert_str_eq(ev->job.id, "7");
	pm_evidence_destroy(ev);
	hostile(pm_parse_sacct, SACCT_P);
	hostile(pm_parse_sacct, SACCT_TABLE);
	long_lines(pm_parse_sacct, SACCT_P, '|');
	long_lines(pm_parse_sacct, SACCT_TABLE, '-');
	long_lines(pm_parse_sacct, SACCT_P, 'a');
}
END_TEST

/* An address or node noted with a NUL inside its length ends there: the copy that kept it
 * never compared equal to the next one, and each was one more entry. */
START_TEST(ip_map_name_ends_at_nul)
{
	struct pm_evidence *ev = ev_new(NULL);

	ck_assert_int_eq(pm_ev_note_ip(ev, "10.0.0.1\0a", 10, "n1\0x", 4), 0);
	ck_assert_int_eq(pm_ev_note_ip(ev, "10.0.0.1\0b", 10, "n2", 2), 0);
	ck_assert_int_eq(pm_ev_note_ip(ev, "10.0.0.1", 8, "n3", 2), 0);
	ck_assert_uint_eq(ev->nipmap, 1);
	ck_assert_str_eq(pm_ev_ip_node(ev, "10.0.0.1"), "n1");
	pm_evidence_destroy(ev);
}
END_TEST

START_TEST(scontrol_job)
{
	struct pm_evidence *ev = ev_new(NULL);
	char reason[200] = "";
	const struct pm_jobinfo *j = &ev->job;

	ck_assert_int_eq(run(pm_parse_scontrol, ev, SCONTROL, reason), 0);
	ck_assert_str_eq(j->id, "4242");
	ck_assert_str_eq(j->state, "FAILED");
	ck_assert_str_eq(j->reason, "NonZeroExitCode");
	ck_assert_int_eq(j->exit_code, 1);
	ck_assert_int_eq(j->exit_signal, 0);
	ck_assert(j->start == BASE);
	ck_assert(j->end == BASE + 3600);
	nodes_are(j, "gpu016 gpu017");
	ck_assert_uint_eq(ev->nnodes, 2);
	ck_assert_int_eq(j->ntasks, 8);
	ck_assert_int_eq(j->restart, 2);
	ck_assert_int_eq(j->user_uid, 1000);
	ck_assert_int_eq(j->gpus_per_node, -1); /* TRES's total over two nodes, no TresPerNode */
	ck_assert_ptr_null(fact(ev, "job.gpus_per_node", -1));
	FACT_IS(ev, "job.nodes", -1, 2);
	/* merges with what sacct said */
	ck_assert_int_eq(run(pm_parse_sacct, ev, SACCT_P, reason), 0);
	nodes_are(j, "gpu016 gpu017");
	ck_assert_str_eq(j->reason, "NonZeroExitCode");
	pm_evidence_destroy(ev);
}
END_TEST

#define SC_TWO                                                             \
	"JobId=55 ArrayJobId=54 ArrayTaskId=7 JobName=x\n"                 \
	"   UserId=bob(2001) JobState=TIMEOUT Reason=TimeLimit\n"          \
	"   StartTime=Unknown EndTime=None NodeList=(null) NumNodes=2-2\n" \
	"   TRES=cpu=2,node=2 TresPerNode=gres:gpu:h100:8\n"               \
	"\n"                                                               \
	"JobId=56 JobName=y JobState=FAILED NodeList=zz1\n"

START_TEST(scontrol_variants)
{
	struct pm_evidence *ev = ev_named("slurm-55.out");
	char reason[200] = "";
	const struct pm_jobinfo *j = &ev->job;

	/* pending-style values, TresPerNode; a second record, of another job, that the folder's
	 * slurm-55.out does not name: ignored */
	ck_assert_int_eq(run(pm_parse_scontrol, ev, SC_TWO, reason), 0);
	/* an array task is named as sacct's JobID names it; its JobId, sacct's JobIDRaw, is
	 * kept: slurm-55.out, slurm-54_7.out and slurm-54.out are all its output */
	ck_assert_str_eq(j->id, "54_7");
	ck_assert(pm_record_job_id(ev, "55", 2) && pm_record_job_id(ev, "54_7", 4) &&
		  pm_record_job_id(ev, "54", 2) && !pm_record_job_id(ev, "54_8", 4));
	ck_assert_str_eq(j->state, "TIMEOUT");
	ck_assert_int_eq(j->user_uid, 2001);
	ck_assert(j->start == 0 && j->end == 0);
	ck_assert_uint_eq(j->nnodes, 0);
	ck_assert_int_eq(j->gpus_per_node, 8);
	pm_evidence_destroy(ev);

	/* the record the folder's output file names, the second; by its array ids, the first */
	ev = ev_named("slurm-56.out");
	j = &ev->job;
	ck_assert_int_eq(run(pm_parse_scontrol, ev, SC_TWO, reason), 0);
	ck_assert_str_eq(j->id, "56");
	ck_assert_str_eq(j->state, "FAILED");
	pm_evidence_destroy(ev);
	ev = ev_named("slurm-54_7.out");
	j = &ev->job;
	ck_assert_int_eq(run(pm_parse_scontrol, ev, SC_TWO, reason), 0);
	ck_assert_str_eq(j->id, "54_7");
	pm_evidence_destroy(ev);
	/* a pending array's record (ArrayTaskId=1-10) names no one task */
	ev = ev_new(NULL);
	j = &ev->job;
	ck_assert_int_eq(run(pm_parse_scontrol, ev,
			     "JobId=60 ArrayJobId=60 ArrayTaskId=1-10 JobName=x\n"
			     "   JobState=PENDING NodeList=(null)\n",
			     reason),
			 0);
	ck_assert_str_eq(j->id, "60");
	pm_evidence_destroy(ev);

	/* no file names one of the jobs: no record, the first may be another job's */
	ev = ev_new(NULL);
	j = &ev->job;
	ck_assert_int_eq(run(pm_parse_scontrol, ev, SC_TWO, reason), -1);
	ck_assert_ptr_nonnull(strstr(reason, "several jobs"));
	ck_assert_ptr_null(j->id);
	pm_evidence_destroy(ev);

	ev = ev_new(NULL);
	ck_assert_int_eq(run(pm_parse_scontrol, ev, "slurm_load_jobs error: Invalid job id\n",
			     reason),
			 -1);
	ck_assert_int_eq(run(pm_parse_scontrol, ev, "JobId= JobName=x\n", reason), -1);
	ck_assert_int_eq(run(pm_parse_scontrol, ev, "", reason), -1);
	ck_assert_int_eq(run(pm_parse_scontrol, ev,
			     "JobId=1 UserId=x(99999999999) UserId=y( ExitCode=1: "
			     "NumTasks=-3 NumNodes=0 TRES=gres/gpu=5 Restarts=abc\n",
			     reason),
			 0);
	ck_assert_int_eq(ev->job.user_uid, -1);
	ck_assert_int_eq(ev->job.exit_code, -1);
	ck_assert_int_eq(ev->job.ntasks, -1);
	ck_assert_int_eq(ev->job.gpus_per_node, -1);
	ck_assert_int_eq(ev->job.restart, -1);
	pm_evidence_destroy(ev);
	hostile(pm_parse_scontrol, SCONTROL);
	long_lines(pm_parse_scontrol, SCONTROL, '=');
	long_lines(pm_parse_scontrol, SCONTROL, 'k');
}
END_TEST

START_TEST(meminfo)
{
	struct pm_evidence *ev = ev_new("gpu016");
	char reason[200] = "";

	ck_assert_int_eq(run(pm_parse_meminfo, ev, MEMINFO, reason), 0);
	FACT_IS(ev, "node.mem_total_kb", -1, 2113470464.0);
	FACT_IS(ev, "node.mem_available_kb", -1, 2048000);
	ck_assert_str_eq(fact(ev, "node.mem_total_kb", -1)->node, "gpu016");
	ck_assert_uint_eq(ev->nfacts, 2);
	pm_evidence_destroy(ev);
	ev = ev_new(NULL);
	ck_assert_int_eq(run(pm_parse_meminfo, ev, "MemFree: 12 kB\n", reason), -1);
	ck_assert_int_eq(run(pm_parse_meminfo, ev, "", reason), -1);
	ck_assert_int_eq(run(pm_parse_meminfo, ev, "MemTotal: lots kB\n", reason), -1);
	ck_assert_int_eq(run(pm_parse_meminfo, ev, "MemTotal: 999999999999999999999 kB\n", reason),
			 -1);
	ck_assert_uint_eq(count_facts(ev, "node.mem_total_kb"), 0);
	pm_evidence_destroy(ev);
	hostile(pm_parse_meminfo, MEMINFO);
	long_lines(pm_parse_meminfo, MEMINFO, ':');
}
END_TEST

START_TEST(tasks)
{
	struct pm_evidence *ev = ev_new(NULL);
	char reason[200] = "";
	const struct pm_task *t;

	ck_assert_int_eq(run(pm_parse_tasks, ev, TASKS, reason), 0);
	ck_assert_str_eq(ev->job.id, "4242");
	ck_assert_uint_eq(ev->nnodes, 2);
	t = task(ev, 0);
	ck_assert_ptr_nonnull(t);
	ck_assert_str_eq(t->node, "gpu016");
	ck_assert_int_eq(t->local_rank, 0);
	ck_assert_int_eq(t->pid, 40000);
	ck_assert_str_eq(t->gpus, "0");
	ck_assert(t->start == BASE + 2.5);
	ck_assert_int_eq(t->exited, 1); /* step 0's SIGTERM, not the batch script's exit */
	ck_assert_int_eq(t->signal, 15);
	ck_assert_int_eq(t->exit_code, -1);
	t = task(ev, 5);
	ck_assert_ptr_nonnull(t);
	ck_assert_str_eq(t->node, "gpu017");
	ck_assert(t->start == BASE + 2);
	ck_assert_int_eq(t->exited, 1); /* the failure stays over step 1's clean exit */
	ck_assert_int_eq(t->exit_code, 1);
	ck_assert_int_eq(t->signal, 0);
	ck_assert(t->end == BASE + 2640.25);
	t = task(ev, 1);
	ck_assert_int_eq(t->signal, 6);
	ck_assert_int_eq(t->core, 1);
	t = task(ev, 2);
	ck_assert_int_eq(t->exit_code, 7);
	ck_assert_int_eq(t->core, 0);
	ck_assert_ptr_null(task(ev, 3));
	t = task(ev, 7);
	ck_assert_ptr_nonnull(t);
	ck_assert_ptr_null(t->node);
	ck_assert_int_eq(t->pid, 0);
	ck_assert_uint_eq(ev->ntasks, 5);
	pm_evidence_destroy(ev);

	ev = ev_new(NULL);
	ck_assert_int_eq(run(pm_parse_tasks, ev, "not json\n{}\n[]\n", reason), -1);
	ck_assert_str_ne(reason, "");
	ck_assert_int_eq(run(pm_parse_tasks, ev, "", reason), -1);
	ck_assert_int_eq(run(pm_parse_tasks, ev,
			     "{\"schema\":\"postmortem.taskexit/1\",\"rank\":1,\"rank\":2}\n",
			     reason),
			 -1);
	ck_assert_uint_eq(ev->ntasks, 0);
	pm_evidence_destroy(ev);
	hostile(pm_parse_tasks, TASKS);
	long_lines(pm_parse_tasks, TASKS, '{');
	long_lines(pm_parse_tasks, TASKS, '[');
}
END_TEST

/* The plugin's flat records are read without a jansson tree (parse_sched.c); records that
 * need jansson (escapes, nesting) must come out the same, and what jansson refuses must
 * still be refused. */
START_TEST(tasks_flat_and_tree_agree)
{
	static const char *const flat =
		"{\"schema\":\"postmortem.rankmap/1\",\"job\":\"77\",\"step\":\"0\",\"node\":\"gpu1\","
		"\"rank\":3,\"local_rank\":3,\"pid\":10,\"gpus\":\"2\",\"start\":1796010000.5}\n"
		"{ \"schema\" : \"postmortem.taskexit/1\" , \"node\":\"gpu1\", \"rank\" : 3, "
		"\"status\":139,\"end\":1796010100,\"core\":true,\"x\":null,\"y\":-0.5e-3,"
		/* fields no one reads, only checked: an integer of 18 bytes, of 19, a real
		 * without an exponent */
		"\"u\":-12345678901234567,\"v\":1234567890123456789,"
		"\"w\":123456789012345678901234567890.5}\n";
	static const char *const tree =
		"{\"schema\":\"postmortem.rankmap/1\",\"job\":\"7\\u0037\",\"step\":\"0\","
		"\"node\":\"gpu\\u0031\",\"rank\":3,\"local_rank\":3,\"pid\":10,\"gpus\":\"2\","
		"\"start\":1796010000.5,\"extra\":{\"a\":[1,2]}}\n"
		"{\"schema\":\"postmortem.taskexit/1\",\"node\":\"gpu1\",\"rank\":3,\"status\":139,"
		"\"end\":1796010100,\"core\":true,\"note\":\"caf\u00e9\","
		/* an escape past the first eight bytes of a string */
		"\"long\":\"abcdefghijklmnop\\\"q\"}\n";
	static const char *const refused =
		"{\"schema\":\"postmortem.taskexit/1\",\"rank\":04,\"status\":0}\n"
		"{\"schema\":\"postmortem.taskexit/1\",\"rank\":5,\"status\":0} x\n"
		"{\"schema\":\"postmortem.taskexit/1\",\"rank\":6,\"status\":0,\"z\":1,\"z\":2}\n"
		"{\"schema\":\"postmortem.taskexit/1\",\"rank\":7,\"status\":0,\"z\":1e400}\n"
		"{\"schema\":\"postmortem.taskexit/1\",\"rank\":8,\"status\":0,}\n"
		"{\"schema\":\"postmortem.taskexit/1\",\"rank\":9,\"status\":0,\"z\":tru}\n"
		"{\"schema\":\"postmortem.taskexit/1\",\"rank\":10,\"status\":0,\"z\":\"a\tb\"}\n"
		"{\"schema\":\"postmortem.taskexit/1\",\"rank\":16,\"status\":0,\"z\":\"abcdefghijk\tlmnopqrstuvwxyz\"}\n"
		"{\"schema\":\"postmortem.taskexit/1\",\"rank\":17,\"status\":0,\"z\":\"abcdefghijk\\xlmnopqrstuvwxyz\"}\n"
		"{\"schema\":\"postmortem.taskexit/1\",\"rank\":11,\"status\":0,\"z\":1.}\n"
		"{\"schema\":\"postmortem.taskexit/1\",\"rank\":12,\"status\":0,\"z\":99999999999999999999}\n"
		"{\"schema\":\"postmortem.taskexit/1\",\"rank\":15,\"status\":0,\"z\":1.5E999}\n"
		"{\"schema\":\"postmortem.taskexit/1\",\"rank\":13,\"status\":0\n"
		"{\"schema\":\"postmortem.taskexit/1\",\"rank\":14,\"status\":0}\n";
	const char *texts[2] = {flat, tree};
	struct pm_evidence *ev;
	char reason[200] = "";
	const struct pm_task *t;

	for (int k = 0; k < 2; k++) {
		ev = ev_new(NULL);
		ck_assert_int_eq(run(pm_parse_tasks, ev, texts[k], reason), 0);
		ck_assert_str_eq(ev->job.id, "77");
		t = task(ev, 3);
		ck_assert_ptr_nonnull(t);
		ck_assert_str_eq(t->node, "gpu1");
		ck_assert_int_eq(t->local_rank, 3);
		ck_assert_int_eq(t->pid, 10);
		ck_assert_str_eq(t->gpus, "2");
		ck_assert(t->start == 1796010000.5);
		ck_assert(t->end == 1796010100);
		ck_assert_int_eq(t->exited, 1);
		ck_assert_int_eq(t->signal, 11);
		ck_assert_int_eq(t->core, 1);
		ck_assert_uint_eq(ev->ntasks, 1);
		pm_evidence_destroy(ev);
	}
	ev = ev_new(NULL);
	ck_assert_int_eq(run(pm_parse_tasks, ev, refused, reason), 0);
	ck_assert_uint_eq(ev->ntasks, 1); /* only rank 14's record is JSON */
	ck_assert_ptr_nonnull(task(ev, 14));
	pm_evidence_destroy(ev);
}
END_TEST

void input_parsers_tests(TCase *tc)
{
	tcase_add_test(tc, nvsmi_q);
	tcase_add_test(tc, nvsmi_q_variants);
	tcase_add_test(tc, nvsmi_q_processes);
	tcase_add_test(tc, nvsmi_q_hostile);
	tcase_add_test(tc, nvsmi_csv);
	tcase_add_test(tc, nvsmi_clocks_reasons);
	tcase_add_test(tc, nvsmi_csv_apps);
	tcase_add_test(tc, nvsmi_table);
	tcase_add_test(tc, nvsmi_table_whole);
	tcase_add_test(tc, sacct_piped);
	tcase_add_test(tc, sacct_columns);
	tcase_add_test(tc, sacct_table);
	tcase_add_test(tc, sacct_table_collapsed);
	tcase_add_test(tc, sacct_hostile);
	tcase_add_test(tc, sacct_elapsed);
	tcase_add_test(tc, sacct_gpus_per_node);
	tcase_add_test(tc, ip_map_name_ends_at_nul);
	tcase_add_test(tc, scontrol_job);
	tcase_add_test(tc, scontrol_variants);
	tcase_add_test(tc, meminfo);
	tcase_add_test(tc, tasks);
	tcase_add_test(tc, tasks_flat_and_tree_agree);
}
