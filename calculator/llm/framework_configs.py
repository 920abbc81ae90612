"""Ready-to-paste configuration for the training frameworks, consistent by construction.

Key names as the frameworks spell them: Hugging Face ``TrainingArguments``
(``per_device_train_batch_size``, ``gradient_accumulation_steps``), DeepSpeed
(``train_batch_size`` = micro-batch × steps × world size), PyTorch Lightning
(``Trainer(accumulate_grad_batches=…)``), Accelerate
(``Accelerator(gradient_accumulation_steps=…)``).
"""

from __future__ import annotations

import json


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


SNIPPETS = {
    "config_hf": hugging_face,
    "config_deepspeed": deepspeed,
    "config_lightning": lightning,
    "config_accelerate": accelerate,
}
