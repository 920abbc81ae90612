"""Ready-to-paste configuration of one training step's setup, in each library's own parameter names.

Transformers (``TrainingArguments``, with PEFT's ``LoraConfig`` and ``BitsAndBytesConfig``), a torchtune recipe's
command-line overrides, and a DeepSpeed JSON file. The names, their values and the versions that accept them are
checked against each library's source in ``tests/llm/test_step_configs.py``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from . import training_step as ts
from .activation_memory import FULL, OFFLOAD, SELECTIVE, SELECTIVE_OP

# Transformers' OptimizerNames for each optimizer of the step model.
HF_OPTIM = {"adamw": "adamw_torch", "adamw_fused": "adamw_torch_fused", "adamw_8bit": "adamw_bnb_8bit",
            "paged_adamw": "paged_adamw_32bit", "paged_adamw_8bit": "paged_adamw_8bit", "adafactor": "adafactor",
            "sgd": "sgd", "sgd_momentum": "sgd", "lion": "lion_32bit"}
# torchtune's optimizer components.
TUNE_OPTIMIZER = {"adamw": "torch.optim.AdamW", "adamw_fused": "torch.optim.AdamW",
                  "adamw_8bit": "bitsandbytes.optim.AdamW8bit", "paged_adamw": "bitsandbytes.optim.PagedAdamW",
                  "paged_adamw_8bit": "bitsandbytes.optim.PagedAdamW8bit", "sgd": "torch.optim.SGD",
                  "sgd_momentum": "torch.optim.SGD", "lion": "bitsandbytes.optim.Lion"}
# PEFT's module names by the step convention's target sets, and torchtune's for attention.
PEFT_TARGETS = {"qv": '["q_proj", "v_proj"]', "attenzione": '["q_proj", "k_proj", "v_proj", "o_proj"]',
                "tutti": '"all-linear"'}
TUNE_ATTENTION = {"qv": "['q_proj','v_proj']", "attenzione": "['q_proj','k_proj','v_proj','output_proj']",
                  "tutti": "['q_proj','k_proj','v_proj','output_proj']"}


@dataclass(frozen=True)
class StepPlan:
    """The setup, as plain values."""

    method: str
    precision: str
    optimizer: str
    optimizer_in_backward: bool
    micro_batch: int
    accumulation: int
    sequence: int
    checkpointing: str
    loss: str
    gpus: int
    zero_stage: int
    offload_optimizer: bool
    offload_parameters: bool
    rank: int = 16
    targets: str = "tutti"
    quant_type: str = ts.NF4
    double_quant: bool = True


def hugging_face(plan: StepPlan) -> str:
    """TrainingArguments (and PEFT, bitsandbytes) for the Trainer; the base loaded in bf16 unless fp32."""
    lines = ["import torch", "from transformers import AutoModelForCausalLM, TrainingArguments"]
    adapters = plan.method in ts.ADAPTERS
    if adapters:
        lines.append("from peft import LoraConfig, get_peft_model")
    quantised = plan.method in (ts.QLORA, ts.LORA_8BIT)
    if quantised:
        lines.append("from transformers import BitsAndBytesConfig")
    lines += ["", 'MODELLO = "meta-llama/Llama-3.1-8B"  # il tuo modello (id o cartella)']
    dtype = "torch.float32" if plan.precision in (ts.FP32, ts.AUTOCAST) and not adapters else "torch.bfloat16"
    load = [f"dtype={dtype}", 'attn_implementation="sdpa"']
    if plan.method == ts.QLORA:
        lines += ["quantization = BitsAndBytesConfig(", "    load_in_4bit=True,",
                  f'    bnb_4bit_quant_type="{plan.quant_type}",',
                  f"    bnb_4bit_use_double_quant={plan.double_quant},",
                  "    bnb_4bit_compute_dtype=torch.bfloat16,", ")"]
        load.append("quantization_config=quantization")
    elif plan.method == ts.LORA_8BIT:
        lines += ["quantization = BitsAndBytesConfig(load_in_8bit=True)"]
        load.append("quantization_config=quantization")
    lines.append(f"model = AutoModelForCausalLM.from_pretrained(MODELLO, {', '.join(load)})")
    if adapters:
        dora = "    use_dora=True,\n" if plan.method == ts.DORA else ""
        lines += ["lora = LoraConfig(", f"    r={plan.rank},", f"    lora_alpha={2 * plan.rank},",
                  f"    target_modules={PEFT_TARGETS[plan.targets]},", *([dora.rstrip()] if dora else []),
                  '    task_type="CAUSAL_LM",', ")", "model = get_peft_model(model, lora)"]
    args = ['    output_dir="out",', f"    per_device_train_batch_size={plan.micro_batch},",
            f"    gradient_accumulation_steps={plan.accumulation},"]
    if plan.precision != ts.FP32:
        args.append("    bf16=True,")
    args.append(f'    optim="{HF_OPTIM[plan.optimizer]}",')
    if plan.optimizer == "sgd_momentum":
        args.append('    optim_args="momentum=0.9",  # letto da Transformers ≥ 5')
    if plan.checkpointing in (FULL, OFFLOAD, SELECTIVE_OP):
        args += ["    gradient_checkpointing=True,", '    gradient_checkpointing_kwargs={"use_reentrant": False},']
    if plan.loss == ts.FUSED_LOSS:
        args.append("    use_liger_kernel=True,")
    if plan.gpus > 1 and plan.zero_stage:
        args.append('    deepspeed="ds_config.json",')
    lines += ["args = TrainingArguments(", *args, ")"]
    notes = []
    if plan.precision == ts.PURE_BF16 and not adapters:
        notes.append("# bf16 puro: il modello caricato in bf16 tiene in bf16 anche gli stati di AdamW")
    if plan.loss == ts.CHUNKED_LOSS:
        notes.append("# Loss a blocchi: in Transformers non c'è; vedi torchtune o use_liger_kernel")
    if plan.optimizer_in_backward:
        notes.append("# Ottimizzatore nel backward: il Trainer non lo offre; vedi torchtune (optimizer_in_bwd)")
    if plan.checkpointing == OFFLOAD:
        notes.append("# Offload delle attivazioni: il Trainer non lo offre; vedi torchtune")
    if plan.checkpointing == SELECTIVE:
        notes.append("# Selettivo di Megatron: con FlashAttention non serve")
    return "\n".join(lines + notes) + "\n"


def torchtune(plan: StepPlan) -> str:
    """A recipe of torchtune 0.7 with the setup's overrides (Llama 3.1 8B's configs as the starting point)."""
    distributed = plan.gpus > 1
    kind = "lora" if plan.method in ts.ADAPTERS else "full"
    recipe = f"{kind}_finetune_{'distributed' if distributed else 'single_device'}"
    config = {("full", False): "llama3_1/8B_full_single_device", ("full", True): "llama3_1/8B_full",
              ("lora", False): "llama3_1/8B_lora_single_device", ("lora", True): "llama3_1/8B_lora"}[(kind, distributed)]
    if plan.method == ts.QLORA and not distributed:
        config = "llama3_1/8B_qlora_single_device"
    launch = f"tune run --nproc_per_node {plan.gpus} " if distributed else "tune run "
    overrides = [f"batch_size={plan.micro_batch}", f"gradient_accumulation_steps={plan.accumulation}",
                 f"tokenizer.max_seq_len={plan.sequence}",
                 f"dtype={'fp32' if plan.precision == ts.FP32 else 'bf16'}",
                 f"enable_activation_checkpointing={plan.checkpointing in (FULL, OFFLOAD, SELECTIVE_OP)}",
                 f"enable_activation_offloading={plan.checkpointing == OFFLOAD}"]
    if plan.optimizer in TUNE_OPTIMIZER:
        overrides.append(f"optimizer._component_={TUNE_OPTIMIZER[plan.optimizer]}")
    if plan.optimizer == "adamw_fused":
        overrides.append("optimizer.fused=True")
    if plan.optimizer == "sgd_momentum":
        overrides.append("optimizer.momentum=0.9")
    if kind == "full" and not distributed:
        overrides.append(f"optimizer_in_bwd={plan.optimizer_in_backward}")
    if plan.loss == ts.CHUNKED_LOSS:
        overrides.append("loss._component_=torchtune.modules.loss.CEWithChunkedOutputLoss")
    elif plan.loss == ts.FUSED_LOSS:
        overrides.append("loss._component_=torchtune.modules.loss.LinearCrossEntropyLoss")
    if kind == "lora":
        overrides += [f"model.lora_rank={plan.rank}", f"model.lora_alpha={2 * plan.rank}",
                      f'"model.lora_attn_modules={TUNE_ATTENTION[plan.targets]}"',
                      f"model.apply_lora_to_mlp={plan.targets == 'tutti'}"]
        if plan.method == ts.QLORA and distributed:
            overrides.append("model._component_=torchtune.models.llama3_1.qlora_llama3_1_8b")
    if distributed and plan.offload_parameters:
        overrides.append("fsdp_cpu_offload=True")
    lines = [f"{launch}{recipe} --config {config} \\"] + [f"  {item} \\" for item in overrides]
    lines[-1] = lines[-1].removesuffix(" \\")
    notes = []
    if plan.method in (ts.DORA, ts.LORA_8BIT) or plan.precision in (ts.MIXED, ts.AUTOCAST):
        notes.append("# torchtune addestra in bf16 puro (o fp32): la precisione mista e DoRA/8 bit non hanno"
                     " un'opzione qui")
    if plan.optimizer == "adafactor":
        notes.append("# Adafactor: indica la sua classe in optimizer._component_")
    return "\n".join(lines + notes) + "\n"


def deepspeed(plan: StepPlan) -> str:
    """DeepSpeed's JSON: precision, ZeRO stage and offload, micro-batch and accumulation."""
    zero: dict[str, object] = {"stage": plan.zero_stage}
    if plan.offload_optimizer:
        zero["offload_optimizer"] = {"device": "cpu", "pin_memory": True}
    if plan.offload_parameters and plan.zero_stage == 3:
        zero["offload_param"] = {"device": "cpu", "pin_memory": True}
    config: dict[str, object] = {
        "train_micro_batch_size_per_gpu": plan.micro_batch,
        "gradient_accumulation_steps": plan.accumulation,
        "train_batch_size": plan.micro_batch * plan.accumulation * plan.gpus,
        "bf16": {"enabled": plan.precision != ts.FP32},
        "zero_optimization": zero,
        "gradient_clipping": 1.0,
    }
    return json.dumps(config, indent=2) + "\n"


SNIPPETS = {"config_step_hf": hugging_face, "config_step_torchtune": torchtune,
            "config_step_deepspeed": deepspeed}
