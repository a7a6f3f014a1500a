#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tlparse --watch against logs being written (tests/watch.sh runs it).

A writer appends a trace a few lines at a time, at a controlled pace, each write ending in the
middle of a line (the rest comes with the next); tlparse --watch reads it with its stdout a pipe
(plain lines, one per finding). Checked, case by case:
  - every finding of the log is said once, in the order the log gives them, within LATENCY
    seconds of the write that completed it;
  - the report at the end equals a batch run on the same log, apart from the run information;
  - a file truncated, or replaced, starts over with a message; a compressed one is refused;
  - rank logs that appear later in a folder are followed, each line naming its rank;
  - --fail-on stops the watch with exit 1 as soon as a finding of its kinds is said;
  - --watch --run keeps the command's exit status, and writes the report of its trace;
  - the same with inotify and with the poll (TLPARSE_WATCH_POLL).

    python3 tests/watch_check.py path/to/tlparse
"""
import filecmp
import gzip
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEMO = os.path.join(HERE, "fixtures", "demo.log")
LATENCY = float(os.environ.get("TL_WATCH_LATENCY", "1.0"))

failures = []
passed = 0


def check(cond, what):
    global passed
    if cond:
        passed += 1
    else:
        failures.append(what)
        print("FAIL: " + what, flush=True)


class Watch:
    """tlparse --watch ARGS, its stdout read line by line with the time each line came."""

    def __init__(self, binary, args, cwd, env=None):
        e = dict(os.environ)
        e.update(env or {})
        self.p = subprocess.Popen([binary, "--watch", "--no-browser"] + args, cwd=cwd,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e)
        self.lines = []  # (time, text)
        self.err = b""
        self.t_out = threading.Thread(target=self._read_out, daemon=True)
        self.t_err = threading.Thread(target=self._read_err, daemon=True)
        self.t_out.start()
        self.t_err.start()

    def _read_out(self):
        for raw in self.p.stdout:
            self.lines.append((time.monotonic(), raw.decode("utf-8", "replace").rstrip("\n")))

    def _read_err(self):
        self.err = self.p.stderr.read()

    def wait_for(self, pred, timeout=20):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if any(pred(t) for _, t in self.lines):
                return True
            time.sleep(0.02)
        return False

    def stop(self, timeout=60):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGINT)
        return self.end(timeout)

    def end(self, timeout=60):
        try:
            rc = self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            rc = self.p.wait()
        self.t_out.join(10)
        self.t_err.join(10)
        return rc

    def events(self):
        return [t for _, t in self.lines if not t.startswith("tlparse: ") and " compile id" not in t]


def entries(path):
    """The log's lines grouped into entries: a head line and its payload lines."""
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


def write_slowly(path, data, chunk=700, pause=0.02, stamps=None, mode="ab"):
    """data appended in pieces of chunk bytes (cutting lines anywhere), pause seconds apart;
    stamps gets (time, bytes written so far) after each write."""
    with open(path, mode) as f:
        for i in range(0, len(data), chunk):
            f.write(data[i:i + chunk])
            f.flush()
            if stamps is not None:
                stamps.append((time.monotonic(), i + len(data[i:i + chunk])))
            time.sleep(pause)


def strip(folder):
    subprocess.run([sys.executable, os.path.join(HERE, "strip_runinfo.py"), folder], check=True)


def same_tree(a, b):
    """The files of two report folders that differ (names on one side only count)."""
    diff = []
    for root, _dirs, files in os.walk(a):
        for name in files:
            pa = os.path.join(root, name)
            pb = os.path.join(b, os.path.relpath(pa, a))
            if not os.path.exists(pb) or not filecmp.cmp(pa, pb, shallow=False):
                diff.append(os.path.relpath(pa, a))
    for root, _dirs, files in os.walk(b):
        for name in files:
            pb = os.path.join(root, name)
            if not os.path.exists(os.path.join(a, os.path.relpath(pb, b))):
                diff.append(os.path.relpath(pb, b))
    return diff


def check_same_as_batch(out, batch, what):
    """The report folder out equals batch, apart from the run information."""
    strip(out)
    strip(batch)
    diff = same_tree(out, batch)
    check(not diff, "%s differs from the batch one in %s" % (what, diff[:10]))


def case_one_log(binary, tmp, env, tag):
    """A log written slowly from nothing: every finding once, in order, in time; the end report
    is the batch one."""
    d = os.path.join(tmp, "one-" + tag)
    os.makedirs(d)
    log = os.path.join(d, "train.log")
    w = Watch(binary, ["train.log", "-o", "out"], d, env)
    time.sleep(0.3)  # the log does not exist yet: it is waited for
    data = open(DEMO, "rb").read()
    write_slowly(log, data, chunk=701, pause=0.03)
    check(w.wait_for(lambda t: t.startswith("failure"), 10), tag + ": the failure was said")
    time.sleep(1.0)
    rc = w.stop()
    check(rc == 0, "%s: exit 0 after Ctrl-C, not %s (stderr: %s)" % (tag, rc, w.err[-500:]))
    ev = w.events()
    check(len(ev) == len(set(ev)), "%s: every event once: %s" % (tag, ev))
    kinds = [e.split(":")[0] for e in ev]
    # demo.log: a failure, a graph break, three specializations, a recompile
    want = {"failure": 1, "graph break": 1, "recompile": 1}
    for k, n in want.items():
        check(kinds.count(k) == n, "%s: %d %s line(s), got %s" % (tag, n, k, ev))
    spec = sum(1 for k in kinds if k in ("specialized", "guard on sizes", "duck sizing"))
    check(spec == 3, "%s: 3 specialization lines, got %s" % (tag, ev))
    # in the order the log gives them: the same as when the whole log is there at once
    whole = os.path.join(d, "whole")
    os.makedirs(whole)
    shutil.copy(DEMO, os.path.join(whole, "train.log"))
    w2 = Watch(binary, ["train.log", "-o", "out"], whole, env)
    w2.wait_for(lambda t: t.startswith("recompile"), 10)
    time.sleep(0.5)
    w2.stop()
    check(ev == w2.events(), "%s: the events in the order the log gives them:\n%s\n%s" %
          (tag, "\n".join(e[:60] for e in ev), "\n".join(e[:60] for e in w2.events())))
    # the end report is the batch report of the same log
    subprocess.run([binary, "train.log", "-o", "batch", "--no-browser"], cwd=d,
                   capture_output=True, check=True)
    check_same_as_batch(os.path.join(d, "out"), os.path.join(d, "batch"),
                        tag + ": the end report")


def case_latency(binary, tmp, env, tag):
    """The log written a few entries at a time (each write cut in the middle of a line, its rest
    a moment later), then a pause: what those entries found is said within LATENCY s."""
    d = os.path.join(tmp, "lat-" + tag)
    os.makedirs(d)
    log = os.path.join(d, "t.log")
    open(log, "wb").close()
    w = Watch(binary, ["t.log", "-o", "out"], d, env)
    time.sleep(0.3)
    lates = []
    ents = entries(DEMO)
    with open(log, "ab") as f:
        for k in range(0, len(ents), 8):
            group = b"".join(ents[k:k + 8])
            before = len(w.events())
            f.write(group[:len(group) - 40])  # the last line half written: waits for its end
            f.flush()
            time.sleep(0.05)
            f.write(group[len(group) - 40:])
            f.flush()
            t0 = time.monotonic()
            end = t0 + LATENCY + 0.5
            while time.monotonic() < end:
                time.sleep(0.01)
            new = [t for t, _ in w.lines if t >= t0][:1]
            if len(w.events()) > before and new:
                lates.append(max(0.0, w.lines[len(w.lines) - 1][0] - t0))
    rc = w.stop()
    check(rc == 0, "%s: exit 0, not %s" % (tag, rc))
    print("%s: %d writes made findings, said at most %.3f s after the write" %
          (tag, len(lates), max(lates) if lates else -1), flush=True)
    check(len(lates) >= 2, "%s: findings said as their entries came: %d" % (tag, len(lates)))
    check(all(x <= LATENCY for x in lates), "%s: a finding came later than %.1f s: %s" %
          (tag, LATENCY, lates))


def case_restart(binary, tmp, env, tag):
    """Truncated, then replaced: each starts over, with a message; findings said again."""
    d = os.path.join(tmp, "restart-" + tag)
    os.makedirs(d)
    log = os.path.join(d, "t.log")
    data = open(DEMO, "rb").read()
    with open(log, "wb") as f:
        f.write(data)
    w = Watch(binary, ["t.log", "-o", "out"], d, env)
    check(w.wait_for(lambda t: t.startswith("failure"), 10), tag + ": the failure was said")
    with open(log, "r+b") as f:
        f.truncate(0)
    time.sleep(0.8)
    write_slowly(log, data, chunk=4000, pause=0.01)
    check(w.wait_for(lambda t: "truncated" in t, 10), tag + ": the truncation was said")
    check(w.wait_for(lambda t: sum(1 for _, x in w.lines if x.startswith("failure")) == 2, 10),
          tag + ": after the truncation the failure was said again")
    new = os.path.join(d, "t.new")
    with open(new, "wb") as f:
        f.write(data)
    os.rename(new, log)
    check(w.wait_for(lambda t: "replaced" in t, 10), tag + ": the replacement was said")
    check(w.wait_for(lambda t: sum(1 for _, x in w.lines if x.startswith("failure")) == 3, 10),
          tag + ": after the replacement the failure was said again")
    rc = w.stop()
    check(rc == 0, "%s: exit 0, not %s" % (tag, rc))


def case_ranks(binary, tmp, env, tag):
    """A folder whose second rank log appears later; a compressed log in it is refused."""
    d = os.path.join(tmp, "ranks-" + tag)
    trace = os.path.join(d, "trace")
    os.makedirs(trace)
    data = open(DEMO, "rb").read()
    r0 = os.path.join(trace, "dedicated_log_torch_trace_rank_0_abc.log")
    r1 = os.path.join(trace, "dedicated_log_torch_trace_rank_1_def.log")
    w = Watch(binary, ["trace", "-o", "out", "--all-ranks-html"], d, env)
    write_slowly(r0, data, chunk=3000, pause=0.01)
    check(w.wait_for(lambda t: t.startswith("rank 0 failure"), 10),
          tag + ": rank 0's failure was said, with its rank")
    with gzip.open(os.path.join(trace, "dedicated_log_torch_trace_rank_2_x.log"), "wb") as f:
        f.write(data)
    write_slowly(r1, data, chunk=3000, pause=0.01)
    check(w.wait_for(lambda t: t.startswith("rank 1 failure"), 10),
          tag + ": rank 1's failure was said, with its rank")
    check(w.wait_for(lambda t: "gzip" in t, 10), tag + ": the compressed log was refused")
    rc = w.stop()
    check(rc == 0, "%s: exit 0, not %s (stderr %s)" % (tag, rc, w.err[-400:]))
    ev = w.events()
    check(len(ev) == len(set(ev)), "%s: every event once: %s" % (tag, ev))
    os.remove(os.path.join(trace, "dedicated_log_torch_trace_rank_2_x.log"))
    subprocess.run([binary, "trace", "-o", "batch", "--all-ranks-html", "--no-browser"], cwd=d,
                   capture_output=True)
    # the compressed log was there at the end of the watch: compare the two ranks' folders
    for r in ("rank_0", "rank_1"):
        check_same_as_batch(os.path.join(d, "out", r), os.path.join(d, "batch", r),
                            "%s: %s of the end report" % (tag, r))


def case_text(binary, tmp, env, tag):
    """TORCH_LOGS text being written: its findings said as they come; the end report is the
    batch one."""
    d = os.path.join(tmp, "text-" + tag)
    os.makedirs(d)
    src = os.path.join(HERE, "fixtures", "torch_logs", "pt26_item_warning_guard_comments.txt")
    data = open(src, "rb").read()
    w = Watch(binary, ["stderr.txt", "-o", "out"], d, env)
    write_slowly(os.path.join(d, "stderr.txt"), data, chunk=900, pause=0.02)
    check(w.wait_for(lambda t: t.startswith("recompile limit hit"), 10),
          tag + ": the recompile limit was said")
    check(w.wait_for(lambda t: t.startswith("graph break"), 10), tag + ": the graph break was said")
    rc = w.stop()
    check(rc == 0, "%s: exit 0, not %s (%s)" % (tag, rc, w.err[-300:]))
    ev = w.events()
    check(len(ev) == len(set(ev)), "%s: every event once: %s" % (tag, ev))
    subprocess.run([binary, "stderr.txt", "-o", "batch", "--no-browser"], cwd=d,
                   capture_output=True, check=True)
    check_same_as_batch(os.path.join(d, "out"), os.path.join(d, "batch"),
                        tag + ": the end report")


def case_screen(binary, tmp):
    """On a terminal (tmux, 110 x 24): a screen redrawn in place, a header with the counts and
    the newest findings below it; Ctrl-C ends it with the final screen and the report."""
    tmux = shutil.which("tmux")
    check(tmux is not None, "screen: tmux is needed (Debian package tmux; scripts/deps.sh check)")
    if not tmux:
        return
    d = os.path.join(tmp, "screen")
    os.makedirs(d)
    sock = os.path.join(d, "tmux.sock")
    log = os.path.join(d, "t.log")
    # the shell ignores Ctrl-C (tlparse takes it), to say how tlparse ended
    cmd = "trap \"\" INT; %s --watch --no-browser t.log -o out; echo EXIT=$?; sleep 30" % binary
    subprocess.run([tmux, "-S", sock, "-f", "/dev/null", "new-session", "-d", "-x", "110", "-y",
                    "24", "-c", d, "env TERM=xterm-256color NO_COLOR=1 sh -c '%s'" % cmd],
                   check=True)

    def screen():
        return subprocess.run([tmux, "-S", sock, "capture-pane", "-p"], capture_output=True,
                              text=True).stdout

    try:
        write_slowly(log, open(DEMO, "rb").read(), chunk=3000, pause=0.02)
        end = time.monotonic() + 15
        while time.monotonic() < end and "recompile: compiled 2 times" not in screen():
            time.sleep(0.1)
        s1 = screen()
        lines = s1.split("\n")
        check(lines[0].startswith("tlparse --watch t.log"), "screen: its title line: %r" % lines[0])
        check(lines[1].startswith("5 compile ids") and "1 recompile" in lines[1],
              "screen: the header counts: %r" % lines[1])
        for want in ("failure: BackendCompilerFailed", "graph break: Graph break due to",
                     "specialized: Eq(s1, 64)", "recompile: compiled 2 times: forward"):
            check(any(ln.startswith(want) for ln in lines), "screen: %r is shown:\n%s" % (want, s1))
        check(all(len(ln) <= 110 for ln in lines), "screen: lines fit the width")
        check(s1.count("recompile: compiled 2 times") == 1, "screen: each finding once")
        subprocess.run([tmux, "-S", sock, "send-keys", "C-c"], check=True)
        end = time.monotonic() + 20
        while time.monotonic() < end and "EXIT=" not in screen():
            time.sleep(0.1)
        s2 = screen()
        check("EXIT=0" in s2, "screen: Ctrl-C ends it with exit 0:\n%s" % s2)
        check("finished" in s2.split("\n")[0], "screen: the last screen says finished:\n%s" % s2)
        check(os.path.exists(os.path.join(d, "out", "index.html")), "screen: the report was written")
    finally:
        subprocess.run([tmux, "-S", sock, "kill-server"], capture_output=True)


def case_fail_on(binary, tmp, env, tag):
    """--fail-on recompiles: exit 1 once the recompile is said, before the log is all written."""
    d = os.path.join(tmp, "failon-" + tag)
    os.makedirs(d)
    log = os.path.join(d, "t.log")
    open(log, "wb").close()
    w = Watch(binary, ["t.log", "-o", "out", "--fail-on", "recompiles"], d, env)
    data = open(DEMO, "rb").read()
    ents = entries(DEMO)
    stop = threading.Event()

    def writer():
        with open(log, "ab") as f:
            for e in ents * 50:
                if stop.is_set() or w.p.poll() is not None:
                    return
                f.write(e)
                f.flush()
                time.sleep(0.02)

    t = threading.Thread(target=writer)
    t.start()
    rc = w.end(60)
    stop.set()
    t.join()
    check(rc == 1, "%s: --fail-on exits 1, not %s" % (tag, rc))
    ev = w.events()
    check(ev and ev[-1].startswith("recompile"), "%s: the recompile is the last line said: %s" %
          (tag, ev))
    check(b"--fail-on: the trace has 1 recompile" in w.err,
          "%s: --fail-on says why: %s" % (tag, w.err[-300:]))
    check(os.path.getsize(log) < len(data) * 50, tag + ": it stopped before the log ended")
    check(os.path.exists(os.path.join(d, "out", "index.html")), tag + ": a report was written")


def case_run(binary, tmp, env, tag):
    """--watch --run: the command's trace followed; its exit status kept; the report written."""
    d = os.path.join(tmp, "run-" + tag)
    os.makedirs(d)
    script = ("import os, sys, time\n"
              "data = open(%r, 'rb').read()\n"
              "p = os.path.join(os.environ['TORCH_TRACE'], 'dedicated_log_torch_trace_x1.log')\n"
              "with open(p, 'wb') as f:\n"
              "    for i in range(0, len(data), 2000):\n"
              "        f.write(data[i:i + 2000]); f.flush(); time.sleep(0.01)\n"
              "sys.exit(3)\n" % DEMO)
    w = Watch(binary, ["-o", "out", "--run", "--", sys.executable, "-c", script], d, env)
    rc = w.end(60)
    check(rc == 3, "%s: the command's exit status 3, not %s (stderr %s)" % (tag, rc, w.err[-400:]))
    check(any(t.startswith("failure") for t in w.events()), tag + ": its failure was said")
    check(os.path.exists(os.path.join(d, "out", "index.html")), tag + ": its report was written")
    check(not os.path.exists(os.path.join(d, "out", "live.html")),
          tag + ": the end report is the batch one (no live.html)")


def case_run_ranks(binary, tmp, env, tag):
    """--watch --run of a job of two ranks: both followed, the report is the ranks' (as --run
    gives), and each rank's folder equals a batch --all-ranks-html of the trace left."""
    d = os.path.join(tmp, "runranks-" + tag)
    os.makedirs(d)
    script = ("import os, time\n"
              "data = open(%r, 'rb').read()\n"
              "t = os.environ['TORCH_TRACE']\n"
              "fs = [open(os.path.join(t, 'dedicated_log_torch_trace_rank_%%d_x.log' %% r), 'wb')\n"
              "      for r in (0, 1)]\n"
              "for i in range(0, len(data), 3000):\n"
              "    for f in fs:\n"
              "        f.write(data[i:i + 3000]); f.flush()\n"
              "    time.sleep(0.01)\n" % DEMO)
    w = Watch(binary, ["-o", "out", "--run", "--", sys.executable, "-c", script], d, env)
    rc = w.end(60)
    check(rc == 0, "%s: exit 0, not %s (stderr %s)" % (tag, rc, w.err[-400:]))
    ev = w.events()
    for r in (0, 1):
        check(any(t.startswith("rank %d failure" % r) for t in ev),
              "%s: rank %d's failure was said: %s" % (tag, r, ev))
    for r in ("rank_0", "rank_1"):
        check(os.path.isdir(os.path.join(d, "out", r)), "%s: the report has %s" % (tag, r))
    m = re.search(rb"the trace is kept in (\S+)", w.err)
    check(m is not None, tag + ": the trace folder is said")
    if m:
        subprocess.run([binary, m.group(1).decode(), "-o", "batch", "--all-ranks-html",
                        "--no-browser"], cwd=d, capture_output=True)
        for r in ("rank_0", "rank_1"):
            check_same_as_batch(os.path.join(d, "out", r), os.path.join(d, "batch", r),
                                "%s: %s" % (tag, r))


def case_live_files(binary, tmp, env, tag):
    """While it runs, the report folder holds live.html and live.js, and is a whole report."""
    d = os.path.join(tmp, "live-" + tag)
    os.makedirs(d)
    log = os.path.join(d, "t.log")
    data = open(DEMO, "rb").read()
    w = Watch(binary, ["t.log", "-o", "out"], d, env)
    write_slowly(log, data[:len(data) // 2], chunk=5000, pause=0.01)
    end = time.monotonic() + 15
    while time.monotonic() < end and not os.path.exists(os.path.join(d, "out", "live.js")):
        time.sleep(0.05)
    check(os.path.exists(os.path.join(d, "out", "live.html")), tag + ": live.html is there")
    check(os.path.exists(os.path.join(d, "out", "index.html")), tag + ": with index.html")
    js = open(os.path.join(d, "out", "live.js")).read() if os.path.exists(
        os.path.join(d, "out", "live.js")) else ""
    check("tlLive(" in js and '"generation":' in js.replace(" ", ""),
          "%s: live.js says its generation: %s" % (tag, js[:200]))
    rc = w.stop()
    check(rc == 0, "%s: exit 0, not %s: %s" % (tag, rc, w.err[-600:]))


def main():
    binary = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="tl-watch-")
    try:
        for tag, env in (("inotify", {}), ("poll", {"TLPARSE_WATCH_POLL": "1"})):
            case_one_log(binary, tmp, env, tag)
            case_latency(binary, tmp, env, tag)
            case_restart(binary, tmp, env, tag)
            case_ranks(binary, tmp, env, tag)
        case_text(binary, tmp, {}, "inotify")
        case_screen(binary, tmp)
        case_fail_on(binary, tmp, {}, "inotify")
        case_run(binary, tmp, {}, "inotify")
        case_run_ranks(binary, tmp, {}, "inotify")
        case_live_files(binary, tmp, {}, "inotify")
    finally:
        if not os.environ.get("TL_KEEP"):
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print("kept " + tmp)
    print("watch: %d passed, %d failed" % (passed, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
