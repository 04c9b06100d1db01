/*
 * recheck.c - the stored verdict is the authority: the comments set within a period are
 * rechecked against Slurm's with one sacct query, and a postmortem part that a job's owner
 * changed is confirmed on its own, put back and recorded (pm_finalize_recheck, finalize.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "finalize_int.h"
#include "pmutil.h"

#define MARK "postmortem: "
#define SEP " | "
#define RECHECK_TIMEOUT 120.0 /* seconds the one sacct query of a walk may take */
#define FOUND_MAX 300	      /* bytes of a tampered value kept in the record */
#define AMBIGUOUS_MAX 50      /* jobs with forged rows asked about alone, per walk */
#define JOBLIST_MAX 32768     /* bytes of job ids named in the query (one argument) */

/* The postmortem part of a comment: from our mark (first, or after " | ") to the end, less
 * trailing blanks; "" when there is none.  Points into CUR; *LEN its length. */
static const char *our_part(const char *cur, size_t *len)
{
	const char *p = !strncmp(cur, MARK, strlen(MARK)) ? cur : strstr(cur, SEP MARK);
	size_t n;

	if (!p) {
		*len = 0;
		return "";
	}
	if (p != cur)
		p += strlen(SEP);
	n = strlen(p);
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\n' || p[n - 1] == '\r'))
		n--;
	*len = n;
	return p;
}

static bool part_is(const char *cur, const char *line)
{
	size_t n;
	const char *p = our_part(cur, &n);

	return n == strlen(line) && !memcmp(p, line, n);
}

struct cand {
	char key[140]; /* "cluster\x1fjob": Slurm's id, a reused id's runs (N~2) alike */
	char *dir, *line;
	char field[16];
	char job[NAMELEN];
	char run[NAMELEN]; /* the run's folder name: N, N~2 (its restarts share it) */
	double set;	   /* when the comment was set (the comment file's time) */
	bool seen, bad, bad_admin;
	bool newer;	/* a later job not in the store has the same id (or a forged row says so) */
	char start[32]; /* the run's Start in its stored sacct.txt, "" unknown */
	unsigned rows;	/* rows of sacct's answer for the job: more than one is a forged row */
	char found[FOUND_MAX + 1], found_admin[FOUND_MAX + 1];
};

struct recheck {
	const struct pm_config *cfg;
	double since;
	struct cand *c;
	size_t n, cap;
	char row[8192]; /* the row being read: continuation lines join it */
	size_t rowlen;
};

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	/* the runs of one id together, a run's restarts together, the newest comment first */
	if (!c)
		c = strcmp(x->run, y->run);
	return c ? c : x->set < y->set ? 1 : x->set > y->set ? -1 : 0;
}

/* A job run whose comment we set within the period (not pending a retry): a candidate. */
static int recheck_collect(const char *dir, void *arg)
{
	struct recheck *rc = arg;
	char p[4096], *buf = NULL, *tab, cluster[NAMELEN], job[NAMELEN], restart[NAMELEN];
	char run[NAMELEN];
	struct stat st;
	struct cand *c;

	snprintf(p, sizeof(p), "%s/comment", dir);
	if (lstat(p, &st) < 0 || (double)st.st_mtime < rc->since ||
	    pm_fin_exists(dir, "comment.pending") ||
	    pm_fin_key(dir, cluster, run, restart, NAMELEN) < 0 ||
	    pm_fin_jobid_split(run, job, NAMELEN) < 0) /* Slurm's id, not N~2 */
		return 0;
	if (pm_fin_read(p, 4096, &buf, NULL) < 0)
		return 0;
	if (!(tab = strchr(buf, '\t')) || tab - buf >= 16) {
		free(buf);
		return 0;
	}
	*tab++ = '\0';
	tab[strcspn(tab, "\n")] = '\0';
	if (rc->n == rc->cap) {
		size_t cap = rc->cap ? rc->cap * 2 : 256;
		struct cand *v = realloc(rc->c, cap * sizeof(*v));
		if (!v) {
			free(buf);
			return -1;
		}
		rc->c = v;
		rc->cap = cap;
	}
	c = &rc->c[rc->n];
	memset(c, 0, sizeof(*c));
	snprintf(c->key, sizeof(c->key), "%s\x1f%s", cluster, job);
	snprintf(c->field, sizeof(c->field), "%s", buf);
	snprintf(c->job, sizeof(c->job), "%s", job);
	snprintf(c->run, sizeof(c->run), "%s", run);
	c->set = (double)st.st_mtime;
	pm_fin_stored_start(dir, job, c->start, sizeof(c->start));
	if (!(c->dir = strdup(dir)) || !(c->line = strdup(tab))) {
		free(c->dir);
		free(buf);
		return -1;
	}
	rc->n++;
	free(buf);
	return 0;
}

/* Judge one sacct row "JobID|Cluster|Start|AdminComment|Comment" against the store. */
static void recheck_row(struct recheck *rc, char *row)
{
	char *f[4], *p = row, key[140];
	struct cand *c;
	const char *main_v;

	for (int i = 0; i < 4; i++) {
		char *bar = strchr(p, '|');
		if (!bar)
			return;
		*bar = '\0';
		f[i] = p;
		p = bar + 1;
	}
	snprintf(key, sizeof(key), "%s\x1f%s", f[1], f[0]);
	/* the first entry of the key */
	size_t lo = 0, hi = rc->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (strcmp(rc->c[mid].key, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == rc->n || strcmp(rc->c[lo].key, key))
		return;
	/* the run of the job whose record this is: a reused id's runs (N, N~2, ...) each have
	 * their own row (sacct -D), told apart by their start; a run whose start is unknown
	 * takes the row only when it is the id's one run in the store */
	c = NULL;
	for (size_t i = lo; i < rc->n && !strcmp(rc->c[i].key, key); i++)
		if (rc->c[i].start[0] && !strcmp(f[2], rc->c[i].start)) {
			c = &rc->c[i];
			break;
		}
	if (!c && !rc->c[lo].start[0] && (lo + 1 == rc->n || strcmp(rc->c[lo + 1].key, key)))
		c = &rc->c[lo];
	if (!c) {
		/* another job that came to have the same id, not in the store: never counted as
		 * a run's; a later one makes the runs before it doubtful (or a forged row) */
		for (size_t i = lo; i < rc->n && !strcmp(rc->c[i].key, key); i++)
			if (rc->c[i].start[0] && strcmp(f[2], rc->c[i].start) > 0)
				rc->c[i].newer = true;
		return;
	}
	c->seen = true;
	c->rows++;
	/* jobstats' summary in AdminComment: the line went to Comment instead (slurmdb.c) */
	main_v = !strcmp(c->field, "AdminComment") && !pm_comment_is_jobstats(f[3]) ? f[3] : p;
	/* a mismatch sticks: a later row (a forged continuation line) cannot clear it */
	if (!part_is(main_v, c->line) && !c->bad) {
		c->bad = true;
		snprintf(c->found, sizeof(c->found), "%s", main_v);
	}
	if (rc->cfg->admin_comment && strcmp(c->field, "AdminComment") && *c->line &&
	    !pm_comment_is_jobstats(f[3]) && !part_is(f[3], c->line) && !c->bad_admin) {
		c->bad_admin = true;
		snprintf(c->found_admin, sizeof(c->found_admin), "%s", f[3]);
	}
}

/* A row starts with a job id and a bar; anything else continues the row before it (a
 * comment holding a line break). */
static void recheck_line(struct recheck *rc, const char *l, size_t n)
{
	const char *bar = memchr(l, '|', n);
	char id[NAMELEN];

	if (bar && (size_t)(bar - l) < sizeof(id)) {
		memcpy(id, l, (size_t)(bar - l));
		id[bar - l] = '\0';
		if (pm_fin_jobid_ok(id)) {
			if (rc->rowlen)
				recheck_row(rc, rc->row);
			rc->rowlen = 0;
			rc->row[0] = '\0';
		}
	}
	if (rc->rowlen && rc->rowlen + 1 < sizeof(rc->row))
		rc->row[rc->rowlen++] = ' ';
	if (rc->rowlen + n >= sizeof(rc->row))
		n = sizeof(rc->row) - rc->rowlen - 1;
	memcpy(rc->row + rc->rowlen, l, n);
	rc->rowlen += n;
	rc->row[rc->rowlen] = '\0';
}

/* Run sacct (as root, as pm_fin_run does) and feed its output to recheck_line as it comes,
 * whatever its size.  0, or -1 with WHY. */
static int recheck_query(struct recheck *rc, const char *const *args, double timeout, size_t *rows,
			 char *why, size_t whylen)
{
	const char *cmd = rc->cfg->sacct && *rc->cfg->sacct ? rc->cfg->sacct : "sacct";
	char buf[65536], *carry = NULL;
	size_t nc = 0;
	double until = pm_fin_clock() + timeout;
	int p[2], st = 0, rcode = -1;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0) {
		snprintf(why, whylen, "%s: %s", cmd, strerror(errno));
		return -1;
	}
	/* the timer retries a failed query each run: a pipe left open then was two
	 * descriptors lost a run while no process could be started */
	if ((pid = pm_fin_spawn(cmd, args, p[1], -1)) < 0) {
		snprintf(why, whylen, "%s: %s", cmd, strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	close(p[1]);
	for (;;) {
		struct pollfd pf = {.fd = p[0], .events = POLLIN};
		double left = until - pm_fin_clock();
		ssize_t r;

		if (left <= 0) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			snprintf(why, whylen, "%s took more than %.0f s", cmd, timeout);
			goto wait;
		}
		if (poll(&pf, 1, (int)(left * 1000) + 1) <= 0)
			continue;
		if ((r = read(p[0], buf, sizeof(buf))) < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		for (char *s = buf, *e = buf + r, *nl; s < e; s = nl + 1) {
			if (!(nl = memchr(s, '\n', (size_t)(e - s)))) {
				char *c = realloc(carry, nc + (size_t)(e - s) + 1);
				if (!c)
					break;
				carry = c;
				memcpy(carry + nc, s, (size_t)(e - s));
				nc += (size_t)(e - s);
				break;
			}
			if (nc) {
				char *c = realloc(carry, nc + (size_t)(nl - s) + 1);
				if (c) {
					carry = c;
					memcpy(carry + nc, s, (size_t)(nl - s));
					recheck_line(rc, carry, nc + (size_t)(nl - s));
				}
				nc = 0;
			} else {
				recheck_line(rc, s, (size_t)(nl - s));
			}
			++*rows;
		}
	}
	if (nc)
		recheck_line(rc, carry, nc);
	if (rc->rowlen)
		recheck_row(rc, rc->row);
	rcode = 0;
wait:
	close(p[0]);
	free(carry);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (rcode == 0 && (!WIFEXITED(st) || WEXITSTATUS(st))) {
		snprintf(why, whylen, "%s exited with status %d", cmd,
			 WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
		rcode = -1;
	}
	return rcode;
}

/* Append the tampering of C's FIELD to its run's tampered.jsonl (doctor --recent reads it). */
static void record_tampering(const struct cand *c, const char *field, const char *found,
			     bool restored, double now)
{
	char p[4096], ts[40], *text;
	json_t *o;
	int fd;

	char shown[FOUND_MAX + 1];
	size_t k = 0;

	/* the owner's bytes, as text that is always valid JSON: anything else becomes '?' */
	for (; found[k] && k < FOUND_MAX; k++)
		shown[k] = (unsigned char)found[k] < ' ' || (unsigned char)found[k] > '~' ?
				   '?' :
				   found[k];
	shown[k] = '\0';
	pmu_iso(now, ts, sizeof(ts), "1970-01-01T00:00:00Z");
	o = json_pack("{s:s,s:s,s:s,s:s,s:b}", "time", ts, "field", field, "found", shown, "stored",
		      c->line, "restored", restored);
	if (!o || !(text = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII))) {
		json_decref(o);
		return;
	}
	json_decref(o);
	snprintf(p, sizeof(p), "%s/%s", c->dir, PM_TAMPERED_FILE);
	if ((fd = open(p, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0640)) >= 0) {
		size_t n = strlen(text);
		text[n] = '\n'; /* json_dumps' NUL, replaced: written with its line end */
		if (write(fd, text, n + 1) < 0)
			n = 0;
		close(fd);
	}
	free(text);
}

/* Put back C's line (and its AdminComment copy); record what was confirmed changed. */
static void recheck_restore(const struct pm_config *cfg, struct cand *c, double budget,
			    struct pm_recheck *res, double now)
{
	char why[256] = "", *state;

	if (c->bad && asprintf(&state, "%s\t%s\n", c->field, c->line) >= 0) {
		struct pm_config c2 = *cfg;
		enum pm_comment_state cs;
		/* comment.pending first: pm_fin_comment then asks Slurm instead of trusting the
		 * comment file, and a failure leaves the work for the next walk */
		if (pm_fin_write(c->dir, "comment.pending", state, strlen(state)) == 0) {
			c2.comment_field = c->field;
			cs = pm_fin_comment(&c2, c->dir, c->job, PM_OWNER_STORED, c->line,
					    pm_fin_clock() + budget, why, sizeof(why));
			/* SKIPPED: the record sacctmgr would change is a later job's of the id
			 * (pm_fin_comment), recorded as not put back */
			if (cs == PM_COMMENT_SET || cs == PM_COMMENT_PENDING ||
			    cs == PM_COMMENT_SKIPPED) {
				record_tampering(c, c->field, c->found, cs == PM_COMMENT_SET, now);
				res->tampered++;
				res->restored += cs == PM_COMMENT_SET;
				res->pending += cs == PM_COMMENT_PENDING;
			}
		}
		free(state);
	}
	if (c->bad_admin) {
		int a = pm_fin_admin_set(cfg, c->dir, c->job, PM_OWNER_STORED, c->line,
					 pm_fin_clock() + budget, why, sizeof(why));
		if (a != 0) {
			record_tampering(c, "AdminComment", c->found_admin, a == 1, now);
			res->tampered++;
			res->restored += a == 1;
			res->pending += a < 0;
		}
	}
}

/* The candidates' job ids, comma-separated, each once (sacct -j), or NULL when they do not fit
 * in JOBLIST_MAX bytes (or memory). */
static char *job_list(const struct recheck *rc)
{
	char *buf = malloc(JOBLIST_MAX);
	size_t l = 0;

	if (!buf)
		return NULL;
	buf[0] = '\0';
	for (size_t i = 0; i < rc->n; i++) {
		size_t n = strlen(rc->c[i].job);
		if (i && !strcmp(rc->c[i - 1].job, rc->c[i].job))
			continue; /* sorted by cluster, then job: the same job's runs are together */
		if (l + n + 2 >= JOBLIST_MAX) {
			free(buf);
			return NULL;
		}
		l += (size_t)snprintf(buf + l, JOBLIST_MAX - l, "%s%s", l ? "," : "", rc->c[i].job);
	}
	return buf;
}

/* The clusters of the candidates, comma-separated, each once (sacct -M). */
static void clusters_of(const struct recheck *rc, char *buf, size_t len)
{
	buf[0] = '\0';
	for (size_t i = 0; i < rc->n; i++) {
		char cl[NAMELEN + 2], have[1030];
		size_t l = strlen(buf);
		int n = (int)strcspn(rc->c[i].key, "\x1f");

		snprintf(cl, sizeof(cl), ",%.*s,", n, rc->c[i].key);
		snprintf(have, sizeof(have), ",%s,", buf);
		if (!strstr(have, cl) && l + (size_t)n + 2 < len)
			snprintf(buf + l, len - l, "%s%.*s", l ? "," : "", n, rc->c[i].key);
	}
}

static bool suspect(const struct cand *c)
{
	return c->seen && (c->bad || c->bad_admin);
}

/* Rows that cannot be taken as they are: several for the job, or one of another start. */
static bool doubtful(const struct cand *c)
{
	return c->rows > 1 || c->newer;
}

/* Has a later job really taken C's id?  Asked of Slurm for that id alone, its Start only (no
 * comment in the answer, so nothing a user wrote can make it say so). */
static bool really_newer(const struct pm_config *cfg, const struct cand *c, double budget)
{
	const char *cmd = cfg->sacct && *cfg->sacct ? cfg->sacct : "sacct";
	char cluster[NAMELEN], *out = NULL;
	size_t len;
	int st;
	bool newer = true; /* unknown: left alone, as a later job's would be */

	snprintf(cluster, sizeof(cluster), "%.*s", (int)strcspn(c->key, "\x1f"), c->key);
	const char *a[] = {"-X", "-n", "-P", "-M", cluster, "-j", c->job, "-o", "Start", NULL};
	if (pm_fin_run(cmd, a, pm_fin_cmd_limit(pm_fin_clock() + budget), &out, &len, &st) == 0 &&
	    WIFEXITED(st) && !WEXITSTATUS(st)) {
		out[strcspn(out, "\n")] = '\0';
		newer = strcmp(out, c->start) > 0;
	}
	free(out);
	return newer;
}

/*
 * A job of the period has one row, of its own start.  A comment can hold line breaks and
 * rows of its own (sacct prints it as it is): a job with several rows, or a row of another
 * start, may be another's forgery, and is looked at only AMBIGUOUS_MAX at a time, starting
 * elsewhere at each walk.  A job with one row of its start that differs is the real thing,
 * always put back.  A reused id's runs in the store (N~1, N~2) each read their own row; a
 * run whose id a later job outside the store has taken is left alone.  Putting back
 * changes only the run's own record (pm_fin_comment: the owner named, the record's start
 * checked), or nothing.
 */
static void recheck_judge(const struct pm_config *cfg, struct recheck *rc, double budget,
			  struct pm_recheck *res, double now)
{
	size_t amb = 0, from, done = 0, k = 0;

	for (size_t i = 0; i < rc->n; i++) {
		struct cand *c = &rc->c[i];
		/* an earlier restart of the same run (a requeued job): its comment is the latest
		 * restart's now.  A reused id's other runs (N~2) are other jobs: each judged */
		if (i && !strcmp(rc->c[i - 1].key, c->key) && !strcmp(rc->c[i - 1].run, c->run)) {
			c->seen = c->newer = c->bad = c->bad_admin = false;
			c->rows = 0;
			continue;
		}
		res->seen += c->seen;
		if (doubtful(c) && (suspect(c) || c->newer)) {
			amb++;
		} else if (suspect(c)) {
			res->suspect++;
			recheck_restore(cfg, c, budget, res, now);
		}
	}
	res->ambiguous = amb;
	from = amb ? (size_t)(now / 300) % amb : 0;
	/* the doubtful ones from FROM on, then from the first, AMBIGUOUS_MAX in all */
	for (int pass = 0; pass < 2; pass++) {
		k = 0;
		for (size_t i = 0; i < rc->n && done < AMBIGUOUS_MAX; i++) {
			struct cand *c = &rc->c[i];
			if (!doubtful(c) || !(suspect(c) || c->newer))
				continue;
			if (pass == 0 ? k++ < from : k++ >= from)
				continue;
			done++;
			if (c->newer && really_newer(cfg, c, budget)) {
				res->reused++;
				continue;
			}
			if (suspect(c)) {
				res->suspect++;
				recheck_restore(cfg, c, budget, res, now);
			}
		}
	}
	res->deferred = amb - done;
}

int pm_finalize_recheck(const struct pm_config *cfg, const char *store, const char *jobdir,
			double budget, struct pm_recheck *res, char *err, size_t errlen)
{
	struct recheck rc = {.cfg = cfg};
	double now = pm_fin_wall(), t0 = pm_fin_clock(), q0;
	char since[40], clusters[1024], why[300] = "";
	const char *fields = "JobID,Cluster,Start,AdminComment,Comment";
	char *list = NULL;
	struct pm_recheck r0;
	time_t t;
	struct tm tm;
	int ret = 0;

	if (!res)
		res = &r0;
	memset(res, 0, sizeof(*res));
	if (cfg->comment_recheck <= 0)
		return 0;
	rc.since = now - cfg->comment_recheck;
	if (jobdir ? recheck_collect(jobdir, &rc) < 0 :
		     pm_store_walk(store, recheck_collect, &rc, err, errlen) < 0) {
		ret = pmu_fail(err, errlen, errno ? errno : ENOMEM, "%s: %s",
			       jobdir ? jobdir : store, strerror(errno ? errno : ENOMEM));
		goto out;
	}
	if (!(res->runs = rc.n))
		goto out;
	qsort(rc.c, rc.n, sizeof(*rc.c), cand_cmp);
	clusters_of(&rc, clusters, sizeof(clusters));
	t = (time_t)rc.since;
	localtime_r(&t, &tm); /* sacct reads times in local time */
	strftime(since, sizeof(since), "%Y-%m-%dT%H:%M:%S", &tm);
	/* one query: the jobs by name while their list is short (JOBLIST_MAX bytes), else
	 * every job of the period, whoever's: slurmdbd's work follows the list */
	/* -D: every record of a reused id (sacct gives only the latest without it), each
	 * matched to its own run by its start */
	const char *period[] = {"-a", "-X",  "-D", "-P",  "-n", "-M",	clusters,
				"-S", since, "-E", "now", "-o", fields, NULL};
	const char *named[] = {"-a",	 "-X", "-D", "-P", "-n",   "-M",
			       clusters, "-j", NULL, "-o", fields, NULL};
	named[8] = list = job_list(&rc);
	res->named = list != NULL;
	q0 = pm_fin_clock();
	if (recheck_query(&rc, named[8] ? named : period, RECHECK_TIMEOUT, &res->rows, why,
			  sizeof(why)) < 0) {
		ret = pmu_fail(err, errlen, EIO, "comment recheck: %s", why);
		goto out;
	}
	res->sacct_s = pm_fin_clock() - q0;
	recheck_judge(cfg, &rc, budget, res, now);
out:
	free(list);
	res->total_s = pm_fin_clock() - t0;
	for (size_t i = 0; i < rc.n; i++) {
		free(rc.c[i].dir);
		free(rc.c[i].line);
	}
	free(rc.c);
	return ret;
}
