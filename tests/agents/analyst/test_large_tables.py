"""Large tables (read by the kernel from their Parquet copy): the offline planner names the
columns each request reads, so a cell loads only those, and they are enough; a cell that
runs out of memory is reported with the setting that bounds it."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from shokunin.agents.analyst import detect_source, kernel_code, profile_file
from shokunin.agents.analyst import offline as planner
from shokunin.agents.analyst.brains import OfflineBrain
from shokunin.agents.analyst.contracts import Cell
from shokunin.agents.analyst.storage import DatasetRecord
from shokunin.sandbox.contracts import ExecResult

SAMPLES = Path(__file__).resolve().parents[3] / "src/shokunin/data/analyst"
REQUESTS = [
    ("sales_en.csv", "total revenue by region"),
    ("sales_en.csv", "average units by store, top 3"),
    ("sales_en.csv", "revenue trend by month"),
    ("sales_en.csv", "correlation between units and revenue"),
    ("sales_en.csv", "distribution of unit_price"),
    ("sales_en.csv", "number of rows per product"),
    ("sales_en.csv", "crosstab of region and store"),
    ("sales_en.csv", "total revenue by store in North"),
    ("sales_ja_cp932.csv", "店舗別の売上高合計"),
    ("sales_ja_cp932.csv", "仕入先ごとの数量の平均、上位3"),
    ("sales_ja_cp932.csv", "売上高の月別推移"),
    ("sales_ja_cp932.csv", "東京本店のカテゴリ別売上高"),
    ("sales_ja_cp932.csv", "2024-03の売上高合計"),
    ("sales_ja_cp932.csv", "売上高の上位5件"),
    ("sales_ja_cp932.csv", "概要を教えて"),
]


def _table(name: str) -> tuple[pd.DataFrame, Any]:
    path = SAMPLES / name
    source, profile = profile_file(path, detect_source(path))
    assert source.encoding is not None
    return pd.read_csv(path, sep=source.delimiter, encoding=source.encoding.encoding), profile


def _shown(code: str, frame: pd.DataFrame) -> tuple[list[Any], list[Any], list[Any]]:
    space: dict[str, Any] = {"df": frame.copy(), "TABLE_MARKDOWN": [], "JSON_OUT": []}
    exec(kernel_code.CELL_HELPERS, space)  # noqa: S102 - the cell's helpers, as the kernel
    exec(code, space)  # noqa: S102 - our code
    return space["TABLE_MARKDOWN"], space["JSON_OUT"], space["_ANSWERS"]


@pytest.mark.parametrize(("sample", "question"), REQUESTS)
def test_the_columns_a_task_names_are_enough_to_answer_it(sample: str, question: str) -> None:
    frame, profile = _table(sample)
    task = planner.plan(question, profile)
    assert isinstance(task, planner.Task), task
    if task.columns is None:  # it reads the whole table
        return
    assert set(task.columns) < set(frame.columns)
    assert _shown(task.code, frame[task.columns]) == _shown(task.code, frame)


def test_whole_rows_and_overviews_read_the_whole_table() -> None:
    _, profile = _table("sales_ja_cp932.csv")
    for question in ("売上高の上位5件", "概要を教えて"):
        task = planner.plan(question, profile)
        assert isinstance(task, planner.Task) and task.columns is None, question
    month = planner.plan("2024-03の売上高合計", profile)  # a period of the time column
    assert isinstance(month, planner.Task) and month.columns == ["売上高", "年月"]


def _record(sample: str, large: bool) -> DatasetRecord:
    _, profile = _table(sample)
    return DatasetRecord(
        id="d1", thread_id="t1", original_name=sample, size_bytes=1, format="csv",
        encoding="utf-8", encoding_method="utf-8", delimiter=",", header=True,
        engine="duckdb" if large else "pandas", path=f"datasets/d1/{sample}",
        parquet_path="datasets/d1/data.parquet" if large else None,
        created_at=datetime.now(UTC), profile=profile)


async def test_the_offline_brain_reads_only_the_needed_columns_of_a_large_table() -> None:
    brain = OfflineBrain()
    large, small = _record("sales_en.csv", True), _record("sales_en.csv", False)
    pruned = await brain.write_code("total revenue by region", "", large, [])
    assert pruned.startswith('df = _read_table(["revenue", "region"])\n')
    assert not (await brain.write_code("total revenue by region", "", small, [])
                ).startswith("df = _read_table(")
    assert not (await brain.write_code("overview", "", large, [])).startswith("df = _read_table(")


async def test_a_cell_out_of_memory_is_reported_with_the_setting_that_bounds_it() -> None:
    failed = Cell(instruction="The sum of revenue by region.", code="...", result=ExecResult(
        ok=False, error_type="ArrowMemoryError", error_message="malloc of size 987520 failed"))
    report = await OfflineBrain().summarize("total revenue by region",
                                            _record("sales_en.csv", True), [failed])
    assert "ArrowMemoryError" in report and "SHOKUNIN_SANDBOX_MEMORY_MB" in report
