"""Each thread's latest checkpoint, kept by the process that wrote it.

Every run of a graph starts by reading its thread's latest checkpoint, and unpacks the
whole conversation from it, although this process wrote that checkpoint itself at the end
of the thread's last run. The cost grows with the conversation: on SQLite about 0.2 ms
after one turn and 1 ms after fifty, for every turn.

The saver below keeps the checkpoint it wrote last on each thread and answers that read
from memory, after one small query shows the database's latest checkpoint of the thread is
still that one and has no pending writes. Anything else (another process, such as a second
server on PostgreSQL, wrote the thread since; an interrupt or a failed step left writes)
sends the read to the database, as before. What it hands out is a copy that the run may
change: the checkpoint's dicts and each list, dict or set among its channel values.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    get_checkpoint_id,
    get_checkpoint_metadata,
)

# A thread's checkpoint holds its conversation: keep the most recently used threads only.
MAX_THREADS = 1024

_Key = tuple[str, str]  # (thread_id, checkpoint_ns)


@dataclass(slots=True)
class _Saved:
    config: RunnableConfig
    checkpoint: Checkpoint
    metadata: str  # as the database stores it, so a hit reads back the same dict
    parent_config: RunnableConfig | None

    def as_tuple(self) -> CheckpointTuple:
        return CheckpointTuple(self.config, _copy(self.checkpoint), json.loads(self.metadata),
                               self.parent_config, [])


def _fresh(value: Any) -> Any:
    return value.copy() if isinstance(value, list | dict | set) else value


def _copy(checkpoint: Checkpoint) -> Checkpoint:
    """A copy whose containers the loop may change (it updates versions in place, and
    channels such as Topic extend their list) without changing the one kept; it has the
    same keys as the original, as a read from the database would."""
    copy: Any = {key: _fresh(value) for key, value in checkpoint.items()}
    copy["channel_values"] = {name: _fresh(value)
                              for name, value in checkpoint["channel_values"].items()}
    copy["versions_seen"] = {name: seen.copy()
                             for name, seen in checkpoint["versions_seen"].items()}
    return copy


def _key(config: RunnableConfig) -> _Key:
    configurable = config["configurable"]
    return str(configurable["thread_id"]), configurable.get("checkpoint_ns", "")


class LatestCheckpointCache:
    """Put before a LangGraph async saver in the bases; the backend says, in one query, which
    checkpoint is its latest for a thread and whether that checkpoint has pending writes.
    Every hit is checked that way, so whatever else changes a thread (pending writes,
    another process, a copy or prune) makes its next read go to the database."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._saved: OrderedDict[_Key, _Saved] = OrderedDict()

    async def _latest_in_database(self, thread_id: str, checkpoint_ns: str) -> tuple[
            str | None, bool]:
        """(the thread's latest checkpoint id or None, whether it has pending writes)."""
        raise NotImplementedError

    def _forget(self, thread_id: str) -> None:
        for key in [k for k in self._saved if k[0] == thread_id]:
            del self._saved[key]

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        key = _key(config)
        saved = self._saved.get(key)
        if saved is not None and not get_checkpoint_id(config):
            latest, has_writes = await self._latest_in_database(*key)
            if self._saved.get(key) is saved:
                if latest == saved.checkpoint["id"] and not has_writes:
                    self._saved.move_to_end(key)
                    return saved.as_tuple()
                del self._saved[key]
        return await super().aget_tuple(config)  # type: ignore[misc]

    async def aput(
        self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        key = _key(config)
        self._saved.pop(key, None)  # until the write is done, the database is the truth
        stored = await super().aput(config, checkpoint, metadata, new_versions)  # type: ignore[misc]
        parent_id = config["configurable"].get("checkpoint_id")
        self._saved[key] = _Saved(
            stored, _copy(checkpoint),
            json.dumps(get_checkpoint_metadata(config, metadata), ensure_ascii=False),
            {"configurable": {"thread_id": key[0], "checkpoint_ns": key[1],
                              "checkpoint_id": parent_id}} if parent_id else None)
        if len(self._saved) > MAX_THREADS:
            self._saved.popitem(last=False)
        return stored

    async def adelete_thread(self, thread_id: str) -> None:
        self._forget(thread_id)
        await super().adelete_thread(thread_id)  # type: ignore[misc]
