"""The faces' wire, as their clients see it, is what it was before issue 35's redesign (one
engine, thin faces), but for the changes the issue meant to make.

``wire_transcripts/before.json`` was recorded with ``wire_recorder.py`` on the code before
the redesign (commit aa7e0f5: the package move only). Here the same script is recorded on a
fresh server of the current code and compared step by step, keys in order and with how each
JSON text was written (compact or spaced, escaped or not), after the table ``INTENDED`` has
been applied to ``before.json``. Any other difference fails: fix the code, or, when the wire
is meant to change, add the change to the table and say why.

The Studio's wire has its own transcript (tests/agents/studio/test_wire_transcript.py).
"""

from __future__ import annotations

import concurrent.futures
import copy
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from shokunin.tools.builtin.cost_impact import cost_impact_tool
from tests.e2e.wire_recorder import record
from tests.live_server import LiveServer

BEFORE = Path(__file__).with_name("wire_transcripts") / "before.json"
ABSENT = "<absent>"  # a key the answer did not have
FACES = ["workbench", "advisor", "tools", "threads", "analyst", "health", "mcp"]


@dataclass(frozen=True)
class Change:
    """In ``face``'s step named ``step``, the value at ``path`` was ``before`` and is now
    ``after`` (``ABSENT``: no such key; a key that appears goes last, as it is sent)."""

    why: str
    face: str
    step: str
    path: tuple[str | int, ...]
    before: Any
    after: Any


A = "(a) a malformed thread id is always 400 bad_thread_id"
C = "(c) tools errors gained a code"
D = "(d) an Analyst upload onto another face's thread says thread_belongs_to_other_face"
F = ("(f, issue 36) an Advisor chat error reads in the user's language and says what to do; "
     "the developer's text moved to detail")
_BAD_ID = ("bad thread id '.hidden': 1 to 128 characters: letters, digits, '-', '_' or '.', "
           "not starting with '.'")
_NO_SESSION_ID = ('send {"message": "...", "session_id": "..."} (create a session with '
                  "POST /api/session)")
G = "(g, issue 36) a builtin tool more: cost_impact, the later Advisor client's 価格転嫁検討ツール"
_COST = cost_impact_tool.get_function_declaration()


def _inserted(face: str, step: str, path: tuple[str | int, ...], index: int,
              item: Any) -> Change:
    """``item`` inserted at ``index`` of the list at ``path`` of before.json's step."""
    [found] = [s for s in json.loads(BEFORE.read_text(encoding="utf-8"))[face]
               if s["step"] == step]
    for key in path:
        found = found[key]
    return Change(G, face, step, path, found, [*found[:index], item, *found[index:]])


# Not reached by the script: (b) an unexpected failure is ``internal`` (was ``server_error``
# on the WS); (e) an Advisor delete/clear with a live run says ``run_live`` (was ``conflict``):
# neither can be caused on purpose, on the offline brain, without racing a run.

INTENDED: list[Change] = [
    Change(A, "workbench", "WS connect /ws?thread=.hidden", ("messages", 0, "code"),
           "bad_thread", "bad_thread_id"),
    Change(A, "advisor",
           'SSE POST /api/chat {"message": "こんにちは", "session_id": ".hidden"}',
           ("events", 0, "data", "code"), "bad_session_id", "bad_thread_id"),
    Change(A, "advisor", "GET /api/session/.hidden/messages", ("body", "code"),
           "bad_session_id", "bad_thread_id"),
    Change(A, "tools",
           'POST /api/tools/calculator/execute {"args": {"expression": "1+1"}, '
           '"thread_id": ".hidden"}', ("status",), 422, 400),
    Change(A, "tools",
           'SSE POST /api/tools/calculator/execute/stream {"args": {"expression": "1+1"}, '
           '"thread_id": ".hidden"}', ("status",), 422, 400),
    Change(A, "mcp",
           'MCP call_tool ask_advisor {"question": "こんにちは", "session_id": ".hidden"}',
           ("result", "structured_content", "code"), ABSENT, "bad_thread_id"),
    Change(C, "tools", "GET /api/tools/no_such_tool", ("body", "code"), ABSENT, "not_found"),
    Change(C + " (over MCP too: a tool error's structured content says its code)", "mcp",
           'MCP call_tool calculator {"expr": 1}', ("result", "structured_content", "code"),
           ABSENT, "invalid_args"),
    Change(D, "analyst", "POST /api/analyst/datasets thread_id=<id 4> file=@sales_en.csv",
           ("body", "code"), "conflict", "thread_belongs_to_other_face"),
    *[Change(F, "advisor", f'SSE POST /api/chat {{"message": "こんにちは"{session}}}',
             ("events", 0, "data", key), before, after)
      for session, key, before, after in (
          (', "session_id": ".hidden"', "error", _BAD_ID,
           "セッションの番号が正しくありません。ページを再読み込みして新しい相談を始めてください。"),
          (', "session_id": ".hidden"', "detail", ABSENT, _BAD_ID),
          (', "session_id": "no-such-session"', "error",
           "no session 'no-such-session'; create a session with POST /api/session",
           "セッションが見つかりません。ページを再読み込みして新しい相談を始めてください。"),
          (', "session_id": "no-such-session"', "detail", ABSENT,
           "no session 'no-such-session'"),
          ("", "error", _NO_SESSION_ID,
           "セッションが見つかりません。ページを再読み込みして新しい相談を始めてください。"),
          ("", "detail", ABSENT, _NO_SESSION_ID))],
    _inserted("tools", "GET /api/tools", ("body", "tools"), 1, {
        "name": "cost_impact", "function_name": "cost_impact",
        "title": cost_impact_tool.TOOL_NAME, "description": cost_impact_tool.TOOL_DESCRIPTION,
        "icon": cost_impact_tool.TOOL_ICON, "declaration": _COST, "status": "ok",
        "error": None, "source": "builtin", "server": None, "has_venv": False,
        "has_settings": False, "has_ui": False}),
    _inserted("mcp", "MCP list_tools", ("result",), 4, {
        "name": "cost_impact", "title": cost_impact_tool.TOOL_NAME,
        "description": _COST["description"], "input_schema": _COST["parameters"]}),
]


def _step(transcript: dict[str, Any], face: str, name: str) -> dict[str, Any]:
    matches = [step for step in transcript[face] if step["step"] == name]
    assert len(matches) == 1, f"{face}: {len(matches)} steps named {name!r}"
    return matches[0]


def apply(transcript: dict[str, Any], changes: list[Change]) -> dict[str, Any]:
    """``transcript`` with ``changes`` made; each must find its ``before`` value."""
    out = copy.deepcopy(transcript)
    for change in changes:
        *parents, last = change.path
        holder: Any = _step(out, change.face, change.step)
        for key in parents:
            holder = holder[key]
        found = holder.get(last, ABSENT) if isinstance(holder, dict) else holder[last]
        assert found == change.before, f"stale entry {change}: before.json says {found!r}"
        if change.after is ABSENT:
            del holder[last]
        else:
            holder[last] = change.after
    return out


def _text(step: dict[str, Any]) -> str:
    """The step as text: keys in the order they were sent, so a reordering shows."""
    return json.dumps(step, ensure_ascii=False, indent=1)


@pytest.fixture(scope="module")
def current(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The script recorded on a fresh server of the current code."""
    server = LiveServer(tmp_path_factory.mktemp("wire-server")).start()
    try:
        # In a thread of its own: a browser test before may leave its event loop running in
        # this one (Playwright's sync API), and the recorder runs one of its own.
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            transcript = pool.submit(record, server.url, server.data_dir).result()
        yield transcript
    finally:
        server.stop()


@pytest.fixture(scope="module")
def expected() -> dict[str, Any]:
    return apply(json.loads(BEFORE.read_text(encoding="utf-8")), INTENDED)


def test_every_intended_change_meets_what_the_code_before_answered() -> None:
    before = json.loads(BEFORE.read_text(encoding="utf-8"))
    changed = apply(before, INTENDED)
    for change in INTENDED:
        assert _step(changed, change.face, change.step) != _step(before, change.face,
                                                                 change.step)


@pytest.mark.parametrize("face", FACES)
def test_a_face_answers_as_before_but_for_the_intended_changes(
        current: dict[str, Any], expected: dict[str, Any], face: str) -> None:
    assert [s["step"] for s in current[face]] == [s["step"] for s in expected[face]]
    differ = [(now, then) for now, then in zip(current[face], expected[face], strict=True)
              if _text(now) != _text(then)]
    if differ:  # every step that differs is named; the first one's difference is shown
        now, then = differ[0]
        assert _text(now) == _text(then), f"{face}: {[then['step'] for _, then in differ]}"


def test_every_face_of_the_transcript_before_is_compared() -> None:
    before = json.loads(BEFORE.read_text(encoding="utf-8"))
    assert list(before) == FACES and all(before[face] for face in FACES)
