"""The kernel's loader reads a table with a non-ASCII delimiter as the server did: pandas'
C engine takes a one-byte separator only, and its fall back with low_memory is an error."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
import pytest

from shokunin.agents.analyst import kernel_code
from shokunin.agents.analyst.profile import DatasetProfile
from shokunin.agents.analyst.storage import DatasetRecord


def _record(delimiter: str) -> DatasetRecord:
    profile = DatasetProfile(rows=2, column_count=2, columns=[], sample_rows=[], format="csv",
                             engine="pandas")
    return DatasetRecord(
        id="d1", thread_id="t1", original_name="w.csv", size_bytes=1, format="csv",
        encoding="utf-8", encoding_method="utf-8", delimiter=delimiter, header=True,
        engine="pandas", path="datasets/d1/data.csv", parquet_path=None,
        created_at=datetime.now(UTC), profile=profile)


def test_a_full_width_delimiter_is_read_by_the_kernels_loader(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "datasets" / "d1"
    folder.mkdir(parents=True)
    (folder / "data.csv").write_text("a；b\n1；2\n3；4\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # the kernel runs in the thread's workspace
    scope: dict[str, object] = {}
    exec(kernel_code.loader(_record("；")), scope)  # the code the kernel would run
    frame = scope["df"]
    assert isinstance(frame, pd.DataFrame)
    assert (list(frame.columns), len(frame)) == (["a", "b"], 2)


def test_a_one_byte_delimiter_keeps_the_c_engine() -> None:
    assert "low_memory=False" in kernel_code.loader(_record(","))
