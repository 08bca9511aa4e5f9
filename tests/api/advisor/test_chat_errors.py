"""Every error a user reads in the Advisor's chat (issue 36): in Japanese (the playbook's
language), without API words, saying what to do; the machine ``code`` stays what it was.
Each is caused as the origin's clients would meet it, on a live server."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.api.advisor.origin_client import CHAT_HEADERS, chat, data_lines, open_session
from tests.fake_openai import FakeOpenAI, Hang, Status, model_server
from tests.live_server import LiveServer

pytestmark = pytest.mark.subprocess

KANA = re.compile(r"[\u3040-\u30ff]")
JARGON = re.compile(r"POST|GET|/api|session_id|JSON|\{|'|thread|run_|[A-Za-z]{4,}")


def _readable(message: dict[str, Any], code: str) -> str:
    """The error's text, checked: Japanese, no API words, says what to do."""
    assert message["type"] == "error" and message["code"] == code, message
    text = message["error"]
    assert KANA.search(text) and not JARGON.search(text), text
    assert "ください" in text, text  # what to do
    return text


def _raw_chat(url: str, body: bytes) -> list[dict[str, Any]]:
    with httpx.stream("POST", f"{url}/api/chat", content=body, headers=CHAT_HEADERS,
                      timeout=30) as stream:
        return list(data_lines(stream.iter_lines()))


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, FakeOpenAI]]:
    with model_server(tmp_path_factory.mktemp("advisor-errors")) as both:
        yield both


def test_an_unknown_session_says_to_reload_and_start_a_new_one(
        live_server: LiveServer) -> None:
    [error] = chat(live_server.url, "f" * 32, "原価計算のやり方")
    assert _readable(error, "not_found") == (
        "セッションが見つかりません。ページを再読み込みして新しい相談を始めてください。")
    assert "f" * 32 in error["detail"]  # the developer's text stays beside it


def test_a_malformed_session_id_says_the_same_in_its_own_words(
        live_server: LiveServer) -> None:
    [error] = chat(live_server.url, ".hidden", "原価計算のやり方")
    assert "ページを再読み込み" in _readable(error, "bad_thread_id")


def test_a_session_of_another_face_is_no_session_here(live_server: LiveServer) -> None:
    thread = httpx.post(f"{live_server.url}/api/analyst/datasets", files={
        "file": ("t.csv", b"a,b\n1,2\n", "text/csv")}, timeout=120)
    assert thread.status_code in (200, 201), thread.text
    [error] = chat(live_server.url, thread.json()["thread_id"], "原価計算のやり方")
    assert "見つかりません" in _readable(error, error["code"])
    assert error["code"] in ("not_found", "thread_belongs_to_other_face")


@pytest.mark.parametrize(("body", "says"), [
    (b"not json", "ご質問を入力して"),
    (json.dumps({"session_id": "f" * 32}).encode(), "ご質問を入力して"),
    (json.dumps({"message": "   ", "session_id": "f" * 32}).encode(), "ご質問を入力して"),
    (json.dumps({"message": "原価計算"}).encode(), "新しい相談を始めて"),
    (b"[1, 2]", "ご質問を入力して"),
])
def test_a_body_the_chat_cannot_use_is_a_bad_request_in_words(
        live_server: LiveServer, body: bytes, says: str) -> None:
    [error] = _raw_chat(live_server.url, body)
    assert says in _readable(error, "bad_request")


def test_a_message_that_is_too_long_says_the_limit_and_what_to_do(
        live_server: LiveServer) -> None:
    [error] = chat(live_server.url, open_session(live_server.url), "原価" * 4001)
    assert _readable(error, "bad_request") == (
        "メッセージが長すぎます（8000文字まで）。短く分けて送信してください。")


def test_a_model_that_fails_is_told_as_a_retry_later(
        model: tuple[LiveServer, FakeOpenAI]) -> None:
    server, fake = model
    fake.script(Status(400, "Invalid 'messages[0].content': string too long."))
    messages = chat(server.url, open_session(server.url), "原価計算のやり方")
    error = messages[-1]
    assert "もう一度送信してください" in _readable(error, "run_failed")
    assert "string too long" in error["detail"] and "(error " in error["detail"]


def test_a_cancelled_answer_says_so_and_how_to_go_on(
        model: tuple[LiveServer, FakeOpenAI]) -> None:
    server, fake = model
    fake.script(Hang())
    messages: list[dict[str, Any]] = []
    with httpx.stream("POST", f"{server.url}/api/chat", headers=CHAT_HEADERS, timeout=30,
                      json={"message": "原価計算", "session_id": open_session(server.url)}
                      ) as stream:
        for message in data_lines(stream.iter_lines()):
            messages.append(message)
            if message["type"] == "run":
                cancel = httpx.post(f"{server.url}/api/runs/{message['run_id']}/cancel")
                assert cancel.status_code == 202
    assert _readable(messages[-1], "cancelled") == (
        "回答を中断しました。続けるには、もう一度送信してください。")


def test_an_advisor_that_cannot_start_says_to_call_the_administrator(
        tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text("id: x\nsteps: []\n", encoding="utf-8")
    server = LiveServer(tmp_path / "server", env={
        "SHOKUNIN_ADVISOR_PLAYBOOK": str(tmp_path / "bad.yaml")}).start()
    try:
        [error] = chat(server.url, "f" * 32, "原価計算のやり方")
    finally:
        server.stop()
    assert "管理者に連絡してください" in _readable(error, "advisor_unavailable")
    assert "bad.yaml" in error["detail"]
