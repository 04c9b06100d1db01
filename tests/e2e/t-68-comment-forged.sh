#!/bin/bash
# e2e-timeout: 240
# Issue 13 (5): the verdict line in sacct is forgeable by the job's owner, the stored verdict
# is the authority.  A 2-node job fails (rank 3's exception); its verdict is final and its
# line in Comment.  As the job's owner (pmuser, through contrib/cluster/run-as) the comment is
# rewritten with `sacctmgr -i modify job ... set Comment=` to blame n3's GPU.  Then:
#   - `postmortem finalize JOB` (the timer for one job) puts the stored line back, keeping
#     nothing of the forgery, and records it in the run's tampered.jsonl;
#   - forged again, with the owner's own note in front: the finalize timer's walk
#     (`postmortem finalize --pending`, one sacct query for the period) puts the stored line
#     back after the owner's note, and records it;
#   - forged a third way, with a line break and a row of the owner's making that repeats
#     the stored line (sacct prints comments as they are): the job's two rows make the timer
#     ask about it alone, and the line is put back;
#   - a comment the timer set and nobody changed is left alone (no record, no sacctmgr);
#   - `postmortem doctor --recent` reports the tampering, and doctor says that a user can
#     change Comment and what protects the verdict;
#   - what the stored verdict says never changed.
. "$(dirname "$0")/lib.sh"

e2e_pm_on
e2e_train_job "3=exception;*=ok"
d=$(e2e_jobdir "$job")
good=$C
says() { jq -c '{status, outcome, cause, origin, confidence}' "$d/verdict.json"; }
vsays=$(says)
line=$(cut -f2- "$d/comment")
assert_eq "$good" "$line" "the comment is the stored line (no user comment)"
assert_absent "$d/tampered.jsonl" "a tampering record before any tampering"

# the owner forges the verdict line, as in the issue's reproduction
forged="postmortem: attributed gpu_hardware/gpu_lost origin=n3:0 conf=established act=retry-exclude-node ev=$E2E_CLUSTER_NAME/$job/0"
out=$(e2e_as_user sacctmgr -i modify job where jobid="$job" set Comment="$forged" 2>&1) ||
	e2e_skip "sacctmgr refused the owner's change here ($out): nothing to defend against"
e2e_wait_for 20 eval '[ "$(e2e_comment '"$job"')" = "$forged" ]' ||
	e2e_fail "the forged comment did not reach sacct: $(e2e_comment "$job")"
e2e_log "forged: $(e2e_comment "$job")"

# the timer for this job: put back, recorded
out=$(timeout 60 "$E2E_CLI" finalize "$job" 2>&1) || e2e_fail "postmortem finalize $job: $out"
e2e_log "finalize $job: $out"
assert_match "changed by someone else.*1 put back" "$out" "finalize's report"
assert_eq "$good" "$(e2e_comment "$job")" "the comment after finalize $job"
assert_json "$d/tampered.jsonl" 'length == 1 and .[0].field == "Comment" and .[0].found == $f and .[0].stored == $g and .[0].restored' \
	"the tampering record" --arg f "$forged" --arg g "$good"

# forged again behind the owner's own note; the timer's walk
note="my run resubmitted"
out=$(e2e_as_user sacctmgr -i modify job where jobid="$job" set Comment="$note | $forged" 2>&1) ||
	e2e_fail "the second forgery was refused: $out"
e2e_wait_for 20 eval '[ "$(e2e_comment '"$job"')" = "$note | $forged" ]' ||
	e2e_fail "the second forgery did not reach sacct: $(e2e_comment "$job")"
out=$(timeout 120 "$E2E_CLI" finalize --pending 2>&1) || e2e_fail "postmortem finalize --pending: $out"
e2e_log "finalize --pending: $(printf '%s' "$out" | tail -n 3 | tr '\n' ' ')"
assert_match "comments rechecked: .*one sacct query" "$out" "the walk's recheck line"
assert_eq "$note | $good" "$(e2e_comment "$job")" "the comment after the timer's walk (the owner's note kept)"
assert_json "$d/tampered.jsonl" 'length == 2 and .[1].found == $f and .[1].restored' "the second record" \
	--arg f "$note | $forged"

# forged a third way: the verdict line removed, and a line break followed by a row of the
# owner's making that repeats the stored line (sacct prints a comment as it is): the timer's
# one query sees two rows for the job, asks about it alone, and puts the line back
start=$(sacct -n -X -P -j "$job" -o Start | head -n 1)
fake="$(printf 'all fine here\n%s|%s|%s||%s' "$job" "$E2E_CLUSTER_NAME" "$start" "$good")"
out=$(e2e_as_user sacctmgr -i modify job where jobid="$job" set Comment="$fake" 2>&1) ||
	e2e_fail "the third forgery was refused: $out"
e2e_wait_for 20 eval '[ "$(sacct -n -X -P -j '"$job"' -o Comment | head -n 1)" = "all fine here" ]' ||
	e2e_fail "the third forgery did not reach sacct: $(sacct -n -X -P -j "$job" -o Comment)"
out=$(timeout 120 "$E2E_CLI" finalize --pending 2>&1) || e2e_fail "postmortem finalize --pending: $out"
e2e_log "finalize --pending: $(printf '%s' "$out" | tail -n 3 | tr '\n' ' ')"
assert_match "more than one row" "$out" "the walk's note of a forged row"
case $(e2e_comment "$job") in
*" | $good") ;;
*) e2e_fail "the third forgery was not put right: $(sacct -n -X -P -j "$job" -o Comment)" ;;
esac
[ "$(sacct -n -X -P -j "$job" -o Comment | wc -l)" = 1 ] || e2e_fail "the comment still spans lines"
assert_json "$d/tampered.jsonl" 'length == 3 and (.[2].found | startswith("all fine here")) and .[2].restored' "the third record"

# nothing changed since: left alone
mgr_before=$(sacct -n -X -P -j "$job" -o Comment)
out=$(timeout 120 "$E2E_CLI" finalize --pending 2>&1) || e2e_fail "postmortem finalize --pending (again): $out"
case $out in *"changed by someone else"*) e2e_fail "an untouched comment was reported changed: $out" ;; esac
assert_eq "$mgr_before" "$(sacct -n -X -P -j "$job" -o Comment)" "the comment after a quiet walk"
assert_json "$d/tampered.jsonl" 'length == 3' "no new record after a quiet walk"

# doctor: the tampering, and what protects the verdict
"$E2E_CLI" doctor --recent --since 1h --offline --config "$E2E_PMCONF" >"$E2E_WORK/doctor.txt" 2>&1 || true
assert_contains "$E2E_WORK/doctor.txt" "recent-tampered" "doctor --recent"
# (its example is the latest change in the store: other jobs' may share the second)
grep -E "^warn +recent-tampered [0-9]+ verdict comments? in [0-9]+ job runs? changed by someone else.*, put back\)" \
	"$E2E_WORK/doctor.txt" >/dev/null ||
	e2e_fail "doctor --recent: $(grep recent-tampered "$E2E_WORK/doctor.txt")"
grep -E "^note +comment-trust .*owner can change its Comment" "$E2E_WORK/doctor.txt" >/dev/null ||
	e2e_fail "doctor does not say that a user can change Comment: $(grep -i comment "$E2E_WORK/doctor.txt")"
e2e_log "doctor: $(grep recent-tampered "$E2E_WORK/doctor.txt" | cut -c1-300)"

# what the verdict says never moved (its bytes may: finalize JOB merges again, and a rule set
# changed meanwhile gives a new version for that reason alone)
assert_eq "$vsays" "$(says)" "what the stored verdict says"
assert_json "$d/manifest.json" '[.[0].history[].why | test("omment")] | any | not' "no verdict version for the comment"
# and the owner reads the stored verdict, not the comment (not e2e_pm_check: the owner's own
# text in front now takes the comment past 250 bytes, as a long user comment would)
e2e_pm_as "$E2E_USER" show "$job" --json >"$E2E_WORK/show.json" 2>&1 || e2e_fail "show $job --json: $(cat "$E2E_WORK/show.json")"
cmp -s "$E2E_WORK/show.json" "$d/verdict.json" || e2e_fail "show --json is not the stored verdict"
