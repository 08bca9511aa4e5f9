"""The faces as a few coarse MCP tools: ask the Advisor, list datasets, ask the Analyst.

Each face tool is a translator like the REST faces: it checks its arguments, starts a run
of the face's agent through the Runner and turns the run's events into one tool result.
A face tool is listed only while its agent is registered on this server.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from jsonschema import exceptions as schema_errors
from jsonschema import validators

from shokunin import events as ev
from shokunin.errors import locale_language
from shokunin.mcp.server import content
from shokunin.mcp.server.runs import Caller

Handler = Callable[[Caller, dict[str, Any]], Awaitable[types.CallToolResult]]


@dataclass(frozen=True)
class FaceTool:
    """One coarse tool: its MCP description, the agent it needs, and its handler."""

    tool: types.Tool
    agent: str
    handler: Handler

    @property
    def name(self) -> str:
        return self.tool.name

    def problem(self, args: dict[str, Any]) -> str | None:
        """Why ``args`` do not fit the input schema; None when they do."""
        schema = self.tool.input_schema
        error = schema_errors.best_match(validators.validator_for(schema)(schema)
                                         .iter_errors(args))
        if error is None:
            return None
        where = "/".join(str(p) for p in error.absolute_path)
        return f"invalid arguments for {self.name}{f' at {where}' if where else ''}: " \
            f"{error.message}"


def images(events: list[ev.BaseEvent]) -> list[types.ContentBlock]:
    return [content.image(e.data_base64, e.format) for e in events
            if isinstance(e, ev.Image)]


def narrate(event: ev.BaseEvent) -> str | None:
    """What a face's run is doing, for progress notifications."""
    if isinstance(event, ev.Progress):
        return event.message
    if isinstance(event, ev.ToolCall):
        return f"using {event.name}"
    if isinstance(event, ev.Code):
        return "running code" + (f" ({event.step})" if event.step else "")
    return None


def failed(end: ev.BaseEvent, **structured: Any) -> types.CallToolResult | None:
    """The error result for a run that failed or was cancelled; None otherwise. A failure
    the user can act on (a model's) is told in its own words, in the locale's language."""
    if isinstance(end, ev.RunFailed):
        said = (end.said or {}).get(locale_language())
        return content.error(said or end.error, **structured)
    if isinstance(end, ev.RunCancelled):
        return content.error(f"the run was cancelled ({end.reason})", **structured)
    return None
