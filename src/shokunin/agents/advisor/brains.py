"""The Advisor's brains: ``LLMBrain`` detects the step with structured output and answers
with the tools; ``OfflineBrain`` (no model, ``offline``) does what the question asks with
the knowledge base and the tools, or says what it cannot do."""

from __future__ import annotations

import re
from typing import Any, Protocol

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    HumanMessage,
    InvalidToolCall,
    SystemMessage,
    ToolCall,
    ToolMessage,
)
from langchain_core.tools import BaseTool

from shokunin.agents.advisor.knowledge_tool import knowledge_tool
from shokunin.agents.advisor.offline import OfflineBrain, plugins
from shokunin.agents.advisor.playbook import UNKNOWN, Playbook
from shokunin.agents.advisor.steps import Settled, StepDetection
from shokunin.knowledge import KnowledgeIndex
from shokunin.models import ask_structured, usable_tools
from shokunin.runs import RunContext

__all__ = ["Brain", "LLMBrain", "OfflineBrain", "profile_text"]

MAX_TOOL_ROUNDS = 6
PROFILE_NAMES = {"industry": "業種", "products": "主な製品・サービス", "companySize": "企業規模",
                 "region": "地域", "clientIndustry": "主な取引先の業種",
                 "priceTransferStatus": "価格転嫁の状況"}


def profile_text(profile: dict[str, Any]) -> str:
    """The session's user profile as prompt lines (the seed's camelCase keys)."""
    return "\n".join(f"- {PROFILE_NAMES.get(k, k)}: {v}" for k, v in profile.items()
                     if v not in (None, ""))


async def _answer_call(tools: dict[str, BaseTool], call: ToolCall) -> ToolMessage:
    """The tool's answer to a model's call; a failure is an answer the model reads."""
    tool = tools.get(call["name"])
    try:
        if tool is None:
            raise LookupError(f"unknown tool {call['name']!r}; available: {', '.join(tools)}")
        content = str(await tool.ainvoke(call["args"]))
    except Exception as exc:  # noqa: BLE001 - bad arguments, a failing tool: the model reacts
        content = f"Error: {exc}"
    return ToolMessage(content=content, tool_call_id=call["id"] or "", name=call["name"])


def _refuse_call(call: InvalidToolCall) -> ToolMessage:
    """Every call needs an answer before the conversation goes on: one whose arguments did
    not parse gets why, so the model can call again."""
    return ToolMessage(
        content=f"Error: the arguments are not valid JSON ({call.get('error')}): "
                f"{call.get('args')}. Call the tool again with a JSON object.",
        tool_call_id=call.get("id") or "", name=call.get("name") or "", status="error")


class Brain(Protocol):
    name: str

    async def detect(self, message: str, playbook: Playbook,
                     history: list[AnyMessage]) -> StepDetection: ...

    async def answer(self, ctx: RunContext, message: str, playbook: Playbook,
                     settled: Settled, profile: dict[str, Any],
                     history: list[AnyMessage]) -> str: ...


def _step_in(text: str, playbook: Playbook) -> StepDetection:
    """A reply that was no JSON: the one step id it names, else no step."""
    named = {s.id for s in playbook.steps
             if re.search(rf"(?<![A-Za-z0-9_]){re.escape(s.id)}(?![A-Za-z0-9_])", text)}
    if len(named) == 1:
        return StepDetection(step=named.pop(), confidence="low",
                             reasoning="the model named this step without the JSON asked for")
    return StepDetection(step=UNKNOWN, confidence="low",
                         reasoning="the model's reply named no one step")


class LLMBrain:
    name = "llm"

    def __init__(self, model: BaseChatModel, index: KnowledgeIndex) -> None:
        self.model = model
        self.index = index

    async def detect(self, message: str, playbook: Playbook,
                     history: list[AnyMessage]) -> StepDetection:
        steps = "\n".join(f"- {s.id}: {s.title}: {s.description}" for s in playbook.steps)
        asked = await ask_structured(self.model, StepDetection, [
            SystemMessage(f"Classify the user's question into one step of this process "
                          f"({playbook.title}), or {UNKNOWN} when it fits none or is "
                          f"unclear. confidence: high, medium or low; reasoning: one short "
                          f"sentence in the question's language.\n\n{steps}"),
            *history[-4:], HumanMessage(message)])
        detection = asked.parsed or _step_in(asked.text, playbook)
        if detection.step != UNKNOWN and playbook.step(detection.step) is None:
            detection = StepDetection(step=UNKNOWN, confidence="low", reasoning=(
                f"the model named a step that does not exist: {detection.step}"))
        return detection

    async def answer(self, ctx: RunContext, message: str, playbook: Playbook,
                     settled: Settled, profile: dict[str, Any],
                     history: list[AnyMessage]) -> str:
        step = playbook.step(settled.step)
        wanted = {"calculator", "generate_diagram", "web_search"}
        tools = {"search_knowledge_base": knowledge_tool(self.index, ctx),
                 **plugins(ctx, wanted)}
        tools = {t.name: t for t in usable_tools(list(tools.values()))}
        system = playbook.prompt_for(settled.step)
        if step is not None and step.tools:
            system += f"\n\n推奨ツール: {', '.join(step.tools)}"
        if profile:
            system += f"\n\n## 相談者のプロフィール\n{profile_text(profile)}"
        if settled.ask:
            system += "\n\n質問の意図が不明確です。答える前に、状況を確認する質問を返してください。"
        if settled.proposal:
            system += (f"\n\n回答の最後に、この質問は {settled.proposal}"
                       f"「{playbook.title_of(settled.proposal)}」に近いので、そのステップへの"
                       "切り替えを提案してください。")
        model = self.model.bind_tools(list(tools.values())) if tools else self.model
        messages: list[AnyMessage] = [SystemMessage(system), *history, HumanMessage(message)]
        reply = await model.ainvoke(messages)
        for _ in range(MAX_TOOL_ROUNDS):
            if not (reply.tool_calls or reply.invalid_tool_calls):
                break
            messages.append(reply)
            messages += [await _answer_call(tools, call) for call in reply.tool_calls]
            messages += [_refuse_call(call) for call in reply.invalid_tool_calls]
            reply = await model.ainvoke(messages)
        if reply.tool_calls or reply.invalid_tool_calls:  # out of rounds: answer with no tools
            reply = await self.model.ainvoke([*messages, HumanMessage(
                "Answer now from what the tools returned, without calling more tools.")])
        assert isinstance(reply, AIMessage)
        return reply.text
