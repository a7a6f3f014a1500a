# Subgraphs of one compile. block is a nested compile region (torch.compiler
# .nested_compile_region, PyTorch 2.13) called twice: compiled once and reused; 2.13 writes no
# subgraph_name for it. fn's annotated lines are compiled by regional inductor
# (torch.fx.passes.regional_inductor under aot_autograd): 2.13 writes subgraph_name
# "__marked_inductor_submod0" on every entry logged while it compiles them, which the index
# groups under a "Subgraph Name:" header. PyTorch 2.6 has neither: model and fn compile whole.
import torch
import torch.fx.traceback as fx_traceback

nested = getattr(torch.compiler, "nested_compile_region", lambda f: f)


@nested
def block(x, w):
    return torch.relu(x @ w) + 1


def model(x, w1, w2):
    return block(block(x, w1), w2).sum()


torch.manual_seed(0)
x = torch.randn(4, 8)
w1 = torch.randn(8, 8)
w2 = torch.randn(8, 8)
print(torch.compile(model)(x, w1, w2))

try:
    from torch._dynamo.backends.common import aot_autograd
    from torch.fx.passes.regional_inductor import regional_inductor
    backend = aot_autograd(fw_compiler=regional_inductor, bw_compiler=regional_inductor)
    annotate = fx_traceback.annotate
except (ImportError, AttributeError):
    backend = "inductor"
    annotate = None


def fn(x, y):
    s = torch.sin(x)
    if annotate is not None:
        with annotate({"compile_with_inductor": 0}):
            m = s * y + 1
    else:
        m = s * y + 1
    return torch.cos(m)


print(torch.compile(fn, backend=backend, fullgraph=True)(x, x))
