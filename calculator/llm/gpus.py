"""GPUs people train on, as data: the memory each vendor states, with the source.

Vendors write "80GB" for 80 GiB of HBM (nvidia-smi shows 81 920 MiB on an A100
80GB), so ``memory_gb`` is the stated figure read as GiB and converted to GB
(10⁹ byte), the unit of the VRAM calculator. Adding a GPU is one entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from .units import GB_PER_GIB


@dataclass(frozen=True)
class Gpu:
    id: str
    label: str
    stated_gib: int  # the vendor's "GB" figure, which counts binary gigabytes
    source: str

    @property
    def memory_gb(self) -> Decimal:
        return self.stated_gib * GB_PER_GIB


GPUS: tuple[Gpu, ...] = (
    Gpu("a100-40", "A100 40GB", 40, "https://www.nvidia.com/en-us/data-center/a100/"),
    Gpu("a100-80", "A100 80GB", 80, "https://www.nvidia.com/en-us/data-center/a100/"),
    Gpu("h100-80", "H100 80GB", 80, "https://www.nvidia.com/en-us/data-center/h100/"),
    Gpu("h200-141", "H200 141GB", 141, "https://www.nvidia.com/en-us/data-center/h200/"),
    Gpu("b200-180", "B200 180GB", 180, "https://www.nvidia.com/en-us/data-center/dgx-b200/"),
    Gpu("l40s-48", "L40S 48GB", 48, "https://www.nvidia.com/en-us/data-center/l40s/"),
    Gpu("rtx-4090", "RTX 4090 24GB", 24, "https://www.nvidia.com/en-us/geforce/graphics-cards/40-series/rtx-4090/"),
    Gpu("rtx-3090", "RTX 3090 24GB", 24, "https://www.nvidia.com/en-us/geforce/graphics-cards/30-series/rtx-3090-3090ti/"),
    Gpu("mi300x-192", "MI300X 192GB", 192, "https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html"),
)

GPU_DEFAULT: Gpu = next(gpu for gpu in GPUS if gpu.id == "h100-80")

