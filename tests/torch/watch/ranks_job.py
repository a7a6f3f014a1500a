# A job of N ranks (gloo, CPU; N from argv, 1 as torchrun --nproc-per-node 1 gives it): each
# rank compiles a step and calls it on two batch sizes, so each recompiles once.
import os
import sys
import torch
import torch.distributed as dist
import torch.multiprocessing as mp


@torch.compile(backend="eager")
def step(x):
    return (x * 2).sum()


def run(rank, world):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=os.environ.get("PORT", "29512"))
    dist.init_process_group("gloo", rank=rank, world_size=world)
    step(torch.ones(4))
    step(torch.ones(6 + rank))
    t = torch.ones(1)
    dist.all_reduce(t)
    dist.destroy_process_group()


if __name__ == "__main__":
    world = int(sys.argv[1])
    mp.spawn(run, args=(world,), nprocs=world)
