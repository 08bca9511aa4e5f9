"""``shokunin analyze``, run as a user would (a subprocess on the real sandbox)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from sqlalchemy.engine import make_url

from shokunin.config import Settings

SAMPLES = Path(__file__).resolve().parents[2] / "src/shokunin/data/analyst"


def _analyze(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SHOKUNIN_DATA_DIR": str(tmp_path / "data"), "COLUMNS": "100"}
    env.pop("SHOKUNIN_MODEL", None)
    return subprocess.run([sys.executable, "-m", "shokunin", "analyze", *args], env=env,
                          capture_output=True, text=True, timeout=180, check=False)


def test_a_report_is_printed_and_written_as_a_page(tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    done = _analyze(tmp_path, str(SAMPLES / "sales_ja_cp932.csv"), "店舗別の売上高合計",
                    "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "420 rows x 8 columns (cp932)" in done.stderr
    assert done.stdout.count("3646170") == 1  # 東京本店's total, printed once
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "東京本店" in page and "http" not in page.split(
        "<body")[1]


def test_a_question_that_needs_an_answer_exits_1_with_the_question(tmp_path: Path) -> None:
    done = _analyze(tmp_path, str(SAMPLES / "sales_en.csv"), "total revenue by regoin")
    assert done.returncode == 1
    assert "region" in done.stdout and "regoin" in done.stdout


def test_a_file_that_is_not_a_table_exits_2(tmp_path: Path) -> None:
    junk = tmp_path / "notes.csv"
    junk.write_bytes(b"\x00\x01\x02 binary junk \xff" * 50)
    done = _analyze(tmp_path, str(junk), "overview")
    assert done.returncode == 2
    assert "notes.csv" in done.stderr


def test_a_refused_file_leaves_no_empty_analyst_thread(tmp_path: Path) -> None:
    """The REST and MCP uploads delete a thread they made for a refused file; the CLI used to
    leave it behind (an empty Analyst thread listed in the web view). One use case now."""
    junk = tmp_path / "notes.csv"
    junk.write_bytes(b"\x00\x01\x02 binary junk \xff" * 50)
    assert _analyze(tmp_path, str(junk), "overview").returncode == 2
    database = Settings(data_dir=tmp_path / "data").resolved_database_url
    with sqlite3.connect(make_url(database).database) as db:
        threads = db.execute("SELECT id, agent FROM threads").fetchall()
    assert threads == []
