# One function called with float32, then float64, then a transposed (non-contiguous) float32
# tensor of the same shape, automatic dynamic shapes off: dynamo recompiles each time, and each
# compile misses the FX graph cache: [0/1] because input 0's dtype differs from [0/0]'s, [0/2]
# because its stride does.
import os

os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(os.getcwd(), "inductor_cache")
import torch  # noqa: E402
import torch._dynamo.config  # noqa: E402

torch._dynamo.config.automatic_dynamic_shapes = False


@torch.compile
def f(x):
    return x.sin() + 1


x = torch.randn(4, 4)
f(x)
f(x.double())
f(x.t())
