# shellcheck shell=bash
# shellcheck disable=SC2034  # the variables are used by the scripts that source this
# Common code for contrib/cluster/*: sourced, never run.
# A real local Slurm cluster on one machine (see README.md here).

set -euo pipefail

PM_CLUSTER_DIR=${PM_CLUSTER_DIR:-/var/lib/postmortem-cluster}
D=$PM_CLUSTER_DIR
PM_NODES=${PM_NODES:-3}                 # n1..nN, slurmd ports 17001..
PM_NODE_CPUS=${PM_NODE_CPUS:-32}        # CPUs per node, more than the machine has (config_overrides)
PM_OVERSUBSCRIBE=${PM_OVERSUBSCRIBE:-}  # N: partition OverSubscribe=FORCE:N (jobs sharing a CPU)
PM_NODE_MEM=${PM_NODE_MEM:-4000}        # MB per node, RealMemory
PM_NODE_GPUS=${PM_NODE_GPUS:-2}         # fake GPUs per node (0: no GRES)
PM_DB_PORT=${PM_DB_PORT:-3307}          # our own mariadbd, 127.0.0.1 only
PM_SLURMD_DEBUG=${PM_SLURMD_DEBUG:-info}
PM_SLURMCTLD_DEBUG=${PM_SLURMCTLD_DEBUG:-info}
PM_START_TIMEOUT=${PM_START_TIMEOUT:-90}
PM_CLUSTER_NAME=pmlab
PM_ACCOUNT=pmlab
PM_USERS="root pmuser pmother pmoper"
PM_HOST=$(hostname -s)

SBIN=/usr/sbin
MUNGE_PID=/run/munge/munged.pid         # munged's defaults: clients use its default socket
MYSQL_DIR=$D/mysql
MYSQL_RUN=$D/run/mysqld
MYSQL_CNF=$D/my.cnf

pm_log() { printf 'cluster: %s\n' "$*" >&2; }
pm_die() { printf 'cluster: error: %s\n' "$*" >&2; exit 1; }
pm_need_root() { [ "$(id -u)" = 0 ] || pm_die "run as root"; }

pm_nodes() { local i; for ((i = 1; i <= PM_NODES; i++)); do printf 'n%d\n' "$i"; done; }

# pm_pidfile_alive PIDFILE EXE: prints the pid when PIDFILE names a live process
# whose /proc/PID/exe is EXE (symlinks resolved). Never looks at process names.
pm_pidfile_alive() {
	local pidfile=$1 exe pid real
	exe=$(readlink -f "$2")
	[ -r "$pidfile" ] || return 1
	pid=$(tr -dc '0-9' <"$pidfile" 2>/dev/null) || return 1
	[ -n "$pid" ] || return 1
	real=$(readlink "/proc/$pid/exe" 2>/dev/null) || return 1
	real=${real% (deleted)}
	[ "$real" = "$exe" ] || return 1
	printf '%s\n' "$pid"
}

# pm_stop_pids TIMEOUT PID...: SIGTERM, wait, SIGKILL what is left.
pm_stop_pids() {
	local timeout=$1 pid left t=0
	shift
	[ $# -gt 0 ] || return 0
	kill -TERM "$@" 2>/dev/null || true
	while :; do
		left=()
		for pid in "$@"; do [ -d "/proc/$pid" ] && left+=("$pid"); done
		[ ${#left[@]} -eq 0 ] && return 0
		if [ "$t" -ge $((timeout * 10)) ]; then
			pm_log "still running after ${timeout}s, SIGKILL: ${left[*]}"
			kill -KILL "${left[@]}" 2>/dev/null || true
			sleep 0.2
			return 0
		fi
		sleep 0.1
		t=$((t + 1))
	done
}

# Daemon table: name pidfile exe
pm_daemons() {
	local n
	printf 'munged %s %s\n' "$MUNGE_PID" "$SBIN/munged"
	printf 'mariadbd %s %s\n' "$MYSQL_RUN/mysqld.pid" "$SBIN/mariadbd"
	printf 'slurmdbd %s %s\n' "$D/run/slurmdbd.pid" "$SBIN/slurmdbd"
	printf 'slurmctld %s %s\n' "$D/run/slurmctld.pid" "$SBIN/slurmctld"
	for n in $(pm_nodes); do
		printf 'slurmd-%s %s %s\n' "$n" "$D/run/slurmd-$n.pid" "$SBIN/slurmd"
	done
}

pm_daemon_pid() { # NAME
	local name pidfile exe
	while read -r name pidfile exe; do
		[ "$name" = "$1" ] || continue
		pm_pidfile_alive "$pidfile" "$exe"
		return
	done < <(pm_daemons)
	return 1
}

# Show the last lines of the logs that explain a failed start.
pm_log_tails() {
	local f
	for f in "$@"; do
		[ -s "$f" ] || continue
		printf '\n==> %s (last 25 lines) <==\n' "$f" >&2
		tail -n 25 "$f" >&2
	done
}

pm_slurm_env() {
	export SLURM_CONF=$D/slurm.conf
}

# Wait up to SECONDS for COMMAND to succeed.
pm_wait_for() {
	local secs=$1 t=0
	shift
	while ! "$@" >/dev/null 2>&1; do
		[ "$t" -ge $((secs * 10)) ] && return 1
		sleep 0.1
		t=$((t + 1))
	done
}

# One start/stop/node/plugin at a time on this machine (the ports are the machine's).
pm_lock() {
	[ "${PM_CLUSTER_LOCKED:-}" = "$PM_CLUSTER_DIR" ] && return 0 # a parent holds it
	local f=/run/lock/postmortem-cluster.lock
	[ -d /run/lock ] || f=/tmp/postmortem-cluster.lock
	exec 9>"$f"
	flock -w "${PM_LOCK_TIMEOUT:-300}" 9 || pm_die "another contrib/cluster command holds the lock"
	export PM_CLUSTER_LOCKED=$PM_CLUSTER_DIR
}
