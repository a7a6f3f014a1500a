# A Python number that changes on every call hits the recompile limit: the function is then
# run in eager mode without a warning beyond the log's.
import torch

torch._dynamo.config.cache_size_limit = 2
torch._dynamo.config.automatic_dynamic_shapes = False


@torch.compile(backend="eager")
def bump(x, k):
    return x + k


for k in range(4):
    bump(torch.ones(2), k)
