# A helper marked @torch.compiler.disable, called from a compiled function.
import torch


@torch.compiler.disable
def record(t):
    return t.sum()


@torch.compile(backend="eager")
def forward(x):
    y = x * 2
    record(y)
    return y + 1


forward(torch.ones(4))
