"""The offline Analyst on the questions issue 37 saw answered wrong: each is now answered
right, or honestly not answered (never a confident wrong number), and a clarification names
only real columns. Each plan's code runs here on the table, as the kernel would run it."""

from __future__ import annotations

import contextlib
import io
from typing import Any

import numpy as np
import pandas as pd
import pytest

from shokunin.agents.analyst import kernel_code
from shokunin.agents.analyst import offline as planner
from shokunin.agents.analyst.profile import DatasetProfile, frame_profile


def _profile(df: pd.DataFrame) -> DatasetProfile:
    return frame_profile(df, format="csv", engine="pandas")


def _run(task: Any, df: pd.DataFrame) -> tuple[str, dict[str, Any]]:
    assert isinstance(task, planner.Task), task
    namespace: dict[str, Any] = {"df": df.copy(), "TABLE_MARKDOWN": [], "JSON_OUT": []}
    exec(kernel_code.CELL_HELPERS, namespace)  # noqa: S102
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(task.code, namespace)  # noqa: S102
    import matplotlib.pyplot as plt
    plt.close("all")
    return out.getvalue() + "\n".join(namespace["TABLE_MARKDOWN"]), namespace


@pytest.fixture(scope="module")
def daily() -> pd.DataFrame:
    """A year of daily sales of four products, English column names."""
    rng = np.random.default_rng(7)
    days = pd.date_range("2024-01-01", "2024-12-31", freq="D")
    rows = [(d, p, int(rng.integers(1000, 9000)), int(rng.integers(1, 40)))
            for d in days for p in ("ProductA", "ProductB", "ProductC", "ProductD")]
    return pd.DataFrame(rows, columns=["date", "product", "sales", "quantity"])


def test_a_monthly_trend_on_daily_rows_gives_twelve_monthly_totals(daily: pd.DataFrame) -> None:
    task = planner.plan("月別の売上合計の推移", _profile(daily))
    shown, ns = _run(task, daily)
    monthly = daily.groupby(daily.date.dt.to_period("M")).sales.sum()
    assert len(ns["table"]) == 12
    assert ns["table"].iloc[:, 0].tolist() == monthly.tolist()
    assert task.instruction.startswith("月別")  # the answer restates what it computed


def test_top_three_products_are_three_products_not_three_rows(daily: pd.DataFrame) -> None:
    shown, ns = _run(planner.plan("売上の上位3つの商品は？", _profile(daily)), daily)
    top = daily.groupby("product").sales.sum().nlargest(3)
    assert list(ns["table"].index) == list(top.index)
    assert ns["table"].iloc[:, 0].tolist() == top.tolist()


def test_japanese_words_bind_to_english_columns_for_a_product_month_over_month(
        daily: pd.DataFrame) -> None:
    task = planner.plan("ProductAの月別売上の前月比を教えて", _profile(daily))
    shown, ns = _run(task, daily)
    a = daily[daily["product"] == "ProductA"]
    monthly = a.groupby(a.date.dt.to_period("M")).sales.sum()
    assert ns["table"]["change_%"].round(6).tolist()[1:] == (
        monthly.pct_change() * 100).round(6).tolist()[1:]
    assert "ProductA" in task.instruction and "前月比" in task.instruction


def test_a_month_compared_with_the_month_before_shows_that_months_change(
        daily: pd.DataFrame) -> None:
    task = planner.plan("9月の全商品の売上合計は前月から何%変わった？", _profile(daily))
    shown, ns = _run(task, daily)
    monthly = daily.groupby(daily.date.dt.to_period("M")).sales.sum()
    change = (monthly.iloc[8] / monthly.iloc[7] - 1) * 100
    assert list(ns["table"].index) == ["2024-09"]
    assert ns["table"]["change_%"].iloc[0] == pytest.approx(change)


def test_a_word_holding_no_is_no_filter_and_ignore_is_not_done_silently() -> None:
    df = pd.DataFrame({"Age": [30, 40, 50, 60, 35], "Income": [3.0, 4.5, 5.0, 7.0, 3.9],
                       "Married": ["Yes", "No", "Yes", "No", "Yes"]})
    result = planner.plan("Ignore rows with missing values and give the correlation between "
                          "Age and Income", _profile(df))
    # "Ignore" holds "no" but is no value of Married; and it asks for something not done
    assert isinstance(result, planner.NotUnderstood)
    assert "ignore" in result.cannot
    shown, ns = _run(planner.plan("correlation between Age and Income", _profile(df)), df)
    assert ns["JSON_OUT"][0]["r"] == pytest.approx(df.Age.corr(df.Income))


def test_a_short_column_name_is_never_found_inside_a_longer_word() -> None:
    df = pd.DataFrame({"AT": [10.0, 20.0, 30.0], "AP": [1000.0, 1010.0, 1020.0]})
    task = planner.plan("What is the mean atmospheric pressure (AP)?", _profile(df))
    shown, ns = _run(task, df)
    assert task.columns == ["AP"]
    assert ns["table"].loc["AP", "mean"] == pytest.approx(1010.0)


def test_words_before_a_bracketed_column_describe_it() -> None:
    df = pd.DataFrame({"Pclass": [1, 2, 3, 1], "Ticket": ["a1", "b2", "c3", "d4"],
                       "Fare": [80.0, 20.0, 10.0, 100.0]})
    shown, ns = _run(planner.plan("average fare by ticket class (Pclass)", _profile(df)), df)
    assert ns["table"]["Fare"].to_dict() == {1: 90.0, 2: 20.0, 3: 10.0}


def test_a_quoted_name_is_a_column_not_a_value_to_look_for() -> None:
    df = pd.DataFrame({"Income": [100.0, 200.0, 600.0], "Name": ["a", "b", "c"]})
    shown, ns = _run(planner.plan('What is the median of "Income"?', _profile(df)), df)
    assert ns["table"].loc["Income", "median"] == 200.0


def test_which_country_is_answered_with_the_country() -> None:
    df = pd.DataFrame({"Country": ["Iceland", "Switzerland", "Denmark"],
                       "Happiness Score": [7.561, 7.587, 7.527]})
    shown, ns = _run(planner.plan("Which country has the highest happiness score?",
                                  _profile(df)), df)
    assert ns["JSON_OUT"][-1]["Country"] == "Switzerland"
    assert "Switzerland" in shown


def test_a_normality_question_gets_a_test_and_a_verdict() -> None:
    values = np.random.default_rng(1).exponential(size=300)
    df = pd.DataFrame({"wait": values})
    task = planner.plan("Is wait normally distributed?", _profile(df))
    shown, ns = _run(task, df)
    assert "Shapiro-Wilk" in task.instruction
    assert ns["JSON_OUT"][-1]["all"]["normal"] is False
    assert "no (non-normal)" in shown


@pytest.mark.parametrize("question", ["合計を出して", "平均は？", "どの値が一番大きい？"])
def test_a_clarification_offers_only_real_columns(daily: pd.DataFrame, question: str) -> None:
    asked = planner.plan(question, _profile(daily))
    assert isinstance(asked, planner.Clarify), asked
    assert "sales" in asked.question and "quantity" in asked.question


@pytest.mark.parametrize(("question", "word"), [
    ("担当者別の売上合計", "担当者"),
    ("売上の正規化をして", "正規化"),
    ("total sales per salesperson", "salesperson"),
])
def test_a_part_that_binds_to_nothing_is_named_and_not_answered(
        daily: pd.DataFrame, question: str, word: str) -> None:
    result = planner.plan(question, _profile(daily))
    assert isinstance(result, planner.NotUnderstood), result
    assert word in [*result.cannot, *result.unused]
    assert word in planner.explain(question, result)


def test_a_part_its_computation_would_leave_out_is_not_answered() -> None:
    df = pd.DataFrame({"station": ["a", "a", "b"], "obs": [1.0, None, 3.0],
                       "temp": [1.0, 2.0, 4.0]})
    # a correlation has no grouping: "for each station" would be dropped
    result = planner.plan("For each station, the correlation between obs and temp",
                          _profile(df))
    assert isinstance(result, planner.NotUnderstood)
    assert "the grouping" in result.cannot


def test_a_value_that_is_the_columns_own_word_is_not_a_filter() -> None:
    df = pd.DataFrame({"hotel_type": ["Hotel", "Hotel", "Hostel"],
                       "review_count": [10, 20, 60]})
    task = planner.plan("What is the average review count per hotel?", _profile(df))
    shown, ns = _run(task, df) if isinstance(task, planner.Task) else ("", {})
    if isinstance(task, planner.Task):  # never narrowed to hotel_type = Hotel
        assert ns["table"].loc["review_count", "mean"] == 30.0
    assert "hotel_type = Hotel" not in getattr(task, "instruction", "")


def test_a_daily_average_of_an_additive_measure_averages_the_days_totals(
        daily: pd.DataFrame) -> None:
    shown, ns = _run(planner.plan("1日あたりの平均売上はいくら？", _profile(daily)), daily)
    per_day = daily.groupby(daily.date.dt.date).sales.sum().mean()
    assert ns["table"].loc["mean", "per period"] == pytest.approx(per_day)
    weather = pd.DataFrame({"date": pd.date_range("2024-01-01", periods=60, freq="D"),
                            "wind": np.arange(60, dtype=float)})
    shown, ns = _run(planner.plan("average wind for each month", _profile(weather)), weather)
    assert ns["table"]["wind"].tolist() == [15.0, 45.0]  # a mean per month, not a total


def test_a_second_measure_a_series_cannot_draw_is_not_dropped(daily: pd.DataFrame) -> None:
    result = planner.plan("売上と数量の月別推移", _profile(daily))
    assert isinstance(result, planner.NotUnderstood)
    assert "複数の列を一度に" in planner.explain("売上と数量の月別推移", result)
    shown, ns = _run(planner.plan("売上と数量の合計", _profile(daily)), daily)  # a table takes both
    assert ns["table"]["sum"].tolist() == [daily.sales.sum(), daily.quantity.sum()]
