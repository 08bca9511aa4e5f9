"""Report a brain's decision in the seed's order: debug, code, then (for an answer) text.

The debug content keeps the seed's shape (agent_response, parsed_outputs, output_count)
for one streamed step: what was decided, and the outputs this step will produce.
"""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage

from shokunin import events as ev
from shokunin.agents.workbench.deps import RunDeps

PYTHON_TOOL = "run_python"


def text_of(message: AnyMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)


def step_number(messages: list[AnyMessage]) -> int:
    """1 + the tool-calling decisions made since the user's last message."""
    count = 0
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            break
        if isinstance(message, AIMessage) and message.tool_calls:
            count += 1
    return count + 1


def _literal(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_literal(k)}: {_literal(v)}" for k, v in value.items()) + "}"
    return repr(value)


def render_call(name: str, args: dict[str, Any]) -> str:
    """A tool call as the Python the user reads: ``draw_arrow(room_name="Kitchen", ...)``."""
    if name == PYTHON_TOOL and isinstance(args.get("code"), str):
        return args["code"]
    return f"{name}(" + ", ".join(f"{k}={_literal(v)}" for k, v in args.items()) + ")"


async def report(deps: RunDeps, message: AIMessage, step: int, brain: str) -> None:
    label = f"Step {step}"
    deps.step = label
    calls = message.tool_calls
    broken = [c for c in message.invalid_tool_calls if c.get("id")]  # answered by the graph
    text = text_of(message)
    shown = [c for c in calls if c["name"] != PYTHON_TOOL]  # the sandbox shows its own code
    code = "\n".join(render_call(c["name"], c["args"]) for c in shown)
    code_steps = [{"code": render_call(c["name"], c["args"]), "step": label} for c in calls]
    parsed: list[dict[str, Any]] = [
        {"type": "code", "content": s["code"], "language": "python", "step": label}
        for s in code_steps]
    if not calls and not broken and text:
        parsed.append({"type": "text", "content": text})
    events: list[ev.BaseEvent] = [ev.Debug(content={
        "agent_response": {"text": text, "raw_output": "", "code_steps": code_steps,
                           "logs": [{"step_number": step, "tool_calls": [
                               c["name"] or "" for c in [*calls, *broken]]}]},
        "parsed_outputs": parsed, "output_count": len(parsed), "brain": brain})]
    if code:
        events.append(ev.Code(code=code, language="python", step=label))
    answer = not calls and not broken  # a step of broken calls is not an answer
    if answer and text:
        events.append(ev.Text(text=text))
    await deps.ctx.emit_all(events)
    if answer:
        await deps.hold.release()
