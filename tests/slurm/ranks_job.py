# SPDX-License-Identifier: BSD-3-Clause
# One rank of a two-rank gloo job (CPU), run by srun for tests/slurm.sh --torch: a compiled
# function that all-reduces, called twice with one size and once with another (a recompile).
# RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT come from the environment; TORCH_TRACE names
# this node's trace folder.
import logging
import os

import torch
import torch.distributed as dist


@torch.compile
def step(x):
    y = x * 2 + 1
    dist.all_reduce(y)
    return y.sum()


def main():
    dist.init_process_group("gloo")
    for n in (4, 4, 6):
        step(torch.ones(n))
    dist.barrier()
    # PyTorch 2.6's gloo now and then keeps rank 0 alive in its teardown after rank 1 has
    # exited, both logs complete (3 of 5 runs on this machine): the work is done once both
    # passed the barrier, so the trace is flushed and the process ends without the teardown.
    logging.shutdown()
    os._exit(0)


if __name__ == "__main__":
    main()
