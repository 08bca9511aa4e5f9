"""Tables. Later faces add their own tables here and a migration in ``migrations.py``."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Column,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

metadata = MetaData()

schema_version = Table(
    "schema_version",
    metadata,
    Column("version", Integer, primary_key=True),
    Column("applied_at", DateTime(timezone=True), nullable=False),
)

threads = Table(
    "threads",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("agent", String(64), nullable=False),
    Column("title", Text, nullable=False, default=""),
    Column("meta", JSON, nullable=False, default=dict),
    Column("created_at", DateTime(timezone=True), nullable=False),
    # The principal that created the thread ("key:<name>", "admin"), None when auth is off.
    Column("owner", String(128), nullable=True),
)

Index("ix_threads_owner", threads.c.owner)

runs = Table(
    "runs",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("thread_id", String(64), ForeignKey("threads.id"), nullable=False, index=True),
    Column("agent", String(64), nullable=False),
    Column("status", String(16), nullable=False),
    Column("input", JSON, nullable=False, default=dict),
    Column("error", Text),
    Column("usage", JSON, nullable=False, default=dict),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("finished_at", DateTime(timezone=True)),
)

events = Table(
    "events",
    metadata,
    Column("run_id", String(64), ForeignKey("runs.id"), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("thread_id", String(64), nullable=False),
    Column("kind", String(32), nullable=False),
    Column("ts", DateTime(timezone=True), nullable=False),
    Column("body", Text, nullable=False),
)

Index("ix_events_thread", events.c.thread_id)
