"""Migration v4: the Analyst's dataset table, added to a database made by v3."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import inspect, select

from shokunin.store import Store, create_engine, migrate
from shokunin.store import schema as tables
from shokunin.store.migrations import MIGRATIONS


async def test_v3_database_gains_the_dataset_table_and_keeps_its_threads(db_url: str) -> None:
    engine = create_engine(db_url)
    async with engine.begin() as conn:
        await conn.run_sync(lambda c: tables.schema_version.create(c))
        for version, step in MIGRATIONS[:3]:
            await conn.run_sync(step)
            await conn.execute(tables.schema_version.insert().values(
                version=version, applied_at=datetime.now(UTC)))
        await conn.execute(tables.threads.insert().values(
            id="old", agent="analyst", title="", meta={}, created_at=datetime.now(UTC)))
        assert not await conn.run_sync(lambda c: inspect(c).has_table("analyst_datasets"))
    assert await migrate(engine) == [version for version, _ in MIGRATIONS[3:]]
    async with engine.connect() as conn:
        assert await conn.run_sync(lambda c: inspect(c).has_table("analyst_datasets"))
        assert (await conn.execute(select(tables.threads.c.id))).scalars().all() == ["old"]
    await engine.dispose()
    store = await Store.open(db_url)
    thread = await store.get_thread("old")
    await store.close()
    assert thread.agent == "analyst"
