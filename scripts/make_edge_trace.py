#!/usr/bin/env python3
"""Write tests/fixtures/edge.log: a small hand-made TORCH_TRACE log that exercises the
rarer parsers and the reference's quirks (spec core.md), for the golden tests.

    python3 scripts/make_edge_trace.py > tests/fixtures/edge.log

Deterministic; stdlib only. Each entry is chosen for one behaviour, noted beside it.
"""
import hashlib
import json
import sys

lines = []
clock = [0]


def emit(env, payload=None, raw_env=None):
    clock[0] += 1
    s, us = divmod(clock[0] * 1000, 1000000)
    prefix = "V1121 09:%02d:%02d.%06d 4242 torch/_logging/structured.py:%d] " % (
        s // 60, s % 60, us, 20 + clock[0])
    if payload is not None and env is not None:
        env = dict(env, has_payload=hashlib.md5(payload.encode()).hexdigest())
    lines.append(prefix + (raw_env if raw_env is not None else json.dumps(env)))
    if payload is not None:
        lines.extend("\t" + l for l in payload.split("\n"))


def cid(frame, fcid=0, attempt=0, **kw):
    d = {"frame_id": frame, "frame_compile_id": fcid}
    if attempt is not None:
        d["attempt"] = attempt
    d.update(kw)
    return d


def frame(fid, line, name, loc=None, **kw):
    f = {"filename": fid, "line": line, "name": name}
    if loc is not None:
        f["loc"] = loc
    f.update(kw)
    return f


# The string table; id 9 is used below but never defined: it shows as (unknown).
emit({"str": ["/home/u/edge/train.py", 0]})
emit({"str": ["/tmp/fbsource/x-seed-nspid4026531836_cgpid1/torch/nn/module.py", 1]})
emit({"str": ["<eval_with_key>.7", 2]})

# Two stacks that share a prefix and diverge: a trie with markers.
common = [frame(0, 10, "<module>", "main()"), frame(0, 5, "main", "step(model, x)")]
emit(dict(cid(0), dynamo_start={"stack": common + [frame(1, 99, "forward", "return f(x)")]}))
emit(dict(cid(1), dynamo_start={"stack": common + [
    frame(2, 3, "forward"), frame(9, 1, "missing_name"),
    frame(0, 7, "step", "y = x < 1 & x > 2", uninterned_filename="/src/<b>odd</b>.py")]}))
# dynamo_start without attempt: its metrics are never found (status missing).
emit(dict(cid(2, attempt=None), dynamo_start={"stack": common}))

# Payload-file parsers, one each.
emit(dict(cid(0), compiled_autograd_graph={}), "graph():\n    return None")
emit(dict(cid(0), optimize_ddp_split_graph={}), "split graph")
emit(dict(cid(0), optimize_ddp_split_child={"name": "submod_0"}), "child 0")
emit(dict(cid(0), graph_dump={"name": "sub/dir graph"}), "a graph dump in a sub-folder")
emit(dict(cid(0), aot_joint_graph={}), "joint")
emit(dict(cid(0), inductor_pre_grad_graph={}), "pre grad")
# Artifacts: string, json (re-serialised with sorted keys), invalid json (verbatim),
# and an unsupported encoding (a parser failure; its payload lands in payloads/).
emit(dict(cid(0), artifact={"name": "notes", "encoding": "string"}), "free text")
emit(dict(cid(0), artifact={"name": "fx_graph_cache_bypass", "encoding": "json"}),
     '{"z": 1, "a": [1.5, 1e-7, 100], "m": {"b": null, "a": "\\u00e9"}}')
emit(dict(cid(0), artifact={"name": "broken", "encoding": "json"}), "{not json")
emit(dict(cid(0), artifact={"name": "blob", "encoding": "bytes"}), "AAAA")
# Kernel stack traces: a readable companion page (and the numbering skew).
emit(dict(cid(0), artifact={
    "name": "inductor_provenance_tracking_kernel_stack_traces", "encoding": "json"}),
    json.dumps({"triton_poi_0": ["File \"a.py\", line 1\\n  foo()\\n"], "k": [1, "x<y"]}))
emit(dict(cid(0), artifact={
    "name": "inductor_provenance_tracking_kernel_stack_traces", "encoding": "json"}),
    "[not, json")
# Links: a normal one and a javascript: one (shown, but blocked).
emit(dict(cid(0), link={"name": "dashboard", "url": "https://example.com/run?id=1&x=2"}))
emit(dict(cid(0), link={"name": "click me", "url": "javascript:alert(1)"}))
# dump_file: eval_with_key name, and a plain one.
emit(dict(cid(0), dump_file={"name": "<eval_with_key>.7"}), "def forward(self, x):\n    return x < 1\n")
emit(dict(cid(0), dump_file={"name": "helpers.py"}), "x = 1\r\ny = 2")
# Shape specialization and a fast guard, then the metrics page that shows them.
emit(dict(cid(0), symbolic_shape_specialization={
    "symbol": "s0", "sources": ["L['x'].size()[0]", "L['y'].size()[0]"], "value": "8",
    "reason": "x.size(0) == 8", "user_stack": [frame(0, 5, "main", "step(model, x)")],
    "stack": [frame(1, 99, "forward")]}))
emit(dict(cid(0), guard_added_fast={"expr": "Eq(s0, 8)", "user_stack": [frame(0, 7, "step")]}))
emit(dict(cid(0), bwd_compilation_metrics={"inductor_compile_time_s": 1, "code_gen_time_s": 0.5,
                                          "fail_type": None}))
emit(dict(cid(0), aot_autograd_backward_compilation_metrics={
    "start_time": 1.5, "elapsed_time": 2, "fail_type": "RuntimeError", "fail_reason": "<oops>"}))
emit(dict(cid(0), compilation_metrics={
    "co_name": "forward", "co_filename": "/home/u/edge/train.py", "co_firstlineno": 99,
    "cache_size": 0, "accumulated_cache_size": 0, "guard_count": 3, "shape_env_guard_count": 1,
    "graph_op_count": 2, "graph_node_count": 5, "graph_input_count": 1, "start_time": 1.25,
    "entire_frame_compile_time_s": 1, "backend_compile_time_s": 0.75,
    "inductor_compile_time_s": 0.5, "code_gen_time_s": 0.125, "restart_reasons": [],
    "dynamo_time_before_restart_s": 0.0, "non_compliant_ops": ["aten::bad"],
    "compliant_custom_ops": ["mylib::good"]}))
# Frame 1: a restart and then a failure without fail_reason (the reference aborts).
emit(dict(cid(1), compilation_metrics={
    "co_name": "forward", "restart_reasons": ["Graph break: <built-in> & 'quotes'"],
    "graph_op_count": 1}))
emit(dict(cid(1, attempt=1), compilation_metrics={
    "co_name": "forward", "fail_type": "Unsupported", "fail_user_frame_filename": "train.py",
    "fail_user_frame_lineno": 7}))
# An ill-typed compile id: folder unknown_<line>, key (unknown).
emit({"frame_id": "x", "dynamo_output_graph": {}}, "graph in unknown")
# Compiled autograd ids.
emit({"compiled_autograd_id": 3, "compiled_autograd_graph": {}}, "ca graph")
# An entry with a top-level stack and no compile context: "Unknown stacks".
emit({"stack": [frame(0, 1, "<module>")], "describe_storage": {"id": 1, "describer_id": 0, "size": 4}})
# Chromium events: one good, one whose payload is not JSON (dropped).
emit(dict(cid(0), chromium_event={}), '{"name": "x", "ph": "B", "ts": 1733527213926572.8, "pid": 0, "tid": 0}')
emit(dict(cid(0), chromium_event={}), "{bad")
# Unknown field, and a type error inside a known record (fail_json, still in raw.jsonl).
emit(dict(cid(0), future_feature={"v": 1}))
emit(dict(cid(0), compilation_metrics={"graph_op_count": "many"}))
# Rank: the first rank seen fixes it; other ranks are counted and skipped.
emit(dict(cid(5), rank=0, dynamo_output_graph={}), "rank 0 graph")
emit(dict(cid(6), rank=1, dynamo_output_graph={}), "rank 1 graph")
# Bad lines: no prefix, invalid JSON, md5 mismatch.
lines.append("this is not a trace line")
emit(None, raw_env='{"frame_id": 0, ')
lines.append("\tan orphan payload line of the bad envelope above")
emit(dict(cid(7), rank=0, dynamo_output_graph={}, has_payload="0" * 32), raw_env=None)
lines.append("\tpayload that does not match")

sys.stdout.write("\n".join(lines) + "\n")
