"""Tools (seed 003): discovery, validation, settings, private venvs and execution.

A tool is a folder ``<name>/<name>_tool.py`` exporting TOOL_NAME, TOOL_DESCRIPTION,
TOOL_ICON, get_function_declaration() and execute(args, context); see README "Writing a tool".
"""

from shokunin.tools.errors import (
    InvalidArguments,
    SettingsInvalid,
    ToolError,
    ToolLoadError,
    ToolNotFound,
    ToolUnavailable,
    VenvError,
    WorkerDied,
)
from shokunin.tools.info import ToolInfo
from shokunin.tools.masking import MASK
from shokunin.tools.registry import ToolRegistry
from shokunin.tools.runtime import Runtime, Workspace, WorkspacePathError
from shokunin.tools.scaffold import scaffold

__all__ = [
    "MASK", "InvalidArguments", "SettingsInvalid", "ToolError", "ToolInfo", "ToolLoadError",
    "Runtime", "ToolNotFound", "ToolRegistry", "ToolUnavailable", "VenvError", "WorkerDied",
    "Workspace", "WorkspacePathError",
    "scaffold",
]
