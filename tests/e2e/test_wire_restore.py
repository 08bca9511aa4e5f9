"""A reload brings back the whole Workbench (chat, debug pane and map), and a message sent
while a run is going shows at once as queued, then runs, and is shown once."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

def shot(ui, name: str) -> None:
    """A screenshot in test-artifacts/, once canvases and thumbnails have painted."""
    ui.page.wait_for_timeout(300)
    ui.screenshot(name)


def step_debugs(page) -> list[str]:
    """The debug pane's per-step entries (what the agent decided)."""
    return [t for t in page.locator(".debug-entry:not(.done) pre").all_inner_texts()
            if "agent_response" in t]


def closing_debugs(page) -> list[dict]:
    """The debug pane's closing entries (each run's outputs)."""
    return [json.loads(t) for t in page.locator(".debug-entry.done pre").all_inner_texts()]


def test_reload_restores_the_map_and_the_debug_entries(ui) -> None:
    page = ui.open()
    ui.wait_connected()
    ui.send("2Fを表示")
    ui.send("Kitchenに左矢印を描いて")
    ui.send("Room1をハイライト")
    before = ui.map_state()
    assert before["arrows"] and before["highlighted"] == ["Room1"]
    debugs = step_debugs(page)
    assert len(debugs) == 6  # two steps per run
    closing = closing_debugs(page)
    assert [c["output_count"] for c in closing] == [3, 3, 3]
    shot(ui, "restore-1-before-reload")
    page.reload()
    page.wait_for_function("() => document.querySelectorAll('.msg.user').length === 3")
    ui.wait_connected()
    page.wait_for_function("() => window.shokunin.map.state()?.arrows.length === 1")
    assert ui.map_state() == before
    assert step_debugs(page) == debugs
    assert closing_debugs(page) == closing
    shot(ui, "restore-2-after-reload")
    assert ui.errors == []


def test_a_cleared_map_stays_cleared_after_a_reload(ui) -> None:
    """The commands are replayed in their order: a later clear wins over earlier arrows."""
    page = ui.open()
    ui.wait_connected()
    ui.send("Kitchenに左矢印を描いて")
    ui.send("矢印をクリアして")
    page.reload()
    page.wait_for_function("() => document.querySelectorAll('.msg.user').length === 2")
    ui.wait_connected()
    page.wait_for_function("() => window.shokunin.map.state()?.floors.length > 0")
    page.wait_for_timeout(300)
    assert ui.map_state()["arrows"] == []


def test_a_message_sent_during_a_run_shows_at_once_as_queued(ui) -> None:
    page = ui.open()
    ui.wait_connected()
    page.evaluate("""() => {
        window.sawQueued = [];
        new MutationObserver(() => {
            for (const m of document.querySelectorAll('.msg.user.queued')) {
                if (!window.sawQueued.includes(m.innerText)) window.sawQueued.push(m.innerText);
            }
        }).observe(document.querySelector('.chat-log'),
                   {childList: true, subtree: true, attributes: true});
    }""")
    # A chart starts the thread's sandbox kernel: long enough to send another message.
    page.fill(".chat-input", "plot room areas")
    page.press(".chat-input", "Enter")
    page.wait_for_selector(".msg.user")
    page.fill(".chat-input", "2Fを表示")
    page.press(".chat-input", "Enter")
    queued = page.locator(".msg.user.queued")
    expect(queued).to_have_count(1)
    assert "2Fを表示" in queued.inner_text() and "待機中" in queued.inner_text()
    assert page.locator(".debug-entry.done").count() == 0  # the first run is still going
    shot(ui, "queued-1-while-running")
    page.wait_for_function("() => document.querySelectorAll('.debug-entry.done').length === 2",
                           timeout=60_000)
    expect(page.locator(".chat-running")).to_be_hidden()
    assert page.locator(".msg.user").all_inner_texts() == ["plot room areas", "2Fを表示"]
    # The first run's replies are above the message that waited for it, as they came first.
    order = page.locator(".chat-log .msg").evaluate_all("ms => ms.map(m => m.innerText)")
    assert order.index("2Fを表示") > order.index("Drew a chart: Room areas.")
    assert page.locator(".msg.user.queued").count() == 0
    assert page.evaluate("window.sawQueued") == ["2Fを表示\n待機中"]
    assert ui.map_state()["floorId"] == "2F"  # it ran
    shot(ui, "queued-2-after-both-runs")
    assert ui.errors == []
