"""Datasets kept for a thread: the uploaded file in the thread's workspace under
``datasets/<id>/``, and its record (how to read it, its profile) in the store."""

from __future__ import annotations

import asyncio
import re
import shutil
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

from pydantic import BaseModel

from shokunin.analyst import large
from shokunin.analyst.dataset import (
    Format,
    Progress,
    ReadOptions,
    TableSource,
    detect_source,
    estimated_memory,
    profile_file,
    read_frame,
)
from shokunin.analyst.encoding import EncodingGuess
from shokunin.analyst.profile import DatasetProfile, Scalar, scalar
from shokunin.runs import Runner
from shokunin.store.datasets import DatasetRecords

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
    which a CSV is profiled through DuckDB."""

    def __init__(self, runner: Runner, pandas_max_bytes: int) -> None:
        self.runner = runner
        self.records = DatasetRecords(runner.store.engine)
        self.pandas_max_bytes = pandas_max_bytes

    def folder(self, thread_id: str, dataset_id: str) -> Path:
        return self.runner.workspace(thread_id) / FOLDER / dataset_id

    async def add(self, thread_id: str, original_name: str, upload: BinaryIO,
                  options: ReadOptions = ReadOptions(),
                  progress: Progress | None = None) -> DatasetRecord:
        """Store ``upload`` as a new dataset of the thread (which must exist) and profile it.
        Raises ``DatasetError`` (nothing is kept) when it is not a readable table."""
        dataset_id = uuid.uuid4().hex
        folder = self.folder(thread_id, dataset_id)
        try:
            row = await asyncio.to_thread(
                self._store, folder, original_name, upload, options, progress)
            row.update(id=dataset_id, thread_id=thread_id,
                       path=f"{FOLDER}/{dataset_id}/{row.pop('file')}",
                       created_at=datetime.now(UTC))
            await self.records.add(row)
        except BaseException:
            await asyncio.to_thread(shutil.rmtree, folder, ignore_errors=True)
            raise
        return _record(row)

    def _store(self, folder: Path, original_name: str, upload: BinaryIO, options: ReadOptions,
               progress: Progress | None) -> dict[str, Any]:
        folder.mkdir(parents=True)
        staged = folder / "upload"
        with staged.open("wb") as out:
            shutil.copyfileobj(upload, out, 1024 * 1024)
        source = detect_source(staged, options)
        file = folder / _file_name(original_name, source.format)
        staged.rename(file)
        if source.format == "csv" and estimated_memory(file) > self.pandas_max_bytes:
            utf8 = folder / "data.utf8.csv"
            source = large.convert(file, utf8, source, progress)
            large.load(utf8, folder / PARQUET_FILE, source, progress)
            utf8.unlink()
            profile = large.profile_parquet(folder / PARQUET_FILE, source, progress)
        else:
            source, profile = profile_file(file, source)
        return {"file": file.name, "original_name": original_name,
                "size_bytes": file.stat().st_size, "format": source.format,
                "encoding": source.encoding.encoding if source.encoding else None,
                "encoding_method": source.encoding.method if source.encoding else None,
                "delimiter": source.delimiter, "header": source.header,
                "engine": profile.engine, "profile": profile.model_dump(mode="json")}

    async def get(self, dataset_id: str) -> DatasetRecord | None:
        return await load_record(self.runner.store.engine, dataset_id)

    async def for_thread(self, thread_id: str) -> list[DatasetRecord]:
        return [_record(row) for row in await self.records.for_thread(thread_id)]

    async def preview(self, record: DatasetRecord, rows: int) -> Preview:
        """The dataset's first ``rows`` rows, read as its profile was."""
        workspace = self.runner.workspace(record.thread_id)
        if record.parquet_path is not None:
            columns, values = await asyncio.to_thread(
                large.head_rows, workspace / record.parquet_path, rows)
            return Preview(id=record.id, columns=columns, rows=values)
        encoding = (EncodingGuess(encoding=record.encoding, method="override")
                    if record.encoding else None)
        source = TableSource(format=record.format, encoding=encoding,
                             delimiter=record.delimiter, header=record.header)
        df = await asyncio.to_thread(read_frame, workspace / record.path, source, rows)
        return Preview(id=record.id, columns=[str(c) for c in df.columns],
                       rows=[[scalar(v) for v in row]
                             for row in df.itertuples(index=False, name=None)])

    async def delete(self, record: DatasetRecord) -> bool:
        """Delete the record and its files; False if it was already gone."""
        deleted = await self.records.delete(record.id)
        await asyncio.to_thread(shutil.rmtree, self.folder(record.thread_id, record.id),
                                ignore_errors=True)
        return deleted
