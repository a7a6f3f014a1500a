# A module that counts its steps for a warmup factor: self.step, a Python int on the module,
# changes on every call of the compiled module.
import torch


class Warmup(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)
        self.step = 0

    def forward(self, x):
        self.step += 1
        scale = min(1.0, self.step / 10)
        return self.lin(x) * scale


model = torch.compile(Warmup(), backend="eager")
for i in range(12):
    model(torch.randn(2, 4))
