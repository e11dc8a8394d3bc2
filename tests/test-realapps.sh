#!/bin/bash
# test-realapps.sh SIGCRAWL FIXTURE — real web applications from Debian's
# packages (tests/realapps/apps.sh: DokuWiki under php-fpm and nginx,
# cgit through fcgiwrap and nginx, Fossil's own server; WordPress, the
# slowest, only in measure.py), started on
# loopback with their packaged defaults (two settings aside, named in
# apps.sh) and content from Debian's
# manuals, crawled once strict and once adaptive from their front pages
# (tests/realapps/measure.py: 1500 pages, depth 6, which cgit and Fossil
# use up, since a smaller budget ends at a boundary that differs between
# runs).  Each app answers its
# front page, strict reaches content documents (tests/realapps/truth.py:
# DokuWiki's page revisions, cgit's git objects, Fossil's check-ins and
# artifacts), adaptive reaches every content document strict reached,
# and no learned rule gives a URL another document's key.  Every app
# must be installed (packaging/test-deps.txt): a missing package fails
# the test.  The fixture is not used.
set -u
sigcrawl=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
python3 "$here/realapps/measure.py" "$sigcrawl" --apps dokuwiki,cgit,fossil \
	--profiles strict,adaptive \
	--no-wget --no-nfnx --max-pages 1500 --pages 60 >"$tmp/table" 2>&1
rc=$?
cat "$tmp/table"
check_true "measure.py ran (exit $rc)" [ $rc -eq 0 ]

# row APP PROFILE — the table's line of that crawl (empty if none)
row()
{
	awk -v a="$1" -v p="$2" '$1 == a && $2 == p' "$tmp/table"
}

# field LINE N — the Nth column of a row, 0 when the row is missing
field()
{
	echo "$1" | awk -v n="$2" '{print $n + 0}'
}

for spec in dokuwiki:55 cgit:160 fossil:60; do
	app=${spec%%:*}
	least=${spec#*:}
	strict=$(row "$app" strict)
	adaptive=$(row "$app" adaptive)
	check_true "$app: started and answered its front page" \
		test -n "$strict" -a -n "$adaptive"
	check_true "$app: both crawls ended with exit 0" \
		test "$(field "$strict" 3)$(field "$adaptive" 3)" = 00
	check_true "$app: strict reached at least $least content documents ($(field "$strict" 5))" \
		test "$(field "$strict" 5)" -ge "$least"
	check_true "$app: adaptive reached every content document strict reached ($(field "$adaptive" 8) missing)" \
		test -n "$adaptive" -a "$(field "$adaptive" 8)" -eq 0
	check_true "$app: no learned rule gave a URL another document's key ($(field "$adaptive" 10))" \
		test -n "$adaptive" -a "$(field "$adaptive" 10)" -eq 0
done
finish
