"""The cell's helpers (kernel_code.CELL_HELPERS) write what a person reads (issue 49): ``_md``
formats a table's numbers, ``_chart`` puts a rate on its own axis beside the amounts with
ticks a person reads (never a 1e6 offset), and ``_answer`` keeps the cell's result as JSON;
the sandbox's policy lets every helper run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from shokunin.agents.analyst import kernel_code
from shokunin.agents.analyst import offline as planner
from shokunin.config import Settings
from shokunin.sandbox.policy import check_policy
from tests.agents.analyst import offline_cells

SAMPLES = Path(__file__).resolve().parents[3] / "src/shokunin/data/analyst"


def _helpers() -> dict[str, Any]:
    space: dict[str, Any] = {}
    exec(kernel_code.CELL_HELPERS, space)  # noqa: S102 - the helpers, as a cell runs them
    return space


def test_the_policy_lets_every_helper_run() -> None:
    code = kernel_code.CELL_HELPERS + kernel_code.SHOW
    assert check_policy(code, Settings().sandbox_allowed_imports) == []


def test_a_table_is_written_with_separators_and_no_index_or_nan() -> None:
    table = pd.DataFrame({"sum": [1001300.0, 211.1111], "share_%": [50.123, None]},
                         index=pd.Index(["東京", "大阪"]))
    written = _helpers()["_md"](table)
    lines = written.splitlines()
    assert lines[0] == "|  | sum | share_% |"  # no "index" over the labels
    assert lines[1] == "|---|---:|---:|"  # numbers to the right
    assert lines[2] == "| 東京 | 1,001,300.00 | 50.12 |"  # one number of decimals a column
    assert lines[3] == "| 大阪 | 211.11 |  |"  # nothing for a missing value
    assert "nan" not in written.lower()


def test_a_rate_is_drawn_on_its_own_axis_with_ticks_a_person_reads() -> None:
    frame, profile = offline_cells.table(SAMPLES / "sales_ja_cp932.csv")
    task = planner.plan("月別の売上と前月比を見せて", profile, "sales_ja_cp932.csv")
    assert isinstance(task, planner.Task)
    figures: list[Any] = []
    result = offline_cells.run(task.code, frame, figures)
    assert result.ok and len(figures) == 1
    figure = figures[0]
    figure.canvas.draw()
    amounts, rates = figure.axes
    assert amounts.get_title() == "月別の売上高（合計、円）と前月比"
    assert amounts.get_ylabel() == "売上高（合計、円）" and rates.get_ylabel() == "前月比（%）"
    monthly = frame.groupby("年月")["売上高"].sum()
    drawn = {line.get_label(): list(line.get_ydata()) for ax in figure.axes
             for line in ax.get_lines() if not line.get_label().startswith("_")}
    assert drawn["売上高（合計、円）"] == list(monthly)  # the yen on the left
    change = list(monthly.pct_change() * 100)
    assert drawn["前月比"][1:] == change[1:]  # the percentage on the right, not on the yen
    ticks = [t.get_text() for t in amounts.get_yticklabels() if t.get_text()]
    assert ticks and all(t.endswith("万") for t in ticks)
    assert all(t.get_text().endswith("%") for t in rates.get_yticklabels() if t.get_text())
    assert amounts.yaxis.get_offset_text().get_text() == ""  # no 1e6 above the axis
    import matplotlib.pyplot as plt
    plt.close(figure)


def test_the_answer_is_kept_as_json_with_what_was_asked() -> None:
    frame, profile = offline_cells.table(SAMPLES / "sales_en.csv")
    task = planner.plan("地域別の売上合計は？", profile, "sales_en.csv")
    result = offline_cells.run(task.code, frame)  # type: ignore[union-attr]
    kept = result.json[-1]["analyst_answer"]
    assert kept["spec"]["kind"] == "grouped" and kept["spec"]["group"] == "region"
    [table] = kept["tables"]
    assert table["index"] == ["North", "South", "West"] and table["columns"] == [["revenue"]]
    assert table["data"] == [[v] for v in frame.groupby("region")["revenue"].sum()]
