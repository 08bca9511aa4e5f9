"""A client that leaves ``POST /api/chat`` cancels its answer (issue 36): the later origin
client's stop button aborts the fetch. A real HTTP client closes its connection mid-stream
against a live server with a streaming model; the run ends cancelled, nothing more is
generated, and the run's events stay stored (the answer as far as it went is kept)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.api.advisor.origin_client import CHAT_HEADERS, chat_body, data_lines, open_session
from tests.fake_openai import FakeOpenAI, Reply, model_server
from tests.live_server import LiveServer
from tests.waiting import wait_until

pytestmark = pytest.mark.subprocess

DETECTED = '{"step": "STEP_0_CHECK_3", "confidence": "high", "reasoning": "原価計算です"}'
WORDS = 600  # 10 ms a word from the fake: six seconds of answer
LONG_ANSWER = " ".join(f"原価{i}。" for i in range(WORDS))


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, FakeOpenAI]]:
    with model_server(tmp_path_factory.mktemp("advisor-cancel")) as both:
        yield both


def _run(url: str, run_id: str) -> dict[str, Any]:
    answer = httpx.get(f"{url}/api/runs/{run_id}")
    assert answer.status_code == 200, answer.text
    return answer.json()


def _stored(url: str, run_id: str) -> list[str]:
    with httpx.stream("GET", f"{url}/api/runs/{run_id}/events", timeout=30) as stream:
        return [line[7:] for line in stream.iter_lines() if line.startswith("event: ")]


def test_a_client_that_leaves_mid_answer_cancels_it_and_its_events_stay(
        model: tuple[LiveServer, FakeOpenAI]) -> None:
    server, fake = model
    fake.script(Reply(DETECTED), Reply(LONG_ANSWER))
    session = open_session(server.url)
    asked = len(fake.requests)
    with httpx.Client(timeout=30) as client, client.stream(
            "POST", f"{server.url}/api/chat", content=chat_body("原価計算", session),
            headers=CHAT_HEADERS) as stream:
        for message in data_lines(stream.iter_lines()):
            if message["type"] == "run":
                run_id = message["run_id"]
            if message["type"] == "content":
                break  # the stop button: the fetch is aborted after the first tokens
    def ended() -> dict[str, Any] | None:
        run = _run(server.url, run_id)
        return run if run["status"] != "running" else None

    run = wait_until(ended, 30, what="the run's end")  # leaving the block closed the connection
    assert run["status"] == "cancelled"
    kinds = _stored(server.url, run_id)
    assert kinds[0] == "run_started" and kinds[-2:] == ["run_cancelled", "end"]
    deltas = kinds.count("text_delta")
    assert 0 < deltas < WORDS / 2  # cut short, not generated for no one
    time.sleep(0.3)  # no event says nothing comes: the fake says a word every 10 ms
    assert _stored(server.url, run_id).count("text_delta") == deltas  # nothing more came
    assert len(fake.requests) == asked + 2  # no model call after the stop
    kept = httpx.get(f"{server.url}/api/session/{session}/messages").json()["messages"]
    assert kept[0] == {"role": "user", "content": "原価計算"}
    assert kept[1]["stopped"] is True  # the answer as far as it was written, as the origin
    assert LONG_ANSWER.startswith(kept[1]["content"]) and len(kept[1]["content"]) > 0


def test_a_client_that_stays_to_the_end_cancels_nothing(
        model: tuple[LiveServer, FakeOpenAI]) -> None:
    server, fake = model
    fake.script(Reply(DETECTED), Reply("原価は材料費と労務費と経費の合計です。"))
    session = open_session(server.url)
    with httpx.stream("POST", f"{server.url}/api/chat", content=chat_body("原価計算", session),
                      headers=CHAT_HEADERS, timeout=30) as stream:
        messages = list(data_lines(stream.iter_lines()))
    assert messages[-1]["type"] == "done"
    assert _run(server.url, messages[0]["run_id"])["status"] == "completed"
