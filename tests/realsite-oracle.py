#!/usr/bin/python3
"""realsite-oracle.py ROOT START — the HTML files of a static site under
ROOT that a reader reaches from START (a path under ROOT) by following
<a href> and <area href> links, breadth first, as a browser user would:
same site only, fragments dropped, rel=nofollow skipped, directories
served by their index.html.  Prints one path (relative to ROOT) a line,
sorted.  Written from the HTML standard with the standard library only,
independent of sigcrawl's parser and normalizer: the real-site test
compares the crawl with it.
"""
import os
import sys
from collections import deque
from html.parser import HTMLParser
from urllib.parse import unquote, urljoin, urlsplit

BASE = "http://site.invalid/"


class Links(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.hrefs = []
        self.base = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "base" and a.get("href") and self.base is None:
            self.base = a["href"]
        if tag in ("a", "area") and a.get("href") is not None:
            rel = (a.get("rel") or "").lower().split()
            if "nofollow" not in rel:
                self.hrefs.append(a["href"].strip())


def file_of(root, url):
    """The file under root a same-site URL names, or None."""
    s = urlsplit(url)
    if s.scheme not in ("http", "https") or s.netloc != "site.invalid":
        return None
    path = unquote(s.path)
    if path.endswith("/"):
        path += "index.html"
    rel = os.path.normpath(path.lstrip("/"))
    if rel.startswith(".."):
        return None
    full = os.path.join(root, rel)
    if os.path.isdir(full):
        rel = os.path.join(rel, "index.html")
        full = os.path.join(root, rel)
    return rel if os.path.isfile(full) else None


def main():
    root, start = sys.argv[1], sys.argv[2]
    seen = {start}
    todo = deque([start])
    while todo:
        rel = todo.popleft()
        if not rel.endswith((".html", ".htm")):
            continue
        with open(os.path.join(root, rel), encoding="utf-8",
                  errors="replace") as f:
            p = Links()
            p.feed(f.read())
        page = BASE + rel
        base = urljoin(page, p.base) if p.base else page
        for h in p.hrefs:
            target = file_of(root, urljoin(base, h).split("#")[0])
            if target and target not in seen:
                seen.add(target)
                todo.append(target)
    for rel in sorted(seen):
        if rel.endswith((".html", ".htm")):
            print(rel)


if __name__ == "__main__":
    main()
