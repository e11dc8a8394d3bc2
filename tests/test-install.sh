#!/bin/bash
# test-install.sh BUILDDIR — `meson install --destdir` puts the executable,
# the systemd unit, the default config and its seeds folder, and the manual
# pages sigcrawl(1) and sigcrawl.conf(5) in place, and `systemd-analyze
# verify` finds nothing to say about the unit.
set -u
build=$1
. "$(dirname "$0")/lib.sh"
root=$tmp/root

meson install -C "$build" --destdir "$root" --no-rebuild --quiet >"$tmp/install.log" 2>&1
rc=$?
check_true "meson install --destdir exits 0 ($rc)" [ $rc -eq 0 ]
[ $rc -eq 0 ] || cat "$tmp/install.log"
unit=$(find "$root" -name sigcrawl.service | head -1)
exe=$(find "$root" -path '*/bin/sigcrawl' -type f | head -1)
conf=$(find "$root" -path '*/sigcrawl/sigcrawl.conf' | head -1)
check_true "the executable is installed (${exe#"$root"})" [ -x "$exe" ]
check_true "the unit is installed (${unit#"$root"})" [ -f "$unit" ]
check_true "the unit goes to a systemd unit folder" bash -c 'case "$1" in */systemd/system/sigcrawl.service) ;; *) exit 1;; esac' _ "${unit#"$root"}"
check_true "the config is installed (${conf#"$root"})" [ -f "$conf" ]
check_true "the seeds folder is installed" [ -f "$(dirname "$conf")/seeds/demo.txt" ]
check_true "the installed config is valid" "$exe" serve -c "$conf" --check-config
# The manual pages, in mandir's man1 and man5, as man(7) source.
man1=$(find "$root" -path '*/man/man1/sigcrawl.1' -type f | head -1)
man5=$(find "$root" -path '*/man/man5/sigcrawl.conf.5' -type f | head -1)
check_true "sigcrawl(1) is installed (${man1#"$root"})" [ -s "$man1" ]
check_true "sigcrawl.conf(5) is installed (${man5#"$root"})" [ -s "$man5" ]
check_true "the installed sigcrawl(1) is a man page" grep -q '^\.TH "sigcrawl" "1"' "$man1"
check_true "the installed sigcrawl.conf(5) is a man page" grep -q '^\.TH "sigcrawl.conf" "5"' "$man5"
# ExecStart names the installed executable and config, as seen from /.
start=$(sed -n 's/^ExecStart=//p' "$unit")
check_true "ExecStart runs the installed executable ($start)" [ -x "$root${start%% *}" ]
check_true "ExecStart reads the installed config" [ -f "$root${start##* }" ]
check_true "Type=notify" grep -qx 'Type=notify' "$unit"
check_true "ExecReload sends SIGHUP" grep -qx 'ExecReload=/bin/kill -HUP $MAINPID' "$unit"
for k in WatchdogSec DynamicUser StateDirectory RuntimeDirectory ProtectSystem PrivateTmp NoNewPrivileges RestrictAddressFamilies SystemCallFilter; do
	check_true "the unit sets $k" grep -q "^$k=" "$unit"
done

# systemd-analyze verify on a copy of the unit whose ExecStart points into
# the install root, so that the executable it names must exist there.
mkdir -p "$tmp/verify.d"
sed "s|^ExecStart=/|ExecStart=$root/|; s| -c /| -c $root/|" "$unit" >"$tmp/verify.d/sigcrawl.service"
SYSTEMD_LOG_LEVEL=notice systemd-analyze verify "$tmp/verify.d/sigcrawl.service" >"$tmp/verify" 2>&1
rc=$?
warnings=$(grep -i 'sigcrawl' "$tmp/verify")
check_true "systemd-analyze verify exits 0 ($rc)" [ $rc -eq 0 ]
check_true "systemd-analyze verify says nothing about the unit" [ -z "$warnings" ]
[ -z "$warnings" ] || echo "$warnings"
finish
