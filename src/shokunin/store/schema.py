"""Tables. Later faces add their own tables here and a migration in ``migrations.py``."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Float,
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
    # Its runs wait at their next gate (``Runner.hold``), in whichever process runs them.
    Column("held", Boolean, nullable=False, server_default="0"),
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
    # Who runs it and until when they vouch for it (store/leases.py); a cancel asked of
    # the process that runs it, read at its next heartbeat.
    Column("lease_holder", String(128)),
    Column("lease_until", DateTime(timezone=True)),
    Column("cancel_requested", Boolean, nullable=False, default=False,
           server_default="0"),
)

Index("ix_runs_status", runs.c.status)

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

# Events of a thread itself, not of one of its runs (a Studio project's status changed by a
# person, a checkpoint resolved): numbered per thread (``seq`` gap-free from 1), stored
# before they are published like a run's, so a client replays what it missed.
thread_events = Table(
    "thread_events",
    metadata,
    Column("thread_id", String(64), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("kind", String(32), nullable=False),
    Column("ts", DateTime(timezone=True), nullable=False),
    Column("body", Text, nullable=False),
)

# Which process holds a thread's live sandbox kernel (its variables), until when it vouches
# for it (renewed on its heartbeat, like a run's lease), and the job queue that reaches it
# (a worker's own; None for a web process): a thread's next run goes to that worker, and a
# kernel started anywhere else says the variables are gone (store/kernel_homes.py).
kernel_homes = Table(
    "kernel_homes",
    metadata,
    Column("thread_id", String(64), primary_key=True),
    Column("holder", String(128), nullable=False),
    Column("queue", String(128)),
    Column("until", DateTime(timezone=True), nullable=False),
    # Why the kernel it held was shut down early (the caps), told wherever the next starts.
    Column("lost", Text),
)
Index("ix_kernel_homes_holder", kernel_homes.c.holder)

# API keys (``shokunin auth create-key``): the secret is kept only as a slow salted hash.
# A revoked key keeps its row (revoked_at set), so its name can be given to a new key.
api_keys = Table(
    "api_keys",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("name", String(64), nullable=False),
    Column("secret_hash", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("revoked_at", DateTime(timezone=True)),
)

Index("ux_api_keys_active_name", api_keys.c.name, unique=True,
      sqlite_where=api_keys.c.revoked_at.is_(None),
      postgresql_where=api_keys.c.revoked_at.is_(None))

# Files uploaded to the Analyst (seed 004): the file lives in the thread's workspace under
# ``path``; the row says how to read it and what it holds. Deleting the thread deletes them.
analyst_datasets = Table(
    "analyst_datasets",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("thread_id", String(64), ForeignKey("threads.id", ondelete="CASCADE"),
           nullable=False, index=True),
    Column("original_name", Text, nullable=False),
    Column("size_bytes", BigInteger, nullable=False),
    Column("format", String(16), nullable=False),
    Column("encoding", String(32)),
    Column("encoding_method", String(32)),
    Column("delimiter", String(4)),
    Column("header", Boolean, nullable=False),
    Column("engine", String(16), nullable=False),
    Column("path", Text, nullable=False),
    Column("profile", JSON, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

# The Studio (seed 002). A project is a thread (its id is the thread's): deleting the thread
# deletes the project, and a project's rows go with it. Ids of agents, checkpoints and
# outputs are derived from what they are (project, agent type, task, attempt), so a node
# that LangGraph re-runs finds the row it wrote instead of writing a second one.
studio_projects = Table(
    "studio_projects",
    metadata,
    Column("id", String(64), ForeignKey("threads.id", ondelete="CASCADE"), primary_key=True),
    Column("name", Text, nullable=False),
    Column("description", Text),
    Column("concept", JSON),
    Column("config", JSON),
    Column("status", String(16), nullable=False),
    Column("current_phase", Integer, nullable=False),
    Column("state", JSON),
    Column("pipeline", JSON, nullable=False),  # the pipeline it was created with
    Column("run_id", String(64)),  # its current run
    Column("elapsed_seconds", Float, nullable=False, default=0.0),  # running time before now
    Column("running_since", DateTime(timezone=True)),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)

studio_agents = Table(
    "studio_agents",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("project_id", String(64), ForeignKey("studio_projects.id", ondelete="CASCADE"),
           nullable=False, index=True),
    Column("type", String(32), nullable=False),
    Column("status", String(16), nullable=False),
    Column("progress", Integer, nullable=False, default=0),
    Column("current_task", Text),
    Column("tokens_used", Integer, nullable=False, default=0),
    Column("started_at", DateTime(timezone=True)),
    Column("completed_at", DateTime(timezone=True)),
    Column("duration_ms", Integer),
    Column("error", Text),
    Column("parent_agent_id", String(64)),
    Column("metadata", JSON, nullable=False, default=dict),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

Index("ix_studio_agents_type_done", studio_agents.c.type, studio_agents.c.completed_at)

studio_checkpoints = Table(
    "studio_checkpoints",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("project_id", String(64), ForeignKey("studio_projects.id", ondelete="CASCADE"),
           nullable=False, index=True),
    Column("agent_id", String(64), nullable=False),
    Column("type", String(32), nullable=False),
    Column("title", Text, nullable=False),
    Column("description", Text),
    Column("output", JSON, nullable=False),
    Column("status", String(24), nullable=False),
    Column("feedback", Text),
    Column("resolved_at", DateTime(timezone=True)),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)

studio_outputs = Table(
    "studio_outputs",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("project_id", String(64), ForeignKey("studio_projects.id", ondelete="CASCADE"),
           nullable=False, index=True),
    Column("agent_id", String(64), nullable=False, index=True),
    Column("output_type", String(32), nullable=False),
    Column("content", JSON),
    Column("file_path", Text),
    Column("tokens_used", Integer, nullable=False, default=0),
    Column("generation_time_ms", Integer, nullable=False, default=0),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

studio_logs = Table(
    "studio_logs",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("project_id", String(64), ForeignKey("studio_projects.id", ondelete="CASCADE"),
           nullable=False, index=True),
    Column("agent_id", String(64), nullable=False, index=True),
    Column("timestamp", DateTime(timezone=True), nullable=False),
    Column("level", String(8), nullable=False),
    Column("message", Text, nullable=False),
    Column("progress", Integer),
    Column("metadata", JSON),
)
