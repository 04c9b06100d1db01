/*
 * check_trust.c - trust per line and per field (engine/linetrust.c, engine/TRUST.md): text a
 * user chose, quoted by a source the user cannot write, never feeds a match; a slurmd line
 * belongs to a job only through its own job field; a line outside the job's time or naming
 * a node outside the job is not the job's evidence.  Unit tests per field, then whole
 * diagnoses with the bundled rule set: no hardware class, no node excluded, nothing counted
 * against a node.
 */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "support.h"

/* ---- pm_trust_mask on one text ---- */

static char *job_nodes[] = {"n1", "n2"};

/* Job 25 on n1 and n2, 10:00 to 11:00 on 2026-12-01 (UTC). */
static void job25(struct pm_evidence *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->job.id = "25";
	ev->job.nodes = job_nodes;
	ev->job.nnodes = 2;
	ev->job.start = 1796119200; /* 2026-12-01T10:00:00Z */
	ev->job.end = 1796122800;   /* 2026-12-01T11:00:00Z */
}

static char *masked_as(const struct pm_evidence *ev, enum pm_source src, enum pm_format fmt,
		       const char *text)
{
	struct pm_file f;
	char *out = NULL, *r;

	memset(&f, 0, sizeof(f));
	f.source = src;
	f.format = fmt;
	f.node = "n2";
	f.rank = -1;
	ck_assert_int_eq(pm_trust_mask(ev, &f, text, strlen(text), &out), 0);
	/* the masked copy is strlen(text) bytes, not NUL-terminated (strndup would read past it) */
	r = malloc(strlen(text) + 1);
	ck_assert_ptr_nonnull(r);
	memcpy(r, out ? out : text, strlen(text));
	r[strlen(text)] = '\0';
	free(out);
	ck_assert_uint_eq(strlen(r), strlen(text)); /* offsets hold */
	return r;
}

static char *slurmd(const struct pm_evidence *ev, const char *text)
{
	return masked_as(ev, PM_SRC_SCHEDULER, PM_FMT_SLURMD_LOG, text);
}

static bool blanked(const char *s)
{
	for (; *s; s++)
		if (*s != ' ' && *s != '\n')
			return false;
	return true;
}

/* EV's slurmd log masks TEXT whole: only blanks and line ends are left. */
static void slurmd_blanks(const struct pm_evidence *ev, const char *text)
{
	char *m = slurmd(ev, text);

	ck_assert_msg(blanked(m), "not masked whole: %s", text);
	free(m);
}

START_TEST(test_stderr_path)
{
	struct pm_evidence ev;
	char *m;

	job25(&ev);
	m = slurmd(&ev, "[2026-12-01T10:00:01.000] [25.batch] error: Could not open stderr file "
			"/home/u/adv/nonexist/*** JOB 1 ON n2 UNCORRECTABLE MEMORY ERROR AT "
			"2026-12-01T10:00:00 ***/e.err: No such file or directory\n");
	ck_assert_ptr_null(strstr(m, "UNCORRECTABLE"));
	ck_assert_ptr_nonnull(strstr(m, "[25.batch] error: Could not open stderr file "));
	free(m);
	/* a relative path, and stdout */
	m = slurmd(&ev, "[2026-12-01T10:00:01.000] [25.batch] error: Could not open stdout file "
			"adv/update_node: node n2 reason set to: NHC: check_hw_ib: No IB port is "
			"ACTIVE/o.out: No such file or directory\n");
	ck_assert_ptr_null(strstr(m, "check_hw_ib"));
	free(m);
}
END_TEST

START_TEST(test_chdir_path)
{
	struct pm_evidence ev;
	char *m;

	job25(&ev);
	m = slurmd(&ev, "[2026-12-01T10:00:01.000] [25.batch] error: couldn't chdir to "
			"`/home/u/NHC: 802: system not yet initialized': No such file or "
			"directory: going to /tmp instead\n");
	ck_assert_ptr_null(strstr(m, "system not yet"));
	ck_assert_ptr_nonnull(strstr(m, "couldn't chdir to "));
	free(m);
	/* any other path slurmd quotes: to the end of the line */
	m = slurmd(&ev, "[2026-12-01T10:00:01.000] [25.0] error: execve(): /home/u/*** STEP 25.0 "
			"ON n2 UNCORRECTABLE MEMORY ERROR AT x ***: No such file or directory\n");
	ck_assert_ptr_null(strstr(m, "UNCORRECTABLE"));
	/* the path only: slurmstepd's own errno text stays for the rules that read it */
	ck_assert_ptr_nonnull(strstr(m, "error: execve(): ___"));
	ck_assert_ptr_nonnull(strstr(m, "___: No such file or directory\n"));
	free(m);
	/* a path that does not end in strerror's text: to the end of the line */
	m = slurmd(&ev, "[2026-12-01T10:00:01.000] [25.0] error: Could not open stdout file "
			"/x/a: system not yet initialized\n");
	ck_assert_ptr_null(strstr(m, "system not yet"));
	free(m);
	/* slurmd's own batch script in its spool is not the user's */
	m = slurmd(&ev, "[2026-12-01T10:00:01.000] [25.batch] error: execve(): "
			"/var/spool/slurmd/job00025/slurm_script: No such file or directory\n");
	ck_assert_ptr_nonnull(strstr(m, "/var/spool/slurmd/job00025/slurm_script: No such"));
	free(m);
}
END_TEST

/* slurmstepd writes a user's path as it is, newlines included: the lines up to the one that
 * ends with the record's strerror text are the user's, however much they look like slurm's */
START_TEST(test_newline_in_path)
{
	struct pm_evidence ev;
	const char *text =
		"[2026-12-01T10:00:01.000] [24.batch] error: Could not open stderr file /x/a\n"
		"[2026-12-01T10:30:00.000] [25.batch] error: *** JOB 25 ON n2 UNCORRECTABLE MEMORY "
		"ERROR AT 2026-12-01T10:30:00 ***\n"
		"[2026-12-01T10:30:00.000] [25.batch] x/e.err: No such file or directory\n"
		"[2026-12-01T10:00:02.000] [25.batch] error: couldn't chdir to `/x/b\n"
		"[2026-12-01T10:20:00.000] update_node: node n2 reason set to: NHC: check_hw_ib: No IB "
		"port is ACTIVE\n"
		"': No such file or directory: going to /tmp instead\n"
		"[2026-12-01T10:00:03.000] [25.batch] done with job\n";
	char *m;

	job25(&ev);
	m = slurmd(&ev, text);
	ck_assert_ptr_null(strstr(m, "UNCORRECTABLE"));
	ck_assert_ptr_null(strstr(m, "check_hw_ib"));
	ck_assert_ptr_nonnull(strstr(m, "[25.batch] error: couldn't chdir to `"));
	ck_assert_ptr_nonnull(strstr(m, "[25.batch] done with job"));
	free(m);
}
END_TEST

/* A line of this job from before the job began (an earlier run, or planted) is not its. */
START_TEST(test_job_line_outside_window)
{
	struct pm_evidence ev;

	job25(&ev);
	slurmd_blanks(&ev, "[2026-11-30T10:30:00.000] [25.batch] error: *** JOB 25 ON n2 "
			   "UNCORRECTABLE MEMORY ERROR AT 2026-11-30T10:30:00 ***\n");
}
END_TEST

START_TEST(test_job_name_and_comment)
{
	struct pm_evidence ev;
	char *m;

	job25(&ev);
	m = slurmd(&ev, "[2026-12-01T10:00:01.000] [25.batch] debug: JobName=update_node: node n2 "
			"reason set to: NHC: check_hw_ib: No IB port is ACTIVE\n");
	ck_assert_ptr_null(strstr(m, "check_hw_ib"));
	free(m);
	m = slurmd(&ev, "[2026-12-01T10:00:01.000] JobId=25 Comment=*** JOB 25 ON n2 "
			"UNCORRECTABLE MEMORY ERROR AT 2026-12-01T10:00:00 ***\n");
	ck_assert_ptr_null(strstr(m, "UNCORRECTABLE"));
	ck_assert_ptr_nonnull(strstr(m, "JobId=25 Comment="));
	free(m);
	/* anything quoted */
	m = slurmd(&ev, "[2026-12-01T10:00:01.000] [25.0] error: spank: option \"NHC: 802: system "
			"not yet initialized\" refused\n");
	ck_assert_ptr_null(strstr(m, "system not yet"));
	free(m);
}
END_TEST

START_TEST(test_own_lines_kept)
{
	struct pm_evidence ev;
	const char *own =
		"[2026-12-01T10:30:00.000] [25.batch] error: *** JOB 25 ON n2 UNCORRECTABLE "
		"MEMORY ERROR AT 2026-12-01T10:30:00 ***\n"
		"[2026-12-01T10:30:00.100] [25.0] error: Detected 1 oom_kill event in StepId=25.0. "
		"Some of the step tasks have been OOM Killed.\n"
		"[2026-12-01T10:00:00.100] launch task StepId=25.0 request from UID:1000 GID:1000 "
		"HOST:10.1.0.11 PORT:41822\n"
		"[2026-12-01T10:20:00.000] update_node: node n2 reason set to: NHC: check_hw_ib: No "
		"IB port is ACTIVE\n";
	char *m;

	job25(&ev);
	m = slurmd(&ev, own);
	ck_assert_str_eq(m, own);
	free(m);
}
END_TEST

START_TEST(test_other_job)
{
	struct pm_evidence ev;

	job25(&ev);
	/* another job's line, even one of slurmd's own; a number of this job elsewhere in it
	 * does not make it this job's */
	slurmd_blanks(&ev, "[2026-12-01T10:30:00.000] [26.batch] error: *** JOB 26 ON n2 "
			   "UNCORRECTABLE MEMORY ERROR AT 2026-12-01T10:30:00 25 ***\n");
	slurmd_blanks(&ev,
		      "[2026-12-01T10:30:00.000] [261.batch] error: Could not open stderr file "
		      "/x/ERROR AT 25 ***/e: No such file or directory\n");
	slurmd_blanks(&ev, "[2026-12-01T10:30:00.000] _run_prolog: prolog with lock for job 26 ran "
			   "for 0 seconds (25)\n");
	slurmd_blanks(&ev, "[2026-12-01T10:30:00.000] Time limit exhausted for JobId=26\n");
}
END_TEST

START_TEST(test_array_job_raw_id)
{
	struct pm_evidence ev;
	struct pm_fact raw = {.name = "job.id_raw", .value = 27, .gpu = -1};
	const char *line = "[2026-12-01T10:30:00.000] [27.batch] error: *** JOB 27 ON n2 "
			   "UNCORRECTABLE MEMORY ERROR AT 2026-12-01T10:30:00 ***\n";
	char *m;

	job25(&ev);
	ev.job.id = "25_3";
	slurmd_blanks(&ev, line); /* 27 is not known to be this job */
	ev.facts = &raw;
	ev.nfacts = 1;
	m = slurmd(&ev, line);
	ck_assert_str_eq(m, line);
	free(m);
}
END_TEST

START_TEST(test_window_and_node)
{
	struct pm_evidence ev;
	char *m;

	job25(&ev);
	/* a node-level line from the day before: not this job's */
	slurmd_blanks(&ev, "[2026-11-30T10:20:00.000] update_node: node n2 reason set to: NHC: "
			   "check_hw_ib: No IB port is ACTIVE\n");
	/* a node outside the job */
	slurmd_blanks(&ev, "[2026-12-01T10:20:00.000] update_node: node n3 reason set to: NHC: "
			   "check_hw_ib: No IB port is ACTIVE\n");
	slurmd_blanks(&ev, "[2026-12-01T10:30:00.000] [25.batch] error: *** JOB 25 ON n3 "
			   "UNCORRECTABLE MEMORY ERROR AT 2026-12-01T10:30:00 ***\n");
	/* a line slurm did not write (no stamp of its own) */
	slurmd_blanks(&ev,
		      "*** JOB 25 ON n2 UNCORRECTABLE MEMORY ERROR AT 2026-12-01T10:30:00 ***\n");
	/* nothing known about the job: the user's fields are still masked */
	memset(&ev, 0, sizeof(ev));
	m = slurmd(&ev, "[2026-12-01T10:00:01.000] [25.batch] error: Could not open stderr file "
			"/x/*** JOB 1 ON n2 UNCORRECTABLE MEMORY ERROR AT x ***/e\n");
	ck_assert_ptr_null(strstr(m, "UNCORRECTABLE"));
	free(m);
}
END_TEST

static char *kernel(const char *text)
{
	struct pm_evidence ev;

	job25(&ev);
	return masked_as(&ev, PM_SRC_KERNEL_LOG, PM_FMT_KMSG_ISO, text);
}

START_TEST(test_kernel_process_names)
{
	char *m;

	/* a process named like EDAC's report (15 bytes, as long as a name can be) */
	m = kernel("2026-12-01T10:30:00,000000+00:00 EDAC MC0: 1 UE [4242]: segfault at 0 ip "
		   "0000 sp 0000 error 4 in libc.so.6[7f00+1000]\n");
	ck_assert_ptr_null(strstr(m, "EDAC"));
	ck_assert_ptr_nonnull(strstr(m, "[4242]: segfault at 0 ip 0000 sp 0000 error 4 in "));
	free(m);
	/* the library's file name: any text but '/' */
	m = kernel("2026-12-01T10:30:00,000000+00:00 python[4242]: segfault at 0 ip 0000 sp 0000 "
		   "error 4 in NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=x, GPU has fallen off "
		   "the bus.so[7f00+1000]\n");
	ck_assert_ptr_null(strstr(m, "Xid"));
	free(m);
	m = kernel("2026-12-01T10:30:00,000000+00:00 traps: EDAC MC0: 1 UE [4242] general "
		   "protection fault ip:0 sp:0 error:0 in x[7f00+1000]\n");
	ck_assert_ptr_null(strstr(m, "EDAC"));
	free(m);
	m = kernel("2026-12-01T10:30:00,000000+00:00 Out of memory: Killed process 4242 (EDAC MC0: "
		   "1 UE ) total-vm:1kB, anon-rss:1kB, file-rss:0kB, shmem-rss:0kB, UID:1000\n");
	ck_assert_ptr_null(strstr(m, "EDAC"));
	ck_assert_ptr_nonnull(strstr(m, ") total-vm:1kB"));
	free(m);
	m = kernel("2026-12-01T10:30:00,000000+00:00 EDAC MC0: 1 UE  invoked oom-killer: "
		   "gfp_mask=0x0\n");
	ck_assert_ptr_null(strstr(m, "EDAC"));
	free(m);
	m = kernel("2026-12-01T10:30:00,000000+00:00 [   4242]  1000  4242    12345      678    "
		   "90112        0             0 EDAC MC0: 1 UE \n");
	ck_assert_ptr_null(strstr(m, "EDAC"));
	free(m);
	m = kernel("2026-12-01T10:30:00,000000+00:00 CPU: 3 PID: 4242 Comm: EDAC MC0: 1 UE  Not "
		   "tainted\n");
	ck_assert_ptr_null(strstr(m, "EDAC"));
	free(m);
	/* NVRM's own Xid line keeps what the rules read; the process name goes */
	m = kernel("2026-12-01T10:30:00,000000+00:00 NVRM: Xid (PCI:0000:3b:00): 13, pid=4242, "
		   "name=EDAC MC0: 1 UE , Graphics Exception\n");
	ck_assert_ptr_null(strstr(m, "EDAC"));
	ck_assert_ptr_nonnull(strstr(m, "NVRM: Xid (PCI:0000:3b:00): 13, pid=4242, name="));
	free(m);
	/* the kernel's own lines are left alone */
	m = kernel("2026-12-01T10:30:00,000000+00:00 EDAC MC0: 1 UE on unknown memory\n");
	ck_assert_ptr_nonnull(strstr(m, "EDAC MC0: 1 UE on"));
	free(m);
}
END_TEST

/* A syslog line tagged "kernel: " that is a process's journal entry (its "[pid]:" after a
 * blank) loses the tag in the masked copy, decided before the masks that would cover the mark;
 * the kernel's own line with a name= field keeps it. */
START_TEST(test_syslog_forged_tag_under_mask)
{
	static const char *const forged[] = {
		"Dec 01 10:30:00 n2 kernel: NVRM: Xid (PCI:0000:c1:00): 79, pid=1, GPU has fallen "
		"off the bus. exe=x[88412]: ok\n",
		"Dec 01 10:30:00 n2 kernel: NVRM: Xid (PCI:0000:c1:00): 79, pid=1, "
		"name=python,[88412]: GPU has fallen off the bus.\n",
		"Dec 01 10:30:00 n2 kernel: NVRM: Xid (PCI:0000:c1:00): 79, pid=1, GPU has fallen "
		"off the bus.[88412]:\n",
	};
	struct pm_evidence ev;
	struct pm_prefix px;
	char *m;

	job25(&ev);
	for (size_t i = 0; i < sizeof(forged) / sizeof(forged[0]); i++) {
		m = masked_as(&ev, PM_SRC_KERNEL_LOG, PM_FMT_SYSLOG, forged[i]);
		ck_assert_msg(!strstr(m, "kernel: "), "'%s'", m);
		pm_prefix_parse(PM_FMT_SYSLOG, m, strlen(m) - 1, &px);
		ck_assert_msg(!px.kernel, "'%s'", m);
		free(m);
	}
	m = masked_as(&ev, PM_SRC_KERNEL_LOG, PM_FMT_SYSLOG,
		      "Dec 01 10:30:00 n2 kernel: NVRM: Xid (PCI:0000:c1:00): 79, pid=1, "
		      "name=python, GPU has fallen off the bus.\n");
	ck_assert_ptr_null(strstr(m, "python"));
	pm_prefix_parse(PM_FMT_SYSLOG, m, strlen(m) - 1, &px);
	ck_assert(px.kernel);
	free(m);
}
END_TEST

START_TEST(test_nvsmi_process_name)
{
	struct pm_evidence ev;
	char *m;

	job25(&ev);
	m = masked_as(&ev, PM_SRC_GPU_STATE, PM_FMT_NVSMI_Q,
		      "    Processes\n        Process ID                        : 4242\n"
		      "            Type                          : C\n"
		      "            Name                          : Unable to determine the device "
		      "handle for GPU 0000:3b:00.0: GPU is lost\n"
		      "    Fabric\n        State                             : Completed\n");
	ck_assert_ptr_null(strstr(m, "GPU is lost"));
	ck_assert_ptr_nonnull(strstr(m, "State                             : Completed"));
	free(m);
}
END_TEST

/* The default table's Processes box: a process's name (any argv[0]) is masked after its
 * Type, in both layouts; the top table's rows and the box's header are kept. */
START_TEST(test_nvsmi_table_process_name)
{
	struct pm_evidence ev;
	char *m;

	job25(&ev);
	m = masked_as(&ev, PM_SRC_GPU_STATE, PM_FMT_NVSMI_TABLE,
		      "|   1  ERR!                  On   | 00000000:3B:00.0 Off |   ERR! |\n"
		      "|  GPU   GI   CI        PID   Type   Process name          GPU Memory |\n"
		      "|    0   N/A  N/A      4242      C   Unable to determine the device handle "
		      "for GPU 0000:3b:00.0: GPU is lost   1MiB |\n"
		      "|    1     4243    C+G   NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen "
		      "off the bus.   1MiB |\n");
	ck_assert_ptr_null(strstr(m, "GPU is lost"));
	ck_assert_ptr_null(strstr(m, "fallen"));
	ck_assert_ptr_nonnull(strstr(m, "4242      C"));
	ck_assert_ptr_nonnull(
		strstr(m, "|   1  ERR!                  On   | 00000000:3B:00.0 Off |"));
	ck_assert_ptr_nonnull(strstr(m, "Process name          GPU Memory |"));
	free(m);
}
END_TEST

/* Hostile bytes in any trusted format: the copy keeps the length and every line break, and
 * never adds text (only '_' and ' ' replace bytes). */
START_TEST(test_mask_keeps_lines)
{
	static const char *const seeds[] = {
		"[2026-12-01T10:00:01.000] [25.batch] error: Could not open stderr file /x/a: No "
		"such file or directory\n",
		"[2026-12-01T10:00:01.000] [25.batch] error: couldn't chdir to `/x': Not a "
		"directory: going to /tmp instead\n",
		"[2026-12-01T10:00:01.000] JobId=25_3(27) Comment=\"x\" node n2 ON n3 NodeName=n1\n",
		"2026-12-01T10:30:00,000000+00:00 a[1]: segfault at 0 ip 0 sp 0 error 4 in b[7f+1]\n",
		"2026-12-01T10:30:00,000000+00:00 Killed process 1 (a) total-vm:1kB, task=a,pid=1\n",
		"            Name                          : x\n",
		"|    0   N/A  N/A      4242      C   x y                        1MiB |\n",
	};
	static const enum pm_source src[] = {PM_SRC_SCHEDULER, PM_SRC_KERNEL_LOG, PM_SRC_GPU_STATE,
					     PM_SRC_GPU_STATE};
	static const enum pm_format fmt[] = {PM_FMT_SLURMD_LOG, PM_FMT_KMSG_ISO, PM_FMT_NVSMI_Q,
					     PM_FMT_NVSMI_TABLE};
	struct pm_evidence ev;
	unsigned long long x = 88172645463325252ULL;
	char buf[512];

	job25(&ev);
	for (int it = 0; it < 5000; it++) {
		size_t n = 0;
		for (int k = 0; k < 3; k++) {
			const char *sd;
			size_t l;
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			sd = seeds[x % (sizeof(seeds) / sizeof(seeds[0]))];
			l = strlen(sd);
			if (n + l >= sizeof(buf))
				break;
			memcpy(buf + n, sd, l);
			n += l;
		}
		for (int k = 0; k < 6 && n; k++) { /* a few bytes of anything, NULs and '\n' too */
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			buf[(x >> 8) % n] = (char)(x >> 32);
		}
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		size_t cut = n ? (x >> 16) % (n + 1) : 0; /* a chunk may end mid-line */
		struct pm_file f;
		char *out = NULL;

		memset(&f, 0, sizeof(f));
		f.source = src[x % 4];
		f.format = fmt[x % 4];
		f.node = "n2";
		ck_assert_int_eq(pm_trust_mask(&ev, &f, buf, cut, &out), 0);
		if (!out)
			continue;
		for (size_t i = 0; i < cut; i++)
			ck_assert_msg((buf[i] == '\n') == (out[i] == '\n') &&
					      (out[i] == buf[i] || out[i] == '_' || out[i] == ' '),
				      "byte %zu of iteration %d", i, it);
		free(out);
	}
}
END_TEST

/* ---- Slurm's records: a user's value never moves a field ---- */

static struct pm_evidence *ev_one_file(void)
{
	struct pm_evidence *ev = pm_evidence_create(NULL);

	ck_assert_ptr_nonnull(ev);
	ev->files = calloc(4, sizeof(*ev->files));
	ck_assert_ptr_nonnull(ev->files);
	ev->afiles = 4;
	ev->nfiles = 1;
	ev->files[0].name = strdup("input");
	ev->files[0].rank = -1;
	return ev;
}

static double fact_of(const struct pm_evidence *ev, const char *name)
{
	for (size_t i = 0; i < ev->nfacts; i++)
		if (!strcmp(ev->facts[i].name, name))
			return ev->facts[i].value;
	return -1;
}

START_TEST(test_scontrol_user_keys)
{
	struct pm_evidence *ev = ev_one_file();
	const char *text = "JobId=25 JobName=x NodeList=n9 JobState=NODE_FAIL\n"
			   "   UserId=u(2001) JobState=FAILED Reason=NonZeroExitCode\n"
			   "   NodeList=n[1-2] NumNodes=2 TRES=cpu=4,node=2\n"
			   "   Comment=y NodeList=n7 WorkDir=/home/u StdErr=/home/u/e\n";
	char reason[200] = "";

	ck_assert_int_eq(pm_parse_scontrol(ev, 0, text, strlen(text), reason, sizeof(reason)), 0);
	ck_assert_uint_eq(ev->job.nnodes, 0);	  /* NodeList three times: unknown */
	ck_assert_ptr_null(ev->job.state);	  /* JobState twice: unknown */
	ck_assert_int_eq(ev->job.user_uid, 2001); /* the rest as Slurm printed it */
	ck_assert(fact_of(ev, "job.id_raw") == 25);
	pm_evidence_destroy(ev);
}
END_TEST

START_TEST(test_sacct_pipe_in_user_field)
{
	struct pm_evidence *ev = ev_one_file();
	const char *text = "JobID|JobIDRaw|JobName|State|NodeList|FailedNode\n"
			   "25_3|27|a|NODE_FAIL|n9|n[1-2]|FAILED|n1|\n";
	char reason[200] = "";

	ck_assert_int_eq(pm_parse_sacct(ev, 0, text, strlen(text), reason, sizeof(reason)), 0);
	ck_assert_str_eq(ev->job.id, "25_3");
	ck_assert(fact_of(ev, "job.id_raw") == 27);
	ck_assert_ptr_null(ev->job.state);
	ck_assert_ptr_null(ev->job.failed_node);
	ck_assert_uint_eq(ev->job.nnodes, 0);
	pm_evidence_destroy(ev);
}
END_TEST

/* A job name holding line breaks: its row is split, and a whole row of the user's sits inside it. */
START_TEST(test_sacct_newline_in_user_field)
{
	static const char *const texts[] = {
		/* the probe's form: the real row's first part has too few fields */
		"JobID|JobName|State|ExitCode|NodeList|FailedNode\n"
		"91001|x\n"
		"91001|t|NODE_FAIL|0:0|gn[01-02]|gn02\n"
		"y|FAILED|1:0|gn[01-02]|\n"
		"91001.batch|batch|FAILED|1:0|gn01|\n",
		/* the first part padded with '|': the job's row twice */
		"JobID|JobName|State|ExitCode|NodeList|FailedNode\n"
		"91001|x|a|b|c|d\n"
		"91001|t|NODE_FAIL|0:0|gn[01-02]|gn02\n"
		"y|FAILED|1:0|gn[01-02]|\n",
		/* the last part padded: a row with no job id */
		"JobID|JobName|State|ExitCode|NodeList|FailedNode\n"
		"91001|t|NODE_FAIL|0:0|gn[01-02]|gn02\n"
		"y|z|FAILED|1:0|gn[01-02]|\n",
		/* a bare line of the name amid the rows */
		"JobID|JobName|State|ExitCode|NodeList|FailedNode\n"
		"91001|t|NODE_FAIL|0:0|gn[01-02]|gn02\n"
		"y\n"
		"z|x|FAILED|1:0|gn[01-02]|\n",
		/* sacct's table with a wide JobName (JobName%30): the name's last part
		 * starts a line, where JobID is, and rows follow */
		"JobID        JobName                        State      NodeList   FailedNode\n"
		"------------ ------------------------------ ---------- ---------- ----------\n"
		"91001        x\n"
		"91001        t                               NODE_FAIL gn[01-02]        gn02\n"
		"y                                               FAILED gn[01-02]\n"
		"91001.batch  batch                              FAILED      gn01\n",
		/* ... and with no row after it (sacct -X): the job's row twice */
		"JobID        JobName                        State      NodeList   FailedNode\n"
		"------------ ------------------------------ ---------- ---------- ----------\n"
		"91001        x\n"
		"91001        t                               NODE_FAIL gn[01-02]        gn02\n"
		"y                                               FAILED gn[01-02]\n",
		/* JobID after the name, its row split with extra '|': its id cannot be read */
		"JobName|JobID|State|ExitCode|NodeList|FailedNode\n"
		"x|1|2|3|4|5\n"
		"t|91001|NODE_FAIL|0:0|gn[01-02]|gn02\n"
		"y|z|91001|FAILED|1:0|gn[01-02]|\n",
	};
	char reason[300];

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct pm_evidence *ev = ev_one_file();

		/* the folder names the job (slurm-91001.out): a listing of several jobs is read */
		ev->nfiles = 2;
		ev->files[1].name = strdup("slurm-91001.out");
		ev->files[1].rank = -1;
		reason[0] = 0;
		ck_assert_int_ne(pm_parse_sacct(ev, 0, texts[i], strlen(texts[i]), reason,
						sizeof(reason)),
				 0);
		ck_assert_msg(strstr(reason, "the user writes"), "%zu: %s", i, reason);
		ck_assert_ptr_null(ev->job.failed_node);
		ck_assert_ptr_null(ev->job.state);
		pm_evidence_destroy(ev);
	}
}
END_TEST

/* Near-miss: a whole listing with JobName, and a listing of runs (sacct -D) without one. */
START_TEST(test_sacct_user_field_whole_rows)
{
	static const char *const texts[] = {
		"JobID|JobName|State|ExitCode|NodeList|FailedNode\n"
		"91001|train|NODE_FAIL|0:0|gn[01-02]|gn02\n"
		"91001.batch|batch|CANCELLED|0:15|gn01|\n"
		"91001.0|python|CANCELLED|0:15|gn[01-02]|\n"
		"\n",
		"JobID|State|ExitCode|NodeList|FailedNode\n"
		"91001|NODE_FAIL|0:0|gn[01-02]|gn02\n"
		"91001|REQUEUED|0:0|gn[01-02]|\n"
		"91001|NODE_FAIL|0:0|gn[01-02]|gn02\n",
	};
	char reason[300] = "";

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct pm_evidence *ev = ev_one_file();

		ck_assert_msg(pm_parse_sacct(ev, 0, texts[i], strlen(texts[i]), reason,
					     sizeof(reason)) == 0,
			      "%zu: %s", i, reason);
		ck_assert_str_eq(ev->job.failed_node, "gn02");
		ck_assert_str_eq(ev->job.state, "NODE_FAIL");
		pm_evidence_destroy(ev);
	}
}
END_TEST

/* ---- whole diagnoses with the bundled rules ---- */

static char tmp[256];

static void setup(void)
{
	snprintf(tmp, sizeof(tmp), "/tmp/pm-trust-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmp));
}

static void teardown(void)
{
	pmt_rmtree(tmp);
}

static const char *SACCT =
	"JobID|JobIDRaw|State|ExitCode|Start|End|NodeList|NNodes|NTasks|AllocTRES|Cluster|UID\n"
	"25|25|FAILED|1:0|2026-12-01T10:00:00|2026-12-01T11:00:00|n[1-2]|2|4|cpu=4,node=2|pmlab|"
	"2001\n"
	"25.batch|25.batch|FAILED|1:0|2026-12-01T10:00:00|2026-12-01T11:00:00|n1|1|1|cpu=2|pmlab|"
	"2001\n";

static const char *KLOG = "2026-12-01T09:59:00,000000+00:00 Linux version 6.1.0\n";

static json_t *diagnose(void)
{
	char p[400], err[256];
	struct pm_ruleset *rs = pm_ruleset_load(PM_TEST_SRCDIR "/rules", err, sizeof(err));
	struct pm_evidence *ev;
	json_t *v;

	ck_assert_msg(rs != NULL, "rules: %s", err);
	ev = pm_evidence_create(rs);
	snprintf(p, sizeof(p), "%s/ev", tmp);
	ck_assert_int_eq(pm_evidence_add_path(ev, p, err, sizeof(err)), 0);
	v = pm_diagnose(ev, err, sizeof(err));
	ck_assert_msg(v != NULL, "diagnose: %s", err);
	pm_evidence_destroy(ev);
	pm_ruleset_destroy(rs);
	return v;
}

static bool hw_class(const char *c)
{
	return c && (!strcmp(c, "gpu_hardware") || !strcmp(c, "nvlink") ||
		     !strcmp(c, "network_fabric") || !strcmp(c, "host_hardware"));
}

/* No hardware class as the cause or a candidate, no node excluded, no trusted hardware
 * evidence against any node. */
static void assert_nothing_against_a_node(json_t *v)
{
	json_t *c = json_object_get(v, "cause"), *x;
	const char *cont = json_string_value(
		json_object_get(json_object_get(json_object_get(v, "decision"), "containment"),
				"id"));
	size_t i;
	char *all = json_dumps(v, JSON_COMPACT), dump[600];

	snprintf(dump, sizeof(dump), "%s", all ? all : "");
	free(all);

	ck_assert_msg(!hw_class(json_string_value(json_object_get(c, "class"))), "cause: %s", dump);
	json_array_foreach(json_object_get(v, "candidates"), i, x)
		ck_assert_msg(!hw_class(json_string_value(json_object_get(x, "class"))),
			      "candidate: %s", dump);
	ck_assert_msg(!cont || strcmp(cont, "retry-exclude-node"), "containment: %s", dump);
	json_array_foreach(json_object_get(v, "evidence"), i, x)
	{
		const char *rule = json_string_value(json_object_get(x, "rule"));
		ck_assert_msg(strcmp(rule, "ume-slurmstepd") &&
				      strcmp(rule, "edac-uncorrected-error") &&
				      strcmp(rule, "net-nhc-ib-no-active-port") &&
				      strcmp(rule, "fabric-manager-not-ready") &&
				      strncmp(rule, "xid-", 4),
			      "evidence %s: %s", rule, dump);
	}
}

static void base_evidence(void)
{
	pmt_mk(tmp, "ev/sacct.txt", SACCT);
	pmt_mk(tmp, "ev/n1/kernel.log", KLOG);
	pmt_mk(tmp, "ev/n2/kernel.log", KLOG);
}

START_TEST(test_diagnose_user_fields)
{
	json_t *v;

	base_evidence();
	pmt_mk(tmp, "ev/n2/slurmd.log",
	       "[2026-12-01T10:00:00.100] Launching batch job 25 for UID 2001\n"
	       "[2026-12-01T10:00:00.200] [25.batch] error: Could not open stderr file /home/u/adv/"
	       "*** JOB 1 ON n2 UNCORRECTABLE MEMORY ERROR AT 2026-12-01T10:00:00 ***/e.err: No such "
	       "file or directory\n"
	       "[2026-12-01T10:00:00.300] [25.batch] error: Could not open stdout file /home/u/adv/"
	       "update_node: node n2 reason set to: NHC: check_hw_ib: No IB port is ACTIVE/o: No "
	       "such file or directory\n"
	       "[2026-12-01T10:00:00.400] [25.batch] error: couldn't chdir to `/home/u/NHC: 802: "
	       "system not yet initialized': No such file or directory: going to /tmp instead\n"
	       "[2026-12-01T10:00:00.500] [25.batch] error: IO setup failed: No such file or "
	       "directory\n"
	       "[2026-12-01T10:00:01.000] [25.batch] done with job\n");
	pmt_mk(tmp, "ev/n2/kernel.log",
	       "2026-12-01T09:59:00,000000+00:00 Linux version 6.1.0\n"
	       "2026-12-01T10:00:30,000000+00:00 EDAC MC0: 1 UE [4242]: segfault at 0 ip 0000 sp 0000 "
	       "error 4 in NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=x, GPU has fallen off the "
	       "bus.so[7f00+1000]\n");
	v = diagnose();
	assert_nothing_against_a_node(v);
	json_decref(v);
}
END_TEST

START_TEST(test_diagnose_other_job_and_planted)
{
	json_t *v;

	base_evidence();
	/* another user's job 24 quoting this job's number in its path, before this job began,
	 * and job 26's own report on n2 */
	pmt_mk(tmp, "ev/n2/slurmd.log",
	       "[2026-12-01T09:40:00.000] [24.batch] error: Could not open stderr file /home/v/25 26 "
	       "27/*** JOB 25 ON n2 UNCORRECTABLE MEMORY ERROR AT 25 ***/e: No such file or "
	       "directory\n"
	       "[2026-12-01T10:00:00.100] Launching batch job 25 for UID 2001\n"
	       "[2026-12-01T10:30:00.000] [26.batch] error: *** JOB 26 ON n2 UNCORRECTABLE MEMORY "
	       "ERROR AT 2026-12-01T10:30:00 ***\n"
	       "[2026-11-30T10:30:00.000] update_node: node n2 reason set to: NHC: check_hw_ib: No IB "
	       "port is ACTIVE\n"
	       "[2026-12-01T10:31:00.000] update_node: node n3 reason set to: NHC: check_hw_ib: No IB "
	       "port is ACTIVE\n");
	v = diagnose();
	assert_nothing_against_a_node(v);
	json_decref(v);
}
END_TEST

/* The control: slurmd's own report for this job is still read and names n2 (the tests above
 * can fail). */
START_TEST(test_diagnose_own_report_counts)
{
	json_t *v;
	const char *cls, *cont;

	base_evidence();
	pmt_mk(tmp, "ev/n2/slurmd.log",
	       "[2026-12-01T10:00:00.100] Launching batch job 25 for UID 2001\n"
	       "[2026-12-01T10:30:00.000] [25.batch] error: *** JOB 25 ON n2 UNCORRECTABLE MEMORY "
	       "ERROR AT 2026-12-01T10:30:00 ***\n");
	v = diagnose();
	cls = json_string_value(json_object_get(json_object_get(v, "cause"), "class"));
	cont = json_string_value(
		json_object_get(json_object_get(json_object_get(v, "decision"), "containment"),
				"id"));
	ck_assert_str_eq(cls ? cls : "", "host_hardware");
	/* slurmstepd's line is read and names n2, but alone (no machine check in n2's kernel log)
	 * it is only a confirmation: a fallback lead, retry, no node excluded for the user */
	ck_assert_str_eq(
		json_string_value(json_array_get(json_object_get(json_object_get(v, "origin"), "nodes"), 0)) ?:
			"",
		"n2");
	ck_assert_str_eq(cont ? cont : "", "retry");
	json_decref(v);
}
END_TEST

/* A job name holding '|' and a line break, balanced: every line has the header's fields, the
 * first a whole row of the user's under the job's id (NODE_FAIL, FailedNode n2), Slurm's own
 * columns in a step row of the name's making.  It cannot be told from Slurm's, so a record
 * from a listing with a column the user writes blames no node by itself: at most hypothesis,
 * retry, no repair.  The same record with the collector's fields (no user column) still
 * excludes the node: the control. */
static const char *SACCT_FORGED =
	"JobID|JobName|State|ExitCode|Start|End|NodeList|NNodes|NTasks|FailedNode\n"
	"25|t|NODE_FAIL|0:0|2026-12-01T10:00:00|2026-12-01T11:00:00|n[1-2]|2||n2\n"
	"25.7|x|FAILED|1:0|2026-12-01T10:00:00|2026-12-01T11:00:00|n[1-2]|2||\n"
	"25.batch|batch|FAILED|1:0|2026-12-01T10:00:00|2026-12-01T11:00:00|n1|1|1|\n";
static const char *SACCT_COLLECTOR =
	"JobID|JobIDRaw|State|ExitCode|Start|End|NodeList|NNodes|NTasks|FailedNode|UID\n"
	"25|25|NODE_FAIL|0:0|2026-12-01T10:00:00|2026-12-01T11:00:00|n[1-2]|2||n2|2001\n"
	"25.batch|25.batch|FAILED|1:0|2026-12-01T10:00:00|2026-12-01T11:00:00|n1|1|1||2001\n";

START_TEST(test_sacct_user_column_marks_record)
{
	const char *texts[] = {SACCT_FORGED, SACCT_COLLECTOR};
	char reason[300] = "";

	for (size_t i = 0; i < 2; i++) {
		struct pm_evidence *ev = ev_one_file();

		ck_assert_msg(pm_parse_sacct(ev, 0, texts[i], strlen(texts[i]), reason,
					     sizeof(reason)) == 0,
			      "%zu: %s", i, reason);
		ck_assert_str_eq(ev->job.state, "NODE_FAIL"); /* the state is still read */
		ck_assert_str_eq(ev->job.failed_node, "n2");
		ck_assert(ev->job.record_user_text == (i == 0));
		pm_evidence_destroy(ev);
	}
}
END_TEST

START_TEST(test_diagnose_sacct_user_column_node_fail)
{
	const char *texts[] = {SACCT_FORGED, SACCT_COLLECTOR};

	for (size_t i = 0; i < 2; i++) {
		json_t *v, *dec;
		const char *sub, *conf, *cont, *node;
		char *why;

		pmt_mk(tmp, "ev/sacct.txt", texts[i]);
		pmt_mk(tmp, "ev/slurm-25.out", "step 10/100 loss=2.5\n");
		v = diagnose();
		dec = json_object_get(v, "decision");
		sub = json_string_value(json_object_get(json_object_get(v, "cause"), "subclass"));
		conf = json_string_value(json_object_get(v, "confidence"));
		cont = json_string_value(
			json_object_get(json_object_get(dec, "containment"), "id"));
		node = json_string_value(
			json_array_get(json_object_get(json_object_get(v, "origin"), "nodes"), 0));
		why = json_dumps(json_object_get(v, "why"), JSON_COMPACT);
		ck_assert_str_eq(sub ? sub : "", "node_fail");
		ck_assert_str_eq(node ? node : "", "n2");
		if (i == 0) {
			ck_assert_str_eq(conf ? conf : "", "hypothesis");
			ck_assert_str_eq(cont ? cont : "", "retry");
			ck_assert(json_is_null(json_object_get(dec, "repair")));
			ck_assert_msg(why && strstr(why, "a column the job's user writes"), "%s",
				      why ? why : "");
		} else {
			ck_assert_str_ne(conf ? conf : "", "hypothesis");
			ck_assert_str_eq(cont ? cont : "", "retry-exclude-node");
			ck_assert_msg(why && !strstr(why, "a column the job's user writes"), "%s",
				      why ? why : "");
		}
		free(why);
		json_decref(v);
		pmt_rmtree(tmp);
		ck_assert_int_eq(mkdir(tmp, 0700), 0);
	}
}
END_TEST

/* Job 61 on pk14: its kernel log (GPU lost, Xid 79) and nvidia-smi -q (uncorrectable ECC,
 * a row remap failed), Slurm's record and the job's output.  Given as the collector gives
 * them (each file's source and node named), the node's two records justify the drain; the
 * same bytes in a folder gathered by hand ("pk14-dmesg.txt", "pk14-nvidia-smi-q.txt", read by
 * their content and name) still lead at established and exclude pk14, but the repair is not
 * justified and says what would justify it, and `why` does not call them sources the job
 * cannot write: the job could have written both into its own folder (review32 F01). */
static const char *PK_SACCT = "JobID|State|ExitCode|Start|End|NodeList|NNodes|NTasks\n"
			      "61|FAILED|1:0|2026-12-01T10:00:00|2026-12-01T10:40:00|pk14|1|\n"
			      "61.0|FAILED|1:0|2026-12-01T10:00:02|2026-12-01T10:39:59|pk14|1|2\n";
static const char *PK_OUT = "step 40 loss 2.1\n"
			    "RuntimeError: CUDA error: unspecified launch failure\n"
			    "srun: error: pk14: task 0: Exited with exit code 1\n";
static const char *PK_DMESG = "[Tue Dec  1 10:00:01 2026] nvidia-uvm: Loaded the UVM driver\n"
			      "[Tue Dec  1 10:21:13 2026] NVRM: Xid (PCI:0000:41:00): 79, "
			      "pid=5120, name=python3, GPU has fallen off the bus.\n";
static const char *PK_NVSMI =
	"==============NVSMI LOG==============\n"
	"\n"
	"Timestamp                                 : Tue Dec  1 10:40:30 2026\n"
	"Driver Version                            : 550.54.15\n"
	"\n"
	"Attached GPUs                             : 1\n"
	"GPU 00000000:41:00.0\n"
	"    Product Name                          : NVIDIA H100 80GB HBM3\n"
	"    ECC Errors\n"
	"        Volatile\n"
	"            DRAM Correctable              : 0\n"
	"            DRAM Uncorrectable            : 2\n"
	"    Remapped Rows\n"
	"        Correctable Error                 : 0\n"
	"        Uncorrectable Error               : 2\n"
	"        Pending                           : No\n"
	"        Remapping Failure Occurred        : Yes\n";

static json_t *diagnose_pk14(bool collected)
{
	char err[256];
	struct pm_ruleset *rs = pm_ruleset_load(PM_TEST_SRCDIR "/rules", err, sizeof(err));
	struct pm_evidence *ev;
	const double t = 1796122000; /* 2026-12-01T10:46:40Z */
	json_t *v;

	ck_assert_msg(rs != NULL, "rules: %s", err);
	ev = pm_evidence_create(rs);
	ck_assert_int_eq(pm_evidence_add_buffer(ev, "sacct.txt", PK_SACCT, strlen(PK_SACCT),
						collected ? "scheduler" : NULL, NULL, t),
			 0);
	ck_assert_int_eq(pm_evidence_add_buffer(ev, "slurm-61.out", PK_OUT, strlen(PK_OUT),
						collected ? "app_log" : NULL, NULL, t),
			 0);
	ck_assert_int_eq(pm_evidence_add_buffer(ev,
						collected ? "pk14/kernel.log" : "pk14-dmesg.txt",
						PK_DMESG, strlen(PK_DMESG),
						collected ? "kernel_log" : NULL,
						collected ? "pk14" : NULL, t),
			 0);
	ck_assert_int_eq(pm_evidence_add_buffer(ev,
						collected ? "pk14/nvidia-smi.txt" :
							    "pk14-nvidia-smi-q.txt",
						PK_NVSMI, strlen(PK_NVSMI),
						collected ? "gpu_state" : NULL,
						collected ? "pk14" : NULL, t),
			 0);
	v = pm_diagnose(ev, err, sizeof(err));
	ck_assert_msg(v != NULL, "diagnose: %s", err);
	pm_evidence_destroy(ev);
	pm_ruleset_destroy(rs);
	return v;
}

START_TEST(test_diagnose_hand_records_repair)
{
	for (int collected = 1; collected >= 0; collected--) {
		json_t *v = diagnose_pk14(collected), *dec = json_object_get(v, "decision");
		json_t *rep = json_object_get(dec, "repair");
		const char *conf = json_string_value(json_object_get(v, "confidence"));
		const char *cont = json_string_value(
			json_object_get(json_object_get(dec, "containment"), "id"));
		const char *req = json_string_value(json_object_get(rep, "requires"));
		char *why = json_dumps(json_object_get(v, "why"), JSON_COMPACT);

		ck_assert_msg(conf && !strcmp(conf, "established"), "%d: %s", collected,
			      why ? why : "");
		ck_assert_str_eq(cont ? cont : "", "retry-exclude-node");
		ck_assert_msg(json_is_true(json_object_get(rep, "justified")) == (collected == 1),
			      "%d: %s", collected, req ? req : "");
		if (collected) {
			ck_assert_msg(strstr(why, "a source the job cannot write"), "%s", why);
			ck_assert_msg(!strstr(req, "given by hand"), "%s", req);
		} else {
			ck_assert_msg(!strstr(why, "cannot write"), "%s", why);
			ck_assert_msg(strstr(why, "pk14-dmesg.txt as pk14's kernel log"), "%s",
				      why);
			ck_assert_msg(strstr(req, "given by hand") &&
					      strstr(req, "read by the collector"),
				      "%s", req);
		}
		free(why);
		json_decref(v);
	}
}
END_TEST

Suite *pmt_suite(void)
{
	Suite *s = suite_create("trust");
	TCase *u = tcase_create("fields");
	TCase *d = tcase_create("diagnose");

	tcase_set_timeout(u, 30);
	tcase_add_test(u, test_stderr_path);
	tcase_add_test(u, test_chdir_path);
	tcase_add_test(u, test_job_name_and_comment);
	tcase_add_test(u, test_newline_in_path);
	tcase_add_test(u, test_job_line_outside_window);
	tcase_add_test(u, test_own_lines_kept);
	tcase_add_test(u, test_other_job);
	tcase_add_test(u, test_array_job_raw_id);
	tcase_add_test(u, test_window_and_node);
	tcase_add_test(u, test_kernel_process_names);
	tcase_add_test(u, test_syslog_forged_tag_under_mask);
	tcase_add_test(u, test_nvsmi_process_name);
	tcase_add_test(u, test_nvsmi_table_process_name);
	tcase_add_test(u, test_mask_keeps_lines);
	tcase_add_test(u, test_scontrol_user_keys);
	tcase_add_test(u, test_sacct_pipe_in_user_field);
	tcase_add_test(u, test_sacct_newline_in_user_field);
	tcase_add_test(u, test_sacct_user_field_whole_rows);
	tcase_add_test(u, test_sacct_user_column_marks_record);
	suite_add_tcase(s, u);
	tcase_add_checked_fixture(d, setup, teardown);
	tcase_set_timeout(d, 60);
	tcase_add_test(d, test_diagnose_user_fields);
	tcase_add_test(d, test_diagnose_other_job_and_planted);
	tcase_add_test(d, test_diagnose_own_report_counts);
	tcase_add_test(d, test_diagnose_sacct_user_column_node_fail);
	tcase_add_test(d, test_diagnose_hand_records_repair);
	suite_add_tcase(s, d);
	return s;
}
