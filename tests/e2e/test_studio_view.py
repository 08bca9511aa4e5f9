"""The Studio view in a real browser against a real server (offline brain): a project is
created from the form, started, its checkpoints reviewed in the UI (a change request comes
back as a revised checkpoint), approved to the end; live updates arrive over Socket.IO;
the buttons follow the project's status; server errors are shown."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

CONCEPT = "小惑星帯を飛び回って敵を撃つ、短時間で遊べるシューティング"
FEEDBACK = "敵の種類を増やして"
STATUS = ".studio-project-status"


def _button(page: Any, action: str) -> Any:
    return page.locator(f'.studio-actions button[data-action="{action}"]')


def _card(page: Any, checkpoint_type: str) -> Any:
    return page.locator(f'.studio-checkpoint[data-type="{checkpoint_type}"]')


def _create(ui: Any, name: str) -> Any:
    page = ui.open("#/studio")
    expect(page.locator(".conn-status")).to_have_attribute("data-status", "ready")
    page.fill("#studio-name", name)
    page.fill("#studio-description", "ブラウザテストのプロジェクト")
    page.fill("#studio-concept", CONCEPT)
    page.select_option("#studio-platform", "web")
    page.select_option("#studio-scope", "mvp")
    page.fill("#studio-genre", "シューティング")
    page.fill("#studio-targetAudience", "通勤中の大人")
    page.click(".studio-create button[type=submit]")
    expect(page.locator(".studio-project-page")).to_be_visible()
    expect(page.locator(".studio-project-name")).to_have_text(name)
    return page


def _project_id(page: Any) -> str:
    return page.evaluate("location.hash").split("/")[-1]


def _approve_until_completed(page: Any, limit_s: float = 60) -> int:
    """Approve every checkpoint the UI shows until the project is completed."""
    approved = 0
    deadline = time.monotonic() + limit_s
    approve = page.locator('.studio-checkpoint:not(.resolving)'
                           ' .studio-resolve[data-resolution="approved"]:enabled')
    while (status := page.locator(STATUS).get_attribute("data-status")) != "completed":
        assert time.monotonic() < deadline, "the project did not complete"
        assert status == "running"  # read once: it may complete between two reads
        if approve.count():
            try:  # a card may go between the count and the click (approved, re-read)
                approve.first.click(timeout=2_000)
                approved += 1
            except PlaywrightTimeoutError:
                pass
        else:
            page.wait_for_timeout(50)
    return approved


def test_a_project_is_created_reviewed_and_approved_to_the_end_in_the_ui(
        make_page: Any, fresh_server: Any) -> None:
    ui = make_page(fresh_server)  # its own database: no agent has finished anywhere yet
    sockets: list[Any] = []
    ui.page.on("websocket", lambda ws: sockets.append(ws))
    page = _create(ui, "宇宙シューター")
    project_id = _project_id(page)
    expect(page.locator(STATUS)).to_have_attribute("data-status", "draft")
    expect(page.locator(STATUS)).to_have_text("下書き")
    expect(_button(page, "start")).to_be_enabled()
    expect(_button(page, "pause")).to_be_disabled()
    expect(_button(page, "resume")).to_be_disabled()
    expect(page.locator(".studio-phase")).to_have_count(3)
    expect(page.locator('.studio-phase[data-state="current"]')).to_have_attribute("data-phase", "1")
    # live over Socket.IO on the same origin, websocket transport
    ui.wait_connected()
    assert [ws.url for ws in sockets if "/socket.io/" in ws.url], "no Socket.IO websocket"
    assert all(ws.url.startswith(ui.server.url.replace("http", "ws")) for ws in sockets)
    assert "宇宙シューター" in page.locator("#view-studio").inner_text()

    _button(page, "start").click()
    expect(page.locator(STATUS)).to_have_attribute("data-status", "running")
    expect(_button(page, "start")).to_be_disabled()
    expect(_button(page, "pause")).to_be_enabled()
    expect(_button(page, "resume")).to_be_disabled()

    # the first checkpoint, readable: title, summary, the document's sections
    concept = _card(page, "concept_review")
    expect(concept).to_have_count(1)
    expect(concept.locator(".studio-checkpoint-title")).to_have_text("ゲームコンセプト の確認")
    expect(concept.locator(".studio-checkpoint-summary")).to_contain_text("宇宙シューター")
    assert concept.locator(".studio-doc-heading").all_inner_texts()[:2] == ["コンセプト", "前提"]
    expect(concept.locator(".studio-doc-body").first).to_have_text(CONCEPT)
    expect(page.locator('.studio-agent[data-type="concept"] .studio-badge')).to_have_text("実行中")
    expect(page.locator(".studio-agent")).to_have_count(11)  # the pipeline's agents, made at once
    # nothing has finished anywhere yet, so there is no estimate
    expect(page.locator('[data-metric="eta"]')).to_have_text("—")
    expect(page.locator(".studio-eta-note")).to_be_visible()
    expect(page.locator(".studio-log-entry").first).to_contain_text("出力を作成")
    ui.screenshot("studio-first-checkpoint")

    # request changes with feedback: a revised checkpoint that answers it
    first_id = concept.get_attribute("data-checkpoint")
    concept.locator("textarea").fill(FEEDBACK)
    concept.locator('.studio-resolve[data-resolution="revision_requested"]').click()
    revised = page.locator('.studio-checkpoint[data-type="concept_review"]'
                           f':not([data-checkpoint="{first_id}"])')
    expect(revised.locator(".studio-checkpoint-title")).to_contain_text("修正 1 回目")
    expect(revised.locator(".studio-checkpoint-summary")).to_contain_text(FEEDBACK)
    expect(revised.locator(".studio-doc")).to_contain_text(f"指摘: {FEEDBACK}")
    expect(page.locator(f'.studio-resolved-item[data-checkpoint="{first_id}"]')
           ).to_have_attribute("data-status", "revision_requested")
    expect(page.locator(f'.studio-resolved-item[data-checkpoint="{first_id}"]')
           ).to_contain_text(FEEDBACK)
    expect(page.locator('.studio-log-entry[data-level="warn"]').first).to_contain_text(FEEDBACK)
    expect(revised.locator("textarea")).to_have_value("")

    # approve it: resolved, and the next agent starts with its own checkpoint
    revised_id = revised.get_attribute("data-checkpoint")
    revised.locator('.studio-resolve[data-resolution="approved"]').click()
    expect(page.locator(f'.studio-resolved-item[data-checkpoint="{revised_id}"]')
           ).to_have_attribute("data-status", "approved")
    expect(page.locator('.studio-agent[data-type="concept"]')).to_have_attribute(
        "data-status", "completed")
    expect(page.locator('.studio-agent[data-type="design"]')).not_to_have_attribute(
        "data-status", "pending")
    expect(_card(page, "design_review")).to_have_count(1)
    expect(_card(page, "concept_review")).to_have_count(0)
    expect(page.locator('.studio-output[data-type="concept_doc"]')).to_have_count(1)
    ui.screenshot("studio-after-approval")

    # approve everything else in the UI until the project is completed
    approved = _approve_until_completed(page)
    assert approved >= 9  # design .. final review (some may go before the click lands)
    expect(page.locator(STATUS)).to_have_text("完了")
    expect(page.locator(".studio-progress")).to_have_attribute("aria-valuenow", "100")
    expect(page.locator(".studio-metric-percent")).to_have_text("100%")
    page.wait_for_function("""() => {  // the bar is drawn full (after its transition)
      const fill = document.querySelector('.studio-progress .studio-bar-fill');
      return fill.getBoundingClientRect().width >= fill.parentElement.clientWidth - 1;
    }""")
    expect(page.locator('.studio-phase[data-state="done"]')).to_have_count(3)
    expect(page.locator(".studio-checkpoint")).to_have_count(0)
    expect(page.locator(".studio-checkpoint-list .studio-empty")).to_be_visible()
    for action in ("start", "pause", "resume"):
        expect(_button(page, action)).to_be_disabled()
    expect(_button(page, "delete")).to_be_enabled()
    # every agent done, the workers under their leader
    expect(page.locator('.studio-agent[data-status="completed"]')).to_have_count(16)
    expect(page.locator('.studio-agent[data-type="code_leader"] > .studio-agent-workers'
                        ' > .studio-agent[data-type="code_worker"]')).to_have_count(3)
    expect(page.locator('.studio-agent[data-type="asset_leader"] > .studio-agent-workers'
                        ' > .studio-agent[data-type="asset_worker"]')).to_have_count(2)
    # the outputs: one per finished agent that wrote one, the images, the ZIP
    expect(page.locator(".studio-output")).to_have_count(14)
    expect(page.locator(".studio-asset img")).to_have_count(2)
    for img in page.locator(".studio-asset img").all():
        expect(img).to_have_js_property("complete", True)
        assert img.evaluate("i => i.naturalWidth") > 0
    download = page.locator(".studio-download")
    expect(download).to_be_visible()
    assert download.get_attribute("href") == f"/api/projects/{project_id}/outputs.zip"
    archive = page.request.get(f"{ui.server.url}/api/projects/{project_id}/outputs.zip")
    assert archive.ok and archive.body()[:2] == b"PK"
    assert page.locator(".studio-output").evaluate_all(
        "items => items.map(i => i.dataset.type)")[:3] == [
        "concept_doc", "design_doc", "scenario_doc"], "in pipeline order"
    page.locator(".studio-layout").evaluate("e => e.scrollTo(0, 0)")
    ui.screenshot("studio-completed")
    code = page.locator('.studio-output[data-type="code"]').first
    code.locator("> summary").click()
    expect(code.locator(".studio-doc-code")).to_contain_text("export function")
    ui.screenshot("studio-completed-outputs")

    # the list shows it completed; English works
    page.click(".studio-back")
    item = page.locator(f'.studio-project-item[data-project="{project_id}"]')
    expect(item).to_have_attribute("data-status", "completed")
    expect(item.locator(".studio-badge")).to_have_text("完了")
    page.click('.lang-switch button[data-lang="en"]')
    expect(item.locator(".studio-badge")).to_have_text("Completed")
    expect(page.locator(".studio-create button[type=submit]")).to_have_text("Create project")
    ui.screenshot("studio-list-english")
    page.click('.lang-switch button[data-lang="ja"]')
    assert ui.errors == []


def test_the_buttons_follow_the_status_pause_resume_and_delete(ui: Any) -> None:
    page = _create(ui, "一時停止テスト")
    project_id = _project_id(page)
    ui.wait_connected()
    _button(page, "start").click()
    expect(_card(page, "concept_review")).to_have_count(1)
    _button(page, "pause").click()
    expect(page.locator(STATUS)).to_have_attribute("data-status", "paused")
    expect(_button(page, "pause")).to_be_disabled()
    expect(_button(page, "start")).to_be_disabled()
    expect(_button(page, "resume")).to_be_enabled()
    ui.screenshot("studio-paused")
    _button(page, "resume").click()
    expect(page.locator(STATUS)).to_have_attribute("data-status", "running")
    expect(_button(page, "resume")).to_be_disabled()
    expect(_button(page, "pause")).to_be_enabled()

    page.once("dialog", lambda d: d.accept())
    _button(page, "delete").click()
    expect(page.locator(".studio-list-page")).to_be_visible()
    assert page.evaluate("location.hash") == "#/studio"
    expect(page.locator(f'.studio-project-item[data-project="{project_id}"]')).to_have_count(0)
    assert httpx.get(f"{ui.server.url}/api/projects/{project_id}").status_code == 404
    assert ui.errors == []


def test_changes_made_elsewhere_arrive_live_and_after_a_reconnect(ui: Any) -> None:
    page = _create(ui, "ライブ更新")
    project_id = _project_id(page)
    ui.wait_connected()
    # started and reviewed by another client: the page follows over the socket
    assert httpx.post(f"{ui.server.url}/api/projects/{project_id}/start").status_code == 200
    expect(page.locator(STATUS)).to_have_attribute("data-status", "running")
    card = _card(page, "concept_review")
    expect(card).to_have_count(1)
    first_id = card.get_attribute("data-checkpoint")
    # the socket drops; while it is away the checkpoint is approved elsewhere
    statuses = page.evaluate_handle("""() => {
      const seen = [];
      const el = document.querySelector('.conn-status');
      new MutationObserver(() => seen.push(el.dataset.status))
        .observe(el, {attributes: true, attributeFilter: ['data-status']});
      window.shokunin.views.instance('studio').socket.socket.io.engine.close();
      return seen;
    }""")
    resolved = httpx.post(f"{ui.server.url}/api/checkpoints/{first_id}/resolve",
                          json={"resolution": "approved"})
    assert resolved.status_code == 200
    ui.wait_connected()
    assert "reconnecting" in statuses.json_value()
    expect(page.locator(f'.studio-resolved-item[data-checkpoint="{first_id}"]')
           ).to_have_attribute("data-status", "approved")
    expect(_card(page, "design_review")).to_have_count(1)
    assert ui.errors == []


def test_server_errors_are_shown(ui: Any) -> None:
    page = ui.open("#/studio")
    expect(page.locator(".conn-status")).to_have_attribute("data-status", "ready")
    page.fill("#studio-name", "   ")  # passes the form's `required`, not the server
    page.fill("#studio-concept", CONCEPT)
    page.click(".studio-create button[type=submit]")
    expect(page.locator(".studio-create-error")).to_contain_text("name")
    expect(page.locator(".studio-list-page")).to_be_visible()
    ui.screenshot("studio-create-error")

    page.evaluate("location.hash = '#/studio/nosuchproject'")
    expect(page.locator(".studio-alert")).to_contain_text("nosuchproject")
    expect(page.locator(".conn-status")).to_have_attribute("data-status", "failed")
    expect(page.locator(".studio-actions button").first).to_be_disabled()

    # a checkpoint resolved elsewhere: the UI's own answer gets the server's 409, shown
    project = httpx.post(f"{ui.server.url}/api/projects", json={
        "name": "競合", "concept": {"description": CONCEPT, "platform": "web", "scope": "mvp"}})
    project_id = project.json()["id"]
    httpx.post(f"{ui.server.url}/api/projects/{project_id}/start")
    page.evaluate(f"location.hash = '#/studio/{project_id}'")
    card = _card(page, "concept_review")
    expect(card).to_have_count(1)
    # no live update may remove the card first: this page stops listening
    ui.wait_connected()
    page.evaluate("window.shokunin.views.instance('studio').socket.socket.disconnect()")
    expect(page.locator(".conn-status")).to_have_attribute("data-status", "disconnected")
    checkpoint_id = card.get_attribute("data-checkpoint")
    assert httpx.post(f"{ui.server.url}/api/checkpoints/{checkpoint_id}/resolve",
                      json={"resolution": "approved"}).status_code == 200
    card.locator('.studio-resolve[data-resolution="approved"]').click()
    expect(page.locator(".studio-alert")).to_contain_text("already approved")
    # and the page re-reads the project: the card goes, the checkpoint is listed approved
    expect(card).to_have_count(0)
    expect(page.locator(f'.studio-resolved-item[data-checkpoint="{checkpoint_id}"]')
           ).to_have_attribute("data-status", "approved")
    page.locator(".studio-layout").evaluate("e => e.scrollTo(0, 0)")
    ui.screenshot("studio-resolve-error")
    # the browser logs each refused request (422, 404, 409); nothing else went wrong
    assert [e for e in ui.errors if "Failed to load resource" not in e] == []
