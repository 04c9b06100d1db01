/*
 * record.c - the rank map and task exit records as JSON lines (engine/parse_sched.c reads
 * them).  Hand-encoded: slurmstepd should not load a JSON library for two flat objects.
 * Every string is escaped and capped so that a record always fits one PIPE_BUF write, and
 * every output is valid JSON and valid UTF-8 whatever bytes the environment held.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pmspank.h"

/* Output caps per field (escaped bytes): their sum stays far below PM_REC_MAX. */
#define CAP_SHORT	320
#define CAP_NAME	48
#define CAP_PATH	1100
#define CAP_UUIDS	1000
#define MAX_UUIDS	32

struct out {
	char *p;
	size_t cap, len;
	int bad;
	int first;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->bad || n >= o->cap - o->len) {
		o->bad = 1;
		return;
	}
	memcpy(o->p + o->len, s, n);
	o->len += n;
	o->p[o->len] = '\0';
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

/* Length of the valid UTF-8 sequence at S (N bytes left), or 0 when invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t l, i;
	unsigned c = s[0];
	unsigned long cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		l = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		l = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		l = 4, cp = c & 0x07;
	else
		return 0;
	if (l > n)
		return 0;
	for (i = 1; i < l; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((l == 3 && cp < 0x800) || (l == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return l;
}

long pm_json_escape(char *dst, size_t cap, const char *s, size_t n, size_t max)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, len = 0, l, el;
	char e[8];

	if (cap == 0)
		return -1;
	if (n > max)
		n = max;
	while (i < n) {
		const char *src = e;

		l = 1;
		if (u[i] == '"' || u[i] == '\\') {
			e[0] = '\\', e[1] = (char)u[i], el = 2;
		} else if (u[i] == '\n') {
			memcpy(e, "\\n", 2), el = 2;
		} else if (u[i] == '\t') {
			memcpy(e, "\\t", 2), el = 2;
		} else if (u[i] == '\r') {
			memcpy(e, "\\r", 2), el = 2;
		} else if (u[i] == 0) {
			memcpy(e, "\xef\xbf\xbd", 3), el = 3;
		} else if (u[i] < 0x20 || u[i] == 0x7f) {
			memcpy(e, "\\u00", 4);
			e[4] = hex[u[i] >> 4], e[5] = hex[u[i] & 15], el = 6;
		} else if ((l = utf8_len(u + i, n - i)) == 0) {
			memcpy(e, "\xef\xbf\xbd", 3), el = 3, l = 1;
		} else {
			src = s + i, el = l;
		}
		if (el >= cap - len)
			break;	/* truncated between characters */
		memcpy(dst + len, src, el);
		len += el;
		i += l;
	}
	dst[len] = '\0';
	return (long)len;
}

static void key(struct out *o, const char *k)
{
	if (!o->first)
		put(o, ",", 1);
	o->first = 0;
	put(o, "\"", 1);
	puts_(o, k);
	put(o, "\":", 2);
}

/* A string field, escaped into at most CAP bytes; absent when V is NULL. */
static void str(struct out *o, const char *k, const char *v, size_t cap)
{
	char tmp[CAP_PATH + 8];

	if (!v)
		return;
	if (cap > sizeof(tmp))
		cap = sizeof(tmp);
	pm_json_escape(tmp, cap, v, strlen(v), PM_PATH_MAX);
	key(o, k);
	put(o, "\"", 1);
	puts_(o, tmp);
	put(o, "\"", 1);
}

static void num(struct out *o, const char *k, long long v)
{
	char tmp[32];

	key(o, k);
	snprintf(tmp, sizeof(tmp), "%lld", v);
	puts_(o, tmp);
}

static void boolean(struct out *o, const char *k, int v)
{
	key(o, k);
	puts_(o, v ? "true" : "false");
}

/* Seconds with microseconds: 1796010000.123456 */
static void stamp(struct out *o, const char *k, const struct timespec *ts)
{
	char tmp[48];

	key(o, k);
	snprintf(tmp, sizeof(tmp), "%lld.%06ld", (long long)ts->tv_sec, ts->tv_nsec / 1000);
	puts_(o, tmp);
}

static int is_uuid(const char *s, size_t n)
{
	return n > 4 && n < 100 && (strncmp(s, "GPU-", 4) == 0 || strncmp(s, "MIG-", 4) == 0);
}

/* "gpu_uuids": the GPU-/MIG- tokens of the GPU lists, unique, in order; absent if none. */
static void uuids(struct out *o, const struct pm_spank_task *t)
{
	const char *lists[2] = { t->gpus, t->cuda_visible }, *tok[MAX_UUIDS];
	size_t tl[MAX_UUIDS], nt = 0, i, j, n, used = 0;
	char tmp[128];
	const char *p, *e;

	for (i = 0; i < 2; i++) {
		for (p = lists[i]; p && *p && nt < MAX_UUIDS; p = *e ? e + 1 : e) {
			e = strchrnul(p, ',');
			n = (size_t)(e - p);
			if (!is_uuid(p, n))
				continue;
			for (j = 0; j < nt; j++)
				if (tl[j] == n && memcmp(tok[j], p, n) == 0)
					break;
			if (j == nt)
				tok[nt] = p, tl[nt++] = n;
		}
	}
	if (nt == 0)
		return;
	key(o, "gpu_uuids");
	put(o, "[", 1);
	for (i = 0; i < nt; i++) {
		pm_json_escape(tmp, sizeof(tmp), tok[i], tl[i], tl[i]);
		used += strlen(tmp) + 3;
		if (used > CAP_UUIDS)
			break;
		if (i)
			put(o, ",", 1);
		put(o, "\"", 1);
		puts_(o, tmp);
		put(o, "\"", 1);
	}
	put(o, "]", 1);
}

static void common(struct out *o, const char *schema, const struct pm_spank_task *t)
{
	o->first = 1;
	o->bad = 0;
	o->len = 0;
	put(o, "{", 1);
	str(o, "schema", schema, CAP_NAME);
	str(o, "job", t->job, CAP_NAME);
	str(o, "step", t->step, CAP_NAME);
	num(o, "restart", t->restart);
	str(o, "node", t->node, CAP_SHORT);
	str(o, "host", t->host, CAP_NAME * 2);
	if (t->node_id >= 0)
		num(o, "node_id", t->node_id);
	num(o, "rank", t->rank);
	if (t->local_rank >= 0)
		num(o, "local_rank", t->local_rank);
	if (t->pid > 0)
		num(o, "pid", t->pid);
}

static int finish(struct out *o)
{
	put(o, "}\n", 2);
	if (o->bad) {
		errno = ENOBUFS;
		return -1;
	}
	return (int)o->len;
}

int pm_record_rankmap(char *buf, size_t cap, const struct pm_spank_task *t)
{
	struct out o = { .p = buf, .cap = cap };

	if (cap > PM_REC_MAX)
		o.cap = PM_REC_MAX;
	if (o.cap == 0) {
		errno = ENOBUFS;
		return -1;
	}
	common(&o, "postmortem.rankmap/1", t);
	str(&o, "gpus", t->gpus, CAP_SHORT);
	str(&o, "gpus_from", t->gpus_from, CAP_NAME);
	str(&o, "cuda_visible_devices", t->cuda_visible, CAP_SHORT);
	uuids(&o, t);
	str(&o, "torch_error_file", t->torch_error_file, CAP_PATH);
	stamp(&o, "start", &t->real);
	stamp(&o, "start_mono", &t->mono);
	return finish(&o);
}

int pm_record_taskexit(char *buf, size_t cap, const struct pm_spank_task *t, int status)
{
	struct out o = { .p = buf, .cap = cap };
	struct pm_wait_status st;
	char sig[32];

	if (cap > PM_REC_MAX)
		o.cap = PM_REC_MAX;
	if (o.cap == 0) {
		errno = ENOBUFS;
		return -1;
	}
	pm_wait_decode(status, &st);
	common(&o, "postmortem.taskexit/1", t);
	num(&o, "status", status);
	if (st.exited)
		num(&o, "exit_code", st.exit_code);
	num(&o, "signal", st.signal);
	if (st.signal)
		str(&o, "signal_name", pm_signal_name(st.signal, sig, sizeof(sig)), CAP_NAME);
	boolean(&o, "core", st.core);
	stamp(&o, "end", &t->real);
	stamp(&o, "end_mono", &t->mono);
	return finish(&o);
}
