"""The «picco di un passo» convention's inverse questions, each answered with its reasoning: the fewest GPUs of
the chosen card (and the layout), the smallest card of the catalogue for one GPU, the longest sequence, and the
largest catalogue model the GPUs can train with the chosen method.

Each search reads candidate fields through the convention's own ``read``/``check``, so a candidate is valid
exactly when the form would accept it; "fits" means the expected nvidia-smi figure is within the card, as for the
largest micro-batch. Memory per GPU never grows with DP (ZeRO shards more), nor with the sequence shrinking,
so each search is a bisection, and the answer is tight: one GPU, one card, one token less or more does not fit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from math import gcd

from ..form.model import Field, Format, Kind, Result, Value, Values, integer, read_field
from ..form.numbers import format_decimal, format_integer
from ..llm import parallelism as par
from ..llm import training_step as ts
from ..llm.activation_memory import MAX_SEQUENCE
from ..llm.catalogue import VRAM
from ..llm.gpus import GPUS
from ..llm.units import BYTES_PER_GB, BYTES_PER_GIB
from . import vram_step
from .presets import presets_for

TENSOR_CHOICES = (1, 2, 4, 8)  # within one node's NVLink domain
MAX_STAGES = 16
MAX_GPUS = 16_384


def expected(values: Values) -> Decimal:
    """The expected nvidia-smi figure of the peak GPU."""
    given = vram_step.read(values)
    return vram_step.shown_of(given, vram_step.evaluate_step(given))[1]


def fits(values: Values) -> bool:
    given = vram_step.read(values)
    return vram_step.shown_of(given, vram_step.evaluate_step(given))[1] <= given.gpu_bytes


def valid(values: Values) -> bool:
    return not vram_step.check(values)


@dataclass(frozen=True)
class Plan:
    """A layout that fits: its degrees, ZeRO stage and what nvidia-smi shows."""

    gpus: int
    tensor: int
    pipeline: int
    context: int
    data: int
    stage: int
    shown: Decimal


def _with(values: Values, **changes: Value) -> dict[str, Value]:
    return {**values, **changes}


def layouts(values: Values) -> list[Plan]:
    """For each TP (up to 8) and PP (dividing the layers, up to 16), the fewest data-parallel replicas that fit
    with ZeRO-3 (which never needs more than the lower stages), then the chosen stage if it fits as many; CP and
    EP as chosen. Best first."""
    method = str(values["method"])
    chosen = int(str(values["zero_stage"]))
    layers = integer(values, "layers")
    tensors = TENSOR_CHOICES if method not in ts.ADAPTERS else (1,)
    pipelines = par.divisors(layers, MAX_STAGES) if method == ts.FULL and not integer(
        values, "decoder_layers") else [1]
    context, experts = integer(values, "context_parallel"), integer(values, "expert_parallel")
    step = experts // gcd(experts, context)  # EP comes out of DP · CP
    plans: list[Plan] = []
    combos = sorted(((t, p) for t in tensors for p in pipelines), key=lambda c: c[0] * c[1])
    for tensor, pipeline in combos:
        group = tensor * pipeline * context * step
        base = _with(values, tensor_parallel=Decimal(tensor), pipeline_parallel=Decimal(pipeline),
                     virtual_stages=Decimal(1), hsdp_replicas=Decimal(1), zero_stage="3")

        def at(k: int, base: Values = base, group: int = group) -> dict[str, Value]:
            return _with(base, gpus=Decimal(group * k))

        def fits_at(k: int, at: Callable[[int], Values] = at) -> bool:
            return fits(at(k))
        if not valid(at(1)):
            continue
        # Layouts up to twice the best so far are worth naming; beyond that, one look says no.
        bound = min(p.gpus for p in plans) * 2 if plans else MAX_GPUS
        k = 1 if fits(at(1)) else par.smallest(fits_at, 2, max(bound // group, 2))
        if k is None:
            continue
        stage = chosen if chosen < 3 and valid(_with(at(k), zero_stage=str(chosen))) and fits(
            _with(at(k), zero_stage=str(chosen))) else 3
        plans.append(Plan(group * k, tensor, pipeline, context, group * k // (tensor * pipeline * context), stage,
                          expected(_with(at(k), zero_stage=str(stage)))))
    return sorted(plans, key=lambda p: (p.gpus, p.tensor * p.pipeline, p.pipeline, p.stage))


def describe(plan: Plan) -> str:
    context = f" × CP {plan.context}" if plan.context > 1 else ""
    zero = f"ZeRO-{plan.stage}" if plan.stage else "senza ZeRO"
    return (f"TP {plan.tensor} × PP {plan.pipeline}{context} × DP {format_integer(plan.data)}, {zero}"
            f" (nvidia-smi ≈ {format_decimal(plan.shown / BYTES_PER_GIB)} GiB)")


def fewest_gpus(values: Values) -> tuple[str, Plan | None]:
    """The answer, the search it comes from, and the other layouts within reach."""
    plans = layouts(values)
    card = format_decimal(vram_step.read(values).gpu_bytes / BYTES_PER_GB)
    if not plans:
        return (f"Nessuna disposizione provata entra in GPU da {card} GB fino a {format_integer(MAX_GPUS)} GPU:"
                " riduci sequenza o micro-batch, o attiva il checkpointing."), None
    best = plans[0]
    others = [f"{format_integer(p.gpus)} GPU con {describe(p)}" for p in plans[1:4]]
    text = (f"Servono almeno {format_integer(best.gpus)} GPU da {card} GB: {describe(best)}. Con"
            f" {format_integer(best.gpus - 1)} o meno nessuna disposizione provata entra (TP fino a 8, PP che divide"
            f" gli strati fino a {MAX_STAGES}, ZeRO come scelto o 3, CP ed EP come indicati).")
    if others:
        text += " Altre disposizioni: " + "; ".join(others) + "."
    return text, best


def smallest_card(values: Values) -> str:
    """The first card of the catalogue, by memory, on which the run fits alone."""
    single = _with(values, gpus=Decimal(1), tensor_parallel=Decimal(1), pipeline_parallel=Decimal(1),
                   virtual_stages=Decimal(1), context_parallel=Decimal(1), expert_parallel=Decimal(1),
                   hsdp_replicas=Decimal(1))
    cards = sorted(GPUS, key=lambda gpu: gpu.stated_gib)
    previous = None
    for gpu in cards:
        on_card = _with(single, gpu_memory_gb=gpu.memory_gb)
        if valid(on_card) and fits(on_card):
            shown = format_decimal(expected(on_card) / BYTES_PER_GIB)
            before = (f"; la precedente, {previous.label}, non basta" if previous is not None else
                      "; è la più piccola del catalogo")
            return f"Su una GPU sola entra a partire dalla {gpu.label} (≈ {shown} GiB){before}."
        previous = gpu
    return "Nessuna GPU del catalogo basta da sola: servono più GPU (vedi sopra)."


def longest_sequence(values: Values) -> int | None:
    """The longest sequence that fits with everything else as chosen (a multiple of 2·CP with context
    parallelism)."""
    context = integer(values, "context_parallel")
    unit = 2 * context if context > 1 else 1

    def ok(k: int) -> bool:
        candidate = _with(values, sequence_length=Decimal(k * unit))
        return valid(candidate) and fits(candidate)
    k = par.largest(ok, 1, MAX_SEQUENCE // unit)
    return None if k is None else k * unit


def largest_model(values: Values, models: Sequence[tuple[str, Mapping[str, Value]]]) -> str:
    """The catalogue model with the most parameters that fits these GPUs with this method and layout."""
    fitting, larger = None, None
    for label, fields in sorted(models, key=lambda m: Decimal(str(m[1]["parameters_billion"]))):
        candidate = _with(values, **fields)
        if not valid(candidate):
            continue
        if fits(candidate):
            fitting, larger = (label, candidate), None
        elif larger is None:
            larger = label
    if fitting is None:
        return "Nessun modello del catalogo entra con queste GPU e questa disposizione."
    label, candidate = fitting
    billions = format_decimal(Decimal(str(candidate["parameters_billion"])))
    after = f"; il successivo per dimensione, {larger}, no" if larger else "; è il più grande che accetta la disposizione"
    return (f"{label} ({billions} miliardi di parametri, ≈ {format_decimal(expected(candidate) / BYTES_PER_GIB)} GiB"
            f" per GPU){after}.")


@cache
def catalogue(fields: tuple[Field, ...]) -> list[tuple[str, dict[str, Value]]]:
    """The models the VRAM page offers, each as its fields' values (read as the form reads them)."""
    specs = {spec.id: spec for spec in fields}
    return [(preset.label, {key: read_field(specs[key], text) for key, text in preset.values.items() if key in specs})
            for preset in presets_for(VRAM)]


def outputs(values: Values, fields: tuple[Field, ...]) -> dict[str, Decimal | str | None]:
    """The four answers, as the page's results (when asked for: they take a few hundred searches)."""
    if values.get("inverse") is not True:
        return dict.fromkeys(("min_gpus", "min_card", "max_sequence", "max_model"))
    text, _ = fewest_gpus(values)
    longest = longest_sequence(values)
    return {"min_gpus": text, "min_card": smallest_card(values),
            "max_sequence": Decimal(longest) if longest is not None else None,
            "max_model": largest_model(values, catalogue(fields))}


FIELD = Field(id="inverse", label="Rispondi alle domande inverse", default="", kind=Kind.FLAG,
              group="Domande inverse", modes=(vram_step.STEP,),
              help="Quante GPU servono e come disporle, la GPU più piccola che basta, la sequenza più lunga, il"
                   " modello più grande: qualche centinaio di prove, un attimo in più a ogni modifica.")

RESULTS = (
    Result("data_parallel", "Parallelismo dei dati", "repliche", format=Format.COUNT, modes=(vram_step.STEP,),
           help="GPU ÷ (TP · PP · CP): le repliche che vedono campioni diversi; il calcolatore dell'accumulo"
                " pianifica il batch su queste."),
    Result("peak_stage", "GPU del picco", format=Format.TEXT, modes=(vram_step.STEP,)),
    Result("min_gpus", "Quante GPU di questa scheda servono, e come disporle", format=Format.TEXT,
           modes=(vram_step.STEP,)),
    Result("max_sequence", "Sequenza più lunga che entra", "token", format=Format.COUNT, modes=(vram_step.STEP,),
           help="Con la disposizione, il micro-batch e il resto come indicati: un token in più (un blocco di 2·CP"
                " con il parallelismo di contesto) non entra."),
    Result("min_card", "La GPU più piccola che basta da sola", format=Format.TEXT, modes=(vram_step.STEP,),
           help="Tra le GPU del catalogo, con una GPU sola (niente TP, PP, CP, EP) e il resto come indicato."),
    Result("max_model", "Il modello più grande del catalogo che entra", format=Format.TEXT, modes=(vram_step.STEP,),
           help="Con queste GPU, questa disposizione e questo metodo; gli altri campi come indicati."),
)
