# A training loop that starts recompiling midway: the sequence length is fixed for the first
# steps, then changes at every step, and the model is compiled with dynamic=False, so each new
# length recompiles until the recompile limit (8) is hit. Each step is said on stdout.
import time

import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(16, 16)

    def forward(self, x):
        return torch.relu(self.lin(x)).sum()


model = Model()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
step = torch.compile(model, backend="aot_eager", dynamic=False)
for i in range(14):
    seq_len = 32 if i < 4 else 32 + i
    loss = step(torch.randn(seq_len, 16))
    loss.backward()
    opt.step()
    opt.zero_grad()
    print("step %d seq_len %d" % (i, seq_len), flush=True)
    time.sleep(0.5)
