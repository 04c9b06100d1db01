#!/bin/bash
# tests/v1-store-test.sh - stored postmortem.verdict/1 verdicts stay readable.
#
# tests/data/v1-store holds one job run whose verdict.json is version 1 (README there).  On a
# copy of it: `show` (text, --json, --timeline), `report`, `drill` and `replay` under the
# bundled rules must all work, say what the version-1 verdict says (cause, origin, bystanders,
# the node whose kernel log is missing), and replay must find the cause unchanged.
#
# usage: tests/v1-store-test.sh        exit 0 pass, 1 fail, 77 skipped (no jq)
# Environment: PM_SRCDIR, PM_BUILDDIR (make check sets both).
set -euo pipefail

SRC=${PM_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${PM_BUILDDIR:-$SRC}
PM=$BUILD/cli/postmortem

say() { printf 'v1-store-test: %s\n' "$*"; }
fail() { say "FAIL: $*"; exit 1; }
command -v jq >/dev/null || { say "SKIP: jq is not installed"; exit 77; }
[ -x "$PM" ] || fail "$PM missing: build first"

T=$(mktemp -d "${TMPDIR:-/tmp}/pmv1.XXXXXX")
trap 'rm -rf "$T"' EXIT
export LC_ALL=C POSTMORTEM_RULES=$SRC/rules
cp -r "$SRC/tests/data/v1-store" "$T/store"
chmod -R u+w "$T/store"
run=$T/store/bench/700001/0
# the job's owner is whoever runs the test (the verbs refuse other users' jobs)
jq -c --argjson u "$(id -u)" '.job.uid = $u' "$run/manifest.json" >"$T/m" && mv "$T/m" "$run/manifest.json"
printf 'store: %s\nrules: %s/rules\n' "$T/store" "$SRC" >"$T/config.yaml"
W=(--config "$T/config.yaml" --cluster bench)

[ "$(jq -r .schema "$run/verdict.json")" = postmortem.verdict/1 ] || fail "the kept verdict is not version 1"

"$PM" show 700001 "${W[@]}" >"$T/show" || fail "show: exit $?"
grep -q 'attributed gpu_hardware/gpu_lost' "$T/show" || fail "show: no cause: $(cat "$T/show")"
grep -q 'origin:     nodes gpu10001' "$T/show" || fail "show: no origin"
grep -Eq 'bystanders: nodes (gpu10000,gpu10002|gpu\[10000,10002\])  ranks 0-5' "$T/show" ||
	fail "show: bystanders: $(grep bystanders "$T/show")"
grep -q 'gpu10003 .*kernel_log .*missing' "$T/show" || fail "show: the missing kernel log"
grep -q '23 input(s), 1 with problems' "$T/show" || fail "show: coverage counts"

"$PM" show 700001 --json "${W[@]}" >"$T/show.json" || fail "show --json: exit $?"
cmp -s "$T/show.json" "$run/verdict.json" ||
	jq -e '.schema == "postmortem.verdict/1"' "$T/show.json" >/dev/null ||
	fail "show --json does not give the stored verdict"

"$PM" show 700001 --timeline "${W[@]}" >"$T/timeline" || fail "show --timeline: exit $?"
grep -q 'gpu10001' "$T/timeline" || fail "show --timeline: no origin node"

"$PM" report 700001 -o "$T/report.html" "${W[@]}" >/dev/null || fail "report: exit $?"
grep -q 'gpu_lost' "$T/report.html" || fail "report: no cause"
grep -q 'gpu10003' "$T/report.html" || fail "report: the missing kernel log is not shown"
# version 1's job.nodes, a list, reads as version 2's host list: a lane for each node
grep -q '<dd>gpu\[10000-10003\]</dd>' "$T/report.html" || fail "report: the job's nodes"
for n in gpu10000 gpu10001 gpu10002 gpu10003; do
	grep -q "class=\"lane[^\"]*\" data-node=\"$n\"" "$T/report.html" || fail "report: no lane for $n"
done
"$PM" show 700001 --timeline --json "${W[@]}" >"$T/timeline.json" ||
	fail "show --timeline --json: exit $?"
jq -e '.job.nodes == "gpu[10000-10003]"' "$T/timeline.json" >/dev/null ||
	fail "timeline: job.nodes $(jq -c .job.nodes "$T/timeline.json")"

"$PM" drill 700001 "${W[@]}" >"$T/drill" || fail "drill: exit $?: $(cat "$T/drill")"

"$PM" replay --rules "$SRC/rules" 700001 --json "${W[@]}" >"$T/replay" ||
	fail "replay: exit $?: $(cat "$T/replay")"
jq -e ".runs[0].changes.changed == false" "$T/replay" >/dev/null ||
	fail "replay: the cause changed: $(cat "$T/replay")"
say "pass"
