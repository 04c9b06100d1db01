/*
 * beside.h - one piece of work on a thread beside the caller's own (workers.c): the engine's
 * (the verdict's coverage) and the store's (a finalize's manifest lists).  Not installed: the
 * store cannot include internal.h, and the public header is no place for a thread helper.
 */
#ifndef PM_BESIDE_H
#define PM_BESIDE_H

#include <pthread.h>
#include <stdbool.h>

/*
 * pm_beside_start runs FN(ARG) on a thread of its own where THREADS is 2 or more and one can
 * be started (as pm_work_run starts them, pm_work_set_start included); FN must touch nothing
 * the caller touches until it is waited for.  pm_beside_wait waits for it and gives FN's
 * result, or runs FN(ARG) on the caller's thread then when none was started.  pm_beside_end
 * waits for a started FN and runs none that was not (a caller leaving on an error, or after
 * pm_beside_wait: then a no-op); it gives FN's result, NULL when FN was not run.  B is
 * caller-owned; all three are safe to call on a B zeroed and never started.
 */
struct pm_beside {
	void *(*fn)(void *arg);
	void *arg;
	void *result;
	pthread_t tid;
	bool started;
};
void pm_beside_start(struct pm_beside *b, void *(*fn)(void *arg), void *arg, unsigned threads);
void *pm_beside_wait(struct pm_beside *b);
void *pm_beside_end(struct pm_beside *b);

#endif
