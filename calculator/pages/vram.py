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

from dataclasses import dataclass, replace
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

from ..form.evaluate import evaluate
from ..form.glance import margin_tones
from ..form.model import Calculator, Feed, Field, Format, Kind, Option, Outputs, Result, Table, Values, integer, number
from ..form.numbers import format_decimal, format_integer
from ..form.svg import phase_bars, stacked_bar
from ..llm import deepspeed_estimator as ds
from ..llm.architectures import Architecture
from ..llm.catalogue import VRAM, model
from ..llm.optimizers import RECIPES, Recipe
from ..llm.units import GB_PER_GIB
from ..llm.zero import ModelStates
from . import vram_compare, vram_inverse, vram_step
from .activations import CALCULATOR as ACTIVATIONS_PAGE
from .config_paste import config_paster
from .gpu_fields import fit_verdict, gpu_memory_field, gpu_presets, reserve_field
from .model_fields import check_head_dim, head_dim, shape_field
from .presets import field_texts, presets_for
from .vram_step import STEP

ARTICLE, DEEPSPEED = "zero", "deepspeed"
NARROW = 300  # the chart's width in its own units: it sits in the results column
SHAPE_GROUP = "Forma del modello (per Adafactor)"
SHAPE_FIELDS = ("layers", "hidden_size", "intermediate_size", "attention_heads", "kv_heads", "head_dim", "vocab_size",
                "experts")
DEFAULT_MODEL = model("llama-2-7b")
LLAMA_31_70B = {key: value for key, value in field_texts(model("llama-3.1-70b")).items() if key not in (
    "total_parameters_billion", "active_parameters_billion", "embedding_million", "largest_layer_million",
    "base_parameters", "attention_layout", "mlp_layout", "linear_bias", "model_biases")}
MIXTRAL_8X7B = {key: value for key, value in field_texts(model("mixtral-8x7b")).items() if key not in (
    "total_parameters_billion", "active_parameters_billion", "embedding_million", "largest_layer_million",
    "base_parameters", "attention_layout", "mlp_layout", "linear_bias", "model_biases")}
LLAMA_31_8B = {key: value for key, value in field_texts(model("llama-3.1-8b")).items()
               if key in (*SHAPE_FIELDS, "parameters_billion", "tied_embeddings", "mlp", "norms", "activation_impl",
                          "softmax_fp32", "loss_fp32")}


ZERO_STAGES = {
    "0": "0 – nessun partizionamento (DDP)",
    "1": "1 – stati dell'ottimizzatore partizionati",
    "2": "2 – anche i gradienti (FSDP SHARD_GRAD_OP)",
    "3": "3 – anche i pesi (FSDP FULL_SHARD)",
}
# The architecture the step convention reads besides the shape fields, as the activation page asks for it.
TRAIT_FIELDS = ("mlp", "norms", "activation_impl", "softmax_fp32", "qk_norm", "post_norms", "softcap",
                "parallel_block", "embed_norm", "relative_positions", "mel_bins", "experts_per_token",
                "shared_intermediate_size", "decoder_layers", "encoder_sequence", "dropout", "loss_fp32",
                "sequence_parallel", "sinks", "dense_layers", "dense_intermediate_size", "experts_impl",
                "q_lora_rank", "kv_lora_rank", "qk_rope_head_dim", "v_head_dim")
STEP_COMPONENTS = {"weights": "Pesi", "gradients": "Gradienti", "optimizer": "Stati dell'ottimizzatore",
                   "activations": "Attivazioni", "loss": "Logit e loss", "temporaries": "Temporanei"}


@dataclass(frozen=True)
class VramInput:
    """The form's values, read once (GB, billions and millions as the fields take them)."""

    convention: str
    parameters_billion: Decimal
    recipe: Recipe
    gradient_precision: str
    activation_gb: Decimal
    gpu_memory_gb: Decimal
    reserve_gb: Decimal
    activation_per_sample_gb: Decimal | None
    gpus: int
    zero_stage: int
    nodes: int
    largest_layer_million: Decimal
    offload_optimizer: bool
    offload_param: bool
    zero_init: bool
    buffer_factor: Decimal
    ds_version: str
    shape: Architecture  # the matrices Adafactor's factored state is sized from

    @property
    def parameters(self) -> int:
        return int(self.parameters_billion * 10**9)


def read(values: Values) -> VramInput:
    """Fields of the other convention are not read (the form does not send them as numbers)."""
    per_sample = values.get("activation_per_sample_gb")
    deepspeed = values.get("convention") == DEEPSPEED
    heads = integer(values, "attention_heads") if not deepspeed else 1
    shape = Architecture("campi", "", heads=heads, kv_heads=heads, source="", layers=0, hidden=0, intermediate=0,
                         vocab=0) if deepspeed else Architecture(
        "campi", "", layers=integer(values, "layers"), hidden=integer(values, "hidden_size"),
        intermediate=integer(values, "intermediate_size"), heads=heads, kv_heads=integer(values, "kv_heads") or heads,
        vocab=integer(values, "vocab_size"), source="", head_dim=head_dim(values),
        experts=integer(values, "experts"), expert_intermediate=integer(values, "intermediate_size"))
    return VramInput(
        convention=DEEPSPEED if deepspeed else ARTICLE, parameters_billion=number(values, "parameters_billion"),
        recipe=RECIPES[str(values.get("optimizer") or "adamw_mixed")],
        gradient_precision=str(values.get("gradient_precision") or "16"),
        activation_gb=number(values, "activation_gb"), gpu_memory_gb=number(values, "gpu_memory_gb"),
        reserve_gb=number(values, "reserve_gb"),
        activation_per_sample_gb=per_sample if isinstance(per_sample, Decimal) else None,
        gpus=integer(values, "gpus"), zero_stage=int(str(values["zero_stage"])),
        nodes=integer(values, "nodes") if deepspeed else 1,
        largest_layer_million=number(values, "largest_layer_million") if deepspeed else Decimal(0),
        offload_optimizer=values.get("offload_optimizer") is True, offload_param=values.get("offload_param") is True,
        zero_init=values.get("zero_init") is True,
        buffer_factor=number(values, "buffer_factor") if deepspeed else Decimal(1),
        ds_version=str(values.get("ds_version") or ds.CURRENT), shape=shape,
    )


def model_states(given: VramInput) -> ModelStates:
    """Weights, gradients and optimizer states in GB, unsharded, by the recipe's bytes (the ZeRO paper's way)."""
    params, recipe = given.parameters_billion, given.recipe
    if recipe.shape_dependent:
        matrices = given.shape.matrices()
        vectors = given.shape.parameters() - sum(rows * cols * n for rows, cols, n in matrices)
        optimizer = recipe.optimizer_bytes(given.parameters, matrices, vectors) / 10**9
    else:
        optimizer = params * (recipe.optimizer or Decimal(0))
    return ModelStates(params * recipe.weights, params * recipe.gradients(given.gradient_precision), optimizer)


def article_outputs(given: VramInput) -> tuple[Decimal, dict[str, Decimal | str | None]]:
    """Model states per GPU sharded by ZeRO stage; and the parts, unsharded."""
    states = model_states(given)
    shard = states.sharded(given.zero_stage, given.gpus)
    parts: dict[str, Decimal | str | None] = {
        "bytes_per_parameter": states.total / given.parameters_billion,
        "weights_gb": states.weights, "gradients_gb": states.gradients, "optimizer_gb": states.optimizer,
        "weights_per_gpu_gb": shard.weights, "gradients_per_gpu_gb": shard.gradients,
        "optimizer_per_gpu_gb": shard.optimizer,
        "total_gb": states.total + given.activation_gb,
    }
    return shard.total, parts


def estimator(given: VramInput) -> ds.Estimate:
    """DeepSpeed's estimate for these inputs (checked beforehand: stage 2 or 3, nodes dividing the GPUs)."""
    per_node, buffer = given.gpus // given.nodes, float(given.buffer_factor)
    if given.zero_stage == 2:
        return ds.zero2(given.parameters, per_node, given.nodes, given.offload_optimizer, buffer, given.ds_version)
    largest = int(given.largest_layer_million * 10**6)
    return ds.zero3(given.parameters, largest, per_node, given.nodes, given.offload_optimizer, given.offload_param,
                    given.zero_init, buffer)


def compute(values: Values) -> Outputs:
    """Model states per GPU (either convention), the activations, and whether it all fits the GPU."""
    if values.get("convention") == STEP:
        return {**vram_step.compute(values), **vram_inverse.outputs(values, CALCULATOR.fields),
                "comparison": vram_compare.summary(values, {spec.id: spec for spec in CALCULATOR.fields})}
    given = read(values)
    outputs: dict[str, Decimal | str | None] = dict.fromkeys(
        ("bytes_per_parameter", "weights_gb", "gradients_gb", "optimizer_gb", "total_gb", "ds_gpu_gib", "ds_cpu_gb",
         "ds_cpu_gib", "weights_per_gpu_gb", "gradients_per_gpu_gb", "optimizer_per_gpu_gb"))
    if given.convention == DEEPSPEED:
        estimate = estimator(given)
        states = Decimal(estimate.gpu_bytes) / 10**9
        cpu = Decimal(estimate.cpu_bytes) / 10**9
        outputs.update(ds_gpu_gib=states / GB_PER_GIB, ds_cpu_gb=cpu, ds_cpu_gib=cpu / GB_PER_GIB)
    else:
        states, parts = article_outputs(given)
        outputs.update(parts)
    per_gpu = states + given.activation_gb
    usable = given.gpu_memory_gb - given.reserve_gb  # what the model may use
    headroom = usable - per_gpu
    per_sample = given.activation_per_sample_gb
    # After the model states, the rest goes to activations: as many samples as fit (0 if the states alone do not).
    largest = (max(usable - states, Decimal(0)) / per_sample).to_integral_value(rounding=ROUND_FLOOR) \
        if per_sample is not None else None
    # For the accumulation page's GPU mode, rounded up: the link never promises more memory than there is.
    states_up = states.quantize(Decimal("0.01"), rounding=ROUND_CEILING)
    outputs.update({
        "states_gb": states,
        "activations_gb": given.activation_gb,
        "per_gpu_gb": per_gpu,
        "per_gpu_gib": per_gpu / GB_PER_GIB,
        "fit": fit_verdict(given.gpu_memory_gb, headroom),
        "advice": classic_advice(given, per_gpu) if given.convention == ARTICLE else None,
        "headroom_gb": headroom,
        "max_micro_batch": largest,
        "states_per_gpu_gb": states_up if largest else None,
        "data_parallel": Decimal(given.gpus),
    })
    return outputs


def classic_advice(given: VramInput, per_gpu: Decimal) -> str:
    """When it does not fit: what sharding, more GPUs or a smaller optimizer state would make of it, per GPU."""
    usable = given.gpu_memory_gb - given.reserve_gb
    if per_gpu <= usable:
        return "Non serve: entra così com'è."
    options: list[tuple[str, VramInput]] = []
    if given.gpus > 1 and given.zero_stage < 3:
        options.append((f"ZeRO-3 sulle stesse {format_integer(given.gpus)} GPU", replace(given, zero_stage=3)))
    options.append((f"{format_integer(given.gpus * 2)} GPU con ZeRO-3", replace(given, gpus=given.gpus * 2, zero_stage=3)))
    if given.recipe is RECIPES["adamw_mixed"]:
        options.append(("AdamW a 8 bit", replace(given, recipe=RECIPES["adamw_8bit"])))
    said = [f"{label}: {format_decimal(article_outputs(other)[0] + given.activation_gb)} GB per GPU"
            f" ({'entra' if article_outputs(other)[0] + given.activation_gb <= usable else 'non basta'})"
            for label, other in options]
    if given.activation_gb > 0:
        said.append(f"le attivazioni ({format_decimal(given.activation_gb)} GB) scendono con il gradient checkpointing"
                    " o un micro-batch più piccolo")
    return "Con " + "; con ".join(said[:-1]) + ("; e " if len(said) > 1 else "") + said[-1] + "."


def check(values: Values) -> dict[str, str]:
    """Combinations a convention cannot estimate, each named with its fields."""
    if values.get("convention") == STEP:
        return {**vram_step.check(values), **vram_compare.check(values)}
    if values.get("convention") != DEEPSPEED:
        if wrong := check_head_dim(values):
            return wrong
        heads, kv_heads = integer(values, "attention_heads"), integer(values, "kv_heads")
        if kv_heads > heads or heads % kv_heads:  # read() needs a shape that can exist
            return {"kv_heads": "Teste chiave/valore: devono dividere esattamente le teste di attenzione."}
    given = read(values)
    if given.convention != DEEPSPEED:
        return check_shape(given)
    errors: dict[str, str] = {}
    if given.zero_stage not in (2, 3):
        errors["zero_stage"] = ("Stadio ZeRO: gli stimatori di DeepSpeed esistono per gli stadi 2 e 3; per gli"
                                " stadi 0 e 1 usa la convenzione dell'articolo ZeRO.")
    if given.gpus % given.nodes:
        errors["nodes"] = (f"Nodi: le {format_integer(given.gpus)} GPU devono dividersi in parti uguali tra i"
                           f" {format_integer(given.nodes)} nodi.")
    if given.offload_param and not given.offload_optimizer:
        errors["offload_param"] = ("Pesi su CPU: DeepSpeed sposta i pesi sulla CPU solo insieme agli stati"
                                   " dell'ottimizzatore; attiva anche «Ottimizzatore su CPU».")
    if given.offload_param and given.zero_stage == 2:
        errors["offload_param"] = "Pesi su CPU: l'offload dei pesi esiste solo con ZeRO-3."
    if given.largest_layer_million > given.parameters_billion * 1000:
        errors["largest_layer_million"] = ("Parametri dello strato più grande: non possono superare i parametri del"
                                           " modello.")
    return errors


def check_shape(given: VramInput) -> dict[str, str]:
    """With a state sized from the matrices, the shape must describe the model of the parameter count."""
    if not given.recipe.shape_dependent:
        return {}
    in_matrices = Decimal(sum(rows * cols * n for rows, cols, n in given.shape.matrices())) / 10**9
    stated = given.parameters_billion
    if in_matrices > stated * Decimal("1.02"):
        return {"layers": (f"Forma del modello: le sue matrici hanno {format_decimal(in_matrices)} miliardi di"
                           f" parametri, più dei {format_decimal(stated)} indicati; Adafactor dimensiona il suo"
                           " stato dalle matrici: scegli un modello con i pulsanti o correggi la forma.")}
    return {}


def chart(values: Values, outputs: Outputs) -> str:
    """The per-GPU memory as a stacked bar of its parts, as the results hold them; for a step, one bar per
    phase against the card's memory; comparing configurations, one bar per configuration."""
    if values["convention"] == STEP and vram_compare.compared(values):
        return vram_compare.chart(values)
    if values["convention"] == STEP:
        rows = [(label, [number(outputs, f"{phase}_{key}_gib") for key in STEP_COMPONENTS])
                for phase, label in (("forward", "Avanti"), ("backward", "Indietro"), ("optimizer", "Ottimizzatore"))
                if outputs.get(f"{phase}_weights_gib") is not None]
        card = number(values, "gpu_memory_gb") / GB_PER_GIB
        return phase_bars("Memoria allocata per GPU, per fase e componente", tuple(STEP_COMPONENTS.values()),
                          rows, "GiB", card, "Memoria della GPU")
    if values["convention"] == DEEPSPEED:
        return stacked_bar("Memoria per GPU, per componente", [
            ("Stati del modello (stimatore di DeepSpeed)", number(outputs, "states_gb")),
            ("Attivazioni", number(outputs, "activations_gb"))], "GB", NARROW, *card_memory(values))
    parts = [(label, number(outputs, key)) for key, label in (
        ("weights_per_gpu_gb", "Pesi"), ("gradients_per_gpu_gb", "Gradienti"),
        ("optimizer_per_gpu_gb", "Stati dell'ottimizzatore"), ("activations_gb", "Attivazioni"))]
    return stacked_bar("Memoria per GPU, per componente", parts, "GB", NARROW, *card_memory(values))


def card_memory(values: Values) -> tuple[Decimal, Decimal]:
    """The card's memory and the framework's reserve, drawn on the memory bar."""
    return number(values, "gpu_memory_gb"), number(values, "reserve_gb")


def parallel_table() -> Table:
    """The article's figure: Llama 3.1 70B at 8192 tokens with full checkpointing, on 32 GPUs laid out five ways."""
    texts = {**{f.id: f.default for f in CALCULATOR.fields}, **CALCULATOR.examples["passo_70b_tabella"]}
    return vram_compare.layout_table(evaluate(CALCULATOR, texts).values)


def parallel_figure() -> str:
    """The article's figure: the table's five layouts of Llama 3.1 70B, each GPU's memory by component."""
    texts = {**{f.id: f.default for f in CALCULATOR.fields}, **CALCULATOR.examples["passo_70b_tabella"]}
    return vram_compare.layout_figure(evaluate(CALCULATOR, texts).values, vram_compare.LAYOUTS, "calc-figura-parallelismi",
                                      "Llama 3.1 70B su 32 GPU: memoria per GPU di cinque disposizioni, per componente")


def expert_figure() -> str:
    """The article's figure of expert parallelism: Mixtral 8x7B on 32 GPUs, its experts whole or split 8 ways."""
    texts = {**{f.id: f.default for f in CALCULATOR.fields}, **CALCULATOR.examples["passo_moe_figura"]}
    return vram_compare.layout_figure(evaluate(CALCULATOR, texts).values, vram_compare.MOE_LAYOUTS,
                                      "calc-figura-esperti",
                                      "Mixtral 8x7B su 32 GPU: memoria per GPU senza e con il parallelismo degli"
                                      " esperti, per componente")


def optimizer_table() -> Table:
    """The article's bytes per parameter, one row per recipe, from ``RECIPES`` itself."""
    rows = []
    for recipe in RECIPES.values():
        n = format_integer
        optimizer = (format_decimal(recipe.optimizer) if recipe.optimizer is not None
                     else f"{n(recipe.master)} + fattorizzato")
        grads = (n(recipe.gradients("32")),) if recipe.full_fp32 else (n(recipe.gradients("16")), n(recipe.gradients("32")))
        if recipe.optimizer is None:
            low, high = (recipe.weights + recipe.gradients(p) + recipe.master for p in ("16", "32"))
            total = f"{n(low)} / {n(high)} + fattorizzato"
        else:
            total = " / ".join(format_decimal(recipe.weights + g + recipe.optimizer)
                               for g in sorted({recipe.gradients("16"), recipe.gradients("32")}))
        rows.append((recipe.label, n(recipe.weights), " / ".join(grads), optimizer, total))
    return Table(("Ottimizzatore e precisione", "Pesi", "Gradienti (16 bit / fp32)", "Ottimizzatore",
                  "Totale (16 bit / fp32)"), tuple(rows), (False, True, True, True, True))


def _option(key: str, recipe: Recipe) -> Option:
    """The recipe and its bytes per parameter, weights + optimizer (short: the field's help says the rest)."""
    if recipe.optimizer is None:
        return Option(key, f"{recipe.label} (fattorizzato)")
    return Option(key, f"{recipe.label} ({format_integer(recipe.weights)} + {format_decimal(recipe.optimizer)} B)")


def _options() -> tuple[Option, ...]:
    return tuple(_option(key, recipe) for key, recipe in RECIPES.items())


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
            options=(Option(ARTICLE, "Articolo ZeRO: byte per stato"),
                     Option(DEEPSPEED, "Stimatori di DeepSpeed"),
                     Option(STEP, "Picco di un passo di addestramento")),
            help="Gli stimatori di DeepSpeed sono estimate_zero2/zero3_model_states_mem_needs; il picco di un passo"
                 " tiene conto di metodo, attivazioni e nvidia-smi. L'articolo conta i byte di ogni stato; DeepSpeed"
                 " aggiunge lo strato più grande (ZeRO-3), l'offload"
                 " su CPU e la memoria della CPU; il picco di un passo segue l'addestramento fase per fase, con"
                 " LoRA, QLoRA, attivazioni e loss, fino a ciò che mostrerà nvidia-smi.",
        ),
        Field(
            id="parameters_billion", label="Parametri del modello", default="7", kind=Kind.DECIMAL,
            unit="miliardi", group="Modello", minimum=Decimal(0), exclusive_minimum=True,
            maximum=Decimal(100_000), example="6,74",
            help="Numero di parametri in miliardi, per esempio 7 o 6,74.",
        ),
        Field(
            id="optimizer", label="Ottimizzatore e precisione", default="adamw_mixed", kind=Kind.CHOICE,
            group="Precisione e ottimizzatore", options=_options(), modes=(ARTICLE,),
            help="Decide i byte per parametro dei pesi e degli stati dell'ottimizzatore; tra parentesi pesi +"
                 " ottimizzatore (copia master fp32 compresa). Adafactor: 2 B di pesi, 4 B di copia master più lo"
                 " stato fattorizzato, che dipende dalle matrici del modello.",
        ),
        Field(
            id="gradient_precision", label="Precisione dei gradienti", default="16", kind=Kind.CHOICE,
            group="Precisione e ottimizzatore", modes=(ARTICLE, STEP),
            options=(Option("16", "16 bit (bf16/fp16, 2 B), come l'articolo ZeRO"),
                     Option("32", "fp32 (4 B), come la pagina di Hugging Face")),
            help="L'articolo ZeRO tiene i gradienti a 16 bit; Transformers li accumula in fp32. Con AdamW in fp32"
                 " pieno sono sempre in fp32.",
        ),
        Field(
            id="activation_gb", label="Memoria delle attivazioni per GPU", default="2", kind=Kind.DECIMAL,
            unit="GB", group="Attivazioni", minimum=Decimal(0), maximum=Decimal(100_000), modes=(ARTICLE, DEEPSPEED),
            help="M = b · A: la stima il calcolatore della memoria delle attivazioni, per micro-batch e per GPU.",
        ),
        *vram_step.fields(),
        gpu_memory_field(),
        reserve_field(modes=(ARTICLE, DEEPSPEED)),
        Field(
            id="activation_per_sample_gb", label="Attivazioni per campione (A)", default="", kind=Kind.DECIMAL,
            unit="GB", group="GPU", optional=True, minimum=Decimal(0), exclusive_minimum=True,
            maximum=Decimal(100_000), example="0,5", modes=(ARTICLE, DEEPSPEED),
            help="Facoltativo: per il micro-batch più grande che entra dopo gli stati del modello.",
        ),
        Field(
            id="gpus", label="GPU con parallelismo dei dati", default="1", unit="GPU", group="Partizionamento",
            help="Repliche tra cui ZeRO divide gli stati del modello; nel picco di un passo, tutte le GPU (TP × PP × CP"
                 " × dati).",
        ),
        Field(
            id="zero_stage", label="Stadio ZeRO", default="0", kind=Kind.CHOICE, group="Partizionamento",
            options=tuple(Option(k, v) for k, v in ZERO_STAGES.items()),
            help="Quali stati del modello DeepSpeed ZeRO (o FSDP) divide tra le GPU.",
        ),
        vram_step.TENSOR_PARALLEL,
        *vram_step.LAYOUT_FIELDS,
        vram_inverse.FIELD,
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
              group="DeepSpeed", modes=(DEEPSPEED, STEP), help="Stati dell'ottimizzatore e copia fp32 nella RAM della CPU."),
        Field(id="offload_param", label="Pesi su CPU (offload_param, solo ZeRO-3)", default="", kind=Kind.FLAG,
              group="DeepSpeed", modes=(DEEPSPEED, STEP), help="Anche i pesi a 16 bit nella RAM della CPU."),
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
                     Option(ds.BEFORE_0_14_3, "Precedenti alla 0.14.3")),
            help="Le versioni precedenti alla 0.14.3 sono quelle delle tabelle della documentazione. Per ZeRO-2 senza"
                 " offload la 0.14.3 ha cambiato la stima per GPU: da 4·P + 16·P/N a 2·P + 18·P/N.",
        ),
        *(replace(shape_field(key, SHAPE_GROUP, DEFAULT_MODEL), modes=(ARTICLE, STEP)) for key in SHAPE_FIELDS),
        Field(id="tied_embeddings", label="Embedding condivisi con la testa", default="", kind=Kind.FLAG,
              group=SHAPE_GROUP, modes=(STEP,), help="tie_word_embeddings: una sola matrice per embedding e"
                                                     " testa (Gemma, Llama 3.2 1B e 3B)."),
        *(replace(ACTIVATIONS_PAGE.field(key), group=SHAPE_GROUP, modes=(STEP,)) for key in TRAIT_FIELDS),
    ),
    results=(
        Result("per_gpu_gb", "Memoria per GPU", "GB", help="Stati del modello partizionati più le attivazioni.",
               modes=(ARTICLE, DEEPSPEED)),
        Result("per_gpu_gib", "Memoria per GPU in GiB", "GiB", modes=(ARTICLE, DEEPSPEED),
               help="La stessa in GiB (2³⁰ byte): la cifra che PyTorch e nvidia-smi chiamano «GB»."),
        Result("smi_gib", "Memoria che mostrerà nvidia-smi", "GiB", modes=(STEP,),
               help="Il picco allocato più la riserva dell'allocatore, il contesto CUDA e, con più GPU, NCCL."),
        Result("fit", "Entra nella GPU?", format=Format.TEXT),
        Result("advice", "Per farlo entrare", format=Format.TEXT, modes=(ARTICLE, STEP)),
        Result("peak_allocated_gib", "Picco allocato da PyTorch (max_memory_allocated)", "GiB", modes=(STEP,),
               help="La fase più grande del passo, senza contesto CUDA né riserva dell'allocatore."),
        Result("smi_range", "Intervallo di nvidia-smi", format=Format.TEXT, modes=(STEP,),
               help="Dal caso migliore al peggiore dei termini che una traccia non vede."),
        Result("peak_phase", "Fase del picco", format=Format.TEXT, modes=(STEP,)),
        Result("trainable_parameters", "Parametri addestrabili", format=Format.COUNT, modes=(STEP,)),
        Result("headroom_gb", "Margine", "GB", help="Memoria della GPU meno la riserva e la memoria per GPU."),
        Result("max_micro_batch", "Micro-batch più grande che entra", format=Format.COUNT,
               help="Con le attivazioni per campione indicate, dopo gli stati del modello e la riserva; nel picco di"
                    " un passo, con tutto ciò che cresce col micro-batch (attivazioni, logit, strato ricostruito)."),
        *vram_inverse.RESULTS,
        vram_compare.RESULT,
        *(Result(f"phase_{phase}_gib", f"Fase: {label}", "GiB", primary=False, modes=(STEP,))
          for phase, label in vram_step.PHASE_LABELS.items()),
        Result("peak_loss_gib", "Al picco: logit e loss", "GiB", primary=False, modes=(STEP,),
               help="Con vocabolari grandi spesso decide il picco: i logit, la loro copia fp32 e i gradienti."),
        Result("config_step_hf", "Transformers (TrainingArguments, LoraConfig, BitsAndBytesConfig)",
               format=Format.CODE, primary=False, modes=(STEP,)),
        Result("config_step_torchtune", "torchtune (ricetta e override)", format=Format.CODE, primary=False,
               modes=(STEP,)),
        Result("config_step_deepspeed", "DeepSpeed (file JSON di configurazione)", format=Format.CODE,
               primary=False, modes=(STEP,)),
        Result("states_on_cpu_gb", "Stati dell'ottimizzatore nella RAM della CPU", "GB", primary=False, modes=(STEP,)),
        Result("paged_gib", "Stati paginati (fuori da max_memory_allocated)", "GiB", primary=False, modes=(STEP,),
               help="bitsandbytes li alloca in memoria unificata: nvidia-smi li conta, PyTorch no."),
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
        Result("activations_gb", "Attivazioni", "GB", primary=False, modes=(ARTICLE, DEEPSPEED)),
        Result("bytes_per_parameter", "Byte per parametro", "B", modes=(ARTICLE,),
               help="Pesi, gradienti e ottimizzatore, senza le attivazioni.", primary=False),
    ),
    compute=compute,
    paste=config_paster(),
    check=check,
    chart=chart,
    chart_after="advice",
    glance=("per_gpu_gb", "smi_gib", "fit", "max_micro_batch", "grafico"),
    tones=margin_tones("fit", "headroom_gb", told="fit_tone", none_fits=("max_micro_batch",), also=("advice",)),
    fold=("Forma del modello (per Adafactor)",),
    # Training choices first, the model after them (as on the activation page); the shape folded last.
    layout=tuple((group, ()) for group in ("Convenzione", "Metodo", "Precisione e ottimizzatore", "Attivazioni", "GPU",
                                           "Partizionamento", "Modello")),
    # The defaults are the ZeRO article's example (7 billion parameters, Llama 2 7B's shape), which no model of the
    # catalogue is: the page opens with no model pressed and the shape open.
    unlike_presets="I valori predefiniti sono l'esempio dell'articolo ZeRO (7 miliardi di parametri).",
    tables={"ottimizzatori": optimizer_table, "parallelismi": parallel_table},
    figures={"parallelismi": parallel_figure, "esperti": expert_figure},
    presets=(*presets_for(VRAM), *gpu_presets()),
    feeds=(
        Feed("accumulo", "accumulo-del-gradiente",
             "Calcolatore dell'accumulo, per il batch effettivo che vuoi con la memoria che resta",
             {"gpu_memory_gb": "gpu_memory_gb", "model_states_gb": "states_per_gpu_gb", "reserve_gb": "reserve_gb",
              "activation_per_sample_gb": "activation_per_sample_gb", "data_parallel_gpus": "data_parallel",
              "micro_batch": "micro_batch", "sequence_length": "sequence_length",
              **{key: key for key in ("tensor_parallel", "pipeline_parallel", "context_parallel", "expert_parallel")}},
             {"mode": "gpu", "activation_unit": "GB"}, optional=("micro_batch", "sequence_length", "tensor_parallel",
                                                                "pipeline_parallel", "context_parallel", "expert_parallel")),
        Feed("lora", "parametri-lora", "Calcolatore dei parametri LoRA, con lo stesso numero di parametri",
             {"total_parameters_billion": "parameters_billion"}),
        Feed("tempo", "tempo-di-addestramento", "Calcolatore del tempo e del costo, con lo stesso modello e le stesse GPU",
             {"parameters_billion": "parameters_billion", "gpus": "gpus"}),
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
        "adafactor": {"optimizer": "adafactor"},
        # The step convention. The question: QLoRA r=16 on every linear layer of Llama 3.1 8B, 2048 tokens,
        # micro-batch 2, Transformers' gradient checkpointing, on a 24 GB card.
        "passo_qlora_8b": {**LLAMA_31_8B, "convention": STEP, "method": "qlora", "rank": "16", "lora_targets": "tutti",
                           "precision_mode": "autocast", "sequence_length": "2048", "micro_batch": "2",
                           "checkpointing": "completo", "gpu_memory_gb": "25,769804"},
        "passo_qlora_8b_senza": {**LLAMA_31_8B, "convention": STEP, "method": "qlora", "rank": "16",
                                 "lora_targets": "tutti", "precision_mode": "autocast", "sequence_length": "2048",
                                 "micro_batch": "2", "gpu_memory_gb": "25,769804"},
        # Full fine-tuning in pure bf16 (torchtune's default) on an 80 GB card, with and without the step in backward.
        "passo_bf16_8b": {**LLAMA_31_8B, "convention": STEP, "precision_mode": "bf16", "checkpointing": "completo",
                          "loss": "a_blocchi"},
        "passo_bf16_8b_bwd": {**LLAMA_31_8B, "convention": STEP, "precision_mode": "bf16", "checkpointing": "completo",
                              "loss": "a_blocchi", "optimizer_in_backward": "on"},
        # The seed's rule in the step convention: Llama 2 7B, mixed precision, 2048 tokens, no checkpointing.
        "passo_predefinito": {"convention": STEP},
        "passo_lunga": {**LLAMA_31_8B, "convention": STEP, "precision_mode": "bf16", "checkpointing": "completo",
                        "sequence_length": "32768", "gpus": "8", "zero_stage": "3"},
        "passo_lunga_blocchi": {**LLAMA_31_8B, "convention": STEP, "precision_mode": "bf16",
                                "checkpointing": "completo", "sequence_length": "32768", "gpus": "8",
                                "zero_stage": "3", "loss": "a_blocchi"},
        # DeepSpeed's documentation: t5-3b (2851M parameters, largest layer 32M) on one node of 8 GPUs.
        "ds_t5_3b": {"convention": DEEPSPEED, "parameters_billion": "2,851", "largest_layer_million": "32",
                     "gpus": "8", "zero_stage": "3", "activation_gb": "0"},
        "ds_t5_3b_z2": {"convention": DEEPSPEED, "parameters_billion": "2,851", "gpus": "8", "zero_stage": "2",
                        "activation_gb": "0"},
        # Issue 22: Llama 3.1 70B, full fine-tuning at 8192 tokens on H100 80GB, and three other ways to train it.
        "passo_70b_scala": {**LLAMA_31_70B, "convention": STEP, "sequence_length": "8192", "gpus": "32",
                            "zero_stage": "3", "tensor_parallel": "4", "pipeline_parallel": "4",
                            "accumulation_steps": "8", "inverse": "on"},
        "passo_70b_tabella": {**LLAMA_31_70B, "convention": STEP, "sequence_length": "8192", "gpus": "32",
                              "zero_stage": "3", "checkpointing": "completo", "accumulation_steps": "16"},
        "passo_moe_figura": {**MIXTRAL_8X7B, "convention": STEP, "sequence_length": "4096", "gpus": "32",
                             "zero_stage": "3", "checkpointing": "completo", "accumulation_steps": "16"},
        "passo_70b_confronto": {**LLAMA_31_70B, "convention": STEP, "sequence_length": "8192", "gpus": "32",
                                "zero_stage": "3", "checkpointing": "completo", "cfr_b_method": "lora",
                                "cfr_b_gpus": "8", "cfr_c_tensor_parallel": "8", "cfr_c_pipeline_parallel": "4",
                                "cfr_c_zero_stage": "1", "cfr_c_checkpointing": "selettivo",
                                "cfr_d_step_optimizer": "adamw_8bit"},
    },
)
# Configurations B, C and D of the step convention's comparison, made from the fields above.
CALCULATOR = replace(CALCULATOR, fields=(*CALCULATOR.fields, *vram_compare.fields(CALCULATOR.fields)))
