"""The Analyst's offline planner on the shipped samples: each request's code is run here on
the same table (as the sandbox kernel would run it), and its numbers are compared with
pandas computed independently; vague or wrong requests become clarifications."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from shokunin.agents.analyst import detect_source, kernel_code, profile_file
from shokunin.agents.analyst import offline as planner
from shokunin.agents.analyst.brains import OfflineBrain
from shokunin.agents.analyst.profile import DatasetProfile
from shokunin.agents.analyst.storage import DatasetRecord

SAMPLES = Path(__file__).resolve().parents[4] / "src/shokunin/data/analyst"


def _table(name: str) -> tuple[pd.DataFrame, DatasetProfile]:
    path = SAMPLES / name
    source, profile = profile_file(path, detect_source(path))
    assert source.encoding is not None
    frame = pd.read_csv(path, sep=source.delimiter, encoding=source.encoding.encoding)
    return frame, profile


@pytest.fixture(scope="module")
def sales_en() -> tuple[pd.DataFrame, DatasetProfile]:
    return _table("sales_en.csv")


@pytest.fixture(scope="module")
def sales_ja() -> tuple[pd.DataFrame, DatasetProfile]:
    return _table("sales_ja_cp932.csv")


def _run(task: Any, frame: pd.DataFrame) -> dict[str, Any]:
    """The task's code run as a cell would run it: its TABLE_MARKDOWN, JSON_OUT and df."""
    assert isinstance(task, planner.Task), task
    space: dict[str, Any] = {"df": frame.copy(), "TABLE_MARKDOWN": [], "JSON_OUT": []}
    exec(kernel_code.CELL_HELPERS, space)  # noqa: S102 - the cell's helpers
    exec(task.code.replace("plt.show()", "plt.close(fig)"), space)  # noqa: S102 - our code
    return space


def test_a_sum_by_a_named_column_matches_pandas(sales_en: Any) -> None:
    frame, profile = sales_en
    out = _run(planner.plan("total revenue by region", profile), frame)
    expected = frame.groupby("region")["revenue"].sum()
    assert out["table"]["revenue"].to_dict() == pytest.approx(expected.to_dict())


@pytest.mark.parametrize(("question", "func", "column", "by"), [
    ("average units by store", "mean", "units", "store"),
    ("median unit_price per product", "median", "unit_price", "product"),
    ("店舗別の売上高合計", "sum", "売上高", "店舗"),
    ("カテゴリごとの数量の平均", "mean", "数量", "カテゴリ"),
    ("仕入先別の単価の最大", "max", "単価", "仕入先"),
])
def test_aggregates_by_a_column_in_either_language(
        sales_en: Any, sales_ja: Any, question: str, func: str, column: str, by: str) -> None:
    frame, profile = sales_ja if planner.is_ja(question) else sales_en
    out = _run(planner.plan(question, profile), frame)
    expected = frame.groupby(by)[column].agg(func)
    assert out["table"][column].to_dict() == pytest.approx(expected.to_dict())


def test_top_n_groups_keep_the_largest(sales_ja: Any) -> None:
    frame, profile = sales_ja
    out = _run(planner.plan("仕入先ごとの数量の平均、上位3", profile), frame)
    expected = frame.groupby("仕入先")["数量"].mean().nlargest(3)
    assert list(out["table"].index) == list(expected.index)  # ①㈱髙 read as written


def test_a_filter_on_a_value_narrows_the_rows(sales_ja: Any) -> None:
    frame, profile = sales_ja
    task = planner.plan("2024-03の売上高合計", profile)
    out = _run(task, frame)
    assert out["table"].loc["売上高", "sum"] == frame[frame["年月"] == "2024-03"]["売上高"].sum()
    assert "2024年3月" in task.instruction
    assert len(out["df"]) == len(frame)  # the cell's filter leaves the kernel's df whole
    shop = _run(planner.plan("東京本店のカテゴリ別の売上高合計", profile), frame)
    tokyo = frame[frame["店舗"] == "東京本店"].groupby("カテゴリ")["売上高"].sum()
    assert shop["table"]["売上高"].to_dict() == tokyo.to_dict()


def test_a_trend_is_in_time_order_with_its_change(sales_ja: Any) -> None:
    frame, profile = sales_ja
    out = _run(planner.plan("売上高の月別推移", profile), frame)
    expected = frame.groupby("年月")["売上高"].sum().sort_index()
    assert list(out["table"].index) == list(expected.index)
    assert out["table"]["売上高"].tolist() == expected.tolist()


def test_an_overview_and_a_correlation(sales_en: Any) -> None:
    frame, profile = sales_en
    assert _run(planner.plan("give me an overview", profile), frame)["JSON_OUT"] == [
        {"rows": len(frame), "columns": frame.shape[1]}]
    corr = _run(planner.plan("correlation between units and revenue", profile), frame)
    assert corr["JSON_OUT"][0]["r"] == pytest.approx(frame["units"].corr(frame["revenue"]))


def test_a_column_that_does_not_exist_is_asked_about_with_the_closest(sales_en: Any) -> None:
    _frame, profile = sales_en
    asked = planner.plan("total revenue by regoin", profile)
    assert isinstance(asked, planner.Clarify) and "“region”" in asked.question


def test_a_vague_total_over_several_numeric_columns_is_asked_about(sales_ja: Any) -> None:
    _frame, profile = sales_ja
    asked = planner.plan("合計を出して", profile)
    assert isinstance(asked, planner.Clarify)
    assert "数量" in asked.question and "売上高" in asked.question


def test_what_it_cannot_do_is_said_not_guessed(sales_en: Any) -> None:
    _frame, profile = sales_en
    assert isinstance(planner.plan("write me a poem about the stores", profile),
                      planner.NotUnderstood)


def test_row_counts_in_all_and_per_group(sales_en: Any) -> None:
    frame, profile = sales_en
    assert _run(planner.plan("how many rows does the table have?", profile), frame)[
        "JSON_OUT"] == [{"rows": len(frame)}]
    per = _run(planner.plan("how many rows per region", profile), frame)["table"]
    assert per.to_dict() == frame["region"].value_counts().to_dict()


def test_by_a_measure_ranks_the_groups_named_before_it(sales_en: Any) -> None:
    frame, profile = sales_en
    out = _run(planner.plan("top 3 stores by total revenue", profile), frame)
    expected = frame.groupby("store")["revenue"].sum().nlargest(3)
    assert list(out["table"].index) == list(expected.index)


def test_a_crosstab_of_two_named_columns(sales_ja: Any, sales_en: Any) -> None:
    frame, profile = sales_ja
    out = _run(planner.plan("店舗とカテゴリのクロス集計（売上高の合計）", profile), frame)
    expected = pd.crosstab(frame["店舗"], frame["カテゴリ"], values=frame["売上高"],
                           aggfunc="sum")
    assert out["table"].equals(expected)
    en_frame, en_profile = sales_en
    counts = _run(planner.plan("crosstab of region and product", en_profile), en_frame)
    assert counts["table"].equals(pd.crosstab(en_frame["region"], en_frame["product"]))
    assert isinstance(planner.plan("make a pivot please", en_profile), planner.Clarify)


async def test_a_question_still_unclear_after_its_clarifications_is_reported_not_crashed(
        sales_ja: Any) -> None:
    _frame, profile = sales_ja
    record = DatasetRecord(
        id="d1", thread_id="t1", original_name="sales_ja_cp932.csv", size_bytes=1,
        format="csv", encoding="cp932", encoding_method="cp932", delimiter=",", header=True,
        engine="pandas", path="datasets/d1/sales_ja_cp932.csv", parquet_path=None,
        created_at=datetime.now(UTC), profile=profile)
    # the graph reports after its last clarification went unanswered usefully
    question = "合計を出して\nわからない\nおまかせ"
    assert isinstance(planner.plan(question, profile), planner.Clarify)
    report = await OfflineBrain().summarize(question, record, [])
    assert "オフラインでは答えられません" in report and "数量" in report
