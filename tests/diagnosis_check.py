#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The diagnosis, checked: `tlparse --json` on each log must give the shape of
tlparse-summary/1 (every field, every type) and exactly the findings written in
tests/diagnosis_expected.py for that log (counts, reasons, locations, advice categories).

    diagnosis_check.py TLPARSE SHARED_DIR        check every case (logs of ../shared and ours)
    diagnosis_check.py TLPARSE SHARED_DIR --dump LOG   print a log's projection (to write cases)

A case names its log relative to SHARED_DIR/corpus ("torch_logs/x.txt", "logs/y.log") or to
the repository ("fixtures/demo.log"). Cases of ../shared are skipped with one line when it is
absent (a user's clone); ours always run.
"""
import json
import os
import re
import shlex
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "..", "VERSION"), encoding="utf-8") as _f:
    VERSION = _f.read().strip()  # the version, as the file VERSION says it
sys.path.insert(0, HERE)
import diagnosis_expected  # noqa: E402

# ---- the shape of tlparse-summary/1 ----------------------------------------------------------

STR, INT, NUM, BOOL = "str", "int", "num", "bool"
OPT = "?"  # suffix: may be null (for a list: [shape, OPT])

ADVICE = {"category": STR, "title": STR, "explanation": STR, "fix": STR}
WHERE = {"file": STR + OPT, "line": INT + OPT, "function": STR + OPT, "code": STR + OPT,
         "function_start": BOOL}
SHAPE = {
    "schema": STR,
    "source": {"path": STR, "kind": STR},
    "generated_by": {"tool": STR, "version": STR, "revision": STR + OPT,
                     "command_line": STR + OPT, "redacted": STR + OPT,
                     "input": {"path": STR, "size": INT + OPT, "mtime": STR + OPT}},
    "pytorch_version": STR + OPT,
    "compile_ids": INT,
    "findings": [{"kind": STR, "index": INT, "category": STR, "normal": BOOL}],
    "graph_breaks": [{
        "reason": STR, "count": INT, "locations": [STR], "where": [dict(WHERE, count=INT)],
        "compile_ids": [STR], "explanation": STR + OPT, "hint": STR + OPT, "url": STR + OPT,
        "type": STR + OPT, "gb_id": STR + OPT, "context": STR + OPT, "hints": [STR],
        "hint_categories": [STR], "debug_context": STR + OPT,
        "fell_back_to_eager": BOOL, "in_pytorch": BOOL, "pytorch_location": STR + OPT,
        "pytorch_function": STR + OPT, "log_line": INT + OPT, "ranks": [INT], "advice": ADVICE}],
    "recompiles": [{
        "function": STR + OPT, "location": STR + OPT, "count": INT,
        "reasons": [{"guard": STR, "count": INT, "example": STR, "values": [STR],
                     "distinct_values": INT, "advice": ADVICE}],
        "compile_ids": [STR], "resumes_after_line": INT + OPT, "called_from": STR + OPT,
        "called_from_function": STR + OPT, "log_line": INT + OPT, "ranks": [INT],
        "advice": ADVICE}],
    "specializations": [{
        "kind": STR, "symbol": STR + OPT, "expr": STR + OPT, "readable": STR + OPT,
        "source": STR + OPT, "value": STR + OPT, "range": STR + OPT, "location": STR + OPT,
        "function": STR + OPT, "code": STR + OPT, "compile_id": STR + OPT,
        "symbols": [{"symbol": STR, "source": STR + OPT}], "count": INT,
        "log_line": INT + OPT, "ranks": [INT], "advice": ADVICE}],
    "failures": [{
        "compile_id": STR + OPT, "type": STR + OPT, "reason": STR + OPT, "location": STR + OPT,
        "function": STR + OPT, "fell_back_to_eager": BOOL, "backward": BOOL, "forward_node": STR + OPT,
        "forward_location": STR + OPT, "log_line": INT + OPT, "ranks": [INT], "advice": ADVICE}],
    "limits_hit": [{
        "function": STR + OPT, "location": STR + OPT, "limit": INT + OPT,
        "limit_name": STR + OPT, "last_reason": STR + OPT, "compile_id": STR + OPT,
        "log_line": INT + OPT, "ranks": [INT], "advice": ADVICE, "last_reason_advice": "advice?"}],
    "frames_compiled_many_times": [{
        "function": STR + OPT, "location": STR + OPT, "compiles": INT,
        "compile_ids": [STR], "advice": ADVICE}],
    "export": [{
        "kind": STR, "expr": STR + OPT, "readable": STR + OPT, "result": STR + OPT,
        "op": STR + OPT, "reason": STR + OPT, "location": STR + OPT, "function": STR + OPT,
        "code": STR + OPT,
        "unbacked": [{"symbol": STR, "location": STR + OPT, "function": STR + OPT,
                      "code": STR + OPT}],
        "compile_ids": [STR], "count": INT, "log_line": INT + OPT, "ranks": [INT], "advice": ADVICE}],
    "restarts": [{
        "kind": STR + OPT, "reason": STR + OPT, "function": STR + OPT, "location": STR + OPT,
        "called_from": STR + OPT, "called_from_function": STR + OPT, "what": [STR],
        "count": INT, "compile_ids": [STR], "log_line": INT + OPT, "ranks": [INT],
        "advice": ADVICE}],
    "compile_time": {"total_s": NUM + OPT,
                     "slowest": [{"compile_id": STR + OPT, "function": STR + OPT,
                                  "seconds": NUM}],
                     "ledger": {OPT: OPT, "source": STR, "span_s": NUM,
                                "compiling_s": NUM, "runtime_s": NUM, "unaccounted_s": NUM,
                                "overlap_s": NUM, "metrics_s": NUM, "backward_s": NUM,
                                "phases": {k: NUM for k in (
                                    "dynamo", "aot_autograd", "inductor", "codegen",
                                    "compile_code", "autotune", "cache", "remote", "gc",
                                    "backend", "other")},
                                "cold": {"compile_ids": INT, "s": NUM},
                                "warm": {"compile_ids": INT, "s": NUM},
                                "compile_ids": [{"compile_id": STR, "s": NUM,
                                                 "phases": {"*": NUM},
                                                 "metrics_s": NUM + OPT, "backward_s": NUM,
                                                 "runtime_s": NUM, "cache": STR + OPT}]}},
    "cache": {"fx_graph": {"hit": INT, "miss": INT, "bypass": INT},
              "aotautograd": {"hit": INT, "miss": INT, "bypass": INT},
              # present when the log has a cache miss or bypass
              "?misses": [{"compile_id": STR + OPT, "cache": STR, "graph": STR + OPT,
                           "key": STR + OPT, "nearest": STR + OPT, "nearest_key": STR + OPT,
                           "components_listed": BOOL, "new_graph": BOOL,
                           "differs": [{"component": STR, "before": STR + OPT,
                                        "after": STR + OPT, "words": STR}],
                           "note": STR + OPT}],
              "?bypasses": [{"compile_id": STR + OPT, "cache": STR, "reason": STR + OPT}],
              # present when the log lists the components of a hit's or a miss's key
              "?keys": {"lookups_dropped": INT, "components": [[STR]],
                        "lookups": [{"compile_id": STR + OPT, "cache": STR, "state": STR,
                                     "graph": STR + OPT, "key": STR + OPT,
                                     "components": [INT]}]}},
    "dynamic_dimensions": [{"symbol": STR + OPT, "source": STR + OPT, "value": STR + OPT,
                            "range": STR + OPT, "location": STR + OPT,
                            "function": STR + OPT, "compile_id": STR + OPT}],
    "graph_count": INT,
    "graphs": [{"compile_id": STR + OPT, "name": STR + OPT, "nodes": INT}],
    "frames": [{"frame": STR, "function": STR + OPT, "name": STR + OPT, "file": STR + OPT,
                "line": INT + OPT, "callers": [STR, OPT], "compiles": INT, "compile_ids": [STR],
                "compile_time_s": NUM + OPT,
                "graphs": [{"compile_id": STR + OPT, "hash": STR + OPT, "nodes": INT + OPT}],
                # the recompile forecast: only of a frame compiled more than once or run in
                # eager mode
                "?entries": INT, "?limit": INT, "?limit_name": STR, "?limit_from": STR,
                "?left": INT, "?ran_in_eager": BOOL,
                "?eager": {"cause": STR, "compile_id": STR + OPT, "why": STR + OPT, OPT: OPT},
                "?guards_differ": [{"compile_id": STR, "against": STR, "more": INT,
                                    "failed_guard": STR + OPT,
                                    "changes": [{"change": STR, "guard": STR,
                                                 "before": STR + OPT, "after": STR + OPT}]}],
                "?guards_differ_more": INT}],
}


def check_shape(v, shape, path, problems):
    if isinstance(shape, dict):
        if v is None and shape.get(OPT) == OPT:
            return
        if not isinstance(v, dict):
            problems.append(f"{path}: want an object, got {type(v).__name__}")
            return
        if "*" in shape:  # any keys, each of the one shape
            for k, x in v.items():
                check_shape(x, shape["*"], f"{path}.{k}", problems)
            return
        # "?key": a key the object may lack; {OPT: OPT}: the object may be null
        keys = {k.lstrip("?"): (k.startswith("?"), t) for k, t in shape.items() if k != OPT}
        for k, (optional, t) in keys.items():
            if k not in v:
                if not optional:
                    problems.append(f"{path}.{k}: missing")
            else:
                check_shape(v[k], t, f"{path}.{k}", problems)
        for k in v:
            if k not in keys:
                problems.append(f"{path}.{k}: not in the schema (add it to SHAPE)")
        return
    if isinstance(shape, list):
        if v is None and len(shape) == 2 and shape[1] == OPT:
            return
        if not isinstance(v, list):
            problems.append(f"{path}: want a list, got {type(v).__name__}")
            return
        for i, x in enumerate(v):
            check_shape(x, shape[0], f"{path}[{i}]", problems)
        return
    optional = shape.endswith(OPT)
    kind = shape.rstrip(OPT)
    if v is None:
        if not optional:
            problems.append(f"{path}: null")
        return
    if kind == "advice":
        check_shape(v, ADVICE, path, problems)
        # filled from the log: no placeholder of a rule's text is left ({tensor}, {check}, ...)
        for k in ("title", "explanation", "fix"):
            left = re.findall(r"\{[a-z_]+\}", v.get(k) or "")
            if left:
                problems.append(f"{path}.{k}: placeholder {left[0]} left: {v[k]!r}")
        return
    ok = {STR: isinstance(v, str), INT: isinstance(v, int) and not isinstance(v, bool),
          NUM: isinstance(v, (int, float)) and not isinstance(v, bool),
          BOOL: isinstance(v, bool)}[kind]
    if not ok:
        problems.append(f"{path}: want {kind}, got {v!r}")


# ---- the projection a case states -----------------------------------------------------------

def cat(a):
    return a["category"] if a else None


def project(s):
    """What a case states of a summary: the findings in order and each with its key facts."""
    return {
        "compile_ids": s["compile_ids"],
        "findings": [f"{f['kind']}:{f['category']}" for f in s["findings"]],
        "graph_breaks": [{"reason": b["reason"], "count": b["count"],
                          "locations": b["locations"], "compile_ids": b["compile_ids"],
                          "fell_back": b["fell_back_to_eager"], "advice": cat(b["advice"])}
                         for b in s["graph_breaks"]],
        "recompiles": [{"function": r["function"], "location": r["location"],
                        "count": r["count"],
                        "reasons": [(g["guard"], g["count"], cat(g["advice"]))
                                    for g in r["reasons"]],
                        "compile_ids": r["compile_ids"], "advice": cat(r["advice"])}
                       for r in s["recompiles"]],
        "specializations": [{"kind": x["kind"], "symbol": x["symbol"], "expr": x["expr"],
                             "source": x["source"], "location": x["location"],
                             "compile_id": x["compile_id"], "advice": cat(x["advice"])}
                            for x in s["specializations"]],
        "failures": [{"compile_id": f["compile_id"], "type": f["type"],
                      "location": f["location"], "fell_back": f["fell_back_to_eager"],
                      "advice": cat(f["advice"])} for f in s["failures"]],
        "limits": [{"function": l["function"], "location": l["location"], "limit": l["limit"],
                    "limit_name": l["limit_name"], "last_reason": l["last_reason"],
                    "advice": cat(l["advice"]),
                    "reason_advice": cat(l["last_reason_advice"])} for l in s["limits_hit"]],
        "many_compiles": [(f["function"], f["compiles"])
                          for f in s["frames_compiled_many_times"]],
        "export": [{"kind": x["kind"], "expr": x["expr"], "readable": x["readable"],
                    "result": x["result"], "op": x["op"], "reason": x["reason"],
                    "location": x["location"], "code": x["code"], "count": x["count"],
                    "unbacked": [(u["symbol"], u["location"], u["code"])
                                 for u in x["unbacked"]],
                    "compile_ids": x["compile_ids"], "advice": cat(x["advice"])}
                   for x in s["export"]],
        "total_s": None if s["compile_time"]["total_s"] is None
        else round(s["compile_time"]["total_s"], 3),
        "cache": [s["cache"]["fx_graph"][k] for k in ("hit", "miss", "bypass")] +
                 [s["cache"]["aotautograd"][k] for k in ("hit", "miss", "bypass")],
        "dynamic": [(x["symbol"], x["source"], x["value"]) for x in s["dynamic_dimensions"]],
        "graphs": [(g["compile_id"], g["name"], g["nodes"]) for g in s["graphs"]],
    }


def resolve(name, shared):
    if name.startswith("fixtures/"):
        return os.path.join(HERE, name)
    return os.path.join(shared, "corpus", name)


def check_generated_by(s, log):
    """generated_by says what made the summary: this tlparse, run as run() runs it, on log."""
    g = s.get("generated_by")
    if not isinstance(g, dict):
        return []  # check_shape said so
    st = os.stat(log)
    want = {"tool": "tlparse", "version": VERSION, "command_line": f"tlparse {shlex.quote(log)} --json",
            "input": {"path": log, "size": st.st_size,
                      "mtime": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(st.st_mtime))}}
    out = [f"generated_by.{k}: {g.get(k)!r}, want {v!r}" for k, v in want.items() if g.get(k) != v]
    rev = g.get("revision")
    if rev is not None and not re.fullmatch(r"[0-9a-f]{12}(-dirty)?|[0-9A-Za-z._+-]+", rev):
        out.append(f"generated_by.revision: {rev!r}")
    return out


def run(tlparse, log):
    p = subprocess.run([tlparse, log, "--json"], capture_output=True, timeout=120)
    if p.returncode != 0:
        raise RuntimeError(f"exit {p.returncode}: {p.stderr.decode(errors='replace')[:500]}")
    return json.loads(p.stdout)


def diff(want, got, path=""):
    out = []
    if isinstance(want, dict) and isinstance(got, dict):
        for k in sorted(set(want) | set(got)):
            if k not in got:
                out.append(f"{path}.{k}: missing")
            elif k in want:
                out += diff(want[k], got[k], f"{path}.{k}")
        return out
    if isinstance(want, list) and isinstance(got, list) and len(want) == len(got):
        for i, (a, b) in enumerate(zip(want, got)):
            out += diff(a, b, f"{path}[{i}]")
        return out
    if isinstance(want, tuple):
        want = list(want)
    if isinstance(got, tuple):
        got = list(got)
    if want != got:
        out.append(f"{path}:\n      want {want!r}\n      got  {got!r}")
    return out


def main(argv):
    tlparse, shared = argv[1], argv[2]
    if len(argv) > 4 and argv[3] == "--dump":
        import pprint
        s = run(tlparse, resolve(argv[4], shared))
        pprint.pprint(project(s), width=100, sort_dicts=False)
        return 0
    have_shared = os.path.isdir(os.path.join(shared, "corpus"))
    passed = failed = skipped = 0
    cases = diagnosis_expected.CASES
    # Every torch_logs file of the corpus must have a case.
    if have_shared:
        for f in sorted(os.listdir(os.path.join(shared, "corpus", "torch_logs"))):
            if "torch_logs/" + f not in cases:
                print(f"FAIL torch_logs/{f}: no case in tests/diagnosis_expected.py")
                failed += 1
    for name, want in cases.items():
        log = resolve(name, shared)
        if not name.startswith("fixtures/") and not have_shared:
            skipped += 1
            continue
        try:
            s = run(tlparse, log)
        except Exception as e:  # noqa: BLE001 (the message is the point)
            print(f"FAIL {name}: {e}")
            failed += 1
            continue
        problems = []
        check_shape(s, SHAPE, "$", problems)
        if s.get("schema") != "tlparse-summary/1":
            problems.append(f"schema is {s.get('schema')!r}")
        kind = "torch_logs" if name.startswith("torch_logs/") or name.endswith(".txt") and \
            "torch_logs" in name else None
        if kind and s["source"]["kind"] != kind:
            problems.append(f"source.kind is {s['source']['kind']!r}, want {kind!r}")
        problems += check_generated_by(s, log)
        if not problems:
            problems = diff(want, project(s))
        if problems:
            failed += 1
            print(f"FAIL {name}:")
            for p in problems[:20]:
                print("    " + p)
        else:
            passed += 1
    if skipped:
        texts = sum(1 for n in cases if not n.startswith("fixtures/") and n.startswith("torch_logs/"))
        print(f"diagnosis: ../shared absent: its {skipped} cases ({texts} TORCH_LOGS texts, "
              f"{skipped - texts} traces) are not checked")
    print(f"diagnosis: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
