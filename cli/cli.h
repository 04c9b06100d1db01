/* cli.h - the postmortem command's verbs; each is a thin shell over libpostmortem. */
#ifndef PM_CLI_H
#define PM_CLI_H

#include <stdbool.h>

#include "pmutil.h"
#include "postmortem.h"

struct verb {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *usage;
	const char *summary;
};

/* The rule set directory to use: OPT (--rules), $POSTMORTEM_RULES, the installed set, or
 * the source tree's set when running uninstalled. */
const char *cli_rules_dir(const char *opt);
/* Load the rule set or print the loader's error (file:line) and return NULL. */
struct pm_ruleset *cli_load_rules(const char *opt);

int cmd_diagnose(int argc, char **argv);
int cmd_rules(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_fetch(int argc, char **argv);
int cmd_finalize(int argc, char **argv);
/* the responder verbs (issue 5): replay.c, ledger.c, drill.c, expire.c, report.c over store.h */
int cmd_replay(int argc, char **argv);
int cmd_ledger(int argc, char **argv);
int cmd_drill(int argc, char **argv);
int cmd_expire(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_doctor(int argc, char **argv);	/* doctor.c */
int cmd_metrics(int argc, char **argv); /* metrics.c */
int cmd_nodes(int argc, char **argv);

/* ---- access.c: the store verbs (show, fetch, finalize) ---- */

struct pm_config;

/* Who may read a job's evidence: root, the job's owner, the operators' group. */
enum cli_access {
	CLI_DENIED,
	CLI_ROOT,
	CLI_OWNER,
	CLI_OPERATOR,
};

/*
 * Decide for a caller with uid UID and groups GROUPS (NGROUPS, the primary one included)
 * on a job owned by OWNER (-1 unknown: only root and operators) when the operators' group
 * has gid OPS_GID (-1: no such group).  Pure.
 */
enum cli_access cli_access_decide(long long uid, const long long *groups, size_t ngroups,
				  long long owner, long long ops_gid);

/* The decision for the calling process on the job run whose manifest is MANIFEST; silent. */
enum cli_access cli_access_of(const struct pm_config *cfg, const json_t *manifest);

/*
 * Apply the decision to the calling process for job JOB whose manifest is MANIFEST; prints
 * the refusal ("job 42 belongs to another user; ask an operator (group slurmops)") and
 * returns -1 when denied, else 0.  In addition to the store's own permissions.
 */
int cli_access_check(const struct pm_config *cfg, const char *job, const json_t *manifest);

/* Load --config FILE, $POSTMORTEM_CONFIG, the installed file if present, or the defaults;
 * then --store STORE when given.  Prints the error and returns -1. */
int cli_load_config(const char *file, const char *store, struct pm_config *cfg);

/* Verbs that write the store (finalize, replay --apply, expire) run by root write it as the
 * configured service_user, as the collector does: on NFS with root_squash root cannot.  Only
 * the effective ids change.  Prints why and returns -1 when it cannot; 0 otherwise (nothing
 * to do when not root or no service user is configured). */
int cli_act_as_service(const struct pm_config *cfg, const char *verb);
/* Root again after cli_act_as_service (nothing when it did not switch).  The verbs call it
 * before they return: the process ends as it began. */
void cli_leave_service(void);

/* Find the job run folder (see pm_jobdir_find) or print why not and return -1. */
int cli_jobdir(const struct pm_config *cfg, const char *job, const char *cluster,
	       const char *restart, char *out, size_t outlen);

/* ---- the options that name a job run, and opening it (show, fetch, drill, report,
 * finalize, ledger; expire, metrics and replay take the store's and the configuration's
 * through their own option tables too) ---- */

/* --store DIR, --cluster C, --restart N, --config FILE: NULL when not given. */
struct cli_where {
	const char *store, *cluster, *restart, *config;
};

/* Their entries for a verb's option table (pmu_opts_parse), filling W; in this order (an
 * ambiguous abbreviation's message lists the table's order). */
/* clang-format off */
#define CLI_WHERE_OPTS(w)                          \
	{"store", 's', true, &(w)->store, NULL},         \
	{"cluster", 'C', true, &(w)->cluster, NULL},     \
	{"restart", 'r', true, &(w)->restart, NULL},     \
	{"config", 'c', true, &(w)->config, NULL}
/* clang-format on */

/* A job run opened for reading. */
struct cli_run {
	struct pm_config *cfg; /* loaded; NULL until then */
	char dir[4096];	       /* the run's folder */
	json_t *manifest;      /* its manifest */
};

/*
 * Load the configuration W names, find JOB's run, read its manifest and check that the caller
 * may read it (cli_access_check).  Prints why not, prefixed "postmortem VERB:" (VERB may be
 * NULL), the manifest's error as "job JOB: LABEL: ..." when LABEL is not NULL.  0, or -1;
 * cli_run_close(R) in both cases.
 */
int cli_run_open(struct cli_run *r, const struct cli_where *w, const char *job, const char *verb,
		 const char *label);
void cli_run_close(struct cli_run *r);
/* The name of R's run for a header: what the user TYPED when it names a reused id's run
 * (4242~2, 4242~1), else the run folder's (4242, or 4242~2 when that is the id's latest). */
void cli_run_name(const struct cli_run *r, const char *typed, char *out, size_t len);

/*
 * The verdict.json of the run in DIR: parsed, and its bytes into *TEXT and *LEN when TEXT is
 * not NULL (the caller frees).  NULL with ERR ("DIR/verdict.json:LINE: what" when it is not
 * JSON); silent.
 */
json_t *cli_verdict_load(const char *dir, char **text, size_t *len, char *err, size_t errlen);

/* ---- metrics.c ---- */

/* The Prometheus metrics of CFG's store (node_exporter's textfile collector format) into
 * *TEXT (malloc'd, *LEN bytes).  Prints why not; 0, 1 when the store could not be read (the
 * text says postmortem_store_up 0), -1 when nothing could be made. */
int cli_metrics_text(const struct pm_config *cfg, char **text, size_t *len);
/* Replace TEXTFILE whole with TEXT: a hidden temporary file in its folder (not *.prom, which
 * the exporter would read) renamed over it, mode 0644.  Prints why not; 0 or -1. */
int cli_metrics_save(const char *textfile, const char *text, size_t len);

extern const char *prog;

#endif
