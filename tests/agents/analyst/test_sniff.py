"""Delimiter and header detection on Japanese and English samples."""

from __future__ import annotations

import csv

import pytest

from shokunin.agents.analyst.errors import NotATable
from shokunin.agents.analyst.sniff import Dialect, parse_rows, sniff

SALES = [["年月", "店舗", "売上高（円）", "客数"], ["2024-01", "東京・本店", "1,234,000", "310"],
         ["2024-02", "大阪、梅田店", "987,500", "275"], ["2024-03", "名古屋店", "1,020,000", "290"]]


def _text(rows: list[list[str]], delimiter: str) -> str:
    def cell(value: str) -> str:
        return f'"{value}"' if delimiter in value or "," in value else value
    return "".join(delimiter.join(cell(v) for v in row) + "\n" for row in rows)


@pytest.mark.parametrize("delimiter", [",", "\t", ";", "|"])
def test_each_delimiter_is_found_in_japanese_text(delimiter: str) -> None:
    dialect = sniff(_text(SALES, delimiter))
    assert (dialect.delimiter, dialect.header) == (delimiter, True)


def test_commas_inside_cells_do_not_beat_the_tab() -> None:
    rows = [["name", "comment"], ["a", "good, fast, cheap"], ["b", "slow, dear"],
            ["c", "fine"]]
    text = "".join("\t".join(row) + "\n" for row in rows)
    assert sniff(text).delimiter == "\t"


def test_a_first_row_of_numbers_is_no_header() -> None:
    text = "2024-01,東京,1200,31\n2024-02,大阪,980,27\n2024-03,名古屋,1020,29\n"
    assert sniff(text).header is False


def test_text_table_header_is_a_row_of_distinct_labels_not_repeated_below() -> None:
    assert sniff("名前,都市\n佐藤,東京\n鈴木,大阪\n").header is True
    assert sniff("佐藤,東京\n鈴木,大阪\n高橋,東京\n").header is False


def test_full_width_digits_and_yen_count_as_numbers() -> None:
    assert sniff("品目,金額\nりんご,￥１，２００\nみかん,８００円\n").header is True


def test_overrides_win_over_detection() -> None:
    dialect = sniff(_text(SALES, ","), delimiter=";", header=False)
    assert (dialect.delimiter, dialect.header) == (";", False)


def test_prose_is_not_a_table() -> None:
    prose = ("吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。\n"
             "何でも薄暗いじめじめした所でニャーニャー泣いていた事だけは記憶している。\n"
             "It was a bright cold day in April, and the clocks were striking thirteen.\n")
    with pytest.raises(NotATable, match="no table found"):
        sniff(prose)


def test_one_column_of_numbers_is_a_table() -> None:
    dialect = sniff("気温\n12.5\n13.1\n11.8\n")
    assert (dialect.delimiter, dialect.header) == (",", True)


def test_a_cell_past_the_csv_modules_131072_character_limit_is_read_and_the_limit_kept(
        ) -> None:
    before = csv.field_size_limit()
    sample = "id,note\n1," + "x" * 200_000 + "\n2,short\n3,ok\n"
    assert sniff(sample) == Dialect(delimiter=",", header=True)
    assert [len(row[1]) for row in parse_rows(sample, ",", complete=True)][1] == 200_000
    assert csv.field_size_limit() == before  # lifted only while the sample is split
