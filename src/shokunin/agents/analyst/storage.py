"""Datasets kept for a thread: the uploaded file in the thread's workspace under
``datasets/<id>/``, and its record (how to read it, its profile) in the store."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import threading
import uuid
from collections.abc import Awaitable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

from pydantic import BaseModel

from shokunin.agents.analyst import isolated
from shokunin.agents.analyst.dataset import (
    MEMORY_FACTOR,
    Format,
    Progress,
    ReadOptions,
    TableSource,
)
from shokunin.agents.analyst.encoding import EncodingGuess
from shokunin.agents.analyst.errors import UnsafeFile
from shokunin.agents.analyst.isolated import ParseLimits
from shokunin.agents.analyst.profile import DatasetProfile, Scalar
from shokunin.runs import Runner
from shokunin.store import DatasetRecords, SafeTree, UnsafePath

FOLDER = "datasets"
PARQUET_FILE = "data.parquet"
_SUFFIX = re.compile(r"^\.[a-z0-9]{1,8}$")


class DatasetRecord(BaseModel):
    """A stored dataset: where its file is (``path``, relative to the thread's workspace),
    how to read it, and its profile. A table too large for pandas also has a Parquet copy
    (``parquet_path``), written and queried by DuckDB on the server and read by the sandbox
    kernel: typed, compressed, no text to parse again."""

    id: str
    thread_id: str
    original_name: str
    size_bytes: int
    format: Format
    encoding: str | None
    encoding_method: str | None
    delimiter: str | None
    header: bool
    engine: str
    path: str
    parquet_path: str | None
    created_at: datetime
    profile: DatasetProfile


class Preview(BaseModel):
    id: str
    columns: list[str]
    rows: list[list[Scalar]]


def _file_name(original_name: str, format: Format) -> str:
    suffix = Path(original_name).suffix.lower()
    return "data" + (suffix if _SUFFIX.match(suffix) else f".{format}")


def record_source(record: DatasetRecord) -> TableSource:
    """How the dataset's file is read, as its profile was: encoding, dialect, the header's
    row, its codes and its numbers written as text."""
    encoding = (EncodingGuess(encoding=record.encoding, method="override")
                if record.encoding else None)
    profile = record.profile
    return TableSource(format=record.format, encoding=encoding, delimiter=record.delimiter,
                       header=record.header, skip_rows=profile.skip_rows,
                       codes=tuple(profile.codes), numbers=tuple(profile.text_numbers))


def _record(row: dict[str, Any]) -> DatasetRecord:
    parquet = f"{FOLDER}/{row['id']}/{PARQUET_FILE}" if row["engine"] == "duckdb" else None
    created = row["created_at"]
    if created.tzinfo is None:  # SQLite keeps no zone: stored values are UTC
        created = created.replace(tzinfo=UTC)
    return DatasetRecord(**{**row, "created_at": created, "parquet_path": parquet,
                            "profile": DatasetProfile.model_validate(row["profile"])})


async def load_record(engine: Any, dataset_id: str) -> DatasetRecord | None:
    """A dataset's record, for a reader that has the store but no Runner (a run)."""
    row = await DatasetRecords(engine).get(dataset_id)
    return _record(row) if row else None


class DatasetStorage:
    """Add, read and delete datasets. ``pandas_max_bytes`` is the estimated memory past
    which a CSV is profiled through DuckDB; ``limits`` bound each parse (``isolated.py``).

    The thread's workspace belongs to its kernel, which can plant links in it: every file
    here is reached through ``SafeTree`` (no link followed, no hard link or foreign file
    used) and handed to the parser as an open descriptor, never by name."""

    def __init__(self, runner: Runner, pandas_max_bytes: int,
                 limits: ParseLimits = ParseLimits()) -> None:
        self.runner = runner
        self.records = DatasetRecords(runner.store.engine)
        self.pandas_max_bytes = pandas_max_bytes
        self.limits = limits

    def _tree(self, thread_id: str) -> SafeTree:
        return SafeTree(self.runner.workspace(thread_id))

    async def add(self, thread_id: str, original_name: str, upload: BinaryIO,
                  options: ReadOptions = ReadOptions(),
                  progress: Progress | None = None) -> DatasetRecord:
        """Store ``upload`` as a new dataset of the thread (which must exist) and profile it.
        Raises ``DatasetError`` (nothing is kept) when it is not a readable table. Cancelled
        (the client left), its parse stops, waiting for a slot or running."""
        dataset_id = uuid.uuid4().hex
        tree, folder = self._tree(thread_id), f"{FOLDER}/{dataset_id}"
        cancel = threading.Event()
        try:
            row = await _cancellable(cancel, asyncio.to_thread(
                self._store, tree, folder, original_name, upload, options, progress, cancel))
            row.update(id=dataset_id, thread_id=thread_id,
                       path=f"{folder}/{row.pop('file')}", created_at=datetime.now(UTC))
            await self.records.add(row)
        except BaseException:
            await asyncio.to_thread(_remove, tree, folder)
            raise
        return _record(row)

    def _store(self, tree: SafeTree, folder: str, original_name: str, upload: BinaryIO,
               options: ReadOptions, progress: Progress | None,
               cancel: threading.Event) -> dict[str, Any]:
        try:
            return self._store_safely(tree, folder, original_name, upload, options, progress,
                                      cancel)
        except UnsafePath as exc:  # a link planted in the workspace, maybe meanwhile
            raise UnsafeFile(f"the thread's {FOLDER} folder is not a plain folder of its "
                             f"workspace (a link?): {exc}") from None

    def _store_safely(self, tree: SafeTree, folder: str, original_name: str,
                      upload: BinaryIO, options: ReadOptions, progress: Progress | None,
                      cancel: threading.Event) -> dict[str, Any]:
        staged = f"{folder}/upload"
        with tree.open_binary(staged, "xb") as out:
            shutil.copyfileobj(upload, out, 1024 * 1024)
        with _opened(tree, staged) as fd:
            source = isolated.detect(fd, options, self.limits, cancel)
            name = _file_name(original_name, source.format)
            tree.rename(staged, f"{folder}/{name}")
            size = os.fstat(fd).st_size
            if source.format == "csv" and size * MEMORY_FACTOR > self.pandas_max_bytes:
                utf8 = f"{folder}/data.utf8.csv"
                with _opened(tree, utf8, _NEW) as utf8_fd, \
                        _opened(tree, f"{folder}/{PARQUET_FILE}", _NEW) as parquet_fd:
                    source, profile = isolated.profile_large(
                        fd, utf8_fd, parquet_fd, source, self.limits, progress, cancel)
                tree.unlink(utf8)
            else:
                source, profile = isolated.profile(fd, source, self.limits, cancel)
        return {"file": name, "original_name": original_name, "size_bytes": size,
                "format": source.format,
                "encoding": source.encoding.encoding if source.encoding else None,
                "encoding_method": source.encoding.method if source.encoding else None,
                "delimiter": source.delimiter, "header": source.header,
                "engine": profile.engine, "profile": profile.model_dump(mode="json")}

    async def get(self, dataset_id: str) -> DatasetRecord | None:
        return await load_record(self.runner.store.engine, dataset_id)

    async def for_thread(self, thread_id: str) -> list[DatasetRecord]:
        return [_record(row) for row in await self.records.for_thread(thread_id)]

    async def preview(self, record: DatasetRecord, rows: int) -> Preview:
        """The dataset's first ``rows`` rows, read as its profile was. Raises ``UnsafeFile``
        when its file has been replaced by a link or a file the server did not write."""
        cancel = threading.Event()
        columns, values = await _cancellable(
            cancel, asyncio.to_thread(self._head, record, rows, cancel))
        return Preview(id=record.id, columns=columns, rows=values)

    def _head(self, record: DatasetRecord, rows: int, cancel: threading.Event
              ) -> tuple[list[str], list[list[Scalar]]]:
        tree = self._tree(record.thread_id)
        if record.parquet_path is not None:
            with _opened(tree, record.parquet_path) as fd:
                return isolated.head_parquet(fd, rows, self.limits, cancel)
        with _opened(tree, record.path) as fd:
            return isolated.head(fd, record_source(record), rows, self.limits, cancel)

    async def delete(self, record: DatasetRecord) -> bool:
        """Delete the record and its files; False if it was already gone."""
        deleted = await self.records.delete(record.id)
        await asyncio.to_thread(_remove, self._tree(record.thread_id),
                                f"{FOLDER}/{record.id}")
        return deleted


_NEW = os.O_RDWR | os.O_CREAT | os.O_EXCL
T = TypeVar("T")


async def _cancellable(cancel: threading.Event, work: Awaitable[T]) -> T:
    """``await work`` (a parse in a thread); cancelled, ``cancel`` is set so that the thread
    stops its parse (a thread itself cannot be cancelled)."""
    try:
        return await work
    except BaseException:
        cancel.set()
        raise


@contextmanager
def _opened(tree: SafeTree, name: str, flags: int = os.O_RDONLY) -> Iterator[int]:
    """A descriptor of the plain file ``name`` of the tree, closed on exit."""
    try:
        fd = tree.open(name, flags)
    except FileNotFoundError:
        raise UnsafeFile(f"the dataset's file {name!r} is missing") from None
    except UnsafePath as exc:
        raise UnsafeFile(f"the dataset's file is not one the server wrote: {exc}") from None
    try:
        yield fd
    finally:
        os.close(fd)


def _remove(tree: SafeTree, folder: str) -> None:
    """Remove a dataset's folder; a ``datasets`` replaced by a link is left alone."""
    with contextlib.suppress(UnsafePath, OSError):
        tree.remove_tree(folder)
