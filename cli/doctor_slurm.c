/*
 * doctor_slurm.c - doctor's checks of Slurm's side: slurm.conf and the running
 * configuration (1, 2), slurmd's start against the plugin stack (7), PrologEpilogTimeout
 * against the collector's deadline (8), accounting and its flags (16, 17) and the clocks (18).
 */
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "doctor_check.h"

/* ---- 1. slurm.conf ---- */

void check_slurm_conf(struct doctor *d)
{
	const char *cands[] = {d->opt_conf, getenv("SLURM_CONF"), "/etc/slurm/slurm.conf",
			       "/run/slurm/conf/slurm.conf", "/etc/slurm-llnl/slurm.conf"};
	char err[1024];

	for (size_t i = 0; i < sizeof(cands) / sizeof(cands[0]); i++) {
		const char *c = cands[i];
		if (!c || !*c || (i > 0 && d->opt_conf))
			continue;
		if (i > 1 && access(c, F_OK) < 0)
			continue;
		snprintf(d->conf, sizeof(d->conf), "%s", c);
		if (dc_slurmconf_load(c, &d->sc, err, sizeof(err)) < 0) {
			doc_say(d, ST_UNKNOWN, "slurm.conf", NULL,
				"cannot read %s: %s (the checks below use the running configuration "
				"where slurmctld answers)",
				c, err);
			return;
		}
		d->have_conf = true;
		doc_say(d, ST_OK, "slurm.conf", NULL, "%s (%zu file%s with its Include lines)", c,
			d->sc.files.n, d->sc.files.n == 1 ? "" : "s");
		return;
	}
	doc_say(d, ST_UNKNOWN, "slurm.conf", NULL,
		"no slurm.conf found ($SLURM_CONF, /etc/slurm/slurm.conf, /run/slurm/conf/slurm.conf): "
		"name it with --slurm-conf FILE");
}

/* ---- 2. the running configuration ---- */

void check_live(struct doctor *d)
{
	static char out[256 << 10];
	const char *sc[] = {"scontrol", "show", "config", NULL};
	const char *ver[] = {"scontrol", "--version", NULL};
	char line[256];
	int rc;

	if (d->offline) {
		doc_say(d, ST_SKIP, "slurmctld", NULL,
			"--offline: slurmctld, slurmdbd and chronyd are "
			"not asked; files only");
		return;
	}
	rc = doc_run_cmd(d, ver, CMD_TIMEOUT, out, sizeof(out));
	/* "slurm 23.02.7", Debian's "slurm-wlm 22.05.8" */
	if (rc != 0 || sscanf(out, "%*s %63s", d->slurm_version) != 1 ||
	    !isdigit((unsigned char)d->slurm_version[0]))
		d->slurm_version[0] = '\0';
	rc = doc_run_cmd(d, sc, CMD_TIMEOUT, out, sizeof(out));
	if (rc == 127) {
		doc_say(d, ST_WARN, "slurmctld",
			"install Slurm's client commands (Debian: slurm-client)",
			"scontrol is not installed here: the running configuration cannot be compared "
			"with the file");
		return;
	}
	if (rc != 0 || dc_scontrol_parse(out, &d->live) < 0 ||
	    !dc_kv_get(&d->live, "ClusterName")) {
		doc_say(d, ST_WARN, "slurmctld",
			"start slurmctld or check SlurmctldHost and munge; then run doctor again",
			"slurmctld did not answer `scontrol show config` (%s): the file's values are "
			"checked, not the running ones",
			rc == -2 ? "timed out" : doc_first_line(out, line, sizeof(line)));
		dc_kvs_free(&d->live);
		return;
	}
	d->have_live = true;
	if (!d->slurm_version[0] && doc_live_get(d, "SLURM_VERSION"))
		snprintf(d->slurm_version, sizeof(d->slurm_version), "%s",
			 doc_live_get(d, "SLURM_VERSION"));
	doc_say(d, ST_OK, "slurmctld", NULL, "slurmctld answers: cluster %s, Slurm %s",
		doc_live_get(d, "ClusterName"), d->slurm_version[0] ? d->slurm_version : "?");
}

/* ---- 7. slurmd started after the plugin stack last changed ---- */

struct proc {
	pid_t pid;
	double start;
	char cmd[128];
};

static double boot_time(void)
{
	FILE *f = fopen("/proc/stat", "re");
	char line[256];
	double bt = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "btime %lf", &bt) == 1)
			break;
	if (f)
		fclose(f);
	return bt;
}

/* Read /proc/PID/stat: COMM, STATE, PPID and the start time (epoch seconds). */
static bool proc_stat(pid_t pid, char *comm, size_t clen, char *state, pid_t *ppid, double *start)
{
	char path[64], buf[1024], *open_, *close_;
	unsigned long long starttime = 0;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "re")))
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (!(open_ = strchr(buf, '(')) || !(close_ = strrchr(buf, ')')) || close_ < open_)
		return false;
	snprintf(comm, clen, "%.*s", (int)(close_ - open_ - 1), open_ + 1);
	/* after ")": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
	 * utime stime cutime cstime priority nice threads itrealvalue starttime */
	int pp = 0;
	if (sscanf(close_ + 1,
		   " %c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
		   state, &pp, &starttime) != 3)
		return false;
	*ppid = pp;
	*start = boot_time() + (double)starttime / (double)sysconf(_SC_CLK_TCK);
	return true;
}

static size_t find_slurmds(struct proc *out, size_t max)
{
	DIR *dir = opendir("/proc");
	struct dirent *de;
	size_t n = 0;

	while (dir && (de = readdir(dir)) && n < max) {
		char comm[64], pcomm[64], st, pst, path[64];
		pid_t pid = (pid_t)atoi(de->d_name), ppid, pp;
		double start, ps;
		if (pid <= 0 || !proc_stat(pid, comm, sizeof(comm), &st, &ppid, &start) ||
		    strcmp(comm, "slurmd") || st == 'Z')
			continue;
		/* slurmd's own children (prolog/epilog helpers) are not the daemon */
		if (proc_stat(ppid, pcomm, sizeof(pcomm), &pst, &pp, &ps) &&
		    !strcmp(pcomm, "slurmd"))
			continue;
		out[n].pid = pid;
		out[n].start = start;
		snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
		FILE *f = fopen(path, "re");
		size_t k = f ? fread(out[n].cmd, 1, sizeof(out[n].cmd) - 1, f) : 0;
		if (f)
			fclose(f);
		out[n].cmd[k] = '\0';
		for (size_t i = 0; i + 1 < k; i++)
			if (!out[n].cmd[i])
				out[n].cmd[i] = ' ';
		n++;
	}
	if (dir)
		closedir(dir);
	return n;
}

void check_slurmd(struct doctor *d)
{
	struct proc p[64];
	size_t n;
	double newest = 0, oldest_start = 0;
	const char *newest_file = NULL, *oldest_cmd = "";
	pid_t oldest_pid = 0;
	char a[32], b[32];
	struct stat st;

	if (!d->have_ps)
		return;
	n = find_slurmds(p, sizeof(p) / sizeof(p[0]));
	if (!n) {
		doc_say(d, ST_SKIP, "slurmd", NULL,
			"no slurmd runs on this host (a controller or login node?): run doctor on a "
			"compute node to check that slurmd was restarted after the plugin stack "
			"changed");
		return;
	}
	for (size_t i = 0; i < d->ps.files.n + d->ps.dirs.n + 1; i++) {
		const char *f = i < d->ps.files.n		 ? d->ps.files.v[i] :
				i < d->ps.files.n + d->ps.dirs.n ? d->ps.dirs.v[i - d->ps.files.n] :
								   d->so;
		if (f && f[0] && stat(f, &st) == 0 && (double)st.st_mtime > newest) {
			newest = (double)st.st_mtime;
			newest_file = f;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (!oldest_pid || p[i].start < oldest_start) {
			oldest_start = p[i].start;
			oldest_pid = p[i].pid;
			oldest_cmd = p[i].cmd;
		}
	/* /proc's start time has 1/100 s, btime 1 s of resolution */
	if (newest_file && newest > oldest_start + 1)
		doc_say(d, ST_FAIL, "slurmd",
			"restart slurmd on this node (systemctl restart slurmd): `scontrol reconfigure` "
			"does not reload job_epilog",
			"slurmd (pid %d, %s) started at %s, before %s changed (%s): the plugin's "
			"job_epilog, which runs the collector, is loaded only when slurmd starts",
			(int)oldest_pid, oldest_cmd, pmu_iso(oldest_start, a, sizeof(a), "?"),
			newest_file, pmu_iso(newest, b, sizeof(b), "?"));
	else
		doc_say(d, ST_OK, "slurmd", NULL,
			"%zu slurmd process%s, the oldest started %s, after the last change to the "
			"plugin stack (%s, %s)",
			n, n == 1 ? "" : "es", pmu_iso(oldest_start, a, sizeof(a), "?"),
			newest_file ? newest_file : "?", pmu_iso(newest, b, sizeof(b), "?"));
}

/* ---- 8. PrologEpilogTimeout above the collector's deadline ---- */

void check_timeout(struct doctor *d)
{
	const struct dc_kv *where = NULL;
	const char *v = doc_conf_get(d, "PrologEpilogTimeout", &where),
		   *lv = doc_live_get(d, "PrologEpilogTimeout");
	double deadline, hard;
	long long pet = DEFAULT_PET, live;
	char w[PATH_MAX + 16], a[32], b[32];
	const char *file = d->have_conf ? d->conf : "slurm.conf";

	if (!d->pm && !d->epilog_route)
		return;
	if (d->pm) {
		deadline = (double)d->args.timeout_ms / 1000;
		hard = deadline + 0.5; /* the plugin reaps the collector within half a second */
	} else {
		deadline = d->cfg_ok ? d->cfg.deadline : 30;
		hard = deadline + 1;
	}
	if (v && !doc_parse_long(v, &pet)) {
		doc_say(d, ST_FAIL, "epilog-timeout",
			doc_fixf("write a number of seconds at %s",
				 doc_where_text(where, w, sizeof(w))),
			"PrologEpilogTimeout=%s is not a number of seconds", v);
		return;
	}
	if (!v && !d->have_conf && !d->have_live) {
		doc_say(d, ST_UNKNOWN, "epilog-timeout", NULL,
			"neither slurm.conf nor slurmctld could be read: PrologEpilogTimeout unknown");
		return;
	}
	if (!v || pet == DEFAULT_PET || pet <= 0)
		doc_say(d, ST_FAIL, "epilog-timeout",
			doc_fixf("add PrologEpilogTimeout=%.0f to %s (the collector's %s deadline plus room "
				 "for the site's own Epilog) and run `scontrol reconfigure`",
				 deadline + 60, file, doc_secs(deadline, a, sizeof(a))),
			"PrologEpilogTimeout is not set (%lld): slurmd waits for ever on an epilog that "
			"hangs, and the node stays COMPLETING",
			pet);
	else if ((double)pet <= hard)
		doc_say(d, ST_FAIL, "epilog-timeout",
			doc_fixf("set PrologEpilogTimeout=%.0f at %s, or a shorter timeout= for the plugin; "
				 "then `scontrol reconfigure`",
				 deadline + 60, doc_where_text(where, w, sizeof(w))),
			"PrologEpilogTimeout=%lld is not above the collector's deadline (%s%s): Slurm "
			"kills the epilog first and drains the node",
			pet, doc_secs(deadline, a, sizeof(a)),
			d->pm ? ", the plugin's timeout=" : ", the collector's deadline:");
	else if ((double)pet < hard + EPILOG_MARGIN)
		doc_say(d, ST_WARN, "epilog-timeout",
			doc_fixf("set PrologEpilogTimeout=%.0f or more at %s", deadline + 60,
				 doc_where_text(where, w, sizeof(w))),
			"PrologEpilogTimeout=%lld leaves %s above the collector's %s deadline: the "
			"site's own Epilog and slurmd's overhead share that margin",
			pet, doc_secs((double)pet - deadline, a, sizeof(a)),
			doc_secs(deadline, b, sizeof(b)));
	else
		doc_say(d, ST_OK, "epilog-timeout", NULL,
			"PrologEpilogTimeout=%lld, above the collector's %s deadline (%s)", pet,
			doc_secs(deadline, a, sizeof(a)), doc_where_text(where, w, sizeof(w)));
	if (where && lv && doc_parse_long(lv, &live) && live != pet)
		doc_say(d, ST_WARN, "epilog-timeout",
			"run `scontrol reconfigure` (or restart slurmctld) so that the file's value "
			"applies",
			"slurmctld runs with PrologEpilogTimeout=%lld, the file says %lld", live,
			pet);
	if (d->pm && d->cfg_ok) {
		double grace = deadline / 5 < 2 ? deadline / 5 : 2, cut = deadline - grace - 0.5;
		if (d->cfg.deadline > cut)
			doc_say(d, ST_NOTE, "epilog-timeout", NULL,
				"the collector's configured deadline (%s) is cut to %s by the plugin's "
				"timeout=%s",
				doc_secs(d->cfg.deadline, a, sizeof(a)),
				doc_secs(cut > 0.5 ? cut : 0.5, b, sizeof(b)),
				doc_secs(deadline, w, sizeof(w)));
	}
}

/* ---- 16. accounting: the verdict reaches sacct ---- */

void check_accounting(struct doctor *d)
{
	static char out[64 << 10];
	const char *type = doc_conf_get(d, "AccountingStorageType", NULL);
	const char *cluster = doc_conf_get(d, "ClusterName", NULL);
	const char *cmd = d->cfg.sacctmgr ? d->cfg.sacctmgr : "sacctmgr";
	const char *argv[] = {cmd, "-n", "-P", "show", "cluster", "format=cluster", NULL};
	char line[256];
	bool found = false;
	int rc;

	if (!type || !strstr(type, "slurmdbd")) {
		if (!d->have_conf && !d->have_live)
			doc_say(d, ST_UNKNOWN, "accounting", NULL, "AccountingStorageType unknown");
		else
			doc_say(d, ST_FAIL, "accounting",
				"run slurmdbd and set AccountingStorageType=accounting_storage/slurmdbd",
				"AccountingStorageType is %s: the verdict line reaches `sacct -o Comment` "
				"only through slurmdbd",
				type ? type : "not set");
		return;
	}
	if (d->offline) {
		doc_say(d, ST_SKIP, "accounting", NULL, "--offline: sacctmgr not run");
		return;
	}
	rc = doc_run_cmd(d, argv, CMD_TIMEOUT, out, sizeof(out));
	if (rc == 127) {
		doc_say(d, ST_FAIL, "accounting",
			"install Slurm's client commands on every node (Debian: slurm-client)",
			"%s is not installed: the collector sets the job's comment with it", cmd);
		return;
	}
	if (rc != 0) {
		doc_say(d, ST_FAIL, "accounting",
			"check slurmdbd, AccountingStorageHost/Port and munge from this node",
			"`%s show cluster` failed (%s): verdict comments cannot be written", cmd,
			rc == -2 ? "timed out" : doc_first_line(out, line, sizeof(line)));
		return;
	}
	for (char *s = out, *e; cluster && s && *s; s = e ? e + 1 : NULL) {
		e = strchr(s, '\n');
		if (e)
			*e = '\0';
		if (!strcasecmp(s, cluster))
			found = true;
	}
	if (cluster && !found)
		doc_say(d, ST_FAIL, "accounting",
			doc_fixf("start slurmctld with this ClusterName (it registers itself) or `sacctmgr "
				 "add cluster %s`",
				 cluster),
			"cluster %s is not registered in slurmdbd: `sacctmgr modify job` finds no job "
			"to comment on",
			cluster);
	else
		doc_say(d, ST_OK, "accounting", NULL,
			"sacctmgr reaches slurmdbd and cluster %s is registered; the collector (root) "
			"sets %s with `sacctmgr -i modify job`",
			cluster ? cluster : "?",
			d->cfg.comment_field ? d->cfg.comment_field : "Comment");
}

/* ---- 17. AccountingStoreFlags: the trade-off, as a note ---- */

/* What a verdict line in Comment is worth: the job's owner can rewrite it. */
void check_comment_trust(struct doctor *d)
{
	char period[32];

	if (d->cfg.comment_recheck <= 0) {
		doc_say(d, ST_WARN, "comment-trust",
			"set comment_recheck: 7d in the collector's configuration (the finalize timer "
			"then puts changed lines back and records it)",
			"a job's owner can change its Comment (`sacctmgr modify job where jobid=N set "
			"Comment=...`), and comment_recheck is off: a forged verdict line stays; only "
			"the store's verdict.json is the verdict");
		return;
	}
	snprintf(period, sizeof(period), "%.0f day(s)", d->cfg.comment_recheck / 86400);
	doc_say(d, ST_NOTE, "comment-trust", NULL,
		"a job's owner can change its Comment (`sacctmgr modify job where jobid=N set "
		"Comment=...`): the verdict is the store's verdict.json, which its history, show, report, "
		"webhooks and the ledger read; the finalize timer rechecks the lines it set within %s "
		"and puts back any that changed (doctor --recent reports them)%s",
		period,
		d->cfg.admin_comment ?
			"; the line is also in AdminComment, which only operators "
			"can set" :
			"; admin_comment: true also puts it in AdminComment, which only "
			"operators can set");
}

void check_store_flags(struct doctor *d)
{
	const char *flags = doc_conf_get(d, "AccountingStoreFlags", NULL);
	const char *age = doc_conf_get(d, "MinJobAge", NULL);
	long long a = 300;

	if (!d->have_conf && !d->have_live)
		return;
	if (age)
		doc_parse_long(age, &a);
	if (flags && strstr(flags, "job_comment"))
		doc_say(d, ST_NOTE, "store-flags", NULL,
			"AccountingStoreFlags=%s: comments users give at submission reach sacct, but "
			"a slurmctld restart within MinJobAge (%llds) of a job's end re-sends the job "
			"and the user's comment overwrites the verdict line; `postmortem finalize JOB "
			"--force` writes it again",
			flags, a);
	else
		doc_say(d, ST_NOTE, "store-flags", NULL,
			"AccountingStoreFlags without job_comment: verdict lines survive slurmctld "
			"restarts; comments users give at submission do not reach sacct (the verdict "
			"line is the whole comment)");
}

/* ---- 18. clocks ---- */

void check_clock(struct doctor *d)
{
	static const char *const daemons[] = {"chronyd", "ntpd",       "systemd-timesyn", "ptp4l",
					      "phc2sys", "timemaster", "openntpd",	  NULL};
	static char out[16 << 10];
	struct timex tx = {0};
	char running[128] = "", offset[128] = "", ctl[128] = "";
	size_t l = 0;
	int state = adjtimex(&tx);
	bool synced = state >= 0 && state != TIME_ERROR && !(tx.status & STA_UNSYNC);
	double ctl_off = 0;
	bool have_ctl = false, chrony_bad = false;
	DIR *dir = opendir("/proc");
	struct dirent *de;

	while (dir && (de = readdir(dir))) {
		char comm[64], st;
		pid_t ppid;
		double start;
		pid_t pid = (pid_t)atoi(de->d_name);
		if (pid <= 0 || !proc_stat(pid, comm, sizeof(comm), &st, &ppid, &start))
			continue;
		for (int i = 0; daemons[i]; i++)
			if (!strcmp(comm, daemons[i]) && !strstr(running, comm) &&
			    l < sizeof(running))
				l += (size_t)snprintf(running + l, sizeof(running) - l, "%s%s",
						      l ? ", " : "", comm);
	}
	if (dir)
		closedir(dir);
	if (!d->offline && strstr(running, "chronyd")) {
		const char *argv[] = {"chronyc", "-n", "tracking", NULL};
		if (doc_run_cmd(d, argv, 5, out, sizeof(out)) == 0) {
			char *s = strstr(out, "System time");
			double v;
			char dir_[16];
			if (s && sscanf(s, "System time : %lf seconds %15s", &v, dir_) == 2) {
				snprintf(offset, sizeof(offset), ", offset %.6f s %s", v, dir_);
				chrony_bad = v > SKEW_TOLERANCE / 4;
			}
			if (strstr(out, "Not synchronised"))
				synced = false;
		}
	}
	if (!d->offline && d->have_live) {
		const char *argv[] = {"sdiag", NULL};
		struct timespec a, b;
		clock_gettime(CLOCK_REALTIME, &a);
		if (doc_run_cmd(d, argv, CMD_TIMEOUT, out, sizeof(out)) == 0) {
			clock_gettime(CLOCK_REALTIME, &b);
			char *s = strstr(out, "sdiag output at");
			char *p = s ? strchr(s, '(') : NULL;
			long long t;
			if (p && sscanf(p, "(%lld)", &t) == 1) {
				double mid = ((double)a.tv_sec + (double)b.tv_sec) / 2;
				ctl_off = (double)t - mid;
				have_ctl = true;
				snprintf(ctl, sizeof(ctl),
					 "; slurmctld's clock is %+.0f s from this one", ctl_off);
			}
		}
	}
	if (have_ctl && (ctl_off > SKEW_TOLERANCE || ctl_off < -SKEW_TOLERANCE))
		doc_say(d, ST_FAIL, "clock",
			"synchronise every node and the controller (chrony, ntpd or "
			"systemd-timesyncd against the same servers)",
			"this host's clock differs from slurmctld's by %.0f s (sdiag): the engine orders "
			"events across nodes only when they are further apart than its skew tolerance "
			"(%.0f s)",
			ctl_off, SKEW_TOLERANCE);
	else if (!running[0] && !synced)
		doc_say(d, ST_WARN, "clock",
			"run chrony (or ntpd, systemd-timesyncd) on every node",
			"no time service runs here and the kernel says the clock is not synchronised%s: "
			"cross-node ordering assumes clocks within %.0f s",
			ctl, SKEW_TOLERANCE);
	else if (!synced || chrony_bad)
		doc_say(d, ST_WARN, "clock",
			"check the time service (chronyc tracking; chronyc sources)",
			"%s runs but the clock is %s%s%s", running[0] ? running : "a time service",
			synced ? "off" : "not synchronised", offset, ctl);
	else
		doc_say(d, ST_OK, "clock", NULL, "synchronised (%s%s)%s",
			running[0] ? running : "by the host: the kernel says so", offset, ctl);
}
