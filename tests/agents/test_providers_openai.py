"""The Workbench against an OpenAI-compatible server over real HTTP, driven through WS /ws.

The server is tests/fake_openai.py: it enforces the public API's request rules and answers
as scripted per test (text, tool calls split across chunks, broken JSON, 429, a cut
stream, a hang). Every test talks to a real shokunin server as a browser would.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.agents.provider_ws import ask, connect, of_type
from tests.fake_openai import API_KEY, Call, Cut, FakeOpenAI, Hang, Reply, Status
from tests.live_server import LiveServer, free_port

pytestmark = pytest.mark.subprocess

MODEL = "fake-gpt"
MODEL_TIMEOUT_SEC = 3
WORDY_TOOL = f"""
TOOL_NAME = "wordy"
TOOL_DESCRIPTION = "A tool that says too much."
TOOL_ICON = "x"


def get_function_declaration():
    return {{"name": "wordy", "description": {"w" * 1100!r},
            "parameters": {{"type": "object", "properties": {{}}}}}}


def execute(args, context):
    return {{"success": True, "result": "ok"}}
"""


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


@pytest.fixture(scope="module")
def server(fake: FakeOpenAI, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    data = tmp_path_factory.mktemp("providers")
    wordy = data / "tool" / "wordy"  # a plugin whose description no provider accepts
    wordy.mkdir(parents=True)
    (wordy / "wordy_tool.py").write_text(WORDY_TOOL)
    live = LiveServer(data, env={
        "SHOKUNIN_MODEL": f"openai:{MODEL}", "SHOKUNIN_MODEL_BASE_URL": fake.base_url,
        "SHOKUNIN_MODEL_API_KEY": API_KEY,
        "SHOKUNIN_MODEL_TIMEOUT_SEC": str(MODEL_TIMEOUT_SEC)}).start()
    yield live
    live.stop()


@pytest.fixture(autouse=True)
def clean(fake: FakeOpenAI) -> Iterator[None]:
    fake.requests.clear()
    yield
    fake._script.clear()


async def test_answer_streams_as_it_grows_then_comes_whole(fake: FakeOpenAI,
                                                           server: LiveServer) -> None:
    fake.script(Reply("The kitchen is on the first floor, next to the lobby."))
    ws = await connect(server)
    messages = await ask(ws, "where is the kitchen?")
    await ws.close()
    deltas = [m["content"] for m in of_type(messages, "text_delta")]
    assert len(deltas) > 3  # word by word, not one block at the end
    assert "".join(deltas) == "The kitchen is on the first floor, next to the lobby."
    texts = of_type(messages, "text")  # seed 000 clients still get the whole answer
    assert [m["content"] for m in texts] == ["".join(deltas)]
    types = [m["type"] for m in messages]
    assert types.index("text_delta") < types.index("text")
    assert messages[-1]["content"]["run"] == "completed"
    assert fake.requests[0]["stream"] is True


async def test_usage_names_the_model(fake: FakeOpenAI, server: LiveServer) -> None:
    fake.script(Reply("Hello."))
    ws = await connect(server)
    messages = await ask(ws, "hi")
    await ws.close()
    usage = [m["content"]["usage"] for m in of_type(messages, "debug")
             if "usage" in m["content"]]
    assert usage == [{"input_tokens": 11, "output_tokens": 7, "total_tokens": 18,
                      "model": MODEL}]


async def test_every_tool_declaration_is_accepted_and_split_tool_calls_run(
        fake: FakeOpenAI, server: LiveServer) -> None:
    fake.script(Reply(calls=[Call("draw_arrow", {"room_name": "Kitchen", "direction": "left"}),
                             Call("show_map", {"floor_id": "1F",
                                               "highlight_rooms": "Kitchen"})]),
                Reply("Done: the arrow points left."))
    ws = await connect(server)
    messages = await ask(ws, "arrow in the kitchen")
    await ws.close()
    assert of_type(messages, "error") == []
    assert of_type(messages, "arrow")[0]["content"] == {"room": "Kitchen", "direction": "left"}
    assert of_type(messages, "map")[0]["content"]["floorId"] == "1F"
    assert of_type(messages, "text")[-1]["content"] == "Done: the arrow points left."
    sent = {t["function"]["name"] for t in fake.requests[0]["tools"]}
    assert {"show_map", "draw_arrow", "highlight_room", "sql_engine", "run_python"} <= sent
    answers = [m for m in fake.requests[1]["messages"] if m["role"] == "tool"]
    assert [a["content"] for a in answers][0] == "Drew a left arrow in Kitchen."


async def test_a_plugin_a_provider_would_refuse_is_listed_and_left_out(
        fake: FakeOpenAI, server: LiveServer) -> None:
    listed = {t["name"]: t for t in httpx.get(f"{server.url}/api/tools").json()["tools"]}
    assert listed["wordy"]["status"] == "error"
    assert "description is 1100 characters" in listed["wordy"]["error"]
    fake.script(Reply("Runs still work."))
    ws = await connect(server)
    messages = await ask(ws, "hello")
    await ws.close()
    assert of_type(messages, "text")[-1]["content"] == "Runs still work."
    assert "wordy" not in {t["function"]["name"] for t in fake.requests[0]["tools"]}


async def test_broken_tool_arguments_are_answered_and_the_thread_goes_on(
        fake: FakeOpenAI, server: LiveServer) -> None:
    broken = '{"room_name": Kitchen, "direction": "up"}'  # Kitchen unquoted
    fake.script(Reply(calls=[Call("draw_arrow", raw_args=broken)]),
                Reply(calls=[Call("draw_arrow", {"room_name": "Kitchen",
                                                 "direction": "up"})]),
                Reply("Fixed it."),
                Reply("Still here."))
    ws = await connect(server)
    first = await ask(ws, "arrow up in the kitchen")
    second = await ask(ws, "thanks")
    await ws.close()
    assert of_type(first, "error") == []  # the debug pane has it; the model goes on
    errors = [m["content"]["tool_error"] for m in of_type(first, "debug")
              if "tool_error" in m["content"]]
    assert [e["code"] for e in errors] == ["invalid_tool_call"]
    assert errors[0]["tool"] == "draw_arrow" and "JSON" in errors[0]["error"]
    assert of_type(first, "arrow")[0]["content"] == {"room": "Kitchen", "direction": "up"}
    assert first[-1]["content"]["run"] == "completed"
    told = [m for m in fake.requests[1]["messages"] if m["role"] == "tool"]
    assert len(told) == 1 and "not valid JSON" in told[0]["content"]
    # The broken call was answered, so the provider accepts the thread's next message.
    assert of_type(second, "text")[-1]["content"] == "Still here."
    assert second[-1]["content"]["run"] == "completed"


async def test_rate_limit_then_success_is_retried(fake: FakeOpenAI, server: LiveServer) -> None:
    fake.script(Status(429), Status(500, "The server had an error"), Reply("After retries."))
    ws = await connect(server)
    messages = await ask(ws, "hello")
    await ws.close()
    assert of_type(messages, "text")[-1]["content"] == "After retries."
    assert len(fake.requests) == 3


async def test_hung_provider_times_out_with_a_clear_error(fake: FakeOpenAI,
                                                          server: LiveServer) -> None:
    fake.script(*[Hang()] * 3)  # the first try and both retries
    ws = await connect(server)
    messages = await ask(ws, "hello")
    await ws.close()
    assert messages[-1]["content"]["run"] == "failed"
    error = of_type(messages, "error")[-1]["content"]
    assert f"did not answer within {MODEL_TIMEOUT_SEC} s" in error
    assert fake.base_url in error and "SHOKUNIN_MODEL_TIMEOUT_SEC" in error


async def test_cut_stream_fails_the_run_clearly_and_the_thread_goes_on(
        fake: FakeOpenAI, server: LiveServer) -> None:
    fake.script(Cut(), Reply("Whole this time."))
    ws = await connect(server)
    first = await ask(ws, "hello")
    second = await ask(ws, "again")
    await ws.close()
    assert first[-1]["content"]["run"] == "failed"
    error = of_type(first, "error")[-1]["content"]
    assert f"The model at {fake.base_url} broke off its answer" in error
    assert of_type(second, "text")[-1]["content"] == "Whole this time."


async def test_unreachable_provider_error_names_the_url(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    live = LiveServer(tmp_path / "server", env={
        "SHOKUNIN_MODEL": f"openai:{MODEL}", "SHOKUNIN_MODEL_BASE_URL": url,
        "SHOKUNIN_MODEL_API_KEY": API_KEY}).start()
    try:
        ws = await connect(live)
        messages = await ask(ws, "hello")
        await ws.close()
    finally:
        live.stop()
    assert messages[-1]["content"]["run"] == "failed"
    error = of_type(messages, "error")[-1]
    assert f"Cannot reach the model at {url}" in error["content"]
    assert "SHOKUNIN_MODEL_BASE_URL" in error["content"] and error["code"] == "model_unreachable"


def test_missing_api_key_stops_startup_with_one_line(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("SHOKUNIN_") and k != "OPENAI_API_KEY"}
    env.update({"SHOKUNIN_MODEL": "openai:gpt-4.1-mini", "SHOKUNIN_DATA_DIR": str(tmp_path)})
    done = subprocess.run([sys.executable, "-m", "shokunin", "serve", "--port",
                           str(free_port())], env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "SHOKUNIN_MODEL_API_KEY" in lines[0] and "OPENAI_API_KEY" in lines[0]
