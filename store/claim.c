/*
 * claim.c - the `merging` claim (epilog/README.md, "Finalize protocol"): one file created with
 * O_EXCL in the job run folder says who merges it, from which host and process, and until
 * when.  A claim whose holder is gone from this host, or whose time ran out, is free: it is
 * moved aside and taken, checking that the one moved is the one judged stale.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "finalize_int.h"
#include "pmutil.h"

#define CLAIM_SLACK 5.0 /* seconds past its stated end before a claim is free */

void pm_fin_claim_id(char *me, size_t len, double budget)
{
	char host[64] = "";
	double now = pm_fin_wall();

	gethostname(host, sizeof(host) - 1);
	snprintf(me, len, "%s %ld %.0f %.0f\n", host, (long)getpid(), now,
		 now + (budget > 0 ? budget : PM_CLAIM_STALE));
}

int pm_claim_parse(const char *text, struct pm_claim *c)
{
	int n;

	memset(c, 0, sizeof(*c));
	c->end = -1;
	n = sscanf(text, "%63s %ld %lf %lf", c->host, &c->pid, &c->start, &c->end);
	if (n < 3 || c->pid <= 0)
		return -1;
	if (n < 4)
		c->end = -1; /* an older claim: only its age tells */
	return 0;
}

/* Is the claim C (file modified at MTIME) free to take at NOW? */
bool pm_claim_stale(const struct pm_claim *c, double mtime, double now, const char **why)
{
	char host[64] = "";

	gethostname(host, sizeof(host) - 1);
	if (c && c->host[0] && !strcmp(c->host, host) && kill((pid_t)c->pid, 0) < 0 &&
	    errno == ESRCH) {
		*why = "its merger is gone";
		return true;
	}
	if (c && c->end > 0 && now > c->end + CLAIM_SLACK) {
		*why = "its merger's time ran out";
		return true;
	}
	if (now - mtime >= PM_CLAIM_STALE) {
		*why = "older than its limit";
		return true;
	}
	*why = "";
	return false;
}

/* Is the claim file P (stat ST) free to take? */
static bool claim_free(const char *p, const struct stat *st)
{
	struct pm_claim c;
	const char *why;
	char *buf = NULL;
	bool parsed;

	parsed = pm_fin_read(p, 4096, &buf, NULL) == 0 && pm_claim_parse(buf, &c) == 0;
	free(buf);
	return pm_claim_stale(parsed ? &c : NULL, (double)st->st_mtime, pm_fin_wall(), &why);
}

int pm_fin_claim(const char *dir, const char *me)
{
	char p[4096], aside[4096], host[64] = "";
	struct stat st, st2;
	int fd;

	gethostname(host, sizeof(host) - 1);
	snprintf(p, sizeof(p), "%s/merging", dir);
	snprintf(aside, sizeof(aside), "%s/.merging.stale.%s.%ld", dir, host, (long)getpid());
	for (int tries = 0; tries < 3; tries++) {
		fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
		if (fd >= 0) {
			ssize_t w = write(fd, me, strlen(me));
			close(fd);
			return w == (ssize_t)strlen(me) ? 1 : (unlink(p), -1);
		}
		if (errno != EEXIST)
			return -1;
		if (lstat(p, &st) < 0) {
			if (errno == ENOENT)
				continue;
			return -1;
		}
		if (!claim_free(p, &st))
			return 0;
		/* a merger died: move its claim aside, and make sure it was that one we moved */
		if (rename(p, aside) < 0) {
			if (errno == ENOENT)
				continue;
			return -1;
		}
		if (lstat(aside, &st2) == 0 && st2.st_ino == st.st_ino &&
		    st2.st_mtime == st.st_mtime) {
			unlink(aside);
			continue;
		}
		if (link(aside, p) < 0 && errno != EEXIST) {
			unlink(aside);
			return -1;
		}
		unlink(aside);
		return 0;
	}
	return 0;
}

void pm_fin_release(const char *dir, const char *me)
{
	char p[4096], *buf;

	snprintf(p, sizeof(p), "%s/merging", dir);
	if (pm_fin_read(p, 4096, &buf, NULL) < 0)
		return;
	if (!strcmp(buf, me)) /* not one that took ours over */
		unlink(p);
	free(buf);
}

void pm_fin_describe_claim(const char *jobdir, size_t in, size_t of, char *buf, size_t len)
{
	char p[4096], *text = NULL, since[40] = "?", end[40] = "?";
	struct pm_claim c;
	struct stat st;
	const char *why;
	bool parsed;

	snprintf(p, sizeof(p), "%s/merging", jobdir);
	if (lstat(p, &st) < 0) {
		snprintf(buf, len,
			 "%zu of %zu node(s) reported, but no merge finished: no verdict, no claim "
			 "left (the merging collector was stopped before it wrote one); the finalize "
			 "timer merges it, or run `postmortem finalize JOB`",
			 in, of);
		return;
	}
	parsed = pm_fin_read(p, 4096, &text, NULL) == 0 && pm_claim_parse(text, &c) == 0;
	free(text);
	if (parsed) {
		pmu_iso(c.start, since, sizeof(since), "1970-01-01T00:00:00Z");
		if (c.end > 0)
			pmu_iso(c.end, end, sizeof(end), "1970-01-01T00:00:00Z");
	}
	if (pm_claim_stale(parsed ? &c : NULL, (double)st.st_mtime, pm_fin_wall(), &why))
		snprintf(buf, len,
			 "%zu of %zu node(s) reported, but the merge did not finish: %s (%s %ld, "
			 "started %s, to end by %s) without writing a verdict; the claim is free "
			 "and the finalize timer merges it, or run `postmortem finalize JOB`",
			 in, of, why, parsed ? c.host : "?", parsed ? c.pid : 0L, since, end);
	else
		snprintf(buf, len,
			 "%zu of %zu node(s) reported; a merge is running (%s %ld, started %s, to "
			 "end by %s)",
			 in, of, parsed ? c.host : "?", parsed ? c.pid : 0L, since, end);
}
