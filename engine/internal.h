/*
 * internal.h - the engine's private evidence model, shared by its modules.
 * Not installed.  Parsers take (buf, len) and never assume NUL termination.
 */
#ifndef PM_INTERNAL_H
#define PM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "postmortem.h"

/* Source kinds (engine/FORMATS.md); the names are part of the output contract. */
enum pm_source {
	PM_SRC_APP_LOG,
	PM_SRC_KERNEL_LOG,
	PM_SRC_GPU_STATE,
	PM_SRC_NODE_METRICS,
	PM_SRC_SCHEDULER,
	PM_SRC_TASK_EXIT,
	PM_SRC_RANK_MAP,
	PM_SRC__COUNT
};

/* Detected file formats; see FORMATS.md. */
enum pm_format {
	PM_FMT_APP,
	PM_FMT_TORCHRUN,
	PM_FMT_PYSPY,
	PM_FMT_DMESG,
	PM_FMT_KMSG_ISO,
	PM_FMT_SYSLOG,
	PM_FMT_NVSMI_Q,
	PM_FMT_NVSMI_CSV,
	PM_FMT_SACCT_P,
	PM_FMT_SACCT_TABLE,
	PM_FMT_SCONTROL_JOB,
	PM_FMT_SLURMD_LOG,
	PM_FMT_SLURMCTLD_LOG,
	PM_FMT_RANK_MAP,
	PM_FMT_TASK_EXIT,
	PM_FMT_MEMINFO,
	PM_FMT_PROMETHEUS,
	PM_FMT_BINARY,
	PM_FMT_EMPTY,
	PM_FMT__COUNT
};

/* Coverage statuses; names are the output contract. */
enum pm_status {
	PM_ST_OK,
	PM_ST_MISSING,
	PM_ST_EMPTY,
	PM_ST_TRUNCATED,
	PM_ST_TIMED_OUT,
	PM_ST_DENIED,
	PM_ST_LAGGING,
	PM_ST_BINARY,
	PM_ST_UNREADABLE,
	PM_ST__COUNT
};

const char *pm_source_name(enum pm_source s);
int pm_source_parse(const char *name, enum pm_source *out); /* 0 or -1 */
const char *pm_format_name(enum pm_format f);
enum pm_source pm_format_source(enum pm_format f);
bool pm_source_trusted(enum pm_source s); /* false only for app_log */
const char *pm_status_name(enum pm_status s);

/* ---- sniffing, prefixes, times (sniff.c, prefix.c, timeparse.c) ---- */

/* Detect the format of a file from its first LEN bytes (LEN may be short). */
enum pm_format pm_sniff(const char *buf, size_t len);

/* What a line's prefix says.  rank -1 and node_len 0 when absent. */
struct pm_prefix {
	int rank;
	const char *node; /* points into the line; not NUL-terminated */
	size_t node_len;
	size_t skip; /* bytes of prefix to remove before matching */
};

/*
 * Parse the rank/host prefixes of one line (without its newline): srun --label "3: ",
 * "[rank3]:", "[default3]:", NCCL "host:pid:tid [dev] ", syslog "Mon dd hh:mm:ss host ",
 * and combinations ("3: [rank3]: ...", "0: host:1:2 [0] NCCL ...").  FMT decides which apply.
 */
void pm_prefix_parse(enum pm_format fmt, const char *line, size_t len, struct pm_prefix *out);

/* Time context of a file: what a stamp without a year or with a monotonic clock needs. */
struct pm_timectx {
	int year;	  /* for syslog stamps; from the file's mtime */
	double boot_time; /* epoch seconds at boot; 0 = unknown */
};

/*
 * Find the event time stamped on LINE (the whole raw line, prefixes included).
 * Returns 1 and sets *T (epoch seconds, UTC unless the stamp has an offset), 0 when the line
 * has no trustworthy stamp.
 */
int pm_time_parse(const char *line, size_t len, const struct pm_timectx *ctx, double *t);

/* Format epoch seconds as "2026-11-30T03:11:58.002Z" into BUF (at least 32 bytes). */
void pm_time_format(double t, char *buf, size_t len);

/* Numbers that a line carrying a rank or node in a file name gives; -1/NULL when absent. */
int pm_path_rank(const char *path);

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
};

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
};

/* A task record from the plugin (rank_map / task_exit) or a torchrun summary. */
struct pm_task {
	int rank;
	char *node;
	int local_rank;
	char *gpus; /* "0,1" or NULL */
	int pid;
	double start; /* 0 unknown */
	double end;
	int exited;    /* 1 when an exit record was seen */
	int exit_code; /* -1 unknown */
	int signal;    /* 0 none */
	int core;
};

struct pm_evidence;

/*
 * Parsers for structured formats.  Each reads the whole text (BUF, LEN) of file FILE and adds
 * facts, job information or tasks to EV.  They return 0, or -1 when the text is not what the
 * format promises (the file is then reported in coverage as unreadable with REASON filled).
 */
int pm_parse_nvsmi_q(struct pm_evidence *ev, size_t file, const char *buf, size_t len, char *reason,
		     size_t rlen);
int pm_parse_nvsmi_csv(struct pm_evidence *ev, size_t file, const char *buf, size_t len,
		       char *reason, size_t rlen);
int pm_parse_sacct(struct pm_evidence *ev, size_t file, const char *buf, size_t len, char *reason,
		   size_t rlen); /* -P and table forms */
int pm_parse_scontrol(struct pm_evidence *ev, size_t file, const char *buf, size_t len,
		      char *reason, size_t rlen);
int pm_parse_meminfo(struct pm_evidence *ev, size_t file, const char *buf, size_t len, char *reason,
		     size_t rlen);
int pm_parse_tasks(struct pm_evidence *ev, size_t file, const char *buf, size_t len, char *reason,
		   size_t rlen); /* rank_map and task_exit JSON lines */
int pm_parse_prom(struct pm_evidence *ev, size_t file, const char *buf, size_t len, char *reason,
		  size_t rlen); /* postmortem.prometheus/1 JSON lines */

/* Expand a Slurm hostlist ("gpu[016-017,020],login1") into sorted unique names. */
int pm_hostlist_expand(const char *list, size_t len, char ***names, size_t *n);
/* The other way: N names (any order, duplicates allowed) as one hostlist that expands to
 * exactly them ("gpu[0001-0004,0007],login1"); "" for none.  Malloc'd; NULL on ENOMEM. */
char *pm_hostlist_compress(const char *const *names, size_t n);

/* ---- the evidence set (evidence.c) ---- */

struct pm_file {
	char *name; /* relative name shown in the verdict */
	char *path; /* where to read it; NULL for in-memory */
	void *mem;  /* in-memory content (pm_evidence_add_buffer, bundle members) */
	size_t memlen;
	char *node;	 /* from the manifest or the path; NULL unknown */
	int rank;	 /* from the path; -1 unknown */
	bool kind_given; /* source/format given by a manifest: no sniffing */
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
};

/* Per (node, rank): what the scanner saw; the engine's view of who ran and who fell silent. */
struct pm_rankinfo {
	int rank;
	char *node;
	uint64_t lines;
	double last_time;     /* last stamped line; 0 none */
	double last_progress; /* last progress observation; 0 none */
	double first_progress;
};

/* One matched line, or one structured condition that held. */
struct pm_obs {
	size_t rule; /* index into the rule set */
	size_t file;
	enum pm_source source;
	bool trusted;
	char *node;
	int rank;
	int gpu;
	char *pci;
	int xid;
	char *peer;
	long long seq, seqdone;
	int pid;
	int code;
	char *signal;
	char *exc;
	bool has_time;
	double event_time;
	double observed_time;
	uint64_t offset;  /* of the line in the (decompressed) file */
	char *line;	  /* the line, prefix included, at most 512 bytes */
	char *summary;	  /* the rule's summary with captures filled in */
	unsigned repeats; /* further matches folded into this one */
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
	char **nodes; /* node names learned from any source, sorted unique */
	size_t nnodes, anodes;
	struct {
		char *ip;
		char *node;
	} * ipmap; /* NCCL bootstrap addresses */
	size_t nipmap, aipmap;
	struct pm_rankinfo *ranks;
	size_t nranks, aranks;
	struct pm_obs *obs;
	size_t nobs, aobs;
	/* coverage records given by bundle manifests (collector-side sources) */
	struct {
		char *node, *source, *status, *reason;
	} * cov;
	size_t ncov, acov;
	/* bundle manifests: when each node's collector began (collected.start), by the node's
	 * own clock, one per bundle (attribute.c estimates each node's clock skew from them) */
	struct {
		char *node;
		double start;
	} * collect;
	size_t ncollect, acollect;
	int nbundles;
	void *bundle_io; /* bundle.c: the zstd context and buffers for every bundle file */
};

/*
 * Trust per line and per field (linetrust.c, TRUST.md): for a chunk BUF (LEN bytes, whole
 * lines) of F about to be scanned, *OUT is NULL when it can be scanned as it is, else a
 * copy of it (same length and line breaks; free it) with the user-chosen fields of the
 * source's lines masked and the lines that are not the source's own or not this job's
 * blanked.  0, or -1 on ENOMEM.
 */
int pm_trust_mask(const struct pm_evidence *ev, const struct pm_file *f, const char *buf,
		  size_t len, char **out);
/* A line of slurmd's, slurmstepd's or slurmctld's log, as linetrust.c reads it (the
 * collector keeps a job's lines with it).  False when it has no "[stamp] " of slurm's. */
struct pm_slurm_line {
	double t;	 /* its stamp */
	const char *job; /* its own job field ("[25.batch]", "JobId=25"), NULL none */
	size_t job_len;
	size_t text;	       /* where slurm's message begins */
	size_t user, user_end; /* the text a user chose; user = the length when none */
	bool open; /* a path whose closing strerror text is not on this line: the lines up to
		    * the one that ends with it (pm_slurm_line_closes) are the user's */
};
bool pm_slurm_line(const char *line, size_t len, struct pm_slurm_line *out);
bool pm_slurm_line_closes(const char *line, size_t len);
/* Whether a job field ("25", "25_3", "25_3(27)") names job ID. */
bool pm_slurm_job_match(const char *field, size_t len, const char *id);

/* Helpers for parsers; all copy their strings.  Return NULL/-1 only on ENOMEM. */
struct pm_fact *pm_ev_add_fact(struct pm_evidence *ev, size_t file, const char *node, int gpu,
			       const char *name, double value, const char *pci);
struct pm_jobinfo *pm_ev_job(struct pm_evidence *ev);
struct pm_task *pm_ev_task(struct pm_evidence *ev, int rank); /* find or create */
int pm_ev_note_node(struct pm_evidence *ev, const char *name, size_t len);
int pm_ev_note_ip(struct pm_evidence *ev, const char *ip, size_t iplen, const char *node,
		  size_t nodelen);
/* Set a string field: frees the old value; copies LEN bytes. */
int pm_strset(char **dst, const char *src, size_t len);

#endif /* PM_INTERNAL_H */
