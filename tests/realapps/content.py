#!/usr/bin/python3
"""content.py KIND DEST [PAGES] — the content the real applications of
tests/realapps/apps.sh serve: text nobody on the project wrote, taken
from Debian's documentation packages installed on this machine.

  dokuwiki DATADIR [PAGES]  wiki pages (DokuWiki syntax) converted from the
                            Python 3.11 and PostgreSQL 15 HTML manuals into
                            DATADIR/pages, every 8th page with two older
                            revisions in DATADIR/attic and the change logs
                            in DATADIR/meta (default 300 pages)
  git REPOS                 two git repositories under REPOS: git-docs.git
                            (Git's AsciiDoc manual pages, four commits,
                            branches master and maint, tags v1.0 and v1.1)
                            and python-docs.git (the Python tutorial's and
                            HOWTOs' reStructuredText sources, three commits)
  fossil REPO.fossil        a Fossil repository of the Python tutorial's and
                            HOWTOs' sources (three check-ins, a branch, a tag)
                            and a dozen wiki pages from the PostgreSQL manual;
                            the user nobody gets hyperlinks (h)
  wordpress POSTS.json      posts and pages for WordPress from the Python
                            HOWTOs, FAQ, tutorial and library reference
                            (the first 60 of each; apps.sh inserts them)

The choice of pages is fixed (sorted file names), so two runs build the
same application; only commit hashes change with the clock.
"""
import gzip
import html.parser
import os
import re
import subprocess
import sys

PYDOC = "/usr/share/doc/python3.11/html"
PGDOC = "/usr/share/doc/postgresql-doc-15/html"
GITDOC = "/usr/share/doc/git-doc"

SKIP = {"script", "style", "head", "title", "nav"}
BLOCK = {"p", "div", "section", "dt", "dd", "tr", "table", "ul", "ol",
         "dl", "blockquote", "br", "hr", "li"}
RISKY = re.compile(r"\*\*|__|''|\[\[|\]\]|\{\{|\}\}|[<>~%|^\\]|//|\(\(|==")


class ToWiki(html.parser.HTMLParser):
    """HTML of a Sphinx or DocBook page to DokuWiki text: headings,
    paragraphs, list items, preformatted blocks and links (links to other
    pages of the wiki become wiki links through link_of)."""

    def __init__(self, link_of):
        super().__init__(convert_charrefs=True)
        self.link_of = link_of
        self.out = []
        self.line = []
        self.skip = 0
        self.pre = 0
        self.heading = 0
        self.href = None
        self.atext = []
        self.title = None
        self.in_title = False

    def flush(self):
        text = " ".join("".join(self.line).split())
        self.line = []
        if not text:
            return
        if self.heading:
            marks = "=" * max(2, 7 - self.heading)
            text = text.replace("=", "-")
            self.out.append("%s %s %s" % (marks, text, marks))
        else:
            self.out.append(text)
        self.out.append("")

    def handle_starttag(self, tag, attrs):
        if tag in SKIP:
            self.skip += 1
            if tag == "title":
                self.in_title = True
            return
        if self.skip:
            return
        if tag == "pre":
            self.flush()
            self.pre += 1
            self.line = []
        elif re.fullmatch(r"h[1-6]", tag):
            self.flush()
            self.heading = int(tag[1])
        elif tag in BLOCK:
            if not self.pre:
                self.flush()
            if tag == "li":
                self.line.append("  * ")
        elif tag == "a" and not self.pre:
            self.href = dict(attrs).get("href")
            self.atext = []

    def handle_endtag(self, tag):
        if tag in SKIP:
            self.skip = max(0, self.skip - 1)
            self.in_title = False
            return
        if self.skip:
            return
        if tag == "pre" and self.pre:
            self.pre -= 1
            code = "".join(self.line).strip("\n").replace("</code>", "</ code>")
            self.line = []
            if code:
                self.out.extend(["<code>", code, "</code>", ""])
        elif re.fullmatch(r"h[1-6]", tag):
            self.flush()
            self.heading = 0
        elif tag in BLOCK:
            if not self.pre:
                self.flush()
        elif tag == "a" and self.href is not None:
            text = " ".join("".join(self.atext).split()).replace("]", ")") \
                .replace("[", "(").replace("|", "/")
            target = self.link_of(self.href)
            self.href = None
            if target and text and not self.heading:
                self.line.append("[[%s|%s]]" % (target, text))
            elif text:
                self.line.append(self.escape(text))

    def escape(self, text):
        if RISKY.search(text):
            return "%%" + text.replace("%%", "% %") + "%%"
        return text

    def handle_data(self, data):
        if self.in_title and self.title is None:
            self.title = data.strip()
        if self.skip:
            return
        if self.pre:
            self.line.append(data)
        elif self.href is not None:
            self.atext.append(data)
        else:
            self.line.append(self.escape(data))


def wiki_id(ns, rel):
    """The DokuWiki page id of a manual's file: ns plus the path, lower-case,
    other characters than DokuWiki allows replaced by _."""
    stem = rel[:-len(".html")]
    parts = [re.sub(r"[^a-z0-9._-]", "_", p.lower()).strip("._-") or "x"
             for p in stem.split("/")]
    return ":".join([ns] + parts)


def pick_pages(n):
    """(id, source file) of the first n pages: the Python tutorial, HOWTOs,
    FAQ and library reference, then the PostgreSQL manual's SQL reference."""
    files = []
    for sub in ("tutorial", "howto", "faq", "library"):
        d = os.path.join(PYDOC, sub)
        for f in sorted(os.listdir(d)):
            if f.endswith(".html"):
                files.append(("python", sub + "/" + f, os.path.join(d, f)))
    pg = [f for f in sorted(os.listdir(PGDOC)) if f.startswith("sql-")]
    # Interleave so that a small wiki has both manuals.
    out = []
    pgf = [("postgresql", f, os.path.join(PGDOC, f)) for f in pg]
    while len(out) < n and (files or pgf):
        for src in (files, files, pgf):
            if src and len(out) < n:
                out.append(src.pop(0))
    return [(wiki_id(ns, rel), ns, rel, path) for ns, rel, path in out]


def dokuwiki(data, n):
    pages = pick_pages(n)
    by_file = {(ns, rel): pid for pid, ns, rel, _ in pages}
    base = 1700000000
    changes = []
    for i, (pid, ns, rel, path) in enumerate(pages):
        def link_of(href, ns=ns, rel=rel):
            if re.match(r"[a-z]+:", href) or href.startswith("#"):
                return None
            target, _, frag = href.partition("#")
            tr = os.path.normpath(os.path.join(os.path.dirname(rel), target))
            pid2 = by_file.get((ns, tr))
            if not pid2:
                return None
            return pid2 + ("#" + frag.lower() if frag else "")
        p = ToWiki(link_of)
        p.feed(open(path, encoding="utf-8", errors="replace").read())
        p.flush()
        text = "\n".join(p.out).strip() + "\n"
        text = re.sub(r"\n{3,}", "\n\n", text)
        f = os.path.join(data, "pages", *pid.split(":")) + ".txt"
        os.makedirs(os.path.dirname(f), exist_ok=True)
        revs = []
        if i % 8 == 3:
            paras = text.split("\n\n")
            old1 = "\n\n".join(paras[:max(1, len(paras) // 2)]) + "\n"
            old2 = "\n\n".join(paras[:-1] or paras) + "\n"
            revs = [(base + i * 600, old1, "C", "created"),
                    (base + i * 600 + 200, old2, "E", "second half")]
        now = base + i * 600 + 400
        prev = 0
        for t, body, kind, summary in revs:
            a = os.path.join(data, "attic", *pid.split(":")) + ".%d.txt.gz" % t
            os.makedirs(os.path.dirname(a), exist_ok=True)
            with gzip.open(a, "wt", encoding="utf-8") as g:
                g.write(body)
            changes.append((t, pid, kind, summary, len(body) - prev))
            prev = len(body)
        with open(f, "w", encoding="utf-8") as g:
            g.write(text)
        os.utime(f, (now, now))
        changes.append((now, pid, "E" if revs else "C",
                        "last paragraph" if revs else "created",
                        len(text) - prev))
    # The start page: an index of the manuals' pages.
    start = ["====== Manuals ======", "",
             "Pages converted from the Python 3.11 and PostgreSQL 15 "
             "manuals that Debian packages.", ""]
    for pid, ns, rel, _ in pages:
        start.append("  * [[%s]]" % pid)
    f = os.path.join(data, "pages", "start.txt")
    with open(f, "w") as g:
        g.write("\n".join(start) + "\n")
    now = base + len(pages) * 600
    os.utime(f, (now, now))
    changes.append((now, "start", "C", "created", 0))
    # The change logs, per page and the wiki's own.
    allc = []
    for t, pid, kind, summary, size in changes:
        line = "%d\t127.0.0.1\t%s\t%s\t\t%s\t\t%d\n" % (
            t, kind, pid, summary, size)
        m = os.path.join(data, "meta", *pid.split(":")) + ".changes"
        os.makedirs(os.path.dirname(m), exist_ok=True)
        with open(m, "a") as g:
            g.write(line)
        allc.append((t, line))
    with open(os.path.join(data, "meta", "_dokuwiki.changes"), "w") as g:
        for _, line in sorted(allc):
            g.write(line)


def run(*cmd, cwd=None, env=None):
    subprocess.run(cmd, cwd=cwd, env=env, check=True,
                   stdout=subprocess.DEVNULL)


def git_env(i):
    e = dict(os.environ)
    date = "%d +0000" % (1700000000 + i * 86400)
    e.update(GIT_AUTHOR_NAME="Docs", GIT_AUTHOR_EMAIL="docs@example.org",
             GIT_COMMITTER_NAME="Docs", GIT_COMMITTER_EMAIL="docs@example.org",
             GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    return e


def copy_files(pairs, work):
    for src, dst in pairs:
        d = os.path.join(work, dst)
        os.makedirs(os.path.dirname(d), exist_ok=True)
        with open(src, "rb") as f, open(d, "wb") as g:
            g.write(f.read())


def edit_files(work, names):
    """An edit nobody on the project wrote: each file loses its last
    paragraph, as a revision that trims a page would."""
    for n in names:
        p = os.path.join(work, n)
        t = open(p, encoding="utf-8", errors="replace").read()
        paras = t.rstrip("\n").split("\n\n")
        if len(paras) > 1:
            with open(p, "w", encoding="utf-8") as g:
                g.write("\n\n".join(paras[:-1]) + "\n")


def python_sources():
    src = os.path.join(PYDOC, "_sources")
    out = []
    for sub in ("tutorial", "howto"):
        for f in sorted(os.listdir(os.path.join(src, sub))):
            if f.endswith(".rst.txt"):
                out.append((os.path.join(src, sub, f),
                            "Doc/%s/%s" % (sub, f[:-len(".txt")])))
    return out


def git(repos):
    os.makedirs(repos, exist_ok=True)
    # git-docs: Git's manual pages in AsciiDoc.
    txt = sorted(f for f in os.listdir(GITDOC)
                 if f.endswith(".txt") and f.startswith("git-"))[:120]
    pairs = [(os.path.join(GITDOC, f), "Documentation/" + f) for f in txt]
    work = os.path.join(repos, "git-docs.work")
    run("git", "init", "-q", "-b", "master", work)
    steps = [pairs[:60], pairs[60:90], None, pairs[90:]]
    for i, step in enumerate(steps):
        if step is None:
            edit_files(work, [d for _, d in pairs[:60:7]])
            msg = "Trim the last paragraph of some pages"
        else:
            copy_files(step, work)
            msg = "Add %d manual pages" % len(step)
        run("git", "add", "-A", cwd=work)
        run("git", "commit", "-q", "-m", msg, cwd=work, env=git_env(i))
        if i == 0:
            run("git", "tag", "v1.0", cwd=work)
        if i == 1:
            run("git", "tag", "v1.1", cwd=work)
            run("git", "branch", "maint", cwd=work)
    run("git", "clone", "-q", "--bare", work,
        os.path.join(repos, "git-docs.git"))
    # python-docs: the tutorial's and HOWTOs' sources.
    pairs = python_sources()
    work = os.path.join(repos, "python-docs.work")
    run("git", "init", "-q", "-b", "main", work)
    for i, step in enumerate([pairs[:20], None, pairs[20:]]):
        if step is None:
            edit_files(work, [d for _, d in pairs[:20:5]])
            msg = "Trim some pages"
        else:
            copy_files(step, work)
            msg = "Add %d pages" % len(step)
        run("git", "add", "-A", cwd=work)
        run("git", "commit", "-q", "-m", msg, cwd=work, env=git_env(10 + i))
    run("git", "clone", "-q", "--bare", work,
        os.path.join(repos, "python-docs.git"))
    for name, desc in (("git-docs.git", "Git's manual pages"),
                       ("python-docs.git", "The Python tutorial and HOWTOs")):
        with open(os.path.join(repos, name, "description"), "w") as g:
            g.write(desc + "\n")


def fossil(repo):
    work = repo + ".work"
    os.makedirs(work, exist_ok=True)
    env = dict(os.environ, HOME=os.path.dirname(os.path.abspath(repo)),
               USER="docs")
    run("fossil", "init", "--admin-user", "docs", "--date-override",
        "2023-11-01T00:00:00", repo, env=env)
    run("fossil", "open", "--workdir", work, os.path.abspath(repo), env=env)
    pairs = python_sources()
    steps = [pairs[:20], None, pairs[20:]]
    for i, step in enumerate(steps):
        if step is None:
            edit_files(work, [d for _, d in pairs[:20:5]])
            msg = "Trim some pages"
        else:
            copy_files(step, work)
            run("fossil", "add", *[d for _, d in step], cwd=work, env=env)
            msg = "Add %d pages" % len(step)
        date = "2023-11-%02dT12:00:00" % (15 + i)
        args = ["fossil", "commit", "-m", msg, "--date-override", date,
                "--no-warnings"]
        if i == 1:
            args += ["--tag", "v1.0"]
        if i == 2:
            args += ["--branch", "drafts"]
        run(*args, cwd=work, env=env)
    run("fossil", "close", "--force", cwd=work, env=env)
    pg = [f for f in sorted(os.listdir(PGDOC)) if f.startswith("tutorial")]
    for f in pg[:12]:
        p = ToWiki(lambda href: None)
        p.feed(open(os.path.join(PGDOC, f), encoding="utf-8",
                    errors="replace").read())
        p.flush()
        body = "\n".join(l for l in p.out if not l.startswith("=")) + "\n"
        body = body.replace("%%", "")
        name = (p.title or f).replace("/", "-")
        subprocess.run(["fossil", "wiki", "create", name, "-R", repo,
                        "--mimetype", "text/plain"], input=body.encode(),
                       env=env, check=True, stdout=subprocess.DEVNULL)
    # Fossil's defaults give the user nobody (a crawler) no hyperlinks:
    # every page would be a dead end.  The 'h' capability is what a public
    # repository's administrator grants robots; the rest stays the
    # package's default (gjorz).
    run("fossil", "user", "capabilities", "nobody", "gjorzh", "-R", repo,
        env=env)


def wordpress(dest):
    """posts.json for WordPress: the Python HOWTOs and FAQ pages as posts
    (paragraphs and code blocks), a category per manual section, tags from
    the page's first heading words; every 10th as a page instead."""
    posts = []
    for sub in ("howto", "faq", "tutorial", "library"):
        d = os.path.join(PYDOC, sub)
        for f in sorted(os.listdir(d))[:60]:
            if not f.endswith(".html") or f == "index.html":
                continue
            p = ToWiki(lambda href: None)
            p.feed(open(os.path.join(d, f), encoding="utf-8",
                        errors="replace").read())
            p.flush()
            body, code = [], None
            for line in p.out:
                if line == "<code>":
                    code = []
                elif line == "</code>" and code is not None:
                    body.append("<pre>%s</pre>" % html.escape("\n".join(code)))
                    code = None
                elif code is not None:
                    code.append(line)
                elif line.startswith("=="):
                    body.append("<h2>%s</h2>" % html.escape(line.strip("= ")))
                elif line:
                    body.append("<p>%s</p>" % html.escape(
                        re.sub(r"\[\[[^|]*\|([^]]*)\]\]", r"\1",
                               line.replace("%%", ""))))
            title = (p.title or f).split(" \u2014 ")[0]
            words = [w.lower() for w in re.findall(r"[A-Za-z]{5,}", title)][:2]
            posts.append({"title": title, "content": "\n".join(body),
                          "category": sub, "tags": words,
                          "type": "page" if len(posts) % 10 == 9 else "post",
                          "date": "2023-%02d-%02d 12:00:00" % (
                              1 + len(posts) // 28 % 12, 1 + len(posts) % 28)})
    import json
    with open(dest, "w") as g:
        json.dump(posts, g)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    kind, dest = sys.argv[1:3]
    if kind == "dokuwiki":
        dokuwiki(dest, int(sys.argv[3]) if len(sys.argv) > 3 else 300)
    elif kind == "git":
        git(dest)
    elif kind == "fossil":
        fossil(dest)
    elif kind == "wordpress":
        wordpress(dest)
    else:
        sys.exit("content.py: unknown kind %s" % kind)


if __name__ == "__main__":
    main()
