# A suite with nothing to find: `pytest --tlparse --tlparse-fail-on any` passes on it.
import pytest
import torch


@pytest.mark.compile_budget()
def test_add():
    @torch.compile(backend="eager")
    def add(x, y):
        return x + y

    assert add(torch.ones(2), torch.ones(2)).tolist() == [2.0, 2.0]


@pytest.mark.parametrize("n", [3, 3])
def test_same_shape_twice(n):
    @torch.compile(backend="eager")
    def cube(x):
        return x * x * x

    assert cube(torch.full((n,), 2.0)).tolist() == [8.0] * n
