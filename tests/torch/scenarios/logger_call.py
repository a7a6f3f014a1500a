# A logger call inside a compiled function.
import logging

import torch

log = logging.getLogger("train")


@torch.compile(backend="eager")
def step(x):
    y = x * 2
    log.info("step done")
    return y + 1


step(torch.ones(4))
