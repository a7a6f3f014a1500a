# SPDX-License-Identifier: BSD-3-Clause
"""Drive headless Chromium over its DevTools pipe, with Python's standard library only.

Chromium started with --remote-debugging-pipe reads Chrome DevTools Protocol (CDP) messages
from its fd 3 and writes to its fd 4, each a JSON object ended by a NUL byte. This module
launches Debian's /usr/bin/chromium (package chromium) that way, with a fresh temporary
profile, and gives the e2e tests a small, blocking, single-threaded API:

    import cdp
    with cdp.Browser() as browser:             # launch; closing kills and reaps it all
        page = browser.new_page()              # a tab: its own CDP session (flatten=true)
        page.add_init_script("window.seen = []")   # runs before every document's scripts
        page.navigate(cdp.file_url("out/index.html"))  # returns once "load" has fired
        n = page.evaluate("document.links.length")     # a JSON-able value
        n = page.evaluate("(sel) => document.querySelectorAll(sel).length", "a")
        page.click("span.marker", index=2)     # real mouse press + release at its centre
        page.sleep(0.1)                        # let timers run, handle events meanwhile
        page.screenshot("/tmp/index.png", full_page=True)
        page.console, page.errors, page.dialogs, page.requests, page.popups  # collected

Every wait has a timeout and fails with cdp.Timeout naming what it waited for; a failed
command, a script that throws (cdp.JSError), a crashed tab or a Chromium that exits raise
cdp.Error. Events are handled while waiting: dialogs are recorded and dismissed, popups
recorded and closed, so a hostile page cannot block a test. Page.on(method, fn) hooks any
other CDP event of the tab; Page.send / Browser.send run any CDP command.

Browser.close (also on exceptions, from `with`, and at interpreter exit) ends Chromium and
every process it started and removes the profile. Chromium runs in its own process group,
and this process becomes a "child subreaper" (Linux prctl) so that Chromium's orphaned
helper processes are reaped here rather than left as zombies under a PID 1 that does not
reap (as on some container and VM images). Knows nothing about tlparse.
"""
import atexit
import base64
import ctypes
import fcntl
import json
import math
import os
import select
import shutil
import signal
import sys
import tempfile
import time
import urllib.parse

DEFAULT_EXECUTABLE = "/usr/bin/chromium"

# --headless --no-sandbox --disable-gpu: run without display, user namespaces or GPU.
# The background-networking, component-update, sync and QUIC flags keep Chromium from
# reaching for the network (on a machine without one it floods the closed network).
# The rest make runs repeatable and keep pages from blocking a test: popups are let through
# so that the test sees (and closes) them; fixed colours and no scrollbars for screenshots;
# no extensions (Debian's wrapper loads /usr/share/chromium/extensions otherwise), no crash
# reporter, no keyring, no sound.
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-popup-blocking",
    "--disable-extensions",
    "--disable-breakpad",
    "--password-store=basic",
    "--force-color-profile=srgb",
    "--hide-scrollbars",
    "--mute-audio",
    "--remote-debugging-pipe",
]


class Error(Exception):
    """A CDP command failed, Chromium exited, or a tab crashed."""


class Timeout(Error):
    """A wait ran out of time; the message names what was awaited."""


class JSError(Error):
    """Script run by Page.evaluate threw; the message is the JS error and its location."""


def file_url(path):
    """The file:// URL of a local path (made absolute), percent-encoded as a browser expects.

    Like Node's pathToFileURL: '%', '#', '?', spaces, quotes, controls and non-ASCII are
    encoded, so any file name gives a URL that names exactly that file.
    """
    return "file://" + urllib.parse.quote(os.path.abspath(path), safe="/!$&'()*+,;=:@[]^|~")


def _become_subreaper():
    """Orphaned descendants are re-parented to this process (Linux 3.4+), which reaps them."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass


_open_browsers = set()  # closed at interpreter exit if their owner did not


@atexit.register
def _close_all():
    for b in list(_open_browsers):
        b.close()


def _spawn(path, argv, env, **kw):
    try:
        return os.posix_spawn(path, argv, env, **kw)
    except OSError as e:
        raise Error("cannot run %s: %s" % (path, e))


def _high_fd(fd):
    """Move fd to 10 or above (close-on-exec), so it cannot collide with the child's 3 and 4."""
    high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return high


class Browser:
    """A headless Chromium with a fresh profile, driven over its DevTools pipe.

    Browser(executable=None, args=(), timeout=30.0) launches it and waits until it answers
    (at most `timeout` seconds). `executable` defaults to $CHROMIUM, else /usr/bin/chromium;
    `args` are extra command-line flags. Use it as a context manager, or call close().
    """

    def __init__(self, executable=None, args=(), timeout=30.0):
        self.executable = executable or os.environ.get("CHROMIUM") or DEFAULT_EXECUTABLE
        self.timeout = timeout  # default for Browser.send
        self.pid = None  # the browser process, until reaped
        self._group = None  # its process group (== its pid), until empty
        self._dir = None
        self._next_id = 0
        self._responses = {}  # id -> message, for commands someone waits on
        self._posted = set()  # ids of fire-and-forget commands, whose answers are dropped
        self._buf = b""  # what was read and not yet handled
        self._scanned = 0  # no NUL in self._buf[:self._scanned]
        self._dead = None  # why the pipe is unusable, once it is
        self._pages = {}  # session id -> Page
        self._handlers = {}  # event method -> [fn(params)] for browser-level events
        self._rfd = self._wfd = None
        self._up = False  # it answered once: close() may ask it to quit before killing it
        if not (os.path.isfile(self.executable) and os.access(self.executable, os.X_OK)):
            raise Error(
                "cannot run %s: not an executable file (on Debian: apt-get install chromium)"
                % self.executable
            )
        self._dir = tempfile.mkdtemp(prefix="cdp-chromium-")
        self.log_path = os.path.join(self._dir, "chromium.log")  # Chromium's stdout+stderr
        try:
            self._launch(list(args))
            _open_browsers.add(self)
            try:
                self.version = self.send("Browser.getVersion", timeout=timeout)["product"]
            except Timeout:
                raise Timeout("%s did not answer on its DevTools pipe within %gs; last lines "
                              "of its output:\n%s" % (self.executable, timeout, self.log_tail()))
            self._up = True
            self.send("Target.setDiscoverTargets", {"discover": True})
        except BaseException:
            self.close()
            raise

    def _launch(self, extra):
        _become_subreaper()
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        to_child_r, from_child_w = _high_fd(to_child_r), _high_fd(from_child_w)
        self._wfd, self._rfd = to_child_w, from_child_r
        profile = os.path.join(self._dir, "profile")
        os.mkdir(profile)
        argv = [self.executable] + FLAGS + ["--user-data-dir=" + profile] + extra
        log = os.open(self.log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        try:
            self.pid = _spawn(
                self.executable,
                argv,
                os.environ,
                file_actions=[
                    (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                    (os.POSIX_SPAWN_DUP2, log, 1),
                    (os.POSIX_SPAWN_DUP2, log, 2),
                    (os.POSIX_SPAWN_DUP2, to_child_r, 3),
                    (os.POSIX_SPAWN_DUP2, from_child_w, 4),
                ],
                setsid=True,  # its own session and process group (pgid == pid), killed whole
            )
            self._group = self.pid
        finally:
            os.close(log)
            os.close(to_child_r)
            os.close(from_child_w)
        os.set_blocking(self._wfd, False)
        os.set_blocking(self._rfd, False)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- commands and events ---------------------------------------------------------------

    def send(self, method, params=None, session=None, timeout=None, what=None):
        """Run a CDP command and return its result (a dict).

        `session` is a tab's session id (None: the browser itself). Raises Error if the
        command fails, Timeout after `timeout` seconds (default self.timeout); `what` says
        what the command was for, in those messages.
        """
        timeout = self.timeout if timeout is None else timeout
        what = what or method
        msg_id = self._write(method, params, session, timeout)
        self.wait(lambda: msg_id in self._responses, timeout, what)
        msg = self._responses.pop(msg_id)
        if "error" in msg:
            err = msg["error"]
            raise Error("%s failed: %s%s" % (what, err.get("message"),
                                            " (%s)" % err["data"] if err.get("data") else ""))
        return msg.get("result", {})

    def post(self, method, params=None, session=None):
        """Send a CDP command without waiting for its answer (safe inside event handlers)."""
        self._posted.add(self._write(method, params, session, self.timeout))

    def on(self, method, fn):
        """Call fn(params) on every browser-level event `method` (e.g. Target.targetCreated)."""
        self._handlers.setdefault(method, []).append(fn)

    def new_page(self, width=1280, height=720, timeout=None):
        """Open a new tab on about:blank with a width x height viewport; returns its Page."""
        target = self.send("Target.createTarget", {"url": "about:blank"}, timeout=timeout)
        target_id = target["targetId"]
        attached = self.send("Target.attachToTarget", {"targetId": target_id, "flatten": True},
                             timeout=timeout)
        page = Page(self, target_id, attached["sessionId"])
        self._pages[page.session_id] = page
        page._setup(width, height, timeout)
        return page

    def wait(self, done, timeout, what):
        """Handle incoming messages until done() is true; Timeout after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while not done():
            left = deadline - time.monotonic()
            if left <= 0:
                raise Timeout("timed out after %gs waiting for %s" % (timeout, what))
            self._pump(left)

    def sleep(self, seconds):
        """Wait `seconds`, handling events (dialogs, popups, console) meanwhile."""
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            self._pump(left)

    def log_tail(self, n=12):
        """The last n lines Chromium wrote to its stdout/stderr (for error messages)."""
        try:
            with open(self.log_path, "rb") as f:
                lines = f.read().decode("utf-8", "replace").splitlines()
        except OSError:
            return ""
        return "\n".join(lines[-n:])

    def _write(self, method, params, session, timeout):
        if self._dead:
            raise Error("cannot send %s: %s" % (method, self._dead))
        self._next_id += 1
        msg = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        data = json.dumps(msg).encode() + b"\0"
        deadline = time.monotonic() + timeout
        while data:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Timeout("timed out after %gs writing %s to Chromium" % (timeout, method))
            _, w, _ = select.select([], [self._wfd], [], left)
            if not w:
                continue
            try:
                data = data[os.write(self._wfd, data):]
            except BlockingIOError:
                continue
            except OSError as e:
                self._fail("its DevTools pipe broke (%s)" % e)
        return self._next_id

    def _pump(self, timeout):
        """Wait up to `timeout` seconds for input, then handle every complete message."""
        if self._dead:
            raise Error(self._dead)
        r, _, _ = select.select([self._rfd], [], [], max(0.0, timeout))
        if r:
            try:
                chunk = os.read(self._rfd, 1 << 20)
            except BlockingIOError:
                chunk = None
            if chunk == b"":
                self._fail("Chromium closed its DevTools pipe")
            if chunk:
                self._buf += chunk
        # One message at a time, so that a handler may itself wait for an answer.
        while True:
            end = self._buf.find(b"\0", self._scanned)
            if end < 0:
                self._scanned = len(self._buf)
                break
            raw, self._buf, self._scanned = self._buf[:end], self._buf[end + 1:], 0
            try:
                msg = json.loads(raw)
            except ValueError as e:
                self._fail("Chromium sent a message that is not JSON (%s)" % e)
            self._dispatch(msg)

    def _fail(self, why):
        status = ""
        deadline = time.monotonic() + 1.0  # its exit may follow the pipe's end a little later
        while self.pid and time.monotonic() < deadline:
            pid, st = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                status = " (it exited: %s)" % _describe_status(st)
                self.pid = None
            else:
                time.sleep(0.02)
        self._dead = "%s%s; last lines of %s:\n%s" % (why, status, self.executable,
                                                       self.log_tail())
        raise Error(self._dead)

    def _dispatch(self, msg):
        if "id" in msg:
            if msg["id"] in self._posted:
                self._posted.discard(msg["id"])
            else:
                self._responses[msg["id"]] = msg
            return
        method, params = msg.get("method"), msg.get("params", {})
        session = msg.get("sessionId")
        if session:
            page = self._pages.get(session)
            if page:
                page._on_event(method, params)
            return
        if method == "Target.targetCreated":
            info = params.get("targetInfo", {})
            for page in list(self._pages.values()):
                if info.get("openerId") == page.target_id:
                    page.popups.append(info.get("url", ""))
                    self.post("Target.closeTarget", {"targetId": info["targetId"]})
        elif method == "Target.detachedFromTarget":
            page = self._pages.pop(params.get("sessionId"), None)
            if page and not page._gone:
                page._gone = "the tab was closed"
        for fn in self._handlers.get(method, ()):
            fn(params)

    # ---- shutting down ---------------------------------------------------------------------

    def close(self):
        """End Chromium and all its processes, reap them, remove the profile. Idempotent."""
        _open_browsers.discard(self)
        if self.pid and self._up and not self._dead:
            try:
                self.post("Browser.close")
            except Error:
                pass
            self._reap_leader(5.0)
        if self.pid:
            self._kill_group()
            self._reap_leader(5.0)
        self._reap_group(5.0)
        for fd in (self._rfd, self._wfd):
            if fd is not None:
                os.close(fd)
        self._rfd = self._wfd = None
        self._dead = self._dead or "the browser was closed"
        if self._dir:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    def _kill_group(self):
        """SIGKILL every process left in Chromium's group; False once the group is empty."""
        try:
            os.killpg(self._group, signal.SIGKILL)
            return True
        except ProcessLookupError:
            return False

    def _reap_leader(self, timeout):
        """Wait up to `timeout` seconds for the browser process itself to exit, and reap it."""
        deadline = time.monotonic() + timeout
        while self.pid:
            try:
                pid, _ = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # already reaped
                pid = self.pid
            if pid:
                self.pid = None
            elif time.monotonic() > deadline:
                return
            elif not self._dead:
                try:
                    self._pump(0.05)  # keep its pipe drained while it shuts down
                except Error:
                    pass
            else:
                time.sleep(0.02)

    def _reap_group(self, timeout):
        """Kill what is left of Chromium's process group and reap it, for up to `timeout` s."""
        if self._group is None:
            return
        deadline = time.monotonic() + timeout
        while True:
            while True:  # reap members re-parented to us (we are their subreaper)
                try:
                    pid, _ = os.waitpid(-self._group, os.WNOHANG)
                except ChildProcessError:
                    break
                if not pid:
                    break
            if not self._kill_group():
                self._group = None
                return
            if time.monotonic() > deadline:
                sys.stderr.write("cdp: warning: processes of Chromium's group %d are still "
                                 "there after %gs\n" % (self._group, timeout))
                return
            time.sleep(0.02)


def _describe_status(status):
    if os.WIFSIGNALED(status):
        return "killed by signal %d" % os.WTERMSIG(status)
    return "status %d" % os.WEXITSTATUS(status)


# Runs in the page: where a click on the index-th match of a selector would land, or why
# there is no such point. Scrolls the element to the middle of the viewport first.
_CLICK_POINT_JS = r"""(sel, index) => {
  const all = document.querySelectorAll(sel);
  const el = all[index];
  if (!el) return { why: `no element matches ${sel} [${index}] (${all.length} match)` };
  el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
  const box = [...el.getClientRects()].find((r) => r.width > 0 && r.height > 0);
  if (!box || !el.checkVisibility({ visibilityProperty: true }))
    return { why: `${sel} [${index}] is not visible` };
  const x = box.left + box.width / 2, y = box.top + box.height / 2;
  const hit = document.elementFromPoint(x, y);
  if (!hit || !(hit === el || el.contains(hit))) {
    const by = hit ? hit.outerHTML.slice(0, 80) : 'nothing';
    return { why: `${sel} [${index}] is covered by ${by}` };
  }
  return { x, y };
}"""


class Page:
    """One tab, attached through its own flat CDP session. Made by Browser.new_page().

    Collected while waiting (cleared by clear()):
      console   [{type, text, source, url}] from console.* calls (source "console-api") and
                the browser's log (network errors, CSP, interventions: Log.entryAdded)
      errors    [str] uncaught exceptions and unhandled rejections (Runtime.exceptionThrown)
      dialogs   [{type, message}] alert/confirm/prompt/beforeunload, each dismissed
      requests  [{url, method, type, frame_id, loader_id, navigation}] every request the
                tab made (Network.requestWillBeSent), document loads included
      popups    [url] windows the tab opened, each closed at once
    `url` is the main frame's current URL; `timeout` (seconds) is the default for waits.
    """

    def __init__(self, browser, target_id, session_id):
        self.browser = browser
        self.target_id = target_id
        self.session_id = session_id
        self.timeout = 10.0
        self.url = "about:blank"
        self.console, self.errors, self.dialogs, self.requests, self.popups = [], [], [], [], []
        self._handlers = {}
        self._loaded = set()  # loader ids whose main-frame load event fired
        self._nav_url = {}  # loader id -> the URL the main frame committed
        self._gone = None  # why the tab cannot be used any more

    def _setup(self, width, height, timeout):
        for method, params in [
            ("Page.enable", None),
            ("Page.setLifecycleEventsEnabled", {"enabled": True}),
            ("Runtime.enable", None),
            ("Log.enable", None),
            ("Network.enable", None),
            ("Emulation.setDeviceMetricsOverride",
             {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}),
        ]:
            self.send(method, params, timeout=timeout)

    def send(self, method, params=None, timeout=None, what=None):
        """Run a CDP command in this tab's session; see Browser.send."""
        if self._gone:
            raise Error("cannot send %s to %s: %s" % (method, self.url, self._gone))
        timeout = self.timeout if timeout is None else timeout
        label = "%s%s on %s" % (method, " (%s)" % what if what else "", self.url)
        return self.browser.send(method, params, self.session_id, timeout, label)

    def on(self, method, fn):
        """Call fn(params) on every event `method` of this tab (e.g. Page.frameNavigated)."""
        self._handlers.setdefault(method, []).append(fn)

    def clear(self):
        """Forget the console messages, errors, dialogs, requests and popups collected."""
        for seen in (self.console, self.errors, self.dialogs, self.requests, self.popups):
            seen.clear()

    def add_init_script(self, source):
        """Run `source` in every frame's new document, before the document's own scripts."""
        self.send("Page.addScriptToEvaluateOnNewDocument", {"source": source})

    def navigate(self, url, timeout=None):
        """Open `url` in the tab and wait for its load event; returns the URL as committed.

        Raises Error if it cannot be opened (e.g. no such file), Timeout if "load" has not
        fired within `timeout` seconds (default self.timeout).
        """
        timeout = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout
        self._loaded.clear()
        self._nav_url.clear()
        res = self.send("Page.navigate", {"url": url}, timeout=timeout, what="to " + url)
        if res.get("errorText"):
            raise Error("cannot open %s: %s" % (url, res["errorText"]))
        loader = res.get("loaderId")
        if loader:  # else a same-document navigation (only the fragment changed)
            self._wait(lambda: loader in self._loaded, max(0.0, deadline - time.monotonic()),
                       "the load event of " + url, timeout)
            self.url = self._nav_url.get(loader, self.url)
        return self.url

    def evaluate(self, js, *args, timeout=None):
        """Evaluate JS in the page's main frame and return its value, as JSON gives it.

        With args, `js` must be a function, called with them (each JSON-serialised). A
        promise is awaited. Runs with a user gesture, as a click handler would. undefined
        gives None; NaN, Infinity and -0 come back as floats. Raises JSError if it throws.
        """
        expr = js
        if args:
            expr = "(%s)(%s)" % (js, ", ".join(json.dumps(a) for a in args))
        res = self.send("Runtime.evaluate",
                        {"expression": expr, "returnByValue": True, "awaitPromise": True,
                         "userGesture": True},
                        timeout=timeout)
        if "exceptionDetails" in res:
            raise JSError("script threw on %s: %s" % (self.url, _describe_exception(
                res["exceptionDetails"])))
        value = res.get("result", {})
        if "unserializableValue" in value:
            u = value["unserializableValue"]
            return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf,
                    "-0": -0.0}.get(u, u)
        return value.get("value")

    def click(self, selector, index=0, timeout=None):
        """Click the index-th element matching a CSS selector, as a mouse would.

        Scrolls it into view, then presses and releases the left button at the centre of
        its first box. Retries until the element exists, is visible and is not covered by
        another one; Timeout (with the reason) after `timeout` seconds.
        """
        timeout = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout
        while True:
            point = self.evaluate(_CLICK_POINT_JS, selector, index, timeout=timeout)
            if "why" not in point:
                break
            if time.monotonic() + 0.05 > deadline:
                raise Timeout("timed out after %gs clicking on %s: %s"
                              % (timeout, self.url, point["why"]))
            self.browser.sleep(0.05)
        x, y = point["x"], point["y"]
        for kind, extra in [("mouseMoved", {}),
                            ("mousePressed", {"button": "left", "buttons": 1, "clickCount": 1}),
                            ("mouseReleased", {"button": "left", "buttons": 0, "clickCount": 1})]:
            self.send("Input.dispatchMouseEvent", dict(type=kind, x=x, y=y, **extra),
                      timeout=timeout, what="clicking %s [%d]" % (selector, index))

    def screenshot(self, path, full_page=False, timeout=None):
        """Write a PNG of the viewport (or of the whole page) to `path`; returns path."""
        params = {"format": "png"}
        if full_page:
            m = self.send("Page.getLayoutMetrics", timeout=timeout)
            size, view = m["cssContentSize"], m["cssLayoutViewport"]
            params.update(captureBeyondViewport=True,
                          clip={"x": 0, "y": 0, "scale": 1,
                                "width": math.ceil(max(size["width"], view["clientWidth"])),
                                "height": math.ceil(max(size["height"], view["clientHeight"]))})
        data = self.send("Page.captureScreenshot", params, timeout=timeout)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
        return path

    def sleep(self, seconds):
        """Let the page run for `seconds`, handling its events meanwhile."""
        self.browser.sleep(seconds)

    def close(self):
        """Close the tab."""
        if not self._gone:
            self.browser.send("Target.closeTarget", {"targetId": self.target_id})
            self._gone = "the tab was closed"

    def _wait(self, done, timeout, what, total=None):
        def check():
            if self._gone:
                raise Error("%s while waiting for %s" % (self._gone, what))
            return done()

        try:
            self.browser.wait(check, timeout, what)
        except Timeout:
            raise Timeout("timed out after %gs waiting for %s" % (total or timeout, what))

    def _on_event(self, method, p):
        if method == "Page.lifecycleEvent":
            if p.get("name") == "load" and p.get("frameId") == self.target_id:
                self._loaded.add(p.get("loaderId"))
        elif method == "Page.frameNavigated":
            frame = p.get("frame", {})
            if not frame.get("parentId"):
                self.url = frame.get("url", "") + frame.get("urlFragment", "")
                self._nav_url[frame.get("loaderId")] = self.url
        elif method == "Page.navigatedWithinDocument":
            if p.get("frameId") == self.target_id:
                self.url = p.get("url", self.url)
        elif method == "Page.javascriptDialogOpening":
            self.dialogs.append({"type": p.get("type"), "message": p.get("message")})
            self.browser.post("Page.handleJavaScriptDialog", {"accept": False}, self.session_id)
        elif method == "Runtime.consoleAPICalled":
            self.console.append({"type": p.get("type"), "source": "console-api",
                                 "text": " ".join(_describe_value(a) for a in p.get("args", [])),
                                 "url": _top_frame_url(p.get("stackTrace"))})
        elif method == "Log.entryAdded":
            e = p.get("entry", {})
            self.console.append({"type": e.get("level"), "source": e.get("source"),
                                 "text": e.get("text", ""), "url": e.get("url", "")})
        elif method == "Runtime.exceptionThrown":
            self.errors.append(_describe_exception(p.get("exceptionDetails", {})))
        elif method == "Network.requestWillBeSent":
            req = p.get("request", {})
            self.requests.append({"url": req.get("url", ""), "method": req.get("method"),
                                  "type": p.get("type"), "frame_id": p.get("frameId"),
                                  "loader_id": p.get("loaderId"),
                                  "navigation": p.get("requestId") == p.get("loaderId")})
        elif method == "Inspector.targetCrashed":
            self._gone = "the tab crashed"
        elif method == "Inspector.detached":
            self._gone = "the tab was detached (%s)" % p.get("reason")
        for fn in self._handlers.get(method, ()):
            fn(p)


def _describe_value(obj):
    if "value" in obj:
        v = obj["value"]
        return v if isinstance(v, str) else json.dumps(v)
    return obj.get("unserializableValue") or obj.get("description") or obj.get("type", "")


def _top_frame_url(stack):
    frames = (stack or {}).get("callFrames") or [{}]
    return frames[0].get("url", "")


def _describe_exception(d):
    exc = d.get("exception") or {}
    text = exc.get("description") or _describe_value(exc) if exc else d.get("text", "")
    where = d.get("url") or _top_frame_url(d.get("stackTrace"))
    if where and where not in text:
        text += " (at %s:%d)" % (where, d.get("lineNumber", 0) + 1)
    return text
