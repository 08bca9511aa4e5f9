"""``ask_advisor``: a question to the Advisor (seed 001), in a new session or one to go on.

A session is an Advisor thread, as ``POST /api/session`` makes it; the answer says its
``session_id`` so the next question can continue the conversation.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types

from shokunin.agents.advisor import MAX_MESSAGE_CHARS, sessions
from shokunin.agents.advisor import NAME as ADVISOR
from shokunin.mcp.server import content
from shokunin.mcp.server.faces import FaceTool, failed, images, narrate
from shokunin.mcp.server.runs import Caller, follow
from shokunin.runs import ThreadNotFound, answer_of

TOOL = types.Tool(
    name="ask_advisor",
    title="Ask the Advisor",
    description=(
        "Ask shokunin's Advisor, a step-by-step consultant for small manufacturers on passing "
        "cost increases on to prices (価格転嫁): cost calculation, evidence, negotiation. "
        "Answers from its playbook and knowledge base. Returns the answer and a session_id; "
        "pass the session_id again to continue the same conversation."),
    input_schema={"type": "object", "properties": {
        "question": {"type": "string", "minLength": 1, "maxLength": MAX_MESSAGE_CHARS,
                     "description": "The question or message, in Japanese or English"},
        "session_id": {"type": "string",
                       "description": "A session_id an earlier answer gave, to continue it"}},
        "required": ["question"], "additionalProperties": False})


async def ask_advisor(caller: Caller, args: dict[str, Any]) -> types.CallToolResult:
    question = args["question"].strip()
    engine = caller.engine
    session_id = args.get("session_id")
    if session_id is None:
        session_id = await sessions.open_session(engine.store, caller.who, {}, question[:80])
    try:
        run_id = await sessions.ask(engine.runner, caller.who, session_id, question)
    except ThreadNotFound as exc:
        return content.error(f"no Advisor session {session_id!r}; leave session_id out "
                             "to start one", code=str(exc.code))
    events = await follow(caller, run_id, narrate)
    ids = {"session_id": session_id, "run_id": run_id}
    if (error := failed(events[-1], **ids)) is not None:
        return error
    said = answer_of(events)
    return types.CallToolResult(
        content=[content.text(said), *images(events),
                 content.text(f"(session_id: {session_id}; pass it to continue)")],
        structured_content={"answer": said, **ids})


FACE = FaceTool(TOOL, ADVISOR, ask_advisor)
