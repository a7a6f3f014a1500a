# A graph break in forward, and a recompile of the code after it (the resume function) when
# the batch size changes: both belong to forward, at the line of the print.
import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        x = self.lin(x)
        print("after lin")
        return x.relu()


net = torch.compile(Net(), backend="eager")
net(torch.randn(2, 4))
net(torch.randn(3, 4))
