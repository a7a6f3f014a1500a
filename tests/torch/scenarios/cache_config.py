# The same function compiled twice in one process over one cache folder, torch._dynamo.reset()
# between, with an Inductor config flipped for the second compile (max_autotune): the FX graph
# cache misses again, and the only component of its key that differs is that config.
import os

os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(os.getcwd(), "inductor_cache")
import torch  # noqa: E402
import torch._functorch.config  # noqa: E402
import torch._inductor.config  # noqa: E402

torch._functorch.config.enable_autograd_cache = True


def f(x):
    return x.sin() + 1


x = torch.randn(4, 4)
torch.compile(f)(x)
torch._dynamo.reset()
torch._inductor.config.max_autotune = True
torch.compile(f)(x)
