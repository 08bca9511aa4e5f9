"""sql_engine: read-only SQL on the sample database, bounded in time, memory and size.

Three locks, because any one alone has a gap: the file is opened ``mode=ro`` (writes fail
in SQLite itself), only a single SELECT/WITH statement is accepted, and an authorizer
denies everything but reading (ATTACH, PRAGMA, writes hidden in a CTE, ...).

And three bounds, because the query runs in the server process: no string or blob the
query builds may exceed ``max_value_bytes`` (SQLITE_LIMIT_LENGTH, so
``hex(zeroblob(400000000))`` fails instead of taking gigabytes), the page cache and sorter
stay within ``cache_kib`` before spilling to a temporary file, and a progress handler stops
the query after ``timeout_sec``. The answer holds at most ``max_rows`` rows and
``max_result_bytes`` of values, and says so when it was cut.
"""

from __future__ import annotations

import asyncio
import re
import sqlite3
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool, ToolException

from shokunin.agents.workbench.tools.run_of_call import run_deps
from shokunin.agents.workbench.tools.schemas import SqlArgs
from shokunin.errors import ErrorCode, ShokuninError
from shokunin.models import MAX_DESCRIPTION

_ALLOWED = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION,
            sqlite3.SQLITE_RECURSIVE}
_PROGRESS_EVERY = 10_000  # VM instructions between deadline checks


@dataclass(frozen=True)
class SqlLimits:
    """What one query may return, build and spend (settings ``sql_*``)."""

    max_rows: int = 200
    max_result_bytes: int = 256 * 1024  # UTF-8 text of all values returned
    max_value_bytes: int = 1_000_000  # any string or blob the query builds
    cache_kib: int = 16 * 1024  # page cache and sorter memory of the connection
    timeout_sec: float = 10.0

    @classmethod
    def from_settings(cls, settings: Any) -> SqlLimits:
        if settings is None:
            return cls()
        return cls(max_rows=settings.sql_max_rows,
                   max_result_bytes=settings.sql_max_result_bytes,
                   max_value_bytes=settings.sql_max_value_bytes,
                   timeout_sec=settings.sql_timeout_sec)


class QueryRejected(ShokuninError, ValueError):
    """The query is not a single read-only SELECT."""
    status = 400
    code = ErrorCode.BAD_REQUEST


class QueryLimitExceeded(ShokuninError, ValueError):
    """The query ran past a bound (time or value size) and was stopped."""
    status = 400
    code = ErrorCode.BAD_REQUEST


def _authorize(action: int, *_args: object) -> int:
    return sqlite3.SQLITE_OK if action in _ALLOWED else sqlite3.SQLITE_DENY


def _strip_comments(sql: str) -> str:
    return re.sub(r"--[^\n]*|/\*.*?\*/", " ", sql, flags=re.DOTALL).strip()


def run_query(db: Path, sql: str, limits: SqlLimits = SqlLimits()
              ) -> tuple[list[str], list[tuple], str | None]:
    """Columns, the rows that fit the limits, and why rows were cut off (None if not)."""
    body = _strip_comments(sql).rstrip(";").strip()
    if not re.match(r"(select|with)\b", body, re.IGNORECASE):
        raise QueryRejected("only SELECT queries are allowed (the database is read-only)")
    if ";" in body and sqlite3.complete_statement(body.split(";", 1)[0] + ";"):
        raise QueryRejected("only one statement is allowed")
    con = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    try:
        con.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, limits.max_value_bytes)
        con.execute(f"PRAGMA cache_size = -{int(limits.cache_kib)}")
        con.execute("PRAGMA temp_store = FILE")  # a big sort spills to disk, not memory
        con.set_authorizer(_authorize)
        deadline = time.monotonic() + limits.timeout_sec
        con.set_progress_handler(lambda: time.monotonic() > deadline, _PROGRESS_EVERY)
        try:
            cur = con.execute(body)
            columns = [d[0] for d in cur.description or ()]
            rows, cut = _bounded_rows(cur, limits)
        except sqlite3.DatabaseError as exc:
            raise _explain(exc, limits) from None
        return columns, rows, cut
    finally:
        con.close()


def _bounded_rows(cur: sqlite3.Cursor, limits: SqlLimits) -> tuple[list[tuple], str | None]:
    rows: list[tuple] = []
    size = 0
    for row in cur:
        if len(rows) == limits.max_rows:
            return rows, f"first {limits.max_rows} rows shown"
        row_size = sum(len(_text(v).encode()) for v in row)
        if size + row_size > limits.max_result_bytes:
            if not rows:  # one row alone is too big: show it with its values cut
                return [_cut_row(row, limits.max_result_bytes)], (
                    f"values cut to {limits.max_result_bytes} bytes in all")
            return rows, (f"first {len(rows)} rows shown (the result is limited to "
                          f"{limits.max_result_bytes} bytes)")
        rows.append(row)
        size += row_size
    return rows, None


def _text(value: object) -> str:
    return "" if value is None else str(value)


def _cut_row(row: tuple, budget: int) -> tuple:
    share = max(budget // max(len(row), 1), 1)
    return tuple(v if len(_text(v).encode()) <= share
                 else _text(v).encode()[:share].decode(errors="ignore") + "…" for v in row)


def _explain(exc: sqlite3.DatabaseError, limits: SqlLimits) -> Exception:
    text = str(exc)
    if "not authorized" in text:
        return QueryRejected("only reading is allowed (the database is read-only)")
    if "interrupted" in text:
        return QueryLimitExceeded(f"the query ran longer than {limits.timeout_sec:g} s and "
                                  "was stopped; narrow it (WHERE, LIMIT, fewer joins)")
    if "too big" in text:
        return QueryLimitExceeded(f"a value would exceed {limits.max_value_bytes} bytes and "
                                  "the query was stopped; select less per row")
    return exc


def as_markdown(columns: list[str], rows: list[tuple], truncated: str | None) -> str:
    if not columns:
        return "(no result)"
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(_text(v) for v in row) + " |" for row in rows]
    if truncated:
        lines.append(f"(truncated: {truncated})")
    return "\n".join(lines)


@lru_cache(maxsize=8)
def schema_of(db: Path) -> str:
    """The CREATE statements, for the tool's description."""
    con = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    try:
        rows = con.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND sql "
                           "IS NOT NULL ORDER BY name").fetchall()
    finally:
        con.close()
    return "\n".join(re.sub(r"\s+", " ", r[0]) for r in rows)


def sql_engine_tool(db: Path, limits: SqlLimits | None = None) -> BaseTool:
    """The tool over ``db``; without ``limits``, those of the calling run's server."""

    async def sql_engine(query: str) -> str:
        bounds = limits or SqlLimits.from_settings(run_deps().ctx.services.settings)
        try:
            columns, rows, truncated = await asyncio.to_thread(run_query, db, query, bounds)
        except (QueryRejected, QueryLimitExceeded, sqlite3.Error) as exc:
            raise ToolException(f"query failed: {exc}") from None
        return as_markdown(columns, rows, truncated)

    return StructuredTool.from_function(coroutine=sql_engine, name="sql_engine",
                                        args_schema=SqlArgs, description=_description(db))


def _description(db: Path) -> str:
    """The tables' CREATE statements when they fit in what providers accept (1,024
    characters), else how to read them."""
    base = ("Allows you to perform read-only SQL queries on the building database (SQLite). "
            "Returns a markdown table of the result.\n\nArgs:\n    query: one SELECT "
            "statement.")
    full = f"{base}\n\nTables:\n{schema_of(db)}"
    if len(full) <= MAX_DESCRIPTION:
        return full
    return (f"{base}\n\nRead the tables first: SELECT name, sql FROM sqlite_master WHERE "
            "type = 'table'")
