"""Runs: the Runner (start / resume / cancel / stream) and the EventBus."""

from shokunin.runs.bus import EventBus, MemoryBus
from shokunin.runs.context import RunContext, Usage
from shokunin.runs.errors import RunError, RunNotFound, RunStateError, UnknownAgent
from shokunin.runs.runner import Agent, Interrupted, Runner

__all__ = [
    "Agent", "EventBus", "Interrupted", "MemoryBus", "RunContext", "RunError", "RunNotFound",
    "RunStateError", "Runner", "UnknownAgent", "Usage",
]
