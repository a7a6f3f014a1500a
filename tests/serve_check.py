#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tlparse --serve (tests/serve.sh runs it): the report over HTTP, checked with raw sockets.

  - `--serve --port 0 --no-browser` says "serving OUT at http://127.0.0.1:PORT/ (Ctrl-C
    stops)" on stderr, nothing on stdout; index.html (at / and by name), a compile id's page,
    raw.jsonl and summary.json come byte for byte with their types and lengths; HEAD gives the
    head alone;
  - 404 for what is not there, for traversal (.., %2e%2e, encoded slashes, absolute paths,
    a symbolic link planted in the report, a hidden name), and its body names nothing of the
    request; 405 for POST, PUT, DELETE; 400 for an absolute-form target; 403 for another
    site's Host (DNS rebinding); a client that says nothing does not hold the server;
  - it listens on 127.0.0.1 only: the machine's other address is refused (skipped, said,
    when the machine has none); --bind 0.0.0.0 warns that other machines can reach the
    model's code, and they can;
  - SIGINT and SIGTERM end it with exit 0 at once;
  - without --port: the first free port from 8000 (the reference's); a port in use: exit 1
    with a message, before the log is read (no report folder);
  - a single-page --bundle is served at /;
  - refused: with --summary/--json, --rank-only, a .zip-only bundle, --port or --bind without
    --serve, a bad port or address, tlparse diff;
  - --watch --serve: the live report served while a log grows (no-store), its index changing
    as the log does; --watch --run --serve: the final report served after the job until
    Ctrl-C, exit 0.

    python3 tests/serve_check.py path/to/tlparse
"""
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEMO = os.path.join(HERE, "fixtures", "demo.log")
URL_RE = re.compile(r"serving (?:the live report )?(.*) at (http://([0-9.]+|\[[0-9a-f:]+\]):(\d+)/\S*) "
                    r"\(Ctrl-C stops\)")

failures = []
passed = 0


def check(cond, what):
    global passed
    if cond:
        passed += 1
    else:
        failures.append(what)
        print("FAIL: " + what, flush=True)


class Server:
    """tlparse ARGS in cwd, its stderr read as it comes; the URL it serves at."""

    def __init__(self, binary, args, cwd, timeout=30):
        self.p = subprocess.Popen([binary] + args, cwd=cwd, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
        self.err = ""
        self.out = b""
        self.urls = []
        threading.Thread(target=self._read_err, daemon=True).start()
        threading.Thread(target=self._read_out, daemon=True).start()
        self.wait_url(1, timeout)

    def _read_err(self):
        for raw in self.p.stderr:
            line = raw.decode("utf-8", "replace")
            self.err += line
            m = URL_RE.search(line)
            if m:
                self.urls.append((m.group(1), m.group(2), int(m.group(4))))

    def _read_out(self):
        self.out = self.p.stdout.read()

    def wait_url(self, n, timeout=30):
        end = time.monotonic() + timeout
        while len(self.urls) < n and time.monotonic() < end and self.p.poll() is None:
            time.sleep(0.02)
        return len(self.urls) >= n

    @property
    def port(self):
        return self.urls[0][2] if self.urls else None

    def stop(self, sig=signal.SIGINT, timeout=10):
        t0 = time.monotonic()
        if self.p.poll() is None:
            self.p.send_signal(sig)
        try:
            rc = self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            rc = self.p.wait()
        time.sleep(0.1)
        return rc, time.monotonic() - t0


def raw(port, request, host="127.0.0.1", timeout=10):
    """request (bytes) sent to host:port as it is; (status, headers dict, body) of the answer."""
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect((host, port))
    s.sendall(request)
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    s.close()
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for ln in lines[1:]:
        k, _, v = ln.partition(":")
        headers[k.strip().lower()] = v.strip()
    return status, headers, body


def get(port, target, method="GET", host_header="127.0.0.1"):
    req = "%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: serve_check\r\n\r\n" % (
        method, target, host_header)
    return raw(port, req.encode("latin-1"))


def other_address():
    """One IPv4 address of this machine that is not loopback, or None."""
    addrs = []
    try:
        out = subprocess.run(["ip", "-4", "-o", "addr", "show"], capture_output=True,
                             text=True).stdout
        addrs = re.findall(r"inet (\d+\.\d+\.\d+\.\d+)/", out)
    except OSError:
        pass
    if not addrs:
        try:
            addrs = subprocess.run(["hostname", "-I"], capture_output=True,
                                   text=True).stdout.split()
        except OSError:
            pass
    addrs = [a for a in addrs if re.match(r"\d+\.\d+\.\d+\.\d+$", a) and not a.startswith("127.")]
    return addrs[0] if addrs else None


def connects(host, port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(3)
    try:
        s.connect((host, port))
        return True
    except OSError:
        return False
    finally:
        s.close()


def run(binary, args, cwd):
    p = subprocess.run([binary] + args, cwd=cwd, capture_output=True, timeout=60)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


# ---- the cases --------------------------------------------------------------------------------


def case_serve(binary, tmp):
    d = os.path.join(tmp, "serve")
    os.makedirs(d)
    s = Server(binary, [DEMO, "-o", "out", "--serve", "--port", "0", "--no-browser"], d)
    check(s.urls and s.urls[0][0] == "out" and s.urls[0][1].startswith("http://127.0.0.1:"),
          "--serve says where it serves out, on 127.0.0.1: %r" % s.err[-500:])
    if not s.urls:
        s.stop()
        return
    check("out/index.html: 5 compile ids" in s.err.split("serving")[0],
          "the report's line comes before the serving line: %r" % s.err)
    port = s.port
    out = os.path.join(d, "out")
    index = open(os.path.join(out, "index.html"), "rb").read()
    for target in ("/", "/index.html", "/index.html?x=1"):
        st, h, body = get(port, target)
        check(st == 200 and body == index, "%s: index.html byte for byte (%d)" % (target, st))
    check(h.get("content-type") == "text/html; charset=utf-8" and
          h.get("content-length") == str(len(index)), "index.html's type and length: %r" % h)
    check(h.get("x-content-type-options") == "nosniff", "nosniff: %r" % h)
    # a compile id's page, as index.html links it
    links = re.findall(rb'href="(-_[^"#?]+\.html)"', index)
    check(bool(links), "index.html links a compile id's page")
    for link in links[:3]:
        st, h, body = get(port, "/" + link.decode())
        check(st == 200 and body == open(os.path.join(out, link.decode()), "rb").read(),
              "/%s: byte for byte (%d)" % (link.decode(), st))
    for name, ctype in (("raw.jsonl", "text/plain; charset=utf-8"),
                        ("summary.json", "application/json")):
        st, h, body = get(port, "/" + name)
        check(st == 200 and body == open(os.path.join(out, name), "rb").read() and
              h.get("content-type") == ctype, "/%s: its bytes as %s (%d, %r)" % (name, ctype, st, h))
    st, h, body = get(port, "/index.html", method="HEAD")
    check(st == 200 and body == b"" and h.get("content-length") == str(len(index)),
          "HEAD: the head of GET and no body")
    # what is not the report's
    os.symlink("/etc/passwd", os.path.join(out, "leak.txt"))
    os.symlink("/etc", os.path.join(out, "etcdir"))
    with open(os.path.join(out, ".secret"), "w") as f:
        f.write("hidden\n")
    for target in ("/nothing.html", "/../../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd",
                   "/..%2f..%2f..%2fetc%2fpasswd", "/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd",
                   "//etc/passwd", "/etc/passwd", "/leak.txt", "/etcdir/passwd", "/.secret",
                   "/-_0_0_0/../../etc/passwd", "/%00", "/index.html%00.txt",
                   "/<script>alert(1)</script>"):
        st, h, body = raw(port, b"GET " + target.encode() + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        check(st == 404 and body == b"404 Not Found\n",
              "%s: 404 naming nothing of it (%d %r)" % (target, st, body[:80]))
    st, _, _ = raw(port, b"GET http://127.0.0.1/etc/passwd HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    check(st == 400, "an absolute-form target: 400 (%d)" % st)
    for method in ("POST", "PUT", "DELETE", "OPTIONS"):
        st, h, _ = get(port, "/index.html", method=method)
        check(st == 405 and h.get("allow") == "GET, HEAD", "%s: 405 with Allow (%d)" % (method, st))
    st, _, _ = get(port, "/", host_header="attacker.example:%d" % port)
    check(st == 403, "another site's Host (DNS rebinding): 403 (%d)" % st)
    st, _, _ = get(port, "/", host_header="localhost:%d" % port)
    check(st == 200, "Host localhost: 200 (%d)" % st)
    # a client that connects and says nothing does not keep another from its answer
    idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(4)]
    t0 = time.monotonic()
    st, _, body = get(port, "/")
    check(st == 200 and body == index and time.monotonic() - t0 < 2,
          "answered beside idle clients (%d, %.1f s)" % (st, time.monotonic() - t0))
    for c in idle:
        c.close()
    # 127.0.0.1 only
    addr = other_address()
    if addr is None:
        print("SKIP: this machine has no address but loopback: that --serve refuses other "
              "interfaces is not checked", flush=True)
    else:
        check(not connects(addr, port), "--serve refuses %s:%d (another interface)" % (addr, port))
    rc, secs = s.stop(signal.SIGINT)
    check(rc == 0 and secs < 3, "SIGINT: exit 0 at once (%s, %.1f s)" % (rc, secs))
    check(s.out == b"", "nothing on stdout: %r" % s.out[:200])
    check(not connects("127.0.0.1", port), "the port is closed after the exit")


def case_bind_any(binary, tmp):
    d = os.path.join(tmp, "bind")
    os.makedirs(d)
    s = Server(binary, [DEMO, "-o", "out", "--serve", "--port", "0", "--bind", "0.0.0.0",
                        "--no-browser"], d)
    check(re.search(r"tlparse: warning: serving on 0\.0\.0\.0:\d+, which other machines can "
                    r"reach: the report holds the model's code", s.err) is not None,
          "--bind 0.0.0.0 warns: %r" % s.err[-600:])
    check(s.urls and s.urls[0][1].startswith("http://127.0.0.1:"),
          "the URL opened is the loopback's: %r" % s.urls)
    if s.urls:
        st, _, _ = get(s.port, "/")
        check(st == 200, "answers on 127.0.0.1")
        addr = other_address()
        if addr is None:
            print("SKIP: no address but loopback: --bind 0.0.0.0 reaching it is not checked")
        else:
            st, _, _ = raw(s.port, b"GET / HTTP/1.1\r\nHost: %s\r\n\r\n" % addr.encode(), host=addr)
            check(st == 200, "--bind 0.0.0.0 answers on %s, with its Host (%d)" % (addr, st))
    rc, secs = s.stop(signal.SIGTERM)
    check(rc == 0 and secs < 3, "SIGTERM: exit 0 at once (%s, %.1f s)" % (rc, secs))


def case_ports(binary, tmp):
    d = os.path.join(tmp, "ports")
    os.makedirs(d)
    held = socket.socket()
    held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    held.bind(("127.0.0.1", 0))
    held.listen(1)
    port = held.getsockname()[1]
    rc, out, err = run(binary, [DEMO, "-o", "busy", "--serve", "--port", str(port), "--no-browser"], d)
    check(rc == 1 and ("cannot serve on 127.0.0.1 port %d: Address already in use" % port) in err
          and "port 0 for any free one" in err, "a port in use: exit 1, said (%d, %r)" % (rc, err))
    check(not os.path.exists(os.path.join(d, "busy")), "a port in use fails before the log is read")
    # without --port: the first free one from 8000, as the reference; one held is passed over
    first = None
    try:
        first = socket.socket()
        first.bind(("127.0.0.1", 8000))
        first.listen(1)
    except OSError:
        first.close()
        first = None  # someone else has it: passed over all the same
    s = Server(binary, [DEMO, "-o", "auto", "--serve", "--no-browser"], d)
    check(s.port is not None and 8001 <= s.port <= 8099 if first else 8000 <= (s.port or 0) <= 8099,
          "without --port: a port from 8000 on, 8000 passed over when held (%r)" % s.port)
    s.stop()
    if first:
        first.close()
    held.close()


def case_bundle(binary, tmp):
    d = os.path.join(tmp, "bundle")
    os.makedirs(d)
    s = Server(binary, [DEMO, "--bundle", "report.html", "--serve", "--port", "0",
                        "--no-browser"], d)
    check(s.urls and s.urls[0][0] == "report.html", "a single-page bundle is served: %r" % s.err)
    if s.urls:
        page = open(os.path.join(d, "report.html"), "rb").read()
        st, h, body = get(s.port, "/")
        check(st == 200 and body == page and h.get("content-type") == "text/html; charset=utf-8",
              "the bundle's page at / (%d)" % st)
        st, _, _ = get(s.port, "/raw.jsonl")
        check(st == 404, "nothing else beside it (%d)" % st)
    rc, _ = s.stop()
    check(rc == 0, "the bundle's server exits 0 (%s)" % rc)


def case_refused(binary, tmp):
    d = os.path.join(tmp, "refused")
    os.makedirs(d)
    cases = [
        ([DEMO, "--serve", "--summary"],
         "cannot use --serve with --summary or --json (they write no report)"),
        ([DEMO, "--serve", "--json"],
         "cannot use --serve with --summary or --json (they write no report)"),
        ([DEMO, "--port", "8000"], "cannot use --port without --serve"),
        ([DEMO, "--bind", "0.0.0.0"], "cannot use --bind without --serve"),
        ([DEMO, "--serve", "--bundle", "r.zip"],
         "cannot use --serve with --bundle FILE.zip without -o (a zip is not served"),
        ([DEMO, "--serve", "--rank-only", "--rank", "0"], "cannot use --serve with --rank-only"),
        ([DEMO, "--serve", "--port", "70000"], "--port wants a port number (0 to 65535), not 70000"),
        ([DEMO, "--serve", "--port", "x"], "--port wants a port number (0 to 65535), not x"),
        ([DEMO, "--serve", "--bind", "example.com"], "cannot serve on example.com: not an IP address"),
        ([DEMO, "--watch", "--port", "0"], "cannot use --port without --serve"),
        (["diff", DEMO, DEMO, "--serve"], "cannot use --serve, --port or --bind with tlparse diff"),
    ]
    for args, msg in cases:
        rc, out, err = run(binary, args + ["--no-browser"] if args[0] != "diff" else args, d)
        check(rc == 2 and msg in err, "%s: exit 2 saying %r (%d, %r)" % (args[1:], msg, rc, err[-300:]))
    check(not os.path.exists(os.path.join(d, "tl_out")), "no refused run wrote a report")


def wait_for(pred, timeout):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.1)
    return None


def entries(path):
    with open(path, "rb") as f:
        lines = f.read().split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    out = []
    for ln in lines:
        if ln.startswith(b"\t") and out:
            out[-1].append(ln)
        else:
            out.append([ln])
    return [b"\n".join(e) + b"\n" for e in out]


def case_watch(binary, tmp):
    d = os.path.join(tmp, "watch")
    os.makedirs(d)
    es = entries(DEMO)
    half = len(es) // 3
    log = os.path.join(d, "train.log")
    with open(log, "wb") as f:
        f.write(b"".join(es[:half]))
    s = Server(binary, ["--watch", "train.log", "-o", "out", "--serve", "--port", "0",
                        "--no-browser"], d)
    check(s.urls and s.urls[0][1].endswith("/live.html") and "the live report" in s.err,
          "--watch --serve says the live page's URL: %r" % s.err[-500:])
    if not s.urls:
        s.stop()
        return
    port = s.port

    def index():
        st, h, body = get(port, "/index.html")
        return (st, h, body) if st == 200 else None

    got = wait_for(index, 20)
    check(got is not None and got[1].get("cache-control") == "no-store",
          "the live report's index is served, no-store: %r" % (got[1] if got else None))
    st, h, body = get(port, "/live.html")
    check(st == 200 and b"tl-live" in body and h.get("cache-control") == "no-store",
          "live.html is served (%d)" % st)
    first = got[2] if got else b""
    with open(log, "ab") as f:
        for e in es[half:]:
            f.write(e)
            f.flush()
            time.sleep(0.002)
    changed = wait_for(lambda: (lambda r: r if r and r[2] != first else None)(index()), 30)
    check(changed is not None, "the served index changes as the log grows")
    final = wait_for(lambda: (lambda r: r if r and b"-_3_0_0" in r[2] else None)(index()), 30)
    check(final is not None, "the served index comes to hold the log's last compile id")
    st, _, _ = get(port, "/../train.log")
    check(st == 404, "the live report's server gives nothing outside its folder (%d)" % st)
    rc, secs = s.stop()
    check(rc == 0 and secs < 15, "--watch --serve: SIGINT ends it with exit 0 (%s, %.1f s)" % (rc, secs))
    check(not connects("127.0.0.1", port), "the port is closed after the watch")


def case_watch_run(binary, tmp):
    d = os.path.join(tmp, "watchrun")
    os.makedirs(d)
    script = ("import os, time\n"
              "data = open(%r, 'rb').read()\n"
              "p = os.path.join(os.environ['TORCH_TRACE'], 'dedicated_log_torch_trace_x1.log')\n"
              "with open(p, 'wb') as f:\n"
              "    for i in range(0, len(data), 4000):\n"
              "        f.write(data[i:i + 4000]); f.flush(); time.sleep(0.01)\n" % DEMO)
    s = Server(binary, ["--watch", "-o", "out", "--serve", "--port", "0", "--no-browser",
                        "--run", "--", sys.executable, "-c", script], d)
    ok = s.wait_url(2, 60)
    check(ok and "out/index.html: 5 compile ids" in s.err,
          "--watch --run --serve: the final report said and served after the job: %r" % s.err[-800:])
    check(s.p.poll() is None, "it serves on after the job ended")
    if ok:
        st, h, body = get(s.port, "/index.html")
        check(st == 200 and body == open(os.path.join(d, "out", "index.html"), "rb").read(),
              "the final index.html is served (%d)" % st)
    rc, secs = s.stop()
    check(rc == 0 and secs < 5, "then SIGINT: exit 0 (%s, %.1f s)" % (rc, secs))


def main():
    if len(sys.argv) != 2:
        print("usage: serve_check.py path/to/tlparse", file=sys.stderr)
        return 2
    binary = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="tlparse-serve-")
    try:
        for case in (case_serve, case_bind_any, case_ports, case_bundle, case_refused,
                     case_watch, case_watch_run):
            try:
                case(binary, tmp)
            except Exception as e:  # a case that breaks is a failure, and the others run
                check(False, "%s raised %r" % (case.__name__, e))
    finally:
        if not os.environ.get("SERVE_KEEP"):
            shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed" % (passed, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
