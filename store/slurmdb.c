/*
 * slurmdb.c - what the finalizer asks of Slurm's accounting database: the job's record
 * (sacct -P, kept as evidence so that the verdict's outcome comes from it) and the comment
 * (sacctmgr -i modify job where jobid=N set Comment="...").
 *
 * Measured on Slurm, and relied on by the finalize protocol (epilog/README.md): while the
 * job's record has not reached slurmdbd, sacct has no row for it (or still says
 * RUNNING/COMPLETING) and sacctmgr exits 1 with "Nothing modified".  Both are retried with
 * a doubling delay until a deadline; what is still not done then is left for `postmortem
 * finalize` (comment.pending, or a manifest whose Slurm state is not final).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "finalize_int.h"
#include "pmutil.h"
#include "webhook.h"

#define OUT_MAX (1u << 20)
#define CMD_TIMEOUT 20.0
#define FIRST_DELAY 0.25
#define MARK "postmortem: "
#define SEP " | "

/* The fields the engine's sacct parser reads (engine/parse_sched.c).  FailedNode is not a
 * sacct field in 22.05 ("Invalid field requested"): without it, the same list minus it. */
#define SACCT_FIELDS                                                      \
	"JobID,JobIDRaw,State,ExitCode,Start,End,NodeList,NNodes,NTasks," \
	"AllocTRES,ReqTRES,FailedNode,Cluster,UID,Reason"
#define SACCT_FIELDS_NO_FAILEDNODE                                        \
	"JobID,JobIDRaw,State,ExitCode,Start,End,NodeList,NNodes,NTasks," \
	"AllocTRES,ReqTRES,Cluster,UID,Reason"

/* ---- running a command ---- */

/* CMD's ARGS as pm_fin_exec runs them into ARGV (FIN_ARGS), through sh -c (LINE,
 * PM_CMD_MAX + 16 bytes) when CMD holds blanks: 0, or -1 when they do not fit.  The
 * configuration refuses a longer command (config.c), and the callers' arguments are a few:
 * a cut command line or a dropped argument would run something else than asked. */
#define FIN_ARGS 32
#define FIN_LINE (PM_CMD_MAX + 16)
static int fin_argv(const char *cmd, const char *const *args, const char **argv, char *line)
{
	size_t n = 0;

	if (strpbrk(cmd, " \t")) {
		if ((size_t)snprintf(line, FIN_LINE, "%s \"$@\"", cmd) >= FIN_LINE)
			return -1;
		argv[n++] = "/bin/sh";
		argv[n++] = "-c";
		argv[n++] = line;
		argv[n++] = "sh";
	} else {
		argv[n++] = cmd;
	}
	for (size_t i = 0; args[i]; i++) {
		if (n == FIN_ARGS - 1)
			return -1;
		argv[n++] = args[i];
	}
	argv[n] = NULL;
	return 0;
}

/* FD as descriptor TO of the command exec'd next.  dup2 onto itself does nothing and leaves
 * FD_CLOEXEC set: the pipe's end is descriptor 1 itself where the process runs with stdin,
 * stdout and stderr closed, and the command's output went nowhere (posix_spawn's adddup2
 * clears the flag there). */
static void onto(int fd, int to)
{
	if (fd == to)
		fcntl(fd, F_SETFD, 0);
	else
		dup2(fd, to);
}

void pm_fin_exec(const char *cmd, const char *const *args, int wfd, int efd)
{
	const char *argv[FIN_ARGS];
	static char line[FIN_LINE];
	/* close-on-exec: the command gets it as stdin (and stderr: read and write), no fourth
	 * descriptor */
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	setpgid(0, 0);
	/* Slurm's commands as root, never as the store's service user (store.c acts as it while
	 * it finalizes): munge names the effective user, and only root may set a job's comment */
	if (getuid() == 0 && geteuid() != 0) {
		static const gid_t root_group[1] = {0};

		if (seteuid(0) < 0 || setegid(0) < 0 || setgroups(1, root_group) < 0)
			_exit(126);
	}
	if (fd >= 0)
		onto(fd, 0);
	onto(wfd, 1);
	if (efd >= 0)
		onto(efd, 2);
	else if (fd >= 0)
		onto(fd, 2); /* /dev/null */
	if (fin_argv(cmd, args, argv, line) < 0) {
		static const char msg[] = "postmortem: the command line is too long to run\n";
		ssize_t w = write(2, msg, sizeof(msg) - 1);

		(void)w;
		_exit(126);
	}
	execvp(argv[0], (char *const *)argv);
	_exit(127);
}

/* pm_fin_exec's child forked: its pid, or -1 (errno). */
static pid_t fin_fork(const char *cmd, const char *const *args, int wfd, int efd)
{
	pid_t pid = fork();

	if (pid == 0)
		pm_fin_exec(cmd, args, wfd, efd);
	return pid;
}

/* A fork copies the page tables of the whole process, about 200 MiB mapped by the merge of
 * 16,384 nodes (with the faults after, in the parent, where it writes a page the child
 * shared), for a child that only execs: posix_spawn's child shares the parent's memory until
 * its exec.  Its set-up is pm_fin_exec's: no signal blocked, SIGPIPE's default action (exec
 * resets the handled ones), a process group of its own, stdin from /dev/null, stdout to WFD,
 * stderr to EFD or /dev/null, the same argv.  What posix_spawn cannot do goes to a fork as
 * before: root's ids and groups while the process acts as the store's service user, and a
 * command posix_spawnp does not start (not there, not executable, a script without #!, which
 * execvp hands to sh): the forked child does what it did, exit 127 when exec fails. */
pid_t pm_fin_spawn(const char *cmd, const char *const *args, int wfd, int efd)
{
	const char *argv[FIN_ARGS];
	char line[FIN_LINE];
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, sigpipe;
	pid_t pid = -1;
	int rc;

	if (fin_argv(cmd, args, argv, line) < 0) {
		errno = E2BIG;
		return -1;
	}
	if (getuid() == 0 && geteuid() != 0)
		return fin_fork(cmd, args, wfd, efd);
	sigemptyset(&none);
	sigemptyset(&sigpipe);
	sigaddset(&sigpipe, SIGPIPE);
	if (posix_spawn_file_actions_init(&fa))
		return fin_fork(cmd, args, wfd, efd);
	if (posix_spawnattr_init(&at)) {
		posix_spawn_file_actions_destroy(&fa);
		return fin_fork(cmd, args, wfd, efd);
	}
	rc = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
						   POSIX_SPAWN_SETPGROUP) ||
	     posix_spawnattr_setsigmask(&at, &none) ||
	     posix_spawnattr_setsigdefault(&at, &sigpipe) || posix_spawnattr_setpgroup(&at, 0) ||
	     posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0) ||
	     posix_spawn_file_actions_adddup2(&fa, wfd, 1) ||
	     (efd >= 0 ? posix_spawn_file_actions_adddup2(&fa, efd, 2) :
			 posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0));
	if (!rc)
		rc = posix_spawnp(&pid, argv[0], &fa, &at, (char *const *)argv, environ);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	return rc ? fin_fork(cmd, args, wfd, efd) : pid;
}

static int collect(int rfd, pid_t pid, double until, char *buf, size_t *len)
{
	struct pollfd pf = {.fd = rfd, .events = POLLIN};
	char sink[4096];

	for (;;) {
		double left = until - pm_fin_clock();
		ssize_t n;

		if (left <= 0) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			errno = ETIMEDOUT;
			return -1;
		}
		if (poll(&pf, 1, (int)(left * 1000) + 1) < 0 && errno != EINTR)
			return -1;
		if (!(pf.revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		if (*len < OUT_MAX)
			n = read(rfd, buf + *len, OUT_MAX - *len);
		else
			n = read(rfd, sink, sizeof(sink));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		if (*len < OUT_MAX)
			*len += (size_t)n;
	}
}

int pm_fin_run(const char *cmd, const char *const *args, double timeout, char **out, size_t *len,
	       int *status)
{
	int p[2], rc, e, st = 0;
	char *buf = malloc(OUT_MAX + 1);
	size_t n = 0;
	pid_t pid, w;

	*out = NULL;
	*len = 0;
	if (!buf || pipe2(p, O_CLOEXEC) < 0) {
		free(buf);
		return -1;
	}
	pid = pm_fin_spawn(cmd, args, p[1], p[1]);
	close(p[1]);
	if (pid < 0) {
		e = errno;
		close(p[0]);
		free(buf);
		errno = e;
		return -1;
	}
	rc = collect(p[0], pid, pm_fin_clock() + timeout, buf, &n);
	e = errno;
	close(p[0]);
	do
		w = waitpid(pid, &st, 0);
	while (w < 0 && errno == EINTR);
	if (rc < 0) {
		free(buf);
		errno = e;
		return -1;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	*status = w == pid ? st : 0;
	return 0;
}

/* A command's time limit (finalize_int.h): CMD_TIMEOUT at most. */
double pm_fin_cmd_limit(double deadline)
{
	double left = deadline - pm_fin_clock();

	return left < 0.5 ? 0.5 : left > CMD_TIMEOUT ? CMD_TIMEOUT : left;
}

static bool exited_ok(int st)
{
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* ---- the job's record ---- */

static bool final_state(const char *s)
{
	static const char *const fin[] = {
		"COMPLETED", "FAILED",	  "TIMEOUT",  "OUT_OF_MEMORY", "NODE_FAIL", "CANCELLED",
		"PREEMPTED", "BOOT_FAIL", "DEADLINE", "REQUEUED",      "REVOKED",
	};
	for (size_t i = 0; i < sizeof(fin) / sizeof(fin[0]); i++)
		if (!strcmp(s, fin[i]))
			return true;
	return false;
}

/* Field I of a '|' separated line (LEN bytes) into OUT; "" when it holds a NUL or does not
 * fit: cut, "4242<NUL>.batch" compared equal to job 4242 and its state was taken as the job's. */
static void field(const char *l, size_t len, int i, char *out, size_t outlen)
{
	const char *end = l + len, *p = l;

	out[0] = '\0';
	for (; i > 0 && p < end; i--) {
		const char *c = memchr(p, '|', (size_t)(end - p));
		if (!c)
			return;
		p = c + 1;
	}
	if (i > 0)
		return;
	const char *c = memchr(p, '|', (size_t)(end - p));
	size_t n = (size_t)((c ? c : end) - p);
	if (n >= outlen || memchr(p, '\0', n))
		return;
	memcpy(out, p, n);
	out[n] = '\0';
}

static int column(const char *hdr, size_t len, const char *name)
{
	const char *p = hdr, *end = hdr + len;
	size_t nl = strlen(name);

	for (int i = 0;; i++) {
		const char *c = memchr(p, '|', (size_t)(end - p)), *e = c ? c : end;
		if ((size_t)(e - p) == nl && !memcmp(p, name, nl))
			return i;
		if (!c)
			return -1;
		p = c + 1;
	}
}

void pm_fin_sched_parse(struct pm_sched *s, const char *job)
{
	const char *l = s->text, *end = s->text + s->len, *nl;
	int cid = -1, cst = -1, cuid = -1;
	char f[64];

	s->state[0] = '\0';
	for (bool hdr = true; l < end; l = nl + 1, hdr = false) {
		nl = memchr(l, '\n', (size_t)(end - l));
		if (!nl)
			nl = end;
		if (hdr) {
			cid = column(l, (size_t)(nl - l), "JobID");
			cst = column(l, (size_t)(nl - l), "State");
			cuid = column(l, (size_t)(nl - l), "UID");
			if (cid < 0 || cst < 0)
				return;
			continue;
		}
		field(l, (size_t)(nl - l), cid, f, sizeof(f));
		if (strcmp(f, job))
			continue;
		field(l, (size_t)(nl - l), cst, f, sizeof(f));
		f[strcspn(f, " +")] = '\0';
		snprintf(s->state, sizeof(s->state), "%.31s", f);
		if (cuid >= 0) {
			field(l, (size_t)(nl - l), cuid, f, sizeof(f));
			if (f[0] && strspn(f, "0123456789") == strlen(f) && strlen(f) < 11)
				s->uid = strtoll(f, NULL, 10);
		}
	}
	s->final = final_state(s->state);
}

void pm_fin_sched_free(struct pm_sched *s)
{
	free(s->text);
	s->text = NULL;
}

/*
 * The job's owner when this runs in the job's own epilog: slurmd puts it in the environment
 * (SLURM_JOB_UID beside SLURM_JOB_ID); NULL elsewhere.  UID gets its digits.
 */
static const char *epilog_owner(const char *job, char *uid, size_t len)
{
	const char *id = getenv("SLURM_JOB_ID"), *u = getenv("SLURM_JOB_UID");

	if (!id || strcmp(id, job) || !u || !*u || strspn(u, "0123456789") != strlen(u) ||
	    strlen(u) >= len || strlen(u) > 10)
		return NULL;
	snprintf(uid, len, "%s", u);
	return uid;
}

/*
 * sacct's arguments that keep its answer to JOB's owner, from ARGS[N] on: the owner of the
 * job whose epilog this is (its jobs of the last day), else OWNER when known (-1 not), else
 * none.  UID (LEN bytes) holds the digits.  The new count.
 */
static size_t owner_args(const char **args, size_t n, const char *job, long long owner, char *uid,
			 size_t len)
{
	if (epilog_owner(job, uid, len)) {
		args[n++] = "-u";
		args[n++] = uid;
		args[n++] = "-S";
		args[n++] = "now-1days";
	} else if (owner >= 0 && owner < 4294967295LL) {
		snprintf(uid, len, "%lld", owner);
		args[n++] = "-u";
		args[n++] = uid;
	}
	return n;
}

void pm_fin_sacct(const struct pm_config *cfg, const char *job, double deadline, struct pm_sched *s)
{
	pm_fin_sacct_owner(cfg, job, -1, deadline, s);
}

static void sacct_ask(const struct pm_config *cfg, const char *job, long long owner,
		      double deadline, bool once, struct pm_sched *s)
{
	/* Job ids come back (a controller whose state was reset; the database keeps the old
	 * jobs), and `sacct -j N` alone searches from 1970 and gives the most recently
	 * submitted job of that number, whoever ran it.  In the job's epilog its owner is known
	 * and the job was running a moment ago: only that user's job active in the last day is
	 * asked for, so that the record stored is this job's.  From the timer (no job
	 * environment) the owner the bundles' manifests name is asked for, over all time: the
	 * job may have ended days ago. */
	const char *args[12] = {"-P", "-j", job};
	const char *cmd = cfg->sacct && *cfg->sacct ? cfg->sacct : "sacct";
	double delay = FIRST_DELAY;
	bool short_list = false;
	char uid[16];
	size_t n = 3, fi;
	int st;

	n = owner_args(args, n, job, owner, uid, sizeof(uid));
	args[n++] = "-o";
	fi = n;
	args[n++] = SACCT_FIELDS;
	args[n] = NULL;
	memset(s, 0, sizeof(*s));
	s->uid = -1;
	for (;;) {
		char *out = NULL;
		size_t len = 0;
		s->tries++;
		if (pm_fin_run(cmd, args, pm_fin_cmd_limit(deadline), &out, &len, &st) < 0)
			snprintf(s->reason, sizeof(s->reason), "%s: %s", cmd, strerror(errno));
		else if (!exited_ok(st) && !short_list && strstr(out, "Invalid field requested") &&
			 strstr(out, "FailedNode")) {
			short_list = true; /* Slurm 22.05: ask again at once */
			args[fi] = SACCT_FIELDS_NO_FAILEDNODE;
			free(out);
			continue;
		} else if (!exited_ok(st))
			snprintf(s->reason, sizeof(s->reason), "%s exited with status %d: %.120s",
				 cmd, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), out);
		else {
			pm_fin_sched_free(s);
			s->text = out;
			s->len = len;
			out = NULL;
			pm_fin_sched_parse(s, job);
			if (s->final) {
				s->reason[0] = '\0';
				return;
			}
			snprintf(s->reason, sizeof(s->reason),
				 s->state[0] ? "the accounting record "
					       "still says %s" :
					       "no accounting record for the job yet%s",
				 s->state);
		}
		free(out);
		if (once || pm_fin_clock() + delay > deadline)
			return;
		pm_fin_nap(delay);
		delay *= 2;
	}
}

void pm_fin_sacct_owner(const struct pm_config *cfg, const char *job, long long owner,
			double deadline, struct pm_sched *s)
{
	sacct_ask(cfg, job, owner, deadline, false, s);
}

void pm_fin_sacct_once(const struct pm_config *cfg, const char *job, long long owner,
		       double deadline, struct pm_sched *s)
{
	sacct_ask(cfg, job, owner, deadline, true, s);
}

/* ---- the comment ---- */

bool pm_comment_is_jobstats(const char *cur)
{
	return cur && !strncmp(cur, "JS1:", 4);
}

char *pm_comment_compose(const char *cur, const char *line)
{
	const char *ours = NULL;
	size_t keep;
	char *out;

	if (!cur)
		cur = "";
	ours = !strncmp(cur, MARK, strlen(MARK)) ? cur : strstr(cur, SEP MARK);
	keep = ours ? (size_t)(ours - cur) : strlen(cur);
	while (keep && (cur[keep - 1] == ' ' || cur[keep - 1] == '\n'))
		keep--;
	if (asprintf(&out, "%.*s%s%s", (int)keep, cur, keep && *line ? SEP : "", line) < 0)
		return NULL;
	return out;
}

/* The owner (UID) JOBDIR's stored manifest names for its job, or -1. */
static long long stored_owner(const char *jobdir)
{
	json_t *m, *u;
	long long uid = -1;

	if (!(m = pm_fin_manifest_top(jobdir, "job")))
		return -1;
	u = json_object_get(m, "uid");
	if (json_is_integer(u) && json_integer_value(u) >= 0 &&
	    json_integer_value(u) < 4294967295LL)
		uid = (long long)json_integer_value(u);
	json_decref(m);
	return uid;
}

/*
 * The owner a modify names (sacctmgr's `user=UID`), as sacct is asked (owner_args): the job
 * of this epilog's, else OWNER when known; NULL when unknown (the bare id).
 */
static const char *modify_owner(const char *job, long long owner, char *uid, size_t len)
{
	if (epilog_owner(job, uid, len))
		return uid;
	if (owner >= 0 && owner < 4294967295LL) {
		snprintf(uid, len, "%lld", owner);
		return uid;
	}
	return NULL;
}

/* The Start column of JOB's row in DIR/sacct.txt (the record this run's verdict used) into
 * OUT, "" when it is not there. */
void pm_fin_stored_start(const char *dir, const char *job, char *out, size_t len)
{
	char p[4096], *buf = NULL, *line, *save = NULL;
	int col = -1;

	out[0] = '\0';
	snprintf(p, sizeof(p), "%s/sacct.txt", dir);
	if (pm_fin_read(p, 1u << 20, &buf, NULL) < 0)
		return;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f = line, *bar;
		int i = 0;
		size_t jl = strlen(job);
		if (col < 0) { /* the header: where Start is */
			for (; f; f = bar ? bar + 1 : NULL, i++) {
				bar = strchr(f, '|');
				if ((bar ? (size_t)(bar - f) : strlen(f)) == 5 &&
				    !strncmp(f, "Start", 5))
					col = i;
			}
			if (col < 0)
				break;
			continue;
		}
		if (strncmp(line, job, jl) || line[jl] != '|')
			continue;
		for (; f && i < col; i++)
			f = (bar = strchr(f, '|')) ? bar + 1 : NULL;
		if (f)
			snprintf(out, len, "%.*s", (int)strcspn(f, "|"), f);
		break;
	}
	free(buf);
}

/* JOBDIR's manifest "created" (when the run's folder got its first verdict), or -1. */
static double run_created(const char *jobdir)
{
	json_t *m;
	const char *c;
	struct tm tm;
	double t = -1;

	if (!(m = pm_fin_manifest_top(jobdir, "created")))
		return -1;
	memset(&tm, 0, sizeof(tm));
	c = json_string_value(m);
	if (c && strlen(c) == 20 && c[19] == 'Z' && strptime(c, "%Y-%m-%dT%H:%M:%SZ", &tm))
		t = (double)timegm(&tm);
	json_decref(m);
	return t;
}

/* sacct's time (local time, as it prints it), or -1. */
static double sacct_time(const char *s)
{
	struct tm tm;
	const char *e;

	memset(&tm, 0, sizeof(tm));
	if (!(e = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm)) || *e)
		return -1;
	tm.tm_isdst = -1;
	return (double)mktime(&tm);
}

/*
 * Is the record that `sacctmgr modify job where jobid=JOB [user=UID]` would change this
 * run's (JOBDIR's)?  slurmdbd changes the most recently submitted record of the id among
 * those of the user named (measured on 22.05: EndTime= and StartTime= select nothing), and
 * sacct -X -j JOB [-u UID], without --duplicates, gives that same record: its Start is asked
 * for alone (no comment in the answer, so nothing a user wrote can make it match).  The
 * record is this run's when its Start is the one the run's stored sacct.txt holds, and it
 * began before the run's folder was made (a stored record asked for after the id was taken
 * again by the same owner is the later job's).  1 yes, 0 another job's (WHY), -1 unknown
 * (WHY: no record yet, sacct failed).
 */
static int record_is_run(const struct pm_config *cfg, const char *jobdir, const char *job,
			 long long owner, double deadline, char *why, size_t whylen)
{
	const char *args[12] = {"-P", "-X", "-n", "-j", job};
	const char *cmd = cfg->sacct && *cfg->sacct ? cfg->sacct : "sacct";
	char *out = NULL, uid[16], stored[32];
	size_t len, n = 5;
	double created, start;
	int st, rc = 1;

	n = owner_args(args, n, job, owner, uid, sizeof(uid));
	args[n++] = "-o";
	args[n++] = "Start";
	args[n] = NULL;
	if (pm_fin_run(cmd, args, pm_fin_cmd_limit(deadline), &out, &len, &st) < 0) {
		snprintf(why, whylen, "%s: %s", cmd, strerror(errno));
		return -1;
	}
	out[strcspn(out, "\n")] = '\0';
	if (!exited_ok(st) || !*out) {
		snprintf(why, whylen, "%s -o Start: %.160s", cmd,
			 exited_ok(st) ? "no accounting record for the job yet" : out);
		free(out);
		return -1;
	}
	pm_fin_stored_start(jobdir, job, stored, sizeof(stored));
	created = run_created(jobdir);
	start = sacct_time(out);
	if ((stored[0] && strcmp(out, stored)) || (created >= 0 && start > created)) {
		/* never touch another job's record: the line stays unwritten, and says why */
		const char *u = modify_owner(job, owner, uid, sizeof(uid));
		snprintf(why, whylen,
			 "not written: sacctmgr would change the record of job %s%s%s that "
			 "started %.31s, a later job of the id (this run started %s)",
			 job, u ? " of uid " : "", u ? u : "", out,
			 stored[0] ? stored : "before its evidence was stored");
		rc = 0;
	}
	free(out);
	return rc;
}

/* The current value of FIELD of OWNER's job (-1: unknown): 1 with *CUR, 0 when the job has
 * no record yet, -1 error. */
static int current(const struct pm_config *cfg, const char *job, long long owner,
		   const char *fieldname, double deadline, char **cur, char *why, size_t whylen)
{
	const char *args[12] = {"-P", "-X", "-n", "-j", job};
	const char *cmd = cfg->sacct && *cfg->sacct ? cfg->sacct : "sacct";
	char *out, uid[16];
	size_t len, n = 5;
	int st;

	/* this job's comment, not that of an older job of the same number: its owner's, as
	 * pm_fin_sacct_owner asks (from the timer, the owner the stored manifest names) */
	n = owner_args(args, n, job, owner, uid, sizeof(uid));
	args[n++] = "-o";
	args[n++] = fieldname;
	args[n] = NULL;
	*cur = NULL;
	if (pm_fin_run(cmd, args, pm_fin_cmd_limit(deadline), &out, &len, &st) < 0) {
		snprintf(why, whylen, "%s: %s", cmd, strerror(errno));
		return -1;
	}
	if (!exited_ok(st)) {
		snprintf(why, whylen, "%s -o %s failed: %.160s", cmd, fieldname, out);
		free(out);
		return -1;
	}
	if (len == 0) {
		free(out);
		snprintf(why, whylen, "no accounting record for job %s yet", job);
		return 0;
	}
	/* one record: drop the newline sacct ends it with */
	if (out[len - 1] == '\n')
		out[--len] = '\0';
	for (char *p = out; *p; p++)
		if (*p == '\n')
			*p = ' ';
	*cur = out;
	return 1;
}

/* One attempt.  0 done, 2 the record said it already, 1 retry later, -1 give up, 3 not
 * written: the record a modify would change is another job's (WHY). */
static int attempt(const struct pm_config *cfg, const char *jobdir, const char *job,
		   long long owner, const char *line, double deadline, char *why, size_t whylen)
{
	const char *fieldname = cfg->comment_field && !strcmp(cfg->comment_field, "AdminComment") ?
					"AdminComment" :
					"Comment";
	const char *cmd = cfg->sacctmgr && *cfg->sacctmgr ? cfg->sacctmgr : "sacctmgr";
	char *cur = NULL, *want = NULL, *out = NULL, *set = NULL, where[96], user[32], uid[16];
	const char *u;
	size_t len;
	int rc, st;

	rc = current(cfg, job, owner, fieldname, deadline, &cur, why, whylen);
	if (rc == 1 && !strcmp(fieldname, "AdminComment") && pm_comment_is_jobstats(cur)) {
		/* jobstats' summary owns AdminComment: ours goes to Comment instead */
		free(cur);
		fieldname = "Comment";
		rc = current(cfg, job, owner, fieldname, deadline, &cur, why, whylen);
	}
	if (rc <= 0)
		return rc < 0 ? -1 : 1;
	if (!(want = pm_comment_compose(cur, line))) {
		rc = -1;
		goto out;
	}
	rc = 2;
	if (!strcmp(want, cur))
		goto out;
	/* a job id Slurm gave again: only this run's record, never the later job's */
	if ((rc = record_is_run(cfg, jobdir, job, owner, deadline, why, whylen)) <= 0) {
		rc = rc < 0 ? 1 : 3;
		goto out;
	}
	rc = 0;
	for (char *p = want; *p; p++)
		if (*p == '"')
			*p = '`'; /* what sacctmgr itself makes of a quote inside a value */
	snprintf(where, sizeof(where), "jobid=%s", job);
	u = modify_owner(job, owner, uid, sizeof(uid));
	snprintf(user, sizeof(user), "user=%s", u ? u : "");
	/* the whole value, however long the user's comment in front of ours: a fixed buffer
	 * cut it, and our line and the closing quote with it */
	if (asprintf(&set, "%s=\"%s\"", fieldname, want) < 0) {
		set = NULL;
		snprintf(why, whylen, "%s", strerror(ENOMEM));
		rc = -1;
		goto out;
	}
	/* the owner's record of the id (the one record_is_run looked at), not the id's latest */
	const char *args[10] = {"-i", "modify", "job", "where", where};
	size_t k = 5;
	if (u)
		args[k++] = user;
	args[k++] = "set";
	args[k++] = set;
	args[k] = NULL;
	if (pm_fin_run(cmd, args, pm_fin_cmd_limit(deadline), &out, &len, &st) < 0) {
		snprintf(why, whylen, "%s: %s", cmd, strerror(errno));
		rc = -1;
	} else if (strstr(out, "Nothing modified")) {
		snprintf(why, whylen,
			 "%s: Nothing modified (the job's record has not reached "
			 "slurmdbd)",
			 cmd);
		rc = 1;
	} else if (!exited_ok(st)) {
		snprintf(why, whylen, "%s failed: %.200s", cmd, out);
		rc = -1;
	}
out:
	free(set);
	free(out);
	free(want);
	free(cur);
	return rc;
}

/* The comment state files hold "FIELD\tLINE\n". */
static char *state_text(const struct pm_config *cfg, const char *line)
{
	char *s;

	if (asprintf(&s, "%s\t%s\n",
		     cfg->comment_field && *cfg->comment_field ? cfg->comment_field : "Comment",
		     line) < 0)
		return NULL;
	return s;
}

static bool same_file(const char *jobdir, const char *name, const char *text)
{
	char p[4096], *buf;
	bool same;

	snprintf(p, sizeof(p), "%s/%s", jobdir, name);
	if (pm_fin_read(p, 4096, &buf, NULL) < 0)
		return false;
	same = !strcmp(buf, text);
	free(buf);
	return same;
}

enum pm_comment_state pm_fin_comment(const struct pm_config *cfg, const char *jobdir,
				     const char *job, long long owner, const char *line,
				     double deadline, char *why, size_t whylen)
{
	char *want = state_text(cfg, line), pend[4096];
	enum pm_comment_state res = PM_COMMENT_PENDING;
	double delay = FIRST_DELAY;
	struct stat st;
	int rc;

	if (owner == PM_OWNER_STORED)
		owner = stored_owner(jobdir);
	else if (owner < 0 || owner >= 4294967295LL)
		owner = -1; /* as stored_owner would read it back */
	snprintf(pend, sizeof(pend), "%s/comment.pending", jobdir);
	if (!want) {
		snprintf(why, whylen, "out of memory");
		return res;
	}
	if (same_file(jobdir, "comment", want) && lstat(pend, &st) < 0) {
		res = PM_COMMENT_ALREADY;
		goto out;
	}
	if (!*line && lstat(pend, &st) < 0) {
		char p[4096];
		snprintf(p, sizeof(p), "%s/comment", jobdir);
		if (lstat(p, &st) < 0) {
			res = PM_COMMENT_NONE; /* never said anything: nothing to take back */
			goto out;
		}
	}
	/* written first, so that a collector killed at its deadline leaves the work behind */
	if (pm_fin_write(jobdir, "comment.pending", want, strlen(want)) < 0) {
		snprintf(why, whylen, "%s: %s", pend, strerror(errno));
		goto out;
	}
	for (;;) {
		rc = attempt(cfg, jobdir, job, owner, line, deadline, why, whylen);
		if (rc != 1 || pm_fin_clock() + delay > deadline)
			break;
		pm_fin_nap(delay);
		delay *= 2;
	}
	/* for good: the id's later job will stay the later one (WHY says so; no retry) */
	if (rc == 3 && unlink(pend) == 0)
		res = PM_COMMENT_SKIPPED;
	if ((rc == 0 || rc == 2) && pm_fin_write(jobdir, "comment", want, strlen(want)) == 0 &&
	    unlink(pend) == 0) {
		res = rc == 2 ? PM_COMMENT_ALREADY : PM_COMMENT_SET;
		why[0] = '\0';
	}
out:
	free(want);
	return res;
}

/* The AdminComment copy (finalize_int.h): read with sacct, composed, set with sacctmgr. */
int pm_fin_admin_set(const struct pm_config *cfg, const char *jobdir, const char *job,
		     long long owner, const char *line, double deadline, char *why, size_t whylen)
{
	const char *sacct = cfg->sacct && *cfg->sacct ? cfg->sacct : "sacct";
	const char *mgr = cfg->sacctmgr && *cfg->sacctmgr ? cfg->sacctmgr : "sacctmgr";
	const char *q[12] = {"-P", "-X", "-n", "-j", job};
	char *out = NULL, *want = NULL, *set = NULL, where[96], user[32], uid[16];
	const char *u;
	size_t len, n = 5;
	int st, rc = -1;

	if (owner == PM_OWNER_STORED)
		owner = stored_owner(jobdir);
	/* the record of the run's owner, as pm_fin_comment reads and changes it */
	n = owner_args(q, n, job, owner, uid, sizeof(uid));
	q[n++] = "-o";
	q[n++] = "AdminComment";
	q[n] = NULL;
	if (pm_fin_run(sacct, q, pm_fin_cmd_limit(deadline), &out, &len, &st) < 0 ||
	    !WIFEXITED(st) || WEXITSTATUS(st)) {
		snprintf(why, whylen, "%s -o AdminComment failed", sacct);
		goto out;
	}
	while (len && (out[len - 1] == '\n' || out[len - 1] == ' '))
		out[--len] = '\0';
	for (char *p = out; *p; p++)
		if (*p == '\n')
			*p = ' ';
	rc = 0;
	if (pm_comment_is_jobstats(out) || !(want = pm_comment_compose(out, line)) ||
	    !strcmp(want, out))
		goto out;
	for (char *p = want; *p; p++)
		if (*p == '"')
			*p = '`';
	free(out);
	out = NULL;
	if ((rc = record_is_run(cfg, jobdir, job, owner, deadline, why, whylen)) <= 0) {
		rc = rc < 0 ? -1 : 0; /* another job's record: nothing to do here, ever */
		goto out;
	}
	snprintf(where, sizeof(where), "jobid=%s", job);
	u = modify_owner(job, owner, uid, sizeof(uid));
	snprintf(user, sizeof(user), "user=%s", u ? u : "");
	if (asprintf(&set, "AdminComment=\"%s\"", want) < 0) {
		set = NULL;
		snprintf(why, whylen, "%s", strerror(ENOMEM));
		rc = -1;
		goto out;
	}
	const char *m[10] = {"-i", "modify", "job", "where", where};
	n = 5;
	if (u)
		m[n++] = user;
	m[n++] = "set";
	m[n++] = set;
	m[n] = NULL;
	if (pm_fin_run(mgr, m, pm_fin_cmd_limit(deadline), &out, &len, &st) < 0 ||
	    strstr(out, "Nothing modified") || !WIFEXITED(st) || WEXITSTATUS(st)) {
		snprintf(why, whylen, "%s: AdminComment not set: %.120s", mgr, out ? out : "");
		rc = -1;
	} else {
		rc = 1;
	}
out:
	free(set);
	free(out);
	free(want);
	return rc;
}

int pm_finalize_pending(const struct pm_config *cfg, const char *jobdir, double budget,
			struct pm_finalize_result *res, char *err, size_t errlen)
{
	char p[4096], *buf, cluster[64], job[64], restart[64], why[512] = "";
	enum pm_comment_state cs;
	char *line;
	struct pm_finalize_result r0;
	int hook;

	if (!res)
		res = &r0;
	memset(res, 0, sizeof(*res));
	/* job: Slurm's id, a reused id's run number (N~2) taken off */
	if (pm_fin_key(jobdir, cluster, job, restart, sizeof(job)) < 0 ||
	    pm_fin_jobid_split(job, job, sizeof(job)) < 0)
		return pmu_fail(err, errlen, EINVAL, "%s: not a <cluster>/<job>/<restart> folder",
				jobdir);
	/* the webhooks (webhook.h) with at most half the budget, the comment with the rest */
	res->webhook =
		pm_webhook_retry(cfg, jobdir,
				 pm_fin_clock() + (budget > 0 ? budget : PM_SLURM_BUDGET) / 2,
				 res->webhook_why, sizeof(res->webhook_why));
	hook = res->webhook == PM_WEBHOOK_PENDING;
	snprintf(p, sizeof(p), "%s/comment.pending", jobdir);
	if (pm_fin_read(p, 4096, &buf, NULL) < 0) {
		if (errno == ENOENT)
			return hook;
		return pmu_fail(err, errlen, errno, "%s: %s", p, strerror(errno));
	}
	line = strchr(buf, '\t');
	if (!line) {
		free(buf);
		return pmu_fail(err, errlen, EINVAL, "%s: not FIELD<tab>LINE", p);
	}
	*line++ = '\0';
	line[strcspn(line, "\n")] = '\0';
	/* the field is the one configured when the line was made */
	struct pm_config c = *cfg;
	c.comment_field = buf;
	cs = pm_fin_comment(&c, jobdir, job, PM_OWNER_STORED, line,
			    pm_fin_clock() + (budget > 0 ? budget : PM_SLURM_BUDGET), why,
			    sizeof(why));
	free(buf);
	res->comment = cs;
	snprintf(res->comment_why, sizeof(res->comment_why), "%s", why);
	return cs == PM_COMMENT_PENDING || hook ? 1 : 0;
}
