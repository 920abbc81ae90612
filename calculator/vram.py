"""Calcolatore della VRAM di addestramento per LLM.

Model states take bytes per parameter by optimizer and precision; ZeRO shards
them over the data-parallel GPUs (Rajbhandari et al., arXiv:1910.02054 §5):
stage 1 the optimizer states, stage 2 also the gradients, stage 3 also the
weights. Activations are per GPU and are not sharded. 1 GB = 10⁹ byte.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

from .gpus import GPU_DEFAULT, GPUS
from .model import Calculator, Feed, Field, Format, Kind, Option, Outputs, Preset, Result, Values, number
from .numbers import format_decimal, format_field
from .svg import stacked_bar


@dataclass(frozen=True)
class Recipe:
    """Bytes per parameter of one optimizer/precision choice, and where they come from."""

    label: str
    weights: int
    gradients: int
    optimizer: int
    source: str

    @property
    def total(self) -> int:
        return self.weights + self.gradients + self.optimizer


RECIPES: dict[str, Recipe] = {
    "adamw_mixed": Recipe(
        "AdamW in precisione mista", 2, 2, 12,
        "ZeRO, arXiv:1910.02054 §3.1: pesi e gradienti fp16/bf16, copia master fp32, primo e secondo momento",
    ),
    "adamw_fp32_grads": Recipe(
        "AdamW in precisione mista con gradienti fp32", 2, 4, 12,
        "Hugging Face, «Model memory anatomy»: gradienti in fp32",
    ),
    "adamw_8bit": Recipe(
        "AdamW a 8 bit in precisione mista", 2, 2, 6,
        "EleutherAI, «Transformer Math 101»: copia fp32 (4 B) e due momenti a 8 bit (2 B)",
    ),
    "sgd_momentum": Recipe(
        "SGD con momento in precisione mista", 2, 2, 8,
        "EleutherAI, «Transformer Math 101»: copia fp32 (4 B) e momento fp32 (4 B)",
    ),
    "adamw_fp32": Recipe(
        "AdamW in fp32 pieno", 4, 4, 8,
        "EleutherAI, «Transformer Math 101»: pesi e gradienti fp32, due momenti fp32",
    ),
}


ZERO_STAGES = {
    "0": "0 – nessun partizionamento",
    "1": "1 – stati dell'ottimizzatore partizionati",
    "2": "2 – anche i gradienti",
    "3": "3 – anche i pesi",
}


def compute(values: Values) -> Outputs:
    """Model states from bytes per parameter, then the per-GPU share under ZeRO."""
    params, activations, gpus = (number(values, key) for key in ("parameters_billion", "activation_gb", "gpus"))
    recipe = RECIPES[str(values["optimizer"])]
    stage = int(str(values["zero_stage"]))
    weights, gradients, optimizer = (params * recipe.weights, params * recipe.gradients, params * recipe.optimizer)
    shard = [weights if stage < 3 else weights / gpus,
             gradients if stage < 2 else gradients / gpus,
             optimizer if stage < 1 else optimizer / gpus]
    states = sum(shard, Decimal(0))
    per_gpu = states + activations
    usable = number(values, "gpu_memory_gb") - number(values, "reserve_gb")  # what the model may use
    headroom = usable - per_gpu
    fits = headroom >= 0
    memory = format_decimal(number(values, "gpu_memory_gb"))
    verdict = (f"Entra in una GPU da {memory} GB: restano {format_decimal(headroom)} GB oltre la riserva." if fits
               else f"Non entra in una GPU da {memory} GB: mancano {format_decimal(-headroom)} GB.")
    per_sample = values["activation_per_sample_gb"]
    # After the model states, the rest goes to activations: as many samples as fit (0 if the states alone do not).
    left = usable - states
    largest = (max(left, Decimal(0)) / per_sample).to_integral_value(rounding=ROUND_FLOOR) \
        if isinstance(per_sample, Decimal) else None
    # For the accumulation page's GPU mode, rounded up: the link never promises more memory than there is.
    states_up = states.quantize(Decimal("0.01"), rounding=ROUND_CEILING)
    return {
        "bytes_per_parameter": Decimal(recipe.total),
        "weights_gb": weights,
        "gradients_gb": gradients,
        "optimizer_gb": optimizer,
        "activations_gb": activations,
        "total_gb": weights + gradients + optimizer + activations,
        "per_gpu_gb": per_gpu,
        "fit": verdict,
        "headroom_gb": headroom,
        "max_micro_batch": largest,
        "states_per_gpu_gb": states_up if largest else None,
    }


def chart(values: Values, outputs: Outputs) -> str:
    """The per-GPU memory as a stacked bar of its parts."""
    gpus = number(values, "gpus")
    stage = int(str(values["zero_stage"]))
    parts = []
    for key, label, sharded_from in (
        ("weights_gb", "Pesi", 3), ("gradients_gb", "Gradienti", 2),
        ("optimizer_gb", "Stati dell'ottimizzatore", 1), ("activations_gb", "Attivazioni", 99),
    ):
        value = number(outputs, key)
        parts.append((label, value / gpus if stage >= sharded_from else value))
    return stacked_bar("Memoria per GPU, per componente", parts, "GB")


def _options() -> tuple[Option, ...]:
    return tuple(Option(key, f"{r.label} ({r.total} B/param.)") for key, r in RECIPES.items())


CALCULATOR = Calculator(
    id="vram-addestramento-llm",
    order=20,
    title="Calcolatore della VRAM di addestramento per LLM",
    summary=(
        "Stima la VRAM della GPU necessaria per il fine-tuning completo di un modello linguistico di grandi"
        " dimensioni a partire dal numero di parametri, dalla scelta dell'ottimizzatore e dalla memoria delle"
        " attivazioni, usando la regola di Adam in precisione mista di 16 byte per parametro."
    ),
    fields=(
        Field(
            id="parameters_billion", label="Parametri del modello", default="7", kind=Kind.DECIMAL,
            unit="miliardi", group="Modello", minimum=Decimal(0), exclusive_minimum=True,
            maximum=Decimal(100_000), example="6,74",
            help="Numero di parametri in miliardi, per esempio 7 o 6,74.",
        ),
        Field(
            id="optimizer", label="Ottimizzatore e precisione", default="adamw_mixed", kind=Kind.CHOICE,
            group="Modello", options=_options(),
            help="Decide i byte per parametro di pesi, gradienti e stati dell'ottimizzatore.",
        ),
        Field(
            id="activation_gb", label="Memoria delle attivazioni per GPU", default="2", kind=Kind.DECIMAL,
            unit="GB", group="Modello", minimum=Decimal(0), maximum=Decimal(100_000),
            help="M = b · A: la stima il calcolatore della memoria delle attivazioni, per micro-batch e per GPU.",
        ),
        Field(
            id="gpu_memory_gb", label="Memoria della GPU", default=format_field(GPU_DEFAULT.memory_gb),
            kind=Kind.DECIMAL, unit="GB", group="GPU", minimum=Decimal(0), exclusive_minimum=True,
            maximum=Decimal(100_000), example="85,9",
            help="In GB (10⁹ byte): una GPU «da 80 GB» ha 80 GiB, cioè 85,9 GB. I pulsanti la compilano.",
        ),
        Field(
            id="reserve_gb", label="Riserva del framework", default="2", kind=Kind.DECIMAL, unit="GB", group="GPU",
            minimum=Decimal(0), maximum=Decimal(100_000),
            help="Contesto CUDA, buffer temporanei e frammentazione dell'allocatore: una stima da adattare.",
        ),
        Field(
            id="activation_per_sample_gb", label="Attivazioni per campione (A)", default="", kind=Kind.DECIMAL,
            unit="GB", group="GPU", optional=True, minimum=Decimal(0), exclusive_minimum=True,
            maximum=Decimal(100_000), example="0,5",
            help="Facoltativo: per il micro-batch più grande che entra dopo gli stati del modello.",
        ),
        Field(
            id="gpus", label="GPU con parallelismo dei dati", default="1", unit="GPU", group="Partizionamento",
            help="Repliche tra cui ZeRO divide gli stati del modello.",
        ),
        Field(
            id="zero_stage", label="Stadio ZeRO", default="0", kind=Kind.CHOICE, group="Partizionamento",
            options=tuple(Option(k, v) for k, v in ZERO_STAGES.items()),
            help="Quali stati del modello DeepSpeed ZeRO (o FSDP) divide tra le GPU.",
        ),
    ),
    results=(
        Result("per_gpu_gb", "Memoria per GPU", "GB", help="Stati del modello partizionati più le attivazioni."),
        Result("fit", "Entra nella GPU?", format=Format.TEXT),
        Result("headroom_gb", "Margine", "GB", help="Memoria della GPU meno la riserva e la memoria per GPU."),
        Result("max_micro_batch", "Micro-batch più grande che entra", format=Format.COUNT,
               help="Con le attivazioni per campione indicate, dopo gli stati del modello e la riserva."),
        Result("total_gb", "Totale senza partizionamento", "GB", help="Pesi + gradienti + ottimizzatore + attivazioni."),
        Result("weights_gb", "Pesi", "GB", primary=False),
        Result("gradients_gb", "Gradienti", "GB", primary=False),
        Result("optimizer_gb", "Stati dell'ottimizzatore", "GB", primary=False),
        Result("activations_gb", "Attivazioni", "GB", primary=False),
        Result("bytes_per_parameter", "Byte per parametro", "B", Format.COUNT,
               help="Pesi, gradienti e ottimizzatore, senza le attivazioni.", primary=False),
    ),
    compute=compute,
    chart=chart,
    presets=tuple(Preset(gpu.id, gpu.label, {"gpu_memory_gb": format_field(gpu.memory_gb)}, "Compila con una GPU:")
                  for gpu in GPUS),
    feeds=(
        Feed("accumulo", "accumulo-del-gradiente",
             "Calcolatore dell'accumulo, per il batch effettivo che vuoi con la memoria che resta",
             {"gpu_memory_gb": "gpu_memory_gb", "model_states_gb": "states_per_gpu_gb", "reserve_gb": "reserve_gb",
              "activation_per_sample_gb": "activation_per_sample_gb", "data_parallel_gpus": "gpus"},
             {"mode": "gpu", "activation_unit": "GB"}),
        Feed("lora", "parametri-lora", "Calcolatore dei parametri LoRA, con lo stesso numero di parametri",
             {"total_parameters_billion": "parameters_billion"}),
    ),
    examples={
        "predefinito": {},
        "zero_gpt2": {"parameters_billion": "1,5", "activation_gb": "0"},
        "zero_7b_64": {"parameters_billion": "7,5", "activation_gb": "0", "gpus": "64"},
        "zero_7b_64_s1": {"parameters_billion": "7,5", "activation_gb": "0", "gpus": "64", "zero_stage": "1"},
        "zero_7b_64_s2": {"parameters_billion": "7,5", "activation_gb": "0", "gpus": "64", "zero_stage": "2"},
        "zero_7b_64_s3": {"parameters_billion": "7,5", "activation_gb": "0", "gpus": "64", "zero_stage": "3"},
        "otto_gpu_s3": {"gpus": "8", "zero_stage": "3"},
        "piano_8_gpu": {"parameters_billion": "13", "gpus": "8", "zero_stage": "3", "activation_per_sample_gb": "0,5"},
    },
)
