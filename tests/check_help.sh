#!/bin/bash
# check_help.sh - `postmortem VERB --help` (and `postmortem help VERB`, and --help after other
# arguments) prints the verb's usage and exits 0 for every verb of the table; unknown verbs
# exit 2.  Then the bash completion (contrib/bash-completion/postmortem) offers every verb,
# each verb's options, and the values of a few options.
set -u
: "${PM_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${PM_BUILDDIR:=$PM_SRCDIR}"
export LC_ALL=C
cli=$PM_BUILDDIR/cli/postmortem
fail=0

verbs=$("$cli" --help | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p')
[ -n "$verbs" ] || { echo "postmortem --help lists no verbs"; exit 1; }
for v in $verbs; do
	for args in "$v --help" "$v -h" "help $v" "$v x --help"; do
		out=$("$cli" $args 2>&1)
		rc=$?
		if [ $rc != 0 ] || ! head -n 1 <<<"$out" | grep -q "^usage: postmortem $v"; then
			echo "postmortem $args: exit $rc, printed: $(head -n 2 <<<"$out")"
			fail=1
		fi
	done
done
"$cli" nosuchverb >/dev/null 2>&1
[ $? = 2 ] || { echo "an unknown verb does not exit 2"; fail=1; }
"$cli" --help >/dev/null 2>&1 || { echo "postmortem --help does not exit 0"; fail=1; }

# the completion, in a plain bash without bash-completion
comp=$PM_SRCDIR/contrib/bash-completion/postmortem
complete_words() { # the completions of the command line "$*" (the last word is completed)
	bash --norc --noprofile -c '
		postmortem() { "$PM_CLI" "$@"; }
		source "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_postmortem
		printf "%s\n" "${COMPREPLY[@]}"' _ "$comp" "$@"
}
export PM_CLI=$cli
got=$(complete_words postmortem "" | sort | tr '\n' ' ')
for v in $verbs; do
	grep -qw -- "$v" <<<"$got" || { echo "completion: verb $v not offered (got: $got)"; fail=1; }
done
expect_completion() { # WANT WORDS...
	local want=$1 got
	shift
	got=$(complete_words "$@" | tr '\n' ' ')
	grep -qw -- "$want" <<<"$got" || { echo "completion of '$*': $want not offered (got: $got)"; fail=1; }
}
expect_completion --recent postmortem doctor --re
expect_completion --slurm-conf postmortem doctor --sl
expect_completion --json postmortem diagnose --
expect_completion -o postmortem fetch 42 -
expect_completion check postmortem rules ""
expect_completion verify postmortem ledger ""
expect_completion retry-exclude-node postmortem ledger record 42 --action retry-
expect_completion man postmortem diagnose --rules "$PM_SRCDIR/ma"
expect_completion doctor postmortem help do
expect_completion --cutoff postmortem drill 42 --cu
expect_completion merge postmortem drill 42 --cutoff m
expect_completion --timeline postmortem show 42 --ti
expect_completion --ledger postmortem ledger show --le
expect_completion --head postmortem ledger verify --he
expect_completion drain postmortem ledger record 42 --action dr
expect_completion run-diagnostics postmortem ledger record 42 --action run-

# every option of every verb's usage: in the manual, and one that takes a value has a case
# for its value in the completion (so that it is not completed as a verb's option)
man1=$PM_SRCDIR/man/postmortem.1.in
manwords=$(sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$man1")
for v in $verbs; do
	"$cli" "$v" --help | head -n 1 | grep -o -- '--[a-z][a-z-]*\( [A-Z][A-Za-z|.]*\)\{0,1\}' | sort -u |
		while read -r opt val; do
			grep -q -- "$opt\b" <<<"$manwords" || echo "postmortem.1 does not document $v $opt"
			[ -z "$val" ] || grep -Eq -- "^[[:space:]]*(.* \| )?$opt( \|.*)?\)\$" "$comp" ||
				echo "completion: no case for the value of $v $opt $val"
		done
done >"${TMPDIR:-/tmp}/check_help.$$"
if [ -s "${TMPDIR:-/tmp}/check_help.$$" ]; then cat "${TMPDIR:-/tmp}/check_help.$$"; fail=1; fi
rm -f "${TMPDIR:-/tmp}/check_help.$$"

[ $fail = 0 ] && echo "--help: $(wc -w <<<"$verbs") verbs; bash completion: verbs, options, values"
exit $fail
