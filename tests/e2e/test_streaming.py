"""The Workbench chat shows a model's answer as it grows, then the whole answer in its place
(a real browser, a real server, the fake OpenAI-compatible provider)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fake_openai import FakeOpenAI, Reply, model_server
from tests.live_server import LiveServer

pytestmark = pytest.mark.browser

ANSWER = "The **kitchen** is on the first floor, next to the lobby."


@pytest.fixture
def llm_server(tmp_path: Path) -> Iterator[tuple[LiveServer, FakeOpenAI]]:
    with model_server(tmp_path / "server") as both:
        yield both


def test_answer_grows_in_the_chat_then_is_rendered_whole(make_page: Any,
                                                        llm_server: tuple) -> None:
    server, fake = llm_server
    fake.script(Reply(ANSWER))
    ui = make_page(server)
    page = ui.open()
    ui.wait_connected()
    # Record every text the growing bubble shows, as the browser shows it.
    page.evaluate("""() => {
        window.grown = [];
        new MutationObserver(() => {
            const g = document.querySelector('.chat-log .growing');
            if (g && g.textContent !== window.grown.at(-1)) window.grown.push(g.textContent);
        }).observe(document.querySelector('.chat-log'),
                   {childList: true, subtree: true, characterData: true});
    }""")
    ui.send("where is the kitchen?")
    grown = page.evaluate("window.grown")
    assert len(grown) > 3 and grown[-1] == ANSWER  # word by word, raw while it grows
    assert all(ANSWER.startswith(g) for g in grown)
    assert page.locator(".chat-log .growing").count() == 0
    answers = page.locator(".msg.agent .markdown")
    assert answers.count() == 1  # replaced, not shown twice
    assert answers.first.locator("strong").inner_text() == "kitchen"
    assert ui.errors == []
