"""Delimiter and header detection on a decoded sample of a text table.

``csv.Sniffer`` guesses from character frequencies and is easily fooled by Japanese text
(full-width punctuation, long cells). The rules here are small and explicit:

* **delimiter**: each of comma, tab, semicolon and pipe splits the sample (quotes honoured);
  the one whose rows most often have the same field count (at least two fields) wins, then
  the one giving more fields, then the order above;
* **header**: the first row is a header when its cells are labels (neither numbers nor
  dates) standing over columns whose other cells are mostly numbers or dates; a table of
  text only has a header when the first row's cells are distinct and none recurs below;
* **title lines** (「2024年度 売上一覧」, a date line, blank lines, as Japanese business
  files have above their table): leading rows with at most half as many filled cells as
  the rows under them (and at most ``MAX_TITLE_ROWS``) are skipped when the row after them
  is a header; pandas then reads from that row (``skiprows``), which the profile names;
* **codes**: a column of digits, one of them with a leading zero (00123), is text.

Each can be given by the caller instead (``header_row`` names the header's row, from 1).

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
MAX_TITLE_ROWS = 10  # rows above a table that may be skipped as its title
MIN_CONSISTENCY = 0.8  # share of rows with the modal field count for a delimiter to count
TYPED_SHARE = 0.8  # share of a column's cells that must be numbers or dates to type it
MAX_SAMPLE_ROWS = 1000
EMPTY = frozenset({"", "na", "n/a", "nan", "null", "none", "-", "--", "—"})

_NUMBER = re.compile(r"^[+-]?(\d{1,3}(,\d{3})+|\d+)?(\.\d+)?([eE][+-]?\d+)?%?$")
_CODE = re.compile(r"^0\d+$")
_DIGITS = re.compile(r"^\d+$")
_DATE = re.compile(r"^\d{4}([-/.年])\d{1,2}(\1\d{1,2})?(日|月)?([ T]\d{1,2}:\d{2}(:\d{2})?)?$"
                   r"|^\d{1,2}:\d{2}(:\d{2})?$")


@dataclass(frozen=True)
class Dialect:
    delimiter: str
    header: bool
    skip_rows: int = 0  # lines above the table (its header, or its first row without one)
    codes: tuple[int, ...] = ()  # positions of columns of codes, read as text


@dataclass(frozen=True)
class Layout:
    """Where a table starts in its rows, and what in it is not what pandas would guess."""

    header: bool
    skip_rows: int
    codes: tuple[int, ...]


Row = tuple[int, list[str]]  # a row's index in the file (line) or sheet, and its cells


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


def parse_lines(sample: str, delimiter: str, complete: bool) -> list[Row]:
    """The sample's non-blank rows split by ``delimiter``, each with the line it starts on
    (from 0); the last row of an incomplete sample is dropped, as it may be cut."""
    rows: list[Row] = []
    try:
        with fields_up_to(len(sample)):
            reader = csv.reader(io.StringIO(sample, newline=""), delimiter=delimiter)
            line = 0
            for row in reader:
                if any(cell.strip() for cell in row):
                    rows.append((line, row))
                line = reader.line_num
                if len(rows) > MAX_SAMPLE_ROWS:
                    break
            else:
                if not complete and len(rows) > 1:
                    rows.pop()
    except csv.Error as exc:  # a NUL, a quote where none may be...
        raise UnreadableTable(f"the table is malformed: {exc}") from None
    return rows[:MAX_SAMPLE_ROWS]


def parse_rows(sample: str, delimiter: str, complete: bool) -> list[list[str]]:
    """The sample's non-blank rows split by ``delimiter`` (see ``parse_lines``)."""
    return [cells for _line, cells in parse_lines(sample, delimiter, complete)]


def _consistency(rows: list[list[str]]) -> tuple[float, int]:
    """The share of rows with the modal field count, and that count. Title lines above the
    table (fewer fields: a one-cell title, a date line) are not counted."""
    counts = Counter(len(row) for row in rows)
    modal, _hits = max(counts.items(), key=lambda item: (item[1], item[0]))
    lead = 0
    while lead < min(MAX_TITLE_ROWS, len(rows) - 1) and len(rows[lead]) < modal:
        lead += 1
    body = rows[lead:]
    return sum(len(row) == modal for row in body) / len(body), modal


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


def _filled(row: list[str]) -> int:
    return sum(not is_empty(cell) for cell in row)


def table_start(rows: list[list[str]]) -> int:
    """How many of the (non-blank) ``rows`` are title lines above the table's header: the
    leading rows with at most half as many filled cells as most rows under them (a title,
    a note), then rows that hold a number or a date and so cannot be a header (a date
    line: 作成日, 2024/4/1), up to the first row that is a header over the rows under it.
    0 when no such header is found: a headerless table is never cut."""
    filled = [_filled(row) for row in rows]
    limit = min(MAX_TITLE_ROWS, len(rows) - 2)

    def sparse(index: int) -> bool:
        below = sorted(filled[index + 1:index + 1 + MAX_SAMPLE_ROWS // 10])
        width = below[len(below) // 2]
        return width >= 2 and filled[index] <= max(1, width // 2)

    start = 0
    while start < limit and sparse(start):
        start += 1
    for index in range(start, limit + 1):
        if sniff_header(rows[index:]):
            return index
        if not (sparse(index) or any(is_typed(cell) for cell in rows[index])):
            break
    return 0


def code_columns(body: list[list[str]]) -> tuple[int, ...]:
    """The columns of ``body`` (rows under the header) that are codes: digits only, one of
    them with a leading zero (00123, a shop or postal code pandas would read as 123)."""
    width = max((len(row) for row in body), default=0)
    codes = []
    for index in range(width):
        cells = [row[index].strip() for row in body
                 if index < len(row) and not is_empty(row[index])]
        if (cells and any(_CODE.match(cell) for cell in cells)
                and all(_DIGITS.match(cell) for cell in cells)):
            codes.append(index)
    return tuple(codes)


def layout(rows: list[Row], *, header: bool | None, header_row: int | None,
           lines: int | None) -> Layout:
    """Where the table starts among ``rows`` (its non-blank rows with their index in the
    file or sheet), whether it has a header, and its code columns. ``header_row`` (from 1)
    names the header's row; ``lines``, when the sample is the whole file, how many rows it
    has. Raises ``NotATable``/``UnreadableTable`` for a ``header_row`` that names no row,
    an empty one, or the last."""
    if header_row is not None:
        if header is False:
            raise UnreadableTable("header_row names the row of the column names, but header "
                                  "is false: leave one of them out")
        index = header_row - 1
        start = next((i for i, (at, _cells) in enumerate(rows) if at == index), None)
        if start is None:
            if lines is not None and index >= lines:
                raise NotATable(f"there is no row {header_row}: the file has {lines} rows "
                                "(header_row counts rows from 1, as a spreadsheet does)")
            if lines is not None or (rows and index < rows[-1][0]):
                raise UnreadableTable(f"row {header_row} is empty: header_row must name the "
                                      "row that holds the column names")
            return Layout(header=True, skip_rows=index, codes=())  # past the sample
        if start == len(rows) - 1 and lines is not None:
            raise NotATable(f"the table has no rows under its header (row {header_row})")
        cells = [row for _at, row in rows]
        return Layout(header=True, skip_rows=index, codes=code_columns(cells[start + 1:]))
    if not rows:
        return Layout(header=bool(header), skip_rows=0, codes=())
    cells = [row for _at, row in rows]
    start = table_start(cells) if header is not False else 0
    if header is None:
        header = sniff_header(cells[start:])
    body = cells[start + 1:] if header else cells[start:]
    return Layout(header=header, skip_rows=rows[start][0], codes=code_columns(body))


def _one_column_of_values(sample: str, complete: bool) -> bool:
    """A file with no delimiter is still a table when it is one column of numbers or dates
    (under an optional label); prose is not."""
    lines = [line for line in sample.splitlines() if line.strip()]
    if not complete and len(lines) > 1:
        lines.pop()
    body = [line.strip().strip('"') for line in lines[1:MAX_SAMPLE_ROWS] if not is_empty(line)]
    return len(body) >= 1 and sum(map(is_typed, body)) >= TYPED_SHARE * len(body)


def sniff(sample: str, *, delimiter: str | None = None, header: bool | None = None,
          header_row: int | None = None, complete: bool = True) -> Dialect:
    """The dialect of a decoded sample; ``delimiter``, ``header`` and ``header_row`` (the
    line of the column names, from 1) override detection. Raises ``NotATable`` when no
    delimiter is given or found and the text is not one column of values."""
    if delimiter is None:
        delimiter = sniff_delimiter(sample, complete=complete)
        if delimiter is None:
            if not _one_column_of_values(sample, complete):
                raise NotATable(
                    "no table found: no comma, tab, semicolon or pipe splits the lines into "
                    "the same number of fields (pass delimiter to read it anyway)")
            delimiter = ","
    lines = len(io.StringIO(sample, newline="").readlines()) if complete else None
    found = layout(parse_lines(sample, delimiter, complete), header=header,
                   header_row=header_row, lines=lines)
    return Dialect(delimiter=delimiter, header=found.header, skip_rows=found.skip_rows,
                   codes=found.codes)
