"""The Advisor's chat as the origin's two React clients read it (issue 36), sent as they send
it to a live server, with the offline brain and with a streaming model: only the answer's
tokens are content, no step_update for UNKNOWN, a tool's marker stays on screen, status
events for the later client, and its diagram poll on a session that is gone."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from tests.api.advisor.origin_client import chat, open_session, screen
from tests.fake_openai import Call, FakeOpenAI, Reply, model_server
from tests.live_server import LiveServer

pytestmark = pytest.mark.subprocess

COST_QUESTION = "材料費と労務費が上がったので、製品の原価を計算し直したい。450+300+150"
DETECTED = json.dumps({"step": "STEP_0_CHECK_3", "confidence": "high",
                       "reasoning": "原価計算の質問です"}, ensure_ascii=False)
SMALL_TALK = json.dumps({"step": "UNKNOWN", "confidence": "low",
                         "reasoning": "挨拶です"}, ensure_ascii=False)
ANSWER = " ".join(f"原価の要素{i}は材料費と労務費と経費です。" for i in range(30))
KB_MARKER = "*[search_knowledge_base を使用中]*"


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, FakeOpenAI]]:
    with model_server(tmp_path_factory.mktemp("advisor-wire")) as both:
        yield both


def test_a_streaming_models_content_is_the_answer_and_never_the_step_detectors_json(
        model: tuple[LiveServer, FakeOpenAI]) -> None:
    server, fake = model
    fake.script(Reply(DETECTED), Reply(calls=[Call("search_knowledge_base", {
        "query": "原価計算"})]), Reply(ANSWER))
    session = open_session(server.url)
    messages = chat(server.url, session, "原価計算のやり方")
    contents = [m["data"] for m in messages if m["type"] == "content"]
    assert len(contents) > 20  # token by token
    assert not [c for c in contents if '"step"' in c or "confidence" in c]
    for before, after in zip(contents, contents[1:], strict=False):
        assert after.startswith(before)  # each is the whole answer so far
    assert contents[-1].endswith(ANSWER) and KB_MARKER in contents[-1]
    assert messages[-1] == {"type": "done", "content": contents[-1],
                            "current_step": "STEP_0_CHECK_3"}
    for later in (False, True):  # what both clients show at the end
        assert screen(messages, later=later).text == contents[-1]
    stored = httpx.get(f"{server.url}/api/session/{session}/messages").json()["messages"]
    assert stored[-1]["content"] == ANSWER  # the stored answer is the answer alone


def test_small_talk_sends_no_step_update_for_unknown(
        live_server: LiveServer, model: tuple[LiveServer, FakeOpenAI]) -> None:
    offline = chat(live_server.url, open_session(live_server.url), "よろしくお願いします")
    server, fake = model
    fake.script(Reply(SMALL_TALK), Reply("こんにちは。どのようなご相談でしょうか。"))
    modelled = chat(server.url, open_session(server.url), "こんにちは")
    for messages in (offline, modelled):
        assert messages[-1]["type"] == "done" and messages[-1]["current_step"] is None
        assert [m for m in messages if m["type"] == "step_update"] == []
        assert screen(messages).step is None and screen(messages, later=True).step is None
        assert "UNKNOWN" not in json.dumps(messages, ensure_ascii=False)


def test_a_tools_marker_stays_in_the_seed_clients_text_until_the_end(
        live_server: LiveServer) -> None:
    messages = chat(live_server.url, open_session(live_server.url), COST_QUESTION)
    tools = [m["tool"] for m in messages if m["type"] == "tool_use"]
    assert tools == ["calculator", "search_knowledge_base"]
    seen = screen(messages)
    # the seed client appends the marker itself; the next content must not wipe it
    after_tool = [text for m, text in zip(messages, seen.shown, strict=True)
                  if m["type"] in ("content", "done")]
    assert after_tool and all(KB_MARKER in text and "*[calculator を使用中]*" in text
                              for text in after_tool)
    assert seen.text.index("*[calculator を使用中]*") < seen.text.index(KB_MARKER)
    assert "**900**" in seen.text  # and the answer itself, after the markers


def test_the_later_client_reads_status_thinking_tool_use_and_none(
        live_server: LiveServer, model: tuple[LiveServer, FakeOpenAI]) -> None:
    offline = chat(live_server.url, open_session(live_server.url), COST_QUESTION)
    statuses = [m for m in offline if m["type"] == "status"]
    assert statuses[0] == {"type": "status", "status": "thinking", "message": "思考中..."}
    assert {"type": "status", "status": "tool_use", "message": "計算中...",
            "tool": "calculator"} in statuses
    assert {"type": "status", "status": "tool_use", "message": "検索中...",
            "tool": "search_knowledge_base"} in statuses
    assert [m["type"] for m in offline[-2:]] == ["status", "done"]
    assert offline[-2] == {"type": "status", "status": "none", "message": ""}
    assert screen(offline, later=True).status == ""
    server, fake = model
    fake.script(Reply(DETECTED), Reply(calls=[Call("calculator", {"expression": "2*3"})]),
                Reply(ANSWER))
    modelled = chat(server.url, open_session(server.url), "原価計算のやり方")
    kinds = [(m["type"], m.get("status")) for m in modelled
             if m["type"] in ("status", "content", "tool_use", "done")]
    first_content = kinds.index(("content", None))
    assert kinds[:first_content] == [("status", "thinking"), ("status", "tool_use"),
                                     ("tool_use", None), ("status", "thinking"),
                                     ("status", "none")]
    assert kinds[-2:] == [("status", "none"), ("done", None)]
    later = screen(modelled, later=True)
    assert later.statuses == ["思考中...", "計算中...", "思考中..."] and later.status == ""


def test_the_later_clients_diagram_poll_on_an_unknown_session_is_no_diagram(
        live_server: LiveServer) -> None:
    for unknown in ("f" * 32, "0123abcd"):
        answer = httpx.get(f"{live_server.url}/api/diagrams/latest",
                           params={"session_id": unknown})
        assert (answer.status_code, answer.json()) == (200, {"diagram": None})
    session = open_session(live_server.url)
    assert httpx.delete(f"{live_server.url}/api/session/{session}").status_code == 200
    gone = httpx.get(f"{live_server.url}/api/diagrams/latest", params={"session_id": session})
    assert (gone.status_code, gone.json()) == (200, {"diagram": None})
    malformed = httpx.get(f"{live_server.url}/api/diagrams/latest",
                          params={"session_id": "../x"})
    assert (malformed.status_code, malformed.json()["code"]) == (400, "bad_thread_id")


@pytest.mark.parametrize(("detector_reply", "step"), [
    ("これは STEP_0_CHECK_3 の質問です", None),  # prose naming the step: low confidence
    (f"```json\n{DETECTED}\n```", "STEP_0_CHECK_3"),  # the JSON in a fenced block
])
def test_a_step_detector_reply_that_is_no_clean_json_still_gets_the_answer(
        model: tuple[LiveServer, FakeOpenAI], detector_reply: str, step: str | None) -> None:
    """A local server that ignores response_format: the run answers instead of failing."""
    server, fake = model
    # The SDK cannot parse the detector's reply, so it is asked once more for plain JSON.
    fake.script(Reply(detector_reply), Reply(detector_reply), Reply(ANSWER))
    messages = chat(server.url, open_session(server.url), "原価計算のやり方")
    assert [m for m in messages if m["type"] == "error"] == []
    assert messages[-1]["type"] == "done" and messages[-1]["content"].endswith(ANSWER)
    if step is not None:
        [update] = [m for m in messages if m["type"] == "step_update"]
        assert update["step"] == step
