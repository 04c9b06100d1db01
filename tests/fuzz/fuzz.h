/*
 * fuzz.h - what every fuzz target shares: the libFuzzer entry points, the bundled rule set
 * loaded once, and a private scratch folder for targets that must go through the file system.
 *
 * Each target is built twice: with clang -fsanitize=fuzzer for fuzzing (tests/fuzz/build.sh),
 * and with the normal compiler and driver.c, which replays saved inputs under `make check`
 * (tests/fuzz/regress.sh).
 */
#ifndef PM_FUZZ_H
#define PM_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "postmortem.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Bound what the engine reads of one input (POSTMORTEM_INPUT_MAX, unless set) to 1 MiB. */
void fz_bound_input(void);

/* The rule set folder: $PM_RULES, else the source tree's rules/ (PM_SRCRULES). */
const char *fz_rules_dir(void);

/* The rule set of fz_rules_dir(), loaded on first use; exits the process if it fails. */
const struct pm_ruleset *fz_rules(void);

/* A scratch folder made on first use and removed at exit; exits the process if it fails. */
const char *fz_tmpdir(void);

/* Write LEN bytes of BUF to DIR/NAME (replacing it); the path into PATH.  Exits on failure. */
void fz_write(const char *dir, const char *name, const void *buf, size_t len, char *path,
	      size_t plen);

/* Diagnose EV and render the verdict, when there is one, every way (JSON, text, comment);
 * everything freed.  EV stays the caller's. */
void fz_diagnose(struct pm_evidence *ev);

#endif /* PM_FUZZ_H */
