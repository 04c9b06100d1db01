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
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "doctor_check.h"

#define USAGE                                                                                  \
	"usage: %s doctor [--recent] [--since DURATION] [--slurm-conf FILE] [--config FILE]\n" \
	"       [--store DIR] [--rules DIR] [--log FILE] [--offline] [--strict] [--json]\n"

static const char *const st_text[ST__N] = {"ok", "note", "skip", "warn", "FAIL", "?"};
static const char *const st_json[ST__N] = {"ok", "note", "skip", "warn", "fail", "unknown"};

/* ---- output ---- */

void doc_say(struct doctor *d, enum st s, const char *id, const char *fix, const char *fmt, ...)
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
const char *doc_fixf(const char *fmt, ...)
{
	static char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return buf;
}

const char *doc_secs(double s, char *buf, size_t len)
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
int doc_run_cmd(const struct doctor *d, const char *const argv[], double timeout, char *out,
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
int doc_in_child(const struct doctor *d, unsigned secs, void (*fn)(const struct doctor *, int),
		 char *out, size_t len, int *status)
{
	int p[2];
	ssize_t n;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	fflush(stdout);
	if ((pid = fork()) < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		close(p[0]);
		alarm(secs);
		fn(d, p[1]);
		_exit(0);
	}
	close(p[1]);
	n = read(p[0], out, len - 1);
	out[n > 0 ? n : 0] = '\0';
	close(p[0]);
	waitpid(pid, status, 0);
	return 0;
}

const char *doc_first_line(const char *text, char *buf, size_t len)
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
const char *doc_conf_get(const struct doctor *d, const char *key, const struct dc_kv **where)
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

const char *doc_live_get(const struct doctor *d, const char *key)
{
	const struct dc_kv *kv = d->have_live ? dc_kv_get(&d->live, key) : NULL;

	return kv && strcmp(kv->val, "(null)") ? kv->val : NULL;
}

const char *doc_where_text(const struct dc_kv *kv, char *buf, size_t len)
{
	if (kv && kv->file)
		snprintf(buf, len, "%s:%d", kv->file, kv->line);
	else
		snprintf(buf, len, "the running configuration");
	return buf;
}

bool doc_parse_long(const char *s, long long *out)
{
	char *end;

	if (!s)
		return false;
	errno = 0;
	*out = strtoll(s, &end, 10);
	return !errno && end != s;
}

/* ---- files ---- */

bool doc_unsafe_file(const char *path, char *why, size_t len)
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

/* ---- the verb ---- */

/* --since DURATION: the period doctor --recent looks back over; 2 (usage) when not one. */
static int since_opt(const struct pmu_opt *opt, const char *arg)
{
	struct doctor *d = opt->dst;

	if (pm_parse_duration(arg, &d->since) < 0 || d->since <= 0) {
		fprintf(stderr, "%s doctor: --since %s: not a duration (7d, 36h)\n", prog, arg);
		return 2;
	}
	d->recent = true;
	return 0;
}

int cmd_doctor(int argc, char **argv)
{
	struct doctor d = {.since = 7 * 86400.0};
	const struct pmu_opt opts[] = {
		{"recent", 0, false, &d.recent, NULL},
		{"since", 0, true, &d, since_opt},
		{"slurm-conf", 0, true, &d.opt_conf, NULL},
		{"config", 0, true, &d.opt_config, NULL},
		{"store", 0, true, &d.opt_store, NULL},
		{"rules", 0, true, &d.opt_rules, NULL},
		{"log", 0, true, &d.opt_log, NULL},
		{"offline", 0, false, &d.offline, NULL},
		{"strict", 0, false, &d.strict, NULL},
		{"json", 0, false, &d.json, NULL},
	};
	int rc;

	rc = pmu_opts_parse(argc, argv, 1, opts, PMU_NELEM(opts));
	if (rc < 0 || (rc == 0 && optind < argc))
		fprintf(stderr, USAGE, prog);
	if (rc || optind < argc)
		return 2;
	d.recent = d.recent || d.opt_log;
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
