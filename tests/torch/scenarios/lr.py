# A compiled optimizer step whose float learning rate changes every step (a scheduler):
# each new lr is a recompile unless lr is a tensor. The default backend (inductor): its
# tensorify pass is what restarts the analysis on the float lr.
import torch

model = torch.nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)


@torch.compile
def step():
    opt.step()


for i in range(3):
    model(torch.randn(2, 4)).sum().backward()
    for g in opt.param_groups:
        g["lr"] = 0.1 / (i + 1)
    step()
