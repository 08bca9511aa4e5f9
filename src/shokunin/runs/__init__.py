"""Runs: the Runner (start / resume / cancel / stream), the EventBus, and the use cases every
face shares: who may see a thread (``access``), following a run (``follow``)."""

from shokunin.runs.access import (
    listed_threads,
    may_see,
    may_use,
    owner_scope,
    sees,
    thread_for,
    visible_run,
    visible_thread,
)
from shokunin.runs.bus import EventBus, MemoryBus
from shokunin.runs.context import RunContext, RunServices
from shokunin.runs.errors import (
    InvalidRunInput,
    InvalidThreadId,
    RunError,
    RunNotFound,
    RunStateError,
    ThreadNotFound,
    ThreadOfAnotherFace,
    UnknownAgent,
)
from shokunin.runs.ids import THREAD_ID_RULE, check_thread_id, new_thread_id
from shokunin.runs.position import ThreadPosition
from shokunin.runs.runner import Agent, Interrupted, Recovers, Recovery, Runner
from shokunin.runs.thread_feed import ThreadFeed

__all__ = [
    "THREAD_ID_RULE", "Agent", "EventBus", "Interrupted", "InvalidRunInput", "InvalidThreadId",
    "MemoryBus", "Recovers", "Recovery", "RunContext", "RunError", "RunNotFound", "RunServices",
    "RunStateError", "Runner", "ThreadFeed", "ThreadNotFound", "ThreadOfAnotherFace",
    "ThreadPosition", "UnknownAgent", "check_thread_id", "listed_threads", "may_see",
    "may_use", "new_thread_id", "owner_scope", "sees", "thread_for", "visible_run",
    "visible_thread",
]
