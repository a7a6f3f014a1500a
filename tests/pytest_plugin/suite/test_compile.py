# The suite that tests/pytest_plugin/check.py runs under `pytest --tlparse`: each test compiles
# functions of its own (dynamo caches per code object), with the "eager" backend (no C++
# compiler). A "# LINE:NAME" comment marks the line a finding must name (check.py reads them).
import pytest
import torch


def test_clean():
    @torch.compile(backend="eager")
    def double(x):
        return x * 2 + 1

    assert double(torch.ones(3)).tolist() == [3.0, 3.0, 3.0]


def test_graph_break():
    @torch.compile(backend="eager")
    def two_parts(x):
        x = x + 1
        torch._dynamo.graph_break()  # LINE:graph_break
        return x * 2

    two_parts(torch.ones(4))


def test_recompile():
    @torch.compile(backend="eager", dynamic=False)  # LINE:recompile (the function's first line)
    def scale(x):
        return x * 3

    scale(torch.ones(4))
    scale(torch.ones(5))


def test_no_compile():
    assert torch.ones(2).sum().item() == 2.0


@pytest.mark.compile_budget(recompiles=1)
def test_budget_met():
    @torch.compile(backend="eager", dynamic=False)
    def shift(x):
        return x - 1

    shift(torch.ones(2))
    shift(torch.ones(3))


@pytest.mark.compile_budget(graph_breaks=0)
def test_budget_exceeded():
    @torch.compile(backend="eager")
    def chatty(x):
        y = x.sum()
        print("sum", y)  # LINE:budget_exceeded
        return y + 1

    chatty(torch.ones(3))


def broken_backend(gm, example_inputs):
    raise RuntimeError("broken_backend cannot compile this graph")


@pytest.mark.compile_budget(eager=0)
def test_eager():
    @torch.compile(backend=broken_backend)  # LINE:eager (the function's first line)
    def relu1(x):
        return x.relu() + 1

    with torch._dynamo.config.patch(suppress_errors=True):
        relu1(torch.ones(4))


def test_fails_itself():
    @torch.compile(backend="eager")
    def halves(x):
        y = x / 2
        torch._dynamo.graph_break()  # LINE:fails_itself
        return y

    assert halves(torch.ones(2)).tolist() == [1.0, 1.0], "the test's own assertion"
