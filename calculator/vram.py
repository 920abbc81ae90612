"""Calcolatore della VRAM di addestramento per LLM.

Two conventions. The ZeRO paper's: model states take bytes per parameter by
optimizer and precision (gradients 16-bit or fp32, a choice of its own), and
ZeRO shards them over the data-parallel GPUs (Rajbhandari et al.,
arXiv:1910.02054 §5): stage 1 the optimizer states, stage 2 also the gradients,
stage 3 also the weights. DeepSpeed's estimators (``deepspeed_estimator``): the
largest layer gathered whole in ZeRO-3, offload to CPU and the CPU memory it
needs. Activations are per GPU and are not sharded. 1 GB = 10⁹ byte; DeepSpeed
and Accelerate print GiB (2³⁰ byte) labelled "GB", so both are shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

from . import deepspeed_estimator as ds
from .catalogue import preset
from .gpus import GPU_DEFAULT, GPUS, fit_verdict
from .model import Calculator, Feed, Field, Format, Kind, Option, Outputs, Preset, Result, Values, number
from .numbers import format_field, format_integer
from .svg import stacked_bar

ARTICLE, DEEPSPEED = "zero", "deepspeed"
GIB = Decimal(2**30) / 10**9  # GB in a GiB


@dataclass(frozen=True)
class Recipe:
    """Bytes per parameter of one optimizer/precision choice, and where they come from."""

    label: str
    weights: int
    optimizer: int
    source: str
    full_fp32: bool = False  # then gradients are fp32 too, whatever the choice

    def gradients(self, precision: str) -> int:
        return 4 if self.full_fp32 or precision == "32" else 2

    def total(self, precision: str = "16") -> int:
        return self.weights + self.gradients(precision) + self.optimizer


RECIPES: dict[str, Recipe] = {
    "adamw_mixed": Recipe(
        "AdamW in precisione mista", 2, 12,
        "ZeRO, arXiv:1910.02054 §3.1: pesi fp16/bf16, copia master fp32, primo e secondo momento",
    ),
    "adamw_8bit": Recipe(
        "AdamW a 8 bit in precisione mista", 2, 6,
        "EleutherAI, «Transformer Math 101»: copia fp32 (4 B) e due momenti a 8 bit (2 B)",
    ),
    "sgd_momentum": Recipe(
        "SGD con momento in precisione mista", 2, 8,
        "EleutherAI, «Transformer Math 101»: copia fp32 (4 B) e momento fp32 (4 B)",
    ),
    "adamw_fp32": Recipe(
        "AdamW in fp32 pieno", 4, 8,
        "EleutherAI, «Transformer Math 101»: pesi e gradienti fp32, due momenti fp32", full_fp32=True,
    ),
}


ZERO_STAGES = {
    "0": "0 – nessun partizionamento",
    "1": "1 – stati dell'ottimizzatore partizionati",
    "2": "2 – anche i gradienti",
    "3": "3 – anche i pesi",
}


def article_states(values: Values) -> tuple[Decimal, dict[str, Decimal | str | None]]:
    """Model states per GPU by bytes per parameter, sharded by ZeRO stage; and the parts, unsharded."""
    params, gpus = number(values, "parameters_billion"), number(values, "gpus")
    recipe = RECIPES[str(values["optimizer"])]
    grad_bytes = recipe.gradients(str(values["gradient_precision"]))
    stage = int(str(values["zero_stage"]))
    weights, gradients, optimizer = params * recipe.weights, params * grad_bytes, params * recipe.optimizer
    shard = [weights if stage < 3 else weights / gpus,
             gradients if stage < 2 else gradients / gpus,
             optimizer if stage < 1 else optimizer / gpus]
    parts: dict[str, Decimal | str | None] = {
        "bytes_per_parameter": Decimal(recipe.weights + grad_bytes + recipe.optimizer),
        "weights_gb": weights, "gradients_gb": gradients, "optimizer_gb": optimizer,
        "total_gb": weights + gradients + optimizer + number(values, "activation_gb"),
    }
    return sum(shard, Decimal(0)), parts


def estimator(values: Values) -> ds.Estimate:
    """DeepSpeed's estimate for these inputs (checked beforehand: stage 2 or 3, nodes dividing the GPUs)."""
    total = int(number(values, "parameters_billion") * 10**9)
    nodes = int(number(values, "nodes"))
    per_node = int(number(values, "gpus")) // nodes
    buffer = float(number(values, "buffer_factor"))
    offload_optimizer = values["offload_optimizer"] is True
    if str(values["zero_stage"]) == "2":
        return ds.zero2(total, per_node, nodes, offload_optimizer, buffer, str(values["ds_version"]))
    largest = int(number(values, "largest_layer_million") * 10**6)
    return ds.zero3(total, largest, per_node, nodes, offload_optimizer, values["offload_param"] is True,
                    values["zero_init"] is True, buffer)


def compute(values: Values) -> Outputs:
    """Model states per GPU (either convention), the activations, and whether it all fits the GPU."""
    activations = number(values, "activation_gb")
    outputs: dict[str, Decimal | str | None] = dict.fromkeys(
        ("bytes_per_parameter", "weights_gb", "gradients_gb", "optimizer_gb", "total_gb", "ds_gpu_gib", "ds_cpu_gb",
         "ds_cpu_gib"))
    if values["convention"] == DEEPSPEED:
        estimate = estimator(values)
        states = Decimal(estimate.gpu_bytes) / 10**9
        cpu = Decimal(estimate.cpu_bytes) / 10**9
        outputs.update(ds_gpu_gib=states / GIB, ds_cpu_gb=cpu, ds_cpu_gib=cpu / GIB)
    else:
        states, parts = article_states(values)
        outputs.update(parts)
    per_gpu = states + activations
    usable = number(values, "gpu_memory_gb") - number(values, "reserve_gb")  # what the model may use
    headroom = usable - per_gpu
    verdict = fit_verdict(number(values, "gpu_memory_gb"), headroom)
    per_sample = values["activation_per_sample_gb"]
    # After the model states, the rest goes to activations: as many samples as fit (0 if the states alone do not).
    left = usable - states
    largest = (max(left, Decimal(0)) / per_sample).to_integral_value(rounding=ROUND_FLOOR) \
        if isinstance(per_sample, Decimal) else None
    # For the accumulation page's GPU mode, rounded up: the link never promises more memory than there is.
    states_up = states.quantize(Decimal("0.01"), rounding=ROUND_CEILING)
    outputs.update({
        "states_gb": states,
        "activations_gb": activations,
        "per_gpu_gb": per_gpu,
        "per_gpu_gib": per_gpu / GIB,
        "fit": verdict,
        "headroom_gb": headroom,
        "max_micro_batch": largest,
        "states_per_gpu_gb": states_up if largest else None,
    })
    return outputs


def check(values: Values) -> dict[str, str]:
    """Combinations a convention cannot estimate, each named with its fields."""
    if values["convention"] != DEEPSPEED:
        return {}
    errors: dict[str, str] = {}
    stage = str(values["zero_stage"])
    if stage not in ("2", "3"):
        errors["zero_stage"] = ("Stadio ZeRO: gli stimatori di DeepSpeed esistono per gli stadi 2 e 3; per gli"
                                " stadi 0 e 1 usa la convenzione dell'articolo ZeRO.")
    gpus, nodes = int(number(values, "gpus")), int(number(values, "nodes"))
    if gpus % nodes:
        errors["nodes"] = (f"Nodi: le {format_integer(gpus)} GPU devono dividersi in parti uguali tra i"
                           f" {format_integer(nodes)} nodi.")
    if values["offload_param"] is True and values["offload_optimizer"] is not True:
        errors["offload_param"] = ("Pesi su CPU: DeepSpeed sposta i pesi sulla CPU solo insieme agli stati"
                                   " dell'ottimizzatore; attiva anche «Ottimizzatore su CPU».")
    if values["offload_param"] is True and stage == "2":
        errors["offload_param"] = "Pesi su CPU: l'offload dei pesi esiste solo con ZeRO-3."
    if number(values, "largest_layer_million") > number(values, "parameters_billion") * 1000:
        errors["largest_layer_million"] = ("Parametri dello strato più grande: non possono superare i parametri del"
                                           " modello.")
    return errors


def chart(values: Values, outputs: Outputs) -> str:
    """The per-GPU memory as a stacked bar of its parts."""
    if values["convention"] == DEEPSPEED:
        return stacked_bar("Memoria per GPU, per componente", [
            ("Stati del modello (stimatore di DeepSpeed)", number(outputs, "states_gb")),
            ("Attivazioni", number(outputs, "activations_gb"))], "GB")
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
    return tuple(Option(key, f"{r.label} ({r.weights} B pesi, {r.optimizer} B ottimizzatore)")
                 for key, r in RECIPES.items())


CALCULATOR = Calculator(
    id="vram-addestramento-llm",
    order=20,
    title="Calcolatore della VRAM di addestramento per LLM",
    summary=(
        "Stima la VRAM della GPU necessaria per il fine-tuning completo di un modello linguistico di grandi"
        " dimensioni a partire dal numero di parametri, dalla scelta dell'ottimizzatore e dalla memoria delle"
        " attivazioni, usando la regola di Adam in precisione mista di 16 byte per parametro."
    ),
    mode_field="convention",
    fields=(
        Field(
            id="convention", label="Convenzione", default=ARTICLE, kind=Kind.CHOICE, group="Convenzione",
            options=(Option(ARTICLE, "Articolo ZeRO: byte per parametro per ogni stato"),
                     Option(DEEPSPEED, "Stimatori di DeepSpeed (estimate_zero2/zero3_model_states_mem_needs)")),
            help="Le due convenzioni danno cifre diverse: l'articolo conta i byte di ogni stato, DeepSpeed aggiunge lo"
                 " strato più grande (ZeRO-3), l'offload su CPU e la memoria della CPU.",
        ),
        Field(
            id="parameters_billion", label="Parametri del modello", default="7", kind=Kind.DECIMAL,
            unit="miliardi", group="Modello", minimum=Decimal(0), exclusive_minimum=True,
            maximum=Decimal(100_000), example="6,74",
            help="Numero di parametri in miliardi, per esempio 7 o 6,74.",
        ),
        Field(
            id="optimizer", label="Ottimizzatore e precisione", default="adamw_mixed", kind=Kind.CHOICE,
            group="Modello", options=_options(), modes=(ARTICLE,),
            help="Decide i byte per parametro dei pesi e degli stati dell'ottimizzatore.",
        ),
        Field(
            id="gradient_precision", label="Precisione dei gradienti", default="16", kind=Kind.CHOICE,
            group="Modello", modes=(ARTICLE,),
            options=(Option("16", "16 bit (bf16/fp16, 2 B), come l'articolo ZeRO"),
                     Option("32", "fp32 (4 B), come la pagina di Hugging Face")),
            help="L'articolo ZeRO tiene i gradienti a 16 bit; Transformers li accumula in fp32. Con AdamW in fp32"
                 " pieno sono sempre in fp32.",
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
        Field(
            id="nodes", label="Nodi", default="1", group="DeepSpeed", modes=(DEEPSPEED,), maximum=Decimal(100_000),
            help="Macchine tra cui sono divise le GPU (num_nodes): la memoria della CPU è per nodo.",
        ),
        Field(
            id="largest_layer_million", label="Parametri dello strato più grande", default="131,07",
            kind=Kind.DECIMAL, unit="milioni", group="DeepSpeed", modes=(DEEPSPEED,), minimum=Decimal(0),
            maximum=Decimal(100_000_000), example="131,07",
            help="Con ZeRO-3 ogni GPU raccoglie per intero lo strato più grande (di solito l'embedding); i"
                 " modelli del catalogo lo compilano.",
        ),
        Field(id="offload_optimizer", label="Ottimizzatore su CPU (offload_optimizer)", default="", kind=Kind.FLAG,
              group="DeepSpeed", modes=(DEEPSPEED,), help="Stati dell'ottimizzatore e copia fp32 nella RAM della CPU."),
        Field(id="offload_param", label="Pesi su CPU (offload_param, solo ZeRO-3)", default="", kind=Kind.FLAG,
              group="DeepSpeed", modes=(DEEPSPEED,), help="Anche i pesi a 16 bit nella RAM della CPU."),
        Field(id="zero_init", label="zero_init (modello creato già partizionato)", default="on", kind=Kind.FLAG,
              group="DeepSpeed", modes=(DEEPSPEED,),
              help="Senza zero_init ogni processo carica il modello intero nella RAM della CPU."),
        Field(
            id="buffer_factor", label="Margine sulla memoria della CPU", default="1,5", kind=Kind.DECIMAL,
            group="DeepSpeed", modes=(DEEPSPEED,), minimum=Decimal(1), maximum=Decimal(100),
            help="additional_buffer_factor: DeepSpeed moltiplica la memoria della CPU per 1,5.",
        ),
        Field(
            id="ds_version", label="Versione di DeepSpeed", default=ds.CURRENT, kind=Kind.CHOICE, group="DeepSpeed",
            modes=(DEEPSPEED,),
            options=(Option(ds.CURRENT, "0.14.3 e successive"),
                     Option(ds.BEFORE_0_14_3, "Precedenti alla 0.14.3 (le tabelle della documentazione)")),
            help="Per ZeRO-2 senza offload la 0.14.3 ha cambiato la stima per GPU: da 4·P + 16·P/N a 2·P + 18·P/N.",
        ),
    ),
    results=(
        Result("per_gpu_gb", "Memoria per GPU", "GB", help="Stati del modello partizionati più le attivazioni."),
        Result("per_gpu_gib", "Memoria per GPU in GiB", "GiB",
               help="La stessa in GiB (2³⁰ byte): la cifra che PyTorch e nvidia-smi chiamano «GB»."),
        Result("fit", "Entra nella GPU?", format=Format.TEXT),
        Result("headroom_gb", "Margine", "GB", help="Memoria della GPU meno la riserva e la memoria per GPU."),
        Result("max_micro_batch", "Micro-batch più grande che entra", format=Format.COUNT,
               help="Con le attivazioni per campione indicate, dopo gli stati del modello e la riserva."),
        Result("ds_gpu_gib", "Stati del modello per GPU, come li stampa DeepSpeed", "GiB", modes=(DEEPSPEED,),
               help="La colonna «per GPU» di DeepSpeed: GiB, anche se scrive «GB»."),
        Result("ds_cpu_gb", "Memoria della CPU per nodo", "GB", modes=(DEEPSPEED,),
               help="La RAM che serve su ogni macchina, con il margine di DeepSpeed."),
        Result("ds_cpu_gib", "Memoria della CPU per nodo, come la stampa DeepSpeed", "GiB", modes=(DEEPSPEED,),
               help="La colonna «per CPU» di DeepSpeed."),
        Result("total_gb", "Totale senza partizionamento", "GB", modes=(ARTICLE,),
               help="Pesi + gradienti + ottimizzatore + attivazioni."),
        Result("weights_gb", "Pesi", "GB", primary=False, modes=(ARTICLE,)),
        Result("gradients_gb", "Gradienti", "GB", primary=False, modes=(ARTICLE,)),
        Result("optimizer_gb", "Stati dell'ottimizzatore", "GB", primary=False, modes=(ARTICLE,)),
        Result("activations_gb", "Attivazioni", "GB", primary=False),
        Result("bytes_per_parameter", "Byte per parametro", "B", Format.COUNT, modes=(ARTICLE,),
               help="Pesi, gradienti e ottimizzatore, senza le attivazioni.", primary=False),
    ),
    compute=compute,
    check=check,
    chart=chart,
    presets=(
        *(preset(m) for m in ("llama-3.2-1b", "llama-3.1-8b", "mistral-7b", "qwen2.5-7b", "mistral-nemo-12b",
                              "phi-4", "mixtral-8x7b", "llama-3.1-70b", "t5-large")),
        *(Preset(gpu.id, gpu.label, {"gpu_memory_gb": format_field(gpu.memory_gb)}, "Compila con una GPU:")
          for gpu in GPUS),
    ),
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
        "hf_8bit": {"optimizer": "adamw_8bit", "gradient_precision": "32"},
        "hf_sgd": {"optimizer": "sgd_momentum", "gradient_precision": "32"},
        "hf_adamw": {"gradient_precision": "32"},
        # DeepSpeed's documentation: t5-3b (2851M parameters, largest layer 32M) on one node of 8 GPUs.
        "ds_t5_3b": {"convention": DEEPSPEED, "parameters_billion": "2,851", "largest_layer_million": "32",
                     "gpus": "8", "zero_stage": "3", "activation_gb": "0"},
        "ds_t5_3b_z2": {"convention": DEEPSPEED, "parameters_billion": "2,851", "gpus": "8", "zero_stage": "2",
                        "activation_gb": "0"},
    },
)
