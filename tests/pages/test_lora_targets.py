"""The LoRA page's targets (issue 25): the shortcuts «tutti i lineari» and «solo l'attenzione», and only the modules
the architecture has offered; a ticked module the model lacks is an Italian message beside its box."""

from __future__ import annotations

import pytest

from calculator.form.render import render
from calculator.llm.catalogue import LORA, model, offered
from calculator.llm.lora_adapters import ALL_LINEAR, ATTENTION_ONLY, LATENT, MODULES
from calculator.pages.lora import CALCULATOR, _preset

from ..support.outputs import evaluation, outputs

LORA_ID = CALCULATOR.id
PRESETS = [entry.id for entry in offered(LORA)]


def texts(model_id: str, **more: str) -> dict[str, str]:
    return {**dict(_preset(model_id).values), **more}


def shown(model_id: str) -> set[str]:
    """The target boxes the page offers for a preset's model."""
    return set(MODULES) - set(evaluation(LORA_ID, texts(model_id)).absent)


def test_the_shortcuts_are_a_choice_declared_in_python() -> None:
    field = CALCULATOR.field("target_set")
    assert [option.value for option in field.options] == ["scelti", ALL_LINEAR, ATTENTION_ONLY]
    assert field.group == "Moduli adattati"


def test_each_architecture_offers_only_its_own_targets() -> None:
    assert shown("llama-2-7b") == {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj",
                                   "embed_tokens", "lm_head"}
    assert shown("phi-3-mini") == {"qkv_proj", "o_proj", "gate_up_proj", "down_proj", "embed_tokens", "lm_head"}
    assert shown("gpt2") == {"qkv_proj", "o_proj", "up_proj", "down_proj", "embed_tokens", "lm_head"}
    assert shown("mixtral-8x7b") == shown("llama-2-7b") | {"router"}
    assert shown("deepseek-v3") == {"q_a_proj", "q_b_proj", "kv_a_proj_with_mqa", "kv_b_proj", "o_proj", "gate_proj",
                                    "up_proj", "down_proj", "router", "embed_tokens", "lm_head"}
    assert shown("deepseek-v2-lite") == shown("deepseek-v3") - {"q_a_proj", "q_b_proj"} | {"q_proj"}


@pytest.mark.parametrize("model_id", PRESETS)
def test_no_model_is_offered_latent_or_fused_boxes_it_lacks(model_id: str) -> None:
    entry, boxes = model(model_id), shown(model_id)
    assert bool(boxes & set(LATENT)) is entry.mla
    assert ("qkv_proj" in boxes) is bool(entry.fused_qkv)
    assert ("gate_up_proj" in boxes) is bool(entry.fused_gate_up)
    assert ("router" in boxes) is bool(entry.experts)
    # The boxes the preset ticks are always offered, and the expert's storage only with experts.
    assert {name for name, text in _preset(model_id).values.items() if name in MODULES and text == "on"} <= boxes
    assert ("moe_modules" in evaluation(LORA_ID, texts(model_id)).absent) is not entry.experts


def test_the_rendered_page_hides_the_boxes_the_default_model_lacks() -> None:
    html = render(CALCULATOR)
    for name in ("qkv_proj", "gate_up_proj", "router", *LATENT):
        assert f'data-absent-field="{name}" hidden>' in html, name
    for name in ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj"):
        assert f'data-absent-field="{name}">' in html, name


@pytest.mark.parametrize("model_id", PRESETS)
@pytest.mark.parametrize("target", MODULES)
def test_a_ticked_target_the_model_lacks_is_a_message_beside_its_box(model_id: str, target: str) -> None:
    if target in shown(model_id):
        return
    result = evaluation(LORA_ID, texts(model_id, **{target: "on"}))
    assert result.status == "invalid"
    assert target in result.errors, result.errors
    assert target not in result.absent  # in view, so that it can be unticked


@pytest.mark.parametrize("model_id", PRESETS)
@pytest.mark.parametrize("which", [ALL_LINEAR, ATTENTION_ONLY])
def test_a_shortcut_computes_for_every_model_and_hides_the_boxes(model_id: str, which: str) -> None:
    result = evaluation(LORA_ID, texts(model_id, target_set=which, qkv_proj="on", q_a_proj="on"))
    assert result.status == "ok", result.errors
    assert set(MODULES) <= set(result.absent)


def test_attention_only_is_the_attention_of_each_layout() -> None:
    def modules(model_id: str) -> str:
        return str(outputs(LORA_ID, texts(model_id, target_set=ATTENTION_ONLY))["peft_targets"])
    assert modules("llama-2-7b") == 'target_modules=["q_proj", "k_proj", "v_proj", "o_proj"]'
    assert modules("falcon-7b") == 'target_modules=["qkv_proj", "o_proj"]'
    assert modules("deepseek-v3") == 'target_modules=["o_proj", "q_a_proj", "q_b_proj", "kv_a_proj_with_mqa",' \
        ' "kv_b_proj"]'
    assert str(outputs(LORA_ID, texts("llama-2-7b", target_set=ALL_LINEAR))["peft_targets"]) == \
        'target_modules="all-linear"'


def test_all_linear_is_at_least_the_attention_and_every_ticked_linear_box() -> None:
    for model_id in PRESETS:
        every = outputs(LORA_ID, texts(model_id, target_set=ALL_LINEAR))["trainable_parameters"]
        attention = outputs(LORA_ID, texts(model_id, target_set=ATTENTION_ONLY))["trainable_parameters"]
        pair = outputs(LORA_ID, texts(model_id))["trainable_parameters"]
        assert isinstance(every, type(attention)) and every >= attention >= pair  # type: ignore[operator]
