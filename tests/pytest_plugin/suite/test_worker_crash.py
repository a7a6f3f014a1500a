# A pytest-xdist worker that dies in its last test (check.py runs it with -n 2 --dist loadfile
# --max-worker-restart 0, so one worker runs them all, in this order, and none runs again): the
# controller makes the reports of its tests from its trace log, the dying test's compiles up
# to its death included.
import os

import torch


def test_before():
    @torch.compile(backend="eager")
    def parts(x):
        torch._dynamo.graph_break()  # LINE:before
        return x + 1

    parts(torch.ones(2))


def test_also():
    @torch.compile(backend="eager")
    def later(x):
        return x - 1

    later(torch.ones(2))


def test_dies():
    @torch.compile(backend="eager")
    def last(x):
        return x * 2

    last(torch.ones(2))
    os._exit(3)
