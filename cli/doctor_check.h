/*
 * doctor_check.h - what the files of `postmortem doctor` share: the state its checks fill in
 * and read, the one line each check prints, and the lookups every group of checks uses.
 * doctor.c parses the options, runs the checks in order and prints the summary; each
 * doctor_<group>.c holds one group of checks.  Private to those files.
 */
#ifndef PM_DOCTOR_CHECK_H
#define PM_DOCTOR_CHECK_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "doctor.h"
#include "pmargs.h"
#include "pmconfig.h"

#ifndef PM_SLURM_PLUGINDIR
#define PM_SLURM_PLUGINDIR "/usr/lib/x86_64-linux-gnu/slurm-wlm"
#endif

#define CMD_TIMEOUT 15.0   /* seconds for scontrol, sacctmgr, sdiag, chronyc */
#define EPILOG_MARGIN 10.0 /* seconds PrologEpilogTimeout should leave above the deadline */
#define SKEW_TOLERANCE 2.0 /* the bundled rule set's skew_tolerance_ms, in seconds */
#define PERMS_SAMPLE 200   /* job run folders whose permissions are checked */
#define DEFAULT_PET 65534  /* PrologEpilogTimeout when unset: wait for ever */

/* What a check found; its line starts with st_text[] (st_json[] with --json). */
enum st { ST_OK, ST_NOTE, ST_SKIP, ST_WARN, ST_FAIL, ST_UNKNOWN, ST__N };

struct doctor {
	/* options */
	bool json, strict, offline, recent;
	double since;
	const char *opt_conf, *opt_config, *opt_store, *opt_rules, *opt_log;
	/* results */
	json_t *checks;
	int count[ST__N];
	/* what was found */
	char host[256];
	char conf[PATH_MAX]; /* slurm.conf in use, "" none */
	bool have_conf, have_live;
	struct dc_slurmconf sc;
	struct dc_kvs live; /* scontrol show config */
	char slurm_version[64];
	bool have_ps;
	struct dc_plugstack ps;
	const struct dc_plugin *pm; /* our plugstack line, NULL when absent */
	bool epilog_route;	    /* the collector runs from slurm.conf's Epilog= instead */
	char so[PATH_MAX];	    /* the plugin file, resolved; "" unknown */
	bool so_ok;		    /* safe to dlopen */
	struct pm_args args;
	bool args_ok;
	struct pm_config cfg;
	bool cfg_ok;
	char cfg_path[PATH_MAX];
	const char *store;
	bool store_ok;
};

/* ---- output (doctor.c) ---- */

/* Print one check's line (or add it to the JSON list): status S, check ID, a message from
 * FMT; FIX is shown under a warn or FAIL. */
void doc_say(struct doctor *d, enum st s, const char *id, const char *fix, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* A fix text built with printf formatting; static storage, valid until the next call. */
const char *doc_fixf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* S seconds as a duration (7d, 36h, 90s, 0.5s); into BUF, which is returned. */
const char *doc_secs(double s, char *buf, size_t len);

/* ---- running commands (doctor.c) ---- */

/*
 * Run ARGV (PATH searched) with SLURM_CONF set to the slurm.conf in use, stdin /dev/null,
 * stdout and stderr into OUT (LEN bytes, NUL-terminated, the rest dropped), killed after
 * TIMEOUT seconds.  Returns the exit status, 127 when it could not be run, 128+N when a
 * signal N ended it, -2 when it timed out, -1 on a local error.
 */
int doc_run_cmd(const struct doctor *d, const char *const argv[], double timeout, char *out,
		size_t len);

/*
 * Run FN(D, FD) in a child process that SIGALRM ends after SECS seconds: FN writes its
 * answer to FD and ends the child with _exit (0 when it returns).  The answer into OUT (LEN
 * bytes, NUL-terminated, the rest dropped), the child's wait status into *STATUS (left as it
 * was when it cannot be had).  0, or -1 when no child could be started.
 */
int doc_in_child(const struct doctor *d, unsigned secs, void (*fn)(const struct doctor *, int),
		 char *out, size_t len, int *status);

/* The first line of TEXT (for a message), at most 200 bytes; "(no output)" when empty. */
const char *doc_first_line(const char *text, char *buf, size_t len);

/* ---- values from slurm.conf or the running configuration (doctor.c) ---- */

/* The file's value when it sets KEY, else the running one, else NULL; *WHERE says which. */
const char *doc_conf_get(const struct doctor *d, const char *key, const struct dc_kv **where);

/* The running configuration's value of KEY, NULL when unset or unknown. */
const char *doc_live_get(const struct doctor *d, const char *key);

/* Where KV was set ("FILE:LINE", or the running configuration); into BUF. */
const char *doc_where_text(const struct dc_kv *kv, char *buf, size_t len);

/* S as a whole number into *OUT: false when S is NULL or does not start with one. */
bool doc_parse_long(const char *s, long long *out);

/* Whether PATH exists and is not root's or is writable by others than root; WHY says so. */
bool doc_unsafe_file(const char *path, char *why, size_t len);

/* ---- the checks, in the order doctor runs them ---- */

/* doctor_slurm.c */
void check_slurm_conf(struct doctor *d);
void check_live(struct doctor *d);
/* doctor_plugin.c */
void check_plugstack(struct doctor *d);
void check_args(struct doctor *d);
void check_plugin_file(struct doctor *d);
void check_plugin_load(struct doctor *d);
/* doctor_slurm.c */
void check_slurmd(struct doctor *d);
/* doctor_collector.c */
void check_config(struct doctor *d);
/* doctor_slurm.c */
void check_timeout(struct doctor *d);
/* doctor_collector.c */
void check_collector(struct doctor *d);
void check_rules(struct doctor *d);
void check_spool(struct doctor *d);
/* doctor_store.c */
void check_store(struct doctor *d);
void check_store_write(struct doctor *d);
void check_evidence(struct doctor *d);
void check_group(struct doctor *d);
void check_ledger(struct doctor *d);
void check_metrics(struct doctor *d);
/* doctor_slurm.c */
void check_accounting(struct doctor *d);
void check_store_flags(struct doctor *d);
void check_comment_trust(struct doctor *d);
void check_clock(struct doctor *d);
/* doctor_recent.c */
void check_recent(struct doctor *d);

#endif
