"""The step convention's ready-to-paste configs use each library's own names, as its source defines them.

Names read at the source (2026-12-03):
* Transformers: huggingface/transformers@00349ae87eddc872ffa21a8a54f264375a0056a8:src/transformers/training_args.py
  (TrainingArguments' fields, OptimizerNames), and the 5.4.0 wheel's utils/quantization_config.py
  (BitsAndBytesConfig). ``optim_args="momentum=0.9"`` reaches SGD from 5.0 on (4.57 ignores it: said in the snippet).
* PEFT: huggingface/peft@5d602fdbff04c33c1c4de55cda9d4ae1d7cb7e40:src/peft/tuners/lora/config.py (LoraConfig;
  "all-linear" only as a plain string).
* torchtune: pytorch/torchtune@bd2a0fc7c31430972728494fa01aaeeb0ebf1ba1:recipes/configs/llama3_1/*.yaml and
  recipes/*.py (keys, recipes, configs; lora_attn_modules take output_proj, not o_proj; optimizer_in_bwd only in
  the full single-device recipe; --nproc_per_node only for the distributed recipes).
* DeepSpeed: deepspeedai/DeepSpeed@edaa7221267243c7be7fb49c5d5f5c4fb97b4641:deepspeed/runtime/constants.py,
  deepspeed/runtime/zero/config.py, deepspeed/runtime/zero/offload_config.py (offload_param only with stage 3).
"""

from __future__ import annotations

import itertools
import json
import re

import pytest

from calculator.llm import step_configs as sc
from calculator.llm import training_step as ts

TRAINING_ARGUMENTS = {"output_dir", "per_device_train_batch_size", "gradient_accumulation_steps", "bf16", "optim",
                      "optim_args", "gradient_checkpointing", "gradient_checkpointing_kwargs", "use_liger_kernel",
                      "deepspeed"}
OPTIMIZER_NAMES = {"adamw_torch", "adamw_torch_fused", "adamw_bnb_8bit", "paged_adamw_32bit", "paged_adamw_8bit",
                   "adafactor", "sgd", "lion_32bit"}
LORA_CONFIG = {"r", "lora_alpha", "target_modules", "use_dora", "task_type"}
BNB_CONFIG = {"load_in_4bit", "load_in_8bit", "bnb_4bit_quant_type", "bnb_4bit_use_double_quant",
              "bnb_4bit_compute_dtype"}
TUNE_KEYS = {"batch_size", "gradient_accumulation_steps", "tokenizer.max_seq_len", "dtype",
             "enable_activation_checkpointing", "enable_activation_offloading", "optimizer._component_",
             "optimizer.fused", "optimizer.momentum", "optimizer_in_bwd", "loss._component_", "model.lora_rank",
             "model.lora_alpha", "model.lora_attn_modules", "model.apply_lora_to_mlp", "model._component_",
             "fsdp_cpu_offload"}
TUNE_RECIPES = {"full_finetune_single_device", "full_finetune_distributed", "lora_finetune_single_device",
                "lora_finetune_distributed"}
TUNE_CONFIGS = {"llama3_1/8B_full_single_device", "llama3_1/8B_full", "llama3_1/8B_lora_single_device",
                "llama3_1/8B_lora", "llama3_1/8B_qlora_single_device"}
TUNE_ATTENTION = {"q_proj", "k_proj", "v_proj", "output_proj"}
DEEPSPEED_KEYS = {"train_micro_batch_size_per_gpu", "gradient_accumulation_steps", "train_batch_size", "bf16",
                  "zero_optimization", "gradient_clipping"}
ZERO_KEYS = {"stage", "offload_optimizer", "offload_param"}

PLANS = [
    sc.StepPlan(method=method, precision=precision, optimizer=optimizer, optimizer_in_backward=in_backward,
                micro_batch=2, accumulation=4 if not in_backward else 1, sequence=2048, checkpointing=checkpoint,
                loss=loss, gpus=gpus, zero_stage=stage, offload_optimizer=offload, offload_parameters=offload and stage == 3,
                targets=targets)
    for method, precision, optimizer, in_backward, checkpoint, loss, gpus, stage, offload, targets in itertools.product(
        (ts.FULL, ts.LORA, ts.DORA, ts.QLORA, ts.LORA_8BIT), (ts.AUTOCAST, ts.PURE_BF16),
        tuple(ts.OPTIMIZERS), (False, True), ("nessuno", "completo", "offload"),
        (ts.STANDARD_LOSS, ts.CHUNKED_LOSS, ts.FUSED_LOSS), (1, 8), (0, 3), (False, True), ("qv", "tutti"))
    if not (in_backward and method != ts.FULL) and not (offload and gpus == 1)
][::37]  # a spread of the combinations, a few hundred


def _keywords(code: str, call: str) -> set[str]:
    body = code.split(f"{call}(", 1)[1].split("\n)", 1)[0]
    return set(re.findall(r"^\s+(\w+)=", body, re.M))


def test_the_spread_is_wide() -> None:
    assert len(PLANS) > 150


@pytest.mark.parametrize("plan", PLANS, ids=lambda p: f"{p.method}-{p.optimizer}-{p.gpus}-{p.zero_stage}")
def test_transformers_snippet_names(plan: sc.StepPlan) -> None:
    code = sc.hugging_face(plan)
    compile(code, "snippet", "exec")  # valid Python
    assert _keywords(code, "TrainingArguments") <= TRAINING_ARGUMENTS
    assert set(re.findall(r'optim="([^"]+)"', code)) <= OPTIMIZER_NAMES
    if plan.method in ts.ADAPTERS:
        assert _keywords(code, "LoraConfig") <= LORA_CONFIG
        assert ("use_dora=True" in code) == (plan.method == ts.DORA)
    if plan.method in (ts.QLORA, ts.LORA_8BIT):
        assert set(re.findall(r"(\w+)=", code.split("BitsAndBytesConfig(", 1)[1].split(")", 1)[0])) <= BNB_CONFIG
        if plan.method == ts.QLORA:  # bitsandbytes' defaults are fp4 and fp32 compute: both stated
            assert 'bnb_4bit_quant_type="nf4"' in code and "bnb_4bit_compute_dtype=torch.bfloat16" in code
    assert ("gradient_checkpointing=True" in code) == (plan.checkpointing in ("completo", "offload"))


@pytest.mark.parametrize("plan", PLANS, ids=lambda p: f"{p.method}-{p.optimizer}-{p.gpus}-{p.zero_stage}")
def test_torchtune_snippet_names(plan: sc.StepPlan) -> None:
    command = sc.torchtune(plan).split("\n#", 1)[0]
    words = command.replace("\\\n", " ").split()
    assert words[:2] == ["tune", "run"]
    distributed = "--nproc_per_node" in words
    assert distributed == (plan.gpus > 1)
    recipe = words[4] if distributed else words[2]
    assert recipe in TUNE_RECIPES and distributed == recipe.endswith("distributed")
    assert words[words.index("--config") + 1] in TUNE_CONFIGS
    overrides = [w.strip('"') for w in words[words.index("--config") + 2:]]
    keys = {item.split("=", 1)[0] for item in overrides}
    assert keys <= TUNE_KEYS
    if "optimizer_in_bwd" in keys:
        assert recipe == "full_finetune_single_device"
    for item in overrides:
        if item.startswith("model.lora_attn_modules="):
            assert set(re.findall(r"'(\w+)'", item)) <= TUNE_ATTENTION
        if item.startswith("dtype="):
            assert item in ("dtype=bf16", "dtype=fp32")


@pytest.mark.parametrize("plan", PLANS, ids=lambda p: f"{p.method}-{p.optimizer}-{p.gpus}-{p.zero_stage}")
def test_deepspeed_snippet_names(plan: sc.StepPlan) -> None:
    config = json.loads(sc.deepspeed(plan))
    assert set(config) <= DEEPSPEED_KEYS
    assert set(config["zero_optimization"]) <= ZERO_KEYS
    assert config["train_batch_size"] == plan.micro_batch * plan.accumulation * plan.gpus
    if "offload_param" in config["zero_optimization"]:
        assert config["zero_optimization"]["stage"] == 3
