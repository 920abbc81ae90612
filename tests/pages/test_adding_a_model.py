"""Adding a model is one catalogue entry: a throw-away entry, added to a copy of the package, reaches the presets
of every page that offers models, with its shape and its parameter count."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENTRY = '''
MODELS = (*MODELS, Architecture(
    "prova-1b", "Prova 1B", 16, 2048, 5632, 16, 4, 50000, "https://example.invalid/config.json", "Llama",
    offered=(VRAM, ACTIVATIONS, LORA)))
'''
PROBE = '''
import json
from calculator import CALCULATORS
print(json.dumps({calc.id: [dict(p.values) for p in calc.presets if p.id == "prova-1b"] for calc in CALCULATORS.values()}))
'''


def test_one_entry_reaches_every_page_that_offers_models(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "calculator", tmp_path / "calculator", ignore=shutil.ignore_patterns("__pycache__"))
    catalogue = tmp_path / "calculator" / "llm" / "catalogue.py"
    catalogue.write_text(catalogue.read_text(encoding="utf-8") + ENTRY, encoding="utf-8")
    found = json.loads(subprocess.run([sys.executable, "-c", PROBE], cwd=tmp_path, check=True, capture_output=True,
                                      text=True).stdout)
    offered = {page: presets for page, presets in found.items() if presets}
    assert sorted(offered) == ["memoria-attivazioni", "parametri-lora", "vram-addestramento-llm"]
    assert found["accumulo-del-gradiente"] == []  # the accumulation page asks for no model
    # 16 × (attention 2048·(2048 + 2·512 + 2048) + MLP 3·2048·5632 + 2 norms) + norm + untied embeddings and head
    parameters = 16 * (2048 * 5120 + 3 * 2048 * 5632 + 2 * 2048) + 2048 + 2 * 50000 * 2048
    assert offered["parametri-lora"][0]["base_parameters"] == str(parameters)
    assert offered["memoria-attivazioni"][0]["kv_heads"] == "4"
    assert offered["vram-addestramento-llm"][0]["hidden_size"] == "2048"
