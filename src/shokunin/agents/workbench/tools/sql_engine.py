"""sql_engine: read-only SQL on the sample database.

Three locks, because any one alone has a gap: the file is opened ``mode=ro`` (writes fail
in SQLite itself), only a single SELECT/WITH statement is accepted, and an authorizer
denies everything but reading (ATTACH, PRAGMA, writes hidden in a CTE, ...).
"""

from __future__ import annotations

import asyncio
import re
import sqlite3
from functools import lru_cache
from pathlib import Path

from langchain_core.tools import BaseTool, StructuredTool, ToolException

from shokunin.agents.workbench.tools.schemas import SqlArgs
from shokunin.models import MAX_DESCRIPTION

MAX_ROWS = 200
_MAX_STEPS = 5_000_000  # VM instructions before a query is stopped (runaway joins)
_ALLOWED = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION,
            sqlite3.SQLITE_RECURSIVE}


class QueryRejected(ValueError):
    """The query is not a single read-only SELECT."""


def _authorize(action: int, *_args: object) -> int:
    return sqlite3.SQLITE_OK if action in _ALLOWED else sqlite3.SQLITE_DENY


def _strip_comments(sql: str) -> str:
    return re.sub(r"--[^\n]*|/\*.*?\*/", " ", sql, flags=re.DOTALL).strip()


def run_query(db: Path, sql: str) -> tuple[list[str], list[tuple], bool]:
    """Columns, at most MAX_ROWS rows, and whether more rows were cut off."""
    body = _strip_comments(sql).rstrip(";").strip()
    if not re.match(r"(select|with)\b", body, re.IGNORECASE):
        raise QueryRejected("only SELECT queries are allowed (the database is read-only)")
    if ";" in body and sqlite3.complete_statement(body.split(";", 1)[0] + ";"):
        raise QueryRejected("only one statement is allowed")
    con = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    try:
        con.set_authorizer(_authorize)
        steps = 0

        def budget() -> int:
            nonlocal steps
            steps += 1000
            return 1 if steps > _MAX_STEPS else 0

        con.set_progress_handler(budget, 1000)
        try:
            cur = con.execute(body)
        except sqlite3.DatabaseError as exc:
            if "not authorized" in str(exc):
                raise QueryRejected("only reading is allowed (the database is read-only)") \
                    from None
            raise
        rows = cur.fetchmany(MAX_ROWS + 1)
        columns = [d[0] for d in cur.description or ()]
        return columns, rows[:MAX_ROWS], len(rows) > MAX_ROWS
    finally:
        con.close()


def as_markdown(columns: list[str], rows: list[tuple], truncated: bool) -> str:
    if not columns:
        return "(no result)"
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join("" if v is None else str(v) for v in row) + " |"
              for row in rows]
    if truncated:
        lines.append(f"(first {MAX_ROWS} rows shown)")
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


def sql_engine_tool(db: Path) -> BaseTool:
    async def sql_engine(query: str) -> str:
        try:
            columns, rows, truncated = await asyncio.to_thread(run_query, db, query)
        except (QueryRejected, sqlite3.Error) as exc:
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
