#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The diagnosis against a real PyTorch: each scenario of tests/torch/scenarios/ (a tiny
script that provokes known events) is run twice, under TORCH_TRACE and under
TORCH_LOGS="recompiles,graph_breaks,dynamic,guards"; `tlparse --json` of the trace and of
the text must give exactly the findings written in tests/torch/expected.py, and the same
findings wherever the text holds the facts; the report of each trace must be complete (no
"Unknown fields" for what PyTorch writes, every local link resolves, `--strict` passes).

    torch_check.py TLPARSE [NAME...]          run the scenarios (all, or the ones named)
    torch_check.py TLPARSE --dump NAME        print a scenario's projections (to write cases)
    --work DIR    keep the runs in DIR; with --reuse, run PyTorch only where DIR lacks them

PyTorch comes from $TORCH_PYTHON (a command: "python3", "/opt/venv/bin/python"), else from
../shared/tools/torch-python beside the checkout (PyTorch 2.6 in a Debian 13 root).
"""
import glob
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIOS = os.path.join(HERE, "scenarios")
sys.path.insert(0, HERE)
import expected  # noqa: E402

TORCH_LOGS = "recompiles,graph_breaks,dynamic,guards"


def torch_python():
    cmd = os.environ.get("TORCH_PYTHON")
    if cmd:
        return shlex.split(cmd)
    tool = os.path.join(HERE, "..", "..", "..", "shared", "tools", "torch-python")
    shared = os.environ.get("TL_SHARED")
    if shared:
        tool = os.path.join(shared, "tools", "torch-python")
    if os.access(tool, os.X_OK):
        return [os.path.realpath(tool)]
    return None


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return str(s.getsockname()[1])


def run_scenario(py, name, work, reuse):
    """Run NAME.py in work/NAME under TORCH_TRACE and under TORCH_LOGS; returns seconds."""
    d = os.path.join(work, name)
    if reuse and os.path.isdir(os.path.join(d, "trace")) and os.path.exists(os.path.join(d, "text.log")):
        return 0.0
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    shutil.copy(os.path.join(SCENARIOS, name + ".py"), d)
    env = dict(os.environ)
    for k in ("TORCH_TRACE", "TORCH_LOGS", "TORCH_COMPILE_DEBUG"):
        env.pop(k, None)
    env.update(USE_LIBUV="0", GLOO_SOCKET_IFNAME="lo", PYTHONDONTWRITEBYTECODE="1")
    t0 = time.time()
    for kind in ("trace", "text"):
        # A cache of its own per run, empty: what inductor decides may differ on a warm
        # cache (2.13 keeps vllm_like's sizes symbolic when its graphs are cached), and a
        # shared cache makes a run depend on what ran before it on this machine.
        e = dict(env, PORT=free_port(),
                 TORCHINDUCTOR_CACHE_DIR=os.path.join(d, "inductor-" + kind),
                 TRITON_CACHE_DIR=os.path.join(d, "triton-" + kind))
        if kind == "trace":
            e["TORCH_TRACE"] = os.path.join(d, "trace")
        else:
            e["TORCH_LOGS"] = TORCH_LOGS
        with open(os.path.join(d, kind + ".out"), "wb") as out, \
                open(os.path.join(d, "text.log" if kind == "text" else "trace.err"), "wb") as err:
            p = subprocess.run(py + [name + ".py"], cwd=d, env=e, stdout=out, stderr=err,
                               timeout=600)
        with open(os.path.join(d, kind + ".rc"), "w") as f:
            f.write(str(p.returncode))
    return time.time() - t0


# ---- projections ---------------------------------------------------------------------------

def short(path):
    """A place as the expectations write it: the file's base name and the line."""
    if not path:
        return None
    m = re.match(r"^(.*?)(:\d+)?$", path)
    return os.path.basename(m.group(1)) + (m.group(2) or "")


def where(w):
    s = short(w["file"]) if w["file"] else None
    if s and w["line"]:
        s += ":%d" % w["line"]
    return s


def ranked(x, p):
    """p, with the finding's ranks when the log said them."""
    if x.get("ranks"):
        p["ranks"] = x["ranks"]
    return p


def named(b, p):
    """p, with the graph break's id when PyTorch names it (2.7 on: "GB0124")."""
    if b.get("gb_id"):
        p["gb_id"] = b["gb_id"]
    return p


def object_id(v):
    """An object's id (of ___check_obj_id) as "<id>": it differs from run to run."""
    return "<id>" if v and v.isdigit() and len(v) >= 6 else v


def project(s):
    """What a scenario's expectations assert of a tlparse-summary/1."""
    p = {
        "compile_ids": s["compile_ids"],
        "findings": ["%s:%s" % (f["kind"], f["category"]) for f in s["findings"]],
        "graph_breaks": [named(b, ranked(b, {
            "reason": b["reason"][:70],
            "count": b["count"],
            "where": [where(w) for w in b["where"]],
            "in_pytorch": short(b["pytorch_location"]) if b["in_pytorch"] else None,
            "compile_ids": b["compile_ids"],
        })) for b in s["graph_breaks"]],
        "recompiles": [ranked(r, {
            "function": r["function"],
            "location": short(r["location"]),
            "resumes_after_line": r["resumes_after_line"],
            "count": r["count"],
            "reasons": [(g["guard"], g["count"], g["advice"]["category"]) for g in r["reasons"]],
            "compile_ids": r["compile_ids"],
            "called_from": short(r["called_from"]),
        }) for r in s["recompiles"]],
        "restarts": [{
            "kind": r["kind"], "function": r["function"], "what": r["what"],
            "count": r["count"], "compile_ids": r["compile_ids"],
        } for r in s["restarts"]],
        "specializations": [ranked(x, {
            "kind": x["kind"], "expr": x["expr"], "source": x["source"],
            "symbols": [[y["symbol"], y["source"]] for y in x["symbols"]],
            "location": short(x["location"]), "category": x["advice"]["category"],
        }) for x in s["specializations"]],
        "failures": [ranked(f, {
            "type": f["type"], "compile_id": f["compile_id"],
            "fell_back_to_eager": f["fell_back_to_eager"], "category": f["advice"]["category"],
        }) for f in s["failures"]],
        "limits": [{
            "function": l["function"], "limit": l["limit"], "limit_name": l["limit_name"],
            "last_reason": l["last_reason"],
        } for l in s["limits_hit"]],
        "export": [{"kind": x["kind"], "expr": x["expr"], "location": short(x["location"])}
                   for x in s["export"]],
        "dynamic": sorted({(x["symbol"], x["source"]) for x in s["dynamic_dimensions"]}),
        # [hit, miss, bypass] of each cache; asserted only by the cases that say "cache" (the
        # others share PyTorch's default cache folder, warm or not)
        "cache": {k: [v["hit"], v["miss"], v["bypass"]] for k, v in s["cache"].items()
                  if k in ("fx_graph", "aotautograd")},
        # each miss: [compile id, cache, the nearest earlier entry, what differs in words]
        # and each bypass: [compile id, cache, reason]; asserted by the cases that give them
        "cache_misses": [[m["compile_id"], m["cache"], m["nearest"],
                          [d["words"] for d in m["differs"]]]
                         for m in s["cache"].get("misses", [])],
        "cache_bypasses": [[b["compile_id"], b["cache"], b["reason"]]
                           for b in s["cache"].get("bypasses", [])],
        # the recompile forecast of the frames compiled more than once or run in eager mode;
        # asserted only by the cases that say "forecast"
        "forecast": [{
            "frame": f["frame"], "function": f["function"], "entries": f["entries"],
            "limit": f["limit"], "limit_from": f["limit_from"], "left": f["left"],
            "eager": [f["eager"]["cause"], f["eager"]["compile_id"]] if f["eager"] else None,
            "guards_differ": [[g["compile_id"], g["against"],
                               [[c["change"], c["guard"], object_id(c["before"]),
                                 object_id(c["after"])] for c in g["changes"]], g["more"]]
                              for g in f["guards_differ"]],
        } for f in s["frames"] if "entries" in f],
    }
    return p


def plain(p):
    """p as JSON would give it back (tuples become lists), to compare with expected.py."""
    return json.loads(json.dumps(p))


def without(p, keys):
    """p without the facts a TORCH_LOGS text does not hold (expected.TEXT_LACKS)."""
    q = json.loads(json.dumps(p))
    for k in keys:
        parts = k.split(".")
        if len(parts) == 1:
            q.pop(k, None)
            continue
        for item in q.get(parts[0], []):
            item.pop(parts[1], None)
    return q


# ---- the report ----------------------------------------------------------------------------

HREF = re.compile(r"""(?:href|src)=["']([^"']+)["']""")
BASE = re.compile(r"""<base\s+href=["']([^"']*)["']""")
ANCHOR = re.compile(r"""\sid=["']([^"']+)["']""")


def check_links(out):
    """Every local link of every page resolves: the file exists inside out, its anchor too."""
    problems = []
    ids = {}
    for page in glob.glob(os.path.join(out, "**", "*.html"), recursive=True):
        html = open(page, encoding="utf-8", errors="replace").read()
        base = BASE.search(html)
        html = BASE.sub("", html)
        root = os.path.normpath(os.path.join(os.path.dirname(page), base.group(1) if base else "."))
        for href in HREF.findall(html):
            if re.match(r"^[a-z]+:", href) or href.startswith("//"):
                continue
            href = href.replace("&amp;", "&")
            path, _, anchor = href.partition("#")
            path = path.split("?")[0]
            target = os.path.normpath(os.path.join(root, path)) if path else page
            if not target.startswith(os.path.abspath(out)):
                problems.append("%s: %s leaves the report" % (os.path.relpath(page, out), href))
            elif not os.path.exists(target):
                problems.append("%s: %s does not exist" % (os.path.relpath(page, out), href))
            elif anchor and target.endswith(".html"):
                if target not in ids:
                    t = open(target, encoding="utf-8", errors="replace").read()
                    ids[target] = {x.replace("&amp;", "&") for x in ANCHOR.findall(t)}
                if anchor not in ids[target]:
                    problems.append("%s: anchor %s missing in %s" % (
                        os.path.relpath(page, out), anchor, os.path.relpath(target, out)))
    return problems


def check_report(tlparse, d, name, flags, problems):
    out = os.path.join(d, "report" + ("_" + flags[0].strip("-") if flags else ""))
    shutil.rmtree(out, ignore_errors=True)
    p = subprocess.run([tlparse, os.path.join(d, "trace"), "-o", out, "--no-browser"] + flags,
                       capture_output=True, text=True)
    if p.returncode != 0:
        problems.append("%s: report %s exit %d: %s" % (name, flags, p.returncode, p.stderr[-500:]))
        return None
    if "Unknown fields" in p.stderr:
        problems.append("%s: report %s: %s" % (name, flags, p.stderr.strip()))
    if not flags:
        check_strict(tlparse, os.path.join(d, "trace"), d, name, problems)
    if not os.path.exists(os.path.join(out, "index.html")):
        problems.append("%s: report %s: no index.html" % (name, flags))
        return None
    for pr in check_links(out):
        problems.append("%s: report %s: %s" % (name, flags, pr))
    return out


def check_strict(tlparse, log, d, name, problems):
    """`tlparse --strict` of a log PyTorch wrote: nothing in it is bad or another rank's."""
    out = os.path.join(d, "report_strict")
    shutil.rmtree(out, ignore_errors=True)
    p = subprocess.run([tlparse, log, "--strict", "-o", out, "--no-browser"],
                       capture_output=True, text=True)
    shutil.rmtree(out, ignore_errors=True)
    if p.returncode != 0:
        problems.append("%s: --strict %s exit %d: %s" % (
            name, os.path.basename(log), p.returncode, p.stderr.strip()[-500:]))


def tl_json(tlparse, path, extra=()):
    p = subprocess.run([tlparse, path, "--json"] + list(extra), capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("tlparse --json %s: exit %d: %s" % (path, p.returncode, p.stderr))
    return json.loads(p.stdout)


def rank_logs(d):
    return sorted(glob.glob(os.path.join(d, "trace", "*rank_*.log")))


def for_version(case, version):
    """A case as PyTorch VERSION ("2.13") must give it: its own entries, with the ones its
    VERSION key says instead (where that version logs otherwise)."""
    c = {k: v for k, v in case.items() if not re.match(r"^\d+\.\d+$", k)}
    c.update(case.get(version, {}))
    return c


def check(tlparse, work, name, problems, dump=False, version=None):
    d = os.path.join(work, name)
    want = for_version(expected.CASES.get(name, {}), version)
    for kind in ("trace", "text"):
        rc = open(os.path.join(d, kind + ".rc")).read().strip()
        if rc != str(want.get("exit", 0)) and not dump:
            problems.append("%s: the %s run exited %s (see %s/%s.out)" % (name, kind, rc, d, kind))
    ranks = rank_logs(d)
    traces = ranks if ranks else [os.path.join(d, "trace")]
    got = {}
    for i, t in enumerate(traces):
        key = "trace" if not ranks else "trace_rank%d" % i
        summary = tl_json(tlparse, t)
        got[key] = plain(project(summary))
        if not dump:
            check_ledger(summary, d, name + ":" + key, want.get("ledger"), problems)
    got["text"] = plain(project(tl_json(tlparse, os.path.join(d, "text.log"))))
    if dump:
        print(json.dumps(got, indent=1))
        return
    for key, proj in got.items():
        if key == "text":
            continue
        exp = want[key]
        proj = dict(proj)
        for optional in ("cache", "cache_misses", "cache_bypasses", "forecast"):
            if optional not in exp:
                proj.pop(optional, None)
        if proj != exp:
            problems.append("%s: %s diagnosis differs from expected.py:\n%s" % (
                name, key, diff_text(exp, proj)))
    # the text of the same run: the same findings wherever the text holds the facts
    lacks = expected.TEXT_LACKS + want.get("text_lacks", [])
    text_want = want.get("text")
    if text_want is not None:
        text_want = without(text_want, lacks)
    else:
        base = want["trace"] if "trace" in want else merge_ranks(
            [want[k] for k in sorted(want) if k.startswith("trace_rank")])
        text_want = without(base, lacks)
    if "forecast" not in text_want:
        got["text"].pop("forecast", None)
    if without(got["text"], lacks) != text_want:
        problems.append("%s: the TORCH_LOGS text disagrees with the trace:\n%s" % (
            name, diff_text(text_want, without(got["text"], lacks))))
    if not ranks:
        check_report(tlparse, d, name, [], problems)
        for pattern in want.get("report_files", []):
            if not glob.glob(os.path.join(d, "report", pattern)):
                problems.append("%s: the report has no %s" % (name, pattern))
        if want.get("report_has"):
            index = open(os.path.join(d, "report", "index.html"), encoding="utf-8").read()
            for must in want["report_has"]:
                if must not in index:
                    problems.append("%s: the report's index.html lacks %r" % (name, must))
        for flags in want.get("report_flags", []):
            out = check_report(tlparse, d, name, flags, problems)
            if out and flags == ["-e"]:
                check_export_page(out, name, want, problems)
    else:
        check_ranks(tlparse, d, name, want, problems)


def check_ledger(s, d, name, want, problems):
    """The compile-time ledger of a trace adds up: its phases (less what ran at once), first
    runs and unaccounted time make the log's span, and each compile id's phases its time. With
    want (the case's "ledger"): the span matches the script's own clock (its wall.json: t0, t1
    and a sleep) within 5%, the sleep is unaccounted, and the phases named took time."""
    led = s["compile_time"]["ledger"]
    if led is None:
        if s["compile_ids"]:
            problems.append("%s: compiles but no compile-time ledger" % name)
        return
    parts = sum(led["phases"].values()) - led["overlap_s"] + led["runtime_s"] + led["unaccounted_s"]
    if abs(parts - led["span_s"]) > 0.002:
        problems.append("%s: ledger lines add up to %.6f s, not the span %.6f s" % (
            name, parts, led["span_s"]))
    for c in led["compile_ids"]:
        if c["phases"] and abs(sum(c["phases"].values()) - c["s"]) > 0.002:
            problems.append("%s: ledger %s: phases %.6f s, total %.6f s" % (
                name, c["compile_id"], sum(c["phases"].values()), c["s"]))
    if not want:
        return
    w = json.load(open(os.path.join(d, want["wall"])))
    wall = w["t1"] - w["t0"]
    if abs(led["span_s"] - wall) > 0.05 * wall:
        problems.append("%s: ledger span %.3f s, the script's clock %.3f s (over 5%% apart)" % (
            name, led["span_s"], wall))
    if led["unaccounted_s"] < 0.95 * w["sleep"]:
        problems.append("%s: ledger unaccounted %.3f s, less than the %.1f s slept" % (
            name, led["unaccounted_s"], w["sleep"]))
    for ph in want.get("phases", []):
        if led["phases"].get(ph, 0) <= 0:
            problems.append("%s: ledger phase %s took no time" % (name, ph))


def merge_ranks(projs):
    """What a text log of all ranks interleaved is expected to say: the ranks' findings."""
    m = json.loads(json.dumps(projs[0]))
    for p in projs[1:]:
        for k, v in p.items():
            if isinstance(v, list):
                m[k] = m[k] + [x for x in v if x not in m[k]]
            elif isinstance(v, int):
                m[k] = max(m[k], v)
    return m


def check_export_page(out, name, want, problems):
    html = open(os.path.join(out, "index.html"), encoding="utf-8").read()
    for must in want["export_page"]["has"]:
        if must not in html:
            problems.append("%s: export page lacks %r" % (name, must))
    for never in want["export_page"]["not"]:
        if never in html:
            problems.append("%s: export page says %r" % (name, never))


def check_ranks(tlparse, d, name, want, problems):
    out = os.path.join(d, "ranks_report")
    shutil.rmtree(out, ignore_errors=True)
    p = subprocess.run([tlparse, os.path.join(d, "trace"), "--all-ranks-html", "-o", out,
                        "--no-browser"], capture_output=True, text=True)
    if p.returncode != 0:
        problems.append("%s: --all-ranks-html exit %d: %s" % (name, p.returncode, p.stderr[-500:]))
        return
    if "Unknown fields" in p.stderr:
        problems.append("%s: --all-ranks-html: %s" % (name, p.stderr.strip()))
    for log in rank_logs(d):
        check_strict(tlparse, log, d, name, problems)
    s = json.load(open(os.path.join(out, "summary.json")))
    got = {"ranks": [(r["rank"], r["compile_ids"], r["recompiles"], r["graph_breaks"])
                     for r in s["ranks"]],
           "divergences": [(x["kind"], x["ranks"], x["others"]) for x in s["divergences"]]}
    got = plain(got)
    if got != want["ranks_summary"]:
        problems.append("%s: --all-ranks-html summary.json:\n%s" % (
            name, diff_text(want["ranks_summary"], got)))
    # the cache misses across ranks, named (when the case says them)
    if "ranks_cache_misses" in want:
        got = plain([[m["ranks"], m["compile_ids"], m["against"]["rank"],
                      m["against"]["compile_id"], m["against"]["state"],
                      [x["words"] for x in m["differs"]]] for m in s.get("cache_misses", [])])
        if got != want["ranks_cache_misses"]:
            problems.append("%s: --all-ranks-html summary.json cache_misses:\n%s" % (
                name, diff_text(want["ranks_cache_misses"], got)))
    # the first rank's log against the second's, diffed: the after side's misses named
    if "diff_cache_misses" in want:
        logs = rank_logs(d)
        p = subprocess.run([tlparse, "diff", "--json", logs[0], logs[1]], capture_output=True,
                           text=True)
        got = None
        if p.returncode == 0:
            got = plain([[m["compile_ids"], m["against"]["compile_id"], m["against"]["state"],
                          [x["words"] for x in m["differs"]]]
                         for m in json.loads(p.stdout)["cache"].get("after_misses", [])])
        if got != want["diff_cache_misses"]:
            problems.append("%s: diff of rank 0's log and rank 1's: exit %d, after_misses:\n%s"
                            % (name, p.returncode, diff_text(want["diff_cache_misses"], got)))
    for pr in check_links(out):
        problems.append("%s: --all-ranks-html: %s" % (name, pr))
    check_rank_ledgers(tlparse, d, out, s, name, problems)


LEDGER_LINES = ("span_s", "compiling_s", "runtime_s", "unaccounted_s")


def check_rank_ledgers(tlparse, d, out, s, name, problems):
    """Where each rank's time went, as the landing page's summary.json and `--json` of the
    folder say it, is each rank's own compile-time ledger (its rank_N/summary.json), line by
    line; the straggler is the rank that compiled longest; the landing page links each rank's
    compile_time.html."""
    own = {}
    for r in s["ranks"]:
        led = json.load(open(os.path.join(out, "rank_%d" % r["rank"], "summary.json")))
        led = led["compile_time"]["ledger"]
        if led is not None:
            own[r["rank"]] = {k: led[k] for k in LEDGER_LINES}
    if len(own) < len(s["ranks"]):
        problems.append("%s: ranks without a compile-time ledger: %s" % (
            name, sorted(set(r["rank"] for r in s["ranks"]) - set(own))))
    p = subprocess.run([tlparse, os.path.join(d, "trace"), "--json"], capture_output=True,
                       text=True)
    folder = json.loads(p.stdout) if p.returncode == 0 else None
    if folder is None:
        problems.append("%s: --json of the rank folder: exit %d" % (name, p.returncode))
    top = max(own, key=lambda k: own[k]["compiling_s"]) if len(own) > 1 else None
    if top is not None and all(v["compiling_s"] == own[top]["compiling_s"] for v in own.values()):
        top = None
    for what, doc in (("landing summary.json", s), ("--json of the folder", folder)):
        if doc is None:
            continue
        got = {x["rank"]: {k: x[k] for k in LEDGER_LINES} for x in doc["ledger"]["ranks"]}
        if got != own:
            problems.append("%s: %s ledger per rank:\n%s" % (name, what, diff_text(own, got)))
        if doc["ledger"]["straggler"] != top:
            problems.append("%s: %s straggler %r, not rank %r (compiled longest)" % (
                name, what, doc["ledger"]["straggler"], top))
    html = open(os.path.join(out, "index.html"), encoding="utf-8").read()
    for r in own:
        if 'href="rank_%d/compile_time.html"' % r not in html:
            problems.append("%s: the landing page does not link rank_%d/compile_time.html" % (
                name, r))


def diff_text(want, got):
    w = json.dumps(want, indent=1, sort_keys=True).splitlines()
    g = json.dumps(got, indent=1, sort_keys=True).splitlines()
    import difflib
    return "\n".join(difflib.unified_diff(w, g, "expected", "got", lineterm="", n=2))


def main(argv):
    args = argv[1:]
    work = results = None
    reuse = dump = False
    names = []
    tlparse = None
    while args:
        a = args.pop(0)
        if a == "--work":
            work = os.path.abspath(args.pop(0))
        elif a == "--reuse":
            reuse = True
        elif a == "--dump":
            dump = True
        elif a == "--results":
            results = os.path.abspath(args.pop(0))
        elif a == "--table":
            return table(args)
        elif tlparse is None:
            tlparse = os.path.abspath(a)
        else:
            names.append(a)
    if not tlparse:
        print(__doc__)
        return 2
    py = torch_python()
    if not py:
        print("torch: FAIL: no PyTorch to run the scenarios with: set TORCH_PYTHON, or put "
              "../shared/tools/torch-python beside the checkout")
        return 1
    all_names = sorted(os.path.basename(f)[:-3] for f in glob.glob(os.path.join(SCENARIOS, "*.py")))
    missing = [n for n in all_names if n not in expected.CASES]
    if missing and not dump:
        print("torch: FAIL: scenarios without expectations in expected.py: " + ", ".join(missing))
        return 1
    names = names or all_names
    tmp = None
    if not work:
        tmp = work = tempfile.mkdtemp(prefix="tl-torch-")
    os.makedirs(work, exist_ok=True)
    t0 = time.time()
    problems = []
    try:
        version = subprocess.run(py + ["-c", "import torch; print(torch.__version__)"],
                                 capture_output=True, text=True, cwd=work)
        version = version.stdout.strip() or "?"
        mm = ".".join(version.split("+")[0].split(".")[:2])
        print("torch: PyTorch %s (%s), %d scenarios, in %s" % (
            version, " ".join(py), len(names), work), flush=True)
        outcome = {}
        for n in names:
            if mm not in expected.CASES.get(n, {}).get("versions", [mm]):
                outcome[n] = "-"
                continue
            secs = run_scenario(py, n, work, reuse)
            before = len(problems)
            try:
                check(tlparse, work, n, problems, dump, mm)
            except (RuntimeError, OSError, ValueError, KeyError) as e:
                problems.append("%s: %s" % (n, e))
            outcome[n] = "ok" if len(problems) == before else "FAIL"
            if not dump:
                print("torch: %-16s %s (%.0f s)" % (n, outcome[n], secs), flush=True)
        if results:
            with open(results, "w") as f:
                json.dump({"version": mm, "scenarios": outcome}, f)
    finally:
        if tmp and not problems:
            shutil.rmtree(tmp, ignore_errors=True)
    for p in problems:
        print("FAIL: " + p)
    if not dump:
        print("torch: %d scenarios, %d problems, %.0f s%s" % (
            len(names), len(problems), time.time() - t0,
            "" if not problems or not tmp else " (runs kept in %s)" % work))
    return 1 if problems else 0


def table(files):
    """Scenarios x versions, from the --results files of each version's run."""
    runs = [json.load(open(f)) for f in files]
    names = sorted({n for r in runs for n in r["scenarios"]})
    print("torch: %-18s %s" % ("scenario", " ".join("%-7s" % r["version"] for r in runs)))
    for n in names:
        print("torch: %-18s %s" % (n, " ".join("%-7s" % r["scenarios"].get(n, "?") for r in runs)))
    return 1 if any(v not in ("ok", "-") for r in runs for v in r["scenarios"].values()) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
