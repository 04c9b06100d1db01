/*
 * doctor_parse.c - the readers behind `postmortem doctor` (doctor.h): slurm.conf and its
 * Include lines, `scontrol show config`, plugstack.conf and its include globs, ELF files.
 * They report what the files say; doctor.c judges it.
 */
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "doctor.h"
#include "pmutil.h"

#define MAX_DEPTH 8
#define ELF_MAX (256ULL << 20)

/* ---- string vectors and key/value lists ---- */

static int strv_add(struct dc_strv *s, const char *x)
{
	char *d;

	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 8;
		char **v = realloc(s->v, cap * sizeof(*v));
		if (!v)
			return -1;
		s->v = v;
		s->cap = cap;
	}
	if (!(d = strdup(x)))
		return -1;
	s->v[s->n++] = d;
	return 0;
}

static void strv_free(struct dc_strv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

bool dc_strv_has(const struct dc_strv *s, const char *x)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], x))
			return true;
	return false;
}

static int kv_add(struct dc_kvs *kv, const char *k, size_t klen, const char *v, size_t vlen,
		  const char *file, int line)
{
	struct dc_kv *e;

	if (kv->n == kv->cap) {
		size_t cap = kv->cap ? kv->cap * 2 : 32;
		struct dc_kv *nv = realloc(kv->v, cap * sizeof(*nv));
		if (!nv)
			return -1;
		kv->v = nv;
		kv->cap = cap;
	}
	e = &kv->v[kv->n];
	e->key = strndup(k, klen);
	e->val = strndup(v, vlen);
	e->file = file ? strdup(file) : NULL;
	e->line = line;
	if (!e->key || !e->val || (file && !e->file)) {
		free(e->key);
		free(e->val);
		free(e->file);
		return -1;
	}
	kv->n++;
	return 0;
}

void dc_kvs_free(struct dc_kvs *kv)
{
	for (size_t i = 0; i < kv->n; i++) {
		free(kv->v[i].key);
		free(kv->v[i].val);
		free(kv->v[i].file);
	}
	free(kv->v);
	memset(kv, 0, sizeof(*kv));
}

const struct dc_kv *dc_kv_get(const struct dc_kvs *kv, const char *key)
{
	for (size_t i = kv->n; i-- > 0;)
		if (!strcasecmp(kv->v[i].key, key))
			return &kv->v[i];
	return NULL;
}

/* ---- reading files ---- */

static char *slurp(const char *path, size_t max, size_t *lenp)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0, cap = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (len + 4096 + 1 > cap) {
			size_t ncap = cap ? cap * 2 : 8192;
			char *nb;
			if (ncap > max + 4097)
				ncap = max + 4097;
			if (ncap <= cap || !(nb = realloc(buf, ncap))) {
				free(buf);
				fclose(f);
				errno = ncap <= cap ? EFBIG : ENOMEM;
				return NULL;
			}
			buf = nb;
			cap = ncap;
		}
		size_t r = fread(buf + len, 1, cap - len - 1, f);
		len += r;
		if (r == 0)
			break;
		if (len > max) {
			free(buf);
			fclose(f);
			errno = EFBIG;
			return NULL;
		}
	}
	if (ferror(f)) {
		int e = errno ? errno : EIO;
		free(buf);
		fclose(f);
		errno = e;
		return NULL;
	}
	fclose(f);
	if (!buf && !(buf = malloc(1)))
		return NULL;
	buf[len] = '\0';
	if (lenp)
		*lenp = len;
	return buf;
}

static char *dir_of(const char *path)
{
	const char *s = strrchr(path, '/');

	if (!s)
		return strdup(".");
	if (s == path)
		return strdup("/");
	return strndup(path, (size_t)(s - path));
}

/* PAT relative to the folder of FILE unless absolute. */
static char *relative_to(const char *file, const char *pat)
{
	char *d, *out;

	if (pat[0] == '/')
		return strdup(pat);
	if (!(d = dir_of(file)))
		return NULL;
	if (asprintf(&out, "%s/%s", d, pat) < 0)
		out = NULL;
	free(d);
	return out;
}

/* Split a line into whitespace-separated tokens; "double quotes" group.  Returns count. */
static int tokens(char *s, char **tok, int max)
{
	int n = 0;

	while (*s && n < max) {
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		tok[n++] = s;
		char *w = s;
		bool q = false;
		while (*s && (q || !isspace((unsigned char)*s))) {
			if (*s == '"') {
				q = !q;
				s++;
				continue;
			}
			*w++ = *s++;
		}
		if (*s)
			s++;
		*w = '\0';
	}
	return n;
}

/* Remove a comment: '#' not preceded by a backslash ("\#" is a literal '#'). */
static void uncomment(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (*r == '\\' && r[1] == '#') {
			*w++ = '#';
			r++;
			continue;
		}
		if (*r == '#')
			break;
		*w++ = *r;
	}
	*w = '\0';
}

/* ---- slurm.conf ---- */

static const char *const definitions[] = {"NodeName",	  "PartitionName", "NodeSet", "DownNodes",
					  "FrontendName", "SwitchName",	   NULL};

static int sc_file(struct dc_slurmconf *sc, const char *path, int depth, char *err, size_t errlen);

static int sc_include(struct dc_slurmconf *sc, const char *from, int lineno, const char *pat,
		      int depth, char *err, size_t errlen)
{
	char *full = relative_to(from, pat);
	glob_t g;
	int rc = 0, grc;

	if (!full)
		return pmu_fail(err, errlen, ENOMEM, "out of memory");
	grc = glob(full, GLOB_NOCHECK, NULL, &g);
	if (grc) {
		free(full);
		return pmu_fail(err, errlen, EINVAL, "%s:%d: Include %s: cannot expand", from,
				lineno, pat);
	}
	for (size_t i = 0; i < g.gl_pathc && !rc; i++)
		rc = sc_file(sc, g.gl_pathv[i], depth + 1, err, errlen);
	globfree(&g);
	free(full);
	return rc;
}

static int sc_line(struct dc_slurmconf *sc, const char *file, int lineno, char *line, int depth,
		   char *err, size_t errlen)
{
	char *tok[256];
	int n;

	uncomment(line);
	n = tokens(line, tok, 256);
	if (n == 0)
		return 0;
	if (!strcasecmp(tok[0], "include")) {
		if (n < 2)
			return pmu_fail(err, errlen, EINVAL, "%s:%d: Include without a file", file,
					lineno);
		return sc_include(sc, file, lineno, tok[1], depth, err, errlen);
	}
	for (int d = 0; definitions[d]; d++) {
		size_t l = strlen(definitions[d]);
		if (strncasecmp(tok[0], definitions[d], l) || tok[0][l] != '=')
			continue;
		if (d == 0 && strcasecmp(tok[0] + l + 1, "DEFAULT") &&
		    strv_add(&sc->nodes, tok[0] + l + 1) < 0)
			return pmu_fail(err, errlen, ENOMEM, "out of memory");
		return 0;
	}
	for (int i = 0; i < n; i++) {
		char *eq = strchr(tok[i], '=');
		if (!eq || eq == tok[i])
			continue;
		if (kv_add(&sc->kv, tok[i], (size_t)(eq - tok[i]), eq + 1, strlen(eq + 1), file,
			   lineno) < 0)
			return pmu_fail(err, errlen, ENOMEM, "out of memory");
	}
	return 0;
}

static int sc_file(struct dc_slurmconf *sc, const char *path, int depth, char *err, size_t errlen)
{
	char *buf, *line, *next;
	int lineno = 0, rc = 0;

	if (depth > MAX_DEPTH)
		return pmu_fail(err, errlen, EINVAL, "%s: Include nested more than %d deep", path,
				MAX_DEPTH);
	if (!(buf = slurp(path, 16 << 20, NULL)))
		return pmu_fail(err, errlen, errno, "%s: %s", path, strerror(errno));
	if (strv_add(&sc->files, path) < 0) {
		free(buf);
		return pmu_fail(err, errlen, ENOMEM, "out of memory");
	}
	for (line = buf; line && !rc; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		/* a backslash at the end continues the line */
		size_t l = strlen(line);
		while (l && line[l - 1] == '\\' && next) {
			line[l - 1] = ' ';
			char *more = next;
			next = strchr(more, '\n');
			if (next)
				*next++ = '\0';
			memmove(line + l, more, strlen(more) + 1);
			l = strlen(line);
			lineno++;
		}
		rc = sc_line(sc, path, lineno, line, depth, err, errlen);
	}
	free(buf);
	return rc;
}

int dc_slurmconf_load(const char *path, struct dc_slurmconf *sc, char *err, size_t errlen)
{
	memset(sc, 0, sizeof(*sc));
	if (sc_file(sc, path, 0, err, errlen) < 0) {
		int e = errno;
		dc_slurmconf_free(sc);
		errno = e;
		return -1;
	}
	return 0;
}

void dc_slurmconf_free(struct dc_slurmconf *sc)
{
	dc_kvs_free(&sc->kv);
	strv_free(&sc->nodes);
	strv_free(&sc->files);
}

int dc_scontrol_parse(const char *text, struct dc_kvs *kv)
{
	const char *line = text;

	while (line && *line) {
		const char *end = strchr(line, '\n'), *eq;
		size_t len = end ? (size_t)(end - line) : strlen(line);

		eq = memchr(line, '=', len);
		if (eq && eq > line) {
			const char *k = line, *ke = eq, *v = eq + 1, *ve = line + len;
			while (ke > k && isspace((unsigned char)ke[-1]))
				ke--;
			while (v < ve && isspace((unsigned char)*v))
				v++;
			while (ve > v && isspace((unsigned char)ve[-1]))
				ve--;
			if (ke > k && !memchr(k, ' ', (size_t)(ke - k)) &&
			    kv_add(kv, k, (size_t)(ke - k), v, (size_t)(ve - v), NULL, 0) < 0)
				return -1;
		}
		line = end ? end + 1 : NULL;
	}
	return 0;
}

/* ---- plugstack.conf ---- */

static int ps_file(struct dc_plugstack *ps, const char *path, int depth, char *err, size_t errlen);

static int ps_bad(struct dc_plugstack *ps, const char *file, int lineno, const char *why)
{
	char *s;
	int rc;

	if (asprintf(&s, "%s:%d: %s", file, lineno, why) < 0)
		return -1;
	rc = strv_add(&ps->bad, s);
	free(s);
	return rc;
}

static int ps_line(struct dc_plugstack *ps, const char *file, int lineno, char *line, int depth,
		   char *err, size_t errlen)
{
	char *tok[128];
	int n;

	uncomment(line);
	n = tokens(line, tok, 128);
	if (n == 0)
		return 0;
	if (!strcmp(tok[0], "include")) {
		char *full, *d;
		glob_t g;
		int rc = 0;

		if (n < 2)
			return ps_bad(ps, file, lineno, "include without a file") < 0 ?
				       pmu_fail(err, errlen, ENOMEM, "out of memory") :
				       0;
		if (!(full = relative_to(file, tok[1])) || !(d = dir_of(full))) {
			free(full);
			return pmu_fail(err, errlen, ENOMEM, "out of memory");
		}
		if (!dc_strv_has(&ps->dirs, d) && strv_add(&ps->dirs, d) < 0)
			rc = pmu_fail(err, errlen, ENOMEM, "out of memory");
		free(d);
		if (!rc && glob(full, 0, NULL, &g) == 0) {
			for (size_t i = 0; i < g.gl_pathc && !rc; i++)
				rc = ps_file(ps, g.gl_pathv[i], depth + 1, err, errlen);
			globfree(&g);
		}
		free(full);
		return rc;
	}
	if (strcmp(tok[0], "required") && strcmp(tok[0], "optional")) {
		char why[300];
		snprintf(why, sizeof(why),
			 "'%.100s': Slurm expects required, optional or include here and "
			 "refuses the whole plugin stack",
			 tok[0]);
		return ps_bad(ps, file, lineno, why) < 0 ?
			       pmu_fail(err, errlen, ENOMEM, "out of memory") :
			       0;
	}
	if (n < 2)
		return ps_bad(ps, file, lineno, "a plugin line without a plugin") < 0 ?
			       pmu_fail(err, errlen, ENOMEM, "out of memory") :
			       0;
	if (ps->n == ps->cap) {
		size_t cap = ps->cap ? ps->cap * 2 : 8;
		struct dc_plugin *v = realloc(ps->v, cap * sizeof(*v));
		if (!v)
			return pmu_fail(err, errlen, ENOMEM, "out of memory");
		ps->v = v;
		ps->cap = cap;
	}
	struct dc_plugin *p = &ps->v[ps->n];
	memset(p, 0, sizeof(*p));
	p->file = strdup(file);
	p->line = lineno;
	p->mode = strdup(tok[0]);
	p->path = strdup(tok[1]);
	ps->n++;
	if (!p->file || !p->mode || !p->path)
		return pmu_fail(err, errlen, ENOMEM, "out of memory");
	for (int i = 2; i < n; i++)
		if (strv_add(&p->args, tok[i]) < 0)
			return pmu_fail(err, errlen, ENOMEM, "out of memory");
	return 0;
}

static int ps_file(struct dc_plugstack *ps, const char *path, int depth, char *err, size_t errlen)
{
	char *buf, *line, *next;
	int lineno = 0, rc = 0;

	if (depth > MAX_DEPTH)
		return pmu_fail(err, errlen, EINVAL, "%s: include nested more than %d deep", path,
				MAX_DEPTH);
	if (!(buf = slurp(path, 4 << 20, NULL)))
		return pmu_fail(err, errlen, errno, "%s: %s", path, strerror(errno));
	if (strv_add(&ps->files, path) < 0) {
		free(buf);
		return pmu_fail(err, errlen, ENOMEM, "out of memory");
	}
	for (line = buf; line && !rc; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		rc = ps_line(ps, path, ++lineno, line, depth, err, errlen);
	}
	free(buf);
	return rc;
}

int dc_plugstack_load(const char *path, struct dc_plugstack *ps, char *err, size_t errlen)
{
	memset(ps, 0, sizeof(*ps));
	if (ps_file(ps, path, 0, err, errlen) < 0) {
		int e = errno;
		dc_plugstack_free(ps);
		errno = e;
		return -1;
	}
	return 0;
}

void dc_plugstack_free(struct dc_plugstack *ps)
{
	for (size_t i = 0; i < ps->n; i++) {
		free(ps->v[i].file);
		free(ps->v[i].mode);
		free(ps->v[i].path);
		strv_free(&ps->v[i].args);
	}
	free(ps->v);
	strv_free(&ps->files);
	strv_free(&ps->dirs);
	strv_free(&ps->bad);
	memset(ps, 0, sizeof(*ps));
}

/* ---- ELF ---- */

struct img {
	const unsigned char *b;
	size_t len;
	bool be, is64;
};

static bool in(const struct img *m, uint64_t off, uint64_t size)
{
	return off <= m->len && size <= m->len - off;
}

static uint64_t get(const struct img *m, uint64_t off, int size)
{
	uint64_t v = 0;

	if (!in(m, off, (uint64_t)size))
		return 0;
	for (int i = 0; i < size; i++) {
		int k = m->be ? i : size - 1 - i;
		v = (v << 8) | m->b[off + (uint64_t)k];
	}
	return v;
}

struct shdr {
	uint32_t type, link;
	uint64_t addr, off, size, entsize;
};

static bool section(const struct img *m, uint64_t shoff, unsigned entsize, unsigned shnum,
		    unsigned i, struct shdr *s)
{
	uint64_t o = shoff + (uint64_t)i * entsize;

	if (i >= shnum || !in(m, o, entsize))
		return false;
	s->type = (uint32_t)get(m, o + 4, 4);
	if (m->is64) {
		s->addr = get(m, o + 16, 8);
		s->off = get(m, o + 24, 8);
		s->size = get(m, o + 32, 8);
		s->link = (uint32_t)get(m, o + 40, 4);
		s->entsize = get(m, o + 56, 8);
	} else {
		s->addr = get(m, o + 12, 4);
		s->off = get(m, o + 16, 4);
		s->size = get(m, o + 20, 4);
		s->link = (uint32_t)get(m, o + 24, 4);
		s->entsize = get(m, o + 36, 4);
	}
	return s->type == SHT_NOBITS || in(m, s->off, s->size);
}

/* NUL-terminated string at OFF of a string table section, or NULL. */
static const char *str_at(const struct img *m, const struct shdr *st, uint64_t off)
{
	if (off >= st->size)
		return NULL;
	const char *s = (const char *)m->b + st->off + off;
	if (!memchr(s, '\0', st->size - off))
		return NULL;
	return s;
}

static void own_abi(int *cls, int *data, int *machine)
{
	unsigned char h[64] = {0};
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	*cls = *data = *machine = -1;
	if (fd < 0)
		return;
	if (read(fd, h, sizeof(h)) == (ssize_t)sizeof(h) && !memcmp(h, ELFMAG, SELFMAG)) {
		*cls = h[EI_CLASS];
		*data = h[EI_DATA];
		*machine = h[EI_DATA] == ELFDATA2MSB ? (h[18] << 8) | h[19] : (h[19] << 8) | h[18];
	}
	close(fd);
}

/* The bytes of defined symbol (SHNDX, VALUE, SIZE) in the file, or NULL. */
static const unsigned char *sym_bytes(const struct img *m, uint64_t shoff, unsigned shent,
				      unsigned shnum, unsigned shndx, uint64_t value, uint64_t size)
{
	struct shdr s;

	if (shndx == SHN_UNDEF || shndx >= SHN_LORESERVE ||
	    !section(m, shoff, shent, shnum, shndx, &s) || s.type == SHT_NOBITS || value < s.addr ||
	    value - s.addr > s.size || size > s.size - (value - s.addr))
		return NULL;
	return m->b + s.off + (value - s.addr);
}

static void copy_cstr(char *dst, size_t cap, const unsigned char *src, uint64_t size)
{
	size_t n = 0;

	if (!src) {
		dst[0] = '\0';
		return;
	}
	while (n < size && n + 1 < cap && src[n] && isprint(src[n])) {
		dst[n] = (char)src[n];
		n++;
	}
	dst[n] = '\0';
}

static int elf_symbols(const struct img *m, uint64_t shoff, unsigned shent, unsigned shnum,
		       struct dc_elf *e)
{
	struct shdr s, st;

	for (unsigned i = 0; i < shnum; i++) {
		if (!section(m, shoff, shent, shnum, i, &s) || s.type == SHT_NOBITS)
			continue;
		if (s.type == SHT_DYNAMIC && section(m, shoff, shent, shnum, s.link, &st)) {
			unsigned esz = m->is64 ? 16 : 8;
			for (uint64_t o = 0; o + esz <= s.size; o += esz) {
				int64_t tag = (int64_t)get(m, s.off + o, m->is64 ? 8 : 4);
				uint64_t val = get(m, s.off + o + esz / 2, m->is64 ? 8 : 4);
				if (tag == DT_NULL)
					break;
				if (tag == DT_NEEDED) {
					const char *n = str_at(m, &st, val);
					if (n && strv_add(&e->needed, n) < 0)
						return -1;
				}
				if ((tag == DT_FLAGS && (val & DF_BIND_NOW)) ||
				    (tag == DT_FLAGS_1 && (val & DF_1_NOW)) || tag == DT_BIND_NOW)
					e->bind_now = true;
			}
		}
		if (s.type != SHT_DYNSYM || !section(m, shoff, shent, shnum, s.link, &st))
			continue;
		unsigned esz = m->is64 ? 24 : 16;
		for (uint64_t o = esz; o + esz <= s.size; o += esz) {
			uint64_t base = s.off + o, value, size;
			unsigned info, shndx;
			uint32_t name = (uint32_t)get(m, base, 4);
			if (m->is64) {
				info = (unsigned)get(m, base + 4, 1);
				shndx = (unsigned)get(m, base + 6, 2);
				value = get(m, base + 8, 8);
				size = get(m, base + 16, 8);
			} else {
				value = get(m, base + 4, 4);
				size = get(m, base + 8, 4);
				info = (unsigned)get(m, base + 12, 1);
				shndx = (unsigned)get(m, base + 14, 2);
			}
			const char *n = str_at(m, &st, name);
			unsigned bind = info >> 4;
			if (!n || !*n || (bind != STB_GLOBAL && bind != STB_WEAK))
				continue;
			if (shndx == SHN_UNDEF) {
				if (bind == STB_GLOBAL && strv_add(&e->undefined, n) < 0)
					return -1;
				continue;
			}
			if (strv_add(&e->defined, n) < 0)
				return -1;
			const unsigned char *p =
				sym_bytes(m, shoff, shent, shnum, shndx, value, size);
			if (!strcmp(n, "plugin_name"))
				copy_cstr(e->plugin_name, sizeof(e->plugin_name), p, size);
			else if (!strcmp(n, "plugin_type"))
				copy_cstr(e->plugin_type, sizeof(e->plugin_type), p, size);
			else if (!strcmp(n, "plugin_version") && p && size == 4)
				e->plugin_version = (long long)get(m, (uint64_t)(p - m->b), 4);
			else if (!strcmp(n, "spank_plugin_version") && p && size == 4)
				e->spank_plugin_version =
					(long long)get(m, (uint64_t)(p - m->b), 4);
		}
	}
	return 0;
}

int dc_elf_read(const char *path, struct dc_elf *e, char *err, size_t errlen)
{
	struct img m = {0};
	unsigned char *buf;
	size_t len;
	int cls, data, machine, rc = -1;

	memset(e, 0, sizeof(*e));
	e->plugin_version = e->spank_plugin_version = -1;
	if (!(buf = (unsigned char *)slurp(path, ELF_MAX, &len)))
		return pmu_fail(err, errlen, errno, "%s: %s", path, strerror(errno));
	m.b = buf;
	m.len = len;
	if (len < 52 || memcmp(buf, ELFMAG, SELFMAG)) {
		pmu_fail(err, errlen, EINVAL, "%s: not an ELF file", path);
		goto out;
	}
	e->elfclass = buf[EI_CLASS];
	e->data = buf[EI_DATA];
	if ((e->elfclass != ELFCLASS32 && e->elfclass != ELFCLASS64) ||
	    (e->data != ELFDATA2LSB && e->data != ELFDATA2MSB)) {
		pmu_fail(err, errlen, EINVAL, "%s: an ELF file of an unknown class or byte order",
			 path);
		goto out;
	}
	m.is64 = e->elfclass == ELFCLASS64;
	m.be = e->data == ELFDATA2MSB;
	if (m.is64 && len < 64) {
		pmu_fail(err, errlen, EINVAL, "%s: truncated ELF header", path);
		goto out;
	}
	e->type = (int)get(&m, 16, 2);
	e->machine = (int)get(&m, 18, 2);
	own_abi(&cls, &data, &machine);
	e->host_machine = machine;
	e->same_abi = cls == e->elfclass && data == e->data && machine == e->machine;

	uint64_t shoff = m.is64 ? get(&m, 40, 8) : get(&m, 32, 4);
	unsigned shent = (unsigned)(m.is64 ? get(&m, 58, 2) : get(&m, 46, 2));
	unsigned shnum = (unsigned)(m.is64 ? get(&m, 60, 2) : get(&m, 48, 2));
	e->has_sections = shoff && shnum && shent >= (m.is64 ? 64u : 40u) &&
			  in(&m, shoff, (uint64_t)shent * shnum);
	if (e->has_sections && elf_symbols(&m, shoff, shent, shnum, e) < 0) {
		pmu_fail(err, errlen, ENOMEM, "out of memory");
		goto out;
	}
	rc = 0;
out:
	free(buf);
	if (rc < 0)
		dc_elf_free(e);
	return rc;
}

void dc_elf_free(struct dc_elf *e)
{
	strv_free(&e->defined);
	strv_free(&e->undefined);
	strv_free(&e->needed);
}
