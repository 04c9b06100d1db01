/*
 * check_input.h - what the input suite's files share (check_input.c): exact-size copies,
 * a pseudo-random sequence, an evidence set of one input, the sample inputs, and each
 * file's tests added to its test case.
 */
#ifndef PM_CHECK_INPUT_H
#define PM_CHECK_INPUT_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

#define BASE 1796010000.0  /* 2026-11-30T03:40:00Z */
#define T0311 1796008318.0 /* 2026-11-30T03:11:58Z */

struct pm_evidence;

/* A malloc'd copy of S's N bytes, no terminator: ASan sees a read past its end. */
char *dup_exact(const char *s, size_t n);

/* The next number of a fixed pseudo-random sequence. */
uint32_t rnd(void);

/* An evidence set of one input file (named "input", rank -1) from NODE (or none). */
struct pm_evidence *ev_new(const char *node);

/* The sample inputs; SACCT_TABLE is filled by build_samples(). */
extern const char NVSMI_Q[], NVSMI_Q_OLD[], NVSMI_Q_550[], NVSMI_CSV[], SACCT_P[];
extern char SACCT_TABLE[2048];
extern const char SCONTROL[], MEMINFO[], TASKS[], APP_LOG[], DMESG[];
void build_samples(void);

/* Each file's tests, added to TC in the suite's order. */
void input_names_tests(TCase *tc);	/* check_input_text.c */
void input_sniff_tests(TCase *tc);	/* check_input_text.c */
void input_prefix_tests(TCase *tc);	/* check_input_text.c */
void input_time_tests(TCase *tc);	/* check_input_text.c */
void input_hostlist_tests(TCase *tc);	/* check_input_text.c */
void input_parsers_tests(TCase *tc);	/* check_input_parsers.c */
void input_compressed_tests(TCase *tc); /* check_input_compressed.c */

#endif
