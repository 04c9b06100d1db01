/*
 * doctor.c - `postmortem doctor [--recent] [--slurm-conf FILE] [--config FILE] [--store DIR]
 * [--rules DIR] [--log FILE] [--since DURATION] [--offline] [--strict] [--json]`
 *
 * Checks a deployment on a compute node or the controller and says what is wrong and how to
 * fix it (man postmortem(1)).  Each check prints one line: ok, note, skip (does not apply
 * here), warn, FAIL, or ? (could not check), with a fix under every warn and FAIL.
 * Exit 0: nothing wrong (warnings too, unless --strict); 1: a FAIL (or a warning with
 * --strict); 2: nothing failed but a check that applies could not be made (usage errors
 * too).  It changes nothing: the store write test removes what it wrote.
 *
 * The plugin is not loaded into Slurm: its file is read as ELF (class, machine, type,
 * exported entry points, the Slurm release it was built for) and then dlopen()ed with
 * RTLD_LAZY in a child process, where the spank_* functions that Slurm's processes provide
 * stay unbound.
 */
#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <glob.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/acl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/timex.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "pmconfig.h"
#include "doctor.h"
#include "finalize.h"
#include "pmargs.h"

#ifndef PM_SLURM_PLUGINDIR
#define PM_SLURM_PLUGINDIR "/usr/lib/x86_64-linux-gnu/slurm-wlm"
#endif

#define USAGE                                                                                  \
	"usage: %s doctor [--recent] [--since DURATION] [--slurm-conf FILE] [--config FILE]\n" \
	"       [--store DIR] [--rules DIR] [--log FILE] [--offline] [--strict] [--json]\n"

#define CMD_TIMEOUT 15.0   /* seconds for scontrol, sacctmgr, sdiag, chronyc */
#define EPILOG_MARGIN 10.0 /* seconds PrologEpilogTimeout should leave above the deadline */
#define SKEW_TOLERANCE 2.0 /* the bundled rule set's skew_tolerance_ms, in seconds */
#define PERMS_SAMPLE 200   /* job run folders whose permissions are checked */
#define DEFAULT_PET 65534  /* PrologEpilogTimeout when unset: wait for ever */

enum st { ST_OK, ST_NOTE, ST_SKIP, ST_WARN, ST_FAIL, ST_UNKNOWN, ST__N };

static const char *const st_text[ST__N] = {"ok", "note", "skip", "warn", "FAIL", "?"};
static const char *const st_json[ST__N] = {"ok", "note", "skip", "warn", "fail", "unknown"};

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

/* ---- output ---- */

static void say(struct doctor *d, enum st s, const char *id, const char *fix, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void say(struct doctor *d, enum st s, const char *id, const char *fix, const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	d->count[s]++;
	if (d->json) {
		json_array_append_new(d->checks,
				      json_pack("{s:s,s:s,s:s,s:s?}", "check", id, "status",
						st_json[s], "message", msg ? msg : "out of memory",
						"fix",
						(s == ST_WARN || s == ST_FAIL) ? fix : NULL));
	} else {
		printf("%-5s %-15s %s\n", st_text[s], id, msg ? msg : "out of memory");
		if (fix && (s == ST_WARN || s == ST_FAIL))
			printf("%-21s fix: %s\n", "", fix);
	}
	free(msg);
}

/* A fix text built with printf formatting; static storage, valid until the next call. */
static const char *fixf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *fixf(const char *fmt, ...)
{
	static char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return buf;
}

static const char *when(double t, char *buf, size_t len)
{
	time_t s = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&s, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "?");
	return buf;
}

static const char *secs(double s, char *buf, size_t len)
{
	static const struct {
		long long n;
		char unit;
	} units[] = {{604800, 'w'}, {86400, 'd'}, {3600, 'h'}, {60, 'm'}, {1, 's'}};
	long long v = (long long)s;

	for (size_t i = 0; s >= 1 && s == (double)v && i < sizeof(units) / sizeof(units[0]); i++)
		if (v % units[i].n == 0 && (v >= 3600 || units[i].n < 3600)) {
			snprintf(buf, len, "%lld%c", v / units[i].n, units[i].unit);
			return buf;
		}
	if (s >= 1 && s == (double)(long long)s)
		snprintf(buf, len, "%llds", (long long)s);
	else
		snprintf(buf, len, "%.3gs", s);
	return buf;
}

/* ---- running commands ---- */

/*
 * Run ARGV (PATH searched) with SLURM_CONF set to the slurm.conf in use, stdin /dev/null,
 * stdout and stderr into OUT (LEN bytes, NUL-terminated, the rest dropped), killed after
 * TIMEOUT seconds.  Returns the exit status, 127 when it could not be run, 128+N when a
 * signal N ended it, -2 when it timed out, -1 on a local error.
 */
static int run_cmd(const struct doctor *d, const char *const argv[], double timeout, char *out,
		   size_t len)
{
	int p[2], status = 0;
	size_t n = 0;
	pid_t pid;
	struct timespec t0, t;

	out[0] = '\0';
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		setpgid(0, 0);
		if (d->conf[0])
			setenv("SLURM_CONF", d->conf, 1);
		setenv("LC_ALL", "C", 1);
		if (null >= 0)
			dup2(null, 0);
		dup2(p[1], 1);
		dup2(p[1], 2);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(p[1]);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd pf = {.fd = p[0], .events = POLLIN};
		char buf[4096];
		double left;
		ssize_t r;

		clock_gettime(CLOCK_MONOTONIC, &t);
		left = timeout - ((double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9);
		if (left <= 0) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			close(p[0]);
			waitpid(pid, NULL, 0);
			return -2;
		}
		if (poll(&pf, 1, (int)(left * 1000) + 1) < 0 && errno != EINTR)
			break;
		if (!pf.revents)
			continue;
		r = read(p[0], buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		size_t k = (size_t)r < len - 1 - n ? (size_t)r : len - 1 - n;
		memcpy(out + n, buf, k);
		n += k;
		out[n] = '\0';
	}
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* The first line of TEXT (for a message), at most 200 bytes. */
static const char *first_line(const char *text, char *buf, size_t len)
{
	size_t n = strcspn(text, "\n");

	if (n >= len)
		n = len - 1;
	if (n > 200)
		n = 200;
	memcpy(buf, text, n);
	buf[n] = '\0';
	return n ? buf : "(no output)";
}

/* ---- values from slurm.conf or the running configuration ---- */

/* The file's value when it sets KEY, else the running one, else NULL; *WHERE says which. */
static const char *conf_get(const struct doctor *d, const char *key, const struct dc_kv **where)
{
	const struct dc_kv *kv = d->have_conf ? dc_kv_get(&d->sc.kv, key) : NULL;

	if (where)
		*where = kv;
	if (kv)
		return kv->val;
	if (d->have_live && (kv = dc_kv_get(&d->live, key)) && strcmp(kv->val, "(null)"))
		return kv->val;
	return NULL;
}

static const char *live_get(const struct doctor *d, const char *key)
{
	const struct dc_kv *kv = d->have_live ? dc_kv_get(&d->live, key) : NULL;

	return kv && strcmp(kv->val, "(null)") ? kv->val : NULL;
}

static const char *where_text(const struct dc_kv *kv, char *buf, size_t len)
{
	if (kv && kv->file)
		snprintf(buf, len, "%s:%d", kv->file, kv->line);
	else
		snprintf(buf, len, "the running configuration");
	return buf;
}

static bool parse_long(const char *s, long long *out)
{
	char *end;

	if (!s)
		return false;
	errno = 0;
	*out = strtoll(s, &end, 10);
	return !errno && end != s;
}

/* ---- 1. slurm.conf ---- */

static void check_slurm_conf(struct doctor *d)
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
			say(d, ST_UNKNOWN, "slurm.conf", NULL,
			    "cannot read %s: %s (the checks below use the running configuration "
			    "where slurmctld answers)",
			    c, err);
			return;
		}
		d->have_conf = true;
		say(d, ST_OK, "slurm.conf", NULL, "%s (%zu file%s with its Include lines)", c,
		    d->sc.files.n, d->sc.files.n == 1 ? "" : "s");
		return;
	}
	say(d, ST_UNKNOWN, "slurm.conf", NULL,
	    "no slurm.conf found ($SLURM_CONF, /etc/slurm/slurm.conf, /run/slurm/conf/slurm.conf): "
	    "name it with --slurm-conf FILE");
}

/* ---- 2. the running configuration ---- */

static void check_live(struct doctor *d)
{
	static char out[256 << 10];
	const char *sc[] = {"scontrol", "show", "config", NULL};
	const char *ver[] = {"scontrol", "--version", NULL};
	char line[256];
	int rc;

	if (d->offline) {
		say(d, ST_SKIP, "slurmctld", NULL,
		    "--offline: slurmctld, slurmdbd and chronyd are "
		    "not asked; files only");
		return;
	}
	rc = run_cmd(d, ver, CMD_TIMEOUT, out, sizeof(out));
	/* "slurm 23.02.7", Debian's "slurm-wlm 22.05.8" */
	if (rc != 0 || sscanf(out, "%*s %63s", d->slurm_version) != 1 ||
	    !isdigit((unsigned char)d->slurm_version[0]))
		d->slurm_version[0] = '\0';
	rc = run_cmd(d, sc, CMD_TIMEOUT, out, sizeof(out));
	if (rc == 127) {
		say(d, ST_WARN, "slurmctld",
		    "install Slurm's client commands (Debian: slurm-client)",
		    "scontrol is not installed here: the running configuration cannot be compared "
		    "with the file");
		return;
	}
	if (rc != 0 || dc_scontrol_parse(out, &d->live) < 0 ||
	    !dc_kv_get(&d->live, "ClusterName")) {
		say(d, ST_WARN, "slurmctld",
		    "start slurmctld or check SlurmctldHost and munge; then run doctor again",
		    "slurmctld did not answer `scontrol show config` (%s): the file's values are "
		    "checked, not the running ones",
		    rc == -2 ? "timed out" : first_line(out, line, sizeof(line)));
		dc_kvs_free(&d->live);
		return;
	}
	d->have_live = true;
	if (!d->slurm_version[0] && live_get(d, "SLURM_VERSION"))
		snprintf(d->slurm_version, sizeof(d->slurm_version), "%s",
			 live_get(d, "SLURM_VERSION"));
	say(d, ST_OK, "slurmctld", NULL, "slurmctld answers: cluster %s, Slurm %s",
	    live_get(d, "ClusterName"), d->slurm_version[0] ? d->slurm_version : "?");
}

/* ---- 3. plugstack.conf ---- */

static bool is_ours(const char *path)
{
	const char *b = strrchr(path, '/');

	b = b ? b + 1 : path;
	return !strcmp(b, "postmortem.so") || (!strncmp(b, "postmortem", 10) && strlen(b) > 3 &&
					       !strcmp(b + strlen(b) - 3, ".so"));
}

static bool unsafe_file(const char *path, char *why, size_t len)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return false;
	if (st.st_uid != 0) {
		snprintf(why, len, "%s belongs to uid %u, not root", path, (unsigned)st.st_uid);
		return true;
	}
	if (st.st_mode & 022) {
		snprintf(why, len, "%s is writable by %s (mode %04o)", path,
			 st.st_mode & 002 ? "every user" : "its group",
			 (unsigned)(st.st_mode & 07777));
		return true;
	}
	return false;
}

static void plugstack_path(const struct doctor *d, char *buf, size_t len)
{
	const char *p = conf_get(d, "PlugStackConfig", NULL);
	char *slash;

	if (p) {
		snprintf(buf, len, "%s", p);
		return;
	}
	snprintf(buf, len, "%s", d->conf[0] ? d->conf : "/etc/slurm/slurm.conf");
	slash = strrchr(buf, '/');
	snprintf(slash ? slash + 1 : buf, len - (size_t)(slash ? slash + 1 - buf : 0),
		 "plugstack.conf");
}

static void check_plugstack(struct doctor *d)
{
	char path[PATH_MAX], err[1024], why[PATH_MAX + 100], dir[PATH_MAX];
	const char *epilog = conf_get(d, "Epilog", NULL);
	size_t n = 0;

	d->epilog_route = epilog && strstr(epilog, "postmortem-epilog");
	plugstack_path(d, path, sizeof(path));
	snprintf(dir, sizeof(dir), "%s", path);
	if (strrchr(dir, '/'))
		*strrchr(dir, '/') = '\0';
	if (dc_plugstack_load(path, &d->ps, err, sizeof(err)) < 0) {
		if (errno == ENOENT && !d->epilog_route)
			say(d, ST_FAIL, "plugstack",
			    fixf("create %s with the line `include %s/plugstack.conf.d/*.conf` and "
				 "put `optional %s/postmortem.so store=/shared/postmortem` in "
				 "%s/plugstack.conf.d/postmortem.conf; restart slurmd",
				 path, dir, PM_SLURM_PLUGINDIR, dir),
			    "%s does not exist: postmortem.so is not loaded, nothing is recorded or "
			    "collected",
			    path);
		else if (errno == ENOENT)
			say(d, ST_WARN, "plugstack",
			    fixf("add `optional %s/postmortem.so` to %s for rank maps and task exits",
				 PM_SLURM_PLUGINDIR, path),
			    "%s does not exist; the collector runs from Epilog=%s, without the "
			    "plugin's rank map and task exit records",
			    path, epilog);
		else
			say(d, ST_UNKNOWN, "plugstack", NULL, "cannot read the plugin stack: %s",
			    err);
		return;
	}
	d->have_ps = true;
	for (size_t i = 0; i < d->ps.bad.n; i++)
		say(d, ST_FAIL, "plugstack", "correct or remove the line", "%s", d->ps.bad.v[i]);
	for (size_t i = 0; i < d->ps.files.n; i++)
		if (unsafe_file(d->ps.files.v[i], why, sizeof(why)))
			say(d, ST_FAIL, "plugstack",
			    fixf("chown root:root %s; chmod 644 %s", d->ps.files.v[i],
				 d->ps.files.v[i]),
			    "%s: whoever can write it loads code into slurmstepd as root", why);
	for (size_t i = 0; i < d->ps.n; i++) {
		if (!is_ours(d->ps.v[i].path))
			continue;
		if (!n++)
			d->pm = &d->ps.v[i];
	}
	if (n > 1) {
		char list[2048] = "";
		size_t l = 0;
		for (size_t i = 0; i < d->ps.n; i++)
			if (is_ours(d->ps.v[i].path) && l < sizeof(list))
				l += (size_t)snprintf(list + l, sizeof(list) - l, "%s%s:%d",
						      l ? ", " : "", d->ps.v[i].file,
						      d->ps.v[i].line);
		say(d, ST_FAIL, "plugstack", "keep one line and remove the others; restart slurmd",
		    "postmortem.so is listed %zu times (%s): Slurm loads it more than once and "
		    "every job's evidence is recorded twice",
		    n, list);
		return;
	}
	if (!d->pm) {
		char files[2048] = "";
		size_t l = 0;
		for (size_t i = 0; i < d->ps.files.n && l < sizeof(files); i++)
			l += (size_t)snprintf(files + l, sizeof(files) - l, "%s%s", i ? ", " : "",
					      d->ps.files.v[i]);
		if (d->epilog_route)
			say(d, ST_WARN, "plugstack",
			    fixf("add `optional %s/postmortem.so` to the plugin stack for rank maps "
				 "and task exits",
				 PM_SLURM_PLUGINDIR),
			    "postmortem.so is not in the plugin stack (%s); the collector runs from "
			    "Epilog=%s without the plugin's rank map and task exits",
			    files, epilog);
		else
			say(d, ST_FAIL, "plugstack",
			    fixf("put `optional %s/postmortem.so store=/shared/postmortem` in "
				 "%s/plugstack.conf.d/postmortem.conf (included by %s) and restart "
				 "slurmd",
				 PM_SLURM_PLUGINDIR, dir, path),
			    "postmortem.so is not in the plugin stack (read: %s): nothing is "
			    "recorded or collected",
			    files);
		return;
	}
	if (!strcmp(d->pm->mode, "required"))
		say(d, ST_WARN, "plugstack",
		    fixf("write `optional` instead of `required` at %s:%d", d->pm->file,
			 d->pm->line),
		    "%s:%d loads it as required: if the file is missing or unloadable (an upgrade, "
		    "a bad mount) every job fails; the plugin itself never fails a job",
		    d->pm->file, d->pm->line);
	else
		say(d, ST_OK, "plugstack", NULL, "postmortem.so is enabled at %s:%d (%s %s)",
		    d->pm->file, d->pm->line, d->pm->mode, d->pm->path);
}

/* ---- 4. the plugin's arguments ---- */

static void check_args(struct doctor *d)
{
	char err[512], t[32], r[32];
	int rc;

	if (!d->pm) {
		pm_args_parse(&d->args, 0, NULL, err, sizeof(err));
		return;
	}
	rc = pm_args_parse(&d->args, (int)d->pm->args.n, d->pm->args.v, err, sizeof(err));
	if (rc < 0) {
		say(d, ST_FAIL, "plugin-args",
		    fixf("correct the argument at %s:%d (man postmortem.so) and restart slurmd",
			 d->pm->file, d->pm->line),
		    "%s:%d: %s: the plugin loads but stays inactive (nothing recorded, no "
		    "collector)",
		    d->pm->file, d->pm->line, err);
		pm_args_parse(&d->args, 0, NULL, err, sizeof(err));
		return;
	}
	d->args_ok = true;
	say(d, ST_OK, "plugin-args", NULL,
	    "store=%s spool=%s timeout=%s retain=%s collector=%s%s%s",
	    d->args.store[0] ? d->args.store : "(from the collector's configuration)",
	    d->args.spool, secs((double)d->args.timeout_ms / 1000, t, sizeof(t)),
	    secs((double)d->args.retain_ms / 1000, r, sizeof(r)), d->args.collector,
	    d->args.config[0] ? " config=" : "", d->args.config);
}

/* ---- 5. the plugin file ---- */

static bool resolve_plugin(const struct doctor *d, const char *path, char *out, size_t len)
{
	const char *dirs = conf_get(d, "PluginDir", NULL);
	char *copy, *save = NULL;

	if (path[0] == '/') {
		snprintf(out, len, "%s", path);
		return access(out, F_OK) == 0;
	}
	copy = strdup(dirs ? dirs : PM_SLURM_PLUGINDIR);
	for (char *t = copy ? strtok_r(copy, ":", &save) : NULL; t;
	     t = strtok_r(NULL, ":", &save)) {
		snprintf(out, len, "%s/%s", t, path);
		if (access(out, F_OK) == 0) {
			free(copy);
			return true;
		}
	}
	free(copy);
	snprintf(out, len, "%s/%s", dirs ? dirs : PM_SLURM_PLUGINDIR, path);
	return false;
}

static const char *machine_name(int m)
{
	switch (m) {
	case EM_X86_64:
		return "x86-64";
	case EM_386:
		return "i386";
	case EM_AARCH64:
		return "aarch64";
	case EM_PPC64:
		return "ppc64";
	case EM_ARM:
		return "arm";
	case EM_RISCV:
		return "riscv";
	case EM_S390:
		return "s390";
	default:
		return "another machine";
	}
}

static void check_plugin_file(struct doctor *d)
{
	static const char *const need[] = {"plugin_name",
					   "plugin_type",
					   "plugin_version",
					   "slurm_spank_init",
					   "slurm_spank_task_post_fork",
					   "slurm_spank_task_exit",
					   "slurm_spank_job_epilog",
					   NULL};
	char err[PATH_MAX + 100], why[PATH_MAX + 100], missing[512] = "", libs[512] = "";
	struct dc_elf e;
	struct stat st;
	size_t l = 0;

	if (!d->pm)
		return;
	if (!resolve_plugin(d, d->pm->path, d->so, sizeof(d->so))) {
		say(d, ST_FAIL, "plugin-file",
		    fixf("install the package that provides it, or correct the path at %s:%d",
			 d->pm->file, d->pm->line),
		    "%s does not exist: %s", d->so,
		    strcmp(d->pm->mode, "required") ? "Slurm logs an error and runs jobs without "
						      "postmortem" :
						      "with `required`, every job fails to start");
		return;
	}
	if (stat(d->so, &st) < 0 || !S_ISREG(st.st_mode)) {
		say(d, ST_FAIL, "plugin-file", "point the plugstack line at the installed .so",
		    "%s is not a regular file", d->so);
		return;
	}
	if (unsafe_file(d->so, why, sizeof(why))) {
		say(d, ST_FAIL, "plugin-file",
		    fixf("chown root:root %s; chmod 755 %s", d->so, d->so),
		    "%s: it runs as root inside slurmstepd and slurmd", why);
		return;
	}
	if (dc_elf_read(d->so, &e, err, sizeof(err)) < 0) {
		say(d, ST_FAIL, "plugin-file", "reinstall the package (or rebuild and install it)",
		    "%s", err);
		return;
	}
	if (e.type != ET_DYN || !e.same_abi) {
		say(d, ST_FAIL, "plugin-file", "install the package built for this machine",
		    "%s is %s for %s (%d-bit%s), this host runs %d-bit %s", d->so,
		    e.type == ET_DYN ? "a shared object" : "not a shared object",
		    machine_name(e.machine), e.elfclass == ELFCLASS64 ? 64 : 32,
		    e.data == ELFDATA2MSB ? ", big-endian" : "", (int)sizeof(void *) * 8,
		    machine_name(e.host_machine));
		dc_elf_free(&e);
		return;
	}
	if (!e.has_sections) {
		say(d, ST_WARN, "plugin-file", "install the packaged file, which keeps its symbols",
		    "%s has no section table: its entry points cannot be checked", d->so);
		d->so_ok = true;
		dc_elf_free(&e);
		return;
	}
	for (int i = 0; need[i]; i++)
		if (!dc_strv_has(&e.defined, need[i]) && l < sizeof(missing))
			l += (size_t)snprintf(missing + l, sizeof(missing) - l, "%s%s",
					      l ? " " : "", need[i]);
	if (missing[0] || strcmp(e.plugin_type, "spank")) {
		say(d, ST_FAIL, "plugin-file",
		    "install postmortem's own postmortem.so (the package, or `make install`)",
		    "%s is not a postmortem SPANK plugin: %s%s%s", d->so,
		    missing[0] ? "it does not export " : "", missing,
		    missing[0] ? "" : "its plugin_type is not \"spank\"");
		dc_elf_free(&e);
		return;
	}
	l = 0;
	for (size_t i = 0; i < e.needed.n && l < sizeof(libs); i++)
		if (strncmp(e.needed.v[i], "libc.so", 7))
			l += (size_t)snprintf(libs + l, sizeof(libs) - l, "%s%s", l ? " " : "",
					      e.needed.v[i]);
	d->so_ok = true;
	int maj = (int)((e.plugin_version >> 16) & 0xff),
	    min = (int)((e.plugin_version >> 8) & 0xff);
	int smaj = -1, smin = -1;
	if (d->slurm_version[0])
		sscanf(d->slurm_version, "%d.%d", &smaj, &smin);
	if (e.plugin_version >= 0 && smaj >= 0 && (maj != smaj || min != smin))
		say(d, ST_WARN, "plugin-file",
		    fixf("rebuild postmortem against Slurm %d.%02d's spank.h (libslurm-dev / "
			 "slurm-devel) and reinstall it",
			 smaj, smin),
		    "%s was built against Slurm %d.%02d, this is Slurm %s: Slurm does not "
		    "version-check SPANK plugins, but the SPANK interface may differ",
		    d->so, maj, min, d->slurm_version);
	else
		say(d, ST_OK, "plugin-file", NULL,
		    "%s: a %s shared object, plugin %s (spank), exports %zu entry points, built "
		    "for Slurm %d.%02d%s%s%s",
		    d->so, machine_name(e.machine), e.plugin_name[0] ? e.plugin_name : "?",
		    e.defined.n, maj, min, libs[0] ? "; also needs " : "", libs,
		    e.bind_now ? "; linked with -z now" : "");
	dc_elf_free(&e);
}

/* ---- 6. does it load? ---- */

static void check_plugin_load(struct doctor *d)
{
	char msg[1024] = "";
	int p[2], status = 0;
	ssize_t n;
	pid_t pid;

	if (!d->pm || !d->so_ok)
		return;
	if (pipe2(p, O_CLOEXEC) < 0)
		return;
	fflush(stdout);
	if ((pid = fork()) < 0) {
		close(p[0]);
		close(p[1]);
		return;
	}
	if (pid == 0) {
		void *h;
		close(p[0]);
		alarm(10);
		h = dlopen(d->so, RTLD_LAZY | RTLD_LOCAL);
		if (!h) {
			const char *e = dlerror();
			if (write(p[1], e, strlen(e)) < 0)
				_exit(2);
			_exit(1);
		}
		if (!dlsym(h, "slurm_spank_job_epilog")) {
			const char *e = "slurm_spank_job_epilog not found by dlsym";
			if (write(p[1], e, strlen(e)) < 0)
				_exit(2);
			_exit(1);
		}
		_exit(0);
	}
	close(p[1]);
	n = read(p[0], msg, sizeof(msg) - 1);
	msg[n > 0 ? n : 0] = '\0';
	close(p[0]);
	waitpid(pid, &status, 0);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		say(d, ST_OK, "plugin-load", NULL,
		    "dlopen(RTLD_LAZY) loads it; spank_* are bound when Slurm's processes load it");
	else if (strstr(msg, "undefined symbol: spank_") || strstr(msg, "undefined symbol: slurm_"))
		say(d, ST_OK, "plugin-load", NULL,
		    "its libraries load; it binds Slurm's spank_* functions at load time (%s), "
		    "which only Slurm's processes provide",
		    msg);
	else
		say(d, ST_FAIL, "plugin-load",
		    "install the libraries it names (ldd on the file), or reinstall the package",
		    "%s does not load: %s", d->so,
		    msg[0]		? msg :
		    WIFSIGNALED(status) ? "it crashed the loading process" :
					  "?");
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

static void check_slurmd(struct doctor *d)
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
		say(d, ST_SKIP, "slurmd", NULL,
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
		say(d, ST_FAIL, "slurmd",
		    "restart slurmd on this node (systemctl restart slurmd): `scontrol reconfigure` "
		    "does not reload job_epilog",
		    "slurmd (pid %d, %s) started at %s, before %s changed (%s): the plugin's "
		    "job_epilog, which runs the collector, is loaded only when slurmd starts",
		    (int)oldest_pid, oldest_cmd, when(oldest_start, a, sizeof(a)), newest_file,
		    when(newest, b, sizeof(b)));
	else
		say(d, ST_OK, "slurmd", NULL,
		    "%zu slurmd process%s, the oldest started %s, after the last change to the "
		    "plugin stack (%s, %s)",
		    n, n == 1 ? "" : "es", when(oldest_start, a, sizeof(a)),
		    newest_file ? newest_file : "?", when(newest, b, sizeof(b)));
}

/* ---- 8. PrologEpilogTimeout above the collector's deadline ---- */

static void check_timeout(struct doctor *d)
{
	const struct dc_kv *where = NULL;
	const char *v = conf_get(d, "PrologEpilogTimeout", &where),
		   *lv = live_get(d, "PrologEpilogTimeout");
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
	if (v && !parse_long(v, &pet)) {
		say(d, ST_FAIL, "epilog-timeout",
		    fixf("write a number of seconds at %s", where_text(where, w, sizeof(w))),
		    "PrologEpilogTimeout=%s is not a number of seconds", v);
		return;
	}
	if (!v && !d->have_conf && !d->have_live) {
		say(d, ST_UNKNOWN, "epilog-timeout", NULL,
		    "neither slurm.conf nor slurmctld could be read: PrologEpilogTimeout unknown");
		return;
	}
	if (!v || pet == DEFAULT_PET || pet <= 0)
		say(d, ST_FAIL, "epilog-timeout",
		    fixf("add PrologEpilogTimeout=%.0f to %s (the collector's %s deadline plus room "
			 "for the site's own Epilog) and run `scontrol reconfigure`",
			 deadline + 60, file, secs(deadline, a, sizeof(a))),
		    "PrologEpilogTimeout is not set (%lld): slurmd waits for ever on an epilog that "
		    "hangs, and the node stays COMPLETING",
		    pet);
	else if ((double)pet <= hard)
		say(d, ST_FAIL, "epilog-timeout",
		    fixf("set PrologEpilogTimeout=%.0f at %s, or a shorter timeout= for the plugin; "
			 "then `scontrol reconfigure`",
			 deadline + 60, where_text(where, w, sizeof(w))),
		    "PrologEpilogTimeout=%lld is not above the collector's deadline (%s%s): Slurm "
		    "kills the epilog first and drains the node",
		    pet, secs(deadline, a, sizeof(a)),
		    d->pm ? ", the plugin's timeout=" : ", the collector's deadline:");
	else if ((double)pet < hard + EPILOG_MARGIN)
		say(d, ST_WARN, "epilog-timeout",
		    fixf("set PrologEpilogTimeout=%.0f or more at %s", deadline + 60,
			 where_text(where, w, sizeof(w))),
		    "PrologEpilogTimeout=%lld leaves %s above the collector's %s deadline: the "
		    "site's own Epilog and slurmd's overhead share that margin",
		    pet, secs((double)pet - deadline, a, sizeof(a)), secs(deadline, b, sizeof(b)));
	else
		say(d, ST_OK, "epilog-timeout", NULL,
		    "PrologEpilogTimeout=%lld, above the collector's %s deadline (%s)", pet,
		    secs(deadline, a, sizeof(a)), where_text(where, w, sizeof(w)));
	if (where && lv && parse_long(lv, &live) && live != pet)
		say(d, ST_WARN, "epilog-timeout",
		    "run `scontrol reconfigure` (or restart slurmctld) so that the file's value "
		    "applies",
		    "slurmctld runs with PrologEpilogTimeout=%lld, the file says %lld", live, pet);
	if (d->pm && d->cfg_ok) {
		double grace = deadline / 5 < 2 ? deadline / 5 : 2, cut = deadline - grace - 0.5;
		if (d->cfg.deadline > cut)
			say(d, ST_NOTE, "epilog-timeout", NULL,
			    "the collector's configured deadline (%s) is cut to %s by the plugin's "
			    "timeout=%s",
			    secs(d->cfg.deadline, a, sizeof(a)),
			    secs(cut > 0.5 ? cut : 0.5, b, sizeof(b)),
			    secs(deadline, w, sizeof(w)));
	}
}

/* ---- 9. the collector ---- */

static void check_collector(struct doctor *d)
{
	const char *c = d->args.collector;
	char why[PATH_MAX + 100];
	struct stat st;
	int e = 0;

	if (!d->pm)
		return;
	if (stat(c, &st) < 0)
		e = errno;
	if (e || !S_ISREG(st.st_mode) || !(st.st_mode & 0100)) {
		say(d, ST_FAIL, "collector",
		    fixf("install postmortem-epilog at %s, or name it with collector= at %s:%d", c,
			 d->pm->file, d->pm->line),
		    "%s is %s: the job epilog does nothing and no evidence is collected", c,
		    e == ENOENT ? "missing" :
		    e		? strerror(e) :
				  "not an executable file");
		return;
	}
	if (unsafe_file(c, why, sizeof(why))) {
		say(d, ST_FAIL, "collector", fixf("chown root:root %s; chmod 755 %s", c, c),
		    "%s: it runs as root after every job", why);
		return;
	}
	say(d, ST_OK, "collector", NULL, "%s", c);
}

/* ---- 10. the collector's configuration ---- */

static void check_config(struct doctor *d)
{
	const char *file = d->opt_config     ? d->opt_config :
			   d->args.config[0] ? d->args.config :
					       getenv("POSTMORTEM_CONFIG");
	bool named = file && *file;
	char err[1024], why[PATH_MAX + 100];

	if (!named)
		file = PM_CONFIG_DEFAULT;
	snprintf(d->cfg_path, sizeof(d->cfg_path), "%s", file);
	if (access(file, F_OK) < 0) {
		pm_config_load(NULL, &d->cfg, err, sizeof(err));
		d->cfg_ok = true;
		if (named)
			say(d, ST_FAIL, "config",
			    fixf("create %s (man postmortem-epilog) or remove config= from the "
				 "plugstack line",
				 file),
			    "%s does not exist: the collector uses its defaults (store %s)", file,
			    d->cfg.store);
		else
			say(d, ST_NOTE, "config", NULL,
			    "no %s: the collector's defaults apply (store %s, deadline 30s, "
			    "operators_group %s)",
			    file, d->cfg.store, d->cfg.operators_group);
		return;
	}
	if (pm_config_load(file, &d->cfg, err, sizeof(err)) < 0) {
		pm_config_load(NULL, &d->cfg, why, sizeof(why));
		d->cfg_ok = true;
		say(d, ST_FAIL, "config", "correct it (man postmortem-epilog lists every key)",
		    "%s: the collector ignores the file and uses its defaults", err);
		return;
	}
	d->cfg_ok = true;
	if (unsafe_file(file, why, sizeof(why)))
		say(d, ST_FAIL, "config", fixf("chown root %s; chmod go-w %s", file, file),
		    "%s: it names commands the collector runs as root", why);
	else
		say(d, ST_OK, "config", NULL, "%s", file);
}

/* ---- 11. the rules ---- */

static void check_rules(struct doctor *d)
{
	const char *dir = d->opt_rules		    ? d->opt_rules :
			  d->cfg_ok && d->cfg.rules ? d->cfg.rules :
						      cli_rules_dir(NULL);
	char err[1024];
	struct pm_ruleset *rs = pm_ruleset_load(dir, err, sizeof(err));

	if (!rs) {
		say(d, ST_FAIL, "rules",
		    "correct the rule file named (`postmortem rules check DIR` runs its fixtures "
		    "too), or point rules: in the collector's configuration at a good set",
		    "%s: %s: the collector stores evidence but no verdict can be made", dir, err);
		return;
	}
	say(d, ST_OK, "rules", NULL, "%s: rule set %s version %s, %zu rules, %s", dir,
	    pm_ruleset_id(rs), pm_ruleset_version(rs), pm_ruleset_count(rs), pm_ruleset_digest(rs));
	pm_ruleset_destroy(rs);
}

/* ---- 12. the node's spool ---- */

static void check_spool(struct doctor *d)
{
	const char *s = d->args.spool;
	struct stat st;
	glob_t g;
	char pat[PATH_MAX];
	size_t pending = 0;

	if (!d->pm)
		return;
	if (lstat(s, &st) < 0) {
		say(d, errno == ENOENT ? ST_OK : ST_FAIL, "spool", "check the path and its parents",
		    "%s: %s", s,
		    errno == ENOENT ? "not there yet: the plugin creates it (0700) on the first "
				      "job" :
				      strerror(errno));
		return;
	}
	if (S_ISLNK(st.st_mode) || !S_ISDIR(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022)) {
		say(d, ST_FAIL, "spool",
		    fixf("rm -rf %s (the plugin recreates it) or chown root %s; "
			 "chmod 700 %s",
			 s, s, s),
		    "%s is %s: the plugin refuses it and records nothing", s,
		    S_ISLNK(st.st_mode)	 ? "a symbolic link" :
		    !S_ISDIR(st.st_mode) ? "not a folder" :
		    st.st_uid != 0	 ? "not owned by root" :
					   "writable by others");
		return;
	}
	snprintf(pat, sizeof(pat), "%s/*/pending/*.tar.zst", s);
	if (glob(pat, 0, NULL, &g) == 0) {
		pending = g.gl_pathc;
		globfree(&g);
	}
	if (pending)
		say(d, ST_WARN, "spool",
		    "make the store reachable from this node; the next job's collector delivers "
		    "them (or run postmortem-epilog by hand)",
		    "%s holds %zu bundle%s that the store did not take", s, pending,
		    pending == 1 ? "" : "s");
	else
		say(d, ST_OK, "spool", NULL, "%s: root, mode %04o, nothing waiting for the store",
		    s, (unsigned)(st.st_mode & 07777));
}

/* ---- 13. the evidence store ---- */

static const char *fs_name(long type, bool *shared)
{
	static const struct {
		long magic;
		const char *name;
		bool shared;
	} fs[] = {
		{0x6969, "nfs", true},		{0x0BD00BD0, "lustre", true},
		{0x47504653, "gpfs", true},	{0x19830326, "beegfs", true},
		{0x00C36400, "ceph", true},	{0x65735546, "fuse", true},
		{0xFF534D42, "cifs", true},	{0xFE534D42, "smb2", true},
		{0x013111A8, "ibrix", true},	{0x0BAD1DEA, "wekafs", true},
		{0xEF53, "ext4", false},	{0x58465342, "xfs", false},
		{0x9123683E, "btrfs", false},	{0x01021994, "tmpfs", false},
		{0x794C7630, "overlay", false}, {0x2FC12FC1, "zfs", false},
	};

	for (size_t i = 0; i < sizeof(fs) / sizeof(fs[0]); i++)
		if (fs[i].magic == type) {
			*shared = fs[i].shared;
			return fs[i].name;
		}
	*shared = false;
	return "an unknown filesystem";
}

static void check_store(struct doctor *d)
{
	struct passwd *pw = d->cfg.service_user ? getpwnam(d->cfg.service_user) : NULL;
	uid_t owner = pw ? pw->pw_uid : 0;
	struct statfs sf;
	struct statvfs sv;
	struct stat st;
	bool shared = false;
	const char *fs = "?";

	d->store = d->opt_store ? d->opt_store : d->args.store[0] ? d->args.store : d->cfg.store;
	if (!d->store || !*d->store) {
		say(d, ST_FAIL, "store",
		    "set store= on the plugstack line or store: in the collector's configuration",
		    "no evidence store is configured: bundles stay in the nodes' spools");
		return;
	}
	if (stat(d->store, &st) < 0 || !S_ISDIR(st.st_mode)) {
		say(d, ST_FAIL, "store",
		    fixf("mount the shared filesystem, or create %s (root, mode 0755)", d->store),
		    "%s: %s: bundles wait in the spool of every node", d->store,
		    S_ISDIR(st.st_mode) ? strerror(errno) : "not a folder (not mounted?)");
		return;
	}
	if (d->cfg.store_marker && *d->cfg.store_marker) {
		char m[4096];
		struct stat ms;

		snprintf(m, sizeof(m), "%s/%s", d->store, d->cfg.store_marker);
		if (stat(m, &ms) < 0 || !S_ISREG(ms.st_mode)) {
			say(d, ST_FAIL, "store",
			    fixf("mount the shared filesystem; once, where it is mounted: touch %s",
				 m),
			    "%s has no %s (store_marker): the collector stores nothing there and "
			    "bundles wait in the spool",
			    d->store, d->cfg.store_marker);
			return;
		}
	}
	if (statfs(d->store, &sf) == 0)
		fs = fs_name((long)sf.f_type, &shared);
	if (st.st_uid != 0 && st.st_uid != owner)
		say(d, ST_FAIL, "store", fixf("chown %s %s", pw ? pw->pw_name : "root", d->store),
		    "%s belongs to uid %u: that user can alter or remove every job's evidence",
		    d->store, (unsigned)st.st_uid);
	else if (st.st_mode & 002)
		say(d, ST_FAIL, "store", fixf("chmod o-w %s", d->store),
		    "%s is writable by every user (mode %04o): evidence can be planted or removed",
		    d->store, (unsigned)(st.st_mode & 07777));
	else if (st.st_mode & 020)
		say(d, ST_WARN, "store", fixf("chmod g-w %s", d->store),
		    "%s is writable by its group (mode %04o): its members can remove evidence",
		    d->store, (unsigned)(st.st_mode & 07777));
	else if (!(st.st_mode & 001))
		say(d, ST_WARN, "store", fixf("chmod o+x %s", d->store),
		    "%s is not searchable by other users (mode %04o): job owners cannot reach "
		    "their evidence (the folders below are 0750 with an ACL for the owner)",
		    d->store, (unsigned)(st.st_mode & 07777));
	else
		say(d, ST_OK, "store", NULL, "%s: %s, owner uid %u, mode %04o", d->store, fs,
		    (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
	d->store_ok = true;
	if (!shared)
		say(d, ST_NOTE, "store", NULL,
		    "%s is on %s, not a shared filesystem: fine for a single machine; on a real "
		    "cluster every node must write to the same store so that the last one in can "
		    "merge the job",
		    d->store, fs);
	if (statvfs(d->store, &sv) == 0 && sv.f_blocks) {
		double avail = (double)sv.f_bavail * (double)sv.f_frsize;
		double pct = 100.0 * (double)sv.f_bavail / (double)sv.f_blocks;
		if (avail < 1024.0 * 1024 * 1024 || pct < 2)
			say(d, ST_WARN, "store",
			    "free space (`postmortem expire` removes evidence past its date)",
			    "%s has %.0f MiB free (%.1f%%): bundles that do not fit wait in the "
			    "spools",
			    d->store, avail / 1048576, pct);
	}
}

/* Write, read back and remove a file in the store, and try an ACL, as the writer would. */
static void store_write_test(const struct doctor *d, int fd)
{
	char path[PATH_MAX], dir[PATH_MAX], buf[4096], back[4096], res[256];
	struct passwd *pw = NULL;
	int f = -1;

	if (d->cfg.service_user && strcmp(d->cfg.service_user, "root")) {
		if (!(pw = getpwnam(d->cfg.service_user))) {
			dprintf(fd, "user service_user %s does not exist\n", d->cfg.service_user);
			_exit(1);
		}
		if (initgroups(pw->pw_name, pw->pw_gid) < 0 || setgid(pw->pw_gid) < 0 ||
		    setuid(pw->pw_uid) < 0) {
			dprintf(fd, "user cannot become %s: %s\n", pw->pw_name, strerror(errno));
			_exit(1);
		}
	}
	snprintf(path, sizeof(path), "%s/.postmortem-doctor.%ld", d->store, (long)getpid());
	memset(buf, 'p', sizeof(buf));
	if ((f = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0 ||
	    write(f, buf, sizeof(buf)) != (ssize_t)sizeof(buf) || fsync(f) < 0 || close(f) < 0) {
		dprintf(fd, "write %d %s\n", errno, strerror(errno));
		if (f >= 0)
			unlink(path);
		_exit(1);
	}
	if ((f = open(path, O_RDONLY | O_CLOEXEC)) < 0 ||
	    read(f, back, sizeof(back)) != (ssize_t)sizeof(back) ||
	    memcmp(buf, back, sizeof(buf))) {
		dprintf(fd, "read %d %s\n", errno, errno ? strerror(errno) : "read back differs");
		unlink(path);
		_exit(1);
	}
	close(f);
	if (unlink(path) < 0) {
		dprintf(fd, "unlink %d %s\n", errno, strerror(errno));
		_exit(1);
	}
	snprintf(dir, sizeof(dir), "%s/.postmortem-doctor.XXXXXX", d->store);
	snprintf(res, sizeof(res), "ok acl\n");
	if (mkdtemp(dir)) {
		struct passwd *nobody = getpwnam("nobody");
		char text[128];
		acl_t acl;
		snprintf(text, sizeof(text), "u::rwx,g::r-x,o::---,u:%u:r-x,m::r-x",
			 nobody ? (unsigned)nobody->pw_uid : 65534u);
		if ((acl = acl_from_text(text))) {
			if (acl_set_file(dir, ACL_TYPE_ACCESS, acl) < 0)
				snprintf(res, sizeof(res), "ok noacl %s\n", strerror(errno));
			acl_free(acl);
		}
		rmdir(dir);
	}
	dprintf(fd, "%s", res);
	_exit(0);
}

static void check_store_write(struct doctor *d)
{
	char out[512] = "", what[16] = "", why[256] = "";
	int p[2], status = 0, e = 0;
	ssize_t n;
	pid_t pid;

	if (!d->store_ok)
		return;
	if (geteuid() != 0) {
		say(d, ST_UNKNOWN, "store-write", NULL,
		    "not root: run doctor as root to test that the collector can write %s",
		    d->store);
		return;
	}
	if (pipe2(p, O_CLOEXEC) < 0)
		return;
	fflush(stdout);
	if ((pid = fork()) < 0) {
		close(p[0]);
		close(p[1]);
		return;
	}
	if (pid == 0) {
		close(p[0]);
		alarm(30);
		store_write_test(d, p[1]);
	}
	close(p[1]);
	n = read(p[0], out, sizeof(out) - 1);
	out[n > 0 ? n : 0] = '\0';
	close(p[0]);
	waitpid(pid, &status, 0);
	out[strcspn(out, "\n")] = '\0';
	if (!strncmp(out, "ok ", 3)) {
		const char *as = d->cfg.service_user ? d->cfg.service_user : "root";
		say(d, ST_OK, "store-write", NULL,
		    "%s can create, write, sync, read back and remove a file in %s", as, d->store);
		if (!strncmp(out + 3, "noacl", 5))
			say(d, ST_NOTE, "store-write", NULL,
			    "%s has no POSIX ACLs (%s): job owners cannot read their own evidence; "
			    "they ask the operators (group %s), who can `postmortem fetch` it",
			    d->store, out + 9,
			    d->cfg.operators_group ? d->cfg.operators_group : "-");
		return;
	}
	if (sscanf(out, "%15s %d %255[^\n]", what, &e, why) >= 2 && (e == EACCES || e == EPERM))
		say(d, ST_FAIL, "store-write",
		    "on NFS with root_squash, set service_user: in the collector's configuration to "
		    "an account that owns the store; otherwise fix the store's ownership",
		    "%s cannot %s in %s: %s", d->cfg.service_user ? d->cfg.service_user : "root",
		    what, d->store, why);
	else
		say(d, ST_FAIL, "store-write", "check the filesystem (full? read-only? quota?)",
		    "the collector could not write %s: %s", d->store,
		    out[0]		? out :
		    WIFSIGNALED(status) ? "the test timed out" :
					  "?");
}

/* ---- 14. existing evidence: permissions ---- */

struct perms {
	gid_t ops;
	bool have_ops;
	size_t seen, world, wrong_group, no_acl;
	char example[PATH_MAX];
};

static int perms_one(const char *dir, void *arg)
{
	struct perms *p = arg;
	struct stat st;

	if (p->seen >= PERMS_SAMPLE)
		return 1;
	if (stat(dir, &st) < 0)
		return 0;
	p->seen++;
	if (st.st_mode & 007) {
		if (!p->world++)
			snprintf(p->example, sizeof(p->example), "%s", dir);
	}
	if (p->have_ops && st.st_gid != p->ops)
		p->wrong_group++;
	acl_t acl = acl_get_file(dir, ACL_TYPE_ACCESS);
	bool user = false;
	if (acl) {
		acl_entry_t e;
		acl_tag_t tag;
		for (int r = acl_get_entry(acl, ACL_FIRST_ENTRY, &e); r == 1;
		     r = acl_get_entry(acl, ACL_NEXT_ENTRY, &e))
			if (acl_get_tag_type(e, &tag) == 0 && tag == ACL_USER)
				user = true;
		acl_free(acl);
	}
	if (!user)
		p->no_acl++;
	return 0;
}

static void check_evidence(struct doctor *d)
{
	struct perms p = {0};
	struct group *g = d->cfg.operators_group ? getgrnam(d->cfg.operators_group) : NULL;
	char err[512];

	if (!d->store_ok)
		return;
	if (g) {
		p.ops = g->gr_gid;
		p.have_ops = true;
	}
	if (pm_store_walk(d->store, perms_one, &p, err, sizeof(err)) < 0) {
		say(d, ST_UNKNOWN, "evidence", NULL, "cannot list %s: %s", d->store, err);
		return;
	}
	if (!p.seen) {
		say(d, ST_NOTE, "evidence", NULL, "no job evidence in %s yet", d->store);
		return;
	}
	if (p.world)
		say(d, ST_FAIL, "evidence",
		    fixf("chmod -R o-rwx %s/*/* (the collector creates them 0750)", d->store),
		    "%zu of %zu job folders are open to every user (e.g. %s): evidence holds job "
		    "output and logs",
		    p.world, p.seen, p.example);
	else if (p.wrong_group)
		say(d, ST_WARN, "evidence",
		    fixf("chgrp -R %s the job folders under %s", d->cfg.operators_group, d->store),
		    "%zu of %zu job folders do not belong to the operators' group %s: operators "
		    "cannot read them",
		    p.wrong_group, p.seen, d->cfg.operators_group);
	else
		say(d, ST_OK, "evidence", NULL,
		    "%zu job folder%s checked: closed to other users%s%s", p.seen,
		    p.seen == 1 ? "" : "s", p.have_ops ? ", group " : "",
		    p.have_ops ? d->cfg.operators_group : "");
	if (p.no_acl && !p.world)
		say(d, ST_NOTE, "evidence", NULL,
		    "%zu of %zu job folders have no ACL entry for their owner: those owners read "
		    "through the operators",
		    p.no_acl, p.seen);
}

/* ---- 15. the operators' group ---- */

static void check_group(struct doctor *d)
{
	const char *g = d->cfg.operators_group;

	if (!g || !*g) {
		say(d, ST_NOTE, "operators", NULL,
		    "no operators_group: only root and each job's owner can read its evidence");
		return;
	}
	if (!getgrnam(g))
		say(d, ST_FAIL, "operators",
		    fixf("create the group on every node (groupadd %s, or in the directory "
			 "service), or set operators_group: to an existing one",
			 g),
		    "the operators' group %s does not exist here: the store's folders get the "
		    "collector's own group and no operator can read them",
		    g);
	else
		say(d, ST_OK, "operators", NULL, "group %s exists", g);
}

/* The decision ledger: the operators' group can append to it (or create it), and its head
 * file, the tamper evidence kept outside the ledger, is root's alone. */
static void check_ledger(struct doctor *d)
{
	const char *g = d->cfg.operators_group;
	struct group *gr = g && *g ? getgrnam(g) : NULL;
	char l[PATH_MAX], h[PATH_MAX], dir[PATH_MAX], *slash;
	struct stat st;

	if (!d->store_ok || !gr) {
		say(d, ST_SKIP, "ledger", NULL,
		    !d->store_ok ? "no reachable store: the decision ledger not checked" :
				   "no operators' group: the decision ledger not checked");
		return;
	}
	snprintf(l, sizeof(l), "%s", d->cfg.ledger ? d->cfg.ledger : "");
	if (!d->cfg.ledger)
		snprintf(l, sizeof(l), "%s/ledger.jsonl", d->store);
	snprintf(h, sizeof(h), "%s", d->cfg.ledger_head ? d->cfg.ledger_head : "");
	if (!d->cfg.ledger_head)
		snprintf(h, sizeof(h), "%s/ledger.head", d->store);
	if (lstat(h, &st) == 0 && (!S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022)))
		say(d, ST_FAIL, "ledger-head",
		    fixf("as root: chown root:root %s; chmod 0644 %s; then `postmortem ledger "
			 "verify --log` against syslog's heads",
			 h, h),
		    "%s is not root's alone (uid %u, mode %04o): whoever can write it can hide a "
		    "rewritten ledger",
		    h, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
	if (lstat(l, &st) == 0) {
		if (!S_ISREG(st.st_mode))
			say(d, ST_FAIL, "ledger",
			    fixf("remove it; as root: postmortem ledger init"),
			    "%s is not a regular file", l);
		else if (st.st_gid != gr->gr_gid || (st.st_mode & 0060) != 0060)
			say(d, ST_WARN, "ledger", "as root, once: postmortem ledger init",
			    "%s (group %u, mode %04o): the operators' group %s cannot append: an "
			    "operator's `ledger propose` is refused",
			    l, (unsigned)st.st_gid, (unsigned)(st.st_mode & 07777), g);
		else
			say(d, ST_OK, "ledger", NULL,
			    "%s: group %s, mode %04o: operators append, the head file is root's", l,
			    g, (unsigned)(st.st_mode & 07777));
		return;
	}
	snprintf(dir, sizeof(dir), "%s", l);
	if ((slash = strrchr(dir, '/')))
		*(slash == dir ? slash + 1 : slash) = '\0';
	if (stat(dir, &st) == 0 && st.st_gid == gr->gr_gid && (st.st_mode & 0030) == 0030)
		say(d, ST_OK, "ledger", NULL,
		    "%s does not exist yet: the operators' group %s creates it (%s is "
		    "group-writable)",
		    l, g, dir);
	else
		say(d, ST_WARN, "ledger", "as root, once: postmortem ledger init",
		    "%s does not exist and the operators' group %s cannot create it in %s: an "
		    "operator's `ledger propose` is refused",
		    l, g, dir);
}

/* The folder node_exporter's textfile collector reads, from Debian's defaults file (ARGS);
 * "" when it does not say. */
static void exporter_dir(char *out, size_t len)
{
	char line[4096], *p, *e;
	FILE *f = fopen("/etc/default/prometheus-node-exporter", "re");

	out[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || !(p = strstr(line, "--collector.textfile.directory")))
			continue;
		p += strlen("--collector.textfile.directory");
		if (*p != '=' && *p != ' ')
			continue;
		p += strspn(p, "= ");
		e = p + strcspn(p, " \"'\n");
		snprintf(out, len, "%.*s", (int)(e - p), p);
	}
	if (f)
		fclose(f);
}

/* The Prometheus metrics the finalize timer writes (metrics_textfile:): a *.prom file in a
 * folder the node exporter reads, written within the last three timer periods. */
static void check_metrics(struct doctor *d)
{
	const char *f = d->cfg.metrics_textfile;
	const char *fix = "on the one host that runs it: systemctl enable --now "
			  "postmortem-finalize.timer; journalctl -u postmortem-finalize says why a "
			  "run failed";
	char dir[PATH_MAX], ne[PATH_MAX], out[512], *slash;
	bool known = false, here = false, down = false;
	struct stat st;
	double age;
	FILE *mf;

	if (!d->cfg_ok)
		return;
	if (!f || !*f) {
		say(d, ST_NOTE, "metrics", NULL,
		    "no metrics_textfile: the finalize timer writes no Prometheus metrics (set it "
		    "on the host that runs the timer, in node_exporter's textfile folder, e.g. "
		    "/var/lib/prometheus/node-exporter/postmortem.prom; `postmortem metrics` "
		    "prints them)");
		return;
	}
	if (strlen(f) < 6 || strcmp(f + strlen(f) - 5, ".prom"))
		say(d, ST_WARN, "metrics", "name it *.prom, e.g. postmortem.prom",
		    "metrics_textfile %s: node_exporter's textfile collector reads *.prom files "
		    "only",
		    f);
	snprintf(dir, sizeof(dir), "%s", f);
	if ((slash = strrchr(dir, '/')))
		*(slash == dir ? slash + 1 : slash) = '\0';
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		say(d, ST_WARN, "metrics",
		    "install prometheus-node-exporter (its textfile folder is "
		    "/var/lib/prometheus/node-exporter), or point metrics_textfile: at its "
		    "--collector.textfile.directory",
		    "metrics_textfile %s: no folder %s here: the finalize timer cannot write the "
		    "metrics on this host",
		    f, dir);
		return;
	}
	exporter_dir(ne, sizeof(ne));
	if (ne[0] && strcmp(ne, dir))
		say(d, ST_WARN, "metrics",
		    fixf("move metrics_textfile: into %s, or the exporter's folder to %s", ne, dir),
		    "node_exporter reads %s (/etc/default/prometheus-node-exporter), not %s: the "
		    "metrics are never scraped",
		    ne, dir);
	if (!d->offline && access("/run/systemd/system", F_OK) == 0) {
		const char *argv[] = {"systemctl", "is-enabled", "postmortem-finalize.timer", NULL};
		known = true;
		here = run_cmd(d, argv, CMD_TIMEOUT, out, sizeof(out)) == 0;
	}
	if (stat(f, &st) < 0) {
		if (known && !here)
			say(d, ST_NOTE, "metrics-timer", NULL,
			    "%s is not written on this host: postmortem-finalize.timer is not enabled "
			    "here (it runs on one host that mounts the store: run doctor there)",
			    f);
		else
			say(d, ST_WARN, "metrics-timer", fix,
			    "%s has never been written: the finalize timer does not run%s or cannot "
			    "write it",
			    f, known ? "" : " here");
		return;
	}
	age = (double)time(NULL) - (double)st.st_mtime;
	if (age > 3 * 300 + 60)
		say(d, ST_WARN, "metrics-timer", fix,
		    "%s was last written %.0f min ago%s (the finalize timer writes it every 5 "
		    "minutes): Prometheus keeps scraping stale values",
		    f, age / 60,
		    known && !here ? ", and postmortem-finalize.timer is not enabled here" : "");
	else
		say(d, ST_OK, "metrics-timer", NULL,
		    "%s written %.0f s ago by the finalize timer%s", f, age < 0 ? 0 : age,
		    known ? (here ? " (postmortem-finalize.timer enabled)" : "") : "");
	if ((mf = fopen(f, "re"))) {
		while (fgets(out, sizeof(out), mf))
			down = down || !strcmp(out, "postmortem_store_up 0\n");
		fclose(mf);
	}
	if (down)
		say(d, ST_WARN, "metrics",
		    "look at the finalize timer's journal (journalctl -u postmortem-finalize)",
		    "%s says the finalize timer could not read the store (postmortem_store_up 0)",
		    f);
}

/* ---- 16. accounting: the verdict reaches sacct ---- */

static void check_accounting(struct doctor *d)
{
	static char out[64 << 10];
	const char *type = conf_get(d, "AccountingStorageType", NULL);
	const char *cluster = conf_get(d, "ClusterName", NULL);
	const char *cmd = d->cfg.sacctmgr ? d->cfg.sacctmgr : "sacctmgr";
	const char *argv[] = {cmd, "-n", "-P", "show", "cluster", "format=cluster", NULL};
	char line[256];
	bool found = false;
	int rc;

	if (!type || !strstr(type, "slurmdbd")) {
		if (!d->have_conf && !d->have_live)
			say(d, ST_UNKNOWN, "accounting", NULL, "AccountingStorageType unknown");
		else
			say(d, ST_FAIL, "accounting",
			    "run slurmdbd and set AccountingStorageType=accounting_storage/slurmdbd",
			    "AccountingStorageType is %s: the verdict line reaches `sacct -o Comment` "
			    "only through slurmdbd",
			    type ? type : "not set");
		return;
	}
	if (d->offline) {
		say(d, ST_SKIP, "accounting", NULL, "--offline: sacctmgr not run");
		return;
	}
	rc = run_cmd(d, argv, CMD_TIMEOUT, out, sizeof(out));
	if (rc == 127) {
		say(d, ST_FAIL, "accounting",
		    "install Slurm's client commands on every node (Debian: slurm-client)",
		    "%s is not installed: the collector sets the job's comment with it", cmd);
		return;
	}
	if (rc != 0) {
		say(d, ST_FAIL, "accounting",
		    "check slurmdbd, AccountingStorageHost/Port and munge from this node",
		    "`%s show cluster` failed (%s): verdict comments cannot be written", cmd,
		    rc == -2 ? "timed out" : first_line(out, line, sizeof(line)));
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
		say(d, ST_FAIL, "accounting",
		    fixf("start slurmctld with this ClusterName (it registers itself) or `sacctmgr "
			 "add cluster %s`",
			 cluster),
		    "cluster %s is not registered in slurmdbd: `sacctmgr modify job` finds no job "
		    "to comment on",
		    cluster);
	else
		say(d, ST_OK, "accounting", NULL,
		    "sacctmgr reaches slurmdbd and cluster %s is registered; the collector (root) "
		    "sets %s with `sacctmgr -i modify job`",
		    cluster ? cluster : "?",
		    d->cfg.comment_field ? d->cfg.comment_field : "Comment");
}

/* ---- 17. AccountingStoreFlags: the trade-off, as a note ---- */

/* What a verdict line in Comment is worth: the job's owner can rewrite it. */
static void check_comment_trust(struct doctor *d)
{
	char period[32];

	if (d->cfg.comment_recheck <= 0) {
		say(d, ST_WARN, "comment-trust",
		    "set comment_recheck: 7d in the collector's configuration (the finalize timer "
		    "then puts changed lines back and records it)",
		    "a job's owner can change its Comment (`sacctmgr modify job where jobid=N set "
		    "Comment=...`), and comment_recheck is off: a forged verdict line stays; only "
		    "the store's verdict.json is the verdict");
		return;
	}
	snprintf(period, sizeof(period), "%.0f day(s)", d->cfg.comment_recheck / 86400);
	say(d, ST_NOTE, "comment-trust", NULL,
	    "a job's owner can change its Comment (`sacctmgr modify job where jobid=N set "
	    "Comment=...`): the verdict is the store's verdict.json, which its history, show, report, "
	    "webhooks and the ledger read; the finalize timer rechecks the lines it set within %s "
	    "and puts back any that changed (doctor --recent reports them)%s",
	    period,
	    d->cfg.admin_comment ? "; the line is also in AdminComment, which only operators "
				   "can set" :
				   "; admin_comment: true also puts it in AdminComment, which only "
				   "operators can set");
}

static void check_store_flags(struct doctor *d)
{
	const char *flags = conf_get(d, "AccountingStoreFlags", NULL);
	const char *age = conf_get(d, "MinJobAge", NULL);
	long long a = 300;

	if (!d->have_conf && !d->have_live)
		return;
	if (age)
		parse_long(age, &a);
	if (flags && strstr(flags, "job_comment"))
		say(d, ST_NOTE, "store-flags", NULL,
		    "AccountingStoreFlags=%s: comments users give at submission reach sacct, but "
		    "a slurmctld restart within MinJobAge (%llds) of a job's end re-sends the job "
		    "and the user's comment overwrites the verdict line; `postmortem finalize JOB "
		    "--force` writes it again",
		    flags, a);
	else
		say(d, ST_NOTE, "store-flags", NULL,
		    "AccountingStoreFlags without job_comment: verdict lines survive slurmctld "
		    "restarts; comments users give at submission do not reach sacct (the verdict "
		    "line is the whole comment)");
}

/* ---- 18. clocks ---- */

static void check_clock(struct doctor *d)
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
		if (run_cmd(d, argv, 5, out, sizeof(out)) == 0) {
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
		if (run_cmd(d, argv, CMD_TIMEOUT, out, sizeof(out)) == 0) {
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
		say(d, ST_FAIL, "clock",
		    "synchronise every node and the controller (chrony, ntpd or "
		    "systemd-timesyncd against the same servers)",
		    "this host's clock differs from slurmctld's by %.0f s (sdiag): the engine orders "
		    "events across nodes only when they are further apart than its skew tolerance "
		    "(%.0f s)",
		    ctl_off, SKEW_TOLERANCE);
	else if (!running[0] && !synced)
		say(d, ST_WARN, "clock", "run chrony (or ntpd, systemd-timesyncd) on every node",
		    "no time service runs here and the kernel says the clock is not synchronised%s: "
		    "cross-node ordering assumes clocks within %.0f s",
		    ctl, SKEW_TOLERANCE);
	else if (!synced || chrony_bad)
		say(d, ST_WARN, "clock",
		    "check the time service (chronyc tracking; chronyc sources)",
		    "%s runs but the clock is %s%s%s", running[0] ? running : "a time service",
		    synced ? "off" : "not synchronised", offset, ctl);
	else
		say(d, ST_OK, "clock", NULL, "synchronised (%s%s)%s",
		    running[0] ? running : "by the host: the kernel says so", offset, ctl);
}

/* ---- --recent: the collector's own health ---- */

struct recent {
	double since, now;
	size_t runs, provisional, stale_provisional, deadline, missing_nodes, missing_runs;
	size_t late, provisional_final, pending_comment, not_final, bad_bundles, unmerged;
	size_t webhook_pending, webhook_failed, merge_cut, tampered, tampered_runs;
	char deadline_nodes[512], missing_example[256], tampered_example[400];
	char tampered_when[40];
};

static double iso_time(const char *s)
{
	struct tm tm = {0};

	if (!s || !strptime(s, "%Y-%m-%dT%H:%M:%S", &tm))
		return 0;
	return (double)timegm(&tm);
}

static void add_name(char *list, size_t len, const char *name)
{
	size_t l = strlen(list);

	if (strstr(list, name) || l + strlen(name) + 8 >= len)
		return;
	snprintf(list + l, len - l, "%s%s", l ? ", " : "", name);
}

/* The comment changes the finalize timer found and put back (tampered.jsonl), since
 * r->since; the latest is the example.  What the job's owner wrote is shown cut and with control characters as '?'. */
static void recent_tampered(struct recent *r, const char *dir)
{
	char p[PATH_MAX], line[8192];
	size_t n = 0;
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, PM_TAMPERED_FILE);
	if (!(f = fopen(p, "re")))
		return;
	while (fgets(line, sizeof(line), f)) {
		json_t *o = json_loads(line, 0, NULL);
		const char *t = json_string_value(json_object_get(o, "time"));
		if (o && iso_time(t) >= r->since) {
			n++;
			/* the latest one is the example */
			if (strcmp(t, r->tampered_when) >= 0) {
				snprintf(r->tampered_when, sizeof(r->tampered_when), "%s", t);
				const char *found = json_string_value(json_object_get(o, "found"));
				char shown[101];
				size_t k = 0;
				for (; found && found[k] && k < sizeof(shown) - 1; k++)
					shown[k] = (unsigned char)found[k] < ' ' ||
								   (unsigned char)found[k] > '~' ?
							   '?' :
							   found[k];
				shown[k] = '\0';
				snprintf(r->tampered_example, sizeof(r->tampered_example),
					 "%s at %s: %s held \"%s\"%s", dir, t,
					 json_string_value(json_object_get(o, "field")) ?
						 json_string_value(json_object_get(o, "field")) :
						 "?",
					 shown,
					 json_is_true(json_object_get(o, "restored")) ?
						 ", put back" :
						 ", not put back yet");
			}
		}
		json_decref(o);
	}
	fclose(f);
	r->tampered += n;
	r->tampered_runs += n > 0;
}

static int recent_one(const char *dir, void *arg)
{
	struct recent *r = arg;
	json_t *m = pm_manifest_load(dir, NULL, 0), *x;
	char p[PATH_MAX];
	struct stat st;
	size_t i;

	if (!m) {
		/* bundles arrived, never merged: the first node in failed to finalize */
		if (stat(dir, &st) == 0 && (double)st.st_mtime >= r->since)
			r->unmerged++;
		return 0;
	}
	if (iso_time(json_string_value(json_object_get(m, "updated"))) < r->since) {
		json_decref(m);
		return 0;
	}
	r->runs++;
	if (json_is_true(json_object_get(m, "provisional"))) {
		r->provisional++;
		if (r->now - iso_time(json_string_value(json_object_get(m, "updated"))) > 3600)
			r->stale_provisional++;
	}
	if (json_array_size(json_object_get(m, "deadline_hits"))) {
		r->deadline++;
		json_array_foreach(json_object_get(m, "deadline_hits"), i, x) if (json_is_string(x))
			add_name(r->deadline_nodes, sizeof(r->deadline_nodes),
				 json_string_value(x));
	}
	x = json_object_get(json_object_get(m, "nodes"), "missing");
	if (json_array_size(x)) {
		r->missing_runs++;
		r->missing_nodes += json_array_size(x);
		if (!r->missing_example[0]) {
			const char *n =
				json_string_value(json_object_get(json_array_get(x, 0), "node"));
			const char *w =
				json_string_value(json_object_get(json_array_get(x, 0), "reason"));
			snprintf(r->missing_example, sizeof(r->missing_example), "%s: %s",
				 n ? n : "?", w ? w : "?");
		}
	}
	json_array_foreach(json_object_get(m, "bundles"), i,
			   x) if (json_is_string(json_object_get(x, "status")) &&
				  strcmp(json_string_value(json_object_get(x, "status")), "ok"))
		r->bad_bundles++;
	json_array_foreach(json_object_get(m, "history"), i, x)
	{
		const char *why = json_string_value(json_object_get(x, "why"));
		if (why && (strstr(why, "new bundle") || strstr(why, "changed")))
			r->late++;
		else if (why && strstr(why, "final merge of a provisional"))
			r->provisional_final++;
	}
	if (!json_is_true(json_object_get(json_object_get(m, "scheduler"), "final")))
		r->not_final++;
	if (json_is_object(json_object_get(m, "merge")))
		r->merge_cut++;
	recent_tampered(r, dir);
	snprintf(p, sizeof(p), "%s/comment.pending", dir);
	if (access(p, F_OK) == 0)
		r->pending_comment++;
	snprintf(p, sizeof(p), "%s/webhook.pending", dir);
	if (access(p, F_OK) == 0)
		r->webhook_pending++;
	snprintf(p, sizeof(p), "%s/webhook.failed", dir);
	if (access(p, F_OK) == 0)
		r->webhook_failed++;
	json_decref(m);
	return 0;
}

struct logstats {
	size_t runs, deadline, store_failed, store_pending, config_bad, timed_out;
	double total, max;
	char timed_out_sources[256];
};

static void log_line(struct logstats *s, const char *line)
{
	const char *p = strstr(line, "postmortem-epilog"), *t, *q;
	double took;

	if (!p || !(t = strstr(p, " s, timed out: ")))
		return;
	q = t;
	while (q > p && (q[-1] == '.' || (q[-1] >= '0' && q[-1] <= '9')))
		q--;
	if (sscanf(q, "%lf", &took) != 1)
		return;
	s->runs++;
	s->total += took;
	if (took > s->max)
		s->max = took;
	t += strlen(" s, timed out: ");
	if (strncmp(t, "none,", 5)) {
		char srcs[128];
		s->timed_out++;
		if (sscanf(t, "%127[^,]", srcs) == 1) {
			char *save = NULL;
			for (char *x = strtok_r(srcs, " ", &save); x;
			     x = strtok_r(NULL, " ", &save))
				add_name(s->timed_out_sources, sizeof(s->timed_out_sources), x);
		}
	}
	if (strstr(t, "deadline hit: yes"))
		s->deadline++;
	if ((q = strstr(t, "store: "))) {
		if (!strncmp(q + 7, "failed", 6))
			s->store_failed++;
		else if (!strncmp(q + 7, "pending", 7))
			s->store_pending++;
	}
	if (strstr(t, "configuration: "))
		s->config_bad++;
}

/* Lines of the collector from --log, the journal, or the usual syslog files. */
static bool read_logs(struct doctor *d, struct logstats *s, char *from, size_t fromlen)
{
	static const char *const files[] = {"/var/log/syslog", "/var/log/daemon.log",
					    "/var/log/messages", NULL};
	char line[4096];
	FILE *f;

	if (!d->opt_log && !d->offline && access("/run/systemd/journal", F_OK) == 0) {
		static char out[4 << 20];
		char since[64];
		const char *argv[] = {"journalctl", "-q", "--no-pager",	       "-o",
				      "short-iso",  "-t", "postmortem-epilog", since,
				      NULL};
		snprintf(since, sizeof(since), "--since=@%lld", (long long)d->since);
		if (run_cmd(d, argv, CMD_TIMEOUT, out, sizeof(out)) == 0) {
			for (char *l = out, *e; l && *l; l = e ? e + 1 : NULL) {
				e = strchr(l, '\n');
				if (e)
					*e = '\0';
				log_line(s, l);
			}
			snprintf(from, fromlen, "the journal");
			if (s->runs)
				return true;
		}
	}
	for (int i = 0; d->opt_log ? i == 0 : files[i] != NULL; i++) {
		const char *path = d->opt_log ? d->opt_log : files[i];
		if (!(f = fopen(path, "re")))
			continue;
		while (fgets(line, sizeof(line), f)) {
			struct tm tm = {0};
			/* ISO stamps are filtered by --since; classic syslog stamps have no year */
			if (strptime(line, "%Y-%m-%dT%H:%M:%S", &tm) &&
			    (double)timegm(&tm) < d->since)
				continue;
			log_line(s, line);
		}
		fclose(f);
		snprintf(from, fromlen, "%s", path);
		return true;
	}
	return false;
}

static void check_recent(struct doctor *d)
{
	struct recent r = {.since = d->since, .now = (double)time(NULL)};
	struct logstats s = {0};
	char err[512], a[32], from[PATH_MAX] = "";
	bool logs;

	if (!d->store_ok) {
		say(d, ST_UNKNOWN, "recent", NULL,
		    "no reachable store: recent jobs not summarised");
	} else if (pm_store_walk(d->store, recent_one, &r, err, sizeof(err)) < 0) {
		say(d, ST_UNKNOWN, "recent", NULL, "cannot read %s: %s", d->store, err);
	} else {
		say(d, ST_OK, "recent", NULL,
		    "%zu job run%s in %s updated since %s: %zu final, %zu provisional", r.runs,
		    r.runs == 1 ? "" : "s", d->store, when(r.since, a, sizeof(a)),
		    r.runs - r.provisional, r.provisional);
		if (r.deadline)
			say(d, ST_WARN, "recent-deadline",
			    "raise the plugin's timeout= (and PrologEpilogTimeout with it), or lower "
			    "the slow sources' caps and timeouts in the collector's configuration",
			    "%zu job run%s hit the collector's deadline (nodes: %s): their evidence "
			    "was cut short",
			    r.deadline, r.deadline == 1 ? "" : "s", r.deadline_nodes);
		if (r.missing_runs)
			say(d, ST_WARN, "recent-missing",
			    "look at those nodes' slurmd logs and spools (pending bundles), and "
			    "run doctor there",
			    "%zu node%s missing from %zu job run%s (e.g. %s)", r.missing_nodes,
			    r.missing_nodes == 1 ? "" : "s", r.missing_runs,
			    r.missing_runs == 1 ? "" : "s", r.missing_example);
		if (r.stale_provisional || r.unmerged)
			say(d, ST_WARN, "recent-merge",
			    "run `postmortem finalize` every few minutes as root (the systemd timer "
			    "or cron)",
			    "%zu job run%s still provisional after an hour and %zu never merged: "
			    "the finalize timer does not seem to run",
			    r.stale_provisional, r.stale_provisional == 1 ? "" : "s", r.unmerged);
		if (r.merge_cut)
			say(d, ST_WARN, "recent-merge-deadline",
			    "`postmortem show JOB` names the bundles not read; raise merge_deadline "
			    "(the timer) or the collector's deadline, and look for oversized bundles",
			    "%zu job run%s whose merge ran out of time (or failed): the verdict "
			    "comes from Slurm's record alone",
			    r.merge_cut, r.merge_cut == 1 ? "" : "s");
		if (r.tampered)
			say(d, ST_WARN, "recent-tampered",
			    "the stored verdict stands (verdict.json); ask the job's owner, and "
			    "consider admin_comment: true (AdminComment, only operators can set it)",
			    "%zu verdict comment%s in %zu job run%s changed by someone else after "
			    "postmortem set %s (e.g. %s)",
			    r.tampered, r.tampered == 1 ? "" : "s", r.tampered_runs,
			    r.tampered_runs == 1 ? "" : "s", r.tampered == 1 ? "it" : "them",
			    r.tampered_example);
		if (r.pending_comment)
			say(d, ST_WARN, "recent-comment",
			    "check slurmdbd from the nodes (`sacctmgr show cluster`); `postmortem "
			    "finalize --pending` retries them",
			    "%zu verdict comment%s could not be written to the accounting record",
			    r.pending_comment, r.pending_comment == 1 ? "" : "s");
		if (r.webhook_pending || r.webhook_failed)
			say(d, ST_WARN, "recent-webhook",
			    "check the webhook URLs from the nodes and the finalizer's host; "
			    "`postmortem finalize --pending` retries for a day",
			    "%zu job run%s with verdicts a webhook has not taken yet, %zu it gave up on "
			    "(webhook.pending, webhook.failed)",
			    r.webhook_pending, r.webhook_pending == 1 ? "" : "s", r.webhook_failed);
		if (r.bad_bundles)
			say(d, ST_WARN, "recent-bundles",
			    "`postmortem show JOB` names the rejected bundles and why",
			    "%zu node bundle%s were rejected or incomplete", r.bad_bundles,
			    r.bad_bundles == 1 ? "" : "s");
		if (r.late || r.provisional_final)
			say(d, ST_NOTE, "recent-late", NULL,
			    "%zu late merge%s (evidence that arrived after the verdict) and %zu "
			    "provisional verdict%s made final",
			    r.late, r.late == 1 ? "" : "s", r.provisional_final,
			    r.provisional_final == 1 ? "" : "s");
		if (r.not_final)
			say(d, ST_NOTE, "recent-slurm", NULL,
			    "%zu job run%s merged before Slurm's record was final (re-merged for a "
			    "day)",
			    r.not_final, r.not_final == 1 ? "" : "s");
	}
	logs = read_logs(d, &s, from, sizeof(from));
	if (!logs) {
		say(d, ST_SKIP, "recent-log", NULL,
		    "no collector log found (journal, /var/log/syslog, /var/log/messages): name one "
		    "with --log FILE");
		return;
	}
	if (!s.runs) {
		say(d, ST_NOTE, "recent-log", NULL, "no collector runs logged in %s", from);
		return;
	}
	say(d, ST_OK, "recent-log", NULL,
	    "%zu collector run%s in %s: %.2f s on average, %.2f s at most; %zu with a source "
	    "timed out%s%s%s",
	    s.runs, s.runs == 1 ? "" : "s", from, s.total / (double)s.runs, s.max, s.timed_out,
	    s.timed_out_sources[0] ? " (" : "", s.timed_out_sources,
	    s.timed_out_sources[0] ? ")" : "");
	if (s.deadline)
		say(d, ST_WARN, "recent-log",
		    "raise the plugin's timeout= or lower the slow sources' timeouts",
		    "%zu collector run%s hit the deadline", s.deadline, s.deadline == 1 ? "" : "s");
	if (s.store_failed || s.store_pending)
		say(d, ST_WARN, "recent-log",
		    "check that the store is mounted and writable on every node (run doctor "
		    "there)",
		    "%zu run%s could not store the bundle (%zu failed, %zu left pending in the "
		    "spool)",
		    s.store_failed + s.store_pending,
		    s.store_failed + s.store_pending == 1 ? "" : "s", s.store_failed,
		    s.store_pending);
	if (s.config_bad)
		say(d, ST_WARN, "recent-log",
		    "fix the collector's configuration (see `config` above)",
		    "%zu run%s ignored a broken configuration file", s.config_bad,
		    s.config_bad == 1 ? "" : "s");
}

/* ---- the verb ---- */

int cmd_doctor(int argc, char **argv)
{
	static const struct option opts[] = {
		{"recent", no_argument, NULL, 'R'},
		{"since", required_argument, NULL, 'S'},
		{"slurm-conf", required_argument, NULL, 'f'},
		{"config", required_argument, NULL, 'c'},
		{"store", required_argument, NULL, 's'},
		{"rules", required_argument, NULL, 'r'},
		{"log", required_argument, NULL, 'l'},
		{"offline", no_argument, NULL, 'o'},
		{"strict", no_argument, NULL, 'x'},
		{"json", no_argument, NULL, 'j'},
		{NULL, 0, NULL, 0},
	};
	struct doctor d = {.since = 7 * 86400.0};
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'R':
			d.recent = true;
			break;
		case 'S':
			if (pm_parse_duration(optarg, &d.since) < 0 || d.since <= 0) {
				fprintf(stderr, "%s doctor: --since %s: not a duration (7d, 36h)\n",
					prog, optarg);
				return 2;
			}
			d.recent = true;
			break;
		case 'f':
			d.opt_conf = optarg;
			break;
		case 'c':
			d.opt_config = optarg;
			break;
		case 's':
			d.opt_store = optarg;
			break;
		case 'r':
			d.opt_rules = optarg;
			break;
		case 'l':
			d.opt_log = optarg;
			d.recent = true;
			break;
		case 'o':
			d.offline = true;
			break;
		case 'x':
			d.strict = true;
			break;
		case 'j':
			d.json = true;
			break;
		default:
			fprintf(stderr, USAGE, prog);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, USAGE, prog);
		return 2;
	}
	d.since = (double)time(NULL) - d.since;
	if (gethostname(d.host, sizeof(d.host) - 1) < 0)
		snprintf(d.host, sizeof(d.host), "?");
	d.checks = json_array();
	if (!d.json)
		printf("postmortem doctor on %s%s\n", d.host,
		       geteuid() ? " (not root: some checks need root)" : "");

	check_slurm_conf(&d);
	check_live(&d);
	check_plugstack(&d);
	check_args(&d);
	check_plugin_file(&d);
	check_plugin_load(&d);
	check_slurmd(&d);
	check_config(&d);
	check_timeout(&d);
	check_collector(&d);
	check_rules(&d);
	check_spool(&d);
	check_store(&d);
	check_store_write(&d);
	check_evidence(&d);
	check_group(&d);
	check_ledger(&d);
	check_metrics(&d);
	check_accounting(&d);
	check_store_flags(&d);
	check_comment_trust(&d);
	check_clock(&d);
	if (d.recent)
		check_recent(&d);

	rc = d.count[ST_FAIL] || (d.strict && d.count[ST_WARN]) ? 1 : d.count[ST_UNKNOWN] ? 2 : 0;
	if (d.json) {
		json_t *o = json_pack("{s:s,s:s,s:o,s:{s:i,s:i,s:i,s:i},s:i}", "schema",
				      "postmortem.doctor/1", "host", d.host, "checks", d.checks,
				      "summary", "fail", d.count[ST_FAIL], "warn", d.count[ST_WARN],
				      "unknown", d.count[ST_UNKNOWN], "ok", d.count[ST_OK], "exit",
				      rc);
		char *s = o ? json_dumps(o, JSON_INDENT(2) | JSON_SORT_KEYS) : NULL;
		if (s)
			puts(s);
		free(s);
		json_decref(o);
	} else {
		json_decref(d.checks);
		printf("%s: %d problem%s, %d warning%s, %d not checked\n",
		       rc == 0 ? "ok" :
		       rc == 1 ? "problems" :
				 "incomplete",
		       d.count[ST_FAIL], d.count[ST_FAIL] == 1 ? "" : "s", d.count[ST_WARN],
		       d.count[ST_WARN] == 1 ? "" : "s", d.count[ST_UNKNOWN]);
	}
	dc_slurmconf_free(&d.sc);
	dc_kvs_free(&d.live);
	dc_plugstack_free(&d.ps);
	if (d.cfg_ok)
		pm_config_free(&d.cfg);
	return fflush(stdout) == 0 ? rc : 1;
}
