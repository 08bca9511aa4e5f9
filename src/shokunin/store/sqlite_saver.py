"""LangGraph's SQLite checkpointer, sharing the store's writer: one commit for a batch.

``AsyncSqliteSaver`` talks to SQLite through aiosqlite, one hop to the connection's thread
for every statement, fetch, commit and cursor, each under one lock that every run of the
server waits on; its writes commit on their own, taking SQLite's write lock from the
store's writer. Here, on a database file:

- a checkpoint is read by LangGraph's own sync ``SqliteSaver`` on a connection of its own,
  in one hop to a reader thread (WAL: readers never wait for the writer);
- checkpoints and pending writes go through the store's ``EventWriter``: they are
  committed in the same batches as the events (one transaction for many runs), and the
  caller returns once they are committed. A caller cancelled meanwhile cancels only its
  wait: the write still happens, so no transaction is left half-done holding the lock.

Listing, deleting and the rest stay ``AsyncSqliteSaver``'s. Deleting a thread waits for
the writes queued before it (else a queued checkpoint would bring the thread back) and
runs to its commit whatever happens to the caller.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import aiosqlite
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    WRITES_IDX_MAP,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    get_checkpoint_metadata,
)
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from sqlalchemy import Column, Integer, LargeBinary, MetaData, Table, Text
from sqlalchemy.dialects.sqlite import insert

from shokunin.store.event_writer import EventWriter

# The tables AsyncSqliteSaver.setup() creates, described for the writer's statements
# (LangGraph owns their schema: never created from here).
_langgraph = MetaData()
_checkpoints = Table(
    "checkpoints", _langgraph,
    Column("thread_id", Text, primary_key=True),
    Column("checkpoint_ns", Text, primary_key=True),
    Column("checkpoint_id", Text, primary_key=True),
    Column("parent_checkpoint_id", Text),
    Column("type", Text),
    Column("checkpoint", LargeBinary),
    Column("metadata", LargeBinary),
)
_writes = Table(
    "writes", _langgraph,
    Column("thread_id", Text, primary_key=True),
    Column("checkpoint_ns", Text, primary_key=True),
    Column("checkpoint_id", Text, primary_key=True),
    Column("task_id", Text, primary_key=True),
    Column("task_path", Text),
    Column("idx", Integer, primary_key=True),
    Column("channel", Text),
    Column("type", Text),
    Column("value", LargeBinary),
)
# As AsyncSqliteSaver: a checkpoint replaces one of the same id, special writes (errors,
# interrupts) replace, other writes of a task are kept as first written.
_PUT_CHECKPOINT = insert(_checkpoints).prefix_with("OR REPLACE")
_REPLACE_WRITES = insert(_writes).prefix_with("OR REPLACE")
_KEEP_WRITES = insert(_writes).prefix_with("OR IGNORE")
_BUSY_TIMEOUT = 30.0


class SharedWriterSqliteSaver(AsyncSqliteSaver):
    """``AsyncSqliteSaver`` on the store's file whose checkpoint writes go through the
    store's ``writer`` and whose reads take one hop; close with ``close_reader`` (then the
    connection ``conn``), before the store."""

    def __init__(self, conn: aiosqlite.Connection, path: str, writer: EventWriter) -> None:
        super().__init__(conn)
        self._path = path
        self._writer = writer
        self._reader = ThreadPoolExecutor(1, thread_name_prefix="checkpoint-reader")
        self._sync: SqliteSaver | None = None  # made and used in the reader thread only
        self._closed = False

    async def _ready(self) -> None:
        if self._closed:  # as AsyncSqliteSaver on its closed connection: no silent reopen
            raise RuntimeError("the checkpointer is closed")
        if not self.is_setup:
            await self.setup()

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        await self._ready()
        return await asyncio.get_running_loop().run_in_executor(
            self._reader, self._get_tuple, config)

    def _get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        if self._sync is None:
            if self._closed:
                raise RuntimeError("the checkpointer is closed")
            conn = sqlite3.connect(self._path, timeout=_BUSY_TIMEOUT, check_same_thread=False)
            self._sync = SqliteSaver(conn, serde=self.serde)
        return self._sync.get_tuple(config)

    async def aput(self, config: RunnableConfig, checkpoint: Checkpoint,
                   metadata: CheckpointMetadata, new_versions: ChannelVersions,
                   ) -> RunnableConfig:
        await self._ready()
        configurable = config["configurable"]
        thread_id, ns = configurable["thread_id"], configurable["checkpoint_ns"]
        type_, blob = self.serde.dumps_typed(checkpoint)
        meta = json.dumps(get_checkpoint_metadata(config, metadata),
                          ensure_ascii=False).encode("utf-8", "ignore")
        await self._writer.execute((_PUT_CHECKPOINT, {
            "thread_id": str(thread_id), "checkpoint_ns": ns, "checkpoint_id": checkpoint["id"],
            "parent_checkpoint_id": configurable.get("checkpoint_id"), "type": type_,
            "checkpoint": blob, "metadata": meta}))
        return {"configurable": {"thread_id": thread_id, "checkpoint_ns": ns,
                                 "checkpoint_id": checkpoint["id"]}}

    async def aput_writes(self, config: RunnableConfig, writes: Sequence[tuple[str, Any]],
                          task_id: str, task_path: str = "") -> None:
        await self._ready()
        if not writes:
            return
        configurable = config["configurable"]
        statement = (_REPLACE_WRITES if all(w[0] in WRITES_IDX_MAP for w in writes)
                     else _KEEP_WRITES)
        rows = []
        for idx, (channel, value) in enumerate(writes):
            type_, blob = self.serde.dumps_typed(value)
            rows.append((statement, {
                "thread_id": str(configurable["thread_id"]),
                "checkpoint_ns": str(configurable["checkpoint_ns"]),
                "checkpoint_id": str(configurable["checkpoint_id"]), "task_id": task_id,
                "task_path": task_path, "idx": WRITES_IDX_MAP.get(channel, idx),
                "channel": channel, "type": type_, "value": blob}))
        await self._writer.execute(*rows)

    async def adelete_thread(self, thread_id: str) -> None:
        await asyncio.shield(self._delete_thread(thread_id))

    async def _delete_thread(self, thread_id: str) -> None:
        # After every write queued before it (an empty batch returns once they are
        # committed), or a queued checkpoint would bring the thread back.
        await self._writer.execute()
        await super().adelete_thread(thread_id)

    async def close_reader(self) -> None:
        """Close the reader's connection and thread (``conn`` is closed by its owner)."""
        if self._closed:
            return
        self._closed = True
        closing = asyncio.get_running_loop().run_in_executor(self._reader, self._close_reader)
        self._reader.shutdown(wait=False)  # nothing new runs after the close
        await closing

    def _close_reader(self) -> None:
        if self._sync is not None:
            self._sync.conn.close()
            self._sync = None
