#!/bin/bash
# test-realsites.sh SIGCRAWL FIXTURE — adaptive normalization on real
# sites is never worse than strict: on the documentation of
# Python 3.11, PostgreSQL 15, Git, Django and GTK 3 (with GDK, GLib, GObject
# and GIO), served from Debian's files
# on loopback (tests/adaptive/realsites.py), the adaptive crawl makes no
# more requests than strict, fetches every page strict fetches, and maps
# no URL onto another file.  Every site must be installed
# (packaging/test-deps.txt): a missing one fails the test.
set -u
sigcrawl=$1
fixture=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
python3 "$here/adaptive/realsites.py" "$sigcrawl" "$fixture" strict adaptive \
	>"$tmp/table" 2>&1
rc=$?
cat "$tmp/table"
check_true "realsites.py ran (exit $rc)" [ $rc -eq 0 ]
for site in python.test postgresql.test git.test django.test gtk.test; do
	strict=$(awk -v s=$site '$1 == s && $2 == "strict"' "$tmp/table")
	adaptive=$(awk -v s=$site '$1 == s && $2 == "adaptive"' "$tmp/table")
	check_true "$site: both crawls ran and ended with exit 0" \
		test -n "$strict" -a -n "$adaptive" -a "$(echo "$strict" | awk '{print $3}')" = 0 \
		-a "$(echo "$adaptive" | awk '{print $3}')" = 0
	check_true "$site: strict fetched pages ($(echo "$strict" | awk '{print $5}'))" \
		test "$(echo "$strict" | awk '{print $5 + 0}')" -gt 100
	check_true "$site: adaptive makes no more requests than strict ($(echo "$adaptive" | awk '{print $4}') against $(echo "$strict" | awk '{print $4}'))" \
		test "$(echo "$adaptive" | awk '{print $4 + 0}')" -le "$(echo "$strict" | awk '{print $4 + 0}')"
	check_true "$site: adaptive misses no page strict fetched ($(echo "$adaptive" | awk '{print $6}'))" \
		test "$(echo "$adaptive" | awk '{print $6}')" = 0
	check_true "$site: no URL mapped onto another file ($(echo "$adaptive" | awk '{print $8}'))" \
		test "$(echo "$adaptive" | awk '{print $8}')" = 0
done
finish
