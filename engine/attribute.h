/*
 * attribute.h - the attribution's state, shared by its phases (attribute.c, att_yield.c,
 * att_cands.c, att_votes.c, att_sched.c, att_decide.c, att_time.c, att_ranks.c,
 * att_place.c) and the building of the verdict from it (verdict.c).  Not installed.
 */
#ifndef PM_ATTRIBUTE_H
#define PM_ATTRIBUTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "evidence.h"
#include "ruleset.h"
#include "taxonomy.h"

#define MAXC 64

/* What made a candidate: a symptom, silence, peer votes, or timeouts with nothing else. */
enum lead { LEAD_RULE, LEAD_SILENCE, LEAD_VOTES, LEAD_TIMEOUTS };

/* The verdict's status (its names are the output contract: verdict.c). */
enum vstatus { VS_NONE, VS_ATTRIBUTED, VS_AMBIGUOUS, VS_UNKNOWN };

struct cand {
	const char *cls, *sub;
	char node[128];	   /* "" for job-wide */
	char also[3][128]; /* further origin nodes when the evidence cannot choose */
	size_t nalso;
	bool co; /* the lead's hardware class on another node at its time, or a shared
		  * filesystem's other client: an origin too (att_decide.c, co_origins,
		  * fs_clients) */
	bool hardware;
	enum lead lead;
	enum pm_strength strength;
	double t; /* earliest dated origin evidence; 0 undated */
	bool has_t;
	size_t *ev; /* supporting obs indices */
	size_t nev, aev;
	int *ranks; /* in the order first seen; added through cand_addrank only */
	size_t nranks, aranks;
	uint64_t *rbits; /* which ranks below 1 << 24 RANKS holds */
	size_t nrbits;
	char *gpus[8];
	size_t ngpus;
	char summary[256];
	size_t sumobs; /* the observation SUMMARY was made from, plus one; 0: a phase's own words */
	bool corroborated;
	bool current;	  /* a state read at collection (nvidia-smi): now, not undated */
	double late_snap; /* the date of an nvidia-smi snapshot of its evidence taken past the
			   * job's teardown (pm_att_late_snapshot): no state of the job's time */
	bool all_ranks;
	bool launch;
	bool dead;     /* merged into another */
	bool in_plain; /* some evidence in the job window without any node's skew */
	bool by_skew;  /* some evidence kept only through its node's clock skew */
	/* time bounds evidence (phase_stale): origin events stamped before the job began */
	size_t nin, npre;  /* origin events of this job's window, and from before it */
	double tpre;	   /* the latest of those before it */
	bool prestart;	   /* every origin event predates the job: context unless explained */
	bool explained;	   /* this job's own ranks on its node failed in a way it explains */
	int pidlink;	   /* +1 a kernel line names a pid of this job, -1 only others' pids */
	bool untrusted;	   /* a hardware class seen only in the job's own output */
	bool fallback;	   /* a lead only when nothing better fits: at most hypothesis */
	bool nowhere;	   /* no node of the folder's to place it on: one reporter's word
			      against one peer (att_cands.c single_reporter) */
	bool user_record;  /* a node failure only a record with a column the user writes
			    * gives (job.record_user_text), or only a file shaped as
			    * slurmctld's log with no record (pm_att_ctld_node_fail): at most
			    * hypothesis, no exclusion */
	bool guess;	   /* its node is only the folder's guess (att_place.c) */
	bool contradicted; /* only the job's output places it, and the plugin's records say
			    * every task on its node ended cleanly (pm_att_clean_exits) */
	bool gainsaid;	   /* ... CONTRADICTED so, by the plugin's records or srun's, which
			    * name another node's task failing of itself (verdict_bystanders) */
	bool late_setup;   /* a set-up class seen only after the job's progress began
			    * (att_cands.c, setup_after_progress) */
	bool late_named;   /* ... LATE_SETUP with no progress seen: its lines name the running
			    * collective that failed (a `formed` rule's) */
	bool got_past;	   /* a set-up class alone whose every line its own output's progress
			    * followed, in a job of one node: the job got past it
			    * (att_cands.c, writer_went_on) */
	char note[200];	   /* what is missing, for why (fallback leads) */
	size_t refobs;	   /* the confirmation that read its kind anew, plus one (att_cands.c,
			    * refine); 0 none */
	size_t seq;	   /* its place before the order's sort: cmpcand's last tie-break */
};

/* A node's clock against the controller's (phase_clocks): D is when its collector began, by
 * its own clock, minus the job's end in the accounting record. */
struct clk {
	const char *node;
	double d;
	size_t kept;	  /* hardware events kept only through the widened window */
	bool exits;	  /* the plugin recorded task exits on it (clocks_by_exits) */
	double late;	  /* its last task exit, by its clock, minus the job's end */
	double d_collect; /* D before the task exits bounded it; 0 when they did not */
};

/* A rank that Slurm's task lines place. */
struct placed {
	int rank;
	uint32_t end; /* a hash of the end srun reports ("Terminated", "Exited with ...") */
	int how;      /* that end read: pm_att_srun_how */
	char node[128];
};

struct rnode {
	int rank;
	size_t seq; /* tasks first, then the other sources, in their order */
	const char *node;
};

/* A job node's name folded to lower case, whole or its first label (att_ranks.c,
 * pm_att_job_names). */
struct jname {
	char *key;
	const char *node;
};

struct att {
	int commw; /* the size of the job's communicator its set-up lines name (att_ranks.c) */
	struct pm_evidence *ev;
	const struct pm_ruleset *rs;
	/* the record's node names folded, whole and by first label, sorted by key: how a
	 * host as a line spells it maps to one of them (pm_att_job_node) */
	struct jname *jwhole, *jfirst;
	size_t njn;
	/* the domain the record or the evidence gives the job's nodes (folded, "cl.example.org"),
	 * NULL when none; JDOM_CONFLICT when the evidence gives them several and none is
	 * confirmed: a dotted name then maps to a job node only by its whole name */
	char *jdom;
	bool jdom_conflict;
	size_t *order; /* obs sorted */
	size_t *eid;   /* obs -> evidence number (1-based) */
	struct cand c[MAXC];
	size_t nc;
	json_t *why;
	/* why's sentence that put what has no node on the folder's one host (att_place.c): its
	 * index + 1 (0: none) and that host, reworded by pm_att_why_one_reporter */
	size_t one_host_why;
	char one_host[256];
	const char *outcome;
	bool cancel_by_limit; /* the job's CANCELLED line follows a kill for its memory */
	bool task_failed;     /* a task ended of itself: error code, crash signal (phase_outcome) */
	/* a line says the job is still pending (a rule of outcome PENDING: a hold, a dependency
	 * never satisfied) while the evidence shows it ran: another run's or job's state, set
	 * aside (phase_outcome; pm_att_pending_aside) */
	bool pending_aside;
	bool weak_only; /* no record and no error, only weak origins (phase_outcome) */
	double first_progress, last_progress;
	bool any_progress;
	/* each file's first progress offset + 1, 0 for none (att_cands.c, progress_starts):
	 * made once, when first asked */
	uint64_t *pstart;
	bool pstart_made, pstart_any;
	int *known; /* known ranks, sorted */
	size_t nknown;
	struct rnode *rnode; /* rank -> node, sorted by rank (place_ranks) */
	size_t nrnode;
	/* observations' node names replaced after place_ranks, freed with the rest: the rank
	 * map (RNODE, a communicator's set-up lines) points at observations' names */
	char **retired;
	size_t nretired, aretired;
	/* with no record, the hosts of every rank of the job's communicator, where its set-up
	 * lines and the other sources place them all (pm_att_rank_hosts); NULL otherwise */
	const char **rkh;
	const char **rkhs; /* RKH sorted by host (att_ranks.c host_cmp) */
	size_t nrkh;
	/* with no window (pm_att_no_window), the earliest time the job's output dates a line of
	 * its progress or set-up (pm_att_output_start); 0 none */
	double out_t0;
	/* with no window, the earliest time the job's output dates a line of its progress (OUT_P0)
	 * and the latest time it dates any line of its own (OUT_T1): the job made progress on its
	 * GPUs after OUT_P0 and its output ended about OUT_T1 (pm_att_output_start); 0 none */
	double out_p0, out_t1;
	/* with no window, the time slurmstepd's "*** JOB N ON host CANCELLED AT <ts> ***" in
	 * the job's output gives this job's end (pm_att_output_start; OUT_T1 takes it where
	 * it is the later); 0 none */
	double out_tc;
	/* Slurm's task -> node where a launcher numbered the ranks (place_ranks, launcher_ranks):
	 * the rank map's and srun's, kept out of RNODE and read for srun's labels only */
	struct rnode *tnode;
	size_t ntnode;
	const char **mapn; /* the nodes the rank map covers, sorted */
	size_t nmapn;
	/* ranks whose records of several steps, or srun's task lines, put them on several
	 * nodes, the job's output not saying which step wrote a line: placed on none (sorted) */
	int *amb;
	size_t namb;
	/* tasks whose srun lines contradict each other (two ends, two hosts): text the job may
	 * have printed, which lifts no cap (sorted; att_ranks.c, srun_gainsaid) */
	int *srun_bad;
	size_t nsrun_bad;
	int *srun_dbl; /* of SRUN_BAD, the tasks reported twice, differently (sorted) */
	size_t nsrun_dbl;
	struct placed *placed; /* ranks placed by Slurm's task lines */
	size_t nplaced;
	struct host {
		char name[128];
		int spell;	/* how its spelling was learnt (att_place.c) */
		bool ended;	/* srun reports its tasks ended by Slurm: "Terminated", "Killed" */
		bool srun;	/* srun reports a task of it, whatever its end */
		bool contested; /* and a task of it twice, differently (srun_contested) */
		bool aside;	/* named only by lines set aside as another job's set-up
				 * (pm_att_unplace_aside): no place for the job's own lines */
	} * hosts;		/* the hosts a hand-gathered folder names (att_place.c) */
	size_t nhosts, ahosts;
	/* the host-like names the files' lines give by a shell prefix with a rank tag right
	 * after it ("gpu201: [rank3]: ..."): the first, and how many differ (0, 1, 2: several;
	 * att_place.c, rank_prefix_seen) */
	char rankpfx[128];
	int nrankpfx;
	size_t *hidx, hcap; /* HOSTS' index by name in any case: slot -> index + 1 (0: none) */
	bool *guessed;	    /* obs -> its node was placed from the folder's words (att_place.c) */
	/* obs -> the host its prefix named is one Slurm gainsays (prefix_gainsaid): the line has
	 * no node, and takes none from srun's report or the folder's one host (att_place.c) */
	bool *pgain;
	/* obs -> its node is named only by a library's host prefix the job printed (Open MPI's
	 * "[host:pid]", NCCL's "host:pid:tid"): its lead's exclusion only offered, as GUESSED's,
	 * but read as printed on that host, so it still corroborates (att_place.c) */
	bool *libpfx;
	/* file -> its name names a node-level source (dmesg-all.txt: has_node_word, att_place.c),
	 * made at init: asked of every line of the job's output */
	bool *srcname;
	/* obs -> GUESSED because Slurm's report gainsays the host column of a syslog-shaped file
	 * named for no kernel log (att_place.c syslog_gainsaid); NULL when none is */
	bool *sysgain;
	/* a library prefix's node the task-exit records gainsaid (records_gainsay): a line of
	 * the job's output placed on no node, so an origin of none leaves no bystander */
	bool records_unplaced;
	bool busid_twice_said; /* busid_ranks said a rank's two bus ids in `why` */
	bool *yielded; /* obs -> a generic reading set aside for a specific one (att_yield.c) */
	/* obs -> a line of a launch-time reading set aside as another job's (att_cands.c,
	 * setup_not_this_jobs); NULL when none is */
	bool *not_job;
	/* obs -> a line read as no end of this job's: a summary of a job's end that does not
	 * hold for it, the job's word of a requeue after a task failed of itself, an end read
	 * only from the job's text that a trusted hardware event outranks (att_cands.c,
	 * phase_outcome, pm_att_text_end); NULL when none is */
	bool *end_aside;
	bool end_text; /* no record, and the outcome read only from the job's text (phase_outcome) */
	/* obs -> a line of the job's output named a host the record's node list lacks, its name
	 * dropped (att_ranks.c, own_node); NULL when none did */
	bool *outside;
	/* pairs of obs: a generic exception and the specific origin its handler raised after
	 * Python's "During handling ..." (a `handler` chain line): two explanations, not one
	 * (att_yield.c; att_decide.c, tied) */
	size_t *handled;
	size_t nhandled;
	const char *yield_gen, *yield_spec; /* the first such pair of rule ids, for why */
	enum yield_kind {
		YIELD_LINE,   /* both read one line */
		YIELD_CHAIN,  /* one chained traceback */
		YIELD_IGNORED /* printed as not fatal */
	} yield_kind;
	int *hranks; /* the ranks a launcher's failure report names (att_place.c) */
	size_t nhranks, ahranks;
	struct rank_host {
		int rank;
		char host[128];
	} * rhost; /* a failure report's rank and the host it names for it (att_place.c) */
	size_t nrhost, arhost;
	char hfield[2][128]; /* the host field of the line before, and of this one (att_place.c) */
	/* torchrun's failure summary being read (att_place.c): the section of its table the
	 * lines are in, and the time field of the entry */
	enum { TSECT_NONE, TSECT_ROOT, TSECT_OTHER } tsect;
	double ttime; /* the entry's "time : YYYY-MM-DD_HH:MM:SS", seconds; 0 none */
	bool tlist;   /* the lines being read list a coordination service's failed tasks */
	bool hlabel;  /* the line line_hosts reads was under srun's label (a task's output) */
	int tsum;     /* the summaries read so far ("train.py FAILED" heads each) */
	bool tnamed;  /* their ranks are among HRANKS (pm_att_place_one_host) */
	bool tfirst;  /* of several summaries, the earliest root cause's rank is named */
	bool lrep;    /* an MPI launcher's own report names a rank (mpirun's "rank N with PID P
		       * on node H exited", "Process name: [[J,S],R]", hydra's "RANK N PID P
		       * RUNNING AT H"): text only a launcher prints (drop_task_ranks) */
	/* a launcher's report or torchrun's summary line read under srun's label, as a launcher
	 * srun started prints it (report_unlabelled); the raw line line_hosts reads (HRAW to
	 * HRAWE of HRAWF: NULL where hlabel says it) */
	bool rep_label;
	const char *hraw, *hrawe;
	const struct pm_file *hrawf;
	bool rlab_said;	 /* `why` said the report moves no label's rank (report_unlabelled) */
	bool rprog_said; /* ... no rank where every step ran Python (steps_ran_program) */
	/* `why` said a launcher's report's host is gainsaid (att_place.c report_yields) */
	bool rgain_said;
	bool rtask_said; /* ... and that srun's own tasks are the program's ranks (srun_tasks_ranks) */
	struct troot {
		int rank;
		int sum;       /* its summary */
		bool other;    /* under "Failures:", not the root cause */
		bool stopped;  /* exitcode -15: the agent's own SIGTERM after the first failure */
		double time;   /* 0 unknown */
		uint32_t file; /* the file its lines are in */
		uint64_t from, to; /* its rank line's offset, the next entry's (UINT64_MAX: none) */
	} * troot;		   /* every entry of the summaries read, in order */
	size_t ntroot, atroot;
	uint32_t tfile; /* the file and offset of the line file_hosts reads (UINT64_MAX: none) */
	uint64_t tline;
	/* the host of the one task srun reports as failed of itself ("srun: error: HOST: task
	 * N: Exited with exit code C", a crash signal), and whether reports name several */
	char srun_host[128];
	int srun_task;
	bool srun_many;
	/* the same, read from srun's own lines as att_ranks.c placed them (A->placed), where the
	 * plugin's records or a collector's bundles are in the folder and file_hosts does not
	 * run (att_place.c, srun_placed); NULL where srun names no one such task */
	const char *psrun_host;
	int psrun_task;
	bool echo_many; /* the job's echo of its allocation names several nodes (att_place.c) */
	/* where srun first reports a host's tasks as ended by Slurm: the file and the line's
	 * offset (td_off UINT64_MAX: after every line, where a terminal's width broke the file's
	 * lines and offsets are not the scan's) */
	size_t td_file;
	uint64_t td_off;
	bool td_seen, td_hit; /* td_hit: srun_failed read such a report (file_hosts reads on) */
	int *suspects;
	size_t nsuspects;
	char vote_nodes[4][128];
	size_t nvote;
	bool votes_split;
	bool refused;	 /* the lead is a peer's refusal beside a reasonless set-up failure, its
		       * ambiguity and test made (att_decide.c, refused_lead) */
	struct clk *clk; /* sorted by node */
	size_t nclk;
	double maxskew;	 /* the largest |D| beyond the tolerance, 0 none */
	double teardown; /* how long after the end every node's tasks exited (clocks_by_exits) */
	/* the decision (phase_order, phase_status, phase_confidence) */
	bool stalled; /* a TIMEOUT whose progress stopped long before the end */
	size_t live;  /* candidates not merged away, first in C */
	bool any_hw;  /* one of them is hardware */
	struct cand *lead, *second;
	enum vstatus status;
	bool ambiguous;
	size_t nco;	/* the lead's class on so many other nodes at its time (co_origins) */
	char test[768]; /* the observation that would separate the candidates */
	const char *conf;
};

static inline const struct pm_rule *R(const struct att *a, size_t o)
{
	return &a->rs->rules[a->ev->obs[o].rule];
}

/* Where an event falls against the job window (pm_att_obs_window). */
enum win { WIN_OUT, WIN_BEFORE, WIN_IN };

/* att_yield.c: the generic readings that yield to a specific one (phase 7) */
int pm_att_yield(struct att *a);

/* attribute.c */
void pm_att_why(struct att *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A lead that one process's report alone gives (a lone reporter, a survivor's line): why's
 * sentence that placed what has no node on the folder's one host says where it was reported,
 * not that it happened there.  Nothing when there is no such sentence. */
void pm_att_why_one_reporter(struct att *a);
const char *pm_att_rank_node(const struct att *a, int rank);
/* Whether RANK is placed on NODE only by the job's printed text: a communicator's set-up
 * line or a rank tag whose host a library's prefix names (NCCL's "host:pid:tid", Open MPI's
 * "[J,R,host]"), never the rank map, srun's task lines or a file's own node (att_ranks.c).
 * A lead such a rank alone places is named, its node's exclusion only offered (libpfx). */
bool pm_att_rank_text_only(const struct att *a, int rank, const char *node);
/* Whether the line RAW is srun's own report ("srun: error: HOST: task N: ...", unlabelled,
 * at its text's start), and whether it reports no task srun's lines contradict. */
bool pm_att_srun_own(const char *raw);
bool pm_att_srun_trusted(const struct att *a, const char *raw);
/* A node other than NODE where the plugin's records show a task failing of itself (a non-zero
 * exit, a signal but Slurm's SIGTERM or SIGKILL), when they show every task on NODE ending with
 * exit 0, or ended by SIGTERM or SIGKILL after that failure; else NULL. */
const char *pm_att_clean_exits(const struct att *a, const char *node);
/* Whether the plugin's exit record of task T shows it failing of itself: a non-zero exit,
 * or a signal other than Slurm's SIGTERM or SIGKILL of a step's teardown. */
bool pm_att_own_failure(const struct pm_task *t);
/* The job's node NODE names, as Slurm's record spells it: itself, else the one node equal to
 * it but for case ("GPU07" is gpu07), else the one whose first label is NODE's, whichever
 * is the full name ("gpu07.cluster.local" is gpu07, "gpu07" is gpu07.cluster); NULL when the
 * record lists the job's nodes and NODE names none of them or several (*SEVERAL, when not
 * NULL, says which); NODE itself when the record lists none. */
const char *pm_att_job_node_n(const struct att *a, const char *node, bool *several);
const char *pm_att_job_node(const struct att *a, const char *node);
/* Whether the record lists the job's nodes and NODE, a node the verdict would name, is none
 * of them as Slurm spells them: a host that fits several job nodes (pm_att_job_node_n maps
 * it to none), which no exclusion may name. */
bool pm_att_unknown_node(const struct att *a, const char *node);
/* Whether F, a file named for a job node, may be that node's own log written under another
 * host name (NodeHostname gpu07-ib, an address), so that HOST, a host outside the job on a
 * trusted line of it, is that node: none of its lines carries a job node's name, they carry
 * one host (localhost aside), and HOST is not the node's name with more digits after it
 * (gq070 in `grep gq07`).  The lines a rule read are asked apart (file_node_alias). */
bool pm_att_node_log(const struct att *a, const struct pm_file *f, const char *host);
/* Fold the record's node names for pm_att_job_node, then name every node the evidence gives
 * (files, sections, lines, rank prefixes, tasks) as the record does where it maps to one
 * job node.  0, or -1 on ENOMEM. */
int pm_att_job_names(struct att *a);
/* A's SRCNAME: each file's name read once (att_place.c).  -1 on ENOMEM. */
int pm_att_src_names(struct att *a);
/* An observation's node name S, replaced: kept until A is freed (other lists may point at
 * it), never freed before; with no memory to keep it, left allocated (a leak, not a dangling
 * name). */
void pm_att_retire(struct att *a, char *s);
void pm_att_node_reasons(struct att *a);
/* A sinfo -R row naming several job nodes, read once for each of them (att_ranks.c): before the
 * observations are ordered.  0, or -1 on no memory. */
int pm_att_split_rows(struct att *a);
int pm_rankset_push(int **v, size_t *n, size_t *al, int r);
void pm_rankset_done(int *v, size_t *n);
bool pm_rankset_has(const int *v, size_t n, int r);
/* Add R to C's ranks unless there: every addition to a candidate's ranks goes through it. */
int pm_att_cand_addrank(struct cand *c, int r);
/* Empty C's ranks. */
void pm_att_cand_ranks_clear(struct cand *c);
/* The live candidate CLS/SUB on NODE (NULL: job-wide), made with LEAD when missing; NULL
 * when all MAXC are taken. */
struct cand *pm_att_cand_get(struct att *a, const char *cls, const char *sub, const char *node,
			     enum lead lead);
/* The job's nodes (*N of them): its accounting record's, else every node the evidence names. */
char **pm_att_nodes(const struct att *a, size_t *n);
/* The candidate of kind K (taxonomy.h) on NODE, made when missing. */
struct cand *pm_att_kind_get(struct att *a, enum pm_kind k, const char *node, enum lead lead);
/* Add observation OI to C's support: its strength, times, ranks, GPUs and summary. */
int pm_att_cand_add(const struct att *a, struct cand *c, size_t oi);
/* Whether candidate C holds observation OI among its evidence. */
bool pm_att_cand_holds(const struct cand *c, size_t oi);

/* att_cands.c: the job's outcome and the candidates (origins, merged, joined, confirmed,
 * and the leads kept when nothing better fits). */
/* Slurm's job state as an outcome name; NULL for a state that is no end. */
const char *pm_att_outcome_from_state(const char *st);
void pm_att_phase_outcome(struct att *a);
/* Whether obs I was read as no end of this job's (A->end_aside). */
bool pm_att_end_aside(const struct att *a, size_t i);
/* With no record, an end read only from the job's text (a summary gathered by hand, a line
 * of its output) gives way to a trusted hardware event in the run: FAILED, its external
 * candidates set aside (review39 H1-H3).  After phase_stale. */
void pm_att_text_end(struct att *a);
/* A hardware candidate from a source the job cannot write, dated, on a node, that phase_stale
 * kept as this job's (not before its output, not left unexplained, not a fallback); NULL
 * when none is. */
const struct cand *pm_att_run_hardware(const struct att *a);
int pm_att_phase_origins(struct att *a, bool hardware);
/* O, a node failure read in a file told as slurmctld's log: -1 where Slurm's record says
 * the job ended otherwise (the two gainsay each other: no lead), 1 where there is no record
 * (a hypothesis that excludes no node, as user_record), else 0. */
int pm_att_ctld_node_fail(const struct att *a, const struct pm_obs *o);
bool pm_att_pending_aside(const struct att *a, size_t i);
/* The job a syslog program's line (scan_daemon's) names: 1 this job (or any job, this
 * job's id unknown), -1 another, 0 none. */
int pm_att_daemon_job(const struct att *a, const struct pm_obs *o);
/* Whether O is a row of an entry torchrun's summary lists as failed after its root cause or
 * stopped by its agent (att_place.c); whether entry K of troot is such an entry. */
bool pm_att_summary_unnamed(const struct att *a, const struct pm_obs *o);
bool pm_att_summary_later(const struct att *a, size_t k);
/* Whether O is a trusted line of a host outside the job's nodes (a loghost's file). */
/* Whether HOST is one of the job's nodes by the record's name or short name. */
bool pm_att_job_host(const struct att *a, const char *host);
bool pm_att_other_node(const struct att *a, const struct pm_obs *o);
/* Observation OI is a port's link going down (a 'link_state' rule) that the kernel stamped
 * in its node's first BOOT_LINK_S seconds of uptime: the driver bringing its ports up, before
 * any job ran, so context only. */
bool pm_att_boot_link(const struct att *a, size_t oi);
/* Whether O's node is its search hit's own host field (pm_peel.node_hit), not text the job
 * printed. */
bool pm_att_hit_host(const struct att *a, const struct pm_obs *o);
/* Whether O, a trusted line on a node where the job's GPUs are known, names a GPU the job
 * did not hold there (another job's, on a shared node) and no pid of the job's tasks. */
bool pm_att_other_gpu(const struct att *a, const struct pm_obs *o);
/* Whether O, a trusted line, names a GPU a task of the job on its node lists (the plugin's
 * records, by the node's index or Minor Number, or a cgroup's view of the job's own). */
bool pm_att_job_gpu(const struct att *a, const struct pm_obs *o);
/* The date of the nvidia-smi snapshot O (a GPU's memory error count or mark: ECC, remapped
 * rows, retired pages) was read from where it was taken after the job's teardown and is not
 * the job's collector's (past KillWait, UnkillableStepTimeout and the collector's deadline
 * after the job's end, or outside the node's collector's run): what it counts may come from
 * after the job.  0 otherwise. */
double pm_att_late_snapshot(const struct att *a, const struct pm_obs *o);
/* C's hardware evidence is only such a late snapshot's reading: no dated line, no state of the
 * job's time.  It leads at most at hypothesis, its node's exclusion only offered. */
static inline bool pm_att_late_only(const struct cand *c)
{
	return c->late_snap > 0 && !c->has_t && !c->current;
}
/* A folder with no accounting record, task record or bundle: the job's time is not known
 * (att_time.c). */
bool pm_att_no_window(const struct att *a);
/* With no window, note in OUT_T0 the earliest time a line of the job's progress or set-up in
 * its output (a progress or context rule's) is dated (a stamp with a date), if any. */
void pm_att_output_start(struct att *a);
/* Whether O, a dated trusted line, is stamped before the job's first dated line of progress
 * or set-up (OUT_T0) by more than the skew tolerance and job_window_grace_s, with no window: the job
 * was running after it and the user's text may narrow trust, never widen it. */
bool pm_att_before_output(const struct att *a, const struct pm_obs *o);
/* The record gives only one of the job's start and end: its window is open on one side. */
bool pm_att_half_window(const struct att *a);
/* C is a hardware event kept only on the side the record leaves the window open (att_time.c). */
bool pm_att_open_side(const struct att *a, const struct cand *c);
void pm_att_phase_merge(struct att *a);
void pm_att_phase_join(struct att *a);
/* A GPU's weak hang lines set aside beside the kernel's record of the program's own fault on
 * that GPU before them, and set-up failures reported after the job's progress began beside
 * another origin (att_cands.c). */
void pm_att_phase_consequence(struct att *a);
/* Whether every line of C came after the job's progress began: dated later than the first
 * progress by more than the skew tolerance, or undated after a progress line of its own file
 * (a tqdm bar, NCCL's "Init COMPLETE", which carry no time).  False with no progress. */
bool pm_att_cand_after_progress(struct att *a, const struct cand *c);
void pm_att_phase_confirm(struct att *a);
int pm_att_phase_fallback(struct att *a);

/* att_votes.c: peer votes, and one error on every rank. */
int pm_att_phase_votes(struct att *a);
void pm_att_phase_all_ranks(struct att *a);

/* att_sched.c: what Slurm itself decided. */
void pm_att_phase_scheduler(struct att *a);

/* att_decide.c: the candidates' order, the status and the confidence. */
void pm_att_phase_order(struct att *a);
void pm_att_phase_status(struct att *a);
void pm_att_phase_confidence(struct att *a);

/* att_time.c: node clocks, the job window, clock skew, and events from before the job. */
int pm_att_phase_clocks(struct att *a);
struct clk *pm_att_node_clk(const struct att *a, const char *node);
const char *pm_att_obs_clock_node(const struct att *a, const struct pm_obs *o);
enum win pm_att_obs_window(const struct att *a, const struct pm_obs *o, bool wide);
void pm_att_phase_stale(struct att *a);
double pm_att_pair_tol(const struct att *a, const struct cand *x, const struct cand *y);
/* Every piece of C's evidence an exception of a type no hardware fault raises (KeyError,
 * ValueError, ...): the program's own logic error (att_decide.c). */
bool pm_att_logic_error(const struct att *at, const struct cand *c);
/* C is a node's own hardware failure in the job's time, from evidence the user cannot write
 * (not a fallback, not from before the job, not undated): that node did not err only as a
 * consequence of the origin (att_decide.c). */
bool pm_att_own_hw(const struct cand *c);
void pm_att_skew_notes(struct att *a);

/* att_place.c: the nodes a hand-gathered folder names. */
int pm_att_phase_place(struct att *a);
/* The key strings line [P, E) holds, as placement's bits (att_place.c), found sixteen bytes
 * at a time where VECTOR and the CPU allow, else byte by byte: the same bits either way.
 * PM_ATT_KEY_PAD bytes after E are read and must be zero.  Exported for tests. */
#define PM_ATT_KEY_PAD 32
unsigned pm_att_line_keys(const char *p, const char *e, bool vector);
void pm_att_place_one_host(struct att *a, size_t from, bool late);
void pm_att_unplace_aside(struct att *a);
/* att_cands.c: whether a Slurm daemon's own file says this job (its id as its output names
 * it) ran on NODE: slurmctld's log allocating it a node list holding NODE, or the slurmd log
 * of NODE's folder launching it. */
bool pm_att_daemon_ran_job(const struct att *a, const char *node);
/* Every candidate's summary made again from its observation once placement is done, its
 * origin's one node and one rank filling what the observation lacks, and its GPUs named on
 * that node (attribute.c). */
void pm_att_phase_summaries(struct att *a);
bool pm_att_node_guessed(const struct att *a, const struct cand *c);
/* Whether C's evidence is all the job's own output: text its user can write (att_decide.c). */
bool pm_att_output_only(const struct att *a, const struct cand *c);
/* Whether every line C was read on named a host Slurm gainsays: no node, none other
 * (att_place.c, A->pgain). */
bool pm_att_pgain_only(const struct att *a, const struct cand *c);
/* Whether O, read from a source its user cannot write, came from a file whose kind no
 * collector's manifest (or caller) gave: a file of a folder gathered by hand, that only its
 * content and name make a node's kernel log, nvidia-smi report or Slurm's text.  Who wrote
 * it is not checked; the job can write any file into its own folder (review32 F01). */
bool pm_att_hand_given(const struct att *a, const struct pm_obs *o);
/* The hand-given files (pm_att_hand_given) among the trusted evidence of C (of every live
 * candidate when C is NULL), named in BUF (N bytes) as "F as NODE's kernel log, G as NODE's
 * nvidia-smi report" (at most three, then "and K more"); with NODE_SIDE, only a node's own
 * records (kernel log, GPU state, node metrics).  The number of such files. */
size_t pm_att_hand_files(const struct att *a, const struct cand *c, bool node_side, char *buf,
			 size_t n);
/* In a hand-gathered folder: the host of the one task srun reports as failed of itself when
 * it reports NODE's tasks as ended by Slurm ("Terminated", "Killed"), the folder's analog of
 * pm_att_clean_exits; NULL otherwise. */
const char *pm_att_srun_ended(const struct att *a, const char *node);
/* How srun's report of a task ends, M..E ("Exited with exit code 1", "Terminated"): 1, the
 * task failed of itself (a non-zero exit, a crash signal); 2, Slurm ended it (its teardown:
 * "Terminated", "Killed", a shell's exit 143 or 137); 0, neither (an exit 0). */
int pm_att_srun_how(const char *m, const char *e);
/* The task of pm_att_srun_ended's host that srun reports as failed of itself. */
int pm_att_srun_task(const struct att *a);
/* The time slurmstepd's cancel line gives in its own words, "*** JOB 7 ON n1 CANCELLED AT
 * 2026-03-01T18:00:00 DUE TO TIME LIMIT ***": the line carries no stamp of its own in a
 * job's output, so the scanner gives it no event time.  Slurm writes the node's local time
 * without a zone, as most training logs write theirs; 0 when the line has none (att_sched.c). */
double pm_att_cancelled_at(const struct pm_obs *o);
/* The job's id with no accounting record: the one id the folder's Slurm output files are
 * named for (slurm-N.out), in ID (CAP bytes); false none, several, or an array task's
 * (att_cands.c). */
double pm_att_last_progress(const struct att *a);
bool pm_att_output_job_id(const struct att *a, char *id, size_t cap);
/* Whether exit code C is a shell's 128 + SIGTERM or SIGKILL (143, 137): the task was ended by
 * a signal, as Slurm ends a step's other tasks, not failing of itself (att_ranks.c). */
bool pm_att_slurm_signal_exit(long c);

/* att_ranks.c: where ranks ran, the GPUs' ranks, silence, and a timeout's suspects. */
int pm_att_phase_ranks(struct att *a);
/* With no accounting record, where every rank of the job's communicator (its set-up lines'
 * size, no rank seen beyond it) is placed on a host, note those hosts in RKH: a host that
 * ran none of them is no node of the job's ranks (pm_att_other_node).  0, or -1 on ENOMEM. */
int pm_att_rank_hosts(struct att *a);
/* Whether RKH is known and NODE is none of its hosts by name or first label, in any case. */
bool pm_att_rankless_host(const struct att *a, const char *node);
void pm_att_place_obs(struct att *a);
int pm_att_phase_gpu_ranks(struct att *a);
/* The GPU's index on NODE for bus id PCI, from nvidia-smi's table; -1 unknown. */
int pm_att_pci_index(const struct att *a, const char *node, const char *pci);
/* Whether two bus ids name one GPU ("0000:3b:00" and "0000:3B:00.0"). */
bool pm_att_pci_eq(const char *x, const char *y);
/* Whether a rank map's GPU list ("0,1") holds index IDX. */
bool pm_att_gpus_has(const char *list, int idx);
/* How many GPUs the job's tasks on NODE list, all lists together. */
size_t pm_att_held_count(const struct att *a, const char *node);
/* The node's index of the GPU observation O names on NODE (a program's index is CUDA's,
 * mapped through the rank's GPU list); -1 unknown.  *ROW_PCI (ROW_PCI may be NULL): the bus
 * id of nvidia-smi's row where the index was read off its table, else NULL. */
int pm_att_obs_node_gpu(const struct att *a, const struct pm_obs *o, const char *node,
			const char **row_pci);
/* PID against the job's task pids on NODE (the plugin's records): +1 one of them, -1 none of
 * them while every task there is known by its pid, 0 when it cannot say (att_time.c). */
int pm_att_pid_link(const struct att *a, const char *node, int pid);
int pm_att_phase_silence(struct att *a);
size_t pm_att_silent_support(const struct att *a, const struct cand *c);
void pm_att_phase_silence_lead(struct att *a);
void pm_att_fewest_completed(struct att *a, struct cand *c);
/* A stall's straggler: the ranks whose own progress stopped more than the skew tolerance
 * before their peers' (fewer than the rest, at least three peers, one rank or one node).
 * Their ranks into OUT (at most MAX), their node, when known, into *NODE; the count. */
size_t pm_att_stragglers(const struct att *a, int *out, size_t max, const char **node);
/* Every rank dumped, fewer of them outside a collective than in one: L names those outside,
 * and true; false, L untouched, otherwise (att_decide.c). */
bool pm_att_dumps_outside(struct att *a, struct cand *l);
/* Whether the lead is the time limit of a job still progressing at its end, with every live
 * hardware candidate a GPU slowed by heat, set behind it (att_decide.c, outcome_rank). */
bool pm_att_heat_behind_limit(const struct att *a);
/* The latest last progress of the ranks R[0..N). */
double pm_att_straggled(const struct att *a, const int *r, size_t n);
/* The stragglers R[0..N) on NODE (NULL: not known) as a message names them after "rank":
 * "5", "5 and others", "5 on gpu07". */
void pm_att_straggler_name(char *out, size_t len, const int *r, size_t n, const char *node);

/* verdict.c: TMPL with each "{node}" replaced by NODE, into OUT. */
void pm_subst(char *out, size_t len, const char *tmpl, const char *node);
/* verdict.c: the verdict (schema postmortem.verdict/2) from the attribution's state. */
json_t *pm_verdict_build(struct att *a);

#endif
