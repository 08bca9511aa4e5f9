"""The Analyst view in a real browser: upload a table, ask, see the code, a plot and the
report, answer a clarification inline, and download the report as one HTML page."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

SAMPLES = Path(__file__).resolve().parents[2] / "src/shokunin/data/analyst"


def _load(ui: Any, name: str) -> Any:
    page = ui.open("#/analyst")
    page.set_input_files(".analyst-drop input", str(SAMPLES / name))
    page.wait_for_selector(".analyst-preview table")
    return page


def test_upload_ask_see_the_plot_and_report_and_download_the_page(
        ui: Any, tmp_path: Path) -> None:
    page = _load(ui, "sales_ja_cp932.csv")
    assert "420" in page.locator(".analyst-dataset").inner_text()
    assert "東京本店" in page.locator(".analyst-preview").inner_text()
    page.fill(".analyst-question", "売上高の月別推移")
    page.click(".analyst-ask button[type=submit]")
    page.wait_for_selector(".analyst-report")
    assert page.locator(".analyst-code").count() == 1
    assert page.locator(".analyst-plot").count() == 1
    assert page.locator(".analyst-plot").evaluate("img => img.naturalWidth") > 200
    steps = page.locator(".analyst-steps li").evaluate_all("l => l.map(i => i.dataset.node)")
    assert steps[0] == "reason" and "run_code" in steps and steps[-1] == "report"
    assert "2024年1月" in page.locator(".analyst-report").inner_text()
    ui.screenshot("analyst-report")
    href = page.locator('.analyst-downloads a[data-format="html"]').get_attribute("href")
    report = httpx.get(f"{ui.server.url}{href}")
    assert report.status_code == 200 and "<img" in report.text
    assert ui.errors == []
    saved = tmp_path / "report.html"  # the downloaded page, opened from disk on its own
    saved.write_text(report.text, encoding="utf-8")
    page.goto(saved.as_uri())
    assert page.locator("img").evaluate("img => img.naturalWidth") > 200
    assert "2024年1月" in page.locator("body").inner_text()
    assert page.locator("details").count() == 1 and not page.locator("details").evaluate(
        "d => d.open")  # how it was computed: there, and closed
    ui.screenshot("analyst-downloaded-page")


def test_a_clarification_is_answered_inline(ui: Any) -> None:
    page = _load(ui, "sales_ja_cp932.csv")
    page.fill(".analyst-question", "合計を出して")
    page.click(".analyst-ask button[type=submit]")
    page.wait_for_selector(".analyst-clarify input")
    assert "売上高" in page.locator(".analyst-clarify").inner_text()
    page.fill(".analyst-clarify input", "売上高")
    page.click(".analyst-clarify button")
    page.wait_for_selector(".analyst-report")
    assert "売上高の合計は 12,071,030 円です。" in page.locator(".analyst-report").inner_text()
    ui.screenshot("analyst-clarified")
    assert ui.errors == []


def test_a_header_found_under_title_lines_is_said_in_the_summary(
        ui: Any, tmp_path: Path) -> None:
    sheet = tmp_path / "売上一覧.csv"
    sheet.write_text("2024年度 売上一覧\n作成日,2024/4/1\n\n店舗,売上\n東京,\"¥1,200\"\n"
                     "大阪,¥980\n福岡,\"¥2,345\"\n", encoding="utf-8")
    page = ui.open("#/analyst")
    page.set_input_files(".analyst-drop input", str(sheet))
    page.wait_for_selector(".analyst-preview table")
    summary = page.locator(".analyst-dataset").inner_text()
    assert "3 行 × 2 列" in summary and "4行目を見出しとして読みました" in summary
    assert page.locator(".analyst-preview th").all_inner_texts() == ["店舗", "売上"]
    assert "1200" in page.locator(".analyst-preview td").all_inner_texts()
    assert ui.errors == []


# What a person must never read in an answer (issue 49): the graph's node names, the cell's
# conventions, pandas' words for an index, an aggregation or a missing value.
INTERNAL = re.compile(r"run_code|TABLE_MARKDOWN|JSON_OUT|_md\b|\bdf\b|\bindex\b|\bsum\b|"
                      r"\bmean\b|\bnan\b|\bNone\b|dtype|float64|判断 · ", re.IGNORECASE)


def _ask(page: Any, question: str) -> Any:
    """Ask, wait for the answer; the new turn."""
    answered = page.locator(".analyst-report").count()
    page.fill(".analyst-question", question)
    page.click(".analyst-ask button[type=submit]")
    expect(page.locator(".analyst-report")).to_have_count(answered + 1, timeout=60_000)
    expect(page.locator(".analyst-cancel")).to_be_hidden()
    return page.locator(".analyst-turn").last


def _read_as_a_person(turn: Any) -> str:
    """What the turn shows with its disclosure closed: the answer, and one table."""
    assert not turn.locator("details.analyst-details").evaluate("d => d.open")
    expect(turn.locator(".analyst-code")).to_be_hidden()
    expect(turn.locator(".analyst-output")).to_be_hidden()
    assert turn.locator("table:visible").count() == 1  # not the cell's output, not twice
    said = turn.inner_text()
    assert not INTERNAL.search(said), INTERNAL.search(said)
    return said


def test_a_japanese_question_is_answered_first_in_words_with_one_formatted_table(
        ui: Any, make_page: Any) -> None:
    page = _load(ui, "sales_ja_cp932.csv")
    monthly = _ask(page, "月別の売上と前月比を見せて")
    said = _read_as_a_person(monthly)
    first = monthly.locator(".analyst-report .markdown > p").first.inner_text()
    assert first.startswith("月別の売上高の合計は") and "円" in first and "前月比" in first
    heads = monthly.locator(".analyst-report th").all_inner_texts()
    assert heads == ["年月", "売上高（合計、円）", "前月比"]
    assert "1,354,660" in said and "—" in said  # separators; the first month has no change
    assert monthly.locator(".analyst-report td.num").count() >= 24  # numbers to the right
    assert monthly.locator(".analyst-plot").count() == 1
    assert monthly.locator(".analyst-plot").evaluate("img => img.naturalWidth") > 400
    ui.screenshot("analyst-monthly-desktop")

    page.set_input_files(".analyst-drop input", str(SAMPLES / "sales_en.csv"))
    expect(page.locator(".analyst-title")).to_have_text("sales_en.csv")
    regions = _ask(page, "地域別の売上合計は？")
    said = _read_as_a_person(regions)
    assert said.startswith("region 別の revenue の合計は、South が最も多く 119,027 です。")
    assert regions.locator(".analyst-report th").all_inner_texts() == ["region", "revenue（合計）"]
    ui.screenshot("analyst-regions-desktop")

    regions.locator("details.analyst-details > summary").click()  # how it was computed
    expect(regions.locator(".analyst-code")).to_be_visible()
    steps = "\n".join(regions.locator(".analyst-steps").all_inner_texts())
    assert "コードを書いて計算します" in steps and "run_code" not in steps
    regions.locator("details.analyst-details").evaluate("d => d.scrollIntoView({block: 'start'})")
    ui.screenshot("analyst-regions-details")
    assert ui.errors == []

    thread = page.evaluate("localStorage.getItem('shokunin.analyst.thread')")
    phone = make_page(ui.server, viewport=(375, 740))
    view = phone.open(f"#/analyst/{thread}")
    expect(view.locator(".analyst-report")).to_have_count(2)
    for turn in (view.locator(".analyst-turn").nth(0), view.locator(".analyst-turn").nth(1)):
        _read_as_a_person(turn)
    assert view.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    plot = view.locator(".analyst-plot").first
    plot.scroll_into_view_if_needed()
    assert plot.evaluate("img => img.getBoundingClientRect().right <= window.innerWidth")
    for report, name in ((view.locator(".analyst-report").first, "analyst-monthly-phone"),
                         (view.locator(".analyst-report").last, "analyst-regions-phone")):
        report.evaluate("r => r.scrollIntoView({block: 'start'})")  # its first line
        phone.screenshot(name)
    assert phone.errors == []
