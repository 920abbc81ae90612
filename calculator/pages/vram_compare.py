"""The «picco di un passo» convention's comparison: up to three more configurations (B, C, D), each a few fields
that differ from the form's own (A) — method, precision, optimizer, checkpointing, ZeRO stage, GPUs, TP, PP, CP, EP,
sequence length — left empty to keep A's. Every field is in the address, so a comparison is shared by its link. Each
configuration is read and checked like A; a problem is said beside the field of the configuration that causes it."""

from __future__ import annotations

from decimal import Decimal

from ..form.model import Field, Format, Kind, Option, Result, Table, Value, Values
from ..form.numbers import format_decimal
from ..form.svg import layout_bars, phase_bars
from ..llm import training_step as ts
from ..llm.units import BYTES_PER_GIB
from . import vram_step

LETTERS = ("B", "C", "D")
SAME = ""
CHOICES = ("method", "precision_mode", "step_optimizer", "checkpointing", "zero_stage")
DEGREES = ("gpus", "tensor_parallel", "pipeline_parallel", "context_parallel", "expert_parallel", "sequence_length")
SHORT = {"zero_stage": "ZeRO-{}", "gpus": "{} GPU", "tensor_parallel": "TP {}", "pipeline_parallel": "PP {}",
         "context_parallel": "CP {}", "expert_parallel": "EP {}", "sequence_length": "{} token"}
COMPONENTS = {"weights": "Pesi", "gradients": "Gradienti", "optimizer": "Stati dell'ottimizzatore",
              "activations": "Attivazioni", "loss": "Logit e loss", "temporaries": "Temporanei"}


def field_id(letter: str, key: str) -> str:
    return f"cfr_{letter.lower()}_{key}"


def fields(base: tuple[Field, ...]) -> tuple[Field, ...]:
    """Each configuration's fields, made from the form's own: a choice with «come A» first, or an empty number."""
    specs = {spec.id: spec for spec in base}
    out = []
    for letter in LETTERS:
        group = f"Confronto: configurazione {letter}"
        for key in CHOICES:
            spec = specs[key]
            out.append(Field(id=field_id(letter, key), label=spec.label, default=SAME, kind=Kind.CHOICE, group=group,
                             options=(Option(SAME, "Come A"), *spec.options), modes=(vram_step.STEP,),
                             help=f"Configurazione {letter}: «Come A» tiene il valore del modulo."))
        for key in DEGREES:
            spec = specs[key]
            out.append(Field(id=field_id(letter, key), label=spec.label, default="", unit=spec.unit, group=group,
                             optional=True, maximum=spec.maximum, modes=(vram_step.STEP,),
                             help=f"Configurazione {letter}: vuoto tiene il valore del modulo."))
    return tuple(out)


def changes(values: Values, letter: str) -> dict[str, Value]:
    """What configuration ``letter`` sets (empty: it is not compared)."""
    out: dict[str, Value] = {}
    for key in CHOICES + DEGREES:
        value = values.get(field_id(letter, key))
        if value not in (None, SAME):
            out[key] = value
    return out


def configurations(values: Values) -> list[tuple[str, dict[str, Value]]]:
    """A and each configuration that sets something, as the form's values."""
    out = [("A", dict(values))]
    for letter in LETTERS:
        if change := changes(values, letter):
            out.append((letter, {**values, **change}))
    return out


def check(values: Values) -> dict[str, str]:
    """A configuration's problems, beside the field it changed (or its first one)."""
    errors: dict[str, str] = {}
    for letter in LETTERS:
        change = changes(values, letter)
        if not change:
            continue
        for key, message in vram_step.check({**values, **change}).items():
            target = field_id(letter, key) if key in change else field_id(letter, next(iter(change)))
            errors.setdefault(target, f"Configurazione {letter}: {message}")
    return errors


def label(letter: str, change: dict[str, Value], specs: dict[str, Field]) -> str:
    """B, C, D named by what they change."""
    if letter == "A":
        return "A"
    parts = []
    for key, value in change.items():
        spec = specs[key]
        if key in SHORT:
            parts.append(SHORT[key].format(format_decimal(value) if isinstance(value, Decimal) else value))
        elif spec.kind is Kind.CHOICE:
            parts.append(next(option.label for option in spec.options if option.value == value).split(" (")[0])
        else:
            parts.append(f"{spec.label.split(' (')[0]} {format_decimal(Decimal(str(value)))}")
    return f"{letter} ({', '.join(parts)})"


def peaks(values: Values) -> list[tuple[str, ts.Phase, Decimal, Decimal]]:
    """Each configuration: its name, its peak phase, the nvidia-smi figure expected, the card."""
    out = []
    for letter, config in configurations(values):
        given = vram_step.read(config)
        result = vram_step.evaluate_step(given)
        out.append((letter, result.peak, vram_step.shown_of(given, result)[1], given.gpu_bytes))
    return out


def compared(values: Values) -> bool:
    return any(changes(values, letter) for letter in LETTERS)


def summary(values: Values, specs: dict[str, Field]) -> str | None:
    """One sentence per configuration: its peak, what nvidia-smi shows, whether it fits."""
    if not compared(values):
        return None
    names = {letter: label(letter, changes(values, letter), specs) for letter in ("A", *LETTERS)}
    sentences = []
    for letter, peak, shown, card in peaks(values):
        verdict = "entra" if shown <= card else "non entra"
        sentences.append(f"{names[letter]}: picco {format_decimal(peak.total / BYTES_PER_GIB)} GiB per GPU,"
                         f" nvidia-smi ≈ {format_decimal(shown / BYTES_PER_GIB)} GiB, {verdict}")
    return "; ".join(sentences) + "."


def chart(values: Values) -> str:
    """One stacked bar per configuration (its peak phase, by component) against the card; each named by its letter
    (the result beside it says what each one changes: a long name would not fit the narrow chart)."""
    rows = [(letter, [peak.parts[key] / BYTES_PER_GIB for key in COMPONENTS]) for letter, peak, _, _ in peaks(values)]
    card = vram_step.read(values).gpu_bytes / BYTES_PER_GIB
    return phase_bars("Picco per GPU di ogni configurazione, per componente", tuple(COMPONENTS.values()), rows,
                      "GiB", card, "Memoria della GPU")


RESULT = Result("comparison", "Confronto delle configurazioni", format=Format.TEXT, modes=(vram_step.STEP,),
                help="Il picco allocato e la cifra di nvidia-smi di A e delle configurazioni B, C, D; il grafico le"
                     " mette una sotto l'altra sulla stessa scala.")


# The article's figure: one model, one sequence, the same 32 GPUs laid out five ways (ZeRO-1 with a pipeline, as
# Megatron-LM and torchtitan keep a stage's weights whole; ZeRO-3 otherwise).
LAYOUTS: tuple[tuple[str, dict[str, int | str | bool]], ...] = (
    ("FSDP", {"gpus": 32, "zero_stage": "3"}),
    ("TP 8, FSDP", {"gpus": 32, "tensor_parallel": 8, "zero_stage": "3", "sequence_parallel": True}),
    ("TP 8, CP 2, FSDP", {"gpus": 32, "tensor_parallel": 8, "context_parallel": 2, "zero_stage": "3",
                          "sequence_parallel": True}),
    ("TP 4, PP 4, ZeRO-1", {"gpus": 32, "tensor_parallel": 4, "pipeline_parallel": 4, "zero_stage": "1",
                            "sequence_parallel": True}),
    ("Lo stesso, interleaved", {"gpus": 32, "tensor_parallel": 4, "pipeline_parallel": 4, "virtual_stages": 5,
                                "zero_stage": "1", "sequence_parallel": True}),
)


# The article's figure of experts: a mixture of experts on the same 32 GPUs, its experts whole or split EP ways.
MOE_LAYOUTS: tuple[tuple[str, dict[str, int | str | bool]], ...] = (
    ("ZeRO-1", {"gpus": 32, "zero_stage": "1"}),
    ("EP 8, ZeRO-1", {"gpus": 32, "zero_stage": "1", "expert_parallel": 8}),
    ("FSDP", {"gpus": 32, "zero_stage": "3"}),
    ("EP 8, FSDP", {"gpus": 32, "zero_stage": "3", "expert_parallel": 8}),
)


def layout_step(values: Values, change: dict[str, int | str | bool]) -> ts.Step:
    """The step of the peak GPU with ``change`` applied to the form's values (numbers as the form reads them)."""
    config: dict[str, Value] = {**values}
    for key, value in change.items():
        config[key] = value if isinstance(value, (str, bool)) else Decimal(value)
    return vram_step.evaluate_step(vram_step.read(config))


def kept_phase(step: ts.Step) -> ts.Phase:
    """The phase that holds the most activations (with the logits and the loss): the start of the backward."""
    return max(step.phases, key=lambda phase: phase.parts["activations"] + phase.parts["loss"])


def layout_rows(values: Values, layouts: tuple[tuple[str, dict[str, int | str | bool]], ...]
                ) -> list[tuple[str, list[Decimal], Decimal]]:
    """The figure's rows, in GiB: each layout's phase with the most activations, by component, and its step's peak."""
    rows = []
    for name, change in layouts:
        step = layout_step(values, change)
        phase = kept_phase(step)
        rows.append((name, [phase.parts[key] / BYTES_PER_GIB for key in COMPONENTS], step.allocated / BYTES_PER_GIB))
    return rows


def layout_figure(values: Values, layouts: tuple[tuple[str, dict[str, int | str | bool]], ...], ident: str,
                  title: str) -> str:
    """An article's figure: per-GPU memory of the peak GPU, one stacked bar per layout, in the phase that holds the
    most activations, with each step's peak marked where it lies beyond (the optimizer step's temporaries). The
    components no layout holds are left out of the bars and the legend."""
    rows = layout_rows(values, layouts)
    used = [index for index in range(len(COMPONENTS)) if any(parts[index] for _, parts, _ in rows)]
    names = list(COMPONENTS.values())
    return layout_bars(ident, title, [names[index] for index in used],
                       [(name, [parts[index] for index in used], peak) for name, parts, peak in rows], "GiB",
                       "GiB per GPU, all'inizio del backward", "Picco del passo (con il passo dell'ottimizzatore)")


def layout_table(values: Values) -> Table:
    """GiB per GPU of the peak GPU for each layout of ``LAYOUTS``: weights, gradients and states at the peak, the
    activations and loss at their largest (in backward), and the peak. Few columns: the article's column is narrow,
    and a table that scrolls is a region keyboards cannot reach."""
    rows = []
    for name, change in LAYOUTS:
        result = layout_step(values, change)
        parts = result.peak.parts
        cells = [format_decimal(parts[key] / BYTES_PER_GIB) for key in ("weights", "gradients", "optimizer")]
        kept = kept_phase(result)
        cells.append(format_decimal((kept.parts["activations"] + kept.parts["loss"]) / BYTES_PER_GIB))
        rows.append((name, *cells, format_decimal(result.allocated / BYTES_PER_GIB)))
    return Table(("32 GPU", "Pesi", "Gradienti", "Stati", "Attivazioni", "Picco"), tuple(rows),
                 (False, True, True, True, True, True))
