# The same module compiled twice in one process, torch._dynamo.reset() between: the second
# compile finds the AOT autograd and FX graph caches warm (a cache of its own, under the cwd).
import os

os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(os.getcwd(), "inductor_cache")
import torch  # noqa: E402
import torch._functorch.config  # noqa: E402

torch._functorch.config.enable_autograd_cache = True
torch.manual_seed(0)
model = torch.nn.Linear(4, 2)
x = torch.randn(3, 4)
for _ in range(2):
    torch.compile(model)(x).sum().backward()
    torch._dynamo.reset()
