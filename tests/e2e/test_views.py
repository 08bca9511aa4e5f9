"""The shell's view registry in a real browser: views addressed by URL hash, started lazily
(the Workbench socket and the tool list only when shown), and a view registered from
outside the shell's code mounts and unmounts."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

SCRATCH_VIEW = """() => {
  window.scratchLog = [];
  window.shokunin.views.register({
    name: "scratch",
    label: "nav.scratch",
    strings: {ja: {"nav.scratch": "試験", "scratch.hello": "こんにちは"},
              en: {"nav.scratch": "Scratch", "scratch.hello": "Hello"}},
    create: () => ({
      mount(container, ctx) {
        window.scratchLog.push(`mount:${ctx.route}`);
        if (!container.firstChild) {
          const p = document.createElement("p");
          p.className = "scratch-text";
          p.dataset.i18n = "scratch.hello";
          container.append(p);
        }
        ctx.setStatus("ready");
      },
      unmount() { window.scratchLog.push("unmount"); },
      route(route) { window.scratchLog.push(`route:${route}`); },
    }),
  });
}"""


def sockets(page) -> list:
    """The page's WebSockets, as Playwright sees them open."""
    opened: list = []
    page.on("websocket", lambda ws: opened.append(ws))
    return opened


def test_workbench_socket_opens_only_when_its_view_is_shown(ui) -> None:
    page = ui.context.new_page()
    opened = sockets(page)
    page.goto(f"{ui.server.url}/#/tools")
    page.wait_for_selector('.tool-card[data-tool="calculator"]')
    expect(page.locator(".conn-status")).to_have_attribute("data-status", "ready")
    assert opened == []
    assert page.locator("#view-workbench").count() == 0, "the Workbench was not even built"
    page.click('.nav a[data-view="workbench"]')
    page.wait_for_selector('.conn-status[data-status="connected"]')
    assert len(opened) == 1 and "/ws?thread=" in opened[0].url
    page.click('.nav a[data-view="tools"]')
    page.wait_for_function("() => window.shokunin.ws.ws === null")
    assert opened[0].is_closed(), "leaving the Workbench closes its socket"
    expect(page.locator(".conn-status")).to_have_attribute("data-status", "ready")
    page.click('.nav a[data-view="workbench"]')
    page.wait_for_selector('.conn-status[data-status="connected"]')
    assert len(opened) == 2 and opened[1].url == opened[0].url, "the same thread again"
    page.close()


def test_tool_list_is_loaded_only_when_the_tools_view_is_shown(ui) -> None:
    page = ui.context.new_page()
    asked: list[str] = []
    page.on("request", lambda r: "/api/tools" in r.url and asked.append(r.url))
    page.goto(f"{ui.server.url}/")
    page.wait_for_selector('.conn-status[data-status="connected"]')
    assert asked == []
    assert page.locator("#view-tools").count() == 0
    page.click('.nav a[data-view="tools"]')
    page.wait_for_selector('.tool-card[data-tool="calculator"]')
    assert asked == [f"{ui.server.url}/api/tools"]
    assert page.locator("#view-workbench").is_hidden()
    page.close()


def test_switching_views_keeps_the_workbench_state(ui) -> None:
    page = ui.open()
    ui.wait_connected()
    ui.send("Kitchenに左矢印を表示して")
    page.click('.nav a[data-view="tools"]')
    page.wait_for_selector('.tool-card[data-tool="calculator"]')
    assert page.url.endswith("#/tools")
    page.click('.nav a[data-view="workbench"]')
    ui.wait_connected()
    assert page.locator(".msg.user").all_inner_texts() == ["Kitchenに左矢印を表示して"]
    assert page.locator(".msg.agent .markdown").count() == 1
    assert [a["room"] for a in ui.map_state()["arrows"]] == ["Kitchen"]
    ui.send("2Fを表示")  # and the socket works again
    assert ui.map_state()["floorId"] == "2F"
    assert page.locator(".msg.user").count() == 2
    assert ui.errors == []


def test_a_run_in_progress_while_hidden_is_caught_up_on_return(ui) -> None:
    page = ui.open()
    ui.wait_connected()
    page.fill(".chat-input", "plot room areas")
    page.press(".chat-input", "Enter")
    page.wait_for_selector(".msg.user")
    page.click('.nav a[data-view="tools"]')  # the run goes on on the server meanwhile
    page.wait_for_function("() => window.shokunin.ws.ws === null")
    page.click('.nav a[data-view="workbench"]')
    # caught up: the run's end arrives (right after the socket reopens, "running" may not
    # be shown yet, so waiting for it to be hidden alone can pass before the catch-up)
    page.wait_for_selector(".debug-entry.done", timeout=60_000)
    page.wait_for_selector(".chat-running", state="hidden", timeout=60_000)
    assert page.locator(".thumb").count() == 1
    assert page.locator(".debug-entry.done").count() == 1
    assert page.locator(".msg.user").count() == 1


def test_reload_stays_on_the_view_in_the_url(ui) -> None:
    page = ui.open("#/tools")
    page.wait_for_selector('.tool-card[data-tool="calculator"]')
    page.reload()
    page.wait_for_selector('.tool-card[data-tool="calculator"]')
    assert page.locator('.nav a[aria-current="page"]').inner_text() == "ツール"
    assert page.locator("#view-workbench").count() == 0


def test_unknown_view_falls_back_to_the_workbench(ui) -> None:
    page = ui.open("#/nowhere")
    ui.wait_connected()
    assert page.url.endswith("#/workbench")
    assert page.locator('.nav a[aria-current="page"]').inner_text() == "ワークベンチ"


def test_a_view_registered_from_outside_mounts_and_unmounts(ui) -> None:
    page = ui.open()
    ui.wait_connected()
    ui.send("highlight Kitchen")
    page.evaluate(SCRATCH_VIEW)
    assert page.locator(".nav a").all_inner_texts() == ["ワークベンチ", "ツール", "アナリスト",
                                                        "アドバイザー", "スタジオ", "モデル",
                                                        "試験"]
    page.click('.nav a[data-view="scratch"]')
    expect(page.locator("#view-scratch .scratch-text")).to_have_text("こんにちは")
    assert page.locator("#view-workbench").is_hidden()
    expect(page.locator(".conn-status")).to_have_attribute("data-status", "ready")
    assert page.locator(".conn-text").inner_text() == "準備完了"
    page.click('.lang-switch button[data-lang="en"]')
    assert page.locator("#view-scratch .scratch-text").inner_text() == "Hello"
    assert page.locator('.nav a[data-view="scratch"]').inner_text() == "Scratch"
    page.evaluate("location.hash = '#/scratch/deeper'")
    page.wait_for_function("() => window.scratchLog.length === 2")
    ui.screenshot("views-scratch")
    page.click('.nav a[data-view="workbench"]')
    ui.wait_connected()
    assert page.locator("#view-scratch").is_hidden()
    assert page.evaluate("window.scratchLog") == ["mount:", "route:deeper", "unmount"]
    assert page.locator(".msg.user").all_inner_texts() == ["highlight Kitchen"]
    page.evaluate("location.hash = '#/scratch'")
    page.wait_for_function("() => window.scratchLog.length === 4")
    assert page.locator("#view-scratch .scratch-text").count() == 1, "its DOM was kept"
    assert ui.errors == []


def test_a_view_cannot_take_another_views_string(ui) -> None:
    page = ui.open()
    ui.wait_connected()
    error = page.evaluate("""() => {
      try {
        window.shokunin.views.register({name: "thief", label: "nav.workbench",
          strings: {en: {"nav.workbench": "Mine"}}, create: () => ({})});
      } catch (e) { return e.message; }
    }""")
    assert "nav.workbench" in error
    # Workbench, Tools, Analyst, Advisor, Studio, Models: no thief
    assert page.locator(".nav a").count() == 6


def test_a_message_sent_just_before_leaving_is_not_lost(ui) -> None:
    """Leaving the Workbench right after sending: its socket stays until the run starts
    (closing earlier would drop the queued message on the server)."""
    page = ui.open()
    ui.wait_connected()
    page.evaluate("window.shokunin.ws.send('highlight Kitchen'); location.hash = '#/tools'")
    page.wait_for_function("() => window.shokunin.ws.ws === null")
    page.click('.nav a[data-view="workbench"]')
    page.wait_for_selector(".debug-entry.done")
    assert page.locator(".msg.user").all_inner_texts() == ["highlight Kitchen"]
    assert ui.map_state()["highlighted"] == ["Kitchen"]


def test_a_view_naming_its_route_does_not_undo_a_navigation_not_yet_announced(ui) -> None:
    """The Workbench names its thread in the hash when the first reply comes. A reply
    arriving after the user left, but before the browser's hashchange, must not bring the
    Workbench back (this made the test above flaky)."""
    page = ui.open()
    ui.wait_connected()
    page.evaluate("""() => {
        location.hash = '#/tools';
        window.shokunin.views.context('workbench').setRoute('0123456789abcdef');
    }""")
    page.wait_for_selector('body[data-view="tools"]')
    assert page.evaluate("location.hash") == "#/tools"
    assert page.evaluate("window.shokunin.ws.paused") is True


def test_a_tool_try_goes_on_while_another_view_is_shown(make_page, tools_server) -> None:
    ui = make_page(tools_server, locale="en-US")
    page = ui.open("#/tools")
    page.click('.tool-card[data-tool="probe"]')
    page.fill('.field[data-field="steps"] input', "1")
    page.select_option('.field[data-field="mode"] select', label="wait_abort")
    page.click(".run-button")
    page.wait_for_selector(".abort-button:not([disabled])")
    page.click('.nav a[data-view="workbench"]')
    ui.wait_connected()
    page.click('.nav a[data-view="tools"]')
    assert page.locator(".progress-list li").all_inner_texts() == ["step 1"]
    page.click(".abort-button")  # the same run, still going
    page.wait_for_selector(".result-box:not([hidden])")
    assert page.locator(".try-card .run-state").inner_text() == "Aborted"
