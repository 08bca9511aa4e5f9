"""The Analyst's dataset records: one row per uploaded file (``schema.analyst_datasets``)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncEngine

from shokunin.store import schema

table = schema.analyst_datasets


class DatasetRecords:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def add(self, row: dict[str, Any]) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(table.insert().values(**row))

    async def get(self, dataset_id: str) -> dict[str, Any] | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(
                select(table).where(table.c.id == dataset_id))).mappings().first()
            return dict(row) if row else None

    async def for_thread(self, thread_id: str) -> list[dict[str, Any]]:
        """The thread's datasets, oldest first."""
        async with self.engine.connect() as conn:
            rows = await conn.execute(select(table).where(table.c.thread_id == thread_id)
                                      .order_by(table.c.created_at, table.c.id))
            return [dict(row) for row in rows.mappings()]

    async def delete(self, dataset_id: str) -> bool:
        async with self.engine.begin() as conn:
            result = await conn.execute(delete(table).where(table.c.id == dataset_id))
            return result.rowcount == 1
