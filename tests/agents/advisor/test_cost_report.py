"""The later origin client's cost-analysis result, sent back into the chat, is explained
from its own figures and its chart data drawn, offline (it drew 19 bars mixing yen and %,
and quoted unrelated knowledge-base examples)."""

from __future__ import annotations

import json
from typing import Any

from shokunin.agents.advisor.cost_report import chart_data, explain, read_report
from shokunin.events import BaseEvent
from shokunin.runs import Runner
from tests.agents.advisor.conftest import answer, consult

LABELS = ["売上高(前)", "売上原価(前)", "販管費(前)", "総コスト(前)", "利益(前)",
          "売上高(現在)", "売上原価(現在)", "販管費(現在)", "総コスト(現在)", "利益(現在)"]


def client_message(before: tuple[int, int, int], now: tuple[int, int, int]) -> str:
    """The message the client (a628280 App.tsx, handleCostAnalysisSubmit) sends after
    POST /api/cost-analysis, with the tool's figures for these sales, cost and expenses."""
    def side(sales: int, cost: int, expenses: int) -> dict[str, float]:
        total = cost + expenses
        return {"sales": sales, "cost": cost, "expenses": expenses, "total_cost": total,
                "profit": sales - total, "rate": (sales - total) / sales * 100}

    b, c = side(*before), side(*now)
    reference = c["total_cost"] / (1 - b["rate"] / 100)
    gap = reference - c["sales"]

    def change(key: str) -> str:
        amount = c[key] - b[key]
        return f"{amount:+,.0f}円 ({amount / abs(b[key]) * 100:+.2f}%)"

    def state(d: dict[str, float]) -> str:
        return (f"売上高: {d['sales']:,.0f}円\n売上原価: {d['cost']:,.0f}円\n"
                f"販管費・その他経費: {d['expenses']:,.0f}円\n総コスト: {d['total_cost']:,.0f}円\n"
                f"利益: {d['profit']:,.0f}円\n利益率: {d['rate']:.2f}%")

    data = [v / 1e6 for d in (b, c)
            for v in (d["sales"], d["cost"], d["expenses"], d["total_cost"], d["profit"])]
    return (
        "価格転嫁検討ツールで分析しました。以下の分析結果を要約して、分かりやすく説明してください。"
        "また、このデータを使って generate_diagram ツールで棒グラフも生成してください。\n\n"
        "【価格転嫁検討ツール - 分析結果】\n\n"
        f"【コスト高騰前の状況】\n{state(b)}\n\n【現在の状況】\n{state(c)}\n\n"
        f"【コスト高騰の影響】\n売上高: {change('sales')}\n売上原価: {change('cost')}\n"
        f"販管費・その他経費: {change('expenses')}\n総コスト: {change('total_cost')}\n"
        f"利益: {change('profit')}\n\n"
        "【参考価格の算出】\n"
        f"コスト高騰前の利益率を維持するための参考価格: {reference:,.0f}円\n"
        f"現在の価格との差額: {gap:+,.0f}円 ({gap / c['sales'] * 100:+.2f}%)\n\n"
        f"【図示用データ】\n{json.dumps({'data': data, 'labels': LABELS}, indent=2)}\n\n"
        "このデータを使って、コスト高騰前と現在の売上高、売上原価、販管費、総コスト、利益を比較する"
        "棒グラフを作成してください。")


MESSAGE = client_message((10_000_000, 6_000_000, 2_000_000), (10_500_000, 7_200_000, 2_100_000))


def test_the_report_is_read_by_section_and_label() -> None:
    report = read_report(MESSAGE)
    assert report is not None
    assert report.value("コスト高騰前の状況", "利益率") == 20.0
    assert report.value("現在の状況", "総コスト") == 9_300_000
    assert report.rate("コスト高騰の影響", "総コスト") == 16.25
    assert read_report("売上高: 100円\n利益率: 5%") is None  # no result of the tool


def test_the_chart_data_is_the_jsons_labels_and_values() -> None:
    data = chart_data(MESSAGE)
    assert data is not None and list(data) == LABELS
    assert data["売上高(現在)"] == 10.5 and data["利益(現在)"] == 1.2
    assert chart_data('{"labels": ["a"], "data": [1, 2]}') is None  # lengths differ


def test_the_explanation_states_the_figures_and_the_verdict_they_give() -> None:
    text = explain(read_report(MESSAGE))
    assert "20.00% から 11.43% に下がりました（-8.57 ポイント）" in text
    assert "11,625,000円" in text and "+1,125,000円（+10.71%）" in text
    assert "価格転嫁が必要と考えられます" in text
    steady = explain(read_report(client_message((10_000_000, 6_000_000, 2_000_000),
                                                (12_000_000, 7_000_000, 2_100_000))))
    assert "必要性は高くありません" in steady and "必要と考えられます" not in steady


def _calls(events: list[BaseEvent], name: str) -> list[dict[str, Any]]:
    return [e.args for e in events if e.kind == "tool_call" and e.name == name]


async def test_offline_the_client_result_is_explained_and_its_own_data_drawn(
        advisor: Runner) -> None:
    events = await consult(advisor, MESSAGE)
    text = answer(events)
    assert text.startswith("価格転嫁検討ツールの分析結果の要点です")
    assert "〔出典: " not in text  # no unrelated knowledge-base examples
    (chart,) = _calls(events, "generate_diagram")
    drawn = json.loads(chart["description"])
    assert list(drawn) == LABELS and chart["diagram_type"] == "bar"
    assert not _calls(events, "calculator")  # the tool computed the figures already
