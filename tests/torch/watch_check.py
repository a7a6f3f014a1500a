#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tlparse --watch --run on a real PyTorch training loop that starts recompiling midway
(tests/torch/watch/train.py): the recompiles are said while the job runs, one line each, in
order, after the step that caused them and before the job ends; the recompile limit is said;
the report at the end equals a batch run on the trace the job left. Then on jobs of one rank
and of two (tests/torch/watch/ranks_job.py): the report of the one rank's log, and the ranks'
report, each the batch one.

    watch_check.py TLPARSE
"""
import filecmp
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from torch_check import free_port, torch_python  # noqa: E402

fails = []


def check(cond, what):
    if not cond:
        fails.append(what)
        print("FAIL: " + what, flush=True)


def same_as_batch(binary, work, out, args):
    """The report work/out equals a batch run's of args (into work/batch-OUT), the run
    information and the live page the watch leaves beside it apart."""
    batch = os.path.join(work, "batch-" + out)
    subprocess.run([binary] + args + ["-o", batch, "--no-browser"], cwd=work,
                   capture_output=True)
    strip = os.path.join(HERE, "..", "strip_runinfo.py")
    subprocess.run([sys.executable, strip, os.path.join(work, out), batch], check=True)
    diff = []

    def walk(c, pre=""):
        diff.extend(pre + x for x in c.diff_files + c.left_only + c.right_only)
        for name, sub in c.subdirs.items():
            walk(sub, pre + name + "/")
    walk(filecmp.dircmp(os.path.join(work, out), batch))
    diff = [x for x in diff if x not in ("live.html", "live.js")]
    check(not diff, "%s: the end report equals the batch one: %s" % (out, diff[:10]))


def ranks_jobs(binary, py, work):
    """--watch --run of a job of one rank (as torchrun --nproc-per-node 1 gives it: its log is
    named for rank 0) and of two: the one rank's report is that log's, the two ranks' is the
    ranks' report, each equal to the batch run of the trace as --run makes it."""
    shutil.copy(os.path.join(HERE, "watch", "ranks_job.py"), work)
    for world in (1, 2):
        out = "ranks%d" % world
        env = dict(os.environ, TMPDIR=work, USE_LIBUV="0", GLOO_SOCKET_IFNAME="lo",
                   PORT=free_port())
        p = subprocess.run([binary, "--watch", "--no-browser", "-o", out, "--run", "--"] + py +
                           ["ranks_job.py", str(world)], cwd=work, capture_output=True,
                           text=True, env=env, timeout=900)
        check(p.returncode == 0, "%s: exit 0, not %s: %s" % (out, p.returncode, p.stderr[-800:]))
        trace = re.search(r"the trace is kept in (\S+)", p.stderr)
        check(trace is not None, "%s: the trace folder is said: %s" % (out, p.stderr[-400:]))
        if not trace:
            continue
        logs = [f for f in os.listdir(trace.group(1)) if "_rank_" in f]
        check(len(logs) == world, "%s: PyTorch wrote %d rank logs: %s" % (out, world, logs))
        folders = sorted(f for f in os.listdir(os.path.join(work, out)) if f.startswith("rank_"))
        want = [] if world == 1 else ["rank_0", "rank_1"]
        check(folders == want, "%s: the report's rank folders %s, not %s" % (out, want, folders))
        same_as_batch(binary, work, out,
                      [trace.group(1)] + ([] if world == 1 else ["--all-ranks-html"]))


def main():
    binary = os.path.abspath(sys.argv[1])
    py = torch_python()
    if not py:
        print("torch watch: FAIL: no PyTorch (TORCH_PYTHON or ../shared/tools/torch-python)")
        return 1
    work = tempfile.mkdtemp(prefix="tl-torch-watch-")
    try:
        # the script beside the job, as the scenarios are (PyTorch's root sees /tmp)
        shutil.copy(os.path.join(HERE, "watch", "train.py"), work)
        p = subprocess.Popen([binary, "--watch", "--no-browser", "-o", "out", "--run", "--"] + py +
                             ["train.py"], cwd=work,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=dict(os.environ, TMPDIR=work))
        out, err = p.communicate(timeout=900)
        check(p.returncode == 0, "exit 0, not %s: %s" % (p.returncode, err[-800:]))
        lines = out.splitlines()
        steps = [i for i, ln in enumerate(lines) if ln.startswith("step ")]
        rec = [(i, ln) for i, ln in enumerate(lines) if ln.startswith("recompile: ")]
        limit = [i for i, ln in enumerate(lines) if ln.startswith("recompile limit hit")]
        print("\n".join(ln[:160] for ln in lines), flush=True)
        check(len(steps) == 14, "the job's 14 steps: %d" % len(steps))
        got = [int(re.search(r"compiled (\d+) times", ln).group(1)) for _, ln in rec]
        check(got[:7] == list(range(2, 9)), "recompiles said in order, once each: %s" % got)
        check(all("size mismatch at index 0" in ln for _, ln in rec[:7]),
              "each says the guard that failed")
        check(rec and steps and rec[0][0] > steps[3],
              "the first recompile comes after step 4, when the length first changed")
        check(rec and steps and rec[0][0] < steps[-1],
              "the first recompile is said while the job runs, before its last step")
        check(limit and limit[0] < steps[-1], "the recompile limit is said while the job runs")
        trace = re.search(r"the trace is kept in (\S+)", err)
        check(trace is not None, "the trace folder is said: %s" % err[-400:])
        if trace:
            same_as_batch(binary, work, "out", [trace.group(1)])
            js = os.path.join(work, "out", "live.js")
            js = open(js).read() if os.path.exists(js) else ""
            check('"state":"finished","final":true' in js,
                  "the end report's live.js says the job finished: %s" % js[:200])
        ranks_jobs(binary, py, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("torch watch: %s" % ("ok" if not fails else "%d failed" % len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
