# mark_dynamic on a dimension whose use adds guards: a range guard (2*s0 >= 16) and a
# divisibility guard (Mod(s0, 2) == 0), both kept dynamic.
import torch


@torch.compile(backend="eager")
def halves(x):
    if x.shape[0] * 2 >= 16:
        a, b = x.view(2, -1)
        return a + b
    return x


x = torch.randn(10)
torch._dynamo.mark_dynamic(x, 0)
halves(x)
