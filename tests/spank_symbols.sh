#!/bin/sh
# spank_symbols.sh - postmortem.so exports only plugin_*, slurm_spank_* and
# spank_plugin_version, needs nothing but libc and the spank_*/slurm_* functions of the
# process that loads it, and is not linked against libslurm.
set -u
so="${PM_BUILDDIR:-.}/spank/.libs/postmortem.so"
[ -f "$so" ] || { echo "no $so"; exit 99; }
command -v nm >/dev/null || { echo "no nm"; exit 77; }
fail=0

defined=$(nm -D --defined-only "$so" | awk '{print $NF}')
for s in $defined; do
	case "$s" in
	plugin_*|slurm_spank_*|spank_plugin_version) ;;
	*) echo "exported but should not be: $s"; fail=1 ;;
	esac
done
for s in plugin_name plugin_type plugin_version spank_plugin_version slurm_spank_init \
	slurm_spank_init_post_opt slurm_spank_task_init slurm_spank_task_post_fork \
	slurm_spank_task_exit slurm_spank_exit slurm_spank_job_epilog; do
	echo "$defined" | grep -qx "$s" || { echo "not exported: $s"; fail=1; }
done

# undefined, not weak, not versioned by a system library: must come from the Slurm host
for s in $(nm -D --undefined-only "$so" | awk '$1 == "U" && $2 !~ /@/ {print $2}'); do
	case "$s" in
	spank_*|slurm_*) ;;
	*) echo "needs a symbol outside libc and Slurm: $s"; fail=1 ;;
	esac
done
for s in $(nm -D --undefined-only "$so" | awk '$1 == "U" && $2 ~ /@/ {print $2}'); do
	case "$s" in
	*@GLIBC_*) ;;
	*) echo "needs a library other than libc: $s"; fail=1 ;;
	esac
done

if command -v readelf >/dev/null; then
	needed=$(readelf -d "$so" | awk '/NEEDED/ {print $NF}')
	for n in $needed; do
		case "$n" in
		"[libc.so."*) ;;
		*) echo "linked against $n"; fail=1 ;;
		esac
	done
fi
[ $fail = 0 ] && echo "postmortem.so: $(echo "$defined" | wc -l) exported symbols, all expected"
exit $fail
