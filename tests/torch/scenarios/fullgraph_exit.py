# fullgraph=True, and the function prints: the graph break is an error, and nothing catches it.
import torch


@torch.compile(backend="eager", fullgraph=True)
def scale(x):
    print("scaling")
    return x * 2


scale(torch.ones(4))
