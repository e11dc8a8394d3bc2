#!/bin/bash
# check-man.sh SIGCRAWL SRCROOT MAN1 MAN5 — the manual pages cannot drift
# from the program and its shipped config:
#
#  - both built pages render with groff (and man -l, when man is there)
#    without a warning;
#  - every command that `sigcrawl --help` lists has its subsection
#    "sigcrawl COMMAND" in sigcrawl(1), and every flag that the command's
#    --help prints appears in that subsection (--help and -h in OPTIONS,
#    which says every command takes them);
#  - every flag of `sigcrawl --help` itself (--help, --version) is an item
#    of OPTIONS;
#  - every key of packaging/sigcrawl.conf, those shown as comments
#    included, is an item ("key = ...") of its section in
#    sigcrawl.conf(5) ([category NAME] for the categories).
#
# The pages are read as rendered (groff -Tascii, no hyphenation, long
# lines), the way a reader sees them.  A flag is matched whole: --max-pages
# is not found in --max-pages-per-host.  The script fails when it checked
# no command, no flag or no key: a check that sees nothing passes nothing.
set -u
if [ $# -ne 4 ]; then
	echo "usage: $0 SIGCRAWL SRCROOT MAN1 MAN5" >&2
	exit 2
fi
sigcrawl=$1
src=$2
man1=$3
man5=$4
. "$(dirname "$0")/lib.sh"

# render PAGE OUT: plain text, one paragraph a line as far as 250 columns
# go, no hyphenation; groff's warnings (all of them) into OUT.err.
render()
{
	groff -man -Tascii -rLL=250n -rHY=0 -P-cbou -ww "$1" >"$2" 2>"$2.err"
}

for page in "$man1" "$man5"; do
	name=$(basename "$page")
	check_true "$name is built" test -s "$page"
	render "$page" "$tmp/$name.txt"
	check_true "$name renders with groff (exit 0)" test $? -eq 0
	check_true "$name renders without a groff warning" test ! -s "$tmp/$name.txt.err"
	[ -s "$tmp/$name.txt.err" ] && sed 's/^/      /' "$tmp/$name.txt.err"
	groff -man -Tutf8 -z -wall "$page" >"$tmp/utf8.err" 2>&1
	check_true "$name: groff -Tutf8 -z -wall says nothing" test ! -s "$tmp/utf8.err"
	[ -s "$tmp/utf8.err" ] && sed 's/^/      /' "$tmp/utf8.err"
	if command -v man >/dev/null 2>&1; then
		MANWIDTH=80 man -l "$page" >"$tmp/man.out" 2>"$tmp/man.err"
		check_true "$name: man -l renders it" test -s "$tmp/man.out"
		check_true "$name: man -l says nothing on stderr" test ! -s "$tmp/man.err"
	fi
done
text1=$tmp/$(basename "$man1").txt
text5=$tmp/$(basename "$man5").txt

# section FILE START: the lines of FILE from the one equal to START to the
# next heading (a line at column 0, or a subsection at column 3).
section()
{
	awk -v start="$2" '
		$0 == start { on = 1; next }
		on && /^[^ ]/ { exit }
		on && /^   [^ ]/ { exit }
		on { print }' "$1"
}

# has_flag FLAG FILE: FLAG appears whole in FILE.
has_flag()
{
	grep -Eq -- "(^|[^A-Za-z0-9-])$1([^A-Za-z0-9-]|$)" "$2"
}

# flags_of FILE: the flags a --help text names, one per line: --long and
# -x (a lower-case letter first) after a blank, a bracket, a bar or a
# parenthesis: not "+step,-step", "'-'" or the step table's "-EA".
flags_of()
{
	grep -oE -- "(^|[][ |(])--?[a-z][A-Za-z0-9-]*" "$1" |
		sed -E 's/^[][ |(]//' | sort -u
}

# OPTIONS of sigcrawl(1): --help and --version of `sigcrawl --help`, and
# the -h and --help that every command takes.
section "$text1" "OPTIONS" >"$tmp/options"
"$sigcrawl" --help >"$tmp/help" 2>&1
check_true "sigcrawl --help exits 0" test $? -eq 0
flags=0
for f in $(flags_of "$tmp/help"); do
	flags=$((flags + 1))
	check_true "sigcrawl(1) OPTIONS has $f" \
		grep -Eq -- "^       (-[-A-Za-z]*, )*$f(,| |\$)" "$tmp/options"
done

# The commands: those `sigcrawl --help` lists under "commands:".
awk '/^commands:/ { on = 1; next } on && /^$/ { exit }
     on { print $1 }' "$tmp/help" >"$tmp/commands"
commands=0
while read -r cmd; do
	commands=$((commands + 1))
	section "$text1" "   sigcrawl $cmd" >"$tmp/sect"
	check_true "sigcrawl(1) has a subsection for $cmd" test -s "$tmp/sect"
	"$sigcrawl" "$cmd" --help >"$tmp/cmdhelp" 2>&1
	check_true "sigcrawl $cmd --help exits 0" test $? -eq 0
	n=0
	for f in $(flags_of "$tmp/cmdhelp"); do
		n=$((n + 1))
		flags=$((flags + 1))
		case $f in
		-h | --help) where=$tmp/options ;;
		*) where=$tmp/sect ;;
		esac
		check_true "sigcrawl(1) documents $cmd $f" has_flag "$f" "$where"
	done
	check_true "sigcrawl $cmd --help names flags ($n)" test "$n" -gt 0
done <"$tmp/commands"

# The keys of the shipped config, by section; a commented-out key or
# section header ("# [cluster]", "# proxy = ...") counts as one.
awk '
	/^[#;]?[ \t]*\[[a-z]+( [^]]*)?\][ \t]*$/ {
		s = $0; sub(/^[#;]?[ \t]*\[/, "", s); sub(/[] ].*/, "", s)
		sect = s; next
	}
	sect != "" && /^[#;]?[ \t]*[a-z_]+[ \t]*=/ {
		k = $0; sub(/^[#;]?[ \t]*/, "", k); sub(/[ \t]*=.*/, "", k)
		print sect, k
	}' "$src/packaging/sigcrawl.conf" | sort -u >"$tmp/keys"
keys=0
while read -r sect key; do
	keys=$((keys + 1))
	heading="[$sect]"
	[ "$sect" = category ] && heading="[category NAME]"
	section "$text5" "$heading" >"$tmp/sect"
	check_true "sigcrawl.conf(5) documents [$sect] $key" \
		grep -Eq "^       $key = " "$tmp/sect"
done <"$tmp/keys"

check_true "commands checked ($commands)" test "$commands" -gt 0
check_true "flags checked ($flags)" test "$flags" -gt 0
check_true "config keys checked ($keys)" test "$keys" -gt 0
finish
