"""Typed rows: what the Store's reads of threads and runs return, instead of dicts.

``RunStatus`` is a ``StrEnum``: a member is the string it stands for, so JSON and the
database see the same text as before (``RunStatus.RUNNING == "running"``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any


class RunStatus(StrEnum):
    """Where a run is: ``running`` until it ends ``completed``, ``failed`` or
    ``cancelled``, or waits for a human (``interrupted``, then ``running`` again when
    resumed)."""

    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"
    INTERRUPTED = "interrupted"


@dataclass(frozen=True, slots=True)
class RunRow:
    """A row of ``runs``."""

    id: str
    thread_id: str
    agent: str
    status: RunStatus
    input: dict[str, Any]
    error: str | None
    usage: dict[str, Any]
    created_at: datetime
    finished_at: datetime | None
    lease_holder: str | None = None  # the process running it (store/leases.py)

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> RunRow:
        return cls(id=row["id"], thread_id=row["thread_id"], agent=row["agent"],
                   status=RunStatus(row["status"]), input=row["input"],
                   error=row["error"], usage=row["usage"],
                   created_at=row["created_at"], finished_at=row["finished_at"],
                   lease_holder=row.get("lease_holder"))


@dataclass(frozen=True, slots=True)
class ThreadRow:
    """A row of ``threads``: ``meta`` is a face's own record of it; ``owner`` the principal
    that created it (None when auth is off)."""

    id: str
    agent: str
    title: str
    meta: dict[str, Any]
    created_at: datetime
    owner: str | None
    held: bool = False  # its runs wait at their next gate (``Runner.hold``)

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> ThreadRow:
        return cls(id=row["id"], agent=row["agent"], title=row["title"],
                   meta=row["meta"], created_at=row["created_at"], owner=row["owner"],
                   held=bool(row.get("held", False)))


@dataclass(frozen=True, slots=True)
class ThreadSummary:
    """A thread as the threads API lists it: ``updated_at`` is its last run's start (else
    its creation), ``last_status`` its last run's status (None without runs)."""

    id: str
    agent: str
    title: str
    created_at: datetime
    updated_at: datetime
    run_count: int
    last_status: RunStatus | None
    owner: str | None

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> ThreadSummary:
        last = row["last_status"]
        return cls(id=row["id"], agent=row["agent"], title=row["title"],
                   created_at=row["created_at"], updated_at=row["updated_at"],
                   run_count=row["run_count"],
                   last_status=None if last is None else RunStatus(last), owner=row["owner"])
