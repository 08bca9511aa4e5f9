"""AdvisorAgent: one turn of the step-guided consultation on a session's thread. Input
``{"message"}`` asks; ``{"set_step"}`` moves the focus to a step the user chose. The
session's profile (``user_info``) is read from the thread's meta."""

from __future__ import annotations

from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

from shokunin.agents.advisor.brains import Brain
from shokunin.agents.advisor.graph import AdvisorDeps, build_graph
from shokunin.agents.advisor.playbook import UNKNOWN, Playbook
from shokunin.agents.driver import drive
from shokunin.knowledge import KnowledgeIndex
from shokunin.runs import InvalidRunInput, RunContext

NAME = "advisor"
MAX_MESSAGE_CHARS = 8000


class AdvisorAgent:
    name = NAME
    # Its tools are stored as events before they act (Agent: restart).
    restartable = True

    def __init__(self, brain: Brain, playbook: Playbook, index: KnowledgeIndex,
                 checkpointer: BaseCheckpointSaver | None) -> None:
        self.brain = brain
        self.playbook = playbook
        self.index = index
        self.graph = build_graph(brain, playbook, checkpointer)

    async def run(self, ctx: RunContext, input: dict[str, Any]) -> dict[str, Any]:
        chosen = input.get("set_step")
        message = input.get("message")
        if chosen is not None:
            if chosen != UNKNOWN and self.playbook.step(str(chosen)) is None:
                raise InvalidRunInput(f"no step {str(chosen)[:64]!r} in the playbook")
            fresh: dict[str, Any] = {"set_step": str(chosen), "message": ""}
        elif isinstance(message, str) and message.strip():
            if len(message) > MAX_MESSAGE_CHARS:
                raise InvalidRunInput(f"the message is longer than {MAX_MESSAGE_CHARS} "
                                      "characters")
            fresh = {"set_step": None, "message": message.strip()}
        else:
            raise InvalidRunInput("send a non-empty 'message' (or 'set_step')")
        thread = await ctx.store.get_thread(ctx.thread_id)
        profile = dict(((thread.meta if thread else None) or {}).get("user_info") or {})
        config = {"configurable": {"thread_id": ctx.thread_id}}
        state = await drive(self.graph, ctx, fresh, config=config,
                            context=AdvisorDeps(ctx=ctx, profile=profile),
                            models=self.brain.name != "offline")
        messages = state.get("messages", [])
        content = str(messages[-1].content) if messages and fresh["message"] else ""
        return {"content": content, "current_step": state.get("current_step")}

    async def aclose(self) -> None:
        self.index.close()
