"""sql_engine runs in the server process: what a query may build, return and spend is bounded.

``SELECT length(hex(zeroblob(400000000)))`` once took the server from 164 MiB to 2 GiB.
"""

from __future__ import annotations

import asyncio
import resource
import shutil
from pathlib import Path

import pytest
from langchain_core.tools import ToolException

from shokunin.agents.workbench.tools import QueryLimitExceeded, SqlLimits, run_query
from shokunin.agents.workbench.tools.sql_engine import sql_engine_tool
from shokunin.config import Settings

CROSS_JOIN = ("SELECT count(*) FROM rooms a, rooms b, rooms c, rooms d, rooms e, rooms f, "
              "rooms g, rooms h")  # 14**8 rows to count: hours without a bound


@pytest.fixture
def db(tmp_path: Path) -> Path:
    copy = tmp_path / "sample.db"
    shutil.copy(Settings().sample_db, copy)
    return copy


def _peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def test_huge_value_is_refused_without_taking_the_memory(db: Path) -> None:
    before = _peak_rss_mib()
    with pytest.raises(QueryLimitExceeded, match="would exceed 1000000 bytes"):
        run_query(db, "SELECT length(hex(zeroblob(400000000)))")
    assert _peak_rss_mib() - before < 200, "the query must not build its 800 MB string"


@pytest.mark.parametrize("sql", [
    "SELECT group_concat(hex(randomblob(1000))) FROM (WITH RECURSIVE n(i) AS (SELECT 1 "
    "UNION ALL SELECT i + 1 FROM n WHERE i < 100000) SELECT i FROM n)",
    "SELECT replace(hex(zeroblob(100000)), '0', '00000000000000000000')",
])
def test_other_ways_to_build_a_huge_value_are_refused(db: Path, sql: str) -> None:
    with pytest.raises(QueryLimitExceeded):
        run_query(db, sql)


def test_runaway_cross_join_is_stopped_by_the_time_limit(db: Path) -> None:
    with pytest.raises(QueryLimitExceeded, match="ran longer than 0.5 s"):
        run_query(db, CROSS_JOIN, SqlLimits(timeout_sec=0.5))


def test_rows_beyond_the_row_cap_are_cut_and_said(db: Path) -> None:
    columns, rows, cut = run_query(db, "SELECT a.name, b.name FROM rooms a, rooms b, rooms c",
                                   SqlLimits(max_rows=50))
    assert columns == ["name", "name"] and len(rows) == 50
    assert cut == "first 50 rows shown"


def test_rows_beyond_the_byte_cap_are_cut_and_said(db: Path) -> None:
    _cols, rows, cut = run_query(db, "SELECT hex(randomblob(5000)) FROM rooms",
                                 SqlLimits(max_result_bytes=25_000))
    assert len(rows) == 2 and cut == "first 2 rows shown (the result is limited to 25000 bytes)"


def test_one_row_over_the_byte_cap_comes_back_cut(db: Path) -> None:
    _cols, rows, cut = run_query(db, "SELECT 'a', hex(zeroblob(100000))",
                                 SqlLimits(max_result_bytes=1000))
    [(small, big)] = rows
    assert small == "a" and big.endswith("…") and len(big) <= 501
    assert cut == "values cut to 1000 bytes in all"


def test_small_results_are_whole(db: Path) -> None:
    _cols, rows, cut = run_query(db, "SELECT name FROM rooms")
    assert len(rows) == 14 and cut is None


def test_the_tool_answers_with_a_readable_error_or_a_truncation_note(db: Path) -> None:
    tool = sql_engine_tool(db, SqlLimits(max_rows=3, timeout_sec=0.5))
    table = asyncio.run(tool.ainvoke({"query": "SELECT name FROM rooms"}))
    assert table.splitlines()[-1] == "(truncated: first 3 rows shown)"
    with pytest.raises(ToolException, match="query failed: the query ran longer than 0.5 s"):
        asyncio.run(tool.coroutine(CROSS_JOIN))


def test_limits_come_from_settings() -> None:
    settings = Settings(sql_max_rows=7, sql_max_result_bytes=100, sql_max_value_bytes=1000,
                        sql_timeout_sec=2.5)
    assert SqlLimits.from_settings(settings) == SqlLimits(
        max_rows=7, max_result_bytes=100, max_value_bytes=1000, timeout_sec=2.5)
