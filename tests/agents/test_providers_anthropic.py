"""The Workbench against Anthropic's messages API over real HTTP, driven through WS /ws.

The fake (tests/fake_openai.py, ``/v1/messages``) streams Anthropic's events (text and
``input_json_delta`` pieces of a tool call), refuses a tool_use left without its
tool_result, and can hang.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.agents.provider_ws import ask, connect, of_type
from tests.fake_openai import API_KEY, Call, FakeOpenAI, Hang, Reply
from tests.live_server import LiveServer

pytestmark = pytest.mark.subprocess

MODEL = "fake-claude"
MODEL_TIMEOUT_SEC = 3


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


@pytest.fixture(scope="module")
def server(fake: FakeOpenAI, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = LiveServer(tmp_path_factory.mktemp("anthropic"), env={
        "SHOKUNIN_MODEL": f"anthropic:{MODEL}", "SHOKUNIN_MODEL_BASE_URL": fake.anthropic_url,
        "SHOKUNIN_MODEL_API_KEY": API_KEY,
        "SHOKUNIN_MODEL_TIMEOUT_SEC": str(MODEL_TIMEOUT_SEC)}).start()
    yield live
    live.stop()


@pytest.fixture(autouse=True)
def clean(fake: FakeOpenAI) -> Iterator[None]:
    fake.requests.clear()
    yield
    fake._script.clear()


async def test_streams_text_and_names_the_model(fake: FakeOpenAI, server: LiveServer) -> None:
    fake.script(Reply("The lobby is on the first floor."))
    ws = await connect(server)
    messages = await ask(ws, "where is the lobby?")
    await ws.close()
    deltas = [m["content"] for m in of_type(messages, "text_delta")]
    assert len(deltas) > 3 and "".join(deltas) == "The lobby is on the first floor."
    assert [m["content"] for m in of_type(messages, "text")] == ["".join(deltas)]
    usage = [m["content"]["usage"] for m in of_type(messages, "debug")
             if "usage" in m["content"]]
    assert usage and usage[0]["model"] == MODEL
    assert fake.requests[0]["stream"] is True


async def test_split_tool_call_runs_and_the_thread_goes_on(fake: FakeOpenAI,
                                                          server: LiveServer) -> None:
    fake.script(Reply(calls=[Call("draw_arrow", {"room_name": "Kitchen",
                                                 "direction": "right"})]),
                Reply("Arrow drawn."), Reply("Anything else?"))
    ws = await connect(server)
    first = await ask(ws, "arrow right in the kitchen")
    second = await ask(ws, "thanks")
    await ws.close()
    assert of_type(first, "error") == []
    assert of_type(first, "arrow")[0]["content"] == {"room": "Kitchen", "direction": "right"}
    assert of_type(first, "text")[-1]["content"] == "Arrow drawn."
    assert of_type(second, "text")[-1]["content"] == "Anything else?"


async def test_broken_tool_arguments_are_answered(fake: FakeOpenAI, server: LiveServer) -> None:
    fake.script(Reply(calls=[Call("draw_arrow", raw_args='{"room_name": Kitchen}')]),
                Reply("I will try again later."), Reply("Still here."))
    ws = await connect(server)
    first = await ask(ws, "arrow in the kitchen")
    second = await ask(ws, "ok")
    await ws.close()
    assert of_type(first, "error") == []
    assert [m["content"]["tool_error"]["code"] for m in of_type(first, "debug")
            if "tool_error" in m["content"]] == ["invalid_tool_call"]
    assert first[-1]["content"]["run"] == "completed"
    assert of_type(second, "text")[-1]["content"] == "Still here."


async def test_hang_times_out_with_a_clear_error(fake: FakeOpenAI, server: LiveServer) -> None:
    fake.script(*[Hang()] * 3)
    ws = await connect(server)
    messages = await ask(ws, "hello")
    await ws.close()
    error = of_type(messages, "error")[-1]["content"]
    assert f"did not answer within {MODEL_TIMEOUT_SEC} s" in error
    assert fake.anthropic_url in error
