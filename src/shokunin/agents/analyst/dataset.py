"""Reading an uploaded file as a table: its format, encoding and dialect (each overridable),
the row its header is on (under title lines), the DataFrame, and its profile. Numbers written
as text are read as numbers (``text_numbers.py``), codes with leading zeros as text. Files
whose estimated memory passes a threshold are profiled through DuckDB instead
(``large.py``).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from shokunin.agents.analyst.encoding import (
    EncodingGuess,
    NotTextEncoding,
    candidate_encodings,
    decodes,
    text_encoding,
)
from shokunin.agents.analyst.errors import NotATable, UnreadableTable
from shokunin.agents.analyst.profile import DatasetProfile, frame_profile
from shokunin.agents.analyst.sniff import Row, fields_up_to, layout, sniff
from shokunin.agents.analyst.text_numbers import read_text_numbers, text_number_unit

if TYPE_CHECKING:  # imported where used: the web server imports this module and parses nothing
    import pandas as pd

Format = Literal["csv", "xlsx"]
Progress = Callable[[str, int, int], None]  # (stage, done, total), e.g. ("transcode", 4096, ...)

SAMPLE_BYTES = 4 * 1024 * 1024  # what detection reads of a file too large to read whole
SNIFF_CHARS = 256 * 1024  # what the dialect rules look at
SHEET_HEAD_ROWS = 200  # rows of a sheet the header is looked for in
MAX_HEADER_ROW = 1000  # the last row header_row may name (detection sees the first 1,000)
# pandas holds a CSV in about this many times its size on disk (measured on the shipped
# samples with pandas 3 string columns: 5.8 to 7.6): the estimate the DuckDB threshold uses.
MEMORY_FACTOR = 6
_SPREADSHEET_MAGIC = (b"PK\x03\x04", b"\xd0\xcf\x11\xe0")  # zip (xlsx, ods), OLE2 (xls)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?$")
_SLASH_DATE = re.compile(r"^\d{4}/\d{1,2}/\d{1,2}$")


class NotDecodable(UnreadableTable):
    """The file does not decode in the encoding it is read with."""


@dataclass(frozen=True)
class ReadOptions:
    """What the caller says about the file; None means detect it."""

    encoding: str | None = None
    delimiter: str | None = None
    header: bool | None = None
    header_row: int | None = None  # the row of the column names, from 1 as in a spreadsheet


@dataclass(frozen=True)
class TableSource:
    """How a file is read, decided once and stored with the dataset."""

    format: Format
    encoding: EncodingGuess | None = None  # None for a spreadsheet
    delimiter: str | None = None
    header: bool = True
    fallbacks: tuple[EncodingGuess, ...] = ()  # for a file only its head was read of
    skip_rows: int = 0  # rows (lines) above the header: title lines
    codes: tuple[int, ...] = ()  # positions of columns of codes (00123), read as text
    # (position, unit) of the columns of numbers written as text; None: find them
    numbers: tuple[tuple[int, str], ...] | None = None

    @property
    def header_row(self) -> int | None:
        """The row of the column names, from 1; None without a header."""
        return self.skip_rows + 1 if self.header else None


def file_format(head: bytes) -> Format:
    """csv, or xlsx for a file that starts like a spreadsheet (zip or OLE2)."""
    return "xlsx" if head.startswith(_SPREADSHEET_MAGIC) else "csv"


def _text_sample(data: bytes, encoding: str, complete: bool) -> tuple[str, bool]:
    """The start of the decoded text, and whether it is the whole file."""
    text = data.decode(encoding, errors="strict" if complete else "ignore")
    if len(text) > SNIFF_CHARS:
        text, complete = text[:SNIFF_CHARS], False
    if len(_CONTROL.findall(text)) > max(2, len(text) // 1000):
        raise NotATable("this is binary data, not a text table")
    return text, complete


def detect_source(path: Path, options: ReadOptions = ReadOptions()) -> TableSource:
    """Decide the format, encoding, delimiter and header of the file at ``path``.

    Raises ``NotATable`` for an empty file, binary data or a single column of prose, and
    ``UnreadableTable`` when a given encoding does not decode the file."""
    size = path.stat().st_size
    complete = size <= SAMPLE_BYTES
    with path.open("rb") as f:
        data = f.read(SAMPLE_BYTES)
    if not data.strip():
        raise NotATable("the file is empty")
    if options.header_row is not None and not 1 <= options.header_row <= MAX_HEADER_ROW:
        raise UnreadableTable(f"header_row must be a row from 1 to {MAX_HEADER_ROW}")
    if file_format(data) == "xlsx":
        return _spreadsheet_source(path, options)
    if options.encoding is not None:
        try:
            text_encoding(options.encoding)
        except NotTextEncoding as exc:
            raise UnreadableTable(str(exc)) from None
        if not decodes(data, options.encoding, complete=complete):
            raise UnreadableTable(f"the file is not valid {options.encoding} text")
        guesses = [EncodingGuess(encoding=options.encoding, method="override")]
    else:
        guesses = candidate_encodings(data, complete=complete)
        if not guesses:
            raise NotATable("this is binary data, not a text table")
    sample, whole = _text_sample(data, guesses[0].encoding, complete)
    dialect = sniff(sample.lstrip("\ufeff"), delimiter=options.delimiter, header=options.header,
                    header_row=options.header_row, complete=whole)
    return TableSource(format="csv", encoding=guesses[0], delimiter=dialect.delimiter,
                       header=dialect.header, fallbacks=tuple(guesses[1:]),
                       skip_rows=dialect.skip_rows, codes=dialect.codes)


def _spreadsheet_source(path: Path, options: ReadOptions) -> TableSource:
    """The sheet's layout, from its first rows as written (``dtype=object``: pandas would
    read the text 00123 as the number 123)."""
    import pandas as pd

    nrows = SHEET_HEAD_ROWS + (options.header_row or 0)
    head = _read_excel(path, header=False, nrows=nrows, dtype=object)
    rows: list[Row] = []
    for index, row in enumerate(head.itertuples(index=False, name=None)):
        cells = ["" if pd.isna(v) else str(v) for v in row]
        if any(cell.strip() for cell in cells):
            rows.append((index, cells))
    found = layout(rows, header=options.header, header_row=options.header_row,
                   lines=len(head) if len(head) < nrows else None)
    return TableSource(format="xlsx", header=found.header, skip_rows=found.skip_rows,
                       codes=found.codes)


def _read_excel(path: Path, header: bool, nrows: int | None, skip_rows: int = 0,
                dtype: object = None) -> pd.DataFrame:
    import pandas as pd

    try:
        df = pd.read_excel(path, engine="calamine", header=0 if header else None,
                           skiprows=skip_rows or None, nrows=nrows, dtype=dtype)
    except Exception as exc:  # calamine raises its own types for a broken workbook
        raise NotATable(f"not a spreadsheet that can be read: {exc}") from None
    return df


def _column_names(df: pd.DataFrame, header: bool) -> pd.DataFrame:
    if not header:
        df.columns = [f"column_{i + 1}" for i in range(len(df.columns))]
    return df


def _parse_dates(df: pd.DataFrame) -> pd.DataFrame:
    """Text columns that are ISO dates (2024-01-31, 2024/1/31) become datetimes."""
    import pandas as pd

    for col in df.columns:
        series = df[col]
        if not (pd.api.types.is_object_dtype(series) or pd.api.types.is_string_dtype(series)):
            continue
        present = series.dropna().astype(str)
        if present.empty:
            continue
        for pattern, fmt in ((_ISO_DATE, "ISO8601"), (_SLASH_DATE, "%Y/%m/%d")):
            if present.str.match(pattern).all():
                with contextlib.suppress(ValueError, OverflowError):
                    df[col] = pd.to_datetime(series, format=fmt)
                break
    return df


def csv_engine(delimiter: str) -> dict[str, object]:
    """pandas' engine options for ``delimiter``: its C engine takes one byte only, and a
    fall back to the Python engine with ``low_memory`` given is an error."""
    if len(delimiter.encode("utf-8")) > 1:
        return {"engine": "python"}  # one character: csv's own splitting, not a regex
    return {"low_memory": False}


def text_number_columns(df: pd.DataFrame) -> tuple[tuple[int, str], ...]:
    """(position, unit) of each text column of ``df`` that is numbers written as text."""
    import pandas as pd

    found = []
    for position in range(df.shape[1]):
        series = df.iloc[:, position]
        if pd.api.types.is_object_dtype(series) or pd.api.types.is_string_dtype(series):
            unit = text_number_unit(series)
            if unit is not None:
                found.append((position, unit))
    return tuple(found)


def read_frame(path: Path, source: TableSource, nrows: int | None = None) -> pd.DataFrame:
    """The table as a DataFrame (its first ``nrows`` rows when given), read from its header
    row on, with its codes as text and its numbers written as text as numbers (those of
    ``source.numbers``, or those found in it when None)."""
    df = _read_table(path, source, nrows)
    numbers = text_number_columns(df) if source.numbers is None else source.numbers
    return read_text_numbers(df, numbers)


def _read_table(path: Path, source: TableSource, nrows: int | None) -> pd.DataFrame:
    import pandas as pd

    codes = dict.fromkeys(source.codes, str) or None
    if source.format == "xlsx":
        df = _read_excel(path, source.header, nrows, source.skip_rows, codes)
    else:
        assert source.encoding is not None and source.delimiter is not None
        try:
            # a cell as long as the file, for the Python engine (the csv module's limit)
            with fields_up_to(path.stat().st_size):
                df = pd.read_csv(path, sep=source.delimiter, encoding=source.encoding.encoding,
                                 encoding_errors="strict", header=0 if source.header else None,
                                 skiprows=source.skip_rows or None, dtype=codes, nrows=nrows,
                                 **csv_engine(source.delimiter))
        except UnicodeDecodeError as exc:
            raise NotDecodable(f"the file is not valid {source.encoding.encoding} text at "
                                  f"byte {exc.start}; pass encoding") from None
        except UnicodeError as exc:  # a codec's own error, e.g. utf-16 without its BOM
            raise NotDecodable(f"the file is not valid {source.encoding.encoding} text "
                               f"({exc}); pass encoding") from None
        except pd.errors.EmptyDataError:
            raise NotATable("the file has no rows" + (
                f" from row {source.skip_rows + 1} on" if source.skip_rows else "")) from None
        except pd.errors.ParserError as exc:
            raise UnreadableTable(f"the table is malformed: {exc}".strip()) from None
    return _parse_dates(_column_names(df, source.header))


def decode_attempts(source: TableSource) -> list[TableSource]:
    """The source with its detected encoding, then with each fallback candidate."""
    guesses = (source.encoding, *source.fallbacks)
    return [replace(source, encoding=guess, fallbacks=()) for guess in guesses]


def _read_with_fallbacks(path: Path, source: TableSource) -> tuple[TableSource, pd.DataFrame]:
    """Read with the detected encoding; if the rest of a file only its head was detected
    on does not decode with it, with the next candidate."""
    attempts = decode_attempts(source)
    for attempt in attempts[:-1]:
        try:
            return attempt, read_frame(path, attempt)
        except NotDecodable:
            continue
    return attempts[-1], read_frame(path, attempts[-1])


def profile_file(path: Path, source: TableSource) -> tuple[TableSource, DatasetProfile]:
    """Read the table with pandas and profile it; the source returned names the encoding
    that decoded the whole file and the columns of numbers written as text. Raises
    ``NotATable`` when it has no rows."""
    source, df = _read_with_fallbacks(path, replace(source, numbers=()))
    if df.empty:
        raise NotATable("the table has no rows" + (
            f" under its header (row {source.header_row})" if source.skip_rows else ""))
    source = replace(source, numbers=text_number_columns(df))
    df = read_text_numbers(df, source.numbers)
    profile = frame_profile(
        df, format=source.format, engine="pandas", header=source.header,
        header_row=source.header_row, delimiter=source.delimiter,
        encoding=source.encoding.encoding if source.encoding else None,
        encoding_method=source.encoding.method if source.encoding else None)
    for position in source.codes:
        if position < len(profile.columns):
            profile.columns[position].read_as = "text"
    for position, unit in source.numbers:
        profile.columns[position].read_as = "number"
        profile.columns[position].unit = unit or None
    return source, profile
