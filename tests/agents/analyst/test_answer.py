"""The offline Analyst's answer (issue 49): first a sentence in the question's language with
the number the cell computed, then one table whose headers are words (never ``index``,
``sum`` or ``nan``) and whose numbers are formatted, the currency where the column is money."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from shokunin.agents.analyst import answer
from tests.agents.analyst import offline_cells

SAMPLES = Path(__file__).resolve().parents[3] / "src/shokunin/data/analyst"


def _said(name: str, question: str) -> str:
    frame, profile = offline_cells.table(SAMPLES / name)
    _plan, text, ran = offline_cells.answer(question, SAMPLES / name, frame, profile)
    assert ran, text
    return text


def test_a_monthly_total_with_its_month_over_month_change() -> None:
    text = _said("sales_ja_cp932.csv", "月別の売上と前月比を見せて")
    sentence, table = text.split("\n\n")
    assert sentence == ("月別の売上高の合計は、最新の 2024年12月 が 1,354,660 円"
                        "（前月比 +50.7%）です。")
    lines = table.splitlines()
    assert lines[0] == "| 年月 | 売上高（合計、円） | 前月比 |"
    assert lines[1] == "|---|---:|---:|"
    assert lines[2] == "| 2024年1月 | 897,580 | — |"  # no change for the first month
    assert lines[3] == "| 2024年2月 | 953,390 | +6.2% |"


def test_a_total_by_group_names_the_first_and_its_amount() -> None:
    text = _said("sales_en.csv", "地域別の売上合計は？")
    assert text.splitlines()[0] == "region 別の revenue の合計は、South が最も多く 119,027 です。"
    assert "| region | revenue（合計） |" in text and "| South | 119,027 |" in text
    english = _said("sales_en.csv", "total revenue by region")
    assert english.startswith("By region, South has the highest total of revenue: 119,027.")


@pytest.mark.parametrize(("name", "question", "sentence"), [
    ("sales_ja_cp932.csv", "売上高の合計", "売上高の合計は 12,071,030 円です。"),
    ("sales_ja_cp932.csv", "東京本店の売上高合計", "東京本店の売上高の合計は 3,646,170 円です。"),
    ("survey_ja.csv", "満足度の平均", "満足度の平均は 3.58 です。"),
    ("survey_ja.csv", "回答は何件？", "行数は 300 件です。"),
    ("sales_en.csv", "average units", "The average of units is 81.48."),
    ("sales_ja_cp932.csv", "数量と売上高の相関",
     "数量と売上高には中程度の正の相関があります（相関係数 0.461、p < 0.0001、420 件）。"),
])
def test_one_number_is_one_sentence(name: str, question: str, sentence: str) -> None:
    assert _said(name, question) == sentence  # the number said once: no table to repeat it


def test_an_overview_says_types_in_words() -> None:
    text = _said("sales_ja_cp932.csv", "概要を教えて")
    assert text.startswith("この表は 420 行 × 8 列です。欠損値はありません。")
    assert "| 売上高 | 整数 | 0 | 0.0% |" in text and "int64" not in text
    assert "| 列 | 件数 | 平均 | 標準偏差 | 最小 | 第1四分位 | 中央値 | 第3四分位 | 最大 |" in text


def test_a_long_table_is_cut_saying_so() -> None:
    result = {"spec": {"kind": "grouped", "ja": True, "measures": ["売上"], "aggs": ["sum"],
                       "group": "店"},
              "tables": [{"index_name": "店", "index": [f"店{i}" for i in range(40)],
                          "columns": [["売上"]], "data": [[1000 * i] for i in range(40)],
                          "rows": 40}]}
    text = answer.write(result, ja=True)
    assert text.startswith("店別の売上の合計は、店39 が最も多く 39,000 円です。")
    assert len(re.findall(r"\n\| 店\d+ \|", text)) == 30
    assert text.endswith("（全 40 行のうち 30 行を表示）")
