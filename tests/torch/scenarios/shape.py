# A tensor's first dimension changes size: one recompile, after which automatic dynamic
# shapes make the dimension dynamic (s0 for L['x'].size()[0]) and later sizes reuse the code.
import torch


@torch.compile(backend="eager")
def scale(x):
    return x * 2 + 1


scale(torch.randn(4, 3))
scale(torch.randn(8, 3))
scale(torch.randn(16, 3))
