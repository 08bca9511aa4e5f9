"""Reading files as tables with pandas: profile values, spreadsheets, and what is not a table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shokunin.agents.analyst import (
    NotATable,
    ReadOptions,
    UnreadableTable,
    detect_source,
    profile_file,
)
from shokunin.agents.analyst import dataset as dataset_module
from shokunin.agents.analyst.dataset import read_frame
from tests.agents.analyst.xlsx import write_xlsx

CP932_CSV = (
    "日付,取引先,担当,数量,単価\n"
    "2024-04-01,㈱髙島屋①号店,ﾀﾅｶ,3,1200\n"
    "2024-04-02,山田商店,佐藤,,800\n"
    "2024-04-02,㈱髙島屋①号店,ﾀﾅｶ,7,1500\n"
    "2024-04-05,鈴木工業,佐藤,5,950\n"
)


def _profile(path: Path, **options: object):  # noqa: ANN202
    source = detect_source(path, ReadOptions(**options))
    return profile_file(path, source)


def test_cp932_japanese_csv_profile_has_exact_figures(tmp_path: Path) -> None:
    path = tmp_path / "取引.csv"
    path.write_bytes(CP932_CSV.encode("cp932"))
    source, profile = _profile(path)
    assert (source.encoding.encoding, source.delimiter, source.header) == ("cp932", ",", True)
    assert (profile.rows, profile.column_count, profile.engine) == (4, 5, "pandas")
    columns = {c.name: c for c in profile.columns}
    assert list(columns) == ["日付", "取引先", "担当", "数量", "単価"]
    qty = columns["数量"]
    assert (qty.null_count, qty.null_share, qty.min, qty.max, qty.mean) == (1, 0.25, 3, 7, 5.0)
    assert columns["単価"].mean == (1200 + 800 + 1500 + 950) / 4
    assert (columns["日付"].dtype, columns["日付"].min, columns["日付"].max) == (
        "datetime", "2024-04-01", "2024-04-05")
    client = columns["取引先"]
    assert (client.dtype, client.distinct_count) == ("string", 3)
    assert (client.top_values[0].value, client.top_values[0].count) == ("㈱髙島屋①号店", 2)
    assert profile.sample_rows[0]["担当"] == "ﾀﾅｶ"
    assert json.loads(profile.model_dump_json())["rows"] == 4


def test_euc_jp_tsv_without_header(tmp_path: Path) -> None:
    path = tmp_path / "s.tsv"
    path.write_bytes("東京\t10\t2.5\n大阪\t20\t3.5\n名古屋\t30\t4.0\n".encode("euc_jp"))
    source, profile = _profile(path)
    assert (source.encoding.encoding, source.delimiter, source.header) == ("euc_jp", "\t", False)
    assert [c.name for c in profile.columns] == ["column_1", "column_2", "column_3"]
    assert profile.rows == 3 and profile.columns[1].mean == 20.0


def test_overrides_are_used_as_given(tmp_path: Path) -> None:
    path = tmp_path / "x.csv"
    path.write_bytes(b"a;b\n1;2\n3;4\n")
    source, profile = _profile(path, delimiter=";", header=False, encoding="latin-1")
    assert (source.encoding.method, source.header, profile.rows) == ("override", False, 3)


def test_xlsx_is_read_with_calamine(tmp_path: Path) -> None:
    path = write_xlsx(tmp_path / "売上.xlsx",
                      [["店舗", "売上"], ["東京", 100], ["大阪", 250.5], ["福岡", 80]])
    source, profile = _profile(path)
    assert (source.format, source.header, profile.format, profile.rows) == ("xlsx", True,
                                                                              "xlsx", 3)
    sales = profile.columns[1]
    assert (sales.name, sales.min, sales.max) == ("売上", 80, 250.5)
    assert sales.mean == pytest.approx((100 + 250.5 + 80) / 3)


@pytest.mark.parametrize(("content", "message"), [
    (b"", "empty"),
    (b"  \n\n", "empty"),
    (bytes(range(256)) * 64, "binary"),
    (b"\x89PNG\r\n\x1a\n" + bytes(range(200)) * 20, "binary"),
    ("吾輩は猫である。名前はまだ無い。\nどこで生れたかとんと見当がつかぬ。\n"
     "何でも薄暗いじめじめした所で泣いていた事だけは記憶している。\n".encode(), "no table"),
    (b"name,score\n", "no rows"),
])
def test_what_is_not_a_table(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "bad.csv"
    path.write_bytes(content)
    with pytest.raises(NotATable, match=message):
        _profile(path)


def test_a_zip_that_is_not_a_workbook_is_not_a_table(tmp_path: Path) -> None:
    path = tmp_path / "fake.xlsx"
    path.write_bytes(b"PK\x03\x04" + b"\x00" * 100)
    with pytest.raises(NotATable, match="spreadsheet"):
        _profile(path)


def test_a_wrong_encoding_override_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "x.csv"
    path.write_bytes(CP932_CSV.encode("cp932"))
    with pytest.raises(UnreadableTable, match="utf-8"):
        _profile(path, encoding="utf-8")


def test_ragged_rows_are_a_malformed_table(tmp_path: Path) -> None:
    path = tmp_path / "x.csv"
    path.write_bytes(b"a,b\n1,2\n3,4\n5,6\n7,8\n9,10\n11,12,13,14\n")
    with pytest.raises(UnreadableTable, match="malformed"):
        _profile(path)


def test_late_bytes_that_break_the_head_guess_fall_back_in_order(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the head of a large file is detected on: an ASCII head guesses UTF-8, and CP932
    further down makes the read fall back to CP932, the next candidate."""
    monkeypatch.setattr(dataset_module, "SAMPLE_BYTES", 64)
    body = "id,name\n" + "".join(f"{i},item{i}\n" for i in range(20)) + "99,㈱髙島屋\n"
    path = tmp_path / "late.csv"
    path.write_bytes(body.encode("cp932"))
    source, profile = _profile(path)
    assert (source.encoding.encoding, source.encoding.method) == ("cp932", "cp932")
    assert (profile.rows, profile.encoding, profile.columns[1].distinct_count) == (
        21, "cp932", 21)
    assert read_frame(path, source)["name"].iloc[-1] == "㈱髙島屋"


@pytest.mark.parametrize("delimiter", [",", "；"])  # pandas' C engine, and its Python one
def test_a_cell_of_200000_characters_is_profiled_and_clipped_in_the_profile(
        tmp_path: Path, delimiter: str) -> None:
    path = tmp_path / "long.csv"
    path.write_text(f"id{delimiter}note\n1{delimiter}{'あ' * 200_000}\n2{delimiter}short\n",
                    encoding="utf-8")
    source, profile = _profile(path, delimiter=delimiter)
    assert (profile.rows, profile.column_count) == (2, 2)
    assert len(read_frame(path, source)["note"][0]) == 200_000
    assert len(str(profile.sample_rows[0]["note"])) < 1000  # clipped for the wire
