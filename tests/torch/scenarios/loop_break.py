# A print inside a for loop of a compiled function.
import torch


@torch.compile(backend="eager")
def accumulate(x):
    total = torch.zeros(4)
    for i in range(3):
        print("step", i)
        total = total + x * i
    return total


accumulate(torch.ones(4))
