"""A model's report is written for a person too (issue 49): its prompt asks for the answer
first, in the question's language, numbers formatted and no code identifiers, and the cell's
table is shown once under it (not when the model wrote a table of its own)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from shokunin.agents.analyst.brains import LLMBrain
from shokunin.agents.analyst.contracts import Cell
from shokunin.models import register_script, scripted_model, unregister_script
from shokunin.sandbox import ExecResult
from tests.agents.analyst import offline_cells

SAMPLES = Path(__file__).resolve().parents[3] / "src/shokunin/data/analyst"
TABLE = "| region | revenue |\n|---|---:|\n| North | 107,052 |\n| South | 119,027 |"


@pytest.fixture
def brain() -> Iterator[LLMBrain]:
    register_script("analyst-report", ["South has the most revenue: 119,027.",
                                       f"South leads.\n\n{TABLE}"])
    yield LLMBrain(scripted_model("analyst-report"))
    unregister_script("analyst-report")


async def test_the_report_is_asked_for_as_a_person_reads_it(brain: LLMBrain) -> None:
    _frame, profile = offline_cells.table(SAMPLES / "sales_en.csv")
    record = offline_cells.record(SAMPLES / "sales_en.csv", profile)
    cell = Cell(instruction="Sum revenue by region.", code="...",
                result=ExecResult(ok=True, stdout="", table_markdown=[TABLE]))
    first = await brain.summarize("地域別の売上合計は？", record, [cell])
    assert first == f"South has the most revenue: 119,027.\n\n{TABLE}"  # the table, once
    prompt = str(brain.model.asked[0][0].content)  # type: ignore[attr-defined]
    for asked in ("Start with the answer", "language of the question", "thousands separators",
                  "never write code", "TABLE_MARKDOWN", "do not repeat it"):
        assert asked in prompt
    second = await brain.summarize("revenue by region", record, [cell])
    assert second.count("| South |") == 1  # the model's own table: not a second one
    failed = Cell(instruction="x", code="x", result=ExecResult(
        ok=False, error_type="KeyError", error_message="'x'", table_markdown=[TABLE]))
    register_script("analyst-report", ["It failed."])
    again = LLMBrain(scripted_model("analyst-report"))
    assert await again.summarize("x", record, [failed]) == "It failed."
