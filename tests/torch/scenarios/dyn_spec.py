# maybe_mark_dynamic on a dimension the code compares with a constant: the dimension is
# specialized to that size (Eq(s0, 5)), which is what the user must be told.
import torch


@torch.compile(backend="eager")
def pick(x):
    if x.shape[0] == 5:
        return x * 5
    return x


x = torch.randn(5, 2)
torch._dynamo.maybe_mark_dynamic(x, 0)
pick(x)
