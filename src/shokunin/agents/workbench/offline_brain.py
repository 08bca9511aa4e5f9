"""OfflineBrain: decides like a model would, with a grammar instead of a model.

First turn of a request: read it (intents) into tool calls, or say plainly what it cannot
do. After the tools ran: answer from their results, plus what was not done. The graph
cannot tell the difference. Reading is bounded (intents.MAX_CHARS) and linear, and runs
in a worker thread.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage

from shokunin.agents.workbench import intents, replies
from shokunin.agents.workbench.charts import chart_code
from shokunin.agents.workbench.decision import text_of
from shokunin.agents.workbench.deps import RunDeps
from shokunin.maps import MapPackage

_INLINE_CHARS = 120


class OfflineBrain:
    name = "offline"
    calls_model = False

    def __init__(self, pkg: MapPackage, sample_db: Path) -> None:
        self.pkg = pkg
        self.sample_db = sample_db

    async def decide(self, messages: list[AnyMessage], deps: RunDeps) -> AIMessage:
        start = max(i for i, m in enumerate(messages) if isinstance(m, HumanMessage))
        text, tools = text_of(messages[start]), set(deps.tools)
        # Bounded and linear, but a 1,000-character message of tiny clauses still takes
        # some milliseconds: off the event loop, so no other client waits for it. A short
        # one (most) is read in place: a thread hop would cost more than reading it.
        plan = (intents.plan(text, self.pkg, tools, deps.language) if len(text) <= _INLINE_CHARS
                else await asyncio.to_thread(intents.plan, text, self.pkg, tools, deps.language))
        since = messages[start + 1:]
        if since and isinstance(since[-1], ToolMessage):
            return AIMessage(content=self._answer(plan, since))
        if not plan.steps:
            return AIMessage(content=self._cannot(plan))
        return AIMessage(content="", tool_calls=[
            {"name": s.name, "args": self._fill(s.name, s.args),
             "id": f"call_{uuid.uuid4().hex[:12]}", "type": "tool_call"} for s in plan.steps])

    def _fill(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        if name == "run_python" and isinstance(args.get("chart"), dict):
            return {"code": chart_code(args["chart"], self.sample_db)}
        return args

    def _cannot(self, plan: intents.Plan) -> str:
        lines = replies.notes(plan)
        if not plan.understood:
            lines = [*lines[:-1], replies.help_text(plan.ja, self.pkg)] if plan.notes else [
                replies.help_text(plan.ja, self.pkg)]
        return "\n\n".join(lines)

    def _answer(self, plan: intents.Plan, since: list[AnyMessage]) -> str:
        calls = [c for m in since if isinstance(m, AIMessage) for c in m.tool_calls]
        results = {m.tool_call_id: m for m in since if isinstance(m, ToolMessage)}
        lines: list[str] = []
        for i, call in enumerate(calls):
            answer = results.get(call["id"])
            if answer is None:
                continue
            step = plan.steps[i] if i < len(plan.steps) else None
            args = step.args if step is not None and step.name == call["name"] else call["args"]
            failure = answer.artifact if isinstance(answer.artifact, dict) else None
            ok = answer.status != "error"
            line = replies.outcome(plan.ja, call["name"], args, text_of(answer), ok,
                                   step.about if step is not None else None, failure)
            if ok and step is not None and step.remark is not None:
                gap = "\n\n" if "\n" in line else ("" if plan.ja else " ")  # after a table
                line += gap + (step.remark[1] if plan.ja else step.remark[0])
            lines.append(line)
        return "\n".join(dict.fromkeys([*lines, *replies.notes(plan)]))
