"""Datasets kept in a thread's workspace and the store: the DuckDB path for large files,
previews, deletion, and records that survive a restart."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from pathlib import Path

import pandas as pd
import pytest

from shokunin.agents.analyst import DatasetStorage, NotATable, ReadOptions
from shokunin.runs import MemoryBus, Runner
from shokunin.store import Store

ROWS = 6000


def _sensor_csv() -> tuple[bytes, float, int]:
    """A CP932 sensor log: its bytes, the mean temperature and the count of missing ones."""
    lines = ["時刻,センサー,温度(℃),状態"]
    temps = []
    missing = 0
    for i in range(ROWS):
        if i % 97 == 0:
            temp, missing = "", missing + 1
        else:
            value = round(20 + (i % 50) * 0.1, 1)
            temps.append(value)
            temp = str(value)
        state = "異常①" if i % 500 == 0 else "正常"
        lines.append(f"2024-05-{1 + i // 1000:02d} {i // 60 % 24:02d}:{i % 60:02d}:00,"
                     f"㈱髙木-{i % 4},{temp},{state}")
    return ("\n".join(lines) + "\n").encode("cp932"), sum(temps) / len(temps), missing


async def _open(tmp_path: Path, pandas_max_bytes: int) -> tuple[Store, DatasetStorage]:
    store = await Store.open(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite'}")
    runner = Runner(store, MemoryBus(), tmp_path / "workspaces")
    return store, DatasetStorage(runner, pandas_max_bytes)


@pytest.fixture
async def small(tmp_path: Path) -> AsyncIterator[DatasetStorage]:
    store, storage = await _open(tmp_path, 10**9)
    await store.ensure_thread("t1", "analyst")
    yield storage
    await store.close()


async def test_a_file_above_the_threshold_is_converted_and_profiled_by_duckdb(
        tmp_path: Path) -> None:
    data, mean, missing = _sensor_csv()
    store, storage = await _open(tmp_path, pandas_max_bytes=len(data))  # the estimate is 6x
    await store.ensure_thread("t1", "analyst")
    seen: list[tuple[str, int, int]] = []
    record = await storage.add("t1", "sensor.csv", io.BytesIO(data),
                               progress=lambda *step: seen.append(step))
    await store.close()
    profile = record.profile
    assert (record.engine, profile.engine, record.encoding, profile.rows) == (
        "duckdb", "duckdb", "cp932", ROWS)
    temp = {c.name: c for c in profile.columns}["温度(℃)"]
    assert temp.dtype == "float" and temp.null_count == missing
    assert temp.mean == pytest.approx(mean, rel=1e-12)
    assert (temp.min, temp.max) == (20.0, 24.9)
    state = {c.name: c for c in profile.columns}["状態"]
    assert [(v.value, v.count) for v in state.top_values] == [("正常", ROWS - 12), ("異常①", 12)]
    transcode = [step for step in seen if step[0] == "transcode"]
    assert transcode[-1] == ("transcode", len(data), len(data))
    assert [done for _, done, _ in transcode] == sorted(done for _, done, _ in transcode)
    assert {stage for stage, _, _ in seen} == {"transcode", "load", "profile"}
    folder = tmp_path / "workspaces" / "t1" / "datasets" / record.id
    assert sorted(p.name for p in folder.iterdir()) == ["data.csv", "data.parquet"]
    assert (folder / "data.csv").read_bytes() == data  # the upload is kept as sent


async def test_duckdb_and_pandas_profiles_agree(tmp_path: Path) -> None:
    data, _, _ = _sensor_csv()
    store, big = await _open(tmp_path, pandas_max_bytes=1)
    await store.ensure_thread("t1", "analyst")
    small = DatasetStorage(big.runner, 10**9)
    by_duckdb = (await big.add("t1", "a.csv", io.BytesIO(data))).profile
    by_pandas = (await small.add("t1", "a.csv", io.BytesIO(data))).profile
    await store.close()
    assert by_duckdb.rows == by_pandas.rows == ROWS
    for duck, panda in zip(by_duckdb.columns, by_pandas.columns, strict=True):
        assert (duck.name, duck.dtype, duck.null_count, duck.distinct_count) == (
            panda.name, panda.dtype, panda.null_count, panda.distinct_count)
        assert duck.mean == pytest.approx(panda.mean)
        assert [v.count for v in duck.top_values] == [v.count for v in panda.top_values]


async def test_a_large_tables_parquet_copy_holds_the_same_values_as_pandas_reads(
        tmp_path: Path) -> None:
    data, _, _ = _sensor_csv()
    store, big = await _open(tmp_path, pandas_max_bytes=1)
    await store.ensure_thread("t1", "analyst")
    small = DatasetStorage(big.runner, 10**9)
    large_record = await big.add("t1", "a.csv", io.BytesIO(data))
    small_record = await small.add("t1", "a.csv", io.BytesIO(data))
    workspace = big.runner.workspace("t1")
    await store.close()
    assert small_record.parquet_path is None
    copy = pd.read_parquet(workspace / large_record.parquet_path)
    read = pd.read_csv(workspace / small_record.path, encoding=small_record.encoding)
    assert list(copy.columns) == list(read.columns) and len(copy) == len(read) == ROWS
    for column in read.columns:
        if pd.api.types.is_numeric_dtype(read[column]):
            assert copy[column].tolist() == pytest.approx(read[column].tolist(), nan_ok=True)
        else:
            assert copy[column].astype(str).tolist() == read[column].astype(str).tolist()


async def test_a_large_table_without_a_header_gets_numbered_columns_in_its_copy(
        tmp_path: Path) -> None:
    store, big = await _open(tmp_path, pandas_max_bytes=1)
    await store.ensure_thread("t1", "analyst")
    data = "".join(f"{i};店{i % 3};{i / 4}\n" for i in range(300)).encode()
    record = await big.add("t1", "n.csv", io.BytesIO(data), ReadOptions(header=False))
    copy = pd.read_parquet(big.runner.workspace("t1") / record.parquet_path)
    await store.close()
    assert [c.name for c in record.profile.columns] == ["column_1", "column_2", "column_3"]
    assert list(copy.columns) == ["column_1", "column_2", "column_3"]
    assert copy.iloc[299].tolist() == [299, "店2", 74.75]


async def test_preview_reads_the_first_rows_for_either_engine(tmp_path: Path) -> None:
    data, _, _ = _sensor_csv()
    store, big = await _open(tmp_path, pandas_max_bytes=1)
    await store.ensure_thread("t1", "analyst")
    small = DatasetStorage(big.runner, 10**9)
    previews = [await storage.preview(await storage.add("t1", "s.csv", io.BytesIO(data)), 3)
                for storage in (big, small)]
    await store.close()
    for preview in previews:
        assert preview.columns == ["時刻", "センサー", "温度(℃)", "状態"]
        assert [row[1:] for row in preview.rows] == [
            ["㈱髙木-0", None, "異常①"], ["㈱髙木-1", 20.1, "正常"], ["㈱髙木-2", 20.2, "正常"]]


async def test_records_survive_a_restart_and_deletion_removes_files(tmp_path: Path) -> None:
    store, storage = await _open(tmp_path, 10**9)
    await store.ensure_thread("t1", "analyst")
    record = await storage.add("t1", "../../etc/passwd.csv",
                               io.BytesIO(b"a,b\n1,2\n3,4\n"),
                               ReadOptions(header=True))
    await store.close()
    store, storage = await _open(tmp_path, 10**9)
    again = await storage.get(record.id)
    assert again == record and again.path == f"datasets/{record.id}/data.csv"
    assert [r.id for r in await storage.for_thread("t1")] == [record.id]
    assert await storage.delete(again) is True
    assert await storage.get(record.id) is None
    assert not (tmp_path / "workspaces" / "t1" / "datasets" / record.id).exists()
    await store.close()


async def test_a_refused_file_leaves_nothing_behind(small: DatasetStorage, tmp_path: Path
                                                    ) -> None:
    with pytest.raises(NotATable):
        await small.add("t1", "x.csv", io.BytesIO(b""))
    assert await small.for_thread("t1") == []
    assert list((tmp_path / "workspaces" / "t1" / "datasets").iterdir()) == []


async def test_deleting_the_thread_deletes_its_dataset_rows(small: DatasetStorage) -> None:
    record = await small.add("t1", "x.csv", io.BytesIO(b"a,b\n1,2\n"))
    assert await small.runner.store.delete_thread("t1") is True
    assert await small.get(record.id) is None


async def test_a_column_that_turns_to_text_after_duckdbs_sample_is_text(tmp_path: Path) -> None:
    data = ("id,code\n" + "".join(f"{i},{i}\n" for i in range(60000)) + "60000,X12\n").encode()
    store, storage = await _open(tmp_path, pandas_max_bytes=1)
    await store.ensure_thread("t1", "analyst")
    record = await storage.add("t1", "late.csv", io.BytesIO(data))
    await store.close()
    code = record.profile.columns[1]
    assert (record.engine, record.profile.rows, code.dtype, code.distinct_count) == (
        "duckdb", 60001, "string", 60001)


async def test_dates_read_the_same_through_either_engine(tmp_path: Path) -> None:
    data = b"day,at,n\n2024-01-31,2024-01-31 10:30:00,1\n2024-02-29,2024-02-29 00:00:00,2\n"
    store, big = await _open(tmp_path, pandas_max_bytes=1)
    await store.ensure_thread("t1", "analyst")
    small = DatasetStorage(big.runner, 10**9)
    profiles = [(await s.add("t1", "d.csv", io.BytesIO(data))).profile for s in (big, small)]
    await store.close()
    for profile in profiles:
        day, at = profile.columns[:2]
        assert (day.dtype, day.min, day.max) == ("datetime", "2024-01-31", "2024-02-29")
        assert (at.min, at.max) == ("2024-01-31T10:30:00", "2024-02-29")
    assert profiles[0].sample_rows == profiles[1].sample_rows
