# SPDX-License-Identifier: BSD-3-Clause
"""pytest plugin (entry point pytest11 "tlparse"): trace a test session's torch.compile work,
report on it per test, and fail the tests that break their compile budget.

    pytest --tlparse[=DIR]                 trace; DIR/<test>/index.html per test that compiled,
                                           DIR/session/index.html for the whole session
    pytest --tlparse-fail-on graph-breaks,recompiles
                                           fail the tests that have any of these
    @pytest.mark.compile_budget(recompiles=0, graph_breaks=0, eager=0)
                                           fail the test when it has more than that

How a compile is attributed to a test: the plugin writes a marker artifact into the trace
itself, through PyTorch's own structured logger, when a test starts ("pytest_test_start") and
ends ("pytest_test_end"), each carrying the test's node id. Everything the log holds between
the two was written while the test ran (setup, call, teardown), so its compile ids are the
test's. Markers in the log, rather than file offsets kept on the side, because they go through
the same handler, lock and file as the compile records: their order with them is exact, they
follow the handler wherever it writes, and the trace kept in DIR/trace/ can be split again
later by anyone. The log is read incrementally, at test boundaries only (the handler flushes
every record), so a long session is read once.

Under pytest-xdist (`pytest -n 2 --tlparse`) the controller makes the folder and sets
TORCH_TRACE before it starts the workers, which inherit it; it hands each worker the folder and
the kinds through workerinput. Each worker is a process with a trace log of its own in trace/,
marks and attributes its own tests as above, checks their budgets (its failure reports reach
the controller as pytest's own), writes their reports and its session's report into
session/<worker>/, and hands its results back through workeroutput; the controller writes
tests.json and session/index.html, an index of the workers' session reports. Compile ids
are a worker's own: [0/0] of gw0 and [0/0] of gw1 are different compiles.
"""

import hashlib
import html
import json
import logging
import os
import re
import shutil
import subprocess
import sys

import pytest

DEFAULT_DIR = "tl_pytest"
STAMP = ".tlparse-pytest"  # a folder holding it is this plugin's, which a new session may clear
KINDS = ("graph-breaks", "recompiles", "failures", "specializations", "eager")
BUDGET_KINDS = {"recompiles": "recompiles", "graph_breaks": "graph-breaks", "eager": "eager",
                "failures": "failures", "specializations": "specializations"}
START, END = "pytest_test_start", "pytest_test_end"


# ---- the options and the marker -------------------------------------------------------------

def pytest_addoption(parser):
    group = parser.getgroup("tlparse", "torch.compile reports and budgets (tlparse)")
    group.addoption(
        "--tlparse", nargs="?", const=DEFAULT_DIR, default=None, metavar="DIR",
        dest="tlparse_dir",
        help="trace torch.compile (TORCH_TRACE) during the session and write a tlparse report "
             "per test that compiled and one for the session into DIR "
             f"[default: {DEFAULT_DIR}]; write it as --tlparse=DIR")
    group.addoption(
        "--tlparse-fail-on", default=None, metavar="KINDS", dest="tlparse_fail_on",
        help="fail the tests whose compiles have any of KINDS (comma-separated: "
             + ", ".join(KINDS) + ", any), as tlparse --fail-on; implies --tlparse")


def _kinds(value):
    """The kinds of --tlparse-fail-on, or UsageError."""
    out = []
    for k in (value or "").split(","):
        k = k.strip()
        if k == "any":
            out += [x for x in KINDS if x not in out]
        elif k in KINDS:
            if k not in out:
                out.append(k)
        else:
            raise pytest.UsageError(
                f"--tlparse-fail-on: unknown kind {k!r}; kinds: {', '.join(KINDS)}, any")
    return out


def _swallowed(args):
    """The argument that a bare `--tlparse` took as its folder when it looks like a test path
    (argparse reads `--tlparse tests/` as DIR=tests/), else None."""
    for i, a in enumerate(args[:-1]):
        if a == "--tlparse":
            v = args[i + 1]
            if v.startswith("-"):
                return None
            path = v.split("::")[0]
            if "::" in v or (os.path.exists(path) and not os.path.exists(os.path.join(path, STAMP))):
                return v
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    # The earliest hook with the options parsed, before any conftest.py (which may import
    # torch) is loaded: TORCH_TRACE is read once, when torch is imported.
    ns = early_config.known_args_namespace
    folder = getattr(ns, "tlparse_dir", None)
    fail_on = getattr(ns, "tlparse_fail_on", None)
    if folder is None and fail_on is None:
        return
    if os.environ.get("PYTEST_XDIST_WORKER"):
        # a pytest-xdist worker: the controller owns the folder and has set TORCH_TRACE, which
        # the worker inherits; pytest_configure gets the rest from workerinput
        return
    kinds = _kinds(fail_on) if fail_on is not None else []
    v = _swallowed(args)
    if v is not None:
        raise pytest.UsageError(
            f"--tlparse took {v!r} as its report folder: write the folder as --tlparse=DIR "
            "(or put --tlparse after the test paths)")
    session = _Session(os.path.abspath(folder or DEFAULT_DIR), kinds)
    session.start()
    early_config.stash[_KEY] = session


_KEY = pytest.StashKey()  # pytest 7 on


def _session(config):
    return config.stash.get(_KEY, None)


def pytest_configure(config):
    given = getattr(config, "workerinput", {}).get("tlparse")
    if given is not None:
        s = _Session(given["folder"], given["kinds"], worker=config.workerinput["workerid"])
        s.attach()
        config.stash[_KEY] = s
    config.addinivalue_line(
        "markers",
        "compile_budget(recompiles=0, graph_breaks=0, eager=0, failures=None, "
        "specializations=None): under --tlparse, fail the test when its torch.compile work "
        "has more of a kind than its budget (the kinds named; a bare marker: recompiles, graph "
        "breaks and eager fallbacks 0)")


# ---- the trace, split at the markers --------------------------------------------------------

class _Trace:
    """The process's trace log, read incrementally: byte ranges of each test's records, the
    string table ("str" records, which later records refer to by index) and torch_version."""

    def __init__(self, path):
        self.path = path
        self.offset = 0           # read up to here
        self.strs = []            # (offset, length) of every "str" record
        self.version = None       # (offset, length) of the torch_version artifact
        self.markers = []         # (offset, length) of the markers, left out of every slice
        self.current = None       # the test whose start marker was read last, until its end
        self.since = 0            # where the records of the current (or a marker-less) test begin
        self.regions = {}         # nodeid -> [(begin, end)]
        self.compile_ids = {}     # nodeid -> compile ids, in order of their first record
        self.last_end = 0         # the end of the last test's end marker (or 0)
        self.started = set()      # the tests whose start marker was read
        self.loose = []           # compile ids read since last_end outside any started test
        self.worker = None        # the pytest-xdist worker that wrote it (its markers say)

    def read(self):
        """Read what the log holds beyond self.offset (whole records only: the handler writes
        and flushes each record at once, and this runs between tests)."""
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
        except OSError:
            return
        cut = data.rfind(b"\n")
        if cut < 0:
            return
        data = data[:cut + 1]
        pos = 0
        while pos < len(data):
            nl = data.index(b"\n", pos)
            line = data[pos:nl]
            at = self.offset + pos
            # a record is a line and the payload lines after it (each begins with a tab)
            end = nl + 1
            while end < len(data) and data[end:end + 1] == b"\t":
                end = data.index(b"\n", end) + 1
            self._record(line, at, self.offset + end)
            pos = end
        self.offset += len(data)

    def _record(self, line, at, end):
        j = line.find(b"] {")
        if j < 0:
            return
        body = line[j + 2:]
        if body.startswith(b'{"str"'):
            self.strs.append((at, end - at))
            return
        if b'"pytest_test_' in body or b'"torch_version"' in body or b'"frame_id"' in body:
            try:
                env = json.loads(body)
            except ValueError:
                return
            name = (env.get("artifact") or {}).get("name") if isinstance(env.get("artifact"), dict) else None
            if name in (START, END):
                self._marker(name, at, end)
                return
            if name == "torch_version" and self.version is None:
                self.version = (at, end - at)
            if "frame_id" in env:
                cid = "[%s/%s]" % (env.get("frame_id"), env.get("frame_compile_id"))
                if "compiled_autograd_id" in env:
                    cid = "!%s%s" % (env["compiled_autograd_id"], cid)
                ids = self.compile_ids.setdefault(self.current, []) if self.current else self.loose
                if cid not in ids:
                    ids.append(cid)

    def _marker(self, name, at, end):
        self.markers.append((at, end - at))
        nodeid = self._payload(at, end)
        if name == START:
            self.current = nodeid
            self.since = end
            self.started.add(nodeid)
        elif nodeid is not None:
            if self.current == nodeid:
                since = self.since
            else:
                # a test with no start marker imported torch itself: what came since the last
                # test ended is its own
                since = self.last_end
                ids = self.compile_ids.setdefault(nodeid, [])
                ids += [c for c in self.loose if c not in ids]
            self.regions.setdefault(nodeid, []).append((since, at))
            self.current = None
            self.last_end = end
        self.loose = []

    def _payload(self, at, end):
        with open(self.path, "rb") as f:
            f.seek(at)
            rec = f.read(end - at)
        lines = rec.split(b"\n")[1:]
        text = b"".join(ln[1:] for ln in lines if ln.startswith(b"\t"))
        try:
            payload = json.loads(text)
            if self.worker is None and isinstance(payload.get("worker"), str):
                self.worker = payload["worker"]
            return payload["nodeid"]
        except (ValueError, KeyError, TypeError, AttributeError):
            return None

    def running(self, nodeid):
        """The ranges of nodeid's records so far (its test still running)."""
        done = list(self.regions.get(nodeid, []))
        if self.current == nodeid:
            done.append((self.since, self.offset))
        elif nodeid not in self.started and self.current is None:
            done.append((self.last_end, self.offset))  # it imported torch itself
        return done

    def write_slice(self, ranges, path):
        """Write the records of ranges as a log of their own at path, after the string table
        entries and the torch_version artifact written before them. False when it is empty."""
        if not ranges or all(b >= e for b, e in ranges):
            return False
        first = ranges[0][0]
        head = [r for r in self.strs if r[0] < first]
        if self.version and self.version[0] < first:
            head.append(self.version)
        with open(self.path, "rb") as f, open(path, "wb") as out:
            for off, n in sorted(head):
                f.seek(off)
                out.write(f.read(n))
            for b, e in ranges:
                f.seek(b)
                out.write(f.read(e - b))
        return True

    def write_session(self, path):
        """The whole log without the markers."""
        marks = sorted(self.markers)
        with open(self.path, "rb") as f, open(path, "wb") as out:
            pos = 0
            for off, n in marks + [(self.offset, 0)]:
                f.seek(pos)
                left = off - pos
                while left > 0:
                    chunk = f.read(min(left, 1 << 20))
                    if not chunk:
                        break
                    out.write(chunk)
                    left -= len(chunk)
                pos = off + n


# ---- the session ----------------------------------------------------------------------------

def _names(nodeid):
    """The folder names nodeid may take, in order: [A-Za-z0-9._-], at most 120 bytes, none of
    the plugin's own names; the first one free is taken (_Session.name)."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", nodeid).strip("._") or "test"
    hashed = name[:100] + "-" + hashlib.sha256(nodeid.encode("utf-8")).hexdigest()[:10]
    if len(name) <= 120 and name not in ("session", "trace", "logs"):
        yield name
    yield hashed
    n = 2
    while True:  # the same node id run again by another worker (--dist each)
        yield "%s-%d" % (hashed, n)
        n += 1


class _Session:
    def __init__(self, folder, kinds, worker=None):
        self.folder = folder
        self.kinds = kinds
        self.worker = worker  # the pytest-xdist worker id ("gw0") in a worker, else None
        self.trace_dir = os.path.join(folder, "trace")
        self.trace = None
        self.names = {}     # nodeid -> folder name
        self.results = {}   # nodeid -> {"compile_ids", "counts", "report", "broke"}
        self.xdist = False  # the controller of pytest-xdist workers
        self.workers = {}   # there: worker id -> what it handed back (_finish_worker)
        self.order = []     # there: the node ids in collection order
        self.trace_logs = []  # there: the workers' trace logs, relative to the folder
        self.salvage = False  # reading the log of a worker that crashed (_salvage)
        self.failed_budget = []
        self.tlparse = None
        self.warnings = []
        self.marker_error = False

    def start(self):
        if os.path.isdir(self.folder) and os.listdir(self.folder):
            if not os.path.exists(os.path.join(self.folder, STAMP)):
                raise pytest.UsageError(
                    f"--tlparse: {self.folder} exists and is not a report folder of this plugin "
                    "(it has no .tlparse-pytest): name another folder or remove it")
            shutil.rmtree(self.folder)
        os.makedirs(self.trace_dir)
        os.makedirs(os.path.join(self.folder, "logs"))
        with open(os.path.join(self.folder, STAMP), "w") as f:
            f.write("made by the tlparse pytest plugin; removed by its next session here\n")
        if os.environ.get("TORCH_TRACE"):
            self.warnings.append("TORCH_TRACE=%s was set: this session traces into %s instead"
                                 % (os.environ["TORCH_TRACE"], self.trace_dir))
        os.environ["TORCH_TRACE"] = self.trace_dir
        if "torch" in sys.modules:
            self._retarget()

    def attach(self):
        """In a pytest-xdist worker: the controller made the folder and set TORCH_TRACE."""
        if "torch" in sys.modules:
            self._retarget()

    def _retarget(self):
        """torch was imported before the plugin could set TORCH_TRACE (by another plugin):
        give its trace handler our folder, when it has not written anything yet."""
        internal = sys.modules.get("torch._logging._internal")
        h = getattr(internal, "LOG_TRACE_HANDLER", None)
        if internal is None or h is None:
            return
        if getattr(h, "stream", None) is None:
            h.root_dir = self.trace_dir
            if h not in internal.trace_log.handlers:
                internal.trace_log.addHandler(h)
            internal.trace_log.setLevel(logging.DEBUG)
        else:
            self.warnings.append("torch was imported and tracing before the plugin started: "
                                 "its trace is not this session's")

    def _handler_path(self):
        internal = sys.modules.get("torch._logging._internal")
        h = getattr(internal, "LOG_TRACE_HANDLER", None)
        stream = getattr(h, "stream", None)
        if stream is None:
            return None
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
        path = getattr(h, "_stream_path", None)  # PyTorch 2.13
        if not path:
            try:
                path = os.readlink("/proc/self/fd/%d" % stream.fileno())
            except (OSError, ValueError):
                return None
        return path if os.path.dirname(os.path.abspath(path)) == self.trace_dir else None

    def _sync(self):
        """Read what the trace holds so far (opening it once torch has written it)."""
        if self.trace is None:
            path = self._handler_path()
            if path is None:
                return False
            self.trace = _Trace(path)
        else:
            self._handler_path()  # flush
        self.trace.read()
        return True

    def mark(self, name, nodeid):
        logging_mod = sys.modules.get("torch._logging")
        if logging_mod is None or not hasattr(logging_mod, "trace_structured"):
            return
        payload = {"nodeid": nodeid}
        if self.worker is not None:
            payload["worker"] = self.worker  # so that the controller can read a crashed worker's
        try:
            logging_mod.trace_structured(
                "artifact",
                metadata_fn=lambda: {"name": name, "encoding": "json"},
                payload_fn=lambda: payload,
                suppress_context=True,
                expect_trace_id=False,
            )
        except Exception as e:  # a PyTorch whose logger differs: trace on, attribute nothing
            if not self.marker_error:
                self.marker_error = True
                self.warnings.append("cannot mark test boundaries in the trace (%s: %s): "
                                     "compiles are not attributed to tests" % (type(e).__name__, e))

    # -- per test

    def name(self, nodeid):
        """nodeid's folder name, claimed by making DIR/<name>: the workers of pytest-xdist
        share the folder, and the first to make a name has it."""
        if nodeid not in self.names:
            for name in _names(nodeid):
                try:
                    os.mkdir(os.path.join(self.folder, name))
                except FileExistsError:
                    # the folders left empty are the claims of a worker that crashed
                    if not (self.salvage and not os.listdir(os.path.join(self.folder, name))):
                        continue
                self.names[nodeid] = name
                break
        return self.names[nodeid]

    def binary(self):
        if self.tlparse is None:
            from . import binary
            self.tlparse = binary()
        return self.tlparse

    def summary(self, ranges, log):
        """tlparse --json of the records in ranges, written to log; None when they are none."""
        if not self.trace or not self.trace.write_slice(ranges, log):
            return None
        proc = subprocess.run([self.binary(), "--json", log], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
        if proc.returncode != 0:
            raise RuntimeError("tlparse --json %s: %s" % (log, proc.stderr.decode("utf-8", "replace")))
        return json.loads(proc.stdout.decode("utf-8"))

    def check(self, item):
        """The budget problems of item, which has just run its call phase: a list of
        (kind, count, budget, findings), findings (what, location, fix) each."""
        budget = {k: 0 for k in self.kinds}
        for m in reversed(list(item.iter_markers("compile_budget"))):
            kw = dict(m.kwargs)
            if m.args:
                raise pytest.UsageError("compile_budget takes keywords only: "
                                        + ", ".join(BUDGET_KINDS))
            if not kw:
                kw = {"recompiles": 0, "graph_breaks": 0, "eager": 0}
            for k, v in kw.items():
                if k not in BUDGET_KINDS:
                    raise pytest.UsageError("compile_budget: unknown kind %r; kinds: %s"
                                            % (k, ", ".join(BUDGET_KINDS)))
                if v is None:
                    budget.pop(BUDGET_KINDS[k], None)
                else:
                    budget[BUDGET_KINDS[k]] = int(v)
        if not budget or not self._sync():
            return []
        log = os.path.join(self.folder, "logs", self.name(item.nodeid) + ".log")
        s = self.summary(self.trace.running(item.nodeid), log)
        if s is None or not s.get("compile_ids"):
            return []
        found = _counts(s)
        return [(k, found[k][0], budget[k], found[k][1]) for k in KINDS
                if k in budget and found[k][0] > budget[k]]

    def finish(self):
        """After the last test: the per-test and session reports, DIR/tests.json. In a worker
        of pytest-xdist: its tests' reports and its session's, and what it hands back to the
        controller (returned); in the controller: tests.json and the index of the sessions."""
        if self.xdist:
            return self._finish_controller()
        traced = self._sync()
        if traced:
            self._finish_tests()
        # the folders claimed for tests that turned out to compile nothing
        reported = {os.path.dirname(r["report"]) for r in self.results.values()}
        for name in set(self.names.values()) - reported:
            try:
                os.rmdir(os.path.join(self.folder, name))
            except OSError:
                pass
        if self.worker is not None:
            return self._finish_worker(traced)
        if not traced:
            return None
        t = self.trace
        session_log = os.path.join(self.folder, "logs", "session.log")
        t.write_session(session_log)
        self._report(session_log, os.path.join(self.folder, "session"))
        with open(os.path.join(self.folder, "tests.json"), "w", encoding="utf-8") as f:
            json.dump({"schema": "tlparse-pytest/1", "trace": os.path.relpath(t.path, self.folder),
                       "session": os.path.join("session", "index.html"),
                       "tests": list(self.results.values())}, f, indent=1)
            f.write("\n")
        return None

    def _finish_tests(self):
        t = self.trace
        for nodeid, ranges in t.regions.items():
            name = self.name(nodeid)
            log = os.path.join(self.folder, "logs", name + ".log")
            s = self.summary(ranges, log)
            if s is None or not s.get("compile_ids"):
                if os.path.exists(log):
                    os.remove(log)
                continue
            out = os.path.join(self.folder, name)
            self._report(log, out)
            counts = _counts(s)
            self.results[nodeid] = {
                "nodeid": nodeid,
                "compile_ids": t.compile_ids.get(nodeid, []),
                "report": os.path.join(name, "index.html"),
                "log": os.path.join("logs", name + ".log"),
                "counts": {k: counts[k][0] for k in KINDS},
                "broke_budget": nodeid in self.failed_budget,
            }
            if self.worker is not None:
                self.results[nodeid]["worker"] = self.worker

    def _finish_worker(self, traced):
        """The worker's session log and report (session/<worker>/), and its results for the
        controller: plain values, as execnet carries them."""
        out = {"worker": self.worker, "trace": None, "log": None, "report": None,
               "tests": list(self.results.values()), "warnings": list(self.warnings)}
        if not traced:
            return out
        wid = re.sub(r"[^A-Za-z0-9._-]+", "_", self.worker)
        os.makedirs(os.path.join(self.folder, "logs", "session"), exist_ok=True)
        os.makedirs(os.path.join(self.folder, "session"), exist_ok=True)
        log = os.path.join("logs", "session", wid + ".log")
        self.trace.write_session(os.path.join(self.folder, log))
        self._report(os.path.join(self.folder, log), os.path.join(self.folder, "session", wid))
        out["warnings"] = list(self.warnings)
        out.update(trace=os.path.relpath(self.trace.path, self.folder), log=log,
                   report=os.path.join("session", wid, "index.html"))
        return out

    def _salvage(self):
        """The trace logs of workers that crashed (their markers name the worker; those of
        other processes have none): sliced here as the worker would have, the test that
        was running given what it wrote until the crash."""
        known = {w["trace"] for w in self.workers.values()}
        try:
            files = sorted(os.listdir(self.trace_dir))
        except OSError:
            return
        for f in files:
            if os.path.join("trace", f) in known:
                continue
            t = _Trace(os.path.join(self.trace_dir, f))
            t.read()
            if t.worker is None or t.worker in self.workers:
                continue
            if t.current is not None:
                t.regions.setdefault(t.current, []).append((t.since, t.offset))
            sub = _Session(self.folder, self.kinds, worker=t.worker)
            sub.trace, sub.salvage, sub.tlparse = t, True, self.tlparse
            sub.failed_budget = list(self.failed_budget)
            sub._finish_tests()
            out = sub._finish_worker(True)
            out["warnings"].append("it crashed: its tests' reports were made from its trace log")
            self.workers[t.worker] = out
            for name in os.listdir(self.folder):  # its claims for tests that compiled nothing
                try:
                    os.rmdir(os.path.join(self.folder, name))
                except OSError:
                    pass

    def _finish_controller(self):
        """tests.json over every worker's tests (in collection order) and session/index.html,
        the workers' session reports with their counts."""
        self._salvage()
        order = {n: i for i, n in enumerate(self.order)}
        workers = sorted(self.workers.values(), key=lambda w: (len(w["worker"]), w["worker"]))
        tests = []
        for w in workers:
            tests += w["tests"]
            self.warnings += ["%s: %s" % (w["worker"], x) for x in w["warnings"]]
        tests.sort(key=lambda r: order.get(r["nodeid"], len(order)))
        self.results = {(r["worker"], r["nodeid"]): r for r in tests}
        traced = [w for w in workers if w["report"]]
        if not traced:
            return None
        rows = []
        for w in traced:
            try:
                with open(os.path.join(self.folder, os.path.dirname(w["report"]), "summary.json"),
                          encoding="utf-8") as f:
                    s = json.load(f)
                w["compile_ids"] = s.get("compile_ids")
                counts = _counts(s)
                w["counts"] = {k: counts[k][0] for k in KINDS}
            except (OSError, ValueError, AttributeError):
                w["compile_ids"], w["counts"] = None, {}
            rows.append(w)
        self.trace_logs = [w["trace"] for w in traced]
        _write_index(os.path.join(self.folder, "session", "index.html"), rows, tests)
        with open(os.path.join(self.folder, "tests.json"), "w", encoding="utf-8") as f:
            json.dump({"schema": "tlparse-pytest/1", "trace": "trace",
                       "session": os.path.join("session", "index.html"),
                       "workers": [{k: w[k] for k in ("worker", "trace", "log", "report",
                                                      "compile_ids", "counts")} for w in rows],
                       "tests": tests}, f, indent=1)
            f.write("\n")
        return None

    def _report(self, log, out):
        proc = subprocess.run([self.binary(), log, "-o", out, "--overwrite", "--no-browser"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if proc.returncode != 0:
            self.warnings.append("tlparse %s: %s" % (log, proc.stderr.decode("utf-8", "replace").strip()))


def _write_index(path, workers, tests):
    """session/index.html under pytest-xdist: a row per worker that traced, linking its session
    report (session/<worker>/), with its counts and the tests it ran that compiled. Every name
    (worker ids, node ids) is escaped."""
    e = html.escape
    rows = []
    for w in workers:
        c = w["counts"]
        ran = [t for t in tests if t["worker"] == w["worker"]]
        rows.append(
            "<tr><td><a href=\"%s\">%s</a></td><td>%s</td>%s<td>%s</td></tr>"
            % (e(os.path.relpath(w["report"], "session")), e(w["worker"]),
               "?" if w["compile_ids"] is None else w["compile_ids"],
               "".join("<td>%s</td>" % c.get(k, "?") for k in KINDS),
               "<br>".join('<a href="../%s">%s</a>' % (e(t["report"]), e(t["nodeid"]))
                           for t in ran) or "none"))
    page = ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
            "<title>tlparse: pytest session</title>\n"
            "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
            "td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}"
            "</style></head><body>\n"
            "<h1>pytest session: %d worker%s</h1>\n"
            "<p>Each pytest-xdist worker is a process with a trace log of its own, and compile "
            "ids of its own: a worker's report covers what it compiled. Per test: "
            "<a href=\"../tests.json\">tests.json</a>.</p>\n"
            "<table><tr><th>worker</th><th>compile ids</th>%s<th>tests that compiled</th></tr>\n"
            "%s\n</table></body></html>\n"
            % (len(workers), "" if len(workers) == 1 else "s",
               "".join("<th>%s</th>" % e(k) for k in KINDS), "\n".join(rows)))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(page)


def _loc(x):
    return x or "(no location in the log)"


def _fix(x):
    advice = x.get("advice") or {}
    return advice.get("fix") or advice.get("title") or ""


def _eager_finding(frame, eager_fails, limits):
    """(what, where, fix) of a frame that ran in eager mode: its cause, with the failure's or
    the limit's advice when the diagnosis has one for the frame's compile ids."""
    cause = (frame.get("eager") or {}).get("cause") or "eager"
    where = "%s:%s" % (frame["file"], frame["line"]) if frame.get("file") and frame.get("line") \
        else frame.get("file")
    cids = set(frame.get("compile_ids") or [])
    fix = ""
    for x in eager_fails:
        if x.get("compile_id") in cids:
            fix = _fix(x)
    for x in limits:
        if x.get("function") == frame.get("function"):
            fix = _fix(x)
    what = "%s ran in eager mode (%s)" % (frame.get("function") or "frame " + frame["frame"],
                                          cause.replace("_", " "))
    if cause == "recompile_limit" and frame.get("limit") is not None:
        what += ": %s entries, the limit %s" % (frame.get("entries"), frame["limit"])
    return (what, _loc(where), fix)


def _counts(s):
    """kind -> (count, findings) of a tlparse-summary/1, counted as tlparse --fail-on counts;
    eager: the frames that ran in eager mode (the recompile limit hit, a frame skipped, a
    failure that fell back), as --fail-on eager counts them."""
    breaks = s.get("graph_breaks") or []
    recs = s.get("recompiles") or []
    specs = [x for x in s.get("specializations") or [] if x.get("kind") == "specialized"]
    fails = s.get("failures") or []
    limits = s.get("limits_hit") or []
    eager_fails = [x for x in fails if x.get("fell_back_to_eager")]
    eager_frames = [f for f in s.get("frames") or [] if f.get("ran_in_eager")]

    def rec_what(r):
        reason = (r.get("reasons") or [{}])[0]
        what = "recompile of %s" % r.get("function")
        if reason.get("guard"):
            what += ": guard %s failed" % reason["guard"]
        return what

    return {
        "graph-breaks": (sum(x.get("count") or 1 for x in breaks),
                         [("graph break (%dx): %s" % (x.get("count") or 1, x.get("reason")),
                           _loc(", ".join(x.get("locations") or [])), _fix(x)) for x in breaks]),
        "recompiles": (sum(x.get("count") or 1 for x in recs),
                       [("%s (%dx)" % (rec_what(x), x.get("count") or 1), _loc(x.get("location")),
                         _fix(x)) for x in recs]),
        "specializations": (sum(x.get("count") or 1 for x in specs),
                            [("specialization: %s" % (x.get("readable") or x.get("expr")),
                              _loc(x.get("location")), _fix(x)) for x in specs]),
        "failures": (len(fails), [("failure %s: %s: %s" % (x.get("compile_id"), x.get("type"),
                                                            x.get("reason")),
                                   _loc(x.get("location")), _fix(x)) for x in fails]),
        "eager": (len(eager_frames), [_eager_finding(f, eager_fails, limits)
                                      for f in eager_frames]),
    }


# ---- the hooks around each test -------------------------------------------------------------

@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_protocol(item, nextitem):
    s = _session(item.config)
    if s is not None:
        s.mark(START, item.nodeid)
    yield
    if s is not None:
        s.mark(END, item.nodeid)
        s._sync()


def _quiet_trace_logger():
    """pytest 9's log capture hooks a handler onto every logger that does not propagate, the
    trace logger too: every trace record would be formatted again and shown as an empty
    "Captured log" line. The trace goes to its file; take pytest's handlers off it."""
    internal = sys.modules.get("torch._logging._internal")
    trace_log = getattr(internal, "trace_log", None)
    if trace_log is None:
        return
    for h in list(trace_log.handlers):
        if type(h).__module__.startswith("_pytest"):
            trace_log.removeHandler(h)


# inside the logging plugin's wrappers of each phase (trylast: innermost), which attach them
@pytest.hookimpl(hookwrapper=True, trylast=True)
def pytest_runtest_setup(item):
    if _session(item.config) is not None:
        _quiet_trace_logger()
    yield


@pytest.hookimpl(hookwrapper=True, trylast=True)
def pytest_runtest_call(item):
    if _session(item.config) is not None:
        _quiet_trace_logger()
    yield


@pytest.hookimpl(hookwrapper=True, trylast=True)
def pytest_runtest_teardown(item, nextitem):
    if _session(item.config) is not None:
        _quiet_trace_logger()
    yield


_NOUN = {"graph-breaks": ("graph break", "graph breaks"), "recompiles": ("recompile", "recompiles"),
         "failures": ("failed compilation", "failed compilations"),
         "specializations": ("specialization", "specializations"),
         "eager": ("eager fallback", "eager fallbacks")}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    s = _session(item.config)
    if s is None or call.when != "call":
        return
    rep = outcome.get_result()
    problems = s.check(item)
    if not problems:
        return
    s.failed_budget.append(item.nodeid)
    said = []
    for kind, n, budget, _ in problems:
        one, many = _NOUN[kind]
        said.append("%d %s (budget %d)" % (n, one if n == 1 else many, budget))
    # the first line is what pytest's short summary shows
    lines = ["tlparse compile budget: %s; the test itself %s"
             % (", ".join(said), "passed" if rep.passed else rep.outcome)]
    for kind, n, budget, findings in problems:
        for what, where, fix in findings:
            lines.append("  " + what.replace("\n", "\n    "))
            lines.append("    at %s" % where)
            if fix:
                lines.append("    Fix: %s" % fix.replace("\n", "\n    "))
    lines.append("  report: %s" % os.path.join(s.folder, s.name(item.nodeid), "index.html"))
    text = "\n".join(lines)
    if rep.passed:
        rep.outcome = "failed"
        rep.longrepr = text
    else:
        rep.sections.append(("tlparse compile budget", text))


def pytest_sessionfinish(session, exitstatus):
    s = _session(session.config)
    if s is not None:
        out = s.finish()
        if s.worker is not None:
            # xdist's own pytest_sessionfinish wrapper sends workeroutput after this
            session.config.workeroutput["tlparse"] = out


# ---- pytest-xdist, in the controller (optional hooks: xdist may not be installed) ---------

@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    s = _session(node.config)
    if s is not None:
        s.xdist = True
        node.workerinput["tlparse"] = {"folder": s.folder, "kinds": list(s.kinds)}


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids):
    s = _session(node.config)
    if s is not None and not s.order:
        s.order = list(ids)


def pytest_runtest_logreport(report):
    # in the controller of pytest-xdist: the tests the workers failed on their budget, for the
    # log of a worker that crashes before it hands them back
    if report.when == "call" and report.failed and getattr(report, "node", None) is not None:
        s = _session(report.node.config)
        said = str(report.longrepr).startswith("tlparse compile budget") or any(
            name == "tlparse compile budget" for name, _ in report.sections)
        if s is not None and said:
            s.failed_budget.append(report.nodeid)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    s = _session(node.config)
    if s is None:
        return
    out = getattr(node, "workeroutput", {}).get("tlparse")
    if out is None:
        s.warnings.append("worker %s ended without handing back its results%s"
                          % (node.gateway.id, " (%s)" % error if error else ""))
    else:
        s.workers[out["worker"]] = out


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    s = _session(config)
    if s is None or s.worker is not None:
        return
    tr = terminalreporter
    tr.write_sep("-", "tlparse")
    for w in s.warnings:
        tr.write_line("warning: " + w)
    ours = {os.path.join(s.folder, p) for p in s.trace_logs}
    if s.trace is not None:
        ours.add(s.trace.path)
    others = [f for f in os.listdir(s.trace_dir) if os.path.join(s.trace_dir, f) not in ours]
    if others:
        tr.write_line("%d trace log%s of other processes (subprocesses) in %s, not attributed "
                      "to tests: `tlparse %s` reports on them"
                      % (len(others), "" if len(others) == 1 else "s", s.trace_dir, s.trace_dir))
    if s.trace is None and not s.trace_logs:
        tr.write_line("no torch.compile trace was written by %s (torch not imported, or "
                      "nothing compiled); reports folder: %s"
                      % ("the workers" if s.xdist else "this process", s.folder))
        return
    tr.write_line("%d test%s compiled; reports in %s (session: %s)"
                  % (len(s.results), "" if len(s.results) == 1 else "s", s.folder,
                     os.path.join(s.folder, "session", "index.html")))
    for r in s.results.values():
        c = r["counts"]
        said = ", ".join("%d %s" % (c[k], _NOUN[k][0 if c[k] == 1 else 1]) for k in KINDS if c[k])
        tr.write_line("  %s: %d compile id%s%s -> %s"
                      % (r["nodeid"], len(r["compile_ids"]), "" if len(r["compile_ids"]) == 1 else "s",
                         (", " + said) if said else "", os.path.join(s.folder, r["report"])))
    if s.xdist:
        tr.write_line("%d pytest-xdist worker%s traced (compile ids are per worker); each "
                      "one's session report is linked from %s"
                      % (len(s.trace_logs), "" if len(s.trace_logs) == 1 else "s",
                         os.path.join(s.folder, "session", "index.html")))
