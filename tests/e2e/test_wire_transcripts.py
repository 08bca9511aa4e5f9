"""The faces' wire, as their clients see it, is what it was when ``before.json`` was
recorded, but for the changes meant since, listed in ``INTENDED``.

``wire_transcripts/before.json`` was first recorded with ``wire_recorder.py`` on the code
before issue 35's redesign (commit aa7e0f5), and compared here through a table of that
issue's intended changes: (a) a malformed thread id is always 400 ``bad_thread_id``, (b) an
unexpected failure is ``internal``, (c) tools errors carry a code, (d) an Analyst upload onto
another face's thread says ``thread_belongs_to_other_face``, (e) a delete or clear with a
live run says ``run_live``. Issue 36 changed the Advisor's wire throughout, on purpose, to
what the origin's own clients read (``status`` messages, the tool markers kept in
``content``, no ``step_update`` while no step is known, errors in the user's language with
the developer's text in ``detail``, the offline brain's new answers) and added a builtin tool
(``cost_impact``); those are not expressible as a few values, so ``before.json`` was recorded
again on that issue's code, with (a) to (e) in it. Issue 37 changed the Analyst's on purpose
(a profile lists every value of a text column with few of them, ``values``; the offline
brain's cells, tables, restatement and bar chart are new): its face was recorded again on
that issue's code, each difference read first; images are compared as ``<image>``. Here
the same script is recorded on a fresh server of the current code and compared step by
step, keys in order and with how each JSON text was written (compact or spaced, escaped or
not), after ``INTENDED`` has been applied to ``before.json``. Any other difference fails:
fix the code, or, when the wire is meant to change, add the change to the table and say why.

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


_NEEDS_SETTINGS = ("issue 48.2: a tool says which settings it needs before it can run "
                   "(web search: a Tavily key or a SearXNG URL), not 'available'")
_WEB_SEARCH_NEEDS = [[{"key": "tavily_api_key", "label": "Tavily の APIキー / Tavily API key"},
                      {"key": "searxng_url", "label": "SearXNG の URL / SearXNG URL"}]]
MACHINE_WALLS = "<this machine's walls>"  # /health's sandbox report (tests/api/test_health.py)

INTENDED: list[Change] = [
    *(Change(_NEEDS_SETTINGS, "tools", "GET /api/tools", ("body", "tools", i, "needs_settings"),
             ABSENT, _WEB_SEARCH_NEEDS if i == 4 else []) for i in range(5)),
    Change(_NEEDS_SETTINGS, "tools", "GET /api/tools/calculator", ("body", "needs_settings"),
           ABSENT, []),
    Change("issue 47.5: /health says which of the sandbox's walls hold and whether Python "
           "runs", "health", "GET /health", ("body", "sandbox"), ABSENT, MACHINE_WALLS),
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
        for step in transcript["health"]:  # what holds depends on the machine and its user
            sandbox = step["body"]["sandbox"]
            assert sandbox["python"] in ("on", "refused") and "walls" in sandbox, sandbox
            step["body"]["sandbox"] = MACHINE_WALLS
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
