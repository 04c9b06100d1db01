/*
 * access.c - what the store verbs share: the configuration, finding a job run, and who may
 * read it.  The command is not setuid: it reads the store with the caller's rights, and this
 * check comes on top of the filesystem's, never instead of it.
 */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "finalize.h"

enum cli_access cli_access_decide(long long uid, const long long *groups, size_t ngroups,
				  long long owner, long long ops_gid)
{
	if (uid == 0)
		return CLI_ROOT;
	if (owner >= 0 && uid == owner)
		return CLI_OWNER;
	for (size_t i = 0; ops_gid >= 0 && i < ngroups; i++)
		if (groups[i] == ops_gid)
			return CLI_OPERATOR;
	return CLI_DENIED;
}

enum cli_access cli_access_of(const struct pm_config *cfg, const json_t *manifest)
{
	const char *grp = cfg->operators_group && *cfg->operators_group ? cfg->operators_group :
									  NULL;
	struct group *g = grp ? getgrnam(grp) : NULL;
	int n = getgroups(0, NULL);
	gid_t *gl = calloc(n > 0 ? (size_t)n : 1, sizeof(*gl));
	long long *groups = calloc((n > 0 ? (size_t)n : 0) + 1, sizeof(*groups));
	enum cli_access a = CLI_DENIED;
	size_t ng = 0;

	if (gl && groups) {
		n = n > 0 ? getgroups(n, gl) : 0;
		groups[ng++] = (long long)getegid();
		for (int i = 0; i < n; i++)
			groups[ng++] = (long long)gl[i];
		a = cli_access_decide((long long)getuid(), groups, ng, pm_manifest_uid(manifest),
				      g ? (long long)g->gr_gid : -1);
	}
	free(gl);
	free(groups);
	return a;
}

int cli_access_check(const struct pm_config *cfg, const char *job, const json_t *manifest)
{
	const char *grp = cfg->operators_group && *cfg->operators_group ? cfg->operators_group :
									  NULL;

	if (cli_access_of(cfg, manifest) != CLI_DENIED)
		return 0;
	if (grp)
		fprintf(stderr, "%s: job %s belongs to another user; ask an operator (group %s)\n",
			prog, job, grp);
	else
		fprintf(stderr, "%s: job %s belongs to another user; ask an operator\n", prog, job);
	return -1;
}

int cli_load_config(const char *file, const char *store, struct pm_config *cfg)
{
	const char *env = getenv("POSTMORTEM_CONFIG");
	char err[512] = "";
	struct stat st;

	if (!file && env && *env)
		file = env;
	if (!file && stat(PM_CONFIG_DEFAULT, &st) == 0)
		file = PM_CONFIG_DEFAULT;
	if (pm_config_load(file, cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s: %s\n", prog, err[0] ? err : strerror(errno));
		return -1;
	}
	if (store && pmu_strset(&cfg->store, store) < 0) {
		pm_config_free(cfg);
		return -1;
	}
	return 0;
}

/* the identity given up while acting as the service user (cli_leave_service) */
static struct pm_identity root_id;

int cli_act_as_service(const struct pm_config *cfg, const char *verb)
{
	char why[300] = "";

	if (pm_become_service(cfg->service_user, &root_id, why, sizeof(why)) < 0) {
		fprintf(stderr, "%s %s: %s (the store is written as it)\n", prog, verb, why);
		return -1;
	}
	return 0;
}

void cli_leave_service(void)
{
	pm_become_root(&root_id);
}

int cli_jobdir(const struct pm_config *cfg, const char *job, const char *cluster,
	       const char *restart, char *out, size_t outlen)
{
	char err[768] = "", *end = NULL;
	long r = -1;

	if (restart) {
		errno = 0;
		r = strtol(restart, &end, 10);
		if (errno || end == restart || *end || r < 0 || r > 1000000) {
			fprintf(stderr, "%s: --restart %s: not a restart count\n", prog, restart);
			return -1;
		}
	}
	if (!cfg->store || !*cfg->store) {
		fprintf(stderr, "%s: no evidence store configured (store: in %s, or --store)\n",
			prog, PM_CONFIG_DEFAULT);
		return -1;
	}
	if (pm_jobdir_find(cfg->store, job, cluster, (int)r, out, outlen, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return -1;
	}
	return 0;
}

int cli_run_open(struct cli_run *r, const struct cli_where *w, const char *job, const char *verb,
		 const char *label)
{
	char err[768];

	memset(r, 0, sizeof(*r));
	if (!(r->cfg = calloc(1, sizeof(*r->cfg)))) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return -1;
	}
	if (cli_load_config(w->config, w->store, r->cfg) < 0) {
		free(r->cfg);
		r->cfg = NULL;
		return -1;
	}
	if (cli_jobdir(r->cfg, job, w->cluster, w->restart, r->dir, sizeof(r->dir)) < 0)
		return -1;
	if (!(r->manifest = pm_manifest_load(r->dir, err, sizeof(err)))) {
		if (errno == ENOENT) {
			/* what is there instead: nodes that reported, a merge running or one that
			 * did not finish (finalize.h), not "unreported" */
			char what[1024];
			pm_finalize_describe(r->dir, what, sizeof(what));
			fprintf(stderr, "%s%s%s: job %s has no verdict yet: %s\n", prog,
				verb ? " " : "", verb ? verb : "", job, what);
			return -1;
		}
		fprintf(stderr, "%s%s%s: job %s: %s%s%s\n", prog, verb ? " " : "", verb ? verb : "",
			job, label ? label : "", label ? ": " : "", err);
		return -1;
	}
	return cli_access_check(r->cfg, job, r->manifest);
}

void cli_run_name(const struct cli_run *r, const char *typed, char *out, size_t len)
{
	const char *end = strrchr(r->dir, '/'), *b;

	/* what the user typed for a run of a reused id (4242~1 is the folder 4242) */
	if (typed && strchr(typed, PM_RUN_SEP)) {
		snprintf(out, len, "%s", typed);
		return;
	}
	/* else the folder's name: <store>/<cluster>/<job>/<restart>, the latest run of the id */
	for (b = end; b && b > r->dir && b[-1] != '/'; b--)
		;
	if (end && b && b < end)
		snprintf(out, len, "%.*s", (int)(end - b), b);
	else
		snprintf(out, len, "%s", typed ? typed : "");
}

void cli_run_close(struct cli_run *r)
{
	json_decref(r->manifest);
	r->manifest = NULL;
	if (r->cfg) {
		pm_config_free(r->cfg);
		free(r->cfg);
		r->cfg = NULL;
	}
}

json_t *cli_verdict_load(const char *dir, char **text, size_t *len, char *err, size_t errlen)
{
	char *t = NULL;
	size_t n = 0;
	json_error_t je;
	json_t *v;

	if (pm_jobdir_read(dir, "verdict.json", &t, &n, err, errlen) < 0)
		return NULL;
	if (!(v = json_loadb(t, n, 0, &je))) {
		snprintf(err, errlen, "%s/verdict.json:%d: %s", dir, je.line, je.text);
		free(t);
		errno = EINVAL;
		return NULL;
	}
	if (text) {
		*text = t;
		*len = n;
	} else {
		free(t);
	}
	pm_verdict_upgrade(v); /* a stored version 1 reads as version 2 */
	return v;
}
