"""The Advisor's brains. ``OfflineBrain`` (no model) detects the step with the playbook's
index and answers with what the knowledge base holds, cited, and the calculator's result
for an expression in the question; it says plainly that it quotes rather than advises.
``LLMBrain`` detects with structured output and answers with the tools."""

from __future__ import annotations

import json
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

from shokunin.agents.advisor.knowledge_tool import knowledge_tool, search_knowledge
from shokunin.agents.advisor.playbook import UNKNOWN, Playbook
from shokunin.agents.advisor.steps import Settled, StepClassifier, StepDetection
from shokunin.knowledge import KnowledgeIndex
from shokunin.models import usable_tools
from shokunin.runs import RunContext

EXCERPT_CHARS = 400
MAX_TOOL_ROUNDS = 6
PROFILE_NAMES = {"industry": "業種", "products": "主な製品・サービス", "companySize": "企業規模",
                 "region": "地域", "clientIndustry": "主な取引先の業種",
                 "priceTransferStatus": "価格転嫁の状況"}
# 1,200 × 1.08, (450+300)/2: an arithmetic expression of at least two numbers
_NUMBER = r"[(（]?\s*\d[\d,.]*\s*[)）]?"
_EXPRESSION = re.compile(rf"{_NUMBER}(?:\s*[-+*/×÷＋－＊／]\s*{_NUMBER})+")


_JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
_DIAGRAM_WORDS = re.compile(r"図|グラフ|チャート|可視化|diagram|chart|graph", re.IGNORECASE)
_DIAGRAM_KINDS = (("flowchart", re.compile(r"流れ|フロー|手順|プロセス")),
                  ("network", re.compile(r"関係図|つながり|ネットワーク")),
                  ("line", re.compile(r"推移|折れ線|変化|トレンド")))


def _diagram_kind(message: str) -> str | None:
    """The diagram a message asks for (bar unless it names another kind), or None."""
    if not _DIAGRAM_WORDS.search(message):
        return None
    return next((kind for kind, words in _DIAGRAM_KINDS if words.search(message)), "bar")


def _quote(text: str) -> str:
    """The start of a chunk as a Markdown quote, cut at a line end (tables stay tables)."""
    lines, size = [], 0
    for line in text.strip().splitlines():
        if size and size + len(line) > EXCERPT_CHARS:
            lines.append("…")
            break
        lines.append(line)
        size += len(line)
    return "\n".join(f"> {line}" if line.strip() else ">" for line in lines)


def profile_text(profile: dict[str, Any]) -> str:
    """The session's user profile as prompt lines (the seed's camelCase keys)."""
    return "\n".join(f"- {PROFILE_NAMES.get(k, k)}: {v}" for k, v in profile.items()
                     if v not in (None, ""))


def _plugins(ctx: RunContext, names: set[str]) -> dict[str, BaseTool]:
    registry = ctx.services.tools
    if registry is None:
        return {}
    from shokunin.agents.tool_adapter import as_langchain_tools

    return {t.name: t for t in as_langchain_tools(registry, ctx) if t.name in names}


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


class OfflineBrain:
    name = "offline"

    def __init__(self, playbook: Playbook, index: KnowledgeIndex) -> None:
        self.classifier = StepClassifier(playbook, index)
        self.index = index

    async def detect(self, message: str, playbook: Playbook,
                     history: list[AnyMessage]) -> StepDetection:
        return self.classifier.detect(message)

    async def answer(self, ctx: RunContext, message: str, playbook: Playbook,
                     settled: Settled, profile: dict[str, Any],
                     history: list[AnyMessage]) -> str:
        # what the message asks to compute or draw is done whatever its step
        done: list[str] = []
        plugins = _plugins(ctx, {"calculator", "generate_diagram"})
        expression = _EXPRESSION.search(message)
        if expression and "calculator" in plugins:
            done.append(await self._calculate(plugins["calculator"], expression.group(0)))
        kind = _diagram_kind(message)
        if kind is not None and "generate_diagram" in plugins:
            done.append(await self._draw(plugins["generate_diagram"], kind, message))
        if settled.ask and not _JAPANESE.search(message):
            return "\n\n".join([*done, (
                "Offline (no model configured), the Advisor reads questions in Japanese "
                f"against its Japanese knowledge base and playbook ({playbook.title}); I "
                "found nothing in yours to go on. Ask in Japanese, or set SHOKUNIN_MODEL "
                "for answers in English.")])
        if settled.ask:
            steps = "\n".join(f"- {s.id}: {s.title}" for s in playbook.steps)
            near = settled.proposal
            guess = (f"（近いと思われるのは {near}「{playbook.title_of(near)}」です。）\n"
                     if near else "")
            return "\n\n".join([*done, (
                f"ご質問が「{playbook.title}」のどの段階のお話か、判断できませんでした。"
                f"{guess}次のどれに近いか、または状況をもう少し教えてください。\n\n{steps}")])
        parts: list[str] = []
        if settled.step and settled.step != UNKNOWN:
            parts.append(f"**{settled.step}「{playbook.title_of(settled.step)}」**の観点でお答えします。")
        parts += done
        found = await search_knowledge(self.index, ctx, message, 3)
        hits = (found["result"] or {}).get("results", [])
        if hits:
            parts.append("ナレッジベースの該当箇所です（モデル未設定のオフライン動作のため、"
                         "要約や助言の生成はせず、関連する記述をそのまま引用しています）。")
            for i, hit in enumerate(hits, start=1):
                parts.append(f"{i}. **{hit['heading']}**〔出典: {hit['source']}、"
                             f"スコア {hit['score']:.2f}〕\n\n{_quote(hit['text'])}")
        else:
            parts.append("ナレッジベースに該当する記述が見つかりませんでした。モデル未設定の"
                         "オフライン動作では、ナレッジベースにない内容にはお答えできません"
                         "（SHOKUNIN_MODEL を設定すると一般的な助言もできます）。")
        if settled.proposal:
            parts.append(f"このご質問は {settled.proposal}「{playbook.title_of(settled.proposal)}」"
                         "の内容に近いようです。このステップに切り替えますか？"
                         "（「はい」で切り替えます）")
        return "\n\n".join(parts)

    @staticmethod
    async def _draw(tool: BaseTool, kind: str, message: str) -> str:
        # the sentences holding numbers are the data; the first without is the title
        # ("原価の内訳をグラフにしてください" -> 原価の内訳)
        sentences = [s.strip() for s in re.split(r"[。\n]", message) if s.strip()]
        data = [s for s in sentences if re.search(r"\d", s)]
        title = next((s for s in sentences if not re.search(r"\d", s)), "")
        title = re.sub(r"[をの]?(グラフ|図|チャート|可視化).*$", "", title)[:30]
        answer = json.loads(await tool.ainvoke({
            "diagram_type": kind, "title": title or "図",
            "description": "\n".join(data) if kind in ("bar", "line") and data else message}))
        if answer.get("success"):
            return "図を作成しました（図生成ツール）。"
        return f"図は作成できませんでした: {answer.get('error')}"

    @staticmethod
    async def _calculate(calculator: BaseTool, raw: str) -> str:
        expression = raw.translate(str.maketrans("×÷＋－＊／（）", "*/+-*/()")).replace(
            ",", "").strip()
        answer = json.loads(await calculator.ainvoke({"expression": expression}))
        if answer.get("success"):
            result = answer["result"]
            value = result.get("value", result) if isinstance(result, dict) else result
            return f"計算: `{expression}` = **{value}**（電卓ツール）"
        return f"計算できませんでした（`{expression}`）: {answer.get('error')}"


class LLMBrain:
    name = "llm"

    def __init__(self, model: BaseChatModel, index: KnowledgeIndex) -> None:
        self.model = model
        self.index = index

    async def detect(self, message: str, playbook: Playbook,
                     history: list[AnyMessage]) -> StepDetection:
        steps = "\n".join(f"- {s.id}: {s.title}: {s.description}" for s in playbook.steps)
        decide = self.model.with_structured_output(StepDetection)
        detection = await decide.ainvoke([
            SystemMessage(f"Classify the user's question into one step of this process "
                          f"({playbook.title}), or {UNKNOWN} when it fits none or is "
                          f"unclear. confidence: high, medium or low; reasoning: one short "
                          f"sentence in the question's language.\n\n{steps}"),
            *history[-4:], HumanMessage(message)])
        assert isinstance(detection, StepDetection)
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
                 **_plugins(ctx, wanted)}
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
