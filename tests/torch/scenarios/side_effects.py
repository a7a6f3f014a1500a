# A compiled function that appends to a global list and sets an attribute: side effects dynamo
# replays after the graph runs (PyTorch 2.13 logs them as a dynamo_side_effects artifact).
import torch

seen = []


class Box:
    pass


box = Box()


@torch.compile(backend="eager")
def track(x):
    seen.append(x.shape[0])
    box.last = x.shape[0]
    return x * 2


track(torch.randn(4))
