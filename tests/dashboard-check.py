#!/usr/bin/env python3
"""dashboard-check.py DOM STATUS -- compare the dashboard as Chromium left
it (--dump-dom: the page after its script ran) with /status's JSON taken
right after, for tests/test-dashboard.sh.

Every element with data-k="a.b" shows /status's a.b: an integer grouped
by commas, a real as JSON has it, "–" for null or absent.  The category
rows (data-cat, cells data-c) show their category's figures.  Prints one
line per figure compared ("same K VALUE" or "DIFF K page=.. status=..")
and a last line "compared N, differ M"; exits 1 when any differs or none
was compared."""
import json
import sys
from html.parser import HTMLParser

# Figures that move while nobody crawls: not compared.
MOVING = {"uptime", "rate"}


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack = []  # (tag, key) of open elements holding a figure
        self.figures = {}  # key -> text
        self.cat = None
        self.body = {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.body = a
        if tag == "tr" and "data-cat" in a:
            self.cat = a["data-cat"]
        key = a.get("data-k")
        if key is None and "data-c" in a and self.cat is not None:
            key = "categories[%s].%s" % (self.cat, a["data-c"])
        if key is not None:
            self.figures[key] = ""
        self.stack.append((tag, key))

    def handle_endtag(self, tag):
        while self.stack:
            t, _ = self.stack.pop()
            if t == tag:
                break
        if tag == "tr":
            self.cat = None

    def handle_data(self, data):
        for _, key in reversed(self.stack):
            if key is not None:
                self.figures[key] += data
                break


def status_value(st, key):
    if key.startswith("categories["):
        name, field = key[len("categories["):].split("].", 1)
        for c in st.get("categories") or []:
            if c["name"] == name:
                return c.get(field)
        return None
    v = st
    for part in key.split("."):
        if not isinstance(v, dict):
            return None
        v = v.get(part)
    return v


def same(text, v):
    text = text.strip()
    if v is None or isinstance(v, (dict, list)):
        return text == "–"
    if isinstance(v, str):
        return text == v
    try:
        return float(text.replace(",", "")) == float(v)
    except ValueError:
        return False


def main():
    page = Page()
    page.feed(open(sys.argv[1], encoding="utf-8").read())
    st = json.load(open(sys.argv[2], encoding="utf-8"))
    n = bad = 0
    for key, text in sorted(page.figures.items()):
        if key in MOVING:
            continue
        v = status_value(st, key)
        n += 1
        if same(text, v):
            print("same %s %s" % (key, text.strip()))
        else:
            bad += 1
            print("DIFF %s page=%r status=%r" % (key, text.strip(), v))
    print("compared %d, differ %d" % (n, bad))
    return 1 if bad or not n else 0


if __name__ == "__main__":
    sys.exit(main())
