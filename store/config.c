/*
 * config.c - the collector's configuration file (epilog/README.md): YAML through libyaml,
 * table-driven keys, every error naming file:line.  Also the duration and size parsers and
 * the %n/%j expansion shared by the collector, the finalizer and the CLI.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "pmconfig.h"
#include "pmutil.h"

#define DURATION_MAX (100.0 * 365 * 86400) /* a century: beyond it, a typo */
#define SIZE_MAX_CAP (1ULL << 30)	   /* a source keeps at most 1 GiB */

static const char *const csource_names[PM_CS__COUNT] = {
	[PM_CS_JOB_OUTPUT] = "job_output", [PM_CS_USER_LOGS] = "user_logs",
	[PM_CS_RANK_MAP] = "rank_map",	   [PM_CS_KERNEL_LOG] = "kernel_log",
	[PM_CS_GPU_STATE] = "gpu_state",   [PM_CS_GPU_CSV] = "gpu_csv",
	[PM_CS_HOST_STATE] = "host_state", [PM_CS_SLURMD_LOG] = "slurmd_log",
	[PM_CS_PROMETHEUS] = "prometheus",
};

const char *pm_csource_name(enum pm_csource s)
{
	if ((unsigned)s >= PM_CS__COUNT)
		return NULL;
	return csource_names[s];
}

/* ---- defaults (epilog/README.md) ---- */

static const char *const host_paths[] = {"/proc/meminfo", "/proc/pressure/*", "/proc/loadavg",
					 NULL};
static const char *const slurmd_paths[] = {"/var/log/slurm/slurmd.log", NULL};

struct source_default {
	const char *command;
	const char *const *paths;
	uint64_t cap;
	double timeout;
};

static const struct source_default source_defaults[PM_CS__COUNT] = {
	[PM_CS_JOB_OUTPUT] = {NULL, NULL, 8ULL << 20, 5},
	[PM_CS_USER_LOGS] = {NULL, NULL, 8ULL << 20, 5},
	[PM_CS_RANK_MAP] = {NULL, NULL, 16ULL << 20, 3},
	[PM_CS_KERNEL_LOG] = {"dmesg --time-format iso", NULL, 4ULL << 20, 5},
	[PM_CS_GPU_STATE] = {"nvidia-smi -q", NULL, 2ULL << 20, 8},
	[PM_CS_GPU_CSV] = {"nvidia-smi --query-gpu=index,pci.bus_id,uuid,"
			   "ecc.errors.uncorrected.volatile.total,retired_pages.pending,"
			   "temperature.gpu --format=csv",
			   NULL, 256ULL << 10, 8},
	[PM_CS_HOST_STATE] = {NULL, host_paths, 64ULL << 10, 2},
	[PM_CS_SLURMD_LOG] = {NULL, slurmd_paths, 2ULL << 20, 3},
	[PM_CS_PROMETHEUS] = {NULL, NULL, 4ULL << 20, 10},
};

static const char *const prom_labels[] = {"instance", "Hostname", NULL};

static char **paths_dup(const char *const *p)
{
	size_t n = 0;
	char **out;

	while (p && p[n])
		n++;
	out = calloc(n + 1, sizeof(*out));
	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (!(out[i] = strdup(p[i]))) {
			for (size_t k = 0; k < i; k++)
				free(out[k]);
			free(out);
			return NULL;
		}
	}
	return out;
}

static void paths_free(char **p)
{
	for (size_t i = 0; p && p[i]; i++)
		free(p[i]);
	free(p);
}

static int defaults(struct pm_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->retain = 14 * 86400.0;
	cfg->deadline = 30;
	cfg->carry_scans = true;
	cfg->comment_recheck = 7 * 86400.0;
	cfg->merge_deadline = 60;
	cfg->repeat_jobs = 2;		  /* store/history.h: PM_HISTORY_JOBS */
	cfg->repeat_window = 7 * 86400.0; /* PM_HISTORY_WINDOW */
	if (pmu_strset(&cfg->store, "/shared/postmortem") < 0 ||
	    pmu_strset(&cfg->spool, "/var/spool/postmortem") < 0 ||
	    pmu_strset(&cfg->operators_group, "slurmops") < 0 ||
	    pmu_strset(&cfg->comment_field, "Comment") < 0 ||
	    pmu_strset(&cfg->service_user, "root") < 0 || pmu_strset(&cfg->sacct, "sacct") < 0 ||
	    pmu_strset(&cfg->sacctmgr, "sacctmgr") < 0)
		return -1;
	for (int i = 0; i < PM_CS__COUNT; i++) {
		const struct source_default *d = &source_defaults[i];
		struct pm_source_conf *s = &cfg->src[i];

		s->enabled = true;
		s->cap = d->cap;
		s->timeout = d->timeout;
		if (pmu_strset(&s->command, d->command) < 0)
			return -1;
		if (d->paths && !(s->paths = paths_dup(d->paths)))
			return -1;
	}
	/* off until `prometheus: {url: ...}` turns it on */
	cfg->src[PM_CS_PROMETHEUS].enabled = false;
	cfg->prom.step = 15;
	cfg->prom.lookback = 3600;
	cfg->prom.max_points = 1000;
	if (!(cfg->prom.node_labels = paths_dup(prom_labels)))
		return -1;
	return 0;
}

static void webhooks_free(struct pm_config *cfg)
{
	for (size_t i = 0; i < cfg->nwebhooks; i++) {
		free(cfg->webhooks[i].url);
		free(cfg->webhooks[i].bearer_token_file);
		free(cfg->webhooks[i].ca_file);
	}
	free(cfg->webhooks);
	cfg->webhooks = NULL;
	cfg->nwebhooks = 0;
}

void pm_config_free(struct pm_config *cfg)
{
	if (!cfg)
		return;
	free(cfg->path);
	free(cfg->store);
	free(cfg->spool);
	free(cfg->rules);
	free(cfg->operators_group);
	free(cfg->comment_field);
	free(cfg->service_user);
	free(cfg->store_marker);
	free(cfg->sacct);
	free(cfg->sacctmgr);
	free(cfg->ledger);
	free(cfg->ledger_head);
	free(cfg->metrics_textfile);
	for (int i = 0; i < PM_CS__COUNT; i++) {
		free(cfg->src[i].command);
		paths_free(cfg->src[i].paths);
	}
	free(cfg->prom.url);
	paths_free(cfg->prom.queries);
	paths_free(cfg->prom.node_labels);
	free(cfg->prom.bearer_token_file);
	free(cfg->prom.ca_file);
	webhooks_free(cfg);
	memset(cfg, 0, sizeof(*cfg));
}

/* ---- durations, sizes, expansion ---- */

/* One decimal number at *P (digits, optional fraction); advances *P.  0 or -1. */
static int number(const char **p, double *v)
{
	const char *s = *p;
	double x = 0, scale = 0.1;

	if (!isdigit((unsigned char)*s))
		return -1;
	while (isdigit((unsigned char)*s))
		x = x * 10 + (*s++ - '0');
	if (*s == '.') {
		if (!isdigit((unsigned char)*++s))
			return -1;
		while (isdigit((unsigned char)*s)) {
			x += (*s++ - '0') * scale;
			scale /= 10;
		}
	}
	*p = s;
	*v = x;
	return 0;
}

struct unit {
	const char *name;
	double factor;
};

static const struct unit time_units[] = {
	{"ms", 0.001}, {"s", 1}, {"m", 60}, {"h", 3600}, {"d", 86400}, {"w", 604800},
};

int pm_parse_duration(const char *s, double *out)
{
	double total = 0;
	const char *p = s;

	if (!s || !*s)
		goto bad;
	while (*p) {
		const char *group = p;
		double v;
		size_t best = 0, u;
		const struct unit *unit = NULL;

		if (number(&p, &v) < 0)
			goto bad;
		for (u = 0; u < sizeof(time_units) / sizeof(time_units[0]); u++) {
			size_t l = strlen(time_units[u].name);
			if (!strncmp(p, time_units[u].name, l) && l > best &&
			    !isalpha((unsigned char)p[l])) {
				best = l;
				unit = &time_units[u];
			}
		}
		if (!unit) {
			/* bare digits are seconds, and only on their own */
			if (*p || group != s)
				goto bad;
			total += v;
			break;
		}
		total += v * unit->factor;
		p += best;
	}
	if (!isfinite(total) || total > DURATION_MAX)
		goto bad;
	*out = total;
	return 0;
bad:
	errno = EINVAL;
	return -1;
}

static const struct unit size_units[] = {
	{"", 1},
	{"B", 1},
	{"K", 1024.0},
	{"KiB", 1024.0},
	{"k", 1000.0},
	{"kB", 1000.0},
	{"KB", 1000.0},
	{"M", 1048576.0},
	{"MiB", 1048576.0},
	{"MB", 1e6},
	{"G", 1073741824.0},
	{"GiB", 1073741824.0},
	{"GB", 1e9},
	{"T", 1099511627776.0},
	{"TiB", 1099511627776.0},
	{"TB", 1e12},
};

int pm_parse_size(const char *s, uint64_t *out)
{
	const char *p = s;
	double v;

	if (!s || number(&p, &v) < 0)
		goto bad;
	while (*p == ' ')
		p++;
	for (size_t u = 0; u < sizeof(size_units) / sizeof(size_units[0]); u++) {
		if (strcmp(p, size_units[u].name))
			continue;
		v *= size_units[u].factor;
		if (v >= 9.2e18 || v != floor(v))
			goto bad;
		*out = (uint64_t)v;
		return 0;
	}
bad:
	errno = EINVAL;
	return -1;
}

char *pm_expand(const char *t, const char *node, const char *job)
{
	size_t n = 0, cap;
	char *out;

	if (!t) {
		errno = EINVAL;
		return NULL;
	}
	node = node ? node : "";
	job = job ? job : "";
	cap = strlen(t) + 1;
	for (const char *p = t; *p; p++)
		if (*p == '%')
			cap += strlen(node) + strlen(job);
	if (!(out = malloc(cap)))
		return NULL;
	for (const char *p = t; *p; p++) {
		const char *v = NULL;

		if (*p == '%' && p[1] == 'n')
			v = node;
		else if (*p == '%' && p[1] == 'j')
			v = job;
		else if (*p == '%' && p[1] == '%')
			v = "%";
		if (!v) {
			out[n++] = *p;
			continue;
		}
		memcpy(out + n, v, strlen(v));
		n += strlen(v);
		p++;
	}
	out[n] = 0;
	return out;
}

/* ---- the YAML file ---- */

struct ctx {
	const char *file;
	yaml_document_t *doc;
	struct pm_config *cfg;
	char *err;
	size_t errlen;
};

static int fail(struct ctx *c, const yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct ctx *c, const yaml_node_t *n, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(c->err, c->errlen, "%s:%lu: %s", c->file,
		 n ? (unsigned long)n->start_mark.line + 1 : 1UL, msg);
	errno = EINVAL;
	return -1;
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static bool is_null(const yaml_node_t *n)
{
	const char *v = scalar(n);

	return v && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (!*v || !strcmp(v, "~") || !strcmp(v, "null"));
}

enum ktype { K_STR, K_CMD, K_PATH, K_DURATION, K_DURATION0, K_CHOICE, K_BOOL, K_JOBS };

struct key {
	const char *name;
	enum ktype type;
	size_t off;
	const char *choices; /* K_CHOICE: "|a|b|" */
};

#define STR(f) offsetof(struct pm_config, f)
static const struct key top_keys[] = {
	{"store", K_PATH, STR(store), NULL},
	{"spool", K_PATH, STR(spool), NULL},
	{"rules", K_PATH, STR(rules), NULL},
	{"retain", K_DURATION, STR(retain), NULL},
	{"deadline", K_DURATION, STR(deadline), NULL},
	{"operators_group", K_STR, STR(operators_group), NULL},
	{"comment_field", K_CHOICE, STR(comment_field), "|Comment|AdminComment|"},
	{"admin_comment", K_BOOL, STR(admin_comment), NULL},
	{"carry_scans", K_BOOL, STR(carry_scans), NULL},
	{"comment_recheck", K_DURATION0, STR(comment_recheck), NULL},
	{"merge_deadline", K_DURATION, STR(merge_deadline), NULL},
	{"service_user", K_STR, STR(service_user), NULL},
	{"store_marker", K_STR, STR(store_marker), NULL},
	{"sacct", K_CMD, STR(sacct), NULL},
	{"sacctmgr", K_CMD, STR(sacctmgr), NULL},
	{"ledger", K_PATH, STR(ledger), NULL},
	{"ledger_head", K_PATH, STR(ledger_head), NULL},
	{"metrics_textfile", K_PATH, STR(metrics_textfile), NULL},
	{"repair_repeat_jobs", K_JOBS, STR(repeat_jobs), NULL},
	{"repair_repeat_window", K_DURATION, STR(repeat_window), NULL},
};
#undef STR

static int parse_bool(const char *s, bool *out);

static int set_key(struct ctx *c, const struct key *k, const yaml_node_t *v)
{
	void *field = (char *)c->cfg + k->off;
	const char *s = scalar(v);
	char pat[80], *end;
	double d;

	if (!s)
		return fail(c, v, "%s: expected a single value", k->name);
	switch (k->type) {
	case K_DURATION:
		if (pm_parse_duration(s, &d) < 0 || d <= 0)
			return fail(c, v, "%s: '%s' is not a duration (e.g. 30s, 250ms, 14d)",
				    k->name, s);
		*(double *)field = d;
		return 0;
	case K_DURATION0: /* 0 or off: the feature is off */
		if (!strcmp(s, "off") || !strcmp(s, "0"))
			d = 0;
		else if (pm_parse_duration(s, &d) < 0 || d < 0)
			return fail(c, v, "%s: '%s' is not a duration (e.g. 7d, 12h) or off",
				    k->name, s);
		*(double *)field = d;
		return 0;
	case K_JOBS: /* distinct jobs, this one included: 2 or more */
		d = strtod(s, &end);
		if (end == s || *end || d < 2 || d > 1000 || d != (double)(unsigned)d)
			return fail(c, v, "%s: '%s' is not a number of jobs from 2 to 1000",
				    k->name, s);
		*(unsigned *)field = (unsigned)d;
		return 0;
	case K_BOOL:
		if (parse_bool(s, (bool *)field) < 0)
			return fail(c, v, "%s: '%s' is not true or false", k->name, s);
		return 0;
	case K_PATH:
		if (is_null(v))
			return pmu_strset(field, NULL);
		if (s[0] != '/')
			return fail(c, v, "%s: '%s' is not an absolute path", k->name, s);
		break;
	case K_CHOICE:
		snprintf(pat, sizeof(pat), "|%s|", s);
		if (!*s || strchr(s, '|') || !strstr(k->choices, pat))
			return fail(c, v, "%s: '%s' is not one of %s", k->name, s, k->choices);
		break;
	case K_STR:
		if (!*s)
			return fail(c, v, "%s: empty value", k->name);
		break;
	case K_CMD:
		if (!*s)
			return fail(c, v, "%s: empty value", k->name);
		if (strlen(s) > PM_CMD_MAX)
			return fail(c, v, "%s: a command of %zu bytes (at most %d)", k->name,
				    strlen(s), PM_CMD_MAX);
		break;
	}
	return pmu_strset(field, s);
}

static int parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = {"true", "yes", "on", "True", "TRUE", "Yes", "On"};
	static const char *const no[] = {"false", "no", "off", "False", "FALSE", "No", "Off"};

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcmp(s, yes[i]) || !strcmp(s, no[i])) {
			*out = !strcmp(s, yes[i]);
			return 0;
		}
	}
	return -1;
}

static int source_paths(struct ctx *c, struct pm_source_conf *sc, const char *key,
			const yaml_node_t *v)
{
	size_t n = 0;
	char **p;

	if (v->type == YAML_SCALAR_NODE) {
		const char *s = scalar(v);
		if (!*s || s[0] != '/')
			return fail(c, v, "%s: '%s' is not an absolute path", key, s);
		p = calloc(2, sizeof(*p));
		if (!p || !(p[0] = strdup(s))) {
			free(p);
			return -1;
		}
	} else if (v->type == YAML_SEQUENCE_NODE) {
		yaml_node_item_t *it;

		n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
		if (!n)
			return fail(c, v, "%s: empty list", key);
		if (!(p = calloc(n + 1, sizeof(*p))))
			return -1;
		n = 0;
		for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
			yaml_node_t *e = yaml_document_get_node(c->doc, *it);
			const char *s = scalar(e);

			if (!s || s[0] != '/') {
				paths_free(p);
				return fail(c, e, "%s: expected absolute paths", key);
			}
			if (!(p[n++] = strdup(s))) {
				paths_free(p);
				return -1;
			}
		}
	} else {
		return fail(c, v, "%s: expected a path or a list of paths", key);
	}
	paths_free(sc->paths);
	sc->paths = p;
	return 0;
}

static int source_entry(struct ctx *c, enum pm_csource id, const yaml_node_t *m)
{
	struct pm_source_conf *sc = &c->cfg->src[id];
	const char *name = pm_csource_name(id);
	bool has_cmd = false, has_path = false;
	yaml_node_pair_t *pr;

	if (is_null(m))
		return 0;
	if (m->type != YAML_MAPPING_NODE)
		return fail(c, m, "sources.%s: expected a mapping ({cap: ..., timeout: ...})",
			    name);
	for (pr = m->data.mapping.pairs.start; pr < m->data.mapping.pairs.top; pr++) {
		yaml_node_t *kn = yaml_document_get_node(c->doc, pr->key);
		yaml_node_t *vn = yaml_document_get_node(c->doc, pr->value);
		const char *k = scalar(kn), *s = scalar(vn);

		if (!k)
			return fail(c, kn, "sources.%s: keys must be plain words", name);
		for (yaml_node_pair_t *q = m->data.mapping.pairs.start; q < pr; q++)
			if (!strcmp(scalar(yaml_document_get_node(c->doc, q->key)) ?: "", k))
				return fail(c, kn, "sources.%s.%s: given twice", name, k);
		if (!strcmp(k, "command")) {
			if (!s || !*s)
				return fail(c, vn, "sources.%s.command: expected a command line",
					    name);
			if (pmu_strset(&sc->command, s) < 0)
				return -1;
			has_cmd = true;
		} else if (!strcmp(k, "path") || !strcmp(k, "paths")) {
			if (has_path)
				return fail(c, kn, "sources.%s: give path or paths, not both",
					    name);
			if (source_paths(c, sc, k, vn) < 0)
				return -1;
			has_path = true;
		} else if (!strcmp(k, "cap")) {
			if (!s || pm_parse_size(s, &sc->cap) < 0 || !sc->cap ||
			    sc->cap > SIZE_MAX_CAP)
				return fail(
					c, vn,
					"sources.%s.cap: '%s' is not a size of 1 B to 1 GiB (e.g. 8MiB, 64KiB)",
					name, s ? s : "");
		} else if (!strcmp(k, "timeout")) {
			if (!s || pm_parse_duration(s, &sc->timeout) < 0 || sc->timeout <= 0 ||
			    sc->timeout > 3600)
				return fail(
					c, vn,
					"sources.%s.timeout: '%s' is not a duration of at most 1h (e.g. 5s, 250ms)",
					name, s ? s : "");
		} else if (!strcmp(k, "enabled")) {
			if (!s || parse_bool(s, &sc->enabled) < 0)
				return fail(c, vn, "sources.%s.enabled: expected true or false",
					    name);
		} else {
			return fail(
				c, kn,
				"sources.%s: unknown key '%s' (command, path, paths, cap, timeout, enabled)",
				name, k);
		}
	}
	if (has_cmd && has_path)
		return fail(c, m, "sources.%s: command and path exclude each other", name);
	if ((has_cmd || has_path) &&
	    (id == PM_CS_JOB_OUTPUT || id == PM_CS_USER_LOGS || id == PM_CS_RANK_MAP))
		return fail(c, m,
			    "sources.%s: takes no command or path (it reads the job's own files)",
			    name);
	/* an explicit path overrides the default command, and the other way round */
	if (has_path) {
		free(sc->command);
		sc->command = NULL;
	}
	if (has_cmd) {
		paths_free(sc->paths);
		sc->paths = NULL;
	}
	return 0;
}

static int sources(struct ctx *c, const yaml_node_t *m)
{
	yaml_node_pair_t *pr;

	if (is_null(m))
		return 0;
	if (m->type != YAML_MAPPING_NODE)
		return fail(c, m, "sources: expected a mapping of source names");
	for (pr = m->data.mapping.pairs.start; pr < m->data.mapping.pairs.top; pr++) {
		yaml_node_t *kn = yaml_document_get_node(c->doc, pr->key);
		const char *k = scalar(kn);
		int id;

		for (id = 0; id < PM_CS__COUNT && k; id++)
			if (!strcmp(k, pm_csource_name(id)))
				break;
		if (id == PM_CS_PROMETHEUS)
			return fail(
				c, kn,
				"sources.prometheus: configured at the top level (prometheus: {url: ...})");
		if (!k || id == PM_CS__COUNT)
			return fail(
				c, kn,
				"sources: unknown source '%s' (job_output, user_logs, rank_map, kernel_log, gpu_state, gpu_csv, host_state, slurmd_log)",
				k ? k : "?");
		for (yaml_node_pair_t *q = m->data.mapping.pairs.start; q < pr; q++)
			if (!strcmp(scalar(yaml_document_get_node(c->doc, q->key)) ?: "", k))
				return fail(c, kn, "sources.%s: given twice", k);
		if (source_entry(c, id, yaml_document_get_node(c->doc, pr->value)) < 0)
			return -1;
	}
	return 0;
}

/* ---- prometheus: and webhooks: (epilog/prom.h, store/webhook.h) ---- */

static int http_url(struct ctx *c, const yaml_node_t *v, const char *key, char **dst)
{
	const char *s = scalar(v);
	size_t scheme = s && !strncmp(s, "http://", 7)	? 7 :
			s && !strncmp(s, "https://", 8) ? 8 :
							  0;

	if (!scheme || !s[scheme] || s[scheme] == '/' || strpbrk(s, " \t\r\n"))
		return fail(c, v, "%s: expected an http:// or https:// URL", key);
	return pmu_strset(dst, s);
}

static int abs_path(struct ctx *c, const yaml_node_t *v, const char *key, char **dst)
{
	const char *s = scalar(v);

	if (!s || s[0] != '/')
		return fail(c, v, "%s: expected an absolute path", key);
	return pmu_strset(dst, s);
}

static int bounded_duration(struct ctx *c, const yaml_node_t *v, const char *key, double max,
			    double *dst)
{
	const char *s = scalar(v);

	if (!s || pm_parse_duration(s, dst) < 0 || *dst <= 0 || *dst > max)
		return fail(c, v, "%s: '%s' is not a duration of at most %.0f s (e.g. 5s, 250ms)",
			    key, s ? s : "", max);
	return 0;
}

static int bounded_count(struct ctx *c, const yaml_node_t *v, const char *key, unsigned max,
			 unsigned *dst)
{
	const char *s = scalar(v);
	char *end;
	unsigned long n;

	if (!s || !isdigit((unsigned char)s[0]))
		return fail(c, v, "%s: expected a number from 0 to %u", key, max);
	n = strtoul(s, &end, 10);
	if (*end || n > max)
		return fail(c, v, "%s: expected a number from 0 to %u", key, max);
	*dst = (unsigned)n;
	return 0;
}

/* A string or a list of non-empty strings into a NULL-terminated array. */
static int str_list(struct ctx *c, const yaml_node_t *v, const char *key, char ***dst)
{
	const char *one = scalar(v);
	size_t n = 0;
	char **p;

	if (one) {
		if (!*one)
			return fail(c, v, "%s: empty value", key);
		if (!(p = calloc(2, sizeof(*p))) || !(p[0] = strdup(one))) {
			free(p);
			return -1;
		}
	} else if (v->type == YAML_SEQUENCE_NODE) {
		size_t want = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);

		if (!want)
			return fail(c, v, "%s: empty list", key);
		if (!(p = calloc(want + 1, sizeof(*p))))
			return -1;
		for (yaml_node_item_t *it = v->data.sequence.items.start;
		     it < v->data.sequence.items.top; it++) {
			const yaml_node_t *e = yaml_document_get_node(c->doc, *it);
			const char *s = scalar(e);

			if (!s || !*s) {
				paths_free(p);
				return fail(c, e, "%s: expected a list of words", key);
			}
			if (!(p[n++] = strdup(s))) {
				paths_free(p);
				return -1;
			}
		}
	} else {
		return fail(c, v, "%s: expected a value or a list", key);
	}
	paths_free(*dst);
	*dst = p;
	return 0;
}

static int bool_key(struct ctx *c, const yaml_node_t *v, const char *key, bool *dst)
{
	const char *s = scalar(v);

	if (!s || parse_bool(s, dst) < 0)
		return fail(c, v, "%s: expected true or false", key);
	return 0;
}

/* The keys of mapping M: checked for plain words and duplicates.  0 or -1. */
static int map_keys(struct ctx *c, const yaml_node_t *m, const char *what)
{
	for (yaml_node_pair_t *pr = m->data.mapping.pairs.start; pr < m->data.mapping.pairs.top;
	     pr++) {
		yaml_node_t *kn = yaml_document_get_node(c->doc, pr->key);
		const char *k = scalar(kn);

		if (!k)
			return fail(c, kn, "%s: keys must be plain words", what);
		for (yaml_node_pair_t *q = m->data.mapping.pairs.start; q < pr; q++)
			if (!strcmp(scalar(yaml_document_get_node(c->doc, q->key)) ?: "", k))
				return fail(c, kn, "%s.%s: given twice", what, k);
	}
	return 0;
}

static int prometheus(struct ctx *c, const yaml_node_t *m)
{
	struct pm_prom_conf *p = &c->cfg->prom;
	struct pm_source_conf *sc = &c->cfg->src[PM_CS_PROMETHEUS];
	bool enabled = true;
	unsigned pts;

	if (is_null(m))
		return 0;
	if (m->type != YAML_MAPPING_NODE)
		return fail(c, m, "prometheus: expected a mapping ({url: ..., timeout: ...})");
	if (map_keys(c, m, "prometheus") < 0)
		return -1;
	for (yaml_node_pair_t *pr = m->data.mapping.pairs.start; pr < m->data.mapping.pairs.top;
	     pr++) {
		const char *k = scalar(yaml_document_get_node(c->doc, pr->key));
		yaml_node_t *kn = yaml_document_get_node(c->doc, pr->key);
		yaml_node_t *vn = yaml_document_get_node(c->doc, pr->value);
		const char *s = scalar(vn);
		int rc;

		if (!strcmp(k, "url"))
			rc = http_url(c, vn, "prometheus.url", &p->url);
		else if (!strcmp(k, "timeout"))
			rc = bounded_duration(c, vn, "prometheus.timeout", 3600, &sc->timeout);
		else if (!strcmp(k, "cap"))
			rc = !s || pm_parse_size(s, &sc->cap) < 0 || sc->cap < 1024 ||
					     sc->cap > SIZE_MAX_CAP ?
				     fail(c, vn,
					  "prometheus.cap: '%s' is not a size of 1 KiB to 1 GiB",
					  s ? s : "") :
				     0;
		else if (!strcmp(k, "queries"))
			rc = str_list(c, vn, "prometheus.queries", &p->queries);
		else if (!strcmp(k, "node_label"))
			rc = str_list(c, vn, "prometheus.node_label", &p->node_labels);
		else if (!strcmp(k, "bearer_token_file"))
			rc = abs_path(c, vn, "prometheus.bearer_token_file", &p->bearer_token_file);
		else if (!strcmp(k, "ca_file"))
			rc = abs_path(c, vn, "prometheus.ca_file", &p->ca_file);
		else if (!strcmp(k, "step"))
			rc = bounded_duration(c, vn, "prometheus.step", 3600, &p->step);
		else if (!strcmp(k, "lookback"))
			rc = bounded_duration(c, vn, "prometheus.lookback", 7 * 86400,
					      &p->lookback);
		else if (!strcmp(k, "max_points")) {
			rc = bounded_count(c, vn, "prometheus.max_points", 11000, &pts);
			if (rc == 0 && pts < 2)
				rc = fail(c, vn, "prometheus.max_points: at least 2");
			p->max_points = pts;
		} else if (!strcmp(k, "enabled"))
			rc = bool_key(c, vn, "prometheus.enabled", &enabled);
		else
			rc = fail(
				c, kn,
				"prometheus: unknown key '%s' (url, timeout, cap, queries, node_label, bearer_token_file, ca_file, step, lookback, max_points, enabled)",
				k);
		if (rc < 0)
			return -1;
	}
	for (size_t i = 0; p->node_labels && p->node_labels[i]; i++) {
		const char *l = p->node_labels[i];

		if (!isalpha((unsigned char)l[0]) && l[0] != '_')
			return fail(c, m, "prometheus.node_label: '%s' is not a label name", l);
		for (; *l; l++)
			if (!isalnum((unsigned char)*l) && *l != '_')
				return fail(c, m, "prometheus.node_label: '%s' is not a label name",
					    p->node_labels[i]);
	}
	if (!p->url && enabled)
		return fail(c, m, "prometheus: needs a url (or enabled: false)");
	sc->enabled = enabled && p->url;
	return 0;
}

static int webhook(struct ctx *c, const yaml_node_t *m, struct pm_webhook_conf *w)
{
	w->timeout = 5;
	w->retries = 2;
	if (m->type != YAML_MAPPING_NODE)
		return fail(c, m, "webhooks: expected a list of mappings ({url: ...})");
	if (map_keys(c, m, "webhooks") < 0)
		return -1;
	for (yaml_node_pair_t *pr = m->data.mapping.pairs.start; pr < m->data.mapping.pairs.top;
	     pr++) {
		yaml_node_t *kn = yaml_document_get_node(c->doc, pr->key);
		yaml_node_t *vn = yaml_document_get_node(c->doc, pr->value);
		const char *k = scalar(kn);
		int rc;

		if (!strcmp(k, "url"))
			rc = http_url(c, vn, "webhooks.url", &w->url);
		else if (!strcmp(k, "timeout"))
			rc = bounded_duration(c, vn, "webhooks.timeout", 600, &w->timeout);
		else if (!strcmp(k, "retries"))
			rc = bounded_count(c, vn, "webhooks.retries", 10, &w->retries);
		else if (!strcmp(k, "bearer_token_file"))
			rc = abs_path(c, vn, "webhooks.bearer_token_file", &w->bearer_token_file);
		else if (!strcmp(k, "ca_file"))
			rc = abs_path(c, vn, "webhooks.ca_file", &w->ca_file);
		else if (!strcmp(k, "include_manifest"))
			rc = bool_key(c, vn, "webhooks.include_manifest", &w->include_manifest);
		else
			rc = fail(
				c, kn,
				"webhooks: unknown key '%s' (url, timeout, retries, bearer_token_file, ca_file, include_manifest)",
				k);
		if (rc < 0)
			return -1;
	}
	if (!w->url)
		return fail(c, m, "webhooks: an entry without a url");
	return 0;
}

static int webhooks(struct ctx *c, const yaml_node_t *v)
{
	struct pm_config *cfg = c->cfg;
	size_t n;

	if (is_null(v))
		return 0;
	if (v->type != YAML_SEQUENCE_NODE)
		return fail(c, v, "webhooks: expected a list of mappings ({url: ...})");
	n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
	if (n > 16)
		return fail(c, v, "webhooks: at most 16");
	webhooks_free(cfg);
	if (n && !(cfg->webhooks = calloc(n, sizeof(*cfg->webhooks))))
		return -1;
	for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	     it++) {
		/* counted first, so that pm_config_free frees a half-parsed entry */
		cfg->nwebhooks++;
		if (webhook(c, yaml_document_get_node(c->doc, *it),
			    &cfg->webhooks[cfg->nwebhooks - 1]) < 0)
			return -1;
	}
	return 0;
}

static int top(struct ctx *c, const yaml_node_t *root)
{
	yaml_node_pair_t *pr;

	if (!root || is_null(root))
		return 0;
	if (root->type != YAML_MAPPING_NODE)
		return fail(c, root,
			    "expected a mapping of settings (store:, deadline:, sources:, ...)");
	for (pr = root->data.mapping.pairs.start; pr < root->data.mapping.pairs.top; pr++) {
		yaml_node_t *kn = yaml_document_get_node(c->doc, pr->key);
		yaml_node_t *vn = yaml_document_get_node(c->doc, pr->value);
		const char *k = scalar(kn);
		size_t i;

		if (!k)
			return fail(c, kn, "keys must be plain words");
		for (yaml_node_pair_t *q = root->data.mapping.pairs.start; q < pr; q++)
			if (!strcmp(scalar(yaml_document_get_node(c->doc, q->key)) ?: "", k))
				return fail(c, kn, "%s: given twice", k);
		if (!strcmp(k, "sources")) {
			if (sources(c, vn) < 0)
				return -1;
			continue;
		}
		if (!strcmp(k, "prometheus") || !strcmp(k, "webhooks")) {
			if ((k[0] == 'p' ? prometheus(c, vn) : webhooks(c, vn)) < 0)
				return -1;
			continue;
		}
		for (i = 0; i < sizeof(top_keys) / sizeof(top_keys[0]); i++)
			if (!strcmp(k, top_keys[i].name))
				break;
		if (i == sizeof(top_keys) / sizeof(top_keys[0]))
			return fail(c, kn, "unknown key '%s'", k);
		if (set_key(c, &top_keys[i], vn) < 0)
			return -1;
	}
	if (c->cfg->deadline > 3600)
		return fail(c, root, "deadline: at most 1h");
	return 0;
}

int pm_config_load(const char *file, struct pm_config *cfg, char *err, size_t errlen)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	struct ctx c = {.file = file, .doc = &doc, .cfg = cfg, .err = err, .errlen = errlen};
	FILE *f;
	int rc = -1, e;

	if (defaults(cfg) < 0) {
		e = errno;
		pm_config_free(cfg);
		snprintf(err, errlen, "out of memory");
		errno = e;
		return -1;
	}
	if (!file)
		return 0;
	if (!(f = fopen(file, "re"))) {
		e = errno;
		snprintf(err, errlen, "%s: %s", file, strerror(e));
		pm_config_free(cfg);
		errno = e;
		return -1;
	}
	if (!yaml_parser_initialize(&parser)) {
		fclose(f);
		pm_config_free(cfg);
		errno = ENOMEM;
		return -1;
	}
	yaml_parser_set_input_file(&parser, f);
	if (!yaml_parser_load(&parser, &doc)) {
		snprintf(err, errlen, "%s:%lu: %s%s%s", file,
			 (unsigned long)parser.problem_mark.line + 1,
			 parser.problem ? parser.problem : "malformed YAML",
			 parser.context ? " " : "", parser.context ? parser.context : "");
		errno = EINVAL;
		goto out_parser;
	}
	rc = top(&c, yaml_document_get_root_node(&doc));
	if (rc == 0 && (rc = pmu_strset(&cfg->path, file)) < 0)
		snprintf(err, errlen, "out of memory");
	yaml_document_delete(&doc);
out_parser:
	e = errno;
	yaml_parser_delete(&parser);
	fclose(f);
	if (rc < 0) {
		pm_config_free(cfg);
		errno = e;
	}
	return rc;
}
