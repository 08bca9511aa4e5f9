"""search_knowledge_base: the Advisor's knowledge index as a tool (seed 003's declaration
and ``{"success", "result", "error"}`` answer), its calls and results told to the run."""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool

from shokunin.events import ToolCall, ToolResult
from shokunin.knowledge import KnowledgeIndex
from shokunin.runs import RunContext

NAME = "search_knowledge_base"
MAX_RESULTS = 5
EXCERPT_CHARS = 1200
DECLARATION: dict[str, Any] = {
    "name": NAME,
    "description": "Search the knowledge base (guidelines, checklists, examples about price "
                   "pass-through / 価格転嫁) first. Returns chunks with source file, heading "
                   "and score; cite the source file names.",
    "parameters": {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What to look for, in Japanese."},
            "max_results": {"type": "integer", "minimum": 1, "maximum": MAX_RESULTS,
                            "description": f"At most {MAX_RESULTS} (default {MAX_RESULTS})."},
        },
        "required": ["query"],
    },
}


def _excerpt(text: str) -> str:
    """The start of a chunk, cut at a line end (a table's row is never cut in two)."""
    if len(text) <= EXCERPT_CHARS:
        return text
    cut = text.rfind("\n", 0, EXCERPT_CHARS + 1)
    return text[:cut if cut > 0 else EXCERPT_CHARS]


async def search_knowledge(index: KnowledgeIndex, ctx: RunContext, query: str,
                           max_results: int = MAX_RESULTS) -> dict[str, Any]:
    """Search, with a ToolCall and a ToolResult event around it; the contract's answer."""
    call_id = uuid.uuid4().hex
    args = {"query": query, "max_results": max_results}
    await ctx.emit(ToolCall(call_id=call_id, name=NAME, args=args))
    if not query.strip():
        answer = {"success": False, "result": None, "error": "query is empty"}
    else:
        hits = await asyncio.to_thread(index.search, query,
                                       max(1, min(int(max_results), MAX_RESULTS)))
        answer = {"success": True, "error": None, "result": {"results": [
            {"source": h.source, "heading": h.heading, "score": round(h.score, 4),
             "text": _excerpt(h.text)} for h in hits]}}
    await ctx.emit(ToolResult(call_id=call_id, name=NAME, success=answer["success"],
                              result=answer["result"], error=answer["error"]))
    return answer


def knowledge_tool(index: KnowledgeIndex, ctx: RunContext) -> BaseTool:
    async def call(query: str, max_results: int = MAX_RESULTS) -> str:
        return json.dumps(await search_knowledge(index, ctx, query, max_results),
                          ensure_ascii=False)

    return StructuredTool.from_function(coroutine=call, name=NAME,
                                        description=DECLARATION["description"],
                                        args_schema=DECLARATION["parameters"])
