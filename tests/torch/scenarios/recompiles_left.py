# A function compiled for three values of a Python int under a recompile limit of 6 (automatic
# dynamic shapes off): three cache entries, three recompiles left before the limit; the calls
# that repeat a value reuse their entry, and nothing runs in eager mode.
import torch

torch._dynamo.config.cache_size_limit = 6
torch._dynamo.config.automatic_dynamic_shapes = False


@torch.compile(backend="eager")
def shift(x, k):
    return x + k


for k in (1, 2, 3, 1, 2):
    shift(torch.ones(2), k)
