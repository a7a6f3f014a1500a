# A model with dropout compiled once and used the usual way: a training step, then an
# evaluation pass (model.eval()), epoch after epoch.
import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)
        self.drop = torch.nn.Dropout(0.1)

    def forward(self, x):
        return self.drop(self.lin(x))


model = torch.compile(Net(), backend="eager")
x = torch.randn(4, 8)
for epoch in range(2):
    model.train()
    model(x)
    model.eval()
    model(x)
