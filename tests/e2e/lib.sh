# shellcheck shell=bash
# tests/e2e/lib.sh - sourced by tests/e2e/run and every tests/e2e/t-*.sh.
#
# The end-to-end tests run real jobs on the local Slurm cluster of contrib/cluster as the
# ordinary user pmuser, and read what the plugin recorded as root.  Nothing here can hang:
# every job has --time, every srun/sbatch runs under timeout(1), every wait has a deadline.
#
# A test is a bash script that sources this file, asserts with the helpers below and exits
# 0 (ok), 77 (skipped: print "SKIP: reason" first) or anything else (failed; the helpers
# print "ASSERT FAILED: ..." first).  "SKIP: ..." lines of a passing test are partial skips.
# Tests are independent: each one sets the plugin arguments it needs (e2e_plugin_on/off);
# tests/e2e/run puts the suite's base arguments back after each test and the cluster's
# original plugstack line back at the end.

set -Eeuo pipefail

E2E_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PM_SRCDIR=${PM_SRCDIR:-$(cd "$E2E_DIR/../.." && pwd)}
PM_BUILDDIR=${PM_BUILDDIR:-$PM_SRCDIR}
E2E_CLUSTER=$PM_SRCDIR/contrib/cluster
E2E_STATE=${PM_E2E_STATE:-/var/lib/postmortem-e2e}	# everything the suite writes
E2E_PREFIX=$E2E_STATE/prefix				# the installed plugin, collector, CLI
E2E_COLLECTOR=$E2E_PREFIX/libexec/pm-e2e-capture	# records its calls, leaves the spool
# PM_E2E_INSTALLED=1 (tests/e2e/run --installed): the suite tests the installed package
# (tests/run-all builds and installs the .deb), its files as the package manager lists them:
# the plugin in Slurm's plugin directory, the collector, the CLI and the bundled rules.  Only
# the capture collector, a test tool, stays in the test prefix.  Otherwise the build tree's,
# copied into the test prefix by tests/e2e/run.
E2E_INSTALLED=${PM_E2E_INSTALLED:-}
if [ -n "$E2E_INSTALLED" ]; then
	E2E_PKG_FILES=$(dpkg -L postmortem 2>/dev/null) || E2E_PKG_FILES=$(rpm -ql postmortem 2>/dev/null) ||
		E2E_PKG_FILES=
	e2e_pkg_file() { printf '%s\n' "$E2E_PKG_FILES" | grep -E -m 1 "$1" || true; } # ERE
	E2E_SO=$(e2e_pkg_file '/postmortem\.so$')
	E2E_EPILOG=$(e2e_pkg_file '/sbin/postmortem-epilog$')
	E2E_CLI=$(e2e_pkg_file '/bin/postmortem$')
	E2E_RULES=$(e2e_pkg_file '/share/postmortem/rules/?$')
	E2E_RULES=${E2E_RULES%/}
else
	E2E_SO=$E2E_PREFIX/lib/slurm/postmortem.so
	E2E_EPILOG=$E2E_PREFIX/libexec/postmortem-epilog	# the real collector, when built
	E2E_CLI=$E2E_PREFIX/bin/postmortem			# the CLI, when built
	E2E_RULES=$PM_SRCDIR/rules
fi
E2E_SPOOL=$E2E_STATE/spool				# the plugin's spool (root, 0700)
# The real collector's tests run with a spool per node, as a cluster has (the three nodes share
# this machine: %n, in the plugin's spool= and the collector's spool: alike; contrib/cluster/
# README.md); the capture collector's plugin tests (t-1x) read every node's records from the
# one $E2E_SPOOL.
E2E_PM_SPOOL=$E2E_SPOOL/%n
E2E_CALLS=$E2E_STATE/collector-calls			# <job>.<node>.args from the capture collector
E2E_WORKROOT=$E2E_STATE/work				# per-test folders, owned by pmuser
E2E_RESULTS=${PM_E2E_RESULTS:-$E2E_DIR/results}
E2E_USER=${PM_E2E_USER:-pmuser}
E2E_JOB_TIME=${PM_E2E_JOB_TIME:-2}			# --time of every job, minutes
E2E_CMD_TIMEOUT=${PM_E2E_CMD_TIMEOUT:-120}		# timeout(1) of every srun/sbatch, seconds
E2E_WAIT_TIMEOUT=${PM_E2E_WAIT_TIMEOUT:-90}		# waits for the queue and sacct, seconds
E2E_BASE_ARGS=("spool=$E2E_SPOOL" "collector=$E2E_COLLECTOR" "timeout=10s")

PM_CLUSTER_DIR=${PM_CLUSTER_DIR:-/var/lib/postmortem-cluster}
export PM_CLUSTER_DIR SLURM_CONF=${SLURM_CONF:-$PM_CLUSTER_DIR/slurm.conf}
# nothing of the caller's may leak into the jobs (srun exports the environment)
unset SPANK_POSTMORTEM SLURM_JOB_ID SLURM_JOBID SLURM_STEP_ID SLURM_STEP_GPUS SLURM_JOB_GPUS \
	CUDA_VISIBLE_DEVICES GPU_DEVICE_ORDINAL TORCHELASTIC_ERROR_FILE 2>/dev/null || true

E2E_TEST=$(basename "${0%.sh}")
E2E_SEQ=0

# ---------------------------------------------------------------- messages and asserts
e2e_log() { printf '# %s\n' "$*"; }
e2e_fail() {
	printf 'ASSERT FAILED: %s\n' "$*"
	exit 1
}
e2e_skip_part() { printf 'SKIP: %s\n' "$*"; }
e2e_skip() { # skip the whole test
	printf 'SKIP: %s\n' "$*"
	exit 77
}
# An unexpected command failure is a failed assertion too, with its line.
e2e_on_err() {
	printf 'ASSERT FAILED: command failed (rc %s) at %s:%s: %s\n' "$1" "$E2E_TEST" "$2" "$3"
	exit 1
}
trap 'e2e_on_err $? $LINENO "$BASH_COMMAND"' ERR

assert_eq() { # EXPECTED ACTUAL WHAT
	[ "$1" == "$2" ] || e2e_fail "$3: expected [$1], got [$2]"
}
assert_ne() { # UNEXPECTED ACTUAL WHAT
	[ "$1" != "$2" ] || e2e_fail "$3: got [$2], which it must not be"
}
assert_match() { # ERE TEXT WHAT
	[[ $2 =~ $1 ]] || e2e_fail "$3: [$2] does not match /$1/"
}
assert_contains() { # FILE FIXED-STRING WHAT
	grep -qF -- "$2" "$1" 2>/dev/null ||
		e2e_fail "$3: '$2' not in $1$(printf '\n%s' "$(tail -n 5 "$1" 2>/dev/null)")"
}
assert_absent() { # PATH WHAT
	[ ! -e "$1" ] || e2e_fail "$2: $1 exists$( [ -f "$1" ] && printf ':\n%s' "$(head -c 600 "$1")")"
}
assert_file() { # PATH WHAT
	[ -f "$1" ] || e2e_fail "$2: $1 missing$(printf '\n%s' "$(ls -la "$(dirname "$1")" 2>&1 | head -n 12)")"
}
# assert_json FILE JQ-FILTER WHAT [jq args...]: the filter, run with -e over FILE read as a
# stream of JSON values (-s: one array), must be true.
assert_json() {
	local f=$1 filter=$2 what=$3 out
	shift 3
	if ! out=$(jq -e -s "$@" "$filter" "$f" 2>&1); then
		e2e_fail "$what: jq -s '$filter' on $f gave ${out:-false}$(printf '\n%s' "$(head -c 1500 "$f" 2>/dev/null)")"
	fi
}
# json FILE JQ-FILTER [jq args]: the filter's raw output over the slurped stream.
json() {
	local f=$1 filter=$2
	shift 2
	jq -r -s "$@" "$filter" "$f"
}

# e2e_wait_for SECONDS COMMAND...: poll every 0.2 s.
e2e_wait_for() {
	local secs=$1 t=0
	shift
	until "$@" >/dev/null 2>&1; do
		[ "$t" -lt $((secs * 5)) ] || return 1
		sleep 0.2
		t=$((t + 1))
	done
}

# ---------------------------------------------------------------- the plugin
e2e_cluster() { "$E2E_CLUSTER/$1" "${@:2}" >>"$E2E_WORK/cluster.log" 2>&1 ||
	e2e_fail "contrib/cluster/$* failed: $(tail -n 5 "$E2E_WORK/cluster.log")"; }
# e2e_plugin_on [KEY=VALUE...]: the suite's base arguments, then these (later keys are not
# merged: give a key of the base set only through e2e_plugin_on_raw).
e2e_plugin_on() { e2e_plugin_on_raw "${E2E_BASE_ARGS[@]}" "$@"; }
# (the slurmds restart only when the plugstack line changes: run holds the cluster's lock)
e2e_plugin_on_raw() {
	[ "$(e2e_plugin_show)" = "optional $(readlink -f "$E2E_SO")${*:+ $*}" ] ||
		e2e_cluster plugin on --so "$E2E_SO" "$@"
}
e2e_plugin_off() { [ "$(e2e_plugin_show)" = "(off)" ] || e2e_cluster plugin off; }
e2e_plugin_show() { "$E2E_CLUSTER/plugin" show 2>/dev/null; }

# ---------------------------------------------------------------- the test's folder
# $E2E_WORK: this test's folder, owned by the test user (scripts, job output).
e2e_init_work() {
	install -d -m 755 "$E2E_STATE" "$E2E_WORKROOT"
	E2E_WORK=$E2E_WORKROOT/$E2E_TEST
	rm -rf "$E2E_WORK"
	install -d -m 755 -o "$E2E_USER" -g "$E2E_USER" "$E2E_WORK"
}
[[ $E2E_TEST != t-* ]] || e2e_init_work

# e2e_script NAME: write stdin into an executable script in $E2E_WORK; prints its path.
e2e_script() {
	local f=$E2E_WORK/$1
	cat >"$f"
	chmod 755 "$f"
	chown "$E2E_USER:$E2E_USER" "$f"
	printf '%s\n' "$f"
}

# ---------------------------------------------------------------- jobs
# Every job gets a unique name, so that it can be found in sacct whatever happened to it.
# Sets E2E_NAME (not in a subshell: the counter must move).
e2e_name() {
	E2E_SEQ=$((E2E_SEQ + 1))
	E2E_NAME=$(printf 'e2e-%s-%s-%s' "${E2E_TEST#t-}" "$$" "$E2E_SEQ")
}

# e2e_as_user CMD...: run CMD as the test user in $E2E_WORK, bounded by E2E_CMD_TIMEOUT.
e2e_as_user() {
	timeout -k 10 "$E2E_CMD_TIMEOUT" "$E2E_CLUSTER/run-as" --cwd "$E2E_WORK" "$E2E_USER" "$@" </dev/null
}

# The job id of the job named NAME: slurmctld knows it at once (squeue -t all lists ended jobs
# for MinJobAge), slurmdbd a few seconds later.
e2e_job_by_name() {
	local name=$1 t=0 id
	while :; do
		id=$(squeue -h -t all --name="$name" -o %i 2>/dev/null | tail -n 1)
		[ -n "$id" ] || id=$(sacct -a -n -X -P --name="$name" -S now-1days -o JobID 2>/dev/null | tail -n 1)
		[ -n "$id" ] && { printf '%s\n' "$id"; return 0; }
		[ "$t" -lt $((E2E_WAIT_TIMEOUT * 5)) ] || return 1
		sleep 0.2
		t=$((t + 1))
	done
}

# e2e_run_names TAG: for e2e_srun and e2e_sbatch, a fresh job name into their local $name, and
# E2E_OUT, E2E_ERR (in $E2E_WORK, named by TAG) and E2E_RC 0.
e2e_run_names() {
	e2e_name
	name=$E2E_NAME
	E2E_OUT=$E2E_WORK/$1.out
	E2E_ERR=$E2E_WORK/$1.err
	E2E_RC=0
}

# e2e_srun TAG [SRUN-ARGS...]: srun as the test user.  Sets E2E_RC (srun's exit status),
# E2E_JOB (the job id), E2E_OUT / E2E_ERR (srun's stdout and stderr, in $E2E_WORK) and
# E2E_SECS (srun's wall time).
# Waits for the job to leave the queue (its epilogs done) and for sacct's final record.
e2e_srun() {
	local tag=$1 name
	shift
	e2e_run_names "$tag"
	local t0 t1
	t0=$(date +%s%N)
	e2e_as_user srun --job-name="$name" --time="$E2E_JOB_TIME" "$@" >"$E2E_OUT" 2>"$E2E_ERR" ||
		E2E_RC=$?
	t1=$(date +%s%N)
	E2E_SECS=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", (b-a)/1e9}')
	[ "$E2E_RC" != 124 ] && [ "$E2E_RC" != 137 ] ||
		e2e_fail "srun $* did not end in ${E2E_CMD_TIMEOUT}s$(printf '\n%s' "$(tail -n 5 "$E2E_ERR")")"
	E2E_JOB=$(e2e_job_by_name "$name") || e2e_fail "no sacct record of job $name (srun $*)"
	e2e_wait_job "$E2E_JOB"
}

# e2e_sbatch TAG [SBATCH-ARGS...] SCRIPT: sbatch --wait as the test user, output in
# $E2E_WORK/TAG.out.  Sets E2E_RC (sbatch's: the job's exit code), E2E_JOB, E2E_OUT, E2E_ERR.
e2e_sbatch() {
	local tag=$1 name
	shift
	e2e_run_names "$tag"
	e2e_as_user sbatch --wait --parsable --job-name="$name" --time="$E2E_JOB_TIME" \
		-o "$E2E_OUT" "$@" >"$E2E_WORK/$tag.sbatch" 2>"$E2E_ERR" || E2E_RC=$?
	[ "$E2E_RC" != 124 ] && [ "$E2E_RC" != 137 ] ||
		e2e_fail "sbatch --wait $* did not end in ${E2E_CMD_TIMEOUT}s"
	E2E_JOB=$(e2e_job_by_name "$name") || e2e_fail "no sacct record of job $name (sbatch $*)"
	e2e_wait_job "$E2E_JOB"
}

e2e_in_queue() { [ -n "$(squeue -h -j "$1" -o %T 2>/dev/null)" ]; }
e2e_sacct_final() {
	local st
	st=$(sacct -n -X -P -j "$1" -o State 2>/dev/null | head -n 1)
	[ -n "$st" ] && [[ ! $st =~ ^(PENDING|RUNNING|REQUEUED|RESIZING|SUSPENDED|COMPLETING) ]]
}
# e2e_wait_job JOB: gone from the queue (so every node's epilog has returned), and sacct
# holds its final state.  A job still there at the deadline is cancelled, then it fails.
e2e_wait_job() {
	if ! e2e_wait_for "$E2E_WAIT_TIMEOUT" eval '! e2e_in_queue '"$1"; then
		scancel "$1" 2>/dev/null || true
		e2e_fail "job $1 still in the queue after ${E2E_WAIT_TIMEOUT}s: $(squeue -h -j "$1" -o '%T %R')"
	fi
	e2e_wait_for "$E2E_WAIT_TIMEOUT" e2e_sacct_final "$1" ||
		e2e_fail "sacct has no final state for job $1 after ${E2E_WAIT_TIMEOUT}s: $(sacct -n -X -P -j "$1" -o State)"
}

# e2e_result JOB: the job's own result as sacct has it, job id removed: one line per record
# ("JOB State ExitCode", ".0 FAILED 3:0", ".batch FAILED 7:0").
e2e_result() {
	sacct -n -P -j "$1" -o JobID,State,ExitCode | sed -e "s/^$1\\(\\.[^|]*\\)\\{0,1\\}|/JOB\\1|/" \
		-e 's/^JOB\././' | tr '|' ' '
}

# srun's per-task verdict lines ("task 1: Exited with exit code 3"), sorted.
e2e_task_lines() { grep -oE 'task [0-9]+: .*' "$1" | sort || true; }

# ---------------------------------------------------------------- the spool (as root)
e2e_spool_job() { printf '%s/%s\n' "${2:-$E2E_SPOOL}" "$1"; }
# e2e_records JOB KIND STEP [SPOOL]: the path of rankmap/taskexit records of a step.
e2e_records() { printf '%s/%s/%s.%s.jsonl\n' "${4:-$E2E_SPOOL}" "$1" "$2" "$3"; }
# Every record file of JOB in the spool (all nodes share it on this machine).
e2e_record_files() {
	local d=${2:-$E2E_SPOOL}/$1
	[ -d "$d" ] || return 0
	find "$d" -maxdepth 1 -name '*.jsonl' | sort
}
# The capture collector's call on NODE for JOB: one argument a line.
e2e_collector_call() { printf '%s/%s.%s.args\n' "$E2E_CALLS" "$1" "$2"; }

# ---------------------------------------------------------------- slurmd logs
# e2e_log_mark: remember the logs' sizes; e2e_log_since: what they gained since.
e2e_log_mark() {
	local f
	E2E_LOG_MARK=()
	for f in "$PM_CLUSTER_DIR"/log/slurmd-*.log; do
		E2E_LOG_MARK+=("$f:$(stat -c %s "$f" 2>/dev/null || echo 0)")
	done
}
e2e_log_since() {
	local m f off
	for m in "${E2E_LOG_MARK[@]}"; do
		f=${m%:*}
		off=${m##*:}
		tail -c +$((off + 1)) "$f" 2>/dev/null | sed "s|^|$(basename "$f" .log): |" || true
	done
}

# ---------------------------------------------------------------- issue 4 helpers
# The whole mission path (tests t-2x/t-3x): the real collector (postmortem-epilog) in the job
# epilog, an evidence store, each node's own kernel log (the nodes share one kernel: the
# collector's kernel_log source reads $E2E_KLOG/<node>.log through %n), the verdict in sacct's
# Comment, and the CLI (show, fetch) run as the job's user.
E2E_STORE=$E2E_STATE/store				# the evidence store
E2E_KLOG=$E2E_STATE/kernlog				# <node>.log: each node's kernel log
E2E_PMCONF=$E2E_STATE/postmortem.yaml			# the collector's configuration
E2E_FAKEBIN=$E2E_STATE/fakebin				# <node>/nvidia-smi when a test plants one
E2E_PM_TIMEOUT=${PM_E2E_PM_TIMEOUT:-30s}		# the plugin's hard limit on the collector
E2E_PM_DEADLINE=${PM_E2E_PM_DEADLINE:-12s}		# the collector's own deadline
E2E_TIMES=$E2E_STATE/epilog-times.tsv			# test job node seconds deadline_hit kept bundle
E2E_CLUSTER_NAME=pmlab
export POSTMORTEM_CONFIG=$E2E_PMCONF POSTMORTEM_RULES=$E2E_RULES

e2e_pm_need() {
	[ -x "$E2E_EPILOG" ] || e2e_skip "postmortem-epilog not built ($PM_BUILDDIR/epilog)"
	[ -x "$E2E_CLI" ] || e2e_skip "postmortem (the CLI) not built ($PM_BUILDDIR/cli)"
}

# e2e_pm_config [YAML...]: the collector's configuration, every source routed per node; extra
# lines (indented two spaces, under "sources:") replace a source's entry.  Rewritten by every
# e2e_pm_on, so a test's variant never outlives it.
e2e_pm_config() {
	local extra="" l src
	for l in "$@"; do extra+="$l"$'\n'; done
	install -d -m 755 "$E2E_STORE" "$E2E_KLOG" "$E2E_FAKEBIN"
	install -d -m 700 "$E2E_SPOOL" # the nodes' spools (%n) go below it
	{
		printf '# written by tests/e2e/lib.sh (%s)\n' "$E2E_TEST"
		printf 'store: %s\nspool: %s\nrules: %s\nretain: 14d\ndeadline: %s\n' \
			"$E2E_STORE" "$E2E_PM_SPOOL" "$E2E_RULES" "$E2E_PM_DEADLINE"
		printf 'operators_group: pmops\ncomment_field: Comment\nservice_user: root\n'
		printf 'sources:\n'
		for src in kernel_log slurmd_log gpu_state gpu_csv; do
			l=$(printf '%s' "$extra" | grep -E "^  $src:" || true)
			if [ -n "$l" ]; then printf '%s\n' "$l"; continue; fi
			case $src in
			kernel_log) printf '  kernel_log: {path: "%s/%%n.log", cap: 4MiB, timeout: 5s}\n' "$E2E_KLOG" ;;
			slurmd_log) printf '  slurmd_log: {path: "%s/log/slurmd-%%n.log", cap: 2MiB, timeout: 3s}\n' "$PM_CLUSTER_DIR" ;;
			gpu_state) printf '  gpu_state: {command: "%s/%%n/nvidia-smi -q", cap: 2MiB, timeout: 8s}\n' "$E2E_FAKEBIN" ;;
			gpu_csv) printf '  gpu_csv: {command: "%s/%%n/nvidia-smi --query-gpu=index,pci.bus_id,uuid,ecc.errors.uncorrected.volatile.total,retired_pages.pending,temperature.gpu --format=csv", cap: 256KiB, timeout: 8s}\n' "$E2E_FAKEBIN" ;;
			esac
		done
		printf '%s' "$extra" | grep -vE '^  (kernel_log|slurmd_log|gpu_state|gpu_csv):' || true
	} >"$E2E_PMCONF.tmp"
	chmod 644 "$E2E_PMCONF.tmp"
	mv -f "$E2E_PMCONF.tmp" "$E2E_PMCONF"
}

# The plugstack arguments of the real collector: the same for every test, so that only the
# first test of a run restarts the slurmds for them.
E2E_PM_ARGS=("spool=$E2E_PM_SPOOL" "collector=$E2E_EPILOG" "store=$E2E_STORE"
	"config=$E2E_PMCONF" "timeout=$E2E_PM_TIMEOUT")

# e2e_pm_on [YAML...]: the configuration (e2e_pm_config), fresh kernel logs, no planted
# nvidia-smi, and the plugin with the real collector.
e2e_pm_on() {
	e2e_pm_need
	e2e_pm_config "$@"
	e2e_klog_init
	rm -rf "${E2E_FAKEBIN:?}"/*
	local want
	want="optional $(readlink -f "$E2E_SO") ${E2E_PM_ARGS[*]}"
	[ "$(e2e_plugin_show)" = "$want" ] || e2e_plugin_on_raw "${E2E_PM_ARGS[@]}"
	e2e_syslog_start
	trap 'e2e_pm_config; e2e_syslog_stop' EXIT
}

# The collector's one syslog line per node and job is what the suite reports epilog times
# from, and what several tests assert on.  For the duration of a test a small receiver owns
# /dev/log and appends every message to $E2E_SYSLOG.  Where the machine has a syslog daemon
# of its own (journald's /dev/log on a systemd host, rsyslog), its /dev/log is moved aside to
# $E2E_SYSLOG_HOST and the receiver forwards every message to it, so the host's log misses
# nothing; e2e_syslog_stop puts it back (and a later start does, after a killed run).
E2E_SYSLOG=$E2E_STATE/syslog.log
E2E_SYSLOG_HOST=/dev/log.postmortem-e2e
e2e_syslog_restore() {
	[ -e "$E2E_SYSLOG_HOST" ] || [ -L "$E2E_SYSLOG_HOST" ] || return 0
	rm -f /dev/log
	mv -f "$E2E_SYSLOG_HOST" /dev/log
}
e2e_syslog_start() {
	local pid
	pid=$(cat "$E2E_STATE/syslog.pid" 2>/dev/null) &&
		[ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = "$(readlink -f /usr/bin/python3)" ] &&
		[ -S /dev/log ] && return 0
	rm -f "$E2E_STATE/syslog.pid"
	e2e_syslog_restore
	if [ -e /dev/log ] || [ -L /dev/log ]; then
		mv -f /dev/log "$E2E_SYSLOG_HOST"
	fi
	setsid /usr/bin/python3 -c '
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("/dev/log"); os.chmod("/dev/log", 0o666)
fwd = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
out = open(sys.argv[1], "ab", buffering=0)
open(sys.argv[2], "w").write(str(os.getpid()))
while True:
    m = s.recv(65536)
    out.write(m.rstrip(b"\0\n") + b"\n")
    if os.path.exists(sys.argv[3]):
        try:
            fwd.sendto(m, sys.argv[3])
        except OSError:
            pass
' "$E2E_SYSLOG" "$E2E_STATE/syslog.pid" "$E2E_SYSLOG_HOST" </dev/null >/dev/null 2>&1 9>&- &
	e2e_wait_for 5 test -S /dev/log || e2e_log "warning: no syslog receiver on /dev/log"
}
e2e_syslog_stop() {
	local pid
	pid=$(cat "$E2E_STATE/syslog.pid" 2>/dev/null) || { e2e_syslog_restore; return 0; }
	rm -f "$E2E_STATE/syslog.pid"
	if [ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = "$(readlink -f /usr/bin/python3)" ]; then
		kill "$pid" 2>/dev/null || true
		rm -f /dev/log
	fi
	e2e_syslog_restore
}

# ---- each node's kernel log: root-owned files the job cannot write
e2e_kstamp() { date -u ${1:+-d "-$1 sec"} +%Y-%m-%dT%H:%M:%S,%6N+00:00; } # [SECONDS AGO]
e2e_klog_init() { # a few ordinary lines from the boot and the last hour, per node
	local n d
	install -d -m 755 "$E2E_KLOG"
	for n in n1 n2 n3; do
		d=$(date -u -d '-50 min' +%Y-%m-%dT%H:%M:%S)
		{
			printf '%s,000100+00:00 Linux version 6.1.0-27-amd64 (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14) 12.2.0) #1 SMP PREEMPT_DYNAMIC Debian 6.1.115-1 (2024-11-01)\n' "$d"
			printf '%s,104220+00:00 nvidia: module license '"'"'NVIDIA'"'"' taints kernel.\n' "$d"
			printf '%s,211004+00:00 NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.127.05  Tue Oct  8 03:22:07 UTC 2024\n' "$d"
			printf '%s,530911+00:00 mlx5_core 0000:3d:00.0: Port module event: module 0, Cable plugged\n' "$d"
			printf '%s mlx5_core 0000:3d:00.0 ibp61s0: Link up\n' "$(e2e_kstamp)"
		} >"$E2E_KLOG/$n.log"
		chmod 644 "$E2E_KLOG/$n.log"
	done
}
e2e_klog() { printf '%s %s\n' "$(e2e_kstamp)" "$2" >>"$E2E_KLOG/$1.log"; } # NODE LINE
e2e_klog_ago() { printf '%s %s\n' "$(e2e_kstamp "$1")" "$3" >>"$E2E_KLOG/$2.log"; } # SECONDS NODE LINE

# e2e_plant_nvsmi NODE SCRIPT-BODY: an nvidia-smi on NODE (the config's gpu_state and gpu_csv
# commands; where none is planted, the node has no nvidia-smi: "missing").
e2e_plant_nvsmi() {
	install -d -m 755 "$E2E_FAKEBIN/$1"
	printf '#!/bin/bash\n%s\n' "$2" >"$E2E_FAKEBIN/$1/nvidia-smi"
	chmod 755 "$E2E_FAKEBIN/$1/nvidia-smi"
}

# ---- the job: a stand-in for a distributed training step loop
# e2e_train_py: writes $E2E_WORK/train.py.  Run under `srun -l`; each rank does what PM_PLAN
# says ("3=exception,*=timeout"; kinds below), after PM_ITERS progress lines PM_STEP seconds
# apart.  Lines look like PyTorch/NCCL's (rules/SIGNATURES.md, B3).
e2e_train_py() {
	e2e_script train.py <<'PYEOF'
#!/usr/bin/python3
"""A stand-in for one rank of a data-parallel training job (tests/e2e, contrib/demo).

PM_PLAN="3=exception,*=timeout": what each rank does after PM_ITERS steps:
  ok         finishes (exit 0)               exception  raises ValueError (exit 1)
  timeout    its NCCL watchdog fires PM_WD s later, then the c10d teardown (SIGABRT)
  hang       stops printing and sleeps       segv       dereferences NULL (SIGSEGV)
  oom        grows its memory until killed   gpuoom     torch.OutOfMemoryError (exit 1)
  train      keeps training (for time limits, cancels, node failures)
  xidprint   prints NVRM Xid 79 lines of its own, then raises RuntimeError
  secrets    prints credentials (and look-alikes that are not), then exits 3
"""
import datetime, faulthandler, os, sys, time

rank = int(os.environ.get("SLURM_PROCID", "0"))
world = int(os.environ.get("SLURM_NTASKS", "1"))
host = os.environ.get("SLURMD_NODENAME", "localhost")
plan = dict(x.split("=", 1) for x in os.environ.get("PM_PLAN", "*=ok").replace(";", ",").split(",") if x)
kind = plan.get(str(rank), plan.get("*", "ok"))
iters = int(os.environ.get("PM_ITERS", "3"))
step_s = float(os.environ.get("PM_STEP", "0.5"))
wd = float(os.environ.get("PM_WD", "4"))
pid = os.getpid()


def now():
    return datetime.datetime.now(datetime.timezone.utc)


def log(msg):  # python logging's default-ish format, as training scripts print it
    t = now()
    print(f"{t:%Y-%m-%d %H:%M:%S},{t.microsecond // 1000:03d} - INFO - train - [rank{rank}] {msg}", flush=True)


def glog(sev, src, msg):  # c10d's C++ log prefix
    t = now()
    print(f"[rank{rank}]:[{sev}{t:%m%d %H:%M:%S}.{t.microsecond:06d} {pid} {src}] {msg}", flush=True)


print(f"{host}:{pid}:{pid} [{rank % 2}] NCCL INFO comm 0x55d0c3a8e2d0 rank {rank} nranks {world} "
      f"cudaDev {rank % 2} busId {'3b000' if rank % 2 == 0 else '5d000'} - Init COMPLETE", flush=True)
log(f"world size {world}, host {host}, local GPU {rank % 2}")
seq = 0
for it in range(1, iters + 1):
    time.sleep(step_s)
    seq += 2
    log(f"step {it}/100000 loss={7.2 / it:.4f} lr=1.50e-04 tok/s=41{rank}96{it}")

if kind == "ok":
    log("training complete")
    sys.exit(0)
if kind == "exception":
    def load_shard(i):
        raise ValueError(f"shard {i}: expected 4096 tokens per sample, got 4095 (corrupt record at offset 1822720)")
    load_shard(17)
if kind == "gpuoom":
    t = now()
    print(f"{t:%Y-%m-%d %H:%M:%S},{t.microsecond // 1000:03d} - ERROR - train - [rank{rank}] forward failed", flush=True)
    print("Traceback (most recent call last):\n  File \"/opt/train/train.py\", line 211, in <module>\n"
          "    loss = model(batch).loss\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB. "
          f"GPU {rank % 2} has a total capacity of 79.11 GiB of which 3.52 GiB is free. Including non-PyTorch "
          "memory, this process has 75.58 GiB memory in use.", file=sys.stderr, flush=True)
    sys.exit(1)
if kind == "segv":
    import ctypes
    faulthandler.enable()
    ctypes.string_at(0)
if kind == "oom":
    hog = []
    while True:
        hog.append(bytearray(16 << 20))
        for i in range(0, 16 << 20, 4096):
            hog[-1][i] = 1
        time.sleep(0.05)
if kind == "hang":
    time.sleep(3600)
if kind == "xidprint":
    print(f"[rank{rank}]: resilience drill: injecting a synthetic GPU loss", flush=True)
    print("NVRM: Xid (PCI:0000:3b:00): 79, pid=1911, name=python3, GPU has fallen off the bus.", flush=True)
    print("NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.", flush=True)
    print(f"[{now():%d %b %Y %H:%M:%S}] NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.", flush=True)
    raise RuntimeError("synthetic GPU loss injected at step %d (drill)" % iters)
if kind == "secrets":
    for line in os.environ.get("PM_SECRETS", "").split("|"):
        if line:
            print(line, flush=True)
    sys.exit(3)
if kind == "train":
    it = iters
    while True:
        time.sleep(step_s * 4)
        it += 1
        seq += 2
        log(f"step {it}/100000 loss={7.2 / it:.4f} lr=1.50e-04 tok/s=41{rank}96{it % 10}")
if kind == "timeout":
    time.sleep(wd)
    ms = int(wd * 1000)
    work = (f"WorkNCCL(SeqNum={seq + 1}, OpType=ALLREDUCE, NumelIn=262144, NumelOut=262144, "
            f"Timeout(ms)={ms - 12}) ran for {ms} milliseconds before timing out.")
    glog("E", "ProcessGroupNCCL.cpp:607", f"[Rank {rank}] Watchdog caught collective operation timeout: {work}")
    glog("E", "ProcessGroupNCCL.cpp:1664", f"[PG 0 (default_pg) Rank {rank}] Exception (either an error or timeout) "
         f"detected by watchdog at work: {seq + 1}, last enqueued NCCL work: {seq + 1}, last completed NCCL work: {seq}.")
    glog("E", "ProcessGroupNCCL.cpp:577", f"[Rank {rank}] Some NCCL operations have failed or timed out. Due to the "
         "asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.")
    glog("E", "ProcessGroupNCCL.cpp:583", f"[Rank {rank}] To avoid data inconsistency, we are taking the entire process down.")
    print("terminate called after throwing an instance of 'c10::DistBackendError'", file=sys.stderr, flush=True)
    print(f"  what():  [PG 0 (default_pg) Rank {rank}] Process group watchdog thread terminated with exception: "
          f"[Rank {rank}] Watchdog caught collective operation timeout: {work}", file=sys.stderr, flush=True)
    os.abort()
sys.exit(f"unknown PM_PLAN kind {kind!r}")
PYEOF
}

# e2e_batch NAME [SRUN-ARGS]: a batch script that runs train.py on every task with srun -l.
e2e_batch() {
	local name=$1
	shift
	e2e_script "$name" <<EOF
#!/bin/bash
ulimit -c 0
echo "job \$SLURM_JOB_ID on \$SLURM_JOB_NODELIST (restart \${SLURM_RESTART_COUNT:-0})"
srun -l $* /usr/bin/python3 $E2E_WORK/train.py
EOF
}

# e2e_submit TAG [SBATCH-ARGS...] SCRIPT: sbatch (no --wait) as the test user, output in
# $E2E_WORK/TAG.out; prints the job id.  Several jobs of a test run side by side.
e2e_submit() {
	local tag=$1 id
	shift
	e2e_name
	id=$(e2e_as_user sbatch --parsable --job-name="$E2E_NAME" --time="$E2E_JOB_TIME" \
		-o "$E2E_WORK/$tag.out" "$@" 2>"$E2E_WORK/$tag.sbatch.err") ||
		e2e_fail "sbatch $* refused: $(cat "$E2E_WORK/$tag.sbatch.err")"
	printf '%s\n' "${id%%;*}"
}
# e2e_train_submit PLAN [BATCH_ARG...]: the training script (e2e_train_py) submitted as a
# batch job where E2E_TRAIN_ON says (sbatch's node arguments; by default n1 and n2, two ranks
# each), whose ranks do what PLAN says: PM_PLAN's value, which may go on with ",VAR=VALUE"
# for more of the job's environment (",PM_WD=6").  BATCH_ARGs go to e2e_batch.  Output in
# $E2E_WORK/main.out; the id in $job.
E2E_TRAIN_ON=(-N2 -n4 --ntasks-per-node=2 -w 'n[1-2]')
e2e_train_submit() {
	local plan=$1 script
	shift
	e2e_train_py >/dev/null
	script=$(e2e_batch job.sh "$@")
	job=$(e2e_submit main "${E2E_TRAIN_ON[@]}" --export=ALL,PM_PLAN="$plan" "$script")
}
# e2e_train_job PLAN [BATCH_ARG...]: e2e_train_submit, then wait for the job and its verdict
# and check them (e2e_pm_check).
e2e_train_job() {
	e2e_train_submit "$@"
	e2e_wait_job "$job"
	e2e_wait_verdict "$job"
	e2e_pm_check "$job"
}
e2e_wait_state() { # JOB STATE SECONDS: squeue says STATE
	e2e_wait_for "$3" eval '[ "$(squeue -h -j '"$1"' -o %T 2>/dev/null)" = '"$2"' ]' ||
		e2e_fail "job $1 not $2 after ${3}s: $(squeue -h -j "$1" -o '%T %R' 2>&1)"
}
e2e_wait_output() { # FILE ERE SECONDS
	e2e_wait_for "$3" grep -qE -- "$2" "$1" ||
		e2e_fail "no /$2/ in $1 after ${3}s$(printf '\n%s' "$(tail -n 5 "$1" 2>/dev/null)")"
}

# ---- the store, the verdict, the comment
e2e_jobdir() { printf '%s/%s/%s/%s\n' "$E2E_STORE" "$E2E_CLUSTER_NAME" "$1" "${2:-0}"; }
e2e_comment() { sacct -n -X -P -j "$1" -o Comment 2>/dev/null | tail -n 1; }
e2e_final_verdict() { # JOB [RESTART]: a final (not provisional) verdict and the comment set
	local d
	d=$(e2e_jobdir "$1" "${2:-0}")
	[ -f "$d/verdict.json" ] && [ -f "$d/manifest.json" ] &&
		[ "$(jq -r '.provisional' "$d/manifest.json")" = false ] &&
		{ [ "$(jq -r '.verdict.status' "$d/manifest.json")" = none ] || [[ $(e2e_comment "$1") == *postmortem:* ]]; }
}
# e2e_final_or_retry JOB [RESTART]: e2e_final_verdict; while the merge's comment waits in
# comment.pending (sacctmgr's modify not taking yet on a loaded machine), the finalize timer's
# pending pass every 5 s, and while the stored verdict is a provisional one (the epilog's
# merge cut by its deadline on a loaded machine), the timer's own pass (`finalize`, which
# merges such a run again), as the timer would run them (no timer runs during the suite).
E2E_RETRIED=0
e2e_final_or_retry() {
	local d
	d=$(e2e_jobdir "$1" "${2:-0}")
	e2e_final_verdict "$1" "${2:-0}" && return 0
	[ $((SECONDS - E2E_RETRIED)) -ge 5 ] || return 1
	if [ -f "$d/comment.pending" ]; then
		E2E_RETRIED=$SECONDS
		timeout 60 "$E2E_CLI" finalize --pending >/dev/null 2>&1 || true
	elif [ "$(jq -r '.provisional' "$d/manifest.json" 2>/dev/null)" = true ]; then
		E2E_RETRIED=$SECONDS
		timeout 60 "$E2E_CLI" finalize >/dev/null 2>&1 || true
	fi
	e2e_final_verdict "$1" "${2:-0}"
}
# e2e_slurm_record_or_retry JOB [RESTART]: the stored run has Slurm's final record; a merge
# that ran before slurmdbd had the job's record (a job that fails at launch ends in
# milliseconds) is merged again every 5 s, as the finalize timer would (`finalize JOB --force`).
e2e_slurm_record_or_retry() {
	local d
	d=$(e2e_jobdir "$1" "${2:-0}")
	[ "$(jq -r '.scheduler.final' "$d/manifest.json" 2>/dev/null)" = true ] && return 0
	[ $((SECONDS - E2E_RETRIED)) -ge 5 ] || return 1
	E2E_RETRIED=$SECONDS
	timeout 60 "$E2E_CLI" finalize "$1" --restart "${2:-0}" --force >/dev/null 2>&1 || true
	[ "$(jq -r '.scheduler.final' "$d/manifest.json" 2>/dev/null)" = true ]
}
# e2e_wait_slurm_record JOB [RESTART]: e2e_slurm_record_or_retry until it holds (60 s).
e2e_wait_slurm_record() {
	e2e_wait_for 60 e2e_slurm_record_or_retry "$1" "${2:-0}" ||
		e2e_fail "job $1: no final Slurm record in the stored run after 60 s: $(jq -c .scheduler "$(e2e_jobdir "$1" "${2:-0}")/manifest.json" 2>&1)"
	e2e_wait_verdict "$1" "${2:-0}" # the comment again, if the merge changed it
}
# e2e_wait_verdict JOB [RESTART] [SECONDS]: the job's final verdict is stored and in sacct.
e2e_wait_verdict() {
	local secs=${3:-60} d
	d=$(e2e_jobdir "$1" "${2:-0}")
	e2e_wait_for "$secs" e2e_final_or_retry "$1" "${2:-0}" ||
		e2e_fail "no final verdict for job $1 (restart ${2:-0}) after ${secs}s: $( (ls "$d" 2>&1 || true) | paste -sd ' '); manifest: $(head -c 1500 "$d/manifest.json" 2>/dev/null || true); comment: $(e2e_comment "$1" || true)"
	e2e_pm_times "$1" "${2:-0}"
}

# e2e_pm_times JOB [RESTART]: per node, the collector's whole run (its syslog line) and its
# collection (the bundle manifest), appended to $E2E_TIMES:
# test job node run_s collect_s deadline_hit kept_bytes bundle_bytes
e2e_pm_times() {
	local d b node run
	d=$(e2e_jobdir "$1" "${2:-0}")
	for b in "$d"/nodes/*.tar.zst; do
		[ -f "$b" ] || continue
		node=$(basename "$b" .tar.zst)
		run=$(grep -E "postmortem-epilog(\[[0-9]+\])?: job $1 node $node: " "$E2E_SYSLOG" 2>/dev/null |
			tail -n 1 | sed -E 's/.*: job [^ ]+ node [^ ]+: ([0-9.]+) s,.*/\1/' || true)
		zstdcat "$b" | tar -xOf - manifest.json 2>/dev/null | jq -r --arg t "$E2E_TEST" \
			--arg j "$1" --arg run "${run:-NA}" --argjson z "$(stat -c %s "$b")" '
			def secs: (sub("\\.[0-9]+Z$"; "Z") | fromdateiso8601)
				+ ((capture("\\.(?<f>[0-9]+)Z$").f // "0") | ("0." + .) | tonumber);
			[$t, $j, .node, $run, ((.collected.end | secs) - (.collected.start | secs) | . * 1000 | round / 1000),
			 .collected.deadline_hit, ([.files[].bytes] | add), $z] | @tsv' >>"$E2E_TIMES" || true
	done
}

# e2e_pm_as USER CMD...: the CLI as USER, in $E2E_WORK (stdout; stderr to TAG files by caller)
e2e_pm_as() {
	local u=$1
	shift
	# E2E_CLI_TIMEOUT: a hang guard, not a time asserted; a call that reads gigabytes sets
	# a longer one
	timeout -k 5 "${E2E_CLI_TIMEOUT:-60}" "$E2E_CLUSTER/run-as" --cwd "$E2E_WORK" "$u" "$E2E_CLI" "$@" </dev/null
}

# e2e_pm_cfg USER ARGS...: the CLI as USER (e2e_pm_as) with the test's configuration file
# $CFG; its output in $E2E_WORK/out and err, its exit status in $PMRC.  e2e_pm_out prints both.
e2e_pm_cfg() {
	PMRC=0
	e2e_pm_as "$@" --config "$CFG" >"$E2E_WORK/out" 2>"$E2E_WORK/err" || PMRC=$?
}
e2e_pm_out() { cat "$E2E_WORK/out" "$E2E_WORK/err"; }

# e2e_expired DIR: the job run in DIR expired an hour ago (its manifest says so, kept as
# the store keeps it), its files two hours old: what `postmortem expire` removes.  The expiry
# written in $past.
e2e_expired() {
	past=$(date -u -d '-1 hour' +%Y-%m-%dT%H:%M:%SZ)
	jq --arg t "$past" '.expires = $t' "$1/manifest.json" >"$1/manifest.json.new"
	chmod --reference="$1/manifest.json" "$1/manifest.json.new"
	chown --reference="$1/manifest.json" "$1/manifest.json.new"
	mv -f "$1/manifest.json.new" "$1/manifest.json"
	find "$1" -exec touch -h -d '-2 hours' {} +
}

# e2e_pm_check JOB [RESTART]: what every scenario asserts besides its own verdict, as the
# job's owner: `postmortem show --json` is the stored verdict, `show` prints it, the comment
# in sacct is the verdict's line (after the user's comment, if any), `postmortem fetch`
# copies bundles, manifest, verdict and sacct.txt, verified, and diagnosing the fetched copy
# gives the same verdict.  Sets V (the verdict JSON file), C (the comment), F (the fetch dir).
e2e_pm_check() {
	local job=$1 r=${2:-0} d out
	d=$(e2e_jobdir "$job" "$r")
	V=$E2E_WORK/verdict.$job.$r.json
	F=$E2E_WORK/fetch.$job.$r
	e2e_pm_as "$E2E_USER" show "$job" --restart "$r" --json >"$V" 2>"$V.err" ||
		e2e_fail "postmortem show $job --json as $E2E_USER: $(cat "$V.err")"
	cmp -s "$V" "$d/verdict.json" || e2e_fail "show --json is not the stored verdict.json"
	assert_json "$V" '.[0].schema == "postmortem.verdict/2" and .[0].job.id == $j' "verdict schema and job" --arg j "$job"
	e2e_pm_as "$E2E_USER" show "$job" --restart "$r" >"$E2E_WORK/show.$job.$r.txt" 2>&1 ||
		e2e_fail "postmortem show $job as $E2E_USER: $(cat "$E2E_WORK/show.$job.$r.txt")"
	C=$(e2e_comment "$job")
	if [ "$(json "$V" '.[0].status')" != none ]; then
		assert_match "^(.* \\| )?postmortem: " "$C" "sacct Comment of job $job"
		assert_match "ev=$E2E_CLUSTER_NAME/$job/$r( |\$)" "$C" "the comment's evidence key"
		[ ${#C} -le 250 ] || e2e_fail "comment longer than 250 bytes: $C"
		case $C in *$'\n'*) e2e_fail "comment on more than one line: $C" ;; esac
	fi
	rm -rf "$F"
	out=$(e2e_pm_as "$E2E_USER" fetch "$job" --restart "$r" -o "$F" 2>&1) ||
		e2e_fail "postmortem fetch $job as $E2E_USER: $out"
	assert_match "verified against the manifest" "$out" "fetch's report"
	assert_file "$F/manifest.json" "fetched manifest"
	assert_file "$F/verdict.json" "fetched verdict"
	cmp -s "$F/verdict.json" "$d/verdict.json" || e2e_fail "fetched verdict differs from the store's"
	ls "$F"/nodes/*.tar.zst >/dev/null 2>&1 || e2e_fail "no node bundle fetched: $(ls -R "$F")"
	# the fetched evidence gives the same verdict
	if [ -f "$F/sacct.txt" ]; then
		e2e_pm_as "$E2E_USER" diagnose --json "$F/nodes" "$F/sacct.txt" >"$E2E_WORK/rediag.$job.$r.json" 2>&1 || true
		cmp -s "$E2E_WORK/rediag.$job.$r.json" "$d/verdict.json" ||
			e2e_skip_part "job $job: diagnosing the fetched copy differs from the stored verdict ($(diff <(jq -S . "$E2E_WORK/rediag.$job.$r.json" 2>&1) <(jq -S . "$d/verdict.json") | head -c 400 | tr '\n' ' ' || true))"
	fi
	e2e_log "job $job/$r: $C"
}

# verdict field shorthands over $V; in their filters `hosts` expands a host list
# (bystanders.nodes, "n[1-2]") and `ranks` rank ranges (bystanders.ranks, "0-5,7") into arrays
E2E_JQ_DEFS='def hosts: if type == "array" then . else [scan("[^,\\[]+(?:\\[[^\\]]*\\])?")] | map(if test("\\[") then (capture("^(?<p>[^\\[]*)\\[(?<r>[^\\]]*)\\]$") as $c | [$c.r | split(",")[] | if test("-") then (split("-") as $ab | ($ab[0] | length) as $w | range($ab[0] | tonumber; ($ab[1] | tonumber) + 1) | tostring | ((("0" * ($w - length)) // "") + .)) else . end] | map($c.p + .)) else [.] end) | flatten end; def ranks: if type == "array" then . else [split(",")[] | select(. != "") | if test("-") then ((split("-") | map(tonumber)) as $ab | range($ab[0]; $ab[1] + 1)) else tonumber end] end;'
vj() { json "$V" "$E2E_JQ_DEFS .[0] | $1"; }
assert_v() { assert_json "$V" "$E2E_JQ_DEFS .[0] | $1" "${2:-verdict: $1}" "${@:3}"; }
# the coverage of NODE's SOURCE (the source itself, not one of its files): "status reason" of
# its entry among the source's problems, else "ok" when the source has inputs read whole
e2e_cov() { json "$V" '[.[0].coverage[] | select(.source == $s) | (.problems[] | select(.node == $n and .file == null) | "\(.status) \(.reason)"), (select(.ok > 0) | "ok")] | first // empty' --arg n "$1" --arg s "$2"; }
# e2e_fetched_text DIR: every member of every fetched bundle, and the job files beside them,
# concatenated into DIR.txt (as root, for greps); prints that file's name.
e2e_fetched_text() {
	local b
	for b in "$1"/nodes/*.tar.zst; do zstdcat "$b" | tar -xOf -; done >"$1.txt"
	cat "$1"/*.json "$1"/sacct.txt >>"$1.txt" 2>/dev/null || true
	printf '%s\n' "$1.txt"
}

# ---------------------------------------------------------------- issue 7 fault helpers (t-5x)
# The real collector behind a wrapper that the fault tests steer with files in $E2E_FAULTS:
#   env       present: each call's arguments and environment are kept in
#             $E2E_FAULTS/calls/<job>.<node>.{args,env} (NUL-separated), to run it again
#   skew.<node>  "+8s": that node's collector runs under faketime with this offset
# Without such files the wrapper is the real collector.  The plugstack line is the same for
# every t-5x test, so the slurmds restart once per run for it.
E2E_FAULTS=$E2E_STATE/faults
E2E_FAULTY=$E2E_PREFIX/libexec/pm-e2e-faulty
e2e_pm_on_faulty() { # as e2e_pm_on, with the wrapper as the collector
	e2e_pm_need
	e2e_pm_config "$@"
	e2e_klog_init
	rm -rf "${E2E_FAKEBIN:?}"/* "$E2E_FAULTS"
	install -d -m 700 "$E2E_FAULTS" "$E2E_FAULTS/calls"
	cat >"$E2E_FAULTY.tmp" <<WRAP
#!/bin/bash
# tests/e2e/lib.sh e2e_pm_on_faulty: the real collector, steered by $E2E_FAULTS
f=$E2E_FAULTS
node=\${SLURMD_NODENAME:-unknown} job=\${SLURM_JOB_ID:-unknown}
for a in "\$@"; do
	case \$a in --job=*) job=\${a#--job=} ;; --node=*) node=\${a#--node=} ;; esac
done
if [ -e "\$f/env" ]; then
	printf '%s\0' "\$@" >"\$f/calls/\$job.\$node.args"
	env -0 >"\$f/calls/\$job.\$node.env"
fi
if [ -s "\$f/skew.\$node" ] && command -v faketime >/dev/null; then
	exec faketime -f "\$(cat "\$f/skew.\$node")" $E2E_EPILOG "\$@"
fi
exec $E2E_EPILOG "\$@"
WRAP
	chmod 755 "$E2E_FAULTY.tmp"
	mv -f "$E2E_FAULTY.tmp" "$E2E_FAULTY"
	local args=() a
	for a in "${E2E_PM_ARGS[@]}"; do
		case $a in collector=*) args+=("collector=$E2E_FAULTY") ;; *) args+=("$a") ;; esac
	done
	e2e_plugin_on_raw "${args[@]}"
	e2e_syslog_start
	trap 'e2e_pm_config; e2e_syslog_stop' EXIT
}
# e2e_epilog_again JOB NODE: run the collector again exactly as the plugin ran it for JOB on
# NODE (needs $E2E_FAULTS/env at the time); its stderr in $E2E_WORK/again.JOB.NODE.err.
e2e_epilog_again() {
	local c=$E2E_FAULTS/calls/$1.$2 envs=() args=()
	[ -f "$c.env" ] && [ -f "$c.args" ] || e2e_fail "no recorded collector call for job $1 on $2"
	mapfile -d '' envs <"$c.env"
	mapfile -d '' args <"$c.args"
	timeout -k 5 60 env -i "${envs[@]}" "$E2E_EPILOG" "${args[@]}" </dev/null \
		2>"$E2E_WORK/again.$1.$2.err" || true
}
# e2e_pending_dir JOB NODE: where NODE keeps JOB's bundle while the store refuses it (the
# plugin's spool for the job on that node, a spool shared by the nodes or one per node: %n).
e2e_pending_dir() {
	local a s=$E2E_PM_SPOOL
	for a in "${E2E_PM_ARGS[@]}"; do case $a in spool=*) s=${a#spool=} ;; esac; done
	printf '%s/%s/pending\n' "${s//%n/$2}" "$1"
}
# e2e_store_partials DIR: what in the store tree looks like a half-written file (temporary
# names of put_file), one a line.
e2e_store_partials() { find "$1" -name '.*tmp*' 2>/dev/null || true; }
# e2e_store_bundles_ok DIR: every visible bundle under DIR is a whole zstd tar with a manifest
e2e_store_bundles_ok() {
	local b list
	for b in $(find "$1" -path '*/nodes/*.tar.zst' ! -name '.*' 2>/dev/null); do
		list=$(zstdcat "$b" 2>/dev/null | tar -tf - 2>/dev/null) && [[ $'\n'$list$'\n' == *$'\n'manifest.json$'\n'* ]] ||
			e2e_fail "a bundle in the store is not whole: $b ($(stat -c %s "$b") bytes)"
	done
}

# ---------------------------------------------------------------- issue 4: the fetched copy (H1)
# e2e_pm_rediag JOB [RESTART]: after e2e_pm_check (which fetched the evidence into $F),
# `postmortem diagnose` of the fetched bundles and Slurm's record, as the job's owner, gives
# the stored verdict byte for byte; a difference fails, naming the fields that differ.
e2e_pm_rediag() {
	local job=$1 r=${2:-0} d out
	d=$(e2e_jobdir "$job" "$r")
	out=$E2E_WORK/rediag.$job.$r.check.json
	assert_file "$F/sacct.txt" "the fetched copy's Slurm record"
	e2e_pm_as "$E2E_USER" diagnose --json "$F/nodes" "$F/sacct.txt" >"$out" 2>"$out.err" ||
		e2e_fail "postmortem diagnose of the fetched copy of job $job/$r: $(cat "$out.err")"
	cmp -s "$out" "$d/verdict.json" ||
		e2e_fail "job $job/$r: the fetched copy diagnoses to another verdict; fields that differ: $(jq -n -c --slurpfile a "$out" --slurpfile b "$d/verdict.json" '$a[0] as $x | $b[0] as $y | [($x + $y | keys[]) as $k | select($x[$k] != $y[$k]) | $k] | unique')"
}

# ---------------------------------------------------------------- ranks ending differently (t-10, t-14, t-15)
# e2e_ranks_srun [LINES]: ranks.sh, four ranks on n1 and n2 that end differently (rank 0
# exits 0, 1 exits 3, 2 dies of SIGKILL, 3 of SIGSEGV without a core; the sleeps give the
# ends a fixed order), each running the shell LINES first; sets SRUN, srun's arguments.
e2e_ranks_srun() {
	local ranks
	ranks=$({
		printf '#!/bin/bash\nulimit -c 0\n'
		[ -z "${1:-}" ] || printf '%s\n' "$1"
		cat <<'EOF'
case $SLURM_PROCID in
0) exit 0 ;;
1) sleep 0.3; exit 3 ;;
2) sleep 0.6; kill -KILL $$ ;;
3) sleep 1.2; kill -SEGV $$ ;;
esac
EOF
	} | e2e_script ranks.sh)
	SRUN=(-N2 -n4 -w 'n[1-2]' --ntasks-per-node=2 "$ranks")
}

# ---------------------------------------------------------------- issue 4: the GPU lost (t-21, t-40, t-85)
# e2e_xid79_job: the training job on n1 and n2 whose GPU on n2 falls off the bus (Xid 79 in
# n2's kernel log, naming a rank's pid) once the ranks there have made a few steps; waits
# for the job's end and its final verdict.  Sets $job and $pid2 (the rank's pid on n2).
e2e_xid79_job() {
	e2e_train_submit "0=timeout;1=timeout;2=hang;3=hang,PM_WD=6" --kill-on-bad-exit=1
	e2e_wait_output "$E2E_WORK/main.out" '^2: .*step 3/' 60
	pid2=$(grep -oE '^2: n2:[0-9]+' "$E2E_WORK/main.out" | head -n 1 | cut -d: -f3)
	e2e_klog n2 "NVRM: GPU at PCI:0000:3b:00: GPU-4be1a000-1c2d-3e4f-5a6b-7c8d9e0f1a2b"
	e2e_klog n2 "NVRM: Xid (PCI:0000:3b:00): 79, pid=${pid2:-1911}, name=python3, GPU has fallen off the bus."
	e2e_klog n2 "NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus."
	e2e_wait_job "$job"
	e2e_wait_verdict "$job"
}

# ---------------------------------------------------------------- issue 13: trust per field (t-6x)
# e2e_trust_no_blame: what every t-6x trick asserts over the verdict $V and the comment $C:
# no hardware class, no node excluded, nothing counted against a node.
e2e_trust_no_blame() {
	local hw='^(gpu_hardware|nvlink|network_fabric|host_hardware)$'
	assert_v '(.cause.class // "") | test($hw) | not' "no hardware cause" --arg hw "$hw"
	assert_v '[.candidates[]? | select((.class // "") | test($hw))] | length == 0' "no hardware candidate" --arg hw "$hw"
	assert_v '.decision.containment.id != "retry-exclude-node"' "no node excluded"
	assert_v '[.evidence[]? | select((.class // "") | test($hw))] | length == 0' "nothing counted against a node" --arg hw "$hw"
	case $C in *hardware* | *nvlink* | *network_fabric* | *exclude*) e2e_fail "the comment blames a node: $C" ;; esac
}
# e2e_has [GREP OPTION...] PATTERN: whether standard input has a matching line, read to its
# end.  Not `| grep -q` in a pipeline: grep leaving at the first match kills a writer still
# writing with SIGPIPE (bash writes a printf line by line), and pipefail fails the pipeline
# (t-14 failed so, one run in a few under load).
e2e_has() { grep "$@" >/dev/null; }
# e2e_trust_check JOB: JOB's final verdict, read back as its owner (e2e_pm_check: $V, $C, $F)
# and diagnosed again from the fetched copy, is the same bytes and blames no node.  (These
# differed one run in two on a CPU with AVX-512 until engine/hsrun.c: Vectorscan's AVX-512
# code missed a match by where malloc had put the job's output.)
e2e_trust_check() {
	e2e_wait_verdict "$1"
	e2e_wait_slurm_record "$1"
	e2e_pm_check "$1"
	e2e_pm_rediag "$1"
	e2e_trust_no_blame
}
# e2e_trust_not_kept JOB OTHER [TEXT...]: JOB's fetched evidence ($F) keeps no line of the
# other job OTHER, nor any TEXT.
e2e_trust_not_kept() {
	local text t
	text=$(e2e_fetched_text "$F")
	if grep -qF "[$2." "$text"; then e2e_fail "job $1's evidence keeps pmother's job $2's line: $(grep -F "[$2." "$text" | head -n 2)"; fi
	for t in "${@:3}"; do
		if grep -qF "$t" "$text"; then e2e_fail "job $1's evidence keeps the line pmother's job forged: $t"; fi
	done
}
# e2e_step_fails NAME [SECONDS]: a batch script (e2e_script) whose one step prints a line
# after SECONDS (none: at once) and exits 3, as the job does; prints its path.
e2e_step_fails() {
	local pause=${2:+sleep $2; }
	printf '#!/bin/bash\nsrun -l /bin/sh -c '"'"'%secho step; exit 3'"'"'\nexit 3\n' "$pause" |
		e2e_script "$1"
}
# e2e_other_dir: $E2E_OTHER, another user's (pmother's) folder with a script that exits 0.
e2e_other_dir() {
	E2E_OTHER=$E2E_WORK/other
	install -d -m 755 -o pmother -g pmother "$E2E_OTHER"
	printf '#!/bin/bash\nexit 0\n' >"$E2E_OTHER/plain.sh"
	chmod 755 "$E2E_OTHER/plain.sh"
	chown pmother:pmother "$E2E_OTHER/plain.sh"
}
# e2e_other_sbatch TAG NODE STDERR: pmother's script (e2e_other_dir first) as a job on NODE
# with the stderr path STDERR (a path slurmstepd cannot open carries the trick); prints its id.
e2e_other_sbatch() {
	local id
	id=$(timeout -k 10 "$E2E_CMD_TIMEOUT" "$E2E_CLUSTER/run-as" --cwd "$E2E_OTHER" pmother \
		sbatch --parsable --time="$E2E_JOB_TIME" -N1 -n1 -w "$2" -o "$E2E_OTHER/$1.out" \
		-e "$3" "$E2E_OTHER/plain.sh" </dev/null 2>"$E2E_WORK/$1.err") ||
		e2e_fail "pmother's sbatch $1 refused: $(cat "$E2E_WORK/$1.err")"
	printf '%s\n' "${id%%;*}"
}
