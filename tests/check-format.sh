#!/bin/sh
# check-format.sh SRCROOT — fail if a C file under SRCROOT differs from what
# clang-format makes of it with the project's .clang-format.
#
# The files are the tracked and the untracked-but-not-ignored *.c and *.h of
# the git checkout (so a new file is checked before it is added), or, when
# SRCROOT is not a git checkout (a tarball), every *.c and *.h found under
# it.  Build directories (build*/) are skipped either way.
#
# Exit status: 0 when every file is formatted, 1 otherwise (the files are
# listed with their first few differences), 2 on bad usage.
set -u

if [ $# -ne 1 ] || [ ! -d "$1" ]; then
	echo "usage: $0 SRCROOT" >&2
	exit 2
fi
root=$1

CLANG_FORMAT=${CLANG_FORMAT:-}
if [ -z "$CLANG_FORMAT" ]; then
	for c in clang-format clang-format-14; do
		if command -v "$c" >/dev/null 2>&1; then
			CLANG_FORMAT=$c
			break
		fi
	done
fi
if [ -z "$CLANG_FORMAT" ]; then
	echo "check-format: clang-format not found" >&2
	exit 1
fi
# Without the project's style file clang-format would silently check
# against its own default style.
if [ ! -f "$root/.clang-format" ]; then
	echo "check-format: $root/.clang-format is missing" >&2
	exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-format.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

# One path per line, relative to SRCROOT.  (A C file with a newline in its
# name would be a mistake of its own.)
if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
	git -C "$root" ls-files -co --exclude-standard -- '*.c' '*.h' \
		>"$tmp/all" 2>/dev/null; then
	how="git ls-files"
else
	(cd "$root" && find . -name 'build*' -type d -prune -o -name .git -prune \
		-o -type f \( -name '*.c' -o -name '*.h' \) -print) |
		sed 's|^\./||' >"$tmp/all"
	how="find"
fi
# Skip build directories at any depth, and files listed by git but deleted
# from the work tree.
grep -Ev '(^|/)build[^/]*/' "$tmp/all" | sort -u >"$tmp/list"

checked=0
bad=0
: >"$tmp/bad"
while IFS= read -r f; do
	[ -f "$root/$f" ] || continue
	checked=$((checked + 1))
	if ! (cd "$root" && "$CLANG_FORMAT" --style=file --dry-run --Werror \
		"$f") >"$tmp/out" 2>&1; then
		bad=$((bad + 1))
		echo "$f" >>"$tmp/bad"
		echo "not formatted: $f"
		# The first three places, "file:line:col: error: ...".
		grep -E ':[0-9]+:[0-9]+: ' "$tmp/out" | head -n 3 | sed 's/^/    /'
	fi
done <"$tmp/list"

version=$("$CLANG_FORMAT" --version 2>/dev/null | head -n 1)
if [ "$checked" -eq 0 ]; then
	echo "check-format: no C files found under $root ($how)" >&2
	exit 1
fi
echo "check-format: $checked files checked ($how; $version), $bad not formatted"
if [ "$bad" -ne 0 ]; then
	echo "fix with: (cd $root && $CLANG_FORMAT -i $(paste -sd ' ' "$tmp/bad"))"
	exit 1
fi
exit 0
