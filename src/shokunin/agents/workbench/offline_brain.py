"""OfflineBrain: decides like a model would, with patterns instead of a model.

First turn of a request: read it (intents.py) into tool calls, or answer with help.
After the tools ran: answer from their results. The graph cannot tell the difference.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage

from shokunin.agents.workbench import intents, replies
from shokunin.agents.workbench.decision import text_of
from shokunin.agents.workbench.deps import RunDeps
from shokunin.agents.workbench.tools import run_query
from shokunin.maps import MapPackage

_PLOT = """import matplotlib.pyplot as plt

rooms = {rooms!r}
areas = {areas!r}
fig, ax = plt.subplots(figsize=(8, 4))
ax.bar(rooms, areas, color="#4C78A8")
ax.set_ylabel("Area (m2)")
ax.set_title("Room areas")
plt.xticks(rotation=45, ha="right")
plt.tight_layout()
plt.show()
print(f"{{len(rooms)}} rooms, {{sum(areas):.0f}} m2 in total")"""


class OfflineBrain:
    name = "offline"
    calls_model = False

    def __init__(self, pkg: MapPackage, sample_db: Path) -> None:
        self.pkg = pkg
        self.sample_db = sample_db

    async def decide(self, messages: list[AnyMessage], deps: RunDeps) -> AIMessage:
        start = max(i for i, m in enumerate(messages) if isinstance(m, HumanMessage))
        req = intents.read(text_of(messages[start]), self.pkg)
        since = messages[start + 1:]
        if since and isinstance(since[-1], ToolMessage):
            return AIMessage(content=self._answer(req, since))
        calls = intents.plan(req, self.pkg, set(deps.tools))
        if calls is None:
            return AIMessage(content=replies.help_text(req.ja, self.pkg))
        return AIMessage(content="", tool_calls=[
            {"name": name, "args": self._fill(name, args), "id": f"call_{uuid.uuid4().hex[:12]}",
             "type": "tool_call"} for name, args in calls])

    def _fill(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        if name == "run_python":
            _cols, rows, _more = run_query(
                self.sample_db, "SELECT name, area_m2 FROM rooms ORDER BY area_m2 DESC")
            return {"code": _PLOT.format(rooms=[r[0] for r in rows], areas=[r[1] for r in rows])}
        return args

    def _answer(self, req: intents.Request, since: list[AnyMessage]) -> str:
        calls = {c["id"]: c for m in since if isinstance(m, AIMessage) for c in m.tool_calls}
        lines = []
        for m in since:
            if isinstance(m, ToolMessage) and m.tool_call_id in calls:
                call = calls[m.tool_call_id]
                lines.append(replies.outcome(req.ja, call["name"], call["args"], text_of(m),
                                             m.status != "error"))
        return "\n".join(lines)
