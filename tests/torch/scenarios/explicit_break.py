# torch._dynamo.graph_break(), written by the user.
import torch


@torch.compile(backend="eager")
def two_parts(x):
    x = x + 1
    torch._dynamo.graph_break()
    return x * 2


two_parts(torch.randn(4))
