#!/bin/bash
# e2e-timeout: 180
# Issue 15, time bounds evidence: the same old Xid 79 in n2's kernel log (90 s before the
# job), and this job's ranks on n2 fail at CUDA start-up (CUDA's "unknown error") while
# n1's ranks wait and are killed.  The old event explains this job's own failure on its
# node: n2 leads, `why` gives the event's age, and it is not established (it predates the
# job).
. "$(dirname "$0")/lib.sh"

e2e_pm_on
e2e_train_py >/dev/null
script=$(e2e_script job.sh <<EOF2
#!/bin/bash
srun -l --kill-on-bad-exit=1 bash -c 'if [ "\$SLURMD_NODENAME" = n2 ]; then
	echo "RuntimeError: CUDA error: unknown error"
	echo "CUDA kernel errors might be asynchronously reported at some other API call"
	exit 1
fi
exec /usr/bin/python3 $E2E_WORK/train.py'
EOF2
)
e2e_klog_ago 90 n2 "NVRM: Xid (PCI:0000:3b:00): 79, pid=1911, name=python3, GPU has fallen off the bus."
job=$(e2e_submit main -N2 -n4 --ntasks-per-node=2 -w 'n[1-2]' \
	--export=ALL,PM_PLAN="*=timeout",PM_WD=8 "$script")
e2e_wait_job "$job"
e2e_wait_verdict "$job"
e2e_pm_check "$job"

assert_contains "$E2E_WORK/main.out" "CUDA error: unknown error" "n2's ranks failed at CUDA start-up"
assert_v '.status == "attributed"'
assert_v '.cause.class == "gpu_hardware"'
assert_v '.origin.nodes == ["n2"]' "n2 leads"
assert_v '.confidence != "established"' "not established: the event predates the job"
assert_v '[.why[] | select(test("^n2 logged Xid 79") and test("[0-9]+ s before this job began") and test("explains"))] | length == 1' "the age said, and what it explains"
