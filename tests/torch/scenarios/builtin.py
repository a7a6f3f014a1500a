# A call Dynamo cannot trace: a C builtin it does not know (here, an os call).
import os
import torch


@torch.compile(backend="eager")
def with_pid(x):
    return x + os.getpid() % 2


with_pid(torch.randn(4))
