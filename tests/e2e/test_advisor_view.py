"""The Advisor view in a real browser against a real server (offline brain): a profile
starts a session, a question streams its answer with the step, the tools and the sources,
the step is changed by hand, a reload restores the session, errors are shown."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

QUESTION = "材料費と労務費が上がったので原価を計算し直したい。450+300+150"


def _start_session(ui: Any, industry: str = "金属加工業") -> Any:
    page = ui.open("#/advisor")
    page.wait_for_selector('.conn-status[data-status="ready"]')
    page.fill("#advisor-industry", industry)
    page.fill("#advisor-products", "自動車部品")
    page.fill("#advisor-companySize", "従業員50名")
    page.fill("#advisor-region", "愛知県")
    page.fill("#advisor-clientIndustry", "自動車メーカー")
    page.fill("#advisor-priceTransferStatus", "まだ交渉していない")
    page.click(".advisor-profile button[type=submit]")
    expect(page.locator(".advisor-profile-view")).to_be_visible()
    return page


def _ask(page: Any, text: str) -> None:
    page.fill(".advisor-input", text)
    page.press(".advisor-input", "Enter")
    expect(page.locator(".advisor-cancel")).to_be_hidden()
    expect(page.locator(".advisor-send")).to_be_enabled()


def test_an_answer_shows_its_step_calculator_chip_sources_and_survives_a_reload(ui: Any) -> None:
    page = _start_session(ui)
    assert "金属加工業" in page.locator(".advisor-profile-view").inner_text()
    expect(page.locator(".advisor-session[aria-current=true]")).to_contain_text("金属加工業")
    _ask(page, QUESTION)

    step = page.locator(".advisor-step")
    expect(step).to_have_attribute("data-step", "STEP_0_CHECK_3")
    expect(step).to_contain_text("原価計算の実施")
    assert step.locator(".advisor-confidence").get_attribute("data-confidence") == "high"
    chips = page.locator(".advisor-chip").evaluate_all("c => c.map(x => x.dataset.tool)")
    assert "calculator" in chips
    assert "電卓" in page.locator('.advisor-chip[data-tool="calculator"]').inner_text()
    answer = page.locator(".advisor-msg.assistant")
    expect(answer).to_contain_text("900")
    # The wire's marker for the seed client is a chip here, not text.
    assert "を使用中" not in answer.inner_text()
    assert answer.locator("blockquote").count() >= 1, "knowledge-base quotes render as Markdown"
    assert answer.locator('ol[start="2"]').count() == 1, "numbered hits keep their numbers"
    files = page.locator(".advisor-source-file").all_inner_texts()
    assert files and all(f.endswith(".md") for f in files)
    step.click()
    expect(page.locator(".advisor-reasoning")).to_contain_text("STEP_0_CHECK_3")
    ui.screenshot("advisor-answer")

    page.select_option(".advisor-step-select", "STEP_3")
    expect(step).to_have_attribute("data-step", "STEP_3")
    expect(step).to_contain_text("書面での申し入れ")
    assert "STEP_" not in step.inner_text()  # the step by its title, its id only in data
    ui.screenshot("advisor-step-changed")

    page.reload()
    expect(page.locator(".advisor-step")).to_have_attribute("data-step", "STEP_3")
    expect(page.locator(".advisor-step")).to_contain_text("書面での申し入れ")
    assert page.locator(".advisor-msg.user").all_inner_texts() == [QUESTION]
    expect(page.locator(".advisor-msg.assistant")).to_contain_text("900")
    assert "金属加工業" in page.locator(".advisor-profile-view").inner_text()
    # the answer comes back with its chips and sources, the step with its confidence
    expect(page.locator('.advisor-chip[data-tool="calculator"]')).to_have_count(1)
    assert page.locator(".advisor-source-file").all_inner_texts() == files
    assert page.locator(".advisor-step .advisor-confidence").get_attribute(
        "data-confidence") == "high"
    ui.screenshot("advisor-restored")
    assert ui.errors == []


def test_the_view_speaks_english_and_clear_forgets_the_conversation(ui: Any) -> None:
    page = _start_session(ui, industry="印刷業")
    _ask(page, QUESTION)
    page.click('.lang-switch button[data-lang="en"]')
    expect(page.locator(".nav a[data-view=advisor]")).to_have_text("Advisor")
    expect(page.locator(".advisor-clear")).to_have_text("Clear conversation")
    expect(page.locator('.advisor-chip[data-tool="calculator"]')).to_contain_text("Calculator")
    assert page.locator(".advisor-sources h3").inner_text() == "Sources"
    assert page.locator('label[for="advisor-industry"]').inner_text() == "Industry"
    ui.screenshot("advisor-english")
    page.once("dialog", lambda d: d.accept())
    page.click(".advisor-clear")
    expect(page.locator(".advisor-msg")).to_have_count(0)
    expect(page.locator(".advisor-step")).to_have_attribute("data-step", "")
    page.reload()
    expect(page.locator(".advisor-profile-view")).to_contain_text("印刷業")
    expect(page.locator(".advisor-msg")).to_have_count(0)
    page.click('.lang-switch button[data-lang="ja"]')
    assert ui.errors == []


def test_a_session_deleted_elsewhere_shows_the_servers_error_and_leaves_the_list(
        ui: Any) -> None:
    page = _start_session(ui, industry="食品製造業")
    session_id = page.evaluate("localStorage.getItem('shokunin.advisor.session')")
    assert httpx.delete(f"{ui.server.url}/api/session/{session_id}").status_code == 200
    _ask(page, "こんにちは")
    expect(page.locator(".advisor-turn .advisor-error")).to_contain_text(
        "セッションが見つかりません")  # the user's words (issue 36), not the id
    expect(page.locator(f'.advisor-session[data-session="{session_id}"]')).to_have_count(0)
    ui.screenshot("advisor-error")
    page.click(".advisor-new")
    expect(page.locator(".advisor-profile")).to_be_visible()
    assert page.locator(".advisor-input").is_disabled()
    expect(page.locator(".advisor-empty")).to_contain_text("この内容で相談を始める")
    ui.screenshot("advisor-new-session")
    page.reload()  # the forgotten session is not restored
    expect(page.locator(".advisor-profile")).to_be_visible()


def test_a_drawn_diagram_is_shown_under_its_answer_once(ui: Any) -> None:
    page = _start_session(ui, industry="樹脂成形業")
    _ask(page, "原価の内訳をグラフにしてください。材料費: 450、労務費: 300、経費: 150")
    figure = page.locator(".advisor-turn .advisor-diagram")
    expect(figure).to_have_count(1)
    expect(figure.locator("img")).to_have_js_property("complete", True)
    assert figure.locator("img").evaluate("img => img.naturalWidth") > 100
    assert figure.locator("figcaption").inner_text() == "図を別のタブで開く"  # not its file name
    _ask(page, "450*2")  # the same file again: not shown twice
    expect(page.locator(".advisor-msg.assistant")).to_have_count(2)
    expect(page.locator(".advisor-diagram")).to_have_count(1)
    page.reload()  # a restored session shows its latest diagram under the last answer
    expect(page.locator(".advisor-turn").last.locator(".advisor-diagram")).to_have_count(1)
    ui.screenshot("advisor-diagram")
    assert ui.errors == []


def test_an_answer_cut_off_mid_stream_is_resumed_from_the_last_event(ui: Any) -> None:
    resumed: list[str] = []

    def cut_after_the_step(route: Any) -> None:  # the real answer, cut before its tools
        response = route.fetch()
        blocks = [b for b in response.text().split("\n\n") if "data:" in b]
        # run, status (seq 1), step_update (seq 2)
        route.fulfill(response=response, body="\n\n".join(blocks[:3]) + "\n\n")

    ui.page.route("**/api/chat", cut_after_the_step)
    ui.page.on("request", lambda r: "/api/chat/runs/" in r.url and resumed.append(r.url))
    page = _start_session(ui, industry="繊維業")
    _ask(page, QUESTION)
    expect(page.locator(".advisor-msg.assistant")).to_contain_text("900")
    expect(page.locator('.advisor-chip[data-tool="calculator"]')).to_have_count(1)
    assert len(resumed) == 1 and resumed[0].endswith("/events?after=2")
    assert page.locator(".advisor-step").get_attribute("data-step") == "STEP_0_CHECK_3"
    assert page.locator(".advisor-error").count() == 0
    assert ui.errors == []
