#!/bin/sh
# Behaviour guard for performance work: `diagnose --json` of every fixture's evidence (and of
# any extra paths given), one file per input, into OUTDIR.  Run it with the build before a
# change and after it, then `diff -r BEFORE AFTER` must print nothing.
#   bench/same_verdicts.sh OUTDIR [EXTRA_PATH...]
# PM_BUILDDIR=<build dir>; PM_RULES=<rule set with its fixtures/> (default: rules/; give both
# runs the same copy when the rules may change in between).
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${PM_BUILDDIR:-$src}
rules=${PM_RULES:-$src/rules}
out=$1
shift
mkdir -p "$out"
for d in "$rules"/fixtures/*/evidence; do
	name=$(basename "$(dirname "$d")")
	"$build/cli/postmortem" diagnose --json --rules "$rules" "$d" > "$out/$name.json" 2>&1 ||
		echo "exit $?" >> "$out/$name.json"
done
for p in "$@"; do
	name=$(printf '%s' "$p" | tr '/' '_')
	"$build/cli/postmortem" diagnose --json --rules "$rules" "$p" > "$out/extra$name.json" 2>&1 ||
		echo "exit $?" >> "$out/extra$name.json"
done
echo "$(ls "$out" | wc -l) verdicts in $out"
