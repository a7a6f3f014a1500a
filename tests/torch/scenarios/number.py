# A Python int argument that changes: the int is baked into the graph, so each new value
# recompiles (then automatic dynamic makes it a symbol), and a string argument that changes.
import torch


@torch.compile(backend="eager")
def shift(x, n):
    return x + n


@torch.compile(backend="eager")
def act(x, kind):
    if kind == "relu":
        return torch.relu(x)
    return torch.tanh(x)


x = torch.randn(4)
shift(x, 1)
shift(x, 2)
act(x, "relu")
act(x, "tanh")
