/*
 * common.c - what every file of the collector uses: its clocks and the order of coverage
 * statuses by how bad they are (a source keeps the worst of its files').
 */
#include <time.h>

#include "collector.h"

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

double pm_mono(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

double pm_now(void)
{
	return clock_s(CLOCK_REALTIME);
}

int pm_status_severity(enum pm_status s)
{
	static const int order[PM_ST__COUNT] = {
		[PM_ST_OK] = 0,	       [PM_ST_EMPTY] = 1,      [PM_ST_MISSING] = 2,
		[PM_ST_TRUNCATED] = 3, [PM_ST_UNREADABLE] = 4, [PM_ST_DENIED] = 5,
		[PM_ST_TIMED_OUT] = 6,
	};
	return order[s];
}
