/*
 * plugin_cost.c - what the plugin costs a task: the rank map record at task_post_fork and
 * the exit record at task_exit, each encoded and appended to the spool exactly as
 * slurmstepd does it (open, lock the counter, one O_APPEND write, close).  Reports
 * microseconds per task; the target is under 100 us.
 *
 *   bench/plugin_cost [-n TASKS] [-d SPOOL_PARENT]     (default 20000 tasks under /tmp)
 *
 * Run it on the filesystem the spool will live on.  Not a test: nothing is asserted.
 */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pmspank.h"

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	return remove(p);
}

int main(int argc, char **argv)
{
	const char *parent = "/tmp";
	char dir[PM_PATH_MAX], spool[PM_PATH_MAX + 16], line[PM_REC_MAX], err[PM_PATH_MAX + 128],
		step[24];
	double t0, enc = 0, total;
	long n = 20000, i;
	struct pm_spank_task t;
	int opt, fd, len;

	while ((opt = getopt(argc, argv, "n:d:")) != -1) {
		if (opt == 'n')
			n = atol(optarg);
		else if (opt == 'd')
			parent = optarg;
		else {
			fprintf(stderr, "usage: %s [-n TASKS] [-d SPOOL_PARENT]\n", argv[0]);
			return 2;
		}
	}
	if (n < 1)
		n = 1;
	snprintf(dir, sizeof(dir), "%s/pm_bench.XXXXXX", parent);
	if (!mkdtemp(dir)) {
		perror(dir);
		return 1;
	}
	snprintf(spool, sizeof(spool), "%s/spool", dir);
	fd = pm_spool_open_job(spool, "4242", 1, err, sizeof(err));
	if (fd < 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	memset(&t, 0, sizeof(t));
	t.job = "4242";
	t.node = "gpu017";
	t.node_id = 16;
	t.gpus = "0,1,2,3,4,5,6,7";
	t.gpus_from = "SLURM_STEP_GPUS";
	t.cuda_visible = "0,1,2,3,4,5,6,7";

	/* encoding alone */
	t0 = now_us();
	for (i = 0; i < n; i++) {
		t.rank = i;
		clock_gettime(CLOCK_REALTIME, &t.real);
		clock_gettime(CLOCK_MONOTONIC, &t.mono);
		len = pm_record_rankmap(line, sizeof(line), &t);
		len += pm_record_taskexit(line, sizeof(line), &t, 256);
	}
	enc = (now_us() - t0) / (double)n;

	/* the whole path: 8 tasks per step, as on an 8-GPU node */
	t0 = now_us();
	for (i = 0; i < n; i++) {
		snprintf(step, sizeof(step), "%ld", i / 8);
		t.step = step;
		t.rank = i % 8;
		t.local_rank = i % 8;
		t.pid = 100000 + i;
		clock_gettime(CLOCK_REALTIME, &t.real);
		clock_gettime(CLOCK_MONOTONIC, &t.mono);
		len = pm_record_rankmap(line, sizeof(line), &t);
		if (len < 0 || pm_spool_append(fd, "rankmap.0.jsonl", line, (size_t)len,
					       (unsigned long)n * 2) != 0)
			return fprintf(stderr, "rank map write failed\n"), 1;
		clock_gettime(CLOCK_REALTIME, &t.real);
		clock_gettime(CLOCK_MONOTONIC, &t.mono);
		len = pm_record_taskexit(line, sizeof(line), &t, (int)(i % 3) << 8);
		if (len < 0 || pm_spool_append(fd, "taskexit.0.jsonl", line, (size_t)len,
					       (unsigned long)n * 2) != 0)
			return fprintf(stderr, "exit write failed\n"), 1;
	}
	total = (now_us() - t0) / (double)n;
	close(fd);
	printf("tasks %ld  spool %s\n", n, spool);
	printf("encode both records     %8.2f us/task\n", enc);
	printf("encode + spool (total)  %8.2f us/task  (target < 100 us)\n", total);
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}
