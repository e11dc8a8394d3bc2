#!/usr/bin/env python3
# status-watch.py SOCKET [LIMIT_S] [SETTLE_S] — ask a daemon's control
# socket for /status as fast as it answers, until it has said "idle" with
# pages fetched for SETTLE_S seconds on end (or LIMIT_S pass).  Prints
#   polls N idle_early K first P later Q settled yes|no
# where K counts the answers that said idle while the crawl still had
# pages to fetch: a later answer counted more pages (the caller submits
# no seeds while this watches).  P is the page count of the first such answer and Q
# the most counted after it.
import json
import socket
import sys
import time


def status(path):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(5)
    try:
        s.connect(path)
        s.sendall(b"GET /status HTTP/1.0\r\nHost: x\r\n\r\n")
        data = b""
        while True:
            b = s.recv(65536)
            if not b:
                break
            data += b
    finally:
        s.close()
    head, _, body = data.partition(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.") or b" 200 " not in head.split(b"\r\n")[0]:
        raise ValueError("not a 200 answer")
    st = json.loads(body)
    return st["state"], int(st["pages"])


def main():
    path = sys.argv[1]
    limit = float(sys.argv[2]) if len(sys.argv) > 2 else 120
    settle = float(sys.argv[3]) if len(sys.argv) > 3 else 2
    end = time.monotonic() + limit
    seen = []
    idle_since = None
    settled = False
    while time.monotonic() < end:
        try:
            state, pages = status(path)
        except (OSError, ValueError):
            time.sleep(0.01)
            continue
        seen.append((state, pages))
        now = time.monotonic()
        if state == "idle" and pages > 0:
            if idle_since is None:
                idle_since = now
            elif now - idle_since >= settle:
                settled = True
                break
        else:
            idle_since = None
    early, first, later = 0, 0, 0
    most = 0
    # Walk backwards, keeping the most pages any later answer counted.
    for state, pages in reversed(seen):
        if state == "idle" and pages > 0 and most > pages:
            early += 1
            first, later = pages, max(later, most)
        most = max(most, pages)
    print("polls %d idle_early %d first %d later %d settled %s"
          % (len(seen), early, first, later, "yes" if settled else "no"))


if __name__ == "__main__":
    main()
