/*
 * ruleset.h - the loaded rule set, shared by the loader, the scanner and attribution.
 * Not installed.
 */
#ifndef PM_RULESET_H
#define PM_RULESET_H

#include <stdbool.h>
#include <stddef.h>
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <hs/hs.h>

#include "postmortem.h"

enum pm_role {
	PM_ROLE_ORIGIN,
	PM_ROLE_CASCADE,
	PM_ROLE_TEARDOWN,
	PM_ROLE_CONFIRMATION,
	PM_ROLE_PROGRESS,
	PM_ROLE_CONTEXT,
	PM_ROLE__COUNT
};

enum pm_strength { PM_WEAK = 1, PM_MEDIUM = 2, PM_STRONG = 3 };

/* Captures the engine understands; the names are the rule format's contract. */
enum pm_cap {
	PM_CAP_RANK,
	PM_CAP_NODE,
	PM_CAP_GPU,
	PM_CAP_PCI,
	PM_CAP_XID,
	PM_CAP_PEER,
	PM_CAP_SEQ,
	PM_CAP_SEQDONE,
	PM_CAP_PID,
	PM_CAP_CODE,
	PM_CAP_SIGNAL,
	PM_CAP_EXC,
	PM_CAP_ADDR,
	PM_CAP_NRANKS,
	PM_CAP_PG, /* a process group's name: sequence numbers count within one */
	/* the ranks a cascade names as never having arrived ("Ranks 5, 7 failed to pass
	 * monitoredBarrier"): the scan keeps no list; the silence phase matches the line again
	 * (att_ranks.c, absent_ranks) */
	PM_CAP_ABSENT,
	PM_CAP__COUNT
};

enum pm_op { PM_OP_GT, PM_OP_GE, PM_OP_LT, PM_OP_LE, PM_OP_EQ, PM_OP_NE };

struct pm_cond {
	char *fact;
	enum pm_op op;
	char *rhs_fact; /* NULL: compare with rhs */
	double rhs;
};

#define PM_REFINES_MAX 4
/* how many lines back (blank ones not counted) a rule's 'not_after' looks */
#define PM_NOT_AFTER_LINES 4

struct pm_rule {
	char *id;
	char *cls, *subcls; /* "none" for progress/context rules without a class */
	char *summary;
	char *outcome; /* NULL or a Slurm outcome word */
	enum pm_role role;
	enum pm_strength strength;
	unsigned sources; /* bit (1 << enum pm_source) */
	/* 'formats': for the sources in FMT_SOURCES, only the formats in FORMATS (bit
	 * 1 << enum pm_format); any other source of the rule reads every format */
	unsigned fmt_sources;
	unsigned long long formats;
	char *pattern; /* NULL for condition rules */
	pcre2_code *re;
	int cap[PM_CAP__COUNT]; /* group number, 0 when not captured */
	bool has_cond;
	struct pm_cond cond;
	bool launch, deprecated, hardware;
	/* 'generic': names only a line's kind (any exception's last line); where a specific
	 * rule reads the same line, that reading stands (pm_attribute) */
	bool generic;
	/* 'chain': a context line that joins the failures before and after it into one (a
	 * chained traceback's "During handling of the above exception ...") */
	bool chain;
	/* 'nonfatal': a context line that says the exception after it was not fatal (Python's
	 * "Exception ignored in: ...") */
	bool nonfatal;
	bool attached; /* with nonfatal: only the failure line right after it */
	/* 'heeds_level': a specific rule that, as a generic one does, reads no line a logger
	 * wrote at a warning's level or lower (the level word peeled off before the pattern
	 * sees the text: scan.c, quiet_level) */
	bool heeds_level;
	/* 'reasonless': an origin whose line says a set-up failed but not why (NCCL's
	 * "unhandled system error"); a peer's refusal read beside it is its reason
	 * (att_decide.c, refused_lead) */
	bool reasonless;
	/* 'formed': an origin of a set-up kind whose line names the running collective that
	 * failed (Horovod's "ncclAllReduce failed: ..."): the group had formed, so the line
	 * counts as reported after progress (att_cands.c, after_progress) */
	bool formed;
	/* 'handler': a chain line that says the exception after it was raised while the one
	 * before it was being handled (Python's "During handling of the above exception"): the
	 * handler's own failure, not always a wrapper of the first (att_yield.c) */
	bool handler;
	/* 'comm_crash': an origin whose line is a process crashing inside the communication
	 * library (the kernel's segfault line naming libnccl): a peer's process vanishing
	 * mid-collective crashes it there, in the teardown (att_cands.c, comm_crashes) */
	bool comm_crash;
	/* 'link_state': a kernel line of a port's link going down, which every port prints while
	 * its driver brings it up at boot: one stamped in the node's first minute of uptime is
	 * that, before any job ran (att_cands.c, pm_att_boot_link) */
	bool link_state;
	/* 'boot': a context line of the kernel's boot banner ("Linux version ..." at its first
	 * stamp): a node that booted after an event no longer holds that event's fault, so an
	 * event from before this job's output that a boot line follows is not what the job met
	 * (att_time.c, cand_boot_between) */
	bool boot;
	/* 'own_port': an event the reporting process's own adapter raised about its own port or
	 * device (NCCL's "NET/IB : mlx5_2:1 Got async event : port error"): transport failures
	 * that node alone reports towards one peer are then its own link's (att_cands.c,
	 * single_reporter) */
	bool own_port;
	/* 'step_wait': on an origin rule, srun waiting inside the job's allocation to create
	 * a step; on a context rule, srun's word that the step was created after such a wait.
	 * In a TIMEOUT a wait that no creation and no progress of its file followed leads over
	 * the time limit; one that a creation followed gives way (att_sched.c, step_waited) */
	bool step_wait;
	/* 'end_summary': a summary of the job's end a user gathers beside its output (seff's
	 * "State: X (exit code N)", Slurm's mail subject, an excerpt of scontrol's record):
	 * Slurm's word on the end, but only for the job it names and only where the job did not
	 * write it (att_cands.c, phase_outcome, summary_holds) */
	bool end_summary;
	/* 'fs_stall': on a context rule of the storage class, a shared filesystem's client that
	 * lost its server and waits for it (Lustre's "... was lost; ... will wait for recovery to
	 * complete", a hard NFS mount's "still trying"); on a context rule of class none, the
	 * client's word that the server is back ("Connection restored to", "nfs: server X OK").
	 * In a TIMEOUT's stall a loss on a job node in the job's time that nothing restored
	 * before the end leads, at hypothesis, where no other candidate does (att_sched.c,
	 * fs_stalled) */
	bool fs_stall;
	/* 'counter': a condition on a count read at collection with no baseline (nvidia-smi's
	 * volatile ECC count, since the driver loaded): it cannot date the error, so it is not a
	 * state of now but an undated event (attribute.c, pm_att_cand_add) */
	bool counter;
	/* 'last': a line a program prints alike when it stops and when it goes on (Perl's
	 * "Can't locate" from a die or a warn; an error it says it retries): read only where
	 * nothing of the program's own follows it (scan.c, went_on), LAST_RE reading the lines
	 * of the same report that may (NULL: none) */
	bool last;
	pcre2_code *last_re;
	/* 'not_after': a pattern for the lines of another report that the rule's line may end
	 * (nvidia-smi's "No devices were found" under its lost GPUs' "Unable to determine the
	 * device handle" lines): the rule's line is not read within PM_NOT_AFTER_LINES lines
	 * after one of the same writer that this reads (scan.c, follows); NULL: none */
	/* 'after': the same lines as 'not_after' reads, one of which must be read by it: the rule's
	 * line is read only as the tail of that report (a CUDA error raised under a frame that
	 * pins memory; scan.c, follows) */
	pcre2_code *after_re;
	pcre2_code *not_after_re;
	/* 'not_beside': a pattern for text that, in the same listing as the rule's line (the
	 * chunk the scan reads it in), says the line is no fault: one row of a tool's listing
	 * that another row answers (ibstat's port "Down" beside an InfiniBand port "Active": an
	 * unused port).  Compiled multi-line (^ and $ at each line), matched over the whole
	 * chunk; the rule's line is not read where it matches (scan.c, beside); NULL: none */
	pcre2_code *not_beside_re;
	/* 'refines': a trusted confirmation's "CLASS/SUBCLASS" kinds: a candidate of one of them
	 * on the observation's node takes this rule's class and subclass (att_cands.c, refine) */
	char *refines_cls[PM_REFINES_MAX], *refines_sub[PM_REFINES_MAX];
	size_t nrefines;
	char *file;
	int line;
};

/* The decision block of one class or class/subclass (ruleset.yaml "classes"). */
struct pm_decision {
	char *key;
	char *owner;
	char *cont_id, *cont_action, *cont_owner;
	char *repair_action, *repair_owner, *repair_requires;
	char *overturn, *next_test;
	char *node_id, *node_action, *node_owner;    /* containment when confined to one node */
	char *every_id, *every_action, *every_owner; /* when on every node of a multi-node job */
};

/* Whether rule R reads file F: one of its sources, and in a format it allows. */
static inline bool pm_rule_reads(const struct pm_rule *r, enum pm_source src, enum pm_format fmt)
{
	return (r->sources & (1u << src)) && (!(r->fmt_sources & (1u << src)) ||
					      ((unsigned)fmt < 64 && (r->formats & (1ull << fmt))));
}

/* A generic reading: an origin or a confirmation that names only a line's kind (`generic`
 * on another role, an origin demoted to context in a revised rule set, is inert). */
static inline bool pm_rule_generic(const struct pm_rule *r)
{
	return r->generic && (r->role == PM_ROLE_ORIGIN || r->role == PM_ROLE_CONFIRMATION);
}

/* A specific reading of a failure: not generic, and of a role that says what a line is. */
static inline bool pm_rule_speaks(const struct pm_rule *r)
{
	return !pm_rule_generic(r) &&
	       (r->role == PM_ROLE_ORIGIN || r->role == PM_ROLE_CASCADE ||
		r->role == PM_ROLE_TEARDOWN || r->role == PM_ROLE_CONFIRMATION);
}

struct pm_ruleset {
	char *dir;
	char *id, *version;
	char digest[72];
	struct pm_rule *rules;
	size_t nrules;
	struct pm_decision *dec;
	size_t ndec;
	double skew_s; /* tuning: skew_tolerance_ms / 1000 */
	double grace_s;
	unsigned per_group;
	double progress_stall_s; /* a TIMEOUT is a stall when progress stopped this long before */
	hs_database_t *db;	 /* every pattern rule, id = rule index; NULL when sdb is used */
	/* One database per source kind (enum pm_source) with only the rules that apply to it:
	 * a file is scanned with its source's database (stream mode: compiles faster; the
	 * scanner resets the stream after every chunk, so a chunk is matched as a block). */
	hs_database_t *sdb[8];
	hs_scratch_t *scratch; /* prototype, valid for every database; each scan clones it */
	pcre2_match_context *mctx;
};

const char *pm_role_name(enum pm_role r);
const char *pm_cap_name(enum pm_cap c);
/* RE matched against the N bytes at S into MD, within RS's limits (none when RS is NULL):
 * pcre2_match's result.  A pattern runs as the machine code pcre2_jit_compile made of it at
 * load; where that code runs out of its stack, the interpreter gives the answer (rules.c). */
int pm_re_match(const struct pm_ruleset *rs, const pcre2_code *re, const char *s, size_t n,
		pcre2_match_data *md);
/* Whether a rule set loaded now is compiled to machine code: the library has a JIT and the
 * program does not run under valgrind (rules.c). */
bool pm_re_jit(void);
/* The decision for CLS/SUBCLS, falling back to CLS; NULL if none. */
const struct pm_decision *pm_ruleset_decision(const struct pm_ruleset *rs, const char *cls,
					      const char *subcls);
/* PATTERN without its anchors, as the scan's prefilter sees it (prefilter.c); NULL when out
 * of memory. */
char *pm_prefilter_form(const char *pattern);
/* The expressions Vectorscan compiles for PATTERN (prefilter.c): *N of them, whose matches
 * end together wherever pm_prefilter_form(PATTERN)'s do, cheaper to scan for.  Each and the
 * array are the caller's to free; NULL when out of memory. */
char **pm_prefilter_exprs(const char *pattern, size_t *n);
/* hs_compile_multi for pm_hs_platform(), through the on-disk cache of compiled databases
 * (hscache.c): the same database, without the compile when an entry is there. */
hs_error_t pm_hs_compile(const char *const *pats, const unsigned *flags, const unsigned *ids,
			 unsigned n, unsigned mode, hs_database_t **db, hs_compile_error_t **ce);

/* Scan BUF as one block, a match found wherever BUF lies (hsrun.c: Vectorscan 5.4.9 misses
 * some by their address on CPUs with AVX-512): through ST (reset after it, reporting what
 * ends at its end) when not NULL, else DB in block mode.  Hits reach CB in order of their
 * end.  Same returns as hs_scan. */
hs_error_t pm_hs_chunk(const hs_database_t *db, hs_stream_t *st, const char *buf, size_t len,
		       hs_scratch_t *scratch, match_event_handler cb, void *ctx);
/* The platform every database is compiled for: this CPU's, less what the implementation
 * hsrun.c chose cannot run. */
const hs_platform_info_t *pm_hs_platform(void);
/* hs_open_stream and hs_close_stream (no matches reported) of that implementation. */
hs_error_t pm_hs_open(const hs_database_t *db, hs_stream_t **st);
void pm_hs_close(hs_stream_t *st);
/* Tests: PM_HS_TWICE scans every chunk at two placements whatever the probe said. */
enum { PM_HS_CHOSEN, PM_HS_TWICE };
void pm_hs_force(int how);

#endif
