/*
 * job.c - what the epilog knows about the job: the environment Slurm gives node epilogs
 * (Slurm's Prolog and Epilog Guide), the collector's options, and the plugin's spool folder.  Every value
 * that ends up in a path or a shell command is checked here, once.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"
#include "postmortem.h"

#define SPOOL_FILE_MAX (16u << 20)

static bool digits(const char *s, size_t max)
{
	size_t n = s ? strlen(s) : 0;

	return n && n <= max && strspn(s, "0123456789") == n;
}

/* A name that is safe as one path component and inside a shell word. */
static bool safe_word(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (!n || n > 255 || s[0] == '.' || s[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("._-", s[i]))
			return false;
	return true;
}

static int dupenv(char **dst, const char *name)
{
	const char *v = getenv(name);

	*dst = NULL;
	if (!v || !*v)
		return 0;
	return (*dst = strdup(v)) ? 0 : -1;
}

static long envnum(const char *name, long dflt)
{
	const char *v = getenv(name);

	return digits(v, 9) ? atol(v) : dflt;
}

static double boot_time(void)
{
	struct timespec b, r;

	if (clock_gettime(CLOCK_BOOTTIME, &b) < 0 || clock_gettime(CLOCK_REALTIME, &r) < 0)
		return 0;
	return (r.tv_sec - b.tv_sec) + (r.tv_nsec - b.tv_nsec) / 1e9;
}

/* Read file NAME of folder DFD (regular, not a link) into a malloc'd buffer. */
static char *slurp_at(int dfd, const char *name, size_t *len)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	char *buf = NULL;
	ssize_t n;
	size_t have = 0;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > SPOOL_FILE_MAX)
		goto out;
	if (!(buf = malloc((size_t)st.st_size + 1)))
		goto out;
	while (have < (size_t)st.st_size &&
	       (n = read(fd, buf + have, (size_t)st.st_size - have)) > 0)
		have += (size_t)n;
	buf[have] = 0;
	*len = have;
out:
	close(fd);
	return buf;
}

/* The earliest "start" of the rank map records in the spool folder: the plugin's own clock
 * at each task's start (root's records; nothing in them comes from the job's environment). */
static double window_start(const char *spool)
{
	DIR *d = opendir(spool);
	struct dirent *e;
	double best = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		size_t len;
		char *buf, *line, *save = NULL;

		if (strncmp(e->d_name, "rankmap.", 8))
			continue;
		if (!(buf = slurp_at(dirfd(d), e->d_name, &len)))
			continue;
		for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			json_t *j = json_loads(line, 0, NULL);
			json_t *s = json_object_get(j, "start");

			if (json_is_number(s) && json_number_value(s) > 0 &&
			    (!best || json_number_value(s) < best))
				best = json_number_value(s);
			json_decref(j);
		}
		free(buf);
	}
	closedir(d);
	return best;
}

/* Decide which folder is the job's spool folder, and whether it can be trusted. */
static int find_spool(struct pm_job *j, const char *given)
{
	const char *base;
	struct stat st;
	char *p, *spool;

	if (!given || !*given) {
		snprintf(j->spool_note, sizeof(j->spool_note), "no spool given");
		return 0;
	}
	/* spool: /var/spool/postmortem/%n, as the plugin's spool= (each node its own) */
	if (!(spool = pm_expand(given, j->node, j->id)))
		return -1;
	base = strrchr(spool, '/');
	base = base ? base + 1 : spool;
	if (!strcmp(base, j->id))
		p = strdup(spool);
	else if (asprintf(&p, "%s/%s", spool, j->id) < 0)
		p = NULL;
	free(spool);
	if (!p)
		return -1;
	if (lstat(p, &st) < 0) {
		snprintf(j->spool_note, sizeof(j->spool_note), "no spool folder %s (%s)", p,
			 strerror(errno));
		free(p);
		return 0;
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022)) {
		snprintf(j->spool_note, sizeof(j->spool_note),
			 "spool folder %s is not a folder of ours writable by nobody else: not trusted",
			 p);
		free(p);
		return 0;
	}
	j->spool = p;
	return 0;
}

int pm_job_init(struct pm_job *j, const char *id, const char *node, const char *spool, char *err,
		size_t errlen)
{
	char host[256];
	const char *v;

	memset(j, 0, sizeof(*j));
	j->uid = (uid_t)-1;
	j->gid = (gid_t)-1;
	j->exit_code = -1;
	if (!id)
		id = getenv("SLURM_JOB_ID");
	if (!digits(id, 19)) {
		snprintf(err, errlen, "no usable job id (--job or SLURM_JOB_ID): '%s'",
			 id ? id : "");
		errno = EINVAL;
		return -1;
	}
	if (!node)
		node = getenv("SLURMD_NODENAME");
	if (!node || !*node) {
		if (gethostname(host, sizeof(host)) < 0)
			host[0] = 0;
		host[sizeof(host) - 1] = 0;
		host[strcspn(host, ".")] = 0;
		node = host;
	}
	if (!safe_word(node)) {
		snprintf(err, errlen, "node name '%s' is not a plain host name", node);
		errno = EINVAL;
		return -1;
	}
	v = getenv("SLURM_CLUSTER_NAME");
	if (!(j->id = strdup(id)) || !(j->node = strdup(node)) ||
	    !(j->cluster = strdup(safe_word(v) ? v : "default")))
		goto oom;
	if (dupenv(&j->user, "SLURM_JOB_USER") < 0 || dupenv(&j->nodelist, "SLURM_NODELIST") < 0 ||
	    dupenv(&j->std_out, "SLURM_JOB_STDOUT") < 0 ||
	    dupenv(&j->std_err, "SLURM_JOB_STDERR") < 0 ||
	    dupenv(&j->work_dir, "SLURM_JOB_WORK_DIR") < 0 ||
	    dupenv(&j->name, "SLURM_JOB_NAME") < 0)
		goto oom;
	if (j->user && strchr(j->user, '/')) {
		free(j->user);
		j->user = NULL;
	}
	j->uid = (uid_t)envnum("SLURM_JOB_UID", -1);
	j->gid = (gid_t)envnum("SLURM_JOB_GID", -1);
	j->restart = (int)envnum("SLURM_JOB_RESTART_COUNT", envnum("SLURM_RESTART_COUNT", 0));
	j->exit_code = (int)envnum("SLURM_JOB_EXIT_CODE", -1);
	if (digits(getenv("SLURM_ARRAY_JOB_ID"), 19) && digits(getenv("SLURM_ARRAY_TASK_ID"), 9)) {
		if (!(j->array_job = strdup(getenv("SLURM_ARRAY_JOB_ID"))) ||
		    !(j->array_task = strdup(getenv("SLURM_ARRAY_TASK_ID"))) ||
		    asprintf(&j->key, "%s_%s", j->array_job, j->array_task) < 0)
			goto oom;
	} else if (digits(getenv("SLURM_HET_JOB_ID"), 19) &&
		   digits(getenv("SLURM_HET_JOB_OFFSET"), 9)) {
		if (asprintf(&j->key, "%s+%s", getenv("SLURM_HET_JOB_ID"),
			     getenv("SLURM_HET_JOB_OFFSET")) < 0)
			goto oom;
	} else if (!(j->key = strdup(j->id))) {
		goto oom;
	}
	if (find_spool(j, spool) < 0)
		goto oom;
	if (j->spool)
		j->window_start = window_start(j->spool);
	j->boot_time = boot_time();
	return 0;
oom:
	j->key = NULL;
	pm_job_free(j);
	snprintf(err, errlen, "out of memory");
	errno = ENOMEM;
	return -1;
}

/* "Key=VALUE" of scontrol's one-record output: VALUE into BUF.  A job name, comment or path
 * can hold " StartTime=...": a key found twice was written by a user, and which one Slurm
 * printed cannot be told, so it is not found (engine/TRUST.md). */
static bool scontrol_field(const char *text, const char *key, char *buf, size_t len)
{
	size_t k = strlen(key);
	int found = 0;

	for (const char *p = text; (p = strstr(p, key)); p += k)
		if ((p == text || isspace((unsigned char)p[-1])) && p[k] == '=') {
			size_t n = strcspn(p + k + 1, " \t\n");
			if (!found++)
				snprintf(buf, len, "%.*s", (int)n, p + k + 1);
		}
	return found == 1;
}

int pm_job_resolve_restart(struct pm_job *j, double timeout)
{
	struct pm_capture c;
	char cmd[96], v[64];
	struct tm tm = {0};
	double start = 0;
	int rc = 0;

	j->restart_note[0] = 0;
	if (j->restart == 0)
		return 0;
	if (!(j->window_start > 0)) {
		snprintf(j->restart_note, sizeof(j->restart_note),
			 "no task recorded on this node: Slurm's count %d", j->restart);
		return 0;
	}
	snprintf(cmd, sizeof(cmd), "scontrol show job -o %s", j->id);
	if (timeout <= 0 || pm_run_command(cmd, timeout, 65536, &c) < 0) {
		snprintf(j->restart_note, sizeof(j->restart_note),
			 "scontrol not run: Slurm's count %d", j->restart);
		return -1;
	}
	if (c.status == PM_ST_OK && c.data && scontrol_field(c.data, "StartTime", v, sizeof(v)) &&
	    strptime(v, "%Y-%m-%dT%H:%M:%S", &tm)) {
		tm.tm_isdst = -1;
		start = (double)mktime(&tm);
	}
	if (start <= 0) {
		snprintf(j->restart_note, sizeof(j->restart_note),
			 "no StartTime from scontrol (%s): Slurm's count %d",
			 pm_status_name(c.status), j->restart);
		rc = -1;
	} else if (j->window_start < start) {
		/* this node's tasks began before the job's current run: they were the run
		 * that was requeued, and the controller has counted the next one already */
		j->restart--;
		snprintf(j->restart_note, sizeof(j->restart_note),
			 "tasks started before the job's StartTime %s: the requeued run %d", v,
			 j->restart);
	}
	free(c.data);
	free(c.name);
	free(c.origin);
	return rc;
}

void pm_job_free(struct pm_job *j)
{
	if (!j)
		return;
	free(j->id);
	free(j->key);
	free(j->cluster);
	free(j->node);
	free(j->user);
	free(j->nodelist);
	free(j->std_out);
	free(j->std_err);
	free(j->work_dir);
	free(j->name);
	free(j->array_job);
	free(j->array_task);
	free(j->spool);
	memset(j, 0, sizeof(*j));
}

static bool spool_has(const struct pm_job *j, const char *prefix)
{
	DIR *d = j->spool ? opendir(j->spool) : NULL;
	struct dirent *e;
	bool found = false;

	if (!d)
		return false;
	while (!found && (e = readdir(d)))
		found = !strncmp(e->d_name, prefix, strlen(prefix));
	closedir(d);
	return found;
}

int pm_job_batch_node(const struct pm_job *j)
{
	char **names = NULL;
	size_t n = 0;
	int rc = -1;

	if (spool_has(j, "rankmap.batch.") || spool_has(j, "taskexit.batch."))
		return 1;
	if (spool_has(j, "rankmap.") || spool_has(j, "taskexit."))
		return 0;
	if (!j->nodelist)
		return -1;
	/* Slurm runs the batch script on the first node of the allocation */
	if (pm_hostlist_expand(j->nodelist, strlen(j->nodelist), &names, &n) == 0 && n)
		rc = !strcmp(names[0], j->node);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

int pm_job_spool_remove(const struct pm_job *j)
{
	DIR *d;
	struct dirent *e;
	char *pending;
	int rc = 0;

	if (!j->spool)
		return 0;
	if (!(d = opendir(j->spool)))
		return -1;
	while ((e = readdir(d))) {
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    !S_ISDIR(st.st_mode) && unlinkat(dirfd(d), e->d_name, 0) < 0)
			rc = -1;
	}
	closedir(d);
	if (asprintf(&pending, "%s/pending", j->spool) >= 0) {
		rmdir(pending);
		free(pending);
	}
	/* a pending/ folder with bundles in it keeps the job folder */
	if (rc == 0 && rmdir(j->spool) < 0 && errno != ENOTEMPTY && errno != EEXIST)
		rc = -1;
	return rc;
}
