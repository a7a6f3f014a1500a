#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write a large TORCH_TRACE log for the provenance page (tlparse -i), and what it links.

    python3 tests/e2e/make_big_provenance_log.py LOG [MANIFEST.json] [--lines N] [--kernels K]

One JIT compile (folder -_0_0_0) with a before_pre_grad_graph, an after_post_grad_graph, an
inductor_output_code of exactly N lines (default 10 000) holding K Triton kernels (default
3 000) plus an extern kernel called in many places, and the inductor_provenance_tracking_node_
mappings artifact that ties them together. Each pre-grad node i becomes three post-grad nodes
a, b, c; kernel 2i fuses a and b, kernel 2i+1 fuses b and c; every 50th c also feeds
extern_kernels.mm. Every envelope carries the md5 of its payload (valid log).

The manifest (JSON) gives, by construction and independently of tlparse, the page line of
every node and kernel call and the rows a click must highlight for a few sample rows:
{"lines": N, "kernels": K, "pre_lines": P, "post_lines": Q,
 "samples": [{"kind": "pre"|"post"|"py", "line": L, "pre": [...], "post": [...], "py": [...]}]}
Standard library only; deterministic.
"""
import hashlib
import json
import sys

EXTERN = "extern_kernels.mm"
EXTERN_EVERY = 50


def kernel(k):
    return "triton_poi_fused_add_relu_k%05d" % k  # fixed width: no name contains another


def build(nlines=10000, nkernels=3000):
    npre = nkernels // 2
    pre_nodes = ["pre_%05d" % i for i in range(npre)]
    post_of = {i: ["post_%05d" % (3 * i + j) for j in range(3)] for i in range(npre)}

    # ---- graphs: line numbers are 1-based, as the page numbers them ----
    pre = ["class GraphModule(torch.nn.Module):",
           '    def forward(self, L_x_: "f32[64][1]cuda:0"):',
           "        l_x_ = L_x_"]
    pre_line = {}
    prev = "l_x_"
    for i, name in enumerate(pre_nodes):
        pre.append("        ")
        pre.append("         # File: /home/user/model.py:%d in forward, code: x = self.block%d(x)"
                   % (100 + i, i))
        pre.append('        %s: "f32[64][1]cuda:0" = torch.relu(%s);  %s = None'
                   % (name, prev, prev))
        pre_line[name] = len(pre)
        prev = name
    pre += ["        return (%s,)" % prev, "        "]

    post = ["class <lambda>(torch.nn.Module):",
            '    def forward(self, arg0_1: "f32[64][1]cuda:0"):']
    post_line = {}
    prev = "arg0_1"
    for i in range(npre):
        post.append("         # File: /home/user/model.py:%d in forward, code: x = self.block%d(x)"
                    % (100 + i, i))
        for j, name in enumerate(post_of[i]):
            op = ("mul.Tensor", "add.Tensor", "relu.default")[j]
            post.append('        %s: "f32[64][1]cuda:0" = torch.ops.aten.%s(%s)' % (name, op, prev))
            post_line[name] = len(post)
            prev = name
        post.append("        ")
    post += ["        return (%s,)" % prev, "        "]

    # ---- node mappings ----
    pre_to_post, post_to_pre = {}, {}
    code_to_post, post_to_code = {}, {}
    for i, name in enumerate(pre_nodes):
        a, b, c = post_of[i]
        pre_to_post[name] = [a, b, c]
        for p in (a, b, c):
            post_to_pre[p] = [name]
        k0, k1 = kernel(2 * i), kernel(2 * i + 1)
        code_to_post[k0] = [a, b]
        code_to_post[k1] = [b, c]
        post_to_code[a] = [k0]
        post_to_code[b] = [k0, k1]
        post_to_code[c] = [k1]
        if i % EXTERN_EVERY == 0:
            code_to_post.setdefault(EXTERN, []).append(c)
            post_to_code[c] = [k1, EXTERN]
    mappings = {"preToPost": pre_to_post, "postToPre": post_to_pre,
                "cppCodeToPost": code_to_post, "postToCppCode": post_to_code, "version": 1.0}

    # ---- output code: header, kernel definitions (padded), then call() ----
    head = ["# AOT ID: ['0_inference']",
            "from ctypes import c_void_p, c_long, c_int",
            "import torch",
            "from torch._inductor.select_algorithm import extern_kernels",
            "from torch._inductor.async_compile import AsyncCompile",
            "from torch._C import _cuda_getCurrentRawStream as get_raw_stream",
            "",
            "aten = torch.ops.aten",
            "async_compile = AsyncCompile()",
            ""]
    call = ["", "", "def call(args):", "    arg0_1, = args", "    args.clear()",
            "    with torch.cuda._DeviceGuard(0):", "        torch.cuda.set_device(0)",
            "        stream0 = get_raw_stream(0)"]
    call_line = {}  # kernel -> [0-based indices within `call`]
    extern_calls = []
    for i in range(npre):
        for k in (2 * i, 2 * i + 1):
            call.append("        # Topologically Sorted Source Nodes: [%s], Original ATen: "
                        "[aten.add, aten.relu]" % ", ".join(code_to_post[kernel(k)]))
            call.append("        %s.run(buf%d, arg0_1, 64, stream=stream0)" % (kernel(k), k))
            call_line[kernel(k)] = len(call) - 1
        if i % EXTERN_EVERY == 0:
            call.append("        %s(buf%d, buf%d, out=buf%d)" % (EXTERN, 2 * i, 2 * i + 1, 2 * i))
            extern_calls.append(len(call) - 1)
    call += ["    return (buf%d, )" % (nkernels - 1), "", "",
             "if __name__ == \"__main__\":",
             "    from torch._inductor.wrapper_benchmark import compiled_module_main",
             "    compiled_module_main('None', benchmark_compiled_module)"]
    defs = []
    for k in range(nkernels):
        defs.append("%s = async_compile.triton('%s', '''@triton.jit\\ndef %s(in_out_ptr0, xnumel, "
                    "XBLOCK : tl.constexpr): ...''', device_str='cuda')"
                    % (kernel(k), kernel(k), kernel(k)))
    room = nlines - len(head) - len(call)
    if len(defs) > room:
        raise SystemExit("make_big_provenance_log: %d lines cannot hold %d kernels"
                         % (nlines, nkernels))
    defs += ["# padding: kernel sources elided"] * (room - len(defs))
    code = head + defs + call
    assert len(code) == nlines
    base = len(head) + len(defs)  # index of call[0] in code; code line = index + 1
    py_line = {k: base + idx + 1 for k, idx in call_line.items()}
    extern_lines = [base + idx + 1 for idx in extern_calls]

    # ---- the expected highlights of a few rows, by the rules of spec modes.md 3.5 ----
    def code_lines(k):
        return extern_lines if k == EXTERN else [py_line[k]]

    def post_rows(nodes):
        return [post_line[p] for p in nodes]

    samples = []
    for i in (0, npre // 2, npre - 1):
        name = pre_nodes[i]
        posts = pre_to_post[name]
        samples.append({"kind": "pre", "line": pre_line[name], "post": post_rows(posts),
                        "py": [ln for p in posts for k in post_to_code[p] for ln in code_lines(k)]})
    mid = post_of[npre // 2][1]
    samples.append({"kind": "post", "line": post_line[mid], "pre": [pre_line[post_to_pre[mid][0]]],
                    "py": [ln for k in post_to_code[mid] for ln in code_lines(k)]})
    for k in (kernel(nkernels // 2 + 1), EXTERN):
        posts = code_to_post[k]
        samples.append({"kind": "py", "line": code_lines(k)[0], "post": post_rows(posts),
                        "pre": [pre_line[q] for p in posts for q in post_to_pre[p]]})
    manifest = {"lines": nlines, "kernels": nkernels, "pre_lines": len(pre),
                "post_lines": len(post), "samples": samples}
    return pre, post, code, mappings, manifest


def envelope_lines(records):
    out = []
    for n, (env, payload) in enumerate(records):
        env = dict(env, frame_id=0, frame_compile_id=0, attempt=0)
        if payload is not None:
            env["has_payload"] = hashlib.md5(payload.encode()).hexdigest()
        out.append("V1121 10:00:%02d.%06d 4242 torch/_inductor/compile_fx.py:%d] %s"
                   % (n // 10, (n % 10) * 1000, 100 + n, json.dumps(env)))
        if payload is not None:
            out.extend("\t" + line for line in payload.split("\n"))
    return out


def main(argv):
    args, nlines, nkernels = [], 10000, 3000
    it = iter(argv)
    for a in it:
        if a == "--lines":
            nlines = int(next(it))
        elif a == "--kernels":
            nkernels = int(next(it))
        else:
            args.append(a)
    if not 1 <= len(args) <= 2:
        sys.stderr.write(__doc__)
        return 2
    pre, post, code, mappings, manifest = build(nlines, nkernels)
    records = [
        ({"artifact": {"name": "before_pre_grad_graph", "encoding": "string"}}, "\n".join(pre)),
        ({"artifact": {"name": "after_post_grad_graph", "encoding": "string"}}, "\n".join(post)),
        ({"inductor_output_code": {"filename": "/tmp/torchinductor_user/ab/cabigoutput.py"}},
         "\n".join(code)),
        ({"artifact": {"name": "inductor_provenance_tracking_node_mappings", "encoding": "json"}},
         json.dumps(mappings)),
    ]
    with open(args[0], "w", encoding="utf-8") as f:
        f.write("\n".join(envelope_lines(records)) + "\n")
    if len(args) == 2:
        with open(args[1], "w", encoding="utf-8") as f:
            json.dump(manifest, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
