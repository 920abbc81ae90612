"""The article's table of published peaks: per source, how many runs, which figure, the median and largest error of
the page's estimate of that figure, and how many are within their tolerance (``test_published_step`` holds the
article's table to these numbers)."""

from __future__ import annotations

from decimal import Decimal
from statistics import median

from tests.pages.published_runs import CASES, RESERVE, accepted, estimate, kind, per_gpu_figure

SOURCES = (  # (a piece of the source's address, the name the article gives it)
    ("pytorch/torchtune@", "torchtune (README)"), ("pytorch/torchtitan@", "torchtitan (benchmark)"),
    ("Lightning-AI/litgpt@", "LitGPT (tutorial e config hub)"), ("QwenLM/Qwen@", "Qwen (README)"),
    ("AnswerDotAI/fsdp_qlora@", "Answer.AI fsdp_qlora"), ("huggingface/peft@", "PEFT (documentazione)"),
)


def error(case: dict) -> Decimal:
    """Estimate of the case's own kind of figure over the figure, minus one."""
    e = estimate(case)
    figure_kind = kind(case)
    guess = e["allocated"] if figure_kind == "max_memory_allocated" else \
        e["allocated"] * RESERVE if figure_kind == "max_memory_reserved" else e["expected"]
    return guess / per_gpu_figure(case) - 1


def rows() -> list[tuple[str, int, int, str, str, str]]:
    out = []
    for piece, label in SOURCES:
        cases = [c for c in CASES if c["source"].startswith(piece)]
        if not cases:
            continue
        errors = [abs(error(c)) for c in cases]
        inside = sum(1 for c in cases if accepted(c)[0] <= per_gpu_figure(c) <= accepted(c)[1])
        names = {"max_memory_allocated": "allocato", "max_memory_reserved": "riservato", "unknown": "non detto"}
        kinds = sorted({names[kind(c)] for c in cases})
        out.append((label, len(cases), inside, ", ".join(kinds), f"{median(errors) * 100:.0f} %",
                    f"{max(errors) * 100:.0f} %"))
    return out


if __name__ == "__main__":
    for row in rows():
        print(row)
    assert sum(r[1] for r in rows()) == len(CASES)
