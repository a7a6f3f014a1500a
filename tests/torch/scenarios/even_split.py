# dynamic=True and x.view(x.shape[0] // 2, 2) (pairs of values): the size must be even
# (Eq(s0, 2*((s0//2))), a divisibility guard, no specialization); another even size reuses
# the graph.
import torch


@torch.compile(backend="eager", dynamic=True)
def pairs(x):
    return x.view(x.shape[0] // 2, 2).sum(1)


pairs(torch.randn(6))
pairs(torch.randn(10))
