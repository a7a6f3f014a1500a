#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write tests/fixtures/canary.log and tests/fixtures/canary.json: the fixture of the
`--redact` adversarial test (tests/redact.sh, tests/redact_check.py).

canary.log is a realistic TORCH_TRACE log of a made-up training script,
/home/user/proj/model.py (Model.forward at line 15, attention_block at line 21), with
every envelope kind tlparse reads. In every field that can hold the user's code or data
(source lines, graph and code payloads, guard code, restart and failure reasons, dumped
files, JSON artifact keys and values, link names and URLs, chromium event args, sources of
symbols, frame locals, ...) it plants its own unique token, `cnry` + 4 digits (cnry0001,
...), as a whole identifier, inside identifiers (l_self_modules_cnry0002_weight_), in
string literals, in free text and in JSON keys; decimal constants in code are planted as
canary values too (0.58203749NN). None of them may survive `--redact`.

The places --redact keeps carry recognisable structural facts instead, that a redacted
report must still show: the user file /home/user/proj/model.py, the functions forward,
attention_block, train_step and main, their lines (15, 21, 34, 41, ...), compile ids
[0/0], [0/1], [1/0] and [1/0_1], the failure types BackendCompilerFailed and
InductorError, op names (torch.ops.aten.mm.default, aten.relu), shapes (f32[32, 64]),
node counts (graph_node_count 35) and metric numbers (2.718281 s).

canary.json lists every canary with the field it was planted in (`field`), how it was
planted (`form`) and a note, plus the structural facts; tests/redact_check.py reads it.
A few canaries sit in fields that this tlparse never writes into a report except raw.log
and raw.jsonl (which a redacted report leaves out); they are marked "dormant": true and
are still checked (cheap: they guard a future page that would show them).

    python3 scripts/make_canary_trace.py            # writes both files next to demo.log
    python3 scripts/make_canary_trace.py -o DIR     # or into DIR
Deterministic (no clock, no randomness); Python 3 standard library only. Check the log
with scripts/check_trace.py tests/fixtures/canary.log.
"""
import argparse
import hashlib
import json
import os
import re
import sys
import urllib.parse

USER = "/home/user/proj/model.py"
UTIL = "/home/user/proj/utils.py"
TORCH = "/opt/conda/lib/python3.11/site-packages/torch/"

# The user program's lines (1-based) that stacks and "# File:" comments point to.
L_FORWARD = 15        # def forward(self, x):            (Model.forward, co_firstlineno)
L_FWD_BODY = 16       #     h = self.<layer>(x) ...
L_FWD_ACT = 17        #     h = torch.relu(h) ...
L_FWD_RET = 18        #     return h
L_ATTN = 21           # def attention_block(q, k, v):
L_ATTN_SCORES = 22
L_ATTN_BREAK = 23     #     graph break here
L_ATTN_OUT = 24
L_TRAIN = 33          # def train_step(...)
L_TRAIN_FWD = 34      #     h = model(x)
L_TRAIN_ATTN = 35     #     a = attention_block(q, k, v)
L_MAIN = 40           # def main():
L_MAIN_STEP = 41      #     loss = train_step(...)
L_MAIN_STEP2 = 43     #     loss = train_step(...)  (second call, bigger batch)
L_MODULE = 47         # main()

# ----------------------------------------------------------------------------------------
# The canary registry.


class Canaries:
    def __init__(self):
        self.items = []
        self.n = 0
        self.nf = 0

    def tok(self, field, form, note=""):
        """A new unique token cnryNNNN, recorded with the field it goes into."""
        self.n += 1
        t = "cnry%04d" % self.n
        self.items.append({"canary": t, "field": field, "form": form, "note": note})
        return t

    def num(self, field, note=""):
        """A new unique decimal constant 0.58203749NN (a constant value of the user's code)."""
        self.nf += 1 + (self.nf % 10 == 9)  # no trailing 0: JSON would drop it
        t = "0.58203749%02d" % self.nf
        self.items.append({"canary": t, "field": field, "form": "decimal constant", "note": note})
        return t

    def uni(self, field, form, prefix="\u0109nry", note=""):
        """A non-ASCII token (ĉnryNNNN, or 模型NNNN): user code and data are not all ASCII."""
        self.n += 1
        t = "%s%04d" % (prefix, self.n)
        self.items.append({"canary": t, "field": field, "form": form + " (non-ASCII)", "note": note})
        return t

    def exp(self, field, note=""):
        """A decimal constant in exponent form, 5.8203749NNe-05; the canary is its mantissa."""
        self.nf += 1 + (self.nf % 10 == 9)
        t = "5.8203749%02d" % self.nf
        self.items.append({"canary": t, "field": field, "form": "decimal constant in exponent form (written %se-05)" % t,
                           "note": note})
        return t + "e-05"

    def ambiguous(self, token, why):
        """A canary in a place the issue does not clearly call removed: a leak there is reported
        as a question for the author, not as a failure."""
        for it in self.items:
            if it["canary"] == token:
                it["ambiguous"] = True
                it["note"] = (it["note"] + "; " if it["note"] else "") + why

    def dormant(self, token, why):
        for it in self.items:
            if it["canary"] == token:
                it["dormant"] = True
                it["note"] = (it["note"] + "; " if it["note"] else "") + why


CN = Canaries()

# ----------------------------------------------------------------------------------------
# The log writer: glog prefix + one-line JSON envelope + TAB-indented payload lines whose
# md5 is has_payload (exactly as scripts/check_trace.py and tlparse check it).


def md5_hex(text):
    return hashlib.md5(text.encode("utf-8")).hexdigest()


class Log:
    TID = 271828
    DAY_US = (10 * 3600 + 15 * 60) * 1_000_000   # 10:15:00.000000
    EPOCH_US = 1733825700000000

    def __init__(self):
        self.out = []
        self.now = 0
        self.seq = 0
        self.strings = {}
        self.cid = {}

    def prefix(self, src):
        self.seq += 1
        self.now += 1000 + (self.seq * 7919) % 997   # deterministic, irregular steps
        t = self.DAY_US + self.now
        us, s = t % 1_000_000, t // 1_000_000
        return "V1210 %02d:%02d:%02d.%06d %d %s] " % (s // 3600, s // 60 % 60, s % 60, us, self.TID, src)

    def emit(self, env, payload=None, src="torch/_logging/structured.py:30"):
        if payload is not None:
            env = dict(env, has_payload=md5_hex(payload))
        self.out.append(self.prefix(src) + json.dumps(env) + "\n")
        if payload is not None:
            self.out.extend("\t" + line + "\n" for line in payload.split("\n"))

    def intern(self, path):
        if path not in self.strings:
            self.strings[path] = len(self.strings)
            self.emit({"str": [path, self.strings[path]]}, src="torch/_logging/structured.py:28")
        return self.strings[path]

    def frame(self, path, line, name, loc=None):
        f = {"line": line, "name": name, "filename": self.intern(path)}
        if loc is not None:
            f["loc"] = loc
        return f

    def set_compile(self, frame_id, fcid, attempt=0):
        self.cid = {"compiled_autograd_id": None, "frame_id": frame_id, "frame_compile_id": fcid,
                    "attempt": attempt}

    def cid_str(self):
        c = self.cid
        return "%d/%d" % (c["frame_id"], c["frame_compile_id"]) + ("_%d" % c["attempt"] if c["attempt"] else "")

    def label(self):
        return self.cid_str().replace("/", "_")

    def log(self, key, value, payload=None, src="torch/_logging/structured.py:30", cid=True):
        env = {key: value}
        if cid:
            env.update(self.cid)
        self.emit(env, payload, src)

    def chrome(self, name, ph, args):
        args = dict(args, compile_id=self.cid_str())
        ts = self.EPOCH_US + self.now + 0.5
        ev = {"name": name, "ts": ts, "args": args, "ph": ph, "cat": "dynamo_timed", "tid": 0, "pid": 0}
        if ph == "i":
            ev["s"] = "p"
        self.log("chromium_event", {}, json.dumps(ev, indent=0), src="torch/_dynamo/utils.py:1320")

    def artifact(self, name, encoding, payload, src="torch/_inductor/compile_fx.py:842"):
        self.log("artifact", {"name": name, "encoding": encoding}, payload, src)


def tt(shape, stride, dtype="f32"):
    """A graph printout's type annotation: "f32[32, 64][64, 1]cuda:0"."""
    return '"%s[%s][%s]cuda:0"' % (dtype, ", ".join(map(str, shape)), ", ".join(map(str, stride)))


def file_comment(line, fn, code):
    return "         # File: %s:%d in %s, code: %s" % (USER, line, fn, code)


def torch_file(rel):
    return TORCH + rel


def convert_frame_suffix(t):
    cf = torch_file("_dynamo/convert_frame.py")
    return [t.frame(cf, 1380, "__call__", "return self._torchdynamo_orig_callable("),
            t.frame(cf, 1164, "__call__", "result = self._inner_convert("),
            t.frame(cf, 547, "__call__", "return _compile(")]


def framework_stack(t):
    se = torch_file("fx/experimental/symbolic_shapes.py")
    return [t.frame(torch_file("_dynamo/variables/builder.py"), 2802, "wrap_to_fake_tensor_and_record",
                    "fake_e = wrap_fake_exception("),
            t.frame(se, 6284, "evaluate_expr", "return self._evaluate_expr("),
            t.frame(se, 6548, "_evaluate_expr", "self._log_guard(\"eval\", g, forcing_spec=forcing_spec)")]


# ----------------------------------------------------------------------------------------
# The story.


def user_stack_forward(t, where, main_line):
    """<module> -> main -> train_step -> Model.__call__ -> (dynamo); a loc canary per user frame."""
    c1 = CN.tok(where + ".stack[0].loc", "call argument in a source line", "<module> frame")
    c2 = CN.tok(where + ".stack[1].loc", "identifier in a source line", "main frame")
    c3 = CN.tok(where + ".stack[2].loc", "method name in a source line", "train_step frame")
    CN.nf += 1 + (CN.nf % 10 == 9)
    c4 = "58203749%02d" % CN.nf
    CN.items.append({"canary": c4, "field": where + ".stack[2].loc", "form": "decimal constant written .%s" % c4,
                     "note": "train_step frame"})
    c5 = CN.uni(where + ".stack[1].loc", "identifier in a source line", note="main frame")
    mod = torch_file("nn/modules/module.py")
    return [
        t.frame(USER, L_MODULE, "<module>", "main(config=%s)" % c1),
        t.frame(USER, main_line, "main", "loss = train_step(model, %s_optimizer, x, %s, k, v)" % (c2, c5)),
        t.frame(USER, L_TRAIN_FWD, "train_step", "h = model(x.%s() * .%s)" % (c3, c4)),
        t.frame(mod, 1736, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
        t.frame(mod, 1747, "_call_impl", "return forward_call(*args, **kwargs)"),
        t.frame(torch_file("_dynamo/eval_frame.py"), 573, "_fn", "return fn(*args, **kwargs)"),
    ] + convert_frame_suffix(t)


def describe_input(t, tid, source_canary, shape):
    t.log("describe_storage", {"id": tid, "describer_id": 0, "size": 4 * shape[0] * shape[1]},
          src="torch/_subclasses/meta_utils.py:233")
    t.log("describe_tensor", {"id": tid, "ndim": len(shape), "dtype": "torch.float32",
                              "device": "device(type='cuda', index=0)", "size": shape,
                              "is_leaf": True, "stride": [shape[1], 1], "storage": tid,
                              "view_func": "<built-in method _view_func_unsafe>", "describer_id": 0},
          src="torch/_subclasses/meta_utils.py:477")
    t.log("describe_source", {"describer_id": 0, "id": tid, "source": "L['%s']" % source_canary},
          src="torch/_subclasses/meta_utils.py:1769")


def dynamo_graph(batch, layer, bufname, fconst, code_layer, code_act, strlit, sym=None):
    """Dynamo's captured graph of Model.forward: one linear with a user-named layer, a
    buffer read via get_attr, a decimal constant, a string literal, a relu."""
    ind = "        "
    b = sym or batch
    act = tt([b, 64], [64, 1])
    sig = ([] if sym is None else ['%s: "Sym(%s)"' % (sym, sym)]) + [
        "L_x_: %s" % act,
        "L_self_modules_%s_parameters_weight_: %s" % (layer, tt([64, 64], [64, 1])),
        "L_self_modules_%s_parameters_bias_: %s" % (layer, tt([64], [1])),
    ]
    lines = [
        "class GraphModule(torch.nn.Module):",
        "    def forward(self, " + ", ".join(sig) + "):",
        ind + "l_x_ = L_x_",
        ind + "l_self_modules_%s_parameters_weight_ = L_self_modules_%s_parameters_weight_" % (layer, layer),
        ind + "l_self_modules_%s_parameters_bias_ = L_self_modules_%s_parameters_bias_" % (layer, layer),
        "",
        file_comment(L_FWD_BODY, "forward", code_layer),
        ind + "linear: %s = torch._C._nn.linear(l_x_, l_self_modules_%s_parameters_weight_, "
              "l_self_modules_%s_parameters_bias_);  l_x_ = None" % (act, layer, layer),
        ind + "l__self___%s = self.L__self___%s" % (bufname, bufname),
        ind + "mul: %s = linear * %s;  linear = None" % (act, fconst),
        ind + "add: %s = mul + l__self___%s;  mul = l__self___%s = None" % (act, bufname, bufname),
        "",
        file_comment(L_FWD_ACT, "forward", code_act),
        ind + "relu: %s = torch.relu(add);  add = None" % act,
        ind + "masked_fill: %s = relu.masked_fill(relu < 0, 0);  relu = None" % act,
        ind + "_log_api_usage_once = torch._C._log_api_usage_once('%s')" % strlit,
        ind + "return (masked_fill,)",
    ]
    return "\n".join(lines)


def aten_forward(batch, header, fconst, code_comment, sym=None, names=None):
    """An ATen-level forward (AOT forward / inference / post-grad graph)."""
    ind = "        "
    b = sym or batch
    act = tt([b, 64], [64, 1])
    p = names or ["primals_1", "primals_2", "primals_3"]
    lines = [
        header,
        "    def forward(self, %s: %s, %s: %s, %s: %s):" % (p[0], act, p[1], tt([64, 64], [64, 1]), p[2], tt([64], [1])),
        file_comment(L_FWD_BODY, "forward", code_comment),
        ind + "permute: %s = torch.ops.aten.permute.default(%s, [1, 0])" % (tt([64, 64], [1, 64]), p[1]),
        ind + "mm: %s = torch.ops.aten.mm.default(%s, permute);  permute = None" % (act, p[0]),
        ind + "add: %s = torch.ops.aten.add.Tensor(mm, %s);  mm = None" % (act, p[2]),
        ind + "mul: %s = torch.ops.aten.mul.Tensor(add, %s);  add = None" % (act, fconst),
        ind + "relu: %s = torch.ops.aten.relu.default(mul);  mul = None" % act,
        ind + "le: %s = torch.ops.aten.le.Scalar(relu, 0)" % tt([b, 64], [64, 1], "b8"),
        ind + "return (relu, %s, le)" % p[0],
    ]
    return "\n".join(lines)


def aten_backward(batch, fconst, code_comment):
    ind = "        "
    act = tt([batch, 64], [64, 1])
    return "\n".join([
        "class GraphModule(torch.nn.Module):",
        "    def forward(self, primals_1: %s, le: %s, tangents_1: %s):" % (act, tt([batch, 64], [64, 1], "b8"), act),
        file_comment(L_FWD_ACT, "forward", code_comment),
        ind + "full_default: \"f32[]\" = torch.ops.aten.full.default([], 0.0, dtype = torch.float32)",
        ind + "where: %s = torch.ops.aten.where.self(le, full_default, tangents_1);  le = None" % act,
        ind + "mul_1: %s = torch.ops.aten.mul.Tensor(where, %s);  where = None" % (act, fconst),
        ind + "permute_1: %s = torch.ops.aten.permute.default(mul_1, [1, 0])" % tt([64, batch], [1, 64]),
        ind + "mm_1: %s = torch.ops.aten.mm.default(permute_1, primals_1);  permute_1 = primals_1 = None" % tt([64, 64], [64, 1]),
        ind + "sum_1: %s = torch.ops.aten.sum.dim_IntList(mul_1, [0], True);  mul_1 = None" % tt([1, 64], [64, 1]),
        ind + "view: %s = torch.ops.aten.view.default(sum_1, [64]);  sum_1 = None" % tt([64], [1]),
        ind + "return (None, mm_1, view)",
    ])


def aten_joint(batch, fconst, code_comment):
    ind = "        "
    act = tt([batch, 64], [64, 1])
    return "\n".join([
        "class joint_helper(torch.nn.Module):",
        "    def forward(self, primals, tangents):",
        ind + "primals_1: %s; primals_2: %s; primals_3: %s; tangents_1: %s; "
              % (act, tt([64, 64], [64, 1]), tt([64], [1]), act),
        ind + "primals_1, primals_2, primals_3, tangents_1, = fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec)",
        file_comment(L_FWD_BODY, "forward", code_comment),
        ind + "permute: %s = torch.ops.aten.permute.default(primals_2, [1, 0]);  primals_2 = None" % tt([64, 64], [1, 64]),
        ind + "mm: %s = torch.ops.aten.mm.default(primals_1, permute);  permute = None" % act,
        ind + "mul: %s = torch.ops.aten.mul.Tensor(mm, %s);  mm = None" % (act, fconst),
        ind + "relu: %s = torch.ops.aten.relu.default(mul);  mul = None" % act,
        ind + "threshold_backward: %s = torch.ops.aten.threshold_backward.default(tangents_1, relu, 0)" % act,
        ind + "return pytree.tree_unflatten([relu, None, threshold_backward, None], self._out_spec)",
    ])


def output_code(label, kname, node_canary, fconst, strlit, code_comment, batch):
    """An inductor wrapper module: a Triton kernel, call(), the benchmark harness."""
    return "\n".join([
        "# AOT ID: ['%s_forward']" % label,
        "from ctypes import c_void_p, c_long, c_int",
        "import torch",
        "import triton",
        "import triton.language as tl",
        "from torch._inductor.runtime.triton_heuristics import grid",
        "from torch._C import _cuda_getCurrentRawStream as get_raw_stream",
        "",
        "aten = torch.ops.aten",
        "assert_size_stride = torch._C._dynamo.guards.assert_size_stride",
        "empty_strided_cuda = torch._C._dynamo.guards._empty_strided_cuda",
        "async_compile = AsyncCompile()",
        "",
        "",
        "# kernel path: /tmp/torchinductor_user/x7/cx7h3v4tq2lq5b6gfaw3w2h6yo6e3f5xcxw2ilbkuuwvwxvswlpl.py",
        "# Topologically Sorted Source Nodes: [%s, mul, relu], Original ATen: [aten.mm, aten.mul, aten.relu]" % node_canary,
        "# Source node to ATen node mapping:",
        "#   %s => mm" % node_canary,
        "#   relu => relu",
        "%s = async_compile.triton('%s', '''" % (kname, kname),
        "import triton",
        "import triton.language as tl",
        "",
        "@triton.jit",
        "def %s(in_out_ptr0, in_ptr0, xnumel, XBLOCK : tl.constexpr):" % kname,
        "    xnumel = %d" % (batch * 64),
        "    xoffset = tl.program_id(0) * XBLOCK",
        "    xindex = xoffset + tl.arange(0, XBLOCK)[:]",
        "    xmask = xindex < xnumel",
        "    x2 = xindex",
        "    x0 = xindex % 64",
        "    tmp0 = tl.load(in_out_ptr0 + (x2), xmask)",
        "    tmp1 = tl.load(in_ptr0 + (x0), xmask, eviction_policy='evict_last')",
        "    tmp2 = tmp0 + tmp1",
        "    tmp3 = %s" % fconst,
        "    tmp4 = tmp2 * tmp3",
        "    tmp5 = tl.full([1], 0, tl.int32)",
        "    tmp6 = triton_helpers.maximum(tmp5, tmp4)",
        "    tl.store(in_out_ptr0 + (x2), tmp6, xmask)",
        "''', device_str='cuda')",
        "",
        "async_compile.wait(globals())",
        "del async_compile",
        "",
        "def call(args):",
        "    primals_1, primals_2, primals_3 = args",
        "    args.clear()",
        "    assert_size_stride(primals_1, (%d, 64), (64, 1))" % batch,
        "    with torch.cuda._DeviceGuard(0):",
        "        torch.cuda.set_device(0)",
        "        buf0 = empty_strided_cuda((%d, 64), (64, 1), torch.float32)" % batch,
        "        # Topologically Sorted Source Nodes: [%s], Original ATen: [aten.mm]" % node_canary,
        "        # %s" % code_comment,
        "        extern_kernels.mm(primals_1, reinterpret_tensor(primals_2, (64, 64), (1, 64), 0), out=buf0)",
        "        stream0 = get_raw_stream(0)",
        "        %s.run(buf0, primals_3, %d, grid=grid(%d), stream=stream0)" % (kname, batch * 64, batch * 64),
        "        torch._check(buf0 is not None, lambda: '%s')" % strlit,
        "    return (buf0, primals_1, )",
        "",
        "",
        "def benchmark_compiled_module(times=10, repeat=10):",
        "    from torch._dynamo.testing import rand_strided",
        "    primals_1 = rand_strided((%d, 64), (64, 1), device='cuda:0', dtype=torch.float32)" % batch,
        "    fn = lambda: call([primals_1])",
        "    return print_performance(fn, times=times, repeat=repeat)",
        "",
        "",
        'if __name__ == "__main__":',
        "    from torch._inductor.wrapper_benchmark import compiled_module_main",
        "    compiled_module_main('None', benchmark_compiled_module)",
    ])


def guards_payload(t, codes, loc_canary):
    """dynamo_guards: the list of guards; the last one carries a user stack with a loc."""
    entries = []
    for i, c in enumerate(codes):
        e = {"code": c, "stack": None, "user_stack": None}
        if i == len(codes) - 1:
            e["user_stack"] = [t.frame(USER, L_FWD_BODY, "forward", "h = self.%s(x)" % loc_canary)]
        entries.append(e)
    return "[\n" + ",\n".join(json.dumps(e) for e in entries) + "\n]"


def compile_forward(t, fcid, batch, main_line, dynamic):
    """Frame 0, Model.forward: compiled at [0/0], recompiled at [0/1] (dynamic batch; the
    recompile_reasons artifact says why) and at [0/2] (only the metrics' recompile_reason says why)."""
    t.set_compile(0, fcid)
    cid = "[0/%d]" % fcid
    label = t.label()
    sym = "s0" if dynamic else None
    t.chrome("dynamo", "B", {})
    stack = user_stack_forward(t, "dynamo_start%s" % cid, main_line)
    t.log("dynamo_start", {"stack": stack}, src="torch/_dynamo/convert_frame.py:1026")
    t.chrome("entire_frame_compile", "B", {"fn_name": "_compile.compile_inner"})

    src_c = CN.tok("describe_source%s.source" % cid, "identifier in a source expression",
                   "L['<input name>']")
    describe_input(t, 10 * fcid, src_c, [batch, 64])
    CN.dormant(src_c, "describe_source is validated only: no page shows it")

    if fcid == 1:
        r1 = CN.tok("artifact recompile_reasons%s (json) [0]" % cid, "identifier in a guard failure",
                    "tensor 'L[...]' size mismatch")
        r2 = CN.tok("artifact recompile_reasons%s (json) [1]" % cid, "string literal in a guard failure")
        t.artifact("recompile_reasons", "json",
                   json.dumps(["0/0: tensor 'L['%s']' size mismatch at index 0. expected 32, actual 48" % r1,
                               "0/0: L['self'].mode == '%s'" % r2]),
                   src="torch/_dynamo/guards.py:2791")
        # Shapes: a specialization and a guard, with their stacks (shown on the metrics page).
        ss = CN.tok("symbolic_shape_specialization%s.sources[0]" % cid, "identifier in a source",
                    "L['<name>'].size()[0]")
        sr = CN.tok("symbolic_shape_specialization%s.reason" % cid, "identifier in a reason quoting code")
        CN.dormant(sr, "the metrics page's specialization table has no reason column; nothing else reads it")
        su = CN.tok("symbolic_shape_specialization%s.user_stack[0].loc" % cid, "attribute in a source line")
        t.log("symbolic_shape_specialization", {
            "symbol": "s1", "sources": ["L['%s'].size()[1]" % ss], "value": "64",
            "reason": "%s.size(1) == self.hidden" % sr,
            "user_stack": [t.frame(USER, L_FWD_BODY, "forward", "h = self.proj(x).view(-1, self.%s)" % su)],
            "stack": framework_stack(t)}, src="torch/fx/experimental/symbolic_shapes.py:5853")
        gu = CN.tok("guard_added_fast%s.user_stack[0].loc" % cid, "identifier in a source line")
        t.log("guard_added_fast", {
            "expr": "Ne(s0, 1)",
            "user_stack": [t.frame(USER, L_FWD_ACT, "forward", "if %s.size(0) != 1:" % gu)],
            "stack": framework_stack(t)}, src="torch/fx/experimental/symbolic_shapes.py:6548")

    layer = CN.tok("dynamo_output_graph%s payload" % cid, "part of identifiers (parameter names)",
                   "L_self_modules_<name>_parameters_weight_")
    buf = CN.tok("dynamo_output_graph%s payload" % cid, "graph attribute name (get_attr)",
                 "self.L__self___<name>")
    fconst = CN.num("dynamo_output_graph%s payload" % cid, "linear * <constant>")
    code1 = CN.tok("dynamo_output_graph%s payload" % cid, "'# File: ... code:' comment",
                   "the source line of line 16")
    code2 = CN.tok("dynamo_output_graph%s payload" % cid, "'# File: ... code:' comment",
                   "the source line of line 17")
    strlit = CN.tok("dynamo_output_graph%s payload" % cid, "string literal")
    graph = dynamo_graph(batch, layer, buf, fconst, "h = self.%s(x) * scale" % code1,
                         "h = torch.relu(h).masked_fill(h < 0, 0)  # %s" % code2, strlit, sym)
    size_key = CN.tok("dynamo_output_graph%s.sizes (JSON key)" % cid, "JSON object key",
                      "the sizes map keyed by node names")
    t.log("dynamo_output_graph", {"sizes": {"l_x_": [batch, 64], "%s_linear" % size_key: [batch, 64]}}, graph,
          src="torch/_dynamo/output_graph.py:1353")
    CN.dormant(size_key, "dynamo_output_graph.sizes is read by no page (spec: 'its sizes member is ignored')")

    t.chrome("backend_compile", "B", {"fn_name": "OutputGraph.call_user_compiler"})
    if fcid == 0:
        # AOT autograd: joint, forward, backward.
        jc = CN.tok("aot_joint_graph%s payload" % cid, "'# File: ... code:' comment")
        jf = CN.num("aot_joint_graph%s payload" % cid)
        t.log("aot_joint_graph", {}, aten_joint(batch, jf, "h = self.proj(x) + self.%s" % jc),
              src="torch/_functorch/_aot_autograd/dispatch_and_compile_graph.py:222")
    fc = CN.tok("aot_forward_graph%s payload" % cid, "'# File: ... code:' comment")
    ff = CN.num("aot_forward_graph%s payload" % cid)
    fw = aten_forward(batch, "class GraphModule(torch.nn.Module):", ff, "h = %s(x)" % fc, sym)
    t.log("aot_forward_graph", {}, fw, src="torch/_functorch/_aot_autograd/jit_compile_runtime_wrappers.py:398")
    bc = CN.tok("aot_backward_graph%s payload" % cid, "'# File: ... code:' comment")
    bf = CN.num("aot_backward_graph%s payload" % cid)
    t.log("aot_backward_graph", {}, aten_backward(batch, bf, "return h.%s()" % bc),
          src="torch/_functorch/_aot_autograd/jit_compile_runtime_wrappers.py:404")

    t.chrome("compile_fx_inner", "B", {"graph_kind": "forward"})
    pre_layer = CN.tok("inductor_pre_grad_graph%s payload" % cid, "part of identifiers (parameter names)")
    pre_buf = CN.tok("inductor_pre_grad_graph%s payload" % cid, "graph attribute name (get_attr)")
    pre_f = CN.num("inductor_pre_grad_graph%s payload" % cid)
    pre_c1 = CN.tok("inductor_pre_grad_graph%s payload" % cid, "'# File: ... code:' comment")
    pre_c2 = CN.tok("inductor_pre_grad_graph%s payload" % cid, "'# File: ... code:' comment")
    pre_s = CN.tok("inductor_pre_grad_graph%s payload" % cid, "string literal")
    t.log("inductor_pre_grad_graph", {},
          dynamo_graph(batch, pre_layer, pre_buf, pre_f, "h = self.%s(x)" % pre_c1, "h = %s(h)" % pre_c2, pre_s, sym),
          src="torch/_inductor/compile_fx.py:1730")
    pc = CN.tok("inductor_post_grad_graph%s payload" % cid, "'# File: ... code:' comment")
    pf = CN.num("inductor_post_grad_graph%s payload" % cid)
    t.log("inductor_post_grad_graph", {}, aten_forward(batch, "class <lambda>(torch.nn.Module):", pf,
                                                       "h = self.proj(%s)" % pc, sym),
          src="torch/_inductor/compile_fx.py:855")

    rc = CN.tok("artifact fx_graph_runnable%s (string)" % cid, "identifier (Repro module attribute)")
    rf = CN.num("artifact fx_graph_runnable%s (string)" % cid)
    rs = CN.tok("artifact fx_graph_runnable%s (string)" % cid, "string literal")
    t.artifact("fx_graph_runnable", "string", "\n".join([
        "import torch",
        "from torch import tensor, device",
        "import torch.fx as fx",
        "from torch._dynamo.testing import rand_strided",
        "",
        "from torch.nn import *",
        "class Repro(torch.nn.Module):",
        "    def __init__(self) -> None:",
        "        super().__init__()",
        "        self.register_buffer('%s', torch.zeros(64))" % rs,
        "",
        "    def forward(self, primals_1, %s_weight, primals_3):" % rc,
        "        permute = torch.ops.aten.permute.default(%s_weight, [1, 0])" % rc,
        "        mm = torch.ops.aten.mm.default(primals_1, permute)",
        "        mul = torch.ops.aten.mul.Tensor(mm, %s)" % rf,
        "        return (mul,)",
        "",
        "def load_args(reader):",
        "    buf0 = reader.storage(None, %d, device=device(type='cuda', index=0))" % (batch * 256),
        "    reader.tensor(buf0, (%d, 64), is_leaf=True)  # primals_1" % batch,
        "load_args._version = 0",
        "mod = Repro()",
    ]))

    t.chrome("code_gen", "B", {"fn_name": "GraphLowering.compile_to_module"})
    on = CN.tok("inductor_output_code%s payload" % cid, "source node name in a comment")
    of = CN.num("inductor_output_code%s payload" % cid)
    os_ = CN.tok("inductor_output_code%s payload" % cid, "string literal")
    oc = CN.tok("inductor_output_code%s payload" % cid, "comment quoting the source line")
    stem = ["q3wkxd5ulzgjyc2mxqovbqsxrgtpbz6e2jjv7ivnuu4i2p4iezs", "w7nkc4tkm2l5bjvnxhqzy3bapkl6cqyhwcpzqxkquv5vnmcr5dhp",
            "bzd6lqtu3pv2yq7rcgk2a5s4ohwcmcwhn6xjzkpt4l2nq5ydmrj"][fcid]
    kpath = "/tmp/torchinductor_user/%s/c%s.py" % (stem[:2], stem)
    t.log("inductor_output_code", {"filename": kpath},
          output_code(label, "triton_poi_fused_addmm_mul_relu_0", "%s_linear" % on, of, os_,
                      "h = self.%s(x)" % oc, batch),
          src="torch/_inductor/graph.py:1985")
    t.chrome("code_gen", "E", {})

    kc = CN.tok("artifact fx_graph_cache_miss%s (json) components" % cid, "identifier in a cache key component")
    kk = CN.tok("artifact fx_graph_cache_miss%s (json) components" % cid, "string literal in a cache key component")
    t.artifact("fx_graph_cache_miss", "json", json.dumps({
        "key": "fq3wkxd5ulzgjyc2mxqovbqsxrgtpbz6e2jjv7ivnuu4i2p4iez%d" % fcid,
        "components": [
            "[dsz2m5yoqpyb4mnxxdbn3wf4bvutqyjtdbbtbxrmlpsdwbtjx7h] gm: GraphModule()\n\n\n\n"
            "def forward(self, primals_1, %s_weight):\n    mm = torch.ops.aten.mm.default(primals_1, %s_weight)\n"
            "    return (mm,)\n" % (kc, kc),
            "[e4t5gn3zknrrr3jzmosp6kxhmnhwvvnzm7rbn5egxf5ufhfk4xqo] example_inputs[0]: TensorMetadata("
            "dtype=torch.float32, shape=torch.Size([%d, 64]), stride=(64, 1), device=device(type='cuda', index=0))" % batch,
            "[ksf3e6hvcm7wbf2c7ygwaysmjozjwowmbxnxkqdnkj3ha4d7vj5m] fx_kwargs[user_visible_outputs]: {'%s': None}" % kk,
        ],
        "cache_event_time": 1733825700123456789,
        "cache_state": "miss",
        "time_taken_ns": 2718281,
    }))
    ak = CN.tok("artifact aotautograd_cache_hash%s (json) components" % cid, "string literal (LocalSource local_name)")
    t.artifact("aotautograd_cache_hash", "json", json.dumps({
        "key": "aq3wkxd5ulzgjyc2mxqovbqsxrgtpbz6e2jjv7ivnuu4i2p4iez%d" % fcid,
        "cache_state": "miss",
        "components": ["[v4g7kkf4a6ahh5qaccmi4yvqmdtxqjcdrq4mhvbh5nuemgsbbzka] aot_config: (0, True, False, False, "
                       "False, [LocalSource(local_name='%s', is_input=True)], True, False)" % ak,
                       "[qgqm3g2dwf5pekzfduj7i67o4jg6pw7dl6dhshoctucmtbbe4uol] grad_enabled: True"],
        "compile_id": label,
    }), src="torch/_functorch/_aot_autograd/autograd_cache.py:763")
    t.chrome("compile_fx_inner", "E", {"cache_state": "miss"})

    if fcid == 0:
        # Custom artifacts: a JSON one with user keys, a string one with free text.
        j1 = CN.tok("artifact user_model_config%s (json) key" % cid, "JSON object key")
        j2 = CN.tok("artifact user_model_config%s (json) nested key" % cid, "JSON object key (part of)")
        j3 = CN.tok("artifact user_model_config%s (json) value" % cid, "JSON string value")
        j4 = CN.tok("artifact user_model_config%s (json) list value" % cid, "JSON string in a list")
        j5 = CN.tok("artifact user_model_config%s (json) key" % cid, "JSON key written \\u0063-escaped in the payload")
        j6 = CN.num("artifact user_model_config%s (json) number" % cid, "a JSON number value: lr")
        CN.ambiguous(j6, "a number in a JSON artifact may be a metric (kept) or a constant of the user's (removed)")
        j7 = CN.uni("artifact user_model_config%s (json) value" % cid, "JSON string value", prefix="\u6a21\u578b")
        cfg = json.dumps({j1: {"hidden": 64, "%s_dropout" % j2: "p=%s" % j3},
                          "layers": ["proj", j4], "depth": 3, "ESC_" + j5: 1, "lr": float(j6), "lang": j7},
                         ensure_ascii=False)
        cfg = cfg.replace("ESC_" + j5, "\\u0063" + j5[1:])
        t.artifact("user_model_config", "json", cfg, src="torch/_logging/structured.py:170")
        an = CN.tok("artifact name (custom artifact)", "part of an artifact's name")
        CN.ambiguous(an, "artifact names are chosen by the code that logs them; the issue does not say")
        t.artifact("%s_stats" % an, "string", "rows: 1024", src="torch/_logging/structured.py:170")
        s1 = CN.tok("artifact user_notes%s (string)" % cid, "free text")
        t.artifact("user_notes", "string", "Compiled the %s model with mode='max-autotune' for batch %d."
                   % (s1, batch), src="torch/_logging/structured.py:170")
        # Provenance artifacts (-i): node mappings keyed by node names, kernel stack traces.
        n1 = CN.tok("artifact inductor_provenance_tracking_node_mappings%s (json) keys and values" % cid,
                    "JSON object key / node name")
        t.artifact("inductor_provenance_tracking_node_mappings", "json", json.dumps({
            "preToPost": {"%s_linear" % n1: ["mm", "add"], "relu": ["relu"]},
            "postToPre": {"mm": ["%s_linear" % n1], "add": ["%s_linear" % n1], "relu": ["relu"]},
            "cppCodeToPost": {"triton_poi_fused_addmm_mul_relu_0": ["add", "mul", "relu"]},
            "postToCppCode": {"add": ["triton_poi_fused_addmm_mul_relu_0"], "mul": ["triton_poi_fused_addmm_mul_relu_0"],
                              "relu": ["triton_poi_fused_addmm_mul_relu_0"]}}))
        n2 = CN.tok("artifact inductor_provenance_tracking_kernel_stack_traces%s (json) traceback code line" % cid,
                    "source line in a traceback")
        t.artifact("inductor_provenance_tracking_kernel_stack_traces", "json", json.dumps({
            "triton_poi_fused_addmm_mul_relu_0": [
                '  File "%s", line %d, in forward\n    h = self.%s(x)\n' % (USER, L_FWD_BODY, n2)],
            "extern_kernels.mm": ['  File "%s", line %d, in forward\n    h = self.proj(x)\n' % (USER, L_FWD_BODY)]}))
        b1 = CN.tok("artifact before_pre_grad_graph%s (string)" % cid, "part of identifiers")
        t.artifact("before_pre_grad_graph", "string", "\n".join([
            "class GraphModule(torch.nn.Module):",
            "    def forward(self, L_x_: %s):" % tt([batch, 64], [64, 1]),
            "        l_x_ = L_x_",
            "        %s_linear = torch._C._nn.linear(l_x_, self.%s_weight)" % (b1, b1),
            "        relu = torch.relu(%s_linear)" % b1,
            "        return (relu,)",
            "",
            "# graph id: 140213376384016"]))
        a1 = CN.tok("artifact after_post_grad_graph%s (string)" % cid, "part of identifiers")
        t.artifact("after_post_grad_graph", "string", "\n".join([
            "class <lambda>(torch.nn.Module):",
            "    def forward(self, primals_1: %s, primals_2: %s):" % (tt([batch, 64], [64, 1]), tt([64, 64], [64, 1])),
            "        %s_mm = torch.ops.aten.mm.default(primals_1, primals_2)" % a1,
            "        relu = torch.ops.aten.relu.default(%s_mm)" % a1,
            "        return (relu,)"]))

        # Distributed, compiled autograd and graph dumps.
        d1 = CN.tok("optimize_ddp_split_graph%s payload" % cid, "part of identifiers")
        t.log("optimize_ddp_split_graph", {}, "\n".join([
            "class GraphModule(torch.nn.Module):",
            "    def forward(self, L_x_: %s):" % tt([batch, 64], [64, 1]),
            "        submod_0 = self.submod_0(L_x_, self.%s_weight);  L_x_ = None" % d1,
            "        return (submod_0,)"]), src="torch/_dynamo/backends/distributed.py:604")
        d2 = CN.tok("optimize_ddp_split_child%s payload" % cid, "part of identifiers")
        t.log("optimize_ddp_split_child", {"name": "submod_0"}, "\n".join([
            "class GraphModule(torch.nn.Module):",
            "    def forward(self, l_x_: %s, %s_weight: %s):" % (tt([batch, 64], [64, 1]), d2, tt([64, 64], [64, 1])),
            "        linear = torch._C._nn.linear(l_x_, %s_weight);  l_x_ = None" % d2,
            "        return (linear,)"]), src="torch/_dynamo/backends/distributed.py:612")
        g1 = CN.tok("graph_dump%s payload" % cid, "part of identifiers")
        g2 = CN.num("graph_dump%s payload" % cid)
        t.log("graph_dump", {"name": "pre_grad_passes"}, "\n".join([
            "graph():",
            "    %%l_x_ : [num_users=1] = placeholder[target=L_x_]",
            "    %%%s_w : [num_users=1] = get_attr[target=%s_w]" % (g1, g1),
            "    %%mm : [num_users=1] = call_function[target=torch.ops.aten.mm.default](args = (%%l_x_, %%%s_w), kwargs = {})" % g1,
            "    %%mul : [num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%%mm, %s), kwargs = {})" % g2,
            "    return (mul,)"]), src="torch/_inductor/fx_passes/pre_grad.py:290")

        # Files dynamo dumped: an eval_with_key module (a stack frame points into it) and a user helper.
        e1 = CN.tok("dump_file <eval_with_key>.3 content", "identifier in a dumped source file")
        e2 = CN.num("dump_file <eval_with_key>.3 content")
        t.log("dump_file", {"name": "<eval_with_key>.3"}, "\n".join([
            "",
            "",
            "",
            "def forward(self, primals_1, %s_weight):" % e1,
            "    mm = torch.ops.aten.mm.default(primals_1, %s_weight)" % e1,
            "    mul = torch.ops.aten.mul.Tensor(mm, %s)" % e2,
            "    return (mul,)",
            "    "]), src="torch/fx/graph_module.py:322")
        e3 = CN.tok("dump_file helpers.py content", "string literal in a dumped source file")
        e4 = CN.tok("dump_file helpers.py content", "comment in a dumped source file")
        t.log("dump_file", {"name": "helpers.py"}, "\n".join([
            "import torch",
            "",
            "SECRET_DATASET = '%s'  # %s" % (e3, e4),
            "",
            "def scale(x):",
            "    return x * 2"]), src="torch/_dynamo/convert_frame.py:781")

        # A link from the run.
        l1 = CN.tok("link%s.name" % cid, "free text (link name)")
        l2 = CN.tok("link%s.url" % cid, "URL path component")
        t.log("link", {"name": "%s dashboard" % l1, "url": "https://example.com/runs/%s/profile.json" % l2},
              src="torch/_inductor/compile_fx.py:899")
        l3 = CN.tok("link%s.url (second link)" % cid, "percent-encoded in a URL query (%63nry...)")
        t.log("link", {"name": "trace", "url": "https://example.com/trace?model=%%63%s&v=2" % l3[1:]},
              src="torch/_inductor/compile_fx.py:899")

        # The compiled autograd graph of the backward.
        ca = CN.tok("compiled_autograd_graph%s payload" % cid, "'# File: ... code:' comment")
        t.log("compiled_autograd_graph", {}, "\n".join([
            "class CompiledAutograd0(torch.nn.Module):",
            "    def forward(self, inputs, sizes, scalars, hooks):",
            "        getitem = inputs[0]",
            "        getitem_1 = inputs[1];  inputs = None",
            file_comment(L_FWD_ACT, "forward", "loss = %s(h).sum()" % ca),
            "        threshold_backward = torch.ops.aten.threshold_backward.default(getitem, getitem_1, 0)",
            "        return [threshold_backward]"]), src="torch/_dynamo/compiled_autograd.py:1050")

    t.chrome("backend_compile", "E", {})
    g_attr = CN.tok("dynamo_guards%s payload code" % cid, "attribute name in guard code")
    g_attr2 = CN.tok("dynamo_guards%s payload code" % cid, "attribute name in guard code")
    g_str = CN.tok("dynamo_guards%s payload code" % cid, "string literal in guard code")
    g_loc = CN.tok("dynamo_guards%s payload [last].user_stack[0].loc" % cid, "attribute in a source line")
    g_f = CN.num("dynamo_guards%s payload code" % cid, "EQUALS_MATCH on a float attribute")
    g_glob = CN.tok("dynamo_guards%s payload code" % cid, "a global's name: G['<name>']")
    g_esc = CN.tok("dynamo_guards%s payload code" % cid, "written \\u0063-escaped in the payload's JSON text")
    g_uni = CN.uni("dynamo_guards%s payload code" % cid, "string literal in guard code", prefix="\u6a21\u578b")
    size = "None, 64" if dynamic else "%d, 64" % batch
    codes = [
        "utils_device.CURRENT_DEVICE == None",
        "___check_global_state()",
        "___check_type_id(L['self'], 94318405671952)",
        "___check_obj_id(L['self'].%s, 140213376384016)" % g_attr,
        "L['self'].%s.training == True" % g_attr2,
        "L['self'].mode == '%s'" % g_str,
        "L['self'].scale == %s" % g_f,
        "___check_obj_id(G['%s'], 140213376385000)" % g_glob,
        "L['self'].tag == 'ESCAPED_%s'" % g_esc,
        "L['self'].lang == '%s'" % g_uni,
        "check_tensor(L['x'], Tensor, DispatchKeySet(CUDA, BackendSelect, ADInplaceOrView, AutogradCUDA), "
        "torch.float32, device=0, requires_grad=False, size=[%s], stride=[64, 1])" % size,
        "hasattr(L['x'], '_dynamo_dynamic_indices') == %s" % dynamic,
    ]
    if dynamic:
        codes.append("2 <= L['x'].size()[0]")
    gp = guards_payload(t, codes, g_loc).replace("ESCAPED_" + g_esc, "\\u0063" + g_esc[1:])
    assert ("\\u0063" + g_esc[1:]) in gp
    t.log("dynamo_guards", {}, gp, src="torch/_dynamo/guards.py:2615")
    cg1 = CN.tok("dynamo_cpp_guards_str%s payload" % cid, "attribute name in a guard tree source")
    cg2 = CN.tok("dynamo_cpp_guards_str%s payload" % cid, "string literal in a guard tree")
    t.log("dynamo_cpp_guards_str", {}, "\n".join([
        "",
        "TREE_GUARD_MANAGER:",
        "+- RootGuardManager",
        "| +- DEFAULT_DEVICE: utils_device.CURRENT_DEVICE == None",
        "| +- GLOBAL_STATE: ___check_global_state()",
        "| +- GuardManager: source=L['self'], accessed_by=FrameLocalsGuardAccessor(key='self', framelocals_idx=0)",
        "| | +- TYPE_MATCH: ___check_type_id(L['self'], 94318405671952)",
        "| | +- GuardManager: source=L['self'].%s, accessed_by=GetAttrGuardAccessor(%s)" % (cg1, cg1),
        "| | | +- ID_MATCH: ___check_obj_id(L['self'].%s, 140213376384016)" % cg1,
        "| | +- EQUALS_MATCH: L['self'].mode == '%s'" % cg2,
        "| +- GuardManager: source=L['x'], accessed_by=FrameLocalsGuardAccessor(key='x', framelocals_idx=1)",
        "| | +- TENSOR_MATCH: check_tensor(L['x'], Tensor, DispatchKeySet(CUDA, BackendSelect, ADInplaceOrView, "
        "AutogradCUDA), torch.float32, device=0, requires_grad=False, size=[%s], stride=[64, 1])" % size,
    ]), src="torch/_dynamo/guards.py:2580")

    t.chrome("entire_frame_compile", "E", {})
    metrics = {
        "co_name": "forward", "co_filename": USER, "co_firstlineno": L_FORWARD,
        "cache_size": fcid, "accumulated_cache_size": fcid, "guard_count": len(codes),
        "shape_env_guard_count": 2 if dynamic else 0, "graph_op_count": 20, "graph_node_count": 35,
        "graph_input_count": 3, "start_time": 1733825700.25 + fcid,
        "entire_frame_compile_time_s": 2.718281 if fcid == 0 else 1.618033,
        "backend_compile_time_s": 1.414213, "inductor_compile_time_s": 1.105, "code_gen_time_s": 0.4375,
        "fail_type": None, "fail_reason": None, "fail_user_frame_filename": None, "fail_user_frame_lineno": None,
        "non_compliant_ops": [], "compliant_custom_ops": ["mylib::fused_gate"], "restart_reasons": [],
        "dynamo_time_before_restart_s": 0.0, "has_guarded_code": True, "config_suppress_errors": False,
    }
    if fcid == 2:
        rr = CN.tok("compilation_metrics%s.recompile_reason" % cid, "identifier in a guard failure")
        rl = CN.tok("compilation_metrics%s.recompile_reason" % cid, "string literal in a guard failure")
        metrics["recompile_reason"] = "0/1: L['self'].%s.mode == '%s'" % (rr, rl)
    t.log("compilation_metrics", metrics, src="torch/_dynamo/utils.py:1161")
    dyn_fr = CN.tok("chromium_event dynamo E%s args.fail_reason" % cid, "free text quoting code")
    dyn_cfg = CN.tok("chromium_event dynamo E%s args.dynamo_config" % cid, "JSON key inside a string arg")
    dyn_key = CN.tok("chromium_event dynamo E%s args (key)" % cid, "chromium arg key")
    if fcid == 0:
        ch_name = CN.tok("chromium_event (instant)%s.name" % cid, "part of an event name")
        CN.ambiguous(ch_name, "event names come from the code that logs them (PyTorch's, or a user region)")
        ch_esc = CN.tok("chromium_event (instant)%s.args.note" % cid, "written \\u0063-escaped in the event's JSON")
        ev = {"name": "%s_region" % ch_name, "ts": t.EPOCH_US + t.now + 0.25, "ph": "i", "s": "p",
              "cat": "dynamo_timed", "tid": 0, "pid": 0,
              "args": {"compile_id": t.cid_str(), "note": "ESC_" + ch_esc}}
        evs = json.dumps(ev, indent=0).replace("ESC_" + ch_esc, "\\u0063" + ch_esc[1:])
        t.log("chromium_event", {}, evs, src="torch/_dynamo/utils.py:1320")
    t.chrome("dynamo", "E", {
        "co_name": "forward", "co_filename": USER, "co_firstlineno": L_FORWARD, "graph_node_count": 35,
        "fail_reason": "none (last checked: self.%s(x))" % dyn_fr,
        "dynamo_config": json.dumps({"%s_flag" % dyn_cfg: True, "cache_size_limit": 8}),
        "%s_user_tag" % dyn_key: "run-1"})


BREAK_TEMPLATE = ("Graph break due to unsupported builtin {ext}._C.scale_kernel. This function is either a "
                  "Python builtin (e.g. _warnings.warn) or a third-party C/C++ Python extension (perhaps "
                  "created with pybind). If it is a third-party C/C++ Python extension, please either wrap it "
                  "into a PyTorch-understood custom operator or, if it is traceable, use "
                  "torch.compiler.allow_in_graph.\n"
                  "  File \"" + USER + "\", line 23, in attention_block\n"
                  "    weights = {ext}.scale(weights, \"{lit}\")\n")


def compile_attention(t):
    """Frame 1, attention_block: a graph break restarts it ([1/0]); attempt 1 ([1/0_1]) fails."""
    t.set_compile(1, 0, 0)
    cid = "[1/0]"
    t.chrome("dynamo", "B", {})
    c1 = CN.tok("dynamo_start%s.stack[0].loc" % cid, "call argument in a source line")
    c2 = CN.tok("dynamo_start%s.stack[1].loc" % cid, "identifier in a source line")
    c3 = CN.tok("dynamo_start%s.stack[2].loc" % cid, "identifier in a source line")
    stack = [
        t.frame(USER, L_MODULE, "<module>", "main(config=%s)" % c1),
        t.frame(USER, L_MAIN_STEP, "main", "loss = train_step(model, opt, x, %s_q, k, v)" % c2),
        t.frame(USER, L_TRAIN_ATTN, "train_step", "a = attention_block(q, k, %s)" % c3),
        t.frame(torch_file("_dynamo/eval_frame.py"), 573, "_fn", "return fn(*args, **kwargs)"),
    ] + convert_frame_suffix(t)
    t.log("dynamo_start", {"stack": stack}, src="torch/_dynamo/convert_frame.py:1026")
    t.chrome("entire_frame_compile", "B", {"fn_name": "_compile.compile_inner"})
    src_c = CN.tok("describe_source%s.source" % cid, "identifier in a source expression")
    describe_input(t, 50, src_c, [4, 128])
    CN.dormant(src_c, "describe_source is validated only: no page shows it")
    cjk = CN.uni("compilation_metrics%s.restart_reasons[1]" % cid, "free text", prefix="\u6a21\u578b")
    ext = CN.tok("compilation_metrics%s.restart_reasons[0]" % cid, "module name in free text")
    lit = CN.tok("compilation_metrics%s.restart_reasons[0]" % cid, "string literal in a quoted source line")
    t.log("compilation_metrics", {
        "co_name": "attention_block", "co_filename": USER, "co_firstlineno": L_ATTN, "cache_size": 0,
        "accumulated_cache_size": 0, "guard_count": None, "graph_op_count": 5, "graph_node_count": 9,
        "graph_input_count": 3, "start_time": 1733825703.5, "entire_frame_compile_time_s": 0.125,
        "restart_reasons": [BREAK_TEMPLATE.format(ext=ext, lit=lit),
                            "Unsupported: call_method UserDefinedObjectVariable(%s) __call__ [] {}" % cjk],
        "dynamo_time_before_restart_s": 0.125,
        "has_guarded_code": False, "non_compliant_ops": [], "compliant_custom_ops": []},
        src="torch/_dynamo/utils.py:1161")

    t.set_compile(1, 0, 1)
    cid = "[1/0_1]"
    og = CN.tok("dynamo_output_graph%s payload" % cid, "identifier (node name)")
    oc = CN.tok("dynamo_output_graph%s payload" % cid, "'# File: ... code:' comment")
    of = CN.num("dynamo_output_graph%s payload" % cid)
    ox = CN.exp("dynamo_output_graph%s payload" % cid)
    oq = CN.tok("dynamo_output_graph%s payload" % cid, "inside a string literal with escaped quotes")
    osh = CN.tok("dynamo_output_graph%s payload" % cid, "inside a string literal that starts like a shape")
    ou = CN.uni("dynamo_output_graph%s payload" % cid, "identifier (node name)")
    qkv = tt([4, 128, 32], [4096, 32, 1])
    sc = tt([4, 128, 128], [16384, 128, 1])
    t.log("dynamo_output_graph", {"sizes": {"l_q_": [4, 128, 32]}}, "\n".join([
        "class GraphModule(torch.nn.Module):",
        "    def forward(self, L_q_: %s, L_k_: %s):" % (qkv, qkv),
        "        l_q_ = L_q_",
        "        l_k_ = L_k_",
        "",
        file_comment(L_ATTN_SCORES, "attention_block", "scores = q @ k.transpose(-2, -1) * %s" % oc),
        "        transpose: %s = l_k_.transpose(-2, -1);  l_k_ = None" % tt([4, 32, 128], [4096, 1, 32]),
        "        %s: %s = torch.matmul(l_q_, transpose);  l_q_ = transpose = None" % (og, sc),
        "        scores: %s = %s * %s;  %s = None" % (sc, og, of, og),
        "        %s: %s = scores + %s;  scores = None" % (ou, sc, ox),
        "        _assert = torch._assert(%s.isfinite().all(), \"say \\\"%s\\\" twice\");  _assert = None" % (ou, oq),
        "        _check = torch._check(%s.dim() == 3, lambda: 'f32[4, 128] %s')" % (ou, osh),
        "        return (%s,)" % ou]), src="torch/_dynamo/output_graph.py:1353")
    t.chrome("backend_compile", "B", {"fn_name": "OutputGraph.call_user_compiler"})
    ic = CN.tok("aot_inference_graph%s payload" % cid, "'# File: ... code:' comment")
    t.log("aot_inference_graph", {}, "\n".join([
        "class GraphModule(torch.nn.Module):",
        "    def forward(self, arg0_1: %s, arg1_1: %s):" % (qkv, qkv),
        file_comment(L_ATTN_SCORES, "attention_block", "scores = %s(q, k)" % ic),
        "        permute: %s = torch.ops.aten.permute.default(arg1_1, [0, 2, 1]);  arg1_1 = None" % tt([4, 32, 128], [4096, 1, 32]),
        "        bmm: %s = torch.ops.aten.bmm.default(arg0_1, permute);  arg0_1 = permute = None" % sc,
        "        relu: %s = torch.ops.aten.relu.default(bmm);  bmm = None" % sc,
        "        return (relu,)"]), src="torch/_functorch/_aot_autograd/dispatch_and_compile_graph.py:205")
    ec = CN.tok("artifact dynamo_error%s (string)" % cid, "source line in a traceback")
    ek = CN.tok("artifact dynamo_error%s (string)" % cid, "identifier in the exception message")
    t.artifact("dynamo_error", "string", "\n".join([
        "Traceback (most recent call last):",
        '  File "%s_dynamo/output_graph.py", line 1446, in _call_user_compiler' % TORCH,
        "    compiled_fn = compiler_fn(gm, self.example_inputs())",
        '  File "%s", line %d, in attention_block' % (USER, L_ATTN_OUT),
        "    out = torch.matmul(%s, v)" % ec,
        "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:",
        "RuntimeError: shape mismatch in node %s" % ek,
    ]), src="torch/_dynamo/convert_frame.py:1078")
    t.chrome("backend_compile", "E", {})
    cop = CN.tok("compilation_metrics%s.non_compliant_ops[1]" % cid, "a custom op's name")
    CN.ambiguous(cop, "op names are kept by the issue; a user library's op name is one")
    fr1 = CN.tok("compilation_metrics%s.fail_reason" % cid, "identifier in the failure message")
    fr2 = CN.tok("compilation_metrics%s.fail_reason" % cid, "source line quoted in the failure")
    t.log("compilation_metrics", {
        "co_name": "attention_block", "co_filename": USER, "co_firstlineno": L_ATTN, "cache_size": 0,
        "accumulated_cache_size": 0, "guard_count": None, "graph_op_count": 3, "graph_node_count": 6,
        "graph_input_count": 2, "start_time": 1733825703.75, "entire_frame_compile_time_s": 0.875,
        "backend_compile_time_s": 0.75, "fail_type": "BackendCompilerFailed",
        "fail_reason": "backend='inductor' raised:\nRuntimeError: shape mismatch in node %s\n\n"
                       "While executing %%%s : call_function[target=torch.ops.aten.bmm.default]\n"
                       "Original traceback:\n  File \"%s\", line %d, in attention_block\n    out = torch.matmul(%s, v)\n"
                       % (fr1, fr1, USER, L_ATTN_OUT, fr2),
        "fail_user_frame_filename": USER, "fail_user_frame_lineno": L_ATTN_OUT, "restart_reasons": [],
        "dynamo_time_before_restart_s": 0.125, "has_guarded_code": False,
        "non_compliant_ops": ["mylib::fused_gate", "mylib::%s" % cop], "compliant_custom_ops": []},
        src="torch/_dynamo/utils.py:1161")
    t.chrome("entire_frame_compile", "E", {})
    t.chrome("dynamo", "E", {})


def backward_of_forward(t):
    """[0/0]'s lazy backward: metrics of the backward compile, one failing in AOT autograd."""
    t.set_compile(0, 0)
    cid = "[0/0]"
    bf = CN.tok("bwd_compilation_metrics%s.fail_reason" % cid, "identifier in the failure message")
    bp = CN.tok("bwd_compilation_metrics%s.fail_reason" % cid, "a data file's path in the failure message")
    t.log("bwd_compilation_metrics", {
        "compile_id": "0/0", "inductor_compile_time_s": 0.3125, "code_gen_time_s": 0.0625,
        "fail_type": "InductorError", "fail_reason": "LoweringException: no lowering for %s_backward (weights from /data/%s/ckpt.bin)" % (bf, bp),
        "remote_cache_time_saved_s": None, "is_forward": False}, src="torch/_dynamo/utils.py:1171")
    af = CN.tok("aot_autograd_backward_compilation_metrics%s.fail_reason" % cid, "free text quoting code")
    t.log("aot_autograd_backward_compilation_metrics", {
        "start_time": 1733825704.5, "elapsed_time": 0.25, "fail_type": "RuntimeError",
        "fail_reason": "element 0 of tensors does not require grad (in %s.backward())" % af},
        src="torch/_functorch/_aot_autograd/runtime_wrappers.py:2034")


def export_records(t):
    """torch.export's shape records (no compile id): guards, data-dependent conditions,
    unbacked symbols, fake-kernel problems, and the exported program."""
    cid = "(export)"
    c = lambda field, form, note="": CN.tok(field + cid, form, note)  # noqa: E731
    u1 = c("create_unbacked_symbol.user_stack[0].loc", "identifier in a source line")
    t.log("create_unbacked_symbol", {
        "symbol": "u0", "node_id": 11, "vr": "[-int_oo, int_oo]",
        "user_stack": [t.frame(USER, L_FWD_BODY, "forward", "n = %s.item()" % u1)],
        "stack": framework_stack(t)}, src="torch/_logging/_internal.py:1305", cid=False)
    x1 = c("expression_created.user_stack[0].loc", "identifier in a source line")
    t.log("expression_created", {
        "method": "lt", "result": "u0 < 10", "result_id": 12, "arguments": ["u0", "10"],
        "argument_ids": [11, 13],
        "user_stack": [t.frame(USER, L_FWD_ACT, "forward", "y = torch.zeros(%s)" % x1)],
        "stack": framework_stack(t)}, src="torch/_logging/_internal.py:1305", cid=False)
    p1 = c("propagate_real_tensors_provenance.user_stack[0].loc", "identifier in a source line")
    p2 = c("propagate_real_tensors_provenance.frame_locals.loc", "source line")
    p3 = c("propagate_real_tensors_provenance.frame_locals.locals (key)", "JSON object key (local variable name)")
    p4 = c("propagate_real_tensors_provenance.frame_locals.locals (value)", "JSON string value")
    p5 = c("propagate_real_tensors_provenance.symbol_to_sources (value)", "identifier in a source")
    t.log("propagate_real_tensors_provenance", {
        "expr": "u0 < s0", "result": "True", "expr_node_id": 12,
        "user_stack": [t.frame(USER, L_FWD_ACT, "forward", "y = torch.zeros(%s)" % p1)],
        "stack": framework_stack(t),
        "symbol_to_sources": {"s0": "L['%s'].size()[0]" % p5},
        "frame_locals": {"loc": "if %s.sum() > 0:" % p2, "locals": {p3: "u0", "n": "Tensor(%s)" % p4},
                         "symbols": {"u0": "n.item()"}}}, src="torch/_logging/_internal.py:1305", cid=False)
    g1 = c("guard_added.user_stack[0].loc", "identifier in a source line")
    g2 = c("guard_added.symbol_to_sources (value)", "identifier in a source")
    g3 = c("guard_added.frame_locals.locals (key)", "JSON object key (local variable name)")
    g4 = c("guard_added.frame_locals.symbols (value)", "identifier in a source")
    g5 = c("guard_added.frame_locals.loc", "source line")
    t.log("guard_added", {
        "expr": "Eq(s0, 4)", "prefix": "eval", "expr_node_id": 14, "result": "True",
        "user_stack": [t.frame(USER, L_FWD_BODY, "forward", "if %s.shape[0] == 4:" % g1)],
        "stack": framework_stack(t),
        "symbol_to_sources": {"s0": "L['%s'].size()[0]" % g2},
        "frame_locals": {"loc": "if x.shape[0] == 4:  # %s" % g5,
                         "locals": {g3: "Tensor(shape: torch.Size([s0]))"},
                         "symbols": {"s0": "L['%s'].size()[0]" % g4}}},
        src="torch/_logging/_internal.py:1305", cid=False)
    CN.dormant(g5, "frame_locals.loc is shown only when the record has no user_stack (see the next one)")
    CN.dormant(p2, "frame_locals.loc is shown only when the record has no user_stack")
    # an older guard_added (no prefix) without a user stack: its frame_locals.loc says where
    g6 = c("guard_added (no prefix, no user_stack).frame_locals.loc", "source line")
    t.log("guard_added", {
        "expr": "Eq(s1, 64)", "expr_node_id": 15, "result": "True",
        "stack": framework_stack(t),
        "symbol_to_sources": {"s1": "L['x'].size()[1]"},
        "frame_locals": {"loc": "h = h.view(-1, %s.hidden)" % g6, "locals": {}, "symbols": {}}},
        src="torch/_logging/_internal.py:1305", cid=False)
    m1 = c("missing_fake_kernel.reason", "free text")
    t.log("missing_fake_kernel", {"op": "mylib.fused_gate.default",
                                  "reason": "no fake impl or Meta kernel registered (called from %s)" % m1},
          src="torch/_logging/_internal.py:1305", cid=False)
    m2 = c("mismatched_fake_kernel.reason", "free text")
    t.log("mismatched_fake_kernel", {"op": "mylib.fused_gate.default",
                                     "reason": "Shapes torch.Size([3]) and torch.Size([4]) are not equal for %s" % m2},
          src="torch/_logging/_internal.py:1305", cid=False)
    e1 = c("exported_program payload", "part of identifiers")
    e2 = CN.num("exported_program payload" + cid)
    t.log("exported_program", {}, "\n".join([
        "ExportedProgram:",
        "    class GraphModule(torch.nn.Module):",
        "        def forward(self, p_%s_weight: \"f32[64, 64]\", x: \"f32[32, 64]\"):" % e1,
        "            mm: \"f32[32, 64]\" = torch.ops.aten.mm.default(x, p_%s_weight);  x = None" % e1,
        "            mul: \"f32[32, 64]\" = torch.ops.aten.mul.Tensor(mm, %s);  mm = None" % e2,
        "            return (mul,)",
        "",
        "Graph signature:",
        "    # inputs",
        "    p_%s_weight: PARAMETER target='%s.weight'" % (e1, e1),
        "    x: USER_INPUT",
        "Range constraints: {}"]), src="torch/export/_trace.py:1097", cid=False)


def odds_and_ends(t):
    """An entry made outside any compile (unknown stacks), a newer record kind tlparse does
    not know, with a payload (kept as payloads/<md5>.txt), and create_symbol."""
    u1 = CN.tok("unknown stack (top-level stack)[0].loc", "identifier in a source line")
    u2 = CN.tok("unknown stack (top-level stack)[1].loc (uninterned_filename frame)", "identifier in a source line")
    t.emit({"stack": [t.frame(USER, L_MAIN, "main", "model = Model(%s)" % u1),
                      {"line": 7, "name": "build", "filename": t.intern(UTIL), "uninterned_filename": UTIL,
                       "loc": "return torch.load(%s_path)" % u2}],
            "describe_storage": {"id": 99, "describer_id": 1, "size": 16}}, src="torch/_subclasses/meta_utils.py:233")
    k1 = CN.tok("future_kind (unknown envelope kind) payload", "source line in an unknown payload")
    k2 = CN.tok("future_kind (unknown envelope kind).note", "free text in an unknown record")
    t.set_compile(0, 0)
    t.log("future_kind", {"note": "seen %s" % k2}, "x = self.%s(x)\nreturn x" % k1,
          src="torch/_logging/structured.py:170")
    CN.dormant(k2, "fields of an unknown envelope kind go only to raw.jsonl")
    s1 = CN.tok("create_symbol.source", "identifier in a source")
    s2 = CN.tok("create_symbol.user_stack[0].loc", "identifier in a source line")
    t.log("create_symbol", {"symbol": "s0", "val": "32", "vr": "[2, int_oo]", "source": "L['%s'].size()[0]" % s1,
                            "user_stack": [t.frame(USER, L_FWD_BODY, "forward", "h = self.%s(x)" % s2)],
                            "stack": framework_stack(t)},
          src="torch/fx/experimental/symbolic_shapes.py:4412")
    CN.dormant(s1, "create_symbol is not read by the trace report (only raw.jsonl)")
    CN.dormant(s2, "create_symbol is not read by the trace report (only raw.jsonl)")


def build():
    t = Log()
    compile_forward(t, 0, 32, L_MAIN_STEP, dynamic=False)
    compile_attention(t)
    backward_of_forward(t)
    compile_forward(t, 1, 48, L_MAIN_STEP2, dynamic=True)
    compile_forward(t, 2, 48, L_MAIN_STEP2, dynamic=True)
    export_records(t)
    odds_and_ends(t)
    return "".join(t.out)


STRUCTURE = {
    # what a redacted report must still show (tests/redact_check.py); regexes over the bundle
    "user_file": USER,
    "user_files": [USER, UTIL],
    "functions": ["forward", "attention_block", "train_step", "main"],
    "frames": [":%d in forward" % L_FORWARD, ":%d in attention_block" % L_ATTN,
               ":%d in train_step" % L_TRAIN_FWD, ":%d in main" % L_MAIN_STEP],
    "compile_ids": ["[0/0]", "[0/1]", "[0/2]", "[1/0]", "[1/0_1]"],
    "fail_types": ["BackendCompilerFailed", "InductorError"],
    "ops": ["torch.ops.aten.mm.default", "aten.relu", "aten.bmm"],
    "shapes": ["f32[32, 64]", "f32[48, 64]", "f32[4, 128, 128]"],
    "statuses": ["status-ok", "status-error"],
    "guard_structure": ["TREE_GUARD_MANAGER", "___check_obj_id", "check_tensor"],
    "node_counts": [35],
    "metric_numbers": ["2.718281", "1.618033", "1.414213"],
    # what an export report (-e) must still show: the problems, their expressions and places
    "export": [USER + ":%d in forward" % L_FWD_BODY, USER + ":%d in forward" % L_FWD_ACT, "Eq(s0, 4)", "u0 < s0",
               "Guard Evaluated", "Data Dependent", "Missing Fake Kernel", "Mismatched Fake Kernel"],
    # files of the plain report that PyTorch names (not the user): a redacted report keeps them
    "files": ["index.html", "failures_and_restarts.html", "compile_directory.json", "chromium_events.json",
              "summary.json", "dump_file/eval_with_key_3.html",
              "-_0_0_0/dynamo_output_graph_", "-_0_0_0/aot_joint_graph_", "-_0_0_0/aot_forward_graph_",
              "-_0_0_0/aot_backward_graph_", "-_0_0_0/inductor_pre_grad_graph_", "-_0_0_0/inductor_post_grad_graph_",
              "-_0_0_0/fx_graph_runnable_", "-_0_0_0/inductor_output_code_", "-_0_0_0/fx_graph_cache_miss_",
              "-_0_0_0/aotautograd_cache_hash_", "-_0_0_0/inductor_provenance_tracking_node_mappings_",
              "-_0_0_0/inductor_provenance_tracking_kernel_stack_traces_", "-_0_0_0/before_pre_grad_graph_",
              "-_0_0_0/after_post_grad_graph_", "-_0_0_0/optimize_ddp_split_graph_",
              "-_0_0_0/optimize_ddp_split_child_", "-_0_0_0/compiled_autograd_graph_", "-_0_0_0/dynamo_guards_",
              "-_0_0_0/dynamo_cpp_guards_str_", "-_0_0_0/compilation_metrics_", "-_0_0_0/bwd_compilation_metrics_",
              "-_0_0_0/aot_autograd_backward_compilation_metrics_", "-_0_1_0/recompile_reasons_",
              "-_1_0_0/compilation_metrics_", "-_1_0_1/dynamo_error_", "-_1_0_1/aot_inference_graph_",
              "-_1_0_1/compilation_metrics_", "-_0_2_0/compilation_metrics_"],
}


def main():
    ap = argparse.ArgumentParser(description="Write the --redact canary fixture (deterministic).")
    here = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures"))
    ap.add_argument("-o", "--outdir", default=here, help="folder for canary.log and canary.json")
    a = ap.parse_args()
    text = build()
    # Every canary must be in the log, and each exactly where it was planted: no token may be
    # a substring of another one or appear by accident.
    unescaped = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), text)
    unescaped += urllib.parse.unquote(text)
    for it in CN.items:
        assert it["canary"] in unescaped, it
    toks = [it["canary"] for it in CN.items]
    assert len(set(toks)) == len(toks)
    with open(os.path.join(a.outdir, "canary.log"), "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    doc = {"comment": "written by scripts/make_canary_trace.py; read by tests/redact_check.py",
           "canaries": CN.items, "structure": STRUCTURE}
    with open(os.path.join(a.outdir, "canary.json"), "w", encoding="utf-8", newline="\n") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print("%d canaries (%d dormant) in %s" % (len(CN.items), sum(1 for i in CN.items if i.get("dormant")),
                                               os.path.join(a.outdir, "canary.log")), file=sys.stderr)


if __name__ == "__main__":
    main()
