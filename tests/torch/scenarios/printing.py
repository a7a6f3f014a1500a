# print() inside a compiled function: a graph break; the rest runs in a resume function.
import torch


def forward(x):
    y = x.sin()
    print("y computed")
    return y.cos()


f = torch.compile(forward, backend="eager")
f(torch.randn(4))
