/*
 * internal.h - the engine's private evidence model, shared by its modules (postmortem.h holds
 * what the other parts use).  Not installed.  Parsers take (buf, len) and never assume NUL
 * termination.
 */
#ifndef PM_INTERNAL_H
#define PM_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <zstd.h>
#include "beside.h"
#include "postmortem.h"

/* ---- comparators for qsort and bsearch ---- */

/* Ints. */
static inline int pm_cmp_int(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;
	return (a > b) - (a < b);
}

/* C strings, through pointers to them. */
static inline int pm_cmp_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* The same where NULL (a JSON value that was not a string) sorts first and equals only NULL. */
static inline int pm_cmp_str_null(const void *x, const void *y)
{
	const char *a = *(const char *const *)x, *b = *(const char *const *)y;

	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

/* Grow ARR (of elements of ELEM bytes) to hold at least one more; zero-fills. 0 or -1.
 * (evidence.c) */
int pm_grow(void **arr, size_t *alloc, size_t elem);
/* The same without the zero fill, for lists whose every element is written whole when it is
 * added (files, tasks, observations): the pages past the last are never touched, where a
 * merge of 16,384 nodes zeroed tens of MiB at each doubling.  0 or -1. */
int pm_grow_raw(void **arr, size_t *alloc, size_t elem);

/* The engine's sorts (sort.c): a stable merge sort that makes glibc 2.36's qsort_r choices
 * exactly, on any C library and whether or not its buffer can be allocated, so that a
 * comparator that is no total order (cmpcand) still gives the same bytes everywhere.  Use it,
 * not qsort, for anything that reaches a verdict. */
void pm_msort_r(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *, void *),
		void *arg);
/* The same with TMP (room for N elements) as its buffer, or with none (TMP NULL: merged in
 * place, the same result): for the tests. */
void pm_msort_with(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *, void *),
		   void *arg, void *tmp);
/* pm_msort_r, after a look whether the N elements are in order already (every neighbour
 * compares <= 0): they are left as they are then.  The arrays a merge sorts mostly come in
 * order (bundles, nodes and ranks are listed by name and number), and sorting 16,384 names
 * that are in order still costs a merge sort's compares.  For a comparator that is an order
 * (ties allowed) the result is pm_msort_r's; for one that is not it can differ, so cmpcand's
 * sort calls pm_msort_r itself. */
void pm_sort(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *));
void pm_sort_r(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *, void *),
	       void *arg);

/* ---- prefixes (prefix.c) ---- */
/* the length of the terminal escape sequence (a colour code) S starts with, its ESC first */
size_t pm_ansi_len(const char *s, size_t n);

/* What a line's prefix says.  rank -1 and node_len 0 when absent. */
struct pm_prefix {
	int rank;
	const char *node; /* points into the line; not NUL-terminated */
	size_t node_len;
	size_t skip;  /* bytes of prefix to remove before matching */
	bool kernel;  /* a syslog line the kernel wrote: its tag or APP-NAME (syslog_prefix) */
	bool foreign; /* grep -H's name of another file than a system log's before it */
	/* a syslog line tagged "kernel: " that is a process's (pm_prefix_forged_kernel), and
	 * where that tag begins */
	bool forged;
	size_t tag;
	bool rank_weak; /* RANK is a bare tag's (pm_peel's rank_weak) */
};

/*
 * Parse the rank/host prefixes of one line (without its newline): srun --label "3: ",
 * "[rank3]:", "[default3]:", NCCL "host:pid:tid [dev] ", syslog "Mon dd hh:mm:ss host ",
 * and combinations ("3: [rank3]: ...", "0: host:1:2 [0] NCCL ...").  FMT decides which apply.
 */
void pm_prefix_parse(enum pm_format fmt, const char *line, size_t len, struct pm_prefix *out);

/* Whether S (N bytes: the text after a "N: " at a line's start) is a runtime's own message
 * that prints a number of its own before it, so that number is no launcher's task label:
 * NVHPC's Fortran runtime, "0: ALLOCATE: 34359738368 bytes requested; not enough memory" (or
 * "; status = 2(out of memory)"), every rank printing 0 or a number of its own, not its
 * rank.  Under srun --label the task's label stands before it ("2: 0: ALLOCATE: ..."). */
bool pm_prefix_runtime_id(const char *s, size_t n);

/* Whether M (N bytes: a line's message after its "kernel: " tag) is a process's line whose
 * identifier began with "kernel: ": a "[pid]: " after the message's first blank, or a
 * "[pid]:" that ends the line (an entry with an empty message).  journald
 * prints an entry as "IDENTIFIER[PID]: MESSAGE", and any local user sets the identifier
 * (systemd-cat -t, SYSLOG_IDENTIFIER); the kernel writes a "comm[pid]: " only at its
 * message's start, before any blank. */
bool pm_prefix_forged_kernel(const char *m, size_t n);

/* Whether PATH (a file's name in its folder, NUL-terminated) names a kernel log's source as
 * one of its words, between separators: dmesg, kern, kernel, syslog, messages, journal,
 * journalctl ("gq07-dmesg.txt", "gq07/kern.log", "syslog-gq07.txt"; not "notes.txt",
 * "gq07.txt").  A file read as a kernel log by its content alone without such a word may be
 * one the job wrote (scan.c node_from_path, att_place.c syslog_unnamed). */
bool pm_path_names_kernel(const char *path);

/* Whether LINE (LEN bytes) starts with the file name grep -H (or zgrep) puts before a line
 * it found, and that name is a system log's: under /var/log/, or with a word of messages,
 * syslog, kern, kernel, dmesg, journal ("/var/log/messages:Dec  2 ..."). */
bool pm_prefix_grep_system(const char *line, size_t len);

/* Whether ID (N bytes: "4471902", "4471899_3") is the accounting record's job: its JobID, its
 * array's id, or its JobIDRaw (scan.c). */
bool pm_record_job_id(const struct pm_evidence *ev, const char *id, size_t n);

/* ---- structured inputs (parse_*.c) ---- */

/* One number from a structured source: per node, per GPU (gpu >= 0) or per job (node NULL). */
struct pm_fact {
	char *node;
	int gpu;
	char *name; /* "gpu.ecc_volatile_uncorrectable", "node.gpu_count", ... */
	double value;
	char *pci;   /* for per-GPU facts when known, "0000:3b:00.0" */
	size_t file; /* index into ev->files */
	double time; /* event time of the sample it comes from (epoch s); 0 none */
	int minor;   /* nvidia-smi -q's Minor Number of the GPU (/dev/nvidiaN); -1 none */
};

/* Whether NAME's last part is Slurm's default output name, slurm-%j.out or slurm-%A_%a.out;
 * ID and N (when ID is not NULL) the job id it carries, "7741877" or "25_3" (scan.c). */
bool pm_slurm_output_id(const char *name, const char **id, size_t *n);

/* What the scheduler's records say about the job. */
struct pm_jobinfo {
	char *id;
	char *cluster;
	char *state;	    /* Slurm's final state word, e.g. "TIMEOUT", "CANCELLED" */
	char *cancelled_by; /* "CANCELLED by 1000" -> "1000" */
	char *failed_node;  /* sacct FailedNode */
	char *reason;
	char **nodes; /* expanded, sorted, unique */
	size_t nnodes;
	int ntasks;		    /* -1 unknown */
	int restart;		    /* -1 unknown */
	int gpus_per_node;	    /* -1 unknown */
	double start, end;	    /* epoch seconds, 0 unknown */
	int exit_code, exit_signal; /* -1 unknown */
	int user_uid;		    /* -1 unknown */
	bool local_times;	    /* START and END read from stamps without a zone (Slurm's
				     * local time), as if UTC: pm_scan_all moves them by the
				     * offset the node's own stamps carry */
	int local_zone;		    /* ... that offset, seconds east of UTC; 0 none applied */
	bool zone_read;		    /* ... taken from those stamps (+00:00 too) */
	/* LOCAL_ZONE is the offset slurmd's own zoned line launching the job puts the record's
	 * start in, not the logs' (scan.c, record_zone_launch): LOGS_ZONE the one it replaced */
	bool zone_by_launch;
	int logs_zone;
	/* slurmd's lines launching the job that were not counted (record_zone_launch): two
	 * files' that disagree on the instant or the offset (LAUNCH_SPLIT, the files' names,
	 * neither decides), and one of a file that is a system log by its lines alone beside
	 * one that is so by more (LAUNCH_SET_ASIDE, its name) */
	const char *launch_split[2];
	const char *launch_set_aside;
	bool zone_narrowed; /* ... and START, END narrowed to what every offset allows */
	/* START or END was the other less the run time (Elapsed): ELAPSED, seconds; the
	 * derived one follows the other when the record's zone is refined */
	double elapsed;
	bool start_derived, end_derived;
	/* taken from an sacct listing that shows a column the job's user writes (JobName,
	 * Comment, WorkDir...): a value there can hold whole rows of the user's, so its
	 * NODE_FAIL and FailedNode name no node as failed by themselves (att_sched.c) */
	bool record_user_text;
	/* a heterogeneous job (sacct's JobID J+N): each component's NodeList as the record
	 * prints it (NCOMPS of them, in the record's order; none for another job), and whether
	 * the record shows only part of the job (one component, or numbers with a gap): its
	 * node list is then not every node the job ran on */
	char **comps;
	size_t ncomps;
	bool het_partial;
	/* the record's numbered steps (sacct's J.0, J.1; not batch, extern, interactive): a
	 * hash of each one's id and NodeList as printed, its NTasks (-1 unknown) and whether
	 * it ran a Python interpreter; at most 16, STEPROWS_OVER where there were more.  Each
	 * numbers its tasks from 0 (att_ranks.c, steps_may_split) */
	struct pm_steprow {
		uint64_t id, nodes;
		int ntasks;
		bool python; /* its JobName a Python interpreter's (parse_sched.c, python_step) */
	} steprows[16];
	size_t nsteprows;
	bool steprows_over;
	/* a step's row of the record (its batch script's or a numbered one's, not extern's)
	 * says OUT_OF_MEMORY: Slurm saw its cgroup's OOM killer act, whatever the job's own
	 * row says (FAILED where the script exited non-zero after srun's step failed) */
	bool step_oom;
};

/* A task record from the plugin (rank_map / task_exit) or a torchrun summary. */
struct pm_task {
	int rank;
	char *node;
	int local_rank;
	char *gpus;	    /* "0,1" or NULL */
	bool gpus_relative; /* GPUS is CUDA_VISIBLE_DEVICES' (gpus_from): maybe renumbered */
	int pid;
	double start; /* 0 unknown */
	double end;
	int exited;    /* 1 when an exit record was seen */
	int exit_code; /* -1 unknown */
	int signal;    /* 0 none */
	int core;
	/* the step of the record that gave NODE: 1 + its index in the evidence's STEPS, 0 none;
	 * SPLIT: records of two steps put the rank on two nodes (each in TSPLIT) */
	unsigned step;
	bool split;
	/* NODE was given by a record of a file outside any collector's bundle (a hand-gathered
	 * folder's: read by its content, which the job may have written), FILE its index */
	bool loose;
	size_t file;
};

/* A rank's record in a step, kept where the steps' records put the rank on different
 * nodes (Slurm numbers tasks per step and per heterogeneous component): att_ranks.c
 * decides which, if any, is the rank of the job's output. */
struct pm_tsplit {
	int rank;
	unsigned step; /* as pm_task's */
	char *node;
	char *gpus; /* the rank map's, NULL none */
};

struct pm_evidence;
struct pm_obs;

/* pm_redact_text (redact.h) for many short lines: the Vectorscan scratch is kept in *SCRATCH
 * (NULL at first) from one call to the next, and freed by pm_redact_scratch_free. */
struct hs_scratch;
char *pm_redact_text_reuse(const char *s, struct hs_scratch **scratch);
/* The same for the LEN bytes at S (no NUL among them). */
char *pm_redact_span_reuse(const char *s, size_t len, struct hs_scratch **scratch);

/*
 * Observation O's line as it may be shown: redacted (whatever its source: a collector's
 * bundle is redacted already, a hand folder is not), then made valid UTF-8.  A new string
 * (free it), or NULL on ENOMEM; *SCRATCH as for pm_redact_text_reuse.  Only the lines that
 * reach a verdict are redacted (at most 16 a rule), not every kept one.
 */
char *pm_obs_line(const struct pm_obs *o, struct hs_scratch **scratch);
void pm_redact_scratch_free(struct hs_scratch *scratch);

/*
 * Parsers for structured formats.  Each reads the whole text (BUF, LEN) of file FILE and adds
 * facts, job information or tasks to EV.  They return 0, or -1 when the text is not what the
 * format promises (the file is then reported in coverage as unreadable with REASON filled).
 */
bool pm_nvsmi_q_mixed(const char *buf, size_t len);
int pm_parse_nvsmi_q(struct pm_evidence *ev, size_t file, const char *buf, size_t len, char *reason,
		     size_t rlen);
/* nvidia-smi's default table: whether a file sniffed as one is one (its Processes box, no
 * program's output after it), and its parser.  A line of --query-compute-apps=pid,
 * process_name,used_memory,gpu_bus_id --format=csv,noheader (parse_nvsmi.c). */
bool pm_nvsmi_table_whole(const char *buf, size_t len);
int pm_parse_nvsmi_table(struct pm_evidence *ev, size_t file, const char *buf, size_t len,
			 char *reason, size_t rlen);
bool pm_nvsmi_apps_line(const char *s, size_t n);
int pm_parse_nvsmi_csv(struct pm_evidence *ev, size_t file, const char *buf, size_t len,
		       char *reason, size_t rlen);
int pm_parse_sacct(struct pm_evidence *ev, size_t file, const char *buf, size_t len, char *reason,
		   size_t rlen); /* -P and table forms */
/* Several records of jobs in the folder (sacct, scontrol): another job's, and listings that
 * disagree about the job, refused before any is parsed (parse_sched.c).  -1 on ENOMEM. */
int pm_sacct_vet(struct pm_evidence *ev, size_t cap);
int pm_parse_scontrol(struct pm_evidence *ev, size_t file, const char *buf, size_t len,
		      char *reason, size_t rlen);
int pm_parse_meminfo(struct pm_evidence *ev, size_t file, const char *buf, size_t len, char *reason,
		     size_t rlen);
int pm_parse_tasks(struct pm_evidence *ev, size_t file, const char *buf, size_t len, char *reason,
		   size_t rlen); /* rank_map and task_exit JSON lines */
/* The same in two steps: the records of BUF (LEN bytes, taken over) read on any thread (NULL
 * on ENOMEM), then applied to EV in file order, as pm_parse_tasks returns. */
struct pm_tasks;
struct pm_tasks *pm_tasks_read(char *buf, size_t len);
int pm_tasks_apply(struct pm_evidence *ev, size_t file, const struct pm_tasks *t, char *reason,
		   size_t rlen);
void pm_tasks_free(struct pm_tasks *t);
size_t pm_tasks_count(const struct pm_tasks *t); /* its records */
int pm_parse_prom(struct pm_evidence *ev, size_t file, const char *buf, size_t len, char *reason,
		  size_t rlen); /* postmortem.prometheus/1 JSON lines */

/* ---- the evidence set (evidence.c) ---- */

struct pm_file {
	char *name; /* relative name shown in the verdict */
	char *path; /* where to read it; NULL for in-memory */
	void *mem;  /* in-memory content (pm_evidence_add_buffer, bundle members) */
	size_t memlen;
	char *node;	 /* from the manifest or the path; NULL unknown */
	int rank;	 /* from the path; -1 unknown */
	bool kind_given; /* source/format given by a manifest: no sniffing */
	bool bundled;	 /* a member of a collector's bundle (bundle.c) */
	/* one past the offset of the last progress line the scan read in the file (0 none);
	 * PROGRESS_KNOWN where this run scanned it (not for a scan its bundle carried) */
	bool progress_known;
	uint64_t progress_to;
	enum pm_format format;
	enum pm_source source;
	double mtime; /* observation time */
	struct pm_timectx tctx;
	enum pm_status status;
	char *reason;
	uint64_t bytes; /* decompressed bytes read */
	uint64_t lines;
	unsigned char digest[32]; /* of the bytes as given: SHA-256, or XXH3-128 and a tag for a
				   * file read from disk outside a bundle (evidence.c) */
	bool digested; /* DIGEST is known already (a bundle member, checked on reading) */
	bool released; /* in-memory content freed once scanned (pm_file_release): not read again */
	bool sniffed;  /* FORMAT told already, from the head, when its bundle was read */
	unsigned char *carry; /* its bundle's record of its scan (carry.c), NULL none */
	size_t carrylen;
	unsigned bslot;	      /* BSRC's member */
	struct pm_bsrc *bsrc; /* a bundle member not held yet: its bundle's compressed bytes hold
			       * it, decompressed when it is first read (bundle.c) */
	bool plain; /* while pm_file_read hands over a chunk: it is known to hold no ESC, CR
			* or 0xE2 byte (pm_text_dirty false), seen as its lines were counted */
	unsigned char paste_indent; /* a pasted file's indentation, from its head (pm_paste_shape):
				     * blanks the scan takes off each line */
	bool paste_quoted;	    /* ... its quote markers ("> ") */
	bool paste_runner;	    /* ... behind a CI runner's stamps */
	unsigned char paste_numbered; /* ... its line numbers' form (PM_NUM_) */
	bool paste_stamped;	      /* ... and a log collector's stamps */
	bool paste_escaped;	      /* ... and HTML's entities (pm_html_escaped) */
	unsigned short paste_wrap;    /* ... and the width its longer lines were broken at */
	/* the latest instant (read as UTC) its name's rotation date lets a stamp without a year
	 * have; 0 when its name dates none (scan.c, rotated_day) */
	double rotated_until;
	/* the earliest instant its zoned lines show slurmd launching the record's job ("slurmd[2106]:
	 * slurmd: Launching batch job 5515001 ..."); 0 none (scan.c, zone_walk) */
	double launch_at;
	/* a job output's first line in its head a stamp dates (read as its lines are), and that
	 * line's offset; 0 none, and none for a bundle's member (scan.c, head_stamp) */
	double head_t;
	uint64_t head_t_off;
	int launch_zone; /* ... the offset that line carries */
	int head_year;	 /* the year of the first line of its head stamped with a whole date
			* (2026-11-30T..., [Mon Nov 30 ... 2026]); 0 none (sniff_head) */
	bool head_zoned; /* a line of its head starts with an ISO stamp with an offset ("Z" too) */
	int head_zone;	 /* ... that offset, seconds east of UTC (-18000 for -05:00) */
	bool head_zoneless; /* its head's first stamp is absolute with no zone (dmesg -T,
			     * a BSD syslog's, slurmd's "[2026-...]", ISO without offset) */
	/* where the offsets of a zoned system log's stamps change (a daylight saving change:
	 * -04:00 to -05:00), in file order (scan.c, zone_walk); ZMIXED: too many to list, the
	 * lines of hosts in several zones interleaved */
	struct pm_zchange {
		double before, after; /* the instants of the last line in the old offset and the
				       * first in the new */
		int zbefore, zafter;  /* the offsets, seconds east of UTC */
	} * zchg;
	unsigned nzchg;
	bool zmixed;
	/* a kernel log of several hosts' files under head's or tail's headers: the hosts its
	 * sections name (scan.c, section_walk), whose kernel log it is too */
	char **shosts;
	unsigned nshosts;
	/* the hosts a system log's lines carry ("Dec  2 10:17:58 HOST kernel: ..."), any line,
	 * not only those a rule read: distinct, at most four, LHOSTS_MORE where there were more
	 * or one was too long to keep (scan.c, host_walk).  Whether a file named for a job node
	 * is that node's own log under another host name (att_ranks.c, pm_att_node_log) */
	char (*lhosts)[80]; /* LHOSTS_MAX of them, allocated at the first host */
#define LHOSTS_MAX 4
	unsigned nlhosts;
	bool lhosts_more;
	bool other_job; /* named as Slurm names another job's output: set aside (pm_scan_all) */
};

/* Per (node, rank): what the scanner saw; the engine's view of who ran and who fell silent. */
struct pm_rankinfo {
	int rank;
	char *node;
	double last_time;     /* last stamped line; 0 none */
	double last_progress; /* last progress observation; 0 none */
	double first_progress;
	unsigned nprogress; /* dated progress lines: with the two above, the rank's cadence */
};

/* One matched line, or one structured condition that held.  A merge keeps one for every
 * group of lines (eight a node in a large job): the fields are ordered by size, no padding. */
struct pm_obs {
	char *node;
	char *pci;
	char *peer;
	char *signal;
	char *exc;
	/* the line as read, prefix included, at most 512 bytes, up to a NUL: NOT redacted.
	 * Whatever shows or reads it takes pm_obs_line's copy, redacted and cleaned. */
	char *raw;
	double event_time;
	double observed_time;
	uint64_t offset; /* of the line in the (decompressed) file */
	uint64_t next;	 /* of the line after it in the file; 0 when not known */
	long long seq, seqdone;
	uint32_t rule; /* index into the rule set */
	uint32_t file;
	enum pm_source source;
	int rank;
	int gpu;
	int xid;
	int pid;
	int code;
	int nranks; /* the size of the communicator the line names its rank in; -1 none */
	int pg;	    /* the process group of seq and seqdone: its name's key (scan.c); -1 none */
	unsigned repeats; /* further matches folded into this one */
	bool trusted;
	bool has_time;
	bool daemon; /* a syslog program's line, read as job output (scan.c, scan_daemon) */
	/* srun's label on RAW as pm_peel reads it (-1: none), taken on the scan's threads for
	 * the job's output: placement asks it of every observation (att_ranks.c, label_node) */
	bool has_label;
	int label;
	/* RANK is a bare tag's ("[rank1] ", "[Rank 1] ": pm_peel's rank_weak), which a logger
	 * may print as its LOCAL_RANK; RANK_GUESS: placement put the line on a node through the
	 * rank map by that tag alone where it may be a local rank (att_ranks.c, weak_local) */
	bool rank_weak, rank_guess;
	/* its node is a kernel log section's header's only, a host of the file name's shape that no
	 * record knows (scan.c, section_node): the folder's guess, named, not excluded */
	bool sect_guess;
	/* below a section of head's or tail's, past what it printed of its file (scan.c,
	 * section_overrun): no host's, not even as the folder's guess */
	bool sect_nobody;
};

struct pm_rules; /* rules.c */

struct pm_evidence {
	const struct pm_ruleset *rs;
	struct pm_file *files;
	size_t nfiles, afiles;
	struct pm_fact *facts;
	size_t nfacts, afacts;
	struct pm_jobinfo job;
	struct pm_task *tasks; /* sorted by rank once diagnosed */
	size_t ntasks, atasks;
	uint32_t *taskix; /* evidence.c: tasks by rank, open addressing, index + 1 */
	size_t ataskix;
	/* the steps the task records name ("JOB.STEP": a heterogeneous job's components have
	 * job ids of their own), and whether a task of each failed (a non-zero exit, a signal) */
	struct pm_step {
		char *key;
		bool failed;
		double start, end; /* its first task's start, its last task's end; 0 unknown */
	} * steps;
	size_t nsteps, asteps;
	struct pm_tsplit *tsplit;
	size_t ntsplit, atsplit;
	char **nodes; /* node names learned from any source, sorted unique */
	size_t nnodes, anodes;
	size_t node_hint; /* where the last name noted is in NODES: task files repeat theirs */
	/* the dotted hosts of a system log's kernel lines, any line, not only those a rule
	 * read (scan.c, scan_daemon): the domain they give the job's nodes (att_ranks.c,
	 * job_domain); at most 64 */
	char **khosts;
	size_t nkhosts;
	struct {
		char *ip;
		char *node;
	} * ipmap; /* NCCL bootstrap addresses */
	size_t nipmap, aipmap;
	struct pm_rankinfo *ranks;
	size_t nranks, aranks;
	/* torchrun's workers under srun's label ("1: [default2]:"): each agent's label and
	 * local rank, label * PM_AGENT_LOCALS + local, the first PM_AGENTS seen; and the
	 * workers an agent starts, as torchrun's banner or command line says (nproc_per_node;
	 * 0 unknown, -1 two that differ).  att_ranks.c's local_ranks makes them global ranks
	 * where it can (scan.c, tally_ranks) */
#define PM_AGENTS 256
#define PM_AGENT_LOCALS 1024
	uint32_t agents[PM_AGENTS];
	unsigned nagents;
	int nproc;
	/* agent L's first global rank + 1, where a line of it gives both ranks ("1:
	 * [default0]:[rank4]:"); 0 unknown, -1 two that differ */
	int agent_base[PM_AGENTS];
	struct pm_obs *obs;
	size_t nobs, aobs;
	/* coverage records given by bundle manifests (collector-side sources) */
	struct pm_cov {
		char *node, *source, *status, *reason;
	} * cov;
	size_t ncov, acov;
	/* bundle manifests: when each node's collector began (collected.start) and ended
	 * (collected.end, 0 when not given), by the node's own clock, one per bundle
	 * (attribute.c estimates each node's clock skew from them) */
	struct {
		char *node;
		double start, end;
	} * collect;
	size_t ncollect, acollect;
	int nbundles;
	size_t ncarried;  /* files whose scan their bundle carried (carry.c), taken */
	size_t ntcarried; /* task files whose records their bundle carried (PMTASK1), taken */
	bool scanned;	  /* pm_scan_all done (pm_evidence_scan) */
	void *bundle_io;  /* bundle.c: the zstd context and buffers for every bundle file */
	void (*bundle_io_free)(void *); /* bundle.c's, set with BUNDLE_IO */
	/* every bundle member decompressed and checked, carried or not (pm_evidence_check_all) */
	bool check_all;
	unsigned threads; /* threads the merge may use (workers.c); 0 or 1: none */
};

/*
 * Items made on up to THREADS threads, taken in order on the caller's (workers.c).  MAKE(ARG,
 * W, I) makes item I on worker W (0 to THREADS - 1, 0 being the caller; each worker runs one
 * MAKE at a time, so per-worker state indexed by W needs no lock); it must touch nothing
 * another MAKE or TAKE touches.  TAKE(ARG, I, ITEM) is called on the caller's thread for I =
 * 0, 1, ... N - 1 in order, and owns ITEM (unless KEEP); -1 stops the run (errno kept),
 * and DROP frees the items made but not taken.  At most WINDOW items (0: 64 per thread) are made ahead of
 * the last one taken.  With THREADS 1, or when no thread can be started, it is MAKE(I) then
 * TAKE(I) on the caller's thread.  0, or -1 from TAKE.
 */
struct pm_work {
	void *(*make)(void *arg, unsigned w, size_t i);
	int (*take)(void *arg, size_t i, void *item);
	void (*drop)(void *arg, void *item);
	void *arg;
	size_t window;
	/* TAKE only uses ITEM (moves out what it keeps): DROP frees it afterwards, on the
	 * thread that made it while that one works on, so that memory goes back to the heap
	 * (glibc's arena) it came from; freed on another thread's, a worker's heap filled with
	 * small free chunks that every larger malloc there consolidated */
	bool keep;
};
int pm_work_run(const struct pm_work *w, unsigned threads, size_t n);

/* What pm_work_run starts its threads with: pthread_create's signature and returns.  NULL
 * puts pthread_create back.  For tests of a thread that cannot be started (root is not held
 * to RLIMIT_NPROC, so that failure cannot be caused from outside). */
typedef int pm_thread_start_fn(void *tid, void *(*fn)(void *), void *arg);
void pm_work_set_start(pm_thread_start_fn *start);

/* One piece of work beside the caller's own: pm_beside_start, pm_beside_wait (beside.h). */

/*
 * Trust per line and per field (linetrust.c, TRUST.md): for a chunk BUF (LEN bytes, whole
 * lines) of F about to be scanned, *OUT is NULL when it can be scanned as it is, else a
 * copy of it (same length and line breaks; free it) with the user-chosen fields of the
 * source's lines masked and the lines that are not the source's own or not this job's
 * blanked.  0, or -1 on ENOMEM.
 */
int pm_trust_mask(const struct pm_evidence *ev, const struct pm_file *f, const char *buf,
		  size_t len, char **out);

/* Helpers for parsers; all copy their strings.  Return NULL/-1 only on ENOMEM. */
struct pm_fact *pm_ev_add_fact(struct pm_evidence *ev, size_t file, const char *node, int gpu,
			       const char *name, double value, const char *pci);
struct pm_jobinfo *pm_ev_job(struct pm_evidence *ev);
struct pm_task *pm_ev_task(struct pm_evidence *ev, int rank); /* find or create */
/* 1 + the index of step KEY (LEN bytes) in the evidence's STEPS, added when new; 0 ENOMEM. */
unsigned pm_ev_step(struct pm_evidence *ev, const char *key, size_t len);
/* Room for N tasks, made at once (pm_ev_task grows by doubling, copying what it has each
 * time): 0, or -1 when out of memory (nothing changed). */
int pm_ev_task_reserve(struct pm_evidence *ev, size_t n);
int pm_ev_note_node(struct pm_evidence *ev, const char *name, size_t len);
int pm_ev_note_ip(struct pm_evidence *ev, const char *ip, size_t iplen, const char *node,
		  size_t nodelen);
/* Set a string field: frees the old value; copies LEN bytes. */
int pm_strset(char **dst, const char *src, size_t len);

/*
 * carry.c: a job output's scan result carried in its bundle (FORMATS.md, "Carried scans").
 * The key is everything the scan of the file read besides its bytes and the rules; a record
 * is taken only under the same key.
 */
struct pm_carry_key {
	const char *rules; /* the rule set's digest */
	unsigned char sha[32];
	uint64_t input_max;
	const char *node;
	int rank;
	double mtime, boot;
	int year;
	enum pm_source source;
	enum pm_format format;
	enum pm_status status; /* before the scan */
	const char *reason;
};

/* What the scan gave: LEV's observations (KEPT: scan.c's flags for each), ranks, nodes and
 * addresses; the file's status and reason after it and what it added to the file's bytes and
 * lines; the weak node names it took as known. */
struct pm_carry {
	struct pm_evidence *lev;
	unsigned char *kept;
	enum pm_status status;
	char *reason;
	uint64_t dbytes, dlines;
	char *const *weak;
	size_t nweak;
	/* the weak names the scan looked up and did not know: to encode, or read (owned, freed
	 * by pm_carry_clear) for the merge to check in file order */
	char **absent;
	size_t nabsent;
};

int pm_carry_encode(const struct pm_carry_key *k, const struct pm_carry *c, unsigned char **out,
		    size_t *outlen);
/* The record BUF (LEN bytes; decompressed with DC) into C (its LEV empty; its observations of
 * file FILE) when it was made under key K with the weak names it took all in SNAP (NSNAP,
 * sorted) and those it did not know none in SNAP: 1; 0 when not (another key, a name known
 * otherwise, a damaged record: C left empty); -1 on ENOMEM.  The names it did not know are
 * left in C for the caller to check against the nodes known in file order. */
int pm_carry_decode(ZSTD_DCtx *dc, const void *buf, size_t len, const struct pm_carry_key *k,
		    const struct pm_ruleset *rs, char *const *snap, size_t nsnap, uint32_t file,
		    struct pm_carry *c);
/* The engine's identity in a carried scan's key, into BUF: its build's (engine_id.h) and the
 * versions of the matching libraries it runs with (a collector and a merge host install them
 * apart). */
void pm_carry_identity(char *buf, size_t len);
/* Free a file's scan result L (a worker's or a carried one: its observations, ranks, nodes
 * and addresses), leaving it empty. */
void pm_lev_free(struct pm_evidence *l);
/* Free what pm_carry_decode put in C (LEV's arrays, KEPT, REASON, ABSENT), leaving them empty. */
void pm_carry_clear(struct pm_carry *c);

/*
 * carry.c: a task file's parsed records carried in its bundle (PMTASK1; FORMATS.md, "Carried
 * task files").  What the merge's sniff told of the file without reading it and the bound
 * the record was made under, the record's key being this engine's and the file's digest.
 */
#define PM_STRUCT_CAP (64u << 20) /* a structured file's cap (scan.c, pm_file_slurp) */
struct pm_tasks_head {
	uint64_t input_max;
	enum pm_format format;
	int head_year;
	bool head_zoned;
	int head_zone;
	bool head_zoneless;
	size_t body; /* where the records' zstd frame starts */
};
/* Whether REC (LEN bytes) is a task record of this engine for the file of digest SHA: its
 * head into H. */
bool pm_tasks_head(const void *rec, size_t len, const unsigned char sha[32],
		   struct pm_tasks_head *h);
/* F's carried task record, when its key and head are F's (this engine, F's digest, the
 * bound, F's format and head as told): its records (pm_tasks_apply them), decompressed with
 * DC; NULL when not taken (none, another key, damaged, ENOMEM): F is then parsed. */
struct pm_tasks *pm_tasks_carried(ZSTD_DCtx *dc, const struct pm_file *f);
/* parse_sched.c: T's records as a record's body, *OUT (free it); and such a body BUF (LEN
 * bytes, taken over) read back, NULL when damaged or on ENOMEM. */
int pm_tasks_pack(const struct pm_tasks *t, unsigned char **out, size_t *outlen);

/* carry.c: a growing byte buffer for the carried records' little-endian layouts; FAILED once a
 * write could not grow it (every later write is then none), P the caller's to free. */
struct pm_wbuf {
	unsigned char *p;
	size_t len, cap;
	bool failed;
};
void pm_wbuf_put(struct pm_wbuf *w, const void *src, size_t n);
void pm_wbuf_u64(struct pm_wbuf *w, uint64_t v);
void pm_wbuf_u32(struct pm_wbuf *w, uint32_t v);
struct pm_tasks *pm_tasks_unpack(unsigned char *buf, size_t len);

#endif /* PM_INTERNAL_H */
