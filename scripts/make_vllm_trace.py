#!/usr/bin/env python3
"""Write tests/fixtures/vllm.log: a small hand-made TORCH_TRACE log shaped as vLLM writes it
(vllm/compilation/backends.py and piecewise_backend.py log through trace_structured): the
compilation config, the piecewise split graph, then for each submodule and each compile
range or size a vllm_piecewise_compile_start artifact followed by what the compile wrote
(the submodule's graph once, inductor's graphs, code and cache verdict). With such entries
the reference tlparse 0.4.8 writes a vLLM summary as index.html and the classic index as
tlparse_index.html. The model name and a submodule's name carry HTML to test escaping.

    python3 scripts/make_vllm_trace.py > tests/fixtures/vllm.log
    python3 scripts/make_vllm_trace.py --calls > tests/fixtures/vllm_calls.log

With --calls the backend is called a second time (a drafter's model, frame 1, loaded from
vLLM's compile cache as its vllm_compile_event says), with its own config and pieces
numbered from 0 again: two compile calls.

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
    prefix = "V0305 10:%02d:%02d.%06d 777 torch/_logging/structured.py:%d] " % (
        s // 60, s % 60, us, 20 + clock[0])
    if payload is not None:
        env = dict(env, has_payload=hashlib.md5(payload.encode()).hexdigest())
    lines.append(prefix + json.dumps(env))
    if payload is not None:
        lines.extend("\t" + l for l in payload.split("\n"))


CID = {"frame_id": 0, "frame_compile_id": 0, "attempt": 0}


def art(name, payload, encoding="json"):
    emit(dict(CID, artifact={"name": name, "encoding": encoding}), payload)


def compile_call(cid, prefix, subs, line, metrics_id, event=None):
    """One call of vLLM's backend for the frame cid: dynamo's start and graph, an optional
    vllm_compile_event, the config (with prefix), the split graph, then each submodule of subs
    ((name, shown name)) compiled for a range and a size, pieces numbered from 0."""
    global CID
    CID = cid
    emit(dict(CID, dynamo_start={"stack": [
        {"filename": 0, "line": line, "name": "execute_model", "loc": "self.model(x)"}]}))
    emit(dict(CID, dynamo_output_graph={}), "class GraphModule(torch.nn.Module):\n    pass")
    if event:
        art("vllm_compile_event", json.dumps({"type": event}))
    art("vllm_compilation_config", json.dumps({
        "model": "facebook/opt-125m<script>alert(1)</script>", "prefix": prefix,
        "mode": "CompilationMode.VLLM_COMPILE", "backend": "inductor", "custom_ops": "none",
        "splitting_ops": "vllm::unified_attention, vllm::unified_attention_with_output",
        "cudagraph_mode": "CUDAGraphMode.PIECEWISE", "compile_sizes": "4",
        "compile_ranges_split_points": "8192", "use_inductor_graph_partition": False,
        "inductor_passes": "post_grad_custom_post_pass", "enabled_passes": "fuse_norm_quant",
        "dynamic_shapes_type": "DynamicShapesType.BACKED",
        "dynamic_shapes_evaluate_guards": False}))
    emit(dict(CID, graph_dump={"name": "vllm_piecewise_split_graph"}),
         "class GraphModule(torch.nn.Module):\n    def forward(self, x):\n"
         "        submod_0 = self.submod_0(x)\n        return submod_0")
    index = 0
    for sub, shown in subs:
        logged = False
        for start, end, single, cg in ((1, 8192, False, False), (4, 4, True, True)):
            art("vllm_piecewise_compile_start", json.dumps({
                "piecewise_index": index, "submod_name": shown,
                "total_piecewise_compiles": 2 * len(subs),
                "compile_range_start": start, "compile_range_end": end,
                "is_single_size": single, "is_cudagraph_capture_size": cg}))
            if not logged:
                logged = True
                emit(dict(CID, graph_dump={"name": "vllm_" + sub}),
                     "class GraphModule(torch.nn.Module):\n    def forward(self, x):\n"
                     "        return x.relu()")
            emit(dict(CID, inductor_post_grad_graph={}), "def forward(self, x): return x.relu()")
            emit(dict(CID, inductor_output_code={"filename": "/tmp/ind/c%d%s.py" % (index, sub)}),
                 "# kernel for %s, %s\ndef call(args): pass" % (sub, start))
            art("fx_graph_cache_miss", json.dumps({"key": "f%d%d" % (index, start),
                                                   "cache_state": "miss", "components": []}))
        index += 1
    emit(dict(CID, compilation_metrics={
        "compile_id": metrics_id, "co_name": "execute_model",
        "co_filename": "/home/u/vllm/model_runner.py", "co_firstlineno": line,
        "entire_frame_compile_time_s": 3.5, "backend_compile_time_s": 3.0,
        "fail_type": None, "restart_reasons": []}))


emit({"str": ["/home/u/vllm/model_runner.py", 0]})
compile_call(CID, "", (("submod_0", "submod_0"), ("submod_2", "submod_2<b>")), 40, "0/0")
if "--calls" in sys.argv[1:]:
    # a second call of the backend (a drafter's model, loaded from vLLM's compile cache): its
    # own config, its pieces numbered from 0 again
    compile_call({"frame_id": 1, "frame_compile_id": 0, "attempt": 0}, "eagle_head<i>",
                 (("submod_0", "submod_0"),), 60, "1/0", event="aot_cache_hit")

sys.stdout.write("\n".join(lines) + "\n")
