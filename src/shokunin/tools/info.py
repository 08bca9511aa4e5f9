"""ToolInfo: how one discovered tool is described to the API, the CLI and agents."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel


class ToolInfo(BaseModel):
    """One tool as listed by ``GET /api/tools``; broken tools carry ``status="error"``."""

    name: str
    function_name: str | None = None
    title: str | None = None
    description: str | None = None
    icon: str | None = None
    declaration: dict[str, Any] | None = None
    status: Literal["ok", "error"] = "ok"
    error: str | None = None
    source: Literal["builtin", "user", "mcp"] = "user"
    server: str | None = None  # the MCP server of a tool whose source is "mcp"
    has_venv: bool = False
    has_settings: bool = False
    has_ui: bool = False
    # Required settings without a value: groups of {"key", "label"}, any one of a group will
    # do. A tool listed "ok" with this non-empty runs, but fails until they are set.
    needs_settings: list[list[dict[str, str]]] = []

    @property
    def ok(self) -> bool:
        return self.status == "ok"
