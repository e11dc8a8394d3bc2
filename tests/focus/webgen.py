#!/usr/bin/env python3
"""webgen.py --shape sites|portals|blogs|wiki --seed N --out DIR — a generated
multi-topic web for the focus measurements (issue 17; docs/focus.md).

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
  of issue 17 and measured as it came.  40 articles a topic, each
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
                    words = self.rng.randint(60, 120) if p["topic"] == "nav" \
                        else self.rng.randint(150, 320)
                    nav = "".join("<li>%s<a href='%s'>%s</a></li>"
                                  % (t + " " if t else "", u, a)
                                  for u, a, t in p["links"])
                    body = ("<!doctype html><html><head><title>%s</title>"
                            "</head><body><h1>%s</h1>%s<nav><ul>%s</ul>"
                            "</nav></body></html>"
                            % (p["title"], p["title"],
                               self.text(p["text"], words), nav))
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", choices=["sites", "portals", "blogs", "wiki"],
                    required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    rng = random.Random("%s-%d" % (a.shape, a.seed))
    web = Web(rng)
    seeds = {"sites": shape_sites, "portals": shape_portals,
             "blogs": shape_blogs, "wiki": shape_wiki}[a.shape](web)
    # An operator names the topic and some of its vocabulary.
    keywords = {t: [t] + rng.sample(VOCAB[t].split(), 11) for t in TOPICS}
    web.write(a.out, seeds, keywords)


if __name__ == "__main__":
    main()
