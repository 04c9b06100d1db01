/*
 * expire.c - `postmortem expire [--dry-run] [--now DATE] [--store DIR] [--config FILE]`,
 * run daily by root (contrib/systemd/postmortem-expire.timer): removes the job runs whose
 * manifest's expiry date has passed, and logs each removal to syslog and stdout.  Never a run
 * that has not expired, nor one without a parseable expiry date, nor one being merged or
 * holding evidence that arrived after its expiry date (the finalizer re-merges it and moves
 * the date): those are reported instead.  The run is renamed aside and its manifest read
 * again before anything is deleted, so a merge that extends it meanwhile wins.  Progress on
 * a terminal, none in pipes.  Exit 0, 1 when a removal failed, 2 usage.
 */
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "finalize.h"
#include "pmutil.h"
#include "history.h"
#include "store.h"

#define USAGE "usage: %s expire [--dry-run] [--now DATE] [--store DIR] [--config FILE]\n"
#define CLAIM_FRESH 300.0 /* a `merging` claim younger than this: a merge is running */

struct expire {
	const char *store;
	double now;
	bool dry;
	struct cli_progress bar;
	size_t checked, removed, kept, reported, failed;
	unsigned long long bytes;
};

static void progress(struct expire *e)
{
	cli_progress(&e->bar, "expire: %zu job run(s) checked, %zu %sremoved", e->checked,
		     e->removed, e->dry ? "would be " : "");
}

static void say(struct expire *e, int prio, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void say(struct expire *e, int prio, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	cli_progress_clear(&e->bar);
	printf("%s\n", buf);
	fflush(stdout);
	if (!e->dry)
		syslog(prio, "%s", buf);
}

/* The newest modification time under DIR (no links followed), and the bytes it holds. */
static double newest;
static unsigned long long total;
static int visit(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)p;
	(void)flag;
	(void)f;
	if ((double)st->st_mtime > newest)
		newest = (double)st->st_mtime;
	if (S_ISREG(st->st_mode))
		total += (unsigned long long)st->st_size;
	return 0;
}

static int rm(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)f;
	return (flag == FTW_DP ? rmdir(p) : unlink(p)) < 0 ? -1 : 0;
}

/* The run's expiry, or -1 with WHY when it has none that can be trusted. */
static double expiry(const char *dir, char *why, size_t len)
{
	char err[768] = "";
	json_t *m = pm_manifest_load(dir, err, sizeof(err));
	double t = -1;

	if (!m)
		snprintf(why, len, "no readable manifest (%s)", err);
	else if (!pmu_str(m, "expires", NULL))
		snprintf(why, len, "the manifest has no expiry date");
	else if (cli_time_parse(pmu_str(m, "expires", NULL), &t) < 0 || t <= 0)
		snprintf(why, len, "the manifest's expiry date '%.40s' cannot be read",
			 pmu_str(m, "expires", NULL));
	json_decref(m);
	return t;
}

/* Remove the job and cluster folders left empty above DIR; never the store itself. */
static void prune(const struct expire *e, const char *dir)
{
	char p[4096], *s;

	snprintf(p, sizeof(p), "%s", dir);
	for (int up = 0; up < 2 && (s = strrchr(p, '/')); up++) {
		*s = '\0';
		if (!strcmp(p, e->store) || rmdir(p) < 0)
			return;
	}
}

static int one(const char *dir, void *arg)
{
	struct expire *e = arg;
	char why[1024], when[32], aside[4200], p[4096], *base;
	struct stat st;
	double t;

	e->checked++;
	progress(e);
	if ((t = expiry(dir, why, sizeof(why))) < 0) {
		e->reported++;
		say(e, LOG_WARNING, "kept %s: %s", dir, why);
		return 0;
	}
	if (t > e->now) {
		e->kept++;
		return 0;
	}
	pmu_iso(t, when, sizeof(when), "?");
	snprintf(p, sizeof(p), "%s/merging", dir);
	if (lstat(p, &st) == 0 && e->now - (double)st.st_mtime < CLAIM_FRESH) {
		e->reported++;
		say(e, LOG_NOTICE, "kept %s: expired %s, but a merge is running", dir, when);
		return 0;
	}
	newest = 0;
	total = 0;
	if (nftw(dir, visit, 16, FTW_PHYS) < 0) {
		e->failed++;
		say(e, LOG_ERR, "cannot remove %s: %s", dir, strerror(errno));
		return 0;
	}
	if (newest > t) {
		e->reported++;
		say(e, LOG_NOTICE,
		    "kept %s: expired %s, but it holds evidence written after that date "
		    "(postmortem finalize re-merges it)",
		    dir, when);
		return 0;
	}
	if (e->dry) {
		e->removed++;
		e->bytes += total;
		say(e, LOG_INFO, "would remove %s (expired %s, %llu bytes)", dir, when, total);
		return 0;
	}
	/* aside first: a merge that renews the run after our look keeps it */
	snprintf(p, sizeof(p), "%s", dir);
	base = strrchr(p, '/');
	*base++ = '\0';
	if (snprintf(aside, sizeof(aside), "%s/.expiring.%s.%ld", p, base, (long)getpid()) >=
	    (int)sizeof(aside)) {
		e->failed++;
		say(e, LOG_ERR, "cannot remove %s: path too long", dir);
		return 0;
	}
	if (rename(dir, aside) < 0) {
		e->failed++;
		say(e, LOG_ERR, "cannot remove %s: %s", dir, strerror(errno));
		return 0;
	}
	if ((t = expiry(aside, why, sizeof(why))) < 0 || t > e->now) {
		if (rename(aside, dir) < 0) {
			e->failed++;
			say(e, LOG_ERR, "%s renewed while expiring; left at %s: %s", dir, aside,
			    strerror(errno));
		} else {
			e->kept++;
		}
		return 0;
	}
	/* the run's node history goes with its evidence (store/history.h) */
	if (pm_history_forget(e->store, aside, why, sizeof(why)) < 0)
		say(e, LOG_WARNING, "%s: node history: %s (its records expire on their own)", dir,
		    why);
	if (nftw(aside, rm, 16, FTW_DEPTH | FTW_PHYS) < 0) {
		e->failed++;
		say(e, LOG_ERR, "removing %s failed part way (%s), left at %s", dir,
		    strerror(errno), aside);
		return 0;
	}
	e->removed++;
	e->bytes += total;
	say(e, LOG_NOTICE, "removed %s (expired %s, %llu bytes)", dir, when, total);
	prune(e, dir);
	return 0;
}

int cmd_expire(int argc, char **argv)
{
	struct cli_where w = {0};
	const char *now = NULL;
	struct expire e = {0};
	const struct pmu_opt opts[] = {
		{"dry-run", 'n', false, &e.dry, NULL},
		{"now", 'N', true, &now, NULL},
		{"store", 's', true, &w.store, NULL},
		{"config", 'c', true, &w.config, NULL},
	};
	struct pm_config cfg;
	char err[768], when[32];
	int rc = 1;

	if (pmu_opts_parse(argc, argv, 1, opts, PMU_NELEM(opts)) || optind != argc) {
		fprintf(stderr, USAGE, prog);
		return 2;
	}
	e.now = (double)time(NULL);
	if (now && cli_time_parse(now, &e.now) < 0) {
		fprintf(stderr, "%s expire: --now %s: not a date (YYYY-MM-DD[THH:MM[:SS]Z])\n",
			prog, now);
		return 2;
	}
	if (cli_load_config(w.config, w.store, &cfg) < 0)
		return 1;
	if (!cfg.store || !*cfg.store) {
		fprintf(stderr, "%s expire: no evidence store configured (store:, or --store)\n",
			prog);
		goto out;
	}
	if (cli_act_as_service(&cfg, "expire") < 0)
		goto out;
	e.store = cfg.store;
	cli_progress_init(&e.bar);
	openlog("postmortem-expire", LOG_PID, LOG_DAEMON);
	if (pm_store_walk(cfg.store, one, &e, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s expire: %s\n", prog, err);
		goto out;
	}
	cli_progress_clear(&e.bar);
	if (!e.dry && pm_history_sweep(cfg.store, e.now, err, sizeof(err)) < 0)
		say(&e, LOG_WARNING, "node history: %s", err);
	pmu_iso(e.now, when, sizeof(when), "?");
	printf("expire %s as of %s: %zu job run(s) checked, %zu %sremoved (%llu bytes), %zu not "
	       "expired, %zu kept and reported, %zu failed\n",
	       cfg.store, when, e.checked, e.removed, e.dry ? "would be " : "", e.bytes, e.kept,
	       e.reported, e.failed);
	rc = e.failed ? 1 : 0;
	if (fflush(stdout) != 0)
		rc = 1;
out:
	cli_leave_service();
	closelog();
	pm_config_free(&cfg);
	return rc;
}
