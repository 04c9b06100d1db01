/*
 * main.c - postmortem-epilog: the node collector (epilog/README.md).
 *
 * Runs as root once per node after a job, from the SPANK plugin's job_epilog or a site's
 * Epilog= script.  Arguments and configuration, one overall deadline, then the modules in
 * order: collect, scrub, bundle, store (and finalize).  It never fails the epilog: the exit
 * status is 0 unless --strict, and it is gone before its deadline.  One syslog line says
 * what happened.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "collector.h"
#include "pmutil.h"

#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#define REDELIVER_MAX 8	   /* earlier pending bundles delivered per run */
#define REDELIVER_MIN 2.0  /* seconds left needed to try */
#define RESTART_LOOKUP 2.0 /* seconds scontrol may take to tell a requeued run */
#define CARRY_MARGIN 1.0   /* seconds left for the bundle and the store after a scan begins */

struct opts {
	const char *config, *store, *spool, *job, *node;
	double deadline, timeout, retain; /* 0: not given */
	bool strict;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: postmortem-epilog [--config FILE] [--store DIR] [--spool DIR]\n"
		"                         [--deadline DURATION] [--timeout DURATION] [--retain DURATION]\n"
		"                         [--job ID] [--node NAME] [--strict]\n"
		"Snapshots this node's evidence for a job that ended and stores it (epilog/README.md).\n"
		"Job facts come from the epilog's environment (SLURM_JOB_ID, SLURMD_NODENAME, ...).\n");
}

static void on_term(int sig)
{
	(void)sig;
	pm_collect_stop();
}

static int duration_opt(const struct pmu_opt *opt, const char *v)
{
	if (pm_parse_duration(v, opt->dst) < 0 || *(double *)opt->dst <= 0) {
		fprintf(stderr, "postmortem-epilog: --%s=%s: not a duration (30s, 250ms, 14d)\n",
			opt->name, v);
		return 2;
	}
	return 0;
}

static int help_opt(const struct pmu_opt *opt, const char *v)
{
	(void)opt;
	(void)v;
	usage(stdout);
	return 1;
}

static int version_opt(const struct pmu_opt *opt, const char *v)
{
	(void)opt;
	(void)v;
	printf("postmortem-epilog %s\n", PACKAGE_VERSION);
	return 1;
}

/* 0 run, 1 exit 0 (help, version), 2 usage error. */
static int parse(int argc, char **argv, struct opts *o)
{
	const struct pmu_opt lo[] = {
		{"config", 0, true, &o->config, NULL},
		{"store", 0, true, &o->store, NULL},
		{"spool", 0, true, &o->spool, NULL},
		{"deadline", 0, true, &o->deadline, duration_opt},
		{"timeout", 0, true, &o->timeout, duration_opt},
		{"retain", 0, true, &o->retain, duration_opt},
		{"job", 0, true, &o->job, NULL},
		{"node", 0, true, &o->node, NULL},
		{"strict", 0, false, &o->strict, NULL},
		{"help", 0, false, NULL, help_opt},
		{"version", 0, false, NULL, version_opt},
	};
	int rc = pmu_opts_parse(argc, argv, 1, lo, PMU_NELEM(lo));

	if (rc > 0)
		return rc;
	if (rc < 0 || optind < argc) {
		usage(stderr);
		return 2;
	}
	return 0;
}

/*
 * The configuration: the file (--config, else the default when it exists), then options.
 * 0, 1 when the file is bad and the defaults stand in (fail open: they still collect), or
 * -1 out of memory.
 */
static int configure(const struct opts *o, struct pm_config *cfg, char *err, size_t errlen)
{
	const char *file = o->config;
	char none[8];
	int rc = 0;

	if (!file && access(PM_CONFIG_DEFAULT, F_OK) == 0)
		file = PM_CONFIG_DEFAULT;
	if (pm_config_load(file, cfg, err, errlen) < 0) {
		rc = 1;
		if (pm_config_load(NULL, cfg, none, sizeof(none)) < 0)
			return -1;
	}
	if ((o->store && pmu_strset(&cfg->store, o->store) < 0) ||
	    (o->spool && pmu_strset(&cfg->spool, o->spool) < 0)) {
		pm_config_free(cfg);
		return -1;
	}
	if (o->retain)
		cfg->retain = o->retain;
	if (o->deadline)
		cfg->deadline = o->deadline;
	return rc;
}

/*
 * The collector's deadline: the configured one, and under the plugin's hard kill (--timeout:
 * SIGTERM a fifth before it, at most 2 s, then SIGKILL) with half a second to spare.
 */
static double budget(const struct pm_config *cfg, const struct opts *o)
{
	double d = cfg->deadline;

	if (o->timeout) {
		double grace = o->timeout / 5 < 2 ? o->timeout / 5 : 2;
		double hard = o->timeout - grace - 0.5;
		if (hard < d)
			d = hard;
	}
	return d < 0.5 ? 0.5 : d;
}

/* The spool root: --spool may name the job's own folder, as the plugin passes it. */
static char *spool_root(const struct pm_config *cfg, const struct pm_job *j)
{
	const char *s = cfg->spool, *base;

	if (!s)
		return NULL;
	base = strrchr(s, '/');
	if (base && !strcmp(base + 1, j->id))
		return strndup(s, (size_t)(base - s));
	return strdup(s);
}

static void timed_out_list(const struct pm_collection *c, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (int s = 0; s < PM_CS__COUNT; s++)
		if (c->cov[s].status == PM_ST_TIMED_OUT && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "," : "",
					      pm_csource_name(s));
	if (!n)
		snprintf(buf, len, "none");
}

static size_t files(const struct pm_collection *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->ncaps; i++)
		n += c->caps[i].name != NULL;
	return n;
}

static void report(const struct pm_job *j, const struct pm_collection *c, double took,
		   uint64_t redacted, size_t bundle, const struct pm_store_result *r,
		   const char *extra)
{
	char to[200], store[sizeof(r->path) + sizeof(r->reason) + 32];
	size_t kept = 0;

	for (size_t i = 0; i < c->ncaps; i++)
		kept += c->caps[i].name ? c->caps[i].len : 0;

	timed_out_list(c, to, sizeof(to));
	if (r->stored)
		snprintf(store, sizeof(store), "stored %s%s%s", r->path, r->reason[0] ? "; " : "",
			 r->reason);
	else if (r->pending)
		snprintf(store, sizeof(store), "pending in %s (%s)", r->path, r->reason);
	else
		snprintf(store, sizeof(store), "failed (%s)", r->reason);
	syslog(r->stored ? LOG_INFO : LOG_WARNING,
	       "job %s node %s: %.2f s, timed out: %s, deadline hit: %s, kept %zu bytes in %zu files (%llu redactions, bundle %zu bytes), store: %s%s%s",
	       j->key, j->node, took, to, c->deadline_hit ? "yes" : "no", kept, files(c),
	       (unsigned long long)redacted, bundle, store, extra[0] ? "; " : "", extra);
	fprintf(stderr,
		"postmortem-epilog: job %s node %s: %.2f s, timed out: %s, deadline hit: %s, kept %zu bytes in %zu files (%llu redactions, bundle %zu bytes), store: %s%s%s\n",
		j->key, j->node, took, to, c->deadline_hit ? "yes" : "no", kept, files(c),
		(unsigned long long)redacted, bundle, store, extra[0] ? "; " : "", extra);
}

static int run(const struct opts *o, double t0)
{
	struct pm_config cfg;
	struct pm_job j;
	struct pm_collection c;
	struct pm_store_result sr = {.finalize = -2};
	char err[1024] = "", extra[1100] = "";
	double end, reserve;
	uint64_t redacted;
	void *buf = NULL;
	size_t len = 0;
	int rc = 1, conf;

	conf = configure(o, &cfg, err, sizeof(err));
	if (conf < 0) {
		syslog(LOG_ERR, "out of memory; nothing collected");
		return 1;
	}
	if (conf)
		snprintf(extra, sizeof(extra), "configuration: %s (defaults used)", err);
	end = t0 + budget(&cfg, o);
	/* the bundle is written and read back after the sources stop */
	reserve = (end - t0) / 10 < 1 ? (end - t0) / 10 : 1;
	if (pm_job_init(&j, o->job, o->node, cfg.spool, err, sizeof(err)) < 0) {
		syslog(LOG_ERR, "%s; nothing collected", err);
		pm_config_free(&cfg);
		return 1;
	}
	/* spool: .../%n is this node's own (pending bundles, later deliveries) */
	if (cfg.spool && strchr(cfg.spool, '%')) {
		char *x = pm_expand(cfg.spool, j.node, j.id);

		if (x) {
			free(cfg.spool);
			cfg.spool = x;
		}
	}
	/* a requeued job: which of its runs this is (scontrol, briefly) */
	if (j.restart > 0) {
		double ask = (end - t0) / 10 < RESTART_LOOKUP ? (end - t0) / 10 : RESTART_LOOKUP;
		size_t n = strlen(extra);

		pm_job_resolve_restart(&j, ask);
		if (j.restart_note[0])
			snprintf(extra + n, sizeof(extra) - n, "%srun %d: %s", n ? "; " : "",
				 j.restart, j.restart_note);
	}
	if (pm_collect(&cfg, &j, end - reserve, &c) < 0) {
		syslog(LOG_ERR, "job %s: out of memory while collecting", j.key);
		goto out_job;
	}
	redacted = pm_collection_scrub(&c);
	/* the job's output scanned here, while there is time, so that the merge need not */
	if (cfg.carry_scans && !pm_collect_stopped()) {
		char note[300];
		size_t n = strlen(extra);

		pm_collection_carry(&c, &j, cfg.rules, end - reserve - CARRY_MARGIN, note,
				    sizeof(note));
		if (note[0] && strncmp(note, "job output scanned for the merge", 32))
			snprintf(extra + n, sizeof(extra) - n, "%s%s", n ? "; " : "", note);
	}
	c.end = pm_now();
	if (pm_bundle_write(&c, &j, &buf, &len, err, sizeof(err)) < 0) {
		snprintf(sr.reason, sizeof(sr.reason), "bundle not written: %s", err);
		report(&j, &c, pm_mono() - t0, redacted, 0, &sr, extra);
		goto out_coll;
	}
	/* after a SIGTERM the plugin's SIGKILL is near: store, leave finalizing to the timer */
	if (pm_store_put(&cfg, &j, buf, len, pm_collect_stopped() ? 0 : end, &sr) == 0) {
		char *root = spool_root(&cfg, &j);

		pm_job_spool_remove(&j);
		if (root && !pm_collect_stopped() && end - pm_mono() > REDELIVER_MIN)
			pm_store_redeliver(&cfg, root, j.id, end - 0.5, REDELIVER_MAX);
		free(root);
		rc = !conf && sr.finalize != -1 ? 0 : 1;
	}
	report(&j, &c, pm_mono() - t0, redacted, len, &sr, extra);
	free(buf);
out_coll:
	pm_collection_free(&c);
out_job:
	pm_job_free(&j);
	pm_config_free(&cfg);
	return rc;
}

int main(int argc, char **argv)
{
	double t0 = pm_mono();
	struct opts o = {0};
	struct sigaction sa = {.sa_handler = on_term};
	int rc;

	rc = parse(argc, argv, &o);
	if (rc)
		return rc == 1 ? 0 : (o.strict ? 2 : 0);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL); /* no SA_RESTART: poll() returns and sees it */
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	umask(077);
	if (!getenv("PATH"))
		setenv("PATH", DEFAULT_PATH, 1);
	openlog("postmortem-epilog", LOG_PID, LOG_DAEMON);
	rc = run(&o, t0);
	closelog();
	return o.strict ? rc : 0;
}
