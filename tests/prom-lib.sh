# prom-lib.sh - sourced by the tests that run Debian's prometheus and prometheus-node-exporter
# (metrics-test.sh, prom-test.sh, e2e/t-85): started on free ports of 127.0.0.1 with a
# temporary storage folder, never as system services, and stopped with the test.
#
# prom_setup NAME checks the packages (exit 77 without them), makes the scratch folder $T
# (/tmp/NAME.XXXXXX) and arranges that it and every process whose pid is added to $PIDS
# go on exit.  Then: fail, ok, listen_port, query, count, node_exporter, prometheus_start.
# A test with its own scratch folder and clean-up sets T and PIDS itself instead, and may
# define fail again after sourcing this.

prom_setup() { # NAME
	for p in prometheus prometheus-node-exporter python3; do
		if ! command -v "$p" >/dev/null 2>&1; then
			echo "SKIP: $p is not installed (apt-get install prometheus prometheus-node-exporter python3)"
			exit 77
		fi
	done
	T=$(mktemp -d "/tmp/$1.XXXXXX")
	PIDS=""
	trap prom_cleanup EXIT INT TERM
}
prom_cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null || true; done
	for p in $PIDS; do wait "$p" 2>/dev/null || true; done
	rm -rf "$T"
}
fail() { echo "FAIL: $*"; exit 1; }
ok() { echo "ok   $*"; }

listen_port() { # LOG: the port a Go exporter or Prometheus logged it listens on
	for _ in $(seq 200); do
		p=$(grep -o 'msg="Listening on" address=127.0.0.1:[0-9]*' "$1" 2>/dev/null |
			head -1 | sed 's/.*://' || true)
		[ -n "$p" ] && { echo "$p"; return 0; }
		sleep 0.05
	done
	cat "$1"
	fail "no listening address in $1"
}
# query PORT PROMQL: the series an instant query returns, one line each: labels value
query() {
	python3 - "$1" "$2" <<'EOF'
import json, sys, urllib.parse, urllib.request
u = "http://127.0.0.1:%s/api/v1/query?query=%s" % (sys.argv[1], urllib.parse.quote(sys.argv[2]))
try:
    for r in json.load(urllib.request.urlopen(u, timeout=2))["data"]["result"]:
        m = dict(r["metric"])
        name = m.pop("__name__", "")
        m.pop("instance", None), m.pop("job", None)
        print("%s{%s} %s" % (name, ",".join('%s="%s"' % kv for kv in sorted(m.items())), r["value"][1]))
except Exception as e:
    print("error: %s" % e, file=sys.stderr)
EOF
}
count() { # PORT PROMQL: how many series an instant query returns (0 when it fails)
	query "$1" "$2" 2>/dev/null | wc -l
}

node_exporter() { # COLLECTOR_ARGS...: a node exporter with only these collectors; its port in $NE
	prometheus-node-exporter --web.listen-address=127.0.0.1:0 --collector.disable-defaults \
		"$@" >"$T/ne.log" 2>&1 &
	PIDS="$PIDS $!"
	NE=$(listen_port "$T/ne.log")
}
prometheus_start() { # reads its configuration from $T/prom.yml; its port in $PROM
	prometheus --config.file="$T/prom.yml" --storage.tsdb.path="$T/tsdb" \
		--web.listen-address=127.0.0.1:0 >"$T/prom.log" 2>&1 &
	PIDS="$PIDS $!"
	PROM=$(listen_port "$T/prom.log")
}
