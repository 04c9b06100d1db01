/*
 * pmconfig.h - the collector's configuration (epilog/README.md), shared by the node-side
 * collector, the finalizer and the CLI verbs that read the evidence store.
 */
#ifndef PM_CONFIG_H
#define PM_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PM_CONFIG_DEFAULT "/etc/slurm/postmortem.yaml"

/* The sources a node collects, in table order; names are the configuration keys. */
enum pm_csource {
	PM_CS_JOB_OUTPUT, /* the job's stdout/stderr (patterns expanded), read as the user */
	PM_CS_USER_LOGS,  /* --postmortem-logs files, read as the user */
	PM_CS_RANK_MAP,	  /* the plugin's rank map and task exits from the spool */
	PM_CS_KERNEL_LOG,
	PM_CS_GPU_STATE,
	PM_CS_GPU_CSV,
	PM_CS_HOST_STATE,
	PM_CS_SLURMD_LOG,
	PM_CS_PROMETHEUS, /* PromQL queries for the job's node and window (prom.c) */
	PM_CS__COUNT
};

struct pm_source_conf {
	bool enabled;
	char *command;	/* run with /bin/sh -c after %n/%j expansion; NULL: none */
	char **paths;	/* files to read after expansion; NULL-terminated */
	uint64_t cap;	/* bytes kept (head and tail) */
	double timeout; /* seconds */
};

/* The Prometheus source (`prometheus:`, epilog/prom.h); off while URL is NULL. */
struct pm_prom_conf {
	char *url;		 /* base URL, http:// or https:// */
	char **queries;		 /* metric names or PromQL (%n, %j); NULL-terminated */
	char **node_labels;	 /* labels that name the node; NULL-terminated */
	char *bearer_token_file; /* root-only file holding the token; NULL none */
	char *ca_file;		 /* CA bundle for https; NULL the system's */
	double step;		 /* seconds between samples asked for */
	double lookback;	 /* the window when the job's start is unknown */
	unsigned max_points;	 /* per series: a longer window gets a longer step */
};

/* One webhook sink (`webhooks:`, store/webhook.h). */
struct pm_webhook_conf {
	char *url;
	double timeout;		 /* seconds per attempt */
	unsigned retries;	 /* attempts after the first, within the deadline */
	char *bearer_token_file; /* as above */
	char *ca_file;
	bool include_manifest; /* post {"verdict": ..., "manifest": ...} */
};

/* The longest sacct or sacctmgr command the configuration takes, in bytes: the store runs
 * it (through sh -c when it holds blanks) from a buffer of this size, never cut. */
#define PM_CMD_MAX 4000

struct pm_config {
	char *path; /* the file it was read from, or NULL for defaults */
	char *store;
	char *spool;
	char *rules;	 /* rule set directory; NULL: the installed one */
	double retain;	 /* seconds */
	double deadline; /* seconds, the whole collector */
	char *operators_group;
	char *comment_field;	/* "Comment" or "AdminComment" */
	bool admin_comment;	/* the verdict line also in AdminComment (never over JS1:) */
	bool carry_scans;	/* the collector scans the job's output for the merge (carry.c) */
	double comment_recheck; /* seconds: the timer rechecks comments it set within; 0 off */
	double merge_deadline;	/* seconds the timer gives one job run's merge */
	char *service_user;
	char *store_marker;	/* a file that must be in the store's root; NULL: no check */
	char *sacct, *sacctmgr; /* commands, for tests and odd installs */
	char *ledger;		/* the decision ledger; NULL: <store>/ledger.jsonl (cli) */
	char *ledger_head;	/* its root-only head file; NULL: <store>/ledger.head */
	char *metrics_textfile; /* where `postmortem finalize` writes metrics (cli); NULL none */
	/* repeats that justify a repair (store/history.h): the same hardware class on the
	 * same node from trusted evidence in REPEAT_JOBS distinct jobs within REPEAT_WINDOW s */
	unsigned repeat_jobs;
	double repeat_window;
	struct pm_source_conf src[PM_CS__COUNT];
	struct pm_prom_conf prom;
	struct pm_webhook_conf *webhooks;
	size_t nwebhooks;
};

const char *pm_csource_name(enum pm_csource s);

/*
 * Read the configuration FILE (NULL: defaults only) into CFG.  Unknown keys, bad sizes or
 * durations are errors naming file:line.  Returns 0, or -1 with ERR filled.
 */
int pm_config_load(const char *file, struct pm_config *cfg, char *err, size_t errlen);
void pm_config_free(struct pm_config *cfg);

/* "14d", "36h", "90s", "1.5s", "250ms" -> seconds; "8MiB", "64KiB", "100" -> bytes. 0/-1. */
int pm_parse_duration(const char *s, double *out);
int pm_parse_size(const char *s, uint64_t *out);

/* Expand %n (node), %j (job id), %% in T into a malloc'd string. */
char *pm_expand(const char *t, const char *node, const char *job);

#endif
