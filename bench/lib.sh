# bench/lib.sh - sourced by the benchmark scripts after `set -eu`: where things are.
#   src    the source tree             build  $PM_BUILDDIR, else the source tree
#   runs   $RUNS, else 3               data   $PM_BENCH_DATA, else /tmp/pm-bench
#   pm     the built postmortem        need FILE: exit 2 unless FILE is built
src=$(cd "$(dirname "$0")/.." && pwd)
build=${PM_BUILDDIR:-$src}
runs=${RUNS:-3}
data=${PM_BENCH_DATA:-/tmp/pm-bench}
pm=$build/cli/postmortem
need() { [ -x "$1" ] || { echo "no $1 (PM_BUILDDIR?)" >&2; exit 2; }; }
