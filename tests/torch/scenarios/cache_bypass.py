# A custom post-grad pass that is a plain function (no uuid): Inductor cannot put it in a
# cache key, so the FX graph cache is bypassed, with the reason logged.
import os

os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(os.getcwd(), "inductor_cache")
import torch  # noqa: E402
import torch._inductor.config  # noqa: E402


def my_pass(graph):
    return None


torch._inductor.config.post_grad_custom_post_pass = my_pass


@torch.compile
def f(x):
    return x.cos() * 2


f(torch.randn(4, 4))
