"""A model nobody answers at (issue 48.3): every face says the same thing, in its user's
language: the model's server cannot be reached, at which URL, and that
SHOKUNIN_MODEL_BASE_URL is the setting to change. Before, the Advisor said "wait and try
again", the Analyst "Connection error.", the Studio ``OpenAIConnectionError``.

One real server whose model's base URL is a closed loopback port (a socket bound, then
closed), the Studio on a one-agent pipeline, ``LANG=ja_JP.UTF-8`` (what the MCP face goes
by). Each face is driven as its clients drive it.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
import websockets
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from shokunin.models import ModelUnreachable
from tests.api.advisor.origin_client import chat, open_session
from tests.api.studio.watcher import Watcher, new_project
from tests.live_server import LiveServer, free_port
from tests.mcp.server_helpers import texts

pytestmark = pytest.mark.subprocess

SAMPLES = Path(__file__).resolve().parents[2] / "src/shokunin/data/analyst"
PIPELINE = """
phases: [{number: 1, name: planning}]
agents:
  - {type: concept, phase: 1, output: concept_doc, max_retries: 0, timeout_seconds: 60}
"""


@pytest.fixture(scope="module")
def closed_url() -> str:
    return f"http://127.0.0.1:{free_port()}/v1"  # bound once, closed: nothing listens


@pytest.fixture(scope="module")
def server(closed_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    root = tmp_path_factory.mktemp("model-failures")
    (root / "pipeline.yaml").write_text(PIPELINE, encoding="utf-8")
    live = LiveServer(root / "server", log_level="info", env={
        "SHOKUNIN_MODEL": "openai:gpt-test", "SHOKUNIN_MODEL_BASE_URL": closed_url,
        "SHOKUNIN_MODEL_API_KEY": "sk-test-key", "LANG": "ja_JP.UTF-8",
        "SHOKUNIN_STUDIO_PIPELINE": str(root / "pipeline.yaml")}).start()
    yield live
    live.stop()


def said(url: str, language: str) -> str:
    """The message every face shows, from the one place it is written."""
    return ModelUnreachable(url).said(language)


def test_the_message_names_the_url_and_the_setting(closed_url: str) -> None:
    for language in ("ja", "en"):
        assert closed_url in said(closed_url, language)
        assert "SHOKUNIN_MODEL_BASE_URL" in said(closed_url, language)
    assert "接続できません" in said(closed_url, "ja")


async def _workbench(server: LiveServer, headers: dict[str, str]) -> list[dict[str, Any]]:
    async with websockets.connect(server.ws_url, additional_headers=headers) as ws:
        await ws.recv()  # map_definition
        await ws.send(json.dumps({"message": "where is the kitchen?"}))
        messages: list[dict[str, Any]] = []
        async with asyncio.timeout(60):
            while not (messages and messages[-1].get("done")):
                messages.append(json.loads(await ws.recv()))
    return messages


@pytest.mark.parametrize(("headers", "language"), [
    ({"Accept-Language": "ja,en;q=0.8"}, "ja"),
    ({"Accept-Language": "ja", "Cookie": "shokunin_lang=en"}, "en"),  # the UI's choice wins
    ({}, "en")])
async def test_workbench(server: LiveServer, closed_url: str, headers: dict[str, str],
                         language: str) -> None:
    messages = await _workbench(server, headers)
    [error] = [m for m in messages if m["type"] == "error"]
    assert error["content"] == said(closed_url, language)
    assert error["code"] == "model_unreachable"
    assert messages[-1]["content"]["run"] == "failed"


def test_advisor(server: LiveServer, closed_url: str) -> None:
    messages = chat(server.url, open_session(server.url), "原価計算のやり方を教えて")
    error = messages[-1]
    assert error["type"] == "error" and error["code"] == "model_unreachable"
    assert error["error"] == said(closed_url, "ja")  # the playbook's language
    assert "(error " in error["detail"]  # the operator's text, with the id the log has


def _run_events(server: LiveServer, run_id: str) -> list[dict[str, Any]]:
    events = []
    with httpx.stream("GET", f"{server.url}/api/runs/{run_id}/events", timeout=120) as stream:
        for line in stream.iter_lines():
            if line.startswith("data: "):
                events.append(json.loads(line[6:]))
    return [e for e in events if "kind" in e]


def test_analyst(server: LiveServer, closed_url: str) -> None:
    with open(SAMPLES / "sales_en.csv", "rb") as f:
        dataset = httpx.post(f"{server.url}/api/analyst/datasets",
                             files={"file": ("sales_en.csv", f)}, timeout=60).json()
    run = httpx.post(f"{server.url}/api/analyst/runs",
                     json={"dataset_id": dataset["id"], "question": "total revenue by region"})
    failed = _run_events(server, run.json()["run_id"])[-1]
    assert failed["kind"] == "run_failed" and failed["code"] == "model_unreachable"
    # the view shows said[its language] (analyst-face.js); no "Connection error." left
    assert failed["said"] == {"ja": said(closed_url, "ja"), "en": said(closed_url, "en")}
    assert "Connection error" not in failed["error"]


async def test_studio_rest_and_socket(server: LiveServer, closed_url: str) -> None:
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        pid = await new_project(http)
        async with Watcher(server.url) as watcher:
            await watcher.sio.call("subscribe:project", pid, timeout=10)
            await http.post(f"/api/projects/{pid}/start")
            await watcher.wait(lambda: watcher.named("error:agent"), timeout=90)
        [agent] = (await http.get(f"/api/projects/{pid}/agents")).json()
    expected = said(closed_url, "ja")  # the Studio writes in Japanese
    [llm] = watcher.named("error:llm")
    assert llm["errorMessage"] == expected
    [gave_up] = watcher.named("error:agent")
    assert gave_up["errorMessage"] == expected
    assert "OpenAIConnectionError" not in json.dumps(watcher.events, ensure_ascii=False)
    assert agent["status"] == "failed" and agent["error"] == expected


async def test_mcp(server: LiveServer, closed_url: str) -> None:
    http = httpx2.AsyncClient(timeout=httpx2.Timeout(30, read=120))
    async with http, Client(streamable_http_client(f"{server.url}/mcp",
                                                   http_client=http)) as client:
        result = await client.call_tool("ask_advisor", {"question": "原価計算のやり方"})
    assert result.is_error
    assert texts(result) == said(closed_url, "ja")  # the server's locale: LANG=ja_JP.UTF-8


def test_serve_says_at_start_that_the_model_does_not_answer(server: LiveServer,
                                                           closed_url: str) -> None:
    deadline = time.monotonic() + 30
    while "does not answer" not in (log := server.log_path.read_text()):
        assert time.monotonic() < deadline, log[-3000:]
        time.sleep(0.1)
    [line] = [line for line in log.splitlines() if "model openai:gpt-test" in line]
    assert line.endswith(f"does not answer: {said(closed_url, 'en')}")
