"""Trace whole training steps of real-size Transformers models with fake tensors and record their memory.

Each setup builds a model from its published config.json values (written below, one dict per model, no
download) under PyTorch's FakeTensorMode on the CPU device, so no memory is taken; wraps it with PEFT where the
setup asks; then runs two training steps (forward with the loss, backward, optimizer step, gradients set to
None) and records the second one (the first creates the optimizer states). A TorchDispatchMode of this file
follows every storage (each once: views share theirs) from its creation to its release and labels it:
parameters, buffers, gradients (``.grad`` once accumulated), optimizer states (after each optimizer step),
activations (made during the forward pass, the loss, or a checkpointed layer's recomputation) and temporaries
(everything else: what backward and the optimizer make and free). It keeps the peak of live bytes of the step
and of each phase (forward with the loss, backward, optimizer step) with the split by category at that moment,
and the live bytes at the end of each phase. The figures are what PyTorch would hold allocated on a GPU for the
same step (``max_memory_allocated``, without the 512-byte rounding of the caching allocator), except where the
CPU kernels differ from the CUDA ones: each setup's notes say where.

Not part of scripts/test: it needs PyTorch, Transformers and PEFT (see tools/measure_env.py). About 7 minutes
for every setup on two cores; ``--only NAME`` runs one (the others already in the JSON file are kept).

Usage: python3 tools/measure_step.py [--only NAME] [--json tests/data/step_record.json]
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import platform
import sys
import time
import traceback
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

sys.path.insert(0, str(ROOT))
from tools.measure_env import TRANSFORMERS_PINS as PINNED  # noqa: E402
from tools.measure_env import bootstrap  # noqa: E402

try:
    import peft
    import torch
    import torch.nn.attention
    import torch.utils.checkpoint
    import transformers
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.nn import functional as F  # noqa: N812 - PyTorch's own convention
    from torch.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_leaves
    from torch.utils.weak import WeakIdKeyDictionary
except ImportError:
    if __name__ == "__main__":
        bootstrap(__file__, PINNED)
    raise

transformers.logging.set_verbosity_error()
REAL_RECOMPUTATION = torch.utils.checkpoint._recomputation_hook

CATEGORIES = ("parameters", "buffers", "gradients", "optimizer", "activations", "temporaries")
PHASES = ("forward", "backward", "optimizer")
GIB = 2**30

# Published config.json values (the fields that shape the model; the rest are Transformers' defaults).
CONFIGS: dict[str, dict[str, Any]] = {
    # meta-llama/Llama-3.2-1B
    "meta-llama/Llama-3.2-1B": {
        "model_type": "llama", "vocab_size": 128256, "hidden_size": 2048, "intermediate_size": 8192,
        "num_hidden_layers": 16, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 64,
        "hidden_act": "silu", "max_position_embeddings": 131072, "rms_norm_eps": 1e-05, "rope_theta": 500000.0,
        "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                         "original_max_position_embeddings": 8192, "rope_type": "llama3"},
        "attention_bias": False, "attention_dropout": 0.0, "mlp_bias": False, "tie_word_embeddings": True,
        "initializer_range": 0.02, "pretraining_tp": 1, "bos_token_id": 128000, "eos_token_id": 128001,
    },
    # meta-llama/Llama-3.1-8B
    "meta-llama/Llama-3.1-8B": {
        "model_type": "llama", "vocab_size": 128256, "hidden_size": 4096, "intermediate_size": 14336,
        "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
        "hidden_act": "silu", "max_position_embeddings": 131072, "rms_norm_eps": 1e-05, "rope_theta": 500000.0,
        "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                         "original_max_position_embeddings": 8192, "rope_type": "llama3"},
        "attention_bias": False, "attention_dropout": 0.0, "mlp_bias": False, "tie_word_embeddings": False,
        "initializer_range": 0.02, "pretraining_tp": 1, "bos_token_id": 128000, "eos_token_id": 128001,
    },
    # Qwen/Qwen2.5-0.5B
    "Qwen/Qwen2.5-0.5B": {
        "model_type": "qwen2", "vocab_size": 151936, "hidden_size": 896, "intermediate_size": 4864,
        "num_hidden_layers": 24, "num_attention_heads": 14, "num_key_value_heads": 2, "hidden_act": "silu",
        "max_position_embeddings": 32768, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
        "sliding_window": 32768, "use_sliding_window": False, "max_window_layers": 24, "attention_dropout": 0.0,
        "tie_word_embeddings": True, "initializer_range": 0.02, "bos_token_id": 151643, "eos_token_id": 151643,
    },
    # allenai/OLMoE-1B-7B-0924
    "allenai/OLMoE-1B-7B-0924": {
        "model_type": "olmoe", "vocab_size": 50304, "hidden_size": 2048, "intermediate_size": 1024,
        "num_hidden_layers": 16, "num_attention_heads": 16, "num_key_value_heads": 16, "num_experts": 64,
        "num_experts_per_tok": 8, "norm_topk_prob": False, "hidden_act": "silu", "max_position_embeddings": 4096,
        "rms_norm_eps": 1e-05, "rope_theta": 10000.0, "rope_scaling": None, "attention_bias": False,
        "attention_dropout": 0.0, "clip_qkv": None, "output_router_logits": False, "router_aux_loss_coef": 0.01,
        "tie_word_embeddings": False, "initializer_range": 0.02, "pad_token_id": 1, "eos_token_id": 50279,
    },
    # google/flan-t5-base
    "google/flan-t5-base": {
        "model_type": "t5", "vocab_size": 32128, "d_model": 768, "d_ff": 2048, "d_kv": 64, "num_heads": 12,
        "num_layers": 12, "num_decoder_layers": 12, "feed_forward_proj": "gated-gelu", "dropout_rate": 0.1,
        "layer_norm_epsilon": 1e-06, "relative_attention_num_buckets": 32, "relative_attention_max_distance": 128,
        "initializer_factor": 1.0, "tie_word_embeddings": False, "is_encoder_decoder": True,
        "decoder_start_token_id": 0, "pad_token_id": 0, "eos_token_id": 1,
    },
}
DROPOUTS = ("attention_dropout", "dropout_rate", "hidden_dropout", "resid_pdrop", "embd_pdrop", "attn_pdrop")


@dataclass(frozen=True)
class Setup:
    """One training step to trace; the defaults are the most common choices."""

    name: str
    description: str
    model: str
    method: str = "full"  # full | lora | dora | freeze
    lora: dict[str, Any] | None = None  # {"rank", "alpha", "targets", "dropout"}
    trainable_layers: int = 0  # method "freeze": the last N decoder layers and the final norm train
    weights: str = "bf16"  # the dtype the parameters are stored in: bf16 | fp32
    autocast: str | None = None  # None | "bf16" (torch.autocast around the forward pass and the loss)
    optimizer: str = "adamw"  # adamw | adam8bit | adafactor | sgd | sgd_momentum
    flags: dict[str, Any] = field(default_factory=lambda: {"foreach": True})
    in_backward: bool = False  # one optimizer per parameter, stepped from its post-accumulate-grad hook
    batch: int = 2
    sequence: int = 2048
    decoder_sequence: int | None = None  # encoder–decoder: the labels' length
    attention: str = "sdpa"
    sdpa_backend: str | None = None  # None: PyTorch's choice; "math": the composite kernel, forced
    checkpointing: str = "none"  # none | hf
    loss: str = "standard"  # standard | chunked | chunked-recompute
    attention_mask: bool = True  # the batch has an attention mask of ones, as a data collator makes it
    cuda_dropout: bool = True  # dropout as CUDA's kernel does it (a 1-byte mask), not as the CPU's
    notes: str = ""


LLAMA1B, LLAMA8B, QWEN, OLMOE, T5 = CONFIGS
QV8 = {"rank": 8, "alpha": 16, "targets": ["q_proj", "v_proj"], "dropout": 0.0}
ALL16 = {"rank": 16, "alpha": 32, "targets": ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj",
                                              "down_proj"], "dropout": 0.0}
FUSED = {"fused": True}
SETUPS = (
    Setup("llama1b-full-amp-adamw-fused", "Full fine-tuning as Transformers' Trainer does it with bf16=True: fp32"
          " weights, bf16 autocast, AdamW fused (the Trainer's default optimizer)", LLAMA1B, weights="fp32",
          autocast="bf16", flags=FUSED),
    Setup("llama1b-full-amp-adamw-foreach-ckpt", "As the Trainer with bf16=True, AdamW foreach,"
          " gradient checkpointing", LLAMA1B, weights="fp32", autocast="bf16", checkpointing="hf"),
    Setup("llama1b-full-fp32-adamw", "Full fine-tuning in fp32, AdamW foreach; SDPA's math kernel, the one CUDA"
          " falls back to for fp32 with grouped K/V", LLAMA1B, weights="fp32", sdpa_backend="math"),
    Setup("llama1b-full-fp32-adamw-cpu-flash", "As llama1b-full-fp32-adamw with the CPU's flash kernel, which takes"
          " fp32 and grouped K/V (CUDA's flash kernel does not take fp32)", LLAMA1B, weights="fp32"),
    Setup("llama1b-full-bf16-adamw", "Pure bf16 (weights, gradients and AdamW states in bf16; torchtune's and"
          " LitGPT's default), AdamW fused", LLAMA1B, flags=FUSED),
    Setup("llama1b-full-bf16-adamw-foreach-eager", "Pure bf16, AdamW foreach, eager attention", LLAMA1B,
          attention="eager"),
    Setup("llama1b-full-bf16-adamw-ckpt", "Pure bf16, AdamW fused, gradient checkpointing", LLAMA1B, flags=FUSED,
          checkpointing="hf"),
    Setup("llama1b-lora-r8-qv", "LoRA r=8 on q_proj and v_proj, base in bf16", LLAMA1B, method="lora", lora=QV8),
    Setup("llama1b-lora-r8-qv-ckpt", "LoRA r=8 on q_proj and v_proj, base in bf16, gradient checkpointing",
          LLAMA1B, method="lora", lora=QV8, checkpointing="hf"),
    Setup("llama1b-lora-r16-all", "LoRA r=16 on every linear layer of the blocks, base in bf16", LLAMA1B,
          method="lora", lora=ALL16),
    Setup("llama1b-lora-r16-all-ckpt", "LoRA r=16 on every linear layer, base in bf16, gradient checkpointing",
          LLAMA1B, method="lora", lora=ALL16, checkpointing="hf"),
    Setup("llama1b-lora-r16-all-dropout", "LoRA r=16 on every linear layer with lora_dropout=0.05, base in bf16",
          LLAMA1B, method="lora", lora={**ALL16, "dropout": 0.05}),
    Setup("llama1b-lora-r16-all-amp", "LoRA r=16 on every linear layer, base in bf16, adapters in fp32 and bf16"
          " autocast (the Trainer with bf16=True over a PEFT model)", LLAMA1B, method="lora", lora=ALL16,
          autocast="bf16"),
    Setup("llama1b-dora-r16-all-ckpt", "DoRA r=16 on every linear layer, base in bf16, gradient checkpointing",
          LLAMA1B, method="dora", lora=ALL16, checkpointing="hf"),
    Setup("llama1b-freeze-last4", "Only the last 4 decoder layers and the final norm train (embeddings and the"
          " tied head frozen), bf16, AdamW fused", LLAMA1B, method="freeze", trainable_layers=4, flags=FUSED),
    Setup("llama1b-full-bf16-adam8bit-model", "Pure bf16 with 8-bit AdamW states modelled as bitsandbytes keeps"
          " them (bitsandbytes needs CUDA)", LLAMA1B, optimizer="adam8bit", flags={}),
    Setup("llama1b-full-bf16-adafactor", "Pure bf16, transformers' Adafactor with its defaults (lr=None,"
          " relative step, scale_parameter, factored second moment, no first moment)", LLAMA1B,
          optimizer="adafactor", flags={}),
    Setup("llama1b-full-bf16-sgd", "Pure bf16, SGD without momentum (no optimizer state)", LLAMA1B,
          optimizer="sgd"),
    Setup("llama1b-full-bf16-sgd-momentum", "Pure bf16, SGD with momentum 0.9", LLAMA1B, optimizer="sgd_momentum"),
    Setup("llama1b-full-bf16-adamw-in-backward", "Pure bf16, one AdamW (fused) per parameter stepped in backward"
          " as soon as its gradient is accumulated, the gradient then set to None (torchtune's"
          " optimizer_in_bwd)", LLAMA1B, flags=FUSED, in_backward=True),
    Setup("llama1b-full-bf16-chunked-loss", "Pure bf16, AdamW fused, the loss computed over 8 chunks of the"
          " sequence (each chunk's logits made, upcast and reduced in turn)", LLAMA1B, flags=FUSED, loss="chunked"),
    Setup("llama1b-full-bf16-32k-ckpt", "Long context: one sequence of 32,768 tokens, pure bf16, AdamW fused,"
          " gradient checkpointing", LLAMA1B, flags=FUSED, batch=1, sequence=32768, checkpointing="hf"),
    Setup("llama1b-full-bf16-32k-ckpt-no-mask", "Long context as above, the batch without an attention mask:"
          " Transformers 4.57 then looks for packed sequences in the position ids (the cache is off with"
          " checkpointing) and gives SDPA an explicit b×1×s×s boolean mask", LLAMA1B, flags=FUSED, batch=1,
          sequence=32768, checkpointing="hf", attention_mask=False),
    Setup("llama1b-full-bf16-32k-ckpt-chunked", "Long context as above with the chunked loss", LLAMA1B, flags=FUSED,
          batch=1, sequence=32768, checkpointing="hf", loss="chunked"),
    Setup("llama1b-full-bf16-32k-ckpt-chunked-recompute", "Long context as above, the chunked loss with each"
          " piece (head, upcast, cross-entropy) checkpointed: recomputed in backward", LLAMA1B, flags=FUSED, batch=1,
          sequence=32768, checkpointing="hf", loss="chunked-recompute"),
    Setup("qwen0.5b-full-amp-adamw-fused", "Qwen2.5-0.5B as the Trainer with bf16=True (fp32 weights, autocast,"
          " AdamW fused)", QWEN, weights="fp32", autocast="bf16", flags=FUSED, batch=4),
    Setup("olmoe-full-bf16-adamw-ckpt", "Mixture of experts (64 experts, 8 per token), pure bf16, AdamW fused,"
          " gradient checkpointing", OLMOE, flags=FUSED, checkpointing="hf"),
    Setup("olmoe-full-bf16-adamw", "Mixture of experts, pure bf16, AdamW fused, one sequence of 2048 tokens, no"
          " checkpointing: what Transformers' eager loop over the experts keeps", OLMOE, flags=FUSED, batch=1),
    Setup("flan-t5-base-full-fp32-adamw", "Encoder–decoder in fp32 (dropout 0.1 as configured), AdamW foreach,"
          " encoder 512 tokens, decoder labels 128 tokens", T5, weights="fp32", batch=8, sequence=512,
          decoder_sequence=128, attention="eager"),
    Setup("flan-t5-base-full-fp32-adamw-cpu-dropout", "As flan-t5-base-full-fp32-adamw, with the CPU's dropout"
          " (the mask kept in the activations' dtype) to show that difference", T5, weights="fp32", batch=8,
          sequence=512, decoder_sequence=128, attention="eager", cuda_dropout=False),
    Setup("llama8b-full-bf16-adamw-ckpt", "Llama 3.1 8B, pure bf16, AdamW fused, gradient checkpointing", LLAMA8B,
          flags=FUSED, batch=1, checkpointing="hf"),
    Setup("llama8b-lora-r16-all-ckpt", "Llama 3.1 8B, LoRA r=16 on every linear layer, base in bf16, gradient"
          " checkpointing", LLAMA8B, method="lora", lora=ALL16, batch=4, checkpointing="hf"),
)


class Tracker(TorchDispatchMode):
    """Live bytes of every storage by category, and their peak within each open phase."""

    def __init__(self, nonzero_fraction: float = 0.0) -> None:
        super().__init__()
        self.storages: Any = WeakIdKeyDictionary()  # storage → ([bytes, category, weight copy], weakref)
        self.live = dict.fromkeys(CATEGORIES, 0)
        self.copies = 0  # bytes of weight copies (autocast's bf16 casts of fp32 parameters), within activations
        self.open: list[str] = []
        self.peaks: dict[str, dict[str, Any]] = {}
        self.ends: dict[str, int] = {}
        self.recomputing = 0
        self.optimizing = 0
        self.nonzero_fraction = nonzero_fraction
        self.hooks: list[Any] = []
        self.ops: set[str] = set()

    @property
    def total(self) -> int:
        return sum(self.live.values())

    def label(self, tensor: Any, category: str, copy: bool = False, move: bool = False) -> None:
        """Count the tensor's storage under ``category`` if new; ``move`` relabels one already counted."""
        if not isinstance(tensor, torch.Tensor) or tensor.layout != torch.strided:
            return
        storage = tensor.untyped_storage()
        size = storage.nbytes()
        known = self.storages.get(storage)
        if known is None:
            entry = [size, category, copy]
            self.storages[storage] = (entry, weakref.ref(storage, partial(self._freed, entry)))
            self._count(entry, +1)
        elif known[0][0] != size or (move and known[0][1] != category):
            entry = known[0]
            self._count(entry, -1)
            entry[0], entry[1] = size, category if move else entry[1]
            self._count(entry, +1)

    def category(self, tensor: Any) -> str | None:
        known = self.storages.get(tensor.untyped_storage()) if isinstance(tensor, torch.Tensor) else None
        return known[0][1] if known else None

    def _count(self, entry: list[Any], sign: int) -> None:
        self.live[entry[1]] += sign * entry[0]
        if entry[2]:
            self.copies += sign * entry[0]

    def _freed(self, entry: list[Any], _: Any) -> None:
        self._count(entry, -1)

    def _fresh(self) -> str:
        """The category of a tensor made now."""
        if self.optimizing or ("forward" not in self.open and not self.recomputing):
            return "temporaries"
        return "activations"

    def _peak(self) -> None:
        total = self.total
        for phase in self.open:
            if total > self.peaks.get(phase, {"bytes": -1})["bytes"]:
                self.peaks[phase] = {"bytes": total, "by_category": dict(self.live), "weight_copies": self.copies}

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        if func is torch.ops.aten._local_scalar_dense.default:  # .item(), bool(): no data behind fake tensors
            return True if args[0].dtype == torch.bool else 1 if not args[0].is_floating_point() else 1.0
        if func is torch.ops.aten.nonzero.default and self.nonzero_fraction:  # a mixture of experts' routing
            count = int(args[0].numel() * self.nonzero_fraction)
            out = torch.zeros((count, args[0].dim()), dtype=torch.long, device=args[0].device)
        else:
            out = func(*args, **kwargs)
        self.ops.add(func.name())
        fresh = self._fresh()
        copy = func is torch.ops.aten._to_copy.default and self.category(args[0]) == "parameters"
        for tensor in tree_leaves(out):
            self.label(tensor, fresh, copy)
        self._peak()
        return out

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Follow the peak of ``name`` while the block runs; note the live bytes at its end."""
        self.open.append(name)
        self._peak()
        try:
            yield
        finally:
            self.open.remove(name)
            self.ends[name] = self.total

    def watch(self, model: Any) -> None:
        """Label the model's parameters and buffers; hooks for gradients, optimizer states and recomputation."""
        for parameter in model.parameters():
            self.label(parameter, "parameters")
            if parameter.requires_grad:
                self.hooks.append(parameter.register_post_accumulate_grad_hook(
                    lambda p: self.label(p.grad, "gradients", move=True)))
        for buffer in model.buffers():
            self.label(buffer, "buffers")

        def pre_step(*_: Any) -> None:  # the optimizer phase opens here too when steps run within backward
            self.optimizing += 1
            self.open.append("optimizer")

        def post_step(optimizer: Any, *_: Any) -> None:
            self.optimizing -= 1
            self.open.remove("optimizer")
            for state in optimizer.state.values():
                for value in state.values():
                    self.label(value, "optimizer", move=True)

        tracker = self

        class Recomputation(REAL_RECOMPUTATION):  # type: ignore[misc, valid-type]
            """Checkpointing's recomputation: what it makes counts as activations (its early stop skips the
            module hooks' ends, so the count is kept here)."""

            def __enter__(self) -> Any:
                tracker.recomputing += 1
                return super().__enter__()

            def __exit__(self, *args: Any) -> Any:
                tracker.recomputing -= 1
                return super().__exit__(*args)

        torch.utils.checkpoint._recomputation_hook = Recomputation
        self.hooks += [register_optimizer_step_pre_hook(pre_step), register_optimizer_step_post_hook(post_step)]

    def close(self) -> None:
        for hook in self.hooks:
            hook.remove()
        torch.utils.checkpoint._recomputation_hook = REAL_RECOMPUTATION


class Adam8bitModel(torch.optim.Optimizer):
    """bitsandbytes' AdamW8bit as memory, without its CUDA kernels: per tensor of 4096 values or more, two uint8
    states and one fp32 absmax per 256-value block for each; smaller tensors keep two fp32 states; the update is
    made in place, as bitsandbytes' fused kernel makes no full-size temporaries."""

    BLOCK, MIN_8BIT = 256, 4096

    def __init__(self, params: Any, lr: float = 1e-5) -> None:
        super().__init__(params, {"lr": lr, "blocksize": self.BLOCK, "min_8bit_size": self.MIN_8BIT})

    @torch.no_grad()
    def step(self, closure: Callable[[], Any] | None = None) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    small = p.numel() < self.MIN_8BIT
                    dtype = torch.float32 if small else torch.uint8
                    state["state1"] = torch.zeros_like(p, dtype=dtype)
                    state["state2"] = torch.zeros_like(p, dtype=dtype)
                    if not small:
                        blocks = -(-p.numel() // self.BLOCK)
                        state["absmax1"] = torch.zeros(blocks, dtype=torch.float32, device=p.device)
                        state["absmax2"] = torch.zeros(blocks, dtype=torch.float32, device=p.device)
                state["step"] += 1
                p.add_(p.grad, alpha=-group["lr"])  # the kernel's in-place update, without its arithmetic


def config_of(setup: Setup) -> Any:
    """The model's Transformers config, from the published values."""
    values = dict(CONFIGS[setup.model])
    return transformers.AutoConfig.for_model(values.pop("model_type"), **values)


@contextlib.contextmanager
def default_dtype(dtype: torch.dtype) -> Iterator[None]:
    previous = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        yield
    finally:
        torch.set_default_dtype(previous)


def fake_to(self: Any, *args: Any, **kwargs: Any) -> Any:
    """``Module.to`` by ``param.data`` (the real one swaps tensors, which fails on fake parameters)."""
    device, dtype, _, _ = torch._C._nn._parse_to(*args, **kwargs)
    for module in self.modules():
        for parameter in module.parameters(recurse=False):
            parameter.data = parameter.data.to(device=device, dtype=dtype if parameter.is_floating_point() else None)
        for name, buffer in module.named_buffers(recurse=False):
            module._buffers[name] = buffer.to(device=device, dtype=dtype if buffer.is_floating_point() else None)
    return self


def build(setup: Setup) -> Any:
    """The model (under the active fake mode) with its adapters, frozen parts and checkpointing."""
    config = config_of(setup)
    auto = transformers.AutoModelForSeq2SeqLM if config.is_encoder_decoder else transformers.AutoModelForCausalLM
    with default_dtype(DTYPES[setup.weights]):
        model = auto.from_config(config, attn_implementation=setup.attention)
    model.train()
    if setup.checkpointing == "hf":
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    if setup.method == "freeze":
        model.requires_grad_(False)
        for layer in model.model.layers[-setup.trainable_layers:]:
            layer.requires_grad_(True)
        model.model.norm.requires_grad_(True)
    if setup.method in ("lora", "dora"):
        lora = setup.lora or {}
        peft_config = peft.LoraConfig(r=lora["rank"], lora_alpha=lora["alpha"], target_modules=lora["targets"],
                                      lora_dropout=lora["dropout"], use_dora=setup.method == "dora",
                                      task_type="SEQ_2_SEQ_LM" if config.is_encoder_decoder else "CAUSAL_LM")
        real_to, torch.nn.Module.to = torch.nn.Module.to, fake_to  # type: ignore[method-assign]
        try:
            model = peft.get_peft_model(model, peft_config)  # upcasts the adapters to fp32 itself
        finally:
            torch.nn.Module.to = real_to  # type: ignore[method-assign]
    if setup.method != "full" and setup.checkpointing == "hf":
        model.enable_input_require_grads()
    return model


DTYPES = {"bf16": torch.bfloat16, "fp32": torch.float32}


def optimizer_for(setup: Setup, params: list[Any]) -> Any:
    """The setup's optimizer over ``params``."""
    if setup.optimizer == "adamw":
        return torch.optim.AdamW(params, lr=1e-5, weight_decay=0.0, **setup.flags)
    if setup.optimizer in ("sgd", "sgd_momentum"):
        momentum = 0.9 if setup.optimizer == "sgd_momentum" else 0.0
        return torch.optim.SGD(params, lr=1e-3, momentum=momentum, **setup.flags)
    if setup.optimizer == "adafactor":
        return transformers.optimization.Adafactor(params, lr=None, **setup.flags)
    if setup.optimizer == "adam8bit":
        return Adam8bitModel(params)
    raise SystemExit(f"unknown optimizer {setup.optimizer}")


def optimizers_for(setup: Setup, model: Any) -> list[Any]:
    """One optimizer over every trainable parameter, or one per parameter stepped from its gradient hook."""
    params = [p for p in model.parameters() if p.requires_grad]
    if not setup.in_backward:
        return [optimizer_for(setup, params)]
    each = {p: optimizer_for(setup, [p]) for p in params}

    def step(parameter: Any) -> None:
        each[parameter].step()
        each[parameter].zero_grad(set_to_none=True)

    for p in params:
        p.register_post_accumulate_grad_hook(step)
    return list(each.values())


def batch_of(setup: Setup, config: Any) -> dict[str, Any]:
    """Random token ids, an attention mask of ones (as a data collator gives it, unless the setup leaves it out)
    and labels of the setup's shape (every label counts; a decoder's labels are the ids)."""
    ids = torch.randint(0, config.vocab_size, (setup.batch, setup.sequence))
    batch = {"input_ids": ids}
    if setup.attention_mask:
        batch["attention_mask"] = torch.ones_like(ids)
    if setup.decoder_sequence:
        batch["labels"] = torch.randint(0, config.vocab_size, (setup.batch, setup.decoder_sequence))
    else:
        batch["labels"] = ids.clone()
    return batch


CHUNKS = 8


def chunked_loss(model: Any, batch: dict[str, Any], recompute: bool) -> Any:
    """Cross-entropy over the last hidden states in CHUNKS pieces of the sequence: each piece's logits made by the
    head, upcast to fp32 and reduced (sum) before the next. Autograd keeps each piece's fp32 log-softmax, unless
    ``recompute``: then each piece runs under (non-reentrant) checkpointing and is made again in backward."""
    base = model.get_base_model() if isinstance(model, peft.PeftModel) else model
    hidden = base.model(input_ids=batch["input_ids"], attention_mask=batch.get("attention_mask")).last_hidden_state
    head = base.get_output_embeddings()
    labels = F.pad(batch["labels"], (0, 1), value=-100)[:, 1:]  # shifted as Transformers' loss does
    total = hidden.new_zeros((), dtype=torch.float32)
    for states, targets in zip(hidden.chunk(CHUNKS, dim=1), labels.chunk(CHUNKS, dim=1), strict=True):
        if recompute:
            total = total + torch.utils.checkpoint.checkpoint(piece_loss, head, states, targets, use_reentrant=False)
        else:
            total = total + piece_loss(head, states, targets)
    return total / (labels != -100).sum()


def piece_loss(head: Any, states: Any, targets: Any) -> Any:
    logits = head(states).float()
    return F.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=-100, reduction="sum")


def cuda_dropout(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Any:
    """F.dropout as CUDA runs it (``native_dropout``: a 1-byte mask); the CPU's keeps a mask of the input's dtype."""
    if training and 0 < p < 1 and not inplace:
        return torch.native_dropout(input, p, True)[0]
    return DROPOUT(input, p, training, inplace)


DROPOUT = F.dropout


def train_step(model: Any, setup: Setup, batch: dict[str, Any], optimizers: list[Any], tracker: Tracker) -> None:
    """Forward with the loss, backward, optimizer step and gradients set to None, each phase followed."""
    autocast = torch.autocast("cpu", dtype=torch.bfloat16) if setup.autocast else contextlib.nullcontext()
    backend = torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.MATH) if setup.sdpa_backend == "math" \
        else contextlib.nullcontext()
    with backend:
        phases(model, setup, batch, optimizers, tracker, autocast)


def phases(model: Any, setup: Setup, batch: dict[str, Any], optimizers: list[Any], tracker: Tracker,
           autocast: Any) -> None:
    """The three phases of a step, each followed."""
    with tracker.phase("forward"), autocast:
        if setup.loss == "standard":
            loss = model(**batch).loss
        else:
            loss = chunked_loss(model, batch, recompute=setup.loss == "chunked-recompute")
    with tracker.phase("backward"):
        loss.backward()
    with tracker.phase("optimizer"):
        if not setup.in_backward:
            for optimizer in optimizers:
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)


def trace(setup: Setup) -> dict[str, Any]:
    """Build the setup's model under the fake mode, run two steps and record the second."""
    start = time.perf_counter()
    config = config_of(setup)
    experts = getattr(config, "num_experts", 0) or getattr(config, "num_local_experts", 0)
    if setup.cuda_dropout:
        F.dropout = cuda_dropout
    try:
        with FakeTensorMode():
            model = build(setup)
            tracker = Tracker(nonzero_fraction=1 / experts if experts else 0.0)
            tracker.watch(model)
            optimizers = optimizers_for(setup, model)
            with tracker:
                batch = batch_of(setup, config)
                for tensor in batch.values():
                    tracker.label(tensor, "activations", move=True)
                train_step(model, setup, batch, optimizers, tracker)  # makes the optimizer states
                gc.collect()
                tracker.peaks.clear()
                tracker.ends.clear()
                train_step(model, setup, batch, optimizers, tracker)
            tracker.close()
    finally:
        F.dropout = DROPOUT
    return record(setup, config, model, optimizers[0], tracker, time.perf_counter() - start)


def record(setup: Setup, config: Any, model: Any, optimizer: Any, tracker: Tracker, seconds: float) -> dict[str, Any]:
    """The JSON record of one traced setup."""
    phases = {name: {"peak_bytes": tracker.peaks[name]["bytes"], "by_category": tracker.peaks[name]["by_category"],
                     "weight_copies": tracker.peaks[name]["weight_copies"], "end_bytes": tracker.ends[name]}
              for name in PHASES}
    top = max(PHASES, key=lambda name: tracker.peaks[name]["bytes"])
    values = dict(CONFIGS[setup.model])
    return {
        "name": setup.name,
        "description": setup.description,
        "model": {"hf_id": setup.model, "model_type": values.pop("model_type"), "config": values,
                  "parameters": sum(p.numel() for p in model.parameters()),
                  "trainable": sum(p.numel() for p in model.parameters() if p.requires_grad)},
        "setup": describe(setup, config, model, optimizer),
        "peak": {"bytes": tracker.peaks[top]["bytes"], "by_category": tracker.peaks[top]["by_category"],
                 "phase": top, "weight_copies": tracker.peaks[top]["weight_copies"]},
        "phases": phases,
        "seconds": round(seconds, 1),
        "notes": notes(setup, config, tracker),
    }


LOSSES = {
    "standard": "standard: labels= in the model (Transformers' ForCausalLMLoss: the logits upcast to fp32, then"
    " cross-entropy, mean over the labels)",
    "chunked": f"chunked: {CHUNKS} pieces of the sequence, each piece's logits made by the head, upcast to fp32 and"
    " reduced (sum) by F.cross_entropy before the next; one division by the number of labels",
    "chunked-recompute": f"chunked with recomputation: as chunked ({CHUNKS} pieces), each piece (head, upcast,"
    " cross-entropy) under torch.utils.checkpoint (non-reentrant), so only its input is kept and its logits are"
    " made again in backward",
}


def describe(setup: Setup, config: Any, model: Any, optimizer: Any) -> dict[str, Any]:
    """The setup object of the record: every choice that shapes the step's memory."""
    lora = None
    if setup.lora:
        adapter = next(p for name, p in model.named_parameters() if "lora_A" in name)
        lora = {**setup.lora, "use_dora": setup.method == "dora", "adapter_dtype": str(adapter.dtype).split(".")[1],
                "library": f"peft {peft.__version__} get_peft_model (autocast_adapter_dtype=True)"}
    frozen = {"lora": "the whole base model (PEFT)", "dora": "the whole base model (PEFT)",
              "freeze": f"embeddings (tied head) and all decoder layers but the last {setup.trainable_layers}"}
    kind = type(optimizer)
    options = {key: list(value) if isinstance(value, tuple) else value for key, value in optimizer.defaults.items()
               if isinstance(value, bool | int | float | str | tuple | None)}
    return {
        "method": setup.method,
        "lora": lora,
        "frozen": frozen.get(setup.method),
        "weights_dtype": str(DTYPES[setup.weights]).split(".")[1],
        "autocast": setup.autocast,
        "optimizer": {"name": setup.optimizer,
                      "class": f"{kind.__module__}.{kind.__qualname__}".replace("torch.optim.adamw", "torch.optim")
                      .replace("torch.optim.sgd", "torch.optim").replace("__main__", "tools.measure_step"),
                      **options},
        "optimizer_in_backward": setup.in_backward,
        "micro_batch": setup.batch,
        "sequence": setup.sequence,
        "decoder_sequence": setup.decoder_sequence,
        "attention": setup.attention,
        "sdpa_backend": setup.sdpa_backend if setup.attention == "sdpa" else None,
        "attention_mask": "ones (b×s), as a data collator gives it" if setup.attention_mask else None,
        "checkpointing": setup.checkpointing,
        "loss": LOSSES[setup.loss],
        "dropout": {name: getattr(config, name) for name in DROPOUTS if hasattr(config, name)},
        "dropout_kernel": "native_dropout (1-byte mask, as CUDA)" if setup.cuda_dropout else "CPU (mask in the"
        " input's dtype)",
    }


def notes(setup: Setup, config: Any, tracker: Tracker) -> str:
    """What the trace did in place of a GPU run, and where a CUDA run would differ."""
    said = [setup.notes] if setup.notes else []
    attention = sorted(op for op in tracker.ops if "scaled_dot_product" in op or "attention" in op)
    if setup.sdpa_backend == "math":
        said.append("SDPA forced to its math kernel, the composite one CUDA falls back to when no fused kernel takes"
                    " the inputs: fp32 q/k/v rule out flash, and grouped K/V (enable_gqa, which Transformers passes"
                    " when there is no mask) rule out the memory-efficient and cuDNN kernels (reported up to PyTorch"
                    " 2.11 at least); it repeats K and V per head and keeps each head's s×s softmax in fp32.")
    elif setup.attention == "sdpa":
        said.append(f"SDPA ran {', '.join(attention) or 'no fused kernel'}: like CUDA's flash kernel it keeps the"
                    " output and an fp32 logsumexp per head and position (CUDA's memory-efficient kernel pads the"
                    " logsumexp to 32 positions: a few kB), and K and V as they are.")
        if setup.weights == "fp32" and not setup.autocast:
            said.append("The CPU's flash kernel takes fp32 and grouped K/V; CUDA's kernels do not, so a CUDA run of"
                        " this setup uses the math kernel: see llama1b-full-fp32-adamw.")
    else:
        said.append("Eager attention: the same kernels and saved tensors as on CUDA (scores and fp32 softmax).")
    if setup.autocast:
        copies = tracker.peaks["forward"]["weight_copies"]
        said.append(f"Autocast made bf16 copies of the fp32 weights, {copies / GIB:.2f} GiB of them live at the"
                    " forward peak (counted in activations): its cache keeps one per weight until the forward ends,"
                    " and linear layers save them for backward. CPU autocast's lists differ from CUDA's (softmax,"
                    " log_softmax, pow, rsqrt run in fp32 on CUDA), but these models upcast those explicitly.")
    dropout = {name: value for name, value in describe_dropout(config).items() if value}
    if dropout and setup.cuda_dropout:
        said.append(f"Dropout ({dropout}) traced with native_dropout, as CUDA runs it: a 1-byte mask per value;"
                    " the CPU's own F.dropout keeps a mask in the activations' dtype (4 bytes in fp32).")
    elif dropout:
        said.append(f"Dropout ({dropout}) traced with the CPU's F.dropout: the mask in the activations' dtype"
                    " (fp32 here, 4 bytes per value), where CUDA's native_dropout keeps 1 byte.")
    if tracker.nonzero_fraction:
        said.append("Routing without data: aten.nonzero (torch.where in the expert loop) answered with a balanced"
                    f" routing, every expert given tokens × {config.num_experts_per_tok} / {config.num_experts}"
                    " rows; Transformers' eager loop over the experts keeps, per expert, the gathered input rows,"
                    " the gate and up outputs, the SiLU and the product, and the output before the routing weight.")
    if "aten::_local_scalar_dense" in tracker.ops:
        said.append(".item() and bool() of fake tensors (optimizer step counts, Adafactor's RMS comparisons)"
                    " answered with 1: no byte depends on them.")
    if setup.optimizer == "adam8bit":
        said.append("bitsandbytes cannot run here (its kernels need CUDA): the optimizer is a stand-in that keeps the"
                    " states as AdamW8bit does (uint8 + fp32 absmax per 256 values, fp32 under 4096 values) and"
                    " updates in place, so the step's temporaries are its fused kernel's (none).")
    if any(op.startswith("aten::_foreach_sqrt") for op in tracker.ops):
        said.append("The foreach AdamW makes a full-size temporary (sqrt of exp_avg_sq, the parameters' dtype)"
                    " during the step, as on CUDA.")
    return " ".join(said)


def describe_dropout(config: Any) -> dict[str, float]:
    return {name: getattr(config, name) for name in DROPOUTS if hasattr(config, name)}


SMALL = {  # --check: the same families, shrunk so that real tensors fit and run in seconds
    "llama": {"num_hidden_layers": 2, "hidden_size": 256, "intermediate_size": 1024, "num_attention_heads": 4,
              "num_key_value_heads": 2, "head_dim": 64, "vocab_size": 2048},
    "t5": {"num_layers": 2, "num_decoder_layers": 2, "d_model": 256, "d_ff": 512, "num_heads": 4, "vocab_size": 2048},
}
CHECKS = (
    Setup("check-llama-sdpa", "", "small-llama", batch=2, sequence=256),
    Setup("check-llama-eager-amp", "", "small-llama", weights="fp32", autocast="bf16", attention="eager", batch=2,
          sequence=256),
    Setup("check-llama-lora-ckpt", "", "small-llama", method="lora", lora=ALL16, checkpointing="hf", batch=2,
          sequence=256),
    Setup("check-t5-fp32-dropout", "", "small-t5", weights="fp32", attention="eager", batch=2, sequence=256,
          decoder_sequence=64),
)


def check() -> None:
    """Trace small models with fake tensors and count, with real tensors, what autograd saves for backward
    (saved_tensors_hooks, as tools/measure_activations.py does): the live bytes at the end of the forward pass,
    less parameters, buffers and optimizer states, should exceed the saved bytes by the batch and the loss only
    (and, with checkpointing, by what the checkpoints hold outside autograd's saved tensors)."""
    from tools.measure_activations import kept_for_backward

    CONFIGS["small-llama"] = {**CONFIGS[LLAMA1B], **SMALL["llama"]}
    CONFIGS["small-t5"] = {**CONFIGS[T5], **SMALL["t5"]}
    print("| setup | saved for backward (real tensors) | live at the end of forward (fake) | difference |")
    print("|---|---|---|---|")
    for setup in CHECKS:
        row = trace(setup)
        at_end = row["phases"]["forward"]["end_bytes"] - sum(
            row["phases"]["optimizer"]["by_category"][name] for name in ("parameters", "buffers", "optimizer"))
        torch.manual_seed(0)
        F.dropout = cuda_dropout
        try:
            with default_dtype(DTYPES[setup.weights]):
                model = build(setup)
            batch = batch_of(setup, config_of(setup))
            autocast = torch.autocast("cpu", dtype=torch.bfloat16) if setup.autocast else contextlib.nullcontext()
            with autocast:
                saved = kept_for_backward(model, lambda: model(**batch).loss)  # noqa: B023 - called at once
        finally:
            F.dropout = DROPOUT
        print(f"| {setup.name} | {saved:,} | {at_end:,} | {at_end - saved:+,} |")


def load(path: Path | None) -> list[dict[str, Any]]:
    if path and path.exists():
        return list(json.loads(path.read_text())["setups"])
    return []


def save(path: Path, rows: list[dict[str, Any]]) -> None:
    """Write the record (the setups in SETUPS order)."""
    order = {setup.name: i for i, setup in enumerate(SETUPS)}
    rows = sorted(rows, key=lambda row: order.get(row["name"], len(order)))
    versions = {"torch": torch.__version__, "transformers": transformers.__version__, "peft": peft.__version__,
                "python": platform.python_version()}
    document = {"tool": "tools/measure_step.py", "date": date.today().isoformat(), "versions": versions,
                "device": "cpu (fake tensors)", "setups": rows}
    path.write_text(json.dumps(document, indent=1) + "\n")


def gib(value: int) -> str:
    return f"{value / GIB:.2f}"


SHORT = {"bfloat16": "bf16", "float32": "fp32"}


def table(rows: list[dict[str, Any]]) -> str:
    """The Markdown table of the report."""
    lines = ["| setup | model | method | precision | optimizer | b×s | checkpointing | peak GiB | at the peak:"
             " parameters / gradients / optimizer / activations / temporaries GiB |",
             "|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        s, at = row["setup"], row["peak"]["by_category"]
        precision = SHORT[s["weights_dtype"]] + (" + autocast bf16" if s["autocast"] else "")
        flavour = " fused" if s["optimizer"].get("fused") else " foreach" if s["optimizer"].get("foreach") else ""
        optimizer = s["optimizer"]["name"] + flavour + (" in backward" if s["optimizer_in_backward"] else "")
        shape = f"{s['micro_batch']}×{s['sequence']}" + (f"→{s['decoder_sequence']}" if s["decoder_sequence"] else "")
        split = " / ".join(gib(at[name] + (at["buffers"] if name == "parameters" else 0))
                           for name in ("parameters", "gradients", "optimizer", "activations", "temporaries"))
        lines.append(f"| {row['name']} | {row['model']['hf_id']} | {s['method']} | {precision} | {optimizer} |"
                     f" {shape} | {s['checkpointing']} | {gib(row['peak']['bytes'])} | {split} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="trace this setup only (the others already in the JSON file are kept)")
    parser.add_argument("--json", type=Path, help="write the record to this file, after each setup")
    parser.add_argument("--markdown", action="store_true", help="print the JSON file's table and trace nothing")
    parser.add_argument("--check", action="store_true", help="compare the tracker with saved-tensor hooks, small models")
    args = parser.parse_args()
    if args.check:
        check()
        return
    rows = load(args.json)
    if args.markdown:
        print(table(rows))
        return
    chosen = [setup for setup in SETUPS if args.only in (None, setup.name)]
    if not chosen:
        raise SystemExit(f"no setup named {args.only}: {', '.join(setup.name for setup in SETUPS)}")
    for setup in chosen:
        try:
            row = trace(setup)
        except Exception:  # one failed setup leaves the others to run
            traceback.print_exc()
            print(f"{setup.name}: failed", flush=True)
            continue
        rows = [old for old in rows if old["name"] != setup.name] + [row]
        at = row["peak"]["by_category"]
        print(f"{setup.name}: peak {gib(row['peak']['bytes'])} GiB in {row['peak']['phase']} ("
              + ", ".join(f"{name} {gib(value)}" for name, value in at.items()) + f"), {row['seconds']} s", flush=True)
        if args.json:
            save(args.json, rows)


if __name__ == "__main__":
    main()
