"""What code produced is visible in the Workbench: printed output under its code, a failing
cell in red, image files the code saved in the images pane with their names, inline
figures as figure-<n>.png, thumbnails large enough to read, and all of it after a reload.

A real browser and server; the model is the fake OpenAI-compatible provider, scripted to
call ``run_python``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.test_wire_restore import shot
from tests.fake_openai import Call, FakeOpenAI, Reply, model_server
from tests.live_server import LiveServer

pytestmark = pytest.mark.browser

FAILING = "values = [3, 5, 8]\nprint('total:', sum(values))\nvalues[10]"
SAVING = """import matplotlib
import matplotlib.pyplot as plt
fig, ax = plt.subplots(figsize=(5, 3))
ax.plot([1, 2, 3], [2, 4, 3], marker="o")
ax.set_title("saved to files")
fig.savefig("chart.png")
fig.savefig("chart.svg")
plt.close(fig)
fig, ax = plt.subplots(figsize=(5, 3))
ax.bar(["a", "b", "c"], [3, 5, 2])
ax.set_title("shown inline")
plt.show()
print("saved chart.png and chart.svg")
"""


@pytest.fixture(scope="module")
def llm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, FakeOpenAI]]:
    with model_server(tmp_path_factory.mktemp("wire-outputs")) as both:
        yield both


def run_code(ui: Any, fake: FakeOpenAI, code: str, answer: str) -> None:
    fake.script(Reply(calls=[Call("run_python", {"code": code})]), Reply(answer))
    ui.send("run it")


def chat(page: Any) -> list[tuple[str, str]]:
    """The chat's messages as (kind, text), in order."""
    return page.locator(".chat-log .msg").evaluate_all(
        "ms => ms.map(m => [m.className.replace('msg ', ''), m.querySelector('pre')?.innerText"
        " ?? m.innerText])")


def test_output_and_a_failure_show_under_their_code(make_page: Any, llm: tuple) -> None:
    server, fake = llm
    ui = make_page(server)
    page = ui.open()
    ui.wait_connected()
    run_code(ui, fake, FAILING, "The list has only three values.")
    shown = chat(page)
    kinds = [k for k, _ in shown]
    assert kinds == ["user", "agent code", "agent code output", "error", "agent"]
    assert shown[1][1] == FAILING
    output = shown[2][1]
    assert output.startswith("total: 16\n") and "IndexError: list index out of range" in output
    assert shown[3][1] == "IndexError: list index out of range"
    assert page.locator(".msg.output .code-lang").inner_text() == "出力"
    shot(ui, "outputs-1-failing-cell")
    page.reload()
    page.wait_for_selector(".msg.output")
    ui.wait_connected()
    assert chat(page) == shown  # the same after a reload
    assert ui.errors == []


def test_saved_images_and_inline_figures_reach_the_images_pane(make_page: Any,
                                                               llm: tuple) -> None:
    server, fake = llm
    ui = make_page(server)
    page = ui.open()
    ui.wait_connected()
    run_code(ui, fake, SAVING, "Saved the chart.")
    names = page.locator(".thumb span").all_inner_texts()
    assert sorted(names) == ["chart.png", "chart.svg", "figure-1.png"]
    svg = page.locator(".thumb img[alt='chart.svg']").get_attribute("src")
    assert svg.startswith("data:image/svg+xml;base64,")
    page.wait_for_function("() => [...document.querySelectorAll('.thumb img')]"
                           ".every(i => i.complete && i.naturalWidth > 0)")
    widths = page.locator(".thumb").evaluate_all(
        "ts => ts.map(t => t.getBoundingClientRect().width)")
    assert min(widths) >= 220
    output = page.locator(".msg.output pre").inner_text()
    assert output == "saved chart.png and chart.svg"
    shot(ui, "outputs-2-saved-images")
    page.reload()
    page.wait_for_selector(".thumb")
    ui.wait_connected()
    assert page.locator(".thumb span").all_inner_texts() == names
    page.locator(".thumb", has_text="chart.svg").click()
    assert page.locator("#lightbox .lightbox-caption").inner_text() == "chart.svg"
    shot(ui, "outputs-3-svg-in-the-lightbox")
    assert ui.errors == []
