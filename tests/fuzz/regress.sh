#!/bin/sh
# regress.sh - replay saved inputs through every fuzz target, built with a plain driver
# (driver.c) instead of libFuzzer: tests/fuzz/regress/<target>/ (inputs that once crashed a
# target) and the hand-made seeds (for fuzz_redact, the redaction corpora in tests/data).  Run by `make check`; a bug aborts the target and fails
# the test, and the sanitizer build checks the same inputs under ASan and UBSan.
set -eu
: "${PM_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${PM_BUILDDIR:=$PM_SRCDIR}"
f=$PM_SRCDIR/tests/fuzz
rc=0
for t in fuzz_sniff_prefix_time fuzz_parsers fuzz_rules fuzz_diagnose fuzz_bundle fuzz_redact; do
	more=
	case $t in
	fuzz_rules) seeds=$f/seeds/rules ;;
	fuzz_redact) seeds=$PM_SRCDIR/tests/data/secrets more=$PM_SRCDIR/tests/data/lookalikes ;;
	*) seeds=$f/seeds/text ;;
	esac
	if ! "$PM_BUILDDIR/tests/fuzz/$t" "$f/regress/$t" "$seeds" ${more:+"$more"}; then
		echo "FAIL: $t on the inputs in $f/regress/$t or $seeds" >&2
		rc=1
	fi
done
exit $rc
