# vLLM's way of compiling, in small (vllm/compilation/backends.py and piecewise_backend.py):
# a torch.compile backend that logs its compilation config, splits the graph at its
# "splitting op" (softmax stands for attention) into piecewise submodules, logs the split
# graph, and compiles each other submodule with inductor for a dynamic range and for a
# CUDA-graph capture size, logging vllm_piecewise_compile_start before each compile and the
# submodule's graph once, all through torch._logging.trace_structured as vLLM does.
# Two models are compiled, as vLLM compiles a drafter beside its model: each backend call
# logs its own config (the second with the prefix "head") and numbers its pieces from 0.
import json

import torch
from torch._inductor.compile_fx import compile_fx
from torch._logging import trace_structured
from torch.fx.passes.split_module import split_module

SPLITTING_OPS = (torch.softmax, torch.nn.functional.softmax)
RANGES = [(1, 64, False, False), (4, 4, True, True)]  # start, end, single size, cudagraph size


def log_config(prefix):
    trace_structured(
        "artifact",
        metadata_fn=lambda: {"name": "vllm_compilation_config", "encoding": "json"},
        payload_fn=lambda: json.dumps({
            "model": "tiny-mlp", "prefix": prefix, "mode": "CompilationMode.VLLM_COMPILE",
            "backend": "inductor", "custom_ops": "none", "splitting_ops": "torch.softmax",
            "cudagraph_mode": "CUDAGraphMode.PIECEWISE", "compile_sizes": "4",
            "compile_ranges_split_points": "64", "use_inductor_graph_partition": False,
            "inductor_passes": "", "enabled_passes": "",
            "dynamic_shapes_type": "DynamicShapesType.BACKED",
            "dynamic_shapes_evaluate_guards": False}))


def split(gm):
    """Partitions as vLLM's split_graph: each splitting op alone, the rest between them."""
    part = [0]
    ids = {}
    for node in gm.graph.nodes:
        if node.op == "call_function" and node.target in SPLITTING_OPS:
            part[0] += 1
            ids[node] = part[0]
            part[0] += 1
        else:
            ids[node] = part[0]
    split_gm = split_module(gm, None, lambda n: ids[n])
    splitting = {"submod_%d" % ids[n] for n in ids
                 if n.op == "call_function" and n.target in SPLITTING_OPS}
    return split_gm, splitting


class PiecewiseCompile(torch.fx.Interpreter):
    """Runs the split graph once; compiles each submodule to compile on its real inputs."""

    def __init__(self, gm, to_compile):
        super().__init__(gm)
        self.to_compile = to_compile
        self.index = 0

    def call_module(self, target, args, kwargs):
        out = super().call_module(target, args, kwargs)
        if target not in self.to_compile:
            return out
        submod = getattr(self.module, target)
        logged = False
        compiled = None
        for start, end, single, cudagraph in RANGES:
            index = self.index
            trace_structured(
                "artifact",
                metadata_fn=lambda: {"name": "vllm_piecewise_compile_start", "encoding": "json"},
                payload_fn=lambda: json.dumps({
                    "piecewise_index": index, "submod_name": target,
                    "total_piecewise_compiles": len(self.to_compile) * len(RANGES),
                    "compile_range_start": start, "compile_range_end": end,
                    "is_single_size": single, "is_cudagraph_capture_size": cudagraph}))
            if not logged:
                logged = True
                trace_structured(
                    "graph_dump",
                    metadata_fn=lambda: {"name": "vllm_" + target},
                    payload_fn=lambda: submod.print_readable(print_output=False))
            compiled = compile_fx(submod, list(args))
        self.index += 1
        setattr(self.module, target, _Compiled(compiled))
        return out


class _Compiled(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        out = self.fn(*args)
        return out[0] if isinstance(out, (list, tuple)) and len(out) == 1 else out


def vllm_backend(prefix):
    """A backend call per compiled model, as vLLM's VllmBackend (prefix: the model's)."""
    def backend(gm, example_inputs):
        log_config(prefix)
        split_gm, splitting = split(gm)
        trace_structured(
            "graph_dump",
            metadata_fn=lambda: {"name": "vllm_piecewise_split_graph"},
            payload_fn=lambda: split_gm.print_readable(print_output=False))
        to_compile = [n for n, _ in split_gm.named_children() if n not in splitting]
        PiecewiseCompile(split_gm, to_compile).run(*example_inputs)
        return split_gm
    return backend


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.up = torch.nn.Linear(8, 8)
        self.down = torch.nn.Linear(8, 8)

    def forward(self, x):
        h = torch.relu(self.up(x))
        a = torch.softmax(h, dim=-1)
        return self.down(a) + x


class Head(torch.nn.Module):
    """A second, smaller model (a drafter's head), compiled by a second backend call."""

    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)

    def forward(self, x):
        a = torch.softmax(self.proj(x), dim=-1)
        return a * 2


torch.manual_seed(0)
model = Block()
head = Head()
with torch.no_grad():
    out = torch.compile(model, backend=vllm_backend(""))(torch.randn(4, 8))
    out = torch.compile(head, backend=vllm_backend("head"))(out)
print(out.shape)
