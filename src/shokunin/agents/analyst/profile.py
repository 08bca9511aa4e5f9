"""What the Analyst knows of a table before any code runs: ``DatasetProfile``, built from a
pandas DataFrame here and from DuckDB in ``large.py``, with the same fields either way."""

from __future__ import annotations

import math
from datetime import date, datetime, time
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

if TYPE_CHECKING:  # imported where used: the web server imports this module and parses nothing
    import pandas as pd

Scalar = str | int | float | bool | None
LogicalType = Literal["integer", "float", "boolean", "datetime", "string"]
TOP_VALUES = 5
ALL_VALUES = 50  # a text column with at most this many distinct values lists them all
SAMPLE_ROWS = 5
# Characters kept of one cell or column name in a profile or preview: the uploader chose
# them, and one shared string of an xlsx can be megabytes in hundreds of cells.
MAX_TEXT = 300


class ValueCount(BaseModel):
    value: Scalar
    count: int


class ColumnProfile(BaseModel):
    """One column: its type, how full it is and its range. ``min``/``max``/``mean`` are
    given for numbers (and ``min``/``max`` for dates, as ISO text)."""

    name: str
    dtype: LogicalType
    storage_type: str = Field(description="The engine's own type: pandas dtype or DuckDB type.")
    null_count: int
    null_share: float
    distinct_count: int
    min: Scalar = None
    max: Scalar = None
    mean: float | None = None
    top_values: list[ValueCount] = Field(default_factory=list)
    values: list[Scalar] = Field(default_factory=list, description=(
        f"Every distinct value of a text column with at most {ALL_VALUES} of them, most "
        "frequent first (what a question may name to filter on)."))
    unit: str | None = Field(default=None, description=(
        "The unit its numbers were written with, when they were read from text: %, ¥, 円, "
        "$, km ... (a percentage is kept as written: 12.5 for 12.5%)."))
    read_as: Literal["number", "text"] | None = Field(default=None, description=(
        "How its cells were read other than as pandas reads them: 'number' for numbers "
        "written as text (1,234, ¥1,200, 12.5%, −5, １２３), 'text' for codes with a "
        "leading zero (00123) kept as written."))


class DatasetProfile(BaseModel):
    """A table's shape and columns, a few of its first rows, and how it was read."""

    rows: int
    column_count: int
    columns: list[ColumnProfile]
    sample_rows: list[dict[str, Scalar]]
    format: Literal["csv", "xlsx"]
    engine: Literal["pandas", "duckdb"]
    encoding: str | None = None
    encoding_method: str | None = None
    delimiter: str | None = None
    header: bool = True
    header_row: int | None = Field(default=None, description=(
        "The row the column names were read from, counted from 1 as in a spreadsheet (lines "
        "of a text file): 1 for a plain table, a later row under title lines; None without "
        "a header. The rows above it were skipped."))

    @property
    def skip_rows(self) -> int:
        """The rows (lines of a text file) above the header, skipped when it is read."""
        return self.header_row - 1 if self.header_row else 0

    @property
    def text_numbers(self) -> list[tuple[int, str]]:
        """(position, unit) of each column of numbers written as text."""
        return [(i, column.unit or "") for i, column in enumerate(self.columns)
                if column.read_as == "number"]

    @property
    def codes(self) -> list[int]:
        """The position of each column of codes read as text."""
        return [i for i, column in enumerate(self.columns) if column.read_as == "text"]


def clip(text: str) -> str:
    """``text`` cut to ``MAX_TEXT`` characters, an ellipsis marking the cut."""
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT - 1] + "…"


def scalar(value: Any) -> Scalar:
    """A JSON scalar for a cell: NaN/NaT become None, dates and timestamps ISO text (a
    timestamp at midnight as its date), numpy numbers Python numbers, text ``clip``ped."""
    import pandas as pd

    if value is None or value is pd.NaT:
        return None
    if isinstance(value, datetime) and value.time() == time() and value.tzinfo is None:
        return value.date().isoformat()  # a date read as a timestamp, as DuckDB shows it
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if hasattr(value, "item"):  # numpy scalar
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, str):
        return clip(value)
    if isinstance(value, (int, float, bool)):
        return value
    return clip(str(value))


def logical_type(series: pd.Series) -> LogicalType:
    import pandas as pd

    if pd.api.types.is_bool_dtype(series):
        return "boolean"
    if pd.api.types.is_integer_dtype(series):
        return "integer"
    if pd.api.types.is_float_dtype(series):
        return "float"
    if pd.api.types.is_datetime64_any_dtype(series):
        return "datetime"
    return "string"


def top_values(pairs: list[tuple[Any, int]]) -> list[ValueCount]:
    """The most frequent values, ties in the order of their text (so both engines agree)."""
    ranked = sorted(pairs, key=lambda pair: (-pair[1], str(scalar(pair[0]))))
    return [ValueCount(value=scalar(value), count=count) for value, count in ranked[:TOP_VALUES]]


def all_values(pairs: list[tuple[Any, int]], distinct: int, kind: LogicalType) -> list[Scalar]:
    """Every value of a text column with few enough of them (``ALL_VALUES``), else none."""
    if kind != "string" or distinct > ALL_VALUES:
        return []
    return [scalar(value) for value, _ in sorted(pairs, key=lambda p: (-p[1], str(scalar(p[0]))))]


def column_profile(name: str, series: pd.Series) -> ColumnProfile:
    rows = len(series)
    kind = logical_type(series)
    nulls = int(series.isna().sum())
    present = series.dropna()
    counts = present.value_counts(sort=False)
    profile = ColumnProfile(
        name=name, dtype=kind, storage_type=str(series.dtype), null_count=nulls,
        null_share=nulls / rows if rows else 0.0, distinct_count=len(counts),
        top_values=top_values(pairs := [(value, int(count)) for value, count in counts.items()]),
        values=all_values(pairs, len(counts), kind))
    if kind in ("integer", "float", "datetime") and len(present):
        profile.min, profile.max = scalar(present.min()), scalar(present.max())
        if kind != "datetime":
            profile.mean = scalar(float(present.mean()))  # type: ignore[assignment]
    return profile


def frame_profile(df: pd.DataFrame, **how: Any) -> DatasetProfile:
    """The profile of a loaded DataFrame; ``how`` gives format, engine, encoding, ..."""
    head = df.head(SAMPLE_ROWS)
    sample = [{clip(str(col)): scalar(value) for col, value in zip(head.columns, row, strict=True)}
              for row in head.itertuples(index=False, name=None)]
    return DatasetProfile(
        rows=len(df), column_count=len(df.columns),
        columns=[column_profile(clip(str(col)), df[col]) for col in df.columns],
        sample_rows=sample, **how)
