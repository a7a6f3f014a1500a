# A head that computes the loss when the batch has labels: a training batch, then an
# inference batch without them.
import torch


@torch.compile(backend="eager")
def head(batch):
    out = {"logits": batch["x"] @ batch["w"]}
    if "labels" in batch:
        out["loss"] = (out["logits"] - batch["labels"]).pow(2).mean()
    return out


w = torch.randn(4, 3)
for step in range(2):
    head({"x": torch.randn(2, 4), "w": w, "labels": torch.randn(2, 3)})
    head({"x": torch.randn(2, 4), "w": w})
