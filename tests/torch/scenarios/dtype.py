# The same function called with float32, then float64: a recompile on the dtype.
import torch


@torch.compile(backend="eager")
def norm(x):
    return x / x.abs().max()


norm(torch.randn(8))
norm(torch.randn(8, dtype=torch.float64))
