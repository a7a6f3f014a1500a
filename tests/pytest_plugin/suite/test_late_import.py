# torch imported by the test itself, after the session started (no marker can open the test):
# its compiles are still its own. Run alone: nothing else may import torch first.
def test_imports_torch():
    import torch

    @torch.compile(backend="eager")
    def negate(x):
        torch._dynamo.graph_break()  # LINE:late_import
        return -x

    assert negate(torch.ones(2)).tolist() == [-1.0, -1.0]


def test_after():
    import torch

    @torch.compile(backend="eager")
    def twice(x):
        return x + x

    assert twice(torch.ones(1)).tolist() == [2.0]
