"""The accumulation page's configs with model parallelism (Megatron-LM/NeMo and torchtitan), and the VRAM page's
link that brings the layout there: the batch is planned over the data-parallel replicas only.

Key names as the frameworks define them: ``ModelParallelConfig`` in
NVIDIA/Megatron-LM@d98e8a64ddf34856e74b24714e3bedb2f5a39553:megatron/core/model_parallel_config.py (lines 55, 83,
100, 127: tensor_model_parallel_size, pipeline_model_parallel_size, context_parallel_size,
expert_model_parallel_size) and ``args.micro_batch_size``/``args.global_batch_size`` in megatron/training/arguments.py;
``ParallelismConfig`` in pytorch/torchtitan@b5bcd76c66d0acb1a08b176d9639425bc55e0b2a:torchtitan/config/configs.py
(lines 122, 133, 166, 180, 239, 282)."""

from __future__ import annotations

from urllib.parse import parse_qs

from calculator.form.evaluate import evaluate
from calculator.pages.gradient_accumulation import CALCULATOR as ACCUMULATION
from calculator.pages.vram import CALCULATOR as VRAM

MEGATRON = ("tensor_model_parallel_size", "pipeline_model_parallel_size", "context_parallel_size",
            "expert_model_parallel_size", "micro_batch_size", "global_batch_size")
TORCHTITAN = ("data_parallel_replicate_degree", "data_parallel_shard_degree", "tensor_parallel_degree",
              "pipeline_parallel_degree", "context_parallel_degree", "expert_parallel_degree")


def _config(text: object) -> dict[str, str]:
    pairs = [line.replace(" = ", ": ").split(": ", 1) for line in str(text).splitlines()
             if line and not line.startswith(("#", "["))]
    return {key: value for key, value in pairs}


def test_megatron_and_torchtitan_keys_and_the_global_batch() -> None:
    texts = {f.id: f.default for f in ACCUMULATION.fields}
    evaluation = evaluate(ACCUMULATION, {**texts, "micro_batch": "2", "accumulation_steps": "8",
                                         "data_parallel_gpus": "4", "tensor_parallel": "8", "pipeline_parallel": "2",
                                         "context_parallel": "2", "expert_parallel": "1"})
    assert evaluation.status == "ok", evaluation.errors
    megatron = _config(evaluation.outputs["config_megatron"])
    titan = _config(evaluation.outputs["config_torchtitan"])
    assert tuple(megatron) == MEGATRON and tuple(titan) == TORCHTITAN
    assert megatron["global_batch_size"] == "64" == str(evaluation.outputs["effective_batch"])  # 2 · 8 · 4 replicas
    assert (megatron["tensor_model_parallel_size"], megatron["pipeline_model_parallel_size"]) == ("8", "2")
    assert titan["data_parallel_shard_degree"] == "4" and titan["context_parallel_degree"] == "2"


def test_the_vram_link_carries_the_replicas_and_the_layout() -> None:
    texts = {f.id: f.default for f in VRAM.fields}
    evaluation = evaluate(VRAM, {**texts, **VRAM.examples["passo_70b_scala"], "inverse": ""})
    query = {k: v[0] for k, v in parse_qs(evaluation.links["accumulo"]).items()}
    assert query["data_parallel_gpus"] == "2"  # 32 GPUs / (TP 4 · PP 4)
    assert (query["tensor_parallel"], query["pipeline_parallel"], query["micro_batch"]) == ("4", "4", "1")
    accumulation = evaluate(ACCUMULATION, {**{f.id: f.default for f in ACCUMULATION.fields}, **query})
    assert accumulation.status == "ok", accumulation.errors
    assert "tensor_model_parallel_size: 4" in str(accumulation.outputs["config_megatron"])
