"""`shokunin kb`: ingest a folder with a progress bar and a summary, search from the shell
(a table, or JSON for scripts), clear exits on bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.subprocess


def _kb(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SHOKUNIN_")}
    env["SHOKUNIN_DATA_DIR"] = str(cwd / "data")
    return subprocess.run([sys.executable, "-m", "shokunin", "kb", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_ingest_then_search_finds_the_chunk_with_its_file_heading_and_score(
        tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "cost.md").write_text("# 原価\n\n## 計算例\n材料費と労務費を足します。",
                                  encoding="utf-8")
    (docs / "bad.pdf").write_bytes(b"not a pdf")
    ingest = _kb("ingest", str(docs), cwd=tmp_path)
    assert ingest.returncode == 1  # one file was skipped, and it says which
    assert "1 added" in ingest.stdout and "bad.pdf" in ingest.stderr
    found = _kb("search", "労務費", "--json", cwd=tmp_path)
    assert found.returncode == 0
    [hit] = json.loads(found.stdout)
    assert (hit["source"], hit["heading"]) == ("cost.md", "原価 > 計算例") and hit["score"] > 0
    table = _kb("search", "労務費", cwd=tmp_path)
    assert "cost.md" in table.stdout and "原価 > 計算例" in table.stdout
    again = _kb("ingest", str(docs), cwd=tmp_path)
    assert "0 added, 0 updated, 0 removed, 1 unchanged" in again.stdout


def test_a_missing_folder_and_a_query_with_no_match_exit_non_zero(tmp_path: Path) -> None:
    missing = _kb("ingest", str(tmp_path / "nowhere"), cwd=tmp_path)
    assert missing.returncode == 2 and "is not a folder" in missing.stderr
    nothing = _kb("search", "こんにちは", cwd=tmp_path)
    assert nothing.returncode == 1 and "no match" in nothing.stdout
