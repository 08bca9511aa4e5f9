"""An offline question answered here as the sandbox would answer it, without a server: the
planner's code run with the cell's helpers on the table (its tables, JSON and answer shown as
the kernel shows them, ``kernel_code.SHOW``), and the report the offline brain writes."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import warnings
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import matplotlib
import pandas as pd

from shokunin.agents.analyst import kernel_code
from shokunin.agents.analyst import offline as planner
from shokunin.agents.analyst.brains import OfflineBrain
from shokunin.agents.analyst.contracts import Cell
from shokunin.agents.analyst.dataset import detect_source, profile_file, read_frame
from shokunin.agents.analyst.profile import DatasetProfile
from shokunin.agents.analyst.storage import DatasetRecord
from shokunin.sandbox import ExecResult

matplotlib.use("Agg")


def record(path: Path, profile: DatasetProfile) -> DatasetRecord:
    return DatasetRecord(
        id="d1", thread_id="t1", original_name=path.name, size_bytes=1, format="csv",
        encoding="utf-8", encoding_method="utf-8", delimiter=",", header=True,
        engine="pandas", path=str(path), parquet_path=None, created_at=datetime.now(UTC),
        profile=profile)


def table(path: Path) -> tuple[pd.DataFrame, DatasetProfile]:
    source, profile = profile_file(path, detect_source(path))
    return read_frame(path, source), profile


def run(code: str, frame: pd.DataFrame, figures: list[Any] | None = None) -> ExecResult:
    """The cell run as the kernel runs it: what it printed, its tables and its JSON; its
    figures are kept in ``figures`` (else closed)."""
    import matplotlib.pyplot as plt

    tables: list[str] = []
    values: list[Any] = []

    def display(value: Any) -> None:
        if hasattr(value, "_repr_markdown_"):
            tables.append(str(value))
        elif isinstance(value, (dict, list)):  # as the kernel's JSON formatter does
            values.append(json.loads(json.dumps(value, allow_nan=False)))

    space: dict[str, Any] = {"df": frame.copy(), "display": display}
    out = io.StringIO()
    source = f"{kernel_code.CELL_HELPERS}TABLE_MARKDOWN = []\nJSON_OUT = []\n{code}\n" \
             f"{kernel_code.SHOW}"
    kept = plt.close
    if figures is not None:
        plt.close = lambda fig=None: figures.append(fig)  # type: ignore[assignment]
    try:
        with contextlib.redirect_stdout(out), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # plt.show() on Agg, pandas' own notices
            exec(source, space)  # noqa: S102 - the planner's code, as in the sandbox
    except Exception as exc:  # noqa: BLE001 - a failed cell is a result
        return ExecResult(ok=False, stdout=out.getvalue(), error_type=type(exc).__name__,
                          error_message=str(exc))
    finally:
        plt.close = kept  # type: ignore[assignment]
        if figures is None:
            plt.close("all")
    return ExecResult(ok=True, stdout=out.getvalue(), table_markdown=tables, json=values)


def answer(question: str, path: Path, frame: pd.DataFrame, profile: DatasetProfile,
           figures: list[Any] | None = None) -> tuple[Any, str, bool]:
    """The plan (a Task, Clarify or NotUnderstood), every word a person reads of it (the
    report, or the question asked back) and whether a cell ran to its end."""
    plan = planner.plan(question, profile, path.name)
    if isinstance(plan, planner.Clarify):
        return plan, plan.question, False
    cells = []
    if isinstance(plan, planner.Task):
        cells = [Cell(instruction=plan.instruction, code=plan.code,
                      result=run(plan.code, frame, figures))]
    said = asyncio.run(OfflineBrain().summarize(question, record(path, profile), cells))
    return plan, said, bool(cells) and cells[0].result.ok
