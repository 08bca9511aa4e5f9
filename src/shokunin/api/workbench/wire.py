"""Seed 000's wire form: the one translation from engine Events to ``{"type", "content"}``.

Every message from a run also carries ``run_id`` and ``seq``, so a client can replay
what it missed. A run's end is a ``debug`` message with ``done: true``; a failed or
cancelled run first says so in an ``error`` message (a model's failure in the user's
language, with its ``code``: ``model_unreachable`` ...). What a cell printed follows its code
as a ``code`` message with ``language: "text"`` (and ``output: true``); a cell that failed
or was refused adds an ``error`` (``code_error`` / ``code_refused``).
"""

from __future__ import annotations

from typing import Any

from shokunin import events as ev


def _debug_done(event: ev.BaseEvent, state: str, **extra: Any) -> dict[str, Any]:
    return {"type": "debug", "done": True,
            "content": {"run": state, "run_id": event.run_id, **extra}}


def run_end(run_id: str, status: str, seq: int) -> dict[str, Any]:
    """The closing ``debug`` of a run whose terminal event is not at hand (a replay after
    its last event): the run's status, tagged like the run's own messages."""
    return {"type": "debug", "done": True, "content": {"run": status, "run_id": run_id},
            "run_id": run_id, "seq": seq}


def _code_result(result: ev.CodeResult) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    if output := result.stdout + result.stderr:
        messages.append({"type": "code", "content": output, "language": "text",
                         "output": True} | ({"step": result.step} if result.step else {}))
    if not result.ok:
        what = ": ".join(p for p in (result.error_type, result.error_message) if p)
        refused = result.error_type == "PolicyViolation"  # the sandbox's policy said no
        messages.append({"type": "error", "content": what or "the code failed",
                         "code": "code_refused" if refused else "code_error"})
    return messages


def _translate(event: ev.BaseEvent, language: str) -> list[dict[str, Any]]:
    match event:
        case ev.RunStarted(input=data):
            return [{"type": "user_message", "content": str(data.get("message", ""))}]
        case ev.TextDelta(delta=delta):
            # The answer as it grows; the whole ``text`` still follows it (seed 000 clients
            # ignore this type and read that).
            return [{"type": "text_delta", "content": delta}]
        case ev.Text(text=text):
            return [{"type": "text", "content": text}]
        case ev.Code(code=code, language=language, step=step):
            msg: dict[str, Any] = {"type": "code", "content": code, "language": language}
            return [msg | {"step": step}] if step else [msg]
        case ev.CodeResult() as result:
            return _code_result(result)
        case ev.Image(data_base64=data, format=fmt, path=path):
            msg = {"type": "image", "content": data, "format": fmt}
            return [msg | {"path": path}] if path else [msg]
        case ev.Table(markdown=markdown):
            return [{"type": "text", "content": markdown}]
        case ev.MapDefinition(definition=definition):
            return [{"type": "map_definition", "content": definition}]
        case ev.MapShow(content=content):
            return [{"type": "map", "content": content}]
        case ev.HighlightRoom(rooms=rooms):
            return [{"type": "highlight_room", "content": {"rooms": rooms}}]
        case ev.Arrow(room=room, direction=direction):
            return [{"type": "arrow", "content": {"room": room, "direction": direction}}]
        case ev.ClearArrows():
            return [{"type": "clear_arrows", "content": {}}]
        case ev.ClearMap():
            return [{"type": "clear_map", "content": {}}]
        case ev.Debug(content=content):
            return [{"type": "debug", "content": content}]
        case ev.Metrics():
            return [{"type": "debug", "content": {"usage": event.model_dump(
                include={"input_tokens", "output_tokens", "total_tokens", "model"})}}]
        case ev.Error(message=message, code=code):
            msg = {"type": "error", "content": message}
            return [msg | {"code": code}] if code else [msg]
        case ev.RunCompleted(output=output):
            return [_debug_done(event, "completed", output=output)]
        case ev.RunFailed(error=error, said=dict() as said, code=code):
            # a failure the user can act on (a model's): its sentence alone, in their words
            return [{"type": "error", "content": said.get(language) or error, "code": code},
                    _debug_done(event, "failed", error=error)]
        case ev.RunFailed(error=error):
            return [{"type": "error", "content": f"Error processing request: {error}"},
                    _debug_done(event, "failed", error=error)]
        case ev.RunCancelled(reason=reason):
            return [{"type": "error", "content": "Cancelled", "code": "cancelled"},
                    _debug_done(event, "cancelled", reason=reason)]
        case ev.RunInterrupted(payload=payload):
            return [_debug_done(event, "interrupted", payload=payload)]
    return []  # tool calls, progress, logs: the seed has no message for them


def to_wire(event: ev.BaseEvent, language: str = "en") -> list[dict[str, Any]]:
    """The seed 000 messages for ``event`` (none, one, or for a failed or cancelled run's
    end two), tagged with ``run_id`` and ``seq`` when the event belongs to a run; what the
    user reads of a failure in ``language`` ("ja" or "en") where it has both."""
    messages = _translate(event, language)
    if event.run_id:
        for message in messages:
            message["run_id"] = event.run_id
            message["seq"] = event.seq
    return messages
