#!/bin/sh
# check_man.sh - the manuals render without one groff warning (man --warnings), and they cover
# what exists: every verb of the command's table in postmortem(1), every plugstack argument
# and extra of plugstack/args.c in postmortem.so(8), every option of the collector and every
# configuration key and source of store/config.c in postmortem-epilog(8), every field of
# the verdict schema in postmortem-verdict(7), every key a rule may hold in
# postmortem-rules(5), every class of the taxonomy in the rules and
# verdict pages.
set -u
: "${PM_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${PM_BUILDDIR:=$PM_SRCDIR}"
export LC_ALL=C.UTF-8
command -v man >/dev/null 2>&1 || { echo "no man (Debian: man-db, groff-base): skipped"; exit 77; }
man=$PM_BUILDDIR/man
fail=0

for page in postmortem.1 postmortem-epilog.8 postmortem.so.8 postmortem-rules.5 postmortem-verdict.7; do
	f=$man/$page
	[ -f "$f" ] || { echo "$page: missing (configure makes it from $page.in)"; fail=1; continue; }
	err=$(man --warnings -E UTF-8 -l -Tutf8 -Z "$f" 2>&1 >/dev/null)
	if [ -n "$err" ]; then
		echo "$page: groff warnings:"
		echo "$err" | sed 's/^/    /'
		fail=1
	fi
	if grep -n '@[A-Z_]*@' "$f" >/dev/null; then
		echo "$page: an unsubstituted @VARIABLE@"
		fail=1
	fi
done

# the roff source as plain words: \- is -, font escapes gone
plain() { sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\(em/--/g' "$1"; }
need() { # PAGE WHAT PATTERN
	if ! plain "$man/$1" | grep -Eq -- "$3"; then
		echo "$1: does not document $2"
		fail=1
	fi
}

# postmortem(1): every verb in the table of cli/main.c, as printed by --help
verbs=$("$PM_BUILDDIR/cli/postmortem" --help | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p')
[ -n "$verbs" ] || { echo "postmortem --help lists no verbs"; fail=1; }
for v in $verbs; do
	need postmortem.1 "the verb $v" "^\\.SS \"?$v( |\"|\$)"
done

# postmortem.so(8): every plugstack argument and extra, and the user options
for k in $(sed -n 's/^[[:space:]]*\[K_[A-Z_]*\][[:space:]]*= { "\([a-z_]*\)".*/\1/p' "$PM_SRCDIR/plugstack/args.c"); do
	need postmortem.so.8 "the argument $k=" "^\\.BI $k="
done
for x in $(sed -n 's/^[[:space:]]*{ "\([a-z_]*\)", PM_EXTRA_.*/\1/p' "$PM_SRCDIR/plugstack/args.c"); do
	need postmortem.so.8 "the extra $x" "^\\.B $x\$"
done
for o in --postmortem=off --postmortem-logs= PrologEpilogTimeout AccountingStoreFlags=job_comment; do
	need postmortem.so.8 "$o" "$o"
done

# postmortem-epilog(8): every option of the collector, every configuration key and source
opts=$("$PM_BUILDDIR/epilog/postmortem-epilog" --help | grep -o -- '--[a-z-]*' | sort -u)
for o in $opts --help --version; do
	need postmortem-epilog.8 "the option $o" "^\\.(B|BI|BR) $o( |\$)"
done
top=$(sed -n '/^static int top(/,/^}/p' "$PM_SRCDIR/store/config.c" | grep -o 'strcmp(k, "[a-z_]*")' |
	sed 's/.*"\(.*\)".*/\1/')
for k in $(sed -n 's/^[[:space:]]*{"\([a-z_]*\)", K_[A-Z]*,.*/\1/p' "$PM_SRCDIR/store/config.c") $top; do
	need postmortem-epilog.8 "the key $k:" "(^\\.BI? $k:|$k:)"
done
for s in $(sed -n 's/.*\[PM_CS_[A-Z_]*\] = "\([a-z_]*\)".*/\1/p' "$PM_SRCDIR/store/config.c"); do
	need postmortem-epilog.8 "the source $s" "^$s	"
done
for k in command path paths cap timeout enabled; do
	need postmortem-epilog.8 "the source key $k" "^\\.B $k\$"
done

# postmortem-verdict(7): every field the schema requires, at the top and in evidence/coverage
if command -v python3 >/dev/null 2>&1; then
	fields=$(python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
p = s["properties"]
out = set(s["required"]) | set(p["evidence"]["items"]["required"]) | set(p["coverage"]["items"]["properties"])
out |= set(p["candidates"]["items"]["required"]) | set(p["decision"]["required"])
print("\n".join(sorted(out)))' "$PM_SRCDIR/schema/verdict.schema.json")
	for k in $fields; do
		need postmortem-verdict.7 "the field $k" "^\\.(B|BR|TP) $k( |\$)|^\\.B $k\$"
	done
fi
# postmortem-rules(5): every key a rule may hold (parse_rule's table in engine/rules.c)
keys=$(sed -n '/^static int parse_rule(/,/NULL};/p' "$PM_SRCDIR/engine/rules.c" | grep -o '"[a-z_]*"' | tr -d '"')
[ -n "$keys" ] || { echo "engine/rules.c: parse_rule's key table not found"; fail=1; }
for k in $keys; do
	need postmortem-rules.5 "the rule key $k" "^\\.BR? $k( |\$)"
done
for c in gpu_hardware nvlink network_fabric host_hardware storage resource_limit application \
	launch_config communication_unattributed external; do
	need postmortem-verdict.7 "the class $c" "^$c	"
	need postmortem-rules.5 "the class $c" "^$c	"
done

[ $fail = 0 ] && echo "manuals: no groff warning, every verb, argument, option, key and field documented"
exit $fail
