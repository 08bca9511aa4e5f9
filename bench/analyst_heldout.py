"""The offline Analyst on questions nobody tuned it on: right / honest / wrong per set.

Sets: ``ja-tune`` and ``ja-test`` (bench/heldout/, Japanese business questions written blind
to the planner), ``wtq-tune`` / ``wtq-test`` (200 questions drawn by a fixed seed from
WikiTableQuestions' unseen-tables split, bench/heldout/wtq/) and ``wtq-ja-tune`` /
``wtq-ja-test`` (25 of each half asked in Japanese over the same English tables), and
``dabench-tune`` / ``dabench-test`` (InfiAgent-DABench's dev questions
with their CSVs and labels: even ids are the tuning split, odd ids are never tuned on). For
DABench, clone https://github.com/InfiAgent/InfiAgent and pass
``--dabench InfiAgent/examples/DA-Agent/data`` (its CSVs and the two .jsonl files).

Each question is planned offline against the table's profile (read the way an upload is),
and the planned code runs here on the same DataFrame (the kernel's cell conventions: ``_md``,
``TABLE_MARKDOWN``, ``JSON_OUT``). Outcomes:

- right: the code ran and every expected value is shown (a number to its given decimals);
  for WikiTableQuestions, shown as the answer itself: in the cell's structured result or a
  table of at most two rows more than the answer has (a whole table holding the name is not
  an answer to "which ...");
- honest: a clarification (it must name a real column), a plain "cannot do offline", or a
  failed cell reported as failed;
- wrong: an answer given that does not show the expected values;
- answered: an answer to a question with no single right answer (``expect: null``): read
  these by hand (``--show answered``).

"right of in-scope" counts the questions whose answer is an aggregate, ranking, period
comparison, correlation or standard test (the set's ``kind``; for DABench, questions whose
concepts are only summary statistics, correlation or distribution analysis).

    python bench/analyst_heldout.py [--dabench DIR] [--sets ja-tune,dabench-tune] [--show wrong]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import re
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import pandas as pd
import yaml
from rich.console import Console
from rich.table import Table
from scipy import stats

from shokunin.agents.analyst import kernel_code
from shokunin.agents.analyst.dataset import detect_source, profile_file, read_frame
from shokunin.agents.analyst.errors import DatasetError
from shokunin.agents.analyst.offline import Clarify, NotUnderstood, Task, plan

matplotlib.use("Agg")
HELDOUT = Path(__file__).resolve().parent / "heldout"
_NUMBER = re.compile(r"-?\d+(?:,\d{3})*(?:\.\d+)?(?:e[-+]?\d+)?", re.I)


@dataclass
class Case:
    set: str
    file: Path
    question: str
    kind: str
    expected: list[Any] | None  # None: no single right answer
    strict: bool = False  # right only when the answer itself shows it (WikiTableQuestions)


def _ja_cases(name: str) -> list[Case]:
    entries = yaml.safe_load((HELDOUT / f"{name.replace('-', '_')}.yaml").read_text("utf-8"))
    cases = []
    for e in entries:
        path = HELDOUT / "tables" / e["file"]
        expected = None
        if e.get("expect") is not None:
            df = pd.read_csv(path)
            value = eval(e["expect"], {"df": df, "pd": pd, "np": np, "stats": stats})  # noqa: S307
            expected = _flatten(value)
        cases.append(Case(name, path, e["question"], e.get("kind", "other"), expected))
    return cases


# WikiTableQuestions' kinds a table analysis is asked for: counts, totals, means, rankings
# and conditions (fixed before any tuning; everything else is "other")
_WTQ_SCOPED = re.compile(
    r"how many|number of|total|sum|average|mean|most|least|highest|lowest|largest|"
    r"smallest|fewest|longest|shortest|greatest|biggest|more than|less than|at least|"
    r"over|under|top|difference")


def _wtq_answer(text: str) -> Any:
    """A gold answer as a number when it is one ("100,000", "17 years"), else the text."""
    number = re.fullmatch(r"\s*(-?[\d,]*\.?\d+)\s*([a-z%]+(?: [a-z]+)?)?\s*", text.lower())
    if number and re.fullmatch(r"-?(\d{1,3}(,\d{3})*|\d+)?(\.\d+)?", number.group(1)):
        value = float(number.group(1).replace(",", ""))
        return int(value) if value.is_integer() else value
    return text


def _wtq_cases(name: str) -> list[Case]:
    half = name.removeprefix("wtq-").replace("-", "_")
    english = {e["id"]: e["question"] for part in ("tune", "test", "more") for e in yaml.safe_load(
        (HELDOUT / "wtq" / f"wtq_{part}.yaml").read_text("utf-8"))}
    entries = yaml.safe_load((HELDOUT / "wtq" / f"wtq_{half}.yaml").read_text("utf-8"))
    return [Case(name, HELDOUT / "wtq" / "tables" / e["file"], e["question"],
                 "scored" if _WTQ_SCOPED.search(english[e["id"]].lower()) else "other",
                 [_wtq_answer(a) for a in e["answer"]], strict=True) for e in entries]


def _flatten(value: Any) -> list[Any]:
    if isinstance(value, (pd.Series, pd.Index, np.ndarray, list, tuple)):
        return [v for item in list(value) for v in _flatten(item)]
    if isinstance(value, pd.DataFrame):
        return _flatten(value.to_numpy().ravel().tolist())
    if hasattr(value, "item"):
        value = value.item()
    return [value]


_DABENCH_SCOPE = {"Summary Statistics", "Correlation Analysis", "Distribution Analysis"}
_SCOPED = {"aggregate", "ranking", "period", "correlation", "test", "scored"}


def _dabench_cases(root: Path, split: str) -> list[Case]:
    labels = {json.loads(line)["id"]: json.loads(line)["common_answers"]
              for line in (root / "da-dev-labels.jsonl").read_text().splitlines() if line}
    cases = []
    for line in (root / "da-dev-questions.jsonl").read_text().splitlines():
        q = json.loads(line)
        path = root / q["file_name"]  # the clone keeps them in da-dev-tables/
        path = path if path.exists() else root / "da-dev-tables" / q["file_name"]
        if (q["id"] % 2 == 1) != (split == "test") or not path.exists():
            continue
        expected: list[Any] = []
        for _name, label in labels[q["id"]]:
            text = str(label)
            if "{" in text or ":" in text:  # a dict as text: its values
                text = ",".join(re.findall(r":\s*'?([^,'}]+)", text))
            parts = [p.strip() for p in text.split(",")]
            for part in parts:
                try:
                    expected.append(float(part))
                except ValueError:
                    expected.append(part)
        # in scope: what the offline brain aims to answer (statistics, correlation, tests)
        kind = "scored" if set(q["concepts"]) <= _DABENCH_SCOPE else "other"
        cases.append(Case(f"dabench-{split}", path, q["question"], kind, expected))
    return cases


def _run(code: str, df: pd.DataFrame) -> tuple[bool, str, str]:
    """The cell run here as the kernel runs it: ok, everything it showed, and what it showed
    as the answer itself (its structured result and its tables of at most a few rows)."""
    namespace: dict[str, Any] = {"df": df.copy(), "TABLE_MARKDOWN": [], "JSON_OUT": []}
    exec(kernel_code.CELL_HELPERS, namespace)  # noqa: S102 - the bench's own cell helpers
    import matplotlib.pyplot as plt
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(code, namespace)  # noqa: S102 - the planner's code, as in the sandbox
    except Exception as exc:  # noqa: BLE001 - a failed cell is an outcome
        return False, f"{type(exc).__name__}: {exc}", ""
    finally:
        plt.close("all")
    results = [json.dumps(v, default=str, ensure_ascii=False) for v in namespace["JSON_OUT"]]
    shown = [out.getvalue(), *namespace["TABLE_MARKDOWN"], *results]
    short = [t for t in namespace["TABLE_MARKDOWN"] if t.count("\n") - 1 <= _SHORT_ROWS]
    return True, "\n".join(shown), "\n".join([*results, *short])


_SHORT_ROWS = 3  # a table of at most this many rows shows an answer, not a list to search


def _decimals(value: float) -> int:
    text = repr(value)
    return len(text.split(".")[1]) if "." in text and "e" not in text else 0


# A test's verdict, however a label words it: "Not Normal", "not_normal", "no", False, ...
_NO = re.compile(r"^(no|false|not?[ _-]?normal|not a normal distribution|not significant|"
                 r"non[ _-]?significant)$")
_YES = re.compile(r"^(yes|true|normal|significant)$")


def _found(want: Any, text: str, numbers: list[float]) -> bool:
    label = str(want).strip().lower()
    said = text.lower()
    if _NO.match(label):
        return any(s in said for s in ('"normal": false', '"significant": false',
                                       "no (non-normal)"))
    if _YES.match(label):
        return any(s in said for s in ('"normal": true', '"significant": true', "yes (normal)"))
    if isinstance(want, (int, float)) and not (isinstance(want, float) and math.isnan(want)):
        places = min(_decimals(float(want)), 4)
        return any(abs(got - want) <= 1e-6 * max(1.0, abs(want))
                   or round(got, places) == round(float(want), places)
                   or (places >= 2 and abs(got - want) <= 0.5 * 10 ** -places + 1e-9)
                   for got in numbers)
    spaced = re.sub(r"\s+", " ", text.lower())  # a cell's line break is a space
    wanted = re.escape(re.sub(r"\s+", " ", str(want).lower()))
    return re.search(rf"(?<!\w){wanted}(?!\w)", spaced) is not None


def judge(case: Case) -> tuple[str, str]:
    """The outcome of one question, and what was said."""
    try:
        source, profile = profile_file(case.file, detect_source(case.file))
    except DatasetError as exc:  # the upload is refused, with this message
        return "unreadable", str(exc)
    result = plan(case.question, profile, case.file.name)
    if isinstance(result, Clarify):
        real = any(c.name in result.question for c in profile.columns)
        return ("honest" if real else "bad-clarify"), result.question
    if isinstance(result, NotUnderstood):
        return "honest", f"cannot: {result.cannot} unused: {result.unused}"
    assert isinstance(result, Task)
    ok, shown, headline = _run(result.code, read_frame(case.file, source))
    if case.strict:
        shown = headline
    said = f"{result.instruction}\n{shown[:600]}"
    if not ok:
        return "honest", said
    if case.expected is None:
        return "answered", said
    numbers = [float(n.replace(",", "")) for n in _NUMBER.findall(shown)]
    right = all(_found(want, shown, numbers) for want in case.expected)
    return ("right" if right else "wrong"), said


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dabench", type=Path, help="InfiAgent's examples/DA-Agent/data")
    parser.add_argument("--sets", default="ja-tune,ja-test,wtq-tune,wtq-more,wtq-test,wtq-ja-tune,"
                        "wtq-ja-test,dabench-tune,dabench-test")
    parser.add_argument("--show", default="", help="outcomes to list: wrong,honest,...")
    args = parser.parse_args()
    console = Console(width=120)  # the table's eight columns, unwrapped
    cases: list[Case] = []
    for name in args.sets.split(","):
        if name.startswith("ja-"):
            cases += _ja_cases(name)
        elif name.startswith("wtq-"):
            cases += _wtq_cases(name)
        elif args.dabench is not None:
            cases += _dabench_cases(args.dabench, name.removeprefix("dabench-"))
    outcomes = ("right", "honest", "wrong", "answered", "bad-clarify", "unreadable")
    counts: dict[str, dict[str, int]] = {}
    scoped: dict[str, list[int]] = {}
    for case in cases:
        outcome, said = judge(case)
        counts.setdefault(case.set, dict.fromkeys(outcomes, 0))[outcome] += 1
        if case.kind in _SCOPED:
            scoped.setdefault(case.set, [0, 0])[0] += outcome == "right"
            scoped[case.set][1] += 1
        if outcome in args.show.split(","):
            console.print(f"[bold]{outcome}[/bold] {case.file.name}: {case.question}\n"
                          f"  expected {case.expected}\n  {said[:500]}", markup=False)
    table = Table(title="Offline Analyst, held-out questions")
    for column in ("set", "questions", *outcomes, "right of in-scope"):
        table.add_column(column, justify="right")
    for name, row in counts.items():
        right, total = scoped.get(name, [0, 0])
        table.add_row(name, str(sum(row.values())), *(str(row[o]) for o in outcomes),
                      f"{right}/{total}")
    console.print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
