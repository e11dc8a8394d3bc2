#!/bin/bash
# test-warc-reader.sh WARC_WRITE SRCDIR — WARC files of warc/'s writer,
# read by an independent reader: webrecorder's warcio.js (npm package
# warcio), which .ci/install-deps installs into /opt/sigcrawl-npm
# (WARCIO_PREFIX overrides the prefix).  Without warcio or node the test
# fails: it never skips.
#
# WARC_WRITE (tests/warc-write.c) writes one exchange per line of a list
# this script makes, with payloads from files it makes; the expected digests
# come from those files through coreutils (sha1sum, basenc, base32), not
# from the writer.  Checked: `warcio index` reads every file without a
# warning and finds the warcinfo, response (or revisit) and request records
# in order with their target URIs, statuses, payload digests and
# Concurrent-To links; each record's (offset, length) is exactly one gzip
# member and the members tile the file; `warcio cdx-index` reports the same
# digests; warcio's parser reads back each payload byte for byte.
#
# Re-crawls: some lines re-visit an earlier line's URL (warc_write_visit()).
# Which record each should give is worked out here from the payload files:
# a 304 gives a server-not-modified revisit, the payload of the capture
# referred to an identical-payload-digest one, another payload a response.
# Checked: warcio lists each revisit with its profile, WARC-Refers-To (the
# record id of the capture, as warcio indexes that record),
# WARC-Refers-To-Target-URI, WARC-Refers-To-Date, payload digest and
# WARC-Truncated; cdx-index lists them as warc/revisit; warcio's parser
# finds the HTTP status in their block and no payload after it; warc-write
# reports the record types and capture ids that warcio finds.
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
for i in 5 6 7 8 9 10 11 14; do
	head -c $((i * 500)) /dev/urandom >"$tmp/p/$i"
done
# Lines 0-11 are first visits.  Then re-visits, PRIOR naming the line
# whose capture they refer to: the same payload (12, 15: a decoded gzip
# one, 19: an empty one), a 304 (13, 17), a changed payload (14), a
# re-visit of a revisit, which refers to the capture that one referred to
# (16: line 0's; 17: line 14's response), and the same payload at another
# URL (18).
kinds=(plain plain plain empty gzip plain plain plain plain plain plain plain
	plain notmod plain gzip plain notmod plain empty)
priors=(- - - - - - - - - - - - 0 1 5 4 12 14 2 3)
n=${#kinds[@]}
uris=() bodies=()
for ((i = 0; i < n; i++)); do
	uris[i]=$(printf 'http://example.com/w/%d?q=%d' "$i" "$i")
	bodies[i]=$tmp/p/$i
	if [ "${priors[i]}" != - ]; then
		uris[i]=${uris[priors[i]]}
		bodies[i]=${bodies[priors[i]]}
	fi
done
bodies[13]=$tmp/p/3 bodies[17]=$tmp/p/3 # a 304 has no body
bodies[14]=$tmp/p/14
uris[18]=http://example.com/w/copy
: >"$tmp/list"
for ((i = 0; i < n; i++)); do
	printf '%s\t%s\t%s' "${kinds[i]}" "${uris[i]}" "${bodies[i]}" >>"$tmp/list"
	[ "${priors[i]}" != - ] && printf '\t%s' "${priors[i]}" >>"$tmp/list"
	echo >>"$tmp/list"
done

# What each line should give: TYPE (response, or revisit of PROFILE) and
# CAPTURE, the line whose response later visits refer to.
types=() profiles=() capture=()
nresp=0 nrev=0
for ((i = 0; i < n; i++)); do
	types[i]=response profiles[i]=- capture[i]=$i
	p=${priors[i]}
	if [ "$p" != - ]; then
		c=${capture[p]}
		if [ "${kinds[i]}" = notmod ]; then
			profiles[i]=server-not-modified
		elif [ "$(sha1sum <"${bodies[i]}")" = \
			"$(sha1sum <"${bodies[c]}")" ]; then
			profiles[i]=identical-payload-digest
		fi
		if [ "${profiles[i]}" != - ]; then
			types[i]=revisit capture[i]=$c
		fi
	fi
	if [ "${types[i]}" = response ]; then
		nresp=$((nresp + 1))
	else
		nrev=$((nrev + 1))
	fi
done

# warc_date LINE — the WARC-Date warc-write gives line LINE.
warc_date()
{
	local ms=$((1714564800000 + 1001 * $1))
	printf '%s.%03dZ' "$(date -u -d "@$((ms / 1000))" +%Y-%m-%dT%H:%M:%S)" \
		$((ms % 1000))
}

# status LINE — the HTTP status of line LINE's response head.
status()
{
	case ${kinds[$1]} in
	empty) echo 204 ;;
	notmod) echo 304 ;;
	*) echo 200 ;;
	esac
}

# Files of about 4 KB: several of them.
if "$WARC_WRITE" "$tmp/warc" 4000 <"$tmp/list" >"$tmp/written" \
	2>"$tmp/err"; then
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
fields=$fields,http:content-encoding,warc-profile,warc-refers-to
fields=$fields,warc-refers-to-target-uri,warc-refers-to-date,warc-truncated
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
# 7 record id, 8 concurrent-to, 9 status, 10 content-encoding, 11 profile,
# 12 refers-to, 13 refers-to-target-uri, 14 refers-to-date, 15 truncated.
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
check_true "$nresp response records" test "$(count_type response)" -eq "$nresp"
check_true "$nrev revisit records" test "$(count_type revisit)" -eq "$nrev"
check_true "$n request records" test "$(count_type request)" -eq "$n"
firsts=$(awk -F'\t' '$2 == 0 { print $4 }' "$tmp/index" | sort -u)
check_true "every file starts with warcinfo at offset 0" \
	test "$firsts" = warcinfo

# Responses (or revisits) in order, each followed by its request, linked
# both ways.
awk -F'\t' '$4 != "warcinfo"' "$tmp/index" >"$tmp/pairs"
bad=$(awk -F'\t' '
	NR % 2 == 1 { if ($4 != "response" && $4 != "revisit")
			print "record " NR " is " $4
		uri = $5; id = $7; to = $8; next }
	{ if ($4 != "request") print "record " NR " is " $4
	  if ($5 != uri) print "request " NR " has URI " $5
	  if ($8 != id || $7 != to) print "pair " NR " is not linked" }' \
	"$tmp/pairs")
check_true "response, request pairs with one URI, linked by Concurrent-To" \
	test -z "$bad"
[ -n "$bad" ] && echo "$bad" | head -5

# Each line's record, and the WARC-Record-ID of each line's record, as
# warcio indexes them (line I is pair I).
awk -F'\t' 'NR % 2 == 1 { print $4 }' "$tmp/pairs" >"$tmp/types"
mapfile -t ids < <(awk -F'\t' 'NR % 2 == 1 { print $7 }' "$tmp/pairs")
printf '%s\n' "${types[@]}" >"$tmp/types.want"
if cmp -s "$tmp/types" "$tmp/types.want"; then
	pass "the record types of re-visits: $nrev revisits, the rest responses"
else
	fail "record types" "$(diff "$tmp/types.want" "$tmp/types" | head -8)"
fi

awk -F'\t' '$4 == "response" { print $5 "\t" $6 "\t" $9 "\t" $10 }' \
	"$tmp/index" >"$tmp/resp"
: >"$tmp/expect"
for ((i = 0; i < n; i++)); do
	[ "${types[i]}" = response ] || continue
	printf '%s\t%s\t%s\t-\n' "${uris[i]}" "$(sha1_b32 "${bodies[i]}")" \
		"$(status "$i")" >>"$tmp/expect"
done
if cmp -s "$tmp/resp" "$tmp/expect"; then
	pass "URIs, payload digests, statuses; no Content-Encoding left"
else
	fail "responses as warcio indexes them" \
		"$(diff "$tmp/expect" "$tmp/resp" | head -8)"
fi

# The revisits as warcio indexes them: URI, profile, refers-to (the id of
# the capture's response), refers-to-target-uri, refers-to-date, payload
# digest (the capture's payload: the same as the line's own for
# identical-payload-digest), WARC-Truncated, the status in the head, and
# no Content-Encoding left in it.
echo "the revisit records, as warcio indexes them:"
awk -F'\t' -v OFS='\t' '$4 == "revisit" {
	print $4, $5, $11, $12, $13, $14, $6, $15, $9, $10 }' \
	"$tmp/index" | tee "$tmp/rev" | sed 's/^/      /'
: >"$tmp/rev.want"
for ((i = 0; i < n; i++)); do
	[ "${types[i]}" = revisit ] || continue
	c=${capture[i]} truncated=-
	[ "${profiles[i]}" = identical-payload-digest ] && truncated=length
	printf 'revisit\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t-\n' \
		"${uris[i]}" \
		"http://netpreserve.org/warc/1.1/revisit/${profiles[i]}" \
		"${ids[c]:-?}" "${uris[c]}" "$(warc_date "$c")" \
		"$(sha1_b32 "${bodies[c]}")" "$truncated" "$(status "$i")" \
		>>"$tmp/rev.want"
done
if [ "$nrev" -ge 7 ] && cmp -s "$tmp/rev" "$tmp/rev.want"; then
	pass "$nrev revisits: profile, Refers-To(-Target-URI, -Date), digest"
else
	fail "revisits as warcio indexes them" \
		"$(diff "$tmp/rev.want" "$tmp/rev" | head -8)"
fi

# warc-write's report: the record type of each line and the capture
# (warc_write_visit()'s OUT) that later visits refer to.
: >"$tmp/written.want"
for ((i = 0; i < n; i++)); do
	printf '%d\t%s\t%s\n' "$i" "${types[i]}" "${ids[capture[i]]:-?}" \
		>>"$tmp/written.want"
done
if cmp -s "$tmp/written" "$tmp/written.want"; then
	pass "warc_write_visit() reports the records and captures warcio finds"
else
	fail "warc-write's report" \
		"$(diff "$tmp/written.want" "$tmp/written" | head -8)"
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
node -e "$tojson" url,digest,status,mime <"$tmp/cdx" >"$tmp/cdx.tsv"
: >"$tmp/cdx.want"
for ((i = 0; i < n; i++)); do
	case ${types[i]}/${kinds[i]} in
	revisit/*) mime=warc/revisit ;;
	*/plain) mime=application/octet-stream ;;
	*/gzip) mime=text/html ;;
	*) mime=- ;;
	esac
	printf '%s\t%s\t%s\t%s\n' "${uris[i]}" \
		"$(sha1_b32 "${bodies[capture[i]]}" | sed 's/^sha1://')" \
		"$(status "$i")" "$mime" >>"$tmp/cdx.want"
done
if cmp -s "$tmp/cdx.tsv" "$tmp/cdx.want"; then
	pass "cdx-index: $n captures ($nrev warc/revisit), digests, statuses"
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
	[ "${types[i]}" = response ] || continue
	printf '%s\t%s\t%d\n' "${uris[i]}" \
		"$(sha1sum <"${bodies[i]}" | cut -c1-40)" \
		"$(stat -c %s "${bodies[i]}")" >>"$tmp/payloads.want"
done
if cmp -s "$tmp/payloads" "$tmp/payloads.want"; then
	pass "payloads read by warcio equal the files written"
else
	fail "payloads" "$(diff "$tmp/payloads.want" "$tmp/payloads" | head -8)"
fi

# warcio's parser reads each revisit's block as an HTTP head with the
# line's status, and no payload after it: the block is the head only.
revisits='
const fs = require("fs");
const { WARCParser } = require(process.argv[1]);
(async () => {
	for (const file of process.argv.slice(2)) {
		const parser = new WARCParser(fs.createReadStream(file));
		for await (const r of parser) {
			if (r.warcType !== "revisit")
				continue;
			const body = await r.readFully(false);
			console.log([r.warcTargetURI, r.warcHeader("WARC-Profile"),
				r.httpHeaders ? r.httpHeaders.statusCode : "-",
				body.length].join("\t"));
		}
	}
})().catch((e) => { console.error(e); process.exit(1); });'
if node -e "$revisits" "$warcio_dir" "${files[@]}" >"$tmp/revread" \
	2>"$tmp/revread.err" && [ ! -s "$tmp/revread.err" ]; then
	pass "warcio's WARCParser reads every revisit record"
else
	fail "WARCParser on revisits" "$(head -5 "$tmp/revread.err")"
fi
awk -F'\t' -v OFS='\t' '{ print $2, $3, $9, 0 }' "$tmp/rev.want" \
	>"$tmp/revread.want"
if [ -s "$tmp/revread.want" ] && cmp -s "$tmp/revread" "$tmp/revread.want"
then
	pass "revisit blocks: an HTTP head with its status, no payload"
else
	fail "revisit blocks" "$(diff "$tmp/revread.want" "$tmp/revread" |
		head -8)"
fi

finish
