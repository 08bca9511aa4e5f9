"""The Tools view: list with status, try a tool over SSE (progress, result, abort), settings."""

from __future__ import annotations

import pytest

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
    assert '"value": "96"' in page.locator(".result-json").inner_text()
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
    assert '"tags": [\n    "a",\n    "b"\n  ]' in page.locator(".result-json").inner_text()
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
