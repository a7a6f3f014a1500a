#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The pytest plugin of the wheel (python/tlparse_c/pytest_plugin.py) under a real pytest and a
real PyTorch: runs the suites of tests/pytest_plugin/suite/ with `python -m pytest` of the
given interpreter (pytest, torch and the wheel installed there) and checks exactly which tests
fail, with which findings and lines, and that the per-test and session reports exist and link.

    check.py --label 2.13 --work DIR --tlparse build/tlparse -- build/pytest-2.13/bin/python
    check.py --label 2.6 --work DIR --tlparse build/tlparse -- ../shared/tools/torch-python   (PYTHONPATH and PATH
                                                 naming where pytest and the wheel are)

The tlparse the plugin runs is the wheel's. Prints "pytest_plugin LABEL: ok" or the problems
(exit 1).
"""

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "torch"))
from torch_check import check_links  # noqa: E402  (every local link of a report resolves)

# test -> (its own outcome under --tlparse-fail-on graph-breaks,recompiles, the first line of
# its budget failure or None); the tests not named pass
FAILING = {
    "test_graph_break": "tlparse compile budget: 1 graph break (budget 0); the test itself passed",
    "test_recompile": "tlparse compile budget: 1 recompile (budget 0); the test itself passed",
    "test_budget_exceeded": "tlparse compile budget: 1 graph break (budget 0); the test itself passed",
    "test_eager": "tlparse compile budget: 1 eager fallback (budget 0); the test itself passed",
    "test_fails_itself": "tlparse compile budget: 1 graph break (budget 0); the test itself failed",
}
PASSING = {"test_clean", "test_no_compile", "test_budget_met"}
COMPILING = set(FAILING) | {"test_clean", "test_budget_met"}


def run(cmd, cwd, args):
    p = subprocess.run(cmd + ["-m", "pytest", "-p", "no:cacheprovider", "-q", "-rf"] + args,
                       cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


def outcomes(junit):
    """test name -> passed|failed|error|skipped, from pytest's --junitxml."""
    out = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        state = "passed"
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                state = {"failure": "failed"}.get(child.tag, child.tag)
        out[case.get("name")] = state
    return out


def lines_of(path):
    """NAME -> line number of each "# LINE:NAME" comment of the suite."""
    got = {}
    for n, text in enumerate(open(path, encoding="utf-8"), 1):
        m = re.search(r"# LINE:(\w+)", text)
        if m:
            got[m.group(1)] = n
    return got


def section(output, test):
    """The failure section pytest printed for test (from its ____ test ____ header on)."""
    m = re.search(r"_{3,} %s _{3,}\n(.*?)(?=\n_{3,} \w+ _{3,}\n|\n=+ )" % re.escape(test),
                  output, re.S)
    return m.group(1) if m else ""


def check_suite(a, bad, at, workers):
    """Run suite/test_compile.py under --tlparse (on `workers` pytest-xdist workers, or none)
    and check it; return what must not depend on xdist: the outcomes, each failing test's
    budget report (its lines from "tlparse compile budget" up to its report's path) and each
    compiling test's number of compile ids and counts."""
    tag = "" if workers is None else "-xdist"
    how = "the suite" if workers is None else "the suite under pytest -n %d" % workers
    out = os.path.join(a.work, "out" + tag)
    junit = os.path.join(a.work, "junit%s.xml" % tag)
    extra = [] if workers is None else ["-n", str(workers)]
    rc, text = run(a.cmd, a.work, extra + ["--strict-markers", "--tlparse=" + out,
                                           "--tlparse-fail-on", "graph-breaks,recompiles",
                                           "--junitxml", junit, "suite/test_compile.py"])
    log = os.path.join(a.work, "pytest%s.out" % tag)
    with open(log, "w") as f:
        f.write(text)
    if rc != 1:
        bad("%s: pytest exited %d, not 1 (output: %s)" % (how, rc, log))
    got = outcomes(junit) if os.path.exists(junit) else {}
    want = dict({t: "failed" for t in FAILING}, **{t: "passed" for t in PASSING})
    if got != want:
        bad("%s: outcomes %s, expected %s" % (how, sorted(got.items()), sorted(want.items())))
    findings = {}
    for test, first in FAILING.items():
        sec = section(text, test)
        m = re.search(r"^tlparse compile budget: .*?(?=^  report: )", sec, re.S | re.M)
        findings[test] = m.group(0) if m else None
        if first not in sec:
            bad("%s: %s: no %r in its failure report:\n%s" % (how, test, first, sec[-1500:]))
        where = "test_compile.py:%d" % at[test[len("test_"):]]
        if not re.search(r"\n    at \S*%s\n" % re.escape(where), sec):
            bad("%s: %s: its finding's location %s is not in its failure report"
                % (how, test, where))
        if "\n    Fix: " not in sec:
            bad("%s: %s: no Fix: line in its failure report" % (how, test))
        named = re.search(r"report: (\S+/index\.html)", sec)
        if not named or not os.path.isfile(named.group(1)):
            bad("%s: %s: its failure report does not name its report" % (how, test))
    if "AssertionError: the test's own assertion" not in section(text, "test_fails_itself"):
        bad("%s: test_fails_itself: its own assertion is not in its failure report" % how)
    for test in PASSING:
        if "_ %s _" % test in text:
            bad("%s: %s passed but has a failure section" % (how, test))
    if "torch.__trace" in text:
        bad("%s: pytest's log capture shows the trace's records (output: %s)" % (how, log))
    if not re.search(r"-+ tlparse -+\n7 tests compiled; reports in %s \(session: %s\)"
                     % (re.escape(out), re.escape(os.path.join(out, "session", "index.html"))),
                     text):
        bad("%s: the terminal summary does not name the reports (output: %s)" % (how, log))
    if "not attributed" in text or "warning: " in text:
        bad("%s: the terminal summary warns (output: %s)" % (how, log))

    # the reports: one per compiling test, the session's; every link resolves
    index = json.load(open(os.path.join(out, "tests.json"))) if os.path.exists(
        os.path.join(out, "tests.json")) else {"tests": []}
    by_test = {t["nodeid"].split("::")[-1]: t for t in index["tests"]}
    if set(by_test) != COMPILING:
        bad("%s: tests.json names %s, expected the compiling tests %s"
            % (how, sorted(by_test), sorted(COMPILING)))
    seen = {}  # (worker, compile id) -> test: a worker's compile ids are its own
    compiles = {}
    for test, t in by_test.items():
        compiles[test] = (len(t["compile_ids"]), t["counts"])
        report = os.path.join(out, t["report"])
        if not os.path.isfile(report):
            bad("%s: %s: no report %s" % (how, test, report))
            continue
        for p in check_links(os.path.dirname(report)):
            bad("%s: %s: %s" % (how, test, p))
        if t["broke_budget"] != (test in FAILING):
            bad("%s: %s: broke_budget %s in tests.json" % (how, test, t["broke_budget"]))
        for cid in t["compile_ids"]:
            key = (t.get("worker"), cid)
            if key in seen:
                bad("%s: compile id %s given to %s and %s" % (how, key, seen[key], test))
            seen[key] = test
        # the slice's diagnosis has exactly the compile ids attributed to the test
        s = json.loads(subprocess.run([a.tlparse, "--json", os.path.join(out, t["log"])],
                                      stdout=subprocess.PIPE, text=True).stdout or "{}")
        if s.get("compile_ids") != len(t["compile_ids"]):
            bad("%s: %s: its slice has %s compile ids, tests.json %s"
                % (how, test, s.get("compile_ids"), t["compile_ids"]))
    if glob.glob(os.path.join(out, "*test_no_compile*")):
        bad("%s: test_no_compile compiled nothing but has a report" % how)
    session = os.path.join(out, "session", "index.html")
    if not os.path.isfile(session):
        bad("%s: no session report %s" % (how, session))
    elif workers is None:
        for p in check_links(os.path.dirname(session)):
            bad("session: %s" % p)
        s = json.load(open(os.path.join(out, "session", "summary.json")))
        if s["compile_ids"] != len(seen):
            bad("the session has %d compile ids, the tests %d" % (s["compile_ids"], len(seen)))
        raw = open(os.path.join(out, "logs", "session.log"), encoding="utf-8").read()
        if "pytest_test_" in raw:
            bad("the session's log keeps the plugin's markers")
    else:
        # session/index.html links each worker's session report and each test's report
        ws = {w["worker"]: w for w in index.get("workers", [])}
        ran = {t.get("worker") for t in index["tests"]}
        if sorted(ws) != ["gw%d" % i for i in range(workers)] or ran != set(ws):
            bad("%s: tests.json: workers %s, tests run on %s: not every worker compiled"
                % (how, sorted(ws), sorted(ran, key=str)))
        for p in check_links(out):  # the index links out of session/, to the tests' reports
            bad("%s: %s" % (how, p))
        html = open(session, encoding="utf-8").read()
        total = 0
        for wid, w in sorted(ws.items()):
            link = os.path.relpath(os.path.join(out, w["report"]), os.path.dirname(session))
            if 'href="%s"' % link not in html:
                bad("%s: session/index.html does not link %s" % (how, link))
            s = json.load(open(os.path.join(out, os.path.dirname(w["report"]), "summary.json")))
            if s["compile_ids"] != w["compile_ids"]:
                bad("%s: %s: %s compile ids in its report, %s in tests.json"
                    % (how, wid, s["compile_ids"], w["compile_ids"]))
            total += s["compile_ids"]
            if "pytest_test_" in open(os.path.join(out, w["log"]), encoding="utf-8").read():
                bad("%s: %s's session log keeps the plugin's markers" % (how, wid))
        if total != len(seen):
            bad("%s: the workers' sessions have %d compile ids, the tests %d"
                % (how, total, len(seen)))
        for test, t in by_test.items():
            if 'href="../%s"' % t["report"] not in html:
                bad("%s: session/index.html does not link %s's report" % (how, test))
    return {"outcomes": got, "findings": findings, "compiles": compiles}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--label", required=True)
    ap.add_argument("--work", required=True, help="a scratch folder (emptied)")
    ap.add_argument("--tlparse", required=True, help="a tlparse to read the slices with")
    ap.add_argument("cmd", nargs="+", help="the python to run pytest with, and its arguments")
    a = ap.parse_args()
    if "/" in a.cmd[0]:  # pytest runs in the scratch folder
        a.cmd[0] = os.path.abspath(a.cmd[0])
    a.tlparse = os.path.abspath(a.tlparse)
    problems = []

    def bad(msg):
        problems.append(msg)

    shutil.rmtree(a.work, ignore_errors=True)
    suite = os.path.join(a.work, "suite")
    shutil.copytree(os.path.join(HERE, "suite"), suite)
    source = os.path.join(suite, "test_compile.py")
    at = lines_of(source)

    # 1. the suite with findings: exactly the five tests fail, each with its finding and line;
    # 1x. the same under pytest-xdist on two workers: the same failures with the same findings,
    # the same compile ids per test (numbered by each worker), a session report per worker
    plain = check_suite(a, bad, at, None)
    xdist = check_suite(a, bad, at, 2)
    for what in ("outcomes", "findings", "compiles"):
        if plain[what] != xdist[what]:
            bad("pytest -n 2: its %s differ from those without xdist:\n%s\nagainst\n%s"
                % (what, xdist[what], plain[what]))

    # 2. a clean suite passes under --tlparse-fail-on any
    rc, text = run(a.cmd, a.work, ["--strict-markers", "--tlparse=" + os.path.join(a.work, "clean"),
                                   "--tlparse-fail-on", "any", "suite/test_clean_only.py"])
    if rc != 0 or not re.search(r"\b3 passed\b", text):
        bad("the clean suite: exit %d:\n%s" % (rc, text[-2000:]))
    elif not re.search(r"\n2 tests compiled; reports in ", text):
        # the second parameter reuses the code the first compiled: it compiles nothing
        bad("the clean suite: the summary does not say 2 tests compiled:\n%s" % text[-1000:])

    # 3. torch imported inside the first test (no start marker for it): its compiles are its
    # own, the next test's are the next's; under pytest-xdist the same (when the next test
    # runs on the other worker, it imports torch there itself: its compile id is [0/0] there)
    where = "test_late_import.py:%d" % lines_of(os.path.join(suite, "test_late_import.py"))["late_import"]
    for workers in (None, 2):
        late = os.path.join(a.work, "late" if workers is None else "late-xdist")
        how = "torch imported by a test" + ("" if workers is None else " (pytest -n 2)")
        extra = [] if workers is None else ["-n", str(workers)]
        rc, text = run(a.cmd, a.work, extra + ["--tlparse=" + late, "--tlparse-fail-on",
                                               "graph-breaks", "suite/test_late_import.py"])
        if rc != 1 or not re.search(r"\b1 failed, 1 passed\b", text) or \
                "tlparse compile budget: 1 graph break (budget 0)" not in section(text, "test_imports_torch") \
                or where not in section(text, "test_imports_torch"):
            bad("%s: exit %d:\n%s" % (how, rc, text[-2000:]))
        try:
            got = json.load(open(os.path.join(late, "tests.json")))["tests"]
            tests = {t["nodeid"].split("::")[-1]: t["compile_ids"] for t in got}
            if workers is not None and len({t["worker"] for t in got}) == 2:
                tests["test_after"] = ["[2/0]" if c == "[0/0]" else c for c in tests["test_after"]]
        except (OSError, ValueError, KeyError) as e:
            tests = str(e)
        if tests != {"test_imports_torch": ["[0/0]", "[1/0]"], "test_after": ["[2/0]"]}:
            bad("%s: tests.json gives %s" % (how, tests))

    # 3x. a pytest-xdist worker dies in a test: its tests' reports are made from its trace log
    died = os.path.join(a.work, "died")
    rc, text = run(a.cmd, a.work, ["-n", "2", "--dist", "loadfile", "--max-worker-restart", "0",
                                   "--tlparse=" + died,
                                   "--tlparse-fail-on", "graph-breaks",
                                   "suite/test_worker_crash.py"])
    where = "test_worker_crash.py:%d" % lines_of(
        os.path.join(suite, "test_worker_crash.py"))["before"]
    if rc != 1 or not re.search(r"\b2 failed, 1 passed\b", text) or \
            "tlparse compile budget: 1 graph break (budget 0)" not in section(text, "test_before") \
            or where not in section(text, "test_before") or \
            not re.search(r"warning: gw\d: it crashed: its tests' reports were made from its "
                          r"trace log\n", text):
        bad("a worker that dies: exit %d:\n%s" % (rc, text[-2000:]))
    try:
        got = json.load(open(os.path.join(died, "tests.json")))
        tests = {t["nodeid"].split("::")[-1]: (len(t["compile_ids"]), t["broke_budget"])
                 for t in got["tests"]}
        for t in got["tests"]:
            if not os.path.isfile(os.path.join(died, t["report"])):
                bad("a worker that dies: no report %s" % t["report"])
        dead = {t["worker"] for t in got["tests"] if t["nodeid"].endswith("::test_dies")}
        if {t["worker"] for t in got["tests"] if t["nodeid"].endswith("::test_before")} != dead:
            bad("a worker that dies: test_before and test_dies ran on different workers")
    except (OSError, ValueError, KeyError) as e:
        tests = str(e)
    if tests != {"test_before": (2, True), "test_dies": (1, False), "test_also": (1, False)}:
        bad("a worker that dies: tests.json gives %s" % (tests,))

    # 4. without --tlparse: the markers are registered, and only the test's own failure fails
    junit2 = os.path.join(a.work, "junit2.xml")
    rc, text = run(a.cmd, a.work, ["--strict-markers", "--junitxml", junit2,
                                   "suite/test_compile.py"])
    got = outcomes(junit2) if os.path.exists(junit2) else {}
    want = {t: "passed" for t in list(FAILING) + list(PASSING)}
    want["test_fails_itself"] = "failed"
    if rc != 1 or got != want:
        bad("without --tlparse: exit %d, outcomes %s:\n%s" % (rc, sorted(got.items()), text[-1500:]))
    if "tlparse compile budget" in text:
        bad("without --tlparse, a budget was checked")

    # 5. `--tlparse PATH` where PATH is a test file: a usage error, not a report into it
    rc, text = run(a.cmd, a.work, ["--tlparse", "suite/test_clean_only.py"])
    if rc != 4 or "write the folder as --tlparse=DIR" not in text:
        bad("--tlparse followed by a test path: exit %d:\n%s" % (rc, text[-1000:]))
    rc, text = run(a.cmd, a.work, ["--tlparse-fail-on", "graph-breaks,bogus", "suite/test_clean_only.py"])
    if rc != 4 or "unknown kind 'bogus'" not in text:
        bad("--tlparse-fail-on bogus: exit %d:\n%s" % (rc, text[-1000:]))

    for p in problems:
        print("pytest_plugin %s: FAIL: %s" % (a.label, p))
    if not problems:
        print("pytest_plugin %s: ok" % a.label)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
