#!/bin/sh
# build.sh [BUILDDIR] - build the libFuzzer targets with clang, ASan and UBSan.
#
# The engine is configured and built on its own in BUILDDIR (default ./fuzz-build) with
# -fsanitize=fuzzer-no-link, so that the normal build is never touched; each target in
# tests/fuzz/fuzz_*.c is then linked with -fsanitize=fuzzer into BUILDDIR/fuzz_<name>.
# Run them with run.sh.  FUZZ_CC picks the compiler (clang); FUZZ_CFLAGS adds flags, e.g.
# -fsanitize-recover=nonnull-attribute to keep fuzzing past a known class of report.
# shellcheck disable=SC2086,SC2046 # flag lists are split on purpose
set -eu
srcdir=$(cd "$(dirname "$0")/../.." && pwd)
b=${1:-$PWD/fuzz-build}
CC=${FUZZ_CC:-clang}
san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
cflags="-g -O1 $san ${FUZZ_CFLAGS:-}"

mkdir -p "$b"
b=$(cd "$b" && pwd)
cd "$b"
if [ ! -f config.status ]; then
	[ -x "$srcdir/configure" ] || (cd "$srcdir" && autoreconf -fi)
	"$srcdir/configure" -q CC="$CC" CFLAGS="$cflags -fsanitize=fuzzer-no-link" \
		--disable-shared --enable-silent-rules
fi
make -s -j"${JOBS:-2}" libpostmortem.la

# the engine's own dependencies come with libpostmortem.la, through libtool
pkgs="jansson libzstd libarchive"
set -- $(pkg-config --cflags $pkgs)
for t in "$srcdir"/tests/fuzz/fuzz_*.c; do
	name=$(basename "$t" .c)
	[ "$name" = fuzz_common ] && continue
	echo "  FUZZ     $name"
	./libtool --quiet --tag=CC --mode=link $CC $cflags -fsanitize=fuzzer -D_GNU_SOURCE \
		-include config.h -I. -I"$srcdir/engine" -I"$srcdir/tests/fuzz" \
		-DPM_SRCRULES="\"$srcdir/rules\"" "$@" -o "$name" "$t" \
		"$srcdir/tests/fuzz/fuzz_common.c" libpostmortem.la $(pkg-config --libs $pkgs)
done
