#!/usr/bin/env bash
# What PyTorch 2.13 adds to a trace, on logs of our own in its form (written below, not copied
# from a real run): the torch_version artifact (logged without a rank in a distributed run),
# runtime metrics with a frame id and no attempt, subgraph_name, describe_tensor's new fields,
# the newer compilation_metrics fields, graphs around each pass, resume functions' bytecode,
# side effects, kernel and runtime artifacts, AOT autograd cache artifacts beside their
# chromium events, and a non-strict export's make_fx_fail_partial; and PyTorch 2.6's cache
# verdicts told by chromium events only. Each is known (no "Unknown fields", --strict passes),
# written where the reference writes artifacts, and shown: the version in the index, --summary
# and --json, the runtime in the index, the new fields on the metrics page.
# Usage: tests/pytorch213.sh path/to/tlparse
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh" # here, need_python3, new_tmp, ok, bad, run, has, same, entry
bin=$(realpath "$1")
need_python3 pytorch213
new_tmp
cd "$tmp" || exit 1

R0='"rank": 0'
F1='"frame_id": 1, "frame_compile_id": 0, "attempt": 0'
{
    entry '{"str": ["/home/u/step.py", 0]}' ''
    entry '{"dynamo_start": {"stack": [{"line": 20, "name": "<module>", "filename": 0}, {"line": 11, "name": "step", "filename": 0}]}, '"$R0, $CID"'}' ''
    entry '{"artifact": {"name": "torch_version", "encoding": "json"}, "has_payload": "@MD5@"}' \
        '{"pytorch_version": "2.13.0+cpu", "commit": "0123abcd", "oss": true}'
    entry '{"describe_tensor": {"id": 0, "ndim": 1, "dtype": "torch.float32", "device": "device(type='"'cpu'"')", "size": [4], "dynamo_hint_overrides": {}, "is_leaf": true, "stride": [1], "storage": 0, "view_func": "_CustomViewFunc(func=<built-in method _view_func_unsafe>)", "describer_id": 0}, '"$R0, $CID"'}' ''
    entry '{"artifact": {"name": "before_pre_grad_graph", "encoding": "string"}, '"$R0, $CID"', "has_payload": "@MD5@"}' \
        'class GraphModule(torch.nn.Module):'
    entry '{"artifact": {"name": "after_post_grad_graph", "encoding": "string"}, '"$R0, $CID"', "has_payload": "@MD5@"}' \
        'class <lambda>(torch.nn.Module):'
    entry '{"artifact": {"name": "dynamo_side_effects", "encoding": "string"}, '"$R0, $CID"', "has_payload": "@MD5@"}' \
        'Mutating object of type list (source: G['"'seen'"'])'
    entry '{"chromium_event": {}, '"$R0, $CID"', "has_payload": "@MD5@"}' \
        '{"name": "autograd_cache_miss", "ts": 1.0, "args": {"cache_state": "miss"}, "ph": "i", "cat": "dynamo_timed", "tid": 0, "pid": 0, "s": "p"}'
    entry '{"artifact": {"name": "aotautograd_cache_miss", "encoding": "json"}, '"$R0, $CID"', "has_payload": "@MD5@"}' \
        '{"key": "a1", "cache_state": "miss", "components": []}'
    entry '{"artifact": {"name": "fx_graph_cache_hit", "encoding": "json"}, '"$R0, $CID"', "has_payload": "@MD5@"}' \
        '{"key": "f1", "cache_state": "hit"}'
    entry '{"artifact": {"name": "inductor_runtime_and_tensor_meta", "encoding": "json"}, '"$R0, $CID"', "has_payload": "@MD5@"}' \
        '{"ops": [{"name": "buf0", "type": "other", "estimated_runtime_ns": 0.0, "outputs": []}]}'
    entry '{"artifact": {"name": "triton_kernel_info", "encoding": "json"}, '"$R0, $CID"', "subgraph_name": "subgraph_0", "has_payload": "@MD5@"}' \
        '{"triton_poi_fused_0": {"num_warps": 4}}'
    entry '{"compilation_metrics": {"compile_id": "0/0", "co_name": "step", "co_filename": "/home/u/step.py", "co_firstlineno": 11, "graph_op_count": 3, "entire_frame_compile_time_s": 1.5, "fail_type": null, "restart_reasons": [], "recompile_reason": null, "num_graph_breaks": 1, "cudagraph_skip_reason": "skipping cudagraphs due to <cpu device>", "guard_latency_us": 12, "param_count": 2, "param_numel": 12, "param_bytes": 48, "duration_us": 1500000, "pytorch_version": "2.13.0+cpu", "python_version": "3.11.7", "triton_version": "", "cuda_version": null, "is_forward": true, "is_runtime": false}, '"$R0, $CID"'}' ''
    entry '{"artifact": {"name": "torch_dynamo_resume_in_step_at_14_ORIGINAL_BYTECODE", "encoding": "string"}, '"$R0, $F1"', "has_payload": "@MD5@"}' \
        '  14           0 LOAD_FAST                0 (x)'
    entry '{"artifact": {"name": "torch_dynamo_resume_in_step_at_14_MODIFIED_BYTECODE", "encoding": "string"}, '"$R0, $F1"', "has_payload": "@MD5@"}' \
        '  14           0 LOAD_GLOBAL              0 (__compiled_fn_3)'
    entry '{"compilation_metrics_runtime": {"compile_id": "0/0", "duration_us": 2500, "runtime_triton_autotune_time_us": 700, "runtime_cudagraphify_time_us": null, "is_forward": true, "is_runtime": true}, '"$R0"', "frame_id": 0, "frame_compile_id": 0}' ''
    entry '{"bwd_compilation_metrics_runtime": {"compile_id": "0/0", "duration_us": 900, "runtime_triton_autotune_time_us": null, "runtime_cudagraphify_time_us": 300, "is_forward": false, "is_runtime": true}, '"$R0"', "frame_id": 0, "frame_compile_id": 0}' ''
} >step.log

# ---- known, and nothing is another rank's (the version has no rank)
run 0 step.log --strict -o out --no-browser
hasnt err.txt "Unknown fields"
has err.txt "Stats { ok: 16 }"

# ---- written where the reference writes artifacts: each a file of its compile id, numbered
(cd out && find . -type f ! -name '*.css' ! -name '*.js' | LC_ALL=C sort) >files.txt
same files.txt "./-_-_-_-/torch_version_0.json
./-_0_0_0/after_post_grad_graph_2.txt
./-_0_0_0/aotautograd_cache_miss_4.json
./-_0_0_0/before_pre_grad_graph_1.txt
./-_0_0_0/bwd_compilation_metrics_runtime_1.html
./-_0_0_0/compilation_metrics_8.html
./-_0_0_0/compilation_metrics_runtime_1.html
./-_0_0_0/dynamo_side_effects_3.txt
./-_0_0_0/fx_graph_cache_hit_5.json
./-_0_0_0/inductor_runtime_and_tensor_meta_6.json
./-_0_0_0/triton_kernel_info_7.json
./-_1_0_0/torch_dynamo_resume_in_step_at_14_MODIFIED_BYTECODE_10.txt
./-_1_0_0/torch_dynamo_resume_in_step_at_14_ORIGINAL_BYTECODE_9.txt
./chromium_events.json
./compile_directory.json
./compile_time.html
./failures_and_restarts.html
./index.html
./raw.jsonl
./raw.log
./summary.json"
has out/index.html "<p class='pytorch-version'>Logged by PyTorch <strong>2.13.0+cpu</strong></p>"
has out/index.html '<h2>Runtime</h2>'
# the regional-inductor subgraph of an entry heads its run of the listing (reference 0.4.8)
tr -d '\n' <out/index.html >flat.html
has flat.html '<li style="list-style: none; margin-top: 0.8em">Subgraph Name: <strong>subgraph_0</strong></li><li><a href="-_0_0_0/triton_kernel_info_7.json">'
has flat.html '<li style="list-style: none; margin-top: 0.8em">Subgraph Name: <strong>(none)</strong></li><li><a href="-_0_0_0/compilation_metrics_8.html">'
has out/index.html '<li><a href="#[0/0]">[0/0]</a> forward: 1 record, 2500 us, autotuning 700 us (<a href="-_0_0_0/compilation_metrics_runtime_1.html">record 1</a>)</li>'
has out/index.html '<li><a href="#[0/0]">[0/0]</a> backward: 1 record, 900 us, CUDA graphs 300 us (<a href="-_0_0_0/bwd_compilation_metrics_runtime_1.html">record 1</a>)</li>'
# each runtime record its own page, unlisted (the listing's numbers stay the reference's)
has out/-_0_0_0/compilation_metrics_runtime_1.html '<h1>Runtime Compilation Info for [0/0] </h1>'
has out/-_0_0_0/compilation_metrics_runtime_1.html '<tr><td>runtime_triton_autotune_time_us</td><td><code>700</code></td></tr>'
hasnt out/-_0_0_0/compilation_metrics_runtime_1.html 'runtime_cudagraphify_time_us' # null
has out/-_0_0_0/bwd_compilation_metrics_runtime_1.html '<tr><td>runtime_cudagraphify_time_us</td><td><code>300</code></td></tr>'
hasnt out/compile_directory.json 'metrics_runtime'
m=out/-_0_0_0/compilation_metrics_8.html
has "$m" '<h2>More from PyTorch</h2>'
has "$m" '<tr><td>Graph breaks</td><td>1</td></tr>'
has "$m" '<tr><td>CUDA graphs skipped because</td><td>skipping cudagraphs due to &lt;cpu device&gt;</td></tr>'
has "$m" '<tr><td>Guard latency (us)</td><td>12</td></tr>'
has "$m" '<tr><td>Parameter bytes</td><td>48</td></tr>'
has "$m" '<tr><td>PyTorch</td><td>2.13.0+cpu</td></tr>'
hasnt "$m" 'Recompile reason' # null
hasnt "$m" '<td>Triton</td>'  # ""

# ---- the version and the caches in --json and --summary: the AOT autograd miss once (its
# chromium event and its artifact say the same lookup)
run 0 step.log --json
python3 - out.txt <<'PY' && ok || bad "step.log --json"
import json, sys
s = json.load(open(sys.argv[1]))
# 2.13 lists the AOT autograd key's components only with DEBUG logging on: the miss is
# named, with no components to compare
got = (s.get("pytorch_version"), s["cache"], s["compile_ids"])
want = ("2.13.0+cpu", {"fx_graph": {"hit": 1, "miss": 0, "bypass": 0},
                       "aotautograd": {"hit": 0, "miss": 1, "bypass": 0},
                       "misses": [{"compile_id": "[0/0]", "cache": "aotautograd", "graph": None,
                                   "key": "a1", "nearest": None, "nearest_key": None,
                                   "components_listed": False, "new_graph": False,
                                   "differs": [],
                                   "note": "the log lists no components of this key (PyTorch "
                                   "lists the AOT autograd key's components only with DEBUG "
                                   "logging on)"}],
                       "bypasses": []}, 2)
if got != want:
    print("FAIL: want %s\n  got %s" % (want, got))
    sys.exit(1)
# no timed events: the ledger is the metrics' (1.5 s of Dynamo: no backend time given) and the
# first runs' (2500 + 900 us)
led = s["compile_time"]["ledger"]
got = (led["source"], led["compiling_s"], led["runtime_s"], led["phases"]["dynamo"],
       [(c["compile_id"], c["s"], c["runtime_s"], c["cache"]) for c in led["compile_ids"]])
want = ("compilation_metrics", 1.5, 0.0034, 1.5, [("[0/0]", 1.5, 0.0034, "miss")])
if got != want:
    print("FAIL: ledger want %s\n  got %s" % (want, got))
    sys.exit(1)
PY
run 0 step.log --summary
has out.txt "(torch_trace, PyTorch 2.13.0+cpu): 2 compile ids"
has out.txt "Caches: fx_graph 1 hit, 0 miss, 0 bypass; aotautograd 0 hit, 1 miss, 0 bypass"

# ---- PyTorch 2.6: the AOT autograd cache's verdicts only as chromium events; no version
{
    entry '{"dynamo_start": {"stack": []}, '"$CID"'}' ''
    entry '{"chromium_event": {}, '"$CID"', "has_payload": "@MD5@"}' \
        '{"name": "autograd_cache_miss", "ts": 1.0, "args": {"cache_state": "miss"}, "ph": "i", "cat": "dynamo_timed", "tid": 0, "pid": 0, "s": "p"}'
    entry '{"chromium_event": {}, "frame_id": 0, "frame_compile_id": 1, "attempt": 0, "has_payload": "@MD5@"}' \
        '{"name": "autograd_cache_hit", "ts": 2.0, "args": {"cache_state": "hit"}, "ph": "i", "cat": "dynamo_timed", "tid": 0, "pid": 0, "s": "p"}'
    entry '{"chromium_event": {}, "frame_id": 0, "frame_compile_id": 1, "attempt": 0, "has_payload": "@MD5@"}' \
        '{"name": "autograd_cache_bypass", "ts": 3.0, "args": {}, "ph": "i", "cat": "dynamo_timed", "tid": 0, "pid": 0, "s": "p"}'
} >cache26.log
run 0 cache26.log --json
python3 - out.txt <<'PY' && ok || bad "cache26.log --json"
import json, sys
s = json.load(open(sys.argv[1]))
got = (s["pytorch_version"], s["cache"]["aotautograd"])
want = (None, {"hit": 1, "miss": 1, "bypass": 1})
if got != want:
    print("FAIL: want %s\n  got %s" % (want, got))
    sys.exit(1)
PY
run 0 cache26.log --strict -o out26 --no-browser
hasnt out26/index.html "pytorch-version"

# ---- a non-strict torch.export of 2.13 that failed: no compile id, no metrics, make_fx's
# partial graph stops at the .item() of an `if`
{
    entry '{"str": ["/home/u/exp.py", 0]}' ''
    entry '{"artifact": {"name": "torch_version", "encoding": "json"}, "has_payload": "@MD5@"}' \
        '{"pytorch_version": "2.13.0+cpu", "commit": "0123abcd", "oss": true}'
    entry '{"artifact": {"name": "make_fx_fail_partial", "encoding": "string"}, "stack": [{"line": 14, "name": "<module>", "filename": 0}], "has_payload": "@MD5@"}' \
        'def forward(self, arg0_1: "f32[4]"):
    # File: /home/u/exp.py:8 in forward, code: if x.sum() > 0:
    sum_1: "f32[]" = torch.ops.aten.sum.default(arg0_1);  arg0_1 = None
    gt: "b8[]" = torch.ops.aten.gt.Scalar(sum_1, 0);  sum_1 = None
    item: "Sym(Eq(u0, 1))" = torch.ops.aten.item.default(gt);  gt = item = None'
} >export.log
run 0 export.log --json
python3 - out.txt <<'PY' && ok || bad "export.log --json"
import json, sys
s = json.load(open(sys.argv[1]))
got = [(f["compile_id"], f["type"], f["location"], f["function"], f["advice"]["category"],
        f["reason"]) for f in s["failures"]]
want = [(None, "make_fx_fail_partial", "/home/u/exp.py:8", "forward", "export_control_flow",
         "Data-dependent control flow: `if x.sum() > 0:` branches on a tensor's value; tracing "
         "stopped at `item: \"Sym(Eq(u0, 1))\" = torch.ops.aten.item.default(gt);  gt = item = None`")]
if got != want:
    print("FAIL: want %s\n  got %s" % (want, got))
    sys.exit(1)
PY
run 0 export.log -e -o oute --no-browser
has oute/index.html "Export failed"
has oute/index.html "torch.cond"
hasnt oute/index.html "No issues were found"
has oute/index.html "Logged by PyTorch <strong>2.13.0+cpu</strong>"

# ---- why the caches missed: 2.13's cache artifacts list every component of the key; the
# second compile flips max_autotune and gives input 0 another dtype, the third's key is the
# second's but its shape guards fail, and a bypass's reason comes from the log (escaped)
C1='"frame_id": 0, "frame_compile_id": 1, "attempt": 0'
C2='"frame_id": 0, "frame_compile_id": 2, "attempt": 0'
T32="TensorMetadata(dtype=torch.float32, shape=torch.Size([4]), stride=(1,), device=device(type='cpu'))"
T64="TensorMetadata(dtype=torch.float64, shape=torch.Size([4]), stride=(1,), device=device(type='cpu'))"
{
    entry '{"artifact": {"name": "torch_version", "encoding": "json"}, "has_payload": "@MD5@"}' \
        '{"pytorch_version": "2.13.0+cpu", "commit": "0123abcd", "oss": true}'
    entry '{"artifact": {"name": "fx_graph_cache_miss", "encoding": "json"}, '"$CID"', "has_payload": "@MD5@"}' \
        '{"cache_status_detailed": "full_miss", "key": "fk1", "cache_state": "miss", "components": ["[g1] gm: GraphModule()\n\ndef forward(self, arg0_1):\n    pass", "[t32] example_inputs[0]: '"$T32"'", "[f] fx_kwargs[is_inference]: True", "[f] inductor_config[max_autotune]: False", "[v1] torch_version: \u0001\u00ff"]}'
    entry '{"artifact": {"name": "fx_graph_cache_miss", "encoding": "json"}, '"$C1"', "has_payload": "@MD5@"}' \
        '{"cache_status_detailed": "full_miss", "key": "fk2", "cache_state": "miss", "components": ["[g1] gm: GraphModule()\n\ndef forward(self, arg0_1):\n    pass", "[t64] example_inputs[0]: '"$T64"'", "[f] fx_kwargs[is_inference]: True", "[t] inductor_config[max_autotune]: True", "[v1] torch_version: \u0001\u00ff"]}'
    entry '{"artifact": {"name": "fx_graph_cache_miss", "encoding": "json"}, '"$C2"', "has_payload": "@MD5@"}' \
        '{"cache_status_detailed": "guard_miss", "cache_status_guard_expr": "Eq(s0, 4)", "key": "fk2", "cache_state": "miss", "components": ["[g1] gm: x"]}'
    entry '{"artifact": {"name": "fx_graph_cache_bypass", "encoding": "json"}, '"$C2"', "has_payload": "@MD5@"}' \
        '{"cache_state": "bypass", "cache_bypass_reason": "<script>alert(1)</script>", "components": []}'
} >cachemiss.log
run 0 cachemiss.log --json
python3 - out.txt <<'PY' && ok || bad "cachemiss.log --json"
import json, sys
c = json.load(open(sys.argv[1]))["cache"]
got = ([(m["compile_id"], m["nearest"], [(d["component"], d["before"], d["after"], d["words"])
                                         for d in m["differs"]], m["note"])
        for m in c["misses"]], c["bypasses"])
want = ([("[0/0]", None, [], None),
         ("[0/1]", "[0/0]",
          [("example_inputs[0]",
            "TensorMetadata(dtype=torch.float32, shape=torch.Size([4]), stride=(1,), device=device(type='cpu'))",
            "TensorMetadata(dtype=torch.float64, shape=torch.Size([4]), stride=(1,), device=device(type='cpu'))",
            "input 0's dtype changed (torch.float32 -> torch.float64)"),
           ("inductor_config[max_autotune]", "False", "True",
            "inductor config `max_autotune` changed (False -> True)")], None),
         ("[0/2]", "[0/1]", [],
          "an entry with the same key is stored, but its shape guards failed: Eq(s0, 4)")],
        [{"compile_id": "[0/2]", "cache": "fx_graph", "reason": "<script>alert(1)</script>"}])
if got != want:
    print("FAIL: want %s\n  got %s" % (want, got))
    sys.exit(1)
PY
run 0 cachemiss.log --summary
has out.txt "Cache miss [0/1] (FX graph, inference) against [0/0]: input 0's dtype changed (torch.float32 -> torch.float64); inductor config \`max_autotune\` changed (False -> True)"
has out.txt "Cache miss [0/2] (FX graph) against [0/1]: an entry with the same key is stored, but its shape guards failed: Eq(s0, 4)"
has out.txt "1 cache miss with no earlier entry in this log (a cold cache): [0/0] FX graph inference"
has out.txt "Cache bypass [0/2] (FX graph): <script>alert(1)</script>"
run 0 cachemiss.log -o outc --no-browser
has outc/index.html "<li>inductor config \`max_autotune\` changed (False -&gt; True)</li>"
has outc/index.html "Cache bypass <a class='cid' href=\"#[0/2]\">[0/2]</a> FX graph: &lt;script&gt;alert(1)&lt;/script&gt;"
hasnt outc/index.html "<script>alert(1)"
# the summary read back from the report says the same
run 0 outc --summary
has out.txt "Cache miss [0/1] (FX graph, inference) against [0/0]: input 0's dtype changed (torch.float32 -> torch.float64); inductor config \`max_autotune\` changed (False -> True)"
has out.txt "Cache bypass [0/2] (FX graph): <script>alert(1)</script>"

summary_line pytorch213
