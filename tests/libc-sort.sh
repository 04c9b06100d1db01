#!/bin/sh
# The same verdict bytes whatever the C library's qsort does (engine/sort.c): every fixture's
# verdict with qsort and qsort_r replaced by a heapsort through LD_PRELOAD
# (tests/heapsort-qsort.c: not stable, another order of ties and of a comparator that is no
# order, as musl's smoothsort or a later glibc's fallback) must be the same bytes as without.
# With the library's qsort_r ordering the candidates (before engine/sort.c),
# net-ib-completion-status-words's two evidence items changed places.  Skipped where no
# compiler is found or the command cannot run preloaded (a sanitizer's runtime must come first).
set -eu
: "${PM_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${PM_BUILDDIR:=$PM_SRCDIR}"
cli=$PM_BUILDDIR/cli/postmortem
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
if ! ${CC:-cc} -O2 -shared -fPIC -o "$t/heapsort.so" "$PM_SRCDIR/tests/heapsort-qsort.c" \
	2>"$t/cc.log"; then
	echo "SKIP: cannot build the preloaded sort"; cat "$t/cc.log"; exit 77
fi
if ! LD_PRELOAD=$t/heapsort.so "$cli" --version >/dev/null 2>&1; then
	echo "SKIP: the command does not run with a library preloaded"; exit 77
fi
mkdir "$t/libc" "$t/heap"
LC_ALL=C "$cli" rules check --verdicts "$t/libc" "$PM_SRCDIR/rules" >"$t/libc.log" 2>&1 ||
	{ tail -5 "$t/libc.log"; exit 1; }
LC_ALL=C LD_PRELOAD=$t/heapsort.so "$cli" rules check --verdicts "$t/heap" "$PM_SRCDIR/rules" \
	>"$t/heap.log" 2>&1 || { tail -5 "$t/heap.log"; exit 1; }
if ! diff -r "$t/libc" "$t/heap" >"$t/diff"; then
	echo "FAIL: verdicts differ under another qsort:"; head -40 "$t/diff"; exit 1
fi
echo "ok: $(ls "$t/libc" | wc -l) files, the same bytes under a heapsort qsort"
