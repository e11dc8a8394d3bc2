#!/usr/bin/env python3
"""gen-topics.py — writes the multi-topic test web of tests/test-focus.sh.

Five topics, three sites of 80 pages each per topic, and three sites that
mix two topics (a home page about both, then 12 pages of each).  Pages are
made of common English words with about one word in five from their topic's
vocabulary, and now and then a stray word of another topic.  Links: a tree
inside each site (so every page is reachable), three links per page to
pages of the same topic on any site, the home pages of a topic's sites
linked together, the first site of each topic linking to the first of the
next topic (a ring), the mixed sites linked from pages of both their
topics, and about one page in ten linking to the home page of a site of
another topic (a "partner" link), which is how a focused crawl meets
off-topic pages.

Writes, next to this script:
  topics.web     the web, for sc-fixture
  labels.tsv     URL <tab> its topics (comma-separated): the ground truth
  seeds-TOPIC.txt  the home page of the topic's first site
  keywords.txt   TOPIC <tab> the keywords the test's config gives it

The same script gives the same bytes on every run (random.Random(5)).
Run it again after editing and commit its output with it."""

import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
SITES = 3
PAGES = 80
MIXED_PAGES = 12
FANOUT = 3

VOCAB = {
    "cooking": """recipe garlic onion butter oven simmer saucepan flour
        pasta tomato basil roast braise dough knead bake sauce pepper salt
        skillet broth stew vinegar olive herbs dessert pastry whisk
        caramelize marinade chef kitchen spoon grill soup yeast cream
        chocolate sugar lemon""",
    "gardening": """garden soil compost seedling prune mulch perennial
        annual bulbs trowel hedge lawn weeding fertilizer greenhouse
        shrub roses tulip watering sprout cuttings hoe rake bloom
        pollinator raised bed orchard manure potting foliage hardy frost
        germinate trellis dahlia hydrangea irrigation""",
    "astronomy": """telescope galaxy nebula planet orbit comet asteroid
        eclipse supernova constellation star stellar lunar solar
        spectrum redshift quasar pulsar cosmic observatory meteor
        jupiter saturn mars exoplanet gravity astronomer lightyear
        nova aperture eyepiece celestial universe cosmology horizon
        zenith""",
    "football": """football goal striker midfielder defender goalkeeper
        penalty referee offside league match stadium tackle dribble
        corner kick header coach squad transfer season fixture
        tournament cup derby winger fullback captain pitch score
        halftime substitute volley foul formation supporters""",
    "programming": """compiler function variable pointer algorithm
        debugger syntax recursion interface library framework
        database query thread mutex kernel python javascript binary
        runtime refactor commit repository branch merge unittest
        bytecode lambda closure iterator struct array hashmap stack
        parser""",
}
TOPICS = ["cooking", "gardening", "astronomy", "football", "programming"]
KEYWORDS = {
    "cooking": "recipe, garlic, butter, oven, simmer, pasta, sauce, bake, "
               "dough, kitchen",
    "gardening": "garden, soil, compost, seedling, prune, mulch, "
                 "perennial, greenhouse, shrub, raised bed",
    "astronomy": "telescope, galaxy, nebula, planet, orbit, comet, "
                 "eclipse, supernova, constellation, observatory",
    "football": "football, goal, striker, midfielder, penalty, referee, "
                "offside, league, stadium, goalkeeper",
    "programming": "compiler, function, variable, pointer, algorithm, "
                   "debugger, recursion, database, thread, kernel",
}
COMMON = """the of and to in is was for on that with as by at from this
    have are be it not or which but one all were we when there can an
    your so more about some other time very what its their also after
    first new would people could then these two may only like well
    back over good just most our way many much where year day today
    week friend family little found made again best small long around
    always think start part place right thing story""".split()
MIXED = [("cooking", "gardening", "kitchen-garden"),
         ("astronomy", "programming", "stars-and-code"),
         ("football", "cooking", "match-day-food")]

rng = random.Random(5)
vocab = {t: v.split() for t, v in VOCAB.items()}


def text(topics, words):
    """Words of the given topics (one in five), common words otherwise,
    and a stray word of another topic now and then."""
    out = []
    for _ in range(words):
        if rng.random() < 0.2:
            out.append(rng.choice(vocab[rng.choice(topics)]))
        else:
            out.append(rng.choice(COMMON))
    for _ in range(rng.choice([0, 0, 1, 2])):
        other = rng.choice([t for t in TOPICS if t not in topics])
        out.insert(rng.randrange(len(out)), rng.choice(vocab[other]))
    # Sentences of 8 to 14 words.
    sent, i = [], 0
    while i < len(out):
        n = rng.randint(8, 14)
        s = " ".join(out[i:i + n])
        sent.append(s[0].upper() + s[1:] + ".")
        i += n
    paras, i = [], 0
    while i < len(sent):
        n = rng.randint(2, 5)
        paras.append(" ".join(sent[i:i + n]))
        i += n
    return "".join("<p>%s</p>" % p for p in paras)


# pages: url -> {"topics": [...], "links": [...], "title": str}
pages = {}
sites = {t: [] for t in TOPICS}  # topic -> host names (own sites first)
topic_pages = {t: [] for t in TOPICS}

for t in TOPICS:
    for s in range(1, SITES + 1):
        host = "%s%d.test" % (t, s)
        sites[t].append(host)
        for i in range(PAGES):
            url = "http://%s/%s" % (host, "p%d" % i if i else "")
            pages[url] = {"topics": [t], "links": [], "host": host, "i": i}
            topic_pages[t].append(url)
mixed_homes = {}
for a, b, name in MIXED:
    host = name + ".test"
    home = "http://%s/" % host
    pages[home] = {"topics": [a, b], "links": [], "host": host, "i": 0}
    mixed_homes[host] = home
    for k, t in enumerate((a, b)):
        urls = []
        for i in range(MIXED_PAGES):
            url = "http://%s/%s%d" % (host, t, i)
            pages[url] = {"topics": [t], "links": [], "host": host, "i": i}
            urls.append(url)
            topic_pages[t].append(url)
        # A tree per half, from the home page.
        for i, url in enumerate(urls):
            kids = [urls[j] for j in range(i * FANOUT + 1,
                                           i * FANOUT + FANOUT + 1)
                    if j < len(urls)]
            pages[url]["links"] += kids
        pages[home]["links"].append(urls[0])
    # Linked from pages of both topics.
    for t in (a, b):
        for url in rng.sample([u for u in topic_pages[t]
                               if pages[u]["host"] != host], 4):
            pages[url]["links"].append(home)

homes = {t: ["http://%s/" % h for h in sites[t]] for t in TOPICS}
for t in TOPICS:
    for host in sites[t]:
        base = "http://%s/" % host
        for i in range(PAGES):
            url = base + ("p%d" % i if i else "")
            p = pages[url]
            p["links"] += [base + "p%d" % j
                           for j in range(i * FANOUT + 1,
                                          i * FANOUT + FANOUT + 1)
                           if j < PAGES]
            p["links"] += rng.sample(topic_pages[t], 3)
            if rng.random() < 0.1:
                other = rng.choice([o for o in TOPICS if o != t])
                p["links"].append(rng.choice(homes[other]))
        pages[base]["links"] += [h for h in homes[t] if h != base]
    nxt = TOPICS[(TOPICS.index(t) + 1) % len(TOPICS)]
    pages[homes[t][0]]["links"].append(homes[nxt][0])

for url, p in pages.items():
    seen, links = set(), []
    for u in p["links"]:
        if u != url and u not in seen:
            seen.add(u)
            links.append(u)
    p["links"] = links
    ts = p["topics"]
    words = rng.randint(150, 350)
    if len(ts) == 2:
        title = "%s: %s and %s" % (p["host"].split(".")[0].replace("-", " "),
                                   rng.choice(vocab[ts[0]]),
                                   rng.choice(vocab[ts[1]]))
    else:
        title = "%s and %s" % (rng.choice(vocab[ts[0]]).capitalize(),
                               rng.choice(vocab[ts[0]]))
    anchors = " ".join("<a href='%s'>%s</a>" % (u, rng.choice(COMMON))
                       for u in links)
    p["body"] = ("<!doctype html><html><head><title>%s</title></head>"
                 "<body><h1>%s</h1>%s<nav>%s</nav></body></html>"
                 % (title, title, text(ts, words), anchors))

# Every page of a topic is reachable from its seed through pages of the
# topic (mixed home pages count for both), or the test's coverage would
# measure the web rather than the crawler.
for t in TOPICS:
    seed = homes[t][0]
    reach, todo = {seed}, [seed]
    while todo:
        u = todo.pop()
        for v in pages[u]["links"]:
            if v not in reach and t in pages[v]["topics"]:
                reach.add(v)
                todo.append(v)
    missing = [u for u, p in pages.items()
               if t in p["topics"] and u not in reach]
    assert not missing, (t, missing[:5])

with open(os.path.join(HERE, "topics.web"), "w") as f:
    f.write("# Generated by gen-topics.py: do not edit.\n")
    host = None
    for url in sorted(pages, key=lambda u: (pages[u]["host"], u)):
        p = pages[url]
        if p["host"] != host:
            host = p["host"]
            f.write("\nhost %s\ndefault 404\n" % host)
        path = url[len("http://") + len(host):]
        f.write('page %s 200 text/html body="%s"\n' % (path, p["body"]))
with open(os.path.join(HERE, "labels.tsv"), "w") as f:
    for url in sorted(pages):
        f.write("%s\t%s\n" % (url, ",".join(pages[url]["topics"])))
for t in TOPICS:
    with open(os.path.join(HERE, "seeds-%s.txt" % t), "w") as f:
        f.write(homes[t][0] + "\n")
with open(os.path.join(HERE, "keywords.txt"), "w") as f:
    for t in TOPICS:
        f.write("%s\t%s\n" % (t, KEYWORDS[t]))
