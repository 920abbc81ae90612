"""Ready-to-paste configuration for the training frameworks, consistent by construction.

Key names as the frameworks spell them: Hugging Face ``TrainingArguments``
(``per_device_train_batch_size``, ``gradient_accumulation_steps``), DeepSpeed
(``train_batch_size`` = micro-batch × steps × world size), PyTorch Lightning
(``Trainer(accumulate_grad_batches=…)``), Accelerate
(``Accelerator(gradient_accumulation_steps=…)``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass


def hugging_face(micro: int, steps: int, gpus: int) -> str:
    return (
        "from transformers import TrainingArguments\n\n"
        "args = TrainingArguments(\n"
        '    output_dir="out",\n'
        f"    per_device_train_batch_size={micro},\n"
        f"    gradient_accumulation_steps={steps},\n"
        ")\n"
        f"# Avvio su {gpus} GPU, per esempio: torchrun --nproc_per_node={gpus} train.py\n"
    )


def deepspeed(micro: int, steps: int, gpus: int) -> str:
    config = {
        "train_batch_size": micro * steps * gpus,
        "train_micro_batch_size_per_gpu": micro,
        "gradient_accumulation_steps": steps,
    }
    return json.dumps(config, indent=2) + "\n"


def lightning(micro: int, steps: int, gpus: int) -> str:
    return (
        "from lightning.pytorch import Trainer\n"
        "from torch.utils.data import DataLoader\n\n"
        f"loader = DataLoader(dataset, batch_size={micro})\n"
        f"trainer = Trainer(devices={gpus}, accumulate_grad_batches={steps})\n"
    )


def accelerate(micro: int, steps: int, gpus: int) -> str:
    return (
        "from accelerate import Accelerator\n"
        "from torch.utils.data import DataLoader\n\n"
        f"accelerator = Accelerator(gradient_accumulation_steps={steps})\n"
        f"loader = DataLoader(dataset, batch_size={micro})\n"
        f"# Avvio: accelerate launch --num_processes {gpus} train.py\n"
    )


@dataclass(frozen=True)
class Parallel:
    """The model-parallel degrees beside the data-parallel replicas (1: not used)."""

    tensor: int = 1
    pipeline: int = 1
    context: int = 1
    expert: int = 1


def megatron(micro: int, steps: int, replicas: int, parallel: Parallel) -> str:
    """Megatron-LM's arguments (``ModelParallelConfig`` and ``--micro-batch-size``/``--global-batch-size``, as
    NVIDIA/Megatron-LM@d98e8a64ddf34856e74b24714e3bedb2f5a39553 names them; NeMo's ``model.*`` keys are the same):
    the global batch counts the data-parallel replicas only."""
    return (
        f"tensor_model_parallel_size: {parallel.tensor}\n"
        f"pipeline_model_parallel_size: {parallel.pipeline}\n"
        f"context_parallel_size: {parallel.context}\n"
        f"expert_model_parallel_size: {parallel.expert}\n"
        f"micro_batch_size: {micro}\n"
        f"global_batch_size: {micro * steps * replicas}\n"
        f"# GPU: {parallel.tensor * parallel.pipeline * parallel.context * replicas}"
        f" = TP × PP × CP × DP ({replicas} repliche dei dati)\n"
    )


def torchtitan(micro: int, steps: int, replicas: int, parallel: Parallel) -> str:
    """torchtitan's ``[parallelism]`` section (``ParallelismConfig`` at
    pytorch/torchtitan@b5bcd76c66d0acb1a08b176d9639425bc55e0b2a): FSDP shards over the data-parallel replicas."""
    return (
        "[parallelism]\n"
        "data_parallel_replicate_degree = 1\n"
        f"data_parallel_shard_degree = {replicas}\n"
        f"tensor_parallel_degree = {parallel.tensor}\n"
        f"pipeline_parallel_degree = {parallel.pipeline}\n"
        f"context_parallel_degree = {parallel.context}\n"
        f"expert_parallel_degree = {parallel.expert}\n"
        f"# Micro-batch {micro}, {steps} passi di accumulo: il batch globale è {micro * steps * replicas} campioni\n"
    )


PARALLEL_SNIPPETS = {"config_megatron": megatron, "config_torchtitan": torchtitan}

SNIPPETS = {
    "config_hf": hugging_face,
    "config_deepspeed": deepspeed,
    "config_lightning": lightning,
    "config_accelerate": accelerate,
}
