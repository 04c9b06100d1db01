#!/bin/bash
# e2e-timeout: 150
# Compressed user logs pass the redactor too (issue 13, item 2).  A job names, with
# --postmortem-logs, a gzip file and a zstd file holding tokens (one right after a colour
# code, one in a mysql command line, one in the CUDA error line the verdict cites), an xz
# file and a gzip file compressed twice.  The gzip and zstd files reach the bundle as their
# redacted text (the manifest counts the redactions, the member lost its .gz/.zst name); the
# two the collector cannot read as text are not archived (denied, the format named in
# coverage).  No token is in any bundle, the verdict, `postmortem show` or the fetched copy.
. "$(dirname "$0")/lib.sh"

hf=hf_Qm7rT2vX9kL4pN8sW3yB6cF1hJ5dG0zAeUo
gh=ghp_Zq8Xw2Ev5Rt7Yu1Io3Pa9Sd4Fg6Hj0KlMnBv
ak=AKIA7Q2W4E6R8T0Y3U5I
my=Tr0ub4dor-e2e-65
xzs=xz_only_8Kd2Lq9Vm4Pw7Rt
{
	printf '#!/bin/bash\ncd %q\n' "$E2E_WORK"
	cat <<JOB
text() {
	printf 'step 1 loss 2.31 lr 3e-4\n'
	printf 'export HF_TOKEN=$hf\n'
	printf 'loading credentials: \033[32m$ak\033[0m from the environment\n'
	printf '+ mysql -u etl -p$my -h db01 metrics\n'
	printf 'RuntimeError: CUDA error: an illegal memory access was encountered (auth $gh)\n'
}
text | gzip -c >train.log.gz
text | zstd -q -c >train.log.zst
printf 'secret in xz: $xzs\n' | xz -c >other.log.xz
printf 'secret twice packed: $xzs\n' | gzip -c | gzip -c >twice.log.gz
echo "rank 0 failed, see the logs"
exit 1
JOB
} | e2e_script job.sh >/dev/null
chown "$E2E_USER:$E2E_USER" "$E2E_WORK"
e2e_pm_on
logs="$E2E_WORK/train.log.gz,$E2E_WORK/train.log.zst,$E2E_WORK/other.log.xz,$E2E_WORK/twice.log.gz"
job=$(e2e_submit main -N1 -n1 -w n1 --postmortem-logs="$logs" "$E2E_WORK/job.sh")
e2e_wait_job "$job"
e2e_wait_verdict "$job"
e2e_pm_check "$job"

d=$(e2e_jobdir "$job")
b=$d/nodes/n1.tar.zst
all=$(e2e_fetched_text "$F")
zstdcat "$b" | tar -xOf - >"$E2E_WORK/store.txt"
find "$d" -type f ! -name '*.tar.zst' -exec cat {} + >>"$E2E_WORK/store.txt"
cat "$all" "$E2E_WORK/show.$job.0.txt" "$V" >>"$E2E_WORK/store.txt"
for s in "$hf" "$gh" "$ak" "$my" "$xzs"; do
	if grep -qF -- "$s" "$E2E_WORK/store.txt"; then e2e_fail "${s:0:8}... reached the store, the verdict or show"; fi
done
e2e_log "none of 5 tokens in the bundle, the verdict, show or the fetched copy"

# the two files are in the bundle as text, under names without .gz/.zst, redacted
zstdcat "$b" | tar -xOf - manifest.json >"$E2E_WORK/manifest.json"
for m in 0-train.log 1-train.log; do
	assert_json "$E2E_WORK/manifest.json" \
		'[.[0].files[] | select(.path == "sources/user_logs/" + $m)] | length == 1 and .[0].redacted >= 4' \
		"$m is in the bundle with its redactions" --arg m "$m"
	zstdcat "$b" | tar -xOf - "sources/user_logs/$m" >"$E2E_WORK/$m"
	assert_contains "$E2E_WORK/$m" "step 1 loss 2.31" "$m holds the text"
	assert_contains "$E2E_WORK/$m" "-p[REDACTED:db_password] -h db01" "$m: the mysql password redacted"
	assert_contains "$E2E_WORK/$m" $'\033[32m[REDACTED:aws_access_key_id]\033[0m' "$m: the key after a colour code redacted"
done
# the verdict cites the CUDA error line, redacted
assert_json "$V" '[.[0].evidence[].line | select(test("illegal memory access"))] | length >= 1 and all(test("REDACTED:github_token"))' \
	"the verdict's evidence line from the compressed log, redacted"
# what cannot be read as text is not archived, and coverage says why
if zstdcat "$b" | tar -tf - | grep -E 'other|twice'; then e2e_fail "the xz or twice-packed file is in the bundle"; fi
assert_json "$E2E_WORK/manifest.json" \
	'.[0].coverage[] | select(.source == "user_logs") | .status == "denied" and (.reason | test("xz data|gzip data") and test("cannot redact"))' \
	"user_logs coverage: denied, the format named"
e2e_log "coverage: $(jq -r '.coverage[] | select(.source == "user_logs") | .reason' "$E2E_WORK/manifest.json")"
