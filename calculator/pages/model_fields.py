"""The model-shape fields, written once: every page that asks for an architecture takes them from here.

Each field's label, help and limits are in ``SHAPE``; a page picks the fields it needs, in its own order, with the
defaults of one catalogue model.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from ..form.model import Field, Value, integer, optional_number
from ..llm.architectures import Architecture
from .presets import field_texts


@dataclass(frozen=True)
class ShapeField:
    label: str
    help: str
    maximum: int = 1_000_000
    zero: bool = False  # 0 means "none" (no experts, no decoder): a count, 0 by default
    derived: bool = False  # may be left empty: then derived from the other fields (``head_dim``)


SHAPE: dict[str, ShapeField] = {
    "layers": ShapeField("Numero di strati", "Blocchi del modello (num_hidden_layers); in un encoder–decoder,"
                         " quelli dell'encoder.", 10_000),
    "decoder_layers": ShapeField("Strati del decoder (encoder–decoder)",
                                 "T5 e Whisper: num_decoder_layers, ognuno con la sua cross-attention; con un valore,"
                                 " gli strati sopra sono quelli dell'encoder. 0 per i modelli solo decoder.",
                                 10_000, zero=True),
    "hidden_size": ShapeField("Dimensione nascosta", "Dimensione del modello h (hidden_size, d_model)."),
    "intermediate_size": ShapeField("Dimensione intermedia (MLP)",
                                    "Dimensione interna dell'MLP (intermediate_size, d_ff); in un modello a esperti,"
                                    " quella di ogni esperto (moe_intermediate_size)."),
    "attention_heads": ShapeField("Teste di attenzione", "num_attention_heads (a).", 100_000),
    "kv_heads": ShapeField("Teste chiave/valore", "num_key_value_heads: meno delle teste di attenzione con la"
                           " grouped-query attention.", 100_000),
    "head_dim": ShapeField("Dimensione di ogni testa", "head_dim: vuoto vale dimensione nascosta / teste, e segue"
                           " i campi sopra; indicalo solo se il config lo fissa (Gemma, Qwen3).", 100_000,
                           derived=True),
    "vocab_size": ShapeField("Vocabolario", "vocab_size.", 10_000_000),
    "experts": ShapeField("Esperti per strato (MoE)", "num_local_experts o num_experts (Mixtral 8, Qwen3-30B-A3B"
                          " 128); 0 per un modello denso.", 100_000, zero=True),
    "experts_per_token": ShapeField("Esperti attivi per token", "num_experts_per_tok (k): ogni token passa da k"
                                    " esperti, e ognuno conserva la sua parte.", zero=True),
    "shared_intermediate_size": ShapeField("Esperto condiviso: dimensione intermedia",
                                           "shared_expert_intermediate_size (Qwen1.5/Qwen2-MoE): un MLP che vede"
                                           " tutti i token; 0 se il modello non ne ha.", zero=True),
    "dense_layers": ShapeField("Strati con MLP denso (MoE)", "In un modello a esperti, gli strati che hanno un MLP"
                               " denso al posto degli esperti: i primi first_k_dense_replace (DeepSeek), o quelli"
                               " tra uno strato a esperti e l'altro (Llama 4). 0 se tutti hanno esperti.",
                               10_000, zero=True),
    "dense_intermediate_size": ShapeField("Strati densi: dimensione intermedia",
                                          "intermediate_size degli strati con MLP denso (DeepSeek; in Llama 4"
                                          " intermediate_size_mlp); 0 se non ce ne sono.", zero=True),
    "q_lora_rank": ShapeField("Attenzione latente: q_lora_rank", "Rango della compressione delle query (q_a_proj,"
                              " q_b_proj) nell'attenzione latente multi-testa (DeepSeek-V3); 0 se la query ha una"
                              " sola q_proj.", zero=True),
    "kv_lora_rank": ShapeField("Attenzione latente: kv_lora_rank", "Valori del vettore compresso da cui nascono chiavi"
                               " e valori (DeepSeek-V2 e V3: 512); 0 per l'attenzione ordinaria.", zero=True),
    "qk_rope_head_dim": ShapeField("Attenzione latente: qk_rope_head_dim", "Parte di ogni testa che porta la RoPE"
                                   " (condivisa tra le teste per la chiave).", zero=True),
    "qk_nope_head_dim": ShapeField("Attenzione latente: qk_nope_head_dim", "Parte di ogni testa di query e chiave"
                                   " senza RoPE.", zero=True),
    "v_head_dim": ShapeField("Attenzione latente: v_head_dim", "Dimensione di ogni testa dei valori.", zero=True),
    "sliding_window": ShapeField("Finestra scorrevole (token)", "sliding_window: quanti token precedenti vede uno"
                                 " strato a finestra (gpt-oss 128, Gemma 3 1024); 0 se ogni strato li vede tutti.",
                                 10_000_000, zero=True),
    "sliding_layers": ShapeField("Strati a finestra scorrevole", "Quanti strati usano la finestra (gpt-oss: uno su"
                                 " due; Gemma 3: cinque su sei); 0 se nessuno.", 100_000, zero=True),
}
# Both attention fields' help for Transformers' own FlashAttention kernels (activation_memory.attention_bytes).
PADDED_VALUES_HELP = ("Con l'attenzione latente (DeepSeek-V2/V3) flash_attention_2 di Transformers (e _3 nelle versioni"
                      " recenti) allarga ogni valore alla larghezza delle chiavi: si conservano i valori e l'uscita"
                      " allargati e una copia dell'uscita per o_proj. Per gli altri modelli vale come FlashAttention /"
                      " SDPA.")
LATENT_FIELDS = ("q_lora_rank", "kv_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim")


def shape_field(field_id: str, group: str, defaults: Architecture, help_text: str = "") -> Field:
    """One shape field of ``SHAPE``, with the default of the catalogue model ``defaults``; ``help_text`` adds what
    the field means on this page."""
    spec = SHAPE[field_id]
    text = f"{spec.help} {help_text}" if help_text else spec.help
    default = field_texts(defaults)[field_id]
    if spec.zero:
        return count_field(field_id, spec.label, text, group, spec.maximum, default=default)
    return Field(id=field_id, label=spec.label, default=default, group=group, help=text,
                 maximum=Decimal(spec.maximum), optional=spec.derived)


def head_dim(values: Mapping[str, Value]) -> int:
    """The head dimension typed, or hidden size / heads when the field is empty (``check_head_dim`` first)."""
    typed = optional_number(values, "head_dim")
    if typed is not None:
        return int(typed)
    heads = integer(values, "attention_heads")
    return integer(values, "hidden_size") // heads if heads else 0


def check_head_dim(values: Mapping[str, Value]) -> dict[str, str]:
    """An empty head dimension needs a hidden size the heads divide."""
    if optional_number(values, "head_dim") is not None:
        return {}
    hidden, heads = integer(values, "hidden_size"), integer(values, "attention_heads")
    if heads and hidden % heads:
        return {"head_dim": (f"Dimensione di ogni testa: {hidden} non si divide per {heads} teste; indica head_dim"
                             " come lo dà il config.")}
    return {}


def count_field(field_id: str, label: str, help_text: str, group: str, maximum: int = 1_000_000,
                unit: str = "", default: str = "0") -> Field:
    """A whole number that may be 0 (no experts, no decoder, no head), 0 by default."""
    return Field(id=field_id, label=label, default=default, group=group, help=help_text, unit=unit,
                 minimum=Decimal(0), maximum=Decimal(maximum))
