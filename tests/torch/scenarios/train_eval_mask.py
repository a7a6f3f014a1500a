# Trained on batches of 8 (the last one of 5), then evaluated under torch.no_grad() with a mask,
# a new input, on batches of 8 and 3: the eval graph's y * mask ties x's batch to the mask's
# size, static at its first call, and specializes it to 8; the batch of 3 then recompiles.
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(16, 16)

    def forward(self, x, mask=None):
        y = self.lin(x)
        if mask is not None:
            y = y * mask
        return y.relu().sum()


model = Model()
cmodel = torch.compile(model, backend="eager")
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for bs in (8, 8, 8, 5):
        loss = cmodel(torch.randn(bs, 16))
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        for bs in (8, 3):
            cmodel(torch.randn(bs, 16), mask=torch.ones(bs, 16))
