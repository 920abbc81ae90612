"""Calcolatore del tempo e del costo di addestramento.

The page adapter of ``llm.training_compute``: the compute of a run from the model, the method and the tokens; the
time, GPU-hours, cost and energy at a utilisation (MFU) of the GPU's dense peak, or at a measured throughput; and
the GPUs a deadline needs.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import ROUND_CEILING, Decimal

from ..form.model import (
    Calculator,
    Feed,
    Field,
    Format,
    Kind,
    Option,
    Outputs,
    Preset,
    Result,
    Values,
    integer,
    number,
    optional_number,
)
from ..form.numbers import format_decimal, format_exact_field, format_field
from ..form.svg import bars
from ..llm.catalogue import TIME, model
from ..llm.gpus import GPU_DEFAULT, GPUS
from ..llm.training_compute import SECONDS_PER_HOUR, Workload, gpus_for, tokens_per_second, training_seconds
from .config_paste import config_paster
from .model_fields import shape_field
from .presets import presets_for

HOW_LONG, DEADLINE = "tempo", "scadenza"
FULL, FROZEN = "completo", "lora"
NO_RECOMPUTE, RECOMPUTE = "nessuno", "completo"
DEFAULT_MODEL = model("llama-3.1-8b")
PF_DAY = Decimal(10**15) * 86_400  # a petaflop/s-day, the GPT-3 paper's unit of compute
SECONDS_PER_DAY = 86_400


@dataclass(frozen=True)
class Reference:
    """A published utilisation a reader can pick, with the run it comes from."""

    id: str
    label: str
    mfu_percent: str
    source: str


# Model FLOPs utilisation of real runs, as their sources state it (each source's FLOP convention is in the article).
REFERENCES = (
    Reference("palm", "PaLM 540B, 6.144 TPU v4: 46,2 %", "46,2", "arXiv:2204.02311, Table 3"),
    Reference("llama3-405b", "Llama 3 405B, 8.192 H100: 43 %", "43", "arXiv:2407.21783, Table 4"),
    Reference("llama3-405b-128k", "Llama 3 405B a 128k token, 16.384 H100: 38 %", "38", "arXiv:2407.21783, Table 4"),
    Reference("megatron-175b", "GPT-3 175B, 4.608 H100 (Megatron-Core): 42 %", "42",
              "NVIDIA/Megatron-LM@0010ab7484337a1089ad9c35a0ce8723ed6b4740:README.md"),
    Reference("mpt-7b-h100", "MPT-7B, 8 H100 (llm-foundry): 46,44 %", "46,44",
              "mosaicml/llm-foundry@061f2c7c:scripts/train/benchmarking/README.md"),
    Reference("mpt-7b-a100", "MPT-7B, 8 A100 80GB (llm-foundry): 64,23 %", "64,23",
              "mosaicml/llm-foundry@061f2c7c:scripts/train/benchmarking/README.md"),
    Reference("torchtitan-8b", "Llama 3 8B, 64 A100 (torchtitan): 58,2 %", "58,2",
              "pytorch/torchtitan@1d5815c4b1b9083cbc733b99c8b8ef39124a67d1:docs/performance.md"),
)


@dataclass(frozen=True)
class TimeInput:
    """The form's values, read once."""

    question: str
    workload: Workload
    tokens: Decimal  # tokens the run processes
    batch: int  # samples per optimizer step
    sequence: int
    gpus: int | None
    peak_flops: Decimal  # FLOP/s of one GPU
    power_w: Decimal
    mfu: Decimal | None  # a fraction, typed in
    measured: Decimal | None  # tokens/s per GPU, measured
    price: Decimal
    deadline_days: Decimal | None


def read(values: Values) -> TimeInput:
    total = number(values, "parameters_billion")
    active = optional_number(values, "active_parameters_billion") or total
    multiplying = int(active * 10**9 - number(values, "embedding_million") * 10**6)
    sequence = integer(values, "sequence_length")
    workload = Workload(
        parameters=max(multiplying, 0), layers=integer(values, "layers"),
        attention_width=integer(values, "attention_heads") * integer(values, "head_dim"),
        value_width=integer(values, "attention_heads") * integer(values, "v_head_dim"), context=sequence,
        window=integer(values, "sliding_window"), window_layers=integer(values, "sliding_layers"),
        attention=values["attention_flops"] is True, frozen_base=values["method"] == FROZEN,
        adapters=int(number(values, "adapter_million") * 10**6) if values["method"] == FROZEN else 0,
        recompute=values["recompute"] == RECOMPUTE,
    )
    tokens = optional_number(values, "tokens_billion")
    samples, epochs = optional_number(values, "dataset_samples"), number(values, "epochs")
    processed = tokens * 10**9 if tokens is not None else (samples or Decimal(0)) * sequence * epochs
    mfu = optional_number(values, "mfu_percent")
    gpus = optional_number(values, "gpus")
    return TimeInput(
        question=str(values["question"]), workload=workload, tokens=processed, batch=integer(values, "effective_batch"),
        sequence=sequence, gpus=int(gpus) if gpus is not None else None,
        peak_flops=number(values, "peak_tflops") * 10**12, power_w=number(values, "gpu_power_w"),
        mfu=mfu / 100 if mfu is not None else None, measured=optional_number(values, "measured_tokens_per_s"),
        price=number(values, "price_per_gpu_hour"), deadline_days=optional_number(values, "deadline_days"),
    )


def utilisation_of(given: TimeInput) -> Decimal:
    """The MFU the run achieves: typed in, or from the measured throughput."""
    if given.measured is not None:
        return given.measured * given.workload.model_flops_per_token() / given.peak_flops
    return given.mfu or Decimal(0)


def compute(values: Values) -> Outputs:
    """Compute, throughput, time, GPU-hours, cost and energy; on a deadline, the GPUs it needs."""
    given = read(values)
    per_token = given.workload.model_flops_per_token()
    total = given.tokens * per_token
    mfu = utilisation_of(given)
    if given.question == DEADLINE:
        gpus = gpus_for(total, (given.deadline_days or Decimal(1)) * SECONDS_PER_DAY, given.peak_flops, mfu)
    else:
        gpus = given.gpus or 1
    seconds = training_seconds(total, gpus, given.peak_flops, mfu)
    hours = seconds / SECONDS_PER_HOUR
    gpu_hours = hours * gpus
    per_step = given.batch * given.sequence
    hardware = given.workload.hardware_flops_per_token()
    return {
        "time_days": seconds / SECONDS_PER_DAY,
        "time_hours": hours,
        "gpu_hours": gpu_hours,
        "cost_eur": gpu_hours * given.price,
        "energy_kwh": gpu_hours * given.power_w / 1000,
        "gpus_needed": Decimal(gpus) if given.question == DEADLINE else None,
        "tokens_per_second": tokens_per_second(mfu, given.peak_flops, per_token),
        "mfu_result": mfu * 100,
        "hfu_percent": mfu * hardware / per_token * 100 if hardware != per_token else None,
        "flops_per_token_g": Decimal(per_token) / 10**9,
        "total_eflop": total / 10**18,
        "pf_days": total / PF_DAY,
        "tokens_total_billion": given.tokens / 10**9,
        "tokens_per_step": Decimal(per_step),
        "steps": (given.tokens / per_step).to_integral_value(rounding=ROUND_CEILING),
    }


def check(values: Values) -> dict[str, str]:
    """Tokens or a dataset, parameters that add up, and a measured throughput the GPU can deliver."""
    errors: dict[str, str] = {}
    total, active = number(values, "parameters_billion"), optional_number(values, "active_parameters_billion")
    if active is not None and active > total:
        errors["active_parameters_billion"] = ("Parametri attivi per token: non possono essere più dei parametri del"
                                               " modello.")
    if number(values, "embedding_million") >= (active or total) * 1000:
        errors["embedding_million"] = ("Embedding in ingresso: devono essere meno dei parametri (attivi) del modello,"
                                       " perché il calcolo conta quelli che restano.")
    if integer(values, "sliding_layers") > integer(values, "layers"):
        errors["sliding_layers"] = (f"Strati a finestra scorrevole: sono al più gli strati del modello"
                                    f" ({integer(values, 'layers')}).")
    if integer(values, "sliding_layers") and not integer(values, "sliding_window"):
        errors["sliding_window"] = ("Finestra scorrevole: indica quanti token vede uno strato a finestra, oppure metti"
                                    " 0 strati a finestra.")
    if optional_number(values, "tokens_billion") is None and optional_number(values, "dataset_samples") is None:
        errors["tokens_billion"] = ("Token da elaborare: indica i token, oppure i campioni del dataset (con le epoche e"
                                    " la lunghezza delle sequenze).")
    if errors:
        return errors
    given = read(values)
    if given.measured is not None:
        mfu = utilisation_of(given)
        if mfu > Decimal("1.000001"):  # beyond what the field's six decimals can add to a throughput at 100 %
            errors["measured_tokens_per_s"] = (
                f"Token/s per GPU misurati: con questo modello corrispondono a un MFU del {format_decimal(mfu * 100)} %,"
                " oltre il 100 % del picco della GPU; controlla il picco, i parametri o la misura.")
    if given.mfu is None and given.measured is None:
        errors["mfu_percent"] = "MFU: indica l'utilizzo della GPU, oppure i token/s per GPU che hai misurato."
    return errors


def chart(values: Values, outputs: Outputs) -> str:
    """Days of training at a quarter, half, the same, twice and four times the GPUs."""
    needed = outputs.get("gpus_needed")
    gpus_now = needed if isinstance(needed, Decimal) else Decimal(read(values).gpus or 1)
    days = number(outputs, "time_days")
    rows = []
    for factor in (Decimal("0.25"), Decimal("0.5"), Decimal(1), Decimal(2), Decimal(4)):
        gpus = gpus_now * factor
        if gpus >= 1 and gpus == gpus.to_integral_value():
            rows.append((f"{format_decimal(gpus)} GPU", days / factor))
    now = f"{format_decimal(gpus_now)} GPU"
    return bars("Giorni di addestramento al variare del numero di GPU", rows, "giorni",
                highlight=next(i for i, (label, _) in enumerate(rows) if label == now),
                entries=[("calc-part-0", f"{now}: il tempo calcolato"),
                         ("calc-part-1", "Un quarto, la metà, il doppio o il quadruplo delle GPU, con lo stesso MFU"
                                         " (a regime, il tempo scala con le GPU)")])


def _gpu_presets() -> tuple[Preset, ...]:
    bf16 = tuple(Preset(f"{gpu.id}-bf16", gpu.label, {"peak_tflops": format_field(gpu.bf16_tflops),
                                                         "gpu_power_w": str(gpu.power_w)}, "GPU in bf16:",
                        preferred=gpu is GPU_DEFAULT)
                 for gpu in GPUS)
    fp8 = tuple(Preset(f"{gpu.id}-fp8", gpu.label, {"peak_tflops": format_field(gpu.fp8_tflops),
                                                       "gpu_power_w": str(gpu.power_w)}, "GPU in fp8:")
                for gpu in GPUS if gpu.fp8_tflops)
    return bf16 + fp8


def _reference_presets() -> tuple[Preset, ...]:
    return tuple(Preset(ref.id, ref.label, {"mfu_percent": ref.mfu_percent, "measured_tokens_per_s": ""},
                        "MFU pubblicati:") for ref in REFERENCES)


def _shape(field_id: str, help_text: str) -> Field:
    return shape_field(field_id, "Modello", DEFAULT_MODEL, help_text)


CALCULATOR = Calculator(
    id="tempo-di-addestramento",
    order=40,
    title="Calcolatore del tempo e del costo di addestramento",
    summary=(
        "Stima il calcolo, il tempo, le GPU-ore, il costo e l'energia di un addestramento o di un fine-tuning di un"
        " LLM, dai parametri, dai token, dal metodo e dall'utilizzo della GPU (MFU), e quante GPU servono per una"
        " scadenza."
    ),
    mode_field="question",
    fields=(
        Field(id="question", label="Domanda", default=HOW_LONG, kind=Kind.CHOICE, group="Domanda",
              options=(Option(HOW_LONG, "Tempo e costo con queste GPU"),
                       Option(DEADLINE, "GPU per finire entro una scadenza")),
              help="Con una scadenza il calcolatore trova il numero di GPU più piccolo che la rispetta."),
        Field(id="parameters_billion", label="Parametri del modello", default=format_exact_field(
              Decimal(DEFAULT_MODEL.parameters()) / 10**9), kind=Kind.DECIMAL, unit="miliardi", group="Modello",
              minimum=Decimal(0), exclusive_minimum=True, maximum=Decimal(100_000), example="8,03",
              help="Tutti i parametri, come li dichiara chi pubblica il modello."),
        Field(id="active_parameters_billion", label="Parametri attivi per token (MoE)", default="", kind=Kind.DECIMAL,
              unit="miliardi", group="Modello", optional=True, minimum=Decimal(0), exclusive_minimum=True,
              maximum=Decimal(100_000), example="12,88",
              help="Solo per i modelli a esperti: i parametri che ogni token attraversa (Mixtral 8x7B: 12,9 miliardi)."),
        Field(id="embedding_million", label="Embedding in ingresso, esclusi dal calcolo", default=format_exact_field(
              Decimal(DEFAULT_MODEL.input_embedding()) / 10**6), kind=Kind.DECIMAL, unit="milioni", group="Modello",
              minimum=Decimal(0), maximum=Decimal(100_000_000), example="525,34",
              help="La tabella degli embedding è una ricerca, non un prodotto: vocabolario × dimensione nascosta."
                   " Metti 0 per contare tutti i parametri, come PaLM e llm-foundry."),
        _shape("layers", "Servono per i FLOP dell'attenzione."),
        _shape("attention_heads", "Servono per i FLOP dell'attenzione."),
        # No hidden size here to derive it from: the head dimension is always typed (presets fill it).
        replace(_shape("head_dim", "Servono per i FLOP dell'attenzione."), optional=False,
                default=str(DEFAULT_MODEL.dim)),
        _shape("v_head_dim", "Solo con l'attenzione latente (DeepSeek-V2 e V3: 128, contro 192 di query e chiavi);"
                             " 0: come la dimensione di ogni testa."),
        _shape("sliding_window", "Con la finestra l'attenzione di quegli strati copre al più la finestra."),
        _shape("sliding_layers", "Servono per i FLOP dell'attenzione."),
        Field(id="method", label="Metodo", default=FULL, kind=Kind.CHOICE, group="Metodo",
              options=(Option(FULL, "Addestramento completo (tutti i pesi)"),
                       Option(FROZEN, "Base congelata: LoRA, QLoRA")),
              help="Con la base congelata non si calcolano i gradienti dei pesi del modello: 4·N invece di 6·N."),
        Field(id="adapter_million", label="Parametri degli adattatori", default="0", kind=Kind.DECIMAL,
              unit="milioni", group="Metodo", minimum=Decimal(0), maximum=Decimal(100_000_000), example="41,94",
              help="Solo con la base congelata: i parametri addestrabili, dal calcolatore dei parametri LoRA."),
        Field(id="recompute", label="Checkpointing delle attivazioni", default=NO_RECOMPUTE, kind=Kind.CHOICE,
              group="Metodo", options=(Option(NO_RECOMPUTE, "Nessuno"),
                                       Option(RECOMPUTE, "Completo (ripete il passaggio in avanti)")),
              help="Il ricalcolo non cambia i FLOP del modello (MFU) ma aggiunge lavoro alla GPU (HFU)."),
        Field(id="attention_flops", label="Conta i FLOP dell'attenzione (12·L·H·Q·T)", default="on", kind=Kind.FLAG,
              group="Metodo", help="Come l'appendice B di PaLM: i prodotti di query e chiavi e dei punteggi per i"
                                    " valori, che crescono con la lunghezza delle sequenze (con l'attenzione latente"
                                    " 6·L·H·(Q + V)·T)."),
        Field(id="tokens_billion", label="Token da elaborare", default="15", kind=Kind.DECIMAL, unit="miliardi",
              group="Dati", optional=True, minimum=Decimal(0), exclusive_minimum=True, maximum=Decimal(10_000_000),
              example="15", help="Tutti i token dell'addestramento, epoche comprese. Vuoto: dal dataset qui sotto."),
        Field(id="dataset_samples", label="Campioni del dataset", default="", group="Dati", optional=True,
              maximum=Decimal(10**13), example="50000",
              help="Usati se i token sono vuoti: campioni × lunghezza delle sequenze × epoche."),
        Field(id="sequence_length", label="Lunghezza delle sequenze", default="4096", unit="token", group="Dati",
              maximum=Decimal(10_000_000), help="Token di ogni campione: il contesto che l'attenzione di ogni token"
                                                " copre (T)."),
        Field(id="epochs", label="Epoche", default="1", kind=Kind.DECIMAL, group="Dati", minimum=Decimal(0),
              exclusive_minimum=True, maximum=Decimal(10_000), help="Passate sul dataset (anche frazionarie)."),
        Field(id="effective_batch", label="Batch effettivo", default="256", unit="campioni", group="Dati",
              maximum=Decimal(100_000_000), help="Campioni per passo dell'ottimizzatore: micro-batch × passi di"
                                                 " accumulo × GPU."),
        Field(id="gpus", label="GPU", default="8", unit="GPU", group="Hardware", modes=(HOW_LONG,),
              maximum=Decimal(10_000_000), help="Quante GPU lavorano insieme."),
        Field(id="deadline_days", label="Scadenza", default="7", kind=Kind.DECIMAL, unit="giorni", group="Hardware",
              modes=(DEADLINE,), minimum=Decimal(0), exclusive_minimum=True, maximum=Decimal(100_000),
              help="Entro quanti giorni l'addestramento deve finire."),
        Field(id="peak_tflops", label="Picco della GPU (denso)", default=format_field(GPU_DEFAULT.bf16_tflops),
              kind=Kind.DECIMAL, unit="TFLOP/s", group="Hardware", minimum=Decimal(0), exclusive_minimum=True,
              maximum=Decimal(1_000_000), example="989",
              help="Senza sparsità, nella precisione dei prodotti: le schede tecniche di Hopper e Blackwell stampano il"
                   " doppio, con sparsità. I pulsanti lo compilano."),
        Field(id="gpu_power_w", label="Potenza della GPU", default=str(GPU_DEFAULT.power_w), kind=Kind.DECIMAL,
              unit="W", group="Hardware", minimum=Decimal(0), maximum=Decimal(100_000),
              help="Potenza di scheda (TDP), per stimare l'energia; il resto del server non è contato."),
        Field(id="mfu_percent", label="Utilizzo della GPU (MFU)", default="40", kind=Kind.DECIMAL, unit="%",
              group="Hardware", optional=True, minimum=Decimal(0), exclusive_minimum=True, maximum=Decimal(100),
              example="40", help="La frazione del picco spesa in FLOP del modello: 35–45 % nelle grandi corse,"
                                 " fino al 60 % in quelle piccole. I pulsanti mettono valori pubblicati."),
        Field(id="measured_tokens_per_s", label="Token/s per GPU misurati", default="", kind=Kind.DECIMAL,
              unit="token/s", group="Hardware", optional=True, minimum=Decimal(0), exclusive_minimum=True,
              maximum=Decimal(10**9), example="3000",
              help="Facoltativo: se li hai misurati, il calcolatore ne ricava l'MFU e ignora quello sopra."),
        Field(id="price_per_gpu_hour", label="Prezzo per GPU-ora", default="2,5", kind=Kind.DECIMAL, unit="€",
              group="Costo", minimum=Decimal(0), maximum=Decimal(100_000), example="2,5",
              help="Quanto costa una GPU per un'ora, in euro."),
    ),
    results=(
        Result("time_days", "Tempo di addestramento", "giorni",
               help="A regime, senza riavvii, guasti e valutazioni: una corsa reale dura di più."),
        Result("gpus_needed", "GPU necessarie", format=Format.COUNT, modes=(DEADLINE,),
               help="Il numero più piccolo di GPU che finisce entro la scadenza."),
        Result("gpu_hours", "GPU-ore", "GPU-ore"),
        Result("cost_eur", "Costo", "€", help="GPU-ore × prezzo per GPU-ora."),
        Result("energy_kwh", "Energia delle GPU", "kWh", help="GPU-ore × potenza di scheda: una stima."),
        Result("tokens_per_second", "Token/s per GPU", "token/s", help="MFU × picco / FLOP per token."),
        Result("mfu_result", "MFU", format=Format.PERCENT, help="Quello indicato, o quello dei token/s misurati."),
        Result("hfu_percent", "HFU (con il ricalcolo)", format=Format.PERCENT, primary=False,
               help="L'utilizzo contando anche il passaggio in avanti ripetuto."),
        Result("time_hours", "Tempo in ore", "ore"),
        Result("flops_per_token_g", "FLOP del modello per token", "GFLOP", primary=False,
               help="6·N (4·N con la base congelata, più 6 per parametro degli adattatori) più 12·L·H·Q·T."),
        Result("total_eflop", "Calcolo totale", "EFLOP", primary=False, help="1 EFLOP = 10¹⁸ operazioni."),
        Result("pf_days", "Calcolo in petaflop/s-giorno", "PF-giorni", primary=False,
               help="L'unità della tabella D.1 dell'articolo di GPT-3: 8,64 · 10¹⁹ FLOP."),
        Result("tokens_total_billion", "Token elaborati", "miliardi", primary=False),
        Result("tokens_per_step", "Token per passo", format=Format.COUNT, primary=False),
        Result("steps", "Passi dell'ottimizzatore", format=Format.COUNT, primary=False),
    ),
    compute=compute,
    paste=config_paster(head_dim_always=True),
    check=check,
    chart=chart,
    glance=("time_days", "gpus_needed", "cost_eur"),
    presets=(*presets_for(TIME, head_dim=True), *_gpu_presets(), *_reference_presets()),
    fold=("Modello",),  # the architecture, collapsed while a model's button fills it
    feeds=(
        Feed("vram", "vram-addestramento-llm", "Calcolatore della VRAM, con lo stesso modello e le stesse GPU",
             {"parameters_billion": "parameters_billion", "gpus": "gpus"}),
        Feed("accumulo", "accumulo-del-gradiente",
             "Calcolatore dell'accumulo, per ottenere questo batch effettivo con queste GPU",
             {"target_effective_batch": "effective_batch", "data_parallel_gpus": "gpus",
              "sequence_length": "sequence_length"}, {"mode": "obiettivo"}),
    ),
    examples={
        "predefinito": {},
        "scadenza": {"question": DEADLINE},
        "lora": {"method": FROZEN, "adapter_million": "41,94", "tokens_billion": "0,1"},
        "lora_completo": {"tokens_billion": "0,1"},
        "ricalcolo": {"recompute": RECOMPUTE},
        "misurato": {"measured_tokens_per_s": "3000", "mfu_percent": ""},
        "senza_attenzione": {"attention_flops": ""},
        "dataset": {"tokens_billion": "", "dataset_samples": "50000", "epochs": "3", "sequence_length": "2048"},
        # GPT-3 175B as its paper's table D.1 counts it: 6 FLOPs per parameter and token, 300 billion tokens.
        "gpt3": {"parameters_billion": "174,6", "embedding_million": "0", "attention_flops": "",
                 "tokens_billion": "300"},
    },
)
