"""The Tools view as a person reads it (issue 48.2, 48.6): a try's result with its numbers
formatted and its raw JSON behind a disclosure, a tool that needs settings marked as such
with what to set, and a tool made while the server runs listed on a reload."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator

import pytest

from tests.live_server import LiveServer

pytestmark = pytest.mark.browser

NESTED = '''
TOOL_NAME = "入れ子"
TOOL_DESCRIPTION = "returns a nested result"
TOOL_ICON = "🪆"


def get_function_declaration():
    return {"name": "nested", "description": "nested",
            "parameters": {"type": "object", "properties": {}}}


def execute(args, context):
    return {"success": True, "result": {
        "total": 1234567.891, "count": "12000", "year": 2024, "ok": True,
        "items": ["りんご", "みかん"],
        "rows": [{"name": "東京", "people": 14047594}, {"name": "大阪", "people": 8837685}],
        "link": "https://www.example.go.jp/a"}}
'''


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    root = tmp_path_factory.mktemp("tools-readable")
    tool = root / "tool" / "nested"
    tool.mkdir(parents=True)
    (tool / "nested_tool.py").write_text(textwrap.dedent(NESTED), encoding="utf-8")
    server = LiveServer(root).start()
    yield server
    server.stop()


def _run_calculator(page, expression: str) -> None:
    page.click('.tool-card[data-tool="calculator"]')
    page.fill('.field[data-field="expression"] input', expression)
    page.click(".run-button")
    page.wait_for_selector(".result-box:not([hidden])")


@pytest.mark.parametrize("width", [1280, 375])
def test_a_result_reads_as_numbers_with_the_raw_json_behind_a_toggle(
        make_page, server: LiveServer, width: int) -> None:
    ui = make_page(server, viewport=(width, 800))
    page = ui.open("#/tools")
    _run_calculator(page, "50/3")
    readable = page.locator(".result-box .result-readable")
    # at most 6 decimal places (result-view.js): not the 28 digits the calculator computed
    assert readable.locator("tr", has_text="value").locator("td").inner_text() == "16.666667"
    assert "50/3" in readable.inner_text()
    raw = page.locator(".result-box .result-json")
    assert raw.is_hidden()  # the JSON waits behind its disclosure
    page.locator(".result-box .result-raw summary").click()
    assert raw.is_visible()
    assert '"value": "16.66666666666666666666666667"' in raw.inner_text()
    page.locator(".result-box").scroll_into_view_if_needed()
    ui.screenshot(f"tools-result-readable-{width}")
    _run_calculator(page, "2**100")
    assert readable.locator("tr", has_text="value").locator("td").inner_text() == (
        "1,267,650,600,228,229,401,496,703,205,376")  # exact, grouped
    assert ui.errors == []


def test_objects_are_tables_and_lists_are_lists(make_page, server: LiveServer) -> None:
    ui = make_page(server, locale="en-US", viewport=(1280, 900))
    page = ui.open("#/tools")
    page.click('.tool-card[data-tool="nested"]')
    page.click(".run-button")
    page.wait_for_selector(".result-box:not([hidden])")
    box = page.locator(".result-box .result-readable")

    def cell(key: str):
        return box.locator("table.kv > tbody > tr", has=page.locator(f'th:text-is("{key}")')
                           ).locator("> td")

    assert cell("total").inner_text() == "1,234,567.891"
    assert cell("count").inner_text() == "12,000"  # a numeric string is a number
    assert cell("year").inner_text() == "2024"  # a year is not 2,024
    assert cell("ok").inner_text() == "yes"
    assert cell("items").locator("li").all_inner_texts() == ["りんご", "みかん"]
    rows = cell("rows").locator("table.records")
    assert rows.locator("thead th").all_inner_texts() == ["name", "people"]
    assert rows.locator("tbody tr").first.locator("td").all_inner_texts() == [
        "東京", "14,047,594"]
    assert cell("link").locator("a").get_attribute("href") == "https://www.example.go.jp/a"
    ui.screenshot("tools-result-nested")
    page.set_viewport_size({"width": 375, "height": 800})
    page.locator(".result-box").scroll_into_view_if_needed()
    ui.screenshot("tools-result-nested-375")
    # nothing wider than a phone's screen: a wide table scrolls in its own box
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    assert ui.errors == []


def test_a_tool_without_its_required_setting_says_what_to_set(
        make_page, server: LiveServer) -> None:
    ui = make_page(server)
    page = ui.open("#/tools")
    card = page.locator('.tool-card[data-tool="web_search"]')
    card.wait_for()
    assert card.locator(".status-badge").inner_text() == "要設定"  # not 利用可
    assert card.locator(".tool-needs").inner_text() == (
        "使う前に設定が必要です: Tavily の APIキー または SearXNG の URL")
    assert page.locator('.tool-card[data-tool="calculator"] .status-badge').inner_text() == (
        "利用可")
    card.click()
    notice = page.locator(".tool-detail .tool-needs-card")
    assert "SearXNG の URL" in notice.inner_text()
    ui.screenshot("tools-needs-settings")
    page.fill('.settings-card .field[data-field="searxng_url"] input', "http://127.0.0.1:9")
    page.click(".settings-card button[type=submit]")
    page.wait_for_selector(".settings-card .run-state.ok")
    page.wait_for_function("() => document.querySelector("
                           "'.tool-card[data-tool=\"web_search\"] .status-badge')"
                           ".textContent === '利用可'")
    assert notice.count() == 0
    page.click('.lang-switch button[data-lang="en"]')
    assert card.locator(".status-badge").inner_text() == "OK"
    assert ui.errors == []


def test_what_to_set_follows_the_ui_language(make_page, live_server: LiveServer) -> None:
    ui = make_page(live_server, locale="en-US")
    page = ui.open("#/tools")
    card = page.locator('.tool-card[data-tool="web_search"]')
    assert card.locator(".status-badge").inner_text() == "Needs settings"
    assert card.locator(".tool-needs").inner_text() == (
        "Set before use: Tavily API key or SearXNG URL")
    page.click('.lang-switch button[data-lang="ja"]')
    assert card.locator(".status-badge").inner_text() == "要設定"
    assert card.locator(".tool-needs").inner_text() == (
        "使う前に設定が必要です: Tavily の APIキー または SearXNG の URL")
    assert ui.errors == []


def test_a_tool_made_while_the_page_is_open_is_listed_on_reload(
        make_page, server: LiveServer) -> None:
    ui = make_page(server)
    page = ui.open("#/tools")
    page.wait_for_selector('.tool-card[data-tool="calculator"]')
    made = server.data_dir / "tool" / "later"
    made.mkdir()
    (made / "later_tool.py").write_text(textwrap.dedent(NESTED).replace(
        '"nested"', '"later"').replace("入れ子", "あとから"), encoding="utf-8")
    cracked = server.data_dir / "tool" / "cracked"
    cracked.mkdir()
    (cracked / "cracked_tool.py").write_text("def execute(args, context:\n", encoding="utf-8")
    page.click(".tools-reload")
    page.wait_for_selector('.tool-card[data-tool="later"]')
    assert "あとから" in page.locator('.tool-card[data-tool="later"]').inner_text()
    broken = page.locator('.tool-card[data-tool="cracked"]')
    assert broken.locator(".status-badge").inner_text() == "エラー"
    assert "syntax error" in broken.locator(".tool-error").inner_text()
    assert page.locator('.tool-card[data-tool="nested"] .status-badge').inner_text() == "利用可"
    assert ui.errors == []
