"""The Studio after a reload (issue 48, point 4): the project's page is in the URL, and
everything on it (status, checkpoints waiting and resolved with their feedback, agents,
outputs, the log) is read again from the server; the project list lists it."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

FEEDBACK = "敵の種類を増やして"


def shown(page: Any) -> dict[str, Any]:
    return {
        "name": page.locator(".studio-project-name").inner_text(),
        "status": page.locator(".studio-project-status").get_attribute("data-status"),
        "waiting": page.locator(".studio-checkpoint").evaluate_all(
            "cards => cards.map(c => c.dataset.checkpoint)"),
        "resolved": page.locator(".studio-resolved-item").all_inner_texts(),
        "agents": page.locator(".studio-agent").evaluate_all(
            "items => items.map(a => a.dataset.type + ':' + a.dataset.status)"),
        "outputs": page.locator(".studio-output").count(),
        "log": page.locator(".studio-log-entry .studio-log-message").all_inner_texts(),
    }


def test_a_reload_shows_the_project_as_it_was(ui: Any) -> None:
    page = ui.open("#/studio")
    expect(page.locator(".conn-status")).to_have_attribute("data-status", "ready")
    page.fill("#studio-name", "再読み込み")
    page.fill("#studio-concept", "迷路を抜けるパズル")
    page.select_option("#studio-platform", "web")
    page.select_option("#studio-scope", "mvp")
    page.click(".studio-create button[type=submit]")
    expect(page.locator(".studio-project-page")).to_be_visible()
    project = page.evaluate("location.hash").split("/")[-1]
    ui.wait_connected()
    page.click('.studio-actions button[data-action="start"]')
    card = page.locator('.studio-checkpoint[data-type="concept_review"]')
    expect(card).to_have_count(1)
    card.locator("textarea").fill(FEEDBACK)
    card.locator('.studio-resolve[data-resolution="revision_requested"]').click()
    expect(page.locator(".studio-resolved-item")).to_contain_text(FEEDBACK)
    title = page.locator(".studio-checkpoint .studio-checkpoint-title")
    expect(title).to_contain_text("修正 1 回目")
    ui.wait_connected()
    before = shown(page)
    assert before["waiting"] and before["log"]

    page.reload()
    expect(page.locator(".studio-resolved-item")).to_contain_text(FEEDBACK)
    expect(page.locator(".studio-checkpoint")).to_have_count(len(before["waiting"]))
    ui.wait_connected()
    after = shown(page)
    assert after["log"][:len(before["log"])] == before["log"]  # and any entry since
    assert {**after, "log": None} == {**before, "log": None}
    assert page.evaluate("location.hash") == f"#/studio/{project}"
    page.click(".studio-back")
    expect(page.locator(f'.studio-project-item[data-project="{project}"]')).to_have_count(1)
    assert ui.errors == []
