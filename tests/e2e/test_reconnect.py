"""The Workbench survives a server restart: status goes down and up, and sending works."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def test_reconnects_after_a_restart(make_page, fresh_server) -> None:
    ui = make_page(fresh_server)
    page = ui.open()
    ui.wait_connected()
    ui.send("highlight Kitchen")
    fresh_server.stop()
    page.wait_for_selector('.conn-status[data-status="disconnected"]')
    assert page.locator(".chat-send").is_disabled()
    ui.screenshot("workbench-disconnected")
    fresh_server.start()
    page.wait_for_selector('.conn-status[data-status="connected"]', timeout=30_000)
    assert page.locator(".msg.user").count() == 1  # what was shown stays
    ui.send("Kitchenに左矢印を表示して")
    assert [a["room"] for a in ui.map_state()["arrows"]] == ["Kitchen"]
    thread = page.evaluate("localStorage.getItem('shokunin.workbench.thread')")
    assert thread and page.url.endswith(f"#/workbench/{thread}")


def test_a_run_in_progress_is_replayed_after_a_drop(ui) -> None:
    page = ui.open()
    ui.wait_connected()
    page.fill(".chat-input", "plot room areas")
    page.press(".chat-input", "Enter")
    page.wait_for_selector(".msg.user")
    assert page.locator(".chat-running").is_visible()
    # Drop the socket mid-run; the run goes on on the server and is replayed from its last seq.
    page.evaluate("window.shokunin.ws.ws.close()")
    page.wait_for_selector('.conn-status[data-status="disconnected"]')
    page.wait_for_selector('.conn-status[data-status="connected"]')
    page.wait_for_selector(".chat-running", state="hidden", timeout=60_000)
    assert page.locator(".msg.user").count() == 1
    assert page.locator(".thumb").count() == 1
    assert page.locator(".debug-entry.done").count() == 1
    assert page.locator(".msg.agent .markdown").count() == 1
