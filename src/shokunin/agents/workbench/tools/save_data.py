"""save_data: write a dataset as CSV into the thread's workspace, and nowhere else."""

from __future__ import annotations

import asyncio
import csv
import os
import re
from pathlib import Path
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool, ToolException

from shokunin.agents.workbench.tools.run_of_call import run_deps
from shokunin.agents.workbench.tools.schemas import SaveDataArgs
from shokunin.store import SafeTree, UnsafePath

_SAFE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\- ]{0,99}")


def safe_csv_name(file_name: str) -> str:
    """``file_name`` as a plain ``*.csv`` name; anything path-like is refused, not cleaned,
    so the model learns what went wrong."""
    name = file_name.strip()
    name = name[:-4] if name.lower().endswith(".csv") else name
    if not _SAFE.fullmatch(name) or ".." in name:
        raise ToolException(
            f"bad file name {file_name!r}: use letters, digits, '_', '-', '.' and spaces "
            "(no folders), e.g. 'room_areas'")
    return name + ".csv"


def _columns(dataset: Any) -> tuple[list[str], list[list[Any]]]:
    if isinstance(dataset, dict):
        columns = [str(k) for k in dataset]
        values = [v if isinstance(v, list) else [v] for v in dataset.values()]
        if len({len(v) for v in values}) > 1:
            raise ToolException("every column of the dataset must have the same length")
        return columns, [list(row) for row in zip(*values, strict=True)]
    if isinstance(dataset, list) and all(isinstance(r, dict) for r in dataset):
        columns = list(dict.fromkeys(k for r in dataset for k in r))
        return columns, [[r.get(c) for c in columns] for r in dataset]
    raise ToolException("dataset must be {column: [values]} or a list of {column: value}")


def write_csv(workspace: Path, dataset: Any, file_name: str) -> Path:
    columns, rows = _columns(dataset)
    name = safe_csv_name(file_name)
    try:  # the sandbox writes the workspace too (as another uid): no link is followed
        fd = SafeTree(workspace).open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
                                      make_folders=True)
    except (OSError, UnsafePath) as exc:
        raise ToolException(f"cannot write {name} in the workspace: {exc}") from None
    with os.fdopen(fd, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(columns)
        writer.writerows(rows)
    return workspace / name


def save_data_tool() -> BaseTool:
    async def save_data(dataset: dict[str, Any] | list[dict[str, Any]], file_name: str) -> str:
        path = await asyncio.to_thread(write_csv, run_deps().ctx.workspace, dataset, file_name)
        return f"Saved {path.name} in the workspace."

    return StructuredTool.from_function(
        coroutine=save_data, name="save_data", args_schema=SaveDataArgs,
        description="Takes the dataset in a dictionary format and saves it as a csv file.\n\n"
                    "Args:\n    dataset: dataset in a dictionary format ({column: [values]})\n"
                    "    file_name: name of the file of the saved dataset (no folders)")
