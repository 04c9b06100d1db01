/*
 * epilog.c - run the collector with a hard deadline.
 *
 * The job stays COMPLETING until every node's epilog returns and PrologEpilogTimeout
 * defaults to forever, so this never waits past the deadline: the collector runs in its own
 * session (its process group is the unit we kill), gets SIGTERM a little before the
 * deadline and SIGKILL at it, and if it is still not reaped shortly after (a child stuck in
 * the kernel on a broken GPU) we return anyway and let init reap it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pmspank.h"

#define REAP_MS		500	/* after SIGKILL */
#define GRACE_MAX_MS	2000	/* SIGTERM comes this much before the deadline, at most */

extern char **environ;

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* In the child: only async-signal-safe calls until execve. */
static void child(char *const argv[], const sigset_t *mask)
{
	struct sigaction sa;
	int fd, sig;

	setsid();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		sigaction(sig, &sa, NULL);	/* fails harmlessly for SIGKILL, SIGSTOP, 32, 33 */
	sigprocmask(SIG_SETMASK, mask, NULL);
	fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
	}
#ifdef SYS_close_range
	if (syscall(SYS_close_range, 3U, ~0U, 0U) < 0)
#endif
		for (fd = 3; fd < 1024; fd++)
			close(fd);
	execve(argv[0], argv, environ);
	_exit(127);
}

/* Wait for PID until the monotonic time UNTIL (ms); 1 reaped (status in *ST), 0 not yet. */
static int reap_until(pid_t pid, long long until, int *st)
{
	long long left;
	long step = 1;
	pid_t w;

	for (;;) {
		w = waitpid(pid, st, WNOHANG);
		if (w == pid)
			return 1;
		if (w < 0 && errno == ECHILD) {
			*st = -1;	/* reaped elsewhere (SIGCHLD ignored): gone all the same */
			return 1;
		}
		left = until - now_ms();
		if (left <= 0)
			return 0;
		nap(step < left ? step : (long)left);
		if (step < 20)
			step *= 2;
	}
}

int pm_run_deadline(char *const argv[], unsigned long long timeout_ms, struct pm_run *r)
{
	long long start = now_ms(), deadline, term_at, grace;
	sigset_t all, old;
	struct stat st;
	pid_t pid;
	int status = 0;

	memset(r, 0, sizeof(*r));
	if (!argv || !argv[0] || argv[0][0] != '/' || stat(argv[0], &st) < 0 ||
	    !S_ISREG(st.st_mode) || access(argv[0], X_OK) < 0) {
		r->outcome = PM_RUN_MISSING;
		return -1;
	}
	grace = (long long)timeout_ms / 5;
	if (grace > GRACE_MAX_MS)
		grace = GRACE_MAX_MS;
	deadline = start + (long long)timeout_ms;
	term_at = deadline - grace;

	/* no handler of the host may run in the child between fork and exec */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid = fork();
	if (pid == 0)
		child(argv, &old);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (pid < 0) {
		r->outcome = PM_RUN_FAILED;
		return -1;
	}

	if (reap_until(pid, term_at, &status))
		goto done;
	kill(-pid, SIGTERM);
	kill(pid, SIGTERM);
	if (reap_until(pid, deadline, &status)) {
		r->outcome = PM_RUN_TIMED_OUT;
		r->status = status;
		r->elapsed_ms = (long)(now_ms() - start);
		return -1;
	}
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	r->outcome = reap_until(pid, deadline + REAP_MS, &status) ? PM_RUN_TIMED_OUT : PM_RUN_LOST;
	r->status = status;
	r->elapsed_ms = (long)(now_ms() - start);
	return -1;
done:
	/* what it left behind in its group (a hung nvidia-smi) goes with it */
	kill(-pid, SIGKILL);
	r->elapsed_ms = (long)(now_ms() - start);
	r->status = status;
	r->outcome = PM_RUN_EXITED;
	if (status == -1)
		return 0;	/* status unknown: it ended in time, which is what matters */
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}
