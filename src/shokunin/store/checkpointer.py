"""The server's one LangGraph checkpointer, in the store's own database.

A SQLite file -> LangGraph's ``AsyncSqliteSaver`` on that file, whose checkpoint writes go
through the store's own writer and whose reads take one hop (see sqlite_saver.py); a
PostgreSQL store -> ``AsyncPostgresSaver`` over a psycopg pool. So a thread's events and
its checkpoints live in one database and are backed up, moved and deleted together.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from langgraph.checkpoint.base import BaseCheckpointSaver

from shokunin.store.database import is_sqlite_file

if TYPE_CHECKING:
    from shokunin.store.store import Store

# SQLite: wait for the store's writer instead of failing with "database is locked".
_SQLITE_BUSY_TIMEOUT = 30.0
_PG_POOL_MAX = 10


SETUP_LOCK = 0x5E0C_4A12  # the advisory lock around LangGraph's table set-up (PostgreSQL)


async def open_checkpointer(store: Store) -> BaseCheckpointSaver:
    """Open (and set up) the checkpointer in ``store``'s database; close it with
    ``close_checkpointer`` before closing the store (its writes go through the store)."""
    url = store.engine.url
    backend = url.get_backend_name()
    if backend == "sqlite":
        return await _sqlite(url.database or ":memory:", store if is_sqlite_file(url) else None)
    if backend == "postgresql":
        return await _postgres(url.set(drivername="postgresql").render_as_string(
            hide_password=False))
    raise ValueError(f"no LangGraph checkpointer for a {backend!r} database; "
                     "use SQLite or PostgreSQL")


async def close_checkpointer(saver: BaseCheckpointSaver) -> None:
    """Close what ``open_checkpointer`` opened: connections and threads (SQLite) or the
    pool (PostgreSQL)."""
    from shokunin.store.sqlite_saver import SharedWriterSqliteSaver

    if isinstance(saver, SharedWriterSqliteSaver):
        await saver.close_reader()
    conn: Any = getattr(saver, "conn", None)
    if conn is not None:
        await conn.close()


async def _sqlite(path: str, store: Store | None) -> BaseCheckpointSaver:
    """``store`` is None for an in-memory database, which no second connection can share:
    the checkpoints then live in a memory database of their own."""
    import aiosqlite
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    from shokunin.store.sqlite_saver import SharedWriterSqliteSaver

    conn = await aiosqlite.connect(path, timeout=_SQLITE_BUSY_TIMEOUT)
    try:
        # WAL + NORMAL, as the store: readers never block the writer, no fsync per commit.
        await conn.execute("PRAGMA journal_mode=WAL")
        await conn.execute("PRAGMA synchronous=NORMAL")
        saver = (AsyncSqliteSaver(conn) if store is None
                 else SharedWriterSqliteSaver(conn, path, store.writer))
        await saver.setup()
    except BaseException:
        await conn.close()
        raise
    return saver


async def _postgres(conninfo: str) -> BaseCheckpointSaver:
    try:
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
        from psycopg.rows import dict_row
        from psycopg_pool import AsyncConnectionPool
    except ImportError as exc:  # the optional extra is missing
        raise RuntimeError("a PostgreSQL database needs the postgres extra: "
                           "pip install 'shokunin[postgres]'") from exc

    # The saver needs autocommit and dict rows; prepare_threshold=0 keeps it usable behind
    # PgBouncer-style poolers.
    pool = AsyncConnectionPool(
        conninfo, min_size=1, max_size=_PG_POOL_MAX, open=False,
        kwargs={"autocommit": True, "row_factory": dict_row, "prepare_threshold": 0})
    try:
        await pool.open(wait=True)
        saver = AsyncPostgresSaver(pool)  # type: ignore[arg-type]
        # Processes starting together on a new database set its tables up one at a time.
        # Tried, not waited for: a session blocked on the lock would hold a snapshot that
        # LangGraph's CREATE INDEX CONCURRENTLY waits for, while the holder waits on it.
        async with pool.connection() as conn:
            while not (await (await conn.execute(
                    "SELECT pg_try_advisory_lock(%s) AS got", (SETUP_LOCK,))).fetchone()
                       or {}).get("got"):
                await asyncio.sleep(0.1)
            try:
                await saver.setup()
            finally:
                await conn.execute("SELECT pg_advisory_unlock(%s)", (SETUP_LOCK,))
    except BaseException:
        await pool.close()
        raise
    return saver
