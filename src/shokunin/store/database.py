"""Engine creation: SQLite (WAL, foreign keys) by default, any async SQLAlchemy URL otherwise."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine, event
from sqlalchemy import create_engine as create_sync_engine
from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine


def _pragmas(dbapi_conn, _record) -> None:  # noqa: ANN001 - DBAPI types
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()


def is_sqlite_file(url: URL) -> bool:
    """A SQLite database in a file, which several connections can share."""
    return url.get_backend_name() == "sqlite" and bool(url.database) and (
        url.database != ":memory:" and url.query.get("mode") != "memory")


def create_engine(url: str) -> AsyncEngine:
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        # a database that does not answer fails a request in seconds, not asyncpg's minute
        connect = {"timeout": 5} if parsed.get_driver_name() == "asyncpg" else {}
        return create_async_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20,
                                   connect_args=connect)
    if is_sqlite_file(parsed):
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)  # type: ignore[arg-type]
    engine = create_async_engine(url, connect_args={"timeout": 30})
    event.listen(engine.sync_engine, "connect", _pragmas)
    return engine


def sqlite_writer_engine(engine: AsyncEngine) -> Engine | None:
    """A sync engine on the same SQLite file as ``engine``, for a writer that commits a whole
    batch in one hop to its own thread (through the async driver every statement, the
    commit and each cursor is a hop to the connection's thread). None for other databases
    and for in-memory SQLite, whose data lives in one connection."""
    if not is_sqlite_file(engine.url):
        return None
    sync = create_sync_engine(engine.url.set(drivername="sqlite+pysqlite"),
                              connect_args={"timeout": 30})
    event.listen(sync, "connect", _pragmas)
    return sync
