"""DeepSpeed's own estimators of model-state memory, term by term, as a plain function of the inputs.

``estimate_zero2_model_states_mem_needs`` (deepspeed/runtime/zero/stage_1_and_2.py) and
``estimate_zero3_model_states_mem_needs`` (deepspeed/runtime/zero/stage3.py) at DeepSpeed
edaa7221267243c7be7fb49c5d5f5c4fb97b4641. Before v0.14.3 (#5099) ZeRO-2 without offload counted
4·P + 16·P/N on the GPU, which is what the documentation's tables still show; since then 2·P + 18·P/N.
Bytes; DeepSpeed prints them divided by 2³⁰ and labelled "GB".
"""

from __future__ import annotations

from dataclasses import dataclass

CURRENT, BEFORE_0_14_3 = "attuale", "precedente"


@dataclass(frozen=True)
class Estimate:
    gpu_bytes: int
    cpu_bytes: int


def zero2(total: int, gpus_per_node: int, nodes: int, offload_optimizer: bool, buffer: float,
          version: str = CURRENT) -> Estimate:
    gpus = gpus_per_node * nodes
    if offload_optimizer:
        return Estimate(2 * total, int(total * max(4 * gpus, 16) * buffer))
    gpu = 2 * total + int(18 * total / gpus) if version == CURRENT else 4 * total + int(16 * total / gpus)
    return Estimate(gpu, int(total * 4 * gpus_per_node * buffer))


def zero3(total: int, largest_layer: int, gpus_per_node: int, nodes: int, offload_optimizer: bool,
          offload_param: bool, zero_init: bool, buffer: float) -> Estimate:
    gpus = gpus_per_node * nodes
    per_node = 1 / nodes
    largest = 4 * largest_layer
    if offload_optimizer and offload_param:
        cpu = total * 18 * per_node if zero_init else total * max(4 * gpus_per_node, 18 * per_node)
        return Estimate(largest, int(cpu * buffer))
    if offload_optimizer:
        cpu = total * 16 * per_node if zero_init else total * max(4 * gpus_per_node, 16 * per_node)
        return Estimate(largest + int(2 * total / gpus), int(cpu * buffer))
    cpu = largest_layer * 4 * gpus_per_node if zero_init else total * 4 * gpus_per_node
    return Estimate(largest + int(18 * total / gpus), int(cpu * buffer))
