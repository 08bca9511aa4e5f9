"""``shokunin analyze``, run as a user would (a subprocess on the real sandbox)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from shokunin.config import Settings

pytestmark = pytest.mark.subprocess

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
    # the answer first (東京本店's total, formatted), then its table, once
    said = done.stdout
    assert said.index("東京本店 が最も多く 3,646,170 円です。") < said.index("福岡天神店")
    assert done.stdout.count("福岡天神店") == 1
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


def _web_download(tmp_path: Path, fmt: str) -> str:
    """The newest Analyst run's report as the web face's download gives it, from the data
    folder the CLI ran in."""
    from fastapi.testclient import TestClient

    from shokunin.api import create_app

    database = Settings(data_dir=tmp_path / "data").resolved_database_url
    with sqlite3.connect(make_url(database).database) as db:
        (run_id,) = db.execute("SELECT id FROM runs WHERE agent = 'analyst' "
                               "ORDER BY created_at DESC LIMIT 1").fetchone()
    app = create_app(Settings(data_dir=tmp_path / "data", sandbox_pool_size=0, tools_dirs=[],
                              tool_settings_file=tmp_path / "s.json",
                              allowed_hosts=["testserver"]))
    with TestClient(app) as client:
        response = client.get(f"/api/analyst/runs/{run_id}/report.{fmt}")
    assert response.status_code == 200, response.text
    return response.text


def test_the_html_report_is_the_web_download_of_the_same_run_with_its_chart(
        tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    done = _analyze(tmp_path, str(SAMPLES / "sales_en.csv"), "revenue trend by month",
                    "--out", str(out))
    assert done.returncode == 0, done.stderr
    page = out.read_text(encoding="utf-8")
    assert '<img alt="figure 1" src="data:image/png;base64,' in page
    assert page == _web_download(tmp_path, "html")


def test_the_report_is_written_as_a_notebook_for_ipynb_not_as_markdown(tmp_path: Path) -> None:
    """``--out x.ipynb`` used to write the Markdown report into it (any suffix but .html)."""
    out = tmp_path / "report.ipynb"
    done = _analyze(tmp_path, str(SAMPLES / "sales_en.csv"), "revenue trend by month",
                    "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "reads sales_en.csv from beside it" in " ".join(done.stderr.split())
    assert json.loads(out.read_text(encoding="utf-8"))["nbformat"] == 4
    assert out.read_text(encoding="utf-8") == _web_download(tmp_path, "ipynb")


def test_an_out_file_of_no_report_format_is_refused_before_anything_runs(
        tmp_path: Path) -> None:
    done = _analyze(tmp_path, str(SAMPLES / "sales_en.csv"), "overview",
                    "--out", str(tmp_path / "report.pdf"))
    assert done.returncode == 2
    assert ".md, .html or .ipynb" in done.stderr
    assert not (tmp_path / "data").exists()  # no engine opened, no database made


def test_a_table_with_a_cell_of_200000_characters_is_analysed(tmp_path: Path) -> None:
    """Past the csv module's 131,072-character field limit: it used to be refused as a
    malformed table (exit 2)."""
    table = tmp_path / "notes.csv"
    table.write_text("id,score,note\n1,5," + "x" * 200_000 + "\n2,7,short\n3,9,ok\n",
                     encoding="utf-8")
    done = _analyze(tmp_path, str(table), "total score")
    assert done.returncode == 0, done.stderr
    assert "3 rows x 3 columns (utf-8)" in done.stderr
    assert "21" in done.stdout


def test_a_question_past_the_limit_every_face_has_exits_2_saying_so(tmp_path: Path) -> None:
    """The REST API refused it; the CLI ran it. The limit is the use case's now."""
    done = _analyze(tmp_path, str(SAMPLES / "sales_en.csv"), "revenue " * 600)
    assert done.returncode == 2
    assert "ask in at most 4000" in " ".join(done.stderr.split())


def test_every_step_the_analyst_can_take_is_shown_in_words() -> None:
    # issue 49: the progress line read "reason → run_code" (the graph's node names)
    from typing import get_args

    from shokunin.agents.analyst.contracts import ReasonDecision
    from shokunin.cli.analyze import _STEPS

    actions = get_args(ReasonDecision.model_fields["action"].annotation)
    assert actions and all(a in _STEPS[lang] for a in actions for lang in ("en", "ja"))
    assert not any("_" in word for words in _STEPS.values() for word in words.values())
