"""Numbers as a person reads them (issue 49): separators, a few decimals, % for rates, the
currency of a money column, a dash for a missing value."""

from __future__ import annotations

import pytest

from shokunin.agents.analyst.numbers import COUNT, DASH, P_VALUE, PERCENT, amount, places, unit_of
from shokunin.agents.analyst.profile import ColumnProfile


def _column(name: str, dtype: str = "integer", unit: str | None = None) -> ColumnProfile:
    return ColumnProfile(name=name, dtype=dtype,  # type: ignore[arg-type]
                         storage_type="int64", null_count=0, null_share=0.0, distinct_count=1,
                         unit=unit)


def test_amounts_have_separators_and_sensible_decimals() -> None:
    assert amount(1001300) == "1,001,300"
    assert amount(211.1111) == "211.11"  # not 211.1111
    assert amount(0.87305, decimals=None) == "0.873"
    assert amount(-8.2345, PERCENT, sign=True) == "-8.2%"
    assert amount(3, PERCENT, sign=True) == "+3.0%"
    assert amount(-0.0001, PERCENT, sign=True) == "0.0%"  # never "-0.0%"
    assert amount(float("nan")) == amount(None) == DASH
    assert amount(420, COUNT) == "420 件" and amount(420, COUNT, ja=False) == "420"
    assert amount(3e-9, P_VALUE) == "< 0.0001" and amount(0.04213, P_VALUE) == "0.0421"


def test_one_column_keeps_one_number_of_decimals() -> None:
    assert places([1, 2.0, 3]) == 0
    assert places([1.5, 1200.25]) == 2
    assert places([0.5, 0.25]) == 3 and places([0.001, 0.0002]) == 4
    assert places([12.34], PERCENT) == 1 and places([3.5], COUNT) == 0


@pytest.mark.parametrize(("name", "column", "ja", "shown"), [
    ("売上高", None, True, "1,001,300 円"),  # a Japanese money word: yen
    ("給与", None, False, "¥1,001,300"),
    ("金額（円）", None, True, "1,001,300 円"),
    ("price_usd", None, True, "$1,001,300"),
    ("sales", _column("sales"), True, "1,001,300"),  # an English header: no currency guessed
    ("revenue", _column("revenue", "float"), True, "1,001,300"),  # pence or cents: no guess
    ("revenue", _column("revenue"), False, "1,001,300"),
    ("数量", None, True, "1,001,300"),  # not money
    ("仕入先", None, True, "1,001,300"),  # a supplier, not a purchase
    ("料金", _column("料金", unit="$"), True, "$1,001,300"),  # the unit the reading recorded
    ("達成率", _column("達成率", "float", unit="%"), True, "1,001,300.0%"),
    ("距離", _column("距離", "float", unit="km"), True, "1,001,300 km"),
])
def test_money_is_shown_in_its_currency_when_it_is_known(
        name: str, column: ColumnProfile | None, ja: bool, shown: str) -> None:
    assert amount(1001300, unit_of(name, column, ja), ja=ja) == shown
