# An optional mask: called without it, then with it, then without it again.
import torch


@torch.compile(backend="eager")
def attend(scores, mask=None):
    if mask is not None:
        scores = scores.masked_fill(mask, float("-inf"))
    return scores.softmax(-1)


s = torch.randn(4, 4)
attend(s)
attend(s, mask=s > 1.0)
attend(s)
