"""Measure the activation memory of small PyTorch models and compare it with calculator.activations.

Builds decoder layers with the shapes the calculator describes (GPT-style: LayerNorm, GELU MLP,
biases, dropout; Llama-style: RMSNorm, SwiGLU MLP, grouped-query attention, no dropout), eager or
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
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv-measure"
WHEELS = Path("/opt/wheels")


def bootstrap() -> None:
    """Re-run this script in an environment that has PyTorch, making it first if needed."""
    python = VENV / "bin" / "python"
    if Path(sys.executable).resolve() == python.resolve():
        sys.exit("PyTorch is missing in .venv-measure: delete that folder and run again, or install torch there.")
    if not python.exists():
        base = next((c for c in ("python3.11", "python3") if _runs(c)), None)
        if base is None:
            sys.exit("Python 3.11 is needed to make .venv-measure (the CPU build of PyTorch in /opt/wheels is cp311).")
        print(f"making {VENV.name} with {base} and PyTorch (CPU)", file=sys.stderr)
        subprocess.run([base, "-m", "venv", str(VENV)], check=True)
        wheels = sorted(WHEELS.glob("torch-*.whl")) if WHEELS.is_dir() else []
        target = [str(wheels[-1])] if wheels else ["torch"]
        done = subprocess.run([str(python), "-m", "pip", "install", "--quiet", *target], check=False)
        if done.returncode:
            sys.exit("Could not install PyTorch. Install a CPU build of torch (pip install torch) into .venv-measure.")
    os.execv(str(python), [str(python), __file__, *sys.argv[1:]])


def _runs(command: str) -> bool:
    try:
        return subprocess.run([command, "-c", "import venv"], capture_output=True, check=False).returncode == 0
    except OSError:
        return False


try:
    import torch
    from torch import nn
    from torch.nn import functional as F  # noqa: N812 - PyTorch's own convention
except ImportError:
    if __name__ == "__main__":
        bootstrap()
    raise

sys.path.insert(0, str(ROOT))
from calculator.activations import EAGER, FLASH, NONE, Shape, estimate  # noqa: E402


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

    @property
    def dropout(self) -> bool:
        return self.style == "gpt"

    @property
    def norm_fp32(self) -> bool:
        """Llama-style layers normalise as transformers' LlamaRMSNorm (in fp32); GPT-style ones with LayerNorm."""
        return self.style == "llama"


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
    def forward(ctx, x: torch.Tensor, p: float) -> torch.Tensor:  # type: ignore[override]
        mask = torch.rand_like(x, dtype=torch.float32) >= p
        ctx.save_for_backward(mask)
        ctx.scale = 1.0 / (1.0 - p)
        return x * mask * ctx.scale

    @staticmethod
    def backward(ctx, grad: torch.Tensor) -> tuple[torch.Tensor, None]:  # type: ignore[override]
        (mask,) = ctx.saved_tensors
        return grad * mask * ctx.scale, None


class Dropout(nn.Module):
    def __init__(self, p: float) -> None:
        super().__init__()
        self.p = p

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _BoolMaskDropout.apply(x, self.p) if self.training and self.p > 0 else x


class Layer(nn.Module):
    """One decoder layer, written out so that every saved tensor is the one the formula names."""

    def __init__(self, case: Case) -> None:
        super().__init__()
        h, d = case.hidden, case.hidden // case.heads
        gpt = case.style == "gpt"
        self.case, self.d = case, d
        norm = (lambda: nn.LayerNorm(h)) if gpt else (lambda: RMSNorm(h))
        self.norm1, self.norm2 = norm(), norm()
        self.q = nn.Linear(h, case.heads * d, bias=gpt)
        self.k = nn.Linear(h, case.kv_heads * d, bias=gpt)
        self.v = nn.Linear(h, case.kv_heads * d, bias=gpt)
        self.o = nn.Linear(case.heads * d, h, bias=gpt)
        if gpt:
            self.up, self.down = nn.Linear(h, case.intermediate), nn.Linear(case.intermediate, h)
        else:
            self.gate = nn.Linear(h, case.intermediate, bias=False)
            self.up = nn.Linear(h, case.intermediate, bias=False)
            self.down = nn.Linear(case.intermediate, h, bias=False)
        self.drop = Dropout(0.1 if case.dropout else 0.0)

    def attention(self, y: torch.Tensor) -> torch.Tensor:
        case, d = self.case, self.d
        b, s, _ = y.shape
        q = self.q(y).view(b, s, case.heads, d).transpose(1, 2)
        k = self.k(y).view(b, s, case.kv_heads, d).transpose(1, 2)
        v = self.v(y).view(b, s, case.kv_heads, d).transpose(1, 2)
        if case.attention == EAGER:
            groups = case.heads // case.kv_heads
            if groups > 1:  # as transformers' repeat_kv
                k, v = k.repeat_interleave(groups, dim=1), v.repeat_interleave(groups, dim=1)
            scores = torch.matmul(q, k.transpose(-1, -2)) * (d ** -0.5)
            causal = torch.full((s, s), float("-inf"), dtype=scores.dtype).triu(1)  # added, as transformers does
            probs = self.drop(torch.softmax(scores + causal, dim=-1))
            out = torch.matmul(probs, v)
        else:
            out = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=case.heads != case.kv_heads)
        return self.o(out.transpose(1, 2).reshape(b, s, case.heads * d))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.drop(self.attention(self.norm1(x)))
        y = self.norm2(x)
        gpt = self.case.style == "gpt"
        out = self.down(F.gelu(self.up(y))) if gpt else self.down(F.silu(self.gate(y)) * self.up(y))
        return x + self.drop(out)


class Model(nn.Module):
    def __init__(self, case: Case) -> None:
        super().__init__()
        self.embed = nn.Embedding(case.vocab, case.hidden)
        self.layers = nn.ModuleList(Layer(case) for _ in range(case.layers))
        self.norm = nn.LayerNorm(case.hidden) if case.style == "gpt" else RMSNorm(case.hidden)
        self.head = nn.Linear(case.hidden, case.vocab, bias=False)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens)
        for layer in self.layers:
            x = layer(x)
        logits = self.head(self.norm(x)).float()  # as transformers does before the loss
        return F.cross_entropy(logits.view(-1, logits.shape[-1]), tokens.view(-1))


def measure(case: Case) -> int:
    """Bytes autograd keeps for backward: each storage once, the weights left out."""
    torch.manual_seed(0)
    model = Model(case).to(DTYPES[case.dtype]).train()
    weights = {p.untyped_storage().data_ptr() for p in model.parameters()}
    kept: dict[int, int] = {}

    def pack(tensor: torch.Tensor) -> torch.Tensor:
        storage = tensor.untyped_storage()
        if storage.data_ptr() not in weights:
            kept[storage.data_ptr()] = storage.nbytes()
        return tensor

    tokens = torch.randint(0, case.vocab, (case.batch, case.sequence))
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        loss = model(tokens)
    loss.backward()
    return sum(kept.values())


def predicted(case: Case) -> int:
    shape = Shape(
        layers=case.layers, hidden=case.hidden, heads=case.heads, kv_heads=case.kv_heads,
        head_dim=case.hidden // case.heads, intermediate=case.intermediate, gated=case.style == "llama",
        vocab=case.vocab, sequence=case.sequence, micro_batch=case.batch,
        precision=2 if case.dtype == "bf16" else 4, loss_precision=4, flash=case.attention == FLASH,
        dropout=case.dropout, norm_fp32=case.norm_fp32, tensor_parallel=1, sequence_parallel=False,
        checkpointing=NONE,
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
        print(f"| {case.name} | {case.layers} | {case.hidden} | {case.heads}/{case.kv_heads} | {case.intermediate} |"
              f" {case.sequence} | {case.batch} | {case.dtype} | {estimated / 1e6:.2f} | {measured / 1e6:.2f} |"
              f" {error * 100:+.1f} % |")
    worst = max(rows, key=lambda row: abs(row[3]))
    print(f"\nlargest relative difference: {worst[3] * 100:+.1f} % ({worst[0].name}, s = {worst[0].sequence});"
          f" PyTorch {torch.__version__}")


if __name__ == "__main__":
    main()
