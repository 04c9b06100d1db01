#!/bin/sh
# Same evidence, same rules, same bytes: one job's bundles (two nodes, from the end-to-end
# suite's t-61) diagnosed ten times, each run compiling the rule set afresh (no cache), must
# give one verdict.  Vectorscan 5.4.9's AVX-512 implementation misses a match by where the
# scanned chunk lies in memory (engine/hsrun.c): a build whose heap put the job's output at
# such a place (one compiled the rule set in two threads) failed this test 5 runs of 5.
# tests/scan-placement.sh tries every placement.
set -eu
: "${PM_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${PM_BUILDDIR:=$PM_SRCDIR}"
cli=$PM_BUILDDIR/cli/postmortem
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
i=0
while [ $i -lt 10 ]; do
	POSTMORTEM_CACHE_DIR= "$cli" diagnose --json --rules "$PM_SRCDIR/rules" \
		"$PM_SRCDIR/tests/data/det-bundles" >"$t/v.$i.json"
	i=$((i + 1))
done
n=$(cat "$t"/v.*.json | grep -c '"rule": "slurm-chdir-failed"' || true)
[ "$n" -eq 20 ] || { echo "FAIL: the chdir line's two matches were not in every run ($n of 20)"; exit 1; }
for f in "$t"/v.*.json; do
	cmp -s "$t/v.0.json" "$f" || { echo "FAIL: $f differs from the first run"; diff "$t/v.0.json" "$f" | head -20; exit 1; }
done
echo "ok: 10 runs, one verdict"
