"""Parallel layouts: how tensor, pipeline, context, expert and data parallelism divide a model and its activations.

The GPUs are TP · PP · CP · DP (Megatron-LM's and torchtitan's order; expert parallelism is carved out of the
data- and context-parallel ranks, as Megatron-LM does). What one GPU holds:

* weights, gradients and optimizer states: a pipeline stage's layers (the most loaded one when they do not divide;
  the first stage also the input embedding,
  the last the final norm and the output layer; with tied embeddings and PP > 1 the last stage keeps its own
  copy), divided by TP; the routed experts divided by EP · TP (Megatron-LM's expert tensor parallelism defaults to
  TP), the router and the shared experts by TP only; ZeRO/FSDP then shards them over the data- and
  context-parallel ranks (DP · CP), or within groups of that size ÷ replicas (HSDP);
* activations: the stage's layers for the micro-batches it holds at once. Under 1F1B the first stage holds
  min(PP, micro-batches) of them; with v interleaved virtual stages per GPU, PP·(1 + (PP − 1)/(PP·v)) (Korthikanti
  et al., arXiv:2205.05198 §4.2.3, and Megatron-LM's ``theoretical_memory_usage``); the last stage one (more when
  interleaved: its warm-up), with the logits and the loss. Context parallelism gives each rank s/CP tokens; ring
  attention adds the key/value blocks in transit (one being received, one being sent) for the layer being computed.

Left out: NCCL's buckets and the pipeline's send/receive buffers (a few hidden-sized tensors per stage).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True)
class Layout:
    """The parallel degrees. ``replicas``: HSDP's replicated groups (1: ZeRO/FSDP shards over every DP·CP rank)."""

    tensor: int = 1
    pipeline: int = 1
    virtual: int = 1  # interleaved virtual stages per pipeline rank (1: plain 1F1B)
    context: int = 1
    expert: int = 1
    replicas: int = 1

    @property
    def model_parallel(self) -> int:
        return self.tensor * self.pipeline * self.context

    def data_parallel(self, gpus: int) -> int:
        """DP = GPUs / (TP · PP · CP): the replicas that see different samples."""
        return max(gpus // self.model_parallel, 1)

    def shard_degree(self, gpus: int) -> int:
        """Ranks ZeRO/FSDP shards the dense states over: DP · CP (context-parallel ranks hold the same weights), in
        groups when HSDP replicates."""
        return max(self.data_parallel(gpus) * self.context // self.replicas, 1)

    def expert_shard_degree(self, gpus: int) -> int:
        """Ranks that share each expert's states: the expert data-parallel group, GPUs / (TP · EP · PP)."""
        return max(gpus // (self.tensor * self.expert * self.pipeline) // self.replicas, 1)


def in_flight(layout: Layout, micro_batches: int, rank: int = 0) -> Decimal:
    """Micro-batches of its layers whose activations pipeline rank ``rank`` holds at its peak: the forward passes
    it runs before its first backward, plus the one in flight. 1F1B: PP − rank; interleaved, in model chunks,
    (PP − rank − 1)·2 + (v − 1)·PP + 1 (Megatron-LM's warm-up), at most every chunk of every micro-batch. For the
    first rank that is PP + (PP − 1)/v micro-batches: Korthikanti et al.'s 1 + (PP − 1)/(PP·v) penalty."""
    p, v, m = layout.pipeline, layout.virtual, max(micro_batches, 1)
    if p == 1:
        return Decimal(1)
    if v == 1:
        return Decimal(min(p - rank, m))
    chunks = min((p - rank - 1) * 2 + (v - 1) * p + 1, m * v)
    return Decimal(chunks) / v


@dataclass(frozen=True)
class Counts:
    """A model's weights as the layout divides them: per layer (dense part and routed experts) and around them."""

    per_layer: int  # attention, norms, dense MLP, router and shared experts of one layer
    experts_per_layer: int  # the routed experts' weights of one layer
    embedding: int  # the input embedding
    head: int  # the output layer (0 when tied to the embedding)
    layers: int


@dataclass(frozen=True)
class Stage:
    """What one GPU of a pipeline stage holds: weights split by how they are sharded, and its activations."""

    name: str  # "first", "last" or "only"
    dense: Decimal  # weights divided by TP (and by PP)
    experts: Decimal  # routed experts' weights divided by EP · TP
    layers: int  # transformer layers on the stage
    in_flight: Decimal  # micro-batches of activations it keeps
    head: bool  # holds the output layer and the loss
    output_weights: Decimal  # the output layer's weights on it, divided by TP


def stages(counts: Counts, layout: Layout, micro_batches: int) -> tuple[Stage, ...]:
    """The stages worth looking at: the only one, or the first (most activations) and the last (the loss)."""
    t, p = layout.tensor, layout.pipeline
    layers = stage_layers(counts.layers, layout)
    body = Decimal(counts.per_layer * layers) / t
    experts = Decimal(counts.experts_per_layer * layers) / (t * layout.expert)
    output = Decimal(counts.head or counts.embedding) / t
    if p == 1:
        return (Stage("only", body + Decimal(counts.embedding + counts.head) / t, experts, layers, Decimal(1), True,
                      output),)
    first = Stage("first", body + Decimal(counts.embedding) / t, experts, layers, in_flight(layout, micro_batches),
                  False, Decimal(0))
    last = Stage("last", body + output, experts, layers, in_flight(layout, micro_batches, p - 1), True, output)
    return first, last


def stage_layers(layers: int, layout: Layout) -> int:
    """Layers on the most loaded pipeline rank: L / PP when they divide; otherwise, as torchtitan splits them (and
    Megatron-LM with an uneven first or last stage), some ranks get one chunk's layer more."""
    chunks = layout.pipeline * layout.virtual
    return -(-layers // chunks) * layout.virtual


def ring_buffers(sequence: int, micro_batch: int, kv_width: int, precision: int, layout: Layout) -> Decimal:
    """Ring attention's blocks in transit for the layer being computed: the keys and values of s/CP tokens being
    received and the ones being sent (TransformerEngine's double buffering), per tensor-parallel rank."""
    if layout.context == 1:
        return Decimal(0)
    block = Decimal(2 * sequence * micro_batch * kv_width * precision) / (layout.context * layout.tensor)
    return 2 * block


def smallest(fits: Callable[[int], bool], low: int, high: int) -> int | None:
    """The smallest n in [low, high] for which ``fits`` holds, ``fits`` being monotone (false, then true)."""
    if not fits(high):
        return None
    while low < high:
        middle = (low + high) // 2
        low, high = (low, middle) if fits(middle) else (middle + 1, high)
    return low


def largest(fits: Callable[[int], bool], low: int, high: int) -> int | None:
    """The largest n in [low, high] for which ``fits`` holds, ``fits`` being monotone (true, then false)."""
    if not fits(low):
        return None
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if fits(middle) else (low, middle - 1)
    return low


def divisors(n: int, limit: int) -> list[int]:
    return [d for d in range(1, min(n, limit) + 1) if n % d == 0]
