"""A tool's own web UI in the Tools view: run a flask_test-shaped tool, see its page in a
sandboxed frame served through shokunin (with auth off and on), and close it."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.live_server import LiveServer
from tests.tools.origin_shapes import make_ui_tool

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def ui_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    root = tmp_path_factory.mktemp("tools-ui-server")
    make_ui_tool(root / "tool")
    server = LiveServer(root).start()
    yield server
    server.stop()


def test_the_tool_page_shows_in_a_sandboxed_frame_and_closes(make_page, ui_server) -> None:
    ui = make_page(ui_server)
    page = ui.open("#/tools")
    page.click('.tool-card[data-tool="ui_probe"]')
    page.click(".run-button")
    page.wait_for_selector(".tool-ui-frame")
    frame = page.frame_locator(".tool-ui-frame")
    assert frame.locator("#ok").inner_text() == "UI OK"
    # the page's own script: no way to the Tools view, its cookies or its storage
    assert frame.locator("#probe").inner_text() == "parent:blocked cookie:blocked storage:blocked"
    src = page.locator(".tool-ui-frame").get_attribute("src")
    assert src.startswith("/api/tools/ui_probe/ui/") and src.endswith("/")
    sandbox = page.locator(".tool-ui-frame").get_attribute("sandbox")
    assert "allow-scripts" in sandbox and "allow-same-origin" not in sandbox
    # its own fetch (a JSON POST, so a preflight first) reads the tool's answer
    frame.locator("#fetched").filter(has_text='{"a": 1}').wait_for()
    ui.screenshot("tools-live-ui")
    # a link written for the root (href="/headers") stays under the prefix
    assert frame.locator("#abs").get_attribute("href") == f"{src}headers?from=abs"
    frame.locator("#rel").click()  # a relative link stays under the tool's prefix
    assert '"path": "/headers"' in frame.locator("body").inner_text()
    page.click(".tool-live-ui button")
    page.wait_for_selector(".tool-live-ui p.muted")
    assert "閉じました" in page.locator(".tool-live-ui").inner_text()
    assert httpx.get(ui_server.url + src).status_code == 404
    assert ui.errors == []


TOKEN = "browser-admin-token-0123456789"


@pytest.fixture(scope="module")
def auth_ui_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    root = tmp_path_factory.mktemp("tools-ui-auth")
    make_ui_tool(root / "tool")
    server = LiveServer(root, env={"SHOKUNIN_AUTH_TOKEN": TOKEN}).start()
    yield server
    server.stop()


def test_with_auth_on_the_page_and_its_own_links_load_by_its_key(make_page,
                                                                auth_ui_server) -> None:
    """The sandboxed page's own requests carry no login cookie: the key in its address lets
    them in; without the key the token is needed as on every route."""
    ui = make_page(auth_ui_server)
    page = ui.page
    page.goto(f"{auth_ui_server.url}/login")
    page.fill("#token", TOKEN)
    page.click("button[type=submit]")
    page.wait_for_url(f"{auth_ui_server.url}/")
    page.goto(f"{auth_ui_server.url}/#/tools")
    page.click('.tool-card[data-tool="ui_probe"]')
    page.click(".run-button")
    page.wait_for_selector(".tool-ui-frame")
    frame = page.frame_locator(".tool-ui-frame")
    assert frame.locator("#ok").inner_text() == "UI OK"
    assert frame.locator("#probe").inner_text() == "parent:blocked cookie:blocked storage:blocked"
    frame.locator("#fetched").filter(has_text='{"a": 1}').wait_for()  # its fetch too
    frame.locator("#rel").click()  # the page's own request: no cookie, its key lets it in
    assert '"path": "/headers"' in frame.locator("body").inner_text()
    src = page.locator(".tool-ui-frame").get_attribute("src")
    keyless = src.rstrip("/").rsplit("/", 1)[0]
    assert httpx.get(auth_ui_server.url + keyless).status_code == 401  # no token, no key
