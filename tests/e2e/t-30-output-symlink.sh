#!/bin/bash
# e2e-timeout: 150
# Scenario 11: before it ends, a job swaps its own output file for a symbolic link to a
# root-only file (and names another such link with --postmortem-logs), so that a collector
# reading as root would archive that file.  The collector reads user files as the user and
# never follows a link: the root-only content is in no bundle, and both sources say denied.
. "$(dirname "$0")/lib.sh"

canary="pm-e2e-canary-$(head -c 9 /dev/urandom | od -An -tx1 | tr -d ' \n')"
secret=$E2E_STATE/root-only.txt
printf 'root:$y$j9T$%s:19000:0:99999:7:::\n' "$canary" >"$secret"
chmod 600 "$secret"
chown root:root "$secret"
{
	printf '#!/bin/bash\ncd %q\nsecret=%q\n' "$E2E_WORK" "$secret"
	cat <<'JOB'
echo "step 1/100 loss=2.31"
echo "Traceback (most recent call last):" >&2
echo "ValueError: bad batch" >&2
ln -sfn "$secret" extra.log
rm -f main.out && ln -s "$secret" main.out
exit 1
JOB
} | e2e_script job.sh >/dev/null
e2e_pm_on
job=$(e2e_submit main -N1 -n1 -w n1 --postmortem-logs="$E2E_WORK/extra.log" "$E2E_WORK/job.sh")
e2e_wait_job "$job"
[ -L "$E2E_WORK/main.out" ] || e2e_fail "the job did not leave its output as a symlink"
e2e_wait_verdict "$job"
e2e_pm_check "$job"

d=$(e2e_jobdir "$job")
for b in "$d"/nodes/*.tar.zst; do zstdcat "$b" | tar -xOf -; done >"$E2E_WORK/store.txt"
find "$d" -type f ! -name '*.tar.zst' -exec cat {} + >>"$E2E_WORK/store.txt"
if grep -q "$canary" "$E2E_WORK/store.txt" "$(e2e_fetched_text "$F")"; then
	e2e_fail "the root-only file reached the evidence"
fi
assert_match '^denied ' "$(e2e_cov n1 job_output)" "job output coverage"
assert_match '^denied ' "$(e2e_cov n1 user_logs)" "--postmortem-logs coverage"
