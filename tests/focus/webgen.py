#!/usr/bin/env python3
"""webgen.py --shape sites|portals|blogs|wiki|news|mag --seed N --out DIR — a
generated multi-topic web for the focus measurements
(docs/focus.md).

Six topics, each with a vocabulary of 40 words; pages are common English
with about one word in five from their topic.  The crawl's category gets
the topic's name and 11 of its 40 words as keywords (keywords.txt), so a
page or a link text can be on topic without naming a keyword.

shape "sites": 20 sites, each about one topic (the topics in turn), with a
  home page, 4 section pages listing the site's articles by title, and
  100-200 articles; 10 % of a site's articles belong to another topic;
  an article links to 3 related articles of its site, to its section and
  home ("More in this section", "Home"), and 35 % of the articles carry a
  link to an article of another site, which is mostly another topic.
  Home pages link to 3 sites of the same topic and 2 of others.  Article
  URLs carry a slug of the title (/a/123-striker-wins-derby).

shape "portals": 3 portals (a home page of topic names and archive pages
  that mix every topic: off-topic navigation; one section page per topic
  listing 40 articles of every site in that topic: a hub of the topic), 8 mixed sites (two or
  three topics each, one section per topic, tag pages that mix topics),
  and series whose parts drift from one topic to another (each part links
  the next, "Continue reading").  URLs are opaque (/item?id=N) and half
  the link texts are "Read more": the URL and the anchor say less here.

shape "blogs": a blog platform (one host) and the web around it, written
  after the policy was chosen and never used to choose it.  30 blogs,
  one in five about two topics; a blog's home and its "Older posts"
  pages list its posts by title, ten a page (a chain as deep as the blog
  is long); each post links its neighbours ("Previous post", "Next
  post": another topic now and then on a blog of two), 1-3 tag pages of
  the platform (#word: every post with the word, whichever blog), its
  month's archive, and the platform's own pages on every page (home,
  popular, about, login: off topic, the home and popular listing posts
  of every topic).  Blog homes link 5 other blogs (a blogroll, mostly
  the same topic), and 15 % of the posts a post of another blog.  Six
  aggregator sites (one a topic) list 40 of the topic's posts and link
  each other.  Post URLs carry a date and a slug (/u/NAME/2024/05/slug).
  The seeds are the platform's home (off topic) and a blog of the topic.

shape "wiki": an encyclopedia on one host, written after every decision
  of the first focus design and measured as it came.  40 articles a topic, each
  linking 4-8 others by title (one in four of another topic), 2 "See
  also", a navigation box of 12 articles of its topic, its topic's
  category page and a maintenance category that lists articles of every
  topic, its talk page (on topic), its edit and history pages (off
  topic: /w/index.php?action=edit&title=...), and the wiki's main page,
  recent changes, help and about (off topic).  Disambiguation pages list
  articles of several topics that share a word.  The seeds are the main
  page and an article of the topic.  As on the other shapes, no title of
  a navigation page has a word of a topic: the edit and history pages
  name their article in the URL only (with the article's title in theirs,
  relevance at min_relevance 0.1 calls them on topic, and the labels
  would contradict what the crawl is told to look for).

shape "news": 20 news sites, each about one topic (the topics
  in turn), with the traits a crawl of "sites" did not meet.  A site has
  a home page, 3-5 sections (a word of its topic or two, the others
  generic: features, opinion, ...) and 100-180 articles, newest first,
  one section bigger than the others.  Each section is a paginated list,
  /list?cat=SECTION&page=N, ten article titles a page (each after its
  date), with "Previous page", "Next page" and "Page N" links (first,
  last, two either side); its own words are one line of boilerplate, no
  paragraph of topic text.  A list page is labelled with the topic of
  most of its articles (the site's).  Articles past page 4 of their
  section are reached only through the lists (and their own related
  links): the pagination goes deep, to page 10 and more.  A tenth of a
  site's articles are of another topic and are reached only from the
  site's own pages of links (its lists, its tag pages, its home, which
  lists the latest 6 articles) and its "Most read" box: no related or
  cross-site link leads to them.  An article links 2-4 related articles
  of its section and the site's topic published near it, its section's
  first list page and home, its tag pages (/tag/WORD: one or two tags an
  article, a word of its topic or a generic one such as "analysis"; a
  tag page lists the latest 12 of its articles, of several topics,
  labelled with a topic when 60 % of them have it, "nav" otherwise), and
  carries a "Most read" box of 5 of the site's 8 popular articles (any
  topic).  One article in 14 has a title with no word of any topic
  ("Five things we learned this week") and a body on topic.  Home pages
  link to 3 sites of the same topic and 2 of others, their sections and
  4 tags; 30 % of the articles link an article of another site (three
  times in four of another topic).  Article URLs carry a date and a slug
  (/2024/05/17/slug-of-title); the site names have no topic word.  The
  seeds are the home pages of two sites of the topic.

shape "mag": HELD OUT.  Use it only to measure a policy already chosen,
  never to choose one (no parameter may be tuned on it).  12 magazines of
  2-3 topics each (in uneven shares), 110-170 long reads
  each at opaque URLs (/story/48213; one in five goes on over a second
  page, /story/48213?page=2, "Continue reading"; one in ten has a title
  with no topic word).  A magazine publishes its articles in issues
  (/issue/N, 8-14 articles of all its topics, an editor's note of their
  topics, the articles' titles as anchors half the time and "Read
  article" the other half, with the title as a teaser now and then;
  "Previous issue" / "Next issue"), an archive of the issues (nav), a
  subject index per topic (/subject/TOPIC: every article of it, by title;
  on topic), author pages (/author/NAME: an author writes on one or two
  of the magazine's topics) and an "Editor's picks" chain (/picks/N, four
  articles of any topic with a paragraph about them, "Older picks" /
  "Newer picks").  Issues, author pages and picks are labelled with a
  topic when 60 % of their articles have it, "nav" otherwise.  Articles
  link their issue, the next article of the issue (whatever its topic),
  their author, their subject index ("More on this subject") and 0-2
  articles of their topic by title; one in five links an article of
  another magazine ("In The Weekend Review: Read article" or its title).
  Magazines link each other only from their "Partners" page (4-6 homes);
  every page carries Home, Issues, Subscribe and About (nav).  The home
  page (nav) links the latest issue and 4 of its articles, the subject
  indexes, the picks and the partners.  The seeds are the home page of a
  magazine of the topic (off topic) and the subject index of another.

shape "zine": a TUNING shape, written to choose
  the samples' budget on hosts of several topics without looking at
  "mag".  14 general-interest weeklies, each of 3-4 topics in uneven
  shares (one leads with about half of its articles); sports is among
  them on 8 of them, the lead on 2.  Articles are at opaque URLs
  (/p/N), their anchors the title (six in ten) or "Keep reading".  A
  weekly has a home page (nav: the latest 8 articles, its topics'
  sections, "Friends": 3 other weeklies), a section per topic,
  paginated (/topics/NAME/N, 12 titles a page, labelled with the topic),
  daily digests (/digest/N: 6 articles of any topic, each with a
  teaser of one word of its topic, "Earlier digest"; labelled as majority() says),
  and letters pages (/letters/N, nav).  An article links 3 "You may also
  like" articles of its weekly of any topic, 1-2 of its topic by title,
  its section's first page, its digest, home, and one in five an article
  of another weekly (any topic, by title).  The seeds are the home of a
  weekly led by sports (off topic) and the sports section of another.
  Its traits: a host's pruned links of one shape (/p/N) are mostly of
  other topics, so its samples cost harvest; what a sample of such a
  host says must stop it quickly.

Writes in DIR: web (for sc-fixture), labels.tsv (URL, topic or "nav"),
seeds-TOPIC.txt, keywords.txt (TOPIC, keywords).  The same seed gives the
same bytes."""

import argparse
import os
import random

TOPICS = ["sports", "cooking", "gardening", "astronomy", "programming",
          "music"]
VOCAB = {
    "sports": """football goal striker midfielder penalty referee league
        stadium goalkeeper tennis match tournament coach squad season
        derby champion athlete sprint marathon basketball rugby cricket
        olympic medal transfer fixture cup trophy defender winger captain
        pitch score halftime volley foul playoff racket scoreboard""",
    "cooking": """recipe garlic butter oven simmer pasta sauce bake dough
        kitchen onion flour tomato basil roast braise knead pepper
        skillet broth stew vinegar olive herbs dessert pastry whisk
        caramelize marinade chef spoon grill soup yeast cream chocolate
        sugar lemon saucepan""",
    "gardening": """garden soil compost seedling prune mulch perennial
        greenhouse shrub bulbs trowel hedge lawn weeding fertilizer roses
        tulip watering sprout cuttings hoe rake bloom pollinator orchard
        manure potting foliage hardy frost germinate trellis dahlia
        hydrangea irrigation annual seeds hedgerow""",
    "astronomy": """telescope galaxy nebula planet orbit comet eclipse
        supernova constellation observatory asteroid star stellar lunar
        solar spectrum redshift quasar pulsar cosmic meteor jupiter saturn
        mars exoplanet gravity astronomer lightyear nova aperture eyepiece
        celestial universe cosmology zenith moon""",
    "programming": """compiler function variable pointer algorithm
        debugger recursion database thread kernel syntax interface library
        framework query mutex python javascript binary runtime refactor
        commit repository branch merge unittest bytecode lambda closure
        iterator struct array hashmap stack parser linker""",
    "music": """guitar melody chord orchestra concert album rhythm piano
        violin symphony drummer singer lyrics tempo harmony bass jazz
        opera choir composer conductor rehearsal chorus verse ballad
        saxophone trumpet cello octave acoustic amplifier vinyl playlist
        festival songwriter quartet""",
}
COMMON = """the of and to in is was for on that with as by at from this
    have are be it not or which but one all were we when there can an
    your so more about some other time very what its their also after
    first new would people could then these two may only like well
    back over good just most our way many much where year day today
    week friend family little found made again best small long around
    always think start part place right thing story""".split()
GENERIC = ["Read more", "Continue", "More", "Next", "Previous", "Archive",
           "Latest", "Here", "Full story", "Open"]


class Web:
    def __init__(self, rng):
        self.rng = rng
        self.pages = {}  # url -> dict(topic, title, links[(url, anchor)])
        self.vocab = {t: v.split() for t, v in VOCAB.items()}

    def page(self, url, topic, title, text_topics=None):
        self.pages[url] = {"topic": topic, "title": title, "links": [],
                           "text": text_topics if text_topics is not None
                           else ([topic] if topic != "nav" else [])}
        return url

    def link(self, src, dst, anchor, teaser=""):
        if src != dst:
            self.pages[src]["links"].append((dst, anchor, teaser))

    def title(self, topic):
        r = self.rng
        w = r.sample(self.vocab[topic], 2)
        c = r.sample(COMMON, 2)
        forms = ["%s %s %s" % (w[0].capitalize(), c[0], w[1]),
                 "%s and %s" % (w[0].capitalize(), w[1]),
                 "The %s %s %s" % (w[0], c[0], w[1]),
                 "%s %s" % (w[0].capitalize(), c[1])]
        return r.choice(forms)

    def text(self, topics, words):
        r = self.rng
        out = []
        for _ in range(words):
            if topics and r.random() < 0.2:
                out.append(r.choice(self.vocab[r.choice(topics)]))
            else:
                out.append(r.choice(COMMON))
        for _ in range(r.choice([0, 0, 1, 2])):
            other = r.choice([t for t in TOPICS if t not in topics])
            out.insert(r.randrange(len(out)), r.choice(self.vocab[other]))
        sents, i = [], 0
        while i < len(out):
            n = r.randint(8, 14)
            s = " ".join(out[i:i + n])
            sents.append(s[0].upper() + s[1:] + ".")
            i += n
        return "".join("<p>%s</p>" % " ".join(sents[j:j + 3])
                       for j in range(0, len(sents), 3))

    def write(self, out, seeds, keywords):
        os.makedirs(out, exist_ok=True)
        by_host = {}
        for url in self.pages:
            by_host.setdefault(url.split("/")[2], []).append(url)
        with open(os.path.join(out, "web"), "w") as f:
            f.write("# Generated by webgen.py: do not edit.\n")
            for host in sorted(by_host):
                f.write("\nhost %s\ndefault 404\n" % host)
                for url in sorted(by_host[host]):
                    p = self.pages[url]
                    if "body" in p:  # a page of its own words (news, mag)
                        text = p["body"]
                    else:
                        words = self.rng.randint(60, 120) \
                            if p["topic"] == "nav" \
                            else self.rng.randint(150, 320)
                        text = self.text(p["text"], words)
                    nav = "".join("<li>%s<a href='%s'>%s</a></li>"
                                  % (t + " " if t else "", u, a)
                                  for u, a, t in p["links"])
                    # Boxes beside the page's links ("Most read").
                    boxes = "".join(
                        "<aside><h2>%s</h2><ul>%s</ul></aside>"
                        % (h, "".join("<li><a href='%s'>%s</a></li>"
                                      % (u, a) for u, a in ls))
                        for h, ls in p.get("boxes", []))
                    body = ("<!doctype html><html><head><title>%s</title>"
                            "</head><body><h1>%s</h1>%s<nav><ul>%s</ul>"
                            "</nav>%s</body></html>"
                            % (p["title"], p["title"], text, nav, boxes))
                    path = url[len("http://") + len(host):]
                    f.write('page %s 200 text/html body="%s"\n'
                            % (path, body.replace("\\", "\\\\")
                               .replace('"', '\\"')))
        with open(os.path.join(out, "labels.tsv"), "w") as f:
            for url in sorted(self.pages):
                f.write("%s\t%s\n" % (url, self.pages[url]["topic"]))
        for t in TOPICS:
            with open(os.path.join(out, "seeds-%s.txt" % t), "w") as f:
                f.write("".join(u + "\n" for u in seeds[t]))
        with open(os.path.join(out, "keywords.txt"), "w") as f:
            for t in TOPICS:
                f.write("%s\t%s\n" % (t, ", ".join(keywords[t])))


def slug(title):
    return "-".join("".join(c for c in w.lower() if c.isalnum())
                    for w in title.split())


def shape_sites(web):
    r = web.rng
    hosts = []
    seeds = {t: [] for t in TOPICS}
    for i in range(20):
        t = TOPICS[i % len(TOPICS)]
        host = "site%02d.test" % i
        hosts.append((host, t))
    arts = {}  # host -> [article urls]
    for host, t in hosts:
        home = web.page("http://%s/" % host, t, "%s news" % host[:-5])
        sections = [web.page("http://%s/section/%d" % (host, k), t,
                             "Section %d" % k) for k in range(1, 5)]
        for k, s in enumerate(sections):
            web.link(home, s, "Section %d" % (k + 1))
        arts[host] = []
        for n in range(r.randint(100, 200)):
            at = t if r.random() < 0.9 else r.choice(
                [o for o in TOPICS if o != t])
            title = web.title(at)
            url = web.page("http://%s/a/%d-%s" % (host, n, slug(title)), at,
                           title)
            sec = sections[n % 4]
            web.link(sec, url, title)
            arts[host].append(url)
        for n, url in enumerate(arts[host]):
            same = [u for u in arts[host] if u != url]
            for u in r.sample(same, 3):
                web.link(url, u, web.pages[u]["title"])
            web.link(url, sections[n % 4], "More in this section")
            web.link(url, home, "Home")
        for u in arts[host][-5:]:
            web.link(home, u, web.pages[u]["title"])
    for host, t in hosts:
        home = "http://%s/" % host
        same = [h for h, o in hosts if o == t and h != host]
        other = [h for h, o in hosts if o != t]
        for h in r.sample(same, min(3, len(same))):
            web.link(home, "http://%s/" % h, "%s news" % h[:-5])
        for h in r.sample(other, 2):
            web.link(home, "http://%s/" % h, "%s news" % h[:-5])
        for url in arts[host]:
            if r.random() < 0.35:
                h = r.choice([h for h, _ in hosts if h != host])
                u = r.choice(arts[h])
                web.link(url, u, web.pages[u]["title"])
    for t in TOPICS:
        seeds[t] = ["http://%s/" % h for h, o in hosts if o == t][:2]
    return seeds


def shape_portals(web):
    r = web.rng
    ids = iter(range(1000, 10 ** 6))

    def item(host):
        return "http://%s/item?id=%d" % (host, next(ids))

    def link(src, dst):
        # Half the links name their page; the others say "Read more",
        # after a teaser (the title) half the time.
        title = web.pages[dst]["title"]
        x = r.random()
        if x < 0.5:
            web.link(src, dst, title)
        elif x < 0.75:
            web.link(src, dst, r.choice(GENERIC), title + ".")
        else:
            web.link(src, dst, r.choice(GENERIC))

    by_topic = {t: [] for t in TOPICS}
    mixed = []
    for m in range(8):
        host = "mixed%d.test" % m
        topics = r.sample(TOPICS, r.choice([2, 3]))
        home = web.page("http://%s/" % host, "nav", "%s magazine" % host[:-5],
                        topics)
        arts = []
        for t in topics:
            sec = web.page("http://%s/section/%s" % (host, t), t,
                           web.title(t))
            web.link(home, sec, t.capitalize())
            for _ in range(r.randint(25, 50)):
                title = web.title(t)
                u = web.page(item(host), t, title)
                link(sec, u)
                arts.append(u)
                by_topic[t].append(u)
        for u in arts:
            for v in r.sample(arts, 2):
                link(u, v)
            web.link(u, home, "Home")
        for k in range(3):  # tag pages: off-topic navigation, mixed links
            tag = web.page("http://%s/tags/%d" % (host, k), "nav",
                           "Tags %d" % k, [])
            web.link(home, tag, "Tags %d" % k)
            for v in r.sample(arts, min(15, len(arts))):
                link(tag, v)
        mixed.append((host, topics, home))
    # Series: parts drift from topic a to topic b halfway.
    for s in range(12):
        host = "mixed%d.test" % (s % 8)
        a, b = r.sample(TOPICS, 2)
        parts = []
        n = r.randint(6, 10)
        for k in range(n):
            t = a if k < n // 2 else b
            parts.append(web.page(item(host), t, web.title(t)))
            by_topic[t].append(parts[-1])
        for k in range(n - 1):
            web.link(parts[k], parts[k + 1], "Continue reading")
        first = [u for u, p in web.pages.items()
                 if p["topic"] == a and u.startswith("http://%s/" % host)
                 and u not in parts]
        if first:
            link(r.choice(first), parts[0])
        else:
            link("http://%s/" % host, parts[0])
    portals = []
    for p in range(3):
        host = "portal%d.test" % p
        home = web.page("http://%s/" % host, "nav", "Portal %d" % p, [])
        for t in TOPICS:
            # A topic's section lists its headlines: a hub of the topic.
            sec = web.page("http://%s/topic/%s" % (host, t), t,
                           "%s headlines" % t.capitalize(), [])
            web.link(home, sec, t.capitalize())
            for u in r.sample(by_topic[t], min(40, len(by_topic[t]))):
                link(sec, u)
        for k in range(4):
            arc = web.page("http://%s/archive/%d" % (host, k), "nav",
                           "Archive %d" % k, [])
            web.link(home, arc, "Archive %d" % k)
            every = [u for t in TOPICS for u in by_topic[t]]
            for u in r.sample(every, 30):
                link(arc, u)
        for h, _, mhome in mixed:
            web.link(home, mhome, "%s magazine" % h[:-5])
        portals.append(home)
    # Articles point at portals and at other sites' articles now and then.
    every = [u for t in TOPICS for u in by_topic[t]]
    for u in every:
        if r.random() < 0.1:
            web.link(u, r.choice(portals), "Portal")
        if r.random() < 0.25:
            v = r.choice(every)
            link(u, v)
    seeds = {}
    for t in TOPICS:
        own = [home for _, topics, home in mixed if t in topics]
        seeds[t] = [portals[0]] + own[:1]
    return seeds


def shape_blogs(web):
    r = web.rng
    P = "http://blogs.test"
    names = ["%s%d" % (r.choice(["ana", "ben", "cleo", "dev", "eli", "fay",
                                 "gus", "hana", "ivo", "jun"]), k)
             for k in range(30)]
    home = web.page(P + "/", "nav", "Blogs: explore", [])
    popular = web.page(P + "/popular", "nav", "Popular this week", [])
    about = web.page(P + "/about", "nav", "About the platform", [])
    login = web.page(P + "/login", "nav", "Sign in", [])
    platform = [(home, "Explore"), (popular, "Popular"), (about, "About"),
                (login, "Sign in")]
    tags = {}  # word -> (url, [posts])
    blogs = []  # (name, topics, blog home)
    posts_of = {t: [] for t in TOPICS}
    every = []
    for i, name in enumerate(names):
        t = TOPICS[i % len(TOPICS)]
        topics = [t] if r.random() < 0.8 else \
            [t, r.choice([o for o in TOPICS if o != t])]
        label = t if len(topics) == 1 else "nav"
        bhome = web.page("%s/u/%s/" % (P, name), label,
                         "%s writes" % name.capitalize(), topics)
        posts = []
        for n in range(r.randint(20, 60)):
            pt = topics[0] if len(topics) == 1 or r.random() < 0.6 \
                else topics[1]
            title = web.title(pt)
            month = 12 - n * 12 // 60
            u = web.page("%s/u/%s/2024/%02d/%s" % (P, name, month,
                                                   slug(title)), pt, title)
            posts.append(u)
            posts_of[pt].append(u)
            every.append(u)
            # Tags: words of the post's topic mostly, a common one now
            # and then.
            for _ in range(r.randint(1, 3)):
                w = r.choice(web.vocab[pt]) if r.random() < 0.8 \
                    else r.choice(COMMON)
                tags.setdefault(w, []).append(u)
        # Listing pages, newest first, ten a page.
        pages = [bhome]
        for k in range(1, (len(posts) + 9) // 10):
            pages.append(web.page("%s/u/%s/page/%d" % (P, name, k + 1),
                                  label, "%s writes, page %d"
                                  % (name.capitalize(), k + 1), topics))
        for k, pg in enumerate(pages):
            for u in posts[10 * k:10 * k + 10]:
                web.link(pg, u, web.pages[u]["title"],
                         r.choice(["", web.pages[u]["title"] + "."]))
            if k + 1 < len(pages):
                web.link(pg, pages[k + 1], "Older posts")
        months = {}
        for u in posts:
            months.setdefault(u.split("/")[6], []).append(u)
        for m, us in months.items():
            arc = web.page("%s/u/%s/2024/%s/" % (P, name, m), label,
                           "%s, 2024-%s" % (name.capitalize(), m), topics)
            for u in us:
                web.link(arc, u, web.pages[u]["title"])
        for n, u in enumerate(posts):
            if n > 0:
                web.link(u, posts[n - 1], "Next post")
            if n + 1 < len(posts):
                web.link(u, posts[n + 1], "Previous post")
            web.link(u, "%s/u/%s/2024/%s/" % (P, name, u.split("/")[6]),
                     "Archive")
            web.link(u, bhome, name.capitalize())
        blogs.append((name, topics, bhome))
    for w, us in tags.items():
        wt = [t for t in TOPICS if w in web.vocab[t]]
        tag = web.page("%s/tag/%s" % (P, w), wt[0] if wt else "nav",
                       "Posts tagged %s" % w, wt[:1])
        for u in us[:40]:
            web.link(tag, u, web.pages[u]["title"])
        for u in us:
            web.link(u, tag, "#" + w)
    for u in r.sample(every, 30):
        web.link(home, u, web.pages[u]["title"])
    for u in r.sample(every, 20):
        web.link(popular, u, web.pages[u]["title"])
    for name, topics, bhome in blogs:
        web.link(home, bhome, name.capitalize())
        same = [b for _, ts, b in blogs if ts[0] == topics[0] and b != bhome]
        other = [b for _, ts, b in blogs if ts[0] != topics[0]]
        for b in r.sample(same, min(3, len(same))) + r.sample(other, 2):
            web.link(bhome, b, b.split("/")[4].capitalize())
    for u in every:
        if r.random() < 0.15:
            v = r.choice(every)
            if v.split("/")[4] != u.split("/")[4]:
                web.link(u, v, web.pages[v]["title"])
    # The platform's pages on every page of it.
    for u in list(web.pages):
        for dst, anchor in platform:
            web.link(u, dst, anchor)
    for t in TOPICS:
        agg = web.page("http://planet-%s.test/" % t, t,
                       "Planet %s" % t.capitalize())
        for u in r.sample(posts_of[t], min(40, len(posts_of[t]))):
            web.link(agg, u, web.pages[u]["title"])
        for o in TOPICS:
            if o != t:
                web.link(agg, "http://planet-%s.test/" % o,
                         "Planet %s" % o.capitalize())
    seeds = {}
    for t in TOPICS:
        own = [b for _, ts, b in blogs if ts == [t]]
        seeds[t] = [home] + own[:1]
    return seeds


def shape_wiki(web):
    r = web.rng
    W = "http://wiki.test"

    def name(title):
        return title.replace(" ", "_")

    main = web.page(W + "/wiki/Main_Page", "nav", "Main page", [])
    recent = web.page(W + "/wiki/Special:RecentChanges", "nav",
                      "Recent changes", [])
    helpp = web.page(W + "/wiki/Help:Contents", "nav", "Help", [])
    about = web.page(W + "/wiki/Wiki:About", "nav", "About the wiki", [])
    maint = web.page(W + "/wiki/Category:Articles_needing_sources", "nav",
                     "Articles needing sources", [])
    chrome = [(main, "Main page"), (recent, "Recent changes"),
              (helpp, "Help"), (about, "About")]
    arts = {t: [] for t in TOPICS}
    by_word = {}
    for t in TOPICS:
        for _ in range(40):
            title = web.title(t)
            u = W + "/wiki/" + name(title)
            if u in web.pages:
                continue
            web.page(u, t, title)
            arts[t].append(u)
            for w in title.lower().split():
                by_word.setdefault(w, []).append(u)
    every = [u for t in TOPICS for u in arts[t]]
    for t in TOPICS:
        cat = web.page(W + "/wiki/Category:" + t.capitalize(), t,
                       "Category: %s" % t.capitalize())
        for u in arts[t]:
            web.link(cat, u, web.pages[u]["title"])
        for u in arts[t]:
            title = web.pages[u]["title"]
            same = [v for v in arts[t] if v != u]
            other = [v for v in every if web.pages[v]["topic"] != t]
            for _ in range(r.randint(4, 8)):
                v = r.choice(same) if r.random() < 0.75 else r.choice(other)
                web.link(u, v, web.pages[v]["title"])
            for v in r.sample(same, 2):
                web.link(u, v, web.pages[v]["title"])
            for v in r.sample(same, min(12, len(same))):
                web.link(u, v, web.pages[v]["title"])
            web.link(u, cat, t.capitalize())
            if r.random() < 0.3:
                web.link(u, maint, "Articles needing sources")
                web.link(maint, u, title)
            talk = web.page(W + "/wiki/Talk:" + name(title), t,
                            "Talk: " + title)
            web.link(u, talk, "Talk")
            web.link(talk, u, title)
            for action in ("edit", "history"):
                a = web.page("%s/w/index.php?action=%s&title=%s"
                             % (W, action, name(title)), "nav",
                             "Editing a page" if action == "edit"
                             else "Revision history", [])
                web.link(u, a, action.capitalize())
                web.link(a, u, title)
                if action == "history" and r.random() < 0.3:
                    web.link(recent, a, title)
    for w, us in sorted(by_word.items()):
        topics = {web.pages[u]["topic"] for u in us}
        if len(topics) < 2 or len(w) <= 3:
            continue
        d = web.page("%s/wiki/%s_(disambiguation)" % (W, w.capitalize()),
                     "nav", "%s (disambiguation)" % w.capitalize(), [])
        for u in us:
            web.link(d, u, web.pages[u]["title"])
            web.link(u, d, "%s (disambiguation)" % w.capitalize())
    for u in r.sample(every, 24):
        web.link(main, u, web.pages[u]["title"])
    for u in list(web.pages):
        for dst, anchor in chrome:
            web.link(u, dst, anchor)
    return {t: [main, arts[t][0]] for t in TOPICS}


# Titles with no word of any topic (the body is on topic all the same).
PLAIN_TITLES = ["Five things we learned this week", "What we know so far",
                "The week in review", "Our verdict on the weekend",
                "Ten questions answered", "Readers write back",
                "A day in the life", "Where do we go from here",
                "The long read: how it all began",
                "Winners and losers of the month",
                "Seven lessons from a busy week",
                "Everything you need to know"]
SECTION_NAMES = ["latest", "features", "opinion", "local", "analysis",
                 "interviews", "world"]
GENERIC_TAGS = ["analysis", "interview", "opinion", "weekend", "explainer",
                "live", "local", "review"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July",
          "August", "September", "October", "November", "December"]


def majority(web, urls, share=0.6):
    """The topic of at least `share` of the pages urls, or "nav"."""
    count = {}
    for u in urls:
        t = web.pages[u]["topic"]
        count[t] = count.get(t, 0) + 1
    best = max(count.items(), key=lambda x: x[1]) if count else ("nav", 0)
    return best[0] if best[0] != "nav" and best[1] >= share * len(urls) \
        else "nav"


def shape_news(web):
    import datetime
    r = web.rng
    hosts = [("news%02d.test" % i, TOPICS[i % len(TOPICS)])
             for i in range(20)]
    names = {}
    for host, _ in hosts:
        names[host] = "The %s %s" % (
            r.choice(["Daily", "Evening", "Morning", "Weekly", "City",
                      "National", "Northern", "Coastal"]),
            r.choice(["Post", "Herald", "Courier", "Gazette", "Times",
                      "Chronicle", "Dispatch", "Ledger"]))
    info = {}  # host -> dict(home, arts (newest first), own, sections)
    for host, t in hosts:
        H = "http://" + host
        home = web.page(H + "/", t, names[host], [])
        web.pages[home]["body"] = ("<p>News from %s, updated through the "
                                   "day.</p>" % names[host])
        ns = r.randint(3, 5)
        secs = r.sample(web.vocab[t], r.choice([1, 2])) + \
            r.sample(SECTION_NAMES, 5)
        secs = secs[:ns]
        weights = [r.uniform(1, 3) for _ in secs]
        weights[0] *= 2  # one big section: deep pagination
        nart = r.randint(100, 180)
        day = datetime.date(2024, 6, 30)
        arts, sec_of, archive = [], {}, set()
        by_sec = {s: [] for s in secs}
        for n in range(nart):  # newest first
            at = t if r.random() < 0.9 else r.choice(
                [o for o in TOPICS if o != t])
            title = r.choice(PLAIN_TITLES) if r.random() < 0.07 \
                else web.title(at)
            url = "%s/%04d/%02d/%02d/%s" % (H, day.year, day.month, day.day,
                                            slug(title))
            k = 2
            while url + ("-%d" % k if k > 2 else "") in web.pages:
                k += 1
            url += "-%d" % k if k > 2 else ""
            web.page(url, at, title)
            web.pages[url]["date"] = "%d %s %d" % (
                day.day, MONTHS[day.month - 1], day.year)
            s = r.choices(secs, weights)[0]
            sec_of[url] = s
            by_sec[s].append(url)
            arts.append(url)
            if r.random() < 0.7:
                day -= datetime.timedelta(days=1)
        # Section lists, ten a page, newest first.
        lists = {}
        for s in secs:
            us = by_sec[s]
            archive |= set(us[40:])  # past page 4: only through the lists
            npg = max(1, (len(us) + 9) // 10)
            pages = []
            for k in range(1, npg + 1):
                chunk = us[10 * (k - 1):10 * k]
                pg = web.page("%s/list?cat=%s&page=%d" % (H, s, k),
                              majority(web, chunk, 0.51), "%s, page %d: %s"
                              % (s.capitalize(), k, names[host]), [])
                web.pages[pg]["body"] = (
                    "<p>%s: all our stories, newest first. Page %d of "
                    "%d.</p>" % (s.capitalize(), k, npg))
                for u in chunk:
                    web.link(pg, u, web.pages[u]["title"],
                             web.pages[u]["date"])
                pages.append(pg)
            for k, pg in enumerate(pages, 1):
                if k > 1:
                    web.link(pg, pages[k - 2], "Previous page")
                for j in sorted({1, k - 2, k - 1, k + 1, k + 2, npg}):
                    if 1 <= j <= npg and j != k:
                        web.link(pg, pages[j - 1], "Page %d" % j)
                if k < npg:
                    web.link(pg, pages[k], "Next page")
                web.link(pg, home, "Home")
            lists[s] = pages
            web.link(home, pages[0], s.capitalize())
        for u in arts[:6]:
            web.link(home, u, web.pages[u]["title"])
        own = [u for u in arts if web.pages[u]["topic"] == t]
        popular = r.sample(arts[:40], 8)  # any topic
        info[host] = {"home": home, "arts": arts, "archive": archive,
                      "own": own, "lists": lists, "sec_of": sec_of,
                      "by_sec": by_sec, "popular": popular, "topic": t}
        # Tags: words of the article's topic, or generic ones.
        tags = {}
        for u in arts:
            at = web.pages[u]["topic"]
            for _ in range(r.randint(1, 2)):
                w = r.choice(web.vocab[at][:8]) if r.random() < 0.5 \
                    else r.choice(GENERIC_TAGS)
                if u not in tags.setdefault(w, []):
                    tags[w].append(u)
        for w in sorted(tags):
            listed = [u for u in tags[w] if u not in archive][:12]
            if not listed:
                continue
            tg = web.page("%s/tag/%s" % (H, w), majority(web, listed),
                          "Stories tagged %s" % w, [])
            web.pages[tg]["body"] = ("<p>The latest stories tagged %s.</p>"
                                     % w)
            for u in listed:
                web.link(tg, u, web.pages[u]["title"], web.pages[u]["date"])
                web.link(u, tg, "#" + w)
            web.link(tg, home, "Home")
        for w in r.sample(sorted(tags), min(4, len(tags))):
            if H + "/tag/" + w in web.pages:
                web.link(home, H + "/tag/" + w, "#" + w)
    for host, t in hosts:
        d = info[host]
        for u in d["arts"]:
            s = d["sec_of"][u]
            sec = d["by_sec"][s]
            i = sec.index(u)
            old = u in d["archive"]
            # Related: the section's stories of the article's own topic
            # near it in time; a story of another topic than its site's
            # is never another story's related one.
            near = [v for v in sec[max(0, i - 12):i + 13]
                    if v != u and (v in d["archive"]) == old
                    and web.pages[v]["topic"] == t]
            for v in r.sample(near, min(len(near), r.randint(2, 4))):
                web.link(u, v, web.pages[v]["title"])
            web.link(u, d["lists"][s][0], "More in %s" % s.capitalize())
            web.link(u, d["home"], "Home")
            web.pages[u]["boxes"] = [("Most read", [
                (v, web.pages[v]["title"])
                for v in r.sample(d["popular"], 5)])]
            if r.random() < 0.3:
                same_t = [h for h, o in hosts if o == t and h != host]
                other = [h for h, o in hosts if o != t]
                h = r.choice(same_t if r.random() < 0.25 else other)
                e = info[h]
                v = r.choice([x for x in e["own"]
                              if x not in e["archive"]])
                web.link(u, v, web.pages[v]["title"])
        home = d["home"]
        same = [h for h, o in hosts if o == t and h != host]
        other = [h for h, o in hosts if o != t]
        for h in r.sample(same, min(3, len(same))) + r.sample(other, 2):
            web.link(home, info[h]["home"], names[h])
    return {t: [info[h]["home"] for h, o in hosts if o == t][:2]
            for t in TOPICS}


def shape_mag(web):
    r = web.rng
    ids = r.sample(range(10000, 99999), 4000)
    first = ["Weekend", "Northern", "Open", "Quiet", "Modern", "Evening",
             "Common", "Long"]
    second = ["Review", "Notes", "Journal", "Digest", "Monthly", "Reader"]
    titles = r.sample(["The %s %s" % (a, b) for a in first for b in second],
                      12)
    authors = ["ada", "bo", "cy", "dana", "ed", "flo", "gil", "hal", "ines",
               "jo", "kit", "lou", "max", "noor", "oli", "pia"]
    mags = []
    for m in range(12):
        topics = [TOPICS[m % 6], TOPICS[(m + 1) % 6]]
        if r.random() < 0.5:
            topics.append(r.choice([o for o in TOPICS if o not in topics]))
        mags.append(("mag%02d.test" % m, topics, titles[m]))
    info = {}
    for host, topics, name in mags:
        H = "http://" + host
        home = web.page(H + "/", "nav", name, [])
        web.pages[home]["body"] = "<p>%s, a magazine of long reads.</p>" \
            % name
        about = web.page(H + "/about", "nav", "About " + name, [])
        subscribe = web.page(H + "/subscribe", "nav", "Subscribe", [])
        arch = web.page(H + "/issues", "nav", "All issues of " + name, [])
        web.pages[arch]["body"] = "<p>Every issue since the first.</p>"
        partners = web.page(H + "/partners", "nav", "Our partners", [])
        web.pages[partners]["body"] = ("<p>Magazines we read and trust."
                                       "</p>")
        chrome = [(home, "Home"), (arch, "Issues"), (subscribe, "Subscribe"),
                  (about, "About")]
        weights = [r.uniform(1, 3) for _ in topics]
        staff = r.sample(authors, 5)
        beat = {a: r.sample(topics, min(2, len(topics))) for a in staff}
        arts, by_t = [], {t: [] for t in topics}
        conts = []
        for _ in range(r.randint(110, 170)):
            t = r.choices(topics, weights)[0]
            title = r.choice(PLAIN_TITLES) if r.random() < 0.1 \
                else web.title(t)
            u = web.page("%s/story/%d" % (H, ids.pop()), t, title)
            arts.append(u)
            by_t[t].append(u)
            a = r.choice([x for x in staff if t in beat[x]] or staff)
            web.pages[u]["author"] = a
            if r.random() < 0.2:  # long reads go on over a second page
                c = web.page(u + "?page=2", t, title + " (continued)")
                web.link(u, c, "Continue reading")
                web.link(c, u, "Previous page")
                conts.append(c)
        # Issues: the articles in order, 8-14 an issue, every topic mixed.
        issues, i, n = [], 0, 1
        while i < len(arts):
            k = r.randint(8, 14)
            chunk = arts[i:i + k]
            i += k
            iss = web.page("%s/issue/%d" % (H, n), majority(web, chunk),
                           "Issue %d" % n, [])
            ts = sorted({web.pages[u]["topic"] for u in chunk})
            web.pages[iss]["body"] = ("<p>Issue %d. From the editor:</p>%s"
                                      % (n, web.text(ts, 40)))
            for u in chunk:
                tt = web.pages[u]["title"]
                if r.random() < 0.5:
                    web.link(iss, u, tt)
                else:
                    web.link(iss, u, "Read article",
                             tt + "." if r.random() < 0.5 else "")
                web.pages[u]["issue"] = iss
            for j, u in enumerate(chunk):
                web.link(u, iss, "Back to issue %d" % n)
                if j + 1 < len(chunk):
                    web.link(u, chunk[j + 1], "Next article")
            issues.append(iss)
            n += 1
        for k, iss in enumerate(issues):
            web.link(arch, iss, "Issue %d" % (k + 1))
            if k > 0:
                web.link(iss, issues[k - 1], "Previous issue")
            if k + 1 < len(issues):
                web.link(iss, issues[k + 1], "Next issue")
        # A subject index per topic: every article of it, by title.
        index = {}
        for t in topics:
            ix = web.page("%s/subject/%s" % (H, t), t,
                          "Subject index: %s" % t.capitalize(), [])
            web.pages[ix]["body"] = ("<p>Everything we have published on "
                                     "%s, oldest first.</p>" % t)
            for u in by_t[t]:
                web.link(ix, u, web.pages[u]["title"])
            index[t] = ix
            web.link(home, ix, t.capitalize())
        # Authors: their articles, of one topic or two.
        for a in staff:
            mine = [u for u in arts if web.pages[u]["author"] == a]
            if not mine:
                continue
            ap = web.page("%s/author/%s" % (H, a), majority(web, mine),
                          "Articles by %s" % a.capitalize(), [])
            web.pages[ap]["body"] = "<p>%s writes for %s.</p>" % (
                a.capitalize(), name)
            for u in mine:
                web.link(ap, u, web.pages[u]["title"])
                web.link(u, ap, a.capitalize())
        for u in arts:
            t = web.pages[u]["topic"]
            web.link(u, index[t], "More on this subject")
            older = [v for v in by_t[t] if v != u]
            for v in r.sample(older, min(len(older), r.randint(0, 2))):
                web.link(u, v, web.pages[v]["title"])
        # Editor's picks: a chain of posts, each of 4 articles.
        picks = []
        for k in range(r.randint(6, 10)):
            chosen = r.sample(arts, 4)
            pk = web.page("%s/picks/%d" % (H, k + 1), majority(web, chosen),
                          "Editor's picks, week %d" % (k + 1), [])
            ts = [web.pages[u]["topic"] for u in chosen]
            web.pages[pk]["body"] = web.text(ts, 60)
            for u in chosen:
                web.link(pk, u, r.choice([web.pages[u]["title"],
                                          "Read article"]))
            if picks:
                web.link(picks[-1], pk, "Older picks")
                web.link(pk, picks[-1], "Newer picks")
            picks.append(pk)
        web.link(home, issues[-1], "Latest issue")
        for u in chunk[:4]:  # the latest issue's first articles
            web.link(home, u, web.pages[u]["title"])
        web.link(home, picks[0], "Editor's picks")
        web.link(home, partners, "Partners")
        info[host] = {"home": home, "arts": arts, "partners": partners,
                      "topics": topics, "name": name, "index": index}
        for p in [home, arch, partners, about, subscribe] + issues + \
                list(index.values()) + picks + arts + conts:
            for dst, anchor in chrome:
                web.link(p, dst, anchor)
    for host, topics, name in mags:
        d = info[host]
        others = [h for h, _, _ in mags if h != host]
        for h in r.sample(others, r.randint(4, 6)):
            web.link(d["partners"], info[h]["home"], info[h]["name"])
        web.link(d["partners"], d["home"], "Home")
        for u in d["arts"]:
            if r.random() < 0.2:
                h = r.choice(others)
                v = r.choice(info[h]["arts"])
                web.link(u, v, r.choice([web.pages[v]["title"],
                                         "Read article"]),
                         "In %s:" % info[h]["name"])
    # The seeds: a magazine's home (off topic) and another's subject
    # index of the topic.
    seeds = {}
    for t in TOPICS:
        has = [h for h, ts, _ in mags if t in ts]
        seeds[t] = [info[has[0]]["home"], info[has[1]]["index"][t]]
    return seeds


def shape_zine(web):
    r = web.rng
    n = 14
    hosts = ["weekly%02d.test" % i for i in range(n)]
    others = [t for t in TOPICS if t != "sports"]
    mix = {}
    for i, h in enumerate(hosts):
        k = r.choice([3, 4])
        if i < 2:  # led by sports
            ts = ["sports"] + r.sample(others, k - 1)
        elif i < 8:  # sports among the others
            ts = r.sample(others, k - 1)
            ts.insert(r.randint(1, k - 1), "sports")
        else:
            ts = r.sample(others, k)
        w = [r.uniform(0.45, 0.6)]
        rest = [r.uniform(0.5, 1.5) for _ in ts[1:]]
        w += [(1 - w[0]) * x / sum(rest) for x in rest]
        mix[h] = (ts, w)
    info = {}
    for h in hosts:
        H = "http://" + h
        ts, w = mix[h]
        home = web.page(H + "/", "nav", "The %s weekly" % h.split(".")[0],
                        [])
        web.pages[home]["body"] = "<p>This week in our pages.</p>"
        arts = []
        ids = r.sample(range(1000, 99999), r.randint(90, 140))
        for i in ids:
            t = r.choices(ts, w)[0]
            title = r.choice(PLAIN_TITLES) if r.random() < 0.08 \
                else web.title(t)
            arts.append(web.page("%s/p/%d" % (H, i), t, title))
        by_t = {t: [u for u in arts if web.pages[u]["topic"] == t]
                for t in ts}
        secs = {}
        for t in ts:
            us = by_t[t]
            pages = []
            for k in range(1, max(1, (len(us) + 11) // 12) + 1):
                pg = web.page("%s/topics/%s/%d" % (H, t, k), t,
                              "%s, page %d" % (t.capitalize(), k), [])
                web.pages[pg]["body"] = "<p>Everything we ran, newest " \
                    "first.</p>"
                for u in us[12 * (k - 1):12 * k]:
                    web.link(pg, u, web.pages[u]["title"])
                pages.append(pg)
            for k in range(1, len(pages)):
                web.link(pages[k - 1], pages[k], "More")
                web.link(pages[k], pages[k - 1], "Back")
            secs[t] = pages
            web.link(home, pages[0], t.capitalize())
        digests = []
        order = arts[:]
        r.shuffle(order)
        digest_of = {}
        for k in range(0, len(order), 6):
            chunk = order[k:k + 6]
            dg = web.page("%s/digest/%d" % (H, 1 + k // 6),
                          majority(web, chunk), "Digest %d" % (1 + k // 6),
                          [])
            web.pages[dg]["body"] = "<p>Today's reading.</p>"
            for u in chunk:
                t = web.pages[u]["topic"]
                teaser = " ".join(r.sample(web.vocab[t], 1) +
                                  r.sample(COMMON, 4))
                web.link(dg, u, "Keep reading", teaser)
                digest_of[u] = dg
            if digests:
                web.link(dg, digests[-1], "Earlier digest")
            digests.append(dg)
        web.link(home, digests[-1], "Today's digest")
        for k in range(1, 4):
            lt = web.page("%s/letters/%d" % (H, k), "nav",
                          "Letters %d" % k)
            web.link(home, lt, "Letters")
            if k > 1:
                web.link(lt, "%s/letters/%d" % (H, k - 1), "Older letters")
        for u in arts[:8]:
            web.link(home, u, web.pages[u]["title"])
        info[h] = {"home": home, "arts": arts, "by_t": by_t, "secs": secs,
                   "digest_of": digest_of}
    for h in hosts:
        d = info[h]
        for u in d["arts"]:
            t = web.pages[u]["topic"]

            def a(v):
                return web.pages[v]["title"] if r.random() < 0.6 \
                    else "Keep reading"
            for v in r.sample(d["arts"], 3):
                web.link(u, v, a(v))
            same = [v for v in d["by_t"][t] if v != u]
            for v in r.sample(same, min(len(same), r.randint(1, 2))):
                web.link(u, v, web.pages[v]["title"])
            web.link(u, d["secs"][t][0], "More %s" % t)
            web.link(u, d["digest_of"][u], "In this digest")
            web.link(u, d["home"], "Home")
            if r.random() < 0.2:
                e = info[r.choice([x for x in hosts if x != h])]
                v = r.choice(e["arts"])
                web.link(u, v, web.pages[v]["title"])
        for x in r.sample([x for x in hosts if x != h], 3):
            web.link(d["home"], info[x]["home"], "Friends: %s" % x)
    seeds = {}
    for t in TOPICS:
        led = [h for h in hosts if mix[h][0][0] == t]
        has = [h for h in hosts if t in mix[h][0] and h not in led]
        seeds[t] = [info[h]["home"] for h in led[:1]] + \
            [info[h]["secs"][t][0] for h in has[:1]]
        if not seeds[t]:
            seeds[t] = [info[hosts[0]]["home"]]
    return seeds


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", choices=["sites", "portals", "blogs", "wiki",
                                        "news", "mag", "zine"],
                    required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    rng = random.Random("%s-%d" % (a.shape, a.seed))
    web = Web(rng)
    seeds = {"sites": shape_sites, "portals": shape_portals,
             "blogs": shape_blogs, "wiki": shape_wiki,
             "news": shape_news, "mag": shape_mag,
             "zine": shape_zine}[a.shape](web)
    # An operator names the topic and some of its vocabulary.
    keywords = {t: [t] + rng.sample(VOCAB[t].split(), 11) for t in TOPICS}
    web.write(a.out, seeds, keywords)


if __name__ == "__main__":
    main()
