"""Tensor parallelism under fake tensors, on one process: what a Llama MLP block keeps for backward per rank.

PyTorch's tensor-parallel API (DTensor, ``parallelize_module`` with column- and row-wise plans) runs under
``FakeTensorMode`` with the fake process group (``torch.testing._internal.distributed.fake_pg``): no GPU, no
memory, one process standing for rank 0. A saved-tensors hook sums the storages autograd keeps (each once; the
linears' own weights apart), at TP = 1 and TP = 4, beside the page's count for the same block (its input kept
whole without sequence parallelism, four i-wide tensors divided by TP). Pipeline parallelism does not run this way:
its schedule reads a value (``aten._local_scalar_dense``), which fake tensors cannot give. Run with the measuring
environment (``tools/measure_env``)::

    .venv-measure/bin/python -m tools.measure_tp
"""

from __future__ import annotations

import json
from typing import Any

H, INNER, S, B, P = 4096, 14336, 2048, 1, 2  # Llama 3.1 8B's MLP, 2048 tokens, bf16
TP = 4


def page_bytes(tensor: int) -> int:
    """The page's count (``activation_memory.layer_terms``): the MLP's input whole, gate, up, SiLU and product / TP."""
    return P * S * B * H + 4 * P * S * B * INNER // tensor


def main() -> None:
    import torch
    import torch.distributed as dist
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import DTensor
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module
    from torch.testing._internal.distributed.fake_pg import FakeStore

    dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=TP)
    mesh = init_device_mesh("cpu", (TP,))

    class MLP(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.gate = torch.nn.Linear(H, INNER, bias=False)
            self.up = torch.nn.Linear(H, INNER, bias=False)
            self.down = torch.nn.Linear(INNER, H, bias=False)

        def forward(self, x: Any) -> Any:
            return self.down(torch.nn.functional.silu(self.gate(x)) * self.up(x))

    def local(tensor: Any) -> Any:
        return tensor.to_local() if isinstance(tensor, DTensor) else tensor

    def kept(model: Any) -> int:
        storages: list[Any] = []

        def pack(tensor: Any) -> Any:
            storage = local(tensor).untyped_storage()
            if all(storage is not other for other in storages):
                storages.append(storage)
            return tensor

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
            model(torch.randn(B, S, H, requires_grad=True))
        weights = sum(local(p).untyped_storage().nbytes() for p in model.parameters())
        return int(sum(storage.nbytes() for storage in storages) - weights)

    rows = []
    with FakeTensorMode():
        torch.set_default_dtype(torch.bfloat16)
        plan = {"gate": ColwiseParallel(), "up": ColwiseParallel(), "down": RowwiseParallel()}
        for tensor, model in ((1, MLP()), (TP, parallelize_module(MLP(), mesh, plan))):
            rows.append({"tensor_parallel": tensor, "measured_bytes": kept(model), "page_bytes": page_bytes(tensor)})
    print(json.dumps({"torch": torch.__version__, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
