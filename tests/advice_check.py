#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The advice of symptoms whose cause the log names, checked on small logs written here by
hand, each in the forms PyTorch writes it (a structured trace, a TORCH_LOGS text; 2.6's and
2.13's words): `tlparse --json` must give exactly the category, place and flags written below.

    advice_check.py TLPARSE
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile

P = "V1127 10:00:00.000000 1 torch/_dynamo/x.py:1] "


def entry(env, cid=(0, 0, 0), payload=None):
    env = dict(env)
    if cid is not None:
        env.update(frame_id=cid[0], frame_compile_id=cid[1], attempt=cid[2])
    if payload is not None:
        env["has_payload"] = hashlib.md5(payload.encode()).hexdigest()
    out = P + json.dumps(env) + "\n"
    if payload is not None:
        out += "".join("\t" + line + "\n" for line in payload.split("\n"))
    return out


def metrics(cid, name="f", line=3, **kw):
    m = {"compile_id": "%d/%d" % cid[:2], "co_name": name, "co_filename": "/w/m.py",
         "co_firstlineno": line, "fail_type": None, "fail_reason": None, "restart_reasons": [],
         "has_guarded_code": True, "graph_node_count": 3}
    m.update(kw)
    return entry({"compilation_metrics": m}, cid)


def artifact(name, cid, payload):
    return entry({"artifact": {"name": name, "encoding": "string"}}, cid, payload)


def text(cid, tag, lines):
    pre = "V1127 10:00:00.000000 1 torch/_dynamo/x.py:1] [%s] [__%s] " % (cid, tag)
    return "".join(pre + line + "\n" for line in lines)


# ---- recompiles on one object's identity ------------------------------------------------------

# (guard as logged, its category, whether it is normal, a phrase its advice must hold)
GUARDS = [
    # model.eval() after model.train(): 2.6 guards the bool by identity, 2.13 by value
    ("___check_obj_id(L['self']._modules['drop'].training, 9788320)", "train_eval_mode", True,
     "one per mode"),
    ("self._modules['drop'].training == True", "train_eval_mode", True, "one per mode"),
    # an optional argument None, then a tensor
    ("___check_obj_id(L['mask'], 9787264)", "optional_argument", True, "mask being None"),
    ("mask is None", "optional_argument", True, "mask being None"),
    # a function passed as an argument (an address on the heap): another object
    ("___check_obj_id(L['act'], 140212345678912)", "object_identity", False, "same object"),
    # a bool switch at module level
    ("___check_obj_id(G['USE_RELU'], 9787296)", "global_flag", False, "(USE_RELU)"),
    ("G['USE_RELU'] == False", "global_flag", False, "(USE_RELU)"),
    # a bool argument
    ("flag == True", "bool_argument", False, "torch.where"),
    # a global float: as before
    ("G['scale'] == 0.5", "global_changed", False, "global variable"),
    # evaluation under torch.no_grad() after training: one graph per mode
    ("GLOBAL_STATE changed: grad_mode", "grad_mode_changed", True, "train/eval loop"),
    # autocast on after calls without it: 2.13 says so, 2.6 sees another dispatch key set
    ("GLOBAL_STATE changed: autocast(cpu)_enabled", "autocast_changed", False, "torch.autocast"),
    ("tensor 'L['a']' dispatch key set mismatch. expected DispatchKeySet(CPU, AutogradCPU), "
     "actual DispatchKeySet(CPU, AutogradCPU, AutocastCPU)", "autocast_changed", False,
     "torch.autocast"),
    # a step counter kept on the module (2.13 and 2.6 spellings): a tensor buffer instead
    ("self.step == 7", "module_number", False, "allow_unspec_int_on_nn_module"),
    ("L['self'].step == 0", "module_number", False, "register_buffer"),
    # a batch dict with labels, then without (2.13)
    ("___dict_contains('labels', batch)", "dict_keys_changed", True, "set of keys"),
    # another global setting: keep it
    ("GLOBAL_STATE changed: deterministic_algorithms", "global_state_changed", False,
     "default dtype"),
]


def guard_logs(guard):
    trace = metrics((0, 0, 0)) + metrics((0, 1, 0), recompile_reason="0/0: " + guard)
    txt = text("0/1", "recompiles", [
        "Recompiling function f in /w/m.py:3",
        "    triggered by the following guard failure(s):",
        "    - 0/0: %s                   # if x:  # w/m.py:4 in f" % guard])
    return trace, txt


def check_guard(s, want):
    guard, cat, normal, phrase = want
    r = s["recompiles"]
    assert len(r) == 1 and len(r[0]["reasons"]) == 1, r
    a = r[0]["reasons"][0]["advice"]
    assert a["category"] == cat, (guard, a["category"], cat)
    assert s["findings"] == [{"kind": "recompile", "index": 0, "category": cat, "normal": normal}], \
        s["findings"]
    assert phrase in a["explanation"] + " " + a["fix"], (guard, phrase, a)


# ---- a graph break inside a loop --------------------------------------------------------------

BREAK_26 = """Graph break in user code at /w/m.py:9
Reason: Unsupported: builtin: print [<class 'torch._dynamo.variables.constant.ConstantVariable'>] False
User code traceback:
  File "/w/m.py", line 9, in accumulate
    print("step", i)
"""

TEXT_BREAK_26 = [
    "Graph break in user code at /w/m.py:9",
    "Reason: Unsupported: builtin: print [<class 'torch._dynamo.variables.constant.ConstantVariable'>] False",
    "User code traceback:",
    '  File "/w/m.py", line 9, in accumulate',
    '    print("step", i)']

TEXT_BREAK_213 = [
    "Graph break in user code at /w/m.py:9",
    "Graph Break Reason: Failed to handle graph break gracefully. Skipping the function and "
    "falling back to eager. Graph break encountered:",
    "",
    "Failed to trace builtin operator",
    "  Explanation: Dynamo does not know how to trace builtin operator `print` with argument "
    "types ['str', 'int'] (has_kwargs False)",
    "  Hint: Avoid calling builtin `print` with argument types ['str', 'int'].",
    "",
    "*** While handling this graph break, another graph break occurred: ***",
    "",
    "graph break in loop",
    "  Explanation: torch.compile detected a graph break in a for/while loop. Skipping the "
    "frame and falling back to eager, as graph breaks in loops are not supported.",
    "  Hint: This graph break may have been caused by an earlier graph break. Resolving the "
    "earlier graph break may resolve this one.",
    "",
    "User code traceback:",
    '  File "/w/m.py", line 9, in accumulate',
    '    print("step", i)']

LOOP_213_FAIL = ("Failed to trace builtin operator\n  Explanation: Dynamo does not know how to "
                 "trace builtin operator `print`\n\n*** While handling this graph break, another "
                 "graph break occurred: ***\n\ngraph break in loop\n  Explanation: torch.compile "
                 "detected a graph break in a for/while loop. Skipping the frame and falling "
                 "back to eager, as graph breaks in loops are not supported.")


def check_loop(s, loop=True):
    b = s["graph_breaks"]
    assert len(b) == 1, b
    assert b[0]["locations"] == ["/w/m.py:9"], b[0]["locations"]
    assert b[0]["fell_back_to_eager"] == loop, b[0]
    want = "graph_break_in_loop" if loop else "print"
    assert b[0]["advice"]["category"] == want, b[0]["advice"]
    assert s["failures"] == [], s["failures"]
    assert [f["category"] for f in s["findings"]] == [want], s["findings"]
    if loop:
        assert "move the call that breaks out of the loop" in b[0]["advice"]["fix"], b[0]["advice"]


# ---- an exception that ended the program ------------------------------------------------------

UNCAUGHT_26 = """I1127 10:00:00.000000 1 torch/fx/experimental/symbolic_shapes.py:3192] [0/0] create_env
Traceback (most recent call last):
  File "/w/m.py", line 11, in <module>
    scale(torch.ones(4))
  File "/usr/lib/python3/dist-packages/torch/_dynamo/eval_frame.py", line 574, in _fn
    return fn(*args, **kwargs)
torch._dynamo.exc.Unsupported: builtin: print [<class 'torch._dynamo.variables.constant.ConstantVariable'>] False

from user code:
   File "/w/m.py", line 7, in scale
    print("scaling")

Set TORCH_LOGS="+dynamo" and TORCHDYNAMO_VERBOSE=1 for more information
"""

UNCAUGHT_213 = """I1127 10:00:00.000000 1 torch/fx/experimental/symbolic_shapes.py:4058] [0/0] create_env
Traceback (most recent call last):
  File "/w/m.py", line 11, in <module>
    scale(torch.ones(4))
  File "/venv/lib/python3.11/site-packages/torch/_dynamo/eval_frame.py", line 1177, in compile_wrapper
    raise e.with_traceback(
torch._dynamo.exc.Unsupported: Failed to trace builtin operator
  Explanation: Dynamo does not know how to trace builtin operator `print` with argument types ['str'] (has_kwargs False)
  Hint: Avoid calling builtin `print` with argument types ['str'].

  Developer debug context: builtin print [<class 'torch._dynamo.variables.constant.ConstantVariable'>] False


from user code:
   File "/w/m.py", line 7, in scale
    print("scaling")

Set TORCHDYNAMO_VERBOSE=1 for the internal stack trace (please do this especially if you're reporting a bug to PyTorch).
"""

UNCAUGHT_OWN = """I1127 10:00:00.000000 1 torch/fx/experimental/symbolic_shapes.py:3192] [0/0] create_env
Traceback (most recent call last):
  File "/w/m.py", line 11, in <module>
    load("missing.pt")
ValueError: no such checkpoint
"""


def check_uncaught(s):
    f = s["failures"]
    assert len(f) == 1, f
    got = (f[0]["type"], f[0]["compile_id"], f[0]["fell_back_to_eager"], f[0]["location"],
           f[0]["advice"]["category"])
    assert got == ("Unsupported", "[0/0]", False, "/w/m.py:7", "unsupported_fullgraph"), got
    assert s["graph_breaks"] == [], s["graph_breaks"]


# ---- a frame that failed and ran in eager mode ------------------------------------------------

WONT = """WON'T CONVERT pack /w/m.py line 15
========== TorchDynamo Stack Trace ==========
Traceback (most recent call last):
  File "/usr/lib/python3/dist-packages/torch/_dynamo/output_graph.py", line 1462, in _call_user_compiler
    compiled_fn = compiler_fn(gm, self.example_inputs())
  File "/usr/lib/python3/dist-packages/torch/_subclasses/fake_impls.py", line 399, in local_scalar_dense
    raise DataDependentOutputException(func)
torch._subclasses.fake_tensor.DataDependentOutputException: aten._local_scalar_dense.default

While executing %item : [num_users=1] = call_method[target=item](args = (%getitem,), kwargs = {})
Original traceback:
  File "/w/m.py", line 17, in pack
  File "/w/m.py", line 11, in total
  File "/w/m.py", line 7, in counts


========== The above exception occurred while processing the following code ==========


=========="""

FAKE_FAIL = ("Backend compiler failed with a fake tensor exception at \n  File \"/w/m.py\", "
             "line 18, in pack\n    return x / total(mask)\nAdding a graph break.")

SKIP_TEXT = [
    "Graph break: skip: from user code at:",
    '  File "/w/m.py", line 18, in pack',
    "    return x / total(mask)",
    "",
    "Traceback (most recent call last):",
    '  File "/usr/lib/python3/dist-packages/torch/_dynamo/output_graph.py", line 1467, in call_user_compiler',
    "    unimplemented_with_warning(e, self.root_tx.f_code, msg)",
    "torch._dynamo.exc.Unsupported: Backend compiler failed with a fake tensor exception at ",
    '  File "/w/m.py", line 18, in pack',
    "Adding a graph break."]


def check_wont(s):
    f = s["failures"]
    assert len(f) == 1, f
    got = (f[0]["type"], f[0]["compile_id"], f[0]["fell_back_to_eager"], f[0]["location"],
           f[0]["advice"]["category"])
    assert got == ("DataDependentOutputException", "[0/0]", True, "/w/m.py:7",
                   "data_dependent_output"), got
    assert "capture_scalar_outputs = True" in f[0]["advice"]["fix"], f[0]["advice"]
    assert s["graph_breaks"] == [], s["graph_breaks"]


# 2.6 with suppress_errors: an Unsupported that ran in eager mode is no fullgraph error
SUPPRESSED = [
    "WON'T CONVERT f /w/m.py line 3 ",
    "due to: ",
    "Traceback (most recent call last):",
    '  File "/usr/lib/python3/dist-packages/torch/_dynamo/convert_frame.py", line 1064, in __call__',
    "    result = self._inner_convert(",
    "torch._dynamo.exc.Unsupported: generic_jump TensorVariable()",
    "",
    "from user code:",
    '   File "/w/m.py", line 5, in f',
    "    with torch.no_grad():"]


# ---- PyTorch's reason names the fix -----------------------------------------------------------

LOGGER_26 = ("Logger not supported for non-export cases. To avoid graph breaks caused by logger "
             "in compile-mode, it is recommended to disable logging by adding logging methods "
             "to config.ignore_logger_methods")

TEXT_LOGGER_213 = [
    "Graph break in user code at /w/m.py:12",
    "Graph Break Reason: Encountered graph break when attempting to trace CALL: a function "
    "call, e.g. f(x, y):",
    "",
    "logging.Logger method not supported for non-export cases",
    "  Explanation: logging.Logger methods are not supported for non-export cases.",
    "  Hint: Add the logging method to `torch._dynamo.config.ignore_logging_functions`.",
    "",
    "User code traceback:",
    '  File "/w/m.py", line 12, in step',
    '    log.info("step done")']

DISABLED_26 = "call torch._dynamo.disable() wrapped function <function record at 0x7f3a2c1e4d60>"

TEXT_DISABLED_213 = [
    "Graph break in user code at /w/m.py:13",
    "Graph Break Reason: Encountered graph break when attempting to trace CALL: a function "
    "call, e.g. f(x, y):",
    "",
    "Skip calling `torch.compiler.disable()`d function",
    "  Explanation: Skip calling function `<function record at 0x7f3a2c1e4d60>` since it was "
    "wrapped with `torch.compiler.disable` (reason: None)",
    "  Hint: Remove the `torch.compiler.disable` call",
    "",
    "User code traceback:",
    '  File "/w/m.py", line 13, in forward',
    "    record(y)"]


def trace_break(reason, line, fn):
    payload = ("Graph break in user code at /w/m.py:%d\nReason: Unsupported: %s\nUser code "
               "traceback:\n  File \"/w/m.py\", line %d, in %s\n    x\n" % (line, reason, line, fn))
    return (artifact("dynamo_graph_break_reason", (0, 0, 0), payload) +
            metrics((0, 0, 0), name=fn, restart_reasons=[reason]))


def text_break(reason, line, fn):
    return text("0/0", "graph_breaks", [
        "Graph break in user code at /w/m.py:%d" % line, "Reason: Unsupported: " + reason,
        "User code traceback:", '  File "/w/m.py", line %d, in %s' % (line, fn), "    x"])


def check_break(cat, phrases):
    def check(s):
        b = s["graph_breaks"]
        assert len(b) == 1, b
        a = b[0]["advice"]
        assert a["category"] == cat and not b[0]["fell_back_to_eager"], (a["category"], cat)
        for ph in phrases:
            assert ph in a["explanation"] + " " + a["fix"], (ph, a)
    return check


TRITON_TEM = ("backend='inductor' raised:\nRuntimeError: Triton Error [CUDA]: out of resource: "
              "shared memory, required 147456 > hardware limit 101376 for kernel "
              "triton_tem_fused_mm_0 <grid=(4, 2, 1)>. Reducing block sizes or `num_stages` "
              "may help.")
TRITON_POI = ("backend='inductor' raised:\nOutOfResources: out of resource: shared memory, "
              "Required: 196608, Hardware limit: 101376. Reducing block sizes or `num_stages` "
              "may help.")
TEXT_TRITON = [
    "WON'T CONVERT forward /w/m.py line 20 ",
    "due to: ",
    "Traceback (most recent call last):",
    '  File "/tmp/torchinductor_u/ab/cabc.py", line 40, in <module>',
    "    triton_tem_fused_mm_0 = async_compile.triton('triton_tem_fused_mm_0', '''",
    '  File "/usr/lib/python3/dist-packages/triton/compiler/compiler.py", line 300, in compile',
    "    raise OutOfResources(shared, max_shared, 'shared memory')",
    "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:",
    "OutOfResources: out of resource: shared memory, Required: 196608, Hardware limit: 101376. "
    "Reducing block sizes or `num_stages` may help."]


def check_failure(cat, phrase):
    def check(s):
        f = s["failures"]
        assert len(f) == 1 and f[0]["advice"]["category"] == cat, (f, cat)
        assert phrase in f[0]["advice"]["fix"], f[0]["advice"]
    return check


def cases():
    out = []
    for g in GUARDS:
        tr, tx = guard_logs(g[0])
        out.append(("guard %s (trace)" % g[0], tr, lambda s, g=g: check_guard(s, g)))
        out.append(("guard %s (text)" % g[0], tx, lambda s, g=g: check_guard(s, g)))
    loop26 = (artifact("dynamo_graph_break_reason", (0, 0, 0), BREAK_26) +
              metrics((0, 0, 0), name="accumulate", line=5, has_guarded_code=False,
                      graph_node_count=None))
    out.append(("loop 2.6 (trace)", loop26, check_loop))
    out.append(("no loop 2.6 (trace)",
                artifact("dynamo_graph_break_reason", (0, 0, 0), BREAK_26) +
                metrics((0, 0, 0), name="accumulate", line=5,
                        restart_reasons=["builtin: print"]),
                lambda s: check_loop(s, False)))
    create = "I1127 10:00:00.000000 1 torch/fx/experimental/symbolic_shapes.py:3192] [0/0] create_env\n"
    out.append(("loop 2.6 (text)", create + text("0/0", "graph_breaks", TEXT_BREAK_26), check_loop))
    produce = "I1127 10:00:00.000000 1 torch/fx/experimental/symbolic_shapes.py:4547] [0/0_1] produce_guards\n"
    out.append(("no loop 2.6 (text)", create + text("0/0", "graph_breaks", TEXT_BREAK_26) + produce,
                lambda s: check_loop(s, False)))
    out.append(("loop 2.13 (text)", create + text("0/0", "graph_breaks", TEXT_BREAK_213), check_loop))
    out.append(("loop 2.13 (trace)",
                artifact("dynamo_graph_break_reason", (0, 0, 0), BREAK_26) +
                metrics((0, 0, 0), name="accumulate", line=5, has_guarded_code=False,
                        fail_type="Unsupported", fail_reason=LOOP_213_FAIL,
                        fail_user_frame_filename="/w/m.py", fail_user_frame_lineno=9),
                check_loop))
    out.append(("uncaught 2.6 (text)", UNCAUGHT_26, check_uncaught))
    out.append(("uncaught 2.13 (text)", UNCAUGHT_213, check_uncaught))
    out.append(("uncaught, the program's own (text)", UNCAUGHT_OWN,
                lambda s: s["failures"] == [] or (_ for _ in ()).throw(AssertionError(s["failures"]))))
    out.append(("won't convert 2.6 (trace)",
                artifact("dynamo_graph_break_reason", (0, 0, 0), WONT) +
                artifact("dynamo_graph_break_reason", (0, 0, 1), WONT) +
                metrics((0, 0, 0), name="pack", line=15, has_guarded_code=False,
                        fail_type="Unsupported", fail_reason=FAKE_FAIL), check_wont))
    out.append(("won't convert 2.6 (text)",
                text("0/0", "graph_breaks", WONT.split("\n")) +
                text("0/0_1", "graph_breaks", WONT.split("\n")) +
                text("0/0", "graph_breaks", SKIP_TEXT), check_wont))
    # the logger's prefix on every line, or on the first one only
    out.append(("suppressed Unsupported (text)", text("0/0", "dynamo", SUPPRESSED),
                check_failure("frame_skipped", "fullgraph=True")))
    out.append(("suppressed Unsupported, one prefix (text)",
                "W1127 10:00:00.000000 1 torch/_dynamo/convert_frame.py:1234] " +
                "\n".join(SUPPRESSED) + "\n",
                check_failure("frame_skipped", "fullgraph=True")))
    out.append(("logger 2.6 (trace)", trace_break(LOGGER_26, 12, "step"),
                check_break("logger_call", ["torch._dynamo.config.ignore_logger_methods"])))
    out.append(("logger 2.6 (text)", text_break(LOGGER_26, 12, "step"),
                check_break("logger_call", ["torch._dynamo.config.ignore_logger_methods"])))
    out.append(("logger 2.13 (text)", text("0/0", "graph_breaks", TEXT_LOGGER_213),
                check_break("logger_call", ["torch._dynamo.config.ignore_logging_functions"])))
    out.append(("disabled 2.6 (trace)", trace_break(DISABLED_26, 13, "forward"),
                check_break("disabled_function", ["The function record is decorated"])))
    out.append(("disabled 2.6 (text)", text_break(DISABLED_26, 13, "forward"),
                check_break("disabled_function", ["The function record is decorated"])))
    out.append(("disabled 2.13 (text)", text("0/0", "graph_breaks", TEXT_DISABLED_213),
                check_break("disabled_function", ["The function record is decorated"])))
    out.append(("triton template (trace)",
                metrics((0, 0, 0), fail_type="BackendCompilerFailed", fail_reason=TRITON_TEM),
                check_failure("autotune_out_of_resources", 'max_autotune_gemm_backends = "ATEN"')))
    out.append(("triton template (text)",
                "V1127 10:00:00.000000 1 torch/_dynamo/x.py:1] [0/0] [__recompiles] x\n" +
                "".join(line + "\n" for line in TEXT_TRITON),
                check_failure("autotune_out_of_resources", 'max_autotune_gemm_backends = "ATEN"')))
    out.append(("triton kernel (trace)",
                metrics((0, 0, 0), fail_type="BackendCompilerFailed", fail_reason=TRITON_POI),
                check_failure("triton_out_of_resources", "TORCHDYNAMO_REPRO_AFTER")))
    # layers of different widths compiled one by one: the width meets a Linear's weight
    for style, prefix in (("2.13 text", "nn/modules"), ("trace-like path", "/v/torch/nn/modules")):
        lines = []
        for k, w in enumerate((16, 32)):
            lines += [
                "V1127 10:00:00.000000 1 torch/_dynamo/guards.py:1] [0/%d] [__recompiles] "
                "Recompiling function forward in /w/m.py:12" % (k + 1),
                "V1127 10:00:00.000000 1 torch/_dynamo/guards.py:1] [0/%d] [__recompiles]     "
                "triggered by the following guard failure(s):" % (k + 1),
                "V1127 10:00:00.000000 1 torch/_dynamo/guards.py:1] [0/%d] [__recompiles]     "
                "- 0/%d: tensor 'x' size mismatch at index 1. expected %d, actual %d"
                % (k + 1, k, w // 2, w),
                "I1127 10:00:00.000000 1 torch/fx/experimental/symbolic_shapes.py:1] [0/%d] "
                "create_symbol s27 = %d for L['x'].size()[1] [2, int_oo] return F.linear(input, "
                "self.weight, self.bias)  # %s/linear.py:134 in forward" % (k + 1, w, prefix),
                "I1127 10:00:00.000000 1 torch/fx/experimental/symbolic_shapes.py:1] [0/%d] "
                "eval Eq(s27, %d) [guard added] return F.linear(input, self.weight, self.bias)  "
                "# %s/linear.py:134 in forward" % (k + 1, w, prefix)]

        def check_widths(s):
            cats = [(f["kind"], f["category"]) for f in s["findings"]]
            assert cats == [("recompile", "parameter_shape"), ("specialization", "parameter_shape"),
                            ("specialization", "parameter_shape")], cats
            fix = s["recompiles"][0]["advice"]["fix"]
            assert "torch.compile(model)" in fix and "mark_dynamic" not in fix, fix
        out.append(("layer widths (%s)" % style, "".join(x + "\n" for x in lines), check_widths))
    # a compiled model's input: 2.13 names it args[0], its symbol's source L['args'][0]
    for name in ("args[0]", "L['args'][0]"):
        log = "".join(x + "\n" for x in [
            "V1127 10:00:00.000000 1 torch/_dynamo/guards.py:1] [0/1] [__recompiles] "
            "Recompiling function inner in /v/torch/_dynamo/external_utils.py:67",
            "V1127 10:00:00.000000 1 torch/_dynamo/guards.py:1] [0/1] [__recompiles]     "
            "triggered by the following guard failure(s):",
            "V1127 10:00:00.000000 1 torch/_dynamo/guards.py:1] [0/1] [__recompiles]     "
            "- 0/0: tensor '%s' size mismatch at index 0. expected 32, actual 4" % name,
            "I1127 10:00:00.000000 1 torch/fx/experimental/symbolic_shapes.py:1] [0/1] "
            "create_symbol s33 = 4 for L['args'][0].size()[0] [2, int_oo] return F.linear("
            "input, self.weight, self.bias)  # nn/modules/linear.py:134 in forward"])

        def check_args(s, name=name):
            assert s["findings"] == [{"kind": "recompile", "index": 0,
                                      "category": "automatic_dynamic", "normal": True}], \
                (name, s["findings"])
            fix = s["recompiles"][0]["advice"]["fix"]
            assert "args'][" not in fix, fix
        out.append(("compiled model's input %s (text)" % name, log, check_args))
    return out


def main(argv):
    tlparse = os.path.abspath(argv[1])
    problems = []
    n = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, log, check in cases():
            n += 1
            path = os.path.join(tmp, "case%d.log" % n)
            with open(path, "w") as f:
                f.write(log)
            p = subprocess.run([tlparse, path, "--json"], capture_output=True, text=True)
            if p.returncode != 0:
                problems.append("%s: exit %d: %s" % (name, p.returncode, p.stderr[-300:]))
                continue
            try:
                check(json.loads(p.stdout))
            except AssertionError as e:
                problems.append("%s: %s" % (name, e))
    for pr in problems:
        print("FAIL: advice: " + pr)
    print("advice: %d cases, %d failed" % (n, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
