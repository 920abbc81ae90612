"""The peak GPU memory of one training step, phase by phase, for the ways people actually train.

A step is three phases, and its peak is the largest of them, not the sum of everything:

* **forward** (up to the loss): weights, optimizer states, the activations kept for backward, the loss's
  buffers (the logits in the training precision, their fp32 copy and the log-softmax the cross-entropy keeps);
  gradients only while accumulating (``zero_grad(set_to_none=True)`` frees them between steps);
* **backward**: it starts with every activation still kept plus the gradient of the logits, and ends with every
  gradient; in between one falls as the other grows, so the peak is at one end. Checkpointing rebuilds one layer
  at a time, whose activations join the peak;
* **optimizer step**: weights, gradients, states and the step's temporaries (PyTorch's foreach AdamW makes one
  state-sized copy for the square root of the second moment; the fused kernel none).

Byte counts follow the sources named beside each term; ``tools/measure_step.py`` traces whole steps of
Transformers models with fake tensors and ``tests/llm/test_training_step.py`` holds the estimate to them. What
the GPU then shows adds what a trace cannot see: the CUDA context, the libraries' workspaces and the caching
allocator's reserve (``Overheads``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from .activation_memory import (
    FUSED_NORM,
    GEMMA_NORM,
    LLAMA_NORM,
    NONE,
    SELECTIVE,
    T5_NORM,
    Shape,
    estimate,
    rebuilt_layer,
)
from .units import BYTES_PER_GIB

# How the weights are kept and updated.
MIXED = "mista"  # 16-bit weights and gradients, fp32 master copy in the optimizer (ZeRO, DeepSpeed, Megatron)
AUTOCAST = "autocast"  # fp32 weights, 16-bit compute under torch.autocast (Transformers' Trainer, Accelerate)
PURE_BF16 = "bf16"  # everything 16-bit, optimizer states included (torchtune, LitGPT "bf16-true")
FP32 = "fp32"

# What is trained.
FULL, LORA, DORA, QLORA, LORA_8BIT, FREEZE = "completo", "lora", "dora", "qlora", "lora_8bit", "congelato"
MODULES_ONLY = "moduli"  # only some modules of every layer trained (attention or MLP), the rest frozen
ADAPTERS = (LORA, DORA, QLORA, LORA_8BIT)
NF4, FP4 = "nf4", "fp4"

# The loss.
STANDARD_LOSS, CHUNKED_LOSS, COMPILED_CHUNKED_LOSS, FUSED_LOSS = "standard", "a_blocchi", "a_blocchi_compilata", "fusa"
LOSS_CHUNKS = 8  # torchtune's CEWithChunkedOutputLoss cuts the sequence into 8 chunks


@dataclass(frozen=True)
class Quantisation:
    """A frozen base stored in fewer bits: bytes per weight of a quantised matrix, constants included."""

    label: str
    bits: int
    block: int  # values per quantisation constant
    double: bool = False  # the constants themselves quantised to 8 bit, in blocks of 256, with fp32 constants

    def bytes_per_weight(self) -> Decimal:
        """QLoRA (Dettmers et al., arXiv:2305.14314 §3): NF4 with an fp32 absmax per 64 weights costs 0,5 bit per
        weight on top of the 4; double quantisation brings that to 8/64 + 32/(64·256) = 0,127 bit."""
        constants = Decimal(8) / self.block + Decimal(32) / (self.block * 256) if self.double \
            else Decimal(32) / self.block
        return (self.bits + constants) / 8


def quantisation(kind: str, double: bool) -> Quantisation:
    """bitsandbytes' 4-bit (NF4 or FP4, block 64) or LLM.int8 (a row-wise fp32 scale; block = the row)."""
    if kind == LORA_8BIT:
        return Quantisation("int8", 8, 0)
    return Quantisation(kind, 4, 64, double)


@dataclass(frozen=True)
class Optimizer:
    """What an optimizer keeps per trainable value, and what its step allocates for a moment."""

    label: str
    moments: int  # states in the precision of the weights it updates (AdamW 2, SGD with momentum 1, Lion 1)
    eight_bit: int = 0  # bitsandbytes' blockwise 8-bit states: 1 byte per value + an fp32 absmax per 256
    factored: bool = False  # Adafactor: a row and a column per matrix, fp32
    paged: bool = False  # bitsandbytes' paged states: unified memory, outside PyTorch's allocator
    foreach_copies: int = 0  # state-sized copies made by PyTorch's multi-tensor (foreach) step
    source: str = ""


OPTIMIZERS: dict[str, Optimizer] = {
    "adamw": Optimizer("AdamW (torch.optim, foreach)", 2, foreach_copies=1,
                       source="torch/optim/adamw.py, _multi_tensor_adamw: _foreach_sqrt(exp_avg_sqs) is a new list"),
    "adamw_fused": Optimizer("AdamW fuso (fused=True, DeepSpeed FusedAdam)", 2,
                             source="one kernel per tensor list, no intermediate copies"),
    "adamw_8bit": Optimizer("AdamW a 8 bit (bitsandbytes)", 0, eight_bit=2,
                            source="bitsandbytes/optim/optimizer.py, Optimizer8bit: uint8 states, absmax per 256"),
    "paged_adamw": Optimizer("AdamW paginato (bitsandbytes, stati fp32)", 2, paged=True,
                             source="bitsandbytes PagedAdamW: 32-bit states in cudaMallocManaged pages"),
    "paged_adamw_8bit": Optimizer("AdamW a 8 bit paginato (bitsandbytes)", 0, eight_bit=2, paged=True,
                                  source="bitsandbytes: states in cudaMallocManaged pages"),
    "adafactor": Optimizer("Adafactor (Transformers)", 0, factored=True,
                           source="Shazeer e Stern, arXiv:1804.04235; transformers.optimization.Adafactor"),
    "sgd": Optimizer("SGD senza momento", 0, source="torch.optim.SGD, momentum=0: no state"),
    "sgd_momentum": Optimizer("SGD con momento", 1, source="torch.optim.SGD: momentum_buffer, like the gradient"),
    "lion": Optimizer("Lion", 1, source="Chen et al., arXiv:2302.06675: one moment (exp_avg)"),
}
EIGHT_BIT_PER_VALUE = Decimal(1) + Decimal(4) / 256


@dataclass(frozen=True)
class Model:
    """The counts the memory depends on, all per GPU before ZeRO (tensor parallelism already applied)."""

    parameters: int  # every weight
    matrices: int  # weights of the layers' linear matrices (what bitsandbytes quantises; autocast casts)
    largest_tensor: int  # the largest single weight (the embedding, usually): what a per-tensor step holds
    head: int  # the output layer's weights (its gradient is the first to appear in backward)
    layers: int = 1  # transformer blocks: ZeRO-3/FSDP gathers one (and prefetches the next) at a time
    factored_values: int = 0  # Adafactor: rows + columns of every matrix, plus every vector's values
    expert_fraction: Decimal = Decimal(0)  # the share of ``parameters`` that are routed experts (sharded apart)


@dataclass(frozen=True)
class Training:
    """How it is trained: method, precision, optimizer, and the counts that follow from them."""

    method: str = FULL
    precision: str = MIXED
    optimizer: str = "adamw"
    trainable: int = 0  # parameters with gradients (all for full fine-tuning; adapters; unfrozen layers)
    gradient_bytes: int = 2  # mixed precision only: 2 (the ZeRO paper) or 4 (fp32 gradients)
    quantised: Quantisation | None = None
    optimizer_in_backward: bool = False
    accumulating: bool = False  # gradient accumulation: gradients live through the next forward pass too
    zero_stage: int = 0
    data_parallel: int = 1  # the ranks ZeRO/FSDP shards over (DP · CP, or an HSDP group)
    expert_data_parallel: int = 0  # the ranks the routed experts' states are sharded over (0: as the rest)
    offload_optimizer: bool = False  # optimizer states and master copy in CPU memory (ZeRO-Offload, FSDP)
    adapter_fp32: bool = True  # PEFT keeps adapters in fp32 (autocast_adapter_dtype); torchtune and LitGPT as the base
    offload_parameters: bool = False  # the weights too (ZeRO-3 offload_param, FSDP CPUOffload): only the layers
    # being gathered are on the GPU


@dataclass(frozen=True)
class Activations:
    """Bytes of one micro-batch: kept for backward, rebuilt one layer at a time, and around the loss."""

    kept: Decimal  # everything the forward pass keeps for backward (layers, final norm and head inputs)
    rebuilt: Decimal = Decimal(0)  # one layer recomputed during backward (checkpointing), at its largest
    logits: Decimal = Decimal(0)  # tokens × vocabulary values in the training precision (the head's output)
    tokens_vocab: int = 0  # tokens × vocabulary: the fp32 buffers of the cross-entropy are sized from it
    loss: str = STANDARD_LOSS
    upcast: bool = True  # the loss upcasts the logits to fp32 (Transformers, but for T5 and Whisper)


@dataclass(frozen=True)
class FrozenBase:
    """LoRA's adapters on a frozen base: which of PEFT's modules they adapt and their rank; the bytes of the copy
    of its input each adapted module keeps (PEFT casts it to the fp32 adapters' dtype, autocast to bf16: one copy
    per module; 0 when the adapters take the input as it is, one tensor shared); the adapters' own bytes; and
    LoRA's dropout, which keeps its output and a 1-byte mask per module instead."""

    targets: frozenset[str]
    rank: int
    copy_bytes: int = 4
    adapter_bytes: int = 4
    dropout: bool = False


def step_activations(shape: Shape, loss: str = STANDARD_LOSS, frozen: FrozenBase | None = None,
                     fp32_stream: bool = False) -> Activations:
    """A micro-batch's activations for the step, from the activation module: what the layers and the head keep
    (the cross-entropy's buffers apart, ``loss_buffers`` counts them), and the layer rebuilt in backward; with a
    frozen base, what it no longer keeps and what the adapters keep instead (``frozen_delta``). Under autocast
    with fp32 weights (``fp32_stream``) the norms' outputs are fp32, and each product casts its input to 16 bit
    on its own (the cast cache holds weights only): q, k and v keep three copies of one input, gate and up two,
    three more h-wide copies per layer than ``layer_terms`` counts (measured by tools/measure_step.py)."""
    parts = estimate(shape)
    tokens_vocab = shape.sequence * shape.micro_batch * shape.vocab // shape.tensor_parallel
    kept = sum(parts.values(), Decimal(0)) - shape.loss_precision * tokens_vocab
    rebuilt = rebuilt_layer(shape)
    if fp32_stream and not shape.decoder_layers:
        copies = Decimal((3 if not shape.parallel_block else 2) * shape.precision * shape.sequence *
                         shape.micro_batch * shape.hidden) / shape.tensor_parallel
        if shape.checkpointing in (NONE, SELECTIVE):
            kept += copies * shape.layers
        else:
            rebuilt += copies
    if frozen is not None and not shape.experts and not shape.decoder_layers:
        delta = frozen_delta(shape, frozen)
        if shape.checkpointing in (NONE, SELECTIVE):
            kept += delta * shape.layers
        else:
            rebuilt += delta
        # The frozen head keeps neither its input nor the final norm's output for a weight gradient.
        kept -= (shape.precision + _norm_weight_saves(shape)) * shape.sequence * shape.micro_batch * shape.hidden
    return Activations(kept=kept, rebuilt=rebuilt, logits=Decimal(shape.precision * tokens_vocab),
                       tokens_vocab=tokens_vocab, loss=loss, upcast=shape.loss_precision > shape.precision)


def _norm_weight_saves(shape: Shape) -> int:
    """Bytes per value a norm keeps only for its weight's gradient (the normalised input before the weight)."""
    return {LLAMA_NORM: shape.precision, GEMMA_NORM: 4, T5_NORM: shape.precision, FUSED_NORM: 0}[shape.norm]


def frozen_delta(shape: Shape, frozen: FrozenBase) -> Decimal:
    """How much one decoder layer keeps beyond ``layer_terms``' full fine-tuning count, with a frozen base.

    A frozen linear layer keeps its input for nothing (its weight has no gradient), nor does a frozen norm keep
    its normalised input: those go. Each adapted layer's LoRA A keeps its input, cast to the adapters' dtype
    (PEFT casts it to fp32 for fp32 adapters: one copy per adapted module, even when q, k and v share the
    input), and B keeps A's r-wide output. Measured by tools/measure_step.py on Llama 3.2 1B (r = 8 on q and v,
    r = 16 on every linear layer).
    """
    p, h, names = shape.precision, shape.hidden, frozen.targets
    q = shape.heads * shape.head_dim
    down = shape.intermediate
    cast = (frozen.copy_bytes or p) + 1 if frozen.dropout else frozen.copy_bytes

    def adapted_input(width: int, modules: int) -> int:
        if not modules:
            return 0
        return modules * cast * width if cast else p * width

    norms = 1 if shape.parallel_block else 4 if shape.post_norms else 2
    delta = -norms * _norm_weight_saves(shape) * h
    attention = len(names & {"q_proj", "k_proj", "v_proj", "qkv_proj"})
    delta += -p * h + adapted_input(h, attention)
    delta += cast * q if "o_proj" in names else 0  # the attention's output is kept by the attention anyway
    if not shape.parallel_block:
        delta += -p * h + adapted_input(h, len(names & {"gate_proj", "up_proj", "gate_up_proj"}))
    delta += -p * down + adapted_input(down, 1 if "down_proj" in names else 0)
    adapted = len(names & {"q_proj", "k_proj", "v_proj", "qkv_proj", "o_proj", "gate_proj", "up_proj",
                           "gate_up_proj", "down_proj"})
    delta += frozen.adapter_bytes * frozen.rank * adapted
    return Decimal(delta * shape.sequence * shape.micro_batch) / shape.tensor_parallel


@dataclass(frozen=True)
class Phase:
    name: str
    parts: dict[str, Decimal]

    @property
    def total(self) -> Decimal:
        return sum(self.parts.values(), Decimal(0))


COMPONENTS = ("weights", "gradients", "optimizer", "activations", "loss", "temporaries")


@dataclass(frozen=True)
class Step:
    """The three phases of a step and what each holds, in bytes per GPU."""

    phases: tuple[Phase, ...]
    states_on_cpu: Decimal = Decimal(0)
    paged: Decimal = Decimal(0)  # optimizer states in unified memory: not in max_memory_allocated

    @property
    def peak(self) -> Phase:
        return max(self.phases, key=lambda phase: phase.total)

    @property
    def allocated(self) -> Decimal:
        """What ``torch.cuda.max_memory_allocated`` reports: the largest phase."""
        return self.peak.total


def weight_bytes(model: Model, training: Training) -> Decimal:
    """The stored weights: 16-bit, fp32, or a quantised base whose other weights (embeddings, head, norms) stay
    in bf16, plus the adapters in the precision PEFT keeps them (fp32, unless everything is bf16)."""
    if training.quantised is not None:
        per = training.quantised.bytes_per_weight()
        base = model.matrices * per + (model.parameters - model.matrices) * 2
        return base + training.trainable * adapter_bytes(training)
    if training.method in ADAPTERS:  # the frozen base is loaded in 16 bit (torch_dtype=bfloat16) unless fp32
        stored = 4 if training.precision == FP32 else 2
        return Decimal(model.parameters * stored + training.trainable * adapter_bytes(training))
    stored = 4 if training.precision in (AUTOCAST, FP32) else 2
    return Decimal(model.parameters * stored)


def adapter_bytes(training: Training) -> int:
    """PEFT upcasts adapters to fp32 (autocast_adapter_dtype=True); torchtune and LitGPT keep them in the base's
    16 bits."""
    return 4 if training.adapter_fp32 or training.precision == FP32 else 2


def input_copy_bytes(training: Training) -> int:
    """What each adapted module keeps of its input: autocast's bf16 copy; PEFT's cast to fp32 adapters; or the
    input itself (0: one tensor, shared by the modules that read it)."""
    if training.precision == AUTOCAST:
        return 2
    return adapter_bytes(training) if adapter_bytes(training) != (4 if training.precision == FP32 else 2) else 0


def trained_bytes(training: Training) -> int:
    """Bytes of each trained value as the optimizer updates it (the dtype its gradient and states take)."""
    if training.method in ADAPTERS:
        return adapter_bytes(training)
    return {MIXED: 4, AUTOCAST: 4, PURE_BF16: 2, FP32: 4}[training.precision]


def gradient_bytes(training: Training) -> int:
    """Gradients take the dtype of their parameters; mixed precision keeps them 16-bit or fp32 by choice."""
    if training.method not in ADAPTERS and training.precision == MIXED:
        return training.gradient_bytes
    return trained_bytes(training)


def optimizer_bytes(model: Model, training: Training) -> Decimal:
    """The optimizer's states (and the fp32 master copy of mixed precision) for the trainable values."""
    spec = OPTIMIZERS[training.optimizer]
    n = training.trainable
    master = 4 * n if training.precision == MIXED and training.method not in ADAPTERS else 0
    states = Decimal(spec.moments * trained_bytes(training) * n) + spec.eight_bit * EIGHT_BIT_PER_VALUE * n
    if spec.factored:
        # Full fine-tuning factors every matrix; adapters are thin matrices, taken whole here.
        states += 4 * (model.factored_values if training.method == FULL else n)
    return master + states


def step_temporaries(model: Model, training: Training) -> Decimal:
    """What the optimizer step allocates while it runs: a foreach state-sized copy, or one tensor's worth for the
    steps that go tensor by tensor (Adafactor's fp32 copy of each weight and its update, a step fused into
    backward)."""
    spec = OPTIMIZERS[training.optimizer]
    per_tensor = min(model.largest_tensor, training.trainable)
    if training.optimizer_in_backward:
        return Decimal(per_tensor * trained_bytes(training) * spec.foreach_copies)
    if spec.factored:
        return Decimal(per_tensor * 4 * 3)  # the fp32 weight, gradient and update of one tensor
    return Decimal(training.trainable * trained_bytes(training) * spec.foreach_copies)


def autocast_copies(model: Model, training: Training) -> Decimal:
    """Under autocast every fp32 matrix is cast to 16 bit for its product, and the copy is kept for backward
    (a frozen quantised base, or 16-bit weights, need none)."""
    if training.precision != AUTOCAST or training.quantised is not None or training.method in ADAPTERS:
        return Decimal(0)
    if training.zero_stage >= 3:  # FSDP and ZeRO-3 gather 16-bit copies layer by layer (``gathered``)
        return Decimal(0)
    return Decimal(2 * (model.matrices + model.head))  # the output layer is a product too


def gathered(model: Model, training: Training) -> Decimal:
    """ZeRO-3 and FSDP gather each block's 16-bit weights whole before using it, and prefetch the next: two
    blocks' worth beyond the shard (DeepSpeed's estimators count the largest layer the same way)."""
    if training.zero_stage < 3 and not training.offload_parameters:
        return Decimal(0)
    per_block = Decimal(model.matrices) / max(model.layers, 1)
    bytes_per = training.quantised.bytes_per_weight() if training.quantised is not None else 2
    return 2 * per_block * bytes_per


def loss_buffers(acts: Activations) -> tuple[Decimal, Decimal]:
    """(at the forward pass's peak, at backward's start) around the cross-entropy, the logits included.

    Transformers upcasts the 16-bit logits to fp32 and the cross-entropy keeps its fp32 log-softmax: logits +
    8 bytes per logit while the loss is computed. The trainer then drops the outputs, so backward starts from the
    saved log-softmax, the gradient it receives and the one it makes: 12 bytes per logit. A chunked loss
    (torchtune's CEWithChunkedOutputLoss) makes, upcasts and reduces one of 8 chunks at a time, but each chunk's
    cross-entropy keeps its fp32 log-softmax: 4 bytes per logit stay; compiled (torchtune's compile=True), the
    chunks keep their 16-bit logits instead. A fused loss (Liger's, torchtune's LinearCrossEntropyLoss) never
    keeps the logits. With chunks, backward goes chunk by chunk, and the output layer's gradient grows while the
    other chunks' buffers wait (``step`` adds it). Measured by tools/measure_step.py (the eager chunked loss, and
    the chunks recomputed, as a fused loss does) and in torchtune's README (the compiled one).
    """
    n = Decimal(acts.tokens_vocab)
    if acts.loss == FUSED_LOSS:  # a chunk at a time, made again in backward
        return 8 * n / LOSS_CHUNKS, 12 * n / LOSS_CHUNKS
    if not acts.upcast:  # the log-softmax in the logits' own precision
        p = acts.logits / n if n else Decimal(0)
        return acts.logits + p * n, 3 * p * n
    if acts.loss == CHUNKED_LOSS:  # each chunk's fp32 log-softmax is kept; one chunk upcast (and its gradients) at a time
        return 4 * n + 4 * n / LOSS_CHUNKS, 4 * n + 8 * n / LOSS_CHUNKS
    if acts.loss == COMPILED_CHUNKED_LOSS:  # compiled, the chunks keep their 16-bit logits instead
        return acts.logits + 8 * n / LOSS_CHUNKS, acts.logits + 12 * n / LOSS_CHUNKS
    return acts.logits + 8 * n, 12 * n


def shard_divisor(model: Model, training: Training) -> Decimal:
    """What ZeRO divides the states by: the data-parallel ranks, or, with expert parallelism, a blend of them and
    the experts' own (smaller) data-parallel group, weighted by the experts' share of the weights."""
    dp, f = Decimal(training.data_parallel), model.expert_fraction
    if not f or not training.expert_data_parallel:
        return dp
    return 1 / ((1 - f) / dp + f / training.expert_data_parallel)


def step(model: Model, training: Training, acts: Activations) -> Step:
    """Each phase of one step, in bytes per GPU, after ZeRO's sharding over the data-parallel GPUs."""
    dp, stage = shard_divisor(model, training), training.zero_stage
    weights = (Decimal(0) if training.offload_parameters else weight_bytes(model, training) / (dp if stage >= 3 else 1))
    weights += gathered(model, training)
    full_grads = Decimal(training.trainable * gradient_bytes(training)) / (dp if stage >= 2 else 1)
    if training.offload_optimizer:  # the gradients follow the optimizer to the CPU, a bucket at a time
        full_grads = min(full_grads, Decimal(min(model.largest_tensor, training.trainable) * gradient_bytes(training)))
    states = optimizer_bytes(model, training) / (dp if stage >= 1 else 1)
    spec = OPTIMIZERS[training.optimizer]
    on_cpu = states if training.offload_optimizer else Decimal(0)
    paged = states if spec.paged and not training.offload_optimizer else Decimal(0)
    resident = Decimal(0) if training.offload_optimizer or spec.paged else states
    temporaries = Decimal(0) if training.offload_optimizer else \
        step_temporaries(model, training) / (dp if stage >= 1 and not training.optimizer_in_backward else 1)
    copies = autocast_copies(model, training) / (dp if stage >= 3 else 1)
    per_tensor = Decimal(min(model.largest_tensor, training.trainable) * gradient_bytes(training))
    grads = per_tensor if training.optimizer_in_backward else full_grads
    head_grad = Decimal(min(model.head, training.trainable) * gradient_bytes(training)) \
        if training.method in (FULL, FREEZE) else Decimal(0)
    at_forward, at_backward = loss_buffers(acts)
    forward = Phase("forward", {
        "weights": weights, "gradients": grads if training.accumulating else Decimal(0), "optimizer": resident,
        "activations": acts.kept + copies, "loss": at_forward, "temporaries": Decimal(0)})
    before = grads if training.accumulating else Decimal(0)
    # Backward starts from the loss's buffers with every activation kept; then the head's gradient appears and
    # the first layer is rebuilt while the rest is still kept; it ends with every gradient and no activation.
    chunked = acts.loss != STANDARD_LOSS
    start = Phase("backward", {
        "weights": weights, "gradients": max(before, head_grad) if chunked else before, "optimizer": resident,
        "activations": acts.kept + copies, "loss": at_backward, "temporaries": Decimal(0)})
    first = Phase("backward", {
        "weights": weights, "gradients": max(before, head_grad), "optimizer": resident,
        "activations": acts.kept + copies + acts.rebuilt, "loss": Decimal(0), "temporaries": Decimal(0)})
    end = Phase("backward", {
        "weights": weights, "gradients": grads, "optimizer": resident, "activations": acts.rebuilt,
        "loss": Decimal(0), "temporaries": temporaries if training.optimizer_in_backward else Decimal(0)})
    phases = [forward, max(start, first, end, key=lambda phase: phase.total)]
    if not training.optimizer_in_backward:
        phases.append(Phase("optimizer", {
            "weights": weights, "gradients": full_grads, "optimizer": resident, "activations": Decimal(0),
            "loss": Decimal(0), "temporaries": temporaries}))
    return Step(tuple(phases), states_on_cpu=on_cpu, paged=paged)


@dataclass(frozen=True)
class Overheads:
    """What ``nvidia-smi`` shows beyond PyTorch's allocated peak, with a low and a high end.

    * the caching allocator keeps freed blocks reserved, and rounds and splits them: reserved exceeds the
      allocated peak by a few per cent to a third (PyTorch's CUDA semantics notes; measured runs below);
    * the CUDA context and the kernels' modules: about 0,3–0,6 GiB with lazy loading (CUDA ≥ 11.7);
    * cuBLAS/cuDNN workspaces (a few MiB to 1 GiB) and NCCL's buffers on more than one GPU.
    """

    reserve_fraction: tuple[Decimal, Decimal, Decimal] = (Decimal("0.02"), Decimal("0.10"), Decimal("0.30"))
    context_gib: tuple[Decimal, Decimal, Decimal] = (Decimal("0.3"), Decimal("0.5"), Decimal("0.8"))
    nccl_gib: tuple[Decimal, Decimal, Decimal] = (Decimal("0.1"), Decimal("0.5"), Decimal("1.5"))
    sources: tuple[str, ...] = field(default=(
        "https://pytorch.org/docs/stable/notes/cuda.html#memory-management",
        "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#lazy-loading",
    ))


OVERHEADS = Overheads()


def shown(allocated: Decimal, paged: Decimal, gpus: int, card: Decimal | None = None,
          overheads: Overheads = OVERHEADS) -> tuple[Decimal, Decimal, Decimal]:
    """(low, expected, high) bytes ``nvidia-smi`` shows for a step whose allocated peak is ``allocated``. Paged
    states are resident only while the card has room (the driver moves their pages to CPU memory when it has
    not), so they count up to the ``card``'s free memory."""
    out = []
    for i in range(3):
        reserved = allocated * (1 + overheads.reserve_fraction[i])
        extra = overheads.context_gib[i] + (overheads.nccl_gib[i] if gpus > 1 else 0)
        used = reserved + extra * BYTES_PER_GIB
        out.append(used + (min(paged, max(card - used, Decimal(0))) if card is not None else paged))
    return out[0], out[1], out[2]
