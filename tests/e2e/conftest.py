"""Browser fixtures: headless Debian Chromium (never a downloaded one) driving a real server.

Screenshots go to test-artifacts/ at the repository root, for a person to look at.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import sync_playwright

from tests.live_server import LiveServer

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


@pytest.fixture(scope="package")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is absent: install Debian's chromium to run the browser tests")
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield chromium
        chromium.close()


class Page:
    """A browser page on one server, collecting console errors."""

    def __init__(self, browser: Any, server: LiveServer, locale: str = "ja-JP",
                 viewport: tuple[int, int] = (1280, 800)) -> None:
        self.server = server
        self.context = browser.new_context(
            locale=locale, viewport={"width": viewport[0], "height": viewport[1]})
        self.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
        self.page = self.context.new_page()
        self.page.set_default_timeout(20_000)
        self.errors: list[str] = []
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

    def open(self, hash_: str = "") -> Any:
        self.page.goto(f"{self.server.url}/{hash_}")
        return self.page

    def wait_connected(self) -> None:
        self.page.wait_for_selector('.conn-status[data-status="connected"]')

    def send(self, text: str) -> None:
        """Send a chat message and wait for its run to end (the running indicator goes)."""
        done = self.page.locator(".debug-entry.done").count()
        self.page.fill(".chat-input", text)
        self.page.press(".chat-input", "Enter")
        self.page.wait_for_function(
            "n => document.querySelectorAll('.debug-entry.done').length > n", arg=done)
        self.page.wait_for_selector(".chat-running", state="hidden")

    def map_state(self) -> dict[str, Any]:
        return self.page.evaluate("window.shokunin.map.state()")

    def pixel(self, x: float, y: float) -> list[int]:
        """The map canvas's colour at CSS pixel (x, y)."""
        return self.page.evaluate("""([x, y]) => {
            const c = document.getElementById('map-canvas');
            const k = c.width / c.getBoundingClientRect().width;
            const at = (v) => Math.round(v * k);
            const data = c.getContext('2d').getImageData(at(x), at(y), 1, 1);
            return Array.from(data.data);
        }""", [x, y])

    def screenshot(self, name: str) -> None:
        ARTIFACTS.mkdir(exist_ok=True)
        self.page.screenshot(path=str(ARTIFACTS / f"{name}.png"))

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def ui(browser: Any, live_server: LiveServer) -> Iterator[Page]:
    page = Page(browser, live_server)
    yield page
    page.close()


@pytest.fixture
def make_page(browser: Any) -> Iterator[Any]:
    pages: list[Page] = []

    def make(server: LiveServer, **kwargs: Any) -> Page:
        pages.append(Page(browser, server, **kwargs))
        return pages[-1]

    yield make
    for page in pages:
        page.close()


PROBE_TOOL = '''
import time

TOOL_NAME = "プローブ"
TOOL_DESCRIPTION = "A slow tool with settings, for the browser tests"
TOOL_ICON = "🧪"


def get_function_declaration():
    return {"name": "probe", "description": "probe", "parameters": {
        "type": "object", "properties": {
        "steps": {"type": "integer", "description": "progress messages to send"},
        "mode": {"type": "string", "enum": ["fast", "wait_abort"], "default": "fast"},
        "tags": {"type": "array", "items": {"type": "string"}}},
        "required": ["steps"]}}


def get_settings_schema():
    return {"api_key": {"type": "string", "label": "API key", "default": "", "secret": True},
            "limit": {"type": "integer", "label": "Limit", "default": 10, "min": 1, "max": 100},
            "verbose": {"type": "boolean", "label": "Verbose", "default": False}}


def execute(args, context):
    say = context["message_callback"]
    for i in range(args["steps"]):
        say(f"step {i + 1}")
    if args.get("mode") == "wait_abort":
        while not context["abort_event"].wait(0.05):
            pass
        return {"success": False, "error": "aborted", "aborted": True}
    return {"success": True, "result": {"steps": args["steps"], "tags": args.get("tags", []),
            "key_set": bool(context.get("settings", {}).get("api_key"))}}
'''


@pytest.fixture(scope="module")
def tools_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server with a probe tool (settings, progress, abort) and a broken tool."""
    root = tmp_path_factory.mktemp("tools-server")
    probe = root / "tool" / "probe"
    probe.mkdir(parents=True)
    (probe / "probe_tool.py").write_text(textwrap.dedent(PROBE_TOOL), encoding="utf-8")
    broken = root / "tool" / "broken"
    broken.mkdir()
    (broken / "broken_tool.py").write_text("def execute(args, context:\n", encoding="utf-8")
    server = LiveServer(root).start()
    yield server
    server.stop()
