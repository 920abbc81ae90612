"""GPUs people train on, as data: the memory, dense peak throughput and board power each vendor states, with
the sources.

Vendors write "80GB" for 80 GiB of HBM (nvidia-smi shows 81 920 MiB on an A100
80GB), so ``memory_gb`` is the stated figure read as GiB and converted to GB
(10⁹ byte), the unit of the VRAM calculator. Peak throughput is the dense figure
(datasheets of Hopper and Blackwell print it with 2:4 sparsity, twice as large),
in TFLOP/s for bf16 matrix products with fp32 accumulation (GeForce cards run
those at half their fp16-accumulate rate) and for fp8 where the card has it.
Adding a GPU is one entry.
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
    bf16_tflops: Decimal = Decimal(0)  # dense peak, bf16 (fp32 accumulate)
    fp8_tflops: Decimal = Decimal(0)  # dense peak, fp8; 0 where the card has none
    power_w: int = 0  # board power (TDP/TGP)
    throughput_source: str = ""

    @property
    def memory_gb(self) -> Decimal:
        return self.stated_gib * GB_PER_GIB


# Peak tables that cite the vendors' datasheets: torchtitan's (NVIDIA and AMD data-center cards) and llm.c's
# (GeForce cards, from NVIDIA's architecture whitepapers).
TORCHTITAN_PEAKS = "pytorch/torchtitan@b5bcd76c66d0acb1a08b176d9639425bc55e0b2a:torchtitan/tools/utils.py"
LLMC_PEAKS = "karpathy/llm.c@e4b5e5775f91fcf61e21784d3b18b39d4200de81:llmc/mfu.h"
D = Decimal

GPUS: tuple[Gpu, ...] = (
    Gpu("a100-40", "A100 40GB", 40, "https://www.nvidia.com/en-us/data-center/a100/", D(312), D(0), 400,
        TORCHTITAN_PEAKS),
    Gpu("a100-80", "A100 80GB", 80, "https://www.nvidia.com/en-us/data-center/a100/", D(312), D(0), 400,
        TORCHTITAN_PEAKS),
    Gpu("h100-80", "H100 80GB", 80, "https://www.nvidia.com/en-us/data-center/h100/", D(989), D(1979), 700,
        TORCHTITAN_PEAKS),
    Gpu("h200-141", "H200 141GB", 141, "https://www.nvidia.com/en-us/data-center/h200/", D(989), D(1979), 700,
        TORCHTITAN_PEAKS),
    Gpu("b200-180", "B200 180GB", 180, "https://www.nvidia.com/en-us/data-center/dgx-b200/", D(2250), D(4500), 1000,
        TORCHTITAN_PEAKS),
    Gpu("l40s-48", "L40S 48GB", 48, "https://www.nvidia.com/en-us/data-center/l40s/", D("362.05"), D(733), 350,
        TORCHTITAN_PEAKS),
    Gpu("rtx-4090", "RTX 4090 24GB", 24, "https://www.nvidia.com/en-us/geforce/graphics-cards/40-series/rtx-4090/",
        D("165.2"), D("330.3"), 450, LLMC_PEAKS),
    Gpu("rtx-3090", "RTX 3090 24GB", 24, "https://www.nvidia.com/en-us/geforce/graphics-cards/30-series/rtx-3090-3090ti/",
        D(71), D(0), 350, LLMC_PEAKS),
    Gpu("mi300x-192", "MI300X 192GB", 192, "https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html",
        D("1307.4"), D("2614.9"), 750, TORCHTITAN_PEAKS),
)

GPU_DEFAULT: Gpu = next(gpu for gpu in GPUS if gpu.id == "h100-80")

