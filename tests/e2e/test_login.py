"""The login page in a real browser: a wrong token gets a message, the right one opens
the UI, whose WebSocket then connects with the cookie; the UI runs under its CSP."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.live_server import LiveServer

pytestmark = pytest.mark.browser

TOKEN = "browser-admin-token-0123456789"
PIXEL = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGA"
         "hKmMIQAAAABJRU5ErkJggg==")


@pytest.fixture(scope="module")
def auth_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = LiveServer(Path(tmp_path_factory.mktemp("auth-server")),
                        env={"SHOKUNIN_AUTH_TOKEN": TOKEN}).start()
    yield server
    server.stop()


def test_login_page_refuses_a_wrong_token_and_opens_the_ui_with_the_right_one(
        make_page: Any, auth_server: LiveServer) -> None:
    ui = make_page(auth_server)
    page = ui.page
    page.goto(f"{auth_server.url}/")
    page.wait_for_url(f"{auth_server.url}/login")
    page.fill("#token", "not-the-token-at-all")
    page.click("button[type=submit]")
    assert "not valid" in page.locator(".login-error").inner_text()
    ui.screenshot("login-wrong-token")
    ui.errors.clear()  # the 401 of the wrong attempt is logged by the browser, as it should

    page.fill("#token", TOKEN)
    page.click("button[type=submit]")
    page.wait_for_url(f"{auth_server.url}/")
    ui.wait_connected()  # the Workbench WebSocket carried the cookie
    cookie = next(c for c in ui.context.cookies() if c["name"] == "shokunin_token")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    # scripts cannot read it (the language choice, no secret, is the only cookie they see)
    assert "shokunin_token" not in page.evaluate("document.cookie")
    ui.send("Kitchenに左矢印を表示して")  # a run goes through the authenticated socket
    assert len(ui.map_state()["arrows"]) == 1

    page.evaluate("p => window.shokunin.ws.receive({type: 'image', content: p, format: 'png',"
                  " path: 'dot.png'})", PIXEL)  # plots are data: images
    page.wait_for_function("() => document.querySelector('.thumb img')?.complete")
    assert page.locator(".thumb img").evaluate("i => i.naturalWidth") == 1
    page.click('.nav a[data-view="tools"]')
    page.wait_for_selector(".tools-list .tool-card")
    page.wait_for_timeout(300)
    ui.screenshot("login-tools-view")
    assert ui.errors == [], "CSP violations or other errors in the console"


def test_a_socket_refused_by_auth_sends_the_browser_to_the_login_page(
        make_page: Any, auth_server: LiveServer) -> None:
    ui = make_page(auth_server)
    page = ui.page
    page.goto(f"{auth_server.url}/login")
    page.fill("#token", TOKEN)
    page.click("button[type=submit]")
    page.wait_for_url(f"{auth_server.url}/")
    ui.wait_connected()
    ui.context.clear_cookies()  # as after a logout elsewhere, or a revoked key
    page.click('.nav a[data-view="tools"]')  # hiding the Workbench closes its socket
    page.click('.nav a[data-view="workbench"]')  # its reconnect is refused with 1008
    page.wait_for_url(f"{auth_server.url}/login")
