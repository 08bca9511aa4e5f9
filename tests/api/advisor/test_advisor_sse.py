"""The Advisor's chat over SSE, read by a real SSE client from a running server: the exact
line format the seed's React client reads, cumulative content, resume with Last-Event-ID,
sessions that survive a restart, bad input (tests/api/advisor/test_chat_*.py: what the
origin's clients read, every error's wording, a client that leaves)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fake_openai import Call, FakeOpenAI, Reply, model_server
from tests.live_server import LiveServer
from tests.waiting import wait_until

pytestmark = pytest.mark.subprocess

COST_QUESTION = "材料費と労務費が上がったので、製品の原価を計算し直したい。450+300+150"


def _session(server: LiveServer, **profile: str) -> str:
    answer = httpx.post(f"{server.url}/api/session", json={"user_info": profile})
    assert answer.status_code == 200, answer.text
    return answer.json()["session_id"]


def _blocks(lines: Iterator[str]) -> Iterator[list[str]]:
    block: list[str] = []
    for line in lines:
        if line == "":
            if block:
                yield block
            block = []
        else:
            block.append(line)


def _chat(server: LiveServer, session_id: str, message: str) -> tuple[httpx.Headers, list[
        list[str]]]:
    with httpx.stream("POST", f"{server.url}/api/chat", timeout=60,
                      json={"message": message, "session_id": session_id}) as stream:
        return stream.headers, list(_blocks(stream.iter_lines()))


def _data(blocks: list[list[str]]) -> list[dict[str, Any]]:
    return [json.loads(line[6:]) for block in blocks for line in block
            if line.startswith("data: ")]


def test_each_event_is_one_data_line_with_its_seq_and_the_answer_ends_with_done(
        live_server: LiveServer) -> None:
    session = _session(live_server, industry="金属加工", companySize="30名")
    headers, blocks = _chat(live_server, session, COST_QUESTION)
    assert headers["content-type"].startswith("text/event-stream")
    assert headers["cache-control"] == "no-cache" and headers["x-accel-buffering"] == "no"
    events = [b for b in blocks if not all(line.startswith(":") for line in b)]
    for block in events:
        data = [line for line in block if line.startswith("data: ")]
        assert len(data) == 1 and json.loads(data[0][6:])["type"]
        others = [line for line in block if not line.startswith("data: ")]
        assert len(others) <= 1 and all(line.startswith("id: ") for line in others)
    seqs = [int(line[4:]) for block in events for line in block if line.startswith("id: ")]
    # an event's last message carries its seq (a status before it does not)
    assert seqs == sorted(set(seqs)) and len(seqs) > len(events) / 2
    messages = _data(blocks)
    types = [m["type"] for m in messages]
    assert types[0] == "run" and types[-1] == "done"
    step = next(m for m in messages if m["type"] == "step_update")
    assert step["step"] == "STEP_0_CHECK_3" and step["confidence"] in ("high", "medium")
    assert step["title"] == "原価計算の実施" and step["reasoning"]
    assert {"tool": "calculator"}.items() <= next(
        m for m in messages if m["type"] == "tool_use").items()
    assert "search_knowledge_base" in [m["tool"] for m in messages if m["type"] == "tool_use"]
    sources = next(m for m in messages if m["type"] == "sources")["sources"]
    assert sources and all(s["source"].endswith(".md") and s["score"] > 0 for s in sources)
    done = messages[-1]
    assert "**900**" in done["content"] and sources[0]["source"] in done["content"]
    assert done["current_step"] == "STEP_0_CHECK_3"


def test_messages_and_step_are_kept_and_clear_forgets_them(live_server: LiveServer) -> None:
    session = _session(live_server, region="大阪府")
    _chat(live_server, session, COST_QUESTION)
    kept = httpx.get(f"{live_server.url}/api/session/{session}/messages").json()
    assert [m["role"] for m in kept["messages"]] == ["user", "assistant"]
    assert kept["messages"][0]["content"] == COST_QUESTION
    assert kept["current_step"] == "STEP_0_CHECK_3" and kept["user_info"] == {"region": "大阪府"}
    answer = kept["messages"][1]  # with what the live stream showed beside it
    assert [t["tool"] for t in answer["tools"]] == ["calculator", "search_knowledge_base"]
    assert answer["sources"] and answer["sources"][0]["source"] in answer["content"]
    assert kept["step"]["step"] == "STEP_0_CHECK_3" and kept["step"]["reasoning"]
    assert httpx.post(f"{live_server.url}/api/session/{session}/clear").status_code == 200
    cleared = httpx.get(f"{live_server.url}/api/session/{session}/messages").json()
    assert cleared == {"messages": [], "current_step": None, "step": None,
                       "user_info": {"region": "大阪府"}}


def test_an_unknown_session_gets_an_error_event_not_a_new_session(
        live_server: LiveServer) -> None:
    before = httpx.get(f"{live_server.url}/api/sessions").json()["sessions"]
    _, blocks = _chat(live_server, "f" * 32, "原価計算のやり方")
    assert _data(blocks) == [{"type": "error", "code": "not_found", "error": (
        "セッションが見つかりません。ページを再読み込みして新しい相談を始めてください。"),
        "detail": f"no session {'f' * 32!r}"}]
    assert httpx.get(f"{live_server.url}/api/sessions").json()["sessions"] == before
    assert httpx.get(f"{live_server.url}/api/session/{'f' * 32}/messages").status_code == 404
    for body in ({"session_id": "x"}, {"message": "hi"}, [1, 2]):
        answer = httpx.post(f"{live_server.url}/api/chat", json=body)
        assert json.loads(answer.text.split("data: ", 1)[1].split("\n")[0])["type"] == "error"
    bad = httpx.post(f"{live_server.url}/api/session", json={"user_info": {"age": 3}})
    assert (bad.status_code, bad.json()["code"]) == (400, "bad_request")


def test_resuming_with_last_event_id_sends_the_rest_with_the_whole_answer(
        live_server: LiveServer) -> None:
    session = _session(live_server)
    _, blocks = _chat(live_server, session, COST_QUESTION)
    messages = _data(blocks)
    run_id = messages[0]["run_id"]
    step_seq = next(int(line[4:]) for block in blocks for line in block
                    if line.startswith("id: ") and '"step_update"' in "".join(block))
    with httpx.stream("GET", f"{live_server.url}/api/chat/runs/{run_id}/events",
                      headers={"Last-Event-ID": str(step_seq)}, timeout=30) as stream:
        rest = _data(list(_blocks(stream.iter_lines())))
    assert "step_update" not in [m["type"] for m in rest]
    assert rest[-1] == messages[-1]  # done, with the whole answer
    assert [m["type"] for m in rest] == [m["type"] for m in messages][
        [m["type"] for m in messages].index("step_update") + 1:]


def test_the_step_can_be_chosen_and_the_playbook_lists_the_steps(
        live_server: LiveServer) -> None:
    book = httpx.get(f"{live_server.url}/api/playbook").json()
    assert len(book["steps"]) == 14 and book["steps"][0] == {**book["steps"][0], **{
        "id": "STEP_0_CHECK_1", "title": "取引条件・業務内容の確認"}}
    session = _session(live_server)
    chosen = httpx.post(f"{live_server.url}/api/session/{session}/step",
                        json={"step": "STEP_3"})
    assert chosen.status_code == 200
    wait_until(lambda: httpx.get(f"{live_server.url}/api/runs/{chosen.json()['run_id']}"
                                 ).json()["status"] == "completed",
               30, what="the step's run completed")  # a few ms alone, longer on a loaded machine
    assert httpx.get(f"{live_server.url}/api/session/{session}/messages"
                     ).json()["current_step"] == "STEP_3"
    bad = httpx.post(f"{live_server.url}/api/session/{session}/step", json={"step": "STEP_9"})
    assert (bad.status_code, bad.json()["code"]) == (400, "bad_request")
    # this session drew nothing (the shared server's other sessions may have)
    assert httpx.get(f"{live_server.url}/api/diagrams/latest",
                     params={"session_id": session}).json() == {"diagram": None}


def test_sessions_and_their_step_survive_a_restart(fresh_server: LiveServer) -> None:
    session = _session(fresh_server, industry="食品")
    _chat(fresh_server, session, COST_QUESTION)
    fresh_server.stop()
    fresh_server.start()
    kept = httpx.get(f"{fresh_server.url}/api/session/{session}/messages").json()
    assert kept["current_step"] == "STEP_0_CHECK_3" and len(kept["messages"]) == 2
    _, blocks = _chat(fresh_server, session, "ありがとうございます")  # a general question
    step = next(m for m in _data(blocks) if m["type"] == "step_update")
    assert step["step"] == "STEP_0_CHECK_3"  # the focus is kept


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, FakeOpenAI]]:
    with model_server(tmp_path_factory.mktemp("advisor-model")) as both:
        yield both


DETECTED = json.dumps({"step": "STEP_0_CHECK_3", "confidence": "high",
                       "reasoning": "原価計算の質問です"}, ensure_ascii=False)
ANSWER = " ".join(f"原価の要素{i}は材料費と労務費と経費です。" for i in range(60))


def test_a_models_tokens_arrive_as_the_whole_answer_so_far(
        model: tuple[LiveServer, FakeOpenAI]) -> None:
    server, fake = model
    fake.script(Reply(DETECTED), Reply(calls=[Call("search_knowledge_base", {
        "query": "原価計算"})]), Reply(ANSWER))
    session = _session(server, industry="金属加工")
    _, blocks = _chat(server, session, "原価計算のやり方")
    messages = _data(blocks)
    contents = [m["data"] for m in messages if m["type"] == "content"]
    assert len(contents) > 20  # token by token
    for before, after in zip(contents, contents[1:], strict=False):
        assert after.startswith(before) and len(after) > len(before)
    marker = "\n\n*[search_knowledge_base を使用中]*\n\n"  # kept, as the origin does
    assert contents[-1] == marker + ANSWER and messages[-1] == {
        "type": "done", "content": marker + ANSWER, "current_step": "STEP_0_CHECK_3"}
    assert [m["tool"] for m in messages if m["type"] == "tool_use"] == ["search_knowledge_base"]
    system = fake.requests[-1]["messages"][0]["content"]
    assert "原価計算の実施" in system and "金属加工" in system  # step prompt and profile


@pytest.mark.parametrize(("setting", "value", "named"), [
    ("SHOKUNIN_ADVISOR_PLAYBOOK", "bad.yaml", "bad.yaml"),
    ("SHOKUNIN_KNOWLEDGE_EMBEDDER", "nowhere_at_all:make", "nowhere_at_all"),
])
def test_the_advisor_answers_503_when_its_playbook_or_plug_in_is_broken(
        tmp_path: Path, setting: str, value: str, named: str) -> None:
    (tmp_path / "bad.yaml").write_text("id: x\nsteps: []\n", encoding="utf-8")
    server = LiveServer(tmp_path / "server", env={
        setting: str(tmp_path / value) if value.endswith(".yaml") else value}).start()
    try:
        answer = httpx.post(f"{server.url}/api/session", json={})
        assert httpx.get(f"{server.url}/health").status_code == 200  # the rest goes on
    finally:
        server.stop()
    assert (answer.status_code, answer.json()["code"]) == (503, "advisor_unavailable")
    assert named in answer.json()["error"]


def test_a_request_for_a_chart_with_data_draws_it_and_the_diagram_is_served(
        live_server: LiveServer) -> None:
    session = _session(live_server)
    _, blocks = _chat(live_server, session,
                      "原価の内訳をグラフにしてください。材料費: 450、労務費: 300、経費: 150")
    messages = _data(blocks)
    assert [m["type"] for m in messages].count("error") == 0, messages
    assert "generate_diagram" in [m["tool"] for m in messages if m["type"] == "tool_use"]
    diagram = next(m for m in messages if m["type"] == "diagram")["diagram"]
    latest = httpx.get(f"{live_server.url}/api/diagrams/latest",
                       params={"session_id": session}).json()["diagram"]
    assert latest == diagram and diagram["url"] == (
        f"/api/diagrams/{diagram['filename']}?session_id={session}")
    png = httpx.get(f"{live_server.url}{diagram['url']}")
    assert png.headers["content-type"] == "image/png" and png.content[:4] == b"\x89PNG"
    by_name = httpx.get(f"{live_server.url}/api/diagrams/{diagram['filename']}")
    assert by_name.content == png.content  # the file name alone finds it too
    elsewhere = httpx.get(f"{live_server.url}/api/diagrams/{diagram['filename']}",
                          params={"session_id": _session(live_server)})
    assert elsewhere.status_code == 404
    assert httpx.get(f"{live_server.url}/api/diagrams/../../etc/passwd").status_code == 404


def test_offline_an_english_question_is_told_what_the_advisor_reads(
        live_server: LiveServer) -> None:
    _, blocks = _chat(live_server, _session(live_server), "What is price pass-through?")
    done = _data(blocks)[-1]
    assert done["type"] == "done" and done["current_step"] is None
    assert "in Japanese" in done["content"] and "SHOKUNIN_MODEL" in done["content"]


def test_a_tool_call_the_model_garbles_is_answered_and_the_model_goes_on(
        model: tuple[LiveServer, FakeOpenAI]) -> None:
    server, fake = model
    fake.script(Reply(DETECTED),
                Reply(calls=[Call("search_knowledge_base", raw_args="not json at all")]),
                Reply(calls=[Call("calculator", {"expression": "1/0"})]),
                Reply("原価計算の答えです。"))
    _, blocks = _chat(server, _session(server), "原価計算のやり方")
    assert _data(blocks)[-1]["content"].endswith("*\n\n原価計算の答えです。")
    tool_messages = [m for m in fake.requests[-1]["messages"] if m["role"] == "tool"]
    assert "not valid JSON" in tool_messages[0]["content"]
    assert len(tool_messages) == 2  # every call answered, the calculator's refusal too


def test_an_unclear_first_question_is_asked_back_with_the_playbooks_steps(
        live_server: LiveServer) -> None:
    _, blocks = _chat(live_server, _session(live_server), "よろしくお願いします")
    done = _data(blocks)[-1]
    assert done["current_step"] is None
    assert "「価格転嫁の進め方」のどの段階" in done["content"]  # the playbook's own title
    assert "- 取引条件・業務内容の確認" in done["content"] and "STEP_" not in done["content"]
