# .tolist() two calls deep inside a compiled function (inductor, default settings): the
# number of active tokens, counted from a mask, normalizes a batch.
import torch


def token_counts(mask):
    return mask.sum(1).tolist()


def total_tokens(mask):
    counts = token_counts(mask)
    return sum(counts)


@torch.compile
def normalize(x, mask):
    return x / total_tokens(mask)


x = torch.randn(3, 4)
mask = torch.tensor([[1, 1, 0], [1, 0, 0], [1, 1, 1]])
print(normalize(x, mask).shape)
