# A matmul called outside and then inside torch.autocast: the compiled code is specialized to
# the autocast state, so the second call compiles it again.
import torch


@torch.compile(backend="eager")
def project(a, b):
    return a @ b


a, b = torch.randn(8, 8), torch.randn(8, 8)
project(a, b)
with torch.autocast("cpu", dtype=torch.bfloat16):
    project(a, b)
