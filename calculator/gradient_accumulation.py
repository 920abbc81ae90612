"""Calcolatore della memoria con accumulo del gradiente: E = b·a·g, M = b·A."""

from __future__ import annotations

from decimal import Decimal

from .model import Calculator, Field, Format, Kind, Outputs, Result, Values


def compute(values: Values) -> Outputs:
    """Effective batch E = b·a·g and activation memory per GPU M = b·A."""
    b = values["micro_batch"]
    a = values["accumulation_steps"]
    g = values["data_parallel_gpus"]
    activation = values["activation_per_sample_gb"]
    assert isinstance(b, Decimal) and isinstance(a, Decimal) and isinstance(g, Decimal)
    assert isinstance(activation, Decimal)
    return {"effective_batch": b * a * g, "activation_memory": b * activation}


CALCULATOR = Calculator(
    id="accumulo-del-gradiente",
    title="Calcolatore della memoria con accumulo del gradiente",
    summary=(
        "Calcola la dimensione effettiva del batch raggiunta con l'accumulo del gradiente"
        " e la memoria delle attivazioni che richiede."
    ),
    fields=(
        Field(
            id="micro_batch",
            label="Dimensione del micro-batch",
            default="4",
            unit="campioni",
            group="Batching",
            help="Campioni elaborati da ogni GPU in un passaggio in avanti e all'indietro (b).",
        ),
        Field(
            id="accumulation_steps",
            label="Passi di accumulo",
            default="8",
            group="Batching",
            help="Micro-batch di cui si sommano i gradienti prima di ogni passo dell'ottimizzatore (a).",
        ),
        Field(
            id="data_parallel_gpus",
            label="GPU con parallelismo dei dati",
            default="1",
            unit="GPU",
            group="Batching",
            help="Repliche del modello che elaborano micro-batch diversi in parallelo (g).",
        ),
        Field(
            id="activation_per_sample_gb",
            label="Attivazione per campione",
            default="0,5",
            kind=Kind.DECIMAL,
            unit="GB",
            group="Memoria",
            minimum=Decimal(0),
            exclusive_minimum=True,
            maximum=Decimal(10_000),
            help="Memoria delle attivazioni di un singolo campione durante il passaggio all'indietro (A).",
        ),
    ),
    results=(
        Result(
            id="effective_batch",
            label="Dimensione effettiva del batch",
            format=Format.COUNT,
            help="Campioni che contribuiscono a un aggiornamento dei pesi: E = b · a · g.",
        ),
        Result(
            id="activation_memory",
            label="Memoria delle attivazioni per GPU",
            unit="GB",
            help="Picco delle attivazioni residenti su ogni GPU: M = b · A.",
        ),
    ),
    compute=compute,
    examples={
        "predefinito": {},
        "quattro_gpu": {"data_parallel_gpus": "4"},
    },
)
