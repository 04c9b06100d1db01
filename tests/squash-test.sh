#!/bin/bash
# squash-test.sh - the store on NFS with root_squash, simulated: the store belongs to a
# service account and root runs without CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER and
# CAP_CHOWN (setpriv), so that, as on a squashed export, root may only write there by acting
# as the configured service_user.  The collector does (check_collector store_root_squash);
# this test holds the verbs that write the store from a timer to the same: `postmortem
# finalize` and `postmortem expire`, and `replay --apply`.
# Root only (exit 77 otherwise); PM_BUILDDIR names the build tree.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
build=${PM_BUILDDIR:-$PWD}
CLI=$build/cli/postmortem
EPILOG=$build/epilog/postmortem-epilog
export LC_ALL=C

[ "$(id -u)" = 0 ] || { echo "squash-test: not root: skipped"; exit 77; }
command -v setpriv >/dev/null || { echo "squash-test: no setpriv: skipped"; exit 77; }
[ -x "$CLI" ] && [ -x "$EPILOG" ] || { echo "squash-test: build first ($CLI)"; exit 1; }
# the local cluster's service account and operators (contrib/cluster/install), else stand-ins
SVC=pmsvc OPS=pmops
id "$SVC" >/dev/null 2>&1 && getent group "$OPS" >/dev/null || SVC=daemon OPS=daemon

T=$(mktemp -d /tmp/pmsquash.XXXXXX)
chmod 755 "$T"
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
ok() { echo "ok   $*"; }
# squashed CMD...: CMD as root without the capabilities root_squash takes away
squashed() {
	setpriv --inh-caps=-all --bounding-set=-dac_override,-dac_read_search,-fowner,-chown -- "$@"
}

mkdir "$T/store" "$T/spool"
chown "$SVC:" "$T/store"
chmod 755 "$T/store"
squashed touch "$T/store/probe" 2>/dev/null && fail "the simulation does not hold: root wrote the store"
ok "root without DAC capabilities cannot write a store owned by $SVC (the simulation holds)"

conf() { # FILE SERVICE_USER
	cat >"$1" <<CONF
store: $T/store
spool: $T/spool
rules: $src/rules
operators_group: $OPS
service_user: $2
deadline: 20s
sacct: /bin/false
sacctmgr: /bin/false
sources:
  kernel_log: {enabled: false}
  gpu_state: {enabled: false}
  gpu_csv: {enabled: false}
  slurmd_log: {enabled: false}
CONF
}
conf "$T/svc.yaml" "$SVC"
conf "$T/root.yaml" root

# a job whose two nodes are expected and one arrives: a provisional run to finalize later
SLURM_NODELIST='pmnode[1-2]' SLURM_CLUSTER_NAME=lab squashed "$EPILOG" --config "$T/svc.yaml" \
	--job 4401 --node pmnode1 2>"$T/epilog.log" || { cat "$T/epilog.log"; fail "the epilog failed"; }
J=$T/store/lab/4401/0
[ -f "$J/nodes/pmnode1.tar.zst" ] || { cat "$T/epilog.log"; fail "the collector stored nothing as $SVC"; }
[ "$(stat -c %U "$J/nodes/pmnode1.tar.zst")" = "$SVC" ] || fail "the bundle is not $SVC's"

# finalize as root, the service user not configured: refused by the store, says why
squashed "$CLI" finalize 4401 --force --config "$T/root.yaml" --cluster lab >"$T/f1.log" 2>&1 &&
	fail "finalize wrote a squashed store as root: $(cat "$T/f1.log")"
grep -q 'Permission denied' "$T/f1.log" || fail "finalize as root: $(cat "$T/f1.log")"
ok "finalize as squashed root: refused ($(head -1 "$T/f1.log" | cut -c1-90))"

# with service_user: merged, and what it wrote is the service account's
squashed "$CLI" finalize 4401 --force --config "$T/svc.yaml" --cluster lab >"$T/f2.log" 2>&1 ||
	fail "finalize as $SVC: $(cat "$T/f2.log")"
grep -q 'merged\|provisional' "$T/f2.log" || fail "finalize said: $(cat "$T/f2.log")"
[ -f "$J/verdict.json" ] || fail "no verdict after finalize"
bad=$(find "$J" ! -user "$SVC" | head -3)
[ -z "$bad" ] || fail "not the service account's: $bad"
ok "finalize with service_user $SVC: $(cut -d: -f2- "$T/f2.log" | head -1 | cut -c1-80); everything $SVC's"

# replay --apply under a copy of the rules: it writes as the service account too
cp -r "$src/rules" "$T/rules2"
squashed "$CLI" replay --rules "$T/rules2" --apply --config "$T/svc.yaml" 4401 >"$T/r.log" 2>&1 ||
	fail "replay --apply as $SVC: $(cat "$T/r.log")"
ok "replay --apply with service_user: $(tail -1 "$T/r.log" | cut -c1-80)"

# expire: as root the squashed store cannot be emptied; as the service account it is
squashed "$CLI" expire --now 2999-01-01 --config "$T/root.yaml" >"$T/e1.log" 2>&1
[ -d "$J" ] || fail "expire as squashed root removed the run"
squashed "$CLI" expire --now 2999-01-01 --config "$T/svc.yaml" >"$T/e2.log" 2>&1 ||
	fail "expire as $SVC: $(cat "$T/e2.log")"
[ ! -e "$J" ] || fail "expire as $SVC left $J: $(cat "$T/e2.log")"
ok "expire: root could not remove the run, $SVC did ($(cut -c1-90 "$T/e2.log" | head -1))"
echo "PASS squash-test.sh"
