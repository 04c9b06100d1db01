#!/bin/bash
# doctor-test.sh - `postmortem doctor` on the local cluster (contrib/cluster), with each
# misconfiguration introduced on purpose in a COPY of the cluster's configuration (slurm.conf,
# plugstack, the collector's configuration, the plugin and collector files, a store and a
# spool under a temporary folder).  The running cluster's own files are only read.
#
# Usage: tests/doctor-test.sh            (root; PM_BUILDDIR names the build tree)
# The checks that talk to slurmctld, slurmdbd and slurmd (sacctmgr, scontrol, sdiag, the
# slurmd start time) run when the cluster is up (contrib/cluster/start); the rest run from
# the files alone (--offline).  Exit 0 all passed, 1 a case failed, 77 skipped.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
build=${PM_BUILDDIR:-$src}
cli=$build/cli/postmortem
C=${PM_CLUSTER_DIR:-/var/lib/postmortem-cluster}
export LC_ALL=C

[ "$(id -u)" = 0 ] || { echo "doctor-test: not root: skipped"; exit 77; }
[ -x "$cli" ] || { echo "doctor-test: no $cli (build first)"; exit 1; }
# users and groups of the local cluster (contrib/cluster/install), else stand-ins
OPS=pmops
getent group "$OPS" >/dev/null || OPS=$(id -gn 0)
USR=pmuser
id "$USR" >/dev/null 2>&1 || USR=nobody
so=""
for c in "$build/spank/.libs/postmortem.so" "${PM_PLUGIN_SO:-}"; do
	[ -n "$c" ] && [ -f "$c" ] && { so=$c; break; }
done
[ -n "$so" ] || { echo "doctor-test: no postmortem.so built (libslurm-dev missing?): skipped"; exit 77; }
collector=$build/epilog/postmortem-epilog

live=no
if [ -f "$C/slurm.conf" ] && SLURM_CONF=$C/slurm.conf timeout 10 scontrol ping >/dev/null 2>&1 &&
	SLURM_CONF=$C/slurm.conf timeout 10 sacctmgr -n show cluster >/dev/null 2>&1; then
	live=yes
fi
slurmd_up=no
for f in /proc/[0-9]*/comm; do
	[ "$(cat "$f" 2>/dev/null)" = slurmd ] && { slurmd_up=yes; break; }
done

tmp=$(mktemp -d /tmp/pm-doctor.XXXXXX)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT INT TERM
W=$tmp/w
pass=0
fail=0
skipped=0

# A good deployment in $W: every file dated 2000 so that the running slurmds started later.
fresh() {
	rm -rf "$W"
	mkdir -p "$W/plugstack.conf.d" "$W/store" "$W/spool" "$W/bin"
	chmod 755 "$W" "$W/store" "$W/bin"
	chmod 700 "$W/spool"
	cp "$so" "$W/bin/postmortem.so"
	cp "$collector" "$W/bin/postmortem-epilog"
	chmod 755 "$W/bin/postmortem.so" "$W/bin/postmortem-epilog"
	if [ -f "$C/slurm.conf" ]; then
		sed -e "s|^PlugStackConfig=.*|PlugStackConfig=$W/plugstack.conf|" "$C/slurm.conf" >"$W/slurm.conf"
	else # no cluster here: the settings that matter, as contrib/cluster/start writes them
		printf '%s\n' ClusterName=pmlab SlurmctldHost=localhost AuthType=auth/munge \
			AccountingStorageType=accounting_storage/slurmdbd PrologEpilogTimeout=120 \
			MinJobAge=300 "PlugStackConfig=$W/plugstack.conf" \
			"NodeName=n[1-3] CPUs=4 State=UNKNOWN" \
			"PartitionName=debug Nodes=ALL Default=YES" >"$W/slurm.conf"
	fi
	grep -q '^PlugStackConfig=' "$W/slurm.conf" || echo "PlugStackConfig=$W/plugstack.conf" >>"$W/slurm.conf"
	printf '# test copy\ninclude %s/plugstack.conf.d/*.conf\n' "$W" >"$W/plugstack.conf"
	printf 'optional %s store=%s spool=%s timeout=30s collector=%s config=%s\n' \
		"$W/bin/postmortem.so" "$W/store" "$W/spool" "$W/bin/postmortem-epilog" \
		"$W/postmortem.yaml" >"$W/plugstack.conf.d/postmortem.conf"
	cat >"$W/postmortem.yaml" <<-EOF
		store: $W/store
		spool: $W/spool
		deadline: 20s
		operators_group: $OPS
	EOF
	chmod 644 "$W"/*.conf "$W/plugstack.conf.d"/*.conf "$W/postmortem.yaml"
	find "$W" -exec touch -h -d '2000-01-01 00:00:00' {} +
}

# run NAME EXPECTED_RC [doctor options...]: the output is in $W/out
run() {
	local name=$1 want=$2 rc
	shift 2
	"$cli" doctor --slurm-conf "$W/slurm.conf" "$@" >"$W/out" 2>&1
	rc=$?
	if [ "$rc" != "$want" ]; then
		echo "FAIL $name: exit $rc, expected $want"
		sed 's/^/    /' "$W/out"
		fail=$((fail + 1))
		return 1
	fi
	return 0
}

# expect NAME PATTERN...: every extended regex appears in the output
expect() {
	local name=$1 p
	shift
	for p in "$@"; do
		if ! grep -Eq -- "$p" "$W/out"; then
			echo "FAIL $name: no line matching /$p/"
			sed 's/^/    /' "$W/out"
			fail=$((fail + 1))
			return 1
		fi
	done
	echo "ok   $name"
	pass=$((pass + 1))
}

# case NAME EXPECTED_RC PATTERN [doctor options...] -- checks after the setup the caller did
check() {
	local name=$1 want=$2 pat=$3
	shift 3
	run "$name" "$want" "$@" && expect "$name" "$pat"
}

setconf() { # KEY VALUE: replace or add a slurm.conf parameter in the copy
	if grep -qi "^$1=" "$W/slurm.conf"; then
		sed -i "s|^$1=.*|$1=$2|I" "$W/slurm.conf"
	else
		echo "$1=$2" >>"$W/slurm.conf"
	fi
	touch -d '2000-01-01' "$W/slurm.conf"
}

plugline() { # ARGS: rewrite our plugstack line with sed expression ARGS
	sed -i "$1" "$W/plugstack.conf.d/postmortem.conf"
	touch -d '2000-01-01' "$W/plugstack.conf.d/postmortem.conf" "$W/plugstack.conf.d"
}

if [ -f "$C/slurm.conf" ]; then
	echo "doctor-test: cluster $C (live checks: $live, slurmd running: $slurmd_up), copy in $W"
else
	echo "doctor-test: no local cluster in $C: a stand-in slurm.conf, files only, in $W"
fi

# ---- the good copy ----
fresh
check "good copy, files only" 0 '^ok +plugin-file .*exports' --offline
check "rules and what scans them" 0 '^ok +rules .*rules, sha256:[0-9a-f]+; Vectorscan [0-9.]+: .*; ([0-9]+) of \1 patterns compiled to machine code$' --offline
expect "good copy: every check ran" '^ok +plugstack ' '^ok +plugin-args ' '^ok +plugin-load ' \
	'^ok +epilog-timeout ' '^ok +collector ' '^ok +config ' '^ok +rules ' '^ok +spool ' \
	'^ok +store ' '^ok +store-write ' '^ok +operators ' '^note +store-flags ' '^ok: 0 problems'
expect "good copy: what protects the verdict" \
	'^note +comment-trust .*owner can change its Comment.*verdict.json.*within 7 day'
if [ "$live" = yes ]; then
	check "good copy, live" 0 '^ok +accounting .*registered'
	expect "good copy, live: slurmctld and clock" '^ok +slurmctld .*cluster' '^(ok|warn) +clock '
	# other suites restart the cluster's slurmds at any time: none running is a skip
	if [ "$slurmd_up" = yes ] && ! grep -Eq '^skip +slurmd ' "$W/out"; then
		expect "good copy, live: slurmd" '^ok +slurmd .*after the last change'
	fi
	"$cli" doctor --slurm-conf "$W/slurm.conf" --json >"$W/json" 2>&1
	rc=$?
	if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema"]=="postmortem.doctor/1" and d["exit"]==int(sys.argv[2]) and any(c["check"]=="plugstack" and c["status"]=="ok" for c in d["checks"])' "$W/json" "$rc" 2>/dev/null; then
		echo "ok   --json: postmortem.doctor/1, exit $rc"
		pass=$((pass + 1))
	else
		echo "FAIL --json"
		sed 's/^/    /' "$W/json"
		fail=$((fail + 1))
	fi
else
	echo "skip live checks: the cluster is not running"
	skipped=$((skipped + 1))
fi

# ---- the plugin stack ----
fresh; rm "$W/plugstack.conf"
check "plugstack.conf missing" 1 '^FAIL +plugstack .*does not exist' --offline
fresh; rm "$W/plugstack.conf.d/postmortem.conf"
check "plugin not enabled" 1 '^FAIL +plugstack .*not in the plugin stack' --offline
fresh; printf 'include %s/elsewhere/*.conf\n' "$W" >"$W/plugstack.conf"
check "include names another folder" 1 '^FAIL +plugstack .*not in the plugin stack' --offline
fresh; cp "$W/plugstack.conf.d/postmortem.conf" "$W/plugstack.conf.d/zz-again.conf"
check "plugin listed twice" 1 '^FAIL +plugstack .*listed 2 times' --offline
fresh; echo "requird $W/bin/other.so" >>"$W/plugstack.conf"
check "a line Slurm rejects" 1 "^FAIL +plugstack .*requird.*refuses the whole plugin stack" --offline
fresh; chmod 666 "$W/plugstack.conf.d/postmortem.conf"
check "plugstack file writable by all" 1 '^FAIL +plugstack .*writable by every user' --offline
fresh; plugline 's/^optional/required/'
check "required instead of optional" 0 '^warn +plugstack .*required' --offline
check "required, --strict" 1 '^warn +plugstack ' --offline --strict

# ---- the plugin's arguments and file ----
fresh; plugline 's/$/ retain=forever/'
check "bad plugin argument" 1 "^FAIL +plugin-args .*retain=forever.*inactive" --offline
fresh; plugline "s|$W/bin/postmortem.so|$W/gone/postmortem.so|"
check "plugin file missing" 1 '^FAIL +plugin-file .*gone/postmortem.so does not exist' --offline
fresh; echo 'not a plugin' >"$W/bin/postmortem.so"
check "plugin file not ELF" 1 '^FAIL +plugin-file .*not an ELF file' --offline
fresh; cp "$cli" "$W/bin/postmortem.so"
check "ELF but not our plugin" 1 '^FAIL +plugin-file .*not a postmortem SPANK plugin' --offline
fresh; chmod 666 "$W/bin/postmortem.so"
check "plugin writable by all" 1 '^FAIL +plugin-file .*writable by every user' --offline
fresh; printf '\267\000' | dd of="$W/bin/postmortem.so" bs=1 seek=18 conv=notrunc 2>/dev/null
check "plugin built for another machine" 1 '^FAIL +plugin-file .*for aarch64' --offline
if [ "$slurmd_up" = yes ]; then
	# dated ahead: the cluster's slurmds may be restarted by other tests at any moment
	fresh; touch -d '+5 minutes' "$W/plugstack.conf.d/postmortem.conf"
	"$cli" doctor --slurm-conf "$W/slurm.conf" --offline >"$W/out" 2>&1
	if grep -Eq '^skip +slurmd ' "$W/out"; then
		echo "skip slurmd restart: the slurmds were being restarted"
		skipped=$((skipped + 1))
	else
		check "slurmd not restarted since the plugstack changed" 1 \
			'^FAIL +slurmd .*before .*postmortem.conf changed' --offline
	fi
else
	echo "skip slurmd restart: no slurmd runs"
	skipped=$((skipped + 1))
fi

# ---- PrologEpilogTimeout ----
fresh; sed -i '/^PrologEpilogTimeout=/d' "$W/slurm.conf"
check "PrologEpilogTimeout unset" 1 '^FAIL +epilog-timeout .*not set' --offline
fresh; setconf PrologEpilogTimeout 20
check "PrologEpilogTimeout below the deadline" 1 '^FAIL +epilog-timeout .*=20 is not above' --offline
fresh; setconf PrologEpilogTimeout 35
check "PrologEpilogTimeout with little margin" 0 '^warn +epilog-timeout .*=35 leaves' --offline

# ---- the collector, its configuration, the rules ----
fresh; plugline "s|collector=[^ ]*|collector=$W/bin/nothere|"
check "collector missing" 1 '^FAIL +collector .*nothere is missing' --offline
fresh; echo 'bogus_key: 1' >>"$W/postmortem.yaml"
check "configuration with an unknown key" 1 '^FAIL +config .*bogus_key' --offline
fresh; plugline "s|config=[^ ]*|config=$W/nothere.yaml|"
check "configuration named but missing" 1 '^FAIL +config .*nothere.yaml does not exist' --offline
fresh; cp -r "$src/rules" "$W/rules"
printf 'rules:\n  - id: Bad_ID\n    class: nosuch\n' >"$W/rules/zz-bad.yaml"
echo "rules: $W/rules" >>"$W/postmortem.yaml"
check "rule set that does not load" 1 '^FAIL +rules .*zz-bad.yaml' --offline

# ---- the spool, the store, the evidence, the operators ----
fresh; chmod 777 "$W/spool"
check "spool writable by all" 1 '^FAIL +spool .*writable by others' --offline
fresh; rmdir "$W/spool"; ln -s /tmp "$W/spool"
check "spool is a symbolic link" 1 '^FAIL +spool .*symbolic link' --offline
fresh; plugline "s|store=[^ ]*|store=$W/nostore|"
check "store missing (not mounted)" 1 '^FAIL +store .*nostore' --offline
fresh; echo "store_marker: .postmortem-store" >>"$W/postmortem.yaml"
check "store without its marker (mount point not mounted)" 1 \
	'^FAIL +store .*has no .postmortem-store' --offline
fresh; echo "store_marker: .postmortem-store" >>"$W/postmortem.yaml"; touch "$W/store/.postmortem-store"
check "store with its marker" 0 '^ok +store ' --offline
fresh; chmod 777 "$W/store"
check "store writable by all" 1 '^FAIL +store .*writable by every user' --offline
fresh; chown "$USR" "$W/store"
check "store owned by a user" 1 '^FAIL +store .*belongs to uid' --offline
fresh; chmod 750 "$W/store"
check "store not searchable by job owners" 0 '^warn +store .*not searchable' --offline
fresh; echo "service_user: $USR" >>"$W/postmortem.yaml"
check "service user cannot write the store (root_squash fix)" 1 \
	"^FAIL +store-write .*$USR cannot write" --offline
fresh; mkdir -p "$W/store/pmlab/42/0"; chmod 755 "$W/store/pmlab/42/0"
check "evidence open to every user" 1 '^FAIL +evidence .*open to every user' --offline
fresh; sed -i 's/^operators_group:.*/operators_group: nosuchgroup/' "$W/postmortem.yaml"
check "operators' group missing" 1 '^FAIL +operators .*nosuchgroup does not exist' --offline

# ---- accounting ----
fresh; setconf AccountingStorageType accounting_storage/none
check "no slurmdbd" 1 '^FAIL +accounting .*accounting_storage/none' --offline
fresh; setconf AccountingStoreFlags job_comment
check "AccountingStoreFlags=job_comment: the trade-off" 0 \
	'^note +store-flags .*job_comment.*overwrites the verdict' --offline
if [ "$live" = yes ]; then
	fresh; setconf AccountingStoragePort 6899
	check "slurmdbd unreachable" 1 '^FAIL +accounting .*failed' 
	fresh; setconf ClusterName nosuchcluster
	check "cluster not registered in slurmdbd" 1 '^FAIL +accounting .*nosuchcluster is not registered'
else
	echo "skip sacctmgr cases: the cluster is not running"
	skipped=$((skipped + 1))
fi

# ---- could not check ----
fresh
check "slurm.conf missing" 2 '^\? +slurm.conf .*cannot read' --slurm-conf "$W/nothere.conf" --offline
fresh
if command -v setpriv >/dev/null; then
	setpriv --reuid "$USR" --regid "$(id -g "$USR")" --clear-groups "$cli" doctor --slurm-conf "$W/slurm.conf" \
		--offline >"$W/out" 2>&1
	rc=$?
	if [ $rc = 2 ]; then expect "not root: store write not checked" '^\? +store-write .*not root'; else
		echo "FAIL not root: exit $rc, expected 2"; sed 's/^/    /' "$W/out"; fail=$((fail + 1)); fi
fi

# ---- --recent: the collector's own health ----
fresh
now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
old=$(date -u -d '-3 hours' +%Y-%m-%dT%H:%M:%SZ)
mkrun() { # JOB MANIFEST-JSON
	local d=$W/store/pmlab/$1/0
	mkdir -p "$d"
	chmod 750 "$d"
	chgrp "$OPS" "$d"
	printf '%s\n' "$2" >"$d/manifest.json"
}
mkrun 101 '{"schema":"postmortem.manifest/1","updated":"'"$now"'","provisional":false,"deadline_hits":["n2"],"nodes":{"missing":[]},"bundles":[{"status":"ok"}],"scheduler":{"final":true},"history":[{"why":"new bundle nodes/n3.tar.zst (n3)"}]}'
mkrun 102 '{"schema":"postmortem.manifest/1","updated":"'"$old"'","provisional":true,"deadline_hits":[],"nodes":{"missing":[{"node":"n3","reason":"node never reported"}]},"bundles":[],"scheduler":{"final":false},"history":[]}'
mkrun 103 '{"schema":"postmortem.manifest/1","updated":"'"$now"'","provisional":false,"deadline_hits":[],"nodes":{"missing":[]},"bundles":[],"scheduler":{"final":true},"history":[{"why":"final merge of a provisional verdict"}]}'
touch "$W/store/pmlab/103/0/comment.pending" "$W/store/pmlab/101/0/webhook.failed"
cat >"$W/syslog" <<EOF
${now} vm postmortem-epilog[100]: job 101 node n1: 1.20 s, timed out: none, deadline hit: no, kept 2048 bytes in 4 files (0 redactions, bundle 900 bytes), store: stored $W/store/pmlab/101/0/nodes/n1.tar.zst
${now} vm postmortem-epilog[101]: job 101 node n2: 19.80 s, timed out: gpu_state, deadline hit: yes, kept 1024 bytes in 3 files (0 redactions, bundle 700 bytes), store: stored $W/store/pmlab/101/0/nodes/n2.tar.zst
${now} vm postmortem-epilog[102]: job 102 node n1: 0.90 s, timed out: none, deadline hit: no, kept 512 bytes in 2 files (1 redactions, bundle 400 bytes), store: failed (store $W/store: Permission denied)
${now} vm kernel: unrelated line
EOF
check "--recent: store manifests and the collector's log" 0 \
	'^ok +recent +3 job runs' --recent --log "$W/syslog" --offline
expect "--recent: what it found" '^warn +recent-deadline .*1 job run hit .*n2' \
	'^warn +recent-missing .*1 node missing .*n3: node never reported' \
	'^warn +recent-merge .*1 job run still provisional' '^warn +recent-comment .*1 verdict comment' \
	'^warn +recent-webhook .*0 job runs .*, 1 it gave up on' \
	'^note +recent-late .*1 late merge.*1 provisional verdict made final' \
	'^ok +recent-log +3 collector runs .*19.80 s at most; 1 with a source timed out \(gpu_state\)' \
	'^warn +recent-log +1 collector run hit the deadline' \
	'^warn +recent-log +1 run could not store the bundle \(1 failed, 0 left pending'
check "--recent --strict" 1 '^warn +recent-deadline' --recent --log "$W/syslog" --offline --strict

# a merge cut by its deadline, and a comment its owner changed (the finalize timer put it back)
mkrun 104 '{"schema":"postmortem.manifest/1","updated":"'"$now"'","provisional":true,"deadline_hits":[],"nodes":{"missing":[]},"bundles":[],"scheduler":{"final":true},"history":[],"merge":{"deadline_hit":true,"budget_s":19.5,"cut":["nodes/n1.tar.zst"]}}'
printf '{"field":"Comment","found":"x\\u001b[31mpostmortem: attributed gpu_hardware/gpu_lost origin=n3","restored":true,"stored":"postmortem: unknown","time":"%s"}\n' \
	"$now" >"$W/store/pmlab/103/0/tampered.jsonl"
printf '{"field":"Comment","found":"old","restored":true,"stored":"x","time":"%s"}\n' \
	"$old" >"$W/store/pmlab/101/0/tampered.jsonl"
check "--recent: merge cut, comment tampered" 0 \
	'^warn +recent-merge-deadline .*1 job run whose merge ran out of time' \
	--recent --log "$W/syslog" --offline --since 1h
expect "--recent: the tampering, its text made harmless" \
	'^warn +recent-tampered .*1 verdict comment in 1 job run changed .*103/0 at .*Comment held "x\?\[31mpostmortem: attributed gpu_hardware/gpu_lost origin=n3", put back'

# comment_recheck off: said plainly
fresh
echo 'comment_recheck: off' >>"$W/postmortem.yaml"
touch -d '2000-01-01' "$W/postmortem.yaml"
check "comment_recheck off" 0 '^warn +comment-trust .*owner can change its Comment.*comment_recheck is off' \
	--offline --config "$W/postmortem.yaml"

# the decision ledger (issue 17): the store's top folder is root's, so the operators' group
# cannot create it; `ledger init` gives it to them; a head file others can write is a failure
fresh
check "ledger: operators cannot create it" 0 \
	'^warn +ledger +.*ledger.jsonl does not exist and the operators.* cannot create it' \
	--offline --config "$W/postmortem.yaml"
expect "ledger: the fix" '^ +fix: as root, once: postmortem ledger init'
"$cli" ledger init --config "$W/postmortem.yaml" >"$W/init.out" 2>&1 ||
	{ echo "FAIL ledger init: $(cat "$W/init.out")"; fail=$((fail + 1)); }
check "ledger: after ledger init" 0 "^ok +ledger +.*ledger.jsonl: group $OPS, mode 0660: operators append" \
	--offline --config "$W/postmortem.yaml"
printf 'seq=1 sha256=00 time=x\n' >"$W/store/ledger.head"
chmod 666 "$W/store/ledger.head"
check "ledger: a head file others can write" 1 '^FAIL +ledger-head +.*not root.s alone' \
	--offline --config "$W/postmortem.yaml"

# the metrics the finalize timer writes (metrics_textfile:): never written, fresh, stale
fresh
mkdir "$W/tf"
echo "metrics_textfile: $W/tf/postmortem.prom" >>"$W/postmortem.yaml"
touch -d '2000-01-01' "$W/postmortem.yaml"
check "metrics: never written" 0 '^warn +metrics-timer +.*postmortem.prom has never been written' \
	--offline --config "$W/postmortem.yaml"
expect "metrics: the fix" '^ +fix: on the one host that runs it: systemctl enable --now postmortem-finalize.timer'
"$cli" metrics --config "$W/postmortem.yaml" --textfile "$W/tf/postmortem.prom" ||
	{ echo "FAIL postmortem metrics --textfile"; fail=$((fail + 1)); }
check "metrics: written" 0 '^ok +metrics-timer +.*postmortem.prom written [0-9]+ s ago' \
	--offline --config "$W/postmortem.yaml"
touch -d '1 hour ago' "$W/tf/postmortem.prom"
check "metrics: stale" 0 '^warn +metrics-timer +.*last written 60 min ago' \
	--offline --config "$W/postmortem.yaml"
sed -i "s|^metrics_textfile: .*|metrics_textfile: $W/tf/postmortem.txt|" "$W/postmortem.yaml"
check "metrics: not *.prom" 0 '^warn +metrics +.*reads \*\.prom files only' \
	--offline --config "$W/postmortem.yaml"

echo "doctor-test: $pass passed, $fail failed, $skipped skipped"
[ "$fail" = 0 ]
