#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""`tlparse diff`, checked on pairs of runs made from our fixtures (and the corpus's logs when
../shared is there):

- a run against itself: no change at all;
- a run against a copy with its graph break removed, a recompile added (a new compile of
  predict() for a new guard) and its compile times doubled: exactly those findings, and the
  frame compiled once more;
- a run against a copy whose frames are numbered otherwise (compile ids renumbered): frame for
  frame the same, no change;
- a run against a copy whose user lines all moved down (an edit at the top of the file): no
  change either (findings are matched by function when their line moved);
- the same for a TORCH_LOGS text log;
and each pair with every kind of input on each side: the log, its summary.json (printed by
`tlparse --json`), and a report folder holding one, giving the same diff.

    diff_check.py TLPARSE SHARED_DIR
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DEMO = os.path.join(HERE, "fixtures", "demo.log")
USER_FILE = "/home/user/projects/demo/demo_model.py"

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


# ---- a trace as entries, and back --------------------------------------------------------

ENV = re.compile(r"^(\S+ \S+ \S+ \S+\] )(\{.*\})$")


def read_entries(path):
    """[prefix, envelope dict, payload lines (without their tab)] per entry."""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("\t") and out:
                out[-1][2].append(line[1:])
                continue
            m = ENV.match(line)
            assert m, line[:80]
            out.append([m.group(1), json.loads(m.group(2)), []])
    return out


def write_entries(entries, path):
    with open(path, "w", encoding="utf-8") as f:
        for prefix, env, payload in entries:
            if payload:
                env = dict(env)
                env["has_payload"] = hashlib.md5("\n".join(payload).encode()).hexdigest()
            f.write(prefix + json.dumps(env) + "\n")
            for p in payload:
                f.write("\t" + p + "\n")


def cid_of(env):
    return (env.get("frame_id"), env.get("frame_compile_id"), env.get("attempt"))


# ---- the changes ---------------------------------------------------------------------------

def fixed_new_slower(entries):
    """Its graph break removed, compile times doubled, predict() compiled once more."""
    out = []
    for prefix, env, payload in entries:
        env = json.loads(json.dumps(env))
        m = env.get("compilation_metrics")
        if m is not None:
            m["restart_reasons"] = []
            for k in ("entire_frame_compile_time_s", "dynamo_cumulative_compile_time_us"):
                if isinstance(m.get(k), (int, float)):
                    m[k] = m[k] * 2
        out.append([prefix, env, list(payload)])
    # the compile of predict() ([3/0]) again, as [3/1], for a new guard
    start = next(e for e in entries if "dynamo_start" in e[1] and cid_of(e[1])[:2] == (3, 0))
    metrics = next(e for e in entries
                   if "compilation_metrics" in e[1] and cid_of(e[1])[:2] == (3, 0))
    prefix = metrics[0]
    s = json.loads(json.dumps(start[1]))
    s["frame_compile_id"] = 1
    reasons = {"artifact": {"name": "recompile_reasons", "encoding": "json"},
               "compiled_autograd_id": None, "frame_id": 3, "frame_compile_id": 1, "attempt": 0}
    m = json.loads(json.dumps(metrics[1]))
    m["frame_compile_id"] = 1
    cm = m["compilation_metrics"]
    cm["recompile_reason"] = "tensor 'L['x']' stride mismatch at index 0. expected 64, actual 1"
    cm["entire_frame_compile_time_s"] = 0.5
    out.append([start[0], s, []])
    out.append([prefix, reasons, [json.dumps([cm["recompile_reason"]])]])
    out.append([prefix, m, []])
    return out


def renumbered(entries):
    """Frame f becomes frame 10 + f: every compile id has another number."""
    def cid_text(t):
        return re.sub(r"\b(\d+)/(\d+)\b", lambda m: "%d/%s" % (int(m.group(1)) + 10, m.group(2)), t)
    out = []
    for prefix, env, payload in entries:
        env = json.loads(json.dumps(env))
        if isinstance(env.get("frame_id"), int):
            env["frame_id"] += 10
        for v in env.values():
            if isinstance(v, dict) and isinstance(v.get("compile_id"), str):
                v["compile_id"] = cid_text(v["compile_id"])
        out.append([prefix, env, [cid_text(p) if '"compile_id"' in p else p for p in payload]])
    return out


def lines_moved(entries, by=3):
    """Every line of the user's file moves down by `by` (an edit at the top of the file)."""
    user_ids = {e[1]["str"][1] for e in entries if "str" in e[1] and e[1]["str"][0] == USER_FILE}

    def move_stack(stack):
        for fr in stack or []:
            if fr.get("filename") in user_ids:
                fr["line"] += by

    def move_name(name):
        return re.sub(r"_at_(\d+)$", lambda m: "_at_%d" % (int(m.group(1)) + by), name or "")

    out = []
    for prefix, env, payload in entries:
        env = json.loads(json.dumps(env))
        move_stack(env.get("stack"))
        if "dynamo_start" in env:
            move_stack(env["dynamo_start"].get("stack"))
        m = env.get("compilation_metrics")
        if m is not None and m.get("co_filename") == USER_FILE:
            m["co_firstlineno"] += by
            m["co_name"] = move_name(m["co_name"])
        for k in ("symbolic_shape_specialization", "guard_added_fast"):
            if k in env:
                move_stack(env[k].get("user_stack"))
                move_stack(env[k].get("stack"))
        payload = [re.sub(re.escape(USER_FILE) + r":(\d+)",
                          lambda m: "%s:%d" % (USER_FILE, int(m.group(1)) + by), p)
                   for p in payload]
        out.append([prefix, env, payload])
    return out


# ---- a TORCH_LOGS text and its changes ----------------------------------------------------

P = "V1120 14:09:51.149000 1018497 torch/_dynamo/"


def text_log(frame=0, other=1, line_shift=0, graph_break=True, extra_recompile=False):
    L = lambda n: n + line_shift  # noqa: E731
    out = [
        P + "guards.py:2997] [%d/1] [__recompiles] Recompiling function fn in /w/m.py:%d" % (frame, L(3)),
        P + "guards.py:2997] [%d/1] [__recompiles]     triggered by the following guard failure(s):" % frame,
        P + "guards.py:2997] [%d/1] [__recompiles]     - %d/0: tensor 'L['x']' size mismatch at index 0. expected 4, actual 5" % (frame, frame),
    ]
    if extra_recompile:
        out += [
            P + "guards.py:2997] [%d/2] [__recompiles] Recompiling function fn in /w/m.py:%d" % (frame, L(3)),
            P + "guards.py:2997] [%d/2] [__recompiles]     triggered by the following guard failure(s):" % frame,
            P + "guards.py:2997] [%d/2] [__recompiles]     - %d/1: L['c'] == 1.5" % (frame, frame),
        ]
    if graph_break:
        out += [
            P + "symbolic_convert.py:611] [%d/0] [__graph_breaks] Graph break in user code at /w/m.py:%d" % (other, L(9)),
            P + "symbolic_convert.py:611] [%d/0] [__graph_breaks] Graph Break Reason: Data-dependent jump" % other,
            P + "symbolic_convert.py:611] [%d/0] [__graph_breaks] User code traceback:" % other,
            P + "symbolic_convert.py:611] [%d/0] [__graph_breaks]   File \"/w/m.py\", line %d, in g" % (other, L(9)),
            P + "symbolic_convert.py:611] [%d/0] [__graph_breaks]     if x.sum() > 0:" % other,
        ]
    return "\n".join(out) + "\n"


# ---- running ------------------------------------------------------------------------------

def run(args, expect=0):
    p = subprocess.run(args, capture_output=True, text=True)
    check(p.returncode == expect, "%s: exit %d, wanted %d: %s" % (
        " ".join(args[1:]), p.returncode, expect, p.stderr.strip()[-400:]))
    return p


class Kinds:
    """A log in its three kinds: the log, its summary.json, a report folder holding one."""

    def __init__(self, tl, tmp, name, log):
        self.log = log
        self.summary = os.path.join(tmp, name + ".summary.json")
        self.report = os.path.join(tmp, name + "_report")
        with open(self.summary, "w") as f:
            f.write(run([tl, "--json", log]).stdout)
        run([tl, log, "-o", self.report, "--no-browser"])

    def all(self):
        return [("log", self.log), ("summary", self.summary), ("report", self.report)]


def strip_sides(d):
    d = dict(d)
    d.pop("before")
    d.pop("after")
    return d


def diff_all_kinds(tl, a, b, what):
    """The diff of a and b, checked to be the same whatever each side's kind."""
    first = None
    for ka, pa in a.all():
        for kb, pb in b.all():
            p = run([tl, "diff", "--json", pa, pb])
            try:
                d = json.loads(p.stdout)
            except ValueError:
                check(False, "%s (%s, %s): not JSON: %r" % (what, ka, kb, p.stdout[:200]))
                continue
            check(d["schema"] == "tlparse-diff/1", what + ": schema")
            want_kind = {"log": None, "summary": "summary", "report": "summary"}
            for side, k in (("before", ka), ("after", kb)):
                if want_kind[k]:
                    check(d[side]["kind"] == "summary", "%s: %s kind %s" % (what, side, d[side]["kind"]))
                else:
                    check(d[side]["kind"] in ("torch_trace", "torch_logs"),
                          "%s: %s kind %s" % (what, side, d[side]["kind"]))
            if first is None:
                first = strip_sides(d)
            else:
                check(strip_sides(d) == first,
                      "%s: the diff of %s against %s differs from log against log" % (what, ka, kb))
    return first


def lists(d, key):
    return {k: d[key][k] for k in ("new", "changed", "fixed")}


def empty_diff(d, what):
    check(d["changes"] == 0, "%s: %d changes, wanted none: %s" % (what, d["changes"], json.dumps(
        {k: d[k] for k in ("failures", "recompiles", "graph_breaks", "specializations", "frames", "graphs")})[:800]))
    for k in ("failures", "recompiles", "graph_breaks", "specializations"):
        check(lists(d, k) == {"new": [], "changed": [], "fixed": []}, "%s: %s not empty" % (what, k))
    check(d["frames"]["more"] == [] and d["frames"]["fewer"] == [], what + ": frames changed")
    check(d["graphs"]["changed"] == [], what + ": graphs changed")


def trace_pairs(tl, tmp):
    entries = read_entries(DEMO)
    logs = {}
    for name, change in (("same", lambda e: e), ("fixed_new_slower", fixed_new_slower),
                         ("renumbered", renumbered), ("moved", lines_moved)):
        path = os.path.join(tmp, name + ".log")
        write_entries(change(entries), path)
        logs[name] = Kinds(tl, tmp, name, path)
    base = Kinds(tl, tmp, "demo", DEMO)

    d = diff_all_kinds(tl, base, logs["same"], "demo vs itself")
    if d:
        empty_diff(d, "demo vs itself")
        check(d["recompiles"]["unchanged"] == 1 and d["graph_breaks"]["unchanged"] == 1,
              "demo vs itself: unchanged counts %s %s" % (d["recompiles"]["unchanged"], d["graph_breaks"]["unchanged"]))
        check(d["frames"]["unchanged"] == 4, "demo vs itself: %d frames unchanged" % d["frames"]["unchanged"])
        check(d["graphs"]["matched"] == 5 and d["graphs"]["same"] == 5 and d["graphs"]["by_hash"] == 5,
              "demo vs itself: graphs %s" % d["graphs"])

    for name in ("renumbered", "moved"):
        d = diff_all_kinds(tl, base, logs[name], "demo vs " + name)
        if d:
            empty_diff(d, "demo vs " + name)
            check(d["frames"]["unchanged"] == 4, "demo vs %s: frames %s" % (name, d["frames"]))
            check(d["graphs"]["matched"] == 5 and d["graphs"]["same"] == 5,
                  "demo vs %s: graphs %s" % (name, d["graphs"]))

    d = diff_all_kinds(tl, base, logs["fixed_new_slower"], "demo vs fixed_new_slower")
    if d:
        gb = d["graph_breaks"]
        check(gb["new"] == [] and gb["changed"] == [] and len(gb["fixed"]) == 1,
              "fixed_new_slower: graph breaks %s" % gb)
        if len(gb["fixed"]) == 1:
            f = gb["fixed"][0]
            check(f["reason"].startswith("Graph break due to unsupported builtin demo_ext._C.fast_scale"),
                  "fixed break reason " + f["reason"][:60])
            check((f["location"], f["function"], f["count_before"], f["count_after"]) ==
                  (USER_FILE + ":25", "attention_block", 1, 0), "fixed break %s" % f)
            check(f["compile_ids_before"] == ["[1/0]"] and f["compile_ids_after"] == [],
                  "fixed break compile ids %s" % f)
            check(f["category"] == "c_extension", "fixed break category %s" % f["category"])
        rc = d["recompiles"]
        check(rc["fixed"] == [] and rc["changed"] == [] and len(rc["new"]) == 1,
              "fixed_new_slower: recompiles %s" % rc)
        if len(rc["new"]) == 1:
            n = rc["new"][0]
            check((n["guard"], n["function"], n["location"], n["count_before"], n["count_after"],
                   n["compile_ids_after"]) ==
                  ("tensor 'L['x']' stride mismatch at index 0", "predict", USER_FILE + ":30", 0, 1,
                   ["[3/1]"]), "new recompile %s" % n)
        check(rc["unchanged"] == 1, "the recompile of forward is unchanged")
        for k in ("failures", "specializations"):
            check(lists(d, k) == {"new": [], "changed": [], "fixed": []}, "fixed_new_slower: %s %s" % (k, d[k]))
        fr = d["frames"]
        check(fr["fewer"] == [] and len(fr["more"]) == 1, "fixed_new_slower: frames %s" % fr)
        if len(fr["more"]) == 1:
            m = fr["more"][0]
            check((m["function"], m["location"], m["compiles_before"], m["compiles_after"],
                   m["compile_ids_before"], m["compile_ids_after"]) ==
                  ("predict", USER_FILE + ":30", 1, 2, ["[3/0]"], ["[3/0]", "[3/1]"]), "frame %s" % m)
        ct = d["compile_time"]
        check(ct["after_s"] is not None and ct["before_s"] is not None and
              abs(ct["after_s"] - (2 * ct["before_s"] + 0.5)) < 1e-6,
              "compile time %s -> %s" % (ct["before_s"], ct["after_s"]))
        check(abs(ct["change_pct"] - 100 * (ct["after_s"] - ct["before_s"]) / ct["before_s"]) < 1e-3,
              "change_pct %s" % ct["change_pct"])
        check(len(ct["frames"]) == 4, "compile time of %d frames" % len(ct["frames"]))
        if ct["frames"]:
            top = ct["frames"][0]
            check(top["function"] == "forward" and abs(top["change_s"] - top["before_s"]) < 1e-9,
                  "the largest change first: %s" % top)
            check(all(abs(x["after_s"] - 2 * x["before_s"]) < 1e-6 for x in ct["frames"]
                      if x["function"] != "predict"), "every frame's time doubled")
        check(d["cache"]["before"] == d["cache"]["after"], "cache unchanged")
        check(d["graphs"]["changed"] == [], "graphs unchanged: %s" % d["graphs"])
        check(d["changes"] == 3, "fixed_new_slower: %d changes, wanted 3" % d["changes"])

        # --fail-on, as a CI gate
        a, b = DEMO, logs["fixed_new_slower"].log
        p = run([tl, "diff", "--summary", "--fail-on", "new-recompiles", a, b], expect=1)
        check("tlparse: --fail-on: 1 new recompile\n" == p.stderr, "fail-on message %r" % p.stderr)
        run([tl, "diff", "--summary", "--fail-on", "new-graph-breaks,new-failures", a, b], expect=0)
        p = run([tl, "diff", "--json", "--fail-on", "slower:50", a, b], expect=1)
        check("compile time" in p.stderr and "more than 50%" in p.stderr, "slower message %r" % p.stderr)
        run([tl, "diff", "--json", "--fail-on", "slower:500%", a, b], expect=0)
        run([tl, "diff", "--json", "--fail-on", "new-graph-breaks", b, a], expect=1)
        run([tl, "diff", "--json", "--fail-on", "new", a, a], expect=0)
        p = run([tl, "diff", "--summary", a, b])
        first = p.stdout.splitlines()[0] if p.stdout else ""
        check(first == "tlparse diff: %s (torch_trace) -> %s (torch_trace)" % (a, b), "text head %r" % first)
        check("\x1b[" not in p.stdout, "no colour when not on a terminal")
        check("FIXED" in p.stdout and "NEW" in p.stdout, "text names what is fixed and new")

        # the page: a folder with the diff and each side's report
        out = os.path.join(tmp, "tl_diff")
        p = run([tl, "diff", "--no-browser", "-o", out, a, b])
        for f in ("index.html", "diff.json", "before/index.html", "after/index.html",
                  "before/summary.json", "after/summary.json"):
            check(os.path.isfile(os.path.join(out, f)), "diff folder lacks " + f)
        with open(os.path.join(out, "diff.json")) as f:
            check(strip_sides(json.load(f)) == d, "diff.json is the --json diff")
        with open(os.path.join(out, "index.html")) as f:
            page = f.read()
        check('href="before/index.html' in page and 'href="after/index.html' in page,
              "the page links each side's report")
        check('href="after/index.html#[3/1]"' in page, "a compile id links into its side's report")
        run([tl, "diff", "--no-browser", "-o", out, a, b], expect=1)  # exists
        run([tl, "diff", "--no-browser", "--overwrite", "-o", out, a, b])
        # a summary side links to the report it was found in
        out2 = os.path.join(tmp, "sub", "tl_diff2")
        run([tl, "diff", "--no-browser", "-o", out2, base.report, logs["same"].summary])
        with open(os.path.join(out2, "index.html")) as f:
            page = f.read()
        check('href="../../demo_report/index.html' in page, "a report side is linked relatively")
        check(not os.path.exists(os.path.join(out2, "before")), "a summary side gets no report copy")


def text_pairs(tl, tmp):
    def kinds(name, text):
        path = os.path.join(tmp, name + ".txt")
        with open(path, "w") as f:
            f.write(text)
        return Kinds(tl, tmp, name, path)

    base = kinds("t_base", text_log())
    d = diff_all_kinds(tl, base, kinds("t_same", text_log()), "text vs itself")
    if d:
        empty_diff(d, "text vs itself")
        check(d["compile_time"]["before_s"] is None and d["compile_time"]["change_pct"] is None,
              "a text log has no compile times")
    d = diff_all_kinds(tl, base, kinds("t_renum", text_log(frame=5, other=7, line_shift=2)),
                       "text vs renumbered and moved")
    if d:
        empty_diff(d, "text vs renumbered and moved")
    d = diff_all_kinds(tl, base, kinds("t_changed", text_log(graph_break=False, extra_recompile=True)),
                       "text vs changed")
    if d:
        gb = d["graph_breaks"]
        check(len(gb["fixed"]) == 1 and not gb["new"] and not gb["changed"], "text: breaks %s" % gb)
        if gb["fixed"]:
            f = gb["fixed"][0]
            check((f["reason"], f["location"], f["function"], f["count_before"], f["count_after"]) ==
                  ("Data-dependent jump", "/w/m.py:9", "g", 1, 0), "text: fixed break %s" % f)
        rc = d["recompiles"]
        check(len(rc["new"]) == 1 and not rc["fixed"] and not rc["changed"], "text: recompiles %s" % rc)
        if rc["new"]:
            n = rc["new"][0]
            check((n["guard"], n["function"], n["location"], n["count_after"]) ==
                  ("L['c'] == <value>", "fn", "/w/m.py:3", 1), "text: new recompile %s" % n)


def corpus_pairs(tl, tmp, shared):
    logs = os.path.join(shared, "corpus", "logs")
    if not os.path.isdir(logs):
        print("diff: ../shared absent: the pairs made from its logs are not checked (%s)" % logs)
        return
    for name in sorted(os.listdir(logs)):
        path = os.path.join(logs, name)
        if not os.path.isfile(path) or not name.endswith(".log"):
            continue
        p = run([tl, "diff", "--json", path, path])
        try:
            d = json.loads(p.stdout)
        except ValueError:
            check(False, "corpus %s: not JSON" % name)
            continue
        empty_diff(d, "corpus %s vs itself" % name)
        try:
            entries = read_entries(path)
        except (AssertionError, ValueError, UnicodeDecodeError):
            continue
        if not any(isinstance(e[1].get("frame_id"), int) for e in entries):
            continue
        ren = os.path.join(tmp, "ren_" + name)
        write_entries(renumbered(entries), ren)
        p = run([tl, "diff", "--json", path, ren])
        try:
            d = json.loads(p.stdout)
        except ValueError:
            check(False, "corpus %s renumbered: not JSON" % name)
            continue
        empty_diff(d, "corpus %s vs renumbered" % name)


def errors(tl, tmp):
    p = run([tl, "diff", "--json", DEMO, os.path.join(tmp, "missing.log")], expect=1)
    check("missing.log" in p.stderr, "a missing side is named: %r" % p.stderr)
    ranks = os.path.join(tmp, "ranks.json")
    with open(ranks, "w") as f:
        f.write('{"schema": "tlparse-ranks/1", "ranks": []}\n')
    p = run([tl, "diff", "--json", DEMO, ranks], expect=1)
    check("multi-rank summary" in p.stderr, "a multi-rank summary is refused: %r" % p.stderr)
    bad = os.path.join(tmp, "bad.json")
    with open(bad, "w") as f:
        f.write('{"schema": "tlparse-summary/1", "compile_ids": ')
    p = run([tl, "diff", "--json", DEMO, bad], expect=1)
    check("bad.json: not a summary" in p.stderr, "a broken summary is named: %r" % p.stderr)
    run([tl, "diff", DEMO], expect=2)
    run([tl, "diff", "--json", "-o", "x", DEMO, DEMO], expect=2)
    run([tl, "diff", "--fail-on", "nonsense", DEMO, DEMO], expect=2)
    p = run([tl, "diff", "--help"])
    check(p.stdout.startswith("Usage: tlparse diff"), "diff --help")


def cache_pairs(tl, tmp):
    """A config flipped between two runs (tests/make_rank_logs.py's --autotune: rank 1 of the
    run is the after side, rank 0 the before): the after side's FX graph misses name it, in
    every kind of side, in the JSON, the text and the page."""
    here = os.path.dirname(os.path.abspath(__file__))
    run([sys.executable, os.path.join(here, "make_rank_logs.py"), os.path.join(tmp, "cache_runs"),
         "--ranks", "2", "--hit", "0", "--autotune", "1"])
    logs = [os.path.join(tmp, "cache_runs", "dedicated_log_torch_trace_rank_%d.log" % r)
            for r in (0, 1)]
    a = Kinds(tl, tmp, "cache_before", logs[0])
    b = Kinds(tl, tmp, "cache_after", logs[1])
    d = diff_all_kinds(tl, a, b, "cache config")
    on = "inductor config `max_autotune` changed (False -> True)"
    got = [(m["compile_ids"], m["graph"], m["against"]["compile_id"], m["against"]["state"],
            m["differs"]) for m in d["cache"].get("after_misses", [])]
    want_differs = [{"component": "inductor_config[max_autotune]", "before": "False",
                     "after": "True", "words": on}]
    check(got == [(["[0/0]"], "inference", "[0/0]", "hit", want_differs),
                  (["[0/1]"], "inference", "[0/1]", "stored", want_differs)],
          "cache config: after_misses %r" % (got,))
    text = run([tl, "diff", "--summary", logs[0], logs[1]]).stdout
    check("Cache misses after, against the before side:\n  Cache miss [0/0] (FX graph, "
          "inference) against the before side's [0/0] (hit): " + on + "\n  Cache miss [0/1] "
          "(FX graph, inference) against the before side's [0/1] (stored): " + on + "\n" in text,
          "cache config: the text: %r" % text[-600:])
    out = os.path.join(tmp, "cache_diff")
    run([tl, "diff", logs[0], logs[1], "-o", out, "--no-browser"])
    page = open(os.path.join(out, "index.html"), encoding="utf-8").read()
    check("<section id='cache-misses'>" in page and
          "<p>Cache miss [0/1] (FX graph, inference), against the before side's [0/1] "
          "(stored):</p>\n<ul>\n<li>inductor config `max_autotune` changed (False -&gt; "
          "True)</li>" in page, "cache config: the page")
    # the same run on both sides: nothing to explain
    d = json.loads(run([tl, "diff", "--json", logs[0], logs[0]]).stdout)
    check("after_misses" not in d["cache"], "cache config: the same run explains misses")


def main():
    tl, shared = os.path.abspath(sys.argv[1]), sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="tl-diff-")
    try:
        os.chdir(tmp)
        trace_pairs(tl, tmp)
        cache_pairs(tl, tmp)
        text_pairs(tl, tmp)
        corpus_pairs(tl, tmp, shared)
        errors(tl, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print("diff: %d failure(s)" % len(failures))
        return 1
    print("diff: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
