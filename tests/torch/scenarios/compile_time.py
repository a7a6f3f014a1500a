# A fast compile and a slow one with a second of sleep between: the ledger must add up to the
# log's span, put the sleep in "unaccounted", and its span must match this script's own clock
# (wall.json, written under TORCH_TRACE only: the text run must not overwrite it). What runs
# before the first compile is not in the log, so the compiler's modules are imported first.
import json
import os
import time

import torch
import torch._dynamo  # noqa: F401  (imported before t0: the log starts at the first compile)
import torch._inductor.compile_fx  # noqa: F401


def fast(x):
    return x.sin() + 1


def slow(x):
    y = torch.relu(x @ x.T)
    return (y.softmax(-1) * x.sum()).cos().sum()


t0 = time.time()
torch.compile(fast, backend="eager")(torch.randn(4))
time.sleep(1.0)
torch.compile(slow)(torch.randn(8, 8))
t1 = time.time()
if os.environ.get("TORCH_TRACE"):
    with open("wall.json", "w") as f:
        json.dump({"t0": t0, "t1": t1, "sleep": 1.0}, f)
