/*
 * check_responder.h - what the responder suite's files share (check_responder.c): the test's
 * temporary folder, configuration and rule set, running a shell line or the built command,
 * packing a fixture into a store, a verdict's certainty and description, and each file's
 * tests.
 */
#ifndef PM_CHECK_RESPONDER_H
#define PM_CHECK_RESPONDER_H

#include <check.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "finalize.h"

#define FIXTURES PM_TEST_SRCDIR "/rules/fixtures"
#define OBSERVED "2026-12-01T00:00:00Z" /* when the packed sources were "read" */

extern char T[256]; /* the test's temporary folder */
extern struct pm_config cfg;
extern struct pm_ruleset *rules;

/* A temporary store with a fake sacct and sacctmgr, the configuration and the rule set. */
void setup(void);
void teardown(void);

/* Make folder P and the folders above it. */
void mkdirs(const char *p);
/* Run the shell line FMT (the test fails unless it exits 0). */
void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Run the built command; its output (stdout and stderr, the first OUTLEN - 1 bytes) into
 * OUT, its exit status back. */
int run_cli(const char *args, char *out, size_t outlen);

/* ---- packing fixture evidence into a store, as the collector and finalizer would ---- */

struct pack {
	const char *skip_node; /* this node never reported */
	const char *skip_file; /* this evidence file could not be read (coverage: missing) */
	bool no_sacct;	       /* Slurm has no record of the job */
	const char *late_node; /* this node's bundle arrives after the merge */
	/* rewrite file REL of the fixture (TEXT, *LEN bytes): a malloc'd copy or NULL */
	char *(*filter)(const char *rel, const char *text, size_t *len);
	int restart; /* the job run's restart count: variants of one job side by side */
	bool quick;  /* no finalizer (it loads the rule set each time): the store reader's
			verdict, which is the finalizer's byte for byte (bundle_formats) */
};

struct packed {
	char dir[600];	  /* the job run */
	char job[64];	  /* its id */
	json_t *direct;	  /* the fixture diagnosed as a folder; "coverage": its inputs */
	json_t *verdict;  /* the stored verdict, NULL when there is none */
	json_t *manifest; /* the stored manifest */
};

void packed_free(struct packed *p);
/* Whether coverage entry C is the job's sacct.txt (no node). */
bool is_sacct(const json_t *c);
/* Pack FIXTURE into the store under O, finalize it the way the nodes' epilogs would. */
void pack_fixture(const char *fixture, const struct pack *o, struct packed *out);

/* How certain verdict V is (higher: more); "STATUS CAUSE (CONFIDENCE)" into BUF. */
int certainty(const json_t *v);
void describe(const json_t *v, char *buf, size_t len);

/* Each file's tests, added to its test cases in the suite's order. */
void responder_store_tests(TCase *m, TCase *f);	 /* check_responder_store.c */
void responder_replay_tests(TCase *r, TCase *u); /* check_responder_replay.c */
void responder_verbs_tests(TCase *m, TCase *v);	 /* check_responder_verbs.c */

#endif
