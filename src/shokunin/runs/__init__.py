"""Runs: the Runner (start / resume / cancel / stream) and the EventBus."""

from shokunin.runs.bus import EventBus, MemoryBus
from shokunin.runs.context import RunContext, RunServices
from shokunin.runs.errors import (
    InvalidRunInput,
    InvalidThreadId,
    RunError,
    RunNotFound,
    RunStateError,
    ThreadOfAnotherFace,
    UnknownAgent,
)
from shokunin.runs.ids import THREAD_ID_RULE, check_thread_id, new_thread_id
from shokunin.runs.runner import Agent, Interrupted, Runner

__all__ = [
    "THREAD_ID_RULE", "Agent", "EventBus", "Interrupted", "InvalidRunInput", "InvalidThreadId",
    "MemoryBus", "RunContext", "RunServices", "RunError", "RunNotFound", "RunStateError", "Runner",
    "ThreadOfAnotherFace", "UnknownAgent", "check_thread_id", "new_thread_id",
]
