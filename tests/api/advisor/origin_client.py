"""The origin's React clients of the Advisor (seed 001), as data and as rules: the requests
they send, recorded from the built clients (riku-to-koba/SME-Agency-Price-Transfer-Support-AI,
``frontend/`` at f60607c, the seed's, and at a628280, the later one), and how each turns
the chat stream into what a user sees. The clients' code stays out of this repository:
these are our own words for what their code does, checked against them in a browser.

Both send the same requests:

- ``POST /api/session`` with ``{"user_info": {...}}`` (only the fields the user filled in;
  axios, ``Content-Type: application/json``);
- ``POST /api/chat`` with ``fetch``, ``Content-Type: application/json`` and
  ``{"message", "session_id"}``, then read ``data: `` lines as they come;
- ``POST /api/session/<id>/clear`` (the 履歴クリア button);
- ``GET /api/diagrams/latest`` every 2 s: the seed client with no query, the later one with
  ``?session_id=<id>`` (from its first render after the session exists).

What each shows from the stream (its ``currentResponseRef`` and last assistant message):

- ``content``: the text becomes ``data`` (the whole answer so far, replacing);
- ``tool_use``: the seed client appends 「\\n\\n*[<tool> を使用中]*\\n\\n」; the later one
  only logs it;
- ``step_update``: the step indicator shows ``step`` (「📌 現在のステップ: …」) and a note is
  appended to the text (the seed client: 「**📌 ステップ判定: <step>** (信頼度: …)」, the
  later one 「**📌 現在のステップ: <step's name>**」);
- ``status`` (the later client only): ``none`` clears the status line, any other shows
  ``message``;
- ``done``: the text becomes ``content`` (or stays, when it is empty);
- ``error``: the text becomes 「❌ エラー: <error>」.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx

CHAT_HEADERS = {"Content-Type": "application/json"}
USER_INFO = {"industry": "製造業", "products": "金属加工部品", "companySize": "21-50人",
             "region": "大阪府"}


def open_session(url: str, user_info: dict[str, str] | None = None) -> str:
    answer = httpx.post(f"{url}/api/session", json={"user_info": user_info or USER_INFO})
    assert answer.status_code == 200, answer.text
    return answer.json()["session_id"]


def chat_body(message: str, session_id: str) -> bytes:
    """``JSON.stringify({message, session_id})``: compact, as the browser sends it."""
    return json.dumps({"message": message, "session_id": session_id},
                      ensure_ascii=False, separators=(",", ":")).encode()


def data_lines(lines: Iterator[str]) -> Iterator[dict[str, Any]]:
    """The messages as the clients read them: every ``data: `` line, parsed."""
    for line in lines:
        if line.startswith("data: "):
            yield json.loads(line[6:])


def chat(url: str, session_id: str, message: str, timeout: float = 60) -> list[dict[str, Any]]:
    """Every message of one ``POST /api/chat``, sent as the clients send it."""
    with httpx.stream("POST", f"{url}/api/chat", content=chat_body(message, session_id),
                      headers=CHAT_HEADERS, timeout=timeout) as stream:
        assert stream.status_code == 200
        return list(data_lines(stream.iter_lines()))


@dataclass
class Screen:
    """What one of the clients shows for one answer."""

    later: bool = False  # the a628280 client, else the seed's (f60607c)
    text: str = ""
    step: str | None = None
    status: str = ""
    statuses: list[str] = field(default_factory=list)  # every status line it showed
    shown: list[str] = field(default_factory=list)  # the text after each message

    def take(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "content":
            self.text = message.get("data") or ""
        elif kind == "tool_use" and not self.later:
            self.text += f"\n\n*[{message['tool']} を使用中]*\n\n"
        elif kind == "step_update":
            self.step = message.get("step") or None
            self.text += (f"\n\n**📌 現在のステップ: {message.get('step')}**\n\n" if self.later
                          else f"\n\n**📌 ステップ判定: {message.get('step')}** "
                               f"(信頼度: {message.get('confidence')})\n"
                               f"{message.get('reasoning')}\n\n")
        elif kind == "status" and self.later:
            self.status = "" if message.get("status") == "none" else message.get("message", "")
            if self.status:
                self.statuses.append(self.status)
        elif kind == "done":
            self.status = ""
            self.text = message.get("content") or self.text
        elif kind == "error":
            self.text = f"❌ エラー: {message.get('error')}"
        self.shown.append(self.text)


def screen(messages: list[dict[str, Any]], *, later: bool = False) -> Screen:
    seen = Screen(later=later)
    for message in messages:
        seen.take(message)
    return seen
