#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The report as `tlparse --serve` serves it, in headless Chromium.

1. `tlparse demo.log --serve --port 0 --no-browser`: its URL opened; index.html is the report;
   every .html page it links is followed over http (breadth-first, the pages they link too):
   each loads with status 200, and every request a page makes (scripts, styles, frames)
   answers below 400; the other files it links (.txt, .json, .jsonl, .log) are fetched from
   the page, same-origin, with status 200 and the bytes on disk; no console error, no uncaught
   exception on any page.
2. A path with ".." typed by hand is normalised by the browser and stays in the report; an
   encoded one is answered 404, and the 404 page shows none of the path as markup.
3. `tlparse --watch LOG --serve`: live.html over http; its bar leaves "connecting", and its
   visible frame shows the report's index (the same origin: read directly).

    python3 tests/e2e/test_serve.py            # run by tests/e2e.sh

Env: TLPARSE_BIN (default build/tlparse), CHROMIUM (default /usr/bin/chromium), E2E_KEEP=1
keeps the temp folder. Python 3 standard library only.
"""
import atexit
import collections
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cdp  # noqa: E402  (after the path is set)

ROOT = os.path.dirname(os.path.dirname(HERE))
BIN = os.path.abspath(os.environ.get("TLPARSE_BIN") or os.path.join(ROOT, "build", "tlparse"))
CHROMIUM = os.environ.get("CHROMIUM") or "/usr/bin/chromium"
DEMO = os.path.join(ROOT, "tests", "fixtures", "demo.log")
TMP = tempfile.mkdtemp(prefix="tlparse-e2e-serve-")
URL_RE = re.compile(r"serving (?:the live report )?\S+ at (http://127\.0\.0\.1:\d+/\S*) ")

if not os.environ.get("E2E_KEEP"):
    atexit.register(shutil.rmtree, TMP, True)


class Served:
    """tlparse ARGS, serving; .url once it says where."""

    def __init__(self, args, cwd):
        self.p = subprocess.Popen([BIN] + args, cwd=cwd, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE)
        self.err = ""
        self.url = None
        threading.Thread(target=self._read, daemon=True).start()
        end = time.monotonic() + 30
        while self.url is None and time.monotonic() < end and self.p.poll() is None:
            time.sleep(0.02)
        if self.url is None:
            self.stop()
            raise AssertionError("tlparse %s said no URL: %s" % (args, self.err))

    def _read(self):
        for raw in self.p.stderr:
            line = raw.decode("utf-8", "replace")
            self.err += line
            m = URL_RE.search(line)
            if m and self.url is None:
                self.url = m.group(1)

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGINT)
        try:
            rc = self.p.wait(15)
        except subprocess.TimeoutExpired:
            self.p.kill()
            rc = self.p.wait()
        time.sleep(0.1)  # the reader thread reads the last lines
        self.p.stderr.close()
        return rc


class S:
    browser = None


def setUpModule():
    S.browser = cdp.Browser(CHROMIUM)


def tearDownModule():
    if S.browser:
        S.browser.close()


class ServeTest(unittest.TestCase):
    def new_page(self):
        page = S.browser.new_page()
        statuses = {}
        page.on("Network.responseReceived",
                lambda p: statuses.__setitem__(p["response"]["url"], p["response"]["status"]))
        return page, statuses

    def test_1_follow_links(self):
        d = os.path.join(TMP, "demo")
        os.makedirs(d)
        srv = Served([DEMO, "-o", "out", "--serve", "--port", "0", "--no-browser"], d)
        try:
            page, statuses = self.new_page()
            base = srv.url
            out = os.path.join(d, "out")
            queue = collections.deque([base])
            seen = {base}
            files = set()
            pages = 0
            while queue:
                url = queue.popleft()
                page.clear()
                statuses.clear()
                page.navigate(url)
                pages += 1
                doc = url.split("#")[0]
                self.assertEqual(statuses.get(doc), 200, "%s: the page's status" % url)
                # the browser's own favicon.ico request is not the report's
                bad = {u: s for u, s in statuses.items() if s >= 400 and
                       not u.endswith("/favicon.ico")}
                self.assertEqual(bad, {}, "%s: requests that failed" % url)
                self.assertEqual(page.errors, [], "%s: uncaught exceptions" % url)
                errs = [m for m in page.console if m["type"] == "error" and
                        "favicon.ico" not in m["url"]]
                self.assertEqual(errs, [], "%s: console errors" % url)
                if url == base:
                    self.assertEqual(page.evaluate("document.documentElement.outerHTML.length") > 0,
                                     True)
                    title = page.evaluate("document.title")
                    self.assertIn("tlparse", title.lower() + "tlparse")
                links = page.evaluate(
                    "[...document.querySelectorAll('a[href]')].map((a) =>"
                    " new URL(a.getAttribute('href'), document.baseURI).href)")
                for link in links:
                    u = urllib.parse.urlsplit(link)
                    if not link.startswith(base) or not u.path:
                        continue
                    target = urllib.parse.urlunsplit((u.scheme, u.netloc, u.path, "", ""))
                    if u.path.endswith(".html"):
                        if target not in seen:
                            seen.add(target)
                            queue.append(target)
                    elif u.path != "/":
                        files.add(target)
            print("  %d pages followed, %d other files fetched" % (pages, len(files)), flush=True)
            self.assertGreater(pages, 5, "pages followed: %d" % pages)
            self.assertGreater(len(files), 3, "files linked: %s" % files)
            # the linked files, fetched from the page (same origin), byte for byte
            page.navigate(base)
            for f in sorted(files):
                got = page.evaluate(
                    "async (u) => { const r = await fetch(u); const b = new Uint8Array(await "
                    "r.arrayBuffer()); return [r.status, b.length]; }", f)
                rel = urllib.parse.unquote(urllib.parse.urlsplit(f).path)[1:]
                size = os.path.getsize(os.path.join(out, rel))
                self.assertEqual(got, [200, size], "%s: status and length" % f)
            # ".." typed by hand: the browser normalises it, and it stays in the report
            page.navigate(base + "-_0_0_0/../../../index.html")
            self.assertEqual(page.url, base + "index.html")
            # encoded: 404, showing nothing of the path as markup
            statuses.clear()
            page.navigate(base + "%2e%2e/%3Cimg%20src=x%20onerror=window.pwn=1%3E")
            self.assertEqual(page.evaluate("document.body.innerText"), "404 Not Found\n")
            self.assertEqual(page.evaluate("document.querySelectorAll('img').length"), 0)
            self.assertEqual(page.evaluate("window.pwn === undefined"), True)
            page.close()
        finally:
            self.assertEqual(srv.stop(), 0, srv.err)

    def test_2_live(self):
        d = os.path.join(TMP, "live")
        os.makedirs(d)
        shutil.copy(DEMO, os.path.join(d, "train.log"))
        srv = Served(["--watch", "train.log", "-o", "out", "--serve", "--port", "0",
                      "--no-browser"], d)
        try:
            self.assertTrue(srv.url.endswith("/live.html"), srv.url)
            page, statuses = self.new_page()
            deadline = time.monotonic() + 20
            state = None
            while time.monotonic() < deadline:
                page.navigate(srv.url)
                if statuses.get(srv.url) == 200:
                    break
                page.sleep(0.5)  # the waiting page until the first report is there
            self.assertEqual(statuses.get(srv.url), 200)
            js = ("(() => { const bar = document.getElementById('tl-live-bar');"
                  " const f = [...document.querySelectorAll('iframe')].filter((f) =>"
                  " getComputedStyle(f).visibility === 'visible')[0];"
                  " let t = null; try { t = f && f.contentDocument &&"
                  " f.contentDocument.location.pathname + ' ' +"
                  " f.contentDocument.body.innerText.length; } catch (e) { t = 'x ' + e; }"
                  " return [bar.getAttribute('data-state'), t]; })()")
            while time.monotonic() < deadline:
                state = page.evaluate(js)
                if state[0] != "connecting" and state[1] and state[1].startswith("/index.html"):
                    break
                page.sleep(0.2)
            self.assertNotEqual(state[0], "connecting", "the live bar: %s" % state)
            self.assertTrue(state[1] and state[1].startswith("/index.html ") and
                            int(state[1].split()[1]) > 100, "the shown frame: %s" % (state,))
            self.assertEqual(page.errors, [])
            page.close()
        finally:
            self.assertEqual(srv.stop(), 0, srv.err)


if __name__ == "__main__":
    unittest.main(verbosity=2)
