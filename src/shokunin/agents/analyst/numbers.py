"""Numbers as a person reads them: thousands separators, a few sensible decimals (211.11,
not 211.1111), percent for rates, the currency of a money column, a dash for a missing value.

A column is money when its profile records a currency unit (values read as ¥1,200), when
its name carries one (売上（円）, price_usd), or when its name is a money word (売上, 金額,
単価, 給与, price, revenue, sales). A Japanese money word is yen; an English one is yen only
in a Japanese answer about whole numbers (a table of pence or cents is not yen), and
otherwise shown as money without a symbol rather than with a guessed one.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

DASH = "—"
Kind = Literal["plain", "money", "percent", "count", "p"]

_JA_MONEY = re.compile(r"売上|売り上げ|額|単価|価格|値段|給与|給料|賃金|報酬|年収|月収|"
                       r"費用|経費|原価|利益|粗利|収入|支出|料金|代金|予算|売値|"
                       r"支払|請求|手当|賞与")
_EN_MONEY = re.compile(r"(?<![a-z])(price|prices|revenue|revenues|sales|amount|cost|costs|"
                       r"salary|salaries|wage|wages|income|profit|spend|spending|fee|fees|"
                       r"payment|budget|turnover|earnings|pay)(?![a-z])", re.I)
# a currency named in a column's name or recorded as its unit: (symbol, before the number)
_CURRENCIES = ((re.compile(r"円|¥|￥|\byen\b|\bjpy\b", re.I), ("円", False)),
               (re.compile(r"\$|\busd\b|dollar", re.I), ("$", True)),
               (re.compile(r"€|\beur\b|euro", re.I), ("€", True)),
               (re.compile(r"£|\bgbp\b|pound", re.I), ("£", True)))
_NAMED_UNIT = re.compile(r"[（(]\s*([^()（）]{1,8}?)\s*[)）]\s*$|[_ ](jpy|usd|eur|gbp|yen)$", re.I)


@dataclass(frozen=True)
class Unit:
    """How a column's values are written: ``kind``, and a symbol (円, $, kg) for money or
    a unit, before the number or after it."""

    kind: Kind = "plain"
    symbol: str = ""
    before: bool = False

    @property
    def money(self) -> bool:
        return self.kind == "money"


PLAIN, PERCENT, COUNT, P_VALUE = Unit(), Unit("percent"), Unit("count"), Unit("p")


def _currency(text: str) -> tuple[str, bool] | None:
    return next((found for pattern, found in _CURRENCIES if pattern.search(text)), None)


def unit_of(name: str, column: Any = None, ja: bool = False) -> Unit:
    """How the values of the column ``name`` (its profile ``column``, when known) are
    written in an answer in Japanese (``ja``) or English."""
    recorded = str(getattr(column, "unit", None) or "").strip()
    if recorded == "%":
        return PERCENT
    if recorded:
        currency = _currency(recorded)
        return Unit("money", *currency) if currency else Unit("plain", recorded)
    named = _NAMED_UNIT.search(name)
    if named:
        said = named.group(1) or named.group(2)
        currency = _currency(said)
        if currency:
            return Unit("money", *currency)
        if said.strip() == "%":
            return PERCENT
    if _JA_MONEY.search(name):
        return Unit("money", "円")
    if _EN_MONEY.search(name):  # money in a currency the table does not say: none is guessed
        return Unit("money")
    return PLAIN


def _finite(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def places(values: Iterable[Any], unit: Unit = PLAIN) -> int:
    """The decimals one column is written with: none for whole numbers and counts, one for
    percentages, two for other numbers from 1 up, three or four below."""
    numbers = [v for v in map(_finite, values) if v is not None]
    if unit.kind == "count" or not numbers:
        return 0
    if unit.kind == "percent":
        return 1
    if all(abs(v - round(v)) < 1e-9 for v in numbers):
        return 0
    largest = max(abs(v) for v in numbers)
    return 2 if largest >= 1 or unit.money else 3 if largest >= 0.01 else 4


def number(value: float, decimals: int = 2, sign: bool = False) -> str:
    """``value`` with thousands separators and ``decimals`` decimals (never "-0.0")."""
    text = f"{value:{'+' if sign else ''},.{decimals}f}"
    return text.lstrip("+-") if float(text.replace(",", "")) == 0 else text


def amount(value: Any, unit: Unit = PLAIN, decimals: int | None = None, ja: bool = True,
           sign: bool = False) -> str:
    """One value as shown: a number in its unit, text as written, a dash for nothing."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return DASH
    if isinstance(value, bool):
        return ("はい" if value else "いいえ") if ja else ("yes" if value else "no")
    if not isinstance(value, (int, float)):
        return str(value)
    if unit.kind == "p":
        return "< 0.0001" if value < 0.0001 else number(value, 4)
    shown = number(float(value), places([value], unit) if decimals is None else decimals, sign)
    if unit.kind == "percent":
        return f"{shown}%"
    symbol, before = unit.symbol, unit.before
    if symbol == "円" and not ja:
        symbol, before = "¥", True
    if symbol and before:
        negative = shown.startswith("-")
        return f"{'-' if negative else ''}{symbol}{shown.lstrip('+-')}"
    if symbol:
        return f"{shown} {symbol}"
    if unit.kind == "count" and ja:
        return f"{shown} 件"
    return shown
