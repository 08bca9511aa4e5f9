"""Brains decide the next step: tool calls or a final answer, as an AIMessage.

LLMBrain asks a chat model with the run's tools bound; OfflineBrain (offline_brain.py)
computes the same kind of message with no model.
"""

from __future__ import annotations

from typing import Protocol

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AnyMessage, SystemMessage, ToolMessage

from shokunin.agents.workbench.deps import RunDeps


class Brain(Protocol):
    name: str
    calls_model: bool  # False: no tokens to stream, no usage to record

    async def decide(self, messages: list[AnyMessage], deps: RunDeps) -> AIMessage: ...


def answered_only(messages: list[AnyMessage]) -> list[AnyMessage]:
    """Drop tool calls left unanswered (by a cancelled run, or broken calls of older
    versions that never answered them): providers reject them."""
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    return [m for m in messages if not (
        isinstance(m, AIMessage)
        and any(c["id"] not in answered for c in [*m.tool_calls, *m.invalid_tool_calls]))]


class LLMBrain:
    name = "llm"
    calls_model = True

    def __init__(self, model: BaseChatModel, system_prompt: str) -> None:
        self.model = model
        self.system_prompt = system_prompt

    async def decide(self, messages: list[AnyMessage], deps: RunDeps) -> AIMessage:
        bound = self.model.bind_tools(list(deps.tools.values()))
        # No callbacks of our own here: they would replace the graph's, which stream the
        # reply's tokens and record its usage (see shokunin.agents.driver). A failed call
        # raises the model's failure class (models.errors) already.
        reply = await bound.ainvoke([SystemMessage(self.system_prompt),
                                     *answered_only(messages)])
        return reply if isinstance(reply, AIMessage) else AIMessage(content=str(reply))
