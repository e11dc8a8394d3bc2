#!/usr/bin/python3
"""wildweb.py — a seeded, dynamic multi-host web server for measuring
adaptive URL normalization on a web it was never tuned on,
with the truth of every URL it answers.

usage: wildweb.py [--seed S] [--hosts N] [--docs N] [--port-file PATH]
                  [--log PATH] [--dump DIR]

The web is a function of --seed, --hosts and --docs only
(random.Random(seed), built once at start): the same arguments give the
same hosts, documents, pages and links.  It listens on 127.0.0.1 (a free
port, written to --port-file through a rename), HTTP/1.1 with keep-alive,
and picks the site by the Host header (its :port stripped).  A crawler
reaches it with `--connect-to ::127.0.0.1:PORT`.  Only http://.

--dump DIR writes DIR/seeds (http://HOST/ for every bare host),
DIR/truth.jsonl ({"url", "doc"}: every URL any page links, resolved
against the page URL or its <base> and lightly normalized -- scheme and
host lower case, no fragment, no default port, no dot segments -- and
every canonical URL of every document; doc is null for 404s, soft-404s,
the login wall and other pages that are no document; a redirect's doc is
the document it ends at) and DIR/hosts.txt (each host's personality),
then exits without serving.

The web.  Hosts are named s<K>.<word>.test.  Each host has one of six
topics (sport, food, travel, science, music, money) and about --docs
documents: a home page, section index pages (directories), paginated
list pages (/list?cat=SECTION&page=P), articles, story pages
(/story?ID=N), on some hosts a gallery (albums of photo pages), an
/about/ directory, /terms and /privacy.  Every page has its own title and
30-80 words of body text drawn from its topic's words, except the photo
pages of one album, which have one title and one text and differ only in
their <img src> (different documents all the same).  From a host's root
every document is at depth 5 or less.  Pages link to documents of their
own site, of its www name and of other hosts, each link written in one of
the forms this host answers for it, at random (below), so a crawler meets
the variants.

A host's personality, drawn once per host in this order, each trait
independently (probability per host); with 20 hosts each appears on
several hosts, and if a draw gave a trait to no host, a host is forced to
have it (so every trait exists on every seed's web of 20 hosts):

  topic             one of the six, uniform
  case              insensitive 0.35: the path is looked up without
                    regard to letter case, and 35 % of its links spell
                    the path in another case, from a pool of four
                    spellings per URL (/Football/, /fOOtball/,
                    /StoRy?id=3); sensitive otherwise: another case is
                    unknown (404 or soft-404), and 5 % of its articles
                    and stories carry one more link, in another case
                    (a dead link)
  trailing slash    redirect 0.35: /dir answers 301 -> /dir/ (query kept),
                    a slash added to a file-like path (/story_205/,
                    /a/Foo-12.html/, /story/?id=3) is unknown;
                    ignore 0.35: /dir and /dir/, /file and /file/ are one
                    page (links use both);
                    distinct 0.30: /section/x is another document than
                    /section/x/ (an overview of the section), and 10 % of
                    the articles have a comments page at ARTICLE/
  index.html        0.5: /dir/index.html answers as /dir/
  ;jsessionid=      0.3: 35 % of the links carry ;jsessionid=V (a pool of
                    6 values) on the path; the server ignores path
                    parameters (elsewhere a ;param makes the path unknown)
  story id param    id 0.6, sid 0.25, story 0.15: /story?sid=12 and
                    /story?sid=13 are different stories on a sid host
  session param     0.45: 35 % of the links carry NAME=V (6 values), NAME
                    sid (0.5; PHPSESSID on a host whose story id is sid)
                    or PHPSESSID, sessionid, visit; any parameter a route
                    does not use is ignored by every server
  tracker param     0.45: utm_source, ref or from on 25 % of the links
  sort param        0.5: sort=date|title|asc on 40 % of list links
  DUST story alias  0.45: /story_N.html, /story_N or /stories/N (uniform)
                    answers as /story?ID=N
  www               alias 0.35 (www.HOST is the same site; 20 % of the
                    links use it), distinct 0.20 (www.HOST is another
                    site of --docs/2 documents of its own, with the same
                    paths and server, sharing only the /terms and
                    /privacy documents with HOST), none 0.45 (www.HOST is
                    an unknown host: 404)
  soft-404          0.35: unknown paths answer 200 with one "not found"
                    page (a hard 404 elsewhere); on every host 2 % of the
                    articles and stories carry a dead link (/gone/WORD-N)
  login wall        0.3: /account/WORD and /login answer 200 with one
                    "sign in" page (no document); the home page links
                    /login, 20 % of articles and stories /account/WORD
  gallery           0.45: 3 albums of 8 photo pages, photos at
                    /photo?album=A&n=I (0.5) or /gallery/A/I.html (0.5)
  <base href>       0.3: half of the pages carry <base href="http://HOST/">
                    or <base href="http://HOST/DIR/"> (the page's own
                    directory) and write 70 % of their same-site links
                    relative to it (../story?id=3, Foo-12.html, ./)
  moved pages       0.35: 6 % of the articles moved: the old URL
                    /old/SLUG-N.html answers 301 -> the article (0.5) or
                    301 -> /archive/N, which answers 302 -> the article
                    (0.5); half of the links to a moved article use its
                    old URL
  robots.txt        0.5: "Disallow: /private/" (10 % of articles and
                    stories link into /private/); otherwise /robots.txt is an unknown path
                    (404, or the soft-404 page)
  per-request noise every host: 3-5 % (uniform) of its articles and
                    stories carry a line "Advert: WORD — served at
                    HH:MM:SS.mmm" in their body text whose word and
                    time change on every request
  article paths     /SECTION/Slug-N.html 0.4, /SECTION/slug-N 0.35 (file
                    -like without an extension), /a/Slug-N.html 0.25
  section paths     /SECTION/ 0.6, /section/SECTION/ 0.25,
                    /topics/SECTION/ 0.15; Capitalized 0.4

Link forms (each link, independently): the canonical form, or with
probability 0.4 one of the document's other forms on this host (dir
without its slash, dir/index.html, file/ on slash-ignore hosts, the DUST
alias, /list?cat=x for page 1, parameters in another order, the old URL
of a moved article), then the case, jsessionid, session, tracker and
sort variants above; 15 % of same-site links are absolute URLs, 2 % of
absolute links say :80, 4 % of links carry a #fragment.  Links to other
hosts (their root or a random document, in that host's forms): 2 from
each home page, 1 from each section page and from 30 % of the articles
and stories.

The log (--log): one tab-separated line per event, sc-fixture's format,
MS being CLOCK_MONOTONIC in milliseconds and ID the request's number:

  MS ID req HOST METHOD TARGET - -           the request has arrived
  MS ID done HOST METHOD TARGET STATUS BYTES  it was answered
  MS ID links HOST - TARGET - URL URL ...    an HTML page's links, each
                                             resolved to an absolute URL
                                             (lightly normalized, as in
                                             truth.jsonl); one field each
  MS ID location HOST - TARGET - URL         a redirect's Location

doc_of(host, target) in this module is the function the server answers
by (wildmeasure.py imports it).
"""
import argparse
import itertools
import json
import os
import random
import re
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOPICS = {
    "sport": (
        "football tennis rowing cycling boxing athletics swimming hockey",
        "goal match striker keeper league derby referee season final "
        "penalty corner sprint relay marathon podium medal coach squad "
        "transfer captain pitch stadium fixture trophy knockout serve "
        "volley rally racket paddle oar regatta peloton climb summit "
        "jersey round bout glove ring punch tackle puck rink whistle "
        "injury comeback record"),
    "food": (
        "baking grilling soups salads desserts bread pasta spices",
        "flour butter yeast dough oven crust crumb simmer broth stock "
        "onion garlic pepper saffron cumin fennel basil thyme lemon "
        "caramel custard sorbet meringue pastry tart risotto noodle "
        "ravioli gnocchi skillet griddle charcoal smoke brine marinade "
        "roast fillet ladle whisk sourdough rye glaze syrup vinegar "
        "harvest recipe"),
    "travel": (
        "islands mountains cities rail cruises deserts lakes festivals",
        "ferry harbour beach lagoon reef ridge trail summit glacier "
        "valley station platform sleeper carriage ticket passport border "
        "hostel inn lodge cabin market bazaar cathedral museum plaza "
        "canal bridge lighthouse dune oasis caravan compass map route "
        "itinerary luggage airport departure arrival sunset monsoon "
        "guidebook souvenir"),
    "science": (
        "physics chemistry biology astronomy geology climate genetics "
        "robotics",
        "atom electron photon quark laser crystal molecule enzyme "
        "protein cell genome mutation fossil mineral basalt magma "
        "tectonic orbit comet nebula galaxy pulsar telescope spectrum "
        "isotope catalyst reaction polymer sensor actuator circuit "
        "algorithm dataset experiment hypothesis theory glacier aerosol "
        "ocean current carbon neuron synapse vaccine"),
    "music": (
        "jazz opera rock folk classical electronic choirs guitars",
        "melody harmony rhythm tempo chord scale octave tenor soprano "
        "baritone orchestra quartet sonata symphony concerto overture "
        "riff solo drummer bassist amplifier vinyl album single chorus "
        "verse bridge lyric ballad anthem festival encore rehearsal "
        "conductor score fiddle banjo accordion synth sampler studio "
        "producer tour"),
    "money": (
        "markets banking housing pensions startups tax trade energy",
        "stock bond yield dividend equity index futures option broker "
        "ledger audit budget deficit surplus inflation interest loan "
        "mortgage rent tenant landlord pension annuity savings venture "
        "founder seed valuation invoice tariff export import quota "
        "subsidy barrel refinery grid turbine solar merger takeover "
        "forecast recession rally"),
}
TOPIC_NAMES = sorted(TOPICS)
HOST_WORDS = ("amber birch cedar delta ember fjord garnet heron indigo "
              "juniper kestrel lupin maple nectar onyx pebble quartz "
              "raven saffron tamarind umber violet walnut yarrow zephyr "
              "alder basil clover dahlia elm fennel ginger hazel iris "
              "jasper kelp laurel moss nutmeg olive").split()
ADVERTS = ("shoes phones sofas holidays watches bikes glasses coffee "
           "laptops jackets tickets insurance").split()
TRACKERS = ["utm_source", "ref", "from"]
TRACK_VALUES = ["newsletter", "twitter", "home", "rss", "partner", "feed"]
SESSIONS = ["PHPSESSID", "sessionid", "visit"]
DUST_FORMS = ["/story_%s.html", "/story_%s", "/stories/%s"]

HOSTS_DEFAULT = 20
DOCS_DEFAULT = 300


def words(rng, vocab, n):
    return " ".join(rng.choice(vocab) for _ in range(n))


class Persona:
    """A bare host's server and its habits (see the module docstring)."""

    def __init__(self, rng, k, word):
        self.name = "s%d.%s.test" % (k, word)
        self.topic = rng.choice(TOPIC_NAMES)
        self.ci = rng.random() < 0.35
        r = rng.random()
        self.slash = ("redirect" if r < 0.35 else
                      "ignore" if r < 0.70 else "distinct")
        self.index_html = rng.random() < 0.5
        self.jsession = rng.random() < 0.3
        r = rng.random()
        self.story_param = "id" if r < 0.6 else "sid" if r < 0.85 else "story"
        self.session = None
        if rng.random() < 0.45:
            self.session = ("sid" if rng.random() < 0.5
                            else rng.choice(SESSIONS))
            if self.session == self.story_param:
                self.session = "PHPSESSID"
        self.tracker = rng.choice(TRACKERS) if rng.random() < 0.45 else None
        self.sort = rng.random() < 0.5
        self.dust = rng.choice(DUST_FORMS) if rng.random() < 0.45 else None
        r = rng.random()
        self.www = "alias" if r < 0.35 else "distinct" if r < 0.55 else "none"
        self.soft404 = rng.random() < 0.35
        self.login = rng.random() < 0.3
        self.gallery = (rng.choice(["param", "path"])
                        if rng.random() < 0.45 else None)
        self.base = rng.random() < 0.3
        self.moved = rng.random() < 0.35
        self.robots = rng.random() < 0.5
        self.noise_rate = rng.uniform(0.03, 0.05)
        r = rng.random()
        self.article_style = ("html" if r < 0.4 else
                              "bare" if r < 0.75 else "flat")
        r = rng.random()
        self.sec_prefix = ("" if r < 0.6 else
                           "/section" if r < 0.85 else "/topics")
        self.sec_cap = rng.random() < 0.4
        self.sess_pool = ["%016x" % rng.getrandbits(64) for _ in range(6)]
        self.jsess_pool = ["%032X" % rng.getrandbits(128) for _ in range(6)]

    def traits(self):
        t = [self.topic, "case-insensitive" if self.ci else "case-sensitive",
             "slash-" + self.slash, "www-" + self.www,
             "story-param=" + self.story_param,
             "articles-" + self.article_style,
             "sections=%s/X/" % self.sec_prefix,
             "noise=%.3f" % self.noise_rate]
        if self.index_html:
            t.append("index.html")
        if self.jsession:
            t.append("jsessionid")
        if self.session:
            t.append("session=" + self.session)
        if self.tracker:
            t.append("tracker=" + self.tracker)
        if self.sort:
            t.append("sort")
        if self.dust:
            t.append("dust=" + self.dust.replace("%s", "N"))
        for flag in ("soft404", "login", "base", "moved", "robots"):
            if getattr(self, flag):
                t.append(flag)
        if self.gallery:
            t.append("gallery-" + self.gallery)
        return t


# Traits every web of enough hosts must have: (test, what forcing sets).
REQUIRED = [
    (lambda p: p.ci, "ci", True),
    (lambda p: not p.ci, "ci", False),
    (lambda p: p.slash == "redirect", "slash", "redirect"),
    (lambda p: p.slash == "ignore", "slash", "ignore"),
    (lambda p: p.slash == "distinct", "slash", "distinct"),
    (lambda p: p.index_html, "index_html", True),
    (lambda p: p.jsession, "jsession", True),
    (lambda p: p.story_param == "sid", "story_param", "sid"),
    (lambda p: p.session == "sid", "session", "sid"),
    (lambda p: p.tracker is not None, "tracker", "utm_source"),
    (lambda p: p.sort, "sort", True),
    (lambda p: p.dust is not None, "dust", "/story_%s.html"),
    (lambda p: p.www == "alias", "www", "alias"),
    (lambda p: p.www == "distinct", "www", "distinct"),
    (lambda p: p.soft404, "soft404", True),
    (lambda p: p.login, "login", True),
    (lambda p: p.gallery is not None, "gallery", "param"),
    (lambda p: p.base, "base", True),
    (lambda p: p.moved, "moved", True),
    (lambda p: p.robots, "robots", True),
]


def force_traits(rng, personas):
    for test, attr, value in REQUIRED:
        if any(test(p) for p in personas):
            continue
        # A host whose present value is shared by another host, so that
        # no other required trait disappears; sid keeps its two roles apart.
        counts = {}
        for p in personas:
            counts[repr(getattr(p, attr))] = counts.get(
                repr(getattr(p, attr)), 0) + 1
        cand = [p for p in personas if counts[repr(getattr(p, attr))] > 1]
        if attr == "story_param":
            cand = [p for p in cand if p.session != "sid"]
        if attr == "session":
            cand = [p for p in personas if p.story_param != "sid"]
        p = rng.choice(cand or personas)
        setattr(p, attr, value)


class Page:
    """A page the server answers with 200: a document or a special page
    (doc None).  links: (href as written, host or None for the request's
    host, path and query, anchor, the document meant or None)."""
    def __init__(self, doc, site, kind, path, title, text):
        self.doc, self.site, self.kind, self.path = doc, site, kind, path
        self.title, self.text = title, text
        self.links = []
        self.alts = []
        self.noisy = False
        self.img = None
        self.case_pool = None
        self.base = None
        self.body = self.pre = self.post = None
        self.logcache = {}
        self.sec = None


def split_pq(pq):
    path, _, q = pq.partition("?")
    return path, q


def is_dir(path):
    return path.endswith("/")


class Site:
    """One served site: a bare host, or a www host that is a site of its own.
    Its routes: files (path key -> Page or ("redirect", code, path)),
    dirs (path key ending in / -> Page) and parameter routes."""

    def __init__(self, web, persona, name, ndocs, rng, twin=None):
        self.web, self.p, self.name = web, persona, name
        self.files, self.dirs = {}, {}
        self.stories, self.lists, self.photos = {}, {}, {}
        self.docs = []
        self.alias_www = persona.www == "alias" and twin is None
        self.build(rng, ndocs, twin)

    def key(self, path):
        return path.lower() if self.p.ci else path

    def add(self, kind, path, title, text, route=True):
        pg = Page("%s/%s/%d" % (self.name, kind, len(self.docs)), self,
                  kind, path, title, text)
        self.docs.append(pg)
        if route:
            (self.dirs if is_dir(path) else self.files)[self.key(path)] = pg
        return pg

    def build(self, rng, D, twin):
        p = self.p
        vocab = TOPICS[p.topic][1].split()
        label = self.name.split(".")[1].capitalize() + (
            " Portal" if twin else "")
        serial = itertools.count(1)

        def title(*extra):
            ws = [w.capitalize() for w in rng.sample(vocab, 2)]
            return "%s: %s %d" % (label, " ".join(ws + list(extra)),
                                  next(serial))

        def text(lo=30, hi=80):
            return words(rng, vocab, rng.randint(lo, hi))

        secs = rng.sample(TOPICS[p.topic][0].split(), rng.randint(5, 8))
        n_story = max(4, round(D * 0.12))
        gal = 28 if p.gallery else 0
        fixed = 5 + (len(secs) if p.slash == "distinct" else 0)
        rest = D - fixed - len(secs) - n_story - gal
        per = 1 + 1 / 12 + (0.1 if p.slash == "distinct" else 0)
        n_art = max(len(secs), int((rest - len(secs) / 2) / per))

        self.home = self.add("home", "/", title("Home"), text())
        self.about = self.add("about", "/about/", title("About"), text())
        if twin:
            # The www site shares its legal pages with the bare host.
            self.terms, self.privacy = twin.terms, twin.privacy
            self.files[self.key("/terms")] = self.terms
            self.files[self.key("/privacy")] = self.privacy
        else:
            self.terms = self.add("terms", "/terms", title("Terms"), text())
            self.privacy = self.add("privacy", "/privacy", title("Privacy"),
                                    text())
        self.sections = []
        for s in secs:
            name = s.capitalize() if p.sec_cap else s
            spath = "%s/%s/" % (p.sec_prefix, name)
            sec = self.add("section", spath, title(name), text())
            sec.sec = s
            sec.articles, sec.lists, sec.overview = [], [], None
            if p.slash == "distinct":
                sec.overview = self.add("overview", spath[:-1],
                                        title(name, "Overview"), text())
                sec.overview.sec = s
            self.sections.append(sec)
        nums = rng.sample(range(10, 10 * n_art + 10), n_art)
        self.articles = []
        for i, n in enumerate(nums):
            sec = self.sections[i % len(self.sections)]
            slug = rng.choice(vocab)
            if p.article_style == "html":
                path = "%s/%s/%s-%d.html" % (p.sec_prefix, sec.path.split(
                    "/")[-2], slug.capitalize(), n)
            elif p.article_style == "bare":
                path = "%s/%s/%s-%d" % (p.sec_prefix,
                                        sec.path.split("/")[-2], slug, n)
            else:
                path = "/a/%s-%d.html" % (slug.capitalize(), n)
            art = self.add("article", path, title(), text())
            art.sec = sec
            art.comments = None
            art.num = n
            sec.articles.append(art)
            self.articles.append(art)
        for sec in self.sections:
            arts = sec.articles
            for pg in range(1, (len(arts) + 11) // 12 + 1):
                lp = self.add("list", "/list?cat=%s&page=%d" % (sec.sec, pg),
                              title(sec.sec.capitalize(), "Page"), text(15, 30),
                              route=False)
                lp.sec = sec
                lp.items = arts[(pg - 1) * 12:pg * 12]
                lp.num = pg
                self.lists[(sec.sec, str(pg))] = lp
                sec.lists.append(lp)
        if p.slash == "distinct":
            for art in rng.sample(self.articles,
                                  max(1, len(self.articles) // 10)):
                art.comments = self.add("comments", art.path + "/",
                                        title("Comments"), text(20, 40))
                art.comments.article = art
                # The comments page is a file-like path ending in /.
                self.dirs.pop(self.key(art.path + "/"), None)
                self.files[self.key(art.path + "/")] = art.comments
        self.story_index = self.add("stories", "/stories/", title("Stories"),
                                    text())
        base = rng.randint(100, 900)
        ids = sorted(rng.sample(range(base, base + 3 * n_story), n_story))
        self.story_list = []
        for sid in ids:
            st = self.add("story", "/story?%s=%d" % (p.story_param, sid),
                          title("Story"), text(), route=False)
            st.num = sid
            self.stories[str(sid)] = st
            self.story_list.append(st)
            if p.dust:
                alias = p.dust % sid
                self.files[self.key(alias)] = st
                st.alts.append(alias)
        self.albums = []
        if p.gallery:
            self.gallery_index = self.add("gallery", "/gallery/",
                                          title("Gallery"), text())
            for a in range(3):
                aname = "%s%d" % (rng.choice(vocab), a + 1)
                alb = self.add("album", "/gallery/%s/" % aname,
                               title("Album"), text())
                alb.photos = []
                ptitle = "%s: Album %s" % (label, aname.capitalize())
                ptext = text(30, 40)
                for i in range(1, 9):
                    if p.gallery == "param":
                        path = "/photo?album=%s&n=%d" % (aname, i)
                        ph = self.add("photo", path, ptitle, ptext,
                                      route=False)
                        self.photos[(aname, str(i))] = ph
                        ph.alts.append("/photo?n=%d&album=%s" % (i, aname))
                    else:
                        ph = self.add("photo", "/gallery/%s/%d.html"
                                      % (aname, i), ptitle, ptext)
                    ph.img = "/img/%s/%d-%08x.jpg" % (aname, i,
                                                      rng.getrandbits(32))
                    ph.album = alb
                    alb.photos.append(ph)
                self.albums.append(alb)
        # Per-request noise on a few articles and stories.
        pool = self.articles + self.story_list
        for pg in rng.sample(pool, max(1, round(len(pool) * p.noise_rate))):
            pg.noisy = True
        # Moved articles: redirect chains from their old URLs.
        self.moved = {}
        if p.moved:
            for art in rng.sample(self.articles,
                                  max(1, round(len(self.articles) * 0.06))):
                slug = art.path.rsplit("/", 1)[1].split("-")[0].lower()
                old = "/old/%s-%d.html" % (slug, art.num)
                if rng.random() < 0.5:
                    self.files[self.key(old)] = ("redirect", 301, art.path)
                else:
                    mid = "/archive/%d" % art.num
                    self.files[self.key(old)] = ("redirect", 301, mid)
                    self.files[self.key(mid)] = ("redirect", 302, art.path)
                self.moved[art.doc] = old
        # Other forms this host answers for each document.
        for pg in self.docs:
            if pg.site is not self:
                continue
            path, q = split_pq(pg.path)
            if pg.kind == "home":
                if p.index_html:
                    pg.alts.append("/index.html")
            elif is_dir(path) and pg.kind != "comments":
                if p.slash in ("redirect", "ignore"):
                    pg.alts.append(path[:-1])
                if p.index_html:
                    pg.alts.append(path + "index.html")
            elif p.slash == "ignore":
                pg.alts.append(path + "/" + ("?" + q if q else ""))
            if pg.kind == "list":
                if pg.num == 1:
                    pg.alts.append("/list?cat=%s" % pg.sec.sec)
                pg.alts.append("/list?page=%d&cat=%s" % (pg.num, pg.sec.sec))
        # Base href: half of the pages of a base host.
        if p.base:
            for pg in self.docs:
                if pg.site is self and rng.random() < 0.5:
                    path = split_pq(pg.path)[0]
                    d = "/" if rng.random() < 0.5 else path[:path.rfind("/")
                                                             + 1]
                    pg.base = d

    # -- link forms ---------------------------------------------------------
    def case_spelling(self, path, rng, pg):
        """One of four other spellings of path's letter case, the same
        four every time path is written."""
        if pg.case_pool is None:
            pg.case_pool = {}
        if path not in pg.case_pool:
            pool = [path.title(), path.upper()] + [
                "".join(c.upper() if rng.random() < 0.5 else c.lower()
                        for c in path) for _ in range(2)]
            pg.case_pool[path] = [x for x in pool if x != path] or [
                path.upper()]
        return rng.choice(pg.case_pool[path])

    def form(self, pg, rng):
        """(host, path and query): a form this site's links use for pg."""
        p = self.p
        pq = pg.path
        old = self.moved.get(pg.doc)
        if old and rng.random() < 0.5:
            pq = old
        elif pg.alts and pg.site is self and rng.random() < 0.4:
            pq = rng.choice(pg.alts)
        path, q = split_pq(pq)
        if p.ci and rng.random() < 0.35:
            path = self.case_spelling(path, rng, pg)
        if p.jsession and rng.random() < 0.35:
            path += ";jsessionid=" + rng.choice(p.jsess_pool)
        extra = []
        if p.session and rng.random() < 0.35:
            extra.append("%s=%s" % (p.session, rng.choice(p.sess_pool)))
        if p.tracker and rng.random() < 0.25:
            extra.append("%s=%s" % (p.tracker, rng.choice(TRACK_VALUES)))
        if p.sort and pg.kind == "list" and rng.random() < 0.4:
            extra.append("sort=" + rng.choice(["date", "title", "asc"]))
        if extra:
            rng.shuffle(extra)
            q = "&".join(([q] if q else []) + extra)
        host = self.name
        if self.alias_www and rng.random() < 0.2:
            host = "www." + self.name
        return host, path + ("?" + q if q else "")

    # -- answering ------------------------------------------------------------
    def lookup(self, key, params):
        e = self.files.get(key)
        if e is not None:
            return e
        e = self.dirs.get(key)
        if e is not None:
            return e
        if key == "/story":
            return self.stories.get(params.get(self.p.story_param))
        if key == "/list":
            return self.lists.get((params.get("cat"), params.get("page", "1")))
        if key == "/photo" and self.p.gallery == "param":
            return self.photos.get((params.get("album"), params.get("n")))
        return None


JSESS = re.compile(r";[^/]*")


def parse_params(q):
    params = {}
    if q:
        for x in q.split("&"):
            k, _, v = x.partition("=")
            params.setdefault(k, v)
    return params


def relref(basedir, pq):
    """A relative reference to pq (absolute path and query) from the
    directory basedir (ending in /)."""
    path, q = split_pq(pq)
    b = basedir.split("/")[1:-1]
    t = path.split("/")[1:]
    c = 0
    while c < len(b) and c < len(t) - 1 and b[c] == t[c]:
        c += 1
    ref = "../" * (len(b) - c) + "/".join(t[c:])
    if ref == "" or ref.startswith("/") or ":" in ref.split("/")[0]:
        ref = "./" + ref
    return ref + ("?" + q if q else "")


class Web:
    def __init__(self, seed=1, hosts=HOSTS_DEFAULT, docs=DOCS_DEFAULT):
        rng = random.Random(seed)
        self.seed = seed
        hw = rng.sample(HOST_WORDS, min(hosts, len(HOST_WORDS)))
        hw += ["w%d" % i for i in range(len(hw), hosts)]
        self.personas = [Persona(rng, k + 1, hw[k]) for k in range(hosts)]
        force_traits(rng, self.personas)
        self.sites = {}   # served host name -> Site
        self.site_list = []
        self.bare = []
        for p in self.personas:
            s = Site(self, p, p.name, docs, rng)
            self.sites[p.name] = s
            self.site_list.append(s)
            self.bare.append(s)
            if p.www == "alias":
                self.sites["www." + p.name] = s
            elif p.www == "distinct":
                w = Site(self, p, "www." + p.name, max(40, docs // 2), rng,
                         twin=s)
                self.sites[w.name] = w
                self.site_list.append(w)
                s.www_site = w
        # Special pages.
        self.soft404 = Page(None, None, "soft404", None, "Page not found",
                            "Sorry, the page you asked for could not be "
                            "found. It may have moved or never existed. "
                            "Try the home page or the search box.")
        self.login = Page(None, None, "login", None, "Sign in",
                          "Please sign in to continue. Members can read "
                          "every article and leave comments.")
        self.private = Page(None, None, "private", None, "Members only",
                            "This area is for members of staff only.")
        for sp in (self.soft404, self.login, self.private):
            sp.links = [("/", None, "/", "Home", None)]
        self.notfound = b"<html><body><h1>404 Not Found</h1></body></html>\n"
        for s in self.site_list:
            self.make_links(s, rng)
        for s in self.site_list:
            for pg in s.docs:
                if pg.site is s:
                    self.render(pg)
        for sp in (self.soft404, self.login, self.private):
            self.render(sp)
        self.robots = b"User-agent: *\nDisallow: /private/\n"

    # -- links ----------------------------------------------------------------
    def make_links(self, s, rng):
        p = s.p
        others = [x for x in self.site_list if x.p is not p]

        def link(pg, target, anchor, site=None):
            site = site or target.site
            host, pq = site.form(target, rng)
            resolved_host = host
            if host != s.name or target.site.p is not p:
                href = "http://%s%s%s" % (host, ":80" if rng.random() < 0.02
                                          else "", pq)
            elif pg.base is not None and rng.random() < 0.7:
                href = relref(pg.base, pq)
            elif rng.random() < 0.15:
                href = "http://%s%s%s" % (host, ":80" if rng.random() < 0.02
                                          else "", pq)
            else:
                href = pq
                resolved_host = None
            if rng.random() < 0.04:
                href += "#" + rng.choice(["top", "comments", "more"])
            pg.links.append((href, resolved_host, pq, anchor, target.doc))

        def cross(pg, n):
            for _ in range(n):
                o = rng.choice(others)
                t = o.home if rng.random() < 0.4 else rng.choice(o.docs)
                if t.site is not o:
                    t = o.home
                link(pg, t, t.title, o)

        def extras(pg):
            if p.login and rng.random() < 0.2:
                pq = "/account/" + rng.choice(ADVERTS)
                pg.links.append((pq, None, pq, "Account", None))
            if p.robots and rng.random() < 0.1:
                pq = "/private/" + rng.choice(ADVERTS)
                pg.links.append((pq, None, pq, "Staff", None))
            if rng.random() < 0.02:
                pq = "/gone/%s-%d" % (rng.choice(ADVERTS), rng.randint(1, 99))
                pg.links.append((pq, None, pq, "Archive", None))
            if not p.ci and rng.random() < 0.05:
                # A link in another case: dead on a case-sensitive host.
                t = rng.choice(arts)
                pq = s.case_spelling(t.path, rng, t)
                pg.links.append((pq, None, pq, "Elsewhere", None))

        arts = s.articles
        for pg in s.docs:
            if pg.site is not s:
                continue
            k = pg.kind
            if k == "home":
                for sec in s.sections:
                    link(pg, sec, sec.title)
                link(pg, s.story_index, s.story_index.title)
                if s.albums:
                    link(pg, s.gallery_index, s.gallery_index.title)
                for t in (s.about, s.terms, s.privacy):
                    link(pg, t, t.title, s)
                for t in rng.sample(s.story_list, min(3, len(s.story_list))):
                    link(pg, t, t.title)
                for t in rng.sample(arts, min(4, len(arts))):
                    link(pg, t, t.title)
                w = getattr(s, "www_site", None)
                if w is not None:
                    link(pg, w.home, w.home.title)
                if p.login:
                    pg.links.append(("/login", None, "/login", "Sign in", None))
                cross(pg, 2)
            elif k == "section":
                for t in pg.lists:
                    link(pg, t, t.title)
                for t in rng.sample(pg.articles, min(4, len(pg.articles))):
                    link(pg, t, t.title)
                if pg.overview:
                    link(pg, pg.overview, pg.overview.title)
                link(pg, s.home, "Home")
                cross(pg, 1)
            elif k == "overview":
                sec = [x for x in s.sections if x.overview is pg][0]
                link(pg, sec, sec.title)
                for t in rng.sample(sec.articles, min(3, len(sec.articles))):
                    link(pg, t, t.title)
                link(pg, s.home, "Home")
            elif k == "list":
                for t in pg.items:
                    link(pg, t, t.title)
                lists = pg.sec.lists
                i = lists.index(pg)
                if i > 0:
                    link(pg, lists[i - 1], "Previous")
                if i + 1 < len(lists):
                    link(pg, lists[i + 1], "Next")
                link(pg, pg.sec, pg.sec.title)
                link(pg, s.home, "Home")
            elif k == "article":
                same = [a for a in pg.sec.articles if a is not pg]
                for t in rng.sample(same, min(rng.randint(3, 6), len(same))):
                    link(pg, t, t.title)
                t = rng.choice(arts)
                link(pg, t, t.title)
                t = rng.choice(s.story_list)
                link(pg, t, t.title)
                if pg.comments:
                    link(pg, pg.comments, "Comments")
                link(pg, pg.sec, pg.sec.title)
                link(pg, s.home, "Home")
                if rng.random() < 0.3:
                    cross(pg, 1)
                extras(pg)
            elif k == "comments":
                link(pg, pg.article, pg.article.title)
                link(pg, s.home, "Home")
            elif k == "stories":
                for t in s.story_list:
                    link(pg, t, t.title)
                link(pg, s.home, "Home")
            elif k == "story":
                for t in rng.sample(s.story_list, min(3, len(s.story_list))):
                    link(pg, t, t.title)
                for t in rng.sample(arts, min(2, len(arts))):
                    link(pg, t, t.title)
                link(pg, s.story_index, s.story_index.title)
                link(pg, s.home, "Home")
                if rng.random() < 0.3:
                    cross(pg, 1)
                extras(pg)
            elif k == "gallery":
                for t in s.albums:
                    link(pg, t, t.title)
                link(pg, s.home, "Home")
            elif k == "album":
                for t in pg.photos:
                    link(pg, t, "Photo")
                link(pg, s.gallery_index, s.gallery_index.title)
                link(pg, s.home, "Home")
                pg.more = rng.sample(arts, min(2, len(arts)))
            elif k == "photo":
                ph = pg.album.photos
                i = ph.index(pg)
                link(pg, ph[i - 1], "Previous")
                link(pg, ph[(i + 1) % len(ph)], "Next")
                link(pg, pg.album, "Album")
                for t in getattr(pg.album, "more", None) or arts[:2]:
                    link(pg, t, "More")
                link(pg, s.home, "Home")
            elif k in ("about", "terms", "privacy"):
                link(pg, s.home, "Home", s)
                for t in (s.about, s.terms, s.privacy):
                    if t is not pg:
                        link(pg, t, t.title.split(":")[1].split()[-2], s)
        # Photo pages are rendered after the album chose its "more" links.

    def render(self, pg):
        base = ('<base href="http://%s%s">' % (pg.site.name, pg.base)
                if pg.base is not None else "")
        head = ('<!DOCTYPE html>\n<html><head><meta charset="utf-8">'
                "<title>%s</title>%s</head><body>\n<h1>%s</h1>\n<p>%s</p>\n"
                % (pg.title, base, pg.title, pg.text))
        tail = ""
        if pg.img:
            tail += '<p><img src="%s" alt=""></p>\n' % pg.img
        tail += "<ul>\n" + "".join(
            '<li><a href="%s">%s</a></li>\n' % (href.replace("&", "&amp;"),
                                                anchor)
            for href, _, _, anchor, _ in pg.links) + "</ul>\n</body></html>\n"
        if pg.noisy:
            pg.pre, pg.post = head.encode(), tail.encode()
        else:
            pg.body = (head + tail).encode()

    def resolved_links(self, pg, host):
        """The absolute URLs of pg's links when served on host."""
        r = pg.logcache.get(host)
        if r is None:
            # Root-relative links resolve against the <base>, if any.
            rh = pg.site.name if pg.base is not None else host
            r = ["http://%s%s" % (h or rh, pq) for _, h, pq, _, _ in pg.links]
            pg.logcache[host] = r
        return r

    # -- answering ------------------------------------------------------------
    def answer(self, host, target):
        """(status, Page or None, location or None) for a request."""
        site = self.sites.get(host)
        if site is None:
            return 404, None, None
        p = site.p
        path, _, q = target.partition("?")
        if p.robots and path == "/robots.txt":
            return 200, "robots", None
        if ";" in path and p.jsession:
            path = JSESS.sub("", path)
        key = site.key(path)
        params = parse_params(q)
        e = site.lookup(key, params)
        if e is None and len(key) > 1:
            if key.endswith("/"):
                if p.slash == "ignore":
                    e = site.lookup(key[:-1], params)
            elif site.dirs.get(key + "/") is not None:
                if p.slash == "redirect":
                    return 301, None, "http://%s%s/%s" % (
                        host, path, "?" + q if q else "")
                if p.slash == "ignore":
                    e = site.dirs[key + "/"]
            if e is None and p.index_html and key.endswith("/index.html"):
                e = site.dirs.get(key[:-len("index.html")])
        if isinstance(e, tuple):
            return e[1], None, "http://%s%s" % (host, e[2])
        if isinstance(e, Page):
            return 200, e, None
        if p.login and (key.startswith("/account/") or key == "/login"):
            return 200, self.login, None
        if key.startswith("/private/"):
            return 200, self.private, None
        if p.soft404:
            return 200, self.soft404, None
        return 404, None, None

    def doc_of(self, host, target):
        """The document a request of host and target ends at (following
        redirects), or None."""
        for _ in range(10):
            status, pg, loc = self.answer(host, target)
            if loc is None:
                return pg.doc if isinstance(pg, Page) else None
            rest = loc[len("http://"):]
            host, _, target = rest.partition("/")
            target = "/" + target
        return None

    def doc_of_url(self, url):
        host, target = split_url(url)
        return self.doc_of(host, target) if host else None

    # -- the whole web ----------------------------------------------------------
    def seeds(self):
        return ["http://%s/" % s.name for s in self.bare]

    def served_pages(self):
        """(host, Page) for every host name and document page it serves."""
        for host, s in self.sites.items():
            for pg in s.docs:
                if pg.site is s:
                    yield host, pg

    def canonical_urls(self):
        for s in self.site_list:
            for pg in s.docs:
                yield "http://%s%s" % (pg.site.name, pg.path), pg.doc

    def linked_urls(self):
        out = set()
        for host, pg in self.served_pages():
            out.update(self.resolved_links(pg, host))
        for sp in (self.soft404, self.login, self.private):
            for host in self.sites:
                out.update(self.resolved_links(sp, host))
        return out

    def disallowed(self, host, target):
        s = self.sites.get(host)
        return bool(s and s.p.robots and target.startswith("/private/"))

    def reachable(self, max_depth=6):
        """BFS from the seeds as a crawler would go (redirect targets at
        the same depth, links one deeper, robots.txt obeyed): the
        documents reached and the URLs requested."""
        seen = set()
        docs = set()
        todo = [(u, 0) for u in self.seeds()]
        seen.update(self.seeds())
        i = 0
        while i < len(todo):
            url, d = todo[i]
            i += 1
            host, target = split_url(url)
            if self.disallowed(host, target):
                continue
            status, pg, loc = self.answer(host, target)
            nxt = []
            if loc:
                nxt = [(loc, d)]
            elif isinstance(pg, Page):
                if pg.doc:
                    docs.add(pg.doc)
                if d < max_depth:
                    nxt = [(u, d + 1) for u in self.resolved_links(pg, host)]
            for u, dd in nxt:
                if u not in seen:
                    seen.add(u)
                    todo.append((u, dd))
        return docs, seen

    def all_docs(self):
        return {pg.doc for s in self.site_list for pg in s.docs}


def split_url(url):
    if not url.startswith("http://"):
        return None, None
    rest = url[len("http://"):]
    host, slash, target = rest.partition("/")
    host = host.split(":")[0].lower()
    return host, "/" + target.split("#")[0]


# -- the server -------------------------------------------------------------------
class Logger:
    def __init__(self, path):
        self.f = open(path, "a", buffering=1 << 16) if path else None
        self.lock = threading.Lock()
        self.ids = itertools.count(1)

    def write(self, *fields):
        if self.f is None:
            return
        line = "\t".join([str(time.monotonic_ns() // 1000000)] +
                         [str(x) for x in fields]) + "\n"
        with self.lock:
            self.f.write(line)
            self.f.flush()

    def close(self):
        if self.f:
            with self.lock:
                self.f.flush()


REASONS = {200: "OK", 301: "Moved Permanently", 302: "Found",
           404: "Not Found", 405: "Method Not Allowed"}


def make_handler(web, log):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "wildweb"

        def log_message(self, *a):
            pass

        def handle_one_request(self):
            # A lean HTTP/1.1 request reader (the stock one parses headers
            # with the email package, a third of the time of a request).
            line = self.rfile.readline(65537)
            if not line:
                self.close_connection = True
                return
            parts = line.split()
            if len(parts) != 3 or not parts[2].startswith(b"HTTP/"):
                self.wfile.write(b"HTTP/1.1 400 Bad Request\r\n"
                                 b"Content-Length: 0\r\n"
                                 b"Connection: close\r\n\r\n")
                self.close_connection = True
                return
            method = parts[0].decode("latin-1")
            self.command = method
            self.path = parts[1].decode("latin-1")
            close = parts[2] == b"HTTP/1.0"
            host = "-"
            length = 0
            while True:
                h = self.rfile.readline(65537)
                if h in (b"\r\n", b"\n", b""):
                    break
                name, _, value = h.partition(b":")
                name = name.strip().lower()
                if name == b"host":
                    host = value.strip().decode("latin-1")
                elif name == b"connection":
                    v = value.strip().lower()
                    close = (True if v == b"close" else
                             False if v == b"keep-alive" else close)
                elif name == b"content-length":
                    length = int(value.strip() or 0)
            if length:
                self.rfile.read(length)
            self.close_connection = close
            self.host = host
            if method in ("GET", "HEAD"):
                self.serve(method == "GET")
            else:
                self.wfile.write(b"HTTP/1.1 405 Method Not Allowed\r\n"
                                 b"Allow: GET, HEAD\r\n"
                                 b"Content-Length: 0\r\n\r\n")

        def serve(self, with_body):
            rid = next(log.ids)
            target = self.path
            hosthdr = self.host
            if target.startswith("http://"):
                h, target = split_url(target)
                hosthdr = h
            log.write(rid, "req", hosthdr, self.command, target, "-", "-")
            host = hosthdr.split(":")[0].lower()
            status, pg, loc = web.answer(host, target)
            ctype = "text/html; charset=utf-8"
            extra = ""
            if loc is not None:
                body = b""
                extra = "Location: %s\r\n" % loc
                log.write(rid, "location", hosthdr, "-", target, "-", loc)
            elif pg == "robots":
                body = web.robots
                ctype = "text/plain"
            elif pg is None:
                body = web.notfound
            else:
                if pg.body is not None:
                    body = pg.body
                else:
                    t = time.time()
                    noise = "<p>Advert: %s — served at %s.%03d</p>\n" % (
                        random.choice(ADVERTS) + random.choice(ADVERTS),
                        time.strftime("%H:%M:%S", time.localtime(t)),
                        int(t * 1000) % 1000)
                    body = pg.pre + noise.encode() + pg.post
                log.write(rid, "links", hosthdr, "-", target, "-",
                          *web.resolved_links(pg, host))
            head = ("HTTP/1.1 %d %s\r\nContent-Type: %s\r\n"
                    "Content-Length: %d\r\n%s\r\n" % (
                        status, REASONS.get(status, "X"), ctype, len(body),
                        extra)).encode()
            try:
                self.wfile.write(head + body if with_body else head)
            except OSError:
                log.write(rid, "abort", hosthdr, self.command, target,
                          status, len(body))
                self.close_connection = True
                return
            log.write(rid, "done", hosthdr, self.command, target, status,
                      len(body) if with_body else 0)

    return Handler


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256


def dump(web, out):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "seeds"), "w") as f:
        for u in web.seeds():
            f.write(u + "\n")
    urls = {}
    for u, d in web.canonical_urls():
        urls[u] = d
    for u in web.linked_urls():
        if u not in urls:
            urls[u] = web.doc_of_url(u)
    with open(os.path.join(out, "truth.jsonl"), "w") as f:
        for u in sorted(urls):
            f.write(json.dumps({"url": u, "doc": urls[u]}) + "\n")
    with open(os.path.join(out, "hosts.txt"), "w") as f:
        for p in web.personas:
            f.write("%s\t%s\n" % (p.name, " ".join(p.traits())))
    return urls


def main():
    ap = argparse.ArgumentParser(description="a seeded wild web server")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hosts", type=int, default=HOSTS_DEFAULT)
    ap.add_argument("--docs", type=int, default=DOCS_DEFAULT)
    ap.add_argument("--port-file")
    ap.add_argument("--log")
    ap.add_argument("--dump")
    a = ap.parse_args()
    web = Web(a.seed, a.hosts, a.docs)
    if a.dump:
        urls = dump(web, a.dump)
        docs, seen = web.reachable()
        print("wildweb: seed %d: %d sites (%d host names), %d documents, "
              "%d reachable within depth 6; %d URLs in the truth, %d "
              "URLs a crawler requests at most" % (
                  a.seed, len(web.site_list), len(web.sites),
                  len(web.all_docs()), len(docs), len(urls), len(seen)),
              file=sys.stderr)
        return
    log = Logger(a.log)
    srv = Server(("127.0.0.1", 0), make_handler(web, log))
    if a.port_file:
        tmp = a.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write("%d\n" % srv.server_address[1])
        os.rename(tmp, a.port_file)

    def stop(*_):
        log.close()
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    srv.serve_forever()


if __name__ == "__main__":
    main()
