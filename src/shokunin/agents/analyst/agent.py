"""AnalystAgent: answers a question about one of the thread's datasets with seed 004's
graph, on the server's one checkpointer (so a clarification survives a restart)."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.checkpoint.base import BaseCheckpointSaver

from shokunin.agents.analyst.graph import AnalystDeps, Brain, build_graph
from shokunin.agents.analyst.storage import load_record
from shokunin.agents.driver import drive
from shokunin.errors import ErrorCode, ShokuninError
from shokunin.runs import RunContext

RECURSION_LIMIT = 30


NAME = "analyst"
MAX_QUESTION_CHARS = 4000  # a question any face accepts


class UnknownDataset(ShokuninError, LookupError):
    """The run names a dataset the thread does not have."""
    status = 404
    code = ErrorCode.NOT_FOUND


class AnalystAgent:
    name = NAME
    # Its tools and cells are stored as events before they act (Agent: restart).
    restartable = True

    def __init__(self, brain: Brain, checkpointer: BaseCheckpointSaver | None,
                 max_attempts: int = 3) -> None:
        self.brain = brain
        self.max_attempts = max_attempts
        self.graph = build_graph(brain, checkpointer)

    async def run(self, ctx: RunContext, input: dict[str, Any]) -> dict[str, Any]:
        dataset_id = str(input.get("dataset_id", ""))
        record = await load_record(ctx.store.engine, dataset_id)
        if record is None or record.thread_id != ctx.thread_id:
            raise UnknownDataset(f"this thread has no dataset {dataset_id!r}")
        config = {"configurable": {"thread_id": ctx.thread_id},
                  "recursion_limit": RECURSION_LIMIT}
        fresh: dict[str, Any] = {}
        if ctx.resume_value is None:  # a new question: its cells start after the thread's
            before = await self.graph.aget_state(config) if self.graph.checkpointer else None
            question = str(input.get("question", ""))
            fresh = {"messages": [HumanMessage(question)], "question": question,
                     "dataset_id": dataset_id, "decision": None, "report": None,
                     "turn_start": len((before.values if before else {}).get("cells", []))}
        deps = AnalystDeps(ctx=ctx, record=record, max_attempts=self.max_attempts)
        state = await drive(self.graph, ctx, fresh, config=config, context=deps,
                            models=self.brain.name != "offline")
        return {"report": state.get("report"), "cells": len(state.get("cells", []))}
