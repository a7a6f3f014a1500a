# A step size (float) and an offset (int) passed as plain Python numbers, three values each:
# the second value recompiles once and makes the number dynamic; the third reuses that graph.
import torch


@torch.compile(backend="eager")
def step(x, eps):
    return x * (1 + eps)


@torch.compile(backend="eager")
def shift(x, n):
    return x + n


x = torch.randn(4)
for v in (0.1, 0.2, 0.3):
    step(x, v)
for n in (1, 2, 3):
    shift(x, n)
