#!/bin/bash
# e2e-timeout: 180
# Issue 7: "the plugin under every fault still changes nothing about the job's own result".
# The fault tests t-50..t-56 assert the job's State and ExitCode in sacct as fixed values;
# this test runs the same job shapes with the plugin off and checks that Slurm alone gives
# exactly those: the 2-node Python exception (t-50..t-54: FAILED 1:0), the GPU loss with
# NCCL timeouts (t-56: FAILED 15:0, or 134:0 when srun reports the abort first), and t-55's
# scripts' own exit codes (FAILED N:0, COMPLETED 0:0).
. "$(dirname "$0")/lib.sh"

e2e_plugin_off
res() { sacct -n -X -P -j "$1" -o State,ExitCode | tr '|' ' '; }
e2e_train_py >/dev/null
script=$(e2e_batch job.sh)
a=$(e2e_submit exc -N2 -n2 --ntasks-per-node=1 -w 'n[1-2]' --export=ALL,PM_PLAN="1=exception;*=ok" "$script")
script2=$(e2e_batch job2.sh --kill-on-bad-exit=1)
b=$(e2e_submit nccl -N2 -n4 --ntasks-per-node=2 -w 'n[1-2]' \
	--export=ALL,PM_PLAN="0=timeout;1=timeout;2=hang;3=hang",PM_WD=6 "$script2")
script3=$(e2e_script job3.sh <<'SH'
#!/bin/bash
echo "pm-e2e-job $PM_I ends with $PM_RC"
exit $PM_RC
SH
)
c=$(e2e_submit rc7 -N2 -n2 --ntasks-per-node=1 --mem=40M -w 'n[2-3]' --export=ALL,PM_I=1,PM_RC=2 "$script3")
z=$(e2e_submit rc0 -N1 -n1 --mem=40M -w n1 --export=ALL,PM_I=7,PM_RC=0 "$script3")
for j in "$a" "$b" "$c" "$z"; do e2e_wait_job "$j"; done
assert_eq "FAILED 1:0" "$(res "$a")" "without the plugin: the 2-node exception"
assert_match "^FAILED (15|134):0$" "$(res "$b")" "without the plugin: the NCCL timeouts"
assert_eq "FAILED 2:0" "$(res "$c")" "without the plugin: exit 2"
assert_eq "COMPLETED 0:0" "$(res "$z")" "without the plugin: exit 0"
for j in "$a" "$b" "$c" "$z"; do e2e_log "job $j: $(e2e_result "$j" | paste -sd ';')"; done
