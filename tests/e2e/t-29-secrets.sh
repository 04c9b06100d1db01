#!/bin/bash
# e2e-timeout: 150
# Scenario 10: a job prints a planted set of secrets (tests/data/secrets: cloud keys, API
# tokens, bearer headers, passwords in URLs and assignments, private key blocks; 139 of
# them) into its output, through an srun step, and into a --postmortem-logs file.  None may
# reach the evidence store (every bundle member, the verdict, the manifest); identifiers
# that only look like secrets (tests/data/lookalikes: GPU UUIDs, PCI ids, hashes) survive.
. "$(dirname "$0")/lib.sh"

data=$PM_SRCDIR/tests/data
mkdir "$E2E_WORK/secrets" "$E2E_WORK/lookalikes"
cp "$data"/secrets/*.txt "$E2E_WORK/secrets/"
cp "$data"/lookalikes/*.txt "$E2E_WORK/lookalikes/"
rm -f "$E2E_WORK/secrets/planted.txt" "$E2E_WORK/secrets/survivors.txt"
chown -R "$E2E_USER:$E2E_USER" "$E2E_WORK"
{
	printf '#!/bin/bash\ncd %q\n' "$E2E_WORK"
	cat <<'JOB'
cat secrets/cloud.txt secrets/ml_services.txt secrets/keys.txt lookalikes/*.txt
srun -l -N2 -n2 bash -c 'cat secrets/dev_tokens.txt secrets/http_auth.txt'
cat secrets/assignments.txt >&2
cat secrets/keys.txt secrets/assignments.txt >app-debug.log
exit 3
JOB
} | e2e_script job.sh >/dev/null
e2e_pm_on
job=$(e2e_submit main -N2 -n2 --ntasks-per-node=1 -w 'n[1-2]' --postmortem-logs="$E2E_WORK/app-debug.log" "$E2E_WORK/job.sh")
e2e_wait_job "$job"
e2e_wait_verdict "$job"
e2e_pm_check "$job"

# everything the store holds for the job (decompressed, as root) and what was fetched
d=$(e2e_jobdir "$job")
all=$(e2e_fetched_text "$F")
for b in "$d"/nodes/*.tar.zst; do zstdcat "$b" | tar -xOf -; done >"$E2E_WORK/store.txt"
find "$d" -type f ! -name '*.tar.zst' -exec cat {} + >>"$E2E_WORK/store.txt"
cat "$all" >>"$E2E_WORK/store.txt"
assert_contains "$E2E_WORK/store.txt" "staging credentials for the s3 sync of run 4242" "the job's output in the evidence"
assert_contains "$E2E_WORK/store.txt" "setup: writing deploy keys for job 4247" "the --postmortem-logs file in the evidence"
n=0
leaked=()
while IFS=$'\t' read -r kind secret; do
	case $kind in '#'* | '') continue ;; esac
	n=$((n + 1))
	if grep -qF -- "$secret" "$E2E_WORK/store.txt"; then leaked+=("$kind: ${secret:0:24}..."); fi
done <"$data/secrets/planted.txt"
[ ${#leaked[@]} = 0 ] || e2e_fail "${#leaked[@]} of $n planted secrets reached the store: $(printf '%s; ' "${leaked[@]:0:8}")"
e2e_log "none of $n planted secrets in the store"
# the user's extra log was archived (redacted)
zstdcat "$F/nodes/n1.tar.zst" | tar -tf - >"$E2E_WORK/n1.members"
grep -q '^sources/user_logs/' "$E2E_WORK/n1.members" || e2e_fail "the --postmortem-logs file is not in n1's bundle"
# identifiers that only look like secrets survive, line for line
for s in GPU-4be1a000-1c2d-3e4f-5a6b-7c8d9e0f1a2b MIG-c255404e-4fb4-4003-4d66-08697a8d41be; do
	assert_contains "$E2E_WORK/store.txt" "$s" "look-alike kept"
done
miss=0
while IFS= read -r line; do
	[ -n "$line" ] || continue
	grep -qF -- "$line" "$E2E_WORK/store.txt" || { miss=$((miss + 1)); e2e_log "look-alike changed: $line"; }
done < <(cat "$data"/lookalikes/gpu_state.txt "$data"/lookalikes/kernel.txt)
[ "$miss" = 0 ] || e2e_fail "$miss look-alike lines (gpu_state, kernel) did not survive unchanged"
red=$(grep -E "postmortem-epilog(\[[0-9]+\])?: job $job node n1: " "$E2E_SYSLOG" 2>/dev/null |
	sed -nE 's/.*\(([0-9]+) redactions.*/\1/p' | tail -n 1)
e2e_log "redactions on n1: ${red:-?}"
[ -z "$red" ] || [ "$red" -ge 100 ] || e2e_fail "only $red redactions on n1"
