"""The Models page in a real browser (issue 48.3): a model is set up with its key, the key
is kept as the tools' secrets are (after a reload: a "set" badge, never the key), the page
says the settings take effect after a restart, and the Test button says what is wrong with
a model nobody answers at, naming the URL and the setting to change."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from shokunin.models import ModelUnreachable
from tests.live_server import LiveServer, free_port

pytestmark = pytest.mark.browser
KEY = "sk-secret-0123456789"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = LiveServer(tmp_path_factory.mktemp("models-view")).start()
    yield live
    live.stop()


def _field(page: Any, name: str) -> Any:
    return page.locator(f'.models-settings .field[data-field="{name}"]')


@pytest.mark.parametrize("width", [1280, 375])
def test_a_model_is_saved_its_key_kept_and_tested(make_page: Any, server: LiveServer,
                                                  width: int) -> None:
    ui = make_page(server, viewport=(width, 800))
    page = ui.open("#/models")
    expect(page.locator(".models-in-use .models-spec")).to_have_text("offline")
    url = f"http://127.0.0.1:{free_port()}/v1"  # bound once, closed: nothing listens
    _field(page, "provider").locator("select").select_option('"openai"')
    _field(page, "base_url").locator("input").fill(url)
    _field(page, "model").locator("input").fill("gpt-test")
    _field(page, "api_key").locator("input").fill(KEY)
    page.click(".models-settings button[type=submit]")
    expect(page.locator(".models-settings .run-state.ok")).to_contain_text("再起動後に有効")

    page.reload()
    expect(_field(page, "base_url").locator("input")).to_have_value(url)
    expect(_field(page, "api_key").locator(".secret-badge.set")).to_have_text("設定済み")
    expect(_field(page, "api_key").locator("input")).to_have_value("")
    assert KEY not in page.content()
    expect(page.locator(".models-note")).to_contain_text("再起動後に有効")
    expect(page.locator(".models-in-use .models-spec")).to_have_text("offline")  # still

    page.click(".models-settings .models-test")
    result = page.locator(".models-result.failed")
    expect(result).to_have_text(ModelUnreachable(url).said("ja"))
    expect(result).to_have_attribute("data-code", "model_unreachable")
    result.scroll_into_view_if_needed()
    ui.screenshot(f"models-view-{width}")
    # the page fits the width: nothing to scroll sideways
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert ui.errors == []


def test_the_key_left_blank_stays_on_another_port_and_a_new_host_says_it_is_removed(
        make_page: Any, tmp_path: Any) -> None:
    """Review, point 4: a port changed, the key field left blank (「変更するときだけ入力」):
    the key stays; the server moved to another host: the key is removed, and the message
    says so."""
    live = LiveServer(tmp_path).start()
    try:
        page = make_page(live).open("#/models")
        _field(page, "provider").locator("select").select_option('"openai"')
        _field(page, "base_url").locator("input").fill("http://127.0.0.1:8080/v1")
        _field(page, "model").locator("input").fill("gpt-test")
        _field(page, "api_key").locator("input").fill(KEY)
        page.click(".models-settings button[type=submit]")
        expect(page.locator(".models-settings .run-state.ok")).to_contain_text("再起動後に有効")
        badge = _field(page, "api_key").locator(".secret-badge")
        expect(badge).to_have_text("設定済み")

        state = page.locator(".models-settings .run-state")

        def save(base_url: str) -> None:
            state.evaluate("node => { node.textContent = ''; }")  # the last save's message
            _field(page, "base_url").locator("input").fill(base_url)
            page.click(".models-settings button[type=submit]")
            expect(state).to_contain_text("保存しました")

        save("http://127.0.0.1:8081/v1")
        expect(state).not_to_contain_text("APIキー")
        expect(badge).to_have_text("設定済み")
        save("http://localhost:8081/v1")
        expect(state).to_contain_text("接続先が変わったため、APIキーを消しました。"
                                      "新しい接続先のキーを入力してください")
        expect(badge).to_have_text("未設定")
    finally:
        live.stop()
