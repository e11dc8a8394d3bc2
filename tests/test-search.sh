#!/bin/bash
# test-search.sh SIGCRAWL FIXTURE — `sigcrawl search` and `sigcrawl index`
# end to end: a crawl of tests/search/search.web in two categories
# (tests/search/search.conf: strict profile, simhash:3), then keyword
# queries whose hits are known from the pages:
#
#   garden.test    /, /index.html    one page twice     -> one hit, 1 alias
#                  /docs, /docs/     one page twice     -> one hit, 1 alias
#                  /roses            "kettle"
#                  /secret           noindex, "truffle" -> never a hit
#   harbour.test   /                 "kettle", "orchard", "ferry"
#                  /story?id=5, /story?id=5&ts=2  near-duplicates (the
#                                    story of tests/equiv) -> one hit
#
# Only the seeds' own pages are asserted by category: harbour.test/ is the
# harbour seed, and every garden.test page descends from the garden seed.
set -u
sigcrawl=$1
fixture=$2
. "$(dirname "$0")/crawl-lib.sh"
web=$(cd "$(dirname "$0")/search" && pwd)

start_fixture "$web/search.web" "$tmp/log"
"$sigcrawl" crawl -c "$web/search.conf" --store "$tmp/s" \
	--connect-to "::127.0.0.1:$port" --quiet >"$tmp/out" 2>"$tmp/err"
rc=$?
stop_fixture
check_true "the crawl exits 0 (got $rc)" [ "$rc" -eq 0 ]
check_true "the index file is in the store" [ -s "$tmp/s/search.sqlite" ]

# search WORDS... — the hits' URLs with their aliases, one line each:
# "URL CATEGORY alias,alias".
search()
{
	"$sigcrawl" search --store "$tmp/s" --json "$@" | python3 -c 'import json, sys
for line in sys.stdin:
    h = json.loads(line)
    print(h["url"], h["category"], ",".join(a["url"] + ":" + a["evidence"] for a in h["aliases"]))'
}

got=$(search compost)
check_true "compost: /docs, with /docs/ as its alias (got: $got)" \
	[ "$got" = "http://garden.test/docs garden http://garden.test/docs/:signature" ]
got=$(search apples)
check_true "apples: / with /index.html as its alias (got: $got)" \
	[ "$got" = "http://garden.test/ garden http://garden.test/index.html:signature" ]
got=$(search orchard | cut -d' ' -f1 | sort | tr '\n' ' ')
check_true "orchard: the two homes and the story, one hit each (got: $got)" \
	[ "$got" = "http://garden.test/ http://harbour.test/ http://harbour.test/story?id=5 " ]
got=$(search canal summer)
check_true "the story's near-duplicate is an alias (got: $got)" \
	eval '[ "${got#* }" != "$got" ] && [ "${got%% *}" = "http://harbour.test/story?id=5" ] && [ "${got##* }" = "http://harbour.test/story?id=5&ts=2:near" ]'
got=$(search kettle | cut -d' ' -f1 | sort | tr '\n' ' ')
check_true "kettle: a page of each category (got: $got)" \
	[ "$got" = "http://garden.test/roses http://harbour.test/ " ]
got=$(search --category harbour kettle)
check_true "kettle in harbour (got: $got)" [ "$got" = "http://harbour.test/ harbour " ]
got=$(search --category garden kettle)
check_true "kettle in garden (got: $got)" [ "$got" = "http://garden.test/roses garden " ]
got=$(search --category nowhere kettle)
check_true "an unknown category has no hit" [ -z "$got" ]
check_true "the noindex page is not found" [ -z "$(search truffle)" ]
check_true "nor is the text of a script" [ -z "$(search scriptword)" ]
got=$(search "catam*")
check_true "a prefix query (got: $got)" [ "$got" = "http://harbour.test/ harbour " ]
got=$(search PRUNING Roses)
check_true "case does not matter, every word must match (got: $got)" \
	[ "$got" = "http://garden.test/roses garden " ]
check_true "words that do not all occur: no hit" [ -z "$(search roses ferry)" ]
got=$("$sigcrawl" search --store "$tmp/s" --json --limit 1 orchard | wc -l)
check_true "--limit 1 gives one hit" [ "$got" -eq 1 ]

first=$("$sigcrawl" search --store "$tmp/s" --json orchard | head -1 |
	python3 -c 'import json, sys; h = json.load(sys.stdin); print(h["score"] < 0, "[orchard]" in h["snippet"])')
check_true "hits carry a bm25 score and a snippet marking the word" [ "$first" = "True True" ]

# Human output.
"$sigcrawl" search --store "$tmp/s" compost >"$tmp/human"
check_true "human output: the title, URL, category and alias" \
	eval 'grep -qx "1. Compost guide" "$tmp/human" && grep -qx "   http://garden.test/docs  \[garden\]" "$tmp/human" && grep -qx "   alias http://garden.test/docs/ (signature)" "$tmp/human" && grep -qx "1 hit" "$tmp/human"'

# Hostile words: literal text, never FTS5 syntax.
for w in '"' 'NEAR(orchard' 'orchard OR' '-orchard' 'title:orchard' '(' "'" 'orchard*)'; do
	"$sigcrawl" search --store "$tmp/s" "$w" >/dev/null 2>"$tmp/e"
	rc=$?
	check_true "hostile query '$w' exits 0 or 2, never an SQL error (rc $rc)" \
		eval '{ [ $rc -eq 0 ] || [ $rc -eq 2 ]; } && ! grep -qi "fts5\|syntax" "$tmp/e"'
done
got=$(search -- -orchard | wc -l)
check_true "'-orchard' is the word orchard, not a negation ($got hits)" [ "$got" -eq 3 ]

# Usage and runtime errors (SPEC §2).
"$sigcrawl" search --store "$tmp/s" >/dev/null 2>&1
check_true "no words: exit 2" [ $? -eq 2 ]
"$sigcrawl" search --store "$tmp/s" '*' '"' >/dev/null 2>&1
check_true "no searchable word: exit 2" [ $? -eq 2 ]
"$sigcrawl" search --store "$tmp/s" --limit 0 x >/dev/null 2>&1
check_true "--limit 0: exit 2" [ $? -eq 2 ]
"$sigcrawl" search --store "$tmp/s" "$(head -c 2000 /dev/zero | tr '\0' a)" >/dev/null 2>"$tmp/e"
rc=$?
check_true "a query over 1024 bytes: exit 2 with a message" eval '[ $rc -eq 2 ] && grep -q "too long" "$tmp/e"'
mkdir "$tmp/empty"
"$sigcrawl" search --store "$tmp/empty" x >/dev/null 2>"$tmp/e"
rc=$?
check_true "no index: exit 1, naming the file" eval '[ $rc -eq 1 ] && grep -q "no search index" "$tmp/e"'
check_true "search --help exits 0" eval '"$sigcrawl" search --help >/dev/null'

# sigcrawl index: nothing to remove after a clean crawl; the noindex page
# is the one parsed page without text.
"$sigcrawl" index --store "$tmp/s" >"$tmp/index"
check_true "index exits 0" [ $? -eq 0 ]
check_true "index: 6 pages, 3 aliases" grep -q "search.sqlite: 6 pages, 3 aliases" "$tmp/index"
check_true "index: none removed" grep -qx "removed 0 pages without a record or recorded as duplicates" "$tmp/index"
check_true "index: the noindex page is the one missing" \
	eval 'grep -q "^missing 1 of 7 parsed pages" "$tmp/index" && grep -qx "  http://garden.test/secret" "$tmp/index"'
# A page indexed without a committed record (a crash between the two
# commits) is removed; aliases deleted behind the crawl's back come back.
# The page is indexed as the writer does it: its row, then its text into
# the index (schema version 2 has no triggers).
python3 - "$tmp/s/search.sqlite" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
cur = db.execute("INSERT INTO pages(url, category, title, body) VALUES ('http://garden.test/ghost', 'garden', 'Ghost', 'a phantom page')")
db.execute("INSERT INTO pages_fts(rowid, title, body) VALUES (?, 'Ghost', 'a phantom page')", (cur.lastrowid,))
db.execute("DELETE FROM aliases")
db.commit()
PY
check_true "the ghost is found before index" [ -n "$(search phantom)" ]
"$sigcrawl" index --store "$tmp/s" >"$tmp/index"
check_true "index removes the page without a record" grep -qx "removed 1 pages without a record or recorded as duplicates" "$tmp/index"
check_true "... and it is gone" [ -z "$(search phantom)" ]
check_true "... from the index too (FTS5 integrity-check)" python3 -c '
import sqlite3, sys
sqlite3.connect(sys.argv[1]).execute("INSERT INTO pages_fts(pages_fts, rank) VALUES (\x27integrity-check\x27, 1)")' "$tmp/s/search.sqlite"
got=$(search compost)
check_true "index rebuilt the aliases from the records (got: $got)" \
	[ "$got" = "http://garden.test/docs garden http://garden.test/docs/:signature" ]
got=$(search canal summer)
check_true "... with their evidence (got: $got)" [ "${got##* }" = "http://harbour.test/story?id=5&ts=2:near" ]
"$sigcrawl" index --store "$tmp/nostore" >/dev/null 2>&1
check_true "index of no store: exit 1" [ $? -eq 1 ]

# search_index = no: no index file, and search says so.
start_fixture "$web/search.web" "$tmp/log2"
"$sigcrawl" crawl -c "$web/search.conf" --store "$tmp/off" --search-index no \
	--connect-to "::127.0.0.1:$port" --quiet >/dev/null 2>&1
stop_fixture
check_true "--search-index no writes no index" [ ! -e "$tmp/off/search.sqlite" ]
"$sigcrawl" search --store "$tmp/off" orchard >/dev/null 2>&1
check_true "... and search exits 1" [ $? -eq 1 ]

finish
