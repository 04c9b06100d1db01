/*
 * prom.h - the Prometheus source of the node collector (epilog/README.md, "Prometheus").
 * Not installed.
 *
 * For the job's node and time window, the configured Prometheus is asked (query_range) for
 * the DCGM exporter's and the node exporter's series, and what it answers is written as
 * `postmortem.prometheus/1` JSON lines (engine/FORMATS.md), which the engine turns into
 * facts (engine/parse_prom.c).  The collector runs it as a child process like every other
 * source (sources.c), so the child's own timeouts are a courtesy that yields a precise
 * reason: the runner's SIGKILL at the source's timeout or the collector's deadline is what
 * guarantees that a slow or silent server never holds the epilog.
 */
#ifndef PM_PROM_H
#define PM_PROM_H

#include <stddef.h>

#include "collector.h"

#define PM_PROM_SCHEMA "postmortem.prometheus/1"

/* The metric names asked for when `queries` is not configured, NULL-terminated. */
extern const char *const pm_prom_default_queries[];

/*
 * The PromQL expression that selects the series of metric names NAMES (NULL-terminated)
 * on NODE: one selector per node label of P, joined with `or`, each matching the label
 * against the node name followed by nothing, a domain or a port ("gpu017", "gpu017:9400",
 * "gpu017.example.org:9100").  Returns a malloc'd string, or NULL (ENOMEM, or EINVAL when
 * NODE holds a character no node name has).
 */
char *pm_prom_selector(const struct pm_prom_conf *p, const char *node, const char *const *names);

/*
 * Ask the Prometheus of CFG for J's node over [START, END] (epoch seconds) and write the
 * JSON lines to fd OUT, at most CFG's prometheus cap bytes; the last thing written to fd
 * ERR is one status line, "STATUS REASON\n" (STATUS a coverage status name).  No request
 * runs past DEADLINE (monotonic seconds).  Returns the exit status for the child: 0.
 */
int pm_prom_collect(const struct pm_config *cfg, const struct pm_job *j, double start, double end,
		    double deadline, int out, int err);

/* The window to ask about: the job's first task start less the kernel log's margin, else
 * END less the configured lookback; END is now. */
void pm_prom_window(const struct pm_config *cfg, const struct pm_job *j, double *start,
		    double *end);

/*
 * Read a status line written by pm_prom_collect (TEXT, LEN bytes, not NUL-terminated):
 * *ST and the reason into REASON.  0, or -1 when it is not one.
 */
int pm_prom_status(const char *text, size_t len, enum pm_status *st, char *reason, size_t rlen);

#endif
