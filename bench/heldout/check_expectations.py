"""Check that the held-out question set is consistent: every entry well formed, every `expect`
evaluating on its table to something a scorer can look for, and the committed tables equal to
what `make_tables.py` writes. Exits 1 listing every problem found.

`expect` is evaluated with `df` (the table read by `pandas.read_csv`), `pd`, `np` and `stats`
(`scipy.stats`) in scope: run it with a Python that has pandas, scipy and pyyaml (the
project's venv).

    python bench/heldout/check_expectations.py [-v] [ja_tune.yaml ja_test.yaml]
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from collections import Counter
from numbers import Number
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_tables import TABLES, write_tables  # noqa: E402

HERE = Path(__file__).resolve().parent
KINDS = ("aggregate", "ranking", "period", "correlation", "test", "other")
REQUIRED = {"file", "question", "kind", "expect"}
ALLOWED = REQUIRED | {"note"}


def load_questions(path: Path) -> list[dict[str, Any]]:
    """The entries of one question file, as written."""
    entries = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(entries, list):
        raise ValueError(f"{path.name}: expected a list of entries")
    return entries


def expected_value(entry: dict[str, Any], tables: Path = TABLES) -> Any:
    """Evaluate an entry's `expect` on its table (None when it has no single answer)."""
    if entry["expect"] is None:
        return None
    from scipy import stats  # imported here so the error names the one missing package

    df = pd.read_csv(tables / entry["file"])
    return eval(entry["expect"], {"df": df, "pd": pd, "np": np, "stats": stats})


def _is_number(value: Any) -> bool:
    return isinstance(value, Number | np.number) and not isinstance(value, bool | np.bool_)


def _value_problem(value: Any) -> str | None:
    """Why `value` is not something a scorer can look for in an answer, or None."""
    if isinstance(value, bool | np.bool_ | str):
        return None if value != "" else "an empty string"
    if _is_number(value):
        return None if math.isfinite(float(value)) else f"a non-finite number {value}"
    if isinstance(value, pd.Series | list):
        numbers = list(value)
        if not numbers:
            return "an empty series or list"
        if not all(_is_number(n) and math.isfinite(float(n)) for n in numbers):
            return f"a series or list with non-numbers or NaN: {numbers[:5]}"
        return None
    return f"a {type(value).__name__}, not a number, bool, string, series or list"


def entry_problems(entry: Any, tables: Path = TABLES) -> list[str]:
    """What is wrong with one entry (empty when it is consistent)."""
    if not isinstance(entry, dict):
        return [f"not a mapping: {entry!r}"]
    problems = []
    if missing := REQUIRED - entry.keys():
        problems.append(f"missing {sorted(missing)}")
    if unknown := entry.keys() - ALLOWED:
        problems.append(f"unknown keys {sorted(unknown)}")
    if problems:
        return problems
    if entry["kind"] not in KINDS:
        problems.append(f"kind {entry['kind']!r} is not one of {KINDS}")
    if (entry["expect"] is None) != (entry["kind"] == "other"):
        problems.append("expect must be null exactly when kind is other")
    if not (tables / entry["file"]).is_file():
        return [*problems, f"no table {entry['file']}"]
    if entry["kind"] == "test" and "note" not in entry:
        problems.append("a test needs a note naming the test")
    try:
        value = expected_value(entry, tables)
    except Exception as error:  # any failure of the expression is the finding
        return [*problems, f"expect raised {type(error).__name__}: {error}"]
    if value is not None and (problem := _value_problem(value)):
        problems.append(f"expect gave {problem}")
    return problems


def table_problems() -> list[str]:
    """Committed tables that differ from what make_tables.py writes now."""
    with tempfile.TemporaryDirectory() as scratch:
        fresh = write_tables(Path(scratch))
        return [f"{path.name} differs from make_tables.py's output (re-run it)"
                for path in fresh if path.read_bytes() != (TABLES / path.name).read_bytes()]


def _show(value: Any) -> str:
    text = value.round(4).to_dict() if isinstance(value, pd.Series) else value
    return str(text)[:160]


def main(argv: list[str] | None = None) -> int:
    """Check the question files; print a summary and every problem; 1 if any."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path,
                        default=[HERE / "ja_tune.yaml", HERE / "ja_test.yaml"])
    parser.add_argument("-v", "--verbose", action="store_true", help="print every value")
    args = parser.parse_args(argv)
    problems = table_problems()
    seen: dict[tuple[str, str], str] = {}
    for path in args.files:
        entries = load_questions(path)
        kinds = Counter(entry.get("kind") for entry in entries if isinstance(entry, dict))
        tables = Counter(entry.get("file") for entry in entries if isinstance(entry, dict))
        print(f"{path.name}: {len(entries)} questions; {dict(kinds)}; {dict(tables)}")
        for number, entry in enumerate(entries, 1):
            where = f"{path.name} #{number}"
            problems += [f"{where}: {problem}" for problem in entry_problems(entry)]
            if isinstance(entry, dict) and {"file", "question"} <= entry.keys():
                key = (entry["file"], entry["question"])
                if key in seen:
                    problems.append(f"{where}: same question as {seen[key]}")
                seen[key] = where
            if args.verbose and not any(p.startswith(where + ":") for p in problems):
                value = expected_value(entry)
                print(f"  {number:2d} {entry['question']}: {_show(value)}")
    for problem in problems:
        print(f"PROBLEM {problem}", file=sys.stderr)
    print("consistent" if not problems else f"{len(problems)} problems", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
