"""The builtin cost_impact tool (価格転嫁検討ツール): the impact of a cost rise, worked out by
hand here, and figures it cannot use refused in Japanese as a failed result."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from shokunin.config import Settings
from shokunin.tools import InvalidArguments, ToolRegistry
from shokunin.tools.builtin.cost_impact import cost_impact_tool

BASE = {"before_sales": 10_000_000, "before_cost": 6_000_000, "before_expenses": 2_000_000,
        "current_sales": 10_000_000, "current_cost": 7_000_000, "current_expenses": 2_000_000}


@pytest.fixture(scope="module")
def tools() -> ToolRegistry:
    return ToolRegistry.from_settings(Settings(
        data_dir=Path("/nonexistent-shokunin"), tools_dirs=[],
        tool_settings_file=Path("/nonexistent-shokunin/s.json")))


async def _run(tools: ToolRegistry, tmp_path: Path, **changed: Any) -> dict[str, Any]:
    return await tools.execute("cost_impact", BASE | changed, workspace=tmp_path)


def test_it_is_a_builtin_with_the_six_figures_as_parameters(tools: ToolRegistry) -> None:
    info = tools.get("cost_impact")
    assert (info.source, info.status, info.title) == ("builtin", "ok", "価格転嫁検討ツール")
    parameters = info.declaration["parameters"]
    assert parameters["required"] == list(BASE)
    assert {p["type"] for p in parameters["properties"].values()} == {"number"}


async def test_a_rise_in_cost_of_sales_with_flat_sales(tools: ToolRegistry,
                                                       tmp_path: Path) -> None:
    result = (await _run(tools, tmp_path))["result"]
    assert (result["before"]["total_cost"], result["before"]["profit"],
            result["before"]["profit_rate"]) == (8_000_000, 2_000_000, 20)
    assert (result["current"]["total_cost"], result["current"]["profit"],
            result["current"]["profit_rate"]) == (9_000_000, 1_000_000, 10)
    assert result["changes"]["total_cost"] == {"amount": 1_000_000, "rate": 12.5}
    assert result["changes"]["profit"] == {"amount": -1_000_000, "rate": -50}
    assert (result["reference_price"], result["price_gap"], result["price_gap_rate"]) == (
        11_250_000, 1_250_000, 12.5)
    assert result["needs_pass_through"] is True
    assert result["judgement"] == (
        "総コストの増加率（12.50%）が売上高の増加率（0.00%）を上回り、利益率が20.00%から"
        "10.00%に下がっています。価格転嫁を検討することをお勧めします。")


async def test_the_reference_price_keeps_the_margin_from_before(tools: ToolRegistry,
                                                                tmp_path: Path) -> None:
    result = (await _run(tools, tmp_path, before_sales=7_300_000, current_cost=6_543_210,
                         current_expenses=2_345_678))["result"]
    reference, total = result["reference_price"], result["current"]["total_cost"]
    assert (reference - total) / reference * 100 == pytest.approx(
        result["before"]["profit_rate"])


async def test_a_pass_through_is_needed_once_costs_outgrow_sales(
        tools: ToolRegistry, tmp_path: Path) -> None:
    # Sales +10 % (11,000,000); total cost +10 % too (8,800,000 of 8,000,000): the margin
    # stays 20 %. One more yen of expenses tips it: the margin falls.
    held = (await _run(tools, tmp_path, current_sales=11_000_000, current_cost=6_600_000,
                       current_expenses=2_200_000))["result"]
    assert held["current"]["profit_rate"] == 20 and held["needs_pass_through"] is False
    fell = (await _run(tools, tmp_path, current_sales=11_000_000, current_cost=6_600_000,
                       current_expenses=2_200_001))["result"]
    assert fell["needs_pass_through"] is True and "に下がっています" in fell["judgement"]
    assert fell["current"]["profit_rate"] < 20


async def test_a_loss_that_grows_is_a_fall_in_profit(tools: ToolRegistry,
                                                     tmp_path: Path) -> None:
    # Before: a loss of 100,000 (10,100,000 of cost); now a loss of 1,100,000.
    result = (await _run(tools, tmp_path, before_cost=8_100_000, current_cost=9_100_000)
              )["result"]
    assert result["before"]["profit"] == -100_000 and result["current"]["profit"] == -1_100_000
    assert result["changes"]["profit"] == {"amount": -1_000_000, "rate": -1000}


async def test_decimals_are_exact(tools: ToolRegistry, tmp_path: Path) -> None:
    result = (await _run(tools, tmp_path, before_sales=0.3, before_cost=0.1,
                         before_expenses=0.1, current_sales=0.3, current_cost=0.2,
                         current_expenses=0.1))["result"]
    assert result["before"]["total_cost"] == 0.2 and result["current"]["total_cost"] == 0.3
    assert result["current"]["profit"] == 0  # 0.3 - 0.3, not 5.5e-17


@pytest.mark.parametrize(("changed", "words"), [
    ({"before_sales": -1},
     "コスト高騰前の売上高: 0以上の金額を入力してください（マイナスは使えません）"),
    ({"current_sales": 0}, "現在の売上高は0より大きい金額を入力してください"),
    ({"before_cost": 0, "before_expenses": 0}, "高騰前のコストが0では"),
    ({"before_cost": 10**15 + 1}, "コスト高騰前の売上原価: 1,000兆円以下"),
])
async def test_figures_it_cannot_use_are_refused_in_japanese(
        tools: ToolRegistry, tmp_path: Path, changed: dict[str, Any], words: str) -> None:
    result = await _run(tools, tmp_path, **changed)
    assert result["success"] is False and result["result"] is None
    assert words in result["error"], result["error"]


def test_a_call_missing_a_figure_or_with_another_is_refused_before_it_runs(
        tools: ToolRegistry) -> None:
    with pytest.raises(InvalidArguments, match="required"):
        tools.validate_args("cost_impact", {k: v for k, v in BASE.items() if k != "before_cost"})
    with pytest.raises(InvalidArguments, match="Additional properties"):
        tools.validate_args("cost_impact", BASE | {"tax": 1})


@pytest.mark.parametrize(("value", "words"), [
    (True, "数値で入力してください"), ("700", "数値で入力してください"),
    (float("nan"), "有限の数値で入力してください"), (float("inf"), "有限の数値で入力してください"),
])
def test_called_directly_a_figure_that_is_not_a_number_is_refused(value: Any,
                                                                  words: str) -> None:
    # Through the registry the declaration refuses these first; a direct caller of
    # execute() (seed 003 tools are plain modules) gets the tool's own words.
    result = cost_impact_tool.execute(BASE | {"current_cost": value}, {})
    assert result == {"success": False, "error": f"現在の売上原価: {words}"}
