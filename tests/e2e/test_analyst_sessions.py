"""The Analyst keeps its session across reloads (issue 48, point 4): the table, every
question and its answer come back from the stored thread, the session is in the list of
sessions, and one report of the whole session downloads as Markdown, HTML and a notebook."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

SAMPLES = Path(__file__).resolve().parents[2] / "src/shokunin/data/analyst"
CSV = "sales_ja_cp932.csv"
FIRST, SECOND = "売上高の月別推移", "店舗別の売上高合計"


def _ask(page: Any, question: str) -> None:
    reports = page.locator(".analyst-report").count()
    page.fill(".analyst-question", question)
    page.click(".analyst-ask button[type=submit]")
    expect(page.locator(".analyst-report")).to_have_count(reports + 1, timeout=60_000)
    expect(page.locator(".analyst-cancel")).to_be_hidden()


def _upload(ui: Any) -> Any:
    page = ui.open("#/analyst")
    page.set_input_files(".analyst-drop input", str(SAMPLES / CSV))
    page.wait_for_selector(".analyst-preview table")
    return page


def shown(page: Any) -> dict[str, Any]:
    """What the view shows of the session."""
    return {
        "title": page.locator(".analyst-title").inner_text(),
        "dataset": page.locator(".analyst-dataset").inner_text(),
        "preview": page.locator(".analyst-preview").inner_text(),
        "questions": page.locator(".analyst-msg.user").all_inner_texts(),
        "code": page.locator(".analyst-code").all_text_contents(),  # in closed disclosures
        "outputs": page.locator(".analyst-output").all_text_contents(),
        "plots": page.locator(".analyst-plot").count(),
        "reports": page.locator(".analyst-report .markdown").all_inner_texts(),
        "steps": page.locator(".analyst-steps li").evaluate_all(
            "items => items.map(i => i.dataset.node)"),
    }


def _download(page: Any, fmt: str, tmp_path: Path) -> str:
    with page.expect_download() as download:
        page.click(f'.analyst-session-report a[data-format="{fmt}"]')
    saved = tmp_path / download.value.suggested_filename
    download.value.save_as(saved)
    return saved.read_text(encoding="utf-8")


def test_a_reload_brings_back_the_table_the_questions_and_the_answers(
        ui: Any, tmp_path: Path) -> None:
    page = _upload(ui)
    expect(page.locator(".analyst-session-report")).to_be_hidden()  # nothing answered yet
    _ask(page, FIRST)
    _ask(page, SECOND)
    before = shown(page)
    assert before["title"] == CSV and before["questions"] == [FIRST, SECOND]
    assert before["plots"] >= 1 and len(before["reports"]) == 2
    thread = page.evaluate("localStorage.getItem('shokunin.analyst.thread')")
    assert thread and page.url.endswith(f"#/analyst/{thread}")

    page.reload()
    expect(page.locator(".analyst-report")).to_have_count(2)
    page.wait_for_selector(".analyst-preview table")
    assert shown(page) == before
    assert page.url.endswith(f"#/analyst/{thread}")
    assert page.locator(".analyst-plot").first.evaluate("img => img.naturalWidth") > 200
    assert thread not in page.locator("#view-analyst").inner_text()  # no id for a person
    page.wait_for_timeout(300)  # let the plot decode
    ui.screenshot("analyst-session-restored")

    # The session is in the list of sessions, marked as the one shown.
    page.click("#view-analyst .thread-toggle")
    item = page.locator(f'#view-analyst .thread-item[data-thread="{thread}"]')
    expect(item).to_have_attribute("aria-current", "true")
    expect(item).to_contain_text(CSV)
    expect(item).to_contain_text("質問 2 件")
    ui.screenshot("analyst-session-list")
    page.keyboard.press("Escape")

    # One report of the whole session, both questions in their order, in three files.
    expect(page.locator(".analyst-session-report")).to_be_visible()
    md = _download(page, "md", tmp_path)
    assert md.index(f"## 1. {FIRST}") < md.index(f"## 2. {SECOND}")
    assert "data:image/png;base64," in md
    html = _download(page, "html", tmp_path)
    assert f"<h2>1. {FIRST}</h2>" in html and f"<h2>2. {SECOND}</h2>" in html
    notebook = json.loads(_download(page, "ipynb", tmp_path))
    markdown = "".join("".join(c["source"]) for c in notebook["cells"]
                       if c["cell_type"] == "markdown")
    assert f"## 1. {FIRST}" in markdown and f"## 2. {SECOND}" in markdown
    assert sum(c["cell_type"] == "code" for c in notebook["cells"]) >= 3  # setup + two cells
    assert ui.errors == []


def test_a_new_session_starts_empty_and_the_list_reopens_the_earlier_one(ui: Any) -> None:
    page = _upload(ui)
    _ask(page, SECOND)
    first = page.evaluate("localStorage.getItem('shokunin.analyst.thread')")
    page.click("#view-analyst .thread-new")
    assert page.url.endswith("#/analyst")
    expect(page.locator(".analyst-msg")).to_have_count(0)
    expect(page.locator(".analyst-empty")).to_be_visible()
    assert page.locator(".analyst-preview").inner_text() == ""
    assert page.evaluate("localStorage.getItem('shokunin.analyst.thread')") is None
    page.reload()  # a new session stays new
    expect(page.locator(".analyst-empty")).to_be_visible()
    expect(page.locator(".analyst-title")).to_have_text("新しいセッション")
    ui.screenshot("analyst-new-session")
    page.set_input_files(".analyst-drop input", str(SAMPLES / "survey_ja.csv"))
    page.wait_for_selector(".analyst-preview table")
    second = page.evaluate("localStorage.getItem('shokunin.analyst.thread')")
    assert second not in (None, first) and page.url.endswith(f"#/analyst/{second}")

    page.click("#view-analyst .thread-toggle")
    items = page.locator("#view-analyst .thread-item")
    items.first.wait_for()
    assert items.nth(0).get_attribute("data-thread") == second  # the newest first
    page.click(f'#view-analyst .thread-item[data-thread="{first}"]')
    expect(page.locator(".analyst-msg.user")).to_have_text([SECOND])
    expect(page.locator(".analyst-title")).to_have_text(CSV)
    assert page.url.endswith(f"#/analyst/{first}")
    page.go_back()  # Back returns to the other session
    expect(page.locator(".analyst-title")).to_have_text("survey_ja.csv")
    expect(page.locator(".analyst-msg")).to_have_count(0)
    assert ui.errors == []


def test_a_clarification_comes_back_asked_or_still_to_answer(ui: Any) -> None:
    page = _upload(ui)
    page.fill(".analyst-question", "合計を出して")
    page.click(".analyst-ask button[type=submit]")
    page.wait_for_selector(".analyst-clarify input")
    page.reload()  # still waiting: the form is there again, and answering it goes on
    page.wait_for_selector(".analyst-clarify input")
    assert "売上高" in page.locator(".analyst-clarify").inner_text()
    page.fill(".analyst-clarify input", "売上高")
    page.click(".analyst-clarify button")
    page.wait_for_selector(".analyst-report")
    # the answer says the total, formatted; the cell's own output is in its disclosure
    assert "12,071,030 円" in page.locator(".analyst-report").last.inner_text()
    assert "12071030" in page.locator(".analyst-output").last.text_content()
    page.reload()  # answered: the question it asked, then the answer
    page.wait_for_selector(".analyst-report")
    expect(page.locator(".analyst-asked")).to_contain_text("確認の質問")
    assert page.locator(".analyst-clarify").count() == 0
    assert "12,071,030 円" in page.locator(".analyst-report").last.inner_text()
    assert ui.errors == []


def test_the_session_on_a_phone(make_page: Any, live_server: Any) -> None:
    ui = make_page(live_server, viewport=(375, 740))
    page = _upload(ui)
    _ask(page, FIRST)
    page.reload()
    expect(page.locator(".analyst-report")).to_have_count(1)
    page.locator(".analyst-main").scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    ui.screenshot("analyst-session-phone")
    page.click("#view-analyst .thread-toggle")
    expect(page.locator("#view-analyst .thread-panel")).to_be_visible()
    box = page.locator("#view-analyst .thread-panel").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 375
    ui.screenshot("analyst-session-list-phone")
    assert ui.errors == []
