"""Issue 23: a model's config.json pasted on a page fills every field the page has, with notes, offline."""

from __future__ import annotations

import json

import pytest

from calculator.form.api import respond
from calculator.form.registry import CALCULATORS
from calculator.llm.catalogue import model
from calculator.pages.presets import field_texts
from tests.pages.step_record import SETUPS

LLAMA_8B = next(s["model"] for s in SETUPS if s["model"]["hf_id"] == "meta-llama/Llama-3.1-8B")
CONFIG = json.dumps({**LLAMA_8B["config"], "model_type": "llama", "torch_dtype": "bfloat16"})
PAGES = ("vram-addestramento-llm", "memoria-attivazioni", "parametri-lora", "tempo-di-addestramento")


def paste(calculator_id: str, text: str) -> dict[str, object]:
    answer = respond({"calculator": calculator_id, "paste": text})
    assert answer["status"] == "pasted"
    return answer


@pytest.mark.parametrize("calculator_id", PAGES)
def test_a_pasted_config_fills_the_fields_the_page_has(calculator_id: str) -> None:
    answer = paste(calculator_id, CONFIG)
    fields = answer["fields"]
    assert isinstance(fields, dict) and answer["error"] == ""
    own = {spec.id for spec in CALCULATORS[calculator_id].fields}
    assert set(fields) <= own and {"layers", "attention_heads"} <= set(fields)
    notes = " ".join(answer["notes"])  # type: ignore[arg-type]
    assert "8.030.261.248" in notes and "Llama 3.1 8B" in notes and "(uguale)" in notes and "bfloat16" in notes
    # The page computes with the pasted fields what it computes with the catalogue's button.
    calc = CALCULATORS[calculator_id]
    preset = {k: v for k, v in field_texts(model("llama-3.1-8b")).items() if k in own}
    if calculator_id == "tempo-di-addestramento":
        preset["head_dim"] = "128"
    by_paste = respond({"calculator": calculator_id, "values": {**calc.defaults, **fields}})  # type: ignore[dict-item]
    by_button = respond({"calculator": calculator_id, "values": {**calc.defaults, **preset}})
    assert by_paste["status"] == "ok" and by_paste["results"] == by_button["results"]


def test_the_time_page_gets_the_head_dimension() -> None:
    assert paste("tempo-di-addestramento", CONFIG)["fields"]["head_dim"] == "128"  # type: ignore[index]
    assert paste("parametri-lora", CONFIG)["fields"]["head_dim"] == ""  # type: ignore[index]


@pytest.mark.parametrize("text", ["{", "[]", '{"model_type": "llama"}'])
def test_what_cannot_be_read_fills_nothing_and_says_why(text: str) -> None:
    answer = paste("parametri-lora", text)
    assert answer["fields"] == {} and answer["error"]


def test_a_page_without_a_model_reads_nothing() -> None:
    answer = respond({"calculator": "accumulo-del-gradiente", "paste": CONFIG})
    assert answer["fields"] == {} and answer["error"]


def test_the_paste_box_has_no_name_so_it_never_reaches_the_address() -> None:
    from calculator.form.render import render

    html = render(CALCULATORS["parametri-lora"])
    box = html.split("data-paste-box", 1)[1].split("</details>", 1)[0]
    assert "name=" not in box and "<textarea" in box and 'type="file"' in box


@pytest.mark.parametrize("model_id", ["deepseek-v3", "deepseek-v2-lite", "gpt-oss-20b"])
def test_a_2025_config_on_the_lora_page_computes_as_peft_counts(model_id: str) -> None:
    """The LoRA page's targets follow latent attention (it has no v_proj); the answer is the one PEFT gave for the
    same targets (tests/data/peft_counts.json, the query/value pair)."""
    from tests.llm.test_hf_config import NEW_FAMILY_CONFIGS
    from tests.pages.test_peft_counts import ROWS

    answer = paste("parametri-lora", json.dumps(NEW_FAMILY_CONFIGS[model_id]))
    fields = answer["fields"]
    assert isinstance(fields, dict)
    from calculator.pages.lora import MODULES

    entry, calc = model(model_id), CALCULATORS["parametri-lora"]
    values = {**calc.defaults, **fields, "rank": "16"}
    pair = {"q_b_proj" if entry.q_lora_rank else "q_proj", "kv_b_proj" if entry.mla else "v_proj"}
    assert {name for name in MODULES if values[name] == "on"} == pair
    result = respond({"calculator": calc.id, "values": values})
    assert result["status"] == "ok", result["errors"]
    peft = next(row["framework"] for row in ROWS if row["model"] == model_id and row.get("case", {}).get("rank") == 16)
    assert result["results"]["trainable_parameters"] == f"{peft:,}".replace(",", ".")  # type: ignore[index]


@pytest.mark.parametrize(("changes", "field", "words"), [
    ({"v_proj": "on"}, "v_proj", "non ci sono k_proj, v_proj"),
    ({"q_proj": "on"}, "q_proj", "passa da q_a_proj e q_b_proj"),
    ({"dense_intermediate_size": "0"}, "dense_intermediate_size", "serve la loro intermediate_size"),
    ({"qk_rope_head_dim": "0"}, "qk_rope_head_dim", "servono anche qk_rope_head_dim"),
    ({"kv_lora_rank": "0", "kv_b_proj": "on"}, "q_b_proj", "solo con l'attenzione latente"),  # by the first box
])
def test_latent_attention_edited_into_nonsense_gets_an_italian_message(changes: dict[str, str], field: str,
                                                                       words: str) -> None:
    from calculator.pages.lora import _preset

    calc = CALCULATORS["parametri-lora"]
    answer = respond({"calculator": calc.id, "values": {**calc.defaults, **_preset("deepseek-v3").values, **changes}})
    assert answer["status"] == "invalid"
    assert words in answer["errors"][field]  # type: ignore[index]
