"""Every answer the offline Analyst gives to the questions of its bench and held-out sets is
written for a person (issue 49): no internal identifier (``run_code``, ``TABLE_MARKDOWN``,
``index``, ``nan``, ``sum`` in a Japanese answer ...), the answer first as a sentence in the
question's language, and numbers formatted.

One shared run answers every question of every set once (``answers``), planned and run here
as the sandbox would run it (``offline_cells``); each test reads it. A set is a function that
lists its questions: add one to ``SETS``.
"""

from __future__ import annotations

import functools
import importlib.util
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from shokunin.agents.analyst import offline as planner
from shokunin.agents.analyst.errors import DatasetError
from tests.agents.analyst import offline_cells

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[3]
HELDOUT = ROOT / "bench" / "heldout"


@dataclass(frozen=True)
class Question:
    table: Path
    question: str


def _bench() -> list[Question]:
    """bench/analyst_questions.py: the closed-form questions on the shipped samples."""
    spec = importlib.util.spec_from_file_location("analyst_questions",
                                                  ROOT / "bench" / "analyst_questions.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return [Question(bench.SAMPLES / name, question) for name, question, _ in bench.QUESTIONS]


def _heldout(name: str) -> list[Question]:
    """bench/heldout/<name>.yaml: Japanese business questions written blind to the planner."""
    entries = yaml.safe_load((HELDOUT / f"{name}.yaml").read_text("utf-8"))
    return [Question(HELDOUT / "tables" / e["file"], e["question"]) for e in entries]


def _wtq(name: str) -> list[Question]:
    """bench/heldout/wtq/<name>.yaml: WikiTableQuestions' questions on its tables."""
    entries = yaml.safe_load((HELDOUT / "wtq" / f"{name}.yaml").read_text("utf-8"))
    return [Question(HELDOUT / "wtq" / "tables" / e["file"], e["question"]) for e in entries]


# The sets whose every answer is read here; a new set is a function listing its questions.
SETS: dict[str, Callable[[], list[Question]]] = {
    "bench": _bench,
    "ja-tune": functools.partial(_heldout, "ja_tune"),
    "ja-test": functools.partial(_heldout, "ja_test"),
    "wtq-tune": functools.partial(_wtq, "wtq_tune"),
    "wtq-test": functools.partial(_wtq, "wtq_test"),
    "wtq-ja-tune": functools.partial(_wtq, "wtq_ja_tune"),
    "wtq-ja-test": functools.partial(_wtq, "wtq_ja_test"),
}


@dataclass(frozen=True)
class Said:
    question: Question
    plan: object  # a Task, Clarify or NotUnderstood
    text: str  # every word a person reads of the answer
    columns: tuple[str, ...]
    ran: bool  # a cell ran to its end

    @property
    def ja(self) -> bool:
        return planner.is_ja(self.question.question)


@functools.cache
def answers() -> dict[str, list[Said]]:
    """Every set's questions, each answered once (shared by this module's tests)."""
    tables: dict[Path, tuple[object, object] | None] = {}
    said: dict[str, list[Said]] = {}
    for name, questions in SETS.items():
        for q in questions():
            if q.table not in tables:
                try:
                    tables[q.table] = offline_cells.table(q.table)
                except DatasetError:  # the upload refuses it, saying why: no answer to read
                    tables[q.table] = None
            if tables[q.table] is None:
                continue
            frame, profile = tables[q.table]
            plan, text, ran = offline_cells.answer(q.question, q.table, frame, profile)
            said.setdefault(name, []).append(Said(
                q, plan, text, tuple(c.name for c in profile.columns), ran))  # type: ignore[attr-defined]
    return said


# Internal names a person must never read, whatever the language; ``None`` as written.
INTERNAL = re.compile(
    r"run_code|TABLE_MARKDOWN|JSON_OUT|analyst_answer|\b_md\b|\b_answer\b|\b_chart\b|\bdf\b|"
    r"\bindex\b|\bnan\b|dtype|Traceback|\bobject\b|float64|int64|change_%|share_%|yoy_%|"
    r"p_value|moving_avg|missing_%|normal_at_5%|\bstr\b", re.IGNORECASE)
NONE = re.compile(r"\bNone\b")
# pandas' words for an aggregation, bare, in a Japanese answer
ENGLISH_AGGREGATIONS = re.compile(r"\b(sum|mean|count|median|min|max|std|rows|value)\b",
                                  re.IGNORECASE)
UNFORMATTED = re.compile(r"(?<![\d,.\w])\d{5,}(?![\d\w])|(?<![\d,.])[1-9][\d,]*\.\d{3,}")


def _without_names(said: Said) -> str:
    """The answer with the table's column names taken out (a column may be named "count")."""
    text = said.text
    for name in sorted(said.columns, key=len, reverse=True):
        text = text.replace(name, " ")
    return text


def _listing(found: list[tuple[Said, str]]) -> str:
    return "\n\n".join(f"{s.question.table.name}: {s.question.question}\n  → {why}\n{s.text}"
                       for s, why in found)


@pytest.mark.parametrize("name", sorted(SETS))
def test_no_answer_names_an_internal_identifier(name: str) -> None:
    found = []
    for said in answers()[name]:
        text = _without_names(said)
        hit = INTERNAL.search(text) or NONE.search(text) or (
            said.ja and ENGLISH_AGGREGATIONS.search(text))
        if hit:
            found.append((said, hit.group(0)))
    assert not found, _listing(found)


@pytest.mark.parametrize("name", sorted(SETS))
def test_each_computed_answer_leads_with_a_sentence_in_the_questions_language(
        name: str) -> None:
    found = []
    for said in answers()[name]:
        if not isinstance(said.plan, planner.Task):
            continue
        first = _without_names(said).split("\n\n", 1)[0]  # 年齢 in an English answer
        if first.lstrip().startswith(("|", "```")) or not first.rstrip().endswith(("。", ".")):
            found.append((said, "does not start with a sentence"))
        elif said.ja != planner.is_ja(first):
            found.append((said, "not in the question's language"))
        elif said.ran and not re.search(r"\d", first) and "分布です" not in first:
            found.append((said, "the sentence states no number"))
    assert not found, _listing(found)


@pytest.mark.parametrize("name", sorted(SETS))
def test_numbers_have_separators_and_a_few_decimals(name: str) -> None:
    found = [(said, hit.group(0)) for said in answers()[name] if isinstance(
        said.plan, planner.Task) and (hit := UNFORMATTED.search(_without_names(said)))]
    assert not found, _listing(found)


def test_every_set_was_answered() -> None:
    counts = {name: len(said) for name, said in answers().items()}
    assert counts.keys() == SETS.keys() and min(counts.values()) >= 20, counts
    tasks = sum(isinstance(s.plan, planner.Task) for said in answers().values() for s in said)
    assert tasks >= 80  # most are computed, so the sentences above were read
