"""sql_engine stays read-only whatever the query; save_data writes only into the workspace."""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from langchain_core.tools import ToolException

from shokunin.agents.workbench.tools import (
    QueryRejected,
    run_query,
    safe_csv_name,
    schema_of,
    write_csv,
)
from shokunin.config import Settings


@pytest.fixture
def db(tmp_path: Path) -> Path:
    copy = tmp_path / "sample.db"
    shutil.copy(Settings().sample_db, copy)
    return copy


def test_select_works(db: Path) -> None:
    columns, rows, more = run_query(db, "SELECT name FROM rooms WHERE floor_id = '1F' "
                                        "ORDER BY name -- a comment")
    assert columns == ["name"] and ("Kitchen",) in rows and not more
    assert "CREATE TABLE rooms" in schema_of(db)


@pytest.mark.parametrize("sql", [
    "DELETE FROM rooms",
    "INSERT INTO rooms VALUES ('x', '1F', 'room', 1, 1)",
    "UPDATE rooms SET area_m2 = 0",
    "DROP TABLE rooms",
    "SELECT 1; DROP TABLE rooms",
    "SELECT 1; DELETE FROM rooms;",
    "/* hi */ DROP TABLE rooms",
    "ATTACH DATABASE '/tmp/evil.db' AS evil",
    "SELECT * FROM rooms; ATTACH DATABASE ':memory:' AS x",
    "PRAGMA writable_schema = ON",
    "PRAGMA table_info(rooms)",
    "SELECT * FROM pragma_table_info('rooms')",
    "WITH x AS (SELECT 1) DELETE FROM rooms",
    "CREATE TABLE t (a)",
    "VACUUM",
    "SELECT load_extension('x')",
])
def test_writes_and_tricks_are_rejected(db: Path, sql: str) -> None:
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    with pytest.raises((QueryRejected, sqlite3.Error)):
        run_query(db, sql)
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert not Path("/tmp/evil.db").exists()


def test_rows_are_capped(db: Path) -> None:
    _cols, rows, more = run_query(db, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 "
                                      "FROM n WHERE i < 1000) SELECT i FROM n")
    assert len(rows) == 200 and more


@pytest.mark.parametrize("name", ["../evil", "/etc/passwd", "a/b", "..", ".hidden", "a\\b",
                                  "", "x" * 200, "a\x00b"])
def test_unsafe_file_names_are_refused(name: str) -> None:
    with pytest.raises(ToolException):
        safe_csv_name(name)


def test_save_data_writes_csv_in_the_workspace(tmp_path: Path) -> None:
    path = write_csv(tmp_path, {"room": ["A", "B"], "area": [1, 2]}, "areas.csv")
    assert path == tmp_path / "areas.csv"
    assert path.read_text().splitlines() == ["room,area", "A,1", "B,2"]
    path = write_csv(tmp_path, [{"a": 1}, {"a": 2, "b": 3}], "records")
    assert path.read_text().splitlines() == ["a,b", "1,", "2,3"]
    with pytest.raises(ToolException, match="same length"):
        write_csv(tmp_path, {"a": [1], "b": [1, 2]}, "bad")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["areas.csv", "records.csv"]


@pytest.mark.parametrize("planted", ["link_to_file", "link_to_missing", "folder", "hardlink",
                                     "fifo"])
def test_save_data_never_follows_what_sandbox_code_planted(tmp_path: Path, planted: str) -> None:
    """Kernels write the workspace too; a link named like the CSV must not redirect this
    (possibly root) process's write outside it."""
    workspace, outside = tmp_path / "ws", tmp_path / "victim.txt"
    workspace.mkdir()
    outside.write_text("precious")
    target = workspace / "report.csv"
    if planted == "link_to_file":
        target.symlink_to(outside)
    elif planted == "link_to_missing":
        target.symlink_to(tmp_path / "created_by_root.txt")
    elif planted == "hardlink":
        target.hardlink_to(outside)
    elif planted == "fifo":
        os.mkfifo(target)
    else:
        target.mkdir()
    with pytest.raises(ToolException, match="report.csv"):
        write_csv(workspace, {"pwned": [1]}, "report")
    assert outside.read_text() == "precious"
    assert not (tmp_path / "created_by_root.txt").exists()


def test_save_data_refuses_a_linked_workspace(tmp_path: Path) -> None:
    real = tmp_path / "elsewhere"
    real.mkdir()
    (tmp_path / "ws").symlink_to(real)
    with pytest.raises(ToolException, match="workspace"):
        write_csv(tmp_path / "ws", {"a": [1]}, "report")
    assert list(real.iterdir()) == []


def test_save_data_overwrites_its_own_earlier_file(tmp_path: Path) -> None:
    write_csv(tmp_path, {"a": [1, 2, 3, 4]}, "report")
    path = write_csv(tmp_path, {"b": [9]}, "report")
    assert path.read_text().splitlines() == ["b", "9"]
