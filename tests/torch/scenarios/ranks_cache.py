# Two ranks (gloo, CPU) over one Inductor cache folder, one config apart: rank 1 turns on
# max_autotune. Rank 0 compiles first (a barrier orders them), then rank 1: each misses the
# FX graph cache, and the only component of rank 1's key that differs from rank 0's is that
# config, which the ranks' report names.
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def f(x):
    return x.sin() + 1


def run(rank):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=os.environ.get("PORT", "29511"))
    import torch._inductor.config

    dist.init_process_group("gloo", rank=rank, world_size=2)
    if rank == 1:
        torch._inductor.config.max_autotune = True
        dist.barrier()
    torch.compile(f)(torch.ones(4, 4))
    if rank == 0:
        dist.barrier()
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    mp.spawn(run, nprocs=2)
