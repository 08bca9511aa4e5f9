"""What a run's code produced reaches the Workbench socket (seed 000): printed output under
its code, a failing or refused cell as an ``error``, image files the code saved as ``image``
messages with their path, and a closing ``debug`` listing every output of the run.

A real server; the model is the fake OpenAI-compatible provider, scripted per test to call
``run_python`` with the code under test.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.api.workbench.test_workbench_ws import ask, connect, types
from tests.fake_openai import Call, FakeOpenAI, Reply, model_server
from tests.live_server import LiveServer

pytestmark = pytest.mark.kernel

SAVE_FILES = """import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
fig, ax = plt.subplots(figsize=(4, 3))
ax.bar(["a", "b"], [3, 5])
fig.savefig("chart.png")
fig.savefig("chart.svg")
fig.savefig("photo.jpg")
fig.savefig("chart.pdf")  # not an image format: not sent
plt.close(fig)
print("saved")
"""


@pytest.fixture(scope="module")
def llm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, FakeOpenAI]]:
    with model_server(tmp_path_factory.mktemp("outputs")) as both:
        yield both


async def run_code(llm: tuple[LiveServer, FakeOpenAI], code: str) -> list[dict[str, Any]]:
    server, fake = llm
    fake.script(Reply(calls=[Call("run_python", {"code": code})]), Reply("Done."))
    ws, _ = await connect(server)
    try:
        return await ask(ws, "run it")
    finally:
        await ws.close()


def after_code(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages after the run's Python code block."""
    start = next(i for i, m in enumerate(messages)
                 if m["type"] == "code" and m["language"] == "python")
    return messages[start + 1:]


async def test_printed_output_follows_its_code_and_fills_raw_output(llm: tuple) -> None:
    messages = await run_code(llm, "for i in range(3):\n    print('line', i)")
    output = after_code(messages)[0]
    assert output["type"] == "code" and output["language"] == "text" and output["output"]
    assert output["content"] == "line 0\nline 1\nline 2\n"
    assert output["step"] == "Step 1"
    assert "error" not in types(messages)
    closing = messages[-1]["content"]
    assert closing["run"] == "completed"
    assert closing["agent_response"]["raw_output"] == "line 0\nline 1\nline 2\n"


async def test_a_failing_cell_shows_its_traceback_and_a_code_error(llm: tuple) -> None:
    messages = await run_code(llm, "x = 1\nx / 0")
    output, error = after_code(messages)[:2]
    assert output["language"] == "text" and "ZeroDivisionError" in output["content"]
    assert "Traceback" in output["content"] or "Cell In" in output["content"]
    assert error == error | {"type": "error", "code": "code_error"}
    assert error["content"].startswith("ZeroDivisionError: division by zero")
    assert "ZeroDivisionError" in messages[-1]["content"]["agent_response"]["raw_output"]


async def test_a_refused_cell_says_why_as_a_code_refused_error(llm: tuple) -> None:
    messages = await run_code(llm, "import subprocess\nsubprocess.run(['id'])")
    [error] = [m for m in messages if m["type"] == "error"]
    assert error["code"] == "code_refused"
    assert error["content"].startswith("PolicyViolation: ") and "subprocess" in error["content"]
    output = after_code(messages)[0]
    assert output["language"] == "text" and "PolicyViolation" in output["content"]


async def test_image_files_the_code_saves_are_sent_with_path_and_format(llm: tuple) -> None:
    messages = await run_code(llm, SAVE_FILES)
    images = [m for m in messages if m["type"] == "image"]
    assert sorted((m["path"], m["format"]) for m in images) == [
        ("chart.png", "png"), ("chart.svg", "svg"), ("photo.jpg", "jpg")]
    data = {m["path"]: base64.b64decode(m["content"]) for m in images}
    assert data["chart.png"].startswith(b"\x89PNG")
    assert b"<svg" in data["chart.svg"]
    assert data["photo.jpg"].startswith(b"\xff\xd8")
    again = await run_code(llm, "print('nothing saved')")  # files seen before are not resent
    assert [m for m in again if m["type"] == "image"] == []


async def test_the_closing_debug_lists_every_output_of_the_run(live_server: LiveServer) -> None:
    ws, _ = await connect(live_server)
    try:
        shown = await ask(ws, "show 2F and draw a left arrow in Kitchen and highlight Room1")
        chart = await ask(ws, "plot room areas on 2F")
    finally:
        await ws.close()
    closing = shown[-1]
    assert closing["done"] and closing["content"]["run"] == "completed"
    listed = [o["type"] for o in closing["content"]["parsed_outputs"]]
    sent = [m["type"] for m in shown if m["type"] not in ("user_message", "debug")]
    assert listed == sent and {"map", "arrow", "highlight_room", "code", "text"} <= set(listed)
    assert closing["content"]["output_count"] == len(listed)
    response = closing["content"]["agent_response"]
    assert response["text"] == next(m["content"] for m in shown if m["type"] == "text")
    assert [s["step"] for s in response["code_steps"]] == ["Step 1"] * 3
    outputs = chart[-1]["content"]["parsed_outputs"]
    image = next(o for o in outputs if o["type"] == "image")
    assert image["content"].startswith("<base64, ")  # its size, not the bytes, in the debug
    assert any(o["type"] == "code" and o.get("output") for o in outputs)
    assert json.dumps(chart[-1]).count("iVBOR") == 0


async def test_a_replay_ends_with_the_same_outputs(live_server: LiveServer) -> None:
    ws, _ = await connect(live_server)
    try:
        live = await ask(ws, "Kitchenに左矢印を描いて")
        run_id = live[0]["run_id"]
        await ws.send(json.dumps({"run_id": run_id, "after": live[2]["seq"]}))
        replayed = []
        while not replayed or not replayed[-1].get("done"):
            replayed.append(json.loads(await ws.recv()))
    finally:
        await ws.close()
    assert replayed[-1]["content"]["parsed_outputs"] == live[-1]["content"]["parsed_outputs"]
