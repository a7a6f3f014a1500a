# An epoch over 100 rows in batches of 32: the last batch has 4 rows, and the compiled model
# sees a new batch size once.
import torch

model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
cmodel = torch.compile(model, backend="eager")
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = torch.randn(100, 16)
for epoch in range(2):
    for i in range(0, 100, 32):
        loss = cmodel(data[i:i + 32]).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
