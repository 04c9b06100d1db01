#!/bin/bash
# tests/report-test.sh - `postmortem report` rendered by headless Chromium (Debian's chromium).
#
# A fixture's evidence (default gpu-xid79-node2-watchdog-node1) is packed into node bundles in
# a temporary store, merged by `postmortem finalize`, and rendered with `postmortem report`.
# Chromium dumps the rendered DOM and takes a screenshot; the test asserts that the page shows
# the verdict's class, a swimlane for every node of the job, no external URL and no script,
# and that markup in an evidence line arrives as text.  The screenshot is kept as
# $PM_REPORT_RESULTS/report.png (default tests/report-results/ in the build tree: a test run
# leaves the source tree as it was; the tracked tests/e2e/results/report.png is refreshed by
# PM_REPORT_RESULTS=tests/e2e/results).
#
# usage: tests/report-test.sh [FIXTURE]        exit 0 pass, 1 fail, 77 skipped (no chromium)
# Environment: PM_SRCDIR, PM_BUILDDIR (make check sets both), PM_REPORT_RESULTS.
set -euo pipefail

SRC=${PM_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${PM_BUILDDIR:-$SRC}
PM=$BUILD/cli/postmortem
FIXTURE=${1:-gpu-xid79-node2-watchdog-node1}
RESULTS=${PM_REPORT_RESULTS:-$BUILD/tests/report-results}
EV=$SRC/rules/fixtures/$FIXTURE/evidence

# shellcheck source=tests/bundle-lib.sh
. "$SRC/tests/bundle-lib.sh"
say() { printf 'report-test: %s\n' "$*"; }
fail() { say "FAIL: $*"; exit 1; }
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
	say "SKIP: chromium is not installed (Debian: apt-get install chromium)"
	exit 77
fi
for t in jq zstd tar sha256sum; do
	command -v $t >/dev/null || { say "SKIP: $t is not installed"; exit 77; }
done
[ -x "$PM" ] || fail "$PM missing: build first"
[ -d "$EV" ] || fail "no fixture $EV"

T=$(mktemp -d "${TMPDIR:-/tmp}/pmreport.XXXXXX")
trap '[ -n "${PM_REPORT_KEEP:-}" ] && echo "kept $T" || rm -rf "$T"' EXIT
export LC_ALL=C POSTMORTEM_RULES=$SRC/rules

# ---- the job run, as the collector and the finalizer would leave it
job=$(awk -F'|' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "JobID") c = i }
	NR == 2 && c { print $c }' "$EV/sacct.txt" 2>/dev/null || true)
job=${job:-4242}
run=$T/store/lab/$job/0
mkdir -p "$T/bin"
pack_bundles "$EV" "$run" "$job" >/dev/null
cp "$EV/sacct.txt" "$T/sacct.txt" 2>/dev/null || : >"$T/sacct.txt"
cat >"$T/bin/sacct" <<EOF
#!/bin/sh
case " \$* " in *' -o Comment '*|*' -o AdminComment '*) echo ;; *) cat "$T/sacct.txt" ;; esac
EOF
printf '#!/bin/sh\necho " Modified job"\n' >"$T/bin/sacctmgr"
chmod +x "$T/bin/sacct" "$T/bin/sacctmgr"
cat >"$T/pm.yaml" <<EOF
store: $T/store
rules: $SRC/rules
sacct: $T/bin/sacct
sacctmgr: $T/bin/sacctmgr
EOF
export POSTMORTEM_CONFIG=$T/pm.yaml
"$PM" finalize "$job" --force >"$T/finalize.out" || fail "finalize: $(cat "$T/finalize.out")"
[ -f "$run/verdict.json" ] || fail "no verdict after finalize"
"$PM" report "$job" -o "$T/report.html" >/dev/null || fail "report failed"

# ---- rendered by Chromium
CHROMIUM_FLAGS=(--headless --no-sandbox --disable-gpu --disable-background-networking
	--disable-component-update --disable-sync --no-first-run)
# headless chromium now and then writes its screenshot and then does not exit: the file counts
render() { # render HTML OUT.dom [OUT.png]
	if [ $# -ge 3 ]; then
		rm -f "$3"
		timeout 60 "$CHROMIUM" "${CHROMIUM_FLAGS[@]}" --user-data-dir="$T/chromium.shot" \
			--screenshot="$3" --window-size=1400,1000 --hide-scrollbars "file://$1" \
			>>"$T/chromium.log" 2>&1 || [ -s "$3" ] ||
			fail "chromium --screenshot failed: $(tail -3 "$T/chromium.log")"
	fi
	rm -rf "$T/chromium.dom"
	timeout 60 "$CHROMIUM" "${CHROMIUM_FLAGS[@]}" --user-data-dir="$T/chromium.dom" \
		--dump-dom "file://$1" 2>>"$T/chromium.log" >"$2" ||
		grep -q '</html>' "$2" ||
		fail "chromium --dump-dom failed: $(tail -3 "$T/chromium.log")"
}
mkdir -p "$RESULTS"
render "$T/report.html" "$T/dom.html" "$RESULTS/report.png"
dom=$T/dom.html
[ -s "$dom" ] || fail "chromium dumped no DOM"
[ -s "$RESULTS/report.png" ] || fail "no screenshot"

class=$(jq -r '.cause | "\(.class)/\(.subclass)"' "$run/verdict.json")
grep -q "id=\"verdict-class\">$class<" "$dom" || fail "the verdict class $class is not on the page"
grep -q '<svg id="swimlanes"' "$dom" || fail "no swimlane SVG"
for n in $(jq -r "$HOSTS"'.job.nodes | hosts[]' "$run/verdict.json"); do
	grep -q "data-node=\"$n\"" "$dom" || fail "no lane for node $n"
done
for o in $(jq -r '.origin.nodes[]?' "$run/verdict.json"); do
	grep -q "class=\"lane lane-origin\" data-node=\"$o\"" "$dom" || fail "origin $o not marked"
done
lanes=$(grep -o '<g class="lane[^"]*" data-node="[^"]*"' "$dom" | wc -l)
marks=$(grep -o '<g class="ev role-' "$dom" | wc -l)
! grep -q '://' "$dom" || fail "an external URL in the page: $(grep -o '[a-z]*://[^ "]*' "$dom" | head -3)"
! grep -Eq '<(script|link|img|iframe|object|embed)[ >]' "$dom" || fail "an external or active element"
! grep -Eq ' (src|href)=' "$dom" || fail "a src= or href= attribute"

# markup in an evidence line arrives as text, never as elements
jq '.evidence[0].line = "<script>document.title=\"pwned\"</script><img src=x onerror=alert(1)> & co"' \
	"$run/verdict.json" >"$T/evil.json"
"$PM" report --verdict "$T/evil.json" -o "$T/evil.html" >/dev/null || fail "report --verdict failed"
render "$T/evil.html" "$T/evil.dom"
! grep -q '<script' "$T/evil.dom" || fail "a script element from an evidence line"
! grep -q '<img' "$T/evil.dom" || fail "an img element from an evidence line"
grep -q '&lt;script&gt;document.title' "$T/evil.dom" || fail "the line is not shown as text"
! grep -q '<title>pwned' "$T/evil.dom" || fail "the script ran"

say "ok: job $job ($FIXTURE): $class, $lanes lanes, $marks marks; screenshot $RESULTS/report.png ($(stat -c %s "$RESULTS/report.png") bytes)"
