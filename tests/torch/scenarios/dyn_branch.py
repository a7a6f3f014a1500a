# dynamic=True and a Python branch on the size: each side of `if x.shape[0] > 8:` is its own
# graph, so the first size above 8 recompiles once on the branch's guard; later sizes reuse.
import torch


@torch.compile(backend="eager", dynamic=True)
def route(x):
    if x.shape[0] > 8:
        return x * 2
    return x + 1


for n in (4, 16, 5, 32):
    route(torch.randn(n))
