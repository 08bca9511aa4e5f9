"""Numbers written as text: ``1,234``, ``12.5%``, ``¥1,200``, ``1,200円``, ``$3.5``, ``3 km``,
``−5`` (U+2212), ``▲5`` (a negative in Japanese accounts), full-width ``１２３``.

A column is numbers when nearly every non-empty cell (``TEXT_NUMBER_SHARE``) is a number
once one unit is taken off: a currency sign before it, or a unit after it (%, 円, km, 人),
the same in every cell that has one. Percentages keep the number as written (12.5 for 12.5%).
Codes and dates stay text: a number with a leading zero (00123), a phone or postal number
(03-1234-5678, 123-4567), a date or time (2024/4/1, 12:30), a calendar word (2024年, 4月).

The server profiles with this module, and the kernel's loader runs its very source (sent as
text by ``kernel_code``), so both read a column alike. It therefore stands alone: no import
from shokunin, nothing the sandbox's policy refuses (not even a dunder name in this text),
no future import (the cell's own code comes before it), and pandas imported where used.
"""

import re
import unicodedata
from collections import Counter

TEXT_NUMBER_SHARE = 0.95  # of a column's non-empty cells that must be numbers with its unit
TEXT_NUMBER_EMPTY = frozenset({"", "-", "--", "—", "―", "na", "n/a", "nan", "null", "none"})
# words after a number that make it a date, a time or a name, not a quantity
TEXT_NUMBER_NOT_UNITS = frozenset({
    "年", "月", "日", "時", "年度", "号", "番", "番地", "丁目", "号室", "号館", "号店", "期"})
_TEXT_NUMBER = re.compile(
    r"^(?P<sign>[-+]?)\s*(?P<before>[¥$€£₩])?\s*(?P<sign2>[-+]?)"
    r"(?P<digits>\d{1,3}(?:,\d{3})+|\d+)?(?P<fraction>\.\d+)?(?P<exponent>[eE][-+]?\d+)?"
    r"\s*(?P<after>%|‰|°[CF]?|[^\W\d_][^\W_]{0,7}(?:/[^\W\d_]{1,4})?)?$")
_TEXT_NUMBER_CODE = re.compile(r"^0\d+$")
_MINUS = str.maketrans({"\u2212": "-", "\u2010": "-", "\u2013": "-", "▲": "-", "△": "-",
                        "\u00a0": " "})


def parse_text_number(value):
    """``(number, unit)`` for a cell that is a number written as text (the unit "" when it
    has none), else None. A cell that pandas already read as a number is one, unitless."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return None if value != value else (float(value), "")
    if not isinstance(value, str):
        return None
    text = unicodedata.normalize("NFKC", value).translate(_MINUS).strip()
    match = _TEXT_NUMBER.match(text)
    if match is None or (match["digits"] is None and match["fraction"] is None):
        return None
    if match["sign"] and match["sign2"]:
        return None
    digits = match["digits"] or "0"
    if len(digits) > 1 and digits[0] == "0":
        return None  # a code: 00123 keeps its zeros
    unit = match["before"] or match["after"] or ""
    if match["before"] and match["after"] or unit in TEXT_NUMBER_NOT_UNITS:
        return None
    number = float(digits.replace(",", "") + (match["fraction"] or "")
                   + (match["exponent"] or ""))
    return (-number if "-" in (match["sign"] + match["sign2"]) else number), unit


def _text_number_blank(value):
    if value is None or (isinstance(value, float) and value != value):
        return True
    return isinstance(value, str) and (
        unicodedata.normalize("NFKC", value).strip().lower() in TEXT_NUMBER_EMPTY)


def text_number_unit(series):
    """The unit of a column of numbers written as text ("" for none), or None when it is
    not one: empty, too few cells numbers, two units, codes (a cell with a leading zero),
    or already numbers throughout. Each distinct value is parsed once, and a column of
    words is given up at its first few."""
    cells = {key: count for key, count in Counter(
        (type(value), value) for value in series.tolist()).items()
        if not _text_number_blank(key[1])}  # by type too: True == 1, but True is no number
    total = sum(cells.values())
    if not total or not any(isinstance(value, str) for _type, value in cells):
        return None
    allowed, failed, units = (1 - TEXT_NUMBER_SHARE) * total, 0, set()
    for (_type, value), count in cells.items():
        if isinstance(value, str) and _TEXT_NUMBER_CODE.match(
                unicodedata.normalize("NFKC", value).strip()):
            return None  # codes: one with a leading zero makes the column codes
        found = parse_text_number(value)
        if found is None:
            failed += count
            if failed > allowed:
                return None
        elif found[1]:
            units.add(found[1])
            if len(units) > 1:
                return None
    return units.pop() if units else ""


def text_to_numbers(series, unit):
    """The column as numbers: each cell that is a number with ``unit`` (or none), the others
    missing. Whole numbers in a column with nothing missing are integers, as pandas reads
    them."""
    read = {}  # by type too: True == 1, but True is no number
    values = []
    for value in series.tolist():
        key = (type(value), value)
        if key not in read:
            found = None if _text_number_blank(value) else parse_text_number(value)
            read[key] = found[0] if found is not None and found[1] in ("", unit) else None
        values.append(read[key])
    import pandas as pd  # here: the web server imports this module, and parses nothing

    numbers = pd.Series(values, index=series.index, name=series.name, dtype="float64")
    if len(numbers) and numbers.notna().all() and (numbers % 1 == 0).all():
        return numbers.astype("int64")
    return numbers


def read_text_numbers(frame, columns):
    """``frame`` with each of ``columns`` ((position, unit) pairs) read as numbers."""
    for position, unit in columns:
        frame.isetitem(position, text_to_numbers(frame.iloc[:, position], unit))
    return frame
