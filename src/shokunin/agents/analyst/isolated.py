"""The dataset parses that untrusted bytes drive (format detection, profiling, preview and
the Parquet conversion), each run in a bounded child process (``shokunin.untrusted``) on
descriptors the server opened safely: a bomb costs the child, and the server answers
``TooLargeExpanded``/``TookTooLong`` instead of running out of memory."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from shokunin import untrusted
from shokunin.agents.analyst import (
    large,
    parsers,  # noqa: F401 - what the parse children's process imports
    zip_bounds,
)
from shokunin.agents.analyst.dataset import (
    SAMPLE_BYTES,
    Progress,
    ReadOptions,
    TableSource,
    detect_source,
    file_format,
    profile_file,
    read_frame,
)
from shokunin.agents.analyst.errors import (
    DatasetError,
    TookTooLong,
    TooLargeExpanded,
    UnreadableTable,
)
from shokunin.agents.analyst.profile import DatasetProfile, Scalar, clip, scalar
from shokunin.untrusted import Bounds, Descriptor

T = TypeVar("T")


Walls = Callable[[list[int]], None]  # walls a parse child in, given its descriptors


@dataclass(frozen=True)
class ParseLimits:
    """What parsing one upload may use (``SHOKUNIN_ANALYST_PARSE_*``, ``..._XLSX_*``); its
    answer (a profile, a preview) may be ``Bounds.result_bytes`` pickled. ``walls``: what
    gives each parse child the sandbox's walls (``Sandbox.parser_walls``)."""

    bounds: Bounds = Bounds()
    zip: zip_bounds.ZipBounds = zip_bounds.ZipBounds()
    walls: Callable[[], Walls] | None = None

    @classmethod
    def from_settings(cls, settings: Any, walls: Callable[[], Walls] | None = None
                      ) -> ParseLimits:
        seconds = settings.analyst_parse_seconds
        return cls(walls=walls,
            bounds=Bounds(memory_bytes=int(settings.analyst_parse_memory_mb * 2**20),
                          cpu_seconds=max(1, int(seconds)), wall_seconds=seconds,
                          children=settings.analyst_parse_children),
            zip=zip_bounds.ZipBounds(
                max_bytes=int(settings.analyst_xlsx_max_expanded_mb * 2**20),
                max_ratio=settings.analyst_xlsx_max_ratio))


def _run(limits: ParseLimits, fn: Any, *args: Any, progress: Progress | None = None,
         cancel: threading.Event | None = None) -> Any:
    try:
        return untrusted.run(
            fn, *args, bounds=limits.bounds, cancel=cancel,
            confine=limits.walls() if limits.walls is not None else None,
            on_message=None if progress is None else lambda step: progress(*step),
            on_wait=None if progress is None else lambda: progress("waiting", 0, 1))
    except untrusted.OutOfMemory as exc:
        raise TooLargeExpanded(f"the file is too large when expanded: reading it {exc} "
                               "(SHOKUNIN_ANALYST_PARSE_MEMORY_MB)") from None
    except untrusted.OutOfTime as exc:
        raise TookTooLong(f"reading the file took too long: it {exc} "
                          "(SHOKUNIN_ANALYST_PARSE_SECONDS)") from None
    except untrusted.ResultTooLarge as exc:
        raise TooLargeExpanded(f"what reading the file gives back is too large: it {exc} "
                               "(a very wide table, or ask the preview for fewer rows)"
                               ) from None


def _table_errors(fn: Callable[..., T]) -> Callable[..., T]:
    """A child's parse whose unforeseen failures (a library's own exception on a broken
    file) are the file's fault: ``UnreadableTable`` with the reason, a 400, not a 500."""
    @functools.wraps(fn)
    def parse(*args: Any) -> T:
        try:
            return fn(*args)
        except (DatasetError, MemoryError):
            raise
        except Exception as exc:
            raise UnreadableTable(f"the file cannot be read as a table: "
                                  f"{type(exc).__name__}: {exc}"[:1000]) from None
    return parse


def _report(stage: str, done: int, total: int) -> None:
    untrusted.report((stage, done, total))


# -- in the parent: each call runs its parse in a child -----------------------------------
def detect(file: int, options: ReadOptions, limits: ParseLimits,
           cancel: threading.Event | None = None) -> TableSource:
    """The format, encoding and dialect of the open file ``file``. Each call here raises
    ``untrusted.Cancelled`` once ``cancel`` is set (the client left)."""
    return _run(limits, _detect, Descriptor(file), options, limits.zip, cancel=cancel)  # type: ignore[no-any-return]


def profile(file: int, source: TableSource, limits: ParseLimits,
            cancel: threading.Event | None = None) -> tuple[TableSource, DatasetProfile]:
    """Read the table with pandas and profile it."""
    return _run(limits, _profile, Descriptor(file), source, cancel=cancel)  # type: ignore[no-any-return]


def profile_large(file: int, utf8: int, parquet: int, source: TableSource, limits: ParseLimits,
                  progress: Progress | None, cancel: threading.Event | None = None
                  ) -> tuple[TableSource, DatasetProfile]:
    """Convert the table to UTF-8 (into ``utf8``), write it as Parquet (into ``parquet``)
    with DuckDB and profile that."""
    return _run(limits, _profile_large, Descriptor(file), Descriptor(utf8),  # type: ignore[no-any-return]
                Descriptor(parquet), source, progress is not None, progress=progress,
                cancel=cancel)


def head(file: int, source: TableSource, rows: int, limits: ParseLimits,
         cancel: threading.Event | None = None) -> tuple[list[str], list[list[Scalar]]]:
    """The column names and first ``rows`` rows of a table read as ``source`` says."""
    return _run(limits, _head, Descriptor(file), source, rows, cancel=cancel)  # type: ignore[no-any-return]


def head_parquet(file: int, rows: int, limits: ParseLimits,
                 cancel: threading.Event | None = None) -> tuple[list[str], list[list[Scalar]]]:
    """The column names and first ``rows`` rows of a Parquet copy."""
    return _run(limits, _head_parquet, Descriptor(file), rows, cancel=cancel)  # type: ignore[no-any-return]


# -- in the child ---------------------------------------------------------------------------
@_table_errors
def _detect(file: Descriptor, options: ReadOptions, zip: zip_bounds.ZipBounds) -> TableSource:
    path = Path(file.path)
    with path.open("rb") as f:
        head_bytes = f.read(SAMPLE_BYTES)
    if file_format(head_bytes) == "xlsx":
        zip_bounds.check(path, zip)
    return detect_source(path, options)


@_table_errors
def _profile(file: Descriptor, source: TableSource) -> tuple[TableSource, DatasetProfile]:
    return profile_file(Path(file.path), source)


@_table_errors
def _profile_large(file: Descriptor, utf8: Descriptor, parquet: Descriptor,
                   source: TableSource, report: bool) -> tuple[TableSource, DatasetProfile]:
    progress = _report if report else None
    source = large.convert(Path(file.path), Path(utf8.path), source, progress)
    large.load(Path(utf8.path), Path(parquet.path), source, progress)
    return source, large.profile_parquet(Path(parquet.path), source, progress)


@_table_errors
def _head(file: Descriptor, source: TableSource, rows: int
          ) -> tuple[list[str], list[list[Scalar]]]:
    df = read_frame(Path(file.path), source, rows)
    return ([clip(str(c)) for c in df.columns],
            [[scalar(v) for v in row] for row in df.itertuples(index=False, name=None)])


@_table_errors
def _head_parquet(file: Descriptor, rows: int) -> tuple[list[str], list[list[Scalar]]]:
    return large.head_rows(Path(file.path), rows)
