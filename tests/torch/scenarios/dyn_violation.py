# mark_dynamic on a dimension the code compares with a constant: the dimension must be
# specialized to that size (Eq(s0, 5)), so compiling fails with a constraint violation.
import torch


@torch.compile(backend="eager")
def pick(x):
    if x.shape[0] == 5:
        return x * 5
    return x


x = torch.randn(5, 2)
torch._dynamo.mark_dynamic(x, 0)
try:
    pick(x)
except Exception as e:
    print("compile failed:", type(e).__name__)
