# A Python float argument: Dynamo restarts the frame's analysis to turn the float into a
# tensor input (TensorifyScalarRestartAnalysis), so new values do not recompile.
import torch


@torch.compile(backend="eager")
def mix(x, alpha):
    return x * alpha + (1 - alpha)


x = torch.randn(4)
mix(x, 0.25)
mix(x, 0.5)
