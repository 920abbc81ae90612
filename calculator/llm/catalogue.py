"""The public models people train, as data: each model's ``config.json`` values, with their sources.

Shared by every page that asks for a model's shape. Adding a model is one entry here (``pages`` tag it for the
pages that offer it as a preset); tests check its count against the publisher's.
"""

from __future__ import annotations

from .architectures import FUSED_GATE_UP, GATED, PLAIN, Architecture

# Where the site offers a model as a preset (``Architecture.offered``); a page names the tag it shows.
VRAM, ACTIVATIONS, LORA, TIME = "vram", "activations", "lora", "time"

__all__ = ["ACTIVATIONS", "FUSED_GATE_UP", "GATED", "LORA", "MODELS", "PLAIN", "TIME", "VRAM", "Architecture", "model",
           "offered"]


def model(model_id: str) -> Architecture:
    """The catalogue's entry with this id; KeyError if there is none."""
    for entry in MODELS:
        if entry.id == model_id:
            return entry
    raise KeyError(model_id)



def offered(tag: str) -> tuple[Architecture, ...]:
    """The models a page offers as presets, in the catalogue's order."""
    return tuple(entry for entry in MODELS if tag in entry.offered)


def _hf(repo: str) -> str:
    return f"https://huggingface.co/{repo}/blob/main/config.json"


PEFT = "https://github.com/huggingface/peft/blob/5d602fdbff04c33c1c4de55cda9d4ae1d7cb7e40/"
# bigscience/bloomz-7b1 printed by a notebook PEFT later removed (February 2023).
PEFT_2023 = "https://github.com/huggingface/peft/blob/462b65fe4582b7f5c3b565f9913f81fa01dc30a5/"
# LoRA notebooks of the self-llm tutorials, which print PEFT's line with "all params" (July 2026).
SELF_LLM = "https://github.com/datawhalechina/self-llm/blob/0932a89b0fd8e7a9844874eceb8ec993d6570d78/"
# "2851M total params, 32M largest layer params" and the memory it prints for the live model.
# Gemma 3 4B, 12B and 27B are image–text models: the safetensors total on each model page counts the SigLIP vision
# tower of the config's vision_config (27 layers of 1152, 4304 inner, 896-pixel images in 14-pixel patches:
# 416,866,032) and the projector into the text model (1152 × hidden and a norm of 1152) too. The entries are the
# text model (Gemma3ForCausalLM), which the count below is: the publisher's total less those two.
GEMMA3_VISION = 416_866_032


def _gemma3_text(total: int, hidden: int) -> int:
    return total - GEMMA3_VISION - 1152 * hidden - 1152


# Qwen3 0.6B and 1.7B tie their head to the embeddings, yet their safetensors store lm_head.weight as well: the
# model page's total counts that table twice; the model has it once.
def _stored_twice(total: int, vocab: int, hidden: int) -> int:
    return total - vocab * hidden


DEEPSPEED_MEMORY = ("https://github.com/deepspeedai/DeepSpeed/blob/edaa7221267243c7be7fb49c5d5f5c4fb97b4641/"
                    "docs/code-docs/source/memory.rst")


# Publishers that state a rounded count (``stated_rounding``): the gpt-oss model card's table of parameters
# (arXiv:2508.10925, Table 1: 116.83B in total for gpt-oss-120b, 20.91B for gpt-oss-20b; the text of that table was
# read in a transcription of the card, and openai/gpt-oss's README at the commit below rounds them to "117B" and
# "21B"), DeepSeek's model card and README (V2-Lite: "comprises 15.7B total parameters" in its Hugging Face model
# card, read in the copy at ZHUI/paddlenlp_model_readme@40a7101e89dcf9a0dedb0e0d48c8c357fcc95996:
# deepseek-ai/DeepSeek-V2-Lite/index.md, where the GitHub README's table rounds it to 16B; V3 671B: the 14B of its
# multi-token-prediction module, in the published weights, are not part of the model Transformers builds), OLMo 2's
# and SmolLM3's model pages (7.3B, 13.7B; "a 3B parameter language model").
GPT_OSS_CARD = "https://arxiv.org/abs/2508.10925"
# gpt-oss-20b to the parameter: OpenAI's own reinforcement-learning notebook prints Unsloth's line "Trainable
# parameters = 1,990,656 of 20,916,747,840" for a rank-4 LoRA on it; the adapters are q/k/v/o_proj's (the experts
# are 3-D parameters, not linear layers), 24 × 4 × (2 · (2880 + 4096) + 2 · (2880 + 512)) = 1,990,656, and the rest,
# 20,914,757,184, is the model (tests/pages/test_published_lora.py checks the adapters against the LoRA page).
GPT_OSS = "https://github.com/openai/gpt-oss/blob/7b583341fe16729127f6d5b94a7b09ccae97e1a1/"
DEEPSEEK_V2_LITE_CARD = "https://huggingface.co/deepseek-ai/DeepSeek-V2-Lite"
DEEPSEEK_V3 = "https://github.com/deepseek-ai/DeepSeek-V3/blob/9b4e9788e4a3a731f7567338ed15d3ec549ce03b/README.md"
# Not here yet: Llama 4 Scout and Maverick. The pages count their text model exactly from a pasted config
# (experts interleaved with dense layers, a shared expert), but Meta states only the whole image–text model's
# count (109B, 400B), and the LoRA page cannot yet tell the experts' fused 3-D matrices from the shared
# expert's separate gate and up projections.
# On the activation page only where Transformers was measured (tests/data/transformers_activations.json): OLMo 2,
# SmolLM3, gpt-oss-20b (its sink column in a bf16 softmax, fp32 norms, its clamped SwiGLU and top-k softmax router,
# a sliding window shorter than the measured sequence) and DeepSeek-V2-Lite (latent attention, sorted experts, a
# dense first layer) and DeepSeek-V3 (the same attention with a compressed query; its experts and sigmoid router run
# with other code in Transformers, ``sigmoid_router``) are within 1 %.
MODELS: tuple[Architecture, ...] = (
    # Llama
    Architecture("llama-2-7b", "Llama 2 7B", 32, 4096, 11008, 32, 32, 32000, _hf("meta-llama/Llama-2-7b-hf"),
                 "Llama", stated_parameters=6_738_415_616, offered=(LORA,)),
    Architecture("llama-2-13b", "Llama 2 13B", 40, 5120, 13824, 40, 40, 32000, _hf("meta-llama/Llama-2-13b-hf"),
                 "Llama", stated_parameters=13_015_864_320),
    Architecture("llama-3.1-8b", "Llama 3.1 8B", 32, 4096, 14336, 32, 8, 128256, _hf("meta-llama/Llama-3.1-8B"),
                 "Llama", stated_parameters=8_030_261_248,
                 stated_source=SELF_LLM + "models/Llama3_1/04-LLaMA3_1-8B-Instruct%20Lora.ipynb",
                 offered=(ACTIVATIONS, LORA, VRAM, TIME,)),
    Architecture("llama-3.1-70b", "Llama 3.1 70B", 80, 8192, 28672, 64, 8, 128256, _hf("meta-llama/Llama-3.1-70B"),
                 "Llama", stated_parameters=70_553_706_496, offered=(VRAM, TIME,)),
    Architecture("llama-3.2-1b", "Llama 3.2 1B", 16, 2048, 8192, 32, 8, 128256, _hf("meta-llama/Llama-3.2-1B"),
                 "Llama", head_dim=64, tied=True, stated_parameters=1_235_814_400,
                 stated_source=PEFT + "docs/source/quicktour.md", offered=(ACTIVATIONS, LORA, VRAM, TIME,)),
    Architecture("llama-3.2-3b", "Llama 3.2 3B", 28, 3072, 8192, 24, 8, 128256, _hf("meta-llama/Llama-3.2-3B"),
                 "Llama", head_dim=128, tied=True, stated_parameters=3_212_749_824),
    Architecture("llama-3.3-70b", "Llama 3.3 70B Instruct", 80, 8192, 28672, 64, 8, 128256,
                 _hf("meta-llama/Llama-3.3-70B-Instruct"), "Llama", stated_parameters=70_553_706_496,
                 offered=(LORA, VRAM, TIME,)),
    # DeepSeek's distillation of R1 into Llama 3.1 8B: Llama's shape, DeepSeek's weights and tokenizer
    Architecture("deepseek-r1-distill-llama-8b", "DeepSeek-R1-Distill-Llama-8B", 32, 4096, 14336, 32, 8, 128256,
                 _hf("deepseek-ai/DeepSeek-R1-Distill-Llama-8B"), "Llama", stated_parameters=8_030_261_248,
                 offered=(LORA,)),
    # Mistral
    Architecture("mistral-7b", "Mistral 7B v0.1", 32, 4096, 14336, 32, 8, 32000, _hf("mistralai/Mistral-7B-v0.1"),
                 "Mistral", sliding_window=4096, sliding_layers=32, stated_parameters=7_241_732_096,
                 offered=(ACTIVATIONS, LORA, VRAM, TIME,)),
    Architecture("mistral-nemo-12b", "Mistral NeMo 12B", 40, 5120, 14336, 32, 8, 131072,
                 _hf("mistralai/Mistral-Nemo-Base-2407"), "Mistral", head_dim=128, stated_parameters=12_247_782_400,
                 offered=(LORA, VRAM,)),
    # Mistral Small 3 (text only); 3.1 and 3.2 (Mistral3ForConditionalGeneration) put a Pixtral vision encoder
    # before the same text model
    Architecture("mistral-small-24b", "Mistral Small 3 (24B, 2501)", 40, 5120, 32768, 32, 8, 131072,
                 _hf("mistralai/Mistral-Small-24B-Base-2501"), "Mistral", head_dim=128,
                 stated_parameters=23_572_403_200, offered=(LORA, VRAM, TIME,)),
    Architecture("mixtral-8x7b", "Mixtral 8x7B", 32, 4096, 14336, 32, 8, 32000, _hf("mistralai/Mixtral-8x7B-v0.1"),
                 "Mistral", experts=8, experts_per_token=2, expert_intermediate=14336,
                 stated_parameters=46_702_792_704, stated_source=PEFT + "examples/KappaTune/README.md",
                 offered=(ACTIVATIONS, LORA, VRAM, TIME,)),
    # Qwen
    Architecture("qwen2.5-0.5b", "Qwen2.5 0.5B", 24, 896, 4864, 14, 2, 151936, _hf("Qwen/Qwen2.5-0.5B"),
                 "Qwen", tied=True, qkv_bias=True, stated_parameters=494_032_768),
    Architecture("qwen2.5-3b", "Qwen2.5 3B", 36, 2048, 11008, 16, 2, 151936, _hf("Qwen/Qwen2.5-3B-Instruct"),
                 "Qwen", tied=True, qkv_bias=True, stated_parameters=3_085_938_688, stated_source=PEFT + "README.md",
                 offered=(LORA,)),
    Architecture("qwen2.5-7b", "Qwen2.5 7B", 28, 3584, 18944, 28, 4, 152064, _hf("Qwen/Qwen2.5-7B"),
                 "Qwen", qkv_bias=True, stated_parameters=7_615_616_512,
                 stated_source=SELF_LLM + "models/Qwen2.5/05-Qwen2.5-7B-Instruct%20Lora%20.ipynb",
                 offered=(ACTIVATIONS, LORA, VRAM, TIME,)),
    Architecture("qwen2.5-14b", "Qwen2.5 14B", 48, 5120, 13824, 40, 8, 152064, _hf("Qwen/Qwen2.5-14B"),
                 "Qwen", qkv_bias=True, stated_parameters=14_770_033_664, offered=(LORA, VRAM,)),
    Architecture("qwen2.5-32b", "Qwen2.5 32B", 64, 5120, 27648, 40, 8, 152064, _hf("Qwen/Qwen2.5-32B"),
                 "Qwen", qkv_bias=True, stated_parameters=32_763_876_352, offered=(VRAM, TIME,)),
    Architecture("qwen2.5-72b", "Qwen2.5 72B", 80, 8192, 29568, 64, 8, 152064, _hf("Qwen/Qwen2.5-72B"),
                 "Qwen", qkv_bias=True, stated_parameters=72_706_203_648, offered=(VRAM, TIME,)),
    Architecture("qwen3-0.6b", "Qwen3 0.6B", 28, 1024, 3072, 16, 8, 151936, _hf("Qwen/Qwen3-0.6B"),
                 "Qwen", head_dim=128, tied=True, qk_norm=True,
                 stated_parameters=_stored_twice(751_632_384, 151936, 1024), offered=(ACTIVATIONS, LORA,)),
    Architecture("qwen3-1.7b", "Qwen3 1.7B", 28, 2048, 6144, 16, 8, 151936, _hf("Qwen/Qwen3-1.7B"),
                 "Qwen", head_dim=128, tied=True, qk_norm=True,
                 stated_parameters=_stored_twice(2_031_739_904, 151936, 2048), offered=(LORA, VRAM,)),
    Architecture("qwen3-4b", "Qwen3 4B", 36, 2560, 9728, 32, 8, 151936, _hf("Qwen/Qwen3-4B"),
                 "Qwen", head_dim=128, tied=True, qk_norm=True, stated_parameters=4_022_468_096,
                 offered=(ACTIVATIONS, LORA, VRAM, TIME,)),
    Architecture("qwen3-8b", "Qwen3 8B", 36, 4096, 12288, 32, 8, 151936, _hf("Qwen/Qwen3-8B"),
                 "Qwen", head_dim=128, qk_norm=True, stated_parameters=8_190_735_360,
                 stated_source=SELF_LLM + "models/Qwen3/05-Qwen3-8B-LoRA.ipynb", offered=(ACTIVATIONS, LORA, TIME,)),
    Architecture("qwen3-14b", "Qwen3 14B", 40, 5120, 17408, 40, 8, 151936, _hf("Qwen/Qwen3-14B"),
                 "Qwen", head_dim=128, qk_norm=True, stated_parameters=14_768_307_200, offered=(LORA, VRAM, TIME,)),
    Architecture("qwen3-32b", "Qwen3 32B", 64, 5120, 25600, 64, 8, 151936, _hf("Qwen/Qwen3-32B"),
                 "Qwen", head_dim=128, qk_norm=True, stated_parameters=32_762_123_264, offered=(LORA, VRAM, TIME,)),
    Architecture("qwen1.5-moe-a2.7b", "Qwen1.5-MoE-A2.7B", 24, 2048, 5632, 16, 16, 151936,
                 _hf("Qwen/Qwen1.5-MoE-A2.7B"), "Qwen", qkv_bias=True, experts=60, experts_per_token=4,
                 expert_intermediate=1408, shared_intermediate=5632, shared_gate=True,
                 stated_parameters=14_315_784_192, offered=(ACTIVATIONS, LORA,)),
    Architecture("qwen3-30b-a3b", "Qwen3 30B-A3B", 48, 2048, 6144, 32, 4, 151936, _hf("Qwen/Qwen3-30B-A3B"),
                 "Qwen", head_dim=128, qk_norm=True, experts=128, experts_per_token=8, expert_intermediate=768,
                 stated_parameters=30_532_122_624, stated_source=SELF_LLM + "models/Qwen3/"
                 "06-Qwen3-30B-A3B%20%E5%BE%AE%E8%B0%83%E5%8F%8A%20SwanLab%20%E5%8F%AF%E8%A7%86%E5%8C%96%E8%AE%B0%E5%BD%95.ipynb",
                 offered=(ACTIVATIONS, LORA, TIME,)),
    Architecture("qwen3-235b-a22b", "Qwen3 235B-A22B", 94, 4096, 12288, 64, 4, 151936, _hf("Qwen/Qwen3-235B-A22B"),
                 "Qwen", head_dim=128, qk_norm=True, experts=128, experts_per_token=8, expert_intermediate=1536,
                 stated_parameters=235_093_634_560, offered=(LORA, VRAM, TIME,)),
    # Gemma
    Architecture("gemma-2-2b", "Gemma 2 2B", 26, 2304, 9216, 8, 4, 256000, _hf("google/gemma-2-2b"),
                 "Gemma", head_dim=256, tied=True, norms_per_layer=4, sliding_window=4096, sliding_layers=13,
                 stated_parameters=2_614_341_888,
                 offered=(ACTIVATIONS, LORA,)),
    Architecture("gemma-2-9b", "Gemma 2 9B", 42, 3584, 14336, 16, 8, 256000, _hf("google/gemma-2-9b"),
                 "Gemma", head_dim=256, tied=True, norms_per_layer=4, sliding_window=4096, sliding_layers=21,
                 stated_parameters=9_241_705_984,
                 stated_source=SELF_LLM + "models/Gemma2/04-Gemma-2-9b-it%20peft%20lora%E5%BE%AE%E8%B0%83.ipynb"),
    Architecture("gemma-3-1b", "Gemma 3 1B", 26, 1152, 6912, 4, 1, 262144, _hf("google/gemma-3-1b-pt"),
                 "Gemma", head_dim=256, tied=True, qk_norm=True, norms_per_layer=4,
                 sliding_window=512, sliding_layers=22, stated_parameters=999_885_952),
    # Gemma 3: five sliding-window layers (1024 tokens; 512 in 1B and 270M) for each global one; the window changes no
    # weight, and Transformers' eager attention still computes every layer's full score matrix (the window is a mask).
    Architecture("gemma-3-270m", "Gemma 3 270M", 18, 640, 2048, 4, 1, 262144, _hf("google/gemma-3-270m"),
                 "Gemma", head_dim=256, tied=True, qk_norm=True, norms_per_layer=4,
                 sliding_window=512, sliding_layers=15, stated_parameters=268_098_176,
                 offered=(ACTIVATIONS, LORA,)),
    Architecture("gemma-3-4b", "Gemma 3 4B (solo testo)", 34, 2560, 10240, 8, 4, 262208, _hf("google/gemma-3-4b-pt"),
                 "Gemma", head_dim=256, tied=True, qk_norm=True, norms_per_layer=4,
                 sliding_window=1024, sliding_layers=29,
                 stated_parameters=_gemma3_text(4_300_079_472, 2560), offered=(ACTIVATIONS, LORA, VRAM,)),
    Architecture("gemma-3-12b", "Gemma 3 12B (solo testo)", 48, 3840, 15360, 16, 8, 262208,
                 _hf("google/gemma-3-12b-pt"), "Gemma", head_dim=256, tied=True, qk_norm=True, norms_per_layer=4,
                 sliding_window=1024, sliding_layers=40,
                 stated_parameters=_gemma3_text(12_187_325_040, 3840), offered=(LORA, VRAM,)),
    Architecture("gemma-3-27b", "Gemma 3 27B (solo testo)", 62, 5376, 21504, 32, 16, 262208,
                 _hf("google/gemma-3-27b-pt"), "Gemma", head_dim=128, tied=True, qk_norm=True, norms_per_layer=4,
                 sliding_window=1024, sliding_layers=52,
                 stated_parameters=_gemma3_text(27_432_406_640, 5376), offered=(LORA, VRAM, TIME,)),
    # Phi: query, key and value in one matrix, and gate and up in another. Phi-3 mini 4k's config.json sets a
    # 2047-token window on every layer, and Transformers (4.57) masks with it and passes it to FlashAttention.
    Architecture("phi-3-mini", "Phi-3 mini 4k", 32, 3072, 8192, 32, 32, 32064,
                 _hf("microsoft/Phi-3-mini-4k-instruct"), "Phi", fused_qkv="qkv_proj", fused_gate_up="gate_up_proj",
                 sliding_window=2047, sliding_layers=32, stated_parameters=3_821_079_552,
                 stated_source=SELF_LLM + "models/phi-3/Phi-3-mini-4k-Instruct-Lora.ipynb", offered=(LORA, TIME,)),
    Architecture("phi-4", "Phi-4 (14B)", 40, 5120, 17920, 40, 10, 100352, _hf("microsoft/phi-4"),
                 "Phi", fused_qkv="qkv_proj", fused_gate_up="gate_up_proj", stated_parameters=14_659_507_200,
                 stated_source=SELF_LLM + "models/phi4/04-Phi-4-Lora.ipynb", offered=(LORA, VRAM,)),
    Architecture("phi-4-mini", "Phi-4-mini (3.8B)", 32, 3072, 8192, 24, 8, 200064,
                 _hf("microsoft/Phi-4-mini-instruct"), "Phi", tied=True, fused_qkv="qkv_proj",
                 fused_gate_up="gate_up_proj", stated_parameters=3_836_021_760, offered=(LORA, VRAM,)),
    # gpt-oss: attention sinks (a logit per head), biases on every projection, on each expert and on the router,
    # each expert's gate and up in one 3-D parameter; sliding-window (128) and full layers alternate
    Architecture("gpt-oss-20b", "gpt-oss-20b (MoE)", 24, 2880, 2880, 64, 8, 201088, _hf("openai/gpt-oss-20b"),
                 "gpt-oss", head_dim=64, bias=True, sinks=True, fused_gate_up="gate_up_proj", experts=32,
                 experts_per_token=4, expert_intermediate=2880, sliding_window=128, sliding_layers=12,
                 stated_parameters=20_914_757_184,
                 stated_source=GPT_OSS + "examples/reinforcement-fine-tuning.ipynb",
                 offered=(ACTIVATIONS, LORA, VRAM, TIME)),
    Architecture("gpt-oss-120b", "gpt-oss-120b (MoE)", 36, 2880, 2880, 64, 8, 201088, _hf("openai/gpt-oss-120b"),
                 "gpt-oss", head_dim=64, bias=True, sinks=True, fused_gate_up="gate_up_proj", experts=128,
                 experts_per_token=4, expert_intermediate=2880, sliding_window=128, sliding_layers=18,
                 stated_parameters=116_830_000_000, stated_rounding=10**7, stated_source=GPT_OSS_CARD,
                 offered=(ACTIVATIONS, LORA, VRAM, TIME)),
    # DeepSeek: multi-head latent attention, dense layers before the MoE ones, shared experts
    Architecture("deepseek-v2-lite", "DeepSeek-V2-Lite (16B, MoE)", 27, 2048, 10944, 16, 16, 102400,
                 _hf("deepseek-ai/DeepSeek-V2-Lite"), "DeepSeek", experts=64, experts_per_token=6,
                 expert_intermediate=1408, shared_intermediate=2816, dense_layers=1, kv_lora_rank=512, rope_dim=64,
                 nope_dim=128, v_head_dim=128, stated_parameters=15_700_000_000, stated_rounding=10**8,
                 stated_source=DEEPSEEK_V2_LITE_CARD, offered=(ACTIVATIONS, LORA, VRAM, TIME)),
    Architecture("deepseek-v3", "DeepSeek-V3 (671B, MoE)", 61, 7168, 18432, 128, 128, 129280,
                 _hf("deepseek-ai/DeepSeek-V3"), "DeepSeek", experts=256, experts_per_token=8,
                 expert_intermediate=2048, shared_intermediate=2048, dense_layers=3, q_lora_rank=1536, sigmoid_router=True,
                 kv_lora_rank=512, rope_dim=64, nope_dim=128, v_head_dim=128, stated_parameters=671_000_000_000,
                 stated_rounding=10**9, stated_source=DEEPSEEK_V3, offered=(ACTIVATIONS, LORA, VRAM, TIME)),
    # OLMo 2: norms after attention and after the MLP, query and key norms over the whole projection
    Architecture("olmo-2-7b", "OLMo 2 7B", 32, 4096, 11008, 32, 32, 100352, _hf("allenai/OLMo-2-1124-7B"),
                 "OLMo", qk_norm=True, qk_norm_full=True, stated_parameters=7_300_000_000, stated_rounding=10**8,
                 stated_source="https://huggingface.co/allenai/OLMo-2-1124-7B",
                 offered=(ACTIVATIONS, LORA, VRAM, TIME)),
    Architecture("olmo-2-13b", "OLMo 2 13B", 40, 5120, 13824, 40, 40, 100352, _hf("allenai/OLMo-2-1124-13B"),
                 "OLMo", qk_norm=True, qk_norm_full=True, stated_parameters=13_700_000_000, stated_rounding=10**8,
                 stated_source="https://huggingface.co/allenai/OLMo-2-1124-13B",
                 offered=(ACTIVATIONS, LORA, VRAM, TIME)),
    # SmolLM3: Llama's layers (RoPE left out of every fourth: no weights), tied embeddings
    Architecture("smollm3-3b", "SmolLM3 3B", 36, 2048, 11008, 16, 4, 128256, _hf("HuggingFaceTB/SmolLM3-3B"),
                 "SmolLM", tied=True, stated_parameters=3_000_000_000, stated_rounding=10**9,
                 stated_source="https://huggingface.co/HuggingFaceTB/SmolLM3-3B", offered=(ACTIVATIONS, LORA, VRAM, TIME)),
    # Falcon: multi-query attention fused in query_key_value, attention and MLP in parallel after one norm
    Architecture("falcon-7b", "Falcon 7B", 32, 4544, 18176, 71, 1, 65024, _hf("tiiuae/falcon-7b"),
                 "Falcon", mlp=PLAIN, tied=True, norm_bias=True, norms_per_layer=1, fused_qkv="query_key_value",
                 stated_parameters=6_921_720_704, offered=(LORA,)),
    # GPT-2: Conv1D layers, query/key/value fused in c_attn
    Architecture("gpt2", "GPT-2 (124M)", 12, 768, 3072, 12, 12, 50257, _hf("openai-community/gpt2"),
                 "GPT-2", mlp=PLAIN, tied=True, bias=True, norm_bias=True, positions=1024, fused_qkv="c_attn",
                 stated_parameters=124_439_808, offered=(ACTIVATIONS, TIME,)),
    Architecture("gpt2-medium", "GPT-2 Medium", 24, 1024, 4096, 16, 16, 50257, _hf("openai-community/gpt2-medium"),
                 "GPT-2", mlp=PLAIN, tied=True, bias=True, norm_bias=True, positions=1024, fused_qkv="c_attn",
                 stated_parameters=354_823_168),
    Architecture("gpt2-large", "GPT-2 Large", 36, 1280, 5120, 20, 20, 50257, _hf("openai-community/gpt2-large"),
                 "GPT-2", mlp=PLAIN, tied=True, bias=True, norm_bias=True, positions=1024, fused_qkv="c_attn",
                 stated_parameters=774_030_080, stated_source=PEFT + "src/peft/peft_model.py", offered=(LORA,)),
    Architecture("gpt2-xl", "GPT-2 XL", 48, 1600, 6400, 25, 25, 50257, _hf("openai-community/gpt2-xl"),
                 "GPT-2", mlp=PLAIN, tied=True, bias=True, norm_bias=True, positions=1024, fused_qkv="c_attn",
                 stated_parameters=1_557_611_200),
    # OPT: learned positions (offset by 2), LayerNorm and biases everywhere
    Architecture("opt-125m", "OPT 125M", 12, 768, 3072, 12, 12, 50272, _hf("facebook/opt-125m"),
                 "OPT", mlp=PLAIN, tied=True, bias=True, norm_bias=True, positions=2050, stated_parameters=125_239_296),
    Architecture("opt-350m", "OPT 350M", 24, 1024, 4096, 16, 16, 50272, _hf("facebook/opt-350m"),
                 "OPT", mlp=PLAIN, tied=True, bias=True, norm_bias=True, positions=2050, embed_proj=512,
                 final_norm=False, stated_parameters=331_196_416,
                 stated_source=PEFT + "docs/source/guides/peft_model_config.md", offered=(LORA,)),
    Architecture("opt-6.7b", "OPT 6.7B", 32, 4096, 16384, 32, 32, 50272, _hf("facebook/opt-6.7b"),
                 "OPT", mlp=PLAIN, tied=True, bias=True, norm_bias=True, positions=2050,
                 stated_parameters=6_658_473_984,
                 stated_source=PEFT + "examples/int8_training/Finetune_opt_bnb_peft.ipynb"),
    # BLOOM: ALiBi (no position table), a norm after the embeddings, query_key_value fused
    Architecture("bloom-560m", "BLOOM 560M", 24, 1024, 4096, 16, 16, 250880, _hf("bigscience/bloom-560m"),
                 "BLOOM", mlp=PLAIN, tied=True, bias=True, norm_bias=True, embed_norm=True,
                 fused_qkv="query_key_value", stated_parameters=559_214_592,
                 stated_source=PEFT + "docs/source/package_reference/prompt_tuning.md", offered=(LORA,)),
    Architecture("bloom-7b1", "BLOOM 7B1 (e BLOOMZ)", 30, 4096, 16384, 32, 32, 250880, _hf("bigscience/bloom-7b1"),
                 "BLOOM", mlp=PLAIN, tied=True, bias=True, norm_bias=True, embed_norm=True,
                 fused_qkv="query_key_value", stated_parameters=7_069_016_064,
                 stated_source=PEFT_2023 + "examples/causal_language_modeling/"
                                           "peft_lora_clm_accelerate_big_model_inference.ipynb"),
    # T5: encoder–decoder, relative attention bias; v1.1 and Flan-T5/mT5 have a gated MLP and untied head
    Architecture("t5-large", "T5 Large", 24, 1024, 4096, 16, 16, 32128, _hf("google-t5/t5-large"),
                 "T5", head_dim=64, mlp=PLAIN, tied=True, decoder_layers=24, relative_buckets=32,
                 stated_parameters=737_668_096,
                 stated_source=PEFT + "examples/conditional_generation/peft_prompt_tuning_seq2seq.ipynb", offered=(VRAM,)),
    Architecture("t5-3b", "T5 3B", 24, 1024, 16384, 32, 32, 32128, _hf("google-t5/t5-3b"),
                 "T5", head_dim=128, mlp=PLAIN, tied=True, decoder_layers=24, relative_buckets=32,
                 stated_parameters=2_851_598_336, stated_source=DEEPSPEED_MEMORY),
    Architecture("flan-t5-base", "Flan-T5 Base", 12, 768, 2048, 12, 12, 32128, _hf("google/flan-t5-base"),
                 "T5", head_dim=64, decoder_layers=12, relative_buckets=32, stated_parameters=247_577_856),
    Architecture("flan-t5-large", "Flan-T5 Large", 24, 1024, 2816, 16, 16, 32128, _hf("google/flan-t5-large"),
                 "T5", head_dim=64, decoder_layers=24, relative_buckets=32, stated_parameters=783_150_080,
                 stated_source=PEFT + "examples/int8_training/Finetune_flan_t5_large_bnb_peft.ipynb",
                 offered=(ACTIVATIONS, LORA,)),
    Architecture("mt0-large", "mT0 Large", 24, 1024, 2816, 16, 16, 250112, _hf("bigscience/mt0-large"),
                 "T5", head_dim=64, decoder_layers=24, relative_buckets=32, stated_parameters=1_229_581_312,
                 stated_source=PEFT + "examples/conditional_generation/peft_ia3_seq2seq.ipynb"),
    # Whisper (speech, offered=(LORA,)): a convolutional front-end over log-mel features, encoder–decoder, no bias on k_proj
    Architecture("whisper-small", "Whisper small", 12, 768, 3072, 12, 12, 51865, _hf("openai/whisper-small"),
                 "Whisper", mlp=PLAIN, tied=True, bias=True, k_bias=False, norm_bias=True, positions=448,
                 encoder_positions=1500, mel_bins=80, decoder_layers=12, stated_parameters=241_734_912,
                 offered=(ACTIVATIONS,)),
    Architecture("whisper-large-v2", "Whisper large-v2", 32, 1280, 5120, 20, 20, 51865,
                 _hf("openai/whisper-large-v2"), "Whisper", mlp=PLAIN, tied=True, bias=True, k_bias=False,
                 norm_bias=True, positions=448, encoder_positions=1500, mel_bins=80, decoder_layers=32,
                 stated_parameters=1_543_304_960,
                 stated_source=PEFT + "examples/int8_training/peft_bnb_whisper_large_v2_training.ipynb",
                 offered=(LORA,)),
)
