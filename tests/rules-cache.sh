#!/bin/sh
# The on-disk cache of compiled rule databases (engine/hscache.c): a run from the cache gives
# the same bytes as a compiling run; a used entry is touched; a corrupt, linked or foreign
# entry is never read (the run compiles and replaces it); a folder others may write is not
# used; entries unused for 30 days go when a new one is written; an empty
# POSTMORTEM_CACHE_DIR turns the cache off.
set -eu
: "${PM_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${PM_BUILDDIR:=$PM_SRCDIR}"
cli=$PM_BUILDDIR/cli/postmortem
ev=$PM_SRCDIR/rules/fixtures/app-cuda-device-assert/evidence
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
run() { POSTMORTEM_CACHE_DIR=$1 "$cli" diagnose --json --rules "$PM_SRCDIR/rules" "$ev" | grep -v '"observed_time"'; }
entries() { find "$1" -maxdepth 1 -name 'rules-*.hsdb' | sort; }

mkdir -m 700 "$t/c"
run "" >"$t/nocache.json"
run "$t/c" >"$t/first.json"
n=$(entries "$t/c" | wc -l)
[ "$n" -ge 1 ] || fail "the first run stored no database"
cmp -s "$t/nocache.json" "$t/first.json" || fail "a run that fills the cache differs from one without"
for f in $(entries "$t/c"); do touch -d '2 days ago' "$f"; done
run "$t/c" >"$t/second.json"
cmp -s "$t/first.json" "$t/second.json" || fail "a run from the cache differs"
[ "$(entries "$t/c" | wc -l)" -eq "$n" ] || fail "a run from the cache stored new entries"
for f in $(entries "$t/c"); do
	[ "$(find "$f" -mmin -60 | wc -l)" -eq 1 ] || fail "$f: not touched when used (not read from the cache?)"
done

# a corrupt entry (one byte changed in its database) is not read: same output, entry replaced
for f in $(entries "$t/c"); do
	cp "$f" "$f.orig"
	printf 'X' | dd of="$f" bs=1 seek=200 conv=notrunc 2>/dev/null
done
run "$t/c" >"$t/corrupt.json"
cmp -s "$t/first.json" "$t/corrupt.json" || fail "a corrupt entry changed the verdict"
for f in $(entries "$t/c"); do
	cmp -s "$f" "$f.orig" || fail "$f: the corrupt entry was not replaced"
	rm -f "$f.orig"
done

# a link in place of an entry is not followed; it is replaced by a file
f=$(entries "$t/c" | head -n 1)
mv "$f" "$t/elsewhere"
ln -s "$t/elsewhere" "$f"
run "$t/c" >"$t/link.json"
cmp -s "$t/first.json" "$t/link.json" || fail "a linked entry changed the verdict"
[ -f "$f" ] && [ ! -L "$f" ] || fail "$f: the link was not replaced by an entry"

# entries unused for 30 days go when a new entry is written
touch -d '40 days ago' "$t/c/rules-0000000000000000000000000000000000000000000000000000000000000000.hsdb"
rm -f "$f"
run "$t/c" >/dev/null
[ ! -e "$t/c/rules-0000000000000000000000000000000000000000000000000000000000000000.hsdb" ] ||
	fail "an entry unused for 40 days was kept"
[ -f "$f" ] || fail "the removed entry was not written again"

# a folder that others may write is not used
mkdir -m 777 "$t/open"
chmod 777 "$t/open"
run "$t/open" >"$t/open.json"
cmp -s "$t/first.json" "$t/open.json" || fail "a run with an unusable cache folder differs"
[ -z "$(entries "$t/open")" ] || fail "a world-writable cache folder was used"
echo "ok: $n databases cached, reused, checked"
