#!/bin/sh
# The families table of rules/README.md against the fixtures (issue 14): every fixture the
# table names exists, every positive fixture fires a rule of its row, every near miss leaves
# each rule of its row unfired.  Rules of a row that no positive fixture fires are warnings.
#   tests/rules-table.sh
set -eu
: "${PM_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
PYTHON=${PYTHON:-python3}
command -v "$PYTHON" >/dev/null 2>&1 || { echo "no python3: skipped"; exit 77; }
LC_ALL=C exec "$PYTHON" "$PM_SRCDIR/rules/fixtures/tools/check_table.py" "$PM_SRCDIR/rules"
