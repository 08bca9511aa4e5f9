"""A run's outputs, gathered for its closing ``debug``: seed 000's debug content
(``agent_response`` with ``raw_output``, ``parsed_outputs``, ``output_count``) for the whole
run, where each step's own debug lists only that step's code and answer.

Fed the run's wire messages in order (live, or read back from the store for a replay).
"""

from __future__ import annotations

from typing import Any

# What a run shows the user; debug, echoes and growing text are not outputs.
OUTPUT_TYPES = frozenset({"text", "code", "image", "map", "highlight_room", "arrow",
                          "clear_arrows", "clear_map", "error"})
_ENVELOPE = ("run_id", "seq", "done")


def _brief(message: dict[str, Any]) -> dict[str, Any]:
    """The output as listed: an image's base64 is replaced by its size, which is what a
    reader of the debug pane can use."""
    out = {k: v for k, v in message.items() if k not in _ENVELOPE}
    if out["type"] == "image":
        out["content"] = f"<base64, {len(str(message.get('content', '')))} characters>"
    return out


class RunOutputs:
    def __init__(self) -> None:
        self.outputs: list[dict[str, Any]] = []
        self.texts: list[str] = []
        self.raw: list[str] = []
        self.code_steps: list[dict[str, Any]] = []
        self.logs: list[dict[str, Any]] = []

    def add(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind in OUTPUT_TYPES:
            self.outputs.append(_brief(message))
            if kind == "text":
                self.texts.append(str(message["content"]))
            elif kind == "code" and message.get("output"):
                self.raw.append(str(message["content"]))
        elif kind == "debug" and not message.get("done"):
            step = message.get("content", {}).get("agent_response", {})
            self.code_steps += step.get("code_steps", [])
            self.logs += step.get("logs", [])

    def close(self, message: dict[str, Any]) -> dict[str, Any]:
        """The closing debug ``message`` with the run's outputs in its content."""
        content = message["content"] | {
            "agent_response": {"text": "\n\n".join(self.texts), "raw_output": "".join(self.raw),
                               "code_steps": self.code_steps, "logs": self.logs},
            "parsed_outputs": self.outputs, "output_count": len(self.outputs)}
        return message | {"content": content}
