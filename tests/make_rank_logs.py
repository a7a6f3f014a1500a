#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the TORCH_TRACE logs of a made-up multi-rank run, for tests/multirank.sh: our own
fixture, so that the multi-rank modes are tested on a clone with nothing beside it.

    make_rank_logs.py OUTDIR [--ranks N] [--pad-kb K] [--short R,..] [--extra R,..]
                             [--gather R,..] [--hit R,..] [--no-wait R,..] [--slow R,..]
                             [--strings R:N,..] [--more R:N,..] [--idless R,..]
                             [--no-inductor] [--autotune R,..]

Writes OUTDIR/dedicated_log_torch_trace_rank_<r>.log for r in 0..N-1 (default 4). Each rank
compiles `step` (frame 0) twice, as distributed code does: [0/0], then [0/1] after a guard
on the batch size failed. Each compile has what the landing page reads: a dynamo_start, an
output graph, an fx_graph_cache_miss artifact, an inductor_output_code calling all_reduce_
and wait_tensor, the inductor_collective_schedule that lists them, an
inductor_runtime_and_tensor_meta artifact (ops with estimated_runtime_ns and output shapes),
compilation_metrics and chromium_event begin/end pairs; the log ends with a graph_execution
artifact (the order the graphs ran). Ranks diverge on request:
  --short R     rank R compiles [0/0] only (no recompile: fewer compile ids and graphs)
  --extra R     rank R also compiles `helper` (frame 1, [1/0]): one more compile id and graph
  --gather R    rank R's schedules say all_gather_into_tensor where the others all_reduce_
  --hit R       rank R's [0/0] is an fx_graph_cache_hit, not a miss
  --no-wait R   rank R's output code never waits for its collectives (parity: missing waits)
  --slow R      rank R's ops are estimated 1.5 times as long (its tensor meta differs too)
  --strings R:N rank R's string table has N entries (default 2: the script and a library);
                entry 0 is the script for every rank, the others name rank R's Python 3.(10+R)
  --more R:N    rank R compiles `step` N times: [0/0] to [0/N-1] (N >= 12 puts [0/10] after
                [0/9]: the order of compile ids as numbers, not as strings)
  --idless R    rank R also logs an artifact outside any compilation (no compile id: the
                report's [-/-] key), as a job's start-up logging does
  --autotune R  every rank's FX graph cache lookups list their keys' components (the graph,
                compile arguments, max_autotune), and rank R's have max_autotune on: another key
--no-inductor leaves out what Inductor writes (output code, schedules, runtimes, cache and
execution order), as a run with backend="eager" would. --pad-kb K pads every output code
with K KiB of comment lines (bigger logs, same findings).
Every payload carries its md5. Standard library only; deterministic.
"""
import hashlib
import json
import os
import sys

PREFIX = "V0101 10:00:%02d.%06d %d %s] "
SCRIPT = "/home/user/dist/train.py"
LIBS = ["torch/_dynamo/eval_frame.py", "torch/nn/modules/module.py",
        "torch/_dynamo/convert_frame.py", "torch/distributed/_functional_collectives.py",
        "torch/_inductor/compile_fx.py", "torch/_inductor/graph.py",
        "torch/_dynamo/output_graph.py", "torch/_dynamo/utils.py"]
REDUCE = "torch.ops._c10d_functional.all_reduce_.default"
GATHER = "torch.ops._c10d_functional.all_gather_into_tensor.default"
WAIT = "torch.ops._c10d_functional.wait_tensor.default"


class Log:
    def __init__(self, rank):
        self.rank = rank
        self.lines = []
        self.tick = 0

    def entry(self, env, payload=None, site="torch/_dynamo/utils.py:1"):
        """One envelope (rank and compile id fields added by the caller), its payload tabbed."""
        if payload is not None:
            env["has_payload"] = hashlib.md5(payload.encode()).hexdigest()
        self.tick += 1
        self.lines.append(PREFIX % (self.tick // 1000 % 60, self.tick % 1000 * 1000,
                                    4000 + self.rank, site) + json.dumps(env))
        if payload is not None:
            self.lines.extend("\t" + line for line in payload.split("\n"))


def cid(frame, compile_):
    return {"frame_id": frame, "frame_compile_id": compile_, "attempt": 0}


def chromium(log, ids, name, ph, ts):
    event = {"name": name, "ts": ts, "args": {"compile_id": "%d/%d" % (ids["frame_id"],
                                                                     ids["frame_compile_id"])},
             "ph": ph, "cat": "dynamo_timed", "tid": 0, "pid": 0}
    log.entry(dict({"chromium_event": {}, "rank": log.rank}, **ids),
              json.dumps(event, indent=1))


def artifact(log, ids, name, value, site="torch/_inductor/debug.py:700"):
    log.entry(dict({"artifact": {"name": name, "encoding": "json"}, "rank": log.rank}, **ids),
              json.dumps(value, indent=1), site)


def output_code(collective, wait, pad_kb, graph):
    lines = ["# AOT ID: ['%s_inference']" % graph, "import torch",
             "from torch._inductor.utils import maybe_profile", "",
             "def call(args):", "    arg0_1, = args", "    args.clear()",
             "    buf0 = empty_strided_cuda((1024, 1024), (1024, 1), torch.float32)",
             "    extern_kernels.mm(arg0_1, arg0_1, out=buf0)"]
    if collective == REDUCE:
        lines.append("    torch.ops._c10d_functional.all_reduce_.default(buf0, 'sum', '0')")
    else:
        lines.append("    buf1 = torch.ops._c10d_functional.all_gather_into_tensor.default("
                     "buf0, 2, '0')")
    if wait:
        lines.append("    torch.ops._c10d_functional.wait_tensor.default(%s)"
                     % ("buf0" if collective == REDUCE else "buf1"))
    lines.append("    return (buf0, )")
    size, n = sum(len(x) + 1 for x in lines), 0
    while size < pad_kb * 1024:
        lines.append("# padding %06d %s" % (n, hashlib.md5(b"%d" % n).hexdigest() * 2))
        size += len(lines[-1]) + 1
        n += 1
    return "\n".join(lines)


def metrics(fn, line, key, frame, compile_):
    return {"compile_id": key, "co_name": fn, "co_filename": SCRIPT, "co_firstlineno": line,
            "cache_size": compile_, "accumulated_cache_size": compile_, "guard_count": 12,
            "graph_op_count": 2, "graph_node_count": 4, "graph_input_count": 1,
            "entire_frame_compile_time_s": 1.5, "backend_compile_time_s": 1.0,
            "inductor_compile_time_s": 0.8, "fail_type": None, "fail_reason": None,
            "recompile_reason": ("%d/%d: L['x'].size()[0] == 8" % (frame, compile_ - 1)
                                 if compile_ else None),
            "restart_reasons": [], "has_guarded_code": True}


def compile_one(log, opt, frame, compile_, fn, line, t0):
    ids = cid(frame, compile_)
    r = log.rank
    key = "%d/%d" % (frame, compile_)
    chromium(log, ids, "dynamo", "B", t0)
    stack = [{"line": 40, "name": "<module>", "filename": 0, "loc": "main()"},
             {"line": 31, "name": "main", "filename": 0, "loc": "loss = %s(model, x)" % fn},
             {"line": 573, "name": "_fn", "filename": 1, "loc": "return fn(*args, **kwargs)"}]
    log.entry(dict({"dynamo_start": {"stack": stack}, "rank": r}, **ids),
              site="torch/_dynamo/convert_frame.py:1012")
    if compile_ > 0:
        reason = "%d/%d: L['x'].size()[0] == 8" % (frame, compile_ - 1)
        artifact(log, ids, "recompile_reasons", [reason], "torch/_dynamo/guards.py:3824")
    graph = ("class GraphModule(torch.nn.Module):\n"
             "    def forward(self, L_x_: \"f32[%d, 1024]\"):\n"
             "        l_x_ = L_x_\n"
             "        mm = torch.mm(l_x_, l_x_.t());  l_x_ = None\n"
             "        return (mm,)" % (8 + 8 * compile_))
    log.entry(dict({"dynamo_output_graph": {"sizes": {"l_x_": [8 + 8 * compile_, 1024]}},
                    "rank": r}, **ids), graph, "torch/_dynamo/output_graph.py:1353")
    if not opt["inductor"]:
        log.entry(dict({"compilation_metrics": metrics(fn, line, key, frame, compile_),
                        "rank": r}, **ids))
        chromium(log, ids, "dynamo", "E", t0 + 1500000)
        return
    hit = compile_ == 0 and frame == 0 and r in opt["hit"]
    components = []
    if opt["autotune"]:
        on = r in opt["autotune"]
        key += "+autotune" if on else ""
        components = ["[gm%s] gm: GraphModule()" % hashlib.md5(graph.encode()).hexdigest()[:20],
                      "[fkbackward0000] fx_kwargs[is_backward]: False",
                      "[fkinference000] fx_kwargs[is_inference]: True",
                      "[%s] inductor_config[max_autotune]: %s"
                      % ("autotuneon000" if on else "autotuneoff00", on)]
    artifact(log, ids, "fx_graph_cache_hit" if hit else "fx_graph_cache_miss",
             {"key": "f%s%02d" % (hashlib.md5(key.encode()).hexdigest()[:20], compile_),
              "cache_state": "hit" if hit else "miss", "components": components,
              "time_saved_ns": 0},
             "torch/_inductor/codecache.py:1150")
    collective = GATHER if r in opt["gather"] else REDUCE
    folder = "%d_%d_%d" % (frame, compile_, 0)
    log.entry(dict({"inductor_output_code": {"filename": "/tmp/torchinductor/%s/c%s.py"
                                              % (folder, folder)}, "rank": r}, **ids),
              output_code(collective, r not in opt["no_wait"], opt["pad_kb"], folder),
              "torch/_inductor/graph.py:2390")
    artifact(log, ids, "inductor_collective_schedule", [collective, WAIT])
    scale = 1.5 if r in opt["slow"] else 1.0
    ops = [{"name": "extern_kernels.mm", "type": "compute",
            "estimated_runtime_ns": 1000000.0 * (1 + compile_) * scale,
            "outputs": [{"shape": [8 + 8 * compile_, 1024], "dtype": "torch.float32"}]},
           {"name": collective, "type": "collective",
            "estimated_runtime_ns": 250000.0 * scale,
            "outputs": [{"shape": [8 + 8 * compile_, 1024], "dtype": "torch.float32"}]}]
    artifact(log, ids, "inductor_runtime_and_tensor_meta", {"ops": ops},
             "torch/_inductor/debug.py:734")
    log.entry(dict({"compilation_metrics": metrics(fn, line, key, frame, compile_), "rank": r},
                   **ids))
    chromium(log, ids, "dynamo", "E", t0 + 1500000)


def rank_log(rank, opt):
    log = Log(rank)
    for i in range(opt["strings"].get(rank, 2)):
        name = SCRIPT if i == 0 else "/usr/lib/python3.%d/site-packages/%s%s" % (
            10 + rank, LIBS[(i - 1) % len(LIBS)], "" if i <= len(LIBS) else "#%d" % i)
        log.entry({"str": [name, i]}, site="torch/_logging/structured.py:28")
    t0 = 1700000000000000 + rank * 1000
    if rank in opt["idless"]:
        log.entry({"artifact": {"name": "job_info", "encoding": "json"}, "rank": rank},
                  json.dumps({"world_size": opt["ranks"], "rank": rank}, indent=1))
    order = []
    compile_one(log, opt, 0, 0, "step", 20, t0)
    order.append("0/0")
    if rank in opt["extra"]:
        compile_one(log, opt, 1, 0, "helper", 12, t0 + 2000000)
        order.append("1/0")
    for c in range(1, opt["more"].get(rank, 1 if rank in opt["short"] else 2)):
        compile_one(log, opt, 0, c, "step", 20, t0 + 4000000 * c)
        order.append("0/%d" % c)
    if opt["inductor"]:
        artifact(log, cid(0, 0), "graph_execution",
                 {"graph_execution_order": [{"compile_id": c} for c in order + order]},
                 "torch/_inductor/debug.py:760")
    return "\n".join(log.lines) + "\n"


def ranks_of(text):
    return {int(x) for x in text.split(",") if x}


def main(argv):
    opt = {"ranks": 4, "pad_kb": 0, "short": set(), "extra": set(), "gather": set(),
           "hit": set(), "no_wait": set(), "slow": set(), "idless": set(), "strings": {},
           "more": {}, "inductor": True, "autotune": set()}
    out = None
    it = iter(argv[1:])
    for a in it:
        if a == "--ranks":
            opt["ranks"] = int(next(it))
        elif a == "--pad-kb":
            opt["pad_kb"] = int(next(it))
        elif a in ("--short", "--extra", "--gather", "--hit", "--no-wait", "--slow",
                   "--idless", "--autotune"):
            opt[a[2:].replace("-", "_")] = ranks_of(next(it))
        elif a == "--no-inductor":
            opt["inductor"] = False
        elif a in ("--strings", "--more"):
            for pair in next(it).split(","):
                r, n = pair.split(":")
                opt[a[2:]][int(r)] = int(n)
        elif out is None and not a.startswith("-"):
            out = a
        else:
            sys.stderr.write(__doc__)
            return 2
    if out is None:
        sys.stderr.write(__doc__)
        return 2
    os.makedirs(out, exist_ok=True)
    for r in range(opt["ranks"]):
        with open(os.path.join(out, "dedicated_log_torch_trace_rank_%d.log" % r), "w") as f:
            f.write(rank_log(r, opt))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
