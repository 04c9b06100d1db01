/*
 * names.c - the names of source kinds, formats and coverage statuses.  These strings are
 * part of the output contract (FORMATS.md): never rename one.
 */
#include <string.h>

#include "internal.h"
#include "ruleset.h"
#include "taxonomy.h"

struct source_def {
	const char *name;
	bool trusted; /* the job's user cannot write it */
};

static const struct source_def sources[PM_SRC__COUNT] = {
	[PM_SRC_APP_LOG] = {"app_log", false},	  [PM_SRC_KERNEL_LOG] = {"kernel_log", true},
	[PM_SRC_GPU_STATE] = {"gpu_state", true}, [PM_SRC_NODE_METRICS] = {"node_metrics", true},
	[PM_SRC_SCHEDULER] = {"scheduler", true}, [PM_SRC_TASK_EXIT] = {"task_exit", true},
	[PM_SRC_RANK_MAP] = {"rank_map", true},
};

struct format_def {
	const char *name;
	enum pm_source source;
};

/* binary and empty files are never scanned; they count as app_log (untrusted). */
static const struct format_def formats[PM_FMT__COUNT] = {
	[PM_FMT_APP] = {"app", PM_SRC_APP_LOG},
	[PM_FMT_TORCHRUN] = {"torchrun_summary", PM_SRC_APP_LOG},
	[PM_FMT_PYSPY] = {"pyspy", PM_SRC_APP_LOG},
	[PM_FMT_DMESG] = {"dmesg", PM_SRC_KERNEL_LOG},
	[PM_FMT_KMSG_ISO] = {"kmsg_iso", PM_SRC_KERNEL_LOG},
	[PM_FMT_SYSLOG] = {"syslog", PM_SRC_KERNEL_LOG},
	[PM_FMT_NVSMI_Q] = {"nvsmi_q", PM_SRC_GPU_STATE},
	[PM_FMT_NVSMI_CSV] = {"nvsmi_csv", PM_SRC_GPU_STATE},
	[PM_FMT_SACCT_P] = {"sacct_p", PM_SRC_SCHEDULER},
	[PM_FMT_SACCT_TABLE] = {"sacct_table", PM_SRC_SCHEDULER},
	[PM_FMT_SCONTROL_JOB] = {"scontrol_job", PM_SRC_SCHEDULER},
	[PM_FMT_SLURMD_LOG] = {"slurmd_log", PM_SRC_SCHEDULER},
	[PM_FMT_SLURMCTLD_LOG] = {"slurmctld_log", PM_SRC_SCHEDULER},
	[PM_FMT_RANK_MAP] = {"rank_map", PM_SRC_RANK_MAP},
	[PM_FMT_TASK_EXIT] = {"task_exit", PM_SRC_TASK_EXIT},
	[PM_FMT_MEMINFO] = {"meminfo", PM_SRC_NODE_METRICS},
	[PM_FMT_PROMETHEUS] = {"prometheus", PM_SRC_NODE_METRICS},
	[PM_FMT_BINARY] = {"binary", PM_SRC_APP_LOG},
	[PM_FMT_EMPTY] = {"empty", PM_SRC_APP_LOG},
	[PM_FMT_NVSMI_TABLE] = {"nvsmi_table", PM_SRC_GPU_STATE},
};

static const char *const statuses[PM_ST__COUNT] = {
	[PM_ST_OK] = "ok",
	[PM_ST_MISSING] = "missing",
	[PM_ST_EMPTY] = "empty",
	[PM_ST_TRUNCATED] = "truncated",
	[PM_ST_TIMED_OUT] = "timed_out",
	[PM_ST_DENIED] = "denied",
	[PM_ST_LAGGING] = "lagging",
	[PM_ST_BINARY] = "binary",
	[PM_ST_UNREADABLE] = "unreadable",
};

/* The name of source kind S, or NULL when S is out of range. */
const char *pm_source_name(enum pm_source s)
{
	if ((unsigned)s >= PM_SRC__COUNT)
		return NULL;
	return sources[s].name;
}

/* Look a source kind up by NAME (NUL-terminated); 0, or -1 when unknown or NULL. */
int pm_source_parse(const char *name, enum pm_source *out)
{
	int i;

	if (!name)
		return -1;
	for (i = 0; i < PM_SRC__COUNT; i++) {
		if (strcmp(sources[i].name, name) == 0) {
			*out = (enum pm_source)i;
			return 0;
		}
	}
	return -1;
}

/* The name of format F, or NULL when F is out of range. */
const char *pm_format_name(enum pm_format f)
{
	if ((unsigned)f >= PM_FMT__COUNT)
		return NULL;
	return formats[f].name;
}

/* Look a format up by NAME (NUL-terminated); 0, or -1 when unknown or NULL. */
int pm_format_parse(const char *name, enum pm_format *out)
{
	for (int i = 0; name && i < PM_FMT__COUNT; i++)
		if (formats[i].name && !strcmp(formats[i].name, name)) {
			*out = (enum pm_format)i;
			return 0;
		}
	return -1;
}

/* The source kind that format F belongs to; app_log for binary, empty and out of range. */
enum pm_source pm_format_source(enum pm_format f)
{
	if ((unsigned)f >= PM_FMT__COUNT)
		return PM_SRC_APP_LOG;
	return formats[f].source;
}

/* Whether the job's user cannot write source S: false for app_log and out of range. */
bool pm_source_trusted(enum pm_source s)
{
	if ((unsigned)s >= PM_SRC__COUNT)
		return false;
	return sources[s].trusted;
}

/* The name of coverage status S, or NULL when S is out of range. */
const char *pm_status_name(enum pm_status s)
{
	if ((unsigned)s >= PM_ST__COUNT)
		return NULL;
	return statuses[s];
}

/* ---- the taxonomy (taxonomy.h): the one table of classes and subclasses ---- */

/* The taxonomy (rules/README.md, "Taxonomy"): class, whether it is hardware, then its subclasses. */
static const struct {
	const char *cls;
	bool hardware;
	const char *sub[12];
} taxonomy[] = {
	{"gpu_hardware",
	 true,
	 {"gpu_lost", "ecc", "row_remap", "thermal", "pcie", "firmware", "missing_gpu", "other"}},
	{"nvlink", true, {"nvlink", "nvswitch", "fabric_manager"}},
	{"network_fabric", true, {"ib_link", "nic", "roce", "tcp"}},
	{"host_hardware", true, {"node_fail", "mce", "aer", "kernel", "disk"}},
	{"storage", false, {"lustre", "nfs", "io_error", "full"}},
	{"resource_limit",
	 false,
	 {"host_oom", "gpu_oom", "shm", "time_limit", "disk_quota", "open_files", "processes",
	  "gpu_held"}},
	{"application",
	 false,
	 {"python_exception", "cuda_fault", "native_crash", "nan", "hang", "collective_mismatch"}},
	{"launch_config",
	 false,
	 {"import", "rendezvous", "nccl_init", "driver", "container", "device_busy",
	  "driver_mismatch", "scheduler", "container_host", "dependency"}},
	{"communication_unattributed", false, {"collective_timeout", "remote_error"}},
	{"external",
	 false,
	 {"user_cancel", "admin_cancel", "preempted", "requeued", "node_setup", "user_hold",
	  "admin_hold"}},
	{"none", false, {"none"}},
};

bool pm_class_hardware(const char *cls)
{
	for (size_t i = 0; i < sizeof(taxonomy) / sizeof(taxonomy[0]); i++)
		if (cls && !strcmp(cls, taxonomy[i].cls))
			return taxonomy[i].hardware;
	return false;
}

int pm_taxonomy_check(const char *cls, const char *subcls)
{
	for (size_t i = 0; i < sizeof(taxonomy) / sizeof(taxonomy[0]); i++) {
		if (strcmp(cls, taxonomy[i].cls))
			continue;
		if (!subcls)
			return 0;
		for (size_t j = 0; taxonomy[i].sub[j]; j++)
			if (!strcmp(subcls, taxonomy[i].sub[j]))
				return 0;
		return -1;
	}
	return -1;
}

/* What the engine makes or recognises itself: all of it in the table above. */

static const struct pm_kind_def kinds[PM_K__COUNT] = {
	[PM_K_TIME_LIMIT] = {"resource_limit", "time_limit"},
	[PM_K_HOST_OOM] = {"resource_limit", "host_oom"},
	[PM_K_NODE_FAIL] = {"host_hardware", "node_fail"},
	[PM_K_HANG] = {"application", "hang"},
	[PM_K_TIMEOUTS] = {"communication_unattributed", "collective_timeout"},
	[PM_K_MISMATCH] = {"application", "collective_mismatch"},
	[PM_K_REMOTE_ERROR] = {"communication_unattributed", "remote_error"},
	[PM_K_PEER_LINK] = {"network_fabric", "ib_link"},
	[PM_K_THERMAL] = {"gpu_hardware", "thermal"},
	[PM_K_USER_CANCEL] = {"external", "user_cancel"},
	[PM_K_ADMIN_CANCEL] = {"external", "admin_cancel"},
	[PM_K_PREEMPTED] = {"external", "preempted"},
	[PM_K_REQUEUED] = {"external", "requeued"},
	[PM_K_DEPENDENCY] = {"launch_config", "dependency"},
	[PM_K_USER_HOLD] = {"external", "user_hold"},
	[PM_K_ADMIN_HOLD] = {"external", "admin_hold"},
	[PM_K_NODE_SETUP] = {"external", "node_setup"},
	[PM_K_UNKNOWN] = {"unknown", NULL},
	[PM_K_NONE] = {"none", "none"},
};

/* The classes whose cause ends the job from outside it. */
static const char *const external_classes[] = {"external", NULL};

const struct pm_kind_def *pm_kind(enum pm_kind k)
{
	return &kinds[(unsigned)k < PM_K__COUNT ? k : PM_K_UNKNOWN];
}

bool pm_is_kind(const char *cls, const char *sub, enum pm_kind k)
{
	const struct pm_kind_def *d = pm_kind(k);

	return cls && !strcmp(cls, d->cls) && (!sub || !d->sub || !strcmp(sub, d->sub));
}

bool pm_class_external(const char *cls)
{
	for (size_t i = 0; cls && external_classes[i]; i++)
		if (!strcmp(cls, external_classes[i]))
			return true;
	return false;
}

bool pm_cause_slurm_act(const char *cls, const char *sub)
{
	return pm_class_external(cls) || (sub && (pm_is_kind(cls, sub, PM_K_TIME_LIMIT) ||
						  pm_is_kind(cls, sub, PM_K_NODE_FAIL)));
}
