"""A model's pasted ``config.json`` as the text of every field a page has, with the notes of ``llm.hf_config`` and
the count it gives beside the publisher's when the model is in the catalogue."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

from ..form.model import Pasted
from ..form.numbers import format_exact_field, format_integer
from ..llm import hf_config
from ..llm.architectures import Architecture
from ..llm.catalogue import MODELS
from .presets import field_texts

SHAPE = ("layers", "hidden", "intermediate", "heads", "kv_heads", "vocab", "dim", "experts", "experts_per_token",
         "expert_intermediate", "shared_intermediate", "decoder_layers", "tied", "mlp", "moe_layers", "kv_lora_rank",
         "q_lora_rank", "sinks")


def same_model(arch: Architecture) -> Architecture | None:
    """The catalogue's entry with this shape, if there is one."""
    def shape(entry: Architecture) -> tuple[object, ...]:
        return tuple(getattr(entry, key) for key in SHAPE)
    return next((entry for entry in MODELS if shape(entry) == shape(arch)), None)


def config_paster(head_dim_always: bool = False) -> Callable[[str], Pasted]:
    """A page's reader of config.json; ``head_dim_always``: a page without the hidden size gets the head dimension
    even where the config does not fix it."""
    def paste(text: str) -> Pasted:
        reading = hf_config.read(text)
        arch = reading.architecture
        if arch is None:
            return Pasted({}, tuple(reading.notes), reading.error)
        texts = field_texts(arch)
        if head_dim_always:
            texts["head_dim"] = str(arch.dim)
        count = arch.parameters()
        notes = [f"Parametri contati dalla forma: {format_integer(count)}."]
        known = same_model(arch)
        if known is not None and known.stated_parameters:
            agree = "uguale" if known.agrees_with_publisher(count) else "diverso"
            rounded = known.stated_rounding > 1
            stated = (f"{format_exact_field(Decimal(known.stated_parameters) / 10**9)} miliardi di" if rounded
                      else format_integer(known.stated_parameters))
            notes.append(f"È la forma di {known.label} del catalogo: l'editore dichiara {stated} parametri"
                         f" ({agree}{', alle cifre che dà' if rounded else ''}).")
        return Pasted(texts, (*notes, *reading.notes))
    return paste
