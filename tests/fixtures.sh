#!/bin/sh
# Run every known-answer case of the bundled rule set through the built command:
# each case's verdict is compared with its hand-checked expected.json.
set -eu
: "${PM_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${PM_BUILDDIR:=$PM_SRCDIR}"
LC_ALL=C exec "$PM_BUILDDIR/cli/postmortem" rules check "$PM_SRCDIR/rules"
