#!/bin/bash
# build-deb.sh [OUTDIR] — build the Debian package sigcrawl_VERSION_ARCH.deb
# from this checkout and put it in OUTDIR (default: the current directory);
# print the .deb's path.
#
# dpkg-buildpackage wants debian/ at the root of the source tree and
# writes its results beside that tree, so the build runs in a scratch copy:
# the files git tracks (as they are in the working tree; every file when
# this is not a git checkout, without .git and build directories), with
# packaging/debian copied to debian/.  The checkout itself is not touched.
# Needs the packages of packaging/build-deps.txt and debhelper, dpkg-dev and
# fakeroot (packaging/test-deps.txt).  JOBS (default: auto) is passed to
# dpkg-buildpackage -J; KEEP=1 keeps the scratch directory.
set -u
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd) || exit 1
out=${1:-.}
mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 1

version=$(dpkg-parsechangelog -l "$root/packaging/debian/changelog" -S Version) || exit 1
work=$(mktemp -d "${TMPDIR:-/tmp}/sigcrawl-deb.XXXXXX") || exit 1
if [ -n "${KEEP:-}" ]; then
	echo "build-deb: keeping $work" >&2
else
	trap 'rm -rf "$work"' EXIT
fi
src=$work/sigcrawl-$version
mkdir "$src" || exit 1

if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	# Tracked files that still exist (one deleted in the working tree is
	# left out, as the next commit would leave it).
	(cd "$root" && git ls-files -z --cached | while IFS= read -r -d '' f; do
		[ -e "$f" ] && printf '%s\0' "$f"
	done | tar --null -T - -cf -) | tar -xf - -C "$src" || exit 1
else
	(cd "$root" && tar --exclude=./.git --exclude='./build*' --exclude='./obj-*' \
		--exclude=./debian -cf - .) | tar -xf - -C "$src" || exit 1
fi
rm -rf "$src/debian"
cp -a "$src/packaging/debian" "$src/debian" || exit 1

# The test harness's allocator poisoning (meson test sets MALLOC_PERTURB_)
# only slows the compilers down.
unset MALLOC_PERTURB_
command -v dh >/dev/null 2>&1 || {
	echo "build-deb: debhelper is missing (apt-get install debhelper)" >&2
	exit 1
}
if ! (cd "$src" && dpkg-buildpackage -b -us -uc -J"${JOBS:-auto}") >"$work/build.log" 2>&1; then
	tail -n 40 "$work/build.log" >&2
	echo "build-deb: dpkg-buildpackage failed (the log: $work/build.log${KEEP:+, kept})" >&2
	exit 1
fi
debs=("$work"/sigcrawl_"$version"_*.deb)
if [ ! -f "${debs[0]}" ]; then
	echo "build-deb: dpkg-buildpackage made no sigcrawl_${version}_*.deb" >&2
	exit 1
fi
for d in "${debs[@]}"; do
	cp "$d" "$out/" || exit 1
	echo "$out/$(basename "$d")"
done
