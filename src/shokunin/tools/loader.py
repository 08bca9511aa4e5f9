"""Loading one discovered tool into a LoadedTool: imported (in-process) or read (venv)."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from shokunin.models import DeclarationError, check_function
from shokunin.tools import venv
from shokunin.tools.child import describe
from shokunin.tools.discovery import Candidate
from shokunin.tools.errors import ToolLoadError
from shokunin.tools.info import ToolInfo
from shokunin.tools.settings_schema import check_settings_schema
from shokunin.tools.static import Dynamic, static_exports
from shokunin.tools.validation import (
    DEFAULT_UI_FILE,
    ArgsValidator,
    check_declaration,
    check_exports,
    check_ui_info,
)
from shokunin.tools.worker import ExportError, load_module, read_exports

# An MCP server's tool: (args, progress, workspace) -> a result execute() could return.
RemoteCall = Callable[[dict[str, Any], Callable[..., None], Path], Awaitable[dict[str, Any]]]


@dataclass
class LoadedTool:
    """A tool as the registry holds it; ``info`` is what the outside world sees.

    ``module`` is set for a tool run in-process, ``remote`` for an MCP server's tool; a
    folder tool with neither runs in its venv's child process.
    """

    info: ToolInfo
    tool_dir: Path
    entry: Path
    module: ModuleType | None = None
    settings_schema: dict[str, dict[str, Any]] = field(default_factory=dict)
    ui_info: dict[str, Any] = field(default_factory=dict)
    check_args: ArgsValidator | None = None
    remote: RemoteCall | None = None

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def ui_file(self) -> Path | None:
        if not self.info.has_ui:
            return None
        return (self.tool_dir / self.ui_info["html_file"]).resolve()


def load(candidate: Candidate) -> LoadedTool:
    """Load and validate; a broken tool comes back with status "error", never raises."""
    info = ToolInfo(name=candidate.name, source=candidate.source, has_venv=candidate.has_venv)
    tool = LoadedTool(info, candidate.tool_dir, candidate.entry)
    try:
        if candidate.problem:
            raise ToolLoadError(candidate.problem)
        if candidate.has_venv:
            exports = _venv_exports(candidate)
        else:
            tool.module = _import(candidate)
            exports = _read(tool.module)
        check_exports(exports)
        declaration = check_declaration(exports["get_function_declaration"])
        try:  # as sent to the model, whose description falls back to TOOL_DESCRIPTION
            check_function({**declaration, "description": declaration.get("description")
                            or exports["TOOL_DESCRIPTION"]})
        except DeclarationError as exc:
            raise ToolLoadError(str(exc)) from None
        if "get_settings_schema" in exports:
            tool.settings_schema = check_settings_schema(exports["get_settings_schema"])
        if "get_ui_info" in exports:
            tool.ui_info = check_ui_info(exports["get_ui_info"], candidate.tool_dir)
        if "has_ui" not in tool.ui_info and (candidate.tool_dir / DEFAULT_UI_FILE).is_file():
            # as in the origin project: an index.html beside the entry file is the tool's UI
            tool.ui_info = {"has_ui": True, "html_file": DEFAULT_UI_FILE, **tool.ui_info}
        tool.check_args = ArgsValidator(declaration["parameters"])
    except ToolLoadError as exc:
        tool.module = None
        info.status, info.error = "error", str(exc)
        return tool
    info.function_name = declaration["name"]
    info.title = exports["TOOL_NAME"]
    info.description = exports["TOOL_DESCRIPTION"]
    info.icon = exports["TOOL_ICON"]
    info.declaration = declaration
    info.has_settings = bool(tool.settings_schema)
    info.has_ui = bool(tool.ui_info.get("has_ui"))
    return tool


def _import(candidate: Candidate) -> ModuleType:
    module_name = "shokunin_tool_" + re.sub(r"\W", "_", f"{candidate.source}_{candidate.name}")
    try:
        return load_module(str(candidate.entry), module_name)
    except ExportError as exc:
        raise ToolLoadError(str(exc)) from None


def _read(module: ModuleType) -> dict[str, Any]:
    try:
        return read_exports(module)
    except ExportError as exc:
        raise ToolLoadError(str(exc)) from None


def _venv_exports(candidate: Candidate) -> dict[str, Any]:
    try:
        return static_exports(candidate.entry)
    except Dynamic as exc:
        if venv.is_ready(candidate.tool_dir):
            return describe(venv.venv_python(candidate.tool_dir), candidate.entry)
        raise ToolLoadError(
            f"{exc} is computed, so it can only be read inside the tool's venv, which is not "
            f"built yet: run `shokunin tools setup {candidate.name}`") from None
