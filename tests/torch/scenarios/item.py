# .item() inside a compiled function: a graph break (capture_scalar_outputs is off), and the
# float it returns is carried into the resume function, where it becomes a guard.
import torch


@torch.compile(backend="eager")
def loss_scale(x):
    s = x.sum().item()
    return x * s


loss_scale(torch.ones(4))
loss_scale(torch.full((4,), 2.0))
