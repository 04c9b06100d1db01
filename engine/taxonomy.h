/*
 * taxonomy.h - the classes and subclasses the engine itself names, and the class
 * properties it decides by (names.c).  The engine's C names no class or subclass but
 * through these.  Not installed.
 */
#ifndef PM_TAXONOMY_H
#define PM_TAXONOMY_H

#include <stdbool.h>

/* What the engine makes or recognises itself, beside what the rules name. */
enum pm_kind {
	PM_K_TIME_LIMIT,   /* the job reached its time limit (Slurm's record) */
	PM_K_HOST_OOM,	   /* Slurm killed the job for its memory (OUT_OF_MEMORY) */
	PM_K_NODE_FAIL,	   /* a node Slurm lost (NODE_FAIL) */
	PM_K_HANG,	   /* ranks that fell silent with no error */
	PM_K_TIMEOUTS,	   /* collective timeouts nothing else explains */
	PM_K_MISMATCH,	   /* a collective one rank entered and its peers never did */
	PM_K_REMOTE_ERROR, /* a peer named by several reporters, no transport failure */
	PM_K_PEER_LINK,	   /* a peer (or a lone reporter) whose IB link failed transport */
	PM_K_THERMAL,	   /* a GPU slowed by heat: a cause of slowness, not of an end */
	PM_K_USER_CANCEL,
	PM_K_ADMIN_CANCEL,
	PM_K_PREEMPTED,
	PM_K_REQUEUED,
	PM_K_DEPENDENCY, /* a dependency Slurm says can never be satisfied */
	PM_K_USER_HOLD,	 /* a job its user held: it waits */
	PM_K_ADMIN_HOLD, /* a job an administrator held */
	PM_K_NODE_SETUP, /* a launch Slurm gave up on at the node (launch_failed_requeued_held) */
	PM_K_UNKNOWN,	 /* the decision of a verdict with no cause */
	PM_K_NONE,	 /* a rule that names no cause (context, progress) */
	PM_K__COUNT
};

struct pm_kind_def {
	const char *cls, *sub;
};

/* The class and subclass of kind K. */
const struct pm_kind_def *pm_kind(enum pm_kind k);
/* Whether CLS/SUB (SUB may be NULL: the class alone) is kind K. */
bool pm_is_kind(const char *cls, const char *sub, enum pm_kind k);
/* A class whose cause ends the job from outside it (cancel, preemption, requeue). */
bool pm_class_external(const char *cls);
/* A cause that is Slurm's own act (an external end, a time limit, a node it lost): it needs
 * no kernel log to be established. */
bool pm_cause_slurm_act(const char *cls, const char *sub);

/* pm_class_hardware, which the store uses too, is postmortem.h's. */
/* 0 when CLS (and SUBCLS, unless NULL) are in the taxonomy, else -1. */
int pm_taxonomy_check(const char *cls, const char *subcls);

#endif
