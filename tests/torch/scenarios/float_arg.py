# A Python float argument: the first value is baked in, the second recompiles once and makes
# the float dynamic (automatic dynamic shapes), so later values would reuse that graph.
import torch


@torch.compile(backend="eager")
def mix(x, alpha):
    return x * alpha + (1 - alpha)


x = torch.randn(4)
mix(x, 0.25)
mix(x, 0.5)
