# Two ranks (gloo, CPU) that diverge: rank 1 calls the compiled function with a different
# batch size on its second step, so only rank 1 recompiles.
import os
import torch
import torch.distributed as dist
import torch.multiprocessing as mp


@torch.compile(backend="eager")
def step(x):
    return (x * 2).sum()


def run(rank):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=os.environ.get("PORT", "29511"))
    dist.init_process_group("gloo", rank=rank, world_size=2)
    step(torch.ones(4))
    step(torch.ones(4 if rank == 0 else 6))
    t = torch.ones(1)
    dist.all_reduce(t)
    dist.destroy_process_group()


if __name__ == "__main__":
    mp.spawn(run, nprocs=2)
