#!/bin/bash
# test-warc-reader.sh WARC_WRITE SRCDIR — WARC files of store/'s writer,
# read by an independent reader: webrecorder's warcio.js (npm package
# warcio), which .ci/install-deps installs into /opt/sigcrawl-npm
# (WARCIO_PREFIX overrides the prefix).  Without warcio or node the test
# fails: it never skips.
#
# WARC_WRITE (tests/warc-write.c) writes one exchange per line of a list
# this script makes, with payloads from files it makes; the expected digests
# come from those files through coreutils (sha1sum, basenc, base32), not
# from the writer.  Checked: `warcio index` reads every file without a
# warning and finds the warcinfo, response and request records in order
# with their target URIs, statuses, payload digests and Concurrent-To links;
# each record's (offset, length) is exactly one gzip member and the members
# tile the file; `warcio cdx-index` reports the same digests; warcio's
# parser reads back each payload byte for byte.
set -u

if [ $# -ne 2 ]; then
	echo "usage: $0 WARC_WRITE SRCDIR" >&2
	exit 2
fi
WARC_WRITE=$1
SRCDIR=$2

. "$(dirname "$0")/lib.sh"

prefix=${WARCIO_PREFIX:-/opt/sigcrawl-npm}
warcio_dir=$prefix/node_modules/warcio
warcio_cli=$warcio_dir/dist/cli.js

if ! command -v node >/dev/null 2>&1; then
	fail "node is installed" "install the nodejs package (.ci/install-deps)"
	finish
	exit 1
fi
if [ ! -f "$warcio_cli" ]; then
	fail "warcio is installed in $prefix" "run .ci/install-deps"
	finish
	exit 1
fi
version=$(node "$warcio_cli" --version 2>/dev/null)
pass "warcio $version found in $prefix"

# sha1_b32 FILE — "sha1:" and the base32 SHA-1 of FILE, via coreutils.
sha1_b32()
{
	printf 'sha1:%s' "$(sha1sum <"$1" | cut -c1-40 | tr a-f A-F |
		basenc --base16 -d | base32)"
}

# The web: payloads of every kind the writer meets.
mkdir -p "$tmp/p" "$tmp/warc"
printf 'hello world' >"$tmp/p/0"
head -c 3000 /dev/urandom >"$tmp/p/1"
printf 'a\0b\0\0c\r\n\r\nWARC/1.1\r\n' >"$tmp/p/2" # NULs, a fake record
: >"$tmp/p/3"
printf '<html><body>decoded by libcurl</body></html>' >"$tmp/p/4"
for i in 5 6 7 8 9 10 11; do
	head -c $((i * 500)) /dev/urandom >"$tmp/p/$i"
done
kinds=(plain plain plain empty gzip plain plain plain plain plain plain plain)
n=${#kinds[@]}
: >"$tmp/list"
for ((i = 0; i < n; i++)); do
	printf '%s\thttp://example.com/w/%d?q=%d\t%s\n' "${kinds[i]}" "$i" \
		"$i" "$tmp/p/$i" >>"$tmp/list"
done

# Files of about 4 KB: several of them.
if "$WARC_WRITE" "$tmp/warc" 4000 <"$tmp/list" 2>"$tmp/err"; then
	pass "warc-write wrote $n exchanges"
else
	fail "warc-write" "$(cat "$tmp/err")"
fi
mapfile -t files < <(find "$tmp/warc" -name '*.warc.gz' | sort)
nfiles=${#files[@]}
if [ "$nfiles" -ge 3 ]; then
	pass "$nfiles files (rotation)"
else
	fail "at least 3 files, got $nfiles"
fi
check_true "no .open file is left" \
	test -z "$(find "$tmp/warc" -name '*.open')"

# warcio index, one file at a time, as TSV.
fields=offset,length,warc-type,warc-target-uri,warc-payload-digest
fields=$fields,warc-record-id,warc-concurrent-to,http:status
fields=$fields,http:content-encoding
tojson='
const f = process.argv[1].split(",");
require("readline").createInterface({ input: process.stdin })
	.on("line", (l) => {
		const o = JSON.parse(l);
		console.log(f.map((k) => o[k] === undefined ? "-" : String(o[k]))
			.join("\t"));
	});'
: >"$tmp/index"
idx_ok=true
for f in "${files[@]}"; do
	if ! node "$warcio_cli" index "$f" -f "$fields" >"$tmp/idx.json" \
		2>"$tmp/idx.err" || [ -s "$tmp/idx.err" ]; then
		idx_ok=false
		fail "warcio index $(basename "$f")" "$(head -5 "$tmp/idx.err")"
	fi
	node -e "$tojson" "$fields" <"$tmp/idx.json" |
		sed "s|^|$(basename "$f")\t|" >>"$tmp/index"
done
$idx_ok && pass "warcio index reads every file without a warning"
echo "command: node $warcio_cli index FILE -f $fields"

# Columns: 1 file, 2 offset, 3 length, 4 type, 5 uri, 6 payload digest,
# 7 record id, 8 concurrent-to, 9 status, 10 content-encoding.
records=$(wc -l <"$tmp/index")
want=$((nfiles + 2 * n))
if [ "$records" -eq "$want" ]; then
	pass "$records records (a warcinfo per file, two per exchange)"
else
	fail "$records records, want $want"
fi
count_type()
{
	awk -F'\t' -v t="$1" '$4 == t' "$tmp/index" | wc -l
}
check_true "one warcinfo per file" test "$(count_type warcinfo)" -eq "$nfiles"
check_true "$n response records" test "$(count_type response)" -eq "$n"
check_true "$n request records" test "$(count_type request)" -eq "$n"
firsts=$(awk -F'\t' '$2 == 0 { print $4 }' "$tmp/index" | sort -u)
check_true "every file starts with warcinfo at offset 0" \
	test "$firsts" = warcinfo

# Responses in order, each followed by its request, linked both ways.
awk -F'\t' '$4 != "warcinfo"' "$tmp/index" >"$tmp/pairs"
bad=$(awk -F'\t' '
	NR % 2 == 1 { if ($4 != "response") print "record " NR " is " $4
		uri = $5; id = $7; to = $8; next }
	{ if ($4 != "request") print "record " NR " is " $4
	  if ($5 != uri) print "request " NR " has URI " $5
	  if ($8 != id || $7 != to) print "pair " NR " is not linked" }' \
	"$tmp/pairs")
check_true "response, request pairs with one URI, linked by Concurrent-To" \
	test -z "$bad"
[ -n "$bad" ] && echo "$bad" | head -5

awk -F'\t' '$4 == "response" { print $5 "\t" $6 "\t" $9 "\t" $10 }' \
	"$tmp/index" >"$tmp/resp"
: >"$tmp/expect"
for ((i = 0; i < n; i++)); do
	status=200
	[ "${kinds[i]}" = empty ] && status=204
	printf 'http://example.com/w/%d?q=%d\t%s\t%s\t-\n' "$i" "$i" \
		"$(sha1_b32 "$tmp/p/$i")" "$status" >>"$tmp/expect"
done
if cmp -s "$tmp/resp" "$tmp/expect"; then
	pass "URIs, payload digests, statuses; no Content-Encoding left"
else
	fail "responses as warcio indexes them" \
		"$(diff "$tmp/expect" "$tmp/resp" | head -8)"
fi

# Each (offset, length) is one whole gzip member (gzip fails on a cut one
# and on trailing bytes) starting with that record, and the members cover
# each file exactly: two records in one member would share an offset.
members_ok=true
for f in "${files[@]}"; do
	b=$(basename "$f")
	end=0
	while IFS=$'\t' read -r _ off len type _ _ id _; do
		if [ "$off" -ne "$end" ]; then
			members_ok=false
			echo "$b: record at $off, previous ended at $end"
		fi
		end=$((off + len))
		tail -c +$((off + 1)) "$f" | head -c "$len" >"$tmp/member"
		if ! gzip -dc <"$tmp/member" >"$tmp/rec" 2>/dev/null ||
			[ "$(head -c 10 "$tmp/rec" | tr '\r\n' RN)" != \
				WARC/1.1RN ] ||
			! grep -qF "WARC-Record-ID: $id" "$tmp/rec"; then
			members_ok=false
			echo "$b: the $type record at $off is not one member"
		fi
	done < <(awk -F'\t' -v b="$b" '$1 == b' "$tmp/index")
	if [ "$end" -ne "$(stat -c %s "$f")" ]; then
		members_ok=false
		echo "$b: members end at $end, file has $(stat -c %s "$f")"
	fi
done
check_true "each record is exactly one gzip member; members tile the files" \
	$members_ok

# The CDX index (what a replay tool builds) has the same digests.
cdx_ok=true
: >"$tmp/cdx"
for f in "${files[@]}"; do
	node "$warcio_cli" cdx-index "$f" --format json >>"$tmp/cdx" \
		2>"$tmp/cdx.err" && [ ! -s "$tmp/cdx.err" ] || cdx_ok=false
done
check_true "warcio cdx-index reads every file without a warning" $cdx_ok
node -e "$tojson" url,digest,status <"$tmp/cdx" >"$tmp/cdx.tsv"
cut -f1-3 "$tmp/expect" | sed 's/\tsha1:/\t/' >"$tmp/cdx.want"
if cmp -s "$tmp/cdx.tsv" "$tmp/cdx.want"; then
	pass "cdx-index: $n captures with their digests and statuses"
else
	fail "cdx-index" "$(diff "$tmp/cdx.want" "$tmp/cdx.tsv" | head -8)"
fi

# warcio's parser reads back every payload byte for byte.
if node "$SRCDIR/warc-payloads.cjs" "$warcio_dir" "${files[@]}" \
	>"$tmp/payloads" 2>"$tmp/payloads.err"; then
	pass "warcio's WARCParser reads every file"
else
	fail "WARCParser" "$(head -5 "$tmp/payloads.err")"
fi
: >"$tmp/payloads.want"
for ((i = 0; i < n; i++)); do
	printf 'http://example.com/w/%d?q=%d\t%s\t%d\n' "$i" "$i" \
		"$(sha1sum <"$tmp/p/$i" | cut -c1-40)" \
		"$(stat -c %s "$tmp/p/$i")" >>"$tmp/payloads.want"
done
if cmp -s "$tmp/payloads" "$tmp/payloads.want"; then
	pass "payloads read by warcio equal the files written"
else
	fail "payloads" "$(diff "$tmp/payloads.want" "$tmp/payloads" | head -8)"
fi

finish
