#!/bin/sh
# check_schema.sh - every fixture's REAL verdict (the built CLI run on its evidence), a
# collector-style bundle's verdict, and every fixture's expected.json (as a partial) are
# validated against schema/verdict.schema.json by tests/check_schema.py.
set -eu
: "${PM_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${PM_BUILDDIR:=$PM_SRCDIR}"
PYTHON=${PYTHON:-python3}
command -v "$PYTHON" >/dev/null 2>&1 || { echo "no python3: skipped"; exit 77; }
cli=$PM_BUILDDIR/cli/postmortem
schema=$PM_SRCDIR/schema/verdict.schema.json
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pm-schema.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
export LC_ALL=C

# Every case's verdict from one `rules check` (one process and one rule set load: under ASan a
# process a case took fourteen minutes); whether a case passes is tests/fixtures.sh's
# question, whether its verdict is in the schema this test's.
mkdir "$tmp/v"
"$cli" rules check --verdicts "$tmp/v" "$PM_SRCDIR/rules" >"$tmp/check.out" 2>&1 || :
set --
n=0
for d in "$PM_SRCDIR"/rules/fixtures/*/; do
	case=$(basename "$d")
	[ -d "$d/evidence" ] || continue
	if [ ! -s "$tmp/v/$case.json" ]; then
		echo "$case: no verdict from rules check:"
		grep -e "^ERROR $case:" -e "^ERROR rule" "$tmp/check.out" || tail -5 "$tmp/check.out"
		exit 1
	fi
	set -- "$@" "full:$tmp/v/$case.json"
	[ -f "$d/expected.json" ] && set -- "$@" "partial:$d/expected.json"
	n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "no fixtures under $PM_SRCDIR/rules/fixtures"; exit 1; }
# ... and they are the bytes `diagnose --json` prints, the inputs beside them the bytes of
# `diagnose --inputs` (one case of several files, one of one; tests/wrappers.py reads both)
for case in amb-hostoom-vs-cuda-assert $(basename "$d"); do
	"$cli" diagnose --json --rules "$PM_SRCDIR/rules" "$PM_SRCDIR/rules/fixtures/$case/evidence" \
		>"$tmp/diag.json" 2>&1 || { echo "$case: diagnose failed: $(cat "$tmp/diag.json")"; exit 1; }
	cmp -s "$tmp/diag.json" "$tmp/v/$case.json" ||
		{ echo "$case: rules check --verdicts wrote other bytes than diagnose --json"; exit 1; }
	"$cli" diagnose --inputs --rules "$PM_SRCDIR/rules" "$PM_SRCDIR/rules/fixtures/$case/evidence" \
		>"$tmp/diag.json" 2>&1 || { echo "$case: diagnose --inputs failed: $(cat "$tmp/diag.json")"; exit 1; }
	cmp -s "$tmp/diag.json" "$tmp/v/$case.inputs.json" ||
		{ echo "$case: rules check --verdicts wrote other inputs than diagnose --inputs"; exit 1; }
done

# An unpacked bundle as the collector writes it: coverage entries without a file, a
# monotonic kernel log with the boot time, nvidia-smi cut by its timeout.
b=$tmp/bundle/gpu017
mkdir -p "$b/sources/kernel_log"
printf '[ 1000.000000] NVRM: Xid (PCI:0000:3b:00): 79, pid=4242, name=python, GPU has fallen off the bus.\n' \
	>"$b/sources/kernel_log/kernel.log"
"$PYTHON" - "$b" <<'EOF'
import hashlib, json, os, sys
b = sys.argv[1]
rel = "sources/kernel_log/kernel.log"
data = open(os.path.join(b, rel), "rb").read()
m = {"schema": "postmortem.bundle/1", "cluster": "lab", "job": "4242", "restart": 0,
     "node": "gpu017", "boot_time": "2026-11-29T22:01:13Z",
     "collected": {"start": "2026-11-30T03:12:40.551Z", "end": "2026-11-30T03:12:41.020Z",
                   "deadline_hit": True},
     "files": [{"path": rel, "source": "kernel_log", "format": "dmesg", "node": "gpu017",
                "rank": None, "observed_time": "2026-11-30T03:12:40.551Z", "bytes": len(data),
                "sha256": hashlib.sha256(data).hexdigest(), "status": "ok", "reason": ""}],
     "coverage": [{"source": "gpu_state", "status": "timed_out",
                   "reason": "nvidia-smi did not answer in 8 s"},
                  {"source": "job_output", "status": "missing", "reason": "not the batch node"}]}
json.dump(m, open(os.path.join(b, "manifest.json"), "w"))
EOF
if "$cli" diagnose --json --rules "$PM_SRCDIR/rules" "$b" >"$tmp/bundle.json" 2>"$tmp/bundle.err"; then
	set -- "$@" "full:$tmp/bundle.json"
else
	echo "the unpacked bundle was not diagnosed: $(cat "$tmp/bundle.err")"
	exit 1
fi
for f in "$PM_SRCDIR"/tests/data/bundles/*.tar.zst; do
	[ -f "$f" ] || continue
	out=$tmp/$(basename "$f").json
	"$cli" diagnose --json --rules "$PM_SRCDIR/rules" "$f" >"$out" 2>/dev/null && set -- "$@" "full:$out"
done

exec "$PYTHON" "$PM_SRCDIR/tests/check_schema.py" "$schema" --taxonomy-c "$PM_SRCDIR/engine/names.c" \
	--names-c "$PM_SRCDIR/engine/names.c" "$@"
