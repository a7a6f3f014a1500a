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

    # 1. the suite with findings: exactly the five tests fail, each with its finding and line
    out = os.path.join(a.work, "out")
    junit = os.path.join(a.work, "junit.xml")
    rc, text = run(a.cmd, a.work, ["--strict-markers", "--tlparse=" + out,
                                   "--tlparse-fail-on", "graph-breaks,recompiles",
                                   "--junitxml", junit, "suite/test_compile.py"])
    log = os.path.join(a.work, "pytest.out")
    with open(log, "w") as f:
        f.write(text)
    if rc != 1:
        bad("the suite: pytest exited %d, not 1 (output: %s)" % (rc, log))
    got = outcomes(junit) if os.path.exists(junit) else {}
    want = dict({t: "failed" for t in FAILING}, **{t: "passed" for t in PASSING})
    if got != want:
        bad("the suite: outcomes %s, expected %s" % (sorted(got.items()), sorted(want.items())))
    for test, first in FAILING.items():
        sec = section(text, test)
        if first not in sec:
            bad("%s: no %r in its failure report:\n%s" % (test, first, sec[-1500:]))
        where = "test_compile.py:%d" % at[test[len("test_"):]]
        if not re.search(r"\n    at \S*%s\n" % re.escape(where), sec):
            bad("%s: its finding's location %s is not in its failure report" % (test, where))
        if "\n    Fix: " not in sec:
            bad("%s: no Fix: line in its failure report" % test)
        if not re.search(r"report: \S+/index\.html", sec):
            bad("%s: its failure report does not name its report" % test)
    if "AssertionError: the test's own assertion" not in section(text, "test_fails_itself"):
        bad("test_fails_itself: its own assertion is not in its failure report")
    for test in PASSING:
        if "_ %s _" % test in text:
            bad("%s passed but has a failure section" % test)
    if "torch.__trace" in text:
        bad("pytest's log capture shows the trace's records (output: %s)" % log)
    if not re.search(r"-+ tlparse -+\n7 tests compiled; reports in %s \(session: %s\)"
                     % (re.escape(out), re.escape(os.path.join(out, "session", "index.html"))),
                     text):
        bad("the terminal summary does not name the reports (output: %s)" % log)

    # the reports: one per compiling test, the session's; every link resolves
    index = json.load(open(os.path.join(out, "tests.json"))) if os.path.exists(
        os.path.join(out, "tests.json")) else {"tests": []}
    by_test = {t["nodeid"].split("::")[-1]: t for t in index["tests"]}
    if set(by_test) != COMPILING:
        bad("tests.json names %s, expected the compiling tests %s"
            % (sorted(by_test), sorted(COMPILING)))
    seen = {}
    for test, t in by_test.items():
        report = os.path.join(out, t["report"])
        if not os.path.isfile(report):
            bad("%s: no report %s" % (test, report))
            continue
        for p in check_links(os.path.dirname(report)):
            bad("%s: %s" % (test, p))
        if t["broke_budget"] != (test in FAILING):
            bad("%s: broke_budget %s in tests.json" % (test, t["broke_budget"]))
        for cid in t["compile_ids"]:
            if cid in seen:
                bad("compile id %s given to %s and %s" % (cid, seen[cid], test))
            seen[cid] = test
        # the slice's diagnosis has exactly the compile ids attributed to the test
        s = json.loads(subprocess.run([a.tlparse, "--json", os.path.join(out, t["log"])],
                                      stdout=subprocess.PIPE, text=True).stdout or "{}")
        if s.get("compile_ids") != len(t["compile_ids"]):
            bad("%s: its slice has %s compile ids, tests.json %s"
                % (test, s.get("compile_ids"), t["compile_ids"]))
    if os.path.isdir(os.path.join(out, "test_compile.py_test_no_compile")) or glob.glob(
            os.path.join(out, "*test_no_compile*")):
        bad("test_no_compile compiled nothing but has a report")
    session = os.path.join(out, "session", "index.html")
    if not os.path.isfile(session):
        bad("no session report %s" % session)
    else:
        for p in check_links(os.path.dirname(session)):
            bad("session: %s" % p)
        s = json.load(open(os.path.join(out, "session", "summary.json")))
        if s["compile_ids"] != len(seen):
            bad("the session has %d compile ids, the tests %d" % (s["compile_ids"], len(seen)))
        raw = open(os.path.join(out, "logs", "session.log"), encoding="utf-8").read()
        if "pytest_test_" in raw:
            bad("the session's log keeps the plugin's markers")

    # 2. a clean suite passes under --tlparse-fail-on any
    rc, text = run(a.cmd, a.work, ["--strict-markers", "--tlparse=" + os.path.join(a.work, "clean"),
                                   "--tlparse-fail-on", "any", "suite/test_clean_only.py"])
    if rc != 0 or not re.search(r"\b3 passed\b", text):
        bad("the clean suite: exit %d:\n%s" % (rc, text[-2000:]))
    elif not re.search(r"\n2 tests compiled; reports in ", text):
        # the second parameter reuses the code the first compiled: it compiles nothing
        bad("the clean suite: the summary does not say 2 tests compiled:\n%s" % text[-1000:])

    # 3. torch imported inside the first test (no start marker for it): its compiles are its
    # own, the next test's are the next's
    late = os.path.join(a.work, "late")
    rc, text = run(a.cmd, a.work, ["--tlparse=" + late, "--tlparse-fail-on", "graph-breaks",
                                   "suite/test_late_import.py"])
    where = "test_late_import.py:%d" % lines_of(os.path.join(suite, "test_late_import.py"))["late_import"]
    if rc != 1 or not re.search(r"\b1 failed, 1 passed\b", text) or \
            "tlparse compile budget: 1 graph break (budget 0)" not in section(text, "test_imports_torch") \
            or where not in section(text, "test_imports_torch"):
        bad("torch imported by a test: exit %d:\n%s" % (rc, text[-2000:]))
    try:
        tests = {t["nodeid"].split("::")[-1]: t["compile_ids"]
                 for t in json.load(open(os.path.join(late, "tests.json")))["tests"]}
    except (OSError, ValueError, KeyError) as e:
        tests = str(e)
    if tests != {"test_imports_torch": ["[0/0]", "[1/0]"], "test_after": ["[2/0]"]}:
        bad("torch imported by a test: tests.json gives %s" % (tests,))

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
