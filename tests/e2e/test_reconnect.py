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
    assert page.evaluate("sessionStorage.getItem('shokunin.thread')")
