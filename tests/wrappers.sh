#!/bin/sh
# Invariance under wrappers (issue 14; engine/READING.md): every bundled fixture, its job
# output wrapped as real logs wrap it (tests/wrappers.py, one style per entry of its table:
# logging frameworks, parallel shells and launchers, containers, colour codes, progress bars,
# box frames, CRLF, two stacked, squashed pastes, a terminal's width), must keep the
# unwrapped verdict's outcome, status, class, subclass and origin.  A failure names the fixture and the style.
#   tests/wrappers.sh [STYLE...]
# PM_WRAPPER_STYLES (space-separated), when no STYLE is given: only those styles.  .ci/run's
# sanitizer and distcheck stages set it to a cross-section of the reader's layers; the check
# stage runs every style.  PM_WRAPPER_JOBS: styles checked at once (default: the CPUs this
# process may use, at most four; each style's rules check runs on one thread).
# PM_WRAPPER_TMPDIR: where the styles' trees go (default /dev/shm where it has room, else
# the temporary folder).
set -eu
: "${PM_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${PM_BUILDDIR:=$PM_SRCDIR}"
PYTHON=${PYTHON:-python3}
command -v "$PYTHON" >/dev/null 2>&1 || { echo "no python3: skipped"; exit 77; }
# shellcheck disable=SC2086 # a list of words
[ $# -eq 0 ] && [ -n "${PM_WRAPPER_STYLES:-}" ] && set -- $PM_WRAPPER_STYLES
LC_ALL=C exec "$PYTHON" "$PM_SRCDIR/tests/wrappers.py" check "$PM_BUILDDIR" "$PM_SRCDIR" "$@"
