#!/bin/bash
# metrics-test.sh - `postmortem metrics` read by the real node_exporter's textfile collector and
# scraped by the real Prometheus (Debian's prometheus and prometheus-node-exporter, started
# here on free ports with a temporary storage folder, never as system services), then read
# back with PromQL (issue 17).  The store is built here: verdicts the CLI diagnoses from the
# rule fixtures, with manifests and the files the collector and the finalizer leave (deadline
# hits, missing nodes, pending comments and webhooks, a bundle the store refused), and one
# ledger entry.  promtool lints the file when it is installed.
# Skips (exit 77) when the packages are not installed.
set -eu

: "${PM_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${PM_BUILDDIR:=$PWD}"
CLI=$PM_BUILDDIR/cli/postmortem
FIX=$PM_SRCDIR/rules/fixtures

. "$PM_SRCDIR/tests/prom-lib.sh"
prom_setup pmmetrics

# ---- a store ----

S=$T/store
UID_=$(id -u)
# run CLUSTER JOB FIXTURE [MANIFEST_JSON_EXTRA]: a merged job run whose verdict is the
# fixture's, diagnosed by the CLI from its files packed into node bundles as the collector
# packs them (a node's own records in a hand-gathered folder justify no repair: TRUST.md)
PM=$CLI
. "$PM_SRCDIR/tests/bundle-lib.sh"
run() {
	d=$S/$1/$2/0
	p=$T/packed/$1-$2
	mkdir -p "$d" "$p"
	POSTMORTEM_RULES=$PM_SRCDIR/rules pack_bundles "$FIX/$3/evidence" "$p" "$2" >/dev/null ||
		fail "pack $3"
	local in=("$p/nodes")
	if [ -f "$FIX/$3/evidence/sacct.txt" ]; then in+=("$FIX/$3/evidence/sacct.txt"); fi
	POSTMORTEM_RULES=$PM_SRCDIR/rules "$CLI" diagnose --json "${in[@]}" >"$d/verdict.json" ||
		[ -s "$d/verdict.json" ] || fail "diagnose $3"
	printf '{"schema": "postmortem.manifest/1", "job": {"id": "%s", "cluster": "%s", "restart": 0, "uid": %s}, "provisional": false%s}\n' \
		"$2" "$1" "$UID_" "${4:-}" >"$d/manifest.json"
}
run lab 101 gpu-xid48-dbe-nvsmi ', "deadline_hits": ["gpu032"]'
run lab 102 gpu-xid64-remap-failure \
	', "nodes": {"missing": [{"node": "gpu072", "reason": "node never reported"}]}'
run lab 103 gpu-xid13-illegal-address
run other 7 host-mce-ume ', "provisional": true'
: >"$S/lab/101/0/comment.pending"
: >"$S/lab/102/0/webhook.pending"
mkdir -p "$S/lab/104/0/undelivered" "$S/lab/104/0/nodes"
echo "No space left on device" >"$S/lab/104/0/undelivered/gpu009"
"$CLI" ledger propose 102 --cluster lab --action drain --store "$S" >"$T/ledger.log" 2>&1 ||
	{ cat "$T/ledger.log"; fail "ledger propose"; }
# the node history (store/history.h): gpu032 blamed by two jobs within the repeat policy's
# window, gpu071 by one
now=$(date +%s)
hist() { # NODE TIME RUN: one record file
	mkdir -p "$S/.history/$1"
	printf '{"schema":"postmortem.history/1","run":"%s","node":"%s","class":"gpu_hardware","subclass":"ecc","confidence":"supported","time":%s,"expires":%s,"uid":%s}\n' \
		"$3" "$1" "$2" $(($2 + 14 * 86400)) "$UID_" >"$S/.history/$1/$2.$(echo "$3" | tr / .).json"
}
hist gpu032 $((now - 7200)) lab/101/0
hist gpu032 $((now - 3600)) lab/105/0
hist gpu071 $((now - 3600)) lab/102/0
ok "store: 5 job runs in 2 clusters, one ledger entry, three node history records"

# ---- the file ----

mkdir "$T/tf"
"$CLI" metrics --store "$S" --textfile "$T/tf/postmortem.prom" || fail "postmortem metrics"
[ "$(ls -A "$T/tf")" = postmortem.prom ] || fail "left in the folder: $(ls -A "$T/tf")"
[ "$(stat -c %a "$T/tf/postmortem.prom")" = 644 ] || fail "mode $(stat -c %a "$T/tf/postmortem.prom")"
"$CLI" metrics --store "$S" >"$T/stdout.prom" || fail "postmortem metrics to stdout"
grep -v '_seconds ' "$T/stdout.prom" >"$T/a" && grep -v '_seconds ' "$T/tf/postmortem.prom" >"$T/b"
cmp -s "$T/a" "$T/b" || fail "stdout and --textfile differ"
if grep -q '[{,]job\(_id\)\?=' "$T/tf/postmortem.prom"; then fail "a job id as a label"; fi
grep -q '^postmortem_verdicts{cluster="lab",status="attributed",class="gpu_hardware"} 2$' \
	"$T/tf/postmortem.prom" || { cat "$T/tf/postmortem.prom"; fail "no verdict series"; }
if command -v promtool >/dev/null 2>&1; then
	promtool check metrics <"$T/tf/postmortem.prom" >"$T/lint" 2>&1 ||
		{ cat "$T/lint"; fail "promtool check metrics"; }
	ok "promtool check metrics: clean"
fi
ok "postmortem metrics: $(grep -c '^postmortem_' "$T/tf/postmortem.prom") series, $(grep -c '^# TYPE' "$T/tf/postmortem.prom") families"

# ---- the node exporter and Prometheus ----

node_exporter --collector.textfile --collector.textfile.directory="$T/tf"
cat >"$T/prom.yml" <<EOF
global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: node
    static_configs: [{targets: ['127.0.0.1:$NE']}]
EOF
prometheus_start
for _ in $(seq 150); do
	[ -n "$(query "$PROM" 'postmortem_store_up == 1')" ] && break
	sleep 0.2
done
[ -n "$(query "$PROM" 'postmortem_store_up == 1')" ] || { cat "$T/ne.log"; fail "Prometheus has no postmortem_store_up"; }
[ "$(query "$PROM" 'node_textfile_scrape_error')" = 'node_textfile_scrape_error{} 0' ] ||
	fail "the textfile collector: $(query "$PROM" 'node_textfile_scrape_error')"
ok "prometheus $(prometheus --version 2>&1 | head -1 | cut -d' ' -f3) on :$PROM scrapes node exporter :$NE (textfile collector)"

# expect PROMQL WANT: the query's answer, sorted, is WANT (lines)
expect() {
	got=$(query "$PROM" "$1" | sort)
	[ "$got" = "$2" ] || fail "$1: got
$got
wanted
$2"
	echo "$got" | while IFS= read -r l; do printf '     %s => %s\n' "$1" "$l"; done
}
expect 'sum by (cluster, class) (postmortem_verdicts{status="attributed"})' \
	'{class="application",cluster="lab"} 1
{class="gpu_hardware",cluster="lab"} 2
{class="host_hardware",cluster="other"} 1'
expect 'postmortem_node_repair_justified' \
	'postmortem_node_repair_justified{class="gpu_hardware",cluster="lab",node="gpu032"} 1
postmortem_node_repair_justified{class="gpu_hardware",cluster="lab",node="gpu071"} 1
postmortem_node_repair_justified{class="host_hardware",cluster="other",node="gpu171"} 1'
expect 'postmortem_nodes_repair_justified' \
	'postmortem_nodes_repair_justified{cluster="lab"} 2
postmortem_nodes_repair_justified{cluster="other"} 1'
expect '{__name__=~"postmortem_(collector_deadline_hits|nodes_never_reported|comments_pending|webhooks_pending|store_failures|job_runs_unmerged)"} > 0' \
	'postmortem_collector_deadline_hits{cluster="lab"} 1
postmortem_comments_pending{cluster="lab"} 1
postmortem_job_runs_unmerged{cluster="lab"} 1
postmortem_nodes_never_reported{cluster="lab"} 1
postmortem_store_failures{cluster="lab"} 1
postmortem_webhooks_pending{cluster="lab"} 1'
expect 'postmortem_trusted_origins' \
	'postmortem_trusted_origins{class="gpu_hardware",cluster="lab",node="gpu032"} 2
postmortem_trusted_origins{class="gpu_hardware",cluster="lab",node="gpu071"} 1'
expect 'postmortem_node_repeats_justify_repair' \
	'postmortem_node_repeats_justify_repair{class="gpu_hardware",cluster="lab",node="gpu032"} 1'
expect 'postmortem_verdicts_provisional' \
	'postmortem_verdicts_provisional{cluster="lab"} 0
postmortem_verdicts_provisional{cluster="other"} 1'
expect 'postmortem_ledger_entries_total' \
	'postmortem_ledger_entries_total{kind="proposed",stage="repair"} 1'
expect 'postmortem_store_read_errors' 'postmortem_store_read_errors{} 0'

# a second write while the exporter is read: the new file replaces the old whole
"$CLI" ledger record 102 --cluster lab --action drain --store "$S" >>"$T/ledger.log" 2>&1 ||
	fail "ledger record"
# and resolved refuted: the job leaves gpu071's count of trusted origins
"$CLI" ledger resolve 102 --cluster lab --result refuted --store "$S" >>"$T/ledger.log" 2>&1 ||
	fail "ledger resolve"
"$CLI" metrics --store "$S" --textfile "$T/tf/postmortem.prom" || fail "postmortem metrics (2)"
for _ in $(seq 50); do
	[ "$(query "$PROM" 'sum(postmortem_ledger_entries_total)')" = '{} 3' ] && break
	sleep 0.2
done
expect 'sum(postmortem_ledger_entries_total)' '{} 3'
expect 'postmortem_trusted_origins' \
	'postmortem_trusted_origins{class="gpu_hardware",cluster="lab",node="gpu032"} 2'
[ "$(ls -A "$T/tf")" = postmortem.prom ] || fail "left in the folder: $(ls -A "$T/tf")"

# the finalize timer writes the file named by metrics_textfile: after its walk
cp -a "$S" "$T/store2"
printf 'store: %s\nmetrics_textfile: %s\nsacct: /bin/false\nsacctmgr: /bin/false\ncomment_recheck: off\n' \
	"$T/store2" "$T/tf/postmortem.prom" >"$T/pm.yaml"
before=$(stat -c %Y "$T/tf/postmortem.prom")
sleep 1
"$CLI" finalize --config "$T/pm.yaml" >"$T/fin.log" 2>&1 || true
[ "$(stat -c %Y "$T/tf/postmortem.prom")" -gt "$before" ] || { cat "$T/fin.log"; fail "finalize did not write the metrics"; }
grep -q '^postmortem_store_up 1$' "$T/tf/postmortem.prom" || fail "finalize's metrics: store not up"
[ "$(ls -A "$T/tf")" = postmortem.prom ] || fail "left in the folder: $(ls -A "$T/tf")"
ok "postmortem finalize wrote metrics_textfile after its walk"

# an unreadable store: the file still says so
"$CLI" metrics --store "$T/nowhere" --textfile "$T/tf/postmortem.prom" 2>"$T/err" &&
	fail "metrics of a missing store exited 0"
grep -q '^postmortem_store_up 0$' "$T/tf/postmortem.prom" || fail "no postmortem_store_up 0"
ok "a store that cannot be read: exit 1, postmortem_store_up 0 ($(head -1 "$T/err"))"
echo "PASS metrics-test.sh"
