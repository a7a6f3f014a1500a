#!/usr/bin/env python3
"""Write tests/fixtures/newer.log: a small hand-made TORCH_TRACE log with what the reference
tlparse 0.4.8 shows and the version this tool conforms to does not (issue 38):
compilation_metrics members the page does not know ("Other Metrics"),
compilation_metrics_runtime records, and entries with a top-level
subgraph_name (regional inductor's repeated_subgraph0, partitioned_bw_subgraph_1_0) that the
index groups under "Subgraph Name:" headers. Names and values carry HTML to test escaping.

    python3 scripts/make_newer_trace.py > tests/fixtures/newer.log

Deterministic; stdlib only; every payload carries its md5.
"""
import hashlib
import json
import sys

lines = []
clock = [0]


def emit(env, payload=None):
    clock[0] += 1
    s, us = divmod(clock[0] * 1000, 1000000)
    prefix = "V0429 16:%02d:%02d.%06d 3930665 torch/_logging/structured.py:%d] " % (
        s // 60, s % 60, us, 20 + clock[0])
    if payload is not None:
        env = dict(env, has_payload=hashlib.md5(payload.encode()).hexdigest())
    lines.append(prefix + json.dumps(env))
    if payload is not None:
        lines.extend("\t" + l for l in payload.split("\n"))


def cid(frame, fcid=0, attempt=0, **kw):
    d = {"frame_id": frame, "frame_compile_id": fcid}
    if attempt is not None:
        d["attempt"] = attempt
    d.update(kw)
    return d


emit({"str": ["/home/u/newer/train.py", 0]})
emit(dict(cid(0), dynamo_start={"stack": [
    {"filename": 0, "line": 9, "name": "<module>", "loc": "main()"},
    {"filename": 0, "line": 4, "name": "main", "loc": "model(x)"}]}))
emit(dict(cid(0), dynamo_output_graph={}), "class GraphModule(torch.nn.Module):\n    pass")
# No subgraph: listed as usual, no header.
emit(dict(cid(0), artifact={"name": "before_pre_grad_graph", "encoding": "string"}), "graph()")
# Two entries of one subgraph: one header above both.
emit(dict(cid(0), artifact={"name": "fx_graph_runnable", "encoding": "string"},
          subgraph_name="repeated_subgraph0"), "test payload subgraph A")
emit(dict(cid(0), inductor_post_grad_graph={}, subgraph_name="repeated_subgraph0"),
     "def forward(self, x): return x")
# Another subgraph, with a name that needs escaping.
emit(dict(cid(0), artifact={"name": "fx_graph_runnable", "encoding": "string"},
          subgraph_name="partitioned_bw_subgraph_1_0<b>"), "test payload subgraph B")
# Back to no subgraph: the listing goes on without a header.
emit(dict(cid(0), artifact={"name": "fx_graph_cache_miss", "encoding": "json"}),
     json.dumps({"key": "f1", "cache_state": "miss", "components": []}))
emit(dict(cid(0), compilation_metrics={
    "compile_id": "0/0", "co_name": "main", "co_filename": "/home/u/newer/train.py",
    "co_firstlineno": 4, "graph_op_count": 2, "entire_frame_compile_time_s": 1.25,
    "backend_compile_time_s": 0.5, "fail_type": None, "restart_reasons": [],
    # newer fields the page shows under "More from PyTorch"
    "num_graph_breaks": 0, "pytorch_version": "2.13.0+cpu",
    # fields the page does not know: "Other Metrics", sorted, null ones left out
    "is_forward": True, "frame_key": "1", "feature_usage": {"dynamo.a<b>": True},
    "specialize_float": False, "inductor_fx_remote_cache_miss_keys": None,
    "triton_kernel_compile_times_us": [["triton_poi_fused_0", 120]],
    "dynamo_config": json.dumps({"recompile_limit": 8, "note": "</td><script>alert(1)</script>",
                                 "pad": "x" * 200}),
    "weird<key>&": "a & b < c"}))
# The runtime of the compiled graph's first runs (PyTorch logs these with no attempt).
emit(dict(cid(0, attempt=None), compilation_metrics_runtime={
    "compile_id": "0/0", "co_name": None, "duration_us": 2500, "start_time_us": 1000,
    "runtime_triton_autotune_time_us": 700, "runtime_cudagraphify_time_us": None,
    "is_forward": True, "is_runtime": True}))
emit(dict(cid(0, attempt=None), bwd_compilation_metrics_runtime={
    "compile_id": "0/0", "duration_us": 900, "runtime_cudagraphify_time_us": 300,
    "is_forward": False, "is_runtime": True, "note": "<i>bwd</i>"}))
# A second compile id with a runtime record and no compilation_metrics of its own.
emit(dict(cid(1), dynamo_start={"stack": [
    {"filename": 0, "line": 12, "name": "helper", "loc": "y = x + 1"}]}))
emit(dict(cid(1, attempt=None), compilation_metrics_runtime={
    "compile_id": "1/0", "duration_us": 10, "is_forward": True, "is_runtime": True}))

sys.stdout.write("\n".join(lines) + "\n")
