"""The Tools view: list with status, try a tool over SSE (progress, result, abort), settings of
every type, and TOOL_ICON as an inline SVG (sanitised)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest

from tests.live_server import LiveServer
from tests.tools.conftest import DATA, make_tool
from tests.tools.origin_shapes import make_shared_tool

pytestmark = pytest.mark.browser


def test_lists_tools_and_runs_the_calculator(ui) -> None:
    page = ui.open("#/tools")
    page.wait_for_selector('.tool-card[data-tool="calculator"]')
    card = page.locator('.tool-card[data-tool="calculator"]')
    assert "利用可" in card.inner_text()
    card.click()
    page.fill('.field[data-field="expression"] input', "1200 * 8%")
    page.click(".run-button")
    page.wait_for_selector(".result-box:not([hidden])")
    value = page.locator(".result-readable tr", has_text="value").locator("td")
    assert value.inner_text() == "96"  # read as a person reads it (test_tools_readable.py)
    assert '"value": "96"' in page.locator(".result-json").text_content()  # behind a toggle
    assert page.locator(".try-card .run-state").inner_text() == "成功"
    ui.screenshot("tools-calculator")
    assert ui.errors == []


def test_required_argument_is_checked_in_the_form(ui) -> None:
    page = ui.open("#/tools")
    page.click('.tool-card[data-tool="calculator"]')
    page.click(".run-button")
    assert page.locator('.field[data-field="expression"] .field-error').inner_text() == "必須です"


def test_progress_result_and_broken_tool(make_page, tools_server) -> None:
    ui = make_page(tools_server, locale="en-US")
    page = ui.open("#/tools")
    page.wait_for_selector('.tool-card[data-tool="broken"]')
    assert "Error" in page.locator('.tool-card[data-tool="broken"] .status-badge').inner_text()
    assert page.locator('.tool-card[data-tool="broken"] .tool-error').inner_text()
    page.click('.tool-card[data-tool="probe"]')
    page.fill('.field[data-field="steps"] input', "3")
    page.fill('.field[data-field="tags"] textarea', '["a", "b"]')
    page.click(".run-button")
    page.wait_for_selector(".result-box:not([hidden])")
    assert page.locator(".progress-list li").all_inner_texts() == ["step 1", "step 2", "step 3"]
    tags = page.locator(".result-readable tr", has_text="tags").locator(".result-list li")
    assert tags.all_inner_texts() == ["a", "b"]
    assert '"tags": [\n    "a",\n    "b"\n  ]' in page.locator(".result-json").text_content()
    ui.screenshot("tools-probe")


def test_abort_a_running_tool(make_page, tools_server) -> None:
    ui = make_page(tools_server, locale="en-US")
    page = ui.open("#/tools")
    page.click('.tool-card[data-tool="probe"]')
    page.fill('.field[data-field="steps"] input', "1")
    page.select_option('.field[data-field="mode"] select', label="wait_abort")
    page.click(".run-button")
    page.wait_for_selector(".progress-list li")
    page.wait_for_selector(".abort-button:not([disabled])")
    page.click(".abort-button")
    page.wait_for_selector(".result-box:not([hidden])")
    assert page.locator(".try-card .run-state").inner_text() == "Aborted"


def test_settings_form_with_secret_and_field_errors(make_page, tools_server) -> None:
    ui = make_page(tools_server, locale="en-US")
    page = ui.open("#/tools")
    page.click('.tool-card[data-tool="probe"]')
    form = page.locator(".settings-form")
    form.wait_for()
    key = form.locator('.field[data-field="api_key"]')
    assert key.locator("input").get_attribute("type") == "password"
    assert key.locator(".secret-badge").inner_text() == "not set"
    form.locator('.field[data-field="limit"] input').fill("500")
    form.locator("button[type=submit]").click()
    page.wait_for_selector('.settings-form .field[data-field="limit"].invalid')
    assert "at most 100" in form.locator('.field[data-field="limit"] .field-error').inner_text()
    form.locator('.field[data-field="limit"] input').fill("20")
    key.locator("input").fill("sk-secret-123")
    form.locator("button[type=submit]").click()
    page.wait_for_selector('.settings-form .secret-badge.set')
    form = page.locator(".settings-form")
    assert form.locator('.field[data-field="api_key"] input').input_value() == ""
    assert form.locator('.field[data-field="limit"] input').input_value() == "20"
    assert "sk-secret-123" not in page.content()
    ui.screenshot("tools-settings")
    # Saving again without typing the secret keeps it.
    form.locator("button[type=submit]").click()
    page.wait_for_selector('.settings-form .run-state.ok')
    assert form.locator(".secret-badge").inner_text() == "set"


EVIL_ICON = (
    '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
    'viewBox="0 0 10 10" onload="window.__pwned = (window.__pwned || 0) + 1">'
    "<script>window.__pwned = (window.__pwned || 0) + 1</script>"
    '<a href="javascript:window.__pwned = 1"><rect class="evil-link" width="10" height="10"/></a>'
    '<use xlink:href="https://evil.example/sprite.svg#x"/>'
    '<foreignObject width="10" height="10"><div xmlns="http://www.w3.org/1999/xhtml">'
    '<img src="nope.png" onerror="window.__pwned = 1"/></div></foreignObject>'
    '<animate attributeName="href" values="javascript:window.__pwned = 1"/>'
    '<circle class="kept" cx="5" cy="5" r="4" fill="red" onclick="window.__pwned = 1" '
    'style="fill: url(https://evil.example/x)"/>'
    "</svg>"
)
EVIL_TOOL = f'''
TOOL_NAME = "evil icon"
TOOL_DESCRIPTION = "an icon that tries to run code"
TOOL_ICON = {EVIL_ICON!r}


def get_function_declaration():
    return {{"name": "evil_icon", "description": "x",
            "parameters": {{"type": "object", "properties": {{}}}}}}


def execute(args, context):
    return {{"success": True, "result": None}}
'''


@pytest.fixture(scope="module")
def contract_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """The contract tool folder of tests/tools/data, a tool with a hostile SVG icon, and a
    settings file holding a NaN written by an older version."""
    root = tmp_path_factory.mktemp("contract-server")
    shutil.copytree(DATA / "contract_tools", root / "tool")
    (root / "tool" / "evil_icon").mkdir()
    (root / "tool" / "evil_icon" / "evil_icon_tool.py").write_text(EVIL_TOOL, encoding="utf-8")
    (root / "userdata").mkdir()
    (root / "userdata" / "settings.json").write_text('{"unit_convert": {"precision": NaN}}')
    server = LiveServer(root).start()
    yield server
    server.stop()


def test_svg_icons_render_and_hostile_ones_are_neutralised(make_page, contract_server) -> None:
    ui = make_page(contract_server, locale="en-US")
    page = ui.open("#/tools")
    clean = page.locator('.tool-card[data-tool="unit_convert"] .tool-icon svg')
    clean.wait_for()
    assert clean.locator("path").count() == 1 and clean.locator("title").count() == 1
    evil = page.locator('.tool-card[data-tool="evil_icon"] .tool-icon')
    assert evil.locator("svg circle.kept").count() == 1
    page.click('.tool-card[data-tool="evil_icon"]')
    page.wait_for_selector(".tool-head .tool-icon.big svg circle.kept")
    page.click(".tool-head .tool-icon.big svg circle.kept", force=True)
    for box in (evil, page.locator(".tool-head .tool-icon.big")):
        markup = box.inner_html()
        for banned in ("script", "foreignObject", "javascript:", "onload", "onclick", "onerror",
                       "evil.example", "<a", "animate", "xlink:href="):
            assert banned not in markup, (banned, markup)
    assert page.evaluate("window.__pwned") is None
    ui.screenshot("tools-svg-icons")
    # Parsing the hostile text (inert, in a DOMParser document) makes the UI's CSP report its
    # inline handlers as blocked: a second wall, not a fault. Nothing else may go wrong.
    assert [e for e in ui.errors if "Content Security Policy" not in e] == []


def test_settings_form_renders_every_setting_type(make_page, contract_server) -> None:
    ui = make_page(contract_server, locale="en-US")
    page = ui.open("#/tools")
    page.click('.tool-card[data-tool="unit_convert"]')
    form = page.locator(".settings-form")
    form.wait_for()
    field = lambda name: form.locator(f'.field[data-field="{name}"]')  # noqa: E731
    system = field("system").locator("select")
    assert system.locator("option").all_inner_texts() == ["メートル法", "ヤード・ポンド法"]
    assert system.input_value() == '"metric"'
    precision = field("precision").locator("input")
    assert [precision.get_attribute(a) for a in ("type", "step", "min", "max")] == [
        "number", "1", "0", "10"]
    # The NaN in the settings file is reported on its field, and the default is shown.
    assert "stored value is invalid" in field("precision").locator(".field-error").inner_text()
    assert precision.input_value() == "2"
    assert field("show_formula").locator("input").get_attribute("type") == "checkbox"
    assert field("show_formula").locator("input").is_checked()
    assert field("footer").locator("textarea").input_value() == "以上"
    assert field("api_token").locator("input").get_attribute("type") == "password"
    precision.fill("2.5")
    form.locator("button[type=submit]").click()
    page.wait_for_selector('.settings-form .field[data-field="precision"].invalid')
    assert "multiple of 1" in field("precision").locator(".field-error").inner_text()
    system.select_option(label="ヤード・ポンド法")
    precision.fill("3")
    field("show_formula").locator("input").uncheck()
    field("footer").locator("textarea").fill("以上です\n終わり")
    field("api_token").locator("input").fill("tok-browser-1")
    form.locator("button[type=submit]").click()
    page.wait_for_selector(".settings-form .run-state.ok")
    form = page.locator(".settings-form")
    assert field("system").locator("select").input_value() == '"imperial"'
    assert field("precision").locator("input").input_value() == "3"
    assert not field("show_formula").locator("input").is_checked()
    assert field("footer").locator("textarea").input_value() == "以上です\n終わり"
    assert field("api_token").locator(".secret-badge").inner_text() == "set"
    assert "tok-browser-1" not in page.content()
    ui.screenshot("tools-settings-types")


def test_the_tools_view_lists_every_tool_of_the_agent_in_the_ui_language(
        make_page, live_server: LiveServer) -> None:
    """The plugins and the Workbench agent's own tools (map, SQL, Python...: 11 in all),
    named and described in the UI's language, not in the language a tool was written in."""
    ui = make_page(live_server, locale="en-US")
    page = ui.open("#/tools")
    page.wait_for_selector('.agent-tool[data-tool="run_python"]')
    own = page.locator(".agent-tool").evaluate_all("cards => cards.map(c => c.dataset.tool)")
    assert own == ["show_map", "clear_map", "draw_arrow", "clear_arrows", "highlight_room",
                   "show_points", "sql_engine", "save_data", "run_python"]
    # + calculator, cost_impact, generate_diagram, table_format, web_search
    assert page.locator(".tool-card").count() == len(own) + 5
    listing = page.locator(".tools-list").inner_text()
    # what web search needs set is said in English too (its labels are "日本語 / English")
    assert "Set before use: Tavily API key or SearXNG URL" in listing
    assert "Calculator" in listing and "Show map" in listing and "Run Python" in listing
    assert not any("\u3040" <= c <= "\u30ff" or "\u4e00" <= c <= "\u9fff" for c in listing)
    ui.screenshot("tools-view-en")
    page.click('.lang-switch button[data-lang="ja"]')
    page.wait_for_function("() => document.querySelector('.tools-list').innerText"
                           ".includes('電卓')")
    assert "マップ表示" in page.locator(".tools-list").inner_text()
    assert ui.errors == []


@pytest.fixture(scope="module")
def mcp_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server whose configuration lists the test's MCP server and one that cannot start."""
    from tests.mcp.test_client_faces import write_config
    from tests.mcp.test_client_tools import demo_stdio

    data = tmp_path_factory.mktemp("mcp-ui") / "data"
    write_config(data / "userdata" / "mcp.json", {
        "demo": demo_stdio(data / "markers"), "gone": {"command": str(data / "missing")}})
    server = LiveServer(data).start()
    yield server
    server.stop()


def test_mcp_tools_are_marked_with_their_server_run_with_progress_and_down_ones_say_why(
        make_page, mcp_server) -> None:
    ui = make_page(mcp_server, locale="en-US")
    page = ui.open("#/tools")
    page.wait_for_selector('.tool-card[data-tool="demo__slow"]')
    assert page.locator('.tool-card[data-tool="demo__slow"] .source-badge').inner_text() == (
        "MCP: demo")
    gone = page.locator('.tool-card[data-tool="gone"]')
    assert "Error" in gone.locator(".status-badge").inner_text()
    assert "command not found" in gone.locator(".tool-error").inner_text()
    page.click('.tool-card[data-tool="demo__slow"]')
    assert "MCP: demo" in page.locator(".tool-meta").inner_text()
    page.fill('.field[data-field="steps"] input', "2")
    page.click(".run-button")
    page.wait_for_selector(".result-box:not([hidden])")
    assert page.locator(".progress-list li").all_inner_texts() == ["step 1 of 2", "step 2 of 2"]
    assert "2 steps done" in page.locator(".result-readable").inner_text()
    ui.screenshot("tools-mcp")
    assert ui.errors == []


ORIGIN_CALCULATOR = '''
TOOL_NAME = "origin calculator"
TOOL_DESCRIPTION = "a user tool named like a builtin"
TOOL_ICON = "x"


def get_function_declaration():
    return {"name": "calc_of_the_origin", "description": "x",
            "parameters": {"type": "object", "properties": {}}}


def get_settings_schema():
    return {"api_key": {"type": "string", "label": "key"}}


def execute(args, context):
    return {"success": True, "result": "origin"}
'''


@pytest.fixture(scope="module")
def origin_tools_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A user folder with a workspace tool and one whose name a builtin has (as rumiai's
    web_search has web_search's)."""
    root = tmp_path_factory.mktemp("tools-origin")
    make_shared_tool(root / "tool")
    make_tool(root / "tool", "calculator", ORIGIN_CALCULATOR)
    server = LiveServer(root, env={"SHOKUNIN_TOOLS_DIRS": f'["{root / "tool"}"]'}).start()
    yield server
    server.stop()


def _try(page, **fields: str) -> str:
    for name, value in fields.items():
        page.fill(f'.field[data-field="{name}"] input', value)
    page.click(".run-button")
    page.wait_for_selector(".run-button:not([disabled])")
    page.wait_for_selector(".result-box:not([hidden])")
    return page.locator(".result-box").inner_text()


def test_tries_of_a_tool_share_one_workspace_until_a_new_one_is_asked_for(
        make_page, origin_tools_server) -> None:
    ui = make_page(origin_tools_server)
    page = ui.open("#/tools")
    page.click('.tool-card[data-tool="shared_probe"]')
    assert page.locator(".same-workspace").is_hidden()
    assert "memo.txt" in _try(page, mode="ws_write", name="memo.txt", text="覚え書き")
    assert page.locator(".same-workspace").is_visible()
    assert "覚え書き" in _try(page, mode="ws_read", name="memo.txt")  # the same workspace
    page.click(".new-workspace")
    assert "ファイルが存在しません" in _try(page, mode="ws_read", name="memo.txt")
    assert ui.errors == []


def test_a_tool_whose_name_a_builtin_has_is_its_own_card_with_its_reason(
        make_page, origin_tools_server) -> None:
    ui = make_page(origin_tools_server)
    page = ui.open("#/tools")
    page.wait_for_selector('.tool-card[data-tool="calculator"]')
    cards = page.locator('.tool-card[data-tool="calculator"]')
    assert cards.count() == 2
    cards.nth(1).click()
    assert cards.nth(1).get_attribute("aria-pressed") == "true"
    assert cards.nth(0).get_attribute("aria-pressed") == "false"
    detail = page.locator(".tool-detail")
    assert "duplicate tool name 'calculator'" in detail.inner_text()
    assert detail.locator(".settings-card, .tool-ui-link, .try-card").count() == 0
    cards.nth(0).click()  # the builtin is still the builtin
    assert detail.locator(".try-card").count() == 1
    assert ui.errors == []
