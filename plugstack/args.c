/*
 * args.c - the plugstack.conf arguments, parsed strictly: an unknown key, a value that does
 * not parse, an empty value or a key given twice is an error that names the argument.
 * Also the pure helpers for user-given paths.  No Slurm, no logging.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmargs.h"
#include "pmutil.h"

enum key {
	K_SPOOL,
	K_STORE,
	K_RETAIN,
	K_CONFIG,
	K_COLLECTOR,
	K_EXTRAS,
	K_MAX_RECORDS,
	K_TIMEOUT,
	K_COUNT
};

static int spool_arg(struct pm_args *a, const char *v, char *err, size_t errlen);
static int store_arg(struct pm_args *a, const char *v, char *err, size_t errlen);
static int retain_arg(struct pm_args *a, const char *v, char *err, size_t errlen);
static int config_arg(struct pm_args *a, const char *v, char *err, size_t errlen);
static int collector_arg(struct pm_args *a, const char *v, char *err, size_t errlen);
static int extras_arg(struct pm_args *a, const char *v, char *err, size_t errlen);
static int max_records_arg(struct pm_args *a, const char *v, char *err, size_t errlen);
static int timeout_arg(struct pm_args *a, const char *v, char *err, size_t errlen);

static const struct {
	const char *name;
	int (*parse)(struct pm_args *a, const char *v, char *err, size_t errlen);
} keys[K_COUNT] = {
	[K_SPOOL]	= { "spool", spool_arg },
	[K_STORE]	= { "store", store_arg },
	[K_RETAIN]	= { "retain", retain_arg },
	[K_CONFIG]	= { "config", config_arg },
	[K_COLLECTOR]	= { "collector", collector_arg },
	[K_EXTRAS]	= { "extras", extras_arg },
	[K_MAX_RECORDS]	= { "max_records", max_records_arg },
	[K_TIMEOUT]	= { "timeout", timeout_arg },
};

static const struct {
	const char *name;
	unsigned bit;
} extras[] = {
	{ "torch_error_file", PM_EXTRA_TORCH_ERROR_FILE },
	{ "nccl_dump_on_timeout", PM_EXTRA_NCCL_DUMP },
	{ "nccl_debug_warn", PM_EXTRA_NCCL_DEBUG },
};

/*
 * An absolute path without control characters, "." or ".." components, or empty
 * components; one trailing slash is dropped.  Copied into DST (PM_PATH_MAX).
 */
static int path_value(char *dst, const char *v, const char **why)
{
	size_t n = strlen(v), i;
	const char *c;

	while (n > 1 && v[n - 1] == '/')
		n--;
	if (v[0] != '/')
		return *why = "not an absolute path", -1;
	if (n >= PM_PATH_MAX - 64)
		return *why = "too long", -1;
	for (i = 0; i < n; i++)
		if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f)
			return *why = "control character in path", -1;
	for (c = v; c < v + n; c++) {
		const char *e;
		size_t cl;

		if (*c != '/')
			continue;
		for (e = c + 1; e < v + n && *e != '/'; e++)
			;
		cl = (size_t)(e - c - 1);
		if ((cl == 0 && e < v + n) || (cl == 1 && c[1] == '.') ||
		    (cl == 2 && c[1] == '.' && c[2] == '.'))
			return *why = "empty, '.' or '..' component", -1;
	}
	memcpy(dst, v, n);
	dst[n] = '\0';
	return 0;
}

static int path_arg(char *dst, const char *key, const char *v, char *err, size_t errlen)
{
	const char *why = NULL;

	if (path_value(dst, v, &why) < 0)
		return pmu_fail(err, errlen, EINVAL, "argument '%s=%s': %s", key, v, why);
	return 0;
}

static int spool_arg(struct pm_args *a, const char *v, char *err, size_t errlen)
{
	if (path_arg(a->spool, "spool", v, err, errlen) < 0)
		return -1;
	if (strcmp(a->spool, "/") == 0)
		return pmu_fail(err, errlen, EINVAL,
				"argument 'spool=%s': the root folder cannot be the spool", v);
	return 0;
}

static int store_arg(struct pm_args *a, const char *v, char *err, size_t errlen)
{
	return path_arg(a->store, "store", v, err, errlen);
}

static int config_arg(struct pm_args *a, const char *v, char *err, size_t errlen)
{
	return path_arg(a->config, "config", v, err, errlen);
}

static int collector_arg(struct pm_args *a, const char *v, char *err, size_t errlen)
{
	return path_arg(a->collector, "collector", v, err, errlen);
}

int pm_duration_parse(const char *s, unsigned long long *ms)
{
	static const struct {
		const char *unit;
		unsigned long long ms;
	} units[] = {
		{ "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 },
		{ "d", 86400000 }, { "w", 604800000 },
	};
	unsigned long long total = 0, n, mul;
	size_t i, ul;
	const char *p = s;

	if (!*p)
		return -1;
	while (*p) {
		if (*p < '0' || *p > '9')
			return -1;
		for (n = 0; *p >= '0' && *p <= '9'; p++) {
			if (n > (ULLONG_MAX - 9) / 10)
				return -1;
			n = n * 10 + (unsigned long long)(*p - '0');
		}
		mul = 0;
		ul = 0;
		if (!*p && p == s + strspn(s, "0123456789")) {
			mul = 1000;	/* bare digits: seconds */
		} else {
			/* the longest unit that matches ("ms" before "m") */
			for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
				size_t l = strlen(units[i].unit);

				if (l > ul && strncmp(p, units[i].unit, l) == 0 &&
				    !(p[l] >= 'a' && p[l] <= 'z')) {
					mul = units[i].ms;
					ul = l;
				}
			}
			if (!mul)
				return -1;
		}
		if (n > ULLONG_MAX / mul || total > ULLONG_MAX - n * mul)
			return -1;
		total += n * mul;
		p += ul;
	}
	*ms = total;
	return 0;
}

static int retain_arg(struct pm_args *a, const char *v, char *err, size_t errlen)
{
	unsigned long long ms;

	if (pm_duration_parse(v, &ms) < 0 || ms < 1000 || ms > 3650ULL * 86400000)
		return pmu_fail(err, errlen, EINVAL,
				"argument 'retain=%s': not a duration from 1s to 3650d (e.g. 14d, 36h)", v);
	a->retain_ms = ms;
	return 0;
}

static int timeout_arg(struct pm_args *a, const char *v, char *err, size_t errlen)
{
	unsigned long long ms;

	if (pm_duration_parse(v, &ms) < 0 || ms < 100 || ms > 3600000)
		return pmu_fail(err, errlen, EINVAL,
				"argument 'timeout=%s': not a duration from 100ms to 1h (e.g. 60s, 2m)", v);
	a->timeout_ms = ms;
	return 0;
}

static int extras_arg(struct pm_args *a, const char *v, char *err, size_t errlen)
{
	const char *p = v, *e;
	unsigned bits = 0;
	size_t i, n;

	if (strcmp(v, "none") == 0) {
		a->extras = 0;
		return 0;
	}
	for (;;) {
		e = strchr(p, ',');
		n = e ? (size_t)(e - p) : strlen(p);
		for (i = 0; i < sizeof(extras) / sizeof(extras[0]); i++)
			if (strlen(extras[i].name) == n && strncmp(p, extras[i].name, n) == 0)
				break;
		if (i == sizeof(extras) / sizeof(extras[0]))
			return pmu_fail(err, errlen, EINVAL,
					"argument 'extras=%s': unknown extra '%.*s' (known: none, torch_error_file, nccl_dump_on_timeout, nccl_debug_warn)",
					v, (int)(n > 64 ? 64 : n), p);
		bits |= extras[i].bit;
		if (!e)
			break;
		p = e + 1;
	}
	a->extras = bits;
	return 0;
}

static int max_records_arg(struct pm_args *a, const char *v, char *err, size_t errlen)
{
	unsigned long n = 0;
	const char *p;

	for (p = v; *p >= '0' && *p <= '9' && n <= 100000000UL; p++)
		n = n * 10 + (unsigned long)(*p - '0');
	if (*p || p == v || n < 1 || n > 100000000UL)
		return pmu_fail(err, errlen, EINVAL,
				"argument 'max_records=%s': not a number from 1 to 100000000", v);
	a->max_records = n;
	return 0;
}

static void defaults(struct pm_args *a)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->spool, sizeof(a->spool), "%s", PM_DEFAULT_SPOOL);
	snprintf(a->collector, sizeof(a->collector), "%s", PM_DEFAULT_COLLECTOR);
	a->retain_ms = PM_DEFAULT_RETAIN_MS;
	a->timeout_ms = PM_DEFAULT_TIMEOUT_MS;
	a->max_records = PM_DEFAULT_MAX_RECORDS;
}

int pm_args_parse(struct pm_args *a, int ac, char *const av[], char *err, size_t errlen)
{
	unsigned seen = 0;
	const char *eq;
	size_t kl;
	int i, k;

	defaults(a);
	if (err && errlen)
		err[0] = '\0';
	for (i = 0; i < ac; i++) {
		if (!av[i])
			return pmu_fail(err, errlen, EINVAL, "argument %d: missing", i + 1);
		eq = strchr(av[i], '=');
		if (!eq || eq == av[i])
			return pmu_fail(err, errlen, EINVAL, "argument '%.200s': expected key=value", av[i]);
		kl = (size_t)(eq - av[i]);
		for (k = 0; k < K_COUNT; k++)
			if (strlen(keys[k].name) == kl && strncmp(av[i], keys[k].name, kl) == 0)
				break;
		if (k == K_COUNT)
			return pmu_fail(err, errlen, EINVAL,
					"argument '%.200s': unknown key '%.*s' (known: spool, store, retain, config, collector, extras, max_records, timeout)",
					av[i], (int)(kl > 64 ? 64 : kl), av[i]);
		if (seen & (1u << k))
			return pmu_fail(err, errlen, EINVAL, "argument '%.200s': '%s' given twice", av[i],
					keys[k].name);
		seen |= 1u << k;
		if (!eq[1])
			return pmu_fail(err, errlen, EINVAL, "argument '%.200s': empty value", av[i]);
		if (strlen(eq + 1) >= PM_PATH_MAX)
			return pmu_fail(err, errlen, EINVAL, "argument '%.64s...': value too long", av[i]);
		if (keys[k].parse(a, eq + 1, err, errlen) < 0)
			return -1;
	}
	return 0;
}

int pm_logs_split(const char *v, char paths[][PM_PATH_MAX], int max, char *err, size_t errlen)
{
	const char *p = v, *e, *why = NULL;
	char one[PM_PATH_MAX];
	int n = 0;
	size_t l;

	if (!v || !*v)
		return pmu_fail(err, errlen, EINVAL, "empty list of log files");
	for (;;) {
		e = strchr(p, ',');
		l = e ? (size_t)(e - p) : strlen(p);
		if (l == 0)
			return pmu_fail(err, errlen, EINVAL, "empty path in '%.200s'", v);
		if (l >= sizeof(one) - 64)
			return pmu_fail(err, errlen, EINVAL, "path too long in '%.200s'", v);
		if (n == max)
			return pmu_fail(err, errlen, EINVAL, "more than %d log files", max);
		memcpy(one, p, l);
		one[l] = '\0';
		if (path_value(paths[n], one, &why) < 0)
			return pmu_fail(err, errlen, EINVAL, "'%.200s': %s", one, why);
		n++;
		if (!e)
			break;
		p = e + 1;
	}
	return n;
}

int pm_user_dir(char *buf, size_t len, const char *tmpdir, const char *job)
{
	const char *why = NULL;
	char t[PM_PATH_MAX];
	int n;

	if (!tmpdir || !*tmpdir || strlen(tmpdir) >= sizeof(t) || path_value(t, tmpdir, &why) < 0)
		snprintf(t, sizeof(t), "/tmp");
	n = snprintf(buf, len, "%s/postmortem.%s", strcmp(t, "/") == 0 ? "" : t, job);
	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* Parse digits at *P (at most 9); -1 when none.  *WIDTH: how many. */
static long digits(const char **p, int *width)
{
	const char *s = *p;
	long v = 0;

	while (**p >= '0' && **p <= '9' && *p - s < 9)
		v = v * 10 + (*(*p)++ - '0');
	*width = (int)(*p - s);
	return *width ? v : -1;
}

static int put_name(char *buf, size_t len, const char *pre, size_t pn, int width,
		    long num, const char *suf, size_t sn)
{
	int k;

	if (num < 0)
		k = snprintf(buf, len, "%.*s", (int)pn, pre);
	else
		k = snprintf(buf, len, "%.*s%0*ld%.*s", (int)pn, pre, width, num, (int)sn, suf);
	if (k <= 0 || (size_t)k >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int pm_hostlist_nth(const char *list, unsigned long n, char *buf, size_t len)
{
	const char *p = list, *start, *lb, *rb, *e, *q;
	unsigned long i = 0;
	long lo, hi;
	int w, w2;

	while (*p) {
		start = p;
		for (e = p; *e && *e != ',' && *e != '['; e++)
			;
		if (*e != '[') {			/* a plain name */
			if (e > start && i++ == n)
				return put_name(buf, len, start, (size_t)(e - start), 0, -1, NULL, 0);
			p = *e ? e + 1 : e;
			continue;
		}
		lb = e;
		rb = strchr(lb, ']');
		if (!rb)
			break;
		for (e = rb + 1; *e && *e != ','; e++)
			if (*e == '[' || *e == ']')
				goto bad;		/* several bracket groups: not supported */
		for (q = lb + 1; q < rb;) {
			if ((lo = digits(&q, &w)) < 0)
				goto bad;
			hi = lo;
			if (*q == '-') {
				q++;
				if ((hi = digits(&q, &w2)) < lo)
					goto bad;
			}
			if (*q == ',')
				q++;
			else if (q != rb)
				goto bad;
			if (n >= i && n - i <= (unsigned long)(hi - lo))
				return put_name(buf, len, start, (size_t)(lb - start), w,
						lo + (long)(n - i), rb + 1, (size_t)(e - rb - 1));
			i += (unsigned long)(hi - lo) + 1;
		}
		p = *e ? e + 1 : e;
	}
bad:
	errno = ENOENT;
	return -1;
}
