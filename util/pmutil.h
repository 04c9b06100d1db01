/*
 * pmutil.h - the small helpers that the collector, the store, the CLI and the plugin would
 * otherwise each write again: an error text filled by a helper that returns -1, a write
 * that finishes, a JSON string member with the caller's default, a command's option table.
 *
 * Where it sits: above libc (util.c, which the plugin compiles into itself: it may link
 * nothing else) and jansson (json.c); never above the engine, which stays free of every
 * part that uses it and keeps its own few lines where it needs the same (engine/verdict.c).
 */
#ifndef PM_UTIL_H
#define PM_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct json_t; /* jansson's json_t, so that the plugin includes this without jansson */

/*
 * Fill ERR (ERRLEN bytes, may be NULL/0) from FMT, set errno to E, return -1: the one line
 * with which a function fails with a reason (`return pmu_fail(err, errlen, EINVAL, ...)`).
 */
int pmu_fail(char *err, size_t errlen, int e, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Replace the string *DST (freed) with a copy of V (NULL when V is NULL).  0, or -1 (ENOMEM)
 * with *DST left as it was. */
int pmu_strset(char **dst, const char *v);

/* Make the buffer *BUF (*ALLOC bytes, may be NULL/0) hold at least NEED bytes: realloc'd to
 * FIRST bytes (when empty), doubled until it does.  0, or -1 (ENOMEM) with *BUF and *ALLOC
 * as they were. */
int pmu_reserve(char **buf, size_t *alloc, size_t need, size_t first);

/* Write all LEN bytes of BUF to FD (a signal's EINTR retried).  0, or -1 with errno (a
 * write of 0 bytes leaves errno as write(2) left it). */
int pmu_write_all(int fd, const void *buf, size_t len);

/* Create PATH new (O_EXCL, never through a symbolic link) for writing, with exactly MODE
 * whatever the umask (fchmod: the umask takes bits away from open's mode, and 000 adds
 * none back to 0666): a file made of evidence is its writer's (0600) or the store's
 * (0640), never the world's.  A stdio stream, or NULL with errno. */
FILE *pmu_create(const char *path, unsigned mode);

/* Member KEY of object O when it is a string, else DFLT (O may be NULL or not an object).
 * The string is O's. */
const char *pmu_str(const struct json_t *o, const char *key, const char *dflt);

/* T (epoch seconds) as "2026-11-30T03:11:58Z" (UTC, whole seconds) into BUF (LEN bytes),
 * or DFLT when it cannot be written so (time.c).  Returns BUF. */
const char *pmu_iso(double t, char *buf, size_t len, const char *dflt);

/* One command-line option (opts.c): --NAME, and -LETTER too unless LETTER is 0. */
struct pmu_opt {
	const char *name;
	int letter;
	bool arg; /* takes an argument */
	void *dst;
	/* NULL: DST is a bool * set true (no argument) or a const char ** given the argument.
	 * Else called with the entry and the argument (NULL when none); non-zero ends the
	 * parse. */
	int (*fn)(const struct pmu_opt *opt, const char *arg);
};

/*
 * Parse ARGV's options from ARGV[FIRST] with getopt_long (its permutation, abbreviations and
 * messages, prefixed ARGV[0]; ambiguities listed in OPTS' order) into the N entries of OPTS;
 * optind is the first operand after.  0; -1 for an option getopt rejected (it said why) or
 * out of memory; else the first non-zero return of an entry's FN.
 */
int pmu_opts_parse(int argc, char **argv, int first, const struct pmu_opt *opts, size_t n);

/* The number of elements of array A. */
#define PMU_NELEM(a) (sizeof(a) / sizeof((a)[0]))

#endif
