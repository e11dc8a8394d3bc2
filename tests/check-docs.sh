#!/bin/bash
# check-docs.sh SRCROOT — the docs are for users and the comments say what
# the code does, not which ticket asked for it:
#
#   - every page docs/*.md has at most MAX_LINES lines (a page says what a
#     feature does, how to set it, what it achieves, its limits; the record
#     of experiments lives in docs/lab/, which users need not read);
#   - no file of the tree but docs/lab/ names an issue by its number
#     (the word and a number, also across a comment's line break) or an
#     experiment's pass (a number's ordinal pass).
#
# The files are every text file under SRCROOT but .git/, docs/lab/ and
# build directories (those with a meson-private/).  The check first proves
# its own patterns on lines that must match and lines that must not, so
# that a broken pattern fails instead of passing everything.
set -u
root=${1:?usage: check-docs.sh SRCROOT}
cd "$root" || exit 1
MAX_LINES=300
bad=0

# The patterns, in Perl, applied to a file's text with each line break and
# the comment leader after it (" * ", "# ", "// ") folded into one space.
scan='
	BEGIN { $/ = undef }
	my $t = $_;
	$t =~ s/\n[ \t]*(?:\*(?!\/)|#|\/\/|;|--)?[ \t]*/ /g;
	my $n = 0;
	while ($t =~ /(\bissues?\s+#?[0-9]+(?:\s+and\s+[0-9]+)?\b|\b[0-9]+\x27s\s+(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|[0-9]+(?:st|nd|rd|th))\s+pass\b)/gi) {
		print "$ARGV: \"$1\"\n";
		$n++;
	}
	exit($n ? 1 : 0);
'

# The patterns can fail: these must be found ...
# (Written in pieces, so that this file does not match itself.)
for s in "the cost (iss""ue 36)." "iss""ues 33 and 36" $'see iss'$'ue\n * 35 for' \
	"docs/bench.md, 36's four""th pass"; do
	if printf '%s\n' "$s" | perl -ne "$scan" >/dev/null; then
		echo "check-docs: the pattern misses \"$s\""
		exit 1
	fi
done
# ... and these must not.
for s in "UTS #46 table" "the second pass writes" "tissue 3" \
	"issued 4 requests"; do
	if ! printf '%s\n' "$s" | perl -ne "$scan" >/dev/null; then
		echo "check-docs: the pattern wrongly matches \"$s\""
		exit 1
	fi
done

pages=0
for f in docs/*.md; do
	[ -e "$f" ] || continue
	pages=$((pages + 1))
	n=$(wc -l <"$f")
	if [ "$n" -gt $MAX_LINES ]; then
		echo "check-docs: $f has $n lines (over $MAX_LINES): move the record of experiments to docs/lab/"
		bad=$((bad + 1))
	fi
done
if [ "$pages" -eq 0 ]; then
	echo "check-docs: no page in docs/"
	exit 1
fi

files=0
while IFS= read -r -d '' f; do
	case $f in
	*.png | *.jpg | *.gz | *.ico) continue ;;
	esac
	grep -Iq . "$f" 2>/dev/null || continue # binary or empty
	files=$((files + 1))
	if ! perl -ne "$scan" "$f"; then
		bad=$((bad + 1))
	fi
done < <(find . \( -name .git -o -path ./docs/lab \
	-o -exec test -d '{}/meson-private' \; \) -prune -o -type f -print0)

echo "check-docs: $pages pages, $files files, $bad problems"
[ "$files" -gt 0 ] && [ "$bad" -eq 0 ]
