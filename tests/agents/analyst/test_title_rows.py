"""Tables under title lines (a Japanese business file's 「2024年度 売上一覧」 in A1, a date
line, a blank row, then the header): the header row is found, or taken from ``header_row``
(counted from 1 as in Excel), said in the profile, and the kernel's loader reads the table
as the profile did."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import openpyxl
import pandas as pd
import pytest

from shokunin.agents.analyst import (
    NotATable,
    ReadOptions,
    UnreadableTable,
    detect_source,
    kernel_code,
    profile_file,
)
from shokunin.agents.analyst.dataset import read_frame
from shokunin.agents.analyst.storage import DatasetRecord

ROWS = [["日付", "商品", "数量", "金額"], ["2024-04-01", "りんご", 3, 300],
        ["2024-04-02", "みかん", 5, 250], ["2024-04-03", "りんご", 2, 200],
        ["2024-04-05", "ぶどう", 1, 900]]
TITLE = [["2024年度 売上一覧"], ["作成日: 2024/4/1"], []]  # a blank row before the header


def _xlsx(path: Path, rows: list[list[Any]]) -> Path:
    book = openpyxl.Workbook()
    sheet = book.active
    for row in rows:
        sheet.append(row)
    book.save(path)
    return path


def _csv(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def _read(path: Path, **options: Any) -> tuple[Any, Any]:
    source = detect_source(path, ReadOptions(**options))
    return profile_file(path, source)


def _loaded(path: Path, source: Any, profile: Any, monkeypatch: pytest.MonkeyPatch
            ) -> pd.DataFrame:
    """``df`` as the kernel's loader makes it, run in the folder above ``datasets/``."""
    folder = path.parent / "datasets" / "d1"
    folder.mkdir(parents=True)
    stored = folder / f"data{path.suffix}"
    stored.write_bytes(path.read_bytes())
    record = DatasetRecord(
        id="d1", thread_id="t1", original_name=path.name, size_bytes=1, format=source.format,
        encoding=source.encoding.encoding if source.encoding else None,
        encoding_method=None, delimiter=source.delimiter, header=source.header,
        engine="pandas", path=f"datasets/d1/{stored.name}", parquet_path=None,
        created_at=datetime.now(UTC), profile=profile)
    monkeypatch.chdir(path.parent)
    scope: dict[str, Any] = {}
    exec(kernel_code.loader(record), scope)  # noqa: S102 - the code the kernel would run
    return scope["df"]


def _sales_are_read(profile: Any) -> None:
    assert [c.name for c in profile.columns] == ["日付", "商品", "数量", "金額"]
    assert profile.rows == 4
    amount = profile.columns[3]
    assert (amount.dtype, amount.min, amount.max, amount.mean) == ("integer", 200, 900, 412.5)


def test_an_xlsx_with_a_title_a_date_line_and_a_blank_row_reads_row_4_as_the_header(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _xlsx(tmp_path / "売上.xlsx", [*TITLE, *ROWS])
    source, profile = _read(path)
    assert (source.header, profile.header_row) == (True, 4)
    _sales_are_read(profile)
    frame = _loaded(path, source, profile, monkeypatch)
    assert list(frame.columns) == ["日付", "商品", "数量", "金額"]
    assert frame["金額"].tolist() == [300, 250, 200, 900]


def test_an_xlsx_whose_table_starts_lower_on_the_sheet_names_that_row(tmp_path: Path) -> None:
    path = _xlsx(tmp_path / "売上.xlsx", [[], ["売上一覧"], [], [], *ROWS])
    _source, profile = _read(path)
    assert profile.header_row == 5
    _sales_are_read(profile)


@pytest.mark.parametrize("title", [
    ["2024年度 売上一覧", "作成日,2024/4/1", ""],  # as typed: one field, then two
    ["2024年度 売上一覧,,,", "作成日: 2024/4/1,,,", ",,,"],  # as Excel saves it: padded
])
def test_a_csv_with_title_lines_reads_the_header_under_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, title: list[str]) -> None:
    path = _csv(tmp_path / "売上.csv", [*title, *(",".join(map(str, r)) for r in ROWS)])
    source, profile = _read(path)
    assert (source.delimiter, source.header, profile.header_row) == (",", True, 4)
    _sales_are_read(profile)
    frame = _loaded(path, source, profile, monkeypatch)
    assert list(frame.columns) == ["日付", "商品", "数量", "金額"]
    assert frame["数量"].tolist() == [3, 5, 2, 1]


def test_a_plain_table_reads_row_1_and_a_table_without_header_none(tmp_path: Path) -> None:
    plain = _csv(tmp_path / "a.csv", [",".join(map(str, r)) for r in ROWS])
    assert _read(plain)[1].header_row == 1
    bare = _csv(tmp_path / "b.csv", [",".join(map(str, r)) for r in ROWS[1:]])
    assert _read(bare)[1].header_row is None


@pytest.mark.parametrize("suffix", ["xlsx", "csv"])
def test_header_row_given_is_taken_as_pandas_header_would(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suffix: str) -> None:
    rows = [["社外秘"], ["区分", "値"], *ROWS]  # row 2 looks like a header too; row 3 is it
    path = (_xlsx(tmp_path / "t.xlsx", rows) if suffix == "xlsx" else
            _csv(tmp_path / "t.csv", [",".join(map(str, r)) for r in rows]))
    source, profile = _read(path, header_row=3)
    assert (source.header, profile.header_row) == (True, 3)
    _sales_are_read(profile)
    frame, profiled = _loaded(path, source, profile, monkeypatch), read_frame(path, source)
    assert list(frame.columns) == list(profiled.columns)
    # (the kernel leaves dates as text: the planner's code converts them itself)
    assert frame.drop(columns="日付").equals(profiled.drop(columns="日付"))


@pytest.mark.parametrize("suffix", ["xlsx", "csv"])
def test_a_header_row_past_the_table_or_on_an_empty_row_is_refused(
        tmp_path: Path, suffix: str) -> None:
    rows = [*TITLE, *ROWS]
    path = (_xlsx(tmp_path / "t.xlsx", rows) if suffix == "xlsx" else
            _csv(tmp_path / "t.csv", [",".join(map(str, r)) for r in rows]))
    with pytest.raises(NotATable, match="row 40"):
        _read(path, header_row=40)
    with pytest.raises(NotATable, match="no rows under"):
        _read(path, header_row=8)  # the last row: a header over nothing
    with pytest.raises(UnreadableTable, match="row 3 is empty"):
        _read(path, header_row=3)


def test_a_header_row_with_no_header_is_a_contradiction(tmp_path: Path) -> None:
    path = _csv(tmp_path / "t.csv", [",".join(map(str, r)) for r in ROWS])
    with pytest.raises(UnreadableTable, match="header_row"):
        _read(path, header=False, header_row=2)


def test_a_title_over_a_long_column_of_dates_is_not_taken_for_its_header(
        tmp_path: Path) -> None:
    days = [f"2024-04-{d:02d},店{d % 3},{d * 100}" for d in range(1, 29)]
    path = _csv(tmp_path / "t.csv", ["売上一覧", "日付,店舗,金額", *days])
    _source, profile = _read(path)
    assert (profile.header_row, profile.rows) == (2, 28)


def test_a_table_without_a_header_is_never_cut(tmp_path: Path) -> None:
    rows = ["2024-04-01,,,", *(f"2024-04-{d:02d},店{d},{d},{d * 10}" for d in range(2, 9))]
    _source, profile = _read(_csv(tmp_path / "t.csv", rows))
    assert (profile.header, profile.header_row, profile.rows) == (False, None, 8)
