"""Runs: the Runner (start / resume / cancel / stream), the EventBus (in-process, or Redis
across processes), and the use cases every face shares: who may see a thread (``access``),
following a run (``follow``)."""

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
from shokunin.runs.deletion import delete_thread
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
from shokunin.runs.failure import new_error_id, redact_paths
from shokunin.runs.follow import AnswerSoFar, answer_of, follow, follow_to_end
from shokunin.runs.history import iso, thread_messages
from shokunin.runs.ids import THREAD_ID_RULE, check_thread_id, new_thread_id
from shokunin.runs.position import ThreadPosition
from shokunin.runs.queue import QueuedRun, QueueUnavailable, RunQueue
from shokunin.runs.redis_bus import RedisBus
from shokunin.runs.runner import Agent, Interrupted, Recovers, Recovery, Runner
from shokunin.runs.thread_feed import ThreadFeed

__all__ = ["Agent", "AnswerSoFar", "EventBus", "Interrupted", "InvalidRunInput",
    "InvalidThreadId", "MemoryBus", "QueueUnavailable", "QueuedRun", "Recovers", "Recovery",
    "RedisBus", "RunContext", "RunError", "RunNotFound", "RunQueue", "RunServices",
    "RunStateError", "Runner", "THREAD_ID_RULE", "ThreadFeed", "ThreadNotFound",
    "ThreadOfAnotherFace", "ThreadPosition", "UnknownAgent", "answer_of", "check_thread_id",
    "delete_thread", "follow", "follow_to_end", "iso", "listed_threads", "may_see", "may_use",
    "new_error_id", "new_thread_id", "owner_scope", "redact_paths", "sees", "thread_for",
    "thread_messages", "visible_run", "visible_thread"]
