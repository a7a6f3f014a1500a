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
  - a recompile is said as soon as its recompile_reasons are written, while it compiles;
  - routine guards on sizes are counted, not said;
  - a path that is not there, a compressed log or a file that is no log fail at once;
  - a log deleted while followed (one log, one rank's, the whole folder) is in the end report;
  - 200 rank logs appearing at once, and 16 one by one: followed, the end report the batch one;
  - on a terminal (tmux): nothing the terminal showed before is erased, every line the job
    printed stays in the scrollback in order, the events wrapped to the width with the place
    and the fix, a panel of counts below them;
  - the end report holds live.html and a live.js that says how the watch ended;
  - a live report that cannot be rebuilt is said once;
  - the live report is read once, the end too (no batch run from byte 0): of one log, of the
    ranks, of the newest log of a folder (of rank logs too, --fail-on counting every rank), of
    a log whose job paused in the middle of entries, TORCH_LOGS text paused between messages;
    and where one engine starts again from its log's start while the others go on: an older
    log of a folder written again (the report follows it), a rank log truncated then replaced,
    a rank's second log that a batch run takes instead, TORCH_LOGS text paused inside a
    message, a payload that goes on after its md5 matched, the first rank log of a --run job
    joining the ranks' report when a second comes (alone, its report is its log's);
  - the same with inotify and with the poll (TLPARSE_WATCH_POLL).

    python3 tests/watch_check.py path/to/tlparse
"""
import filecmp
import gzip
import hashlib
import json
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


LIVE_FILES = ("live.html", "live.js")


def check_same_as_batch(out, batch, what):
    """The report folder out equals batch, apart from the run information and the live page
    (live.html, live.js) the watch leaves beside it."""
    strip(out)
    strip(batch)
    diff = [f for f in same_tree(out, batch) if f not in LIVE_FILES]
    check(not diff, "%s differs from the batch one in %s" % (what, diff[:10]))


def live_state(out):
    """The status live.js holds (a dict), or None."""
    p = os.path.join(out, "live.js")
    if not os.path.exists(p):
        return None
    m = re.search(r"tlLive\((\{.*\})\);", open(p).read())
    return json.loads(m.group(1)) if m else None


def wait_generation(out, n, timeout=15):
    """live.js of the report folder out once it says generation n or later (or the last one
    seen when the timeout passed; None when there was none)."""
    end = time.monotonic() + timeout
    st = None
    while time.monotonic() < end:
        st = live_state(out)
        if st and st.get("generation", 0) >= n:
            break
        time.sleep(0.1)
    return st


def case_one_log(binary, tmp, env, tag):
    """A log written slowly from nothing: every finding once, in order, in time; the end report
    is the batch one."""
    d = os.path.join(tmp, "one-" + tag)
    os.makedirs(d)
    log = os.path.join(d, "train.log")
    open(log, "wb").close()  # the job made it, and has written nothing yet
    w = Watch(binary, ["train.log", "-o", "out"], d, env)
    time.sleep(0.3)
    data = open(DEMO, "rb").read()
    write_slowly(log, data, chunk=701, pause=0.03)
    check(w.wait_for(lambda t: t.startswith("failure"), 10), tag + ": the failure was said")
    time.sleep(1.0)
    rc = w.stop()
    check(rc == 0, "%s: exit 0 after Ctrl-C, not %s (stderr: %s)" % (tag, rc, w.err[-500:]))
    ev = w.events()
    check(len(ev) == len(set(ev)), "%s: every event once: %s" % (tag, ev))
    kinds = [e.split(":")[0] for e in ev]
    # demo.log: a failure, a graph break, a specialization, a recompile; its two guards on
    # sizes are routine (2 <= s0, Ne(s1, 1)...): counted on the last line, not said
    want = {"failure": 1, "graph break": 1, "recompile": 1, "specialized": 1}
    for k, n in want.items():
        check(kinds.count(k) == n, "%s: %d %s line(s), got %s" % (tag, n, k, ev))
    check(not any(k in ("guard on sizes", "duck sizing") for k in kinds),
          "%s: no routine guard said: %s" % (tag, ev))
    last = [t for _, t in w.lines if " compile id" in t]
    check(last and "2 routine guards" in last[-1], "%s: the last line counts the routine "
          "guards: %s" % (tag, last[-1:]))
    rec = [e for e in ev if e.startswith("recompile")]
    check(rec and rec[0].startswith("recompile: forward (/home/user/projects/demo/demo_model.py:15)"
                                    " [0/1] compiled 2 times · tensor 'L['x']' size mismatch at "
                                    "index 0 (expected 32, actual 48)"),
          "%s: the recompile leads with where and what: %s" % (tag, rec))
    gb = [e for e in ev if e.startswith("graph break")]
    check(gb and gb[0].startswith("graph break: attention_block (/home/user/projects/demo/"
                                  "demo_model.py:25) [1/0] · Graph break due to unsupported "
                                  "builtin demo_ext._C.fast_scale") and " · fix: " in gb[0],
          "%s: the graph break leads with where, then the reason and the fix: %s" % (tag, gb))
    # in the order the log gives them: the same as when the whole log is there at once
    whole = os.path.join(d, "whole")
    os.makedirs(whole)
    shutil.copy(DEMO, os.path.join(whole, "train.log"))
    w2 = Watch(binary, ["train.log", "-o", "out"], whole, env)
    w2.wait_for(lambda t: t.startswith("specialized"), 10)
    time.sleep(0.5)
    w2.stop()
    check(ev == w2.events(), "%s: the events in the order the log gives them:\n%s\n%s" %
          (tag, "\n".join(e[:60] for e in ev), "\n".join(e[:60] for e in w2.events())))
    # the end report is the batch report of the same log
    subprocess.run([binary, "train.log", "-o", "batch", "--no-browser"], cwd=d,
                   capture_output=True, check=True)
    check_same_as_batch(os.path.join(d, "out"), os.path.join(d, "batch"),
                        tag + ": the end report")
    st = live_state(os.path.join(d, "out"))
    check(st is not None and st["state"] == "stopped" and st["recompiles"] == 1 and
          st["graph_breaks"] == 1 and st["failures"] == 1 and st["input"] == "train.log",
          "%s: the end report's live.js says the watch was stopped, with the counts: %s" %
          (tag, st))


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
            t_first = time.monotonic()
            f.write(group[:len(group) - 40])  # the last line half written: waits for its end
            f.flush()
            time.sleep(0.05)
            f.write(group[len(group) - 40:])
            f.flush()
            t0 = time.monotonic()
            end = t0 + LATENCY + 0.5
            while time.monotonic() < end:
                time.sleep(0.01)
            # the entries before the half-written line may be said before it is completed
            new = [t for t, _ in w.lines if t >= t_first][:1]
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
    open(os.path.join(d, "stderr.txt"), "wb").close()
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


class Tmux:
    """A terminal of width x height that tmux draws, running cmd in cwd."""

    def __init__(self, tmp, name, cwd, cmd, width=110, height=24):
        self.tmux = shutil.which("tmux")
        check(self.tmux is not None,
              "screen: tmux is needed (Debian package tmux; scripts/deps.sh check)")
        self.sock = os.path.join(tmp, name + ".sock")
        if self.tmux:
            subprocess.run([self.tmux, "-S", self.sock, "-f", "/dev/null", "new-session", "-d",
                            "-x", str(width), "-y", str(height), "-c", cwd,
                            "env TERM=xterm-256color NO_COLOR=1 sh -c '%s'" % cmd], check=True)
            subprocess.run([self.tmux, "-S", self.sock, "set-option", "-g", "history-limit",
                            "20000"], capture_output=True)

    def screen(self, history=False):
        """What the terminal shows (with history: its whole scrollback too)."""
        if not self.tmux:
            return ""
        args = [self.tmux, "-S", self.sock, "capture-pane", "-p", "-J"]
        if history:
            args += ["-S", "-"]
        return subprocess.run(args, capture_output=True, text=True).stdout

    def wait(self, pred, timeout=20, history=False):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            s = self.screen(history)
            if pred(s):
                return s
            time.sleep(0.1)
        return self.screen(history)

    def keys(self, *k):
        if self.tmux:
            subprocess.run([self.tmux, "-S", self.sock, "send-keys"] + list(k), check=True)

    def close(self):
        if self.tmux:
            subprocess.run([self.tmux, "-S", self.sock, "kill-server"], capture_output=True)


def case_screen(binary, tmp):
    """On a terminal (tmux, 110 x 24): what the terminal showed before stays; each event is
    wrapped to the width, with where it happened and its fix, none cut; a panel with the counts
    stays below them; Ctrl-C ends it with the last panel and the report."""
    d = os.path.join(tmp, "screen")
    os.makedirs(d)
    log = os.path.join(d, "t.log")
    open(log, "wb").close()
    # the shell ignores Ctrl-C (tlparse takes it), to say how tlparse ended
    t = Tmux(tmp, "screen", d, "trap \"\" INT; echo BEFORE THE WATCH; %s --watch --no-browser t.log "
             "-o out; echo EXIT=$?; sleep 60" % binary)
    try:
        write_slowly(log, open(DEMO, "rb").read(), chunk=3000, pause=0.02)
        s1 = t.wait(lambda s: "specialized:" in s and "routine guard" in s)
        lines = s1.rstrip("\n").split("\n")
        first = t.screen(history=True).split("\n")[0]
        check(first == "BEFORE THE WATCH", "screen: what the terminal showed before stays: %r"
              % first)
        check(lines[-2].startswith("tlparse --watch t.log \u00b7 0:"),
              "screen: the panel's first line names what is watched:\n" + s1)
        check(lines[-1].startswith("5 compile ids \u00b7 1 graph break \u00b7 1 recompile") and
              "2 routine guards" in lines[-1], "screen: the panel counts:\n" + s1)
        full = t.screen(history=True)
        for want in ("failure: BackendCompilerFailed attention_block (/home/user/projects/demo/"
                     "demo_model.py:26) [2/0]",
                     "graph break: attention_block (/home/user/projects/demo/demo_model.py:25) "
                     "[1/0]",
                     "recompile: forward (/home/user/projects/demo/demo_model.py:15) [0/1] "
                     "compiled 2 times",
                     "specialized: Eq(s1, 64) (L['x'].size()[1]) = 64 forward"):
            check(any(ln.startswith(want) for ln in full.split("\n")),
                  "screen: %r is shown:\n%s" % (want, full))
        # wrapped under a hanging indent, the fix in full: no line longer than the terminal
        check(all(len(ln) <= 110 for ln in full.split("\n")), "screen: lines fit the width")
        check("    fix: Mark the dimension dynamic before the first call" in full and
              "pad or bucket the inputs to" in full, "screen: the recompile's fix is all there:\n"
                                                      + full)
        check(full.count("recompile: forward") == 1, "screen: each finding once")
        check("guard on sizes" not in full, "screen: routine guards are not said")
        t.keys("C-c")
        s2 = t.wait(lambda s: "EXIT=" in s)
        check("EXIT=0" in s2, "screen: Ctrl-C ends it with exit 0:\n%s" % s2)
        panel = [ln for ln in t.screen(history=True).split("\n") if ln.startswith("tlparse --watch")]
        check(len(panel) == 1 and panel[0].endswith("stopped"),
              "screen: one panel is left, the last, saying it stopped: %s" % panel)
        check(os.path.exists(os.path.join(d, "out", "index.html")), "screen: the report was written")
    finally:
        t.close()


def case_screen_run(binary, tmp):
    """--watch --run on a terminal: every line the job printed stays in the scrollback, in order,
    its traceback and status too, with tlparse's events among them and the panel at the end."""
    d = os.path.join(tmp, "screen-run")
    os.makedirs(d)
    script = os.path.join(d, "job.py")
    with open(script, "w") as f:
        f.write("import os, sys, time\n"
                "data = open(%r, 'rb').read()\n"
                "p = os.path.join(os.environ['TORCH_TRACE'], 'dedicated_log_torch_trace_x.log')\n"
                "print('the job starts, its stdout a terminal:', os.isatty(1), flush=True)\n"
                "with open(p, 'wb') as f:\n"
                "    for i in range(0, len(data), 2500):\n"
                "        f.write(data[i:i + 2500]); f.flush()\n"
                "        print('step %%d' %% (i // 2500), flush=True)\n"
                "        time.sleep(0.02)\n"
                "print('Traceback (most recent call last):', file=sys.stderr)\n"
                "print('RuntimeError: CUDA out of memory', file=sys.stderr)\n"
                "sys.exit(1)\n" % DEMO)
    steps = (len(open(DEMO, "rb").read()) + 2499) // 2500
    t = Tmux(tmp, "screenrun", d, "echo BEFORE THE JOB; %s --watch --no-browser -o out --run -- %s "
             "job.py; echo EXIT=$?; sleep 60" % (binary, sys.executable), width=100, height=20)
    try:
        full = t.wait(lambda s: "EXIT=" in s, timeout=60, history=True)
        lines = full.split("\n")
        check(lines[0] == "BEFORE THE JOB", "run screen: what was there before stays:\n" + full)
        check("the job starts, its stdout a terminal: True" in lines,
              "run screen: the job writes to a terminal:\n" + full)
        got = [int(ln[5:]) for ln in lines if re.fullmatch(r"step \d+", ln)]
        check(got == list(range(steps)), "run screen: every step the job printed, in order (%d): %s"
              % (steps, got))
        at = {k: next((i for i, ln in enumerate(lines) if ln.startswith(k)), -1) for k in
              ("Traceback (most recent call last):", "RuntimeError: CUDA out of memory",
               "tlparse: %s job.py exited with status 1" % sys.executable,
               "tlparse --watch %s job.py" % sys.executable, "EXIT=1")}
        check(all(v >= 0 for v in at.values()) and list(at.values()) == sorted(at.values()),
              "run screen: the traceback, the status, the last panel and the exit, in order: %s\n%s"
              % (at, full))
        panel = [ln for ln in lines if ln.startswith("tlparse --watch")]
        check(len(panel) == 1 and panel[0].endswith("finished"),
              "run screen: one panel left, the last, saying finished: %s" % panel)
        check(any(ln.startswith("failure: BackendCompilerFailed") for ln in lines),
              "run screen: the job's failure was said among its lines")
    finally:
        t.close()


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
    st = live_state(os.path.join(d, "out"))
    check(st is not None and st["state"] == "finished" and st["failures"] == 1 and
          st["input"].startswith(sys.executable + " -c "),
          "%s: the end report's live.js says the job finished, named by its command: %s" %
          (tag, st))
    check("exited with status 3; reporting on what it traced" in
          "\n".join(t for _, t in w.lines), tag + ": the command's status is said among the lines")


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


def run_job(ranks_at):
    """A job for --run that writes rank logs of demo.log copies into TORCH_TRACE, 64 KB a write:
    ranks_at is [(rank, copies written before it starts)]; it reads demo.log once (a watch's
    read bytes count the job's)."""
    return ("import os, time\n"
            "data = open(%r, 'rb').read() * 40\n"
            "t = os.environ['TORCH_TRACE']\n"
            "fs = {}\n"
            "for i in range(0, len(data), 65536):\n"
            "    for r, at in %r:\n"
            "        if r not in fs and i >= at * len(data) // 40:\n"
            "            fs[r] = open(os.path.join(t, 'dedicated_log_torch_trace_rank_%%d_x.log' %% r),\n"
            "                         'wb')\n"
            "            fs[r].write(data[:i])\n"
            "        if r in fs:\n"
            "            fs[r].write(data[i:i + 65536]); fs[r].flush()\n"
            "    time.sleep(0.03)\n" % (DEMO, ranks_at))


def read_about_once(tag, what, rchar, size, factor, margin=1 << 20):
    """Said, and checked: the bytes a watch read in all (rchar) for size bytes of logs are
    fewer than factor times size, plus margin."""
    print("%s: %s: %d bytes read for %d bytes of logs (%.2fx)" %
          (tag, what, rchar, size, rchar / size), flush=True)
    check(0 < rchar < size * factor + margin,
          "%s: %s: read about once, the end too: %d bytes for %d" % (tag, what, rchar, size))


def end_report_is_batch(binary, d, args, what):
    """The watch's report d/out equals a batch run's of args (in d, into d/batch); the batch
    run's completed process."""
    b = subprocess.run([binary] + args + ["-o", "batch", "--no-browser"], cwd=d,
                       capture_output=True)
    check(b.returncode == 0, "%s: the batch run fails: %s" % (what, b.stderr[-400:]))
    check_same_as_batch(os.path.join(d, "out"), os.path.join(d, "batch"), what)
    return b


def run_trace(w, tag):
    """The end of a watch --run: its exit status checked, the bytes it read in all (its job's
    too), and the trace folder it kept (None when it said none)."""
    rchar = rchar_at_end_of_job(w)
    rc = w.end(60)
    check(rc == 0, "%s: exit 0, not %s (stderr %s)" % (tag, rc, w.err[-400:]))
    m = re.search(rb"the trace is kept in (\S+)", w.err)
    check(m is not None, tag + ": the trace folder is said")
    if not m:
        return rchar, None, 0
    trace = m.group(1).decode()
    return rchar, trace, sum(os.path.getsize(os.path.join(trace, f)) for f in os.listdir(trace))


def case_run_one_rank(binary, tmp, env, tag):
    """--watch --run of a job that writes one rank log (torchrun with one process): its report
    is the one of that log, as a batch run of the trace gives, fed as it comes (the log read
    once, the end too)."""
    d = os.path.join(tmp, "run-one-rank-" + tag)
    os.makedirs(d)
    w = Watch(binary, ["-o", "out", "--run", "--", sys.executable, "-c", run_job([(0, 0)])], d,
              env)
    st = wait_generation(os.path.join(d, "out"), 2, timeout=30)
    check(st is not None and st.get("generation", 0) >= 2,
          "%s: the report of the rank log was published: %s" % (tag, st))
    check(not os.path.exists(os.path.join(d, "out", "rank_0")),
          tag + ": the live report is the one of the rank's log, not the ranks'")
    rchar, trace, size = run_trace(w, tag)
    if not trace:
        return
    # beyond the log read once: the job's own reads (python, demo.log), the pages compared
    read_about_once(tag, "one rank under --run", rchar, size, 1.3, 6 << 20)
    b = end_report_is_batch(binary, d, [trace], tag + ": the end report of one rank under --run")
    check(b"the only file in" in b.stderr and b"the only file in" in w.err,
          "%s: the watch says what the batch run says of the log: %s" % (tag, w.err[-400:]))


def case_run_second_rank(binary, tmp, env, tag):
    """--watch --run of a job whose second rank log comes late: the report is of the first log
    until then, then the ranks' (the first log fed to it again from its start, while small),
    and the end report is what a batch run of the trace gives (--all-ranks-html)."""
    d = os.path.join(tmp, "run-second-rank-" + tag)
    os.makedirs(d)
    w = Watch(binary, ["-o", "out", "--run", "--", sys.executable, "-c",
                       run_job([(0, 0), (1, 12)])], d, env)
    st = wait_generation(os.path.join(d, "out"), 1, timeout=30)
    check(st is not None and not os.path.exists(os.path.join(d, "out", "rank_0")),
          "%s: the first log's report was published: %s" % (tag, st))
    end = time.monotonic() + 30
    while time.monotonic() < end and not os.path.exists(os.path.join(d, "out", "rank_1")):
        time.sleep(0.1)
    check(os.path.exists(os.path.join(d, "out", "rank_1", "index.html")) and
          os.path.exists(os.path.join(d, "out", "rank_0", "index.html")),
          tag + ": the ranks' report follows once the second rank log came")
    rchar, trace, size = run_trace(w, tag)
    if not trace:
        return
    # the first log's start read again when the second came
    read_about_once(tag, "a second rank under --run", rchar, size, 1.4, 6 << 20)
    end_report_is_batch(binary, d, [trace, "--all-ranks-html"],
                        tag + ": the end report of two ranks under --run")


def rchar_at_end_of_job(w):
    """The bytes a watch --run read in all, its job's too, once the job ended and the watch
    made its end report: read while the watch is a zombie."""
    try:
        os.waitid(os.P_PID, w.p.pid, os.WEXITED | os.WNOWAIT)
    except ChildProcessError:
        return 0
    return proc_rchar(w.p.pid)


def case_live_files(binary, tmp, env, tag):
    """While it runs, the report folder holds live.html and live.js, and is a whole report."""
    d = os.path.join(tmp, "live-" + tag)
    os.makedirs(d)
    log = os.path.join(d, "t.log")
    data = open(DEMO, "rb").read()
    open(log, "wb").close()
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


def case_reads_once(binary, tmp, env, tag):
    """The live report is fed as the log comes: while its generations are published, the watch
    reads the log once (a rebuild from byte 0 would read it again each time), and the end report
    is the batch one."""
    d = os.path.join(tmp, "once-" + tag)
    os.makedirs(d)
    log = os.path.join(d, "t.log")
    data = open(DEMO, "rb").read()
    open(log, "wb").close()
    w = Watch(binary, ["t.log", "-o", "out"], d, env)
    copies = 24
    for i in range(copies):
        with open(log, "ab") as f:
            f.write(data)
        time.sleep(0.25)
    size = len(data) * copies
    st = wait_generation(os.path.join(d, "out"), 3)
    gen = st.get("generation", 0) if st else 0
    check(gen >= 3, "%s: generations were published: %s" % (tag, st))
    rchar = proc_rchar(w.p.pid)
    check(0 < rchar < size * 1.2 + (1 << 20),
          "%s: %d generations read %d bytes of a %d-byte log (once, not from byte 0 each "
          "time)" % (tag, gen, rchar, size))
    # at most one refresh (2 s) behind: a generation after the last write shows all of it
    time.sleep(2 + 2.5)
    live = json.load(open(os.path.join(d, "out", "summary.json")))
    rc = w.stop()
    check(rc == 0, "%s: exit 0, not %s: %s" % (tag, rc, w.err[-600:]))
    subprocess.run([binary, "t.log", "-o", "batch", "--no-browser"], cwd=d,
                   capture_output=True, check=True)
    batch = json.load(open(os.path.join(d, "batch", "summary.json")))
    keys = ("compile_ids", "graph_breaks", "recompiles", "failures", "graphs")
    check(all(live.get(k) == batch.get(k) for k in keys),
          "%s: the live report shows the whole log one refresh after the last write: %s" %
          (tag, [(k, str(live.get(k))[:80], str(batch.get(k))[:80]) for k in keys
                 if live.get(k) != batch.get(k)]))
    check_same_as_batch(os.path.join(d, "out"), os.path.join(d, "batch"),
                        tag + ": the end report of a log read once")


def proc_rchar(pid):
    """The bytes a process read so far (/proc/PID/io), 0 when unknown."""
    try:
        for line in open("/proc/%d/io" % pid):
            if line.startswith("rchar:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def case_ranks_read_once(binary, tmp, env, tag):
    """The ranks' report is fed as their logs come (--all-ranks-html): generations are
    published while the logs are read once (a payload written again is compared with the one
    there, which reads it back: hence the margin), and the end report is the batch one."""
    d = os.path.join(tmp, "ranks-once-" + tag)
    os.makedirs(os.path.join(d, "trace"))
    demo, edge = open(DEMO, "rb").read(), open(os.path.join(HERE, "fixtures", "edge.log"), "rb").read()
    w = Watch(binary, ["trace", "--all-ranks-html", "-o", "out"], d, env)
    size = 0
    for _ in range(10):
        for r, data in ((0, demo), (1, edge), (2, demo)):
            with open(os.path.join(d, "trace", "dedicated_log_torch_trace_rank_%d_x.log" % r),
                      "ab") as f:
                f.write(data)
            size += len(data)
        time.sleep(0.4)
    st = wait_generation(os.path.join(d, "out"), 3)
    gen = st.get("generation", 0) if st else 0
    check(gen >= 3, "%s: generations of the ranks' report were published: %s" % (tag, st))
    check(os.path.exists(os.path.join(d, "out", "rank_2", "index.html")),
          tag + ": the live report has each rank's folder")
    rchar = proc_rchar(w.p.pid)
    check(0 < rchar < size * 1.7 + (1 << 20),
          "%s: %d generations read %d bytes of %d bytes of rank logs (once, not from byte 0 "
          "each time)" % (tag, gen, rchar, size))
    rc = w.stop()
    check(rc == 0, "%s: exit 0, not %s: %s" % (tag, rc, w.err[-600:]))
    subprocess.run([binary, "trace", "-o", "batch", "--all-ranks-html", "--no-browser"], cwd=d,
                   capture_output=True, check=True)
    check_same_as_batch(os.path.join(d, "out"), os.path.join(d, "batch"),
                        tag + ": the end report of rank logs read once")


def old_and_new(binary, tmp, name, env):
    """A TORCH_TRACE folder used again, tmp/name/trace: an old log an hour old (edge.log) and
    an empty new one, and a watch of the folder into out/: (folder, old, new, watch)."""
    d = os.path.join(tmp, name)
    os.makedirs(os.path.join(d, "trace"))
    old = os.path.join(d, "trace", "dedicated_log_torch_trace_old.log")
    shutil.copy(os.path.join(HERE, "fixtures", "edge.log"), old)
    os.utime(old, (time.time() - 3600, time.time() - 3600))
    new = os.path.join(d, "trace", "dedicated_log_torch_trace_new.log")
    open(new, "wb").close()
    w = Watch(binary, ["trace", "-o", "out"], d, env)
    return d, old, new, w


def case_newest(binary, tmp, env, tag):
    """A TORCH_TRACE folder used again: an old log is there, and the job writes a new one. The
    live report is of the newest log as the batch run of the folder is (no rebuild from byte
    0), the end report is that batch report, and the watch says which log it took."""
    d, old, new, w = old_and_new(binary, tmp, "newest-" + tag, env)
    data = open(DEMO, "rb").read()
    for _ in range(8):
        with open(new, "ab") as f:
            f.write(data)
        time.sleep(0.4)
    st = wait_generation(os.path.join(d, "out"), 2)
    check(st is not None and st.get("generation", 0) >= 2,
          "%s: the newest log's report was published: %s" % (tag, st))
    rchar = proc_rchar(w.p.pid)
    size = len(data) * 8 + os.path.getsize(old)
    check(0 < rchar < size * 1.5 + (1 << 20),
          "%s: the logs were read once: %d bytes for %d" % (tag, rchar, size))
    rc = w.stop()
    check(rc == 0, "%s: exit 0, not %s: %s" % (tag, rc, w.err[-600:]))
    check(b"the newest log in trace (1 other file skipped)" in w.err,
          "%s: the log taken is said: %s" % (tag, w.err[-600:]))
    b = end_report_is_batch(binary, d, ["trace"], tag + ": the end report of the newest log")
    check(b"dedicated_log_torch_trace_new.log, the newest log" in b.stderr,
          tag + ": the batch run takes the new log")


def case_newest_switch(binary, tmp, env, tag):
    """A folder whose older log is written again while the newest is reported on: the report
    follows the log a batch run of the folder takes, its engine fed again from its start (that
    log read twice, while it is small), not a batch run at the end of the whole of it; the end
    report is the batch one."""
    d, old, new, w = old_and_new(binary, tmp, "newest-switch-" + tag, env)
    data = open(DEMO, "rb").read()
    for _ in range(4):
        with open(new, "ab") as f:
            f.write(data)
        time.sleep(0.3)
    st = wait_generation(os.path.join(d, "out"), 1)
    check(st is not None and st.get("generation", 0) >= 1,
          "%s: the new log's report was published: %s" % (tag, st))
    for i in range(20):  # the old log is the newest from its first write
        with open(old, "ab") as f:
            f.write(data)
        time.sleep(3 if i == 0 else 0.25)  # a refresh: the report is of the old log, still small
    time.sleep(3)  # a refresh: the report is of the old log
    live = json.load(open(os.path.join(d, "out", "summary.json")))
    rchar = rchar_at_end(w)
    rc = w.end()
    # beyond the logs read once: the switched log's start read again, the heads of the folder's
    # logs read to find the newest (as a batch run does), the pages compared with those in place
    read_about_once(tag, "newest switched", rchar,
                    os.path.getsize(old) + os.path.getsize(new), 1.3, 4 << 20)
    check(rc == 0, "%s: exit 0, not %s: %s" % (tag, rc, w.err[-600:]))
    b = end_report_is_batch(binary, d, ["trace"], tag + ": the end report of the log switched to")
    check(b"dedicated_log_torch_trace_old.log, the newest log" in b.stderr,
          tag + ": the batch run takes the old log")
    check(b"dedicated_log_torch_trace_old.log, the newest log" in w.err,
          "%s: the watch says it takes the old log: %s" % (tag, w.err[-600:]))
    batch = json.load(open(os.path.join(d, "batch", "summary.json")))
    check(live.get("compile_ids") == batch.get("compile_ids"),
          "%s: the live report shows the old log: %s, not %s" %
          (tag, str(live.get("compile_ids"))[:80], str(batch.get("compile_ids"))[:80]))


def case_rank_restart(binary, tmp, env, tag):
    """A rank log truncated, then replaced, while the ranks' report is fed (--all-ranks-html):
    that rank's engine starts again from the log's start and its folder is written again; the
    other ranks go on, so the logs are read once (no batch run from byte 0), and the end report
    is the batch one."""
    d = os.path.join(tmp, "rank-restart-" + tag)
    trace = os.path.join(d, "trace")
    os.makedirs(trace)
    demo, edge = open(DEMO, "rb").read(), open(os.path.join(HERE, "fixtures", "edge.log"), "rb").read()
    r0 = os.path.join(trace, "dedicated_log_torch_trace_rank_0_x.log")
    r1 = os.path.join(trace, "dedicated_log_torch_trace_rank_1_x.log")
    w = Watch(binary, ["trace", "--all-ranks-html", "-o", "out"], d, env)
    size = 0
    for _ in range(3):
        for r in (r0, r1):
            with open(r, "ab") as f:
                f.write(demo)
            size += len(demo)
        time.sleep(0.4)
    st = wait_generation(os.path.join(d, "out"), 1)
    check(st is not None and st.get("generation", 0) >= 1,
          "%s: the ranks' report was published: %s" % (tag, st))
    with open(r1, "r+b") as f:
        f.truncate(0)
    check(w.wait_for(lambda t: "truncated" in t, 10), tag + ": the truncation was said")
    for _ in range(4):  # rank 1 is another log now, rank 0 goes on
        for r, data in ((r0, demo), (r1, edge)):
            with open(r, "ab") as f:
                f.write(data)
            size += len(data)
        time.sleep(0.4)
    time.sleep(2.5)
    new = os.path.join(trace, "rank1.new")
    with open(new, "wb") as f:
        f.write(edge * 2)
    os.rename(new, r1)
    size += len(edge) * 2
    check(w.wait_for(lambda t: "replaced" in t, 10), tag + ": the replacement was said")
    for _ in range(4):
        with open(r0, "ab") as f:
            f.write(demo)
        size += len(demo)
        time.sleep(0.4)
    st = wait_generation(os.path.join(d, "out"), st.get("generation", 0) + 2 if st else 3)
    time.sleep(0.5)
    rchar = rchar_at_end(w)
    rc = w.end()
    read_about_once(tag, "rank restarted", rchar, size, 1.3, 4 << 20)
    check(rc == 0, "%s: exit 0, not %s: %s" % (tag, rc, w.err[-600:]))
    end_report_is_batch(binary, d, ["trace", "--all-ranks-html"],
                        tag + ": the end report of a rank started over")


def case_rank_second_log(binary, tmp, env, tag):
    """A second log of a rank appears while the ranks' report is fed (--all-ranks-html), named
    to sort first: a batch run takes it for the rank, so the rank is fed from it, the other
    log read again for its diagnosis only (small here); the other ranks go on, the logs are
    read about once (no batch run from byte 0), and the end report is the batch one."""
    d = os.path.join(tmp, "rank-second-" + tag)
    trace = os.path.join(d, "trace")
    os.makedirs(trace)
    demo, edge = open(DEMO, "rb").read(), open(os.path.join(HERE, "fixtures", "edge.log"), "rb").read()
    r0b = os.path.join(trace, "dedicated_log_torch_trace_rank_0_b.log")
    r0a = os.path.join(trace, "dedicated_log_torch_trace_rank_0_a.log")
    r1 = os.path.join(trace, "dedicated_log_torch_trace_rank_1_x.log")
    w = Watch(binary, ["trace", "--all-ranks-html", "-o", "out"], d, env)
    with open(r0b, "ab") as f:
        f.write(edge)
    for _ in range(3):
        with open(r1, "ab") as f:
            f.write(demo)
        time.sleep(0.4)
    st = wait_generation(os.path.join(d, "out"), 1)
    check(st is not None and st.get("generation", 0) >= 1,
          "%s: the ranks' report was published: %s" % (tag, st))
    for _ in range(8):
        for r in (r0a, r1):
            with open(r, "ab") as f:
                f.write(demo)
        time.sleep(0.4)
    st = wait_generation(os.path.join(d, "out"), st.get("generation", 0) + 2 if st else 3)
    time.sleep(0.5)
    rchar = rchar_at_end(w)
    rc = w.end()
    size = sum(os.path.getsize(p) for p in (r0a, r0b, r1))
    read_about_once(tag, "a rank's second log", rchar, size, 1.3, 4 << 20)
    check(rc == 0, "%s: exit 0, not %s: %s" % (tag, rc, w.err[-600:]))
    b = end_report_is_batch(binary, d, ["trace", "--all-ranks-html"],
                            tag + ": the end report of a rank with a second log")
    said = b"tlparse: warning: trace/dedicated_log_torch_trace_rank_0_b.log is rank 0 too; only " \
        b"trace/dedicated_log_torch_trace_rank_0_a.log is used"
    check(said in b.stderr, tag + ": the batch run takes rank_0_a")
    check(said in w.err, "%s: the watch says so too: %s" % (tag, w.err[-600:]))


def rchar_at_end(w):
    """Ctrl-C to the watch, then the bytes it read in all (its generations' too: a child's are
    added when it is reaped), read while it is a zombie, before it is waited for."""
    if w.p.poll() is None:
        w.p.send_signal(signal.SIGINT)
    try:
        os.waitid(os.P_PID, w.p.pid, os.WEXITED | os.WNOWAIT)
    except ChildProcessError:
        return 0
    return proc_rchar(w.p.pid)


def case_newest_rank(binary, tmp, env, tag):
    """A folder of rank logs without --all-ranks-html: the report is of the newest, fed as it
    comes; at the end neither it nor the other ranks are read again (--fail-on counts every
    rank from their engines), and it equals the batch run of the folder, which says the same."""
    d = os.path.join(tmp, "newest-rank-" + tag)
    trace = os.path.join(d, "trace")
    os.makedirs(trace)
    old = os.path.join(trace, "dedicated_log_torch_trace_rank_0_x.log")
    shutil.copy(os.path.join(HERE, "fixtures", "edge.log"), old)
    os.utime(old, (time.time() - 3600, time.time() - 3600))
    new = os.path.join(trace, "dedicated_log_torch_trace_rank_1_x.log")
    open(new, "wb").close()
    w = Watch(binary, ["trace", "-o", "out", "--fail-on", "export"], d, env)
    data = open(DEMO, "rb").read()
    for _ in range(24):
        with open(new, "ab") as f:
            f.write(data)
        time.sleep(0.1)
    # (a generation compares the pages it writes with those there, reading them: few of them)
    st = wait_generation(os.path.join(d, "out"), 1)
    check(st is not None and st.get("generation", 0) >= 1,
          "%s: the newest rank's report was published: %s" % (tag, st))
    time.sleep(0.5)
    rchar = rchar_at_end(w)
    rc = w.end()
    size = len(data) * 24 + os.path.getsize(old)
    # beyond the logs read once: the heads of the folder's logs, read to find the newest (as a
    # batch run does), and the pages a generation and the end compare with those in place
    print("%s: newest rank: %d bytes read for %d bytes of logs (%.2fx)" %
          (tag, rchar, size, rchar / size), flush=True)
    check(0 < rchar < size * 1.3 + (4 << 20),
          "%s: the rank logs were read once, the end too: %d bytes for %d" % (tag, rchar, size))
    check(rc == 0, "%s: exit 0, not %s: %s" % (tag, rc, w.err[-600:]))
    b = subprocess.run([binary, "trace", "-o", "batch", "--no-browser", "--fail-on", "export"],
                       cwd=d, capture_output=True)
    check(b.returncode == 0, "%s: the batch run passes --fail-on export" % tag)
    said = [x for x in w.err.split(b"\n") if x.startswith(b"tlparse: ") and b"warning" not in x]
    want = [x for x in b.stderr.split(b"\n") if x.startswith(b"tlparse: ") and b"warning" not in x
            and b"batch/index.html" not in x]
    check(said[:len(want)] == want and b"holds the logs of 2 ranks" in w.err,
          "%s: said as the batch run says it:\n%s\n%s" % (tag, said, want))
    check(b"out/index.html: the newest of the logs of 2 ranks" in w.err,
          "%s: the report is said to be of the newest rank: %s" % (tag, w.err[-300:]))
    check_same_as_batch(os.path.join(d, "out"), os.path.join(d, "batch"),
                        tag + ": the end report of the newest rank log")


def watched_log(binary, tmp, name, env):
    """A folder tmp/name with an empty log t.log, and a watch of it into out/ that has started
    following it: (folder, log, watch)."""
    d = os.path.join(tmp, name)
    os.makedirs(d)
    log = os.path.join(d, "t.log")
    open(log, "wb").close()
    w = Watch(binary, ["t.log", "-o", "out"], d, env)
    time.sleep(0.3)
    return d, log, w


def case_pause_in_entry(binary, tmp, env, tag):
    """The job pauses in the middle of entries (after a payload line, before the rest of the
    payload): the entry waits for its end (its md5 is not yet the one it announced), so the
    report fed as the log came is the batch one, and the log is not read again at the end."""
    d, log, w = watched_log(binary, tmp, "pause-" + tag, env)
    ents = entries(DEMO) * 6
    cut = 0
    with open(log, "ab") as f:
        for i, e in enumerate(ents):
            lines = e.split(b"\n")
            if len(lines) > 3 and i % 15 == 0:
                at = len(lines[0]) + len(lines[1]) + 2  # its head and first payload line
                f.write(e[:at])
                f.flush()
                time.sleep(0.3)  # longer than the watch waits before it settles an entry
                e = e[at:]
                cut += 1
            f.write(e)
            f.flush()
    check(cut >= 5, "%s: %d entries paused in" % (tag, cut))
    check(w.wait_for(lambda t: t.startswith("specialized"), 10), tag + ": the log was read")
    time.sleep(0.5)
    rchar = rchar_at_end(w)
    rc = w.end()
    read_about_once(tag, "paused entries", rchar, os.path.getsize(log), 1.3)
    check(rc == 0, "%s: exit 0, not %s: %s" % (tag, rc, w.err[-600:]))
    end_report_is_batch(binary, d, ["t.log"], tag + ": the end report of entries paused in")


def case_payload_goes_on(binary, tmp, env, tag):
    """An entry whose has_payload is the md5 of its first payload line only, and whose payload
    goes on after a pause (a log no logger writes, but a file can hold): at the pause it is
    taken as complete, the lines after make the log's engine start again from the log's start,
    once, so the log is read about once, and the end report is the batch one (which counts the
    md5 mismatch)."""
    d, log, w = watched_log(binary, tmp, "payload-goes-on-" + tag, env)
    ents = entries(DEMO) * 6
    bent = 0
    with open(log, "ab") as f:
        for i, e in enumerate(ents):
            lines = e.split(b"\n")
            m = re.search(rb'"has_payload": ?"([0-9a-f]{32})"', lines[0])
            if m and len(lines) > 4 and i > len(ents) // 3 and bent < 2:
                md5 = hashlib.md5(lines[1][1:]).hexdigest().encode()
                head = lines[0][:m.start(1)] + md5 + lines[0][m.end(1):]
                f.write(head + b"\n" + lines[1] + b"\n")
                f.flush()
                time.sleep(0.3)  # longer than the watch waits before it settles an entry
                e = b"\n".join(lines[2:])
                bent += 1
            f.write(e)
            f.flush()
    check(bent == 2, "%s: %d entries bent" % (tag, bent))
    check(w.wait_for(lambda t: t.startswith("specialized"), 10), tag + ": the log was read")
    time.sleep(0.5)
    rchar = rchar_at_end(w)
    rc = w.end()
    # the log's start read again when the payload went on (a third of it)
    read_about_once(tag, "a payload that went on", rchar, os.path.getsize(log), 1.5)
    check(rc == 0, "%s: exit 0, not %s: %s" % (tag, rc, w.err[-600:]))
    b = end_report_is_batch(binary, d, ["t.log"],
                            tag + ": the end report of a payload that went on")
    check(b"payload md5 mismatch" in b.stderr and b"payload md5 mismatch" in w.err,
          "%s: the md5 mismatch is said, as the batch run says it: %s" % (tag, w.err[-600:]))


def case_text_pause(binary, tmp, env, tag):
    """TORCH_LOGS text whose job pauses between log records (a message ends there, as the
    watch cannot know until the next line): what the pause said stands when the next record
    starts a new message, so the log is read once, the end too, and the end report is the
    batch one. Paused inside a message instead, the line that goes on it makes the log's
    engine start again from the log's start, once: the log is read about once all the same,
    and the end report is the batch one. Each record is one write, as a logger writes it: a
    loaded machine may pause the writer between writes, never inside one."""
    prefix = re.compile(rb"^[VIWEC]\d{4} [\d:.]+ +\d+ \S+:\d+\] ")
    texts = []
    for name in ("pt26_item_warning_guard_comments.txt", "pt26_breaks_optimizer_suppressed.txt",
                 "pt26_failures_backend_constraint.txt", "pt213_text_guards.txt"):
        texts.append(open(os.path.join(HERE, "fixtures", "torch_logs", name), "rb").read())
    # the records: runs of lines with one prefix (a line without one goes with the one before)
    records, last = [], None
    for ln in b"".join(texts * 160).split(b"\n")[:-1]:
        m = prefix.match(ln)
        key = m.group(0) if m else last
        if not records or key != last:
            records.append([])
        records[-1].append(ln + b"\n")
        last = key
    for inside in (False, True):
        where = "inside" if inside else "between"
        d = os.path.join(tmp, "text-pause-%s-%s" % (where, tag))
        os.makedirs(d)
        log = os.path.join(d, "stderr.txt")
        open(log, "wb").close()
        w = Watch(binary, ["stderr.txt", "-o", "out"], d, env)
        time.sleep(0.3)
        paused = 0
        with open(log, "ab", buffering=0) as f:
            for i, rec in enumerate(records):
                pause = paused < 8 and i % 97 == 5 and (len(rec) > 1 or not inside)
                if pause and inside:  # after the record's first line: the rest goes on it
                    f.write(rec[0])
                    rec = rec[1:]
                if pause:  # (between: before the record)
                    time.sleep(0.3)  # longer than the watch waits before it settles
                    paused += 1
                f.write(b"".join(rec))
        check(paused >= 4, "%s: %d pauses" % (tag, paused))
        check(w.wait_for(lambda t: t.startswith("graph break"), 10), tag + ": the log was read")
        time.sleep(0.5)
        rchar = rchar_at_end(w)
        rc = w.end()
        check(rc == 0, "%s: exit 0, not %s: %s" % (tag, rc, w.err[-600:]))
        # inside: the message that went on after the pause makes the log's engine start again
        # from the log's start, once (its pauses end no message from then on)
        read_about_once(tag, "text paused %s messages %d times" % (where, paused), rchar,
                        os.path.getsize(log), 1.3)
        end_report_is_batch(binary, d, ["stderr.txt"],
                            "%s: the end report of text paused %s messages" % (tag, where))


def case_bad_paths(binary, tmp):
    """What cannot be followed fails at once, in one line, and writes nothing."""
    d = os.path.join(tmp, "bad")
    os.makedirs(d)
    with gzip.open(os.path.join(d, "t.log.gz"), "wb") as f:
        f.write(open(DEMO, "rb").read())
    with open(os.path.join(d, "blob.log"), "wb") as f:
        f.write(bytes(range(256)) * 64)
    os.mkfifo(os.path.join(d, "fifo"))
    for path, want in (("typo.log", "tlparse: error: cannot follow typo.log: No such file or "
                        "directory (a TORCH_TRACE folder that the job will write: create it "
                        "first, or let tlparse start the job with --watch --run -- CMD)"),
                       ("t.log.gz", "tlparse: error: t.log.gz is gzip-compressed: --watch "
                        "follows a plain log while it is written; read this one with: tlparse "
                        "t.log.gz"),
                       ("blob.log", "tlparse: error: blob.log is not a TORCH_TRACE log or "
                        "TORCH_LOGS text: "),
                       ("fifo", "tlparse: error: cannot follow fifo: not a regular file")):
        t0 = time.monotonic()
        p = subprocess.run([binary, "--watch", "--no-browser", path, "-o", "out"], cwd=d,
                           capture_output=True, timeout=20)
        took = time.monotonic() - t0
        err = p.stderr.decode()
        check(p.returncode == 1 and took < 5, "bad path %s: exit 1 at once, not %s after %.1f s"
              % (path, p.returncode, took))
        check(err.startswith(want) and err.count("\n") == 1,
              "bad path %s: one line, %r, not %r" % (path, want, err))
        check(not os.path.exists(os.path.join(d, "out")), "bad path %s: nothing written" % path)
        check(p.stdout == b"", "bad path %s: nothing on stdout: %r" % (path, p.stdout))


def case_deleted(binary, tmp, env, tag):
    """A log deleted while it is followed (before the end): the end report is whole. One log; a
    rank's log; the whole folder of ranks."""
    data = open(DEMO, "rb").read()
    # one log
    d = os.path.join(tmp, "deleted-" + tag)
    os.makedirs(d)
    log = os.path.join(d, "t.log")
    open(log, "wb").close()
    shutil.copy(DEMO, os.path.join(d, "copy.log"))
    w = Watch(binary, ["t.log", "-o", "out"], d, env)
    write_slowly(log, data, chunk=20000, pause=0.01)
    check(w.wait_for(lambda t: t.startswith("specialized"), 10), tag + ": deleted: read")
    os.remove(log)
    time.sleep(0.5)
    rc = w.stop()
    check(rc == 0, "%s: deleted: exit 0, not %s: %s" % (tag, rc, w.err[-400:]))
    os.rename(os.path.join(d, "copy.log"), log)  # the batch run reads it by the same name
    subprocess.run([binary, "t.log", "-o", "batch", "--no-browser"], cwd=d, capture_output=True)
    check_same_as_batch(os.path.join(d, "out"), os.path.join(d, "batch"),
                        tag + ": the end report of a deleted log")
    # a rank's log, then the whole folder
    for gone in ("rank", "folder"):
        d = os.path.join(tmp, "deleted-%s-%s" % (gone, tag))
        trace = os.path.join(d, "trace")
        keep = os.path.join(d, "keep")
        os.makedirs(trace)
        os.makedirs(keep)
        names = ["dedicated_log_torch_trace_rank_%d_x.log" % r for r in (0, 1)]
        for n in names:
            shutil.copy(DEMO, os.path.join(keep, n))
            shutil.copy(DEMO, os.path.join(trace, n))
        w = Watch(binary, ["trace", "-o", "out", "--all-ranks-html"], d, env)
        check(w.wait_for(lambda t: t.startswith("rank 1 specialized"), 15),
              "%s: deleted %s: read" % (tag, gone))
        if gone == "rank":
            os.remove(os.path.join(trace, names[1]))
        else:
            shutil.rmtree(trace)
        time.sleep(0.5)
        rc = w.stop()
        check(rc == 0, "%s: deleted %s: exit 0, not %s: %s" % (tag, gone, rc, w.err[-400:]))
        subprocess.run([binary, "keep", "-o", "batch", "--all-ranks-html", "--no-browser"], cwd=d,
                       capture_output=True)
        for r in ("rank_0", "rank_1"):
            check_same_as_batch(os.path.join(d, "out", r), os.path.join(d, "batch", r),
                                "%s: deleted %s: %s of the end report" % (tag, gone, r))


def as_text_reason(data):
    """demo.log with its recompile_reasons as PyTorch 2.13 logs a single reason: the reason as
    plain text, not a JSON list (the envelope says json all the same), its md5 made anew."""
    at = data.index(b'{"artifact": {"name": "recompile_reasons"')
    line_end = data.index(b"\n", at)
    pay_end = data.index(b"\n", line_end + 1)
    payload = data[line_end + 2:pay_end]  # after the tab
    text = json.loads(payload)[0].encode()
    head = re.sub(rb'"has_payload": "[0-9a-f]{32}"',
                  b'"has_payload": "' + hashlib.md5(text).hexdigest().encode() + b'"',
                  data[at:line_end])
    return data[:at] + head + b"\n\t" + text + data[pay_end:]


def case_early_recompile(binary, tmp, env, tag, form="list"):
    """A recompile is said within LATENCY s of its recompile_reasons (a JSON list, or one reason
    as plain text), while its compilation goes on (its metrics come 4 s later), and not again
    when they come."""
    d = os.path.join(tmp, "early-%s-%s" % (form, tag))
    os.makedirs(d)
    log = os.path.join(d, "t.log")
    data = open(DEMO, "rb").read()
    if form == "text":
        data = as_text_reason(data)
    at = data.index(b'{"artifact": {"name": "recompile_reasons"')
    at = data.index(b"\n", data.index(b"\n", at) + 1) + 1  # its line and its payload line
    open(log, "wb").close()
    w = Watch(binary, ["t.log", "-o", "out"], d, env)
    with open(log, "ab") as f:
        f.write(data[:at])
        f.flush()
        t0 = time.monotonic()
        said = w.wait_for(lambda t: t.startswith("recompile"), LATENCY + 2)
        took = next((t for t, x in w.lines if x.startswith("recompile")), t0 + 99) - t0
        check(said and took <= LATENCY, "%s: the recompile said %.2f s after its "
              "recompile_reasons (at most %.1f s)" % (tag, took, LATENCY))
        time.sleep(4)  # the compilation goes on
        f.write(data[at:])
        f.flush()
    check(w.wait_for(lambda t: t.startswith("specialized"), 10), tag + ": the rest was read")
    time.sleep(0.5)
    rc = w.stop()
    check(rc == 0, "%s: exit 0, not %s" % (tag, rc))
    rec = [e for e in w.events() if e.startswith("recompile")]
    check(len(rec) == 1 and rec[0].startswith("recompile: forward (/home/user/projects/demo/"
                                              "demo_model.py:15) [0/1] compiled 2 times"),
          "%s: the recompile said once, with its function: %s" % (tag, rec))


def make_ranks(folder, n, data):
    for r in range(n):
        with open(os.path.join(folder, "dedicated_log_torch_trace_rank_%d_x.log" % r), "wb") as f:
            f.write(data)


def case_many(binary, tmp, env, tag):
    """200 rank logs appearing at once, then 16 appearing one by one: each followed (a line per
    rank), no crash at the end, the end report the batch one."""
    data = open(os.path.join(HERE, "fixtures", "edge.log"), "rb").read()
    for n, pace in ((200, 0.0), (16, 0.3)):
        d = os.path.join(tmp, "many-%d-%s" % (n, tag))
        trace = os.path.join(d, "trace")
        os.makedirs(trace)
        w = Watch(binary, ["trace", "-o", "out", "--all-ranks-html"], d, env)
        time.sleep(0.3)
        if pace:
            for r in range(n):
                make_ranks_one = os.path.join(trace, "dedicated_log_torch_trace_rank_%d_x.log" % r)
                with open(make_ranks_one, "wb") as f:
                    f.write(data)
                time.sleep(pace)
        else:
            stage = os.path.join(d, "stage")
            os.makedirs(stage)
            make_ranks(stage, n, data)
            for name in os.listdir(stage):  # all of them within a moment
                os.rename(os.path.join(stage, name), os.path.join(trace, name))
        check(w.wait_for(lambda t: t.startswith("rank %d " % (n - 1)), 60) or
              sum(1 for _, t in w.lines if t.startswith("tlparse: following")) == n,
              "%s: %d logs: the last rank was read" % (tag, n))
        end = time.monotonic() + 60
        while time.monotonic() < end and \
                sum(1 for _, t in w.lines if t.startswith("tlparse: following")) < n:
            time.sleep(0.1)
        time.sleep(1)
        rc = w.stop(timeout=300)
        check(rc == 0, "%s: %d logs: exit 0 after SIGINT, not %s: %s" % (tag, n, rc, w.err[-600:]))
        following = sum(1 for _, t in w.lines if t.startswith("tlparse: following"))
        check(following == n, "%s: %d logs followed, not %d" % (tag, n, following))
        subprocess.run([binary, "trace", "-o", "batch", "--all-ranks-html", "--no-browser"],
                       cwd=d, capture_output=True)
        out, batch = os.path.join(d, "out"), os.path.join(d, "batch")
        check(os.path.isdir(os.path.join(out, "rank_%d" % (n - 1))),
              "%s: %d logs: the end report has every rank" % (tag, n))
        check_same_as_batch(out, batch, "%s: %d logs: the end report" % (tag, n))


def case_rebuild_fails(binary, tmp, env, tag):
    """The live report cannot be written any more (its folder's parent became a file): said
    once, the watch goes on; the end report fails with the reason."""
    d = os.path.join(tmp, "rebuild-" + tag)
    os.makedirs(os.path.join(d, "sub"))
    log = os.path.join(d, "t.log")
    data = open(DEMO, "rb").read()
    open(log, "wb").close()
    w = Watch(binary, ["t.log", "-o", "sub/out"], d, env)
    write_slowly(log, data[:len(data) // 2], chunk=8000, pause=0.01)
    end = time.monotonic() + 15
    while time.monotonic() < end and not os.path.exists(os.path.join(d, "sub", "out", "live.js")):
        time.sleep(0.05)
    shutil.rmtree(os.path.join(d, "sub"))
    open(os.path.join(d, "sub"), "wb").close()
    write_slowly(log, data[len(data) // 2:], chunk=8000, pause=0.05)
    said = w.wait_for(lambda t: t.startswith("tlparse: warning: the live report could not be "
                                             "updated: "), 15)
    time.sleep(3)
    rc = w.stop()
    lines = [t for _, t in w.lines if "could not be updated" in t]
    check(said and len(lines) == 1, "%s: a failed rebuild is said once: %s" % (tag, lines))
    check(rc == 1 and b"sub" in w.err, "%s: the end report fails, naming the folder: %s %s" %
          (tag, rc, w.err[-300:]))


def main():
    binary = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="tl-watch-")
    try:
        for tag, env in (("inotify", {}), ("poll", {"TLPARSE_WATCH_POLL": "1"})):
            case_one_log(binary, tmp, env, tag)
            case_latency(binary, tmp, env, tag)
            case_restart(binary, tmp, env, tag)
            case_ranks(binary, tmp, env, tag)
            case_deleted(binary, tmp, env, tag)
            case_early_recompile(binary, tmp, env, tag)
            case_early_recompile(binary, tmp, env, tag, "text")
        case_many(binary, tmp, {}, "inotify")
        case_bad_paths(binary, tmp)
        case_rebuild_fails(binary, tmp, {}, "inotify")
        case_text(binary, tmp, {}, "inotify")
        case_screen(binary, tmp)
        case_screen_run(binary, tmp)
        case_fail_on(binary, tmp, {}, "inotify")
        case_run(binary, tmp, {}, "inotify")
        case_run_ranks(binary, tmp, {}, "inotify")
        case_run_one_rank(binary, tmp, {}, "inotify")
        case_run_second_rank(binary, tmp, {}, "inotify")
        case_live_files(binary, tmp, {}, "inotify")
        case_reads_once(binary, tmp, {}, "inotify")
        case_ranks_read_once(binary, tmp, {}, "inotify")
        case_newest(binary, tmp, {}, "inotify")
        case_newest_rank(binary, tmp, {}, "inotify")
        case_newest_switch(binary, tmp, {}, "inotify")
        case_rank_restart(binary, tmp, {}, "inotify")
        case_rank_second_log(binary, tmp, {}, "inotify")
        case_pause_in_entry(binary, tmp, {}, "inotify")
        case_text_pause(binary, tmp, {}, "inotify")
        case_payload_goes_on(binary, tmp, {}, "inotify")
    finally:
        if not os.environ.get("TL_KEEP"):
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print("kept " + tmp)
    print("watch: %d passed, %d failed" % (passed, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
