# A small module trained a few steps with the default backend (inductor): forward and backward
# graphs, AOT autograd's seq_nr, the FX graph cache; no graph break, no recompile.
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
cmodel = torch.compile(model)
for _ in range(3):
    x, y = torch.randn(4, 8), torch.randn(4, 1)
    loss = torch.nn.functional.mse_loss(cmodel(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
