#!/bin/sh
# Same evidence, same rules, same bytes: one job's bundles (two nodes, from the end-to-end
# suite's t-61) diagnosed ten times, each run compiling the rule set afresh (no cache), must
# give one verdict.  Compiling two Vectorscan databases at once in two threads made a scan
# miss the job's first output line now and then (engine/rules.c, compile_db): this test failed
# 5 runs of 5 on that build.
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
