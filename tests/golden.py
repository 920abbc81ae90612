"""Golden vectors shared by the native tests and the Pyodide-in-Node tests.

Each case: calculator id, the texts typed (missing fields take defaults), and
the expected response: result texts, or per-field messages.
"""

from __future__ import annotations

from typing import Any

from calculator import get

ACC = "accumulo-del-gradiente"


def request(calculator_id: str, **texts: str) -> dict[str, Any]:
    """A request with the calculator's defaults overridden by ``texts``."""
    return {"calculator": calculator_id, "values": {**get(calculator_id).defaults, **texts}}


# (request, expected results)
RESULTS: list[tuple[dict[str, Any], dict[str, str]]] = [
    # The seed's worked example and its 4-GPU variant.
    (request(ACC), {"effective_batch": "32", "activation_memory": "2 GB"}),
    (request(ACC, data_parallel_gpus="4"), {"effective_batch": "128", "activation_memory": "2 GB"}),
    # Accumulation raises E and leaves M alone.
    (request(ACC, accumulation_steps="16"), {"effective_batch": "64", "activation_memory": "2 GB"}),
    (request(ACC, micro_batch="3", activation_per_sample_gb="0,25"),
     {"effective_batch": "24", "activation_memory": "0,75 GB"}),
    (request(ACC, micro_batch="1", accumulation_steps="1", activation_per_sample_gb="0.001"),
     {"effective_batch": "1", "activation_memory": "0,001 GB"}),
    (request(ACC, micro_batch="1024", accumulation_steps="1024", data_parallel_gpus="1"),
     {"effective_batch": "1.048.576", "activation_memory": "512 GB"}),
    # Upper bounds together: exact and readable.
    (request(ACC, micro_batch="1.000.000", accumulation_steps="1000000", data_parallel_gpus="1 000 000",
             activation_per_sample_gb="10000"),
     {"effective_batch": "1.000.000.000.000.000.000", "activation_memory": "10.000.000.000 GB"}),
    (request(ACC, micro_batch=" 8 ", activation_per_sample_gb="1,5"),
     {"effective_batch": "64", "activation_memory": "12 GB"}),
    (request(ACC, micro_batch="7", activation_per_sample_gb="0,333"),
     {"effective_batch": "56", "activation_memory": "2,33 GB"}),
]

# (request, field id, expected message)
ERRORS: list[tuple[dict[str, Any], str, str]] = [
    (request(ACC, micro_batch="abc"), "micro_batch",
     "Dimensione del micro-batch: scrivi un numero, per esempio 4."),
    (request(ACC, micro_batch="2,5"), "micro_batch",
     "Dimensione del micro-batch: deve essere un numero intero, per esempio 4."),
    (request(ACC, micro_batch="0"), "micro_batch", "Dimensione del micro-batch: deve essere almeno 1."),
    (request(ACC, accumulation_steps="-1"), "accumulation_steps", "Passi di accumulo: deve essere almeno 1."),
    (request(ACC, data_parallel_gpus="1000001"), "data_parallel_gpus",
     "GPU con parallelismo dei dati: deve essere al massimo 1.000.000."),
    (request(ACC, activation_per_sample_gb="0"), "activation_per_sample_gb",
     "Attivazione per campione: deve essere maggiore di 0."),
    (request(ACC, activation_per_sample_gb="10000,5"), "activation_per_sample_gb",
     "Attivazione per campione: deve essere al massimo 10.000."),
    (request(ACC, activation_per_sample_gb="1e3"), "activation_per_sample_gb",
     "Attivazione per campione: scrivi un numero, per esempio 0,5."),
    (request(ACC, activation_per_sample_gb="0,1234567"), "activation_per_sample_gb",
     "Attivazione per campione: usa al massimo 6 cifre decimali."),
    (request(ACC, micro_batch="1.00.0"), "micro_batch",
     "Dimensione del micro-batch: numero non valido; per le migliaia usa gruppi di tre cifre"
     " (1.000) e per i decimali la virgola (0,5)."),
    (request(ACC, micro_batch="NaN"), "micro_batch", "Dimensione del micro-batch: scrivi un numero, per esempio 4."),
    (request(ACC, micro_batch="Infinity"), "micro_batch",
     "Dimensione del micro-batch: scrivi un numero, per esempio 4."),
    (request(ACC, micro_batch="9" * 50), "micro_batch", "Dimensione del micro-batch: il valore è troppo lungo."),
    (request(ACC, micro_batch=""), "micro_batch", "Inserisci un valore."),
]
