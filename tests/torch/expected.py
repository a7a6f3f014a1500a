# SPDX-License-Identifier: BSD-3-Clause
"""What each scenario of tests/torch/scenarios/ must produce, as torch_check.project() writes
it: for the trace ("trace", or "trace_rankN" for each rank of a multi-rank run) exactly; the
TORCH_LOGS text of the same run must give the same, but for the facts the text does not hold
(TEXT_LACKS, and a case's own "text_lacks"), or what its "text" entry says instead.

A case is checked under every PyTorch the suite runs (2.13 and 2.6). Where a version logs
otherwise (2.13 names a guard's tensor 'x' where 2.6 wrote 'L['x']', and numbers its symbols
s77 where 2.6 wrote s0), the case's key of that version ("2.13": {"trace": ...}) holds the
entries it must give instead; "versions": ["2.13"] runs a case only under those versions.

Places are the file's base name and line. Each case says, above it, what happened in the run:
what a careful engineer reading the script and the log concludes.
"""

# Facts that TORCH_LOGS="recompiles,graph_breaks,dynamic,guards" does not print: the restarts
# (only the metrics of a trace record them), and for a function of PyTorch's own, the user's
# line that called it (the text names the function, not its callers); the caches' hits and
# misses ("cache": [hit, miss, bypass] of fx_graph and aotautograd; "cache_misses": each miss's
# [compile id, cache, nearest earlier entry, components that differ]; "cache_bypasses": each
# bypass's [compile id, cache, reason]; each asserted only by the cases that give it); where a
# frame's recompile limit comes from (the text has no dynamo config: the limit's message, or
# PyTorch's default). "forecast" (the frames compiled more than once or run in eager mode) is
# asserted only by the cases that give it.
TEXT_LACKS = ["restarts", "recompiles.called_from", "cache", "cache_misses", "cache_bypasses",
              "forecast.limit_from"]

NONE = {"compile_ids": 0, "findings": [], "graph_breaks": [], "recompiles": [], "restarts": [],
        "specializations": [], "failures": [], "limits": [], "export": [], "dynamic": []}


def case(**kw):
    c = dict(NONE)
    c.update(kw)
    return c


CASES = {}

# backend=broken_backend raises; suppress_errors is on, so f ran in eager mode (no exception
# reached the program). One failure of [0/0]: the backend, not Inductor.
CASES["backend_fail"] = {"trace": case(
    compile_ids=1,
    findings=["failure:backend_failed"],
    failures=[{"type": "BackendCompilerFailed", "compile_id": "[0/0]",
               "fell_back_to_eager": True, "category": "backend_failed"}])}

# os.getpid() is a C builtin dynamo does not trace: one graph break at line 8; the rest of
# with_pid resumes in [1/0].
CASES["builtin"] = {"trace": case(
    compile_ids=2,
    findings=["graph_break:c_extension"],
    graph_breaks=[{"reason": "Graph break due to unsupported builtin posix.getpid. This function is ",
                   "count": 1, "where": ["builtin.py:8"], "in_pytorch": None,
                   "compile_ids": ["[0/0]"]}])}
# 2.13 names the break by its type ("Attempted to call function marked as skipped", GB0007);
# its explanation still says C/C++ extension.
CASES["builtin"]["2.13"] = {"trace": dict(CASES["builtin"]["trace"], graph_breaks=[
    {"reason": "Attempted to call function marked as skipped", "count": 1,
     "where": ["builtin.py:8"], "in_pytorch": None, "compile_ids": ["[0/0]"],
     "gb_id": "GB0007"}])}

# The same Linear compiled twice in one process with torch._dynamo.reset() between, and a cache
# folder of its own: the first compile misses the AOT autograd cache and the FX graph cache
# (forward and backward), the second hits them. reset() starts the ids again: both are [0/0].
# (PyTorch 2.6 says the AOT autograd verdicts by chromium events only, 2.13 by artifacts too.)
CASES["cache"] = {"trace": case(
    compile_ids=1,
    cache={"fx_graph": [2, 2, 0], "aotautograd": [1, 1, 0]},
    # the three misses are the first of their kind: nothing to compare them with (the
    # backward graph's miss is not compared with the forward's entry)
    cache_misses=[["[0/0]", "fx_graph", None, []], ["[0/0]", "aotautograd", None, []],
                  ["[0/0]", "fx_graph", None, []]])}
# (2.13 writes the AOT autograd verdict before it compiles the graphs, 2.6 after the forward.)
CASES["cache"]["2.13"] = {"trace": dict(CASES["cache"]["trace"], cache_misses=[
    ["[0/0]", "aotautograd", None, []], ["[0/0]", "fx_graph", None, []],
    ["[0/0]", "fx_graph", None, []]])}

# The same function compiled twice over one cache folder, torch._dynamo.reset() between and
# inductor's max_autotune flipped for the second: both compiles miss both caches; the second
# FX graph miss differs from the first entry in max_autotune only. PyTorch 2.6 lists the AOT
# autograd key's components too (the same difference); 2.13 lists them only with DEBUG logging
# on, so its AOT autograd misses have nothing to compare.
MAX_AUTOTUNE = "inductor config `max_autotune` changed (False -> True)"
CASES["cache_config"] = {"trace": case(
    compile_ids=1,
    cache={"fx_graph": [0, 2, 0], "aotautograd": [0, 2, 0]},
    cache_misses=[["[0/0]", "fx_graph", None, []], ["[0/0]", "aotautograd", None, []],
                  ["[0/0]", "fx_graph", "[0/0]", [MAX_AUTOTUNE]],
                  ["[0/0]", "aotautograd", "[0/0]", [MAX_AUTOTUNE]]])}
CASES["cache_config"]["2.13"] = {"trace": dict(CASES["cache_config"]["trace"], cache_misses=[
    ["[0/0]", "aotautograd", None, []], ["[0/0]", "fx_graph", None, []],
    ["[0/0]", "aotautograd", None, []], ["[0/0]", "fx_graph", "[0/0]", [MAX_AUTOTUNE]]])}

# float32, float64, then float32 transposed (automatic dynamic shapes off): f recompiles twice
# (dtype, then stride), and each compile misses the FX graph cache: [0/1] against [0/0] on
# input 0's dtype, [0/2] against [0/0] (not [0/1], whose dtype differs too) on its stride (and
# the memory format that goes with it). 2.6 does not use the AOT autograd cache for inference
# by default; 2.13 does, without components (as above).
DTYPE_MISS = "input 0's dtype changed (torch.float32 -> torch.float64)"
STRIDE_MISS = ("input 0's stride and memory_format changed (stride (4, 1) -> (1, 4); "
               "memory_format torch.contiguous_format -> None)")
CASES["cache_dtype"] = {"trace": case(
    compile_ids=3,
    findings=["recompile:dtype_changed"],
    recompiles=[{"function": "f", "location": "cache_dtype.py:14", "resumes_after_line": None,
                 "count": 2, "reasons": [["tensor 'L['x']' dtype mismatch", 2, "dtype_changed"],
                                         ["tensor 'L['x']' stride mismatch at index 0", 1,
                                          "layout_changed"]],
                 "compile_ids": ["[0/1]", "[0/2]"], "called_from": None}],
    cache={"fx_graph": [0, 3, 0], "aotautograd": [0, 0, 0]},
    cache_misses=[["[0/0]", "fx_graph", None, []], ["[0/1]", "fx_graph", "[0/0]", [DTYPE_MISS]],
                  ["[0/2]", "fx_graph", "[0/0]", [STRIDE_MISS]]])}
CASES["cache_dtype"]["2.13"] = {"trace": dict(
    CASES["cache_dtype"]["trace"],
    recompiles=[dict(CASES["cache_dtype"]["trace"]["recompiles"][0], reasons=[
        ["tensor 'x' dtype mismatch", 2, "dtype_changed"],
        ["tensor 'x' stride mismatch at index 0", 1, "layout_changed"]])],
    cache={"fx_graph": [0, 3, 0], "aotautograd": [0, 3, 0]},
    cache_misses=[["[0/0]", "aotautograd", None, []], ["[0/0]", "fx_graph", None, []],
                  ["[0/1]", "aotautograd", None, []],
                  ["[0/1]", "fx_graph", "[0/0]", [DTYPE_MISS]],
                  ["[0/2]", "aotautograd", None, []],
                  ["[0/2]", "fx_graph", "[0/0]", [STRIDE_MISS]]])}

# A custom post-grad pass without a uuid: Inductor cannot key it, so the FX graph cache is
# bypassed with its reason (2.13: the AOT autograd cache too, for the same reason).
CASES["cache_bypass"] = {"trace": case(
    compile_ids=1,
    cache={"fx_graph": [0, 0, 1], "aotautograd": [0, 0, 0]},
    cache_bypasses=[["[0/0]", "fx_graph", "Unsupported post grad custom pass"]])}
CASES["cache_bypass"]["2.13"] = {"trace": dict(
    CASES["cache_bypass"]["trace"],
    cache={"fx_graph": [0, 0, 1], "aotautograd": [0, 0, 1]},
    cache_bypasses=[["[0/0]", "aotautograd", "Unsupported post grad custom pass"],
                    ["[0/0]", "fx_graph", "Unsupported post grad custom pass"]])}

# `if x.sum() > 0:` needs the tensor's value: a graph break that does not restart the frame
# (PyTorch 2.6 logs it as a dynamo_graph_break_reason artifact, no restart reason).
CASES["datadep_if"] = {"trace": case(
    compile_ids=2,
    findings=["graph_break:data_dependent_branch"],
    graph_breaks=[{"reason": "Data-dependent jump", "count": 1, "where": ["datadep_if.py:7"],
                   "in_pytorch": None, "compile_ids": ["[0/0]"]}])}
# 2.13 calls it "Data-dependent branching" (GB0170).
CASES["datadep_if"]["2.13"] = {"trace": dict(CASES["datadep_if"]["trace"], graph_breaks=[
    {"reason": "Data-dependent branching", "count": 1, "where": ["datadep_if.py:7"],
     "in_pytorch": None, "compile_ids": ["[0/0]"], "gb_id": "GB0170"}])}

# float32 then float64: norm recompiles once, on the dtype.
CASES["dtype"] = {"trace": case(
    compile_ids=2,
    findings=["recompile:dtype_changed"],
    recompiles=[{"function": "norm", "location": "dtype.py:5", "resumes_after_line": None,
                 "count": 1, "reasons": [["tensor 'L['x']' dtype mismatch", 1, "dtype_changed"]],
                 "compile_ids": ["[0/1]"], "called_from": None}])}
# 2.13 names the guard's tensor as the code does: 'x', not L['x'].
CASES["dtype"]["2.13"] = {"trace": dict(CASES["dtype"]["trace"], recompiles=[dict(
    CASES["dtype"]["trace"]["recompiles"][0],
    reasons=[["tensor 'x' dtype mismatch", 1, "dtype_changed"]])])}

# mark_dynamic(x, 0): s0 = L['x'].size()[0], kept dynamic; the code adds a range guard
# (2*s0 >= 16, line 8) and a divisibility guard (Mod(s0, 2) == 0, line 9, from view(2, -1)).
# Neither specializes s0 to one value. PyTorch 2.13 also evaluates 8*((s77//2)) <= 4*s77 and
# 4*((s77//2)) <= 4*s77 for the view's bounds (with guards suppressed): true for every size, no
# finding.
CASES["dyn_guard"] = {"trace": case(
    compile_ids=1,
    findings=["specialization:shape_guard", "specialization:divisibility_guard"],
    specializations=[
        {"kind": "guard", "expr": "2*s0 >= 16", "source": None,
         "symbols": [["s0", "L['x'].size()[0]"]], "location": "dyn_guard.py:8",
         "category": "shape_guard"},
        {"kind": "guard", "expr": "Eq(Mod(s0, 2), 0)", "source": None,
         "symbols": [["s0", "L['x'].size()[0]"]], "location": "dyn_guard.py:9",
         "category": "divisibility_guard"}],
    dynamic=[["s0", "L['x'].size()[0]"]])}
# 2.13 numbers the symbol s77.
CASES["dyn_guard"]["2.13"] = {"trace": case(
    compile_ids=1,
    findings=["specialization:shape_guard", "specialization:divisibility_guard"],
    specializations=[
        {"kind": "guard", "expr": "2*s77 >= 16", "source": None,
         "symbols": [["s77", "L['x'].size()[0]"]], "location": "dyn_guard.py:8",
         "category": "shape_guard"},
        {"kind": "guard", "expr": "Eq(Mod(s77, 2), 0)", "source": None,
         "symbols": [["s77", "L['x'].size()[0]"]], "location": "dyn_guard.py:9",
         "category": "divisibility_guard"}],
    dynamic=[["s77", "L['x'].size()[0]"]])}

# maybe_mark_dynamic(x, 0), then `x.shape[0] == 5`: s0 is specialized to 5 at line 8 (allowed
# with maybe_mark_dynamic: no error).
CASES["dyn_spec"] = {"trace": case(
    compile_ids=1,
    findings=["specialization:dimension_specialized"],
    specializations=[{"kind": "specialized", "expr": "Eq(s0, 5)", "source": "L['x'].size()[0]",
                      "symbols": [["s0", "L['x'].size()[0]"]],
                      "location": "dyn_spec.py:8", "category": "dimension_specialized"}],
    dynamic=[["s0", "L['x'].size()[0]"]])}
# 2.13 numbers the symbol s77.
CASES["dyn_spec"]["2.13"] = {"trace": case(
    compile_ids=1,
    findings=["specialization:dimension_specialized"],
    specializations=[{"kind": "specialized", "expr": "Eq(s77, 5)", "source": "L['x'].size()[0]",
                      "symbols": [["s77", "L['x'].size()[0]"]],
                      "location": "dyn_spec.py:8", "category": "dimension_specialized"}],
    dynamic=[["s77", "L['x'].size()[0]"]])}

# mark_dynamic(x, 0), then `x.shape[0] == 5`: the specialization to 5 violates the mark, and
# compiling [0/0] fails with ConstraintViolationError (the script catches it).
CASES["dyn_violation"] = {"trace": case(
    compile_ids=1,
    findings=["failure:dynamic_constraint_violated", "specialization:dimension_specialized"],
    failures=[{"type": "ConstraintViolationError", "compile_id": "[0/0]",
               "fell_back_to_eager": False, "category": "dynamic_constraint_violated"}],
    specializations=[{"kind": "specialized", "expr": "Eq(s0, 5)", "source": "L['x'].size()[0]",
                      "symbols": [["s0", "L['x'].size()[0]"]],
                      "location": "dyn_violation.py:8", "category": "dimension_specialized"}],
    dynamic=[["s0", "L['x'].size()[0]"]])}
# 2.13 numbers the symbol s77.
CASES["dyn_violation"]["2.13"] = {"trace": case(
    compile_ids=1,
    findings=["failure:dynamic_constraint_violated", "specialization:dimension_specialized"],
    failures=[{"type": "ConstraintViolationError", "compile_id": "[0/0]",
               "fell_back_to_eager": False, "category": "dynamic_constraint_violated"}],
    specializations=[{"kind": "specialized", "expr": "Eq(s77, 5)", "source": "L['x'].size()[0]",
                      "symbols": [["s77", "L['x'].size()[0]"]],
                      "location": "dyn_violation.py:8", "category": "dimension_specialized"}],
    dynamic=[["s77", "L['x'].size()[0]"]])}

# torch._dynamo.graph_break() in the user's code, line 8: the user's own break.
CASES["explicit_break"] = {"trace": case(
    compile_ids=2,
    findings=["graph_break:user_graph_break"],
    graph_breaks=[{"reason": "skip function graph_break in file /usr/lib/python3/dist-packages/torch",
                   "count": 1, "where": ["explicit_break.py:8"], "in_pytorch": None,
                   "compile_ids": ["[0/0]"]}])}
# 2.13 names it "Call to `torch._dynamo.graph_break()`" (GB0025).
CASES["explicit_break"]["2.13"] = {"trace": dict(CASES["explicit_break"]["trace"], graph_breaks=[
    {"reason": "Call to `torch._dynamo.graph_break()`", "count": 1,
     "where": ["explicit_break.py:8"], "in_pytorch": None, "compile_ids": ["[0/0]"],
     "gb_id": "GB0025"}])}

# torch.export of `if x.sum() > 0:` fails with a UserError (dynamic control flow): torch.cond
# is the way out. TORCH_LOGS prints nothing of it (the exception goes to the program).
CASES["export_fail"] = {
    "trace": case(
        compile_ids=1,
        findings=["failure:export_control_flow"],
        failures=[{"type": "UserError", "compile_id": "[0/0]", "fell_back_to_eager": False,
                   "category": "export_control_flow"}]),
    "text": case(compile_ids=1),
    "report_flags": [["-e"]],
    "export_page": {"has": ["Export failed", "torch.cond"], "not": ["No issues were found"]},
}
# 2.13 exports without dynamo (non-strict): no compile id, no metrics; the log holds make_fx's
# partial graph, which stops at the `.item()` of `if x.sum() > 0:` (line 8).
CASES["export_fail"]["2.13"] = {
    "trace": case(
        findings=["failure:export_control_flow"],
        failures=[{"type": "make_fx_fail_partial", "compile_id": None,
                   "fell_back_to_eager": False, "category": "export_control_flow"}]),
    "text": case(),
}

# mix(x, 0.25) then mix(x, 0.5): the float is specialized at first, and the second value
# recompiles once, after which alpha is a dynamic float (zf0): automatic dynamic shapes at
# work, as for a size, a normal finding.
CASES["float_arg"] = {"trace": case(
    compile_ids=2,
    findings=["recompile:automatic_dynamic"],
    recompiles=[{"function": "mix", "location": "float_arg.py:6", "resumes_after_line": None,
                 "count": 1, "reasons": [["L['alpha'] == <value>", 1, "constant_number"]],
                 "compile_ids": ["[0/1]"], "called_from": None}],
    dynamic=[["zf0", "L['alpha']"]])}
# 2.13 names the argument alpha without L[...] in the guard, and numbers the symbol zf27.
CASES["float_arg"]["2.13"] = {"trace": case(
    compile_ids=2,
    findings=["recompile:automatic_dynamic"],
    recompiles=[{"function": "mix", "location": "float_arg.py:6", "resumes_after_line": None,
                 "count": 1, "reasons": [["alpha == <value>", 1, "constant_number"]],
                 "compile_ids": ["[0/1]"], "called_from": None}],
    dynamic=[["zf27", "L['alpha']"]])}

# s = x.sum().item() breaks the graph (line 8); the float s is carried into the resume function
# (L['___stack0']), which recompiles for the second value: the cause is the .item() break.
CASES["item"] = {"trace": case(
    compile_ids=3,
    findings=["recompile:carried_value", "graph_break:item_call"],
    graph_breaks=[{"reason": "Tensor.item", "count": 1, "where": ["item.py:8"],
                   "in_pytorch": None, "compile_ids": ["[0/0]"]}],
    recompiles=[{"function": "loss_scale", "location": "item.py:8", "resumes_after_line": 8,
                 "count": 1, "reasons": [["L['___stack0'] == <value>", 1, "carried_value"]],
                 "compile_ids": ["[1/1]"], "called_from": None}],
    dynamic=[["zf0", "L['___stack0']"]])}
# 2.13: the break's type and id (GB0124), the guard names the local ___stack0 without L[...],
# and the float's symbol is zf2.
CASES["item"]["2.13"] = {"trace": dict(
    CASES["item"]["trace"],
    graph_breaks=[{"reason": "Unsupported Tensor.item() call with capture_scalar_outputs=False",
                   "count": 1, "where": ["item.py:8"], "in_pytorch": None,
                   "compile_ids": ["[0/0]"], "gb_id": "GB0124"}],
    recompiles=[dict(CASES["item"]["trace"]["recompiles"][0],
                     reasons=[["___stack0 == <value>", 1, "carried_value"]])],
    dynamic=[["zf2", "L['___stack0']"]])}

# cache_size_limit = 2 and a new int k on every call (automatic dynamic off): bump compiles
# for k=0 and k=1, recompiling once; the third call ([0/2]) recompiles again and hits the
# limit; from then on bump runs in eager mode. Two recompiles, one limit, no failure.
CASES["limit"] = {"trace": case(
    compile_ids=3,
    findings=["limit:recompile_limit", "recompile:constant_number"],
    recompiles=[{"function": "bump", "location": "limit.py:9", "resumes_after_line": None,
                 "count": 2, "reasons": [["L['k'] == <value>", 2, "constant_number"]],
                 "compile_ids": ["[0/1]", "[0/2]"], "called_from": None}],
    limits=[{"function": "bump", "limit": 2, "limit_name": "cache_size_limit",
             "last_reason": "L['k'] == 0"}])}
# 2.13: the config is recompile_limit, its warning's last reason is the newest guard (k == 1,
# the guard names the local k without L[...]).
CASES["limit"]["2.13"] = {"trace": dict(
    CASES["limit"]["trace"],
    recompiles=[dict(CASES["limit"]["trace"]["recompiles"][0],
                     reasons=[["k == <value>", 2, "constant_number"]])],
    limits=[{"function": "bump", "limit": 2, "limit_name": "recompile_limit",
             "last_reason": "k == 1"}])}

# A compiled optimizer step with a float lr changed every step (inductor). SGD's step breaks the
# graph on purpose twice (torch/optim/optimizer.py:90, reached from lr.py:12 `opt.step()` and
# from the loop's `step()`, line 19). The float lr cannot become a tensor input, so dynamo
# restarts [2/1] to specialize it; each new lr then recompiles sgd.py's step ([2/1], [2/2]).
CASES["lr"] = {"trace": case(
    compile_ids=6,
    findings=["recompile:lr_as_constant", "graph_break:framework_graph_break",
              "restart:float_specialized"],
    graph_breaks=[{"reason": "skip function graph_break in file /usr/lib/python3/dist-packages/torch",
                   "count": 2, "where": ["lr.py:12", "lr.py:19"], "in_pytorch": "optimizer.py:90",
                   "compile_ids": ["[0/0]", "[1/0]"]}],
    recompiles=[{"function": "step", "location": "sgd.py:103", "resumes_after_line": None,
                 "count": 2,
                 "reasons": [["L['self'].param_groups[0]['lr'] == <value>", 2, "lr_as_constant"]],
                 "compile_ids": ["[2/1]", "[2/2]"], "called_from": "lr.py:10"}],
    restarts=[{"kind": "TensorifyScalarRestartAnalysis", "function": "step",
               "what": ["L['self'].param_groups[0]['lr']"], "count": 1,
               "compile_ids": ["[2/1]"]}],
    dynamic=[["zf0", "L['self'].param_groups[0]['lr']"]])}

# The text of the same run: no restarts (TEXT_LACKS), and the second break is printed "details
# suppressed" at optimizer.py:90 with no traceback, so nothing names the user's line 19.
CASES["lr"]["text"] = dict(CASES["lr"]["trace"],
                           findings=["recompile:lr_as_constant",
                                     "graph_break:framework_graph_break"],
                           graph_breaks=[dict(CASES["lr"]["trace"]["graph_breaks"][0],
                                              where=["lr.py:12"])])

# 2.13: the break is named by type (GB0025) in optimizer.py:79, and both breaks' tracebacks end
# in the user's lr.py:12 (opt.step()), which also calls sgd.py's step (now at line 105); the
# guard names self without L[...]; the float's symbol is zf8. The text says the same, but for
# the restart and the caller.
CASES["lr"]["2.13"] = {"trace": dict(
    CASES["lr"]["trace"],
    graph_breaks=[{"reason": "Call to `torch._dynamo.graph_break()`", "count": 2,
                   "where": ["lr.py:12"], "in_pytorch": "optimizer.py:79",
                   "compile_ids": ["[0/0]", "[1/0]"], "gb_id": "GB0025"}],
    recompiles=[dict(CASES["lr"]["trace"]["recompiles"][0], location="sgd.py:105",
                     called_from="lr.py:12",
                     reasons=[["self.param_groups[0]['lr'] == <value>", 2, "lr_as_constant"]])],
    dynamic=[["zf8", "L['self'].param_groups[0]['lr']"]])}
CASES["lr"]["2.13"]["text"] = dict(CASES["lr"]["2.13"]["trace"],
                                   findings=["recompile:lr_as_constant",
                                             "graph_break:framework_graph_break"])

# shift(x, 1) then shift(x, 2): one recompile on the int n, which makes n dynamic (s0):
# automatic dynamic shapes, a normal finding; act(x, 'relu') then act(x, 'tanh'): one
# recompile on the string, expected for a mode argument.
CASES["number"] = {"trace": case(
    compile_ids=4,
    findings=["recompile:constant_string", "recompile:automatic_dynamic"],
    recompiles=[
        {"function": "shift", "location": "number.py:6", "resumes_after_line": None, "count": 1,
         "reasons": [["L['n'] == <value>", 1, "constant_number"]], "compile_ids": ["[0/1]"],
         "called_from": None},
        {"function": "act", "location": "number.py:11", "resumes_after_line": None, "count": 1,
         "reasons": [["L['kind'] == <value>", 1, "constant_string"]], "compile_ids": ["[1/1]"],
         "called_from": None}],
    dynamic=[["s0", "L['n']"]])}
# 2.13 names the arguments without L[...] in the guards, and numbers the symbol s86.
CASES["number"]["2.13"] = {"trace": case(
    compile_ids=4,
    findings=["recompile:constant_string", "recompile:automatic_dynamic"],
    recompiles=[
        {"function": "shift", "location": "number.py:6", "resumes_after_line": None, "count": 1,
         "reasons": [["n == <value>", 1, "constant_number"]], "compile_ids": ["[0/1]"],
         "called_from": None},
        {"function": "act", "location": "number.py:11", "resumes_after_line": None, "count": 1,
         "reasons": [["kind == <value>", 1, "constant_string"]], "compile_ids": ["[1/1]"],
         "called_from": None}],
    dynamic=[["s86", "L['n']"]])}

# print() in forward (line 7): one graph break; the rest resumes in [1/0].
CASES["printing"] = {"trace": case(
    compile_ids=2,
    findings=["graph_break:print"],
    graph_breaks=[{"reason": "builtin: print [<class 'torch._dynamo.variables.constant.ConstantVaria",
                   "count": 1, "where": ["printing.py:7"], "in_pytorch": None,
                   "compile_ids": ["[0/0]"]}])}
# 2.13 names it "Failed to trace builtin operator" (GB0059); its explanation names `print`.
CASES["printing"]["2.13"] = {"trace": dict(CASES["printing"]["trace"], graph_breaks=[
    {"reason": "Failed to trace builtin operator", "count": 1, "where": ["printing.py:7"],
     "in_pytorch": None, "compile_ids": ["[0/0]"], "gb_id": "GB0059"}])}

# Two gloo ranks; rank 1 calls step with 6 elements on its second call: only rank 1
# recompiles (then x's dim 0 is dynamic there). The text interleaves both ranks.
CASES["ranks"] = {
    "trace_rank0": case(compile_ids=1),
    "trace_rank1": case(
        compile_ids=2,
        findings=["recompile:automatic_dynamic"],
        recompiles=[{"function": "step", "location": "ranks.py:9", "resumes_after_line": None,
                     "count": 1,
                     "reasons": [["tensor 'L['x']' size mismatch at index 0", 1, "shape_changed"]],
                     "compile_ids": ["[0/1]"], "called_from": None, "ranks": [1]}],
        dynamic=[["s0", "L['x'].size()[0]"]]),
    "ranks_summary": {"ranks": [[0, 1, 0, 0], [1, 2, 1, 0]],
                      "divergences": [["recompiles", [1], [0]]]},
}
# 2.13 names the guard's tensor 'x' (not L['x']) and the dynamic size s77 (not s0).
CASES["ranks"]["2.13"] = {"trace_rank1": dict(
    CASES["ranks"]["trace_rank1"],
    recompiles=[dict(CASES["ranks"]["trace_rank1"]["recompiles"][0],
                     reasons=[["tensor 'x' size mismatch at index 0", 1, "shape_changed"]])],
    dynamic=[["s77", "L['x'].size()[0]"]])}

# Two ranks over one cache folder, rank 1 with max_autotune on, rank 0 compiling first: each
# rank's FX graph lookup misses (a cold cache within its own log), and across ranks each miss
# is named against the other rank's stored entry by that config. Diffed, rank 0's log before
# and rank 1's after (two runs, two configs): the after side's miss, named the same way.
# 2.13 also misses the AOT autograd cache, whose components it does not list.
AUTOTUNE_OFF = "inductor config `max_autotune` changed (True -> False)"
CASES["ranks_cache"] = {
    "trace_rank0": case(compile_ids=1, cache={"fx_graph": [0, 1, 0], "aotautograd": [0, 0, 0]},
                        cache_misses=[["[0/0]", "fx_graph", None, []]]),
    "ranks_summary": {"ranks": [[0, 1, 0, 0], [1, 1, 0, 0]], "divergences": []},
    "ranks_cache_misses": [[[0], ["[0/0]"], 1, "[0/0]", "stored", [AUTOTUNE_OFF]],
                           [[1], ["[0/0]"], 0, "[0/0]", "stored", [MAX_AUTOTUNE]]],
    "diff_cache_misses": [[["[0/0]"], "[0/0]", "stored", [MAX_AUTOTUNE]]],
}
CASES["ranks_cache"]["trace_rank1"] = CASES["ranks_cache"]["trace_rank0"]
CASES["ranks_cache"]["2.13"] = {"trace_rank%d" % r: dict(
    CASES["ranks_cache"]["trace_rank0"], cache={"fx_graph": [0, 1, 0], "aotautograd": [0, 1, 0]},
    cache_misses=[["[0/0]", "aotautograd", None, []], ["[0/0]", "fx_graph", None, []]])
    for r in (0, 1)}

# forward prints between two parts (line 13): each call breaks there. The second call, with
# another batch size, recompiles forward and its resume function (the part after line 13).
CASES["resume"] = {"trace": case(
    compile_ids=4,
    findings=["graph_break:print", "recompile:automatic_dynamic", "recompile:automatic_dynamic"],
    graph_breaks=[{"reason": "builtin: print [<class 'torch._dynamo.variables.constant.ConstantVaria",
                   "count": 2, "where": ["resume.py:13"], "in_pytorch": None,
                   "compile_ids": ["[0/0]", "[0/1]"]}],
    recompiles=[
        {"function": "forward", "location": "resume.py:11", "resumes_after_line": None,
         "count": 1, "reasons": [["tensor 'L['x']' size mismatch at index 0", 1, "shape_changed"]],
         "compile_ids": ["[0/1]"], "called_from": None},
        {"function": "forward", "location": "resume.py:13", "resumes_after_line": 13,
         "count": 1, "reasons": [["tensor 'L['x']' size mismatch at index 0", 1, "shape_changed"]],
         "compile_ids": ["[1/1]"], "called_from": None}],
    dynamic=[["s0", "L['x'].size()[0]"]])}
# 2.13: the print break by type (GB0059), the guard names tensor 'x', the symbol is s77.
CASES["resume"]["2.13"] = {"trace": dict(
    CASES["resume"]["trace"],
    graph_breaks=[{"reason": "Failed to trace builtin operator", "count": 2,
                   "where": ["resume.py:13"], "in_pytorch": None,
                   "compile_ids": ["[0/0]", "[0/1]"], "gb_id": "GB0059"}],
    recompiles=[dict(r, reasons=[["tensor 'x' size mismatch at index 0", 1, "shape_changed"]])
                for r in CASES["resume"]["trace"]["recompiles"]],
    dynamic=[["s77", "L['x'].size()[0]"]])}

# 4, 8 then 16 rows: one recompile on the size (4 -> 8), after which dim 0 is dynamic (s0) and
# 16 reuses the code: automatic dynamic shapes at work, a normal finding.
CASES["shape"] = {"trace": case(
    compile_ids=2,
    findings=["recompile:automatic_dynamic"],
    recompiles=[{"function": "scale", "location": "shape.py:6", "resumes_after_line": None,
                 "count": 1,
                 "reasons": [["tensor 'L['x']' size mismatch at index 0", 1, "shape_changed"]],
                 "compile_ids": ["[0/1]"], "called_from": None}],
    dynamic=[["s0", "L['x'].size()[0]"]])}
# 2.13 names the tensor 'x' (not 'L['x']') in the guard, and numbers the symbol s77.
CASES["shape"]["2.13"] = {"trace": case(
    compile_ids=2,
    findings=["recompile:automatic_dynamic"],
    recompiles=[{"function": "scale", "location": "shape.py:6", "resumes_after_line": None,
                 "count": 1,
                 "reasons": [["tensor 'x' size mismatch at index 0", 1, "shape_changed"]],
                 "compile_ids": ["[0/1]"], "called_from": None}],
    dynamic=[["s77", "L['x'].size()[0]"]])}

# track appends to a global list and sets an attribute: side effects dynamo replays after the
# graph, nothing to fix. One compile, no finding.
CASES["side_effects"] = {"trace": case(compile_ids=1)}
# 2.13 logs the mutations with the user's lines, as a dynamo_side_effects artifact of [0/0].
CASES["side_effects"]["2.13"] = {"report_files": ["-_0_0_0/dynamo_side_effects_*.txt"]}

# A small MLP trained 3 steps with inductor: one forward compile (the backward graph belongs
# to it), no break, no recompile; the report holds the AOT forward and backward graphs and
# the code inductor generated for each.
CASES["train"] = {
    "trace": case(compile_ids=1),
    "report_files": ["-_0_0_0/aot_joint_graph_*.txt", "-_0_0_0/aot_forward_graph_*.txt",
                     "-_0_0_0/aot_backward_graph_*.txt", "-_0_0_0/inductor_output_code_*.html",
                     "-_0_0_0/bwd_compilation_metrics_*.html"],
}
# 2.13 compiles the backward with the forward, inside [0/0]'s compile: no
# bwd_compilation_metrics record (the one compilation_metrics covers both); the report says
# the version that wrote the log.
CASES["train"]["2.13"] = {
    "report_files": CASES["train"]["report_files"][:-1] + ["-_0_0_0/compilation_metrics_*.html"],
    "report_has": ["Logged by PyTorch <strong>2.13."],
}

# ---- adv2 ----

# dynamic=True, `if x.shape[0] > 8:` and sizes 4, 16, 5, 32: x's dim 0 is dynamic from the start
# (s0), and the branch guards each graph to one side: s0 <= 8 for [0/0], s0 > 8 for [0/1]
# (line 8). 16 fails [0/0]'s range guard and recompiles once; 5 and 32 reuse a graph. The cause
# is the branch (each side compiles once), not a static dimension: marking it dynamic would
# change nothing.
CASES["dyn_branch"] = {"trace": case(
    compile_ids=2,
    findings=["recompile:size_branch", "specialization:size_branch",
              "specialization:size_branch"],
    recompiles=[{"function": "route", "location": "dyn_branch.py:6", "resumes_after_line": None,
                 "count": 1, "reasons": [["L['x'].size()[0] <= 8", 1, "size_branch"]],
                 "compile_ids": ["[0/1]"], "called_from": None}],
    specializations=[
        {"kind": "guard", "expr": "s0 <= 8", "source": None,
         "symbols": [["s0", "L['x'].size()[0]"]], "location": "dyn_branch.py:8",
         "category": "size_branch"},
        {"kind": "guard", "expr": "s0 > 8", "source": None,
         "symbols": [["s0", "L['x'].size()[0]"]], "location": "dyn_branch.py:8",
         "category": "size_branch"}],
    dynamic=[["s0", "L['x'].size()[0]"]])}
# 2.13 gives the failed guard as the range 2 <= x.size()[0] <= 8 (after its own text, its
# "# code # file" comment and the "User stack trace:" of the guard, which are no part of it),
# and numbers the symbol s77.
CASES["dyn_branch"]["2.13"] = {"trace": case(
    compile_ids=2,
    findings=["recompile:size_branch", "specialization:size_branch",
              "specialization:size_branch"],
    recompiles=[{"function": "route", "location": "dyn_branch.py:6", "resumes_after_line": None,
                 "count": 1, "reasons": [["2 <= x.size()[0] <= 8", 1, "size_branch"]],
                 "compile_ids": ["[0/1]"], "called_from": None}],
    specializations=[
        {"kind": "guard", "expr": "s77 <= 8", "source": None,
         "symbols": [["s77", "L['x'].size()[0]"]], "location": "dyn_branch.py:8",
         "category": "size_branch"},
        {"kind": "guard", "expr": "s77 > 8", "source": None,
         "symbols": [["s77", "L['x'].size()[0]"]], "location": "dyn_branch.py:8",
         "category": "size_branch"}],
    dynamic=[["s77", "L['x'].size()[0]"]])}

# step(x, eps) with eps 0.1, 0.2, 0.3 and shift(x, n) with n 1, 2, 3: each function recompiles
# once, for the second value, which makes the number dynamic (zf0 for the float, s0 for the
# int); the third value reuses that graph. Automatic dynamic shapes at work for numbers as for
# sizes: two normal findings, nothing to do.
CASES["number_reuse"] = {"trace": case(
    compile_ids=4,
    findings=["recompile:automatic_dynamic", "recompile:automatic_dynamic"],
    recompiles=[
        {"function": "step", "location": "number_reuse.py:6", "resumes_after_line": None,
         "count": 1, "reasons": [["L['eps'] == <value>", 1, "constant_number"]],
         "compile_ids": ["[0/1]"], "called_from": None},
        {"function": "shift", "location": "number_reuse.py:11", "resumes_after_line": None,
         "count": 1, "reasons": [["L['n'] == <value>", 1, "constant_number"]],
         "compile_ids": ["[1/1]"], "called_from": None}],
    dynamic=[["s0", "L['n']"], ["zf0", "L['eps']"]])}
# 2.13 names the arguments without L[...] in the guards, and numbers the symbols s86 and zf49.
CASES["number_reuse"]["2.13"] = {"trace": case(
    compile_ids=4,
    findings=["recompile:automatic_dynamic", "recompile:automatic_dynamic"],
    recompiles=[
        {"function": "step", "location": "number_reuse.py:6", "resumes_after_line": None,
         "count": 1, "reasons": [["eps == <value>", 1, "constant_number"]],
         "compile_ids": ["[0/1]"], "called_from": None},
        {"function": "shift", "location": "number_reuse.py:11", "resumes_after_line": None,
         "count": 1, "reasons": [["n == <value>", 1, "constant_number"]],
         "compile_ids": ["[1/1]"], "called_from": None}],
    dynamic=[["s86", "L['n']"], ["zf49", "L['eps']"]])}

# dynamic=True and x.view(x.shape[0] // 2, 2): the size must be even, which PyTorch writes
# Eq(s0, 2*((s0//2))) (line 9): a divisibility guard that keeps the size dynamic, not a
# specialization to one value; 10 reuses the graph of 6.
CASES["even_split"] = {"trace": case(
    compile_ids=1,
    findings=["specialization:divisibility_guard"],
    specializations=[{"kind": "guard", "expr": "Eq(s0, 2*((s0//2)))", "source": None,
                      "symbols": [["s0", "L['x'].size()[0]"]], "location": "even_split.py:9",
                      "category": "divisibility_guard"}],
    dynamic=[["s0", "L['x'].size()[0]"]])}
# 2.13 numbers the symbol s77 and also guards the new dimension against size 1
# (Ne((s77//2), 1), as for any dynamic size: routine).
CASES["even_split"]["2.13"] = {"trace": case(
    compile_ids=1,
    findings=["specialization:divisibility_guard", "specialization:shape_guard"],
    specializations=[
        {"kind": "guard", "expr": "Eq(s77, 2*((s77//2)))", "source": None,
         "symbols": [["s77", "L['x'].size()[0]"]], "location": "even_split.py:9",
         "category": "divisibility_guard"},
        {"kind": "guard", "expr": "Ne((s77//2), 1)", "source": None,
         "symbols": [["s77", "L['x'].size()[0]"]], "location": "even_split.py:9",
         "category": "shape_guard"}],
    dynamic=[["s77", "L['x'].size()[0]"]])}

# automatic_dynamic_shapes = False and sizes 2 to 12: every new size recompiles (the dimension
# never becomes dynamic), and the ninth compilation [0/8] hits the default limit of 8; scale
# then runs in eager mode. The cause is the config line, which the limit's advice names (the
# trace's dynamo_config says it); its last reason is the latest size change.
CASES["limit_static"] = {"trace": case(
    compile_ids=9,
    findings=["limit:recompile_limit", "recompile:shape_changed"],
    recompiles=[{"function": "scale", "location": "limit_static.py:8", "resumes_after_line": None,
                 "count": 8,
                 "reasons": [["tensor 'L['x']' size mismatch at index 0", 8, "shape_changed"]],
                 "compile_ids": ["[0/1]", "[0/2]", "[0/3]", "[0/4]", "[0/5]", "[0/6]", "[0/7]",
                                 "[0/8]"], "called_from": None}],
    limits=[{"function": "scale", "limit": 8, "limit_name": "cache_size_limit",
             "last_reason": "tensor 'L['x']' size mismatch at index 0. expected 2, actual 10"}])}
# 2.13 names the setting recompile_limit and the tensor 'x', and its warning's last reason is
# the newest compilation's failure (listed first): expected 9, actual 10.
CASES["limit_static"]["2.13"] = {"trace": case(
    compile_ids=9,
    findings=["limit:recompile_limit", "recompile:shape_changed"],
    recompiles=[{"function": "scale", "location": "limit_static.py:8", "resumes_after_line": None,
                 "count": 8,
                 "reasons": [["tensor 'x' size mismatch at index 0", 8, "shape_changed"]],
                 "compile_ids": ["[0/1]", "[0/2]", "[0/3]", "[0/4]", "[0/5]", "[0/6]", "[0/7]",
                                 "[0/8]"], "called_from": None}],
    limits=[{"function": "scale", "limit": 8, "limit_name": "recompile_limit",
             "last_reason": "tensor 'x' size mismatch at index 0. expected 9, actual 10"}])}


# ---- adv1 ----

# model.train() then model.eval(), twice: Dropout reads self.training, which the compiled code
# guards (2.6 by identity, ___check_obj_id(L['self']._modules['drop'].training, <id>); 2.13 by
# value, "self._modules['drop'].training == True"). eval() recompiles forward once ([0/1]);
# the second epoch reuses both graphs. One graph per mode: normal, nothing to do.
CASES["train_eval"] = {
    "trace": case(
        compile_ids=2,
        findings=["recompile:train_eval_mode"],
        recompiles=[{"function": "forward", "location": "train_eval.py:12",
                     "resumes_after_line": None, "count": 1,
                     "reasons": [["___check_obj_id(L['self']._modules['drop'].training, <id>)",
                                  1, "train_eval_mode"]],
                     "compile_ids": ["[0/1]"], "called_from": None}]),
    "2.13": {"trace": case(
        compile_ids=2,
        findings=["recompile:train_eval_mode"],
        recompiles=[{"function": "forward", "location": "train_eval.py:12",
                     "resumes_after_line": None, "count": 1,
                     "reasons": [["self._modules['drop'].training == <value>", 1,
                                  "train_eval_mode"]],
                     "compile_ids": ["[0/1]"], "called_from": None}])},
}

# attend(s), attend(s, mask=...), attend(s): the first call compiled the branch without a mask,
# guarding that mask is None (2.6: ___check_obj_id(L['mask'], <id of None>); 2.13: "mask is
# None"); passing a mask recompiles once ([0/1]); the third call reuses [0/0]. One graph per
# presence pattern of the optional argument: normal.
CASES["optional_arg"] = {
    "trace": case(
        compile_ids=2,
        findings=["recompile:optional_argument"],
        recompiles=[{"function": "attend", "location": "optional_arg.py:5",
                     "resumes_after_line": None, "count": 1,
                     "reasons": [["___check_obj_id(L['mask'], <id>)", 1, "optional_argument"]],
                     "compile_ids": ["[0/1]"], "called_from": None}]),
    "2.13": {"trace": case(
        compile_ids=2,
        findings=["recompile:optional_argument"],
        recompiles=[{"function": "attend", "location": "optional_arg.py:5",
                     "resumes_after_line": None, "count": 1,
                     "reasons": [["mask is None", 1, "optional_argument"]],
                     "compile_ids": ["[0/1]"], "called_from": None}])},
}

# The global bool USE_RELU is read by act and baked into its graph (2.6: by identity,
# ___check_obj_id(G['USE_RELU'], <id of True>); 2.13: "G['USE_RELU'] == True"); setting it to
# False recompiles act once ([0/1]), the tanh branch.
CASES["bool_global"] = {
    "trace": case(
        compile_ids=2,
        findings=["recompile:global_flag"],
        recompiles=[{"function": "act", "location": "bool_global.py:7",
                     "resumes_after_line": None, "count": 1,
                     "reasons": [["___check_obj_id(G['USE_RELU'], <id>)", 1, "global_flag"]],
                     "compile_ids": ["[0/1]"], "called_from": None}]),
    "2.13": {"trace": case(
        compile_ids=2,
        findings=["recompile:global_flag"],
        recompiles=[{"function": "act", "location": "bool_global.py:7",
                     "resumes_after_line": None, "count": 1,
                     "reasons": [["G['USE_RELU'] == <value>", 1, "global_flag"]],
                     "compile_ids": ["[0/1]"], "called_from": None}])},
}

# print() inside the for loop (line 9) breaks the graph there, and Dynamo cannot resume inside
# a loop: it skips the whole frame, so accumulate ran in eager mode and nothing was compiled
# (one compile id, no graph). 2.6 says so only at level INFO (the frame has no guarded code);
# 2.13 adds a second break, "graph break in loop", and records [0/0] as failed, which it is
# not. The finding is the print break, marked as having made the frame run in eager mode.
CASES["loop_break"] = {
    "trace": case(
        compile_ids=1,
        findings=["graph_break:graph_break_in_loop"],
        graph_breaks=[{"reason": "builtin: print [<class 'torch._dynamo.variables.constant.ConstantVaria",
                       "count": 1, "where": ["loop_break.py:9"], "in_pytorch": None,
                       "compile_ids": ["[0/0]"]}]),
    "2.13": {"trace": case(
        compile_ids=1,
        findings=["graph_break:graph_break_in_loop"],
        graph_breaks=[{"reason": "Failed to trace builtin operator", "count": 1,
                       "where": ["loop_break.py:9"], "in_pytorch": None,
                       "compile_ids": ["[0/0]"], "gb_id": "GB0059"}])},
}

# fullgraph=True and a print (line 7): the graph break is an Unsupported error that nothing
# catches; the script dies with exit 1. One failed compilation, not run in eager mode; the
# TORCH_LOGS text ends with the traceback, which says the same.
CASES["fullgraph_exit"] = {
    "exit": 1,
    "trace": case(
        compile_ids=1,
        findings=["failure:unsupported_fullgraph"],
        failures=[{"type": "Unsupported", "compile_id": "[0/0]", "fell_back_to_eager": False,
                   "category": "unsupported_fullgraph"}]),
}

# log.info() inside step (line 12): Dynamo does not trace Logger methods, one graph break; the
# rest resumes in [1/0]. PyTorch names the fix: torch._dynamo.config.ignore_logger_methods
# (2.13: ignore_logging_functions, the old name an alias).
CASES["logger_call"] = {
    "trace": case(
        compile_ids=2,
        findings=["graph_break:logger_call"],
        graph_breaks=[{"reason": "Logger not supported for non-export cases. To avoid graph breaks cause",
                       "count": 1, "where": ["logger_call.py:12"], "in_pytorch": None,
                       "compile_ids": ["[0/0]"]}]),
    "2.13": {"trace": case(
        compile_ids=2,
        findings=["graph_break:logger_call"],
        graph_breaks=[{"reason": "logging.Logger method not supported for non-export cases",
                       "count": 1, "where": ["logger_call.py:12"], "in_pytorch": None,
                       "compile_ids": ["[0/0]"], "gb_id": "GB0291"}])},
}

# record() is decorated with @torch.compiler.disable: calling it (line 13) breaks the graph on
# purpose, record runs in eager mode, the rest of forward resumes in [1/0].
CASES["disabled_callee"] = {
    "trace": case(
        compile_ids=2,
        findings=["graph_break:disabled_function"],
        graph_breaks=[{"reason": "call torch._dynamo.disable() wrapped function <function record at 0x..",
                       "count": 1, "where": ["disabled_callee.py:13"], "in_pytorch": None,
                       "compile_ids": ["[0/0]"]}]),
    "2.13": {"trace": case(
        compile_ids=2,
        findings=["graph_break:disabled_function"],
        graph_breaks=[{"reason": "Skip calling `torch.compiler.disable()`d function", "count": 1,
                       "where": ["disabled_callee.py:13"], "in_pytorch": None,
                       "compile_ids": ["[0/0]"], "gb_id": "GB0098"}])},
}

# 2.6: Dynamo traces .tolist() of an int tensor into the graph (token_counts, line 7, reached
# from normalize line 17 and total_tokens line 11); AOT autograd under inductor then fails on
# the data-dependent output (DataDependentOutputException: aten._local_scalar_dense), and
# Dynamo runs normalize in eager mode ("WON'T CONVERT", "Graph break: skip:"). The same
# happens to total_tokens ([1/0]) and token_counts ([2/0]) as eager normalize calls them:
# three frames failed and ran in eager mode, each at line 7; no graph break. 2.13 graph-breaks
# on the data-dependent operator instead (line 7, in each of the three frames) and compiles
# the rest.
CASES["tolist_deep"] = {
    "trace": case(
        compile_ids=3,
        findings=["failure:data_dependent_output", "failure:data_dependent_output",
                  "failure:data_dependent_output"],
        failures=[{"type": "DataDependentOutputException", "compile_id": cid,
                   "fell_back_to_eager": True, "category": "data_dependent_output"}
                  for cid in ("[0/0]", "[1/0]", "[2/0]")]),
    "2.13": {"trace": case(
        compile_ids=4,
        findings=["graph_break:item_call"],
        graph_breaks=[{"reason": "Data dependent operator", "count": 3,
                       "where": ["tolist_deep.py:7"], "in_pytorch": None,
                       "compile_ids": ["[0/0]", "[1/0]", "[2/0]"], "gb_id": "GB0033"}])},
}

# ---- train/eval and autocast ----

# A Sequential compiled whole (backend="eager") and trained, then run under torch.no_grad():
# the compiled forward (dynamo's wrapper `inner` of the module, called from line 16) compiles
# once with autograd on and once off. Expected in a train/eval loop: both graphs are kept and
# later epochs reuse them (2 compile ids for 2 epochs).
CASES["train_eval_nograd"] = {"trace": case(
    compile_ids=2,
    findings=["recompile:grad_mode_changed"],
    recompiles=[{"function": "inner", "location": "external_utils.py:43", "resumes_after_line": None,
                 "count": 1, "reasons": [["GLOBAL_STATE changed: grad_mode", 1, "grad_mode_changed"]],
                 "compile_ids": ["[0/1]"], "called_from": "train_eval_nograd.py:16"}])}
# 2.13's external_utils.py defines that wrapper at line 67.
CASES["train_eval_nograd"]["2.13"] = {"trace": dict(
    CASES["train_eval_nograd"]["trace"],
    recompiles=[dict(CASES["train_eval_nograd"]["trace"]["recompiles"][0],
                     location="external_utils.py:67")])}

# Trained on batches of 8 (the last of 5), then evaluated under torch.no_grad() with a mask, a
# new input, on batches of 8 and 3. [0/1] is the batch of 5 (x's batch becomes dynamic); [0/2]
# the first evaluation: grad mode off, and y * mask ties x's batch to the mask's, static at its
# first call, which specializes x's batch to 8 at line 15 (Eq(s, 8)); [0/3] the batch of 3
# (both sizes dynamic, and equal). The size recompile is the specialization's doing, not a
# missing mark_dynamic: marking x alone makes PyTorch stop with "You marked L['x'].size()[0] as
# dynamic but your code specialized it to be a constant (8)" (tried under 2.13); marking the
# mask's batch dynamic too leaves only the grad-mode recompile.
CASES["train_eval_mask"] = {"trace": case(
    compile_ids=4,
    findings=["recompile:specialized_then_changed", "specialization:dimension_specialized",
              "specialization:dimensions_equal"],
    recompiles=[{"function": "forward", "location": "train_eval_mask.py:12",
                 "resumes_after_line": None, "count": 3,
                 "reasons": [["tensor 'L['x']' size mismatch at index 0", 2,
                              "specialized_then_changed"],
                             ["GLOBAL_STATE changed: grad_mode", 2, "grad_mode_changed"]],
                 "compile_ids": ["[0/1]", "[0/2]", "[0/3]"], "called_from": None}],
    specializations=[
        {"kind": "specialized", "expr": "Eq(s0, 8)", "source": "L['x'].size()[0]",
         "symbols": [["s0", "L['x'].size()[0]"]], "location": "train_eval_mask.py:15",
         "category": "dimension_specialized"},
        {"kind": "guard", "expr": "Eq(s0, s1)", "source": None,
         "symbols": [["s0", "L['x'].size()[0]"], ["s1", "L['mask'].size()[0]"]],
         "location": "train_eval_mask.py:15", "category": "dimensions_equal"}],
    dynamic=[["s0", "L['x'].size()[0]"], ["s1", "L['mask'].size()[0]"]])}
# 2.13: the tensor is 'x', the symbols s77 (x) and s31 (the mask).
CASES["train_eval_mask"]["2.13"] = {"trace": dict(
    CASES["train_eval_mask"]["trace"],
    recompiles=[dict(CASES["train_eval_mask"]["trace"]["recompiles"][0],
                     reasons=[["tensor 'x' size mismatch at index 0", 2,
                               "specialized_then_changed"],
                              ["GLOBAL_STATE changed: grad_mode", 2, "grad_mode_changed"]])],
    specializations=[
        {"kind": "specialized", "expr": "Eq(s77, 8)", "source": "L['x'].size()[0]",
         "symbols": [["s77", "L['x'].size()[0]"]], "location": "train_eval_mask.py:15",
         "category": "dimension_specialized"},
        {"kind": "guard", "expr": "Eq(s77, s31)", "source": None,
         "symbols": [["s77", "L['x'].size()[0]"], ["s31", "L['mask'].size()[0]"]],
         "location": "train_eval_mask.py:15", "category": "dimensions_equal"}],
    dynamic=[["s31", "L['mask'].size()[0]"], ["s77", "L['x'].size()[0]"]])}

# project(a, b) outside, then inside torch.autocast("cpu"): one recompile, on the autocast
# state. 2.6 sees it as another dispatch key set of the input (AutocastCPU added).
CASES["autocast_toggle"] = {"trace": case(
    compile_ids=2,
    findings=["recompile:autocast_changed"],
    recompiles=[{"function": "project", "location": "autocast_toggle.py:6",
                 "resumes_after_line": None, "count": 1,
                 "reasons": [["tensor 'L['a']' dispatch key set mismatch", 1, "autocast_changed"]],
                 "compile_ids": ["[0/1]"], "called_from": None}])}
# 2.13 names it a global state: autocast(cpu)_enabled.
CASES["autocast_toggle"]["2.13"] = {"trace": dict(
    CASES["autocast_toggle"]["trace"],
    recompiles=[dict(CASES["autocast_toggle"]["trace"]["recompiles"][0],
                     reasons=[["GLOBAL_STATE changed: autocast(cpu)_enabled", 1,
                               "autocast_changed"]])])}

# ---- a model compiled layer by layer ----

# Four blocks of widths 8, 16, 32 and 64, each compiled on its own: they share Block.forward's
# code, so the width change recompiles it three times ([0/1] to [0/3]); the width became
# dynamic after the first, but the Linear's weight (a parameter: static shape) specializes it
# back to each width at linear.py. Marking it dynamic cannot help: compile the model whole.
# The second epoch reuses the four graphs.
CASES["layer_widths"] = {"trace": case(
    compile_ids=4,
    findings=["recompile:parameter_shape", "specialization:parameter_shape",
              "specialization:parameter_shape", "specialization:parameter_shape"],
    recompiles=[{"function": "forward", "location": "layer_widths.py:12",
                 "resumes_after_line": None, "count": 3,
                 "reasons": [["tensor 'L['x']' size mismatch at index 1", 3, "parameter_shape"]],
                 "compile_ids": ["[0/1]", "[0/2]", "[0/3]"], "called_from": None}],
    specializations=[
        {"kind": "specialized", "expr": "Eq(s0, %d)" % w, "source": "L['x'].size()[1]",
         "symbols": [["s0", "L['x'].size()[1]"]], "location": "linear.py:125",
         "category": "parameter_shape"} for w in (16, 32, 64)],
    dynamic=[["s0", "L['x'].size()[1]"]])}
# 2.13: the tensor is 'x', the symbol s27, and Linear.forward's line is 134.
CASES["layer_widths"]["2.13"] = {"trace": dict(
    CASES["layer_widths"]["trace"],
    recompiles=[dict(CASES["layer_widths"]["trace"]["recompiles"][0],
                     reasons=[["tensor 'x' size mismatch at index 1", 3, "parameter_shape"]])],
    specializations=[
        {"kind": "specialized", "expr": "Eq(s27, %d)" % w, "source": "L['x'].size()[1]",
         "symbols": [["s27", "L['x'].size()[1]"]], "location": "linear.py:134",
         "category": "parameter_shape"} for w in (16, 32, 64)],
    dynamic=[["s27", "L['x'].size()[1]"]])}

# ---- the last, smaller batch ----

# 100 rows in batches of 32, the model compiled whole: the last batch (4 rows) recompiles the
# model's forward (dynamo's wrapper `inner`, called from line 11) once, and the batch
# dimension becomes dynamic: automatic dynamic shapes, nothing to do; the second epoch reuses
# both graphs. The batches are slices of one tensor, so their storage offset is dynamic too,
# and a routine guard keeps the slice inside the 100 rows (6400 bytes).
CASES["last_batch"] = {"trace": case(
    compile_ids=2,
    findings=["recompile:automatic_dynamic", "specialization:shape_guard"],
    recompiles=[{"function": "inner", "location": "external_utils.py:43",
                 "resumes_after_line": None, "count": 1,
                 "reasons": [["tensor 'L['args'][0]' size mismatch at index 0", 1,
                              "shape_changed"]],
                 "compile_ids": ["[0/1]"], "called_from": "last_batch.py:11"}],
    specializations=[{"kind": "guard", "expr": "64*s0 + 4*s1 <= 6400", "source": None,
                      "symbols": [["s0", "L['args'][0].size()[0]"],
                                  ["s1", "L['args'][0].storage_offset()"]],
                      "location": "linear.py:125", "category": "shape_guard"}],
    dynamic=[["s0", "L['args'][0].size()[0]"], ["s1", "L['args'][0].storage_offset()"]])}
# 2.13 names the input args[0] (its source stays L['args'][0]), numbers the symbols s33 and
# s63, and its wrapper and Linear.forward are at other lines.
CASES["last_batch"]["2.13"] = {"trace": case(
    compile_ids=2,
    findings=["recompile:automatic_dynamic", "specialization:shape_guard"],
    recompiles=[{"function": "inner", "location": "external_utils.py:67",
                 "resumes_after_line": None, "count": 1,
                 "reasons": [["tensor 'args[0]' size mismatch at index 0", 1, "shape_changed"]],
                 "compile_ids": ["[0/1]"], "called_from": "last_batch.py:11"}],
    specializations=[{"kind": "guard", "expr": "64*s33 + 4*s63 <= 6400", "source": None,
                      "symbols": [["s33", "L['args'][0].size()[0]"],
                                  ["s63", "L['args'][0].storage_offset()"]],
                      "location": "linear.py:134", "category": "shape_guard"}],
    dynamic=[["s33", "L['args'][0].size()[0]"], ["s63", "L['args'][0].storage_offset()"]])}

# ---- numbers on a module, keys of a batch ----

# A warmup counter self.step += 1 on the compiled module, 12 calls; the fix is a tensor buffer
# for the counter. 2.6 makes the counter dynamic (s0) after one recompile; min(1.0, step / 10)
# then guards each graph to one side, and step 10 crosses it: two recompiles in all.
CASES["step_counter"] = {"trace": case(
    compile_ids=3,
    findings=["recompile:module_number", "specialization:shape_guard",
              "specialization:shape_guard"],
    recompiles=[{"function": "forward", "location": "step_counter.py:12",
                 "resumes_after_line": None, "count": 2,
                 "reasons": [["L['self'].step == <value>", 2, "module_number"],
                             ["((1 + L['self'].step) / 10) <= 1.0", 1, "guard_failed"]],
                 "compile_ids": ["[0/1]", "[0/2]"], "called_from": None}],
    specializations=[
        {"kind": "guard", "expr": "(IntTrueDiv(s0 + 1, 10)) %s 1.0" % op, "source": None,
         "symbols": [["s0", "L['self'].step"]], "location": "step_counter.py:14",
         "category": "shape_guard"} for op in ("<=", ">")],
    dynamic=[["s0", "L['self'].step"]])}
# 2.13 never makes an int attribute of a module dynamic (allow_unspec_int_on_nn_module is
# False): every step recompiles, [0/1] to [0/8], and the ninth compilation hits the limit of
# 8; forward runs in eager mode from then on.
CASES["step_counter"]["2.13"] = {"trace": case(
    compile_ids=9,
    findings=["limit:recompile_limit", "recompile:module_number"],
    recompiles=[{"function": "forward", "location": "step_counter.py:12",
                 "resumes_after_line": None, "count": 8,
                 "reasons": [["self.step == <value>", 8, "module_number"]],
                 "compile_ids": ["[0/%d]" % i for i in range(1, 9)], "called_from": None}],
    limits=[{"function": "forward", "limit": 8, "limit_name": "recompile_limit",
             "last_reason": "self.step == 7"}])}

# A batch dict with labels (training), then without (inference), twice: head compiles once
# for each set of keys and the second round reuses both. 2.6 guards the dict's length.
CASES["batch_keys"] = {"trace": case(
    compile_ids=2,
    findings=["recompile:length_changed"],
    recompiles=[{"function": "head", "location": "batch_keys.py:6", "resumes_after_line": None,
                 "count": 1, "reasons": [["len(L['batch']) == <value>", 1, "length_changed"]],
                 "compile_ids": ["[0/1]"], "called_from": None}])}
# 2.13 guards the key itself: ___dict_contains('labels', batch), a normal finding.
CASES["batch_keys"]["2.13"] = {"trace": case(
    compile_ids=2,
    findings=["recompile:dict_keys_changed"],
    recompiles=[{"function": "head", "location": "batch_keys.py:6", "resumes_after_line": None,
                 "count": 1,
                 "reasons": [["___dict_contains('labels', batch)", 1, "dict_keys_changed"]],
                 "compile_ids": ["[0/1]"], "called_from": None}])}

# A fast compile (backend="eager") and a slow one (Inductor) with a second of sleep between:
# nothing to diagnose. The compile-time ledger (torch_check.check_ledger) must add up to the
# log's span, hold the sleep as unaccounted time, and its span must match the script's clock
# within 5%.
CASES["compile_time"] = {
    "trace": case(compile_ids=2),
    "ledger": {"wall": "wall.json", "phases": ["dynamo", "compile_code"]},
}

# ---- the reference 0.4.8's surface ----

# vLLM's compile in small: one dynamo compile of Block ([0/0]) whose backend logs vLLM's
# config and split graph, splits at softmax and compiles submod_0 and submod_2 with inductor
# for the range [1, 64] and the CUDA-graph size 4, logging vllm_piecewise_compile_start before
# each compile and each submodule's graph once. Then Head ([1/0]), a second model, through a
# second backend call with its own config (prefix "head") and pieces numbered from 0 again.
# The report is vLLM's: index.html the vLLM summary, a section per compile call ("Compile
# Call 1", "Compile Call 2: head"), each with groups "range [1, 64]" and "size 4" of two
# subgraphs; the classic index tlparse_index.html. Inductor fakeifies Block's submodules' real
# inputs in dynamo's shape env without a source (__meta_utils_unknown_tensor): 2.6 then
# specializes both sizes (4 and 8); Head's pieces specialize nothing.
CASES["vllm_like"] = {
    "trace": case(
        compile_ids=2,
        findings=["specialization:dimension_specialized", "specialization:dimension_specialized"],
        specializations=[
            {"kind": "specialized", "expr": "Eq(s1, 8)",
             "source": "__meta_utils_unknown_tensor6.size()[1]",
             "symbols": [["s1", "__meta_utils_unknown_tensor6.size()[1]"]], "location": None,
             "category": "dimension_specialized"},
            {"kind": "specialized", "expr": "Eq(s0, 4)",
             "source": "__meta_utils_unknown_tensor6.size()[0]",
             "symbols": [["s0", "__meta_utils_unknown_tensor6.size()[0]"]], "location": None,
             "category": "dimension_specialized"}],
        dynamic=[["s0", "__meta_utils_unknown_tensor6.size()[0]"],
                 ["s1", "__meta_utils_unknown_tensor6.size()[1]"]]),
    "report_files": ["tlparse_index.html", "-_0_0_0/vllm_compilation_config_*.json",
                     "-_0_0_0/vllm_piecewise_split_graph_*.txt",
                     "-_0_0_0/vllm_piecewise_compile_start_*.json",
                     "-_0_0_0/vllm_submod_0_*.txt", "-_0_0_0/vllm_submod_2_*.txt",
                     "-_1_0_0/vllm_compilation_config_*.json",
                     "-_1_0_0/vllm_piecewise_split_graph_*.txt",
                     "-_1_0_0/vllm_submod_0_*.txt", "-_1_0_0/vllm_submod_2_*.txt"],
    "report_has": ["<title>vLLM Compilation Summary</title>",
                   '<a href="tlparse_index.html">View original tlparse output',
                   "<tr><td><strong>Model</strong></td><td>tiny-mlp</td></tr>",
                   ">vllm_piecewise_split_graph</a>", "<h3>range [1, 64]</h3>", "<h3>size 4</h3>",
                   "<h4>submod_0</h4>", "<h4>submod_2</h4>",
                   "<h4>submod_2 <small>(CUDA graph capture size)</small></h4>",
                   '<details class="vllm-call" open>\n<summary><h2>Compile Call 1</h2>',
                   "<summary><h2>Compile Call 2: head</h2></summary>",
                   "<tr><td><strong>Prefix</strong></td><td>head</td></tr>"],
}
# 2.13 (on an empty inductor cache, as torch_check runs each scenario) specializes the same
# two sizes; its symbols are named by a hash of their source, not by their order.
CASES["vllm_like"]["2.13"] = {"trace": case(
    compile_ids=2,
    findings=["specialization:dimension_specialized", "specialization:dimension_specialized"],
    specializations=[
        {"kind": "specialized", "expr": "Eq(s22, 8)",
         "source": "__meta_utils_unknown_tensor6.size()[1]",
         "symbols": [["s22", "__meta_utils_unknown_tensor6.size()[1]"]], "location": None,
         "category": "dimension_specialized"},
        {"kind": "specialized", "expr": "Eq(s1, 4)",
         "source": "__meta_utils_unknown_tensor6.size()[0]",
         "symbols": [["s1", "__meta_utils_unknown_tensor6.size()[0]"]], "location": None,
         "category": "dimension_specialized"}],
    dynamic=[["s1", "__meta_utils_unknown_tensor6.size()[0]"],
             ["s22", "__meta_utils_unknown_tensor6.size()[1]"]])}

# Two compiles, no finding: model ([0/0]) calls the nested compile region block twice, fn
# ([1/0]) has lines annotated for regional inductor. Under 2.13 regional inductor compiles
# them as a subgraph of their own and every entry logged meanwhile carries subgraph_name
# "__marked_inductor_submod0": the index heads their run with it (the nested compile region
# writes no subgraph_name). 2.6 has neither feature: both compile whole.
CASES["nested_region"] = {"trace": case(compile_ids=2)}
CASES["nested_region"]["2.13"] = {
    "report_has": ['Subgraph Name: <strong>__marked_inductor_submod0</strong>']}


# ---- the recompile forecast (guards that differ between a frame's cache entries) ----
#
# "forecast": per frame compiled more than once or run in eager mode, its cache entries, its
# recompile limit, where the limit comes from, the recompiles left, why it ran in eager mode
# ([cause, compile id]) and per entry the guards that differ from the entry before
# ([entry, against, [[change, guard, before, after]], more]). A TORCH_LOGS text has no dynamo
# config: its limit is the limit's message or PyTorch's default, 8 (TEXT_LACKS: limit_from).

def forecast(frame, function, entries, limit, left, eager, diffs, limit_from="config"):
    return {"frame": frame, "function": function, "entries": entries, "limit": limit,
            "limit_from": limit_from, "left": left, "eager": eager, "guards_differ": diffs}


def sizes(first, last):
    """limit_static's entries: each against the one before, the size one larger."""
    return [["[0/%d]" % k, "[0/%d]" % (k - 1),
             [["changed", "check_tensor(L['x'], ...)", "size=[%d]" % (k + 1), "size=[%d]" % (k + 2)]],
             0] for k in range(first, last + 1)]


# limit: bump's two entries differ in the int k (0, then 1); the limit of 2 (the config's) is hit
# at [0/2], from which calls with a new k run in eager mode. The same in 2.6 and 2.13 (whose
# guard tree names the source L['k'] too).
LIMIT_FORECAST = [forecast("0", "bump", 2, 2, 0, ["recompile_limit", "[0/2]"],
                           [["[0/1]", "[0/0]", [["changed", "L['k'] ==", "0", "1"]], 0]])]
CASES["limit"]["trace"]["forecast"] = LIMIT_FORECAST
CASES["limit"]["2.13"]["trace"]["forecast"] = LIMIT_FORECAST

# limit_static: eight entries, each a size one larger than the one before (2 to 9); the default
# limit of 8 (the config says it) is hit at [0/8], sizes 10 to 12 run in eager mode.
LIMIT_STATIC_FORECAST = [forecast("0", "scale", 8, 8, 0, ["recompile_limit", "[0/8]"],
                                  sizes(1, 7))]
CASES["limit_static"]["trace"]["forecast"] = LIMIT_STATIC_FORECAST
CASES["limit_static"]["2.13"]["trace"]["forecast"] = LIMIT_STATIC_FORECAST

# train_eval: the entry of eval() differs from the one of train() in the dropout's training flag
# only; 2.13 guards its value (True, then False), 2.6 the identity of the object (True's id,
# then False's). Six recompiles left of the default 8 that the config states.
CASES["train_eval"]["trace"]["forecast"] = [forecast(
    "0", "forward", 2, 8, 6, None,
    [["[0/1]", "[0/0]", [["changed", "___check_obj_id(L['self']._modules['drop'].training, ...)",
                          "<id>", "<id>"]], 0]])]
CASES["train_eval"]["2.13"]["trace"]["forecast"] = [forecast(
    "0", "forward", 2, 8, 6, None,
    [["[0/1]", "[0/0]", [["changed", "L['self']._modules['drop'].training ==", "True", "False"]],
      0]])]

# train_eval_nograd: the no_grad entry differs in the global state's grad_mode, which 2.13's
# guard tree prints (true, then false); 2.6 prints ___check_global_state() without the state, so
# its two entries' guards are the same as logged (its recompile reason names grad_mode).
CASES["train_eval_nograd"]["trace"]["forecast"] = [forecast(
    "0", "inner", 2, 8, 6, None, [["[0/1]", "[0/0]", [], 0]])]
CASES["train_eval_nograd"]["2.13"]["trace"]["forecast"] = [forecast(
    "0", "inner", 2, 8, 6, None,
    [["[0/1]", "[0/0]", [["changed", "___check_global_state()", '"grad_mode":true',
                          '"grad_mode":false']], 0]])]

# loop_break: accumulate was skipped at [0/0] (the break inside its loop) and ran in eager mode,
# with no cache entry. The text does not name the skipped frame's function (no metrics).
LOOP_FORECAST = [forecast("0", "accumulate", 0, 8, 8, ["skipped", "[0/0]"], [])]
CASES["loop_break"]["trace"]["forecast"] = LOOP_FORECAST
CASES["loop_break"]["2.13"]["trace"]["forecast"] = LOOP_FORECAST
CASES["loop_break"]["text"] = dict(CASES["loop_break"]["trace"],
                                   forecast=[dict(LOOP_FORECAST[0], function=None)])
CASES["loop_break"]["2.13"]["text"] = dict(CASES["loop_break"]["2.13"]["trace"],
                                           forecast=[dict(LOOP_FORECAST[0], function=None)])

# recompiles_left: a recompile limit of 6 (the config's) and k = 1, 2, 3, 1, 2: three entries,
# each differing from the one before in k; three recompiles left, nothing in eager mode. The
# text has no config: it counts against the default 8 (5 left).
CASES["recompiles_left"] = {
    "trace": case(
        compile_ids=3,
        findings=["recompile:constant_number"],
        recompiles=[{"function": "shift", "location": "recompiles_left.py:10",
                     "resumes_after_line": None, "count": 2,
                     "reasons": [["L['k'] == <value>", 2, "constant_number"]],
                     "compile_ids": ["[0/1]", "[0/2]"], "called_from": None}],
        forecast=[forecast("0", "shift", 3, 6, 3, None,
                           [["[0/1]", "[0/0]", [["changed", "L['k'] ==", "1", "2"]], 0],
                            ["[0/2]", "[0/1]", [["changed", "L['k'] ==", "2", "3"]], 0]])]),
}
CASES["recompiles_left"]["text"] = dict(
    CASES["recompiles_left"]["trace"],
    forecast=[dict(CASES["recompiles_left"]["trace"]["forecast"][0], limit=8, left=5)])
CASES["recompiles_left"]["2.13"] = {"trace": dict(
    CASES["recompiles_left"]["trace"],
    recompiles=[dict(CASES["recompiles_left"]["trace"]["recompiles"][0],
                     reasons=[["k == <value>", 2, "constant_number"]])])}
CASES["recompiles_left"]["2.13"]["text"] = dict(
    CASES["recompiles_left"]["2.13"]["trace"],
    forecast=CASES["recompiles_left"]["text"]["forecast"])
