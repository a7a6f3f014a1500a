# A model trained a few steps, then evaluated under torch.no_grad(): the compiled forward runs
# with autograd on, then off. One graph for each mode is what a train/eval loop costs.
import torch

model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
cmodel = torch.compile(model, backend="eager")
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(4, 8)
for epoch in range(2):
    for step in range(3):
        loss = cmodel(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        cmodel(x)
