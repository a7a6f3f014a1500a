#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write tests/fixtures/demo.log, a made-up but realistic TORCH_TRACE log.

The log tells the story of a small training script, demo_model.py (an MLP plus an
attention-like function), compiled with torch.compile: frame 0 compiles, frame 1
restarts after a graph break, frame 2 fails in the backend, frame 3 is an inference
function served from the FX graph cache, and frame 0 is recompiled with a dynamic batch.
Everything is generated here (no real log is copied) and the output is byte-for-byte
the same on every run: no clock, no unseeded randomness, no dict-order surprises.

Regenerate the fixture with either of:
    python3 scripts/make_demo_trace.py > tests/fixtures/demo.log
    python3 scripts/make_demo_trace.py -o tests/fixtures/demo.log
and check it with scripts/check_trace.py tests/fixtures/demo.log.
Python 3 standard library only.
"""
import argparse
import base64
import hashlib
import json
import random
import re
import sys

# ----------------------------------------------------------------------------------------
# The made-up user program.  Stack frames and "File: ..." graph comments point into it,
# so line numbers are looked up here rather than hard-coded.

USER_FILE = "/home/user/projects/demo/demo_model.py"
EXT_FILE = "/home/user/projects/demo/demo_ext/__init__.py"
# A packaged torch whose paths the report shortens to "torch/..." (the -seed-nspid rule).
TORCH = "/mnt/xarfuse/uid-1000/5e1f0c2a-seed-nspid4026531836_cgpid7781243-ns-4026531840/torch/"
PY_LIB = "/usr/lib/python3.11/"

DEMO_SOURCE = '''\
"""Tiny training script: an MLP and an attention-like block under torch.compile."""
import torch
import torch.nn as nn
import torch.nn.functional as F

import demo_ext


class MLP(nn.Module):
    def __init__(self, dim=64, depth=6):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(dim, dim) for _ in range(depth))
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        for layer in self.layers:
            x = x + F.gelu(layer(x))
        return self.norm(x)


def attention_block(q, k, v):
    scale = q.size(-1) ** -0.5
    scores = torch.matmul(q, k.transpose(-2, -1)) * scale
    weights = torch.softmax(scores, dim=-1)
    weights = demo_ext.fast_scale(weights, 0.9)
    out = torch.matmul(weights, v)
    return out.relu()


@torch.no_grad()
def predict(model, x):
    logits = model(x)
    return logits.argmax(dim=-1)


def train_step(model, attn, opt, x, q, k, v):
    opt.zero_grad()
    h = model(x)
    a = attn(q, k, v)
    loss = h.pow(2).mean() + a.mean()
    loss.backward()
    opt.step()
    return loss


def main():
    torch.manual_seed(0)
    model = MLP().cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    cmodel = torch.compile(model)
    cattn = torch.compile(attention_block)
    cpredict = torch.compile(predict)
    q, k, v = (torch.randn(4, 128, 32, device="cuda") for _ in range(3))
    for step in range(3):
        x = torch.randn(32, 64, device="cuda")
        loss = train_step(cmodel, cattn, opt, x, q, k, v)
        print(f"step {step}: loss {loss.item():.4f}")
    preds = cpredict(model, torch.randn(32, 64, device="cuda"))
    print("predictions", preds[:8].tolist())
    x = torch.randn(48, 64, device="cuda")
    loss = train_step(cmodel, cattn, opt, x, q, k, v)
    print(f"bigger batch: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
'''
DEMO_LINES = DEMO_SOURCE.split("\n")


def src_line(snippet, nth=1):
    """1-based line number of the nth line of DEMO_SOURCE containing snippet."""
    seen = 0
    for i, text in enumerate(DEMO_LINES, 1):
        if snippet in text:
            seen += 1
            if seen == nth:
                return i
    raise KeyError(snippet)


def src_code(lineno):
    return DEMO_LINES[lineno - 1].strip()


DIM, DEPTH = 64, 6
L_FORWARD = src_line("def forward(self, x):")
L_RESIDUAL = src_line("x = x + F.gelu(layer(x))")
L_NORM = src_line("return self.norm(x)")
L_ATTN = src_line("def attention_block")
L_BREAK = src_line("demo_ext.fast_scale(weights")
L_PREDICT = src_line("def predict")

# ----------------------------------------------------------------------------------------
# Deterministic helpers.

RNG = random.Random(20241121)


def fake_hash(label, n=52):
    """A base32 digest like the ones inductor uses for cache keys and file names."""
    raw = hashlib.sha256(label.encode()).digest() + hashlib.sha256(label.encode() + b"+").digest()
    return base64.b32encode(raw).decode().lower()[:n]


def md5_hex(text):
    return hashlib.md5(text.encode("utf-8")).hexdigest()


def fmt_shape(shape):
    return "[" + ", ".join(str(d) for d in shape) + "]"


def contiguous_stride(shape):
    stride, acc = [], 1
    for d in reversed(shape):
        stride.append(acc)
        acc = acc * d if isinstance(d, int) and isinstance(acc, int) else f"{acc}*{d}"
    return list(reversed(stride))


def tensor_type(shape, dtype="f32", device="cuda:0", stride=None):
    stride = stride if stride is not None else contiguous_stride(shape)
    return f'"{dtype}{fmt_shape(shape)}{fmt_shape(stride)}{device}"'


class Namer:
    """FX-style unique names: mul, mul_1, mul_2, ..."""

    def __init__(self):
        self.used = {}

    def __call__(self, base):
        n = self.used.get(base, 0)
        self.used[base] = n + 1
        return base if n == 0 else f"{base}_{n}"


# ----------------------------------------------------------------------------------------
# The log writer.


class Trace:
    TID = 140001
    # 2024-11-21 14:03:07.100000, in microseconds since midnight / since the Unix epoch.
    DAY_US = (14 * 3600 + 3 * 60 + 7) * 1_000_000 + 100_000
    EPOCH_US = 1732197787100000

    def __init__(self):
        self.out = []
        self.now = 0  # microseconds since the start of the run
        self.strings = {}
        self.cid = {}

    def advance(self, ms):
        jitter = RNG.randint(0, 999)
        self.now += int(ms * 1000) + jitter

    def prefix(self, src):
        t = self.DAY_US + self.now
        us = t % 1_000_000
        s = t // 1_000_000
        return f"V1121 {s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}.{us:06d} {self.TID} {src}] "

    def emit(self, src, env, payload=None, ms=0.2):
        self.advance(ms)
        if payload is not None:
            env["has_payload"] = md5_hex(payload)
        self.out.append(self.prefix(src) + json.dumps(env) + "\n")
        if payload is not None:
            self.out.extend("\t" + line + "\n" for line in payload.split("\n"))

    def intern(self, path):
        if path not in self.strings:
            self.strings[path] = len(self.strings)
            self.emit("torch/_logging/structured.py:28", {"str": [path, self.strings[path]]}, ms=0.01)
        return self.strings[path]

    def frame(self, path, line, name, loc=None):
        f = {"line": line, "name": name, "filename": self.intern(path)}
        if loc is not None:
            f["loc"] = loc
        return f

    def set_compile(self, frame_id, frame_compile_id, attempt=0):
        self.cid = {
            "compiled_autograd_id": None,
            "frame_id": frame_id,
            "frame_compile_id": frame_compile_id,
            "attempt": attempt,
        }

    def cid_str(self):
        c = self.cid
        s = f"{c['frame_id']}/{c['frame_compile_id']}"
        return s + (f"_{c['attempt']}" if c["attempt"] else "")

    def log(self, src, key, value, payload=None, ms=0.2):
        env = {key: value}
        env.update(self.cid)
        self.emit(src, env, payload, ms)

    def chrome(self, name, ph, ms=0.3, **args):
        args["compile_id"] = self.cid_str()
        self.advance(ms)
        ts = self.EPOCH_US + self.now + RNG.randint(0, 9) / 10
        ev = {"name": name, "ts": ts, "args": args, "ph": ph, "cat": "dynamo_timed", "tid": 0, "pid": 0}
        if ph == "i":
            ev["s"] = "p"
        self.log("torch/_dynamo/utils.py:1320", "chromium_event", {}, json.dumps(ev, indent=0), ms=0)

    def artifact(self, name, encoding, payload, src="torch/_inductor/compile_fx.py:842"):
        self.log(src, "artifact", {"name": name, "encoding": encoding}, payload)


# ----------------------------------------------------------------------------------------
# Stacks.


def torch_file(rel):
    return TORCH + rel


def user_stack(t, caller_lines):
    """<module> -> main -> ... frames from demo_model.py, given (line, name) pairs."""
    return [t.frame(USER_FILE, ln, name, src_code(ln)) for ln, name in caller_lines]


def module_call_frames(t):
    mod = torch_file("nn/modules/module.py")
    return [
        t.frame(mod, 1736, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
        t.frame(mod, 1747, "_call_impl", "return forward_call(*args, **kwargs)"),
    ]


def eval_frame_fn(t):
    return t.frame(torch_file("_dynamo/eval_frame.py"), 573, "_fn", "return fn(*args, **kwargs)")


def convert_frame_suffix(t, style):
    cf = torch_file("_dynamo/convert_frame.py")
    if style == "classic":
        return [
            t.frame(cf, 939, "catch_errors", "return callback(frame, cache_entry, hooks, frame_state)"),
            t.frame(cf, 802, "_convert_frame", "result = inner_convert(frame, cache_entry, hooks, frame_state)"),
            t.frame(cf, 400, "_convert_frame_assert", "return _compile("),
        ]
    return [
        t.frame(cf, 1380, "__call__", "return self._torchdynamo_orig_callable("),
        t.frame(cf, 1164, "__call__", "result = self._inner_convert("),
        t.frame(cf, 547, "__call__", "return _compile("),
    ]


def main_stack(t, main_snippet, main_nth, step_snippet):
    lines = [
        (src_line('main()', 2), "<module>"),
        (src_line(main_snippet, main_nth), "main"),
    ]
    if step_snippet:
        lines.append((src_line(step_snippet), "train_step"))
    return user_stack(t, lines)


def shape_env_stack(t):
    se = torch_file("fx/experimental/symbolic_shapes.py")
    return [
        t.frame(torch_file("_dynamo/variables/builder.py"), 2802, "wrap_to_fake_tensor_and_record",
                "fake_e = wrap_fake_exception("),
        t.frame(torch_file("_subclasses/meta_utils.py"), 1622, "__call__", "r = self.meta_tensor("),
        t.frame(se, 4412, "create_symbol", "r = self.create_unspecified_symbol("),
        t.frame(se, 6284, "evaluate_expr", "return self._evaluate_expr("),
        t.frame(se, 6548, "_evaluate_expr", "self._log_guard(\"eval\", g, forcing_spec=forcing_spec)"),
    ]


# ----------------------------------------------------------------------------------------
# Graph texts (FX printouts) for the MLP, its AOT forward/backward and the attention parts.


def mlp_param_names():
    names = []
    for i in range(DEPTH):
        names.append((f"L_self_modules_layers_modules_{i}_parameters_weight_", [DIM, DIM]))
        names.append((f"L_self_modules_layers_modules_{i}_parameters_bias_", [DIM]))
    names.append(("L_self_modules_norm_parameters_weight_", [DIM]))
    names.append(("L_self_modules_norm_parameters_bias_", [DIM]))
    return names


def file_comment(indent, line, fn="forward"):
    return f"{indent} # File: {USER_FILE}:{line} in {fn}, code: {src_code(line)}"


def dynamo_mlp_graph(batch, header="class GraphModule(torch.nn.Module):"):
    """The Dynamo-captured graph of MLP.forward; batch is an int or a symbol name."""
    ind = "        "
    params = mlp_param_names()
    sig = []
    if not isinstance(batch, int):
        sig.append(f'{batch}: "Sym({batch})"')
    sig.append(f"L_x_: {tensor_type([batch, DIM])}")
    sig += [f"{n}: {tensor_type(s)}" for n, s in params]
    lines = [header, "    def forward(self, " + ", ".join(sig) + "):"]
    lines.append(f"{ind}l_x_ = L_x_")
    for n, _ in params:
        lines.append(f"{ind}{n.lower()} = {n}")
    lines.append("")
    cur = "l_x_"
    nm = Namer()
    act = tensor_type([batch, DIM])
    for i in range(DEPTH):
        w = params[2 * i][0].lower()
        b = params[2 * i + 1][0].lower()
        lines.append(file_comment(ind, L_RESIDUAL))
        lin, ge, x = nm("linear"), nm("gelu"), nm("x")
        lines.append(f"{ind}{lin}: {act} = torch._C._nn.linear({cur}, {w}, {b});  {w} = {b} = None")
        lines.append(f"{ind}{ge}: {act} = torch._C._nn.gelu({lin});  {lin} = None")
        lines.append(f"{ind}{x}: {act} = {cur} + {ge};  {cur} = {ge} = None")
        lines.append("")
        cur = x
    nw = params[-2][0].lower()
    nb = params[-1][0].lower()
    lines.append(file_comment(ind, L_NORM))
    lines.append(f"{ind}layer_norm: {act} = torch.nn.functional.layer_norm({cur}, ({DIM},), {nw}, {nb}, 1e-05);"
                 f"  {cur} = {nw} = {nb} = None")
    lines.append(f"{ind}return (layer_norm,)")
    return "\n".join(lines)


def aten_mlp_forward(batch, header, training=True):
    """AOT forward (or inference) graph of MLP.forward in ATen ops; returns (text, saved)."""
    ind = "        "
    nm = Namer()
    act = tensor_type([batch, DIM])
    prim = [f"primals_{i + 1}" if training else f"arg{i}_1" for i in range(2 * DEPTH + 3)]
    sig = [f"{prim[0]}: {act}"]
    for i in range(DEPTH):
        sig.append(f"{prim[1 + 2 * i]}: {tensor_type([DIM, DIM])}")
        sig.append(f"{prim[2 + 2 * i]}: {tensor_type([DIM])}")
    sig.append(f"{prim[-2]}: {tensor_type([DIM])}")
    sig.append(f"{prim[-1]}: {tensor_type([DIM])}")
    lines = [header, "    def forward(self, " + ", ".join(sig) + "):"]
    cur, saved = prim[0], []
    for i in range(DEPTH):
        w, b = prim[1 + 2 * i], prim[2 + 2 * i]
        lines.append(file_comment(ind, L_RESIDUAL))
        perm, mm = nm("permute"), nm("addmm")
        m0, m1, erf, add, m2, out = nm("mul"), nm("mul"), nm("erf"), nm("add"), nm("mul"), nm("add")
        tt = tensor_type([DIM, DIM], stride=[1, DIM])
        lines += [
            f"{ind}{perm}: {tt} = torch.ops.aten.permute.default({w}, [1, 0])",
            f"{ind}{mm}: {act} = torch.ops.aten.addmm.default({b}, {cur}, {perm});  {b} = {perm} = None",
            f"{ind}{m0}: {act} = torch.ops.aten.mul.Tensor({mm}, 0.5)",
            f"{ind}{m1}: {act} = torch.ops.aten.mul.Tensor({mm}, 0.7071067811865476)",
            f"{ind}{erf}: {act} = torch.ops.aten.erf.default({m1});  {m1} = None",
            f"{ind}{add}: {act} = torch.ops.aten.add.Tensor({erf}, 1);  {erf} = None",
            f"{ind}{m2}: {act} = torch.ops.aten.mul.Tensor({m0}, {add});  {m0} = {add} = None",
            f"{ind}{out}: {act} = torch.ops.aten.add.Tensor({cur}, {m2});  {m2} = None",
            "",
        ]
        saved += [w, mm]
        cur = out
    lines.append(file_comment(ind, L_NORM))
    stat = tensor_type([batch, 1])
    vm, g0, g1 = nm("var_mean"), "getitem", "getitem_1"
    a, rs, sub, mu, mu2, ad = nm("add"), nm("rsqrt"), nm("sub"), nm("mul"), nm("mul"), nm("add")
    lines += [
        f"{ind}{vm} = torch.ops.aten.var_mean.correction({cur}, [1], correction = 0, keepdim = True)",
        f"{ind}{g0}: {stat} = {vm}[0]",
        f"{ind}{g1}: {stat} = {vm}[1];  {vm} = None",
        f"{ind}{a}: {stat} = torch.ops.aten.add.Tensor({g0}, 1e-05);  {g0} = None",
        f"{ind}{rs}: {stat} = torch.ops.aten.rsqrt.default({a});  {a} = None",
        f"{ind}{sub}: {act} = torch.ops.aten.sub.Tensor({cur}, {g1});  {g1} = None",
        f"{ind}{mu}: {act} = torch.ops.aten.mul.Tensor({sub}, {rs});  {sub} = None",
        f"{ind}{mu2}: {act} = torch.ops.aten.mul.Tensor({mu}, {prim[-2]})",
        f"{ind}{ad}: {act} = torch.ops.aten.add.Tensor({mu2}, {prim[-1]});  {mu2} = {prim[-1]} = None",
    ]
    saved += [prim[-2], cur, mu, rs]
    if training:
        lines.append(f"{ind}return ({ad}, " + ", ".join(saved) + ")")
    else:
        lines.append("")
        lines.append(f"         # File: {USER_FILE}:{src_line('logits.argmax')} in predict, "
                     f"code: {src_code(src_line('logits.argmax'))}")
        lines.append(f'{ind}argmax: "i64[{batch}][1]cuda:0" = torch.ops.aten.argmax.default({ad}, -1);  {ad} = None')
        lines.append(f"{ind}return (argmax,)")
    return "\n".join(lines), saved


def aten_mlp_backward(batch, saved):
    ind = "        "
    nm = Namer()
    act = tensor_type([batch, DIM])
    gamma, xin, xhat, rstd = saved[-4:]
    sig = [f"{s}: {tensor_type([DIM, DIM]) if s.startswith('primals') else act}" for s in saved[:-4]]
    sig += [f"{gamma}: {tensor_type([DIM])}", f"{xin}: {act}", f"{xhat}: {act}",
            f"{rstd}: {tensor_type([batch, 1])}", f"tangents_1: {act}"]
    lines = ["class GraphModule(torch.nn.Module):", "    def forward(self, " + ", ".join(sig) + "):"]
    lines.append(file_comment(ind, L_NORM))
    g = [nm("mul"), nm("mul"), nm("mul"), nm("sum"), nm("mul"), nm("mul"), nm("sum"), nm("mul"), nm("sub"),
         nm("sub"), nm("div"), nm("mul"), nm("mul"), nm("sum"), nm("sum")]
    lines += [
        f"{ind}{g[0]}: {act} = torch.ops.aten.mul.Tensor(tangents_1, {gamma});  {gamma} = None",
        f"{ind}{g[1]}: {act} = torch.ops.aten.mul.Tensor({g[0]}, {DIM})",
        f"{ind}{g[2]}: {act} = torch.ops.aten.mul.Tensor({g[0]}, {xhat})",
        f"{ind}{g[3]}: {tensor_type([batch, 1])} = torch.ops.aten.sum.dim_IntList({g[0]}, [1], True);  {g[0]} = None",
        f"{ind}{g[4]}: {act} = torch.ops.aten.mul.Tensor({xhat}, {g[2]})",
        f"{ind}{g[5]}: {act} = torch.ops.aten.mul.Tensor({g[4]}, 0.015625)",
        f"{ind}{g[6]}: {tensor_type([batch, 1])} = torch.ops.aten.sum.dim_IntList({g[2]}, [1], True);  {g[2]} = None",
        f"{ind}{g[7]}: {act} = torch.ops.aten.mul.Tensor({xhat}, {g[6]});  {g[6]} = None",
        f"{ind}{g[8]}: {act} = torch.ops.aten.sub.Tensor({g[1]}, {g[3]});  {g[1]} = {g[3]} = None",
        f"{ind}{g[9]}: {act} = torch.ops.aten.sub.Tensor({g[8]}, {g[7]});  {g[8]} = {g[7]} = None",
        f"{ind}{g[10]}: {tensor_type([batch, 1])} = torch.ops.aten.div.Tensor({rstd}, {DIM});  {rstd} = None",
        f"{ind}{g[11]}: {act} = torch.ops.aten.mul.Tensor({g[10]}, {g[9]});  {g[10]} = {g[9]} = None",
        f"{ind}{g[12]}: {act} = torch.ops.aten.mul.Tensor(tangents_1, {xhat});  {xhat} = None",
        f"{ind}{g[13]}: {tensor_type([DIM])} = torch.ops.aten.sum.dim_IntList({g[12]}, [0]);  {g[12]} = None",
        f"{ind}{g[14]}: {tensor_type([DIM])} = torch.ops.aten.sum.dim_IntList(tangents_1, [0]);  tangents_1 = None",
        "",
    ]
    grad = g[11]
    outs = [g[13], g[14]]
    for i in reversed(range(DEPTH)):
        w, mm = saved[2 * i], saved[2 * i + 1]
        lines.append(file_comment(ind, L_RESIDUAL))
        n = [nm("mul"), nm("mul"), nm("erf"), nm("add"), nm("mul"), nm("mul"), nm("mul"), nm("exp"), nm("mul"),
             nm("mul"), nm("add"), nm("mul"), nm("add"), nm("mm"), nm("permute"), nm("mm"), nm("permute"),
             nm("sum"), nm("view")]
        tt = tensor_type([DIM, DIM])
        lines += [
            f"{ind}{n[0]}: {act} = torch.ops.aten.mul.Tensor({mm}, 0.7071067811865476)",
            f"{ind}{n[1]}: {act} = torch.ops.aten.mul.Tensor({mm}, 0.5)",
            f"{ind}{n[2]}: {act} = torch.ops.aten.erf.default({n[0]});  {n[0]} = None",
            f"{ind}{n[3]}: {act} = torch.ops.aten.add.Tensor({n[2]}, 1);  {n[2]} = None",
            f"{ind}{n[4]}: {act} = torch.ops.aten.mul.Tensor({grad}, {n[3]})",
            f"{ind}{n[5]}: {act} = torch.ops.aten.mul.Tensor({mm}, {mm})",
            f"{ind}{n[6]}: {act} = torch.ops.aten.mul.Tensor({n[5]}, -0.5);  {n[5]} = None",
            f"{ind}{n[7]}: {act} = torch.ops.aten.exp.default({n[6]});  {n[6]} = None",
            f"{ind}{n[8]}: {act} = torch.ops.aten.mul.Tensor({n[7]}, 0.3989422804014327);  {n[7]} = None",
            f"{ind}{n[9]}: {act} = torch.ops.aten.mul.Tensor({mm}, {n[8]});  {mm} = {n[8]} = None",
            f"{ind}{n[10]}: {act} = torch.ops.aten.add.Tensor({n[3]}, {n[9]});  {n[3]} = None",
            f"{ind}{n[11]}: {act} = torch.ops.aten.mul.Tensor({n[1]}, {n[10]});  {n[1]} = {n[10]} = None",
            f"{ind}{n[12]}: {act} = torch.ops.aten.add.Tensor({grad}, {n[11]});  {n[11]} = None",
            f"{ind}{n[13]}: {act} = torch.ops.aten.mm.default({n[12]}, {w});  {w} = None",
            f"{ind}{n[14]}: {tensor_type([DIM, batch], stride=[1, DIM])} = torch.ops.aten.permute.default({n[12]}, [1, 0])",
            f"{ind}{n[15]}: {tt} = torch.ops.aten.mm.default({n[14]}, {grad});  {n[14]} = None",
            f"{ind}{n[16]}: {tt} = torch.ops.aten.permute.default({n[15]}, [1, 0]);  {n[15]} = None",
            f"{ind}{n[17]}: {tensor_type([1, DIM])} = torch.ops.aten.sum.dim_IntList({n[12]}, [0], True);  {n[12]} = None",
            f"{ind}{n[18]}: {tensor_type([DIM])} = torch.ops.aten.view.default({n[17]}, [{DIM}]);  {n[17]} = None",
            "",
        ]
        outs = [n[16], n[18]] + outs
        grad = n[13]
    lines.append(f"{ind}return (None, " + ", ".join(outs[:-2]) + ", " + ", ".join(outs[-2:]) + ")")
    return "\n".join(lines)


def attention_graphs(kind):
    """Dynamo graphs of attention_block before the break (kind 'pre') and of its resume function."""
    ind = "        "
    qkv = tensor_type([4, 128, 32])
    sc = tensor_type([4, 128, 128])
    if kind == "pre":
        lines = [
            "class GraphModule(torch.nn.Module):",
            f"    def forward(self, L_q_: {qkv}, L_k_: {qkv}):",
            f"{ind}l_q_ = L_q_",
            f"{ind}l_k_ = L_k_",
            "",
            file_comment(ind, L_ATTN + 2, "attention_block"),
            f"{ind}transpose: {tensor_type([4, 32, 128], stride=[4096, 1, 32])} = l_k_.transpose(-2, -1);  l_k_ = None",
            f"{ind}matmul: {sc} = torch.matmul(l_q_, transpose);  l_q_ = transpose = None",
            f"{ind}scores: {sc} = matmul * 0.17677669529663687;  matmul = None",
            "",
            file_comment(ind, L_ATTN + 3, "attention_block"),
            f"{ind}weights: {sc} = torch.softmax(scores, dim = -1);  scores = None",
            f"{ind}return (weights,)",
        ]
    else:
        lines = [
            "class GraphModule(torch.nn.Module):",
            f"    def forward(self, L_weights_: {sc}, L_v_: {qkv}):",
            f"{ind}l_weights_ = L_weights_",
            f"{ind}l_v_ = L_v_",
            "",
            file_comment(ind, L_BREAK + 1, "torch_dynamo_resume_in_attention_block_at_%d" % L_BREAK),
            f"{ind}out: {qkv} = torch.matmul(l_weights_, l_v_);  l_weights_ = l_v_ = None",
            "",
            file_comment(ind, L_BREAK + 2, "torch_dynamo_resume_in_attention_block_at_%d" % L_BREAK),
            f"{ind}relu: {qkv} = out.relu();  out = None",
            f"{ind}return (relu,)",
        ]
    return "\n".join(lines)


def attention_aten(kind):
    ind = "        "
    qkv = tensor_type([4, 128, 32])
    sc = tensor_type([4, 128, 128])
    if kind == "pre":
        return "\n".join([
            "class GraphModule(torch.nn.Module):",
            f"    def forward(self, arg0_1: {qkv}, arg1_1: {qkv}):",
            file_comment(ind, L_ATTN + 2, "attention_block"),
            f"{ind}permute: {tensor_type([4, 32, 128], stride=[4096, 1, 32])} = "
            "torch.ops.aten.permute.default(arg1_1, [0, 2, 1]);  arg1_1 = None",
            f"{ind}bmm: {sc} = torch.ops.aten.bmm.default(arg0_1, permute);  arg0_1 = permute = None",
            f"{ind}mul: {sc} = torch.ops.aten.mul.Tensor(bmm, 0.17677669529663687);  bmm = None",
            "",
            file_comment(ind, L_ATTN + 3, "attention_block"),
            f"{ind}amax: {tensor_type([4, 128, 1])} = torch.ops.aten.amax.default(mul, [-1], True)",
            f"{ind}sub: {sc} = torch.ops.aten.sub.Tensor(mul, amax);  mul = amax = None",
            f"{ind}exp: {sc} = torch.ops.aten.exp.default(sub);  sub = None",
            f"{ind}sum_1: {tensor_type([4, 128, 1])} = torch.ops.aten.sum.dim_IntList(exp, [-1], True)",
            f"{ind}div: {sc} = torch.ops.aten.div.Tensor(exp, sum_1);  exp = sum_1 = None",
            f"{ind}return (div,)",
        ])
    return "\n".join([
        "class GraphModule(torch.nn.Module):",
        f"    def forward(self, arg0_1: {sc}, arg1_1: {qkv}):",
        file_comment(ind, L_BREAK + 1, "torch_dynamo_resume_in_attention_block_at_%d" % L_BREAK),
        f"{ind}bmm: {qkv} = torch.ops.aten.bmm.default(arg0_1, arg1_1);  arg0_1 = arg1_1 = None",
        "",
        file_comment(ind, L_BREAK + 2, "torch_dynamo_resume_in_attention_block_at_%d" % L_BREAK),
        f"{ind}relu: {qkv} = torch.ops.aten.relu.default(bmm);  bmm = None",
        f"{ind}return (relu,)",
    ])


# ----------------------------------------------------------------------------------------
# Guards.


def obj_id(what):
    """A CPython-looking id(), stable per object name so recompiles see the same objects."""
    return 139800000000000 + int(hashlib.md5(what.encode()).hexdigest()[:7], 16) * 16


def mlp_guards(dynamic):
    g = [
        "utils_device.CURRENT_DEVICE == None",
        "___check_global_state()",
        "___check_torch_function_mode_stack()",
        f"___check_type_id(L['self'], {obj_id('MLP')})",
        "L['self'].training == True",
        f"___check_obj_id(L['self'].forward.__func__, {obj_id('MLP.forward')})",
        f"___check_type_id(L['self']._modules['layers'], {obj_id('ModuleList')})",
        f"len(L['self']._modules['layers']._modules) == {DEPTH}",
    ]
    for i in range(DEPTH):
        m = f"L['self']._modules['layers']._modules['{i}']"
        g.append(f"___check_type_id({m}, {obj_id('Linear')})")
        g.append(f"{m}.training == True")
    g.append(f"___check_obj_id(G['F'].gelu, {obj_id('gelu')})")
    g.append(f"___check_obj_id(G['F'].layer_norm, {obj_id('layer_norm')})")
    if dynamic:
        g.append("check_tensor(L['x'], Tensor, DispatchKeySet(CUDA, BackendSelect, ADInplaceOrView, "
                 "AutogradCUDA), torch.float32, device=0, requires_grad=False, size=[None, 64], stride=[64, 1])")
        g.append("2 <= L['x'].size()[0]")
    else:
        g.append("check_tensor(L['x'], Tensor, DispatchKeySet(CUDA, BackendSelect, ADInplaceOrView, "
                 "AutogradCUDA), torch.float32, device=0, requires_grad=False, size=[32, 64], stride=[64, 1])")
    g.append("hasattr(L['x'], '_dynamo_dynamic_indices') == " + ("True" if dynamic else "False"))
    tensors = ["L['x']"] + [f"L['self']._modules['layers']._modules['{i}']._parameters['{p}']"
                            for i in range(DEPTH) for p in ("weight", "bias")]
    g.append("___check_tensors_no_aliasing(" + ", ".join(tensors) + ")")
    return g


def attention_guards():
    return [
        "utils_device.CURRENT_DEVICE == None",
        "___check_global_state()",
        "___check_torch_function_mode_stack()",
        f"___check_obj_id(G['torch'].matmul, {obj_id('matmul')})",
        f"___check_obj_id(G['torch'].softmax, {obj_id('softmax')})",
        f"___check_obj_id(G['demo_ext'], {obj_id('demo_ext')})",
        "check_tensor(L['q'], Tensor, DispatchKeySet(CUDA, BackendSelect, ADInplaceOrView, AutogradCUDA), "
        "torch.float32, device=0, requires_grad=False, size=[4, 128, 32], stride=[4096, 32, 1])",
        "check_tensor(L['k'], Tensor, DispatchKeySet(CUDA, BackendSelect, ADInplaceOrView, AutogradCUDA), "
        "torch.float32, device=0, requires_grad=False, size=[4, 128, 32], stride=[4096, 32, 1])",
        "hasattr(L['q'], '_dynamo_dynamic_indices') == False",
        "hasattr(L['k'], '_dynamo_dynamic_indices') == False",
        "___check_tensors_no_aliasing(L['q'], L['k'])",
    ]


def guards_payload(codes):
    return "[\n" + ",\n".join(json.dumps({"code": c, "stack": None, "user_stack": None}) for c in codes) + "\n]"


def cpp_guards_tree(codes):
    lines = ["", "TREE_GUARD_MANAGER:", "+- RootGuardManager"]
    source = None
    for c in codes:
        m = re.search(r"[LG]\['[^']+'\]", c)
        if m and m.group(0) != source and not c.startswith(("check_tensor", "___check_tensors")):
            source = m.group(0)
            kind = "FrameLocalsGuardAccessor" if source[0] == "L" else "GlobalsGuardAccessor"
            lines.append(f"| +- GuardManager: source={source}, accessed_by={kind}(key={source[2:-1]})")
        if c.startswith("___check_global_state"):
            lines.append("| +- GLOBAL_STATE: " + c)
        elif c.startswith("utils_device"):
            lines.append("| +- DEFAULT_DEVICE: " + c)
        elif c.startswith("___check_torch_function"):
            lines.append("| +- TORCH_FUNCTION_MODE_STACK: " + c)
        elif c.startswith("check_tensor"):
            source = c[len("check_tensor("):].split(",")[0]
            lines.append(f"| +- GuardManager: source={source}, accessed_by=FrameLocalsGuardAccessor"
                         f"(key={source[2:-1]}), type=<class 'torch.Tensor'>")
            lines.append("| | +- TENSOR_MATCH: " + c)
        elif c.startswith("hasattr"):
            lines.append("| | +- NO_HASATTR: " + c)
        elif c.startswith("___check_tensors"):
            lines.append("| +- NO_TENSOR_ALIASING: " + c)
        elif "___check_type_id" in c:
            lines.append("| | +- TYPE_MATCH: " + c)
        elif "___check_obj_id" in c:
            lines.append("| | +- ID_MATCH: " + c)
        else:
            lines.append("| | +- EQUALS_MATCH: " + c)
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------
# Inductor output code.

WRAPPER_HEADER = '''\
from ctypes import c_void_p, c_long, c_int
import torch
import math
import random
import os
import tempfile
from math import inf, nan
from torch._inductor.hooks import run_intermediate_hooks
from torch._inductor.utils import maybe_profile
from torch._inductor.codegen.memory_planning import _align as align
from torch import device, empty_strided
from torch._inductor.async_compile import AsyncCompile
from torch._inductor.select_algorithm import extern_kernels
import triton
import triton.language as tl
from torch._inductor.runtime.triton_heuristics import grid, start_graph, end_graph
from torch._C import _cuda_getCurrentRawStream as get_raw_stream

aten = torch.ops.aten
inductor_ops = torch.ops.inductor
assert_size_stride = torch._C._dynamo.guards.assert_size_stride
empty_strided_cuda = torch._C._dynamo.guards._empty_strided_cuda
reinterpret_tensor = torch._C._dynamo.guards._reinterpret_tensor
async_compile = AsyncCompile()
'''

KERNEL_PRELUDE = '''\
import triton
import triton.language as tl
from triton.compiler.compiler import AttrsDescriptor

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()
'''


def kernel_source(name, kind, args, body, numel, rnumel=None):
    sig = ", ".join(f"'{a}': '*fp32'" for a in args) + ", 'xnumel': 'i32'"
    if rnumel:
        sig += ", 'rnumel': 'i32'"
    heur = "persistent_reduction" if kind == "per" else "pointwise"
    params = ", ".join(args) + ", xnumel" + (", rnumel" if rnumel else "")
    hints = f"'x': {numel if isinstance(numel, int) else 64 if rnumel else 4096}" + (f", 'r': {rnumel}" if rnumel else "")
    lines = [
        f"@triton_heuristics.{heur}(",
        f"    size_hints={{{hints}}},",
        "    filename=__file__,",
        f"    triton_meta={{'signature': {{{sig}}}, 'device': DeviceProperties(type='cuda', index=0, "
        "multi_processor_count=108, cc=80, major=8, regs_per_multiprocessor=65536, "
        "max_threads_per_multi_processor=2048, warp_size=32), 'constants': {}},",
        f"    inductor_meta={{'autotune_hints': set(), 'kernel_name': '{name}', "
        f"'mutated_arg_names': [{repr(args[0]) if args[0].startswith('in_out') else ''}], "
        f"'backend_hash': '{fake_hash('backend', 64).upper()}'}},",
        ")",
        "@triton.jit",
        f"def {name}({params}, XBLOCK : tl.constexpr):",
    ]
    if isinstance(numel, int):
        lines.append(f"    xnumel = {numel}")
    if rnumel:
        lines += [
            f"    rnumel = {rnumel}",
            f"    RBLOCK: tl.constexpr = {rnumel}",
            "    xoffset = tl.program_id(0) * XBLOCK",
            "    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]",
            "    xmask = xindex < xnumel",
            "    rindex = tl.arange(0, RBLOCK)[None, :]",
            "    roffset = 0",
            "    rmask = tl.full([XBLOCK, RBLOCK], True, tl.int1)",
            "    r1 = rindex",
            "    x0 = xindex",
        ]
    else:
        lines += [
            "    xoffset = tl.program_id(0) * XBLOCK",
            "    xindex = xoffset + tl.arange(0, XBLOCK)[:]",
            "    xmask = xindex < xnumel",
            "    x2 = xindex",
            f"    x0 = xindex % {DIM}",
        ]
    lines += ["    " + b for b in body]
    return "\n".join(lines)


def gelu_kernel(name, numel, backward=False):
    if not backward:
        body = [
            "tmp0 = tl.load(in_ptr0 + (x2), xmask)",
            "tmp1 = tl.load(in_out_ptr0 + (x2), xmask)",
            "tmp2 = tl.load(in_ptr1 + (x0), xmask, eviction_policy='evict_last')",
            "tmp3 = tmp1 + tmp2",
            "tmp4 = 0.5",
            "tmp5 = tmp3 * tmp4",
            "tmp6 = 0.7071067811865476",
            "tmp7 = tmp3 * tmp6",
            "tmp8 = libdevice.erf(tmp7)",
            "tmp9 = 1.0",
            "tmp10 = tmp8 + tmp9",
            "tmp11 = tmp5 * tmp10",
            "tmp12 = tmp0 + tmp11",
            "tl.store(in_out_ptr0 + (x2), tmp3, xmask)",
            "tl.store(out_ptr0 + (x2), tmp12, xmask)",
        ]
        return kernel_source(name, "poi", ["in_out_ptr0", "in_ptr0", "in_ptr1", "out_ptr0"], body, numel)
    body = [
        "tmp0 = tl.load(in_ptr0 + (x2), xmask)",
        "tmp1 = tl.load(in_out_ptr0 + (x2), xmask)",
        "tmp2 = 0.7071067811865476",
        "tmp3 = tmp1 * tmp2",
        "tmp4 = libdevice.erf(tmp3)",
        "tmp5 = 1.0",
        "tmp6 = tmp4 + tmp5",
        "tmp7 = 0.5",
        "tmp8 = tmp6 * tmp7",
        "tmp9 = tmp1 * tmp1",
        "tmp10 = -0.5",
        "tmp11 = tmp9 * tmp10",
        "tmp12 = tl_math.exp(tmp11)",
        "tmp13 = 0.3989422804014327",
        "tmp14 = tmp12 * tmp13",
        "tmp15 = tmp1 * tmp14",
        "tmp16 = tmp8 + tmp15",
        "tmp17 = tmp0 * tmp16",
        "tmp18 = tmp0 + tmp17",
        "tl.store(in_out_ptr0 + (x2), tmp18, xmask)",
    ]
    return kernel_source(name, "poi", ["in_out_ptr0", "in_ptr0"], body, numel)


def layer_norm_kernel(name, rows):
    body = [
        f"tmp0 = tl.load(in_ptr0 + (r1 + {DIM}*x0), xmask, other=0.0)",
        "tmp21 = tl.load(in_ptr1 + (r1), None, eviction_policy='evict_last')",
        "tmp23 = tl.load(in_ptr2 + (r1), None, eviction_policy='evict_last')",
        "tmp1 = tl.broadcast_to(tmp0, [XBLOCK, RBLOCK])",
        "tmp3 = tl.where(xmask, tmp1, 0)",
        "tmp4 = tl.broadcast_to(tmp1, [XBLOCK, RBLOCK])",
        "tmp6 = tl.where(xmask, tmp4, 0)",
        "tmp7 = tl.sum(tmp6, 1)[:, None]",
        f"tmp8 = tl.full([XBLOCK, 1], {DIM}, tl.int32)",
        "tmp9 = tmp8.to(tl.float32)",
        "tmp10 = tmp7 / tmp9",
        "tmp11 = tmp1 - tmp10",
        "tmp12 = tmp11 * tmp11",
        "tmp13 = tl.broadcast_to(tmp12, [XBLOCK, RBLOCK])",
        "tmp15 = tl.where(xmask, tmp13, 0)",
        "tmp16 = tl.sum(tmp15, 1)[:, None]",
        "tmp17 = tmp0 - tmp10",
        f"tmp18 = {float(DIM)}",
        "tmp19 = tmp16 / tmp18",
        "tmp20 = 1e-05",
        "tmp22 = tmp19 + tmp20",
        "tmp24 = libdevice.rsqrt(tmp22)",
        "tmp25 = tmp17 * tmp24",
        "tmp26 = tmp25 * tmp21",
        "tmp27 = tmp26 + tmp23",
        f"tl.store(out_ptr0 + (r1 + {DIM}*x0), tmp25, xmask)",
        f"tl.store(out_ptr1 + (r1 + {DIM}*x0), tmp27, xmask)",
        "tl.debug_barrier()",
        "tl.store(in_out_ptr0 + (x0), tmp24, xmask)",
    ]
    return kernel_source(name, "per", ["in_out_ptr0", "in_ptr0", "in_ptr1", "in_ptr2", "out_ptr0", "out_ptr1"],
                         body, rows, DIM)


def kernel_block(t_hash, name, source, nodes, aten_ops):
    kpath = f"/tmp/torchinductor_user/{t_hash[:2]}/c{t_hash}.py"
    return "\n".join([
        "",
        f"# kernel path: {kpath}",
        f"# Topologically Sorted Source Nodes: [{', '.join(nodes)}], Original ATen: [{', '.join(aten_ops)}]",
        "# Source node to ATen node mapping:",
    ] + [f"#   {n} => {a}" for n, a in zip(nodes, aten_ops)] + [
        f"{name} = async_compile.triton('{name}', '''",
        KERNEL_PRELUDE,
        source,
        "''', device_str='cuda')",
        "",
    ])


def output_code(aot_id, kernels, call_lines, inputs, label):
    """A full inductor wrapper module: imports, kernels, call(), benchmark harness."""
    parts = [f"# AOT ID: ['{aot_id}']", WRAPPER_HEADER]
    for name, source, nodes, aten_ops in kernels:
        parts.append(kernel_block(fake_hash(label + name, 51), name, source, nodes, aten_ops))
    parts.append("async_compile.wait(globals())")
    parts.append("del async_compile")
    parts.append("")
    parts.append("def call(args):")
    names = [n for n, _, _ in inputs]
    parts.append(f"    {', '.join(names)}, = args" if len(names) == 1 else f"    {', '.join(names)} = args")
    parts.append("    args.clear()")
    for n, shape, stride in inputs:
        if shape is None:  # a SymInt input: stride holds the symbol's name
            parts.append(f"    {stride} = {n}")
            continue
        parts.append(f"    assert_size_stride({n}, ({', '.join(map(str, shape))}{',' if len(shape) == 1 else ''}), "
                     f"({', '.join(map(str, stride))}{',' if len(stride) == 1 else ''}))")
    parts.append("    with torch.cuda._DeviceGuard(0):")
    parts.append("        torch.cuda.set_device(0)")
    parts += ["        " + c if c else "" for c in call_lines]
    parts.append("")
    parts.append("")
    parts.append("def benchmark_compiled_module(times=10, repeat=10):")
    parts.append("    from torch._dynamo.testing import rand_strided")
    parts.append("    from torch._inductor.utils import print_performance")
    for n, shape, stride in inputs:
        if shape is None:
            parts.append(f"    {n} = 48")
        else:
            parts.append(f"    {n} = rand_strided(({', '.join(map(str, shape))}{',' if len(shape) == 1 else ''}), "
                         f"({', '.join(map(str, stride))}{',' if len(stride) == 1 else ''}), "
                         "device='cuda:0', dtype=torch.float32)")
    parts.append(f"    fn = lambda: call([{', '.join(names)}])")
    parts.append("    return print_performance(fn, times=times, repeat=repeat)")
    parts.append("")
    parts.append("")
    parts.append('if __name__ == "__main__":')
    parts.append("    from torch._inductor.wrapper_benchmark import compiled_module_main")
    parts.append("    compiled_module_main('None', benchmark_compiled_module)")
    return "\n".join(parts)


def mlp_forward_code(batch, label, inference=False, symbolic=None):
    """Wrapper code for MLP.forward: one mm + fused gelu kernel per layer, then layer norm."""
    b = symbolic or batch
    numel = f"{DIM}*{symbolic}" if symbolic else batch * DIM
    off = 1 if symbolic else 0
    if inference:
        def pname(i):
            return f"arg{i + off}_1"
    else:
        def pname(i):
            return f"primals_{i + 1 + off}"
    inputs = [("arg0_1" if inference else "primals_1", None, symbolic)] if symbolic else []
    x = pname(0)
    inputs.append((x, [b, DIM], [DIM, 1]))
    for i in range(DEPTH):
        inputs.append((pname(1 + 2 * i), [DIM, DIM], [DIM, 1]))
        inputs.append((pname(2 + 2 * i), [DIM], [1]))
    inputs.append((pname(2 * DEPTH + 1), [DIM], [1]))
    inputs.append((pname(2 * DEPTH + 2), [DIM], [1]))
    gelu = "triton_poi_fused_add_addmm_gelu_0"
    norm = "triton_per_fused_native_layer_norm_1"
    kernels = [
        (gelu, gelu_kernel(gelu, numel), ["linear", "gelu", "x"], ["aten.addmm", "aten.gelu", "aten.add"]),
        (norm, layer_norm_kernel(norm, b), ["layer_norm"], ["aten.native_layer_norm"]),
    ]
    calls, cur, buf, saved = ["stream0 = get_raw_stream(0)"], x, 0, []
    for i in range(DEPTH):
        sfx = f"_{i}" if i else ""
        w, bias = pname(1 + 2 * i), pname(2 + 2 * i)
        mm, out = f"buf{buf}", f"buf{buf + 1}"
        buf += 2
        calls += [
            f"{mm} = empty_strided_cuda(({b}, {DIM}), ({DIM}, 1), torch.float32)",
            f"# Topologically Sorted Source Nodes: [linear{sfx}], Original ATen: [aten.addmm]",
            f"extern_kernels.mm({cur}, reinterpret_tensor({w}, ({DIM}, {DIM}), (1, {DIM}), 0), out={mm})",
            f"{out} = empty_strided_cuda(({b}, {DIM}), ({DIM}, 1), torch.float32)",
            f"# Topologically Sorted Source Nodes: [linear{sfx}, gelu{sfx}, x{sfx}], "
            "Original ATen: [aten.addmm, aten.gelu, aten.add]",
            f"{gelu}.run({mm}, {cur}, {bias}, {out}, {numel}, grid=grid({numel}), stream=stream0)",
        ]
        calls.append(f"del {mm}" if inference else f"del {bias}")
        saved.append(mm)
        cur = out
    rstd, xhat, res = f"buf{buf}", f"buf{buf + 1}", f"buf{buf + 2}"
    calls += [
        f"{rstd} = empty_strided_cuda(({b}, 1), (1, 1), torch.float32)",
        f"{xhat} = empty_strided_cuda(({b}, {DIM}), ({DIM}, 1), torch.float32)",
        f"{res} = empty_strided_cuda(({b}, {DIM}), ({DIM}, 1), torch.float32)",
        "# Topologically Sorted Source Nodes: [layer_norm], Original ATen: [aten.native_layer_norm]",
        f"{norm}.run({rstd}, {cur}, {pname(2 * DEPTH + 1)}, {pname(2 * DEPTH + 2)}, {xhat}, {res}, {b}, {DIM}, "
        f"grid=grid({b}), stream=stream0)",
    ]
    if inference:
        calls += [
            f"buf{buf + 3} = empty_strided_cuda(({b}, ), (1, ), torch.int64)",
            "# Topologically Sorted Source Nodes: [argmax], Original ATen: [aten.argmax]",
            f"extern_kernels.argmax({res}, -1, out=buf{buf + 3})",
            f"del {res}",
            "",
            f"return (buf{buf + 3}, )",
        ]
    else:
        calls += ["", f"return ({res}, {x}, {', '.join(saved)}, {cur}, {xhat}, {rstd}, )"]
    aot = f"{label}_inference" if inference else f"{label}_forward"
    return output_code(aot, kernels, calls, inputs, label + ("inf" if inference else "fw"))


def mlp_backward_code(batch, label, saved):
    """Wrapper code for the MLP backward; saved is the forward's saved-tensor name list."""
    numel = batch * DIM
    norm = "triton_per_fused_native_layer_norm_backward_0"
    gelu = "triton_poi_fused_add_gelu_backward_1"
    kernels = [
        (norm, layer_norm_kernel(norm, batch), ["layer_norm"], ["aten.native_layer_norm_backward"]),
        (gelu, gelu_kernel(gelu, numel, True), ["gelu", "x"], ["aten.gelu_backward", "aten.add"]),
    ]
    gamma, xin, xhat, rstd = saved[-4:]
    inputs = [(s, [DIM, DIM] if s.startswith("primals") else [batch, DIM],
               [DIM, 1]) for s in saved[:-4]]
    inputs += [(gamma, [DIM], [1]), (xin, [batch, DIM], [DIM, 1]), (xhat, [batch, DIM], [DIM, 1]),
               (rstd, [batch, 1], [1, 1]), ("tangents_1", [batch, DIM], [DIM, 1])]
    calls = [
        f"buf0 = empty_strided_cuda(({batch}, {DIM}), ({DIM}, 1), torch.float32)",
        "stream0 = get_raw_stream(0)",
        "# Topologically Sorted Source Nodes: [layer_norm], Original ATen: [aten.native_layer_norm_backward]",
        f"{norm}.run(buf0, tangents_1, {xhat}, {rstd}, {gamma}, {batch}, {DIM}, grid=grid({batch}), stream=stream0)",
        f"del {gamma}",
        f"del {rstd}",
        "del tangents_1",
    ]
    grad, buf, outs = "buf0", 1, []
    for i in reversed(range(DEPTH)):
        w, mm = saved[2 * i], saved[2 * i + 1]
        calls += [
            f"# Topologically Sorted Source Nodes: [gelu{'_' + str(i) if i else ''}], "
            "Original ATen: [aten.gelu_backward, aten.add]",
            f"{gelu}.run({grad}, {mm}, {numel}, grid=grid({numel}), stream=stream0)",
            f"buf{buf} = empty_strided_cuda(({DIM}, {DIM}), ({DIM}, 1), torch.float32)",
            f"extern_kernels.mm(reinterpret_tensor({grad}, ({DIM}, {batch}), (1, {DIM}), 0), {mm}, out=buf{buf})",
            f"del {mm}",
            f"buf{buf + 1} = empty_strided_cuda(({batch}, {DIM}), ({DIM}, 1), torch.float32)",
            f"extern_kernels.mm({grad}, {w}, out=buf{buf + 1})",
            f"del {w}",
        ]
        outs = [f"reinterpret_tensor(buf{buf}, ({DIM}, {DIM}), (1, {DIM}), 0)", f"buf{buf}_sum"] + outs
        calls.append(f"buf{buf}_sum = torch.ops.aten.sum.dim_IntList({grad}, [0])")
        grad = f"buf{buf + 1}"
        buf += 2
    calls += ["", f"return ({grad}, {', '.join(outs)}, )"]
    return output_code(f"{label}_backward", kernels, calls, inputs, label + "bw")


def attention_code(label):
    kname = "triton_per_fused__softmax_mul_0"
    body = [
        "tmp0 = tl.load(in_out_ptr0 + (r1 + 128*x0), None)",
        "tmp1 = 0.17677669529663687",
        "tmp2 = tmp0 * tmp1",
        "tmp3 = tl.broadcast_to(tmp2, [XBLOCK, RBLOCK])",
        "tmp5 = triton_helpers.max2(tmp3, 1)[:, None]",
        "tmp6 = tmp2 - tmp5",
        "tmp7 = tl_math.exp(tmp6)",
        "tmp8 = tl.broadcast_to(tmp7, [XBLOCK, RBLOCK])",
        "tmp10 = tl.sum(tmp8, 1)[:, None]",
        "tmp11 = tmp7 / tmp10",
        "tl.store(in_out_ptr0 + (r1 + 128*x0), tmp11, None)",
    ]
    src = kernel_source(kname, "per", ["in_out_ptr0"], body, 512, 128)
    inputs = [("arg0_1", [4, 128, 32], [4096, 32, 1]), ("arg1_1", [4, 128, 32], [4096, 32, 1])]
    calls = [
        "buf0 = empty_strided_cuda((4, 128, 128), (16384, 128, 1), torch.float32)",
        "# Topologically Sorted Source Nodes: [matmul], Original ATen: [aten.bmm]",
        "extern_kernels.bmm(arg0_1, reinterpret_tensor(arg1_1, (4, 32, 128), (4096, 1, 32), 0), out=buf0)",
        "del arg0_1",
        "del arg1_1",
        "buf2 = buf0; del buf0  # reuse",
        "# Topologically Sorted Source Nodes: [scores, weights], Original ATen: [aten.mul, aten._softmax]",
        "stream0 = get_raw_stream(0)",
        f"{kname}.run(buf2, 512, 128, grid=grid(512), stream=stream0)",
        "",
        "return (buf2, )",
    ]
    return output_code(f"{label}_inference", [(kname, src, ["scores", "weights"], ["aten.mul", "aten._softmax"])],
                       calls, inputs, label)


# ----------------------------------------------------------------------------------------
# Artifacts.


def cache_components(label, graph):
    comps = [f"[{fake_hash(label + 'gm', 51)}] gm: {graph[:400]}"]
    for i, shape in enumerate(([32, DIM], [DIM, DIM], [DIM])):
        comps.append(f"[{fake_hash(label + str(i), 51)}] example_inputs[{i}]: TensorMetadata(dtype=torch.float32, "
                     f"shape=torch.Size({list(shape)}), stride={tuple(contiguous_stride(shape))}, "
                     "device=device(type='cuda', index=0), layout=torch.strided, memory_format=torch.contiguous_format, "
                     "storage_offset=0, storage_bytes=None, requires_grad=False, is_quantized=False, is_conj=False, "
                     "is_neg=False, is_inference=False, is_sparse=False, is_coalesced=None, dense_dim=None, "
                     "sparse_dim=None)")
    comps.append(f"[{fake_hash(label + 'cfg', 51)}] fx_kwargs[cudagraphs]: BoxedBool(value=False)")
    comps.append(f"[{fake_hash(label + 'train', 51)}] fx_kwargs[is_backward]: False")
    comps.append(f"[{fake_hash(label + 'torchver', 51)}] torch_version: <bytes>")
    comps.append(f"[{fake_hash(label + 'sys', 51)}] system_info[device]: {{'name': 'NVIDIA A100-SXM4-80GB'}}")
    comps.append(f"[{fake_hash(label + 'sysv', 51)}] system_info[version]: {{'triton': '3.1.0', 'cuda': '12.4'}}")
    comps.append(f"[{fake_hash(label + 'inductor', 51)}] inductor_config[max_autotune]: False")
    comps.append(f"[{fake_hash(label + 'inductor2', 51)}] inductor_config[triton.cudagraphs]: False")
    return comps


def fx_cache_payload(label, graph, hit):
    d = {
        "key": "f" + fake_hash(label + "key", 51),
        "components": cache_components(label, graph),
        "cache_event_time": 1732197787100000000 + RNG.randrange(10**10),
        "cache_state": "hit" if hit else "miss",
        "triton_bundler_meta": "TritonBundlerMetadata(cached_kernel_names=[])",
        "time_taken_ns": RNG.randrange(10**6, 10**8),
    }
    return json.dumps(d)


def aot_cache_payload(label, hit):
    d = {
        "key": "a" + fake_hash(label + "aotkey", 51),
        "cache_state": "hit" if hit else "miss",
        "components": [
            f"[{fake_hash(label + 'aotcfg', 51)}] aot_config: (0, True, False, False, False, "
            "[LocalSource(local_name='x', is_input=True)], True, False)",
            f"[{fake_hash(label + 'grad', 51)}] grad_enabled: {not hit}",
            f"[{fake_hash(label + 'disable', 51)}] disable_amp: False",
            f"[{fake_hash(label + 'deter', 51)}] deterministic_algorithms: False",
            f"[{fake_hash(label + 'autograd', 51)}] autograd_config: <bytes>",
        ],
        "compile_id": label,
    }
    return json.dumps(d)


def fx_graph_runnable(graph_text, input_shapes):
    lines = [
        "",
        "import os",
        "os.environ['TORCHINDUCTOR_CACHE_DIR'] = '/tmp/torchinductor_user'",
        "",
        "import torch",
        "from torch import tensor, device",
        "import torch.fx as fx",
        "from torch._dynamo.testing import rand_strided",
        "from math import inf",
        "import torch._inductor.inductor_prims",
        "",
        "import torch._dynamo.config",
        "import torch._inductor.config",
        "import torch._functorch.config",
        "import torch.fx.experimental._config",
        "torch._inductor.config.fx_graph_cache = True",
        "torch._functorch.config.debug_partitioner = True",
        "",
        "isolate_fails_code_str = None",
        "",
        "# torch version: 2.6.0",
        "# torch cuda version: 12.4",
        "# CUDA Info:",
        "# nvcc: NVIDIA (R) Cuda compiler driver",
        "# GPU Hardware Info:",
        "# NVIDIA A100-SXM4-80GB : 1",
        "",
        "from torch.nn import *",
        "class Repro(torch.nn.Module):",
        "    def __init__(self) -> None:",
        "        super().__init__()",
        "",
    ]
    body = graph_text.split("\n")[1:]
    lines += body
    lines += [
        "",
        "def load_args(reader):",
    ]
    for i, shape in enumerate(input_shapes):
        nbytes = 4
        for d in shape:
            nbytes *= d
        lines.append(f"    buf{i} = reader.storage(None, {nbytes}, device=device(type='cuda', index=0))")
        lines.append(f"    reader.tensor(buf{i}, {tuple(shape)}, is_leaf=True)  # arg{i}_1")
    lines += [
        "load_args._version = 0",
        "mod = Repro()",
        "if __name__ == '__main__':",
        "    from torch._dynamo.repro.after_aot import run_repro",
        "    with torch.no_grad():",
        "        run_repro(mod, load_args, accuracy=False, command='run', save_dir=None, tracing_mode='real', "
        "check_str=None)",
        "        # To run it separately, do",
        "        # mod, args = run_repro(mod, load_args, accuracy=False, command='get_args', save_dir=None, "
        "tracing_mode='real', check_str=None)",
        "        # mod(*args)",
    ]
    return "\n".join(lines)


def eval_with_key_source():
    lines = ["", "", "", "def forward(self, L_x_ : torch.Tensor):"]
    lines.append("    l_x_ = L_x_")
    cur = "l_x_"
    for i in range(DEPTH):
        lines.append(f"    l__self___layers_{i} = self.L__self___layers_{i}({cur});  {cur} = None")
        lines.append(f"    gelu_{i} = torch._C._nn.gelu(l__self___layers_{i});  l__self___layers_{i} = None")
        lines.append(f"    x_{i} = {cur if i else 'L_x_'} + gelu_{i};  gelu_{i} = None")
        cur = f"x_{i}"
    lines.append(f"    l__self___norm = self.L__self___norm({cur});  {cur} = None")
    lines.append("    return (l__self___norm,)")
    lines.append("    ")
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------
# The run.

SRC = {
    "dynamo_start": "torch/_dynamo/convert_frame.py:1012",
    "describe": "torch/_subclasses/meta_utils.py:",
    "output_graph": "torch/_dynamo/output_graph.py:1412",
    "guards": "torch/_dynamo/guards.py:2398",
    "cpp_guards": "torch/_dynamo/guards.py:2420",
    "aot": "torch/_functorch/_aot_autograd/jit_compile_runtime_wrappers.py:",
    "pre_grad": "torch/_inductor/compile_fx.py:1577",
    "post_grad": "torch/_inductor/compile_fx.py:852",
    "output_code": "torch/_inductor/graph.py:2022",
    "metrics": "torch/_dynamo/utils.py:1102",
    "link": "torch/_inductor/compile_fx.py:1015",
    "dump": "torch/fx/graph_module.py:78",
    "symbolic": "torch/fx/experimental/symbolic_shapes.py:",
}


def describe_inputs(t, tensors):
    """describe_storage / describe_tensor / describe_source for each (source, shape)."""
    for i, (source, shape, requires_grad) in enumerate(tensors):
        nbytes = 4
        for d in shape:
            nbytes *= d
        t.log(SRC["describe"] + "241", "describe_storage", {"id": i, "describer_id": 7, "size": nbytes}, ms=0.05)
        tensor = {
            "id": i, "ndim": len(shape), "dtype": "torch.float32", "device": "device(type='cuda', index=0)",
            "size": shape, "is_leaf": True, "requires_grad": requires_grad, "stride": contiguous_stride(shape),
            "storage": i, "view_func": f"<built-in method _view_func_unsafe of Tensor object at 0x{obj_id(source + str(shape)):x}>",
            "describer_id": 7,
        }
        if requires_grad:
            tensor["is_parameter"] = True
        t.log(SRC["describe"] + "454", "describe_tensor", tensor, ms=0.05)
        t.log(SRC["describe"] + "1779", "describe_source", {"describer_id": 7, "id": i, "source": source}, ms=0.05)


def metrics(t, co_name, firstlineno, cache_size, **kw):
    m = {
        "frame_key": str(t.cid["frame_id"] + 1),
        "co_name": co_name,
        "co_filename": USER_FILE,
        "co_firstlineno": firstlineno,
        "cache_size": cache_size,
        "accumulated_cache_size": cache_size,
        "guard_count": None,
        "shape_env_guard_count": None,
        "graph_op_count": None,
        "graph_node_count": None,
        "graph_input_count": None,
        "start_time": None,
        "entire_frame_compile_time_s": None,
        "backend_compile_time_s": None,
        "inductor_compile_time_s": None,
        "code_gen_time_s": None,
        "fail_type": None,
        "fail_reason": None,
        "fail_user_frame_filename": None,
        "fail_user_frame_lineno": None,
        "non_compliant_ops": [],
        "compliant_custom_ops": [],
        "restart_reasons": [],
        "dynamo_time_before_restart_s": 0.0,
        "has_guarded_code": True,
        "dynamo_config": json.dumps({"assume_static_by_default": True, "automatic_dynamic_shapes": True,
                                     "cache_size_limit": 8, "suppress_errors": False}, sort_keys=True),
    }
    m.update(kw)
    t.log(SRC["metrics"], "compilation_metrics", m, ms=0.4)


def start_time(t):
    return round((t.EPOCH_US + t.now) / 1e6, 6)


def compile_mlp(t, frame_compile_id, batch, stack, dynamic):
    """Frame 0: MLP.forward, training; batch is 32 (static) or 48 seen as symbol s0."""
    t.set_compile(0, frame_compile_id)
    label = f"0_{frame_compile_id}"
    began = start_time(t)
    t.chrome("dynamo", "B")
    t.log(SRC["dynamo_start"], "dynamo_start", {"stack": stack})
    t.chrome("entire_frame_compile", "B", fn_name="_compile.compile_inner")
    if dynamic:
        t.artifact("recompile_reasons", "json",
                   json.dumps(["tensor 'L['x']' size mismatch at index 0. expected 32, actual 48"]),
                   src="torch/_dynamo/guards.py:2812")
    tensors = [("L['x']", [batch, DIM], False)]
    tensors += [(f"L['self']._modules['layers']._modules['{i}']._parameters['weight']", [DIM, DIM], True)
                for i in range(2)]
    describe_inputs(t, tensors)
    sym = "s0" if dynamic else None
    shape_batch = sym or batch
    if dynamic:
        se = shape_env_stack(t)
        fwd_user = [t.frame(USER_FILE, L_RESIDUAL, "forward", src_code(L_RESIDUAL))]
        t.log(SRC["symbolic"] + "4412", "symbolic_shape_specialization", {
            "symbol": "s1", "sources": ["L['x'].size()[1]"], "value": str(DIM),
            "reason": f"Eq(s1, {DIM})", "stack": se, "user_stack": fwd_user})
        t.log(SRC["symbolic"] + "6548", "guard_added_fast", {
            "expr": "Ne(s0, 1)", "stack": se[:3], "user_stack": fwd_user})
        evk = t.frame("<eval_with_key>.3", 7, "forward", "gelu_0 = torch._C._nn.gelu(l__self___layers_0)")
        t.log(SRC["symbolic"] + "6548", "guard_added_fast", {
            "expr": "2 <= s0", "stack": se + [evk], "user_stack": fwd_user})
    graph = dynamo_mlp_graph(shape_batch)
    t.log(SRC["output_graph"], "dynamo_output_graph", {"sizes": {"l_x_": [shape_batch, DIM]}}, graph, ms=40)
    t.chrome("backend_compile", "B", fn_name="OutputGraph.call_user_compiler")
    t.chrome("create_aot_dispatcher_function", "B")
    t.artifact("aotautograd_cache_hash", "json", aot_cache_payload(label, False),
               src="torch/_functorch/_aot_autograd/autograd_cache.py:763")
    fw, saved = aten_mlp_forward(shape_batch, "class GraphModule(torch.nn.Module):")
    t.log(SRC["aot"] + "541", "aot_forward_graph", {}, fw, ms=30)
    t.log(SRC["aot"] + "547", "aot_backward_graph", {}, aten_mlp_backward(shape_batch, saved), ms=5)
    if not dynamic:
        t.log(SRC["dump"], "dump_file", {"name": "<eval_with_key>.3"}, eval_with_key_source(), ms=1)
    t.chrome("create_aot_dispatcher_function", "E", ms=1)
    t.chrome("compile_fx_inner", "B", graph_kind="forward")
    t.log(SRC["pre_grad"], "inductor_pre_grad_graph", {}, graph.replace("class GraphModule", "class GraphModule", 1))
    post, _ = aten_mlp_forward(shape_batch, "class <lambda>(torch.nn.Module):")
    t.log(SRC["post_grad"], "inductor_post_grad_graph", {}, post, ms=20)
    t.artifact("fx_graph_runnable", "string",
               fx_graph_runnable(fw, [[batch, DIM]] + [[DIM, DIM], [DIM]] * DEPTH + [[DIM], [DIM]]))
    t.chrome("code_gen", "B", fn_name="GraphLowering.compile_to_module")
    code = mlp_forward_code(batch, label, symbolic=sym)
    kpath = f"/tmp/torchinductor_user/{fake_hash(label + 'out')[:2]}/c{fake_hash(label + 'out', 51)}.py"
    t.log(SRC["output_code"], "inductor_output_code", {"filename": kpath}, code, ms=300)
    t.chrome("code_gen", "E", ms=1)
    t.artifact("fx_graph_cache_miss", "json", fx_cache_payload(label + "fw", fw, False))
    t.chrome("compile_fx_inner", "E", cache_state="miss")
    t.log(SRC["link"], "link", {"name": "compile_profile", "url": f"https://example.com/tlparse-demo/profile/{label}.json"})
    t.chrome("backend_compile", "E")
    guards = mlp_guards(dynamic)
    t.log(SRC["guards"], "dynamo_guards", {}, guards_payload(guards), ms=3)
    t.log(SRC["cpp_guards"], "dynamo_cpp_guards_str", {}, cpp_guards_tree(guards))
    t.chrome("entire_frame_compile", "E")
    elapsed = round((t.EPOCH_US + t.now) / 1e6 - began, 6)
    metrics(t, "forward", L_FORWARD, frame_compile_id,
            guard_count=len(guards), shape_env_guard_count=2 if dynamic else 0,
            graph_op_count=3 * DEPTH + 1, graph_node_count=3 * DEPTH + 1 + 2 * DEPTH + 4,
            graph_input_count=2 * DEPTH + 3 + (1 if dynamic else 0), start_time=began,
            entire_frame_compile_time_s=elapsed, backend_compile_time_s=round(elapsed * 0.82, 6),
            inductor_compile_time_s=round(elapsed * 0.61, 6), code_gen_time_s=round(elapsed * 0.23, 6),
            compliant_custom_ops=[], non_compliant_ops=[])
    t.chrome("dynamo", "E")
    return saved, shape_batch


def compile_mlp_backward(t, frame_compile_id, batch, saved):
    """The lazy backward compile of frame 0, triggered by loss.backward()."""
    t.set_compile(0, frame_compile_id)
    label = f"0_{frame_compile_id}"
    t.advance(50)
    t.chrome("compile_fx.<locals>.bw_compiler", "B")
    t.chrome("compile_fx_inner", "B", graph_kind="backward")
    bw = aten_mlp_backward(batch, saved)
    t.log(SRC["post_grad"], "inductor_post_grad_graph", {}, bw.replace("class GraphModule", "class <lambda>", 1), ms=15)
    t.chrome("code_gen", "B", fn_name="GraphLowering.compile_to_module")
    kpath = f"/tmp/torchinductor_user/{fake_hash(label + 'bw')[:2]}/c{fake_hash(label + 'bw', 51)}.py"
    t.log(SRC["output_code"], "inductor_output_code", {"filename": kpath}, mlp_backward_code(batch, label, saved), ms=250)
    t.chrome("code_gen", "E", ms=1)
    t.artifact("fx_graph_cache_miss", "json", fx_cache_payload(label + "bw", bw, False))
    t.chrome("compile_fx_inner", "E", cache_state="miss")
    t.chrome("compile_fx.<locals>.bw_compiler", "E")
    t.log("torch/_dynamo/utils.py:1171", "bwd_compilation_metrics", {
        "compile_id": label.replace("_", "/"), "inductor_compile_time_s": 0.561238,
        "code_gen_time_s": 0.249017, "fail_type": None, "fail_reason": None, "remote_cache_time_saved_s": None,
        "structured_logging_overhead_s": 0.004711, "is_forward": False})


BREAK_REASON = ("Graph break due to unsupported builtin demo_ext._C.fast_scale. This function is either a Python "
                "builtin (e.g. _warnings.warn) or a third-party C/C++ Python extension (perhaps created with "
                "pybind). If it is a Python builtin, please file an issue on GitHub so the PyTorch developers "
                "can add support for it. If it is a third-party C/C++ Python extension, please either wrap it "
                "into a PyTorch-understood custom operator or, if it is traceable, use "
                "torch.compiler.allow_in_graph.")


def compile_attention(t, stack):
    """Frame 1: attention_block; attempt 0 hits the graph break, attempt 1 compiles the prefix."""
    t.set_compile(1, 0, 0)
    began = start_time(t)
    t.chrome("dynamo", "B")
    t.log(SRC["dynamo_start"], "dynamo_start", {"stack": stack})
    t.chrome("entire_frame_compile", "B", fn_name="_compile.compile_inner")
    describe_inputs(t, [("L['q']", [4, 128, 32], False), ("L['k']", [4, 128, 32], False),
                        ("L['v']", [4, 128, 32], False)])
    t.advance(20)
    restart_at = round((t.EPOCH_US + t.now) / 1e6 - began, 6)
    metrics(t, "attention_block", L_ATTN, 0, guard_count=None, graph_op_count=5, graph_node_count=7,
            graph_input_count=2, start_time=began, entire_frame_compile_time_s=restart_at,
            restart_reasons=[BREAK_REASON], dynamo_time_before_restart_s=restart_at, has_guarded_code=False)

    t.set_compile(1, 0, 1)
    label = "1_0_1"
    graph = attention_graphs("pre")
    t.log(SRC["output_graph"], "dynamo_output_graph", {"sizes": {"l_q_": [4, 128, 32], "weights": [4, 128, 128]}},
          graph, ms=10)
    t.chrome("backend_compile", "B", fn_name="OutputGraph.call_user_compiler")
    t.chrome("create_aot_dispatcher_function", "B")
    inf = attention_aten("pre")
    t.log(SRC["aot"] + "205", "aot_inference_graph", {}, inf, ms=12)
    t.chrome("create_aot_dispatcher_function", "E")
    t.chrome("compile_fx_inner", "B", graph_kind="inference")
    t.log(SRC["pre_grad"], "inductor_pre_grad_graph", {}, graph)
    t.log(SRC["post_grad"], "inductor_post_grad_graph", {}, inf.replace("class GraphModule", "class <lambda>", 1))
    t.artifact("fx_graph_runnable", "string", fx_graph_runnable(inf, [[4, 128, 32]] * 2))
    t.chrome("code_gen", "B", fn_name="GraphLowering.compile_to_module")
    kpath = f"/tmp/torchinductor_user/{fake_hash(label)[:2]}/c{fake_hash(label, 51)}.py"
    t.log(SRC["output_code"], "inductor_output_code", {"filename": kpath}, attention_code(label), ms=180)
    t.chrome("code_gen", "E")
    t.artifact("fx_graph_cache_miss", "json", fx_cache_payload(label, inf, False))
    t.chrome("compile_fx_inner", "E", cache_state="miss")
    t.chrome("backend_compile", "E")
    guards = attention_guards()
    t.log(SRC["guards"], "dynamo_guards", {}, guards_payload(guards), ms=2)
    t.log(SRC["cpp_guards"], "dynamo_cpp_guards_str", {}, cpp_guards_tree(guards))
    t.chrome("entire_frame_compile", "E")
    elapsed = round((t.EPOCH_US + t.now) / 1e6 - began, 6)
    metrics(t, "attention_block", L_ATTN, 0, guard_count=len(guards), shape_env_guard_count=0,
            graph_op_count=4, graph_node_count=7, graph_input_count=2, start_time=began,
            entire_frame_compile_time_s=elapsed, backend_compile_time_s=round(elapsed * 0.7, 6),
            inductor_compile_time_s=round(elapsed * 0.55, 6), code_gen_time_s=round(elapsed * 0.2, 6),
            dynamo_time_before_restart_s=restart_at, non_compliant_ops=["demo_ext::fast_scale"])
    t.chrome("dynamo", "E")


FAIL_REASON = ("backend='inductor' raised:\n"
               "RuntimeError: Triton Error [CUDA]: out of resource: shared memory, required 147456 > "
               "hardware limit 101376 for kernel triton_tem_fused_bmm_relu_0 <grid=(4, 2, 1)>. "
               "Reducing block sizes or `num_stages` may help.\n\n"
               "Set TORCH_LOGS=\"+dynamo\" and TORCHDYNAMO_VERBOSE=1 for more information\n\n"
               "You can suppress this exception and fall back to eager by setting:\n"
               "    import torch._dynamo\n"
               "    torch._dynamo.config.suppress_errors = True\n")


def compile_resume_failure(t, stack):
    """Frame 2: the resume function after the break; inductor fails while autotuning."""
    t.set_compile(2, 0, 0)
    began = start_time(t)
    t.chrome("dynamo", "B")
    t.log(SRC["dynamo_start"], "dynamo_start", {"stack": stack})
    t.chrome("entire_frame_compile", "B", fn_name="_compile.compile_inner")
    describe_inputs(t, [("L['weights']", [4, 128, 128], False), ("L['v']", [4, 128, 32], False)])
    graph = attention_graphs("resume")
    t.log(SRC["output_graph"], "dynamo_output_graph", {"sizes": {"l_weights_": [4, 128, 128]}}, graph, ms=8)
    t.chrome("backend_compile", "B", fn_name="OutputGraph.call_user_compiler")
    inf = attention_aten("resume")
    t.log(SRC["aot"] + "205", "aot_inference_graph", {}, inf, ms=10)
    t.chrome("compile_fx_inner", "B", graph_kind="inference")
    t.log(SRC["pre_grad"], "inductor_pre_grad_graph", {}, graph)
    t.log(SRC["post_grad"], "inductor_post_grad_graph", {}, inf.replace("class GraphModule", "class <lambda>", 1))
    t.chrome("compile_fx_inner", "E", ms=400, cache_state="bypass")
    t.chrome("backend_compile", "E")
    tb = ["Traceback (most recent call last):"]
    for fr in stack[-3:]:
        tb.append(f'  File "{TORCH}_dynamo/convert_frame.py", line {fr["line"]}, in {fr["name"]}')
        tb.append(f"    {fr.get('loc', '')}")
    tb.append(f'  File "{TORCH}_inductor/select_algorithm.py", line 1694, in benchmark_choice_in_current_process')
    tb.append("    result = choice.benchmark(*inpts, out=output)")
    tb += FAIL_REASON.rstrip("\n").split("\n")
    t.artifact("dynamo_error", "string", "\n".join(tb), src="torch/_dynamo/convert_frame.py:1078")
    t.chrome("entire_frame_compile", "E")
    elapsed = round((t.EPOCH_US + t.now) / 1e6 - began, 6)
    metrics(t, f"torch_dynamo_resume_in_attention_block_at_{L_BREAK}", L_BREAK, 0,
            graph_op_count=2, graph_node_count=5, graph_input_count=2, start_time=began,
            entire_frame_compile_time_s=elapsed, backend_compile_time_s=round(elapsed * 0.9, 6),
            fail_type="BackendCompilerFailed", fail_reason=FAIL_REASON,
            fail_user_frame_filename=USER_FILE, fail_user_frame_lineno=L_BREAK + 1, has_guarded_code=False)
    t.chrome("dynamo", "E")


def compile_predict(t, stack):
    """Frame 3: predict under no_grad; the FX graph cache already holds it."""
    t.set_compile(3, 0, 0)
    label = "3_0"
    began = start_time(t)
    t.chrome("dynamo", "B")
    t.log(SRC["dynamo_start"], "dynamo_start", {"stack": stack})
    t.chrome("entire_frame_compile", "B", fn_name="_compile.compile_inner")
    describe_inputs(t, [("L['x']", [32, DIM], False)])
    graph = dynamo_mlp_graph(32).replace("L_self_", "L_model_").replace("l_self_", "l_model_")
    graph = graph.replace("return (layer_norm,)",
                          f"\n{file_comment('        ', src_line('logits.argmax'), 'predict')}\n"
                          '        argmax: "i64[32][1]cuda:0" = layer_norm.argmax(dim = -1);  layer_norm = None\n'
                          "        return (argmax,)")
    t.log(SRC["output_graph"], "dynamo_output_graph", {"sizes": {"l_x_": [32, DIM], "argmax": [32]}}, graph, ms=30)
    t.chrome("backend_compile", "B", fn_name="OutputGraph.call_user_compiler")
    inf, _ = aten_mlp_forward(32, "class GraphModule(torch.nn.Module):", training=False)
    t.artifact("aotautograd_cache_hash", "json", aot_cache_payload(label, True),
               src="torch/_functorch/_aot_autograd/autograd_cache.py:763")
    t.log(SRC["aot"] + "205", "aot_inference_graph", {}, inf, ms=8)
    t.chrome("compile_fx_inner", "B", graph_kind="inference")
    t.log(SRC["pre_grad"], "inductor_pre_grad_graph", {}, graph)
    t.chrome("fx_graph_cache_hit", "i", ms=2, key="f" + fake_hash(label + "key", 51))
    t.artifact("fx_graph_cache_hit", "json", fx_cache_payload(label, inf, True))
    kpath = f"/tmp/torchinductor_user/{fake_hash(label)[:2]}/c{fake_hash(label, 51)}.py"
    t.log(SRC["output_code"], "inductor_output_code", {"filename": kpath},
          mlp_forward_code(32, label, inference=True), ms=5)
    t.chrome("compile_fx_inner", "E", cache_state="hit")
    t.chrome("backend_compile", "E")
    guards = [g.replace("L['self']", "L['model']") for g in mlp_guards(False)]
    guards = [g.replace("L['model'].training == True", "L['model'].training == False") for g in guards]
    t.log(SRC["guards"], "dynamo_guards", {}, guards_payload(guards), ms=2)
    t.log(SRC["cpp_guards"], "dynamo_cpp_guards_str", {}, cpp_guards_tree(guards))
    t.chrome("entire_frame_compile", "E")
    elapsed = round((t.EPOCH_US + t.now) / 1e6 - began, 6)
    metrics(t, "predict", L_PREDICT - 1, 0, guard_count=len(guards), shape_env_guard_count=0,
            graph_op_count=3 * DEPTH + 2, graph_node_count=5 * DEPTH + 6, graph_input_count=2 * DEPTH + 3,
            start_time=began, entire_frame_compile_time_s=elapsed, backend_compile_time_s=round(elapsed * 0.4, 6),
            inductor_compile_time_s=round(elapsed * 0.1, 6), code_gen_time_s=None)
    t.chrome("dynamo", "E")


def build():
    t = Trace()
    step_call = "loss = train_step(cmodel, cattn, opt, x, q, k, v)"
    # Frame 0, first compile: MLP.forward reached from train_step's first statement.
    stack0 = (main_stack(t, step_call, 1, "h = model(x)") + module_call_frames(t) + [eval_frame_fn(t)]
              + convert_frame_suffix(t, "classic"))
    saved, b = compile_mlp(t, 0, 32, stack0, dynamic=False)
    # Frame 1: attention_block, graph break then restart.
    stack1 = main_stack(t, step_call, 1, "a = attn(q, k, v)") + [eval_frame_fn(t)] + convert_frame_suffix(t, "classic")
    compile_attention(t, stack1)
    # Frame 2: the resume function, called from the compiled attention_block; fails.
    stack2 = (main_stack(t, step_call, 1, "a = attn(q, k, v)") + [eval_frame_fn(t)]
              + [t.frame(USER_FILE, L_BREAK, "attention_block", src_code(L_BREAK))]
              + convert_frame_suffix(t, "call"))
    compile_resume_failure(t, stack2)
    compile_mlp_backward(t, 0, b, saved)
    # Frame 3: predict; its stack ends in eval_frame (no convert-frame suffix).
    t.advance(120)
    stack3 = main_stack(t, "preds = cpredict(model", 1, None) + [eval_frame_fn(t)]
    compile_predict(t, stack3)
    # Frame 0 again: a batch of 48 fails the size guard -> recompile with a dynamic batch.
    t.advance(80)
    stack0b = (main_stack(t, step_call, 2, "h = model(x)") + module_call_frames(t) + [eval_frame_fn(t)]
               + convert_frame_suffix(t, "classic"))
    compile_mlp(t, 1, 48, stack0b, dynamic=True)
    return "".join(t.out)


def main():
    ap = argparse.ArgumentParser(description="Write the demo TORCH_TRACE log (deterministic).")
    ap.add_argument("-o", "--output", help="write here instead of stdout")
    a = ap.parse_args()
    text = build()
    if a.output:
        with open(a.output, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
