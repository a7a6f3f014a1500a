# automatic_dynamic_shapes is off: every new batch size compiles again, and with the default
# recompile limit (8) the ninth size stops compilation; the function then runs in eager mode.
import torch

torch._dynamo.config.automatic_dynamic_shapes = False


@torch.compile(backend="eager")
def scale(x):
    return x * 2


for n in range(2, 13):
    scale(torch.randn(n))
