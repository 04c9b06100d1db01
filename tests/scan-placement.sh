#!/bin/sh
# A match is found wherever it lies in memory.  Vectorscan 5.4.9's AVX-512 implementation
# misses a match of some patterns when its end falls at certain addresses modulo 64
# (engine/hsrun.c), so the same evidence gave different verdicts from one process to the
# next.  One job output of 64 lines of slurmstepd's "couldn't chdir" message, each one byte
# longer than the last, puts a match's end at every address modulo 64, whatever malloc gives:
# all 64 must be counted (kept as evidence or as repeats).  It fails on that library and CPU
# without hsrun.c (60 of 64); tests/check_hsrun.c tries the scanning paths one by one.
set -eu
: "${PM_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${PM_BUILDDIR:=$PM_SRCDIR}"
cli=$PM_BUILDDIR/cli/postmortem
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
i=0 pad=''
while [ $i -lt 64 ]; do
	printf "slurmstepd-node%02d: error: couldn't chdir to \`/lustre/home/alice/runs/%s/ckpt': No such file or directory: going to /tmp instead\n" \
		$((i % 4)) "$pad" >>"$t/slurm-77.out"
	pad="${pad}q"
	i=$((i + 1))
done
POSTMORTEM_CACHE_DIR= "$cli" diagnose --json --rules "$PM_SRCDIR/rules" "$t" >"$t/v.json"
n=$(jq '[.evidence[] | select(.rule == "slurm-chdir-failed") | 1 + .repeats] | add // 0' "$t/v.json")
[ "$n" -eq 64 ] || { echo "FAIL: $n of the 64 chdir lines were matched"; exit 1; }
echo "ok: 64 of 64 placements matched"
