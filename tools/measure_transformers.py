"""Measure the activation memory of Transformers' own models, one small model per family of the catalogue.

For each family (and each mixture-of-experts, shared-expert, q/k-norm or MLP variant) this shrinks a catalogue
entry (2 layers, hidden size 256, 4 heads, its own key/value grouping, head size, norms, activation and biases),
builds it with Transformers in bf16 with eager attention and no dropout, runs one forward pass with labels and
counts the bytes autograd keeps for the backward pass (each storage once, the weights left out), as
measure_activations.py does for its own layers. Beside each figure it prints the activation page's answer for
the same shape, with the catalogue's choices for that family (norms, activation, fp32 softmax, soft-capping).
``--json FILE`` records the figures for tests/llm/test_transformers_activations.py.

Not part of scripts/test: it needs PyTorch, Transformers and PEFT (see tools/measure_env.py).

With ``--sequence N --window W`` (and ``--only``) it measures on N tokens with the sliding-window layers' window set
to W: in eager attention the window is a mask over the full score matrix, so the page's figure, which has no window,
must still match. Such rows are kept beside the usual ones.

With ``--attention flash_attention_2`` the model runs Transformers' FlashAttention 2 path (what it does around the
kernel: DeepSeek's latent attention pads each value to the key's width and copies the output's slice for o_proj)
with the kernel stood in for by a function that keeps what flash_attn's keeps (contiguous q, k, v, the output and the
fp32 log-sum-exp per row; flash_attn needs CUDA). Such rows are kept beside the usual ones, with their ``attention``.

Usage: python3 tools/measure_transformers.py [--json tests/data/transformers_activations.json] [--only ID …]
       [--sequence N] [--window W] [--attention eager|flash_attention_2]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tools.measure_env import TRANSFORMERS_PINS as PINNED  # noqa: E402
from tools.measure_env import bootstrap  # noqa: E402

try:
    import torch
    import transformers

    from tools.measure_activations import kept_for_backward
    from tools.peft_check import config_of
except ImportError:
    if __name__ == "__main__":
        bootstrap(__file__, PINNED)
    raise

from calculator.llm.activation_memory import EAGER, FLASH_TRANSFORMERS  # noqa: E402
from calculator.llm.catalogue import MODELS, Architecture  # noqa: E402
from tools.transformers_shapes import BATCH, DECODER, ENCODER, page_bytes, tiny  # noqa: E402

DROPOUTS = ("dropout", "attention_dropout", "hidden_dropout", "dropout_rate", "resid_pdrop", "embd_pdrop",
            "attn_pdrop", "activation_dropout")


class _FlashKernel(torch.autograd.Function):
    """Stands in for flash_attn's kernel: causal attention on (batch, sequence, heads, width) inputs, keeping what
    flash_attn's FlashAttnFunc keeps for backward (q, k, v, the output, the fp32 log-sum-exp of each row)."""

    @staticmethod
    def forward(ctx: Any, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, scale: float) -> torch.Tensor:
        with torch.no_grad():  # grouped keys and values serve their query heads without being kept repeated
            groups = q.shape[2] // k.shape[2]
            keys, values = (t.float().repeat_interleave(groups, dim=2) for t in (k, v))
            scores = torch.einsum("bqhd,bkhd->bhqk", q.float(), keys) * scale
            length = q.shape[1]
            scores.masked_fill_(torch.ones(length, length, dtype=torch.bool).triu(1), float("-inf"))
            lse = torch.logsumexp(scores, dim=-1)
            out = torch.einsum("bhqk,bkhd->bqhd", torch.softmax(scores, dim=-1), values).to(q.dtype).contiguous()
        ctx.save_for_backward(q, k, v, out, lse)
        return out

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, ...]:  # values unused: memory is measured
        q, k, v, _, _ = ctx.saved_tensors
        return torch.zeros_like(q), torch.zeros_like(k), torch.zeros_like(v), None


def _flash_attention(module: Any, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, *args: Any,
                     scaling: float | None = None, **kwargs: Any) -> tuple[torch.Tensor, None]:
    """Transformers' flash_attention_2 interface: (batch, heads, sequence, width) in, (batch, sequence, heads,
    width) out; flash_attn reads grouped keys and values as they are and makes its inputs contiguous."""
    q, k, v = (tensor.transpose(1, 2).contiguous() for tensor in (query, key, value))
    scale = scaling if scaling is not None else query.shape[-1] ** -0.5
    return _FlashKernel.apply(q, k, v, scale), None


def measure(entry: Architecture, sequence: int = DECODER, window: int = 0, attention: str = EAGER) -> int:
    """Bytes autograd keeps for one training step's backward pass of the small model, on ``sequence`` tokens;
    ``window``: the sliding window of the config's sliding-window layers (Gemma 2 and 3, gpt-oss), if set;
    ``attention``: eager, or Transformers' flash_attention_2 path around a stand-in kernel (``_flash_attention``)."""
    config, auto = config_of(entry)
    if window:
        if not getattr(config, "sliding_window", None):
            raise SystemExit(f"{entry.id}: its Transformers config has no sliding window")
        config.sliding_window = window
    if getattr(config, "n_group", None):  # DeepSeek-V3's expert groups: one, among the shrunk model's few experts
        config.n_group = config.topk_group = 1
    config._attn_implementation = EAGER
    config.pad_token_id = config.decoder_start_token_id = 0
    for name in DROPOUTS:
        if hasattr(config, name):
            setattr(config, name, 0.0)
    torch.manual_seed(0)
    model = auto.from_config(config).to(torch.bfloat16).train()
    if attention == FLASH_TRANSFORMERS:  # set after building: Transformers checks for flash_attn when it builds
        from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS

        ALL_ATTENTION_FUNCTIONS[FLASH_TRANSFORMERS] = _flash_attention
        model.config._attn_implementation = FLASH_TRANSFORMERS
    labels = torch.randint(0, entry.vocab, (BATCH, sequence))
    inputs: dict[str, Any] = {"labels": labels}
    if entry.family == "Whisper":  # two frames per position: the encoder's convolution halves them
        inputs["input_features"] = torch.randn(BATCH, entry.mel_bins, 2 * ENCODER, dtype=torch.bfloat16)
    else:
        inputs["input_ids"] = torch.randint(0, entry.vocab, (BATCH, ENCODER)) if entry.decoder_layers else labels
    return kept_for_backward(model, lambda: model(**inputs).loss)


def representatives() -> list[Architecture]:
    """One catalogue entry per family and variant."""
    seen, chosen = set(), []
    for entry in MODELS:
        key = (entry.family, entry.experts > 0, entry.shared_intermediate > 0, entry.mlp, entry.qk_norm,
               entry.sigmoid_router)
        if key not in seen:
            seen.add(key)
            chosen.append(entry)
    return chosen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--only", nargs="*", default=[], help="these catalogue ids only; --json then keeps the"
                                                               " file's rows of the other models (without it,"
                                                               " those of other sequences and windows)")
    parser.add_argument("--sequence", type=int, default=DECODER, help="tokens per sample (of the decoder)")
    parser.add_argument("--window", type=int, default=0, help="the sliding window of the configs that have one"
                                                              " (Gemma 2 and 3, gpt-oss; default: the config's)")
    parser.add_argument("--attention", choices=(EAGER, FLASH_TRANSFORMERS), default=EAGER,
                        help="attn_implementation (flash_attention_2: around a stand-in kernel, see above)")
    args = parser.parse_args()
    rows = []
    print("| model (shrunk) | measured MB | page MB | difference |")
    print("|---|---|---|---|")
    chosen = [entry for entry in MODELS if entry.id in args.only] if args.only else representatives()
    for entry in chosen:
        small = tiny(entry)
        measured = measure(small, args.sequence, args.window, args.attention)
        estimated = page_bytes(small, args.sequence, args.attention)
        # A longer sequence, a window or an attention of its own makes a row of its own (beside the usual one).
        extra: dict[str, Any] = {"sequence": args.sequence} if args.sequence != DECODER else {}
        extra.update({"window": args.window} if args.window else {})
        extra.update({"attention": args.attention} if args.attention != EAGER else {})
        rows.append({"model": entry.id, **extra, "measured": measured, "estimated": estimated})
        print(f"| {entry.id} | {measured / 1e6:.3f} | {estimated / 1e6:.3f} |"
              f" {(estimated - measured) / measured * 100:+.1f} % |")
    print(f"\nTransformers {transformers.__version__}, PyTorch {torch.__version__}")
    if args.json:
        versions = {"transformers": transformers.__version__, "torch": torch.__version__}
        if args.json.exists():  # --only: the other rows; else the rows of another sequence or window
            new, run = {_key(row) for row in rows}, (args.sequence, args.window, args.attention)
            kept = [row for row in json.loads(args.json.read_text())["rows"]
                    if _key(row) not in new and (args.only or _key(row)[1:] != run)]
            order = {entry.id: n for n, entry in enumerate(MODELS)}
            rows = sorted(kept + rows, key=lambda row: (order.get(row["model"], len(order)), *_key(row)[1:]))
        args.json.write_text(json.dumps({**versions, "rows": rows}, indent=1) + "\n")


def _key(row: dict[str, Any]) -> tuple[str, int, int, str]:
    return row["model"], row.get("sequence", DECODER), row.get("window", 0), row.get("attention", EAGER)


if __name__ == "__main__":
    main()
