"""Public architectures, as data: the values of each model's ``config.json``, with its source.

Shared by every calculator that asks for a model's shape. Adding a model is one entry.
``parameters()`` counts the weights from the architecture alone (embeddings,
attention, MLP, norms, biases, head, tied or not); tests check it against the
count each publisher states.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

from .model import Preset

GATED = "gated"  # SwiGLU/GeGLU: gate_proj, up_proj, down_proj
PLAIN = "plain"  # two matrices with GELU between them (GPT-2, GPT-3, OPT, BLOOM…)
FUSED_GATE_UP = "gate_up"  # gated, with gate and up in one matrix (Phi-3's gate_up_proj)
SEPARATE, FUSED_QKV = "separate", "fused"  # query, key and value in three matrices, or in one
# How a family's norms keep their input, and its MLP activation, as the activation page counts them.
LLAMA_NORM, GEMMA_NORM, T5_NORM, FUSED_NORM = "llama", "gemma", "t5", "fuso"
FUSED_ACTIVATION, GELU_NEW, RELU = "fusa", "gelu_new", "relu"


@dataclass(frozen=True)
class Architecture:
    """A transformer as its config describes it: decoder-only, or encoder–decoder when ``decoder_layers``
    is set (then ``layers`` counts the encoder's, and each decoder layer adds cross-attention).

    ``head_dim`` is the config's own where it sets one (Gemma, Qwen3, T5's d_kv…), else hidden / heads.
    ``qkv_bias``/``bias``: biases on the query/key/value projections only, or on every linear layer
    (``k_bias=False``: all but the key projection, as in Whisper). ``qk_norm``: a norm of size head_dim on
    queries and keys (Qwen3, Gemma 3). ``norm_bias``: LayerNorm (with a bias) rather than RMSNorm.
    ``fused_qkv``/``fused_gate_up``: the names of fused projections (one matrix for query, key and value;
    one for gate and up), which LoRA adapts as one matrix. Mixture of experts: ``experts`` MLPs of size
    ``expert_intermediate`` per layer, ``experts_per_token`` of them used per token, a router
    (hidden × experts) and optionally shared experts of total size ``shared_intermediate``.
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
    family: str = ""
    head_dim: int = 0
    mlp: str = GATED
    tied: bool = False
    qkv_bias: bool = False
    bias: bool = False
    k_bias: bool = True
    norm_bias: bool = False
    qk_norm: bool = False
    norms_per_layer: int = 2  # Gemma 2/3 also normalise after attention and after the MLP: 4; Falcon: 1
    final_norm: bool = True
    embed_norm: bool = False  # a norm right after the embeddings (BLOOM)
    embed_proj: int = 0  # embeddings of another size, projected in and out (OPT-350m's word_embed_proj_dim)
    positions: int = 0  # learned position embeddings (GPT-2, OPT, Whisper's decoder), if any
    fused_qkv: str = ""
    fused_gate_up: str = ""
    experts: int = 0
    experts_per_token: int = 0
    expert_intermediate: int = 0
    shared_intermediate: int = 0
    shared_gate: bool = False
    decoder_layers: int = 0
    relative_buckets: int = 0  # T5's relative attention bias, in the first layer of each stack
    encoder_positions: int = 0  # Whisper's encoder position table (a parameter, though fixed)
    mel_bins: int = 0  # a speech encoder's two convolutions over log-mel features (Whisper)
    stated_parameters: int = 0  # as the publisher states it (model card, safetensors metadata or PEFT's printout)
    stated_source: str = ""  # where the stated count comes from, when not the config's page

    @property
    def dim(self) -> int:
        """The head dimension actually used."""
        return self.head_dim or self.hidden // self.heads

    @property
    def encoder_decoder(self) -> bool:
        return self.decoder_layers > 0

    @property
    def norm_style(self) -> str:
        """How the family's norms keep their input in transformers (the activation page's choice): LayerNorm is
        one kernel; RMSNorm computes in fp32 (Gemma's keeps its output in fp32 too, T5's keeps the input)."""
        if self.norm_bias:
            return FUSED_NORM
        return {"Gemma": GEMMA_NORM, "T5": T5_NORM}.get(self.family, LLAMA_NORM)

    @property
    def activation_impl(self) -> str:
        """gelu_new, transformers' tanh GELU written out in Python, for GPT-2 and the gated T5s; ReLU for OPT and
        the first T5s; else one fused op."""
        if self.family == "GPT-2" or (self.family == "T5" and self.mlp == GATED):
            return GELU_NEW
        return RELU if self.family in ("OPT", "T5") else FUSED_ACTIVATION

    @property
    def softmax_fp32(self) -> bool:
        """Whether transformers' eager attention of the family computes the softmax in fp32 and casts it back."""
        return self.family not in ("GPT-2", "Whisper", "Falcon")

    @property
    def moe(self) -> bool:
        return self.experts > 0

    def attention_biases(self) -> int:
        q, kv = self.heads * self.dim, self.kv_heads * self.dim
        if self.bias:
            return q + (kv if self.k_bias else 0) + kv + self.hidden
        return q + 2 * kv if self.qkv_bias else 0

    def attention(self) -> int:
        """Query, key, value and output projections (with their biases and q/k norms)."""
        h, d = self.hidden, self.dim
        q, kv = self.heads * d, self.kv_heads * d
        return h * q + 2 * h * kv + q * h + self.attention_biases() + (2 * d if self.qk_norm else 0)

    def mlp_biases(self, inner: int) -> int:
        return (2 * inner if self.mlp == GATED else inner) + self.hidden if self.bias else 0

    def dense_mlp(self, inner: int) -> int:
        return (3 if self.mlp == GATED else 2) * self.hidden * inner + self.mlp_biases(inner)

    def _block(self, mlp: Callable[[int], int]) -> int:
        """The layer's MLP as ``mlp`` counts it (weights or biases): dense, or the experts and shared experts."""
        if not self.moe:
            return mlp(self.intermediate)
        return self.experts * mlp(self.expert_intermediate) + (mlp(self.shared_intermediate)
                                                               if self.shared_intermediate else 0)

    def mlp_block(self) -> int:
        """The layer's MLP: dense, or the experts with their router and shared experts."""
        if not self.moe:
            return self._block(self.dense_mlp)
        router = self.hidden * self.experts + (self.hidden if self.shared_gate else 0)
        return self._block(self.dense_mlp) + router

    @property
    def norm(self) -> int:
        return 2 * self.hidden if self.norm_bias else self.hidden

    def _stacks(self, attention: int, block: int, norm: int) -> int:
        """Every layer of the encoder (or the only stack) and of the decoder (with cross-attention), and each
        stack's final norm, from one layer's attention, MLP and norm."""
        total = self.layers * (attention + block + self.norms_per_layer * norm)
        total += self.decoder_layers * (2 * attention + block + (self.norms_per_layer + 1) * norm)
        return total + self.stacks * (norm if self.final_norm else 0)

    @property
    def stacks(self) -> int:
        return 2 if self.encoder_decoder else 1

    def biases(self) -> int:
        """Every bias of the model, norms' included (what PEFT's bias="all" trains)."""
        h = self.hidden
        norm = h if self.norm_bias else 0
        total = self._stacks(self.attention_biases(), self._block(self.mlp_biases), norm)
        return total + (norm if self.embed_norm else 0) + (2 * h if self.mel_bins else 0)

    def largest_layer(self) -> int:
        """Parameters of the largest single module (what ZeRO-3 gathers whole on each GPU): usually the
        embedding, else the widest projection or one expert's matrix."""
        h, width = self.hidden, self.embed_proj or self.hidden
        inner = self.expert_intermediate if self.moe else self.intermediate
        q, kv = self.heads * self.dim, self.kv_heads * self.dim
        candidates = [self.vocab * width, h * inner * (2 if self.fused_gate_up else 1),
                      h * (q + 2 * kv) if self.fused_qkv else h * q]
        return max(candidates)

    def parameters(self) -> int:
        """Every weight of the model, from its shape."""
        h = self.hidden
        width = self.embed_proj or h
        total = self.vocab * width + (2 * h * self.embed_proj if self.embed_proj else 0)
        total += (self.positions + self.encoder_positions) * h + (self.norm if self.embed_norm else 0)
        if self.mel_bins:
            total += self.mel_bins * h * 3 + h + h * h * 3 + h
        total += self._stacks(self.attention(), self.mlp_block(), self.norm)
        total += self.stacks * self.relative_buckets * self.heads
        return total + (0 if self.tied else self.vocab * width)


def model(model_id: str) -> Architecture:
    """The catalogue's entry with this id; KeyError if there is none."""
    for entry in MODELS:
        if entry.id == model_id:
            return entry
    raise KeyError(model_id)


T5_INPUT = 512


def field_texts(entry: Architecture) -> dict[str, str]:
    """The entry as the calculators' fields read it (a calculator takes the fields it has)."""
    count = entry.parameters()
    billions = _six_decimals(Decimal(count) / 10**9)
    mlp_layout = FUSED_GATE_UP if entry.fused_gate_up else entry.mlp
    return {
        "layers": str(entry.layers), "hidden_size": str(entry.hidden), "attention_heads": str(entry.heads),
        "kv_heads": str(entry.kv_heads), "head_dim": str(entry.dim),
        # A mixture of experts: the size of each expert's MLP.
        "intermediate_size": str(entry.expert_intermediate if entry.moe else entry.intermediate),
        "mlp": entry.mlp, "vocab_size": str(entry.vocab),
        "total_parameters_billion": billions, "parameters_billion": billions,
        "largest_layer_million": _six_decimals(Decimal(entry.largest_layer()) / 10**6),
        "base_parameters": str(count),
        "attention_layout": FUSED_QKV if entry.fused_qkv else SEPARATE, "mlp_layout": mlp_layout,
        "experts": str(entry.experts), "shared_intermediate_size": str(entry.shared_intermediate),
        "decoder_layers": str(entry.decoder_layers), "experts_per_token": str(entry.experts_per_token),
        "norms": entry.norm_style, "activation_impl": entry.activation_impl,
        "softmax_fp32": "on" if entry.softmax_fp32 else "", "qk_norm": "on" if entry.qk_norm else "",
        "post_norms": "on" if entry.norms_per_layer == 4 else "",
        "softcap": "on" if entry.family == "Gemma" and not entry.qk_norm else "",  # Gemma 2, not Gemma 3
        "relative_positions": "on" if entry.relative_buckets else "", "mel_bins": str(entry.mel_bins),
        "parallel_block": "on" if entry.norms_per_layer == 1 else "", "embed_norm": "on" if entry.embed_norm else "",
        # T5 and Whisper compute the cross-entropy on the logits as they are; the causal models' loss upcasts them.
        "loss_fp32": "" if entry.family in ("T5", "Whisper") else "on",
        # What the encoder reads: Whisper's 1500 frames (30 s of audio); T5's n_positions, the input length it was
        # pre-trained with.
        "encoder_sequence": str(entry.encoder_positions or (T5_INPUT if entry.decoder_layers else 0)),
        "linear_bias": ("all" if entry.k_bias else "all_but_k") if entry.bias else "qkv" if entry.qkv_bias else "none",
        "model_biases": str(entry.biases()),
    }


def _six_decimals(value: Decimal) -> str:
    """A field's text as exact as the fields accept (six decimals: a thousand parameters in billions)."""
    text = f"{value.quantize(Decimal('0.000001')):f}".rstrip("0").rstrip(".")
    return text.replace(".", ",")


def preset(model_id: str, group: str = "Compila con un modello:") -> Preset:
    """A catalogue entry as a calculator's preset button (the calculator takes the fields it has)."""
    entry = model(model_id)
    return Preset(entry.id, entry.label, field_texts(entry), group)


def _hf(repo: str) -> str:
    return f"https://huggingface.co/{repo}/blob/main/config.json"


PEFT = "https://github.com/huggingface/peft/blob/5d602fdbff04c33c1c4de55cda9d4ae1d7cb7e40/"
# bigscience/bloomz-7b1 printed by a notebook PEFT later removed (February 2023).
PEFT_2023 = "https://github.com/huggingface/peft/blob/462b65fe4582b7f5c3b565f9913f81fa01dc30a5/"
# LoRA notebooks of the self-llm tutorials, which print PEFT's line with "all params" (July 2026).
SELF_LLM = "https://github.com/datawhalechina/self-llm/blob/0932a89b0fd8e7a9844874eceb8ec993d6570d78/"
# "2851M total params, 32M largest layer params" and the memory it prints for the live model.
DEEPSPEED_MEMORY = ("https://github.com/deepspeedai/DeepSpeed/blob/edaa7221267243c7be7fb49c5d5f5c4fb97b4641/"
                    "docs/code-docs/source/memory.rst")


MODELS: tuple[Architecture, ...] = (
    # Llama
    Architecture("llama-2-7b", "Llama 2 7B", 32, 4096, 11008, 32, 32, 32000, _hf("meta-llama/Llama-2-7b-hf"),
                 "Llama", stated_parameters=6_738_415_616),
    Architecture("llama-2-13b", "Llama 2 13B", 40, 5120, 13824, 40, 40, 32000, _hf("meta-llama/Llama-2-13b-hf"),
                 "Llama", stated_parameters=13_015_864_320),
    Architecture("llama-3.1-8b", "Llama 3.1 8B", 32, 4096, 14336, 32, 8, 128256, _hf("meta-llama/Llama-3.1-8B"),
                 "Llama", stated_parameters=8_030_261_248,
                 stated_source=SELF_LLM + "models/Llama3_1/04-LLaMA3_1-8B-Instruct%20Lora.ipynb"),
    Architecture("llama-3.1-70b", "Llama 3.1 70B", 80, 8192, 28672, 64, 8, 128256, _hf("meta-llama/Llama-3.1-70B"),
                 "Llama", stated_parameters=70_553_706_496),
    Architecture("llama-3.2-1b", "Llama 3.2 1B", 16, 2048, 8192, 32, 8, 128256, _hf("meta-llama/Llama-3.2-1B"),
                 "Llama", head_dim=64, tied=True, stated_parameters=1_235_814_400,
                 stated_source=PEFT + "docs/source/quicktour.md"),
    Architecture("llama-3.2-3b", "Llama 3.2 3B", 28, 3072, 8192, 24, 8, 128256, _hf("meta-llama/Llama-3.2-3B"),
                 "Llama", head_dim=128, tied=True, stated_parameters=3_212_749_824),
    # Mistral
    Architecture("mistral-7b", "Mistral 7B v0.1", 32, 4096, 14336, 32, 8, 32000, _hf("mistralai/Mistral-7B-v0.1"),
                 "Mistral", stated_parameters=7_241_732_096),
    Architecture("mistral-nemo-12b", "Mistral NeMo 12B", 40, 5120, 14336, 32, 8, 131072,
                 _hf("mistralai/Mistral-Nemo-Base-2407"), "Mistral", head_dim=128, stated_parameters=12_247_782_400),
    Architecture("mixtral-8x7b", "Mixtral 8x7B", 32, 4096, 14336, 32, 8, 32000, _hf("mistralai/Mixtral-8x7B-v0.1"),
                 "Mistral", experts=8, experts_per_token=2, expert_intermediate=14336,
                 stated_parameters=46_702_792_704, stated_source=PEFT + "examples/KappaTune/README.md"),
    # Qwen
    Architecture("qwen2.5-0.5b", "Qwen2.5 0.5B", 24, 896, 4864, 14, 2, 151936, _hf("Qwen/Qwen2.5-0.5B"),
                 "Qwen", tied=True, qkv_bias=True, stated_parameters=494_032_768),
    Architecture("qwen2.5-3b", "Qwen2.5 3B", 36, 2048, 11008, 16, 2, 151936, _hf("Qwen/Qwen2.5-3B-Instruct"),
                 "Qwen", tied=True, qkv_bias=True, stated_parameters=3_085_938_688, stated_source=PEFT + "README.md"),
    Architecture("qwen2.5-7b", "Qwen2.5 7B", 28, 3584, 18944, 28, 4, 152064, _hf("Qwen/Qwen2.5-7B"),
                 "Qwen", qkv_bias=True, stated_parameters=7_615_616_512,
                 stated_source=SELF_LLM + "models/Qwen2.5/05-Qwen2.5-7B-Instruct%20Lora%20.ipynb"),
    Architecture("qwen3-8b", "Qwen3 8B", 36, 4096, 12288, 32, 8, 151936, _hf("Qwen/Qwen3-8B"),
                 "Qwen", head_dim=128, qk_norm=True, stated_parameters=8_190_735_360,
                 stated_source=SELF_LLM + "models/Qwen3/05-Qwen3-8B-LoRA.ipynb"),
    Architecture("qwen1.5-moe-a2.7b", "Qwen1.5-MoE-A2.7B", 24, 2048, 5632, 16, 16, 151936,
                 _hf("Qwen/Qwen1.5-MoE-A2.7B"), "Qwen", qkv_bias=True, experts=60, experts_per_token=4,
                 expert_intermediate=1408, shared_intermediate=5632, shared_gate=True,
                 stated_parameters=14_315_784_192),
    Architecture("qwen3-30b-a3b", "Qwen3 30B-A3B", 48, 2048, 6144, 32, 4, 151936, _hf("Qwen/Qwen3-30B-A3B"),
                 "Qwen", head_dim=128, qk_norm=True, experts=128, experts_per_token=8, expert_intermediate=768,
                 stated_parameters=30_532_122_624, stated_source=SELF_LLM + "models/Qwen3/"
                 "06-Qwen3-30B-A3B%20%E5%BE%AE%E8%B0%83%E5%8F%8A%20SwanLab%20%E5%8F%AF%E8%A7%86%E5%8C%96%E8%AE%B0%E5%BD%95.ipynb"),
    # Gemma
    Architecture("gemma-2-2b", "Gemma 2 2B", 26, 2304, 9216, 8, 4, 256000, _hf("google/gemma-2-2b"),
                 "Gemma", head_dim=256, tied=True, norms_per_layer=4, stated_parameters=2_614_341_888),
    Architecture("gemma-2-9b", "Gemma 2 9B", 42, 3584, 14336, 16, 8, 256000, _hf("google/gemma-2-9b"),
                 "Gemma", head_dim=256, tied=True, norms_per_layer=4, stated_parameters=9_241_705_984,
                 stated_source=SELF_LLM + "models/Gemma2/04-Gemma-2-9b-it%20peft%20lora%E5%BE%AE%E8%B0%83.ipynb"),
    Architecture("gemma-3-1b", "Gemma 3 1B", 26, 1152, 6912, 4, 1, 262144, _hf("google/gemma-3-1b-pt"),
                 "Gemma", head_dim=256, tied=True, qk_norm=True, norms_per_layer=4, stated_parameters=999_885_952),
    # Phi: query, key and value in one matrix, and gate and up in another
    Architecture("phi-3-mini", "Phi-3 mini 4k", 32, 3072, 8192, 32, 32, 32064,
                 _hf("microsoft/Phi-3-mini-4k-instruct"), "Phi", fused_qkv="qkv_proj", fused_gate_up="gate_up_proj",
                 stated_parameters=3_821_079_552,
                 stated_source=SELF_LLM + "models/phi-3/Phi-3-mini-4k-Instruct-Lora.ipynb"),
    Architecture("phi-4", "Phi-4 (14B)", 40, 5120, 17920, 40, 10, 100352, _hf("microsoft/phi-4"),
                 "Phi", fused_qkv="qkv_proj", fused_gate_up="gate_up_proj", stated_parameters=14_659_507_200,
                 stated_source=SELF_LLM + "models/phi4/04-Phi-4-Lora.ipynb"),
    # Falcon: multi-query attention fused in query_key_value, attention and MLP in parallel after one norm
    Architecture("falcon-7b", "Falcon 7B", 32, 4544, 18176, 71, 1, 65024, _hf("tiiuae/falcon-7b"),
                 "Falcon", mlp=PLAIN, tied=True, norm_bias=True, norms_per_layer=1, fused_qkv="query_key_value",
                 stated_parameters=6_921_720_704),
    # GPT-2: Conv1D layers, query/key/value fused in c_attn
    Architecture("gpt2", "GPT-2 (124M)", 12, 768, 3072, 12, 12, 50257, _hf("openai-community/gpt2"),
                 "GPT-2", mlp=PLAIN, tied=True, bias=True, norm_bias=True, positions=1024, fused_qkv="c_attn",
                 stated_parameters=124_439_808),
    Architecture("gpt2-medium", "GPT-2 Medium", 24, 1024, 4096, 16, 16, 50257, _hf("openai-community/gpt2-medium"),
                 "GPT-2", mlp=PLAIN, tied=True, bias=True, norm_bias=True, positions=1024, fused_qkv="c_attn",
                 stated_parameters=354_823_168),
    Architecture("gpt2-large", "GPT-2 Large", 36, 1280, 5120, 20, 20, 50257, _hf("openai-community/gpt2-large"),
                 "GPT-2", mlp=PLAIN, tied=True, bias=True, norm_bias=True, positions=1024, fused_qkv="c_attn",
                 stated_parameters=774_030_080, stated_source=PEFT + "src/peft/peft_model.py"),
    Architecture("gpt2-xl", "GPT-2 XL", 48, 1600, 6400, 25, 25, 50257, _hf("openai-community/gpt2-xl"),
                 "GPT-2", mlp=PLAIN, tied=True, bias=True, norm_bias=True, positions=1024, fused_qkv="c_attn",
                 stated_parameters=1_557_611_200),
    # OPT: learned positions (offset by 2), LayerNorm and biases everywhere
    Architecture("opt-125m", "OPT 125M", 12, 768, 3072, 12, 12, 50272, _hf("facebook/opt-125m"),
                 "OPT", mlp=PLAIN, tied=True, bias=True, norm_bias=True, positions=2050, stated_parameters=125_239_296),
    Architecture("opt-350m", "OPT 350M", 24, 1024, 4096, 16, 16, 50272, _hf("facebook/opt-350m"),
                 "OPT", mlp=PLAIN, tied=True, bias=True, norm_bias=True, positions=2050, embed_proj=512,
                 final_norm=False, stated_parameters=331_196_416,
                 stated_source=PEFT + "docs/source/guides/peft_model_config.md"),
    Architecture("opt-6.7b", "OPT 6.7B", 32, 4096, 16384, 32, 32, 50272, _hf("facebook/opt-6.7b"),
                 "OPT", mlp=PLAIN, tied=True, bias=True, norm_bias=True, positions=2050,
                 stated_parameters=6_658_473_984,
                 stated_source=PEFT + "examples/int8_training/Finetune_opt_bnb_peft.ipynb"),
    # BLOOM: ALiBi (no position table), a norm after the embeddings, query_key_value fused
    Architecture("bloom-560m", "BLOOM 560M", 24, 1024, 4096, 16, 16, 250880, _hf("bigscience/bloom-560m"),
                 "BLOOM", mlp=PLAIN, tied=True, bias=True, norm_bias=True, embed_norm=True,
                 fused_qkv="query_key_value", stated_parameters=559_214_592,
                 stated_source=PEFT + "docs/source/package_reference/prompt_tuning.md"),
    Architecture("bloom-7b1", "BLOOM 7B1 (e BLOOMZ)", 30, 4096, 16384, 32, 32, 250880, _hf("bigscience/bloom-7b1"),
                 "BLOOM", mlp=PLAIN, tied=True, bias=True, norm_bias=True, embed_norm=True,
                 fused_qkv="query_key_value", stated_parameters=7_069_016_064,
                 stated_source=PEFT_2023 + "examples/causal_language_modeling/"
                                           "peft_lora_clm_accelerate_big_model_inference.ipynb"),
    # T5: encoder–decoder, relative attention bias; v1.1 and Flan-T5/mT5 have a gated MLP and untied head
    Architecture("t5-large", "T5 Large", 24, 1024, 4096, 16, 16, 32128, _hf("google-t5/t5-large"),
                 "T5", head_dim=64, mlp=PLAIN, tied=True, decoder_layers=24, relative_buckets=32,
                 stated_parameters=737_668_096,
                 stated_source=PEFT + "examples/conditional_generation/peft_prompt_tuning_seq2seq.ipynb"),
    Architecture("t5-3b", "T5 3B", 24, 1024, 16384, 32, 32, 32128, _hf("google-t5/t5-3b"),
                 "T5", head_dim=128, mlp=PLAIN, tied=True, decoder_layers=24, relative_buckets=32,
                 stated_parameters=2_851_598_336, stated_source=DEEPSPEED_MEMORY),
    Architecture("flan-t5-base", "Flan-T5 Base", 12, 768, 2048, 12, 12, 32128, _hf("google/flan-t5-base"),
                 "T5", head_dim=64, decoder_layers=12, relative_buckets=32, stated_parameters=247_577_856),
    Architecture("flan-t5-large", "Flan-T5 Large", 24, 1024, 2816, 16, 16, 32128, _hf("google/flan-t5-large"),
                 "T5", head_dim=64, decoder_layers=24, relative_buckets=32, stated_parameters=783_150_080,
                 stated_source=PEFT + "examples/int8_training/Finetune_flan_t5_large_bnb_peft.ipynb"),
    Architecture("mt0-large", "mT0 Large", 24, 1024, 2816, 16, 16, 250112, _hf("bigscience/mt0-large"),
                 "T5", head_dim=64, decoder_layers=24, relative_buckets=32, stated_parameters=1_229_581_312,
                 stated_source=PEFT + "examples/conditional_generation/peft_ia3_seq2seq.ipynb"),
    # Whisper (speech): a convolutional front-end over log-mel features, encoder–decoder, no bias on k_proj
    Architecture("whisper-small", "Whisper small", 12, 768, 3072, 12, 12, 51865, _hf("openai/whisper-small"),
                 "Whisper", mlp=PLAIN, tied=True, bias=True, k_bias=False, norm_bias=True, positions=448,
                 encoder_positions=1500, mel_bins=80, decoder_layers=12, stated_parameters=241_734_912),
    Architecture("whisper-large-v2", "Whisper large-v2", 32, 1280, 5120, 20, 20, 51865,
                 _hf("openai/whisper-large-v2"), "Whisper", mlp=PLAIN, tied=True, bias=True, k_bias=False,
                 norm_bias=True, positions=448, encoder_positions=1500, mel_bins=80, decoder_layers=32,
                 stated_parameters=1_543_304_960,
                 stated_source=PEFT + "examples/int8_training/peft_bnb_whisper_large_v2_training.ipynb"),
)
