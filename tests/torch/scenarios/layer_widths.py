# A model whose blocks differ in width, each block compiled on its own: one compiled forward
# serves all blocks, and each width compiles it again, because a Linear's weight fixes the
# width of its input.
import torch


class Block(torch.nn.Module):
    def __init__(self, d):
        super().__init__()
        self.lin = torch.nn.Linear(d, d)

    def forward(self, x):
        return torch.relu(self.lin(x))


blocks = [torch.compile(Block(d), backend="eager") for d in (8, 16, 32, 64)]
for epoch in range(2):
    for b in blocks:
        b(torch.randn(2, b.lin.in_features))
