"""Issue 23: real ``config.json`` texts, as their publishers wrote them, pasted on every page that takes a model.

huggingface.co cannot be reached from here, so each text in ``tests/data/configs/<model id>.json`` was taken from a
public GitHub repository that vendors a copy; ``tests/data/configs/sources.json`` names, for each, the file it was
found in (``owner/repo@commit:path`` and where in that file), the Hugging Face page it copies, and the text's SHA-256.
A text is there only when it is the publisher's config of that very model: its sizes were compared with the
catalogue's entry and with what the publisher states (a re-saved, quantised or shrunk copy was not taken).
"""

from __future__ import annotations

import hashlib
import json
import re

import pytest

from calculator.form.api import respond
from calculator.form.registry import CALCULATORS
from calculator.llm import hf_config
from calculator.llm.catalogue import model
from calculator.pages.config_paste import same_model
from calculator.pages.presets import field_texts

from ..conftest import ROOT

CONFIGS = ROOT / "tests" / "data" / "configs"
SOURCES: dict[str, dict[str, str]] = json.loads((CONFIGS / "sources.json").read_text(encoding="utf-8"))
PAGES = ("vram-addestramento-llm", "memoria-attivazioni", "parametri-lora", "tempo-di-addestramento")
FOUND_AT = re.compile(r"^[\w.-]+/[\w.-]+@[0-9a-f]{40}:\S+$")
HF_CONFIG = re.compile(r"^https://huggingface\.co/[\w.-]+/[\w.-]+/blob/main/config\.json$")


def text_of(model_id: str) -> str:
    return (CONFIGS / f"{model_id}.json").read_text(encoding="utf-8")


def test_every_text_has_its_source_and_is_unchanged() -> None:
    assert {path.stem for path in CONFIGS.glob("*.json")} - {"sources"} == set(SOURCES)
    assert len(SOURCES) >= 20
    for model_id, row in SOURCES.items():
        assert FOUND_AT.match(row["found_at"]) and HF_CONFIG.match(row["copies"]), model_id
        assert FOUND_AT.match(row.get("also_at", row["found_at"])), model_id  # a second, independent copy
        # The catalogue links this very config, or the row says why another page of the same shape was copied.
        assert row["copies"] == model(model_id).source or row.get("note"), model_id
        raw = (CONFIGS / f"{model_id}.json").read_bytes()
        assert hashlib.sha256(raw).hexdigest() == row["sha256"], f"{model_id}.json is not the text recorded"


@pytest.mark.parametrize("model_id", sorted(SOURCES))
def test_a_published_config_reads_to_the_catalogues_model_and_the_publishers_count(model_id: str) -> None:
    entry = model(model_id)
    reading = hf_config.read(text_of(model_id))
    arch = reading.architecture
    assert reading.error == "" and arch is not None, reading.error
    assert same_model(arch) == entry
    assert arch.parameters() == entry.parameters()
    assert entry.stated_parameters and entry.agrees_with_publisher(arch.parameters())
    # Every key of a published config is either read or known to carry no weight.
    assert not any("Chiavi non usate" in note for note in reading.notes), reading.notes


@pytest.mark.parametrize("model_id", sorted(SOURCES))
@pytest.mark.parametrize("calculator_id", PAGES)
def test_a_published_config_fills_each_page_as_the_catalogues_button(model_id: str, calculator_id: str) -> None:
    answer = respond({"calculator": calculator_id, "paste": text_of(model_id)})
    assert answer["status"] == "pasted" and answer["error"] == ""
    fields = answer["fields"]
    assert isinstance(fields, dict)
    own = {spec.id for spec in CALCULATORS[calculator_id].fields}
    assert set(fields) <= own and {"layers", "attention_heads"} <= set(fields)
    entry = model(model_id)
    button = {key: value for key, value in field_texts(entry).items() if key in own}
    if calculator_id == "tempo-di-addestramento":  # the time page is given the head dimension always
        button["head_dim"] = str(entry.dim)
    assert fields == {key: button[key] for key in fields}
    notes = " ".join(answer["notes"])  # type: ignore[arg-type]
    assert f"È la forma di {entry.label} del catalogo" in notes and "(uguale" in notes
