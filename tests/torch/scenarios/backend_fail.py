# A backend that raises, with suppress_errors: the frame silently falls back to eager.
import torch

torch._dynamo.config.suppress_errors = True


def broken_backend(gm, example_inputs):
    raise RuntimeError("broken_backend cannot compile this graph")


@torch.compile(backend=broken_backend)
def f(x):
    return x.relu() + 1


f(torch.randn(4))
