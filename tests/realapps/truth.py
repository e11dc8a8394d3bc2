"""truth.py — which content document of a real application (apps.sh) a
URL is, by the application's own identifiers, for the measurements of
measure.py and tests/test-realapps.sh.

    t = truth.load(APP, DIR)      # DIR: the scratch directory apps.sh used
    t.doc(url)                    # a document id (a string), or None
    t.content()                   # the content documents coverage counts

A URL's host and scheme are ignored: only its path and query, as the
application reads them, decide.  None stands for the pages that are not
content: forms, logins, searches, listings of the site's machinery, feeds,
archives, static files, and answers for things that do not exist.

DokuWiki (userewrite 0, the package's default): a page id (DokuWiki's
cleanID: lower case, ';' for ':', '/' and spaces for '_'; no id is the
start page; "ns:" is the namespace's start page as DokuWiki finds it)
and a revision (its timestamp: no rev, rev=0 and the current revision's
timestamp are the current revision; an old revision is one in the attic).
Documents: do= missing or show, and the export_* views of the page (the
same page in other clothes).  Everything else (edit, revisions,
backlink, index, recent, login, register, media, diff, search...) and
pages that do not exist are None.  Coverage counts every page's current
revision.

cgit: the repository and the view, with what the view shows by git's
ids: tree, blob and plain are the view, the path and the object id of the
path in the commit (h= a branch, id= any revision, the repository's HEAD
without either: git rev-parse); log, commit, diff, patch and rawdiff are
the view, the commit, the path and the parameters that change what they
show (ofs, showmsg, id2, dt, context, ignorews); summary is the commit
of its branch; refs, stats and tag their view and parameters.  Searches
(q=), feeds (atom), snapshots, the list of repositories (/cgit/, in each
sort order) and objects that do not resolve are None.
Coverage counts the tree view of every file (cgit's link to a file, which
shows its text) at the tip of every branch.

Fossil: check-in names (tip, branch and tag names, hash prefixes) are
resolved to full hashes (`fossil info`, the repository's blob table): file
and dir/tree views are the view, the check-in and the path; info,
artifact, raw and hexdump are the view and the artifact's hash; doc is
the check-in and the path; wiki is the page name (its latest version)
unless it names a version; finfo a path, vdiff two check-ins.  The rest
(timeline, branch and tag lists, reports, tickets, help, sitemap,
login, setup, the forum, tarballs, zips) is None.  Coverage counts every
file of each leaf check-in (file view) and every wiki page.

WordPress (plain permalinks, its default): the post or page id of p= or
page_id= (with page= for a part of a paged post), if it is published
(the database says).  Front page, archives, categories, tags, authors,
paging, searches, feeds, comment replies, the REST API, logins and the
admin are None.  Coverage counts every published post and page.
"""
import functools
import gzip
import os
import re
import sqlite3
import subprocess
import urllib.parse


def split(url):
    """(path, {name: [values]}) of a URL as the server reads it."""
    u = urllib.parse.urlsplit(url)
    q = urllib.parse.parse_qs(u.query, keep_blank_values=True)
    return urllib.parse.unquote(u.path), q


def one(q, name, default=None):
    v = q.get(name)
    return v[-1] if v else default


class DokuWiki:
    def __init__(self, d):
        self.data = os.path.join(d, "data")
        self.pages = {}
        root = os.path.join(self.data, "pages")
        for dirpath, _, files in os.walk(root):
            for f in files:
                if f.endswith(".txt"):
                    rel = os.path.relpath(os.path.join(dirpath, f[:-4]), root)
                    pid = rel.replace(os.sep, ":")
                    self.pages[pid] = int(os.path.getmtime(
                        os.path.join(dirpath, f)))

    @staticmethod
    def clean(pid):
        pid = pid.strip().lower().replace(";", ":").replace("/", "_")
        pid = re.sub(r"\s+", "_", pid)
        pid = re.sub(r":+", ":", pid)
        parts = [re.sub(r"[^a-z0-9._:-]", "_", p).strip("._-")
                 for p in pid.split(":")]
        return ":".join(parts)

    def resolve(self, pid):
        if pid.endswith(":") or pid == "":
            ns = pid.rstrip(":")
            last = ns.split(":")[-1] if ns else ""
            for cand in (ns + ":start" if ns else "start",
                         ns + ":" + last if ns else "", ns):
                if cand and cand in self.pages:
                    return cand
            return None
        return pid.strip(":")

    def old_revs(self, pid):
        a = os.path.join(self.data, "attic", *pid.split(":"))
        d, base = os.path.dirname(a), os.path.basename(a) + "."
        if not os.path.isdir(d):
            return set()
        return {int(f[len(base):].split(".")[0]) for f in os.listdir(d)
                if f.startswith(base) and f[len(base):].split(".")[0].isdigit()}

    def doc(self, url):
        path, q = split(url)
        if path not in ("/", "/doku.php") and not path.startswith("/doku.php/"):
            return None
        do = one(q, "do", "")
        if do not in ("", "show") and not do.startswith("export_"):
            return None
        pid = self.resolve(self.clean(one(q, "id", "") or "start")
                           if "id" in q and one(q, "id") else "start")
        if pid is None or pid not in self.pages:
            return None
        cur = self.pages[pid]
        rev = one(q, "rev", "")
        rev = int(rev) if rev.isdigit() else 0
        if rev in (0, cur):
            return "dokuwiki:%s@%d" % (pid, cur)
        if rev in self.old_revs(pid):
            return "dokuwiki:%s@%d" % (pid, rev)
        return None

    def content(self):
        return {"dokuwiki:%s@%d" % (p, t) for p, t in self.pages.items()}


class Cgit:
    VIEWS = {"summary", "refs", "log", "tree", "blob", "plain", "commit",
             "diff", "patch", "rawdiff", "stats", "tag", "about", "atom",
             "snapshot", "ls_cache", "objects"}

    def __init__(self, d):
        self.repos = os.path.join(d, "repos")

    def git(self, repo, *args):
        r = subprocess.run(["git", "--git-dir",
                            os.path.join(self.repos, repo)] + list(args),
                           capture_output=True, text=True)
        return r.stdout.strip() if r.returncode == 0 else None

    @functools.lru_cache(maxsize=None)
    def rev(self, repo, spec):
        return self.git(repo, "rev-parse", "--verify", "-q", spec)

    def commit(self, repo, q):
        spec = one(q, "id") or one(q, "h") or "HEAD"
        return self.rev(repo, spec + "^{commit}")

    @functools.lru_cache(maxsize=None)
    def doc(self, url):
        path, q = split(url)
        if not path.startswith("/cgit/"):
            return None
        rest = path[len("/cgit/"):]
        if rest == "":
            return None  # the list of repositories, in its sort orders
        parts = rest.split("/")
        repo = parts[0]
        if not os.path.isdir(os.path.join(self.repos, repo)):
            return None
        view = parts[1] if len(parts) > 1 and parts[1] else "summary"
        if view not in self.VIEWS:
            return None
        sub = "/".join(parts[2:]).strip("/")
        if view in ("atom", "snapshot", "about", "ls_cache", "objects") \
                or one(q, "q"):
            return None
        c = self.commit(repo, q)
        if c is None:
            return None
        if view in ("tree", "blob", "plain"):
            obj = self.rev(repo, "%s:%s" % (c, sub))
            if obj is None:
                return None
            return "cgit:%s:%s:%s:%s" % (repo, view, sub, obj)
        if view in ("log", "commit", "diff", "patch", "rawdiff"):
            extra = []
            for name in ("ofs", "showmsg", "dt", "context", "ignorews"):
                if one(q, name):
                    extra.append("%s=%s" % (name, one(q, name)))
            if view in ("diff", "patch", "rawdiff"):
                # Without id2 a diff is against the first parent.
                c2 = self.rev(repo, (one(q, "id2") or c + "^") + "^{commit}")
                extra.append("id2=%s" % c2)
            return "cgit:%s:%s:%s:%s:%s" % (repo, view, c, sub,
                                             "&".join(extra))
        if view == "summary":
            return "cgit:%s:summary:%s" % (repo, c)
        if view == "tag":
            t = one(q, "id") or one(q, "h")
            return "cgit:%s:tag:%s" % (repo, self.rev(repo, t))
        keep = sorted("%s=%s" % (k, v[-1]) for k, v in q.items()
                      if k not in ("h", "id"))
        return "cgit:%s:%s:%s" % (repo, view, "&".join(keep))

    def content(self):
        out = set()
        for repo in sorted(os.listdir(self.repos)):
            heads = self.git(repo, "for-each-ref", "--format=%(refname)",
                             "refs/heads") or ""
            for ref in heads.split():
                c = self.rev(repo, ref + "^{commit}")
                files = self.git(repo, "ls-tree", "-r", c) or ""
                for line in files.splitlines():
                    meta, p = line.split("\t", 1)
                    out.add("cgit:%s:tree:%s:%s" % (repo, p, meta.split()[2]))
        return out


class Fossil:
    NONE = {"timeline", "brlist", "taglist", "tagtimeline", "reports",
            "rptview", "reportlist", "ticket", "tktnew", "tktview", "help",
            "sitemap", "login", "logout", "setup_config", "forum", "zip",
            "tarball", "sqlar", "bloblist", "stat", "leaves", "cookies",
            "skins", "attachlist", "wcontent", "wikihelp", "wiki_rules",
            "md_rules", "test-all-help", "timeline.rss", "style.css",
            "home", "index", "", "fileage", "wikiedit", "wikinew",
            "wikiappend", "wdiff", "whistory", "search", "dirchanges",
            "ci_edit", "hash-collisions", "vpatch", "annotate", "blame",
            "praise", "uvlist", "builtin", "json", "xfer", "robots.txt"}

    def __init__(self, d):
        self.repo = os.path.join(d, "docs.fossil")
        self.db = sqlite3.connect("file:%s?mode=ro" % self.repo, uri=True)

    @functools.lru_cache(maxsize=None)
    def name(self, n):
        """A check-in name or hash prefix, as its full hash; None if it names
        nothing."""
        if not n:
            return None
        h = self.prefix(n)
        if h:
            return h
        r = subprocess.run(["fossil", "info", n, "-R", self.repo],
                           capture_output=True, text=True,
                           env=dict(os.environ, HOME=os.path.dirname(self.repo)))
        m = re.search(r"^hash:\s+([0-9a-f]+)", r.stdout, re.M)
        # `fossil info` may shorten the hash: the blob table has it whole.
        return self.prefix(m.group(1)) if r.returncode == 0 and m else None

    def checkin(self, h):
        return self.db.execute(
            "SELECT 1 FROM event WHERE type = 'ci' AND objid = "
            "(SELECT rid FROM blob WHERE uuid = ?)", (h,)).fetchone() \
            is not None

    def prefix(self, n):
        if not re.fullmatch(r"[0-9a-f]{4,64}", n):
            return None
        rows = self.db.execute(
            "SELECT uuid FROM blob WHERE uuid >= ? AND uuid < ?",
            (n, n + "g")).fetchall()
        return rows[0][0] if len(rows) == 1 else None

    @functools.lru_cache(maxsize=None)
    def doc(self, url):
        path, q = split(url)
        parts = path.strip("/").split("/")
        page = parts[0]
        if page in self.NONE or page.startswith("setup") \
                or page.startswith("test"):
            return None
        arg = "/".join(parts[1:])
        if page in ("file", "dir", "tree"):
            ci = self.name(one(q, "ci") or one(q, "r") or "tip")
            name = (one(q, "name") or arg).strip("/")
            if ci is None:
                return None
            if page == "file":
                return "fossil:file:%s:%s:" % (ci, name)
            # /dir and /tree are one page: a flat list or a tree by type=.
            kind = one(q, "type") or "flat"
            return "fossil:tree:%s:%s:%s" % (ci, name, kind)
        if page in ("info", "artifact", "raw", "hexdump", "ci", "vinfo",
                    "whatis"):
            h = self.name(arg or one(q, "name"))
            if h is None:
                return None
            kind = "info" if page in ("info", "ci", "vinfo") else page
            # /info of an artifact that is not a check-in is its /artifact.
            if kind == "info" and not self.checkin(h):
                kind = "artifact"
            return "fossil:%s:%s" % (kind, h)
        if page == "doc":
            ci = self.name(parts[1] if len(parts) > 1 else "")
            if ci is None:
                return None
            return "fossil:doc:%s:%s" % (ci, "/".join(parts[2:]))
        if page == "wiki":
            n = one(q, "name") or arg
            if not n:
                return None
            return "fossil:wiki:" + n
        if page == "finfo":
            return "fossil:finfo:" + (one(q, "name") or arg)
        if page in ("vdiff", "fdiff"):
            a = self.name(one(q, "from") or one(q, "v1"))
            b = self.name(one(q, "to") or one(q, "v2"))
            if a is None or b is None:
                return None
            return "fossil:%s:%s:%s" % (page, a, b)
        return None

    def content(self):
        out = set()
        leaves = [r[0] for r in self.db.execute(
            "SELECT uuid FROM blob WHERE rid IN (SELECT rid FROM leaf)")]
        for h in leaves:
            rows = self.db.execute(
                "SELECT filename.name FROM mlink JOIN filename USING (fnid) "
                "WHERE mlink.mid = (SELECT rid FROM blob WHERE uuid = ?)",
                (h,)).fetchall()
            r = subprocess.run(["fossil", "ls", "-r", h, "-R", self.repo],
                               capture_output=True, text=True,
                               env=dict(os.environ,
                                        HOME=os.path.dirname(self.repo)))
            names = r.stdout.split() if r.returncode == 0 else \
                [x[0] for x in rows]
            for n in names:
                out.add("fossil:file:%s:%s:" % (h, n))
        for (n,) in self.db.execute(
                "SELECT DISTINCT substr(tagname, 6) FROM tag "
                "WHERE tagname LIKE 'wiki-%'"):
            out.add("fossil:wiki:" + n)
        return out


class WordPress:
    NONE = ("/wp-login.php", "/wp-admin", "/xmlrpc.php", "/wp-json",
            "/wp-includes", "/wp-content", "/wp-cron.php",
            "/wp-comments-post.php", "/wp-signup.php", "/wp-activate.php")

    def __init__(self, d):
        r = subprocess.run(
            ["mariadb", "--no-defaults", "-S", os.path.join(d, "mysql.sock"),
             "-u", "root", "-N", "-B", "wordpress", "-e",
             "SELECT ID FROM wp_posts WHERE post_status = 'publish' "
             "AND post_type IN ('post', 'page')"],
            capture_output=True, text=True, check=True)
        self.ids = {int(x) for x in r.stdout.split()}

    def doc(self, url):
        path, q = split(url)
        if path.startswith(self.NONE):
            return None
        if path not in ("/", "/index.php"):
            return None
        if any(one(q, k) for k in ("feed", "s", "rest_route", "preview",
                                   "replytocom")):
            return None
        n = one(q, "p") or one(q, "page_id")
        if not n or not n.isdigit() or int(n) not in self.ids:
            return None
        extra = ":page=" + one(q, "page") if one(q, "page") else ""
        return "wordpress:%d%s" % (int(n), extra)

    def content(self):
        return {"wordpress:%d" % n for n in self.ids}


def load(app, d):
    """The truth of APP ("dokuwiki", "cgit", "fossil" or "wordpress")
    served from the apps.sh scratch directory d."""
    return {"dokuwiki": DokuWiki, "cgit": Cgit, "fossil": Fossil,
            "wordpress": WordPress}[app](d)
