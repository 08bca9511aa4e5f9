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
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.wire_recorder import record
from tests.live_server import LiveServer

pytestmark = pytest.mark.subprocess

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


# Issue 49: what a person reads of an Analyst answer. The offline cell draws its chart and
# keeps its result with the helpers _chart and _answer; _md writes a table's numbers formatted
# (separators, numbers to the right); the report leads with a sentence and its table's
# headers are words; the report file keeps how it was computed behind a closed disclosure.
_ANSWER_49 = "issue 49: the answer first, in words, numbers formatted, the work behind a disclosure"
_RUN_49 = "SSE GET /api/runs/<id 16>/events"
_CODE_BEFORE_49 = (
    'data = df\ntable = data.groupby("region")[["revenue"]].agg(["sum"])\n'
    "table.columns = [f'{a}_{m}' if len(table.columns) > 1 else m for m, a in table.columns]\n"
    "TABLE_MARKDOWN.append(_md(table.round(4)))\nprint(table.round(4).to_string())\n")
_CODE_49 = _CODE_BEFORE_49 + (
    "_chart(table, {'kind': 'bar', 'ja': False, 'title': 'revenue (total) by region', "
    "'x': 'region', 'y': 'revenue (total)', 'labels': {'revenue': 'revenue (total)'}})\n"
    "_answer({'kind': 'grouped', 'ja': False, 'measures': ['revenue'], 'aggs': ['sum'], "
    "'group': 'region'}, table)\n")
_CODE_BEFORE_49 += (
    "if 1 < len(table) <= 30:\n    import matplotlib.pyplot as plt\n"
    "    fig, ax = plt.subplots(figsize=(7, 3.5))\n"
    "    (table.iloc[:, 0] if hasattr(table, 'columns') else table).plot.bar(ax=ax)\n"
    "    plt.show()\n")
_TABLE_BEFORE_49 = ("| region | revenue |\n|---|---|\n| North | 107052.0 |\n| South | 119027.0 |\n"
                    "| West | 60054.0 |")
_TABLE_49 = ("| region | revenue |\n|---|---:|\n| North | 107,052 |\n| South | 119,027 |\n"
             "| West | 60,054 |")
_REPORT_BEFORE_49 = f"The total of revenue by region.\n\n{_TABLE_BEFORE_49}"
_REPORT_49 = ("By region, South has the highest total of revenue: 119,027.\n\n"
              "| region | revenue (total) |\n|---|---:|\n| North | 107,052 |\n| South | 119,027 |\n"
              "| West | 60,054 |")
_FIGURE_49 = "![figure 1](data:image/png;base64,<image>)"
_REPORT_MD_49 = (
    f"# total revenue by region\n\n{_REPORT_49}\n\n{_FIGURE_49}\n\n<details>\n"
    "<summary>How this was computed</summary>\n\n"
    "- **Decision**: compute it with code (The total of revenue by region.)\n\n"
    f"**Calculation: code, run 1**\n\n```python\n{_CODE_49.rstrip()}\n```\n\n"
    "**Output**\n\n```\n         revenue\nregion          \nNorth   107052.0\n"
    "South   119027.0\nWest     60054.0\n```\n\n- **Decision**: answer from the results\n\n"
    "</details>\n")
INTENDED += [
    Change(_ANSWER_49, "analyst", _RUN_49, ("events", 2, "data", "code"), _CODE_BEFORE_49,
           _CODE_49),
    Change(_ANSWER_49, "analyst", _RUN_49, ("events", 5, "data", "markdown"), _TABLE_BEFORE_49,
           _TABLE_49),
    Change(_ANSWER_49, "analyst", _RUN_49, ("events", 7, "data", "text"), _REPORT_BEFORE_49,
           _REPORT_49),
    Change(_ANSWER_49, "analyst", _RUN_49, ("events", 8, "data", "output", "report", "summary"),
           _REPORT_BEFORE_49, _REPORT_49),
    Change(_ANSWER_49, "analyst", _RUN_49,
           ("events", 8, "data", "output", "report", "table_markdown", 0), _TABLE_BEFORE_49,
           _TABLE_49),
    Change(_ANSWER_49, "analyst", "GET /api/analyst/runs/<id 16>/report.md", ("body",),
           f"# total revenue by region\n\n{_REPORT_BEFORE_49}\n\n{_FIGURE_49}\n", _REPORT_MD_49),
]


# Issue 49.5: the Advisor searches its knowledge once per question, for 5 passages (was 3:
# a second search for the playbook's subject is gone), and quotes only those that address the
# question. The first three found are as before; two follow.
_SEARCH_49 = "issue 49.5: one knowledge search of 5 passages a question, filtered when quoted"
_CHAT_49 = 'SSE POST /api/chat {"message": "価格転嫁の進め方を教えて", "session_id": "<id 4>"}'
_FOUND_49 = json.loads((BEFORE.parent / "search_49.json").read_text(encoding="utf-8"))
_SOURCES_49 = [{k: v for k, v in found.items() if k != "text"} for found in _FOUND_49]


def _before(face: str, step: str, path: tuple[str | int, ...]) -> Any:
    value: Any = _step(json.loads(BEFORE.read_text(encoding="utf-8")), face, step)
    for key in path:
        value = value[key]
    return value


def _grown(face: str, step: str, path: tuple[str | int, ...], more: list[Any]) -> Change:
    before = _before(face, step, path)
    return Change(_SEARCH_49, face, step, path, before, [*before, *more])


def _step(transcript: dict[str, Any], face: str, name: str) -> dict[str, Any]:
    matches = [step for step in transcript[face] if step["step"] == name]
    assert len(matches) == 1, f"{face}: {len(matches)} steps named {name!r}"
    return matches[0]


_THREAD_MESSAGES = "GET /api/threads/<id 4>/messages"
_THREAD_EVENTS = "SSE GET /api/threads/<id 4>/events?after=<id 5>%3A0"
INTENDED += [
    Change(_SEARCH_49, "advisor", _CHAT_49, ("events", 3, "data", "args", "max_results"), 3, 5),
    _grown("advisor", _CHAT_49, ("events", 5, "data", "sources"), _SOURCES_49),
    Change(_SEARCH_49, "advisor", "GET /api/session/<id 4>/messages",
           ("body", "messages", 1, "tools", 0, "args", "max_results"), 3, 5),
    _grown("advisor", "GET /api/session/<id 4>/messages", ("body", "messages", 1, "sources"),
           _SOURCES_49),
    Change(_SEARCH_49, "threads", _THREAD_MESSAGES,
           ("body", "messages", 1, "data", "args", "max_results"), 3, 5),
    _grown("threads", _THREAD_MESSAGES, ("body", "messages", 2, "data", "result", "results"),
           _FOUND_49),
    Change(_SEARCH_49, "threads", _THREAD_EVENTS, ("events", 1, "data", "args", "max_results"),
           3, 5),
    _grown("threads", _THREAD_EVENTS, ("events", 2, "data", "result", "results"), _FOUND_49),
]
# Issue 49.5: the Advisor's text names a step by its title, never its id, and a quote by its
# source without the search's score (both stay in the events' data fields).
_STEP_IDS_49 = "issue 49.5: steps named by title, quotes without scores: no ids in the text"
_RESUMED = "SSE GET /api/chat/runs/<id 5>/events Last-Event-ID: 3"


def _without_step_ids(face: str, step: str, path: tuple[str | int, ...]) -> Change:
    before = _before(face, step, path)
    return Change(_STEP_IDS_49, face, step, path, before,
                  re.sub(r"STEP_[0-9A-Z_]+: |、スコア [\d.]+", "", before))


INTENDED += [_without_step_ids(face, step, path) for face, step, path in (
    ("advisor", _CHAT_49, ("events", 7, "data", "data")),
    ("advisor", _CHAT_49, ("events", 9, "data", "content")),
    ("advisor", _RESUMED, ("events", 1, "data", "data")),
    ("advisor", _RESUMED, ("events", 3, "data", "content")),
    ("advisor", "GET /api/session/<id 4>/messages", ("body", "messages", 1, "content")),
    ("threads", _THREAD_MESSAGES, ("body", "messages", 3, "data", "text")),
    ("threads", _THREAD_MESSAGES, ("body", "messages", 4, "data", "output", "content")),
    ("threads", _THREAD_EVENTS, ("events", 3, "data", "text")),
    ("threads", _THREAD_EVENTS, ("events", 4, "data", "output", "content")),
)]
# Issue 49.2/3: a profile says which row held the header and, per column, the unit of numbers
# written as text and whether a column was read as numbers ("number") or kept as text.
_PROFILE_49 = "issue 49.2: the profile says the header row, and each column's unit and reading"
_UPLOAD = "POST /api/analyst/datasets file=@sales_en.csv"
INTENDED += [
    *(Change(_PROFILE_49, "analyst", _UPLOAD, ("body", "profile", "columns", i, key), ABSENT,
             None) for i in range(7) for key in ("unit", "read_as")),
    Change(_PROFILE_49, "analyst", _UPLOAD, ("body", "profile", "header_row"), ABSENT, 1),
]
# Issue 50.2: /health serves while parts start in the background and says which (none in a
# server without a warm pool, as here).
INTENDED += [Change("issue 50.2: /health says what still starts in the background", "health",
                    "GET /health", ("body", "starting"), ABSENT, [])]


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
