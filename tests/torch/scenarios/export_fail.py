# torch.export of code that branches on a tensor's value: export fails (data-dependent
# control flow), and torch.cond is the way out.
import torch


class M(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x.sin()
        return x.cos()


try:
    torch.export.export(M(), (torch.randn(4),))
except Exception as e:
    print("export failed:", type(e).__name__)
