"""Calcolatore della memoria con accumulo del gradiente: E = b·a·g, M = b·A.

Two modes: from a configuration to its effective batch and memory ("diretto"),
and from a target effective batch and a memory budget to a configuration
("obiettivo"), with ready-to-paste framework configs and a chart.
"""

from __future__ import annotations

from decimal import ROUND_CEILING, Decimal

from .accumulation_plan import largest_micro_batch, plan
from .framework_configs import SNIPPETS
from .model import Calculator, Feed, Field, Format, Kind, Option, Outputs, Result, Values, number
from .numbers import format_decimal
from .svg import accumulation_chart

DIRECT, TARGET = "diretto", "obiettivo"
UNITS = (Option("MB", "MB"), Option("GB", "GB"), Option("GiB", "GiB"))
IN_GB = {"MB": Decimal("0.001"), "GB": Decimal(1), "GiB": Decimal(2**30) / 10**9}


def configuration(values: Values) -> tuple[int, int, str]:
    """Micro-batch and accumulation steps: typed in, or solved from the target."""
    if values["mode"] == TARGET:
        solved = plan(int(number(values, "target_effective_batch")), number(values, "memory_budget"),
                      int(number(values, "data_parallel_gpus")), number(values, "activation_per_sample_gb"))
        note = solved.note or "Il batch effettivo desiderato si raggiunge esattamente."
        return solved.micro_batch, solved.accumulation_steps, note
    return int(number(values, "micro_batch")), int(number(values, "accumulation_steps")), ""


def compute(values: Values) -> Outputs:
    """Effective batch E = b·a·g and activation memory per GPU M = b·A, plus what follows from them."""
    b, a, note = configuration(values)
    g = int(number(values, "data_parallel_gpus"))
    effective = b * a * g
    dataset, sequence = values["dataset_size"], values["sequence_length"]
    memory = b * number(values, "activation_per_sample_gb")
    outputs: dict[str, Decimal | str | None] = {
        "effective_batch": Decimal(effective),
        "activation_memory": memory,
        "activation_memory_gb": memory * IN_GB[str(values["activation_unit"])],  # for the VRAM page's field
        "micro_batch_fit": Decimal(b) if values["mode"] == TARGET else None,
        "accumulation_needed": Decimal(a) if values["mode"] == TARGET else None,
        "plan_note": note or None,
        "steps_per_epoch": (dataset / effective).to_integral_value(ROUND_CEILING) if isinstance(dataset, Decimal)
        else None,
        "tokens_per_step": sequence * effective if isinstance(sequence, Decimal) else None,
    }
    outputs.update({key: snippet(b, a, g) for key, snippet in SNIPPETS.items()})
    return outputs


def check(values: Values) -> dict[str, str]:
    """In target mode one sample must fit in the budget."""
    if values["mode"] != TARGET:
        return {}
    activation, budget = number(values, "activation_per_sample_gb"), number(values, "memory_budget")
    if largest_micro_batch(budget, activation) < 1:
        unit = str(values["activation_unit"])
        return {"memory_budget": (
            f"Budget di memoria per GPU: un solo campione richiede {format_decimal(activation)} {unit},"
            f" più dei {format_decimal(budget)} {unit} disponibili. Riduci la lunghezza delle sequenze,"
            " usa il checkpointing delle attivazioni o aumenta il budget."
        )}
    return {}


def chart(values: Values, outputs: Outputs) -> str:
    b, a, _ = configuration(values)
    memory = number(outputs, "activation_memory")
    return accumulation_chart(b, a, int(number(values, "data_parallel_gpus")), memory, str(values["activation_unit"]))


CALCULATOR = Calculator(
    id="accumulo-del-gradiente",
    order=10,
    title="Calcolatore della memoria con accumulo del gradiente",
    summary=(
        "Calcola la dimensione effettiva del batch raggiunta con l'accumulo del gradiente"
        " e la memoria delle attivazioni che richiede."
    ),
    mode_field="mode",
    fields=(
        Field(
            id="mode", label="Modalità", default=DIRECT, kind=Kind.CHOICE, group="Modalità",
            options=(Option(DIRECT, "Dalla configurazione al batch effettivo"),
                     Option(TARGET, "Dal batch desiderato alla configurazione (obiettivo)")),
            help="Calcola il batch effettivo di una configurazione, oppure la configurazione per un obiettivo.",
        ),
        Field(
            id="micro_batch", label="Dimensione del micro-batch", default="4", unit="campioni", group="Batching",
            modes=(DIRECT,),
            help="Campioni elaborati da ogni GPU in un passaggio in avanti e all'indietro (b).",
        ),
        Field(
            id="accumulation_steps", label="Passi di accumulo", default="8", group="Batching", modes=(DIRECT,),
            help="Micro-batch di cui si sommano i gradienti prima di ogni passo dell'ottimizzatore (a).",
        ),
        Field(
            id="target_effective_batch", label="Batch effettivo desiderato", default="512", unit="campioni",
            group="Batching", modes=(TARGET,), maximum=Decimal(10_000_000),
            help="Campioni per aggiornamento dei pesi che vuoi raggiungere (E).",
        ),
        Field(
            id="data_parallel_gpus", label="GPU con parallelismo dei dati", default="1", unit="GPU",
            group="Batching",
            help="Repliche del modello che elaborano micro-batch diversi in parallelo (g).",
        ),
        Field(
            id="activation_per_sample_gb", label="Attivazione per campione", default="0,5", kind=Kind.DECIMAL,
            unit="GB", unit_from="activation_unit", group="Memoria", minimum=Decimal(0), exclusive_minimum=True,
            maximum=Decimal(10_000_000),
            help="Memoria delle attivazioni di un singolo campione durante il passaggio all'indietro (A): la stima il"
                 " calcolatore della memoria delle attivazioni.",
        ),
        Field(
            id="activation_unit", label="Unità di misura della memoria", default="GB", kind=Kind.CHOICE,
            group="Memoria", options=UNITS,
            help="MB e GB sono potenze di 10 (10⁶ e 10⁹ byte); GiB è 2³⁰ byte.",
        ),
        Field(
            id="memory_budget", label="Budget di memoria per GPU", default="20", kind=Kind.DECIMAL, unit="GB",
            unit_from="activation_unit", group="Memoria", modes=(TARGET,), minimum=Decimal(0),
            exclusive_minimum=True, maximum=Decimal(100_000_000),
            help="Memoria che ogni GPU può dedicare alle attivazioni.",
        ),
        Field(
            id="dataset_size", label="Campioni nel dataset", default="", group="Facoltativi", optional=True,
            maximum=Decimal(10**15), example="100000",
            help="Per calcolare i passi dell'ottimizzatore per epoca.",
        ),
        Field(
            id="sequence_length", label="Lunghezza delle sequenze", default="", unit="token", group="Facoltativi",
            optional=True, example="4096",
            help="Per calcolare i token elaborati a ogni passo dell'ottimizzatore.",
        ),
    ),
    results=(
        Result("micro_batch_fit", "Micro-batch più grande che entra nel budget", format=Format.COUNT,
               modes=(TARGET,), help="Il micro-batch b scelto: quanti campioni entrano nel budget di una GPU."),
        Result("accumulation_needed", "Passi di accumulo necessari", format=Format.COUNT, modes=(TARGET,),
               help="I passi a per raggiungere almeno il batch desiderato."),
        Result("effective_batch", "Dimensione effettiva del batch", format=Format.COUNT,
               help="Campioni che contribuiscono a un aggiornamento dei pesi: E = b · a · g."),
        Result("activation_memory", "Memoria delle attivazioni per GPU", "GB", unit_from="activation_unit",
               help="Picco delle attivazioni residenti su ogni GPU: M = b · A."),
        Result("plan_note", "Come leggere la configurazione", format=Format.TEXT, modes=(TARGET,), primary=False),
        Result("steps_per_epoch", "Passi dell'ottimizzatore per epoca", format=Format.COUNT, primary=False,
               help="Campioni nel dataset diviso il batch effettivo, per eccesso."),
        Result("tokens_per_step", "Token per passo dell'ottimizzatore", format=Format.COUNT, primary=False,
               help="Batch effettivo per lunghezza delle sequenze."),
        Result("config_hf", "Hugging Face Transformers (TrainingArguments)", format=Format.CODE, primary=False),
        Result("config_deepspeed", "DeepSpeed (file JSON di configurazione)", format=Format.CODE, primary=False),
        Result("config_lightning", "PyTorch Lightning (Trainer)", format=Format.CODE, primary=False),
        Result("config_accelerate", "Hugging Face Accelerate (Accelerator)", format=Format.CODE, primary=False),
    ),
    compute=compute,
    check=check,
    chart=chart,
    feeds=(
        Feed("vram", "vram-addestramento-llm", "Calcolatore della VRAM, con questa memoria delle attivazioni e queste GPU",
             {"activation_gb": "activation_memory_gb", "gpus": "data_parallel_gpus"}),
    ),
    examples={
        "predefinito": {},
        "quattro_gpu": {"data_parallel_gpus": "4"},
        "obiettivo": {"mode": TARGET, "target_effective_batch": "512", "memory_budget": "20"},
        "obiettivo_esatto": {"mode": TARGET, "target_effective_batch": "480", "memory_budget": "20"},
    },
)
