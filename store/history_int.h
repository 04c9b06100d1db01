/*
 * history_int.h - what the store's history.c, history_read.c and history_policy.c share.
 * Not a public interface.
 */
#ifndef PM_HISTORY_INT_H
#define PM_HISTORY_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <jansson.h>

#include "history.h"

#define DAYLEN 11 /* "YYYY-MM-DD" and its NUL */

/* Member K of object O as a string, "" when it is none. */
static inline const char *S(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

static inline void copy(char *dst, size_t len, const char *s)
{
	snprintf(dst, len, "%s", s);
}

/* A node name that may name a folder of the history (a record's node fits). */
bool pm_hist_node_ok(const char *s);

/* qsort comparison of strings; is S among V[0..N); append a copy of S to *V (N entries,
 * NULL-terminated): 0 or -1. */
int pm_hist_strv_cmp(const void *a, const void *b);
bool pm_hist_strv_has(char *const *v, size_t n, const char *s);
int pm_hist_strv_add(char ***v, size_t *n, const char *s);

/* The job of RUN ("cluster/job/restart" less its restart) into OUT. */
void pm_hist_job_of(const char *run, char *out, size_t len);

/* The time a record file NAME leads with; -1 when NAME is not one. */
long long pm_hist_name_time(const char *name);
/* The day folder (UTC) of time T into OUT (DAYLEN bytes). */
void pm_hist_day_of(long long t, char *out);
/* mkdir DIR (EEXIST fine), group GID (-1: as made), mode 0750 plus setgid.  0 or -1. */
int pm_hist_make_dir(const char *dir, gid_t gid);

#endif
