"""Delimiter and header detection on a decoded sample of a text table.

``csv.Sniffer`` guesses from character frequencies and is easily fooled by Japanese text
(full-width punctuation, long cells). The rules here are small and explicit:

* **delimiter**: each of comma, tab, semicolon and pipe splits the sample (quotes honoured);
  the one whose rows most often have the same field count (at least two fields) wins, then
  the one giving more fields, then the order above;
* **header**: the first row is a header when its cells are labels (neither numbers nor
  dates) standing over columns whose other cells are mostly numbers or dates; a table of
  text only has a header when the first row's cells are distinct and none recurs below.

Either can be given by the caller instead.

A cell may be as long as the file it is in: the csv module's own limit (131,072
characters) is lifted to that length while a file is split (``fields_up_to``).
"""

from __future__ import annotations

import contextlib
import csv
import io
import re
import unicodedata
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from shokunin.agents.analyst.errors import NotATable, UnreadableTable

DELIMITERS = (",", "\t", ";", "|")
MIN_CONSISTENCY = 0.8  # share of rows with the modal field count for a delimiter to count
TYPED_SHARE = 0.8  # share of a column's cells that must be numbers or dates to type it
MAX_SAMPLE_ROWS = 1000
EMPTY = frozenset({"", "na", "n/a", "nan", "null", "none", "-", "--", "—"})

_NUMBER = re.compile(r"^[+-]?(\d{1,3}(,\d{3})+|\d+)?(\.\d+)?([eE][+-]?\d+)?%?$")
_DATE = re.compile(r"^\d{4}([-/.年])\d{1,2}(\1\d{1,2})?(日|月)?([ T]\d{1,2}:\d{2}(:\d{2})?)?$"
                   r"|^\d{1,2}:\d{2}(:\d{2})?$")


@dataclass(frozen=True)
class Dialect:
    delimiter: str
    header: bool


def is_empty(cell: str) -> bool:
    return cell.strip().lower() in EMPTY


def is_typed(cell: str) -> bool:
    """Whether a cell reads as a number (full-width digits, currency signs and thousands
    separators allowed) or a date/time."""
    text = unicodedata.normalize("NFKC", cell).strip().lstrip("¥$€£").replace("円", "")
    if not text:
        return False
    return bool(any(ch.isdigit() for ch in text) and _NUMBER.match(text)) or bool(
        _DATE.match(text))


@contextlib.contextmanager
def fields_up_to(chars: int) -> Iterator[None]:
    """Let the csv module (and pandas' Python engine, which uses it) read fields of up to
    ``chars`` characters while in this block; its limit is restored after. Given the length
    of the text being split, it refuses no cell and admits none longer than that text,
    which is already in memory (or bounded by the parse's own limits)."""
    before = csv.field_size_limit()
    csv.field_size_limit(max(before, chars))
    try:
        yield
    finally:
        csv.field_size_limit(before)


def parse_rows(sample: str, delimiter: str, complete: bool) -> list[list[str]]:
    """The sample's non-blank rows split by ``delimiter``; the last row of an incomplete
    sample is dropped, as it may be cut."""
    rows = []
    try:
        with fields_up_to(len(sample)):
            for row in csv.reader(io.StringIO(sample, newline=""), delimiter=delimiter):
                if any(cell.strip() for cell in row):
                    rows.append(row)
                if len(rows) > MAX_SAMPLE_ROWS:
                    break
            else:
                if not complete and len(rows) > 1:
                    rows.pop()
    except csv.Error as exc:  # a NUL, a quote where none may be...
        raise UnreadableTable(f"the table is malformed: {exc}") from None
    return rows[:MAX_SAMPLE_ROWS]


def _consistency(rows: list[list[str]]) -> tuple[float, int]:
    counts = Counter(len(row) for row in rows)
    modal, hits = max(counts.items(), key=lambda item: (item[1], item[0]))
    return hits / len(rows), modal


def sniff_delimiter(sample: str, *, complete: bool = True) -> str | None:
    """The delimiter of the sample, or None when no candidate splits it into consistent
    rows of two or more fields."""
    best: tuple[float, int, int] | None = None
    chosen = None
    for rank, delimiter in enumerate(DELIMITERS):
        rows = parse_rows(sample, delimiter, complete)
        if not rows:
            continue
        share, modal = _consistency(rows)
        if modal < 2 or share < MIN_CONSISTENCY:
            continue
        score = (share, modal, -rank)
        if best is None or score > best:
            best, chosen = score, delimiter
    return chosen


def sniff_header(rows: list[list[str]]) -> bool:
    """Whether the first of ``rows`` is a header (see the module docstring)."""
    if len(rows) < 2:
        return bool(rows) and not any(is_typed(cell) for cell in rows[0])
    first, body = rows[0], rows[1:]
    if any(is_typed(cell) for cell in first):
        return False
    typed_columns = []
    for index in range(len(first)):
        cells = [row[index] for row in body if index < len(row) and not is_empty(row[index])]
        if cells and sum(map(is_typed, cells)) >= TYPED_SHARE * len(cells):
            typed_columns.append(index)
    if typed_columns:
        return any(not is_empty(first[index]) for index in typed_columns)
    labels = [cell.strip() for cell in first]
    if any(not label for label in labels) or len(set(labels)) != len(labels):
        return False
    return not any(index < len(row) and row[index].strip() == label
                   for row in body for index, label in enumerate(labels))


def _one_column_of_values(sample: str, complete: bool) -> bool:
    """A file with no delimiter is still a table when it is one column of numbers or dates
    (under an optional label); prose is not."""
    lines = [line for line in sample.splitlines() if line.strip()]
    if not complete and len(lines) > 1:
        lines.pop()
    body = [line.strip().strip('"') for line in lines[1:MAX_SAMPLE_ROWS] if not is_empty(line)]
    return len(body) >= 1 and sum(map(is_typed, body)) >= TYPED_SHARE * len(body)


def sniff(sample: str, *, delimiter: str | None = None, header: bool | None = None,
          complete: bool = True) -> Dialect:
    """The dialect of a decoded sample; ``delimiter`` and ``header`` override detection.
    Raises ``NotATable`` when no delimiter is given or found and the text is not one
    column of values."""
    if delimiter is None:
        delimiter = sniff_delimiter(sample, complete=complete)
        if delimiter is None:
            if not _one_column_of_values(sample, complete):
                raise NotATable(
                    "no table found: no comma, tab, semicolon or pipe splits the lines into "
                    "the same number of fields (pass delimiter to read it anyway)")
            delimiter = ","
    if header is None:
        header = sniff_header(parse_rows(sample, delimiter, complete))
    return Dialect(delimiter=delimiter, header=header)
