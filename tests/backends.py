"""Database backends the store is tested on: SQLite always, PostgreSQL when it answers.

CI starts PostgreSQL (.ci/run); on a machine without it the postgres cases skip with a reason.
"""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

PG_ADMIN_URL = os.environ.get(
    "SHOKUNIN_TEST_PG_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres")


def postgres_available() -> bool:
    try:
        import asyncpg  # noqa: F401
    except ImportError:
        return False
    try:
        with socket.create_connection(("127.0.0.1", 5432), timeout=0.5):
            return True
    except OSError:
        return False


@asynccontextmanager
async def database_url(backend: str, tmp_path: Path) -> AsyncIterator[str]:
    """Yield a URL of an empty database of the given backend, dropped afterwards."""
    if backend == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'store.db'}"
        return
    name = f"shokunin_test_{uuid.uuid4().hex[:12]}"
    admin = create_async_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    await create_database(admin, name)
    try:
        yield PG_ADMIN_URL.rsplit("/", 1)[0] + f"/{name}"
    finally:
        async with admin.connect() as conn:
            await conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        await admin.dispose()


async def create_database(admin: AsyncEngine, name: str) -> None:
    """``CREATE DATABASE name`` (tests/conftest.py sees who makes one)."""
    async with admin.connect() as conn:
        await conn.execute(text(f'CREATE DATABASE "{name}"'))
