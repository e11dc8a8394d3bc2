#!/bin/bash
# test-deb.sh SRCROOT — packaging/build-deb.sh builds the Debian package
# from the checkout (without touching it), and the .deb holds what it must:
# the executable, the systemd unit in Debian 12's /lib/systemd/system,
# /etc/sigcrawl/sigcrawl.conf as a conffile with its seeds, both manual
# pages, the docs; its control fields, shared-library Depends and the
# unit's enabling by dh_installsystemd, and no user of its own (the unit is
# a DynamicUser); lintian finds no error; extracted into a scratch root,
# the executable runs, the shipped config passes --check-config, and
# `systemd-analyze verify` finds nothing to say about the unit.
#
# It compiles the whole tree once (about a minute on two cores).
set -u
src=$1
. "$(dirname "$0")/lib.sh"
root=$tmp/root
arch=$(dpkg --print-architecture)

# The package's version is the project's (debian/changelog against
# meson.build's project()).
version=$(dpkg-parsechangelog -l "$src/packaging/debian/changelog" -S Version)
project=$(sed -n "s/^  version : '\([^']*\)',\$/\1/p" "$src/meson.build")
check_true "debian/changelog's version is meson.build's ($version, $project)" test -n "$version" -a "$version" = "$project"

before=$(git -C "$src" status --porcelain 2>&1)
"$src/packaging/build-deb.sh" "$tmp/out" >"$tmp/build.out" 2>"$tmp/build.err"
rc=$?
check_true "build-deb.sh exits 0 ($rc)" [ $rc -eq 0 ]
[ $rc -eq 0 ] || cat "$tmp/build.err"
after=$(git -C "$src" status --porcelain 2>&1)
check_true "the build leaves the checkout as it was" [ "$before" = "$after" ]
deb=$tmp/out/sigcrawl_${version}_$arch.deb
check_true "build-deb.sh names the .deb it made" [ "$(cat "$tmp/build.out")" = "$deb" ]
if ! check_true "sigcrawl_${version}_$arch.deb is in the output folder" [ -f "$deb" ]; then
	finish
	exit
fi
echo "      $(basename "$deb"): $(stat -c %s "$deb") bytes"

# Its files, as paths from / (directories end in /).
dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|' >"$tmp/files"
for f in /usr/bin/sigcrawl /lib/systemd/system/sigcrawl.service \
	/etc/sigcrawl/sigcrawl.conf /etc/sigcrawl/seeds/demo.txt \
	/usr/share/man/man1/sigcrawl.1.gz /usr/share/man/man5/sigcrawl.conf.5.gz \
	/usr/share/doc/sigcrawl/copyright /usr/share/doc/sigcrawl/changelog.gz \
	/usr/share/doc/sigcrawl/README.md.gz /usr/share/doc/sigcrawl/daemon.md; do
	check_true "the package holds $f" grep -qxF "$f" "$tmp/files"
done
# Nothing else: no test program, benchmark, library or header slips in.
grep -v -e '/$' -e '^/usr/bin/sigcrawl$' -e '^/lib/systemd/system/sigcrawl\.service$' \
	-e '^/etc/sigcrawl/' -e '^/usr/share/man/man[15]/sigcrawl' \
	-e '^/usr/share/doc/sigcrawl/' "$tmp/files" >"$tmp/unexpected"
check_true "the package holds nothing else ($(wc -l <"$tmp/unexpected") other files)" [ ! -s "$tmp/unexpected" ]
[ -s "$tmp/unexpected" ] && head -5 "$tmp/unexpected"

# The control fields.
check_true "Package: sigcrawl" [ "$(dpkg-deb -f "$deb" Package)" = sigcrawl ]
check_true "Version: $version" [ "$(dpkg-deb -f "$deb" Version)" = "$version" ]
check_true "Architecture: $arch" [ "$(dpkg-deb -f "$deb" Architecture)" = "$arch" ]
check_true "Section: web" [ "$(dpkg-deb -f "$deb" Section)" = web ]
depends=$(dpkg-deb -f "$deb" Depends)
echo "      Depends: $depends"
# ${shlibs:Depends} filled in by dpkg-shlibdeps: libc6 and the libraries
# the executable links (libcurl, LMDB, libevent).
for p in libc6 libcurl4 liblmdb0 'libevent-2\.1-[0-9]+'; do
	check_true "Depends names $p" grep -Eq "(^|, )$p( |,|\$)" <<<"$depends"
done

# The control archive: conffiles, and the maintainer scripts debhelper
# wrote (dh_installsystemd's, nothing that makes a user).
dpkg-deb -e "$deb" "$tmp/control"
check_true "/etc/sigcrawl/sigcrawl.conf is a conffile" grep -qxF /etc/sigcrawl/sigcrawl.conf "$tmp/control/conffiles"
check_true "the seeds file is a conffile" grep -qxF /etc/sigcrawl/seeds/demo.txt "$tmp/control/conffiles"
check_true "postinst enables the unit (dh_installsystemd)" grep -qF "deb-systemd-helper enable 'sigcrawl.service'" "$tmp/control/postinst"
check_true "postinst starts it where systemd runs" grep -qF "deb-systemd-invoke \$_dh_action 'sigcrawl.service'" "$tmp/control/postinst"
check_true "no maintainer script makes a user (DynamicUser)" bash -c '! cat "$1"/p*inst "$1"/p*rm | grep -Eq "adduser|useradd"' _ "$tmp/control"

# lintian: no error (its warnings and notes are printed for the record).
lintian "$deb" >"$tmp/lintian" 2>"$tmp/lintian.err"
rc=$?
check_true "lintian exits 0 ($rc)" [ $rc -eq 0 ]
check_true "lintian reports no error" bash -c '! grep -q "^E:" "$1"' _ "$tmp/lintian"
check_true "lintian read the package (no complaint on stderr)" bash -c '! grep -v "running with root privileges" "$1" | grep -q .' _ "$tmp/lintian.err"
grep -v 'root privileges' "$tmp/lintian" "$tmp/lintian.err" -h | sed 's/^/      lintian: /'
[ -s "$tmp/lintian" ] || echo "      lintian: no tag"

# Extracted into a scratch root.
dpkg -x "$deb" "$root"
exe=$root/usr/bin/sigcrawl
conf=$root/etc/sigcrawl/sigcrawl.conf
unit=$root/lib/systemd/system/sigcrawl.service
check_true "the installed executable is executable" [ -x "$exe" ]
check_true "sigcrawl --version says $version" grep -qx "sigcrawl $version" <<<"$("$exe" --version 2>&1)"
check_true "the installed config passes --check-config" "$exe" serve -c "$conf" --check-config
check_true "the installed sigcrawl(1) is a man page" bash -c 'zcat "$1" | grep -q "^\.TH \"sigcrawl\" \"1\""' _ "$root/usr/share/man/man1/sigcrawl.1.gz"
check_true "the installed sigcrawl.conf(5) is a man page" bash -c 'zcat "$1" | grep -q "^\.TH \"sigcrawl.conf\" \"5\""' _ "$root/usr/share/man/man5/sigcrawl.conf.5.gz"

# The unit against the installed paths, as seen from /.
start=$(sed -n 's/^ExecStart=//p' "$unit")
doc=$(sed -n 's/^Documentation=file://p' "$unit")
check_true "ExecStart runs the installed executable ($start)" [ -x "$root${start%% *}" ]
check_true "ExecStart reads the installed config" [ -f "$root${start##* }" ]
check_true "Documentation= names an installed page ($doc)" [ -f "$root$doc" ]
check_true "the unit runs as a DynamicUser" grep -qx 'DynamicUser=yes' "$unit"
check_true "the unit's StateDirectory is sigcrawl" grep -qx 'StateDirectory=sigcrawl' "$unit"
store=$(sed -n 's/^store *= *\([^ ;]*\).*/\1/p' "$conf")
check_true "the shipped config's store is the StateDirectory ($store)" [ "$store" = /var/lib/sigcrawl ]

# systemd-analyze verify on a copy whose ExecStart points into the scratch
# root, so that the executable it names must exist there (as in
# test-install.sh).
mkdir -p "$tmp/verify.d"
sed "s|^ExecStart=/|ExecStart=$root/|; s| -c /| -c $root/|" "$unit" >"$tmp/verify.d/sigcrawl.service"
SYSTEMD_LOG_LEVEL=notice systemd-analyze verify "$tmp/verify.d/sigcrawl.service" >"$tmp/verify" 2>&1
rc=$?
warnings=$(grep -i 'sigcrawl' "$tmp/verify")
check_true "systemd-analyze verify exits 0 ($rc)" [ $rc -eq 0 ]
check_true "systemd-analyze verify says nothing about the unit" [ -z "$warnings" ]
[ -z "$warnings" ] || echo "$warnings"
finish
