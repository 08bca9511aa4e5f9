"""The Analyst view in a real browser: upload a table, ask, see the code, a plot and the
report, answer a clarification inline, and download the report as one HTML page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

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
    assert "2024-01" in page.locator(".analyst-report").inner_text()
    ui.screenshot("analyst-report")
    href = page.locator('.analyst-downloads a[data-format="html"]').get_attribute("href")
    report = httpx.get(f"{ui.server.url}{href}")
    assert report.status_code == 200 and "<img" in report.text
    assert ui.errors == []
    saved = tmp_path / "report.html"  # the downloaded page, opened from disk on its own
    saved.write_text(report.text, encoding="utf-8")
    page.goto(saved.as_uri())
    assert page.locator("img").evaluate("img => img.naturalWidth") > 200
    assert "2024-01" in page.locator("body").inner_text()
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
    total = "12071030"
    assert total in page.locator(".analyst-output").last.inner_text()
    ui.screenshot("analyst-clarified")
    assert ui.errors == []
