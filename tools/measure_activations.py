"""Measure the activation memory of small PyTorch models and compare it with calculator.pages.activations.

Builds layers with the shapes the calculator describes (GPT-style: LayerNorm, GELU MLP,
biases, dropout; Llama-style: RMSNorm, SwiGLU MLP, grouped-query attention, no dropout; mixtures of
experts as transformers runs Mixtral's and Qwen's; encoder–decoder models with cross-attention), eager or
SDPA attention, runs one forward pass on the CPU and counts the bytes autograd keeps for the
backward pass with ``torch.autograd.graph.saved_tensors_hooks`` (each storage once, weights left out).
Prints the estimate, the measurement and their relative difference for each case.

Not part of scripts/test. It needs PyTorch: run it with any Python; if ``torch`` cannot be imported it
makes its own environment, ``.venv-measure/``, with Python 3.11 and the CPU wheel from /opt/wheels
(or from PyPI), and runs itself there.

Usage: python3 tools/measure_activations.py   (prints a Markdown table, as in the README)
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tools.measure_env import bootstrap  # noqa: E402

try:
    import torch
    from torch import nn
    from torch.nn import functional as F  # noqa: N812 - PyTorch's own convention
except ImportError:
    if __name__ == "__main__":
        bootstrap(__file__)
    raise

from calculator.llm.activation_memory import EAGER, FLASH, FUSED_NORM, LLAMA_NORM, NONE, Shape, estimate  # noqa: E402  # noqa: E402


@dataclass(frozen=True)
class Case:
    name: str
    style: str  # "gpt" or "llama"
    attention: str  # EAGER or FLASH (measured with PyTorch's scaled_dot_product_attention)
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    intermediate: int
    sequence: int
    batch: int
    vocab: int = 2048
    dtype: str = "bf16"
    experts: int = 0  # a mixture of experts (Llama-style layers): intermediate is each expert's
    top_k: int = 0
    shared: int = 0  # a shared expert's intermediate size, with its sigmoid gate (Qwen-MoE)
    normalize: bool = True  # top-k weights normalised to sum to 1 (Mixtral, Qwen3-MoE; not Qwen1.5-MoE)
    decoder_layers: int = 0  # encoder–decoder: ``layers`` encoder layers read ``encoder_sequence`` tokens
    encoder_sequence: int = 0

    @property
    def dropout(self) -> bool:
        return self.style == "gpt"

    @property
    def norm(self) -> str:
        """Llama-style layers normalise as transformers' LlamaRMSNorm (in fp32); GPT-style ones with LayerNorm."""
        return LLAMA_NORM if self.style == "llama" else FUSED_NORM


CASES = (
    Case("GPT, eager", "gpt", EAGER, 2, 256, 4, 4, 1024, 128, 2),
    Case("GPT, eager, s×2", "gpt", EAGER, 2, 256, 4, 4, 1024, 256, 2),
    Case("GPT, eager", "gpt", EAGER, 2, 512, 8, 8, 2048, 512, 1),
    Case("GPT, SDPA", "gpt", FLASH, 2, 512, 8, 8, 2048, 512, 1),
    Case("GPT, eager, fp32", "gpt", EAGER, 2, 256, 4, 4, 1024, 256, 1, dtype="fp32"),
    Case("Llama, eager, GQA", "llama", EAGER, 2, 512, 8, 2, 1408, 256, 2),
    Case("Llama, SDPA, GQA", "llama", FLASH, 2, 512, 8, 2, 1408, 256, 2),
    Case("Llama, eager, GQA", "llama", EAGER, 2, 1024, 16, 4, 2816, 1024, 1),
    Case("Llama, SDPA, GQA", "llama", FLASH, 2, 1024, 16, 4, 2816, 1024, 1),
    Case("MoE 8 × top-2 (Mixtral), SDPA", "llama", FLASH, 2, 512, 8, 2, 512, 256, 2, experts=8, top_k=2),
    Case("MoE 16 × top-4 + shared (Qwen), eager", "llama", EAGER, 2, 512, 8, 8, 128, 256, 1, experts=16, top_k=4,
         shared=1024, normalize=False),
    Case("MoE 32 × top-8 (Qwen3), SDPA", "llama", FLASH, 2, 512, 8, 2, 128, 512, 1, experts=32, top_k=8),
    Case("Encoder–decoder (GPT-style), eager", "gpt", EAGER, 2, 256, 4, 4, 1024, 128, 2, decoder_layers=2,
         encoder_sequence=192),
    Case("Encoder–decoder (Llama-style), SDPA", "llama", FLASH, 2, 512, 8, 8, 1408, 128, 2, decoder_layers=3,
         encoder_sequence=512),
)
DTYPES = {"bf16": torch.bfloat16, "fp32": torch.float32}


class RMSNorm(nn.Module):
    """As transformers' LlamaRMSNorm: computed in fp32, the weight applied in the activations' precision."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(size))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        wide = x.to(torch.float32)
        wide = wide * torch.rsqrt(wide.pow(2).mean(-1, keepdim=True) + 1e-6)
        return self.weight * wide.to(x.dtype)


class _BoolMaskDropout(torch.autograd.Function):
    """Dropout that keeps its mask as booleans, 1 byte per value, as PyTorch's CUDA kernel does
    (on the CPU ``nn.Dropout`` keeps it in the activations' precision)."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, p: float) -> torch.Tensor:  # type: ignore[override]
        mask = torch.rand_like(x, dtype=torch.float32) >= p
        ctx.save_for_backward(mask)
        ctx.scale = 1.0 / (1.0 - p)
        return x * mask * ctx.scale

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, None]:  # type: ignore[override]
        (mask,) = ctx.saved_tensors
        return grad * mask * ctx.scale, None


class Dropout(nn.Module):
    def __init__(self, p: float) -> None:
        super().__init__()
        self.p = p

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _BoolMaskDropout.apply(x, self.p) if self.training and self.p > 0 else x


def norm(case: Case) -> nn.Module:
    return nn.LayerNorm(case.hidden) if case.style == "gpt" else RMSNorm(case.hidden)


class Attention(nn.Module):
    """Self-attention (causal in a decoder), or cross-attention: queries from x, keys and values from memory."""

    def __init__(self, case: Case) -> None:
        super().__init__()
        h, d, gpt = case.hidden, case.hidden // case.heads, case.style == "gpt"
        self.case, self.d = case, d
        self.q = nn.Linear(h, case.heads * d, bias=gpt)
        self.k = nn.Linear(h, case.kv_heads * d, bias=gpt)
        self.v = nn.Linear(h, case.kv_heads * d, bias=gpt)
        self.o = nn.Linear(case.heads * d, h, bias=gpt)
        self.drop = Dropout(0.1 if case.dropout else 0.0)

    def forward(self, y: torch.Tensor, memory: torch.Tensor | None = None, causal: bool = True) -> torch.Tensor:
        case, d = self.case, self.d
        source = y if memory is None else memory
        b, s, _ = y.shape
        keys = source.shape[1]
        q = self.q(y).view(b, s, case.heads, d).transpose(1, 2)
        k = self.k(source).view(b, keys, case.kv_heads, d).transpose(1, 2)
        v = self.v(source).view(b, keys, case.kv_heads, d).transpose(1, 2)
        if case.attention == EAGER:
            groups = case.heads // case.kv_heads
            if groups > 1:  # as transformers' repeat_kv
                k, v = k.repeat_interleave(groups, dim=1), v.repeat_interleave(groups, dim=1)
            scores = torch.matmul(q, k.transpose(-1, -2)) * (d ** -0.5)
            if causal:  # the mask is added, as transformers does
                scores = scores + torch.full((s, s), float("-inf"), dtype=scores.dtype).triu(1)
            out = torch.matmul(self.drop(torch.softmax(scores, dim=-1)), v)
        else:
            out = F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=case.heads != case.kv_heads)
        return self.o(out.transpose(1, 2).reshape(b, s, case.heads * d))


class GatedMLP(nn.Module):
    def __init__(self, hidden: int, intermediate: int) -> None:
        super().__init__()
        self.gate = nn.Linear(hidden, intermediate, bias=False)
        self.up = nn.Linear(hidden, intermediate, bias=False)
        self.down = nn.Linear(intermediate, hidden, bias=False)

    def forward(self, y: torch.Tensor) -> torch.Tensor:
        return self.down(F.silu(self.gate(y)) * self.up(y))


class Experts(nn.Module):
    """A mixture of experts as transformers runs Mixtral's and Qwen's: a router, fp32 softmax, top-k, each expert
    on the tokens that chose it, the weighted outputs added back with index_add_; a gated shared expert."""

    def __init__(self, case: Case) -> None:
        super().__init__()
        self.case = case
        self.router = nn.Linear(case.hidden, case.experts, bias=False)
        self.experts = nn.ModuleList(GatedMLP(case.hidden, case.intermediate) for _ in range(case.experts))
        if case.shared:
            self.shared = GatedMLP(case.hidden, case.shared)
            self.shared_gate = nn.Linear(case.hidden, 1, bias=False)

    def forward(self, y: torch.Tensor) -> torch.Tensor:
        case = self.case
        tokens = y.reshape(-1, case.hidden)
        weights = F.softmax(self.router(tokens), dim=-1, dtype=torch.float32)
        weights, chosen = torch.topk(weights, case.top_k, dim=-1)
        if case.normalize:
            weights = weights / weights.sum(dim=-1, keepdim=True)
        weights = weights.to(y.dtype)
        out = torch.zeros_like(tokens)
        mask = F.one_hot(chosen, num_classes=case.experts).permute(2, 1, 0)
        for index, expert in enumerate(self.experts):
            slot, rows = torch.where(mask[index])
            if rows.numel():
                out.index_add_(0, rows, expert(tokens[rows]) * weights[rows, slot, None])
        if case.shared:
            out = out + torch.sigmoid(self.shared_gate(tokens)) * self.shared(tokens)
        return out.view_as(y)


class Layer(nn.Module):
    """One layer, written out so that every saved tensor is the one the formula names; with ``cross`` a
    decoder layer of an encoder–decoder model."""

    def __init__(self, case: Case, cross: bool = False) -> None:
        super().__init__()
        h, gpt = case.hidden, case.style == "gpt"
        self.case = case
        self.norm1, self.norm2 = norm(case), norm(case)
        self.attention = Attention(case)
        if cross:
            self.norm_cross, self.cross = norm(case), Attention(case)
        if case.experts:
            self.mlp: nn.Module = Experts(case)
        elif gpt:
            self.mlp = nn.Sequential(nn.Linear(h, case.intermediate), nn.GELU(), nn.Linear(case.intermediate, h))
        else:
            self.mlp = GatedMLP(h, case.intermediate)
        self.drop = Dropout(0.1 if case.dropout else 0.0)

    def forward(self, x: torch.Tensor, memory: torch.Tensor | None = None, causal: bool = True) -> torch.Tensor:
        x = x + self.drop(self.attention(self.norm1(x), causal=causal))
        if memory is not None:
            x = x + self.drop(self.cross(self.norm_cross(x), memory, causal=False))
        return x + self.drop(self.mlp(self.norm2(x)))


class Model(nn.Module):
    def __init__(self, case: Case) -> None:
        super().__init__()
        self.embed = nn.Embedding(case.vocab, case.hidden)
        if case.decoder_layers:
            self.encoder = nn.ModuleList(Layer(case) for _ in range(case.layers))
            self.encoder_norm = norm(case)
            self.layers = nn.ModuleList(Layer(case, cross=True) for _ in range(case.decoder_layers))
        else:
            self.layers = nn.ModuleList(Layer(case) for _ in range(case.layers))
        self.norm = norm(case)
        self.head = nn.Linear(case.hidden, case.vocab, bias=False)

    def forward(self, tokens: torch.Tensor, source: torch.Tensor | None = None) -> torch.Tensor:
        memory = None
        if source is not None:
            memory = self.embed(source)
            for layer in self.encoder:
                memory = layer(memory, causal=False)
            memory = self.encoder_norm(memory)
        x = self.embed(tokens)
        for layer in self.layers:
            x = layer(x, memory)
        logits = self.head(self.norm(x)).float()  # as transformers does before the loss
        return F.cross_entropy(logits.view(-1, logits.shape[-1]), tokens.view(-1))


def kept_for_backward(model: nn.Module, loss_of: Callable[[], torch.Tensor]) -> int:
    """Bytes autograd keeps for the backward pass of ``loss_of()``: each storage once, the weights and the
    model's buffers left out (GPT-2's causal-mask buffer, rotary frequencies: memory held with or without it)."""
    weights = {p.untyped_storage().data_ptr() for p in (*model.parameters(), *model.buffers())}
    kept: dict[int, int] = {}

    def pack(tensor: torch.Tensor) -> torch.Tensor:
        storage = tensor.untyped_storage()
        if storage.data_ptr() not in weights:
            kept[storage.data_ptr()] = storage.nbytes()
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        loss = loss_of()
    loss.backward()
    return sum(kept.values())


def measure(case: Case) -> int:
    torch.manual_seed(0)
    model = Model(case).to(DTYPES[case.dtype]).train()
    tokens = torch.randint(0, case.vocab, (case.batch, case.sequence))
    source = torch.randint(0, case.vocab, (case.batch, case.encoder_sequence)) if case.decoder_layers else None
    return kept_for_backward(model, lambda: model(tokens, source))


def predicted(case: Case) -> int:
    shape = Shape(
        layers=case.layers, hidden=case.hidden, heads=case.heads, kv_heads=case.kv_heads,
        head_dim=case.hidden // case.heads, intermediate=case.intermediate, gated=case.style == "llama",
        vocab=case.vocab, sequence=case.sequence, micro_batch=case.batch,
        precision=2 if case.dtype == "bf16" else 4, loss_precision=4, flash=case.attention == FLASH,
        dropout=case.dropout, norm=case.norm, tensor_parallel=1, sequence_parallel=False,
        checkpointing=NONE, experts=case.experts, experts_per_token=case.top_k, shared_intermediate=case.shared,
        decoder_layers=case.decoder_layers, encoder_sequence=case.encoder_sequence,
    )
    return int(sum(estimate(shape).values()))


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    rows = []
    for case in CASES:
        estimated, measured = predicted(case), measure(case)
        rows.append((case, estimated, measured, (estimated - measured) / measured))
    header = ("case", "L", "h", "a/kv", "i", "s", "b", "dtype", "estimate MB", "measured MB", "difference")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for case, estimated, measured, error in rows:
        # An encoder–decoder's layers as encoder + decoder and its lengths as encoder → decoder; experts as E × i.
        layers = f"{case.layers}+{case.decoder_layers}" if case.decoder_layers else str(case.layers)
        sequence = f"{case.encoder_sequence}→{case.sequence}" if case.decoder_layers else str(case.sequence)
        intermediate = str(case.intermediate)
        if case.experts:
            intermediate = f"{case.experts}×{case.intermediate}, k={case.top_k}" + (
                f", +{case.shared}" if case.shared else "")
        print(f"| {case.name} | {layers} | {case.hidden} | {case.heads}/{case.kv_heads} | {intermediate} |"
              f" {sequence} | {case.batch} | {case.dtype} | {estimated / 1e6:.2f} | {measured / 1e6:.2f} |"
              f" {error * 100:+.1f} % |")
    worst = max(rows, key=lambda row: abs(row[3]))
    print(f"\nlargest relative difference: {worst[3] * 100:+.1f} % ({worst[0].name}, s = {worst[0].sequence});"
          f" PyTorch {torch.__version__}")


if __name__ == "__main__":
    main()
