"""The VRAM page's «picco di un passo» convention: the form's values read into the step model of
``llm.training_step`` (method, precision, optimizer, activations from the shape, parallelism), its results, the
combinations that cannot run, and the advice when it does not fit."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from decimal import ROUND_CEILING, Decimal

from ..form.model import Field, Kind, Option, Outputs, Values, integer, number, optional_number
from ..form.numbers import format_decimal, format_integer
from ..llm import parallelism as par
from ..llm import step_configs
from ..llm import training_step as ts
from ..llm.activation_memory import (
    ACTIVATION_EXTRA,
    EAGER,
    EXPERT_LOOP,
    FLASH,
    FLASH_TRANSFORMERS,
    FULL,
    GEMMA_NORM,
    LLAMA_NORM,
    NONE,
    SELECTIVE,
    Shape,
    logits_bytes,
)
from ..llm.architectures import GATED, Architecture
from ..llm.lora_adapters import LoraSetup, trainable
from ..llm.units import BYTES_PER_GB, BYTES_PER_GIB
from .activations import checkpointing_field
from .gpu_fields import gpu_size
from .model_fields import PADDED_VALUES_HELP, check_head_dim, head_dim

STEP = "passo"
TARGETS = {
    "qv": ("q_proj e v_proj (default di PEFT)", frozenset({"q_proj", "v_proj"})),
    "attenzione": ("Tutta l'attenzione (q, k, v, o)", frozenset({"q_proj", "k_proj", "v_proj", "o_proj"})),
    "tutti": ("Tutti i lineari (all-linear)",
              frozenset({"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"})),
}


@dataclass(frozen=True)
class StepInput:
    """The form's values for one step, read once."""

    parameters: int
    shape: Shape  # the activations' shape, at the chosen micro-batch
    architecture: Architecture
    training: ts.Training
    loss: str
    gpu_bytes: Decimal
    gpus: int
    tensor_parallel: int
    frozen: ts.FrozenBase | None = None
    layout: par.Layout = field(default_factory=par.Layout)
    micro_batches: int = 1  # per step and data-parallel replica: what the pipeline can keep in flight


def architecture_of(values: Values) -> Architecture:
    heads = integer(values, "attention_heads")
    latent, rope = _count(values, "kv_lora_rank"), _count(values, "qk_rope_head_dim")
    return Architecture(
        "campi", "", layers=integer(values, "layers"), hidden=integer(values, "hidden_size"),
        intermediate=integer(values, "intermediate_size"), heads=heads, kv_heads=integer(values, "kv_heads") or heads,
        vocab=integer(values, "vocab_size"), source="", head_dim=head_dim(values),
        mlp=str(values.get("mlp") or GATED), tied=values.get("tied_embeddings") is True,
        experts=integer(values, "experts"), expert_intermediate=integer(values, "intermediate_size"),
        experts_per_token=integer(values, "experts_per_token"),
        shared_intermediate=integer(values, "shared_intermediate_size"),
        decoder_layers=integer(values, "decoder_layers"),
        sinks=values.get("sinks") is True, q_lora_rank=_count(values, "q_lora_rank"),
        kv_lora_rank=latent, rope_dim=rope, v_head_dim=_count(values, "v_head_dim"),
        nope_dim=head_dim(values) - rope if latent else 0)


def _count(values: Values, key: str) -> int:
    """A count the step convention may lack (an older link): 0 then."""
    return int(optional_number(values, key) or 0)


def norm_of(values: Values, precision: str, method: str) -> str:
    """Under autocast fp32 weights keep the residual stream in fp32, and an RMSNorm written like Llama's keeps its
    normalised values in fp32 too, as Gemma's does (measured by tools/measure_step.py); a 16-bit base does not."""
    norm = str(values.get("norms") or LLAMA_NORM)
    fp32_stream = precision == ts.AUTOCAST and method not in ts.ADAPTERS
    return GEMMA_NORM if fp32_stream and norm == LLAMA_NORM else norm


def sdpa_fused(values: Values, arch: Architecture, precision: str) -> bool:
    """Whether SDPA runs a fused kernel (FlashAttention-like memory). In fp32 FlashAttention cannot run, and with
    grouped keys and values (Transformers passes enable_gqa) neither can the memory-efficient kernel: PyTorch
    falls back to its math kernel, which keeps every head's s × s softmax like eager attention (traced by
    tools/measure_step.py, llama1b-full-fp32-adamw)."""
    if values.get("attention") == EAGER:
        return False
    return not (precision == ts.FP32 and arch.kv_heads < arch.heads)


def shape_of(values: Values, arch: Architecture, precision: str, method: str = ts.FULL) -> Shape:
    p = 4 if precision == ts.FP32 else 2
    return Shape(
        layers=arch.layers, hidden=arch.hidden, heads=arch.heads, kv_heads=arch.kv_heads, head_dim=arch.dim,
        intermediate=arch.intermediate, gated=arch.mlp == GATED, vocab=arch.vocab,
        sequence=integer(values, "sequence_length"), micro_batch=integer(values, "micro_batch"), precision=p,
        loss_precision=4 if values.get("loss_fp32") is True else p, flash=sdpa_fused(values, arch, precision),
        dropout=values.get("dropout") is True, norm=norm_of(values, precision, method),
        softmax_fp32=values.get("softmax_fp32") is True,
        activation_extra=ACTIVATION_EXTRA[str(values.get("activation_impl") or "fusa")],
        qk_norm=values.get("qk_norm") is True, post_norms=values.get("post_norms") is True,
        softcap=values.get("softcap") is True, relative_positions=values.get("relative_positions") is True,
        mel_bins=integer(values, "mel_bins"), parallel_block=values.get("parallel_block") is True,
        embed_norm=values.get("embed_norm") is True, tensor_parallel=integer(values, "tensor_parallel"),
        sequence_parallel=values.get("sequence_parallel") is True, checkpointing=str(values["checkpointing"]),
        experts=arch.experts, experts_per_token=arch.experts_per_token,
        shared_intermediate=arch.shared_intermediate, decoder_layers=arch.decoder_layers,
        encoder_sequence=integer(values, "encoder_sequence"),
        experts_impl=str(values.get("experts_impl") or EXPERT_LOOP), sinks=arch.sinks,
        dense_layers=_count(values, "dense_layers"), dense_intermediate=_count(values, "dense_intermediate_size"),
        q_lora_rank=arch.q_lora_rank, kv_lora_rank=arch.kv_lora_rank, rope_dim=arch.rope_dim,
        v_head_dim=arch.v_head_dim, padded_values=values.get("attention") == FLASH_TRANSFORMERS)


def trainable_count(values: Values, arch: Architecture, parameters: int) -> int:
    """All parameters; the adapters PEFT adds (or the LoRA page's exact count); or the last N layers."""
    method = str(values["method"])
    if method == ts.FULL:
        return parameters
    if method == ts.MODULES_ONLY:
        return trained_modules_count(arch, str(values["trainable_modules"]))
    if method == ts.FREEZE:
        embeddings = arch.vocab * arch.hidden * (1 if arch.tied else 2)
        per_layer = max(parameters - embeddings, 0) // max(arch.layers + arch.decoder_layers, 1)
        return per_layer * integer(values, "trainable_layers")
    exact = optional_number(values, "lora_trainable")
    if exact is not None:
        return int(exact)
    setup = LoraSetup(layers=arch.layers, hidden=arch.hidden, intermediate=arch.intermediate, heads=arch.heads,
                      kv_heads=arch.kv_heads, head_dim=arch.dim, vocab=arch.vocab, rank=integer(values, "rank"),
                      targets=TARGETS[str(values["lora_targets"])][1], dora=method == ts.DORA,
                      decoder_layers=arch.decoder_layers, experts=arch.experts,
                      shared_intermediate=arch.shared_intermediate)
    return trainable(setup)[1]


TRAINED_MODULES = {
    "attenzione": ("Attenzione (q, k, v, o)", frozenset({"q_proj", "k_proj", "v_proj", "o_proj"})),
    "mlp": ("MLP (gate, up, down)", frozenset({"gate_proj", "up_proj", "down_proj"})),
}


def trained_modules_count(arch: Architecture, which: str) -> int:
    """The weights of the attention's or the MLP's matrices in every layer (every expert's, for a mixture)."""
    q, kv = arch.heads * arch.dim, arch.kv_heads * arch.dim
    if which == "attenzione":
        per_layer = arch.hidden * (q + 2 * kv) + q * arch.hidden
    else:
        inner = arch.expert_intermediate if arch.moe else arch.intermediate
        per_layer = (3 if arch.mlp == GATED else 2) * arch.hidden * inner * max(arch.experts, 1)
    return per_layer * (arch.layers + arch.decoder_layers)


def layer_matrices(arch: Architecture) -> int:
    """Weights of the layers' matrices (embeddings and head apart): what bitsandbytes quantises."""
    *layers, _embeddings = arch.matrices()
    return sum(rows * cols * n for rows, cols, n in layers)


def layout_of(values: Values) -> par.Layout:
    """The parallel degrees as the form gives them (fields of another convention read as 1)."""
    def degree(key: str) -> int:
        value = values.get(key)
        return int(value) if isinstance(value, Decimal) else 1
    return par.Layout(tensor=degree("tensor_parallel"), pipeline=degree("pipeline_parallel"),
                      virtual=degree("virtual_stages"), context=degree("context_parallel"),
                      expert=degree("expert_parallel"), replicas=degree("hsdp_replicas"))


def read(values: Values) -> StepInput:
    arch = architecture_of(values)
    layout = layout_of(values)
    gpus = integer(values, "gpus")
    parameters = int(number(values, "parameters_billion") * 10**9)
    precision, method = str(values["precision_mode"]), str(values["method"])
    if method in ts.ADAPTERS and precision == ts.MIXED:  # a frozen base has no master copy: the Trainer's autocast
        precision = ts.AUTOCAST
    t = integer(values, "tensor_parallel")
    shape = shape_of(values, arch, precision, method)
    quantised = ts.quantisation(str(values["quant_type"]) if method == ts.QLORA else method,
                                values.get("double_quant") is True) if method in (ts.QLORA, ts.LORA_8BIT) else None
    training = ts.Training(
        method=method, precision=precision, optimizer=str(values["step_optimizer"]),
        trainable=trainable_count(values, arch, parameters) // t,
        gradient_bytes=4 if values.get("gradient_precision") == "32" else 2, quantised=quantised,
        optimizer_in_backward=values.get("optimizer_in_backward") is True,
        accumulating=integer(values, "accumulation_steps") > 1, zero_stage=int(str(values["zero_stage"])),
        adapter_fp32=values.get("adapter_dtype") != "base", data_parallel=layout.shard_degree(gpus),
        expert_data_parallel=layout.expert_shard_degree(gpus) if layout.expert > 1 else 0,
        offload_optimizer=values.get("offload_optimizer") is True,
        offload_parameters=values.get("offload_param") is True)
    frozen = ts.FrozenBase(TARGETS[str(values["lora_targets"])][1], integer(values, "rank"),
                           ts.input_copy_bytes(training), ts.adapter_bytes(training),
                           values.get("lora_dropout") is True) if method in ts.ADAPTERS else None
    if method == ts.MODULES_ONLY:  # trained modules keep their inputs; frozen ones and the norms do not
        frozen = ts.FrozenBase(TRAINED_MODULES[str(values["trainable_modules"])][1], 0, 0, 0)
    if method == ts.FREEZE:  # frozen layers below the trained ones keep nothing for a backward that never reaches them
        shape = replace(shape, layers=min(integer(values, "trainable_layers"), shape.layers))
    return StepInput(parameters, shape, arch, training, str(values["loss"]),
                     number(values, "gpu_memory_gb") * BYTES_PER_GB, gpus, t, frozen, layout,
                     integer(values, "accumulation_steps"))


def counts_of(given: StepInput) -> par.Counts:
    """The weights as the layout divides them: per layer (dense, routed experts), embedding and head."""
    arch = given.architecture
    embedding = arch.vocab * arch.hidden
    head = 0 if arch.tied else embedding
    layers = arch.layers + arch.decoder_layers
    experts = arch.experts * arch.dense_mlp(arch.expert_intermediate) if arch.moe else 0
    body = max(given.parameters - embedding - head - experts * layers, 0)
    return par.Counts(per_layer=body // max(layers, 1), experts_per_layer=experts, embedding=embedding, head=head,
                      layers=layers)


def model_of(given: StepInput, stage: par.Stage | None = None) -> ts.Model:
    """The counts one GPU of ``stage`` holds (the whole model, divided by TP, when there is no pipeline)."""
    arch, t = given.architecture, given.tensor_parallel
    matrices = arch.matrices()
    vectors = max(given.parameters - sum(r * c * n for r, c, n in matrices), 0)
    factored = sum((r + c) * n for r, c, n in matrices) + vectors
    layers = arch.layers + arch.decoder_layers
    if stage is None or (given.layout.pipeline == 1 and given.layout.expert == 1):
        return ts.Model(parameters=given.parameters // t, matrices=layer_matrices(arch) // t,
                        largest_tensor=arch.largest_layer() // t, head=arch.vocab * arch.hidden // t,
                        layers=layers, factored_values=factored // t)
    held = stage.dense + stage.experts
    share = held * t / given.parameters
    return ts.Model(parameters=int(held), matrices=int(Decimal(layer_matrices(arch)) * stage.layers / layers / t),
                    largest_tensor=arch.largest_layer() // t, head=int(stage.output_weights) if stage.head else 0,
                    layers=stage.layers, factored_values=int(factored * share / t),
                    expert_fraction=stage.experts / held if held else Decimal(0))


def stage_activations(given: StepInput, stage: par.Stage, shape: Shape) -> ts.Activations:
    """A stage's activations: its layers at s/CP tokens, for the micro-batches it keeps in flight; the logits and
    the loss on the stage with the head only; ring attention's blocks in transit."""
    layout = given.layout
    if layout.pipeline > 1:
        shape = replace(shape, layers=stage.layers)
    shape = replace(shape, sequence=shape.sequence // layout.context)
    fp32_stream = given.training.precision == ts.AUTOCAST and given.training.method not in ts.ADAPTERS
    acts = ts.step_activations(shape, given.loss, given.frozen, fp32_stream)
    if layout.pipeline == 1 and layout.context == 1:
        return acts
    head = logits_bytes(shape) - shape.loss_precision * acts.tokens_vocab  # the final norm's and the head's inputs
    layers = acts.kept - head
    if not stage.head:  # the head's inputs and the loss belong to the last stage, one micro-batch at a time
        head = Decimal(0)
        acts = replace(acts, logits=Decimal(0), tokens_vocab=0)
    arch = given.architecture
    ring = par.ring_buffers(shape.sequence * layout.context, shape.micro_batch, arch.kv_heads * arch.dim,
                            shape.precision, layout)
    return replace(acts, kept=layers * stage.in_flight + head + ring)


def stage_steps(given: StepInput, micro_batch: int | None = None) -> list[tuple[par.Stage, ts.Step]]:
    """Each pipeline stage worth looking at, with its step."""
    shape = given.shape if micro_batch is None else replace(given.shape, micro_batch=micro_batch)
    out = []
    for stage in par.stages(counts_of(given), given.layout, given.micro_batches):
        model = model_of(given, stage)
        training = given.training
        if training.method == ts.FULL and (given.layout.pipeline > 1 or given.layout.expert > 1):
            training = replace(training, trainable=model.parameters)
        out.append((stage, ts.step(model, training, stage_activations(given, stage, shape))))
    return out


def evaluate_step(given: StepInput, micro_batch: int | None = None) -> ts.Step:
    """The step of the GPU with the largest peak."""
    return max((step for _, step in stage_steps(given, micro_batch)), key=lambda result: result.allocated)


def shown_of(given: StepInput, result: ts.Step) -> tuple[Decimal, Decimal, Decimal]:
    return ts.shown(result.allocated, result.paged, given.gpus, given.gpu_bytes)


def largest_micro_batch(given: StepInput) -> int:
    """The most samples per micro-batch whose expected nvidia-smi figure fits the card (0: not even one)."""
    def fits(b: int) -> bool:
        return shown_of(given, evaluate_step(given, b))[1] <= given.gpu_bytes
    if not fits(1):
        return 0
    low, high = 1, 2
    while high <= 1 << 20 and fits(high):
        low, high = high, high * 2
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if fits(middle) else (low, middle)
    return low


PHASE_LABELS = {"forward": "passaggio in avanti", "backward": "passaggio all'indietro",
                "optimizer": "passo dell'ottimizzatore"}


def verdict(gpu_bytes: Decimal, low: Decimal, expected: Decimal, high: Decimal) -> str:
    """Fits, does not, or is at the limit when the band of what nvidia-smi shows crosses the card's memory; in GiB,
    as nvidia-smi shows it, the card named in both units."""
    card = gpu_size(gpu_bytes / BYTES_PER_GB)
    if high <= gpu_bytes:
        return (f"Entra in una GPU da {card}: nvidia-smi mostrerà circa {_gib(expected)} GiB (fino a"
                f" {_gib(high)}); restano {_gib(gpu_bytes - expected)} GiB.")
    if low > gpu_bytes:
        return (f"Non entra in una GPU da {card}: servono almeno {_gib(low)} GiB; mancano"
                f" {_gib(low - gpu_bytes)} GiB anche nel caso migliore.")
    return (f"Al limite in una GPU da {card}: nvidia-smi mostrerebbe tra {_gib(low)} e {_gib(high)} GiB;"
            " prova con un micro-batch più piccolo o con una delle opzioni di risparmio.")


def _gib(value: Decimal) -> str:
    return format_decimal(value / BYTES_PER_GIB)


def alternatives(given: StepInput, values: Values) -> list[tuple[str, StepInput]]:
    """Setups one edit away that need less memory, each named as the form names it."""
    out: list[tuple[str, StepInput]] = []
    training, shape = given.training, given.shape
    if shape.checkpointing in (NONE, SELECTIVE):
        out.append(("gradient checkpointing", replace(given, shape=replace(shape, checkpointing=FULL))))
    if given.loss == ts.STANDARD_LOSS:
        out.append(("loss a blocchi", replace(given, loss=ts.CHUNKED_LOSS)))
    if training.optimizer in ("adamw", "adamw_fused"):
        out.append(("AdamW a 8 bit", replace(given, training=replace(training, optimizer="adamw_8bit"))))
    if training.method == ts.FULL and not training.optimizer_in_backward and training.zero_stage < 2:
        out.append(("ottimizzatore nel backward",
                    replace(given, training=replace(training, optimizer_in_backward=True))))
    if training.method in (ts.FULL, ts.FREEZE):
        # read() takes mixed precision with adapters as the Trainer's autocast.
        lora = {**values, "method": ts.LORA, "lora_trainable": None, "rank": Decimal(16), "lora_targets": "tutti"}
        out.append(("LoRA r=16 su tutti i lineari", read(lora)))
    if training.method in (ts.LORA, ts.DORA):
        out.append(("QLoRA NF4", read({**values, "method": ts.QLORA, "quant_type": ts.NF4, "double_quant": True,
                                       "precision_mode": ts.PURE_BF16 if given.training.precision == ts.PURE_BF16
                                       else ts.AUTOCAST})))
    if training.method not in ts.ADAPTERS or given.gpus > 1:
        more = given.gpus * 2
        out.append((f"{more} GPU con ZeRO-3", replace(given, gpus=more, training=replace(
            training, zero_stage=3, data_parallel=given.layout.shard_degree(more),
            expert_data_parallel=given.layout.expert_shard_degree(more) if given.layout.expert > 1 else 0))))
    if given.gpus > 1 and training.zero_stage < 3:
        out.append((f"ZeRO-{training.zero_stage + 1}",
                    replace(given, training=replace(training, zero_stage=training.zero_stage + 1))))
    return out


def advice(given: StepInput, values: Values, expected: Decimal) -> str:
    """When it does not fit: what each single change would save, largest saving first."""
    savings = []
    for label, other in alternatives(given, values):
        saved = expected - shown_of(other, evaluate_step(other))[1]
        if saved > 0:
            savings.append((saved, label))
    if not savings:
        return "Nessuna singola opzione basta: servono più GPU (ZeRO-3 o FSDP) o una GPU più grande."
    savings.sort(reverse=True)
    return "Risparmierebbero: " + "; ".join(f"{label} −{_gib(saved)} GiB" for saved, label in savings) + "."


def uneven(given: StepInput) -> str:
    """Said when the layers do not divide among the pipeline's blocks (the most loaded rank is counted)."""
    layout, layers = given.layout, given.architecture.layers
    chunks = layout.pipeline * layout.virtual
    if layout.pipeline == 1 or layers % chunks == 0:
        return ""
    return (f" I {format_integer(layers)} strati non si dividono in parti uguali tra {format_integer(chunks)} blocchi"
            f" di pipeline: il calcolo segue la GPU che ne ha di più ({format_integer(par.stage_layers(layers, layout))}),"
            " come torchtitan li ripartisce; Megatron-LM vuole strati divisibili (o primo e ultimo stadio indicati).")


def stage_sentence(given: StepInput, stage: par.Stage) -> str:
    """Which GPU holds the peak, and what it holds."""
    return _stage_sentence(given, stage) + uneven(given)


def _stage_sentence(given: StepInput, stage: par.Stage) -> str:
    layout, n = given.layout, format_integer
    shard = f"; ZeRO divide gli stati su {n(given.training.data_parallel)} GPU" if given.training.zero_stage else ""
    split = f" ÷ TP {n(layout.tensor)}" if layout.tensor > 1 else ""
    if stage.name == "only":
        return f"Ogni GPU tiene tutti gli strati ({n(stage.layers)}){split}, l'embedding e la testa{shard}."
    if stage.name == "first":
        return (f"Il primo stadio della pipeline: {n(stage.layers)} strati{split}, l'embedding e le attivazioni di"
                f" {format_decimal(stage.in_flight)} micro-batch in volo{shard}.")
    return f"L'ultimo stadio della pipeline: {n(stage.layers)} strati{split}, la testa, i logit e la loss{shard}."


def compute(values: Values) -> Outputs:
    given = read(values)
    stages = stage_steps(given)
    peak_stage, result = max(stages, key=lambda pair: pair[1].allocated)
    low, expected, high = shown_of(given, result)
    peak = result.peak
    fits = high <= given.gpu_bytes
    outputs: dict[str, Decimal | str | None] = {
        "peak_allocated_gib": result.allocated / BYTES_PER_GIB,
        "smi_gib": expected / BYTES_PER_GIB,
        "smi_range": f"tra {_gib(low)} e {_gib(high)} GiB",
        "fit": verdict(given.gpu_bytes, low, expected, high),
        "fit_tone": "good" if fits else "bad" if low > given.gpu_bytes else "warn",  # the verdict's colour
        "headroom_gb": (given.gpu_bytes - expected) / BYTES_PER_GB,
        "peak_phase": f"Il picco è nel {PHASE_LABELS[peak.name]}.",
        "max_micro_batch": Decimal(largest_micro_batch(given)),
        "advice": "Non serve: entra così com'è." if fits else advice(given, values, expected),
        "trainable_parameters": Decimal(given.training.trainable * given.tensor_parallel),
        "states_on_cpu_gb": result.states_on_cpu / BYTES_PER_GB if result.states_on_cpu else None,
        "paged_gib": result.paged / BYTES_PER_GIB if result.paged else None,
        "data_parallel": Decimal(given.layout.data_parallel(given.gpus)),
        "peak_stage": stage_sentence(given, peak_stage),
    }
    plan = plan_of(given, values)
    outputs.update({key: snippet(plan) for key, snippet in step_configs.SNIPPETS.items()})
    for phase in result.phases:
        outputs[f"phase_{phase.name}_gib"] = phase.total / BYTES_PER_GIB
        outputs.update({f"{phase.name}_{key}_gib": value / BYTES_PER_GIB for key, value in phase.parts.items()})
    # For the accumulation page's GPU mode: what does not grow with the micro-batch, and what each sample adds.
    one, two = (shown_of(given, evaluate_step(given, b))[1] for b in (1, 2))
    per_sample = two - one
    outputs.update({
        "states_per_gpu_gb": ((one - per_sample) / BYTES_PER_GB).quantize(Decimal("0.01"), rounding=ROUND_CEILING),
        "activation_per_sample_gb": per_sample / BYTES_PER_GB, "reserve_gb": Decimal(0)})
    for key in ts.COMPONENTS:
        outputs[f"peak_{key}_gib"] = peak.parts[key] / BYTES_PER_GIB
    return outputs


def plan_of(given: StepInput, values: Values) -> step_configs.StepPlan:
    training = given.training
    return step_configs.StepPlan(
        method=training.method, precision=training.precision, optimizer=training.optimizer,
        optimizer_in_backward=training.optimizer_in_backward, micro_batch=given.shape.micro_batch,
        accumulation=integer(values, "accumulation_steps"), sequence=given.shape.sequence,
        checkpointing=given.shape.checkpointing, loss=given.loss, gpus=given.layout.data_parallel(given.gpus),
        zero_stage=training.zero_stage, offload_optimizer=training.offload_optimizer,
        offload_parameters=training.offload_parameters, rank=integer(values, "rank"),
        targets=str(values["lora_targets"]), quant_type=str(values["quant_type"]),
        double_quant=values.get("double_quant") is True)


def check(values: Values) -> dict[str, str]:
    """What no library runs, each named with its fields."""
    errors: dict[str, str] = check_head_dim(values)
    method, precision = str(values["method"]), str(values["precision_mode"])
    optimizer, t = str(values["step_optimizer"]), integer(values, "tensor_parallel")
    heads, kv_heads = integer(values, "attention_heads"), integer(values, "kv_heads")
    if method in (ts.QLORA, ts.LORA_8BIT) and precision == ts.FP32:
        errors["precision_mode"] = ("Precisione: bitsandbytes calcola una base quantizzata in 16 bit; scegli la"
                                    " precisione mista, autocast o bf16 puro.")
    if values.get("attention") == FLASH_TRANSFORMERS and precision == ts.FP32:
        errors["attention"] = ("flash_attention_2 e _3 di Transformers non accettano pesi e attivazioni in fp32:"
                               " scegli SDPA, oppure una precisione a 16 bit o autocast.")
    if values.get("offload_param") is True and values.get("offload_optimizer") is not True:
        errors["offload_param"] = ("Pesi su CPU: DeepSpeed e FSDP spostano i pesi sulla CPU solo insieme agli stati"
                                   " dell'ottimizzatore; attiva anche «Ottimizzatore su CPU».")
    stage = int(str(values["zero_stage"]))
    if values.get("offload_optimizer") is True and stage == 0:
        errors["offload_optimizer"] = ("Ottimizzatore su CPU: DeepSpeed lo sposta solo con ZeRO 1, 2 o 3 (FSDP con il"
                                       " partizionamento completo); scegli uno stadio ZeRO.")
    if values.get("offload_param") is True and stage != 3:
        errors["offload_param"] = "Pesi su CPU: l'offload dei pesi esiste solo con ZeRO-3 (o FSDP FULL_SHARD)."
    if method == ts.FREEZE and integer(values, "trainable_layers") == 0:
        errors["trainable_layers"] = "Strati addestrati: almeno uno, o non c'è nulla da addestrare."
    if optimizer.startswith("paged") and values.get("offload_optimizer") is True:
        errors["offload_optimizer"] = ("Ottimizzatore su CPU: gli stati paginati di bitsandbytes vivono già nella"
                                       " memoria unificata; non si combinano con l'offload di DeepSpeed.")
    if values.get("optimizer_in_backward") is True and int(str(values["zero_stage"])) >= 2:
        errors["optimizer_in_backward"] = ("Ottimizzatore nel backward: torchtune lo offre senza partizionare i"
                                           " gradienti; con ZeRO-2/3 o FSDP scegli uno stadio 0 o 1.")
    if values.get("optimizer_in_backward") is True and integer(values, "accumulation_steps") > 1:
        errors["accumulation_steps"] = ("Passi di accumulo: con l'ottimizzatore nel backward i gradienti sono"
                                        " applicati subito e non si possono accumulare (torchtune lo rifiuta).")
    if kv_heads > heads or heads % kv_heads:
        errors["kv_heads"] = "Teste chiave/valore: devono dividere esattamente le teste di attenzione."
    elif heads % t or (kv_heads % t and t % kv_heads):
        errors["tensor_parallel"] = (f"Parallelismo tensoriale: {format_integer(t)} GPU non dividono le"
                                     f" {format_integer(heads)} teste e le {format_integer(kv_heads)} teste"
                                     " chiave/valore.")
    errors.update({key: message for key, message in layout_problems(values).items() if key not in errors})
    if method == ts.FREEZE and integer(values, "trainable_layers") > integer(values, "layers") + integer(
            values, "decoder_layers"):
        errors["trainable_layers"] = "Strati addestrati: non possono essere più degli strati del modello."
    if method != ts.FULL and any(integer(values, key) > 1 for key in SCALE_FIELDS):
        errors.setdefault("pipeline_parallel", "Parallelismo a pipeline, di contesto o degli esperti: qui è previsto"
                                               " solo per il fine-tuning completo; con gli altri metodi lascia 1.")
    if method in ts.ADAPTERS and t > 1:
        errors.setdefault("tensor_parallel", "Parallelismo tensoriale: qui è previsto solo per il fine-tuning"
                                             " completo; con LoRA e QLoRA lascia 1.")
    return errors


SCALE_FIELDS = ("pipeline_parallel", "context_parallel", "expert_parallel")


def layout_problems(values: Values) -> dict[str, str]:
    """The degrees that do not divide what they split, each said beside its field."""
    n = format_integer
    layout, gpus = layout_of(values), integer(values, "gpus")
    t, p, v, c, e = layout.tensor, layout.pipeline, layout.virtual, layout.context, layout.expert
    layers, decoder = integer(values, "layers"), integer(values, "decoder_layers")
    sequence, experts = integer(values, "sequence_length"), integer(values, "experts")
    errors: dict[str, str] = {}
    if gpus % layout.model_parallel:
        errors["gpus"] = (f"GPU: {n(gpus)} non si dividono in gruppi di TP × PP × CP = {n(t)} × {n(p)} × {n(c)} ="
                          f" {n(layout.model_parallel)}; il parallelismo dei dati è GPU / (TP · PP · CP).")
    if p > 1 and decoder:
        errors["pipeline_parallel"] = ("Parallelismo a pipeline: qui è previsto per i modelli solo decoder; per un"
                                       " encoder–decoder lascia 1.")
    elif p * v > layers:
        errors["pipeline_parallel"] = (f"Parallelismo a pipeline: {n(p * v)} blocchi ({n(p)} stadi × {n(v)} stadi"
                                       f" virtuali) sono più dei {n(layers)} strati; ogni blocco ne vuole almeno uno.")
    if v > 1 and p == 1:
        errors["virtual_stages"] = "Stadi virtuali: servono almeno 2 stadi di pipeline (lo schema interleaved)."
    elif v > 1 and integer(values, "accumulation_steps") % p:
        errors["virtual_stages"] = (f"Stadi virtuali: con lo schema interleaved Megatron-LM vuole un numero di"
                                    f" micro-batch (passi di accumulo) multiplo dei {n(p)} stadi.")
    if c > 1 and sequence % (2 * c):
        errors["context_parallel"] = (f"Parallelismo di contesto: la sequenza di {n(sequence)} token deve dividersi"
                                      f" per 2 · CP = {n(2 * c)} (ogni GPU prende due blocchi, per bilanciare la"
                                      " maschera causale).")
    elif c > 1 and values.get("attention") == EAGER:
        errors["context_parallel"] = ("Parallelismo di contesto: l'attenzione ad anello usa kernel come"
                                      " FlashAttention; scegli FlashAttention / SDPA.")
    if e > 1 and not experts:
        errors["expert_parallel"] = "Parallelismo degli esperti: il modello non ha esperti; lascia 1."
    elif e > 1 and experts % e:
        errors["expert_parallel"] = (f"Parallelismo degli esperti: {n(experts)} esperti non si dividono in parti"
                                     f" uguali tra {n(e)} GPU.")
    elif e > 1 and not errors.get("gpus") and (layout.data_parallel(gpus) * c) % e:
        errors["expert_parallel"] = (f"Parallelismo degli esperti: EP = {n(e)} si ricava dalle GPU dei dati e del"
                                     f" contesto (DP · CP = {n(layout.data_parallel(gpus) * c)}) e deve dividerle.")
    if layout.replicas > 1 and not errors.get("gpus") and layout.data_parallel(gpus) % layout.replicas:
        errors["hsdp_replicas"] = (f"Repliche HSDP: {n(layout.replicas)} non divide il parallelismo dei dati"
                                   f" ({n(layout.data_parallel(gpus))} repliche).")
    elif layout.replicas > 1 and int(str(values["zero_stage"])) == 0:
        errors["hsdp_replicas"] = "Repliche HSDP: partizionano gli stati dentro ogni gruppo; scegli uno stadio ZeRO."
    return errors


def fields() -> tuple[Field, ...]:
    """The convention's own fields (the shape fields, shared with Adafactor's, are the page's)."""
    on = (STEP,)
    return (
        Field(id="method", label="Metodo", default=ts.FULL, kind=Kind.CHOICE, group="Metodo", modes=on,
              options=(Option(ts.FULL, "Fine-tuning completo"), Option(ts.LORA, "LoRA"), Option(ts.DORA, "DoRA"),
                       Option(ts.QLORA, "QLoRA (base a 4 bit)"), Option(ts.LORA_8BIT, "LoRA su base a 8 bit"),
                       Option(ts.FREEZE, "Solo gli ultimi strati (il resto congelato)"),
                       Option(ts.MODULES_ONLY, "Solo alcuni moduli di ogni strato")),
              help="Solo alcuni moduli o solo gli ultimi strati: il resto resta congelato. Con LoRA e QLoRA la base"
                   " congelata non ha gradienti né stati dell'ottimizzatore."),
        Field(id="rank", label="Rango LoRA (r)", default="16", group="Metodo", modes=on, maximum=Decimal(65_536),
              help="Usato da LoRA, DoRA e QLoRA."),
        Field(id="lora_targets", label="Moduli adattati", default="tutti", kind=Kind.CHOICE, group="Metodo",
              modes=on, options=tuple(Option(key, label) for key, (label, _) in TARGETS.items()),
              help="target_modules di PEFT: q_proj e v_proj è il default per Llama; «tutti i lineari» sono attenzione e"
                   " MLP. Per altri insiemi usa il calcolatore LoRA, che porta qui il conteggio."),
        Field(id="lora_trainable", label="Parametri addestrabili esatti (dal calcolatore LoRA)", default="",
              kind=Kind.DECIMAL, group="Metodo", modes=on, optional=True, minimum=Decimal(0),
              maximum=Decimal(10**13), help="Se indicato, sostituisce il conteggio dei moduli scelti."),
        Field(id="adapter_dtype", label="Precisione degli adattatori", default="fp32", kind=Kind.CHOICE,
              group="Metodo", modes=on,
              options=(Option("fp32", "fp32, come li tiene PEFT"),
                       Option("base", "Come la base (torchtune, LitGPT)")),
              help="PEFT porta gli adattatori in fp32 (autocast_adapter_dtype=True) e ogni modulo adattato conserva"
                   " una copia fp32 del suo input."),
        Field(id="lora_dropout", label="Dropout di LoRA", default="", kind=Kind.FLAG, group="Metodo", modes=on,
              help="lora_dropout > 0: ogni modulo adattato conserva anche l'uscita del dropout e la sua maschera."),
        Field(id="quant_type", label="Quantizzazione a 4 bit", default=ts.NF4, kind=Kind.CHOICE, group="Metodo",
              modes=on, options=(Option(ts.NF4, "NF4 (bnb_4bit_quant_type=\"nf4\")"), Option(ts.FP4, "FP4")),
              help="QLoRA: 4 bit per peso e una costante fp32 ogni 64 pesi."),
        Field(id="double_quant", label="Doppia quantizzazione", default="on", kind=Kind.FLAG, group="Metodo",
              modes=on, help="bnb_4bit_use_double_quant: costanti a 8 bit, da 0,5 a 0,127 bit per peso."),
        Field(id="trainable_layers", label="Strati addestrati (gli ultimi)", default="4", group="Metodo", modes=on,
              minimum=Decimal(0), maximum=Decimal(10_000), help="Solo con «Solo gli ultimi strati»."),
        Field(id="trainable_modules", label="Moduli addestrati", default="attenzione", kind=Kind.CHOICE,
              group="Metodo", modes=on, options=tuple(Option(k, label) for k, (label, _) in TRAINED_MODULES.items()),
              help="Solo con «Solo alcuni moduli»: gli altri pesi, le norme, gli embedding e la testa restano"
                   " congelati."),
        Field(id="precision_mode", label="Precisione", default=ts.MIXED, kind=Kind.CHOICE,
              group="Precisione e ottimizzatore", modes=on,
              options=(Option(ts.MIXED, "Mista con copia master fp32"),
                       Option(ts.AUTOCAST, "Pesi fp32 con autocast bf16"),
                       Option(ts.PURE_BF16, "bf16 puro: pesi, gradienti e stati"),
                       Option(ts.FP32, "fp32")),
              help="Mista con copia master fp32: DeepSpeed, Megatron (16 B/parametro). Pesi fp32 con autocast bf16:"
                   " il Trainer di Transformers, Accelerate. bf16 puro: torchtune, LitGPT bf16-true. Decide i byte di"
                   " pesi, gradienti e stati dell'ottimizzatore. Con LoRA e QLoRA la precisione mista"
                   " è quella del Trainer: base in bf16, adattatori aggiornati in fp32 sotto autocast."),
        Field(id="step_optimizer", label="Ottimizzatore", default="adamw", kind=Kind.CHOICE,
              group="Precisione e ottimizzatore", modes=on,
              options=tuple(Option(key, spec.label) for key, spec in ts.OPTIMIZERS.items()),
              help="AdamW conserva due momenti, SGD con momento e Lion uno; i paginati vivono fuori"
                   " dall'allocatore di PyTorch."),
        Field(id="optimizer_in_backward", label="Ottimizzatore nel backward", default="", kind=Kind.FLAG,
              group="Precisione e ottimizzatore", modes=on,
              help="optimizer_in_bwd di torchtune: ogni gradiente è applicato e liberato appena calcolato."),
        Field(id="sequence_length", label="Lunghezza delle sequenze", default="2048", unit="token",
              group="Attivazioni", modes=on, maximum=Decimal(1_048_576), help="Token di ogni campione."),
        Field(id="micro_batch", label="Micro-batch", default="1", unit="campioni", group="Attivazioni", modes=on,
              maximum=Decimal(100_000), help="Campioni per GPU in un passaggio in avanti."),
        Field(id="attention", label="Attenzione", default=FLASH, kind=Kind.CHOICE, group="Attivazioni", modes=on,
              options=(Option(FLASH, "FlashAttention / SDPA"),
                       Option(FLASH_TRANSFORMERS, "flash_attention_2 / _3 di Transformers"),
                       Option(EAGER, "Eager (matrice s × s)")),
              help=f"attn_implementation di Transformers. {PADDED_VALUES_HELP}"),
        checkpointing_field("Attivazioni", on),
        Field(id="loss", label="Loss", default=ts.STANDARD_LOSS, kind=Kind.CHOICE, group="Attivazioni", modes=on,
              options=(Option(ts.STANDARD_LOSS, "Cross-entropy sui logit interi (Transformers)"),
                       Option(ts.CHUNKED_LOSS, "A blocchi (torchtune)"),
                       Option(ts.COMPILED_CHUNKED_LOSS, "A blocchi e compilata (torchtune)"),
                       Option(ts.FUSED_LOSS, "Fusa con la testa (Liger, torchtune)")),
              help="A blocchi: CEWithChunkedOutputLoss di torchtune (compilata: compile=True); fusa con la testa:"
                   " Liger o LinearCrossEntropyLoss di torchtune. I logit in fp32 e il loro gradiente sono spesso il"
                   " picco con vocabolari grandi."),
        Field(id="accumulation_steps", label="Passi di accumulo", default="1", group="Attivazioni", modes=on,
              maximum=Decimal(100_000), help="Con più di uno i gradienti restano in memoria anche nel forward."),
    )


TENSOR_PARALLEL = Field(
    id="tensor_parallel", label="Parallelismo tensoriale", default="1", unit="GPU", group="Partizionamento",
    modes=(STEP,), maximum=Decimal(1024),
    help="Divide pesi, gradienti, stati e attivazioni (teste e MLP); le GPU sopra sono TP × PP × CP × dati.")


def _degree(key: str, label: str, help_text: str, maximum: int = 1024) -> Field:
    return Field(id=key, label=label, default="1", unit="GPU" if key != "virtual_stages" else "", modes=(STEP,),
                 group="Partizionamento", maximum=Decimal(maximum), help=help_text)


LAYOUT_FIELDS = (
    _degree("pipeline_parallel", "Parallelismo a pipeline (stadi)",
            "Divide gli strati tra stadi; il primo tiene le attivazioni di più micro-batch in volo (1F1B)."),
    _degree("virtual_stages", "Stadi virtuali per GPU (interleaved)",
            "Schema interleaved di Megatron-LM: più blocchi di strati per GPU, bolla minore, un po' più di"
            " attivazioni sul primo stadio.", 64),
    _degree("context_parallel", "Parallelismo di contesto", "Divide la sequenza tra GPU (attenzione ad anello)."),
    _degree("expert_parallel", "Parallelismo degli esperti",
            "Divide gli esperti tra le GPU dei dati; router ed esperti condivisi restano su ognuna."),
    _degree("hsdp_replicas", "Repliche HSDP",
            "1: ZeRO/FSDP partiziona su tutte le GPU dei dati; di più: partiziona dentro ogni gruppo e replica"
            " tra i gruppi (HSDP, data_parallel_replicate_degree di torchtitan).", 100_000),
)
