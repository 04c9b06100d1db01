/*
 * workers.c - items made on worker threads, taken in order on the caller's thread.
 *
 * The merge of a large job reads thousands of bundles and scans tens of thousands of files;
 * each item's work is independent of the others, but what it adds to the evidence set must
 * be added in the same order whatever the threads did, for the same bytes out.  So the
 * expensive, self-contained part of an item (MAKE) runs on any thread, at most WINDOW items
 * ahead of the caller, who TAKEs each finished item in index order.  The caller makes items
 * too while it waits.  With one thread, or when no thread can be started, it is the same
 * loop on the caller's thread alone: MAKE(i) then TAKE(i).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define THREADS_MAX 8

unsigned pm_threads_usable(void)
{
	const char *e = getenv("POSTMORTEM_THREADS");
	cpu_set_t set;
	double load;
	int n;

	if (e && *e) {
		char *end;
		long v = strtol(e, &end, 10);
		if (!*end && v >= 1)
			return v > THREADS_MAX ? THREADS_MAX : (unsigned)v;
	}
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 1;
	n = CPU_COUNT(&set);
	/* CPUs busy with other work (the load average, whole ones) are not ours: a second
	 * thread on a CPU that is busy costs more in hand-overs than it gives */
	if (getloadavg(&load, 1) == 1 && load >= 1)
		n -= load >= n ? n : (int)load;
	return n < 1 ? 1 : n > THREADS_MAX ? THREADS_MAX : (unsigned)n;
}

void pm_evidence_set_threads(struct pm_evidence *ev, unsigned n)
{
	ev->threads = n < 1 ? 1 : n > THREADS_MAX ? THREADS_MAX : n;
}

struct pool {
	const struct pm_work *w;
	size_t n, window;
	size_t chunk; /* items made by one thread in a row: one hand-over for them all */
	pthread_mutex_t mu;
	pthread_cond_t made;  /* an item is finished */
	pthread_cond_t space; /* the caller took one: the window moved */
	size_t next;	      /* the next item to make */
	size_t taken;	      /* items taken so far */
	size_t want;	      /* the item the caller waits for, or N */
	unsigned idle;	      /* workers waiting for the window to move */
	bool stop;
	void **item;
	bool *done;
	/* KEEP: each item taken goes back to the thread that made it (MAKER), to be dropped
	 * there, its memory back in that thread's heap: a list per worker through GNEXT */
	unsigned char *maker;
	size_t *gnext;
	size_t ghead[THREADS_MAX];
};

#define NONE ((size_t)-1)

/* Drop worker W's items taken since it last looked; LOCKED on entry and on return. */
static void drop_taken(struct pool *p, unsigned w)
{
	size_t g = p->ghead[w];

	if (g == NONE)
		return;
	p->ghead[w] = NONE;
	pthread_mutex_unlock(&p->mu);
	while (g != NONE) {
		size_t nx = p->gnext[g];
		p->w->drop(p->w->arg, p->item[g]);
		p->item[g] = NULL;
		g = nx;
	}
	pthread_mutex_lock(&p->mu);
}

/* Make the next chunk of items, on worker W; LOCKED on entry and on return.  False: none to
 * make.  An item is written before its DONE, under the lock, tells the caller of it. */
static bool make_next(struct pool *p, unsigned w)
{
	size_t i, e;

	drop_taken(p, w);
	if (p->stop || p->next >= p->n || p->next >= p->taken + p->window)
		return false;
	i = p->next;
	e = p->n - i > p->chunk ? i + p->chunk : p->n;
	p->next = e;
	pthread_mutex_unlock(&p->mu);
	for (size_t k = i; k < e; k++) {
		p->item[k] = p->w->make(p->w->arg, w, k);
		p->maker[k] = (unsigned char)w;
	}
	pthread_mutex_lock(&p->mu);
	for (size_t k = i; k < e; k++)
		p->done[k] = true;
	if (p->want >= i && p->want < e)
		pthread_cond_signal(&p->made);
	return true;
}

struct worker {
	struct pool *p;
	unsigned w;
};

static void *run_worker(void *arg)
{
	struct worker *wk = arg;
	struct pool *p = wk->p;

	pthread_mutex_lock(&p->mu);
	/* make_next may let go of the lock (dropping items, making them): the caller may have
	 * stopped meanwhile, and its one broadcast is gone, so a worker waits only for what it
	 * saw under the lock it holds now */
	while (!p->stop && p->next < p->n)
		if (!make_next(p, wk->w) && !p->stop) {
			p->idle++;
			pthread_cond_wait(&p->space, &p->mu);
			p->idle--;
		}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

static int run_serial(const struct pm_work *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		void *it = w->make(w->arg, 0, i);
		int rc = w->take(w->arg, i, it), en = errno;

		if (w->keep && it)
			w->drop(w->arg, it);
		errno = en;
		if (rc < 0)
			return -1;
	}
	return 0;
}

static pm_thread_start_fn *start_fn;

void pm_work_set_start(pm_thread_start_fn *start)
{
	__atomic_store_n(&start_fn, start, __ATOMIC_RELEASE);
}

static int start_thread(pthread_t *tid, void *(*fn)(void *), void *arg)
{
	pm_thread_start_fn *start = __atomic_load_n(&start_fn, __ATOMIC_ACQUIRE);

	return start ? start(tid, fn, arg) : pthread_create(tid, NULL, fn, arg);
}

int pm_work_run(const struct pm_work *w, unsigned threads, size_t n)
{
	struct pool p = {.w = w, .n = n, .want = n};
	pthread_t tid[THREADS_MAX];
	struct worker wk[THREADS_MAX];
	unsigned started = 0;
	int rc = 0, en = 0;

	if (threads > THREADS_MAX)
		threads = THREADS_MAX;
	if (threads < 2 || n < 2)
		return run_serial(w, n);
	/* hand-overs cost a sleep and a wake-up each: about 16 chunks a thread */
	p.chunk = n / (16 * (size_t)threads);
	p.chunk = p.chunk < 1 ? 1 : p.chunk > 64 ? 64 : p.chunk;
	p.window = w->window ? w->window : 64 * (size_t)threads;
	if (p.window < 4 * p.chunk * threads)
		p.window = 4 * p.chunk * threads;
	p.item = calloc(n, sizeof(*p.item));
	p.done = calloc(n, sizeof(*p.done));
	p.maker = calloc(n, sizeof(*p.maker));
	p.gnext = malloc(n * sizeof(*p.gnext));
	if (!p.item || !p.done || !p.maker || !p.gnext || pthread_mutex_init(&p.mu, NULL)) {
		free(p.item);
		free(p.done);
		free(p.maker);
		free(p.gnext);
		return run_serial(w, n);
	}
	for (unsigned t = 0; t < THREADS_MAX; t++)
		p.ghead[t] = NONE;
	pthread_cond_init(&p.made, NULL);
	pthread_cond_init(&p.space, NULL);
	/* worker 0 is the caller; a thread that cannot be started is one fewer */
	for (unsigned t = 1; t < threads; t++) {
		wk[started] = (struct worker){&p, t};
		if (start_thread(&tid[started], run_worker, &wk[started]))
			break;
		started++;
	}
	pthread_mutex_lock(&p.mu);
	for (size_t i = 0; i < n; i++) {
		void *it;

		while (!p.done[i])
			if (!make_next(&p, 0) && !p.done[i]) {
				p.want = i;
				pthread_cond_wait(&p.made, &p.mu);
				p.want = n;
			}
		it = p.item[i];
		if (!w->keep)
			p.item[i] = NULL;
		pthread_mutex_unlock(&p.mu);
		rc = w->take(w->arg, i, it);
		en = errno;
		if (w->keep && it && p.maker[i] == 0) {
			w->drop(w->arg, it);
			p.item[i] = NULL;
		}
		pthread_mutex_lock(&p.mu);
		if (w->keep && p.item[i]) {
			p.gnext[i] = p.ghead[p.maker[i]];
			p.ghead[p.maker[i]] = i;
		}
		p.taken = i + 1;
		if (p.idle)
			pthread_cond_broadcast(&p.space);
		if (rc < 0)
			break;
	}
	p.stop = true;
	pthread_cond_broadcast(&p.space);
	pthread_mutex_unlock(&p.mu);
	for (unsigned t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	/* items taken that their makers did not come back for, then items made ahead of a
	 * take that failed */
	pthread_mutex_lock(&p.mu);
	for (unsigned t = 0; t < THREADS_MAX; t++)
		drop_taken(&p, t);
	pthread_mutex_unlock(&p.mu);
	for (size_t i = 0; i < n; i++)
		if (p.item[i] && w->drop)
			w->drop(w->arg, p.item[i]);
	pthread_cond_destroy(&p.made);
	pthread_cond_destroy(&p.space);
	pthread_mutex_destroy(&p.mu);
	free(p.item);
	free(p.done);
	free(p.maker);
	free(p.gnext);
	errno = en;
	return rc < 0 ? -1 : 0;
}

static void *beside_run(void *arg)
{
	struct pm_beside *b = arg;

	b->result = b->fn(b->arg);
	return NULL;
}

void pm_beside_start(struct pm_beside *b, void *(*fn)(void *arg), void *arg, unsigned threads)
{
	*b = (struct pm_beside){.fn = fn, .arg = arg};
	b->started = threads >= 2 && !start_thread(&b->tid, beside_run, b);
}

void *pm_beside_wait(struct pm_beside *b)
{
	if (b->started)
		pthread_join(b->tid, NULL);
	else if (b->fn)
		b->result = b->fn(b->arg);
	b->started = false;
	b->fn = NULL;
	return b->result;
}

void *pm_beside_end(struct pm_beside *b)
{
	if (b->started)
		pthread_join(b->tid, NULL);
	b->started = false;
	b->fn = NULL;
	return b->result;
}
