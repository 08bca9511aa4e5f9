"""The Workbench view in a real browser against a real server (offline brain)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

BEIGE_KITCHEN = (245, 238, 226)  # the floor image's Kitchen fill


def reddish(rgba: list[int]) -> bool:
    r, g, b, _ = rgba
    return r > 180 and g < 120 and b < 120


def test_page_loads_without_console_errors(ui) -> None:
    page = ui.open()
    ui.wait_connected()
    page.wait_for_function("() => window.shokunin.map.state().floorId === '1F'")
    assert page.locator(".floor-tabs button").count() == 2
    assert page.locator(".nav a").all_inner_texts() == ["ワークベンチ", "ツール", "アナリスト",
                                                        "アドバイザー", "スタジオ", "モデル"]
    page.wait_for_timeout(300)  # let the floor image draw
    ui.screenshot("workbench-empty")
    assert ui.errors == []


def test_arrow_on_kitchen_and_clear_arrows(ui) -> None:
    page = ui.open()
    ui.wait_connected()
    ui.send("Kitchenに左矢印を表示して")
    state = ui.map_state()
    [arrow] = state["arrows"]
    assert (arrow["room"], arrow["direction"], arrow["floorId"]) == ("Kitchen", "left", "1F")
    room = state["rooms"]["Kitchen"]
    assert arrow["size"] == pytest.approx(min(80, max(30, 0.4 * min(room["w"], room["h"]))))
    assert reddish(ui.pixel(arrow["x"], arrow["y"])), "the arrow bitmap is drawn at the centre"
    ui.screenshot("workbench-arrow")
    page.click(".map-clear-arrows")
    assert ui.map_state()["arrows"] == []
    assert not reddish(ui.pixel(arrow["x"], arrow["y"]))
    assert ui.errors == []


def test_highlight_in_red_then_clear_map(ui) -> None:
    page = ui.open()
    ui.wait_connected()
    ui.send("highlight Room1 and Room2 on 1F in red")
    state = ui.map_state()
    assert [(r["name"], r["color"].lower()) for r in state["rectangles"]] == [
        ("Room1", "#ff0000"), ("Room2", "#ff0000")]
    box = state["rooms"]["Room1"]
    r, g, b, _ = ui.pixel(box["x"] + box["w"] / 2, box["y"] + box["h"] / 3)
    assert r > 230 and 140 < g < 210 and 140 < b < 210, "red at 30% over the white room"
    page.click(".map-clear")
    assert ui.map_state()["rectangles"] == []
    r, g, b, _ = ui.pixel(box["x"] + box["w"] / 2, box["y"] + box["h"] / 3)
    assert min(r, g, b) > 230, "the room is white again"


def test_show_2f_switches_floor(ui) -> None:
    page = ui.open()
    ui.wait_connected()
    ui.send("2Fを表示")
    assert ui.map_state()["floorId"] == "2F"
    assert page.get_attribute('.floor-tabs button[data-floor="2F"]', "aria-pressed") == "true"
    page.click('.floor-tabs button[data-floor="1F"]')
    assert ui.map_state()["floorId"] == "1F"


def test_chat_shows_code_blocks_and_copy_works(ui) -> None:
    page = ui.open()
    ui.wait_connected()
    ui.send("Kitchenに左矢印を表示して")
    assert page.locator(".msg.user").last.inner_text() == "Kitchenに左矢印を表示して"
    block = page.locator(".code-block").last
    assert block.locator(".code-step").inner_text() == "Step 1"
    assert block.locator(".code-lang").inner_text() == "python"
    code = block.locator("pre").inner_text()
    assert 'draw_arrow(room_name="Kitchen"' in code
    block.locator(".code-copy").click()
    expect(block.locator(".code-copy")).to_have_text("コピーしました")
    assert page.evaluate("navigator.clipboard.readText()") == code
    reply = page.locator(".msg.agent .markdown").last.inner_text()
    assert reply == "左矢印がKitchenに描かれました。"
    ui.screenshot("workbench-chat")


def test_debug_viewer_toggles_and_clears(ui) -> None:
    page = ui.open()
    ui.wait_connected()
    ui.send("highlight Kitchen")
    first = page.locator(".debug-entry pre").first
    assert "\n" in first.inner_text()
    assert page.locator(".debug-entry time").first.inner_text().count(":") == 2
    page.click(".debug-toggle")
    assert page.get_attribute(".debug-toggle", "aria-pressed") == "false"
    assert "\n" not in first.inner_text()
    page.click(".debug-toggle")
    page.click(".debug-clear")
    assert page.locator(".debug-entry").count() == 0
    assert page.locator(".debug-empty").is_visible()


def test_markdown_is_sanitised_and_errors_are_red(ui) -> None:
    page = ui.open()
    ui.wait_connected()
    text = ('**bold** <img src=x onerror="window.pwned=1"> [x](javascript:alert(1))\n\n'
            "| a | b |\n|---|---|\n| 1 | 2 |")
    page.evaluate("""t => {
        window.shokunin.ws.receive({type: 'text', content: t});
        window.shokunin.ws.receive({type: 'error', content: 'Error processing request: boom'});
    }""", text)
    bubble = page.locator(".msg.agent .markdown").last
    assert bubble.locator("strong").inner_text() == "bold"
    assert bubble.locator("img").count() == 0 and bubble.locator("a").count() == 0
    assert bubble.locator("td").all_inner_texts() == ["1", "2"]
    assert page.evaluate("window.pwned") is None
    color = page.locator(".msg.error").last.evaluate("e => getComputedStyle(e).color")
    assert color == "rgb(198, 40, 40)"


def test_replayed_messages_are_not_shown_twice(ui) -> None:
    page = ui.open()
    ui.wait_connected()
    page.evaluate("""for (let i = 0; i < 2; i++) window.shokunin.ws.receive(
        {type: 'text', content: 'once', run_id: 'r-dup', seq: 2});""")
    assert page.locator(".msg.agent", has_text="once").count() == 1


def test_image_thumbnail_and_lightbox(ui) -> None:
    page = ui.open()
    ui.wait_connected()
    pixel = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGA"
             "hKmMIQAAAABJRU5ErkJggg==")
    page.evaluate("p => window.shokunin.ws.receive({type: 'image', content: p, format: 'png',"
                  " path: 'dot.png'})", pixel)
    page.click(".thumb")
    assert page.locator("#lightbox").is_visible()
    assert page.locator(".lightbox-caption").inner_text() == "dot.png"
    page.keyboard.press("Escape")
    assert not page.locator("#lightbox").is_visible()


def test_plot_room_areas_shows_an_image(ui) -> None:
    page = ui.open()
    ui.wait_connected()
    ui.send("plot room areas")
    assert page.locator(".thumb").count() >= 1
    page.locator(".thumb").first.click()
    assert page.locator("#lightbox img").evaluate("i => i.naturalWidth") > 100
    ui.screenshot("workbench-image")
    page.keyboard.press("Escape")


def test_language_switch_is_remembered(ui) -> None:
    page = ui.open()
    ui.wait_connected()
    assert page.locator("html").get_attribute("lang") == "ja"
    page.click('.lang-switch button[data-lang="en"]')
    assert page.locator(".nav a").all_inner_texts() == ["Workbench", "Tools", "Analyst", "Advisor",
                                                        "Studio", "Models"]
    assert page.locator(".map-clear-arrows").inner_text() == "Clear Arrows"
    assert page.get_attribute(".chat-input", "placeholder").startswith("Type a message")
    assert page.locator(".conn-text").inner_text() == "Connected"
    page.reload()
    ui.wait_connected()
    assert page.locator(".pane-chat h2").inner_text() == "Chat"
    page.wait_for_timeout(300)
    ui.screenshot("workbench-english")
    page.click('.lang-switch button[data-lang="ja"]')
    assert page.locator(".pane-chat h2").inner_text() == "チャット"


def test_splitter_resizes_panes_by_drag_and_keyboard(ui) -> None:
    page = ui.open()
    ui.wait_connected()
    split = page.locator(".split-columns")
    before = page.locator(".pane-map").bounding_box()["width"]
    split.focus()
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    assert page.locator(".pane-map").bounding_box()["width"] > before + 50
    box = split.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(400, box["y"] + box["height"] / 2, steps=5)
    page.mouse.up()
    assert page.locator(".pane-map").bounding_box()["width"] < before - 100
    # redrawn to fit
    page.wait_for_function("() => window.shokunin.map.state().rooms.Kitchen.w < 100")


def test_narrow_screen_stacks_panes(make_page, live_server) -> None:
    ui = make_page(live_server, viewport=(600, 900))
    page = ui.open()
    ui.wait_connected()
    chat = page.locator(".pane-chat").bounding_box()
    images = page.locator(".pane-images").bounding_box()
    assert chat["y"] > images["y"] and chat["x"] == images["x"]
    page.wait_for_timeout(300)
    ui.screenshot("workbench-narrow")


def test_cancel_ends_the_run_and_the_running_indicator(ui) -> None:
    """A cancelled run sends an error and a done debug from one event (same seq): both must
    count, or the indicator would spin forever. A cold kernel makes the plot slow enough."""
    page = ui.open()
    ui.wait_connected()
    page.fill(".chat-input", "plot room areas")
    page.press(".chat-input", "Enter")
    expect(page.locator(".chat-cancel")).to_be_visible()
    page.click(".chat-cancel")
    # The click alone hides the indicator while the run is still starting (nothing runs
    # yet): wait for the run's end first, then the indicator must have stayed off.
    expect(page.locator(".debug-entry.done")).to_have_count(1, timeout=15_000)
    expect(page.locator(".chat-running")).to_be_hidden()
    assert page.locator(".error.cancelled").count() == 1
    ui.send("2Fを表示")  # the connection goes on
    assert ui.map_state()["floorId"] == "2F"
