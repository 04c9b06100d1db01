#!/bin/bash
# e2e-timeout: 240
# Issue 5 on a real archived job: scenario 2 (GPU 0 of n2 falls off the bus: an Xid 79 in
# n2's own kernel log, n1's ranks time out), then the responder verbs run against the store
# as the job's owner (pmuser), an operator (pmoper, group pmops) and root would:
#   show --timeline (text and --json: event time, observation time, the skew tolerance),
#   drill (intact: exit 0; a copy with a flipped byte or a lost bundle: exit 1 and why),
#   ledger propose/record/resolve/show/verify with the ledger and its head file named by the
#   configuration's ledger: and ledger_head: keys (verify catches an edited entry),
#   replay under a revised rule set (Xid 79 re-classed as a PCIe fault of the host: the
#   change and the rule listed; --apply keeps the old verdict as history and sacct's Comment
#   follows), report -o x.html rendered by headless Chromium when it is installed.
. "$(dirname "$0")/lib.sh"

OPER=pmoper
OTHER=pmother
e2e_pm_on
e2e_xid79_job
d=$(e2e_jobdir "$job")
V=$d/verdict.json
assert_v '.cause.class == "gpu_hardware" and .cause.subclass == "gpu_lost" and .origin.nodes == ["n2"]'
cp "$V" "$E2E_WORK/verdict.before.json"

# the CLI's configuration: the collector's, plus where the decision ledger and its head live
install -d -m 2775 -o root -g pmops "$E2E_WORK/ledger"
install -d -m 755 "$E2E_WORK/head"
CFG=$E2E_WORK/pm-cli.yaml
{
	cat "$E2E_PMCONF"
	printf 'ledger: %s/ledger/decisions.jsonl\nledger_head: %s/head/decisions.head\n' "$E2E_WORK" "$E2E_WORK"
} >"$CFG"
chmod 644 "$CFG"
pm() { e2e_pm_cfg "$@"; } # USER ARGS...
out() { e2e_pm_out; }

# ---- show --timeline: as the owner and as an operator; refused to another user
skew=$(sed -n 's/^ *skew_tolerance_ms: *\([0-9]*\).*/\1/p' "$PM_SRCDIR/rules/ruleset.yaml")
pm "$E2E_USER" show "$job" --timeline --json
assert_eq 0 "$PMRC" "show --timeline --json as the owner: $(out)"
T=$E2E_WORK/timeline.json
cp "$E2E_WORK/out" "$T"
assert_json "$T" '.[0].schema == "postmortem.timeline/1" and .[0].job.id == $j' "timeline schema and job" --arg j "$job"
assert_json "$T" '.[0].skew_tolerance_ms == ($s | tonumber) and .[0].skew_from_verdict_rules == true' \
	"the rules' skew tolerance ($skew ms), from the set that made the verdict" --arg s "$skew"
assert_json "$T" '(.[0].events | length) == $n' "every piece of evidence on the timeline" \
	--argjson n "$(jq '.evidence | length' "$V")"
assert_json "$T" '.[0].events | all(has("event_time") and has("observed_time") and has("observed_after_s") and has("within_skew_of"))' \
	"each event marked with event and observation time"
# dated events first, in time order
assert_json "$T" '[.[0].events[] | .event_time] | (map(select(. != null)) | . == sort) and
	(index(null) == null or (.[index(null):] | all(. == null)))' "time order, undated last"
# the Xid 79 line: dated by n2's kernel log, observed when the collector read the log, after it
assert_json "$T" '[.[0].events[] | select(.rule == "xid-79-fallen-off-bus")] | length >= 1 and
	all(.node == "n2" and (.event_time | type) == "string" and (.observed_time | type) == "string"
	    and .observed_after_s >= -0.001 and .observed_after_s < 600)' "the Xid 79 event: event time, then observed"
# an event marked as not ordered is close to one on another node, and only then
assert_json "$T" '.[0] as $t | [$t.events[] | select(.within_skew_of != null)] | all(. as $e |
	($t.events[] | select(.id == $e.within_skew_of)) as $p | $p.node != $e.node and
	(($e.event_time | sub("\\.[0-9]+Z$"; "Z") | fromdateiso8601) - ($p.event_time | sub("\\.[0-9]+Z$"; "Z") | fromdateiso8601)) <= ($t.skew_tolerance_ms / 1000 + 1))' \
	"within_skew_of names an event on another node within the tolerance"
pm "$OPER" show "$job" --timeline
assert_eq 0 "$PMRC" "show --timeline as an operator: $(out)"
assert_contains "$E2E_WORK/out" "skew tolerance $skew ms" "the text timeline names the skew tolerance"
grep -E 'seen [+-][0-9.]+s .* n2 +kernel_log .*xid-79-fallen-off-bus' "$E2E_WORK/out" >/dev/null ||
	e2e_fail "the Xid 79 line with its observation delay not in the text timeline: $(cat "$E2E_WORK/out")"
pm "$OTHER" show "$job" --timeline
assert_eq 1 "$PMRC" "show --timeline as another user"
assert_match "belongs to another user|the store's permissions refuse it to you" "$(cat "$E2E_WORK/err")" "the refusal"

# ---- drill: intact from the store alone; a damaged copy says what is wrong
pm "$OPER" drill "$job"
assert_eq 0 "$PMRC" "drill of the intact run: $(out)"
assert_contains "$E2E_WORK/out" "intact: retrievable and reconstructible from the store alone" "drill's conclusion"
assert_contains "$E2E_WORK/out" "gives the stored verdict byte for byte" "drill reconstructs the verdict"
pm "$OPER" drill "$job" --json
assert_json "$E2E_WORK/out" '.[0].intact == true and .[0].verdict.cause.subclass == "gpu_lost"' "drill --json"
copy=$E2E_WORK/damaged
rm -rf "$copy"
mkdir -p "$copy/flip/$E2E_CLUSTER_NAME" "$copy/lost/$E2E_CLUSTER_NAME/$job"
cp -a "$(dirname "$d")" "$copy/flip/$E2E_CLUSTER_NAME/"
cp -a "$d" "$copy/lost/$E2E_CLUSTER_NAME/$job/"
b=$copy/flip/$E2E_CLUSTER_NAME/$job/0/nodes/n2.tar.zst
off=$(($(stat -c %s "$b") / 2))
byte=$(od -An -tu1 -j "$off" -N1 "$b" | tr -d ' ')
printf "\\$(printf '%03o' $(((byte + 1) % 256)))" | dd of="$b" bs=1 seek="$off" conv=notrunc status=none
rm "$copy/lost/$E2E_CLUSTER_NAME/$job/0/nodes/n1.tar.zst"
rc=0
"$E2E_CLI" drill "$job" --store "$copy/flip" --config "$CFG" >"$E2E_WORK/drill.flip" 2>&1 || rc=$?
assert_eq 1 "$rc" "drill of a copy with a flipped byte: $(cat "$E2E_WORK/drill.flip")"
assert_contains "$E2E_WORK/drill.flip" "nodes/n2.tar.zst: sha256 differs from the manifest's" "the reason"
assert_contains "$E2E_WORK/drill.flip" "DAMAGED: this evidence would not survive an audit" "drill's conclusion"
rc=0
"$E2E_CLI" drill "$job" --store "$copy/lost" --config "$CFG" >"$E2E_WORK/drill.lost" 2>&1 || rc=$?
assert_eq 1 "$rc" "drill of a copy without n1's bundle: $(cat "$E2E_WORK/drill.lost")"
assert_contains "$E2E_WORK/drill.lost" "nodes/n1.tar.zst: No such file or directory" "the reason"

# ---- the decision ledger, where the configuration puts it
L=$E2E_WORK/ledger/decisions.jsonl
H=$E2E_WORK/head/decisions.head
pm "$OPER" ledger propose "$job" --action retry-exclude-node --note "exclude n2, rerun"
assert_eq 0 "$PMRC" "ledger propose as an operator: $(out)"
assert_file "$L" "the ledger at the configuration's ledger: path"
if grep -qs "$E2E_CLUSTER_NAME/$job/" "$E2E_STORE/ledger.jsonl"; then e2e_fail "an entry in the store's default ledger"; fi
assert_contains "$E2E_WORK/out" "head recorded in syslog only" "an operator cannot write the root-only head"
pm "$OPER" ledger record "$job" --action drain --note "drained n2 for dcgmi diag"
assert_eq 0 "$PMRC" "ledger record: $(out)"
pm root ledger verify --seal
assert_eq 0 "$PMRC" "ledger verify --seal as root: $(out)"
assert_file "$H" "the head file at the configuration's ledger_head: path"
assert_contains "$H" "seq=2 " "the sealed head"
pm "$OPER" ledger resolve "$job" --result confirmed --note "dcgmi diag -r 3 failed on GPU 0"
assert_eq 0 "$PMRC" "ledger resolve: $(out)"
pm "$OPER" ledger show "$job" --json
assert_eq 0 "$PMRC" "ledger show: $(out)"
sha=sha256:$(sha256sum "$V" | cut -d' ' -f1)
assert_json "$E2E_WORK/out" '.[0] | length == 3 and ([.[].kind] == ["proposed", "done", "resolved"]) and
	all(.job == $k and .verdict_digest == $sha and .actor.user == "pmoper") and
	.[0].verdict.cause == "gpu_hardware/gpu_lost" and .[2].result == "confirmed" and .[2].resolves == 2' \
	"the entries: who, what, the verdict at that moment" --arg k "$E2E_CLUSTER_NAME/$job/0" --arg sha "$sha"
pm "$OPER" ledger show --summary
assert_contains "$E2E_WORK/out" "repair confirmed       1 of 1 repaired job run(s)" "ledger show --summary"
pm "$OPER" ledger verify
assert_eq 0 "$PMRC" "ledger verify of the untouched ledger: $(out)"
assert_contains "$E2E_WORK/out" "3 entries, chain intact" "verify's report"
sed -i '2s/drained n2 for dcgmi diag/nothing was drained/' "$L"
pm "$OPER" ledger verify
assert_eq 1 "$PMRC" "ledger verify of an edited entry: $(out)"
assert_contains "$E2E_WORK/out" "TAMPERED" "verify's report"
grep -E '^  edited: (seq 2 )?\(line 2\)' "$E2E_WORK/out" >/dev/null || e2e_fail "the edited entry not named: $(out)"

# ---- replay under a revised rule set: Xid 79 re-classed as the host's PCIe fault
R=$E2E_WORK/rules-revised
rm -rf "$R"
cp -r "$PM_SRCDIR/rules" "$R"
rm -rf "$R/fixtures"
python3 - "$R/gpu.yaml" <<'EOF'
import sys
p = sys.argv[1]
s = open(p).read()
for rid in ("xid-79-fallen-off-bus", "gpu-fallen-off-bus"):
    i = s.index("- id: " + rid)
    old = "class: gpu_hardware\n    subclass: gpu_lost"
    j = s.index(old, i)
    assert j - i < 80, rid
    s = s[:j] + "class: host_hardware\n    subclass: aer" + s[j + len(old):]
open(p, "w").write(s)
EOF
chmod -R a+rX "$R"
pm "$OPER" replay --rules "$R" "$job"
assert_eq 0 "$PMRC" "replay as an operator: $(out)"
assert_contains "$E2E_WORK/out" "$E2E_CLUSTER_NAME/$job/0: attributed gpu_hardware/gpu_lost" "the run and its old conclusion"
assert_contains "$E2E_WORK/out" "-> attributed host_hardware/aer" "its new conclusion"
assert_contains "$E2E_WORK/out" "xid-79-fallen-off-bus" "the responsible rule named"
assert_contains "$E2E_WORK/out" "stored verdicts untouched" "no --apply, nothing written"
cmp -s "$V" "$E2E_WORK/verdict.before.json" || e2e_fail "replay without --apply changed the stored verdict"
pm "$OPER" replay --rules "$R" "$job" --json
assert_json "$E2E_WORK/out" '.[0].runs[0].changes as $c | $c.changed and
	([$c.fields[].field] | index("class") != null) and
	([$c.rules.changed[].rule] | index("xid-79-fallen-off-bus") != null) and $c.explained' \
	"replay --json: the class changed, the rule responsible"
C0=$(e2e_comment "$job")
pm root replay --rules "$R" "$job" --apply
assert_eq 0 "$PMRC" "replay --apply as root: $(out)"
# (the finalizer's own late merges may have kept history already: N is the next one)
h=$(sed -n 's|.*applied: earlier verdict kept as history/verdict-\([0-9]*\)\.json; comment set$|\1|p' "$E2E_WORK/out")
[ -n "$h" ] || e2e_fail "apply's report: $(out)"
cmp -s "$d/history/verdict-$h.json" "$E2E_WORK/verdict.before.json" || e2e_fail "history/verdict-$h.json is not the earlier verdict"
assert_json "$d/history/verdict-$h.replay" '[.[0].rules.changed[].rule] | index("xid-79-fallen-off-bus") != null' "the replay's reasons kept beside the history"
assert_json "$V" '.[0].cause.class == "host_hardware" and .[0].cause.subclass == "aer"' "the stored verdict is the replayed one"
C=$(e2e_comment "$job")
assert_match "^postmortem: attributed host_hardware/aer origin=n2(:[0-9,-]+)? conf=[a-z]+ act=[a-z-]+ ev=$E2E_CLUSTER_NAME/$job/0$" "$C" "sacct's Comment after --apply"
assert_ne "$C0" "$C" "the comment changed"
pm "$E2E_USER" show "$job"
assert_match "changed [0-9]+ time\\(s\\); last: " "$(cat "$E2E_WORK/out")" "show tells the owner the verdict changed"
e2e_log "comment before: $C0"
e2e_log "comment after:  $C"

# ---- report: one self-contained page, rendered by Chromium when it is installed
pm "$E2E_USER" report "$job" -o "$E2E_WORK/report.html"
assert_eq 0 "$PMRC" "report as the owner: $(out)"
assert_file "$E2E_WORK/report.html" "the report"
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
	e2e_skip_part "chromium not installed: the report was written, not rendered"
else
	flags=(--headless --no-sandbox --disable-gpu --disable-background-networking
		--disable-component-update --disable-sync --no-first-run)
	png=$E2E_RESULTS/t-40-report.png
	rm -f "$png"
	timeout 60 "$CHROMIUM" "${flags[@]}" --user-data-dir="$E2E_WORK/chromium.shot" --screenshot="$png" \
		--window-size=1400,1000 --hide-scrollbars "file://$E2E_WORK/report.html" >"$E2E_WORK/chromium.log" 2>&1 ||
		[ -s "$png" ] || e2e_fail "chromium --screenshot failed: $(tail -n 3 "$E2E_WORK/chromium.log")"
	timeout 60 "$CHROMIUM" "${flags[@]}" --user-data-dir="$E2E_WORK/chromium.dom" --dump-dom \
		"file://$E2E_WORK/report.html" >"$E2E_WORK/dom.html" 2>>"$E2E_WORK/chromium.log" ||
		grep -q '</html>' "$E2E_WORK/dom.html" || e2e_fail "chromium --dump-dom failed: $(tail -n 3 "$E2E_WORK/chromium.log")"
	[ -s "$png" ] || e2e_fail "no screenshot"
	assert_contains "$E2E_WORK/dom.html" 'id="verdict-class">host_hardware/aer<' "the rendered page's verdict"
	assert_contains "$E2E_WORK/dom.html" '<svg id="swimlanes"' "the swimlane SVG"
	for n in n1 n2; do assert_contains "$E2E_WORK/dom.html" "data-node=\"$n\"" "a lane for $n"; done
	assert_contains "$E2E_WORK/dom.html" 'class="lane lane-origin" data-node="n2"' "n2's lane marked as the origin"
	# the process name is the user's choice: the verdict's evidence shows it masked
	# (engine/TRUST.md, kernel log), the rest of the line as the kernel wrote it
	assert_contains "$E2E_WORK/dom.html" "79, pid=${pid2:-1911}, name=_______, GPU has fallen off the bus" "the Xid line on the page"
	if grep -q '://' "$E2E_WORK/dom.html"; then e2e_fail "an external URL in the page"; fi
	if grep -Eq '<(script|link|img|iframe)[ >]' "$E2E_WORK/dom.html"; then e2e_fail "an active or external element"; fi
	e2e_log "report rendered: $png ($(stat -c %s "$png") bytes)"
fi
