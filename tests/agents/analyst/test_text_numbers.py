"""Numbers written as text (1,234 / 12.5% / ¥1,200 / 1,200円 / $3.5 / 3 km / −5 / １２３)
are read as numbers with their unit, by the profile and by the kernel's loader alike; codes,
phone numbers, postal codes and dates stay text."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import openpyxl
import pandas as pd
import pytest

from shokunin.agents.analyst import ReadOptions, detect_source, kernel_code, profile_file
from shokunin.agents.analyst.dataset import read_frame
from shokunin.agents.analyst.storage import DatasetRecord
from shokunin.agents.analyst.text_numbers import text_number_unit, text_to_numbers
from shokunin.config import Settings
from shokunin.sandbox.policy import check_policy

FORMS = [
    (["1,234", "56", "7,890,000"], "", [1234, 56, 7890000]),
    (["12.5%", "3%", "100%"], "%", [12.5, 3.0, 100.0]),
    (["¥1,200", "￥300", "¥ 5,000"], "¥", [1200, 300, 5000]),
    (["1,200円", "300円", "5,000 円"], "円", [1200, 300, 5000]),
    (["$3.5", "$10", "-$2.25"], "$", [3.5, 10.0, -2.25]),
    (["3 km", "12.5 km", "0.8km"], "km", [3.0, 12.5, 0.8]),
    (["−5", "3", "−1.5"], "", [-5.0, 3.0, -1.5]),  # U+2212, the typographic minus
    (["１２３", "４５", "－６"], "", [123, 45, -6]),  # full-width digits and minus
    (["▲1,200", "300", "△50"], "", [-1200, 300, -50]),  # Japanese accounts' negatives
]


@pytest.mark.parametrize(("cells", "unit", "numbers"), FORMS)
def test_each_form_is_a_number_with_its_unit(cells: list[str], unit: str,
                                             numbers: list[float]) -> None:
    series = pd.Series([*cells, None, "-"], dtype=object)  # blanks stay missing
    assert text_number_unit(series) == unit
    converted = text_to_numbers(series, unit)
    assert converted.tolist()[:-2] == numbers and converted.iloc[-2:].isna().all()


@pytest.mark.parametrize("cells", [
    ["00123", "00456", "01000"],  # zero-padded codes
    ["03-1234-5678", "090-1234-5678", "06-6123-4567"],  # phone numbers
    ["123-4567", "530-0001", "100-0005"],  # postal codes
    ["2024/4/1", "2024/4/2", "2024/5/10"], ["2024-04-01", "2024-04-02", "2024-05-10"],
    ["2024年", "2023年", "2022年"], ["4月", "5月", "6月"],  # dates, not quantities
    ["3 km", "5 kg", "2 km"],  # no one unit
    ["東京", "大阪", "3"],  # text with a number in it
    ["12:30", "13:45", "09:00"],
])
def test_codes_dates_and_mixed_units_stay_text(cells: list[str]) -> None:
    assert text_number_unit(pd.Series(cells, dtype=object)) is None


def test_a_stray_word_among_many_numbers_becomes_missing_but_half_and_half_stays_text(
        ) -> None:
    many = pd.Series([f"{i:,}円" for i in range(1000, 40000, 1000)] + ["不明"], dtype=object)
    assert text_number_unit(many) == "円"
    assert text_to_numbers(many, "円").isna().sum() == 1
    assert text_number_unit(pd.Series(["1,000円", "不明", "2,000円", "なし"], dtype=object)) is None


def test_a_csv_and_an_xlsx_of_text_numbers_are_profiled_and_loaded_as_numbers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = [["店舗", "売上", "達成率", "距離", "郵便番号", "コード"],
            ["東京", "¥1,200", "12.5%", "3 km", "100-0005", "00123"],
            ["大阪", "¥980", "101%", "12.5 km", "530-0001", "00456"],
            ["福岡", "¥2,345", "87.5%", "0.8 km", "810-0001", "00789"]]
    csv = tmp_path / "a.csv"
    csv.write_text("".join(",".join(f'"{c}"' for c in r) + "\n" for r in rows), "utf-8")
    book = openpyxl.Workbook()
    for row in rows:
        book.active.append(row)
    book.save(xlsx := tmp_path / "a.xlsx")
    for path in (csv, xlsx):
        source = detect_source(path, ReadOptions())
        source, profile = profile_file(path, source)
        by_name = {c.name: c for c in profile.columns}
        assert [(by_name[n].dtype, by_name[n].unit) for n in ("売上", "達成率", "距離")] == [
            ("integer", "¥"), ("float", "%"), ("float", "km")]
        assert by_name["売上"].mean == pytest.approx((1200 + 980 + 2345) / 3)
        assert by_name["郵便番号"].dtype == "string" and by_name["郵便番号"].unit is None
        assert by_name["コード"].dtype == "string"  # 00123 keeps its zeros
        assert profile.sample_rows[0]["達成率"] == 12.5
        assert read_frame(path, source, nrows=1)["売上"].tolist() == [1200]  # a preview too
        frame = _loaded(path, source, profile, monkeypatch)
        assert frame["売上"].tolist() == [1200, 980, 2345]
        assert frame["達成率"].tolist() == [12.5, 101.0, 87.5]
        assert frame["コード"].tolist() == ["00123", "00456", "00789"]


def test_the_loaders_reading_passes_the_sandboxs_policy(tmp_path: Path) -> None:
    path = tmp_path / "a.csv"
    path.write_text("店舗,売上,コード\n東京,\"¥1,200\",001\n大阪,¥980,002\n", "utf-8")
    source, profile = profile_file(path, detect_source(path, ReadOptions()))
    record = _record(path, source, profile)
    loading = kernel_code.loader(record).replace(kernel_code.CELL_HELPERS, "")
    assert "read_text_numbers(df, [[1, " in loading and "dtype={2: str}" in loading
    allowed = Settings(data_dir=tmp_path).sandbox_allowed_imports
    assert check_policy(loading, allowed) == []


def _record(path: Path, source: Any, profile: Any) -> DatasetRecord:
    return DatasetRecord(
        id="d1", thread_id="t1", original_name=path.name, size_bytes=1, format=source.format,
        encoding=source.encoding.encoding if source.encoding else None, encoding_method=None,
        delimiter=source.delimiter, header=source.header, engine="pandas",
        path=f"datasets/d1/data{path.suffix}", parquet_path=None,
        created_at=datetime.now(UTC), profile=profile)


def _loaded(path: Path, source: Any, profile: Any, monkeypatch: pytest.MonkeyPatch
            ) -> pd.DataFrame:
    """``df`` as the kernel's loader makes it (the loader's code run here)."""
    folder = path.parent / f"ws-{path.suffix[1:]}"
    (folder / "datasets" / "d1").mkdir(parents=True)
    (folder / "datasets" / "d1" / f"data{path.suffix}").write_bytes(path.read_bytes())
    record = _record(path, source, profile)
    monkeypatch.chdir(folder)
    scope: dict[str, Any] = {}
    exec(kernel_code.loader(record), scope)  # noqa: S102 - the code the kernel would run
    return scope["df"]
