/*
 * time.c - pmutil.h's time stamps (libc only).
 */
#include <stdio.h>
#include <time.h>

#include "pmutil.h"

const char *pmu_iso(double t, char *buf, size_t len, const char *dflt)
{
	time_t s = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&s, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "%s", dflt);
	return buf;
}
