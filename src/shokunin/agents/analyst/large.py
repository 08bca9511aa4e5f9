"""Tables too large for pandas: converted to UTF-8 (DuckDB reads no CP932 offline), written
by DuckDB as a Parquet file beside the upload (typed, compressed, read in column chunks),
and profiled with SQL over it. Sandbox kernels read that Parquet file with pandas: they may
not load DuckDB (see sandbox/policy.py).
"""

from __future__ import annotations

import codecs
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shokunin.agents.analyst.dataset import NotDecodable, Progress, TableSource, decode_attempts
from shokunin.agents.analyst.errors import NotATable, UnreadableTable
from shokunin.agents.analyst.profile import (
    SAMPLE_ROWS,
    ColumnProfile,
    DatasetProfile,
    LogicalType,
    all_values,
    clip,
    scalar,
    top_values,
)

if TYPE_CHECKING:  # imported where used: the web server imports this module and reads nothing
    import duckdb

CHUNK = 1024 * 1024
TABLE = "data"
# DuckDB's default is 80% of the machine: the server would grow by the table's size.
# Past this it spills to a temporary folder beside the Parquet file.
MEMORY_LIMIT = "256MB"
_TYPES: dict[str, LogicalType] = {
    "TINYINT": "integer", "SMALLINT": "integer", "INTEGER": "integer", "BIGINT": "integer",
    "HUGEINT": "integer", "UTINYINT": "integer", "USMALLINT": "integer",
    "UINTEGER": "integer", "UBIGINT": "integer", "FLOAT": "float", "DOUBLE": "float",
    "BOOLEAN": "boolean", "DATE": "datetime", "TIMESTAMP": "datetime",
    "TIMESTAMP WITH TIME ZONE": "datetime", "TIME": "datetime",
}


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


@contextmanager
def _duckdb() -> Iterator[duckdb.DuckDBPyConnection]:
    """An in-memory DuckDB that spills to a private temporary folder (never into the
    thread's workspace, which the kernel can write) and leaves nothing behind."""
    import duckdb

    with tempfile.TemporaryDirectory(prefix="shokunin-duckdb-") as spill, duckdb.connect(
            config={"memory_limit": MEMORY_LIMIT, "temp_directory": spill}) as con:
        yield con


@contextmanager
def _connect(parquet: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """A DuckDB where ``data`` is the table in ``parquet``."""
    with _duckdb() as con:
        con.execute(
            f"CREATE VIEW {TABLE} AS SELECT * FROM read_parquet({_literal(str(parquet))})")
        yield con


def to_utf8(src: Path, dst: Path, encoding: str, progress: Progress | None = None) -> None:
    """Stream ``src`` in ``encoding`` into ``dst`` as UTF-8 (without a BOM), reporting
    ``("transcode", done, total)`` bytes. Raises ``NotDecodable`` at the first bad byte."""
    total = src.stat().st_size
    decoder = codecs.getincrementaldecoder(encoding)(errors="strict")
    done = 0
    try:
        with src.open("rb") as fin, dst.open("w", encoding="utf-8", newline="") as fout:
            while chunk := fin.read(CHUNK):
                fout.write(decoder.decode(chunk).lstrip("\ufeff") if done == 0
                           else decoder.decode(chunk))
                done += len(chunk)
                if progress is not None:
                    progress("transcode", done, total)
            fout.write(decoder.decode(b"", final=True))
    except UnicodeDecodeError as exc:
        raise NotDecodable(f"the file is not valid {encoding} text near byte "
                           f"{done + exc.start}; pass encoding") from None
    except UnicodeError as exc:  # a codec's own error, e.g. utf-16 without its BOM
        raise NotDecodable(f"the file is not valid {encoding} text ({exc}); "
                           "pass encoding") from None


def convert(src: Path, dst: Path, source: TableSource,
            progress: Progress | None = None) -> TableSource:
    """Write the UTF-8 copy with the first candidate encoding that decodes the whole file;
    return the source naming it."""
    attempts = decode_attempts(source)
    for attempt in attempts:
        assert attempt.encoding is not None
        try:
            to_utf8(src, dst, attempt.encoding.encoding, progress)
            return attempt
        except NotDecodable:
            if attempt is attempts[-1]:
                raise
    raise AssertionError("unreachable")


def load(utf8: Path, parquet: Path, source: TableSource,
         progress: Progress | None = None) -> None:
    """Write the UTF-8 table to ``parquet`` with the column types DuckDB finds in it, from
    its header's row on (a table without a header gets columns ``column_1``, ...)."""
    import duckdb

    assert source.delimiter is not None
    reader = (f"read_csv({_literal(str(utf8))}, delim = {_literal(source.delimiter)}, "
              f"header = {str(source.header).lower()}, skip = {int(source.skip_rows)}, "
              f"quote = '\"', escape = '\"'{{}})")
    if progress is not None:
        progress("load", 0, 1)
    with _duckdb() as con:
        con.execute("SET preserve_insertion_order = true")

        def copy(options: str) -> None:
            columns = "*"
            if not source.header:
                names = [row[0] for row in con.execute(
                    f"DESCRIBE SELECT * FROM {reader.format(options)}").fetchall()]
                columns = ", ".join(f"{_ident(name)} AS column_{i + 1}"
                                    for i, name in enumerate(names))
            # USE_TMP_FILE: the target is an open descriptor's /proc name; no sibling to use
            con.execute(f"COPY (SELECT {columns} FROM {reader.format(options)}) TO "
                        f"{_literal(str(parquet))} "
                        "(FORMAT parquet, COMPRESSION zstd, USE_TMP_FILE false)")

        try:
            try:
                copy("")
            except duckdb.ConversionException:  # a type guessed from the first rows broke
                copy(", sample_size = -1")
        except duckdb.Error as exc:
            raise UnreadableTable(f"the table is malformed: {exc}") from None
    if progress is not None:
        progress("load", 1, 1)


def _column(con: duckdb.DuckDBPyConnection, name: str, type_: str, rows: int) -> ColumnProfile:
    kind = _TYPES.get(type_.split("(")[0], "float" if type_.startswith("DECIMAL") else "string")
    col = _ident(name)
    numeric = kind in ("integer", "float")
    ranged = numeric or kind == "datetime"
    nulls, distinct, low, high, mean = con.execute(
        f"SELECT count(*) - count({col}), count(DISTINCT {col}), "
        f"{f'min({col}), max({col})' if ranged else 'NULL, NULL'}, "
        f"{f'avg({col})' if numeric else 'NULL'} FROM {TABLE}").fetchone()
    pairs = con.execute(
        f"SELECT {col}, count(*) AS n FROM {TABLE} WHERE {col} IS NOT NULL GROUP BY {col} "
        f"ORDER BY n DESC, CAST({col} AS VARCHAR) LIMIT 50").fetchall()
    return ColumnProfile(
        name=clip(name), dtype=kind, storage_type=type_, null_count=nulls,
        null_share=nulls / rows if rows else 0.0, distinct_count=distinct,
        min=scalar(low), max=scalar(high), mean=None if mean is None else float(mean),
        top_values=top_values(pairs), values=all_values(pairs, distinct, kind))


def profile_parquet(parquet: Path, source: TableSource,
                    progress: Progress | None = None) -> DatasetProfile:
    """The profile of the table in ``parquet``, one column at a time."""
    with _connect(parquet) as con:
        rows = con.execute(f"SELECT count(*) FROM {TABLE}").fetchone()[0]
        if rows == 0:
            raise NotATable("the table has no rows")
        described = con.execute(
            f"SELECT column_name, column_type FROM (DESCRIBE {TABLE})").fetchall()
        columns = []
        for i, (name, type_) in enumerate(described):
            columns.append(_column(con, name, type_, rows))
            if progress is not None:
                progress("profile", i + 1, len(described))
        head = con.execute(f"SELECT * FROM {TABLE} LIMIT {SAMPLE_ROWS}").fetchall()
    names = [clip(name) for name, _ in described]
    assert source.encoding is not None
    return DatasetProfile(
        rows=rows, column_count=len(names), columns=columns,
        sample_rows=[{n: scalar(v) for n, v in zip(names, row, strict=True)} for row in head],
        format="csv", engine="duckdb", encoding=source.encoding.encoding,
        encoding_method=source.encoding.method, delimiter=source.delimiter,
        header=source.header, header_row=source.header_row)


def head_rows(parquet: Path, rows: int) -> tuple[list[str], list[list[Any]]]:
    """The column names and first ``rows`` rows of the table in ``parquet``."""
    with _connect(parquet) as con:
        result = con.execute(f"SELECT * FROM {TABLE} LIMIT ?", [rows])
        names = [clip(d[0]) for d in result.description]
        return names, [[scalar(v) for v in row] for row in result.fetchall()]

