#!/usr/bin/python3
"""check-tests.py FILE|DIR... — a lint of the shell tests: a check must assert
all it names.  check_true NAME COMMAND... runs one command, so a line
`check_true NAME [ A ] && [ B ]` asserts A only and runs B unchecked; a
`|`, `;`, `&&` or `||` outside quotes after check_true (or check, pass,
fail, expect_*) is such a line.  Write the two checks, one `test` or
`eval '...'`.  Exit 1 with FILE:LINE for each, 0 when none, 2 when no
file was given or one held no check at all (a lint that sees nothing
passes nothing).
"""
import glob
import os
import shlex
import sys

CHECKS = ("check_true", "check", "expect_rc", "expect_stderr")


def logical_lines(text):
    """(first line number, text) with backslash continuations joined."""
    buf, start = "", None
    for n, line in enumerate(text.split("\n"), 1):
        if start is None:
            start = n
        if line.endswith("\\"):
            buf += line[:-1] + " "
            continue
        yield start, buf + line
        buf, start = "", None


def main(args):
    files = []
    for a in args:
        files += (sorted(glob.glob(os.path.join(a, "test-*.sh")))
                  if os.path.isdir(a) else [a])
    if not files:
        print("check-tests: no files", file=sys.stderr)
        return 2
    bad = 0
    for f in files:
        seen = 0
        for n, line in logical_lines(open(f).read()):
            words = line.split(None, 1)
            if not words or words[0] not in CHECKS:
                continue
            seen += 1
            lex = shlex.shlex(line, posix=True, punctuation_chars=True)
            lex.whitespace_split = True
            try:
                toks = list(lex)
            except ValueError:
                continue  # a quote spanning lines: not ours to judge
            ops = [t for t in toks if t in ("&&", "||", "|", ";", "&")]
            if ops:
                print("%s:%d: %s after %s: only the first command is "
                      "checked" % (f, n, ops[0], words[0]))
                bad += 1
        if seen == 0 and not f.endswith(("lib.sh", "crawl-lib.sh")):
            print("%s: no check at all" % f)
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
