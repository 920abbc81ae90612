"""The GPU fields, written once: the card's memory with a preset per catalogue GPU, the framework's reserve, and the
verdict both memory pages show."""

from __future__ import annotations

from decimal import Decimal

from ..form.model import Field, Kind, Preset
from ..form.numbers import format_decimal, format_field, scale_memory
from ..llm.gpus import GPU_DEFAULT, GPUS, Gpu
from ..llm.units import GB_PER_GIB

GPU_GROUP = "Compila con una GPU:"


def gpu_memory_field(modes: tuple[str, ...] = ()) -> Field:
    return Field(
        id="gpu_memory_gb", label="Memoria della GPU", default=format_field(GPU_DEFAULT.memory_gb),
        kind=Kind.DECIMAL, unit="GB", group="GPU", modes=modes, minimum=Decimal(0), exclusive_minimum=True,
        maximum=Decimal(100_000), example="85,9",
        help="In GB (10⁹ byte): una GPU «da 80 GB» ha 80 GiB, cioè 85,9 GB. I pulsanti la compilano.",
    )


def reserve_field(modes: tuple[str, ...] = ()) -> Field:
    return Field(
        id="reserve_gb", label="Riserva del framework", default="2", kind=Kind.DECIMAL, unit="GB", group="GPU",
        modes=modes, minimum=Decimal(0), maximum=Decimal(100_000),
        help="Contesto CUDA, buffer temporanei e frammentazione dell'allocatore: una stima da adattare.",
    )


def gpu_presets(modes: tuple[str, ...] = ()) -> tuple[Preset, ...]:
    """A button per GPU, named as its vendor names it ("RTX 4090 24GB"), with its memory in both units under the name,
    as the verdict writes it ("24 GiB = 25,77 GB")."""
    return tuple(Preset(gpu.id, gpu.label, {"gpu_memory_gb": format_field(gpu.memory_gb)}, GPU_GROUP, modes=modes,
                        note=gpu_size(gpu.memory_gb), preferred=gpu is GPU_DEFAULT)
                 for gpu in GPUS)


def gpu_size(memory_gb: Decimal) -> str:
    """A GPU's memory in both units, as its vendor names it (GiB, which nvidia-smi shows) and in GB (10⁹ byte, the
    unit of the fields): ``25,77`` → ``"24 GiB = 25,77 GB"``."""
    return f"{format_decimal(memory_gb / GB_PER_GIB)} GiB = {format_decimal(memory_gb)} GB"


def amount(gb: Decimal) -> str:
    """A memory in GB as results show it: in MB under 1 GB (the form's one unit policy)."""
    value, unit = scale_memory(gb, "GB")
    return f"{format_decimal(value)} {unit}"


def smallest_gpu(needed_gb: Decimal) -> Gpu | None:
    """The catalogue's card with the least memory that holds ``needed_gb`` (None when none does)."""
    return min((gpu for gpu in GPUS if gpu.memory_gb >= needed_gb), key=lambda gpu: gpu.memory_gb, default=None)


def bigger_card(needed_gb: Decimal) -> str:
    """The advice of a bigger card: the smallest of the catalogue that holds ``needed_gb``, named as its vendor names
    it, or that none does."""
    gpu = smallest_gpu(needed_gb)
    if gpu is None:
        return f"nessuna GPU del catalogo ha {amount(needed_gb)}: servono più GPU"
    return (f"una GPU con almeno {amount(needed_gb)}: la più piccola del catalogo è la {gpu.label}"
            f" ({gpu_size(gpu.memory_gb)})")


def fit_verdict(memory_gb: Decimal, headroom_gb: Decimal) -> str:
    """Whether the plan fits a GPU of ``memory_gb``, with what is left over the reserve (or what is missing)."""
    memory = gpu_size(memory_gb)
    if headroom_gb >= 0:
        return f"Entra in una GPU da {memory}: restano {amount(headroom_gb)} oltre la riserva."
    return f"Non entra in una GPU da {memory}: mancano {amount(-headroom_gb)}."
