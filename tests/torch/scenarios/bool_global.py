# A module-level switch read inside a compiled function, flipped between calls.
import torch

USE_RELU = True


@torch.compile(backend="eager")
def act(x):
    if USE_RELU:
        return torch.relu(x)
    return torch.tanh(x)


x = torch.randn(4)
act(x)
USE_RELU = False
act(x)
