#!/bin/bash
# e2e-timeout: 300
# Issue 17, the operators' half, on a real archived job: scenario 2 (GPU 0 of n2 falls off the
# bus: an Xid 79 in n2's own kernel log), then
#   the ledger at its default place (STORE/ledger.jsonl, the store's top folder root's 0755):
#   the operator pmoper (group pmops) is refused and told what to do, doctor warns with the
#   fix, root runs `postmortem ledger init`, doctor is content, pmoper's propose is taken,
#   `ledger show --summary` and `ledger verify` read it; an ordinary user's propose is refused;
#   the metrics: the finalize timer's walk (`postmortem finalize`, root) writes
#   metrics_textfile:, the real node_exporter reads it with its textfile collector, the real
#   Prometheus scrapes it, and PromQL reads back the job's verdict, the ledger entry and the
#   collector's health; doctor says the file is fresh.
# The ledger files it made at the store's top are removed at the end (other tests name their
# own ledger).
. "$(dirname "$0")/lib.sh"

OPER=pmoper
for p in prometheus prometheus-node-exporter python3; do
	command -v "$p" >/dev/null 2>&1 || e2e_skip "$p is not installed"
done
e2e_pm_on
PIDS=""
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null || true; done
	for p in $PIDS; do wait "$p" 2>/dev/null || true; done
	rm -f "$E2E_STORE/ledger.jsonl" "$E2E_STORE/ledger.head"
	e2e_pm_config
	e2e_syslog_stop
}
trap cleanup EXIT
rm -f "$E2E_STORE/ledger.jsonl" "$E2E_STORE/ledger.head"

e2e_xid79_job
V=$(e2e_jobdir "$job")/verdict.json
assert_v '.cause.class == "gpu_hardware" and .origin.nodes == ["n2"]'

# the CLI's configuration: the collector's, and where the finalize timer writes the metrics
install -d -m 755 "$E2E_WORK/tf"
CFG=$E2E_WORK/pm-cli.yaml
{
	cat "$E2E_PMCONF"
	printf 'metrics_textfile: %s/tf/postmortem.prom\n' "$E2E_WORK"
} >"$CFG"
chmod 644 "$CFG"
pm() { e2e_pm_cfg "$@"; } # USER ARGS...
out() { e2e_pm_out; }
doctor() { "$E2E_CLI" doctor --offline --config "$CFG" >"$E2E_WORK/doctor" 2>&1 || true; }

# ---- the ledger: refused at first, and said why; ledger init; then the operator appends
assert_eq "root 755" "$(stat -c '%U %a' "$E2E_STORE")" "the store's top folder"
pm "$OPER" ledger propose "$job" --action retry-exclude-node
assert_eq 1 "$PMRC" "propose as $OPER before ledger init: $(out)"
assert_contains "$E2E_WORK/err" "$E2E_STORE/ledger.jsonl: Permission denied" "the refusal"
assert_contains "$E2E_WORK/err" "postmortem ledger init" "the refusal says what root runs"
doctor
grep -E '^warn +ledger +.*cannot create it' "$E2E_WORK/doctor" >/dev/null ||
	e2e_fail "doctor does not warn about the ledger: $(grep -A1 ledger "$E2E_WORK/doctor")"
"$E2E_CLI" ledger init --config "$CFG" >"$E2E_WORK/init" 2>&1 || e2e_fail "ledger init: $(cat "$E2E_WORK/init")"
e2e_log "$(cat "$E2E_WORK/init")"
assert_eq "root pmops 660" "$(stat -c '%U %G %a' "$E2E_STORE/ledger.jsonl")" "the ledger after init"
doctor
grep -E '^ok +ledger +.*group pmops, mode 0660' "$E2E_WORK/doctor" >/dev/null ||
	e2e_fail "doctor after ledger init: $(grep -A1 ledger "$E2E_WORK/doctor")"
pm "$OPER" ledger propose "$job" --action retry-exclude-node --note "Xid 79 on n2"
assert_eq 0 "$PMRC" "propose as $OPER after ledger init: $(out)"
e2e_log "$(head -n 1 "$E2E_WORK/out")"
pm "$E2E_USER" ledger propose "$job" --action retry
assert_ne 0 "$PMRC" "an ordinary user's propose"
pm "$OPER" ledger show --summary
assert_eq 0 "$PMRC" "ledger show --summary: $(out)"
assert_contains "$E2E_WORK/out" "decisions on 1 job run(s), 1 ledger entries" "the summary"
sed 's/^/#   /' "$E2E_WORK/out"
"$E2E_CLI" ledger verify --config "$CFG" >"$E2E_WORK/verify" 2>&1 || e2e_fail "ledger verify: $(cat "$E2E_WORK/verify")"

# ---- the metrics: the finalize timer writes them; node_exporter and Prometheus read them
doctor
grep -E '^warn +metrics-timer +.*has never been written' "$E2E_WORK/doctor" >/dev/null ||
	e2e_fail "doctor before the timer ran: $(grep -A1 metrics "$E2E_WORK/doctor")"
timeout 240 "$E2E_CLI" finalize --config "$CFG" >"$E2E_WORK/finalize" 2>&1 ||
	e2e_log "finalize exited $?: $(tail -n 3 "$E2E_WORK/finalize")"
P=$E2E_WORK/tf/postmortem.prom
assert_file "$P" "the finalize timer's metrics"
assert_eq "postmortem.prom" "$(ls -A "$E2E_WORK/tf")" "nothing else in the textfile folder"
doctor
grep -E '^ok +metrics-timer +.*written [0-9]+ s ago' "$E2E_WORK/doctor" >/dev/null ||
	e2e_fail "doctor after the timer ran: $(grep -A1 metrics "$E2E_WORK/doctor")"
if grep -E '^postmortem_[a-z_]+\{[^}]*job' "$P"; then e2e_fail "a job label"; fi

# the node exporter and Prometheus as metrics-test.sh starts them, in this test's folder
T=$E2E_WORK
. "$PM_SRCDIR/tests/prom-lib.sh"
fail() { e2e_fail "$*"; }
node_exporter --collector.textfile --collector.textfile.directory="$E2E_WORK/tf"
printf 'global: {scrape_interval: 1s, evaluation_interval: 1s}\nscrape_configs:\n  - job_name: node\n    static_configs: [{targets: ["127.0.0.1:%s"]}]\n' \
	"$NE" >"$E2E_WORK/prom.yml"
prometheus_start
up() { [ -n "$(query "$PROM" 'postmortem_store_up == 1')" ]; }
e2e_wait_for 30 up || e2e_fail "Prometheus has no postmortem_store_up 1: $(tail -n 3 "$E2E_WORK/ne.log")"
assert_eq 'node_textfile_scrape_error{} 0' "$(query "$PROM" node_textfile_scrape_error)" "the textfile collector"
q='postmortem_verdicts{cluster="pmlab",status="attributed",class="gpu_hardware"}'
got=$(query "$PROM" "$q")
assert_match '^postmortem_verdicts\{class="gpu_hardware",cluster="pmlab",status="attributed"\} [1-9][0-9]*$' "$got" "$q"
want=$(find "$E2E_STORE/pmlab" -mindepth 3 -maxdepth 3 -name verdict.json -exec \
	jq -r 'select(.status == "attributed" and .cause.class == "gpu_hardware") | 1' {} + | wc -l)
assert_eq "$want" "${got##* }" "$q against the store's verdicts"
# the node history: the finalize merge recorded n2 as the trusted origin of the Xid 79
got=$(query "$PROM" 'postmortem_trusted_origins{cluster="pmlab",node="n2",class="gpu_hardware"}')
assert_match '^postmortem_trusted_origins\{class="gpu_hardware",cluster="pmlab",node="n2"\} [1-9][0-9]*$' \
	"$got" "n2's trusted origins in the node history"
assert_eq "" "$(query "$PROM" 'postmortem_trusted_origins{node="n1"}')" "n1, a bystander, is no origin"
assert_eq 'postmortem_ledger_entries_total{kind="proposed",stage="containment"} 1' \
	"$(query "$PROM" postmortem_ledger_entries_total)" "the ledger entry, scraped"
for q in "$q" postmortem_trusted_origins postmortem_node_repeats_justify_repair \
	postmortem_ledger_entries_total postmortem_job_runs postmortem_verdicts_provisional \
	'{__name__=~"postmortem_(collector_deadline_hits|merge_deadline_hits|nodes_never_reported|store_failures|comments_pending|webhooks_pending)"}' \
	postmortem_store_up; do
	query "$PROM" "$q" | while IFS= read -r l; do printf '#   %s\n' "$l"; done
done
e2e_log "metrics: the finalize timer wrote $(grep -c '^postmortem_' "$P") series; Prometheus $(prometheus --version 2>&1 | head -1 | cut -d' ' -f3) scraped them through node_exporter's textfile collector"
