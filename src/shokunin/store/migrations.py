"""Schema migrations: an ordered list of steps, each applied once and recorded.

Migrations are code, so a fresh database and an old one end at the same schema.
Each step is a function of a sync connection (run through ``run_sync``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime

from sqlalchemy import Connection, inspect, select, text
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine

from shokunin.store import schema

MIGRATION_LOCK = 0x5E0C_4A11  # the PostgreSQL advisory lock migrating processes take in turn
SQLITE_RETRIES = 8


def _v1_core(conn: Connection) -> None:
    for table in (schema.threads, schema.runs, schema.events):
        table.create(conn, checkfirst=True)
    for index in schema.events.indexes:
        index.create(conn, checkfirst=True)


def _v2_thread_owner(conn: Connection) -> None:
    """Threads remember who created them (auth scoping). A database made by v1 with today's
    table already has the column; an older one gets it added."""
    if "owner" not in {c["name"] for c in inspect(conn).get_columns("threads")}:
        conn.execute(text("ALTER TABLE threads ADD COLUMN owner VARCHAR(128)"))
    for index in schema.threads.indexes:
        index.create(conn, checkfirst=True)


def _v3_api_keys(conn: Connection) -> None:
    schema.api_keys.create(conn, checkfirst=True)
    for index in schema.api_keys.indexes:
        index.create(conn, checkfirst=True)


def _v4_analyst_datasets(conn: Connection) -> None:
    schema.analyst_datasets.create(conn, checkfirst=True)
    for index in schema.analyst_datasets.indexes:
        index.create(conn, checkfirst=True)


def _v5_studio(conn: Connection) -> None:
    for table in (schema.studio_projects, schema.studio_agents, schema.studio_checkpoints,
                  schema.studio_outputs, schema.studio_logs):
        table.create(conn, checkfirst=True)
        for index in table.indexes:
            index.create(conn, checkfirst=True)


def _v6_thread_events(conn: Connection) -> None:
    schema.thread_events.create(conn, checkfirst=True)


def _v7_run_leases(conn: Connection) -> None:
    """Runs name the process that runs them (leases): several processes share a database."""
    have = {c["name"] for c in inspect(conn).get_columns("runs")}
    for column in ("lease_holder", "lease_until", "cancel_requested"):
        if column not in have:
            col = schema.runs.c[column]
            kind = col.type.compile(dialect=conn.dialect)
            default = " NOT NULL DEFAULT false" if column == "cancel_requested" else ""
            conn.execute(text(f"ALTER TABLE runs ADD COLUMN {column} {kind}{default}"))
    for index in schema.runs.indexes:
        index.create(conn, checkfirst=True)


def _v8_thread_holds(conn: Connection) -> None:
    """A pause is recorded on the thread: a process that does not run its run sees it."""
    if "held" not in {c["name"] for c in inspect(conn).get_columns("threads")}:
        conn.execute(text("ALTER TABLE threads ADD COLUMN held BOOLEAN NOT NULL DEFAULT false"))


def _v9_kernel_homes(conn: Connection) -> None:
    """Threads' kernels are found in whichever process holds them (workers, kernel affinity)."""
    schema.kernel_homes.create(conn, checkfirst=True)
    for index in schema.kernel_homes.indexes:
        index.create(conn, checkfirst=True)


MIGRATIONS: list[tuple[int, Callable[[Connection], None]]] = [
    (1, _v1_core), (2, _v2_thread_owner), (3, _v3_api_keys), (4, _v4_analyst_datasets),
    (5, _v5_studio), (6, _v6_thread_events), (7, _v7_run_leases),
    (8, _v8_thread_holds), (9, _v9_kernel_homes)]
LATEST = MIGRATIONS[-1][0]


def _current(conn: Connection) -> int:
    if not inspect(conn).has_table("schema_version"):
        schema.schema_version.create(conn)
        return 0
    row = conn.execute(select(schema.schema_version.c.version).order_by(
        schema.schema_version.c.version.desc()).limit(1)).first()
    return row[0] if row else 0


def _apply(conn: Connection) -> list[int]:
    applied = []
    current = _current(conn)
    for version, step in MIGRATIONS:
        if version > current:
            step(conn)
            conn.execute(schema.schema_version.insert().values(
                version=version, applied_at=datetime.now(UTC)))
            applied.append(version)
    return applied


async def migrate(engine: AsyncEngine) -> list[int]:
    """Bring the database to the latest schema; return the versions applied. Processes
    that start together on one database (web processes and workers) apply each step once:
    on PostgreSQL they wait for one another's lock; on SQLite the one whose snapshot went
    stale while another migrated starts again and finds the steps done."""
    for attempt in range(SQLITE_RETRIES + 1):
        try:
            async with engine.begin() as conn:
                if engine.dialect.name == "postgresql":
                    await conn.execute(text("SELECT pg_advisory_xact_lock(:key)"),
                                       {"key": MIGRATION_LOCK})
                return await conn.run_sync(_apply)
        except (OperationalError, IntegrityError):
            if engine.dialect.name == "postgresql" or attempt == SQLITE_RETRIES:
                raise
            await asyncio.sleep(0.05 * (attempt + 1))
    raise AssertionError("unreachable")
