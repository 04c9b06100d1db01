#!/bin/sh
# prom-test.sh - the collector's Prometheus source and the webhook sink against real
# servers on 127.0.0.1 (issue 8):
#   Debian's prometheus and prometheus-node-exporter, started here on free ports with a
#   temporary storage folder (never as system services), and a DCGM exporter stand-in
#   (tests/http/server.py dcgm: a static metrics file served for scraping, changed between
#   scrapes) so that DCGM_FI_* series exist; a webhook receiver; servers that accept and
#   never answer; HTTPS servers with a private CA (verification on, ca_file honoured, a
#   certificate for another name refused).
# It runs postmortem-epilog for a one-node job, reads the bundle and the verdict back, and
# measures the epilog against a silent Prometheus and a silent webhook receiver.
# Skips (exit 77) when the packages are not installed.
set -eu

: "${PM_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${PM_BUILDDIR:=$PWD}"
EPILOG=$PM_BUILDDIR/epilog/postmortem-epilog
CLI=$PM_BUILDDIR/cli/postmortem
SERVER=$PM_SRCDIR/tests/http/server.py

. "$PM_SRCDIR/tests/prom-lib.sh"
prom_setup pmprom

# now in milliseconds
ms() { date +%s%3N; }
# the collector keeps its deadline; a loaded machine (make -j check) may add to the store's
# own work after it: SLACK ms are allowed, and the time taken is printed
SLACK=1000

# server MODE NAME [ARGS]: start tests/http/server.py; its port in $PORT, its pid in $PID
server() {
	mode=$1 name=$2
	shift 2
	python3 "$SERVER" "$mode" --port-file "$T/$name.port" "$@" &
	PID=$!
	PIDS="$PIDS $PID"
	for _ in $(seq 100); do [ -s "$T/$name.port" ] && break; sleep 0.05; done
	[ -s "$T/$name.port" ] || fail "server $mode did not start"
	PORT=$(cat "$T/$name.port")
}

# ---- the exporters and Prometheus ----

dcgm_metrics() { # XID_OF_GPU1 CRC_OF_GPU1
	cat <<EOF
# HELP DCGM_FI_DEV_XID_ERRORS Value of the last XID error encountered.
# TYPE DCGM_FI_DEV_XID_ERRORS gauge
DCGM_FI_DEV_XID_ERRORS{gpu="0",UUID="GPU-8a1f0c2e-0000",pci_bus_id="00000000:18:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="pmnode1",DCGM_FI_DRIVER_VERSION="535.161.08"} 0
DCGM_FI_DEV_XID_ERRORS{gpu="1",UUID="GPU-8a1f0c2e-0001",pci_bus_id="00000000:2A:00.0",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="pmnode1",DCGM_FI_DRIVER_VERSION="535.161.08"} $1
# HELP DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL Total number of NVLink flow-control CRC errors.
# TYPE DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL counter
DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL{gpu="0",UUID="GPU-8a1f0c2e-0000",pci_bus_id="00000000:18:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="pmnode1",DCGM_FI_DRIVER_VERSION="535.161.08"} 0
DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL{gpu="1",UUID="GPU-8a1f0c2e-0001",pci_bus_id="00000000:2A:00.0",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="pmnode1",DCGM_FI_DRIVER_VERSION="535.161.08"} $2
# HELP DCGM_FI_DEV_GPU_TEMP GPU temperature (in C).
# TYPE DCGM_FI_DEV_GPU_TEMP gauge
DCGM_FI_DEV_GPU_TEMP{gpu="0",UUID="GPU-8a1f0c2e-0000",pci_bus_id="00000000:18:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="pmnode1",DCGM_FI_DRIVER_VERSION="535.161.08"} 41
DCGM_FI_DEV_GPU_TEMP{gpu="1",UUID="GPU-8a1f0c2e-0001",pci_bus_id="00000000:2A:00.0",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="pmnode1",DCGM_FI_DRIVER_VERSION="535.161.08"} 44
EOF
}

dcgm_metrics 0 0 >"$T/dcgm.prom"
server dcgm dcgm --file "$T/dcgm.prom"
DCGM=$PORT
node_exporter --collector.meminfo --collector.netdev --collector.filesystem
# instance: the node exporter as pmnode1 (matched by node_label instance), the DCGM exporter
# by a pod address (matched by its Hostname label): both of the default node labels
cat >"$T/prom.yml" <<EOF
global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: node
    static_configs: [{targets: ['127.0.0.1:$NE']}]
    relabel_configs: [{target_label: instance, replacement: 'pmnode1:9100'}]
  - job_name: dcgm
    static_configs: [{targets: ['127.0.0.1:$DCGM']}]
    relabel_configs: [{target_label: instance, replacement: '10.9.8.7:9400'}]
EOF
prometheus_start
for _ in $(seq 150); do
	[ "$(count "$PROM" 'DCGM_FI_DEV_XID_ERRORS')" = 2 ] &&
		[ "$(count "$PROM" 'node_memory_MemAvailable_bytes{instance="pmnode1:9100"}')" = 1 ] && break
	sleep 0.2
done
[ "$(count "$PROM" 'DCGM_FI_DEV_XID_ERRORS')" = 2 ] || fail "Prometheus has no DCGM samples"
ok "prometheus $(prometheus --version 2>&1 | head -1 | cut -d' ' -f3) on :$PROM scrapes node exporter :$NE and DCGM :$DCGM"
sleep 2
# the job: GPU 1 falls off the bus (Xid 79) and its NVLink CRC counter climbs
dcgm_metrics 79 1200 >"$T/dcgm.prom.new" && mv "$T/dcgm.prom.new" "$T/dcgm.prom"
sleep 2
dcgm_metrics 79 5300 >"$T/dcgm.prom.new" && mv "$T/dcgm.prom.new" "$T/dcgm.prom"
for _ in $(seq 50); do
	[ "$(count "$PROM" 'DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL > 5000')" = 1 ] && break
	sleep 0.2
done

# ---- the epilog with the Prometheus source and a webhook ----

mkdir -p "$T/got" "$T/store"
server webhook hook --dir "$T/got"
HOOK=$PORT
printf 'hook-T0KEN-%s\n' "$$" >"$T/hook.token"
chmod 600 "$T/hook.token"
printf 'prom-T0KEN-%s\n' "$$" >"$T/prom.token"
chmod 600 "$T/prom.token"
cat >"$T/pm.yaml" <<EOF
store: $T/store
spool: $T/spool
rules: $PM_SRCDIR/rules
deadline: 30s
sacct: /bin/false
sacctmgr: /bin/false
sources:
  kernel_log: {enabled: false}
  gpu_state: {enabled: false}
  gpu_csv: {enabled: false}
  slurmd_log: {enabled: false}
prometheus:
  url: http://127.0.0.1:$PROM
  timeout: 5s
  lookback: 5m
  step: 1s
  bearer_token_file: $T/prom.token
webhooks:
  - {url: 'http://127.0.0.1:$HOOK/hooks/T0/B0/secret', bearer_token_file: $T/hook.token, timeout: 3s}
EOF
t0=$(ms)
SLURM_NODELIST=pmnode1 SLURM_CLUSTER_NAME=lab "$EPILOG" --config "$T/pm.yaml" --job 4301 \
	--node pmnode1 --strict 2>"$T/epilog.log" || { cat "$T/epilog.log"; fail "the epilog failed"; }
t1=$(ms)
J=$T/store/lab/4301/0
[ -f "$J/nodes/pmnode1.tar.zst" ] || fail "no bundle"
[ -f "$J/verdict.json" ] || { cat "$T/epilog.log"; fail "no verdict"; }
mkdir "$T/b" && (cd "$T/b" && zstd -dcq "$J/nodes/pmnode1.tar.zst" | tar xf -)
S=$T/b/sources/prometheus/prometheus.jsonl
[ -s "$S" ] || fail "no prometheus.jsonl in the bundle"
python3 - "$T/b/manifest.json" "$S" <<'EOF' || fail "bundle contents"
import json, sys
m = json.load(open(sys.argv[1]))
cov = {c["source"]: c for c in m["coverage"]}
assert cov["prometheus"]["status"] == "ok", cov["prometheus"]
lines = [json.loads(l) for l in open(sys.argv[2])]
assert lines[0]["schema"] == "postmortem.prometheus/1" and lines[0]["node"] == "pmnode1"
series = {(l["metric"], l["labels"].get("gpu", "")): l for l in lines if "values" in l}
xid = series[("DCGM_FI_DEV_XID_ERRORS", "1")]["values"]
assert xid[0][1] == 0 and xid[-1][1] == 79, xid
assert ("node_memory_MemAvailable_bytes", "") in series, sorted(series)
assert all("instance" in l["labels"] for l in lines if "values" in l)
print("ok   bundle: prometheus ok (%s); %d series, the Xid of GPU 1 went %s -> %s at %s"
      % (cov["prometheus"]["reason"][:40], len(series), xid[0][1], xid[-1][1], xid[1][0]))
EOF
python3 - "$J/verdict.json" <<'EOF' || fail "verdict"
import json, sys
v = json.load(open(sys.argv[1]))
ev = {e["rule"]: e for e in v["evidence"]}
x = ev["prom-dcgm-xid-hardware"]
assert x["node"] == "pmnode1" and x["gpu"] == 1 and x["source"] == "node_metrics", x
assert x["line"] == "gpu 1 (0000:2a:00.0): gpu.prom_xid_hw = 79", x["line"]
assert "prom-dcgm-nvlink-crc-increase" in ev
assert v["cause"]["class"] == "gpu_hardware" and v["origin"]["nodes"] == ["pmnode1"], v["cause"]
print("ok   verdict: %s %s/%s origin %s (%s)" % (v["status"], v["cause"]["class"],
      v["cause"]["subclass"], v["origin"]["gpus"], x["line"]))
EOF
[ -f "$T/got/1.json" ] || fail "the webhook got nothing"
cmp -s "$T/got/1.json" "$J/verdict.json" || fail "the webhook body is not verdict.json"
grep -q "^Authorization: Bearer hook-T0KEN-$$" "$T/got/1.headers" || fail "no bearer token sent"
grep -q "^POST /hooks/T0/B0/secret" "$T/got/1.headers" || fail "wrong webhook path"
if grep -rqF "T0KEN-$$" "$T/store" "$T/b"; then fail "a token is in the store"; fi
if grep -rqF "B0/secret" "$T/store"; then fail "the webhook path is in the store"; fi
[ ! -e "$J/webhook.pending" ] || fail "webhook.pending left behind"
ok "epilog with Prometheus and a webhook: $((t1 - t0)) ms; webhook got verdict.json with its token; no token in the store"

# ---- silent servers: the epilog keeps its deadline ----

server hang hang
HANG=$PORT
server hang hang2
HANG2=$PORT
HANG2_PID=$PID
# a silent Prometheus (its own timeout, 2 s) and a silent webhook receiver, deadline 6 s
sed -e "s|url: http://127.0.0.1:$PROM|url: http://127.0.0.1:$HANG|" \
	-e "s|127.0.0.1:$HOOK/hooks|127.0.0.1:$HANG2/hooks|" \
	-e 's|deadline: 30s|deadline: 6s|' -e 's|timeout: 5s|timeout: 2s|' "$T/pm.yaml" >"$T/pm2.yaml"
t0=$(ms)
SLURM_NODELIST=pmnode1 SLURM_CLUSTER_NAME=lab "$EPILOG" --config "$T/pm2.yaml" --job 4302 \
	--node pmnode1 2>"$T/epilog2.log"
t1=$(ms)
J2=$T/store/lab/4302/0
[ $((t1 - t0)) -le $((6000 + SLACK)) ] || fail "the epilog took $((t1 - t0)) ms with a 6 s deadline"
mkdir "$T/b2" && (cd "$T/b2" && zstd -dcq "$J2/nodes/pmnode1.tar.zst" | tar xf -)
python3 - "$T/b2/manifest.json" <<'EOF' || fail "coverage of a silent Prometheus"
import json, sys
cov = {c["source"]: c for c in json.load(open(sys.argv[1]))["coverage"]}
p = cov["prometheus"]
assert p["status"] == "timed_out" and not p["cut"] and 1.7 < p["elapsed_s"] < 2.5, p
print("ok   silent Prometheus, timeout 2 s: coverage timed_out after %.2f s (%s)"
      % (p["elapsed_s"], p["reason"]))
EOF
[ -f "$J2/verdict.json" ] || { cat "$T/epilog2.log"; fail "no verdict for job 4302"; }
[ -f "$J2/webhook.pending" ] || { cat "$T/epilog2.log"; fail "no webhook.pending"; }
grep -q "	http://127.0.0.1:$HANG2	" "$J2/webhook.pending" || fail "webhook.pending: $(cat "$J2/webhook.pending")"
if grep -qF "B0/secret" "$J2/webhook.pending"; then fail "the webhook path is in webhook.pending"; fi
ok "silent Prometheus and webhook receiver: epilog done in $((t1 - t0)) ms (deadline 6 s); delivery left in webhook.pending"

# a silent Prometheus with a long timeout: the collector's deadline (4 s) cuts it
sed -e 's|deadline: 6s|deadline: 4s|' -e 's|timeout: 2s|timeout: 60s|' "$T/pm2.yaml" >"$T/pm3.yaml"
t0=$(ms)
SLURM_NODELIST=pmnode1 SLURM_CLUSTER_NAME=lab "$EPILOG" --config "$T/pm3.yaml" --job 4303 \
	--node pmnode1 2>"$T/epilog3.log"
t1=$(ms)
[ $((t1 - t0)) -le $((4000 + SLACK)) ] || fail "the epilog took $((t1 - t0)) ms with a 4 s deadline"
mkdir "$T/b3" && (cd "$T/b3" && zstd -dcq "$T/store/lab/4303/0/nodes/pmnode1.tar.zst" | tar xf -)
python3 - "$T/b3/manifest.json" <<'EOF' || fail "coverage of a Prometheus cut by the deadline"
import json, sys
m = json.load(open(sys.argv[1]))
p = {c["source"]: c for c in m["coverage"]}["prometheus"]
assert p["status"] == "timed_out" and p["cut"] and m["collected"]["deadline_hit"], p
print("ok   silent Prometheus, timeout 60 s: cut after %.2f s (%s)" % (p["elapsed_s"], p["reason"]))
EOF
ok "deadline 4 s, Prometheus timeout 60 s: epilog done in $((t1 - t0)) ms"

# the receiver comes back on the same port: the timer delivers
kill "$HANG2_PID"
wait "$HANG2_PID" 2>/dev/null || true
mkdir "$T/got2"
python3 "$SERVER" webhook --port "$HANG2" --port-file "$T/back.port" --dir "$T/got2" &
PIDS="$PIDS $!"
for _ in $(seq 100); do [ -s "$T/back.port" ] && break; sleep 0.05; done
"$CLI" finalize 4302 --pending --config "$T/pm2.yaml" --cluster lab >"$T/fin.log" 2>&1 ||
	{ cat "$T/fin.log"; fail "finalize --pending"; }
[ ! -e "$J2/webhook.pending" ] || { cat "$T/fin.log"; fail "still pending after finalize --pending"; }
cmp -s "$T/got2/1.json" "$J2/verdict.json" || fail "the late delivery is not verdict.json"
ok "postmortem finalize --pending delivered it: $(grep webhook "$T/fin.log" | head -1)"
# ---- TLS: verification is on, a site's CA file is honoured, a wrong name is refused ----

# a private CA, a certificate for 127.0.0.1 and one for another name, both signed by it
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=postmortem test CA" \
	-keyout "$T/ca.key" -out "$T/ca.pem" >/dev/null 2>&1 || fail "openssl: the CA"
for n in good:IP:127.0.0.1 wrong:DNS:wrong.example; do
	name=${n%%:*} san=${n#*:}
	openssl req -newkey rsa:2048 -nodes -subj "/CN=$name" -keyout "$T/$name.key" \
		-out "$T/$name.csr" >/dev/null 2>&1 || fail "openssl: $name key"
	printf 'subjectAltName=%s\n' "$san" >"$T/$name.ext"
	openssl x509 -req -in "$T/$name.csr" -CA "$T/ca.pem" -CAkey "$T/ca.key" \
		-CAcreateserial -days 2 -extfile "$T/$name.ext" -out "$T/$name.pem" >/dev/null 2>&1 ||
		fail "openssl: $name certificate"
done
mkdir "$T/gotg" "$T/gotw"
server webhook tlsgood --dir "$T/gotg" --tls-cert "$T/good.pem" --tls-key "$T/good.key"
TLSG=$PORT
server webhook tlswrong --dir "$T/gotw" --tls-cert "$T/wrong.pem" --tls-key "$T/wrong.key"
TLSW=$PORT
# tls_conf N URL [CA_FILE]: a configuration with one webhook and no Prometheus
tls_conf() {
	{
		sed -e '/^prometheus:/,$d' "$T/pm.yaml"
		printf 'webhooks:\n  - url: %s\n    timeout: 3s\n    retries: 0\n' "$2"
		[ -z "${3:-}" ] || printf '    ca_file: %s\n' "$3"
	} >"$T/tls$1.yaml"
}
# tls_job N JOB: run the epilog with tls N's configuration
tls_job() {
	SLURM_NODELIST=pmnode1 SLURM_CLUSTER_NAME=lab "$EPILOG" --config "$T/tls$1.yaml" \
		--job "$2" --node pmnode1 2>"$T/tls$1.log" || { cat "$T/tls$1.log"; fail "epilog $2"; }
	[ -f "$T/store/lab/$2/0/verdict.json" ] || { cat "$T/tls$1.log"; fail "no verdict for $2"; }
}
# 1. the server's CA is not in the system's trust store: refused, owed, nothing received
tls_conf 1 "https://127.0.0.1:$TLSG/hook"
tls_job 1 4311
P=$T/store/lab/4311/0/webhook.pending
[ -f "$P" ] || { cat "$T/tls1.log"; fail "an unverifiable server took the verdict"; }
grep -qi 'certificate\|SSL\|TLS' "$P" || fail "webhook.pending does not say why: $(cat "$P")"
[ -z "$(ls "$T/gotg")" ] || fail "the server received a body over an unverified connection"
ok "https with an unknown CA: refused ($(tail -1 "$P" | cut -f6 | cut -c1-70))"
# 2. with the site's CA file: delivered over TLS
tls_conf 2 "https://127.0.0.1:$TLSG/hook" "$T/ca.pem"
tls_job 2 4312
[ ! -e "$T/store/lab/4312/0/webhook.pending" ] ||
	fail "not delivered with ca_file: $(cat "$T/store/lab/4312/0/webhook.pending")"
cmp -s "$T/gotg/1.json" "$T/store/lab/4312/0/verdict.json" || fail "the TLS delivery is not verdict.json"
ok "https with ca_file: delivered, the body is verdict.json"
# 3. a certificate from the same CA for another name: refused (the host name is checked)
tls_conf 3 "https://127.0.0.1:$TLSW/hook" "$T/ca.pem"
tls_job 3 4313
P=$T/store/lab/4313/0/webhook.pending
[ -f "$P" ] || fail "a certificate for another name was accepted"
[ -z "$(ls "$T/gotw")" ] || fail "the wrong-name server received a body"
ok "https, trusted CA, wrong name: refused ($(tail -1 "$P" | cut -f6 | cut -c1-70))"
# 4. the Prometheus source over TLS: an unknown CA is a failed source, with the reason
server prom tlsprom --dir "$T" --file "$PM_SRCDIR/tests/http/matrix.json" \
	--tls-cert "$T/good.pem" --tls-key "$T/good.key"
sed -e '/^webhooks:/,$d' -e "s|url: http://127.0.0.1:$PROM|url: https://127.0.0.1:$PORT|" \
	"$T/pm.yaml" >"$T/tls4.yaml"
tls_job 4 4314
mkdir "$T/b4" && (cd "$T/b4" && zstd -dcq "$T/store/lab/4314/0/nodes/pmnode1.tar.zst" | tar xf -)
python3 - "$T/b4/manifest.json" <<'EOF' || fail "coverage of a Prometheus with an unknown CA"
import json, sys
p = {c["source"]: c for c in json.load(open(sys.argv[1]))["coverage"]}["prometheus"]
assert p["status"] not in ("ok", "partial"), p
assert any(w in p["reason"] for w in ("certificate", "SSL", "TLS")), p
print("ok   https Prometheus, unknown CA: coverage %s (%s)" % (p["status"], p["reason"][:70]))
EOF
echo "PASS prom-test.sh"
