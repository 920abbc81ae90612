"""Public architectures, as data: the values of each model's ``config.json``, with its source.

Shared by every calculator that asks for a model's shape. Adding a model is one entry.
``parameters()`` counts the weights from the architecture alone (embeddings,
attention, MLP, norms, biases, head, tied or not); tests check it against the
count each publisher states.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from .model import Preset
from .numbers import format_field

GATED = "gated"  # SwiGLU/GeGLU: gate_proj, up_proj, down_proj
PLAIN = "plain"  # two matrices with GELU between them (GPT-2, GPT-3, OPT, BLOOM…)


@dataclass(frozen=True)
class Architecture:
    """A decoder-only transformer as its config describes it.

    ``head_dim`` is the config's own where it sets one (Gemma, Qwen3…), else hidden / heads.
    ``qkv_bias``/``bias``: biases on the query/key/value projections only, or on every linear layer.
    ``qk_norm``: a norm of size head_dim on queries and keys (Qwen3). ``norm_bias``: LayerNorm (with a bias)
    rather than RMSNorm.
    """

    id: str
    label: str
    layers: int
    hidden: int
    intermediate: int
    heads: int
    kv_heads: int
    vocab: int
    source: str
    head_dim: int = 0
    mlp: str = GATED
    tied: bool = False
    qkv_bias: bool = False
    bias: bool = False
    norm_bias: bool = False
    qk_norm: bool = False
    norms_per_layer: int = 2  # Gemma 2/3 also normalise after attention and after the MLP: 4
    positions: int = 0  # learned position embeddings (GPT-2, OPT), if any
    stated_parameters: int = 0  # as the publisher states it (model card, or safetensors metadata)

    @property
    def dim(self) -> int:
        """The head dimension actually used."""
        return self.head_dim or self.hidden // self.heads

    def parameters(self) -> int:
        """Every weight of the model, from its shape."""
        h, d, i = self.hidden, self.dim, self.intermediate
        q, kv = self.heads * d, self.kv_heads * d
        attention = h * q + 2 * h * kv + q * h
        if self.bias:
            attention += q + 2 * kv + h
        elif self.qkv_bias:
            attention += q + 2 * kv
        mlp = (3 if self.mlp == GATED else 2) * h * i
        if self.bias:
            mlp += (2 * i if self.mlp == GATED else i) + h
        norm = 2 * h if self.norm_bias else h
        layer = attention + mlp + self.norms_per_layer * norm + (2 * d if self.qk_norm else 0)
        embeddings = self.vocab * h + self.positions * h
        head = 0 if self.tied else self.vocab * h
        return embeddings + self.layers * layer + norm + head


def model(model_id: str) -> Architecture:
    """The catalogue's entry with this id; KeyError if there is none."""
    for entry in MODELS:
        if entry.id == model_id:
            return entry
    raise KeyError(model_id)


def field_texts(entry: Architecture) -> dict[str, str]:
    """The entry as the calculators' fields read it (a calculator takes the fields it has)."""
    billions = Decimal(entry.stated_parameters or entry.parameters()) / 10**9
    return {
        "layers": str(entry.layers), "hidden_size": str(entry.hidden), "attention_heads": str(entry.heads),
        "kv_heads": str(entry.kv_heads), "head_dim": str(entry.dim), "intermediate_size": str(entry.intermediate),
        "mlp": entry.mlp, "vocab_size": str(entry.vocab),
        "total_parameters_billion": format_field(billions), "parameters_billion": format_field(billions),
    }


def preset(model_id: str) -> Preset:
    """A catalogue entry as a calculator's preset button (the calculator takes the fields it has)."""
    entry = model(model_id)
    return Preset(entry.id, entry.label, field_texts(entry))


def _hf(repo: str) -> str:
    return f"https://huggingface.co/{repo}/blob/main/config.json"


MODELS: tuple[Architecture, ...] = (
    Architecture("llama-2-7b", "Llama 2 7B", 32, 4096, 11008, 32, 32, 32000, _hf("meta-llama/Llama-2-7b-hf"),
                 stated_parameters=6_738_415_616),
    Architecture("llama-2-13b", "Llama 2 13B", 40, 5120, 13824, 40, 40, 32000, _hf("meta-llama/Llama-2-13b-hf"),
                 stated_parameters=13_015_864_320),
    Architecture("llama-3.1-8b", "Llama 3.1 8B", 32, 4096, 14336, 32, 8, 128256, _hf("meta-llama/Llama-3.1-8B"),
                 stated_parameters=8_030_261_248),
    Architecture("llama-3.2-1b", "Llama 3.2 1B", 16, 2048, 8192, 32, 8, 128256, _hf("meta-llama/Llama-3.2-1B"),
                 head_dim=64, tied=True, stated_parameters=1_235_814_400),
    Architecture("llama-3.2-3b", "Llama 3.2 3B", 28, 3072, 8192, 24, 8, 128256, _hf("meta-llama/Llama-3.2-3B"),
                 head_dim=128, tied=True, stated_parameters=3_212_749_824),
    Architecture("mistral-7b", "Mistral 7B v0.1", 32, 4096, 14336, 32, 8, 32000, _hf("mistralai/Mistral-7B-v0.1"),
                 stated_parameters=7_241_732_096),
    Architecture("qwen2.5-0.5b", "Qwen2.5 0.5B", 24, 896, 4864, 14, 2, 151936, _hf("Qwen/Qwen2.5-0.5B"),
                 tied=True, qkv_bias=True, stated_parameters=494_032_768),
    Architecture("qwen2.5-7b", "Qwen2.5 7B", 28, 3584, 18944, 28, 4, 152064, _hf("Qwen/Qwen2.5-7B"),
                 qkv_bias=True, stated_parameters=7_615_616_512),
    Architecture("qwen3-8b", "Qwen3 8B", 36, 4096, 12288, 32, 8, 151936, _hf("Qwen/Qwen3-8B"),
                 head_dim=128, qk_norm=True, stated_parameters=8_190_735_360),
    Architecture("gemma-2-2b", "Gemma 2 2B", 26, 2304, 9216, 8, 4, 256000, _hf("google/gemma-2-2b"),
                 head_dim=256, tied=True, norms_per_layer=4, stated_parameters=2_614_341_888),
    Architecture("gpt2", "GPT-2 (124M)", 12, 768, 3072, 12, 12, 50257, _hf("openai-community/gpt2"),
                 mlp=PLAIN, tied=True, bias=True, norm_bias=True, positions=1024, stated_parameters=124_439_808),
)
