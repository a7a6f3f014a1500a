#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Graph breaks and the recompile limit as PyTorch 2.13 logs them, without PyTorch: small logs
written here in 2.13's form (a TORCH_TRACE and the TORCH_LOGS text of the same run), and exactly
what `tlparse --json` and `--summary` must say of them.

    diag213_check.py TLPARSE

The trace and the text of one run must give the same graph breaks and limits: a break named by
its type and GB id (not "Encountered graph break when attempting to trace ..."), what dynamo
was tracing, PyTorch's explanation (its continuation lines too), every hint with its kind; a
duplicate ("user stack suppressed") counted in its group; the limit hit as a limit (2.13 logs
it as an Unsupported graph break in the metrics), recompile_limit, and the newest guard as its
last reason.
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile

P = "V1127 12:00:00.000000 1 torch/_dynamo/x.py:1] "
URL = "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb%s.html"

# ---- the logs ---------------------------------------------------------------------------

ITEM = [
    "Unsupported Tensor.item() call with capture_scalar_outputs=False",
    "  Explanation: Dynamo does not support tracing `Tensor.item()` with "
    "config.capture_scalar_outputs=False.",
    "  Hint: Set `torch._dynamo.config.capture_scalar_outputs = True` to include these "
    "operations in the captured graph.",
    "",
    "  Developer debug context: call_method TensorVariable() item () {}",
    "",
    " For more details about this graph break, please visit: " + URL % "0124",
]
BRANCH = [
    "  Explanation: Detected data-dependent branching. Dynamo does not support tracing dynamic "
    "control flow.",
    "",
    "      The branch condition involves a tensor computed as follows:",
    "        gt = gt(sum_1, 0)",
    "    ",
    "  Hint: Use `torch.cond` to express dynamic control flow.",
    "  Hint: This graph break is fundamental - it is unlikely that Dynamo will ever be able to "
    "trace through your code. Consider finding a workaround.",
    "",
    "  Developer debug context: attempted to jump with TensorVariable()",
    "",
    " For more details about this graph break, please visit: " + URL % "0170",
]
CALL = "Graph Break Reason: Encountered graph break when attempting to trace CALL: a function " \
       "call, e.g. f(x, y):"


def item_break(line):
    return ["Graph break in user code at /w/m.py:8", CALL, ""] + ITEM + [
        "", "User code traceback:", '  File "/w/m.py", line 20, in <module>', "    f(x)",
        '  File "/w/m.py", line %d, in f' % line, "    s = x.sum().item()",
        "        ^^^^^^^^^^^^^^", ""]


def branch_break():
    return ["Graph break in user code at /w/m.py:14", "Graph Break Reason: Data-dependent branching"
            ] + BRANCH + ["", "Stack variable source attribution:",
                          "  TensorVariable() originated from:",
                          '  File "/w/m.py", line 13', "        y = x * 2", "",
                          "User code traceback:", '  File "/w/m.py", line 14, in g',
                          "    if y.sum() > 0:", ""]


def entry(env, frame, compile_id, payload=None):
    env = dict(env, frame_id=frame, frame_compile_id=compile_id, attempt=0)
    if payload is not None:
        env["has_payload"] = hashlib.md5(payload.encode()).hexdigest()
    out = P + json.dumps(env) + "\n"
    if payload is not None:
        out += "".join("\t" + l + "\n" for l in payload.split("\n"))
    return out


def metrics(co_name, line, **kw):
    m = {"co_name": co_name, "co_filename": "/w/m.py" if co_name else None,
         "co_firstlineno": line, "entire_frame_compile_time_s": 0.5, "fail_type": None,
         "fail_reason": None, "restart_reasons": [], "recompile_reason": None}
    m.update(kw)
    return {"compilation_metrics": m}


def gb_trace():
    """f breaks on .item() in [0/0] and again in [2/0] (f compiled again, called from another
    frame); g breaks on a data-dependent branch."""
    gb = {"artifact": {"name": "dynamo_graph_break_reason", "encoding": "string"}}
    out = entry(gb, 0, 0, "\n".join(item_break(8)) + "\nTraceback (most recent call last):\n")
    out += entry(metrics("f", 6), 0, 0)
    out += entry(gb, 1, 0, "\n".join(branch_break()) + "\nNoneType: None\n")
    out += entry(metrics("g", 12), 1, 0)
    out += entry(gb, 2, 0, "\n".join(item_break(8)) + "\nTraceback (most recent call last):\n")
    out += entry(metrics("f", 6), 2, 0)
    return out


def gb_text():
    """The same run under TORCH_LOGS: the second .item() break is a duplicate, its user stack
    suppressed."""
    def lines(cid, ls):
        return "".join(P + "[%s] [__graph_breaks] %s\n" % (cid, l) for l in ls)
    dup = ["Graph break (user stack suppressed due to duplicate graph break) in user code at "
           "/w/m.py:8", CALL, ""] + ITEM
    return lines("0/0", item_break(8)) + lines("1/0", branch_break()) + lines("2/0", dup)


GUARD = "k == %d                                                   # return x + k  # w/m.py:11 in bump"
STACK = "\nUser stack trace:\n  File \"/w/m.py\", line 11, in bump\n    return x + k"
LIMIT_REASON = (
    "Dynamo recompile limit exceeded\n  Explanation: Dynamo attempted to recompile the code "
    "object too many times, exceeding the recompile_limit cache size limit (currently set to 2)."
    "\n  Hint: To monitor recompilations, enable TORCH_LOGS=recompiles.\n\n  Developer debug "
    "context: Limit type: recompile_limit\n\n For more details about this graph break, please "
    "visit: " + URL % "0039")


def limit_trace():
    """bump(x, k) for k = 0, 1, 2 with recompile_limit 2: [0/2] hits the limit."""
    cfg = json.dumps({"accumulated_recompile_limit": 256, "recompile_limit": 2})
    rr = {"artifact": {"name": "recompile_reasons", "encoding": "json"}}
    out = entry(metrics("bump", 9, dynamo_config=cfg), 0, 0)
    out += entry(rr, 0, 1, "0/0: " + GUARD % 0 + STACK)
    out += entry(metrics("bump", 9, dynamo_config=cfg,
                         recompile_reason="0/0: " + GUARD % 0 + STACK), 0, 1)
    out += entry(rr, 0, 2, json.dumps(["0/1: " + GUARD % 1 + STACK, "0/0: " + GUARD % 0 + STACK],
                                      indent=0))
    out += entry(metrics(None, None, dynamo_config=cfg, fail_type="Unsupported",
                         fail_reason=LIMIT_REASON, recompile_reason="0/1: " + GUARD % 1 + STACK),
                 0, 2)
    return out


def limit_text():
    def lines(cid, tag, ls):
        return "".join(P + "[%s] %s%s\n" % (cid, tag, l) for l in ls)
    st = ["    - User stack trace:", '    -   File "/w/m.py", line 11, in bump',
          "    -     return x + k"]
    out = lines("0/1", "[__recompiles] ", ["Recompiling function bump in /w/m.py:9",
                                          "    triggered by the following guard failure(s):",
                                          "    - 0/0: " + GUARD % 0] + st)
    out += lines("0/2", "[__recompiles] ", ["Recompiling function bump in /w/m.py:9",
                                          "    triggered by the following guard failure(s):",
                                          "    - 0/1: " + GUARD % 1] + st +
                 ["    - 0/0: " + GUARD % 0] + st)
    out += lines("0/2", "", ["torch._dynamo hit config.recompile_limit (2)",
                             "   function: 'bump' (/w/m.py:9)",
                             "   last reason: 0/1: " + GUARD % 1, "User stack trace:",
                             '  File "/w/m.py", line 11, in bump', "    return x + k",
                             'To log all recompilation reasons, use TORCH_LOGS="recompiles".'])
    return out


# ---- what they must give ------------------------------------------------------------------

ITEM_ADVICE = {
    "category": "item_call",
    "title": "A tensor's value is read into Python (.item(), .tolist(), int(t))",
    "explanation": "Dynamo cannot know the number while tracing, so it stops the graph there.",
    "fix": "Keep the value a tensor; or set torch._dynamo.config.capture_scalar_outputs = True "
           "so .item() is traced as a symbolic number (tell dynamo what you know about it with "
           "torch._check)."}
BRANCH_ADVICE = {
    "category": "data_dependent_branch",
    "title": "Python control flow depends on a tensor's value",
    "explanation": "A branch like `if x.sum() > 0:` needs the value of a tensor, which is unknown "
                   "while tracing.",
    "fix": "Express the branch on tensors: torch.where(cond, a, b), or torch.cond(pred, true_fn, "
           "false_fn) for whole branches; if the condition is an invariant, assert it with "
           "torch._check."}


def where(line, fn, code, count):
    return {"file": "/w/m.py", "line": line, "function": fn, "code": code,
            "function_start": False, "count": count}


BREAKS = [
    {"reason": "Unsupported Tensor.item() call with capture_scalar_outputs=False", "count": 2,
     "locations": ["/w/m.py:8"], "where": [where(8, "f", "s = x.sum().item()", 2)],
     "compile_ids": ["[0/0]", "[2/0]"],
     "explanation": "Dynamo does not support tracing `Tensor.item()` with "
                    "config.capture_scalar_outputs=False.",
     "hint": "Set `torch._dynamo.config.capture_scalar_outputs = True` to include these "
             "operations in the captured graph.",
     "url": URL % "0124",
     "type": "Unsupported Tensor.item() call with capture_scalar_outputs=False",
     "gb_id": "GB0124", "context": "CALL: a function call, e.g. f(x, y)",
     "hints": ["Set `torch._dynamo.config.capture_scalar_outputs = True` to include these "
               "operations in the captured graph."],
     "hint_categories": [],
     "debug_context": "call_method TensorVariable() item () {}",
     "fell_back_to_eager": False, "in_pytorch": False, "pytorch_location": None,
     "pytorch_function": None, "advice": ITEM_ADVICE},
    {"reason": "Data-dependent branching", "count": 1, "locations": ["/w/m.py:14"],
     "where": [where(14, "g", "if y.sum() > 0:", 1)], "compile_ids": ["[1/0]"],
     "explanation": "Detected data-dependent branching. Dynamo does not support tracing dynamic "
                    "control flow.\nThe branch condition involves a tensor computed as follows:\n"
                    "gt = gt(sum_1, 0)",
     "hint": "Use `torch.cond` to express dynamic control flow.",
     "url": URL % "0170", "type": "Data-dependent branching", "gb_id": "GB0170", "context": None,
     "hints": ["Use `torch.cond` to express dynamic control flow.",
               "This graph break is fundamental - it is unlikely that Dynamo will ever be able to "
               "trace through your code. Consider finding a workaround."],
     "hint_categories": ["fundamental"],
     "debug_context": "attempted to jump with TensorVariable()",
     "fell_back_to_eager": False, "in_pytorch": False, "pytorch_location": None,
     "pytorch_function": None, "advice": BRANCH_ADVICE},
]

LIMIT = {"function": "bump", "location": "/w/m.py:9", "limit": 2,
         "limit_name": "recompile_limit", "last_reason": "k == 1",
         "advice_category": "recompile_limit", "last_reason_category": "constant_number"}

GB_SUMMARY = """\
  1. GRAPH BREAK x2: Unsupported Tensor.item() call with capture_scalar_outputs=False
     at /w/m.py:8 in f: s = x.sum().item()
     compile ids: [0/0] [2/0]
     PyTorch GB0124 (https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0124.html), \
while tracing CALL: a function call, e.g. f(x, y)
     PyTorch says: Dynamo does not support tracing `Tensor.item()` with \
config.capture_scalar_outputs=False.
     PyTorch's hint: Set `torch._dynamo.config.capture_scalar_outputs = True` to include these \
operations in the captured graph.
     What: A tensor's value is read into Python (.item(), .tolist(), int(t)). Dynamo cannot know \
the number while tracing, so it stops the graph there.
     Fix: Keep the value a tensor; or set torch._dynamo.config.capture_scalar_outputs = True so \
.item() is traced as a symbolic number (tell dynamo what you know about it with torch._check).

  2. GRAPH BREAK x1: Data-dependent branching
     at /w/m.py:14 in g: if y.sum() > 0:
     compile ids: [1/0]
     PyTorch GB0170 (https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0170.html)
     PyTorch says: Detected data-dependent branching. Dynamo does not support tracing dynamic \
control flow.
       The branch condition involves a tensor computed as follows:
       gt = gt(sum_1, 0)
     PyTorch's hint: Use `torch.cond` to express dynamic control flow.
     PyTorch's hint (fundamental): This graph break is fundamental - it is unlikely that Dynamo \
will ever be able to trace through your code. Consider finding a workaround.
     What: Python control flow depends on a tensor's value. A branch like `if x.sum() > 0:` needs \
the value of a tensor, which is unknown while tracing.
     Fix: Express the branch on tensors: torch.where(cond, a, b), or torch.cond(pred, true_fn, \
false_fn) for whole branches; if the condition is an invariant, assert it with torch._check.
"""

LIMIT_SUMMARY = """\
  1. RECOMPILE LIMIT recompile_limit (2) hit in bump (defined at /w/m.py:9)
     last reason: k == 1
"""

# ---- the check ----------------------------------------------------------------------------

fails = []


def check(cond, what):
    if not cond:
        fails.append(what)
        print("FAIL: " + what, flush=True)


def run(binary, path, flag):
    p = subprocess.run([binary, path, flag], capture_output=True, text=True)
    check(p.returncode == 0, "%s %s: exit %d: %s" % (path, flag, p.returncode, p.stderr[-400:]))
    return p.stdout


def breaks_of(s):
    keep = [k for k in BREAKS[0]]
    return [{k: b.get(k) for k in keep} for b in s.get("graph_breaks", [])]


def limits_of(s):
    return [{"function": x["function"], "location": x["location"], "limit": x["limit"],
             "limit_name": x["limit_name"], "last_reason": x["last_reason"],
             "advice_category": x["advice"]["category"],
             "last_reason_category": (x.get("last_reason_advice") or {}).get("category")}
            for x in s.get("limits_hit", [])]


def findings(s):
    """The findings after the header of a --summary: from the first numbered one to the first
    line that is not part of a finding."""
    out, on = [], False
    for line in s.splitlines():
        if line.startswith("  1. "):
            on = True
        elif on and line and not line.startswith("     ") and not line.startswith("  "):
            break
        if on:
            out.append(line)
    return "\n".join(out).rstrip("\n") + "\n"


def diff(want, got):
    import difflib
    return "\n".join(difflib.unified_diff(want.splitlines(), got.splitlines(), "expected", "got",
                                          lineterm=""))


def main():
    binary = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="tl-diag213-") as d:
        logs = {"gb_trace.log": gb_trace(), "gb_text.log": gb_text(),
                "limit_trace.log": limit_trace(), "limit_text.log": limit_text()}
        for name, text in logs.items():
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        for name in ("gb_trace.log", "gb_text.log"):
            path = os.path.join(d, name)
            s = json.loads(run(binary, path, "--json") or "{}")
            got = breaks_of(s)
            check(got == BREAKS, "%s: graph_breaks:\n%s" % (
                name, diff(json.dumps(BREAKS, indent=1), json.dumps(got, indent=1))))
            check([f["kind"] + ":" + f["category"] for f in s.get("findings", [])] ==
                  ["graph_break:item_call", "graph_break:data_dependent_branch"],
                  "%s: findings %s" % (name, s.get("findings")))
            text = findings(run(binary, path, "--summary"))
            check(text == GB_SUMMARY, "%s: --summary:\n%s" % (name, diff(GB_SUMMARY, text)))
        for name in ("limit_trace.log", "limit_text.log"):
            path = os.path.join(d, name)
            s = json.loads(run(binary, path, "--json") or "{}")
            got = limits_of(s)
            check(got == [LIMIT], "%s: limits_hit %s" % (name, got))
            check(s.get("failures") == [], "%s: failures %s" % (name, s.get("failures")))
            check([f["kind"] + ":" + f["category"] for f in s.get("findings", [])] ==
                  ["limit:recompile_limit", "recompile:constant_number"],
                  "%s: findings %s" % (name, s.get("findings")))
            reasons = [(g["guard"], g["count"]) for r in s.get("recompiles", [])
                       for g in r["reasons"]]
            check(reasons == [("k == <value>", 2)], "%s: recompile reasons %s" % (name, reasons))
            text = findings(run(binary, path, "--summary"))
            check(text.startswith(LIMIT_SUMMARY), "%s: --summary:\n%s" % (name, text))
    print("diag213: %s" % ("ok" if not fails else "%d failed" % len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
